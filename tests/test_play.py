"""``mj play``: a human at seat 0 against three greedy bots, through piped input."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections import deque

import pytest
from click.testing import CliRunner

from mjframework.cli import main
from mjframework.play.players import Decision, Option
from mjframework.ui.human import Console, HumanPlayer, option_label, play_session

ONES = "1\n" * 400  # always the first option: enough for any hand


def play(*args: str, input: str = ONES) -> tuple[int, str]:
    r = CliRunner().invoke(main, ["play", *args], input=input)
    assert "Traceback" not in r.output, r.output
    return r.exit_code, r.output


def test_a_scripted_hand_plays_to_its_settlement() -> None:
    code, out = play("changsha", "--seed", "3")
    assert code == 0, out
    assert "第 1 手" in out and "你的" not in out.split("\n")[0]
    assert "选择 [1-" in out  # the options were numbered and asked for
    assert "手牌" in out  # the human's hand was shown
    assert " 打 " in out  # discards are announced
    assert "结算" in out  # the settlement
    assert "下一手庄家" in out
    assert out.rstrip().splitlines()[-1].startswith("1 手")  # the session total


def test_several_hands_and_the_wildcard_is_marked() -> None:
    code, out = play("yongzhou-huandiao", "--seed", "11", "--hands", "2")
    assert code == 0, out
    assert "第 2 手" in out
    assert "翻牌" in out and "→ 王" in out and "*" in out  # indicator, wildcard, marked tiles
    assert any(line.startswith("王 ") for line in out.splitlines())  # the table header shows it
    assert out.rstrip().splitlines()[-1].startswith("2 手")


def test_bad_choices_are_asked_again() -> None:
    code, out = play("changsha", "--seed", "3", input="zz\n0\n999\n\n-1\n" + ONES)
    assert code == 0, out
    assert out.count("请输入 1–") >= 5  # one message per bad answer
    assert "结算" in out or "流局" in out


def test_end_of_input_stops_the_game_cleanly() -> None:
    code, out = play("yongzhou-wangba", "--seed", "3", "--hands", "3", input="1\n2\n")
    assert code == 0, out
    assert "end of input" in out
    assert "第 2 手" not in out
    assert out.rstrip().splitlines()[-1].startswith("0 手")


def test_q_quits() -> None:
    code, out = play("changsha", "--seed", "3", input="q\n")
    assert code == 0 and "game stopped" in out


@pytest.mark.parametrize(("args", "message"), [
    (["nowhere"], "no ruleset"),
    (["changsha", "--hands", "0"], "--hands must be at least 1"),
    (["changsha", "--seed", "abc"], "--seed must be an integer"),
    (["changsha", "--speed", "fast"], "--speed must be a number of seconds"),
    (["changsha", "--speed", "-1"], "--speed must be between 0 and 60"),
])
def test_bad_input(args: list[str], message: str) -> None:
    code, out = play(*args)
    assert code == 1 and message in out


@pytest.mark.skipif(shutil.which("mj") is None, reason="the mj command is not installed")
def test_real_pipe() -> None:
    """``printf '1\\n1\\n…' | mj play changsha --seed 3`` in a real process with a real pipe."""
    env = dict(os.environ, PYTHONIOENCODING="utf-8")
    proc = subprocess.run(["mj", "play", "changsha", "--seed", "3"], input=ONES, capture_output=True,
                          text=True, encoding="utf-8", timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr
    assert "结算" in proc.stdout and "Traceback" not in proc.stderr


def test_module_entry_point() -> None:
    proc = subprocess.run([sys.executable, "-m", "mjframework", "play", "changsha", "--seed", "3"],
                          input="q\n", capture_output=True, text=True, encoding="utf-8", timeout=120,
                          env=dict(os.environ, PYTHONIOENCODING="utf-8"))
    assert proc.returncode == 0, proc.stderr


# -- the human player on its own ------------------------------------------------------


class Script(Console):
    def __init__(self, answers: list[str | None]) -> None:
        self.lines: list[str] = []
        self.answers = deque(answers)
        super().__init__(read_line=self._next, echo=self.lines.append)

    def _next(self, prompt: str) -> str | None:
        self.lines.append(prompt)
        return self.answers.popleft() if self.answers else None


class FakeView:
    hand = (0, 1, 2, 10, 10, 11, 19, 20, 21, 27, 27, 28, 28, 31)
    melds = ()
    wildcard = 10
    indicator = 9
    dealer = 0
    players = 4
    live_remaining = 50
    ruleset_id = "x"

    def melds_of(self, seat: int) -> tuple:
        return ()

    def discards_of(self, seat: int) -> tuple:
        return (33,) if seat == 1 else ()


def test_human_player_reads_a_number_and_re_asks() -> None:
    options = (Option("win", 31), Option("discard", 0), Option("discard", 27))
    console = Script(["abc", "7", " 3 "])
    choice = HumanPlayer(console).decide(FakeView(), Decision("turn", 0, options, 31))  # type: ignore[arg-type]
    assert choice == options[2]
    text = "\n".join(console.lines)
    assert text.count("请输入 1–3") == 2
    assert "二筒*" in text  # the wildcard (2p) marked in the hand
    assert "王 二筒* (翻 一筒)" in text
    assert "摸到 白" in text
    assert "下家  弃 中" in text


def test_option_labels() -> None:
    assert option_label(Option("discard", 10), 10) == "打 二筒*"
    assert option_label(Option("pung", 5, (5, 5, 5)), None) == "碰 六万"
    assert option_label(Option("chow", 3, (2, 3, 4)), None) == "吃 三万 四万 五万"
    assert option_label(Option("kong", 27, (27,) * 4, "concealed-kong"), None) == "暗杠 东"
    assert option_label(Option("take_last", text="要海底"), None) == "要海底"  # a plugin names its option
    assert option_label(Option("open_kong", 5, (5,) * 4, text="开杠"), None) == "开杠 六万"
    assert option_label(Option("pass"), None) == "过"


def test_play_session_returns_the_totals() -> None:
    console = Script(["1"] * 400)
    totals = play_session("yongzhou-wangba", seed=3, hands=2, console=console)
    assert len(totals) == 4 and sum(totals) == 0


def test_watch_plays_a_whole_bot_hand_to_its_settlement() -> None:
    """The README's main job: four bots, the whole hand told, deal to settlement."""
    from click.testing import CliRunner

    from mjframework.cli import main

    r = CliRunner().invoke(main, ["play", "yongzhou-huandiao", "--watch", "--seed", "7"])
    assert r.exit_code == 0, r.output
    out = r.output
    assert "Traceback" not in out
    for seat in ("东家", "南家", "西家", "北家"):
        assert seat in out
    assert "翻牌" in out and "王" in out  # the wildcard flip
    assert " 打 " in out  # discards, in Chinese tile names
    assert "结算" in out and "下一手庄家" in out
    assert "「" in out  # spoken calls


def test_speak_voices_calls_with_espeak_ng_when_installed(tmp_path, monkeypatch) -> None:
    """--speak hands each call to espeak-ng (Mandarin voice); a stand-in records what it is told."""
    import os
    import time

    from click.testing import CliRunner

    from mjframework.cli import main

    said = tmp_path / "said.txt"
    fake = tmp_path / "bin" / "espeak-ng"
    fake.parent.mkdir()
    fake.write_text(f'#!/bin/sh\nprintf "%s\\n" "$*" >> "{said}"\n', encoding="utf-8")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ['PATH']}")
    r = CliRunner().invoke(main, ["play", "yongzhou-huandiao", "--watch", "--seed", "7", "--speak"])
    assert r.exit_code == 0, r.output
    for _ in range(50):  # the voice runs in the background
        if said.exists() and "自摸" in said.read_text("utf-8"):
            break
        time.sleep(0.1)
    lines = said.read_text("utf-8").splitlines()
    assert lines and all(line.startswith("-v cmn ") for line in lines)
    assert any("的王" in line for line in lines)  # the wildcard call


def test_speak_without_espeak_ng_is_silent(monkeypatch) -> None:
    from click.testing import CliRunner

    from mjframework.cli import main

    monkeypatch.setenv("PATH", "/nonexistent")
    r = CliRunner().invoke(main, ["play", "yongzhou-huandiao", "--watch", "--seed", "7", "--speak"])
    assert r.exit_code == 0 and "结算" in r.output


def test_human_player_types_the_tiles_of_an_exchange() -> None:
    from mjframework.play.game import Game

    hand = [0, 1, 2, 10, 10, 11, 19, 20, 21, 27, 27, 28, 28, 31]
    options = Game._exchange_options(hand, 3, same_suit=False)
    assert len(options) > 12  # too many to list: typed instead
    console = Script(["1m 1m 1m", "xyz", "1m 2m 3m"])
    choice = HumanPlayer(console).decide(FakeView(), Decision("exchange", 0, options,  # type: ignore[arg-type]
                                                              prompt="pass 3 tiles to the right"))
    assert choice.tiles == (0, 1, 2)
    text = "\n".join(console.lines)
    assert "不能换这几张" in text and "看不懂" in text


def test_ready_and_declare_labels() -> None:
    assert option_label(Option("discard", 10, value="ready"), None) == "报听 打 二筒"
    assert option_label(Option("declare", value="p"), None) == "缺 筒"


def test_watch_with_a_speed_in_line_mode() -> None:
    code, out = play("yongzhou-wangba", "--watch", "--seed", "5", "--speed", "0.01")
    assert code == 0 and ("结算" in out or "流局" in out)


def test_the_line_mode_says_the_winds_where_the_ruleset_has_them() -> None:
    """Each hand starts with 圈风 and every seat's 门风 (the engine's prevalent wind: by the
    deal's passes for wind-by-deal.yaml, so 东 lasts while the dealer keeps the deal); nothing
    of winds for a ruleset without them."""
    import re

    from mjframework.run.simulate import load_cached, make_bots, play_hands

    rules = os.path.join(os.path.dirname(__file__), "rulesets", "wind-by-deal.yaml")
    code, out = play(rules, "--plain", "--watch", "--seed", "11", "--hands", "6", "--no-records")
    assert code == 0, out
    shown = re.findall(r"圈风 (\S)   门风 东家 (\S) · 南家 (\S) · 西家 (\S) · 北家 (\S)", out)
    assert len(shown) == 6
    rs, ev = load_cached(rules, (), None)
    games = [(g.dealer, g.prevalent_wind) for g, _r in play_hands(
        rs, lambda h: make_bots(("greedy",) * 4, 11, 0, h), seed=11, hands=6, emit=lambda e: None,
        evaluator=ev)]
    winds = "东南西北"
    assert [w[0] for w in shown] == [winds[(p or 27) - 27] for _d, p in games]
    assert [w[0] for w in shown][-1] == "东"  # the sixth hand: 南 if hands were counted
    assert all(w[1 + d] == "东" for w, (d, _p) in zip(shown, games, strict=True))  # the dealer sits 东
    code, out = play("changsha", "--plain", "--watch", "--seed", "3", "--no-records")
    assert code == 0 and "圈风" not in out and "门风" not in out
    code, out = play("mcr", "--plain", "--watch", "--seed", "3", "--no-records", "--lang", "en")
    assert code == 0 and "round wind East   seat winds" in out, out[:400]
