"""``mj simulate`` (bots play many hands: statistics and a JSONL log) and ``mj play`` (a human at seat 0)."""

from __future__ import annotations

import json
import random
import sys
from typing import Any

import click

from ..core.errors import MJError
from .common import (
    RULESET,
    OutputPath,
    bot_timeout_seconds,
    bots_option,
    hands_and_seed,
    hands_option,
    option_flags,
    parse_int,
    parse_sets,
    progress,
    seed_option,
)


def _full_screen_ok() -> bool:
    """The full-screen table needs a terminal on both ends and the optional Textual library."""
    return _on_a_terminal() and _textual_installed()


def _on_a_terminal() -> bool:
    return sys.stdin is not None and sys.stdin.isatty() and sys.stdout is not None and sys.stdout.isatty()


def _textual_installed() -> bool:
    try:
        import textual  # noqa: F401  (the optional 'tui' extra)
    except ImportError:
        return False
    return True


NO_TUI = ("(a full-screen table exists: pip install 'mjframework[tui]' and run mj play again; "
          "this is the line mode)")


@click.command("simulate")
@click.argument("ruleset", type=RULESET)
@hands_option
@seed_option
@bots_option
@click.option("--log", "log", type=OutputPath(), metavar="F.jsonl",
              help="Write every event as JSON lines (to a temporary name, renamed at the end; a new file or "
                   "a regular file, never a device, FIFO or symlink); `-`: to stdout, the statistics then "
                   "going to stderr.")
@click.option("--workers", "-j", "workers", default="1", show_default=True, metavar="K",
              help="Worker processes; results and the log do not depend on it.")
@click.option("--hands-per-game", "hands_per_game", default="8", show_default=True, metavar="H",
              help="Hands per game: the dealer rotates within a game; each game starts afresh.")
@click.option("--hand-timeout", "hand_timeout", default="60", show_default=True, metavar="SECONDS",
              help="Abandon a hand still running after this long (a hung plugin); 0: no limit.")
@click.option("--log-seat", "log_seat", metavar="N|all",
              help="Write the --log as seat N saw it (others' tiles hidden), in the mjai-style seat-log "
                   "shape (docs/seat-log.md); 'all': the whole truth in that shape.")
@click.option("--json", "as_json", is_flag=True, help="Print the statistics as one JSON object.")
@option_flags
def simulate_cmd(ruleset: str, hands: str | None, seed: str | None, bots: str, log: str | None, workers: str,
                 hands_per_game: str, hand_timeout: str, as_json: bool, sets: tuple[str, ...],
                 preset: str | None, log_seat: str | None = None) -> None:
    """Let bots play N hands of RULESET (an id or a path); print statistics.

    Exits 1 if any hand was abandoned (a plugin failed or timed out, a worker died),
    saying why on stderr.
    """
    from ..core.procs import Terminated, sigterm_raises

    if log_seat is not None and (not log or log == "-"):
        raise click.UsageError("--log-seat rewrites the --log file: give --log F.jsonl")
    from ..run.simulate import simulate  # (imported here: `mj` starts faster for other commands)

    if log_seat is not None:
        if not log:
            raise click.UsageError("--log-seat needs --log F.jsonl")
        _log_seat(log_seat)  # checked before playing
    n, s = hands_and_seed(hands, seed)
    k = parse_int(workers, "--workers", minimum=1)
    h = parse_int(hands_per_game, "--hands-per-game", minimum=1)
    t = _seconds(hand_timeout, "--hand-timeout")
    assert k is not None and h is not None
    try:
        with sigterm_raises(), progress(n) as update:
            result = simulate(ruleset, n, seed=s, bots=bots, hands_per_game=h, workers=k, log=log,
                              progress=update, hand_timeout=t, options=parse_sets(sets), preset=preset)
    except KeyboardInterrupt as e:
        what = "terminated" if isinstance(e, Terminated) else "interrupted"
        click.echo(f"\n{what}" + (f" (no log written to {log})" if log and log != "-" else ""), err=True)
        sys.exit(143 if isinstance(e, Terminated) else 130)
    to_stderr = log == "-"  # stdout carries the log
    if log and log_seat is not None:
        _rewrite_for_seat(log, _log_seat(log_seat), len(result.spec.bots))
    if as_json:
        out = result.to_dict()
        if log:
            out["log"] = log
        click.echo(json.dumps(out, ensure_ascii=False), err=to_stderr)
    else:
        click.echo(result.table(), err=to_stderr)
        if log and not to_stderr:
            click.echo(f"\nlog: {log}")
    failed = result.failure_summary()
    if failed:
        click.echo(f"error: {failed}", err=True)
        sys.exit(1)


def _seconds(value: str, what: str, most: float = 86400) -> float:
    try:
        x = float(value.strip())
    except ValueError:
        raise MJError(f"{what} must be a number of seconds, got {value!r}") from None
    if not 0 <= x <= most:
        raise MJError(f"{what} must be between 0 and {most:g} seconds, got {value!r}")
    return x


def _log_seat(text: str) -> int | None:
    if text == "all":
        return None
    try:
        n = int(text)
    except ValueError:
        raise click.BadParameter(f"a seat number or 'all', not {text!r}", param_hint="--log-seat") from None
    if n < 0:
        raise click.BadParameter(f"a seat number is 0 or more, not {n}", param_hint="--log-seat")
    return n


def _rewrite_for_seat(log: str, seat: int | None, players: int | None) -> None:
    """Replace the engine log just written with the seat's seat log (atomically)."""
    from pathlib import Path

    from ..core.fileio import atomic_writer
    from ..play.seatlog import convert_log

    path = Path(log)
    if seat is not None and players is not None and seat >= players:
        path.unlink(missing_ok=True)
        raise click.BadParameter(f"seat {seat} is not at this table ({players} players)",
                                 param_hint="--log-seat")
    with open(path, encoding="utf-8") as src, atomic_writer(path) as dst:
        convert_log(src, dst, seat)


@click.command("play")
@click.argument("ruleset", type=RULESET)
@click.option("--seed", "-s", "seed", metavar="S",
              help="Seed (integer). Default: a random one, printed so the game can be replayed.")
@click.option("--hands", "-n", "hands", default="1", show_default=True, metavar="N",
              help="How many hands to play.")
@click.option("--watch", is_flag=True, help="Four bots play; watch every hand as it happens.")
@click.option("--speak", is_flag=True,
              help="Say the calls (报牌) aloud with espeak-ng, if it is installed (else silently not).")
@click.option("--plain", is_flag=True,
              help="Line mode even in a terminal (the default when input or output is not a terminal).")
@click.option("--speed", "speed", metavar="SECONDS",
              help="The pause after each bot's move (full-screen table: default 0.3, 0.6 with --watch; "
                   "line mode: default 0).")
@click.option("--bot", "bots", multiple=True, metavar="[NAME=]COMMAND",
              help="Seat an external program (JSON lines on stdin/stdout, docs/bots.md) or a trained "
                   "policy (a .npz file, docs/agents.md) after yours (from seat 0 with --watch); "
                   "repeatable. The game then runs in the line mode.")
@click.option("--bot-timeout", "bot_timeout", default="10", show_default=True, metavar="SECONDS",
              help="How long a bot may think per decision before it is made to leave.")
@click.option("--records", "records", type=click.Path(dir_okay=False), metavar="FILE.sqlite3",
              help="Keep each hand in this records file (`mj records`). Default: $MJ_RECORDS, else "
                   "records.sqlite3 in the user's data folder.")
@click.option("--no-records", "no_records", is_flag=True, help="Keep no record of the hands.")
@click.option("--lang", "lang", type=click.Choice(["zh", "en"]), default="zh", show_default=True,
              help="The table's language (the ruleset's own pattern names and its plugins' words stay "
                   "as written).")
@option_flags
def play_cmd(ruleset: str, seed: str | None, hands: str, watch: bool, speak: bool, plain: bool,
             speed: str | None, bots: tuple[str, ...], bot_timeout: str, sets: tuple[str, ...],
             preset: str | None, records: str | None = None, no_records: bool = False,
             lang: str = "zh") -> None:
    """Play RULESET at seat 0 against three greedy bots.

    In a terminal this is a full-screen table (with the optional 'tui' extra installed:
    pip install 'mjframework[tui]'): arrow keys and Enter, or type a tile (5m, 五万, 中).
    Otherwise (pipes, --plain) a line mode: type an option's number or a tile, and Enter.
    'q' asks, then leaves the table (the ruleset's leave rule applies to the hand in progress); the end
    of input (Ctrl-D) leaves at once. --lang en: the table in English. See docs/play.md.
    With --watch, four bots play and the hands are shown as they happen.
    Every hand is kept in the records file when it ends (`mj records`; --no-records: not).
    """
    from ..ui.human import play_session

    n = parse_int(hands, "--hands", minimum=1)
    s = parse_int(seed, "--seed")
    pause = None if speed is None else _seconds(speed, "--speed", most=60)
    if s is None:
        s = random.SystemRandom().randrange(10**9)
    assert n is not None
    from ..run.extbot import parse_bot_specs

    timeout = bot_timeout_seconds(bot_timeout)
    try:
        specs = parse_bot_specs(bots)
        record = None if no_records else _play_recorder(ruleset, records, s, watch, specs, parse_sets(sets),
                                                         preset)
        if not plain and _on_a_terminal():
            if _textual_installed():
                from ..ui.tui import play_table

                play_table(ruleset, seed=s, hands=n, watch=watch, speak=speak, speed=pause,
                           options=parse_sets(sets), preset=preset, record=record, lang=lang,
                           bots=specs, bot_timeout=timeout)
                return
            click.echo(NO_TUI, err=True)
        play_session(ruleset, seed=s, hands=n, watch=watch, speak=speak, speed=pause or 0.0,
                     options=parse_sets(sets), preset=preset, bots=specs, bot_timeout=timeout,
                     record=record, lang=lang)
    except ValueError as e:
        raise click.UsageError(str(e)) from None
    except KeyboardInterrupt:
        click.echo("\ninterrupted", err=True)
        sys.exit(130)


def _play_recorder(ruleset: str, records: str | None, seed: int, watch: bool,
                   externals: list[tuple[str, str]], options: dict[str, Any],
                   preset: str | None) -> Any:
    """The records sink of an ``mj play`` run: each hand is kept as it ends (mjframework.run.records)."""
    import getpass

    from ..run.records import HandRecorder, RecordsError, RecordStore, Seat
    from ..run.simulate import load_cached

    rs, _ = load_cached(ruleset, options, preset)
    try:
        store = RecordStore(records)
        session = store.start_session(rs, kind="play", seed=seed, preset=preset)
    except RecordsError as e:  # the game matters more than its record: say so and play on
        click.echo(f"warning: {e}; the hands are not kept (--records FILE, or --no-records)", err=True)
        return None
    try:
        me = getpass.getuser()
    except (KeyError, OSError):  # no user name (a container without one)
        me = "you"
    first = 0 if watch else 1
    seats = [Seat("greedy") for _ in range(rs.players)]
    if not watch:
        seats[0] = Seat(me, "human")
    for i, (name, _command) in enumerate(externals):
        seats[first + i] = Seat(name or "bot")
    return HandRecorder(store, session, lambda: seats)
