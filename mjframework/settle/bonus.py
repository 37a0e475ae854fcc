"""Bonus tiles (birds, horses): which seat each tile hits, and how hits change a settlement.

Pure arithmetic over the ruleset's ``bonus_tiles`` (:class:`~mjframework.rules.model.BonusTiles`);
the game turns the tiles up (:mod:`mjframework.play.bonus`), a conformance case or
``mj score`` gives them as the context key ``bonus_tiles`` (or the rule's ``key``).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..core.tiles import Tile
from ..rules.model import BonusTiles
from .settlement import Payment

CONTEXT_KEY = "bonus_tiles"  # the settlement context key holding the tiles turned up (unless `key`)


def count_for(rule: BonusTiles, tiles: Sequence[Tile], patterns: Sequence[str],
              wildcards: frozenset[Tile]) -> int:
    """How many bonus tiles a win turns up: ``count`` plus every ``more`` whose conditions hold.

    ``tiles``: every tile of the winning hand (the winning tile and melds too);
    ``patterns``: the names it scores; ``wildcards``: the hand's wild kinds.
    """
    n = rule.count
    for m in rule.more:
        if m.patterns and m.patterns.isdisjoint(patterns):
            continue
        if m.no_wildcards is not None and m.no_wildcards == any(t in wildcards for t in tiles):
            continue
        n += m.add
    return max(0, n)


def hits(rule: BonusTiles, tiles: Sequence[Tile], *, dealer: int, winner: int, players: int) -> list[int]:
    """How many of ``tiles`` hit each seat."""
    out = [0] * players
    for t in tiles:
        seat = rule.seat_hit(t, dealer=dealer, winner=winner, players=players)
        if seat is not None:
            out[seat] += rule.hits_of(t)
    return out


def seats_hit(rule: BonusTiles, tiles: Sequence[Tile], *, dealer: int, winner: int,
              players: int) -> list[int | None]:
    """The seat each of ``tiles`` hits, in order (None: no seat)."""
    return [rule.seat_hit(t, dealer=dealer, winner=winner, players=players) for t in tiles]


def apply(rule: BonusTiles, payments: Sequence[Payment], seat_hits: Sequence[int]) -> None:
    """Change each payment (in place) by the hits of its payer and/or payee.

    Payments to nobody (penalties) are left alone. The caller passes kong
    payments only where the rule changes them (``kongs``).
    """
    label = rule.name
    for p in payments:
        if p.payee is None:
            continue
        n = (seat_hits[p.payer] if rule.counts != "payee" else 0) + \
            (seat_hits[p.payee] if rule.counts != "payer" else 0)
        if n <= 0:
            continue
        if rule.effect == "double":
            p.amount *= 2 ** n
            p.reason += f" ×{2 ** n} {label}"
        elif rule.effect == "multiply":
            p.amount *= 1 + n
            p.reason += f" ×{1 + n} {label}"
        else:
            p.amount += rule.amount * n
            p.reason += f" +{rule.amount * n} {label}"


def most_hit(seats: Sequence[int | None]) -> int | None:
    """The seat hit most by tiles hitting ``seats`` (in the order turned up), ties going to
    the seat of the tile turned up first; None when no tile hits a seat (``deals_next``)."""
    hit = [s for s in seats if s is not None]
    if not hit:
        return None
    return max(hit, key=lambda s: (hit.count(s), -hit.index(s)))
