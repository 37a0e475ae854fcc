"""Hidden information: the log keeps the truth, a seat's view masks what it cannot see."""

from __future__ import annotations

import re

from click.testing import CliRunner

from mjframework.cli import main
from mjframework.core.hand import Meld
from mjframework.play.events import Collector
from mjframework.play.game import Game
from mjframework.play.players import Decision, Option, TableView
from mjframework.play.visibility import log_for, meld_for, view_for
from mjframework.rules.loader import load_ruleset
from mjframework.ui.human import Announcer

ONES = "1\n" * 400


def test_an_event_without_hidden_is_seen_whole() -> None:
    e = {"type": "discard", "seat": 1, "tile": "3m"}
    assert view_for(e, 0) is e and view_for(e, None) is e


def test_a_seat_field_is_seen_by_that_seat_only() -> None:
    e = {"type": "draw", "seat": 2, "tile": "7p", "source": "wall", "hidden": {"tile": 2}}
    assert view_for(e, 2) == e
    other = view_for(e, 0)
    assert other["tile"] is None and other["seat"] == 2 and other["hidden"] == {"tile": 2}
    assert e["tile"] == "7p"  # the truth is not touched
    assert view_for(e, None) == e  # a referee sees all


def test_nobody_and_by_seat() -> None:
    wall = {"type": "wall", "tiles": ["1m", "2m"], "hidden": {"tiles": "none"}}
    assert all(view_for(wall, s)["tiles"] is None for s in range(4))
    deal = {"type": "deal", "hands": [["1m"], ["2m"], ["3m"], ["4m"]], "hidden": {"hands": "by_seat"}}
    assert view_for(deal, 1)["hands"] == [None, ["2m"], None, None]
    assert list(log_for([wall, deal], 3))[1]["hands"] == [None, None, None, ["4m"]]


def test_a_concealed_kong_is_face_down_to_others_until_revealed() -> None:
    kong = Meld("concealed-kong", (27,) * 4)
    assert meld_for(kong, owner=1, seat=1, revealed=False) == kong
    down = meld_for(kong, owner=1, seat=0, revealed=False)
    assert down.kind == "concealed-kong" and down.tiles == ()
    assert meld_for(kong, owner=1, seat=0, revealed=True) == kong
    pung = Meld("pung", (3, 3, 3), 2)
    assert meld_for(pung, owner=1, seat=0, revealed=False) == pung


class KongFirst:
    """Declares a concealed kong whenever it can, else the first option; records others' views."""

    def __init__(self, seat: int, seen: list) -> None:
        self.seat = seat
        self.seen = seen

    def decide(self, view: TableView, decision: Decision) -> Option:
        for o in decision.options:
            if o.kind == "kong" and o.meld == "concealed-kong":
                return o
        for s in range(view.players):
            for m in view.melds_of(s):
                self.seen.append((self.seat, s, m))
        return decision.options[0]


def _hand_with_a_concealed_kong() -> tuple[Collector, list]:
    rs = load_ruleset("yongzhou-huandiao")
    for seed in range(200):
        seen: list = []
        events = Collector()
        Game(rs, [KongFirst(s, seen) for s in range(4)], seed=seed, emit=events).play()
        if any(e["type"] == "kong" and e["kind"] == "concealed" for e in events):
            return events, seen
    raise AssertionError("no concealed kong in 200 seeded hands")


def test_the_log_keeps_the_truth_and_views_mask_it() -> None:
    events, seen = _hand_with_a_concealed_kong()
    kong = next(e for e in events if e["type"] == "kong" and e["kind"] == "concealed")
    owner = kong["seat"]
    assert kong["tile"] and kong["hidden"] == {"tile": owner}
    others = [s for s in range(4) if s != owner]
    assert all(view_for(kong, s)["tile"] is None for s in others)
    assert view_for(kong, owner)["tile"] == kong["tile"]
    # Revealed once, at the end, with the tiles; nothing after it but hand_end.
    reveals = [i for i, e in enumerate(events) if e["type"] == "reveal"]
    assert reveals and events[reveals[-1] + 1]["type"] == "hand_end"
    assert events[reveals[0]]["tiles"] == [kong["tile"]] * 4
    # During the hand, other seats saw the kong face down; the owner saw its tiles.
    kongs_seen = [(viewer, m) for viewer, s, m in seen if s == owner and m.kind == "concealed-kong"]
    assert any(viewer != owner for viewer, _ in kongs_seen)
    for viewer, m in kongs_seen:
        assert (m.tiles == ()) == (viewer != owner)
    # Every draw, the deal and the wall are hidden from the other seats.
    for e in events:
        if e["type"] == "draw":
            assert view_for(e, (e["seat"] + 1) % 4)["tile"] is None
    deal = next(e for e in events if e["type"] == "deal")
    assert view_for(deal, 0)["hands"][1:] == [None, None, None]


def test_play_does_not_show_another_seats_concealed_kong_before_the_end() -> None:
    """``mj play yongzhou-huandiao --seed 17`` with the first option always: 下家 makes a
    concealed kong of 南; no line shows its tile before the hand's end, the reveal does."""
    r = CliRunner().invoke(main, ["play", "yongzhou-huandiao", "--seed", "17"], input=ONES)
    assert r.exit_code == 0 and "Traceback" not in r.output, r.output
    lines = r.output.splitlines()
    kong_at = next(i for i, ln in enumerate(lines) if re.match(r"^(下家|对家|上家) 暗杠", ln))
    reveal_at = next(i for i, ln in enumerate(lines) if "亮暗杠" in ln)
    assert kong_at < reveal_at
    who = lines[kong_at].split()[0]
    assert lines[kong_at] == f"{who} 暗杠"  # no tile named
    during = lines[kong_at:reveal_at]
    assert any("暗杠[■ ■ ■ ■]" in ln for ln in during)
    assert not any(re.search(r"暗杠\[[^■]", ln) for ln in during)
    assert lines[reveal_at] == f"{who} 亮暗杠 [南 南 南 南]"


def test_narration_masks_for_a_seat_and_not_for_a_spectator() -> None:
    kong = {"type": "kong", "seat": 1, "kind": "concealed", "tile": "2z", "hidden": {"tile": 1}}
    for seat, line in ((0, "下家 暗杠"), (1, "你 暗杠 南"), (None, "南家 暗杠 南")):
        out: list[str] = []
        Announcer(out.append, seat)(kong)
        assert out == [line]
