"""Loading rulesets: YAML → ``extends`` merged → schema- and meaning-checked → :class:`Ruleset`.

Every problem found is collected (not just the first) and reported as
``FILE:LINE:COL: yaml.path: message`` through :class:`RulesetError`.

``extends`` semantics: mappings merge key by key (the extending file wins),
lists are replaced, except ``patterns``, which merge by name (a pattern with
an inherited name is merged into it key by key, in place, or replaces it whole
with ``replace: true``; new ones are appended); a ``null`` value removes an
inherited key (``plugins: {kaigang: null}``) and is no change where nothing is
inherited.
"""

from __future__ import annotations

import contextlib
import difflib
import importlib.util
import json
import math
import os
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from functools import lru_cache
from importlib import metadata, resources
from pathlib import Path
from typing import Any

import jsonschema

from ..core.errors import Location, Problem, RulesetError
from ..core.kinds import EventType
from ..core.tiles import (
    HONOR_BASE,
    SUIT_LETTERS,
    TileParseError,
    TileSet,
    is_honor,
    parse_tile,
    parse_tiles,
    tile_code,
    tile_name,
)
from ..hooks import registry as plugin_registry
from . import measures
from . import options as option_mod
from .model import (
    FLAGS,
    GROUP_KINDS,
    SEAT_MEASURES,
    BonusDealer,
    BonusMore,
    BonusTiles,
    BreakRule,
    Claims,
    Condition,
    Count,
    CounterRule,
    DealerRule,
    DealRule,
    DrawnPayment,
    Exchange,
    Exclusion,
    Flow,
    GroupFilter,
    HandRule,
    IndicatorRule,
    KongPayment,
    LaidKong,
    LeaveRule,
    Liability,
    Pattern,
    PatternExample,
    PayerRule,
    PayerTest,
    Ruleset,
    Scoring,
    SetCombo,
    Shape,
    StandIn,
    Test,
    TileFilter,
    VoidSuit,
    Wait,
    WallRule,
    When,
    WildcardRule,
    WinRequirement,
    WinRule,
)
from .yamlsource import MAX_NODES, SourceList, SourceMap, file_path, load_yaml_file, location_of, to_plain

HAND_TILES = 14  # a winning hand of the default `hand.size` (13), one tile per kong aside
HAND_SIZES = range(4, 23, 3)  # `hand.size`: 4, 7, … 22 (1 more than a multiple of 3; docs/limits.md)

# `require` keys that are not counts, and those only a win's reading has.
NOT_COUNTS = ("all_tiles", "no_tiles", "pair", "every_group", "any_group", "groups", "win_wait",
              "held_ranks", "any", "all", "not")
READING_ONLY = ("every_group", "any_group", "groups", "win_wait", "pair")
# Count measures (`times: {per: …}` may name any of them): the registry's (.measures).
COUNT_MEASURES = measures.NAMES

# Sections a playable ruleset must have once its `extends` chain is merged.
REQUIRED_SECTIONS = (
    "name", "players", "tiles", "wall", "break", "deal", "claims", "win", "dealer",
    "scoring", "patterns",
)


# --------------------------------------------------------------------------
# finding files


RULESETS_GROUP = "mjframework.rulesets"  # entry points of installed ruleset packages
BUILTIN = "builtin"  # the source name of the shipped rulesets (`extends: builtin:fragments/shapes.yaml`)


def builtin_rulesets_dir() -> Path:
    """The rulesets shipped with the package (``rulesets/`` in the source tree)."""
    return Path(str(resources.files("mjframework_rulesets")))


@dataclass(frozen=True)
class RulesetSource:
    """A folder of rulesets: the built-in one, or an installed package's.

    An installed package declares an entry point in the group
    ``mjframework.rulesets`` whose value is a Python package (``name =
    "my_variant"``); that package's folder holds its rulesets (``*.yaml``,
    each id its file's stem), fragments (``fragments/``) and conformance
    files (``conformance/``).
    """

    name: str  # "builtin", or the entry point's name
    root: Path | None
    origin: str  # readable: "built-in (mjframework 0.2.0)", "package my-variant 0.1.0 (...)"
    error: str = ""  # the entry point could not be loaded

    def rulesets(self) -> dict[str, Path]:
        if self.root is None or not self.root.is_dir():
            return {}
        return {p.stem: p for p in sorted(self.root.glob("*.yaml"))}

    def conformance_files(self) -> list[Path]:
        folder = self.root / "conformance" if self.root is not None else None
        if folder is None or not folder.is_dir():
            return []
        return sorted(p for p in folder.rglob("*.y*ml") if p.suffix in (".yaml", ".yml"))


def _dist_version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "?"


@lru_cache(maxsize=1)
def ruleset_sources() -> tuple[RulesetSource, ...]:
    """The built-in rulesets first, then each installed ruleset package (by entry-point name).

    Cached: call :func:`refresh_ruleset_sources` after installing a package in-process.
    """
    out = [RulesetSource(BUILTIN, builtin_rulesets_dir(),
                         f"built-in (mjframework {_dist_version('mjframework')})")]
    for ep in sorted(metadata.entry_points(group=RULESETS_GROUP), key=lambda e: e.name):
        if ep.name == BUILTIN:
            continue
        dist = getattr(ep, "dist", None)
        origin = (f"package {dist.name} {dist.version}" if dist is not None else "package ?") + \
            f" (entry point {ep.name} = {ep.value})"
        try:
            spec = importlib.util.find_spec(ep.module)
        except (ImportError, ValueError) as e:
            spec, err = None, f"{type(e).__name__}: {e}"
        else:
            err = "" if spec is not None else f"module {ep.module!r} not found"
        root = None
        if spec is not None:
            locs = list(spec.submodule_search_locations or [])
            root = Path(locs[0]) if locs else Path(spec.origin).parent if spec.origin else None
            if root is None:
                err = f"module {ep.module!r} has no folder"
        out.append(RulesetSource(ep.name, root, origin, err))
    return tuple(out)


def refresh_ruleset_sources() -> None:
    """Forget the cached entry points (after a package was installed or removed)."""
    ruleset_sources.cache_clear()


def ruleset_origins() -> dict[str, tuple[Path, RulesetSource]]:
    """Every ruleset id → (file, where it comes from). A built-in id wins over an installed one."""
    out: dict[str, tuple[Path, RulesetSource]] = {}
    for src in ruleset_sources():
        for rid, path in src.rulesets().items():
            out.setdefault(rid, (path, src))
    return out


def available_rulesets() -> dict[str, Path]:
    """Ruleset ids → files (fragments excluded): built-in, then from installed ruleset packages."""
    return {rid: path for rid, (path, _) in ruleset_origins().items()}


def _source_ref(ref: str) -> tuple[RulesetSource, str] | None:
    """``SOURCE:rest`` (``builtin:fragments/shapes.yaml``, ``my-pkg:my-variant``) → (source, rest)."""
    name, sep, rest = ref.partition(":")
    if not sep or len(name) < 2 or not rest:  # (`C:\\...` is a Windows path, not a source)
        return None
    for src in ruleset_sources():
        if src.name == name:
            return src, rest
    raise FileNotFoundError(ref)


def resolve_ruleset_ref(ref: str, base_dir: Path | None = None) -> Path:
    """A ruleset id or path → the file. Paths are relative to ``base_dir``.

    - ``SOURCE:PATH`` or ``SOURCE:ID``: a file of a ruleset source, whatever
      the current folder (``builtin:fragments/shapes.yaml``, ``builtin:some-id``,
      or an installed package's entry-point name);
    - an id: the built-in rulesets, then installed packages, then ``base_dir``
      and ``./rulesets``;
    - a relative path: ``base_dir``, the current folder, then each source's
      folder, so a copy of a shipped ruleset (``extends: fragments/shapes.yaml``)
      still finds the shipped fragments.
    """
    candidates: list[Path] = []
    sourced = _source_ref(ref) if not Path(ref).is_absolute() else None
    if sourced is not None:
        src, rest = sourced
        if src.root is not None:
            is_path = rest.endswith((".yaml", ".yml")) or "/" in rest
            candidates.append(src.root / (rest if is_path else f"{rest}.yaml"))
        for c in candidates:
            # (a file *of that source*: `builtin:/etc/x.yaml` and `pkg:../x.yaml` name nothing)
            if c.is_file() and src.root is not None and _inside(c.resolve(), src.root.resolve()):
                return c
        raise FileNotFoundError(ref)
    looks_like_path = ref.endswith((".yaml", ".yml")) or "/" in ref or "\\" in ref
    if looks_like_path:
        p = Path(ref)
        candidates.append(p if p.is_absolute() or base_dir is None else base_dir / p)
        if not p.is_absolute():
            if base_dir is not None:
                candidates.append(Path(ref))
            candidates += [src.root / p for src in ruleset_sources() if src.root is not None]
    else:
        # An id: the built-in rulesets first (a conformance file may sit next
        # to files named like ids), then installed packages, the caller's folder and ./rulesets.
        found = ruleset_origins().get(ref)
        if found is not None:
            candidates.append(found[0])
        if base_dir is not None:
            candidates.append(base_dir / f"{ref}.yaml")
        candidates.append(Path("rulesets") / f"{ref}.yaml")
    for c in candidates:
        if c.is_file():
            return c
    raise FileNotFoundError(ref)


def ruleset_ref(rs: Ruleset) -> str:
    """How a command line names ``rs``: its id when that id finds this very file, else its path.

    Rule cards and lint print ``mj score RULESET ...`` commands; a designer's
    own file is not found by its id, so those commands name the file.
    """
    try:
        found = resolve_ruleset_ref(rs.id)
    except FileNotFoundError:
        return rs.source
    try:
        return rs.id if found.resolve() == Path(rs.source).resolve() else rs.source
    except OSError:
        return rs.source


# --------------------------------------------------------------------------
# schema


@lru_cache(maxsize=1)
def schema() -> dict[str, Any]:
    text = resources.files("mjframework").joinpath("schema/ruleset.schema.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def schema_defaults() -> dict[tuple[str, ...], Any]:
    """Every ``default`` the ruleset schema states, by YAML path (``("win", "self_draw")``).

    Defaults of keys inside list items are under the list's key (``("deal", "then",
    "tiles")``). They are the typed sections' field defaults (tests check that).
    """
    sch = schema()
    out: dict[tuple[str, ...], Any] = {}

    def walk(node: Any, path: tuple[str, ...]) -> None:
        if isinstance(node, list):
            for x in node:
                walk(x, path)
        if not isinstance(node, dict):
            return
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/") and len(path) < 8:
            walk(sch["$defs"][ref.removeprefix("#/$defs/")], path)
        for k, v in node.items():
            if k == "properties":
                for name, sub in v.items():
                    walk(sub, (*path, name))
            elif k == "default" and path:
                out[path] = v
            elif k not in ("$defs", "$ref"):
                walk(v, path)

    walk({k: v for k, v in sch.items() if k != "$defs"}, ())
    return out


def _unique_items(validator: Any, unique: Any, instance: Any, schema: Any) -> Any:
    """``uniqueItems`` in linear time (jsonschema's own is quadratic on lists of mappings)."""
    if not unique or not validator.is_type(instance, "array"):
        return
    seen: set[str] = set()
    for item in instance:
        key = json.dumps(_unbool(item), sort_keys=True, default=str)
        if key in seen:
            yield jsonschema.ValidationError(f"has the item {_short(item)} more than once")
            return
        seen.add(key)


def _unbool(v: Any) -> Any:
    """JSON Schema tells true from 1 and 1 from 1.0 differently than Python: normalise."""
    if isinstance(v, bool):
        return ("bool", v)
    if isinstance(v, float) and v.is_integer():
        return int(v)
    if isinstance(v, dict):
        return {str(k): _unbool(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_unbool(x) for x in v]
    return v


def _short(v: Any, limit: int = 60) -> str:
    text = repr(v)
    return text if len(text) <= limit else text[:limit] + "…"


def _is_integer(checker: Any, instance: Any) -> bool:
    """JSON Schema's ``integer``, as a ruleset means it: an int, never a float.

    jsonschema counts ``3.0`` and ``1e300`` as integers (their value is whole) and
    YAML reads ``.inf``, ``.nan`` and ``1e999`` as floats: a ruleset's counts,
    points and seats are whole numbers, written as such, so every ``integer``
    field of every schema refuses floats (a located error, not an
    ``OverflowError`` later).
    """
    return isinstance(instance, int) and not isinstance(instance, bool)


def _is_number(checker: Any, instance: Any) -> bool:
    """JSON Schema's ``number``, finite (for plugins' option schemas): no ``.inf``, no ``.nan``."""
    return isinstance(instance, int | float) and not isinstance(instance, bool) and math.isfinite(instance)


_TYPES = jsonschema.Draft202012Validator.TYPE_CHECKER.redefine_many(
    {"integer": _is_integer, "number": _is_number})
# Every schema a ruleset is checked against (the ruleset schema, plugins' option schemas).
StrictValidator = jsonschema.validators.extend(  # type: ignore[no-untyped-call]
    jsonschema.Draft202012Validator, {"uniqueItems": _unique_items}, type_checker=_TYPES)


@lru_cache(maxsize=1)
def _validator() -> jsonschema.Draft202012Validator:
    validator: jsonschema.Draft202012Validator = StrictValidator(schema())
    return validator


def _describe_type(t: object) -> str:  # a schema's ``type``: a name or a list of names
    names = {"integer": "an integer", "string": "a string", "object": "a mapping",
             "array": "a list", "boolean": "true or false", "null": "null", "number": "a number"}
    if isinstance(t, list):
        return " or ".join(names.get(str(x), str(x)) for x in t)
    return names.get(str(t), str(t))


def _schema_problems(data: Any, file_data: Any) -> list[Problem]:
    """JSON Schema errors, reworded for designers and located in the YAML."""
    problems: list[Problem] = []
    for err in sorted(_validator().iter_errors(data), key=lambda e: list(map(str, e.absolute_path))):
        problems.extend(_explain(err, file_data))
    return problems


def _explain(err: jsonschema.ValidationError, data: Any) -> list[Problem]:
    abs_path = tuple(err.absolute_path)
    loc = location_of(data, abs_path)
    path = file_path(data, abs_path)
    v = err.validator
    if v == "additionalProperties" and isinstance(err.instance, dict) and isinstance(err.schema, dict):
        allowed = sorted(err.schema.get("properties", {}))
        out = []
        for key in err.instance:
            if key in allowed:
                continue
            hint = difflib.get_close_matches(str(key), allowed, n=1)
            msg = f"unknown key {key!r}" + (f" (did you mean {hint[0]!r}?)" if hint else "")
            if allowed:
                msg += f"; allowed here: {', '.join(allowed)}"
            out.append(Problem(location_of(data, (*abs_path, key), key=True),
                               file_path(data, (*abs_path, key)), msg))
        return out
    if v == "type":
        kind = _describe_type(err.validator_value)
        return [Problem(loc, path, f"must be {kind}, not {_short(err.instance)}")]
    if v == "required":
        missing = err.message.split("'")[1] if "'" in err.message else err.message
        return [Problem(loc, path, f"missing required key {missing!r}")]
    if v == "enum":
        opts = ", ".join(json.dumps(o, ensure_ascii=False) for o in err.validator_value)  # type: ignore[union-attr]  # an enum's list
        return [Problem(loc, path, f"{_short(err.instance)} is not one of: {opts}")]
    if v == "const":
        return [Problem(loc, path, f"must be {err.validator_value!r}")]
    if v in ("minimum", "maximum"):
        word = "at least" if v == "minimum" else "at most"
        return [Problem(loc, path, f"must be {word} {err.validator_value}, not {err.instance!r}")]
    if v == "pattern":
        return [Problem(loc, path, f"{err.instance!r} doesn't match the form {err.validator_value}")]
    if v in ("oneOf", "anyOf"):
        if not path and isinstance(err.instance, dict):
            if "id" in err.instance and "fragment" in err.instance:
                return [Problem(loc, path, "a file is a ruleset (`id`) or a fragment (`fragment`), not both")]
            return [Problem(loc, path, "a ruleset needs an `id` (or, for a fragment, `fragment`)")]
        ctx_errors = list(err.context or [])
        if ctx_errors and all(e.validator == "type" and not e.relative_path for e in ctx_errors):
            kinds = " or ".join(_describe_type(e.validator_value) for e in ctx_errors)
            return [Problem(loc, path, f"must be {kinds}, not {_short(err.instance)}")]
        # Report the alternative that got furthest (deepest error).
        # (a type error at an alternative's root only says "not this kind"; a deeper one says what is wrong)
        sub = [e for e in ctx_errors if e.validator != "type" or e.relative_path] or ctx_errors
        if sub:
            best = max(sub, key=lambda e: len(e.absolute_path))
            return _explain(best, data)
        return [Problem(loc, path, err.message)]
    if v in ("minItems", "maxItems", "minProperties", "maxProperties", "minLength"):
        what = {"minItems": "at least {} item(s)", "maxItems": "at most {} items",
                "minProperties": "at least {} key(s)", "maxProperties": "at most {} key(s)",
                "minLength": "at least {} character(s)"}[v].format(err.validator_value)
        n = len(err.instance) if isinstance(err.instance, list | dict | str) else "?"
        return [Problem(loc, path, f"must have {what}, not {n} (see docs/limits.md)"
                        if v == "maxItems" else f"must have {what}, not {n}")]
    # Other messages quote the value: keep them short (a value can be a large list).
    return [Problem(loc, path, err.message if len(err.message) <= 300 else err.message[:300] + "…")]


# --------------------------------------------------------------------------
# extends


# Keys whose mapping is an option's patch, kept as written (its `null`s say what it removes).
_PATCH_KEYS = frozenset({"patch", "values"})


def merge_data(base: Any, over: Any, key: str | None = None) -> Any:
    if isinstance(base, dict) and isinstance(over, dict):
        out = SourceMap()
        out.location = getattr(over, "location", None) or getattr(base, "location", None)
        out.file_index = getattr(over, "file_index", None)
        for src in (base, over):
            for k, v in src.items():
                if src is over and v is None:
                    # `null` removes an inherited key, and is no change where nothing is
                    # inherited (an option's patch `{plugins: {x: null}}` on a ruleset without x)
                    out.pop(k, None)
                    continue
                if src is over and k in out:
                    v = merge_data(out[k], v, k)
                elif src is over:
                    stripped = without_nulls(v, k)  # (its own `null`s remove nothing)
                    if isinstance(v, dict) and v and not stripped:
                        continue  # only `null`s: nothing to remove, nothing added
                    v = stripped
                out[k] = v
                if isinstance(src, SourceMap):
                    out.locations[k] = src.locations.get(k)
                    out.key_locations[k] = src.key_locations.get(k)
        return out
    if key == "patterns" and isinstance(base, list) and isinstance(over, list):
        out_l = SourceList()
        out_l.location = getattr(over, "location", None)
        inherited: dict[Any, int] = {}  # base pattern name → position, until overridden
        for src_l in (base, over):
            locs = getattr(src_l, "locations", [None] * len(src_l))
            for j, (item, loc) in enumerate(zip(src_l, locs, strict=False)):
                name = item.get("name") if isinstance(item, dict) else None
                if src_l is over and name is not None and name in inherited:
                    i = inherited.pop(name)  # once: a repeat in the same file stays a duplicate
                    # key by key, as mappings merge (`null` drops an inherited key); `replace:
                    # true` replaces the inherited pattern whole
                    replace = isinstance(item, dict) and item.get("replace") is True
                    merge = not replace and isinstance(out_l[i], dict)
                    if replace:
                        _note_dropped_keys(out_l[i], item, loc, j)
                    out_l[i] = merge_data(out_l[i], item) if merge else item
                    out_l.locations[i] = loc
                    continue
                if src_l is base and name is not None:
                    inherited[name] = len(out_l)
                out_l.append(item)
                out_l.locations.append(loc)
        return out_l
    return over


# What a pattern's `replace: true` may drop without saying so: the keys that decide whether
# the pattern matches at all (docs/pattern-language.md, "extends").
_REPLACE_KEEPS = ("shape", "wait", "require")

#: Warnings collected while merging (``check_file`` sets a list; ``None``: nobody is listening).
_merge_warnings: ContextVar[list[Problem] | None] = ContextVar("_merge_warnings", default=None)


def _note_dropped_keys(inherited: Any, item: Any, loc: Location | None, index: int) -> None:
    """Warn when a ``replace: true`` override lacks a ``shape`` / ``wait`` / ``require`` the
    inherited pattern had: replacing whole is legal (a bonus pattern with no shape), but more
    often the designer meant to change one key and silently widened what the pattern matches."""
    notes = _merge_warnings.get()
    if notes is None or not isinstance(inherited, dict):
        return
    dropped = [k for k in _REPLACE_KEEPS if inherited.get(k) is not None and item.get(k) is None]
    if not dropped:
        return
    if isinstance(item, SourceMap):
        loc = item.key_locations.get("replace") or loc
    idx = getattr(item, "file_index", None)
    keys = ", ".join(f"`{k}`" for k in dropped)
    were = "; ".join(f"{k}: {json.dumps(to_plain(inherited[k]), ensure_ascii=False)}" for k in dropped)
    src = getattr(inherited, "location", None)
    if isinstance(inherited, SourceMap):  # where the inherited pattern says it
        src = inherited.key_locations.get(dropped[0]) or src
    notes.append(Problem(loc, ("patterns", index if idx is None else idx, "replace"),
                         f"warning: `replace: true` drops {keys} of the inherited pattern "
                         f"{item.get('name')} ({were}{f'; at {src}' if src else ''}): the pattern "
                         "now matches without it. Repeat it here if it still applies, or leave out "
                         "`replace: true` to change only the keys given"))


def without_nulls(node: Any, key: Any = None) -> Any:
    """``node`` without its mappings' ``null`` values (locations kept): where nothing is
    inherited, a ``null`` removes nothing. An option's patch is kept as written."""
    if isinstance(node, dict) and key not in _PATCH_KEYS:
        if not any(v is None or isinstance(v, dict | list) for v in node.values()):
            return node
        out = SourceMap()
        out.location = getattr(node, "location", None)
        out.file_index = getattr(node, "file_index", None)
        for k, v in node.items():
            if v is None:
                continue
            out[k] = without_nulls(v, k)
            if isinstance(node, SourceMap):
                out.locations[k] = node.locations.get(k)
                out.key_locations[k] = node.key_locations.get(k)
        return out
    if isinstance(node, list) and any(isinstance(v, dict | list) for v in node):
        out_l = SourceList(without_nulls(v) for v in node)
        out_l.location = getattr(node, "location", None)
        out_l.file_index = getattr(node, "file_index", None)
        out_l.locations = list(getattr(node, "locations", [None] * len(node)))
        return out_l
    return node


# Bounds on one load (docs/limits.md): an `extends` graph is read once per file.
MAX_EXTENDS_DEPTH = 16  # files in one chain of `extends`
MAX_FILES = 32  # distinct files in one load
MAX_LOAD_NODES = 4 * MAX_NODES  # values in all the files of one load together


MAX_EXTENDS_ENTRIES = 2 * MAX_FILES  # entries in one file's `extends` (a name given twice is merged once)

# --------------------------------------------------------------------------
# confinement: which files a ruleset (or a conformance file) may reach

ALLOW_PATH_ENV = "MJ_ALLOW_PATH"  # folders (os.pathsep-separated) every file may reach, like --allow-path
_allowed_folders: list[Path] = []


def allow_path(folder: str | Path) -> Callable[[], None]:
    """Let ``extends`` (and a conformance file's ``ruleset:``) reach files under ``folder`` too
    (``mj --allow-path DIR``); returns the function that takes it back."""
    real = Path(folder).resolve()
    _allowed_folders.append(real)
    _load_cached.cache_clear()

    def undo() -> None:
        with contextlib.suppress(ValueError):
            _allowed_folders.remove(real)
        _load_cached.cache_clear()

    return undo


def allowed_roots(path: str | Path) -> tuple[Path, ...]:
    """The folders whose files the file ``path`` may reach (``docs/limits.md``).

    - its own folder's tree;
    - the current folder's tree (``mj conformance pkg/conformance`` run in a
      repository reaches ``pkg/x.yaml``), unless the current folder is ``/``
      or the home folder;
    - every ruleset source's folder (the built-in rulesets, installed packages);
    - the folders given with ``mj --allow-path DIR`` or in ``MJ_ALLOW_PATH``.

    A file named on the command line is the user's choice; what *it* names
    (``extends``, a conformance file's ``ruleset:``) must lie in these folders
    once symlinks are followed, end in ``.yaml``/``.yml``, and pass through no
    hidden file or folder (``.git/``, ``.env``) below them.
    """
    folder = Path(path).absolute().parent.resolve()
    roots = [folder]
    try:
        cwd: Path | None = Path.cwd().resolve()
    except OSError:  # the current folder was removed
        cwd = None
    if cwd is not None and cwd != Path(cwd.anchor) and cwd != Path(os.path.expanduser("~")).resolve():
        roots.append(cwd)
    roots += [src.root.resolve() for src in ruleset_sources() if src.root is not None]
    env = os.environ.get(ALLOW_PATH_ENV, "")
    roots += [Path(d).resolve() for d in env.split(os.pathsep) if d.strip()]
    roots += _allowed_folders
    return tuple(dict.fromkeys(roots))


def _inside(target: Path, root: Path) -> bool:
    return target == root or target.is_relative_to(root)


def outside_roots(target: Path, roots: tuple[Path, ...]) -> str | None:
    """Why ``target`` may not be reached by a file confined to ``roots`` (None: it may)."""
    real = target.resolve()
    if real.suffix not in (".yaml", ".yml"):
        return "only .yaml/.yml files can be reached"
    for root in roots:
        if _inside(real, root):
            if any(part.startswith(".") for part in real.relative_to(root).parts):
                return "it is in a hidden file or folder"
            return None
    return OUTSIDE


OUTSIDE = "it is outside this file's folder, the current folder and the ruleset sources"


def _refusal(what: str, why: str) -> str:
    return (f"{what}: {why} (allow a folder with `mj --allow-path DIR` or {ALLOW_PATH_ENV}; "
            "see docs/limits.md)")


class _Load:
    """The state of one load: each file's merged result (memoised) and what is left of the budgets."""

    def __init__(self, roots: tuple[Path, ...] | None = None, *, same_answer: bool = False) -> None:
        self.done: dict[Path, Any] = {}
        self.nodes_left = MAX_LOAD_NODES
        self.roots = roots  # `extends` may only reach files under these folders (None: the first file's)
        self.same_answer = same_answer  # one message for every unusable name, found or not (the playground)
        self.stopped = False  # a limit was hit: no more files are read


def _confined(ref: str, base_dir: Path, roots: tuple[Path, ...]) -> Path | None:
    """``ref`` resolved, if it names a file under one of ``roots`` (no absolute paths, no ``..``)."""
    if "\x00" in ref or Path(ref).is_absolute() or ".." in Path(ref.replace("\\", "/")).parts:
        return None
    try:
        target = resolve_ruleset_ref(ref, base_dir).resolve()
    except (FileNotFoundError, OSError, ValueError):
        return None
    if not any(target.is_relative_to(r) for r in roots):
        return None
    return target


def load_chain(path: Path, problems: list[Problem], stack: tuple[Path, ...], load: _Load | None = None,
               *, reached_by: tuple[Location | None, tuple[Any, ...], str] | None = None) -> Any:
    """Load ``path`` with everything it extends merged in (base first), each file once per load.

    ``extends`` reaches only files under ``load.roots`` (by default :func:`allowed_roots` of
    the first file). ``reached_by``: the ``extends`` entry that named ``path`` (its location,
    YAML path and text), for the message when ``path`` is no ruleset.
    """
    load = load or _Load()
    if load.roots is None:
        load.roots = allowed_roots(path)
    roots = load.roots
    real = path.resolve()
    if real in load.done:
        return load.done[real]
    load.done[real] = None  # (until it is merged: a file is read once even if it fails)
    stats: dict[str, int] = {}
    try:
        data = load_yaml_file(path, max_nodes=min(MAX_NODES, load.nodes_left), stats=stats)
    except RulesetError as e:
        problems.extend(e.problems)
        if any("too many values" in p.message for p in e.problems):
            load.stopped = True
        return None
    load.nodes_left -= stats.get("nodes", 0)
    if reached_by is not None and not (isinstance(data, SourceMap) and ("id" in data or "fragment" in data)):
        # A file reached through `extends` that is no ruleset: say so, and nothing of what it holds.
        problems.append(Problem(reached_by[0], reached_by[1], f"cannot extend {reached_by[2]!r}: that file "
                                "is not a ruleset or a fragment (it has no `id:` or `fragment:`)"))
        return None
    if not isinstance(data, SourceMap):  # (what the loader makes of a mapping)
        problems.append(Problem(Location(str(path), 1, 1), (), "a ruleset file must be a YAML mapping"))
        return None
    ext = data.get("extends")
    if isinstance(ext, list) and len(ext) > MAX_EXTENDS_ENTRIES:
        # (refused before the schema walks the list: 90,000 entries would cost it seconds)
        problems.append(Problem(location_of(data, ("extends",)), ("extends",),
                                f"`extends` lists {len(ext)} entries (at most {MAX_EXTENDS_ENTRIES}; "
                                "see docs/limits.md)"))
        ext = None
        data.pop("extends")
    problems.extend(_schema_problems(without_nulls(data), data))
    refs = [ext] if isinstance(ext, str) else ext if isinstance(ext, list) else []
    merged: Any = SourceMap()
    seen: set[Any] = set()  # a name, or a file, given twice in one `extends` is merged once
    for i, ref in enumerate(refs):
        if not isinstance(ref, str) or load.stopped or ref in seen:
            continue
        seen.add(ref)
        where = ("extends", i) if isinstance(ext, list) else ("extends",)
        loc = location_of(data, where)
        if load.same_answer:
            confined = _confined(ref, path.parent, roots)
            if confined is None:
                problems.append(Problem(loc, where, f"cannot extend {ref!r} here: name a built-in "
                                        "ruleset by its id, or a fragment (fragments/NAME.yaml)"))
                continue
            target = confined
        else:
            if Path(ref).is_absolute() or ".." in Path(ref).parts:  # (refused before the file is looked for)
                lexical = Path(os.path.normpath(path.parent.absolute() / ref))
                if not any(_inside(lexical, r) for r in roots):
                    problems.append(Problem(loc, where, _refusal(f"cannot extend {ref!r}", OUTSIDE)))
                    continue
            try:
                target = resolve_ruleset_ref(ref, path.parent)
            except (FileNotFoundError, ValueError, OSError):
                problems.append(Problem(loc, where, f"cannot find {ref!r} to extend (a ruleset id, a path "
                                        f"relative to {path.parent}, or builtin:PATH for a shipped file)"))
                continue
            why = outside_roots(target, roots)
            if why is not None:
                problems.append(Problem(loc, where, _refusal(f"cannot extend {ref!r}", why)))
                continue
        if target.resolve() in seen:
            continue
        seen.add(target.resolve())
        if target.resolve() in stack or target.resolve() == real:
            chain = " → ".join(p.name for p in (*stack, real, target.resolve()))
            problems.append(Problem(loc, where, f"`extends` loops: {chain}"))
            continue
        if len(stack) + 1 >= MAX_EXTENDS_DEPTH:
            load.stopped = True
            problems.append(Problem(loc, where, f"`extends` chains more than {MAX_EXTENDS_DEPTH} files "
                                    "deep (see docs/limits.md)"))
            continue
        if target.resolve() not in load.done and len(load.done) >= MAX_FILES:
            load.stopped = True
            problems.append(Problem(loc, where, f"more than {MAX_FILES} files in one `extends` graph "
                                    "(see docs/limits.md)"))
            continue
        base = load_chain(target, problems, (*stack, real), load, reached_by=(loc, where, ref))
        if isinstance(base, dict):
            merged = merge_data(merged, base)
    own = SourceMap()
    own.location = getattr(data, "location", None)
    for k, v in data.items():
        if k == "extends":
            continue
        own[k] = v
        own.locations[k] = data.locations.get(k)
        own.key_locations[k] = data.key_locations.get(k)
    # A base's id (or fragment name) never leaks into the file that extends it.
    for k in ("id", "fragment"):
        if k in merged and k not in own:
            del merged[k]
    result = merge_data(merged, own)
    load.done[real] = result
    return result


# --------------------------------------------------------------------------
# building typed objects (with meaning checks)


class _Builder:
    def __init__(self, data: SourceMap, problems: list[Problem], broken: set[Any] | None = None) -> None:
        self.data = data
        self.problems = problems
        self.broken = broken or set()

    @property
    def hand_size(self) -> int:
        """``hand.size`` as declared (13 when absent or invalid: its own error is reported once)."""
        h = self.data.get("hand") if isinstance(self.data, dict) else None
        size = h.get("size") if isinstance(h, dict) else None
        if isinstance(size, int) and not isinstance(size, bool) and size in HAND_SIZES:
            return size
        return HAND_TILES - 1

    def hand_checks(self) -> None:
        """``hand.size`` is one more than a multiple of 3 (sets of three and a pair win)."""
        h = self.data.get("hand")
        size = h.get("size") if isinstance(h, dict) and "hand" not in self.broken else None
        if isinstance(size, int) and not isinstance(size, bool) and size not in HAND_SIZES:
            self.problem(("hand", "size"), f"a hand of {size} tiles can't win with sets and a pair: "
                         f"the size is one of {', '.join(map(str, HAND_SIZES))} (3 per set + 1)")

    def problem(self, path: tuple[Any, ...], message: str, *, key: bool = False) -> None:
        self.problems.append(Problem(location_of(self.data, path, key=key),
                                     file_path(self.data, path), message))

    def tiles(self, text: Any, path: tuple[Any, ...]) -> list[int]:
        if not isinstance(text, str):
            return []
        try:
            return parse_tiles(text)
        except TileParseError as e:
            self.problem(path, f"bad tile string: {e.reason} at column {e.position + 1} of {text!r}")
            return []

    def tile(self, text: Any, path: tuple[Any, ...]) -> int | None:
        if not isinstance(text, str):
            return None
        try:
            return parse_tile(text)
        except TileParseError as e:
            self.problem(path, f"bad tile: {e.reason} in {text!r}")
            return None

    # -- sections --------------------------------------------------------

    def tileset(self) -> TileSet | None:
        t = self.data.get("tiles")
        if not isinstance(t, dict):
            return None
        suits = [s for s in t.get("suits", []) if isinstance(s, str)]
        kinds = [SUIT_LETTERS.index(s) * 9 + r for s in suits for r in range(9)]
        honors = self.tiles(t.get("honors", ""), ("tiles", "honors"))
        for h in honors:
            if not is_honor(h):
                self.problem(("tiles", "honors"), f"{tile_name(h)} is not an honor tile")
        kinds += sorted({h for h in honors if is_honor(h)})
        if not kinds:
            self.problem(("tiles",), "the tile set is empty: give `suits` and/or `honors`")
        return TileSet(name=str(t.get("name", "tiles")), kinds=tuple(sorted(set(kinds))),
                       copies=int(t.get("copies", 4)), successors={}, flowers=int(t.get("flowers", 0)))

    def wildcard(self, tileset: TileSet | None) -> WildcardRule | None:
        w = self.data.get("wildcard")
        if not isinstance(w, dict) or tileset is None:
            return None
        fixed: list[int] = []
        has_fixed = w.get("fixed") is not None  # `fixed: null` removes inherited ones
        if has_fixed:
            fixed = self.tiles(w.get("fixed"), ("wildcard", "fixed"))
            for t in fixed:
                if t not in tileset:
                    self.problem(("wildcard", "fixed"), f"fixed wildcard {tile_name(t)} is not in the "
                                 f"{tileset.name} tile set")
            if len(set(fixed)) != len(fixed):
                self.problem(("wildcard", "fixed"), "each fixed wildcard tile should be named once")
            if isinstance(w.get("fixed"), str) and not w["fixed"].strip():
                self.problem(("wildcard", "fixed"), "name at least one tile (e.g. 中)")
            fixed = list(dict.fromkeys(fixed))
        # A fixed wildcard alone flips nothing; an `indicator` (or no `fixed`) flips one.
        flips = "indicator" in w or not has_fixed
        names = w.get("names", "successor")
        if not flips:
            for key in ("names", "successors"):
                if key in w:
                    self.problem(("wildcard", key), f"`{key}` is about the flipped indicator, and this "
                                 "ruleset flips none (add `indicator` to flip one besides `fixed`)", key=True)
        may = w.get("may") or {}
        rule_may = {"may_discard": bool(may.get("discard", True)), "may_claim": bool(may.get("claim", False)),
                    "may_meld": bool(may.get("meld", False))}
        if rule_may["may_claim"] and not rule_may["may_discard"]:
            self.problem(("wildcard", "may", "claim"), "a wildcard that may not be discarded can't be "
                         "claimed from a discard")
        succ: dict[int, int] = {}
        s = w.get("successors", {}) or {}
        if not flips or names == "itself":
            return WildcardRule(successors={}, stand_ins=self.stand_ins(w, tileset),
                                indicator=IndicatorRule.from_yaml(w.get("indicator")), fixed=tuple(fixed),
                                flips=flips, names=names, **rule_may)
        if s.get("suits", "cycle") == "cycle":
            for t in tileset.kinds:
                if not is_honor(t):
                    succ[t] = t - t % 9 + (t % 9 + 1) % 9
        # `honors` rings, then `cycles` (declared orders of any tiles; they override the suit cycle).
        for key in ("honors", "cycles"):
            for i, cyc in enumerate(s.get(key, []) or []):
                where = ("wildcard", "successors", key, i)
                ring = self.tiles(cyc, where)
                for j, t in enumerate(ring):
                    if t not in tileset:
                        self.problem(where, f"{tile_name(t)} is not in the tile set")
                    if t in ring[:j]:
                        self.problem(where, f"{tile_name(t)} appears twice")
                    succ[t] = ring[(j + 1) % len(ring)]
        for t in tileset.kinds:
            if t not in succ:
                self.problem(("wildcard", "successors"),
                             f"{tile_name(t)} has no successor: every tile must be able to be an indicator")
                break
        return WildcardRule(successors=succ, stand_ins=self.stand_ins(w, tileset),
                            indicator=IndicatorRule.from_yaml(w.get("indicator")), fixed=tuple(fixed),
                            flips=flips, names=names, **rule_may)

    def stand_ins(self, w: dict[str, Any], tileset: TileSet) -> tuple[StandIn, ...]:
        stand_ins = []
        for i, si in enumerate(w.get("stand_ins", []) or []):
            if not isinstance(si, dict):
                continue
            t = self.tile(si.get("tile"), ("wildcard", "stand_ins", i, "tile"))
            if t is None:
                continue
            if t not in tileset:
                self.problem(("wildcard", "stand_ins", i, "tile"),
                             f"stand-in {tile_name(t)} is not in the {tileset.name} tile set")
            stand_ins.append(StandIn(tile=t, when=si.get("when", "always")))
        return tuple(stand_ins)

    def shape(self, d: Any, path: tuple[Any, ...], free_wildcards: int | None = None) -> Shape | None:
        if not isinstance(d, dict):
            return None
        kinds = [k for k in ("pairs", "knitted", "orphans", "free", "knitted_straight") if k in d]
        if ("melds" in d or "pair" in d) and "knitted_straight" not in d:
            kinds.insert(0, "standard")
        if len(kinds) != 1:
            self.problem(path, "a shape is exactly one of: melds (+ pair), pairs, knitted, orphans, free, "
                         "knitted_straight (+ melds, pair)"
                         + (f"; found {', '.join(kinds)}" if kinds else ""))
            return None
        kind = kinds[0]
        # A winning hand has 14 tiles (a kong's 4th tile aside); a wait's rest, the tiles
        # besides the free wildcards and the winning tile. A shape that can't hold them
        # could never win (and the design tools would have no hand to show).
        whole = self.hand_size + 1  # `hand.size` + the winning tile
        size = whole - 1 - free_wildcards if free_wildcards is not None else whole
        of = f"the {size} tiles besides the free wildcards and the winning tile" \
            if free_wildcards is not None else f"a {whole}-tile hand"
        if kind in ("knitted", "knitted_straight") and whole != HAND_TILES:
            # Knitted shapes are 14 single tiles (or a 9-tile straight + sets): they exist only
            # for the standard hand size. Another size declares its own shapes.
            self.problem(path, f"a {kind.replace('_', ' ')} shape reads a 14-tile hand: it can't be "
                         f"used with `hand: {{size: {whole - 1}}}` (a {whole}-tile hand)")
            return None
        if kind == "knitted_straight":
            melds, pair = int(d.get("melds", 0)), int(d.get("pair", 0))
            if melds > 1:
                self.problem((*path, "melds"), "a knitted straight fills three of the four sets: "
                             "at most 1 more meld")
            elif 9 + 3 * melds + 2 * pair != size:
                self.problem(path, f"a knitted straight (9 tiles), {melds} meld(s) and {pair} pair(s) hold "
                             f"{9 + 3 * melds + 2 * pair} tiles, not {of}")
                return None
            return Shape("knitted_straight", melds=melds, pair=pair)
        if kind == "standard":
            melds, pair = int(d.get("melds", 0)), int(d.get("pair", 0))
            if 3 * melds + 2 * pair != size:
                self.problem(path, f"{melds} melds and {pair} pair(s) hold {3 * melds + 2 * pair} tiles, "
                             f"not {of}")
                return None
            return Shape("standard", melds=melds, pair=pair)
        if kind == "pairs":
            if 2 * int(d["pairs"]) != size:
                self.problem(path, f"{d['pairs']} pairs hold {2 * int(d['pairs'])} tiles, not {of}")
                return None
            return Shape("pairs", pairs=int(d["pairs"]))
        if kind == "knitted":
            k = d["knitted"] or {}
            return Shape("knitted", min_gap=int(k.get("min_gap", 3)),
                         distinct_honors=bool(k.get("distinct_honors", True)),
                         tracks=bool(k.get("tracks", False)))
        if kind == "orphans":
            tiles = self.tiles(d["orphans"], (*path, "orphans"))
            if len(set(tiles)) != len(tiles):
                self.problem((*path, "orphans"), "each orphan tile should be listed once")
            blank = not tiles and not str(d["orphans"] or "").strip()
            if blank or len(set(tiles)) >= whole:
                self.problem((*path, "orphans"), f"list 1 to {whole - 1} orphan tiles "
                             f"(the hand holds each once, and one of them twice)")
                return None
            return Shape("orphans", orphans=tuple(sorted(set(tiles))))
        return Shape("free")

    def shapes(self) -> dict[str, Shape]:
        out = {}
        for name, d in (self.data.get("shapes") or {}).items():
            s = self.shape(d, ("shapes", name))
            if s is not None:
                out[name] = Shape(**{**s.__dict__, "name": name})
        return out

    def count(self, v: Any) -> Count:
        if isinstance(v, int):
            return Count(v, v)
        return Count(v.get("min"), v.get("max"))

    def value_test(self, v: Any, path: tuple[Any, ...]) -> Test:
        """A scalar (equal to it) or ``{min, max, in, not}`` (:class:`Test`)."""
        if not isinstance(v, dict):
            return Test(in_=(v,))
        lo, hi = v.get("min"), v.get("max")
        if isinstance(lo, int) and isinstance(hi, int) and lo > hi:
            self.problem((*path, "max"), f"at most {hi} but at least {lo}: no value passes")
        within = v.get("in")
        return Test(min=lo if isinstance(lo, int) else None, max=hi if isinstance(hi, int) else None,
                    in_=tuple(within) if isinstance(within, list) else None,
                    not_=self.value_test(v["not"], (*path, "not")) if "not" in v else None)

    def counts_of(self, req: Any, path: tuple[Any, ...]) -> tuple[tuple[str, Count], ...]:
        """The measures of ``require`` bounded (an exact number, ``min`` / ``max``); their
        ``in`` / ``not`` tests are part of :meth:`condition_of`."""
        out = []
        for k, v in (req.items() if isinstance(req, dict) else ()):
            if k in NOT_COUNTS or not isinstance(v, int | dict):
                continue
            if isinstance(v, int) or "min" in v or "max" in v:
                c = self.count(v)
                if c.min is not None and c.max is not None and c.min > c.max:
                    self.problem((*path, k, "max"), f"at most {c.max} but at least {c.min}: no count passes")
                out.append((k, c))
        return tuple(out)

    def leaf(self, req: Any, when: Any, path: tuple[Any, ...], has_wildcard: bool = True,
             declared_flags: tuple[str, ...] = ()) -> Pattern:
        """A nameless pattern of only requirements and context: a leaf of a condition."""
        req = req if isinstance(req, dict) else {}
        groups, groups_count = self.group_filter(req.get("groups"), (*path, "groups"))
        return Pattern(
            name="", points=0, index=-1, counts=self.counts_of(req, path),
            all_tiles=self.tile_filter(req.get("all_tiles"), (*path, "all_tiles")),
            no_tiles=self.tile_filter(req.get("no_tiles"), (*path, "no_tiles")),
            pair=self.tile_filter(req.get("pair"), (*path, "pair")),
            every_group=self.tile_filter(req.get("every_group"), (*path, "every_group")),
            any_group=self.tile_filter(req.get("any_group"), (*path, "any_group")),
            groups=groups, groups_count=groups_count,
            win_wait=frozenset(req["win_wait"]) if "win_wait" in req else None,
            held_ranks=self.held_ranks(req.get("held_ranks"), (*path, "held_ranks")),
            condition=self.condition_of(req, path),
            when=self.when_of(when, (*path[:-1], "when"), has_wildcard, declared_flags)
            if when is not None else When(),
        )

    def condition_of(self, req: Any, path: tuple[Any, ...]) -> Condition | None:
        """What ``require`` says beyond bounds: ``any`` / ``all`` / ``not`` of requirements,
        and measures tested with ``in`` / ``not`` (:class:`Condition`; None: nothing)."""
        if not isinstance(req, dict):
            return None
        items: list[Any] = []
        for k, v in req.items():
            if k in NOT_COUNTS or not isinstance(v, dict):
                continue
            if "in" in v and isinstance(v["in"], list):
                items.append(Condition("any", tuple(self.leaf({k: x}, None, (*path, k, "in", i))
                                                    for i, x in enumerate(v["in"]))))
            if "not" in v:
                items.append(Condition("not", (self.leaf({k: v["not"]}, None, (*path, k, "not")),)))
        for op in ("any", "all"):
            subs = req.get(op)
            if isinstance(subs, list):
                items.append(Condition(op, tuple(self.leaf(x, None, (*path, op, i))
                                                 for i, x in enumerate(subs))))
        if isinstance(req.get("not"), dict):
            items.append(Condition("not", (self.leaf(req["not"], None, (*path, "not")),)))
        if not items:
            return None
        return items[0] if len(items) == 1 else Condition("all", tuple(items))

    def when_of(self, wh: Any, path: tuple[Any, ...], has_wildcard: bool,
                declared_flags: tuple[str, ...]) -> When:
        """A ``when`` mapping (with its nested ``any`` / ``all`` / ``not``), its flags checked."""
        wh = wh if isinstance(wh, dict) else {}
        state = wh.get("seat_state") or {}
        for key in ("flags", "not_flags"):
            for j, f in enumerate(wh.get(key) or []):
                if f not in FLAGS and f not in declared_flags:
                    hint = difflib.get_close_matches(str(f), [*FLAGS, *declared_flags], n=1)
                    self.problem((*path, key, j), f"unknown flag {f!r}"
                                 + (f" (did you mean {hint[0]!r}?)" if hint else "")
                                 + "; a flag a plugin sets must be declared under `flags`")
        if wh.get("win_tile") == "wildcard" and not has_wildcard:
            self.problem((*path, "win_tile"), "the ruleset has no wildcard")

        def nested(key: str) -> tuple[When, ...]:
            subs = wh.get(key)
            return tuple(self.when_of(x, (*path, key, i), has_wildcard, declared_flags)
                         for i, x in enumerate(subs)) if isinstance(subs, list) else ()
        return When(
            win_by=frozenset(wh["win_by"]) if "win_by" in wh else None,
            win_tile=wh.get("win_tile"),
            seat=wh.get("seat"),
            discarder=wh.get("discarder"),
            flags=frozenset(wh.get("flags", [])),
            not_flags=frozenset(wh.get("not_flags", [])),
            seat_state=tuple(sorted((k, v) for k, v in state.items() if not isinstance(v, dict))),
            state_tests=tuple(sorted((k, self.value_test(v, (*path, "seat_state", k)))
                                     for k, v in state.items() if isinstance(v, dict))),
            context=tuple(sorted((k, self.value_test(v, (*path, "context", k)))
                                 for k, v in (wh.get("context") or {}).items())),
            any_=nested("any"), all_=nested("all"),
            not_=self.when_of(wh["not"], (*path, "not"), has_wildcard, declared_flags)
            if isinstance(wh.get("not"), dict) else None,
        )

    def settled_context_only(self, when: When, path: tuple[Any, ...]) -> None:
        """A plugin's context (``when: {context: …}``) is complete only when the win is settled
        (plugins add their inputs then): a condition judged while scoring can't read it."""
        if when.context_keys():
            self.problem(path, "`context` is what plugins give when the win is settled: a pattern "
                         "or `win.require` is judged before that; test it in `scoring.liable`")

    def win_requirements(self, has_wildcard: bool, declared_flags: tuple[str, ...]
                         ) -> tuple[WinRequirement, ...]:
        """``win.require``: what every win must meet, said once."""
        win = self.data.get("win")
        items = win.get("require") if isinstance(win, dict) else None
        out = []
        for i, d in enumerate(items if isinstance(items, list) else ()):
            if not isinstance(d, dict):
                continue
            path = ("win", "require", i)
            cond = d.get("if")
            if_ = self.leaf(cond.get("require"), cond.get("when"), (*path, "if", "require"), has_wildcard,
                            declared_flags) if isinstance(cond, dict) else None
            check = self.leaf(d.get("require"), d.get("when"), (*path, "require"), has_wildcard,
                              declared_flags) if ("require" in d or "when" in d) else None
            for leaf, where in ((if_, (*path, "if", "when")), (check, (*path, "when"))):
                if leaf is not None:
                    self.settled_context_only(leaf.when, where)
            points = self.value_test(d["points"], (*path, "points")) if "points" in d else None
            if check is None and points is None:
                self.problem(path, "a win requirement needs `require`, `when` or `points`: what must hold")
            why = str(d.get("why") or "")
            out.append(WinRequirement(if_=if_, check=check, points=points, why=why))
        return tuple(out)

    def tile_filter(self, d: Any, path: tuple[Any, ...]) -> TileFilter | None:
        if not isinstance(d, dict):
            return None
        suits = d.get("suits")
        tiles = d.get("tiles")
        any_of = d.get("any_of")
        subs = None
        if isinstance(any_of, list):
            subs = tuple(f for i, x in enumerate(any_of)
                         if (f := self.tile_filter(x, (*path, "any_of", i))) is not None)
        return TileFilter(
            ranks=frozenset(d["ranks"]) if "ranks" in d else None,
            suits=frozenset(SUIT_LETTERS.index(s) for s in suits) if suits else None,
            honors=d.get("honors"),
            tiles=frozenset(self.tiles(tiles, (*path, "tiles"))) if tiles else None,
            any_of=subs,
            wind=d.get("wind"),
        )

    def group_filter(self, d: Any, path: tuple[Any, ...]) -> tuple[GroupFilter | None, Count | None]:
        if not isinstance(d, dict):
            return None, None
        kinds = d.get("kind")
        return GroupFilter(
            kinds=frozenset(k for x in kinds for k in GROUP_KINDS[x]) if kinds else None,
            holding=self.tile_filter(d.get("holding"), (*path, "holding")),
            exposed=d.get("exposed"),
            laid_down=d.get("laid_down"),
        ), self.count(d["count"]) if "count" in d else Count(1, None)

    def set_combo(self, d: Any, path: tuple[Any, ...]) -> SetCombo | None:
        if not isinstance(d, dict):
            return None
        count = int(d.get("count", 2))
        suits = d.get("suits", "any")
        letters: tuple[str, ...] = ()
        if isinstance(suits, list):
            letters = tuple(str(x) for x in suits)
            if len(letters) != count:
                self.problem((*path, "suits"), f"{len(letters)} suit letters for {count} sets")
            suits = "letters"
        starts = d.get("starts")
        if starts is not None and len(starts) != count:
            self.problem((*path, "starts"), f"{len(starts)} starting ranks for {count} sets")
        if starts is not None and list(starts) != sorted(starts):
            self.problem((*path, "starts"), "list the starting ranks from low to high")
        return SetCombo(kind="seq" if d.get("kind") == "sequence" else "triplet", count=count, suits=suits,
                        suit_letters=letters,
                        steps=frozenset(d["steps"]) if "steps" in d else None,
                        starts=tuple(starts) if starts is not None else None)

    def pattern_example(self, d: Any, path: tuple[Any, ...]) -> PatternExample | None:
        """``example: {hand, win_tile, melds, seat, win_by, discarder, flags, flowers, seat_wind,
        prevalent_wind}``: hand strings are read here, so a typo is a located error."""
        from ..core.errors import HandError
        from ..core.hand import make_hand, parse_flowers

        if not isinstance(d, dict):
            return None
        try:
            h = make_hand(str(d.get("hand", "")), [str(m) for m in d.get("melds") or []],
                          str(d.get("win_tile", "")))
        except HandError as e:
            self.problem(path, f"example: {e}")
            return None
        win_by = d.get("win_by", "self_draw")
        seat = int(d.get("seat", 0))
        discarder = d.get("discarder")
        if win_by != "self_draw" and discarder is None:
            discarder = (seat + 3) % 4  # the player before the winner
        winds = {}
        for key in ("seat_wind", "prevalent_wind"):
            if d.get(key) is not None:
                winds[key] = self.tile(str(d[key]), (*path, key))
        try:
            flowers, flower_tiles = parse_flowers(d.get("flowers", 0))
        except HandError as e:
            self.problem((*path, "flowers"), f"example: {e}")
            return None
        return PatternExample(concealed=h.concealed, melds=h.melds, win_tile=h.win_tile or 0, seat=seat,
                              win_by=win_by, discarder=discarder, flags=frozenset(d.get("flags") or ()),
                              flowers=flowers, flower_tiles=flower_tiles, **winds)

    def held_ranks(self, v: Any, path: tuple[Any, ...]) -> tuple[int, ...] | None:
        if not isinstance(v, str):
            return None
        if not v.isdigit() or "0" in v:
            self.problem(path, f"held_ranks {v!r}: digits 1-9, one per tile ('1112345678999')")
            return None
        if len(v) != self.hand_size:
            self.problem(path, f"held_ranks {v!r} lists {len(v)} tiles; a hand holds {self.hand_size} "
                         "(`hand.size`)")
            return None
        per = [0] * 9
        for ch in v:
            per[int(ch) - 1] += 1
        return tuple(per)

    def flags(self) -> tuple[str, ...]:
        out = []
        for i, f in enumerate(self.data.get("flags") or []):
            if f in FLAGS:
                self.problem(("flags", i), f"{f!r} is one of the engine's own flags: no need to declare it")
            out.append(str(f))
        return tuple(out)

    def patterns(self, shapes: dict[str, Shape], scoring: Scoring, has_wildcard: bool,
                 declared_flags: tuple[str, ...] = ()) -> list[Pattern]:
        raw = self.data.get("patterns")
        if not isinstance(raw, list):
            return []
        names: dict[str, int] = {}
        out: list[Pattern] = []
        raw_by_name = {p["name"]: p for p in raw if isinstance(p, dict) and isinstance(p.get("name"), str)}
        for i, p in enumerate(raw):
            if not isinstance(p, dict) or not isinstance(p.get("name"), str):
                continue
            name = p["name"]
            if name in names:
                self.problem(("patterns", i, "name"), f"duplicate pattern name {name!r} "
                             f"(also patterns[{names[name]}])")
            names[name] = i
        for i, p in enumerate(raw):
            if not isinstance(p, dict) or not isinstance(p.get("name"), str):
                continue
            path = ("patterns", i)
            shape_list: list[Shape] = []
            ref = p.get("shape")
            refs = ref if isinstance(ref, list) else [ref] if ref is not None else []
            for j, r in enumerate(refs):
                rpath = (*path, "shape", j) if isinstance(ref, list) else (*path, "shape")
                if isinstance(r, str):
                    if "shapes" in self.broken:
                        continue
                    if r not in shapes:
                        hint = difflib.get_close_matches(r, list(shapes), n=1)
                        self.problem(rpath, f"unknown shape {r!r}"
                                     + (f" (did you mean {hint[0]!r}?)" if hint else "")
                                     + f"; shapes: {', '.join(shapes) or 'none declared'}")
                    else:
                        shape_list.append(shapes[r])
                else:
                    s = self.shape(r, rpath)
                    if s:
                        shape_list.append(s)
            waits: list[Wait] = []
            w = p.get("wait")
            wl = w if isinstance(w, list) else [w] if w is not None else []
            for j, wd in enumerate(wl):
                if not isinstance(wd, dict):
                    continue
                wpath = (*path, "wait", j) if isinstance(w, list) else (*path, "wait")
                free = wd.get("free_wildcards", 1)
                rest = self.shape(wd.get("rest"), (*wpath, "rest"), free if isinstance(free, int) else 1)
                if rest is not None and rest.kind not in ("standard", "pairs"):
                    self.problem((*wpath, "rest"), "a wait's rest must be melds (+ pair) or pairs")
                if rest is not None:
                    waits.append(Wait(int(wd.get("free_wildcards", 1)), rest))
                if not has_wildcard:
                    self.problem(wpath, "a wildcard wait needs a `wildcard` rule in the ruleset")
            req = p.get("require") or {}
            counts = self.counts_of(req, (*path, "require"))
            when = self.when_of(p.get("when"), (*path, "when"), has_wildcard, declared_flags)
            self.settled_context_only(when, (*path, "when"))
            condition = self.condition_of(req, (*path, "require"))
            excludes = []
            partial: list[Exclusion] = []
            for j, ex in enumerate(p.get("excludes") or []):
                if isinstance(ex, dict):
                    if not isinstance(ex.get("pattern"), str):
                        continue
                    partial.append(Exclusion(ex["pattern"], ex.get("times"), bool(ex.get("shared", False))))
                    if ex.get("shared") and raw_by_name.get(ex["pattern"], {}).get("times", {}).get(
                            "per") != "groups":
                        self.problem((*path, "excludes", j, "shared"), f"`shared` takes away the groups "
                                     f"{ex['pattern']!r} counts: it needs `times: {{per: groups}}`")
                    if ex.get("shared") and not (p.get("require") or {}).get("groups"):
                        self.problem((*path, "excludes", j, "shared"), "`shared` names the groups this "
                                     "pattern counts: it needs `require.groups`")
                    ex = ex["pattern"]
                else:
                    excludes.append(ex)
                if ex not in names:
                    hint = difflib.get_close_matches(str(ex), list(names), n=1)
                    self.problem((*path, "excludes", j), f"unknown pattern {ex!r}"
                                 + (f" (did you mean {hint[0]!r}?)" if hint else ""))
                elif ex == p["name"]:
                    self.problem((*path, "excludes", j), "a pattern can't exclude itself")
            if p.get("after_cap") is True and "scoring" not in self.broken:
                if scoring.combine == "highest":
                    self.problem((*path, "after_cap"), "`after_cap` adds or multiplies after the cap: "
                                 "it needs `combine: sum` or `product` (with `highest` one pattern counts)",
                                 key=True)
                elif scoring.cap is None:
                    self.problem((*path, "after_cap"), "`after_cap` is counted after `scoring.cap`, and the "
                                 "ruleset has no cap", key=True)
            tier = p.get("tier")
            if tier is not None and tier not in scoring.tiers and "scoring" not in self.broken:
                self.problem((*path, "tier"), f"unknown tier {tier!r}; scoring.tiers: "
                             f"{', '.join(scoring.tiers) or 'none declared'}")
            times = p.get("times") or {}
            phase = p.get("phase", "win")
            if phase == "opening" and (shape_list or waits):
                self.problem(path, "an opening pattern is judged on the dealt tiles: no shape or wait")
            if phase == "opening":
                for key in READING_ONLY:
                    if key in req:
                        self.problem((*path, "require", key), f"`{key}` reads the groups of a win's "
                                     "reading; an opening pattern has none", key=True)
            groups, groups_count = self.group_filter(req.get("groups"), (*path, "require", "groups"))
            per = times.get("per")
            if per is not None:
                if per == "groups":
                    if groups is None:
                        self.problem((*path, "times", "per"), "`per: groups` counts the pattern's own "
                                     "`require.groups`, and it has none")
                elif per not in COUNT_MEASURES:
                    hint = difflib.get_close_matches(str(per), [*COUNT_MEASURES, "groups"], n=1)
                    self.problem((*path, "times", "per"), f"unknown measure {per!r}"
                                 + (f" (did you mean {hint[0]!r}?)" if hint else "")
                                 + f"; one of: {', '.join(COUNT_MEASURES)}, groups")
            if not isinstance(p.get("points"), int):
                continue  # the schema already reported it
            if scoring.multiplies and p["points"] < 1 and "scoring" not in self.broken:
                self.problem((*path, "points"), f"under `combine: product` points are a factor (×2, ×3 …): "
                             f"at least 1, not {p['points']}")
            elif p["points"] < 0 and not scoring.negative_points:
                self.problem((*path, "points"), f"negative points ({p['points']}) would make the winner "
                             "pay; allow them explicitly with `scoring: {negative_points: true}`")
            out.append(Pattern(
                name=p["name"], points=p["points"], index=i, tier=tier, phase=phase,
                shapes=tuple(shape_list), waits=tuple(waits), counts=counts,
                all_tiles=self.tile_filter(req.get("all_tiles"), (*path, "require", "all_tiles")),
                no_tiles=self.tile_filter(req.get("no_tiles"), (*path, "require", "no_tiles")),
                pair=self.tile_filter(req.get("pair"), (*path, "require", "pair")),
                every_group=self.tile_filter(req.get("every_group"), (*path, "require", "every_group")),
                any_group=self.tile_filter(req.get("any_group"), (*path, "require", "any_group")),
                groups=groups, groups_count=groups_count,
                win_wait=frozenset(req["win_wait"]) if "win_wait" in req else None,
                when=when, times_per=times.get("per"), times_every=int(times.get("every", 1)),
                excludes=frozenset(excludes), description=str(p.get("description", "")),
                en=str(p.get("en", "")), sets=self.set_combo(p.get("sets"), (*path, "sets")),
                partial_excludes=tuple(partial),
                held_ranks=self.held_ranks(req.get("held_ranks"), (*path, "require", "held_ranks")),
                fallback=bool(p.get("fallback", False)),
                example=self.pattern_example(p.get("example"), (*path, "example")),
                counts_to_minimum=bool(p.get("counts_to_minimum", True)),
                condition=condition, after_cap=p.get("after_cap") is True,
            ))
        if not any(p.makes_win for p in out if p.phase == "win") and not self.broken & {"shapes", "patterns"}:
            self.problem(("patterns",), "no pattern has a `shape` or `wait`: nothing can ever win")
        return out

    def scoring(self) -> Scoring:
        s = self.data.get("scoring") or {}
        kongs = {}
        for k in ("kong", "added_kong", "concealed_kong"):
            v = (s.get("kongs") or {}).get(k)
            if isinstance(v, dict) and v:
                payer, amount = next(iter(v.items()))
                kongs[k] = KongPayment(payer, int(amount))
        value_kind = s.get("value", Scoring.value)
        table = tuple(int(x) for x in s.get("table") or ())
        if value_kind == "table" and not table:
            self.problem(("scoring", "value"),
                         "`value: table` needs `scoring.table` (the amount for 0, 1, … points)")
        if table and value_kind != "table":
            self.problem(("scoring", "table"),
                         f"`table` is only read with `value: table` (value is {value_kind})", key=True)
        minimum, cap = s.get("minimum"), s.get("cap")
        if isinstance(minimum, int) and isinstance(cap, int) and cap < minimum:
            self.problem(("scoring", "cap"), f"the cap ({cap}) is below the minimum to win ({minimum}): "
                         "no hand could ever be paid")
        if value_kind == "table" and table:
            if not isinstance(cap, int):
                self.problem(("scoring", "table"), f"a table of {len(table)} amounts needs "
                             f"`scoring.cap` (at most {len(table) - 1}) so every count has an amount")
            elif cap > len(table) - 1:
                self.problem(("scoring", "cap"), f"cap {cap} is past the end of `value.table` "
                             f"({len(table)} amounts, for 0–{len(table) - 1} points)")
        bonuses = dict(s.get("bonuses") or {})
        if "dealer" in bonuses and s.get("dealer_bonus"):
            self.problem(("scoring", "bonuses", "dealer"), "give the dealer's bonus once: "
                         "`bonuses.dealer` or `dealer_bonus`, not both")
        return Scoring(
            minimum=minimum if isinstance(minimum, int) else None,
            cap=cap if isinstance(cap, int) else None,
            value=value_kind, value_base=int(s.get("base", Scoring.value_base)), value_table=table,
            multipliers={k: int(v) for k, v in (s.get("multipliers") or {}).items()},
            bonuses={k: int(v) for k, v in bonuses.items()},
            combine=s.get("combine", Scoring.combine),
            tiers=tuple(t for t in s.get("tiers", []) if isinstance(t, str))
            if isinstance(s.get("tiers"), list) else (),
            payout=dict(s.get("payout", {}) or {}),
            dealer_bonus=int(s.get("dealer_bonus", Scoring.dealer_bonus) or 0),
            kongs=kongs,
            kongs_void_on_draw=bool((s.get("kongs") or {}).get("void_on_draw", Scoring.kongs_void_on_draw)),
            set_combinations=str(s.get("set_combinations", Scoring.set_combinations)),
            won_triplet=str(s.get("won_triplet", Scoring.won_triplet)),
            exclusions=str(s.get("exclusions", Scoring.exclusions)),
            each_pays=int(s.get("each_pays", Scoring.each_pays) or 0),
            ties=str(s.get("ties", Scoring.ties)),
            negative_points=s.get("negative_points") is True,
            **self.payer_money(s),
        )

    def payer_test(self, d: Any, path: tuple[Any, ...]) -> PayerTest | None:
        if not isinstance(d, dict):
            return None
        raw_state = d.get("seat_state")
        state: dict[str, Any] = raw_state if isinstance(raw_state, dict) else {}
        return PayerTest(
            measures=tuple((k, self.value_test(d[k], (*path, k))) for k in SEAT_MEASURES if k in d),
            state=tuple((k, self.value_test(v, (*path, "seat_state", k))) for k, v in state.items()),
            dealer=d.get("dealer"), discarder=d.get("discarder"))

    def payer_money(self, s: Any) -> dict[str, Any]:
        """``per_payer``, ``payment_cap``, ``all_capped`` and ``liable`` of ``scoring``."""
        out: dict[str, Any] = {}
        rules = []
        for i, d in enumerate(s.get("per_payer") or []):
            if not isinstance(d, dict):
                continue
            path = ("scoring", "per_payer", i)
            if "times" not in d and "plus" not in d:
                self.problem(path, "say what the payer's state does: `times` (a factor) or `plus`")
            if "per" in d and "if" in d:
                self.problem((*path, "if"), "give `per` (once per count) or `if` (once), not both", key=True)
            rules.append(PayerRule(times=int(d.get("times", 1)), plus=int(d.get("plus", 0)), per=d.get("per"),
                                   if_=self.payer_test(d.get("if"), (*path, "if"))))
        out["per_payer"] = tuple(rules)
        cap, top = s.get("payment_cap"), s.get("all_capped")
        out["payment_cap"] = cap if isinstance(cap, int) else None
        out["all_capped"] = top if isinstance(top, int) else None
        if isinstance(top, int):
            if not isinstance(cap, int):
                self.problem(("scoring", "all_capped"), "金顶 (`all_capped`) is paid when every payment "
                             "reached `payment_cap`: give `payment_cap`", key=True)
            elif top < cap:
                self.problem(("scoring", "all_capped"), f"`all_capped` ({top}) below `payment_cap` ({cap}): "
                             "every payer capped would pay less than one capped payer")
        liable = []
        for i, d in enumerate(s.get("liable") or []):
            if not isinstance(d, dict) or d.get("pays") not in ("discarder", "feeder"):
                continue
            path = ("scoring", "liable", i)
            if d["pays"] == "feeder" and "fed" not in d:
                self.problem((*path, "pays"), "`pays: feeder` names the seat that fed the winner `fed` "
                             "claimed melds or more: give `fed`")
            if d["pays"] != "feeder" and "fed" in d:
                self.problem((*path, "fed"), "`fed` counts a feeder's claims: it needs `pays: feeder`",
                             key=True)
            liable.append(Liability(pays=d["pays"], fed=d.get("fed"),
                                    when=self.when_of(d.get("when"), (*path, "when"), True, ())))
        out["liable"] = tuple(liable)
        return out

    def flow(self, tileset: TileSet | None) -> Flow:
        """Hand flow, phases before play, declarations, kong and drawn-end settlements."""
        d = self.data
        players: int = d["players"] if isinstance(d.get("players"), int) else 4
        win = WinRule.from_yaml(d.get("win"))
        after_win, after_winners = win.after_win, win.after_winners
        if after_winners is not None:
            if after_win == "end":
                self.problem(("win", "after_winners"), "`after_winners` needs `after_win: leave` or `stay` "
                             "(with `end` the first win ends the hand)")
            elif after_winners > players or (after_win == "leave" and after_winners >= players):
                most = players - 1 if after_win == "leave" else players
                self.problem(("win", "after_winners"), f"{after_winners} winners can't happen with {players} "
                             f"players" + (" when winners leave (one must be left to pay)"
                                           if after_win == "leave" else "") + f"; at most {most}")
        elif after_win == "leave":
            after_winners = players - 1
        exchange = None
        ex = d.get("exchange")
        if isinstance(ex, dict) and isinstance(ex.get("tiles"), int):
            k = ex["tiles"]
            if k > self.hand_size:
                self.problem(("exchange", "tiles"),
                             f"an exchange of {k} tiles: a hand holds only {self.hand_size}")
            direction = ex.get("direction")
            fixed: str | None = None
            dice = 0
            by_dice: dict[int, str] = {}
            if isinstance(direction, str):
                fixed = direction
                used = {direction}
            elif isinstance(direction, dict):
                dice = int(direction.get("dice", 1))
                sums = range(dice, 6 * dice + 1)
                values = direction.get("values") or {}
                if values and ("odd" in direction or "even" in direction):
                    self.problem(("exchange", "direction"), "give `values` or `odd`/`even`, not both")
                for v in sums:
                    dv = values.get(str(v)) or direction.get("odd" if v % 2 else "even")
                    if dv is None:
                        self.problem(("exchange", "direction"), f"no direction for the dice sum {v} "
                                     f"({dice} {'die' if dice == 1 else 'dice'} give {dice}–{6 * dice})")
                        break
                    by_dice[v] = dv
                for key in values:
                    if int(key) not in sums:
                        self.problem(("exchange", "direction", "values", key),
                                     f"{dice} {'die' if dice == 1 else 'dice'} never sum to {key}")
                used = set(by_dice.values())
            else:
                used = set()
            if "across" in used and players != 4:
                self.problem(("exchange", "direction"), f"`across` needs 4 players, not {players}")
            exchange = Exchange(tiles=k, same_suit=ex.get("suit", "same") == "same", direction=fixed,
                                dice=dice, by_dice=by_dice)
        decl = d.get("declarations") or {}
        void = None
        if isinstance(decl.get("void_suit"), dict):
            v = decl["void_suit"]
            void = VoidSuit.from_yaml(v)
            if tileset is not None and not any(not is_honor(t) for t in tileset.kinds):
                self.problem(("declarations", "void_suit"), "a void suit needs suits in the tile set")
        sc = d.get("scoring") or {}
        kongs = sc.get("kongs") or {}
        paid = kongs.get("paid", Flow.kongs_paid)
        refund = kongs.get("refund") or None
        if paid == "at_kong" and "void_on_draw" in kongs:
            self.problem(("scoring", "kongs", "void_on_draw"), "kongs paid `at_kong` are never voided: "
                         "drop `void_on_draw` (or use `refund`)")
        if refund and paid != "at_kong":
            self.problem(("scoring", "kongs", "refund"), "a refund gives back kong money paid at the kong: "
                         "it needs `paid: at_kong`")
        on_draw = []
        for i, item in enumerate(sc.get("on_draw") or []):
            if not isinstance(item, dict):
                continue
            preds = [*(item.get("from") or []), *(item.get("to") or [])]
            if void is None and any("void" in str(p) for p in preds):
                self.problem(("scoring", "on_draw", i), "`holding_void` needs `declarations: {void_suit: …}`")
            on_draw.append(DrawnPayment(amount=item.get("pay", 0), payer=tuple(item.get("from") or ()),
                                        payee=tuple(item.get("to") or ())))
        return Flow(
            after_win=after_win, after_winners=after_winners,
            which_win=DealerRule.from_yaml(d.get("dealer")).which_win,
            kong_flags=frozenset(win.kong_flags),
            exchange=exchange, void_suit=void, ready=isinstance(decl.get("ready"), dict),
            kongs_paid=paid, kong_refund=refund, on_draw=tuple(on_draw),
            prevalent_every=(d.get("winds") or {}).get("prevalent_every"),
            prevalent_counts=(d.get("winds") or {}).get("prevalent_counts", "hands"),
        )

    def never_claimed(self, tileset: TileSet | None) -> None:
        """`claims.never`: tiles of the set, and not the wildcards (`wildcard.may` says theirs)."""
        text = (self.data.get("claims") or {}).get("never")
        if not isinstance(text, str) or "claims" in self.broken:
            return
        path = ("claims", "never")
        tiles = self.tiles(text, path)
        if not tiles:
            self.problem(path, "give at least one tile (or leave `never` out)")
        outside = sorted({t for t in tiles if tileset is not None and t not in tileset})
        if outside:
            self.problem(path, "not in this ruleset's tile set: " + " ".join(tile_code(t) for t in outside))

    def laid_kongs(self, tileset: TileSet | None, wildcard: WildcardRule | None) -> tuple[LaidKong, ...]:
        d = self.data.get("laid_kongs")
        if not isinstance(d, dict) or "laid_kongs" in self.broken:
            return ()
        out: list[LaidKong] = []
        seen: set[int] = set()
        for name, spec in d.items():
            path = ("laid_kongs", name, "tiles")
            tiles = frozenset(self.tiles(spec.get("tiles"), path))
            if not tiles:
                self.problem(path, "give at least one tile")
            if tileset is not None and any(t not in tileset for t in tiles):
                self.problem(path, "not in this ruleset's tile set: "
                             + " ".join(tile_code(t) for t in sorted(tiles) if t not in tileset))
            wild = tiles & frozenset(wildcard.fixed if wildcard is not None else ())
            if wild and not spec.get("choice"):
                self.problem(path, f"{' '.join(tile_code(t) for t in sorted(wild))}: a wildcard laid aside "
                             "on sight would never be wild")
            if tiles & seen:
                self.problem(path, "a kind is laid aside under two names")
            seen |= tiles
            if name in ("wins", "void_suit", "ready"):
                self.problem(("laid_kongs", name), f"{name!r} is a seat state the engine keeps", key=True)
            out.append(LaidKong(str(name), tiles, bool(spec.get("double", False)),
                                bool(spec.get("choice", False))))
        return tuple(out)

    def counters(self) -> tuple[CounterRule, ...]:
        d = self.data.get("counters")
        if not isinstance(d, dict) or "counters" in self.broken:
            return ()
        out = []
        for name, c in d.items():
            path = ("counters", name)
            if name in ("wins", "void_suit", "ready"):
                self.problem(path, f"{name!r} is a seat state the engine keeps: name the counter otherwise",
                             key=True)
            scope = c.get("scope", "table")
            for key in ("add", "reset"):
                seat_only = sorted({"wins", "loses"}.intersection(c.get(key) or ()))
                if scope == "table" and seat_only:
                    self.problem((*path, key), f"{', '.join(seat_only)}: only a seat counter (`scope: seat`) "
                                 "can tell which seat won")
            if not c.get("add"):
                self.problem(path, "the counter never goes up: give `add`")
            out.append(CounterRule(
                name=str(name), scope=scope, add=frozenset(c.get("add") or ()),
                reset=frozenset(c.get("reset") or ()), max=c.get("max"),
                pays_each=int((c.get("pays") or {}).get("each", 0)),
                description=str(c.get("description", ""))))
        return tuple(out)

    def bonus_tiles(self, tileset: TileSet | None, patterns: list[Pattern],
                    has_wildcard: bool) -> BonusTiles | None:
        d = self.data.get("bonus_tiles")
        if not isinstance(d, dict) or "bonus_tiles" in self.broken:
            return None
        path: tuple[Any, ...] = ("bonus_tiles",)
        names = {p.name for p in patterns}
        more: list[BonusMore] = []
        for i, m in enumerate(d.get("more") or ()):
            for name in m.get("patterns") or ():
                if patterns and name not in names:
                    self.problem((*path, "more", i, "patterns"), f"no pattern {name!r} in this ruleset")
            if "no_wildcards" in m and not has_wildcard:
                self.problem((*path, "more", i, "no_wildcards"), "this ruleset has no wildcards")
            more.append(BonusMore(int(m["add"]), m.get("no_wildcards"), frozenset(m.get("patterns") or ())))
        hit = d.get("hit") or {}
        honors: dict[int, int] = {}
        for name, offset in (hit.get("honors") or {}).items():
            t = self.tile(name, (*path, "hit", "honors", name))
            if t is not None and not is_honor(t):
                self.problem((*path, "hit", "honors", name), f"{name!r} is not an honor tile")
            elif t is not None:
                honors[t] = int(offset)
        only: frozenset[int] | None = None
        if "tiles" in hit:
            only = frozenset(self.tiles(hit["tiles"], (*path, "hit", "tiles")))
            if not only:
                self.problem((*path, "hit", "tiles"), "give at least one tile")
            if "honors" in hit:
                self.problem((*path, "hit", "honors"), "`honors` counts seats; with `tiles` only "
                             "the listed tiles hit (the `from` seat): give one of them")
        if tileset is not None:
            outside = sorted(t for t in (only or ()) | honors.keys() if t not in tileset)
            if outside:
                self.problem((*path, "hit"), "not in this ruleset's tile set: "
                             + " ".join(tile_code(t) for t in outside))
        effect = d.get("effect") or {}
        at = frozenset(d.get("at") or ("win",))
        key = str(d.get("key") or "bonus_tiles")
        if key != "bonus_tiles" and key in {e.value for e in EventType}:
            self.problem((*path, "key"), f"{key!r} is the type of another event of the log: "
                         "give another word")
        says = {str(k): str(v) for k, v in (d.get("says") or {}).items()}
        for moment in sorted(says.keys() - at):
            self.problem((*path, "says", moment), f"nothing is turned up at `{moment}` (`at` lists "
                         f"{', '.join(sorted(at))})")
        en_d = d.get("en") or {}
        called = str(d.get("name") or "bonus tiles")
        en = {called: str(en_d["name"])} if en_d.get("name") else {}
        for moment, english in (en_d.get("says") or {}).items():
            if moment not in says:
                self.problem((*path, "en", "says", moment), f"`says` gives no text at `{moment}` "
                             f"to translate (its text there is `name`: translate it with `en.name`)")
            else:
                en[says[moment]] = str(english)
        deals_next = None
        if isinstance(d.get("deals_next"), dict):
            dn = d["deals_next"]
            dn_at = str(dn.get("at", "opening"))
            if dn_at not in at:
                self.problem((*path, "deals_next", "at"), f"nothing is turned up at `{dn_at}` "
                             f"(`at` lists {', '.join(sorted(at))})")
            for name in dn.get("also") or ():
                if patterns and name not in names:
                    self.problem((*path, "deals_next", "also"), f"no pattern {name!r} in this ruleset")
            deals_next = BonusDealer(at=dn_at, winners=int(dn.get("winners", 1)),
                                     also=frozenset(dn.get("also") or ()))
        bonus = BonusTiles(
            count=int(d["count"]), name=called, more=tuple(more),
            source=d.get("source", "live"), at=at,
            anchor=hit.get("from", "dealer"), honors=honors, tiles=only,
            weight=hit.get("weight", "one"), honor_weight=int(hit.get("honor_weight", 10)),
            effect=effect.get("kind", "double"), amount=int(effect.get("amount", 1)),
            counts=effect.get("counts", "both"), kongs=bool(effect.get("kongs", True)),
            key=key, says=says, en=en, deals_next=deals_next)
        if "honor_weight" in hit and bonus.weight != "rank":
            self.problem((*path, "hit", "honor_weight"), "`honor_weight` counts only with `weight: rank`")
        if bonus.most > 16:
            self.problem((*path, "more"), f"at most 16 tiles can be turned up, not {bonus.most}")
        return bonus

    def plugins(self) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        for name, options in (self.data.get("plugins") or {}).items():
            path = ("plugins", name)
            try:
                opt_schema = plugin_registry.options_schema(name)
            except plugin_registry.PluginError as e:
                self.problem(path, str(e), key=True)
                continue
            options = options or {}
            validator = StrictValidator(opt_schema)
            for err in validator.iter_errors(options):
                for prob in _explain(err, options):
                    sub = (*path, *prob.path)
                    self.problems.append(Problem(prob.location or location_of(self.data, sub),
                                                 sub, f"plugin {name}: {prob.message}"))
            out[name] = options
        return out

    def seat_checks(self) -> None:
        """Every seat a ruleset names (:data:`SEAT_FIELDS`) is one of its table's: 0 … players − 1."""
        players = self.data.get("players")
        if not isinstance(players, int) or isinstance(players, bool) or "players" in self.broken:
            return
        for pattern in SEAT_FIELDS:
            if pattern[0] in self.broken:  # (the schema's error about it is reported already)
                continue
            for path, value in _walk(self.data, pattern):
                if isinstance(value, int) and not isinstance(value, bool) and not 0 <= value < players:
                    self.problem(path, f"seat {value}: a table of {players} has seats 0–{players - 1} "
                                       "(counted from the dealer, 0)")

    def table_checks(self, tileset: TileSet | None) -> None:
        # Sections the schema rejected are skipped (their error is reported already).
        players = self.data.get("players")
        if tileset and isinstance(players, int) and self.data.get("wall") and "wall" not in self.broken:
            wall = WallRule.from_yaml(self.data["wall"])
            stacks = wall.stacks_per_seat
            total_stacks = sum(stacks) if isinstance(stacks, tuple) else stacks * players
            if isinstance(stacks, tuple) and len(stacks) != players:
                self.problem(("wall", "stacks_per_seat"), f"give one number per player ({players})")
            if total_stacks * wall.height != tileset.size:
                self.problem(("wall",), f"the wall holds {total_stacks * wall.height} tiles "
                             f"but the tile set has {tileset.size}")
            dealt = self.hand_size * players + 1
            playable = tileset.size - dealt - wall.reserve
            if wall.reserve and playable < 1:
                self.problem(("wall", "reserve"), f"after the deal ({dealt} tiles) and the "
                             f"reserved {wall.reserve}, the {tileset.size}-tile wall leaves nothing to draw")
        if (self.data.get("break") or {}).get("wall") and "break" not in self.broken:
            brk = BreakRule.from_yaml(self.data["break"])
            dice = brk.dice
            values = range(dice, 6 * dice + 1) if brk.wall.die == "sum" else range(1, 7)
            missing = [v for v in values if v not in brk.wall.seats]
            if missing:
                self.problem(("break", "wall", "seats"), f"no wall for die value(s) {missing}")
        if isinstance(self.data.get("deal"), dict) and isinstance(players, int) and "deal" not in self.broken:
            # (`deal: {}` too: its defaults alone deal 12 tiles each)
            deal = DealRule.from_yaml(self.data["deal"])
            per = [deal.rounds * deal.block] * players
            for step in deal.then:
                if step.seat < players:
                    per[step.seat] += step.tiles + len(step.take)
            size = self.hand_size
            if per[0] != size + 1 or any(x != size for x in per[1:]):
                self.problem(("deal",), f"the deal gives {per} tiles; the dealer needs {size + 1} and the "
                             f"others {size}" + ("" if size == 13 else f" (`hand: {{size: {size}}}`)"))


# Where a ruleset names a seat ("*": every item of a list or value of a mapping).
SEAT_FIELDS: tuple[tuple[str, ...], ...] = (
    ("deal", "then", "*", "seat"),
    ("break", "wall", "seats", "*"),
    ("patterns", "*", "example", "seat"),
    ("patterns", "*", "example", "discarder"),
)


def _walk(data: Any, pattern: tuple[str, ...],
          path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """``(path, value)`` of each value of ``data`` at ``pattern``."""
    if not pattern:
        yield path, data
        return
    head, rest = pattern[0], pattern[1:]
    if head == "*":
        items = data.items() if isinstance(data, dict) else enumerate(data) if isinstance(data, list) else ()
        for k, v in items:
            yield from _walk(v, rest, (*path, k))
    elif isinstance(data, dict) and head in data:
        yield from _walk(data[head], rest, (*path, head))


def _guard(fn: Any, *args: Any) -> Any:
    try:
        return fn(*args)
    except (TypeError, ValueError, AttributeError, KeyError, IndexError, ArithmeticError):
        return None  # (a section the schema already rejected: its error is in the list)


def _check_complete(data: SourceMap, problems: list[Problem]) -> None:
    if "fragment" in data:
        return
    for key in REQUIRED_SECTIONS:
        if key not in data:
            problems.append(Problem(data.location, (key,),
                                    "missing: not set in this file nor in any file it extends"))
    if "patterns" in data and isinstance(data["patterns"], list) and not data["patterns"]:
        problems.append(Problem(location_of(data, ("patterns",)), ("patterns",), "no patterns declared"))


def check_file(path: str | Path, *, options: dict[str, Any] | None = None,
               preset: str | None = None, roots: tuple[Path, ...] | None = None,
               warnings: list[Problem] | None = None) -> tuple[Ruleset | None, list[Problem]]:
    """Load and check one file; return the ruleset (if it is a valid ruleset) and all problems.

    ``options`` (name → value, typed or as command-line strings) and ``preset``
    choose the ruleset's declared house-rule options (:mod:`mjframework.rules.options`);
    a bad choice raises :class:`~mjframework.rules.options.OptionError`.

    With ``roots``, ``extends`` may only reach files under those folders, and
    a name it can't use gets the same message whether or not such a file
    exists (the playground checks text from a browser this way).

    ``warnings``, if given, receives what is legal but probably not meant (each message
    starts ``warning:``; ``mj validate`` prints them and still passes the file): a
    pattern's ``replace: true`` that drops an inherited ``shape``, ``wait`` or ``require``.
    """
    p = Path(path)
    problems: list[Problem] = []
    token = _merge_warnings.set([] if warnings is not None else None)
    try:
        data = load_chain(p, problems, (), _Load(roots, same_answer=roots is not None))
        if warnings is not None:
            seen = {(str(w.location), w.message) for w in warnings}
            for w in _merge_warnings.get() or ():
                if (str(w.location), w.message) not in seen:  # (a file merged twice says it once)
                    seen.add((str(w.location), w.message))
                    warnings.append(w)
    finally:
        _merge_warnings.reset(token)
    if not isinstance(data, SourceMap):
        return None, problems
    opts, presets = option_mod.declared(data, problems)
    as_written = data
    chosen = {name: o.default for name, o in opts.items()}
    if not problems and (options or preset):
        chosen = option_mod.choose(opts, presets=presets, preset=preset, sets=options)
        data = option_mod.apply(data, opts, chosen, merge_data,
                                option_mod.explicit_names(presets, preset, options))
    # The merged result must be schema-valid too (an override can break a base).
    if not problems:
        problems.extend(_schema_problems(data, data))
    schema_ok = not problems
    # Sections the schema rejected: checks that read them are skipped, so one
    # mistake doesn't cascade into errors about everything that depends on it.
    broken = {p.path[0] for p in problems if p.path}
    if schema_ok:
        _check_complete(data, problems)
    # Meaning checks run even on schema-invalid data, so one run reports
    # everything; a section too broken to read is skipped (its schema error
    # is already in the list).
    b = _Builder(data, problems, broken)
    tileset = _guard(b.tileset)
    wildcard = _guard(b.wildcard, tileset)
    if tileset and wildcard:
        tileset = TileSet(tileset.name, tileset.kinds, tileset.copies, dict(wildcard.successors))
    shapes = _guard(b.shapes) or {}
    scoring = _guard(b.scoring) or Scoring()
    flags = _guard(b.flags) or ()
    patterns = _guard(b.patterns, shapes, scoring, wildcard is not None, flags) or []
    win_require = _guard(b.win_requirements, wildcard is not None, flags) or ()
    plugins = _guard(b.plugins) or {}
    flow = _guard(b.flow, tileset) or Flow()
    bonus = _guard(b.bonus_tiles, tileset, patterns, wildcard is not None)
    counters = _guard(b.counters) or ()
    _guard(b.never_claimed, tileset)
    laid = _guard(b.laid_kongs, tileset, wildcard) or ()
    if "fragment" not in data:
        _guard(b.hand_checks)
        _guard(b.table_checks, tileset)
        _guard(b.seat_checks)
    if not problems:  # (a ruleset already wrong elsewhere would get a second, confusing message)
        stale: list[Problem] = []
        option_mod.check_defaults(as_written, opts, merge_data, stale)
        # Options declared in this very file must be right; inherited ones are `mj lint`'s business.
        problems.extend(q for q in stale if q.location is None or q.location.file == str(p))
    # This file's problems first, in file order; then those in files it extends.
    own = str(p)
    problems.sort(key=lambda q: (q.location.file != own, q.location.file, q.location.line,
                                 q.location.column) if q.location else (False, "", 0, 0))
    if problems or not schema_ok or tileset is None or "fragment" in data:
        return None, problems
    rs = Ruleset(
        id=data["id"], name=data["name"], description=str(data.get("description", "")),
        source=str(p), players=data["players"], tileset=tileset, wildcard=wildcard,
        scoring=scoring, patterns=tuple(patterns), shapes=shapes,
        claims=Claims.from_yaml(data.get("claims")), win=WinRule.from_yaml(data.get("win")),
        dealer=DealerRule.from_yaml(data.get("dealer")), wall=WallRule.from_yaml(data.get("wall")),
        break_=BreakRule.from_yaml(data.get("break")), deal=DealRule.from_yaml(data.get("deal")),
        plugins=plugins, data=data, flags=flags, flow=flow,
        leave=LeaveRule.from_yaml(data.get("leave")), options=chosen, option_decls=opts, preset_decls=presets,
        bonus_tiles=bonus, counters=counters, laid_kongs=laid,
        win_require=win_require, hand=HandRule.from_yaml(data.get("hand")),
    )
    return rs, problems


def load_ruleset(ref: str | Path, base_dir: Path | None = None, *, options: dict[str, Any] | None = None,
                 preset: str | None = None, named_in: Path | None = None) -> Ruleset:
    """Load a ruleset by id or path; raise :class:`RulesetError` listing every problem.

    ``options`` / ``preset``: the house-rule options to play it with (see :func:`check_file`).
    ``named_in``: the file that names ``ref`` (a conformance file's ``ruleset:``); the
    ruleset must then lie where that file may reach (:func:`allowed_roots`), and a path
    is read relative to ``base_dir`` first.
    """
    ref_s = str(ref)
    try:
        if named_in is not None:
            path = resolve_ruleset_ref(ref_s, base_dir)
        else:
            path = Path(ref_s) if Path(ref_s).is_file() else resolve_ruleset_ref(ref_s, base_dir)
    except (FileNotFoundError, OSError, ValueError):
        known = ", ".join(available_rulesets()) or "none"
        raise RulesetError([Problem(None, (), f"no ruleset {ref_s!r} (not a file; built-in ids: {known})")]
                           ) from None
    if named_in is not None:
        why = outside_roots(path, allowed_roots(named_in))
        if why is not None:
            raise RulesetError([Problem(None, (), _refusal(f"cannot use the ruleset {ref_s!r}", why))])
        try:
            head = load_yaml_file(path)
        except RulesetError:
            head = None  # (its own errors are reported below, located in it)
        else:
            if not (isinstance(head, dict) and "id" in head):  # named, never quoted (as for `extends`)
                raise RulesetError([Problem(None, (), f"cannot use the ruleset {ref_s!r}: that file is "
                                            "not a ruleset (it has no `id:`)")])
    key = tuple(sorted((str(k), str(v)) for k, v in (options or {}).items()))
    roots = tuple(map(str, allowed_roots(path.resolve())))  # (what the file may reach is part of the result)
    return _load_cached(str(path.resolve()), path.stat().st_mtime_ns, key, preset, roots)


@lru_cache(maxsize=32)
def _load_cached(path: str, _mtime: int, options: tuple[tuple[str, str], ...] = (),
                 preset: str | None = None, _roots: tuple[str, ...] = ()) -> Ruleset:
    rs, problems = check_file(path, options=dict(options) or None, preset=preset)
    if problems or rs is None:
        raise RulesetError(problems or [Problem(None, (), f"{path}: a fragment, not a playable ruleset")])
    return rs


__all__ = [
    "ALLOW_PATH_ENV", "BUILTIN", "HONOR_BASE", "RULESETS_GROUP", "RulesetSource", "allow_path",
    "allowed_roots", "available_rulesets", "check_file", "load_ruleset", "outside_roots",
    "refresh_ruleset_sources", "resolve_ruleset_ref", "ruleset_origins", "ruleset_ref",
    "ruleset_sources", "schema", "schema_defaults",
]
