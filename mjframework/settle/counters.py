"""What the counters that last across hands add to a win's payments (``counters.NAME.pays``).

Every win payment the dealer makes or receives grows by ``pays.each`` × the count: the
table's count, or for a seat counter the winner's (its seat state, where the game puts
the counts and a case or ``mj score --seat-state`` gives them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..rules.model import Ruleset
from .settlement import Payment


def apply(rs: Ruleset, payments: Sequence[Payment], *, dealer: int, state: Mapping[str, Any]) -> None:
    """Add the counters' pay to ``payments`` (in place)."""
    for rule in rs.counters:
        count = state.get(rule.name)
        if not rule.pays_each or not isinstance(count, int) or isinstance(count, bool) or count <= 0:
            continue
        extra = rule.pays_each * count
        for p in payments:
            if p.payee is not None and dealer in (p.payer, p.payee):
                p.amount += extra
                p.reason += f" +{extra} {rule.name}"
