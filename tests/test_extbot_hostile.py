"""Hostile external bots: whatever a program writes, the table gets an option or a leave with
a reason that says what the bot did, in bounded memory and time (docs/limits.md, "External
bots"); a bot's stray children can't keep the table waiting."""

from __future__ import annotations

import json
import math
import os
import shlex
import sys
import time
import tracemalloc
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mjframework.cli import main
from mjframework.play.players import Decision, Option, PlayerLeft
from mjframework.rules.loader import load_ruleset
from mjframework.run.extbot import MAX_LINE, MAX_PENDING, ExternalBot, check_timeout

pytestmark = pytest.mark.skipif(os.name != "posix", reason="process groups and sh")

RS = load_ruleset("changsha")
DECISION = Decision("claim", 2, (Option("pung", 4, (4, 4, 4)), Option("pass")), 4, 1)


def sh(script: str) -> str:
    return f"sh -c {shlex.quote(script)}"


def decide(command: str, timeout: float = 5.0) -> tuple[Option | None, str | None, float]:
    """(the option chosen or None, the leave message or None, seconds to decide and close)."""
    start = time.monotonic()
    bot = ExternalBot(command, RS, name="b", timeout=timeout)
    try:
        bot.sit(2)
        try:
            return bot.decide(None, DECISION), None, time.monotonic() - start  # type: ignore[arg-type]
        except PlayerLeft as e:
            return None, str(e), time.monotonic() - start
    finally:
        bot.close(grace=0.2)


SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8)
JSONISH = st.recursive(SCALARS, lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=6), c,
                                                                                   max_size=3), max_leaves=6)
ANSWERS = st.one_of(
    st.binary(max_size=60),
    JSONISH.map(lambda v: json.dumps(v).encode()),
    st.dictionaries(st.sampled_from(["action", "x"]), JSONISH | st.sampled_from(["pass", "pung:5m"]),
                    max_size=2).map(lambda v: json.dumps(v).encode()),
)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(answer=ANSWERS)
def test_any_answer_is_an_option_or_a_leave_with_a_reason(tmp_path_factory: pytest.TempPathFactory,
                                                         answer: bytes) -> None:
    f = tmp_path_factory.mktemp("bot") / "answer"
    f.write_bytes(answer + b"\n")
    option, why, _ = decide(sh(f"cat {shlex.quote(str(f))}; exec sleep 30"), timeout=2.0)
    if option is not None:
        assert option in DECISION.options
        return
    assert why is not None and "bot 'b'" in why
    assert "Error" not in why and "unhashable" not in why  # what the bot did, not a Python error
    assert any(w in why for w in ("garbage", "not one of the options", "where", "without \"action\"",
                                  "invalid UTF-8", "timed out")), why


@pytest.mark.parametrize(("answer", "why"), [
    (b'{"action": ["pass"]}', "sent a list where an action name was expected"),
    (b'{"action": 1}', "sent a number where an action name was expected"),
    (b'["pass"]', "sent a list where an object"),
    (b'{"act": "pass"}', 'without "action"'),
    (b'{"action": "pa\xffss"}', "sent invalid UTF-8"),
])
def test_leave_messages_say_what_the_bot_sent(tmp_path: Path, answer: bytes, why: str) -> None:
    f = tmp_path / "answer"
    f.write_bytes(answer + b"\n")
    option, message, _ = decide(sh(f"cat {shlex.quote(str(f))}; exec sleep 30"))
    assert option is None and message is not None and why in message, message


def test_a_bot_writing_without_a_newline_is_cut_off_in_bounded_memory() -> None:
    """(The issue's bot wrote 1 GB; this one writes without end, the table reads ≤ MAX_LINE + a chunk.)"""
    tracemalloc.start()
    try:
        option, why, _seconds = decide(sh("exec tr '\\0' x < /dev/zero"), timeout=60)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert option is None and why is not None and f"more than {MAX_LINE} bytes without a newline" in why
    assert peak < 8 * MAX_LINE, peak


def test_a_flood_of_short_lines_between_requests_is_bounded() -> None:
    """Lines the table has not asked for are kept up to MAX_PENDING (bytes + a per-line cost); then
    the reading stops and the next request is a leave."""
    tracemalloc.start()
    bot = ExternalBot(sh("exec yes 1"), RS, name="b", timeout=30)
    try:
        bot._reader.join(timeout=120)  # it stops by itself, at the bound
        assert not bot._reader.is_alive()
        _, peak = tracemalloc.get_traced_memory()
        bot.sit(2)
        with pytest.raises(PlayerLeft, match="where an object"):  # the first stale line
            bot.decide(None, DECISION)  # type: ignore[arg-type]
    finally:
        tracemalloc.stop()
        bot.close(grace=0.1)
    assert peak < 4 * MAX_PENDING, peak


def test_blank_lines_forever_end_in_the_timeout_not_memory() -> None:
    tracemalloc.start()
    try:
        option, why, _ = decide(sh("exec yes ''"), timeout=1.0)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert option is None and why is not None and ("timed out" in why or "more than" in why), why
    assert peak < 8 * MAX_LINE, peak


@pytest.mark.parametrize("script", [
    "sleep 60; true",  # the program (a shell) waits on a child that holds its output
    "sleep 60 & exit 0",  # the program is gone, its child still holds the output
])
def test_stray_children_do_not_hang_the_table(script: str) -> None:
    bot = ExternalBot(sh(script), RS, name="b", timeout=0.5)
    start = time.monotonic()
    try:
        bot.sit(2)
        with pytest.raises(PlayerLeft, match="timed out"):
            bot.decide(None, DECISION)  # type: ignore[arg-type]
    finally:
        bot.close(grace=0.2)
    assert time.monotonic() - start < 10
    # The whole group is gone (a killed process may take a moment to be reaped on a busy machine).
    deadline = time.monotonic() + 30
    while living_in_group(bot.proc.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert living_in_group(bot.proc.pid) == []


def living_in_group(pgid: int) -> list[int]:
    """Processes of group ``pgid`` that are not zombies (a container's init may never reap them)."""
    if not os.path.isdir("/proc/self"):
        pytest.skip("no /proc")
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == pgid and fields[0] != "Z":
                out.append(int(entry))
    return out


def test_exit_and_closed_output_are_told_apart() -> None:
    _, why, _ = decide(sh("exit 3"))
    assert why is not None and "exited with code 3" in why
    _, why, _ = decide(sh("exec >&-; exec sleep 30"))
    assert why is not None and "closed its output (still running)" in why


@pytest.mark.parametrize("bad", [math.inf, -math.inf, math.nan, 0, -1, 1e9, True])
def test_bot_timeout_range(bad: float) -> None:
    with pytest.raises(ValueError, match="above 0"):
        check_timeout(bad)


@pytest.mark.parametrize("text", ["inf", "nan", "-1", "0", "1e999", "lots"])
def test_cli_bot_timeout_rejected(text: str) -> None:
    for cmd in (["play", "changsha", "--bot", "true", "--watch", "--bot-timeout", text],
                ["match", "changsha", "--seats", "bot1,greedy,greedy,greedy", "--bot", "true", "-n", "1",
                 "--bot-timeout", text]):
        r = CliRunner().invoke(main, cmd)
        assert r.exit_code == 1 and "--bot-timeout" in r.output, (cmd, r.output)


def test_match_exits_1_when_a_bot_leaves() -> None:
    r = CliRunner().invoke(main, ["match", "changsha", "--seats", "bot1,greedy,greedy,greedy",
                                  "--bot", f"{sys.executable} -c 'import sys; sys.exit(5)'", "-n", "2"])
    assert r.exit_code == 1, r.output
    assert "bot 'bot1' left the table: exited with code 5" in r.output
    r = CliRunner().invoke(main, ["match", "changsha", "--seats", "bot1,greedy,greedy,greedy", "--json",
                                  "--bot", f"{sys.executable} -c 'import sys; sys.exit(5)'", "-n", "2"])
    assert r.exit_code == 1
    assert json.loads(r.stdout)["left"] == {"bot1": "exited with code 5"}
