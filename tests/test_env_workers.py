"""The multi-process vector env (mjframework.run.envs.workers): the same seeds and actions
give the same arrays as the in-process vector env, whatever the number of workers; an
illegal action changes nothing; a broken worker is a clear error, and close() stops them."""

from __future__ import annotations

import pytest

np = pytest.importorskip("numpy", reason="the env extra (numpy) is not installed")

from mjframework.play.actions import EnvError  # noqa: E402
from mjframework.run.envs.vector import VectorMahjongEnv  # noqa: E402
from mjframework.run.envs.workers import WorkerVectorEnv  # noqa: E402


def _run(venv, steps: int, seed: int) -> list:
    rng = np.random.default_rng(seed)
    obs, masks, info = venv.reset()
    out = [(obs, masks, info["seat"])]
    for _ in range(steps):
        actions = np.argmax(rng.random(masks.shape) * masks, axis=1)
        obs, masks, rew, term, trunc, info = venv.step(actions)
        out.append((obs, masks, rew, term, trunc, info["seat"], info["final"]))
    return out


def _same(a: list, b: list) -> None:
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        for u, v in zip(x, y, strict=True):
            if isinstance(u, np.ndarray):
                np.testing.assert_array_equal(u, v)
            else:
                assert u == v


@pytest.mark.parametrize("rid,workers", [("changsha", 2), ("sichuan-xuezhan", 3)])
def test_same_trajectories_as_in_process(rid: str, workers: int) -> None:
    ref = VectorMahjongEnv(rid, 5, seed=11)
    expected = _run(ref, 150, 3)
    ref.close()
    with WorkerVectorEnv(rid, 5, seed=11, workers=workers, context="fork") as venv:
        got = _run(venv, 150, 3)
    _same(expected, got)
    assert any(r[3].any() for r in got[1:])  # hands ended and the tables dealt again on their own


def test_illegal_action_changes_nothing_and_close_stops_workers() -> None:
    venv = WorkerVectorEnv("changsha", 3, seed=2, workers=2, context="fork")
    try:
        _obs, masks, _ = venv.reset()
        bad = np.argmax(masks == 0, axis=1)  # an illegal action at every table
        with pytest.raises(EnvError, match=r"table 0: action .* is not legal"):
            venv.step(bad)
        with pytest.raises(EnvError, match="3 integers"):
            venv.step(np.zeros(2, dtype=np.int64))
        good = np.argmax(masks, axis=1)
        ref = VectorMahjongEnv("changsha", 3, seed=2)
        ref.reset()
        np.testing.assert_array_equal(venv.step(good)[0], ref.step(good)[0])
        ref.close()
    finally:
        venv.close()
    assert all(not p.is_alive() for p in venv._procs)
    with pytest.raises(EnvError, match="closed"):
        venv.step(good)


def test_bad_arguments_and_a_failing_worker() -> None:
    with pytest.raises(EnvError, match="workers"):
        WorkerVectorEnv("changsha", 2, workers=3)
    with pytest.raises(EnvError, match="num_envs"):
        WorkerVectorEnv("changsha", 0)
    with pytest.raises(EnvError, match=r"worker 0 \(tables 0–0\):.*no-such-ruleset"):
        WorkerVectorEnv("no-such-ruleset", 2, workers=2, context="fork")
