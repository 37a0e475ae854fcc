"""``mj lint``: meaning-level warnings about a ruleset (see :mod:`mjframework.design.lint`)."""

from __future__ import annotations

import json
import sys

import click

from ..core.errors import MJError, Problem, RulesetError, format_path
from ..design.lint import DEFAULT_SAMPLES, lint_file
from .common import RULESET, shown


def problem_json(p: Problem) -> dict[str, object]:
    """A problem as the JSON of `mj validate --json`."""
    return {"file": shown(p.location.file) if p.location else None,
            "line": p.location.line if p.location else None,
            "column": p.location.column if p.location else None,
            "path": format_path(p.path), "message": shown(p.message)}


@click.command()
@click.argument("ruleset", type=RULESET)
@click.option("--strict", is_flag=True,
              help="Exit 1 when there is any warning (not accepted in the ruleset's `lint.accept`, not "
                   "inherited from a base outside its folder).")
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
    (`lint: {accept: [...]}`) are listed as accepted and don't count; nor do
    warnings located in a file it extends outside its own folder (a shipped
    base: listed as inherited, `mj lint BASE` reports them). Exits 0 with
    warnings (1 with --strict); an invalid ruleset exits 1.
    """
    if samples < 1:
        raise MJError(f"--samples must be at least 1, got {samples}")
    try:
        warnings = lint_file(ruleset, seed=seed, samples=samples)
    except RulesetError as e:
        if not as_json:
            raise
        # --json: the error as JSON on stdout too (a pipe into jq sees an object, not nothing)
        click.echo(json.dumps({"ruleset": ruleset, "ok": False, "error": "invalid ruleset",
                               "problems": [problem_json(p) for p in e.problems]},
                              ensure_ascii=False, indent=2))
        sys.exit(1)
    real = [w for w in warnings if w.counts]
    accepted = [w for w in warnings if w.accepted is not None]
    inherited = [w for w in warnings if w.inherited is not None]
    if as_json:
        click.echo(json.dumps({"ruleset": ruleset, "seed": seed, "samples": samples,
                               "warnings": [w.to_json() for w in warnings],
                               "count": len(real), "accepted": len(accepted), "inherited": len(inherited)},
                              ensure_ascii=False, indent=2))
    else:
        for w in warnings:
            click.echo(str(w))
        tail = ", ".join(f"{n} {what}" for n, what in ((len(accepted), "accepted"),
                                                       (len(inherited), "inherited")) if n)
        tail = f" ({tail})" if tail else ""
        click.echo(f"{len(real)} warning(s){tail}" if real else f"ok  {ruleset}: no warnings{tail}")
    if strict and real:
        sys.exit(1)
