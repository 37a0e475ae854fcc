"""YAML that remembers where each value came from.

Mappings load as :class:`SourceMap` and sequences as :class:`SourceList`
(plain ``dict``/``list`` subclasses, so JSON Schema validation and ordinary
code see ordinary data) carrying the :class:`Location` of each item and, for
mappings, of each key. Values keep their locations through ``extends``
merges, so an error in an inherited value still points at the file it's in.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from .errors import Location, Problem, RulesetError


class SourceMap(dict):
    """A mapping with ``locations[key]`` (value) and ``key_locations[key]``."""

    location: Location | None = None
    index: int | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.locations: dict[Any, Location] = {}
        self.key_locations: dict[Any, Location] = {}


class SourceList(list):
    """A sequence with ``locations[i]`` for each item."""

    location: Location | None = None
    index: int | None = None

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.locations: list[Location | None] = []


def _loc(name: str, mark: yaml.Mark) -> Location:
    return Location(name, mark.line + 1, mark.column + 1)


def _build(node: yaml.Node, loader: yaml.SafeLoader, name: str, path: tuple) -> Any:
    if isinstance(node, yaml.MappingNode):
        loader.flatten_mapping(node)
        out = SourceMap()
        out.location = _loc(name, node.start_mark)
        for key_node, value_node in node.value:
            key = loader.construct_object(key_node, deep=True)
            if not isinstance(key, str | int | float | bool) and key is not None:
                raise RulesetError([Problem(_loc(name, key_node.start_mark), path,
                                            "a mapping key must be a plain value")])
            if key in out:
                raise RulesetError([Problem(_loc(name, key_node.start_mark), (*path, key),
                                            f"duplicate key {key!r}")])
            out[key] = _build(value_node, loader, name, (*path, key))
            out.locations[key] = _loc(name, value_node.start_mark)
            out.key_locations[key] = _loc(name, key_node.start_mark)
        return out
    if isinstance(node, yaml.SequenceNode):
        out_l = SourceList()
        out_l.location = _loc(name, node.start_mark)
        for i, item in enumerate(node.value):
            value = _build(item, loader, name, (*path, i))
            if isinstance(value, SourceMap | SourceList):
                value.index = i  # position in its own file, kept through merges
            out_l.append(value)
            out_l.locations.append(_loc(name, item.start_mark))
        return out_l
    return loader.construct_object(node, deep=True)


def load_yaml_text(text: str, name: str) -> Any:
    """Parse one YAML document; syntax errors become a located :class:`RulesetError`."""
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        return _build(node, loader, name, ())
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        loc = _loc(name, mark) if mark else None
        last_line = text.count("\n") + (0 if text.endswith("\n") else 1)
        if loc and loc.line > max(last_line, 1):  # "end of file" points past the last line
            ctx_mark = e.context_mark or mark
            loc = _loc(name, ctx_mark)
        msg = "; ".join(filter(None, [e.context, e.problem])) or str(e)
        raise RulesetError([Problem(loc, (), f"YAML syntax: {msg}")]) from None
    except yaml.YAMLError as e:  # pragma: no cover - unmarked errors are rare
        raise RulesetError([Problem(None, (), f"YAML syntax: {e}")]) from None
    finally:
        loader.dispose()


def load_yaml_file(path: str | Path) -> Any:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RulesetError([Problem(None, (), f"{p}: no such file")]) from None
    except (OSError, UnicodeDecodeError) as e:
        raise RulesetError([Problem(None, (), f"{p}: cannot read: {e}")]) from None
    return load_yaml_text(text, str(path))


def location_of(data: Any, path: tuple, *, key: bool = False) -> Location | None:
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


def file_path(data: Any, path: tuple) -> tuple:
    """``path`` with list indices as written in the value's own file.

    After ``extends`` merges, ``patterns[5]`` of the merged ruleset may be the
    second pattern of the file that declares it: messages name that one.
    """
    node = data
    out: list[Any] = []
    for part in path:
        if isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            node = node[part]
            idx = node.index if isinstance(node, SourceMap | SourceList) else None
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
