"""What the ``mj`` commands share: the ruleset argument, ``--set``/``--preset``, ``-`` for stdin.

Its own module so that the command modules (``cli_*``) import it rather than the
command group in :mod:`mjframework.cli`, which loads them lazily.
"""

from __future__ import annotations

import random
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
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


class OutputPath(click.ParamType):
    """A file to write: ``-`` (standard output) or a new name or a regular file.

    Checked when the command line is read (:func:`mjframework.core.fileio.check_target`),
    so a device, FIFO, folder, symlink or empty name is refused before any work is
    done; the writer checks again before its rename. ``as_path``: give a :class:`Path`.
    """

    name = "FILE"

    def __init__(self, as_path: bool = False) -> None:
        self.as_path = as_path

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        from ..core.fileio import OutputError, check_target, is_stdio

        text = str(value)
        if not is_stdio(text):
            try:
                check_target(text)
            except OutputError as e:
                self.fail(str(e), param, ctx)
        return Path(text) if self.as_path else text


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


# Hands before a progress bar is worth showing (and only when stderr is a terminal).
PROGRESS_MIN_HANDS = 200


def hands_and_seed(hands: str | None, seed: str | None, *, tell: bool = False) -> tuple[int, int]:
    """``--hands`` (required, ≥ 1) and ``--seed`` (a random one if not given; ``tell``: say it
    on stderr, for commands whose output doesn't show it)."""
    if hands is None:
        raise MJError("give the number of hands with --hands N")
    n = parse_int(hands, "--hands", minimum=1)
    s = parse_int(seed, "--seed")
    if s is None:
        s = random.SystemRandom().randrange(10**9)
        if tell:
            click.echo(f"seed {s}", err=True)
    assert n is not None
    return n, s


INT_DIGITS = 18  # digits of an integer option, at most (a seed, a count: below 10**18)
_INT = re.compile(r"[+-]?[0-9]+(?:_[0-9]+)*")


def parse_int(value: str | None, what: str, *, minimum: int | None = None) -> int | None:
    """Parse an integer option ourselves, so bad input is an error with exit 1 (not click's 2).

    ASCII digits only (``²`` and ``٣`` are digits to Python's ``int``, not to a user), an
    optional sign and ``_`` separators, at most :data:`INT_DIGITS` digits.
    """
    if value is None:
        return None
    text = value.strip()
    shown = repr(text if len(text) <= 40 else text[:40] + "…")
    if not _INT.fullmatch(text):
        raise MJError(f"{what} must be an integer, got {shown}")
    if len(text.lstrip("+-").replace("_", "")) > INT_DIGITS:
        raise MJError(f"{what} must have at most {INT_DIGITS} digits, got {shown}")
    n = int(text.replace("_", ""))
    if minimum is not None and n < minimum:
        raise MJError(f"{what} must be at least {minimum}, got {n}")
    return n


def bot_timeout_seconds(text: str) -> float:
    """``--bot-timeout``: a finite number of seconds above 0, at most a day (exit 1 otherwise)."""
    from ..run.extbot import check_timeout

    try:
        return check_timeout(float(text))
    except ValueError:
        from ..run.extbot import MAX_TIMEOUT

        raise click.BadParameter(f"a number of seconds above 0 and at most {MAX_TIMEOUT:g}, not {text!r}",
                                 param_hint="--bot-timeout") from None


@contextmanager
def progress(hands: int) -> Iterator:
    """A progress bar's ``update`` for a run of ``hands`` hands, or ``None`` (short runs, no terminal)."""
    if hands < PROGRESS_MIN_HANDS or not sys.stderr.isatty():
        yield None
        return
    with click.progressbar(length=hands, label="simulating", file=sys.stderr,
                           show_pos=True, show_eta=True) as bar:
        yield bar.update


# The options every command that plays many hands shares (simulate, balance).
def hands_option(f: Any) -> Any:
    """``--hands N`` (``-n``), required: read with :func:`hands_and_seed`."""
    return click.option("--hands", "-n", "hands", metavar="N", help="How many hands to play (required).")(f)


def seed_option(f: Any) -> Any:
    """``--seed S`` (``-s``), a random one when not given: read with :func:`hands_and_seed`."""
    return click.option("--seed", "-s", "seed", metavar="S",
                        help="Base seed (integer). Default: a random one, printed so the run can be "
                             "repeated.")(f)


def bots_option(f: Any) -> Any:
    """``--bots NAMES`` (``-b``): one bot for every seat, or one per seat."""
    return click.option("--bots", "-b", default="greedy", show_default=True, metavar="NAMES",
                        help="One bot for every seat, or one per seat separated by commas "
                             "(greedy, random).")(f)
