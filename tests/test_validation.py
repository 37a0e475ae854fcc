"""`mj validate`, `mj rulesets`, the JSON Schema and `extends`.

Every broken ruleset is written under ``tmp_path``; each test checks the exit
code, the ``FILE:LINE:COL: yaml.path: message`` form with the line and column
of the offending key or value in the text written, and that no traceback
leaks out.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import jsonschema
import pytest
import yaml
from click.testing import CliRunner, Result

from mjframework.cli import main
from mjframework.core.errors import RulesetError
from mjframework.rules.loader import load_ruleset

REPO = Path(__file__).resolve().parents[1]
RULESETS = sorted((REPO / "rulesets").glob("*.yaml"))
FRAGMENTS = sorted((REPO / "rulesets" / "fragments").glob("*.yaml"))
SUMMARY_SUFFIX = "file(s) with problems"


# --------------------------------------------------------------------------
# helpers


class Doc:
    """A YAML file written for a test, and where things are in it."""

    def __init__(self, directory: Path, name: str, text: str) -> None:
        self.text = textwrap.dedent(text).lstrip("\n")
        self.path = directory / name
        self.path.write_text(self.text, encoding="utf-8")

    def at(self, needle: str, nth: int = 1, within: str | None = None) -> str:
        """``FILE:LINE:COL`` of the ``nth`` occurrence of ``needle`` (1-based, as YAML marks).

        With ``within``, of ``needle`` inside the first occurrence of ``within``.
        """
        idx = -1
        if within is not None:
            start = self.text.index(within)
            idx = self.text.index(needle, start, start + len(within))
        for _ in range(nth if within is None else 0):
            idx = self.text.index(needle, idx + 1)
        line = self.text.count("\n", 0, idx) + 1
        col = idx - (self.text.rfind("\n", 0, idx) + 1) + 1
        return f"{self.path}:{line}:{col}"

    def __str__(self) -> str:
        return str(self.path)


def run(*args: object) -> Result:
    # catch_exceptions=False: an exception other than SystemExit fails the test.
    result = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    assert "Traceback" not in result.output
    return result


def problems_of(result: Result) -> list[str]:
    """The problem lines `mj validate` printed (the closing count left out)."""
    return [ln for ln in result.stderr.splitlines() if ln and not ln.endswith(SUMMARY_SUFFIX)]


def validate(*docs: Doc | Path) -> tuple[Result, list[str]]:
    result = run("validate", *docs)
    return result, problems_of(result)


def find(lines: list[str], where: str, yaml_path: str, *words: str) -> str:
    """The one line reported at ``where`` for ``yaml_path``, containing ``words``."""
    prefix = f"{where}: {yaml_path}: " if yaml_path else f"{where}: "
    hits = [ln for ln in lines if ln.startswith(prefix)]
    assert hits, f"no problem starting {prefix!r} in:\n" + "\n".join(lines)
    assert len(hits) == 1, hits
    for w in words:
        assert w in hits[0], (w, hits[0])
    return hits[0]


def changsha_variant(tmp_path: Path, body: str, name: str = "variant.yaml") -> Doc:
    """A ruleset extending changsha with ``body`` (a dedented YAML snippet) appended."""
    head = "format: 1\nid: variant\nname: Variant\nextends: changsha\n"
    return Doc(tmp_path, name, head + textwrap.dedent(body).lstrip("\n"))


# --------------------------------------------------------------------------
# the acceptance case


def test_acceptance_three_located_errors(tmp_path: Path) -> None:
    doc = Doc(tmp_path, "my-changsha.yaml", """
        format: 1
        id: my-changsha
        name: 我的长沙
        extends: changsha
        scoring:
          combin: sum
        patterns:
          - name: 门清
            shape: standard
            tier: small
            points: ten
            excludes: [平糊]
        """)
    result, lines = validate(doc)
    assert result.exit_code == 1
    assert len(lines) == 3, lines
    find(lines, doc.at("combin"), "scoring.combin", "unknown key 'combin'", "did you mean 'combine'?")
    find(lines, doc.at("ten", within="points: ten"), "patterns[0].points", "must be an integer", "'ten'")
    find(lines, doc.at("平糊"), "patterns[0].excludes[0]", "unknown pattern '平糊'")
    # In file order, then the count.
    assert lines == sorted(lines, key=lambda ln: [int(x) for x in ln.split(":")[1:3]])
    assert result.stderr.splitlines()[-1] == "1 file(s) with problems"
    assert result.stdout == ""
    # The API reports the same three problems.
    with pytest.raises(RulesetError) as info:
        load_ruleset(doc.path)
    assert [str(p) for p in info.value.problems] == lines


# --------------------------------------------------------------------------
# YAML-level problems


def test_yaml_syntax_error(tmp_path: Path) -> None:
    doc = Doc(tmp_path, "syntax.yaml", """
        id: broken
        name: Broken
        players: 4
          extra: 1
        """)
    result, lines = validate(doc)
    assert result.exit_code == 1
    assert lines == [f"{doc.at(': 1')}: YAML syntax: mapping values are not allowed here"]


def test_unterminated_flow_sequence(tmp_path: Path) -> None:
    doc = Doc(tmp_path, "syntax.yaml", "id: broken\nname: [a, b\n")
    result, lines = validate(doc)
    assert result.exit_code == 1
    assert len(lines) == 1
    assert lines[0].startswith(f"{doc.path}:")
    assert "YAML syntax" in lines[0]


def test_duplicate_top_level_key(tmp_path: Path) -> None:
    doc = changsha_variant(tmp_path, "name: Again\n")
    result, lines = validate(doc)
    assert result.exit_code == 1
    assert lines == [f"{doc.at('name', 2)}: name: duplicate key 'name'"]


def test_duplicate_nested_key(tmp_path: Path) -> None:
    doc = changsha_variant(tmp_path, """
        scoring:
          combine: sum
          dealer_bonus: 10
          combine: highest
        """)
    result, lines = validate(doc)
    assert result.exit_code == 1
    assert lines == [f"{doc.at('combine', 2)}: scoring.combine: duplicate key 'combine'"]


@pytest.mark.parametrize("text", ["", "- a\n- b\n", "just text\n"])
def test_file_that_is_not_a_mapping(tmp_path: Path, text: str) -> None:
    doc = Doc(tmp_path, "odd.yaml", text)
    result, lines = validate(doc)
    assert result.exit_code == 1
    assert lines == [f"{doc.path}:1:1: a ruleset file must be a YAML mapping"]


def test_missing_file(tmp_path: Path) -> None:
    result, lines = validate(tmp_path / "nowhere.yaml")
    assert result.exit_code == 1
    assert lines == [f"{tmp_path / 'nowhere.yaml'}: no such file"]


# --------------------------------------------------------------------------
# schema problems


def test_wrong_types(tmp_path: Path) -> None:
    doc = changsha_variant(tmp_path, """
        players: four
        claims: [pung, kong]
        """)
    result, lines = validate(doc)
    assert result.exit_code == 1
    assert len(lines) == 2, lines
    find(lines, doc.at("four"), "players", "must be an integer", "'four'")
    find(lines, doc.at("[pung"), "claims", "must be a mapping")


def test_wrong_type_scoring_reports_only_its_own_error(tmp_path: Path) -> None:
    doc = changsha_variant(tmp_path, "scoring: [sum]\n")
    result, lines = validate(doc)
    assert result.exit_code == 1
    assert lines == [f"{doc.at('[sum]')}: scoring: must be a mapping, not ['sum']"]


def test_unknown_top_level_key_with_hint(tmp_path: Path) -> None:
    doc = changsha_variant(tmp_path, """
        pattrens:
          - {name: 门清, shape: standard, points: 1}
        """)
    result, lines = validate(doc)
    assert result.exit_code == 1
    assert len(lines) == 1, lines
    line = find(lines, doc.at("pattrens"), "pattrens", "unknown key 'pattrens'",
                "(did you mean 'patterns'?)")
    assert "allowed here:" in line


def test_unknown_key_without_close_match(tmp_path: Path) -> None:
    doc = changsha_variant(tmp_path, "zzz: 1\n")
    result, lines = validate(doc)
    assert result.exit_code == 1
    line = find(lines, doc.at("zzz"), "zzz", "unknown key 'zzz'")
    assert "did you mean" not in line


def test_neither_ruleset_nor_fragment(tmp_path: Path) -> None:
    doc = Doc(tmp_path, "anon.yaml", """
        format: 1
        name: Nobody
        extends: changsha
        """)
    result, lines = validate(doc)
    assert result.exit_code == 1
    find(lines, f"{doc.path}:1:1", "", "needs an `id`", "`fragment`")


def test_both_id_and_fragment(tmp_path: Path) -> None:
    doc = Doc(tmp_path, "both.yaml", """
        format: 1
        id: both
        fragment: both
        name: Both
        """)
    result, lines = validate(doc)
    assert result.exit_code == 1
    assert lines == [f"{doc.path}:1:1: a file is a ruleset (`id`) or a fragment "
                     "(`fragment`), not both"]


# --------------------------------------------------------------------------
# meaning problems


def test_bad_tile_and_missing_tile_in_stand_ins(tmp_path: Path) -> None:
    doc = changsha_variant(tmp_path, """
        wildcard:
          successors: {suits: cycle}
          stand_ins:
            - {tile: 8z, for: wildcard_natural}
            - {tile: 中, for: wildcard_natural}
        """)
    result, lines = validate(doc)
    assert result.exit_code == 1
    assert len(lines) == 2, lines
    find(lines, doc.at("8z"), "wildcard.stand_ins[0].tile", "bad tile", "8z", "honor")
    find(lines, doc.at("中"), "wildcard.stand_ins[1].tile",
         "stand-in 中 is not in the standard-108 tile set")


def test_bad_tile_string_names_the_column_in_the_string(tmp_path: Path) -> None:
    tiles = "19m 19p 19s 12345678z"
    doc = changsha_variant(tmp_path, f"""
        shapes:
          odd: {{orphans: "{tiles}"}}
        """)
    result, lines = validate(doc)
    assert result.exit_code == 1
    assert len(lines) == 1, lines
    find(lines, doc.at(f'"{tiles}"'), "shapes.odd.orphans", "bad tile string", "8z",
         f"at column {tiles.index('8z') + 1} of {tiles!r}")


def test_duplicate_pattern_names(tmp_path: Path) -> None:
    doc = Doc(tmp_path, "extra.yaml", """
        format: 1
        fragment: extra
        patterns:
          - name: 门清
            shape: {melds: 4, pair: 1}
            points: 1
          - name: 门清
            shape: {pairs: 7}
            points: 2
        """)
    result, lines = validate(doc)
    assert result.exit_code == 1
    assert lines == [f"{doc.at('门清', 2)}: patterns[1].name: duplicate pattern name '门清' "
                     "(also patterns[0])"]


def test_duplicate_pattern_names_in_an_extending_file(tmp_path: Path) -> None:
    doc = changsha_variant(tmp_path, """
        patterns:
          - {name: 门清, shape: standard, tier: small, points: 10}
          - {name: 门清, shape: seven_pairs, tier: small, points: 20}
        """)
    result, lines = validate(doc)
    assert result.exit_code == 1
    find(lines, doc.at("门清", 2), "patterns[1].name", "duplicate pattern name '门清'")


def test_unknown_shape_name(tmp_path: Path) -> None:
    doc = changsha_variant(tmp_path, """
        patterns:
          - {name: 门清, shape: standerd, tier: small, points: 10}
          - {name: 对对, shape: [standard, seven_pair], tier: big, points: 60}
        """)
    result, lines = validate(doc)
    assert result.exit_code == 1
    assert len(lines) == 2, lines
    first = find(lines, doc.at("standerd"), "patterns[0].shape", "unknown shape 'standerd'",
                 "(did you mean 'standard'?)")
    assert "seven_pairs" in first  # the declared shapes are listed
    find(lines, doc.at("seven_pair]"), "patterns[1].shape[1]", "unknown shape 'seven_pair'",
         "(did you mean 'seven_pairs'?)")


def test_tier_not_in_scoring_tiers(tmp_path: Path) -> None:
    doc = changsha_variant(tmp_path, """
        patterns:
          - name: 门清
            shape: standard
            tier: huge
            points: 10
        """)
    result, lines = validate(doc)
    assert result.exit_code == 1
    assert lines == [f"{doc.at('huge')}: patterns[0].tier: unknown tier 'huge'; "
                     "scoring.tiers: big, small"]


def test_unknown_plugin(tmp_path: Path) -> None:
    doc = changsha_variant(tmp_path, """
        plugins:
          kaigagn: {dice: 2}
        """)
    result, lines = validate(doc)
    assert result.exit_code == 1
    assert len(lines) == 1, lines
    find(lines, doc.at("kaigagn"), "plugins.kaigagn", "no plugin named 'kaigagn'", "kaigang")


@pytest.mark.parametrize(
    ("options", "needle", "words"),
    [
        ('{dice: "x"}', '"x"', ("plugin kaigang", "must be an integer", "'x'")),
        ("{dice: 9}", "9", ("plugin kaigang", "at most 4")),
        ("{dice: 0}", "0", ("plugin kaigang", "at least 1")),
    ],
)
def test_plugin_with_invalid_options(tmp_path: Path, options: str, needle: str,
                                     words: tuple[str, ...]) -> None:
    doc = changsha_variant(tmp_path, f"""
        plugins:
          kaigang: {options}
        """)
    result, lines = validate(doc)
    assert result.exit_code == 1
    assert len(lines) == 1, lines
    find(lines, doc.at(needle), "plugins.kaigang.dice", *words)


def test_plugin_with_unknown_option(tmp_path: Path) -> None:
    doc = changsha_variant(tmp_path, """
        plugins:
          kaigang: {die: 2}
        """)
    result, lines = validate(doc)
    assert result.exit_code == 1
    assert len(lines) == 1, lines
    # On the option's line (the column is the value's, not the key's: see the report).
    line = doc.text[: doc.text.index("die")].count("\n") + 1
    assert lines[0].startswith(f"{doc.path}:{line}:")
    assert ": plugins.kaigang.die: plugin kaigang: unknown key 'die' (did you mean 'dice'?)" \
        in lines[0]


# --------------------------------------------------------------------------
# extends


def test_extends_cycle(tmp_path: Path) -> None:
    a = Doc(tmp_path, "a.yaml", "format: 1\nid: a\nname: A\nextends: b.yaml\n")
    b = Doc(tmp_path, "b.yaml", "format: 1\nid: b\nname: B\nextends: a.yaml\n")
    result, lines = validate(a)
    assert result.exit_code == 1
    find(lines, b.at("a.yaml"), "extends", "`extends` loops", "a.yaml → b.yaml → a.yaml")
    # The API raises a located error too (no RecursionError).
    with pytest.raises(RulesetError) as info:
        load_ruleset(a.path)
    assert any("loops" in p.message for p in info.value.problems)


def test_extends_self(tmp_path: Path) -> None:
    doc = Doc(tmp_path, "me.yaml", "format: 1\nid: me\nname: Me\nextends: me.yaml\n")
    result, lines = validate(doc)
    assert result.exit_code == 1
    find(lines, doc.at("me.yaml"), "extends", "`extends` loops")


def test_extends_target_missing(tmp_path: Path) -> None:
    doc = Doc(tmp_path, "orphan.yaml", """
        format: 1
        id: orphan
        name: Orphan
        extends: [changsha, nowhere.yaml]
        """)
    result, lines = validate(doc)
    assert result.exit_code == 1
    find(lines, doc.at("nowhere.yaml"), "extends[1]", "cannot find 'nowhere.yaml' to extend")


def test_extends_unknown_id(tmp_path: Path) -> None:
    doc = Doc(tmp_path, "orphan.yaml", "format: 1\nid: orphan\nname: Orphan\nextends: changsa\n")
    result, lines = validate(doc)
    assert result.exit_code == 1
    find(lines, doc.at("changsa"), "extends", "cannot find 'changsa' to extend")


def test_extends_semantics(tmp_path: Path) -> None:
    doc = changsha_variant(tmp_path, """
        patterns:
          - name: 七小对
            shape: seven_pairs
            tier: big
            points: 99
          - name: 门清
            shape: standard
            tier: small
            points: 5
        plugins:
          kaigang: null
        """)
    base = load_ruleset("changsha")
    rs = load_ruleset(doc.path)
    assert rs.id == "variant" and rs.name == "Variant"
    base_names = [p.name for p in base.patterns]
    names = [p.name for p in rs.patterns]
    assert names == [*base_names, "门清"]  # replaced in place, the new one appended
    points = {p.name: p.points for p in rs.patterns}
    assert points["七小对"] == 99
    assert points["门清"] == 5
    for p in base.patterns:
        if p.name != "七小对":
            assert points[p.name] == p.points
    assert base.plugins["kaigang"]["dice"] == 2
    assert "kaigang" not in rs.plugins and set(rs.plugins) == set(base.plugins) - {"kaigang"}
    # Everything else is inherited.
    assert rs.tileset.size == base.tileset.size == 108
    assert rs.scoring.tiers == base.scoring.tiers
    # The base itself is untouched.
    assert load_ruleset("changsha").plugins == base.plugins
    result = run("validate", doc)
    assert result.exit_code == 0
    assert result.stdout.startswith(f"ok  {doc.path}: variant: Variant")


def test_extends_chain_through_a_ruleset_file(tmp_path: Path) -> None:
    parent = changsha_variant(tmp_path, "scoring: {dealer_bonus: 20}\n", name="parent.yaml")
    child = Doc(tmp_path, "child.yaml", "format: 1\nid: child\nname: Child\nextends: parent.yaml\n")
    rs = load_ruleset(child.path)
    assert rs.id == "child"
    assert rs.scoring.dealer_bonus == 20
    assert rs.scoring.combine == "sum"  # mappings merge key by key
    assert parent.path.exists()


def test_error_in_inherited_pattern_list_names_its_own_index(tmp_path: Path) -> None:
    frag = Doc(tmp_path, "extra.yaml", """
        format: 1
        fragment: extra
        patterns:
          - name: 门清
            shape: standard
            tier: small
            points: 10
          - name: 断幺
            shape: standard
            tier: small
            points: 10
            excludes: [门请]
        """)
    doc = Doc(tmp_path, "uses.yaml", """
        format: 1
        id: uses
        name: Uses
        extends: [changsha, extra.yaml]
        """)
    result, lines = validate(doc)
    assert result.exit_code == 1
    assert len(lines) == 1, lines
    # patterns[19] of the merged ruleset; patterns[1] in extra.yaml, where the mistake is.
    find(lines, frag.at("门请"), "patterns[1].excludes[0]", "unknown pattern '门请'")


def test_error_in_an_override_names_its_own_index(tmp_path: Path) -> None:
    doc = changsha_variant(tmp_path, """
        patterns:
          - {name: 门清, shape: standard, tier: small, points: 10}
          - {name: 七小对, shape: seven_pairs, tier: biggest, points: 60}
        """)
    result, lines = validate(doc)
    assert result.exit_code == 1
    assert len(lines) == 1, lines
    # 七小对 is patterns[8] once merged into changsha's list; in this file it is patterns[1].
    find(lines, doc.at("biggest"), "patterns[1].tier", "unknown tier 'biggest'")


# --------------------------------------------------------------------------
# several files; the built-in ones


def schema_keys(definition: str) -> list[str]:
    """The keys the packaged schema allows in ``$defs/<definition>``."""
    from mjframework.rules.loader import schema as packaged
    return list(packaged()["$defs"][definition]["properties"])


def test_validate_several_files(tmp_path: Path) -> None:
    good = changsha_variant(tmp_path, "description: fine\n", name="good.yaml")
    bad1 = changsha_variant(tmp_path, "players: four\n", name="bad1.yaml")
    bad2 = changsha_variant(tmp_path, "scoring: {combin: sum}\n", name="bad2.yaml")
    result, lines = validate(bad1, good, bad2)
    assert result.exit_code == 1
    assert lines == [
        f"{bad1.at('four')}: players: must be an integer, not 'four'",
        f"{bad2.at('combin')}: scoring.combin: unknown key 'combin' (did you mean 'combine'?); "
        "allowed here: " + ", ".join(sorted(schema_keys("scoring"))),
    ]
    assert result.stderr.splitlines()[-1] == "2 file(s) with problems"
    assert result.stdout.splitlines() == [
        f"ok  {good.path}: variant: Variant — 108 tiles, no wildcard, 18 patterns (sum), "
        + ", ".join(load_ruleset("changsha").plugins)
    ]


def test_validate_builtin_files() -> None:
    files = [*RULESETS, *FRAGMENTS]
    result = run("validate", *files)
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    out = result.stdout.splitlines()
    assert len(out) == len(files)
    for line, f in zip(out, files, strict=True):
        assert line.startswith(f"ok  {f}: ")
        what = line.split(": ", 1)[1]
        if f in FRAGMENTS:
            assert what == "fragment"
        else:
            assert what.startswith(f"{f.stem}: ")  # id: name — summary


def test_validate_a_directory() -> None:
    result = run("validate", REPO / "rulesets")
    assert result.exit_code == 0, result.output
    assert len(result.stdout.splitlines()) == len(RULESETS)


def test_rulesets_lists_the_shipped_ids() -> None:
    result = run("rulesets")
    assert result.exit_code == 0
    ids = [ln.split()[0] for ln in result.stdout.splitlines() if ln.strip()]
    assert ids == ["changsha", "guangdong-tuidaohu", "hongzhong", "mcr", "sichuan-xuezhan",
                   "taiwan-16", "yongzhou-huandiao", "yongzhou-wangba"]
    result = run("rulesets", "--json")
    assert [json.loads(ln)["id"] for ln in result.stdout.splitlines()] == ids


def test_subprocess_no_traceback(tmp_path: Path) -> None:
    doc = changsha_variant(tmp_path, "players: four\n")
    proc = subprocess.run([sys.executable, "-m", "mjframework", "validate", str(doc)],
                          capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert proc.stderr.splitlines() == [
        f"{doc.at('four')}: players: must be an integer, not 'four'",
        "1 file(s) with problems",
    ]


# --------------------------------------------------------------------------
# the JSON Schema, on its own


@pytest.fixture(scope="module")
def schema() -> dict:
    return json.loads((REPO / "mjframework" / "schema" / "ruleset.schema.json").read_text(encoding="utf-8"))


def test_schema_is_a_valid_2020_12_schema(schema: dict) -> None:
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"


@pytest.mark.parametrize("path", [*RULESETS, *FRAGMENTS], ids=lambda p: p.name)
def test_schema_alone_validates_builtin_files(schema: dict, path: Path) -> None:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(schema).validate(data)


def test_mj_schema_prints_it(schema: dict) -> None:
    result = run("schema")
    assert result.exit_code == 0
    assert json.loads(result.stdout) == schema


def test_schema_rejects_unknown_key(schema: dict) -> None:
    validator = jsonschema.Draft202012Validator(schema)
    data = yaml.safe_load((REPO / "rulesets" / "changsha.yaml").read_text(encoding="utf-8"))
    data["scorring"] = {"combine": "sum"}
    errors = list(validator.iter_errors(data))
    assert [e.validator for e in errors] == ["additionalProperties"]
    assert "scorring" in errors[0].message
    data = yaml.safe_load((REPO / "rulesets" / "changsha.yaml").read_text(encoding="utf-8"))
    data["scoring"]["combin"] = "sum"
    assert not validator.is_valid(data)


def test_schema_rejects_id_and_fragment_together(schema: dict) -> None:
    validator = jsonschema.Draft202012Validator(schema)
    assert validator.is_valid({"id": "x"})
    assert validator.is_valid({"fragment": "x"})
    assert not validator.is_valid({"id": "x", "fragment": "x"})
    assert not validator.is_valid({"name": "x"})


def test_lists_and_mappings_from_yaml_keep_their_list_methods() -> None:
    """A plugin handed a list from its options calls ``.index`` like on any list."""
    from mjframework.rules.yamlsource import SourceList, load_yaml_text

    data = load_yaml_text("a: [x, {b: 1}, z]\n", "t.yaml")
    items = data["a"]
    assert isinstance(items, SourceList)
    assert items.index("z") == 2 and items.count("x") == 1
    assert items[1].file_index == 1  # its place in the file (what error messages name)
