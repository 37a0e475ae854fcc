"""Counters that last across the hands of a game (the ruleset's ``counters``: 连庄, a level).

A game's hands are played in order (:func:`mjframework.run.simulate.play_hands`); each hand
starts with the counts the last one left (:func:`start` for the first) and after it
:func:`after_hand` moves them by what happened. The counts are a mapping name → one value
per seat (a table counter holds the same value for every seat), so a seat's view is
:func:`of_seat`. Which events move them: :data:`mjframework.rules.model.COUNTER_EVENTS`.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..rules.model import CounterRule, Ruleset

Counts = dict[str, tuple[int, ...]]  # counter name → its value for each seat


def start(rs: Ruleset) -> Counts:
    """Every counter at 0: the counts of a game's first hand."""
    return {c.name: (0,) * rs.players for c in rs.counters}


def of_seat(counts: Mapping[str, tuple[int, ...]], seat: int) -> dict[str, int]:
    """The counts as ``seat`` has them (its seat state while it wins)."""
    return {name: values[seat] for name, values in counts.items()}


def table_view(rs: Ruleset, counts: Mapping[str, tuple[int, ...]]) -> dict[str, int | list[int]]:
    """The counts as the log shows them: a table counter's one value, a seat counter's list."""
    scope = {c.name: c.scope for c in rs.counters}
    return {name: (list(v) if scope.get(name) == "seat" else v[0]) for name, v in counts.items()}


def _holds(event: str, seat: int | None, *, dealer: int, next_dealer: int, result: str,
           winners: frozenset[int]) -> bool:
    if event == "always":
        return True
    if event == "dealer_stays":
        return next_dealer == dealer and (seat is None or seat == dealer)
    if event == "deal_passes":
        return next_dealer != dealer and (seat is None or seat == dealer)
    if event == "dealer_wins":
        return dealer in winners and (seat is None or seat == dealer)
    if event == "draw":
        return result == "draw"
    if event == "win":
        return result == "win"
    if event == "wins":
        return seat in winners
    if event == "loses":
        return result == "win" and seat not in winners
    return False


def _next(rule: CounterRule, value: int, seat: int | None, **facts: object) -> int:
    if any(_holds(e, seat, **facts) for e in rule.reset):  # type: ignore[arg-type]
        value = 0
    elif any(_holds(e, seat, **facts) for e in rule.add):  # type: ignore[arg-type]
        value += 1
    return value if rule.max is None else min(value, rule.max)


def after_hand(rs: Ruleset, counts: Mapping[str, tuple[int, ...]], *, dealer: int, next_dealer: int,
               result: str, winners: list[int] | tuple[int, ...]) -> Counts:
    """The counts after a hand (an abandoned hand moves nothing: it is dealt again)."""
    if result == "abandon":
        return dict(counts)
    facts = dict(dealer=dealer, next_dealer=next_dealer, result=result, winners=frozenset(winners))
    out: Counts = {}
    for rule in rs.counters:
        values = counts.get(rule.name, (0,) * rs.players)
        if rule.scope == "table":
            out[rule.name] = (_next(rule, values[0], None, **facts),) * rs.players
        else:
            out[rule.name] = tuple(_next(rule, v, s, **facts) for s, v in enumerate(values))
    return out
