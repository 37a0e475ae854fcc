"""The turn loop and one seat's turn: draw, then win, kong (and draw again) or discard;
the discard goes to the others' claims; the next seat, or the claimer, plays."""

from __future__ import annotations

from ...core.tiles import NUM_KINDS, Tile
from .. import events as evt
from ..outcomes import Discard, EndDrawn, Win
from ..players import Option, make_decision
from .claims import Claims
from .relay import Steps
from .state import (
    ADDED_KONG,
    CONCEALED_KONG,
    PLAIN_DISCARDS,
    PUNG,
    Discarded,
    HandAbandoned,
    HandOver,
    HandResult,
    Resume,
    TurnEnd,
    discard_option,
)


class Turns(Claims):
    """The turn loop (see the module's docstring)."""

    def _turns(self, start: Resume | None = None) -> Steps[HandResult]:
        """Play turns from the dealer's first (or from ``start``: play going on after a win)
        until the hand ends."""
        while True:
            try:
                return (yield from self._turns_from(start))
            except HandOver as over:  # a deprecated HandControl.win in a hand that goes on
                if not isinstance(over.result, Resume):
                    raise
                start = over.result

    def _turns_from(self, start: Resume | None) -> Steps[HandResult]:
        n = self.ruleset.players
        seat = self.dealer
        drawn: Tile | None = None  # the dealer starts with 14, no draw
        flags: set[str] = set()
        must_draw = False
        pending: Discarded | None = None  # a turn's outcome already decided (a plugin's claim)
        if start is not None:
            seat, must_draw = start.seat, True
        while True:
            outcome: TurnEnd | None = None
            if pending is not None:
                outcome, pending, flags = pending, None, set()
            elif must_draw:
                if self.wall.live_remaining() == 1:
                    ended = yield from self.follow(self.hook("mj_last_tile", firstresult=True,
                                                  hand=self.control, seat=seat))
                    if isinstance(ended, Win | EndDrawn):
                        end = self.carry_out(ended)
                        if isinstance(end, HandResult):
                            return end
                        seat, drawn, flags, must_draw = end.seat, None, set(), True
                        continue
                t = self.draw(seat, "wall")
                if t is None:
                    return self.end_drawn()
                drawn = t
                flags = {"last_tile"} if self.wall.live_remaining() == 0 else set()
            if not self.seats[seat].drew_first:
                if self.no_claims:
                    flags |= {"first_turn", "no_claims_yet"}
                self.seats[seat].drew_first = True
            elif self.no_claims:
                flags.add("no_claims_yet")
            if outcome is None:
                outcome = yield from self._turn(seat, drawn, flags)
            if not isinstance(outcome, Discarded):  # (the usual case tested first: a discard)
                if isinstance(outcome, HandResult):
                    return outcome
                # a win, and the hand goes on (Resume)
                seat, drawn, flags, must_draw = outcome.seat, None, set(), True
                continue
            # The wall is done after this discard: the last tile was drawn (last_tile), or a
            # replacement draw took the last tile (then the hand has no last tile: no last_tile flag).
            last = "last_tile" in flags or self.wall.live_remaining() == 0
            claim = yield from self._claims(outcome.seat, outcome.tile, last,
                                 first=("first_turn" in flags and outcome.seat == self.dealer),
                                 extra_flags=outcome.flags, haidi="last_tile" in flags)
            if claim is None:  # nobody claims: the next seat draws
                if last:
                    return self.end_drawn()
                seat = self._next_active(seat) if self.out else (seat + 1) % n
                must_draw = True
                drawn = None
            elif isinstance(claim, HandResult):
                return claim
            elif isinstance(claim, Resume):
                seat, drawn, flags, must_draw = claim.seat, None, set(), True
            elif last:
                return self.end_drawn()
            elif isinstance(claim, Discarded):  # a plugin's claim decided the claimer's turn
                seat, pending, must_draw = claim.seat, claim, False
            else:  # a meld (Claimed): the claimer plays next
                seat, drawn, flags, must_draw = claim.seat, claim.drawn, set(claim.flags), False

    def _turn(self, seat: int, drawn: Tile | None, flags: set[str]) -> Steps[TurnEnd]:
        """A player holding a full hand acts: win, kong, or discard. Loops over kongs."""
        while True:
            if drawn is not None and self.flower_replaced == (seat, drawn):
                flags = {*flags, "after_flower"}  # the tile replaced a flower
            win = self._self_win(seat, drawn, flags)
            options = self._turn_options(seat, drawn, win)
            decision = make_decision("turn", seat, tuple(options), drawn)
            extra = self._extra_options(seat, decision)
            if extra:
                decision = make_decision("turn", seat, tuple(options + extra), drawn)
            choice = yield from self.ask(decision)
            if choice.kind == "lay_kong" and choice.tile in self.laid:  # laid aside by choice
                self._lay_kong(seat, choice.tile)
                after = self._kong_replacement(seat, flags)
                if after is None:
                    return self.end_drawn()
                drawn, flags = after
                continue
            if choice.kind not in ("win", "kong", "discard"):
                outcome = yield from self._handle_option(seat, choice)
                if outcome is None:
                    raise HandAbandoned(f"no plugin handles the option {choice.kind!r}")
                if isinstance(outcome, Discard):
                    return self._discard(seat, outcome.tile, frozenset(outcome.flags))
                if isinstance(outcome, Win | EndDrawn):
                    return self.carry_out(outcome)
                drawn, flags = outcome.tile, set(outcome.flags)
                continue
            if choice.kind == "win":
                assert win is not None
                win_tile, held = win
                return self.settle_win([seat], win_tile, "self_draw", None, flags,
                                       {seat: self.win_hand(seat, win_tile, held)})
            if choice.kind == "kong":
                assert choice.tile is not None
                robbed = yield from self.make_kong(seat, choice.tile, robbable=True)
                if robbed is not None:
                    return robbed
                after = self._kong_replacement(seat, flags)
                if after is None:
                    return self.end_drawn()
                drawn, flags = after
                continue
            assert choice.kind == "discard" and choice.tile is not None
            if choice.value == "ready":
                self.seats[seat].state["ready"] = True
                self.locked.add(seat)
                self.send(evt.Declare(seat=seat, what="ready", value=True))
            return self._discard(seat, choice.tile, self._after_kong_discard())

    def _kong_replacement(self, seat: int, flags: set[str]) -> tuple[Tile, set[str]] | None:
        """The tile drawn after a kong (made or laid aside) and the turn's flags with it; None
        when the wall has no tile left."""
        rep = self.draw(seat, "kong")
        if rep is None:
            return None
        return rep, (flags - {"first_turn", "last_tile", "after_flower"}) | self._after_kong_flags()

    def _turn_options(self, seat: int, drawn: Tile | None,
                      win: tuple[Tile, list[Tile]] | None) -> list[Option]:
        """What the seat may do on its turn: win, a concealed or added kong, the discards
        (and the discards that declare ready)."""
        s = self.seats[seat]
        options: list[Option] = []
        if win is not None:
            options.append(Option("win", win[0]))
        locked = seat in self.locked
        kinds = sorted(set(s.hand))
        # Four of a kind needs at least three tiles more than kinds held; the wall's kong
        # tiles are counted only when a kong is in sight (most turns have none).
        if not locked and len(s.hand) - len(kinds) >= 3 and self.claims.concealed_kong:
            counts = s.hand.counts
            quads = [t for t in kinds if counts[t] == 4]
            if quads and self._kong_tiles_left():
                void_kong = self.flow.void_suit is None or self.flow.void_suit.claim
                for t in quads:
                    if ((self.wild_may[2] or not self._is_wild(t))
                            and (void_kong or not self._in_void(seat, t))):
                        options.append(Option("kong", t, (t,) * 4, CONCEALED_KONG))
        if not locked and s.melds and self.claims.added_kong:
            added = [m.tiles[0] for m in s.melds if m.kind == PUNG and m.tiles[0] in s.hand]
            if added and self._kong_tiles_left():
                options.extend(Option("kong", t, (t,) * 4, ADDED_KONG) for t in added)
        if not locked and len(self.laid) > len(self.laid_on_sight) and self._kong_tiles_left():
            options.extend(Option("lay_kong", t) for t in kinds
                           if t in self.laid and t not in self.laid_on_sight)
        if locked and drawn is not None:
            options.append(Option("discard", drawn))
            return options
        tiles = kinds
        if not self.wild_may[0]:  # wildcards may not be discarded (unless nothing else is held)
            tiles = [t for t in tiles if not self._is_wild(t)] or tiles
        vs = self.flow.void_suit
        if vs is not None and vs.discard_first:
            v = self._void_of(seat)
            if v is not None:  # the void suit's tiles first (t // 9 is never a suit for an honor)
                tiles = [t for t in tiles if t // 9 == v] or tiles
        if not tiles or tiles[-1] < NUM_KINDS:  # (sorted: every kind is a plain tile kind)
            options.extend(map(PLAIN_DISCARDS.__getitem__, tiles))
        else:
            options.extend([discard_option(t) for t in tiles])
        if self.flow.ready and not s.state.get("ready"):
            options.extend(Option("discard", t, value="ready") for t in tiles
                           if self._ready_after(seat, t))
        return options

