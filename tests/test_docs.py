"""The documentation: a page of rules per built-in ruleset, the conformance format complete,
the site builds with ``mkdocs build --strict``, and nothing cites documents outside the
repository."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from mjframework.rules.model import FLAGS, MELD_KINDS, WIN_BY
from mjframework.run import conformance

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
RULESETS = sorted((ROOT / "rulesets").glob("*.yaml"))


def _ruleset(path: Path) -> dict:
    return yaml.safe_load(path.read_text("utf-8"))


def test_every_builtin_ruleset_has_a_rules_page() -> None:
    index = (DOCS / "rules" / "index.md").read_text("utf-8")
    assert RULESETS
    for path in RULESETS:
        rid = _ruleset(path)["id"]
        page = DOCS / "rules" / f"{rid}.md"
        assert page.is_file(), f"docs/rules/{rid}.md is missing: write the rules of {rid} as implemented"
        assert f"]({rid}.md)" in index, f"docs/rules/index.md doesn't link {rid}.md"
        assert f"`{rid}`" in page.read_text("utf-8").splitlines()[0], "the title names the ruleset id"


@pytest.mark.parametrize("path", RULESETS, ids=lambda p: p.stem)
def test_rules_page_covers_the_ruleset(path: Path) -> None:
    """Every section a player needs; every pattern with its points; every plugin."""
    data = _ruleset(path)
    text = (DOCS / "rules" / f"{data['id']}.md").read_text("utf-8")
    headings = " | ".join(re.findall(r"^#+ (.*)$", text, flags=re.M)).lower()
    for section in ("tiles", "the table", "play", "patterns", "payments", "the dealer", "plugins",
                    "ties", "choices"):
        assert section in headings, f"no section on {section!r}"
    rows = [line for line in text.splitlines() if line.startswith("|")]
    for p in data["patterns"]:
        name, points = p["name"], p["points"]
        assert f"「{name}」" in text, f"pattern {name} is not described"
        if p.get("phase") == "opening":
            continue
        cells = [[c.strip() for c in row.split("|")] for row in rows if f"「{name}」" in row]
        assert any(c.startswith(str(points)) for cs in cells for c in cs[2:]), \
            f"no table row gives {name} its {points} points"
    for plugin in data.get("plugins") or {}:
        assert f"`{plugin}`" in text, f"plugin {plugin} is not described"


def test_conformance_doc_names_every_key_and_value() -> None:
    text = (DOCS / "conformance.md").read_text("utf-8")
    words = (conformance.FILE_KEYS | conformance.CASE_KEYS | conformance.EXPECT_KEYS
             | set(FLAGS) | set(WIN_BY) | set(MELD_KINDS) | {"opening", "win"})
    missing = sorted(w for w in words if f"`{w}`" not in text)
    assert missing == []


def test_readme_links_the_docs() -> None:
    readme = (ROOT / "README.md").read_text("utf-8")
    for target in ("docs/rules/index.md", "docs/conformance.md", "CHANGELOG.md", "mkdocs build --strict"):
        assert target in readme, target


# Documents a user of the package never sees: the repository cites its own docs instead.
# (Spelt in two pieces so that this file doesn't match itself.)
OUTSIDE = re.compile("RUL" + r"INGS|seed 00[0-9]|\.\./shared")


def test_nothing_cites_documents_outside_the_repository() -> None:
    proc = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.skip("not a git checkout")
    offenders = []
    for name in proc.stdout.split("\0"):
        path = ROOT / name
        if not name or not path.is_file():
            continue
        try:
            text = path.read_text("utf-8")
        except UnicodeDecodeError:
            continue
        for i, line in enumerate(text.splitlines(), 1):
            if OUTSIDE.search(line):
                offenders.append(f"{name}:{i}: {line.strip()[:100]}")
    assert offenders == []


def test_mkdocs_build_strict(tmp_path: Path) -> None:
    if importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("mkdocs_click") is None:
        if os.environ.get("CI"):
            pytest.fail("CI must install the docs extra: pip install -e '.[test,docs]'")
        pytest.skip("mkdocs is not installed (pip install -e '.[docs]')")
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    site = tmp_path / "site"
    for path in RULESETS:
        assert (site / "rules" / _ruleset(path)["id"] / "index.html").is_file()
    cli = (site / "cli" / "index.html").read_text("utf-8")
    for command in ("validate", "score", "conformance", "schema", "simulate"):
        assert f'id="mj-{command}"' in cli, f"the CLI reference lacks mj {command}"
    assert "UNSET" not in cli and "Sentinel" not in cli  # (click 8.3's marker, not a default)
