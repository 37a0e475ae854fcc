"""The dense win tables against their reference, the dicts of the bottom-up fill (issue 22).

``wintable`` reads two ``bytes`` buffers indexed by a block's base-5 code
(``wintable_build._dense``); the tables were ``dict[bytes, int]`` before and that fill
(``wintable_build._fill``) stays as the reference. The tables do not depend on a ruleset:
every shipped ruleset's win check reads the same two, so "every key" here is every key of
both. Then whole hands: every query against the same query worked out from the reference
dicts (and the block recurrence where they stop), on random count vectors including the
ones the dense tables do not cover (a suit of more than 14 tiles, a count above 4).
"""

from __future__ import annotations

import hashlib
import os
import random
import struct
from functools import cache
from itertools import product

import pytest

from mjframework.evaluate import wintable as W
from mjframework.evaluate import wintable_build as WB


@cache
def reference() -> tuple[dict[bytes, int], dict[bytes, int]]:
    return WB._fill(9, WB.SUIT_TABLE_MAX_TILES, True), WB._fill(7, 4 * 7, False)


def ref_entry(block: tuple[int, ...], seq: bool) -> int:
    suit, honor = reference()
    if max(block) <= 4:
        v = (suit if seq else honor).get(bytes(block))
        if v is not None:
            return v
    return WB._encode(*WB._block_mp(block, seq))


def ref_value(c: list[int]) -> int:
    return sum(ref_entry(tuple(c[a:z]), seq) for a, z, seq in W.BLOCKS)


def ref_need(c: list[int]) -> int:
    return W._need_from_value(ref_value(c))


def ref_win(c: list[int], w: int) -> bool:
    need = ref_need(c)
    return 0 <= need <= w and (w - need) % 3 == 0


def test_every_key_of_both_tables():
    W.ensure_tables()
    for table, seq, size in ((reference()[0], True, WB.SUIT_SIZE), (reference()[1], False, WB.HONOR_SIZE)):
        dense = W._SUIT if seq else W._HONOR
        assert len(dense) == size
        assert WB.covered(dense) == len(table)  # with every key found below: the same vectors
        for key, v in table.items():
            assert W._lookup(key, seq) == v, (key, seq)
            assert dense[int(key.translate(WB.DIGITS), 5)] == v


def test_off_slots_are_the_vectors_the_reference_lacks():
    W.ensure_tables()
    suit = reference()[0]
    rng = random.Random(3)
    for _ in range(3000):
        v = bytes(rng.choice((0, 1, 2, 3, 4, 4, 4)) for _ in range(9))
        assert (W._lookup(v, True) is None) == (v not in suit) == (sum(v) > WB.SUIT_TABLE_MAX_TILES)
    assert W._lookup(bytes([5, 0, 0, 0, 0, 0, 0, 0, 0]), True) is None  # a count above 4: no slot


def random_counts(rng: random.Random) -> list[int]:
    """14-ish tiles drawn as a player holds them, or a hand the tables do not cover."""
    kind = rng.random()
    c = [0] * 34
    if kind < 0.6:  # an ordinary hand of 13 or 14 tiles (or 16/17: a 16-tile variant)
        for t in rng.sample(range(136), rng.choice((13, 14, 16, 17))):
            c[t // 4] += 1
    elif kind < 0.85:  # most tiles in one suit: off the suit table beyond 14
        suit = rng.randrange(3) * 9
        for _ in range(rng.randint(12, 20)):
            c[suit + rng.randrange(9)] += 1
        c = [min(x, 4) for x in c]
    else:  # counts above 4 (a fifth copy and more)
        for _ in range(rng.randint(5, 18)):
            c[rng.randrange(34)] += rng.randint(1, 6)
    return c


@pytest.mark.parametrize("seed", range(4))
def test_queries_match_the_reference_on_random_hands(seed):
    W.ensure_tables()
    rng = random.Random(seed)
    for _ in range(500):
        c = random_counts(rng)
        need = ref_need(c)
        for form in (c, bytes(c) if max(c) < 256 else c, tuple(c)):
            assert W.need_melds_pair(form) == W._cap(need)
            assert W.need_melds(form) == W._cap(ref_value(c) >> 3)
        for w in (-1, 0, 1, 2, 3, 4, 7, 29, 30, 31, 35):
            assert W.is_standard_win(c, w) == ref_win(c, w), (c, w)
        w = rng.randint(0, 4)
        waits = [t for t in range(34) if ref_win([x + (k == t) for k, x in enumerate(c)], w)]
        if (sum(c) + 1 + w) % 3 != 2:
            waits = []
        assert W.standard_waits(c, w) == waits, (c, w)
        held = [t for t in range(34) if c[t]]
        assert W.discard_needs(c, held) == [W._cap(ref_need([x - (k == t) for k, x in enumerate(c)]))
                                            for t in held]


def test_every_honor_vector_through_the_whole_hand_path():
    """The honors' slot comes from the hand's number mod 5**7: every honor vector, in a hand."""
    W.ensure_tables()
    base = [1, 1, 1, 0, 0, 0, 0, 0, 0] + [0] * 18  # one run in the first suit, nothing else
    for v in product(range(5), repeat=7):
        c = base + list(v)
        assert W._table_value(c) == ref_value(c)


def test_wrong_shapes_are_refused_not_misread():
    W.ensure_tables()
    c = [1, 1, 1, 0, 0, 0, 0, 0, 0] * 3 + [0, 0, 0, 0, 2, 0, 0]  # wins with no wildcard
    assert W.is_standard_win(c, 0) and W.is_standard_win(bytes(c), 0)
    for bad in (c[:-1], [*c, 0], bytes(c[:-1]), bytes(c) + b"\0"):
        with pytest.raises(ValueError, match="34 entries"):
            W.is_standard_win(bad, 0)
        with pytest.raises(ValueError, match="34 entries"):
            W.need_melds_pair(bad)
    with pytest.raises(ValueError, match="non-negative"):
        W.is_standard_win([-1, *c[1:]], 0)


def _write(path, data: bytes) -> None:
    path.write_bytes(data)
    W.reset_tables()


def test_cache_is_checked_and_rebuilt_with_a_message(tmp_path, capsys, monkeypatch):
    hand = [1, 1, 1, 0, 0, 0, 0, 0, 0] * 3 + [0, 0, 0, 0, 2, 0, 0]
    try:
        W.reset_tables()
        info = W.ensure_tables(cache_dir=tmp_path)
        assert info.source == "built" and info.cache_path is not None
        assert "v2" in info.cache_path.name  # the dense layout's version names the file
        assert capsys.readouterr().err == ""  # a first build says nothing
        good = info.cache_path.read_bytes()
        assert len(good) < 2_100_000 and info.approx_bytes == WB.SUIT_SIZE + WB.HONOR_SIZE
        tables = W._SUIT, W._HONOR
        monkeypatch.setattr(W, "build_dense", lambda: tables)  # (each rebuild below: the same, at once)

        def signed(body: bytes) -> bytes:
            return WB._MAGIC + hashlib.blake2b(body, digest_size=16).digest() + body

        # a right digest over a wrong content: refused by the plausibility check
        body = bytearray(good[len(WB._MAGIC) + 16:])
        body[5 + 100] = WB.OFF if body[5 + 100] != WB.OFF else 8
        damaged = ((good[:-1000], "checksum mismatch"), (b"", "empty file"),
                   (b"PK\x03\x04 not ours", "not a win-table file"),
                   (signed(bytes(body)), "implausible content"),
                   (signed(b"\x09"), "truncated"), (signed(bytes(body[:-1])), "truncated"),
                   (signed(bytes(body) + b"\0"), "trailing data"))
        for data, reason in damaged:
            _write(info.cache_path, data)
            again = W.ensure_tables(cache_dir=tmp_path)
            err = capsys.readouterr().err
            assert again.source == "built", reason
            assert str(info.cache_path) in err and f"({reason})" in err and "rebuilt" in err
            assert W.is_standard_win(hand, 0) and not W.is_standard_win(hand, 1)
            assert info.cache_path.read_bytes() == good  # written again, whole
            assert not list(tmp_path.glob("*.tmp"))
        W.reset_tables()
        assert W.ensure_tables(cache_dir=tmp_path).source == "cache"
        assert capsys.readouterr().err == ""
    finally:
        W.reset_tables()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_cache_path_that_is_not_a_file_is_neither_read_nor_replaced(tmp_path, capsys, monkeypatch):
    """A FIFO where the cache file goes would block a plain read forever; a folder cannot be read."""
    try:
        W.reset_tables()
        W.ensure_tables(cache_dir=tmp_path)
        tables = W._SUIT, W._HONOR
        monkeypatch.setattr(W, "build_dense", lambda: tables)
        path = WB._cache_file(tmp_path)
        for make, reason in ((os.mkfifo, "not a regular file"), (os.mkdir, "Is a directory")):
            path.unlink()
            make(path)
            W.reset_tables()
            info = W.ensure_tables(cache_dir=tmp_path)
            err = capsys.readouterr().err
            assert info.source == "built" and info.cache_path is None  # (and nothing written over it)
            assert f"({reason})" in err and str(path) in err
            assert W.is_standard_win([1, 1, 1, 0, 0, 0, 0, 0, 0] * 3 + [0, 0, 0, 0, 2, 0, 0], 0)
            assert not path.is_file()
            (path.rmdir if path.is_dir() else path.unlink)()
            path.write_bytes(b"")  # (the next round's unlink)
    finally:
        W.reset_tables()


def test_serialized_layout_is_the_documented_one():
    suit, honor = bytes([1]) * WB.SUIT_SIZE, bytes([1]) * WB.HONOR_SIZE
    data = WB._serialize(suit, honor)
    pos = len(WB._MAGIC) + 16
    assert struct.unpack_from("<BI", data, pos) == (9, WB.SUIT_SIZE)
    assert struct.unpack_from("<BI", data, pos + 5 + WB.SUIT_SIZE) == (7, WB.HONOR_SIZE)
    with pytest.raises(ValueError, match="implausible"):  # (every slot 1: not the real tables)
        WB._deserialize(data)
