"""pytest collects conformance files: each case becomes a test item.

Installed with the package (entry point ``pytest11``), so a designer's CI runs
``pytest path/to/cases/`` with no glue code. A YAML file is a conformance file
when its top level has ``ruleset`` and ``cases``; other YAML is left alone.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from _pytest._code.code import TerminalRepr

from ..core.errors import RulesetError
from ..rules.yamlsource import load_yaml_file, location_of
from .conformance import CaseResult, case_evaluator, load_file, run_case


def _is_conformance_file(path: Path) -> bool:
    if path.suffix not in (".yaml", ".yml"):
        return False
    try:
        head = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    if "cases:" not in head or "ruleset:" not in head:
        return False
    try:
        data = load_yaml_file(path)  # bounded (docs/limits.md): hostile YAML can't stall collection
    except RulesetError:
        return True  # let the file item report the problem
    return isinstance(data, dict) and "cases" in data and "ruleset" in data


def pytest_collect_file(parent: pytest.Collector, file_path: Path) -> pytest.Collector | None:
    if _is_conformance_file(file_path):
        return ConformanceFile.from_parent(parent, path=file_path)
    return None


class ConformanceFailure(Exception):
    def __init__(self, result: CaseResult) -> None:
        super().__init__(result.describe())
        self.result = result


class ConformanceFile(pytest.File):
    def collect(self) -> Iterator[pytest.Item]:
        data, ev, err = load_file(self.path)
        if ev is None:
            yield ConformanceItem.from_parent(self, name="(file)", error=err)
            return
        seen: set[str] = set()
        evaluators: dict[tuple[tuple[str, str], ...], Any] = {}  # (one per distinct per-case options)
        for i, case in enumerate(data["cases"]):
            cid = str(case.get("id", f"cases[{i}]")) if isinstance(case, dict) else f"cases[{i}]"
            loc = location_of(data, ("cases", i))
            name = cid if cid not in seen else f"{cid}[{i}]"
            error = "duplicate case id" if cid in seen else ""
            seen.add(cid)
            # The same evaluator `mj conformance` uses: a case's own `options` over the file's.
            case_ev, err = case_evaluator(data, self.path, case, ev, evaluators)
            yield ConformanceItem.from_parent(self, name=name, case=case, evaluator=case_ev,
                                              line=loc.line if loc else None, error=error or err)


class ConformanceItem(pytest.Item):
    def __init__(self, *, case: Any = None, evaluator: Any = None, line: int | None = None,
                 error: str = "", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case
        self.evaluator = evaluator
        self.line = line
        self.error = error

    def runtest(self) -> None:
        if self.error:
            raise ConformanceFailure(CaseResult(str(self.path), self.name, self.line, "error",
                                                message=self.error))
        result = run_case(self.evaluator, self.case, str(self.path), self.name, self.line)
        if not result.passed:
            raise ConformanceFailure(result)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None
                     ) -> str | TerminalRepr:
        if isinstance(excinfo.value, ConformanceFailure):
            return excinfo.value.result.describe()
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, (self.line - 1) if self.line else None, f"conformance case {self.name}"
