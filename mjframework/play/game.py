"""The game engine: one hand from wall to settlement, driven by the ruleset alone.

:class:`Game` builds the wall, rolls and breaks it, deals, flips the
indicator, then runs turns — draw, self-draw win, kongs, discard, claims by
priority — until a win or the wall runs out, settles, and names the next
dealer. Everything variant-specific comes from the ruleset (claims, win
rules, priorities, dealer rotation) or from plugins; the engine knows no
variant.

One seeded :class:`random.Random` per hand: the same seed and the same
decisions replay the same hand exactly.
"""

from __future__ import annotations

import random
import warnings
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..core.errors import HandError
from ..core.hand import KONG_PAYMENT_KEY, Hand, Meld, WinContext
from ..core.kinds import KongKind
from ..core.stash import Stash
from ..core.tiles import FLOWER_BASE, HONOR_BASE, NUM_KINDS, Tile, is_flower, is_honor, tile_code
from ..evaluate.scoring import Evaluator, Score
from ..hooks.registry import EngineAbort, PluginError, bound_hook, call_hook, hook_is_live
from ..settle import settlement as st
from ..settle.laid import LAID_KEY, laid_counts
from . import counters as cnt
from . import events as evt
from .bonus import BonusFlips
from .events import EventSink, make_event, tiles_out
from .outcomes import Discard, EndDrawn, HandEnd, OptionOutcome, Win, option_outcome
from .players import PASS, Decision, IllegalDecision, Option, Player, PlayerLeft, TableView, make_decision
from .visibility import BY_SEAT, NOBODY, is_face_down


@dataclass
class SeatState:
    hand: list[Tile] = field(default_factory=list)
    melds: list[Meld] = field(default_factory=list)
    discards: list[Tile] = field(default_factory=list)
    drew_first: bool = False  # has had a turn (first_turn ends with it)
    # Declarations (void_suit, ready), wins this hand, and plugins' per-seat state.
    state: dict[str, Any] = field(default_factory=dict)
    won_tiles: list[Tile] = field(default_factory=list)  # tiles won on, set aside (after_win: stay)
    flowers: list[Tile] = field(default_factory=list)  # bonus tiles set aside (tiles.flowers)


@dataclass
class HandResult:
    result: str  # win | draw | abandon
    winners: list[int]
    next_dealer: int
    payments: list[int]
    patterns: dict[int, list[str]] = field(default_factory=dict)
    error: str = ""


class HandAbandoned(EngineAbort):
    """A player or plugin failed; the hand stops cleanly with an ``abandon`` event."""


class _Resume(BaseException):
    """Raised after a win when the hand goes on (``win.after_win``): ``seat`` draws next."""

    def __init__(self, seat: int) -> None:
        super().__init__(seat)
        self.seat = seat


class _HandOver(BaseException):
    """Raised by the deprecated ending methods (``HandControl.win``, ``end_drawn``,
    ``rob_kong``), which end the hand from inside a plugin's frame; plugins now return
    a :class:`~mjframework.play.outcomes.Win` / :class:`~mjframework.play.outcomes.EndDrawn` instead.

    A BaseException so that the guard around plugin hooks, which turns a
    plugin's ``Exception`` into an abandoned hand, lets it through.
    """

    def __init__(self, result: HandResult) -> None:
        super().__init__(result.result)
        self.result = result


# The events a sink not reading their fields gets as ``{"type": …}`` (two every turn; the
# deal's and the wall's tile codes once a hand).
_BARE_TYPES = frozenset({"draw", "discard", "deal", "wall"})

_SUIT_INDEX = {"m": 0, "p": 1, "s": 2}

_DISCARDS: dict[Tile, Option] = {}


_MELDS: dict[tuple[str, Tile, tuple[Tile, ...], str | None], Option] = {}


def _meld_option(kind: str, tile: Tile, tiles: tuple[Tile, ...], meld: str | None = None) -> Option:
    """The (immutable, shared) claim option ``Option(kind, tile, tiles, meld)``: built once."""
    key = (kind, tile, tiles, meld)
    o = _MELDS.get(key)
    if o is None:
        o = _MELDS[key] = Option(kind, tile, tiles, meld)
    return o


_EXCHANGES: dict[tuple[Tile, ...], Option] = {}


def _exchange_option(tiles: tuple[Tile, ...]) -> Option:
    """The (immutable, shared) option of passing ``tiles``: a seat weighs ~20–80 of them."""
    o = _EXCHANGES.get(tiles)
    if o is None:
        o = _EXCHANGES[tiles] = Option("exchange", None, tiles)
    return o


def _discard_option(t: Tile) -> Option:
    """The (immutable, shared) plain discard option of ``t``: built once per kind, not per turn."""
    o = _DISCARDS.get(t)
    if o is None:
        o = _DISCARDS[t] = Option("discard", t)
    return o


# The same, indexed by kind: a turn offers ~12 discards.
_PLAIN_DISCARDS: tuple[Option, ...] = tuple(_discard_option(t) for t in range(NUM_KINDS))


class Game:
    """Plays one hand. ``players`` are indexed by absolute seat."""

    def __init__(self, ruleset: Any, players: Sequence[Player], *, seed: int, dealer: int = 0,
                 hand_no: int = 0, emit: EventSink | None = None, evaluator: Evaluator | None = None,
                 last_winner_call: tuple[int, str] | None = None, hand_in_game: int | None = None,
                 counters: cnt.Counts | None = None) -> None:
        from .wall import Wall

        self.ruleset = ruleset
        self.players = list(players)
        if len(self.players) != ruleset.players:
            raise ValueError(f"{ruleset.id} needs {ruleset.players} players, got {len(self.players)}")
        self.seed = seed
        self.hand_no = hand_no
        # The hand's place in its game (the prevalent wind advances with it: `winds`).
        self.hand_in_game = hand_no if hand_in_game is None else hand_in_game
        self.dealer = dealer
        self.counters = counters if counters is not None else cnt.start(ruleset)  # play/counters.py
        self.rng = random.Random(seed)
        self.emit = emit if emit is not None else (lambda e: None)
        self.ev = evaluator or Evaluator(ruleset)
        self.wall = Wall(ruleset, self.rng, dealer)
        self.seats = [SeatState() for _ in range(ruleset.players)]
        self.wildcard: Tile | None = None
        self.wildcards: frozenset[Tile] = frozenset()  # every wild kind (fixed ones and the flipped one)
        self.indicator: Tile | None = None
        wrule = ruleset.wildcard
        self.wild_may = (True, False, False) if wrule is None else (
            wrule.may_discard, wrule.may_claim, wrule.may_meld)
        self.no_claims = True
        self.kongs: list[st.KongRecord] = []
        self.last_drawer: int | None = None
        self.replacement_seat: int | None = None  # the seat whose last draw was a kong replacement
        # The seat whose replacement draw (from the kong end) took the last drawable
        # tile: the hand then has no last tile (no last_tile flag for anyone).
        self.last_tile_replacement: int | None = None
        self.claims = ruleset.claims
        self.win_rules = ruleset.win
        self.priority = {k: i for i, k in enumerate(self.claims.priority)}
        self.locked: set[int] = set()  # seats whose hand is locked (may only win or discard the draw)
        self.opening_winners: list[int] = []
        self.settled = [0] * ruleset.players  # net of settlements made before the hand's end
        self.revealed = False  # face-down melds shown (at the hand's end)
        self.left: list[int] = []  # seats that left the table this hand
        self._offered: tuple[int, Tile] | None = None  # (discarder, tile) a plugin's claim takes
        # Per seat: (its held tiles, melds, wildcard) and the kinds that could complete them
        # (None: any kind may), from WinScreen.wait_sets — see _may_win_on.
        self._win_cands: list[tuple[list[Tile], list[Meld], Tile | None, set[Tile] | None] | None] = (
            [None] * ruleset.players)
        self.previous = last_winner_call  # (seat, call) of the previous hand's win in this game
        self.pm = self.ev.pm
        self.flow = ruleset.flow
        self.out: set[int] = set()  # seats that won and left the hand (after_win: leave)
        self.win_log: list[tuple[tuple[int, ...], int | None]] = []  # (winners, discarder) per win
        self.kongs_paid = 0  # kongs[:kongs_paid] are settled
        self.kong_money: list[tuple[st.KongRecord, list[st.Payment]]] = []  # paid at the kong
        self.patterns_won: dict[int, list[str]] = {}
        self._restricts = bool(self.pm and self.pm.hook.mj_restrict_options.get_hookimpls())
        self._refuses = bool(self.pm and self.pm.hook.mj_refuse_win.get_hookimpls())
        self.control = HandControl(self)
        self.laid = {t: lk.name for lk in ruleset.laid_kongs for t in lk.tiles}  # laid_kongs: kind → name
        self.bonus = None if ruleset.bonus_tiles is None else BonusFlips(  # bonus_tiles: play/bonus.py
            ruleset.bonus_tiles, ruleset.players, self.wall, self._send)
        # Each seat's view (it reads the game live: one per seat serves every decision).
        self._views = [TableView(self, seat) for seat in range(ruleset.players)]
        self._emit_raw = self.emit
        # The hooks called at every decision and every event, bound once (see BoundHook).
        self._extra_hook = bound_hook(self.pm, "mj_extra_options")
        self._announce_hook = bound_hook(self.pm, "mj_announce")
        # Events cost nothing when nobody listens: no sink and no plugin announcing.
        announces = hook_is_live(self.pm, "mj_announce")
        if announces:
            self.emit = self._emit_with_plugins
        self._silent = emit is None and not announces
        # The sink's frequent events whose fields nobody reads (see events.reads_fields_of):
        # sent as ``{"type": …}`` alone, without building their tile codes.
        read = evt.fields_read(emit)
        if announces and read is not None:
            read = self._announced_types(read)
        bare = frozenset() if read is None else _BARE_TYPES - read
        self._bare_draw = "draw" in bare
        self._bare_discard = "discard" in bare
        self._bare_deal = "deal" in bare
        self._bare_wall = "wall" in bare
        # A plugin's announcement (a ``call`` event) to a sink that doesn't read calls (the
        # statistics sink): its type alone, as the frequent events above.
        self._bare_call = read is not None and "call" not in read

    def _announced_types(self, read: frozenset[str]) -> frozenset[str] | None:
        """``read`` and the event types the announcing plugins may speak about (their
        :func:`only_for`), or None (all) when a plugin names none or the hook is not called
        directly (traced, wrapped). The other frequent events (a plugin calling out
        discards says nothing about draws) then reach the sink bare, as they would with no
        plugin: a plugin ``only_for`` leaves out is not called with them at all. (A tracer
        started later in the hand sees those events bare, as the sink does; the plugins'
        promise is to answer None to them.)"""
        plan = self._announce_hook.direct()
        if plan is None:
            return None
        spoken: set[str] = set()
        for _impl, _pick, only in plan:
            if only is None:
                return None
            spoken.update(only)
        return read | spoken

    # -- helpers -------------------------------------------------------------

    def _event(self, type_: str, **fields: Any) -> None:
        """A plugin's event (``HandControl.emit``): any type, any fields."""
        if not self._silent:
            self.emit(make_event(type_, **fields))

    def _send(self, event: evt.EventBase) -> None:
        if not self._silent:
            self.emit(event.to_json())

    def _emit_with_plugins(self, event: dict[str, Any]) -> None:
        self._emit_raw(event)
        t = event["type"]
        if t != "call":
            plan = self._announce_hook.direct()
            if plan is None:
                said = self.hook("mj_announce", hand=self.control, event=event)
            else:  # as call_hook would, skipping the plugins whose only_for leaves this type out
                said = []
                args = (self.control, event)
                try:
                    for impl, pick, only in plan:
                        if only is None or t in only:
                            res = impl.function(*[args[i] for i in pick])
                            if res is not None:
                                said.append(res)
                except PluginError as e:
                    raise HandAbandoned(str(e)) from e
            for text_seat in said:
                if text_seat:
                    if self._bare_call:
                        self._emit_raw({"type": "call"})
                        continue
                    text, seat = text_seat if isinstance(text_seat, tuple) else (text_seat, event.get("seat"))
                    self._emit_raw(evt.Call(seat=seat, text=text, about=event["type"]).to_json())

    def hook(self, name: str, firstresult: bool = False, **kwargs: Any) -> Any:
        """Call the plugins' ``name`` hook in ruleset order.

        A plugin raising is reported with its name and the hook, and the hand
        is abandoned (``HandAbandoned``); the engine's state is untouched.
        """
        try:
            return call_hook(self.pm, name, firstresult=firstresult, **kwargs)
        except PluginError as e:
            raise HandAbandoned(str(e)) from e

    def _extra_options(self, seat: int, decision: Decision) -> list[Option]:
        """The options plugins add to a turn or claim (``mj_extra_options``), in hook order.

        Called at every decision, so through the bound hook: nothing when no plugin
        implements it, and a plugin whose :func:`only_for` names option kinds the decision
        doesn't offer is not called."""
        plan = self._extra_hook.direct()
        if not plan:
            if plan is None:
                return [o for opts in self.hook("mj_extra_options", hand=self.control, seat=seat,
                                                decision=decision) for o in opts]
            return []
        args = (self.control, seat, decision)
        kinds: set[str] | None = None
        out: list[Option] = []
        try:
            for impl, pick, only in plan:
                if only is not None:
                    if kinds is None:
                        kinds = {o.kind for o in decision.options}
                    if only.isdisjoint(kinds):
                        continue
                res = impl.function(*[args[i] for i in pick])
                if res is not None:
                    out.extend(res)
        except PluginError as e:
            raise HandAbandoned(str(e)) from e
        return out

    def _ask(self, decision: Decision) -> Option:
        seat = decision.seat
        if self._restricts:
            decision = self._restrict(decision)
        if len(decision.options) == 1 and decision.kind != "turn":
            return decision.options[0]
        try:
            choice = self.players[seat].decide(self._views[seat], decision)
        except IllegalDecision:
            raise
        except Exception as e:  # a bot (or UI) failing must not corrupt the hand: it leaves
            why = (str(e) or "left") if isinstance(e, PlayerLeft) else (
                f"failed deciding {decision.kind}: {type(e).__name__}: {e}")
            self._leave(seat, why)
            return self._ask(decision)  # a stand-in bot plays on (or _leave ended the hand)
        # Players return one of the offered objects: identity first, equality (dataclass) only else.
        for o in decision.options:
            if o is choice:
                break
        else:
            if choice not in decision.options:
                raise HandAbandoned(f"seat {seat} chose {choice!r}, which was not offered "
                                    f"for {decision.kind} (options: "
                                    f"{', '.join(o.label() for o in decision.options)})")
        return choice

    def _restrict(self, decision: Decision) -> Decision:
        """Plugins remove options (``mj_restrict_options``); a turn keeps a way to go on."""
        drop: set[Option] = set()
        for opts in self.hook("mj_restrict_options", hand=self.control, seat=decision.seat,
                              decision=decision):
            drop.update(opts or ())
        if not drop:
            return decision
        kept = tuple(o for o in decision.options if o not in drop)
        if decision.kind == "turn" and not any(o.kind in ("discard", "win") for o in kept):
            raise HandAbandoned(f"plugins removed every discard and win from seat {decision.seat}'s turn")
        if not kept:
            raise HandAbandoned(f"plugins removed every option of seat {decision.seat}'s {decision.kind}")
        return Decision(decision.kind, decision.seat, kept, decision.tile, decision.from_seat,
                        decision.prompt)

    def _leave(self, seat: int, why: str) -> None:
        """``seat`` leaves the table: a ``leave`` event, the ruleset's penalty settled at
        once, then the hand is abandoned (ends here) or a bot takes the seat."""
        from .bots import GreedyBot

        rule = self.ruleset.leave
        n = self.ruleset.players
        self.left.append(seat)
        self._send(evt.Leave(seat=seat, reason=why, penalty=rule.penalty, paid_to=rule.paid_to,
                             hand=rule.hand))
        if rule.penalty:
            payees: list[int | None] = ([None] if rule.paid_to == "none"
                                        else [s for s in range(n) if s != seat])
            s = st.Settlement(n, [st.Payment(seat, p, rule.penalty, st.LEAVE_REASON) for p in payees])
            net = s.net()
            self.settled = [a + b for a, b in zip(self.settled, net, strict=True)]
            self._send(evt.Settlement(payments=net, items=[p.to_dict() for p in s.payments]))
        if rule.hand == "bot":
            self.players[seat] = GreedyBot(random.Random(f"{self.seed}/left/{seat}"))
            return
        reason = f"seat {seat} left: {why}"
        self._emit_raw(evt.Abandon(reason=reason).to_json())
        self._reveal(self._emit_raw)
        self._emit_raw(evt.HandEnd(result="abandon", next_dealer=self.dealer).to_json())
        raise _HandOver(HandResult("abandon", [], self.dealer, list(self.settled), error=reason))

    def _ctx(self, seat: int, win_by: str, discarder: int | None, flags: set[str],
             tile: Tile | None = None) -> WinContext:
        """The context of a win by ``seat``; with the winning ``tile``, ``last_copy`` is raised
        when the other copies are all in sight."""
        state = self.seats[seat].state
        if self.counters:  # the winner's counts that last across hands read as its seat state
            state = {**cnt.of_seat(self.counters, seat), **state}
        if tile is not None and self._last_copy(seat, tile, win_by):
            flags = {*flags, "last_copy"}
        in_play = (frozenset(s for s in range(self.ruleset.players) if s not in self.out)
                    if self.out else None)
        every = self.flow.prevalent_every
        prevalent = HONOR_BASE + (self.hand_in_game // every) % 4 if every else None
        return WinContext(seat=seat, win_by=win_by, discarder=discarder, flags=frozenset(flags),
                          dealer=self.dealer, seat_state=dict(state) if state else {}, in_play=in_play,
                          prevalent_wind=prevalent, flowers=len(self.seats[seat].flowers))

    def _last_copy(self, seat: int, tile: Tile, win_by: str) -> bool:
        """The other copies of ``tile`` are all in sight: discarded (still in a river) or in
        declared melds, and the winner holds none (the ``last_copy`` flag)."""
        held = self.seats[seat].hand.count(tile) - (win_by == "self_draw")  # a drawn tile is held
        if held > 0:
            return False
        seen = sum(s.discards.count(tile) + sum(m.tiles.count(tile) for m in s.melds)
                   for s in self.seats)
        if win_by != "self_draw":
            seen -= 1  # the discarded (or robbed) tile itself
        return seen >= self.ruleset.tileset.copies - 1

    # -- seats in play, declarations, refusals -------------------------------------

    def _next_active(self, seat: int) -> int:
        n = self.ruleset.players
        for i in range(1, n + 1):
            nxt = (seat + i) % n
            if nxt not in self.out:
                return nxt
        return seat

    def _void_of(self, seat: int) -> int | None:
        """The suit index (0 m, 1 p, 2 s) the seat declared void, if any."""
        v = self.seats[seat].state.get("void_suit")
        if v is None:
            return None
        i = _SUIT_INDEX.get(v)
        return "mps".index(v) if i is None else i  # (an unknown suit raises, as it did)

    def _in_void(self, seat: int, t: Tile) -> bool:
        v = self._void_of(seat)
        return v is not None and t // 9 == v  # (t // 9 is never a suit's index for an honor)

    def _holds_void(self, seat: int) -> bool:
        v = self._void_of(seat)
        return v is not None and any(not is_honor(t) and t // 9 == v for t in self.seats[seat].hand)

    def _refused(self, seat: int, hand: Hand, ctx: WinContext) -> bool:
        """A win the declarations (a held void suit) or a plugin (``mj_refuse_win``) refuse."""
        if self.ev.void_refuses(hand, ctx):
            return True
        if self._refuses:
            assert hand.win_tile is not None
            for reason in self.hook("mj_refuse_win", hand=self.control, seat=seat, tile=hand.win_tile,
                                    win_by=ctx.win_by, context=ctx):
                if reason:
                    return True
        return False

    def _wins(self, seat: int, hand: Hand, ctx: WinContext) -> bool:
        return self.ev.is_win(hand, ctx, self.wildcard) and not self._refused(seat, hand, ctx)

    def _hand(self, seat: int, win_tile: Tile, held: list[Tile] | None = None) -> Hand:
        s = self.seats[seat]
        return Hand(tuple(held if held is not None else s.hand), tuple(s.melds), win_tile)

    def _is_wild(self, t: Tile) -> bool:
        return t in self.wildcards

    # -- the hand ------------------------------------------------------------

    def play(self) -> HandResult:
        rs = self.ruleset
        try:
            self._send(evt.HandStart(hand=self.hand_no, ruleset=rs.id, dealer=self.dealer, seed=self.seed,
                                     counters=cnt.table_view(rs, self.counters) if self.counters else None))
            result = self._play()
        except _HandOver as over:
            result = over.result
        except (HandAbandoned, PluginError) as e:
            # Told straight to the sinks: a failing plugin must not be asked again.
            nxt = self.dealer
            plugin = getattr(e, "plugin", None) or getattr(e.__cause__, "plugin", None)
            self._emit_raw(evt.Abandon(reason=str(e), plugin=plugin or None).to_json())
            self._reveal(self._emit_raw)
            self._emit_raw(evt.HandEnd(result="abandon", next_dealer=nxt).to_json())
            return HandResult("abandon", [], nxt, [0] * rs.players, error=str(e))
        return result

    def _play(self) -> HandResult:
        rs = self.ruleset
        brk = self.wall.break_wall()
        self._send(evt.Dice(purpose="break", values=list(brk.dice)))
        if self._bare_wall:
            self.emit({"type": "wall"})
        elif not self._silent:  # (136 tile codes: not made for nobody)
            self._send(evt.Wall(start_wall=brk.wall_seat, start_stack=brk.stack, height=self.wall.height,
                                tiles=[tile_code(t) if t is not None else None for t in self.wall.slots],
                                hidden={"tiles": NOBODY}))
        self._deal()
        if self._bare_deal:
            self.emit({"type": "deal"})
        else:
            self._send(evt.Deal(hands=[tiles_out(sorted(s.hand)) for s in self.seats],
                                hidden={"hands": BY_SEAT}))
        if rs.tileset.flowers:
            self._replace_dealt_flowers()
        if self.laid:
            self._lay_dealt_kongs()
        rule = rs.wildcard
        if rule is not None and rule.flips:
            dice, ind = self.wall.flip_indicator()
            self._send(evt.Dice(purpose="wildcard", values=list(dice)))
            self.indicator = ind
            self.wildcard = rule.wildcard_for(ind)
            self.wildcards = rule.kinds(self.wildcard)
            if rule.fixed:
                self._send(evt.Wildcard(indicator=tile_code(ind), wildcard=tile_code(self.wildcard),
                                        wildcards=tiles_out(sorted(self.wildcards))))
            else:
                self._send(evt.Wildcard(indicator=tile_code(ind), wildcard=tile_code(self.wildcard)))
        elif rule is not None:  # fixed wildcards only: nothing flipped, nothing taken out of play
            self.wildcard = rule.fixed[0]
            self.wildcards = rule.kinds()
            self._send(evt.Wildcard(indicator=None, wildcard=tile_code(self.wildcard),
                                    wildcards=tiles_out(sorted(self.wildcards))))
        if self.flow.exchange is not None:
            self._exchange()
        if self.flow.void_suit is not None:
            self._declare_void()
        self.hook("mj_after_deal", hand=self.control)
        return self._turns()

    # -- phases before play ------------------------------------------------------

    def _exchange(self) -> None:
        """Every seat passes the declared number of tiles in one direction."""
        ex = self.flow.exchange
        assert ex is not None
        n = self.ruleset.players
        direction = ex.direction
        if direction is None:
            dice = self.wall.roll(ex.dice)
            self._send(evt.Dice(purpose="exchange", values=list(dice)))
            direction = ex.by_dice[sum(dice)]
        step = {"right": 1, "across": 2, "left": n - 1}[direction]
        chosen: dict[int, tuple[Tile, ...]] = {}
        for i in range(n):
            seat = (self.dealer + i) % n
            options = self._exchange_options(self.seats[seat].hand, ex.tiles, ex.same_suit)
            choice = self._ask(Decision("exchange", seat, options,
                                        prompt=f"pass {ex.tiles} tiles to the {direction}"))
            chosen[seat] = choice.tiles
        for seat, tiles in chosen.items():
            for t in tiles:
                self.seats[seat].hand.remove(t)
        for seat, tiles in chosen.items():
            self.seats[(seat + step) % n].hand.extend(tiles)
        # The log keeps every pass (``passes``); a player sees only what it gave and got.
        self._send(evt.Exchange(
            direction=direction,
            passes=[{"seat": seat, "to": (seat + step) % n, "tiles": tiles_out(list(t))}
                    for seat, t in sorted(chosen.items())],
            given=[tiles_out(list(chosen[seat])) for seat in range(n)],
            received=[tiles_out(list(chosen[(seat - step) % n])) for seat in range(n)],
            hidden={"passes": NOBODY, "given": BY_SEAT, "received": BY_SEAT}))

    @staticmethod
    def _exchange_options(hand: list[Tile], k: int, same_suit: bool) -> tuple[Option, ...]:
        """Every distinct choice of ``k`` held tiles (of one suit, where the rule says so;
        any ``k`` if no suit has that many)."""
        from itertools import combinations

        groups: list[list[Tile]] = []
        if same_suit:
            by: dict[int, list[Tile]] = {}
            for t in sorted(hand):
                by.setdefault(3 if is_honor(t) else t // 9, []).append(t)
            groups = [g for g in by.values() if len(g) >= k]
        if not groups:
            groups = [sorted(hand)]
        seen: dict[tuple[Tile, ...], None] = {}
        for g in groups:
            for combo in combinations(g, k):
                seen.setdefault(combo, None)
        return tuple([_exchange_option(combo) for combo in seen])

    def _declare_void(self) -> None:
        """Every seat declares one suit of the tile set void."""
        n = self.ruleset.players
        suits = sorted({t // 9 for t in self.ruleset.tileset.kinds if not is_honor(t)})
        for i in range(n):
            seat = (self.dealer + i) % n
            options = tuple(Option("declare", value="mps"[x]) for x in suits)
            choice = self._ask(Decision("declare", seat, options, prompt="declare a void suit"))
            self.seats[seat].state["void_suit"] = choice.value
            self._send(evt.Declare(seat=seat, what="void_suit", value=choice.value))

    def _set_flower_aside(self, seat: int, t: Tile) -> None:
        self.seats[seat].flowers.append(t)
        self._send(evt.Flower(seat=seat, tile=tile_code(t)))

    def _replace_dealt_flowers(self) -> None:
        """After the deal each player, from the dealer on, sets flowers aside and replaces them."""
        n = self.ruleset.players
        for seat in [(self.dealer + i) % n for i in range(n)]:
            hand = self.seats[seat].hand
            while any(is_flower(t) for t in hand):
                f = next(t for t in hand if is_flower(t))
                hand.remove(f)
                self._set_flower_aside(seat, f)
                rep = self.wall.take_kong()
                if rep is None:
                    raise HandAbandoned("the wall ran out replacing flowers")
                hand.append(rep)
                self._send(evt.Draw(seat=seat, tile=tile_code(rep), source="flower", hidden={"tile": seat}))

    def _lay_dealt_kongs(self) -> None:
        """After the deal each player, from the dealer on, lays aside the `laid_kongs` kinds held."""
        n = self.ruleset.players
        for seat in [(self.dealer + i) % n for i in range(n)]:
            while (t := next((x for x in self.seats[seat].hand if x in self.laid), None)) is not None:
                self._lay_kong(seat, t)
                if self._give(seat, self.wall.take_kong(), "kong") is None:
                    raise HandAbandoned("the wall ran out replacing a tile laid aside as a kong")

    def _lay_kong(self, seat: int, t: Tile) -> None:
        """A `laid_kongs` kind leaves the hand as a kong: the seat's count (seat state) goes up."""
        s = self.seats[seat]
        s.hand.remove(t)
        name = self.laid[t]
        s.state[name] = s.state.get(name, 0) + 1
        self._send(evt.LaidKong(seat=seat, tile=tile_code(t), name=name))

    def _deal(self) -> None:
        d = self.ruleset.deal
        n = self.ruleset.players
        order = [(self.dealer + i) % n for i in range(n)]
        for _ in range(d.rounds):
            for seat in order:
                block = self.wall.take_live_n(d.block)
                self.seats[seat].hand.extend(block)
                if len(block) < d.block:
                    self._must(None)
        for step in d.then:
            seat = (self.dealer + step.seat) % n
            for pick in step.take:
                self.seats[seat].hand.append(self.wall.take_at(pick.stack, pick.layer))
            for _ in range(step.tiles):
                self.seats[seat].hand.append(self._must(self.wall.take_live()))
        # Tiles taken out of order (跳杠) leave the live end at the first untaken slot.
        while self.wall.live < len(self.wall.slots) and self.wall.slots[self.wall.live] is None:
            self.wall.live += 1

    @staticmethod
    def _must(t: Tile | None) -> Tile:
        if t is None:
            raise HandAbandoned("the wall ran out during the deal")
        return t

    def _turns(self) -> HandResult:
        n = self.ruleset.players
        seat = self.dealer
        drawn: Tile | None = None  # the dealer starts with 14, no draw
        flags: set[str] = set()
        must_draw = False
        pending: Any = None  # a turn's outcome already decided (a plugin's claim)
        while True:
            try:
                outcome: Any = None
                if pending is not None:
                    outcome, pending, flags = pending, None, set()
                elif must_draw:
                    if self.wall.live_remaining() == 1:
                        ended = self.hook("mj_last_tile", firstresult=True, hand=self.control, seat=seat)
                        if isinstance(ended, Win | EndDrawn):
                            return self._end_by_plugin(ended)
                    t = self._draw(seat, "wall")
                    if t is None:
                        return self._exhausted()
                    drawn = t
                    flags = {"last_tile"} if self.wall.live_remaining() == 0 else set()
                if not self.seats[seat].drew_first:
                    if self.no_claims:
                        flags |= {"first_turn", "no_claims_yet"}
                    self.seats[seat].drew_first = True
                elif self.no_claims:
                    flags.add("no_claims_yet")
                if outcome is None:
                    outcome = self._turn(seat, drawn, flags)
                if isinstance(outcome, HandResult):
                    return outcome
                kind, tile, claim_flags = outcome
                if kind == "discarded":
                    # The wall is done after this discard: the last tile was drawn (last_tile), or a
                    # replacement draw took the last tile (then the hand has no last tile: no last_tile flag).
                    last = "last_tile" in flags or self.wall.live_remaining() == 0
                    claim = self._claims(seat, tile, last,
                                         first=("first_turn" in flags and seat == self.dealer),
                                         extra_flags=claim_flags, haidi="last_tile" in flags)
                    if isinstance(claim, HandResult):
                        return claim
                    if last:
                        return self._exhausted()
                    if claim is None:
                        seat = self._next_active(seat) if self.out else (seat + 1) % n
                        must_draw = True
                        drawn = None
                        continue
                    if claim[0] == "outcome":  # a plugin's claim decided the claimer's turn
                        seat, pending, must_draw = claim[1], claim[2], False
                        continue
                    seat, drawn, flags, must_draw = claim
                    continue
            except _Resume as r:  # a win, and the hand goes on
                seat, drawn, flags, must_draw, pending = r.seat, None, set(), True, None

    def _turn(self, seat: int, drawn: Tile | None, flags: set[str]) -> Any:
        """A player holding a full hand acts: win, kong, or discard. Loops over kongs."""
        s = self.seats[seat]
        while True:
            options: list[Option] = []
            win = self._self_win(seat, drawn, flags)
            if win is not None:
                win_tile, held = win
                options.append(Option("win", win_tile))
            locked = seat in self.locked
            kinds = sorted(set(s.hand))
            # Four of a kind needs at least three tiles more than kinds held; the wall's kong
            # tiles are counted only when a kong is in sight (most turns have none).
            if not locked and len(s.hand) - len(kinds) >= 3 and self.claims.concealed_kong:
                quads = [t for t in kinds if s.hand.count(t) == 4]
                if quads and self._kong_tiles_left():
                    void_kong = self.flow.void_suit is None or self.flow.void_suit.claim
                    for t in quads:
                        if ((self.wild_may[2] or not self._is_wild(t))
                                and (void_kong or not self._in_void(seat, t))):
                            options.append(Option("kong", t, (t,) * 4, "concealed-kong"))
            if not locked and s.melds and self.claims.added_kong:
                added = [m.tiles[0] for m in s.melds if m.kind == "pung" and m.tiles[0] in s.hand]
                if added and self._kong_tiles_left():
                    options.extend(Option("kong", t, (t,) * 4, "added-kong") for t in added)
            if locked and drawn is not None:
                options.append(Option("discard", drawn))
            else:
                tiles = kinds
                if not self.wild_may[0]:  # wildcards may not be discarded (unless nothing else is held)
                    tiles = [t for t in tiles if not self._is_wild(t)] or tiles
                vs = self.flow.void_suit
                if vs is not None and vs.discard_first:
                    v = self._void_of(seat)
                    if v is not None:  # the void suit's tiles first (t // 9 is never a suit for an honor)
                        tiles = [t for t in tiles if t // 9 == v] or tiles
                if not tiles or tiles[-1] < NUM_KINDS:  # (sorted: every kind is a plain tile kind)
                    options.extend(map(_PLAIN_DISCARDS.__getitem__, tiles))
                else:
                    options.extend([_discard_option(t) for t in tiles])
                if self.flow.ready and not s.state.get("ready"):
                    options.extend(Option("discard", t, value="ready") for t in tiles
                                   if self._ready_after(seat, t))
            decision = make_decision("turn", seat, tuple(options), drawn)
            extra = self._extra_options(seat, decision)
            if extra:
                decision = make_decision("turn", seat, tuple(options + extra), drawn)
            choice = self._ask(decision)
            if choice.kind not in ("win", "kong", "discard"):
                outcome = self._handle_option(seat, choice)
                if outcome is None:
                    raise HandAbandoned(f"no plugin handles the option {choice.kind!r}")
                if isinstance(outcome, Discard):
                    return self._discard(seat, outcome.tile, set(outcome.flags))
                if isinstance(outcome, Win | EndDrawn):
                    return self._end_by_plugin(outcome)
                drawn, flags = outcome.tile, set(outcome.flags)
                continue
            if choice.kind == "win":
                return self._settle_win([seat], win_tile, "self_draw", None, flags,
                                        {seat: self._hand(seat, win_tile, held)})
            if choice.kind == "kong":
                assert choice.tile is not None
                robbed = self._make_kong(seat, choice.tile, robbable=True)
                if robbed is not None:
                    return robbed
                rep = self._draw(seat, "kong")
                if rep is None:
                    return self._exhausted()
                drawn = rep
                flags = (flags - {"first_turn", "last_tile"}) | self._after_kong_flags()
                continue
            assert choice.kind == "discard" and choice.tile is not None
            if choice.value == "ready":
                s.state["ready"] = True
                self.locked.add(seat)
                self._send(evt.Declare(seat=seat, what="ready", value=True))
            return self._discard(seat, choice.tile, self._after_kong_discard())

    def _after_kong_discard(self) -> set[str]:
        """The discard after an ordinary kong's replacement draw carries ``after_kong_discard``."""
        if self.replacement_seat is not None and "after_kong_discard" in self.flow.kong_flags:
            return {"after_kong_discard"}
        return set()

    def _ready_after(self, seat: int, discard: Tile) -> bool:
        """Would the seat be waiting (ready) after discarding ``discard``?"""
        held = list(self.seats[seat].hand)
        held.remove(discard)
        return bool(self._waits(seat, held))

    def _waits(self, seat: int, held: list[Tile] | None = None) -> list[Tile]:
        """Tiles the seat would win on (by self-draw), refusals applied."""
        s = self.seats[seat]
        held = list(s.hand) if held is None else held
        ctx = self._ctx(seat, "self_draw", None, set())
        mine = Counter(held) + Counter(t for m in s.melds for t in m.tiles)
        out = []
        for t in self.ev.waits(held, list(s.melds), ctx, self.wildcard):
            if mine[t] >= self.ruleset.tileset.copies:
                continue  # all of that tile are in the seat's own hand: it can never come
            if not self._refused(seat, Hand(tuple(held), tuple(s.melds), t), ctx):
                out.append(t)
        return out

    def _discard(self, seat: int, tile: Tile, claim_flags: set[str]) -> tuple[str, Tile, set[str]]:
        s = self.seats[seat]
        s.hand.remove(tile)
        s.discards.append(tile)
        self.replacement_seat = None
        if self._bare_discard:
            self.emit({"type": "discard"})
        else:
            self._send(evt.Discard(seat=seat, tile=tile_code(tile)))
        return ("discarded", tile, claim_flags)

    def _self_win(self, seat: int, drawn: Tile | None, flags: set[str]) -> tuple[Tile, list[Tile]] | None:
        """(winning tile, tiles held before it) if the seat can win by self-draw now.

        Normally the winning tile is the one just drawn. The dealer's dealt 14
        have no drawn tile: every tile is tried and the best-paying is used.
        After a claimed pung or chow there is no draw and no win.
        """
        if not self.win_rules.self_draw:
            return None
        s = self.seats[seat]
        hand = s.hand
        if drawn is not None:
            # The usual answer first, without copying the hand: the drawn tile is not among
            # the kinds remembered for the rest of the hand (see _may_win_after_draw).
            got = self._win_cands[seat]
            if (got is not None and got[3] is not None and drawn not in got[3] and hand
                    and hand[-1] == drawn and len(hand) == len(got[0]) + 1 and got[2] == self.wildcard
                    and hand[:-1] == got[0] and s.melds == got[1]):
                return None
            candidates = [drawn]
        elif "first_turn" in flags:
            candidates = sorted(set(hand))
        else:
            return None
        # One screen of the whole hand first (no copy, no key): most hands fit no shape
        # whichever tile is taken as the winning one, and then every candidate's screen
        # (_may_win_after_draw) would say no. (The dealer's first turn: one screen instead of
        # one per kind held; a draw with no kinds remembered from the claim screen — a
        # ruleset with no wins on discards —: the same answer without copying the hand.)
        if not self.ev.screen.possible_any(hand, s.melds, self.wildcard):
            return None
        best: tuple[int, Tile, list[Tile]] | None = None
        for t in candidates:
            held = list(hand)
            held.remove(t)
            if not self._may_win_after_draw(seat, held, t):
                continue  # the tables rule the win out in any context
            ctx = self._ctx(seat, "self_draw", None, flags, t)
            h = self._hand(seat, t, held)
            if not self._wins(seat, h, ctx):
                continue
            if len(candidates) == 1:
                return t, held
            pts = self.ev.score(h, ctx, self.wildcard).points
            if best is None or pts > best[0]:
                best = (pts, t, held)
        return (best[1], best[2]) if best else None

    def _draw(self, seat: int, source: str) -> Tile | None:
        """Give ``seat`` the next tile from the live end (``wall``) or the kong end (``kong``)."""
        return self._give(seat, self.wall.take_live() if source == "wall" else self.wall.take_kong(),
                          source)

    def _give(self, seat: int, t: Tile | None, source: str) -> Tile | None:
        """A tile taken from the wall goes to ``seat`` (a ``draw`` event); None passes through.
        A flower (``tiles.flowers``) is then set aside (a ``flower`` event) and replaced from
        the kong end (a ``draw`` with ``source: flower``); the replacement is what was drawn."""
        if t is not None:
            self.seats[seat].hand.append(t)
            self.last_drawer = seat
            if source != "flower":
                self.replacement_seat = seat if source == "kong" else None
            if source != "wall" and self.wall.live_remaining() == 0:
                self.last_tile_replacement = seat
            if self._bare_draw:
                self.emit({"type": "draw"})
            else:
                self._send(evt.Draw(seat=seat, tile=tile_code(t), source=source, hidden={"tile": seat}))
            if t >= FLOWER_BASE:  # (is_flower, inline: a draw every turn)
                self.seats[seat].hand.remove(t)
                self._set_flower_aside(seat, t)
                return self._give(seat, self.wall.take_kong(), "flower")
            if self.laid and t in self.laid:  # laid aside as a kong, replaced from the kong end
                self._lay_kong(seat, t)
                return self._give(seat, self.wall.take_kong(), "kong")
        return t

    def _after_kong_flags(self) -> set[str]:
        """Flags of a replacement draw. It never carries ``last_tile``: when it takes the
        last drawable tile the hand has no last tile (``last_tile_replacement`` records who)."""
        return {"after_kong"} if "after_kong" in self.flow.kong_flags else set()

    def _make_kong(self, seat: int, tile: Tile, robbable: bool) -> HandResult | None:
        """Four held tiles (concealed) or a pung + the held fourth (added) become a kong.

        An added kong may first be robbed (``robbable``): then the hand's result
        is returned and the pung stays a pung.
        """
        s = self.seats[seat]
        if s.hand.count(tile) == 4:
            for _ in range(4):
                s.hand.remove(tile)
            s.melds.append(Meld("concealed-kong", (tile,) * 4))
            # Laid face down: only the owner sees the tile until the hand's end.
            self._send(evt.Kong(seat=seat, kind=KongKind.CONCEALED, tile=tile_code(tile),
                                hidden={"tile": seat}))
            self._record_kong(st.KongRecord(seat, "concealed_kong"))
            return None
        i = next((i for i, m in enumerate(s.melds) if m.kind == "pung" and m.tiles[0] == tile), None)
        if i is None or tile not in s.hand:
            raise ValueError(f"seat {seat} holds no kong of {tile_code(tile)}")
        s.hand.remove(tile)
        self._send(evt.Kong(seat=seat, kind=KongKind.ADDED, tile=tile_code(tile)))
        if robbable:
            robbed = self._rob(seat, tile)
            if robbed is not None:
                return robbed
        s.melds[i] = Meld("added-kong", (tile,) * 4, s.melds[i].from_seat)
        self._record_kong(st.KongRecord(seat, "added_kong"))
        return None

    def _record_kong(self, record: st.KongRecord) -> None:
        """A kong is made; with ``scoring.kongs.paid: at_kong`` it is settled now (刮风下雨),
        by the players still in the hand."""
        self.kongs.append(record)
        if self.flow.kongs_paid != "at_kong":
            return
        self.kongs_paid = len(self.kongs)
        pays = [p for p in st.kong_payments(self.ruleset, [record]) if p.payer not in self.out]
        s = st.Settlement(self.ruleset.players, pays)
        st.apply_plugins(s, st.SettlementContext("kong", self.ruleset.players, self.dealer,
                                                 winners=(record.owner,)), self.pm)
        if not s.payments:
            return
        self.kong_money.append((record, list(s.payments)))
        self._book(s, "kong")

    def _kong_tiles_left(self) -> bool:
        return self.wall.kong_remaining() > 0 and self.wall.live_remaining() > 0

    def _seats_after(self, seat: int) -> list[int]:
        n = self.ruleset.players
        return [(seat + i) % n for i in range(1, n) if (seat + i) % n not in self.out]

    def _claims(self, discarder: int, tile: Tile, last: bool, first: bool,
                extra_flags: set[str] | None = None, haidi: bool | None = None) -> Any:
        """Offer the discard to the others; resolve by priority. None if nobody claims.

        ``last``: no tile is left to draw, so only wins are offered; ``haidi``
        (default: ``last``): the discard is the last tile's, wins on it carry ``last_tile``.
        """
        n = self.ruleset.players
        # A discarded wildcard is claimed (won on, 碰, 杠, 吃) only where the ruleset says it may be.
        is_wild = tile in self.wildcards  # (_is_wild, asked once)
        wild = is_wild and not self.wild_may[1]
        if self.claims.never and tile in self.claims.never_kinds:
            wild = True  # a kind never claimed (`claims.never`): as a wildcard that may not be
        can_discard_win = self.win_rules.discard and not wild
        if is_wild and not self.wild_may[2]:
            wild = True  # won on at most: a meld may not hold it
        flags_base: set[str] = set(extra_flags or ())
        if last if haidi is None else haidi:
            flags_base.add("last_tile")
        wants: list[tuple[int, int, Option, int, set[str]]] = []  # (priority, distance, option, seat, flags)
        # What is the same for every seat, worked out once per discard.
        vs = self.flow.void_suit
        void_claims = vs is None or vs.claim
        meldable = not wild and not last
        claims = self.claims
        chow_seat = (discarder + 1) % n if claims.chow == "left" and not is_honor(tile) else -1
        wild_melds = self.wild_may[2]
        wildcard = self.wildcard
        states, win_cands, locked = self.seats, self._win_cands, self.locked
        for dist, seat in enumerate(self._seats_after(discarder)):
            s = states[seat]
            options: list[Option] = []
            flags: set[str] | None = None  # made only for a seat that may claim
            if can_discard_win:
                # _may_win_on's usual answer inline: the seat's remembered kinds, still its hand.
                got = win_cands[seat]
                if (got is not None and got[3] is not None and got[0] == s.hand and got[1] == s.melds
                        and got[2] == wildcard):
                    may = tile in got[3]
                else:
                    may = self._may_win_on(seat, tile)
            else:
                may = False
            if may:
                flags = self._claim_flags(s, flags_base, first)
                ctx = self._ctx(seat, "discard", discarder, flags, tile)
                if self._wins(seat, self._hand(seat, tile), ctx):
                    options.append(Option("win", tile))
            if meldable and seat not in locked and (void_claims or not self._in_void(seat, tile)):
                c = s.hand.count(tile)
                if c >= 2:
                    if c >= 3 and claims.kong and self._kong_tiles_left():
                        options.append(_meld_option("kong", tile, (tile,) * 4, "kong"))
                    if claims.pung:
                        options.append(_meld_option("pung", tile, (tile,) * 3))
                if seat == chow_seat:
                    for seq in self._chows(s.hand, tile):
                        if wild_melds or not any(self._is_wild(t) for t in seq):
                            options.append(_meld_option("chow", tile, seq))
            if not options:
                continue
            if flags is None:
                flags = self._claim_flags(s, flags_base, first)
            decision = make_decision("claim", seat, (*options, PASS), tile, discarder)
            extra = self._extra_options(seat, decision)
            if extra:
                decision = make_decision("claim", seat, (*options, *extra, PASS), tile, discarder)
            choice = self._ask(decision)
            if choice.kind != "pass":
                # A plugin's claim ranks as the claim its ``meld`` names (e.g. kong).
                rank = self.priority.get(choice.kind, self.priority.get(choice.meld or "", 99))
                wants.append((rank, dist, choice, seat, flags))
        if not wants:
            return None
        wants.sort(key=lambda w: (w[0], w[1]))
        top = wants[0]
        if top[2].kind == "win":
            winners = [w for w in wants if w[2].kind == "win"]
            if self.win_rules.discard_winners != "all":
                winners = winners[:1]
            seats = [w[3] for w in winners]
            flags_by = {w[3]: w[4] for w in winners}
            return self._settle_win(seats, tile, "discard", discarder, flags_by,
                                    {w: self._hand(w, tile) for w in seats})
        _, _, choice, seat, _ = top
        if choice.kind not in ("kong", "pung", "chow"):
            self._offered = (discarder, tile)
            outcome = self._handle_option(seat, choice)
            self._offered = None
            if isinstance(outcome, Win | EndDrawn):
                return self._end_by_plugin(outcome)
            if not isinstance(outcome, Discard):
                raise HandAbandoned(f"no plugin carries out the claim {choice.kind!r}")
            return "outcome", seat, self._discard(seat, outcome.tile, set(outcome.flags))
        return self._take_claim(seat, choice, discarder, tile)

    def _may_win_on(self, seat: int, tile: Tile) -> bool:
        """Could ``seat`` win on ``tile`` in some context? False is certain (as
        :meth:`WinScreen.possible`).

        A seat's held tiles stay the same while the others discard, so the kinds
        that could complete them (:meth:`WinScreen.wait_sets`: one pass over the
        wait tables) are worked out once per held hand and remembered for the
        seat; each discard is then a set lookup instead of a table verdict.
        """
        s = self.seats[seat]
        got = self._win_cands[seat]
        # (held tiles, melds — copies, compared as lists: no key built per discard —, wildcard, kinds)
        if got is None or got[0] != s.hand or got[1] != s.melds or got[2] != self.wildcard:
            cands = self.ev.screen.wait_sets(tuple(s.hand), tuple(s.melds), self.wildcard, sure_too=False)[1]
            got = (list(s.hand), list(s.melds), self.wildcard, cands)
            self._win_cands[seat] = got
        cand = got[3]
        if cand is None:
            return self.ev.screen.possible(s.hand, s.melds, tile, self.wildcard)
        return tile in cand

    def _may_win_after_draw(self, seat: int, held: list[Tile], tile: Tile) -> bool:
        """:meth:`_may_win_on` for a drawn ``tile`` (the last tile of the hand, ``held`` the
        rest): the kinds remembered for the held hand while the others discarded, when it is
        still that hand; else :meth:`WinScreen.possible`."""
        s = self.seats[seat]
        got = self._win_cands[seat]
        if (got is not None and got[3] is not None and s.hand and s.hand[-1] == tile
                and len(s.hand) == len(got[0]) + 1 and got[2] == self.wildcard
                and s.hand[:-1] == got[0] and s.melds == got[1]):
            return tile in got[3]
        return self.ev.screen.possible(held, s.melds, tile, self.wildcard)

    def _handle_option(self, seat: int, choice: Option) -> OptionOutcome | None:
        """Ask the plugins to carry out ``choice``: their typed outcome (old tuples converted)."""
        value = self.hook("mj_handle_option", firstresult=True, hand=self.control, seat=seat, option=choice)
        try:
            return option_outcome(value)
        except TypeError as e:
            raise HandAbandoned(str(e)) from None

    def _end_by_plugin(self, end: HandEnd) -> HandResult:
        """Carry out a plugin's :class:`Win` or :class:`EndDrawn`, returned from its hook."""
        if isinstance(end, EndDrawn):
            return self._exhausted(end.next_dealer)
        hands = {}
        for w in end.seats:
            held = list(self.seats[w].hand)
            if end.win_by == "self_draw":
                held.remove(end.tile)
            hands[w] = self._hand(w, end.tile, held)
        return self._settle_win(list(end.seats), end.tile, end.win_by, end.discarder, end.flag_sets(), hands)

    def _claim_flags(self, s: SeatState, flags_base: set[str], first: bool) -> set[str]:
        """The flags of a win on a discard by the seat ``s``: ``flags_base`` + its turn's."""
        flags = set(flags_base)
        if first and not s.drew_first and self.no_claims:
            flags |= {"first_turn", "no_claims_yet"}
        elif self.no_claims:
            flags.add("no_claims_yet")
        return flags

    def _take_claim(self, seat: int, choice: Option, discarder: int, tile: Tile) -> Any:
        """``seat`` takes the discard into the meld ``choice.tiles`` (a ``claim`` event);
        a kong then draws its replacement."""
        s = self.seats[seat]
        self.seats[discarder].discards.pop()
        self.no_claims = False
        used = list(choice.tiles)
        used.remove(tile)
        for t in used:
            s.hand.remove(t)
        kind = {"kong": "kong", "pung": "pung", "chow": "chow"}[choice.meld if choice.meld == "kong"
                                                                else choice.kind]
        s.melds.append(Meld(kind, tuple(sorted(choice.tiles)), discarder))
        s.drew_first = True
        self._send(evt.Claim(seat=seat, kind=kind, tiles=tiles_out(sorted(choice.tiles)),
                             from_seat=discarder))
        if kind == "kong":
            self._record_kong(st.KongRecord(seat, "kong", discarder))
            if choice.kind != "kong":
                return None  # a plugin's kong claim: the plugin draws (see HandControl.take_discard)
            rep = self._draw(seat, "kong")
            if rep is None:
                return self._exhausted()
            return seat, rep, self._after_kong_flags(), False
        return seat, None, set(), False

    @staticmethod
    def _chows(hand: list[Tile], tile: Tile) -> list[tuple[Tile, ...]]:
        """The sequences ``hand`` can make with ``tile`` (a suited tile), lowest first."""
        r = tile % 9
        below1 = r >= 1 and tile - 1 in hand
        above1 = r <= 7 and tile + 1 in hand
        out: list[tuple[Tile, ...]] = []
        if below1 and r >= 2 and tile - 2 in hand:
            out.append((tile - 2, tile - 1, tile))
        if below1 and above1:
            out.append((tile - 1, tile, tile + 1))
        if above1 and r <= 6 and tile + 2 in hand:
            out.append((tile, tile + 1, tile + 2))
        return out

    def _rob(self, kong_seat: int, tile: Tile) -> HandResult | None:
        """Others may rob an added kong where the ruleset allows it."""
        robbers = self._robbers(kong_seat, tile)
        if not robbers:
            return None
        return self._settle_win(robbers, tile, "robbed_kong", kong_seat, set(),
                                {r: self._hand(r, tile) for r in robbers})

    def _robbers(self, kong_seat: int, tile: Tile) -> list[int]:
        """The seats that rob ``kong_seat``'s added kong of ``tile`` (asked in turn), if any."""
        if self.win_rules.robbed_kong != "added" or self._is_wild(tile):
            return []
        robbers: list[int] = []
        for seat in self._seats_after(kong_seat):
            s = self.seats[seat]
            if not self.ev.screen.possible(s.hand, s.melds, tile, self.wildcard):
                continue  # the tables rule the win out in any context
            ctx = self._ctx(seat, "robbed_kong", kong_seat, set(), tile)
            if not self._wins(seat, self._hand(seat, tile), ctx):
                continue
            choice = self._ask(Decision("rob", seat, (Option("win", tile), PASS), tile, kong_seat))
            if choice.kind == "win":
                robbers.append(seat)
        if robbers and self.win_rules.discard_winners != "all":
            robbers = robbers[:1]
        return robbers

    # -- endings ----------------------------------------------------------------

    def _book(self, settlement: st.Settlement, kind: str | None = None) -> list[int]:
        """Add a settlement to the hand's running total and log it (``kind`` for the
        settlements a win-or-draw ending doesn't explain: kong, draw, refund)."""
        net = settlement.net()
        self.settled = [a + b for a, b in zip(self.settled, net, strict=True)]
        self._send(evt.Settlement(payments=net, items=[p.to_dict() for p in settlement.payments], kind=kind))
        return net

    def _settle_win(self, winners: list[int], tile: Tile, win_by: str, discarder: int | None,
                    flags: Any, hands: dict[int, Hand]) -> HandResult:
        """Score and settle the win(s), then end the hand — or, where the ruleset plays on
        after a win, set the winners aside and resume play (raises :class:`_Resume`)."""
        patterns: dict[int, list[str]] = {}
        for w in winners:
            f = flags.get(w, set()) if isinstance(flags, dict) else flags
            ctx = self._ctx(w, win_by, discarder, f, tile)
            score: Score = self.ev.score(hands[w], ctx, self.wildcard)
            if not score.win:  # an engine bug if it happens: is_win said yes
                raise HandAbandoned(f"seat {w} was offered a win that does not score: {score.reason}")
            patterns[w] = score.pattern_names
            self._send(evt.Win(seat=w, win_by=win_by, tile=tile_code(tile), from_seat=discarder,
                               patterns=score.pattern_names, points=score.points,
                               call=self.ev.call(ctx, score)))
            ctx = self._with_inputs(ctx, "win", score, hands[w])
            kongs: list[st.KongRecord] = []
            if w == winners[0] and self.flow.kongs_paid == "at_win":
                kongs = self.kongs[self.kongs_paid:]
                self.kongs_paid = len(self.kongs)
            settlement = self.ev.settle(hands[w], ctx, score, kongs=kongs,
                                        payers=self._payers(w) if self.out else None,
                                        seats={i: st.SeatFacts(tuple(x.melds), x.state) for i, x in enumerate(
                                            self.seats)} if self.ruleset.scoring.per_payment else None)
            self._book(settlement)
            self.seats[w].state["wins"] = self.seats[w].state.get("wins", 0) + 1
        self.win_log.append((tuple(winners), discarder))
        for w, names in patterns.items():
            self.patterns_won.setdefault(w, []).extend(names)
        if not self.flow.continues or self._enough_winners(winners):
            return self._end_with_wins()
        self._set_aside(winners, tile, win_by, discarder)
        if self.wall.live_remaining() == 0:
            raise _HandOver(self._exhausted())
        after = discarder if win_by != "self_draw" and discarder is not None else winners[0]
        order = [(after + i) % self.ruleset.players for i in range(1, self.ruleset.players + 1)]
        last = max(winners, key=order.index)
        raise _Resume(self._next_active(last))

    def _payers(self, winner: int) -> list[int]:
        return [p for p in range(self.ruleset.players) if p != winner and p not in self.out]

    def _enough_winners(self, winners: list[int]) -> bool:
        won = {w for ws, _ in self.win_log for w in ws}
        need = self.flow.after_winners
        return (need is not None and len(won) >= need) or len(
            [s for s in range(self.ruleset.players) if s not in self.out and s not in winners]) == 0

    def _set_aside(self, winners: list[int], tile: Tile, win_by: str, discarder: int | None) -> None:
        """After a win the hand goes on: the winning tile leaves play with the winner."""
        if win_by == "discard" and discarder is not None:
            self.seats[discarder].discards.pop()
        for w in winners:
            s = self.seats[w]
            if win_by == "self_draw":
                s.hand.remove(tile)
            s.won_tiles.append(tile)
            if self.flow.after_win == "leave":
                self.out.add(w)
            else:
                self.locked.add(w)

    def _winners(self) -> list[int]:
        out: list[int] = []
        for ws, _ in self.win_log:
            out.extend(w for w in ws if w not in out)
        return out

    def _end_with_wins(self) -> HandResult:
        ws, discarder = self.win_log[0] if self.flow.which_win == "first" else self.win_log[-1]
        nxt = self._next_dealer_after_win(list(ws), discarder)
        result = HandResult("win", self._winners(), nxt, list(self.settled), dict(self.patterns_won))
        result.next_dealer = self._plugin_next_dealer(result)
        self._hand_end("win", result)
        return result

    def _hand_end(self, kind: str, result: HandResult) -> None:
        self._reveal()
        self._send(evt.HandEnd(result=kind, next_dealer=result.next_dealer,
                               winners=result.winners if self.flow.continues else None))

    def _reveal(self, emit: Any = None) -> None:
        """The hand is over: face-down melds (concealed kongs) are turned up, one ``reveal`` each."""
        if self.revealed:
            return
        self.revealed = True
        emit = emit or self.emit
        for seat, s in enumerate(self.seats):
            for m in s.melds:
                if is_face_down(m):
                    emit(evt.Reveal(seat=seat, kind=m.kind, tiles=tiles_out(m.tiles)).to_json())

    def _with_inputs(self, ctx: WinContext, kind: str, score: Score, hand: Hand | None = None) -> WinContext:
        """Add plugins' settlement inputs (e.g. birds) to the context, once per win."""
        view = self.ev.settlement_context(kind, ctx, score)
        extra = dict(ctx.extra)
        for d in self.hook("mj_settlement_inputs", hand=self.control, context=view):
            extra.update(d)
        if self.laid:  # every seat's tiles laid aside as kongs (the settlement doubles by them)
            extra[LAID_KEY] = laid_counts(self.ruleset, [s.state for s in self.seats])
        if self.bonus is not None:
            held = hand.all_tiles if hand is not None else self.seats[ctx.seat].hand  # (opening: as dealt)
            extra.update(self.bonus.inputs(kind, ctx, score.pattern_names, held, self.wildcards))
        return replace(ctx, extra=extra)

    def _plugin_next_dealer(self, result: HandResult) -> int:
        nxt = self.hook("mj_next_dealer", firstresult=True, hand=self.control, result=result)
        return result.next_dealer if nxt is None else int(nxt) % self.ruleset.players

    def _next_dealer_after_win(self, winners: list[int], discarder: int | None) -> int:
        d = self.ruleset.dealer
        if d.after_win == "next":  # the deal passes every hand, whoever won
            return (self.dealer + 1) % self.ruleset.players
        if d.after_win == "dealer_or_next":  # the dealer stays on a win of its own, else passes
            return self.dealer if self.dealer in winners else (self.dealer + 1) % self.ruleset.players
        if len(winners) > 1:
            rule = d.after_multiple_winners
            if rule == "discarder" and discarder is not None:
                return discarder
            return winners[0]
        return winners[0]

    def _exhausted(self, next_dealer: int | None = None) -> HandResult:
        n = self.ruleset.players
        rule = self.ruleset.dealer.after_draw
        if next_dealer is not None:
            nxt = next_dealer
        elif rule == "last_tile_drawer" and self.last_drawer is not None:
            nxt = self.last_drawer
        elif rule == "next":
            nxt = (self.dealer + 1) % n
        else:
            nxt = self.dealer
        unpaid = self.kongs[self.kongs_paid:]
        if unpaid and not self.ruleset.scoring.kongs_void_on_draw:
            s = st.Settlement(n, st.kong_payments(self.ruleset, unpaid))
            st.apply_plugins(s, st.SettlementContext("kongs", n, self.dealer), self.pm)
            payments = [a + b for a, b in zip(self.settled, s.net(), strict=True)]
            self.settled = payments
            self._send(evt.Settlement(payments=payments, items=[p.to_dict() for p in s.payments]))
        self._drawn_settlements()
        if self.win_log:  # the wall ran out after some wins: the wins decide the dealer
            return self._end_with_wins() if next_dealer is None else self._end_with_wins_at(next_dealer)
        result = HandResult("draw", [], nxt, list(self.settled))
        result.next_dealer = self._plugin_next_dealer(result)
        self._hand_end("draw", result)
        return result

    def _end_with_wins_at(self, nxt: int) -> HandResult:
        result = HandResult("win", self._winners(), nxt, list(self.settled), dict(self.patterns_won))
        result.next_dealer = self._plugin_next_dealer(result)
        self._hand_end("win", result)
        return result

    # -- a drawn end's declared settlements ---------------------------------------

    def _is_ready(self, seat: int) -> bool:
        return bool(self._waits(seat))

    def _holds(self, pred: str, seat: int, ready: dict[int, bool]) -> bool:
        if pred == "ready":
            return ready[seat]
        if pred == "not_ready":
            return not ready[seat]
        if pred == "holding_void":
            return self._holds_void(seat)
        if pred == "not_holding_void":
            return not self._holds_void(seat)
        return True

    def _drawn_settlements(self) -> None:
        """退税 (kong refunds) then ``scoring.on_draw`` (查大叫, 查花猪) among the players still in."""
        flow = self.flow
        if not (flow.kong_refund or flow.on_draw):
            return
        n = self.ruleset.players
        active = [s for s in range(n) if s not in self.out]
        ready = {s: self._is_ready(s) for s in active}
        if flow.kong_refund == "not_ready":
            back = [st.Payment(p.payee, p.payer, p.amount, p.reason + " refund")
                    for rec, pays in self.kong_money
                    if rec.owner in ready and not ready[rec.owner]
                    and not self.seats[rec.owner].state.get("wins")
                    for p in pays if p.payee is not None]
            if back:
                s = st.Settlement(n, back)
                st.apply_plugins(s, st.SettlementContext("refund", n, self.dealer), self.pm)
                self._book(s, "refund")
        for rule in flow.on_draw:
            pays: list[st.Payment] = []
            for payer in active:
                if not all(self._holds(p, payer, ready) for p in rule.payer):
                    continue
                for payee in active:
                    if payee == payer or not all(self._holds(p, payee, ready) for p in rule.payee):
                        continue
                    amount, reason = self._drawn_amount(rule.amount, payer, payee)
                    if amount > 0:
                        pays.append(st.Payment(payer, payee, amount, reason))
            if pays:
                s = st.Settlement(n, pays)
                st.apply_plugins(s, st.SettlementContext("draw", n, self.dealer), self.pm)
                self._book(s, "draw")

    def _drawn_amount(self, amount: int | str, payer: int, payee: int) -> tuple[int, str]:
        """Points ``payer`` owes ``payee``: fixed, or the payee's best win on a discard by the payer."""
        if isinstance(amount, int):
            return amount, "drawn"
        best = (0, "")
        s = self.seats[payee]
        for t in self._waits(payee):
            hand = Hand(tuple(s.hand), tuple(s.melds), t)
            ctx = self._ctx(payee, "discard", payer, set())
            score = self.ev.score(hand, ctx, self.wildcard)
            if not score.win:
                continue
            settlement = self.ev.settle(hand, ctx, score, kongs=[], payers=[payer], plugins=False)
            got = sum(p.amount for p in settlement.payments if p.payer == payer and p.payee == payee)
            if got > best[0]:
                best = (got, "+".join(score.pattern_names))
        return best


class HandControl:
    """What a plugin may see and do during a hand (passed to game hooks as ``hand``).

    Seeing returns copies; doing goes through the same rules and events as
    the engine's own moves. A plugin ends the hand or a turn by *returning* a
    typed result from its hook (:class:`~mjframework.play.outcomes.Win`,
    :class:`~mjframework.play.outcomes.EndDrawn`, :class:`~mjframework.play.outcomes.Discard`,
    :class:`~mjframework.play.outcomes.Continue`); the engine acts on it. State a plugin
    keeps for this hand goes in :attr:`stash`.
    """

    def __init__(self, game: Game) -> None:
        self._g = game
        #: Per-hand plugin state, keyed by :class:`~mjframework.core.stash.StashKey` objects;
        #: dropped with the hand (a plugin instance serves every hand of its ruleset).
        self.stash = Stash()

    # -- seeing ----------------------------------------------------------------

    @property
    def ruleset_id(self) -> str:
        return self._g.ruleset.id

    @property
    def players(self) -> int:
        return self._g.ruleset.players

    @property
    def dealer(self) -> int:
        return self._g.dealer

    @property
    def hand_no(self) -> int:
        return self._g.hand_no

    @property
    def wildcard(self) -> Tile | None:
        return self._g.wildcard

    @property
    def wildcards(self) -> frozenset[Tile]:
        """Every wild kind of this hand (the fixed ones and the flipped one)."""
        return self._g.wildcards

    @property
    def indicator(self) -> Tile | None:
        return self._g.indicator

    @property
    def previous(self) -> tuple[int, str] | None:
        """(seat, call) of the previous hand's win in this game, if it had one."""
        return self._g.previous

    @property
    def opening_winners(self) -> tuple[int, ...]:
        return tuple(self._g.opening_winners)

    @property
    def no_claims_yet(self) -> bool:
        return self._g.no_claims

    def hand_of(self, seat: int) -> tuple[Tile, ...]:
        return tuple(sorted(self._g.seats[seat].hand))

    def melds_of(self, seat: int) -> tuple[Meld, ...]:
        return tuple(self._g.seats[seat].melds)

    def discards_of(self, seat: int) -> tuple[Tile, ...]:
        return tuple(self._g.seats[seat].discards)

    def live_remaining(self) -> int:
        return self._g.wall.live_remaining()

    def peek_live(self, n: int) -> list[Tile]:
        """The next ``n`` live tiles (fewer near the end), without drawing them."""
        return self._g.wall.peek_live(n)

    def peek_end(self, n: int) -> list[Tile]:
        """The next ``n`` tiles at the kong end (fewer near the end), without drawing them."""
        return self._g.wall.peek_end(n)

    def is_locked(self, seat: int) -> bool:
        return seat in self._g.locked

    def seat_state(self, seat: int) -> dict[str, Any]:
        """A copy of the seat's state: declarations (``void_suit``, ``ready``), ``wins`` this
        hand, and what plugins stored; patterns see it as ``WinContext.seat_state``."""
        return dict(self._g.seats[seat].state)

    def has_left(self, seat: int) -> bool:
        """The seat won and left the hand (``win.after_win: leave``)."""
        return seat in self._g.out

    @property
    def winners(self) -> tuple[int, ...]:
        """Seats that have won so far this hand, in order."""
        return tuple(self._g._winners())

    def won_tiles_of(self, seat: int) -> tuple[Tile, ...]:
        """Tiles the seat won on and set aside (a hand that goes on after a win)."""
        return tuple(self._g.seats[seat].won_tiles)

    @property
    def last_tile_replacement(self) -> int | None:
        """The seat whose draw from the kong end took the last drawable tile, or None.

        Then the hand has no last tile: nobody's win carries ``last_tile``."""
        return self._g.last_tile_replacement

    def score_win(self, seat: int, tile: Tile, win_by: str, discarder: int | None = None,
                  flags: Sequence[str] = ()) -> Score:
        """How ``seat`` would score winning on ``tile`` (held already for a self-draw)."""
        g = self._g
        held = list(g.seats[seat].hand)
        if win_by == "self_draw":
            held.remove(tile)
        ctx = g._ctx(seat, win_by, discarder, set(flags))
        if not g.win_rules.allows(win_by):
            return Score(False, f"no win by {win_by}")
        hand = g._hand(seat, tile, held)
        if g._refused(seat, hand, ctx):
            return Score(False, "refused by the declarations or a plugin")
        return g.ev.score(hand, ctx, g.wildcard)

    def can_win(self, seat: int, tile: Tile, win_by: str, discarder: int | None = None,
                flags: Sequence[str] = ()) -> bool:
        """Would ``seat`` win on ``tile``? A hand that can't exist (a fifth copy) is no win."""
        try:
            return self.score_win(seat, tile, win_by, discarder, flags).win
        except HandError:
            return False

    # -- doing -------------------------------------------------------------------

    def emit(self, type_: str, **fields: Any) -> None:
        self._g._event(type_, **fields)

    def roll(self, n: int, purpose: str, text: str = "") -> tuple[int, ...]:
        """Roll ``n`` dice (a ``dice`` event; ``text`` says what for, to players)."""
        dice = self._g.wall.roll(n)
        self._g._send(evt.Dice(purpose=purpose, values=list(dice), text=text or None))
        return dice

    def ask(self, seat: int, options: Sequence[Option], tile: Tile | None = None,
            kind: str = "plugin", from_seat: int | None = None, prompt: str = "") -> Option:
        """Ask a player to choose (``prompt`` is shown to a human)."""
        return self._g._ask(Decision(kind, seat, tuple(options), tile, from_seat, prompt))

    def draw(self, seat: int) -> Tile | None:
        """Give ``seat`` the next live tile (a ``draw`` event, source wall)."""
        return self._g._draw(seat, "wall")

    def draw_from_end(self, seat: int, stacks_back: int) -> Tile | None:
        """Give ``seat`` the top tile of the ``stacks_back``-th stack counted back from the
        last one (its bottom tile if the top is gone); a ``draw`` event, source kong."""
        return self._g._give(seat, self._g.wall.take_from_end(stacks_back), "kong")

    @property
    def tile_kinds(self) -> tuple[Tile, ...]:
        return self._g.ruleset.tileset.kinds

    def waits(self, seat: int, concealed: Sequence[Tile] | None = None,
              melds: Sequence[Meld] | None = None, win_by: str = "self_draw",
              flags: Sequence[str] = ()) -> list[Tile]:
        """Tiles that would complete ``concealed`` + ``melds`` (default: the seat's own,
        which must then be a waiting hand of 13 tiles less 3 per meld)."""
        g = self._g
        s = g.seats[seat]
        ctx = g._ctx(seat, win_by, None if win_by == "self_draw" else (seat + 1) % self.players,
                     set(flags))
        held = list(s.hand if concealed is None else concealed)
        ms = list(s.melds if melds is None else melds)
        return [t for t in g.ev.waits(held, ms, ctx, g.wildcard)
                if not g._refused(seat, Hand(tuple(held), tuple(ms), t), ctx)]

    def reveal(self, seat: int, tile: Tile) -> None:
        """Lay a held tile face up among the seat's discards, with no claims on it."""
        g = self._g
        g.seats[seat].hand.remove(tile)
        g.seats[seat].discards.append(tile)
        g._send(evt.Discard(seat=seat, tile=tile_code(tile)))

    def offer_rob(self, seat: int, tile: Tile) -> Win | None:
        """Offer the tile of ``seat``'s added kong to be robbed, as the ruleset's win rules say:
        the players who may rob are asked in turn. Returns the robbery as a :class:`Win` for
        the hook to return (the engine settles it), or ``None`` if nobody robs."""
        robbers = self._g._robbers(seat, tile)
        return Win(tuple(robbers), tile, "robbed_kong", seat) if robbers else None

    def rob_kong(self, seat: int, tile: Tile) -> None:
        """Deprecated: ``robbed = hand.offer_rob(seat, tile)`` and return ``robbed`` if not None.

        Ends the hand, unwinding through the caller, if someone robs the kong."""
        _deprecated("HandControl.rob_kong() is deprecated: return hand.offer_rob(seat, tile) "
                    "from the hook when it is not None")
        result = self._g._rob(seat, tile)
        if result is not None:
            raise _HandOver(result)

    def make_kong(self, seat: int, tile: Tile) -> None:
        """Turn four held tiles (concealed) or a pung + the held fourth (added) into a kong.

        Robbing is separate (:meth:`rob_kong`), so a plugin can offer it first.
        """
        self._g._make_kong(seat, tile, robbable=False)

    def set_seat_state(self, seat: int, key: str, value: Any) -> None:
        """Store per-seat state patterns can read (``WinContext.seat_state[key]``)."""
        self._g.seats[seat].state[key] = value

    def take_discard(self, seat: int, option: Option) -> None:
        """Carry out a plugin's claim ``option`` that won the discard: ``seat`` takes the
        discarded tile into the meld ``option.tiles`` (a ``claim`` event of the kind
        ``option.meld`` names, e.g. ``kong``). For a kong no replacement is drawn: the
        plugin draws (e.g. :meth:`draw_from_end`). Only inside ``mj_handle_option`` for
        a claim."""
        g = self._g
        if g._offered is None:
            raise RuntimeError("take_discard outside a claim")
        discarder, tile = g._offered
        g._take_claim(seat, option, discarder, tile)

    def lock(self, seat: int) -> None:
        """From now on the seat may only win, or discard the tile it draws."""
        self._g.locked.add(seat)

    def win(self, seats: Sequence[int], tile: Tile, win_by: str, discarder: int | None = None,
            flags: Sequence[str] | dict[int, Sequence[str]] = ()) -> None:
        """Deprecated: return ``Win(seats, tile, win_by, discarder, flags)`` from the hook.

        Settles the win(s) and ends the hand, unwinding through the caller."""
        _deprecated("HandControl.win() is deprecated: return "
                    "mjframework.plugin.Win(seats, tile, win_by, discarder, flags) from the hook")
        fl: tuple[str, ...] | dict[int, tuple[str, ...]] = (
            {k: tuple(v) for k, v in flags.items()} if isinstance(flags, dict) else tuple(flags))
        raise _HandOver(self._g._end_by_plugin(Win(tuple(seats), tile, win_by, discarder, fl)))

    def end_drawn(self, next_dealer: int | None = None) -> None:
        """Deprecated: return ``EndDrawn(next_dealer)`` from the hook.

        Ends the hand as drawn (流局), unwinding through the caller."""
        _deprecated("HandControl.end_drawn() is deprecated: return "
                    "mjframework.plugin.EndDrawn(next_dealer) from the hook")
        raise _HandOver(self._g._exhausted(next_dealer))

    def evaluate_opening(self, seat: int) -> Score:
        g = self._g
        ctx = g._ctx(seat, "self_draw", None, {"first_turn", "no_claims_yet"})
        return g.ev.score_opening(g.seats[seat].hand, ctx)

    def settle_opening(self, seat: int, score: Score) -> list[int]:
        """Announce and settle a seat's opening declarations at once (like a self-draw)."""
        g = self._g
        g.opening_winners.append(seat)
        g._send(evt.OpeningWin(seat=seat, patterns=score.pattern_names, points=score.points,
                               hand=[tile_code(t) for t in sorted(g.seats[seat].hand)]))
        ctx = g._with_inputs(g._ctx(seat, "self_draw", None, set()), "opening", score)
        s = g.ev.settle_opening(ctx, score)
        net = s.net()
        g.settled = [a + b for a, b in zip(g.settled, net, strict=True)]
        g._send(evt.Settlement(payments=net, items=[p.to_dict() for p in s.payments]))
        return net


def _deprecated(message: str) -> None:
    # stacklevel 3: the plugin line that called the HandControl method.
    warnings.warn(message + " (removed in the next release)", DeprecationWarning, stacklevel=3)


__all__ = ["KONG_PAYMENT_KEY", "Game", "HandAbandoned", "HandControl", "HandResult", "SeatState"]
