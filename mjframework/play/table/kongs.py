"""Kongs: made from held tiles (concealed) or onto a pung (added), paid at once where
the ruleset says so (刮风下雨), robbed (抢杠), and the flags of the replacement draw."""

from __future__ import annotations

from ...core.hand import Meld
from ...core.kinds import KongKind, MeldKind
from ...core.tiles import Tile, tile_code
from ...settle import settlement as st
from .. import events as evt
from ..players import PASS, Decision, Option
from .endings import Endings
from .relay import Steps
from .state import ADDED_KONG, CONCEALED_KONG, NO_FLAGS, PUNG, HandResult, Resume

_AFTER_KONG = frozenset({"after_kong"})
_AFTER_KONG_DISCARD = frozenset({"after_kong_discard"})


class Kongs(Endings):
    """Making, paying and robbing kongs (see the module's docstring)."""

    def make_kong(self, seat: int, tile: Tile, robbable: bool) -> Steps[HandResult | Resume | None]:
        """Four held tiles (concealed) or a pung + the held fourth (added) become a kong.

        An added kong may first be robbed (``robbable``): then the robbery's ending
        is returned and the pung stays a pung.
        """
        s = self.seats[seat]
        if s.hand.counts[tile] == 4:
            for _ in range(4):
                s.hand.remove(tile)
            s.melds.append(Meld(CONCEALED_KONG, (tile,) * 4))
            # Laid face down: only the owner sees the tile until the hand's end.
            self.send(evt.Kong(seat=seat, kind=KongKind.CONCEALED, tile=tile_code(tile),
                               hidden={"tile": seat}))
            self._record_kong(st.KongRecord(seat, MeldKind.CONCEALED_KONG.payment_key))
            return None
        i = next((i for i, m in enumerate(s.melds) if m.kind == PUNG and m.tiles[0] == tile), None)
        if i is None or tile not in s.hand:
            raise ValueError(f"seat {seat} holds no kong of {tile_code(tile)}")
        s.hand.remove(tile)
        self.send(evt.Kong(seat=seat, kind=KongKind.ADDED, tile=tile_code(tile)))
        if robbable:
            robbed = yield from self.rob(seat, tile)
            if robbed is not None:
                return robbed
        s.melds[i] = Meld(ADDED_KONG, (tile,) * 4, s.melds[i].from_seat)
        self._record_kong(st.KongRecord(seat, MeldKind.ADDED_KONG.payment_key))
        return None

    def _record_kong(self, record: st.KongRecord) -> None:
        """A kong is made; with ``scoring.kongs.paid: at_kong`` it is settled now (刮风下雨),
        by the players still in the hand."""
        self.kongs.append(record)
        if self.flow.kongs_paid != "at_kong":
            return
        self.kongs_paid = len(self.kongs)
        pays = [p for p in st.kong_payments(self.ruleset, [record]) if p.payer not in self.out]
        s = st.Settlement(self.ruleset.players, pays)
        st.apply_plugins(s, st.SettlementContext("kong", self.ruleset.players, self.dealer,
                                                 winners=(record.owner,)), self.pm)
        if not s.payments:
            return
        self.kong_money.append((record, list(s.payments)))
        self._book(s, "kong")

    def _after_kong_flags(self) -> frozenset[str]:
        """Flags of a replacement draw. It never carries ``last_tile``: when it takes the
        last drawable tile the hand has no last tile (``last_tile_replacement`` records who)."""
        return _AFTER_KONG if "after_kong" in self.flow.kong_flags else NO_FLAGS

    def _after_kong_discard(self) -> frozenset[str]:
        """The discard after an ordinary kong's replacement draw carries ``after_kong_discard``."""
        if self.replacement_seat is not None and "after_kong_discard" in self.flow.kong_flags:
            return _AFTER_KONG_DISCARD
        return NO_FLAGS

    def rob(self, kong_seat: int, tile: Tile) -> Steps[HandResult | Resume | None]:
        """Others may rob an added kong where the ruleset allows it: the robbery's ending."""
        robbers = yield from self.robbers(kong_seat, tile)
        if not robbers:
            return None
        return self.settle_win(robbers, tile, "robbed_kong", kong_seat, NO_FLAGS,
                               {r: self.win_hand(r, tile) for r in robbers})

    def robbers(self, kong_seat: int, tile: Tile) -> Steps[list[int]]:
        """The seats that rob ``kong_seat``'s added kong of ``tile``, if any: the seats that
        may are one decision set (asked at once, in turn order, as the claims on a discard)."""
        may = self.may_rob(kong_seat, tile)
        if not may:
            return []
        choices = yield from self.ask_set(
            [Decision("rob", seat, (Option("win", tile), PASS), tile, kong_seat) for seat in may])
        return self.robbing([seat for seat, c in zip(may, choices, strict=True) if c.kind == "win"])

    def may_rob(self, kong_seat: int, tile: Tile) -> list[int]:
        """The seats, in turn after ``kong_seat``, that may rob its added kong of ``tile``
        (nobody is asked: a plugin offering the robbery asks them, see ``HandControl.may_rob``)."""
        if self.win_rules.robbed_kong != "added" or self._is_wild(tile):
            return []
        seats: list[int] = []
        for seat in self._seats_after(kong_seat):
            s = self.seats[seat]
            if not self.ev.may_win_on(s.hand, s.melds, tile, self.wildcard):
                continue  # the tables rule the win out in any context
            ctx = self.win_context(seat, "robbed_kong", kong_seat, NO_FLAGS, tile)
            if self._wins(seat, self.win_hand(seat, tile), ctx):
                seats.append(seat)
        return seats

    def robbing(self, robbers: list[int]) -> list[int]:
        """Of the seats that chose to rob (in turn order), those who do: all, or the first,
        as the ruleset's ``discard_winners`` says."""
        if robbers and self.win_rules.discard_winners != "all":
            return robbers[:1]
        return robbers
