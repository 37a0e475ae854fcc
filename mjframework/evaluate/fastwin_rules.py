"""Compiling a :class:`~.fastwin.WinScreen`'s rules from the patterns (moved out of :mod:`.fastwin`).

Everything here runs once, when a screen is built: the acceptance rules per shape
(:meth:`RuleCompiler._accept_rules`), the sure wins under a minimum to win
(:meth:`RuleCompiler._minimum_rules`), whether waits imply shapes, and the measures,
tile-filter getters and quick shape tests those rules are made of. The screen's
per-hand methods (:mod:`.fastwin`) only apply what is compiled here.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import MISSING, fields, replace
from itertools import pairwise
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from ..core.hand import Meld
from ..core.kinds import CLAIMED_MELDS
from ..core.tiles import HONOR_BASE, NUM_KINDS, Tile
from ..rules.model import Count, Pattern, Shape, TileFilter, When
from .patterns import shape_matches
from .readings import KNITTED_STRAIGHTS

if TYPE_CHECKING:  # pragma: no cover
    from .scoring import Evaluator


# Fields of a pattern that an acceptance rule may leave at any value: what it is called and
# pays, its shapes, and the requirements the rule itself checks (``counts`` on the measures
# below, ``pair``). Every other field must have its default, so a requirement kind added to
# :class:`~.model.Pattern` later is never skipped over: it makes the pattern ineligible.
_RULE_FIELDS = frozenset({"name", "points", "index", "tier", "phase", "shapes", "counts", "pair",
                          "excludes", "partial_excludes", "description", "en", "example",
                          "counts_to_minimum", "reads_groups"})


# The fields a sure-win rule under a minimum (WinScreen._minimum_rules) may set: the rule
# fields and the tile filters over every tile; the rest checked there or left at the default.
_SURE_FIELDS = _RULE_FIELDS | {"all_tiles", "no_tiles", "times_per", "times_every", "sets", "fallback",
                               "when", "waits", "shapes"}


# Measures (:class:`~.patterns.Measures`) an acceptance rule can check without a reading:
# ``name: (function, needs natural tiles only, bounds it can judge)``. A function gets the
# concealed-side counts with the winning tile, the counts of every tile of the hand (melds
# too), the suits in the tile set, the wildcards, the wildcards held, and the melds. The
# wildcard counts and the claimed melds never depend on the reading; the tile measures do
# not when no wildcard and no stand-in is among the concealed tiles (each tile is read as
# itself). ``sequences`` does depend on the reading, but "some reading has none" is decided
# by the counts: then it is 0, else 1 (so only ``max: 0`` can be judged by it).
_Measure = Callable[[Sequence[int], Sequence[int], int, int, int, Sequence[Meld]], int]


# A check of an acceptance rule: (measure, bounds, needs natural tiles only); a sure win
# under a minimum: its (measure, bounds) checks and the getter of the tiles it bans (or None).
_Check = tuple[_Measure, Count, bool]
_SureRule = tuple[tuple[tuple[_Measure, Count], ...], Callable[[Sequence[int]], tuple[int, ...]] | None]


_ANY: Callable[[Count], bool] = lambda cnt: True  # noqa: E731


def _suits(c: Sequence[int]) -> int:
    return any(c[0:9]) + any(c[9:18]) + any(c[18:27])


def _no_sequence_reading(c: Sequence[int], melds: Sequence[Meld]) -> int:
    """0 when some standard reading has no sequence (no chow meld; the concealed side is
    triplets and one pair: every count 3 but one 2), else 1. Natural tiles only."""
    if any(m.kind == "chow" for m in melds):
        return 1
    return 0 if c.count(2) == 1 and 3 * c.count(3) + 2 == sum(c) else 1


_CLAIMED = frozenset(m.value for m in CLAIMED_MELDS)  # (plain str: compared in the hot path)


_MEASURES: dict[str, tuple[_Measure, bool, Callable[[Count], bool]]] = {
    "wildcards": (lambda c, f, n, w, wh, ms: w, False, _ANY),
    "wildcards_held": (lambda c, f, n, w, wh, ms: wh, False, _ANY),
    "claimed_melds": (lambda c, f, n, w, wh, ms: sum(1 for m in ms if m.kind in _CLAIMED), False, _ANY),
    "honors": (lambda c, f, n, w, wh, ms: sum(f[HONOR_BASE:]), True, _ANY),
    "distinct_honors": (lambda c, f, n, w, wh, ms: sum(1 for x in f[HONOR_BASE:] if x), True, _ANY),
    "suits": (lambda c, f, n, w, wh, ms: _suits(f), True, _ANY),
    "missing_suits": (lambda c, f, n, w, wh, ms: n - _suits(f), True, _ANY),
    "sets_of_four": (lambda c, f, n, w, wh, ms: sum(1 for x in f if x >= 4), True, _ANY),
    "sets_of_three": (lambda c, f, n, w, wh, ms: sum(1 for x in f if x >= 3), True, _ANY),
    "distinct_kinds": (lambda c, f, n, w, wh, ms: sum(1 for x in f if x), True, _ANY),
    "sequences": (lambda c, f, n, w, wh, ms: _no_sequence_reading(c, ms), True,
                  lambda cnt: cnt.max == 0 and not cnt.min),
}


#: One rule, from one win-making pattern: the pair kinds it allows (None: any); its checks on
#: measures, each with "needs natural tiles only"; whether the rule is the pattern's whole
#: requirement (else its checks are only necessary ones); whether its holding is a sure win.
Rule = tuple[frozenset[Tile] | None, tuple[tuple[_Measure, Count, bool], ...], bool, bool]


def _only_rule_fields(p: Pattern, allowed: frozenset[str] = _RULE_FIELDS) -> bool:
    """Is every field of ``p`` outside ``allowed`` at its default?"""
    for f in fields(Pattern):
        if f.name in allowed:
            continue
        if f.default is not MISSING:
            default: Any = f.default
        elif f.default_factory is not MISSING:
            default = f.default_factory()
        else:
            return False  # a required field the rules know nothing about
        if getattr(p, f.name) != default:
            return False
    return True


def _reads_winds(f: TileFilter) -> bool:
    """Does the filter depend on the win's winds (``wind``, also inside ``any_of``)?"""
    return f.wind is not None or any(_reads_winds(g) for g in f.any_of or ())


def _getter(kinds: Collection[Tile]) -> Callable[[Sequence[int]], tuple[int, ...]]:
    """The counts of ``kinds`` as a tuple, in one C call (``operator.itemgetter``)."""
    ks = sorted(kinds)
    if not ks:
        return lambda c: ()
    if len(ks) == 1:
        k = ks[0]
        return lambda c: (c[k],)
    return itemgetter(*ks)


#: :func:`_slack` of a shape with no bound on repeated kinds (its quick test is not monotone).
_NO_SLACK = 1 << 30


def _slack(shape: Shape) -> int:
    """How many natural tiles a reading of ``shape`` may hold beyond the first of their kind.

    Knitted shapes are all singles (0); thirteen-orphans style shapes hold one pair at most
    (1), see :mod:`.readings`. Reading the stand-ins or wildcards as kinds only adds tiles, so
    a hand over the slack fits no reading. For these two kinds of shape the quick test of
    :func:`_precheck` is monotone too (more tiles never pass it where fewer failed);
    :data:`_NO_SLACK` for every other shape.
    """
    if shape.kind == "knitted":
        return 0
    if shape.kind == "orphans":
        return 1
    return _NO_SLACK


def _precheck(shape: Shape) -> Callable[[bytes, int], bool]:
    """A quick necessary test (natural counts, concealed-side size) before a rare shape's generic check.

    With stand-ins held it is asked of each way of reading them (:meth:`WinScreen._splits`).
    """
    if shape.kind == "knitted":
        gap = shape.min_gap
        ok_blocks = set()
        for mask in range(512):
            ranks = [r for r in range(9) if mask >> r & 1]
            if all(b - a >= gap for a, b in pairwise(ranks)):
                ok_blocks.add(bytes((mask >> r) & 1 for r in range(9)))

        def knitted(b: bytes, n: int) -> bool:
            if n != 14:
                return False
            return (b[:9] in ok_blocks and b[9:18] in ok_blocks and b[18:27] in ok_blocks
                    and max(b[27:]) <= 1)
        return knitted
    if shape.kind == "orphans":
        size = len(shape.orphans) + 1
        # The kinds outside the shape, as runs of consecutive kinds: a run holds no tile when
        # its slice of the counts equals zero bytes (a few C calls, not one per kind).
        outside = [k for k in range(NUM_KINDS) if k not in set(shape.orphans)]
        runs: list[tuple[int, int, bytes]] = []
        for k in outside:
            if runs and runs[-1][1] == k:
                runs[-1] = (runs[-1][0], k + 1, bytes(k + 1 - runs[-1][0]))
            else:
                runs.append((k, k + 1, bytes(1)))

        def orphans(b: bytes, n: int) -> bool:
            if n != size:
                return False
            for a, z, zero in runs:  # noqa: SIM110 (a loop: cheaper than all() of a generator)
                if b[a:z] != zero:
                    return False
            return True
        return orphans
    if shape.kind == "knitted_straight":
        straights = [itemgetter(*ks) for ks in KNITTED_STRAIGHTS]

        def knitted_straight(b: bytes, n: int) -> bool:
            # nine distinct suited kinds at least, then one of the six straights held
            return b[:27].count(0) <= 18 and any(all(g(b)) for g in straights)
        return knitted_straight
    return lambda b, n: True


class RuleCompiler:
    """:class:`~.fastwin.WinScreen`'s compile-time methods (a base class: called once per
    screen, from its ``__init__``)."""

    ev: Evaluator
    kinds: tuple[Tile, ...]
    exact: set[tuple[str, int]]

    def _accept_rules(self) -> dict[tuple[str, int], list[Rule]]:
        """Per standard shape (by melds) and pairs shape (by pairs): rules, from the patterns
        that make fitting it a win by the tiles alone; and (``self.exact``) the shapes whose
        every win-making pattern has a rule, so that no rule holding means no win by them.

        A pattern qualifies when it applies in every context, needs no wait, and
        requires nothing but a filter on the pair and/or bounds on hand measures
        that need no reading (:data:`_MEASURES`: wildcards always; missing suits,
        honors … when no wildcard is involved). Then, on a hand that fits the
        shape, the measures are computed once from the tile counts and the pair
        kinds tried from the table: if some rule
        holds, the generic path would match the pattern on some reading — and
        nothing can take it away again: the ruleset has no minimum to win, no
        pattern excludes it (wholly or in part), it is in the highest tier (or
        there are no tiers) and it counts once — or, more generally, no matched
        win-making pattern can end up without a win (:meth:`_wins_stick`).
        Otherwise the hand is scored.
        """
        ev = self.ev
        rs = ev.ruleset
        if rs.scoring.minimum is not None or rs.win_require:  # (points or `win.require` decide)
            self.exact = set()
            return {}
        named: set[str] = set()
        for p in ev.win_patterns:
            named |= p.excludes
            named |= {e.name for e in p.partial_excludes}
        top = rs.scoring.tiers[0] if rs.scoring.tiers else None
        stick = self._wins_stick()
        out: dict[tuple[str, int], list[Rule]] = {}
        exact_by: dict[tuple[str, int], bool] = {}
        for s, cands in ev._by_shape:
            if s.kind == "standard" and s.pair == 1:
                key = ("standard", s.melds)
            elif s.kind == "pairs":
                key = ("pairs", s.pairs)
            else:
                continue
            exact = True
            for p in cands:
                if not p.makes_win or any(x.kind == "free" for x in p.shapes):
                    continue  # bonus patterns; free-shaped ones are the free check's (_verdict)
                kinds, checks, whole = self._rule(p, s)
                if not checks and not whole:
                    exact = False  # nothing the tiles alone can tell
                    continue
                safe = stick or (p.name not in named and (top is None or (p.tier or top) == top))
                accepts = whole and safe
                out.setdefault(key, []).append((kinds, checks, whole, accepts))
            exact_by[key] = exact_by.get(key, True) and exact  # (shapes that differ in nothing read)
        self.exact = {k for k, v in exact_by.items() if v}
        return out

    def _minimum_rules(self) -> tuple[list[_SureRule],
                                      set[int], set[int]]:
        """Sure wins for a ruleset with a minimum to win (``scoring.minimum``), without scoring.

        With a minimum, fitting a shape is not a win: the points decide, so :meth:`_accept_rules`
        has no rule and such hands are scored. But a hand meets the minimum for sure when a
        pattern P holds on every reading and cannot end up uncounted. Returns the rules
        ``(checks, getter of the kinds P's tile filters rule out)``, and the standard shapes
        (by melds) and pairs shapes (by size in tiles) they apply to: those that a
        requirement-free, context-free shaped pattern makes a reading of (so some reading is
        judged at all; a ``fallback`` one counts too: it matches like any other). P qualifies
        when:

        * it is a bonus pattern (no shape: judged on every reading some shaped pattern wins)
          with no ``when`` and no wait, and requires only bounds on the measures of
          :data:`_MEASURES` and ``all_tiles`` / ``no_tiles`` filters that don't read the
          winds — all decided by the natural tiles when no wildcard or stand-in is held
          (every reading holds the same tiles);
        * it counts once toward the minimum with at least the minimum (no ``times``, no set
          combination, not a fallback), and so does every pattern that may exclude it, and
          every pattern that may exclude one of those, …; no partial exclusion with ``times``
          or ``shared`` names any of them. With ``exclusions: ranked`` the highest-ranked
          matched pattern of that chain is kept (a pattern that excludes it would rank higher
          and be in the chain), so the reading's points toward the minimum reach it;
        * the ruleset adds points (``combine: sum``, no tiers, no negative points), so the
          other patterns only add; and the best reading, whichever it is, holds P.
        """
        ev = self.ev
        sc = ev.ruleset.scoring
        pats = ev.win_patterns
        minimum = sc.minimum
        if (minimum is None or sc.combine != "sum" or sc.exclusions != "ranked" or sc.tiers
                or ev.ruleset.win_require or any(p.points < 0 for p in pats)):
            return [], set(), set()
        excluders: dict[str, set[str]] = {}
        for q in pats:
            for x in (*q.excludes, *(e.name for e in q.partial_excludes)):
                excluders.setdefault(x, set()).add(q.name)
        reduced = {e.name for q in pats for e in q.partial_excludes if e.times is not None or e.shared}
        by_name = {p.name: p for p in pats}

        def counts_fully(p: Pattern) -> bool:
            return (p.points >= minimum and p.counts_to_minimum and p.times_per is None and p.sets is None
                    and not p.fallback and p.name not in reduced)

        def chain_counts(name: str, seen: set[str]) -> bool:
            for x in sorted(excluders.get(name, ())):
                if x not in seen:
                    seen.add(x)
                    q = by_name.get(x)
                    if q is None or not counts_fully(q) or not chain_counts(x, seen):
                        return False
            return True

        rules: list[_SureRule] = []
        for p in pats:
            if (p.shapes or p.waits or p.when != When() or not counts_fully(p)
                    or not chain_counts(p.name, {p.name})
                    or any(getattr(p, f) is not None
                           for f in ("pair", "every_group", "any_group", "groups", "win_wait", "held_ranks"))
                    or any(n not in _MEASURES for n, _ in p.counts)
                    or any(f is not None and _reads_winds(f) for f in (p.all_tiles, p.no_tiles))
                    or not _only_rule_fields(p, _SURE_FIELDS)):
                continue
            banned = {t for t in range(NUM_KINDS)
                      if (p.all_tiles is not None and not p.all_tiles.match(t))
                      or (p.no_tiles is not None and p.no_tiles.match(t))}
            checks = tuple((_MEASURES[n][0], cnt) for n, cnt in p.counts)
            rules.append((checks, _getter(banned) if banned else None))
        if not rules:
            return [], set(), set()
        # (a fallback pattern matches like any other; only its counting depends on the rest)
        bare = [q for q in pats if q.shapes and q.when == When() and not q.waits
                and not replace(q, fallback=False).has_requirements]
        base = [s for s in ev.shapes if any(shape_matches(q.shapes, s) for q in bare)]
        return (rules, {s.melds for s in base if s.kind == "standard" and s.pair == 1},
                {2 * s.pairs for s in base if s.kind == "pairs"})

    def _rule(self, p: Pattern, s: Shape) -> tuple[frozenset[Tile] | None, tuple[_Check, ...], bool]:
        """``p`` on shape ``s`` as (pair kinds, checks, whole): the checks on measures the tiles
        decide, and whether they (with the pair kinds) are all ``p`` requires — not so where
        it also reads the context, a wait, groups …; then the checks are necessary only."""
        whole = bool(p.shapes) and _only_rule_fields(p)
        checks: list[_Check] = []
        for n, cnt in p.counts:
            m = _MEASURES.get(n)
            if m is None or not m[2](cnt) or (n == "sequences" and s.kind != "standard"):
                whole = False
            else:
                checks.append((m[0], cnt, m[1]))
        kinds: frozenset[Tile] | None = None
        if whole and p.pair is not None and (s.kind == "standard" or s.pairs == 1):
            # (a pairs reading of more than one pair has no single pair to judge)
            if s.kind != "standard" or _reads_winds(p.pair) or any(n == "sequences" for n, _ in p.counts):
                whole = False
            else:
                kinds = frozenset(t for t in self.kinds if p.pair.match(t))
        return kinds, tuple(checks), whole

    def _wins_stick(self) -> bool:
        """Is every reading on which some win-making pattern matches scored as a win?

        :meth:`~.scoring.Evaluator._combine` gives no result only when nothing is
        left to count: every matched pattern excluded, or counted zero times. With
        ranked exclusions the best-paying match always stays; otherwise an acyclic
        ``excludes`` relation leaves some match unexcluded; tiers keep the highest
        tier that matched. So a win sticks when, besides, there is no minimum, no
        partial exclusion, no once-only set combination, and every pattern counted
        ``times`` requires at least one count of what it is counted by.
        """
        ev = self.ev
        sc = ev.ruleset.scoring
        pats = ev.win_patterns
        if sc.minimum is not None or ev.ruleset.win_require or any(p.partial_excludes or p.fallback
                                                                    for p in pats):
            return False
        if sc.set_combinations == "once" and any(p.sets is not None for p in pats):
            return False
        for p in pats:
            if p.times_per is None:
                continue
            if p.times_per == "groups":
                least = p.groups_count.min if p.groups is not None and p.groups_count is not None else None
            else:
                least = max((c.min for n, c in p.counts if n == p.times_per and c.min is not None),
                            default=None)
            if least is None or least < p.times_every:
                return False
        if sc.exclusions == "ranked":
            return True
        # Non-ranked: the excludes relation between patterns must have no cycle.
        by_name = {p.name: p for p in pats}
        state: dict[str, int] = {}  # 1: on the path, 2: done

        def acyclic(name: str) -> bool:
            st = state.get(name)
            if st is not None:
                return st == 2
            state[name] = 1
            q = by_name.get(name)
            ok = q is None or all(acyclic(x) for x in sorted(q.excludes))
            state[name] = 2 if ok else 1
            return ok
        return all(acyclic(p.name) for p in pats)

    def _waits_imply_shapes(self) -> bool:
        """Does every free-wildcard wait, when it holds, make its completed shape fit?

        True for the waits whose free wildcards (with the winning tile) form
        exactly one group: 1 free + melds only (the pair), 2 free + melds and
        a pair (a meld), 1 free + pairs (a pair). Then "no shape fits" already
        rules the waits out; otherwise they are checked one by one.
        """
        for p in self.ev.wait_patterns:
            for w in p.waits:
                r, k = w.rest, w.free_wildcards
                if not ((r.kind == "standard" and ((r.pair == 0 and k == 1) or (r.pair == 1 and k == 2)))
                        or (r.kind == "pairs" and k == 1)):
                    return False
        return True
