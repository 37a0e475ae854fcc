"""The `mj` command line behaves the same everywhere: exit codes (the README's table),
`--json` on every reporting command, `-` for stdin/stdout, files with normal
permissions, `mj score` explaining its payments, one language per output."""

from __future__ import annotations

import json
import os
import re
import shlex
from collections.abc import Iterator
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from mjframework.cli import main
from mjframework.run import simulate as sim

REPO = Path(__file__).resolve().parent.parent
CJK = re.compile(r"[\u4e00-\u9fff]")


def mj(*args: str, input: str | None = None):
    return CliRunner().invoke(main, list(args), input=input)


@pytest.fixture
def in_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)


def exit_code_table() -> list[tuple[int, str]]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("### Exit codes", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        m = re.match(r"\| (\d+) \|.*\| `(mj [^`]+)`( then Ctrl-C)? \|$", line)
        if m:
            rows.append((int(m.group(1)), m.group(2) if not m.group(3) else ""))
    return rows


def test_readme_has_the_exit_code_table() -> None:
    codes = {code for code, _ in exit_code_table()}
    assert codes == {0, 1, 2, 130}


@pytest.mark.parametrize(("code", "command"), [r for r in exit_code_table() if r[1]])
def test_exit_code_table_examples(in_repo: None, code: int, command: str) -> None:
    res = mj(*shlex.split(command)[1:])
    assert res.exit_code == code, (command, res.output)
    assert "Traceback" not in res.output


@pytest.mark.parametrize(("args", "code"), [
    (["simulate", "changsha", "--hands", "lots"], 1),
    (["score", "changsha", "123m", "-t", "5p", "--seat", "9"], 1),
    (["lint", "changsha", "--samples", "0"], 1),
    (["score", "no-such-ruleset", "123m", "-t", "5p"], 1),
    (["conformance", "no/such/file.yaml"], 1),
    (["simulate"], 2),
    (["simulate", "changsha", "--no-such-option"], 2),
    (["no-such-command"], 2),
])
def test_exit_codes(args: list[str], code: int) -> None:
    res = mj(*args)
    assert res.exit_code == code, res.output
    assert "Traceback" not in res.output


def test_interrupted_simulation_exits_130_and_leaves_no_log(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(sim, "play_game", interrupted)
    res = mj("simulate", "changsha", "-n", "5", "-s", "1", "--log", str(tmp_path / "x.jsonl"))
    assert res.exit_code == 130
    assert list(tmp_path.iterdir()) == []


REPORTING = ["validate", "rulesets", "score", "conformance", "simulate", "plugins", "diff", "lint", "balance"]


@pytest.mark.parametrize("name", REPORTING)
def test_every_reporting_command_has_json(name: str) -> None:
    cmd = main.get_command(click.Context(main), name)
    assert any("--json" in p.opts for p in cmd.params), name


def test_validate_json(in_repo: None) -> None:
    res = mj("validate", "--json", "rulesets/changsha.yaml", "tests/data/broken-ruleset.yaml")
    assert res.exit_code == 1
    good, bad = (json.loads(line) for line in res.stdout.splitlines())
    assert good == {"file": "rulesets/changsha.yaml", "ok": True, "kind": "ruleset",
                    "summary": good["summary"], "problems": [], "warnings": []}
    assert bad["ok"] is False and bad["problems"] == [{
        "file": "tests/data/broken-ruleset.yaml", "line": 6, "column": 10, "path": "players",
        "message": "must be an integer, not 'five'"}]


def test_validate_and_conformance_read_stdin(in_repo: None) -> None:
    res = mj("validate", "-", input=(REPO / "tests/data/broken-ruleset.yaml").read_text("utf-8"))
    assert res.exit_code == 1 and "<stdin>:6:10: players: must be an integer" in res.output
    assert "mj-stdin" not in res.output  # the stand-in file's name never shows
    res = mj("conformance", "-", input=(REPO / "tests/conformance/changsha.yaml").read_text("utf-8"))
    assert res.exit_code == 0 and res.output.rstrip().endswith("0 failed")
    src = (REPO / "rulesets/changsha.yaml").read_text("utf-8").replace("dealer_bonus: 10\n",
                                                                          "dealer_bonus: 0\n")
    src = src.replace("    default: 10\n", "    default: 0\n")
    res = mj("score", "-", "123m 456m 789p 345s 2p", "-t", "2p", "--json", input=src)
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["payments"] == [30, -10, -10, -10]


def test_simulate_log_to_stdout(tmp_path: Path) -> None:
    to_file = mj("simulate", "changsha", "-n", "6", "-s", "2", "--log", str(tmp_path / "a.jsonl"), "--json")
    to_stdout = mj("simulate", "changsha", "-n", "6", "-s", "2", "--log", "-", "--json")
    assert to_stdout.exit_code == 0
    assert to_stdout.stdout == (tmp_path / "a.jsonl").read_text("utf-8")
    stats = json.loads(to_stdout.stderr)
    assert stats["log"] == "-" and stats["hands"] == json.loads(to_file.stdout)["hands"] == 6
    assert not list(Path.cwd().glob("-"))  # not a file named `-`


def test_doc_and_schema_to_stdout() -> None:
    assert mj("doc", "changsha", "-o", "-").stdout.startswith("# 长沙麻将")
    assert json.loads(mj("schema", "-o", "-").stdout)["title"] == "mjframework ruleset"


@pytest.fixture(params=[0o022, 0o027])
def umask(request: pytest.FixtureRequest) -> Iterator[int]:
    old = os.umask(request.param)
    try:
        yield request.param
    finally:
        os.umask(old)


def test_files_get_normal_permissions(tmp_path: Path, umask: int) -> None:
    want = 0o666 & ~umask
    assert mj("schema", "-o", str(tmp_path / "s.json")).exit_code == 0
    assert mj("doc", "changsha", "-o", str(tmp_path / "c.md")).exit_code == 0
    assert mj("simulate", "changsha", "-n", "2", "-s", "1", "--log", str(tmp_path / "l.jsonl")).exit_code == 0
    assert mj("simulate", "changsha", "-n", "4", "-s", "1", "-j", "2",
              "--log", str(tmp_path / "p.jsonl")).exit_code == 0
    for name in ("s.json", "c.md", "l.jsonl", "p.jsonl"):
        assert (tmp_path / name).stat().st_mode & 0o777 == want, name
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.md", "l.jsonl", "p.jsonl", "s.json"]


# --------------------------------------------------------------------------
# mj score's text; one language per output


HAND = ["changsha", "123m 456m 789p 345s 2p", "-t", "2p"]


def test_score_text_explains_each_payment() -> None:
    out = mj("score", *HAND, "-s", "1", "-d", "0", "-c", "birds=1m 2s").output
    assert "赢家 下家, 点炮 (庄家打出)" in out
    assert "  庄家 → 下家  80 = (10 + 10 庄家加) ×4   平胡 ×4 鸟" in out
    assert "净得  庄家 -80   下家 +80   对家 +0   上家 +0" in out
    out = mj("score", *HAND, "-s", "2").output
    assert "赢家 对家, 自摸" in out
    assert "  庄家 → 对家  20 = 10 + 10 庄家加   平胡" in out
    assert "  下家 → 对家  10   平胡" in out
    assert "座" not in out


def test_score_text_in_english() -> None:
    out = mj("score", *HAND, "-s", "2", "-c", "birds=3m", "--lang", "en").output
    assert "winner opposite, self-draw" in out and "payments" in out
    assert "  dealer → opposite  40 = (10 + 10 dealer) ×2   平胡 ×2 鸟" in out
    # Only the ruleset's own names (pattern, variant, plugin reason) stay Chinese.
    for line in out.splitlines():
        rest = line.replace("平胡", "").replace("长沙麻将", "").replace("鸟", "")
        assert not CJK.search(rest), line


def test_narration_is_chinese_with_seat_names() -> None:
    out = mj("play", "changsha", "--watch", "-n", "2", "-s", "3").output
    assert "扎鸟" in out and "→北家" in out
    assert "座" not in out and "self-draw" not in out and "on a discard" not in out
