"""The table's shape (docs/architecture.md, "The table, split by concern"), checked from the source.

No module of ``play/`` over 700 lines; no function over cyclomatic complexity 25; the
evaluator asked through its methods, hooks run only by ``hooks/registry``, no rebinding
of methods in ``__dict__`` and no stripped events; :class:`HandControl` uses only the
table's public members.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

PLAY = Path(__file__).resolve().parents[1] / "mjframework" / "play"
SOURCES = sorted(PLAY.rglob("*.py"))
MAX_LINES = 700
MAX_COMPLEXITY = 25


def _rel(p: Path) -> str:
    return str(p.relative_to(PLAY.parent.parent))


@pytest.mark.parametrize("path", SOURCES, ids=_rel)
def test_no_module_of_the_table_is_too_long(path: Path) -> None:
    lines = path.read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_LINES, f"{_rel(path)} has {lines} lines (at most {MAX_LINES}): split it by concern"


def test_no_function_of_the_table_is_too_complex() -> None:
    """McCabe's complexity as ruff counts it (C901)."""
    ruff = shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff is not installed (pip install '.[test]')")
    proc = subprocess.run([ruff, "check", "--select", "C901", "--config",
                           f"lint.mccabe.max-complexity={MAX_COMPLEXITY}", str(PLAY)],
                          capture_output=True, text=True, cwd=PLAY.parent.parent)
    assert proc.returncode == 0, proc.stdout + proc.stderr


FORBIDDEN = {
    r"\bev\.screen\b": "ask the evaluator through its methods (may_win_on, may_win_any, win_candidates)",
    r"\bimpl\.function\b": "hooks are run by hooks/registry (BoundHook.call, call_hook) only",
    r"_bare_": "a sink that only counts is a CountingSink (events.counting), not told stripped events",
    r"__dict__\[": "no method rebinding",
}


@pytest.mark.parametrize("path", SOURCES, ids=_rel)
def test_the_table_keeps_to_the_interfaces(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    for pattern, why in FORBIDDEN.items():
        assert not re.search(pattern, text), f"{_rel(path)} matches {pattern!r}: {why}"


def test_hand_control_uses_only_the_tables_public_members() -> None:
    text = (PLAY / "table" / "control.py").read_text(encoding="utf-8")
    private = sorted(set(re.findall(r"\b(?:g|self\._g)\.(_[a-z]\w*)", text)))
    assert not private, f"HandControl reaches into the game's private members: {private}"


def test_the_engines_steps_return_typed_results() -> None:
    """The turn and claim steps are annotated with the typed results, not ``Any``."""
    from typing import get_type_hints

    from mjframework.play.game import Game
    from mjframework.play.table import state

    hints = get_type_hints(Game._turn, vars(state))
    assert hints["return"] == state.TurnEnd
    assert get_type_hints(Game._claims, vars(state))["return"] == state.ClaimEnd
    assert not hasattr(state, "_Resume")
