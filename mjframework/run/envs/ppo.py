"""A PPO baseline in PyTorch (the ``train`` extra): one seat learns against bots, and the
result is exported to the numpy policy format, so playing it needs no PyTorch.

::

    python -m mjframework.run.envs.ppo RULESET-ID -o ppo.npz --opponents greedy,random \\
        --init bc.npz --updates 60               # resumable: run it again to go on
    mj match RULESET-ID --seats ppo.npz,random,random,random --hands 400 --duplicate

The agent is an actor-critic: the actor is exactly :class:`~.policy.MLPPolicy`'s network
(the standardised observation, one ReLU layer, a logit per action of the 451, illegal
actions masked out of the softmax), so a supervised policy (``--init``, written by
``python -m mjframework.run.envs.policy``) is a starting point and a trained actor is
written back as that policy's ``.npz``; the critic is a separate one-hidden-layer network
(a value head on the actor's layer would let the value loss move a pretrained actor).

Each update plays ``--steps`` of the agent's decisions on each of ``--envs`` tables
(:class:`~.gym.MahjongGymEnv`, the agent at seat ``hand seed % players``, table ``i``'s
opponents the ``i``-th of ``--opponents``, cycled), then runs PPO's clipped objective for
``--epochs`` passes over minibatches: advantages by GAE (γ = 1 by default: a hand is
short and its money is all that counts), normalised per batch; value loss; an entropy
bonus. The reward is the agent's money at the hand's end divided by ``--reward-scale``.

**Resumable**: the run's state (networks, optimiser, counters, random states, its
settings) is written atomically to ``OUT`` with ``.pt`` for ``.npz`` every
``--save-every`` updates, on Ctrl-C and at the end; the same command again goes on from
there up to ``--updates`` in all (a checkpoint of other settings is refused; ``--fresh``
starts over). Hands in progress when it stopped are not resumed: new hands are dealt.
The CPU time of the whole run (all sessions) is kept in the checkpoint and printed.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections import deque
from pathlib import Path
from typing import Any

import numpy as np

try:
    import torch
    from torch import nn
except ImportError as e:  # pragma: no cover - the train extra
    _NEEDS = "mjframework.run.envs.ppo needs PyTorch: pip install 'mjframework[train]'"
    if __name__ == "__main__":  # the command line: a message, not a traceback
        print(f"error: {_NEEDS} ({e})", file=sys.stderr)
        sys.exit(1)
    raise ImportError(_NEEDS) from e

from ...core.errors import MJError
from ...core.fileio import atomic_writer
from .encoding import ACTION_N, OBS_SIZE
from .policy import MLPPolicy, PolicyError

CHECKPOINT_FORMAT = "mjframework-ppo/1"
#: Settings that must match to resume a run (the others may change between sessions).
FIXED = ("ruleset", "hidden", "critic_hidden", "envs", "opponents", "seed", "init")


class TrainError(MJError):
    """A training run that can't start or go on (a checkpoint of other settings, a bad option)."""


class ActorCritic(nn.Module):
    """The actor (:class:`MLPPolicy`'s network) and a separate critic, over one standardisation."""

    mean: torch.Tensor  # buffers (saved with the model, not trained)
    std: torch.Tensor

    def __init__(self, hidden: int, critic_hidden: int, mean: np.ndarray, std: np.ndarray) -> None:
        super().__init__()
        self.register_buffer("mean", torch.as_tensor(mean, dtype=torch.float32))
        self.register_buffer("std", torch.as_tensor(std, dtype=torch.float32))
        self.l1 = nn.Linear(OBS_SIZE, hidden)
        self.pi = nn.Linear(hidden, ACTION_N)
        self.v1 = nn.Linear(OBS_SIZE, critic_hidden)
        self.v = nn.Linear(critic_hidden, 1)
        for layer, gain in ((self.l1, math.sqrt(2)), (self.pi, 0.01), (self.v1, math.sqrt(2)), (self.v, 1.0)):
            nn.init.orthogonal_(layer.weight, gain)
            nn.init.zeros_(layer.bias)

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Masked logits (illegal actions at −1e9) and values."""
        z = (obs - self.mean) / self.std
        logits = self.pi(torch.relu(self.l1(z)))
        logits = logits.masked_fill(~mask, -1e9)
        return logits, self.v(torch.relu(self.v1(z))).squeeze(-1)

    def load_actor(self, pol: MLPPolicy) -> None:
        """Start the actor from a numpy policy of the same width (and take its standardisation)."""
        p = pol.p
        if p["W1"].shape != (OBS_SIZE, self.l1.out_features):
            raise TrainError(f"--init: a policy with {p['W1'].shape[1]} hidden units; this run has "
                             f"{self.l1.out_features} (--hidden)")
        with torch.no_grad():
            self.mean.copy_(torch.as_tensor(p["mean"]))
            self.std.copy_(torch.as_tensor(p["std"]))
            self.l1.weight.copy_(torch.as_tensor(p["W1"].T))
            self.l1.bias.copy_(torch.as_tensor(p["b1"]))
            self.pi.weight.copy_(torch.as_tensor(p["W2"].T))
            self.pi.bias.copy_(torch.as_tensor(p["b2"]))

    def to_policy(self, meta: dict[str, Any]) -> MLPPolicy:
        """The actor as a numpy :class:`MLPPolicy` (what ``mj match`` and ``mj play --bot`` load)."""
        def a(t: torch.Tensor) -> np.ndarray:
            return np.asarray(t.detach().cpu().numpy(), dtype=np.float32)

        return MLPPolicy({"mean": a(self.mean), "std": a(self.std), "W1": a(self.l1.weight.T),
                          "b1": a(self.l1.bias), "W2": a(self.pi.weight.T), "b2": a(self.pi.bias)}, meta)


class SeatTables:
    """``n`` single-seat tables (Gymnasium form) whose hands are dealt from one seed counter.

    Hand ``k`` of the run (over every table) is seeded ``seed + k``; a hand that ends
    before the agent's first decision (a win at the deal) is skipped.
    """

    def __init__(self, ruleset: str, n: int, opponents: list[str], seed: int, dealt: int = 0) -> None:
        from .gym import MahjongGymEnv

        self.envs = [MahjongGymEnv(ruleset, seat="rotate", opponent=opponents[i % len(opponents)],
                                   options={"illegal": "raise", "dealer": "random"}) for i in range(n)]
        self.seed = seed
        self.dealt = dealt
        self.obs = np.zeros((n, OBS_SIZE), dtype=np.float32)
        self.mask = np.zeros((n, ACTION_N), dtype=bool)
        for i in range(n):
            self._deal(i)

    def _deal(self, i: int) -> None:
        env = self.envs[i]
        while True:
            obs, _info = env.reset(seed=self.seed + self.dealt)
            self.dealt += 1
            if not env.env.done:
                break
        self._write(i, obs)

    def _write(self, i: int, obs: dict[str, np.ndarray]) -> None:
        self.obs[i] = obs["observation"]
        self.mask[i] = obs["action_mask"].astype(bool)

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each table's agent acts; a finished hand is replaced by the next (its row: the new hand).
        Returns ``(reward, done)`` per table."""
        n = len(self.envs)
        reward = np.zeros(n, dtype=np.float32)
        done = np.zeros(n, dtype=bool)
        for i, env in enumerate(self.envs):
            obs, r, terminated, _trunc, _info = env.step(int(actions[i]))
            if terminated:
                reward[i], done[i] = r, True
                self._deal(i)
            else:
                self._write(i, obs)
        return reward, done

    def close(self) -> None:
        for env in self.envs:
            env.close()


def gae(rewards: np.ndarray, values: np.ndarray, dones: np.ndarray, last_value: np.ndarray,
        gamma: float, lam: float) -> tuple[np.ndarray, np.ndarray]:
    """Generalised advantage estimates and returns of a ``(T, N)`` rollout (``dones[t]``: the
    hand ended at step ``t``, so nothing after it flows back)."""
    T = len(rewards)
    adv = np.zeros_like(rewards)
    run = np.zeros_like(last_value)
    for t in reversed(range(T)):
        nxt = last_value if t == T - 1 else values[t + 1]
        live = 1.0 - dones[t]
        delta = rewards[t] + gamma * nxt * live - values[t]
        run = delta + gamma * lam * live * run
        adv[t] = run
    return adv, adv + values


def _defaults() -> dict[str, Any]:
    return {"hidden": 256, "critic_hidden": 128, "envs": 16, "steps": 64, "updates": 50, "epochs": 4,
            "minibatch": 256, "lr": 3e-4, "clip": 0.2, "gamma": 1.0, "lam": 0.95, "entropy": 0.01,
            "value_coef": 0.5, "max_grad_norm": 0.5, "reward_scale": 10.0, "opponents": "greedy,random",
            "seed": 0, "init": None, "save_every": 10, "threads": 1, "warmup": 4096}


def checkpoint_path(out: str | Path) -> Path:
    return Path(out).with_suffix(".pt")


def _stats_warmup(tables: SeatTables, rows: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Observation mean and spread from ``rows`` decisions of random legal play (no ``--init``)."""
    seen: list[np.ndarray] = []
    while len(seen) * len(tables.envs) < rows:
        seen.append(tables.obs.copy())
        actions = np.argmax(rng.random(tables.mask.shape) * tables.mask, axis=1)
        tables.step(actions)
    x = np.concatenate(seen)
    return x.mean(axis=0), x.std(axis=0) + 1e-3


def train(ruleset: str, out: str | Path, *, fresh: bool = False, log: Any = None,
          **settings: Any) -> dict[str, Any]:
    """Train (or go on training) and write ``out`` (the numpy policy) and its checkpoint; returns
    the run's summary (updates, hands, decisions, CPU seconds, the last window's mean reward)."""
    cfg = _defaults()
    unknown = set(settings) - set(cfg)
    if unknown:
        raise TrainError(f"unknown settings: {', '.join(sorted(unknown))}")
    cfg.update({k: v for k, v in settings.items() if v is not None})
    cfg["ruleset"] = ruleset
    say = log or (lambda s: None)
    for k in ("hidden", "critic_hidden", "envs", "steps", "updates", "epochs", "minibatch", "save_every",
              "threads", "warmup"):
        if not isinstance(cfg[k], int) or cfg[k] < 1:
            raise TrainError(f"--{k.replace('_', '-')}: a positive integer, got {cfg[k]!r}")
    opponents = [o.strip() for o in str(cfg["opponents"]).split(",") if o.strip()]
    if not opponents:
        raise TrainError("--opponents: at least one (greedy, random or a policy's .npz)")
    torch.set_num_threads(cfg["threads"])
    ckpt = checkpoint_path(out)
    state: dict[str, Any] | None = None
    if ckpt.exists() and not fresh:
        try:
            state = torch.load(ckpt, weights_only=True)
        except Exception as e:  # a damaged or foreign file: say so, don't guess
            raise TrainError(f"{ckpt}: not a training checkpoint ({e}); --fresh starts over") from None
        if not isinstance(state, dict) or state.get("format") != CHECKPOINT_FORMAT:
            raise TrainError(f"{ckpt}: not a {CHECKPOINT_FORMAT} checkpoint; --fresh starts over")
        diff = [k for k in FIXED if state["config"].get(k) != cfg.get(k)]
        if diff:
            k = diff[0]
            raise TrainError(f"{ckpt}: a run with {k}={state['config'].get(k)!r}, not {cfg.get(k)!r}; "
                             "give the same settings to go on, or --fresh to start over")
    cpu0 = time.process_time()
    cpu_before = float(state["cpu_seconds"]) if state else 0.0
    rng = np.random.default_rng(cfg["seed"])
    torch.manual_seed(cfg["seed"])
    init = MLPPolicy.load(cfg["init"]) if cfg["init"] and not state else None  # resuming: not needed
    tables = SeatTables(ruleset, cfg["envs"], opponents, cfg["seed"] * 1_000_003,
                        dealt=int(state["dealt"]) if state else 0)
    mean: np.ndarray
    std: np.ndarray
    try:
        if state:
            mean, std = np.zeros(OBS_SIZE), np.ones(OBS_SIZE)
        elif init is not None:
            mean, std = init.p["mean"], init.p["std"]
        else:
            mean, std = _stats_warmup(tables, cfg["warmup"], rng)
        model = ActorCritic(cfg["hidden"], cfg["critic_hidden"], mean, std)
        if init is not None and not state:
            model.load_actor(init)
        opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"], eps=1e-5)
        done_updates, hands, decisions = 0, 0, 0
        recent: deque[float] = deque(maxlen=500)
        if state:
            model.load_state_dict(state["model"])
            opt.load_state_dict(state["optimizer"])
            torch.set_rng_state(state["torch_rng"])
            rng.bit_generator.state = state["numpy_rng"]
            done_updates, hands, decisions = state["updates"], state["hands"], state["decisions"]
            recent.extend(state["recent"])
            say(f"resuming {ckpt} at update {done_updates} ({hands} hands, "
                f"{cpu_before:.0f} s of CPU so far)")
        for g in opt.param_groups:
            g["lr"] = cfg["lr"]

        def save() -> None:
            meta = {"trained_on": ruleset, "trainer": "ppo", "updates": done_updates, "hands": hands,
                    "decisions": decisions, "opponents": opponents,
                    "cpu_seconds": round(cpu_before + time.process_time() - cpu0, 1)}
            model.to_policy(meta).save(out)
            blob = {"format": CHECKPOINT_FORMAT, "config": {k: cfg[k] for k in (*FIXED, "steps", "lr")},
                    "model": model.state_dict(), "optimizer": opt.state_dict(),
                    "torch_rng": torch.get_rng_state(), "numpy_rng": rng.bit_generator.state,
                    "updates": done_updates, "hands": hands, "decisions": decisions,
                    "dealt": tables.dealt, "recent": list(recent),
                    "cpu_seconds": cpu_before + time.process_time() - cpu0}
            with atomic_writer(ckpt, binary=True) as f:
                torch.save(blob, f)

        N, T = cfg["envs"], cfg["steps"]
        try:
            while done_updates < cfg["updates"]:
                b_obs = np.zeros((T, N, OBS_SIZE), dtype=np.float32)
                b_mask = np.zeros((T, N, ACTION_N), dtype=bool)
                b_act = np.zeros((T, N), dtype=np.int64)
                b_logp = np.zeros((T, N), dtype=np.float32)
                b_val = np.zeros((T, N), dtype=np.float32)
                b_rew = np.zeros((T, N), dtype=np.float32)
                b_done = np.zeros((T, N), dtype=np.float32)
                for t in range(T):
                    b_obs[t], b_mask[t] = tables.obs, tables.mask
                    with torch.no_grad():
                        logits, value = model(torch.from_numpy(b_obs[t]), torch.from_numpy(b_mask[t]))
                        dist = torch.distributions.Categorical(logits=logits)
                        a = dist.sample()
                        b_logp[t] = dist.log_prob(a).numpy()
                    b_act[t], b_val[t] = a.numpy(), value.numpy()
                    r, d = tables.step(b_act[t])
                    b_rew[t], b_done[t] = r / cfg["reward_scale"], d
                    for money in r[d]:
                        recent.append(float(money))
                    hands += int(d.sum())
                decisions += T * N
                with torch.no_grad():
                    _, last = model(torch.from_numpy(tables.obs), torch.from_numpy(tables.mask))
                adv, ret = gae(b_rew, b_val, b_done, last.numpy(), cfg["gamma"], cfg["lam"])
                stats = _ppo_update(model, opt, cfg, rng, b_obs.reshape(T * N, -1),
                                    b_mask.reshape(T * N, -1), b_act.reshape(-1), b_logp.reshape(-1),
                                    adv.reshape(-1), ret.reshape(-1))
                done_updates += 1
                cpu = cpu_before + time.process_time() - cpu0
                won = np.mean([m > 0 for m in recent]) if recent else 0.0
                money = (f"money/hand {np.mean(recent):+.2f}, won money in {won:.3f} (last {len(recent)})"
                         if recent else "no hand finished yet")
                say(f"update {done_updates}/{cfg['updates']}: {hands} hands, {money}, "
                    f"entropy {stats['entropy']:.3f}, kl {stats['kl']:.4f}, CPU {cpu:.0f} s")
                if done_updates % cfg["save_every"] == 0:
                    save()
        except KeyboardInterrupt:
            save()
            say(f"interrupted: saved {ckpt} at update {done_updates}; run the same command to go on")
            raise
        save()
    finally:
        tables.close()
    return {"updates": done_updates, "hands": hands, "decisions": decisions,
            "cpu_seconds": cpu_before + time.process_time() - cpu0,
            "mean_money": float(np.mean(recent)) if recent else float("nan")}


def _ppo_update(model: ActorCritic, opt: torch.optim.Optimizer, cfg: dict[str, Any], rng: np.random.Generator,
                obs: np.ndarray, mask: np.ndarray, act: np.ndarray, logp: np.ndarray, adv: np.ndarray,
                ret: np.ndarray) -> dict[str, float]:
    """PPO's clipped surrogate, value loss and entropy bonus over ``cfg["epochs"]`` passes."""
    o, m, a = torch.from_numpy(obs), torch.from_numpy(mask), torch.from_numpy(act)
    old, r = torch.from_numpy(logp), torch.from_numpy(ret)
    advt = torch.from_numpy((adv - adv.mean()) / (adv.std() + 1e-8))
    n = len(act)
    ent = kl = 0.0
    for _ in range(cfg["epochs"]):
        order = rng.permutation(n)
        for i in range(0, n, cfg["minibatch"]):
            idx = torch.from_numpy(order[i:i + cfg["minibatch"]])
            logits, value = model(o[idx], m[idx])
            dist = torch.distributions.Categorical(logits=logits)
            new = dist.log_prob(a[idx])
            ratio = torch.exp(new - old[idx])
            surr = torch.min(ratio * advt[idx],
                             torch.clamp(ratio, 1 - cfg["clip"], 1 + cfg["clip"]) * advt[idx])
            entropy = dist.entropy().mean()
            value_loss = ((value - r[idx]) ** 2).mean()
            loss = -surr.mean() + cfg["value_coef"] * value_loss - cfg["entropy"] * entropy
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), cfg["max_grad_norm"])
            opt.step()
            ent = float(entropy.detach())
            kl = float((old[idx] - new).mean().detach())
    return {"entropy": ent, "kl": kl}


def summary_line(out: str, summary: dict[str, Any]) -> str:
    """What a finished run prints."""
    money = summary["mean_money"]
    line = (f"{out}: {summary['updates']} updates, {summary['hands']} hands, {summary['decisions']} "
            f"decisions, {summary['cpu_seconds']:.0f} s of CPU")
    return line if math.isnan(money) else f"{line}; money per hand over the last hands {money:+.2f}"


def main(argv: list[str] | None = None) -> int:
    d = _defaults()
    ap = argparse.ArgumentParser(prog="python -m mjframework.run.envs.ppo",
                                 description="Train a PPO agent on one seat of RULESET against bots; write a "
                                             "numpy policy (.npz) that mj match / mj play --bot seat.")
    ap.add_argument("ruleset", help="a ruleset id or path")
    ap.add_argument("-o", "--out", required=True, help="the policy file to write (.npz); its checkpoint is "
                                                       "the same path with .pt")
    ap.add_argument("--init", default=None,
                    help="start the actor from a supervised policy (.npz, the same --hidden)")
    ap.add_argument("--opponents", default=d["opponents"],
                    help="the bots at the other seats, cycled over the tables (greedy, random, a .npz)")
    ap.add_argument("--fresh", action="store_true", help="ignore an existing checkpoint and start over")
    for k in ("updates", "envs", "steps", "epochs", "minibatch", "hidden", "critic_hidden", "seed",
              "save_every", "threads", "warmup"):
        ap.add_argument(f"--{k.replace('_', '-')}", type=int, default=d[k])
    for k in ("lr", "clip", "gamma", "lam", "entropy", "value_coef", "max_grad_norm", "reward_scale"):
        ap.add_argument(f"--{k.replace('_', '-')}", type=float, default=d[k])
    args = ap.parse_args(argv)
    if not args.out.endswith(".npz"):
        print("error: --out: a .npz path (the policy file)", file=sys.stderr)
        return 2
    settings = {k: getattr(args, k) for k in d if k != "opponents"}
    settings["opponents"] = args.opponents
    try:
        summary = train(args.ruleset, args.out, fresh=args.fresh, log=lambda s: print(s, file=sys.stderr),
                        **settings)
    except KeyboardInterrupt:
        return 130
    except (MJError, PolicyError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"error: {e.filename or args.out}: {e.strerror or e}", file=sys.stderr)
        return 1
    print(summary_line(args.out, summary))
    return 0


__all__ = ["ActorCritic", "SeatTables", "TrainError", "checkpoint_path", "gae", "main", "summary_line",
           "train"]


if __name__ == "__main__":
    sys.exit(main())
