"""Players: the interface the engine asks for decisions, and what it shows them.

At each decision the engine lists the legal :class:`Option` s; a player
returns one of them. A player returning anything else gets
:class:`IllegalDecision` (a human is asked again; a bot's hand is abandoned).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from ..core.hand import Meld
from ..core.kinds import KONG_MELDS, MELD_WORDS
from ..core.tiles import NUM_KINDS, Tile, format_tiles, tile_name
from .visibility import meld_for

if TYPE_CHECKING:  # pragma: no cover
    from .game import Game

SUIT_NAMES = {"m": "万", "p": "筒", "s": "条", "z": "字"}
KIND_NAMES = {"discard": "打", "win": "胡", "kong": "杠", "pung": "碰", "chow": "吃", "pass": "过",
              "lay_kong": "亮杠"}  # lay_kong: a `laid_kongs` kind laid aside by choice
_KONG_LABELS: dict[str, str] = {m: MELD_WORDS[m] for m in KONG_MELDS}


@dataclass(frozen=True)
class Option:
    kind: str  # discard | win | kong | pung | chow | pass | lay_kong
    tile: Tile | None = None
    tiles: tuple[Tile, ...] = ()  # the whole meld for chow / pung / kong
    meld: str | None = None  # a kong's MeldKind: concealed-kong | added-kong | kong
    # How to show a plugin's option to a player (e.g. its name in Chinese); not
    # part of the option's identity.
    text: str = field(default="", compare=False)
    # What is chosen when it is not a tile: a declared suit (``declare``), ``ready`` on a
    # discard that declares ready (报听).
    value: str | None = None

    def label(self) -> str:
        if self.text:
            return self.text + (f" {tile_name(self.tile)}" if self.tile is not None else "")
        name = KIND_NAMES.get(self.kind, self.kind)
        if self.kind in ("chow", "pung", "kong"):
            extra = _KONG_LABELS.get(self.meld or "", "")
            return f"{extra or name} {format_tiles(self.tiles, 'chinese')}"
        if self.kind == "exchange":
            return f"换 {format_tiles(self.tiles, 'chinese')}"
        if self.kind == "declare" and self.value is not None:
            return f"缺 {SUIT_NAMES.get(self.value, self.value)}"
        if self.value == "ready" and self.tile is not None:
            return f"报听 {name} {tile_name(self.tile)}"
        if self.tile is not None:
            return f"{name} {tile_name(self.tile)}"
        return name


@dataclass(frozen=True)
class Decision:
    # turn (after a draw) | claim (on a discard) | rob (on an added kong) |
    # exchange (tiles to pass before play) | declare (a declaration such as a void suit)
    kind: str
    seat: int
    options: tuple[Option, ...]
    tile: Tile | None = None  # the drawn tile (turn) or the offered tile (claim / rob)
    from_seat: int | None = None
    prompt: str = ""  # a plugin's question to show a player


def make_decision(kind: str, seat: int, options: tuple[Option, ...], tile: Tile | None = None,
                  from_seat: int | None = None) -> Decision:
    """``Decision(kind, seat, options, tile, from_seat)``, made without the frozen dataclass's
    per-field ``object.__setattr__`` calls (half the cost): the engine makes one at every turn
    and every claim. The result is an ordinary, equal :class:`Decision`."""
    d = object.__new__(Decision)
    d.__dict__.update(kind=kind, seat=seat, options=options, tile=tile, from_seat=from_seat, prompt="")
    return d


#: The ``pass`` option of every claim and rob decision (options are immutable: one is shared).
PASS = Option("pass")


class IllegalDecision(Exception):
    """A player chose something that wasn't offered."""


class PlayerLeft(Exception):
    """A player leaves the table mid-hand: a human quits or disconnects, an external
    program gives up or times out. Raised from ``decide``; the engine then applies the
    ruleset's ``leave`` rule (any other exception from ``decide`` is treated the same)."""


class TableView:
    """What one seat can see: its own tiles, everyone's melds (face-down ones masked) and discards.

    Read-only: properties return fresh tuples, never engine state.
    """

    __slots__ = ("_game", "seat")

    def __init__(self, game: Game, seat: int) -> None:
        self._game = game
        self.seat = seat

    @property
    def hand(self) -> tuple[Tile, ...]:
        return tuple(sorted(self._game.seats[self.seat].hand))

    def counts(self) -> list[int]:
        """How many of each kind the seat holds concealed: a fresh list of 34 counts, indexed
        by tile (what a bot working on count vectors wants, without sorting :attr:`hand`)."""
        return list(self._game.seats[self.seat].hand.counts[:NUM_KINDS])  # (kept as it changes)

    @property
    def melds(self) -> tuple[Meld, ...]:
        return tuple(self._game.seats[self.seat].melds)

    def melds_of(self, seat: int) -> tuple[Meld, ...]:
        """``seat``'s melds as this seat sees them: another's concealed kong lies face
        down (no tiles) until the hand's end (:func:`mjframework.play.visibility.meld_for`)."""
        g = self._game
        return tuple(meld_for(m, seat, self.seat, g.revealed) for m in g.seats[seat].melds)

    def discards_of(self, seat: int) -> tuple[Tile, ...]:
        return tuple(self._game.seats[seat].discards)

    @property
    def wildcard(self) -> Tile | None:
        return self._game.wildcard

    @property
    def wildcards(self) -> frozenset[Tile]:
        """Every wild kind of this hand (several with fixed wildcards such as 中 and 白)."""
        return self._game.wildcards

    @property
    def indicator(self) -> Tile | None:
        return self._game.indicator

    @property
    def dealer(self) -> int:
        return self._game.dealer

    @property
    def players(self) -> int:
        return self._game.ruleset.players

    @property
    def live_remaining(self) -> int:
        return self._game.wall.live_remaining()

    @property
    def ruleset_id(self) -> str:
        return self._game.ruleset.id

    def declared_of(self, seat: int) -> dict[str, object]:
        """A seat's public declarations (``void_suit``, ``ready``)."""
        st = self._game.seats[seat].state
        return {k: st[k] for k in ("void_suit", "ready") if k in st}

    def has_left(self, seat: int) -> bool:
        """The seat has won and left the hand (a ruleset that plays on after a win)."""
        return seat in self._game.out


class Player(Protocol):
    """Anything with ``decide``: bots, a terminal human, a network client."""

    def decide(self, view: TableView, decision: Decision) -> Option: ...


class Outside:
    """The player of a seat decided from outside the engine (the stepper's caller).

    The engine never calls it: a decision for such a seat is *yielded* up to whoever
    drives the hand (:meth:`mjframework.play.game.Game.steps`), which sends the
    choice back. There is one, :data:`OUTSIDE`."""

    __slots__ = ()

    def decide(self, view: TableView, decision: Decision) -> Option:
        raise RuntimeError(f"seat {decision.seat} is played from outside: drive the hand with "
                           "Game.steps() or the stepper (mjframework.play.stepper.Table)")

    def __repr__(self) -> str:
        return "OUTSIDE"


OUTSIDE = Outside()
"""The stand-in for every seat a stepper's caller plays."""
