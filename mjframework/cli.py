"""The ``mj`` command line.

Every user error (a bad ruleset, a bad hand, a missing file) is printed as a
clear message and exits 1; nothing is half-written (files are written to a
temporary name and renamed).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

import click

from . import ruleset as rs_mod
from .errors import MJError, RulesetError


def _fail(message: str) -> None:
    click.echo(f"error: {message}", err=True)
    sys.exit(1)


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` via a temporary file and a rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class _Group(click.Group):
    """Turns any :class:`MJError` into a message and exit 1 (no traceback)."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except RulesetError as e:
            for p in e.problems:
                click.echo(str(p) if p.location else f"error: {p}", err=True)
            sys.exit(1)
        except MJError as e:
            _fail(str(e))
        except BrokenPipeError:  # `mj ... | head`
            sys.exit(0)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="mjframework")
def main() -> None:
    """mjframework: mahjong variants declared in YAML, played, scored and settled by one engine."""


@main.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
def validate(paths: tuple[Path, ...]) -> None:
    """Check ruleset files (schema and meaning); print every problem as FILE:LINE:COL: path: message."""
    bad = 0
    for path in paths:
        if not path.exists():
            click.echo(f"{path}: no such file", err=True)
            bad += 1
            continue
        files = sorted(path.glob("*.yaml")) if path.is_dir() else [path]
        for f in files:
            ruleset, problems = rs_mod.check_file(f)
            if problems:
                bad += 1
                for p in problems:
                    click.echo(str(p), err=True)
            elif ruleset is not None:
                click.echo(f"ok  {f}: {ruleset.summary()}")
            else:
                click.echo(f"ok  {f}: fragment")
    if bad:
        click.echo(f"{bad} file(s) with problems", err=True)
        sys.exit(1)


@main.command("rulesets")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per ruleset.")
def rulesets_cmd(as_json: bool) -> None:
    """List the built-in rulesets."""
    for rid, path in rs_mod.available_rulesets().items():
        r = rs_mod.load_ruleset(path)
        if as_json:
            click.echo(json.dumps({"id": rid, "name": r.name, "tiles": r.tileset.size,
                                   "patterns": len(r.patterns), "plugins": list(r.plugins),
                                   "path": str(path)}, ensure_ascii=False))
        else:
            click.echo(f"{rid:20} {r.name}  ({r.tileset.size} tiles, {len(r.patterns)} patterns)")


@main.command("schema")
@click.option("-o", "--output", type=click.Path(path_type=Path), help="Write to this file.")
def schema_cmd(output: Path | None) -> None:
    """Print (or write) the ruleset JSON Schema, for editors' YAML language servers."""
    text = json.dumps(rs_mod.schema(), indent=2, ensure_ascii=False) + "\n"
    if output:
        write_atomic(output, text)
        click.echo(f"wrote {output}")
    else:
        click.echo(text, nl=False)


def _register_more() -> None:
    """Commands that live in their own modules."""
    # Imported for their side effect: they register `score`, `conformance`,
    # `simulate`, `play` and `plugins` on this group.
    from . import (  # noqa: F401
        cli_agents,
        cli_balance,
        cli_design,
        cli_doc,
        cli_game,
        cli_lint,
        cli_plugins,
        cli_score,
        cli_serve,
    )


_register_more()

if __name__ == "__main__":  # pragma: no cover
    main()
