"""Two builds of the package, simulated side by side: ``new ÷ old`` CPU time per ruleset.

::

    git archive HEAD~3 | tar -x -C /tmp/old        # the build to compare against
    python benchmarks/ab_sim.py --old /tmp/old --new . --rounds 5 --hands 60

A busy machine (other processes on the same cores) moves absolute numbers by tens of
percent from one minute to the next; two builds measured in alternation (old, new, old,
new, … each in a fresh process, the same seeds and bots) see the same load, so their
*ratio* is what this reports: per ruleset, the median over rounds of new ÷ old CPU
seconds for the same hands, both without a sink (``Game.play`` alone) and with the
statistics sink ``mj simulate`` uses without a log.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

RULESETS = ("yongzhou-huandiao", "yongzhou-wangba", "changsha", "sichuan-xuezhan", "mcr")

# Run in the child, with the build's directory first on sys.path.
_CHILD = r"""
import json, random, sys, time
from mjframework.rules.loader import load_ruleset
from mjframework.evaluate.scoring import Evaluator
from mjframework.play.game import Game
from mjframework.play.bots import GreedyBot
try:  # builds before the counting sink marked the statistics sink this way
    from mjframework.play.events import reads_fields_of
except ImportError:
    reads_fields_of = None
from mjframework.run.simulate import Stats, StatsSink

hands = int(sys.argv[1]); seed = int(sys.argv[2]); out = {}
for rid in sys.argv[3:]:
    rs = load_ruleset(rid); ev = Evaluator(rs)
    def run(sink_kind):
        for s in range(seed, seed + hands):
            bots = [GreedyBot(random.Random(s * 4 + i)) for i in range(rs.players)]
            emit = None
            if sink_kind == "stats":
                emit = StatsSink(Stats(rs.players))
                if reads_fields_of is not None:
                    emit = reads_fields_of(emit, StatsSink.FIELDS_READ)
            Game(rs, bots, seed=s, dealer=s % rs.players, evaluator=ev, emit=emit).play()
    run(None)  # warm the evaluator's tables and memos
    for kind in (None, "stats"):
        t0 = time.process_time(); run(kind); out[f"{rid}/{kind or 'silent'}"] = time.process_time() - t0
print(json.dumps(out))
"""


def _measure(build: str, hands: int, seed: int, rulesets: tuple[str, ...]) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": os.path.abspath(build), "PYTHONHASHSEED": "0"}
    done = subprocess.run([sys.executable, "-c", _CHILD, str(hands), str(seed), *rulesets],
                          env=env, capture_output=True, text=True, check=True, cwd=os.path.abspath(build))
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--old", required=True, help="directory of the build to compare against")
    ap.add_argument("--new", default=".", help="directory of the build measured (default: .)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--hands", type=int, default=60, help="hands per ruleset and round")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", action="append", choices=RULESETS, help="a ruleset (repeatable)")
    args = ap.parse_args()
    rulesets = tuple(args.only or RULESETS)
    ratios: dict[str, list[float]] = {}
    for r in range(args.rounds):
        first, second = (args.old, args.new) if r % 2 == 0 else (args.new, args.old)
        a = _measure(first, args.hands, args.seed, rulesets)
        b = _measure(second, args.hands, args.seed, rulesets)
        old, new = (a, b) if first == args.old else (b, a)
        for key in old:
            ratios.setdefault(key, []).append(new[key] / old[key])
        print(f"round {r + 1}: " + "  ".join(f"{k} {new[k] / old[k]:.3f}" for k in old), flush=True)
    print(f"\nnew ÷ old CPU time, median (min–max) of {args.rounds} alternating rounds, "
          f"{args.hands} hands each:")
    for key, rs in ratios.items():
        print(f"  {key:<36} {statistics.median(rs):.3f}  ({min(rs):.3f}–{max(rs):.3f})")
    every = [x for rs in ratios.values() for x in rs]
    print(f"  {'all':<36} {statistics.median(every):.3f}")


if __name__ == "__main__":
    main()
