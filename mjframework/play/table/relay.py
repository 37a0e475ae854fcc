"""What goes out of the hand and comes in: events, plugin hooks, players' decisions.

Events go to the sink (and, where plugins announce, to ``mj_announce`` whose
calls go out as ``call`` events). A sink that only counts some frequent events
(:class:`~mjframework.play.events.CountingSink`) is told their type through
its ``count`` and the engine does not build them. Decisions go to the seat's
player; plugins may add options (``mj_extra_options``) or remove them
(``mj_restrict_options``). A player that fails leaves the table. A plugin's
decision points (:class:`~mjframework.play.outcomes.Ask`) are put to players here
(:meth:`Relay.follow`) and answered back to the plugin (``mj_answer``).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Generator, Sequence
from typing import Any, TypeAlias, TypeVar

from ...evaluate.scoring import Evaluator
from ...hooks.registry import PluginError, bound_hook, call_hook
from ...rules.model import Ruleset
from ...settle import settlement as st
from .. import events as evt
from ..bonus import BonusFlips
from ..counters import Counts
from ..events import Event, EventSink, make_event
from ..outcomes import Ask
from ..players import OUTSIDE, Decision, IllegalDecision, Option, Player, PlayerLeft
from .state import HandAbandoned, HandOver, HandResult, HandState

# The frequent events a counting sink may be told of by type alone: a draw and a discard
# every turn, the deal's and the wall's tile codes once a hand, plugins' calls.
T = TypeVar("T")
Steps: TypeAlias = Generator[Decision, Option, T]
"""An engine step that may wait for a decision: it yields the :class:`Decision`, is sent
the chosen :class:`Option`, and returns its ``T``."""

COUNTABLE = frozenset({"draw", "discard", "deal", "wall", "call"})


def run_to_end(steps: Steps[T], waited: Callable[[Decision], BaseException]) -> T:
    """Run ``steps`` to its end where no decision can be answered from outside (``Game.play``,
    a plugin's synchronous ask: :meth:`Relay.now`): its value. If it yields a decision (a
    seat played from outside), the steps are closed and ``waited(decision)`` is raised."""
    try:
        d = next(steps)
    except StopIteration as e:
        value: T = e.value
        return value
    steps.close()
    raise waited(d)


def _no_sink(event: Event) -> None:
    return None


class Relay(HandState):
    """Events out, decisions and plugin answers in (see the module's docstring)."""

    def __init__(self, ruleset: Ruleset, players: Sequence[Player], *, seed: int, dealer: int = 0,
                 hand_no: int = 0, emit: EventSink | None = None, evaluator: Evaluator | None = None,
                 last_winner_call: tuple[int, str] | None = None, hand_in_game: int | None = None,
                 counters: Counts | None = None, deal_passes: int | None = None) -> None:
        super().__init__(ruleset, players, seed=seed, dealer=dealer, hand_no=hand_no, evaluator=evaluator,
                         last_winner_call=last_winner_call, hand_in_game=hand_in_game, counters=counters,
                         deal_passes=deal_passes)
        self.emit: EventSink = emit if emit is not None else _no_sink
        # The bonus tiles turned up this hand (``bonus_tiles``: play/bonus.py), told as events.
        self.bonus = None if ruleset.bonus_tiles is None else BonusFlips(
            ruleset.bonus_tiles, ruleset.players, self.wall, self.send)
        self._restricts = bool(self.pm and self.pm.hook.mj_restrict_options.get_hookimpls())
        self._refuses = bool(self.pm and self.pm.hook.mj_refuse_win.get_hookimpls())
        # The sink itself: told of the hand's end when a plugin fails (not asked again).
        self._emit_raw: EventSink = self.emit
        # The hooks called at every decision and every event, bound once (see BoundHook).
        self._extra_hook = bound_hook(self.pm, "mj_extra_options")
        self._announce_hook = bound_hook(self.pm, "mj_announce")
        # Events cost nothing when nobody listens: no sink and no plugin announcing.
        announces = self._announce_hook.live
        if announces:
            self.emit = self._emit_with_plugins
        self._silent = emit is None and not announces
        # The frequent events the sink counts by type (events.CountingSink) instead of reading:
        # those neither it nor an announcing plugin reads. A plugin ``only_for`` leaves out is
        # not called with them at all; plugins traced or wrapped hear every event in full.
        self._counted: frozenset[str] = frozenset()
        self._count: Callable[[str], None] = _ignore
        counting = evt.counting_of(emit)
        if counting is not None:
            read: frozenset[str] | None = counting[0]
            if announces:
                spoken = self._announce_hook.spoken_about()
                read = None if spoken is None else read | spoken  # type: ignore[operator]
            if read is not None:
                self._counted = COUNTABLE - read
                self._count = counting[1]
        elif emit is None:
            # No sink: the frequent events only announcing plugins read are built (none when
            # nobody announces); the rest, and the plugins' calls, are counted by nobody.
            spoken = self._announce_hook.spoken_about() if announces else frozenset()
            if spoken is not None:
                self._counted = COUNTABLE - spoken

    # -- events ---------------------------------------------------------------------

    def plugin_event(self, type_: str, **fields: Any) -> None:
        """A plugin's event (``HandControl.emit``): any type, any fields."""
        if not self._silent:
            self.emit(make_event(type_, **fields))

    def send(self, event: evt.EventBase) -> None:
        """Send an engine event to the sink (and the announcing plugins)."""
        if not self._silent:
            self.emit(event.to_json())

    def _emit_with_plugins(self, event: dict[str, Any]) -> None:
        self._emit_raw(event)
        t = event["type"]
        if t == "call":
            return
        try:
            said = self._announce_hook.call(self.control, event, about=(t,))
        except PluginError as e:
            raise HandAbandoned(str(e)) from e
        for text_seat in said:
            if text_seat:
                if "call" in self._counted:
                    self._count("call")
                    continue
                text, seat = text_seat if isinstance(text_seat, tuple) else (text_seat, event.get("seat"))
                self._emit_raw(evt.Call(seat=seat, text=text, about=event["type"]).to_json())

    # -- plugins ----------------------------------------------------------------------

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
        hook = self._extra_hook
        if not hook.live:  # (most rulesets: no plugin adds options)
            return []
        try:
            said = hook.call(self.control, seat, decision, about=lambda: {o.kind for o in decision.options})
        except PluginError as e:
            raise HandAbandoned(str(e)) from e
        return [o for opts in said for o in opts]

    def follow(self, value: Any) -> Steps[Any]:
        """Carry a plugin's decision points (:class:`Ask`) through to what they end in.

        Each ``Ask`` is put to its seat like any decision; the choice goes to
        ``mj_answer``, whose result is followed in turn, until a plugin returns
        something that is not an ``Ask`` (its hook's result, or ``None``). A tuple
        of ``Ask`` s is a decision set (:meth:`follow_set`). The engine owns the
        waiting, so a plugin never blocks on a player: the one place a hand pauses
        for a decision is :meth:`ask`."""
        while True:
            if isinstance(value, Ask):
                choice = yield from self.ask(value.decision())
                value = self.hook("mj_answer", firstresult=True, hand=self.control, ask=value, choice=choice)
            elif isinstance(value, tuple) and value and all(isinstance(a, Ask) for a in value):
                value = yield from self.follow_set(value)
            else:
                return value

    def follow_set(self, asks: tuple[Ask, ...]) -> Steps[Any]:
        """A plugin's decision set: several seats (one ``Ask`` each) asked at once
        (:meth:`ask_set`); only then each answer goes to ``mj_answer``, in the tuple's
        order, and what it returns is followed. The set ends in the last of those
        results that is not ``None`` (``None`` if none is)."""
        seats = [a.seat for a in asks]
        if len(set(seats)) != len(seats):
            raise HandAbandoned(f"a plugin's decision set asks a seat twice (seats {seats})")
        choices = yield from self.ask_set([a.decision() for a in asks])
        out: Any = None
        for ask, choice in zip(asks, choices, strict=True):
            said = yield from self.follow(
                self.hook("mj_answer", firstresult=True, hand=self.control, ask=ask, choice=choice))
            if said is not None:
                out = said
        return out

    # -- players ----------------------------------------------------------------------

    def ask_set(self, decisions: Sequence[Decision]) -> Steps[list[Option]]:
        """Several seats deciding at once — the claims on a discard, an exchange, a
        declaration at the deal: one decision set. Every decision is made (plugins'
        restrictions applied) before any seat is asked, and the set is shown as
        :attr:`deciding` (the decisions actually put to a seat, in the order they are
        asked) while they are asked; the answers come back in the order of ``decisions``.
        The caller applies them only after the last (no seat's answer changes what another
        is offered or sees), so answering them together or one by one is the same hand."""
        if self._restricts:
            decisions = [self._restrict(d) for d in decisions]
        self.deciding = tuple(d for d in decisions if len(d.options) > 1 or d.kind == "turn")
        answers: list[Option] = []
        try:
            for d in decisions:
                answers.append((yield from self.ask(d, restricted=True)))
        finally:
            self.deciding = ()
        return answers

    def ask(self, decision: Decision, restricted: bool = False) -> Steps[Option]:
        """The seat's choice among the decision's options (plugins' restrictions applied,
        unless ``restricted`` says they were; a single option of a claim or other non-turn
        decision is taken without asking).

        A generator: a seat played from :data:`OUTSIDE` is asked by *yielding* the
        decision up to whoever drives the hand (:meth:`Game.steps`), who sends the
        choice back (or throws the player's exception in); any other seat's player
        decides right here, so a hand of bots never yields."""
        seat = decision.seat
        if self._restricts and not restricted:
            decision = self._restrict(decision)
        if len(decision.options) == 1 and decision.kind != "turn":
            return decision.options[0]
        player = self.players[seat]
        try:
            if player is OUTSIDE:
                choice = yield decision
            else:
                choice = player.decide(self._views[seat], decision)
        except IllegalDecision:
            raise
        except Exception as e:  # a bot (or UI) failing must not corrupt the hand: it leaves
            why = (str(e) or "left") if isinstance(e, PlayerLeft) else (
                f"failed deciding {decision.kind}: {type(e).__name__}: {e}")
            self._leave(seat, why)
            return (yield from self.ask(decision))  # a stand-in bot plays on (or _leave ended the hand)
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

    def now(self, steps: Steps[T]) -> T:
        """Run ``steps`` to its end inside a plugin's hook (the deprecated synchronous
        ``hand.ask`` and friends): possible only while no seat is played from outside."""
        return run_to_end(steps, lambda d: HandAbandoned(
            f"a plugin waited for seat {d.seat}'s {d.kind} decision inside its hook (hand.ask, "
            "hand.offer_rob): that works only while bots play every seat; return an Ask "
            "(a decision point, docs/plugins.md#decision-points)"))

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
        from ..bots import GreedyBot

        rule = self.ruleset.leave
        n = self.ruleset.players
        self.left.append(seat)
        self.send(evt.Leave(seat=seat, reason=why, penalty=rule.penalty, paid_to=rule.paid_to,
                            hand=rule.hand))
        if rule.penalty:
            payees: list[int | None] = ([None] if rule.paid_to == "none"
                                        else [s for s in range(n) if s != seat])
            s = st.Settlement(n, [st.Payment(seat, p, rule.penalty, st.LEAVE_REASON) for p in payees])
            net = s.net()
            self.settled = [a + b for a, b in zip(self.settled, net, strict=True)]
            self.send(evt.Settlement(payments=net, items=[p.to_dict() for p in s.payments]))
        if rule.hand == "bot":
            self.players[seat] = GreedyBot(random.Random(f"{self.seed}/left/{seat}"))
            return
        reason = f"seat {seat} left: {why}"
        self._emit_raw(evt.Abandon(reason=reason).to_json())
        self.reveal_melds(self._emit_raw)
        self._emit_raw(evt.HandEnd(result="abandon", next_dealer=self.dealer).to_json())
        raise HandOver(HandResult("abandon", [], self.dealer, list(self.settled), error=reason))

    def reveal_melds(self, emit: EventSink | None = None) -> None:
        """The hand is over: face-down melds (concealed kongs) are turned up, one ``reveal`` each."""
        from ..visibility import is_face_down

        if self.revealed:
            return
        self.revealed = True
        emit = emit or self.emit
        for seat, s in enumerate(self.seats):
            for m in s.melds:
                if is_face_down(m):
                    emit(evt.Reveal(seat=seat, kind=m.kind, tiles=evt.tiles_out(m.tiles)).to_json())


def _ignore(type_: str) -> None:
    return None
