"""How many times each combination pattern counts when the ruleset counts combinations once
(``scoring.set_combinations: once``): :func:`account_combinations`."""

from __future__ import annotations

from itertools import combinations
from typing import TYPE_CHECKING

from ..rules.model import Pattern
from .patterns import matching_combinations

if TYPE_CHECKING:
    from .patterns import Measures


def account_combinations(patterns: list[Pattern], m: Measures) -> dict[Pattern, int]:
    """How many times each combination pattern counts (``set_combinations: once``).

    Per kind of set (sequences; triplets), with the reading's suited sets:

    1. the largest combination first: of the patterns over the most sets that match some sets,
       the best paying (then the first declared) counts once; each set left out of it may then
       combine once with one set of it (the best two-set pattern);
    2. with no combination of three or more: every two sets count the best two-set pattern they
       match, but at most ``sets − 1 − unrelated sets`` of them (a set already combined combines
       again only to bring in a new set); the surplus is dropped from repeated patterns first,
       lowest paying and last declared first.
    """
    out: dict[Pattern, int] = {}
    for kind in ("seq", "triplet"):
        mine = [p for p in patterns if p.sets is not None and p.sets.kind == kind]
        if not mine:
            continue
        sets = m.suited_sets(kind)
        n = len(sets)
        pairs = [p for p in mine if p.sets is not None and p.sets.count == 2]
        rank = sorted(pairs, key=lambda p: (-p.points, p.index))

        def pair_pattern(i: int, j: int, rank: list[Pattern] = rank,
                         sets: list[tuple[int, int, int]] = sets) -> Pattern | None:
            a, b = sorted((sets[i], sets[j]))
            for p in rank:
                if p.sets is not None and p.sets.match([(a[0], a[1]), (b[0], b[1])]):
                    return p
            return None

        big = [p for p in mine if p.sets is not None and p.sets.count >= 3]
        taken = None
        for k in sorted({p.sets.count for p in big if p.sets is not None}, reverse=True):
            best = None
            for p in big:
                if p.sets is None or p.sets.count != k:
                    continue
                for sub in matching_combinations(p, sets):
                    key = (p.points, -p.index)
                    if best is None or key > best[0]:
                        best = (key, p, sub)
                    break
            if best is not None:
                taken = best
                break
        if taken is not None:
            _, p, sub = taken
            out[p] = out.get(p, 0) + 1
            for f in (i for i in range(n) if i not in sub):
                found = [q for q in (pair_pattern(f, u) for u in sub) if q is not None]
                if found:
                    q = min(found, key=lambda x: (-x.points, x.index))
                    out[q] = out.get(q, 0) + 1
            continue
        links = {(i, j): pq for i, j in combinations(range(n), 2) if (pq := pair_pattern(i, j)) is not None}
        if not links:
            continue
        related = {x for ij in links for x in ij}
        limit = n - 1 - (n - len(related))
        counts: dict[Pattern, int] = {}
        for q in links.values():
            counts[q] = counts.get(q, 0) + 1
        total = sum(counts.values())
        order = sorted(counts, key=lambda x: (x.points, -x.index))  # dropped first
        for floor in (1, 0):
            for q in order:
                while total > limit and counts[q] > floor:
                    counts[q] -= 1
                    total -= 1
        for q, c in counts.items():
            if c:
                out[q] = out.get(q, 0) + c
    return out
