"""The evaluator's shape (docs/architecture.md), checked from the source, as
tests/test_table_shape.py checks the table's: no module of ``evaluate/`` over 700 lines,
no function over cyclomatic complexity 25.

No function is allowed more: ``Evaluator._score`` (once 40) is split into its steps, a few
calls per hand; :func:`readings._standard`, the recursive reading search (once 34), makes its
sequence branches one loop over a table made once (17), with no loss of speed. A function
added to :data:`HOT_PATH` needs a measured reason.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

EVALUATE = Path(__file__).resolve().parents[1] / "mjframework" / "evaluate"
SOURCES = sorted(EVALUATE.rglob("*.py"))
MAX_LINES = 700
MAX_COMPLEXITY = 25
#: (module, function) -> the complexity it may keep (see the module docstring).
HOT_PATH: dict[tuple[str, str], int] = {}


def _rel(p: Path) -> str:
    return str(p.relative_to(EVALUATE.parent.parent))


@pytest.mark.parametrize("path", SOURCES, ids=_rel)
def test_no_module_of_the_evaluator_is_too_long(path: Path) -> None:
    lines = path.read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_LINES, f"{_rel(path)} has {lines} lines (at most {MAX_LINES}): split it by concern"


def test_no_function_of_the_evaluator_is_too_complex() -> None:
    """McCabe's complexity as ruff counts it (C901); the hot-path functions named above
    may keep, and not exceed, the complexity they have."""
    ruff = shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff is not installed (pip install '.[test]')")
    proc = subprocess.run([ruff, "check", "--select", "C901", "--config",
                           f"lint.mccabe.max-complexity={MAX_COMPLEXITY}", "--output-format", "json",
                           str(EVALUATE)], capture_output=True, text=True, cwd=EVALUATE.parent.parent)
    found = json.loads(proc.stdout)
    assert all(d["code"] == "C901" for d in found), proc.stdout
    too_complex = []
    for d in found:
        m = re.match(r"`(\w+)` is too complex \((\d+) > \d+\)", d["message"])
        assert m, d["message"]
        name, value = m[1], int(m[2])
        allowed = HOT_PATH.get((Path(d["filename"]).name, name), MAX_COMPLEXITY)
        if value > allowed:
            too_complex.append(f"{Path(d['filename']).name}:{name} ({value} > {allowed})")
    assert not too_complex, f"split these by concern (extract helpers): {too_complex}"
