"""The 开杠 plugin (``kaigang``): a ready player's kong draws from the dice-counted stack.

Real hands are played with seeded greedy bots (which take a plugin's turn
option whenever offered) on a ruleset written under ``tmp_path`` that
extends ``changsha`` and switches the plugins on; the seeds were found by
simulating and replay exactly. Readiness is checked on built hands, and the
rare branches (robbing an opened added kong, counting past the stacks left)
through a stand-in for the engine's ``HandControl``.
"""

from __future__ import annotations

import random
import textwrap
from collections import Counter
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from mjframework_plugins import kaigang

from mjframework.cli import main
from mjframework.core.hand import Meld, WinContext, parse_meld
from mjframework.core.tiles import parse_tiles, tile_code
from mjframework.evaluate.scoring import Evaluator
from mjframework.hooks.registry import available_plugins
from mjframework.play.bots import GreedyBot
from mjframework.play.game import Game, HandControl, HandResult
from mjframework.play.players import Decision, Option
from mjframework.plugin import Ask, Discard, Win
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


class Logged:
    """A seeded greedy bot that logs every decision on a shared timeline."""

    def __init__(self, seed: int, seat: int, timeline: list) -> None:
        self.bot = GreedyBot(random.Random(f"{seed}/{seat}"))
        self.timeline = timeline

    def decide(self, view: Any, decision: Decision) -> Option:
        self.timeline.append(("decision", decision))
        return self.bot.decide(view, decision)


def play(table: tuple[Any, Evaluator], seed: int) -> tuple[HandResult, list[dict], list]:
    """One hand: dealer ``seed % 4``, greedy bots seeded by (seed, seat)."""
    rs, ev = table
    timeline: list = []
    events: list[dict] = []

    def emit(e: dict) -> None:
        e = {k: v for k, v in e.items() if k != "text"}  # what players read is checked elsewhere
        events.append(e)
        timeline.append(("event", e))

    players = [Logged(seed, s, timeline) for s in range(rs.players)]
    result = Game(rs, players, seed=seed, dealer=seed % 4, emit=emit, evaluator=ev).play()
    assert result.result != "abandon", result.error
    return result, events, timeline


def of(events: list[dict], type_: str) -> list[dict]:
    return [e for e in events if e["type"] == type_]


def after_open_kong(events: list[dict], nth: int = 0) -> tuple[dict, list[dict]]:
    """The ``nth`` 开杠 and the events after it."""
    ok = of(events, "open_kong")[nth]
    i = events.index(ok)
    return ok, events[i + 1:]


# Seeds (dealer = seed % 4) found by simulating the ruleset above: loop seeds through
# play() and keep the first hand that shows the event. Should the engine or changsha.yaml
# change how a hand plays, find them again the same way.
SEED_FLOWER = 598  # seat 2 opens an added 8m kong, dice 1+1, draws 8s: 杠上开花
SEED_GUN = 55  # seat 2 opens an added 2s kong, dice 1+1, draws 5s, discards it: seat 3 杠上炮
SEED_CONCEALED = 192  # seat 2 opens a concealed 3s kong, discards the 2p; wins later (locked)
SEED_LONG_LOCK = 261  # seat 2 opens a concealed 5m kong and plays locked to the end of the wall
SEED_SHORT_WALL = 63  # two 开杠 near the end: the dice count past the stacks left
BATCH = range(282, 600)  # 318 hands with every 海底 / 杠 big win at least once


# -- registration and validation --------------------------------------------------------


def test_registered_and_validated(ruleset_path: Path) -> None:
    assert available_plugins()["kaigang"] is kaigang.Plugin
    r = CliRunner().invoke(main, ["validate", str(ruleset_path)])
    assert r.exit_code == 0, r.output
    assert "kaigang" in r.output


@pytest.mark.parametrize("options", ["{dice: 0}", "{dice: two}", "{ready_only: maybe}", "{birds: 1}"])
def test_bad_options_rejected(tmp_path: Path, options: str) -> None:
    p = tmp_path / "bad.yaml"
    p.write_text(f"format: 1\nid: bad\nname: bad\nextends: changsha\nplugins:\n  kaigang: {options}\n",
                 encoding="utf-8")
    r = CliRunner().invoke(main, ["validate", str(p)])
    assert r.exit_code != 0
    assert "kaigang" in r.output and "Traceback" not in r.output


# -- real hands ---------------------------------------------------------------------------


def test_gangshang_kaihua(table: Any) -> None:
    result, events, timeline = play(table, SEED_FLOWER)
    ok, rest = after_open_kong(events)
    assert ok == {"type": "open_kong", "seat": 2, "tile": "8m", "kind": "added"}
    kong, dice, draw, win = (e for e in rest if e["type"] in ("kong", "dice", "draw", "win"))
    assert kong == {"type": "kong", "seat": 2, "kind": "added", "tile": "8m"}
    assert dice == {"type": "dice", "purpose": "open_kong", "values": [1, 1]}
    assert draw == {"type": "draw", "seat": 2, "tile": "8s", "source": "kong", "hidden": {"tile": 2}}
    assert (win["seat"], win["win_by"], win["tile"]) == (2, "self_draw", "8s")
    assert win["patterns"] == ["杠上开花"]
    assert result.winners == [2] and result.next_dealer == 2
    # The option was offered next to the engine's own kong (补) and the discards.
    (offer,) = [d for kind, d in timeline if kind == "decision"
                and any(o.kind == "open_kong" for o in d.options)]
    t8m = parse_tiles("8m")[0]
    assert Option("open_kong", t8m, (t8m,) * 4) in offer.options
    assert Option("kong", t8m, (t8m,) * 4, "added-kong") in offer.options


def test_discarded_at_once_gangshang_pao(table: Any) -> None:
    result, events, _ = play(table, SEED_GUN)
    ok, rest = after_open_kong(events)
    assert (ok["seat"], ok["tile"], ok["kind"]) == (2, "2s", "added")
    assert [e["type"] for e in rest[:4]] == ["kong", "dice", "draw", "discard"]
    draw, discard = rest[2], rest[3]
    assert draw == {"type": "draw", "seat": 2, "tile": "5s", "source": "kong", "hidden": {"tile": 2}}
    assert discard == {"type": "discard", "seat": 2, "tile": "5s"}  # the drawn tile, at once
    (win,) = of(events, "win")
    assert (win["seat"], win["win_by"], win["from_seat"], win["tile"]) == (3, "discard", 2, "5s")
    assert win["patterns"] == ["杠上炮"]
    assert result.payments[2] < 0 < result.payments[3]


def _locked_decisions(timeline: list) -> tuple[int, list[Decision]]:
    seat, out = None, []
    for kind, x in timeline:
        if kind == "event" and x["type"] == "open_kong":
            seat = x["seat"]
        elif kind == "decision" and seat is not None and x.seat == seat:
            out.append(x)
    assert seat is not None
    return seat, out


@pytest.mark.parametrize("seed", [SEED_CONCEALED, SEED_LONG_LOCK])
def test_locked_after_open_kong(table: Any, seed: int) -> None:
    result, events, timeline = play(table, seed)
    ok, rest = after_open_kong(events)
    assert ok["kind"] == "concealed"
    assert [e["type"] for e in rest[:4]] == ["kong", "dice", "draw", "discard"]
    assert rest[3]["tile"] == rest[2]["tile"]
    seat, decisions = _locked_decisions(timeline)
    turns = [d for d in decisions if d.kind == "turn"]
    claims = [d for d in decisions if d.kind in ("claim", "rob")]
    assert turns, "the locked player had more turns"
    for d in turns:  # only win, or discard what was drawn
        assert {o.kind for o in d.options} <= {"win", "discard"}
        assert [o.tile for o in d.options if o.kind == "discard"] == [d.tile]
    for d in claims:  # never 吃 / 碰 / 杠 any more
        assert {o.kind for o in d.options} <= {"win", "pass"}
    # Other decisions: only the 海底 going round.
    assert {d.kind for d in decisions} <= {"turn", "claim", "rob", "last_tile", "last_tile_win"}
    # Every later discard of that seat is the tile it just drew.
    mine = [e for e in rest[4:] if e.get("seat") == seat and e["type"] in ("draw", "discard")]
    for a, b in pairwise(mine):
        if b["type"] == "discard":
            assert a["type"] == "draw" and a["tile"] == b["tile"]
    if seed == SEED_CONCEALED:
        assert result.winners == [seat]
        (win,) = of(events, "win")
        assert "杠上开花" not in win["patterns"]  # a later win is no 杠上开花
    else:
        assert result.result == "draw" and len(turns) >= 5


def test_count_stops_at_the_stacks_left(table: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    tried: list[tuple[int, str | None]] = []
    real = HandControl.draw_from_end

    def draw_from_end(self: HandControl, seat: int, stacks_back: int) -> int | None:
        t = real(self, seat, stacks_back)
        tried.append((stacks_back, None if t is None else tile_code(t)))
        return t

    monkeypatch.setattr(HandControl, "draw_from_end", draw_from_end)
    _, events, _ = play(table, SEED_SHORT_WALL)
    # 3+5: the 8th and 7th stacks back are past the live end; the 6th is taken. The second
    # 开杠 of the hand (6+1) finds only three stacks left.
    # 3+5: the 8th stack back is past the live end; the 7th shares a stack with the live end,
    # whose bottom tile is still there. The second 开杠 of the hand (6+1) finds three stacks.
    assert tried == [(8, None), (7, "4m"), (7, None), (6, None), (5, None), (4, None), (3, "1s")]
    ok, rest = after_open_kong(events)
    assert rest[1] == {"type": "dice", "purpose": "open_kong", "values": [3, 5]}
    assert rest[2] == {"type": "draw", "seat": ok["seat"], "tile": "4m", "source": "kong",
                       "hidden": {"tile": ok["seat"]}}
    assert rest[3] == {"type": "discard", "seat": ok["seat"], "tile": "4m"}


def test_batch_shows_every_big(table: Any) -> None:
    """A few hundred seeded hands: 开杠 is common; each 海底 / 杠 big win turns up."""
    patterns: Counter[str] = Counter()
    opened = 0
    for seed in BATCH:
        _, events, _ = play(table, seed)
        opened += len(of(events, "open_kong"))
        for w in of(events, "win"):
            patterns.update(w["patterns"])
    assert opened >= 10
    for big in ("海底捞月", "海底炮", "杠上开花", "杠上炮"):
        assert patterns[big] >= 1, big


# -- readiness on built hands -------------------------------------------------------------


class ReadyHand:
    """What ``waits_after_kong`` reads: a seat's tiles and melds, and the evaluator."""

    def __init__(self, ev: Evaluator, held: str, melds: tuple[str, ...] = ()) -> None:
        self._g = type("G", (), {"ev": ev})()
        self.held = tuple(parse_tiles(held))
        self.melds = tuple(parse_meld(m) for m in melds)
        self.dealer = 0
        self.wildcard = None

    def hand_of(self, seat: int) -> tuple[int, ...]:
        return self.held

    def melds_of(self, seat: int) -> tuple[Meld, ...]:
        return self.melds

    def waits(self, seat: int, concealed: Any = None, melds: Any = None, win_by: str = "self_draw",
              flags: Any = ()) -> list[int]:
        ctx = WinContext(seat=seat, win_by=win_by, flags=frozenset(flags), dealer=self.dealer)
        return self._g.ev.waits(list(concealed), list(melds), ctx, self.wildcard)


@pytest.mark.parametrize(("held", "melds", "kong", "waits"), [
    # 1111m set aside: 234p 567s 78m + a 2-5-8 pair (22s) waits on 6m / 9m.
    ("1111m 78m 234p 567s 22s", (), "1m", "69m"),
    # The same with a 33s pair: 平胡 needs a 2-5-8 pair and no big fits — not ready.
    ("1111m 78m 234p 567s 33s", (), "1m", ""),
    # A pung of 5p and the fourth in hand (added kong): 碰碰胡 accepts any pair (乱将).
    ("5p 999s 777s 111m 3m", ("pung 5p",), "5p", "3m"),
    ("5p 999s 777s 11m 33m", ("pung 5p",), "5p", "1m 3m"),
    # 34m with an 11m pair: only 平胡, which needs a 2-5-8 pair — not ready.
    ("5p 999s 777s 11m 34m", ("pung 5p",), "5p", ""),
])
def test_waits_after_kong(table: Any, held: str, melds: tuple[str, ...], kong: str, waits: str) -> None:
    _, ev = table
    hand = ReadyHand(ev, held, melds)
    got = kaigang.waits_after_kong(hand, 0, parse_tiles(kong)[0])  # type: ignore[arg-type]
    assert [tile_code(t) for t in got] == [tile_code(t) for t in sorted(parse_tiles(waits))]


def test_offered_only_when_ready(table: Any) -> None:
    _, ev = table
    t1m = parse_tiles("1m")[0]

    class Turn(ReadyHand):
        def is_locked(self, seat: int) -> bool:
            return False

        def live_remaining(self) -> int:
            return 20

    kong = Option("kong", t1m, (t1m,) * 4, "concealed-kong")
    decision = Decision("turn", 0, (kong, Option("discard", t1m)), t1m)
    ready = Turn(ev, "1111m 78m 234p 567s 22s")
    plugin = kaigang.Plugin({"dice": 2})
    assert plugin.mj_extra_options(hand=ready, seat=0, decision=decision) == [
        Option("open_kong", t1m, (t1m,) * 4)]
    not_ready = Turn(ev, "1111m 78m 234p 567s 33s")
    assert plugin.mj_extra_options(hand=not_ready, seat=0, decision=decision) is None
    assert kaigang.Plugin({"ready_only": False}).mj_extra_options(
        hand=not_ready, seat=0, decision=decision) == [Option("open_kong", t1m, (t1m,) * 4)]
    # Not at a claim, not when locked, not without tiles.
    claim = Decision("claim", 0, (kong, Option("pass")), t1m, 1)
    assert plugin.mj_extra_options(hand=ready, seat=0, decision=claim) is None
    ready.is_locked = lambda seat: True  # type: ignore[method-assign]
    assert plugin.mj_extra_options(hand=ready, seat=0, decision=decision) is None


# -- the procedure on a stand-in table ----------------------------------------------------


class FakeScore:
    def __init__(self, win: bool) -> None:
        self.win = win


class FakeHand:
    """Just what the kaigang plugin's handler uses of ``HandControl``."""

    players = 4
    dealer = 0

    def __init__(self, held: str, *, stacks: dict[int, str], live: str = "",
                 wins: frozenset[tuple[int, str]] = frozenset(), dice: tuple[int, ...] = (3, 4)) -> None:
        self.held = list(parse_tiles(held))
        self.stacks = {k: parse_tiles(v)[0] for k, v in stacks.items()}  # stacks back → top tile
        self.live = list(parse_tiles(live))
        self.wins = wins
        self.dice = dice
        self.calls: list[tuple] = []
        self.locked = False

    def hand_of(self, seat: int) -> tuple[int, ...]:
        return tuple(sorted(self.held))

    def emit(self, type_: str, **fields: Any) -> None:
        self.calls.append(("emit", type_))

    def ask(self, seat: int, options: list[Option], tile: int | None = None, kind: str = "plugin",
            **_: Any) -> Option:
        self.calls.append(("ask", seat, kind))
        return options[0]

    def make_kong(self, seat: int, tile: int) -> str:
        self.calls.append(("make_kong", seat, tile_code(tile)))
        return "added-kong"

    def roll(self, n: int, purpose: str, text: str = "") -> tuple[int, ...]:
        assert (n, purpose) == (len(self.dice), "open_kong")
        return self.dice

    def draw_from_end(self, seat: int, back: int) -> int | None:
        self.calls.append(("draw_from_end", back))
        t = self.stacks.pop(back, None)
        if t is not None:
            self.held.append(t)
        return t

    def draw(self, seat: int) -> int | None:
        self.calls.append(("draw",))
        t = self.live.pop(0) if self.live else None
        if t is not None:
            self.held.append(t)
        return t

    def lock(self, seat: int) -> None:
        self.locked = True

    def live_remaining(self) -> int:
        return len(self.live) + len(self.stacks)

    def score_win(self, seat: int, tile: int, win_by: str, discarder: int | None = None,
                  flags: Any = ()) -> FakeScore:
        return FakeScore((seat, win_by) in self.wins)

    def can_win(self, seat: int, tile: int, win_by: str, discarder: int | None = None,
                flags: Any = ()) -> bool:
        return self.score_win(seat, tile, win_by, discarder, flags).win

    def may_rob(self, seat: int, tile: int) -> tuple[int, ...]:
        """As the engine does: every other seat that can rob, in turn."""
        return tuple(s for s in ((seat + i) % 4 for i in range(1, 4))
                     if self.can_win(s, tile, "robbed_kong", seat))

    def robbery(self, seat: int, tile: int, robbers: Any) -> Win | None:
        """As the engine does with ``discard_winners: all``: all who rob win."""
        return Win(tuple(robbers), tile, "robbed_kong", seat) if robbers else None


def handle(hand: FakeHand, tile: str = "5p") -> Any:
    """The plugin's outcome, its decision points answered as the engine does (through ``ask``)."""
    t = parse_tiles(tile)[0]
    plugin = kaigang.Plugin({})
    out = plugin.mj_handle_option(hand=hand, seat=0, option=Option("open_kong", t, (t,) * 4))  # type: ignore[arg-type]
    while isinstance(out, Ask | tuple):
        asks = out if isinstance(out, tuple) else (out,)  # a decision set: every seat asked first
        choices = [hand.ask(d.seat, list(d.options), d.tile, d.kind) for d in (a.decision() for a in asks)]
        out = None
        for ask, choice in zip(asks, choices, strict=True):
            said = plugin.mj_answer(hand=hand, ask=ask, choice=choice)  # type: ignore[arg-type]
            out = said if said is not None else out
    return out


def test_discard_when_no_win() -> None:
    hand = FakeHand("5p 123m", stacks={7: "9s", 1: "1s"}, dice=(3, 4))
    t9s = parse_tiles("9s")[0]
    assert handle(hand) == Discard(t9s, ("after_kong_discard",))
    assert hand.locked
    assert ("draw_from_end", 7) in hand.calls and ("draw",) not in hand.calls


def test_win_on_the_drawn_tile() -> None:
    hand = FakeHand("5555p", stacks={7: "9s", 1: "1s"}, wins=frozenset({(0, "self_draw")}))
    assert handle(hand) == Win((0,), parse_tiles("9s")[0], "self_draw", None, ("open_kong", "after_kong"))


def test_counting_past_the_stacks_left_and_the_last_tile() -> None:
    # Sum 7, only two stacks left at the end: the 2nd back is taken. It is the last tile,
    # taken by a draw from the kong end: the hand has no 海底, so no last_tile flag.
    hand = FakeHand("5p 123m", stacks={2: "9s"}, dice=(3, 4))
    assert handle(hand) == Discard(parse_tiles("9s")[0], ("after_kong_discard",))
    assert [c[1] for c in hand.calls if c[0] == "draw_from_end"] == [7, 6, 5, 4, 3, 2]
    # No stack at the end has a tile: the next live tile.
    hand = FakeHand("5p 123m", stacks={}, live="4m 6m", dice=(1, 1))
    assert handle(hand) == Discard(parse_tiles("4m")[0], ("after_kong_discard",))
    assert ("draw",) in hand.calls


def test_an_opened_added_kong_can_be_robbed() -> None:
    hand = FakeHand("5p 123m", stacks={7: "9s"}, wins=frozenset({(1, "robbed_kong"), (3, "robbed_kong")}))
    assert handle(hand) == Win((1, 3), parse_tiles("5p")[0], "robbed_kong", 0)
    assert not [c for c in hand.calls if c[0] in ("make_kong", "draw_from_end")]
    assert [c for c in hand.calls if c[0] == "ask"] == [("ask", 1, "rob"), ("ask", 3, "rob")]
    # A concealed kong (four in hand) is never robbed.
    hand = FakeHand("5555p", stacks={7: "9s"}, wins=frozenset({(1, "robbed_kong")}))
    assert isinstance(handle(hand), Discard)


def test_other_options_are_not_mine() -> None:
    hand = FakeHand("5p", stacks={})
    assert kaigang.Plugin({}).mj_handle_option(hand=hand, seat=0, option=Option("take_last")) is None
