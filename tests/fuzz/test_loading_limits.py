"""Loading is bounded: aliases, nesting, size, integers, tags, and `extends` graphs (docs/limits.md)."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from fuzzkit import ROOT, assert_clean, run_mj

from mjframework.core.errors import RulesetError
from mjframework.rules.loader import MAX_EXTENDS_DEPTH, MAX_FILES, check_file
from mjframework.rules.yamlsource import MAX_FILE_BYTES, load_yaml_text


def _problems(text: str) -> list[str]:
    """The problems, the same whether libyaml or PyYAML's own parser reads the text."""
    out = []
    for fast in (True, False):
        with pytest.raises(RulesetError) as ei:
            load_yaml_text(text, "f.yaml", fast=fast)
        out.append([str(p) for p in ei.value.problems])
    assert out[0] == out[1]
    return out[0]


def test_billion_laughs_is_capped_with_a_location() -> None:
    text = (Path(__file__).parent / "corpus" / "billion-laughs.yaml").read_text()
    start = time.process_time()
    (msg,) = _problems(text)
    assert msg.startswith("f.yaml:") and "too many values" in msg
    assert time.process_time() - start < 5  # it stops after MAX_NODES values, not 10**9


@pytest.mark.parametrize("fast", [True, False])
def test_aliases_within_the_limit_still_work(fast: bool) -> None:
    data = load_yaml_text("a: &x [1, 2]\nb: *x\nc: {<<: {k: 1}, j: 2}\n", "f.yaml", fast=fast)
    assert data == {"a": [1, 2], "b": [1, 2], "c": {"k": 1, "j": 2}}
    assert data.locations["c"].line == 3


@pytest.mark.parametrize(("text", "needle"), [
    ("name: &a [*a]\n", "nested more than"),
    ("n: " + "[" * 500 + "]" * 500 + "\n", "nested more than"),
    ("n: " + "9" * 5000 + "\n", "integer too large"),
    ("n: 10000000000000000\n", "out of range"),
    ("n: -10000000000000000\n", "out of range"),
    ("n: !!python/tuple [1, 2]\n", "not allowed"),
    ("n: !!python/object/apply:os.system {args: [ls]}\n", "not allowed"),
    ("n: !!binary aGk=\n", "not allowed"),
    ("n: !!set {a, b}\n", "not allowed"),
    ("n: !custom x\n", "not allowed"),
    ('name: "a\0b"\n', "U+0000"),
    ("? [a, b]\n: 1\n", "plain value"),
])
def test_hostile_yaml_is_a_located_error(text: str, needle: str) -> None:
    (msg,) = _problems(text)
    assert msg.startswith("f.yaml:") and needle in msg, msg


def test_core_tags_are_allowed() -> None:
    assert load_yaml_text("a: !!str 10\nb: !!int '3'\nc: ! x\n", "f.yaml") == {"a": "10", "b": 3, "c": "x"}


def test_file_size_is_capped(tmp_path: Path) -> None:
    p = tmp_path / "big.yaml"
    p.write_text("a: " + "x" * (MAX_FILE_BYTES + 1) + "\n")
    _, problems = check_file(p)
    assert problems and "too large" in problems[0].message and problems[0].location is not None


def _chain(folder: Path, n: int) -> Path:
    for i in range(n):
        body = f"id: c{i}\nextends: c{i + 1}.yaml\n" if i < n - 1 else f"id: c{i}\nname: x\n"
        (folder / f"c{i}.yaml").write_text(body)
    return folder / "c0.yaml"


def _doubling(folder: Path, levels: int) -> Path:
    for i in range(levels):
        body = (f"id: d{i}\nextends: [d{i + 1}.yaml, d{i + 1}.yaml]\n" if i < levels - 1
                else "fragment: last\nname: x\n")
        (folder / f"d{i}.yaml").write_text(body)
    return folder / "d0.yaml"


def test_extends_depth_is_capped(tmp_path: Path) -> None:
    _, problems = check_file(_chain(tmp_path, 1000))
    assert any("chains more than" in p.message and p.location for p in problems)


def test_each_file_of_an_extends_graph_is_read_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import mjframework.rules.loader as rmod

    reads: list[str] = []
    real = rmod.load_yaml_file
    monkeypatch.setattr(rmod, "load_yaml_file", lambda p, **kw: reads.append(str(p)) or real(p, **kw))
    check_file(_doubling(tmp_path, MAX_EXTENDS_DEPTH - 2))  # within the depth limit: 2**13 paths
    assert len(reads) == len(set(reads)) == MAX_EXTENDS_DEPTH - 2


def test_distinct_files_are_capped(tmp_path: Path) -> None:
    refs = ", ".join(f"f{i}.yaml" for i in range(MAX_FILES + 5))
    (tmp_path / "top.yaml").write_text(f"id: top\nextends: [{refs}]\n")
    for i in range(MAX_FILES + 5):
        (tmp_path / f"f{i}.yaml").write_text(f"fragment: f{i}\n")
    _, problems = check_file(tmp_path / "top.yaml")
    assert any("files in one `extends` graph" in p.message and p.location for p in problems)


@pytest.mark.parametrize("kind", ["laughs", "chain", "doubling"])
def test_validate_rejects_hostile_files_within_2s_and_200mb(tmp_path: Path, kind: str) -> None:
    if kind == "laughs":
        path = Path(__file__).parent / "corpus" / "billion-laughs.yaml"
    elif kind == "chain":
        path = _chain(tmp_path, 1000)
    else:
        path = _doubling(tmp_path, 22)
    r = run_mj("validate", str(path), mem_mb=200, cpu_s=2)
    assert_clean(r, ok=False)
    assert re.search(r":\d+:\d+: ", r.stdout + r.stderr)


def test_shipped_rulesets_still_validate() -> None:
    r = run_mj("validate", *map(str, sorted((ROOT / "rulesets").glob("*.yaml"))), mem_mb=300, cpu_s=30)
    assert_clean(r, ok=True)


def test_not_utf8_is_a_located_error(tmp_path: Path) -> None:
    p = tmp_path / "latin1.yaml"
    p.write_bytes(b'id: x\nname: "caf\xe9"\n')
    _, problems = check_file(p)
    assert [str(q) for q in problems] == [f"{p}:2:11: not UTF-8 text: the byte 0xe9 (save the file as UTF-8)"]


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_a_device_or_fifo_is_not_read(tmp_path: Path) -> None:
    import os

    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)
    for path in ("/dev/zero", str(fifo)):
        r = run_mj("validate", path, mem_mb=200, cpu_s=5, timeout=60)
        assert_clean(r, ok=False)
        assert "not a regular file" in r.stdout + r.stderr
