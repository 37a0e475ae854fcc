"""国标麻将 (MCR) scored hand by hand against an independent calculator, PyMahjongGB.

The hands come from the seeded generator in ``tests/mcr_hands.py``: for every
fan of the rule book (and PyMahjongGB's 明暗杠) hands built to contain it, plus
random legal winning hands, with melds, flowers, winds and every win flag.

Counts are fixed (no timing): ``PER_FAN`` hands per fan and ``N_RANDOM`` random
hands, over 20,000 in all. ``MJ_MCR_HANDS=N`` multiplies both by N for a longer
local run (``MJ_MCR_HANDS=10 python -m pytest tests/test_mcr_oracle.py``);
``MJ_MCR_SEED`` changes the seed.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import mcr_hands as M
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

MahjongGB = pytest.importorskip("MahjongGB", reason="PyMahjongGB (the test extra) is the oracle")
MahjongFanCalculator = MahjongGB.MahjongFanCalculator

SCALE = int(os.environ.get("MJ_MCR_HANDS", "1"))
SEED = int(os.environ.get("MJ_MCR_SEED", "20061"))
PER_FAN = 125 * SCALE
N_RANDOM = 10_000 * SCALE
FLOWER = "Flower Tiles"


def oracle(h: M.MCRHand) -> Counter[tuple[int, str]]:
    """PyMahjongGB's fans of ``h``: a multiset of (value of one occurrence, English name)."""
    out: Counter[tuple[int, str]] = Counter()
    for value, count, _zh, en in MahjongFanCalculator(**h.pmg_args(), verbose=True):
        out[(value, en)] += count
    return out


def total(fans: Counter[tuple[int, str]], flowers: bool = True) -> int:
    return sum(v * n for (v, en), n in fans.items() if flowers or en != FLOWER)


@pytest.fixture(scope="module")
def generated() -> list[M.MCRHand]:
    return list(M.hands(SEED, N_RANDOM, PER_FAN))


@pytest.fixture(scope="module")
def scored(generated) -> list[tuple[M.MCRHand, Counter[tuple[int, str]]]]:
    return [(h, oracle(h)) for h in generated]


# --- the generator itself -------------------------------------------------------

def test_enough_hands(generated):
    assert len(generated) >= 20_000
    assert len(M.RULE_BOOK_FANS) == 81
    built = Counter(h.built_for for h in generated)
    assert all(built[en] == PER_FAN for en in M.FANS)


def test_generated_hands_are_legal(generated):
    """The generator's own rules, checked without the oracle."""
    for h in generated:
        tiles = h.all_tiles()
        assert max(Counter(tiles).values()) <= 4, h.describe()
        assert len(h.concealed) + 3 * len(h.melds) == 13, h.describe()
        assert len(h.melds) <= 4 and 0 <= h.flowers <= 8
        held_copies = h.concealed.count(h.win_tile)
        in_melds = sum(m.tiles.count(h.win_tile) for m in h.melds)
        if h.fourth_tile:
            assert held_copies == 0, h.describe()
        if in_melds == 3:
            assert h.fourth_tile, h.describe()
        if h.about_kong:
            assert not h.wall_last, h.describe()
            if h.self_drawn:
                assert any(m.kind in ("kong", "concealed-kong") for m in h.melds), h.describe()
            else:
                assert held_copies == 0 and in_melds == 0 and h.fourth_tile, h.describe()
        if h.shape == "special":
            assert all(m.claimed for m in h.melds) and len(h.melds) <= 1


def test_every_hand_wins_for_the_oracle_with_the_flags_as_given(scored):
    """PyMahjongGB accepts every hand and never has to correct a flag."""
    for h, fans in scored:
        names = {en for _v, en in fans}
        robbed = h.about_kong and not h.self_drawn
        assert ("Last Tile" in names) == (h.fourth_tile and not robbed), h.describe()
        assert ("Robbing The Kong" in names) == robbed, h.describe()
        assert ("Out with Replacement Tile" in names) == (h.about_kong and h.self_drawn), h.describe()
        assert ("Last Tile Draw" in names) == (h.wall_last and h.self_drawn), h.describe()
        assert ("Last Tile Claim" in names) == (h.wall_last and not h.self_drawn), h.describe()
        assert fans[(1, FLOWER)] == h.flowers


def test_every_fan_is_built(scored):
    """Hands built for a fan contain it (by construction, not by filtering): at least a
    quarter of them, and most fans nearly always. A target fan can be absorbed by a
    bigger one (不计), so 100% is not required."""
    have: Counter[str] = Counter()
    seen: Counter[str] = Counter()
    for h, fans in scored:
        names = {en for _v, en in fans}
        seen.update(names)
        if h.built_for in names:
            have[h.built_for] += 1
    weak = {en: have[en] for en in M.FANS if have[en] < PER_FAN // 4}
    assert not weak, f"fans rarely produced by their builder: {weak}"
    assert all(seen[en] for en in M.FANS)
    assert sum(have.values()) >= 0.9 * PER_FAN * len(M.FANS)


def test_oracle_names_are_the_generators():
    """The English names the generator keys fans by are exactly PyMahjongGB's."""
    h = M.hand_for(__import__("random").Random(1), "Flower Tiles")
    got = MahjongFanCalculator(**h.pmg_args(), verbose=True)
    assert all(en in M.FANS for _v, _n, _zh, en in got)
    values = {en: v for en, (v, _zh, _b) in M.FANS.items()}
    for _h, fans in [(h, oracle(h))]:
        for (v, en) in fans:
            assert values[en] == v


# --- our evaluator against the oracle ------------------------------------------------

MINIMUM = 8  # fans needed to win, flowers not counted


@dataclass(frozen=True)
class Known:
    """A disagreement kept on purpose: which hands, and the rule book's reason."""

    name: str
    reason: str
    applies: Callable[..., bool]  # (evaluator, hand, ours, theirs, our win verdict) -> bool


def _fans(score) -> Counter[tuple[int, str]]:
    fans: Counter[tuple[int, str]] = Counter()
    for p in score.patterns:
        fans[(p.points, p.en)] += p.times
    return fans


def _equally_good_reading(ev, h: M.MCRHand, mine: Counter, theirs: Counter, win: bool) -> bool:
    """Same total and verdict, and PyMahjongGB's fans are exactly those of another reading of ours."""
    if total(mine) != total(theirs) or win != (total(theirs, flowers=False) >= MINIMUM):
        return False
    hand, ctx = M.engine_input(h)
    return any(_fans(s) == theirs for s in ev.score_readings(hand, ctx))


# Disagreements with PyMahjongGB that this ruleset keeps knowingly (docs/rules/mcr.md lists the
# same ones with the rule book's reasoning). Target: none.
KNOWN: list[Known] = [
    Known(
        "equal readings",
        "就高不就低 (take the higher) ranks readings by their total only; when two readings of a hand "
        "score the same, the rule book does not choose between them. PyMahjongGB keeps the first "
        "division it enumerates (pungs before chows from the lowest tile; one with 一色三同顺/三同刻, "
        "and four sets over 七对, preferred); we keep the one whose fans come first in declaration "
        "order (ties: first_declared). Checked strictly: same total, same verdict, and PyMahjongGB's "
        "fans are exactly another reading of ours.",
        _equally_good_reading,
    ),
]
# A known disagreement is an exception, not a loophole: it may cover only this share of the hands.
KNOWN_MAX_SHARE = 0.005


def ours(ev, h: M.MCRHand) -> tuple[bool, Counter[tuple[int, str]]]:
    hand, ctx = M.engine_input(h)
    score = ev.score(hand, ctx)
    return score.win, _fans(score)


def compare(ev, scored, examples: dict | None = None) -> tuple[dict, Counter[str], int]:
    """Disagreements grouped by what differs: {(missing, extra, win): [(hand, ours, theirs, win)]};
    the count of each known disagreement (its hands go to ``examples`` if given); agreements."""
    groups: dict = {}
    known: Counter[str] = Counter()
    agreed = 0
    for h, theirs in scored:
        win, mine = ours(ev, h)
        should_win = total(theirs, flowers=False) >= MINIMUM
        if mine == theirs and win == should_win:
            agreed += 1
            continue
        k = next((k for k in KNOWN if k.applies(ev, h, mine, theirs, win)), None)
        if k is not None:
            known[k.name] += 1
            if examples is not None:
                examples.setdefault(k.name, []).append((h, mine, theirs))
            continue
        key = (tuple(sorted((theirs - mine).items())), tuple(sorted((mine - theirs).items())),
               (win, should_win) if win != should_win else None)
        groups.setdefault(key, []).append((h, mine, theirs, win))
    return groups, known, agreed


def report(groups: dict, limit: int = 25) -> str:
    lines = []
    by_size = sorted(groups.items(), key=lambda kv: -len(kv[1]))
    for (missing, extra, wins), cases in by_size[:limit]:
        h, mine, theirs, _win = min(cases, key=lambda c: (len(c[0].melds), c[0].flowers, len(c[1])))
        lines.append(f"{len(cases)} hands; PyMahjongGB only: {list(missing)}; ours only: {list(extra)}"
                     + (f"; win ours/expected: {wins}" if wins else ""))
        lines.append(f"    e.g. {h.describe()}  (built for {h.built_for})")
        lines.append(f"    theirs {sorted(theirs.items())}")
        lines.append(f"    ours   {sorted(mine.items())}")
    return "\n".join(lines)


def _evaluator():
    if not (Path(__file__).resolve().parents[1] / "rulesets" / "mcr.yaml").exists():
        pytest.skip("rulesets/mcr.yaml is not on this branch yet")
    from mjframework.evaluate.scoring import Evaluator
    from mjframework.rules.loader import load_ruleset

    return Evaluator(load_ruleset("mcr"))


def test_ours_agrees_with_pymahjonggb(scored):
    """Every generated hand: same fans (value, English name, times) and the same total as
    PyMahjongGB; a win exactly when the fans without flowers reach 8."""
    ev = _evaluator()
    groups, known, agreed = compare(ev, scored)
    n_bad = sum(len(c) for c in groups.values())
    assert not groups, (f"{n_bad} of {len(scored)} hands disagree with PyMahjongGB "
                        f"({agreed} agree, known {dict(known)}):\n{report(groups)}")
    assert agreed + sum(known.values()) == len(scored)
    for name, n in known.items():
        assert n <= KNOWN_MAX_SHARE * len(scored), f"known disagreement {name!r} covers {n} hands"


if __name__ == "__main__":  # a report of every disagreement (for the ruleset's authors)
    import sys

    n = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    gen = list(M.hands(SEED, 20 * n, n))
    ex: dict = {}
    got, kn, ok = compare(_evaluator(), [(h, oracle(h)) for h in gen], ex)
    print(f"{ok} of {len(gen)} agree; known {dict(kn)}; {sum(len(c) for c in got.values())} disagree")
    print(report(got, limit=200))
    for name, cases in ex.items():
        print(f"known: {name}")
        for h, mine, theirs in cases[:20]:
            print(f"    {h.describe()}\n      theirs only {sorted((theirs - mine).items())}"
                  f"\n      ours only   {sorted((mine - theirs).items())}")


def test_rules_page_lists_every_fan_of_the_ruleset():
    """docs/rules/mcr.md's fan tables and rulesets/mcr.yaml agree: same fans, values, English names;
    and both are PyMahjongGB's (the generator's table)."""
    import re

    _evaluator()  # skips until the ruleset exists
    from mjframework.rules.loader import load_ruleset

    page = (Path(__file__).resolve().parents[1] / "docs" / "rules" / "mcr.md").read_text(encoding="utf-8")
    rows = {}
    # | 「中文」 | fan | English (a note) | 不计 |
    for m in re.finditer(r"^\| *「(\S+)」 \| *(\d+) \| ([^|(]+?) *(?:\([^|]*\))? *\| [^|]+\|$", page, re.M):
        rows[m.group(1)] = (int(m.group(2)), m.group(3).strip())
    ruleset = {p.name: (p.points, p.en) for p in load_ruleset("mcr").patterns}
    assert rows == ruleset
    oracle_table = {zh: (v, en) for en, (v, zh, _b) in M.FANS.items()}
    assert ruleset == oracle_table


@settings(max_examples=300, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1), which=st.sampled_from(["random", *M.FANS]))
def test_any_seed_agrees(seed: int, which: str):
    """Beyond the fixed hand set: a hand for any seed and any fan (or a random one) is legal for
    the oracle and scores the same with us, or is an equally scoring reading (KNOWN)."""
    ev = _evaluator()
    rng = __import__("random").Random(seed)
    h = M.random_hand(rng) if which == "random" else M.hand_for(rng, which)
    theirs = oracle(h)
    win, mine = ours(ev, h)
    if mine == theirs and win == (total(theirs, flowers=False) >= MINIMUM):
        return
    assert any(k.applies(ev, h, mine, theirs, win) for k in KNOWN), (
        f"{h.describe()}\ntheirs {sorted(theirs.items())}\nours   {sorted(mine.items())}")


def test_rule_card_examples_agree_with_pymahjonggb():
    """Each fan's example hand in mcr.yaml (what `mj doc mcr` shows) is a win PyMahjongGB scores
    with that fan, and we score it exactly as PyMahjongGB does."""
    ev = _evaluator()
    from mjframework.design.rulecard import declared_example

    missing, wrong = [], []
    for p in ev.ruleset.patterns:
        ex = declared_example(ev, p)
        if ex is None:
            missing.append(p.name)
            continue
        hand, ctx = ex.hand(), ex.context()
        h = M.from_engine(hand, ctx, p.en)
        theirs = oracle(h)
        win, mine = ours(ev, h)
        ok = (mine == theirs and win == (total(theirs, flowers=False) >= MINIMUM)) or any(
            k.applies(ev, h, mine, theirs, win) for k in KNOWN)
        if theirs[(p.points, p.en)] == 0 or not ok or not win:
            wrong.append(f"{p.name}: {h.describe()}\n  theirs {sorted(theirs.items())}\n"
                         f"  ours   {sorted(mine.items())} win={win}")
    assert not missing, f"fans without an example: {missing}"
    assert not wrong, "\n".join(wrong)
