#!/usr/bin/env python3
"""A random masked agent through mjframework.run.env — the skeleton of a training loop.

    pip install 'mjframework[env]'
    python examples/train_random.py changsha --hands 50 --seed 1

Each step: read the acting seat's observation (a float32 vector, layout in
docs/agents.md) and action mask, pick a legal action (here uniformly; a
learning agent would use a policy network), step. At the hand's end every
seat's reward is its settlement money. Prints the mean reward per seat and
the steps per second; ``--aec`` uses PettingZoo's AEC form (mjframework.run.envs.pz) instead.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from mjframework.run.env import make_aec_env, make_env


def run_env(ruleset: str, hands: int, seed: int) -> tuple[np.ndarray, int]:
    env = make_env(ruleset, seed=seed, options={"dealer": "random"})
    rng = np.random.default_rng(seed)
    totals = np.zeros(env.players)
    steps = 0
    for _ in range(hands):
        obs, _info = env.reset()
        done = False
        while not done:
            legal = np.flatnonzero(obs["action_mask"])
            action = int(rng.choice(legal))  # ← a policy(obs["observation"], obs["action_mask"]) goes here
            obs, rewards, done, _truncated, _info = env.step(action)
            steps += 1
        totals += rewards
    env.close()
    return totals / hands, steps


def run_aec(ruleset: str, hands: int, seed: int) -> tuple[np.ndarray, int]:
    aec = make_aec_env(ruleset, seed=seed)
    rng = np.random.default_rng(seed)
    totals = np.zeros(len(aec.possible_agents))
    steps = 0
    for h in range(hands):
        aec.reset(seed=seed + h)
        while aec.agents:
            obs, reward, term, trunc, _info = aec.last()
            if term or trunc:
                totals[aec.possible_agents.index(aec.agent_selection)] += reward
                aec.step(None)
                continue
            aec.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            steps += 1
    aec.close()
    return totals / hands, steps


def main() -> None:
    ap = argparse.ArgumentParser(description="A random masked agent playing through mjframework.run.env.")
    ap.add_argument("ruleset", nargs="?", default="sichuan-xuezhan")
    ap.add_argument("--hands", type=int, default=50)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--aec", action="store_true", help="use the multi-agent AEC form")
    args = ap.parse_args()
    t0 = time.process_time()
    mean, steps = (run_aec if args.aec else run_env)(args.ruleset, args.hands, args.seed)
    cpu = time.process_time() - t0
    print(f"{args.ruleset}: {args.hands} hands, {steps} steps, {steps / cpu:.0f} steps per CPU second")
    print("mean reward per seat: " + "  ".join(f"seat {i}: {m:+.2f}" for i, m in enumerate(mean)))


if __name__ == "__main__":
    main()
