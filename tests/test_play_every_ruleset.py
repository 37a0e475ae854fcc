"""Every shipped ruleset, one scripted hand through the full-screen table and one through ``--plain``.

The rulesets are found by listing (:func:`mjframework.available_rulesets`), so a
new variant is played here as soon as it ships. For each, the hand is the first
seed (of a bounded few) whose hand shows what the ruleset has: a flower laid
aside where the tile set has flowers, an exchange and a declaration where the
ruleset asks for them, a second win where play goes on after a win. The seat's
choices are a greedy bot's, given as a player gives them: typed tiles, option
keys, arrow keys and the space bar in the full screen; option numbers and typed
tiles in the line mode. Bounded by counts and seeds, never by time.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import random
import sys
from typing import Any

import pytest

from mjframework import available_rulesets
from mjframework.core.tiles import tile_code, tile_name
from mjframework.play.bots import GreedyBot
from mjframework.play.players import Decision, Option, TableView
from mjframework.run.simulate import load_cached, make_bots, play_hands

RULESETS = sorted(available_rulesets())
SEEDS = range(1, 41)  # the first seed whose hand shows the ruleset's features; bounded by count


def wanted(rs: Any) -> set[str]:
    """What a hand of this ruleset should show at the table."""
    out = set()
    if rs.tileset.flowers:
        out.add("flower")
    if rs.flow.exchange is not None:
        out.add("exchange")
    if rs.flow.void_suit is not None:
        out.add("declare")
    if rs.win.after_win != "end":
        out.add("second win")
    return out


def shown(events: list[dict]) -> set[str]:
    types = [e["type"] for e in events]
    out = {t for t in ("flower", "exchange", "declare") if t in types}
    if types.count("win") >= 2:
        out.add("second win")
    return out


def human() -> GreedyBot:
    return GreedyBot(random.Random(1))  # the seat's choices, the same in every front end


@functools.cache
def feature_seed(ruleset: str) -> int:
    """The first seed whose one hand, seat 0 played by :func:`human`, shows :func:`wanted`."""
    rs, ev = load_cached(ruleset)
    need = wanted(rs)
    for seed in SEEDS:
        events: list[dict] = []
        me = human()

        def seats(h: int, me: GreedyBot = me, seed: int = seed) -> list[Any]:
            players = make_bots(("greedy",) * rs.players, seed, 0, h)
            players[0] = me
            return players

        for _ in play_hands(rs, seats, seed=seed, hands=1, emit=events.append, evaluator=ev):
            pass
        if need <= shown(events) and events[-1]["result"] != "abandon":
            return seed
    raise AssertionError(f"{ruleset}: no seed in {SEEDS} shows {sorted(need)}")


# -- the line mode ------------------------------------------------------------------------------


@pytest.mark.parametrize("ruleset", RULESETS)
def test_a_hand_through_the_line_mode(ruleset: str, monkeypatch) -> None:
    from mjframework.ui import human as line

    seed = feature_seed(ruleset)
    me = human()
    asked: list[tuple[TableView, Decision]] = []
    show = line.HumanPlayer.show

    def remember(self: Any, view: TableView, decision: Decision) -> None:
        asked.append((view, decision))
        show(self, view, decision)

    monkeypatch.setattr(line.HumanPlayer, "show", remember)
    out: list[str] = []
    typed = {"tiles": 0, "numbers": 0}

    def answer(prompt: str) -> str:
        view, decision = asked[-1]
        choice = me.decide(view, decision)
        out.append(prompt)
        if prompt.startswith("换哪几张"):  # a choice of several tiles: typed by name
            typed["tiles"] += 1
            return " ".join(tile_name(t) for t in choice.tiles)
        typed["numbers"] += 1
        return str(decision.options.index(choice) + 1)

    events: list[dict] = []
    console = line.Console(read_line=answer, echo=out.append)
    announcer_call = line.Announcer.__call__

    def record(self: Any, e: dict) -> None:
        events.append(e)
        announcer_call(self, e)

    monkeypatch.setattr(line.Announcer, "__call__", record)
    totals = line.play_session(ruleset, seed=seed, hands=1, console=console)
    text = "\n".join(out)
    rs, _ = load_cached(ruleset)
    need = wanted(rs)
    assert need <= shown(events), (need, shown(events))
    assert out[-1].startswith("1 手") and len(totals) == rs.players
    assert "结算" in text or "流局" in text
    if "flower" in need:
        assert "补花" in text and "   花 " in text  # laid aside, then shown by the seat
    if "exchange" in need:
        assert typed["tiles"] >= 1 and "换出" in text and "换入" in text
    if "declare" in need:
        assert "缺" in text
    if "second win" in need:
        assert text.count(" 胡 ") >= 2
    ready = [line for line in out if line.startswith("听  ")]
    assert all("(" in r for r in ready)  # waits come with their unseen counts


# -- the full-screen table ---------------------------------------------------------------------

textual = pytest.importorskip("textual") if "textual" not in sys.modules else sys.modules["textual"]

SIZE = (120, 40)
GUARD = 300  # seconds: only a guard against a hung game thread, never reached when things work


async def _next_stop(app: Any, pilot: Any) -> None:
    waits = [asyncio.ensure_future(app.decision_ready.wait()), asyncio.ensure_future(app.idle.wait())]
    done, pending = await asyncio.wait(waits, timeout=GUARD, return_when=asyncio.FIRST_COMPLETED)
    for f in pending:
        f.cancel()
    assert done, "the table never asked and never finished"
    await pilot.pause()


async def _give(app: Any, pilot: Any, choice: Option, stats: dict) -> None:
    """The choice as a player makes it: a typed tile, the cursor and space for several tiles,
    an option's key, or ←/→ to an option without a key and Enter."""
    p = app.pending
    if p.sets and tuple(sorted(choice.tiles)) in p.sets:
        for t in choice.tiles:  # walk to each tile and pick it with the space bar
            while p.tiles[app.pick] != t or app.pick in p.chosen:
                await pilot.press("right")
            await pilot.press("space")
        assert p.chosen_set() == choice
        await pilot.press("enter")
        stats["picked"] += 1
    elif choice.kind == "discard" and choice in p.discards.values():
        await pilot.press(*tile_code(choice.tile), "enter")
        stats["typed"] += 1
    else:
        keys = dict((o, k) for k, o in p.buttons)
        if keys.get(choice):
            await pilot.press(keys[choice])
        else:
            target = [o for _, o in p.buttons].index(choice)
            while app.pick != target:
                await pilot.press("right")
            await pilot.press("enter")
        stats["buttons"] += 1


@pytest.mark.parametrize("ruleset", RULESETS)
def test_a_hand_through_the_full_screen_table(ruleset: str) -> None:
    from mjframework.ui.tui import TableApp

    seed = feature_seed(ruleset)
    stats = {"typed": 0, "picked": 0, "buttons": 0}
    seen: dict[str, str] = {}

    async def run() -> Any:
        app = TableApp(ruleset, seed=seed, hands=1, speed=0)
        me = human()
        async with app.run_test(size=SIZE) as pilot:
            while True:
                await _next_stop(app, pilot)
                if app.finished:
                    break
                p = app.pending
                assert p is not None
                st = app.session.state
                if any(sv.flowers for sv in st.seats):
                    seen.setdefault("flower", _screen(app))
                if any(sv.declared.get("void_suit") for sv in st.seats):
                    seen.setdefault("declare", _screen(app))
                if p.sets:
                    seen.setdefault("exchange", _screen(app))
                hand = app.session.game.seats[0].hand
                assert len(p.tiles) == len(hand)  # flowers laid aside: the hand shown is the hand held
                await _give(app, pilot, me.decide(TableView(app.session.game, 0), p.decision), stats)
            final = _screen(app)
            await pilot.press("enter")
        assert app.return_value == app.session.totals and app.session.played == 1
        return app, final

    app, final = asyncio.run(run())
    rs = app.session.rs
    need = wanted(rs)
    assert need <= shown(app.session.events), (need, shown(app.session.events))
    assert "总计 (1 手)" in final
    if "flower" in need:
        assert "花 " in seen["flower"]
    if "declare" in need:
        assert "缺" in seen["declare"]
    if "exchange" in need:
        assert stats["picked"] >= 1 and "选 " in seen["exchange"]
    if "second win" in need:
        assert sum(sv.wins for sv in app.session.state.seats) >= 2
        assert final.count(" 胡 ") >= 2  # every win on the win screen
    wins = [e for e in app.session.events if e["type"] == "win"]
    events = app.session.events
    for before, e in itertools.pairwise(events):
        if before["type"] == "win" and e.get("text") and e["type"] not in ("call", "dice"):
            # a plugin's part of the win (birds flipped …) is on the win screen, tiles and all
            assert e["text"].split("{")[0].strip() in final, e
    assert stats["typed"] >= 1 or not wins


def _screen(app: Any) -> str:
    import io

    from rich.console import Console

    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), force_terminal=True, color_system=None,
                      record=True, legacy_windows=False)
    console.print(app.screen._compositor.render_update(full=True, screen_stack=app._background_screens))
    return console.export_text()


def test_without_the_tui_extra_mj_play_says_the_table_exists(monkeypatch) -> None:
    from click.testing import CliRunner

    from mjframework.cli import game as cli_game
    from mjframework.cli import main

    monkeypatch.setattr(cli_game, "_on_a_terminal", lambda: True)
    monkeypatch.setitem(sys.modules, "textual", None)  # as if the 'tui' extra were not installed
    r = CliRunner().invoke(main, ["play", "changsha", "--seed", "3"], input="q\n")
    assert r.exit_code == 0, r.output
    assert "mjframework[tui]" in r.output and "选择 [1-" in r.output


def test_mj_replay_lays_flowers_aside(tmp_path) -> None:
    """国标 hands deal and draw flowers: the replay's hands hold 13 (14 for a winner), never a
    flower, and each seat shows the flowers it laid aside."""
    from mjframework.core.tiles import is_flower, parse_tile
    from mjframework.run.replay import Replay, read_hands
    from mjframework.run.simulate import simulate

    log = tmp_path / "mcr.jsonl"
    simulate("mcr", 20, seed=1, log=str(log))
    flowers = 0
    for events in read_hands(log):
        replay = Replay(events)
        for s, seat in enumerate(replay._seats):
            assert not any(is_flower(parse_tile(c)) for c in seat.hand), seat.hand
            assert len(seat.hand) + 3 * len(seat.melds) in (13, 14), (s, seat.hand, seat.melds)
            laid = [e["tile"] for e in events if e["type"] == "flower" and e["seat"] == s]
            assert seat.flowers == laid
            flowers += len(laid)
        if any(e["type"] == "flower" for e in events):
            assert "花 " in replay.frames[-1]
    assert flowers > 0


# -- --lang en ------------------------------------------------------------------------------------

_CJK = __import__("re").compile(r"[\u4e00-\u9fff]+")


def _not_english(lines: list[str], rs: Any, events: list[dict], options: list[Option]) -> set[str]:
    """Chinese left in ``lines`` once the ruleset's own words (its name, pattern names) and its
    plugins' words (their events' texts and calls, their options' texts) are set aside."""
    from mjframework.ui.human import ruleset_words

    theirs = set(ruleset_words(rs))
    for e in events:
        for key in ("text", "call"):
            if isinstance(e.get(key), str):
                theirs.update(_CJK.findall(e[key]))
    theirs.update(w for o in options for w in _CJK.findall(o.text))
    left: set[str] = set()
    for line in lines:
        for w in sorted(theirs, key=len, reverse=True):
            line = line.replace(w, "")
        left.update(_CJK.findall(line))
    return left


@pytest.mark.parametrize("ruleset", RULESETS)
def test_lang_en_line_mode_speaks_english(ruleset: str, monkeypatch) -> None:
    from mjframework.ui import human as line

    seed = feature_seed(ruleset)
    me = human()
    asked: list[tuple[TableView, Decision]] = []
    show = line.HumanPlayer.show
    monkeypatch.setattr(line.HumanPlayer, "show",
                        lambda self, v, d: (asked.append((v, d)), show(self, v, d))[1])
    events: list[dict] = []
    call = line.Announcer.__call__
    monkeypatch.setattr(line.Announcer, "__call__", lambda self, e: (events.append(e), call(self, e))[1])
    out: list[str] = []

    def answer(prompt: str) -> str:
        out.append(prompt)
        view, decision = asked[-1]
        choice = me.decide(view, decision)
        if prompt.startswith("which tiles"):
            return " ".join(tile_code(t) for t in choice.tiles)
        return str(decision.options.index(choice) + 1)

    line.play_session(ruleset, seed=seed, hands=1, console=line.Console(read_line=answer, echo=out.append),
                      lang="en")
    rs, _ = load_cached(ruleset)
    options = [o for _, d in asked for o in d.options]
    prompts = [d.prompt for _, d in asked if d.prompt]  # a plugin's question, in its words
    assert _not_english(out, rs, events + [{"text": p} for p in prompts], options) == set()
    assert out[-1].startswith("1 hand ") and any(" discards " in x for x in out)


_GLUED = __import__("re").compile(r"[\u3400-\u9fff][A-Za-z]|[A-Za-z][\u3400-\u9fff]")


@pytest.mark.parametrize("ruleset", RULESETS)
def test_lang_en_never_half_translates_a_word(ruleset: str) -> None:
    """The narration of a few simulated hands (``mj play --watch --plain --lang en``: every event,
    the win screens with their patterns and payments, a bonus's and a plugin's texts) has no Chinese
    character written against a Latin letter ("扎bird"): a word is translated whole or kept whole."""
    from mjframework.ui import human as line

    out: list[str] = []
    line.play_session(ruleset, seed=feature_seed(ruleset), hands=3, watch=True, lang="en",
                      console=line.Console(read_line=lambda prompt: None, echo=out.append))
    glued = sorted({x for x in out if _GLUED.search(x)})
    assert glued == [], glued[:10]
    assert any("→" in x for x in out)  # payments were told (the win screens were rendered)


def test_words_translate_whole_runs_or_keep_them() -> None:
    from mjframework.ui.words import Words

    say = Words("en", {"平胡": "", "三色三步高": "Mixed Shifted Chows"})
    assert say("扎鸟  3s→南家") == "扎鸟  3s→South"  # 扎 unknown: the whole word as written
    assert say("东家 → 南家 40  平胡 ×4 鸟") == "East → South 40  平胡 ×4 bird"
    assert say("三色三步高 8") == "Mixed Shifted Chows 8"  # a pattern's English from its ruleset
    assert say("下一手庄家 东家") == "next dealer East"
    assert say("明杠暗杠") == "added kong concealed kong"  # two phrases of one run: two words


def test_lang_en_full_screen_speaks_english() -> None:
    """The full-screen table in English, at its first decision and at the win screen."""
    from mjframework.ui.tui import TableApp

    ruleset = "changsha"
    screens: list[str] = []
    decisions: list[Decision] = []

    async def run() -> Any:
        app = TableApp(ruleset, seed=feature_seed(ruleset), hands=1, speed=0, lang="en")
        me = human()
        async with app.run_test(size=SIZE) as pilot:
            while True:
                await _next_stop(app, pilot)
                if app.finished:
                    break
                screens.append(_screen(app))
                p = app.pending
                decisions.append(p.decision)
                await _give(app, pilot, me.decide(TableView(app.session.game, 0), p.decision),
                            {"typed": 0, "picked": 0, "buttons": 0})
            screens.append(_screen(app))
            await pilot.press("q")
        return app

    app = asyncio.run(run())
    rs = app.session.rs
    theirs = app.session.events + [{"text": d.prompt} for d in decisions]  # a plugin's questions
    assert _not_english(screens, rs, theirs, [o for d in decisions for o in d.options]) == set()
    assert "total (1 hand)" in screens[-1] and "river" in screens[0]


def test_a_failure_closes_the_table_and_mj_play_exits_1(monkeypatch) -> None:
    """Something raising in the table (here: computing 听) closes the screen; ``mj play`` then
    says what failed on one line and exits 1 — no traceback, never exit 0."""
    from click.testing import CliRunner

    from mjframework.cli import game as cli_game
    from mjframework.cli import main
    from mjframework.ui import tui

    def broken(self: Any, concealed: list) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(tui.Session, "waits_of", broken)

    async def run() -> Any:
        app = tui.TableApp("mcr", seed=9, hands=1, speed=0)
        async with app.run_test(size=SIZE) as pilot:
            for _ in range(200):
                await pilot.pause()
                if not app.is_running:
                    break
        return app

    app = asyncio.run(run())
    assert app.session.error == "RuntimeError: boom" and app.return_code == 1

    def headless(self: Any) -> None:  # the same table, run headless instead of on a terminal
        async def go() -> None:
            async with self.run_test(size=SIZE) as pilot:
                for _ in range(200):
                    await pilot.pause()
                    if not self.is_running:
                        break
        asyncio.run(go())

    monkeypatch.setattr(tui.TableApp, "run", headless)
    monkeypatch.setattr(cli_game, "_on_a_terminal", lambda: True)
    r = CliRunner().invoke(main, ["play", "mcr", "--seed", "9"])
    assert r.exit_code == 1, r.output
    assert "the table stopped: RuntimeError: boom" in r.output and "Traceback" not in r.output
