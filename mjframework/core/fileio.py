"""Writing files the one way: atomically, with a normal file's permissions, ``-`` for stdout.

Every file mjframework writes (rule cards, schemas, simulation logs, balance
reports, win tables, scaffolded packages) goes through here:

- it is written to a temporary name in the target folder and renamed into
  place, so nothing half-written is left behind (an interrupted run leaves the
  old file, or none);
- it gets the mode a plain ``open(path, "w")`` would give: ``0o666`` less the
  process umask (``mkstemp`` alone would leave ``0o600``);
- where a command writes a file, ``-`` means standard output, and where it
  reads one, standard input (:func:`is_stdio`).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

STDIO = "-"
_UMASK_LOCK = threading.Lock()


def is_stdio(path: str | os.PathLike[str] | None) -> bool:
    """``-``: standard input or output rather than a file."""
    return path is not None and str(path) == STDIO


def current_umask() -> int:
    """The process umask (read from ``/proc`` where there is one, else set-and-restore under a lock)."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    with _UMASK_LOCK:
        mask = os.umask(0o022)
        os.umask(mask)
    return mask


def new_file_mode() -> int:
    """What ``open(path, "w")`` would create: 0o666 less the umask (0o644 with the usual 022)."""
    return 0o666 & ~current_umask()


def temp_beside(path: Path, suffix: str = ".tmp", tag: str = "") -> tuple[int, str]:
    """A temporary file in ``path``'s folder (created), for :func:`commit` to rename into place.

    Its name, ``.NAME.PID.TAG…SUFFIX``, carries the writer's pid: temporary files of
    ``path`` left by a writer that was killed outright (SIGKILL, power loss) are
    removed here, by the next writer of the same file.
    """
    from .procs import remove_stale

    path.parent.mkdir(parents=True, exist_ok=True)
    remove_stale(path.parent, f".{path.name}.")  # any suffix: parts (.part) and whole files (.tmp)
    return tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}.{tag}", suffix=suffix, dir=path.parent)


def commit(tmp: str | Path, path: Path) -> None:
    """Give ``tmp`` a normal file's mode and rename it to ``path``."""
    os.chmod(tmp, new_file_mode())
    os.replace(tmp, path)


@contextlib.contextmanager
def atomic_writer(path: str | Path, *, binary: bool = False) -> Iterator[IO[Any]]:
    """Write ``path`` through a temporary file, renamed into place only if the block succeeds."""
    p = Path(path)
    fd, tmp = temp_beside(p)
    try:
        if binary:
            with os.fdopen(fd, "wb") as fb:
                yield fb
        else:
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as ft:
                yield ft
        commit(tmp, p)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_atomic(path: str | Path, data: str | bytes) -> None:
    """Write ``data`` (text as UTF-8) to ``path`` atomically, with a normal file's mode."""
    with atomic_writer(path, binary=isinstance(data, bytes)) as f:
        f.write(data)


__all__ = ["STDIO", "atomic_writer", "commit", "current_umask", "is_stdio", "new_file_mode", "temp_beside",
           "write_atomic"]
