"""`mj simulate` / `mj balance` runs: hung, raising and dying plugins; SIGTERM, Ctrl-C and kill -9."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="signals and /proc: Linux")

# A driver that registers misbehaving plugins in-process (workers are forked, so they have
# them too) and runs the `mj` command line with the remaining arguments.
DRIVER = textwrap.dedent('''
    import os, sys, time
    from mjframework.hooks.specs import hookimpl
    from mjframework.hooks.registry import register_plugin
    from mjframework.cli import main

    class Base:
        options_schema = {"type": "object"}
        def __init__(self, options):
            self.options = options

    class Hang(Base):
        @hookimpl
        def mj_after_deal(self, hand):
            if hand.hand_no % 2 == 0:
                while True:
                    time.sleep(0.05)

    class Spin(Base):
        @hookimpl
        def mj_after_deal(self, hand):
            while True:
                pass

    class Boom(Base):
        @hookimpl
        def mj_after_deal(self, hand):
            if hand.hand_no % 3 == 0:
                raise ValueError("boom")

    class Die(Base):
        @hookimpl
        def mj_after_deal(self, hand):
            if hand.hand_no in (3, 20):
                os._exit(7)

    for name, cls in (("hang", Hang), ("spin", Spin), ("boom", Boom), ("die", Die)):
        register_plugin(name, cls)
    sys.exit(main(sys.argv[1:], prog_name="mj"))
''')


def _ruleset(tmp_path: Path, plugin: str) -> Path:
    p = tmp_path / f"with-{plugin}.yaml"
    p.write_text(f"id: with-{plugin}\nextends: changsha\nplugins: {{{plugin}: {{}}}}\n")
    return p


def _driver(tmp_path: Path) -> Path:
    d = tmp_path / "driver.py"
    d.write_text(DRIVER)
    return d


def _run(tmp_path: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(_driver(tmp_path)), *args], capture_output=True, text=True,
                          timeout=timeout, cwd=tmp_path)


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_hung_plugin_times_out_by_name_and_the_run_fails(tmp_path: Path, workers: str) -> None:
    log = tmp_path / "out.jsonl"
    r = _run(tmp_path, "simulate", str(_ruleset(tmp_path, "hang")), "-n", "6", "-s", "1", "-j", workers,
             "--hands-per-game", "2", "--hand-timeout", "1", "--log", str(log))
    assert r.returncode == 1, r.stderr
    assert "Traceback" not in r.stderr
    # (The deadline is wall-clock time: on a very busy machine an ordinary hand could pass it
    # too, so only the hung hands are counted exactly.)
    assert "hands abandoned: plugin 'hang' timed out in mj_after_deal" in r.stderr, r.stderr
    events = [json.loads(line) for line in log.read_text().splitlines()]
    abandons = [e for e in events if e["type"] == "abandon" and e.get("plugin") == "hang"]
    assert len(abandons) == 3 and all("timed out" in e["reason"] for e in abandons)
    assert not list(tmp_path.glob(".out.jsonl.*"))


def test_a_busy_loop_is_stopped_too(tmp_path: Path) -> None:
    r = _run(tmp_path, "simulate", str(_ruleset(tmp_path, "spin")), "-n", "2", "-s", "1",
             "--hand-timeout", "0.5")
    assert r.returncode == 1 and "2 hands abandoned: plugin 'spin' timed out" in r.stderr, r.stderr


def test_a_raising_plugin_makes_the_run_fail(tmp_path: Path) -> None:
    r = _run(tmp_path, "simulate", str(_ruleset(tmp_path, "boom")), "-n", "9", "-s", "1", "--json")
    assert r.returncode == 1, r.stderr
    assert json.loads(r.stdout)["abandoned"] == 3
    assert "3 hands abandoned: plugin 'boom' failed in mj_after_deal" in r.stderr


def test_a_dying_worker_abandons_its_game_and_the_run_goes_on(tmp_path: Path) -> None:
    log = tmp_path / "out.jsonl"
    r = _run(tmp_path, "simulate", str(_ruleset(tmp_path, "die")), "-n", "40", "-s", "1", "-j", "2",
             "--hands-per-game", "4", "--log", str(log), "--json")
    assert r.returncode == 1, r.stderr
    assert "Traceback" not in r.stderr and "BrokenProcessPool" not in r.stderr
    out = json.loads(r.stdout)
    assert out["hands"] == 40 and out["abandoned"] == 8  # the two games (of 4 hands) that died
    assert "8 hands abandoned: worker process died (8)" in r.stderr
    # The rest is the same as a run in which those games' hands are simply abandoned: the log
    # is complete and in order.
    events = [json.loads(line) for line in log.read_text().splitlines()]
    assert sum(e["type"] == "hand_end" for e in events) == 40
    assert not list(tmp_path.glob(".out.jsonl.*"))


def _children(pid: int) -> list[int]:
    out: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError):
            out += [int(x) for x in (task / "children").read_text().split()]
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


def _wait(cond, seconds: float = 60) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.1)
    return cond()


def _start(tmp_path: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "mjframework", *args], cwd=tmp_path, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def test_kill_9_of_the_parent_leaves_no_process_and_the_next_run_no_temp_file(tmp_path: Path) -> None:
    log = tmp_path / "F.jsonl"
    p = _start(tmp_path, "simulate", "changsha", "-n", "200000", "-s", "1", "-j", "2", "--log", str(log))
    try:
        assert _wait(lambda: len(_children(p.pid)) >= 2 and list(tmp_path.glob(".F.jsonl.*part*"))), \
            p.stderr.read() if p.poll() is not None else "no workers"
        workers = _children(p.pid)
        os.kill(p.pid, signal.SIGKILL)
        p.wait(30)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert _wait(lambda: not any(_alive(w) for w in workers)), [w for w in workers if _alive(w)]
    assert list(tmp_path.glob(".F.jsonl.*"))  # what a SIGKILL leaves behind …
    r = subprocess.run([sys.executable, "-m", "mjframework", "simulate", "changsha", "-n", "8", "-s", "1",
                        "--log", str(log)], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert not list(tmp_path.glob(".F.jsonl.*"))  # … the next run removes
    assert log.exists()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_one_signal_stops_everything_and_removes_temp_files(tmp_path: Path, sig: signal.Signals) -> None:
    log = tmp_path / "F.jsonl"
    p = subprocess.Popen([sys.executable, str(_driver(tmp_path)), "simulate", str(_ruleset(tmp_path, "hang")),
                          "-n", "64", "-s", "1", "-j", "2", "--hand-timeout", "0", "--log", str(log)],
                         cwd=tmp_path, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert _wait(lambda: len(_children(p.pid)) >= 2 and list(tmp_path.glob(".F.jsonl.*part*")))
        time.sleep(0.5)  # the workers are in the hung hand now
        workers = _children(p.pid)
        p.send_signal(sig)
        _, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert p.returncode == (143 if sig == signal.SIGTERM else 130), err
    assert "Traceback" not in err
    assert _wait(lambda: not any(_alive(w) for w in workers))
    assert not list(tmp_path.glob(".F.jsonl*")) and not log.exists()


def test_balance_survives_a_dying_worker_too(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    r = _run(tmp_path, "balance", str(_ruleset(tmp_path, "die")), "-n", "40", "-s", "1", "-j", "2",
             "-o", str(tmp_path / "report"))
    assert r.returncode == 1, r.stderr
    assert "Traceback" not in r.stderr
    assert "hands abandoned: worker process died" in r.stderr, r.stderr
    assert (tmp_path / "report" / "balance.html").exists()
