"""What scoring returns: a scored pattern, a hand's score, a win's result with its settlement."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..core.tiles import Tile
from ..rules.model import Pattern
from ..settle import settlement as st
from .readings import Reading

# How scoring ranks the results of a hand's readings (smaller is better): what a result pays
# (Evaluator.order: minus the points, or minus the amount then minus the points), then the
# ruleset's tie-break (Evaluator.tie_key: declaration positions, maybe after their count).
PayKey = int | tuple[int, int]
TieKey = tuple[int, ...] | tuple[int, tuple[int, ...]]
ResultKey = tuple[PayKey, TieKey]
# The patterns a reading is judged to hold, with the times each counts; a judged reading's
# points and patterns (Evaluator._judge); a ranked reading (its key, reading, patterns, points).
Picked = list[tuple[Pattern, int]]
Judged = tuple[int, Picked]
Ranked = tuple[ResultKey, Reading, Picked, int]
#: A judged reading with its key: ``(key, points, picked)`` (what the scorer's judge answers).
Keyed = tuple[ResultKey, int, Picked]


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
