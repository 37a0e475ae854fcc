"""Step through a logged hand: the table after each event, as one seat (or everyone) saw it.

``mj replay LOG.jsonl [--hand N] [--seat N]`` reads an engine log (``mj
simulate --log``, docs/events.md), rebuilds the table event by event, and
shows it frame by frame: Enter or ``n`` next, ``p`` previous, a number jumps
to that event, ``q`` quits. With ``--seat`` the other seats' concealed tiles
(and their face-down kongs, until the reveal) are shown as backs — the seat's
own view (:mod:`mjframework.play.visibility`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.errors import MJError
from ..core.kinds import KongKind, MeldKind
from ..core.tiles import parse_tile, tile_name
from ..play.visibility import view_for

Event = dict[str, Any]
BACK = "🀫"


class ReplayError(MJError):
    """A log that can't be replayed (missing, not JSON lines, no such hand)."""


def read_hands(path: str | Path) -> list[list[Event]]:
    """The hands of a log file, each its events from ``hand_start`` to ``hand_end``."""
    p = Path(path)
    try:
        text = p.read_text("utf-8")
    except OSError as err:
        raise ReplayError(f"{path}: cannot read: {err.strerror or err}") from None
    hands: list[list[Event]] = []
    current: list[Event] | None = None
    for i, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            e = json.loads(line)
        except json.JSONDecodeError as err:
            raise ReplayError(f"{path}:{i}: not a JSON line ({err.msg})") from None
        if not isinstance(e, dict) or "type" not in e:
            raise ReplayError(f"{path}:{i}: not an event (an object with a type)")
        if e["type"] == "hand_start":
            current = [e]
            hands.append(current)
        elif current is not None:
            current.append(e)
            if e["type"] == "hand_end":
                current = None
    if not hands:
        raise ReplayError(f"{path}: no hand in this log (is it an `mj simulate --log` file?)")
    return hands


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
    flowers: list[str] = field(default_factory=list)  # laid aside face up (``flower`` events)


class Replay:
    """The frames of one hand: ``frames[i]`` is the table after event ``i``, as ``seat`` saw it."""

    def __init__(self, events: Sequence[Event], seat: int | None = None) -> None:
        self.events = list(events)
        self.seat = seat
        start = self.events[0]
        if seat is not None and not 0 <= seat < 4:
            raise ReplayError(f"--seat {seat}: seats are 0–3")
        self.players = 4
        for e in self.events:
            if e["type"] == "deal":
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
        for i, e in enumerate(self.events):
            self._apply(e)
            self.frames.append(self._render(i, e))

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
        elif t == "flower":  # laid aside: it leaves the hand (its replacement is the next draw)
            s = S[e["seat"]]
            if e["tile"] in s.hand:
                s.hand.remove(e["tile"])
            s.flowers.append(e["tile"])
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
            if st.flowers:
                melds.append(f"花 {_names(st.flowers)}")
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
        elif cmd.isdigit() and 1 <= int(cmd) <= n:
            i = int(cmd) - 1
        else:
            echo(f"? {line.strip()!r}: n, p, a number 1–{n}, or q")


__all__ = ["Replay", "ReplayError", "read_hands", "run"]
