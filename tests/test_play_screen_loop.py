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
