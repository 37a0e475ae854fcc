"""How fast the terminal tables answer a player: the time from an action to the next decision shown.

Two front ends of ``mj play``, one person (seat 0) and bots elsewhere, on every
shipped ruleset (found by listing), fixed seeds:

* **full** — the full-screen table (``mjframework.ui.tui.TableApp``, Textual),
  driven headless by Textual's pilot (``App.run_test``) as the tests do. The
  seat's choice is a greedy bot's (``GreedyBot(Random(1))``), *given by
  keyboard*: the keys that only aim (a typed tile name, arrows, the space bar
  for 换三张) are pressed untimed; the clock starts when the key that acts
  (Enter, or an option's letter) is handed to the screen's driver, as a
  terminal's key would be, and stops when the next decision to the seat is
  *painted*: it is on screen (``decision_ready``), the screen has processed
  every message queued (the buttons mounted) and the compositor has rendered
  every pending change (no layout, repaint or dirty widget left). In between:
  the bots' turns (``speed`` 0: their thinking only, no pacing), the engine,
  the screen's updates, the 听 lines (waits after each discard option). The
  pilot's own ``press``/``pause`` are not on the clock: they wait for the
  process to look idle in 20 ms slices (``textual._wait.wait_for_idle``), which
  adds 40–60 ms of sleeping to whatever the table takes.
* **plain** — the line mode (``mj play --plain``, ``ui.human.play_session``)
  with a scripted console: the clock starts when the typed answer (the option's
  number, or the tiles for 换三张) is returned to the table and stops when the
  table next asks the seat (the board, options and prompt already printed, to
  a list instead of a terminal).

An action that ends the hand (a win, the last discard before a draw) has no
next decision and is not counted. Each line: actions measured, median / 95th
percentile / worst of wall-clock time (``time.perf_counter``) and of the
process's CPU time (``time.process_time``: every thread of this process;
other programs' load excluded). Target: 100 ms
(issue 25). Times the seat spends choosing are outside both clocks.

    python benchmarks/bench_table.py                    # every ruleset, both modes, 3 seeds × 1 hand
    python benchmarks/bench_table.py --quick            # 1 seed, at most 10 actions per line
    python benchmarks/bench_table.py changsha --mode full --seeds 5 --actions 60
    python benchmarks/bench_table.py changsha --mode full --profile   # cProfile of the full screen
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import os
import pstats
import random
import statistics
import sys
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mjframework.core.tiles import tile_code, tile_name
from mjframework.play.bots import GreedyBot
from mjframework.play.players import Decision, Option, TableView
from mjframework.rules.loader import available_rulesets

SIZE = (120, 40)
GUARD = 300  # seconds: only a guard against a hung table

Sample = tuple[float, float]  # (wall seconds, CPU seconds)


class Clock:
    """Starts at an action, stops at the next decision; keeps (wall, cpu) samples."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.samples: list[Sample] = []
        self._start: Sample | None = None

    def start(self) -> None:
        self._start = (time.perf_counter(), time.process_time())

    def stop(self) -> None:
        if self._start is not None:
            w, c = self._start
            self.samples.append((time.perf_counter() - w, time.process_time() - c))
        self._start = None

    def drop(self) -> None:
        self._start = None

    @property
    def full(self) -> bool:
        return len(self.samples) >= self.limit


# -- the full-screen table ---------------------------------------------------------------------


async def _next_stop(app: Any, pilot: Any) -> bool:
    """Wait until a decision is painted (True) or a hand / the session is over (False)."""
    waits = [asyncio.ensure_future(app.decision_ready.wait()), asyncio.ensure_future(app.idle.wait())]
    done, pending = await asyncio.wait(waits, timeout=GUARD, return_when=asyncio.FIRST_COMPLETED)
    for f in pending:
        f.cancel()
    if not done:
        raise RuntimeError("the table never asked and never finished")
    await _painted(app, pilot)
    return app.pending is not None


async def _aim(app: Any, pilot: Any, choice: Option) -> str:
    """Press the keys that only aim at ``choice``; return the key that acts."""
    p = app.pending
    if p.sets and tuple(sorted(choice.tiles)) in p.sets:
        for t in choice.tiles:
            while p.tiles[app.pick] != t or app.pick in p.chosen:
                await pilot.press("right")
            await pilot.press("space")
        return "enter"
    if choice.kind == "discard" and choice in p.discards.values():
        await pilot.press(*tile_code(choice.tile))
        return "enter"
    keys = {o: k for k, o in p.buttons}
    if keys.get(choice):
        return keys[choice]
    target = [o for _, o in p.buttons].index(choice)
    while app.pick != target:
        await pilot.press("right")
    return "enter"


def _send_key(app: Any, key: str) -> None:
    """Hand ``key`` to the screen's driver, as a terminal's key press arrives (no waiting)."""
    from textual import events

    char = key if len(key) == 1 else {"enter": "\r"}.get(key)
    app._driver.send_message(events.Key(key, char))


async def _painted(app: Any, pilot: Any) -> None:
    """Wait until the screen has processed every queued message and rendered every change.

    Reads the screen's private flags (Textual 8): what ``Screen._on_timer_update`` checks
    before it composes; polled each millisecond, so the clock is at most 1 ms late."""
    while True:
        await pilot._wait_for_screen()
        sc = app.screen
        if not (sc._layout_required or sc._repaint_required or sc._scroll_required or sc._dirty_widgets):
            return
        await asyncio.sleep(0.001)


def run_full(ruleset: str, seed: int, hands: int, clock: Clock) -> None:
    """One session of ``hands`` hands at the full-screen table (stops early when ``clock`` is full)."""
    from mjframework.ui.tui import TableApp

    async def go() -> None:
        app = TableApp(ruleset, seed=seed, hands=hands, speed=0)
        me = GreedyBot(random.Random(1))
        async with app.run_test(size=SIZE) as pilot:
            while True:
                asked = await _next_stop(app, pilot)
                if asked:
                    clock.stop()
                else:
                    clock.drop()  # the hand ended: no next decision for that action
                await pilot.pause()  # untimed: let the screen settle before aiming
                if app.finished or clock.full:
                    break
                if not asked:
                    await pilot.press("enter")  # the next hand (untimed)
                    continue
                choice = me.decide(TableView(app.session.game, 0), app.pending.decision)
                key = await _aim(app, pilot, choice)
                app.decision_ready.clear()  # set again when the next decision is on screen
                clock.start()
                _send_key(app, key)
        if app.session.error is not None:
            raise RuntimeError(f"{ruleset} seed {seed}: the table stopped: {app.session.error}")

    asyncio.run(go())


# -- the line mode -----------------------------------------------------------------------------


def run_plain(ruleset: str, seed: int, hands: int, clock: Clock) -> None:
    """One ``--plain`` session; the seat leaves (end of input) once ``clock`` is full."""
    from mjframework.ui import human as line

    me = GreedyBot(random.Random(1))
    asked: list[tuple[TableView, Decision]] = []
    show = line.HumanPlayer.show

    def remember(self: Any, view: TableView, decision: Decision) -> None:
        asked.append((view, decision))
        show(self, view, decision)

    def answer(prompt: str) -> str | None:
        clock.stop()
        if clock.full:
            return None  # end of input: the seat leaves, the session ends
        view, decision = asked[-1]
        choice = me.decide(view, decision)
        text = (" ".join(tile_name(t) for t in choice.tiles) if prompt.startswith("换哪几张")
                else str(decision.options.index(choice) + 1))
        clock.start()
        return text

    out: list[str] = []

    def echo(text: str) -> None:
        if text.startswith(("结算", "流局", "本手作废")):
            clock.drop()  # the hand ended: the next question is not an answer to this action
        out.append(text)

    with mock.patch.object(line.HumanPlayer, "show", remember):
        line.play_session(ruleset, seed=seed, hands=hands, console=line.Console(read_line=answer, echo=echo))


# -- the report --------------------------------------------------------------------------------

MODES: dict[str, Callable[[str, int, int, Clock], None]] = {"full": run_full, "plain": run_plain}


def _pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


def measure(ruleset: str, mode: str, seeds: list[int], hands: int, actions: int) -> list[Sample]:
    """Samples of one line: ``actions`` at most per seed, over ``seeds``."""
    out: list[Sample] = []
    for seed in seeds:
        clock = Clock(actions)
        MODES[mode](ruleset, seed, hands, clock)
        out.extend(clock.samples)
    return out


def line_text(ruleset: str, mode: str, samples: list[Sample]) -> str:
    if not samples:
        return f"{ruleset:<20} {mode:<5} {0:>7}"
    wall = [w * 1000 for w, _ in samples]
    cpu = [c * 1000 for _, c in samples]
    return (f"{ruleset:<20} {mode:<5} {len(samples):>7} "
            f"{statistics.median(wall):>8.1f} {_pct(wall, 0.95):>7.1f} {max(wall):>7.1f}   "
            f"{statistics.median(cpu):>8.1f} {_pct(cpu, 0.95):>7.1f} {max(cpu):>7.1f}")


HEADER = (f"{'ruleset':<20} {'mode':<5} {'actions':>7} {'wall med':>8} {'p95':>7} {'worst':>7}   "
          f"{'cpu med':>8} {'p95':>7} {'worst':>7}   (ms)")


def main(argv: list[str] | None = None, out: Callable[[str], None] = print) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("rulesets", nargs="*", help="default: every shipped ruleset")
    ap.add_argument("--mode", choices=[*MODES, "both"], default="both")
    ap.add_argument("--seeds", type=int, default=3, help="seeds 1..N, one session each (default 3)")
    ap.add_argument("--hands", type=int, default=1, help="hands per session (default 1)")
    ap.add_argument("--actions", type=int, default=200, help="at most this many actions per session")
    ap.add_argument("--quick", action="store_true", help="1 seed, at most 10 actions per line")
    ap.add_argument("--profile", action="store_true", help="cProfile the run; print the top functions")
    args = ap.parse_args(argv)
    if args.quick:
        args.seeds, args.hands, args.actions = 1, 1, 10
    rulesets = args.rulesets or sorted(available_rulesets())
    modes = list(MODES) if args.mode == "both" else [args.mode]
    load = os.getloadavg()
    out(f"load average at start: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} ({os.cpu_count()} cores); "
        f"seeds 1..{args.seeds}, {args.hands} hand(s), at most {args.actions} actions each; target 100 ms")
    out(HEADER)
    prof: AbstractContextManager[Any] = cProfile.Profile() if args.profile else nullcontext()
    with prof:
        for rid in rulesets:
            for mode in modes:
                samples = measure(rid, mode, list(range(1, args.seeds + 1)), args.hands, args.actions)
                out(line_text(rid, mode, samples))
    load = os.getloadavg()
    out(f"load average at end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    if args.profile:
        assert isinstance(prof, cProfile.Profile)
        parts = [("everything (one thread: the screen, the game and bots on its loop; the line mode)",
                  [prof])]
        for name, profs in parts:
            out(f"\n=== cProfile: {name} ===")
            stats = pstats.Stats(*profs)
            stats.sort_stats("cumulative").print_stats(35)
            stats.sort_stats("tottime").print_stats(20)
    return 0


if __name__ == "__main__":
    sys.exit(main())
