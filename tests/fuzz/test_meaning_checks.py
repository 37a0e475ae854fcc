"""Rulesets that validate make sense: bounded points, shapes that hold a hand; design tools never crash."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from fuzzkit import assert_clean, run_mj

from mjframework.rules.loader import check_file


def _variant(tmp_path: Path, body: str) -> Path:
    p = tmp_path / "v.yaml"
    p.write_text("id: v\nextends: changsha\n" + body)
    return p


def _messages(tmp_path: Path, body: str) -> list[str]:
    _, problems = check_file(_variant(tmp_path, body))
    return [str(p) for p in problems]


@pytest.mark.parametrize(("body", "needle"), [
    ("patterns:\n  - {name: 倒付, points: -5, shape: standard}\n", "negative points"),
    ("patterns:\n  - {name: 巨, points: 100000000000000000000000000, shape: standard}\n", "integer"),
    ("patterns:\n  - {name: 巨, points: 10000000, shape: standard}\n", "at most 1000000"),
    ("scoring: {dealer_bonus: 99999999}\n", "at most 1000000"),
    ("shapes: {empty: {melds: 0, pair: 0}}\npatterns:\n  - {name: e, points: 1, shape: empty}\n",
     "hold 0 tiles"),
    ("patterns:\n  - {name: e, points: 1, shape: {melds: 5, pair: 1}}\n", "hold 17 tiles"),
    ("patterns:\n  - {name: e, points: 1, shape: {pairs: 3}}\n", "hold 6 tiles"),
    ("shapes: {o: {orphans: ''}}\n", "orphan tiles"),
])
def test_nonsense_is_refused_with_a_location(tmp_path: Path, body: str, needle: str) -> None:
    msgs = _messages(tmp_path, body)
    assert any(needle in m and m.startswith(str(tmp_path)) for m in msgs), msgs


def test_negative_points_when_the_ruleset_says_so(tmp_path: Path) -> None:
    body = "scoring: {negative_points: true}\npatterns:\n  - {name: 罚, points: -1, require: {honors: 1}}\n"
    assert not any("negative" in m for m in _messages(tmp_path, body))


def test_wait_rest_must_hold_the_tiles_besides_wildcards(tmp_path: Path) -> None:
    p = tmp_path / "w.yaml"
    p.write_text("id: w\nextends: yongzhou-wangba\npatterns:\n"
                 "  - {name: x, points: 1, wait: {free_wildcards: 1, rest: {melds: 3, pair: 1}}}\n")
    _, problems = check_file(p)
    assert any("hold 11 tiles, not the 12 tiles" in pr.message for pr in problems), problems


def test_a_long_list_is_reported_briefly_and_fast(tmp_path: Path) -> None:
    items = ", ".join(f"{{a: {i}}}" for i in range(6000))
    start = time.process_time()
    msgs = _messages(tmp_path, f"scoring: {{tiers: [{items}]}}\n")
    assert time.process_time() - start < 10  # the schema's uniqueness check was quadratic: 30 s
    assert msgs and all(len(m) < 600 for m in msgs)


def test_thousands_of_patterns_are_refused_quickly(tmp_path: Path) -> None:
    pats = "\n".join(f"  - {{name: p{i}, points: 1, require: {{honors: {{min: 0}}}}}}" for i in range(2000))
    msgs = _messages(tmp_path, f"patterns:\n{pats}\n")
    assert any("at most 256 items, not 2000" in m for m in msgs), msgs[:3]
    assert all(len(m) < 600 for m in msgs)


def test_design_tools_on_many_shape_free_patterns(tmp_path: Path) -> None:
    pats = "\n".join(f"  - {{name: p{i}, points: 1, require: {{honors: {{min: 0}}}}}}" for i in range(60))
    path = _variant(tmp_path, f"patterns:\n{pats}\n")
    assert check_file(path)[1] == []
    for cmd in (("doc", str(path)), ("lint", str(path))):
        r = run_mj(*cmd, mem_mb=400, cpu_s=60)
        assert_clean(r)
