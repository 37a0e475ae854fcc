"""The compiled ruleset: everything scoring needs that depends on the ruleset alone.

Loading a ruleset gives its declarations (:mod:`..rules.model`); scoring a hand walks
what they compile to, built once here so that no hand pays for interpreting them again:

* the **shapes** every pattern reads (and completed wait shapes), and per shape the patterns
  that can apply to a reading of it, in declared order;
* the shapes that make a win with no requirement (the search stops at the first reading);
* every pattern's **requirements as bit masks** (:class:`~.bulkjudge.BulkJudge`: one bit per
  pattern in rank order; each family of requirement judged for all patterns at once) with
  **exclusions** as masks (``excludes_ranked``: the bits each pattern wholly excludes) and the
  patterns that make a win as a mask;
* **tiers** as ranks, how much of a reading each pattern looks at (the reading search's
  classes of kinds), the tile filters each pattern applies;
* **settlement as payment plans** (:func:`~..settle.settlement.win_plan`: per seat arrangement,
  ``(payer, times, plus)`` of the base amount), made on first use per arrangement by the
  settler and listed for the usual ones by :meth:`CompiledRuleset.describe`.

The per-suit decomposition tables keyed by count vectors are process-wide, not per ruleset
(:mod:`.wintable` for the win check, :mod:`.readings`' per-block reading tables), and the
table-level screens of ``is_win`` / ``waits`` are compiled on first use
(:class:`~.fastwin.WinScreen`). :class:`~.scoring.Evaluator` is the thin scorer over this
(it extends it with the memos a scorer fills as it plays); ``mj compile RULESET`` prints it.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..core.errors import HandError
from ..core.tiles import NUM_KINDS, Tile, format_tiles, is_honor, tile_name
from ..rules.measures import MEASURES
from ..rules.model import GroupFilter, Pattern, Ruleset, Shape, TileFilter, When
from ..settle import settlement as st
from .bulkjudge import BulkJudge
from .patterns import Measures, shape_matches, times
from .readings import Tiles
from .results import PayKey, TieKey
from .waits import completed_shape

# How much of a reading a measure looks at (the reading search, Evaluator._search): 0 nothing
# (hand-level facts), 1 the suit (or honor) of each tile, 2 also how many copies of each kind;
# 3 the whole reading (ranks: rank_span, knitted_straights). From the measures registry.
_MEASURE_LEVEL = {m.name: m.level for m in MEASURES if m.level < 3}


def _reading_level(p: Pattern) -> int:
    """How much of a reading pattern ``p`` looks at (see ``_MEASURE_LEVEL``); tile filters and
    group filters are 1 (their answers per kind are part of the kind's class)."""
    if p.sets is not None or p.win_wait is not None or p.condition is not None:
        return 3
    names = [n for n, _ in p.counts]
    if p.times_per is not None and p.times_per != "groups":
        names.append(p.times_per)
    level = max((_MEASURE_LEVEL.get(n, 3) for n in names), default=0)
    if any(x is not None for x in (p.all_tiles, p.no_tiles, p.pair, p.every_group, p.any_group, p.groups)):
        level = max(level, 1)
    return level



def _tile_filters(p: Pattern) -> list[TileFilter]:
    """Every tile filter a pattern applies to the tiles of a reading."""
    out = [f for f in (p.all_tiles, p.no_tiles, p.pair, p.every_group, p.any_group) if f is not None]
    g: GroupFilter | None = p.groups
    if g is not None and g.holding is not None:
        out.append(g.holding)
    return out




# What tells shapes apart (not their names): kind, melds, pair, pairs, min_gap, distinct_honors,
# orphans, tracks.
ShapeKey = tuple[str, int, int, int, int, bool, tuple[Tile, ...], bool]


def _shape_key(s: Shape) -> ShapeKey:
    return (s.kind, s.melds, s.pair, s.pairs, s.min_gap, s.distinct_honors, s.orphans, s.tracks)



class CompiledRuleset:
    """What scoring reads of one ruleset, compiled once (see the module's docstring)."""

    def __init__(self, ruleset: Ruleset) -> None:
        self.ruleset = ruleset
        self.kinds = list(ruleset.tileset.kinds)
        self._void_rule = ruleset.flow.void_suit is not None and not ruleset.flow.void_suit.win_holding
        self.win_patterns = ruleset.patterns_for("win")
        self.opening_patterns = ruleset.patterns_for("opening")
        self.wait_patterns = [p for p in self.win_patterns if p.waits]
        # The fewest wildcards any wait sets aside: a hand holding fewer has none of the waits.
        self._fewest_free = min((w.free_wildcards for p in self.wait_patterns for w in p.waits),
                                default=NUM_KINDS * 4 + 1)
        shapes: dict[ShapeKey, Shape] = {}
        for p in self.win_patterns:
            for s in p.shapes:
                shapes.setdefault(_shape_key(s), s)
            for w in p.waits:
                c = completed_shape(w)
                shapes.setdefault(_shape_key(c), c)
        self.shapes = list(shapes.values())
        # For each shape, the patterns that can apply to a reading of it: those of
        # that shape (or `free`), wait patterns and bonus patterns; in declared order.
        # Shapes that some pattern makes a win with no requirement and no context.
        # (None with a minimum to win: fitting a shape is then not enough.)
        self._unconditional = [] if ruleset.scoring.minimum is not None or ruleset.win_require else [
            s for s in self.shapes if s.kind != "free" and any(
                p.shapes and not p.has_requirements and p.when == When() and shape_matches(p.shapes, s)
                for p in self.win_patterns)]
        self._by_shape = [
            (s, [p for p in self.win_patterns if p.waits or not p.shapes or shape_matches(p.shapes, s)])
            for s in self.shapes]
        # For each pattern read as `free`: the kinds its `all_tiles` filter rules out
        # (None: no filter, anything may match).
        self._free_banned: list[frozenset[int] | None] = [
            None if p.all_tiles is None else frozenset(t for t in self.kinds if not p.all_tiles.match(t))
            for p in self.win_patterns if any(s.kind == "free" for s in p.shapes)]
        # … and, in the same order, the fewest wildcards its ``require`` asks for (0: none):
        # a free pattern of a few wildcards (all four of a fixed wildcard) fits only the hands holding them.
        self._free_min_wild: list[int] = [
            max((c.min or 0 for m, c in p.counts if m == "wildcards"), default=0)
            for p in self.win_patterns if any(s.kind == "free" for s in p.shapes)]
        # Per-seat state keys some pattern reads: part of the context's memo key.
        self._state_keys = sorted({k for p in self.win_patterns for k in p.when.state_keys()})
        # `win.require`: what every win must meet, judged on each reading after combining
        self._win_require = ruleset.win_require
        rule = ruleset.wildcard
        self._fixed: tuple[Tile, ...] = rule.fixed if rule is not None else ()
        self._default_wild: Tile | None = self._fixed[0] if self._fixed and rule and not rule.flips else None
        self._wild_claims = bool(rule and rule.may_claim)
        tiers = ruleset.scoring.tiers
        self._tier_rank = {t: i for i, t in enumerate(tiers)}
        self._suits_in_set = len({t // 9 for t in self.kinds if not is_honor(t)})
        # The reading search (see _score): how much of a reading each pattern looks at.
        self._level = {p: _reading_level(p) for p in self.win_patterns}
        self._tile_filters = {p: _tile_filters(p) for p in self.win_patterns}
        # _combine's ranked exclusions: each pattern's rank (higher points, then declared first)
        # and every name it wholly excludes.
        self._rank = {p: (-p.points, p.index) for p in ruleset.patterns}
        self._index = {p: p.index for p in ruleset.patterns}.__getitem__
        self._excluding = {
            p: p.excludes | {e.name for e in p.partial_excludes if e.times is None and not e.shared}
            for p in ruleset.patterns}
        # The win patterns' requirements, judged together; bits in rank order (for exclusions).
        self._bulk = BulkJudge(sorted(self.win_patterns, key=self._rank.__getitem__), self._excluding)
        self._kind_set = frozenset(self.kinds)
        self._by_pay = ruleset.scoring.value == "table"  # (see order)
        self._product = ruleset.scoring.multiplies
        self._after_cap = any(p.after_cap for p in ruleset.patterns)
        self._waiting_shapes = [s for s in self.shapes if s.kind in ("standard", "pairs", "knitted_straight")]

    # -- wildcards ---------------------------------------------------------

    def wildcard_from(self, wildcard: Tile | None = None, indicator: Tile | None = None) -> Tile | None:
        """The wildcard tile, given it or the flipped indicator.

        A ruleset whose wildcards are all fixed needs neither: its first fixed
        kind is the wildcard (the others are wild too, see :meth:`wild_kinds`).
        """
        rule = self.ruleset.wildcard
        if wildcard is None and indicator is None:
            return self._default_wild
        if rule is None:
            raise HandError(f"the {self.ruleset.id} ruleset has no wildcard")
        if indicator is not None:
            if not rule.flips:
                raise HandError(f"the {self.ruleset.id} ruleset flips no indicator: its wildcards are fixed "
                                f"({format_tiles(rule.fixed, 'chinese')})")
            if indicator not in self.ruleset.tileset or (rule.names == "successor"
                                                         and indicator not in rule.successors):
                raise HandError(f"{tile_name(indicator)} is not in this ruleset's tile set")
            return rule.wildcard_for(indicator)
        assert wildcard is not None  # (neither given: returned above)
        if wildcard not in self.ruleset.tileset:
            raise HandError(f"wildcard {tile_name(wildcard)} is not in this ruleset's tile set")
        if not rule.flips and wildcard not in rule.fixed:
            raise HandError(f"{tile_name(wildcard)} is not a wildcard of the {self.ruleset.id} ruleset: its "
                            f"wildcards are fixed ({format_tiles(rule.fixed, 'chinese')})")
        return wildcard

    def wild_kinds(self, wildcard: Tile | None) -> frozenset[Tile]:
        """Every wild kind in a hand whose (flipped or first fixed) wildcard is ``wildcard``."""
        if not self._fixed:
            return frozenset() if wildcard is None else frozenset((wildcard,))
        return frozenset(self._fixed) | ({wildcard} if wildcard is not None else frozenset())

    def stand_in_for(self, wildcard: Tile | None) -> Tile | None:
        """The stand-in tile active with this wildcard (e.g. 中 for a suited wildcard)."""
        rule = self.ruleset.wildcard
        if rule is None or wildcard is None:
            return None
        for si in rule.stand_ins:
            if si.tile == wildcard:
                continue
            if si.when == "always" or (si.when == "wildcard_suited") != is_honor(wildcard):
                return si.tile
        return None

    def split(self, tiles: Sequence[Tile], wildcard: Tile | None) -> Tiles:
        counts = [0] * NUM_KINDS
        for t in tiles:
            counts[t] += 1
        wilds = stand_ins = 0
        if wildcard is None:
            wildcard = self._default_wild
        stand = self.stand_in_for(wildcard)
        if self._fixed:
            for k in self.wild_kinds(wildcard):
                wilds += counts[k]
                counts[k] = 0
        elif wildcard is not None:
            wilds, counts[wildcard] = counts[wildcard], 0
        if stand is not None:
            stand_ins, counts[stand] = counts[stand], 0
        return Tiles(tuple(counts), wilds, stand_ins, stand, wildcard)

    def _is_wild(self, t: Tile | None, wildcard: Tile | None) -> bool:
        if self._fixed:
            return t in self._fixed or (wildcard is not None and t == wildcard)
        return wildcard is not None and t == wildcard

    # -- combining and ordering results (the scorer's) ----------------------

    def order(self, points: int) -> PayKey:
        """The first part of a result's key (smaller is better): what the result pays.

        Points order the results wherever the amount paid rises with them; a ``value: table``
        need not rise (a table may decode factors), so there the amount paid for the capped
        points comes first, then the points."""
        if self._by_pay:
            sc = self.ruleset.scoring
            return (-sc.amount(sc.capped(points)), -points)
        return -points

    def tie_key(self, picked: Sequence[tuple[Pattern, int]]) -> TieKey:
        """Orders equal-paying results as ``scoring.ties`` says; the smallest key is scored.

        ``first_declared``: the patterns' declaration positions, sorted, compared
        in turn (the result holding the earliest-declared pattern; if both hold
        it, the next, …). ``fewest_patterns`` / ``most_patterns`` count the
        patterns first, then fall back to ``first_declared``.
        """
        order = tuple(sorted(p.index for p, _ in picked))
        ties = self.ruleset.scoring.ties
        if ties == "fewest_patterns":
            return (len(order), order)
        if ties == "most_patterns":
            return (-len(order), order)
        return order

    def _combined(self, picked: Sequence[tuple[Pattern, int]]) -> int:
        """The points of ``picked`` (pattern, times) as ``combine`` puts them together."""
        if self._product:
            total = 1
            for p, n in picked:
                total *= p.points ** n
            return total
        return sum(p.points * n for p, n in picked)

    def _capped_after(self, picked: Sequence[tuple[Pattern, int]]) -> int:
        """The capped points when some patterns count after the cap (``after_cap``): the cap
        bounds the others, then these add (or multiply)."""
        sc = self.ruleset.scoring
        before = sc.capped(self._combined([(p, n) for p, n in picked if not p.after_cap]))
        after = self._combined([(p, n) for p, n in picked if p.after_cap])
        return before * after if self._product else before + after

    def _combine(self, matched: list[Pattern], m: Measures) -> tuple[int, list[tuple[Pattern, int]]] | None:
        """Exclusions, tiers, how many times each pattern counts, and the total (``combine``).

        (:meth:`_judge` does the exclusions as masks, :meth:`~.bulkjudge.BulkJudge.not_excluded`,
        then :meth:`_count`.)"""
        sc = self.ruleset.scoring
        if sc.exclusions == "ranked":
            # Higher points first; a pattern another excludes excludes nothing itself.
            excluding = self._excluding
            excluded: set[str] = set()
            kept = []
            for p in sorted(matched, key=self._rank.__getitem__):
                if p.name not in excluded:
                    kept.append(p)
                    excluded |= excluding[p]
            kept.sort(key=self._index)
        else:
            excluded = set().union(*(p.excludes for p in matched)) if matched else set()
            kept = [p for p in matched if p.name not in excluded]
        return self._count(kept, m)

    def _count(self, kept: list[Pattern], m: Measures) -> tuple[int, list[tuple[Pattern, int]]] | None:
        """:meth:`_combine` after the exclusions: tiers, how many times each pattern counts (set
        combinations accounted by the bulk judge's table per multiset of sets,
        :meth:`~.bulkjudge.BulkJudge.account_combinations`), the fallback, the total."""
        sc = self.ruleset.scoring
        if self._tier_rank and kept:
            default = self.ruleset.scoring.tiers[0]
            top = min(self._tier_rank[p.tier or default] for p in kept)
            kept = [p for p in kept if self._tier_rank[p.tier or default] == top]
        combos = self._bulk.account_combinations(kept, m) if sc.set_combinations == "once" else {}
        counted = [(p, combos.get(p, 0) if p.sets is not None and sc.set_combinations == "once"
                    else times(p, m)) for p in kept]
        if any(p.partial_excludes for p in kept):
            counted = _partial_exclusions(counted, m)
        counted = [(p, n) for p, n in counted if n > 0]
        if any(p.fallback for p, _ in counted) and any(
                not p.fallback and p.counts_to_minimum for p, _ in counted):
            counted = [(p, n) for p, n in counted if not p.fallback]
        if not counted:
            return None
        if self.ruleset.scoring.combine == "highest":
            p, n = max(counted, key=lambda x: (x[0].points * x[1], -x[0].index))
            return p.points * n, [(p, n)]
        if self._product:
            total = 1
            for p, n in counted:
                total *= p.points ** n
            return total, counted
        return sum(p.points * n for p, n in counted), counted

    # -- what was compiled ---------------------------------------------------

    def describe(self) -> str:
        """The compiled ruleset as text (``mj compile``): shapes and the patterns each reads,
        the bit of each pattern and the masks of its exclusions, tiers, reading levels and
        the payment plans of the usual seat arrangements."""
        rs = self.ruleset
        bulk = self._bulk
        out = [f"ruleset {rs.id}: {len(self.win_patterns)} win pattern(s), "
               f"{len(self.opening_patterns)} opening pattern(s), {len(self.kinds)} tile kinds"]
        out.append("shapes (each with the patterns that can apply to a reading of it, in declared order):")
        for s, pats in self._by_shape:
            sure = "  [wins unconditionally]" if s in self._unconditional else ""
            out.append(f"  {_shape_text(s)}{sure}")
            out.append(f"    {', '.join(p.name for p in pats) or '-'}")
        out.append(f"patterns as bits (rank order: higher points first, then declared first); "
                   f"makes_win mask {bulk.makes_win:#x}:")
        for i, p in enumerate(bulk.patterns):
            excl = bulk.excludes_ranked[i]
            rank = self._tier_rank.get(p.tier) if p.tier is not None else None
            tier = "" if rank is None else f" tier {rank}"
            names = ", ".join(q.name for j, q in enumerate(bulk.patterns) if excl >> j & 1)
            out.append(f"  bit {i:3d} {p.name}: {p.points} pt, reading level {self._level[p]}{tier}"
                       + (f"; excludes {excl:#x} ({names})" if excl else ""))
        if self._tier_rank:
            out.append(f"tiers (only the first that matched counts): {', '.join(self._tier_rank)}")
        comb = "product" if self._product else "sum"
        out.append(f"combine: {comb}; by pay: {self._by_pay}; win.require: "
                   f"{'yes' if self._win_require else 'no'}; minimum: {rs.scoring.minimum}")
        if self._fixed:
            out.append(f"fixed wildcards: {' '.join(tile_name(t) for t in self._fixed)}")
        out.append("payment plans (payer: base × times + plus), seat 0 the dealer:")
        for win_by, winner, discarder in (("self_draw", 0, None), ("self_draw", 1, None),
                                          ("discard", 0, 1), ("discard", 1, 0), ("discard", 1, 2)):
            if not rs.win.allows(win_by):
                continue
            plan = st.win_plan(rs, winner=winner, dealer=0, win_by=win_by, discarder=discarder)
            pays = ", ".join(f"{p}: ×{t}+{b}" for p, t, b in plan) or "nobody"
            by = "self-draw" if discarder is None else f"discard by {discarder}"
            out.append(f"  seat {winner} wins by {by}: {pays}")
        return "\n".join(out)


def _shape_text(s: Shape) -> str:
    parts = [s.kind] + [f"{k}={v}" for k, v in (("melds", s.melds), ("pair", s.pair), ("pairs", s.pairs))
                        if v]
    return " ".join(parts)


def _partial_exclusions(counted: list[tuple[Pattern, int]], m: Measures) -> list[tuple[Pattern, int]]:
    """Apply ``excludes`` entries with ``times`` (that many fewer) or ``shared`` (the groups the
    excluding pattern counts are not counted again by the excluded one)."""
    names = {p.name for p, n in counted if n > 0}
    fewer: dict[str, int] = {}
    shared: dict[str, set[int]] = {}
    for p, n in counted:
        if n <= 0:
            continue
        for e in p.partial_excludes:
            if e.name not in names:
                continue
            if e.times is not None:
                fewer[e.name] = fewer.get(e.name, 0) + e.times
            if e.shared and p.groups is not None:
                shared.setdefault(e.name, set()).update(m.group_indices(p.groups))
    out = []
    for p, n in counted:
        if p.name in shared and p.groups is not None and p.times_per == "groups":
            n = len(m.group_indices(p.groups) - shared[p.name]) // p.times_every
        elif p.name in shared:
            n = 0 if shared[p.name] else n
        n -= fewer.get(p.name, 0)
        out.append((p, max(n, 0)))
    return out


def compile_ruleset(ruleset: Ruleset) -> CompiledRuleset:
    """The ruleset compiled for scoring (what :class:`~.scoring.Evaluator` extends)."""
    return CompiledRuleset(ruleset)
