"""The conformance format's JSON Schema (docs/conformance.md) agrees with the runner.

Every conformance file in tests/ validates; the examples in docs/conformance.md
validate and pass; a mistake the runner rejects is one the schema rejects too
(and the reverse for what both accept), so an editor's squiggles mean what
``mj conformance`` will say.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from click.testing import CliRunner

from mjframework.cli import main
from mjframework.run import conformance

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "conformance.md"


def _conformance_files() -> list[Path]:
    """Every conformance file in tests/, read with the project's bounded loader.

    tests/fuzz/corpus/ holds hostile YAML on purpose (alias and merge-key bombs):
    it is left out, and a file the bounded loader refuses is not a case file.
    """
    from mjframework.core.errors import RulesetError
    from mjframework.rules.yamlsource import load_yaml_file

    out = []
    for p in sorted((ROOT / "tests").rglob("*.y*ml")):
        if "fuzz" in p.relative_to(ROOT / "tests").parts:
            continue
        try:
            data = load_yaml_file(p)
        except RulesetError:
            continue
        if isinstance(data, dict) and "cases" in data and "ruleset" in data:
            out.append(p)
    return out


FILES = _conformance_files()


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft202012Validator:
    schema = conformance.schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def _errors(validator: jsonschema.Draft202012Validator, data: Any) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(data)]


def test_tests_hold_conformance_files() -> None:
    names = {p.parent.name for p in FILES}
    assert {"conformance", "conformance-samples"} <= names
    for rid in ("changsha", "yongzhou-huandiao", "yongzhou-wangba"):
        assert any(yaml.safe_load(p.read_text("utf-8"))["ruleset"] == rid for p in FILES), rid


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_conformance_file_in_tests_validates(validator: jsonschema.Draft202012Validator,
                                                   path: Path) -> None:
    data = yaml.safe_load(path.read_text("utf-8"))
    assert _errors(validator, data) == []


def _doc_files() -> list[str]:
    blocks = re.findall(r"```yaml\n(.*?)```", DOC.read_text("utf-8"), flags=re.S)
    return [b for b in blocks if b.startswith("format: 1")]


def test_doc_examples_validate_and_pass(validator: jsonschema.Draft202012Validator, tmp_path: Path) -> None:
    docs = _doc_files()
    assert len(docs) >= 2
    for i, text in enumerate(docs):
        data = yaml.safe_load(text)
        assert _errors(validator, data) == [], text
        path = tmp_path / f"doc{i}.yaml"
        path.write_text(text, encoding="utf-8")
        results = conformance.run_file(path)
        assert results and all(r.passed for r in results), [r.describe() for r in results]


def test_the_packaged_schemas_are_the_only_copies() -> None:
    """One source of truth: the schemas live in ``mjframework/schema/`` (they ship in the
    package; ``mj schema`` prints them). No second copy may exist in the repository to drift."""
    import subprocess

    packaged = {p.name for p in (ROOT / "mjframework" / "schema").glob("*.schema.json")}
    assert packaged == {"ruleset.schema.json", "conformance.schema.json"}
    assert not (ROOT / "schema").exists(), "a second copy of the schemas at the repository root"
    try:
        listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                                check=True).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):  # not a git checkout (an sdist): walk the tree
        listed = [str(p.relative_to(ROOT)) for p in ROOT.rglob("*.schema.json")
                  if not any(part.startswith(".") or part in ("build", "dist") for part in p.parts)]
    copies = sorted(f for f in listed
                    if f.endswith(".schema.json") and not f.startswith("mjframework/schema/"))
    assert copies == [], f"second copies of a schema: {copies}"
    # and the loaders read exactly those files
    from mjframework.rules.loader import schema as ruleset_schema

    root = ROOT / "mjframework" / "schema"
    assert json.loads((root / "conformance.schema.json").read_text("utf-8")) == conformance.schema()
    assert json.loads((root / "ruleset.schema.json").read_text("utf-8")) == ruleset_schema()


def test_mj_schema_conformance_prints_and_writes_it(tmp_path: Path) -> None:
    r = CliRunner().invoke(main, ["schema", "--conformance"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout) == conformance.schema()
    out = tmp_path / "c.json"
    r = CliRunner().invoke(main, ["schema", "--conformance", "-o", str(out)])
    assert r.exit_code == 0, r.output
    assert json.loads(out.read_text("utf-8")) == conformance.schema()
    # without the flag: the ruleset schema, as before
    r = CliRunner().invoke(main, ["schema"])
    assert json.loads(r.stdout)["title"] != conformance.schema()["title"]


GOOD = {
    "format": 1,
    "ruleset": "yongzhou-huandiao",
    "cases": [{
        "id": "ok", "wildcard": "1p", "seat": 2, "hand": "345m 678m 222s 456s 1p", "melds": [],
        "win_tile": "6z", "win_by": "self_draw", "flags": [],
        "expect": {"win": True, "patterns": ["单换调"], "payments": [-30, -30, 90, -30], "call": "换调"},
    }],
}


def _run(tmp_path: Path, data: dict[str, Any]) -> list[conformance.CaseResult]:
    path = tmp_path / "case.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    return conformance.run_file(path)


def _case(**changes: Any) -> dict[str, Any]:
    data = copy.deepcopy(GOOD)
    case = data["cases"][0]
    for k, v in changes.items():
        if v is None:
            case.pop(k, None)
        else:
            case[k] = v
    return data


# Mistakes that both the schema and the runner reject (the runner: an error or a failure,
# never a pass).
BAD: dict[str, dict[str, Any]] = {
    "unknown-case-key": _case(winner=2),
    "unknown-expect-key": _case(expect={"win": True, "points": 30}),
    "wildcard-and-indicator": _case(indicator="9p"),
    "unknown-kind": _case(kind="draw"),
    "missing-hand": _case(hand=None),
    "missing-expect": _case(expect=None),
    "missing-win-tile": _case(win_tile=None),
    "discard-without-discarder": _case(win_by="discard"),
    "unknown-win-by": _case(win_by="tsumo"),
    # A flag's form: the schema cannot know which flags a ruleset declares (`flags:`),
    # the runner checks that; both reject a word that can't be a flag.
    "unknown-flag": _case(flags=["last tile"]),
    "seat-not-a-number": _case(seat="east"),
    "flags-not-a-list": _case(flags="last_tile"),
    "patterns-not-a-list": _case(expect={"patterns": "单换调"}),
    "context-not-a-mapping": _case(context=["3m"]),
    "bad-meld-kind": _case(melds=["triple 5s"]),
    "kong-without-discarder": _case(hand="345m 678m 222s 1p", melds=["kong 5s"]),
    "unknown-top-level-key": {**GOOD, "case": []},
    "format-2": {**GOOD, "format": 2},
    "cases-not-a-list": {**GOOD, "cases": {"id": "x"}},
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_schema_and_runner_reject_the_same_mistakes(validator: jsonschema.Draft202012Validator,
                                                    tmp_path: Path, name: str) -> None:
    data = BAD[name]
    assert _errors(validator, data), f"the schema accepts {name}"
    results = _run(tmp_path, data)
    assert not all(r.passed for r in results), f"the runner passes {name}"


# Variations that both accept: defaults, the optional keys, an opening case.
ALSO_GOOD: dict[str, dict[str, Any]] = {
    "defaults": {"format": 1, "ruleset": "changsha", "cases": [
        {"hand": "123m 456m 789p 345s 2p", "win_tile": "2p", "expect": {"win": True}}]},
    "indicator": _case(wildcard=None, indicator="9p"),
    "null-melds-flags-context": {**GOOD, "cases": [
        {**GOOD["cases"][0], "melds": None, "flags": None, "context": None}]},
    "description-and-note": {**GOOD, "description": "about these cases",
                             "cases": [{**GOOD["cases"][0], "note": "why"}]},
    "opening": {"format": 1, "ruleset": "changsha", "cases": [
        {"id": "op", "kind": "opening", "seat": 3, "hand": "134679m 1346p 134s",
         "expect": {"patterns": ["板板胡"], "payments": [-20, -10, -10, 40]}}]},
    "discard-with-melds-and-birds": {"format": 1, "ruleset": "changsha", "cases": [
        {"id": "d", "seat": 1, "hand": "234p 55s 67s", "melds": ["chow 123m from 0", "kong 9p from 3"],
         "win_tile": "8s", "win_by": "discard", "discarder": 0, "context": {"birds": "2m 5m"},
         "flags": ["no_claims_yet"], "expect": {"win": True, "patterns": ["平胡"]}}]},
    "another-pattern-and-call": _case(wildcard="7m", seat=0, hand="234p 567p 111s 789s 4z", win_tile="4z",
                     expect={"win": True, "patterns": ["自摸"], "call": "自摸"}),
}


@pytest.mark.parametrize("name", sorted(ALSO_GOOD))
def test_schema_and_runner_accept_the_same_variations(validator: jsonschema.Draft202012Validator,
                                                      tmp_path: Path, name: str) -> None:
    data = ALSO_GOOD[name]
    assert _errors(validator, data) == []
    results = _run(tmp_path, data)
    assert all(r.passed for r in results), [r.describe() for r in results]
