"""Fast "is this a win / how many wildcards are missing" core, by table lookup.

Every shape question the engine asks most often -- *is this hand four melds and
a pair, given ``w`` wildcards?* -- is answered here, without search, by the
well-known wildcard (癞子) table method:

* A hand is a vector of 34 natural-tile counts (see :mod:`mjframework.core.tiles`
  for the fixed kind order: 1m-9m, 1p-9p, 1s-9s, then the 7 honors) plus a
  separate number ``w`` of wildcards. A wildcard stands for any tile, a fifth
  copy of a kind included.
* Melds never cross a block (a suit of 9 ranks, or the 7 honors), so a hand's
  need is the sum of its four blocks' needs. For each block vector we
  precompute ``m`` = least wildcards that make it melds only, and ``p`` = the
  same for melds plus exactly one pair. A hand then needs
  ``min_i(p_i + sum_{j != i} m_j)`` wildcards for melds + pair: four dict
  lookups and a little arithmetic.
* ``p - m`` is always -1 or +2 (``p <= m + 2``: add a pair of wildcards;
  ``m <= p + 1``: a wildcard turns the pair into a triplet; and
  ``p = m + 2 (mod 3)``), so each block's entry is one small int
  ``8*m + f`` with ``f = 1`` when the block gains nothing from holding the pair.
  The four entries add up to ``8*sum(m) + F``; the hand needs ``sum(m) - 1``
  wildcards when ``F < 4`` and ``sum(m) + 2`` when ``F == 4``. The answer for
  every ``w`` is precomputed as a set of winning sums, so the hot path is a
  few C-level steps (below), three additions and one set lookup (about 0.5 µs
  per call in CPython 3.11, against about 6 µs for
  ``mahjong.agari.Agari.is_agari``; see benchmarks/README.md).

Tables (built lazily on first use, in about 0.5 s, or read from a disk cache
in a few milliseconds; 2 MB in memory), each one ``bytes`` buffer with a slot
for every vector of counts 0..4 (:func:`.wintable_build._fill_dense`):

* suits: 5**9 slots, filled for every 9-rank vector with at most
  :data:`SUIT_TABLE_MAX_TILES` tiles (405,350 of them), :data:`OFF` elsewhere;
* honors: 5**7 slots, every 7-kind vector (78,125).

A block's slot is its counts read as a base-5 number, the first rank the most
significant digit. The whole hand is read at once: ``bytes(counts)``
translated to the digits ``"0"``..``"4"`` (a count above 4 becomes a character
``int()`` refuses), then one ``int(…, 5)``; the honors' slot is that number
mod 5**7, each suit's a quotient and remainder by 5**9. Why a dense buffer and
not the ``dict[bytes, int]`` the tables were before (kept in
:mod:`.wintable_build` as the reference, ``tests/test_wintable_dense.py``):
reading a dict writes the reference count of the key object it finds, so a
worker forked after loading the tables copied every page of keys it read (19
MB for 100,000 lookups); reading a ``bytes`` writes nothing but the buffer
object's own count, so the 2 MB stay shared with every worker. It is also
faster: one ``int()`` for four blocks against four hashed slices, and 2 MB
stay in the CPU's caches where 45 MB of dicts and keys did not.

A block outside the tables (more tiles in one suit than a 14-tile hand can
hold, or a natural count above 4) is not an error: it falls back to the same
dynamic programme run on demand and memoised, so every function here is exact
for any counts; it is just slower there. Passing the counts as
``bytes``/``bytearray`` makes the first step a plain copy.

Nothing here knows any variant's rules: which wildcards exist, which shapes
pay, or whether seven pairs count is the ruleset's business.
"""

from __future__ import annotations

import contextlib
import operator
import os
import struct
import sys
import threading
import time
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

from ..core.fileio import write_atomic
from .wintable_build import (  # re-exported: the tables' fill and cache (moved there)
    DIGITS,
    HONOR_SIZE,
    OFF,
    SUIT_SIZE,
    SUIT_TABLE_MAX_TILES,
    TableInfo,
    _block_mp,
    _cache_file,
    _deserialize,
    _encode,
    _serialize,
    build_dense,
    covered,
    default_cache_dir,
    read_cache,
)

__all__ = [
    "BLOCKS",
    "INF",
    "MAX_NEED",
    "NUM_KINDS",
    "OFF",
    "SUIT_TABLE_MAX_TILES",
    "TableInfo",
    "discard_needs",
    "ensure_tables",
    "is_standard_win",
    "need_melds",
    "need_melds_pair",
    "need_pairs",
    "pair_ranks",
    "reset_tables",
    "standard_waits",
    "table_info",
]

NUM_KINDS = 34
#: Largest need reported as a number; anything larger is reported as :data:`INF`.
MAX_NEED = 8
#: Sentinel for "more than MAX_NEED wildcards needed" (compares above any real w).
INF = 99
# Blocks of the 34-kind vector: (start, stop, forms sequences).
_BLOCKS: tuple[tuple[int, int, bool], ...] = (
    (0, 9, True),
    (9, 18, True),
    (18, 27, True),
    (27, 34, False),
)
BLOCKS = _BLOCKS  # (public: the block layout, for callers that look up per block)

# The lookup tables (dense, see the module docstring). They start empty so the hot
# path needs no "is it built?" test: the first lookup raises IndexError, the slow
# path builds the tables and rebinds these names, and every later call reads the
# filled buffers directly.
_SUIT: bytes = b""
_HONOR: bytes = b""
_LOCK = threading.Lock()
_INFO: TableInfo | None = None


# bytes.translate table: each count → its parity (need_pairs counts odd kinds at C speed).
_ODD = bytes(i & 1 for i in range(256))


def _need_from_value(v: int) -> int:
    """Wildcards needed for melds + one pair, from the sum of four block entries."""
    return (v >> 3) + (2 if (v & 7) == 4 else -1)


@lru_cache(maxsize=64)
def _win_set(w: int) -> frozenset[int]:
    """The block-entry sums that make a standard win with ``w`` wildcards.

    A win needs ``need <= w`` and ``w - need`` a multiple of 3 (leftover
    wildcards make triplets on their own); the latter is exactly the tile-count
    rule ``sum(counts) + w = 2 (mod 3)``, because every need already carries
    the hand's size mod 3. (``8*sum(m) + F`` with ``F`` the number of blocks
    that gain nothing from the pair; see the module docstring.)
    """
    s = set()
    for total_m in range(w + 2):
        for f in range(5):
            need = total_m + (2 if f == 4 else -1)
            if 0 <= need <= w and (w - need) % 3 == 0:
                s.add(8 * total_m + f)
    return frozenset(s)


class _OutOfRange(frozenset[int]):
    """Where :data:`_WIN_BY_W` has no set: asking it sends the call to the general path."""

    def __contains__(self, value: object) -> bool:
        raise IndexError("w outside the fast path's range")


# Per-w lookups for the hot path, for w = 0..29, then as many _OutOfRange: a negative
# w indexes those (as would a w of 30..59), which raise IndexError when asked, and
# that sends the call to the general path (exact for any w; a negative w is never a
# win). A larger w raises IndexError at once, the same. (Up to 29, every winning sum
# is at most 8 * 30 + 4 < OFF: a sum holding an OFF entry is in no set, so "not in
# the set" and a sum below OFF is a sure no.)
_W_RANGE = 30
_WIN_BY_W = (*(_win_set(w) for w in range(_W_RANGE)), *(_OutOfRange(),) * _W_RANGE)
# The honors alone need at least m_h - 1 wildcards (the pair saves at most one),
# so an honor entry 8*m_h + f >= 8*(w + 2) rules the hand out early: that is
# what makes a hand with stray honors cheap to reject. (Never, where _WIN_BY_W has no set.)
_HONOR_REJECT = tuple(8 * (w + 2) for w in range(_W_RANGE)) + (1 << 30,) * _W_RANGE
assert max(max(ws) for ws in _WIN_BY_W[:_W_RANGE]) < OFF
# The hand's base-5 number split into blocks: honors are its last 7 digits, each suit 9.
_H = HONOR_SIZE
_S = SUIT_SIZE
_SS = SUIT_SIZE * SUIT_SIZE


def ensure_tables(cache_dir: str | os.PathLike[str] | None = None, use_cache: bool = True) -> TableInfo:
    """Make the lookup tables available (no-op if they already are).

    Called implicitly by the first query; call it yourself to pay the start-up
    cost at a moment of your choosing. With ``use_cache`` the tables are read
    from ``cache_dir`` (default :func:`default_cache_dir`) when a valid file of
    this table version is there, and otherwise built and written there
    atomically; an unreadable or corrupt file is rebuilt, and an unwritable
    folder only means the next process builds again.
    """
    global _SUIT, _HONOR, _INFO
    with _LOCK:
        if _INFO is not None:
            return _INFO
        t0 = time.perf_counter()
        cache = _cache_file(Path(cache_dir) if cache_dir is not None else default_cache_dir())
        path: Path | None = cache  # None: the cache could not be written
        suit = honor = None
        source = "built"
        if use_cache:
            try:
                suit, honor = _deserialize(read_cache(cache))
                source = "cache"
            except FileNotFoundError:  # (the first use: nothing to say)
                pass
            except (OSError, ValueError, struct.error) as e:
                _say(f"the win-table cache {cache} could not be read ({_reason(e)}); it is rebuilt")
        if suit is None or honor is None:
            suit, honor = build_dense()
            if use_cache:
                try:
                    write_atomic(cache, _serialize(suit, honor))  # readers never see half a file
                except OSError:
                    path = None
        seconds = time.perf_counter() - t0
        _SUIT, _HONOR = suit, honor
        _INFO = TableInfo(
            source=source,
            seconds=seconds,
            suit_entries=covered(suit),
            honor_entries=covered(honor),
            approx_bytes=len(suit) + len(honor),
            cache_path=path if use_cache else None,
        )
        return _INFO


def _reason(e: BaseException) -> str:
    return (e.strerror or type(e).__name__) if isinstance(e, OSError) else str(e) or type(e).__name__


def _say(message: str) -> None:
    """One line on stderr (the tables are rebuilt whatever happens to it)."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        print(f"mj: {message}", file=sys.stderr, flush=True)


def table_info() -> TableInfo | None:
    """The :class:`TableInfo` of the loaded tables, or None before first use."""
    return _INFO


def reset_tables() -> None:
    """Drop the tables (they are rebuilt or reloaded on next use); for tests/benchmarks."""
    global _SUIT, _HONOR, _INFO
    with _LOCK:
        _SUIT, _HONOR, _INFO = b"", b"", None
        _block_mp.cache_clear()
        _removal_deltas.cache_clear()
        _addition_info.cache_clear()
        pair_ranks.cache_clear()


# ---------------------------------------------------------------------------
# Slow path shared by all queries
# ---------------------------------------------------------------------------


def _as_counts(counts: Sequence[int]) -> tuple[int, ...]:
    """Validate a hand vector (34 non-negative ints) and return it as a tuple."""
    try:
        c = tuple(operator.index(x) for x in counts)
    except TypeError:
        raise TypeError("counts must be a sequence of 34 ints") from None
    if len(c) != NUM_KINDS:
        raise ValueError(f"counts must have {NUM_KINDS} entries, got {len(c)}")
    if min(c) < 0:
        raise ValueError("counts must be non-negative")
    return c


def _lookup(block: bytes, seq: bool) -> int | None:
    """One block's table entry (``block``: the bytes of its 9 or 7 counts), or None off the table.

    The tables must be loaded. (The hot paths below inline this for the whole hand.)
    """
    try:
        v = (_SUIT if seq else _HONOR)[int(block.translate(DIGITS), 5)]
    except ValueError:  # a count above 4
        return None
    return None if v == OFF else v


def _entry(block: bytes, seq: bool) -> int:
    """One block's entry: the table's, else the recurrence's (memoised)."""
    v = _lookup(block, seq)
    return v if v is not None else _encode(*_block_mp(tuple(block), seq))


def _block_value(block: tuple[int, ...], seq: bool) -> int:
    """Table entry for one block; falls back to the recurrence off the table."""
    if max(block) <= 4:
        v = _lookup(bytes(block), seq)
        if v is not None:
            return v
    return _encode(*_block_mp(block, seq))


def _hand_value(counts: Sequence[int]) -> int:
    """Sum of the four block entries of a validated hand (the slow, general path)."""
    ensure_tables()
    c = _as_counts(counts)
    return sum(_block_value(c[a:b], seq) for a, b, seq in _BLOCKS)


def _cap(n: int) -> int:
    return n if n <= MAX_NEED else INF


# ---------------------------------------------------------------------------
# Public queries
# ---------------------------------------------------------------------------


def is_standard_win(counts: Sequence[int], w: int) -> bool:
    """True when the natural tiles ``counts`` plus ``w`` wildcards are melds + one pair.

    Equivalent to ``need_melds_pair(counts) <= w`` with the tile count
    ``sum(counts) + w = 2 (mod 3)`` (extra wildcards form triplets of their own).
    This is the engine's hot path, hence the shape of the code: one ``bytes()``
    of the hand, the honor lookup (hands with stray honors stop there), three
    suit lookups, one set lookup; anything
    unusual (first call, off-table blocks, bad input) raises inside the ``try``
    and is redone by the general path. ``counts`` may be a list/tuple of ints or
    ``bytes``/``bytearray`` (fastest). A negative ``w`` is never a win. Exact
    for any ``w``, also beyond :data:`MAX_NEED` (the cap applies only to the
    numbers the ``need_*`` functions report).
    """
    try:
        a = bytes(counts).translate(DIGITS)
        if len(a) == NUM_KINDS:  # (not, say, the 272 bytes of a numpy int64 array: misread)
            x = int(a, 5)  # ValueError: a count above 4
            v = _HONOR[x % _H]
            if v >= _HONOR_REJECT[w]:
                return False
            x //= _H
            v += _SUIT[x % _S] + _SUIT[x // _S % _S] + _SUIT[x // _SS]
            if v in _WIN_BY_W[w]:
                return True
            if v < OFF:  # (else a suit off the table, or a hand needing ~30 wildcards)
                return False
    except (ValueError, TypeError, IndexError):
        pass  # (IndexError: tables not loaded yet, or w out of the fast range)
    need = _need_from_value(_hand_value(counts))
    return 0 <= need <= w and (w - need) % 3 == 0


def _table_value(counts: Sequence[int]) -> int:
    """Sum of the four block entries: the tables when they cover the hand, else the recurrence.

    The fast path mirrors :func:`is_standard_win` (one ``int()`` of the hand, four
    buffer reads); bots and the scorer call the ``need_*`` functions in loops.
    """
    try:
        a = bytes(counts).translate(DIGITS)
        if len(a) == NUM_KINDS:
            x = int(a, 5)
            s = x // _H
            v: int = _HONOR[x % _H] + _SUIT[s % _S] + _SUIT[s // _S % _S] + _SUIT[s // _SS]
            if v < OFF:
                return v
    except (ValueError, TypeError, IndexError):
        pass
    return _hand_value(counts)


def need_melds(counts: Sequence[int]) -> int:
    """Least wildcards that make ``counts`` exactly a set of melds (no pair).

    The result already makes the tile total a multiple of 3. Returns
    :data:`INF` when more than :data:`MAX_NEED` would be needed, so callers
    can compare it with any wildcard count directly.
    """
    return _cap(_table_value(counts) >> 3)


def need_melds_pair(counts: Sequence[int]) -> int:
    """Least wildcards that make ``counts`` melds plus exactly one pair.

    The pair may be natural, one natural + one wildcard, or two wildcards.
    Returns :data:`INF` when more than :data:`MAX_NEED` would be needed.
    """
    return _cap(_need_from_value(_table_value(counts)))


def need_pairs(counts: Sequence[int]) -> int:
    """Least wildcards that make every natural tile part of a pair (seven-pairs style).

    Four identical tiles are two pairs, so each kind with an odd count needs
    one wildcard. How many pairs a hand must have is implied by its size; two
    leftover wildcards make a pair of their own. :data:`INF` above
    :data:`MAX_NEED`, like the other needs. Kept here so every
    wildcard-need computation lives in one module.
    """
    try:
        b = bytes(counts)
        if len(b) == NUM_KINDS:
            return _cap(b.translate(_ODD).count(1))
    except (ValueError, TypeError):
        pass
    return _cap(sum(c & 1 for c in _as_counts(counts)))


def discard_needs(counts: Sequence[int], candidates: Sequence[int]) -> list[int]:
    """``need_melds_pair`` of ``counts`` less one tile of each candidate kind, in order.

    The same numbers as calling :func:`need_melds_pair` on each reduced hand,
    but a discard changes one block only: the four block entries are looked up
    once, and the entries of each block with one tile removed come from a
    memo (the greedy bot's discard search). A candidate kind the hand does not
    hold raises ``ValueError`` (as ``need_melds_pair`` does on a negative count).
    """
    try:
        b = bytearray(counts)
        fast = len(b) == NUM_KINDS
    except (TypeError, ValueError):
        fast = False
    if not fast:
        c = list(_as_counts(counts))
        out = []
        for t in candidates:
            c[t] -= 1
            out.append(need_melds_pair(c))
            c[t] += 1
        return out
    if _INFO is None:
        ensure_tables()
    bb = bytes(b)
    # Per block: its entry, and per rank how a removal of that rank changes it (memoised);
    # the four blocks' changes side by side are the change per kind, so a candidate's
    # whole-hand value is ``total + delta[t]`` and its need one list look-up.
    o0, d0 = _removal_deltas(bb[0:9], True)
    o1, d1 = _removal_deltas(bb[9:18], True)
    o2, d2 = _removal_deltas(bb[18:27], True)
    o3, d3 = _removal_deltas(bb[27:], False)
    total = o0 + o1 + o2 + o3
    delta = d0 + d1 + d2 + d3
    needs = _NEEDS_BY_VALUE
    try:
        return [needs[total + delta[t]] for t in candidates]
    except IndexError:  # a kind not held (its delta is _NOT_HELD), or a value beyond the list
        pass
    out = []
    for t in candidates:
        x = total + delta[t]
        if x < 0:
            raise ValueError(f"kind {t} is not in the hand")
        out.append(_cap(_need_from_value(x)))
    return out


def block_removals(block: bytes, seq: bool) -> tuple[int, tuple[int, ...]]:
    """One block's share of :func:`discard_needs`: its table entry, and per rank the change
    of that entry when one tile of the rank is removed (hugely negative where none is
    held). A hand's entry is the sum of its four blocks' (:func:`need_of_entries`), so a
    player choosing a discard block by block (the greedy bot) can remember its choice per
    block; memoised."""
    if _INFO is None:
        ensure_tables()
    return _removal_deltas(block, seq)


def need_of_entries(value: int) -> int:
    """``need_melds_pair`` of a hand from the sum of its four block entries
    (:func:`block_removals`); a negative sum (a kind removed that is not held) raises."""
    if value < 0:
        raise ValueError("a removed kind is not in the hand")
    if value < len(_NEEDS_BY_VALUE):
        return _NEEDS_BY_VALUE[value]
    return _cap(_need_from_value(value))


#: ``need_melds_pair`` of a hand by the sum of its four block entries (:func:`_need_from_value`,
#: capped), for the sums of real hands (entries are ``8 * need + flag``; a 14-tile hand's sum
#: stays far below the end).
_NEEDS_BY_VALUE = [_cap(_need_from_value(v)) for v in range(4096)]
#: The change of a block entry for removing a rank not held: far below any sum, so the
#: look-up fails (``IndexError``) instead of wrapping around.
_NOT_HELD = -(1 << 40)


@lru_cache(maxsize=1 << 14)  # at most a few MB
def _removal_deltas(block: bytes, seq: bool) -> tuple[int, tuple[int, ...]]:
    """A block's table entry, and per rank the change of that entry when one tile of the
    rank is removed (:data:`_NOT_HELD` where none is held); from :func:`_removal_values`.

    Memoised: a bot's hand changes one tile a turn, so most blocks repeat."""
    row = _removal_values(block, seq)
    own = row[0]
    return own, tuple(v - own if v >= 0 else _NOT_HELD for v in row[1:])


def _removal_values(block: bytes, seq: bool) -> tuple[int, ...]:
    """A block's table entry, then per rank its entry with one tile of that rank removed
    (-1: none held).

    Not memoised itself: its one caller, :func:`_removal_deltas`, is (a second memo of the
    same rows held 1.8 MB more per 1,200 simulated hands, for nothing).
    """
    out = [_entry(block, seq)]
    b = bytearray(block)
    for k in range(len(b)):
        if not b[k]:
            out.append(-1)
            continue
        b[k] -= 1
        out.append(_entry(bytes(b), seq))
        b[k] += 1
    return tuple(out)


@lru_cache(maxsize=1 << 14)  # at most a few MB
def pair_ranks(block: bytes, seq: bool) -> frozenset[int]:
    """The ranks ``r`` of one block (``bytes`` of its counts) such that the block less two
    tiles of rank ``r`` is melds only, with no wildcard.

    In a hand that is melds and one pair with no wildcard, the pair lies in the one block
    whose tile count is 2 mod 3 and every other block is melds only; so these are the
    kinds of that block that can be the pair (empty for a block whose count is not 2
    mod 3). A pair filter ("the pair is a 2, 5 or 8") is then a set intersection instead
    of a whole-hand lookup per candidate kind. Memoised like :func:`_removal_deltas`.
    """
    if sum(block) % 3 != 2:
        return frozenset()
    if _INFO is None:
        ensure_tables()
    out = []
    b = bytearray(block)
    for r, x in enumerate(block):
        if x >= 2:
            b[r] -= 2
            if _entry(bytes(b), seq) >> 3 == 0:
                out.append(r)
            b[r] += 2
    return frozenset(out)


def standard_waits(counts13: Sequence[int], w: int) -> list[int]:
    """Tile kinds ``t`` for which ``counts13`` + one natural ``t`` + ``w`` wildcards win.

    Reported by that rule alone, so a kind whose four copies are all in the
    hand is listed if a fifth would complete it; whether it can actually be
    drawn is the caller's concern. Sorted ascending; empty when the tile count
    cannot work (``sum(counts13) + 1 + w`` not 2 mod 3).

    Adding one tile to a block moves its melds-only need by -1 or +2, so a
    hand whose blocks need ``S`` wildcards in total can reach at best
    ``S - 2`` for melds + pair: most hands are ruled out by that before any
    of the 34 candidates is looked up.
    """
    try:
        b = bytearray(counts13)
        fast = len(b) == NUM_KINDS
    except (TypeError, ValueError):
        fast = False
    if not fast:
        b = bytearray(NUM_KINDS)
        c = _as_counts(counts13)  # raises on bad input
        if max(c) > 255:
            return _waits_generic(c, w)
        b[:] = c
    if w < 0 or (sum(b) + 1 + w) % 3 != 2:
        return []
    if _INFO is None:
        ensure_tables()
    bb = bytes(b)
    keys = (bb[0:9], bb[9:18], bb[18:27], bb[27:])
    # (the four entries inline, as in is_standard_win: most hands are decided by them alone)
    try:
        x = int(bb.translate(DIGITS), 5)
        s = x // _H
        v0, v1, v2, v3 = _SUIT[s // _SS], _SUIT[s // _S % _S], _SUIT[s % _S], _HONOR[x % _H]
        if v0 == OFF or v1 == OFF or v2 == OFF:
            raise ValueError
    except ValueError:  # (off the tables: counts above 4, or a suit of more than 14 tiles)
        v0, v1, v2, v3 = _block_entries(keys)
    if (v0 >> 3) + (v1 >> 3) + (v2 >> 3) + (v3 >> 3) - 2 > w:
        return []  # (most hands: decided before any one-added entry is looked at)
    wins = _WIN_BY_W[w] if w < _W_RANGE else _win_set(w)
    total = v0 + v1 + v2 + v3
    infos = [_addition_info(key, seq) for key, (_a, _z, seq) in zip(keys, _BLOCKS, strict=True)]
    waits: list[int] = []
    for (own, groups), (a, _z, _seq) in zip(infos, _BLOCKS, strict=True):
        rest = total - own  # (own: the block's entry, as in values)
        for va, ranks in groups:
            if rest + va in wins:
                waits.extend([a + k for k in ranks])
    waits.sort()
    return waits


def _block_entries(keys: tuple[bytes, ...]) -> tuple[int, int, int, int]:
    """The four blocks' entries, worked out where the tables lack them."""
    v0, v1, v2, v3 = (_entry(key, seq) for key, (_a, _z, seq) in zip(keys, _BLOCKS, strict=True))
    return v0, v1, v2, v3


@lru_cache(maxsize=1 << 15)  # a few MB at most
def _addition_info(block: bytes, seq: bool) -> tuple[int, tuple[tuple[int, tuple[int, ...]], ...]]:
    """A block's table entry, and its entries with one more tile of a rank, grouped:
    ``(entry, ranks)`` per distinct entry (few: most ranks share one).

    Memoised like :func:`_removal_deltas`: the blocks of real hands repeat a lot,
    so :func:`standard_waits` mostly costs four memo hits and a few set lookups.
    """
    groups: dict[int, list[int]] = {}
    b = bytearray(block)
    for k in range(len(b)):
        b[k] += 1
        groups.setdefault(_entry(bytes(b), seq), []).append(k)
        b[k] -= 1
    return _entry(block, seq), tuple((v, tuple(ks)) for v, ks in groups.items())


def _waits_generic(c: tuple[int, ...], w: int) -> list[int]:
    """standard_waits for counts too large for bytes (never in a real game)."""
    if w < 0 or (sum(c) + 1 + w) % 3 != 2:
        return []
    out = []
    for t in range(NUM_KINDS):
        d = list(c)
        d[t] += 1
        need = _need_from_value(_hand_value(d))
        if need <= w and (w - need) % 3 == 0:
            out.append(t)
    return out
