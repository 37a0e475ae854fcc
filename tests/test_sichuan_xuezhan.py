"""四川麻将 · 血战到底 (rulesets/sichuan-xuezhan.yaml, docs/rules/sichuan-xuezhan.md).

The hand-computed cases live in tests/conformance/sichuan-xuezhan*.yaml and the 2,000-hand replay
in tests/test_replay.py; this file checks what those can't: the `groups.laid_down` measure the
ruleset's 金钩钓 needs (on a purpose-made ruleset), the 自摸加底 option, and a short simulation
through the CLI.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from mjframework.cli import main
from mjframework.hand import WinContext, make_hand
from mjframework.ruleset import load_ruleset
from mjframework.scoring import Evaluator

ROOT = Path(__file__).resolve().parents[1]

LAID_DOWN = """\
format: 1
id: test-laid-down
name: test laid-down groups
extends: {base}
patterns:
  - name: win
    shape: standard
    points: 1
  - name: all laid down
    require: {{groups: {{kind: [triplet], laid_down: true, count: 4}}}}
    points: 10
  - name: one formed in hand
    require: {{groups: {{kind: [triplet], laid_down: false, count: 1}}}}
    points: 100
"""


@pytest.fixture(scope="module")
def laid_down(tmp_path_factory: pytest.TempPathFactory) -> Evaluator:
    path = tmp_path_factory.mktemp("laid") / "laid.yaml"
    path.write_text(LAID_DOWN.format(base=ROOT / "tests" / "rulesets" / "base-108.yaml"), "utf-8")
    return Evaluator(load_ruleset(str(path)))


@pytest.mark.parametrize(("melds", "hand", "want"), [
    # a concealed kong is laid down (unlike `exposed`, which means made with a claimed tile)
    (["concealed-kong 7m", "pung 3m from 0", "kong 4p from 3", "added-kong 6p"], "1p", {"all laid down"}),
    (["pung 3m from 0", "pung 7m from 2", "pung 4p from 3"], "666p 1p", {"one formed in hand"}),
    ([], "111m 123p 456p 789p 9s", {"one formed in hand"}),
])
def test_laid_down_groups(laid_down: Evaluator, melds: list[str], hand: str, want: set[str]) -> None:
    tile = hand.split()[-1][-2:]
    score = laid_down.score(make_hand(hand, melds, tile), WinContext(seat=1, win_by="discard", discarder=0))
    assert score.win
    assert set(score.pattern_names) - {"win"} == want


def test_jiadi_only_changes_self_draw() -> None:
    """加底: 自摸 is worth no 番, and each payer adds one base after the cap."""
    base, jiadi = Evaluator(load_ruleset("sichuan-xuezhan")), Evaluator(load_ruleset("sichuan-xuezhan-jiadi"))
    hand = make_hand("111s 333s 88s 99s", ["concealed-kong 2s"], "9s")
    ctx = WinContext(seat=3, win_by="self_draw")
    assert base.evaluate(hand, ctx).payments == [-16, -16, -16, 48]   # 5 番, capped at 4
    assert jiadi.evaluate(hand, ctx).payments == [-17, -17, -17, 51]  # 4 番 = 16, + 1
    disc = WinContext(seat=3, win_by="discard", discarder=1)
    assert base.evaluate(hand, disc).payments == jiadi.evaluate(hand, disc).payments == [0, -16, 0, 16]


def test_simulate_has_several_wins_exchanges_and_declarations(tmp_path: Path) -> None:
    log = tmp_path / "sc.jsonl"
    res = CliRunner().invoke(main, ["simulate", "sichuan-xuezhan", "--hands", "60", "--seed", "1",
                                    "--log", str(log)])
    assert res.exit_code == 0, res.output
    wins_per_hand: list[int] = []
    types: set[str] = set()
    for line in log.read_text("utf-8").splitlines()[1:]:
        e = json.loads(line)
        types.add(e["type"])
        if e["type"] == "hand_start":
            wins_per_hand.append(0)
        elif e["type"] == "win":
            wins_per_hand[-1] += 1
        elif e["type"] == "hand_end":
            assert e["result"] in ("win", "draw")
    assert {"exchange", "declare", "kong"} <= types
    assert 2 in wins_per_hand and 3 in wins_per_hand


def test_conformance_in_play_key(tmp_path: Path) -> None:
    """`in_play` (seats still in the hand) decides who pays a self-draw; a bad value is a case error."""
    from mjframework.conformance import run_file

    f = tmp_path / "cases.yaml"
    f.write_text(
        "format: 1\nruleset: sichuan-xuezhan\ncases:\n"
        "  - {id: two-left, seat: 1, in_play: [1, 3], hand: 123m 456m 789p 234p 5p, win_tile: 5p,\n"
        "     expect: {payments: [0, 2, 0, -2]}}\n"
        "  - {id: bad, seat: 1, in_play: three, hand: 123m 456m 789p 234p 5p, win_tile: 5p,\n"
        "     expect: {win: true}}\n", "utf-8")
    good, bad = run_file(f)
    assert good.passed, good.describe()
    assert bad.status == "error" and "in_play" in bad.message
