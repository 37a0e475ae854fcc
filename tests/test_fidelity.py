"""Rule fidelity: the calls after a kong and on a discard, 点杠开杠, leaving the table,
first-turn patterns on seven pairs, no 海底 after a replacement draw, claim priorities,
截胡, and the declared tie-break for equal pay."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import mjframework_rulesets
import pytest
from click.testing import CliRunner
from mjframework_plugins.calls import Plugin as Calls

from mjframework.cli import main
from mjframework.core.hand import WinContext, make_hand
from mjframework.core.tiles import parse_tile, parse_tiles
from mjframework.evaluate.scoring import Evaluator
from mjframework.play.bots import GreedyBot
from mjframework.play.events import Collector
from mjframework.play.game import Game
from mjframework.play.players import Decision, Option, PlayerLeft, TableView
from mjframework.rules.loader import load_ruleset
from mjframework.settle.settlement import SettlementContext, check_balance


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


@pytest.mark.parametrize("rid", ["changsha", "yongzhou-huandiao", "yongzhou-wangba", "hongzhong",
                                 "guangdong-tuidaohu", "taiwan-16"])
def test_every_shipped_ruleset_declares_its_ties_and_the_rule_card_shows_it(rid: str) -> None:
    text = (Path(mjframework_rulesets.__file__).parent / f"{rid}.yaml").read_text(encoding="utf-8")
    assert "\n  ties: first_declared" in text
    r = CliRunner().invoke(main, ["doc", rid])
    assert r.exit_code == 0, r.output
    assert "equal pay: the result whose patterns come first in declaration order" in r.output
    assert "Leaving the table" in r.output
    assert ("70 to nobody" in r.output) == (rid == "changsha")


# -- no 海底 when a replacement draw takes the last tile ------------------------------


class Rigged(Game):
    """A changsha hand with chosen hands and a wall holding only the tiles ``wall``.

    After the real deal the seats' hands are replaced and the wall is emptied
    but for its last stacks, which hold ``wall`` (live end first). With one
    tile the live end and the kong end meet on it, so a kong's replacement
    draw takes the last drawable tile.
    """

    def __init__(self, hands: list[str], wall: str, players: list[Any] | None = None,
                 ruleset: str = "changsha", indicator: str | None = None, **kw: Any) -> None:
        self.rig = ([parse_tiles(h) for h in hands], parse_tiles(wall))
        self.rig_indicator = parse_tile(indicator) if indicator else None
        super().__init__(load_ruleset(ruleset), players or [Script() for _ in range(4)], seed=1,
                         dealer=0, **kw)

    def _deal(self) -> None:
        super()._deal()
        if self.rig_indicator is not None:  # the flip shows this tile (kept out of the wall)
            ind = self.rig_indicator
            self.wall.flip_indicator = lambda: ((1, 1), ind)  # type: ignore[method-assign]
        hands, wall = self.rig
        for s, h in zip(self.seats, hands, strict=True):
            s.hand = list(h)
        w = self.wall
        w.slots = [None] * len(w.slots)
        w.kong_stack, w.kong_layer = w.stacks - 1, 0
        w.live = (w.stacks - -(-len(wall) // w.height)) * w.height
        w.slots[w.live:w.live + len(wall)] = wall


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


# -- leaving the table ------------------------------------------------------------------


def test_q_mid_hand_in_changsha_charges_the_leaver_70_and_says_so() -> None:
    r = CliRunner().invoke(main, ["play", "changsha", "--seed", "3"], input="1\n1\nq\n")
    assert r.exit_code == 0 and "Traceback" not in r.output, r.output
    out = r.output
    assert "你 离开牌桌 (left the table: quit)   罚 70 付给无人 (paid to nobody)" in out
    assert "结算  你 -70   下家 +0   对家 +0   上家 +0" in out
    assert "you left the table; you pay 70 to nobody" in out
    assert out.rstrip().splitlines()[-1] == "0 手   总计  你 -70   下家 +0   对家 +0   上家 +0"


def test_q_where_no_penalty_is_declared_costs_nothing() -> None:
    r = CliRunner().invoke(main, ["play", "yongzhou-wangba", "--seed", "3"], input="1\nq\n")
    assert r.exit_code == 0, r.output
    assert "离开牌桌" in r.output and "nothing is paid" in r.output
    assert r.output.rstrip().splitlines()[-1].endswith("你 +0   下家 +0   对家 +0   上家 +0")


class Leaves:
    """Leaves the table at its ``n``-th decision (raising ``error``), greedy before that."""

    def __init__(self, n: int, error: Exception) -> None:
        self.bot = GreedyBot(random.Random(0))
        self.n, self.error, self.calls = n, error, 0

    def decide(self, view: TableView, decision: Decision) -> Option:
        self.calls += 1
        if self.calls == self.n:
            raise self.error
        return self.bot.decide(view, decision)


def _leave_game(rs: Any, error: Exception) -> tuple[Any, Collector]:
    players: list[Any] = [GreedyBot(random.Random(s)) for s in range(4)]
    players[2] = Leaves(3, error)
    events = Collector()
    return Game(rs, players, seed=5, dealer=0, emit=events).play(), events


@pytest.mark.parametrize("error", [PlayerLeft("disconnected"), RuntimeError("crashed")])
def test_a_leaver_pays_the_declared_penalty_to_nobody_and_the_hand_is_abandoned(error: Exception) -> None:
    rs = load_ruleset("changsha")
    result, events = _leave_game(rs, error)
    leave = next(e for e in events if e["type"] == "leave")
    assert leave["seat"] == 2 and leave["penalty"] == 70 and leave["paid_to"] == "none"
    assert ("disconnected" if isinstance(error, PlayerLeft) else "RuntimeError: crashed") in leave["reason"]
    i = events.index(leave)
    assert events[i + 1]["type"] == "settlement"
    assert events[i + 1]["items"] == [{"payer": 2, "payee": None, "amount": 70, "reason": "leave"}]
    assert [e["type"] for e in events[i + 2:]][-1] == "hand_end"
    assert result.result == "abandon" and result.next_dealer == 0
    opening = sum(sum(e["payments"]) for e in events[:i] if e["type"] == "settlement")
    assert opening == 0 and sum(result.payments) == -70 and result.payments[2] <= -70
    assert check_balance(rs, events[i + 1]["items"], events[i + 1]["payments"]) == []


def test_a_declared_bot_plays_on_for_the_leaver_and_each_other_player_is_paid(tmp_path: Path) -> None:
    p = tmp_path / "bot.yaml"
    p.write_text("format: 1\nid: cs-bot\nname: x\nextends: changsha\n"
                 "leave: {penalty: 20, paid_to: each_other, hand: bot}\n", encoding="utf-8")
    rs = load_ruleset(p)
    result, events = _leave_game(rs, PlayerLeft("quit"))
    leave = next(e for e in events if e["type"] == "leave")
    assert (leave["seat"], leave["hand"]) == (2, "bot")
    fine = events[events.index(leave) + 1]
    assert fine["payments"] == [20, 20, -60, 20]
    assert result.result in ("win", "draw")  # played to its end by the stand-in
    assert any(e["type"] == "discard" and e["seat"] == 2 for e in events[events.index(fine):])
    assert sum(result.payments) == 0


def test_settlement_balance_allows_exactly_the_declared_penalty() -> None:
    cs, wb = load_ruleset("changsha"), load_ruleset("yongzhou-wangba")
    fine = [{"payer": 1, "payee": None, "amount": 70, "reason": "leave"}]
    assert check_balance(cs, fine, [0, -70, 0, 0]) == []
    assert check_balance(wb, fine, [0, -70, 0, 0])  # wangba declares no penalty
    assert check_balance(cs, [{**fine[0], "amount": 60}], [0, -60, 0, 0])
    assert check_balance(cs, [{**fine[0], "reason": "平胡"}], [0, -70, 0, 0])
    assert check_balance(cs, fine, [0, -70, 0, 10])  # items and payments disagree
    win = [{"payer": 1, "payee": 0, "amount": 20, "reason": "平胡"}]
    assert check_balance(wb, win, [20, -20, 0, 0]) == []


# -- 点杠开杠 ------------------------------------------------------------------------------


class Prefers(Script):
    """Takes the first offered option of the given kinds, in order; otherwise as Script."""

    def __init__(self, *kinds: str) -> None:
        self.kinds = kinds
        self.offered: list[Decision] = []

    def decide(self, view: TableView, decision: Decision) -> Option:
        self.offered.append(decision)
        for kind in self.kinds:
            for o in decision.options:
                if o.kind == kind:
                    return o
        return super().decide(view, decision)


DIANGANG = ["8m 9m 1p 3p 5p 7p 9p 1s 3s 6s 7s 9s 2p 4p",  # the dealer discards 8m first
            "888m 234p 567p 22s 34s",                      # seat 1: 3 × 8m, ready (2s / 5s) after the kong
            "11m 33m 55m 77m 99p 6s 7s 8s",
            "2m 4m 6m 11p 33p 66p 88p 99s"]


def test_diangang_kaigang_opens_a_claimed_kong() -> None:
    """Seat 1 holds three 八万 and is ready after a kong: on the dealer's 八万 it is offered
    点杠开杠 beside 点杠, takes it, and the dice-counted tile wins: 杠上开花."""
    seat1 = Prefers("open_kong")
    players: list[Any] = [Script(), seat1, Script(), Script()]
    events = Collector()
    result = Rigged(DIANGANG, "5s 5s 5s 5s 2s 2s", players, emit=events).play()
    claim = seat1.offered[0]
    assert claim.kind == "claim" and claim.tile == parse_tile("8m")
    kinds = [(o.kind, o.meld) for o in claim.options]
    assert ("kong", "kong") in kinds and ("open_kong", "kong") in kinds and kinds[-1] == ("pass", None)
    types = [e["type"] for e in events]
    i = types.index("open_kong")
    assert events[i] == {"type": "open_kong", "seat": 1, "tile": "8m", "kind": "claimed",
                         "text": "点杠开杠 八万"}
    assert types[i - 1] == "discard" and events[i - 1]["tile"] == "8m"
    claim_e = next(e for e in events[i:] if e["type"] == "claim")
    assert (claim_e["seat"], claim_e["kind"], claim_e["from_seat"]) == (1, "kong", 0)
    dice = next(e for e in events[i:] if e["type"] == "dice")
    draw = next(e for e in events[i:] if e["type"] == "draw")
    assert dice["purpose"] == "open_kong" and (draw["seat"], draw["source"]) == (1, "kong")
    win = next(e for e in events if e["type"] == "win")
    assert (win["seat"], win["win_by"], win["tile"]) == (1, "self_draw", draw["tile"])
    assert win["patterns"] == ["杠上开花"]
    assert result.winners == [1]


def test_diangang_kaigang_not_won_is_discarded_at_once() -> None:
    seat1 = Prefers("open_kong")
    events = Collector()
    Rigged(DIANGANG, "9m 9m 1m 1m 4m 4m", [Script(), seat1, Script(), Script()], emit=events).play()
    i = [e["type"] for e in events].index("open_kong")
    draw = next(e for e in events[i:] if e["type"] == "draw")
    after = [e for e in events[events.index(draw) + 1:] if e["type"] not in ("call",)]
    assert after[0] == {"type": "discard", "seat": 1, "tile": draw["tile"]}  # the hand is locked


def test_diangang_kaigang_needs_a_ready_hand() -> None:
    hands = list(DIANGANG)
    hands[1] = "888m 234p 567p 29s 14s"  # not ready after the kong: only 点杠 is offered
    seat1 = Prefers("open_kong")
    Rigged(hands, "5s 5s 5s 5s 2s 2s", [Script(), seat1, Script(), Script()], emit=Collector()).play()
    claim = next(d for d in seat1.offered if d.kind == "claim")
    assert [o.kind for o in claim.options] == ["kong", "pung", "pass"]


# -- claim priorities and 截胡 ----------------------------------------------------------

PRIORITY = ["4m 9m 1p 3p 5p 7p 9p 1s 3s 6s 7s 9s 2p 4p",  # the dealer discards 4m first
            "23m 56m 789p 234s 55s 8s",                   # seat 1 (next): may chow 234m / 345m / 456m
            "44m 11m 77m 22s 66p 88p 1s",                 # seat 2: may pung 4m
            "5m 7m 8m 1p 2p 3p 4s 5s 6s 7s 7s 9s 9s"]     # seat 3: nothing on 4m


def test_changsha_pung_beats_chow() -> None:
    chow, pung = Prefers("chow"), Prefers("pung")
    events = Collector()
    Rigged(PRIORITY, "1m 1m 9p 9p", [Script(), chow, pung, Script()], emit=events).play()
    first = chow.offered[0]
    assert first.kind == "claim" and first.tile == parse_tile("4m")
    assert {o.kind for o in first.options} == {"chow", "pass"}  # seat 1 wants its chow ...
    assert pung.offered[0].tile == parse_tile("4m")
    claim = next(e for e in events if e["type"] == "claim")
    assert (claim["seat"], claim["kind"], claim["tiles"], claim["from_seat"]) == (2, "pung", ["4m"] * 3, 0)


def test_changsha_a_win_beats_pung_and_chow() -> None:
    hands = list(PRIORITY)
    hands[3] = "56m 123p 456s 999s 88p"  # seat 3 wins on 4m (456m, 88p pair)
    chow, pung = Prefers("chow"), Prefers("pung")
    events = Collector()
    result = Rigged(hands, "1m 1m 9p 9p", [Script(), chow, pung, Script()], emit=events).play()
    assert chow.offered and pung.offered  # both were asked and said yes
    assert not [e for e in events if e["type"] == "claim"]
    win = next(e for e in events if e["type"] == "win")
    assert (win["seat"], win["win_by"], win["from_seat"], win["tile"]) == (3, "discard", 0, "4m")
    assert result.winners == [3]


JIEHU = ["4m 9m 1p 3p 5p 7p 9p 1s 3s 6s 7s 9s 2p 4p",   # the dealer discards 4m first
         "56m 123p 456s 999s 88p",                       # seat 1 wins on 4m
         "23m 789p 123s 777s 11p",                       # seat 2 wins on 4m too
         "11m 55m 2s 5s 6s 8s 3z 3z 4z 4z 6z"]


def test_wangba_jiehu_the_first_in_turn_wins() -> None:
    events = Collector()
    result = Rigged(JIEHU, "1m 1m 9p 9p", ruleset="yongzhou-wangba", indicator="5z", emit=events).play()
    wins = [e for e in events if e["type"] == "win"]
    assert [(w["seat"], w["from_seat"]) for w in wins] == [(1, 0)] and result.winners == [1]


def test_wangba_jiehu_when_the_first_passes_the_next_may_win() -> None:
    first = Prefers("pass")
    events = Collector()
    result = Rigged(JIEHU, "1m 1m 9p 9p", [Script(), first, Script(), Script()],
                    ruleset="yongzhou-wangba", indicator="5z", emit=events).play()
    offered = first.offered[0]
    assert offered.kind == "claim" and offered.options[0].kind == "win"  # it could win
    wins = [e for e in events if e["type"] == "win"]
    assert [(w["seat"], w["from_seat"], w["tile"]) for w in wins] == [(2, 0, "4m")]
    assert result.winners == [2]
