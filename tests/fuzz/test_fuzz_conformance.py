"""Fuzzing `mj conformance`: random case files; each run ends with its summary line."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import yaml
from click.testing import CliRunner
from conftest import examples
from hypothesis import given
from hypothesis import strategies as st

from mjframework.cli import main

odd = st.recursive(st.none() | st.booleans() | st.integers(-5, 10**6) | st.sampled_from(
    ["234m 345p 666s 789s 8p", "8p", "1m", "birds", "平胡", "discard", "self_draw", "x", "", "chow 123m"]),
    lambda c: st.lists(c, max_size=3)
    | st.dictionaries(st.sampled_from(["a", "birds", "bird"]), c, max_size=2),
    max_leaves=8)
case = st.dictionaries(
    st.sampled_from(["id", "note", "kind", "wildcard", "indicator", "seat", "hand", "melds", "win_tile",
                     "win_by", "discarder", "flags", "context", "expect", "bogus"]), odd, max_size=8)
expect = st.dictionaries(st.sampled_from(["win", "patterns", "payments", "call", "reason"]), odd, max_size=3)


@examples(80)
@given(st.sampled_from(["changsha", "yongzhou-wangba", "nope", 3, None]), st.sampled_from([1, 2, "1", None]),
       st.lists(st.builds(lambda c, e: {**c, "expect": e} if isinstance(c, dict) else c, case, expect),
                max_size=4))
def test_random_case_files_are_failures_with_a_summary(ruleset: object, fmt: object, cases: list) -> None:
    with tempfile.TemporaryDirectory(prefix="mj-fuzz-") as tmp:
        f = Path(tmp) / "cases.yaml"
        f.write_text(yaml.safe_dump({"format": fmt, "ruleset": ruleset, "cases": cases}, allow_unicode=True))
        (Path(tmp) / "other.yaml").write_text("format: 1\nruleset: changsha\ncases: []\n")
        for extra in ([], ["--json"]):
            r = CliRunner().invoke(main, ["conformance", tmp, *extra])
            assert r.exception is None or isinstance(r.exception, SystemExit), r.exc_info
            assert r.exit_code in (0, 1), r.output
            assert re.fullmatch(r"\d+ passed, \d+ failed", r.output.strip().splitlines()[-1]), r.output
