"""Tiles: names, both notations, printing, parse errors and tile-set checks."""

from __future__ import annotations

import re
from itertools import pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mjframework.core.tiles import (
    HONOR_BASE,
    NUM_KINDS,
    TileParseError,
    format_tiles,
    parse_tile,
    parse_tiles,
    tile_code,
    tile_emoji,
    tile_name,
)
from mjframework.rules.loader import load_ruleset

ALL_TILES = list(range(NUM_KINDS))
tile_lists = st.lists(st.integers(min_value=0, max_value=NUM_KINDS - 1), max_size=40)


# --------------------------------------------------------------------------
# the 34 kinds


def test_there_are_34_kinds_with_distinct_codes_names_and_emoji() -> None:
    assert NUM_KINDS == 34
    assert len({tile_code(t) for t in ALL_TILES}) == 34
    assert len({tile_name(t) for t in ALL_TILES}) == 34
    assert len({tile_emoji(t) for t in ALL_TILES}) == 34


@pytest.mark.parametrize("t", ALL_TILES, ids=tile_code)
def test_round_trip_one_tile(t: int) -> None:
    assert parse_tile(tile_code(t)) == t
    assert parse_tile(tile_name(t)) == t
    assert parse_tiles(tile_code(t)) == [t]
    assert parse_tiles(tile_name(t)) == [t]


@pytest.mark.parametrize(
    ("code", "name"),
    [("1m", "一万"), ("9m", "九万"), ("3p", "三筒"), ("9p", "九筒"), ("1s", "一索"),
     ("6s", "六索"), ("1z", "东"), ("2z", "南"), ("3z", "西"), ("4z", "北"),
     ("5z", "白"), ("6z", "发"), ("7z", "中")],
)
def test_code_and_name_agree(code: str, name: str) -> None:
    t = parse_tile(code)
    assert tile_code(t) == code
    assert tile_name(t) == name


def test_kind_order() -> None:
    assert parse_tiles("1m 9m 1p 9p 1s 9s 1z 7z") == [0, 8, 9, 17, 18, 26, 27, 33]
    assert parse_tile("1z") == HONOR_BASE


# --------------------------------------------------------------------------
# printing and parsing back


@given(tile_lists)
def test_compact_round_trip(ts: list[int]) -> None:
    text = format_tiles(ts, "compact")
    assert parse_tiles(text) == ts
    assert parse_tiles(text.replace(" ", "")) == ts


@given(tile_lists)
def test_compact_groups_consecutive_same_suit_tiles(ts: list[int]) -> None:
    parts = format_tiles(ts, "compact").split()
    assert all(re.fullmatch(r"[1-9]+[mpsz]", p) for p in parts)
    # One group per run of one suit: neighbouring groups have different suits.
    assert all(a[-1] != b[-1] for a, b in pairwise(parts))
    runs = sum(1 for i, t in enumerate(ts) if i == 0 or tile_code(t)[1] != tile_code(ts[i - 1])[1])
    assert len(parts) == runs
    assert sum(len(p) - 1 for p in parts) == len(ts)


@given(tile_lists)
def test_chinese_round_trip(ts: list[int]) -> None:
    text = format_tiles(ts, "chinese")
    assert parse_tiles(text) == ts
    assert text.split() == [tile_name(t) for t in ts]
    # No name is a prefix of a longer spelling made from two names.
    assert parse_tiles(text.replace(" ", "")) == ts


@given(tile_lists)
def test_emoji_one_char_per_tile(ts: list[int]) -> None:
    text = format_tiles(ts, "emoji")
    assert len(text) == len(ts)
    assert list(text) == [tile_emoji(t) for t in ts]


@given(tile_lists)
def test_sorted_printing(ts: list[int]) -> None:
    assert parse_tiles(format_tiles(ts, "compact", sort=True)) == sorted(ts)


def test_compact_example() -> None:
    ts = parse_tiles("1m 2m 1z 3m 2p 2p")
    assert format_tiles(ts, "compact") == "12m 1z 3m 22p"
    assert format_tiles(ts, "compact", sort=True) == "123m 22p 1z"
    assert format_tiles([], "compact") == ""


def test_unknown_style() -> None:
    with pytest.raises(ValueError, match="style"):
        format_tiles([0], "braille")


# --------------------------------------------------------------------------
# aliases and mixed notation


def test_bamboo_aliases() -> None:
    assert parse_tile("六条") == parse_tile("六索") == parse_tile("6s")
    assert parse_tile("六條") == parse_tile("6s")


@pytest.mark.parametrize("text", ["紅中", "红中", "中", "7z"])
def test_red_dragon_spellings(text: str) -> None:
    assert parse_tile(text) == parse_tile("7z") == 33


@pytest.mark.parametrize(
    ("text", "code"),
    [("東", "1z"), ("东", "1z"), ("东风", "1z"), ("東風", "1z"), ("發", "6z"), ("发", "6z"),
     ("發財", "6z"), ("白板", "5z"), ("萬", None), ("一萬", "1m"), ("二饼", "2p"), ("幺鸡", None)],
)
def test_other_spellings(text: str, code: str | None) -> None:
    if code is None:
        with pytest.raises(TileParseError):
            parse_tile(text)
    else:
        assert parse_tile(text) == parse_tile(code)


def test_mixed_notation() -> None:
    assert parse_tiles("123m 三筒 中") == [0, 1, 2, 11, 33]
    assert [tile_code(t) for t in parse_tiles("123m7z三筒六条")] == ["1m", "2m", "3m", "7z", "3p", "6s"]
    assert parse_tiles("1m,2m，3m、东") == [0, 1, 2, 27]
    assert parse_tiles("  ") == []


def test_parse_tile_wants_exactly_one() -> None:
    with pytest.raises(TileParseError, match="one tile"):
        parse_tile("12m")
    with pytest.raises(TileParseError, match="one tile"):
        parse_tile("")


# --------------------------------------------------------------------------
# errors name the position


@pytest.mark.parametrize(
    ("text", "position", "words"),
    [
        ("12", 0, "no suit letter"),
        ("8z", 0, "honor"),
        ("0m", 0, "suited"),
        ("三", 0, "万"),
        ("123m ?", 5, "'?'"),
        ("123m 45", 5, "no suit letter"),
        ("12 3m", 0, "no suit letter"),
        ("m", 0, "no ranks"),
        ("123m 1p 8z", 8, "honor"),
        ("一万 三", 3, "numeral"),
        ("一万 ?", 3, "'?'"),
    ],
)
def test_parse_error_position(text: str, position: int, words: str) -> None:
    with pytest.raises(TileParseError) as info:
        parse_tiles(text)
    e = info.value
    assert isinstance(e, ValueError)
    assert e.position == position
    assert f"column {position + 1}" in str(e)
    assert words in str(e)
    assert e.text == text


def test_bad_suit_letter_error_has_a_position() -> None:
    with pytest.raises(TileParseError) as info:
        parse_tiles("123x")
    assert f"column {info.value.position + 1}" in str(info.value)
    assert info.value.position in (0, 3)


def test_bad_suit_letter_points_at_the_letter() -> None:
    with pytest.raises(TileParseError) as info:
        parse_tiles("123x")
    assert info.value.position == 3
    assert "column 4" in str(info.value)
    assert "'x'" in str(info.value)


# --------------------------------------------------------------------------
# tile sets


@pytest.fixture(scope="module")
def set108():
    return load_ruleset("changsha").tileset


def test_108_set(set108) -> None:
    assert set108.size == 108
    assert not set108.has_honors
    assert len(set108.full_wall()) == 108
    set108.check_hand(parse_tiles("1111m 999p 55s"))  # four copies are fine


def test_check_hand_fifth_copy(set108) -> None:
    with pytest.raises(ValueError, match=r"5 × 一万 \(1m\).*only 4"):
        set108.check_hand(parse_tiles("11111m 23p"))


def test_check_hand_honor_in_108(set108) -> None:
    with pytest.raises(ValueError, match=r"中 \(7z\) is not in the standard-108 set"):
        set108.check_hand(parse_tiles("123m 中"), what="hand")
    with pytest.raises(ValueError, match=r"^discard: "):
        set108.check_hand([HONOR_BASE], what="discard")


def test_136_set_takes_honors() -> None:
    ts = load_ruleset("yongzhou-wangba").tileset
    assert ts.size == 136
    ts.check_hand(parse_tiles("东南西北白发中 1111m"))
    with pytest.raises(ValueError, match="only 4"):
        ts.check_hand(parse_tiles("77777z"))
