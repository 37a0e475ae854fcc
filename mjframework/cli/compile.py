"""``mj compile``: what a ruleset compiles to for scoring."""

from __future__ import annotations

import click

from ..evaluate.codegen import source as generated_source
from ..evaluate.compiler import compile_ruleset
from ..rules.loader import load_ruleset
from .common import RULESET, option_flags, parse_sets


@click.command("compile")
@click.argument("ruleset", type=RULESET)
@option_flags
@click.option("--source", "show_source", is_flag=True,
              help="Print the Python module generated for the ruleset's pattern judge instead.")
def compile_cmd(ruleset: str, sets: tuple[str, ...], preset: str | None, show_source: bool) -> None:
    """Print what RULESET (an id or a path) compiles to for scoring.

    The shapes its patterns read, with the patterns that can apply to a reading of each
    (and the shapes that win with no requirement); every win pattern's bit in the
    requirement masks, in rank order, with its reading level, tier and the mask of the
    patterns it excludes; how points combine; and the payment plans of the usual seat
    arrangements (payer: base × times + plus). This is the table the scorer walks
    (docs/architecture.md, "Scoring"); an invalid ruleset exits 1.

    With --source: the Python module generated from that table for this ruleset (the
    pattern judge as straight-line code over the masks, which the scorer runs; see
    mjframework/evaluate/codegen.py). Names from the ruleset appear in it only as string
    data and comments.
    """
    rs = load_ruleset(ruleset, options=parse_sets(sets), preset=preset)
    if show_source:
        click.echo(generated_source(compile_ruleset(rs)), nl=False)
        return
    click.echo(compile_ruleset(rs).describe())

