"""扎鸟 (birds): after a win, birds are flipped; each bird hits a seat and
doubles every payment that seat gives or receives.

A bird of rank r hits the seat (r − 1) mod players counted from the dealer:
with 4 players 1, 5, 9 → dealer; 2, 6 → the dealer's right; 3, 7 → opposite;
4, 8 → left. Two birds on one seat double twice. The birds themselves come
from the settlement context (``context.extra["birds"]``, tile kinds): the game
engine flips them from the wall, a conformance case gives them.
"""

from __future__ import annotations

from typing import Any, ClassVar

from mjframework.hookspecs import hookimpl
from mjframework.settlement import Settlement, SettlementContext
from mjframework.tiles import rank_of


class Plugin:
    options_schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "birds": {"type": "integer", "minimum": 0, "maximum": 8,
                      "description": "How many birds are flipped after a win."},
        },
    }

    def __init__(self, options: dict[str, Any]) -> None:
        self.birds = int(options.get("birds", 2))

    @hookimpl
    def mj_plugin_info(self) -> dict[str, Any]:
        return {"description": "扎鸟: birds double the payments of the seats they hit"}

    @staticmethod
    def seat_hit(tile: int, dealer: int, players: int) -> int:
        return (dealer + rank_of(tile) - 1) % players

    @hookimpl
    def mj_modify_settlement(self, settlement: Settlement, context: SettlementContext) -> None:
        birds = context.extra.get("birds") or ()
        if not birds:
            return
        hits = [0] * context.players
        for tile in birds:
            hits[self.seat_hit(tile, context.dealer, context.players)] += 1
        for p in settlement.payments:
            if p.payee is None:
                continue
            factor = 2 ** (hits[p.payer] + hits[p.payee])
            if factor > 1:
                p.amount *= factor
                p.reason += f" ×{factor} 鸟"
