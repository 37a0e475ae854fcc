"""`mj new-variant` → a ruleset package that, installed, is a ruleset like the built-in ones.

The scaffolded package is "installed" as an installer would leave it, without
pip or the network: its module folder and a ``*.dist-info`` (``METADATA`` +
``entry_points.txt`` made from the package's own ``pyproject.toml``) in a
folder put on ``PYTHONPATH``. Subprocesses then see the entry point
``mjframework.rulesets`` exactly as after ``pip install``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

from mjframework.cli import main
from mjframework.rules.loader import RULESETS_GROUP

NAME = "club-house"
MODULE = "mj_club_house"


def install(package: Path, site: Path) -> Path:
    """What installing ``package`` leaves in site-packages: the module folder and its ``.dist-info``."""
    project = tomllib.loads((package / "pyproject.toml").read_text("utf-8"))["project"]
    eps = project["entry-points"][RULESETS_GROUP]
    site.mkdir(parents=True, exist_ok=True)
    shutil.copytree(package / "src" / MODULE, site / MODULE)
    dist = site / f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n", encoding="utf-8")
    (dist / "entry_points.txt").write_text(
        f"[{RULESETS_GROUP}]\n" + "".join(f"{k} = {v}\n" for k, v in eps.items()), encoding="utf-8")
    return site


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("variant") / NAME
    res = CliRunner().invoke(main, ["new-variant", NAME, "--base", "changsha", "--dir", str(root)])
    assert res.exit_code == 0, res.output
    return root


@pytest.fixture(scope="module")
def run(package: Path, tmp_path_factory: pytest.TempPathFactory):
    site = install(package, tmp_path_factory.mktemp("site"))
    cwd = tmp_path_factory.mktemp("elsewhere")  # neither the repository nor the package
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}

    def go(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env, cwd=cwd,
                              timeout=300)
    go.site = site  # type: ignore[attr-defined]
    return go


def test_scaffold_files(package: Path) -> None:
    pkg = package / "src" / MODULE
    for rel in ["pyproject.toml", "README.md", ".github/workflows/mj.yml", ".pre-commit-hooks.yaml",
                f"src/{MODULE}/__init__.py", f"src/{MODULE}/{NAME}.yaml",
                f"src/{MODULE}/conformance/{NAME}.yaml"]:
        assert (package / rel).is_file(), rel
        assert (package / rel).stat().st_mode & 0o777 == 0o666 & ~_umask(), rel
    assert "extends: builtin:changsha" in (pkg / f"{NAME}.yaml").read_text("utf-8")
    workflow = (package / ".github/workflows/mj.yml").read_text("utf-8")
    assert f"mj validate src/{MODULE}/{NAME}.yaml" in workflow
    assert f"mj conformance src/{MODULE}/conformance" in workflow
    hooks = (package / ".pre-commit-hooks.yaml").read_text("utf-8")
    assert "id: mj-validate" in hooks and "id: mj-conformance" in hooks
    project = tomllib.loads((package / "pyproject.toml").read_text("utf-8"))["project"]
    assert project["entry-points"][RULESETS_GROUP] == {NAME: MODULE}
    # Not over an existing folder, not with a bad name or base.
    again = CliRunner().invoke(main, ["new-variant", NAME, "--base", "changsha", "--dir", str(package)])
    assert again.exit_code == 1 and "not empty" in again.output
    assert CliRunner().invoke(main, ["new-variant", "Bad Name", "--base", "changsha"]).exit_code == 1
    assert CliRunner().invoke(main, ["new-variant", "x", "--base", "nonesuch"]).exit_code == 1


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def test_installed_package_is_listed_with_its_origin(run) -> None:
    p = run("-m", "mjframework", "rulesets")
    assert p.returncode == 0, p.stderr
    line = next(line for line in p.stdout.splitlines() if line.startswith(NAME))
    assert "package mj-club-house 0.1.0" in line
    assert any(line.startswith("changsha") and "built-in" in line for line in p.stdout.splitlines())
    rows = [json.loads(x) for x in run("-m", "mjframework", "rulesets", "--json").stdout.splitlines()]
    mine = next(r for r in rows if r["id"] == NAME)
    assert mine["source"] == NAME and mine["conformance"][0].endswith(f"conformance/{NAME}.yaml")
    assert mine["options"] == ["birds", "opening_wins", "dealer_bonus"]  # inherited from changsha


def test_installed_package_plays_by_id(run) -> None:
    p = run("-m", "mjframework", "simulate", NAME, "-n", "4", "-s", "3", "--json")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["ruleset"] == NAME
    p = run("-m", "mjframework", "play", NAME, "--watch", "-n", "1", "-s", "3")
    assert p.returncode == 0, p.stderr
    p = run("-m", "mjframework", "lint", NAME, "--strict", "--samples", "300")
    assert p.returncode == 0, p.stdout + p.stderr


def test_conformance_file_runs_under_pytest_and_mj(run) -> None:
    conf = run.site / MODULE / "conformance"
    p = run("-m", "mjframework", "conformance", str(conf))
    assert p.returncode == 0 and "3 passed, 0 failed" in p.stdout, p.stdout + p.stderr
    p = run("-m", "mjframework", "conformance", "--installed")
    assert p.returncode == 0 and "3 passed, 0 failed" in p.stdout, p.stdout + p.stderr
    p = run("-m", "pytest", "-q", "-p", "no:cacheprovider", str(conf))
    assert p.returncode == 0, p.stdout + p.stderr
    assert "3 passed" in p.stdout
