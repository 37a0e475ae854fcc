"""May a seat win: a win's context, refusals, waits, and the screens before scoring.

Most checks are answered by the evaluator's table screens
(:meth:`Evaluator.may_win_on`, :meth:`Evaluator.may_win_any_of`,
:meth:`Evaluator.win_candidates_of`: "no" is certain; the last two read the seat's
kept counts) before any context is built;
a seat's candidates are remembered while its held tiles stay the same
(:class:`~.state.SeatWaits`).
"""

from __future__ import annotations

from collections import Counter

from ...core.hand import Hand, WinContext
from ...core.tiles import Tile
from .. import counters as cnt
from .relay import Relay
from .state import SeatWaits


class WinChecks(Relay):
    """Who may win on what (see the module's docstring)."""

    def win_context(self, seat: int, win_by: str, discarder: int | None,
                    flags: set[str] | frozenset[str], tile: Tile | None = None) -> WinContext:
        """The context of a win by ``seat``; with the winning ``tile``, ``last_copy`` is raised
        when the other copies are all in sight."""
        state = self.seats[seat].state
        if self.counters:  # the winner's counts that last across hands read as its seat state
            state = {**cnt.of_seat(self.counters, seat), **state}
        if tile is not None and self._last_copy(seat, tile, win_by):
            flags = {*flags, "last_copy"}
        in_play = (frozenset(s for s in range(self.ruleset.players) if s not in self.out)
                   if self.out else None)
        flowers = self.seats[seat].flowers
        return WinContext(seat=seat, win_by=win_by, discarder=discarder, flags=frozenset(flags),
                          dealer=self.dealer, seat_state=dict(state) if state else {}, in_play=in_play,
                          prevalent_wind=self._prevalent_wind(), flowers=len(flowers),
                          flower_tiles=tuple(flowers) if flowers else ())

    def _last_copy(self, seat: int, tile: Tile, win_by: str) -> bool:
        """The other copies of ``tile`` are all in sight: discarded (still in a river) or in
        declared melds, and the winner holds none (the ``last_copy`` flag)."""
        held = self.seats[seat].hand.counts[tile] - (win_by == "self_draw")  # a drawn tile is held
        if held > 0:
            return False
        seen = sum(s.discards.counts[tile] + s.melds.counts[tile] for s in self.seats)
        if win_by != "self_draw":
            seen -= 1  # the discarded (or robbed) tile itself
        return seen >= self.ruleset.tileset.copies - 1

    def refuses(self, seat: int, hand: Hand, ctx: WinContext) -> bool:
        """A win the declarations (a held void suit) or a plugin (``mj_refuse_win``) refuse."""
        if self.ev.void_refuses(hand, ctx):
            return True
        if self._refuses:
            assert hand.win_tile is not None
            for reason in self.hook("mj_refuse_win", hand=self.control, seat=seat, tile=hand.win_tile,
                                    win_by=ctx.win_by, context=ctx):
                if reason:
                    return True
        return False

    def _wins(self, seat: int, hand: Hand, ctx: WinContext) -> bool:
        return self.ev.is_win(hand, ctx, self.wildcard) and not self.refuses(seat, hand, ctx)

    def _ready_after(self, seat: int, discard: Tile) -> bool:
        """Would the seat be waiting (ready) after discarding ``discard``?"""
        held = list(self.seats[seat].hand)
        held.remove(discard)
        return bool(self._waits(seat, held))

    def _waits(self, seat: int, held: list[Tile] | None = None) -> list[Tile]:
        """Tiles the seat would win on (by self-draw), refusals applied."""
        s = self.seats[seat]
        held = list(s.hand) if held is None else held
        ctx = self.win_context(seat, "self_draw", None, set())
        mine = Counter(held) + Counter(t for m in s.melds for t in m.tiles)
        out = []
        for t in self.ev.waits(held, list(s.melds), ctx, self.wildcard):
            if mine[t] >= self.ruleset.tileset.copies:
                continue  # all of that tile are in the seat's own hand: it can never come
            if not self.refuses(seat, Hand(tuple(held), tuple(s.melds), t), ctx):
                out.append(t)
        return out

    def _self_win(self, seat: int, drawn: Tile | None, flags: set[str]) -> tuple[Tile, list[Tile]] | None:
        """(winning tile, tiles held before it) if the seat can win by self-draw now.

        Normally the winning tile is the one just drawn. The dealer's dealt 14
        have no drawn tile: every tile is tried and the best-paying is used.
        After a claimed pung or chow there is no draw and no win.
        """
        if not self.win_rules.self_draw:
            return None
        s = self.seats[seat]
        hand = s.hand
        if drawn is not None:
            # The usual answer first, without copying the hand: the drawn tile is not among
            # the kinds remembered for the rest of the hand (see _may_win_after_draw).
            got = self._win_cands[seat]
            if (got is not None and got.kinds is not None and drawn not in got.kinds and hand
                    and hand[-1] == drawn and got.is_for_drawn(hand, s.melds, self.wildcard)):
                return None
            candidates = [drawn]
        elif "first_turn" in flags:
            candidates = sorted(set(hand))
        else:
            return None
        # One screen of the whole hand first (no copy, no key): most hands fit no shape
        # whichever tile is taken as the winning one, and then every candidate's screen
        # (_may_win_after_draw) would say no. (The dealer's first turn: one screen instead of
        # one per kind held; a draw with no kinds remembered from the claim screen — a
        # ruleset with no wins on discards —: the same answer without copying the hand.)
        if not self.ev.may_win_any_of(hand.counts, s.melds, self.wildcard):
            return None
        best: tuple[int, Tile, list[Tile]] | None = None
        for t in candidates:
            held = list(hand)
            held.remove(t)
            if not self._may_win_after_draw(seat, held, t):
                continue  # the tables rule the win out in any context
            ctx = self.win_context(seat, "self_draw", None, flags, t)
            h = self.win_hand(seat, t, held)
            if not self._wins(seat, h, ctx):
                continue
            if len(candidates) == 1:
                return t, held
            pts = self.ev.score(h, ctx, self.wildcard).points
            if best is None or pts > best[0]:
                best = (pts, t, held)
        return (best[1], best[2]) if best else None

    def _may_win_on(self, seat: int, tile: Tile) -> bool:
        """Could ``seat`` win on ``tile`` in some context? False is certain (as
        :meth:`Evaluator.may_win_on`).

        A seat's held tiles stay the same while the others discard, so the kinds
        that could complete them (:meth:`Evaluator.win_candidates`: one pass over the
        wait tables) are worked out once per held hand and remembered for the
        seat; each discard is then a set lookup instead of a table verdict.
        """
        s = self.seats[seat]
        got = self._win_cands[seat]
        if (got is None or got.counts != s.hand.counts or got.melds != s.melds
                or got.wildcard != self.wildcard):
            got = SeatWaits(list(s.hand), list(s.melds), self.wildcard,
                            self.ev.win_candidates_of(s.hand.counts, s.melds, self.wildcard),
                            bytes(s.hand.counts))
            self._win_cands[seat] = got
        if got.kinds is None:
            return self.ev.may_win_on(s.hand, s.melds, tile, self.wildcard)
        return tile in got.kinds

    def _may_win_after_draw(self, seat: int, held: list[Tile], tile: Tile) -> bool:
        """:meth:`_may_win_on` for a drawn ``tile`` (the last tile of the hand, ``held`` the
        rest): the kinds remembered for the held hand while the others discarded, when it is
        still that hand; else :meth:`Evaluator.may_win_on`."""
        s = self.seats[seat]
        got = self._win_cands[seat]
        if (got is not None and got.kinds is not None and s.hand and s.hand[-1] == tile
                and got.is_for_drawn(s.hand, s.melds, self.wildcard)):
            return tile in got.kinds
        return self.ev.may_win_on(held, s.melds, tile, self.wildcard)
