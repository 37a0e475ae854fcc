"""``benchmarks/bench_memory.py``: the process-tree PSS sampler behind run.py's memory line.

Only the sampling is tested (a tree's processes are found and their PSS summed; a failed
run is an error, not a figure); no size is asserted beyond "more than nothing".
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

PATH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_memory.py"


def _bench():
    spec = importlib.util.spec_from_file_location("bench_memory", PATH)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("bench_memory", mod)  # (its dataclasses look their module up)
    spec.loader.exec_module(mod)
    return mod


bm = _bench()
pytestmark = pytest.mark.skipif(not bm.available(), reason="no /proc/<pid>/smaps_rollup (Linux only)")


def test_the_tree_holds_its_children_and_their_memory() -> None:
    alone_kb, alone_n = bm.tree_pss_kb(os.getpid())
    assert alone_kb > 0 and alone_n >= 1
    child = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    try:
        kb, n = bm.tree_pss_kb(os.getpid())
        assert n == alone_n + 1
        assert kb > bm._pss_kb(os.getpid())  # the child's PSS is in the sum
    finally:
        assert child.stdin is not None
        child.stdin.close()
        child.wait()


def test_a_gone_process_counts_nothing() -> None:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    assert bm.tree_pss_kb(child.pid) == (0, 1)


def test_a_failing_run_is_an_error_not_a_figure() -> None:
    with pytest.raises(RuntimeError, match="exited 2"):
        bm.peak_pss([sys.executable, "-c", "import sys; sys.exit(2)"], 1)


def test_a_run_gives_its_peak() -> None:
    peak = bm.peak_pss([sys.executable, "-c", "import time; b = bytearray(30 << 20); time.sleep(0.5)"], 1)
    assert peak.mb >= 30 and peak.processes == 1
