"""Two builds of the package, simulated side by side: ``new ÷ old`` CPU time per ruleset.

::

    git archive HEAD~3 | tar -x -C /tmp/old        # the build to compare against
    python benchmarks/ab_sim.py --old /tmp/old --new . --rounds 5 --hands 60

A busy machine (other processes on the same cores) moves absolute numbers by tens of
percent from one minute to the next. Each build runs in its own long-lived worker; the
two play the same hands in alternation, a few hands at a time (``--batch``, ~0.1–0.5 s),
so both see the same load, and their *ratio* is what this reports: per ruleset, the
median over rounds of new ÷ old CPU seconds for the same hands, both without a sink
(``Game.play`` alone) and with the statistics sink ``mj simulate`` uses without a log.

``--kind env`` times the environment instead: one ``MahjongEnv`` per ruleset taking
uniformly random legal actions from its mask (observation and mask built every step, as
``benchmarks/bench_env.py``'s ``env`` line), the same seeds and actions in both builds;
``--kind vec``: the same through a ``VectorMahjongEnv`` of 16 tables (actions drawn
from the batched masks). Each build's steps per CPU second (hands, for the other kinds)
are printed too, min–max over rounds.
"""

from __future__ import annotations

import argparse
import statistics

# (the folder's shared timing; the script's folder is on sys.path)
from _timing import BuildProcess, add_build_arguments, alternated, spread

RULESETS = ("yongzhou-huandiao", "yongzhou-wangba", "changsha", "sichuan-xuezhan", "mcr")  # the default set
# Every shipped ruleset may be asked for with --only.
SHIPPED = (*RULESETS, "guangdong-tuidaohu", "hongzhong", "taiwan-16")

# A worker, with the build's directory first on sys.path: reads "ruleset kind first_seed
# hands" lines, plays those hands, answers the CPU seconds they took.
_CHILD = r"""
import json, random, sys, time
from mjframework.rules.loader import load_ruleset
from mjframework.evaluate.scoring import Evaluator
from mjframework.play.game import Game
from mjframework.play.bots import GreedyBot
from mjframework.run.simulate import Stats, StatsSink
try:  # builds before the counting sink marked the statistics sink this way
    from mjframework.play.events import reads_fields_of
except ImportError:
    reads_fields_of = None
evs = {}
def env_hands(rs, ev, first, hands):
    import numpy as np
    from mjframework.run.env import MahjongEnv
    env = MahjongEnv(rs, evaluator=ev)
    steps = 0
    for s in range(first, first + hands):
        rng = random.Random(s)
        obs, _ = env.reset(seed=s)
        done = False
        while not done:
            legal = np.flatnonzero(obs["action_mask"])
            obs, _r, done, _t, _i = env.step(int(legal[rng.randrange(len(legal))]))
            steps += 1
    return steps
def vec_hands(rs, ev, first, hands, n=16):
    import numpy as np
    from mjframework.run.envs.vector import VectorMahjongEnv
    venv = VectorMahjongEnv(rs, n, seed=first, copy=False)
    rng = np.random.default_rng(first)
    steps = 0
    _obs, masks, _info = venv.reset()
    while venv.hands_played < hands:
        actions = np.argmax(rng.random(masks.shape, dtype=np.float32) * masks, axis=1)
        _obs, masks, _r, _term, _trunc, _info = venv.step(actions)
        steps += n
    return steps
for line in sys.stdin:
    rid, kind, first, hands = line.split()
    if rid not in evs:
        evs[rid] = Evaluator(load_ruleset(rid))
    ev = evs[rid]; rs = ev.ruleset
    t0 = time.process_time()
    if kind in ("env", "vec"):
        steps = (env_hands if kind == "env" else vec_hands)(rs, ev, int(first), int(hands))
        print(time.process_time() - t0, steps, flush=True)
        continue
    for s in range(int(first), int(first) + int(hands)):
        bots = [GreedyBot(random.Random(s * 4 + i)) for i in range(rs.players)]
        emit = None
        if kind == "stats":
            emit = StatsSink(Stats(rs.players))
            if reads_fields_of is not None:
                emit = reads_fields_of(emit, StatsSink.FIELDS_READ)
        Game(rs, bots, seed=s, dealer=s % rs.players, evaluator=ev, emit=emit).play()
    print(time.process_time() - t0, 0, flush=True)
"""


class _Worker(BuildProcess):
    def __init__(self, build: str) -> None:
        super().__init__(build, _CHILD)

    def run(self, *request: object) -> float:
        """CPU seconds of the hands ``(ruleset, kind, first, hands)`` (their steps, for ``env``
        and ``vec``, in :attr:`steps`)."""
        secs, steps = self.ask(" ".join(map(str, request))).split()
        self.steps = int(steps)
        return float(secs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_build_arguments(ap)
    ap.add_argument("--hands", type=int, default=60, help="hands per ruleset and round")
    ap.add_argument("--batch", type=int, default=5, help="hands per alternation")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", action="append", choices=SHIPPED, help="a ruleset (repeatable)")
    ap.add_argument("--kind", action="append", choices=("silent", "stats", "env", "vec"),
                    help="what is timed (repeatable; default: silent and stats)")
    args = ap.parse_args()
    rulesets = tuple(args.only or RULESETS)
    kinds = tuple(args.kind or ("silent", "stats"))
    rates: dict[str, tuple[list[float], list[float]]] = {}  # (old, new) hands or steps per CPU s
    old, new = _Worker(args.old), _Worker(args.new)
    try:
        for rid in rulesets:  # warm both: tables built, memos filled
            for w in (old, new):
                w.run(rid, "silent", args.seed, args.batch)
        ratios: dict[str, list[float]] = {}
        for r in range(args.rounds):
            line = []
            for rid in rulesets:
                for kind in kinds:
                    t_old = t_new = 0.0
                    steps = 0
                    for first in range(args.seed, args.seed + args.hands, args.batch):
                        n = min(args.batch, args.seed + args.hands - first)
                        a, b = alternated(old, new, (first // args.batch + r) % 2 == 0, rid, kind, first, n)
                        t_old, t_new = t_old + a, t_new + b
                        steps += old.steps
                    key = f"{rid}/{kind}"
                    got = rates.setdefault(key, ([], []))
                    done = steps if kind in ("env", "vec") else args.hands
                    got[0].append(done / t_old)
                    got[1].append(done / t_new)
                    ratios.setdefault(key, []).append(t_new / t_old)
                    line.append(f"{key} {t_new / t_old:.3f}")
            print(f"round {r + 1}: " + "  ".join(line), flush=True)
    finally:
        old.close()
        new.close()
    print(f"\nnew ÷ old CPU time, median (min–max) of {args.rounds} rounds of {args.hands} hands, "
          f"builds alternating every {args.batch} hands:")
    for key, rs in ratios.items():
        print(f"  {key:<36} {spread(rs)}")
    every = [x for rs in ratios.values() for x in rs]
    print(f"  {'all':<36} {statistics.median(every):.3f}")
    print("per CPU second (min–max over rounds; env/vec: steps, else hands):")
    for key, (o, n) in rates.items():
        print(f"  {key:<36} old {min(o):,.0f}–{max(o):,.0f}, new {min(n):,.0f}–{max(n):,.0f}")


if __name__ == "__main__":
    main()
