"""The hand as a stepper: advance a hand one decision at a time from outside.

::

    table = Table(ruleset, seed=7)
    pending = table.reset()                 # the first Decision (or the HandResult)
    while isinstance(pending, Decision):
        pending = table.step(choose(pending, table.view(pending.seat)))
    result = pending                        # the HandResult; table.events holds the log

Why a worker rather than a generator rewrite
--------------------------------------------
Plugins ask players in the middle of their hooks (``HandControl.ask`` inside
``mj_last_tile``, ``mj_before_turn``, …) and expect the answer as a return
value. Turning the engine into a generator would force every such hook (and
every third-party plugin) to become a generator too. Instead the unchanged
engine runs in a *worker* — a greenlet when the ``greenlet`` package is
installed, a thread otherwise — whose players are stand-ins: their
``decide`` hands the decision out and waits for :meth:`Table.step`. The
hand-over is strict (exactly one side runs at any moment, the other waits on
a switch or a lock), so a hand is exactly as deterministic as a bot-driven
:meth:`Game.play`: same seed, same choices → same log, byte for byte. The
plugin API is untouched. A greenlet table is stepped from the thread that
reset it (``backend="thread"`` for a table handed between threads).

While the caller holds a pending decision the engine is paused inside
``decide``, so :meth:`Table.view` and :attr:`Table.game` read a consistent
state.

:func:`play_hand` is the adapter the other way round: it drives a table with
:class:`~mjframework.play.players.Player` objects, with the engine's own rules
for a player that fails (it leaves) or chooses what wasn't offered (the hand
is abandoned) — the same as ``Game.play``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

from .events import Collector, EventSink, fan_out
from .game import Game, HandResult
from .players import Decision, IllegalDecision, Option, Player, PlayerLeft, TableView

try:  # a greenlet switch costs ~1 µs, a thread hand-over ~20 µs; both are strict hand-overs
    import greenlet as _greenlet
except ImportError:  # pragma: no cover - exercised where greenlet is missing
    _greenlet = None  # type: ignore[assignment]  # (checked before use)

Pending = Decision | HandResult


class TableClosed(BaseException):
    """Raised inside the paused engine to unwind a hand nobody will finish.

    A BaseException so the engine's guards (which turn a player's ``Exception``
    into a leave) and the plugin guard let it through."""


class _Raise:
    """An answer that makes the stand-in's ``decide`` raise (a leave, a failure)."""

    __slots__ = ("exc",)

    def __init__(self, exc: BaseException) -> None:
        self.exc = exc


class _Stand:
    """A seat's stand-in player: hands each decision to the table's caller."""

    __slots__ = ("_table",)

    def __init__(self, table: Table) -> None:
        self._table = table

    def decide(self, view: TableView, decision: Decision) -> Option:
        answer = self._table._to_caller(decision)
        if isinstance(answer, _Raise):
            raise answer.exc
        return answer


class Table:
    """One hand of ``ruleset`` advanced from outside, one decision at a time.

    The keyword arguments are :class:`~mjframework.play.game.Game`'s. ``emit``
    receives every event (the whole truth) as it happens; :attr:`events` keeps
    them too.
    """

    def __init__(self, ruleset: Any, *, seed: int, dealer: int = 0, hand_no: int = 0,
                 emit: EventSink | None = None, evaluator: Any = None,
                 last_winner_call: tuple[int, str] | None = None, backend: str | None = None) -> None:
        self.ruleset = ruleset
        self._kw = dict(seed=seed, dealer=dealer, hand_no=hand_no, evaluator=evaluator,
                        last_winner_call=last_winner_call)
        self._emit = emit
        if backend is None:
            backend = "greenlet" if _greenlet is not None else "thread"
        if backend not in ("greenlet", "thread"):
            raise ValueError(f"unknown backend {backend!r} (greenlet or thread)")
        if backend == "greenlet" and _greenlet is None:
            raise ValueError("the greenlet backend needs the greenlet package")
        self.backend = backend
        self.events: Collector = Collector()
        self.game: Game | None = None
        self.pending: Decision | None = None
        self.result: HandResult | None = None
        self._worker: Any = None

    # -- the caller's side ---------------------------------------------------------

    def reset(self) -> Pending:
        """Start the hand (closing any unfinished one); the first decision or the result."""
        self.close()
        self.events = Collector()
        self.result = None
        self.pending = None
        self.game = Game(self.ruleset, [_Stand(self) for _ in range(self.ruleset.players)],
                         emit=fan_out(self.events, self._emit), **self._kw)
        if self.backend == "greenlet":
            self._worker = _GreenletWorker(self)
        else:
            self._worker = _ThreadWorker(self)
        return self._receive(self._worker.start())

    def step(self, option: Option) -> Pending:
        """Answer the pending decision with one of its options; the next decision or the result.

        An option that wasn't offered raises :class:`IllegalDecision` and changes nothing."""
        d = self._need_pending()
        if option not in d.options:
            raise IllegalDecision(f"seat {d.seat} chose {option!r}, which was not offered for "
                                  f"{d.kind} (options: {', '.join(o.label() for o in d.options)})")
        return self._answer(option)

    def leave(self, seat: int, why: str = "left") -> Pending:
        """The pending decision's seat leaves the table (the ruleset's ``leave`` rule applies)."""
        d = self._need_pending()
        if seat != d.seat:
            raise ValueError(f"seat {seat} is not the seat to act (seat {d.seat} is)")
        return self._answer(_Raise(PlayerLeft(why)))

    def view(self, seat: int) -> TableView:
        """What ``seat`` sees now (read it while a decision is pending or after the hand)."""
        if self.game is None:
            raise RuntimeError("reset() the table first")
        return TableView(self.game, seat)

    @property
    def done(self) -> bool:
        return self.result is not None

    def close(self) -> None:
        """Unwind an unfinished hand (nothing more is emitted); safe to call twice.

        Call it (or finish the hand) before dropping a table: a paused worker thread
        is only released by it."""
        worker, self._worker = self._worker, None
        self.pending = None
        if worker is not None:
            worker.close()

    # -- internals ---------------------------------------------------------------

    def _need_pending(self) -> Decision:
        if self.pending is None:
            raise RuntimeError("no decision is pending (reset() first, or the hand is over)")
        return self.pending

    def _answer(self, answer: Option | _Raise) -> Pending:
        pending, self.pending = self.pending, None
        try:
            message = self._worker.send(answer)
        except RuntimeError:  # not sent (a greenlet stepped from another thread): still pending
            self.pending = pending
            raise
        return self._receive(message)

    def _receive(self, message: tuple[str, Any]) -> Pending:
        """The worker's message: ("decision", the next Decision), ("result", the
        HandResult) or ("error", the exception the engine raised)."""
        kind, value = message
        if kind == "decision":
            decision: Decision = value
            self.pending = decision
            return decision
        self.close()
        if kind == "error":
            raise value
        result: HandResult = value
        self.result = result
        return result

    def _to_caller(self, decision: Decision) -> Option | _Raise:
        """Called by a stand-in inside the engine: hand the decision out, wait for the answer."""
        answer: Option | _Raise = self._worker.ask(decision)
        return answer

    def _run(self) -> tuple[str, Any]:
        assert self.game is not None
        try:
            return ("result", self.game.play())
        except TableClosed:
            return ("closed", None)
        except BaseException as e:  # an engine bug: re-raised on the caller's side
            return ("error", e)


class _GreenletWorker:
    def __init__(self, table: Table) -> None:
        self.table = table
        self.caller: Any = None
        self.g = _greenlet.greenlet(table._run)
        self.finished = False

    def start(self) -> Any:
        self.caller = _greenlet.getcurrent()
        self.g.parent = self.caller
        return self.g.switch()

    def send(self, answer: Any) -> Any:
        self.caller = _greenlet.getcurrent()
        try:
            self.g.parent = self.caller
        except ValueError as e:  # greenlets never cross threads
            raise RuntimeError("a greenlet Table is stepped from the thread that reset it; "
                               "use Table(…, backend='thread') to step it from several threads") from e
        return self.g.switch(answer)

    def ask(self, decision: Decision) -> Any:
        return self.caller.switch(("decision", decision))

    def close(self) -> None:
        if self.g and not self.g.dead:
            self.caller = _greenlet.getcurrent()
            self.g.parent = self.caller
            self.g.switch(_Raise(TableClosed()))


class _ThreadWorker:
    """The engine in a daemon thread; two semaphores pass control back and forth."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.to_engine = threading.Semaphore(0)
        self.to_caller = threading.Semaphore(0)
        self.box: Any = None
        self.thread = threading.Thread(target=self._main, name="mj-table", daemon=True)
        self.running = False

    def _main(self) -> None:
        out = self.table._run()
        self.running = False
        self.box = out
        self.to_caller.release()

    def start(self) -> Any:
        self.running = True
        self.thread.start()
        self.to_caller.acquire()
        return self.box

    def send(self, answer: Any) -> Any:
        self.box = answer
        self.to_engine.release()
        self.to_caller.acquire()
        return self.box

    def ask(self, decision: Decision) -> Any:
        self.box = ("decision", decision)
        self.to_caller.release()
        self.to_engine.acquire()
        return self.box

    def close(self) -> None:
        if self.running and self.thread.is_alive():
            self.send(_Raise(TableClosed()))
            self.thread.join()


def play_hand(table: Table, players: Sequence[Player]) -> HandResult:
    """Play the table's hand with ``players`` (indexed by seat): ``Player.decide`` over the stepper.

    A player raising leaves the table, a choice that wasn't offered abandons the hand —
    the engine's own rules, so the log equals ``Game(…, players).play()``'s."""
    pending = table.reset()
    while isinstance(pending, Decision):
        seat = pending.seat
        try:
            answer: Option | _Raise = players[seat].decide(table.view(seat), pending)
        except IllegalDecision as e:
            answer = _Raise(e)
        except Exception as e:  # the engine turns it into a leave, as in Game.play
            answer = _Raise(e)
        table.pending = None
        pending = table._receive(table._worker.send(answer))
    return pending


def run_policy(table: Table, policy: Callable[[Decision, TableView], Option]) -> HandResult:
    """Step the whole hand with ``policy(decision, view)`` (a function, no Player object)."""
    pending = table.reset()
    while isinstance(pending, Decision):
        pending = table.step(policy(pending, table.view(pending.seat)))
    return pending


__all__ = ["Pending", "Table", "TableClosed", "play_hand", "run_policy"]
