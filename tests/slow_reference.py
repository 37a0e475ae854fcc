"""The evaluator's and the greedy bot's previous implementations, kept as slow references.

``tests/test_fast_paths.py`` checks the table-driven fast paths
(:mod:`mjframework.evaluate.fastwin`, the bot's table-driven discard choice) against
these on many hands, ``tests/test_scoring_reference.py`` the scoring's reading
search: answers must be identical.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from mjframework.core.hand import Hand, Meld, WinContext
from mjframework.core.tiles import Tile, tile_name
from mjframework.evaluate.combinations import account_combinations
from mjframework.evaluate.compiler import _partial_exclusions
from mjframework.evaluate.patterns import (
    HandFacts,
    Measures,
    requirements_hold,
    times,
    when_holds,
)
from mjframework.evaluate.readings import Reading, readings
from mjframework.evaluate.scoring import Evaluator, Score
from mjframework.evaluate.waits import shape_possible, wait_holds
from mjframework.rules.model import Pattern


def score(ev: Evaluator, hand: Hand, ctx: WinContext, wildcard: Tile | None = None) -> Score:
    """``Evaluator._score`` before the reading search: every reading of every shape is judged."""
    if wildcard is None:
        wildcard = ev._default_wild
    if not ev.ruleset.win.allows(ctx.win_by):
        return Score(False, f"this ruleset has no win by {ctx.win_by}", wildcard=wildcard)
    if ev._void_rule and ev.void_refuses(hand, ctx):
        return Score(False, f"the hand holds its declared void suit ({ctx.seat_state['void_suit']})",
                     wildcard=wildcard)
    win_wild = ev._is_wild(hand.win_tile, wildcard)
    if win_wild and ctx.win_by != "self_draw" and not ev._wild_claims:
        return Score(False, "a wildcard can't be won on a discard", wildcard=wildcard)
    if ctx.win_by == "discard" and hand.win_tile in ev.ruleset.claims.never_kinds:  # (claims.never)
        return Score(False, f"{tile_name(hand.win_tile)} is never claimed: no win on its discard",
                     wildcard=wildcard)
    held = ev.split(hand.concealed, wildcard)
    facts = HandFacts(
        wildcards=held.wilds + win_wild,
        wildcards_held=held.wilds,
        win_tile_wild=win_wild,
        suits_in_set=ev._suits_in_set,
        win_tile=hand.win_tile,
        winds=ctx.winds(ev.ruleset.players),
        flowers=ctx.flowers,
        held=tuple(hand.concealed),
        melds=len(hand.melds),
        won_on_discard=ctx.win_by != "self_draw",
        won_triplet_exposed=ev.ruleset.scoring.won_triplet == "exposed",
        waiting=lambda: waiting_tiles(ev, hand.concealed, hand.melds, wildcard),
        wild_kinds=ev.wild_kinds(wildcard) if ev._fixed else None,
        ctx=ctx, refused=[],
    )
    exposed = len(hand.melds)
    by_shape, active = ev._for_context(ctx, facts)
    waits_ok = {
        p.name for p in ev.wait_patterns
        if p.name in active and any(wait_holds(held, exposed, w) for w in p.waits)
    }
    full = ev.split([*hand.concealed, hand.win_tile], wildcard)
    best: tuple | None = None
    for shape, candidates in by_shape:
        if not ev._could_be(full, hand, shape):
            continue
        todo = [p for p in candidates if not p.waits or p.name in waits_ok]
        if not any(p.makes_win for p in todo):
            continue
        for reading in readings(full, hand.melds, shape, ev.kinds):
            result = judge(ev, reading, todo, facts, wildcard)
            if result is None:
                continue
            points, picked = result
            key = (ev.order(points), ev.tie_key(picked))
            if best is None or key < best[0]:
                best = (key, reading, picked, points)
    if best is None:
        reason = "no reading of the hand is a winning pattern"
        if facts.refused:
            reason = f"no reading of the hand meets what every win needs ({facts.refused[0]})"
        return Score(False, reason, wildcard=wildcard)
    _, reading, picked, points = best
    return ev._finish(reading, picked, points, wildcard)


def waiting_tiles(ev: Evaluator, concealed: Sequence[Tile], melds: Sequence[Meld] = (),
                  wildcard: Tile | None = None) -> int:
    """``Evaluator.waiting_tiles`` before it checked only candidate kinds: every kind, split afresh."""
    shapes = [s for s in ev.shapes if s.kind in ("standard", "pairs", "knitted_straight")]
    n = 0
    for t in ev.kinds:
        full = ev.split([*concealed, t], wildcard)
        if any(shape_possible(full, len(melds), s, ev.kinds) for s in shapes):
            n += 1
    return n


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
    return score(ev, hand, ctx, wildcard).win


def waits(ev: Evaluator, concealed: Sequence[Tile], melds: Sequence[Meld] = (),
          ctx: WinContext | None = None, wildcard: Tile | None = None) -> list[Tile]:
    """``Evaluator.waits`` before the fast path: ``is_win`` on every kind."""
    ctx = ctx or WinContext()
    return [t for t in ev.kinds
            if is_win(ev, Hand(tuple(concealed), tuple(melds), t), ctx, wildcard)]


def best_discard(c: list[int], w: int, candidates: Sequence[Tile]) -> tuple[int, Tile | None]:
    """``GreedyBot._best_discard`` before the per-block version: every candidate's need and
    isolation, one full table query each."""
    from mjframework.play.bots import _isolation, missing

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


def judge(ev: Evaluator, reading: Reading, patterns: list[Pattern], facts: HandFacts,
          wildcard: Tile | None) -> tuple[int, list[tuple[Pattern, int]]] | None:
    """``Evaluator._judge`` before the bulk judge: each pattern's requirements one at a time."""
    m = Measures(reading.tiles, reading, facts, wildcard)
    matched = [p for p in patterns if requirements_hold(p, m)]
    if not any(p.makes_win for p in matched):
        return None
    result = combine(ev, matched, m)
    if result is not None and not win_require_met(ev, result[0], m, facts):
        return None
    return result


def win_require_met(ev: Evaluator, points: int, m: Measures, facts: HandFacts) -> bool:
    """``win.require``, judged entry by entry (``Evaluator._meets_win_require``)."""
    ctx = facts.ctx or WinContext()
    for r in ev.ruleset.win_require:
        applies = r.if_ is None or (when_holds(r.if_.when, ctx, facts) and requirements_hold(r.if_, m))
        if not applies:
            continue
        check = r.check
        if ((check is not None and not (when_holds(check.when, ctx, facts) and requirements_hold(check, m)))
                or (r.points is not None and not r.points.ok(points))):
            if facts.refused is not None and not facts.refused:
                facts.refused.append(r.why or f"win.require[{ev.ruleset.win_require.index(r)}]")
            return False
    return True


def combine(ev: Evaluator, matched: list[Pattern],
            m: Measures) -> tuple[int, list[tuple[Pattern, int]]] | None:
    """``Evaluator._combine`` before exclusions were precomputed and combinations accounted per
    multiset of sets."""
    sc = ev.ruleset.scoring
    if sc.exclusions == "ranked":
        excluded: set[str] = set()
        kept = []
        for p in sorted(matched, key=lambda x: (-x.points, x.index)):
            if p.name not in excluded:
                kept.append(p)
                excluded |= p.excludes
                excluded |= {e.name for e in p.partial_excludes if e.times is None and not e.shared}
        kept.sort(key=lambda x: x.index)
    else:
        excluded = set().union(*(p.excludes for p in matched)) if matched else set()
        kept = [p for p in matched if p.name not in excluded]
    if ev._tier_rank and kept:
        default = ev.ruleset.scoring.tiers[0]
        top = min(ev._tier_rank[p.tier or default] for p in kept)
        kept = [p for p in kept if ev._tier_rank[p.tier or default] == top]
    combos = account_combinations(kept, m) if sc.set_combinations == "once" else {}
    counted = [(p, combos.get(p, 0) if p.sets is not None and sc.set_combinations == "once"
                else times(p, m)) for p in kept]
    if any(p.partial_excludes for p in kept):
        counted = _partial_exclusions(counted, m)
    counted = [(p, n) for p, n in counted if n > 0]
    if any(p.fallback for p, _ in counted) and any(
            not p.fallback and p.counts_to_minimum for p, _ in counted):
        counted = [(p, n) for p, n in counted if not p.fallback]
    if not counted:
        return None
    if ev.ruleset.scoring.combine == "highest":
        p, n = max(counted, key=lambda x: (x[0].points * x[1], -x[0].index))
        return p.points * n, [(p, n)]
    if ev.ruleset.scoring.combine == "product":
        return math.prod(p.points ** n for p, n in counted), counted
    return sum(p.points * n for p, n in counted), counted
