"""The hand as a stepper: advance a hand one decision at a time from outside.

::

    table = Table(ruleset, seed=7)
    pending = table.reset()                 # the first Decision (or the HandResult)
    while isinstance(pending, Decision):
        pending = table.step(choose(pending, table.view(pending.seat)))
    result = pending                        # the HandResult; table.events holds the log

The machine
-----------
:meth:`Game.steps` is the hand as a generator: every seat's player is
:data:`~mjframework.play.players.OUTSIDE`, so each decision is *yielded* up the
engine's call stack (``yield from``) to this table, which hands it to the
caller and sends the answer back in; a leave is thrown in as the player's
exception. Plugins never wait inside a hook: they declare decision points
(:class:`~mjframework.plugin.Ask`, answered in ``mj_answer``), which the engine
puts to players like its own decisions. Nothing runs beside the caller: the
hand advances in the caller's own stack, a step at a time, so a table may be
stepped from anywhere (one caller at a time), an async server's event loop
included. A hand is exactly as deterministic as a bot-driven
:meth:`Game.play`: same seed, same choices → same log, byte for byte.

While the caller holds a pending decision the engine is paused at that
``yield``, so :meth:`Table.view` and :attr:`Table.game` read a consistent state.

Seats that decide at once — the claims on a discard, an exchange (every seat
passes tiles), a declaration at the deal (every seat names a void suit) — form
one decision set: :attr:`Table.pending_set` lists it from the pending decision
on, and :meth:`Table.step_all` takes every seat's answer together (the engine
still takes them in order, and applies none before the last, so the hand is the
one stepped seat by seat).

:func:`play_hand` is the adapter the other way round: it drives a table with
:class:`~mjframework.play.players.Player` objects, with the engine's own rules
for a player that fails (it leaves) or chooses what wasn't offered (the hand
is abandoned) — the same as ``Game.play``.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping, Sequence
from typing import Any

from .events import Collector, EventSink, fan_out
from .game import Game, HandResult
from .players import OUTSIDE, Decision, IllegalDecision, Option, Player, PlayerLeft, TableView
from .series import Carry, watching

Pending = Decision | HandResult


def _offered(option: Option, options: Sequence[Option]) -> bool:
    """Is ``option`` one of ``options``? The very object first: a caller answers with one
    it was given, and an ``in`` test compares fields with each option before it (a
    dataclass ``==`` builds two tuples: ~0.2 µs an option, a 14-tile discard's ~1.5 µs)."""
    for o in options:
        if o is option:
            return True
    return option in options


class TableClosed(BaseException):
    """Kept for callers that caught it: closing a table no longer raises anything
    (the paused hand's generator is closed)."""


class Table:
    """One hand of ``ruleset`` advanced from outside, one decision at a time.

    The keyword arguments are :class:`~mjframework.play.game.Game`'s. ``emit``
    receives every event (the whole truth) as it happens; :attr:`events` keeps
    them too, unless ``keep_events`` is False (then it stays empty: a caller that
    reads no event — the learning environment without its ``events`` option — spares
    the hand building them; with no ``emit`` either, none is built at all, as for a
    silent :meth:`Game.play`; the hand is the same).
    """

    def __init__(self, ruleset: Any, *, seed: int, dealer: int = 0, hand_no: int = 0,
                 emit: EventSink | None = None, evaluator: Any = None,
                 last_winner_call: tuple[int, str] | None = None, backend: str | None = None,
                 keep_events: bool = True, carry: Carry | None = None) -> None:
        self.ruleset = ruleset
        self._kw = dict(seed=seed, dealer=dealer, hand_no=hand_no, evaluator=evaluator,
                        last_winner_call=last_winner_call)
        # A game of hands (:class:`~mjframework.play.series.Carry`): each reset() deals the
        # game's next hand — its dealer, counters, deal passes and call from the last one.
        self.carry = carry
        self._emit = emit
        self.keep_events = keep_events
        # ``backend`` chose a worker in earlier releases; there is none now, so any value
        # runs the same machine (accepted for old callers).
        self.backend = "steps" if backend is None else backend
        self.events: Collector = Collector()
        self.game: Game | None = None
        self.pending: Decision | None = None
        self.result: HandResult | None = None
        self._steps: Generator[Decision, Option, HandResult] | None = None

    # -- the caller's side ---------------------------------------------------------

    def reset(self, seed: int | None = None) -> Pending:
        """Start the hand (closing any unfinished one); the first decision or the result.

        ``seed`` replaces the table's seed from this hand on. With a ``carry`` each reset
        is the game's next hand (``hand_no`` counts on from the first)."""
        self.close()
        self.events = Collector()
        self.result = None
        self.pending = None
        if seed is not None:
            self._kw["seed"] = seed
        kw = dict(self._kw)
        emit = fan_out(self.events, self._emit) if self.keep_events else self._emit
        if self.carry is not None:
            kw.update(self.carry.game_kwargs(), hand_no=self._kw["hand_no"] + self.carry.hand)
            emit = watching(self.carry, emit)
        self.game = Game(self.ruleset, [OUTSIDE] * self.ruleset.players, emit=emit, **kw)
        self._steps = self.game.steps()
        return self._advance(None, None)

    def step(self, option: Option) -> Pending:
        """Answer the pending decision with one of its options; the next decision or the result.

        An option that wasn't offered raises :class:`IllegalDecision` and changes nothing."""
        d = self._need_pending()
        if not _offered(option, d.options):
            raise IllegalDecision(f"seat {d.seat} chose {option!r}, which was not offered for "
                                  f"{d.kind} (options: {', '.join(o.label() for o in d.options)})")
        return self._advance(option, None)

    @property
    def pending_set(self) -> tuple[Decision, ...]:
        """The decision set the pending decision belongs to: the seats deciding at once (the
        claims on a discard, one decision per seat that may claim, in turn order; an
        exchange or a declaration at the deal, every seat from the dealer on), from the
        pending one on; ``(pending,)`` for a decision put to one seat; ``()`` when none is
        pending. Every decision is final as shown (plugins' ``mj_restrict_options``
        applied; a seat left one option isn't asked and isn't in the set). Answer it with
        :meth:`step_all`, or seat by seat with :meth:`step`."""
        d = self.pending
        if d is None:
            return ()
        deciding = self.game.deciding if self.game is not None else ()
        seats = [x.seat for x in deciding]
        if d.seat not in seats:
            return (d,)
        return (d, *deciding[seats.index(d.seat) + 1:])

    def step_all(self, answers: Mapping[int, Option]) -> Pending:
        """Answer the pending decision set (:attr:`pending_set`): ``answers`` maps each of
        its seats to one of its options; they are taken in turn order, as :meth:`step` would
        one by one. A seat missing from ``answers`` or an option not offered raises
        :class:`IllegalDecision` before anything is taken."""
        group = self.pending_set
        if not group:
            raise RuntimeError("no decision is pending (reset() first, or the hand is over)")
        for d in group:
            if d.seat not in answers:
                raise IllegalDecision(f"no answer for seat {d.seat}'s {d.kind} (seats to answer: "
                                      f"{', '.join(str(x.seat) for x in group)})")
            if not _offered(answers[d.seat], d.options):
                raise IllegalDecision(f"seat {d.seat} chose {answers[d.seat]!r}, which was not offered "
                                      f"for {d.kind}")
        pending: Pending = self.step(answers[group[0].seat])
        # The rest of the set as the engine asks it: the very decisions it showed (a hand that
        # ends, or a seat that leaves and is played by a bot, stops it; the next set is not this).
        rest = list(group[1:])
        while rest and isinstance(pending, Decision):
            i = next((i for i, d in enumerate(rest) if d is pending), None)
            if i is None:
                break
            del rest[:i + 1]
            pending = self.step(answers[pending.seat])
        return pending

    def leave(self, seat: int, why: str = "left") -> Pending:
        """The pending decision's seat leaves the table (the ruleset's ``leave`` rule applies)."""
        d = self._need_pending()
        if seat != d.seat:
            raise ValueError(f"seat {seat} is not the seat to act (seat {d.seat} is)")
        return self._advance(None, PlayerLeft(why))

    def view(self, seat: int) -> TableView:
        """What ``seat`` sees now (read it while a decision is pending or after the hand)."""
        if self.game is None:
            raise RuntimeError("reset() the table first")
        return TableView(self.game, seat)

    @property
    def done(self) -> bool:
        return self.result is not None

    def close(self) -> None:
        """Drop an unfinished hand (nothing more is emitted); safe to call twice."""
        steps, self._steps = self._steps, None
        self.pending = None
        if steps is not None:
            steps.close()

    # -- internals ---------------------------------------------------------------

    def _need_pending(self) -> Decision:
        if self.pending is None:
            raise RuntimeError("no decision is pending (reset() first, or the hand is over)")
        return self.pending

    def _advance(self, answer: Option | None, exc: BaseException | None) -> Pending:
        """Resume the paused hand with ``answer`` (or throw ``exc`` in: the seat's player
        failed) until the next decision or the end. An exception the engine raises (a bug)
        ends the table and reaches the caller."""
        steps = self._steps
        if steps is None:
            raise RuntimeError("reset() the table first")
        self.pending = None
        try:
            if exc is not None:
                decision = steps.throw(exc)
            elif answer is None:
                decision = next(steps)
            else:
                decision = steps.send(answer)
        except StopIteration as e:
            self._steps = None
            result: HandResult = e.value
            self.result = result
            if self.carry is not None:
                self.carry.after(result)
            return result
        except BaseException:
            self._steps = None
            raise
        self.pending = decision
        return decision


def play_hand(table: Table, players: Sequence[Player]) -> HandResult:
    """Play the table's hand with ``players`` (indexed by seat): ``Player.decide`` over the stepper.

    A player raising leaves the table, a choice that wasn't offered abandons the hand —
    the engine's own rules, so the log equals ``Game(…, players).play()``'s."""
    pending = table.reset()
    while isinstance(pending, Decision):
        seat = pending.seat
        try:
            answer = players[seat].decide(table.view(seat), pending)
        except Exception as e:  # the engine turns it into a leave (IllegalDecision: abandoned)
            pending = table._advance(None, e)
            continue
        pending = table._advance(answer, None)
    return pending


def run_policy(table: Table, policy: Callable[[Decision, TableView], Option]) -> HandResult:
    """Step the whole hand with ``policy(decision, view)`` (a function, no Player object)."""
    pending = table.reset()
    while isinstance(pending, Decision):
        pending = table.step(policy(pending, table.view(pending.seat)))
    return pending


__all__ = ["Pending", "Table", "TableClosed", "play_hand", "run_policy"]
