"""MkDocs hooks: list every page of docs/rules/ under the rules section of the nav;
show real defaults in the CLI reference.

mkdocs.yml names the section's index only; each variant's page (one per
ruleset, ``docs/rules/<id>.md``) is added here in name order, so adding a
variant's page needs no edit to mkdocs.yml.

Click 8.3+ marks an option given no default with a sentinel (``Sentinel.UNSET``),
which mkdocs-click 0.9 prints as the default (mkdocs/mkdocs-click#95); in the
documentation build only, those options get ``None`` (mkdocs-click then shows
"None", or "_required" for a required one), flags ``False``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

RULES_INDEX = "rules/index.md"


def _unset_defaults_to_none() -> int:
    """Every ``mj`` command's options without a default: ``default = None`` (this process only)."""
    import click

    from mjframework.cli import main

    unset = getattr(getattr(click.core, "UNSET", None), "__class__", None)
    if unset is None:  # click before 8.3: None already
        return 0
    fixed = 0
    todo: list[Any] = [main]  # every command, those of sub-groups (`mj records list`) too
    while todo:
        command = todo.pop()
        ctx = click.Context(command)
        if isinstance(command, click.Group):
            todo.extend(command.get_command(ctx, name) for name in command.list_commands(ctx))
        # get_params: the declared ones and the help option click makes (and keeps) per command,
        # whose default is the sentinel too since click 8.5
        for param in command.get_params(ctx):
            if isinstance(param.default, unset) or repr(param.default).endswith("UNSET"):
                param.default = False if getattr(param, "is_flag", False) else None
                fixed += 1
    return fixed


def on_config(config: Any) -> Any:
    _unset_defaults_to_none()
    rules_dir = Path(config["docs_dir"]) / "rules"
    pages = sorted(p.name for p in rules_dir.glob("*.md") if p.name != "index.md")
    for entry in config["nav"] or []:
        if not isinstance(entry, dict):
            continue
        for items in entry.values():
            if isinstance(items, list) and RULES_INDEX in items:
                items[:] = [RULES_INDEX, *(f"rules/{name}" for name in pages)]
    return config
