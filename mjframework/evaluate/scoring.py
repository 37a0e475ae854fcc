"""Scoring a hand under a ruleset: readings × patterns → the best-paying result.

The flow of :meth:`Evaluator.score`:

1. the win must be allowed (``win:`` section; a wildcard is never won on a
   discard);
2. wait patterns are judged once, on the 13 tiles held and the winning tile;
3. the readings of the 14 tiles under every shape the patterns use are
   judged: shaped patterns on their shape, bonus patterns on any reading that
   is already a win, wait patterns on every reading. With wildcards, only the
   readings that can decide the result are searched (:meth:`Evaluator._search`:
   patterns no reading meets are dropped, a shape no remaining pattern reads is
   judged on one reading, the search stops at the best result possible, and
   groups of wildcards alone are read per class of kinds); the result is the
   one every reading gives (``tests/slow_reference.py`` keeps that search);
4. exclusions, then tiers (only the highest tier that matched counts), then
   ``combine`` (the highest single pattern, or the sum);
5. the reading that pays the winner most is chosen (:meth:`Evaluator.order`: by points, or
   with ``value: table`` by the table's amount); equal pay is decided by the ruleset's
   ``scoring.ties`` (:meth:`Evaluator.tie_key`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pluggy

from ..core.errors import HandError
from ..core.hand import Hand, Meld, WinContext, check_context, check_hand
from ..core.tiles import NUM_KINDS, Tile, is_honor, tile_code, tile_name
from ..hooks.registry import call_hook, hook_is_live, make_plugin_manager
from ..rules.model import Pattern, Ruleset, Shape
from ..settle import bonus, laid
from ..settle import settlement as st
from . import readiness, search, settler
from .bounds import _Bounds
from .compiler import CompiledRuleset
from .fastwin import WinScreen
from .patterns import (
    HandFacts,
    Measures,
    context_holds,
    requirements_hold,
    times,
    when_holds,
)
from .readings import FreeKinds, Reading, Tiles, readings
from .results import Result as Result
from .results import Score as Score
from .results import ScoredPattern as ScoredPattern
from .waits import shape_possible, wait_holds


class Evaluator(CompiledRuleset):
    """Scores hands of one ruleset: the thin scorer over its :class:`~.compiler.CompiledRuleset`,
    with the memos it fills as it scores, and the ruleset's plugins. Create once per ruleset and
    reuse."""

    def __init__(self, ruleset: Ruleset, pm: pluggy.PluginManager | None = None) -> None:
        super().__init__(ruleset)
        self.pm = pm if pm is not None else make_plugin_manager(ruleset.plugins)
        self._context_cache: dict[tuple, tuple[list[tuple[Shape, list[Pattern]]], frozenset[str]]] = {}
        # (id of a context's per-shape list, the wait patterns whose wait holds) -> the shapes
        # and patterns _score judges (the lists are kept by _context_cache, so ids stay theirs).
        self._todo: dict[tuple[int, frozenset[str]], list[tuple[Shape, list[Pattern]]]] = {}
        self._screen: WinScreen | None = None
        self._free_cache: dict[tuple, FreeKinds] = {}
        self._scored: dict[tuple[Pattern, int], ScoredPattern] = {}  # _finish's, per (pattern, times)
        self._ceilings: dict[tuple, tuple | None] = {}  # _ceiling's, per (fixed, maybe) patterns
        # Win payment plans per seat arrangement (settle): a few per table.
        self._pay_plans: dict[tuple, tuple[tuple[int, int, int], ...]] = {}

    @property
    def screen(self) -> WinScreen:
        """The table-level fast paths of :meth:`is_win` / :meth:`waits` (compiled on first use)."""
        if self._screen is None:
            self._screen = WinScreen(self)
        return self._screen

    # -- inputs ------------------------------------------------------------

    def context_inputs(self) -> dict[str, dict[str, Any]]:
        """The context keys the ruleset's plugins read (``mj_context_inputs``)."""
        out: dict[str, dict[str, Any]] = {}
        for d in call_hook(self.pm, "mj_context_inputs"):
            out.update(d or {})
        if any(lk.double for lk in self.ruleset.laid_kongs):
            out[laid.LAID_KEY] = {"description": "per seat, the kongs laid aside that double its payments"}
        rule = self.ruleset.bonus_tiles
        if rule is not None:
            out[bonus.CONTEXT_KEY] = {"tiles": True, "max": rule.most,
                                      "description": f"the {rule.name} turned up for the settlement (tiles)"}
        return out

    def check_context_inputs(self, extra: dict[str, Any]) -> dict[str, Any]:
        """``extra`` (context given by hand), checked against what the plugins declare.

        Raises :class:`HandError` for an unknown key, a value that isn't tiles
        where tiles are read, a tile outside the tile set, or too many tiles.
        """
        known = self.context_inputs()
        for key, value in extra.items():
            spec = known.get(key)
            if spec is None:
                reads = f"this ruleset reads: {', '.join(sorted(known))}" if known else \
                    "no plugin of this ruleset reads any context"
                raise HandError(f"unknown context key {key!r} ({reads})")
            if key == laid.LAID_KEY and not (
                    isinstance(value, list) and len(value) == self.ruleset.players
                    and all(isinstance(n, int) and not isinstance(n, bool) and 0 <= n <= 8 for n in value)):
                raise HandError(f"context {key}: give one count (0–8) per seat, like [0, 1, 0, 0]")
            if spec.get("tiles"):
                if not isinstance(value, list) or not all(isinstance(t, int) for t in value):
                    raise HandError(f"context {key}: give tiles, like '3m 4s'")
                for t in value:
                    if t not in self.ruleset.tileset:
                        raise HandError(f"context {key}: {tile_name(t)} is not in this ruleset's tile set")
                limit = spec.get("max")
                if isinstance(limit, int) and len(value) > limit:
                    raise HandError(f"context {key}: at most {limit} tile(s) in this ruleset, "
                                    f"not {len(value)}")
        return extra

    # -- scoring -------------------------------------------------------------

    def score(self, hand: Hand, ctx: WinContext, wildcard: Tile | None = None) -> Score:
        """Judge a winning attempt. Raises :class:`HandError` for impossible hands."""
        check_context(ctx, self.ruleset.players, self.ruleset.flags)
        check_hand(hand, self.ruleset, wildcard)
        for m in hand.melds:
            if m.from_seat is not None and m.from_seat >= self.ruleset.players:
                raise HandError(f"meld {m}: there is no seat {m.from_seat} at a table of "
                                f"{self.ruleset.players}")
            if m.from_seat is not None and m.from_seat == ctx.seat:
                raise HandError(f"meld {m}: claimed from seat {m.from_seat}, the winner's own seat")
            if m.kind == "kong" and m.from_seat is None:
                raise HandError(f"meld {m}: a claimed kong needs its discarder: "
                                f"'kong {tile_code(m.tiles[0])} from SEAT'")
        if hand.win_tile is None:
            raise HandError("a win needs a winning tile")
        if self._screen is not None:  # the game asks is_win first, then scores the same win
            again = self._screen.scored_before(hand, ctx, wildcard)
            if again is not None:
                return again
        return self._score(hand, ctx, wildcard)

    def void_refuses(self, hand: Hand, ctx: WinContext) -> bool:
        """The ruleset's declared void suit (``declarations.void_suit`` without
        ``win_holding``) is in ``ctx.seat_state`` and the hand holds a tile of it."""
        rule = self.ruleset.flow.void_suit
        if rule is None or rule.win_holding:
            return False
        void = ctx.seat_state.get("void_suit") if ctx.seat_state else None
        if void not in ("m", "p", "s"):
            return False
        suit = "mps".index(void)
        return any(not is_honor(t) and t // 9 == suit for t in hand.all_tiles)

    def score_readings(self, hand: Hand, ctx: WinContext, wildcard: Tile | None = None) -> list[Score]:
        """Every reading of the hand that some pattern makes a win, scored, best first (the
        first is what :meth:`score` picks). For tools that show the alternatives, and for
        telling readings of equal points apart."""
        check_context(ctx, self.ruleset.players, self.ruleset.flags)
        check_hand(hand, self.ruleset, wildcard)
        every: list[tuple] = []
        self._score(hand, ctx, wildcard, every)
        every.sort(key=lambda x: x[0])
        return [self._finish(reading, picked, points, wildcard) for _k, reading, picked, points in every]

    def _finish(self, reading: Reading, picked: list[tuple[Pattern, int]], points: int,
                wildcard: Tile | None) -> Score:
        # ScoredPattern is immutable: one per (pattern, times), shared by every result.
        made = self._scored
        scored = []
        for p, n in (sorted(picked, key=_by_index) if len(picked) > 1 else picked):
            sp = made.get((p, n))
            if sp is None:
                sp = made[p, n] = ScoredPattern(p.name, p.points, n, p.en)
            scored.append(sp)
        sc = self.ruleset.scoring
        capped = sc.capped(points) if not self._after_cap else self._capped_after(picked)
        if sc.minimum is None:
            return Score(True, reading=reading, patterns=scored, points=capped, wildcard=wildcard,
                         uncapped=points)
        judged = self._combined([(p, n) for p, n in picked if p.counts_to_minimum])
        if judged < sc.minimum:
            return Score(False, f"{judged} point(s) ({'+'.join(x.name for x in scored)}): below the "
                         f"minimum of {sc.minimum} to win", reading=reading, patterns=scored,
                         points=points, wildcard=wildcard, uncapped=points)
        return Score(True, reading=reading, patterns=scored, points=capped, wildcard=wildcard,
                     uncapped=points)

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

    def _score(self, hand: Hand, ctx: WinContext, wildcard: Tile | None,
               every: list[tuple] | None = None) -> Score:
        if wildcard is None:
            wildcard = self._default_wild
        if not self.ruleset.win.allows(ctx.win_by):
            return Score(False, f"this ruleset has no win by {ctx.win_by}", wildcard=wildcard)
        if self._void_rule and self.void_refuses(hand, ctx):
            return Score(False, f"the hand holds its declared void suit ({ctx.seat_state['void_suit']})",
                         wildcard=wildcard)
        if self._fixed:
            win_wild = self._is_wild(hand.win_tile, wildcard)
        else:
            win_wild = wildcard is not None and hand.win_tile == wildcard
        if win_wild and ctx.win_by != "self_draw" and not self._wild_claims:
            return Score(False, "a wildcard can't be won on a discard", wildcard=wildcard)
        if ctx.win_by == "discard" and hand.win_tile in self.ruleset.claims.never_kinds:
            return Score(False, f"{tile_name(hand.win_tile)} is never claimed: no win on its discard",
                         wildcard=wildcard)
        held = self.split(hand.concealed, wildcard)
        facts = HandFacts(
            wildcards=held.wilds + win_wild,
            wildcards_held=held.wilds,
            win_tile_wild=win_wild,
            suits_in_set=self._suits_in_set,
            win_tile=hand.win_tile,
            winds=ctx.winds(self.ruleset.players),
            flowers=ctx.flowers,
            held=tuple(hand.concealed),
            melds=len(hand.melds),
            won_on_discard=ctx.win_by != "self_draw",
            won_triplet_exposed=self.ruleset.scoring.won_triplet == "exposed",
            waiting=_once(lambda: self.waiting_tiles(hand.concealed, hand.melds, wildcard)),
            wild_kinds=self.wild_kinds(wildcard) if self._fixed else None,
            ctx=ctx if self._win_require else None,
            refused=[] if self._win_require else None,
        )
        exposed = len(hand.melds)
        # The context is the same for every reading: the patterns fit for it, per shape.
        by_shape, active = self._for_context(ctx, facts)
        waits_ok: frozenset[str] = frozenset()
        if held.wilds >= self._fewest_free:  # (a wait needs that many wildcards held)
            # Patterns often share a wait: each judged once (by identity: hashing a wait,
            # a nested dataclass, costs more than judging it twice when two are equal).
            held_waits: dict[int, bool] = {}
            for p in self.wait_patterns:
                if p.name in active:
                    for w in p.waits:
                        if id(w) not in held_waits:
                            held_waits[id(w)] = wait_holds(held, exposed, w)
            waits_ok = frozenset(p.name for p in self.wait_patterns
                                 if p.name in active and any(held_waits[id(w)] for w in p.waits))
        assert hand.win_tile is not None  # a win's hand (an opening hand is scored elsewhere)
        # The 14 tiles split as split() would: the held tiles' split plus the winning tile.
        win = hand.win_tile
        if win_wild:
            full = Tiles(held.counts, held.wilds + 1, held.stand_ins, held.stand_in_tile, held.wildcard)
        elif win == held.stand_in_tile:
            full = Tiles(held.counts, held.wilds, held.stand_ins + 1, held.stand_in_tile, held.wildcard)
        else:
            c = list(held.counts)
            c[win] += 1
            full = Tiles(tuple(c), held.wilds, held.stand_ins, held.stand_in_tile, held.wildcard)
        shapes = self._todo.get((id(by_shape), waits_ok))
        if shapes is None:
            # Per shape, the patterns to judge on its readings (wait patterns whose wait
            # holds); a shape none of whose patterns makes a win is left out. The same for
            # every hand of this context and these waits.
            shapes = []
            for shape, candidates in by_shape:
                todo = [p for p in candidates if not p.waits or p.name in waits_ok]
                if any(p.makes_win for p in todo):
                    shapes.append((shape, todo))
            self._todo[id(by_shape), waits_ok] = shapes
        best: tuple | None = None
        if every is None and not (full.wilds or full.stand_ins):
            # No wildcard: every reading of each shape is judged (there are few, from the
            # per-block tables); a standard shape no reading fits has none, so it needs no
            # pre-check.
            for shape, todo in shapes:
                if shape.kind != "standard" and not self._could_be(full, hand, shape):
                    continue
                for reading in readings(full, hand.melds, shape, self.kinds):
                    result = self._judge(reading, todo, facts, wildcard)
                    if result is None:
                        continue
                    points, picked = result
                    key = (self.order(points), self.tie_key(picked))
                    if best is None or key < best[0]:
                        best = (key, reading, picked, points)
            if best is None:
                return Score(False, self._no_win_reason(facts), wildcard=wildcard)
            _, reading, picked, points = best
            return self._finish(reading, picked, points, wildcard)
        bounds: _Bounds | None = None  # of the measures over every reading (made when needed)
        for shape, todo in shapes:
            if not self._could_be(full, hand, shape):
                continue
            keys: dict[Tile, int] | None = None
            ceiling: tuple | None = None
            free: FreeKinds | None = None
            known: tuple[Reading, tuple | None] | None = None  # a reading _search judged already
            found: list[Reading] | None
            if every is not None or not (full.wilds or full.stand_ins):
                # every reading: for tools that list them; without wildcards, there are few
                found = readings(full, hand.melds, shape, self.kinds)
            else:
                if bounds is None:
                    bounds = _Bounds(full, hand, self.wild_kinds(wildcard), facts.suits_in_set, self.shapes)
                todo, settled = search.possible(self, todo, bounds, facts, shape)
                if not any(p.makes_win for p in todo):
                    continue
                found, keys, ceiling, free, known = search.search(self, full, hand, shape, todo, settled,
                                                                  facts, wildcard, bounds)
            judged: set[tuple] = set()
            wild = self.wild_kinds(wildcard)

            def consider(reading: Reading, todo: list[Pattern] = todo, keys: dict[Tile, int] | None = keys,
                         ceiling: tuple | None = ceiling, judged: set[tuple] = judged,
                         wild: frozenset[Tile] = wild, known: tuple[Reading, tuple | None] | None = known
                         ) -> bool:
                """Judge one reading; True when no other reading of the shape can do better."""
                nonlocal best
                if keys is not None:
                    # Readings alike for every pattern judged (the same groups, each tile's
                    # class in place of the tile; where each tile comes from only in groups
                    # holding a wild kind, the only ones where a measure of this level reads it)
                    # judge alike: judge one of them.
                    sig = tuple(sorted((g.kind, g.meld or "", g.sources if wild.intersection(g.tiles) else (),
                                        tuple([keys[t] for t in g.tiles])) for g in reading.groups))
                    if sig in judged:
                        return False
                    judged.add(sig)
                if known is not None and (reading is known[0] or reading.groups == known[0].groups):
                    result = known[1]  # (the same groups of the same shape: judged alike)
                else:
                    result = self._judge(reading, todo, facts, wildcard)
                if result is None:
                    return False
                points, picked = result
                key = (self.order(points), self.tie_key(picked))
                if every is not None:
                    every.append((key, reading, picked, points))
                if best is None or key < best[0]:
                    best = (key, reading, picked, points)
                return key == ceiling

            if found is None:  # searched as the readings are found, up to the ceiling
                readings(full, hand.melds, shape, self.kinds, free=free, visit=consider)
            else:
                for reading in found:
                    if consider(reading):
                        break
        if best is None:
            return Score(False, self._no_win_reason(facts), wildcard=wildcard)
        _, reading, picked, points = best
        return self._finish(reading, picked, points, wildcard)

    @staticmethod
    def _no_win_reason(facts: HandFacts) -> str:
        if facts.refused:
            return f"no reading of the hand meets what every win needs ({facts.refused[0]})"
        return "no reading of the hand is a winning pattern"

    def order(self, points: int) -> Any:
        """The first part of a result's key (smaller is better): what the result pays.

        Points order the results wherever the amount paid rises with them; a ``value: table``
        need not rise (a table may decode factors), so there the amount paid for the capped
        points comes first, then the points."""
        if self._by_pay:
            sc = self.ruleset.scoring
            return (-sc.amount(sc.capped(points)), -points)
        return -points

    def tie_key(self, picked: Sequence[tuple[Pattern, int]]) -> tuple:
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

    def _for_context(self, ctx: WinContext, facts: HandFacts
                     ) -> tuple[list[tuple[Shape, list[Pattern]]], frozenset[str]]:
        """Per shape, the patterns whose ``when`` the context meets, and their names.

        Memoised: a ruleset meets only a few distinct contexts.
        """
        key: tuple = (ctx.win_by, ctx.seat == ctx.dealer,
                      None if ctx.discarder is None else ctx.discarder == ctx.dealer,
                      ctx.flags, facts.win_tile_wild)
        if self._state_keys:
            key += tuple(repr(ctx.seat_state.get(k)) for k in self._state_keys)
        cached = self._context_cache.get(key)
        if cached is None:
            ok = frozenset(p.name for p in self.win_patterns if context_holds(p, ctx, facts))
            cached = ([(s, [p for p in c if p.name in ok]) for s, c in self._by_shape], ok)
            self._context_cache[key] = cached
        return cached

    def _judge(self, reading: Reading, patterns: list[Pattern], facts: HandFacts,
               wildcard: Tile | None) -> tuple[int, list[tuple[Pattern, int]]] | None:
        """Patterns (already fit for this shape and context) that hold for one reading, combined.

        Judged in bulk (:class:`~.bulkjudge.BulkJudge`); the same as judging each pattern
        with :func:`~.patterns.requirements_hold` (``tests/test_bulk_judge.py``)."""
        m = Measures(reading.tiles, reading, facts, wildcard)
        bulk = self._bulk
        held = bulk.holding(m, bulk.mask_of(patterns))
        if not held & bulk.makes_win:
            return None
        kept = bulk.patterns_of(bulk.not_excluded(held, self.ruleset.scoring.exclusions == "ranked"))
        kept.sort(key=self._index)
        result = self._count(kept, m)
        if result is not None and self._win_require and not self._meets_win_require(result[0], m, facts):
            return None
        return result

    def _meets_win_require(self, points: int, m: Measures, facts: HandFacts) -> bool:
        """Does this reading's win, worth ``points``, meet every entry of ``win.require``?
        (The first it fails is noted in ``facts.refused`` for the reason of a refused win.)"""
        ctx = facts.ctx or WinContext()
        for r in self._win_require:
            if r.if_ is not None and not (when_holds(r.if_.when, ctx, facts) and requirements_hold(r.if_, m)):
                continue
            if (r.check is not None and not (when_holds(r.check.when, ctx, facts)
                                             and requirements_hold(r.check, m))) or (
                    r.points is not None and not r.points.ok(points)):
                if facts.refused is not None and not facts.refused:
                    facts.refused.append(r.why or f"win.require[{self._win_require.index(r)}]")
                return False
        return True

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

    def waiting_tiles(self, concealed: Sequence[Tile], melds: Sequence[Meld] = (),
                      wildcard: Tile | None = None) -> int:
        """How many tile kinds complete these held tiles (:func:`.readiness.waiting_tiles`)."""
        return readiness.waiting_tiles(self, concealed, melds, wildcard)

    def score_opening(self, tiles: Sequence[Tile], ctx: WinContext) -> Score:
        """Opening declarations on dealt tiles: every opening pattern that holds."""
        size = 14 if ctx.seat == ctx.dealer else 13
        check_hand(Hand(tuple(tiles), (), None), self.ruleset, None, opening=True, opening_size=size)
        facts = HandFacts(0, 0, False, self._suits_in_set)
        m = Measures(tiles, None, facts, None)
        matched = [p for p in self.opening_patterns
                   if context_holds(p, ctx, facts) and requirements_hold(p, m)]
        result = self._combine(matched, m) if matched else None
        if result is None:
            return Score(False, "no opening pattern")
        points, picked = result
        scored = [ScoredPattern(p.name, p.points, n) for p, n in sorted(picked, key=lambda x: x[0].index)]
        capped = self._capped_after(picked) if self._after_cap else self.ruleset.scoring.capped(points)
        return Score(True, patterns=scored, points=capped, uncapped=points)

    # -- readiness -------------------------------------------------------------

    def is_win(self, hand: Hand, ctx: WinContext, wildcard: Tile | None = None) -> bool:
        """Would this hand win? (Same answer as :meth:`score`, cheaper on non-wins.)

        Table checks decide most hands (:class:`~.fastwin.WinScreen`, which remembers its
        verdict per tiles, melds, winning tile and wildcard); the rest are scored.
        """
        return (self._screen or self.screen).is_win(hand, ctx, wildcard)

    def may_win_on(self, concealed: Sequence[Tile], melds: Sequence[Meld], win: Tile,
                   wildcard: Tile | None = None) -> bool:
        """Could ``concealed`` + ``win`` (+ ``melds``) win in some context? False is certain:
        the context-free half of :meth:`is_win`, asked before a context is built."""
        return (self._screen or self.screen).possible(concealed, melds, win, wildcard)

    def may_win_any(self, tiles: Sequence[Tile], melds: Sequence[Meld], wildcard: Tile | None = None) -> bool:
        """Could some tile of the full hand ``tiles`` be its winning tile (a self-drawn win,
        a dealer's first turn)? False is certain: :meth:`may_win_on` would say no for each."""
        return (self._screen or self.screen).possible_any(tiles, melds, wildcard)

    def win_candidates(self, concealed: Sequence[Tile], melds: Sequence[Meld],
                       wildcard: Tile | None = None) -> set[Tile] | None:
        """A superset of the kinds that complete the 13-tile hand ``concealed`` (+ ``melds``)
        in some context (None: any kind may): one pass over the wait tables. A kind not in it
        is no win (as :meth:`may_win_on`)."""
        return (self._screen or self.screen).wait_sets(tuple(concealed), tuple(melds), wildcard,
                                                       sure_too=False)[1]

    # Asked of a seat's kept counts (play/counted.py); reference: the methods above (not memoised).
    def may_win_any_of(self, counts: bytes | bytearray, melds: Sequence[Meld],
                       wildcard: Tile | None = None) -> bool:
        """:meth:`may_win_any` for the full hand given by its counts per kind."""
        c = bytearray(counts[:NUM_KINDS])
        return (self._screen or self.screen).possible_any_of(c, sum(c), melds, wildcard)

    def win_candidates_of(self, counts: bytes | bytearray, melds: Sequence[Meld],
                          wildcard: Tile | None = None) -> set[Tile] | None:
        """:meth:`win_candidates` for the 13-tile hand given by its counts per kind."""
        c = bytearray(counts[:NUM_KINDS])
        return (self._screen or self.screen).wait_sets_of(c, sum(c), melds, wildcard, sure_too=False)[1]

    def _could_be(self, full: Tiles, hand: Hand, shape: Shape) -> bool:
        """Cheap necessary test that some pattern could read the hand as ``shape``.

        A ``free`` shape fits any tiles, so there the tile filters of the
        patterns using it decide (checked on the natural tiles; wildcards fit).
        """
        if shape.kind != "free":
            return shape_possible(full, len(hand.melds), shape, self.kinds)
        for banned in self._free_banned:
            if banned is None:
                return True
            if not any(full.counts[t] for t in banned) and not any(
                    t in banned for m in hand.melds for t in m.tiles):
                return True
        return False

    def waits(self, concealed: Sequence[Tile], melds: Sequence[Meld] = (),
              ctx: WinContext | None = None, wildcard: Tile | None = None) -> list[Tile]:
        """The tiles that would complete this 13-tile (+ melds) hand, in the given context.

        Only the kinds the wait tables allow are checked with :meth:`is_win`.
        """
        return self.screen.waits(concealed, melds, ctx or WinContext(), wildcard)

    def free_waits(self, concealed: Sequence[Tile], melds: Sequence[Meld] = (),
                   wildcard: Tile | None = None) -> list[str]:
        """Names of the wait patterns whose free-wildcard wait this 13-tile hand has."""
        held = self.split(concealed, wildcard)
        return [p.name for p in self.wait_patterns
                if any(wait_holds(held, len(melds), w) for w in p.waits)]

    # -- settlement (the settler: .settler) ----------------------------------------

    def settle(self, hand: Hand, ctx: WinContext, score: Score,
               kongs: Sequence[st.KongRecord] | None = None, *,
               payers: Sequence[int] | None = None, plugins: bool = True,
               seats: Mapping[int, st.SeatFacts] | None = None) -> st.Settlement:
        """Payments for a scored win plus kong payments (:func:`.settler.settle`)."""
        return settler.settle(self, hand, ctx, score, kongs, payers=payers, plugins=plugins, seats=seats)

    def liable_seat(self, hand: Hand, ctx: WinContext, score: Score) -> int | None:
        """The seat that pays every share of this win (``scoring.liable``, 包), or None."""
        return settler.liable_seat(self, hand, ctx, score)

    def settle_opening(self, ctx: WinContext, score: Score) -> st.Settlement:
        return settler.settle_opening(self, ctx, score)


    def settlement_context(self, kind: str, ctx: WinContext, score: Score,
                           melds: Mapping[int, tuple[Meld, ...]] | None = None) -> st.SettlementContext:
        """What plugins see of a settlement (:func:`.settler.settlement_context`)."""
        return settler.settlement_context(self, kind, ctx, score, melds)

    def refusal(self, hand: Hand, ctx: WinContext, control: Any = None) -> str | None:
        """The reason a plugin refuses this win (``mj_refuse_win``), or None. In a game the
        hook's ``hand`` is the game's :class:`HandControl`; outside one (``mj score``,
        conformance) it is ``control``, None by default: a plugin then decides from
        ``context``."""
        if not hook_is_live(self.pm, "mj_refuse_win") or hand.win_tile is None:
            return None
        for reason in call_hook(self.pm, "mj_refuse_win", hand=control, seat=ctx.seat, tile=hand.win_tile,
                                win_by=ctx.win_by, context=ctx):
            if reason:
                return str(reason)
        return None

    def call(self, ctx: WinContext, score: Score) -> str | None:
        if not score.win or not hook_is_live(self.pm, "mj_win_call"):
            return None
        return call_hook(self.pm, "mj_win_call", firstresult=True, patterns=score.pattern_names,
                         context=self.settlement_context("win", ctx, score))

    def evaluate(self, hand: Hand, ctx: WinContext, wildcard: Tile | None = None, *,
                 seats: Mapping[int, st.SeatFacts] | None = None) -> Result:
        """Score, settle and announce a win, as play would: a win a plugin refuses
        (``mj_refuse_win``) is no win. ``seats``: the other seats' melds and state (see
        :meth:`settle`)."""
        score = self.score(hand, ctx, wildcard)
        if score.win:
            refused = self.refusal(hand, ctx)
            if refused:
                score = Score(False, f"refused: {refused}", reading=score.reading, wildcard=score.wildcard)
        if not score.win:
            return Result(score, None)
        return Result(score, self.settle(hand, ctx, score, seats=seats), self.call(ctx, score))

    def evaluate_opening(self, tiles: Sequence[Tile], ctx: WinContext) -> Result:
        score = self.score_opening(tiles, ctx)
        return Result(score, self.settle_opening(ctx, score))




def _by_index(x: tuple[Pattern, int]) -> int:
    return x[0].index



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


def _once(f: Callable[[], int]) -> Callable[[], int]:
    """``f``, computed on the first call only (a hand-level measure every reading may ask for)."""
    memo: list[int] = []

    def once() -> int:
        if not memo:
            memo.append(f())
        return memo[0]
    return once
