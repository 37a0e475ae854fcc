"""N tables stepped together in one process, with batched observations and masks.

::

    from mjframework.run.envs.vector import VectorMahjongEnv
    venv = VectorMahjongEnv("RULESET-ID", num_envs=64, seed=1)
    obs, masks, info = venv.reset()           # (64, 562) float32, (64, 451) int8
    for _ in range(1000):
        actions = policy(obs, masks)          # (64,) integers, each legal for its table
        obs, masks, rewards, terminated, truncated, info = venv.step(actions)

Each table is a :class:`~mjframework.run.env.MahjongEnv` (the same rules for actions
and seeds); row ``i`` is table ``i``'s acting seat (``info["seat"][i]``). When a table's
hand ends its ``rewards[i]`` row holds every seat's money (padded to 4 seats with zeros),
``terminated[i]`` is True, ``info["final"][i]`` tells the hand's result and the table has
already started its next hand: row ``i`` of ``obs`` and ``masks`` is that hand's first
decision (Gymnasium's "same-step" autoreset). Table ``i``'s ``k``-th hand is seeded
``seed + k·N + i``: every hand of a run is distinct and the run is reproducible.

The batch is written into arrays made once; :meth:`step` returns copies unless
``copy=False`` (then the arrays are overwritten by the next step). The tables share one
ruleset and one evaluator. This is one process: for more cores run several, each with its
own seed range.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...play.actions import EnvError
from ..env import MahjongEnv, check_seed
from .encoding import ACTION_N, COUNT_PLANES, MAX_SEATS, OBS_SIZE


class VectorMahjongEnv:
    """``num_envs`` tables of one ruleset (see the module doc)."""

    def __init__(self, ruleset: Any, num_envs: int, seed: int | None = None,
                 options: dict[str, Any] | None = None, copy: bool = True, *, offset: int = 0,
                 stride: int | None = None) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise EnvError(f"num_envs: a positive integer, got {num_envs!r}")
        opts = dict(options or {})
        if opts.get("illegal", "raise") != "raise" or opts.get("events"):
            raise EnvError("the vector env raises on illegal actions and keeps no event streams")
        first = MahjongEnv(ruleset, options=opts)
        self.envs = [first] + [MahjongEnv(first.ruleset, options=opts, evaluator=first.evaluator)
                               for _ in range(num_envs - 1)]
        self.num_envs = num_envs
        self.players = first.players
        self.ruleset = first.ruleset
        self.copy = copy
        self.seed = check_seed(seed) or 0
        # Tables offset … offset+num_envs-1 of a run of ``stride`` tables (mjframework.run.envs.workers
        # splits one run over processes): table i's k-th hand is seeded seed + k·stride + offset + i.
        self.offset = offset
        self.stride = num_envs if stride is None else stride
        self._hands = 0
        self._obs = np.zeros((num_envs, OBS_SIZE), dtype=np.float32)
        self._masks = np.zeros((num_envs, ACTION_N), dtype=np.int8)
        self._seats = np.zeros(num_envs, dtype=np.int64)
        self._counts = [0] * num_envs

    def _start(self, i: int) -> None:
        """Table ``i``'s next hand (its row is written by :meth:`_write_all`)."""
        env = self.envs[i]
        k = self._counts[i]
        self._counts[i] = k + 1
        env._begin(self.seed + k * self.stride + self.offset + i)

    def _write_all(self) -> None:
        """Every table's acting seat's observation and mask into the batch arrays.

        Each table's encoding comes in parts (:meth:`~.encoding.HandEncoder.parts`: the float
        entries, the count planes as bytes; the mask as bytes): the parts of all tables are
        joined and converted by numpy once per kind, not three numpy calls per table."""
        floats: list[Any] = []
        planes: list[bytes] = []
        masks: list[bytearray] = []
        seats: list[int] = []
        for env in self.envs:
            d = env.decision
            assert d is not None
            assert env._encoder is not None
            buf, counts = env._encoder.parts(d.seat, d, env._picks)
            floats.append(buf)
            planes.append(counts)
            masks.append(env.mask_bytes(d.seat))
            seats.append(d.seat)
        n = self.num_envs
        obs = self._obs
        obs[:] = np.frombuffer(b"".join(floats), dtype=np.float32).reshape(n, OBS_SIZE)
        obs[:, :COUNT_PLANES] = np.frombuffer(b"".join(planes), dtype=np.uint8).reshape(n, COUNT_PLANES)
        self._masks[:] = np.frombuffer(b"".join(masks), dtype=np.int8).reshape(n, ACTION_N)
        self._seats[:] = seats

    def reset(self, seed: int | None = None) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
        """Start a hand on every table (``seed`` restarts the seed sequence)."""
        s = check_seed(seed)
        if s is not None:
            self.seed = s
        self._counts = [0] * self.num_envs
        for i in range(self.num_envs):
            self._start(i)
        self._write_all()
        return self._pack(), self._pack_masks(), {"seat": self._seats.copy()}

    def _pack(self) -> np.ndarray:
        return self._obs.copy() if self.copy else self._obs

    def _pack_masks(self) -> np.ndarray:
        return self._masks.copy() if self.copy else self._masks

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                          dict[str, Any]]:
        """Each table's acting seat takes its action; see the module doc for what comes back.

        Every action is checked before any table moves: one illegal action raises
        :class:`EnvError` and changes nothing."""
        a = np.asarray(actions)
        if a.shape != (self.num_envs,) or a.dtype.kind not in "iu":
            raise EnvError(f"actions: {self.num_envs} integers, got shape {a.shape} of {a.dtype}")
        acts = a.tolist()  # Python integers, converted once
        bad = [i for i, env in enumerate(self.envs) if not env.is_legal(acts[i])]
        if bad:  # checked before any table moves: a refused batch changes nothing
            i = bad[0]
            raise EnvError(f"table {i}: {self.envs[i]._illegal(acts[i])}"
                           + (f" (and {len(bad) - 1} more tables)" if len(bad) > 1 else ""))
        rewards = np.zeros((self.num_envs, MAX_SEATS), dtype=np.float32)
        terminated = np.zeros(self.num_envs, dtype=bool)
        final: list[dict[str, Any] | None] = [None] * self.num_envs
        for i, env in enumerate(self.envs):
            env._take(acts[i])
            if env.result is not None:
                r = env.result
                rewards[i, :self.players] = r.payments
                terminated[i] = True
                final[i] = {"result": r.result, "winners": list(r.winners), "payments": list(r.payments)}
                self._hands += 1
                self._start(i)
        self._write_all()
        info = {"seat": self._seats.copy(), "final": final}
        truncated = np.zeros(self.num_envs, dtype=bool)
        return self._pack(), self._pack_masks(), rewards, terminated, truncated, info

    @property
    def hands_played(self) -> int:
        return self._hands

    def close(self) -> None:
        for env in self.envs:
            env.close()


__all__ = ["VectorMahjongEnv"]
