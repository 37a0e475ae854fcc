"""The per-block natural reading tables (readings.natural_groups) against the whole-hand search.

Without wildcards, :func:`readings.standard_readings` combines per-block decompositions
(each suit, the honors: looked up by the block's counts) instead of searching the whole
hand. These tests check it gives exactly what the old search gives — the same readings,
the same groups in the same order, in the same order of readings — on every suit of up to
eight tiles and on seeded random hands (bounded by counts, not time).
"""

from __future__ import annotations

import itertools
import random

import pytest

from mjframework.evaluate import readings as rd
from mjframework.evaluate.readings import Tiles, block_decompositions, natural_groups, standard_readings
from mjframework.rules.model import Shape


def old_search(counts: list[int], melds: int, pairs: int) -> list[tuple]:
    """The whole-hand search as standard_readings did it (duplicates dropped, first kept)."""
    out: list[tuple] = []
    rd._natural(list(counts), melds, pairs, None, [], out)
    seen: set[tuple] = set()
    unique = []
    for g in out:
        key = tuple(sorted(g, key=rd._group_key))
        if key not in seen:
            seen.add(key)
            unique.append(g)
    return unique


def _suits(max_total: int):
    for v in itertools.product(range(5), repeat=9):
        if sum(v) <= max_total:
            yield v


def test_every_small_suit_block_agrees_with_the_search() -> None:
    """Every suit vector of at most 8 tiles, in each suit, for every melds/pairs split."""
    checked = 0
    for v in _suits(8):
        n = sum(v)
        for block in range(3):
            counts = [0] * 34
            counts[block * 9:block * 9 + 9] = v
            for pairs in range(0, n // 2 + 1):
                if (n - 2 * pairs) % 3:
                    continue
                melds = (n - 2 * pairs) // 3
                assert natural_groups(counts, melds, pairs) == old_search(counts, melds, pairs), (v, block)
                checked += 1
    assert checked > 5000


def test_honor_blocks_agree_with_the_search() -> None:
    for v in itertools.product(range(5), repeat=7):
        if sum(v) > 14:
            continue
        counts = [0] * 27 + list(v)
        n = sum(v)
        for pairs in range(0, min(n // 2, 7) + 1):
            if (n - 2 * pairs) % 3:
                continue
            melds = (n - 2 * pairs) // 3
            assert natural_groups(counts, melds, pairs) == old_search(counts, melds, pairs), v


def _random_counts(rng: random.Random, n: int, kinds: list[int]) -> list[int]:
    counts = [0] * 34
    while n:
        k = rng.choice(kinds)
        if counts[k] < 4:
            counts[k] += 1
            n -= 1
    return counts


def _complete(rng: random.Random, melds: int, pairs: int, suits: int) -> list[int]:
    """melds + pairs drawn from ``suits`` suits (and honors), at most 4 copies."""
    kinds = [k for k in range(34) if k >= 27 or k // 9 < suits]
    while True:
        counts = [0] * 34
        for _ in range(melds):
            k = rng.choice(kinds)
            if k < 27 and k % 9 <= 6 and rng.random() < 0.6:
                for x in (k, k + 1, k + 2):
                    counts[x] += 1
            else:
                counts[k] += 3
        for _ in range(pairs):
            counts[rng.choice(kinds)] += 2
        if max(counts) <= 4:
            return counts


@pytest.mark.parametrize("seed", range(4))
def test_random_hands_agree(seed: int) -> None:
    """Complete hands (many readings: one or two suits) and random tiles (mostly none)."""
    rng = random.Random(seed)
    for i in range(1500):
        if i % 3 == 2:
            n = rng.choice((14, 11, 8, 5, 2))
            counts = _random_counts(rng, n, list(range(34)))
            pairs = 1
            melds = (n - 2) // 3
        else:
            melds, pairs = rng.choice(((4, 1), (3, 1), (4, 0), (2, 1), (0, 7), (1, 4)))
            counts = _complete(rng, melds, pairs, rng.choice((1, 2, 3)))
        assert natural_groups(counts, melds, pairs) == old_search(counts, melds, pairs), counts
        shape = Shape("standard", melds=melds, pair=pairs)
        t = Tiles(tuple(counts), 0, 0, None, None)
        got = standard_readings(t, (), shape, list(range(34)))
        assert [r.groups for r in got] == old_search(counts, melds, pairs)


def test_block_table_starts_over_past_its_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rd, "BLOCK_TABLE_MAX", 3)
    saved = [dict(t) for t in rd._BLOCK_READINGS]
    try:
        for t in rd._BLOCK_READINGS:
            t.clear()
        for v in ((3, 0, 0, 0, 0, 0, 0, 0, 0), (1, 1, 1, 0, 0, 0, 0, 0, 0), (2, 0, 0, 0, 0, 0, 0, 0, 0),
                  (0, 3, 0, 0, 0, 0, 0, 0, 0), (0, 0, 2, 0, 0, 0, 0, 0, 0)):
            block_decompositions(0, bytes(v))
            assert len(rd._BLOCK_READINGS[0]) <= 3
        assert block_decompositions(0, bytes((1, 1, 1, 0, 0, 0, 0, 0, 0))) == \
            ((1, 0, (rd.Group("seq", (0, 1, 2), ("n", "n", "n")),)),)
    finally:
        for t, s in zip(rd._BLOCK_READINGS, saved, strict=True):
            t.clear()
            t.update(s)


def test_odd_inputs_fall_back_to_the_search() -> None:
    assert natural_groups([0] * 33, 0, 0) is None
    counts = [0] * 34
    counts[0] = -1
    assert natural_groups(counts, 0, 0) is None
    # the wildcard's own kind held as natural tiles (read as stand-ins): the search, "s" sources
    counts = [0] * 34
    counts[0:3] = [1, 1, 1]
    counts[5] = 2
    t = Tiles(tuple(counts), 0, 0, None, 1)
    (r,) = standard_readings(t, (), Shape("standard", melds=1, pair=1), list(range(34)))
    assert ("n", "s", "n") in [g.sources for g in r.groups]
