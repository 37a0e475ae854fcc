"""How far a hand is from a standard win: the least number of swaps (discard a natural tile,
draw one), a shanten-like count for bots and benchmarks, not the hot path.

It reads the same per-block tables as :mod:`.wintable` (a block's least wildcards for melds,
and for melds and a pair, after removing any number of its tiles) and combines the blocks
by a small dynamic programme over the number of tiles removed.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import product

from .wintable import _BLOCKS, INF, _as_counts, _entry, _lookup, ensure_tables
from .wintable_build import _block_mp

__all__ = ["distance"]


def distance(counts: Sequence[int], w: int) -> int:
    """Least number of swaps (discard a natural tile, draw one) to reach a standard win.

    0 means the hand already wins. The hand must have a winning size
    (``sum(counts) + w = 2 (mod 3)``, e.g. 14 tiles). Drawn tiles are assumed
    to be whatever is wanted (availability and the 4-copies limit are
    ignored), which makes a drawn tile as good as a wildcard: the answer is the
    least ``k`` such that removing some ``k`` natural tiles leaves a hand whose
    melds + pair need is at most ``w + k``. Wildcards are never discarded
    (that never helps). Shanten-like; meant for bots, not the hot path.
    """
    c = _as_counts(counts)
    if w < 0 or (sum(c) + w) % 3 != 2:
        raise ValueError("distance needs a hand of winning size: sum(counts) + w = 2 (mod 3)")
    ensure_tables()
    per_block = [_removal_needs(c[a:z], seq) for a, z, seq in _BLOCKS]
    # Answers are small (at most 7 for 14 tiles without wildcards), so combine
    # the blocks for up to 8 removals first and only widen if that finds none.
    n = sum(c)
    for limit in (min(n, 8), n):
        k = _combine(per_block, w, limit)
        if k is not None:
            return k
    raise AssertionError("unreachable: removing every natural tile always wins")


def _combine(per_block: list[tuple[list[int], list[int]]], w: int, limit: int) -> int | None:
    """Least k <= limit whose best split of k removals over the blocks wins, if any."""
    big = 1 << 20
    no_pair = [0] + [big] * limit  # least melds-only need over the blocks so far
    with_pair = [big] * (limit + 1)  # least melds + pair need (pair in one block)
    for bm, bp in per_block:
        new_np = [big] * (limit + 1)
        new_wp = [big] * (limit + 1)
        for k1 in range(limit + 1):
            a = no_pair[k1]
            b = with_pair[k1]
            if a >= big and b >= big:
                continue
            for k2 in range(min(len(bm), limit + 1 - k1)):
                k = k1 + k2
                x = a + bm[k2]
                if x < new_np[k]:
                    new_np[k] = x
                x = a + bp[k2]
                y = b + bm[k2]
                if y < x:
                    x = y
                if x < new_wp[k]:
                    new_wp[k] = x
        no_pair, with_pair = new_np, new_wp
    for k in range(limit + 1):
        if with_pair[k] <= w + k:
            return k
    return None


def _removal_needs(block: tuple[int, ...], seq: bool) -> tuple[list[int], list[int]]:
    """For k = 0..sum(block): least (m, p) after removing any k tiles of the block."""
    n = sum(block)
    best_m = [INF * 8] * (n + 1)
    best_p = [INF * 8] * (n + 1)
    in_table = max(block) <= 4 and _lookup(bytes(block), seq) is not None  # then so is every sub-vector
    for kept in product(*(range(x + 1) for x in block)):
        if in_table:
            v = _entry(bytes(kept), seq)
            m = v >> 3
            p = m + 2 if v & 1 else m - 1
        else:
            m, p = _block_mp(kept, seq)
        k = n - sum(kept)
        if m < best_m[k]:
            best_m[k] = m
        if p < best_p[k]:
            best_p[k] = p
    return best_m, best_p
