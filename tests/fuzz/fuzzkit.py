"""Helpers for the hostile-input tests: run a command in a subprocess under hard limits.

Limits are ``resource`` limits set in the child (address space and CPU seconds), so a
regression shows up as the child being killed (MemoryError / SIGXCPU), not as a slow
test: the bound is on work done, not on the wall clock of a busy CI machine.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORPUS = Path(__file__).resolve().parent / "corpus"
MB = 1 << 20


def limiter(mem_mb: int, cpu_s: int):
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (mem_mb * MB, mem_mb * MB))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s))

    return apply


def run_mj(*args: str, mem_mb: int = 200, cpu_s: int = 10, cwd: str | Path | None = None,
           stdin: str | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``mj ARGS`` in a child limited to ``mem_mb`` of address space and ``cpu_s`` CPU seconds."""
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-m", "mjframework", *args], capture_output=True, text=True,
                          preexec_fn=limiter(mem_mb, cpu_s), cwd=cwd, input=stdin, timeout=timeout,
                          env=env, errors="replace")


def assert_clean(r: subprocess.CompletedProcess[str], *, ok: bool | None = None) -> None:
    """No traceback, not killed by a limit; ``ok`` checks the exit status too."""
    out = r.stdout + r.stderr
    assert "Traceback" not in out, out[-3000:]
    assert r.returncode >= 0, f"killed by signal {-r.returncode}: {out[-2000:]}"
    assert r.returncode in (0, 1, 2), f"exit {r.returncode}: {out[-2000:]}"
    if ok is True:
        assert r.returncode == 0, out[-2000:]
    elif ok is False:
        assert r.returncode != 0, out[-2000:]
