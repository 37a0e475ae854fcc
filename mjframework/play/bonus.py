"""Turning up bonus tiles (birds, horses) in a game: the ruleset's ``bonus_tiles``.

Once per *moment of settlement*: all the opening declarations share one set,
and the winners of one discard share one; a moment is told apart by
the kind of settlement and the live tiles left. The tiles are looked at, never
drawn (the next live tiles, or the next at the kong end); fewer near the end
of the wall, none (and no event) when none is left. Which seat each tile hits
and what hits do to the payments: :mod:`mjframework.settle.bonus`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from ..core.hand import WinContext
from ..core.tiles import Tile, tile_code, tile_name
from ..rules.model import BonusTiles
from ..settle import bonus
from . import events as evt

if TYPE_CHECKING:  # pragma: no cover
    from .wall import Wall


class BonusFlips:
    """The bonus tiles turned up during one hand."""

    def __init__(self, rule: BonusTiles, players: int, wall: Wall,
                 send: Callable[[evt.EventBase], None]) -> None:
        self.rule = rule
        self.players = players
        self._peek = wall.peek_end if rule.source == "end" else wall.peek_live
        self._remaining = wall.live_remaining
        self._send = send
        self._flips: dict[tuple[str, int, int], list[Tile]] = {}
        # moment (win, opening) → the seats hit by its first set turned up (``deals_next``)
        self.first_seats: dict[str, list[int | None]] = {}

    def inputs(self, kind: str, ctx: WinContext, patterns: Sequence[str], held: Sequence[Tile],
               wildcards: frozenset[Tile]) -> dict[str, list[Tile]]:
        """The settlement context's bonus tiles for a settlement of ``kind`` (win, opening) of the
        winner ``ctx.seat`` holding ``held`` and scoring ``patterns``: turned up once per moment.
        The event's ``seats`` are counted for the first winner served (they differ between
        winners only when the tiles count from the winner)."""
        if kind not in self.rule.at:
            return {}
        count = bonus.count_for(self.rule, held, patterns, wildcards)
        if count <= 0:
            return {}
        dealer, winner = ctx.dealer, ctx.seat
        key = (kind, self._remaining(), count)
        tiles = self._flips.get(key)
        if tiles is None:
            tiles = self._flips[key] = self._peek(count)
            seats = bonus.seats_hit(self.rule, tiles, dealer=dealer, winner=winner, players=self.players)
            self.first_seats.setdefault(kind, seats)
            if tiles:
                self._tell(kind, tiles, seats)
        return {self.rule.key: list(tiles)}

    def _tell(self, kind: str, tiles: list[Tile], seats: list[int | None]) -> None:
        """The event of a set turned up: ``bonus_tiles`` with the name, or of the rule's own
        ``key`` (the type says what they are), its text led by ``says`` or the name."""
        # `{seat:N}`: the narrator names the seat from its reader's point of view (下家, 对家 …).
        hits = ", ".join(f"{tile_name(t)}→{{seat:{s}}}" if s is not None else tile_name(t)
                         for t, s in zip(tiles, seats, strict=True))
        text = f"{self.rule.says.get(kind, self.rule.name)}  {hits}"
        codes = [tile_code(t) for t in tiles]
        if self.rule.key == bonus.CONTEXT_KEY:
            self._send(evt.BonusTiles(name=self.rule.name, kind=kind, tiles=codes, seats=seats, text=text))
        else:
            self._send(evt.PluginEvent(self.rule.key, {"kind": kind, "tiles": codes, "seats": seats,
                                                       "text": text}))

    def next_dealer(self, opening_winners: Sequence[int], winners: Sequence[int],
                    patterns: Mapping[int, Sequence[str]]) -> int | None:
        """The seat that deals next by the rule's ``deals_next`` (None: no such rule, or it
        doesn't apply to this hand): ``opening_winners`` declared at the opening; ``winners``
        won the hand, scoring ``patterns`` (seat → names)."""
        dn = self.rule.deals_next
        if dn is None:
            return None
        seats = self.first_seats.get(dn.at)
        if dn.at == "opening":
            won = set(opening_winners) | {w for w, names in patterns.items() if dn.also.intersection(names)}
        else:
            won = set(winners)
        if not seats or len(won) < dn.winners:
            return None
        return bonus.most_hit(seats)
