"""``mj new-variant``: scaffold a ruleset package a club or designer can share.

The package (``mj-NAME`` on PyPI, module ``mj_NAME``) holds one ruleset that
extends a chosen base by a folder-independent name (``builtin:ID`` for a
shipped ruleset, else the base's id), a conformance file whose cases were
scored by the engine when the package was made, and what keeps it honest:

- ``pyproject.toml`` declaring the entry point ``mjframework.rulesets``
  (``NAME = "mj_NAME"``), so once installed ``mj rulesets`` lists it and any
  command takes ``NAME`` as a ruleset id;
- ``.github/workflows/mj.yml``: CI running ``mj validate``, ``mj lint
  --strict``, ``mj conformance`` and ``pytest`` (which collects the
  conformance file through mjframework's pytest plugin);
- ``.pre-commit-hooks.yaml``: ``mj-validate`` and ``mj-conformance`` hooks.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

from ..core.errors import MJError
from ..core.fileio import write_atomic
from ..core.tiles import format_tiles, tile_code
from ..evaluate.scoring import Evaluator
from ..rules.loader import BUILTIN, ruleset_origins, ruleset_sources
from .rulecard import find_example

NAME_RE = re.compile(r"^[a-z0-9][a-z0-9-]*$")


class ScaffoldError(MJError):
    pass


def module_name(name: str) -> str:
    return "mj_" + name.replace("-", "_")


def _cases(base_id: str, name: str) -> str:
    """Conformance cases for the new ruleset: engine-found examples of the base's first win patterns."""
    from ..rules.loader import load_ruleset

    rs = load_ruleset(base_id)
    ev = Evaluator(rs)
    out: list[str] = []
    for p in rs.patterns:
        if len(out) >= 3:
            break
        if p.phase != "win" or not p.makes_win:
            continue
        ex = find_example(ev, p, seed=0, budget=400)
        if ex is None or ex.result is None or not ex.result.score.win or ex.flags:
            continue
        res = ex.result
        assert ex.win_tile is not None  # a win pattern's example is won on a tile
        melds = ", ".join(f'"{m}"' for m in ex.meld_args())
        lines = [
            f"  - id: {name}-{len(out) + 1}",
            f"    note: \"{' + '.join(res.score.pattern_names)}, found by the engine; edit to your rules\"",
            f"    seat: {ex.seat}",
            f"    hand: {format_tiles(sorted(ex.concealed))}",
            f"    melds: [{melds}]",
            f"    win_tile: {tile_code(ex.win_tile)}",
            f"    win_by: {ex.win_by}",
        ]
        if ex.discarder is not None:
            lines.append(f"    discarder: {ex.discarder}")
        if ex.wildcard is not None:
            lines.append(f"    wildcard: {tile_code(ex.wildcard)}")
        lines += [
            "    expect:",
            "      win: true",
            f"      patterns: [{', '.join(res.score.pattern_names)}]",
            f"      payments: [{', '.join(str(a) for a in res.payments or [])}]",
        ]
        out.append("\n".join(lines))
    if not out:
        raise ScaffoldError(f"found no example hand of {base_id} to start the conformance file with")
    return "\n\n".join(out)


MAX_NAME = 64  # characters of a variant's name (it becomes a file, a module and a PyPI name)
# Names an installed package can't be found by: the built-in source's own name (an entry point
# called so is skipped, `builtin:` means the shipped rulesets).
RESERVED = frozenset({BUILTIN})


def check_name(name: str) -> None:
    """``name`` can be a ruleset id, a file name, a Python module (``mj_NAME``) and a PyPI name."""
    if len(name) > MAX_NAME:
        raise ScaffoldError(f"{name[:20]!r}…: a name is at most {MAX_NAME} characters, this has {len(name)}")
    if not NAME_RE.fullmatch(name) or name.endswith("-") or "--" in name:  # (fullmatch: not "x\\n")
        raise ScaffoldError(f"{name[:40]!r}: a ruleset id is lower-case letters, digits and single '-' "
                            "between them (e.g. club-rules)")
    if name in RESERVED:
        raise ScaffoldError(f"{name!r} is reserved (`{name}:` names the shipped rulesets): a package "
                            "under this name could never be found; choose another")


def check_folder(folder: Path) -> None:
    """``folder`` is new, or an empty folder (not a file, a device, a symlink to elsewhere)."""
    if folder.is_symlink():
        raise ScaffoldError(f"{folder} is a symbolic link: give a new folder")
    if folder.exists() and not folder.is_dir():
        raise ScaffoldError(f"{folder} exists and is not a folder: give a new folder with --dir")
    try:
        if folder.exists() and any(folder.iterdir()):
            raise ScaffoldError(f"{folder} exists and is not empty")
    except OSError as e:
        raise ScaffoldError(f"{folder}: cannot read it ({e.strerror or e})") from None
    for parent in folder.absolute().parents:
        if parent.exists():
            if not parent.is_dir():
                raise ScaffoldError(f"{folder}: {parent} is not a folder")
            break


def scaffold(name: str, base: str, folder: Path) -> list[Path]:
    """Write the package for ruleset ``name`` extending ``base`` into ``folder``; return the files."""
    check_name(name)
    origins = ruleset_origins()
    if base not in origins:
        raise ScaffoldError(f"no ruleset {base!r} to extend (ids: {', '.join(origins) or 'none'})")
    if name in origins:
        raise ScaffoldError(f"{name!r} is already a ruleset id ({origins[name][1].origin})")
    taken = {src.name: src for src in ruleset_sources()}
    if name in taken:
        raise ScaffoldError(f"{name!r} is already the name of a ruleset source ({taken[name].origin}): "
                            "choose another")
    check_folder(folder)
    src = origins[base][1]
    base_ref = f"{BUILTIN}:{base}" if src.name == BUILTIN else base
    mod = module_name(name)
    pkg = f"src/{mod}"
    cases = _cases(base, name)
    files = {
        "pyproject.toml": f"""\
            [build-system]
            requires = ["setuptools>=68"]
            build-backend = "setuptools.build_meta"

            [project]
            name = "mj-{name}"
            version = "0.1.0"
            description = "The {name} mahjong ruleset for mjframework (extends {base})."
            readme = "README.md"
            requires-python = ">=3.11"
            dependencies = ["mjframework"]

            # mjframework finds the ruleset through this entry point: `mj rulesets` lists it,
            # and every command takes `{name}` as a ruleset id once the package is installed.
            [project.entry-points."mjframework.rulesets"]
            {name} = "{mod}"

            [tool.setuptools.packages.find]
            where = ["src"]

            [tool.setuptools.package-data]
            {mod} = ["*.yaml", "conformance/*.yaml"]

            [tool.pytest.ini_options]
            testpaths = ["src"]
            """,
        f"{pkg}/__init__.py": f'''\
            """The {name} ruleset (data only: the YAML files beside this module)."""
            ''',
        f"{pkg}/{name}.yaml": f"""\
            # {name}: a house variant of {base}. Change what differs below; everything
            # else is inherited (`mj doc {name}` prints the full rule card).
            format: 1
            id: {name}
            name: {name}
            description: {base} with house rules.
            extends: {base_ref}
            """,
        f"{pkg}/conformance/{name}.yaml": "format: 1\nruleset: ../" + name + ".yaml\n"
        "# Hands and the results the ruleset must give. These start as engine-found examples\n"
        "# of the base rules: replace them with the hands your table agrees on.\n"
        "cases:\n" + cases + "\n",
        ".github/workflows/mj.yml": f"""\
            name: ruleset
            on: [push, pull_request]
            jobs:
              check:
                runs-on: ubuntu-latest
                steps:
                  - uses: actions/checkout@v4
                  - uses: actions/setup-python@v5
                    with: {{python-version: "3.12"}}
                  - run: pip install . pytest
                  - run: mj validate {pkg}/{name}.yaml
                  - run: mj lint --strict {pkg}/{name}.yaml
                  - run: mj conformance {pkg}/conformance
                  - run: pytest
            """,
        ".pre-commit-hooks.yaml": f"""\
            # Hooks other repositories (or this one's .pre-commit-config.yaml) can use.
            - id: mj-validate
              name: mj validate (the ruleset's schema and meaning)
              entry: mj validate
              language: python
              files: ^{pkg}/[^/]+\\.ya?ml$
            - id: mj-conformance
              name: mj conformance (the agreed hands still score as agreed)
              entry: mj conformance {pkg}/conformance
              language: python
              files: ^{pkg}/.*\\.ya?ml$
              pass_filenames: false
            """,
        "README.md": f"""\
            # {name}

            A mahjong ruleset for [mjframework](https://pypi.org/project/mjframework/): {base} with
            house rules (`{pkg}/{name}.yaml`).

            ```sh
            pip install .
            mj rulesets                      # lists {name}, from this package
            mj doc {name}                    # its rule card
            mj play {name}                   # play it against three bots
            mj conformance {pkg}/conformance # the agreed hands
            pytest                           # the same cases, as tests
            ```
            """,
    }
    written = []
    try:
        for rel, text in files.items():
            path = folder / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            body = text if rel.endswith("conformance/" + name + ".yaml") else textwrap.dedent(text)
            write_atomic(path, body)
            written.append(path)
    except OSError as e:
        for path in written:  # nothing half-written: the files made so far go
            path.unlink(missing_ok=True)
        if isinstance(e, MJError):
            raise
        raise ScaffoldError(f"cannot write {folder}: {e.strerror or e}") from None
    return written


__all__ = ["MAX_NAME", "RESERVED", "ScaffoldError", "check_folder", "check_name", "module_name", "scaffold"]
