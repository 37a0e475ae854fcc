"""The bulk judge (:class:`mjframework.evaluate.bulkjudge.BulkJudge`) against judging one
pattern at a time (:func:`mjframework.evaluate.patterns.requirements_hold`, and the previous combination
step: ``slow_reference.judge``).

Every reading the scorer judges (``Evaluator.score_readings``: every reading of every
shape) is judged both ways: the patterns held must be the same list, and the combined
result (points, patterns and their times) the same. Hands: ``test_fast_paths.random_case``
(0–4 wildcards, melds, contexts and flags) for every shipped and purpose-made ruleset, and
the MCR oracle's generator (hands built for each fan, flowers, winds, win flags).
Bounded by counts and seeds.
"""

from __future__ import annotations

import random
from pathlib import Path

import mcr_hands
import pytest
import slow_reference as ref
from test_fast_paths import RULESETS, random_case

from mjframework.core.errors import HandError
from mjframework.evaluate.patterns import Measures, requirements_hold
from mjframework.evaluate.scoring import Evaluator
from mjframework.rules.loader import load_ruleset

HERE = Path(__file__).resolve().parent
ALL = [*RULESETS, str(HERE / "data" / "scoring" / "wild-measures.yaml")]


class _Compare:
    """Wraps the evaluator's judges (``ev._judge``, by a list of patterns, which the reading
    search calls; ``ev._keyed_judge()``, by their mask, which the scorer calls): each reading
    judged in bulk (and by the judge generated for the ruleset) and one pattern at a time."""

    def __init__(self, ev: Evaluator) -> None:
        self.ev = ev
        self.readings = 0
        self.held = 0  # patterns held, over all readings (the test must exercise something)
        self.names: set[str] = set()  # the patterns held on some reading
        self.bulk = ev._judge
        self.keyed = ev._keyed_judge()
        ev._judge = self  # type: ignore[method-assign]
        ev._keyed_judge = lambda: self.by_mask  # type: ignore[method-assign]

    def by_mask(self, reading, alive, facts, wildcard):  # type: ignore[no-untyped-def]
        patterns = sorted(self.ev._bulk.patterns_of(alive), key=lambda p: p.index)
        result = self(reading, patterns, facts, wildcard)
        keyed = self.keyed(reading, alive, facts, wildcard)
        assert (keyed is None and result is None) or keyed[1:] == result, reading
        return keyed

    def __call__(self, reading, patterns, facts, wildcard):  # type: ignore[no-untyped-def]
        ev, bulk = self.ev, self.ev._bulk
        m = Measures(reading.tiles, reading, facts, wildcard)
        got = sorted(bulk.patterns_of(bulk.holding(m, bulk.mask_of(patterns))), key=lambda p: p.index)
        fresh = Measures(reading.tiles, reading, facts, wildcard)
        want = [p for p in patterns if requirements_hold(p, fresh)]
        assert [p.name for p in got] == [p.name for p in want], reading
        result = self.bulk(reading, patterns, facts, wildcard)
        assert result == ref.judge(ev, reading, patterns, facts, wildcard), reading
        self.readings += 1
        self.held += len(want)
        self.names.update(p.name for p in want)
        return result


@pytest.mark.parametrize("rid", ALL, ids=lambda r: Path(r).stem)
def test_bulk_judge_agrees_per_pattern(rid: str) -> None:
    ev = Evaluator(load_ruleset(rid))
    cmp = _Compare(ev)
    rng = random.Random(13)
    for _ in range(3000):  # until 200 readings are judged both ways
        if cmp.readings >= 200:
            break
        for _ in range(4):  # winning hands preferred (the others mostly have no reading)
            hand, ctx, wildcard = random_case(ev, rng)
            if ev.is_win(hand, ctx, wildcard):
                break
        try:
            ev.score_readings(hand, ctx, wildcard)
        except HandError:
            continue
    assert cmp.readings >= 200 and cmp.held > 0


def test_bulk_judge_agrees_on_mcr_fans() -> None:
    ev = Evaluator(load_ruleset("mcr"))
    cmp = _Compare(ev)
    n = 0
    for h in mcr_hands.hands(5, n_random=300, per_fan=3):
        hand, ctx = mcr_hands.engine_input(h)
        ev.score_readings(hand, ctx)
        n += 1
    assert n > 300 and cmp.readings > n
    # every pattern of the ruleset held on some reading
    assert cmp.names == {p.name for p in ev.win_patterns}


def test_waiting_tiles_on_mcr_fans() -> None:
    """``waiting_tiles`` (candidate kinds only, the win table's waits counted unchecked)
    against every kind checked, on hands built for each fan (knitted straights, seven pairs,
    thirteen orphans … included), and on each with one held tile swapped for another kind."""
    ev = Evaluator(load_ruleset("mcr"))
    rng = random.Random(7)
    n = 0
    for h in mcr_hands.hands(9, n_random=100, per_fan=3):
        hand, _ctx = mcr_hands.engine_input(h)
        held = list(hand.concealed)
        swapped = list(held)
        swapped[rng.randrange(len(swapped))] = rng.randrange(34)
        for tiles in (held, swapped):
            want = ref.waiting_tiles(ev, tiles, hand.melds)
            assert ev.waiting_tiles(tiles, hand.melds) == want, (tiles, hand.melds)
            n += want
    assert n > 300


@pytest.mark.parametrize("ruleset", ALL)
def test_measure_masks_are_the_patterns_bits(ruleset: str) -> None:
    """A family's mask holds exactly the bits of the patterns that use it. A pattern using two
    measures of one family once got a carried bit (the masks were summed, not OR-ed)."""
    from mjframework.evaluate.patterns import GROUP_MEASURES, TILE_MEASURES

    bulk = Evaluator(load_ruleset(ruleset))._bulk
    every = 0
    for p in bulk.patterns:
        every |= bulk.bit[p]
    for family, mask in ((TILE_MEASURES, bulk.tile_measure_mask), (GROUP_MEASURES, bulk.group_measure_mask)):
        users = [p for p in bulk.patterns if any(name in family for name, b in bulk.cheap
                                                     if b.mask & bulk.bit[p])]
        assert mask & ~every == 0
        assert bin(mask).count("1") == len(users)
