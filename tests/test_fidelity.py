"""Rule fidelity: the calls after a kong and on a discard, 点杠开杠, leaving the table,
first-turn patterns on seven pairs, no 海底 after a replacement draw, claim priorities,
截胡, and the declared tie-break for equal pay."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import mjframework_rulesets
import pytest
from click.testing import CliRunner
from mjframework_plugins.calls import Plugin as Calls

from mjframework.cli import main
from mjframework.events import Collector
from mjframework.game import Game
from mjframework.hand import WinContext, make_hand
from mjframework.players import Decision, Option, TableView
from mjframework.ruleset import load_ruleset
from mjframework.scoring import Evaluator
from mjframework.settlement import SettlementContext
from mjframework.tiles import parse_tile, parse_tiles


class _Hand:
    dealer = 0
    previous = None


def _ctx(flags: tuple[str, ...]) -> Any:
    return SettlementContext("win", 4, 0, winners=(1,), flags=frozenset(flags))


def test_after_kong_call_is_kaigang_plus_the_patterns_name() -> None:
    plugin = Calls(load_ruleset("yongzhou-huandiao").plugins["calls"])
    assert plugin.mj_win_call(["单换调"], _ctx(())) == "换调"
    assert plugin.mj_win_call(["单换调"], _ctx(("after_kong",))) == "开杠单换调"
    assert plugin.mj_win_call(["双换调王"], _ctx(("after_kong",))) == "开杠双换调王"
    assert plugin.mj_win_call(["自摸"], _ctx(("after_kong",))) == "开杠自摸"  # replaced whole
    # The default puts the prefix before the call.
    other = Calls({"wins": {"单换调": "换调"}, "after_kong": {"prefix": "K"}})
    assert other.mj_win_call(["单换调"], _ctx(("after_kong",))) == "K换调"


def test_the_discard_offer_is_an_option_off_by_default() -> None:
    event = {"type": "discard", "seat": 0, "tile": "8m"}
    shipped = Calls(load_ruleset("yongzhou-huandiao").plugins["calls"])
    assert shipped.mj_announce(hand=_Hand(), event=event) == "八万"
    opts = {**load_ruleset("yongzhou-huandiao").plugins["calls"], "discard_ask": "{tile}有没有人要啊"}
    assert Calls(opts).mj_announce(hand=_Hand(), event=event) == "八万有没有人要啊"


# -- equal pay: scoring.ties ----------------------------------------------------------

TIES_DEMO = """\
format: 1
id: ties-demo
name: ties demo
extends: [{frag}/tiles-108.yaml, {frag}/shapes.yaml]
wall: {{stacks_per_seat: [14, 13, 14, 13], height: 2, draw_direction: clockwise}}
break: {{dice: 2, wall: {{die: sum, seats: {{"2": 1, "3": 2, "4": 3, "5": 0, "6": 1, "7": 2, "8": 3,
        "9": 0, "10": 1, "11": 2, "12": 3}}}}, stack: {{die: low, from: owner_left}}}}
deal: {{rounds: 3, block: 4, then: [{{seat: 0, tiles: 2}}, {{seat: 1, tiles: 1}}, {{seat: 2, tiles: 1}},
       {{seat: 3, tiles: 1}}]}}
wildcard: null
claims: {{chow: left, pung: true, kong: true}}
win: {{self_draw: true, discard: true}}
dealer: {{first: seat0, after_win: winner, after_draw: next}}
scoring: {{combine: sum, {ties}payout: {{self_draw: each_other, discard: discarder}}}}
patterns:
  - {{name: 对子, shape: seven_pairs, points: 2}}
  - {{name: 顺, shape: standard, points: 1}}
  - {{name: 有顺, shape: standard, require: {{sequences: {{min: 1}}}}, points: 1}}
"""


def _ties_demo(tmp_path: Path, ties: str | None) -> Evaluator:
    frag = Path(mjframework_rulesets.__file__).parent / "fragments"
    p = tmp_path / f"ties-{ties}.yaml"
    p.write_text(TIES_DEMO.format(frag=frag, ties=f"ties: {ties}, " if ties else ""), encoding="utf-8")
    return Evaluator(load_ruleset(p))


@pytest.mark.parametrize(("ties", "patterns"), [
    (None, ["对子"]),                   # the default: first declared
    ("first_declared", ["对子"]),
    ("fewest_patterns", ["对子"]),
    ("most_patterns", ["顺", "有顺"]),
])
def test_the_declared_tie_break_decides_between_equal_readings(
        tmp_path: Path, ties: str | None, patterns: list[str]) -> None:
    """223344m 556677p 99s pays 2 as seven pairs (对子) and 2 as four sequences (顺 + 有顺)."""
    ev = _ties_demo(tmp_path, ties)
    hand = make_hand("223344m 556677p 9s", [], "9s")
    score = ev.score(hand, WinContext(seat=0, win_by="self_draw"), None)
    assert score.points == 2 and score.pattern_names == patterns
    assert ev.ruleset.scoring.ties == (ties or "first_declared")


def test_wangba_tie_is_real_and_declared(tmp_path: Path) -> None:
    """王归位 + 王钓 pays what 龙巧对 + 王钓 pays: with 龙巧对 out of the way the other shows."""
    hand = make_hand("4444m 55m 6666m 111p", [], "1p")
    ctx = WinContext(seat=1, win_by="discard", discarder=2)
    shipped = Evaluator(load_ruleset("yongzhou-wangba"))
    w = parse_tile("5m")
    got = shipped.score(hand, ctx, w)
    assert got.pattern_names == ["龙巧对", "王钓"] and got.points == 8
    p = tmp_path / "no-long.yaml"
    p.write_text("format: 1\nid: no-long\nname: no-long\nextends: yongzhou-wangba\npatterns:\n"
                 "  - {name: 龙巧对, shape: seven_pairs, require: {sets_of_four: {min: 1}},\n"
                 "     when: {win_by: [robbed_kong]}, points: 4, excludes: [七巧对]}\n", encoding="utf-8")
    other = Evaluator(load_ruleset(p)).score(hand, ctx, w)
    assert other.pattern_names == ["王钓", "王归位"] and other.points == 8


@pytest.mark.parametrize("rid", ["changsha", "yongzhou-huandiao", "yongzhou-wangba"])
def test_every_shipped_ruleset_declares_its_ties_and_the_rule_card_shows_it(rid: str) -> None:
    text = (Path(mjframework_rulesets.__file__).parent / f"{rid}.yaml").read_text(encoding="utf-8")
    assert "\n  ties: first_declared" in text
    r = CliRunner().invoke(main, ["doc", rid])
    assert r.exit_code == 0, r.output
    assert "equal pay: the result whose patterns come first in declaration order" in r.output


# -- no 海底 when a replacement draw takes the last tile ------------------------------


class Rigged(Game):
    """A changsha hand with chosen hands and a wall whose only drawable tile is ``last``.

    After the real deal the seats' hands are replaced and the wall is emptied
    but for the top of its last stack: the live end and the kong end meet on
    that one tile, so a kong's replacement draw takes the last drawable tile.
    """

    def __init__(self, hands: list[str], last: str, **kw: Any) -> None:
        self.rig = ([parse_tiles(h) for h in hands], parse_tile(last))
        super().__init__(load_ruleset("changsha"), [Script() for _ in range(4)], seed=1, dealer=0,
                         **kw)

    def _deal(self) -> None:
        super()._deal()
        hands, last = self.rig
        for s, h in zip(self.seats, hands, strict=True):
            s.hand = list(h)
        w = self.wall
        w.slots = [None] * len(w.slots)
        w.kong_stack, w.kong_layer = w.stacks - 1, 0
        w.live = w.kong_stack * w.height
        w.slots[w.live] = last


class Script:
    """Wins when it can, makes a plain concealed kong (补) when it can, else discards the
    tile it drew (or its first tile) and passes on claims."""

    def decide(self, view: TableView, decision: Decision) -> Option:
        for o in decision.options:
            if o.kind == "win" or (o.kind == "kong" and o.meld == "concealed-kong"):
                return o
        if decision.kind == "turn":
            drawn = [o for o in decision.options if o.kind == "discard" and o.tile == decision.tile]
            return (drawn or [o for o in decision.options if o.kind == "discard"])[0]
        return next((o for o in decision.options if o.kind == "pass"), decision.options[0])


RIG_HANDS = ["1111m 234p 567p 789s 5s",   # the dealer: a concealed kong, then waiting on 5s
             "78m 456m 123s 666s 22p",     # seat 1: waiting on 6m / 9m with a 22p pair
             "33m 99p 11p 44s 88p 6p 2s 2m",
             "55m 66p 77p 88m 99s 2m 33s"]


def test_a_replacement_draw_of_the_last_tile_is_no_haidi_laoyue() -> None:
    events = Collector()
    game = Rigged(RIG_HANDS, "5s", emit=events)
    result = game.play()
    assert result.result == "win", [e for e in events if e["type"] == "abandon"]
    kong = next(e for e in events if e["type"] == "kong")
    draw = next(e for e in events if e["type"] == "draw")
    assert (kong["seat"], kong["kind"], draw["source"], draw["tile"]) == (0, "concealed", "kong", "5s")
    assert game.last_tile_replacement == 0 and game.wall.live_remaining() == 0
    win = next(e for e in events if e["type"] == "win")
    assert (win["seat"], win["win_by"]) == (0, "self_draw")
    assert win["patterns"] == ["平胡"]  # not 海底捞月: this hand has no 海底
    assert not [e for e in events if e["type"] in ("haidi", "haidi_shown")]


def test_a_win_on_the_discard_after_it_is_no_haidi_pao() -> None:
    events = Collector()
    result = Rigged(RIG_HANDS, "9m", emit=events).play()
    discard = next(e for e in events if e["type"] == "discard")
    assert (discard["seat"], discard["tile"]) == (0, "9m")
    assert not [e for e in events if e["type"] == "claim"]  # nothing left to draw: only wins
    win = next(e for e in events if e["type"] == "win")
    assert (win["seat"], win["win_by"], win["from_seat"]) == (1, "discard", 0)
    # The dealer's first discard (地胡), and no 海底炮: this hand has no 海底.
    assert win["patterns"] == ["地胡"]
    assert result.winners == [1]


def test_a_drawn_hand_after_it_is_dealt_next_by_the_replacement_drawer() -> None:
    hands = list(RIG_HANDS)
    hands[1] = "78m 456m 123s 666s 2p 3p"  # seat 1 is no longer waiting on 9m
    events = Collector()
    result = Rigged(hands, "9m", emit=events).play()
    assert result.result == "draw" and result.next_dealer == 0  # the dealer would pass it on
    assert [e["type"] for e in events][-2:] == ["reveal", "hand_end"]  # the kong is turned up
