"""``benchmarks/bench_table.py --quick`` runs: both terminal tables, one ruleset, a bounded count.

Only the path is tested (it plays, times and reports); no timing is asserted.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

pytest.importorskip("textual")

PATH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_table.py"


def _bench():
    spec = importlib.util.spec_from_file_location("bench_table", PATH)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("bench_table", mod)
    spec.loader.exec_module(mod)
    return mod


def test_quick_runs_both_tables_for_one_ruleset() -> None:
    out: list[str] = []
    assert _bench().main(["changsha", "--quick"], out=out.append) == 0
    rows = {line.split()[1]: line.split() for line in out if line.startswith("changsha ")}
    assert set(rows) == {"full", "plain"}
    for mode, row in rows.items():
        actions = int(row[2])
        assert 1 <= actions <= 10, (mode, row)  # --quick: one seed, at most 10 actions
        wall_med, cpu_med = float(row[3]), float(row[6])
        assert wall_med > 0 and cpu_med >= 0
    assert out[0].startswith("load average at start") and out[-1].startswith("load average at end")
