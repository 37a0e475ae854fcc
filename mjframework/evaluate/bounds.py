"""Bounds of measures over every reading of one hand: what the reading search
(:meth:`~.scoring.Evaluator._search`) asks before it reads the hand, to drop patterns no
reading meets and stop at the best result possible."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations_with_replacement

from ..core.hand import Hand
from ..core.tiles import HONOR_BASE, Tile, is_honor
from ..rules.model import Pattern, Shape
from . import wintable
from .compiler import _MEASURE_LEVEL, ShapeKey, _shape_key
from .readings import Tiles, stand_in_splits

# _Bounds.self_wild's answer: how many sequences hold a wildcard read as its own kind, the
# counts left beside them, and each such sequence as (wildcard, natural, natural).
_SelfWild = tuple[int, list[int], tuple[tuple[Tile, Tile, Tile], ...]]


class _Bounds:
    """Lowest and highest value of measures over every reading of one hand (where cheap to
    know): the natural tiles (held and in melds) are in every reading as themselves;
    each wildcard or stand-in adds at most one tile of any kind."""

    def __init__(self, full: Tiles, hand: Hand, wild_kinds: frozenset[Tile], suits_in_set: int,
                 shapes: Sequence[Shape] = ()) -> None:
        self.shapes = shapes  # every shape read (for measures bounded per shape)
        self.exposed = len(hand.melds)
        c = list(full.counts)
        for m in hand.melds:
            for t in m.tiles:
                c[t] += 1
        self.counts = c
        self.full = full
        self.extra = full.wilds + full.stand_ins
        self.wild_kinds = wild_kinds
        self.suits_in_set = suits_in_set
        self._cache: dict[str, tuple[int, int] | None] = {}
        self.naturals: list[Tile] | None = None  # the kinds of natural tiles (made when a filter asks)
        self._decided: dict[object, bool | None] = {}
        self._fours: dict[int, int] = {}  # _pairs_fours, per pairs shape's pair count
        self._self_wild: dict[tuple[ShapeKey, int], _SelfWild | None] = {}

    def get(self, name: str) -> tuple[int, int] | None:
        if name not in self._cache:
            self._cache[name] = self._bounds(name)
        return self._cache[name]

    def _bounds(self, name: str) -> tuple[int, int] | None:
        c, x = self.counts, self.extra
        if name == "honors":
            lo = sum(c[HONOR_BASE:])
            return lo, lo + x
        if name in ("suits", "missing_suits"):
            lo = sum(1 for s in range(3) if any(c[s * 9:(s + 1) * 9]))
            hi = min(3, lo + x)
            return (lo, hi) if name == "suits" else (self.suits_in_set - hi, self.suits_in_set - lo)
        if name == "distinct_honors":
            lo = sum(1 for n in c[HONOR_BASE:] if n)
            return lo, lo + x
        if name == "distinct_kinds":
            lo = sum(1 for n in c if n)
            return lo, lo + x
        if name == "sets_of_four":
            lo = sum(1 for n in c if n >= 4)
            return lo, lo + x
        if name == "sets_of_three":
            lo = sum(1 for n in c if n >= 3)
            return lo, lo + x
        if name == "natural_wildcards":
            return 0, self.full.wilds
        if name == "self_wild_sequences":
            # a wildcard read as its own kind with two natural held tiles of its suit beside it:
            # at most one per wildcard, and per two such tiles
            held = list(self.full.counts)
            if self.full.stand_in_tile is not None:
                held[self.full.stand_in_tile] += self.full.stand_ins
            room = 0
            for k in self.wild_kinds:
                if is_honor(k):
                    continue
                r, base = k % 9, k - k % 9
                if any(0 <= r + a <= 8 and 0 <= r + b <= 8 and held[base + r + a] and held[base + r + b]
                       for a, b in ((-2, -1), (-1, 1), (1, 2))):
                    room += sum(held[base + r + d] for d in (-2, -1, 1, 2) if 0 <= r + d <= 8) // 2
            hi = min(self.full.wilds, room)
            if hi:
                hi = min(hi, self._most_self_wild(hi))
            return 0, hi
        return None

    def _most_self_wild(self, limit: int) -> int:
        """The most sequences holding a wildcard read as its own (wild) kind beside two natural
        tiles that any reading can have, up to ``limit`` (an upper bound known already).
        Only standard shapes have sequences (a knitted straight reads no wildcard)."""
        most = 0
        for shape in self.shapes:
            if shape.kind == "standard":
                got = self.self_wild(shape, limit)
                if got is None:
                    return limit
                most = max(most, got[0])
        return most

    def self_wild(self, shape: Shape, limit: int
                  ) -> _SelfWild | None:
        """For a standard ``shape``: the most such sequences a reading of it can have (up to
        ``limit``), with one way to take them: the natural counts (stand-ins split as read)
        and the sequences as (wild kind, natural tile, natural tile). None where not known
        (a shape without exactly one pair).

        A reading with ``k`` such sequences leaves natural tiles and ``wildcards - k``
        wildcards that make the shape's other melds and its pair, which the win table tells:
        the most is the largest ``k`` for which some choice of ``k`` such sequences leaves a
        win (for some reading of the stand-ins).
        """
        key = (_shape_key(shape), limit)
        if key in self._self_wild:
            return self._self_wild[key]
        found: _SelfWild | None = None
        if shape.pair == 1:
            full = self.full
            wild_kinds = sorted(k for k in self.wild_kinds if not is_honor(k))
            melds = shape.melds - self.exposed
            found = (0, list(full.counts), ())
            for c, _k in stand_in_splits(full):
                if sum(c) + full.wilds != 3 * melds + 2:
                    continue
                # the natural tiles ("n" sources: not the wildcard's kind, where stand-ins read
                # as it sit) each sequence would take beside its wildcard
                options = []
                for w in wild_kinds:
                    r, base = w % 9, w - w % 9
                    for a, b in ((-2, -1), (-1, 1), (1, 2)):
                        if r + a >= 0 and r + b <= 8:
                            x, y = base + r + a, base + r + b
                            if c[x] and c[y] and full.wildcard not in (x, y):
                                options.append((w, x, y))
                for k in range(min(limit, melds), found[0], -1):
                    chosen = _leaves_win(c, options, k, full.wilds - k)
                    if chosen is not None:
                        found = (k, c, chosen)
                        break
                if found[0] >= limit:
                    break
        self._self_wild[key] = found
        return found

    def decide(self, p: Pattern, winds: dict[str, Tile] | None, shape: Shape | None = None) -> bool | None:
        """False: no reading meets ``p``; True: every reading does, alike (same times);
        None: it depends on the reading. With ``shape``: the readings of that shape (a
        pairs shape bounds ``sets_of_four`` closer)."""
        key: object = p if shape is None or shape.kind != "pairs" else (p, shape.pairs)
        if key in self._decided:
            return self._decided[key]
        verdict = self._decide(p, winds, shape)
        self._decided[key] = verdict
        return verdict

    def _pairs_fours(self, shape: Shape) -> int:
        """The most kinds of four (``sets_of_four``) a reading of the pairs ``shape`` can have.

        Every natural tile is in a pair; a kind held an odd number of times takes one
        wildcard (as :func:`~.readings.pairs_readings` reads it), the wildcards left make
        free pairs of any kind: a kind held twice needs one more pair to make four, a kind
        not held two. So the most is the kinds already at four, plus one per free pair on
        kinds at two, plus one per two free pairs left (over the readings of the stand-ins).
        """
        got = self._fours.get(shape.pairs)
        if got is None:
            full = self.full
            got = 0
            if not self.exposed:
                for c, _k in stand_in_splits(full):
                    # (kinds held once or twice make a pair, three or four times two pairs)
                    ones, twos, threes, fours = c.count(1), c.count(2), c.count(3), c.count(4)
                    if ones + twos + threes + fours + c.count(0) != len(c):  # (more than four: odd)
                        odd = sum(n & 1 for n in c)
                        fours = sum(1 for n in c if n + (n & 1) >= 4)
                        twos = sum(1 for n in c if n + (n & 1) == 2)
                    else:
                        odd = ones + threes
                        fours += threes
                        twos += ones
                    if odd > full.wilds or sum(c) + full.wilds != 2 * shape.pairs:
                        continue
                    free = (full.wilds - odd) // 2
                    got = max(got, fours + min(free, twos) + (free - min(free, twos)) // 2)
            self._fours[shape.pairs] = got
        return got

    def _decide(self, p: Pattern, winds: dict[str, Tile] | None, shape: Shape | None = None) -> bool | None:
        settled = True
        for name, count in p.counts:
            if _MEASURE_LEVEL.get(name) == 0:
                continue
            b = self.get(name)
            if b is not None and name == "sets_of_four" and shape is not None and shape.kind == "pairs":
                hi = self._pairs_fours(shape)
                b = (min(b[0], hi), min(b[1], hi))
            if b is None:
                settled = False
                continue
            lo, hi = b
            if (count.min is not None and hi < count.min) or (count.max is not None and lo > count.max):
                return False
            if not ((count.min is None or lo >= count.min) and (count.max is None or hi <= count.max)):
                settled = False
        if p.all_tiles is not None or p.no_tiles is not None:
            naturals = self.naturals
            if naturals is None:
                naturals = self.naturals = [t for t, n in enumerate(self.counts) if n]
            if p.all_tiles is not None and any(not p.all_tiles.match(t, winds) for t in naturals):
                return False
            if p.no_tiles is not None and any(p.no_tiles.match(t, winds) for t in naturals):
                return False
            settled = False
        if settled and any(x is not None for x in (p.pair, p.every_group, p.any_group, p.groups, p.sets,
                                                   p.win_wait, p.condition)):
            settled = False
        if settled and p.times_per is not None and _MEASURE_LEVEL.get(p.times_per) != 0:
            b = None if p.times_per == "groups" else self.get(p.times_per)
            if b is None or b[0] != b[1]:
                settled = False
        return True if settled else None


def _leaves_win(c: Sequence[int], options: list[tuple[Tile, Tile, Tile]], k: int, wilds: int
                ) -> tuple[tuple[Tile, Tile, Tile], ...] | None:
    """``k`` of ``options`` ((wild kind, natural, natural), repeats allowed) whose natural tiles
    can be taken from ``c`` leaving a standard win with ``wilds`` wildcards (None: none can)."""
    for chosen in combinations_with_replacement(options, k):
        rest = list(c)
        for _w, x, y in chosen:
            rest[x] -= 1
            rest[y] -= 1
        if min(rest) >= 0 and wintable.is_standard_win(rest, wilds):
            return chosen
    return None
