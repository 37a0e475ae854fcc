"""What a plugin's hook returns to end a turn or the hand: typed results the engine acts on.

A plugin carrying out its own option (``mj_handle_option``) or its own
procedure for the last tile (``mj_last_tile``) says how the turn or the hand
goes on by *returning* one of these; the engine acts on it once the hook has
returned (settles a win, ends the hand drawn, offers a discard to the
table), so nothing unwinds through the plugin's frame.

=================================  ==============================================================
``Discard(tile, flags)``           the seat discards ``tile``; the others may claim it, ``flags``
                                   added to their win context (e.g. ``after_kong_discard``)
``Continue(tile, flags)``          the seat goes on with its turn holding ``tile`` (just drawn)
``Win(seats, tile, win_by, …)``    the win(s) are settled and the hand ends (or goes on, where
                                   the ruleset plays on after a win)
``EndDrawn(next_dealer)``          the hand ends drawn (流局)
``Ask(seat, options, point, …)``   a decision point: the seat is asked, the answer goes to the
                                   plugin's ``mj_answer``, which returns one of these (or None)
=================================  ==============================================================

Until the next release ``mj_handle_option`` may still return the old tuples
``("discard", tile, flags)`` / ``("continue", tile, flags)``: they work, with a
:class:`DeprecationWarning`.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from ..core.tiles import Tile
from .players import Decision, Option


def _flag_tuple(flags: Sequence[str]) -> tuple[str, ...]:
    return (flags,) if isinstance(flags, str) else tuple(flags)


@dataclass(frozen=True)
class Discard:
    """The seat discards ``tile``; a win on it carries ``flags`` (e.g. ``after_kong_discard``)."""

    tile: Tile
    flags: Sequence[str] = ()  # kept as a tuple

    def __post_init__(self) -> None:
        object.__setattr__(self, "flags", _flag_tuple(self.flags))


@dataclass(frozen=True)
class Continue:
    """The seat goes on with its turn holding ``tile`` (the tile it just drew), with ``flags``
    in its win context (e.g. ``after_kong``). Not an answer to a claim."""

    tile: Tile
    flags: Sequence[str] = ()  # kept as a tuple

    def __post_init__(self) -> None:
        object.__setattr__(self, "flags", _flag_tuple(self.flags))


@dataclass(frozen=True)
class Win:
    """Settle the win of ``seats`` on ``tile`` and end the hand.

    ``win_by`` is ``self_draw`` (the tile is held already), ``discard`` or
    ``robbed_kong`` (``discarder``: who gave the tile). ``flags`` go into each
    winner's win context: one list for all, or seat → flags.
    """

    seats: Sequence[int]  # kept as a tuple
    tile: Tile
    win_by: str
    discarder: int | None = None
    flags: Sequence[str] | Mapping[int, Sequence[str]] = field(default=())  # kept as tuples

    def __post_init__(self) -> None:
        object.__setattr__(self, "seats", tuple(self.seats))
        flags = self.flags
        if isinstance(flags, Mapping):
            object.__setattr__(self, "flags", {int(k): _flag_tuple(v) for k, v in flags.items()})
        else:
            object.__setattr__(self, "flags", _flag_tuple(flags))

    def flag_sets(self) -> set[str] | dict[int, set[str]]:
        """The flags as the engine's settlement takes them."""
        if isinstance(self.flags, Mapping):
            return {k: set(v) for k, v in self.flags.items()}
        return set(self.flags)


@dataclass(frozen=True)
class EndDrawn:
    """End the hand drawn (流局); ``next_dealer`` overrides the ruleset's rule."""

    next_dealer: int | None = None


@dataclass(frozen=True)
class Ask:
    """A plugin's *decision point*: ``seat`` is to choose among ``options``.

    A hook that needs a player's choice returns an ``Ask`` instead of waiting for
    the answer; the engine puts the decision to the seat (however the hand is
    driven: bots, the stepper, the environment, a browser) and hands the chosen
    option to ``mj_answer(hand, ask, choice)``, which returns what comes next:
    another ``Ask``, the hook's own result (e.g. a :class:`Win`), or ``None``.
    ``point`` names the question (``"<plugin>.<name>"``, so each plugin answers only
    its own points) and ``data`` carries whatever the plugin needs to go on.
    ``kind``, ``tile``, ``from_seat`` and ``prompt`` are the decision's, as players see
    it. A single option (for a kind other than ``turn``) is taken without asking.
    """

    seat: int
    options: Sequence[Option]  # kept as a tuple
    point: str
    kind: str = "plugin"
    tile: Tile | None = None
    from_seat: int | None = None
    prompt: str = ""
    data: Any = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "options", tuple(self.options))

    def decision(self) -> Decision:
        """The decision the seat is asked."""
        return Decision(self.kind, self.seat, tuple(self.options), self.tile, self.from_seat,
                        self.prompt)


HandEnd: TypeAlias = Win | EndDrawn
"""What ends the hand."""

OptionOutcome: TypeAlias = Discard | Continue | Win | EndDrawn
"""What ``mj_handle_option`` returns (``None``: not the plugin's option)."""

_OUTCOMES = (Discard, Continue, Win, EndDrawn)


def option_outcome(value: object) -> OptionOutcome | None:
    """``mj_handle_option``'s result as a typed outcome (``None``: no plugin handled it).

    The old tuples are converted with a :class:`DeprecationWarning`; anything else
    is a ``TypeError``.
    """
    if value is None or isinstance(value, _OUTCOMES):
        return value
    if (isinstance(value, tuple) and len(value) == 3 and value[0] in ("discard", "continue")
            and isinstance(value[1], int)):
        kind, tile, flags = value
        new = "Discard" if kind == "discard" else "Continue"
        warnings.warn(
            f"mj_handle_option returned the tuple ({kind!r}, tile, flags); return "
            f"mjframework.plugin.{new}(tile, flags) instead (the tuples go in the next release)",
            DeprecationWarning, stacklevel=2)
        return (Discard if kind == "discard" else Continue)(tile, tuple(flags or ()))
    raise TypeError(f"mj_handle_option returned {value!r}: expected Discard, Continue, Win, "
                    "EndDrawn or None")


__all__ = ["Ask", "Continue", "Discard", "EndDrawn", "HandEnd", "OptionOutcome", "Win", "option_outcome"]
