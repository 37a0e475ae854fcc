"""N tables stepped in ``workers`` subprocesses, talking over pipes (as Gymnasium's
``AsyncVectorEnv`` does), with the interface and the trajectories of the in-process
:class:`~.vector.VectorMahjongEnv`.

::

    from mjframework.run.envs.workers import WorkerVectorEnv
    venv = WorkerVectorEnv("RULESET-ID", num_envs=64, seed=1, workers=2)
    obs, masks, info = venv.reset()
    obs, masks, rewards, terminated, truncated, info = venv.step(actions)
    venv.close()                             # or: with WorkerVectorEnv(...) as venv:

The tables are split into ``workers`` contiguous blocks; each worker process runs a
:class:`~.vector.VectorMahjongEnv` of its block, told where the block sits in the run
(``offset``, ``stride``), so table ``i``'s ``k``-th hand is seeded ``seed + k·N + i`` exactly
as in one process: **the same seed and actions give the same arrays** whatever the number
of workers (``tests/test_env_workers.py``). A step sends each worker its slice of the
actions, then gathers the slices; the workers step at the same time.

Every action is checked against the masks the parent holds before any worker moves (an
illegal one raises :class:`~mjframework.play.actions.EnvError`, nothing changes). A worker
that fails or dies makes the call raise ``EnvError`` naming it; the environment is then
closed. Processes start with the ``spawn`` method by default (safe beside threads, e.g.
PyTorch's); ``context="fork"`` starts faster where fork is safe.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import traceback
from multiprocessing.connection import Connection
from typing import Any

import numpy as np

from ...play.actions import EnvError
from ..env import check_seed
from .encoding import ACTIONS


def _worker(conn: Connection, ruleset: Any, num_envs: int, first: int, stride: int, seed: int | None,
            options: dict[str, Any] | None) -> None:
    """A worker's loop: ``(command, argument)`` in, ``("ok", value)`` or ``("error", text)`` out."""
    from .vector import VectorMahjongEnv

    venv = None
    try:
        venv = VectorMahjongEnv(ruleset, num_envs, seed=seed, options=options, copy=False, offset=first,
                                stride=stride)
        conn.send(("ok", venv.players))
        while True:
            cmd, arg = conn.recv()
            if cmd == "reset":
                obs, masks, info = venv.reset(arg)
                conn.send(("ok", (obs, masks, info["seat"])))
            elif cmd == "step":
                obs, masks, rew, term, trunc, info = venv.step(arg)
                conn.send(("ok", (obs, masks, rew, term, trunc, info["seat"], info["final"])))
            elif cmd == "close":
                conn.send(("ok", None))
                break
    except (EOFError, KeyboardInterrupt, BrokenPipeError):  # the parent is gone or interrupted
        pass
    except Exception as e:
        with contextlib.suppress(BrokenPipeError, OSError):
            conn.send(("error", f"{type(e).__name__}: {e}\n{traceback.format_exc(limit=4)}"))
    finally:
        if venv is not None:
            venv.close()
        conn.close()


class WorkerVectorEnv:
    """``num_envs`` tables of one ruleset over ``workers`` processes (see the module doc)."""

    def __init__(self, ruleset: Any, num_envs: int, seed: int | None = None, workers: int = 2,
                 options: dict[str, Any] | None = None, context: str = "spawn") -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise EnvError(f"num_envs: a positive integer, got {num_envs!r}")
        if isinstance(workers, bool) or not isinstance(workers, int) or not 1 <= workers <= num_envs:
            raise EnvError(f"workers: an integer from 1 to num_envs ({num_envs}), got {workers!r}")
        if not isinstance(ruleset, str):
            raise EnvError("a worker env takes a ruleset id or path (each process loads it)")
        self.num_envs = num_envs
        self.seed = check_seed(seed) or 0
        self.closed = False
        sizes = [num_envs // workers + (1 if w < num_envs % workers else 0) for w in range(workers)]
        self.blocks: list[tuple[int, int]] = []
        start = 0
        for size in sizes:
            self.blocks.append((start, start + size))
            start += size
        ctx: Any = mp.get_context(context)
        self._conns: list[Connection] = []
        self._procs: list[Any] = []
        try:
            for lo, hi in self.blocks:
                parent, child = ctx.Pipe()
                p = ctx.Process(target=_worker,
                                args=(child, ruleset, hi - lo, lo, num_envs, self.seed, options), daemon=True,
                                name=f"mj-env-worker-{lo}")
                p.start()
                child.close()
                self._conns.append(parent)
                self._procs.append(p)
            #: Players at each table (each worker's tables are built, or its error raised, here).
            self.players: int = self._gather()[0]
        except BaseException:
            self.close()
            raise
        self._masks: np.ndarray | None = None

    def _gather(self) -> list[Any]:
        out = []
        failed = None
        for w, conn in enumerate(self._conns):
            try:
                status, value = conn.recv()
            except (EOFError, OSError):
                status, value = "error", "the worker process died"
            if status != "ok" and failed is None:
                failed = f"worker {w} (tables {self.blocks[w][0]}–{self.blocks[w][1] - 1}): {value}"
            out.append(value)
        if failed is not None:
            self.close()
            raise EnvError(failed)
        return out

    def _send(self, messages: list[tuple[str, Any]]) -> None:
        if self.closed:
            raise EnvError("the worker env is closed")
        for w, (conn, msg) in enumerate(zip(self._conns, messages, strict=True)):
            try:
                conn.send(msg)
            except (BrokenPipeError, OSError):
                self.close()
                raise EnvError(f"worker {w}: the worker process died") from None

    def reset(self, seed: int | None = None) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
        """Start a hand on every table (``seed`` restarts the seed sequence)."""
        s = check_seed(seed)
        self._send([("reset", s)] * len(self._conns))
        parts = self._gather()
        obs = np.concatenate([p[0] for p in parts])
        masks = np.concatenate([p[1] for p in parts])
        self._masks = masks
        return obs, masks.copy(), {"seat": np.concatenate([p[2] for p in parts])}

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                          dict[str, Any]]:
        """As :meth:`VectorMahjongEnv.step`: every table's acting seat takes its action."""
        if self.closed:
            raise EnvError("the worker env is closed")
        if self._masks is None:
            raise EnvError("reset() the worker env before stepping it")
        a = np.asarray(actions)
        if a.shape != (self.num_envs,) or a.dtype.kind not in "iu":
            raise EnvError(f"actions: {self.num_envs} integers, got shape {a.shape} of {a.dtype}")
        inside = (a >= 0) & (a < self._masks.shape[1])
        legal = inside.copy()
        legal[inside] = self._masks[np.flatnonzero(inside), a[inside]] != 0
        bad = np.flatnonzero(~legal)
        if len(bad):  # checked before any worker moves: a refused batch changes nothing
            i = int(bad[0])
            what = ACTIONS[int(a[i])] if inside[i] else "out of range"
            raise EnvError(f"table {i}: action {int(a[i])} ({what}) is not legal now"
                           + (f" (and {len(bad) - 1} more tables)" if len(bad) > 1 else ""))
        self._send([("step", a[lo:hi]) for lo, hi in self.blocks])
        parts = self._gather()
        obs = np.concatenate([p[0] for p in parts])
        masks = np.concatenate([p[1] for p in parts])
        self._masks = masks
        final: list[Any] = []
        for p in parts:
            final.extend(p[6])
        info = {"seat": np.concatenate([p[5] for p in parts]), "final": final}
        rewards, terminated, truncated = (np.concatenate([p[k] for p in parts]) for k in (2, 3, 4))
        return obs, masks.copy(), rewards, terminated, truncated, info

    def close(self) -> None:
        """Stop the workers (waits a moment for each, then terminates it)."""
        if self.closed:
            return
        self.closed = True
        for conn in self._conns:
            with contextlib.suppress(BrokenPipeError, OSError):
                conn.send(("close", None))
        for p in self._procs:
            p.join(timeout=5)
            if p.is_alive():
                p.terminate()
                p.join(timeout=5)
        for conn in self._conns:
            conn.close()

    def __enter__(self) -> WorkerVectorEnv:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        if not getattr(self, "closed", True):
            self.close()


__all__ = ["WorkerVectorEnv"]
