"""Hidden information: what one seat may see of an event or a meld.

The log keeps the truth (replays and checks need it); a *view* masks what a
seat cannot see. An event says what is hidden in its optional ``hidden``
field — field name → who sees that field:

- a seat number (``{"tile": 2}``): that seat only (a draw, the tile of one's
  own concealed kong);
- ``"none"`` (``{"tiles": "none"}``): nobody (the face-down wall);
- ``"by_seat"`` (``{"hands": "by_seat"}``): the field is a list indexed by
  seat and item *i* is seen by seat *i* only (the deal).

An event without ``hidden`` is seen whole by everyone. What stays hidden is
told later by a ``reveal`` event where the rules show it (concealed kongs, at
the hand's end). :func:`view_for` gives a seat's copy of an event, with the
fields it may not see set to ``None`` (``hidden`` kept, so a reader knows
which fields were masked); ``seat=None`` is the whole truth (a referee or a
spectator who watches every hand).

Melds: a concealed kong (``concealed-kong``) lies face down until it is
revealed; :func:`meld_for` shows it to others as a meld of that kind with no
tiles (``tiles == ()``). :class:`~mjframework.play.players.TableView` applies it.

This one module is the only place that decides visibility, so every view —
``mj play``'s table and narration, a learning agent's observation, another
UI — masks the same way.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from ..core.hand import Meld
from ..core.kinds import MeldKind

Event = dict[str, Any]

NOBODY = "none"
BY_SEAT = "by_seat"
FACE_DOWN_KINDS = frozenset({MeldKind.CONCEALED_KONG})


def can_see(who: Any, seat: int | None) -> bool:
    """Does ``seat`` see a field whose ``hidden`` entry is ``who`` (not ``by_seat``)?"""
    if seat is None:
        return True
    if who == NOBODY:
        return False
    return isinstance(who, int) and who == seat


def view_for(event: Event, seat: int | None) -> Event:
    """The event as ``seat`` sees it (``None``: the whole truth).

    Returns the event itself when nothing is hidden from ``seat``, otherwise
    a shallow copy with the masked fields (or list items) set to ``None``.
    """
    hidden = event.get("hidden")
    if not hidden or seat is None:
        return event
    out: Event | None = None
    for name, who in hidden.items():
        if name not in event:
            continue
        if who == BY_SEAT:
            value = event[name]
            if not isinstance(value, list):
                continue
            masked: Any = [v if i == seat else None for i, v in enumerate(value)]
            if masked == value:
                continue
        elif can_see(who, seat):
            continue
        else:
            masked = None
        if out is None:
            out = dict(event)
        out[name] = masked
    return event if out is None else out


def log_for(events: Iterable[Event], seat: int | None) -> Iterator[Event]:
    """A whole log (or one hand's events) as ``seat`` sees it."""
    for e in events:
        yield view_for(e, seat)


def is_face_down(meld: Meld) -> bool:
    return meld.kind in FACE_DOWN_KINDS


def meld_for(meld: Meld, owner: int, seat: int | None, revealed: bool) -> Meld:
    """``owner``'s meld as ``seat`` sees it: a face-down kong shows no tiles to others
    until it is revealed."""
    if revealed or seat is None or seat == owner or not is_face_down(meld):
        return meld
    return Meld(meld.kind, (), meld.from_seat)


__all__ = ["BY_SEAT", "NOBODY", "can_see", "is_face_down", "log_for", "meld_for", "view_for"]
