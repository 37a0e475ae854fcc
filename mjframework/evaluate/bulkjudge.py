"""The win patterns' requirements judged together on a reading, as bit masks (:class:`BulkJudge`).

The compiled form of every pattern's ``require`` (built once per ruleset by
:class:`~.compiler.CompiledRuleset`): one bit per pattern, each family of requirement judged
for all patterns at once over the reading's facts (:class:`~.patterns.Measures`). The
reference is :func:`~.patterns.requirements_hold`, one pattern at a time
(``tests/test_bulk_judge.py`` compares them).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from ..core.tiles import HONOR_BASE, NUM_KINDS, Tile
from ..rules.model import (
    CLAIMED_MELDS,
    Condition,
    GroupFilter,
    Pattern,
    SetCombo,
    TileFilter,
)
from .combinations import account_combinations
from .patterns import (
    _PACKED,
    COSTLY,
    GROUP_MEASURES,
    TILE_MEASURES,
    Measures,
    _bare,
    _combinations_of,
    allowed_kinds,
    condition_holds,
    group_win_wait,
)
from .readings import Group


def _union(masks: Iterable[int]) -> int:
    """The bits of every mask (an OR: two entries of one pattern share its bit, so a sum would carry)."""
    out = 0
    for m in masks:
        out |= m
    return out


def _bits(mask: int) -> Iterator[int]:
    """Positions of the set bits of ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


class _Bounded:
    """Bounds on one value (a measure, or a group filter's count), for every pattern that sets
    some: a table from the value to the patterns whose bounds it meets (a bit per pattern)."""

    def __init__(self, entries: list[tuple[int, int | None, int | None]]) -> None:
        self.entries = entries  # (pattern bit, min, max)
        self.mask = 0
        for bit, _, _ in entries:
            self.mask |= bit
        top = max([b for _, lo, hi in entries for b in (lo, hi) if b is not None], default=0) + 2
        # keep[v]: the patterns whose bounds v meets, plus every pattern with no bound here
        self.keep = [self._keep(v) for v in range(top)]

    def _keep(self, v: int) -> int:
        fail = 0
        for bit, lo, hi in self.entries:
            if (lo is not None and v < lo) or (hi is not None and v > hi):
                fail |= bit
        return ~fail

    def keep_for(self, v: int) -> int:
        keep = self.keep
        return keep[v] if 0 <= v < len(keep) else self._keep(v)


def _packed_group_measures(g: Group) -> int:
    """What group ``g`` adds to each of ``_PACKED``, one byte each (as
    :meth:`Measures._group_measures` counts; ``tests/test_bulk_judge.py`` compares them)."""
    kind, meld = g.kind, g.meld
    seq = kind == "seq"
    triplet = kind in ("triplet", "kong")
    kong = kind == "kong"
    claimed = meld in ("chow", "pung", "kong", "added-kong")
    concealed_kong = meld == "concealed-kong"
    exposed_kong = meld in ("kong", "added-kong")
    return seq | triplet << 8 | kong << 16 | claimed << 24 | concealed_kong << 32 | exposed_kong << 40


def _names_wind(f: TileFilter | None) -> bool:
    """Does the filter (or one of its ``any_of``) name the seat or prevalent wind?"""
    if f is None:
        return False
    return f.wind is not None or any(_names_wind(x) for x in f.any_of or ())


_GroupFacts = tuple[int, int, int, tuple[int, ...], int, int, int, int, int, int]  # see _Tables.group_facts


def _packed_filters(matching: tuple[int, ...]) -> int:
    """The group filters a group matches as counts to add, one byte per filter (filter ``j`` in
    byte ``j``): the sum over a reading's groups counts every filter at once (a reading has far
    fewer than 256 groups)."""
    out = 0
    for j in matching:
        out += 1 << (8 * j)
    return out


class _Tables:
    """The bulk judge's tile and group tables for its filters that name no wind (one, shared
    by every hand: ``windy`` False), or for those naming one under one (seat, prevalent) wind
    pair (``windy`` True; one per pair met, only where some filter names a wind)."""

    def __init__(self, judge: BulkJudge, winds: dict[str, Tile] | None,
                 key: tuple[Tile | None, Tile | None], windy: bool) -> None:
        self.winds = winds
        self.key = key
        self.windy = windy

        def mark(table: list[int], entries: list[tuple[int, TileFilter]], accepted: bool) -> None:
            """Set each of this table's patterns' bit on the kinds its filter accepts (or rejects)."""
            for bit, f in entries:
                if _names_wind(f) != windy:
                    continue
                ok = allowed_kinds(f, winds, key)
                for t in range(NUM_KINDS):
                    if (t in ok) == accepted:
                        table[t] |= bit
        kill = [0] * NUM_KINDS  # all_tiles patterns not accepting the kind, no_tiles ones accepting it
        pair_kill = [0] * NUM_KINDS  # pair patterns not accepting the kind as the pair
        touch = [0] * NUM_KINDS  # every_group patterns whose filter accepts the kind
        touch_any = [0] * NUM_KINDS  # any_group patterns whose filter accepts the kind
        mark(kill, judge.all_tiles, accepted=False)
        mark(kill, judge.no_tiles, accepted=True)
        mark(pair_kill, judge.pairs, accepted=False)
        mark(touch, judge.every_group, accepted=True)
        mark(touch_any, judge.any_group, accepted=True)
        self.kill = kill
        self.pair_kill = pair_kill
        self.touch = touch
        self.touch_any = touch_any
        self.group_filters = [(j, f) for j, f in enumerate(judge.group_filters)
                              if _names_wind(f.holding) == windy]
        # (group, counted as exposed) → its facts for every family (see group_facts).
        self.groups: dict[tuple[Group, bool], _GroupFacts] = {}

    def group_facts(self, judge: BulkJudge, g: Group, won: bool) -> _GroupFacts:
        """What the families read of one group, as one tuple: the all/no_tiles patterns its
        tiles rule out, the every_group and any_group patterns it satisfies, the group filters
        it matches, the pair patterns it rules out as the pair (-1: not a pair), the set
        family it belongs to (position in ``judge.sets``, -1: none), its lowest tile, what
        it adds to the group measures (packed, see ``_PACKED``) and to the group filters' counts
        (packed, see :func:`_packed_filters`), and 1 if it is a concealed triplet (as
        :meth:`Measures._m_concealed_triplets` counts, given ``won``), else 0. Remembered per group (a few
        thousand at most); the tables of a wind pair give every filter's facts (theirs merged
        with the shared tables' ones)."""
        key = (g, won)
        f = self.groups.get(key)
        if f is None:
            kill = every = anyhit = 0
            for t in g.tiles:
                kill |= self.kill[t]
                every |= self.touch[t]
                anyhit |= self.touch_any[t]
            pair = self.pair_kill[g.tiles[0]] if g.kind == "pair" else -1
            family = -1
            if g.tiles[0] < HONOR_BASE and not self.windy:
                for i, (_kind, kinds, _mask, _combos, _table) in enumerate(judge.sets):
                    if g.kind in kinds:
                        family = i
            if self.windy:  # merged with the facts of the filters naming no wind
                b = judge._free.group_facts(judge, g, won)
                matching = b[3] + self.filters_matching(g.kind, g.tiles, g.meld, won)
                f = (b[0] | kill, b[1] | every, b[2] | anyhit, matching,
                     b[4] | pair if b[4] >= 0 else -1, b[5], b[6], b[7], _packed_filters(matching), b[9])
            else:
                matching = self.filters_matching(g.kind, g.tiles, g.meld, won)
                concealed = int(g.kind in ("triplet", "kong") and g.meld not in CLAIMED_MELDS and not won)
                f = (kill, every, anyhit, matching, pair, family, min(g.tiles), _packed_group_measures(g),
                     _packed_filters(matching), concealed)
            if len(self.groups) > 1 << 16:
                self.groups.clear()
            self.groups[key] = f
        return f

    def filters_matching(self, kind: str, tiles: tuple[Tile, ...], meld: str | None,
                         won: bool) -> tuple[int, ...]:
        """Positions in ``judge.group_filters`` of the filters (of these tables) this group
        matches (as :meth:`Measures.group_indices` judges them)."""
        out = []
        for j, f in self.group_filters:
            if f.holding is None:
                ok = f.match(kind, tiles, meld, None, won)
            else:
                ok = not allowed_kinds(f.holding, self.winds, self.key).isdisjoint(tiles) and \
                    _bare(f).match(kind, tiles, meld, None, won)
            if ok:
                out.append(j)
        return tuple(out)


class BulkJudge:
    """A set of patterns' ``require`` judged together on a reading, as bit masks.

    Built once per evaluator from its patterns (bit ``i`` is pattern ``i``). Every
    requirement the pattern language has is a family of *atoms* over a few facts of the
    reading, and each family is judged for all its patterns at once:

    * a measure within bounds: the measure is computed once, and a table from its value to
      the patterns whose bounds it meets (:class:`_Bounded`) keeps them;
    * ``all_tiles`` / ``no_tiles``: per tile kind, the patterns the kind rules out (per wind
      pair where a filter names a wind), OR-ed over the reading's tiles; ``pair``: the same
      for the pair's kind; ``every_group`` / ``any_group``: per kind, the patterns whose filter
      accepts it, OR-ed per group;
    * ``groups`` counted within bounds: per group, the distinct group filters it matches
      (remembered per kind of group: kind, tiles, meld, counted exposed), counted, then
      the counts' tables as for measures;
    * ``sets``: the reading's suited sets of a kind as a multiset of (suit, rank) → the
      combination patterns some of them match (a table filled as multisets are met: at
      most the few ten thousand multisets of four sets);
    * ``win_wait``: where the winning tile sits, per group (remembered per group and winning
      tile), OR-ed over the reading's groups; ``held_ranks`` per pattern
      (a hand-level fact, one or two patterns);
    * conditions (``any`` / ``all`` / ``not``, measures tested with ``in`` / ``not``) per
      pattern, by :func:`condition_holds` (few patterns have one);
    * costly measures (``COSTLY``: ``waiting_tiles``) last, only when a pattern still
      alive needs them.

    :meth:`holding` starts from the candidates' bits and drops those a family fails; a
    family no live pattern needs is not judged at all. The result is the same as judging
    each pattern with :func:`requirements_hold` (``tests/test_bulk_judge.py``): each
    family is the same test on the same facts, only evaluated once for all patterns.
    """

    def __init__(self, patterns: Sequence[Pattern], excluding: dict[Pattern, frozenset[str]] | None = None
                 ) -> None:
        self.patterns = tuple(patterns)
        self.bit = {p: 1 << i for i, p in enumerate(self.patterns)}
        self.all = (1 << len(self.patterns)) - 1
        named: dict[str, int] = {}
        for p in self.patterns:
            named[p.name] = named.get(p.name, 0) | self.bit[p]

        def bits_named(names: Iterable[str]) -> int:
            return sum(named.get(n, 0) for n in set(names))
        # Per pattern: the patterns it excludes, by name (``excluding``: wholly excluded names
        # under ranked exclusions; else its `excludes`).
        self.excludes = [bits_named(p.excludes) for p in self.patterns]
        self.excludes_ranked = [bits_named(excluding[p] if excluding is not None else p.excludes)
                                for p in self.patterns]
        self.makes_win = sum(self.bit[p] for p in self.patterns if p.makes_win)
        cheap: dict[str, list[tuple[int, int | None, int | None]]] = {}
        costly: dict[str, list[tuple[int, int | None, int | None]]] = {}
        self.all_tiles: list[tuple[int, TileFilter]] = []
        self.no_tiles: list[tuple[int, TileFilter]] = []
        self.pairs: list[tuple[int, TileFilter]] = []
        self.every_group: list[tuple[int, TileFilter]] = []
        self.any_group: list[tuple[int, TileFilter]] = []
        self.group_filters: list[GroupFilter] = []  # distinct (by value)
        group_counts: dict[int, list[tuple[int, int | None, int | None]]] = {}
        self.group_filter_ids: list[list[int]] = []  # per distinct filter: ids of the patterns' filters
        self.held_ranks: list[tuple[int, tuple[int, ...]]] = []
        sets: dict[str, list[tuple[int, SetCombo]]] = {}
        self.win_wait_accept: dict[str, int] = {}
        self.win_wait_mask = 0
        self.conditions: list[tuple[int, Condition]] = []  # `any` / `all` / `not`, `in` / `not` tests
        for p in self.patterns:
            bit = self.bit[p]
            for name, c in p.counts:
                (costly if name in COSTLY else cheap).setdefault(name, []).append((bit, c.min, c.max))
            for f, where in ((p.all_tiles, self.all_tiles), (p.no_tiles, self.no_tiles),
                             (p.pair, self.pairs)):
                if f is not None:
                    where.append((bit, f))
            if p.condition is not None:
                self.conditions.append((bit, p.condition))
            if not p.reads_groups:
                continue
            if p.every_group is not None:
                self.every_group.append((bit, p.every_group))
            if p.any_group is not None:
                self.any_group.append((bit, p.any_group))
            if p.held_ranks is not None:
                self.held_ranks.append((bit, p.held_ranks))
            if p.sets is not None:
                sets.setdefault(p.sets.kind, []).append((bit, p.sets))
            if p.groups is not None and p.groups_count is not None:
                if p.groups in self.group_filters:
                    j = self.group_filters.index(p.groups)
                else:
                    j = len(self.group_filters)
                    self.group_filters.append(p.groups)
                    self.group_filter_ids.append([])
                self.group_filter_ids[j].append(id(p.groups))
                group_counts.setdefault(j, []).append((bit, p.groups_count.min, p.groups_count.max))
            if p.win_wait is not None:
                self.win_wait_mask |= bit
                for w in p.win_wait:
                    self.win_wait_accept[w] = self.win_wait_accept.get(w, 0) | bit
        self.condition_mask = _union(b for b, _ in self.conditions)
        self.cheap = [(name, _Bounded(e)) for name, e in cheap.items()]
        self.cheap_tables = [(name, b.mask, b.keep, b) for name, b in self.cheap]
        # Measures computed together (Measures._tile_measures / _group_measures): filled at once.
        self.tile_measure_mask = _union(b.mask for name, b in self.cheap if name in TILE_MEASURES)
        self.group_measure_mask = _union(b.mask for name, b in self.cheap if name in GROUP_MEASURES)
        self.costly = [(name, _Bounded(e)) for name, e in costly.items()]
        self.tile_mask = _union(b for b, _ in (*self.all_tiles, *self.no_tiles))
        self.pair_mask = _union(b for b, _ in self.pairs)
        self.every_group_mask = _union(b for b, _ in self.every_group)
        self.any_group_mask = _union(b for b, _ in self.any_group)
        self.group_count_tables = [_Bounded(group_counts[j]) for j in range(len(self.group_filters))]
        self.group_count_mask = _union(t.mask for t in self.group_count_tables)
        self.held_ranks_mask = _union(b for b, _ in self.held_ranks)
        # Per kind of set: the combination patterns, their bits, and the table of multisets.
        self.sets: list[tuple[str, tuple[str, ...], int, list[tuple[int, SetCombo]],
                              dict[tuple[int, ...], int]]] = [
            (kind, ("seq",) if kind == "seq" else ("triplet", "kong"), _union(b for b, _ in combos),
             combos, {})
            for kind, combos in sets.items()]
        self.sets_mask = _union(m for _, _, m, _, _ in self.sets)
        self.group_family_mask = (self.tile_mask | self.pair_mask | self.every_group_mask
                                  | self.any_group_mask | self.group_count_mask | self.sets_mask)
        self._free = _Tables(self, None, (None, None), windy=False)
        self._windy = any(_names_wind(f) for _, f in (*self.all_tiles, *self.no_tiles, *self.pairs,
                                                      *self.every_group, *self.any_group)) or any(
            _names_wind(f.holding) for f in self.group_filters)
        self._winds: dict[tuple[Tile | None, Tile | None], _Tables] = {}
        self._masks: dict[tuple[Pattern, ...], int] = {}
        # (group, winning tile, won with a wildcard) → the win_wait patterns it satisfies.
        self._win_wait_hits: dict[tuple[Group, Tile, bool], int] = {}
        self._accounted: dict[tuple[str, tuple[int, ...], int], tuple[tuple[Pattern, int], ...]] = {}

    def mask_of(self, patterns: Sequence[Pattern]) -> int:
        """The bits of ``patterns`` (remembered per list of patterns: a few per shape and context)."""
        key = tuple(patterns)
        mask = self._masks.get(key)
        if mask is None:
            mask = 0
            for p in key:
                mask |= self.bit[p]
            if len(self._masks) > 1024:
                self._masks.clear()
            self._masks[key] = mask
        return mask

    def not_excluded(self, held: int, ranked: bool) -> int:
        """Of the patterns ``held``, those no other excludes. ``ranked``: in bit order (the
        judge's patterns are then given best first), a pattern excluded by one kept excludes
        nothing itself; else every held pattern's ``excludes`` count."""
        excluded = 0
        if ranked:
            table = self.excludes_ranked
            kept = 0
            while held:
                low = held & -held
                held ^= low
                if not low & excluded:
                    kept |= low
                    excluded |= table[low.bit_length() - 1]
            return kept
        table = self.excludes
        rest = held
        while rest:
            low = rest & -rest
            rest ^= low
            excluded |= table[low.bit_length() - 1]
        return held & ~excluded

    def patterns_of(self, mask: int) -> list[Pattern]:
        """The patterns of ``mask``, in their order."""
        return [self.patterns[i] for i in _bits(mask)]

    def _wind_tables(self, m: Measures) -> _Tables | None:
        """The tables of the filters naming a wind, for the reading's wind pair (None: none does)."""
        if not self._windy:
            return None
        t = self._winds.get(m.wind_key)
        if t is None:
            t = self._winds[m.wind_key] = _Tables(self, m.facts.winds, m.wind_key, windy=True)
        return t

    def holding(self, m: Measures, alive: int) -> int:
        """Of the patterns in ``alive``, those whose requirements the reading ``m`` meets."""
        cache = m._cache
        if alive & self.tile_measure_mask:
            m._tile_measures()
        if alive & (self.group_family_mask | self.group_measure_mask):
            alive = self._group_families(m, alive)  # (the group measures too)
        for name, mask, keep, bounded in self.cheap_tables:
            if alive & mask:
                v = cache.get(name)
                if v is None:
                    v = m.get(name)
                alive &= keep[v] if 0 <= v < len(keep) else bounded.keep_for(v)
        if alive & self.held_ranks_mask:
            for bit, ranks in self.held_ranks:
                if alive & bit and not m.held_ranks_are(ranks):
                    alive &= ~bit
        if alive & self.win_wait_mask:
            hit = 0
            w = m.facts.win_tile
            if w is not None:
                wild = m.facts.win_tile_wild
                memo = self._win_wait_hits
                for g in m._groups():
                    key = (g, w, wild)
                    h = memo.get(key)
                    if h is None:
                        h = self.win_wait_accept.get(group_win_wait(g, w, wild) or "", 0)
                        if len(memo) > 1 << 16:
                            memo.clear()
                        memo[key] = h
                    hit |= h
            alive &= ~(self.win_wait_mask & ~hit)
        if alive & self.condition_mask:
            for bit, cond in self.conditions:
                if alive & bit and not condition_holds(cond, m):
                    alive &= ~bit
        for name, bounded in self.costly:
            if alive & bounded.mask:
                alive &= bounded.keep_for(m.get(name))
        return alive

    def _group_families(self, m: Measures, alive: int) -> int:
        """Tile filters, group filters and set combinations, from one pass over the groups (which
        also counts the group measures, ``GROUP_MEASURES``, into the reading's measures)."""
        group_measures = alive & self.group_measure_mask
        tables = self._wind_tables(m) or self._free
        count_groups = bool(alive & self.group_count_mask)
        won = m.won_triplet() if count_groups else None
        dead = 0
        every = self.every_group_mask
        anyhit = 0
        pairs = 0
        pair_dead = 0
        counts = [0] * len(self.group_filters)
        codes: list[list[int]] = [[] for _ in self.sets]
        memo = tables.groups
        packed = 0
        for i, g in enumerate(m._groups()):
            f = memo.get((g, i == won))
            if f is None:
                f = tables.group_facts(self, g, i == won)
            packed += f[7]
            dead |= f[0]
            every &= f[1]
            anyhit |= f[2]
            for j in f[3]:
                counts[j] += 1
            if f[4] >= 0:
                pairs += 1
                pair_dead = f[4]
            if f[5] >= 0:
                codes[f[5]].append(f[6])
        if group_measures:
            cache = m._cache
            for k, name in enumerate(_PACKED):
                cache[name] = packed >> (8 * k) & 255
        # all_tiles / no_tiles: ruled out by some tile; every_group: by a group touching none of
        # its kinds; any_group: by all groups; pair: judged where the shape has one pair
        alive &= ~((dead & self.tile_mask) | (self.every_group_mask & ~every)
                   | (self.any_group_mask & ~anyhit) | (pair_dead & self.pair_mask if pairs == 1 else 0))
        if count_groups:
            gc = m._group_cache
            for j, bounded in enumerate(self.group_count_tables):
                n = counts[j]
                for fid in self.group_filter_ids[j]:
                    gc[fid] = n  # count_groups(f), for `times` and exclusions later
                if alive & bounded.mask:
                    alive &= bounded.keep_for(n)
        if alive & self.sets_mask:
            set_keys = m._set_keys
            for (kind, _kinds, mask, combos, table), found in zip(self.sets, codes, strict=True):
                key = set_keys[kind] = tuple(sorted(found))
                if not alive & mask:
                    continue
                keep = table.get(key)
                if keep is None:
                    keep = table[key] = self._sets_keep(m, kind, combos)
                alive &= keep
        return alive

    def account_combinations(self, patterns: list[Pattern], m: Measures) -> dict[Pattern, int]:
        """:func:`account_combinations`, from a table per kind of set: (the reading's multiset
        of sets, the combination patterns among ``patterns``) → how many times each counts.
        The accounting reads nothing else of the reading; the table is filled as such pairs
        are met (bounded: cleared past 65,536 entries)."""
        bit = self.bit
        mine_of: dict[str, int] = {}
        for p in patterns:
            if p.sets is not None:
                b = bit.get(p)
                if b is None:  # not one of this judge's patterns: accounted directly
                    return account_combinations(patterns, m)
                mine_of[p.sets.kind] = mine_of.get(p.sets.kind, 0) | b
        out: dict[Pattern, int] = {}
        if not mine_of:
            return out
        for kind, kinds, _mask, _combos, _table in self.sets:
            mine = mine_of.get(kind, 0)
            if not mine:
                continue
            key = (kind, m.sets_key(kind, kinds), mine)
            counted = self._accounted.get(key)
            if counted is None:
                counted = tuple(account_combinations(self.patterns_of(mine), m).items())
                if len(self._accounted) > 1 << 16:
                    self._accounted.clear()
                self._accounted[key] = counted
            for p, n in counted:
                out[p] = out.get(p, 0) + n
        return out

    @staticmethod
    def _sets_keep(m: Measures, kind: str, combos: list[tuple[int, SetCombo]]) -> int:
        """The patterns kept by the reading's suited sets of ``kind``: every pattern but the
        combination patterns none of whose combinations is among the sets. (Each combination
        screened first as :func:`compiled` does: the lowest ranks it names are there, enough
        sets of one suit / of different suits.)"""
        sets = m.suited_sets(kind)
        ranks, most_of_a_suit, suits = m.sets_summary(kind)
        fail = 0
        for bit, combo in combos:
            if (len(sets) < combo.count
                    or (combo.starts is not None and not ranks.issuperset(combo.starts))
                    or (combo.suits == "same" and most_of_a_suit < combo.count)
                    or (combo.suits == "different" and suits < combo.count)
                    or not any(True for _ in _combinations_of(combo, sets))):
                fail |= bit
        return ~fail
