"""Child processes that don't outlive their parent.

A worker of ``mj simulate`` / ``mj balance`` / ``mj serve`` calls
:func:`die_with_parent` first thing. On Linux the kernel then sends it SIGKILL
when the parent dies, whatever killed the parent (``prctl(PR_SET_PDEATHSIG)``
through :mod:`ctypes`); elsewhere a daemon thread polls the parent's pid and
ends the process when it changes (the child was re-parented), within a second.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import shutil
import signal
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

PR_SET_PDEATHSIG = 1


def _prctl_pdeathsig() -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        # The running program's own symbols include the C library's: no ``find_library``,
        # which would start a subprocess (ldconfig) in every worker.
        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def _watch_parent(parent: int, interval: float) -> None:
    while True:
        time.sleep(interval)
        if os.getppid() != parent:
            os._exit(1)


def die_with_parent(parent: int | None = None, *, interval: float = 0.5) -> None:
    """Make this process end when its parent (``parent``, default: the current one) does."""
    parent = os.getppid() if parent is None else parent
    _prctl_pdeathsig()
    # The parent may have died before the prctl took effect; and the watch thread is the
    # portable fallback (and costs nothing where the kernel already does the job).
    if os.getppid() != parent:
        os._exit(1)
    threading.Thread(target=_watch_parent, args=(parent, interval), daemon=True,
                     name="mj-parent-watch").start()




class Terminated(KeyboardInterrupt):
    """SIGTERM, raised like Ctrl-C so the same clean-up runs (temp files, worker processes)."""


@contextlib.contextmanager
def sigterm_raises() -> Iterator[None]:
    """Within the block, SIGTERM raises :class:`Terminated` in the main thread (and Ctrl-C
    or SIGTERM caught where Python can't raise is delivered again, not lost)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    me = os.getpid()

    def handler(signum: int, frame: Any) -> None:
        if os.getpid() != me:
            # A process forked from this one (a pool's worker) before it set its own handlers:
            # it ends as SIGTERM ends a process, quietly, instead of raising in its start-up
            # code ("Exception in initializer: … Terminated").
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTERM)
            return
        raise Terminated()

    def unraisable(args: Any) -> None:
        # A signal handled where Python can't raise (an at-fork callback such as logging's,
        # while a pool starts a worker) is "ignored" with a printed traceback, and the run
        # would go on. Say nothing, and deliver the signal again a moment later.
        if isinstance(args.exc_value, KeyboardInterrupt) and os.getpid() == me:
            sig = signal.SIGTERM if isinstance(args.exc_value, Terminated) else signal.SIGINT
            timer = threading.Timer(0.05, os.kill, (me, sig))
            timer.daemon = True
            timer.start()
            return
        old_hook(args)

    old = signal.signal(signal.SIGTERM, handler)
    old_hook = sys.unraisablehook
    sys.unraisablehook = unraisable
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)
        sys.unraisablehook = old_hook


def pid_alive(pid: int) -> bool:
    """Whether a process ``pid`` exists (one of another user counts as alive)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:  # pragma: no cover - e.g. an absurd pid
        return False
    return True


def remove_stale(folder: Path, prefix: str, suffix: str = "") -> list[Path]:
    """Remove this user's files (or folders) ``{prefix}{pid}.…{suffix}`` in ``folder`` whose
    process is gone.

    Temporary files named this way (the writer's pid right after ``prefix``) are
    left behind only when their writer was killed outright (SIGKILL, power loss);
    the next run that writes the same file removes them.
    """
    removed: list[Path] = []
    try:
        entries = list(folder.glob(glob_escape(prefix) + "*" + glob_escape(suffix)))
    except OSError:
        return removed
    me = os.getpid()
    for f in entries:
        pid_text = f.name[len(prefix):].replace("-", ".").split(".", 1)[0]
        if not pid_text.isdigit() or int(pid_text) == me or pid_alive(int(pid_text)):
            continue
        try:
            if f.is_symlink() or f.lstat().st_uid != os.getuid():
                continue
            if f.is_file():
                f.unlink()
            elif f.is_dir():
                shutil.rmtree(f)  # (symlinks inside are removed, not followed)
            else:
                continue
            removed.append(f)
        except OSError:
            continue
    return removed


def glob_escape(text: str) -> str:
    return "".join(f"[{c}]" if c in "*?[]" else c for c in text)


__all__ = ["Terminated", "die_with_parent", "pid_alive", "remove_stale", "sigterm_raises"]
