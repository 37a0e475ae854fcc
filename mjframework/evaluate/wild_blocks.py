"""The first standard reading of a hand with wildcards, from per-block tables (moved out of
:mod:`.readings`, whose :func:`~.readings._first_standard` is the search these tables replace
and the reference they are tested against: ``tests/test_wild_first_reading.py``,
``tests/test_wild_tables.py``).

:func:`~.readings._first_standard` searches the whole hand lowest kind first, so it settles
every kind of a block (a suit, the honors) before the next block: groups never span blocks
(a sequence stays in its suit, the wildcards it holds included), and groups of wildcards
alone come last. So the reading it finds is the first, in block order, of the combinations
of one decomposition per block (natural tiles plus some wildcards) that fit the budget,
completed by groups of wildcards alone. Whether a block's decomposition can be completed
depends only on how many wildcards and pairs it uses (its melds follow from its tiles): each
block needs only the first decomposition per (wildcards, pairs), in search order.

That list depends only on the block's counts, the budget (``k`` wildcards, the pairs) and
where the wildcard's kind sits in the block (a wildcard kind outside it reads like none: such
blocks share one table). A table per (budget, block counts) is built on the block's second
sighting with the same wildcard kind (counting sightings per wildcard kind builds as seldom
as before the tables were shared: on fresh hands a build, ~40 µs, seldom pays) and kept in a
bounded table shared by every hand and ruleset. The build is a search
over the block's kinds whose states (kind, counts from it on, budget left, the wildcard's
kind if still ahead) are remembered across builds in a bounded memo, so the tables of count
vectors sharing a tail, and of the same counts with another budget, share its work; the
options tried for a kind are made once per slot of the few facts they depend on.

(Measured against one table per block counts answering every budget up to four wildcards,
built once and filtered: the larger build costs more than it saves, 20–35 % more CPU on
fresh hands. benchmarks/README.md, "Issue 22, the first reading with wildcards from tables".)
"""

from __future__ import annotations

from collections.abc import Sequence

from ..core.tiles import HONOR_BASE, NUM_KINDS, Tile
from .reading_groups import Group, _group_key, _src, _wild_options

__all__ = ["BLOCKS", "first_wild_groups", "wild_block_entries"]

# The blocks of kinds: the three suits, the honors (as :mod:`.readings`' natural tables).
BLOCKS = ((0, 9), (9, 18), (18, 27), (HONOR_BASE, NUM_KINDS))
# Tables kept (over all blocks) and search states remembered, before each starts over
# rather than grow without end.
TABLE_MAX = 50_000
MEMO_MAX = 200_000

# (wildcards used, pairs used, melds, groups sorted as readings sort them)
WildEntry = tuple[int, int, int, tuple[Group, ...]]
# (wildcards, pairs) -> per block: its counts (bytes; one more byte, the wildcard's offset,
# when the wildcard's kind is in the block) -> its entries with that budget.
_Tables = tuple[dict[bytes, tuple[WildEntry, ...]], ...]
_TABLES: dict[tuple[int, int], _Tables] = {}
_tables = 0  # tables in _TABLES (bounded by TABLE_MAX)
# Blocks met once, not yet tabled (first_wild_groups's ``lazy``); bounded likewise.
_SEEN: set[tuple[int, int, Tile | None, int, bytes]] = set()
# The search's states: (kind, counts from it on, wildcards, pairs, wildcard kind from it on
# or None) -> (wildcards used, pairs used) -> the first groups using them, in order found.
_MemoKey = tuple[int, tuple[int, ...], int, int, Tile | None]
_Found = dict[tuple[int, int], tuple[Group, ...]]
_MEMO: dict[_MemoKey, _Found] = {}


def _block_key(block: int, b: bytes, wildcard: Tile | None) -> bytes:
    lo, hi = BLOCKS[block]
    key = b[lo:hi]
    if wildcard is not None and lo <= wildcard < hi:
        key += bytes((wildcard - lo,))
    return key


def first_wild_groups(c: Sequence[int], w: int, melds: int, pairs: int, kinds: Sequence[Tile],
                      wildcard: Tile | None, lazy: bool = False) -> tuple[Group, ...] | None:
    """The groups :func:`~.readings._first_standard` finds for the counts ``c`` with ``w``
    wildcards as ``melds`` melds and ``pairs`` pairs, groups of wildcards alone read as the
    kind of ``kinds`` held most (the first of them among equals, as
    :func:`~.readings.standard_readings` orders them), from the per-block tables, sorted as
    readings sort their groups; None when it finds none. Raises ValueError for counts that
    are not a 34-kind vector of small non-negative numbers, or a negative budget (the
    caller searches instead).

    ``lazy``: a block's table is built only the second time its counts are met (a build
    costs more than the one search it replaces, so a block met once is left to the search):
    raises LookupError for a block met the first time (the caller searches instead)."""
    if len(c) != NUM_KINDS:
        raise ValueError("not a count vector")
    if w < 0 or pairs < 0:
        raise ValueError("a negative budget")
    b = bytes(c)
    keys = [b[:9], b[9:18], b[18:27], b[27:]]
    if wildcard is not None:
        wb = wildcard // 9 if wildcard < HONOR_BASE else 3
        keys[wb] += bytes((wildcard - BLOCKS[wb][0],))
    tables = _TABLES.get((w, pairs))
    if tables is None:
        tables = _TABLES[w, pairs] = ({}, {}, {}, {})
    t0, t1, t2, t3 = tables
    o0, o1, o2, o3 = t0.get(keys[0]), t1.get(keys[1]), t2.get(keys[2]), t3.get(keys[3])
    if o0 is None or o1 is None or o2 is None or o3 is None:  # a block met for the first time
        o0, o1, o2, o3 = _entries(keys, w, pairs, wildcard, lazy)
    return _combine(o0, o1, o2, o3, c, w, melds, pairs, kinds)


def _entries(keys: list[bytes], w: int, pairs: int, wildcard: Tile | None, lazy: bool
             ) -> list[tuple[WildEntry, ...]]:
    """Each block's entries for the budget (``w``, ``pairs``), tables built where missing."""
    global _tables
    tables = _TABLES[w, pairs]
    missing = [(i, key) for i, key in enumerate(keys) if key not in tables[i]]
    if lazy:
        marks = [(w, pairs, wildcard, i, key) for i, key in missing]
        if not all(m in _SEEN for m in marks):
            if len(_SEEN) >= TABLE_MAX:
                _SEEN.clear()
            _SEEN.update(marks)
            raise LookupError("a block met for the first time")
    if _tables + len(missing) > TABLE_MAX:
        _TABLES.clear()  # (starts over, rather than grow without end)
        _tables = 0
        tables = _TABLES[w, pairs] = ({}, {}, {}, {})
        missing = list(enumerate(keys))
    for i, key in missing:
        tables[i][key] = wild_block_entries(i, key, w, pairs)
        _tables += 1
    return [tables[i][key] for i, key in enumerate(keys)]


def _combine(o0: tuple[WildEntry, ...], o1: tuple[WildEntry, ...], o2: tuple[WildEntry, ...],
             o3: tuple[WildEntry, ...], c: Sequence[int], w: int, melds: int, pairs: int,
             kinds: Sequence[Tile]) -> tuple[Group, ...] | None:
    """The first entry of each block, in block order, that leaves a completion (lexicographic
    first: entries of one block using the same wildcards and pairs complete alike); at the
    end the wildcards left make the melds and pairs left on their own."""
    for wu0, p0, m0, g0 in o0:
        for wu1, p1, m1, g1 in o1:
            wu01, p01 = wu0 + wu1, p0 + p1
            if wu01 > w or p01 > pairs:
                continue
            for wu2, p2, m2, g2 in o2:
                wu012, p012 = wu01 + wu2, p01 + p2
                if wu012 > w or p012 > pairs:
                    continue
                for wu3, p3, m3, g3 in o3:
                    free_pairs = pairs - p012 - p3
                    free_melds = melds - m0 - m1 - m2 - m3
                    if free_pairs >= 0 and free_melds >= 0 and \
                            3 * free_melds + 2 * free_pairs == w - wu012 - wu3:
                        out = g0 + g1 + g2 + g3
                        if free_melds or free_pairs:
                            t = max(kinds, key=c.__getitem__)
                            alone = (Group("triplet", (t, t, t), ("w", "w", "w")),) * free_melds + \
                                (Group("pair", (t, t), ("w", "w")),) * free_pairs
                            out = tuple(sorted(out + alone, key=_group_key))
                        return out
    return None


def wild_block_entries(block: int, key: bytes, w: int, pairs: int) -> tuple[WildEntry, ...]:
    """Block ``block``'s first decompositions per (wildcards, pairs) used, with at most ``w``
    wildcards and ``pairs`` pairs, in search order: ``key`` its counts, plus the wildcard's
    offset in the block as one more byte when the wildcard's kind is in it."""
    lo, hi = BLOCKS[block]
    c = [0] * NUM_KINDS
    c[lo:hi] = key[:hi - lo]
    wildcard = lo + key[hi - lo] if len(key) > hi - lo else None
    if len(_MEMO) >= MEMO_MAX:
        _MEMO.clear()
    found = _wild_block(c, lo, hi, w, pairs, wildcard)
    return tuple((wu, p, sum(1 for g in groups if g.kind != "pair"), tuple(sorted(groups, key=_group_key)))
                 for (wu, p), groups in found.items())


# The options _wild_block tries for a kind, per slot of its facts (see _wild_block).
_Option = tuple[Group, tuple[Tile, ...], int, int]
_OPTIONS: list[tuple[_Option, ...] | None] = [None] * (NUM_KINDS * 4 * 2 * 2 * 2 * 12)


def _options(c: list[int], t: Tile, w: int, pairs: int, wildcard: Tile | None) -> tuple[_Option, ...]:
    """The groups :func:`~.readings._first_standard` tries for the lowest kind left ``t``, in
    its order: (group, natural tiles used, wildcards used, 1 for a pair). They depend only on
    the counts at t (up to 3), whether t+1 and t+2 are held, whether a pair is allowed, the
    wildcards (up to 2) and where the wildcard's kind sits among t..t+2: made once per such
    slot."""
    ct = c[t]
    src = _src(t, wildcard)
    options: list[tuple[Group, tuple[Tile, ...], int]] = []
    # as _first_standard: wholly natural groups first, then those holding wildcards
    if ct >= 3:
        options.append((Group("triplet", (t, t, t), (src, src, src)), (t, t, t), 0))
    if t < HONOR_BASE and t % 9 <= 6 and c[t + 1] and c[t + 2]:
        options.append((Group("seq", (t, t + 1, t + 2), (src, _src(t + 1, wildcard), _src(t + 2, wildcard))),
                        (t, t + 1, t + 2), 0))
    if pairs and ct >= 2:
        options.append((Group("pair", (t, t), (src, src)), (t, t), 0))
    if w:
        options.extend(_wild_options(c, w, 1, pairs, t, wildcard))
    return tuple((g, used, need, int(g.kind == "pair")) for g, used, need in options)


def _wild_block(c: list[int], i: int, hi: int, w: int, pairs: int, wildcard: Tile | None) -> _Found:
    """For the kinds ``i``..``hi`` of one block (those below ``i`` used up), with at most ``w``
    wildcards and ``pairs`` pairs: (wildcards used, pairs used) -> the first decomposition
    using them in :func:`~.readings._first_standard`'s order of options, keys in order found.
    (The first with given totals is the first option whose rest has the first with the
    totals left.)"""
    while i < hi and c[i] == 0:
        i += 1
    if i == hi:
        return {(0, 0): ()}
    if wildcard is not None and wildcard < i:
        wildcard = None  # (below every kind left: the same states as no wildcard in the block)
    key = (i, tuple(c[i:hi]), w, pairs, wildcard)
    got = _MEMO.get(key)
    if got is not None:
        return got
    t = i
    out: _Found = {}
    # the options for t depend on a few facts of the counts only (see _options)
    if t < HONOR_BASE:
        r = t % 9
        h1 = r <= 7 and c[t + 1] > 0
        h2 = r <= 6 and c[t + 2] > 0
    else:
        h1 = h2 = False
    at = wildcard - t if wildcard is not None and wildcard - t <= 2 else -1
    slot = ((t * 4 + min(c[t], 3)) * 8 + h1 * 4 + h2 * 2 + (pairs > 0)) * 12 + min(w, 2) * 4 + at + 1
    options = _OPTIONS[slot]
    if options is None:
        options = _OPTIONS[slot] = _options(c, t, w, pairs, wildcard)
    for g, used, need, is_pair in options:
        for x in used:
            c[x] -= 1
        sub = _wild_block(c, t, hi, w - need, pairs - is_pair, wildcard)
        for x in used:
            c[x] += 1
        for (wu, p), groups in sub.items():
            k = (wu + need, p + is_pair)
            if k not in out:
                out[k] = (g, *groups)
    _MEMO[key] = out
    return out
