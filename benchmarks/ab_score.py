"""Two builds of the package, scoring side by side: ``new ÷ old`` CPU time of full scoring.

::

    git archive main | tar -x -C /tmp/old          # the build to compare against
    python benchmarks/ab_score.py --old /tmp/old --new . --rounds 7

As ``ab_sim.py`` does for simulation: each build runs in its own long-lived worker, the two
score the same hands (``Evaluator.evaluate``) in alternation, a slice at a time, so both see
the same load on a busy machine, and the *ratio* per line is reported (median and min–max
over rounds). The hands are ``run.py``'s (complete concealed hands, self-drawn; 0 and 1–4
wildcards where the ruleset has them) and ``bench_mcr.py``'s 国标 winning hands, made by
each build from the same seed (the generators are the same code in both builds).
"""

from __future__ import annotations

import argparse

# (the folder's shared timing; the script's folder is on sys.path)
from _timing import BuildProcess, add_build_arguments, alternated, spread

LINES = (("yongzhou-wangba", 0), ("yongzhou-huandiao", 0), ("changsha", 0), ("yongzhou-wangba", 2),
         ("yongzhou-huandiao", 4), ("mcr", -1))

# A worker, with the build's directory first on sys.path: reads "ruleset wildcards slice
# slices" lines, scores that slice of the line's hands, answers the CPU seconds it took.
_CHILD = r"""
import random, sys, time
sys.path[:0] = ["benchmarks", "tests"]
import run as R
from mjframework.rules.loader import load_ruleset
from mjframework.evaluate.scoring import Evaluator
seed, n = int(sys.argv[1]), int(sys.argv[2])
work = {}
for line in sys.stdin:
    rid, w, part, parts = line.split()
    w, part, parts = int(w), int(part), int(parts)
    if (rid, w) not in work:
        ev = Evaluator(load_ruleset(rid))
        if w < 0:
            import bench_mcr
            items = bench_mcr.make_hands(seed, n)[0]
        else:
            _, cases = R.complete_cases(ev, random.Random(seed), n, (w,))
            items = [c.args() for c in cases[w]]
        for a in items:
            ev.evaluate(*a)  # warm: tables built, memos filled
        work[rid, w] = (ev, items)
    ev, items = work[rid, w]
    size = -(-len(items) // parts)
    chunk = items[part * size:(part + 1) * size]
    t0 = time.process_time()
    for a in chunk:
        ev.evaluate(*a)
    print(time.process_time() - t0, flush=True)
"""


class _Worker(BuildProcess):
    def __init__(self, build: str, seed: int, hands: int) -> None:
        super().__init__(build, _CHILD, str(seed), str(hands))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_build_arguments(ap)
    ap.add_argument("--hands", type=int, default=600, help="hands per line")
    ap.add_argument("--slices", type=int, default=6, help="alternations per line and round")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", action="append", metavar="RULESET",
                    help="time only this ruleset's lines (repeatable; default: every line)")
    args = ap.parse_args()
    lines = [(rid, w) for rid, w in LINES if not args.only or rid in args.only]
    old, new = _Worker(args.old, args.seed, args.hands), _Worker(args.new, args.seed, args.hands)
    ratios: dict[str, list[float]] = {}
    try:
        for rid, w in lines:  # make and warm the hands in both
            old.run(rid, w, 0, args.slices)
            new.run(rid, w, 0, args.slices)
        for r in range(args.rounds):
            out = []
            for rid, w in lines:
                t_old = t_new = 0.0
                for part in range(args.slices):
                    a, b = alternated(old, new, (part + r) % 2 == 0, rid, w, part, args.slices)
                    t_old, t_new = t_old + a, t_new + b
                key = f"{rid}, {'国标 winning hands' if w < 0 else f'{w} wildcards'}"
                ratios.setdefault(key, []).append(t_new / t_old)
                out.append(f"{t_new / t_old:.3f}")
            print(f"round {r + 1}: " + " ".join(out), flush=True)
    finally:
        old.close()
        new.close()
    print(f"\nnew ÷ old CPU time of full scoring, median (min–max) of {args.rounds} rounds, "
          f"{args.hands} hands a line, builds alternating {args.slices} times a line:")
    for key, rs in ratios.items():
        print(f"  {key:<40} {spread(rs)}")


if __name__ == "__main__":
    main()
