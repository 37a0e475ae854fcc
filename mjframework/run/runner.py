"""One parallel runner: chunks of work kept in flight in a window, results taken in order.

``mj simulate`` (local processes) and ``mj balance`` (local processes, a Dask or a Ray
cluster) run their chunks of games through :func:`run_windowed`. Results are merged in
the order the chunks were given, whatever finishes first, so what a run produces (its
statistics, its log) does not depend on how many workers played it.

:class:`ProcessPool` is the local backend: a process pool that survives a worker's death
(a crash, memory, a plugin ending its process). The chunk being waited for is handed to
the caller's ``replay`` (typically game by game, each in a fresh process: :func:`run_alone`,
so that the one game that kills its process again can be counted as abandoned); the other
chunks in flight are resubmitted to a new pool. Deadlines inside a chunk (a hand's timeout)
are the work's own business; this module only moves chunks and results.
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from concurrent.futures import Future, InvalidStateError, ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool, _ExecutorManagerThread
from multiprocessing.context import BaseContext
from typing import Generic, Literal, Protocol, TypeVar

from ..core.procs import die_with_parent

T = TypeVar("T")
R = TypeVar("R")
R_co = TypeVar("R_co", covariant=True)

MAX_WORKERS_PER_CPU = 4  # local worker processes per usable CPU, at most (usable_workers)
MANAGER_JOIN_SECONDS = 5.0  # kill_pool's wait for the killed pool's manager thread
HARVEST_SECONDS = 10.0  # after Ctrl-C, how long running chunks may take to finish (``harvest``)


class ChunkFuture(Protocol[R_co]):
    """What :func:`run_windowed` needs of a future (a ``concurrent.futures`` or Dask one, or
    an adapter such as balance's for a Ray ``ObjectRef``)."""

    def result(self, timeout: float | None = None) -> R_co: ...

    def cancel(self) -> bool: ...

    def cancelled(self) -> bool: ...


def run_windowed(items: Iterable[T], submit: Callable[[T], ChunkFuture[R]], window: int,
                 merge: Callable[[T, R], None], *,
                 on_interrupt: Literal["raise", "stop", "harvest"] = "raise") -> bool:
    """Keep ``window`` chunks in flight; ``merge`` each result in the order of ``items``.

    ``items`` is consumed lazily (one more each time a chunk is merged), so per-chunk set-up
    (a temp file) happens only for chunks about to be submitted. Returns True if a Ctrl-C
    stopped the run. On any exception the chunks not started are cancelled; then, for a
    KeyboardInterrupt, ``on_interrupt`` says what happens: ``raise`` it (the caller stops
    its workers), ``stop`` (return True: what was merged so far is the partial result) or
    ``harvest`` (a local pool, whose workers ignore SIGINT and finish their chunk anyway:
    the chunks already running are still merged, in order, for at most
    :data:`HARVEST_SECONDS`, unless Ctrl-C comes again; then return True).
    """
    pending: deque[tuple[T, ChunkFuture[R]]] = deque()
    it = iter(items)
    try:
        for item in it:
            pending.append((item, submit(item)))
            if len(pending) >= window:
                break
        while pending:
            item, fut = pending.popleft()
            merge(item, fut.result())
            for item in it:  # the next chunk, if any
                pending.append((item, submit(item)))
                break
    except BaseException as e:
        for _, fut in pending:
            fut.cancel()
        if not isinstance(e, KeyboardInterrupt) or on_interrupt == "raise":
            raise
        if on_interrupt == "harvest":  # bounded: one Ctrl-C must stop the run, hung hand or not
            deadline = time.monotonic() + HARVEST_SECONDS
            try:
                for item, fut in pending:
                    if fut.cancelled():
                        break
                    merge(item, fut.result(timeout=max(deadline - time.monotonic(), 0.01)))
            except (KeyboardInterrupt, FutureTimeout, BrokenProcessPool):
                pass
        return True
    return False


# -- local processes -----------------------------------------------------------------------


def usable_workers(requested: int, hands: int) -> int:
    """How many local worker processes a run asking for ``requested`` gets: no more than it
    plays ``hands``, nor than :data:`MAX_WORKERS_PER_CPU` per CPU this process may run on;
    at least 1. (``--workers 10000`` for a 2-game run forked 2,014 processes: a pool forks
    all its workers at once.) The results never depend on it.
    """
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        cpus = os.cpu_count() or 1
    return max(1, min(requested, hands, MAX_WORKERS_PER_CPU * max(cpus, 1)))


def worker_init() -> None:
    """Workers die with the parent and leave Ctrl-C to it (it kills them and cleans up)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # first: the parent's handlers are no worker's
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    die_with_parent()


def return_free_memory() -> None:
    """Give the C heap's free pages back to the system (glibc's ``malloc_trim``), before a
    pool forks; elsewhere nothing.

    Memory the parent freed but still holds (what loading a ruleset made and dropped) is
    shared with forked workers, and each worker that allocates there copies the page: a
    copy per worker of memory nobody uses. Measured on a 2-worker ``mj simulate``: the
    process tree's peak PSS 115-116 MB without, 111 MB with (benchmarks/README.md)."""
    if sys.platform != "linux":
        return
    try:
        trim = ctypes.CDLL(None).malloc_trim  # (absent from musl: nothing to do there)
    except (OSError, AttributeError):
        return
    trim(0)


def pool_context() -> BaseContext | None:
    """``fork`` where the platform has it (workers inherit what the parent loaded), else the default."""
    if sys.platform == "linux" and "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    return None


def new_pool(workers: int) -> ProcessPoolExecutor:
    return ProcessPoolExecutor(max_workers=workers, initializer=worker_init, mp_context=pool_context())


def _quiet_cancelled_race(args: threading.ExceptHookArgs) -> None:
    """Drop the pool's own ``InvalidStateError`` for a future cancelled before its pool broke.

    CPython before 3.12 (gh-107219) has the pool's manager thread mark every pending future
    failed when a worker dies, and a future the caller has just cancelled makes that raise
    and print a thread traceback. That is what killing a pool after cancelling its chunks
    (Ctrl-C, SIGTERM) looks like; newer CPythons ignore the error the same way. Anything
    else goes to the hook that was there before.
    """
    if isinstance(args.thread, _ExecutorManagerThread) and args.exc_type is InvalidStateError:
        return
    _previous_excepthook(args)


_previous_excepthook = threading.excepthook


def _install_quiet_race() -> None:
    global _previous_excepthook
    if threading.excepthook is not _quiet_cancelled_race:
        _previous_excepthook = threading.excepthook
        threading.excepthook = _quiet_cancelled_race


def kill_pool(pool: ProcessPoolExecutor) -> None:
    """Stop a pool now: kill its processes (a hung hand would never let ``shutdown`` return)."""
    _install_quiet_race()
    manager = getattr(pool, "_executor_manager_thread", None)  # shutdown forgets it
    for p in list((getattr(pool, "_processes", None) or {}).values()):  # no public API for this
        with contextlib.suppress(OSError, AttributeError, ValueError):
            p.kill()
    pool.shutdown(wait=False, cancel_futures=True)
    # With its workers dead the pool's manager thread ends at once. Let it: one still closing
    # its wake-up pipe when the interpreter exits races with the exit handler that writes to
    # that pipe (CPython before 3.12: "Bad file descriptor" printed from threading._shutdown).
    if manager is not None and manager.ident is not None:  # (never started: nothing to wait for)
        manager.join(timeout=MANAGER_JOIN_SECONDS)


def run_alone(work: Callable[[T], R], item: T) -> R | None:
    """``work(item)`` in a fresh process of its own; None if that process died."""
    pool = new_pool(1)
    try:
        result = pool.submit(work, item).result()
    except BrokenProcessPool:
        kill_pool(pool)
        return None
    except BaseException:
        kill_pool(pool)
        raise
    pool.shutdown(wait=True)
    return result


def _to_stderr(message: str) -> None:
    with contextlib.suppress(OSError, ValueError, AttributeError):
        print(f"mj: {message}", file=sys.stderr, flush=True)


def died_how(processes: Iterable[object]) -> str:
    """How a broken pool's worker ended: ``killed by SIGKILL``, ``exit code 3`` (or ``cause unknown``).

    The pool's manager stops the other workers with SIGTERM when one dies: another end is
    the cause, a SIGTERM only if there is nothing else.
    """
    processes = list(processes)
    for p in processes:  # (the manager thread may be reaping them this very moment)
        with contextlib.suppress(Exception):
            p.join(timeout=1.0)  # type: ignore[attr-defined]
    ends = [code for p in processes if (code := getattr(p, "exitcode", None)) not in (None, 0)]
    ends.sort(key=lambda c: c == -signal.SIGTERM)
    if not ends:
        return "cause unknown"
    code = ends[0]
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


class ProcessPool(Generic[T, R]):
    """``workers`` local processes running ``work(item)``; survives a worker's death.

    ``work`` must be picklable (a module-level function or a ``functools.partial`` of one).
    When the pool breaks, the chunk whose result is asked for is computed by ``replay(item)``
    in this process (which may use :func:`run_alone`); the other chunks in flight go to a
    new pool. End with :meth:`shutdown` (all results taken) or :meth:`kill`.
    """

    def __init__(self, work: Callable[[T], R], workers: int, replay: Callable[[T], R],
                 notify: Callable[[str], None] | None = None) -> None:
        self.work, self.workers, self.replay = work, workers, replay
        self.notify = notify or _to_stderr
        self._procs: set[object] = set()  # the current pool's worker processes
        self.pool = new_pool(workers)
        self._jobs: list[_Job[T, R]] = []  # submitted, result not taken yet

    def submit(self, item: T) -> _Job[T, R]:
        job = _Job(self, item)
        self._send(job)
        self._jobs.append(job)
        return job

    def _send(self, job: _Job[T, R]) -> None:
        try:
            job.fut = self.pool.submit(self.work, job.item)
            # (kept: a broken pool's manager may forget its processes before _lost asks how one ended)
            self._procs.update((getattr(self.pool, "_processes", None) or {}).values())
        except BrokenProcessPool as e:  # the pool broke already: a future that says so
            failed: Future[R] = Future()
            failed.set_exception(e)
            job.fut = failed

    def _lost(self, job: _Job[T, R]) -> R:
        """``job``'s worker died, and with it every chunk in flight: one line says so."""
        self.notify(f"a worker process died ({died_how(self._procs)}); its games are replayed one by one "
                    "in fresh processes")
        kill_pool(self.pool)
        self.pool = new_pool(self.workers)
        self._procs = set()
        for other in self._jobs:
            if other is not job and not other.fut.cancelled():
                self._send(other)
        return self.replay(job.item)

    def _taken(self, job: _Job[T, R]) -> None:
        self._jobs.remove(job)

    def shutdown(self) -> None:
        self.pool.shutdown(wait=True)

    def kill(self) -> None:
        for job in self._jobs:
            job.fut.cancel()
        kill_pool(self.pool)  # one Ctrl-C (or SIGTERM) stops everything, even a hung hand


class _Job(Generic[T, R]):
    """A chunk submitted to a :class:`ProcessPool` (a :class:`ChunkFuture`)."""

    fut: Future[R]

    def __init__(self, owner: ProcessPool[T, R], item: T) -> None:
        self.owner, self.item = owner, item

    def result(self, timeout: float | None = None) -> R:
        try:
            r = self.fut.result(timeout=timeout)
        except BrokenProcessPool:
            r = self.owner._lost(self)
        self.owner._taken(self)
        return r

    def cancel(self) -> bool:
        return self.fut.cancel()

    def cancelled(self) -> bool:
        return self.fut.cancelled()


__all__ = ["HARVEST_SECONDS", "MAX_WORKERS_PER_CPU", "ChunkFuture", "ProcessPool", "died_how", "kill_pool",
           "new_pool", "pool_context", "run_alone", "run_windowed", "usable_workers", "worker_init"]
