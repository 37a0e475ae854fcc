"""MkDocs hook: list every page of docs/rules/ under the rules section of the nav.

mkdocs.yml names the section's index only; each variant's page (one per
ruleset, ``docs/rules/<id>.md``) is added here in name order, so adding a
variant's page needs no edit to mkdocs.yml.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

RULES_INDEX = "rules/index.md"


def on_config(config: Any) -> Any:
    rules_dir = Path(config["docs_dir"]) / "rules"
    pages = sorted(p.name for p in rules_dir.glob("*.md") if p.name != "index.md")
    for entry in config["nav"] or []:
        if not isinstance(entry, dict):
            continue
        for items in entry.values():
            if isinstance(items, list) and RULES_INDEX in items:
                items[:] = [RULES_INDEX, *(f"rules/{name}" for name in pages)]
    return config
