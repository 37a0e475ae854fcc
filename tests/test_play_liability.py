"""Liability (包, ``scoring.liable``): the settlement item says whose share the payer pays
(``for_seat``), and every table shows it — the line mode, the full screen and a room's
settlement lines (the browser's) — as ``包 (代<seat>付)``, ``liable (pays for …)`` in English.

``tests/rulesets/liable-108.yaml`` makes a discarder pay every share (点炮包三家); seed 1's
first hand is won on a discard, so its settlement has two liable items.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from mjframework.core.hand import WinContext, make_hand
from mjframework.evaluate.scoring import Evaluator
from mjframework.rules.loader import load_ruleset
from mjframework.run.simulate import load_cached
from mjframework.ui.table import payment_reason
from mjframework.ui.words import Words

RULESET = str(Path(__file__).parent / "rulesets" / "liable-108.yaml")
SEED = 1


def test_a_liable_payment_names_the_seat_it_pays_for() -> None:
    ev = Evaluator(load_ruleset(RULESET))
    fed = ["pung 1m from 2", "pung 2m from 2", "pung 3p from 2", "pung 4p from 3"]
    hand = make_hand("5s", fed, win_tile="5s")
    s = ev.settle(hand, WinContext(seat=1), ev.score(hand, WinContext(seat=1)))
    items = [p.to_dict() for p in s.payments]
    assert [(i["payer"], i.get("for_seat")) for i in items] == [(2, 0), (2, None), (2, 3)]
    assert "for_seat" not in items[1]  # a payer's own share: the item is as before
    names = ["东家", "南家", "西家", "北家"]
    assert payment_reason(items[0], names.__getitem__).endswith("包 (代东家付)")
    assert "(for seat" not in payment_reason(items[0], names.__getitem__)
    assert Words("en")(payment_reason(items[0], names.__getitem__)).endswith("liable (pays for East)")


def test_the_line_mode_shows_liability() -> None:
    from mjframework.ui.human import Console, play_session

    out: list[str] = []
    play_session(RULESET, seed=SEED, hands=1, watch=True, console=Console(read_line=lambda p: None,
                                                                            echo=out.append))
    assert sum("包 (代" in line for line in out) == 2, out


def test_the_full_screen_shows_liability() -> None:
    pytest.importorskip("textual")
    from mjframework.ui.tui import TableApp

    async def go() -> str:
        app = TableApp(RULESET, seed=SEED, hands=1, watch=True, speed=0)
        async with app.run_test(size=(120, 40)) as pilot:
            await asyncio.wait_for(app.idle.wait(), 300)
            await pilot.pause()
            return app._result_text().plain

    text = asyncio.run(go())
    assert text.count("包 (代") == 2, text


def test_a_rooms_settlement_lines_show_liability() -> None:
    from mjframework.ui.rooms import Room  # (stdlib only: the web extra serves it, not needed here)

    rs, ev = load_cached(RULESET, (), None)
    room = Room(rs, ev, humans=[0], seed=SEED, hands=1, away_timeout=0)  # the seat's bot plays at once
    room.start()
    assert room.finished.wait(300) and room.error is None
    over = next(m for m in room.seats[0].log if m["type"] == "hand_over")
    assert sum("包 (代" in line for line in over["lines"]) == 2, over["lines"]
