"""The newer variants' conformance cases (hongzhong, guangdong-tuidaohu, taiwan-16) checked by
an independent brute-force scorer (tests/brute_reference.py: its own tile parser, every wildcard
assignment, every reading, the rules pages' pattern lists; no engine code), so that a case is
not only the engine checked against itself."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from brute_reference import SCORERS, guangdong, hongzhong, parse, parse_flowers, parse_meld, taiwan16

CASES = Path(__file__).parent / "conformance"


def _cases(rid: str) -> list[dict[str, Any]]:
    data = yaml.safe_load((CASES / f"{rid}.yaml").read_text(encoding="utf-8"))
    assert data["ruleset"] == rid
    return list(data["cases"])


@pytest.mark.parametrize("rid", sorted(SCORERS))
def test_every_case_agrees_with_the_brute_force_reference(rid: str) -> None:
    scorer = SCORERS[rid]
    cases = _cases(rid)
    assert len(cases) >= 40
    wins = 0
    disagree = []
    for case in cases:
        assert not case.get("options") and not case.get("seats") and case.get("dealer", 0) == 0, case["id"]
        want = case["expect"]
        got = scorer(case)
        if got.win != want["win"]:
            disagree.append(f"{case['id']}: win {got.win}, the case says {want['win']}")
            continue
        if not got.win:
            continue
        wins += 1
        if "payments" in want and got.payments != want["payments"]:
            disagree.append(f"{case['id']}: pays {got.payments}, the case says {want['payments']}")
        if "patterns" in want and frozenset(want["patterns"]) not in got.patterns:
            disagree.append(f"{case['id']}: patterns {[sorted(p) for p in got.patterns]}, "
                            f"the case says {want['patterns']}")
    assert not disagree, "\n".join(disagree)
    assert wins >= 30


def test_the_dianpao_option_s_cases_agree() -> None:
    data = yaml.safe_load((CASES.parent / "data" / "hongzhong-dianpao.yaml").read_text(encoding="utf-8"))
    assert data["options"] == {"dianpao": True}
    for case in data["cases"]:
        got = hongzhong(case, dianpao=True)
        assert got.win == case["expect"]["win"], case["id"]
        assert got.payments == case["expect"].get("payments"), case["id"]


def test_the_reference_reads_tiles_its_own_way() -> None:
    assert parse("123m 中中 5s 东") == ["1m", "2m", "3m", "7z", "7z", "5s", "1z"]
    with pytest.raises(ValueError):
        parse("12x")


def test_the_reference_is_not_vacuous() -> None:
    """It tells a win from a non-win, and prices patterns and hits, on hands of its own."""
    base = {"seat": 1, "win_by": "self_draw"}
    assert not hongzhong({**base, "hand": "123m 456m 789p 24s 58s", "win_tile": "9s"}).win
    assert hongzhong({**base, "hand": "123m 456m 789p 24s 55s", "win_tile": "中"}).win  # 中 as 3s
    got = hongzhong({**base, "hand": "123m 456m 789p 234s 5s", "win_tile": "5s",
                     "context": {"bonus_tiles": ["1m", "2p"]}})
    assert got.payments == [-4, 12, -4, -4]
    qing = guangdong({**base, "hand": "111m 333m 555m 777m 9m", "win_tile": "9m"})
    assert qing.payments == [-16, 48, -16, -16]  # 清一色 ×4 × 碰碰胡 ×2 = ×8
    assert frozenset({"清一色", "碰碰胡"}) in qing.patterns
    assert not guangdong({**base, "hand": "123m 456m 789p 234s 5s", "win_tile": "5s", "win_by": "discard",
                          "discarder": 2}).win


def test_the_reference_reads_17_tile_hands_and_flowers() -> None:
    """taiwan-16: five sets and a pair, 台 by the page, flowers by name, 庄家 and 连庄 money."""
    assert parse_meld("chow 867s from 1").tiles == ("6s", "7s", "8s")
    with pytest.raises(ValueError):
        parse_meld("chow 135s")
    assert parse_flowers("春 5f") == (2, ["1f", "5f"]) and parse_flowers(3) == (3, [])
    base = {"seat": 1, "win_by": "discard", "discarder": 2}
    # 门清 + 独听 (单吊 9s): 底 5 + 2
    got = taiwan16({**base, "hand": "123m 456m 789m 234p 567p 9s", "win_tile": "9s"})
    assert got.payments == [0, 7, -7, 0] and frozenset({"胡牌", "门清", "独听"}) in got.patterns
    # the same tiles less a set are no win: 14 tiles are not a 17-tile hand
    assert not taiwan16({**base, "hand": "123m 456m 789m 234p 9s", "win_tile": "9s"}).win
    # 夏 is 南's flower: seat 1's 正花; 冬 is not
    assert taiwan16({**base, "hand": "123m 456m 789m 234p 567p 9s", "win_tile": "9s",
                     "flowers": "夏 冬"}).payments == [0, 8, -8, 0]
    # the dealer pays 底 + 台 + 庄家 1 + 2 × 连庄 on a self-draw of another seat
    got = taiwan16({"seat": 1, "win_by": "self_draw", "hand": "234m 567p 99s 45m", "win_tile": "3m",
                    "melds": ["pung 5s from 0", "chow 678s from 0"], "seat_state": {"lianzhuang": 2}})
    assert got.payments == [-11, 23, -6, -6]
