"""The `waiting_tiles` measure's per-block waits (readiness.natural_standard_waits) against
the win table's (wintable.standard_waits with no wildcard), its reference."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from mjframework.evaluate import wintable
from mjframework.evaluate.readiness import natural_standard_waits

_POOLS = (
    [k for k in range(34) for _ in range(4)],  # any tiles
    [k for k in range(9) for _ in range(4)],  # one suit: many waits, nine-gates shapes
    [k for k in (*range(9), *range(27, 34)) for _ in range(4)],  # one suit and the honors
    [k for k in (*range(9, 18), *range(18, 27)) for _ in range(4)],  # two suits
)


def _counts(tiles: list[int]) -> list[int]:
    c = [0] * 34
    for t in tiles:
        c[t] += 1
    return c


def test_natural_waits_match_the_win_table_on_seeded_hands() -> None:
    rng = random.Random(22)
    for n in range(6000):
        pool = _POOLS[n % len(_POOLS)]
        size = rng.choice((1, 2, 4, 5, 7, 8, 10, 11, 13, 13, 13, 14))
        c = _counts(rng.sample(pool, size))
        assert natural_standard_waits(c) == wintable.standard_waits(c, 0), c


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 33), max_size=14))
def test_natural_waits_match_the_win_table(tiles: list[int]) -> None:
    c = [min(n, 4) for n in _counts(tiles)]
    assert natural_standard_waits(c) == wintable.standard_waits(c, 0)


def test_a_kind_held_four_times_is_listed_as_the_table_lists_it() -> None:
    # 1111m 234m 567m 789m: a fifth 1m would make 111m + 11m… the rule alone decides (as the table)
    c = _counts([0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 6, 7, 8])
    assert natural_standard_waits(c) == wintable.standard_waits(c, 0)
    assert natural_standard_waits(c)  # a waiting hand: the comparison is not of two empty lists
