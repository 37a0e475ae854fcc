"""The pattern language, evaluated: does a pattern hold for a reading in a context?

A pattern (see ``docs/pattern-language.md``) combines

* ``shape`` — the reading must be of one of these shapes;
* ``wait`` — a property of the 13 tiles held before the win (computed once
  per hand by :mod:`mjframework.evaluate.waits` and passed in);
* ``require`` — measures of the reading (:class:`Measures`) within bounds,
  and tile filters (every tile / no tile / the pair);
* ``when`` — the win's context.

Two judges of ``require`` give the same answers: :func:`requirements_hold` judges one
pattern (its checks compiled once into a closure, :func:`compiled`): the opening
declarations and the reading search's bounds use it; :class:`~.bulkjudge.BulkJudge` judges all the
patterns a reading is scored with at once: each kind of requirement (a measure within
bounds, a tile filter, a group filter counted, a set combination, where the winning tile
sits, …) is evaluated once per reading for every pattern as bit masks, from tables built
at load time or filled per group / per multiset of sets, and the patterns are bits of
an int (``Evaluator._judge``; exclusions as masks too). ``tests/test_bulk_judge.py``
checks the two agree on every reading of many hands of every shipped ruleset.

Nothing here knows any pattern by name.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from ..core.hand import WinContext
from ..core.tiles import FLOWER_BASE, HONOR_BASE, NUM_KINDS, Tile, is_honor
from ..rules import measures
from ..rules.model import (
    CLAIMED_MELDS,
    Condition,
    GroupFilter,
    Pattern,
    SetCombo,
    Shape,
    TileFilter,
)
from .readings import Group, Reading
from .when import context_holds as context_holds  # (re-exported: where they lived)
from .when import when_holds as when_holds

# Tile filters compiled to the set of tile kinds they accept: a filter is judged
# on 34 kinds once (per seat/prevalent wind pair when it names a wind), and a
# hand's tiles are then looked up, not re-matched criterion by criterion.
_ALLOWED: dict[int, dict[tuple[Tile | None, Tile | None], frozenset[Tile]]] = {}


def _remember(cache: dict[int, Any], obj: object, value: Any) -> Any:
    """``cache[id(obj)] = value`` until ``obj`` is collected (then the entry goes, before
    the id can be reused): compiled forms live as long as the ruleset they come from."""
    key = id(obj)
    cache[key] = value
    weakref.finalize(obj, cache.pop, key, None)
    return value


def wind_key(winds: dict[str, Tile] | None) -> tuple[Tile | None, Tile | None]:
    """The (seat, prevalent) wind pair that tile filters' ``wind`` reads."""
    return (winds.get("seat"), winds.get("prevalent")) if winds else (None, None)


def allowed_kinds(f: TileFilter, winds: dict[str, Tile] | None,
                  key: tuple[Tile | None, Tile | None] | None = None) -> frozenset[Tile]:
    """The tile kinds ``f`` matches under ``winds`` (cached per filter and wind pair;
    ``key``: ``wind_key(winds)`` when the caller has it)."""
    per_wind = _ALLOWED.get(id(f))
    if per_wind is None:
        per_wind = _remember(_ALLOWED, f, {})
    if key is None:
        key = wind_key(winds)
    kinds = per_wind.get(key)
    if kinds is None:
        kinds = per_wind[key] = frozenset(t for t in range(NUM_KINDS) if f.match(t, winds))
    return kinds


@dataclass(slots=True)
class HandFacts:
    """Facts about the hand that don't depend on the reading. Read-only by convention: made
    once per scored win (not frozen: a frozen dataclass's ``__init__`` sets each field through
    ``object.__setattr__``, 8x the cost of this one, on every hand scored)."""

    wildcards: int  # wildcard tiles among all tiles
    wildcards_held: int  # among the tiles held before the winning tile
    win_tile_wild: bool
    suits_in_set: int
    win_tile: Tile | None = None  # for `win_wait`
    winds: dict[str, Tile] | None = None  # the win's seat and prevalent wind (tile filters' `wind`)
    flowers: int = 0
    flower_tiles: tuple[Tile, ...] = ()  # which flowers, where known (`seat_flowers`, `flower_sets`)
    held: tuple[Tile, ...] = ()  # the tiles held before the winning tile
    melds: int = 0  # declared melds (concealed kongs included)
    won_on_discard: bool = False  # the winning tile was another player's (discard or robbed kong)
    won_triplet_exposed: bool = False  # scoring.won_triplet: exposed
    waiting: Callable[[], int] | None = field(default=None, compare=False)  # `waiting_tiles`, lazily
    wild_kinds: frozenset[Tile] | None = None  # with fixed wildcards: every wild kind (else just `wildcard`)
    ctx: WinContext | None = field(default=None, compare=False)  # the win's context (`win.require`'s `when`)
    refused: list[str] | None = field(default=None, compare=False)  # the `win.require` a reading failed


_BLOCKS: dict[tuple[int, ...], tuple[int, int, int, int, int, int]] = {}


def _block_facts(block: tuple[int, ...]) -> tuple[int, int, int, int, int, int]:
    """Of one suit's (or the honors') counts: tiles, kinds present, kinds held 3+ times, 4+
    times, lowest and highest position present (a table filled as blocks are met; a few
    thousand blocks at most in practice, bounded)."""
    f = _BLOCKS.get(block)
    if f is None:
        present = [i for i, n in enumerate(block) if n]
        f = (sum(block), len(present), sum(1 for n in block if n >= 3), sum(1 for n in block if n >= 4),
             present[0] if present else 9, present[-1] if present else -1)
        if len(_BLOCKS) > 1 << 16:
            _BLOCKS.clear()
        _BLOCKS[block] = f
    return f


# Measures Measures computes together, in one pass (see Measures._tile_measures / _group_measures),
# as the registry says (mjframework.rules.measures: `computed`).
TILE_MEASURES = measures.computed("tiles")
GROUP_MEASURES = measures.computed("groups")
# The group measures in the order the bulk judge packs them, one byte each in an int (a
# reading has far fewer than 256 groups; the layout is _packed_group_measures').
_PACKED = ("sequences", "triplets", "kongs", "claimed_melds", "concealed_kongs", "exposed_kongs")


class Measures:
    """The numbers ``require`` can bound, computed once per reading (lazily)."""

    def __init__(self, tiles: Iterable[Tile] | None, reading: Reading | None, facts: HandFacts,
                 wildcard: Tile | None, counts: list[int] | None = None,
                 winds: tuple[Tile | None, Tile | None] | None = None) -> None:
        """``counts`` and ``winds`` (``tiles`` None): the reading's tiles counted per kind (read
        only) and ``wind_key(facts.winds)``, made once a hand by the generated search of a hand
        with no wildcard (:mod:`.codegen`: its readings all read the same tiles)."""
        self._tiles: list[Tile] | None = None
        self.reading = reading
        self.facts = facts
        self.wildcard = wildcard
        self._cache: dict[str, int] = {}
        self._group_cache: dict[int, int] = {}
        self._sets_cache: dict[str, list[tuple[int, int, int]]] = {}
        self._summary_cache: dict[str, tuple[frozenset[int], int, int]] = {}
        self._set_keys: dict[str, tuple[int, ...]] = {}
        self._won: int | bool | None = False  # index of the won triplet (False: not yet computed)
        if counts is None:
            self._tiles = held = list(tiles or ())
            counts = [0] * NUM_KINDS
            for t in held:
                counts[t] += 1
        self.counts = counts
        self._kinds: frozenset[Tile] | None = None
        self.wind_key = wind_key(facts.winds) if winds is None else winds

    @property
    def tiles(self) -> list[Tile]:
        """The tiles as read (listed from the reading's groups where only counts were given)."""
        t = self._tiles
        if t is None:
            t = self._tiles = self.reading.tiles if self.reading is not None else []
        return t

    def kinds(self) -> frozenset[Tile]:
        """The tile kinds among the tiles as read."""
        k = self._kinds
        if k is None:
            k = self._kinds = frozenset(self.tiles)
        return k

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

    # tiles as read: every such measure at once, from per-block facts (see _block_facts)
    def _tile_measures(self) -> None:
        c = self.counts
        cache = self._cache
        distinct = threes = fours = suits = 0
        lo = 9
        hi = -1
        for b in (0, 9, 18):
            f = _block_facts(tuple(c[b:b + 9]))
            if f[0]:
                distinct += f[1]
                threes += f[2]
                fours += f[3]
                suits += 1
                lo = min(lo, f[4])
                hi = max(hi, f[5])
        h = _block_facts(tuple(c[HONOR_BASE:]))
        cache["honors"] = h[0]
        cache["distinct_honors"] = h[1]
        cache["distinct_kinds"] = distinct + h[1]
        cache["sets_of_three"] = threes + h[2]
        cache["sets_of_four"] = fours + h[3]
        cache["suits"] = suits
        cache["missing_suits"] = self.facts.suits_in_set - suits
        cache["rank_span"] = hi - lo + 1 if suits else 0

    def _tile_measure(self, name: str) -> int:
        self._tile_measures()
        return self._cache[name]

    def _m_honors(self) -> int:
        return self._tile_measure("honors")

    def _m_distinct_honors(self) -> int:
        return self._tile_measure("distinct_honors")

    def _m_suits(self) -> int:
        return self._tile_measure("suits")

    def _m_missing_suits(self) -> int:
        return self._tile_measure("missing_suits")

    def _m_sets_of_four(self) -> int:
        return self._tile_measure("sets_of_four")

    def _m_sets_of_three(self) -> int:
        return self._tile_measure("sets_of_three")

    def _m_fours_not_kong(self) -> int:
        """Tile kinds with all four tiles in the hand, not declared as a kong."""
        return self.get("sets_of_four") - self.get("kongs")

    def _m_distinct_kinds(self) -> int:
        return self._tile_measure("distinct_kinds")

    def _m_rank_span(self) -> int:
        """Highest minus lowest rank of the suited tiles, plus one (0 without suited tiles)."""
        return self._tile_measure("rank_span")

    def _m_knitted_straights(self) -> int:
        """1 if the tiles hold a knitted straight: 147, 258 and 369, each in a different suit."""
        for order in ((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)):
            if all(self.counts[suit * 9 + track + 3 * k]
                   for track, suit in enumerate(order) for k in range(3)):
                return 1
        return 0

    def _m_flowers(self) -> int:
        return self.facts.flowers

    def _m_seat_flowers(self) -> int:
        """Flowers of the winner's own seat: 1f–4f and 5f–8f each count for the seat winds
        东 南 西 北 in that order."""
        winds = self.facts.winds
        seat = (winds["seat"] - HONOR_BASE) if winds else 0
        return sum((t - FLOWER_BASE) % 4 == seat for t in self.facts.flower_tiles)

    def _m_flower_sets(self) -> int:
        """Whole sets of four flowers: 1f–4f, 5f–8f."""
        held = set(self.facts.flower_tiles)
        return sum(all(FLOWER_BASE + 4 * g + i in held for i in range(4)) for g in (0, 1))

    def _m_waiting_tiles(self) -> int:
        """Tile kinds that would complete the 13 held tiles (see ``Evaluator.waiting_tiles``)."""
        return self.facts.waiting() if self.facts.waiting is not None else 0

    def held_ranks_are(self, ranks: tuple[int, ...]) -> bool:
        """The 13 tiles held before the win (no declared meld): one suit, ``ranks[r-1]`` of each rank."""
        held = self.facts.held
        if self.facts.melds or not held:
            return False
        suit = held[0] // 9
        if suit > 2:
            return False
        base = suit * 9
        per = [0] * 9
        for t in held:
            r = t - base
            if not 0 <= r < 9:  # another suit, an honor
                return False
            per[r] += 1
        return tuple(per) == ranks

    # groups of the reading
    def _groups(self) -> tuple[Group, ...]:
        return self.reading.groups if self.reading else ()

    def _group_measures(self) -> None:
        """Every count of the reading's groups by kind and meld, in one pass."""
        seqs = triplets = kongs = claimed = concealed_kongs = exposed_kongs = 0
        for g in self._groups():
            kind = g.kind
            if kind == "seq":
                seqs += 1
            elif kind == "triplet":
                triplets += 1
            elif kind == "kong":
                triplets += 1
                kongs += 1
            meld = g.meld
            if meld is not None:
                if meld in ("chow", "pung", "kong", "added-kong"):
                    claimed += 1
                    if meld != "chow" and meld != "pung":
                        exposed_kongs += 1
                elif meld == "concealed-kong":
                    concealed_kongs += 1
        cache = self._cache
        cache["sequences"] = seqs
        cache["triplets"] = triplets
        cache["kongs"] = kongs
        cache["claimed_melds"] = claimed
        cache["concealed_kongs"] = concealed_kongs
        cache["exposed_kongs"] = exposed_kongs

    def _group_measure(self, name: str) -> int:
        self._group_measures()
        return self._cache[name]

    def _m_sequences(self) -> int:
        return self._group_measure("sequences")

    def _m_triplets(self) -> int:
        return self._group_measure("triplets")

    def _m_kongs(self) -> int:
        return self._group_measure("kongs")

    def _m_claimed_melds(self) -> int:
        return self._group_measure("claimed_melds")

    def _m_concealed_kongs(self) -> int:
        return self._group_measure("concealed_kongs")

    def _m_exposed_kongs(self) -> int:
        return self._group_measure("exposed_kongs")

    def _m_concealed_triplets(self) -> int:
        """Triplets and kongs not made with a claimed tile (formed in hand, or concealed kongs);
        with ``scoring.won_triplet: exposed`` not the one the discarded winning tile completed."""
        won = self.won_triplet()
        return sum(1 for i, g in enumerate(self._groups())
                   if g.kind in ("triplet", "kong") and g.meld not in CLAIMED_MELDS and i != won)

    def won_triplet(self) -> int | None:
        """Index of the triplet a discarded winning tile completes, counted as exposed
        (``scoring.won_triplet: exposed``): only when the tile can't be read as part of a
        sequence formed in hand. None otherwise."""
        if self._won is not False:
            return self._won
        won = None
        w = self.facts.win_tile
        if self.facts.won_triplet_exposed and self.facts.won_on_discard and w is not None:
            groups = self._groups()
            if not any(g.kind == "seq" and g.meld is None and w in g.tiles for g in groups):
                for i, g in enumerate(groups):
                    if g.kind == "triplet" and g.meld is None and g.tiles[0] == w:
                        won = i
                        break
        self._won = won
        return won

    def group_indices(self, f: GroupFilter) -> frozenset[int]:
        """Indices of the groups ``f`` matches."""
        won = self.won_triplet()
        if f.holding is None:
            return frozenset(i for i, g in enumerate(self._groups())
                             if f.match(g.kind, g.tiles, g.meld, None, i == won))
        # The holding filter as a kind set; the rest of the filter without it.
        allowed = allowed_kinds(f.holding, self.facts.winds, self.wind_key)
        bare = _bare(f)
        return frozenset(i for i, g in enumerate(self._groups()) if not allowed.isdisjoint(g.tiles)
                         and bare.match(g.kind, g.tiles, g.meld, None, i == won))

    def count_groups(self, f: GroupFilter) -> int:
        """Groups of the reading that ``f`` matches (cached per filter)."""
        key = id(f)
        v = self._group_cache.get(key)
        if v is None:
            v = len(self.group_indices(f))
            self._group_cache[key] = v
        return v

    def suited_sets(self, kind: str) -> list[tuple[int, int, int]]:
        """(suit, lowest rank 1-9, group index) of the reading's suited sets of ``kind``
        (``seq`` or ``triplet``, which includes kongs), sorted by rank, then suit."""
        v = self._sets_cache.get(kind)
        if v is None:
            v = self._sets_cache[kind] = self._suited_sets(kind)
        return v

    def sets_key(self, kind: str, kinds: tuple[str, ...]) -> tuple[int, ...]:
        """The reading's suited sets of ``kind`` (group kinds ``kinds``) as a multiset: each
        set's lowest tile, sorted. What set combinations depend on (and all they depend on)."""
        v = self._set_keys.get(kind)
        if v is None:
            v = self._set_keys[kind] = tuple(sorted(min(g.tiles) for g in self._groups()
                                                    if g.kind in kinds and g.tiles[0] < HONOR_BASE))
        return v

    def sets_summary(self, kind: str) -> tuple[frozenset[int], int, int]:
        """Of the reading's suited sets of ``kind``: their lowest ranks, the most in one suit,
        the number of suits."""
        v = self._summary_cache.get(kind)
        if v is None:
            sets = self.suited_sets(kind)
            per_suit = [0, 0, 0]
            for suit, _, _ in sets:
                per_suit[suit] += 1
            v = self._summary_cache[kind] = (frozenset(r for _, r, _ in sets), max(per_suit),
                                             sum(1 for n in per_suit if n))
        return v

    def _suited_sets(self, kind: str) -> list[tuple[int, int, int]]:
        kinds = ("seq",) if kind == "seq" else ("triplet", "kong")
        return sorted(((min(g.tiles) // 9, min(g.tiles) % 9 + 1, i) for i, g in enumerate(self._groups())
                       if g.kind in kinds and not is_honor(g.tiles[0])), key=lambda x: (x[1], x[0], x[2]))

    def win_waits(self) -> frozenset[str]:
        """Where the winning tile can sit in this reading (``WIN_WAITS``): 单钓 ``single`` (it
        completes the pair or a single), 对倒 ``pair_pair`` (a triplet), ``closed`` (the middle
        of a sequence), ``edge`` (the 3 of 12-3 or the 7 of 7-89), ``open`` (两面, any other
        end of a sequence). Groups of exposed melds never hold it; a wildcard winning tile may sit
        wherever a wildcard does."""
        w = self.facts.win_tile
        if w is None:
            return frozenset()
        wild = self.facts.win_tile_wild
        out = {x for g in self._groups() if (x := group_win_wait(g, w, wild)) is not None}
        return frozenset(out)

    def _m_natural_wildcards(self) -> int:
        kinds = self.facts.wild_kinds
        if kinds is not None:
            return sum(1 for g in self._groups() for t, s in zip(g.tiles, g.sources, strict=True)
                       if s == "w" and t in kinds)
        w = self.wildcard
        return sum(1 for g in self._groups() for t, s in zip(g.tiles, g.sources, strict=True)
                   if s == "w" and t == w)

    def _m_self_wild_sequences(self) -> int:
        """Sequences using a wildcard as its own tile, the other two tiles natural."""
        kinds = self.facts.wild_kinds if self.facts.wild_kinds is not None else (self.wildcard,)
        n = 0
        for g in self._groups():
            if g.kind != "seq":
                continue
            for w in kinds:
                if w not in g.tiles:
                    continue
                i = g.tiles.index(w)
                if g.sources[i] == "w" and all(s == "n" for j, s in enumerate(g.sources) if j != i):
                    n += 1
                    break
        return n

    def pair_tile(self) -> Tile | None:
        """The tile of the reading's one pair; None when it has none, or several (seven pairs)."""
        pairs = [g for g in self._groups() if g.kind == "pair"]
        return pairs[0].tiles[0] if len(pairs) == 1 else None

    def has_one_pair(self) -> bool:
        return sum(1 for g in self._groups() if g.kind == "pair") == 1


def group_win_wait(g: Group, w: Tile, wild: bool) -> str | None:
    """Where the winning tile ``w`` sits in group ``g`` (see :meth:`Measures.win_waits`; one
    placement per group: the first tile that can be it), None when it can't be in ``g``.
    ``wild``: the winning tile is a wildcard (it may be any tile a wildcard stands for)."""
    if g.meld is not None:
        return None
    for t, src in zip(g.tiles, g.sources, strict=True):
        if not (src == "w" if wild else (src == "n" and t == w)):
            continue
        if g.kind in ("pair", "single"):
            return "single"
        if g.kind == "triplet":
            return "pair_pair"
        if g.kind == "seq":
            lo = min(g.tiles)
            pos = t - lo
            if pos == 1:
                return "closed"
            if (pos == 2 and lo % 9 == 0) or (pos == 0 and lo % 9 == 6):
                return "edge"
            return "open"
        return None
    return None


def shape_matches(pattern_shapes: tuple[Shape, ...], shape: Shape) -> bool:
    """Is a reading of ``shape`` one of the pattern's shapes? ``free`` asks for no
    structure, so it is satisfied by a reading of any shape."""
    return any(s.kind == "free" or _same_shape(s, shape) for s in pattern_shapes)


def _same_shape(a: Shape, b: Shape) -> bool:
    return (a.kind, a.melds, a.pair, a.pairs, a.min_gap, a.distinct_honors, a.orphans, a.tracks) == (
        b.kind, b.melds, b.pair, b.pairs, b.min_gap, b.distinct_honors, b.orphans, b.tracks)


_BARE: dict[int, GroupFilter] = {}


def _bare(f: GroupFilter) -> GroupFilter:
    """``f`` without its ``holding`` filter (judged separately as a kind set)."""
    bare = _BARE.get(id(f))
    if bare is None:
        bare = _remember(_BARE, f, GroupFilter(kinds=f.kinds, exposed=f.exposed, laid_down=f.laid_down))
    return bare


def requirements_hold(p: Pattern, m: Measures) -> bool:
    """Does the reading meet every ``require`` of ``p``? (Its compiled checks, see :func:`compiled`.)"""
    entry = _COMPILED.get(id(p))
    check = entry[0] if entry is not None else compiled(p)
    return check is None or check(m)


Check = Callable[[Measures], bool]
# Measures that cost far more than the others (a search over the tiles that complete the hand):
# judged last, only when every other requirement of the pattern holds.
COSTLY = frozenset({"waiting_tiles"})
_COMPILED: dict[int, tuple[Check | None]] = {}


def compiled(p: Pattern) -> Check | None:
    """``p``'s requirements as one function of a reading's measures, built once per pattern:
    only the checks the pattern declares, each a small closure over its bounds (tile filters
    as kind sets), cheapest first. None when the pattern requires nothing of a reading."""
    entry = _COMPILED.get(id(p))
    if entry is None:
        entry = _remember(_COMPILED, p, (_compile(p),))  # the checks hold no reference to p
    return entry[0]


def _count_check(name: str, lo: int | None, hi: int | None) -> Check:
    def check(m: Measures) -> bool:
        v = m._cache.get(name)
        if v is None:
            v = m.get(name)
        return (lo is None or v >= lo) and (hi is None or v <= hi)
    return check


def _compile(p: Pattern) -> Check | None:
    checks: list[Check] = [_count_check(name, c.min, c.max) for name, c in p.counts if name not in COSTLY]
    if p.all_tiles is not None:
        every_tile = p.all_tiles
        checks.append(lambda m: m.kinds() <= allowed_kinds(every_tile, m.facts.winds, m.wind_key))
    if p.no_tiles is not None:
        no_tile = p.no_tiles
        checks.append(lambda m: m.kinds().isdisjoint(allowed_kinds(no_tile, m.facts.winds, m.wind_key)))
    if p.pair is not None:
        pair = p.pair

        def pair_check(m: Measures) -> bool:
            # Judged where the shape has a pair; seven pairs has no single pair to judge.
            if not m.has_one_pair():
                return True
            t = m.pair_tile()
            return t is not None and t in allowed_kinds(pair, m.facts.winds, m.wind_key)
        checks.append(pair_check)
    if p.reads_groups:
        if p.every_group is not None:
            every_group = p.every_group

            def every_group_check(m: Measures) -> bool:
                ok = allowed_kinds(every_group, m.facts.winds, m.wind_key)
                return not any(ok.isdisjoint(g.tiles) for g in m._groups())
            checks.append(every_group_check)
        if p.any_group is not None:
            any_group = p.any_group

            def any_group_check(m: Measures) -> bool:
                ok = allowed_kinds(any_group, m.facts.winds, m.wind_key)
                return not all(ok.isdisjoint(g.tiles) for g in m._groups())
            checks.append(any_group_check)
        if p.held_ranks is not None:
            ranks = p.held_ranks
            checks.append(lambda m: m.held_ranks_are(ranks))
        if p.sets is not None:
            combo = p.sets

            # Necessary conditions, cheap on the reading's summary of its sets: the lowest
            # ranks named are all there; enough sets of one suit / of different suits.
            starts = frozenset(combo.starts) if combo.starts is not None else frozenset()
            same = combo.count if combo.suits == "same" else 0
            different = combo.count if combo.suits == "different" else 0

            def sets_check(m: Measures) -> bool:
                sets = m.suited_sets(combo.kind)
                if len(sets) < combo.count:
                    return False
                ranks, most_of_a_suit, suits = m.sets_summary(combo.kind)
                if not starts <= ranks or most_of_a_suit < same or suits < different:
                    return False
                return any(True for _ in _combinations_of(combo, sets))
            checks.append(sets_check)
        if p.groups is not None and p.groups_count is not None:
            groups, groups_count = p.groups, p.groups_count
            checks.append(lambda m: groups_count.ok(m.count_groups(groups)))
        if p.win_wait is not None:
            win_wait = p.win_wait
            checks.append(lambda m: bool(win_wait & m.win_waits()))
    if p.condition is not None:
        condition = p.condition
        checks.append(lambda m: condition_holds(condition, m))
    checks += [_count_check(name, c.min, c.max) for name, c in p.counts if name in COSTLY]
    if not checks:
        return None
    if len(checks) == 1:
        return checks[0]
    if len(checks) == 2:
        first, second = checks
        return lambda m: first(m) and second(m)
    every = tuple(checks)

    def all_checks(m: Measures) -> bool:
        for c in every:  # noqa: SIM110 (a loop: no generator made per reading)
            if not c(m):
                return False
        return True
    return all_checks


def matching_combinations(p: Pattern, sets: list[tuple[int, int, int]]) -> Iterable[tuple[int, ...]]:
    """Positions (in ``sets``) of each combination of sets the combination pattern ``p`` matches."""
    assert p.sets is not None
    return _combinations_of(p.sets, sets)


def _combinations_of(combo: SetCombo, sets: list[tuple[int, int, int]]) -> Iterator[tuple[int, ...]]:
    for sub in combinations(range(len(sets)), combo.count):
        if combo.match([(sets[i][0], sets[i][1]) for i in sub]):
            yield sub


def condition_holds(c: Condition | Pattern, m: Measures) -> bool:
    """Does the reading meet a condition of ``require`` (``any`` / ``all`` / ``not`` over
    requirements; a leaf is judged as a pattern's own ``require``)?"""
    if isinstance(c, Pattern):
        return requirements_hold(c, m)
    if c.op == "any":
        return any(condition_holds(x, m) for x in c.items)
    if c.op == "not":
        return not condition_holds(c.items[0], m)
    return all(condition_holds(x, m) for x in c.items)


def times(p: Pattern, m: Measures) -> int:
    if p.times_per is None:
        return 1
    if p.times_per == "groups" and p.groups is not None:
        return m.count_groups(p.groups) // p.times_every
    return m.get(p.times_per) // p.times_every


def honors_in(tiles: Iterable[Tile]) -> int:
    return sum(1 for t in tiles if is_honor(t))
