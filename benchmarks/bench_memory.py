"""Memory of a simulation's process tree: ``mj simulate`` with 2 workers against 1 (issue 22).

Runs ``mj simulate RULESET -n N --seed S -j K`` as a child process and samples, every
``interval`` seconds, the proportional set size (PSS) of it and all its descendants from
``/proc/<pid>/smaps_rollup``; the figure is the peak of the tree's sum. PSS charges a page
shared by k processes 1/k to each, so the tree's sum is the memory the run really holds:
pages a forked worker shares with the parent (the win tables and the ruleset, loaded before
the fork) count once, pages it wrote to (its own caches, reference counts of shared objects
it touched) count per worker.

    python benchmarks/bench_memory.py [--ruleset changsha] [--hands 1000] [--rounds 2]

Linux only (``/proc``); elsewhere :func:`available` is False and ``run.py`` says so.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

TARGET = 1.3  # the tree with 2 workers ÷ 1 worker, at most (issue 22)


def available() -> bool:
    return Path(f"/proc/{os.getpid()}/smaps_rollup").is_file()


def _children(pid: int) -> list[int]:
    """The child processes of ``pid`` (every thread's ``children`` list)."""
    out: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:  # gone
        return out
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/children", encoding="ascii") as f:
                out.extend(int(x) for x in f.read().split())
        except OSError:
            continue
    return out


def _pss_kb(pid: int) -> int:
    """The PSS of one process, in kB (0 when it is gone or not readable)."""
    try:
        with open(f"/proc/{pid}/smaps_rollup", encoding="ascii") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def tree_pss_kb(root: int) -> tuple[int, int]:
    """(PSS of ``root`` and every descendant, in kB; how many processes)."""
    total = n = 0
    todo = [root]
    while todo:
        pid = todo.pop()
        total += _pss_kb(pid)
        n += 1
        todo.extend(_children(pid))
    return total, n


@dataclass(frozen=True)
class Peak:
    workers: int
    mb: float  # the tree's peak PSS
    processes: int  # the most processes seen at once
    seconds: float  # wall time of the run


def peak_pss(cmd: list[str], workers: int, interval: float = 0.05) -> Peak:
    """Run ``cmd`` and sample its process tree's PSS until it exits; the peak."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    peak = most = 0
    try:
        while proc.poll() is None:
            kb, n = tree_pss_kb(proc.pid)
            peak, most = max(peak, kb), max(most, n)
            time.sleep(interval)
        err = proc.stderr.read() if proc.stderr else ""
    finally:
        if proc.poll() is None:  # interrupted: leave nothing behind
            proc.kill()
            proc.wait()
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}: {err.strip()[-500:]}")
    return Peak(workers, peak / 1024, most, time.perf_counter() - t0)


def simulate_cmd(ruleset: str, hands: int, seed: int, workers: int) -> list[str]:
    return [sys.executable, "-m", "mjframework.cli", "simulate", ruleset, "-n", str(hands),
            "--seed", str(seed), "-j", str(workers)]


def run(ruleset: str = "changsha", hands: int = 1000, seed: int = 5, rounds: int = 2
        ) -> list[tuple[Peak, Peak]]:
    """``rounds`` pairs (1 worker, 2 workers), interleaved, each printed as it is measured."""
    pairs = []
    for r in range(rounds):
        one = peak_pss(simulate_cmd(ruleset, hands, seed, 1), 1)
        two = peak_pss(simulate_cmd(ruleset, hands, seed, 2), 2)
        pairs.append((one, two))
        print(f"memory: {ruleset}, {hands} hands, round {r + 1}: 1 worker {one.mb:.1f} MB "
              f"({one.seconds:.1f} s), 2 workers {two.mb:.1f} MB in {two.processes} processes "
              f"({two.seconds:.1f} s): {two.mb / one.mb:.2f}x", flush=True)
    return pairs


def ratios(pairs: list[tuple[Peak, Peak]]) -> list[float]:
    return [two.mb / one.mb for one, two in pairs]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ruleset", default="changsha")
    ap.add_argument("--hands", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    if not available():
        sys.exit("no /proc/<pid>/smaps_rollup here (Linux only)")
    pairs = run(args.ruleset, args.hands, args.seed, args.rounds)
    rs = ratios(pairs)
    print(f"2 workers ÷ 1: {statistics.median(rs):.2f}x ({min(rs):.2f}–{max(rs):.2f}), "
          f"target <= {TARGET}x")


if __name__ == "__main__":
    main()
