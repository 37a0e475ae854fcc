"""Does a win's context meet a pattern's ``when``? (Moved out of :mod:`.patterns`, which
re-exports it: the context is judged once per win, not per reading.)"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.hand import WinContext
from ..rules.model import MISSING, Pattern, When

if TYPE_CHECKING:
    from .patterns import HandFacts


def context_holds(p: Pattern, ctx: WinContext, facts: HandFacts) -> bool:
    return when_holds(p.when, ctx, facts)


def when_holds(w: When, ctx: WinContext, facts: HandFacts) -> bool:
    """Does the win's context meet ``when`` (nested ``any`` / ``all`` / ``not`` included)?"""
    if w.win_by is not None and ctx.win_by not in w.win_by:
        return False
    if w.win_tile is not None and (w.win_tile == "wildcard") != facts.win_tile_wild:
        return False
    if w.seat is not None and (w.seat == "dealer") != (ctx.seat == ctx.dealer):
        return False
    if w.discarder is not None and (
            ctx.discarder is None or (w.discarder == "dealer") != (ctx.discarder == ctx.dealer)):
        return False
    if not w.flags <= ctx.flags:
        return False
    if w.not_flags & ctx.flags:
        return False
    if w.seat_state:
        state = ctx.seat_state
        for key, value in w.seat_state:
            if key not in state or state[key] != value:
                return False
    if w.state_tests:
        state = ctx.seat_state
        for key, test in w.state_tests:
            if not test.ok(state.get(key, MISSING) if state else MISSING):
                return False
    for key, test in w.context:
        value = ctx.extra.get(key, MISSING)
        if not test.ok(len(value) if isinstance(value, list | tuple) else value):
            return False
    if w.any_ and not any(when_holds(x, ctx, facts) for x in w.any_):
        return False
    if w.all_ and not all(when_holds(x, ctx, facts) for x in w.all_):
        return False
    return w.not_ is None or not when_holds(w.not_, ctx, facts)
