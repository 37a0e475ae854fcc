"""What scoring returns: a scored pattern, a hand's score, a win's result with its settlement."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..core.tiles import Tile
from ..settle import settlement as st
from .readings import Reading


@dataclass(frozen=True)
class ScoredPattern:
    name: str
    points: int
    times: int = 1
    en: str = ""  # the pattern's English name, if the ruleset gives one

    @property
    def total(self) -> int:
        return self.points * self.times


@dataclass
class Score:
    win: bool
    reason: str = ""
    reading: Reading | None = None
    patterns: list[ScoredPattern] = field(default_factory=list)
    points: int = 0  # capped (scoring.cap)
    wildcard: Tile | None = None
    uncapped: int | None = None  # before the cap (None: same as points)

    @property
    def pattern_names(self) -> list[str]:
        return [p.name for p in self.patterns]


@dataclass
class Result:
    """A scored and settled hand."""

    score: Score
    settlement: st.Settlement | None
    call: str | None = None

    @property
    def payments(self) -> list[int] | None:
        return self.settlement.net() if self.settlement else None
