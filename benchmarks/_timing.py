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
) -> BenchResult:
    """Time ``fn(*args)`` for every ``args`` in ``items``; best of ``repeat``.

    One warm-up pass (also fills any lazy tables or caches) decides how many
    passes make a repeat last at least ``min_time`` seconds, so tiny item
    lists still get a stable figure.
    """
    if not items:
        raise ValueError("bench needs at least one item")

    def one_pass(n: int) -> float:
        t0 = time.perf_counter()
        for _ in range(n):
            for args in items:
                fn(*args)
        return time.perf_counter() - t0

    warm = max(one_pass(1), 1e-9)
    passes = max(1, int(min_time / warm + 0.999))
    best = min(one_pass(passes) for _ in range(repeat)) / passes
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
