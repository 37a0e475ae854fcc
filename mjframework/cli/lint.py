"""``mj lint``: meaning-level warnings about a ruleset (see :mod:`mjframework.design.lint`)."""

from __future__ import annotations

import json
import sys

import click

from ..core.errors import MJError
from ..design.lint import DEFAULT_SAMPLES, NOTES, lint_file
from .common import RULESET


@click.command()
@click.argument("ruleset", type=RULESET)
@click.option("--strict", is_flag=True,
              help="Exit 1 when there is any warning not accepted in the ruleset's `lint.accept`.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object (warnings as a list).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the hand search.")
@click.option("--samples", type=int, default=DEFAULT_SAMPLES, show_default=True,
              help="Candidate hands to try (spread over the patterns).")
def lint(ruleset: str, strict: bool, as_json: bool, seed: int, samples: int) -> None:
    """Meaning-level warnings about RULESET (an id or a path), beyond schema validity.

    Dead patterns, useless exclusions, duplicate patterns, inverted payouts
    (found by a seeded search of example hands) and no-op `extends`
    overrides; each as FILE:LINE:COL: path: check: message, with an
    `mj score` command for an example hand where there is one. The search
    is bounded by --samples and --seed only (never by time): the same command
    prints the same findings on any machine. Warnings the ruleset accepts
    (`lint: {accept: [...]}`) are listed as accepted and don't count. Exits 0
    with warnings (1 with --strict); an invalid ruleset exits 1.
    """
    if samples < 1:
        raise MJError(f"--samples must be at least 1, got {samples}")
    warnings = lint_file(ruleset, seed=seed, samples=samples)
    real = [w for w in warnings if w.check not in NOTES and w.accepted is None]
    accepted = [w for w in warnings if w.accepted is not None]
    if as_json:
        click.echo(json.dumps({"ruleset": ruleset, "seed": seed, "samples": samples,
                               "warnings": [w.to_json() for w in warnings],
                               "count": len(real), "accepted": len(accepted)},
                              ensure_ascii=False, indent=2))
    else:
        for w in warnings:
            click.echo(str(w))
        tail = f" ({len(accepted)} accepted)" if accepted else ""
        click.echo(f"{len(real)} warning(s){tail}" if real else f"ok  {ruleset}: no warnings{tail}")
    if strict and real:
        sys.exit(1)
