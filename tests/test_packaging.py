"""`pip install .` (not only editable) ships the rulesets, fragments, plugins and schema."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_wheel_contains_rulesets_plugins_and_schema(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q",
         "-w", str(tmp_path), str(ROOT)],
        capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        pytest.fail(proc.stdout + proc.stderr)
    wheel = next(tmp_path.glob("mjframework-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    for rid in ("changsha", "yongzhou-huandiao", "yongzhou-wangba"):
        assert f"mjframework_rulesets/{rid}.yaml" in names
    for frag in (ROOT / "rulesets" / "fragments").glob("*.yaml"):
        assert f"mjframework_rulesets/fragments/{frag.name}" in names
    for plugin in (ROOT / "plugins").glob("*.py"):
        assert f"mjframework_plugins/{plugin.name}" in names
    assert "mjframework/schema/ruleset.schema.json" in names
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "[mjframework.plugins]" in text and "zhaniao" in text
    assert "mj = mjframework.cli:main" in text
