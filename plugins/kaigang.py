"""开杠 (open kong): a ready player kongs and draws from the dice-counted stack.

A player holding four identical tiles (or a pung and the fourth) may 补 (the
engine's ordinary kong, offered as ``kong``) or, when ready after setting the
kong aside, 开杠 (docs/rules/changsha.md, "开杠"), offered at a turn as
``Option("open_kong", tile, (tile,) * 4)``:

1. the kong is made (an added kong may first be robbed: 抢杠胡, when the
   ruleset allows robbing and someone can win on the tile);
2. the dice are rolled (``dice`` of them, event ``dice`` purpose
   ``open_kong``) and the tile is taken ``sum`` stacks back from the last
   stack — its top tile, the bottom one if the top is gone (a ``draw`` event,
   source ``kong``). If fewer stacks are left than the sum (or that stack is
   gone), the farthest stack that still has a tile is taken, counting fewer;
   if none does, the next live tile;
3. the hand is locked (it may only win, or discard what it draws);
4. a player who can win on the tile wins by self-draw with ``open_kong`` and
   ``after_kong`` (「杠上开花」); otherwise the tile is discarded at once and a
   win on it carries ``after_kong_discard`` (「杠上炮」). Neither carries
   ``last_tile``: a draw from the kong end that takes the wall's last tile
   leaves the hand without a 海底.

"Ready": some tile would complete the hand left after the kong, as the
ruleset's own evaluator judges it (see :func:`waits_after_kong`); with
``ready_only: false`` 开杠 is offered with every kong.

点杠开杠: a ready player holding three of a discarded tile may also open the
kong on the discard. Where the engine offers the claimed kong (点杠) it offers
``Option("open_kong", tile, (tile,) * 4, meld="kong")`` beside it, ranked as a
kong among the claims (a win still comes first); the claimed kong can't be
robbed (robbing is for added kongs only, as before). Steps 2–4 follow.

Events: ``open_kong`` {seat, tile, kind: concealed | added | claimed} before
the engine's ``kong`` (or, claimed, its ``claim`` of kind ``kong``), then
``dice`` (purpose ``open_kong``) and ``draw`` (source ``kong``), then the
engine's ``discard`` or ``win``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from mjframework.plugin import (
    Ask,
    Decision,
    Discard,
    EndDrawn,
    Meld,
    Option,
    OptionOutcome,
    Tile,
    Win,
    hookimpl,
    only_for,
    tile_code,
    tile_name,
)

if TYPE_CHECKING:  # pragma: no cover
    from mjframework.plugin import HandControl

OPEN_KONG = "open_kong"
ROB_POINT = "kaigang.rob"  # the decision point: rob the opened added kong, or pass
WIN_FLAGS = ("open_kong", "after_kong")


def waits_after_kong(hand: HandControl, seat: int, tile: Tile,
                     claimed_from: int | None = None) -> list[Tile]:
    """The tiles that would complete ``seat``'s hand once ``tile`` is set aside as a kong
    (with ``claimed_from``: three held and the fourth claimed from that seat's discard)."""
    held = list(hand.hand_of(seat))
    melds = list(hand.melds_of(seat))
    if claimed_from is not None:
        if held.count(tile) < 3:
            return []
        for _ in range(3):
            held.remove(tile)
        melds.append(Meld("kong", (tile,) * 4, claimed_from))
    elif held.count(tile) >= 4:
        for _ in range(4):
            held.remove(tile)
        melds.append(Meld("concealed-kong", (tile,) * 4))
    else:
        i = next((i for i, m in enumerate(melds) if m.kind == "pung" and m.tiles[0] == tile), None)
        if i is None or tile not in held:
            return []
        held.remove(tile)
        melds[i] = Meld("added-kong", (tile,) * 4, melds[i].from_seat)
    seen = held + [t for m in melds for t in m.tiles]
    return [x for x in hand.waits(seat, held, melds, flags=WIN_FLAGS)
            if seen.count(x) < 4 and x != hand.wildcard]


class Plugin:
    # The option kinds this plugin offers players (kind → carries a tile): the
    # learning-agent environment gives each a fixed action (docs/agents.md).
    option_kinds: ClassVar[dict[str, bool]] = {OPEN_KONG: True}
    options_schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "dice": {"type": "integer", "minimum": 1, "maximum": 4,
                     "description": "Dice rolled to count the stacks back from the last one (2)."},
            "ready_only": {"type": "boolean",
                           "description": "Offer 开杠 only to a player who is ready after the kong "
                                          "(true, the default)."},
        },
    }

    def __init__(self, options: dict[str, Any]) -> None:
        self.dice = int(options.get("dice", 2))
        self.ready_only = bool(options.get("ready_only", True))

    @hookimpl
    def mj_plugin_info(self) -> dict[str, Any]:
        return {"description": "开杠: a ready player's kong draws from the dice-counted stack; "
                               "杠上开花 or discarded at once (杠上炮); the hand is locked"}

    @hookimpl
    @only_for("kong")  # it adds to a decision only beside a kong the engine offers
    def mj_extra_options(self, hand: HandControl, seat: int, decision: Decision) -> list[Option] | None:
        if hand.is_locked(seat) or hand.live_remaining() < 1:
            return None
        if decision.kind == "claim":  # 点杠开杠: beside the claimed kong the engine offers
            for o in decision.options:
                if o.kind == "kong" and o.meld == "kong" and o.tile is not None and (
                        not self.ready_only or waits_after_kong(hand, seat, o.tile, decision.from_seat)):
                    return [Option(OPEN_KONG, o.tile, (o.tile,) * 4, "kong", text="点杠开杠")]
            return None
        if decision.kind != "turn":
            return None
        out = []
        # The engine offers the kongs the ruleset allows now (concealed or added):
        # each may be opened instead.
        for o in decision.options:
            if o.kind != "kong" or o.tile is None or o.meld not in ("concealed-kong", "added-kong"):
                continue
            if self.ready_only and not waits_after_kong(hand, seat, o.tile):
                continue
            out.append(Option(OPEN_KONG, o.tile, (o.tile,) * 4, text="开杠"))
        return out or None

    @hookimpl
    def mj_handle_option(self, hand: HandControl, seat: int,
                         option: Option) -> OptionOutcome | Ask | tuple[Ask, ...] | None:
        if option.kind != OPEN_KONG:
            return None
        tile = option.tile
        assert tile is not None
        claimed = option.meld == "kong"
        added = not claimed and hand.hand_of(seat).count(tile) < 4
        if claimed:  # the fourth is the discard: take it (a claimed kong is never robbed)
            hand.emit("open_kong", seat=seat, tile=tile_code(tile), kind="claimed",
                      text=f"点杠开杠 {tile_name(tile)}")
            hand.take_discard(seat, option)
        elif added:
            hand.emit("open_kong", seat=seat, tile=tile_code(tile), kind="added",
                      text=f"开杠 {tile_name(tile)}")
        else:  # a concealed kong lies face down: only its owner sees the tile until the hand's end
            hand.emit("open_kong", seat=seat, tile=tile_code(tile), kind="concealed", text="开杠",
                      hidden={"tile": seat})
        if added:  # 抢杠胡 where the ruleset allows it: the robbery ends the hand
            may = hand.may_rob(seat, tile)
            if may:  # the seats that may rob decide at once: one decision point each (a set)
                robbers: list[int] = []  # filled by mj_answer, in turn order
                return tuple(Ask(s, [Option("win", tile), Option("pass")], ROB_POINT, kind="rob", tile=tile,
                                 from_seat=seat, data=(len(may), i, robbers)) for i, s in enumerate(may))
        return self._open(hand, seat, tile, make=not claimed)

    @hookimpl
    def mj_answer(self, hand: HandControl, ask: Ask, choice: Option) -> OptionOutcome | Ask | None:
        if ask.point != ROB_POINT:
            return None
        seat, tile = ask.from_seat, ask.tile
        assert seat is not None and tile is not None
        n, i, robbers = ask.data
        if choice.kind == "win":
            robbers.append(ask.seat)
        if i + 1 < n:  # the set's answers come in turn order: the last decides
            return None
        robbed = hand.robbery(seat, tile, tuple(robbers))
        if robbed is not None:
            return robbed
        return self._open(hand, seat, tile, make=True)

    def _open(self, hand: HandControl, seat: int, tile: int, make: bool) -> OptionOutcome:
        """The kong made (``make``: from held tiles), the dice-counted draw and what follows."""
        if make:
            hand.make_kong(seat, tile)
        total = sum(hand.roll(self.dice, "open_kong", text="开杠"))
        drawn = None
        for back in range(total, 0, -1):
            drawn = hand.draw_from_end(seat, back)
            if drawn is not None:
                break
        if drawn is None:
            drawn = hand.draw(seat)
        if drawn is None:  # no tile left anywhere (not offered then): the hand is drawn
            return EndDrawn()
        hand.lock(seat)
        # A draw from the kong end is never the 海底: if it took the last drawable tile
        # the hand has no last tile (no 海底捞月 / 海底炮), as for any replacement draw.
        if hand.can_win(seat, drawn, "self_draw", None, WIN_FLAGS):
            return Win((seat,), drawn, "self_draw", flags=WIN_FLAGS)  # 杠上开花
        return Discard(drawn, ("after_kong_discard",))  # discarded at once: 杠上炮
