"""``mj score`` and ``mj conformance``."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import click

from ..core.errors import HandError
from ..core.hand import WinContext, make_hand, parse_flowers
from ..core.kinds import MELD_WORDS
from ..core.tiles import TileParseError, format_tiles, parse_tile, tile_name
from ..evaluate.scoring import Evaluator
from ..rules.loader import load_ruleset
from ..run.conformance import (
    conformance_files,
    context_value,
    describe_reading,
    run_file,
    summary_line,
)
from ..settle.settlement import SeatFacts
from .common import RULESET, InputPath, option_flags, parse_sets, shown


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


def _other_seats(seat_melds: tuple[str, ...], seat_states: tuple[str, ...], winner: int, players: int
                 ) -> dict[int, SeatFacts] | None:
    """``--seat-meld`` / ``--seat-state-of`` as settlement reads them (None: none given)."""
    if not seat_melds and not seat_states:
        return None
    melds: dict[int, list[str]] = {}
    states: dict[int, dict[str, object]] = {}

    def seat_of(item: str, option: str) -> tuple[int, str]:
        head, sep, rest = item.partition(":")
        if not sep or not head.strip().isdigit() or not rest.strip():
            example = "pung 5s from 1" if "meld" in option else "piao=1"
            raise HandError(f"{option} {item!r}: write SEAT:…, e.g. 2:{example}")
        seat = int(head)
        if not 0 <= seat < players or seat == winner:
            raise HandError(f"{option} {item!r}: seat {seat} is not another seat at a table of {players}")
        return seat, rest.strip()
    for item in seat_melds:
        seat, meld = seat_of(item, "--seat-meld")
        melds.setdefault(seat, []).append(meld)
    for item in seat_states:
        seat, rest = seat_of(item, "--seat-state-of")
        key, sep, value = rest.partition("=")
        if not sep or not key.strip():
            raise HandError(f"--seat-state-of {item!r}: write SEAT:KEY=VALUE")
        states.setdefault(seat, {})[key.strip()] = state_value(value.strip())
    out = {}
    for seat in sorted(set(melds) | set(states)):
        made = make_hand("", melds.get(seat, [])).melds
        for m in made:
            if m.from_seat == seat or (m.from_seat is not None and not 0 <= m.from_seat < players):
                raise HandError(f"--seat-meld {seat}:{m}: claimed from seat {m.from_seat}, not another seat")
        out[seat] = SeatFacts(made, states.get(seat, {}))
    return out


@click.command()
@click.argument("ruleset", type=RULESET)
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
                   "last_copy, after_flower, or a flag the ruleset declares (`flags:`).")
@click.option("--context", "-c", "context", multiple=True, metavar="KEY=VALUE",
              help="Plugin input, e.g. birds='3m 4s' (tile strings become tiles; repeat).")
@click.option("--seat-state", "seat_state", multiple=True, metavar="KEY=VALUE",
              help="The winner's per-seat state read by `when: {seat_state: …}`, e.g. ready=true, "
                   "void_suit=m (repeat).")
@click.option("--seat-meld", "seat_melds", multiple=True, metavar="SEAT:MELD",
              help="Another seat's declared meld, e.g. '2:pung 5s from 1' (who fed whom; read by per-payer "
                   "amounts and settlement plugins; repeat).")
@click.option("--seat-state-of", "seat_states", multiple=True, metavar="SEAT:KEY=VALUE",
              help="Another seat's state, e.g. 2:piao=1 (read by per-payer amounts; repeat).")
@click.option("--seat-wind",
              help="The winner's seat wind (东/1z …; default: 东 for the dealer, then in turn).")
@click.option("--prevalent-wind", help="The prevalent (round) wind (东/1z …; default 东).")
@click.option("--flowers", default="0", show_default=True,
              help="Bonus tiles (flowers) the winner set aside: how many, or which (1f 5f / 春梅: "
                   "read by `seat_flowers` and `flower_sets`).")
@click.option("--opening", is_flag=True, help="Judge HAND as dealt tiles (opening declarations).")
@click.option("--json", "as_json", is_flag=True)
@click.option("--lang", type=click.Choice(["zh", "en"]), default="zh", show_default=True,
              help="Language of the text: Chinese tile, seat and pattern names, or English (compact "
                   "tiles; pattern names as the ruleset gives them in `en:`).")
@option_flags
def score(ruleset: str, hand: str, win_tile: str | None, melds: tuple[str, ...], wildcard: str | None,
          indicator: str | None, seat: int, discard_from: int | None, robbed_kong: bool,
          flags: tuple[str, ...], context: tuple[str, ...], seat_state: tuple[str, ...],
          seat_melds: tuple[str, ...], seat_states: tuple[str, ...], seat_wind: str | None,
          prevalent_wind: str | None, flowers: str, lang: str, opening: bool, as_json: bool,
          sets: tuple[str, ...], preset: str | None) -> None:
    """Score HAND (the tiles held before the winning tile) under RULESET (an id or a path).

    The text names the patterns, then each payment: who pays whom, and how
    the amount comes about (points + dealer bonus, × multipliers such as birds,
    with the reason). Seats count from the dealer: 0 庄家, 1 下家, 2 对家, 3 上家.
    """
    ev = Evaluator(load_ruleset(ruleset, options=parse_sets(sets), preset=preset))
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
    ev.check_context_inputs(extra)
    state: dict[str, object] = {}
    for item in seat_state:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise HandError(f"--seat-state {item!r}: write KEY=VALUE")
        state[key.strip()] = state_value(value.strip())
    n_flowers, flower_tiles = parse_flowers(flowers)
    if n_flowers > 99:
        raise HandError(f"--flowers {n_flowers}: at most 99")
    ctx = WinContext(seat=seat, win_by=win_by, discarder=discard_from, flags=frozenset(flags),
                     extra=extra, seat_state=state, seat_wind=_tile_opt(seat_wind, "--seat-wind"),
                     prevalent_wind=_tile_opt(prevalent_wind, "--prevalent-wind"),
                     flowers=n_flowers, flower_tiles=flower_tiles)
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
        others = _other_seats(seat_melds, seat_states, seat, ev.ruleset.players)
        result = ev.evaluate(h, ctx, wild, seats=others)
    s = result.score
    if as_json:
        out = {"ruleset": ev.ruleset.id, "options": ev.ruleset.options, "win": s.win, "reason": s.reason,
               "wildcard": None if wild is None else format_tiles([wild]),
               "reading": describe_reading(result) if s.reading else None,
               "patterns": [{"name": p.name, "en": p.en or None, "points": p.points, "times": p.times,
                             "label": ev.ruleset.scoring.label(p.points, p.times)}
                            for p in s.patterns],
               "points": s.points, "uncapped": s.uncapped if s.uncapped is not None else s.points,
               "payments": result.payments, "call": result.call,
               "items": [p.to_dict() for p in result.settlement.payments] if result.settlement else []}
        click.echo(json.dumps(out, ensure_ascii=False))
        return
    _print_score(ev, result, h, tiles if h is None else None, wild, win_by, seat, discard_from, lang)


# Seats of `mj score` are counted from the dealer (seat 0), so they are named from the dealer's side.
SEATS = {"zh": ("庄家", "下家", "对家", "上家"), "en": ("dealer", "right", "opposite", "left")}
LABELS = {
    "zh": {"ruleset": "规则", "options": "选项", "dealt": "开局", "hand": "手牌", "wildcard": "王",
           "meld": "副露", "from": "{seat}的", "no_win": "不胡", "reading": "读法", "pattern": "番型",
           "total": "合计", "call": "报", "winner": "赢家", "payments": "付款", "net": "净得",
           "self_draw": "自摸", "discard": "点炮 ({seat}打出)", "robbed_kong": "抢杠 ({seat}的杠)",
           "opening": "开局报牌", "points": "分", "dealer_bonus": "庄家加", "nobody": "(罚出)",
           "capped": "(封顶; 未封顶 {uncapped})"},
    "en": {"ruleset": "ruleset", "options": "options", "dealt": "dealt", "hand": "hand",
           "wildcard": "wildcard", "meld": "meld", "from": "from {seat}", "no_win": "no win",
           "reading": "reading",
           "pattern": "pattern", "total": "total", "call": "call", "winner": "winner", "payments": "payments",
           "net": "net", "self_draw": "self-draw", "discard": "on a discard ({seat} discarded)",
           "robbed_kong": "robbing {seat}'s kong", "opening": "opening declaration", "points": "points",
           "dealer_bonus": "dealer", "nobody": "(penalty)"},
}
# The players' words for melds: the one table (core.kinds.MELD_WORDS).
MELD_NAMES: dict[str, dict[str, str]] = {"zh": dict(MELD_WORDS), "en": {}}


def seat_label(seat: int | None, lang: str) -> str:
    if seat is None:
        return LABELS[lang]["nobody"]
    names = SEATS[lang]
    return names[seat] if 0 <= seat < len(names) else f"#{seat}"


def _tiles(tiles: list[int], lang: str) -> str:
    return format_tiles(tiles, "chinese") if lang == "zh" else format_tiles(tiles)


def _tile(t: int, lang: str) -> str:
    return tile_name(t) if lang == "zh" else format_tiles([t])


_ADDED = re.compile(r" \+(\d+) (\S+)$")


def explain_payment(pay, points: int, dealer_bonus: int, lang: str, *, added_bonuses: bool = False) -> str:
    """``80 = (10 + 10 dealer) ×4`` for a win payment, from the score and the amount paid.

    ``added_bonuses``: the ruleset adds `scoring.bonuses` (a 底, a dealer's 台) to payments, so
    an amount is no multiple of the points: it is shown alone rather than as a wrong ``×N``."""
    if added_bonuses:
        return f"{pay.amount}"
    L = LABELS[lang]
    base = points + (dealer_bonus if dealer_bonus and 0 in (pay.payer, pay.payee) else 0)
    parts = f"{points}" + (f" + {base - points} {L['dealer_bonus']}" if base != points else "")
    added = _ADDED.search(pay.reason or "")  # bonus tiles that add (`+4 <name>`): not a multiplier
    if added and pay.amount - int(added[1]) == base:
        return f"{pay.amount} = {parts} + {added[1]} {added[2]}"
    if base and pay.amount == base and base != points:
        how = f" = {parts}"
    elif base and pay.amount != base and pay.amount % base == 0:
        times = pay.amount // base
        how = f" = ({parts}) ×{times}" if base != points else f" = {points} ×{times}"
    else:
        how = ""
    return f"{pay.amount}{how}"


def _print_score(ev, result, h, dealt, wild, win_by: str, seat: int, discarder, lang: str) -> None:
    L = LABELS[lang]
    rs = ev.ruleset
    click.echo(f"{L['ruleset']} {rs.name} ({rs.id})")
    declared = rs.option_decls
    chosen = {k: v for k, v in rs.options.items() if k in declared and v != declared[k].default}
    if chosen:
        click.echo(f"{L['options']} " + ", ".join(f"{k}={v}" for k, v in chosen.items()))
    if h is None:
        click.echo(f"{L['dealt']} {_tiles(sorted(dealt), lang)}")
    else:
        click.echo(f"{L['hand']} {_tiles(sorted(h.concealed), lang)}  + {_tile(h.win_tile, lang)}"
                   + (f"   {L['wildcard']} {_tile(wild, lang)}" if wild is not None else ""))
        for m in h.melds:
            kind = MELD_NAMES[lang].get(m.kind, m.kind)
            src = "" if m.from_seat is None else f" ({L['from'].format(seat=seat_label(m.from_seat, lang))})"
            click.echo(f"{L['meld']} {kind} {_tiles(list(m.tiles), lang)}{src}")
    s = result.score
    if not s.win:
        click.echo(f"{L['no_win']}: {s.reason}")
        return
    if s.reading is not None:
        click.echo(f"{L['reading']} " + _reading_text(result, lang))
    for p in s.patterns:
        name = (p.en or p.name) if lang == "en" else p.name
        click.echo(f"{L['pattern']} {name}  {rs.scoring.label(p.points, p.times)}")
    capped = s.uncapped is not None and s.uncapped != s.points
    click.echo(f"{L['total']} {s.points}" + (" " + L["capped"].format(uncapped=s.uncapped) if capped else ""))
    if result.call:
        click.echo(f"{L['call']}   {result.call}")
    how = L["opening"] if h is None else L[win_by].format(seat=seat_label(discarder, lang))
    click.echo(f"{L['winner']} {seat_label(seat, lang)}, {how}")
    items = result.settlement.payments if result.settlement else []
    if items:
        click.echo(f"{L['payments']}")
        added = bool(rs.scoring.bonuses)
        for pay in items:
            click.echo(f"  {seat_label(pay.payer, lang)} → {seat_label(pay.payee, lang)}  "
                       f"{explain_payment(pay, s.points, rs.scoring.dealer_bonus, lang, added_bonuses=added)}"
                       + (f"   {pay.reason}" if pay.reason else ""))
    if result.payments:
        click.echo(f"{L['net']}  " + "   ".join(f"{seat_label(i, lang)} {a:+d}"
                                                for i, a in enumerate(result.payments)))


def _reading_text(result, lang: str = "zh") -> str:
    r = result.score.reading
    parts = []
    marks = {"w": "(王)", "s": "(替)"} if lang == "zh" else {"w": "(wild)", "s": "(stand-in)"}
    for g in r.groups:
        names = []
        for t, src in zip(g.tiles, g.sources, strict=True):
            names.append(_tile(t, lang) + marks.get(src, ""))
        parts.append("[" + " ".join(names) + "]")
    return " ".join(parts)


@click.command()
@click.argument("paths", nargs=-1, type=InputPath(path_type=Path))
@click.option("--json", "as_json", is_flag=True,
              help="One JSON result object per case on stdout (the summary line goes to stderr).")
@click.option("--verbose", "-v", is_flag=True, help="List passing cases too.")
@click.option("--installed", is_flag=True,
              help="Also run the conformance files of every installed ruleset package (`mj rulesets`).")
def conformance(paths: tuple[Path, ...], as_json: bool, verbose: bool, installed: bool) -> None:
    """Run conformance case files (or directories of them; `-`: one from standard input).

    Exits 0 only if every case passes, 1 otherwise.
    """
    from ..rules.loader import ruleset_sources

    files = list(paths)
    if installed:
        files += [f for src in ruleset_sources() for f in src.conformance_files()]
    if not files:
        raise click.UsageError("give conformance files or folders (or --installed)")
    results = []
    for f in conformance_files(files):
        if not f.exists():  # said on stderr, counted as a failure; the other files still run
            click.echo(f"error: {f}: no such file or directory", err=True)
        for r in run_file(f):  # a missing or broken file is an error result; the run goes on
            results.append(r)
            if as_json:
                click.echo(shown(json.dumps(r.to_dict(), ensure_ascii=False)))
            elif verbose or not r.passed:
                click.echo(shown(r.describe()))
    click.echo(summary_line(results), err=as_json)  # (--json: stdout carries JSON lines only)
    sys.exit(0 if results and all(r.passed for r in results) else 1)
