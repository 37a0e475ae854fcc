"""The pattern language, evaluated: does a pattern hold for a reading in a context?

A pattern (see ``docs/pattern-language.md``) combines

* ``shape`` — the reading must be of one of these shapes;
* ``wait`` — a property of the 13 tiles held before the win (computed once
  per hand by :mod:`mjframework.waits` and passed in);
* ``require`` — measures of the reading (:class:`Measures`) within bounds,
  and tile filters (every tile / no tile / the pair);
* ``when`` — the win's context.

Nothing here knows any pattern by name.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .hand import WinContext
from .model import Pattern, Shape, TileFilter
from .readings import Reading
from .tiles import HONOR_BASE, NUM_KINDS, Tile, is_honor


@dataclass(frozen=True)
class HandFacts:
    """Facts about the hand that don't depend on the reading."""

    wildcards: int  # wildcard tiles among all tiles
    wildcards_held: int  # among the tiles held before the winning tile
    win_tile_wild: bool
    suits_in_set: int


class Measures:
    """The numbers ``require`` can bound, computed once per reading (lazily)."""

    def __init__(self, tiles: Iterable[Tile], reading: Reading | None, facts: HandFacts,
                 wildcard: Tile | None) -> None:
        self.tiles = list(tiles)
        self.reading = reading
        self.facts = facts
        self.wildcard = wildcard
        self._cache: dict[str, int] = {}
        counts = [0] * NUM_KINDS
        for t in self.tiles:
            counts[t] += 1
        self.counts = counts

    def get(self, name: str) -> int:
        v = self._cache.get(name)
        if v is None:
            v = getattr(self, "_m_" + name)()
            self._cache[name] = v
        return v

    # hand-level
    def _m_wildcards(self) -> int:
        return self.facts.wildcards

    def _m_wildcards_held(self) -> int:
        return self.facts.wildcards_held

    # tiles as read
    def _m_honors(self) -> int:
        return sum(self.counts[HONOR_BASE:])

    def _m_distinct_honors(self) -> int:
        return sum(1 for n in self.counts[HONOR_BASE:] if n)

    def _m_suits(self) -> int:
        return sum(1 for s in range(3) if any(self.counts[s * 9:(s + 1) * 9]))

    def _m_missing_suits(self) -> int:
        return self.facts.suits_in_set - self._m_suits()

    def _m_sets_of_four(self) -> int:
        return sum(1 for n in self.counts if n >= 4)

    def _m_sets_of_three(self) -> int:
        return sum(1 for n in self.counts if n >= 3)

    # groups of the reading
    def _groups(self) -> tuple:
        return self.reading.groups if self.reading else ()

    def _m_sequences(self) -> int:
        return sum(1 for g in self._groups() if g.kind == "seq")

    def _m_triplets(self) -> int:
        return sum(1 for g in self._groups() if g.kind in ("triplet", "kong"))

    def _m_kongs(self) -> int:
        return sum(1 for g in self._groups() if g.kind == "kong")

    def _m_claimed_melds(self) -> int:
        return sum(1 for g in self._groups() if g.meld in ("chow", "pung", "kong", "added-kong"))

    def _m_concealed_kongs(self) -> int:
        return sum(1 for g in self._groups() if g.meld == "concealed-kong")

    def _m_natural_wildcards(self) -> int:
        w = self.wildcard
        return sum(1 for g in self._groups() for t, s in zip(g.tiles, g.sources, strict=True)
                   if s == "w" and t == w)

    def _m_self_wild_sequences(self) -> int:
        """Sequences using a wildcard as its own tile, the other two tiles natural."""
        w = self.wildcard
        n = 0
        for g in self._groups():
            if g.kind != "seq" or w not in g.tiles:
                continue
            i = g.tiles.index(w)
            if g.sources[i] == "w" and all(s == "n" for j, s in enumerate(g.sources) if j != i):
                n += 1
        return n

    def pair_tile(self) -> Tile | None:
        """The tile of the reading's one pair; None when it has none, or several (seven pairs)."""
        pairs = [g for g in self._groups() if g.kind == "pair"]
        return pairs[0].tiles[0] if len(pairs) == 1 else None

    def has_one_pair(self) -> bool:
        return sum(1 for g in self._groups() if g.kind == "pair") == 1


def shape_matches(pattern_shapes: tuple[Shape, ...], shape: Shape) -> bool:
    """Is a reading of ``shape`` one of the pattern's shapes? ``free`` asks for no
    structure, so it is satisfied by a reading of any shape."""
    return any(s.kind == "free" or _same_shape(s, shape) for s in pattern_shapes)


def _same_shape(a: Shape, b: Shape) -> bool:
    return (a.kind, a.melds, a.pair, a.pairs, a.min_gap, a.distinct_honors, a.orphans) == (
        b.kind, b.melds, b.pair, b.pairs, b.min_gap, b.distinct_honors, b.orphans)


def _filter_all(f: TileFilter, tiles: list[Tile]) -> bool:
    return all(f.match(t) for t in tiles)


def requirements_hold(p: Pattern, m: Measures) -> bool:
    for name, count in p.counts:
        if not count.ok(m.get(name)):
            return False
    if p.all_tiles is not None and not _filter_all(p.all_tiles, m.tiles):
        return False
    if p.no_tiles is not None and any(p.no_tiles.match(t) for t in m.tiles):
        return False
    if p.pair is not None and m.has_one_pair():
        # Judged where the shape has a pair; seven pairs has no single pair to judge.
        t = m.pair_tile()
        if t is None or not p.pair.match(t):
            return False
    return True


def context_holds(p: Pattern, ctx: WinContext, facts: HandFacts) -> bool:
    w = p.when
    if w.win_by is not None and ctx.win_by not in w.win_by:
        return False
    if w.win_tile is not None and (w.win_tile == "wildcard") != facts.win_tile_wild:
        return False
    if w.seat is not None and (w.seat == "dealer") != (ctx.seat == ctx.dealer):
        return False
    if w.discarder is not None and (
            ctx.discarder is None or (w.discarder == "dealer") != (ctx.discarder == ctx.dealer)):
        return False
    if not w.flags <= ctx.flags:
        return False
    return not (w.not_flags & ctx.flags)


def times(p: Pattern, m: Measures) -> int:
    if p.times_per is None:
        return 1
    return m.get(p.times_per) // p.times_every


def honors_in(tiles: Iterable[Tile]) -> int:
    return sum(1 for t in tiles if is_honor(t))
