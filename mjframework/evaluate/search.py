"""The reading search: which readings of a hand with wildcards can decide its result.

:meth:`~.scoring.Evaluator._score` asks these per shape: patterns no reading meets are dropped
(:func:`possible`, on :class:`~.bounds._Bounds`), a shape no remaining pattern reads is judged
on one reading, the search stops at the best result possible (:func:`best_ceiling`), and
groups of wildcards alone are read per class of kinds (:func:`free_kinds`). The result is
the one every reading gives (``tests/slow_reference.py`` keeps the full search;
``tests/test_scoring_reference.py`` compares them).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.hand import Hand
from ..core.tiles import HONOR_BASE, Tile, is_honor, suit_of
from ..rules.model import Pattern, Shape, TileFilter
from .bounds import _Bounds
from .patterns import HandFacts, Measures, requirements_hold
from .readings import FreeKinds, Group, Reading, Tiles, readings
from .results import Judged, Ranked, ResultKey

# free_kinds' cache key: the kinds that are each a class of their own, the tile filters read
# (by id), and the winds they read (when any).
FreeKey = tuple[tuple[Tile, ...], tuple[int, ...], tuple[tuple[str, Tile], ...] | None]
# What tells readings apart for the patterns judged (Evaluator._score): per group, its kind,
# meld, sources (where they matter) and its tiles' classes.
ReadingSig = tuple[tuple[str, str, tuple[str, ...], tuple[int, ...]], ...]

if TYPE_CHECKING:
    from .scoring import Evaluator


def possible(ev: Evaluator, todo: list[Pattern], bounds: _Bounds, facts: HandFacts, shape: Shape | None = None
             ) -> tuple[list[Pattern], set[Pattern]]:
    """``todo`` without the patterns no reading of the hand can meet, and those of them
    every reading meets alike (they no longer ask for a search).

    Decided on bounds of the measures over all readings (:class:`_Bounds`): the
    natural tiles are read as themselves in every reading; wildcards and stand-ins
    may add to any count.
    """
    settled: set[Pattern] = set()
    out = []
    for p in todo:
        if ev._level[p] == 0:
            out.append(p)
            continue
        verdict = bounds.decide(p, facts.winds, shape)
        if verdict is False:
            continue
        if verdict:
            settled.add(p)
        out.append(p)
    return out, settled


def search(ev: Evaluator, full: Tiles, hand: Hand, shape: Shape, todo: list[Pattern], settled: set[Pattern],
           facts: HandFacts, wildcard: Tile | None, bounds: _Bounds | None = None
           ) -> tuple[list[Reading] | None, dict[Tile, int] | None, ResultKey | None, FreeKinds | None,
                      tuple[Reading, Judged | None] | None]:
    """The readings of ``shape`` worth judging: a subset of every reading on which the
    best result (points, then :meth:`tie_key`) is the same as on all of them.

    * No pattern judged looks at the reading (only at hand-level measures and the
      context): every reading judges alike, one is enough.
    * Otherwise groups made of wildcards alone are read as one kind per class of kinds
      the patterns judged cannot tell apart (:class:`~.readings.FreeKinds`): same suit
      (or honor), same answer from every tile filter, and, where a pattern counts
      copies of kinds (``sets_of_four``, ``distinct_kinds``, …), no tile of the kind or
      next to it in the hand. Wild kinds, the stand-in and the winning tile are each a
      class of their own; patterns reading ranks (``rank_span``, set combinations,
      ``win_wait``) get every kind.

    Returns (the readings, or None: search them with ``visit``; the class of each kind
    for telling readings apart, or None; the ceiling, or None; the free kinds, or None;
    a reading judged here with its result, or None: not to be judged again).
    """
    level = max((ev._level[p] for p in todo if p not in settled), default=0)
    if level == 0:
        return readings(full, hand.melds, shape, ev.kinds, first=True), None, None, None, None
    # The best any reading could judge to; the first reading may already reach it.
    first = readings(full, hand.melds, shape, ev.kinds, first=True)
    if not first:
        return [], None, None, None, None
    ceiling = best_ceiling(ev, todo, settled, first[0], facts, wildcard)
    known = None
    if ceiling is not None:
        result = ev._judge(first[0], todo, facts, wildcard)
        known = (first[0], result)
        if result is not None and (ev.order(result[0]), ev.tie_key(result[1])) == ceiling:
            return first, None, ceiling, None, known
        # A pattern asking for sequences of wildcards read as their own kind: the reading
        # with the most of them (found from the win table) is tried next, before the search.
        directed = None
        if bounds is not None and shape.kind == "standard" and any(
                name == "self_wild_sequences" for p in todo if p not in settled for name, _ in p.counts):
            directed = self_wild_reading(ev, full, hand, shape, bounds)
        if directed is not None:
            result = ev._judge(directed, todo, facts, wildcard)
            if result is not None and (ev.order(result[0]), ev.tie_key(result[1])) == ceiling:
                return [directed], None, ceiling, None, (directed, result)
    free = None
    if level < 3 and full.wilds >= 2 and shape.kind in ("standard", "pairs"):
        # groups of wildcards alone need two wildcards left over (pairs: past the odd tiles)
        odd = sum(n % 2 for n in full.counts) - full.stand_ins
        if shape.kind == "standard" or full.wilds - odd >= 2:
            free = free_kinds(ev, full, hand, todo, level, facts, wildcard)
    # With only suits and tile filters read (level 1), readings are told apart by their
    # tiles' classes alone (copies of a kind don't matter): judged once per class pattern.
    return None, free.key if free is not None and level == 1 else None, ceiling, free, known


def self_wild_reading(ev: Evaluator, full: Tiles, hand: Hand, shape: Shape, bounds: _Bounds
                      ) -> Reading | None:
    """A reading of ``shape`` with the most sequences holding a wildcard read as its own kind
    beside two natural tiles (:meth:`_Bounds.self_wild`), the rest read as
    :func:`~.readings.readings` would first (None: no such sequence fits)."""
    limit = bounds.get("self_wild_sequences")
    got = bounds.self_wild(shape, limit[1]) if limit is not None and limit[1] else None
    if got is None or not got[0]:
        return None
    k, c, chosen = got
    rest = list(c)
    seqs = []
    for w, x, y in chosen:
        rest[x] -= 1
        rest[y] -= 1
        tiles = tuple(sorted((w, x, y)))
        seqs.append(Group("seq", tiles, tuple("w" if t == w else "n" for t in tiles)))
    sub = Tiles(tuple(rest), full.wilds - k, 0, None, full.wildcard)
    first = readings(sub, hand.melds, Shape("standard", melds=shape.melds - k, pair=1), ev.kinds,
                     first=True)
    if not first:
        return None
    exposed = len(hand.melds)
    groups = sorted([*first[0].groups[exposed:], *seqs], key=_group_order)
    return Reading(shape, first[0].groups[:exposed] + tuple(groups))


def best_ceiling(ev: Evaluator, todo: list[Pattern], settled: set[Pattern], reading: Reading,
                 facts: HandFacts, wildcard: Tile | None) -> ResultKey | None:
    """The best key (points, then :meth:`tie_key`) any reading of the shape could judge to,
    or None where not cheaply known.

    The patterns that don't depend on the reading hold alike on every reading (judged on
    ``reading``); each of the others may or may not hold: the best over every such subset.
    A reading that reaches it has the best result, so the search can stop there. Known only
    when the patterns that depend on the reading count once and combine no sets.
    """
    maybe = [p for p in todo if ev._level[p] and p not in settled]
    if len(maybe) > 6 or any(p.times_per is not None or p.sets is not None or p.partial_excludes
                             for p in maybe):
        return None
    m = Measures(reading.tiles, reading, facts, wildcard)
    fixed = [p for p in todo if (not ev._level[p] or p in settled) and requirements_hold(p, m)]
    # Without counted times or sets, the best over the subsets depends on the patterns only
    # (exclusions, tiers and combining are the ruleset's): kept per (fixed, maybe) patterns,
    # which many hands share.
    memo = None
    if not any(p.times_per is not None or p.sets is not None or p.partial_excludes for p in fixed):
        memo = (tuple(fixed), tuple(maybe))
        if memo in ev._ceilings:
            return ev._ceilings[memo]
    best: ResultKey | None = None
    for mask in range(1 << len(maybe)):
        matched = sorted(fixed + [p for i, p in enumerate(maybe) if mask >> i & 1], key=lambda p: p.index)
        if not any(p.makes_win for p in matched):
            continue
        result = ev._combine(matched, m)
        if result is None:
            continue
        key = (ev.order(result[0]), ev.tie_key(result[1]))
        if best is None or key < best:
            best = key
    if memo is not None:
        if len(ev._ceilings) > 4096:
            ev._ceilings.clear()
        ev._ceilings[memo] = best
    return best


def free_kinds(ev: Evaluator, full: Tiles, hand: Hand, todo: list[Pattern], level: int, facts: HandFacts,
               wildcard: Tile | None) -> FreeKinds:
    filters: list[TileFilter] = []
    for p in todo:
        filters.extend(f for f in ev._tile_filters[p] if f not in filters)
    special = set(ev.wild_kinds(wildcard))
    for t in (wildcard, full.stand_in_tile, hand.win_tile):
        if t is not None:
            special.add(t)
    if level >= 2:  # kinds whose copies the reading may hold besides wildcard-alone groups
        held = [k for k, n in enumerate(full.counts) if n]
        for t in [*held, *(x for m in hand.melds for x in m.tiles)]:
            special.add(t)
            if t < HONOR_BASE:
                special.update(x for x in range(t - 2, t + 3) if x // 9 == t // 9)
    winds = facts.winds
    cache_key: FreeKey = (tuple(sorted(special)), tuple(id(f) for f in filters),
                 tuple(sorted(winds.items())) if winds and filters else None)
    free = ev._free_cache.get(cache_key)
    if free is None:
        def key(t: Tile) -> object:
            if t in special:
                return t
            return (-1 if is_honor(t) else suit_of(t), tuple(f.match(t, winds) for f in filters))
        free = FreeKinds(ev.kinds, key)
        if len(ev._free_cache) > 4096:
            ev._free_cache.clear()
        ev._free_cache[cache_key] = free
    return free


def _group_order(g: Group) -> tuple[tuple[Tile, ...], str, tuple[str, ...], str]:
    """The order of a reading's groups (as :mod:`.readings` sorts them)."""
    return (g.tiles, g.kind, g.sources, g.meld or "")


class Consider:
    """Judges one reading of a shape of a hand with wildcards, keeping the best result in
    ``best`` (a list of at most one); called, it answers True when no other reading of the
    shape can do better (the search's ceiling is reached)."""

    def __init__(self, ev: Evaluator, best: list[Ranked], every: list[Ranked] | None, alive: int,
                 facts: HandFacts, wildcard: Tile | None, keys: dict[Tile, int] | None,
                 ceiling: ResultKey | None, known: tuple[Reading, Judged | None] | None) -> None:
        self.ev, self.best, self.every, self.alive = ev, best, every, alive
        self.facts, self.wildcard, self.keys, self.ceiling, self.known = facts, wildcard, keys, ceiling, known
        self.judged: set[ReadingSig] = set()
        self.wild = ev.wild_kinds(wildcard)
        self.judge = ev._keyed_judge()

    def __call__(self, reading: Reading) -> bool:
        keys = self.keys
        if keys is not None:
            # Readings alike for every pattern judged (the same groups, each tile's class in
            # place of the tile; where each tile comes from only in groups holding a wild kind,
            # the only ones where a measure of this level reads it) judge alike: judge one.
            wild = self.wild
            sig = tuple(sorted((g.kind, g.meld or "", g.sources if wild.intersection(g.tiles) else (),
                                tuple([keys[t] for t in g.tiles])) for g in reading.groups))
            if sig in self.judged:
                return False
            self.judged.add(sig)
        known = self.known
        if known is not None and (reading is known[0] or reading.groups == known[0].groups):
            result = known[1]  # (the same groups of the same shape: judged alike)
            if result is None:
                return False
            points, picked = result
            key = (self.ev.order(points), self.ev.tie_key(picked))
        else:
            keyed = self.judge(reading, self.alive, self.facts, self.wildcard)
            if keyed is None:
                return False
            key, points, picked = keyed
        if self.every is not None:
            self.every.append((key, reading, picked, points))
        best = self.best
        if not best:
            best.append((key, reading, picked, points))
        elif key < best[0][0]:
            best[0] = (key, reading, picked, points)
        return key == self.ceiling
