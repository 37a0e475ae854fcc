"""Output files are replaced only when they are regular files (or new): a device, FIFO,
folder or symlink given as `--log`/`-o` is refused with a clear error and left as it was
(docs/limits.md, "Output files").

No test here can harm a real device: the one that names /dev/null checks the refusal
with `os.replace` made to fail the test if ever called.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mjframework.cli import main
from mjframework.core import fileio
from mjframework.core.fileio import OutputError, check_target, write_atomic

KINDS = ["new", "regular", "fifo", "symlink-to-file", "symlink-dangling", "symlink-to-dir", "folder"]


def mj(*args: str):
    return CliRunner().invoke(main, list(args))


def make(kind: str, folder: Path) -> Path:
    """A node of ``kind`` at ``folder/target`` (a file ``folder/real`` beside it)."""
    real = folder / "real"
    real.write_text("real\n", encoding="utf-8")
    target = folder / "target"
    if kind == "regular":
        target.write_text("old\n", encoding="utf-8")
    elif kind == "fifo":
        os.mkfifo(target)
    elif kind == "symlink-to-file":
        target.symlink_to(real)
    elif kind == "symlink-dangling":
        target.symlink_to(folder / "nowhere")
    elif kind == "symlink-to-dir":
        target.symlink_to(folder)
    elif kind == "folder":
        target.mkdir()
    return target


def snapshot(path: Path) -> tuple[int, str | None] | None:
    try:
        st_ = os.lstat(path)
    except FileNotFoundError:
        return None
    return stat.S_IFMT(st_.st_mode), os.readlink(path) if stat.S_ISLNK(st_.st_mode) else None


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kind=st.sampled_from(KINDS), data=st.one_of(st.text(max_size=50), st.binary(max_size=50)))
def test_only_new_or_regular_files_are_replaced(tmp_path_factory: pytest.TempPathFactory, kind: str,
                                                 data: str | bytes) -> None:
    folder = tmp_path_factory.mktemp("out")
    target = make(kind, folder)
    before = snapshot(target)
    if kind in ("new", "regular"):
        write_atomic(target, data)
        raw = data.encode("utf-8") if isinstance(data, str) else data
        assert target.read_bytes() == raw and stat.S_ISREG(os.lstat(target).st_mode)
    else:
        with pytest.raises(OutputError, match=r"won't write|a folder"):
            write_atomic(target, data)
        assert snapshot(target) == before
    assert (folder / "real").read_text(encoding="utf-8") == "real\n"  # never written through a link
    assert sorted(p.name for p in folder.iterdir()) == ["real", "target"]  # no temporary file left


def test_the_rename_checks_again(tmp_path: Path) -> None:
    """A FIFO put in place while the file was being written is not replaced; the temp file goes."""
    target = tmp_path / "log.jsonl"
    with pytest.raises(OutputError, match="FIFO"), fileio.atomic_writer(target) as f:
        f.write("x")
        os.mkfifo(target)
    assert stat.S_ISFIFO(os.lstat(target).st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["log.jsonl"]


def a_device(tmp_path: Path) -> str:
    """A character device node of our own (``mknod``, as root: the null device's numbers in
    tmp_path, harmless if a regression replaced it), else the system's /dev/null."""
    node = tmp_path / "null-device"
    try:
        os.mknod(node, stat.S_IFCHR | 0o600, os.makedev(1, 3))
        return str(node)
    except (PermissionError, OSError, AttributeError):
        return "/dev/null"


def test_a_device_is_refused_before_any_rename(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    device = a_device(tmp_path)
    assert stat.S_ISCHR(os.lstat(device).st_mode)

    def never(*args: object) -> None:
        raise AssertionError("os.replace called on a device")

    if device == "/dev/null":  # the system's: make sure nothing can even try
        monkeypatch.setattr(os, "replace", never)
        monkeypatch.setattr(fileio.tempfile, "mkstemp", never)
    with pytest.raises(OutputError, match="character device"):
        check_target(device)
    with pytest.raises(OutputError, match="character device"):
        write_atomic(device, "x")
    for args in (["simulate", "changsha", "-n", "1", "--log", device], ["schema", "-o", device],
                 ["doc", "changsha", "-o", device]):
        res = mj(*args)
        assert res.exit_code == 1 and "character device" in res.output, (args, res.output)
    assert stat.S_ISCHR(os.lstat(device).st_mode)


@pytest.mark.parametrize("kind", ["fifo", "symlink-to-file", "folder"])
def test_cli_writers_refuse_special_targets(tmp_path: Path, kind: str) -> None:
    target = make(kind, tmp_path)
    before = snapshot(target)
    for args in (["simulate", "changsha", "-n", "1", "-s", "1", "--log", str(target)],
                 ["schema", "-o", str(target)], ["doc", "changsha", "-o", str(target)]):
        res = mj(*args)
        assert res.exit_code == 1, (args, res.output)
        assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
        assert snapshot(target) == before
    assert (tmp_path / "real").read_text(encoding="utf-8") == "real\n"


@pytest.mark.parametrize(("path", "message"), [
    ("", "empty"),
    ("   ", "empty"),
    ("/proc/self/status", "no file can be created"),
    ("sub/", "a file name, not a folder"),
    ("plain/x.jsonl", "a folder on the way is a file"),
])
def test_cli_clear_errors_for_unwritable_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, path: str,
                                               message: str) -> None:
    if path.startswith("/proc") and not os.path.isdir("/proc/self"):
        pytest.skip("no /proc")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "plain").write_text("", encoding="utf-8")
    res = mj("simulate", "changsha", "-n", "1", "-s", "1", "--log", path)
    assert res.exit_code == 1, res.output
    assert message in res.output
    assert not isinstance(res.exception, Exception) or isinstance(res.exception, SystemExit), res.exception


def test_unwritable_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """(Permissions can't be relied on, root writes anywhere: the folder refuses new files.)"""
    import errno

    def refuse(*args: object, **kw: object) -> None:
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(fileio.tempfile, "mkstemp", refuse)
    res = mj("schema", "-o", str(tmp_path / "s.json"))
    assert res.exit_code == 1 and "permission denied" in res.output, res.output
    assert isinstance(res.exception, SystemExit)


def test_regular_files_and_stdout_still_work(tmp_path: Path) -> None:
    out = tmp_path / "s.json"
    out.write_text("old", encoding="utf-8")
    assert mj("schema", "-o", str(out)).exit_code == 0
    assert out.read_text(encoding="utf-8").startswith("{")
    res = mj("schema", "-o", "-")
    assert res.exit_code == 0 and res.output.startswith("{")
