"""Throughput of the learning-agent environments against the bare game, interleaved.

    python benchmarks/bench_env.py                       # every shipped ruleset, 5 rounds
    python benchmarks/bench_env.py --rulesets changsha --rounds 3 --hands 20   # a quick look

For each ruleset, each *round* runs, one after the other on the same process:

- ``game``: ``Game.play`` with players picking uniformly among the offered options (the
  bare engine: no stepper, no observation) — decisions per CPU second;
- ``table``: the same through the stepper (``mjframework.play.stepper.Table``, greenlet);
- ``env``: one :class:`~mjframework.run.env.MahjongEnv`, a random masked agent
  (observation and mask built every step) — steps per CPU second;
- ``vec N``: :class:`~mjframework.run.envs.vector.VectorMahjongEnv` of N tables, the
  batch's actions drawn at once from the batched masks — steps (one per table) per CPU
  second.

Every line plays about ``--hands`` hands per round and shares one evaluator (as long
runs do). Time is ``time.process_time`` of this process (other work on the machine does
not count, but a loaded machine still slows caches and frequency: compare lines of one
run, not runs). The rounds alternate the lines, so a slow patch of the machine hits all
of them; each line reports the min–max of its per-round rates and the median of its
per-round ratio to ``game``. Needs numpy (the ``env`` extra).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np

from mjframework.play.game import Game
from mjframework.play.players import Decision
from mjframework.play.stepper import Table
from mjframework.rules.loader import available_rulesets
from mjframework.run.env import MahjongEnv
from mjframework.run.envs.vector import VectorMahjongEnv
from mjframework.run.simulate import load_cached


class _Pick:
    """Uniform among the options."""

    def __init__(self, rng: random.Random, counter: list[int]) -> None:
        self.rng = rng
        self.counter = counter

    def decide(self, view: object, decision: Decision) -> object:
        self.counter[0] += 1
        return self.rng.choice(decision.options)


def game_line(rs: object, ev: object, hands: int, seed: int) -> tuple[int, float]:
    counter = [0]
    t0 = time.process_time()
    for h in range(hands):
        rng = random.Random(seed + h)
        Game(rs, [_Pick(rng, counter) for _ in range(rs.players)],  # type: ignore[attr-defined]
             seed=seed + h, evaluator=ev).play()
    return counter[0], time.process_time() - t0


def table_line(rs: object, ev: object, hands: int, seed: int) -> tuple[int, float]:
    steps = 0
    t0 = time.process_time()
    for h in range(hands):
        rng = random.Random(seed + h)
        table = Table(rs, seed=seed + h, evaluator=ev, backend="greenlet")
        pending = table.reset()
        while isinstance(pending, Decision):
            pending = table.step(rng.choice(pending.options))
            steps += 1
    return steps, time.process_time() - t0


def env_line(rs: object, ev: object, hands: int, seed: int) -> tuple[int, float]:
    env = MahjongEnv(rs, seed=seed, evaluator=ev)
    rng = random.Random(seed)
    steps = 0
    t0 = time.process_time()
    for _ in range(hands):
        obs, _info = env.reset()
        done = False
        while not done:
            legal = np.flatnonzero(obs["action_mask"])
            obs, _r, done, _t, _info = env.step(int(legal[rng.randrange(len(legal))]))
            steps += 1
    return steps, time.process_time() - t0


def vec_line(n: int) -> Callable[[object, object, int, int], tuple[int, float]]:
    def run(rs: object, ev: object, hands: int, seed: int) -> tuple[int, float]:
        venv = VectorMahjongEnv(rs, n, seed=seed, copy=False)
        rng = np.random.default_rng(seed)
        steps = 0
        t0 = time.process_time()
        _obs, masks, _info = venv.reset()
        while venv.hands_played < hands:
            actions = np.argmax(rng.random(masks.shape, dtype=np.float32) * masks, axis=1)
            _obs, masks, _r, _term, _trunc, _info = venv.step(actions)
            steps += n
        return steps, time.process_time() - t0

    return run


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rulesets", default="", help="comma-separated ids (default: every shipped ruleset)")
    ap.add_argument("--hands", type=int, default=40, help="hands per line per round")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--batch", default="16,64", help="vector env sizes")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rids = [r for r in args.rulesets.split(",") if r] or sorted(available_rulesets())
    lines: dict[str, Callable[[object, object, int, int], tuple[int, float]]] = {
        "game": game_line, "table": table_line, "env": env_line}
    for n in (int(x) for x in args.batch.split(",") if x):
        lines[f"vec {n}"] = vec_line(n)
    print(f"{'ruleset':<20}{'line':<9}{'steps/CPU-s (min–max over rounds)':>36}"
          f"{'× game (median, min–max)':>30}")
    for rid in rids:
        rs, ev = load_cached(rid)
        rates: dict[str, list[float]] = {k: [] for k in lines}
        for r in range(args.rounds):
            seed = args.seed + 1000 * r
            for name, fn in lines.items():
                steps, secs = fn(rs, ev, args.hands, seed)
                rates[name].append(steps / secs)
        for name in lines:
            rr = rates[name]
            ratios = [a / b for a, b in zip(rr, rates["game"], strict=True)]
            print(f"{rid:<20}{name:<9}{statistics.median(rr):>14,.0f} ({min(rr):,.0f}–{max(rr):,.0f})"
                  f"{statistics.median(ratios):>16.2f} ({min(ratios):.2f}–{max(ratios):.2f})")


if __name__ == "__main__":
    main()
