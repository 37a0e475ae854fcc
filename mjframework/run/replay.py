"""Step through a logged hand: the table after each event, as one seat (or everyone) saw it.

``mj replay LOG.jsonl [--hand N] [--seat N]`` reads an engine log (``mj
simulate --log``, docs/events.md), rebuilds the table event by event, and
shows it frame by frame: Enter or ``n`` next, ``p`` previous, a number jumps
to that event, ``q`` quits. With ``--seat`` the other seats' concealed tiles
(and their face-down kongs, until the reveal) are shown as backs — the seat's
own view (:mod:`mjframework.play.visibility`).
"""

from __future__ import annotations

import itertools
import json
import types
import typing
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.errors import MJError
from ..core.kinds import KongKind, MeldKind
from ..core.tiles import parse_tile, tile_name
from ..play.events import EVENT_TYPES, EventError
from ..play.events import from_json as evt_from_json
from ..play.visibility import view_for

Event = dict[str, Any]
BACK = "🀫"


class ReplayError(MJError):
    """A log that can't be replayed (missing, not JSON lines, a malformed event, no such hand)."""


MAX_LINE = 1 << 20  # bytes in one line of a log (an event is at most a few KB)
MAX_HAND_EVENTS = 100_000  # events in one hand (a hand has a few hundred)
MAX_INT = 2**64  # magnitude of any number in an event (hands, 64-bit seeds, points, payments)

_SEAT_FIELDS = frozenset({"seat", "from_seat", "dealer", "next_dealer", "start_wall", "payer", "payee", "to"})
_TILE_FIELDS = frozenset({"tile", "tiles", "hands", "indicator", "wildcard", "wildcards", "given",
                          "received"})


class HandEvents(list[Event]):
    """A hand's events, with the log's name and each event's line (for located errors)."""

    def __init__(self, path: str | Path) -> None:
        super().__init__()
        self.path = str(path)
        self.lines: list[int] = []


def _lines(path: str | Path) -> Iterator[tuple[int, bytes]]:
    """The non-blank lines of ``path`` (numbered from 1), read a line at a time, each at most
    :data:`MAX_LINE` bytes: any file, however large (or endless: ``/dev/zero``), in bounded memory."""
    try:
        f = open(path, "rb")  # noqa: SIM115 - closed below, also when the caller stops early
    except OSError as err:
        raise ReplayError(f"{path}: cannot read: {err.strerror or err}") from None
    with f:
        for i in itertools.count(1):
            try:
                line = f.readline(MAX_LINE + 1)
            except OSError as err:
                raise ReplayError(f"{path}:{i}: cannot read: {err.strerror or err}") from None
            if not line:
                return
            if len(line) > MAX_LINE:
                raise ReplayError(f"{path}:{i}: a line longer than {MAX_LINE} bytes (is this an event log?)")
            if line.strip():
                yield i, line


def _event(path: str | Path, i: int, line: bytes) -> Event:
    try:
        e = json.loads(line.decode("utf-8"))
    except UnicodeDecodeError as err:
        raise ReplayError(f"{path}:{i}: not UTF-8 (byte {err.start})") from None
    except json.JSONDecodeError as err:
        raise ReplayError(f"{path}:{i}: not a JSON line ({err.msg})") from None
    except (ValueError, RecursionError):  # a number of more than 4,300 digits; nesting too deep
        raise ReplayError(f"{path}:{i}: not a JSON line (a number or nesting beyond the limits)") from None
    if not isinstance(e, dict) or not isinstance(e.get("type"), str):
        raise ReplayError(f"{path}:{i}: not an event (an object with a type)")
    return e


def read_hand(path: str | Path, hand: int) -> list[Event]:
    """The events of hand ``hand`` (0: the first) of a log, ``hand_start`` to ``hand_end``,
    each checked (:func:`check_event`); the log is streamed, only that hand is kept."""
    seen = -1
    current: HandEvents | None = None
    for i, line in _lines(path):
        e = _event(path, i, line)  # every line must be an event, also in the hands not shown
        if current is None:
            if e["type"] != "hand_start":
                continue
            seen += 1
            if seen != hand:
                continue
            current = HandEvents(path)
        try:
            check_event(e)
        except ReplayError as err:
            raise ReplayError(f"{path}:{i}: {e['type']}: {err}") from None
        current.append(e)
        current.lines.append(i)
        if len(current) > MAX_HAND_EVENTS:
            raise ReplayError(f"{path}:{i}: hand {hand} has more than {MAX_HAND_EVENTS} events")
        if e["type"] == "hand_end":
            return current
    if current is not None:
        return current  # a log cut short: the hand as far as it goes
    if seen < 0:
        raise ReplayError(f"{path}: no hand in this log (is it an `mj simulate --log` file?)")
    n = seen + 1
    raise ReplayError(f"--hand {hand}: the log has {n} hand{'s' if n != 1 else ''} (0–{n - 1})")


def read_hands(path: str | Path) -> list[list[Event]]:
    """Every hand of a log (each checked). For a large log use :func:`read_hand`: this keeps all."""
    hands: list[list[Event]] = []
    while True:
        try:
            hands.append(read_hand(path, len(hands)))
        except ReplayError as err:
            if hands and str(err).startswith("--hand "):
                return hands
            raise


def _check_value(name: str, value: Any, tp: Any) -> None:
    """``value`` is of the annotated type ``tp`` (int, str, bool, None, X | None, list[X], dict)."""
    origin = typing.get_origin(tp)
    if tp is Any:
        return
    if origin in (typing.Union, types.UnionType):
        problems = []
        for alt in typing.get_args(tp):
            try:
                _check_value(name, value, alt)
                return
            except ReplayError as err:
                problems.append(str(err))
        raise ReplayError(problems[-1] if problems else f"{name}: a bad value")
    if tp is type(None):
        if value is not None:
            raise ReplayError(f"{name}: expected null, got {_kind(value)}")
        return
    if origin is list:
        if not isinstance(value, list):
            raise ReplayError(f"{name}: expected a list, got {_kind(value)}")
        (item,) = typing.get_args(tp) or (Any,)
        for x in value:
            _check_value(name, x, item)
        return
    if origin is dict or tp is dict:
        if not isinstance(value, dict):
            raise ReplayError(f"{name}: expected an object, got {_kind(value)}")
        return
    if tp is bool:
        if not isinstance(value, bool):
            raise ReplayError(f"{name}: expected true or false, got {_kind(value)}")
        return
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ReplayError(f"{name}: expected an integer, got {_kind(value)}")
        if abs(value) > MAX_INT:
            raise ReplayError(f"{name}: {str(value)[:20]}… is out of range")
        if name in _SEAT_FIELDS and not 0 <= value < 4:
            raise ReplayError(f"{name}: {value} is not a seat (0–3)")
        return
    if tp is str:
        if not isinstance(value, str):
            raise ReplayError(f"{name}: expected a string, got {_kind(value)}")
        if name in _TILE_FIELDS:
            try:
                parse_tile(value)
            except Exception:  # any failure to read it: not a tile
                raise ReplayError(f"{name}: {value[:20]!r} is not a tile") from None
        return


def _kind(value: Any) -> str:
    return {list: "a list", dict: "an object", str: "a string", bool: "a boolean", int: "a number",
            float: "a number", type(None): "null"}.get(type(value), type(value).__name__)


_HINTS: dict[str, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    """``cls``'s resolved field annotations (once per event type)."""
    got = _HINTS.get(cls.__name__)
    if got is None:
        got = _HINTS[cls.__name__] = typing.get_type_hints(cls)
    return got


def check_event(e: Event) -> None:
    """``e`` has the fields of its type (docs/events.md) with values of their types; the seats
    are seats, the tiles tiles; what a replay reads of a settlement's items and an exchange's
    passes too. Raises :class:`ReplayError` saying which field is wrong."""
    cls = EVENT_TYPES.get(e["type"])
    if cls is None:
        return  # a plugin's event: shown as it is
    try:
        evt_from_json(e)
    except EventError as err:
        raise ReplayError(str(err)) from None
    hints = _hints(cls)
    for name, value in e.items():
        if name != "type" and name in hints:
            _check_value(name, value, hints[name])
    if e["type"] == "settlement":
        for item in e["items"]:
            if not isinstance(item, dict):
                raise ReplayError("items: each item is an object")
            _check_value("payer", item.get("payer"), int)
            _check_value("payee", item.get("payee"), int | None)
            _check_value("amount", item.get("amount"), int)
    if e["type"] == "exchange":
        for p in e["passes"] or []:
            if not isinstance(p, dict):
                raise ReplayError("passes: each pass is an object")
            _check_value("seat", p.get("seat"), int)
            _check_value("to", p.get("to"), int)
            _check_value("tiles", p.get("tiles"), list[str])


def _name(code: str | None) -> str:
    return "?" if code is None else tile_name(parse_tile(code))


def _names(codes: Iterable[str | None]) -> str:
    return " ".join(_name(c) for c in codes)


@dataclass
class _Seat:
    hand: list[str] = field(default_factory=list)
    melds: list[tuple[str, list[str]]] = field(default_factory=list)
    discards: list[str] = field(default_factory=list)
    money: int = 0


class Replay:
    """The frames of one hand: ``frames[i]`` is the table after event ``i``, as ``seat`` saw it."""

    def __init__(self, events: Sequence[Event], seat: int | None = None) -> None:
        self.events = list(events)
        self.seat = seat
        if not self.events:
            raise ReplayError("no events to replay")
        start = self.events[0]
        if seat is not None and not 0 <= seat < 4:
            raise ReplayError(f"--seat {seat}: seats are 0–3")
        self.players = 4
        for e in self.events:
            if e.get("type") == "deal" and isinstance(e.get("hands"), list) and 2 <= len(e["hands"]) <= 4:
                self.players = len(e["hands"])
        if seat is not None and seat >= self.players:
            raise ReplayError(f"--seat {seat}: this hand has {self.players} seats")
        self.title = (f"hand {start.get('hand')} of {start.get('ruleset')} — "
                      f"dealer seat {start.get('dealer')}, seed {start.get('seed')}")
        if seat is not None:
            self.title += f" — as seat {seat} saw it"
        self.frames: list[str] = []
        self._seats = [_Seat() for _ in range(self.players)]
        self._wild: list[str] = []
        self._revealed = False
        self._last_discard: tuple[int, str] | None = None
        where = getattr(events, "path", None)
        lines = getattr(events, "lines", None)
        for i, e in enumerate(self.events):
            try:
                self._apply(e)
                self.frames.append(self._render(i, e))
            except (KeyError, TypeError, IndexError, ValueError, AttributeError, MJError) as err:
                # (checked events that still don't fit the table: a tile nobody holds, a seat
                # beyond this hand's players …)
                at = f"{where}:{lines[i]}" if where and lines else f"event {i + 1}"
                why = f"no {err}" if isinstance(err, KeyError) else str(err) or type(err).__name__
                raise ReplayError(f"{at}: {e.get('type')}: can't be replayed on this table ({why})") from None

    # -- the table ---------------------------------------------------------------

    def _apply(self, e: Event) -> None:
        t = e["type"]
        S = self._seats
        if t == "deal":
            for i, h in enumerate(e["hands"]):
                S[i].hand = list(h)
        elif t == "draw":
            S[e["seat"]].hand.append(e["tile"])
        elif t == "discard":
            s = S[e["seat"]]
            if e["tile"] in s.hand:
                s.hand.remove(e["tile"])
            s.discards.append(e["tile"])
            self._last_discard = (e["seat"], e["tile"])
        elif t == "claim":
            s = S[e["seat"]]
            tiles = list(e["tiles"])
            taken = self._last_discard[1] if self._last_discard else tiles[0]
            rest = list(tiles)
            if taken in rest:
                rest.remove(taken)
            for x in rest:
                if x in s.hand:
                    s.hand.remove(x)
            src = S[e["from_seat"]].discards
            if src and src[-1] == taken:
                src.pop()
            s.melds.append((e["kind"], tiles))
        elif t == "kong":
            s = S[e["seat"]]
            tile = e["tile"]
            if e["kind"] == KongKind.CONCEALED:
                for _ in range(4):
                    if tile in s.hand:
                        s.hand.remove(tile)
                s.melds.append((MeldKind.CONCEALED_KONG, [tile] * 4))
            else:
                if tile in s.hand:
                    s.hand.remove(tile)
                for k, (kind, tiles) in enumerate(s.melds):
                    if kind == MeldKind.PUNG and tiles[0] == tile:
                        s.melds[k] = (MeldKind.KONG, [tile] * 4)
                        break
        elif t == "exchange" and e.get("passes"):
            for p in e["passes"]:
                for x in p["tiles"]:
                    if x in S[p["seat"]].hand:
                        S[p["seat"]].hand.remove(x)
            for p in e["passes"]:
                S[p["to"]].hand.extend(p["tiles"])
        elif t == "wildcard":
            self._wild = list(e.get("wildcards") or [e["wildcard"]])
        elif t == "settlement":
            for item in e.get("items", []):
                S[item["payer"]].money -= item["amount"]
                if item.get("payee") is not None:
                    S[item["payee"]].money += item["amount"]
        elif t == "reveal":
            self._revealed = True
        for s in S:
            s.hand.sort(key=parse_tile)

    def _render(self, i: int, e: Event) -> str:
        me = self.seat
        seen = view_for(e, me)
        lines = [self.title, f"event {i + 1}/{len(self.events)}: {self.narrate(seen)}"]
        if self._wild:
            lines.append(f"wildcards: {_names(self._wild)}")
        for s, st in enumerate(self._seats):
            mark = "→" if e.get("seat") == s else " "
            who = f"{mark} seat {s}{' (dealer)' if s == self.events[0].get('dealer') else ''}"
            hand = _names(st.hand) if me is None or me == s else BACK * len(st.hand)
            melds = []
            for kind, tiles in st.melds:
                hidden = kind == MeldKind.CONCEALED_KONG and not self._revealed and me is not None and me != s
                melds.append(f"[{BACK * 4}]" if hidden else f"[{_names(tiles)}]")
            lines.append(f"{who:<18} {st.money:+5d}  {hand}  {' '.join(melds)}")
            lines.append(f"{'':<26}河: {_names(st.discards)}")
        return "\n".join(lines)

    @staticmethod
    def narrate(e: Event) -> str:
        t = e["type"]
        s = e.get("seat")
        if t == "draw":
            return f"seat {s} draws {_name(e['tile'])}" + (" (from the kong end)" if e.get("source") == "kong"
                                                           else "")
        if t == "discard":
            return f"seat {s} discards {_name(e['tile'])}"
        if t == "claim":
            return f"seat {s} claims {e['kind']} {_names(e['tiles'])} from seat {e['from_seat']}"
        if t == "kong":
            return f"seat {s} declares a {e['kind']} kong" + ("" if e.get("tile") is None
                                                              else f" of {_name(e['tile'])}")
        if t == "win":
            by = {"self_draw": "self-drawn", "discard": f"on seat {e.get('from_seat')}'s discard",
                  "robbed_kong": "robbing a kong"}.get(e.get("win_by", ""), e.get("win_by"))
            return f"seat {s} wins {by} with {_name(e['tile'])}: {', '.join(e.get('patterns', []))}"
        if t == "settlement":
            return "settlement " + " ".join(f"{x:+d}" for x in e.get("payments", []))
        if t == "deal":
            return "the deal"
        if t == "hand_end":
            return f"hand ends: {e.get('result')}, next dealer seat {e.get('next_dealer')}"
        if t == "wildcard":
            return f"wildcard {_name(e.get('wildcard'))}"
        rest = {k: v for k, v in e.items() if k not in ("type", "hidden", "tiles")}
        return f"{t} {json.dumps(rest, ensure_ascii=False)}" if rest else t


def run(replay: Replay, read: Callable[[], str | None], echo: Callable[[str], None]) -> None:
    """The terminal loop: show a frame, read a command (n/Enter, p, a number, q)."""
    i = 0
    n = len(replay.frames)
    while True:
        echo(replay.frames[i])
        echo("[Enter/n] next  [p] previous  [number] go to event  [q] quit")
        line = read()
        if line is None:
            return
        cmd = line.strip().lower()
        if cmd in ("", "n", "next"):
            if i == n - 1:
                echo("(the hand's last event)")
                return
            i += 1
        elif cmd in ("p", "prev", "previous"):
            i = max(0, i - 1)
        elif cmd in ("q", "quit"):
            return
        elif cmd.isascii() and cmd.isdigit() and len(cmd) <= 9 and 1 <= int(cmd) <= n:
            i = int(cmd) - 1  # (ASCII digits only: "²" is a digit to str.isdigit, not to int)
        else:
            shown = line.strip()
            echo(f"? {shown[:40]!r}{'…' if len(shown) > 40 else ''}: n, p, a number 1–{n}, or q")


__all__ = ["MAX_HAND_EVENTS", "MAX_INT", "MAX_LINE", "HandEvents", "Replay", "ReplayError", "check_event",
           "read_hand", "read_hands", "run"]
