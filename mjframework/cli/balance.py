"""``mj balance``: how often each pattern comes up and what share of the points it brings."""

from __future__ import annotations

import json
import sys

import click

from .common import (
    RULESET,
    bots_option,
    hands_and_seed,
    hands_option,
    option_flags,
    parse_int,
    parse_sets,
    progress,
    seed_option,
)


@click.command("balance")
@click.argument("ruleset", type=RULESET)
@hands_option
@seed_option
@bots_option
@click.option("--workers", "-j", "workers", default="1", show_default=True, metavar="K",
              help="Worker processes; the results do not depend on it.")
@click.option("--cluster", "cluster", metavar="ADDRESS",
              help="Run the games on a cluster: a Dask scheduler (tcp://HOST:PORT), Ray (ray://HOST:PORT, "
                   "`ray` for a local one, `auto`); same results as locally.")
@click.option("--connect-timeout", "connect_timeout", default="10", show_default=True, metavar="SECONDS",
              help="How long to try to reach the --cluster scheduler.")
@click.option("--output", "-o", "out_dir", default="balance", show_default=True, metavar="DIR",
              help="Directory for balance.png and balance.html.")
@click.option("--json", "as_json", is_flag=True,
              help="Print the report as one JSON object (the files are written all the same).")
@option_flags
def balance_cmd(ruleset: str, hands: str | None, seed: str | None, bots: str, workers: str,
                cluster: str | None, connect_timeout: str, out_dir: str, as_json: bool, sets: tuple[str, ...],
                preset: str | None) -> None:
    """Simulate N hands of RULESET; report each pattern's frequency and share of points."""
    from ..core.procs import sigterm_raises
    from ..design.balance import run_balance, write_report
    from ..run.simulate import abandon_summary

    n, s = hands_and_seed(hands, seed, tell=True)
    k = parse_int(workers, "--workers", minimum=1)
    t = parse_int(connect_timeout, "--connect-timeout", minimum=1)
    assert k is not None and t is not None
    with sigterm_raises():
        with progress(n) as update:
            result = run_balance(ruleset, n, seed=s, bots=bots, workers=k, cluster=cluster,
                                 connect_timeout=float(t), progress=update, options=parse_sets(sets),
                                 preset=preset)
        png, page = write_report(result, out_dir)
    if as_json:
        click.echo(json.dumps({**result.to_dict(), "files": [str(png), str(page)]}, ensure_ascii=False))
    else:
        click.echo(result.table())
        click.echo(f"\nwrote {png} and {page}")
    if result.partial:
        click.echo(f"interrupted: partial report from {result.stats.hands} of {n} hands", err=True)
        sys.exit(130)
    failed = abandon_summary(result.stats)
    if failed:
        click.echo(f"error: {failed}", err=True)
        sys.exit(1)
