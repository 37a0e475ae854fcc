"""`mj new-variant` refuses names and folders it can't honour with a clear error (no
traceback, nothing written), and a variant of any shipped ruleset passes its own generated CI
(`mj lint --strict`: warnings about the shipped base are listed as inherited)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from mjframework.cli import main
from mjframework.design.lint import lint_file
from mjframework.design.scaffold import MAX_NAME, ScaffoldError, check_name, module_name


def mj(*args: str):
    return CliRunner().invoke(main, list(args))


@pytest.mark.parametrize(("name", "message"), [
    ("a" * 300, f"at most {MAX_NAME} characters"),
    ("builtin", "reserved"),
    ("changsha", "already a ruleset id"),
    ("Bad Name", "lower-case letters"),
    ("a--b", "single '-'"),
    ("ends-", "single '-'"),
    ("", "lower-case letters"),
])
def test_bad_names(tmp_path: Path, name: str, message: str) -> None:
    r = mj("new-variant", name, "--base", "changsha", "--dir", str(tmp_path / "pkg"))
    assert r.exit_code == 1 and message in r.output, r.output
    assert isinstance(r.exception, SystemExit)
    assert not (tmp_path / "pkg").exists()


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=80))
def test_any_name_is_valid_or_refused_clearly(name: str) -> None:
    try:
        check_name(name)
    except ScaffoldError:
        return
    assert module_name(name).isidentifier() and len(name) <= MAX_NAME


def test_bad_folders(tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("x", "utf-8")
    for folder, message in ((tmp_path / "afile", "is not a folder"),
                            (tmp_path / "afile" / "sub", "is not a folder")):
        r = mj("new-variant", "club", "--base", "changsha", "--dir", str(folder))
        assert r.exit_code == 1 and message in r.output and isinstance(r.exception, SystemExit), r.output
    if os.path.exists("/dev/null"):
        r = mj("new-variant", "club", "--base", "changsha", "--dir", "/dev/null")
        assert r.exit_code == 1 and "is not a folder" in r.output, r.output


def test_a_file_named_like_the_variant(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("club").write_text("mine", "utf-8")
    r = mj("new-variant", "club", "--base", "changsha")
    assert r.exit_code == 1 and "club exists and is not a folder" in r.output
    assert Path("club").read_text("utf-8") == "mine"


def test_a_variant_of_mcr_passes_its_own_lint(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """mcr's own sampling warnings are mcr's (`mj lint mcr`), not the variant's. (A short search:
    fewer hands find more warnings, all of them about mcr.yaml.)"""
    from mjframework.design import lint

    monkeypatch.setattr(lint, "EXTRA_FOR_EXCLUSION", 5)
    monkeypatch.setattr(lint, "MIN_PER_PATTERN", 10)
    r = mj("new-variant", "club-mcr", "--base", "mcr", "--dir", str(tmp_path / "pkg"))
    assert r.exit_code == 0, r.output
    f = tmp_path / "pkg" / "src" / "mj_club_mcr" / "club-mcr.yaml"
    ws = lint_file(f, samples=100)
    assert not [w for w in ws if w.counts], [str(w) for w in ws if w.counts]
    assert [w for w in ws if w.inherited]  # listed, with where they are


def test_only_warnings_outside_the_file_s_folder_are_inherited(tmp_path: Path) -> None:
    from mjframework.core.errors import Location
    from mjframework.design.lint import LintWarning, mark_inherited

    me = tmp_path / "pkg" / "club.yaml"
    other = str(tmp_path / "elsewhere" / "base.yaml")
    here = [LintWarning("dead-pattern", Location(str(me), 3, 1), (), "own"),
            LintWarning("dead-pattern", Location(str(me.parent / "frag" / "f.yaml"), 3, 1), (), "mine"),
            LintWarning("dead-pattern", None, (), "nowhere")]
    base = LintWarning("dead-pattern", Location(other, 3, 1), (), "base")
    accepted = LintWarning("dead-pattern", Location(other, 4, 1), (), "ok", accepted="the rules say so")
    mark_inherited(me, [*here, base, accepted])
    assert all(w.counts for w in here)
    assert base.inherited == other and not base.counts
    assert accepted.inherited is None and not accepted.counts
    assert "inherited: in" in str(base)
