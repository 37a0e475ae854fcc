"""Tests for mjframework.evaluate.wintable against a slow, obviously-correct search.

The reference below knows nothing about tables, blocks or pieces: it takes
the first natural tile left, tries every meld that could hold it (each other
slot filled by a natural tile or by a wildcard), and recurses.
"""

from __future__ import annotations

import random
from functools import cache
from itertools import product

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mjframework.evaluate import wintable as W
from mjframework.evaluate.distance import distance
from mjframework.evaluate.wintable import (
    INF,
    MAX_NEED,
    is_standard_win,
    need_melds,
    need_melds_pair,
    need_pairs,
    standard_waits,
)

# ---------------------------------------------------------------------------
# Reference implementation
# ---------------------------------------------------------------------------


def _is_suit(k: int) -> bool:
    return k < 27


def _same_suit_run(s: int) -> bool:
    """Kinds s, s+1, s+2 form a sequence: one suit, no wrap."""
    return s >= 0 and s + 2 < 27 and s // 9 == (s + 2) // 9


@cache
def ref_can_melds(c: tuple[int, ...], w: int) -> bool:
    """Can the naturals c plus exactly w wildcards be split into melds?"""
    if w < 0:
        return False
    i = next((k for k, x in enumerate(c) if x), None)
    if i is None:
        return w % 3 == 0  # leftover wildcards make triplets on their own
    # Triplet of kind i: j natural copies of i, 3 - j wildcards.
    for j in range(1, min(3, c[i]) + 1):
        d = list(c)
        d[i] -= j
        if ref_can_melds(tuple(d), w - (3 - j)):
            return True
    # Sequences holding a natural i; each other slot natural (if any) or wildcard.
    if _is_suit(i):
        for s in (i - 2, i - 1, i):
            if not _same_suit_run(s):
                continue
            others = [k for k in (s, s + 1, s + 2) if k != i]
            for use in product((True, False), repeat=2):
                d = list(c)
                d[i] -= 1
                wild = 0
                ok = True
                for k, natural in zip(others, use, strict=True):
                    if natural:
                        if d[k] == 0:
                            ok = False
                            break
                        d[k] -= 1
                    else:
                        wild += 1
                if ok and ref_can_melds(tuple(d), w - wild):
                    return True
    return False


@cache
def ref_can_pair(c: tuple[int, ...], w: int) -> bool:
    """Can the naturals c plus exactly w wildcards be melds + one pair?"""
    if ref_can_melds(c, w - 2):  # pair of two wildcards
        return True
    for k, x in enumerate(c):
        if x >= 1:
            d = list(c)
            d[k] -= 1
            if ref_can_melds(tuple(d), w - 1):  # natural + wildcard
                return True
            if x >= 2:
                d[k] -= 1
                if ref_can_melds(tuple(d), w):
                    return True
    return False


def ref_need(c: tuple[int, ...], pair: bool) -> int:
    f = ref_can_pair if pair else ref_can_melds
    for w in range(MAX_NEED + 1):
        if f(c, w):
            return w
    return INF


def ref_win(c: tuple[int, ...], w: int) -> bool:
    return ref_can_pair(c, w)


# ---------------------------------------------------------------------------
# Helpers and strategies
# ---------------------------------------------------------------------------

SUITS = "mpsz"


def hand(text: str) -> list[int]:
    """'123m 456p 11z' -> counts (test-local, so this file depends on wintable only)."""
    counts = [0] * 34
    digits: list[int] = []
    for ch in text.replace(" ", ""):
        if ch.isdigit():
            digits.append(int(ch))
        else:
            base = 9 * SUITS.index(ch)
            for d in digits:
                counts[base + d - 1] += 1
            digits = []
    assert not digits
    return counts


def embed(block: list[int], where: int) -> list[int]:
    """Put a 9-rank vector in suit `where` (0-2) or a 7-kind vector in the honors (3)."""
    c = [0] * 34
    c[9 * where : 9 * where + len(block)] = block
    return c


MELDS = [("seq", s) for s in range(27) if _same_suit_run(s)] + [("tri", k) for k in range(34)]


def random_complete(rng: random.Random, n_melds: int = 4) -> list[int]:
    """Melds + a pair, natural counts up to 4 (wildcards may exceed that later)."""
    while True:
        c = [0] * 34
        for _ in range(n_melds):
            kind, s = rng.choice(MELDS)
            for k in (s, s + 1, s + 2) if kind == "seq" else (s, s, s):
                c[k] += 1
        c[rng.randrange(34)] += 2
        if max(c) <= 4:
            return c


def with_wildcards(rng: random.Random, c: list[int], w: int) -> list[int]:
    """Replace w random tiles of c by wildcards (returns the natural counts)."""
    c = c.copy()
    for _ in range(w):
        k = rng.choice([k for k, x in enumerate(c) for _ in range(x)])
        c[k] -= 1
    return c


def random_hand(rng: random.Random, n: int) -> list[int]:
    c = [0] * 34
    for t in rng.sample([k for k in range(34) for _ in range(4)], n):
        c[t] += 1
    return c


suit_vec = st.lists(st.integers(0, 4), min_size=9, max_size=9).filter(lambda v: sum(v) <= 17)
honor_vec = st.lists(st.integers(0, 4), min_size=7, max_size=7).filter(lambda v: sum(v) <= 14)
seeds = st.integers(0, 2**32 - 1)
FAST = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow]
)


# ---------------------------------------------------------------------------
# Against the reference
# ---------------------------------------------------------------------------


@FAST
@given(suit_vec, st.integers(0, 2))
def test_suit_vectors_match_reference(v, where):
    c = embed(v, where)
    assert need_melds(c) == ref_need(tuple(c), pair=False)
    assert need_melds_pair(c) == ref_need(tuple(c), pair=True)


@FAST
@given(honor_vec)
def test_honor_vectors_match_reference(v):
    c = embed(v, 3)
    assert need_melds(c) == ref_need(tuple(c), pair=False)
    assert need_melds_pair(c) == ref_need(tuple(c), pair=True)


@FAST
@given(seeds, st.integers(0, 4))
def test_random_hands_match_reference(seed, w):
    rng = random.Random(seed)
    c = random_hand(rng, 14 - w)
    t = tuple(c)
    assert need_melds_pair(c) == ref_need(t, pair=True)
    assert need_melds(c) == ref_need(t, pair=False)
    assert is_standard_win(c, w) == ref_win(t, w)


@FAST
@given(seeds, st.integers(0, 4))
def test_near_complete_hands_match_reference(seed, w):
    """Random hands are mostly hopeless; these are one or two tiles off a win."""
    rng = random.Random(seed)
    c = with_wildcards(rng, random_complete(rng), w)
    for _ in range(rng.randint(1, 2)):
        k = rng.choice([k for k, x in enumerate(c) for _ in range(x)])
        c[k] -= 1
        c[rng.choice([j for j in range(34) if c[j] < 4])] += 1
    t = tuple(c)
    assert need_melds_pair(c) == ref_need(t, pair=True)
    assert is_standard_win(c, w) == ref_win(t, w)


@FAST
@given(seeds, st.sampled_from([2, 5, 8, 11, 14, 17]))
def test_other_hand_sizes_match_reference(seed, n):
    """Hands with exposed melds hold fewer tiles; 17 covers 16-tile variants."""
    rng = random.Random(seed)
    w = rng.randint(0, min(4, n))
    c = with_wildcards(rng, random_complete(rng, (n - 2) // 3), w)
    if any(c) and rng.random() < 0.5:
        k = rng.choice([k for k, x in enumerate(c) for _ in range(x)])
        c[k] -= 1
        c[rng.choice([j for j in range(34) if c[j] < 4])] += 1
    assert is_standard_win(c, w) == ref_win(tuple(c), w)


# ---------------------------------------------------------------------------
# Complete hands, 13-tile hands, waits
# ---------------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(seeds, st.integers(0, 4))
def test_complete_hands_win_and_minus_one_never(seed, w):
    rng = random.Random(seed)
    c = with_wildcards(rng, random_complete(rng), w)
    assert is_standard_win(c, w)
    assert need_melds_pair(c) <= w
    for k in range(34):
        if c[k]:
            c[k] -= 1
            assert not is_standard_win(c, w)  # 13 tiles: wrong count
            c[k] += 1
    if w:
        assert not is_standard_win(c, w - 1)  # a wildcard removed


@FAST
@given(seeds, st.integers(0, 4), st.booleans())
def test_standard_waits_brute_force(seed, w, near):
    rng = random.Random(seed)
    if near:  # a complete hand minus one tile: always waiting on something
        c = with_wildcards(rng, random_complete(rng), w)
        k = rng.choice([k for k, x in enumerate(c) for _ in range(x)] or [None])
        if k is None:
            return
        c[k] -= 1
    else:
        c = random_hand(rng, 13 - w)
    waits = standard_waits(c, w)
    brute = []
    for t in range(34):
        d = c.copy()
        d[t] += 1
        if is_standard_win(d, w):
            brute.append(t)
            assert ref_win(tuple(d), w)
    assert waits == brute
    if near:
        assert waits


# ---------------------------------------------------------------------------
# Known cases
# ---------------------------------------------------------------------------


def test_known_complete_hand():
    c = hand("123m 456p 789s 111z 22z")
    assert is_standard_win(c, 0)
    assert need_melds_pair(c) == 0
    assert need_melds(c) == 1  # 22z + a wildcard
    assert not is_standard_win(c, 1)  # 15 tiles
    assert not is_standard_win(c, 2)


def test_nine_gates_waits_on_every_rank():
    assert standard_waits(hand("1112345678999m"), 0) == list(range(9))
    assert standard_waits(hand("1112345678999p"), 0) == list(range(9, 18))


def test_simple_waits():
    assert standard_waits(hand("123m 456p 789s 111z 2z"), 0) == [28]  # tanki on 2z
    assert standard_waits(hand("123m 456p 789s 11z 23m"), 0) == [0, 3]
    assert standard_waits(hand("123m 456p 789s 11z 13m"), 0) == [1]
    assert standard_waits(hand("123m 456p 789s 11z 22z"), 0) == [27, 28]
    assert standard_waits(hand("123m 456p 789s 11z 89m"), 0) == [6]  # no wrap to 1m


def test_wildcard_fifth_copy():
    c = hand("5555m 123p 456p 11z")  # 12 naturals
    assert is_standard_win(c, 2)  # 555m 555m with two wildcards
    assert need_melds(hand("5555m")) == 2
    assert need_melds(hand("1111z")) == 2
    assert is_standard_win(hand("1111z 123m 456m 77s"), 2)


def test_five_natural_copies_are_accepted():
    """Counts above 4 can't occur naturally but are computed, not rejected."""
    c = hand("55555m 123p 456p 1z")
    assert is_standard_win(c, 2)  # 555m + 55m pair + 123p 456p + 1z and two wildcards
    assert not is_standard_win(c, 1)
    assert need_melds_pair(c) == ref_need(tuple(c), pair=True)


def test_wildcards_only():
    empty = [0] * 34
    assert is_standard_win(empty, 2)
    assert is_standard_win(empty, 5)
    assert is_standard_win(empty, 8)
    assert not is_standard_win(empty, 3)
    assert need_melds(empty) == 0
    assert need_melds_pair(empty) == 2


def test_shapes_that_are_not_standard():
    assert not is_standard_win(hand("19m 19p 19s 12345677z"), 0)  # thirteen orphans
    seven_pairs = hand("11223344556677z")
    assert not is_standard_win(seven_pairs, 0)
    assert need_pairs(seven_pairs) == 0
    assert not is_standard_win(hand("123z 456z 777z 123m 11p"), 0)  # honors never run
    assert not is_standard_win(hand("891m 234p 567s 111z 22z"), 0)  # no wrap


def test_wildcards_fill_holes():
    assert is_standard_win(hand("13m 456p 789s 111z 22z"), 1)  # kanchan
    assert is_standard_win(hand("1m 456p 789s 111z 22z"), 2)
    assert is_standard_win(hand("123m 456p 789s 111z"), 2)  # wildcard pair
    assert is_standard_win(hand("123m 456p 789s 111z 2z"), 1)  # half-wildcard pair
    c = hand("13m 46p 789s 111z 22z")
    assert need_melds_pair(c) == 2
    assert is_standard_win(c, 2)
    assert is_standard_win(c, 5)  # three spare wildcards make a triplet
    short = hand("13m 46p 79s 111z 22z 5z")
    assert need_melds_pair(short) == 5
    assert not is_standard_win(short, 2)


def test_need_pairs():
    assert need_pairs(hand("1122m 33p 4444s 55z")) == 0
    assert need_pairs(hand("1m 2p 333s 55z")) == 3
    assert need_pairs(hand("1234567z 1234567m")) == INF  # 14 > MAX_NEED


def test_inf_sentinel():
    c = hand("1234567z 1234567z")  # honors 1 each twice -> pairs, fine
    assert need_melds_pair(c) == 6  # one pair; the other 6 pairs take a wildcard each
    far = hand("1357z 1357z 2z")
    assert need_melds_pair(far) == ref_need(tuple(far), pair=True)
    singles = hand("1234567z")
    assert need_melds(singles) == INF  # 14 wildcards
    assert need_melds_pair(singles) == INF
    assert not is_standard_win(singles, MAX_NEED - 1)


def test_input_forms_and_errors():
    c = hand("123m 456p 789s 111z 22z")
    assert is_standard_win(tuple(c), 0)
    assert is_standard_win(bytes(c), 0)
    assert is_standard_win(bytearray(c), 0)
    assert not is_standard_win(c, -3)
    assert is_standard_win(hand("123m 456p 789s 11z"), 3)
    assert not is_standard_win([0] * 34, 100)  # 100 = 1 mod 3
    assert is_standard_win([0] * 34, 101)  # out of the precomputed w range
    with pytest.raises(ValueError):
        is_standard_win(c[:33], 0)
    with pytest.raises(ValueError):
        is_standard_win([*c, 0], 0)
    with pytest.raises(ValueError):
        need_melds([-1] + [0] * 33)
    with pytest.raises(TypeError):
        need_melds([0.5] * 34)


# ---------------------------------------------------------------------------
# Tables, cache, distance
# ---------------------------------------------------------------------------


def test_honor_table_exhaustive():
    """Honors have a closed form; check every one of the 5**7 table entries."""
    W.ensure_tables()
    cost = [0, 2, 1, 0, 2]  # melds only, per kind count
    pair_cost = [2, 1, 0, 2, 1]  # the same kind also holding the pair
    for v in product(range(5), repeat=7):
        m = sum(cost[x] for x in v)
        p = min(m + 2, *(m - cost[x] + pair_cost[x] for x in v))
        entry = W._lookup(bytes(v), False)
        assert entry is not None
        assert entry >> 3 == m
        assert (entry & 1) == (p != m - 1)
        assert p in (m - 1, m + 2)


@settings(max_examples=300, deadline=None)
@given(suit_vec)
def test_suit_table_matches_recurrence(v):
    W.ensure_tables()
    m, p = W._block_mp(tuple(v), True)
    assert p - m in (-1, 2)
    if sum(v) <= W.SUIT_TABLE_MAX_TILES:
        assert W._lookup(bytes(v), True) == 8 * m + (p != m - 1)
    else:
        assert W._lookup(bytes(v), True) is None


def test_cache_roundtrip_and_corruption(tmp_path):
    c = hand("13m 456p 789s 111z 22z")
    try:
        W.reset_tables()
        info = W.ensure_tables(cache_dir=tmp_path)
        assert info.source == "built"
        assert info.cache_path is not None and info.cache_path.exists()
        assert info.suit_entries == 405350 and info.honor_entries == 5**7
        assert not list(tmp_path.glob("*.tmp"))
        assert is_standard_win(c, 1)

        W.reset_tables()
        info = W.ensure_tables(cache_dir=tmp_path)
        assert info.source == "cache"
        assert is_standard_win(c, 1) and not is_standard_win(c, 0)

        data = bytearray(info.cache_path.read_bytes())
        data[len(data) // 2] ^= 0xFF
        info.cache_path.write_bytes(bytes(data))
        W.reset_tables()
        assert W.ensure_tables(cache_dir=tmp_path).source == "built"

        info.cache_path.write_bytes(b"")
        W.reset_tables()
        assert W.ensure_tables(cache_dir=tmp_path).source == "built"
        W.reset_tables()
        assert W.ensure_tables(cache_dir=tmp_path).source == "cache"
    finally:
        W.reset_tables()


def test_lazy_first_call_builds(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    try:
        W.reset_tables()
        assert W.table_info() is None
        assert is_standard_win(hand("123m 456p 789s 111z 22z"), 0)
        info = W.table_info()
        assert info is not None and info.cache_path is not None
        assert info.cache_path.parent == tmp_path / "mjframework"
    finally:
        W.reset_tables()


@settings(max_examples=25, deadline=None)
@given(seeds, st.integers(0, 3))
def test_distance_brute_force(seed, w):
    rng = random.Random(seed)
    c = with_wildcards(rng, random_complete(rng), w)
    swaps = rng.randint(0, 2)
    for _ in range(swaps):
        k = rng.choice([k for k, x in enumerate(c) for _ in range(x)] or [None])
        if k is None:
            break
        c[k] -= 1
        c[rng.choice([j for j in range(34) if c[j] < 4])] += 1
    d = distance(c, w)
    assert d <= swaps
    assert (d == 0) == is_standard_win(c, w)
    if d:
        # One swap never gains more than one step, and some swap gains one.
        gains = []
        for out in range(34):
            if not c[out]:
                continue
            for into in range(34):
                e = c.copy()
                e[out] -= 1
                e[into] += 1
                gains.append(d - distance(e, w))
        assert max(gains) == 1
        assert min(gains) >= -1


def test_distance_matches_mahjong_shanten():
    shanten = pytest.importorskip("mahjong.shanten").Shanten()
    rng = random.Random(7)
    for _ in range(300):
        c = random_hand(rng, 14)
        assert distance(c, 0) == shanten.calculate_shanten_for_regular_hand(c) + 1


def test_distance_errors():
    with pytest.raises(ValueError):
        distance(hand("123m 456p 789s 111z 2z"), 0)  # 13 tiles
