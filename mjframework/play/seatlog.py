"""Per-seat event streams in the mjai protocol's shape (docs/seat-log.md).

The engine's log (docs/events.md) is the whole truth. A *seat log* is what one
seat saw, each event first masked by :func:`mjframework.play.visibility.view_for`,
then renamed to the mjai protocol's types and fields where the concept exists
(``start_kyoku``, ``tsumo``, ``dahai``, ``pon``, ``chi``, ``daiminkan``,
``ankan``, ``kakan``, ``hora``, ``ryukyoku``, ``end_kyoku``; ``actor``,
``target``, ``pai``, ``consumed``, ``tsumogiri``, ``tehais``, ``oya``,
``deltas``) — a tile nobody shows that seat is ``"?"``, as in mjai. What mjai
has no word for (wildcards, exchanges, declarations, birds, opening wins,
settlements, reveals, plugin events) keeps the engine's type with ``seat``
renamed ``actor``. Tiles are mjai names (``5m``, ``E`` … ``C``;
:func:`mjframework.core.tiles.to_mjai`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import IO, Any

from ..core.kinds import KongKind
from ..core.tiles import NUM_KINDS, parse_tile, tile_code, to_mjai
from .visibility import view_for

Event = dict[str, Any]
HIDDEN = "?"
CLAIMS = {"pung": "pon", "chow": "chi", "kong": "daiminkan"}


_PAI = {tile_code(t): to_mjai(t) for t in range(NUM_KINDS)}


def _pai(code: Any) -> str:
    if code is None:
        return HIDDEN
    pai = _PAI.get(code)
    return pai if pai is not None else to_mjai(parse_tile(code))


def _pais(codes: Iterable[Any] | None) -> list[str] | None:
    return None if codes is None else [_pai(c) for c in codes]


class SeatStream:
    """Turns a seat's masked engine events into seat-log events, one hand after another.

    ``seat=None`` gives the whole truth in the same shape (a spectator's or referee's)."""

    def __init__(self, seat: int | None) -> None:
        self.seat = seat
        self._start: Event | None = None
        self._drawn: dict[int, str] = {}
        self._last_draw_actor: int | None = None
        self._wins = 0
        self._last_discard: str | None = None  # the claim that follows takes it
        self._before: list[Event] | None = None  # events between hand_start and the deal

    def feed(self, event: Event) -> list[Event]:
        e = view_for(event, self.seat)
        t = e["type"]
        if t == "draw":  # whether the drawn tile is discarded at once is seen by all (tsumogiri)
            self._drawn[event["seat"]] = event["tile"]
        out: list[Event] = []
        if t == "hand_start":
            # start_kyoku needs the tehais: it is written at the deal, and what comes
            # between (the break's dice, the face-down wall) right after it.
            self._start = e
            self._before = []
            self._drawn.clear()
            self._wins = 0
            return out
        if self._start is not None and self._before is not None and t not in ("deal", "hand_end"):
            self._before.extend(self._convert(e))
            return out
        if t == "hand_end" and self._before is not None:  # ended before the deal (a failure)
            out, self._before = self._before, None
        return out + self._convert(e)

    def _convert(self, e: Event) -> list[Event]:
        t = e["type"]
        out: list[Event] = []
        if t == "deal":
            s = self._start or {}
            hands = e["hands"]
            size = int(s.get("hand_size") or 13)  # (`hand_size`: a ruleset's `hand.size` not 13)
            tehais = [[HIDDEN] * size if h is None else _pais(h) for h in hands]
            dealer = s.get("dealer", 0)
            if hands[dealer] is None:  # the dealer's extra tile is unseen too
                tehais[dealer] = [HIDDEN] * (size + 1)
            out.append({"type": "start_kyoku", "bakaze": "E", "kyoku": int(s.get("hand", 0)) + 1,
                        "honba": 0, "kyotaku": 0, "oya": dealer, "dora_marker": None,
                        "scores": [0] * len(hands), "tehais": tehais,
                        "ruleset": s.get("ruleset"), "hand": s.get("hand"), "seed": s.get("seed"),
                        **({"game": s["game"]} if "game" in s else {}),
                        **({"seat": self.seat} if self.seat is not None else {})})
            out.extend(self._before or ())
            self._before = None
            return out
        if t == "draw":
            pai = _pai(e["tile"])
            out.append({"type": "tsumo", "actor": e["seat"], "pai": pai, "source": e["source"]})
            self._last_draw_actor = e["seat"]
            return out
        if t == "discard":
            pai = _pai(e["tile"])
            drew = self._drawn.pop(e["seat"], None)
            self._last_discard = e["tile"]
            out.append({"type": "dahai", "actor": e["seat"], "pai": pai,
                        "tsumogiri": drew is not None and drew == e["tile"]})
            return out
        if t == "claim":
            tiles = list(e["tiles"])
            taken = self._last_discard if self._last_discard in tiles else tiles[0]
            consumed = list(tiles)
            consumed.remove(taken)
            out.append({"type": CLAIMS.get(e["kind"], e["kind"]), "actor": e["seat"],
                         "target": e["from_seat"], "pai": _pai(taken), "consumed": _pais(consumed)})
            self._drawn.pop(e["seat"], None)
            return out
        if t == "kong":
            if e["kind"] == KongKind.CONCEALED:
                out.append({"type": "ankan", "actor": e["seat"], "consumed": [_pai(e["tile"])] * 4})
            else:
                out.append({"type": "kakan", "actor": e["seat"], "pai": _pai(e["tile"]),
                            "consumed": [_pai(e["tile"])] * 3})
            self._drawn.pop(e["seat"], None)
            return out
        if t == "win":
            self._wins += 1
            target = e["from_seat"] if e["from_seat"] is not None else e["seat"]
            out.append({"type": "hora", "actor": e["seat"], "target": target, "pai": _pai(e["tile"]),
                        "win_by": e["win_by"], "patterns": e.get("patterns", []),
                        "points": e.get("points"), "call": e.get("call")})
            return out
        if t == "settlement":
            rest = {k: v for k, v in e.items() if k not in ("type", "payments")}
            out.append({"type": "settlement", "deltas": e["payments"], **rest})
            return out
        if t == "hand_end":
            if e["result"] == "draw":
                out.append({"type": "ryukyoku", "reason": "exhausted"})
            rest = {k: v for k, v in e.items() if k != "type"}
            out.append({"type": "end_kyoku", **rest})
            self._start = None
            return out
        if t == "wildcard":
            out.append({"type": "wildcard", "indicator": None if e.get("indicator") is None
                        else _pai(e["indicator"]), "wildcard": _pai(e["wildcard"]),
                        "wildcards": _pais(e.get("wildcards") or [e["wildcard"]])})
            return out
        if t == "exchange":
            me = self.seat
            out.append({"type": "exchange", "direction": e["direction"],
                        "given": [None if g is None else _pais(g) for g in e["given"]],
                        "received": [None if r is None else _pais(r) for r in e["received"]],
                        "passes": None if e.get("passes") is None else [
                            {"actor": p["seat"], "to": p["to"], "tiles": _pais(p["tiles"])}
                            for p in e["passes"]],
                        **({"seat": me} if me is not None else {})})
            return out
        if t == "wall":
            wall_tiles = e.get("tiles")
            out.append({"type": "wall", "start_wall": e["start_wall"], "start_stack": e["start_stack"],
                        "height": e["height"],
                        **({"tiles": [None if x is None else _pai(x) for x in wall_tiles]}
                           if wall_tiles is not None else {"tiles": None})})
            return out
        if t in ("reveal", "opening_win", "birds", "bonus_tiles", "laid_kong", "haidi_shown", "open_kong"):
            ev = self._generic(e)
            for k in ("tiles", "hand"):
                if isinstance(ev.get(k), list):
                    ev[k] = _pais(ev[k])
            if "tile" in ev:
                ev["pai"] = _pai(ev.pop("tile"))
            out.append(ev)
            return out
        out.append(self._generic(e))
        return out

    @staticmethod
    def _generic(e: Event) -> Event:
        ev = {("actor" if k == "seat" else k): v for k, v in e.items() if k != "hidden"}
        return ev


def seat_log(events: Iterable[Event], seat: int | None) -> Iterator[Event]:
    """A whole engine log (one or many hands) as ``seat`` saw it, in the seat-log shape."""
    stream = SeatStream(seat)
    for e in events:
        if e.get("type") == "simulation":
            yield {"type": "start_game", **{k: v for k, v in e.items() if k != "type"},
                   **({"seat": seat} if seat is not None else {})}
            continue
        yield from stream.feed(e)


def convert_log(src: IO[str], dst: IO[str], seat: int | None) -> int:
    """Rewrite a JSON-lines engine log as ``seat``'s seat log; returns the lines written."""
    n = 0
    events = (json.loads(line) for line in src if line.strip())
    for ev in seat_log(events, seat):
        dst.write(json.dumps(ev, ensure_ascii=False, separators=(",", ":")) + "\n")
        n += 1
    return n


__all__ = ["HIDDEN", "SeatStream", "convert_log", "seat_log"]
