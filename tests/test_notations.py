"""Other tools' tile notations (mjframework.core.tiles): mpsz with red 0, mjai, 34/136, Botzone."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mjframework.core.tiles import (
    NUM_KINDS,
    TileParseError,
    format_mpsz,
    from_34,
    from_136,
    from_botzone,
    from_mjai,
    is_red_136,
    parse_mpsz,
    parse_notation,
    parse_tiles,
    tile_code,
    to_34,
    to_136,
    to_botzone,
    to_mjai,
)

kinds = st.integers(0, NUM_KINDS - 1)
fives = st.sampled_from([4, 13, 22])
flagged = st.one_of(kinds.map(lambda t: (t, False)), fives.map(lambda t: (t, True)))


@given(flagged)
def test_mjai_round_trip(tr) -> None:
    t, red = tr
    assert from_mjai(to_mjai(t, red)) == (t, red)


@given(kinds)
def test_botzone_round_trip(t) -> None:
    assert from_botzone(to_botzone(t)) == t


@given(kinds, st.integers(0, 3))
def test_136_and_34_round_trip(t, copy) -> None:
    i = to_136(t, copy)
    assert from_136(i) == t and 0 <= i < 136
    assert from_34(to_34(t)) == t


@given(st.lists(flagged, max_size=20))
def test_mpsz_round_trip(tiles) -> None:
    text = format_mpsz(tiles)
    assert parse_mpsz(text) == tiles
    # Without red fives mpsz is the engine's compact notation.
    plain = [t for t, _ in tiles]
    assert parse_tiles(format_mpsz(plain)) == plain if plain else True


@given(st.lists(flagged, min_size=1, max_size=14), st.sampled_from(["mjai", "botzone", "136", "mpsz"]))
def test_parse_notation_reads_each_form(tiles, notation) -> None:
    plain = [t for t, _ in tiles]
    if notation == "mjai":
        text = " ".join(to_mjai(t, r) for t, r in tiles)
    elif notation == "botzone":
        text = ",".join(to_botzone(t) for t in plain)
    elif notation == "136":
        text = str([to_136(t, red=r) if r else to_136(t, 1) for t, r in tiles])
    else:
        text = format_mpsz(tiles)
    assert parse_notation(text, notation) == plain
    if notation != "136":
        assert parse_notation(text) == plain


def test_known_names() -> None:
    assert [to_mjai(t) for t in range(27, 34)] == ["E", "S", "W", "N", "P", "F", "C"]
    assert to_mjai(4, red=True) == "5mr" and from_mjai("5sr") == (22, True)
    assert [to_botzone(t) for t in (0, 9, 18, 27, 30, 33, 32, 31)] == [
        "W1", "B1", "T1", "F1", "F4", "J1", "J2", "J3"]
    assert is_red_136(16) and is_red_136(52) and is_red_136(88) and not is_red_136(17)
    assert [tile_code(t) for t, _ in parse_mpsz("0m0p0s")] == ["5m", "5p", "5s"]
    assert parse_notation("W1 B2 T3 F1 J1") == [0, 10, 20, 27, 33]


@pytest.mark.parametrize("bad, fn", [
    ("6mr", from_mjai), ("X", from_mjai), ("5z", from_mjai), ("W0", from_botzone), ("J4", from_botzone),
    ("F5", from_botzone), ("0z", parse_mpsz), ("12", parse_mpsz), ("m", parse_mpsz), ("8z", parse_mpsz),
])
def test_bad_input_is_a_clear_error(bad, fn) -> None:
    with pytest.raises(TileParseError):
        fn(bad)


def test_bad_values() -> None:
    with pytest.raises(ValueError):
        to_mjai(3, red=True)
    with pytest.raises(ValueError):
        from_136(136)
    with pytest.raises(ValueError):
        to_136(0, 4)
    with pytest.raises(ValueError):
        parse_notation("1m", "tenhou6")
