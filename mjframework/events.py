"""Events: what happens in a hand, as plain JSON-able records (``docs/events.md``).

The engine calls an :class:`EventSink` for each event; sinks write JSON
lines, keep a list, or print for players. Tiles are in compact notation and
seats are absolute (0–3).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import IO, Any

from .tiles import Tile, tile_code

Event = dict[str, Any]
EventSink = Callable[[Event], None]


def tiles_out(tiles: list[Tile] | tuple[Tile, ...]) -> list[str]:
    return [tile_code(t) for t in tiles]


def make_event(type_: str, **fields: Any) -> Event:
    return {"type": type_, **fields}


class JsonlWriter:
    """Writes one JSON object per line (streamed: memory stays flat)."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream

    def __call__(self, event: Event) -> None:
        self.stream.write(json.dumps(event, ensure_ascii=False, separators=(",", ":")) + "\n")


class Collector(list):
    """Keeps events in memory (tests, replays of one hand)."""

    def __call__(self, event: Event) -> None:
        self.append(event)


def fan_out(*sinks: EventSink | None) -> EventSink:
    live = [s for s in sinks if s is not None]

    def emit(event: Event) -> None:
        for s in live:
            s(event)

    return emit
