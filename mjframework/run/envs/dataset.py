"""Per-seat decision records from simulated hands, as compressed NumPy shards (``mj dataset``).

A dataset is a directory::

    dataset.json          what was played: ruleset, seed, bots, hands, shard size, the encodings
    shard-00000.npz       hands 0 … H-1
    shard-00001.npz       hands H … 2H-1
    …

Each shard (``np.load``) holds one row per decision, in play order:

============  ===============  ==========================================================
key           shape, dtype     what
============  ===============  ==========================================================
``obs``       (R, 562) f32     the acting seat's observation (:mod:`.encoding`'s layout)
``mask``      (R, 57) u8       its action mask, bit-packed (``np.unpackbits(m, axis=1,
                               count=451)``; :func:`load_shard` unpacks it)
``action``    (R,) i16         the action the bot took (an exchange: one row per tile
                               picked, as the environments step it)
``seat``      (R,) i8          the acting seat
``hand``      (R,) i32         the hand's number in the dataset
``reward``    (R,) f32         the acting seat's money at that hand's end (its final reward)
``hands``     (2,) i64         the shard's hands: first, last + 1
============  ===============  ==========================================================

The hands are played by bots through :class:`~mjframework.run.env.MahjongEnv` (the same
encodings an agent sees); hand ``h`` is seeded from ``(seed, h)`` and its bots' RNGs too,
so a dataset is reproducible shard by shard. A shard is written to a temporary file and
renamed into place when complete: an interrupted run leaves whole shards only, and running
the same command again skips them (resumable). ``workers`` processes play shards at once;
the files do not depend on how many. ``dataset.json`` must match the command
(another ruleset, seed, bots or shard size is refused rather than mixed in).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from ...core.errors import MJError
from ...core.fileio import atomic_writer, write_atomic
from ...play.bots import BOTS
from ..env import MahjongEnv
from ..simulate import hand_seed, load_cached
from .encoding import ACTION_N, EXCHANGE, LAYOUT, OBS_SIZE

FORMAT = "mjframework-dataset/1"
KEYS = ("obs", "mask", "action", "seat", "hand", "reward")


class DatasetError(MJError):
    """A dataset that can't be written as asked (a directory holding another dataset, bad sizes)."""


def shard_path(out: Path, k: int) -> Path:
    return out / f"shard-{k:05d}.npz"


def manifest(ruleset_id: str, seed: int, bots: Sequence[str], hands: int, shard_hands: int) -> dict[str, Any]:
    return {"format": FORMAT, "ruleset": ruleset_id, "seed": seed, "bots": list(bots), "hands": hands,
            "shard_hands": shard_hands, "shards": -(-hands // shard_hands),
            "observation_size": OBS_SIZE, "action_size": ACTION_N,
            "planes": list(LAYOUT.planes), "scalars": list(LAYOUT.scalars)}


def play_hand(env: MahjongEnv, bots: Sequence[Any], seed: int, rows: dict[str, list[Any]], hand: int) -> None:
    """Play one hand with ``bots`` through ``env``, appending its rows to ``rows``."""
    env.reset(seed)
    start = len(rows["action"])
    while env.decision is not None:
        d = env.decision
        seat = d.seat
        assert env.table is not None
        option = bots[seat].decide(env.table.view(seat), d)
        if option.kind == "exchange":
            steps = [EXCHANGE + t for t in sorted(option.tiles)]
        else:
            steps = [env.codec.index_of(option)]
        for a in steps:
            rows["obs"].append(env.encode(seat).copy())
            rows["mask"].append(np.packbits(env.action_mask(seat)))
            rows["action"].append(a)
            rows["seat"].append(seat)
            env._step(a, False)  # (the row's observation is taken above)
    assert env.result is not None
    payments = env.result.payments
    rows["hand"] += [hand] * (len(rows["action"]) - start)
    rows["reward"] += [float(payments[s]) for s in rows["seat"][start:]]


def _shard_ok(path: Path) -> bool:
    try:
        with np.load(path) as z:
            return set(KEYS) <= set(z.files)
    except Exception:  # a foreign or damaged file: written again
        return False


@dataclass(frozen=True)
class DatasetSpec:
    """What every shard of a run needs (picklable: handed to worker processes)."""

    ruleset: str
    out: str
    hands: int
    seed: int
    bots: tuple[str, ...]
    shard_hands: int

    def hands_of(self, k: int) -> tuple[int, int]:
        return k * self.shard_hands, min(self.hands, (k + 1) * self.shard_hands)


def write_shard(spec: DatasetSpec, k: int, progress: Callable[[int], None] | None = None) -> int:
    """Play shard ``k``'s hands and write its file (atomically); returns its rows."""
    rs, ev = load_cached(spec.ruleset)
    first, last = spec.hands_of(k)
    env = MahjongEnv(rs, evaluator=ev)
    rows: dict[str, list[Any]] = {key: [] for key in KEYS}
    try:
        for h in range(first, last):
            players = [BOTS[b](random.Random(f"{spec.seed}/{h}/{s}")) for s, b in enumerate(spec.bots)]
            play_hand(env, players, hand_seed(spec.seed, 0, h), rows, h)
            if progress:
                progress(1)
    finally:
        env.close()
    with atomic_writer(shard_path(Path(spec.out), k), binary=True) as f:
        np.savez_compressed(
            f, obs=np.stack(rows["obs"]).astype(np.float32), mask=np.stack(rows["mask"]),
            action=np.asarray(rows["action"], dtype=np.int16),
            seat=np.asarray(rows["seat"], dtype=np.int8),
            hand=np.asarray(rows["hand"], dtype=np.int32),
            reward=np.asarray(rows["reward"], dtype=np.float32),
            hands=np.array([first, last], dtype=np.int64))
    return len(rows["action"])


def _shard_done(spec: DatasetSpec, k: int) -> bool:
    path = shard_path(Path(spec.out), k)
    if not (path.exists() and _shard_ok(path)):
        return False
    with np.load(path) as z:
        return "hands" in z.files and z["hands"].tolist() == list(spec.hands_of(k))


def _write_alone(spec: DatasetSpec, k: int) -> int:
    """A shard whose worker died, played again in a fresh process of its own."""
    from ..runner import run_alone

    rows = run_alone(partial(write_shard, spec), k)
    if rows is None:
        raise DatasetError(f"shard {k} (hands {spec.hands_of(k)[0]}–{spec.hands_of(k)[1] - 1}) "
                           "killed its process twice")
    return rows


def write_dataset(ruleset_ref: str, out: str | Path, hands: int, *, seed: int = 0,
                  bots: Sequence[str] = ("greedy",), shard_hands: int = 100, workers: int = 1,
                  progress: Callable[[int], None] | None = None) -> dict[str, Any]:
    """Write (or finish) a dataset of ``hands`` hands; returns ``{"written", "skipped", "rows", "shards"}``.

    ``workers > 1`` plays shards in that many processes (a shard is the unit of work; the
    files are the same whatever the number of workers)."""
    if hands < 1 or shard_hands < 1 or workers < 1:
        raise DatasetError(f"hands, shard size and workers must be positive (got {hands}, {shard_hands}, "
                           f"{workers})")
    rs, _ev = load_cached(ruleset_ref)
    names = list(bots) * rs.players if len(bots) == 1 else list(bots)
    if len(names) != rs.players:
        raise DatasetError(f"--bots: one bot, or one per seat ({rs.players}), got {len(names)}")
    unknown = [b for b in names if b not in BOTS]
    if unknown:
        raise DatasetError(f"--bots: unknown bot {unknown[0]!r} (one of {', '.join(sorted(BOTS))})")
    out = Path(out)
    try:
        return _write(rs, out, hands, seed, names, shard_hands, workers, ruleset_ref, progress)
    except OSError as e:  # a directory that can't be made or written: a message, not a traceback
        raise DatasetError(f"{e.filename or out}: {e.strerror or e}") from None


def _write(rs: Any, out: Path, hands: int, seed: int, names: list[str], shard_hands: int, workers: int,
           ruleset_ref: str, progress: Callable[[int], None] | None) -> dict[str, Any]:
    if out.exists() and not out.is_dir():
        raise DatasetError(f"{out} exists and is not a directory")
    out.mkdir(parents=True, exist_ok=True)
    meta = manifest(rs.id, seed, names, hands, shard_hands)
    mpath = out / "dataset.json"
    if mpath.exists():
        try:
            old = json.loads(mpath.read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            raise DatasetError(f"{mpath}: not a dataset manifest ({e})") from None
        fixed = {k: v for k, v in meta.items() if k not in ("hands", "shards")}
        if {k: old.get(k) for k in fixed} != fixed:
            raise DatasetError(f"{out} holds another dataset ({old.get('ruleset')}, seed {old.get('seed')}, "
                               f"bots {old.get('bots')}, shard size {old.get('shard_hands')}): "
                               "choose another directory")
    elif any(out.iterdir()):
        raise DatasetError(f"{out} is not empty and holds no dataset.json: choose an empty directory")
    write_atomic(mpath, json.dumps(meta, ensure_ascii=False, indent=1) + "\n")
    spec = DatasetSpec(ruleset_ref, str(out), hands, seed, tuple(names), shard_hands)
    todo: list[int] = []
    skipped = 0
    for k in range(meta["shards"]):
        if _shard_done(spec, k):
            skipped += 1
            if progress:
                first, last = spec.hands_of(k)
                progress(last - first)
        else:
            todo.append(k)
    rows_total = 0
    if workers == 1 or len(todo) <= 1:
        for k in todo:
            rows_total += write_shard(spec, k, progress)
    else:
        from ..runner import ProcessPool, run_windowed

        def merge(k: int, rows: int) -> None:
            nonlocal rows_total
            rows_total += rows
            if progress:
                first, last = spec.hands_of(k)
                progress(last - first)

        pool = ProcessPool(partial(write_shard, spec), workers, partial(_write_alone, spec))
        try:
            run_windowed(todo, pool.submit, workers * 2, merge)
        except BaseException:
            pool.kill()
            raise
        pool.shutdown()
    return {"written": len(todo), "skipped": skipped, "rows": rows_total, "shards": meta["shards"]}


def load_shard(path: str | Path) -> dict[str, np.ndarray]:
    """A shard's arrays, the mask unpacked to ``(R, 451)`` int8."""
    with np.load(path) as z:
        out = {k: z[k] for k in z.files}
    out["mask"] = np.unpackbits(out["mask"], axis=1, count=ACTION_N).astype(np.int8)
    return out


__all__ = ["DatasetError", "DatasetSpec", "load_shard", "play_hand", "write_dataset", "write_shard"]
