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
from dataclasses import dataclass, field
from itertools import combinations_with_replacement
from typing import Any

import pluggy

from ..core.errors import HandError
from ..core.hand import KONG_PAYMENT_KEY, Hand, Meld, WinContext, check_context, check_hand
from ..core.tiles import HONOR_BASE, NUM_KINDS, Tile, format_tiles, is_honor, suit_of, tile_code, tile_name
from ..hooks.registry import call_hook, hook_is_live, make_plugin_manager
from ..rules.model import GroupFilter, Pattern, Ruleset, Shape, TileFilter, When
from ..settle import bonus, counters, laid
from ..settle import settlement as st
from . import wintable
from .fastwin import WinScreen
from .patterns import (
    BulkJudge,
    HandFacts,
    Measures,
    context_holds,
    requirements_hold,
    shape_matches,
    times,
    when_holds,
)
from .readings import KNITTED_STRAIGHTS, FreeKinds, Group, Reading, Tiles, readings, stand_in_splits
from .waits import completed_shape, shape_possible, wait_holds


@dataclass(frozen=True)
class ScoredPattern:
    name: str
    points: int
    times: int = 1
    en: str = ""  # the pattern's English name, if the ruleset gives one

    @property
    def total(self) -> int:
        return self.points * self.times


@dataclass
class Score:
    win: bool
    reason: str = ""
    reading: Reading | None = None
    patterns: list[ScoredPattern] = field(default_factory=list)
    points: int = 0  # capped (scoring.cap)
    wildcard: Tile | None = None
    uncapped: int | None = None  # before the cap (None: same as points)

    @property
    def pattern_names(self) -> list[str]:
        return [p.name for p in self.patterns]


@dataclass
class Result:
    """A scored and settled hand."""

    score: Score
    settlement: st.Settlement | None
    call: str | None = None

    @property
    def payments(self) -> list[int] | None:
        return self.settlement.net() if self.settlement else None


class Evaluator:
    """Scores hands of one ruleset. Create once per ruleset and reuse."""

    def __init__(self, ruleset: Ruleset, pm: pluggy.PluginManager | None = None) -> None:
        self.ruleset = ruleset
        self.pm = pm if pm is not None else make_plugin_manager(ruleset.plugins)
        self.kinds = list(ruleset.tileset.kinds)
        self._void_rule = ruleset.flow.void_suit is not None and not ruleset.flow.void_suit.win_holding
        self.win_patterns = ruleset.patterns_for("win")
        self.opening_patterns = ruleset.patterns_for("opening")
        self.wait_patterns = [p for p in self.win_patterns if p.waits]
        # The fewest wildcards any wait sets aside: a hand holding fewer has none of the waits.
        self._fewest_free = min((w.free_wildcards for p in self.wait_patterns for w in p.waits),
                                default=NUM_KINDS * 4 + 1)
        shapes: dict[tuple, Shape] = {}
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
        self._context_cache: dict[tuple, tuple[list[tuple[Shape, list[Pattern]]], frozenset[str]]] = {}
        # (id of a context's per-shape list, the wait patterns whose wait holds) -> the shapes
        # and patterns _score judges (the lists are kept by _context_cache, so ids stay theirs).
        self._todo: dict[tuple[int, frozenset[str]], list[tuple[Shape, list[Pattern]]]] = {}
        self._by_shape = [
            (s, [p for p in self.win_patterns if p.waits or not p.shapes or shape_matches(p.shapes, s)])
            for s in self.shapes]
        # For each pattern read as `free`: the kinds its `all_tiles` filter rules out
        # (None: no filter, anything may match).
        self._free_banned: list[frozenset[int] | None] = [
            None if p.all_tiles is None else frozenset(t for t in self.kinds if not p.all_tiles.match(t))
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
        self._screen: WinScreen | None = None
        # The reading search (see _score): how much of a reading each pattern looks at.
        self._level = {p: _reading_level(p) for p in self.win_patterns}
        self._tile_filters = {p: _tile_filters(p) for p in self.win_patterns}
        self._free_cache: dict[tuple, FreeKinds] = {}
        self._scored: dict[tuple[Pattern, int], ScoredPattern] = {}  # _finish's, per (pattern, times)
        self._ceilings: dict[tuple, tuple | None] = {}  # _ceiling's, per (fixed, maybe) patterns
        # Win payment plans per seat arrangement (settle): a few per table.
        self._pay_plans: dict[tuple, tuple[tuple[int, int, int], ...]] = {}
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

    def _is_wild(self, t: Tile | None, wildcard: Tile | None) -> bool:
        if self._fixed:
            return t in self._fixed or (wildcard is not None and t == wildcard)
        return wildcard is not None and t == wildcard

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
                todo, settled = self._possible(todo, bounds, facts, shape)
                if not any(p.makes_win for p in todo):
                    continue
                found, keys, ceiling, free, known = self._search(full, hand, shape, todo, settled, facts,
                                                                 wildcard, bounds)
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

    def _possible(self, todo: list[Pattern], bounds: _Bounds, facts: HandFacts, shape: Shape | None = None
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
            if self._level[p] == 0:
                out.append(p)
                continue
            verdict = bounds.decide(p, facts.winds, shape)
            if verdict is False:
                continue
            if verdict:
                settled.add(p)
            out.append(p)
        return out, settled

    def _search(self, full: Tiles, hand: Hand, shape: Shape, todo: list[Pattern], settled: set[Pattern],
                facts: HandFacts, wildcard: Tile | None, bounds: _Bounds | None = None
                ) -> tuple[list[Reading] | None, dict[Tile, int] | None, tuple | None, FreeKinds | None,
                           tuple[Reading, tuple | None] | None]:
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
        level = max((self._level[p] for p in todo if p not in settled), default=0)
        if level == 0:
            return readings(full, hand.melds, shape, self.kinds, first=True), None, None, None, None
        # The best any reading could judge to; the first reading may already reach it.
        first = readings(full, hand.melds, shape, self.kinds, first=True)
        if not first:
            return [], None, None, None, None
        ceiling = self._ceiling(todo, settled, first[0], facts, wildcard)
        known = None
        if ceiling is not None:
            result = self._judge(first[0], todo, facts, wildcard)
            known = (first[0], result)
            if result is not None and (self.order(result[0]), self.tie_key(result[1])) == ceiling:
                return first, None, ceiling, None, known
            # A pattern asking for sequences of wildcards read as their own kind: the reading
            # with the most of them (found from the win table) is tried next, before the search.
            directed = None
            if bounds is not None and shape.kind == "standard" and any(
                    name == "self_wild_sequences" for p in todo if p not in settled for name, _ in p.counts):
                directed = self._self_wild_reading(full, hand, shape, bounds)
            if directed is not None:
                result = self._judge(directed, todo, facts, wildcard)
                if result is not None and (self.order(result[0]), self.tie_key(result[1])) == ceiling:
                    return [directed], None, ceiling, None, (directed, result)
        free = None
        if level < 3 and full.wilds >= 2 and shape.kind in ("standard", "pairs"):
            # groups of wildcards alone need two wildcards left over (pairs: past the odd tiles)
            odd = sum(n % 2 for n in full.counts) - full.stand_ins
            if shape.kind == "standard" or full.wilds - odd >= 2:
                free = self._free_kinds(full, hand, todo, level, facts, wildcard)
        # With only suits and tile filters read (level 1), readings are told apart by their
        # tiles' classes alone (copies of a kind don't matter): judged once per class pattern.
        return None, free.key if free is not None and level == 1 else None, ceiling, free, known

    def _self_wild_reading(self, full: Tiles, hand: Hand, shape: Shape, bounds: _Bounds) -> Reading | None:
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
        first = readings(sub, hand.melds, Shape("standard", melds=shape.melds - k, pair=1), self.kinds,
                         first=True)
        if not first:
            return None
        exposed = len(hand.melds)
        groups = sorted([*first[0].groups[exposed:], *seqs], key=_group_order)
        return Reading(shape, first[0].groups[:exposed] + tuple(groups))

    def _ceiling(self, todo: list[Pattern], settled: set[Pattern], reading: Reading, facts: HandFacts,
                 wildcard: Tile | None) -> tuple | None:
        """The best key (points, then :meth:`tie_key`) any reading of the shape could judge to,
        or None where not cheaply known.

        The patterns that don't depend on the reading hold alike on every reading (judged on
        ``reading``); each of the others may or may not hold: the best over every such subset.
        A reading that reaches it has the best result, so the search can stop there. Known only
        when the patterns that depend on the reading count once and combine no sets.
        """
        maybe = [p for p in todo if self._level[p] and p not in settled]
        if len(maybe) > 6 or any(p.times_per is not None or p.sets is not None or p.partial_excludes
                                 for p in maybe):
            return None
        m = Measures(reading.tiles, reading, facts, wildcard)
        fixed = [p for p in todo if (not self._level[p] or p in settled) and requirements_hold(p, m)]
        # Without counted times or sets, the best over the subsets depends on the patterns only
        # (exclusions, tiers and combining are the ruleset's): kept per (fixed, maybe) patterns,
        # which many hands share.
        memo = None
        if not any(p.times_per is not None or p.sets is not None or p.partial_excludes for p in fixed):
            memo = (tuple(fixed), tuple(maybe))
            if memo in self._ceilings:
                return self._ceilings[memo]
        best: tuple | None = None
        for mask in range(1 << len(maybe)):
            matched = sorted(fixed + [p for i, p in enumerate(maybe) if mask >> i & 1], key=lambda p: p.index)
            if not any(p.makes_win for p in matched):
                continue
            result = self._combine(matched, m)
            if result is None:
                continue
            key = (self.order(result[0]), self.tie_key(result[1]))
            if best is None or key < best:
                best = key
        if memo is not None:
            if len(self._ceilings) > 4096:
                self._ceilings.clear()
            self._ceilings[memo] = best
        return best

    def _free_kinds(self, full: Tiles, hand: Hand, todo: list[Pattern], level: int, facts: HandFacts,
                    wildcard: Tile | None) -> FreeKinds:
        filters: list[TileFilter] = []
        for p in todo:
            filters.extend(f for f in self._tile_filters[p] if f not in filters)
        special = set(self.wild_kinds(wildcard))
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
        cache_key = (tuple(sorted(special)), tuple(id(f) for f in filters),
                     tuple(sorted(winds.items())) if winds and filters else None)
        free = self._free_cache.get(cache_key)
        if free is None:
            def key(t: Tile) -> object:
                if t in special:
                    return t
                return (-1 if is_honor(t) else suit_of(t), tuple(f.match(t, winds) for f in filters))
            free = FreeKinds(self.kinds, key)
            if len(self._free_cache) > 4096:
                self._free_cache.clear()
            self._free_cache[cache_key] = free
        return free

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

        Judged in bulk (:class:`~.patterns.BulkJudge`); the same as judging each pattern
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

        (:meth:`_judge` does the exclusions as masks, :meth:`~.patterns.BulkJudge.not_excluded`,
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
        :meth:`~.patterns.BulkJudge.account_combinations`), the fallback, the total."""
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
        """How many tile kinds complete these held tiles to a standard shape (melds + a pair), a
        knitted straight with melds, or, with no declared meld, pairs, as this ruleset's patterns
        use (the `waiting_tiles` measure: a hand waiting on one tile only has 1). Only the shape
        counts, not the patterns.

        Only candidate kinds are checked (:meth:`_waiting_candidates`), each as before; those
        the win table already names as completing a standard shape are counted unchecked."""
        shapes = self._waiting_shapes
        exposed = len(melds)
        cand, sure = self._waiting_candidates(concealed, exposed, shapes, wildcard)
        if cand is None:
            todo: Sequence[Tile] = self.kinds
            n = 0
        else:
            kinds = self._kind_set
            todo = [t for t in cand if t not in sure and t in kinds]
            n = sum(1 for t in sure if t in kinds)
        for t in todo:
            full = self.split([*concealed, t], wildcard)
            if any(shape_possible(full, exposed, s, self.kinds) for s in shapes):
                n += 1
        return n

    def _waiting_candidates(self, concealed: Sequence[Tile], exposed: int, shapes: Sequence[Shape],
                            wildcard: Tile | None) -> tuple[set[Tile] | None, set[Tile]]:
        """A superset of the kinds that :meth:`waiting_tiles` counts (None: every kind may), and
        the kinds among them known to count.

        With no wildcard and no stand-in held: a standard shape (melds + one pair) is completed
        only by the table's waits (:func:`.wintable.standard_waits`: each of them does, as
        :func:`.waits.rest_holds` judges, unless it is itself a wild or stand-in kind), a pairs
        shape only by the one kind held an odd number of times, a knitted straight (with a pair)
        by the ninth kind of a straight eight of whose kinds are held, or, all nine held, by the
        table's waits of the rest; a wild or stand-in kind as the added tile is always a
        candidate."""
        held = self.split(concealed, wildcard)
        if held.wilds or held.stand_ins:
            return None, set()
        c = held.counts
        n = len(concealed) + 1
        out: set[Tile] = set()
        sure: set[Tile] = set()
        odd: list[Tile] | None = None
        for s in shapes:
            if s.kind == "standard" and s.pair == 1:
                if n == 3 * (s.melds - exposed) + 2:
                    sure.update(wintable.standard_waits(c, 0))
            elif s.kind == "pairs":
                if not exposed and n == 2 * s.pairs:
                    if odd is None:
                        # one odd kind, the rest pairs: at most n / 2 kinds (else none is looked for)
                        odd = [k for k, x in enumerate(c) if x & 1] if len(set(concealed)) * 2 <= n else []
                    if len(odd) == 1:
                        out.update(odd)
            elif s.kind == "knitted_straight" and s.pair == 1:
                # The hand's straight is among the tiles held plus the added one: eight of its
                # nine kinds are held. Eight: the ninth completes it; nine: the added tile
                # completes the rest (melds + pair) the straight leaves.
                held_kinds = set(concealed)  # (no wildcard or stand-in held: the kinds of c)
                for ks, kind_set in _KNITTED_SETS:
                    if len(kind_set & held_kinds) < 8:
                        continue
                    missing = [x for x in ks if not c[x]]
                    if len(missing) == 1:
                        out.add(missing[0])
                    elif not missing:
                        rest = list(c)
                        for x in ks:
                            rest[x] -= 1
                        out.update(wintable.standard_waits(rest, 0))
            else:
                return None, set()
        out |= sure
        eff = self._default_wild if wildcard is None else wildcard
        special = set(self.wild_kinds(eff)) if self._fixed else ({eff} if eff is not None else set())
        stand = self.stand_in_for(eff)
        if stand is not None:
            special.add(stand)
        out |= special
        sure -= special  # (as the added tile it is split off as a wildcard or stand-in: checked)
        return out, sure

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

    # -- settlement ---------------------------------------------------------------

    def settle(self, hand: Hand, ctx: WinContext, score: Score,
               kongs: Sequence[st.KongRecord] | None = None, *,
               payers: Sequence[int] | None = None, plugins: bool = True,
               seats: Mapping[int, st.SeatFacts] | None = None) -> st.Settlement:
        """Payments for a scored win plus kong payments.

        ``kongs``: every kong made this hand (the game knows them); by default
        the winner's own kong melds (all a conformance case can say) — none where
        the ruleset pays kongs when they are made (``scoring.kongs.paid: at_kong``).
        ``payers``: who may pay (in a hand that goes on after a win, the players
        still in it); ``plugins=False`` skips ``mj_modify_settlement``. ``seats``: every
        seat's declared melds and state (:class:`~.settlement.SeatFacts`), which per-payer
        amounts read (``scoring.per_payer``); liability (``scoring.liable``) reads the winner's
        melds' ``from`` seats.
        """
        rs = self.ruleset
        s = st.Settlement(rs.players)
        if payers is None and ctx.in_play is not None:
            payers = sorted(ctx.in_play)
        if score.win:
            # Who pays how much of the base amount depends only on the seats: planned once per
            # seat arrangement (st.win_plan), then each win is a few multiplications.
            key = (ctx.win_by, ctx.seat, ctx.dealer, ctx.discarder, None if payers is None else tuple(payers))
            plan = self._pay_plans.get(key)
            if plan is None:
                plan = st.win_plan(rs, winner=ctx.seat, dealer=ctx.dealer, win_by=ctx.win_by,
                                   discarder=ctx.discarder, payers=payers)
                if len(self._pay_plans) > 4096:
                    self._pay_plans.clear()
                self._pay_plans[key] = plan
            if rs.scoring.per_payment:
                s.payments = self._pay_per_payer(hand, ctx, score, plan, payers, seats)
            else:
                s.payments = st.pay_plan(plan, ctx.seat, rs.scoring.amount(score.points),
                                         "+".join([p.name for p in score.patterns]))
            if rs.counters:
                counters.apply(rs, s.payments, dealer=ctx.dealer, state=ctx.seat_state)
            laid_counts = ctx.extra.get(laid.LAID_KEY) if rs.laid_kongs else None
            if laid_counts:
                laid.apply(s.payments, laid_counts)
            self._bonus_tiles(s.payments, ctx, "win")
            if kongs is None:  # kongs paid when made (at_kong) are not part of the win
                kongs = [] if rs.flow.kongs_paid == "at_kong" else [
                    st.KongRecord(ctx.seat, KONG_PAYMENT_KEY[m.kind], m.from_seat)
                    for m in hand.melds if m.is_kong]
            if kongs:
                kong_pay = st.kong_payments(rs, kongs)
                if rs.bonus_tiles is not None and rs.bonus_tiles.kongs:
                    self._bonus_tiles(kong_pay, ctx, "win")
                s.payments.extend(kong_pay)
        if not plugins or not hook_is_live(self.pm, "mj_modify_settlement"):
            return s  # (no plugin modifies settlements: no context to build for them)
        melds = {seat: f.melds for seat, f in (seats or {}).items()}
        melds[ctx.seat] = tuple(hand.melds)
        return st.apply_plugins(s, self.settlement_context("win", ctx, score, melds), self.pm)

    def liable_seat(self, hand: Hand, ctx: WinContext, score: Score) -> int | None:
        """The seat that pays every share of this win (``scoring.liable``, 包), or None."""
        rs = self.ruleset
        wild = score.wildcard is not None and self._is_wild(hand.win_tile, score.wildcard)
        facts = HandFacts(0, 0, wild, self._suits_in_set)
        for rule in rs.scoring.liable:
            if not when_holds(rule.when, ctx, facts):
                continue
            seat = ctx.discarder if rule.pays == "discarder" else st.feeder(hand.melds, rule.fed or 1)
            if seat is not None and seat != ctx.seat:
                return seat
        return None

    def _pay_per_payer(self, hand: Hand, ctx: WinContext, score: Score,
                       plan: tuple[tuple[int, int, int], ...], payers: Sequence[int] | None,
                       seats: Mapping[int, st.SeatFacts] | None) -> list[st.Payment]:
        """Win payments where they depend on more than the points and seats: a liable seat
        paying every share (each priced as if every other player paid), per-payer amounts,
        caps per payment and 金顶 (:func:`~.settlement.payer_amounts`)."""
        rs = self.ruleset
        liable = self.liable_seat(hand, ctx, score) if rs.scoring.liable else None
        if liable is not None:
            plan = st.win_plan(rs, winner=ctx.seat, dealer=ctx.dealer, win_by=ctx.win_by,
                               discarder=ctx.discarder, payers=payers, rule="each_other")
        payments = st.pay_plan(plan, ctx.seat, rs.scoring.amount(score.points),
                               "+".join([p.name for p in score.patterns]))
        payments = st.payer_amounts(rs.scoring, payments, seats, dealer=ctx.dealer, discarder=ctx.discarder)
        return payments if liable is None else st.redirect(payments, liable)

    def settle_opening(self, ctx: WinContext, score: Score) -> st.Settlement:
        rs = self.ruleset
        s = st.Settlement(rs.players)
        if score.win:
            s.payments.extend(st.win_payments(
                rs, winner=ctx.seat, dealer=ctx.dealer, win_by="self_draw", discarder=None,
                points=score.points, reason="+".join(score.pattern_names)))
            self._bonus_tiles(s.payments, ctx, "opening")
        return st.apply_plugins(s, self.settlement_context("opening", ctx, score), self.pm)

    def _bonus_tiles(self, payments: list[st.Payment], ctx: WinContext, kind: str) -> None:
        """Apply the ruleset's bonus tiles (``bonus_tiles``) turned up for this settlement."""
        rule = self.ruleset.bonus_tiles
        tiles = ctx.extra.get(bonus.CONTEXT_KEY) if rule is not None and kind in rule.at else None
        if rule is None or not tiles:
            return
        bonus.apply(rule, payments, bonus.hits(rule, tiles, dealer=ctx.dealer, winner=ctx.seat,
                                               players=self.ruleset.players))

    def settlement_context(self, kind: str, ctx: WinContext, score: Score,
                           melds: Mapping[int, tuple[Meld, ...]] | None = None) -> st.SettlementContext:
        """What plugins see of a settlement (kind: win or opening); ``melds``: every seat's
        declared melds as far as known."""
        return st.SettlementContext(
            kind=kind, players=self.ruleset.players, dealer=ctx.dealer, winners=(ctx.seat,),
            win_by=ctx.win_by, discarder=ctx.discarder, patterns=tuple(score.pattern_names),
            points=score.points, flags=ctx.flags, extra=ctx.extra, melds=melds or {})

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


_KNITTED_SETS = [(ks, frozenset(ks)) for ks in KNITTED_STRAIGHTS]

# How much of a reading a measure looks at (the reading search, Evaluator._search): 0 nothing
# (hand-level facts), 1 the suit (or honor) of each tile, 2 also how many copies of each kind;
# a measure not listed here (ranks: rank_span, knitted_straights) gets 3, the whole reading.
_MEASURE_LEVEL = {
    "wildcards": 0, "wildcards_held": 0, "flowers": 0, "waiting_tiles": 0,
    "honors": 1, "suits": 1, "missing_suits": 1, "sequences": 1, "triplets": 1, "kongs": 1,
    "claimed_melds": 1, "concealed_kongs": 1, "exposed_kongs": 1, "concealed_triplets": 1,
    "natural_wildcards": 1, "self_wild_sequences": 1,
    "distinct_honors": 2, "sets_of_four": 2, "sets_of_three": 2, "fours_not_kong": 2, "distinct_kinds": 2,
}


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
        self._self_wild: dict[tuple, tuple[int, list[int], tuple[tuple[Tile, Tile, Tile], ...]] | None] = {}

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
                  ) -> tuple[int, list[int], tuple[tuple[Tile, Tile, Tile], ...]] | None:
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
        found: tuple[int, list[int], tuple[tuple[Tile, Tile, Tile], ...]] | None = None
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


def _tile_filters(p: Pattern) -> list[TileFilter]:
    """Every tile filter a pattern applies to the tiles of a reading."""
    out = [f for f in (p.all_tiles, p.no_tiles, p.pair, p.every_group, p.any_group) if f is not None]
    g: GroupFilter | None = p.groups
    if g is not None and g.holding is not None:
        out.append(g.holding)
    return out


def _group_order(g: Group) -> tuple:
    """The order of a reading's groups (as :mod:`.readings` sorts them)."""
    return (g.tiles, g.kind, g.sources, g.meld or "")


def _by_index(x: tuple[Pattern, int]) -> int:
    return x[0].index


def _shape_key(s: Shape) -> tuple:
    return (s.kind, s.melds, s.pair, s.pairs, s.min_gap, s.distinct_honors, s.orphans, s.tracks)


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
