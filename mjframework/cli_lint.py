"""``mj lint``: meaning-level warnings about a ruleset (see :mod:`mjframework.lint`)."""

from __future__ import annotations

import json
import sys

import click

from .cli import main
from .lint import DEFAULT_SAMPLES, NOTES, lint_file


@main.command()
@click.argument("ruleset")
@click.option("--strict", is_flag=True, help="Exit 1 when there is any warning.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object (warnings as a list).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the hand search.")
@click.option("--samples", type=int, default=DEFAULT_SAMPLES, show_default=True,
              help="Candidate hands to try (spread over the patterns).")
def lint(ruleset: str, strict: bool, as_json: bool, seed: int, samples: int) -> None:
    """Meaning-level warnings about RULESET (an id or a path), beyond schema validity.

    Dead patterns, useless exclusions, duplicate patterns, inverted payouts
    (found by a seeded search of example hands) and no-op `extends`
    overrides; each as FILE:LINE:COL: path: check: message, with an
    `mj score` command for an example hand where there is one. Exits 0 with
    warnings (1 with --strict); an invalid ruleset exits 1.
    """
    warnings = lint_file(ruleset, seed=seed, samples=samples)
    # A search that ran out of time is a note about the evidence, not about the ruleset.
    real = [w for w in warnings if w.check not in NOTES]
    if as_json:
        click.echo(json.dumps({"ruleset": ruleset, "warnings": [w.to_json() for w in warnings]},
                              ensure_ascii=False, indent=2))
    else:
        for w in warnings:
            click.echo(str(w))
        click.echo(f"{len(real)} warning(s)" if real else f"ok  {ruleset}: no warnings")
    if strict and real:
        sys.exit(1)
