"""Commands for ruleset designers: ``mj diff``."""

from __future__ import annotations

import json

import click

from . import ruleset as rs_mod
from .cli import main
from .diff import diff_rulesets, render_text


@main.command()
@click.argument("a")
@click.argument("b")
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
