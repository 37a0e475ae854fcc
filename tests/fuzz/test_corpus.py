"""Every input that once crashed or exhausted a command still gets a clear, located error, bounded."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fuzzkit import CORPUS, assert_clean, run_mj

LOCATED = re.compile(r"^\S+:\d+:\d+: ", re.M)

RULESETS = sorted(CORPUS.glob("*.yaml"))
# (not *.yaml: the conformance pytest plugin would collect them as cases that fail)
CASES = sorted(CORPUS.glob("*.case"))


@pytest.mark.parametrize("path", RULESETS, ids=lambda p: p.name)
def test_corpus_ruleset_is_a_located_error(path: Path) -> None:
    r = run_mj("validate", str(path), mem_mb=200, cpu_s=5)
    assert_clean(r, ok=False)
    assert LOCATED.search(r.stdout + r.stderr), r.stdout + r.stderr


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.name)
def test_corpus_case_file_reports_and_summarises(path: Path) -> None:
    r = run_mj("conformance", str(path), mem_mb=300, cpu_s=20)
    assert_clean(r, ok=False)
    assert re.search(r"\d+ passed, \d+ failed", r.stdout + r.stderr), r.stdout + r.stderr
