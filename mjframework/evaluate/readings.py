"""Readings: the ways a hand's tiles can be grouped under a shape, wildcards included.

A *reading* assigns every tile to a group (meld, pair or single) and says
what each wildcard stands for. Patterns are judged on one reading at a time.

Tile sources in a group: ``n`` natural, ``w`` a wildcard (standing for the
tile shown), ``s`` a stand-in (e.g. 中) read as the wildcard's natural tile.
A wildcard may stand for any tile, even a fifth copy, including its own
natural tile (recorded as such, for patterns that reward it).

Groups made only of wildcards could be any tile; they are enumerated over the
tile set's kinds so every pattern sees concrete tiles.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..core.hand import Meld
from ..core.tiles import HONOR_BASE, NUM_KINDS, Tile
from ..rules.model import Shape
from .reading_groups import (  # re-exported: the reading's parts (moved there)
    FreeKinds,
    Group,
    Reading,
    Tiles,
    _free_groups,
    _group_key,
    _meld_group,
    _src,
    _Visit,
    _wild_options,
    stand_in_splits,
)
from .shape_readers import (  # re-exported: the other shapes' readers (moved there)
    KNITTED_STRAIGHTS,
    free_readings,
    knitted_readings,
    orphans_readings,
    pairs_readings,
)
from .wild_blocks import BLOCKS, first_wild_groups  # the first reading with wildcards, from tables

# The module's public names, the re-exported parts and readers included (mypy --strict reads
# a name imported here as private unless it is listed).
__all__ = [
    "BLOCK_TABLE_MAX", "KNITTED_STRAIGHTS", "READERS", "FreeKinds", "Group", "Reading", "Tiles",
    "block_decompositions", "first_wild_groups", "free_readings", "knitted_readings",
    "knitted_straight_readings", "natural_groups", "orphans_readings", "pairs_readings", "readings",
    "stand_in_splits", "standard_readings",
]

# --------------------------------------------------------------------------
# standard: melds + pair

# The sequences _standard may make of the lowest tile left ``t`` (suited), in the order it
# tries them: t lowest (t+1, t+2 each natural, then wild), t in the middle (below it wild;
# t+1 natural, then wild), t highest (both below wild). Each as (takes t+1, takes t+2,
# wildcards needed, tiles, sources) with 0/1 for "takes" (subtracted from the counts as
# they are) and the sources per where the wildcard's own kind (a stand-in, ``s``) sits:
# ``sources[0..2]`` at t, t+1, t+2; ``sources[3]`` elsewhere. Made once (_SEQS), so that
# the search loops over the sequences it can make, with no branch per option (the same
# readings, in the same order, as the branches it replaces: the differential tests).
_SeqOption = tuple[int, int, int, tuple[Tile, Tile, Tile], tuple[tuple[str, str, str], ...]]


def _seq_options(t: Tile) -> tuple[_SeqOption, ...]:
    r = t % 9
    # (lowest tile's offset from t, takes t+1, takes t+2)
    shapes: list[tuple[int, int, int]] = []
    if r <= 6:
        shapes += [(0, 1, 1), (0, 1, 0), (0, 0, 1), (0, 0, 0)]
    if 1 <= r <= 7:
        shapes += [(-1, 1, 0), (-1, 0, 0)]
    if r >= 2:
        shapes.append((-2, 0, 0))
    out: list[_SeqOption] = []
    for lo, u1, u2 in shapes:
        tiles = (t + lo, t + lo + 1, t + lo + 2)
        taken = {0: True, 1: bool(u1), 2: bool(u2)}  # offset from t -> a natural tile there

        def source(x: Tile, at: int, taken: dict[int, bool] = taken) -> str:
            return ("s" if x - t == at else "n") if taken.get(x - t, False) else "w"

        need = sum(1 for x in tiles if not taken.get(x - t, False))
        sources = tuple((source(tiles[0], at), source(tiles[1], at), source(tiles[2], at)) for at in range(4))
        out.append((u1, u2, need, tiles, sources))
    return tuple(out)


# Per suited kind t, the options that fit, per (wildcards: 0, 1, 2 or more) × 4 + (t+1 held)
# + 2 × (t+2 held): what _standard reads, so that it tries only sequences it can make.
_SEQS = tuple(tuple(tuple(o for o in _seq_options(t)
                          if o[2] <= w and (held & 1 or not o[0]) and (held & 2 or not o[1]))
                    for w in range(3) for held in range(4))
              for t in range(HONOR_BASE))


def _standard(c: list[int], w: int, melds: int, pairs: int, kinds: Sequence[Tile],
              wildcard: Tile | None, acc: list[Group], out: list[tuple[Group, ...]], i: int = 0,
              free: FreeKinds | None = None, first: bool = False) -> None:
    """Groups for the natural counts ``c`` (lowest tile first) with ``w`` wildcards.

    ``i``: every kind below it is already used up (the recursion only ever
    takes tiles from the lowest kind left, so it never needs to look back).
    ``free``: the kinds groups of wildcards alone are read as (None: every kind);
    ``first``: stop at the first reading ``out`` takes (see :class:`_Visit`).
    """
    while i < NUM_KINDS and c[i] == 0:
        i += 1
    if i == NUM_KINDS:
        if w == 3 * melds + 2 * pairs:
            if free is not None:
                trips, seqs = free.choice(melds, pairs)
                _free_groups(w, melds, pairs, trips, acc, out, seqs, first)
            else:
                _free_groups(w, melds, pairs, kinds, acc, out, None, first)
        return
    t = i
    src = _src(t, wildcard)
    ct = c[t]
    # triplet of t with a naturals (the rest wild)
    if melds:
        for a in range(min(3, ct), 0, -1):
            need = 3 - a
            if need <= w:
                c[t] -= a
                acc.append(Group("triplet", (t, t, t), (src,) * a + ("w",) * need))
                _standard(c, w - need, melds - 1, pairs, kinds, wildcard, acc, out, t, free, first)
                if first and out:
                    return
                acc.pop()
                c[t] += a
    if pairs:
        for a in range(min(2, ct), 0, -1):
            need = 2 - a
            if need <= w:
                c[t] -= a
                acc.append(Group("pair", (t, t), (src,) * a + ("w",) * need))
                _standard(c, w - need, melds, pairs - 1, kinds, wildcard, acc, out, t, free, first)
                if first and out:
                    return
                acc.pop()
                c[t] += a
    if melds and t < HONOR_BASE:
        # sequences holding t (t+1, t+2 natural or wild; below t only wild), in _SEQS' order
        k = wildcard - t if wildcard is not None else -1
        at = k if 0 <= k <= 2 else 3
        fit = _SEQS[t][(w if w < 2 else 2) * 4 + (c[t + 1] > 0) + 2 * (c[t + 2] > 0)]
        for u1, u2, need, tiles, sources in fit:
            c[t] -= 1
            c[t + 1] -= u1
            c[t + 2] -= u2
            acc.append(Group("seq", tiles, sources[at]))
            _standard(c, w - need, melds - 1, pairs, kinds, wildcard, acc, out, t, free, first)
            if first and out:
                return
            acc.pop()
            c[t] += 1
            c[t + 1] += u1
            c[t + 2] += u2


# a state of _first_standard's search: (kind, counts from it on, wildcards, melds, pairs)
_DeadState = tuple[int, tuple[int, ...], int, int, int]


def _first_standard(c: list[int], w: int, melds: int, pairs: int, kinds: Sequence[Tile],
                    wildcard: Tile | None, acc: list[Group], dead: set[_DeadState], i: int = 0
                    ) -> tuple[Group, ...] | None:
    """One reading :func:`_standard` would find (or None), found fast: wholly natural groups
    tried first, and states known to lead nowhere (``dead``) not tried again. (Asking the win
    table first whether a state can be completed was measured: it costs more than it cuts.)"""
    # (``i``: every kind below it is used up, as in _standard)
    while i < NUM_KINDS and c[i] == 0:
        i += 1
    if i == NUM_KINDS:
        if w != 3 * melds + 2 * pairs:
            return None
        out: list[tuple[Group, ...]] = []
        _free_groups(w, melds, pairs, kinds, acc, out, None, True)
        return out[0] if out else None
    t = i
    # Wholly natural groups first, without building the other options.
    ct = c[t]
    src = _src(t, wildcard)
    if melds and ct >= 3:
        c[t] -= 3
        acc.append(Group("triplet", (t, t, t), (src, src, src)))
        found = _first_standard(c, w, melds - 1, pairs, kinds, wildcard, acc, dead, t)
        acc.pop()
        c[t] += 3
        if found is not None:
            return found
    if melds and t < HONOR_BASE and t % 9 <= 6 and c[t + 1] and c[t + 2]:
        c[t] -= 1
        c[t + 1] -= 1
        c[t + 2] -= 1
        acc.append(Group("seq", (t, t + 1, t + 2), (src, _src(t + 1, wildcard), _src(t + 2, wildcard))))
        found = _first_standard(c, w, melds - 1, pairs, kinds, wildcard, acc, dead, t)
        acc.pop()
        c[t] += 1
        c[t + 1] += 1
        c[t + 2] += 1
        if found is not None:
            return found
    if pairs and ct >= 2:
        c[t] -= 2
        acc.append(Group("pair", (t, t), (src, src)))
        found = _first_standard(c, w, melds, pairs - 1, kinds, wildcard, acc, dead, t)
        acc.pop()
        c[t] += 2
        if found is not None:
            return found
    if not w:
        return None
    state = (t, tuple(c[t:]), w, melds, pairs)
    if state in dead:
        return None
    for g, used, need in _wild_options(c, w, melds, pairs, t, wildcard):
        for x in used:
            c[x] -= 1
        acc.append(g)
        found = _first_standard(c, w - need, melds - (g.kind != "pair"), pairs - (g.kind == "pair"),
                                kinds, wildcard, acc, dead, t)
        acc.pop()
        for x in used:
            c[x] += 1
        if found is not None:
            return found
    dead.add(state)
    return None


def _natural(c: list[int], melds: int, pairs: int, src_w: Tile | None, acc: list[Group],
             out: list[tuple[Group, ...]], i: int = 0) -> None:
    """:func:`_standard` without wildcards: the common case, kept lean."""
    while i < NUM_KINDS and c[i] == 0:
        i += 1
    if i == NUM_KINDS:
        if not melds and not pairs:
            out.append(tuple(acc))
        return
    t = i
    ct = c[t]
    src = "s" if t == src_w else "n"
    if melds and ct >= 3:
        c[t] -= 3
        acc.append(Group("triplet", (t, t, t), (src, src, src)))
        _natural(c, melds - 1, pairs, src_w, acc, out, t)
        acc.pop()
        c[t] += 3
    if pairs and ct >= 2:
        c[t] -= 2
        acc.append(Group("pair", (t, t), (src, src)))
        _natural(c, melds, pairs - 1, src_w, acc, out, t)
        acc.pop()
        c[t] += 2
    if melds and t < HONOR_BASE and t % 9 <= 6 and c[t + 1] and c[t + 2]:
        c[t] -= 1
        c[t + 1] -= 1
        c[t + 2] -= 1
        acc.append(Group("seq", (t, t + 1, t + 2),
                         (src, "s" if t + 1 == src_w else "n", "s" if t + 2 == src_w else "n")))
        _natural(c, melds - 1, pairs, src_w, acc, out, t)
        acc.pop()
        c[t] += 1
        c[t + 1] += 1
        c[t + 2] += 1


# --------------------------------------------------------------------------
# natural readings from per-block tables
#
# Without wildcards a standard reading never mixes suits: the lowest kind left is always
# grouped with kinds of its own suit (a sequence stays within a suit, honors make only
# triplets and pairs). So :func:`_natural`'s search over the whole hand is the product of
# the same search on each block of kinds (the three suits, the honors): its readings are
# the combinations of one decomposition per block, in the same order (the first block's
# choices vary slowest), that total the shape's melds and pairs. Each block's
# decompositions depend only on its counts, so they are computed once per count vector
# and shared by every hand and every ruleset (the way the win table keys suits).

_BLOCKS = BLOCKS
# Per block: its counts (bytes) -> its decompositions as (melds, pairs, groups), each
# group multiset once, in :func:`_natural`'s order.
_Decomposition = tuple[int, int, tuple[Group, ...]]
_BLOCK_READINGS: tuple[dict[bytes, tuple[_Decomposition, ...]], ...] = ({}, {}, {}, {})
# A bound on each block's table (most hands meet a few thousand count vectors per block;
# past this the table starts over rather than grow without end).
BLOCK_TABLE_MAX = 50_000


def block_decompositions(block: int, key: bytes) -> tuple[_Decomposition, ...]:
    """Every way the natural tiles ``key`` (the counts of block ``block``: 0–2 a suit,
    3 the honors) split into triplets, pairs and sequences, as :func:`_natural` finds
    them: (melds, pairs, groups), a group multiset once (first found), in search order."""
    table = _BLOCK_READINGS[block]
    got = table.get(key)
    if got is None:
        lo, hi = _BLOCKS[block]
        c = [0] * NUM_KINDS
        c[lo:hi] = key
        found: list[_Decomposition] = []
        _block_search(c, hi, 0, 0, [], found, lo)
        seen: set[tuple[Group, ...]] = set()
        unique = []
        for melds, pairs, groups in found:
            k = tuple(sorted(groups, key=_group_key))
            if k not in seen:
                seen.add(k)
                unique.append((melds, pairs, groups))
        got = tuple(unique)
        if len(table) >= BLOCK_TABLE_MAX:
            table.clear()
        table[key] = got
    return got


def _block_search(c: list[int], hi: int, melds: int, pairs: int, acc: list[Group],
                  out: list[_Decomposition], i: int) -> None:
    """:func:`_natural` on the kinds below ``hi``, counting melds and pairs instead of
    spending a budget (the budget only prunes; the totals are checked when combining)."""
    while i < hi and c[i] == 0:
        i += 1
    if i == hi:
        out.append((melds, pairs, tuple(acc)))
        return
    t = i
    ct = c[t]
    if ct >= 3:
        c[t] -= 3
        acc.append(Group("triplet", (t, t, t), ("n", "n", "n")))
        _block_search(c, hi, melds + 1, pairs, acc, out, t)
        acc.pop()
        c[t] += 3
    if ct >= 2:
        c[t] -= 2
        acc.append(Group("pair", (t, t), ("n", "n")))
        _block_search(c, hi, melds, pairs + 1, acc, out, t)
        acc.pop()
        c[t] += 2
    if t < HONOR_BASE and t % 9 <= 6 and c[t + 1] and c[t + 2]:
        c[t] -= 1
        c[t + 1] -= 1
        c[t + 2] -= 1
        acc.append(Group("seq", (t, t + 1, t + 2), ("n", "n", "n")))
        _block_search(c, hi, melds + 1, pairs, acc, out, t)
        acc.pop()
        c[t] += 1
        c[t + 1] += 1
        c[t + 2] += 1


def natural_groups(counts: Sequence[int], melds: int, pairs: int) -> list[tuple[Group, ...]] | None:
    """The distinct readings (groups) of natural tiles ``counts`` (34 kinds, every tile read as
    itself) as ``melds`` melds + ``pairs`` pairs, in the order and form the whole-hand search
    (:func:`_natural`, duplicates dropped) gives them, from the per-block tables. None where
    the counts aren't a 34-kind vector of small non-negative numbers (the caller searches)."""
    if len(counts) != NUM_KINDS:
        return None
    try:
        b = bytes(counts)
    except (ValueError, TypeError):
        return None
    t0, t1, t2, t3 = _BLOCK_READINGS
    a0 = t0.get(b[:9])
    a1 = t1.get(b[9:18])
    a2 = t2.get(b[18:27])
    a3 = t3.get(b[27:])
    if a0 is None or a1 is None or a2 is None or a3 is None:  # a block met for the first time
        a0, a1, a2, a3 = (block_decompositions(i, b[lo:hi]) for i, (lo, hi) in enumerate(_BLOCKS))
    if len(a0) == 1 and len(a1) == 1 and len(a2) == 1 and len(a3) == 1:  # the common case
        (m0, p0, g0), (m1, p1, g1), (m2, p2, g2), (m3, p3, g3) = a0[0], a1[0], a2[0], a3[0]
        if m0 + m1 + m2 + m3 == melds and p0 + p1 + p2 + p3 == pairs:
            return [g0 + g1 + g2 + g3]
        return []
    out = []
    for m0, p0, g0 in a0:
        for m1, p1, g1 in a1:
            m01, p01 = m0 + m1, p0 + p1
            if m01 > melds or p01 > pairs:
                continue
            for m2, p2, g2 in a2:
                if m01 + m2 > melds or p01 + p2 > pairs:
                    continue
                for m3, p3, g3 in a3:
                    if m01 + m2 + m3 == melds and p01 + p2 + p3 == pairs:
                        out.append(g0 + g1 + g2 + g3)
    return out


def standard_readings(t: Tiles, melds: Sequence[Meld], shape: Shape,
                      kinds: Sequence[Tile], free: FreeKinds | None = None,
                      first: bool = False, visit: Callable[[Reading], bool] | None = None) -> list[Reading]:
    need_melds = shape.melds - len(melds)
    if need_melds < 0:
        return []
    total = sum(t.counts) + t.wilds + t.stand_ins
    if total != 3 * need_melds + 2 * shape.pair:
        return []
    exposed = tuple(_meld_group(m) for m in melds)
    if not t.wilds and not t.stand_ins:
        # No wildcard: each branch takes a different group for the lowest tile left, but a pair
        # and a sequence from the same tile can be taken in either order (44 + 456 and 456 + 44):
        # the same groups, kept once.
        # From the per-block tables (natural_groups) unless a tile is read as a stand-in
        # (the wildcard's kind held as natural tiles: not the case after Evaluator.split).
        table = None if t.wildcard is not None and t.counts[t.wildcard] else \
            natural_groups(t.counts, need_melds, shape.pair)
        if table is not None:
            unique = table
        else:
            out: list[tuple[Group, ...]] = []
            _natural(list(t.counts), need_melds, shape.pair, t.wildcard, [], out)
            seen: set[tuple[Group, ...]] = set()
            unique = []
            for g in out:
                key = tuple(sorted(g, key=_group_key))
                if key not in seen:
                    seen.add(key)
                    unique.append(g)
        found_n = [Reading(shape, exposed + g) for g in unique[:1 if first else None]]
        if visit is not None:
            for r in found_n:
                if visit(r):
                    break
            return []
        return found_n
    found: set[tuple[Group, ...]] = set()
    if visit is not None:
        def each(groups: tuple[Group, ...]) -> bool:
            key = tuple(sorted(groups, key=_group_key))
            if key in found:
                return False
            found.add(key)
            return visit(Reading(shape, exposed + key))
        for c, _k in stand_in_splits(t):
            out = _Visit(each)
            _standard(c, t.wilds, need_melds, shape.pair, kinds, t.wildcard, [], out, 0, free, True)
            if out:
                break
        return []
    if first:
        dead: set[_DeadState] = set()
        for c, _k in stand_in_splits(t):
            # from the per-block tables (first_wild_groups); the search for odd counts
            try:
                one = first_wild_groups(c, t.wilds, need_melds, shape.pair, kinds, t.wildcard, lazy=True)
            except (ValueError, LookupError):
                # groups of wildcards alone read as the kinds held most (as in pairs_readings)
                order = sorted(kinds, key=c.__getitem__, reverse=True) if t.wilds >= 2 else kinds  # (stable)
                one = _first_standard(c, t.wilds, need_melds, shape.pair, order, t.wildcard, [], dead)
                if one is not None:
                    one = tuple(sorted(one, key=_group_key))
            if one is not None:
                return [Reading(shape, exposed + one)]
        return []
    for c, _k in stand_in_splits(t):
        out = []
        _standard(c, t.wilds, need_melds, shape.pair, kinds, t.wildcard, [], out, 0, free, first)
        for groups in out:
            found.add(tuple(sorted(groups, key=_group_key)))
        if first and found:
            break
    return [Reading(shape, exposed + g) for g in found]


def knitted_straight_readings(t: Tiles, melds: Sequence[Meld], shape: Shape,
                              kinds: Sequence[Tile]) -> list[Reading]:
    """A knitted straight (three ``knitted`` groups: 147, 258, 369 of different suits, held)
    plus ``melds`` melds (exposed ones count) and ``pair`` pairs read as in ``standard``.
    Wildcards are not read into this shape."""
    if t.wilds or t.stand_ins:
        return []
    out: list[Reading] = []
    for straight in KNITTED_STRAIGHTS:
        if any(t.counts[x] == 0 for x in straight):
            continue
        rest = list(t.counts)
        for x in straight:
            rest[x] -= 1
        knit = tuple(Group("knitted", straight[i:i + 3], ("n", "n", "n")) for i in (0, 3, 6))
        sub = Tiles(tuple(rest), 0, 0, None, t.wildcard)
        for r in standard_readings(sub, melds, Shape("standard", melds=shape.melds, pair=shape.pair), kinds):
            out.append(Reading(shape, knit + r.groups))
    return out


READERS = {
    "knitted_straight": knitted_straight_readings,
    "standard": standard_readings,
    "pairs": pairs_readings,
    "knitted": knitted_readings,
    "orphans": orphans_readings,
    "free": free_readings,
}


def readings(t: Tiles, melds: Sequence[Meld], shape: Shape, kinds: Sequence[Tile],
             free: FreeKinds | None = None, first: bool = False,
             visit: Callable[[Reading], bool] | None = None) -> list[Reading]:
    """Every reading of the concealed tiles ``t`` plus ``melds`` under ``shape``.

    ``free``: read groups of wildcards alone only as these kinds' representatives (see
    :class:`FreeKinds`); ``first``: one reading (or none) is enough; ``visit``: instead of
    returning them, hand the readings to ``visit`` as they are found, until it returns True
    (the search is over) — the list returned is then empty.
    """
    if shape.kind == "standard":
        if visit is not None and not first:
            return standard_readings(t, melds, shape, kinds, free, visit=visit)
        found = standard_readings(t, melds, shape, kinds, free, first)
    elif shape.kind == "pairs":
        found = pairs_readings(t, melds, shape, kinds, free, first)
    else:
        found = READERS[shape.kind](t, melds, shape, kinds)
        found = found[:1] if first else found
    if visit is None:
        return found
    for r in found:
        if visit(r):
            break
    return []
