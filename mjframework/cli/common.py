"""What the ``mj`` commands share: the ruleset argument, ``--set``/``--preset``, ``-`` for stdin.

Its own module so that the command modules (``cli_*``) import it rather than the
command group in :mod:`mjframework.cli`, which loads them lazily.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from ..core.errors import MJError

# Temporary files standing for standard input → the name messages show instead.
_STDIN_FILES: dict[str, str] = {}


def shown(text: str) -> str:
    """``text`` with any stdin stand-in file named as ``<stdin>``."""
    for tmp, name in _STDIN_FILES.items():
        text = text.replace(tmp, name)
    return text


def stdin_to_file(ctx: click.Context | None = None) -> Path:
    """Standard input saved as a YAML file (removed when the command ends), for ``-`` as an input.

    Relative ``extends`` / ``ruleset:`` references in it resolve from the current folder.
    """
    import shutil
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="mj-stdin-"))
    path = folder / "stdin.yaml"
    # Bytes decoded as UTF-8 whatever the locale (a ruleset is UTF-8); click's test runner
    # and a real stdin both have a binary buffer under the text stream.
    stream = getattr(sys.stdin, "buffer", None)
    text = stream.read().decode("utf-8") if stream is not None else sys.stdin.read()
    path.write_text(text, encoding="utf-8")
    _STDIN_FILES[str(path)] = "<stdin>"
    ctx = ctx or click.get_current_context(silent=True)
    if ctx is not None:
        ctx.call_on_close(lambda: shutil.rmtree(folder, ignore_errors=True))
    return path


class RulesetRef(click.ParamType):
    """A ruleset id or path; ``-`` reads the ruleset's YAML from standard input."""

    name = "RULESET"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and value == "-":
            return str(stdin_to_file(ctx))
        return value


class InputPath(click.Path):
    """A file or folder to read; ``-`` is standard input (saved to a temporary file)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and value == "-":
            return stdin_to_file(ctx)
        return super().convert(value, param, ctx)


RULESET = RulesetRef()


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
