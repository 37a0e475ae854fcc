"""Timing helpers shared by the benchmark scripts in this folder.

Kept tiny and dependency-free so every benchmark measures the same way:
CPU time of this process (``time.process_time``, so other work on a busy
machine does not count), the whole item list run in a plain loop (so call
overhead is included equally for every function compared), repeated, best
run kept (the least disturbed by the rest of the machine).

Comparisons with a reference use :func:`interleave`: ours and the
reference alternate pass by pass on the same items, and the ratio is taken
per round, so a slow patch of the machine affects both sides alike; the
median ratio and its min–max over the rounds are reported.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
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
        return _cpu_pass(fn, items, n)

    start = time.process_time()
    warm = max(one_pass(1), 1e-9)
    passes = max(1, int(min_time / warm + 0.999))
    times = []
    for _ in range(repeat):
        times.append(one_pass(passes))
        if budget is not None and time.process_time() - start > budget:
            break
    best = min(times) / passes
    return BenchResult(label=label, items=len(items), passes=passes, best_seconds=best)


def _cpu_pass(fn: Callable[..., Any], items: Sequence[tuple[Any, ...]], n: int) -> float:
    """CPU seconds for ``n`` passes of ``fn`` over ``items``."""
    t0 = time.process_time()
    for _ in range(n):
        for args in items:
            fn(*args)
    return time.process_time() - t0


@dataclass(frozen=True)
class Comparison:
    """Ours against one or more references, interleaved round by round on the same items.

    ``seconds[name]`` holds one pass's CPU seconds for each round; ratios are
    per round: reference time ÷ our time, so above 1 means we are faster.
    """

    label: str
    items: int
    seconds: dict[str, list[float]]

    def rate(self, name: str) -> float:
        """Items per CPU second, from the median round."""
        return self.items / statistics.median(self.seconds[name])

    def ratios(self, ours: str, ref: str) -> list[float]:
        return [r / o for o, r in zip(self.seconds[ours], self.seconds[ref], strict=True)]

    def ratio_text(self, ours: str, ref: str) -> str:
        rs = self.ratios(ours, ref)
        return f"{statistics.median(rs):.2f}x ({min(rs):.2f}–{max(rs):.2f})"


def interleave(label: str, contenders: dict[str, tuple[Callable[..., Any], Sequence[tuple[Any, ...]]]],
               rounds: int = 5, *, min_time: float = 0.05) -> Comparison:
    """Time each contender's pass over its items, alternating, ``rounds`` times.

    Every contender gets the same number of items (the same hands in each
    library's own encoding). One warm-up pass each decides how many passes
    make a contender's turn last ``min_time`` CPU seconds; the order of the
    contenders alternates between rounds so neither always runs first.
    """
    sizes = {len(items) for _fn, items in contenders.values()}
    if len(sizes) != 1 or 0 in sizes:
        raise ValueError(f"contenders need the same, non-zero number of items: {sizes}")
    passes = {name: max(1, int(min_time / max(_cpu_pass(fn, items, 1), 1e-9) + 0.999))
              for name, (fn, items) in contenders.items()}
    seconds: dict[str, list[float]] = {name: [] for name in contenders}
    names = list(contenders)
    for r in range(rounds):
        for name in names if r % 2 == 0 else reversed(names):
            fn, items = contenders[name]
            seconds[name].append(_cpu_pass(fn, items, passes[name]) / passes[name])
    return Comparison(label, sizes.pop(), seconds)


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
    ``ratios``: per-round ours/ref speed ratios from :func:`interleave`; the
    table shows their median and min–max.
    """

    label: str
    rate: float  # ours, per CPU second
    ref_rate: float | None = None
    target_ratio: float | None = None
    target_rate: float | None = None
    ref_note: str = ""
    ratios: tuple[float, ...] = ()
    # the target is a most (memory: 2 workers ÷ 1 <= 1.3x), not a least
    at_most: bool = False

    @property
    def ratio(self) -> float | None:
        if self.ratios:
            return statistics.median(self.ratios)
        return self.rate / self.ref_rate if self.ref_rate else None

    @property
    def ratio_text(self) -> str:
        if self.ratio is None:
            return "-"
        if len(self.ratios) > 1:
            return f"{self.ratio:.2f}x ({min(self.ratios):.2f}–{max(self.ratios):.2f})"
        return f"{self.ratio:.2f}x"

    @property
    def target(self) -> str:
        if self.target_ratio is not None:
            return f"{'<=' if self.at_most else '>='} {self.target_ratio:.2g}x ref"
        if self.target_rate is not None:
            return f">= {self.target_rate:,.0f}/s"
        return ""

    @property
    def vs_target(self) -> float | None:
        """Achieved ÷ wanted (>= 1 means the target is met)."""
        if self.target_ratio is not None and self.ratio is not None:
            return self.target_ratio / self.ratio if self.at_most else self.ratio / self.target_ratio
        if self.target_rate is not None:
            return self.rate / self.target_rate
        return None


def row(result: BenchResult, reference: BenchResult | None = None, **kw: Any) -> Row:
    """A :class:`Row` from timing results."""
    return Row(result.label, result.per_second, reference.per_second if reference else None, **kw)


def comparison_row(label: str, comp: Comparison, ours: str = "ours", ref: str = "ref", **kw: Any) -> Row:
    """A :class:`Row` from an interleaved comparison (median rates, per-round ratios)."""
    return Row(label, comp.rate(ours), comp.rate(ref), ratios=tuple(comp.ratios(ours, ref)), **kw)


def report_comparison(comp: Comparison, ours: str = "ours", width: int = 44) -> str:
    """One aligned line: label, our rate, then each reference's rate and ratio (median, min–max)."""
    rate = comp.rate(ours)
    line = f"{comp.label:<{width}} {fmt_rate(rate)} {1e6 / rate:8.2f} µs"
    for name in comp.seconds:
        if name != ours:
            line += f"   {name} {fmt_rate(comp.rate(name))}  ours/{name} = {comp.ratio_text(ours, name)}"
    return line


def summary_table(rows: Sequence[Row], width: int = 52) -> str:
    """Compact table: line, hands/s, reference hands/s, ours/ref (median, min–max), target, vs target."""
    head = (f"{'line':<{width}} {'hands/s':>11} {'ref hands/s':>12} {'ours/ref (min–max)':>22}"
            f"  {'target':<14} {'vs target':>10}")
    out = [head, "-" * len(head)]
    for r in rows:
        ref = f"{r.ref_rate:,.0f}{r.ref_note}" if r.ref_rate else "-"
        vs = r.vs_target
        met = "-" if vs is None else f"{vs:.2f} {'ok' if vs >= 1 else 'MISS':<4}"
        out.append(f"{r.label:<{width}} {r.rate:>11,.0f} {ref:>12} {r.ratio_text:>22}"
                   f"  {r.target:<14} {met:>10}")
    return "\n".join(out)


def add_build_arguments(ap: argparse.ArgumentParser, rounds: int = 5) -> None:
    """The options every A/B script shares: the two builds' folders and the rounds."""
    ap.add_argument("--old", required=True, help="directory of the build to compare against")
    ap.add_argument("--new", default=".", help="directory of the build measured (default: .)")
    ap.add_argument("--rounds", type=int, default=rounds)


class BuildProcess:
    """A child Python process running ``code`` (with ``args``) against the source tree ``build``
    (its PYTHONPATH and folder; hash seed fixed): two builds side by side, each in its own
    process, asked alternately (``ab_sim.py``, ``ab_score.py``). The child reads one request a
    line and answers one line."""

    def __init__(self, build: str, code: str, *args: str) -> None:
        env = {**os.environ, "PYTHONPATH": os.path.abspath(build), "PYTHONHASHSEED": "0"}
        self.proc = subprocess.Popen([sys.executable, "-c", code, *args], env=env, cwd=os.path.abspath(build),
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def run(self, *request: object) -> float:
        """The child's answer to one request, written as the request's parts with spaces
        between: the CPU seconds it spent."""
        return float(self.ask(" ".join(map(str, request))))

    def ask(self, request: str) -> str:
        """The child's answer to one request line."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(request + "\n")
        self.proc.stdin.flush()
        return self.proc.stdout.readline()

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait()


def alternated(old: BuildProcess, new: BuildProcess, old_first: bool,
               *request: object) -> tuple[float, float]:
    """Both builds' CPU seconds for one request, ``(old, new)``, old asked first when
    ``old_first``: the callers alternate the order so that neither build always runs just
    after the other has warmed (or cooled) the machine."""
    if old_first:
        t_old = old.run(*request)
        return t_old, new.run(*request)
    t_new = new.run(*request)
    return old.run(*request), t_new


def spread(values: Sequence[float]) -> str:
    """``median (min–max)`` of ratios, as the A/B scripts print them."""
    return f"{statistics.median(values):.3f}  ({min(values):.3f}–{max(values):.3f})"
