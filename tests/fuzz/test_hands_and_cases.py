"""Hands, context and conformance cases: every reproduction of issue 16 is a clear error, not a crash."""

from __future__ import annotations

import re
from pathlib import Path
from typing import ClassVar

import pytest
from click.testing import CliRunner
from fuzzkit import assert_clean, run_mj

from mjframework.cli import main

HAND = ["123m 456m 789p 345s 2p", "-t", "2p"]


def mj(*args: str, input: str | None = None) -> tuple[int, str]:
    r = CliRunner().invoke(main, list(args), input=input)
    assert r.exception is None or isinstance(r.exception, SystemExit), r.exc_info
    return r.exit_code, r.output


@pytest.mark.parametrize(("ctx", "needle"), [
    ("birds=" + " ".join(["1m"] * 200), "at most 2"),
    ("birds=1z", "not in this ruleset's tile set"),
    ("bird=1m", "unknown context key 'bird'"),
    ("birds=xx", "give tiles"),
])
def test_score_context_is_checked_against_the_ruleset(ctx: str, needle: str) -> None:
    code, out = mj("score", "changsha", *HAND, "-c", ctx)
    assert code == 1 and needle in out, out


def test_score_context_within_the_ruleset_still_pays() -> None:
    code, out = mj("score", "changsha", *HAND, "-c", "birds=1m 2m", "--json")
    assert code == 0, out


def test_a_ruleset_without_plugins_reads_no_context() -> None:
    code, out = mj("score", "yongzhou-wangba", *HAND, "-c", "birds=1m")
    assert code == 1 and "no plugin of this ruleset reads any context" in out


@pytest.mark.parametrize(("meld", "needle"), [
    ("concealed-kong 5s from 2", "comes from no one"),
    ("pung 5s from 9", "not 0–3"),
])
def test_meld_direction_where_it_means_nothing(meld: str, needle: str) -> None:
    code, out = mj("score", "changsha", "123m 456m 789p 2p", "-m", meld, "-t", "2p")
    assert code == 1 and needle in out, out


CASE_HEAD = "format: 1\nruleset: changsha\ncases:\n"
GOOD_CASE = "  - {id: ok, hand: 234m 345p 666s 789s 8p, win_tile: 8p, seat: 3, expect: {win: true}}\n"


@pytest.mark.parametrize("case", [
    "  - {id: a, hand: 234m 345p 666s 789s 8p, win_tile: 8p, expect: {patterns: [1, [2]]}}\n",
    "  - {id: b, hand: 234m 345p 666s 789s 8p, win_tile: 8p, expect: {payments: [a, {b: 1}]}}\n",
    "  - {id: c, hand: 234m 345p 666s 789s 8p, win_tile: 8p, expect: {win: yes please}}\n",
    "  - {id: d, hand: 234m 345p 666s 789s 8p, win_tile: 8p, expect: {call: 2024-01-01}}\n",
    "  - {id: e, hand: [1, 2], win_tile: {x: 1}, expect: {}}\n",
    "  - {id: [f], hand: 234m 345p 666s 789s 8p, win_tile: 8p, expect: {}}\n",
    "  - {id: g, hand: 234m 345p 666s 789s 8p, win_tile: 8p, melds: [[1]], expect: {}}\n",
    "  - {id: h, hand: 234m 345p 666s 789s 8p, win_tile: 8p, context: {bird: 1m}, expect: {}}\n",
    "  - {id: i, hand: 234m 345p 666s 789s 8p, win_tile: 8p, discarder: nine, win_by: discard, expect: {}}\n",
    "  - 17\n",
])
def test_a_bad_case_is_a_failure_and_the_run_goes_on(tmp_path: Path, case: str) -> None:
    (tmp_path / "a.yaml").write_text(CASE_HEAD + case + GOOD_CASE)
    (tmp_path / "b.yaml").write_text(CASE_HEAD + GOOD_CASE.replace("id: ok", "id: ok2"))
    for args in ((str(tmp_path),), (str(tmp_path), "--json")):
        code, out = mj("conformance", *args)
        assert code == 1, out
        assert out.rstrip().splitlines()[-1] == "2 passed, 1 failed", out


@pytest.mark.parametrize("text", [
    "format: 1\nruleset: [changsha]\ncases: []\n",
    "format: 1\nruleset: \"a\\0b\"\ncases: []\n",
    "format: 1\nruleset: /nonexistent/x.yaml\ncases: []\n",
    "cases: 1\n",
    "- 1\n",
    ": : :\n",
    "format: 1\nruleset: changsha\ncases: &a [*a]\n",
])
def test_a_bad_file_in_a_folder_run_keeps_the_summary(tmp_path: Path, text: str) -> None:
    (tmp_path / "a.yaml").write_text(text)
    (tmp_path / "b.yaml").write_text(CASE_HEAD + GOOD_CASE)
    code, out = mj("conformance", str(tmp_path), str(tmp_path / "missing.yaml"))
    assert code == 1
    assert re.fullmatch(r"1 passed, [23] failed", out.rstrip().splitlines()[-1]), out


def test_conformance_in_a_subprocess_bounded(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(CASE_HEAD + "  - {id: a, hand: x, expect: {patterns: [1, [2]]}}\n")
    r = run_mj("conformance", str(tmp_path), mem_mb=300, cpu_s=30)
    assert_clean(r, ok=False)
    assert r.stdout.rstrip().splitlines()[-1] == "0 passed, 1 failed"


@pytest.mark.parametrize("answer", ["²", "9" * 5000, "１٢", "1.0", "0x1", "-0", " ", "١" * 7])
def test_play_asks_again_for_a_strange_number(answer: str) -> None:
    code, out = mj("play", "changsha", "--seed", "3", input=f"{answer}\nq\n")
    assert code == 0, out
    assert "请输入 1–" in out, out
    # Only 'q' (leaving the table) abandons the hand; the strange answer was asked again.
    ended = [ln for ln in out.splitlines() if "作废" in ln or "hand abandoned" in ln]
    assert all("离开牌桌" in ln for ln in ended), ended


def test_play_does_not_count_an_abandoned_hand(tmp_path: Path) -> None:
    from mjframework.hooks.registry import register_plugin, unregister_plugin
    from mjframework.hooks.specs import hookimpl

    class FirstHandFails:
        options_schema: ClassVar[dict] = {"type": "object"}

        def __init__(self, options: dict) -> None:
            pass

        @hookimpl
        def mj_after_deal(self, hand) -> None:
            if hand.hand_no == 0:
                raise RuntimeError("first hand")

    register_plugin("first-hand-fails", FirstHandFails)
    try:
        p = tmp_path / "v.yaml"
        p.write_text("id: v\nextends: changsha\nplugins: {first-hand-fails: {}}\n")
        code, out = mj("play", str(p), "--seed", "3", "--hands", "2", "--watch")
        # The game plays on and counts one hand; a hand abandoned by a failure makes the command
        # fail at the end (exit 1, one line saying why), as `mj simulate` does.
        assert code == 1, out
        assert "first hand" in out and "this hand is not counted" in out
        lines = out.rstrip().splitlines()
        assert lines[-2].startswith("1 手"), out[-500:]
        assert lines[-1].startswith("error: 1 hand(s) abandoned"), out[-500:]
    finally:
        unregister_plugin("first-hand-fails")
