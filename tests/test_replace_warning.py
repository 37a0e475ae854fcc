"""``mj validate`` warns (never fails) when a pattern's ``replace: true`` drops what the
inherited pattern matched on — its ``shape``, ``wait`` or ``require`` — with FILE:LINE:COL
and the YAML path of the ``replace`` key (docs/pattern-language.md, "extends")."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from click.testing import CliRunner

from mjframework.cli import main
from mjframework.rules.loader import check_file, load_ruleset

ROOT = Path(__file__).resolve().parents[1]
DROPS = ROOT / "tests" / "rulesets" / "replace-drops.yaml"


def _warnings(path: Path) -> list:
    warned: list = []
    rs, problems = check_file(path, warnings=warned)
    assert rs is not None and not problems, problems
    return warned


def test_a_replacement_without_the_inherited_shape_is_warned_about() -> None:
    warned = _warnings(DROPS)
    assert len(warned) == 1, [str(w) for w in warned]  # not 七对 (merged), not 清一色 (says it again)
    w = warned[0]
    assert w.location is not None and Path(w.location.file).name == "replace-drops.yaml"
    assert (w.location.line, w.location.column) == (11, 5)  # the `replace` key of 对对胡
    assert w.path == ("patterns", 1, "replace")
    assert w.message.startswith("warning: `replace: true` drops `shape` of the inherited pattern 对对胡")
    assert '"standard"' in w.message and "fan-108.yaml:20:5" in w.message
    # the warning changes nothing: the pattern is what the file says
    assert not load_ruleset(DROPS).pattern("对对胡").shapes


def test_a_dropped_wait_and_require_are_named(tmp_path: Path) -> None:
    p = tmp_path / "w.yaml"
    p.write_text(textwrap.dedent("""\
        format: 1
        id: w
        name: w
        extends: yongzhou-wangba
        patterns:
          - name: 王钓
            replace: true
            points: 4
          - name: 王钓王
            replace: true
            wait: {free_wildcards: 1, rest: {melds: 4}}
            points: 8
        """), encoding="utf-8")
    warned = _warnings(p)
    assert [(w.location.line if w.location else None, w.path) for w in warned] == [
        (7, ("patterns", 0, "replace"))]
    assert "drops `wait` of the inherited pattern 王钓" in warned[0].message


def test_without_replace_or_without_a_listener_nothing_is_said(tmp_path: Path) -> None:
    p = tmp_path / "m.yaml"
    p.write_text("format: 1\nid: m\nname: m\nextends: fan-108.yaml\n"
                 "patterns:\n  - {name: 对对胡, shape: null, points: 5}\n", encoding="utf-8")
    (tmp_path / "fan-108.yaml").write_text((DROPS.parent / "fan-108.yaml").read_text("utf-8"), "utf-8")
    (tmp_path / "base-108.yaml").write_text((DROPS.parent / "base-108.yaml").read_text("utf-8"), "utf-8")
    assert _warnings(p) == []  # `null` drops a key on purpose, one at a time
    rs, problems = check_file(DROPS)  # (callers that don't ask get the same answer as before)
    assert rs is not None and problems == []


def test_mj_validate_prints_the_warning_and_passes_the_file() -> None:
    res = CliRunner().invoke(main, ["validate", str(DROPS)])
    assert res.exit_code == 0, res.output
    assert "ok  " in res.stdout
    assert ("replace-drops.yaml:11:5: patterns[1].replace: warning: `replace: true` drops `shape`"
            in res.stderr)
    res = CliRunner().invoke(main, ["validate", "--json", str(DROPS)])
    out = json.loads(res.stdout)
    assert res.exit_code == 0 and out["ok"] is True and out["problems"] == []
    assert [(w["line"], w["column"], w["path"]) for w in out["warnings"]] == [(11, 5, "patterns[1].replace")]
