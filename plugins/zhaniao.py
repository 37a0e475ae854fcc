"""扎鸟 (birds): after a win, birds are flipped; each bird hits a seat and
doubles every payment that seat gives or receives.

A bird of rank r hits the seat (r − 1) mod players counted from the dealer:
with 4 players 1, 5, 9 → dealer; 2, 6 → the dealer's right; 3, 7 → opposite;
4, 8 → left. Two birds on one seat double twice. The birds themselves come
from the settlement context (``context.extra["birds"]``, tile kinds): a
conformance case gives them; in a game the plugin flips them itself
(``mj_settlement_inputs``).

**When birds are flipped in a game.** Once per *moment of settlement*, not
once per settlement nor once per hand:

- the opening declarations (起手小胡) are made together right after the deal:
  one flip serves all of them (birds apply to opening wins as to any win:
  docs/rules/changsha.md, "扎鸟"), and that single set is what "the player
  a bird hits" means when two or more players declare (the next-dealer rule);
- the win that ends the hand gets its own, fresh flip (birds are flipped
  after a win): the wall has moved on since the opening, and the opening birds
  were paid for already;
- the winners of one discard (通炮) share one flip: it is one discard and one
  moment, and the table shows one set of birds.

A flip reveals the next live tiles (``hand.peek_live``; fewer near the end of
the wall, none after a win on the last tile) without drawing them, and emits
a ``birds`` event (none when no tile is left to flip)::

    {"type": "birds", "kind": "opening" | "win", "tiles": ["2m", "6p"], "seats": [1, 1]}

``seats`` is the seat each bird hits, in the order of ``tiles``.

**Next dealer** (长沙 庄家确定 G). When two or more players win at the opening
— opening small wins, plus any winner of the hand whose patterns include one
of ``bird_dealer.also_count`` (长沙: 天胡, a win "at the opening" too) — the
player an opening bird hits deals next; with birds on different seats, the
seat with the most birds, ties going to the bird flipped first. This
overrides the other next-dealer rules of the hand, so the plugin should be
listed before other plugins that name the next dealer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from mjframework.plugin import (
    MJError,
    Settlement,
    SettlementContext,
    StashKey,
    Tile,
    TileParseError,
    hookimpl,
    parse_tiles,
    rank_of,
    tile_code,
    tile_name,
)

if TYPE_CHECKING:  # pragma: no cover
    from mjframework.plugin import HandControl, HandResult


@dataclass
class _HandBirds:
    """The birds flipped during one hand."""

    flips: dict[tuple[str, int], list[Tile]] = field(default_factory=dict)  # (kind, live left) → birds
    opening: list[Tile] | None = None


def _bird_tiles(value: object) -> list[int]:
    """Birds as tile kinds: given as kinds (the game) or tile strings (a case, the CLI)."""
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list | tuple):
        raise MJError(f"birds: expected tiles, got {value!r}")
    out: list[int] = []
    for v in value:
        if isinstance(v, int) and not isinstance(v, bool):
            out.append(v)
            continue
        try:
            out.extend(parse_tiles(str(v)))
        except TileParseError as e:
            raise MJError(f"birds: {v!r} is not a tile ({e.reason})") from None
    return out


class Plugin:
    options_schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "birds": {"type": "integer", "minimum": 0, "maximum": 8,
                      "description": "How many birds are flipped after a win."},
            "bird_dealer": {
                "type": "object",
                "additionalProperties": False,
                "description": "When enough players win at the opening, the player an opening "
                               "bird hits deals next.",
                "properties": {
                    "opening_winners": {
                        "type": "integer", "minimum": 0,
                        "description": "How many opening winners it takes (default 2; 0: never).",
                    },
                    "also_count": {
                        "type": "array", "items": {"type": "string"},
                        "description": "Win patterns whose winner counts as an opening winner "
                                       "too (e.g. 天胡).",
                    },
                },
            },
        },
    }

    def __init__(self, options: dict[str, Any]) -> None:
        self.birds = int(options.get("birds", 2))
        bd = options.get("bird_dealer") or {}
        self.dealer_min = int(bd.get("opening_winners", 2))
        self.dealer_also = frozenset(bd.get("also_count", ()))
        # One plugin instance serves every hand of a ruleset (a simulation reuses
        # it), so the birds of a hand are kept on the hand (its stash), and dropped with it.
        self._birds_key = StashKey[_HandBirds]()

    @hookimpl
    def mj_plugin_info(self) -> dict[str, Any]:
        return {"description": "扎鸟: birds double the payments of the seats they hit"}

    @hookimpl
    def mj_context_inputs(self) -> dict[str, dict[str, Any]]:
        return {"birds": {"tiles": True, "max": self.birds,
                          "description": "the birds flipped after the win (tiles)"}}

    @staticmethod
    def seat_hit(tile: int, dealer: int, players: int) -> int:
        return (dealer + rank_of(tile) - 1) % players

    # -- in a game -----------------------------------------------------------------

    @hookimpl
    def mj_settlement_inputs(self, hand: HandControl, context: SettlementContext) -> dict[str, Any] | None:
        if "birds" in context.extra or self.birds <= 0:
            return None
        state = hand.stash.setdefault(self._birds_key, _HandBirds())
        key = (context.kind, hand.live_remaining())
        if key not in state.flips:
            tiles = hand.peek_live(self.birds)
            state.flips[key] = tiles
            if context.kind == "opening" and state.opening is None:
                state.opening = tiles
            if tiles:  # none left to flip (a win on the last tile): no birds, no event
                seats = [self.seat_hit(t, context.dealer, context.players) for t in tiles]
                # `{seat:N}`: the narrator names the seat from its own point of view (下家, 对家 …).
                hits = ", ".join(f"{tile_name(t)}→{{seat:{s}}}" for t, s in zip(tiles, seats, strict=True))
                what = "起手扎鸟" if context.kind == "opening" else "扎鸟"
                hand.emit("birds", kind=context.kind, tiles=[tile_code(t) for t in tiles],
                          seats=seats, text=f"{what}  {hits}")
        return {"birds": list(state.flips[key])}

    @hookimpl
    def mj_next_dealer(self, hand: HandControl, result: HandResult) -> int | None:
        if self.dealer_min <= 0:
            return None
        state = hand.stash.get(self._birds_key)
        if state is None or not state.opening:
            return None
        winners = set(hand.opening_winners)
        winners.update(w for w, names in result.patterns.items() if self.dealer_also.intersection(names))
        if len(winners) < self.dealer_min:
            return None
        hits = [self.seat_hit(t, hand.dealer, hand.players) for t in state.opening]
        return max(hits, key=lambda s: (hits.count(s), -hits.index(s)))

    # -- every settlement ------------------------------------------------------------

    @hookimpl
    def mj_modify_settlement(self, settlement: Settlement, context: SettlementContext) -> None:
        birds = _bird_tiles(context.extra.get("birds") or ())
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
