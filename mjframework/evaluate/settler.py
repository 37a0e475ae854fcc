"""Settling a scored win: who pays the winner how much.

The settler of :class:`~.scoring.Evaluator`.

Who pays how much of the base amount depends only on the seats, so it is planned once per
seat arrangement (:func:`~..settle.settlement.win_plan`, kept by the evaluator) and each win
is then a few multiplications; per-payer amounts, liability (包) and plugins
(``mj_modify_settlement``) apply after. :class:`~.scoring.Evaluator`'s ``settle``,
``settle_opening``, ``liable_seat`` and ``settlement_context`` call these.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from ..core.hand import KONG_PAYMENT_KEY, Hand, Meld, WinContext
from ..settle import bonus, counters, laid
from ..settle import settlement as st
from .patterns import HandFacts, when_holds
from .results import Score

if TYPE_CHECKING:
    from ..rules.model import Ruleset
    from .scoring import Evaluator

# A win's payment plan is kept per (win by, winner, dealer, discarder, payers).
PlanKey = tuple[str, int, int, int | None, tuple[int, ...] | None]


def settle(ev: Evaluator, hand: Hand, ctx: WinContext, score: Score,
           kongs: Sequence[st.KongRecord] | None = None, *,
           payers: Sequence[int] | None = None, plugins: bool = True,
           seats: Mapping[int, st.SeatFacts] | None = None) -> st.Settlement:
    """Payments for a scored win plus kong payments.

    ``kongs``: every kong made this hand (the game knows them); by default
    the winner's own kong melds (all a conformance case can say) — none where
    the ruleset pays kongs when they are made (``scoring.kongs.paid: at_kong``).
    ``payers``: who may pay (in a hand that goes on after a win, the players
    still in it); ``plugins=False`` skips ``mj_modify_settlement``. ``seats``: every
    seat's declared melds and state (:class:`~.settlement.SeatFacts`), which per-payer
    amounts read (``scoring.per_payer``); liability (``scoring.liable``) reads the winner's
    melds' ``from`` seats.
    """
    rs = ev.ruleset
    s = st.Settlement(rs.players)
    if payers is None and ctx.in_play is not None:
        payers = sorted(ctx.in_play)
    if score.win:
        # Who pays how much of the base amount depends only on the seats: planned once per
        # seat arrangement (st.win_plan), then each win is a few multiplications.
        key: PlanKey = (ctx.win_by, ctx.seat, ctx.dealer, ctx.discarder,
                        None if payers is None else tuple(payers))
        plan = ev._pay_plans.get(key)
        if plan is None:
            plan = st.win_plan(rs, winner=ctx.seat, dealer=ctx.dealer, win_by=ctx.win_by,
                               discarder=ctx.discarder, payers=payers)
            if len(ev._pay_plans) > 4096:
                ev._pay_plans.clear()
            ev._pay_plans[key] = plan
        steps = ev._settle_steps
        if steps.per_payment:
            s.payments = _pay_per_payer(ev, hand, ctx, score, plan, payers, seats)
        else:
            s.payments = st.pay_plan(plan, ctx.seat, rs.scoring.amount(score.points),
                                     "+".join([p.name for p in score.patterns]))
        if steps.adjusted:  # counters, laid-aside kongs, bonus tiles: what the win's context says
            _adjust(ev, s.payments, ctx)
        if kongs is None:  # kongs paid when made (at_kong) are not part of the win
            kongs = [] if steps.kongs_at_kong or not hand.melds else [
                st.KongRecord(ctx.seat, KONG_PAYMENT_KEY[m.kind], m.from_seat)
                for m in hand.melds if m.is_kong]
        if kongs:
            kong_pay = st.kong_payments(rs, kongs)
            if steps.bonus_on_kongs:
                bonus_tiles(ev, kong_pay, ctx, "win")
            s.payments.extend(kong_pay)
    if not plugins or not ev.hook_live("mj_modify_settlement"):
        return s  # (no plugin modifies settlements: no context to build for them)
    melds = {seat: f.melds for seat, f in (seats or {}).items()}
    melds[ctx.seat] = tuple(hand.melds)
    return st.apply_plugins(s, ev.settlement_context("win", ctx, score, melds), ev.pm)


class SettleSteps:
    """Which steps of :func:`settle` a ruleset has, decided once per evaluator (most rulesets
    have none of the optional ones, and a win then skips them without asking each)."""

    __slots__ = ("adjusted", "bonus_on_kongs", "kongs_at_kong", "per_payment")

    def __init__(self, rs: Ruleset) -> None:
        self.per_payment = bool(rs.scoring.per_payment)
        self.adjusted = bool(rs.counters or rs.laid_kongs or rs.bonus_tiles is not None)
        self.kongs_at_kong = rs.flow.kongs_paid == "at_kong"
        self.bonus_on_kongs = rs.bonus_tiles is not None and bool(rs.bonus_tiles.kongs)


def _adjust(ev: Evaluator, payments: list[st.Payment], ctx: WinContext) -> None:
    """A win's payments as counters, laid-aside kongs and bonus tiles change them."""
    rs = ev.ruleset
    if rs.counters:
        counters.apply(rs, payments, dealer=ctx.dealer, state=ctx.seat_state)
    laid_counts = ctx.extra.get(laid.LAID_KEY) if rs.laid_kongs else None
    if laid_counts:
        laid.apply(payments, laid_counts)
    bonus_tiles(ev, payments, ctx, "win")


def liable_seat(ev: Evaluator, hand: Hand, ctx: WinContext, score: Score) -> int | None:
    """The seat that pays every share of this win (``scoring.liable``, 包), or None."""
    rs = ev.ruleset
    wild = score.wildcard is not None and ev._is_wild(hand.win_tile, score.wildcard)
    facts = HandFacts(0, 0, wild, ev._suits_in_set)
    for rule in rs.scoring.liable:
        if not when_holds(rule.when, ctx, facts):
            continue
        seat = ctx.discarder if rule.pays == "discarder" else st.feeder(hand.melds, rule.fed or 1)
        if seat is not None and seat != ctx.seat:
            return seat
    return None

def _pay_per_payer(ev: Evaluator, hand: Hand, ctx: WinContext, score: Score,
                   plan: tuple[tuple[int, int, int], ...], payers: Sequence[int] | None,
                   seats: Mapping[int, st.SeatFacts] | None) -> list[st.Payment]:
    """Win payments where they depend on more than the points and seats: a liable seat
    paying every share (each priced as if every other player paid), per-payer amounts,
    caps per payment and 金顶 (:func:`~.settlement.payer_amounts`)."""
    rs = ev.ruleset
    liable = ev.liable_seat(hand, ctx, score) if rs.scoring.liable else None
    if liable is not None:
        plan = st.win_plan(rs, winner=ctx.seat, dealer=ctx.dealer, win_by=ctx.win_by,
                           discarder=ctx.discarder, payers=payers, rule="each_other")
    payments = st.pay_plan(plan, ctx.seat, rs.scoring.amount(score.points),
                           "+".join([p.name for p in score.patterns]))
    payments = st.payer_amounts(rs.scoring, payments, seats, dealer=ctx.dealer, discarder=ctx.discarder)
    return payments if liable is None else st.redirect(payments, liable)

def settle_opening(ev: Evaluator, ctx: WinContext, score: Score) -> st.Settlement:
    rs = ev.ruleset
    s = st.Settlement(rs.players)
    if score.win:
        s.payments.extend(st.win_payments(
            rs, winner=ctx.seat, dealer=ctx.dealer, win_by="self_draw", discarder=None,
            points=score.points, reason="+".join(score.pattern_names)))
        bonus_tiles(ev, s.payments, ctx, "opening")
    return st.apply_plugins(s, ev.settlement_context("opening", ctx, score), ev.pm)


def bonus_tiles(ev: Evaluator, payments: list[st.Payment], ctx: WinContext, kind: str) -> None:
    """Apply the ruleset's bonus tiles (``bonus_tiles``) turned up for this settlement."""
    rule = ev.ruleset.bonus_tiles
    tiles = ctx.extra.get(rule.key) if rule is not None and kind in rule.at else None
    if rule is None or not tiles:
        return
    bonus.apply(rule, payments, bonus.hits(rule, tiles, dealer=ctx.dealer, winner=ctx.seat,
                                           players=ev.ruleset.players))

def settlement_context(ev: Evaluator, kind: str, ctx: WinContext, score: Score,
                       melds: Mapping[int, tuple[Meld, ...]] | None = None) -> st.SettlementContext:
    """What plugins see of a settlement (kind: win or opening); ``melds``: every seat's
    declared melds as far as known."""
    # (positional, in SettlementContext's field order: made for every win a plugin hears of)
    return st.SettlementContext(kind, ev.ruleset.players, ctx.dealer, (ctx.seat,), ctx.win_by, ctx.discarder,
                                tuple(score.pattern_names), score.points, ctx.flags, ctx.extra, melds or {})
