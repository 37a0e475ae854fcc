"""``mj doc``: a rule card generated from a ruleset alone (Markdown or HTML)."""

from __future__ import annotations

from pathlib import Path

import click

from ..core.fileio import write_atomic
from ..design.rulecard import build_card, render
from ..rules.loader import load_ruleset
from .common import RULESET, OutputPath, option_flags, parse_sets


@click.command()
@click.argument("ruleset", type=RULESET)
@click.option("--format", "fmt", type=click.Choice(["md", "html"]), default="md", show_default=True,
              help="Markdown (compact + Chinese tile names) or one self-contained HTML file (emoji tiles).")
@click.option("-o", "--output", type=OutputPath(as_path=True),
              help="Write the card to this file (atomically; a new or regular file) instead of printing it "
                   "(`-`: stdout).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the example-hand search.")
@option_flags
def doc(ruleset: str, fmt: str, output: Path | None, seed: int, sets: tuple[str, ...],
        preset: str | None) -> None:
    """Print a rule card for RULESET (an id or a path), with an engine-found example per pattern."""
    card = build_card(load_ruleset(ruleset, options=parse_sets(sets), preset=preset), seed=seed)
    text = render(card, fmt)
    if output is None or str(output) == "-":
        click.echo(text, nl=False)
        return
    write_atomic(output, text)
    missing = card.missing()
    click.echo(f"wrote {output}: {len(card.patterns)} patterns, {card.exact} with an exact example"
               + (f"; none for: {', '.join(missing)}" if missing else ""), err=True)
