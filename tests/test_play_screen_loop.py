"""The full-screen table plays on the screen's own event loop and draws once per stop.

``mj play``'s table steps the hand's generator (``Game.steps``) in an async worker of the
Textual app: no game thread, and no redraw per event (the bots' turns between two of the
person's decisions used to cost a frame each: benchmarks/bench_table.py). Paced play
(``speed`` > 0) still shows every bot's move. Counts, not seconds.
"""

from __future__ import annotations

import asyncio
import random
import threading
from typing import Any

import pytest

pytest.importorskip("textual")

from mjframework.play.bots import GreedyBot
from mjframework.play.players import TableView
from mjframework.ui.human import PACED

WAIT = 300  # seconds: a guard against a hang only


def _play(speed: float, decisions: int) -> tuple[list[int], set[int], int, Any]:
    """Play ``decisions`` of seat 0's decisions by Enter/keys; per decision the redraws since the last."""
    from mjframework.ui.tui import TableApp

    app = TableApp("changsha", seed=3, hands=1, speed=speed)
    draws = [0]
    threads: set[int] = set()
    app.session.record = lambda e: threads.add(threading.get_ident())
    real = app.refresh_table

    def counted() -> None:
        draws[0] += 1
        real()

    app.refresh_table = counted  # type: ignore[method-assign]
    per: list[int] = []
    me = GreedyBot(random.Random(1))

    async def go() -> int:
        async with app.run_test(size=(120, 40)) as pilot:
            while len(per) < decisions and not app.finished:
                await asyncio.wait_for(app.decision_ready.wait(), WAIT)
                await pilot.pause()
                per.append(draws[0])
                draws[0] = 0
                choice = me.decide(TableView(app.session.game, 0), app.pending.decision)
                app.answer(choice)
                await pilot.pause()
            return threading.get_ident()

    loop_thread = asyncio.run(go())
    return per, threads, loop_thread, app


def test_the_hand_runs_on_the_screens_loop_and_is_drawn_once_per_decision() -> None:
    per, threads, loop_thread, app = _play(0.0, 8)
    assert threads == {loop_thread}  # every event told on the screen's own thread
    assert all(n == 1 for n in per[1:]), per  # the bots' turns in between: no redraw of their own
    assert app.session.error is None


def test_paced_play_still_shows_every_bots_move() -> None:
    per, _, _, app = _play(0.01, 4)
    moves = [e for e in app.session.events if e["type"] in PACED and e.get("seat") != 0]
    assert sum(per) > len(moves) >= 3, (per, len(moves))  # one redraw at least per bot's move


class SlowBot:
    """A bot that thinks until told: its first decision blocks until the test releases it.

    It has an external bot's seat interface (sit, an event sink, decide, close)."""

    def __init__(self) -> None:
        self.inner = GreedyBot(random.Random(5))
        self.name = "slow"
        self.thinking = threading.Event()  # set while the first decision is under way
        self.release = threading.Event()
        self.decisions = 0
        self.heard = 0
        self.seat: int | None = None
        self.threads: set[int] = set()

    def sit(self, seat: int) -> None:
        self.seat = seat

    def __call__(self, event: dict) -> None:
        self.heard += 1

    def decide(self, view, decision):
        self.threads.add(threading.get_ident())
        if self.decisions == 0:
            self.thinking.set()
            assert self.release.wait(WAIT)
        self.decisions += 1
        return self.inner.decide(view, decision)

    def close(self) -> None:
        self.release.set()


def test_a_slow_bot_thinks_off_the_loop_and_the_screen_answers_meanwhile() -> None:
    """While a bot at seat 1 thinks, the screen still takes keys and redraws: q asks to leave,
    another key stays; then the bot answers and the hand goes on to the person's decision."""
    from mjframework.ui.tui import TableApp

    bot = SlowBot()
    app = TableApp("changsha", seed=3, hands=1, speed=0, externals={1: bot})
    me = GreedyBot(random.Random(1))

    async def go() -> int:
        async with app.run_test(size=(120, 40)) as pilot:
            # play the person's decisions until the slow bot is asked (it blocks then)
            for _ in range(200):
                if bot.thinking.is_set():
                    break
                if app.decision_ready.is_set():
                    app.answer(me.decide(TableView(app.session.game, 0), app.pending.decision))
                await pilot.pause()
            assert bot.thinking.is_set() and app.session.thinking == 1
            heard = bot.heard
            await pilot.press("q")  # the loop is free: the question shows at once
            await pilot.pause()
            assert app.confirm_quit
            assert "离开牌桌?" in str(app._texts["#prompt"])
            await pilot.press("x")  # stay
            await pilot.pause()
            assert not app.confirm_quit and bot.decisions == 0 and bot.heard == heard  # still thinking
            bot.release.set()
            await asyncio.wait_for(app.decision_ready.wait(), WAIT)  # the hand went on to the person
            assert bot.decisions >= 1 and app.session.thinking == 0
            return threading.get_ident()

    loop_thread = asyncio.run(go())
    assert bot.seat == 1 and bot.heard > 0  # seated, and it heard the hand (an event sink)
    assert loop_thread not in bot.threads  # it decided off the screen's loop
    assert app.session.error is None
