"""The reading search's exact bounds (``self_wild_sequences``; ``sets_of_four`` of a pairs
shape) and its directed reading.

``_Bounds.self_wild`` finds, from the win table, the most sequences holding a wildcard read
as its own kind (beside two natural tiles) that a reading of a standard shape can have, and
one way to take them; the search drops patterns asking for more and tries a reading built
from that choice first (``evaluate.search.self_wild_reading``). Checked here against every
reading of the hand (``readings`` without the search) on seeded hands with 1–3 wildcards,
melds and stand-ins, for the rulesets that have wildcards: the most is exactly the most
over every reading, and the directed reading is one of them with that many. Likewise the
most kinds of four a pairs shape's reading can have (``_Bounds._pairs_fours``).
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from test_fast_paths import random_case

from mjframework.evaluate.bounds import _Bounds
from mjframework.evaluate.patterns import HandFacts, Measures
from mjframework.evaluate.readings import readings
from mjframework.evaluate.scoring import Evaluator
from mjframework.evaluate.search import self_wild_reading
from mjframework.rules.loader import load_ruleset

HERE = Path(__file__).resolve().parent
RULESETS = ["yongzhou-wangba", "yongzhou-huandiao", str(HERE / "rulesets" / "hongzhong.yaml"),
            str(HERE / "data" / "scoring" / "wild-measures.yaml")]


def _sorted_groups(r):
    return tuple(sorted(r.groups, key=lambda g: (g.tiles, g.kind, g.sources, g.meld or "")))


@pytest.mark.parametrize("rid", RULESETS, ids=lambda r: Path(r).stem)
def test_most_self_wild_sequences_is_exact(rid: str) -> None:
    ev = Evaluator(load_ruleset(rid))
    rng = random.Random(13)
    checked = with_some = 0
    for _ in range(3000):
        if checked >= 150:
            break
        hand, _ctx, wildcard = random_case(ev, rng)
        wildcard = ev.wildcard_from(wildcard) if wildcard is not None else ev.wildcard_from()
        full = ev.split([*hand.concealed, hand.win_tile], wildcard)
        if not 1 <= full.wilds <= 3:
            continue
        wild = ev.wild_kinds(wildcard)
        bounds = _Bounds(full, hand, wild, 3, ev.shapes)
        facts = HandFacts(full.wilds, full.wilds, False, 3, wild_kinds=wild if ev._fixed else None)
        for shape in ev.shapes:
            if shape.kind != "standard":
                continue
            every = readings(full, hand.melds, shape, ev.kinds)
            if not every:
                continue
            checked += 1
            most = max(Measures(r.tiles, r, facts, wildcard).get("self_wild_sequences") for r in every)
            got = bounds.self_wild(shape, full.wilds)
            assert got is not None and got[0] == most, (hand, wildcard, got, most)
            directed = self_wild_reading(ev, full, hand, shape, bounds)
            if most:
                with_some += 1
                assert directed is not None
                assert Measures(directed.tiles, directed, facts, wildcard).get("self_wild_sequences") == most
                assert _sorted_groups(directed) in {_sorted_groups(r) for r in every}
            else:
                assert directed is None
    assert checked >= 150
    if "hongzhong" not in rid:  # (its wildcard is an honor: never in a sequence)
        assert with_some >= 10


@pytest.mark.parametrize("rid", RULESETS, ids=lambda r: Path(r).stem)
def test_most_fours_of_a_pairs_shape_is_exact(rid: str) -> None:
    """``_Bounds._pairs_fours``: the most ``sets_of_four`` over every reading of a pairs shape."""
    ev = Evaluator(load_ruleset(rid))
    pairs = [s for s in ev.shapes if s.kind == "pairs"]
    if not pairs:
        pytest.skip("no pairs shape")
    rng = random.Random(7)
    checked = with_some = 0
    for _ in range(4000):
        if checked >= 150:
            break
        hand, _ctx, wildcard = random_case(ev, rng)
        if hand.melds:
            continue
        wildcard = ev.wildcard_from(wildcard) if wildcard is not None else ev.wildcard_from()
        full = ev.split([*hand.concealed, hand.win_tile], wildcard)
        if full.wilds > 4:
            continue
        wild = ev.wild_kinds(wildcard)
        bounds = _Bounds(full, hand, wild, 3, ev.shapes)
        facts = HandFacts(full.wilds, full.wilds, False, 3, wild_kinds=wild if ev._fixed else None)
        for shape in pairs:
            every = readings(full, (), shape, ev.kinds)
            if not every:
                assert bounds._pairs_fours(shape) == 0  # (no reading: none)
                continue
            checked += 1
            most = max(Measures(r.tiles, r, facts, wildcard).get("sets_of_four") for r in every)
            with_some += most > 0
            assert bounds._pairs_fours(shape) == most, (hand, wildcard)
    assert checked >= 100 and with_some >= 10
