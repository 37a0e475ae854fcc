"""The package and the shipped plugins type-check: mypy, at its standard strictness, with the
settings of ``[tool.mypy]`` in pyproject.toml, reports no error. This is how CI runs mypy
(``.ci/run`` runs the README's test command; the ``test`` extra installs mypy and the stubs).

A ``# type: ignore[code]`` in the package says why on its line (an untyped or loosely typed
third-party library); a new one without a reason is caught by review, not here."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_the_settings_cover_the_package_and_the_plugins() -> None:
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["mypy"]
    assert set(cfg["files"]) == {"mjframework", "plugins"}
    assert cfg["python_version"] == "3.11"
    extra = " ".join(cfg_dep for cfg_dep in tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
                     ["project"]["optional-dependencies"]["test"])
    for needed in ("mypy", "types-PyYAML", "types-jsonschema"):
        assert needed in extra, f"the test extra must install {needed}"


def test_mypy_reports_no_errors() -> None:
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed (pip install -e '.[test]' installs it)")
    r = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, f"mypy found errors:\n{r.stdout}{r.stderr}"
    assert r.stdout.startswith("Success: no issues found"), r.stdout


def test_the_strict_layers_keep_their_strict_flags() -> None:
    """core/, rules/, evaluate/, settle/ and play/ are held to ``mypy --strict`` through per-module
    flags (issue 22): dropping a layer from the override, or a flag from it, fails here."""
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["mypy"]
    strict = [o for o in cfg.get("overrides", []) if o.get("disallow_untyped_defs")]
    assert len(strict) == 1, strict
    over = strict[0]
    for layer in ("core", "rules", "evaluate", "settle", "play"):
        assert f"mjframework.{layer}.*" in over["module"], layer
    for flag in ("disallow_any_generics", "disallow_subclassing_any", "disallow_untyped_calls",
                 "disallow_untyped_defs", "disallow_incomplete_defs", "check_untyped_defs",
                 "disallow_untyped_decorators", "warn_return_any", "no_implicit_reexport",
                 "strict_equality"):
        assert over.get(flag) is True, flag
