"""A human at the terminal, line by line: a :class:`~mjframework.play.players.Player` reading typed answers.

:class:`HumanPlayer` shows the table (own hand sorted, in Chinese tile names,
the wildcard marked ``三筒*``; the wildcard and its indicator; everyone's
discards and melds, another seat's concealed kong face down) and the legal
options numbered, then reads an answer: an option's number, or a tile in any
notation (``5m``, ``五万``, ``中``: its discard), or a word (``胡``, ``碰``,
``吃 345m``, ``过``) — see :func:`mjframework.ui.table.match_input`.
Bad input is answered with a message and asked again. A choice among many
sets of one's own tiles (an exchange) is typed as the tiles. It shows 听 (the
waits, or each discard that leaves the hand ready), flowers and each seat's
counters. ``q`` (after a yes) or the end of input is leaving the table: the
ruleset's ``leave`` rule applies to the hand in progress (a penalty, said and
settled; the hand abandoned or played on by a bot) and no further hand is
started (:func:`play_session` reports it and returns normally).

:class:`Announcer` is an event sink that tells the human what happens:
dice, the wildcard, the human's own draws, discards, claims, kongs, what
players say (``call``), opening declarations, birds, the last tile going
round, wins (with their reading: what each 王 stood for) and every
settlement. It tells each event as the human's seat sees it
(:func:`mjframework.play.visibility.view_for`): other players' draws are not shown
(kong replacements are, without the tile), another's concealed kong is face
down until it is revealed at the hand's end. Seats are said as the human
says them (下家 / 对家 / 上家), also inside a plugin's text (``座2``).

The full-screen table (:mod:`mjframework.ui.tui`) is the default in a terminal;
this line mode serves pipes, scripts and ``mj play --plain``.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

import click

from ..core.errors import MJError
from ..core.kinds import KONG_MELDS, MELD_WORDS, MeldKind
from ..core.tiles import Tile, TileParseError, parse_tile, parse_tiles, tile_name
from ..play.events import Event
from ..play.players import SUIT_NAMES, Decision, Option, PlayerLeft, TableView
from ..play.visibility import view_for
from .table import (
    ScoreRecorder,
    TableState,
    is_win_item,
    match_input,
    payment_reason,
    payment_terms,
    prompt_words,
    reading_parts,
    ready_waits,
    seat_words_in,
    tile_sets,
)
from .words import Words

SEAT_NAMES = ("你", "下家", "对家", "上家")  # relative to the human: right, opposite, left
KONG_NAMES: dict[str, str] = {m: MELD_WORDS[m] for m in KONG_MELDS}
# A kong event's ``kind`` spells its kong kind differently (``concealed``, ``added``): read both.
KONG_NAMES.update({m.event_kind: KONG_NAMES[m] for m in KONG_MELDS if m != MeldKind.KONG})
KIND_NAMES = {"discard": "打", "win": "胡", "pung": "碰", "chow": "吃", "pass": "过", "kong": "杠"}
WIN_BY = {"self_draw": "自摸", "discard": "点炮", "robbed_kong": "抢杠"}


DECISION_PROMPTS = {
    "rob": "可以抢杠:",
}


# Events after which a watched game pauses (``--speed``).
PACED = frozenset({"discard", "claim", "kong", "win", "opening_win"})


class InputEnded(PlayerLeft):
    """The human typed ``q`` or the input ran out: they leave the table, the game stops."""


WATCH_NAMES = ("东家", "南家", "西家", "北家")  # a spectator's names for seats 0–3


def seat_name(seat: int, me: int | None = 0, players: int = 4) -> str:
    """Seats as the human at ``me`` says them (你, 下家 …); a spectator (``me=None``) by wind."""
    if me is None:
        return f"{WATCH_NAMES[seat]}" if players == 4 else f"座{seat}"
    return SEAT_NAMES[(seat - me) % players] if players == 4 else f"座{seat}"


def tile_label(t: Tile, wildcard: Tile | None) -> str:
    return tile_name(t) + ("*" if wildcard is not None and t == wildcard else "")


def tiles_label(tiles: object, wildcard: Tile | None) -> str:
    return " ".join(tile_label(t, wildcard) for t in tiles)  # type: ignore[attr-defined]


def option_label(o: Option, wildcard: Tile | None) -> str:
    if o.text:  # a plugin's option says how it reads
        return f"{o.text} {tile_label(o.tile, wildcard)}" if o.tile is not None else o.text
    if o.kind == "kong":
        return f"{KONG_NAMES.get(o.meld or '', '杠')} {tile_label(o.tiles[0], wildcard)}"
    if o.kind == "chow":
        return f"吃 {tiles_label(o.tiles, wildcard)}"
    if o.kind == "pung":
        return f"碰 {tile_label(o.tiles[0], wildcard)}"
    if o.kind not in KIND_NAMES:
        return o.label()  # an option some plugin offers: its own label
    name = KIND_NAMES[o.kind]
    if o.value == "ready" and o.tile is not None:
        return f"报听 {name} {tile_label(o.tile, wildcard)}"
    return f"{name} {tile_label(o.tile, wildcard)}" if o.tile is not None else name


def _code_tile(code: str) -> Tile:
    return parse_tile(code)


FACE_DOWN = "■"  # a tile lying face down (another's concealed kong)


def _meld_text(kind: str, tiles: object, wildcard: Tile | None) -> str:
    names = {"chow": "吃", "pung": "碰", **KONG_NAMES}
    shown = tiles_label(tiles, wildcard) if tiles else " ".join([FACE_DOWN] * 4)
    return f"{names.get(kind, kind)}[{shown}]"


class Console:
    """Line input and output; the default reads stdin and writes with ``click.echo``."""

    def __init__(self, read_line: Callable[[str], str | None] | None = None,
                 echo: Callable[[str], None] | None = None) -> None:
        self.echo = echo or click.echo
        self._read = read_line or self._stdin_line

    def ask(self, prompt: str) -> str | None:
        """One line without its newline, or None at the end of input."""
        return self._read(prompt)

    def _stdin_line(self, prompt: str) -> str | None:
        stdin = sys.stdin
        if stdin is not None and stdin.isatty():
            try:
                return input(prompt)
            except EOFError:
                click.echo()
                return None
        click.echo(prompt, nl=False)
        line = stdin.readline() if stdin is not None else ""
        if not line:
            click.echo()
            return None
        line = line.rstrip("\r\n")
        click.echo(line)  # piped input: show the answer, so the transcript reads like a session
        return line


class TranslatedConsole(Console):
    """A console speaking ``words``' language: every line shown and every prompt translated,
    typed answers read back (English honor names as tiles)."""

    def __init__(self, inner: Console, words: Words) -> None:
        self.inner = inner
        self.words = words
        self.echo = lambda text: inner.echo(words(text))

    def ask(self, prompt: str) -> str | None:
        line = self.inner.ask(self.words(prompt))
        return None if line is None else self.words.typed(line)


def ruleset_words(rs: Any) -> dict[str, str]:
    """The ruleset's own words, shown as written in every language — its name, its patterns',
    its bonus tiles' — each with its designer's English where the ruleset gives one (a
    pattern's ``en``, the bonus tiles' ``en``)."""
    words = {rs.name: ""}
    for p in rs.patterns:
        words[p.name] = words.get(p.name) or getattr(p, "en", "") or ""
    bonus = getattr(rs, "bonus_tiles", None)
    if bonus is not None:
        for word in (bonus.name, *bonus.says.values()):
            words[word] = words.get(word) or bonus.en.get(word, "")
    return words


class HumanPlayer:
    """Seat ``seat`` played from a console."""

    def __init__(self, console: Console | None = None, seat: int = 0, *, table: TableState | None = None,
                 evaluator: Any = None, leave: Any = None) -> None:
        self.console = console or Console()
        self.seat = seat
        self.stopped = False
        self.table = table  # the hand as this seat saw it (flowers, declarations, wins): the Announcer's
        self.evaluator = evaluator  # for 听 (the engine's own waits); None: not shown
        self.leave = leave  # the ruleset's leave rule: what quitting costs, said before it is done

    def _quit(self, line: str | None) -> None:
        """``q`` (asked to confirm where a hand is in progress) or the end of input: leave."""
        if line is not None:
            rule = self.leave
            if rule is not None:
                fine = (f"罚 {rule.penalty} 分 (you pay {rule.penalty})" if rule.penalty
                        else "本手作废 (the hand is void)" if rule.hand == "abandon"
                        else "机器人代打 (a bot plays on)")
                answer = self.console.ask(f"离开牌桌? {fine} [y/N] (leave the table?) ")
                if answer is not None and answer.strip().lower() not in ("y", "yes", "q", "是"):
                    self.console.echo("继续 (staying)")
                    return
        self.stopped = True
        raise InputEnded("input ended" if line is None else "quit")

    def decide(self, view: TableView, decision: Decision) -> Option:
        if self.stopped:
            raise InputEnded("input ended")
        echo = self.console.echo
        self.show(view, decision)
        options = decision.options
        sets = tile_sets(options, view.hand)
        if len(sets) > 12:
            return self._pick_tiles(decision, sets)
        w = view.wildcard
        labels = [option_label(o, w) for o in options]
        width = max(len(labels[i]) * 2 for i in range(len(labels))) + 5
        per_line = max(1, 72 // width)
        for i in range(0, len(labels), per_line):
            echo("  ".join(f"{j + 1:>2}) {labels[j]}" for j in range(i, min(i + per_line, len(labels)))))
        while True:
            line = self.console.ask(f"选择 [1-{len(options)}] 或牌名: ")
            if line is None or line.strip().lower() in ("q", "quit", "exit"):
                self._quit(line)
                continue
            text = line.strip()
            try:
                return match_input(text, options)
            except ValueError as e:
                why = f"{e}; " if text and not text.lstrip("-").isdigit() else ""
                echo(f"请输入 1–{len(options)} 的数字或牌名 ({why}enter a number from 1 to {len(options)}, "
                     "or a tile such as 5m / 五万 / 中; q quits)")

    def _pick_tiles(self, decision: Decision, by_tiles: dict[tuple[Tile, ...], Option]) -> Option:
        """Too many choices to list (an exchange, a plugin's choice of tiles): the player types the tiles."""
        echo = self.console.echo
        k = len(next(iter(by_tiles)))
        echo(f"输入 {k} 张 (e.g. 1m 1m 7m)")
        while True:
            line = self.console.ask("换哪几张: ")
            if line is None or line.strip().lower() in ("q", "quit", "exit"):
                self._quit(line)
                continue
            try:
                tiles = tuple(sorted(parse_tiles(line)))
            except TileParseError as e:
                echo(f"看不懂 ({e.reason})")
                continue
            if tiles in by_tiles:
                return by_tiles[tiles]
            echo(f"不能换这几张 (pass {k} tiles you hold, as the ruleset's exchange rule says)")

    def show(self, view: TableView, decision: Decision) -> None:
        echo = self.console.echo
        w = view.wildcard
        n = view.players
        echo("─" * 60)
        top = []
        if w is not None:
            ind = view.indicator
            top.append(f"王 {tile_label(w, w)}" + (f" (翻 {tile_name(ind)})" if ind is not None else ""))
        top.append(f"庄家 {seat_name(view.dealer, self.seat, n)}")
        top.append(f"余牌 {view.live_remaining}")
        echo("   ".join(top))
        for k in range(1, n):
            s = (self.seat + k) % n
            melds = " ".join(_meld_text(m.kind, m.tiles, w) for m in view.melds_of(s))
            discards = tiles_label(view.discards_of(s), w)
            line = f"{seat_name(s, self.seat, n):<4}弃 {discards or '-'}"
            echo(line + (f"   副露 {melds}" if melds else "") + self._extras(s))
        mine = view.discards_of(self.seat)
        if mine or self._extras(self.seat):
            echo(f"{'你':<5}弃 {tiles_label(mine, w) or '-'}{self._extras(self.seat)}")
        hand = list(view.hand)
        drawn = decision.tile if decision.kind == "turn" else None
        if drawn is not None and drawn in hand:
            hand.remove(drawn)
        melds = " ".join(_meld_text(m.kind, m.tiles, w) for m in view.melds)
        if melds:
            echo(f"副露  {melds}")
        extra = f"   摸到 {tile_label(drawn, w)}" if drawn is not None else ""
        echo(f"手牌  {tiles_label(hand, w)}{extra}")
        ting = self._ting(view, decision)
        if ting:
            echo(ting)
        if decision.kind in ("claim", "rob") and decision.tile is not None and decision.from_seat is not None:
            what = "打" if decision.kind == "claim" else "加杠"
            echo(f"{seat_name(decision.from_seat, self.seat, n)} {what} {tile_label(decision.tile, w)}"
                 " — 你要吗?")
        elif decision.prompt or decision.kind in DECISION_PROMPTS:
            tile = f" {tile_label(decision.tile, w)}" if decision.tile is not None else ""
            echo((prompt_words(decision) or DECISION_PROMPTS[decision.kind]) + tile)


    def _extras(self, seat: int) -> str:
        """A seat's flowers and counters this hand (wins, out, declarations), as the table saw them."""
        if self.table is None:
            return ""
        sv = self.table.seats[seat]
        out = []
        if sv.flowers:
            out.append("花 " + tiles_label(sv.flowers, None))
        if sv.wins:
            out.append(f"胡×{sv.wins}" if sv.wins > 1 else "胡")
        if sv.out:
            out.append("已离场")
        if sv.declared.get("void_suit"):
            out.append(f"缺{SUIT_NAMES.get(sv.declared['void_suit'], sv.declared['void_suit'])}")
        if sv.declared.get("ready"):
            out.append("报听")
        return ("   " + "  ".join(out)) if out else ""

    def _ting(self, view: TableView, decision: Decision) -> str:
        """听: the waits of a ready hand, or on one's turn, each discard that leaves one ready —
        the engine's own waits, each with how many this seat has not seen."""
        if self.evaluator is None:
            return ""
        w = view.wildcard
        melds = list(view.melds)
        held = list(view.hand)
        size = self.evaluator.ruleset.hand.size  # tiles held between turns (13)

        def waits(concealed: list[Tile]) -> str:
            if len(concealed) + 3 * len(melds) != size or any(t >= 34 for t in concealed):
                return ""
            found = ready_waits(self.evaluator, concealed, melds, seat=self.seat, dealer=view.dealer,
                                players=view.players, wildcard=w)
            unseen = self.table.unseen if self.table is not None else (lambda t: 0)
            return " ".join(f"{tile_label(t, w)}({unseen(t)})" for t in found)

        now = waits(held)
        if now:
            return f"听  {now}"
        after: list[tuple[Tile, str]] = []
        for o in decision.options:
            if o.kind == "discard" and o.tile is not None and o.tile in held \
                    and o.tile not in [a for a, _ in after]:
                rest = list(held)
                rest.remove(o.tile)
                ws = waits(rest)
                if ws:
                    after.append((o.tile, ws))
        return "\n".join(f"听  打 {tile_label(t, w)} → {ws}" for t, ws in after)


class Announcer:
    """An event sink printing what happens at the table for the human at ``seat``."""

    def __init__(self, echo: Callable[[str], None] | None = None, seat: int | None = 0,
                 players: int = 4, *, after_win: str = "end", scoring: Any = None) -> None:
        self.echo = echo or click.echo
        self.seat = seat
        self.players = players
        # The hand as this seat sees it (flowers, declarations, wins), for the human's prompt.
        self.table = TableState(players, seat, after_win=after_win)
        self.scoring = scoring  # the ruleset's scoring: a win's payments say their multipliers and bonuses
        self._win_event: Event | None = None
        self.wildcard: Tile | None = None
        self.game: object | None = None  # set by play_session, to show a winner's tiles
        self.quiet_abandon = False
        self.net = [0] * players  # this hand's settlements, summed
        self.win_calls: list[tuple[int, str]] = []  # this hand's (winner, call)
        self._last_discard: str | None = None
        self._last_win_call: str | None = None
        self.speaker: Callable[[str], None] | None = None  # voices spoken calls (``--speak``)
        self.recorder: ScoreRecorder | None = None  # set by play_session, to show a win's reading

    def name(self, seat: int) -> str:
        return seat_name(seat, self.seat, self.players)

    def __call__(self, e: Event) -> None:
        self.table.feed(e)
        e = view_for(e, self.seat)  # what this seat may see (a spectator sees everything)
        t = e["type"]
        echo = self.echo
        w = self.wildcard
        if t == "hand_start":
            self.wildcard = None
            self.net = [0] * self.players
            self.win_calls = []
            self._last_discard = None
            echo("═" * 60)
            echo(f"第 {e['hand'] + 1} 手   {e['ruleset']}   庄家: {self.name(e['dealer'])}"
                 f"   种子 {e['seed']}")
            self.table.prevalent = getattr(self.game, "prevalent_wind", None)  # (None: no winds)
            if self.table.prevalent is not None:
                echo(self.table.winds_text())
        elif t == "deal" and self.seat is None:  # a spectator sees every hand
            for s, hand in enumerate(e["hands"]):
                echo(f"  {self.name(s)}  {tiles_label([_code_tile(c) for c in hand], None)}")
        elif t == "dice":
            what = e.get("text") or {"break": "开牌", "wildcard": "翻王", "exchange": "换牌"}.get(
                e.get("purpose", ""), e.get("purpose", ""))
            echo(f"掷骰 ({what}) {' + '.join(str(v) for v in e['values'])}")
        elif t == "wildcard":
            self.wildcard = _code_tile(e["wildcard"])
            if e.get("indicator") is None:  # fixed wildcards: nothing flipped
                wilds = [_code_tile(c) for c in e.get("wildcards") or [e["wildcard"]]]
                echo("王 " + " ".join(tile_label(x, x) for x in wilds))
            else:
                ind = tile_name(_code_tile(e["indicator"]))
                echo(f"翻牌 {ind} → 王 {tile_label(self.wildcard, self.wildcard)}")
        elif t == "discard":
            self._last_discard = tile_name(_code_tile(e["tile"]))
            echo(f"{self.name(e['seat'])} 打 {tile_label(_code_tile(e['tile']), w)}")
        elif t == "claim":
            tiles = [_code_tile(c) for c in e["tiles"]]
            kind = "点杠" if e["kind"] == "kong" else KIND_NAMES.get(e["kind"], e["kind"])
            echo(f"{self.name(e['seat'])} {kind} {tiles_label(tiles, w)}"
                 f" ({self.name(e['from_seat'])} 的)")
        elif t == "kong":
            shown = f" {tile_label(_code_tile(e['tile']), w)}" if e.get("tile") else ""
            echo(f"{self.name(e['seat'])} {KONG_NAMES.get(e['kind'], '杠')}{shown}")
        elif t == "laid_kong":  # a `laid_kongs` kind laid aside as a kong (红中杠 …)
            echo(f"{self.name(e['seat'])} 杠 {tile_label(_code_tile(e['tile']), w)} (laid aside)")
        elif t == "reveal":
            tiles = [_code_tile(c) for c in e.get("tiles", [])]
            echo(f"{self.name(e['seat'])} 亮{KONG_NAMES.get(e['kind'], '')} [{tiles_label(tiles, w)}]")
        elif t == "flower":
            echo(f"{self.name(e['seat'])} 补花 {tile_label(_code_tile(e['tile']), None)}")
        elif t == "draw" and e["seat"] == self.seat and e.get("tile"):
            what = "摸" if e.get("source") == "wall" else "补"
            echo(f"你 {what} {tile_label(_code_tile(e['tile']), w)}")
        elif t == "draw" and e.get("source") == "kong" and e["seat"] != self.seat:
            echo(f"{self.name(e['seat'])} 补牌")
        elif t == "call":
            self._call(e)
        elif t == "opening_win":
            tiles = [_code_tile(c) for c in e.get("hand", [])]
            names = " + ".join(e.get("patterns", []))
            echo(f"{self.name(e['seat'])} 开局报: {names}  {e.get('points', 0)} 分"
                 f"   [{tiles_label(tiles, w)}]")
        elif t == "win":
            self._win(e)
        elif t == "settlement":
            pays = e["payments"]
            self.net = [a + b for a, b in zip(self.net, pays, strict=False)]
            echo("结算  " + "   ".join(f"{self.name(s)} {p:+d}" for s, p in enumerate(pays)))
            win = self._win_event if not e.get("kind") else None
            for item in e.get("items", []):
                payee = self.name(item["payee"]) if item.get("payee") is not None else "—"
                why = payment_reason(item, self.name)
                if win is not None and self.scoring is not None and is_win_item(item) \
                        and item.get("payee") == win["seat"]:
                    terms = payment_terms(self.scoring, dealer=self.table.dealer, winner=win["seat"],
                                          payer=item["payer"], discarder=win.get("from_seat"),
                                          win_by=win.get("win_by", ""))
                    why += f"  ({', '.join(terms)})" if terms else ""
                echo(f"      {self.name(item['payer'])} → {payee} {item['amount']}  {why}")
            self._win_event = None
        elif t == "exchange":
            side = {"right": "下家", "across": "对家", "left": "上家"}.get(e["direction"], e["direction"])
            echo(f"换牌: 换给{side} ({e['direction']})")
            for s, (gave, got) in enumerate(zip(e.get("given") or [], e.get("received") or [],
                                                strict=False)):
                if gave is not None and got is not None:
                    echo(f"  {self.name(s)} 换出 {tiles_label([_code_tile(c) for c in gave], w)}"
                         f"   换入 {tiles_label([_code_tile(c) for c in got], w)}")
        elif t == "declare":
            if e["what"] == "void_suit":
                echo(f"{self.name(e['seat'])} 缺 {SUIT_NAMES.get(e['value'], e['value'])}")
            elif e["what"] == "ready":
                echo(f"{self.name(e['seat'])} 报听")
            else:
                echo(f"{self.name(e['seat'])} {e['what']} {e.get('value')}")
        elif t == "leave":
            paid = {"none": "付给无人 (paid to nobody)", "each_other": "付给每家 (to each other player)"}
            fine = (f"   罚 {e['penalty']} {paid.get(e.get('paid_to', ''), '')}"
                    if e.get("penalty") else "")
            then = "由机器人代打 (a bot plays on)" if e.get("hand") == "bot" else "本手作废 (hand abandoned)"
            echo(f"{self.name(e['seat'])} 离开牌桌 (left the table: {e.get('reason', '')}){fine}; {then}")
        elif t == "abandon":
            if not self.quiet_abandon:
                echo(f"本手作废: {e.get('reason', '')}")
        elif t == "hand_end":
            if e["result"] == "draw":
                echo("流局 (牌墙摸完)")
            if e["result"] != "abandon" or not self.quiet_abandon:
                echo(f"下一手庄家: {self.name(e['next_dealer'])}")
        elif e.get("text") and t not in ("dice", "call"):
            # A plugin's own event says how it reads (see docs/plugins.md).
            who = f"{self.name(e['seat'])} " if isinstance(e.get("seat"), int) else ""
            echo(f"{who}{seat_words_in(e['text'], self.seat, self.players)}")

    def _call(self, e: Event) -> None:
        """What a player says (报牌); a discard's call that is just the tile's name is not repeated."""
        text = e.get("text", "")
        if self.speaker is not None:
            self.speaker(text)
        text = seat_words_in(text, self.seat, self.players)
        if e.get("about") == "discard" and text == self._last_discard:
            return
        if e.get("about") == "win" and text == self._last_win_call:
            return  # already shown with the win
        who = self.name(e["seat"]) if e.get("seat") is not None else "—"
        self.echo(f"{who}: 「{text}」")

    def _win(self, e: Event) -> None:
        self._win_event = e
        w = self.wildcard
        seat = e["seat"]
        how = WIN_BY.get(e.get("win_by", ""), e.get("win_by", ""))
        if e.get("from_seat") is not None and e.get("win_by") != "self_draw":
            how = (f"{self.name(e['from_seat'])} 放炮" if e.get("win_by") == "discard"
                   else f"{how} ({self.name(e['from_seat'])} 的杠)")
        self._last_win_call = e.get("call")
        if e.get("call"):
            self.win_calls.append((e["seat"], e["call"]))
        call = f"  「{e['call']}」" if e.get("call") else ""
        self.echo(f"{self.name(seat)} 胡 {tile_label(_code_tile(e['tile']), w)}  {how}{call}")
        self.echo(f"      {' + '.join(e.get('patterns', []))}  {e.get('points', 0)} 分")
        if self.game is not None:
            view = TableView(self.game, seat)  # type: ignore[arg-type]
            melds = " ".join(_meld_text(m.kind, m.tiles, w) for m in view.melds)
            won = "" if e.get("win_by") == "self_draw" else f" + {tile_label(_code_tile(e['tile']), w)}"
            self.echo(f"      手牌 {tiles_label(view.hand, w)}{won}" + (f"   副露 {melds}" if melds else ""))
        rec = self.recorder.last_win.get(seat) if self.recorder is not None else None
        if rec is not None and self.recorder is not None and rec[1].pattern_names == e.get("patterns", []):
            groups, _ = reading_parts(rec[1], self.recorder.stand_in_for(w))
            if groups:
                self.echo(f"      读法 {' '.join(groups)}")


def narration(events: Sequence[Event], seat: int | None, players: int, *, after_win: str = "end",
              scoring: Any = None, doubtful: bool = False) -> list[str]:
    """What the table said of each event to ``seat`` (the :class:`Announcer`'s lines, in Chinese:
    a :class:`~mjframework.ui.words.Words` puts them in another language), one entry per event —
    ``""`` for an event it says nothing of. The browser's replay shows these (the same words as
    the tables), not words of its own.

    ``doubtful``: the events come from outside (a log uploaded to the playground, maybe
    doctored): an event the table cannot read is said as its type in brackets, and the rest
    still said, instead of raising."""
    said: list[str] = []
    lines: list[str] = []
    tell = Announcer(lines.append, seat, players, after_win=after_win, scoring=scoring)
    for e in events:
        lines.clear()
        if doubtful:
            try:
                tell(e)
            except Exception:  # (any reading of a doctored event: a missing field, a bad tile, a seat)
                lines[:] = [f"[{str(e.get('type'))[:40]}]"]
        else:
            tell(e)
        said.append(" · ".join(x.strip() for x in lines if x.strip() and set(x.strip()) - set("═─ ")))
    return said


class Speaker:
    """Says calls aloud with espeak-ng (Mandarin voice) when it is installed; otherwise silent.

    Each call runs in the background so the game never waits for the voice.
    """

    def __init__(self, voice: str = "cmn") -> None:
        self.exe = shutil.which("espeak-ng")
        self.voice = voice

    def __call__(self, text: str) -> None:
        if self.exe is None or not text:
            return
        try:
            subprocess.Popen([self.exe, "-v", self.voice, text], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        except OSError:  # a broken install must not stop the game
            self.exe = None


def play_session(ruleset_ref: str, *, seed: int, hands: int = 1, console: Console | None = None,
                 watch: bool = False, speak: bool = False, speed: float = 0.0,
                 options: dict[str, Any] | None = None, preset: str | None = None,
                 bots: Sequence[tuple[str, str]] = (), bot_timeout: float | None = None,
                 record: Callable[[Event], None] | None = None, lang: str = "zh") -> list[int]:
    """Play ``hands`` hands, the human at seat 0 and greedy bots elsewhere; return the net per seat.

    ``lang``: the table's language (:mod:`mjframework.ui.words`: ``zh`` or ``en``).

    ``watch``: four bots play and every hand is told as it happens (the deal
    included), for a spectator; ``speed``: seconds to pause after each move.
    Seeds, bots and the first dealer derive exactly as in ``mj simulate``'s first game.
    ``bots``: (name, command) of external programs (docs/bots.md), seated after
    the human (from seat 0 with ``watch``); each decision waits at most
    ``bot_timeout`` seconds. ``record``: an extra event sink that sees every event (the records file).
    """
    from ..run.simulate import load_cached

    console = console or Console()
    rs, ev = load_cached(ruleset_ref, options, preset)
    if lang != "zh":
        console = TranslatedConsole(console, Words(lang, ruleset_words(rs)))
    echo = console.echo
    recorder = ScoreRecorder(ev)
    me = None if watch else 0
    announcer = Announcer(echo, me, rs.players, after_win=rs.win.after_win, scoring=rs.scoring)
    human = HumanPlayer(console, 0, table=announcer.table, evaluator=recorder, leave=rs.leave)
    announcer.recorder = recorder

    def tell(e: Event) -> None:
        if record is not None:
            record(e)
        announcer(e)  # it shows each event as seat ``me`` sees it
        if speed and e["type"] in PACED:
            time.sleep(speed)
    if speak:
        announcer.speaker = Speaker()
    names = ("greedy",) * rs.players
    # External programs (docs/bots.md) take the seats after the human's (all seats with --watch).
    first = 0 if watch else 1
    if len(bots) > rs.players - first:
        raise ValueError(f"{len(bots)} bots but only {rs.players - first} free seats")
    from ..run.extbot import DEFAULT_TIMEOUT, open_bot

    externals: dict[int, Any] = {}  # external programs and trained policies (FILE.npz)
    try:
        for i, (bname, command) in enumerate(bots):
            externals[first + i] = open_bot(command, rs, name=bname, timeout=bot_timeout or DEFAULT_TIMEOUT)
        return _session(rs, recorder, seed, hands, console, watch, human, me, announcer, tell, names,
                        externals)
    finally:
        for bot in externals.values():
            bot.close()


def _session(rs: Any, recorder: Any, seed: int, hands: int, console: Console, watch: bool,
             human: HumanPlayer, me: int | None, announcer: Announcer, tell: Callable[[Event], None],
             names: tuple[str, ...], externals: dict[int, Any]) -> list[int]:
    from ..play.events import fan_out
    from ..play.game import Game, HandResult
    from ..run.simulate import make_bots, play_hands

    echo = console.echo
    totals = [0] * rs.players
    failures: list[str] = []  # hands abandoned by a failure (a plugin, a program at a seat)
    if watch:
        who = [externals[s].name if s in externals else "greedy" for s in range(rs.players)]
        echo(f"{rs.name} ({rs.id}) — seed {seed}; " + " / ".join(
            f"{seat_name(s, None, rs.players)} {who[s]}" for s in range(rs.players)))
    else:
        echo(f"{rs.name} ({rs.id}) — seed {seed}; 你 = seat 0, bots: 下家 / 对家 / 上家. 'q' quits.")
    played = 0

    def seats(h: int) -> list[Any]:
        players = make_bots(names, seed, 0, h)
        if not watch:
            players[0] = human
        for s, bot in externals.items():
            bot.sit(s)
            players[s] = bot
        return players

    def play(game: Game) -> HandResult:
        announcer.game = game
        for bot in externals.values():
            if hasattr(bot, "attach"):  # a trained policy reads the table through its game
                bot.attach(game)
        announcer.quiet_abandon = True  # abandons (by 'q' / EOF or a failure) are reported below
        return game.play()

    for _, result in play_hands(rs, seats, seed=seed, hands=hands, emit=fan_out(tell, *externals.values()),
                                evaluator=recorder, play=play):
        if result.result == "abandon" and not human.stopped:
            echo(f"本手作废 (hand abandoned): {result.error}")
            failures.append(result.error or "hand abandoned")
        if human.stopped:
            totals = [a + b for a, b in zip(totals, announcer.net, strict=True)]
            fine = rs.leave.penalty
            paid = "to nobody" if rs.leave.paid_to == "none" else "to each other player"
            echo("游戏停止 (game stopped by 'q' or the end of input: you left the table"
                 + (f"; you pay {fine} {paid})" if fine else "; nothing is paid)"))
            break
        if result.result == "abandon":  # void: it neither counts nor pays; the same dealer deals again
            echo("(this hand is not counted)")
            continue
        played += 1
        # Every settlement of the hand (opening declarations included), as announced.
        totals = [a + b for a, b in zip(totals, announcer.net, strict=True)]
    echo("═" * 60)
    echo(f"{played} 手   总计  " + "   ".join(f"{seat_name(s, me, rs.players)} {v:+d}"
                                         for s, v in enumerate(totals)))
    if failures:  # said above as they happened; the command exits 1 (as `mj simulate` does)
        raise MJError(f"{len(failures)} hand(s) abandoned: {failures[0]}")
    return totals
