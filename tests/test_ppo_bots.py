"""Trained policies as bots, where people play: ``mj play --bot FILE.npz`` and the browser's
rooms (``mj serve --rooms --bot NAME=FILE.npz``; the play form lists them from ``/api/bots``).
A numpy policy is enough (no PyTorch): the PPO baseline exports this same format."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

np = pytest.importorskip("numpy", reason="the env extra (numpy) is not installed")

from mjframework.cli import main as mj  # noqa: E402
from mjframework.run.envs.encoding import OBS_SIZE  # noqa: E402
from mjframework.run.envs.policy import MLPPolicy, PolicyBot  # noqa: E402


@pytest.fixture
def policy_file(tmp_path: Path) -> Path:
    pol = MLPPolicy.init(8, np.random.default_rng(1), np.zeros(OBS_SIZE), np.ones(OBS_SIZE))
    path = tmp_path / "tiny.npz"
    pol.save(path)
    return path


@pytest.fixture
def decisions(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The seats a policy decided for (PolicyBot.decide, counted)."""
    seen: list[int] = []
    real = PolicyBot.decide

    def counted(self: PolicyBot, view: Any, decision: Any) -> Any:
        seen.append(decision.seat)
        return real(self, view, decision)

    monkeypatch.setattr(PolicyBot, "decide", counted)
    return seen


def test_mj_play_seats_a_policy_file(policy_file: Path, decisions: list[int]) -> None:
    r = CliRunner().invoke(mj, ["play", "changsha", "--watch", "--plain", "--no-records", "--seed", "5",
                                "--bot", f"cs={policy_file}", "--bot", str(policy_file)])
    assert r.exit_code == 0, r.output
    assert "cs" in r.output and "结算" in r.output
    assert set(decisions) == {0, 1}  # the two policies played seats 0 and 1, the greedy bots the rest


def test_mj_play_refuses_a_bad_policy_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not numpy")
    for path in (bad, tmp_path / "missing.npz"):
        r = CliRunner().invoke(mj, ["play", "changsha", "--plain", "--no-records", "--bot", str(path)],
                               input="")
        assert r.exit_code == 2 and "not a policy file" in r.output
        assert "Traceback" not in r.output


def test_mj_serve_bot_needs_rooms_and_a_policy(policy_file: Path, tmp_path: Path) -> None:
    r = CliRunner().invoke(mj, ["serve", "--bot", f"x={policy_file}"])
    assert r.exit_code == 2 and "needs --rooms" in r.output
    for spec in (str(policy_file), f"greedy={policy_file}", "x=/etc/passwd", f"x={tmp_path / 'no.npz'}"):
        r = CliRunner().invoke(mj, ["serve", "--rooms", "--no-records", "--port", "0", "--bot", spec])
        assert r.exit_code == 2 and "--bot" in r.output, (spec, r.output)


def test_a_room_of_policy_bots(policy_file: Path, decisions: list[int]) -> None:
    pytest.importorskip("starlette", reason="the 'web' extra (starlette) is not installed")
    pytest.importorskip("httpx2", reason="Starlette's TestClient needs httpx2")
    from starlette.testclient import TestClient

    from mjframework.ui.webapp import make_app

    app = make_app(bot_pause=0, policies={"tiny": MLPPolicy.load(policy_file)})
    try:
        with TestClient(app, base_url="http://localhost") as c:
            assert c.get("/api/bots").json() == {"bots": ["greedy", "tiny"]}
            token = {"X-MJ-Token": app.state.playground.token}
            for bot in ("nope", str(policy_file), 3):  # only the server's names, never a path
                r = c.post("/api/rooms", json={"ruleset": "changsha", "humans": 0, "bot": bot}, headers=token)
                assert r.status_code == 400 and "bot: one of greedy, tiny" in r.json()["error"]
            r = c.post("/api/rooms", json={"ruleset": "changsha", "humans": 1, "hands": 1, "seed": 2,
                                           "bot": "tiny", "bot_pause": 0, "away_timeout": 0}, headers=token)
            assert r.status_code == 200, r.text
            out = r.json()
            assert [s["name"] for s in out["seats"][1:]] == ["tiny"] * 3
            room = app.state.rooms.rooms[out["room"]]
            assert room.finished.wait(300) and room.error is None and room.played == 1
    finally:
        app.state.close()
    assert {1, 2, 3} <= set(decisions) and 0 not in decisions  # the absent person's seat: greedy


def test_mj_match_bot_name_is_a_policy_file(policy_file: Path, decisions: list[int], tmp_path: Path) -> None:
    r = CliRunner().invoke(mj, ["match", "changsha", "--bot", f"p={policy_file}", "--seats",
                                "p,greedy,random,random", "--hands", "8", "--duplicate"])
    assert r.exit_code == 0, r.output
    assert " p " in r.output and len(set(decisions)) == 4  # it sat at every seat in turn
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"x")
    r = CliRunner().invoke(mj, ["match", "changsha", "--bot", f"p={bad}", "--seats", "p,greedy,random,random",
                                "--hands", "4"])
    assert r.exit_code == 1 and "not a policy file" in r.output and "Traceback" not in r.output
