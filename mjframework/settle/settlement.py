"""Settlement: who pays whom, from the ruleset's payout rules, then plugins.

A settlement is a list of :class:`Payment` between two seats, so it always
sums to zero (a penalty that leaves the table is a payment to ``None`` and is
reported separately). Seats are 0–3 counted counterclockwise from the dealer
(seat ``dealer``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pluggy

from ..core.hand import Meld
from ..hooks.registry import call_hook
from ..rules.model import MISSING, PayerTest, Ruleset, Scoring

LEAVE_REASON = "leave"  # the reason of a leaver's penalty (see the ruleset's ``leave``)


@dataclass
class Payment:
    payer: int
    payee: int | None  # None: paid to nobody (a penalty)
    amount: int
    reason: str
    for_seat: int | None = None  # liability (包): the seat whose share ``payer`` pays instead

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"payer": self.payer, "payee": self.payee, "amount": self.amount,
                             "reason": self.reason}
        if self.for_seat is not None:  # (absent otherwise: a log without liability is unchanged)
            d["for_seat"] = self.for_seat
        return d


@dataclass(frozen=True)
class SettlementContext:
    """What is being settled; a read-only view for plugins."""

    kind: str  # "win" | "opening" | "kongs" | "kong" (paid at the kong) | "refund" | "draw"
    players: int
    dealer: int
    winners: tuple[int, ...] = ()
    win_by: str | None = None
    discarder: int | None = None
    patterns: tuple[str, ...] = ()
    points: int = 0
    flags: frozenset[str] = frozenset()
    extra: Mapping[str, Any] = field(default_factory=dict)
    # Every seat's declared melds as far as known (the winner's from the hand; the others' from
    # the game, or from `mj score --seat-meld` / a conformance case's `seats`), with `from` seats.
    melds: Mapping[int, tuple[Meld, ...]] = field(default_factory=dict)


@dataclass
class Settlement:
    players: int
    payments: list[Payment] = field(default_factory=list)

    def net(self) -> list[int]:
        """Net points per seat (payments to nobody count against the payer)."""
        out = [0] * self.players
        for p in self.payments:
            out[p.payer] -= p.amount
            if p.payee is not None:
                out[p.payee] += p.amount
        return out

    def penalties(self) -> int:
        return sum(p.amount for p in self.payments if p.payee is None)


@dataclass(frozen=True)
class KongRecord:
    """A kong made this hand: owner, kind (kong / added_kong / concealed_kong), discarder."""

    owner: int
    kind: str
    from_seat: int | None = None


@dataclass(frozen=True)
class SeatFacts:
    """What settlement reads of one seat besides the win: its declared melds (with the seat
    each claimed tile came from) and its per-seat state (declarations, what plugins stored).
    Per-payer amounts (``scoring.per_payer``) read the payers'; the game, ``mj score`` and
    conformance cases give them."""

    melds: tuple[Meld, ...] = ()
    state: Mapping[str, Any] = field(default_factory=dict)


def seat_measure(melds: Sequence[Meld], name: str) -> int:
    """A measure of a seat's own declared melds (:data:`~.model.SEAT_MEASURES`)."""
    if name == "claimed_melds":
        return sum(1 for m in melds if m.claimed)
    if name == "kongs":
        return sum(1 for m in melds if m.is_kong)
    if name == "exposed_kongs":
        return sum(1 for m in melds if m.is_kong and m.claimed)
    if name == "concealed_kongs":
        return sum(1 for m in melds if m.kind == "concealed-kong")
    if name == "melds":
        return len(melds)
    raise ValueError(f"unknown seat measure {name!r}")


def _payer_holds(t: PayerTest, seat: int, facts: SeatFacts, *, dealer: int, discarder: int | None) -> bool:
    if t.dealer is not None and (seat == dealer) != t.dealer:
        return False
    if t.discarder is not None and (seat == discarder) != t.discarder:
        return False
    for name, test in t.measures:
        if not test.ok(seat_measure(facts.melds, name)):
            return False
    return all(test.ok(facts.state.get(key, MISSING)) for key, test in t.state)


def payer_amounts(scoring: Scoring, payments: list[Payment], seats: Mapping[int, SeatFacts] | None, *,
                  dealer: int, discarder: int | None) -> list[Payment]:
    """Win payments with each payer's own amount (``per_payer``: × and + from the payer's melds
    and state), each capped (``payment_cap``, 封顶), and all raised to ``all_capped`` (金顶)
    when every one of them reached the cap. A seat not in ``seats`` has no melds and no state."""
    empty = SeatFacts()
    raw = []
    for pay in payments:
        amount = pay.amount
        facts = seats.get(pay.payer, empty) if seats else empty
        for rule in scoring.per_payer:
            if rule.per is not None:
                n = seat_measure(facts.melds, rule.per)
            else:
                n = 1 if rule.if_ is None or _payer_holds(rule.if_, pay.payer, facts, dealer=dealer,
                                                         discarder=discarder) else 0
            amount = amount * rule.times ** n + rule.plus * n
        raw.append(amount)
    cap = scoring.payment_cap
    if cap is None:
        return [Payment(p.payer, p.payee, a, p.reason) for p, a in zip(payments, raw, strict=True)]
    if scoring.all_capped is not None and raw and all(a >= cap for a in raw):
        return [Payment(p.payer, p.payee, scoring.all_capped, p.reason) for p in payments]
    return [Payment(p.payer, p.payee, min(a, cap), p.reason) for p, a in zip(payments, raw, strict=True)]


def feeder(melds: Sequence[Meld], fed: int) -> int | None:
    """The seat the winner's claimed melds came from ``fed`` times or more (the most; the first
    such meld's seat on a tie), or None."""
    counts: dict[int, int] = {}
    for m in melds:
        if m.claimed and m.from_seat is not None:
            counts[m.from_seat] = counts.get(m.from_seat, 0) + 1
    best = max(counts.values(), default=0)
    if best < fed:
        return None
    return next(s for s in counts if counts[s] == best)


def redirect(payments: list[Payment], liable: int) -> list[Payment]:
    """Every payment made by ``liable`` instead of its payer (包); the reason names the seat
    paid for."""
    return [p if p.payer == liable
            else Payment(liable, p.payee, p.amount, f"{p.reason} (for seat {p.payer})", for_seat=p.payer)
            for p in payments]


def _others(seat: int, players: int) -> Iterable[int]:
    return (s for s in range(players) if s != seat)


def win_payments(
    ruleset: Ruleset, *, winner: int, dealer: int, win_by: str, discarder: int | None, points: int,
    reason: str, payers: Sequence[int] | None = None,
) -> list[Payment]:
    """Payments for one win by the ruleset's payout rule and dealer adjustment.

    ``payers``: the seats that may pay (default: everyone but the winner) —
    in a hand that goes on after a win, those still in it.
    """
    plan = win_plan(ruleset, winner=winner, dealer=dealer, win_by=win_by, discarder=discarder,
                    payers=payers)
    return pay_plan(plan, winner, ruleset.scoring.amount(points), reason)


def win_plan(ruleset: Ruleset, *, winner: int, dealer: int, win_by: str, discarder: int | None,
             payers: Sequence[int] | None = None, rule: str | None = None
             ) -> tuple[tuple[int, int, int], ...]:
    """Who pays a win, and how much as a function of the base amount: ``(payer, times, plus)``
    per payment, the amount being ``base × times + plus`` (in payment order).

    ``rule``: who pays, instead of the ruleset's payout for ``win_by`` (``each_other``).

    Everything but the points is known before the hand is scored, so a caller settling many
    wins of one ruleset (:meth:`Evaluator.settle`) keeps the plan per seat arrangement and
    pays each win with a few multiplications (:func:`pay_plan`). Exact: multipliers and
    bonuses are integers, so ``base × m1 × m2 + b`` is ``base × (m1 × m2) + b``.
    """
    if rule is None:  # (`each_other`: the shares a liable seat pays, see payer_amounts)
        rule = ruleset.scoring.payer(win_by)
    if rule == "discarder" and discarder is not None:
        who: Iterable[int] = [discarder]
    else:
        who = _others(winner, ruleset.players)
    if payers is not None:
        who = [p for p in who if p in payers]
    sc = ruleset.scoring
    out = []
    liable = list(who)
    for payer in liable:
        times, plus = _linear(sc, dealer=dealer in (payer, winner), discarder=payer == discarder,
                              self_draw=win_by == "self_draw")
        out.append((payer, times, plus + sc.each_pays))
    if sc.each_pays:  # 底: every other player still in pays it, liable or not
        for payer in _others(winner, ruleset.players):
            if payer not in liable and (payers is None or payer in payers):
                out.append((payer, 0, sc.each_pays))
    return tuple(out)


def pay_plan(plan: Sequence[tuple[int, int, int]], winner: int, base: int, reason: str) -> list[Payment]:
    """The payments of a :func:`win_plan` for a win whose base amount is ``base``."""
    return [Payment(payer, winner, base * times + plus, reason) for payer, times, plus in plan]


def _linear(scoring: Scoring, *, dealer: bool, discarder: bool, self_draw: bool) -> tuple[int, int]:
    """:func:`payment_amount` as ``(times, plus)``: the amount is ``base × times + plus``."""
    applies = {"dealer": dealer, "discarder": discarder, "self_draw": self_draw}
    times = 1
    for key, m in scoring.multipliers.items():
        if applies.get(key):
            times *= m
    plus = 0
    if scoring.dealer_bonus and dealer:
        plus += scoring.dealer_bonus
    for key, b in scoring.bonuses.items():
        if applies.get(key):
            plus += b
    return times, plus


def payment_amount(scoring: Scoring, base: int, *, dealer: bool, discarder: bool, self_draw: bool) -> int:
    """One payer's amount: ``base`` × the multipliers that apply + the bonuses that apply.

    ``dealer``: the payer or the winner is the dealer; ``discarder``: the payer
    dealt in; ``self_draw``: the win is a self-draw (``scoring.multipliers`` /
    ``scoring.bonuses``; ``dealer_bonus`` is ``bonuses.dealer``).
    """
    applies = {"dealer": dealer, "discarder": discarder, "self_draw": self_draw}
    amount = base
    for key, m in scoring.multipliers.items():
        if applies.get(key):
            amount *= m
    if scoring.dealer_bonus and dealer:
        amount += scoring.dealer_bonus
    for key, b in scoring.bonuses.items():
        if applies.get(key):
            amount += b
    return amount


def kong_payments(ruleset: Ruleset, kongs: Sequence[KongRecord]) -> list[Payment]:
    """Kong payments (e.g. 点杠 / 明杠 / 暗杠) as the ruleset declares them."""
    out = []
    for k in kongs:
        rule = ruleset.scoring.kongs.get(k.kind)
        if rule is None or rule.amount == 0:
            continue
        if rule.payer == "discarder" and k.from_seat is not None:
            out.append(Payment(k.from_seat, k.owner, rule.amount, k.kind))
        else:
            out.extend(Payment(p, k.owner, rule.amount, k.kind) for p in _others(k.owner, ruleset.players))
    return out


def check_balance(ruleset: Ruleset, items: Sequence[Mapping[str, Any]],
                  payments: Sequence[int]) -> list[str]:
    """What is wrong with a settlement's balance, judged from its items (empty: nothing).

    A settlement sums to zero, except by exactly the ruleset's declared leave
    penalty paid to nobody (``leave: {penalty: N, paid_to: none}``): one item
    per leaver, reason ``leave``, amount ``N``, payee ``None``. Anything else paid
    to nobody is wrong.
    """
    problems = []
    rule = ruleset.leave
    net = [0] * len(payments)
    for it in items:
        net[it["payer"]] -= it["amount"]
        if it["payee"] is not None:
            net[it["payee"]] += it["amount"]
        elif not (it["reason"] == LEAVE_REASON and rule.paid_to == "none" and rule.penalty > 0
                  and it["amount"] == rule.penalty):
            problems.append(f"{it['amount']} paid to nobody ({it['reason']!r}) is no declared penalty")
    if net != list(payments):
        problems.append(f"payments {list(payments)} differ from their items {net}")
    penalties = sum(it["amount"] for it in items if it["payee"] is None)
    if sum(payments) != -penalties:
        problems.append(f"payments {list(payments)} do not sum to zero" if not penalties else
                        f"payments {list(payments)} sum to {sum(payments)}, not -{penalties}")
    return problems


def apply_plugins(settlement: Settlement, context: SettlementContext,
                  pm: pluggy.PluginManager | None) -> Settlement:
    """Let the ruleset's plugins modify the settlement (``mj_modify_settlement``)."""
    if pm is not None:
        call_hook(pm, "mj_modify_settlement", settlement=settlement, context=context)
    return settlement
