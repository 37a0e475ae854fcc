"""Measures (issue 11): per-group filters, counted groups per occurrence,
exposed / concealed melds, sets of four, the wait of the winning tile, per-seat
state and plugin-declared flags — on ``tests/rulesets/measures-108.yaml``.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from mjframework.cli import main
from mjframework.core.errors import HandError
from mjframework.core.hand import WinContext, make_hand
from mjframework.evaluate.scoring import Evaluator
from mjframework.rules.loader import load_ruleset

RULESETS = Path(__file__).resolve().parent / "rulesets"


@pytest.fixture(scope="module")
def ev() -> Evaluator:
    return Evaluator(load_ruleset(RULESETS / "measures-108.yaml"))


def scored(ev: Evaluator, hand: str, win: str, melds: tuple[str, ...] = (), **ctx: object) -> dict[str, int]:
    s = ev.score(make_hand(hand, list(melds), win), WinContext(**ctx))  # type: ignore[arg-type]
    assert s.win, s.reason
    return {p.name: p.times for p in s.patterns}


def test_every_group_holds_a_terminal_or_honor(ev: Evaluator) -> None:
    got = scored(ev, "123m789m111p999s1z", "1z")
    assert "带幺九" in got
    # 456m holds no terminal: not 带幺九, whatever the rest.
    assert "带幺九" not in scored(ev, "123m456m111p999s1z", "1z")
    # The pair counts as a group: a 5p pair spoils it.
    assert "带幺九" not in scored(ev, "123m789m111p999s5p", "5p")


def test_every_group_holds_a_five(ev: Evaluator) -> None:
    assert "全带五" in scored(ev, "345m456p567s55m55s", "5s")
    assert "全带五" not in scored(ev, "345m456p567s55m22s", "2s")


def test_triplets_of_named_tiles_count_per_occurrence(ev: Evaluator) -> None:
    got = scored(ev, "111m999p555z666z7z", "7z")
    assert got["箭刻"] == 2
    # A kong of 中 is a triplet too (kongs count as triplets); a pair of 中 is not.
    got = scored(ev, "123m456p11s66z", "6z", ("kong 7z from 2",))
    assert got["箭刻"] == 2  # 发 triplet (6z completed) + 中 kong
    assert "箭刻" not in scored(ev, "123m456p789s111m7z", "7z")


def test_exposed_and_concealed_melds(ev: Evaluator) -> None:
    got = scored(ev, "2255m555p567p", "5m", ("kong 5s from 1",))
    assert got["明杠"] == 1 and "暗刻" in got  # 555m and 555p concealed, the kong exposed
    got = scored(ev, "2255m567p", "5m", ("pung 5p from 1", "concealed-kong 5s"))
    assert "明杠" not in got and "暗刻" in got  # concealed kong + 555m; the pung is exposed


def test_laid_down_melds_include_concealed_kongs(ev: Evaluator) -> None:
    melds = ("pung 1m from 1", "kong 2p from 2", "added-kong 3s", "concealed-kong 9p")
    got = scored(ev, "5s", "5s", melds)
    assert "全落地" in got and "暗刻" not in got  # one concealed kong alone is not 2 concealed triplets
    assert "全落地" not in scored(ev, "5s999m", "5s", melds[:3])  # 999m formed in hand


def test_sets_of_four_melded_or_not(ev: Evaluator) -> None:
    # 5s kong (melded) and 5p four in hand (555p + 567p): two 根.
    assert scored(ev, "2255m555p567p", "5m", ("kong 5s from 1",))["根"] == 2
    assert "根" not in scored(ev, "234m456p789s111m7z", "7z")
    assert scored(ev, "1111m23m1s", "1s", ("concealed-kong 5z", "pung 9s from 2"))["根"] == 2


@pytest.mark.parametrize(("hand", "win", "waits"), [
    ("12m444p999s111z55z", "3m", {"边张"}),
    ("89m444p999s111z55z", "7m", {"边张"}),
    ("13m444p999s111z55z", "2m", {"嵌张"}),
    ("23m444p999s111z55z", "4m", set()),      # 两面
    ("123m444p999s111z5z", "5z", {"单钓"}),
    ("11m444p999s111z55z", "1m", set()),      # 对倒 (completes a triplet): not declared here
])
def test_wait_of_the_winning_tile(ev: Evaluator, hand: str, win: str, waits: set[str]) -> None:
    got = scored(ev, hand, win)
    assert {n for n in got if n in ("单钓", "边张", "嵌张")} == waits


def test_wait_is_judged_per_reading(ev: Evaluator) -> None:
    # 1123m + 1m: read as 11m pair + 123m (the 1 completes the pair: 单钓)… or as 111m + 23m (two-sided).
    got = scored(ev, "123m444p999s111z1m", "1m")
    assert "单钓" in got


def test_seat_state_and_declared_flags(ev: Evaluator) -> None:
    hand = "111m234m444p999s1z"
    assert "报听" not in scored(ev, hand, "1z")
    assert "报听" in scored(ev, hand, "1z", seat_state={"ready": True})
    assert "报听" not in scored(ev, hand, "1z", seat_state={"ready": False})
    assert "缺万" in scored(ev, hand, "1z", seat_state={"void_suit": "m"})
    assert "plugin bonus" in scored(ev, hand, "1z", flags=frozenset({"declared_bonus"}))
    with pytest.raises(HandError, match="unknown flag"):
        scored(ev, hand, "1z", flags=frozenset({"undeclared"}))
    # The memo of contexts keeps states apart.
    assert "报听" in scored(ev, hand, "1z", seat_state={"ready": True})
    assert "报听" not in scored(ev, hand, "1z", seat_state={})


def test_seat_state_from_the_cli_and_conformance(tmp_path: Path) -> None:
    r = CliRunner().invoke(main, ["score", str(RULESETS / "measures-108.yaml"), "111m234m444p999s1z",
                                  "-t", "1z", "--seat-state", "ready=true", "--json"],
                           catch_exceptions=False)
    assert r.exit_code == 0, r.output
    assert "报听" in r.output
    cases = tmp_path / "cases.yaml"
    cases.write_text(textwrap.dedent(f"""
        format: 1
        ruleset: {RULESETS / "measures-108.yaml"}
        cases:
          - id: ready
            hand: 111m234m444p999s1z
            win_tile: 1z
            seat_state: {{ready: true, void_suit: m}}
            expect: {{patterns: [win, 暗刻, 单钓, 报听, 缺万]}}
        """), encoding="utf-8")
    r = CliRunner().invoke(main, ["conformance", str(cases)], catch_exceptions=False)
    assert r.exit_code == 0, r.output


def _variant(tmp_path: Path, body: str) -> tuple[Path, str]:
    text = (f"format: 1\nid: v\nname: v\nextends: {RULESETS / 'measures-108.yaml'}\n"
            + textwrap.dedent(body).lstrip("\n"))
    p = tmp_path / "v.yaml"
    p.write_text(text, encoding="utf-8")
    return p, text


@pytest.mark.parametrize(("body", "needle", "path", "words"), [
    ("patterns:\n  - {name: x, points: 1, times: {per: groups}}\n", "groups", "patterns[0].times.per",
     ["has none"]),
    ("patterns:\n  - {name: x, points: 1, times: {per: set_of_four}}\n", "set_of_four",
     "patterns[0].times.per", ["did you mean 'sets_of_four'"]),
    ("patterns:\n  - {name: x, points: 1, when: {flags: [undeclared]}}\n", "undeclared",
     "patterns[0].when.flags[0]", ["declared under `flags`"]),
    ("patterns:\n  - {name: x, points: 1, phase: opening, require: {win_wait: [edge]}}\n", "win_wait",
     "patterns[0].require.win_wait", ["opening pattern"]),
    ("patterns:\n  - {name: x, points: 1, require: {win_wait: [middle]}}\n", "middle",
     "patterns[0].require.win_wait[0]", ["not one of"]),
    ("patterns:\n  - {name: x, points: 1, require: {groups: {kind: [triple]}}}\n", "triple",
     "patterns[0].require.groups.kind[0]", ["not one of"]),
])
def test_bad_measures_are_located_errors(tmp_path: Path, body: str, needle: str, path: str,
                                         words: list[str]) -> None:
    p, text = _variant(tmp_path, body)
    r = CliRunner().invoke(main, ["validate", str(p)], catch_exceptions=False)
    assert r.exit_code == 1 and "Traceback" not in r.output
    i = text.rindex(needle)
    line = text.count("\n", 0, i) + 1
    col = i - (text.rfind("\n", 0, i) + 1) + 1
    hits = [ln for ln in r.stderr.splitlines() if ln.startswith(f"{p}:{line}:{col}: {path}:")]
    assert len(hits) == 1, r.stderr
    for w in words:
        assert w in hits[0]
