"""The first reading with wildcards from per-block tables (readings.first_wild_groups)
against the whole-hand search it replaces (readings._first_standard).

``readings(..., first=True)`` on a standard shape with wildcards is the reading the
wildcard search judges first (and often the only one). It is now put together from one
decomposition per block (each suit, the honors), looked up by the block's counts; these
tests check it is exactly the reading the search finds — the same groups, sources and
wildcards-alone groups — on every small suit, on every small honor block, and on seeded
hands over all four blocks (bounded by counts, not time).
"""

from __future__ import annotations

import itertools
import random

import pytest

from mjframework.evaluate import readings as rd
from mjframework.evaluate import wild_blocks as wb
from mjframework.evaluate.readings import Tiles, first_wild_groups, readings
from mjframework.rules.model import Shape

KINDS = list(range(34))


def old_first(c: list[int], w: int, melds: int, pairs: int, wildcard: int | None,
              kinds: list[int] = KINDS) -> tuple | None:
    """The search as standard_readings ran it (groups sorted as readings sort them)."""
    order = sorted(kinds, key=c.__getitem__, reverse=True) if w >= 2 else kinds
    one = rd._first_standard(list(c), w, melds, pairs, order, wildcard, [], set())
    return None if one is None else tuple(sorted(one, key=rd._group_key))


def _check(c: list[int], w: int, melds: int, pairs: int, wildcard: int | None,
           kinds: list[int] = KINDS) -> bool:
    want = old_first(c, w, melds, pairs, wildcard, kinds)
    got = first_wild_groups(c, w, melds, pairs, kinds, wildcard)
    assert got == want, (c, w, melds, pairs, wildcard)
    return want is not None


def test_every_small_suit_agrees_with_the_search() -> None:
    """Every suit vector of at most 5 natural tiles, 0–4 wildcards, with and without a pair,
    the wildcard's kind outside the suit, at a rank of it (stand-ins read there) or none."""
    found = checked = 0
    for v in itertools.product(range(5), repeat=9):
        n = sum(v)
        if n > 5:
            continue
        for w in range(5):
            for pairs in (0, 1):
                if (n + w - 2 * pairs) % 3:
                    continue
                melds = (n + w - 2 * pairs) // 3
                for block, wildcard in ((0, None), (1, 4), (0, 30)):
                    c = [0] * 34
                    c[block * 9:block * 9 + 9] = v
                    found += _check(c, w, melds, pairs, wildcard)
                    checked += 1
    assert checked > 10_000 and found > 3_000


def test_honor_blocks_agree_with_the_search() -> None:
    for v in itertools.product(range(4), repeat=7):
        n = sum(v)
        if n > 6:
            continue
        for w in range(5):
            for pairs in (0, 1):
                if (n + w - 2 * pairs) % 3:
                    continue
                c = [0] * 27 + list(v)
                _check(c, w, (n + w - 2 * pairs) // 3, pairs, None)


def _complete(rng: random.Random, melds: int, pairs: int) -> list[int]:
    """Counts of a complete hand of ``melds`` melds and ``pairs`` pairs (at most 4 of a kind)."""
    while True:
        c = [0] * 34
        for _ in range(melds):
            if rng.random() < 0.6:
                t = rng.randrange(27)
                t -= max(0, t % 9 - 6)
                for x in (t, t + 1, t + 2):
                    c[x] += 1
            else:
                c[rng.randrange(34)] += 3
        for _ in range(pairs):
            c[rng.randrange(34)] += 2
        if max(c) <= 4:
            return c


@pytest.mark.parametrize("seed", range(3))
def test_seeded_hands_over_every_block(seed: int) -> None:
    """Complete hands with 0–5 of their tiles turned wild, random hands that mostly don't fit,
    an off total now and then; the wildcard anywhere (or none), every kind or a tile set
    without honors."""
    rng = random.Random(seed)
    found = 0
    for i in range(2_000):
        pairs = rng.choice((0, 1, 1, 1))
        melds = rng.randrange(1, 5)
        if i % 3:
            c = _complete(rng, melds, pairs)
            w = rng.randrange(min(6, sum(c)) + 1)
            for _ in range(w):
                x = rng.choice([k for k in range(34) if c[k]])
                c[x] -= 1
        else:
            w = rng.randrange(6)
            total = max(0, 3 * melds + 2 * pairs - w + rng.choice((0, 0, 0, 1, -1)))
            c = [0] * 34
            pool = rng.sample(range(34), 12)
            while sum(c) < total:
                x = rng.choice(pool)
                if c[x] < 4:
                    c[x] += 1
        wildcard = rng.choice([None, *range(34)])
        kinds = KINDS if i % 4 else list(range(27))
        if any(c[k] for k in range(27, 34)) and kinds is not KINDS:
            kinds = KINDS
        found += _check(c, w, melds, pairs, wildcard, kinds)
    assert found > 800


def test_readings_first_uses_the_tables_and_stand_ins() -> None:
    """Through readings(first=True): stand-ins read either way, exposed melds before."""
    rng = random.Random(7)
    shape = Shape("standard", melds=4, pair=1)
    seen = 0
    for _ in range(500):
        c = _complete(rng, 4, 1)
        wildcard = rng.randrange(27)
        stand_in = 31
        w = rng.randrange(5)
        for _ in range(w):
            c[rng.choice([k for k in range(34) if c[k]])] -= 1
        stand_ins, c[stand_in] = c[stand_in], 0
        moved = c[wildcard]  # the wildcard's kind has no natural copies: read as stand-ins
        c[wildcard] = 0
        stand_ins += moved
        t = Tiles(tuple(c), w, stand_ins, stand_in if stand_ins else None, wildcard)
        got = readings(t, (), shape, KINDS, first=True)
        want = None
        for split, _k in rd.stand_in_splits(t):
            want = old_first(split, w, 4, 1, wildcard)
            if want is not None:
                break
        assert [r.groups for r in got] == ([] if want is None else [want])
        seen += bool(got)
    assert seen > 300


def test_odd_counts_fall_back_to_the_search() -> None:
    c = [0] * 34
    c[0] = 300  # not a small count: the tables refuse it, the search answers
    with pytest.raises(ValueError):
        first_wild_groups(c, 2, 4, 1, KINDS, None)
    t = Tiles(tuple([3, 1, 1, 1] + [0] * 30), 2, 0, None, None)
    (r,) = readings(t, (), Shape("standard", melds=2, pair=1), KINDS, first=True)
    assert r.groups == old_first(list(t.counts), 2, 2, 1, None)


def test_tables_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(wb, "TABLE_MAX", 5)
    monkeypatch.setattr(wb, "MEMO_MAX", 50)
    monkeypatch.setattr(wb, "_TABLES", {})
    monkeypatch.setattr(wb, "_MEMO", {})
    monkeypatch.setattr(wb, "_tables", 0)
    rng = random.Random(3)
    for _ in range(50):
        c = _complete(rng, 4, 1)
        for _ in range(2):
            c[rng.choice([k for k in range(34) if c[k]])] -= 1
        _check(c, 2, 4, 1, None)
        assert wb._tables <= 5 and sum(len(t) for ts in wb._TABLES.values() for t in ts) <= 5
        assert len(wb._MEMO) <= 50 + 200  # (cleared before a build; one build adds its states)


@pytest.mark.parametrize("seed", range(2))
def test_first_pairs_reading_is_the_first_of_every_reading(seed: int) -> None:
    """pairs_readings(first=True) builds its one reading directly (no sort): it is the first of
    every reading, stand-ins either way, with and without classes of kinds."""
    from mjframework.evaluate.readings import FreeKinds, pairs_readings

    rng = random.Random(seed)
    shape = Shape("pairs", pairs=7)
    found = 0
    for i in range(1_500):
        kinds = KINDS if i % 3 else sorted(rng.sample(KINDS, 20))
        c = [0] * 34
        w = rng.randrange(8)
        pool = kinds[:12] if i % 2 else kinds
        while sum(c) < 14 - w:
            x = rng.choice(pool)
            if c[x] < 4:
                c[x] += 1
        wildcard = rng.choice([None, *kinds])
        stand_ins, stand_in = 0, None
        if i % 4 == 0 and wildcard is not None and wildcard != 31 and 31 in kinds:
            stand_ins, c[31], stand_in = c[31], 0, 31
            w += c[wildcard]  # (the wildcard's kind holds no natural tile)
            c[wildcard] = 0
            stand_in = stand_in if stand_ins else None
        t = Tiles(tuple(c), w, stand_ins, stand_in, wildcard)
        free = FreeKinds(kinds, lambda k: (k // 9, k % 2)) if i % 5 == 0 else None
        first = pairs_readings(t, (), shape, kinds, free, first=True)
        assert first == pairs_readings(t, (), shape, kinds, free)[:1], (c, w, wildcard)
        found += bool(first)
    assert found > 300


def test_lazy_tables_are_built_on_the_second_sight(monkeypatch: pytest.MonkeyPatch) -> None:
    """With ``lazy`` (as readings use it), a block met for the first time is left to the search
    (LookupError); met again, its table is built and gives the search's reading."""
    monkeypatch.setattr(wb, "_TABLES", {})
    monkeypatch.setattr(wb, "_SEEN", set())
    monkeypatch.setattr(wb, "_tables", 0)
    c = [0] * 34
    for t in (0, 1, 2, 4, 4, 9, 10, 13, 13, 13, 30):
        c[t] += 1
    with pytest.raises(LookupError):
        first_wild_groups(c, 3, 4, 1, KINDS, 5, lazy=True)
    assert not any(any(t) for t in wb._TABLES.values())
    assert first_wild_groups(c, 3, 4, 1, KINDS, 5, lazy=True) == old_first(c, 3, 4, 1, 5)
    assert wb._tables == 4
    # and through readings: the same reading either way
    t = Tiles(tuple(c), 3, 0, None, 5)
    shape = Shape("standard", melds=4, pair=1)
    monkeypatch.setattr(wb, "_TABLES", {})
    monkeypatch.setattr(wb, "_SEEN", set())
    assert [r.groups for r in readings(t, (), shape, KINDS, first=True)] == [old_first(c, 3, 4, 1, 5)]
    assert not any(any(t) for t in wb._TABLES.values())
    assert [r.groups for r in readings(t, (), shape, KINDS, first=True)] == [old_first(c, 3, 4, 1, 5)]
    assert any(any(t) for t in wb._TABLES.values())
