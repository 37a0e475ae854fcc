"""The flat import paths of mjframework 0.2 (``mjframework.tiles``, ``mjframework.cli_game``, …).

The package was re-laid out in layers (docs/architecture.md). For one release
every old path still imports, as the very same module object as the new path,
with a :class:`DeprecationWarning` naming the new path. One finder on
``sys.meta_path`` and the table below do it; nothing else refers to old paths.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import types
import warnings

# old path → new path
MOVED: dict[str, str] = {
    "mjframework.actions": "mjframework.play.actions",
    "mjframework.balance": "mjframework.design.balance",
    "mjframework.bots": "mjframework.play.bots",
    "mjframework.cli_agents": "mjframework.cli.agents",
    "mjframework.cli_balance": "mjframework.cli.balance",
    "mjframework.cli_common": "mjframework.cli.common",
    "mjframework.cli_design": "mjframework.cli.design",
    "mjframework.cli_doc": "mjframework.cli.doc",
    "mjframework.cli_game": "mjframework.cli.game",
    "mjframework.cli_lint": "mjframework.cli.lint",
    "mjframework.cli_plugins": "mjframework.cli.plugins",
    "mjframework.cli_score": "mjframework.cli.score",
    "mjframework.cli_serve": "mjframework.cli.serve",
    "mjframework.conformance": "mjframework.run.conformance",
    "mjframework.diff": "mjframework.design.diff",
    "mjframework.env": "mjframework.run.env",
    "mjframework.errors": "mjframework.core.errors",
    "mjframework.events": "mjframework.play.events",
    "mjframework.extbot": "mjframework.run.extbot",
    "mjframework.fastwin": "mjframework.evaluate.fastwin",
    "mjframework.fileio": "mjframework.core.fileio",
    "mjframework.game": "mjframework.play.game",
    "mjframework.hand": "mjframework.core.hand",
    "mjframework.hookspecs": "mjframework.hooks.specs",
    "mjframework.human": "mjframework.ui.human",
    "mjframework.kinds": "mjframework.core.kinds",
    "mjframework.lint": "mjframework.design.lint",
    "mjframework.match": "mjframework.run.match",
    "mjframework.model": "mjframework.rules.model",
    "mjframework.options": "mjframework.rules.options",
    "mjframework.outcomes": "mjframework.play.outcomes",
    "mjframework.patterns": "mjframework.evaluate.patterns",
    "mjframework.players": "mjframework.play.players",
    "mjframework.plugins": "mjframework.hooks.registry",
    "mjframework.procs": "mjframework.core.procs",
    "mjframework.pytest_plugin": "mjframework.run.pytest_plugin",
    "mjframework.readings": "mjframework.evaluate.readings",
    "mjframework.replay": "mjframework.run.replay",
    "mjframework.rulecard": "mjframework.design.rulecard",
    "mjframework.ruleset": "mjframework.rules.loader",
    "mjframework.runner": "mjframework.run.runner",
    "mjframework.scaffold": "mjframework.design.scaffold",
    "mjframework.scoring": "mjframework.evaluate.scoring",
    "mjframework.seatlog": "mjframework.play.seatlog",
    "mjframework.serve": "mjframework.ui.serve",
    "mjframework.settlement": "mjframework.settle.settlement",
    "mjframework.simulate": "mjframework.run.simulate",
    "mjframework.stash": "mjframework.core.stash",
    "mjframework.stepper": "mjframework.play.stepper",
    "mjframework.table": "mjframework.ui.table",
    "mjframework.tiles": "mjframework.core.tiles",
    "mjframework.tui": "mjframework.ui.tui",
    "mjframework.visibility": "mjframework.play.visibility",
    "mjframework.waits": "mjframework.evaluate.waits",
    "mjframework.wall": "mjframework.play.wall",
    "mjframework.wintable": "mjframework.evaluate.wintable",
    "mjframework.yamlsource": "mjframework.rules.yamlsource",
}


class _Alias(importlib.abc.Loader):
    """Loads an old path as the module at its new path (the same object)."""

    def __init__(self, new: str) -> None:
        self.new = new
        self.spec: importlib.machinery.ModuleSpec | None = None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        warnings.warn(f"{spec.name} is deprecated: import {self.new} (the old path goes in the next release)",
                      DeprecationWarning, stacklevel=2)  # past the import system's frames
        module = importlib.import_module(self.new)
        self.spec = module.__spec__
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        # The import system has set the alias's spec on the module: give it back its own.
        module.__spec__ = self.spec


class _OldPaths(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname: str, path: object,
                  target: object = None) -> importlib.machinery.ModuleSpec | None:
        new = MOVED.get(fullname)
        return importlib.machinery.ModuleSpec(fullname, _Alias(new)) if new is not None else None


if not any(isinstance(f, _OldPaths) for f in sys.meta_path):
    sys.meta_path.append(_OldPaths())
