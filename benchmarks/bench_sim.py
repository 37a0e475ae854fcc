"""Simulation speed per ruleset: hands per CPU second, four greedy bots, one process.

    python benchmarks/bench_sim.py                       # every shipped ruleset, 150 hands
    python benchmarks/bench_sim.py changsha mcr -n 300   # some rulesets, more hands
    python benchmarks/bench_sim.py --silent              # Game.play() with no event sink

Two ways of playing are timed (CPU time, ``time.process_time``):

* default — what ``mj simulate R --hands N --seed S`` does without a log:
  :func:`mjframework.run.simulate.run_chunk` (games of 8 hands, the statistics
  sink receiving every event, no per-hand deadline);
* ``--silent`` — what ``run.py``'s simulation section does: ``Game(...).play()``
  with no sink (events are not built at all), seeds S..S+N-1.

A warm-up of 16 hands (other seeds) runs first, so tables and caches are
loaded. To compare two trees of the code on a busy machine, run this script
alternately against each (e.g. ``PYTHONPATH=/path/to/other/tree``) on the
same seeds, several rounds, and compare round by round.
"""

from __future__ import annotations

import argparse
import random
import time

from mjframework.play.bots import GreedyBot
from mjframework.play.game import Game
from mjframework.run import simulate

RULESETS = ("changsha", "yongzhou-huandiao", "yongzhou-wangba", "sichuan-xuezhan", "mcr")
TARGET = 1000.0  # hands per CPU second (issue 13)


def sim_rate(rid: str, hands: int, seed: int) -> float:
    """Hands per CPU second of ``mj simulate`` (statistics sink, no log)."""
    simulate.load_cached(rid)
    warm = simulate.SimSpec(rid, 16, seed + 10_000, ("greedy",) * 4, hand_timeout=0)
    simulate.run_chunk(warm, range(warm.games), None)
    spec = simulate.SimSpec(rid, hands, seed, ("greedy",) * 4, hand_timeout=0)
    t0 = time.process_time()
    stats = simulate.run_chunk(spec, range(spec.games), None)
    return stats.hands / (time.process_time() - t0)


def silent_rate(rid: str, hands: int, seed: int) -> float:
    """Hands per CPU second of ``Game(...).play()`` with no event sink."""
    rs, ev = simulate.load_cached(rid)

    def play(seeds: range) -> None:
        for s in seeds:
            bots = [GreedyBot(random.Random(s * 4 + i)) for i in range(rs.players)]
            Game(rs, bots, seed=s, dealer=s % rs.players, evaluator=ev).play()

    play(range(seed + 10_000, seed + 10_016))
    t0 = time.process_time()
    play(range(seed, seed + hands))
    return hands / (time.process_time() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("rulesets", nargs="*", default=list(RULESETS))
    ap.add_argument("-n", "--hands", type=int, default=150)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--silent", action="store_true", help="Game.play() with no event sink")
    args = ap.parse_args()
    rate = silent_rate if args.silent else sim_rate
    how = "Game.play(), no sink" if args.silent else "mj simulate (statistics sink, no log)"
    print(f"{how}: {args.hands} hands, seed {args.seed}, four greedy bots, CPU time")
    for rid in args.rulesets:
        r = rate(rid, args.hands, args.seed)
        print(f"{rid:<22} {r:8.1f} hands/s  {1e3 / r:6.2f} ms/hand  target {TARGET:,.0f}: {r / TARGET:.2f}x")


if __name__ == "__main__":
    main()
