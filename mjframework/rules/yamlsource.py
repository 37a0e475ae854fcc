"""YAML that remembers where each value came from.

Mappings load as :class:`SourceMap` and sequences as :class:`SourceList`
(plain ``dict``/``list`` subclasses, so JSON Schema validation and ordinary
code see ordinary data) carrying the :class:`Location` of each item and, for
mappings, of each key. Values keep their locations through ``extends``
merges, so an error in an inherited value still points at the file it's in.

Loading is bounded (``docs/limits.md``): a file is at most
:data:`MAX_FILE_BYTES`; the node graph at most :data:`MAX_NODES` nodes and
:data:`MAX_DEPTH` levels deep; aliases (and ``<<`` merge keys) are expanded
into the result, so the *expanded* count is capped too (a "billion laughs"
file stops after ``MAX_NODES`` nodes with a located error, in milliseconds).
Expanding (rather than sharing) is deliberate: everything downstream (schema
validation, ``extends`` merges, JSON output) walks the data as a tree, so a
shared alias would be walked once per reference anyway. Explicit tags other
than the core schema's (``!!python/object``, ``!!binary``, ``!custom``) and
integers beyond :data:`MAX_INT` are located errors.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from ..core.errors import Location, Problem, RulesetError

if TYPE_CHECKING:
    from yaml._yaml import Mark as _CMark

MAX_FILE_BYTES = 1 << 20  # 1 MiB: a large ruleset is ~10 kB, a large conformance file ~30 kB
MAX_NODES = 100_000  # per file, counted as expanded (each alias use counts its whole subtree)
MAX_DEPTH = 64  # nesting levels of mappings and lists
MAX_INT = 10**15  # larger integers are errors (points, amounts, counts never need them)
_MAX_INT_DIGITS = 40  # a longer integer literal is refused before Python converts it

# Explicit tags a file may use: YAML's core schema (``!!str 10`` is fine, ``!!python/tuple`` is not).
CORE_TAGS = frozenset(f"tag:yaml.org,2002:{t}" for t in ("str", "int", "float", "bool", "null", "seq", "map"))


class _Limit(yaml.MarkedYAMLError):
    """A bound of the loader was reached (reported like a syntax error, with its place)."""

    def __init__(self, message: str, mark: yaml.Mark | _CMark | None, path: tuple[Any, ...] = ()) -> None:
        # libyaml's Mark has yaml.Mark's line and column; PyYAML's stubs keep the two types apart
        super().__init__(problem=message, problem_mark=mark)  # type: ignore[arg-type]
        self.path = path


class _Limits:
    """Counting, depth and tag checks shared by the pure-Python and the libyaml loaders."""

    max_nodes: int
    nodes: int
    built: int
    depth: int
    construct_object: Callable[..., Any]  # the loader's, from the yaml class this mixes into

    def __init__(self, stream: str, max_nodes: int = MAX_NODES) -> None:
        super().__init__(stream)  # type: ignore[call-arg]
        self.max_nodes = max_nodes
        self.nodes = 0  # read (and `<<`-merged) nodes
        self.built = 0  # values built, aliases expanded
        self.depth = 0

    def count_event(self, event: Any) -> None:
        """Count a node's event and check its tag and depth."""
        if isinstance(event, yaml.AliasEvent | yaml.ScalarEvent | yaml.CollectionStartEvent):
            if not isinstance(event, yaml.AliasEvent):
                self.nodes += 1
                if self.nodes > self.max_nodes:
                    raise _Limit(f"too many values (more than {self.max_nodes}; see docs/limits.md)",
                                 event.start_mark)
                tag = getattr(event, "tag", None)
                if tag not in (None, "!") and tag not in CORE_TAGS:
                    raise _Limit(f"the tag {tag!r} is not allowed (only plain YAML values: "
                                 "strings, numbers, true/false, null, lists, mappings)", event.start_mark)
            if self.depth + 1 > MAX_DEPTH:
                raise _Limit(f"nested more than {MAX_DEPTH} levels deep (see docs/limits.md)",
                             event.start_mark)

    def flatten_mapping(self, node: yaml.MappingNode) -> None:
        super().flatten_mapping(node)  # type: ignore[misc]
        # `<<` merges copy key/value pairs: count them, or doubling merges grow without bound.
        self.nodes += len(node.value)
        if self.nodes > self.max_nodes:
            raise _Limit(f"too many values once `<<` merges are expanded (more than {self.max_nodes})",
                         node.start_mark)

    def construct_yaml_int(self, node: yaml.ScalarNode) -> int:
        digits = str(node.value).replace("_", "")
        if len(digits) > _MAX_INT_DIGITS:
            raise _Limit(f"integer too large (at most {MAX_INT:.0e})", node.start_mark)
        value: int = super().construct_yaml_int(node)  # type: ignore[misc]
        if abs(value) > MAX_INT:
            raise _Limit(f"integer {value} is out of range (at most {MAX_INT:.0e} either way)",
                         node.start_mark)
        return value


class _BoundedLoader(_Limits, yaml.SafeLoader):
    """The pure-Python loader: counts nodes as it composes them."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        self.count_event(self.peek_event())  # type: ignore[no-untyped-call]
        self.depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1


# The stubs bound add_constructor's loader type to PyYAML's own classes; a mixin subclass is one.
_BoundedLoader.add_constructor("tag:yaml.org,2002:int", _BoundedLoader.construct_yaml_int)  # type: ignore[type-var]

if getattr(yaml, "__with_libyaml__", False):

    class _CBoundedLoader(_Limits, yaml.CSafeLoader):  # type: ignore[name-defined,misc,unused-ignore]
        """libyaml's loader (about ten times faster); its events are counted in a first pass,
        since its composer is C code that can't be interrupted half-way."""

        def prescan(self) -> None:
            while True:
                event = self.get_event()
                if event is None:
                    return
                if isinstance(event, yaml.CollectionEndEvent):
                    self.depth -= 1
                    continue
                self.count_event(event)
                if isinstance(event, yaml.CollectionStartEvent):
                    self.depth += 1

    _CBoundedLoader.add_constructor(  # type: ignore[type-var]  # (as above)
        "tag:yaml.org,2002:int", _CBoundedLoader.construct_yaml_int)
else:  # pragma: no cover - PyYAML without libyaml
    _CBoundedLoader = None  # type: ignore[misc,assignment]  # a class only where libyaml is


class SourceMap(dict[Any, Any]):
    """A mapping with ``locations[key]`` (value) and ``key_locations[key]``."""

    location: Location | None = None
    file_index: int | None = None  # its position in the list of its own file (see file_path)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.locations: dict[Any, Location | None] = {}
        self.key_locations: dict[Any, Location | None] = {}


class SourceList(list[Any]):
    """A sequence with ``locations[i]`` for each item."""

    location: Location | None = None
    file_index: int | None = None  # its position in the list of its own file (see file_path)

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.locations: list[Location | None] = []


def _loc(name: str, mark: yaml.Mark) -> Location:
    return Location(name, mark.line + 1, mark.column + 1)


def _build(node: yaml.Node, loader: _Limits, name: str, path: tuple[Any, ...], depth: int = 0) -> Any:
    # Aliases make the node graph a DAG (or a cycle, `&a [*a]`): count what is built, not what was read.
    loader.built += 1
    if loader.built > loader.max_nodes:
        raise _Limit(f"too many values once aliases are expanded (more than {loader.max_nodes}; "
                     "see docs/limits.md)", node.start_mark, path)
    if depth > MAX_DEPTH:
        raise _Limit(f"nested more than {MAX_DEPTH} levels deep once aliases are expanded "
                     "(an alias that contains itself?)", node.start_mark, path)
    if isinstance(node, yaml.MappingNode):
        loader.flatten_mapping(node)
        out = SourceMap()
        out.location = _loc(name, node.start_mark)
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                raise RulesetError([Problem(_loc(name, key_node.start_mark), path,
                                            "a mapping key must be a plain value")])
            key = loader.construct_object(key_node, deep=True)
            if not isinstance(key, str | int | float | bool) and key is not None:
                raise RulesetError([Problem(_loc(name, key_node.start_mark), path,
                                            "a mapping key must be a plain value")])
            if key in out:
                raise RulesetError([Problem(_loc(name, key_node.start_mark), (*path, key),
                                            f"duplicate key {key!r}")])
            out[key] = _build(value_node, loader, name, (*path, key), depth + 1)
            out.locations[key] = _loc(name, value_node.start_mark)
            out.key_locations[key] = _loc(name, key_node.start_mark)
        return out
    if isinstance(node, yaml.SequenceNode):
        out_l = SourceList()
        out_l.location = _loc(name, node.start_mark)
        for i, item in enumerate(node.value):
            value = _build(item, loader, name, (*path, i), depth + 1)
            if isinstance(value, SourceMap | SourceList):
                value.file_index = i  # position in its own file, kept through merges
            out_l.append(value)
            out_l.locations.append(_loc(name, item.start_mark))
        return out_l
    return loader.construct_object(node, deep=True)


def load_yaml_text(text: str, name: str, *, max_nodes: int = MAX_NODES, stats: dict[str, int] | None = None,
                   fast: bool = True) -> Any:
    """Parse one YAML document; syntax errors and exceeded limits become a located :class:`RulesetError`.

    ``stats["nodes"]`` is set to the number of values built (for a budget across files).
    libyaml reads the file when it is there (``fast``); a syntax error is then reported
    as PyYAML's own parser words it (the file is read again, within the same bounds).
    """
    size = len(text.encode("utf-8", "surrogatepass")) if len(text) * 4 > MAX_FILE_BYTES else len(text)
    if size > MAX_FILE_BYTES:
        raise RulesetError([Problem(Location(name, 1, 1), (), f"file too large ({size} bytes; "
                                    f"at most {MAX_FILE_BYTES}, see docs/limits.md)")])
    fast = fast and _CBoundedLoader is not None
    loader: Any = None
    try:
        if fast:
            scan = _CBoundedLoader(text, max_nodes)
            try:
                scan.prescan()
            finally:
                scan.dispose()
            loader = _CBoundedLoader(text, max_nodes)
            loader.nodes = scan.nodes  # (for the `<<` count)
        else:
            loader = _BoundedLoader(text, max_nodes)  # reads the first characters: may raise ReaderError
        node = loader.get_single_node()
        if node is None:
            return None
        out = _build(node, loader, name, ())
        if stats is not None:
            stats["nodes"] = loader.built
        return out
    except yaml.YAMLError as e:
        if fast and not isinstance(e, _Limit):
            error = e
        else:
            _raise_located(e, text, name)
    except RecursionError:  # pragma: no cover - the depth limits come first
        raise RulesetError([Problem(Location(name, 1, 1), (), "nested too deeply")]) from None
    finally:
        if loader is not None:
            loader.dispose()
    del error  # a syntax error found by libyaml: worded by PyYAML's parser
    return load_yaml_text(text, name, max_nodes=max_nodes, stats=stats, fast=False)


def _raise_located(e: yaml.YAMLError, text: str, name: str) -> None:
    """Raise ``e`` (a YAML error or an exceeded limit) as a located :class:`RulesetError`."""
    if isinstance(e, _Limit):
        mark = e.problem_mark
        path = e.path if len(e.path) <= 12 else (*e.path[:12], "…")
        raise RulesetError([Problem(_loc(name, mark) if mark else Location(name, 1, 1), path,
                                    str(e.problem))]) from None
    if isinstance(e, yaml.reader.ReaderError):
        line = text.count("\n", 0, e.position) + 1
        col = e.position - (text.rfind("\n", 0, e.position) + 1) + 1
        code = ord(e.character) if isinstance(e.character, str) else int(e.character)
        raise RulesetError([Problem(Location(name, line, col), (), f"YAML syntax: the character "
                                    f"U+{code:04X} is not allowed in a YAML file")]) from None
    if isinstance(e, yaml.MarkedYAMLError):
        mark = e.problem_mark or e.context_mark
        loc = _loc(name, mark) if mark else None
        last_line = text.count("\n") + (0 if text.endswith("\n") else 1)
        if mark and loc and loc.line > max(last_line, 1):  # "end of file" points past the last line
            ctx_mark = e.context_mark or mark
            loc = _loc(name, ctx_mark)
        msg = "; ".join(filter(None, [e.context, e.problem])) or str(e)
        raise RulesetError([Problem(loc or Location(name, 1, 1), (), f"YAML syntax: {msg}")]) from None
    raise RulesetError([Problem(Location(name, 1, 1), (), f"YAML syntax: {e}")]) from None  # pragma: no cover


def load_yaml_file(path: str | Path, *, max_nodes: int = MAX_NODES, stats: dict[str, int] | None = None
                   ) -> Any:
    """Read and parse one file: at most :data:`MAX_FILE_BYTES` of UTF-8, from a regular file only
    (``/dev/zero`` or a FIFO would never end)."""
    p = Path(path)
    try:
        if p.exists() and not p.is_file():
            raise RulesetError([Problem(None, (), f"{p}: not a regular file")])
        with p.open("rb") as f:
            data = f.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        raise RulesetError([Problem(None, (), f"{p}: no such file")]) from None
    except OSError as e:
        raise RulesetError([Problem(None, (), f"{p}: cannot read: {e.strerror or e}")]) from None
    if len(data) > MAX_FILE_BYTES:
        raise RulesetError([Problem(Location(str(path), 1, 1), (), f"file too large (more than "
                                    f"{MAX_FILE_BYTES} bytes, see docs/limits.md)")])
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        col = len(data[data.rfind(b"\n", 0, e.start) + 1:e.start].decode("utf-8", "replace")) + 1
        raise RulesetError([Problem(Location(str(path), line, col), (), f"not UTF-8 text: the byte "
                                    f"0x{data[e.start]:02x} (save the file as UTF-8)")]) from None
    return load_yaml_text(text, str(path), max_nodes=max_nodes, stats=stats)


def location_of(data: Any, path: tuple[Any, ...], *, key: bool = False) -> Location | None:
    """The location of the value at ``path`` (or of its key), or the nearest parent's."""
    node = data
    best = getattr(data, "location", None)
    for i, part in enumerate(path):
        last = i == len(path) - 1
        if isinstance(node, SourceMap) and part in node:
            locs = node.key_locations if (key and last) else node.locations
            best = locs.get(part, best)
            node = node[part]
        elif isinstance(node, SourceList) and isinstance(part, int) and 0 <= part < len(node):
            best = node.locations[part] or best
            node = node[part]
        else:
            break
    return best


def file_path(data: Any, path: tuple[Any, ...]) -> tuple[Any, ...]:
    """``path`` with list indices as written in the value's own file.

    After ``extends`` merges, ``patterns[5]`` of the merged ruleset may be the
    second pattern of the file that declares it: messages name that one.
    """
    node = data
    out: list[Any] = []
    for part in path:
        if isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            node = node[part]
            idx = node.file_index if isinstance(node, SourceMap | SourceList) else None
            out.append(part if idx is None else idx)
        elif isinstance(node, dict) and part in node:
            node = node[part]
            out.append(part)
        else:
            out.append(part)
            node = None
    return tuple(out)


def to_plain(data: Any) -> Any:
    """Strip the location wrappers (for JSON output, hashing, comparisons)."""
    if isinstance(data, dict):
        return {k: to_plain(v) for k, v in data.items()}
    if isinstance(data, list):
        return [to_plain(v) for v in data]
    return data
