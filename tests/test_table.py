"""The table model shared by the line mode and the full-screen table (``mjframework.ui.table``)."""

from __future__ import annotations

import pytest

from mjframework.core.tiles import parse_tile, tile_code, tile_name
from mjframework.play.events import Collector
from mjframework.play.game import Game
from mjframework.play.players import Decision, Option
from mjframework.run.simulate import hand_seed, load_cached, make_bots
from mjframework.ui.human import Announcer, Console, HumanPlayer, play_session
from mjframework.ui.table import (
    ScoreRecorder,
    TableState,
    match_input,
    ready_waits,
    reason_words,
    seat_words_in,
)

T = parse_tile

TURN = (Option("win", T("3p")), Option("kong", T("东"), (T("东"),) * 4, "concealed-kong"),
        *(Option("discard", t) for t in map(T, ["5m", "6m", "3p", "中", "东"])))
CLAIM = (Option("win", T("4s")), Option("kong", T("4s"), (T("4s"),) * 4, "kong"),
         Option("pung", T("4s"), (T("4s"),) * 3),
         Option("chow", T("4s"), tuple(map(T, ["2s", "3s", "4s"]))),
         Option("chow", T("4s"), tuple(map(T, ["3s", "4s", "5s"]))), Option("pass"))


@pytest.mark.parametrize(("typed", "expected"), [
    ("5m", TURN[2]), ("五万", TURN[2]), (" 5M ", TURN[2]), ("中", TURN[5]), ("红中", TURN[5]),
    ("东", TURN[6]),  # a tile alone is its discard, not the kong on it
    ("杠", TURN[1]), ("g", TURN[1]), ("杠 东", TURN[1]), ("胡", TURN[0]), ("h", TURN[0]),
    ("3", TURN[2]), ("打 三筒", TURN[4]),
])
def test_typed_answers_on_a_turn(typed: str, expected: Option) -> None:
    assert match_input(typed, TURN) == expected


@pytest.mark.parametrize(("typed", "expected"), [
    ("碰", CLAIM[2]), ("p", CLAIM[2]), ("过", CLAIM[5]), ("x", CLAIM[5]), ("pass", CLAIM[5]),
    ("吃 234s", CLAIM[3]), ("吃 三索 四索 五索", CLAIM[4]), ("hu", CLAIM[0]), ("杠", CLAIM[1]),
])
def test_typed_answers_on_a_claim(typed: str, expected: Option) -> None:
    assert match_input(typed, CLAIM) == expected


@pytest.mark.parametrize(("typed", "message"), [
    ("吃", "several options match"), ("4s", "several options match"), ("9m", "not one of the options"),
    ("0", "no option 0"), ("99", "no option 99"), ("5q", "unknown suit letter"), ("", "empty"),
])
def test_bad_typed_answers_say_why(typed: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        match_input(typed, CLAIM)


def test_a_plugin_option_is_chosen_by_its_text() -> None:
    opts = (Option("take_last", text="要海底"), Option("pass", text="不要"))
    assert match_input("要海底", opts) == opts[0]
    assert match_input("不要", opts) == opts[1]
    assert match_input("2", opts) == opts[1]
    with pytest.raises(ValueError):
        match_input("1", opts, numbers=False)


def test_seat_words_and_reasons() -> None:
    assert seat_words_in("扎鸟  七索→座2, 五万→座0", 0) == "扎鸟  七索→对家, 五万→你"
    assert seat_words_in("七索→座2", 1) == "七索→下家"
    assert seat_words_in("七索→座2", None) == "七索→西家"
    assert reason_words("kong") == "点杠" and reason_words("concealed_kong ×2 鸟") == "暗杠 ×2 鸟"
    assert reason_words("平胡 ×2 鸟") == "平胡 ×2 鸟" and reason_words("leave") == "离桌"


def _play_watched(ruleset: str, seed: int, viewer: int, check) -> Game:
    rs, ev = load_cached(ruleset)
    rec = ScoreRecorder(ev)
    state = TableState(rs.players, viewer, copies=rs.tileset.copies, recorder=rec, stand_in=ev.stand_in_for)
    game: Game | None = None

    def emit(e):
        state.feed(e)
        check(game, state, e)

    game = Game(rs, make_bots(("greedy",) * 4, seed, 0, 0), seed=hand_seed(seed, 0, 0), dealer=seed % 4,
                emit=emit, evaluator=rec)
    game.play()
    return game


@pytest.mark.parametrize("ruleset", ["changsha", "yongzhou-huandiao", "yongzhou-wangba", "hongzhong",
                                     "guangdong-tuidaohu", "taiwan-16"])
def test_the_model_follows_the_hand_and_hides_what_the_viewer_cannot_see(ruleset: str) -> None:
    """At every event: the viewer's hand, every river and the hidden counts match the engine;
    another seat's concealed kong is face down (no tiles) until the hand ends."""
    seen = {"face_down": 0, "wins_with_reading": 0}

    def check(game, state, e):
        if not game.seats[0].hand and not game.seats[0].melds:  # before the deal
            return
        for s, sv in enumerate(state.seats):
            truth = game.seats[s]
            if e["type"] != "hand_end":
                assert sv.river == truth.discards, (s, e)
            if s == 0:
                assert sv.hand == sorted(truth.hand), e
            else:
                assert sv.hand is None and sv.hidden == len(truth.hand), (s, e)
            if e["type"] in ("kong", "call"):
                continue  # the engine turns a pung into a kong after the chance to rob it
            for (kind, tiles), m in zip(sv.melds, truth.melds, strict=True):
                assert kind == m.kind
                if kind == "concealed-kong" and s != 0 and not game.revealed:
                    assert set(tiles) == {None}
                    seen["face_down"] += 1
                else:
                    assert tiles == m.tiles
        if e["type"] == "win":
            w = state.wins[-1]
            assert w.patterns == e["patterns"] and w.groups
            seen["wins_with_reading"] += 1

    for seed in range(12):
        _play_watched(ruleset, seed, 0, check)
    assert seen["wins_with_reading"] > 0


def test_concealed_kongs_of_others_lie_face_down() -> None:
    """Over enough hands another seat declares a concealed kong: it shows as backs to seat 0."""
    found = []

    def check(game, state, e):
        if e["type"] == "kong" and e["kind"] == "concealed" and e["seat"] != 0:
            kind, tiles = state.seats[e["seat"]].melds[-1]
            assert kind == "concealed-kong" and tiles == (None,) * 4
            found.append(e["seat"])
        if e["type"] == "reveal":
            assert None not in state.seats[e["seat"]].melds[-1][1] or len(state.seats[e["seat"]].melds) > 1

    for seed in range(60):
        _play_watched("yongzhou-huandiao", seed, 0, check)
        if found:
            break
    assert found, "no concealed kong by another seat in 60 hands"


def test_unseen_counts_what_the_viewer_has_not_seen() -> None:
    def check(game, state, e):
        if e["type"] != "discard":
            return
        for t in range(34):
            seen = game.seats[0].hand.count(t) + (game.indicator == t)
            for s, seat in enumerate(game.seats):
                seen += seat.discards.count(t)
                seen += sum(m.tiles.count(t) for m in seat.melds if m.kind != "concealed-kong" or s == 0)
            assert state.unseen(t) == 4 - seen, tile_name(t)

    _play_watched("yongzhou-wangba", 3, 0, check)


def test_ready_waits_is_the_evaluators_answer() -> None:
    from mjframework.core.hand import WinContext
    from mjframework.core.tiles import parse_tiles

    _, ev = load_cached("changsha")
    hand = parse_tiles("123m 456m 789p 22s 35s")
    got = ready_waits(ev, hand, [], seat=0, dealer=0, players=4, wildcard=None)
    assert got == [T("4s")]
    assert got == sorted(set(ev.waits(hand, [], WinContext(win_by="self_draw"), None))
                         | set(ev.waits(hand, [], WinContext(win_by="discard", discarder=3), None)))
    assert ready_waits(ev, parse_tiles("123m 456m 789p 22s 39s"), [], seat=0, dealer=0, players=4,
                       wildcard=None) == []


# -- the line mode ------------------------------------------------------------------------------


class Typist(Console):
    """Answers like a player typing tile names: the drawn tile in Chinese (or compact notation),
    过 to every claim; records everything shown."""

    def __init__(self, compact: bool = False) -> None:
        self.lines: list[str] = []
        self.compact = compact
        self.asked = 0
        super().__init__(read_line=self._answer, echo=self.lines.append)

    def _answer(self, prompt: str) -> str | None:
        self.asked += 1
        self.lines.append(prompt)
        if self.asked > 300:
            return None
        recent = self.lines[-12:]
        if any("你要吗" in line or "抢杠" in line for line in recent):
            return "过" if any(") 过" in line for line in recent) else "1"
        hand = next((line for line in reversed(recent) if line.startswith("手牌")), "")
        if "摸到 " in hand:
            name = hand.split("摸到 ")[1].strip().rstrip("*")
            return tile_code(T(name)) if self.compact else name
        return "1"


@pytest.mark.parametrize("compact", [False, True])
def test_line_mode_takes_typed_tiles(compact: bool) -> None:
    console = Typist(compact)
    play_session("changsha", seed=3, hands=1, console=console)
    text = "\n".join(console.lines)
    assert "请输入" not in text  # every typed tile was understood
    assert "结算" in text or "流局" in text
    assert "你 摸 " in text  # the human's own draws are told


def test_line_mode_speaks_chinese_and_names_seats_relatively() -> None:
    lines: list[str] = []
    play_session("changsha", seed=5, hands=3, console=Console(read_line=lambda p: "1", echo=lines.append))
    text = "\n".join(lines)
    assert "self-draw" not in text and "on a discard" not in text
    assert "座" not in text  # birds say 下家 / 对家 / 上家, like the rest
    assert "放炮" in text or "自摸" in text
    assert "读法 [" in text  # a win's reading


def test_announcer_shows_a_wins_reading_with_the_wildcards() -> None:
    rs, ev = load_cached("yongzhou-huandiao")
    rec = ScoreRecorder(ev)
    lines: list[str] = []
    ann = Announcer(lines.append, None, 4)
    ann.recorder = rec
    game = Game(rs, make_bots(("greedy",) * 4, 7, 0, 0), seed=hand_seed(7, 0, 0), dealer=0,
                emit=Collector(), evaluator=rec)
    ann.game = game
    game.emit = game._emit_raw = ann  # type: ignore[method-assign]
    game.play()
    text = "\n".join(lines)
    assert "读法 " in text and "王→" in text  # the 王 and what it stood for


def test_human_player_accepts_a_typed_tile() -> None:
    from tests.test_play import FakeView, Script

    options = (Option("win", 31), Option("discard", 0), Option("discard", 27))
    console = Script(["五万", "东"])
    choice = HumanPlayer(console).decide(FakeView(), Decision("turn", 0, options, 31))  # type: ignore[arg-type]
    assert choice == options[2]
    assert "not one of the options" in "\n".join(console.lines)
