"""Filling and caching :mod:`wintable`'s lookup tables (moved out of it; no query lives here).

The piece recurrence over one block (:func:`_block_mp`, memoised, also the slow
path for blocks outside the tables), the bottom-up fill of a whole block table
(:func:`_fill_dense`: the form the queries read, one ``bytes`` buffer per
table indexed by the block's base-5 code; :func:`_fill`: a ``dict`` keyed by
the block's count bytes, the reference), and the table cache file's plain
binary format. See :mod:`mjframework.evaluate.wintable`'s
docstring for what an entry means and why the tables are dense buffers.
"""

from __future__ import annotations

import hashlib
import os
import stat
import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from itertools import product
from pathlib import Path

#: Suit vectors with at most this many tiles are tabulated (a 14-tile hand's worth).
SUIT_TABLE_MAX_TILES = 14

# Bump when the table layout or meaning changes: it names the cache file.
# (1: the two dicts' keys and values; 2: the dense buffers.)
_TABLE_VERSION = 2
_MAGIC = b"MJFW-WINTABLE\n"

#: A dense table's byte for a vector the table does not cover (a suit holding more than
#: :data:`SUIT_TABLE_MAX_TILES` tiles); real entries are at most 8 * 14 + 1 (seven honor
#: singles), so it cannot be one.
OFF = 255
#: ``bytes.translate`` table: a count 0..4 to its base-5 digit (``b"0"``..``b"4"``), anything
#: larger to ``b"x"``, which ``int(…, 5)`` refuses: ``int(block.translate(DIGITS), 5)`` is a
#: block's dense index (its first rank the most significant digit), or ValueError.
DIGITS = bytes(48 + i if i <= 4 else 120 for i in range(256))
#: Entries of each dense table: 5 ** ranks.
SUIT_SIZE = 5**9
HONOR_SIZE = 5**7


# ---------------------------------------------------------------------------
# The dynamic programme (one block)
# ---------------------------------------------------------------------------
#
# Every natural tile of a block ends up in some meld or in the pair; the
# natural part of a meld is a "piece": x (2 wildcards short), xx (1), xxx (0),
# x x+1 (1), x x+2 (1), x x+1 x+2 (0); of the pair: x (1), xx (0), or nothing
# (2 wildcards). The least total shortfall over all ways of cutting the vector
# into pieces is the need. Cutting off the piece that holds the lowest tile
# leaves a smaller vector, which gives the recurrence used both to fill the
# tables and, memoised, for blocks outside them.


@lru_cache(maxsize=1 << 16)
def _block_mp(block: tuple[int, ...], seq: bool) -> tuple[int, int]:
    """(m, p) for any block vector, by the piece recurrence (fallback path)."""
    n = len(block)
    i = 0
    while i < n and not block[i]:
        i += 1
    if i == n:
        return 0, 2
    c = list(block)

    def minus(*ks: int) -> tuple[int, ...]:
        d = c.copy()
        for k in ks:
            d[k] -= 1
        return tuple(d)

    one = _block_mp(minus(i), seq)
    m = one[0] + 2
    p = min(one[1] + 2, one[0] + 1, m + 2)
    if c[i] >= 2:
        two = _block_mp(minus(i, i), seq)
        m = min(m, two[0] + 1)
        p = min(p, two[1] + 1, two[0])
        if c[i] >= 3:
            three = _block_mp(minus(i, i, i), seq)
            m = min(m, three[0])
            p = min(p, three[1])
    if seq:
        if i + 1 < n and c[i + 1]:
            a = _block_mp(minus(i, i + 1), seq)
            m = min(m, a[0] + 1)
            p = min(p, a[1] + 1)
        if i + 2 < n and c[i + 2]:
            a = _block_mp(minus(i, i + 2), seq)
            m = min(m, a[0] + 1)
            p = min(p, a[1] + 1)
            if c[i + 1]:
                a = _block_mp(minus(i, i + 1, i + 2), seq)
                m = min(m, a[0])
                p = min(p, a[1])
    p = min(p, m + 2)
    return m, p


def _encode(m: int, p: int) -> int:
    """Table entry for a block with needs (m, p); see the module docstring."""
    return 8 * m + (0 if p < m else 1)


def _vectors(nranks: int, max_tiles: int) -> Iterator[tuple[int, tuple[int, ...]]]:
    """Yield (code, vector) for counts 0..4 with sum <= max_tiles, code ascending.

    ``code = sum(v[k] * 5**k)``. Cutting a piece off a vector lowers its code,
    so ascending order lets the table fill read only entries already filled.
    Built from a low half and a high half to keep the Python loop short:
    product() over the reversed high half yields high codes in ascending order,
    and each high code's lows ascend, so codes ascend overall.
    """
    low_n = nranks // 2
    high_n = nranks - low_n
    lows = []
    for t in product(range(5), repeat=low_n):
        lt = t[::-1]  # product() varies the last item fastest; make v[0] fastest
        lows.append((sum(c * 5**k for k, c in enumerate(lt)), sum(lt), lt))
    lows.sort()
    lows_upto = [[(lc, lt) for lc, ls, lt in lows if ls <= b] for b in range(max_tiles + 1)]
    base = 5**low_n
    for t in product(range(5), repeat=high_n):
        ht = t[::-1]
        hs = sum(ht)
        if hs > max_tiles:
            continue
        hc = sum(c * 5**k for k, c in enumerate(ht)) * base
        for lc, lt in lows_upto[max_tiles - hs]:
            yield hc + lc, lt + ht


def _fill(nranks: int, max_tiles: int, seq: bool) -> dict[bytes, int]:
    """One block table as a dict keyed by the block's count bytes: the reference of the dense
    form the queries read (``tests/test_wintable_dense.py``), and the tables' form until
    the table version 2."""
    table: dict[bytes, int] = {}

    def put(code: int, v: tuple[int, ...], entry: int) -> None:
        table[bytes(v)] = entry

    _recur(nranks, max_tiles, seq, put)
    return table


def _fill_dense(nranks: int, max_tiles: int, seq: bool) -> bytes:
    """One block table as the queries read it: a slot per vector of counts 0..4 (5 ** nranks
    bytes), :data:`OFF` for the vectors the table does not cover.

    The slot of a vector is its base-5 number with the *first* rank the most significant
    digit (``int(key.translate(DIGITS), 5)``); the fill numbers vectors the other way round
    (``code``, the first rank the least significant). Both give the same buffer because an
    entry is the same for a vector and its mirror image (ranks read from 9 down to 1: the
    pieces of a block, x, xx, xxx, x x+1, x x+2, x x+1 x+2, map onto themselves), so the
    slot ``code`` of a vector is its mirror image's by the other numbering, holding the same
    entry. ``tests/test_wintable_dense.py`` checks every slot against :func:`_fill`.
    """
    buf = bytearray([OFF]) * 5**nranks

    def put(code: int, v: tuple[int, ...], entry: int) -> None:
        buf[code] = entry

    _recur(nranks, max_tiles, seq, put)
    return bytes(buf)


def _recur(nranks: int, max_tiles: int, seq: bool, put: Callable[[int, tuple[int, ...], int], None]) -> None:
    """The piece recurrence over every vector, bottom-up: ``put(code, vector, entry)`` for each."""
    size = 5**nranks
    mt = bytearray(size)  # m by code
    pt = bytearray(size)  # p by code
    pw = [5**k for k in range(nranks)]
    it = _vectors(nranks, max_tiles)
    next(it)  # the empty vector
    pt[0] = 2
    put(0, (0,) * nranks, _encode(0, 2))
    last = nranks - 1
    for code, v in it:
        i = 0
        while not v[i]:
            i += 1
        ci = v[i]
        u = pw[i]
        r = code - u
        m = mt[r] + 2  # x
        p = pt[r] + 2
        x = mt[r] + 1  # pair = x + wildcard
        if x < p:
            p = x
        if ci >= 2:
            r2 = r - u
            x = mt[r2] + 1  # xx
            if x < m:
                m = x
            x = pt[r2] + 1
            if x < p:
                p = x
            x = mt[r2]  # pair = xx
            if x < p:
                p = x
            if ci >= 3:
                r3 = r2 - u
                x = mt[r3]  # xxx
                if x < m:
                    m = x
                x = pt[r3]
                if x < p:
                    p = x
        if seq and i < last:
            a = v[i + 1]
            if a:
                r1 = r - pw[i + 1]  # x x+1
                x = mt[r1] + 1
                if x < m:
                    m = x
                x = pt[r1] + 1
                if x < p:
                    p = x
            if i < last - 1 and v[i + 2]:
                r1 = r - pw[i + 2]  # x x+2
                x = mt[r1] + 1
                if x < m:
                    m = x
                x = pt[r1] + 1
                if x < p:
                    p = x
                if a:
                    r1 -= pw[i + 1]  # x x+1 x+2
                    x = mt[r1]
                    if x < m:
                        m = x
                    x = pt[r1]
                    if x < p:
                        p = x
        if m + 2 < p:  # pair of two wildcards
            p = m + 2
        mt[code] = m
        pt[code] = p
        put(code, v, 8 * m + (0 if p < m else 1))  # (_encode(m, p), inlined)


# ---------------------------------------------------------------------------
# Building, caching, loading
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class TableInfo:
    """How the tables were obtained, for benchmarks and diagnostics."""

    source: str  # "built" or "cache"
    seconds: float  # wall time to build or load (and, when built, to save)
    suit_entries: int  # vectors the suit table covers (the rest of its slots are OFF)
    honor_entries: int
    approx_bytes: int  # the two buffers
    cache_path: Path | None  # None when caching is off or impossible


def default_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/mjframework``, else ``~/.cache/mjframework``."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "mjframework"


def _cache_file(cache_dir: Path) -> Path:
    return cache_dir / f"wintable-v{_TABLE_VERSION}-s{SUIT_TABLE_MAX_TILES}.bin"


def build_dense() -> tuple[bytes, bytes]:
    """Both tables, built (:func:`_fill_dense`)."""
    return _fill_dense(9, SUIT_TABLE_MAX_TILES, True), _fill_dense(7, 4 * 7, False)


def covered(table: bytes) -> int:
    """How many vectors a dense table covers (its slots that are not :data:`OFF`)."""
    return len(table) - table.count(OFF)


def _serialize(suit: bytes, honor: bytes) -> bytes:
    """Plain binary (no pickle: a cache file must never be able to run code): the magic, a
    digest of the body, then per table its rank count, its length and its bytes."""
    body = b"".join(struct.pack("<BI", nranks, len(t)) + t for t, nranks in ((suit, 9), (honor, 7)))
    return _MAGIC + hashlib.blake2b(body, digest_size=16).digest() + body


# A suit table of SUIT_TABLE_MAX_TILES = 14 covers this many vectors (counts 0..4, sum <= 14).
_SUIT_COVERED = 405_350
# The cache file's size: the magic, the digest, and per table a 5-byte header and its slots.
_FILE_SIZE = len(_MAGIC) + 16 + 5 + SUIT_SIZE + 5 + HONOR_SIZE


def read_cache(path: Path) -> bytes:
    """The cache file's bytes, for :func:`_deserialize`; never more than a right file's size + 1
    (a larger one fails as "trailing data"), and never from anything but a regular file (a
    FIFO there would block the read forever): ValueError then, OSError if unreadable."""
    with open(path, "rb", opener=_nonblocking) as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            raise ValueError("not a regular file")
        return f.read(_FILE_SIZE + 1)


def _nonblocking(path: str, flags: int) -> int:
    return os.open(path, flags | getattr(os, "O_NONBLOCK", 0))


def _deserialize(data: bytes) -> tuple[bytes, bytes]:
    """Inverse of :func:`_serialize`; raises ValueError, naming what is wrong, on anything unexpected."""
    if not data.startswith(_MAGIC):
        raise ValueError("not a win-table file" if data else "empty file")
    pos = len(_MAGIC)
    digest, body = data[pos : pos + 16], data[pos + 16 :]
    if hashlib.blake2b(body, digest_size=16).digest() != digest:
        raise ValueError("checksum mismatch")
    tables = []
    pos = 0
    for want_ranks, want_n in ((9, SUIT_SIZE), (7, HONOR_SIZE)):
        if len(body) < pos + 5:
            raise ValueError("truncated")
        nranks, n = struct.unpack_from("<BI", body, pos)
        if (nranks, n) != (want_ranks, want_n):
            raise ValueError("unexpected table shape")
        pos += 5
        table = body[pos : pos + n]
        pos += n
        if len(table) != n:
            raise ValueError("truncated")
        tables.append(table)
    if pos != len(body):
        raise ValueError("trailing data")
    suit, honor = tables
    if (suit[0], honor[0]) != (_encode(0, 2), _encode(0, 2)) or covered(suit) != _SUIT_COVERED \
            or covered(honor) != HONOR_SIZE:
        raise ValueError("implausible content")
    return suit, honor
