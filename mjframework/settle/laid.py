"""Tiles laid aside as kongs (``laid_kongs``: 红中杠, 皮子杠): what they do to a win's payments.

Each kind laid aside with ``double: true`` doubles every win payment its seat makes or
receives (two laid aside by the payer and one by the winner: ×8). The counts per seat
come in the settlement context under :data:`LAID_KEY` (the game puts them there; a
conformance case or ``mj score --context`` gives them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..rules.model import Ruleset
from .settlement import Payment

LAID_KEY = "laid_kongs"  # the settlement context key: per seat, the doubling kongs laid aside


def laid_counts(rs: Ruleset, states: Sequence[Mapping[str, Any]]) -> list[int]:
    """Per seat, how many doubling kinds it laid aside (from each seat's state)."""
    names = [lk.name for lk in rs.laid_kongs if lk.double]
    return [sum(int(st.get(n, 0)) for n in names) for st in states]


def apply(payments: Sequence[Payment], counts: Sequence[int]) -> None:
    """Double each payment (in place) once per kong laid aside by its payer or payee."""
    for p in payments:
        if p.payee is None:
            continue
        n = counts[p.payer] + counts[p.payee]
        if n > 0:
            p.amount *= 2 ** n
            p.reason += f" ×{2 ** n} 杠"
