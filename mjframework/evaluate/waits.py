"""Free-wildcard waits and quick shape checks, on count vectors.

A *free-wildcard wait* is a property of the 13 tiles held before the win:
with ``k`` wildcard tiles set aside, the rest is exactly a given shape
(4 melds; 3 melds + a pair; 6 pairs). Then any tile completes the hand.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..rules.model import Shape, Wait
from . import wintable
from .readings import KNITTED_STRAIGHTS, Tiles, knitted_readings, orphans_readings, stand_in_splits


def rest_holds(t: Tiles, exposed_melds: int, shape: Shape, wilds: int) -> bool:
    """Are the natural tiles of ``t`` (+ ``wilds`` wildcards) exactly ``shape``?"""
    if not t.stand_ins and shape.kind == "standard" and shape.pair == 1:
        # The common case: one table lookup (the tile count is checked with it).
        n = sum(t.counts) + wilds
        return n == 3 * (shape.melds - exposed_melds) + 2 and wintable.is_standard_win(t.counts, wilds)
    if not t.stand_ins and shape.kind == "pairs":  # the loop below, for its one split
        return not exposed_melds and sum(t.counts) + wilds == 2 * shape.pairs and \
            wintable.need_pairs(t.counts) <= wilds
    for c, _k in stand_in_splits(t):
        n = sum(c) + wilds
        if shape.kind == "standard":
            melds = shape.melds - exposed_melds
            if melds < 0 or n != 3 * melds + 2 * shape.pair:
                continue
            need = wintable.need_melds_pair(c) if shape.pair else wintable.need_melds(c)
            if need <= wilds:
                return True
        elif shape.kind == "pairs":
            if exposed_melds or n != 2 * shape.pairs:
                continue
            if wintable.need_pairs(c) <= wilds:
                return True
    return False


def wait_holds(t13: Tiles, exposed_melds: int, wait: Wait) -> bool:
    """Is the 13-tile hand ``t13`` ready with ``wait.free_wildcards`` wildcards set aside?"""
    if t13.wilds < wait.free_wildcards:
        return False
    return rest_holds(t13, exposed_melds, wait.rest, t13.wilds - wait.free_wildcards)


def completed_shape(wait: Wait) -> Shape:
    """The shape of the whole hand once a wait is filled (for attaching a reading).

    A 13-tile hand whose rest is ``melds`` (+ ``pair``) with ``k`` wildcards set
    aside becomes, with the winning tile, melds + one pair; a pairs rest gains
    one pair.
    """
    r = wait.rest
    if r.kind == "pairs":
        return Shape("pairs", pairs=r.pairs + 1)
    tiles = 3 * r.melds + 2 * r.pair + wait.free_wildcards + 1
    return Shape("standard", melds=(tiles - 2) // 3, pair=1)


# The kinds outside an orphans shape's kinds, per shape kinds (a tile of one rules the shape out).
_OTHERS: dict[tuple[int, ...], tuple[int, ...]] = {}


def shape_possible(t: Tiles, exposed: int, shape: Shape, kinds: Sequence[int]) -> bool:
    """A fast necessary check that ``t`` (14 concealed-side tiles) can be read as ``shape``."""
    if shape.kind in ("standard", "pairs"):
        return rest_holds(t, exposed, shape, t.wilds)
    if shape.kind == "knitted_straight":
        if t.wilds or t.stand_ins:
            return False
        rest_shape = Shape("standard", melds=shape.melds, pair=shape.pair)
        for straight in KNITTED_STRAIGHTS:
            if all(t.counts[x] for x in straight):
                rest = list(t.counts)
                for x in straight:
                    rest[x] -= 1
                if rest_holds(Tiles(tuple(rest), 0, 0, None, t.wildcard), exposed, rest_shape, 0):
                    return True
        return False
    if exposed:
        return shape.kind == "free"  # knitted and orphans are all-concealed shapes
    if shape.kind == "knitted":
        if max(t.counts) > 1:  # all singles; a quick no for most hands
            return False
        return bool(knitted_readings(t, (), shape, kinds))
    if shape.kind == "orphans":
        others = _OTHERS.get(shape.orphans)
        if others is None:
            others = _OTHERS[shape.orphans] = tuple(k for k in range(len(t.counts)) if k not in shape.orphans)
        if any(t.counts[k] for k in others):
            return False
        return bool(orphans_readings(t, (), shape, kinds))
    return True  # free


# Per knitted straight, a mask with one bit at the lowest bit of each of its kinds' bytes;
# and a translation of counts to 0/1 (held or not).
_STRAIGHT_MASKS = tuple(sum(1 << (8 * x) for x in ks) for ks in KNITTED_STRAIGHTS)
_HELD = bytes(min(x, 1) for x in range(256))


def straight_kinds_held(counts: bytes) -> int:
    """The most kinds of one knitted straight held in ``counts`` (bytes of counts per kind):
    one translation and one integer per hand, then a masked bit count per straight, instead
    of nine index reads per straight (the wait screen asks it of every hand of a ruleset
    with a knitted-straight shape)."""
    held = int.from_bytes(counts.translate(_HELD), "little")
    m0, m1, m2, m3, m4, m5 = _STRAIGHT_MASKS  # (the six straights, unrolled: no generator)
    return max((held & m0).bit_count(), (held & m1).bit_count(), (held & m2).bit_count(),
               (held & m3).bit_count(), (held & m4).bit_count(), (held & m5).bit_count())
