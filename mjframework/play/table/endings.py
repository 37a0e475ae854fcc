"""How a hand ends: wins scored and settled (or play going on after them), a drawn
hand's settlements (退税, ``scoring.on_draw``), the next dealer, and the endings
plugins return (:class:`~mjframework.play.outcomes.Win`,
:class:`~mjframework.play.outcomes.EndDrawn`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from ...core.hand import Hand, WinContext
from ...core.tiles import Tile, tile_code
from ...evaluate.scoring import Score
from ...settle import settlement as st
from ...settle.laid import LAID_KEY, laid_counts
from .. import events as evt
from ..outcomes import EndDrawn, HandEnd, OptionOutcome, option_outcome
from ..players import Option
from .moves import Moves
from .relay import Steps
from .state import HandAbandoned, HandResult, Resume

# A win's flags: the same for every winner, or per winner (several winners on one discard).
WinFlags = set[str] | frozenset[str] | Mapping[int, set[str] | frozenset[str]]


class Endings(Moves):
    """Settling wins and drawn hands (see the module's docstring)."""

    def _book(self, settlement: st.Settlement, kind: str | None = None) -> list[int]:
        """Add a settlement to the hand's running total and log it (``kind`` for the
        settlements a win-or-draw ending doesn't explain: kong, draw, refund)."""
        net = settlement.net()
        self.settled = [a + b for a, b in zip(self.settled, net, strict=True)]
        self.send(evt.Settlement(payments=net, items=[p.to_dict() for p in settlement.payments], kind=kind))
        return net

    def settle_win(self, winners: list[int], tile: Tile, win_by: str, discarder: int | None,
                   flags: WinFlags, hands: dict[int, Hand]) -> HandResult | Resume:
        """Score and settle the win(s), then end the hand (its :class:`HandResult`) — or,
        where the ruleset plays on after a win, set the winners aside: :class:`Resume`
        names the seat that draws next."""
        patterns: dict[int, list[str]] = {}
        for w in winners:
            f = flags.get(w, set()) if isinstance(flags, Mapping) else flags
            ctx = self.win_context(w, win_by, discarder, f, tile)
            score: Score = self.ev.score(hands[w], ctx, self.wildcard)
            if not score.win:  # an engine bug if it happens: is_win said yes
                raise HandAbandoned(f"seat {w} was offered a win that does not score: {score.reason}")
            patterns[w] = score.pattern_names
            self.send(evt.Win(seat=w, win_by=win_by, tile=tile_code(tile), from_seat=discarder,
                              patterns=score.pattern_names, points=score.points,
                              call=self.ev.call(ctx, score)))
            ctx = self.with_settlement_inputs(ctx, "win", score, hands[w])
            kongs: list[st.KongRecord] = []
            if w == winners[0] and self.flow.kongs_paid == "at_win":
                kongs = self.kongs[self.kongs_paid:]
                self.kongs_paid = len(self.kongs)
            settlement = self.ev.settle(hands[w], ctx, score, kongs=kongs,
                                        payers=self._payers(w) if self.out else None,
                                        seats={i: st.SeatFacts(tuple(x.melds), x.state)
                                               for i, x in enumerate(self.seats)})
            self._book(settlement)
            self.seats[w].state["wins"] = self.seats[w].state.get("wins", 0) + 1
        self.win_log.append((tuple(winners), discarder))
        for w, names in patterns.items():
            self.patterns_won.setdefault(w, []).extend(names)
        if not self.flow.continues or self._enough_winners(winners):
            return self._end_with_wins()
        self._set_aside(winners, tile, win_by, discarder)
        if self.wall.live_remaining() == 0:
            return self.end_drawn()
        after = discarder if win_by != "self_draw" and discarder is not None else winners[0]
        order = [(after + i) % self.ruleset.players for i in range(1, self.ruleset.players + 1)]
        last = max(winners, key=order.index)
        return Resume(self._next_active(last))

    def _enough_winners(self, winners: list[int]) -> bool:
        won = {w for ws, _ in self.win_log for w in ws}
        need = self.flow.after_winners
        return (need is not None and len(won) >= need) or len(
            [s for s in range(self.ruleset.players) if s not in self.out and s not in winners]) == 0

    def _set_aside(self, winners: list[int], tile: Tile, win_by: str, discarder: int | None) -> None:
        """After a win the hand goes on: the winning tile leaves play with the winner."""
        if win_by == "discard" and discarder is not None:
            self.seats[discarder].discards.pop()
        for w in winners:
            s = self.seats[w]
            if win_by == "self_draw":
                s.hand.remove(tile)
            s.won_tiles.append(tile)
            if self.flow.after_win == "leave":
                self.out.add(w)
            else:
                self.locked.add(w)

    def _end_with_wins(self, next_dealer: int | None = None) -> HandResult:
        if next_dealer is None:
            ws, discarder = self.win_log[0] if self.flow.which_win == "first" else self.win_log[-1]
            next_dealer = self._next_dealer_after_win(list(ws), discarder)
        result = HandResult("win", self.winners(), next_dealer, list(self.settled), dict(self.patterns_won))
        result.next_dealer = self._plugin_next_dealer(result)
        self._hand_end("win", result)
        return result

    def _hand_end(self, kind: str, result: HandResult) -> None:
        self.reveal_melds()
        self.send(evt.HandEnd(result=kind, next_dealer=result.next_dealer,
                              winners=result.winners if self.flow.continues else None))

    def with_settlement_inputs(self, ctx: WinContext, kind: str, score: Score,
                               hand: Hand | None = None) -> WinContext:
        """Add plugins' settlement inputs (e.g. birds), the tiles laid aside as kongs and
        the bonus tiles turned up to the context, once per win (``hand``: the winner's)."""
        view = self.ev.settlement_context(kind, ctx, score)
        extra = dict(ctx.extra)
        for d in self.hook("mj_settlement_inputs", hand=self.control, context=view):
            extra.update(d)
        if self.laid:  # every seat's tiles laid aside as kongs (the settlement doubles by them)
            extra[LAID_KEY] = laid_counts(self.ruleset, [s.state for s in self.seats])
        if self.bonus is not None:
            held = hand.all_tiles if hand is not None else self.seats[ctx.seat].hand  # (opening: as dealt)
            extra.update(self.bonus.inputs(kind, ctx, score.pattern_names, held, self.wildcards))
        return replace(ctx, extra=extra)

    def _plugin_next_dealer(self, result: HandResult) -> int:
        """The next dealer as plugins name it, unless the bonus tiles decide (``deals_next``)."""
        nxt = self.hook("mj_next_dealer", firstresult=True, hand=self.control, result=result)
        seat = None if self.bonus is None else \
            self.bonus.next_dealer(self.opening_winners, result.winners, result.patterns)
        if seat is not None:
            return seat
        return result.next_dealer if nxt is None else int(nxt) % self.ruleset.players

    def _next_dealer_after_win(self, winners: list[int], discarder: int | None) -> int:
        d = self.ruleset.dealer
        if d.after_win == "next":  # the deal passes every hand, whoever won
            return (self.dealer + 1) % self.ruleset.players
        if d.after_win == "dealer_or_next":  # the dealer stays on a win of its own, else passes
            return self.dealer if self.dealer in winners else (self.dealer + 1) % self.ruleset.players
        if len(winners) > 1:
            rule = d.after_multiple_winners
            if rule == "discarder" and discarder is not None:
                return discarder
            return winners[0]
        return winners[0]

    def end_drawn(self, next_dealer: int | None = None) -> HandResult:
        """The wall ran out (or a plugin ended the hand drawn, naming ``next_dealer``):
        unpaid kongs, the drawn hand's settlements, then the hand's end — a win's, if
        some seat won earlier in a hand that went on."""
        n = self.ruleset.players
        rule = self.ruleset.dealer.after_draw
        if next_dealer is not None:
            nxt = next_dealer
        elif rule == "last_tile_drawer" and self.last_drawer is not None:
            nxt = self.last_drawer
        elif rule == "next":
            nxt = (self.dealer + 1) % n
        else:
            nxt = self.dealer
        unpaid = self.kongs[self.kongs_paid:]
        if unpaid and not self.ruleset.scoring.kongs_void_on_draw:
            s = st.Settlement(n, st.kong_payments(self.ruleset, unpaid))
            st.apply_plugins(s, st.SettlementContext("kongs", n, self.dealer), self.pm)
            payments = [a + b for a, b in zip(self.settled, s.net(), strict=True)]
            self.settled = payments
            self.send(evt.Settlement(payments=payments, items=[p.to_dict() for p in s.payments]))
        self._drawn_settlements()
        if self.win_log:  # the wall ran out after some wins: the wins decide the dealer
            return self._end_with_wins(next_dealer)
        result = HandResult("draw", [], nxt, list(self.settled))
        result.next_dealer = self._plugin_next_dealer(result)
        self._hand_end("draw", result)
        return result

    # -- a drawn end's declared settlements ---------------------------------------

    def _holds(self, pred: str, seat: int, ready: dict[int, bool]) -> bool:
        if pred == "ready":
            return ready[seat]
        if pred == "not_ready":
            return not ready[seat]
        if pred == "holding_void":
            return self._holds_void(seat)
        if pred == "not_holding_void":
            return not self._holds_void(seat)
        return True

    def _drawn_settlements(self) -> None:
        """退税 (kong refunds) then ``scoring.on_draw`` (查大叫, 查花猪) among the players still in."""
        flow = self.flow
        if not (flow.kong_refund or flow.on_draw):
            return
        n = self.ruleset.players
        active = [s for s in range(n) if s not in self.out]
        ready = {s: bool(self._waits(s)) for s in active}
        if flow.kong_refund == "not_ready":
            back = [st.Payment(p.payee, p.payer, p.amount, p.reason + " refund")
                    for rec, pays in self.kong_money
                    if rec.owner in ready and not ready[rec.owner]
                    and not self.seats[rec.owner].state.get("wins")
                    for p in pays if p.payee is not None]
            if back:
                s = st.Settlement(n, back)
                st.apply_plugins(s, st.SettlementContext("refund", n, self.dealer), self.pm)
                self._book(s, "refund")
        for rule in flow.on_draw:
            pays: list[st.Payment] = []
            for payer in active:
                if not all(self._holds(p, payer, ready) for p in rule.payer):
                    continue
                for payee in active:
                    if payee == payer or not all(self._holds(p, payee, ready) for p in rule.payee):
                        continue
                    amount, reason = self._drawn_amount(rule.amount, payer, payee)
                    if amount > 0:
                        pays.append(st.Payment(payer, payee, amount, reason))
            if pays:
                s = st.Settlement(n, pays)
                st.apply_plugins(s, st.SettlementContext("draw", n, self.dealer), self.pm)
                self._book(s, "draw")

    def _drawn_amount(self, amount: int | str, payer: int, payee: int) -> tuple[int, str]:
        """Points ``payer`` owes ``payee``: fixed, or the payee's best win on a discard by the payer."""
        if isinstance(amount, int):
            return amount, "drawn"
        best = (0, "")
        s = self.seats[payee]
        for t in self._waits(payee):
            hand = Hand(tuple(s.hand), tuple(s.melds), t)
            ctx = self.win_context(payee, "discard", payer, set())
            score = self.ev.score(hand, ctx, self.wildcard)
            if not score.win:
                continue
            settlement = self.ev.settle(hand, ctx, score, kongs=[], payers=[payer], plugins=False)
            got = sum(p.amount for p in settlement.payments if p.payer == payer and p.payee == payee)
            if got > best[0]:
                best = (got, "+".join(score.pattern_names))
        return best

    # -- what plugins return --------------------------------------------------------------

    def _handle_option(self, seat: int, choice: Option) -> Steps[OptionOutcome | None]:
        """Ask the plugins to carry out ``choice``: their typed outcome (old tuples converted)."""
        value = yield from self.follow(self.hook("mj_handle_option", firstresult=True, hand=self.control,
                                      seat=seat, option=choice))
        try:
            return option_outcome(value)
        except TypeError as e:
            raise HandAbandoned(str(e)) from None

    def carry_out(self, end: HandEnd) -> HandResult | Resume:
        """Carry out a plugin's :class:`Win` or :class:`EndDrawn`, returned from its hook."""
        if isinstance(end, EndDrawn):
            return self.end_drawn(end.next_dealer)
        hands = {}
        for w in end.seats:
            held = list(self.seats[w].hand)
            if end.win_by == "self_draw":
                held.remove(end.tile)
            hands[w] = self.win_hand(w, end.tile, held)
        return self.settle_win(list(end.seats), end.tile, end.win_by, end.discarder, end.flag_sets(), hands)

    def settle_opening(self, seat: int, score: Score) -> list[int]:
        """Announce and settle a seat's opening declarations at once (like a self-draw)."""
        self.opening_winners.append(seat)
        self.send(evt.OpeningWin(seat=seat, patterns=score.pattern_names, points=score.points,
                                 hand=[tile_code(t) for t in sorted(self.seats[seat].hand)]))
        ctx = self.with_settlement_inputs(self.win_context(seat, "self_draw", None, set()), "opening", score)
        s = self.ev.settle_opening(ctx, score)
        net = s.net()
        self.settled = [a + b for a, b in zip(self.settled, net, strict=True)]
        self.send(evt.Settlement(payments=net, items=[p.to_dict() for p in s.payments]))
        return net
