"""Events: what happens in a hand, as typed records written as JSON (``docs/events.md``).

Each event type is a slotted dataclass (:class:`Draw`, :class:`Win`, …) with
``to_json()`` — the exact dict the log holds, keys in the log's order — and
:func:`from_json` — a log's dict back to its dataclass (by ``type``, through
:data:`EVENT_TYPES`). Events a plugin emits (types the engine doesn't know)
read back as :class:`PluginEvent`.

The engine builds the dataclass and hands ``to_json()`` to an
:class:`EventSink`; sinks write JSON lines, keep a list, or print for
players, and read dicts. Tiles are in compact notation and seats are
absolute (0–3). A field marked *optional* (``field(metadata=OPTIONAL)``)
is left out of the dict when it is ``None``; every other field is always
written (``null`` when it doesn't apply).

The dataclasses check nothing: the engine makes thousands a second.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import IO, Any, ClassVar, Protocol, TypeVar, cast, runtime_checkable

from ..core.kinds import EventType
from ..core.tiles import Tile, tile_code

Event = dict[str, Any]
EventSink = Callable[[Event], None]

Seat = int
TileCode = str
Hidden = dict[str, Any]  # field name → a seat, "none" or "by_seat" (mjframework.play.visibility)

OPTIONAL: Mapping[str, bool] = {"optional": True}


class EventError(ValueError):
    """A dict that is not an event of its ``type`` (missing or unknown fields)."""


@runtime_checkable
class CountingSink(Protocol):
    """A sink that reads the fields of some event types only and counts the others.

    The engine builds the frequent events — a draw and a discard every turn, the
    deal's and the wall's tile codes, plugins' calls — only for a sink that reads
    them. For a counting sink, an event of those types outside :attr:`fields_read`
    is not built: the engine calls :meth:`count` with its type instead (in the place
    the event would have gone). Every other event is sent whole, as to any sink. A
    sink that is not a ``CountingSink`` gets every event whole. (A statistics sink
    counts; a log writer, the stepper, the environment and the replay read everything.)
    """

    fields_read: frozenset[str]

    def __call__(self, event: Event) -> None: ...

    def count(self, type_: str) -> None:
        """An event of ``type_`` happened (its fields are not read, so not built)."""


class _Counting:
    """:func:`counting`'s sink: a function sink and a counter together."""

    __slots__ = ("count", "fields_read", "sink")

    def __init__(self, sink: EventSink, fields_read: frozenset[str], count: Callable[[str], None]) -> None:
        self.sink = sink
        self.fields_read = fields_read
        self.count = count

    def __call__(self, event: Event) -> None:
        self.sink(event)


def counting(sink: EventSink, fields_read: frozenset[str] | set[str],
             count: Callable[[str], None]) -> CountingSink:
    """A :class:`CountingSink` of a function ``sink`` that reads ``fields_read`` and of
    ``count``, told the type of each frequent event it does not read."""
    return _Counting(sink, frozenset(fields_read), count)


_ABSENT = object()


def counting_of(sink: EventSink | None) -> tuple[frozenset[str], Callable[[str], None]] | None:
    """``(fields_read, count)`` of a :class:`CountingSink`, else None (it reads everything).

    Asked once a hand (every table's set-up). ``isinstance(sink, CountingSink)`` — the
    reference, ``tests/test_game_records.py`` compares the two — costs ~35 µs on
    CPython 3.11 (a runtime-checkable protocol with a data member), a few percent of a
    simulated hand; this looks the members up as that check does: ``fields_read``
    present, ``count`` present and not None, the sink callable."""
    if sink is None:
        return None
    fields = getattr(sink, "fields_read", _ABSENT)
    count = getattr(sink, "count", None)
    if fields is _ABSENT or count is None or not callable(sink):
        return None
    return cast("frozenset[str]", fields), count


def tiles_out(tiles: list[Tile] | tuple[Tile, ...]) -> list[str]:
    return [tile_code(t) for t in tiles]


def make_event(type_: str, **fields: Any) -> Event:
    return {"type": type_, **fields}


@dataclass(slots=True)
class EventBase:
    """What every event has: its ``type`` (a class attribute) and the two conversions."""

    TYPE: ClassVar[str] = ""

    def to_json(self) -> Event:  # replaced per class by :func:`_event` (generated, no loops)
        raise NotImplementedError

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> EventBase:
        """The event of ``d`` (``d["type"]`` must be this class's)."""
        return from_json(d) if cls is EventBase else _build(cls, d)


E = TypeVar("E", bound=type[EventBase])

EVENT_TYPES: dict[str, type[EventBase]] = {}


def _to_json_source(cls: type[EventBase]) -> str:
    """``to_json`` for ``cls`` as straight-line code: a dict literal of the fields up to the
    first optional one, then one ``if`` per optional field (keeps the log's key order)."""
    lines = ["def to_json(self):"]
    head = [f'"type": {cls.TYPE!r}']
    tail: list[str] = []
    for f in dataclasses.fields(cls):
        if f.metadata.get("optional"):
            tail += [f"    v = self.{f.name}", f"    if v is not None: d[{f.name!r}] = v"]
        elif tail:
            tail.append(f"    d[{f.name!r}] = self.{f.name}")
        else:
            head.append(f"{f.name!r}: self.{f.name}")
    if tail:
        lines += ["    d = {" + ", ".join(head) + "}", *tail, "    return d"]
    else:
        lines.append("    return {" + ", ".join(head) + "}")
    return "\n".join(lines)


def _event(type_: str) -> Callable[[E], E]:
    """Register an event class under ``type_`` and give it its generated ``to_json``."""

    def deco(cls: E) -> E:
        cls.TYPE = str(type_)
        ns: dict[str, Any] = {}
        exec(_to_json_source(cls), ns)  # our own field names, nothing from input
        fn = ns["to_json"]
        fn.__qualname__ = f"{cls.__qualname__}.to_json"
        fn.__doc__ = "The dict the log holds for this event."
        cls.to_json = fn  # type: ignore[method-assign]
        cls._names = frozenset(f.name for f in dataclasses.fields(cls))  # type: ignore[attr-defined]
        cls._required = frozenset(  # type: ignore[attr-defined]
            f.name for f in dataclasses.fields(cls) if not f.metadata.get("optional"))
        EVENT_TYPES[cls.TYPE] = cls
        return cls

    return deco


def _build(cls: type[EventBase], d: Mapping[str, Any]) -> EventBase:
    kw = {k: v for k, v in d.items() if k != "type"}
    names: frozenset[str] = cls._names  # type: ignore[attr-defined]
    required: frozenset[str] = cls._required  # type: ignore[attr-defined]
    unknown = kw.keys() - names
    missing = required - kw.keys()
    if unknown or missing or d.get("type") != cls.TYPE:
        why = [f"unknown {sorted(unknown)}" if unknown else "",
               f"missing {sorted(missing)}" if missing else "",
               f"type {d.get('type')!r}" if d.get("type") != cls.TYPE else ""]
        raise EventError(f"not a {cls.TYPE!r} event: {', '.join(w for w in why if w)}")
    return cls(**kw)


def from_json(d: Mapping[str, Any]) -> EventBase:
    """A log's dict → its event dataclass; a type the engine doesn't know → :class:`PluginEvent`."""
    try:
        type_ = d["type"]
    except KeyError:
        raise EventError("an event needs a 'type'") from None
    cls = EVENT_TYPES.get(type_)
    if cls is None:
        return PluginEvent(type=type_, fields={k: v for k, v in d.items() if k != "type"})
    return _build(cls, d)


@dataclass(slots=True)
class PluginEvent(EventBase):
    """An event of a type the engine doesn't declare (a plugin's: ``hand.emit("birds", …)``)."""

    type: str
    fields: dict[str, Any]

    def to_json(self) -> Event:
        return {"type": self.type, **self.fields}


# -- the log's header ------------------------------------------------------------------

@_event(EventType.SIMULATION)
@dataclass(slots=True, kw_only=True)
class Simulation(EventBase):
    """The first line of an ``mj simulate`` log."""

    format: int
    ruleset: str
    seed: int
    hands: int
    hands_per_game: int
    bots: list[str]
    options: dict[str, Any] | None = field(default=None, metadata=OPTIONAL)
    preset: str | None = field(default=None, metadata=OPTIONAL)


# -- a hand's events, roughly in the order they come ------------------------------------

@_event(EventType.HAND_START)
@dataclass(slots=True, kw_only=True)
class HandStart(EventBase):
    game: int | None = field(default=None, metadata=OPTIONAL)
    hand: int
    ruleset: str
    dealer: Seat
    seed: int
    counters: dict[str, Any] | None = field(default=None, metadata=OPTIONAL)
    hand_size: int | None = field(default=None, metadata=OPTIONAL)  # `hand.size` when not 13


@_event(EventType.DICE)
@dataclass(slots=True, kw_only=True)
class Dice(EventBase):
    purpose: str
    values: list[int]
    text: str | None = field(default=None, metadata=OPTIONAL)


@_event(EventType.WALL)
@dataclass(slots=True, kw_only=True)
class Wall(EventBase):
    start_wall: Seat
    start_stack: int
    height: int
    tiles: list[TileCode | None] | None
    hidden: Hidden


@_event(EventType.DEAL)
@dataclass(slots=True, kw_only=True)
class Deal(EventBase):
    hands: list[list[TileCode] | None]
    hidden: Hidden


@_event(EventType.WILDCARD)
@dataclass(slots=True, kw_only=True)
class Wildcard(EventBase):
    indicator: TileCode | None
    wildcard: TileCode
    wildcards: list[TileCode] | None = field(default=None, metadata=OPTIONAL)


@_event(EventType.EXCHANGE)
@dataclass(slots=True, kw_only=True)
class Exchange(EventBase):
    direction: str
    passes: list[dict[str, Any]] | None
    given: list[list[TileCode] | None]
    received: list[list[TileCode] | None]
    hidden: Hidden


@_event(EventType.DECLARE)
@dataclass(slots=True, kw_only=True)
class Declare(EventBase):
    seat: Seat
    what: str
    value: str | bool | None  # (an Option.value: None never reaches a log)


@_event(EventType.FLOWER)
@dataclass(slots=True, kw_only=True)
class Flower(EventBase):
    seat: Seat
    tile: TileCode


@_event(EventType.DRAW)
@dataclass(slots=True, kw_only=True)
class Draw(EventBase):
    seat: Seat
    tile: TileCode | None
    source: str
    hidden: Hidden


@_event(EventType.DISCARD)
@dataclass(slots=True, kw_only=True)
class Discard(EventBase):
    seat: Seat
    tile: TileCode


@_event(EventType.CLAIM)
@dataclass(slots=True, kw_only=True)
class Claim(EventBase):
    seat: Seat
    kind: str
    tiles: list[TileCode]
    from_seat: Seat


@_event(EventType.KONG)
@dataclass(slots=True, kw_only=True)
class Kong(EventBase):
    seat: Seat
    kind: str
    tile: TileCode | None
    hidden: Hidden | None = field(default=None, metadata=OPTIONAL)


@_event(EventType.WIN)
@dataclass(slots=True, kw_only=True)
class Win(EventBase):
    seat: Seat
    win_by: str
    tile: TileCode
    from_seat: Seat | None
    patterns: list[str]
    points: int
    call: str | None


@_event(EventType.OPENING_WIN)
@dataclass(slots=True, kw_only=True)
class OpeningWin(EventBase):
    seat: Seat
    patterns: list[str]
    points: int
    hand: list[TileCode]


@_event(EventType.LAID_KONG)
@dataclass(slots=True, kw_only=True)
class LaidKong(EventBase):
    seat: Seat
    tile: TileCode
    name: str


@_event(EventType.BONUS_TILES)
@dataclass(slots=True, kw_only=True)
class BonusTiles(EventBase):
    name: str
    kind: str
    tiles: list[TileCode]
    seats: list[Seat | None]
    text: str


@_event(EventType.SETTLEMENT)
@dataclass(slots=True, kw_only=True)
class Settlement(EventBase):
    payments: list[int]
    items: list[dict[str, Any]]
    kind: str | None = field(default=None, metadata=OPTIONAL)


@_event(EventType.REVEAL)
@dataclass(slots=True, kw_only=True)
class Reveal(EventBase):
    seat: Seat
    kind: str
    tiles: list[TileCode]


@_event(EventType.LEAVE)
@dataclass(slots=True, kw_only=True)
class Leave(EventBase):
    seat: Seat
    reason: str
    penalty: int
    paid_to: str
    hand: str


@_event(EventType.ABANDON)
@dataclass(slots=True, kw_only=True)
class Abandon(EventBase):
    game: int | None = field(default=None, metadata=OPTIONAL)
    hand: int | None = field(default=None, metadata=OPTIONAL)
    reason: str
    plugin: str | None = field(default=None, metadata=OPTIONAL)
    engine_error: bool | None = field(default=None, metadata=OPTIONAL)
    worker_died: bool | None = field(default=None, metadata=OPTIONAL)


@_event(EventType.CALL)
@dataclass(slots=True, kw_only=True)
class Call(EventBase):
    seat: Seat | None
    text: str
    about: str


@_event(EventType.HAND_END)
@dataclass(slots=True, kw_only=True)
class HandEnd(EventBase):
    result: str
    next_dealer: Seat | None
    winners: list[Seat] | None = field(default=None, metadata=OPTIONAL)


# -- sinks -------------------------------------------------------------------------------

class JsonlWriter:
    """Writes one JSON object per line (streamed: memory stays flat)."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream

    def __call__(self, event: Event) -> None:
        self.stream.write(json.dumps(event, ensure_ascii=False, separators=(",", ":")) + "\n")


class Collector(list[Event]):
    """Keeps events in memory (tests, replays of one hand)."""

    def __call__(self, event: Event) -> None:
        self.append(event)


def fan_out(*sinks: EventSink | None) -> EventSink:
    live = [s for s in sinks if s is not None]

    def emit(event: Event) -> None:
        for s in live:
            s(event)

    return emit
