"""External bots (mj play --bot), duplicate matches (mj match) and mj replay."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from mjframework import load_ruleset
from mjframework.cli import main
from mjframework.play.players import Decision, Option, PlayerLeft
from mjframework.run.extbot import ExternalBot, parse_bot_specs
from mjframework.run.replay import Replay, read_hands, run

ROOT = Path(__file__).resolve().parent.parent
ECHO = f"{sys.executable} {ROOT / 'examples' / 'echo_bot.py'}"


def _bot(tmp_path: Path, name: str, body: str) -> str:
    p = tmp_path / f"{name}.py"
    p.write_text("import sys, json, time\n" + body, "utf-8")
    return f"{sys.executable} {p}"


def test_echo_bot_finishes_a_watched_hand() -> None:
    r = CliRunner().invoke(main, ["play", "changsha", "--bot", ECHO, "--watch", "--seed", "3"])
    assert r.exit_code == 0, r.output
    assert "bot1" in r.output and "1 手" in r.output and "left the table" not in r.output


@pytest.mark.parametrize("body, why", [
    ("for line in sys.stdin:\n    time.sleep(60)\n", "timed out"),
    ("for line in sys.stdin:\n    if 'request' in line: print('hello!', flush=True)\n", "garbage"),
    ("for line in sys.stdin:\n    if 'request' in line: print(json.dumps({'action': 'dance'}), flush=True)\n",
     "not one of the options"),
    ("sys.exit(3)\n", "exited"),
])
def test_a_misbehaving_bot_leaves_by_name_within_the_timeout(tmp_path: Path, body: str, why: str) -> None:
    cmd = _bot(tmp_path, "bad", body)
    start = time.monotonic()
    r = CliRunner().invoke(main, ["play", "changsha", "--bot", f"sleepy={cmd}", "--watch", "--seed", "3",
                                  "--bot-timeout", "1"])
    # The bot leaves, changsha's leave rule abandons that hand, and an abandoned hand makes
    # `mj play` fail at the end (exit 1, saying why), as `mj simulate` and `mj match` do.
    assert r.exit_code == 1, r.output
    assert "error: 1 hand(s) abandoned" in r.output
    assert "bot 'sleepy'" in r.output and why in r.output and "left the table" in r.output
    assert time.monotonic() - start < 30


def test_external_bot_protocol_lines(tmp_path: Path) -> None:
    log = tmp_path / "heard.jsonl"
    cmd = _bot(tmp_path, "rec", f"out = open({str(log)!r}, 'w')\n"
               "for line in sys.stdin:\n    out.write(line); out.flush()\n"
               "    e = json.loads(line)\n"
               "    if e['type'] == 'request': print(json.dumps({'action': e['options'][0]}), flush=True)\n")
    rs = load_ruleset("changsha")
    with ExternalBot(cmd, rs, name="rec", timeout=5) as bot:
        bot.sit(2)
        d = Decision("claim", 2, (Option("pung", 4, (4, 4, 4)), Option("pass")), 4, 1)
        assert bot.decide(None, d) == Option("pung", 4, (4, 4, 4))  # type: ignore[arg-type]
    lines = [json.loads(x) for x in log.read_text("utf-8").splitlines()]
    assert lines[0]["type"] == "hello" and "pass" in lines[0]["actions"]
    req = lines[1]
    assert req["type"] == "request" and req["options"] == ["pung:5m", "pass"] and req["pai"] == "5m"
    assert lines[-1]["type"] == "end_game"
    with pytest.raises(PlayerLeft, match="left earlier"):
        bot.decide(None, d)  # type: ignore[arg-type]


def test_bot_specs() -> None:
    specs = parse_bot_specs(["python a.py", "me=python b.py"])
    assert specs == [("bot1", "python a.py"), ("me", "python b.py")]
    with pytest.raises(ValueError):
        parse_bot_specs(["x=python a.py", "x=python b.py"])


def test_duplicate_match_is_repeatable_and_rotates() -> None:
    args = ["match", "changsha", "--seats", "bot1,greedy,greedy,random", "--bot", ECHO,
            "--hands", "16", "--duplicate", "--seed", "5", "--json"]
    a = CliRunner().invoke(main, args)
    b = CliRunner().invoke(main, args)
    assert a.exit_code == 0, a.output
    assert a.output == b.output
    out = json.loads(a.output)
    assert [s["hands"] for s in out["standings"]] == [16] * 4
    assert sum(s["total"] for s in out["standings"]) <= 0  # zero-sum but for leave penalties
    text = CliRunner().invoke(main, args[:-1]).output
    assert "± 95% CI" in text and "bot1" in text


@pytest.mark.parametrize("args, msg", [
    (["--seats", "greedy,foo,random,random", "--hands", "4"], "unknown player 'foo'"),
    (["--seats", "greedy,random", "--hands", "4"], "needs 4 players"),
    (["--seats", "greedy,greedy,random,random", "--hands", "5", "--duplicate"], "multiple of 4"),
])
def test_match_errors(args: list[str], msg: str) -> None:
    r = CliRunner().invoke(main, ["match", "changsha", *args])
    assert r.exit_code != 0 and msg in r.output


def test_replay_steps_and_masks(tmp_path: Path) -> None:
    log = tmp_path / "g.jsonl"
    sim = CliRunner().invoke(main, ["simulate", "changsha", "-n", "2", "-s", "3", "--log", str(log)])
    assert sim.exit_code == 0
    hands = read_hands(log)
    assert len(hands) == 2
    r = Replay(hands[0], seat=1)
    assert len(r.frames) == len(hands[0])
    # After the deal, seat 1 sees its own tiles and only backs of the others'.
    deal = next(i for i, e in enumerate(hands[0]) if e["type"] == "deal")
    frame = r.frames[deal]
    assert "🀫" * 13 in frame
    full = Replay(hands[0]).frames[deal]
    assert "🀫" not in full
    shown: list[str] = []
    run(r, iter(["n", "n", "p", "q"]).__next__, shown.append)
    frames = [s for s in shown if s.startswith("hand ")]
    assert frames == [r.frames[0], r.frames[1], r.frames[2], r.frames[1]]
    out = CliRunner().invoke(main, ["replay", str(log), "--hand", "1", "--seat", "0"], input="n\nq\n")
    assert out.exit_code == 0 and "event 2/" in out.output
    bad = CliRunner().invoke(main, ["replay", str(log), "--hand", "7"])
    assert bad.exit_code == 1 and "the log has 2 hands" in bad.output
    junk = tmp_path / "junk.jsonl"
    junk.write_text("not json\n", "utf-8")
    assert "not a JSON line" in CliRunner().invoke(main, ["replay", str(junk)]).output


def test_duplicate_match_400_hands_twice_same_numbers() -> None:
    from mjframework.run.match import run_match

    a = run_match("yongzhou-wangba", ["greedy", "random", "greedy", "random"], 400, seed=9, duplicate=True)
    b = run_match("yongzhou-wangba", ["greedy", "random", "greedy", "random"], 400, seed=9, duplicate=True)
    assert a.table() == b.table() and a.to_dict() == b.to_dict()
    assert all(s.hands == 400 for s in a.standings)
    assert len(a.standings[0].per_sample) == 100  # boards
    # A zero-sum table (no leave penalties here): the standings' totals cancel.
    assert sum(s.total for s in a.standings) == 0
