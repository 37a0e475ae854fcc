"""``mj compile``: what a ruleset compiles to for scoring."""

from __future__ import annotations

import click

from ..evaluate.compiler import compile_ruleset
from ..rules.loader import load_ruleset
from .common import RULESET, option_flags, parse_sets


@click.command("compile")
@click.argument("ruleset", type=RULESET)
@option_flags
def compile_cmd(ruleset: str, sets: tuple[str, ...], preset: str | None) -> None:
    """Print what RULESET (an id or a path) compiles to for scoring.

    The shapes its patterns read, with the patterns that can apply to a reading of each
    (and the shapes that win with no requirement); every win pattern's bit in the
    requirement masks, in rank order, with its reading level, tier and the mask of the
    patterns it excludes; how points combine; and the payment plans of the usual seat
    arrangements (payer: base × times + plus). This is the table the scorer walks
    (docs/architecture.md, "Scoring"); an invalid ruleset exits 1.
    """
    compiled = compile_ruleset(load_ruleset(ruleset, options=parse_sets(sets), preset=preset))
    click.echo(compiled.describe())
