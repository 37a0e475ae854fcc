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

from .model import Ruleset
from .plugins import call_hook

LEAVE_REASON = "leave"  # the reason of a leaver's penalty (see the ruleset's ``leave``)


@dataclass
class Payment:
    payer: int
    payee: int | None  # None: paid to nobody (a penalty)
    amount: int
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"payer": self.payer, "payee": self.payee, "amount": self.amount, "reason": self.reason}


@dataclass(frozen=True)
class SettlementContext:
    """What is being settled; a read-only view for plugins."""

    kind: str  # "win" | "opening" | "kongs"
    players: int
    dealer: int
    winners: tuple[int, ...] = ()
    win_by: str | None = None
    discarder: int | None = None
    patterns: tuple[str, ...] = ()
    points: int = 0
    flags: frozenset[str] = frozenset()
    extra: Mapping[str, Any] = field(default_factory=dict)


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


def _others(seat: int, players: int) -> Iterable[int]:
    return (s for s in range(players) if s != seat)


def win_payments(
    ruleset: Ruleset, *, winner: int, dealer: int, win_by: str, discarder: int | None, points: int,
    reason: str,
) -> list[Payment]:
    """Payments for one win by the ruleset's payout rule and dealer adjustment."""
    rule = ruleset.scoring.payout.get(win_by, "each_other" if win_by == "self_draw" else "discarder")
    if rule == "discarder" and discarder is not None:
        payers: Iterable[int] = [discarder]
    else:
        payers = _others(winner, ruleset.players)
    out = []
    for payer in payers:
        amount = points
        if ruleset.scoring.dealer_bonus and dealer in (payer, winner):
            amount += ruleset.scoring.dealer_bonus
        out.append(Payment(payer, winner, amount, reason))
    return out


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
