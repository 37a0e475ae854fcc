"""Throughput of the learning-agent environment (mjframework.run.env) and the stepper.

    python benchmarks/bench_env.py            # 100 hands per ruleset, ~30 s of CPU
    python benchmarks/bench_env.py --hands 20 # a quick look

For every shipped ruleset a random masked agent plays whole hands through
``make_env`` (numpy observations and masks built every step); the figure is
env steps per CPU second of this process (``time.process_time``: the engine
and the agent run in one process, one core). For comparison, the same hands
stepped through the bare stepper (``Table``, no observation) with each
backend, and played by ``Game.play`` with the same random choices (no
stepper at all): decisions per CPU second. Needs numpy (the ``env`` extra).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np

from mjframework import load_ruleset
from mjframework.play.game import Game
from mjframework.play.players import Decision
from mjframework.play.stepper import Table
from mjframework.rules.loader import available_rulesets
from mjframework.run.env import make_env


class _Pick:
    """Uniform among the options (the stepper and Game.play make the same choices)."""

    def __init__(self, rng: random.Random, counter: list[int]) -> None:
        self.rng = rng
        self.counter = counter

    def decide(self, view: object, decision: Decision) -> object:
        self.counter[0] += 1
        return self.rng.choice(decision.options)


def env_steps(rid: str, hands: int, seed: int) -> tuple[int, float]:
    env = make_env(rid, seed=seed)
    rng = np.random.default_rng(seed)
    steps = 0
    t0 = time.process_time()
    for _ in range(hands):
        obs, _info = env.reset()
        done = False
        while not done:
            obs, _r, done, _info = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            steps += 1
    return steps, time.process_time() - t0


def table_steps(rs: object, hands: int, seed: int, backend: str) -> tuple[int, float]:
    steps = 0
    t0 = time.process_time()
    for h in range(hands):
        rng = random.Random(h)
        table = Table(rs, seed=seed + h, backend=backend)
        pending = table.reset()
        while isinstance(pending, Decision):
            pending = table.step(rng.choice(pending.options))
            steps += 1
    return steps, time.process_time() - t0


def game_steps(rs: object, hands: int, seed: int) -> tuple[int, float]:
    counter = [0]
    t0 = time.process_time()
    for h in range(hands):
        rng = random.Random(h)
        Game(rs, [_Pick(rng, counter) for _ in range(rs.players)], seed=seed + h).play()  # type: ignore[attr-defined]
    return counter[0], time.process_time() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hands", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    print(f"{'ruleset':<24}{'env steps/s':>13}{'table/greenlet':>16}{'table/thread':>14}{'Game.play':>11}"
          "   (steps or decisions per CPU second)")
    for rid in sorted(available_rulesets()):
        rs = load_ruleset(rid)
        e = env_steps(rid, args.hands, args.seed)
        g = table_steps(rs, args.hands, args.seed, "greenlet")
        t = table_steps(rs, args.hands, args.seed, "thread")
        p = game_steps(rs, args.hands, args.seed)
        print(f"{rid:<24}{e[0] / e[1]:>13.0f}{g[0] / g[1]:>16.0f}{t[0] / t[1]:>14.0f}{p[0] / p[1]:>11.0f}")


if __name__ == "__main__":
    main()
