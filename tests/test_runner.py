"""The one parallel runner (mjframework.run.runner): results merged in the order of the chunks,
whatever finishes first; Ctrl-C raises, stops or harvests; a dead worker's chunk is replayed."""

from __future__ import annotations

import os
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from functools import partial

import pytest

from mjframework.run.runner import ProcessPool, run_alone, run_windowed


def _square_or_die(die_on: int, x: int) -> int:
    if x == die_on:
        os._exit(3)  # the worker process dies (a crash, memory, a plugin ending it)
    return x * x


def test_results_come_in_the_order_of_the_chunks_whatever_finishes_first() -> None:
    gates = {i: threading.Event() for i in range(6)}

    def work(i: int) -> int:
        gates[i].wait(5)
        return i

    got: list[tuple[int, int]] = []
    with ThreadPoolExecutor(6) as ex:
        for i in (5, 3, 1, 4, 2, 0):  # finish in reverse-ish order
            gates[i].set()
        stopped = run_windowed(range(6), lambda i: ex.submit(work, i), 6, lambda i, r: got.append((i, r)))
    assert not stopped and got == [(i, i) for i in range(6)]


def test_the_window_bounds_what_is_in_flight_and_items_are_taken_lazily() -> None:
    taken: list[int] = []
    in_flight: list[int] = []

    def items():
        for i in range(10):
            taken.append(i)
            yield i

    def submit(i: int) -> Future[int]:
        in_flight.append(len(taken) - len(merged))
        f: Future[int] = Future()
        f.set_result(i)
        return f

    merged: list[int] = []
    run_windowed(items(), submit, 3, lambda i, r: merged.append(r))
    assert merged == list(range(10)) and max(in_flight) <= 3


@pytest.mark.parametrize("mode", ["raise", "stop"])
def test_ctrl_c_raises_or_stops_with_what_was_merged(mode: str) -> None:
    merged: list[int] = []

    def merge(i: int, r: int) -> None:
        merged.append(r)
        if i == 2:
            raise KeyboardInterrupt

    def submit(i: int) -> Future[int]:
        f: Future[int] = Future()
        f.set_result(i)
        return f

    if mode == "raise":
        with pytest.raises(KeyboardInterrupt):
            run_windowed(range(8), submit, 2, merge, on_interrupt="raise")
    else:
        assert run_windowed(range(8), submit, 2, merge, on_interrupt="stop") is True
    assert merged == [0, 1, 2]


def test_a_dead_worker_s_chunk_is_replayed_and_the_rest_go_on() -> None:
    replayed: list[int] = []

    def replay(x: int) -> int:  # each chunk lost with the pool (4 and any in flight beside it)
        replayed.append(x)
        r = run_alone(partial(_square_or_die, 4), x)  # 4 dies again, alone: None
        return -1 if r is None else r

    pool = ProcessPool(partial(_square_or_die, 4), 2, replay)
    got: list[int] = []
    try:
        run_windowed(range(8), pool.submit, 4, lambda i, r: got.append(r))
    finally:
        pool.kill()
    assert got == [0, 1, 4, 9, -1, 25, 36, 49] and 4 in replayed
    assert run_alone(partial(_square_or_die, 4), 5) == 25


RACE = """
import sys, time
from concurrent.futures import ProcessPoolExecutor
from mjframework.run import runner

if sys.argv[1] == "quiet":
    runner.kill_pool(ProcessPoolExecutor(1))  # any earlier kill installs the filter
pool = ProcessPoolExecutor(1)
futures = [pool.submit(time.sleep, 30) for _ in range(4)]
time.sleep(0.5)  # two are in the worker's queue, two still pending
for f in futures:
    f.cancel()
for p in pool._processes.values():
    p.kill()
time.sleep(1.0)  # the manager thread finds the pool broken before shutdown cancels anything
pool.shutdown(wait=False, cancel_futures=True)
if sys.argv[2] == "other":  # another thread's error still prints
    import threading
    t = threading.Thread(target=lambda: 1 / 0)
    t.start()
    t.join()
"""


@pytest.mark.parametrize("other", ["", "other"])
def test_a_killed_pool_prints_no_thread_traceback_for_the_futures_it_cancelled(tmp_path, other: str) -> None:
    """Ctrl-C/SIGTERM cancel the chunks, then kill the pool: on CPython before 3.12 the pool's
    manager thread then fails on the cancelled futures and prints a traceback (gh-107219).
    The control run shows the race happens here; after a kill_pool it prints nothing."""
    import subprocess
    import sys

    script = tmp_path / "race.py"
    script.write_text(RACE)

    def run(mode: str) -> str:
        return subprocess.run([sys.executable, str(script), mode, other], capture_output=True, text=True,
                              timeout=120).stderr

    quiet = run("quiet")
    assert "InvalidStateError" not in quiet
    if other:
        assert "ZeroDivisionError" in quiet
    control = run("plain")
    if sys.version_info < (3, 12):
        assert "InvalidStateError" in control  # the race the filter is for


def test_a_dead_worker_is_told_in_one_line() -> None:
    said: list[str] = []
    pool = ProcessPool(partial(_square_or_die, 2), 2, lambda x: -1, notify=said.append)
    try:
        got: list[int] = []
        run_windowed(range(4), pool.submit, 2, lambda i, r: got.append(r))
    finally:
        pool.kill()
    assert -1 in got
    assert said and said[0] == ("a worker process died (exit code 3); its games are replayed one by one "
                                "in fresh processes")


def test_workers_are_capped_by_the_hands_and_the_cpus() -> None:
    from mjframework.run.runner import MAX_WORKERS_PER_CPU, usable_workers

    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    assert usable_workers(10_000, 2) == min(2, MAX_WORKERS_PER_CPU * cpus)
    assert usable_workers(10**100, 10**6) == MAX_WORKERS_PER_CPU * cpus
    assert usable_workers(1, 50) == 1
    assert usable_workers(3, 0) == 1


def test_simulate_with_10000_workers_for_two_games_starts_at_most_two() -> None:
    from mjframework.run.simulate import simulate

    r = simulate("changsha", 2, seed=1, hands_per_game=1, workers=10_000)  # 2 games
    assert r.workers <= 2 and r.to_dict()["workers"] == r.workers


SIGTERM_CHILD = """
import os, signal, sys, time
from mjframework.core.procs import sigterm_raises

with sigterm_raises():
    pid = os.fork()
    if pid == 0:  # a worker before it sets its own handlers (a pool's initializer)
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    print(os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGTERM)
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork")
def test_sigterm_in_a_forked_child_ends_it_quietly() -> None:
    """The parent's SIGTERM handler, inherited by a fork, ends the child as SIGTERM would: no
    `Exception in initializer … Terminated` traceback."""
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-c", SIGTERM_CHILD], capture_output=True, text=True, timeout=60)
    assert r.stdout.strip() == "True" and r.stderr == "", r.stderr


def test_a_sigterm_python_could_not_raise_is_delivered_again() -> None:
    """A SIGTERM handled inside an at-fork callback (a pool starting a worker) is "ignored" by
    Python: the run went on and exited 0. Now it comes again a moment later, and raises."""
    import sys
    import time
    from types import SimpleNamespace

    from mjframework.core.procs import Terminated, sigterm_raises

    with sigterm_raises(), pytest.raises(Terminated):
        sys.unraisablehook(SimpleNamespace(exc_type=Terminated, exc_value=Terminated(), exc_traceback=None,
                                           err_msg="Exception ignored in", object=None))
        for _ in range(500):  # (the re-delivery comes after 0.05 s; this waits up to 5 s)
            time.sleep(0.01)
