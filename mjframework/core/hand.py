"""A hand to judge: concealed tiles, exposed melds, the winning tile and its context.

:func:`check_hand` rejects hands that can't exist (wrong tile count for the
melds given, five of a tile, a meld that isn't a meld, a wildcard in a meld)
with a :class:`~mjframework.core.errors.HandError` saying what is wrong.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .errors import HandError
from .kinds import CLAIMED_MELDS, KONG_MELDS, MeldKind
from .tiles import (
    HONOR_BASE as WIND_BASE,
)
from .tiles import (
    Tile,
    TileParseError,
    counts_of,
    format_tiles,
    is_flower,
    is_honor,
    parse_tiles,
    tile_code,
    tile_name,
)

if TYPE_CHECKING:  # only annotations: the ruleset model (mjframework.rules.model) sits above hands
    from ..rules.model import Ruleset

# Win contexts and flags (the conformance format uses the same words).
WIN_BY = ("self_draw", "discard", "robbed_kong")
FLAGS = ("after_kong", "open_kong", "last_tile", "first_turn", "no_claims_yet", "after_kong_discard",
         "last_copy", "after_flower")

# Plain str values: ``Meld.claimed`` / ``is_kong`` run in the scorer's hot path.
CLAIMED_KINDS = tuple(m.value for m in CLAIMED_MELDS)
KONG_KINDS = tuple(m.value for m in KONG_MELDS)
# Settlement names of kong kinds (scoring.kongs keys).
KONG_PAYMENT_KEY: dict[str, str] = {m: m.payment_key for m in KONG_MELDS}


@dataclass(frozen=True)
class Meld:
    """An exposed meld (a concealed kong is declared, so it is one too)."""

    kind: str  # a MeldKind: chow | pung | kong | added-kong | concealed-kong
    tiles: tuple[Tile, ...]
    from_seat: int | None = None

    @property
    def claimed(self) -> bool:
        return self.kind in CLAIMED_KINDS

    @property
    def is_kong(self) -> bool:
        return self.kind in KONG_KINDS

    def __str__(self) -> str:
        s = f"{self.kind} {format_tiles(self.tiles)}"
        return s + (f" from {self.from_seat}" if self.from_seat is not None else "")


def parse_meld(text: str) -> Meld:
    """``chow 345p``, ``pung 5s``, ``kong 5s from 2``, ``added-kong 5s``, ``concealed-kong 3m``."""
    parts = text.split()
    if not parts:
        raise HandError("empty meld")
    kind = parts[0]
    if kind not in tuple(MeldKind):
        raise HandError(f"meld {text!r}: unknown kind {kind!r} ({', '.join(MeldKind)})")
    from_seat = None
    rest = parts[1:]
    if len(rest) >= 2 and rest[-2] == "from":
        try:
            from_seat = int(rest[-1])
        except ValueError:
            raise HandError(f"meld {text!r}: 'from' needs a seat number 0–3") from None
        if not 0 <= from_seat <= 3:
            raise HandError(f"meld {text!r}: seat {from_seat} is not 0–3")
        if kind == MeldKind.CONCEALED_KONG:
            raise HandError(f"meld {text!r}: a concealed kong is made of the player's own tiles; "
                            "it comes from no one (drop 'from')")
        rest = rest[:-2]
    try:
        tiles = parse_tiles(" ".join(rest))
    except TileParseError as e:
        raise HandError(f"meld {text!r}: {e.reason} (column {e.position + 1} of the tiles)") from None
    size = 3 if kind in (MeldKind.CHOW, MeldKind.PUNG) else 4
    if kind != MeldKind.CHOW and len(tiles) == 1:
        tiles = tiles * size
    if len(tiles) != size:
        raise HandError(f"meld {text!r}: a {kind} has {size} tiles, got {len(tiles)}")
    t = sorted(tiles)
    if kind == MeldKind.CHOW:
        if is_honor(t[0]) or t[0] // 9 != t[2] // 9 or t[1] != t[0] + 1 or t[2] != t[0] + 2:
            raise HandError(f"meld {text!r}: a chow is three consecutive tiles of one suit")
    elif len(set(t)) != 1:
        raise HandError(f"meld {text!r}: a {kind} is {size} identical tiles")
    return Meld(kind, tuple(t), from_seat)


@dataclass(frozen=True)
class WinContext:
    """How the winning tile came, relative to the dealer (seat 0 unless ``dealer`` says)."""

    seat: int = 0
    win_by: str = "self_draw"
    discarder: int | None = None
    flags: frozenset[str] = frozenset()
    dealer: int = 0
    extra: dict[str, Any] = field(default_factory=dict)
    # The winner's per-seat state in play: declarations (``void_suit``, ``ready``), ``wins``
    # made earlier in the hand, and what plugins stored (``HandControl.set_seat_state``);
    # read by patterns' ``when: {seat_state: …}``.
    seat_state: Mapping[str, Any] = field(default_factory=dict)
    # The seats still in the hand (a ruleset where winners leave): only they pay. None: everyone.
    in_play: frozenset[int] | None = None
    # The winner's seat wind and the prevalent (round) wind, as tiles (东 … 北). None: the seat
    # wind follows the seat's place after the dealer (the dealer is 东), the prevalent wind is 东.
    seat_wind: Tile | None = None
    prevalent_wind: Tile | None = None
    # Bonus tiles (flowers) the winner set aside this hand: the `flowers` measure.
    flowers: int = 0
    # Which flowers, where known (play knows; a case may name them): `seat_flowers` and
    # `flower_sets` read them. Empty: only the count is known (those measures are then 0).
    flower_tiles: tuple[Tile, ...] = ()

    def winds(self, players: int = 4) -> dict[str, Tile]:
        """The ``seat`` and ``prevalent`` wind tiles of this win (defaults filled in)."""
        seat = self.seat_wind
        if seat is None:
            seat = WIND_BASE + (self.seat - self.dealer) % players
        prevalent = self.prevalent_wind if self.prevalent_wind is not None else WIND_BASE
        return {"seat": seat, "prevalent": prevalent}


@dataclass(frozen=True)
class Hand:
    concealed: tuple[Tile, ...]  # held before the winning tile
    melds: tuple[Meld, ...]
    win_tile: Tile | None  # None for an opening (dealt) hand

    @property
    def all_tiles(self) -> list[Tile]:
        out = list(self.concealed)
        if self.win_tile is not None:
            out.append(self.win_tile)
        for m in self.melds:
            out.extend(m.tiles)
        return out


def make_hand(hand: str | list[Tile], melds: list[str] | list[Meld] | None = None,
              win_tile: str | Tile | None = None) -> Hand:
    """Build a :class:`Hand` from strings (or tiles/melds)."""
    try:
        concealed = parse_tiles(hand) if isinstance(hand, str) else list(hand)
    except TileParseError as e:
        raise HandError(f"hand {hand!r}: {e.reason} at column {e.position + 1}") from None
    ms = [m if isinstance(m, Meld) else parse_meld(m) for m in (melds or [])]
    wt: Tile | None
    if isinstance(win_tile, str):
        try:
            tiles = parse_tiles(win_tile)
        except TileParseError as e:
            raise HandError(f"winning tile {win_tile!r}: {e.reason}") from None
        if len(tiles) != 1:
            raise HandError(f"winning tile {win_tile!r}: give exactly one tile")
        wt = tiles[0]
    else:
        wt = win_tile
    return Hand(tuple(concealed), tuple(ms), wt)


def check_hand(hand: Hand, ruleset: Ruleset, wildcard: Tile | None, *, opening: bool = False,
               opening_size: int | None = None) -> None:
    """Raise :class:`HandError` if ``hand`` can't exist under ``ruleset``.

    A winning hand holds ``hand.size + 1`` tiles (14 by default), one more per kong; a dealt
    hand (``opening``) ``opening_size`` tiles (the dealer's ``hand.size + 1`` unless given).
    """
    size = ruleset.hand.size
    whole = size + 1
    if opening_size is None:
        opening_size = whole
    ts = ruleset.tileset
    tiles = hand.all_tiles
    try:
        ts.check_hand(tiles, "hand")
    except ValueError as e:
        raise HandError(str(e)) from None
    if opening:
        if hand.melds or len(hand.concealed) != opening_size:
            raise HandError(f"a dealt hand for this seat has {opening_size} tiles, "
                            f"got {len(hand.concealed)}")
        return
    if not hand.melds and len(tiles) == whole:
        return  # a concealed hand of the right size: the rest checks melds
    kongs = sum(m.is_kong for m in hand.melds)
    total = len(tiles)
    if total != whole + kongs:
        what = f"{len(hand.concealed)} in hand + 1 winning tile"
        if hand.melds:
            what += f" + {total - len(hand.concealed) - 1} in {len(hand.melds)} meld(s)"
        raise HandError(f"a winning hand has {whole} tiles plus one per kong ({whole + kongs} here); "
                        f"got {total} ({what})")
    if len(hand.melds) > size // 3:
        raise HandError(f"{len(hand.melds)} melds: a hand has at most {size // 3}")
    rule = ruleset.wildcard
    wilds = rule.kinds(wildcard) if rule is not None else frozenset()
    if wildcard is not None and rule is None:
        wilds = frozenset((wildcard,))
    for m in hand.melds:
        if rule is not None and rule.may_meld:
            break
        for w in sorted(wilds):
            if w in m.tiles:
                raise HandError(f"meld {m}: {tile_name(w)} is a wildcard, and wildcards "
                                "are never claimed or melded in this ruleset")
    for m in hand.melds:
        if m.kind == "chow" and not ruleset.claims.chow:
            raise HandError(f"meld {m}: this ruleset has no 吃 (chow)")


def parse_flowers(value: Any) -> tuple[int, tuple[Tile, ...]]:
    """Flowers set aside as a count (``2``, ``"2"``) or by name (``"1f 5f"``, ``"春梅"``):
    ``(count, tiles)``, the tiles empty when only the count is given."""
    if isinstance(value, bool):
        raise HandError(f"flowers {value!r}: a number or flower tiles (1f–8f: 春夏秋冬 梅兰竹菊)")
    if isinstance(value, int) or (isinstance(value, str) and value.strip().isdigit()):
        n = int(value)
        if n < 0:
            raise HandError(f"flowers {n}: not negative")
        return n, ()
    if not isinstance(value, str):
        raise HandError(f"flowers {value!r}: a number or flower tiles (1f–8f: 春夏秋冬 梅兰竹菊)")
    try:
        tiles = parse_tiles(value)
    except TileParseError as e:
        raise HandError(f"flowers {value!r}: {e.reason} at column {e.position + 1}") from None
    if not all(is_flower(t) for t in tiles) or len(set(tiles)) != len(tiles):
        raise HandError(f"flowers {value!r}: each a different flower (1f–8f: 春夏秋冬 梅兰竹菊)")
    return len(tiles), tuple(sorted(tiles))


def check_context(ctx: WinContext, players: int, flags: tuple[str, ...] = ()) -> None:
    """Raise :class:`HandError` for an impossible context; ``flags``: extra flags the ruleset declares."""
    if ctx.win_by not in WIN_BY:
        raise HandError(f"win_by {ctx.win_by!r}: one of {', '.join(WIN_BY)}")
    if not 0 <= ctx.seat < players:
        raise HandError(f"seat {ctx.seat} is not 0–{players - 1}")
    if ctx.win_by != "self_draw":
        if ctx.discarder is None:
            raise HandError(f"win_by {ctx.win_by} needs the discarder's seat")
        if ctx.discarder == ctx.seat or not 0 <= ctx.discarder < players:
            raise HandError(f"discarder {ctx.discarder} must be another seat 0–{players - 1}")
    for what, w in (("seat_wind", ctx.seat_wind), ("prevalent_wind", ctx.prevalent_wind)):
        if w is not None and not WIND_BASE <= w < WIND_BASE + 4:
            raise HandError(f"{what} {w!r}: a wind tile (东 南 西 北)")
    if ctx.flowers < 0:
        raise HandError(f"flowers {ctx.flowers}: not negative")
    if ctx.flower_tiles:
        ft = ctx.flower_tiles
        if not all(is_flower(t) for t in ft) or len(set(ft)) != len(ft):
            raise HandError("flower tiles: each a different flower (1f–8f: 春夏秋冬 梅兰竹菊)")
        if len(ft) != ctx.flowers:
            raise HandError(f"{len(ft)} flower tiles but flowers {ctx.flowers}: give the same number")
    unknown = set(ctx.flags) - set(FLAGS) - set(flags) if ctx.flags else None
    if unknown:
        raise HandError(f"unknown flag(s) {', '.join(sorted(unknown))}; known: {', '.join((*FLAGS, *flags))}")


__all__ = ["Hand", "Meld", "WinContext", "check_context", "check_hand", "counts_of", "make_hand",
           "parse_flowers", "parse_meld", "tile_code"]
