"""Timing helpers shared by the benchmark scripts in this folder.

Kept tiny and dependency-free so every benchmark measures the same way:
``time.perf_counter``, the whole item list run in a plain loop (so call
overhead is included equally for every function compared), repeated, best
run kept (the least disturbed by the rest of the machine).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class BenchResult:
    """Best-of-``repeat`` timing of ``fn`` over a list of argument tuples."""

    label: str
    items: int  # calls per pass
    passes: int  # passes per repeat (chosen so a repeat lasts >= min_time)
    best_seconds: float  # best repeat, divided by passes: one pass over the items

    @property
    def per_second(self) -> float:
        return self.items / self.best_seconds

    @property
    def micros_per_call(self) -> float:
        return self.best_seconds / self.items * 1e6


def bench(
    fn: Callable[..., Any],
    items: Sequence[tuple[Any, ...]],
    repeat: int = 5,
    *,
    label: str = "",
    min_time: float = 0.05,
    budget: float | None = None,
) -> BenchResult:
    """Time ``fn(*args)`` for every ``args`` in ``items``; best of ``repeat``.

    One warm-up pass (also fills any lazy tables or caches) decides how many
    passes make a repeat last at least ``min_time`` seconds, so tiny item
    lists still get a stable figure. With ``budget`` (seconds), repeats stop
    early once the line has taken that long (at least one timed repeat is
    always made), so slow lines don't dominate a whole run.
    """
    if not items:
        raise ValueError("bench needs at least one item")

    def one_pass(n: int) -> float:
        t0 = time.perf_counter()
        for _ in range(n):
            for args in items:
                fn(*args)
        return time.perf_counter() - t0

    start = time.perf_counter()
    warm = max(one_pass(1), 1e-9)
    passes = max(1, int(min_time / warm + 0.999))
    times = []
    for _ in range(repeat):
        times.append(one_pass(passes))
        if budget is not None and time.perf_counter() - start > budget:
            break
    best = min(times) / passes
    return BenchResult(label=label, items=len(items), passes=passes, best_seconds=best)


def fmt_rate(per_second: float) -> str:
    """'1,234,567/s'-style rate."""
    return f"{per_second:>12,.0f}/s"


def report(result: BenchResult, reference: BenchResult | None = None, width: int = 44) -> str:
    """One aligned line: label, hands/s, µs/call, and ×reference when given."""
    line = f"{result.label:<{width}} {fmt_rate(result.per_second)} {result.micros_per_call:8.2f} µs"
    if reference is not None:
        ratio = result.per_second / reference.per_second
        line += f"   ref {fmt_rate(reference.per_second)}  ours/ref = {ratio:5.2f}x"
    return line


@dataclass(frozen=True)
class Row:
    """One line of a summary table (see :func:`summary_table`).

    ``target_ratio``: wanted ours/ref (e.g. 2.0 for "≥ 2× the reference");
    ``target_rate``: wanted hands/s. ``ref_note`` marks a reference measured on
    related rather than identical input (explained under the table).
    """

    label: str
    rate: float  # ours, per second
    ref_rate: float | None = None
    target_ratio: float | None = None
    target_rate: float | None = None
    ref_note: str = ""

    @property
    def ratio(self) -> float | None:
        return self.rate / self.ref_rate if self.ref_rate else None

    @property
    def target(self) -> str:
        if self.target_ratio is not None:
            return f">= {self.target_ratio:g}x ref"
        if self.target_rate is not None:
            return f">= {self.target_rate:,.0f}/s"
        return ""

    @property
    def vs_target(self) -> float | None:
        """Achieved ÷ wanted (>= 1 means the target is met)."""
        if self.target_ratio is not None and self.ratio is not None:
            return self.ratio / self.target_ratio
        if self.target_rate is not None:
            return self.rate / self.target_rate
        return None


def row(result: BenchResult, reference: BenchResult | None = None, **kw: Any) -> Row:
    """A :class:`Row` from timing results."""
    return Row(result.label, result.per_second, reference.per_second if reference else None, **kw)


def summary_table(rows: Sequence[Row], width: int = 52) -> str:
    """Compact table: line, hands/s, reference hands/s, ours/ref, target, achieved/target."""
    head = (f"{'line':<{width}} {'hands/s':>11} {'ref hands/s':>12} {'ours/ref':>9}"
            f"  {'target':<14} {'vs target':>10}")
    out = [head, "-" * len(head)]
    for r in rows:
        ref = f"{r.ref_rate:,.0f}{r.ref_note}" if r.ref_rate else "-"
        ratio = f"{r.ratio:.2f}x" if r.ratio is not None else "-"
        vs = r.vs_target
        met = "-" if vs is None else f"{vs:.2f} {'ok' if vs >= 1 else 'MISS':<4}"
        out.append(f"{r.label:<{width}} {r.rate:>11,.0f} {ref:>12} {ratio:>9}  {r.target:<14} {met:>10}")
    return "\n".join(out)
