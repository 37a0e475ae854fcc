"""Claims on a discard: what each other seat may claim (win, kong, pung, chow, plugins'
claims), resolved by the ruleset's priority and then distance from the discarder,
and the winning claim carried out."""

from __future__ import annotations

from ...core.hand import Meld
from ...core.kinds import MeldKind
from ...core.tiles import Tile, is_honor
from ...settle import settlement as st
from .. import events as evt
from ..events import tiles_out
from ..outcomes import Discard, EndDrawn, Win
from ..players import PASS, Decision, Option, make_decision
from .kongs import Kongs
from .relay import Steps
from .state import (
    KONG,
    NO_FLAGS,
    Claimed,
    ClaimEnd,
    HandAbandoned,
    HandResult,
    SeatState,
    meld_kind_of,
    meld_option,
)

# One seat's claim: (priority rank, distance from the discarder, its choice, the seat, the
# flags of a win on the discard).
_Want = tuple[int, int, Option, int, set[str]]


class Claims(Kongs):
    """Offering a discard and carrying out the claim (see the module's docstring)."""

    def _claims(self, discarder: int, tile: Tile, last: bool, first: bool,
                extra_flags: frozenset[str] = NO_FLAGS, haidi: bool | None = None) -> Steps[ClaimEnd]:
        """Offer the discard to the others; resolve by priority. None if nobody claims.

        ``last``: no tile is left to draw, so only wins are offered; ``haidi``
        (default: ``last``): the discard is the last tile's, wins on it carry ``last_tile``.
        """
        n = self.ruleset.players
        # A discarded wildcard is claimed (won on, 碰, 杠, 吃) only where the ruleset says it may be.
        is_wild = tile in self.wildcards  # (_is_wild, asked once)
        wild = is_wild and not self.wild_may[1]
        if self.claims.never and tile in self.claims.never_kinds:
            wild = True  # a kind never claimed (`claims.never`): as a wildcard that may not be
        can_discard_win = self.win_rules.discard and not wild
        if is_wild and not self.wild_may[2]:
            wild = True  # won on at most: a meld may not hold it
        flags_base: set[str] = set(extra_flags)
        if last if haidi is None else haidi:
            flags_base.add("last_tile")
        wants: list[_Want] = []
        asks: list[tuple[int, Decision, set[str]]] = []  # (distance, decision, flags of a win) per seat
        # What is the same for every seat, worked out once per discard.
        vs = self.flow.void_suit
        void_claims = vs is None or vs.claim
        meldable = not wild and not last
        claims = self.claims
        chow_seat = (discarder + 1) % n if claims.chow == "left" and not is_honor(tile) else -1
        wild_melds = self.wild_may[2]
        wildcard = self.wildcard
        states, win_cands, locked = self.seats, self._win_cands, self.locked
        for dist, seat in enumerate(self._seats_after(discarder)):
            s = states[seat]
            options: list[Option] = []
            flags: set[str] | None = None  # made only for a seat that may claim
            if can_discard_win:
                # _may_win_on's usual answer inline: the seat's remembered kinds, still its hand.
                got = win_cands[seat]
                if (got is not None and got.kinds is not None and got.counts == s.hand.counts
                        and got.melds == s.melds
                        and got.wildcard == wildcard):  # (SeatWaits.is_for, inline: 3 seats a discard)
                    may = tile in got.kinds
                else:
                    may = self._may_win_on(seat, tile)
            else:
                may = False
            if may:
                flags = self._claim_flags(s, flags_base, first)
                ctx = self.win_context(seat, "discard", discarder, flags, tile)
                if self._wins(seat, self.win_hand(seat, tile), ctx):
                    options.append(Option("win", tile))
            if meldable and seat not in locked and (void_claims or not self._in_void(seat, tile)):
                c = s.hand.counts[tile]
                if c >= 2:
                    if c >= 3 and claims.kong and self._kong_tiles_left():
                        options.append(meld_option("kong", tile, (tile,) * 4, KONG))
                    if claims.pung:
                        options.append(meld_option("pung", tile, (tile,) * 3))
                if seat == chow_seat:
                    for seq in self._chows(s.hand.counts, tile):
                        if wild_melds or not any(self._is_wild(t) for t in seq):
                            options.append(meld_option("chow", tile, seq))
            if not options:
                continue
            if flags is None:
                flags = self._claim_flags(s, flags_base, first)
            decision = make_decision("claim", seat, (*options, PASS), tile, discarder)
            extra = self._extra_options(seat, decision)
            if extra:
                decision = make_decision("claim", seat, (*options, *extra, PASS), tile, discarder)
            asks.append((dist, decision, flags))
        if not asks:
            return None
        # The seats' claims are one decision set (Relay.ask_set), asked in turn order.
        choices = yield from self.ask_set([d for _, d, _ in asks])
        for (dist, decision, flags), choice in zip(asks, choices, strict=True):
            if choice.kind != "pass":
                # A plugin's claim ranks as the claim its ``meld`` names (e.g. kong).
                rank = self.priority.get(choice.kind, self.priority.get(choice.meld or "", 99))
                wants.append((rank, dist, choice, decision.seat, flags))
        if not wants:
            return None
        return (yield from self._resolve(wants, discarder, tile))

    def _resolve(self, wants: list[_Want], discarder: int, tile: Tile) -> Steps[ClaimEnd]:
        """The claims made on the discard, by priority then distance: the win(s), a plugin's
        claim (carried out by the plugin), or a meld."""
        wants.sort(key=lambda w: (w[0], w[1]))
        top = wants[0]
        if top[2].kind == "win":
            winners = [w for w in wants if w[2].kind == "win"]
            if self.win_rules.discard_winners != "all":
                winners = winners[:1]
            seats = [w[3] for w in winners]
            flags_by = {w[3]: w[4] for w in winners}
            return self.settle_win(seats, tile, "discard", discarder, flags_by,
                                   {w: self.win_hand(w, tile) for w in seats})
        _, _, choice, seat, _ = top
        if choice.kind not in ("kong", "pung", "chow"):
            self.offered = (discarder, tile)
            outcome = yield from self._handle_option(seat, choice)
            self.offered = None
            if isinstance(outcome, Win | EndDrawn):
                return self.carry_out(outcome)
            if not isinstance(outcome, Discard):
                raise HandAbandoned(f"no plugin carries out the claim {choice.kind!r}")
            return self._discard(seat, outcome.tile, frozenset(outcome.flags))
        return self.take_claim(seat, choice, discarder, tile)

    def _claim_flags(self, s: SeatState, flags_base: set[str], first: bool) -> set[str]:
        """The flags of a win on a discard by the seat ``s``: ``flags_base`` + its turn's."""
        flags = set(flags_base)
        if first and not s.drew_first and self.no_claims:
            flags |= {"first_turn", "no_claims_yet"}
        elif self.no_claims:
            flags.add("no_claims_yet")
        return flags

    def take_claim(self, seat: int, choice: Option, discarder: int,
                   tile: Tile) -> Claimed | HandResult | None:
        """``seat`` takes the discard into the meld ``choice.tiles`` (a ``claim`` event);
        a kong then draws its replacement. None: a plugin's kong claim (the plugin draws,
        see :meth:`HandControl.take_discard`); a :class:`HandResult` when the wall has no
        replacement left."""
        s = self.seats[seat]
        self.seats[discarder].discards.pop()
        self.no_claims = False
        used = list(choice.tiles)
        used.remove(tile)
        for t in used:
            s.hand.remove(t)
        kind = meld_kind_of(choice)
        s.melds.append(Meld(kind, tuple(sorted(choice.tiles)), discarder))
        s.drew_first = True
        self.send(evt.Claim(seat=seat, kind=kind, tiles=tiles_out(sorted(choice.tiles)),
                            from_seat=discarder))
        if kind == KONG:
            self._record_kong(st.KongRecord(seat, MeldKind.KONG.payment_key, discarder))
            if choice.kind != "kong":
                return None  # a plugin's kong claim: the plugin draws (see HandControl.take_discard)
            rep = self.draw(seat, "kong")
            if rep is None:
                return self.end_drawn()
            return Claimed(seat, rep, self._after_kong_flags())
        return Claimed(seat)

    @staticmethod
    def _chows(held: bytearray, tile: Tile) -> list[tuple[Tile, ...]]:
        """The sequences the held tiles (their ``counts`` per kind) can make with ``tile`` (a
        suited tile), lowest first."""
        r = tile % 9
        below1 = r >= 1 and held[tile - 1]
        above1 = r <= 7 and held[tile + 1]
        out: list[tuple[Tile, ...]] = []
        if below1 and r >= 2 and held[tile - 2]:
            out.append((tile - 2, tile - 1, tile))
        if below1 and above1:
            out.append((tile - 1, tile, tile + 1))
        if above1 and r <= 6 and held[tile + 2]:
            out.append((tile, tile + 1, tile + 2))
        return out

