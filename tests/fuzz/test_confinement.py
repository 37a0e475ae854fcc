"""Local rulesets are confined: `extends` and a conformance file's `ruleset:` reach only the file's own
folder, the current folder, the ruleset sources and folders allowed with `--allow-path`/MJ_ALLOW_PATH;
a refused or non-ruleset file is named, never quoted. A long `extends` list is refused by count."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from mjframework.cli import main
from mjframework.rules import loader
from mjframework.rules.loader import builtin_rulesets_dir, check_file

SECRET = "SECRET-KEY-do-not-echo"


@pytest.fixture()
def layout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """tmp/proj (the current folder) with a ruleset folder, and tmp/outside with a secret and a fragment."""
    proj, outside = tmp_path / "proj", tmp_path / "outside"
    (proj / "sub").mkdir(parents=True)
    outside.mkdir()
    (outside / "secret.yaml").write_text(f"{SECRET}: hunter2\nfragment: value_b\n")
    (outside / "secret.txt").write_text(f"{SECRET}: hunter2\n")
    (outside / "frag.yaml").write_text("fragment: outside\nplayers: 4\n")
    (proj / "sub" / "frag.yaml").write_text("fragment: inside\nplayers: 4\n")
    (proj / "notes.yaml").write_text(f"{SECRET}: hunter2\nkey_a: value_a\n")
    (proj / "link.yaml").symlink_to(outside / "secret.yaml")
    (proj / "txt.yaml").symlink_to(outside / "secret.txt")
    (proj / ".git").mkdir()
    (proj / ".git" / "config.yaml").write_text(f"fragment: x\n{SECRET}: 1\n")
    monkeypatch.chdir(proj)
    monkeypatch.delenv(loader.ALLOW_PATH_ENV, raising=False)
    return tmp_path


def _ruleset(folder: Path, ref: str) -> Path:
    f = folder / "r.yaml"
    f.write_text(f"id: r\nname: r\nextends: [changsha, {json.dumps(ref)}]\n")
    return f


def _extends_problems(f: Path) -> list[str]:
    rs, problems = check_file(f)
    text = "\n".join(map(str, problems))
    for leak in (SECRET, "hunter2", "value_a", "value_b"):
        assert leak not in text, text
    assert rs is None
    mine = [p for p in problems if p.path[:1] == ("extends",)]
    assert mine and all(p.location and p.location.line == 3 for p in mine), text
    return [p.message for p in mine]


REFUSED = ["{out}/secret.yaml", "../outside/secret.yaml", "sub/../../outside/secret.yaml", "link.yaml",
           "txt.yaml", "builtin:{out}/secret.yaml", "builtin:../../../../../../../../../{out}/secret.yaml",
           ".git/config.yaml", "/etc/passwd", "/proc/self/environ", "/dev/zero", "{out}/frag.yaml",
           "../outside/frag.yaml", "/nonexistent/x.yaml"]


@pytest.mark.parametrize("ref", REFUSED)
def test_extends_outside_the_allowed_folders_is_refused(layout: Path, ref: str) -> None:
    ref = ref.replace("{out}", str(layout / "outside"))
    (msg,) = _extends_problems(_ruleset(layout / "proj", ref))
    assert "cannot extend" in msg or "cannot find" in msg, msg


def test_refused_files_are_not_even_read(layout: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    read: list[Path] = []
    real_load = loader.load_yaml_file
    monkeypatch.setattr(loader, "load_yaml_file", lambda p, **kw: read.append(Path(p)) or real_load(p, **kw))
    for ref in REFUSED:
        _extends_problems(_ruleset(layout / "proj", ref.replace("{out}", str(layout / "outside"))))
    assert read and not [p for p in read if "outside" in str(p.resolve()) or ".git" in str(p)], read


def test_a_non_ruleset_file_is_named_not_quoted(layout: Path) -> None:
    (msg,) = _extends_problems(_ruleset(layout / "proj", "notes.yaml"))
    assert "not a ruleset or a fragment" in msg


@pytest.mark.parametrize("ref", ["sub/frag.yaml", "fragments/tiles-108.yaml", "builtin:fragments/shapes.yaml",
                                 "changsha", "builtin:changsha"])
def test_extends_inside_the_allowed_folders_works(layout: Path, ref: str) -> None:
    f = _ruleset(layout / "proj", ref)
    rs, problems = check_file(f)
    assert rs is not None and not problems, [str(p) for p in problems]


def test_the_current_folder_is_allowed_but_not_the_home_folder(layout: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    deep = layout / "proj" / "a" / "b"
    deep.mkdir(parents=True)
    f = _ruleset(deep, "../../sub/frag.yaml")
    assert check_file(f)[0] is not None  # (proj, the current folder, holds both)
    monkeypatch.setenv("HOME", str(layout / "proj"))
    assert any("outside" in m for m in _extends_problems(f))  # (a home folder is not a project)


def test_allow_path_and_the_environment_widen_it(layout: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    f = _ruleset(layout / "proj", "../outside/frag.yaml")
    r = CliRunner().invoke(main, ["validate", str(f)])
    assert r.exit_code == 1 and "--allow-path" in r.output and "Traceback" not in r.output, r.output
    r = CliRunner().invoke(main, ["--allow-path", str(layout / "outside"), "validate", str(f)])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(main, ["validate", str(f)])  # (for that command only)
    assert r.exit_code == 1, r.output
    monkeypatch.setenv(loader.ALLOW_PATH_ENV, str(layout / "outside"))
    assert check_file(f)[0] is not None
    # ...but never to a hidden folder below an allowed one, nor to a file that is no YAML
    monkeypatch.setenv(loader.ALLOW_PATH_ENV, str(layout))
    assert any("hidden" in m for m in _extends_problems(_ruleset(layout / "proj", ".git/config.yaml")))
    assert any(".yaml" in m for m in _extends_problems(_ruleset(layout / "proj", "txt.yaml")))


def test_score_doc_and_diff_confine_what_their_ruleset_reaches(layout: Path) -> None:
    f = _ruleset(layout / "proj", "../outside/secret.yaml")
    for args in (["score", str(f), "234m 345p 666s 789s 8p", "-t", "8p"], ["doc", str(f)],
                 ["diff", "changsha", str(f)], ["lint", str(f)]):
        r = CliRunner().invoke(main, args)
        assert r.exit_code != 0 and "outside" in r.output, (args, r.output)
        assert SECRET not in r.output and "hunter2" not in r.output and "Traceback" not in r.output


@pytest.mark.parametrize("ref", ["{out}/r.yaml", "../outside/r.yaml", "builtin:{out}/r.yaml", "link.yaml"])
def test_a_conformance_file_s_ruleset_is_confined(layout: Path, ref: str) -> None:
    out = layout / "outside"
    (out / "r.yaml").write_text("id: r\nname: r\nextends: changsha\n")
    cases = layout / "proj" / "cases.yaml"
    cases.write_text(f"format: 1\nruleset: {json.dumps(ref.replace('{out}', str(out)))}\ncases:\n"
                     "  - {id: a, hand: 234m 345p 666s 789s 8p, win_tile: 8p, expect: {win: true}}\n")
    r = CliRunner().invoke(main, ["conformance", str(cases)])
    assert r.exit_code == 1 and "0 passed" in r.output and "Traceback" not in r.output, r.output
    assert SECRET not in r.output and "hunter2" not in r.output
    if not ref.startswith("builtin:"):
        assert "--allow-path" in r.output, r.output
        r = CliRunner().invoke(main, ["--allow-path", str(out), "conformance", str(cases)])
        if ref != "link.yaml":  # (the link reaches secret.yaml: allowed now, but not a ruleset)
            assert r.exit_code == 0 and "1 passed" in r.output, r.output


def test_source_refs_stay_inside_their_source() -> None:
    root = builtin_rulesets_dir()
    with pytest.raises(FileNotFoundError):
        loader.resolve_ruleset_ref(f"builtin:{root.parent / 'pyproject.toml'}")
    with pytest.raises(FileNotFoundError):
        loader.resolve_ruleset_ref("builtin:../pyproject.toml")
    assert loader.resolve_ruleset_ref("builtin:fragments/shapes.yaml").is_file()


@settings(max_examples=30, deadline=None)
@given(st.lists(st.sampled_from(["..", ".", "outside", "proj", "sub", "secret.yaml", "frag.yaml", "link.yaml",
                                 ".git", "config.yaml", "", "builtin:", "/"]), min_size=1, max_size=6))
def test_any_path_made_of_these_parts_never_leaks(tmp_path_factory: pytest.TempPathFactory,
                                                  parts: list[str]) -> None:
    base = tmp_path_factory.getbasetemp() / "confine"
    proj = base / "proj"
    if not proj.exists():
        (base / "outside").mkdir(parents=True)
        (base / "outside" / "secret.yaml").write_text(f"{SECRET}: hunter2\nfragment: value_b\n")
        (proj / "sub").mkdir(parents=True)
        (proj / "sub" / "frag.yaml").write_text("fragment: inside\n")
        (proj / "link.yaml").symlink_to(base / "outside" / "secret.yaml")
    ref = "/".join(parts).replace("builtin:/", "builtin:")
    f = proj / "sub" / "r.yaml"
    f.write_text(f"id: r\nname: r\nextends: [changsha, {json.dumps(ref)}]\n")
    _, problems = check_file(f)
    text = "\n".join(map(str, problems))
    assert SECRET not in text and "hunter2" not in text and "value_b" not in text, (ref, text)


# -- a long `extends` list -------------------------------------------------------------------------

def test_ninety_thousand_copies_of_one_extends_id_are_refused_by_count(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    f = tmp_path / "many.yaml"
    f.write_text("id: many\nname: many\nextends: [" + ", ".join(["changsha"] * 90_000) + "]\n")
    assert 850_000 < f.stat().st_size < loader.MAX_NODES * 10
    loads, merges = [], []
    real_load, real_merge = loader.load_yaml_file, loader.merge_data
    monkeypatch.setattr(loader, "load_yaml_file", lambda p, **kw: loads.append(p) or real_load(p, **kw))
    monkeypatch.setattr(loader, "merge_data", lambda *a, **kw: merges.append(1) or real_merge(*a, **kw))
    _, problems = check_file(f)
    assert any("`extends` lists 90000 entries (at most 64" in p.message and p.location
               and p.location.line == 3 for p in problems), [str(p) for p in problems][:3]
    assert len(loads) == 1 and len(merges) < 10, (len(loads), len(merges))


def test_a_name_given_twice_is_merged_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    f = tmp_path / "twice.yaml"
    f.write_text("id: twice\nname: twice\nextends: [changsha, changsha, builtin:changsha, "
                 + ", ".join(["changsha"] * 40) + "]\n")
    reads: list[Path] = []
    real_chain = loader.load_chain

    def chain(path: Path, *a: object, **kw: object) -> object:
        reads.append(Path(path))
        return real_chain(path, *a, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(loader, "load_chain", chain)
    rs, problems = check_file(f)
    assert rs is not None and not problems, [str(p) for p in problems]
    assert sum(1 for p in reads if p.name == "changsha.yaml") == 1, reads


def test_a_conformance_file_naming_a_non_ruleset_file_gets_no_content(layout: Path) -> None:
    cases = layout / "proj" / "cases.yaml"
    cases.write_text("format: 1\nruleset: notes.yaml\ncases:\n"
                     "  - {id: a, hand: 234m 345p 666s 789s 8p, win_tile: 8p, expect: {win: true}}\n")
    r = CliRunner().invoke(main, ["conformance", str(cases)])
    assert r.exit_code == 1 and "not a ruleset" in r.output, r.output
    assert SECRET not in r.output and "value_a" not in r.output and "Traceback" not in r.output


def test_an_installed_package_s_refs_stay_inside_it(layout: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pkg = layout / "site" / "mypkg"
    pkg.mkdir(parents=True)
    (pkg / "house.yaml").write_text("id: house\nname: house\nextends: builtin:changsha\n")
    (layout / "site" / "beside.yaml").write_text("fragment: beside\n")
    sources = (*loader.ruleset_sources(), loader.RulesetSource("mypkg", pkg, "package mypkg (test)"))
    monkeypatch.setattr(loader, "ruleset_sources", lambda: sources)
    assert check_file(_ruleset(layout / "proj", "mypkg:house"))[0] is not None
    for ref in ("mypkg:../beside.yaml", f"mypkg:{layout / 'outside' / 'secret.yaml'}",
                "mypkg:../../outside/secret.yaml"):
        (msg,) = _extends_problems(_ruleset(layout / "proj", ref))
        assert "cannot find" in msg, msg
