"""The PPO baseline (mjframework.run.envs.ppo, the ``train`` extra): a few updates train,
write a numpy policy that plays without PyTorch, resume from the checkpoint, refuse another
run's checkpoint. Skipped where PyTorch is not installed (CI needs no PyTorch)."""

from __future__ import annotations

from pathlib import Path

import pytest

np = pytest.importorskip("numpy", reason="the env extra (numpy) is not installed")
pytest.importorskip("gymnasium", reason="the env extra (gymnasium) is not installed")
torch = pytest.importorskip("torch", reason="the train extra (PyTorch) is not installed")

from mjframework.run.envs import ppo  # noqa: E402
from mjframework.run.envs.encoding import ACTION_N, OBS_SIZE  # noqa: E402
from mjframework.run.envs.policy import MLPPolicy  # noqa: E402
from mjframework.run.match import run_match  # noqa: E402

SMALL = {"hidden": 16, "critic_hidden": 8, "envs": 2, "steps": 8, "epochs": 2, "minibatch": 8,
         "opponents": "greedy,random", "save_every": 1, "warmup": 64}


def test_gae_by_hand() -> None:
    # one table, three steps: the hand ends at step 1 (reward 2), a new one goes on.
    r = np.array([[0.0], [2.0], [0.0]], dtype=np.float32)
    v = np.array([[0.5], [1.0], [0.25]], dtype=np.float32)
    d = np.array([[0.0], [1.0], [0.0]], dtype=np.float32)
    adv, ret = ppo.gae(r, v, d, np.array([0.75], dtype=np.float32), gamma=1.0, lam=0.5)
    a1 = 2.0 - 1.0                      # the last step of its hand: nothing after it
    a0 = (0.0 + 1.0 - 0.5) + 0.5 * a1   # δ0 + γλ·A1
    a2 = 0.0 + 0.75 - 0.25              # bootstrapped from the last value
    np.testing.assert_allclose(adv[:, 0], [a0, a1, a2], rtol=1e-6)
    np.testing.assert_allclose(ret, adv + v, rtol=1e-6)


def test_train_export_resume(tmp_path: Path) -> None:
    out = tmp_path / "p.npz"
    rng = np.random.default_rng(0)
    init = MLPPolicy.init(16, rng, np.zeros(OBS_SIZE), np.ones(OBS_SIZE))
    init.save(tmp_path / "init.npz")
    s1 = ppo.train("changsha", out, updates=2, init=str(tmp_path / "init.npz"), **SMALL)
    assert s1["updates"] == 2 and s1["decisions"] == 2 * 2 * 8
    assert out.exists() and ppo.checkpoint_path(out).exists()
    pol = MLPPolicy.load(out)
    assert pol.meta["trainer"] == "ppo" and pol.meta["updates"] == 2 and pol.meta["trained_on"] == "changsha"
    assert not np.allclose(pol.p["W2"], init.p["W2"])  # it learned something, from the init

    # the exported numpy actor is the torch actor: the same logits on legal actions
    state = torch.load(ppo.checkpoint_path(out), weights_only=True)
    model = ppo.ActorCritic(16, 8, np.zeros(OBS_SIZE), np.ones(OBS_SIZE))
    model.load_state_dict(state["model"])
    obs = rng.random((5, OBS_SIZE), dtype=np.float32) * 3
    mask = np.ones((5, ACTION_N), dtype=bool)
    with torch.no_grad():
        logits, _ = model(torch.from_numpy(obs), torch.from_numpy(mask))
    np.testing.assert_allclose(pol.logits(obs), logits.numpy(), rtol=1e-4, atol=1e-5)

    # the same command with more updates goes on from the checkpoint
    s2 = ppo.train("changsha", out, updates=3, init=str(tmp_path / "init.npz"), **SMALL)
    assert s2["updates"] == 3 and s2["decisions"] == 3 * 2 * 8 and s2["hands"] >= s1["hands"]
    assert MLPPolicy.load(out).meta["updates"] == 3
    # another run's settings are refused, not mixed in; --fresh starts over
    with pytest.raises(ppo.TrainError, match="hidden=16, not 32"):
        ppo.train("changsha", out, updates=4, **{**SMALL, "hidden": 32})
    s3 = ppo.train("changsha", out, updates=1, fresh=True, **SMALL)  # no --init: warm-up statistics
    assert s3["updates"] == 1

    # the policy plays a match as a seat, by its path
    res = run_match("changsha", [str(out), "random", "greedy", "random"], 4, seed=1, duplicate=True)
    assert sum(st.hands for st in res.standings) == 16 and res.abandoned == 0


def test_cli_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert ppo.main(["changsha", "-o", str(tmp_path / "p.txt")]) == 2
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip")
    assert ppo.main(["changsha", "-o", str(tmp_path / "p.npz"), "--init", str(bad)]) == 1
    assert "not a policy file" in capsys.readouterr().err
    ppo.checkpoint_path(tmp_path / "q.npz").write_bytes(b"junk")
    assert ppo.main(["changsha", "-o", str(tmp_path / "q.npz"), "--updates", "1"]) == 1
    assert "not a training checkpoint" in capsys.readouterr().err
    assert ppo.main(["changsha", "-o", str(tmp_path / "r.npz"), "--envs", "0"]) == 1


def test_mj_train(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from mjframework.cli import main as mj

    out = tmp_path / "t.npz"
    args = ["train", "changsha", "-o", str(out), "--updates", "1", "--envs", "2", "--steps", "8",
            "--hidden", "16"]
    r = CliRunner().invoke(mj, args)
    assert r.exit_code == 0, r.output
    assert "1 updates" in r.output and MLPPolicy.load(out).meta["trainer"] == "ppo"
    r = CliRunner().invoke(mj, [*args[:-2], "--hidden", "32"])  # another width: the checkpoint refuses
    assert r.exit_code == 1 and "hidden=16, not 32" in r.output
    assert CliRunner().invoke(mj, ["train", "changsha", "-o", str(tmp_path / "t.txt")]).exit_code == 2


def test_mj_train_without_pytorch(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import sys

    from click.testing import CliRunner

    import mjframework.run.envs as envs
    from mjframework.cli import main as mj

    monkeypatch.setitem(sys.modules, "mjframework.run.envs.ppo", None)  # as if torch were missing
    monkeypatch.delattr(envs, "ppo", raising=False)
    r = CliRunner().invoke(mj, ["train", "changsha", "-o", str(tmp_path / "t.npz"), "--updates", "1",
                                "--envs", "1", "--steps", "1", "--hidden", "4"])  # small, should it run
    assert r.exit_code == 1 and "needs PyTorch" in r.output and "Traceback" not in r.output
