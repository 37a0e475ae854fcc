"""Child processes that don't outlive their parent.

A worker of ``mj simulate`` / ``mj balance`` / ``mj serve`` calls
:func:`die_with_parent` first thing. On Linux the kernel then sends it SIGKILL
when the parent dies, whatever killed the parent (``prctl(PR_SET_PDEATHSIG)``
through :mod:`ctypes`); elsewhere a daemon thread polls the parent's pid and
ends the process when it changes (the child was re-parented), within a second.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import sys
import threading
import time

PR_SET_PDEATHSIG = 1


def _prctl_pdeathsig() -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
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


__all__ = ["die_with_parent"]
