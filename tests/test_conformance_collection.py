"""The conformance files run through pytest (this plugin) and through ``mj conformance`` alike."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from mjframework.run.conformance import conformance_files, run_file

ROOT = Path(__file__).resolve().parents[1]
OWN = ROOT / "tests" / "conformance"
# A few small cases per ruleset: a second directory, quick to run in a subprocess.
SAMPLES = ROOT / "tests" / "conformance-samples"


def _case_count(directory: Path) -> int:
    return sum(len(yaml.safe_load(f.read_text("utf-8"))["cases"]) for f in conformance_files([directory]))


def _pytest(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
                          capture_output=True, text=True, cwd=cwd, timeout=300)


def test_own_files_have_forty_cases_per_ruleset() -> None:
    for f in conformance_files([OWN]):
        data = yaml.safe_load(f.read_text("utf-8"))
        assert len(data["cases"]) >= 40, f.name


@pytest.mark.parametrize("directory", [OWN, SAMPLES], ids=["own", "samples"])
def test_every_case_passes_through_the_runner(directory: Path) -> None:
    results = [r for f in conformance_files([directory]) for r in run_file(f)]
    failed = [r.describe() for r in results if not r.passed]
    assert not failed, "\n".join(failed)
    assert len(results) == _case_count(directory)


def test_pytest_collects_a_directory_of_cases(tmp_path: Path) -> None:
    proc = _pytest(str(SAMPLES), cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"{_case_count(SAMPLES)} passed" in proc.stdout


def test_pytest_reports_a_failing_case_with_its_diff(tmp_path: Path) -> None:
    (tmp_path / "cases.yaml").write_text(
        "format: 1\nruleset: changsha\ncases:\n"
        "  - id: ok\n    seat: 1\n    hand: 234m 345p 666s 789s 8p\n    win_tile: 8p\n"
        "    win_by: self_draw\n    expect: {win: true, patterns: [平胡]}\n"
        "  - id: wrong-pay\n    seat: 1\n    hand: 234m 345p 666s 789s 8p\n    win_tile: 8p\n"
        "    win_by: self_draw\n    expect: {payments: [0, 0, 0, 0]}\n"
        "  - id: bad-tile\n    hand: 234x\n    win_tile: 8p\n    expect: {win: true}\n",
        encoding="utf-8")
    proc = _pytest(str(tmp_path), cwd=tmp_path)
    assert proc.returncode == 1
    assert "1 passed" in proc.stdout and "2 failed" in proc.stdout
    assert "payments: expected [0, 0, 0, 0]" in proc.stdout
    assert "got [-20, 40, -10, -10]" in proc.stdout
    assert "ERROR bad-tile" in proc.stdout and "column" in proc.stdout
