"""`mj lint`: meaning-level warnings (dead patterns, useless exclusions, inverted payouts, ...)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from mjframework.cli import main
from mjframework.design.lint import NOTES, lint_file

# Real findings in the shipped rulesets, acknowledged in their YAML (`lint.accept`):
# exclusions between wait patterns whose `when.win_tile` differs, so they never both apply.
ACCEPTED = {
    "yongzhou-wangba": {
        ("useless-exclusion", "patterns[8].excludes[0]"),
        ("useless-exclusion", "patterns[10].excludes[0]"),
        ("useless-exclusion", "patterns[10].excludes[1]"),
    },
}

PLANTED = """\
format: 1
id: planted
name: planted
extends: changsha
players: 4                 # no-op: inherited as 4
scoring:
  dealer_bonus: 10         # no-op: inherited as 10
patterns:
  - name: 七小对
    shape: seven_pairs
    tier: big
    points: 60
    excludes: [碰碰胡]      # useless: seven pairs are never all triplets
  - name: 小清             # dead: always beaten by 清一色 (tier big)
    shape: standard
    require: {suits: 1}
    tier: small
    points: 10
  - name: 清碰             # inverted: implies 碰碰胡 and 清一色 yet pays 10
    shape: standard
    require: {suits: 1, sequences: 0}
    tier: big
    points: 10
"""


def _lint(*args: str) -> tuple[int, str]:
    res = CliRunner().invoke(main, ["lint", *args])
    return res.exit_code, res.output


@pytest.mark.parametrize("rid", ["changsha", "yongzhou-huandiao", "yongzhou-wangba", "sichuan-xuezhan"])
def test_shipped_rulesets_no_false_alarm_and_same_output_twice(rid: str) -> None:
    # The search is bounded by sample counts and a seed, never by time: the same
    # command prints the same thing on every run, on any machine, however loaded.
    code, out = _lint(rid, "--json")
    assert code == 0, out
    assert _lint(rid, "--json") == (code, out)
    warnings = json.loads(out)["warnings"]
    found = {(w["check"], w["path"]) for w in warnings if w["check"] not in NOTES and not w["accepted"]}
    assert found == set(), found
    accepted = {(w["check"], w["path"]) for w in warnings if w["accepted"]}
    assert accepted == ACCEPTED.get(rid, set()), accepted


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("lint") / "planted.yaml"
    path.write_text(PLANTED, encoding="utf-8")
    return path


def _line(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def test_planted_problems_found_with_locations(planted: Path) -> None:
    ws = lint_file(planted)
    by = {(w.check, tuple(w.patterns[:1])): w for w in ws}
    f = str(planted)

    dead = by[("dead-pattern", ("小清",))]
    assert dead.location.file == f and dead.location.line == _line(PLANTED, "name: 小清")
    assert "never scored" in dead.message and "清一色" in dead.message
    assert dead.example and dead.example.startswith(f"mj score {f} ")

    useless = by[("useless-exclusion", ("七小对",))]
    assert useless.location.file == f and useless.location.line == _line(PLANTED, "excludes: [碰碰胡]")
    assert "碰碰胡" in useless.message

    inverted = [w for w in ws if w.check == "inverted-payout" and w.patterns[0] == "清碰"]
    assert {w.patterns[1] for w in inverted} == {"碰碰胡", "清一色"}
    points_line = _line(PLANTED, "name: 清碰") + 4
    assert "points: 10" in PLANTED.splitlines()[points_line - 1]
    assert all(w.location.file == f and w.location.line == points_line for w in inverted)
    assert all(w.example for w in inverted)

    noop = {w.message.split("`")[1] for w in ws if w.check == "no-op-override"}
    assert noop == {"players", "scoring.dealer_bonus"}


def test_planted_cli_text_and_strict(planted: Path) -> None:
    code, out = _lint(str(planted))
    assert code == 0
    assert f"{planted}:{_line(PLANTED, 'name: 小清')}:5: patterns[1]: dead-pattern:" in out
    assert "patterns[0].excludes[0]: useless-exclusion:" in out
    assert "patterns[2].points: inverted-payout:" in out
    assert "players: no-op-override:" in out
    assert "check: mj score " in out
    code, _ = _lint(str(planted), "--strict")
    assert code == 1
    code, _ = _lint("changsha", "--strict")
    assert code == 0


def test_planted_example_reproduces(planted: Path) -> None:
    w = next(w for w in lint_file(planted) if w.check == "inverted-payout" and w.patterns[0] == "清碰")
    args = shlex.split(w.example)[3:]  # mj score RULESET ...
    res = CliRunner().invoke(main, ["score", str(planted), *args])
    assert res.exit_code == 0, res.output
    assert "清碰" in res.output


def test_invalid_ruleset_exits_1(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("format: 1\nid: bad\nextends: changsha\npatterns:\n  - name: x\n    points: one\n",
                   encoding="utf-8")
    code, _ = _lint(str(bad))
    assert code == 1


def test_duplicate_and_unmatchable(tmp_path: Path) -> None:
    path = tmp_path / "dup.yaml"
    path.write_text("format: 1\nid: dup\nname: dup\nextends: changsha\npatterns:\n"
                    "  - {name: 对对胡, shape: standard, require: {sequences: 0}, tier: big, points: 60}\n"
                    "  - {name: 不可能, shape: standard, require: {sequences: 0, triplets: 0}, tier: big,"
                    " points: 60}\n", encoding="utf-8")
    ws = {(w.check, w.patterns[0]): w for w in lint_file(path)}
    dup = ws[("duplicate-patterns", "对对胡")]
    assert dup.patterns[1] == "碰碰胡" and dup.location.line == 6 and "changsha.yaml" in dup.message
    dead = ws[("dead-pattern", "不可能")]
    assert dead.location.line == 7 and "no hand matching" in dead.message
