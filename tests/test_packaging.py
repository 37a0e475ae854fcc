"""`pip install .` (not only editable) ships the rulesets, fragments, plugins, schemas and web
files, with modern metadata and without a single setuptools warning."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest

import mjframework

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The wheel, built once from the checkout, and pip's verbose build log."""
    # Built from a copy of the tree: an in-tree build would leave build/ and
    # *.egg-info behind in the checkout.
    src = tmp_path_factory.mktemp("src") / "mjframework"
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(
        ".git", "build", "dist", "site", "*.egg-info", "__pycache__", ".*_cache", ".hypothesis",
        "test-artifacts", ".benchmarks"))
    out = tmp_path_factory.mktemp("wheel")
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-v", "-w", str(out), str(src)],
        capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        pytest.fail(proc.stdout + proc.stderr)
    return next(out.glob("mjframework-*.whl")), proc.stdout + proc.stderr


def test_build_prints_no_setuptools_warning(built: tuple[Path, str]) -> None:
    # setuptools reports problems as Python warnings (SetuptoolsDeprecationWarning,
    # SetuptoolsWarning, "_Warning: Package … is absent from the `packages`
    # configuration"). pip's own "WARNING:" lines about its indexes are not the
    # build's, and distutils' "warning: … byte-compiling is disabled" is about the
    # environment (PYTHONDONTWRITEBYTECODE), not the project.
    _, log = built
    warnings = [line.strip() for line in log.splitlines() if re.search(r"\w*Warning\b", line)]
    assert warnings == []


def test_wheel_contains_rulesets_plugins_schemas_and_web(built: tuple[Path, str]) -> None:
    wheel, _ = built
    names = set(zipfile.ZipFile(wheel).namelist())
    for rid in ("changsha", "yongzhou-huandiao", "yongzhou-wangba"):
        assert f"mjframework_rulesets/{rid}.yaml" in names
    for frag in (ROOT / "rulesets" / "fragments").glob("*.yaml"):
        assert f"mjframework_rulesets/fragments/{frag.name}" in names
    for plugin in (ROOT / "plugins").glob("*.py"):
        assert f"mjframework_plugins/{plugin.name}" in names
    for schema in (ROOT / "mjframework" / "schema").glob("*.json"):
        assert f"mjframework/schema/{schema.name}" in names
    assert "mjframework/schema/conformance.schema.json" in names
    for web in (ROOT / "mjframework" / "web").iterdir():
        assert f"mjframework/web/{web.name}" in names
    assert "mjframework/py.typed" in names
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "[mjframework.plugins]" in text and "haidi" in text
    assert "mj = mjframework.cli:main" in text


def test_wheel_metadata(built: tuple[Path, str]) -> None:
    wheel, _ = built
    zf = zipfile.ZipFile(wheel)
    name = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
    meta = Parser().parsestr(zf.read(name).decode("utf-8"))
    # one version source: mjframework.__version__
    assert meta["Version"] == mjframework.__version__
    assert wheel.name.startswith(f"mjframework-{mjframework.__version__}-")
    # PEP 639 license metadata, the license text shipped
    assert meta["License-Expression"] == "MIT"
    assert meta.get_all("License-File") == ["LICENSE"]
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in zf.namelist())
    assert not any(c.startswith("License ::") for c in meta.get_all("Classifier"))
    classifiers = meta.get_all("Classifier")
    assert "Programming Language :: Python :: 3 :: Only" in classifiers
    assert "Typing :: Typed" in classifiers
    # No Project-URL yet: the project has no public address, and a made-up one would mislead.
    assert meta.get_all("Project-URL") is None
    assert "docs" in (meta.get_all("Provides-Extra") or [])


def test_pyproject_declares_the_version_once() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    assert "version" not in project and "version" in project["dynamic"]


def test_changelog_has_the_current_version() -> None:
    text = (ROOT / "CHANGELOG.md").read_text("utf-8")
    assert text.startswith("# Changelog")
    assert "keepachangelog.com" in text
    versions = re.findall(r"^## \[([^\]]+)\]", text, flags=re.M)
    assert versions[0] == "Unreleased"
    assert mjframework.__version__ in versions
