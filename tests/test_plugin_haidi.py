"""The 海底漫游 plugin (``haidi``): the last tile goes round the table (docs/rules/changsha.md).

Real hands are played with seeded greedy bots on a ruleset written under
``tmp_path`` that extends ``changsha`` and switches the plugins on; the seeds
were found by simulating and are replayed exactly (same seed, same bots).
The rare branches (several winners on the shown tile, ``winners: first``)
are driven through a stand-in for the engine's ``HandControl``.
"""

from __future__ import annotations

import random
import textwrap
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from mjframework_plugins import haidi

from mjframework.cli import main
from mjframework.core.tiles import parse_tiles
from mjframework.evaluate.scoring import Evaluator
from mjframework.hooks.registry import available_plugins
from mjframework.play.bots import GreedyBot, RandomBot
from mjframework.play.game import Game, HandResult
from mjframework.play.players import Decision, Option
from mjframework.plugin import Ask, EndDrawn, Win
from mjframework.rules.loader import load_ruleset

PLUGINS_ON = """\
    format: 1
    id: changsha-plugins
    name: 长沙麻将 with 海底漫游 and 开杠
    extends: changsha
    plugins:
      haidi: {}
      kaigang: {dice: 2}
"""


@pytest.fixture(scope="module")
def ruleset_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    p = tmp_path_factory.mktemp("rs") / "changsha-plugins.yaml"
    p.write_text(textwrap.dedent(PLUGINS_ON), encoding="utf-8")
    return p


@pytest.fixture(scope="module")
def table(ruleset_path: Path) -> tuple[Any, Evaluator]:
    rs = load_ruleset(ruleset_path)
    return rs, Evaluator(rs)


@pytest.fixture(scope="module")
def plain(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Evaluator]:
    p = tmp_path_factory.mktemp("rs") / "changsha-plain.yaml"
    p.write_text("format: 1\nid: changsha-plain\nextends: changsha\n"
                 "plugins: {haidi: null, kaigang: null}\n", encoding="utf-8")
    rs = load_ruleset(p)
    return rs, Evaluator(rs)


class Scripted:
    """A greedy bot told what to pick for some decision kinds; logs what it is asked."""

    def __init__(self, seed: int, seat: int, timeline: list, choose: dict[str, str] | None = None) -> None:
        self.bot = GreedyBot(random.Random(f"{seed}/{seat}"))
        self.choose = choose or {}
        self.timeline = timeline

    def decide(self, view: Any, decision: Decision) -> Option:
        self.timeline.append(("decision", decision))
        want = self.choose.get(decision.kind)
        for o in decision.options:
            if o.kind == want:
                return o
        return self.bot.decide(view, decision)


def play(table: tuple[Any, Evaluator], seed: int, choose: dict[str, str] | None = None
         ) -> tuple[HandResult, list[dict], list]:
    """One hand: dealer ``seed % 4``, greedy bots seeded by (seed, seat)."""
    rs, ev = table
    timeline: list = []
    events: list[dict] = []

    def emit(e: dict) -> None:
        e = {k: v for k, v in e.items() if k != "text"}  # what players read is checked elsewhere
        events.append(e)
        timeline.append(("event", e))

    players = [Scripted(seed, s, timeline, choose) for s in range(rs.players)]
    result = Game(rs, players, seed=seed, dealer=seed % 4, emit=emit, evaluator=ev).play()
    assert result.result != "abandon", result.error
    return result, events, timeline


def of(events: list[dict], type_: str) -> list[dict]:
    return [e for e in events if e["type"] == type_]


# Seeds (dealer = seed % 4) found by simulating the ruleset above: loop seeds through
# play() and keep the first hand that shows the event. Should the engine or changsha.yaml
# change how a hand plays, find them again the same way.
SEED_LAOYUE = 1  # seat 1 passes, seat 2 takes and wins: 海底捞月
SEED_PAO = 341  # seat 1 takes, can't win; seat 2 wins on the shown 9s: 海底炮
SEED_TAKE_DRAWN = 2  # seat 1 takes, nobody wins: drawn, seat 1 deals
SEED_ALL_PASS = 14  # all four pass: drawn, seat 2 (who could take it first) deals
SEED_KONG_HAIDI = 639  # seat 1's added kong draws the last tile as its replacement: seat 1 deals


# -- registration and validation ----------------------------------------------------


def test_registered_and_validated(ruleset_path: Path) -> None:
    assert available_plugins()["haidi"] is haidi.Plugin
    r = CliRunner().invoke(main, ["validate", str(ruleset_path)])
    assert r.exit_code == 0, r.output
    assert "haidi" in r.output


@pytest.mark.parametrize("options", ["{winners: some}", "{advise: never}", "{birds: 2}", "[1]"])
def test_bad_options_rejected(tmp_path: Path, options: str) -> None:
    p = tmp_path / "bad.yaml"
    p.write_text(f"format: 1\nid: bad\nname: bad\nextends: changsha\nplugins:\n  haidi: {options}\n",
                 encoding="utf-8")
    r = CliRunner().invoke(main, ["validate", str(p)])
    assert r.exit_code != 0
    assert "haidi" in r.output and "Traceback" not in r.output


# -- real hands ----------------------------------------------------------------------


def test_taker_wins_haidilaoyue(table: Any) -> None:
    result, events, timeline = play(table, SEED_LAOYUE)
    assert [(e["seat"], e["action"]) for e in of(events, "haidi")] == [(1, "pass"), (2, "take")]
    # The decisions were asked of seats 1 then 2, as last_tile decisions.
    asked = [d for kind, d in timeline if kind == "decision" and d.kind == "last_tile"]
    assert [d.seat for d in asked] == [1, 2]
    assert all({o.kind for o in d.options} == {"take_last", "pass"} for d in asked)
    i = events.index(of(events, "haidi")[-1])
    draw, win = events[i + 1], of(events, "win")[0]
    assert draw == {"type": "draw", "seat": 2, "tile": draw["tile"], "source": "wall",
                    "hidden": {"tile": 2}}
    assert (win["seat"], win["win_by"], win["tile"]) == (2, "self_draw", draw["tile"])
    assert win["patterns"] == ["海底捞月"]
    assert not of(events, "haidi_shown")
    assert result.winners == [2] and result.next_dealer == 2


def test_shown_tile_haidipao(table: Any) -> None:
    result, events, _ = play(table, SEED_PAO)
    assert [(e["seat"], e["action"]) for e in of(events, "haidi")] == [(1, "take")]
    shown = of(events, "haidi_shown")
    assert shown == [{"type": "haidi_shown", "seat": 1, "tile": "9s"}]
    (win,) = of(events, "win")
    assert (win["seat"], win["win_by"], win["from_seat"], win["tile"]) == (2, "discard", 1, "9s")
    assert win["patterns"] == ["海底炮"]
    assert result.payments[1] < 0 and result.payments[2] > 0  # the taker pays as discarder
    assert result.next_dealer == 2  # a single winner deals


def test_taker_who_does_not_win_deals_next(table: Any) -> None:
    result, events, _ = play(table, SEED_TAKE_DRAWN)
    assert SEED_TAKE_DRAWN % 4 == 2  # the ruleset's own rule would pass the deal to seat 3
    assert [(e["seat"], e["action"]) for e in of(events, "haidi")] == [(1, "take")]
    assert of(events, "haidi_shown")[0]["seat"] == 1
    assert result.result == "draw" and not of(events, "win")
    assert result.next_dealer == 1
    assert of(events, "hand_end")[0]["next_dealer"] == 1


def test_all_pass_first_who_could_take_deals(table: Any) -> None:
    result, events, _ = play(table, SEED_ALL_PASS)
    assert [(e["seat"], e["action"]) for e in of(events, "haidi")] == [
        (2, "pass"), (3, "pass"), (0, "pass"), (1, "pass")]
    assert result.result == "draw" and result.next_dealer == 2
    # Nobody drew the 海底.
    last = events.index(of(events, "haidi")[0])
    assert not [e for e in events[last:] if e["type"] in ("draw", "haidi_shown", "win")]


def test_scripted_all_pass_and_take(table: Any) -> None:
    # The same hand with every player passing: the seat that would take it first deals.
    result, events, _ = play(table, SEED_TAKE_DRAWN, choose={"last_tile": "pass"})
    assert [e["seat"] for e in of(events, "haidi")] == [1, 2, 3, 0]
    assert {e["action"] for e in of(events, "haidi")} == {"pass"}
    assert result.result == "draw" and result.next_dealer == 1
    # The 海底捞月 hand with everybody taking: seat 1, asked first, takes the 4s seat 2
    # would have self-drawn and can't win on it; shown, seat 2 wins on it with 海底炮.
    result, events, _ = play(table, SEED_LAOYUE, choose={"last_tile": "take_last"})
    assert [(e["seat"], e["action"]) for e in of(events, "haidi")] == [(1, "take")]
    assert of(events, "haidi_shown") == [{"type": "haidi_shown", "seat": 1, "tile": "4s"}]
    (win,) = of(events, "win")
    assert (win["seat"], win["from_seat"], win["tile"], win["patterns"]) == (2, 1, "4s", ["海底炮"])
    assert result.next_dealer == 2


def test_kong_replacement_took_the_haidi(table: Any) -> None:
    result, events, _ = play(table, SEED_KONG_HAIDI)
    assert SEED_KONG_HAIDI % 4 == 3  # the ruleset's own rule would give the deal to seat 0
    assert not of(events, "haidi")  # no 海底 went round: the kong took it
    draws = of(events, "draw")
    assert draws[-1]["source"] == "kong" and draws[-1]["seat"] == 1
    assert result.result == "draw" and result.next_dealer == 1


def test_without_the_plugins_changsha_still_plays(plain: Any, table: Any) -> None:
    rs, _ = plain
    assert "haidi" not in rs.plugins and "kaigang" not in rs.plugins
    kinds = set()
    for seed in (SEED_LAOYUE, SEED_PAO, SEED_TAKE_DRAWN, SEED_ALL_PASS, *range(20, 40)):
        result, events, timeline = play(plain, seed)
        assert not of(events, "haidi") and not of(events, "haidi_shown") and not of(events, "open_kong")
        assert not [d for kind, d in timeline if kind == "decision" and d.kind == "last_tile"]
        if result.result == "draw":
            # The engine draws the last tile itself; the deal passes on (after_draw: next).
            assert of(events, "draw")[-1]["source"] in ("wall", "kong")
            assert result.next_dealer == (seed % 4 + 1) % 4
        kinds.add(result.result)
    assert kinds == {"win", "draw"}


def test_haidi_is_reached_often_with_bots(table: Any) -> None:
    takes = passes = hands = 0
    for seed in range(100, 160):
        _, events, _ = play(table, seed)
        hands += bool(of(events, "haidi"))
        takes += sum(e["action"] == "take" for e in of(events, "haidi"))
        passes += sum(e["action"] == "pass" for e in of(events, "haidi"))
    assert hands >= 5 and takes >= 2 and passes >= 2


# -- the procedure on a stand-in table ----------------------------------------------------


class FakeScore:
    def __init__(self, win: bool) -> None:
        self.win = win


class FakeHand:
    """Just what the haidi plugin uses of ``HandControl``."""

    players = 4
    dealer = 0

    def __init__(self, tile: str, answers: dict[int, str], wins: set[tuple[int, str]],
                 hands: dict[int, str] | None = None) -> None:
        self.tile = parse_tiles(tile)[0]
        self.answers = answers  # seat → option kind for last_tile decisions
        self.wins = wins  # (seat, win_by) that would win on the tile
        self.hands = {s: tuple(parse_tiles(h)) for s, h in (hands or {}).items()}
        self.events: list[dict] = []
        self.asked: list[Decision] = []

    def ask(self, seat: int, options: list[Option], tile: int | None = None, kind: str = "plugin",
            **_: Any) -> Option:
        d = Decision(kind, seat, tuple(options), tile)
        self.asked.append(d)
        want = self.answers.get(seat, options[0].kind) if kind == "last_tile" else "win"
        return next(o for o in options if o.kind == want)

    def emit(self, type_: str, **fields: Any) -> None:
        fields.pop("text", None)
        self.events.append({"type": type_, **fields})

    def draw(self, seat: int) -> int:
        self.emit("draw", seat=seat, source="wall")
        return self.tile

    def hand_of(self, seat: int) -> tuple[int, ...]:
        return self.hands.get(seat, ())

    def score_win(self, seat: int, tile: int, win_by: str, discarder: int | None = None,
                  flags: Any = ()) -> FakeScore:
        assert "last_tile" in flags
        return FakeScore(tile == self.tile and (seat, win_by) in self.wins)

    def can_win(self, seat: int, tile: int, win_by: str, discarder: int | None = None,
                flags: Any = ()) -> bool:
        return self.score_win(seat, tile, win_by, discarder, flags).win

    def waits(self, seat: int, concealed: Any = None, melds: Any = None, win_by: str = "self_draw",
              flags: Any = ()) -> list[int]:
        return [t for t in range(34) if self.score_win(seat, t, win_by, None, ("last_tile",)).win]



def run(plugin: haidi.Plugin, hand: FakeHand, seat: int) -> tuple:
    """The hand's end the plugin returns (it always ends the hand), as a tuple."""
    ended = plugin.mj_last_tile(hand=hand, seat=seat)  # type: ignore[arg-type]
    while isinstance(ended, Ask):  # the plugin's decision points, answered as the engine does
        d = ended.decision()
        ended = plugin.mj_answer(hand=hand, ask=ended,  # type: ignore[arg-type]
                                 choice=hand.ask(d.seat, list(d.options), d.tile, d.kind))
    if isinstance(ended, EndDrawn):
        return ("draw", ended.next_dealer)
    assert isinstance(ended, Win), ended
    assert isinstance(ended.flags, tuple)
    return ("win", list(ended.seats), ended.win_by, ended.discarder, list(ended.flags))


def test_shown_tile_several_winners_all_win() -> None:
    hand = FakeHand("5p", {3: "take_last"}, {(0, "discard"), (2, "discard"), (1, "discard")})
    ended = run(haidi.Plugin({"advise": "take"}), hand, 3)
    assert ended == ("win", [0, 1, 2], "discard", 3, ["last_tile"])  # turn order after the taker
    assert [e["type"] for e in hand.events] == ["haidi", "draw", "haidi_shown"]
    assert [d.kind for d in hand.asked] == ["last_tile", "last_tile_win", "last_tile_win", "last_tile_win"]


def test_shown_tile_first_winner_only() -> None:
    hand = FakeHand("5p", {3: "take_last"}, {(0, "discard"), (2, "discard")})
    assert run(haidi.Plugin({"winners": "first", "advise": "take"}), hand, 3) == (
        "win", [0], "discard", 3, ["last_tile"])


def test_taker_win_beats_the_others() -> None:
    hand = FakeHand("5p", {1: "pass", 2: "take_last"}, {(2, "self_draw"), (3, "discard")})
    assert run(haidi.Plugin({}), hand, 1) == ("win", [2], "self_draw", None, ["last_tile"])
    assert [(e["seat"], e["action"]) for e in hand.events if e["type"] == "haidi"] == [
        (1, "pass"), (2, "take")]


def test_nobody_takes() -> None:
    hand = FakeHand("5p", dict.fromkeys(range(4), "pass"), {(1, "self_draw")})
    assert run(haidi.Plugin({}), hand, 1) == ("draw", 1)
    assert [e["seat"] for e in hand.events] == [1, 2, 3, 0]
    assert not [e for e in hand.events if e["type"] == "draw"]


def test_advice_take_first_only_when_ready() -> None:
    """Bots that don't know ``last_tile`` take the first option: taking is advised when ready."""

    class Ready(FakeHand):
        def score_win(self, seat: int, tile: int, win_by: str, discarder: int | None = None,
                      flags: Any = ()) -> FakeScore:
            return FakeScore(seat == 1 and tile == parse_tiles("5p")[0])  # seat 1 waits on 5p

    hand = Ready("1m", {}, set())
    plugin = haidi.Plugin({})
    assert [o.kind for o in plugin._options(hand, 1)] == ["take_last", "pass"]
    assert [o.kind for o in plugin._options(hand, 2)] == ["pass", "take_last"]
    assert [o.kind for o in haidi.Plugin({"advise": "take"})._options(hand, 2)] == ["take_last", "pass"]


@pytest.mark.parametrize("bot", [GreedyBot, RandomBot])
def test_bots_answer_the_plugin_decisions(bot: type) -> None:
    b = bot(random.Random(0))
    d = Decision("last_tile", 0, (Option("take_last"), Option("pass")))
    assert b.decide(None, d) in d.options  # type: ignore[arg-type]
    w = Decision("last_tile_win", 0, (Option("win", 5), Option("pass")), 5)
    assert b.decide(None, w).kind == "win"  # type: ignore[arg-type]
    if bot is GreedyBot:
        assert b.decide(None, d).kind == "take_last"  # type: ignore[arg-type]
