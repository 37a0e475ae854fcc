"""``mj score`` and ``mj conformance`` through click's test runner.

Every user error must end with a one-line message on stderr and exit status 1,
never a traceback; a hand that doesn't win is an answer, not an error (exit 0).
"""

from __future__ import annotations

import contextlib
import json
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from mjframework.cli import main

ROOT = Path(__file__).resolve().parents[1]
OWN_CASES = ROOT / "tests" / "conformance"
SAMPLES = ROOT / "tests" / "conformance-samples"

HD = "yongzhou-huandiao"
WB = "yongzhou-wangba"
CS = "changsha"


def mj(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def score_json(*args: str) -> dict:
    r = mj("score", *args, "--json")
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def ok(r: Result) -> str:
    assert r.exit_code == 0, (r.output, r.exception)
    assert "Traceback" not in r.output
    return r.stdout


def user_error(r: Result, *words: str) -> str:
    """Exit 1 with a clear message (naming ``words``) and no traceback."""
    assert r.exit_code == 1, (r.exit_code, r.output)
    assert isinstance(r.exception, SystemExit), repr(r.exception)
    assert "Traceback" not in r.output
    message = r.stderr.strip()
    assert message, r.output
    for w in words:
        assert w in message, (w, message)
    return message


def payments(stdout: str) -> list[int]:
    """The net line of the text output: ``净得  庄家 +90   下家 -30   对家 -30   上家 -30``."""
    for line in stdout.splitlines():
        parts = line.split()
        if parts and parts[0] == "净得":
            return [int(x) for x in parts[2::2]]
    return []


# ---------------------------------------------------------------------------
# mj score: happy paths


def test_score_huandiao_text() -> None:
    out = ok(mj("score", HD, "345m 678m 222s 456s 1p", "-t", "6z", "-w", "1p"))
    assert "永州麻将" in out and "(yongzhou-huandiao)" in out
    assert "三万" in out and "发" in out and "王 一筒" in out  # Chinese tile names
    assert "番型 单换调  30" in out
    assert "合计 30" in out
    assert "报   换调" in out
    assert payments(out) == [90, -30, -30, -30]


def test_score_wangba_text() -> None:
    out = ok(mj("score", WB, "123m 456m 789m 234p 1z", "-t", "5s", "-w", "1z"))
    assert "王霸" in out and "五索" in out and "东" in out
    assert "番型 王钓  4" in out
    assert payments(out) == [12, -4, -4, -4]


def test_score_changsha_text_accepts_chinese_names() -> None:
    out = ok(mj("score", CS, "三万 四万 五万 六万 七万 八万 七筒 八筒 九筒 三索 四索 五索 二筒",
                "-t", "二筒"))
    assert "长沙麻将" in out
    assert "[二筒 二筒]" in out  # the reading, in players' names
    assert "番型 平胡  10" in out
    assert payments(out) == [60, -20, -20, -20]


@pytest.mark.parametrize(("args", "patterns", "pays", "call"), [
    ((HD, "345m 678m 222s 456s 1p", "-t", "6z", "-w", "1p"), ["单换调"], [90, -30, -30, -30], "换调"),
    ((HD, "345m 678m 222s 456s 1p", "-t", "1p", "-w", "1p"), ["单换调王"], [180, -60, -60, -60],
     "换调王"),
    ((WB, "123m 456m 789m 234p 1z", "-t", "5s", "-w", "1z", "-s", "1"), ["王钓"], [-4, 12, -4, -4],
     None),
    ((CS, "123m 456m 789p 345s 2p", "-t", "2p", "-s", "2"), ["平胡"], [-20, -10, 40, -10], None),
])
def test_score_json(args: tuple[str, ...], patterns: list[str], pays: list[int],
                    call: str | None) -> None:
    out = score_json(*args)
    assert out["win"] is True
    assert [p["name"] for p in out["patterns"]] == patterns
    assert out["points"] == sum(p["points"] * p["times"] for p in out["patterns"])
    assert out["payments"] == pays
    assert sum(out["payments"]) == 0
    assert out["call"] == call
    assert out["ruleset"] == args[0]
    assert isinstance(out["reading"], str) and out["reading"]


def test_indicator_gives_the_wildcard_after_it() -> None:
    by_wild = score_json(HD, "345m 678m 222s 456s 1p", "-t", "6z", "-w", "1p")
    by_indicator = score_json(HD, "345m 678m 222s 456s 1p", "-t", "6z", "-i", "9p")  # 9→1
    assert by_indicator == by_wild
    assert by_indicator["wildcard"] == "1p"
    # 北 → 东 (winds cycle), 中 → 发 (dragons 中发白 cycle), Chinese names accepted
    assert score_json(WB, "123m 456m 789m 234p 1z", "-t", "5s", "-i", "北")["wildcard"] == "1z"
    assert score_json(WB, "123m 456m 789m 234p 6z", "-t", "5s", "-i", "中")["wildcard"] == "6z"
    # with 1p flipped, 2p is wild: the hand holds none, the 1p is plain and 6z wins nothing
    other = score_json(HD, "345m 678m 222s 456s 1p", "-t", "6z", "-i", "1p")
    assert other["wildcard"] == "2p" and other["win"] is False


def test_wildcard_and_indicator_together_is_an_error() -> None:
    user_error(mj("score", HD, "345m 678m 222s 456s 1p", "-t", "6z", "-w", "1p", "-i", "9p"),
               "--wildcard", "--indicator")


def test_discard_from() -> None:
    # wangba: the discarder alone pays the total
    out = score_json(WB, "123m 456m 789m 234p 1z", "-t", "5s", "-w", "1z", "-s", "1", "-d", "2")
    assert out["payments"] == [0, 4, -4, 0]
    # changsha: dealer discards to seat 3: 10 + 10 dealer bonus
    out = score_json(CS, "123s 567s 789m 88p 34m", "-t", "5m", "-s", "3", "-d", "0")
    assert out["patterns"][0]["name"] == "平胡"
    assert out["payments"] == [-20, 0, 0, 20]
    # huandiao has no win on a discard: an answer, not an error
    r = mj("score", HD, "345m 678m 222s 456s 1p", "-t", "6z", "-w", "1p", "-d", "2")
    out_text = ok(r)
    assert "不胡" in out_text and "discard" in out_text


def test_wildcard_is_never_won_on_a_discard() -> None:
    out = score_json(WB, "123m 456m 789m 234p 1z", "-t", "1z", "-w", "1z", "-s", "1", "-d", "2")
    assert out["win"] is False and "wildcard" in out["reason"]


def test_flag_last_tile() -> None:
    plain = score_json(CS, "123m 456m 789p 345s 2p", "-t", "2p", "-s", "1")
    assert [p["name"] for p in plain["patterns"]] == ["平胡"]
    out = score_json(CS, "123m 456m 789p 345s 2p", "-t", "2p", "-s", "1", "--flag", "last_tile")
    assert [p["name"] for p in out["patterns"]] == ["海底捞月"]  # a big: 平胡 no longer counts
    assert out["payments"] == [-70, 190, -60, -60]
    out = score_json(CS, "123m 456m 789p 345s 2p", "-t", "2p", "-s", "1", "-d", "3",
                     "-f", "last_tile")
    assert [p["name"] for p in out["patterns"]] == ["海底炮"]
    assert out["payments"] == [0, 60, 0, -60]


def test_changsha_birds_double_payments() -> None:
    hand = (CS, "123m 456m 789p 345s 2p", "-t", "2p")
    plain = score_json(*hand)
    assert plain["payments"] == [60, -20, -20, -20]
    # 3m hits seat 2, 4s seat 3: their payments to the dealer double
    birds = score_json(*hand, "--context", "birds=3m 4s")
    assert birds["payments"] == [100, -20, -40, -40]
    # a bird on the winner doubles everything it receives; two birds on it, ×4
    assert score_json(*hand, "-c", "birds=1m 9p")["payments"] == [240, -80, -80, -80]
    assert score_json(*hand, "-c", "birds=5s")["payments"] == [120, -40, -40, -40]
    text = ok(mj("score", *hand, "-c", "birds=3m 4s"))
    assert payments(text) == [100, -20, -40, -40]


def test_kong_melds_add_kong_payments_in_huandiao() -> None:
    base = score_json(HD, "345m 678m 222s 456s 1p", "-t", "6z", "-w", "1p", "-s", "1")
    assert base["payments"] == [-30, 90, -30, -30]
    # 点杠 from seat 2: seat 2 pays 30 more
    out = score_json(HD, "345m 678m 222s 1p", "-t", "6z", "-w", "1p", "-s", "1",
                     "--melds", "kong 5s from 2")
    assert out["patterns"][0]["name"] == "单换调"
    assert out["payments"] == [-30, 120, -60, -30]
    # 明杠: each other pays 10; 暗杠: each other pays 20
    out = score_json(HD, "345m 678m 222s 1p", "-t", "6z", "-w", "1p", "-s", "1",
                     "-m", "added-kong 5s")
    assert out["payments"] == [-40, 120, -40, -40]
    out = score_json(HD, "345m 678m 222s 1p", "-t", "6z", "-w", "1p", "-s", "1",
                     "-m", "concealed-kong 5s")
    assert out["payments"] == [-50, 150, -50, -50]
    text = ok(mj("score", HD, "345m 678m 222s 1p", "-t", "6z", "-w", "1p", "-s", "1",
                 "--melds", "kong 5s from 2"))
    assert "副露" in text and "五索 五索 五索 五索" in text
    assert payments(text) == [-30, 120, -60, -30]


def test_after_kong_call() -> None:
    out = score_json(HD, "345m 678m 222s 1p", "-t", "6z", "-w", "1p", "-m", "concealed-kong 5s",
                     "-f", "after_kong")
    assert out["call"] == "开杠单换调"


def test_non_win_prints_why_and_exits_0() -> None:
    r = mj("score", CS, "345m 678p 234s 567s 7m", "-t", "7m")  # 7m pair: no 乱将 pattern
    out = ok(r)
    assert "不胡" in out
    assert "番型" not in out and "净得" not in out
    out = score_json(CS, "345m 678p 234s 567s 7m", "-t", "7m")
    assert out["win"] is False and out["reason"] and out["payments"] is None
    assert out["patterns"] == []


# ---------------------------------------------------------------------------
# mj score: bad input


@pytest.mark.parametrize(("args", "words"), [
    # wrong tile count
    ((CS, "123m 456m 789p 345s", "-t", "2p"), ["14", "13"]),
    ((CS, "123m 456m 789p 345s 22p", "-t", "2p"), ["14", "15"]),
    ((HD, "345m 678m 222s 1p", "-t", "6z", "-w", "1p", "-m", "pung 5s", "-m", "pung 7s"),
     ["14"]),
    # five of a tile
    ((CS, "22222m 456m 789p 345s", "-t", "2p"), ["二万", "4"]),
    ((CS, "2222m 456m 789p 345s", "-t", "2m"), ["二万", "4"]),
    # not a meld
    ((CS, "123m 456m 345s 2p", "-t", "2p", "-m", "chow 357p"), ["chow 357p", "consecutive"]),
    ((CS, "123m 456m 345s 2p", "-t", "2p", "-m", "pung 5s6s"), ["pung 5s6s"]),
    ((CS, "123m 456m 345s 2p", "-t", "2p", "-m", "triple 5s"), ["triple"]),
    ((HD, "123m 456m 345s 2p", "-t", "2p", "-m", "chow 789p"), ["chow"]),
    # a wildcard inside a meld
    ((HD, "123m 456m 345s 2p", "-t", "2p", "-m", "pung 3p", "-w", "3p"), ["wildcard", "三筒"]),
    ((WB, "123m 456m 345s 2p", "-t", "2p", "-m", "kong 3p from 1", "-i", "2p"), ["wildcard"]),
    # bad tile strings: the message names the column
    ((CS, "123m 456m x789p 345s 2p", "-t", "2p"), ["column 11", "x"]),
    ((CS, "123m 456m 789p 345s 2p", "-t", "0m"), ["0m"]),
    ((CS, "123m 456m 345s 2p", "-t", "2p", "-m", "pung 3q"), ["column 2"]),
    ((WB, "123m 456m 789m 234p 1z", "-t", "5s", "-w", "8z"), ["8z"]),
    # unknown ruleset
    (("nosuch", "123m 456m 789p 345s 2p", "-t", "2p"), ["nosuch", "changsha"]),
    # no wildcard rule in changsha
    ((CS, "123m 456m 789p 345s 2p", "-t", "2p", "-w", "3p"), ["no wildcard"]),
    ((CS, "123m 456m 789p 345s 2p", "-t", "2p", "-i", "3p"), ["no wildcard"]),
    # an honor in the 108-tile set
    ((CS, "123m 456m 789p 345s 1z", "-t", "1z"), ["东"]),
    # unknown flag
    ((CS, "123m 456m 789p 345s 2p", "-t", "2p", "-f", "bogus"), ["bogus", "last_tile"]),
    # context not KEY=VALUE; robbing with no one robbed
    ((CS, "123m 456m 789p 345s 2p", "-t", "2p", "-c", "birds"), ["KEY=VALUE"]),
    ((CS, "123m 456m 789p 345s 2p", "-t", "2p", "--robbed-kong"), ["--discard-from"]),
    # discarding to oneself
    ((CS, "123m 456m 789p 345s 2p", "-t", "2p", "-s", "1", "-d", "1"), ["discarder"]),
    # --opening takes dealt tiles only
    ((CS, "1111m 222p 333p 456s", "--opening", "-s", "1", "-t", "3m"), ["--opening"]),
    ((CS, "1111m 222p 333p 456s", "--opening", "-s", "0"), ["14", "13"]),
    ((CS, "123m 456m 789p 345s 2p"), ["--win-tile"]),
])
def test_score_bad_input(args: tuple[str, ...], words: list[str]) -> None:
    user_error(mj("score", *args), *words)


@pytest.mark.parametrize("meld", ["kong 5s", "kong 5s from 1"])
def test_score_claimed_kong_needs_another_seat_as_discarder(meld: str) -> None:
    """点杠 is paid by its discarder (docs/rules/, 换调 "Kongs"): without one, or from the winner himself,
    the meld is not a 点杠 (today: ``kong 5s`` makes every other seat pay 30, and
    ``kong 5s from 1`` for seat 1 is a payment to oneself)."""
    user_error(mj("score", HD, "345m 678m 222s 1p", "-t", "6z", "-w", "1p", "-s", "1",
                  "-m", meld), "kong")


def test_score_opening() -> None:
    # dealer: 1111m is 大四喜 and, with 222p 333p, 六六顺 once: n = 2, each pays 2×10 + 10
    out = score_json(CS, "1111m 222p 333p 456s 7s", "--opening")
    assert sorted((p["name"], p["times"]) for p in out["patterns"]) == [("六六顺", 1), ("大四喜", 1)]
    assert out["payments"] == [90, -30, -30, -30]
    text = ok(mj("score", CS, "1111m 222p 333p 456s", "--opening", "-s", "1"))
    assert "开局" in text and "大四喜" in text and "六六顺" in text
    assert payments(text) == [-30, 70, -20, -20]
    # 板板胡 + 缺一色, birds apply to opening wins too (1m: a bird on the dealer)
    out = score_json(CS, "111m 333m 444m 666m 9m", "--opening", "-s", "2", "-c", "birds=1m")
    assert sorted(p["name"] for p in out["patterns"]) == ["六六顺", "板板胡", "缺一色"]
    assert [p["times"] for p in out["patterns"] if p["name"] == "六六顺"] == [2]
    assert out["payments"] == [-100, -40, 180, -40]
    # nothing to declare: an answer, not an error
    out = score_json(CS, "123m 456m 789p 345s 2p", "--opening", "-s", "3")
    assert out["win"] is False and out["payments"] == [0, 0, 0, 0]


def test_score_bad_bird_tiles_is_a_user_error() -> None:
    """A context value that isn't a tile string: a message naming the input, no crash."""
    user_error(mj("score", CS, "123m 456m 789p 345s 2p", "-t", "2p", "-c", "birds=xx"), "birds")


# ---------------------------------------------------------------------------
# mj conformance


def _last_line(out: str) -> str:
    return out.strip().splitlines()[-1]


def test_conformance_own_files_pass() -> None:
    r = mj("conformance", str(OWN_CASES))
    out = ok(r)
    last = _last_line(out)
    n = int(last.split()[0])
    assert last == f"{n} passed, 0 failed" and n >= 120


def test_conformance_samples_pass() -> None:
    r = mj("conformance", str(SAMPLES), "-v")
    out = ok(r)
    last = _last_line(out)
    n = int(last.split()[0])
    assert last == f"{n} passed, 0 failed" and n > 0
    assert out.count("PASS ") == n


MIXED = """\
format: 1
ruleset: changsha
cases:
  - id: passes
    seat: 0
    hand: 123m 456m 789p 345s 2p
    win_tile: 2p
    expect:
      win: true
      patterns: [平胡]
      payments: [60, -20, -20, -20]
  - id: wrong-payments
    seat: 1
    hand: 234m 345p 666s 789s 8p
    win_tile: 8p
    expect:
      win: true
      payments: [-10, 30, -10, -10]
  - id: bad-tile
    hand: 123m 456m 789x 345s 2p
    win_tile: 2p
    expect: {win: true}
  - id: unknown-key
    hand: 123m 456m 789p 345s 2p
    win_tile: 2p
    colour: red
    expect: {win: true}
"""


def test_conformance_reports_failures_and_errors_and_runs_on(tmp_path: Path) -> None:
    f = tmp_path / "mixed.yaml"
    f.write_text(MIXED, "utf-8")
    r = mj("conformance", str(f))
    assert r.exit_code == 1, r.output
    assert "Traceback" not in r.output
    out = r.stdout
    assert _last_line(out) == "1 passed, 3 failed"
    # the failing case shows expected vs got
    block = out[out.index("wrong-payments"):]
    assert "FAIL wrong-payments" in out
    assert "expected [-10, 30, -10, -10]" in block
    assert "got [-20, 40, -10, -10]" in block
    # bad cases are errors, with their reason
    err_lines = [line for line in out.splitlines() if line.startswith("ERROR")]
    assert any("bad-tile" in line and "column" in line for line in err_lines), err_lines
    assert any("unknown-key" in line and "colour" in line for line in err_lines), err_lines
    assert not any(line.startswith("PASS") for line in out.splitlines())  # only with -v


def test_conformance_json(tmp_path: Path) -> None:
    f = tmp_path / "mixed.yaml"
    f.write_text(MIXED, "utf-8")
    r = mj("conformance", "--json", str(f))
    assert r.exit_code == 1
    lines = r.stdout.strip().splitlines()
    assert r.stderr.strip().splitlines()[-1] == "1 passed, 3 failed"  # (stdout: JSON lines only)
    objs = [json.loads(line) for line in lines]
    assert [o["id"] for o in objs] == ["passes", "wrong-payments", "bad-tile", "unknown-key"]
    assert [o["status"] for o in objs] == ["pass", "fail", "error", "error"]
    assert objs[1]["diffs"] == [{"key": "payments", "expected": [-10, 30, -10, -10],
                                 "got": [-20, 40, -10, -10]}]
    assert objs[0]["got"]["payments"] == [60, -20, -20, -20]
    assert "colour" in objs[3]["message"]
    assert all(o["line"] for o in objs)


def test_conformance_json_all_passing() -> None:
    r = mj("conformance", "--json", str(OWN_CASES / "changsha.yaml"))
    assert r.exit_code == 0, r.output
    lines = r.stdout.strip().splitlines()
    n = len(lines)
    assert r.stderr.strip() == f"{n} passed, 0 failed"
    assert all(json.loads(line)["status"] == "pass" for line in lines)


def test_conformance_case_with_context_not_a_mapping_is_an_error(tmp_path: Path) -> None:
    """A malformed case is reported as an error; the rest still run (no traceback)."""
    f = tmp_path / "ctx.yaml"
    f.write_text(textwrap.dedent("""\
        format: 1
        ruleset: changsha
        cases:
          - id: context-list
            hand: 123m 456m 789p 345s 2p
            win_tile: 2p
            context: [birds]
            expect: {win: true}
          - id: fine
            hand: 123m 456m 789p 345s 2p
            win_tile: 2p
            expect: {win: true}
        """), "utf-8")
    r = mj("conformance", str(f))
    assert "Traceback" not in r.output
    assert not isinstance(r.exception, AttributeError), repr(r.exception)
    assert r.exit_code == 1
    assert "ERROR context-list" in r.stdout
    assert _last_line(r.stdout) == "1 passed, 1 failed"


def test_conformance_ruleset_by_relative_path(tmp_path: Path) -> None:
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "double-small.yaml").write_text(textwrap.dedent("""\
        format: 1
        id: double-small
        name: 长沙麻将 (平胡 20)
        extends: changsha
        patterns:
          - name: 平胡
            shape: standard
            require: {pair: {ranks: [2, 5, 8]}}
            tier: small
            points: 20
        """), "utf-8")
    cases = tmp_path / "cases"
    cases.mkdir()
    (cases / "derived.yaml").write_text(textwrap.dedent("""\
        format: 1
        ruleset: ../rules/double-small.yaml
        cases:
          - id: pinghu-20
            hand: 123m 456m 789p 345s 2p
            win_tile: 2p
            expect:
              win: true
              patterns: [平胡]
              payments: [90, -30, -30, -30]
          - id: bigs-inherited
            seat: 1
            hand: 333m 666p 999s 111p 7s
            win_tile: 7s
            expect:
              patterns: [碰碰胡]
              payments: [-70, 190, -60, -60]
          - id: birds-inherited
            hand: 123m 456m 789p 345s 2p
            win_tile: 2p
            context: {birds: [3m]}
            expect:
              payments: [120, -30, -60, -30]
        """), "utf-8")
    with contextlib.chdir(tmp_path):  # (the project's folder: `../rules` is inside it)
        r = mj("conformance", str(cases), "-v")
    out = ok(r)
    assert _last_line(out) == "3 passed, 0 failed"
    # the path is relative to the conformance file, not to the working directory
    workdir = tmp_path / "elsewhere"
    workdir.mkdir()
    with contextlib.chdir(workdir):
        r = CliRunner().invoke(main, ["--allow-path", str(rules), "conformance", str(cases / "derived.yaml")])
        assert r.exit_code == 0, r.output
        # (without --allow-path, `..` out of the case file's folder and the current one is refused)
        r = CliRunner().invoke(main, ["conformance", str(cases / "derived.yaml")])
        assert r.exit_code == 1 and "--allow-path" in r.output and "Traceback" not in r.output, r.output
    # and the derived ruleset scores with `mj score` given its path
    out = score_json(str(rules / "double-small.yaml"), "123m 456m 789p 345s 2p", "-t", "2p")
    assert out["ruleset"] == "double-small" and out["payments"] == [90, -30, -30, -30]


def test_conformance_missing_file_is_a_user_error(tmp_path: Path) -> None:
    user_error(mj("conformance", str(tmp_path / "nope.yaml")), "nope.yaml")


def test_conformance_bad_ruleset_reference(tmp_path: Path) -> None:
    f = tmp_path / "c.yaml"
    f.write_text("format: 1\nruleset: no-such-ruleset\ncases:\n"
                 "  - id: a\n    hand: 123m\n    win_tile: 2p\n    expect: {win: true}\n", "utf-8")
    r = mj("conformance", str(f))
    assert r.exit_code == 1 and "Traceback" not in r.output
    assert "no-such-ruleset" in r.stdout
    assert _last_line(r.stdout) == "0 passed, 1 failed"
