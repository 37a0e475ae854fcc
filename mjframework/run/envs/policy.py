"""A small supervised baseline in numpy: an MLP that imitates the bots of a dataset, and plays.

::

    mj dataset RULESET-ID -o data/RULESET-ID -n 400               # the greedy bots' decisions
    python -m mjframework.run.envs.policy data/RULESET-ID -o policy.npz
    mj match RULESET-ID --seats policy.npz,random,random,random --hands 400 --duplicate

The network is one hidden layer (ReLU) from the standardised observation to a logit per
action; illegal actions are masked out of the softmax, and the loss is the cross-entropy of
the bots' actions (behaviour cloning). Training is plain mini-batch Adam in numpy: no
PyTorch needed, a few minutes of one core for a few hundred hands' decisions.

:class:`PolicyBot` is a player (``decide(view, decision)``) that encodes the table as its
seat sees it and takes the most likely legal action; an exchange is picked tile by tile.
``mj match`` seats it by the path of its ``.npz`` file. A model file holds arrays only
(``np.load(…, allow_pickle=False)``): loading one runs no code.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ...core.errors import MJError
from ...core.fileio import atomic_writer
from ...play.players import Decision, Option, TableView
from .encoding import ACTION_N, EXCHANGE, LAY_KONG, OBS_SIZE, ActionCodec, HandEncoder, pickable

FORMAT = "mjframework-policy/1"


class PolicyError(MJError):
    """A model file that can't be used (not a policy, another encoding's size)."""


def _with_lay_kong(path: Any, arrays: dict[str, Any], meta: dict[str, Any]) -> tuple[dict[str, Any],
                                                                                     dict[str, Any]]:
    """A policy of the 417-action layout (before the ``lay_kong:<t>`` slots, which came last:
    every earlier index means the same) given those slots: zero weights and a bias of −10⁹,
    so it takes one only when nothing else is legal (no shipped ruleset offers it)."""
    w2, b2 = np.asarray(arrays["W2"]), np.asarray(arrays["b2"])
    if w2.ndim != 2 or w2.shape[1] != LAY_KONG or b2.shape != (LAY_KONG,):
        raise PolicyError(f"{path}: W2 {w2.shape} and b2 {b2.shape} do not fit {LAY_KONG} actions")
    extra = ACTION_N - LAY_KONG
    arrays = {**arrays, "W2": np.pad(w2, ((0, 0), (0, extra))),
              "b2": np.concatenate([b2, np.full(extra, -1e9, dtype=b2.dtype)])}
    return arrays, {**meta, "action_size": ACTION_N}


class MLPPolicy:
    """``obs → ReLU(W1·z + b1) → W2·h + b2``, ``z`` the observation standardised by ``mean``/``std``."""

    def __init__(self, params: dict[str, np.ndarray], meta: dict[str, Any] | None = None) -> None:
        self.p = {k: np.asarray(v, dtype=np.float32) for k, v in params.items()}
        self.meta = dict(meta or {})

    @classmethod
    def init(cls, hidden: int, rng: np.random.Generator, mean: np.ndarray, std: np.ndarray) -> MLPPolicy:
        return cls({
            "mean": mean, "std": std,
            "W1": rng.normal(0, np.sqrt(2 / OBS_SIZE), (OBS_SIZE, hidden)), "b1": np.zeros(hidden),
            "W2": rng.normal(0, np.sqrt(1 / hidden), (hidden, ACTION_N)), "b2": np.zeros(ACTION_N)})

    def logits(self, obs: np.ndarray) -> np.ndarray:
        p = self.p
        h = np.maximum((obs - p["mean"]) / p["std"] @ p["W1"] + p["b1"], 0)
        return np.asarray(h @ p["W2"] + p["b2"])

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The most likely legal action of each row (``obs`` (B, 562), ``mask`` (B, 451))."""
        z = np.where(mask.astype(bool), self.logits(obs), -np.inf)
        return np.asarray(np.argmax(z, axis=-1))

    def save(self, path: str | Path) -> None:
        meta = {"format": FORMAT, "observation_size": OBS_SIZE, "action_size": ACTION_N, **self.meta}
        with atomic_writer(path, binary=True) as f:
            arrays: dict[str, Any] = {"meta": np.array(json.dumps(meta)), **self.p}
            np.savez_compressed(f, **arrays)

    @classmethod
    def load(cls, path: str | Path) -> MLPPolicy:
        try:
            with np.load(path, allow_pickle=False) as z:
                arrays = {k: z[k] for k in z.files}
        except (OSError, ValueError) as e:
            raise PolicyError(f"{path}: not a policy file ({e})") from None
        try:
            meta = json.loads(str(arrays.pop("meta")))
        except (KeyError, ValueError):
            raise PolicyError(f"{path}: not a policy file (no meta)") from None
        before = meta.get("action_size") == LAY_KONG  # the layout before the lay_kong:<t> slots
        if meta.get("format") != FORMAT or meta.get("observation_size") != OBS_SIZE \
                or not (before or meta.get("action_size") == ACTION_N):
            raise PolicyError(f"{path}: a {meta.get('format')} model for {meta.get('observation_size')} "
                              f"observations and {meta.get('action_size')} actions; this is {FORMAT} "
                              f"with {OBS_SIZE} and {ACTION_N}")
        missing = {"mean", "std", "W1", "b1", "W2", "b2"} - set(arrays)
        if missing:
            raise PolicyError(f"{path}: missing arrays {sorted(missing)}")
        if before:
            arrays, meta = _with_lay_kong(path, arrays, meta)
        return cls(arrays, {k: v for k, v in meta.items() if k not in ("format",)})


def train(obs: np.ndarray, mask: np.ndarray, action: np.ndarray, *, hidden: int = 256, epochs: int = 10,
          batch: int = 256, lr: float = 1e-3, weight_decay: float = 1e-4, seed: int = 0,
          holdout: float = 0.1,
          log: Callable[[str], None] | None = None) -> tuple[MLPPolicy, dict[str, float]]:
    """Behaviour cloning with masked softmax cross-entropy and Adam (decoupled weight decay);
    returns the policy and its accuracy on the training rows and on a held-out ``holdout``
    share of them (the last rows: whole hands the training never saw)."""
    rng = np.random.default_rng(seed)
    n = len(action)
    cut = int(n * (1 - holdout)) if n > 10 else n
    tr, te = np.arange(cut), np.arange(cut, n)
    mean = obs[tr].mean(axis=0)
    std = obs[tr].std(axis=0) + 1e-3
    pol = MLPPolicy.init(hidden, rng, mean, std)
    p = pol.p
    names = ("W1", "b1", "W2", "b2")
    m = {k: np.zeros_like(p[k]) for k in names}
    v = {k: np.zeros_like(p[k]) for k in names}
    step = 0
    neg = np.float32(-1e9)
    for epoch in range(epochs):
        rng.shuffle(tr)
        total = 0.0
        for i in range(0, len(tr), batch):
            idx = tr[i:i + batch]
            x = (obs[idx] - p["mean"]) / p["std"]
            a1 = x @ p["W1"] + p["b1"]
            h = np.maximum(a1, 0)
            z = h @ p["W2"] + p["b2"]
            z = np.where(mask[idx].astype(bool), z, neg)
            z -= z.max(axis=1, keepdims=True)
            e = np.exp(z)
            prob = e / e.sum(axis=1, keepdims=True)
            rows = np.arange(len(idx))
            total += float(-np.log(prob[rows, action[idx]] + 1e-12).sum())
            dz = prob
            dz[rows, action[idx]] -= 1
            dz /= len(idx)
            grads = {"W2": h.T @ dz, "b2": dz.sum(axis=0)}
            dh = (dz @ p["W2"].T) * (a1 > 0)
            grads["W1"] = x.T @ dh
            grads["b1"] = dh.sum(axis=0)
            step += 1
            for k in names:
                m[k] = 0.9 * m[k] + 0.1 * grads[k]
                v[k] = 0.999 * v[k] + 0.001 * grads[k] ** 2
                mh = m[k] / (1 - 0.9 ** step)
                vh = v[k] / (1 - 0.999 ** step)
                p[k] -= (lr * (mh / (np.sqrt(vh) + 1e-8) + weight_decay * p[k])).astype(np.float32)
        if log:
            log(f"epoch {epoch + 1}/{epochs}: loss {total / max(len(tr), 1):.4f}")
    acc = {"train_accuracy": accuracy(pol, obs[tr], mask[tr], action[tr]),
           "holdout_accuracy": accuracy(pol, obs[te], mask[te], action[te]) if len(te) else float("nan"),
           "rows": float(n)}
    pol.meta.update(hidden=hidden, epochs=epochs, **acc)
    return pol, acc


def accuracy(pol: MLPPolicy, obs: np.ndarray, mask: np.ndarray, action: np.ndarray) -> float:
    if not len(action):
        return float("nan")
    return float((pol.act(obs, mask) == action).mean())


class PolicyBot:
    """A player driven by an :class:`MLPPolicy` (see the module doc).

    It reads the table through the game it sits at — :meth:`attach` it before the hand —
    and only through :class:`~.encoding.HandEncoder`, which shows a seat only what it may see.
    """

    def __init__(self, policy: MLPPolicy) -> None:
        self.policy = policy
        self.game: Any = None
        self._codecs: dict[str, ActionCodec] = {}
        self._encoder: HandEncoder | None = None  # the attached game's (made again for each hand)

    def attach(self, game: Any) -> None:
        self.game = game

    def _codec(self) -> ActionCodec:
        rs = self.game.ruleset
        if rs.id not in self._codecs:
            self._codecs[rs.id] = ActionCodec(rs)
        return self._codecs[rs.id]

    def decide(self, view: TableView, decision: Decision) -> Option:
        if self.game is None:
            raise PolicyError("a PolicyBot must be attached to its game before it plays")
        seat = decision.seat
        if decision.options and all(o.kind == "exchange" for o in decision.options):
            picks: list[int] = []
            size = len(decision.options[0].tiles)
            while len(picks) < size:
                legal = pickable(decision.options, picks)
                a = self._choose(seat, decision, picks, legal)
                picks.append(a - EXCHANGE)
            want = sorted(picks)
            return next(o for o in decision.options if sorted(o.tiles) == want)
        legal_map = self._codec().legal(decision)
        return legal_map[self._choose(seat, decision, (), list(legal_map))]

    def _choose(self, seat: int, decision: Decision, picks: Any, legal: list[int]) -> int:
        enc = self._encoder
        if enc is None or enc.game is not self.game:
            enc = self._encoder = HandEncoder(self.game)
        obs = enc.encode(seat, decision, picks)
        mask = np.zeros(ACTION_N, dtype=np.int8)
        mask[legal] = 1
        return int(self.policy.act(obs[None, :], mask[None, :])[0])


class PolicySeat(PolicyBot):
    """A trained policy seated where external programs sit (``mj play --bot FILE.npz``, the
    browser's rooms): it has their seat interface — ``name``, ``sit``, an event sink,
    ``close`` — and plays as :class:`PolicyBot` does. It hears no events: it reads the table
    through the game it is attached to, as its seat may see it."""

    def __init__(self, policy: MLPPolicy, name: str) -> None:
        super().__init__(policy)
        self.name = name
        self.seat: int | None = None
        self.gone: str | None = None  # never leaves on its own (the external bots' attribute)

    def sit(self, seat: int) -> None:
        self.seat = seat

    def __call__(self, event: dict[str, Any]) -> None:
        """Events are not needed: the policy reads its game (see the class doc)."""

    def close(self) -> None:
        """Nothing to stop (an external program's seat ends its process here)."""


def load_rows(directory: str | Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(obs, mask, action)`` of every shard of a dataset directory (``mj dataset``)."""
    from .dataset import load_shard

    shards = sorted(Path(directory).glob("shard-*.npz"))
    if not shards:
        raise PolicyError(f"{directory}: no shard-*.npz (write one with mj dataset)")
    parts = [load_shard(p) for p in shards]
    return (np.concatenate([d["obs"] for d in parts]), np.concatenate([d["mask"] for d in parts]),
            np.concatenate([d["action"] for d in parts]).astype(np.int64))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m mjframework.run.envs.policy",
                                 description="Train the numpy MLP baseline on a dataset (mj dataset).")
    ap.add_argument("dataset", help="a dataset directory written by mj dataset")
    ap.add_argument("-o", "--out", required=True, help="the model file to write (.npz)")
    ap.add_argument("--hidden", type=int, default=256)
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    try:
        obs, mask, action = load_rows(args.dataset)
        pol, acc = train(obs, mask, action, hidden=args.hidden, epochs=args.epochs, seed=args.seed,
                         log=lambda s: print(s, file=sys.stderr))
        meta_path = Path(args.dataset) / "dataset.json"
        if meta_path.exists():
            pol.meta["trained_on"] = json.loads(meta_path.read_text(encoding="utf-8")).get("ruleset")
        pol.save(args.out)
    except MJError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"error: {e.filename or args.out}: {e.strerror or e}", file=sys.stderr)
        return 1
    print(f"{args.out}: {int(acc['rows'])} decisions, accuracy {acc['train_accuracy']:.3f} (train), "
          f"{acc['holdout_accuracy']:.3f} (held out)")
    return 0


__all__ = ["MLPPolicy", "PolicyBot", "PolicyError", "PolicySeat", "accuracy", "load_rows", "main", "train"]


if __name__ == "__main__":
    sys.exit(main())

