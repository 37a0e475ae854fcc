"""Fuzzing `mj validate` (and the design tools) with mutations of the shipped rulesets."""

from __future__ import annotations

import random
import re
import tempfile
from pathlib import Path

from conftest import examples
from fuzzkit import assert_clean, run_mj
from hypothesis import given
from hypothesis import strategies as st
from mutate import mutant, write_mutant

from mjframework.core.errors import RulesetError
from mjframework.rules.loader import check_file
from mjframework.rules.yamlsource import load_yaml_text

LOCATED = re.compile(r"^\S+:\d+:\d+: ")


def _check(path: Path) -> None:
    rs, problems = check_file(path)
    for p in problems:
        assert isinstance(p.message, str) and p.message
        # Every problem in a file that exists points into a file (FILE:LINE:COL).
        assert p.location is not None and p.location.line >= 1 and p.location.column >= 1, str(p)
        assert len(str(p)) < 2000, str(p)[:300]
    if rs is not None:
        assert not problems
        from mjframework.design.lint import lint_ruleset
        from mjframework.design.rulecard import build_card, render
        from mjframework.evaluate.scoring import Evaluator

        Evaluator(rs)
        card = build_card(rs, budget=15)
        render(card, "markdown")
        render(card, "html")
        lint_ruleset(rs, str(path), samples=10)  # bounded by a count: any outcome but a crash is fine


@examples(100)
@given(st.integers(0, 2**32))
def test_mutated_rulesets_validate_without_a_crash(seed: int) -> None:
    with tempfile.TemporaryDirectory(prefix="mj-fuzz-") as tmp:
        _check(write_mutant(Path(tmp), random.Random(seed)))


@examples(200)
@given(st.text(alphabet=st.sampled_from(list("ab:-[]{}&*!|>'\"#%@` \n\t,?0123456789.e_~\\xu")), max_size=200))
def test_random_yaml_text_loads_or_is_a_located_error(text: str) -> None:
    try:
        load_yaml_text(text, "f.yaml")
    except RulesetError as e:
        assert all(p.location is None or p.location.file == "f.yaml" for p in e.problems)
        assert all(p.location is not None for p in e.problems), [str(p) for p in e.problems]


@examples(60)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=10),
                    lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=8), c, max_size=4),
                    max_leaves=30))
def test_any_plain_document_checks_without_a_crash(doc: object) -> None:
    import yaml

    with tempfile.TemporaryDirectory(prefix="mj-fuzz-") as tmp:
        p = Path(tmp) / "doc.yaml"
        p.write_text(yaml.safe_dump(doc, allow_unicode=True))
        _check(p)


def test_a_batch_of_mutants_within_resource_limits(tmp_path: Path) -> None:
    """`mj validate` on 60 mutants in one process, limited to 300 MB and 60 CPU seconds."""
    files = [str(write_mutant(tmp_path / f"m{i}", random.Random(10_000 + i))) for i in range(60)]
    r = run_mj("validate", *files, mem_mb=300, cpu_s=60)
    assert_clean(r)
    for line in r.stdout.splitlines():
        assert line.startswith("ok  ") or LOCATED.match(line), line


def test_mutants_are_varied() -> None:
    texts = {mutant(random.Random(i))[0] for i in range(30)}
    assert len(texts) >= 25
