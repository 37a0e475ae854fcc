"""The ``mj`` command line.

Exit codes, the same for every command:

- 0: done, nothing found;
- 1: a finding (an invalid ruleset, a failing conformance case, a lint
  warning under ``--strict``) or a user error (an unknown ruleset, a bad
  hand, a bad value such as ``--seat 9`` or ``--hands lots``), printed as a
  clear message, never a traceback;
- 2: usage: an unknown command or option, a missing argument;
- 130: interrupted (Ctrl-C).

Nothing is half-written: files are written to a temporary name and renamed
(:mod:`mjframework.core.fileio`), with a normal file's permissions. ``-`` stands
for standard input or output wherever a file is read or written.
"""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import NoReturn

import click

from ..core.errors import MJError, Problem, RulesetError, format_path
from ..core.fileio import write_atomic
from ..rules import loader as rs_mod
from .common import InputPath, OutputPath, shown


def _fail(message: str) -> NoReturn:
    click.echo(f"error: {message}", err=True)
    sys.exit(1)


# Every command, as "module:attribute", imported only when run or listed (click's "lazily
# loading subcommands" pattern): `import mjframework.cli` loads no command module. The group
# has no eagerly added commands, so tools that read `group.commands` (mkdocs-click) fall back
# to list_commands/get_command and see them all.
LAZY_COMMANDS: dict[str, str] = {
    "balance": "mjframework.cli.balance:balance_cmd",
    "compile": "mjframework.cli.compile:compile_cmd",
    "conformance": "mjframework.cli.score:conformance",
    "dataset": "mjframework.cli.agents:dataset_cmd",
    "diff": "mjframework.cli.design:diff",
    "doc": "mjframework.cli.doc:doc",
    "lint": "mjframework.cli.lint:lint",
    "match": "mjframework.cli.agents:match_cmd",
    "new-variant": "mjframework.cli.design:new_variant",
    "play": "mjframework.cli.game:play_cmd",
    "plugins": "mjframework.cli.plugins:plugins_cmd",
    "records": "mjframework.cli.records:records_cmd",
    "replay": "mjframework.cli.agents:replay_cmd",
    "rulesets": "mjframework.cli:rulesets_cmd",
    "schema": "mjframework.cli:schema_cmd",
    "score": "mjframework.cli.score:score",
    "serve": "mjframework.cli.serve:serve",
    "simulate": "mjframework.cli.game:simulate_cmd",
    "train": "mjframework.cli.agents:train_cmd",
    "validate": "mjframework.cli:validate",
}


def _json_error(message: str, problems: list[str] | None = None) -> None:
    """A command run with --json failed: say so as one JSON object on stdout (the message also
    goes to stderr, as without --json)."""
    out: dict[str, object] = {"ok": False, "error": message}
    if problems is not None:
        out["problems"] = problems
    click.echo(json.dumps(out, ensure_ascii=False))


class _WrongValue(click.BadParameter):
    """A value the command line could parse but that is wrong: a user error (exit 1)."""

    exit_code = 1


class _Group(click.Group):
    """Loads the :data:`LAZY_COMMANDS` on demand; turns any :class:`MJError` into a message and exit 1."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *LAZY_COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = LAZY_COMMANDS.get(cmd_name)
        if target is None:
            return super().get_command(ctx, cmd_name)
        module, _, attr = target.partition(":")
        command = getattr(importlib.import_module(module), attr)
        if not isinstance(command, click.Command):  # pragma: no cover - a wrong table entry
            raise TypeError(f"{target} is not a click command")
        return command

    def invoke(self, ctx: click.Context) -> object:
        # `--json` anywhere after the command: an error is also one JSON object on stdout
        # ({"ok": false, "error": …}), so a pipe into a JSON reader never sees plain text or nothing.
        wants_json = "--json" in [*getattr(ctx, "_protected_args", ()), *ctx.args]
        try:
            return super().invoke(ctx)
        except click.BadParameter as e:
            # A value the command line could parse but that is wrong (`--seat 9`) is a user
            # error (1), like `--hands lots`; 2 stays for usage: unknown option, missing argument.
            if not isinstance(e, click.MissingParameter):
                if wants_json:
                    _json_error(f"{e.param_hint or ''}: {e.message}".lstrip(": "))
                raise _WrongValue(e.message, e.ctx, e.param, e.param_hint) from None
            raise
        except KeyboardInterrupt:
            click.echo("\ninterrupted", err=True)
            sys.exit(130)
        except RulesetError as e:
            if wants_json:
                _json_error("invalid ruleset", [shown(str(p)) for p in e.problems])
            for p in e.problems:
                click.echo(shown(str(p)) if p.location else f"error: {shown(str(p))}", err=True)
            sys.exit(1)
        except MJError as e:
            if wants_json:
                _json_error(shown(str(e)))
            _fail(shown(str(e)))
        except BrokenPipeError:  # `mj ... | head`
            sys.exit(0)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="mjframework")
@click.option("--trace-hooks", is_flag=True,
              help="Print every plugin hook call (hook, plugins, arguments, result) to stderr.")
@click.option("--allow-path", "allow_paths", multiple=True, metavar="DIR",
              type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="Let rulesets' `extends` and conformance files' `ruleset:` reach files under DIR too "
                   "(by default: their own folder, the current one, and the ruleset sources; repeatable; "
                   "also MJ_ALLOW_PATH).")
def main(trace_hooks: bool, allow_paths: tuple[Path, ...]) -> None:
    """mjframework: mahjong variants declared in YAML, played, scored and settled by one engine."""
    if allow_paths:  # (for this command only: `mj` may run in-process, several times)
        from ..rules.loader import allow_path

        ctx = click.get_current_context()
        for folder in allow_paths:
            ctx.call_on_close(allow_path(folder))
    if trace_hooks:
        from ..hooks.registry import set_hook_tracing

        set_hook_tracing(lambda line: click.echo(line, err=True))


@click.command()
@click.argument("paths", nargs=-1, required=True, type=InputPath(path_type=Path))
@click.option("--json", "as_json", is_flag=True,
              help="One JSON object per file: file, ok, kind (ruleset/fragment), summary, problems.")
def validate(paths: tuple[Path, ...], as_json: bool) -> None:
    """Check ruleset files (schema and meaning); print every problem as FILE:LINE:COL: path: message.

    A folder checks every *.yaml in it; `-` reads one file from standard input.
    Exits 1 if any file has a problem. Warnings (FILE:LINE:COL: path: warning: …) point at
    what is legal but probably not meant, such as a pattern's `replace: true` dropping the
    inherited `shape`, `wait` or `require`; they don't fail the file.
    """
    bad = 0
    for path in paths:
        if not path.exists():
            if as_json:
                click.echo(json.dumps({"file": str(path), "ok": False, "kind": None, "summary": None,
                                       "problems": [{"file": None, "line": None, "column": None, "path": "",
                                                     "message": "no such file"}]}))
            else:
                click.echo(f"{path}: no such file", err=True)
            bad += 1
            continue
        files = sorted(path.glob("*.yaml")) if path.is_dir() else [path]
        for f in files:
            warned: list[Problem] = []
            ruleset, problems = rs_mod.check_file(f, warnings=warned)
            name = shown(str(f))
            if problems:
                bad += 1
            if as_json:
                click.echo(json.dumps({
                    "file": name, "ok": not problems,
                    "kind": None if problems else ("ruleset" if ruleset is not None else "fragment"),
                    "summary": ruleset.summary() if ruleset is not None else None,
                    "problems": [{"file": shown(p.location.file) if p.location else None,
                                  "line": p.location.line if p.location else None,
                                  "column": p.location.column if p.location else None,
                                  "path": format_path(p.path), "message": p.message} for p in problems],
                    "warnings": [{"file": shown(w.location.file) if w.location else None,
                                  "line": w.location.line if w.location else None,
                                  "column": w.location.column if w.location else None,
                                  "path": format_path(w.path), "message": w.message} for w in warned],
                }, ensure_ascii=False))
                continue
            for p in [*problems, *warned]:
                click.echo(shown(str(p)), err=True)
            if not problems:
                click.echo(f"ok  {name}: " + (ruleset.summary() if ruleset is not None else "fragment"))
    if bad:
        if not as_json:
            click.echo(f"{bad} file(s) with problems", err=True)
        sys.exit(1)


@click.command("rulesets")
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
                                   "options": list(r.option_decls), "presets": list(r.preset_decls),
                                   "source": src.name, "from": src.origin, "path": str(path),
                                   "conformance": conf}, ensure_ascii=False))
        else:
            click.echo(f"{rid:20} {r.name}  ({r.tileset.size} tiles, {len(r.patterns)} patterns)"
                       f"  [{src.origin}]")
    if bad:
        sys.exit(1)


@click.command("schema")
@click.option("-o", "--output", type=OutputPath(as_path=True),
              help="Write to this file (atomically; a new or regular file; `-`: standard output).")
@click.option("--conformance", is_flag=True,
              help="The schema of conformance case files instead of rulesets.")
def schema_cmd(output: Path | None, conformance: bool) -> None:
    """Print (or write) the ruleset JSON Schema, for editors' YAML language servers.

    With --conformance, the schema of conformance case files (docs/conformance.md).
    """
    from ..run.conformance import schema as conformance_schema

    text = json.dumps(conformance_schema() if conformance else rs_mod.schema(),
                      indent=2, ensure_ascii=False) + "\n"
    if output and str(output) != "-":
        write_atomic(output, text)
        click.echo(f"wrote {output}")
    else:
        click.echo(text, nl=False)


if __name__ == "__main__":  # pragma: no cover
    main()
