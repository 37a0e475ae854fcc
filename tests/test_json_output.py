"""Every `--json` prints only JSON on stdout, also when the command fails (an error object)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from mjframework.cli import main

REPO = Path(__file__).resolve().parent.parent


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def test_conformance_json_is_json_lines_only() -> None:
    r = run("conformance", str(REPO / "tests" / "conformance" / "changsha.yaml"), "--json")
    assert r.exit_code == 0, r.output
    rows = [json.loads(line) for line in r.stdout.splitlines()]
    assert rows and all(isinstance(x, dict) and "status" in x for x in rows)
    assert "passed" in r.stderr  # the summary line, on stderr


def test_lint_json_on_an_invalid_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("format: 1\nid: x\nname: x\ntiles: 7\n", "utf-8")
    r = run("lint", str(bad), "--json")
    assert r.exit_code == 1
    d = json.loads(r.stdout)
    assert d["ok"] is False and d["problems"][0]["line"] == 4 and d["problems"][0]["path"] == "tiles"


@pytest.mark.parametrize("args", [
    ["simulate", "no-such-ruleset", "-n", "1", "--json"],
    ["simulate", "changsha", "-n", "lots", "--json"],
    ["score", "changsha", "123m", "-t", "5p", "--json"],
    ["match", "changsha", "--seats", "greedy", "-n", "1", "--json"],
    ["diff", "changsha", "no-such-ruleset", "--json"],
])
def test_errors_under_json_are_a_json_object(args: list[str]) -> None:
    r = run(*args)
    assert r.exit_code == 1, r.output
    d = json.loads(r.stdout)
    assert d["ok"] is False and d["error"]
