"""海底漫游 (roaming last tile): the 海底 goes round the table.

With one live tile left, the player whose turn it is may take it or pass;
then the next, and so on (docs/rules/changsha.md, "海底漫游"):

- a taker who can win wins by self-draw with the ``last_tile`` flag (the
  ruleset's patterns make that 「海底捞月」);
- otherwise the tile is shown and every other player who can win on it wins,
  the taker paying as discarder (``last_tile`` flag: 「海底炮」); with
  ``winners: first`` only the first in turn order after the taker;
- if nobody wins on it, the hand is drawn and the taker deals next;
- if everybody passes, the hand is drawn and the first who could take it
  deals next.

Besides, if the last drawable tile went to a kong replacement draw, the
hand has no 海底 (no roaming, no 海底捞月 / 海底炮: the engine sets no
``last_tile`` flag then) and, if it is drawn, that player deals next
(``HandControl.last_tile_replacement``).

Decisions: ``last_tile`` (``take_last`` / ``pass``) for each player in turn,
``last_tile_win`` (``win`` / ``pass``) for those who can win on the shown
tile. A taker who can win always wins. The recommended option comes first
(bots that don't know the decision take the first): with ``advise: ready``
(the default) taking is recommended only to a player who is ready — who
could win on some tile — otherwise passing; ``advise: take`` always
recommends taking.

Events: ``haidi`` {seat, action: take | pass} for each decision,
``haidi_shown`` {seat, tile} when a taker can't win, and the engine's own
``draw``, ``win``, ``hand_end``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from mjframework.plugin import Ask, EndDrawn, HandEnd, Option, Win, hookimpl, tile_code, tile_name

if TYPE_CHECKING:  # pragma: no cover
    from mjframework.plugin import HandControl, HandResult

TAKE = "take_last"
PASS = "pass"
TAKE_POINT = "haidi.take"  # decision points: take the last tile or pass; win on the shown tile
WIN_POINT = "haidi.win"


def is_ready(hand: HandControl, seat: int) -> bool:
    """Could ``seat`` (holding 3n+1 tiles) win on some tile? Judged as a win by discard."""
    return bool(hand.waits(seat, win_by="discard"))


class Plugin:
    # The option kinds this plugin offers players (kind → carries a tile): the
    # learning-agent environment gives each a fixed action (docs/agents.md).
    option_kinds: ClassVar[dict[str, bool]] = {TAKE: False}
    options_schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "winners": {"enum": ["all", "first"],
                        "description": "Who wins on a shown 海底 several can win on: all of them "
                                       "(通炮, the default) or the first in turn after the taker."},
            "advise": {"enum": ["ready", "take"],
                       "description": "The option recommended to players (listed first): take "
                                      "only when ready (default), or always take."},
        },
    }

    def __init__(self, options: dict[str, Any]) -> None:
        self.winners = str(options.get("winners", "all"))
        self.advise = str(options.get("advise", "ready"))

    @hookimpl
    def mj_plugin_info(self) -> dict[str, Any]:
        return {"description": "海底漫游: the last tile goes round; 海底捞月, 海底炮, and who deals next"}

    def _options(self, hand: HandControl, seat: int) -> list[Option]:
        take, pas = Option(TAKE, text="要海底"), Option(PASS, text="不要")
        if self.advise == "take" or is_ready(hand, seat):
            return [take, pas]
        return [pas, take]

    # The procedure is a chain of decision points: each hook returns the next Ask (the
    # engine puts it to the seat and brings the answer to mj_answer) or how the hand ends.

    @hookimpl
    def mj_last_tile(self, hand: HandControl, seat: int) -> HandEnd | Ask | None:
        return self._offer(hand, seat, seat)

    def _offer(self, hand: HandControl, first: int, s: int) -> Ask:
        """Offer the last tile to ``s`` (``first`` was offered it first)."""
        return Ask(s, self._options(hand, s), TAKE_POINT, kind="last_tile",
                   prompt="只剩最后一张 (海底): 要不要? (the last tile: take it or pass)", data=first)

    @hookimpl
    def mj_answer(self, hand: HandControl, ask: Ask, choice: Option) -> HandEnd | Ask | None:
        if ask.point == TAKE_POINT:
            s, first = ask.seat, ask.data
            action = "take" if choice.kind == TAKE else "pass"
            hand.emit("haidi", seat=s, action=action, text="要海底" if action == "take" else "不要海底")
            if action == "take":
                return self._taken(hand, s)
            nxt = (s + 1) % hand.players
            if nxt == first:  # everybody passed: drawn, the first who could take it deals
                return EndDrawn(next_dealer=first)
            return self._offer(hand, first, nxt)
        if ask.point == WIN_POINT:
            taker, tile, winners = ask.data
            if choice.kind == "win":
                winners = (*winners, ask.seat)
                if self.winners == "first":
                    return self._shown_end(taker, tile, winners)
            return self._next_winner(hand, taker, tile, ask.seat, winners)
        return None

    def _taken(self, hand: HandControl, taker: int) -> HandEnd | Ask:
        tile = hand.draw(taker)
        if tile is None:  # cannot happen with one live tile left; end cleanly anyway
            return EndDrawn(next_dealer=taker)
        if hand.can_win(taker, tile, "self_draw", flags=["last_tile"]):  # a taker who can win does: 海底捞月
            return Win((taker,), tile, "self_draw", flags=("last_tile",))
        hand.emit("haidi_shown", seat=taker, tile=tile_code(tile), text=f"亮海底 {tile_name(tile)}")
        return self._next_winner(hand, taker, tile, taker, ())

    def _next_winner(self, hand: HandControl, taker: int, tile: int, after: int,
                     winners: tuple[int, ...]) -> HandEnd | Ask:
        """Ask the next seat after ``after`` (in turn from the taker) who can win on the shown tile."""
        n = hand.players
        for s in ((after + i) % n for i in range(1, n)):
            if s == taker:
                break
            if hand.can_win(s, tile, "discard", taker, ["last_tile"]):
                return Ask(s, [Option("win", tile), Option(PASS)], WIN_POINT, kind="last_tile_win",
                           tile=tile, prompt="海底亮牌, 你能胡 (you can win on the shown last tile):",
                           data=(taker, tile, winners))
        return self._shown_end(taker, tile, winners)

    @staticmethod
    def _shown_end(taker: int, tile: int, winners: tuple[int, ...]) -> HandEnd:
        if winners:  # 海底炮, the taker paying as discarder
            return Win(winners, tile, "discard", discarder=taker, flags=("last_tile",))
        return EndDrawn(next_dealer=taker)  # drawn: the taker deals next

    @hookimpl
    def mj_next_dealer(self, hand: HandControl, result: HandResult) -> int | None:
        if result.result != "draw":
            return None  # a win: the winner (or the 通炮 discarder) deals, as the ruleset says
        return hand.last_tile_replacement
