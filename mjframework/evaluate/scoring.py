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
from typing import Any, overload

import pluggy

from ..core.errors import HandError
from ..core.hand import Hand, Meld, WinContext, check_context, check_hand
from ..core.tiles import NUM_KINDS, Tile, is_honor, tile_code, tile_name
from ..hooks.registry import bound_hook, call_hook, hook_is_live, hooks_epoch, make_plugin_manager
from ..rules.model import Pattern, Ruleset, Shape
from ..settle import laid
from ..settle import settlement as st
from . import readiness, search, settler
from .bounds import _Bounds
from .codegen import Generated
from .compiler import CompiledRuleset
from .fastwin import WinScreen
from .patterns import (
    HandFacts,
    Measures,
    context_holds,
    requirements_hold,
    when_holds,
)
from .readings import FreeKinds, Reading, Tiles, readings
from .results import Judged, Keyed, Ranked, ResultKey
from .results import Result as Result
from .results import Score as Score
from .results import ScoredPattern as ScoredPattern
from .waits import shape_possible, wait_holds

# The hooks asked on every win (refusal, settlement, the win's call): whether each has an
# implementation is decided once per evaluator (Evaluator.hook_live).
PER_WIN_HOOKS = ("mj_refuse_win", "mj_modify_settlement", "mj_win_call")


class Evaluator(CompiledRuleset):
    """Scores hands of one ruleset: the thin scorer over its :class:`~.compiler.CompiledRuleset`,
    with the memos it fills as it scores, and the ruleset's plugins. Create once per ruleset and
    reuse. Readings are judged by Python source generated for the ruleset (:mod:`.codegen`);
    ``generated=False`` judges them with the interpreted judge instead, the reference the
    generated one is tested against (same results, slower)."""

    def __init__(self, ruleset: Ruleset, pm: pluggy.PluginManager | None = None, *,
                 generated: bool = True) -> None:
        super().__init__(ruleset)
        self.pm = pm if pm is not None else make_plugin_manager(ruleset.plugins)
        # The pattern judge as Python source generated for this ruleset (.codegen), made on
        # first use; generated=False judges with the interpreted reference (_judge_reference).
        self._use_generated = generated
        self._gen: Generated | None = None
        self._context_cache: dict[tuple[object, ...],
                                  tuple[list[tuple[Shape, list[Pattern]]], frozenset[str]]] = {}
        # (id of a context's per-shape list, the wait patterns whose wait holds) -> the shapes
        # and patterns _score judges (the lists are kept by _context_cache, so ids stay theirs).
        self._todo: dict[tuple[int, frozenset[str]], list[tuple[Shape, list[Pattern]]]] = {}
        self._screen: WinScreen | None = None
        self._free_cache: dict[search.FreeKey, FreeKinds] = {}
        self._scored: dict[tuple[Pattern, int], ScoredPattern] = {}  # _finish's, per (pattern, times)
        # search.best_ceiling's, per (fixed, maybe) patterns
        self._ceilings: dict[tuple[tuple[Pattern, ...], tuple[Pattern, ...]], ResultKey | None] = {}
        # Win payment plans per seat arrangement (settle): a few per table.
        self._pay_plans: dict[settler.PlanKey, tuple[tuple[int, int, int], ...]] = {}
        # Which of the hooks asked once per win have an implementation (hook_live).
        self._live: dict[str, bool] = {}
        self._live_epoch: tuple[int, int] = (-1, -1)
        self._won_triplet_exposed = ruleset.scoring.won_triplet == "exposed"
        # Per wildcard: its wild kinds and stand-in tile (_split_won).
        self._split_plans: dict[Tile | None, tuple[tuple[Tile, ...], Tile | None]] = {}
        self._settle_steps = settler.SettleSteps(ruleset)
        # score's check of a concealed hand's tiles, done by _split_won: tiles held, the set
        self._held_size = ruleset.hand.size
        self._kind_set = ruleset.tileset.kind_set
        self._copies = ruleset.tileset.copies
        self._win_call = bound_hook(self.pm, "mj_win_call")

    @property
    def screen(self) -> WinScreen:
        """The table-level fast paths of :meth:`is_win` / :meth:`waits` (compiled on first use)."""
        if self._screen is None:
            self._screen = WinScreen(self)
        return self._screen

    def hook_live(self, hook: str) -> bool:
        """Would calling ``hook`` (one of :data:`PER_WIN_HOOKS`) on this evaluator's plugins do
        anything? Decided once, not per win, and again when ``hooks_epoch`` moves (tracing, or
        a plugin registered or unregistered on a manager made by ``make_plugin_manager``)."""
        epoch = hooks_epoch(self.pm)
        if self._live_epoch != epoch:
            self._live = {h: hook_is_live(self.pm, h) for h in PER_WIN_HOOKS}
            self._live_epoch = epoch
        return self._live[hook]

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
            out[rule.key] = {"tiles": True, "max": rule.most,
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
        split: tuple[Tiles, int] | None = None
        if not hand.melds and hand.win_tile is not None and len(hand.concealed) == self._held_size:
            # A concealed hand of the right size: the tile set's check (kinds in the set, none
            # held more often than it has copies) is the one pass that splits the tiles.
            wild = self._wildcard(wildcard)
            split = self._split_won(hand.concealed, hand.win_tile, wild, self._win_wild(hand.win_tile, wild),
                                    check=True)
        if split is None:
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
        return self._score(hand, ctx, wildcard, split=split)

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
        every: list[Ranked] = []
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

    def _wildcard(self, wildcard: Tile | None) -> Tile | None:
        """The wildcard a hand is scored with (a ruleset of fixed wildcards needs none given)."""
        return self._default_wild if wildcard is None else wildcard

    def _win_wild(self, win: Tile | None, wildcard: Tile | None) -> bool:
        """Is the winning tile wild (``wildcard``: as :meth:`_wildcard` gives it)?"""
        if self._fixed:
            return self._is_wild(win, wildcard)
        return wildcard is not None and win == wildcard

    def _score(self, hand: Hand, ctx: WinContext, wildcard: Tile | None,
               every: list[Ranked] | None = None, split: tuple[Tiles, int] | None = None) -> Score:
        """``split``: :meth:`_split_won`'s answer for this hand, where :meth:`score` made it."""
        wildcard = self._wildcard(wildcard)
        best = self._best(hand, ctx, wildcard, every, split)
        if isinstance(best, str):
            return Score(False, best, wildcard=wildcard)
        return self._finish(best[1], best[2], best[3], wildcard)

    def _best(self, hand: Hand, ctx: WinContext, wildcard: Tile | None, every: list[Ranked] | None = None,
              split: tuple[Tiles, int] | None = None) -> Ranked | str:
        """The best (key, reading, picked, points), or why there is none (``wildcard``: resolved);
        before the minimum to win (:mod:`.verdict`)."""
        win_wild = self._win_wild(hand.win_tile, wildcard)
        refused = self._refused_by_rules(hand, ctx, win_wild)
        if refused is not None:
            return refused
        assert hand.win_tile is not None  # a win's hand (an opening hand is scored elsewhere)
        full, held_wilds = split or self._split_won(hand.concealed, hand.win_tile, wildcard, win_wild)
        facts = self._hand_facts(hand, ctx, wildcard, held_wilds, win_wild)
        # The context is the same for every reading: the patterns fit for it, per shape.
        by_shape, active = self._for_context(ctx, facts)
        waits_ok: frozenset[str] = frozenset()
        if held_wilds >= self._fewest_free:  # (a wait needs that many wildcards held)
            waits_ok = self._waits_held(self.split(hand.concealed, wildcard), len(hand.melds), active)
        shapes = self._todo.get((id(by_shape), waits_ok))
        if shapes is None:
            shapes = self._todo[id(by_shape), waits_ok] = self._shapes_to_judge(by_shape, waits_ok)
        if every is None and not (full.wilds or full.stand_ins):
            best = self._best_plain(full, hand, shapes, facts, wildcard)
        else:
            best = self._best_searched(full, hand, shapes, facts, wildcard, every)
        return self._no_win_reason(facts) if best is None else best

    @overload
    def _split_won(self, held: Sequence[Tile], win: Tile, wildcard: Tile | None,
                   win_wild: bool) -> tuple[Tiles, int]: ...

    @overload
    def _split_won(self, held: Sequence[Tile], win: Tile, wildcard: Tile | None,
                   win_wild: bool, check: bool) -> tuple[Tiles, int] | None: ...

    def _split_won(self, held: Sequence[Tile], win: Tile, wildcard: Tile | None,
                   win_wild: bool, check: bool = False) -> tuple[Tiles, int] | None:
        """The 14 tiles split as :meth:`split` splits them, and how many wildcards are held
        (``split(held + [win]), split(held).wilds``: ``tests/test_scoring_reference.py``), in
        one pass: a win is scored from the whole hand; the held tiles' split alone is needed
        only for waits. ``check``: None if a tile is not in the tile set or more copies of a
        kind are held than the set has (what ``TileSet.check_hand`` refuses, with a reason)."""
        if check and not (win in self._kind_set and self._kind_set.issuperset(held)):
            return None
        plan = self._split_plans.get(wildcard)
        if plan is None:
            if len(self._split_plans) > 64:
                self._split_plans.clear()
            plan = self._split_plans[wildcard] = (tuple(sorted(self.wild_kinds(wildcard))),
                                                  self.stand_in_for(wildcard))
        wild_kinds, stand = plan
        counts = [0] * NUM_KINDS
        for t in held:
            counts[t] += 1
        if check and (counts[win] >= self._copies or max(counts) > self._copies):
            return None
        wilds = stand_ins = 0
        for k in wild_kinds:
            wilds += counts[k]
            counts[k] = 0
        if stand is not None:
            stand_ins, counts[stand] = counts[stand], 0
        held_wilds = wilds
        if win_wild:
            wilds += 1
        elif win == stand:
            stand_ins += 1
        else:
            counts[win] += 1
        return Tiles(tuple(counts), wilds, stand_ins, stand, wildcard), held_wilds

    def _refused_by_rules(self, hand: Hand, ctx: WinContext, win_wild: bool) -> str | None:
        """Why the ruleset's win rules refuse this win before any reading (None: they don't)."""
        if not self.ruleset.win.allows(ctx.win_by):
            return f"this ruleset has no win by {ctx.win_by}"
        if self._void_rule and self.void_refuses(hand, ctx):
            return f"the hand holds its declared void suit ({ctx.seat_state['void_suit']})"
        if win_wild and ctx.win_by != "self_draw" and not self._wild_claims:
            return "a wildcard can't be won on a discard"
        if ctx.win_by == "discard" and hand.win_tile in self.ruleset.claims.never_kinds:
            return f"{tile_name(hand.win_tile)} is never claimed: no win on its discard"
        return None

    def _hand_facts(self, hand: Hand, ctx: WinContext, wildcard: Tile | None, held_wilds: int,
                    win_wild: bool) -> HandFacts:
        """What every reading of this win shares (the hand-level measures' inputs)."""
        # (positional, in HandFacts' field order: made on every hand scored)
        return HandFacts(
            held_wilds + win_wild,  # wildcards
            held_wilds,  # wildcards_held
            win_wild,  # win_tile_wild
            self._suits_in_set,
            hand.win_tile,
            ctx.winds(self.ruleset.players),
            ctx.flowers,
            ctx.flower_tiles,
            tuple(hand.concealed),  # held
            len(hand.melds),
            ctx.win_by != "self_draw",  # won_on_discard
            self._won_triplet_exposed,
            _once(lambda: self.waiting_tiles(hand.concealed, hand.melds, wildcard)),  # waiting
            self.wild_kinds(wildcard) if self._fixed else None,
            ctx if self._win_require else None,
            [] if self._win_require else None,  # refused
        )

    def _waits_held(self, held: Tiles, exposed: int, active: frozenset[str]) -> frozenset[str]:
        """The wait patterns fit for the context whose free-wildcard wait the held tiles have."""
        # Patterns often share a wait: each judged once (by identity: hashing a wait,
        # a nested dataclass, costs more than judging it twice when two are equal).
        held_waits: dict[int, bool] = {}
        for p in self.wait_patterns:
            if p.name in active:
                for w in p.waits:
                    if id(w) not in held_waits:
                        held_waits[id(w)] = wait_holds(held, exposed, w)
        return frozenset(p.name for p in self.wait_patterns
                         if p.name in active and any(held_waits[id(w)] for w in p.waits))

    @staticmethod
    def _shapes_to_judge(by_shape: list[tuple[Shape, list[Pattern]]], waits_ok: frozenset[str]
                         ) -> list[tuple[Shape, list[Pattern]]]:
        """Per shape, the patterns to judge on its readings (wait patterns whose wait holds); a
        shape none of whose patterns makes a win is left out. The same for every hand of a
        context and its waits (kept in ``_todo``)."""
        shapes = []
        for shape, candidates in by_shape:
            todo = [p for p in candidates if not p.waits or p.name in waits_ok]
            if any(p.makes_win for p in todo):
                shapes.append((shape, todo))
        return shapes

    def _best_plain(self, full: Tiles, hand: Hand, shapes: list[tuple[Shape, list[Pattern]]],
                    facts: HandFacts, wildcard: Tile | None) -> Ranked | None:
        """The best (key, reading, picked, points) of a hand with no wildcard: every reading
        of each shape is judged (there are few, from the per-block tables); a standard shape
        no reading fits has none, so it needs no pre-check."""
        if self._use_generated:  # (this loop, unrolled over the ruleset's shapes: .codegen)
            gen = self._gen or self.generated()
            return gen.best_plain(full, hand, gen.masks(shapes), facts, wildcard)  # type: ignore[no-any-return]
        best: Ranked | None = None
        judge = self._keyed_judge()
        mask_of = self._bulk.mask_of
        for shape, todo in shapes:
            if shape.kind != "standard" and not self._could_be(full, hand, shape):
                continue
            alive = mask_of(todo)
            for reading in readings(full, hand.melds, shape, self.kinds):
                keyed = judge(reading, alive, facts, wildcard)
                if keyed is not None and (best is None or keyed[0] < best[0]):
                    best = (keyed[0], reading, keyed[2], keyed[1])
        return best

    def _best_searched(self, full: Tiles, hand: Hand, shapes: list[tuple[Shape, list[Pattern]]],
                       facts: HandFacts, wildcard: Tile | None, every: list[Ranked] | None) -> Ranked | None:
        """The best (key, reading, picked, points) of a hand with wildcards, judging only the
        readings the reading search (:mod:`.search`) says can decide it; or, with ``every``,
        of every reading (each appended to ``every``)."""
        best: list[Ranked] = []  # (the best so far, if any)
        bounds: _Bounds | None = None  # of the measures over every reading (made when needed)
        for shape, todo in shapes:
            if not self._could_be(full, hand, shape):
                continue
            keys: dict[Tile, int] | None = None
            ceiling: ResultKey | None = None
            free: FreeKinds | None = None
            known: tuple[Reading, Judged | None] | None = None  # a reading _search judged already
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
            consider = search.Consider(self, best, every, self._bulk.mask_of(todo), facts, wildcard, keys,
                                       ceiling, known)
            if found is None:  # searched as the readings are found, up to the ceiling
                readings(full, hand.melds, shape, self.kinds, free=free, visit=consider)
            else:
                for reading in found:
                    if consider(reading):
                        break
        return best[0] if best else None

    @staticmethod
    def _no_win_reason(facts: HandFacts) -> str:
        if facts.refused:
            return f"no reading of the hand meets what every win needs ({facts.refused[0]})"
        return "no reading of the hand is a winning pattern"

    def _for_context(self, ctx: WinContext, facts: HandFacts
                     ) -> tuple[list[tuple[Shape, list[Pattern]]], frozenset[str]]:
        """Per shape, the patterns whose ``when`` the context meets, and their names.

        Memoised: a ruleset meets only a few distinct contexts.
        """
        key: tuple[object, ...] = (ctx.win_by, ctx.seat == ctx.dealer,
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

    def generated(self) -> Generated:
        """The pattern judge generated for this ruleset (:mod:`.codegen`), made on first use."""
        gen = self._gen
        if gen is None:
            gen = self._gen = Generated(self)
        return gen

    def _keyed_judge(self) -> Callable[[Reading, int, HandFacts, Tile | None], Keyed | None]:
        """What the scorer judges a reading with: ``(reading, patterns' mask, facts, wildcard)``
        → ``((order, tie key), points, picked)`` or None; generated unless made without."""
        if self._use_generated:
            return (self._gen or self.generated()).judge_keyed
        return self._keyed_reference

    def _keyed_reference(self, reading: Reading, alive: int, facts: HandFacts,
                         wildcard: Tile | None) -> Keyed | None:
        result = self._judge_reference(reading, alive, facts, wildcard)
        if result is None:
            return None
        return (self.order(result[0]), self.tie_key(result[1])), result[0], result[1]

    def _judge(self, reading: Reading, patterns: list[Pattern], facts: HandFacts,
               wildcard: Tile | None) -> tuple[int, list[tuple[Pattern, int]]] | None:
        """Patterns (already fit for this shape and context) that hold for one reading, combined:
        ``(points, [(pattern, times)])`` or None (generated: :mod:`.codegen`)."""
        alive = self._bulk.mask_of(patterns)
        if self._use_generated:
            return (self._gen or self.generated()).judge(reading, alive, facts, wildcard)
        return self._judge_reference(reading, alive, facts, wildcard)

    def _judge_reference(self, reading: Reading, alive: int, facts: HandFacts,
                         wildcard: Tile | None) -> tuple[int, list[tuple[Pattern, int]]] | None:
        """The interpreted judge of the patterns of mask ``alive`` on one reading (the reference
        of the generated one).

        Judged in bulk (:class:`~.bulkjudge.BulkJudge`); the same as judging each pattern
        with :func:`~.patterns.requirements_hold` (``tests/test_bulk_judge.py``)."""
        m = Measures(reading.tiles, reading, facts, wildcard)
        bulk = self._bulk
        held = bulk.holding(m, alive)
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

    def waiting_tiles(self, concealed: Sequence[Tile], melds: Sequence[Meld] = (),
                      wildcard: Tile | None = None) -> int:
        """How many tile kinds complete these held tiles (:func:`.readiness.waiting_tiles`)."""
        return readiness.waiting_tiles(self, concealed, melds, wildcard)

    def score_opening(self, tiles: Sequence[Tile], ctx: WinContext) -> Score:
        """Opening declarations on dealt tiles: every opening pattern that holds."""
        size = self.ruleset.hand.size + (ctx.seat == ctx.dealer)
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
        """Would this hand win? (As :meth:`score`, cheaper.) Table checks decide most hands
        (:class:`~.fastwin.WinScreen`, remembered per tiles, melds, winning tile and wildcard);
        the rest are scored, a refusal without its result (:mod:`.verdict`)."""
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
        if not self.hook_live("mj_refuse_win") or hand.win_tile is None:
            return None
        for reason in call_hook(self.pm, "mj_refuse_win", hand=control, seat=ctx.seat, tile=hand.win_tile,
                                win_by=ctx.win_by, context=ctx):
            if reason:
                return str(reason)
        return None

    def call(self, ctx: WinContext, score: Score) -> str | None:
        if not score.win or not self.hook_live("mj_win_call"):
            return None
        # (the bound hook: its spec's arguments in order, patterns then context)
        context = self.settlement_context("win", ctx, score)
        called: str | None = self._win_call.call(score.pattern_names, context, firstresult=True)
        return called

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


def _once(f: Callable[[], int]) -> Callable[[], int]:
    """``f``, computed on the first call only (a hand-level measure every reading may ask for)."""
    memo: list[int] = []

    def once() -> int:
        if not memo:
            memo.append(f())
        return memo[0]
    return once
