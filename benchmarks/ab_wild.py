"""Two builds scoring hands with wildcards *before their tables are warm*: ``new ÷ old`` CPU time.

::

    git archive <base> | tar -x -C /tmp/old
    python benchmarks/ab_wild.py --old /tmp/old --new . --rounds 5 --hands 1500
    python benchmarks/ab_wild.py --old /tmp/old --new . --seen      # each hand scored once before

``ab_score.py`` warms its hands first (every table built, every memo filled); this script
measures the other end: each round makes new hands (``run.py``'s complete concealed hands
with 1, 2, 3 and 4 wildcards, of the rulesets given, shuffled together), empties the
module-level tables of the first reading with wildcards, and scores each hand once
(``Evaluator.evaluate``). With ``--seen`` the tables are emptied before the hands are made
(making them scores each hand once: its blocks are then met a second time, as when a hand
checked before is scored). The builds alternate an eighth of a round at a time, each in its
own worker (``_timing.BuildProcess``); new ÷ old per round, median (min–max).
"""

from __future__ import annotations

import argparse

# (the folder's shared timing; the script's folder is on sys.path)
from _timing import BuildProcess, add_build_arguments, alternated, spread

# A worker: reads "round part parts" lines; at part 0 makes the round's hands; answers the
# CPU seconds that part of the hands took to score.
_CHILD = r"""
import random, sys, time
sys.path[:0] = ["benchmarks", "tests"]
import run as R
from mjframework.rules.loader import load_ruleset
from mjframework.evaluate.scoring import Evaluator
from mjframework.evaluate import readings as RD
n, seen = int(sys.argv[1]), sys.argv[3] == "seen"
evs = [Evaluator(load_ruleset(rid)) for rid in sys.argv[2].split(",")]

def empty():
    if hasattr(RD, "_WILD_BLOCKS"):  # (the tables before they moved to wild_blocks)
        RD._WILD_BLOCKS.clear(); RD._WILD_SEEN.clear(); RD._wild_entries = 0
    else:
        from mjframework.evaluate import wild_blocks as WB
        WB._TABLES.clear(); WB._MEMO.clear(); WB._SEEN.clear(); WB._tables = 0

items = []
for line in sys.stdin:
    r, part, parts = map(int, line.split())
    if part == 0:
        if seen:
            empty()
        rng = random.Random(1000 + r)
        items = []
        for ev in evs:
            _, cases = R.complete_cases(ev, rng, n, (1, 2, 3, 4))
            items += [(ev, c.args()) for w in (1, 2, 3, 4) for c in cases[w]]
        random.Random(r).shuffle(items)
        if not seen:
            empty()
    size = -(-len(items) // parts)
    t0 = time.process_time()
    for ev, a in items[part * size:(part + 1) * size]:
        ev.evaluate(*a)
    print(time.process_time() - t0, flush=True)
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_build_arguments(ap)
    ap.add_argument("--hands", type=int, default=1500, help="hands per ruleset and wildcard count")
    ap.add_argument("--rulesets", default="yongzhou-wangba,yongzhou-huandiao")
    ap.add_argument("--seen", action="store_true", help="each hand scored once before it is timed")
    args = ap.parse_args()
    mode = "seen" if args.seen else "fresh"
    old = BuildProcess(args.old, _CHILD, str(args.hands), args.rulesets, mode)
    new = BuildProcess(args.new, _CHILD, str(args.hands), args.rulesets, mode)
    parts, ratios = 8, []
    try:
        for r in range(args.rounds):
            t_old = t_new = 0.0
            for part in range(parts):
                a, b = alternated(old, new, (part + r) % 2 == 0, r, part, parts)
                t_old, t_new = t_old + a, t_new + b
            ratios.append(t_new / t_old)
            print(f"round {r + 1}: old {t_old:.3f} s, new {t_new:.3f} s, new ÷ old {t_new / t_old:.3f}",
                  flush=True)
    finally:
        old.close()
        new.close()
    print(f"new ÷ old CPU time ({mode} hands), median (min–max) of {args.rounds} rounds: "
          f"{spread(ratios)}")


if __name__ == "__main__":
    main()
