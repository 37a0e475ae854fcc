"""Commands for ruleset designers: ``mj diff``, ``mj new-variant``."""

from __future__ import annotations

import json
from pathlib import Path

import click

from ..design.diff import diff_rulesets, render_text
from ..rules import loader as rs_mod
from .common import RULESET


@click.command()
@click.argument("a", type=RULESET)
@click.argument("b", type=RULESET)
@click.option("--json", "as_json", is_flag=True, help="One JSON object instead of text.")
def diff(a: str, b: str, as_json: bool) -> None:
    """The semantic difference between rulesets A and B (ids or paths).

    Patterns are matched by name (added, removed, re-pointed, redefined); the
    other sections (tiles, wall, break, deal, wildcard, claims, win, dealer,
    scoring, shapes, plugins) are compared value by value, defaults filled in.
    Always exits 0 when both load; an unknown or invalid ruleset exits 1.
    """
    ra = rs_mod.load_ruleset(a)
    rb = rs_mod.load_ruleset(b)
    d = diff_rulesets(ra, rb)
    if as_json:
        click.echo(json.dumps(d.to_json(), ensure_ascii=False, indent=2))
    else:
        click.echo(render_text(d))


@click.command("new-variant")
@click.argument("name")
@click.option("--base", "-b", required=True, metavar="ID",
              help="The ruleset the new one extends (any id `mj rulesets` lists).")
@click.option("--dir", "-d", "folder", type=click.Path(path_type=Path), metavar="DIR",
              help="Where to write the package (default: ./NAME; must not exist or be empty).")
def new_variant(name: str, base: str, folder: Path | None) -> None:
    """Scaffold a ruleset package NAME that extends BASE, ready to share with `pip install`.

    Writes pyproject.toml (entry point `mjframework.rulesets`), the ruleset
    (extending the base by a folder-independent name), a conformance file of
    engine-scored hands, a CI workflow running `mj validate`, `mj lint`,
    `mj conformance` and pytest, and `.pre-commit-hooks.yaml` entries.
    """
    from ..design.scaffold import scaffold

    target = folder if folder is not None else Path(name)
    for path in scaffold(name, base, target):
        click.echo(f"wrote {path}")
    click.echo(f"\nnext: cd {target} && pip install -e . && mj rulesets && mj conformance "
               f"src/mj_{name.replace('-', '_')}/conformance", err=True)
