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
from typing import Any

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


def option_flags(f: Any) -> Any:
    """``--set NAME=VALUE`` (repeat) and ``--preset NAME``: a ruleset's declared house-rule options."""
    f = click.option("--preset", "preset", metavar="NAME",
                     help="Play with one of the ruleset's presets (a named set of options).")(f)
    f = click.option("--set", "sets", multiple=True, metavar="NAME=VALUE",
                     help="Set one of the ruleset's options (repeat); `mj doc` lists them.")(f)
    return f


def parse_sets(sets: tuple[str, ...] | list[str]) -> dict[str, str]:
    """``("birds=4", ...)`` → ``{"birds": "4"}``; a malformed item is a user error (exit 1)."""
    out: dict[str, str] = {}
    for item in sets:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise MJError(f"--set {item!r}: write NAME=VALUE")
        out[name.strip()] = value.strip()
    return out


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
    """List the rulesets: built-in, and those of installed ruleset packages (where each comes from).

    A package adds rulesets through the entry-point group `mjframework.rulesets`
    (see `mj new-variant`). A ruleset that fails to load is listed with its
    first problem; the command then exits 1.
    """
    bad = 0
    for src in rs_mod.ruleset_sources():
        if src.error:
            bad += 1
            click.echo(f"error: ruleset package {src.origin}: {src.error}", err=True)
    for rid, (path, src) in rs_mod.ruleset_origins().items():
        conf = [str(p) for p in src.conformance_files()]
        try:
            r = rs_mod.load_ruleset(path)
        except RulesetError as e:
            bad += 1
            first = str(e.problems[0]) if e.problems else "invalid"
            if as_json:
                click.echo(json.dumps({"id": rid, "source": src.name, "from": src.origin, "path": str(path),
                                       "error": first}, ensure_ascii=False))
            else:
                click.echo(f"{rid:20} (invalid: {first})  [{src.origin}]")
            continue
        if as_json:
            click.echo(json.dumps({"id": rid, "name": r.name, "tiles": r.tileset.size,
                                   "patterns": len(r.patterns), "plugins": list(r.plugins),
                                   "options": list(r.options_declared()), "presets": list(r.presets()),
                                   "source": src.name, "from": src.origin, "path": str(path),
                                   "conformance": conf}, ensure_ascii=False))
        else:
            click.echo(f"{rid:20} {r.name}  ({r.tileset.size} tiles, {len(r.patterns)} patterns)"
                       f"  [{src.origin}]")
    if bad:
        sys.exit(1)


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
