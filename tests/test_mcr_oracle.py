"""国标麻将 (MCR) scored hand by hand against an independent calculator, PyMahjongGB.

The hands come from the seeded generator in ``tests/mcr_hands.py``: for every
fan of the rule book (and PyMahjongGB's 明暗杠) hands built to contain it, plus
random legal winning hands, with melds, flowers, winds and every win flag.

Counts are fixed (no timing): ``PER_FAN`` hands per fan and ``N_RANDOM`` random
hands, over 20,000 in all. ``MJ_MCR_HANDS=N`` multiplies both by N for a longer
local run (``MJ_MCR_HANDS=10 python -m pytest tests/test_mcr_oracle.py``);
``MJ_MCR_SEED`` changes the seed.
"""

from __future__ import annotations

import os
from collections import Counter

import mcr_hands as M
import pytest

MahjongGB = pytest.importorskip("MahjongGB", reason="PyMahjongGB (the test extra) is the oracle")
MahjongFanCalculator = MahjongGB.MahjongFanCalculator

SCALE = int(os.environ.get("MJ_MCR_HANDS", "1"))
SEED = int(os.environ.get("MJ_MCR_SEED", "20061"))
PER_FAN = 125 * SCALE
N_RANDOM = 10_000 * SCALE
FLOWER = "Flower Tiles"


def oracle(h: M.MCRHand) -> Counter[tuple[int, str]]:
    """PyMahjongGB's fans of ``h``: a multiset of (value of one occurrence, English name)."""
    out: Counter[tuple[int, str]] = Counter()
    for value, count, _zh, en in MahjongFanCalculator(**h.pmg_args(), verbose=True):
        out[(value, en)] += count
    return out


def total(fans: Counter[tuple[int, str]], flowers: bool = True) -> int:
    return sum(v * n for (v, en), n in fans.items() if flowers or en != FLOWER)


@pytest.fixture(scope="module")
def generated() -> list[M.MCRHand]:
    return list(M.hands(SEED, N_RANDOM, PER_FAN))


@pytest.fixture(scope="module")
def scored(generated) -> list[tuple[M.MCRHand, Counter[tuple[int, str]]]]:
    return [(h, oracle(h)) for h in generated]


# --- the generator itself -------------------------------------------------------

def test_enough_hands(generated):
    assert len(generated) >= 20_000
    assert len(M.RULE_BOOK_FANS) == 81
    built = Counter(h.built_for for h in generated)
    assert all(built[en] == PER_FAN for en in M.FANS)


def test_generated_hands_are_legal(generated):
    """The generator's own rules, checked without the oracle."""
    for h in generated:
        tiles = h.all_tiles()
        assert max(Counter(tiles).values()) <= 4, h.describe()
        assert len(h.concealed) + 3 * len(h.melds) == 13, h.describe()
        assert len(h.melds) <= 4 and 0 <= h.flowers <= 8
        held_copies = h.concealed.count(h.win_tile)
        in_melds = sum(m.tiles.count(h.win_tile) for m in h.melds)
        if h.fourth_tile:
            assert held_copies == 0, h.describe()
        if in_melds == 3:
            assert h.fourth_tile, h.describe()
        if h.about_kong:
            assert not h.wall_last, h.describe()
            if h.self_drawn:
                assert any(m.kind in ("kong", "concealed-kong") for m in h.melds), h.describe()
            else:
                assert held_copies == 0 and in_melds == 0 and h.fourth_tile, h.describe()
        if h.shape == "special":
            assert all(m.claimed for m in h.melds) and len(h.melds) <= 1


def test_every_hand_wins_for_the_oracle_with_the_flags_as_given(scored):
    """PyMahjongGB accepts every hand and never has to correct a flag."""
    for h, fans in scored:
        names = {en for _v, en in fans}
        robbed = h.about_kong and not h.self_drawn
        assert ("Last Tile" in names) == (h.fourth_tile and not robbed), h.describe()
        assert ("Robbing The Kong" in names) == robbed, h.describe()
        assert ("Out with Replacement Tile" in names) == (h.about_kong and h.self_drawn), h.describe()
        assert ("Last Tile Draw" in names) == (h.wall_last and h.self_drawn), h.describe()
        assert ("Last Tile Claim" in names) == (h.wall_last and not h.self_drawn), h.describe()
        assert fans[(1, FLOWER)] == h.flowers


def test_every_fan_is_built(scored):
    """Hands built for a fan contain it (by construction, not by filtering): at least a
    quarter of them, and most fans nearly always. A target fan can be absorbed by a
    bigger one (不计), so 100% is not required."""
    have: Counter[str] = Counter()
    seen: Counter[str] = Counter()
    for h, fans in scored:
        names = {en for _v, en in fans}
        seen.update(names)
        if h.built_for in names:
            have[h.built_for] += 1
    weak = {en: have[en] for en in M.FANS if have[en] < PER_FAN // 4}
    assert not weak, f"fans rarely produced by their builder: {weak}"
    assert all(seen[en] for en in M.FANS)
    assert sum(have.values()) >= 0.9 * PER_FAN * len(M.FANS)


def test_oracle_names_are_the_generators():
    """The English names the generator keys fans by are exactly PyMahjongGB's."""
    h = M.hand_for(__import__("random").Random(1), "Flower Tiles")
    got = MahjongFanCalculator(**h.pmg_args(), verbose=True)
    assert all(en in M.FANS for _v, _n, _zh, en in got)
    values = {en: v for en, (v, _zh, _b) in M.FANS.items()}
    for _h, fans in [(h, oracle(h))]:
        for (v, en) in fans:
            assert values[en] == v
