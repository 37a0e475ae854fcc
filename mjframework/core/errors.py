"""Errors that point at a place in a file, printed as ``FILE:LINE:COL: path: message``."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Location:
    file: str
    line: int  # 1-based
    column: int  # 1-based

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


def format_path(path: Iterable[object]) -> str:
    """``('patterns', 3, 'points')`` → ``patterns[3].points``."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out or "(top)"


@dataclass(frozen=True)
class Problem:
    """One thing wrong with an input file."""

    location: Location | None
    path: tuple[object, ...]
    message: str

    def __str__(self) -> str:
        where = f"{self.location}: " if self.location else ""
        path = f"{format_path(self.path)}: " if self.path else ""
        return f"{where}{path}{self.message}"


class MJError(Exception):
    """Base class: an error a user caused, printed without a traceback."""


class RulesetError(MJError):
    """A ruleset (or a file it extends) is invalid; carries every problem found."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


class HandError(MJError):
    """A hand that can't exist: wrong tile count, five of a tile, a bad meld."""
