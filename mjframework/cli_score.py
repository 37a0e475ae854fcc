"""``mj score`` and ``mj conformance``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from .cli import main
from .conformance import (
    conformance_files,
    context_value,
    describe_reading,
    run_file,
    summary_line,
)
from .errors import HandError
from .hand import WinContext, make_hand
from .ruleset import load_ruleset
from .scoring import Evaluator
from .tiles import TileParseError, format_tiles, parse_tile, tile_name


def state_value(text: str) -> object:
    """A ``--seat-state`` value as YAML would read it: true/false, a number, else the text."""
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    try:
        return int(text)
    except ValueError:
        return text


def _tile_opt(value: str | None, what: str) -> int | None:
    if value is None:
        return None
    try:
        return parse_tile(value)
    except TileParseError as e:
        raise HandError(f"{what} {value!r}: {e.reason}") from None


@main.command()
@click.argument("ruleset")
@click.argument("hand")
@click.option("--win-tile", "-t", help="The winning tile (8p, 八筒); not with --opening.")
@click.option("--melds", "-m", multiple=True,
              help="An exposed meld: 'pung 5s', 'kong 3m from 2', … (repeat).")
@click.option("--wildcard", "-w", help="The wildcard tile.")
@click.option("--indicator", "-i", help="The flipped indicator (the wildcard is its successor).")
@click.option("--seat", "-s", type=click.IntRange(0, 3), default=0, show_default=True,
              help="Winner's seat: 0 dealer, 1 right, 2 opposite, 3 left.")
@click.option("--discard-from", "-d", type=click.IntRange(0, 3),
              help="Won on this seat's discard (default: self-draw).")
@click.option("--robbed-kong", is_flag=True, help="Won by robbing the --discard-from seat's kong.")
@click.option("--flag", "-f", "flags", multiple=True,
              help="after_kong, open_kong, last_tile, first_turn, no_claims_yet, after_kong_discard, "
                   "or a flag the ruleset declares (`flags:`).")
@click.option("--context", "-c", "context", multiple=True, metavar="KEY=VALUE",
              help="Plugin input, e.g. birds='3m 4s' (tile strings become tiles; repeat).")
@click.option("--seat-state", "seat_state", multiple=True, metavar="KEY=VALUE",
              help="The winner's per-seat state read by `when: {seat_state: …}`, e.g. ready=true, "
                   "void_suit=m (repeat).")
@click.option("--seat-wind",
              help="The winner's seat wind (东/1z …; default: 东 for the dealer, then in turn).")
@click.option("--prevalent-wind", help="The prevalent (round) wind (东/1z …; default 东).")
@click.option("--flowers", type=click.IntRange(0, 99), default=0, show_default=True,
              help="Bonus tiles (flowers) the winner set aside.")
@click.option("--lang", type=click.Choice(["zh", "en"]), default="zh", show_default=True,
              help="Pattern names: Chinese, or the English names the ruleset gives (`en:`).")
@click.option("--opening", is_flag=True, help="Judge HAND as dealt tiles (opening declarations).")
@click.option("--json", "as_json", is_flag=True)
def score(ruleset: str, hand: str, win_tile: str | None, melds: tuple[str, ...], wildcard: str | None,
          indicator: str | None, seat: int, discard_from: int | None, robbed_kong: bool,
          flags: tuple[str, ...], context: tuple[str, ...], seat_state: tuple[str, ...],
          seat_wind: str | None, prevalent_wind: str | None, flowers: int, lang: str, opening: bool,
          as_json: bool) -> None:
    """Score HAND (the tiles held before the winning tile) under RULESET (an id or a path)."""
    ev = Evaluator(load_ruleset(ruleset))
    if wildcard and indicator:
        raise HandError("give --wildcard or --indicator, not both")
    wild = ev.wildcard_from(_tile_opt(wildcard, "--wildcard"), _tile_opt(indicator, "--indicator"))
    win_by = "robbed_kong" if robbed_kong else "discard" if discard_from is not None else "self_draw"
    if robbed_kong and discard_from is None:
        raise HandError("--robbed-kong needs --discard-from (whose kong was robbed)")
    extra = {}
    for item in context:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise HandError(f"--context {item!r}: write KEY=VALUE")
        extra[key.strip()] = context_value(value.strip())
    state: dict[str, object] = {}
    for item in seat_state:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise HandError(f"--seat-state {item!r}: write KEY=VALUE")
        state[key.strip()] = state_value(value.strip())
    ctx = WinContext(seat=seat, win_by=win_by, discarder=discard_from, flags=frozenset(flags),
                     extra=extra, seat_state=state, seat_wind=_tile_opt(seat_wind, "--seat-wind"),
                     prevalent_wind=_tile_opt(prevalent_wind, "--prevalent-wind"), flowers=flowers)
    if opening:
        if win_tile or melds:
            raise HandError("--opening judges dealt tiles: no --win-tile or --melds")
        tiles = make_hand(hand).concealed
        result = ev.evaluate_opening(tiles, ctx)
        h = None
    else:
        if not win_tile:
            raise HandError("give the winning tile with --win-tile (or --opening for dealt tiles)")
        h = make_hand(hand, list(melds), win_tile)
        result = ev.evaluate(h, ctx, wild)
    s = result.score
    if as_json:
        out = {"ruleset": ev.ruleset.id, "win": s.win, "reason": s.reason,
               "wildcard": None if wild is None else format_tiles([wild]),
               "reading": describe_reading(result) if s.reading else None,
               "patterns": [{"name": p.name, "en": p.en or None, "points": p.points, "times": p.times}
                            for p in s.patterns],
               "points": s.points, "uncapped": s.uncapped if s.uncapped is not None else s.points,
               "payments": result.payments, "call": result.call,
               "items": [p.to_dict() for p in result.settlement.payments] if result.settlement else []}
        click.echo(json.dumps(out, ensure_ascii=False))
        return
    click.echo(f"规则 {ev.ruleset.name} ({ev.ruleset.id})")
    if h is None:
        click.echo(f"开局 {format_tiles(sorted(tiles), 'chinese')}")
    else:
        click.echo(f"手牌 {format_tiles(sorted(h.concealed), 'chinese')}  + {tile_name(h.win_tile)}"
                   + (f"   王 {tile_name(wild)}" if wild is not None else ""))
        for m in h.melds:
            click.echo(f"副露 {m.kind} {format_tiles(m.tiles, 'chinese')}"
                       + (f" (from seat {m.from_seat})" if m.from_seat is not None else ""))
    if not s.win:
        click.echo(f"不胡: {s.reason}")
        sys.exit(0)
    if s.reading is not None:
        click.echo("读法 " + _reading_text(result))
    for p in s.patterns:
        times = f" ×{p.times}" if p.times > 1 else ""
        name = (p.en or p.name) if lang == "en" else p.name
        click.echo(f"番型 {name}  {p.points}{times}")
    capped = s.uncapped is not None and s.uncapped != s.points
    click.echo(f"合计 {s.points}" + (f" (封顶: {s.uncapped} capped at {s.points})" if capped else ""))
    if result.call:
        click.echo(f"报   {result.call}")
    seats = ["庄家", "下家", "对家", "上家"]
    for i, amount in enumerate(result.payments or []):
        click.echo(f"  座{i} {seats[i] if i < 4 else ''}  {amount:+d}")


def _reading_text(result) -> str:
    r = result.score.reading
    parts = []
    for g in r.groups:
        names = []
        for t, src in zip(g.tiles, g.sources, strict=True):
            mark = {"w": "(王)", "s": "(替)"}.get(src, "")
            names.append(tile_name(t) + mark)
        parts.append("[" + " ".join(names) + "]")
    return " ".join(parts)


@main.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="One JSON result object per case.")
@click.option("--verbose", "-v", is_flag=True, help="List passing cases too.")
def conformance(paths: tuple[Path, ...], as_json: bool, verbose: bool) -> None:
    """Run conformance case files (or directories of them); exit 0 only if every case passes."""
    results = []
    for f in conformance_files(paths):
        if not f.exists():
            raise HandError(f"{f}: no such file or directory")
        for r in run_file(f):
            results.append(r)
            if as_json:
                click.echo(json.dumps(r.to_dict(), ensure_ascii=False))
            elif verbose or not r.passed:
                click.echo(r.describe())
    click.echo(summary_line(results))
    sys.exit(0 if results and all(r.passed for r in results) else 1)
