"""Tiles moving: draws from either end of the wall (flowers set aside and replaced)
and discards, each with its event."""

from __future__ import annotations

from ...core.tiles import FLOWER_BASE, Tile, tile_code
from .. import events as evt
from .state import NO_FLAGS, Discarded
from .wins import WinChecks


class Moves(WinChecks):
    """Draws and discards (see the module's docstring)."""

    # (seat, tile) of the last tile given that replaced a flower (the turn's ``after_flower``)
    flower_replaced: tuple[int, Tile] | None = None

    def draw(self, seat: int, source: str) -> Tile | None:
        """Give ``seat`` the next tile from the live end (``wall``) or the kong end (``kong``)."""
        return self.give(seat, self.wall.take_live() if source == "wall" else self.wall.take_kong(),
                         source)

    def give(self, seat: int, t: Tile | None, source: str) -> Tile | None:
        """A tile taken from the wall goes to ``seat`` (a ``draw`` event); None passes through.
        A flower (``tiles.flowers``) is then set aside (a ``flower`` event) and replaced from
        the kong end (a ``draw`` with ``source: flower``); the replacement is what was drawn."""
        if t is not None:
            self.seats[seat].hand.append(t)
            self.last_drawer = seat
            self.flower_replaced = (seat, t) if source == "flower" else None
            if source != "flower":
                self.replacement_seat = seat if source == "kong" else None
            if source != "wall" and self.wall.live_remaining() == 0:
                self.last_tile_replacement = seat
            if "draw" in self._counted:
                self._count("draw")
            else:
                self.send(evt.Draw(seat=seat, tile=tile_code(t), source=source, hidden={"tile": seat}))
            if t >= FLOWER_BASE:  # (is_flower, inline: a draw every turn)
                self.seats[seat].hand.remove(t)
                self._set_flower_aside(seat, t)
                return self.give(seat, self.wall.take_kong(), "flower")
            if self.laid_on_sight and t in self.laid_on_sight:  # laid aside as a kong, replaced
                self._lay_kong(seat, t)
                return self.give(seat, self.wall.take_kong(), "kong")
        return t

    def _set_flower_aside(self, seat: int, t: Tile) -> None:
        self.seats[seat].flowers.append(t)
        self.send(evt.Flower(seat=seat, tile=tile_code(t)))

    def _lay_kong(self, seat: int, t: Tile) -> None:
        """A `laid_kongs` kind leaves the hand as a kong: the seat's count (seat state) goes up."""
        s = self.seats[seat]
        s.hand.remove(t)
        name = self.laid[t]
        s.state[name] = s.state.get(name, 0) + 1
        self.send(evt.LaidKong(seat=seat, tile=tile_code(t), name=name))

    def _discard(self, seat: int, tile: Tile, claim_flags: frozenset[str] = NO_FLAGS) -> Discarded:
        """``seat`` discards ``tile``: the others may claim it (a win on it carries ``claim_flags``)."""
        s = self.seats[seat]
        s.hand.remove(tile)
        s.discards.append(tile)
        self.replacement_seat = None
        if "discard" in self._counted:
            self._count("discard")
        else:
            self.send(evt.Discard(seat=seat, tile=tile_code(tile)))
        return Discarded(seat, tile, claim_flags)
