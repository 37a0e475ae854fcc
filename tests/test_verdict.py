"""is_win's verdict without the refusal's result (``evaluate/verdict.py``) against full
scoring (``score(...).win``), on every ruleset with a minimum to win (``scoring.minimum``).

The hands mix complete shapes, near-complete ones, seven pairs, melds and kongs (test_fast_paths'
``random_case``); under a minimum most hands that fit a shape are refused for their points, so
both verdicts come out of the scorer here (counted: the test fails if either is missing).
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
from test_fast_paths import RULESETS, random_case

from mjframework.core.errors import HandError
from mjframework.evaluate.scoring import Evaluator
from mjframework.evaluate.verdict import scored_win
from mjframework.rules.loader import load_ruleset

HANDS = int(os.environ.get("MJ_VERDICT_HANDS", "1500"))  # per ruleset (mcr; a third for the others)
WITH_MINIMUM = [r for r in RULESETS if load_ruleset(r).scoring.minimum is not None]


def test_the_rulesets_with_a_minimum_include_mcr_and_purpose_made_ones() -> None:
    assert "mcr" in WITH_MINIMUM and len(WITH_MINIMUM) >= 3


@pytest.mark.parametrize("rid", WITH_MINIMUM, ids=lambda r: Path(r).stem)
def test_verdict_is_full_scorings(rid: str) -> None:
    rs = load_ruleset(rid)
    fast, full = Evaluator(rs), Evaluator(rs, generated=False)
    rng = random.Random(f"verdict-{Path(rid).stem}")
    tally = {"won": 0, "refused for points": 0, "no reading": 0}
    for _ in range(HANDS if rid == "mcr" else HANDS // 3):
        hand, ctx, wildcard = random_case(fast, rng)
        try:
            score = full.score(hand, ctx, wildcard)
        except HandError:
            continue
        assert fast.is_win(hand, ctx, wildcard) == score.win, (hand, ctx, score)
        # The verdict alone, on every hand the tables would otherwise hand to the scorer.
        got = scored_win(fast, hand, ctx, wildcard)
        assert (got is not None) == score.win, (hand, ctx, score)
        if got is not None:
            assert got == fast._score(hand, ctx, wildcard)
            tally["won"] += 1
        else:
            tally["no reading" if not score.patterns else "refused for points"] += 1
    assert tally["won"] and tally["refused for points"], tally
