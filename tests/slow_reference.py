"""The evaluator's and the greedy bot's previous implementations, kept as slow references.

``tests/test_fast_paths.py`` checks the table-driven fast paths
(:mod:`mjframework.fastwin`, the bot's table-driven discard choice) against
these on many hands: answers must be identical.
"""

from __future__ import annotations

from collections.abc import Sequence

from mjframework.hand import Hand, Meld, WinContext
from mjframework.scoring import Evaluator
from mjframework.tiles import Tile
from mjframework.waits import shape_possible, wait_holds


def is_win(ev: Evaluator, hand: Hand, ctx: WinContext, wildcard: Tile | None = None) -> bool:
    """``Evaluator.is_win`` before the fast path: context checks, shape pre-checks, then scoring."""
    if hand.win_tile is None:
        return False
    if not ev.ruleset.win.allows(ctx.win_by):
        return False
    if ev._fixed:
        if wildcard is None:
            wildcard = ev._default_wild
        if ev._is_wild(hand.win_tile, wildcard) and ctx.win_by != "self_draw" and not ev._wild_claims:
            return False
    elif wildcard is not None and hand.win_tile == wildcard and ctx.win_by != "self_draw" \
            and not ev._wild_claims:
        return False
    if ev._void_rule and ev.void_refuses(hand, ctx):
        return False
    full = ev.split([*hand.concealed, hand.win_tile], wildcard)
    exposed = len(hand.melds)
    if any(shape_possible(full, exposed, s, ev.kinds) for s in ev._unconditional):
        return True
    if not any(ev._could_be(full, hand, s) for s in ev.shapes):
        held = ev.split(hand.concealed, wildcard)
        if not any(wait_holds(held, exposed, w) for p in ev.wait_patterns for w in p.waits):
            return False
    return ev._score(hand, ctx, wildcard).win


def waits(ev: Evaluator, concealed: Sequence[Tile], melds: Sequence[Meld] = (),
          ctx: WinContext | None = None, wildcard: Tile | None = None) -> list[Tile]:
    """``Evaluator.waits`` before the fast path: ``is_win`` on every kind."""
    ctx = ctx or WinContext()
    return [t for t in ev.kinds
            if is_win(ev, Hand(tuple(concealed), tuple(melds), t), ctx, wildcard)]


def waiting_tiles(ev: Evaluator, concealed: Sequence[Tile], melds: Sequence[Meld] = (),
                  wildcard: Tile | None = None) -> int:
    """``Evaluator.waiting_tiles`` before the candidate screen: every kind added and checked."""
    shapes = [s for s in ev.shapes if s.kind in ("standard", "pairs", "knitted_straight")]
    n = 0
    for t in ev.kinds:
        full = ev.split([*concealed, t], wildcard)
        if any(shape_possible(full, len(melds), s, ev.kinds) for s in shapes):
            n += 1
    return n


def best_discard(c: list[int], w: int, candidates: Sequence[Tile]) -> tuple[int, Tile | None]:
    """``GreedyBot._best_discard`` before the per-block version: every candidate's need and
    isolation, one full table query each."""
    from mjframework.bots import _isolation, missing

    best: tuple[int, int, Tile] | None = None
    for t in candidates:
        c[t] -= 1
        need = missing(c, w)
        c[t] += 1
        key = (need, _isolation(c, t) * -1, t)
        if best is None or key < best:
            best = key
    if best is None:
        return 99, None
    return best[0], best[2]
