"""Writing files the one way: atomically, with a normal file's permissions, ``-`` for stdout.

Every file mjframework writes (rule cards, schemas, simulation logs, balance
reports, win tables, scaffolded packages) goes through here:

- it is written to a temporary name in the target folder and renamed into
  place, so nothing half-written is left behind (an interrupted run leaves the
  old file, or none);
- it gets the mode a plain ``open(path, "w")`` would give: ``0o666`` less the
  process umask (``mkstemp`` alone would leave ``0o600``);
- where a command writes a file, ``-`` means standard output, and where it
  reads one, standard input (:func:`is_stdio`);
- the target must be a regular file or a new name (:func:`check_target`): a
  device, FIFO, socket, folder or symbolic link is refused with
  :class:`OutputError`, never replaced (a rename over ``/dev/null`` run as root
  would destroy the device node). There is deliberately no flag to write
  *through* to one: ``-`` and the shell (``--log - > /dev/null``,
  ``--log - > FIFO``) do that, without mjframework ever opening a special file.
  The check is made when the temporary file is created and again just before
  the rename.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from .errors import MJError

STDIO = "-"
_UMASK_LOCK = threading.Lock()


class OutputError(MJError, OSError):
    """A file can't or mustn't be written: a special file, a symlink, an unwritable folder.

    An :class:`MJError` (the CLI prints it as ``error: …``, exit 1) and an
    :class:`OSError` (callers that tolerate an unwritable cache keep working).
    """


_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
          (stat.S_ISSOCK, "a socket"), (stat.S_ISLNK, "a symbolic link"))


def check_target(path: str | os.PathLike[str]) -> Path:
    """``path`` as a :class:`Path` if it may be written by rename: a new name or a regular file.

    Raises :class:`OutputError` for an empty name, a name ending in a separator,
    or anything else already there (``-`` is for the caller to handle first).
    """
    text = os.fspath(path)
    if not text or not text.strip():
        raise OutputError("an output file name is empty")
    if "\0" in text:
        raise OutputError(f"{text!r}: a file name can't contain NUL")
    if text.endswith(os.sep) or (os.altsep and text.endswith(os.altsep)):
        raise OutputError(f"{text}: a file name, not a folder, is needed")
    p = Path(text)
    if p.name in ("", ".", ".."):
        raise OutputError(f"{text}: a file name, not a folder, is needed")
    try:
        st = os.lstat(p)
    except FileNotFoundError:
        return p
    except OSError as e:
        raise _os_error(p, e) from None
    if stat.S_ISREG(st.st_mode):
        return p
    kind = next((name for test, name in _KINDS if test(st.st_mode)), "not a regular file")
    hint = " (give the file it points to)" if stat.S_ISLNK(st.st_mode) else \
        " (use `-` for standard output and let the shell redirect it)" if not stat.S_ISDIR(st.st_mode) else ""
    raise OutputError(f"won't write {text}: it is {kind}, and only a regular file or a new name is "
                      f"replaced{hint}")


def _os_error(path: Path, e: OSError, step: str = "") -> OutputError:
    why = {errno.EACCES: "permission denied", errno.EPERM: "permission denied",
           errno.EROFS: "a read-only file system",
           errno.ENOSPC: "no space left on the device", errno.ENOTDIR: "a folder on the way is a file",
           errno.ENAMETOOLONG: "the name is too long", errno.EBUSY: "the target is busy (a mount point?)",
           errno.EXDEV: "the folder is on another file system"}.get(e.errno or 0, e.strerror or str(e))
    return OutputError(f"can't write {path}: {step}{why}")


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

    path = check_target(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # (a long target name is cut in the temporary name: NAME_MAX counts the whole of it)
        stem = f".{path.name[:150]}."
        remove_stale(path.parent, stem)  # any suffix: parts (.part) and whole files (.tmp)
    except FileExistsError:
        raise OutputError(f"can't write {path}: a file on the way to it is not a folder") from None
    except OSError as e:
        raise _os_error(path, e) from None
    try:
        return tempfile.mkstemp(prefix=f"{stem}{os.getpid()}.{tag}", suffix=suffix, dir=path.parent)
    except OSError as e:
        raise _os_error(path, e, f"no file can be created in {path.parent}: ") from None


def commit(tmp: str | Path, path: Path) -> None:
    """Give ``tmp`` a normal file's mode and rename it to ``path`` (checked again: still a regular
    file or nothing, see :func:`check_target`); ``tmp`` is removed if that fails."""
    try:
        check_target(path)
        os.chmod(tmp, new_file_mode())
        os.replace(tmp, path)
    except OSError as e:
        Path(tmp).unlink(missing_ok=True)
        raise e if isinstance(e, OutputError) else _os_error(Path(path), e) from None


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


__all__ = ["STDIO", "OutputError", "atomic_writer", "check_target", "commit",
           "current_umask", "is_stdio", "new_file_mode", "temp_beside",
           "write_atomic"]
