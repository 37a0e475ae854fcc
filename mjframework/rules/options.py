"""House-rule options and presets declared in a ruleset.

A ruleset declares named options; each one has a type (``boolean``,
``integer`` with optional bounds, or ``choice`` among strings), a default (the
value the ruleset *as written* has), a description and what a value changes:
a *patch* on the ruleset, merged as ``extends`` merges (mappings key by key,
``null`` removes a key, ``patterns`` by name)::

    options:
      birds:
        description: birds flipped after a win; 0 plays without birds
        type: integer
        default: 2
        minimum: 0
        maximum: 6
        patch: {plugins: {birds-plugin: {birds: $value}}}   # `$value`: the chosen value
        values:                                       # value → an extra patch
          0: {plugins: {birds-plugin: null}}
        conflicts:
          - {value: 0, with: {bird_dealer: true}, why: "no birds to pick a dealer"}
    presets:
      club: {description: "…", set: {birds: 4}}

The patch of a value is ``patch`` (``$value`` replaced) then ``values[v]``;
it is applied when the value differs from the default or is chosen
explicitly, and the default's own patch must change nothing (checked, so the declaration cannot
drift from the ruleset it describes). A conflict names this option's value
(default: any value but the default) and other options' values that cannot go
with it. Values come, in order, from the defaults, a preset, then explicit
``--set NAME=VALUE``; a command-line string is read as the option's type.

Declarations are read once, at load (:func:`declared`), into typed values:
:class:`Option` (its default, ``values`` keys and :class:`Conflict` values as
the option's type) and :class:`Preset` (its ``set`` values typed); the loaded
ruleset keeps them (``Ruleset.option_decls``, ``Ruleset.preset_decls``) next to
the chosen values (``Ruleset.options``), so no tool reads the YAML again.
"""

from __future__ import annotations

import copy
import difflib
from dataclasses import dataclass, field
from typing import Any

from ..core.errors import MJError, Problem
from .yamlsource import SourceMap, file_path, location_of, to_plain

VALUE = "$value"
TRUE_WORDS = {"true": True, "yes": True, "on": True, "1": True,
              "false": False, "no": False, "off": False, "0": False}


class OptionError(MJError):
    """A bad ``--set`` / ``--preset`` (unknown option, bad value, conflict)."""


@dataclass(frozen=True)
class Conflict:
    """Values that cannot go together: this option's ``value`` (typed; ``None`` with
    ``any_but_default``: any value but the default) and other options' values ``with_``."""

    value: Any
    with_: dict[str, Any]
    why: str = ""
    any_but_default: bool = False

    def applies(self, mine: Any, default: Any) -> bool:
        """Does this option's value ``mine`` take part in the conflict?"""
        takes_part: bool = mine != default if self.any_but_default else mine == self.value
        return takes_part


@dataclass(frozen=True)
class Preset:
    """A named set of option values (``presets:``), typed as their options."""

    name: str
    set: dict[str, Any]
    description: str = ""


@dataclass
class Option:
    name: str
    type: str  # boolean | integer | choice
    default: Any  # typed (bool, int or str)
    description: str = ""
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None
    patch: Any = None
    values: dict[Any, Any] = field(default_factory=dict)  # typed value → its extra patch
    conflicts: tuple[Conflict, ...] = ()

    def kind(self) -> str:
        """The type as a player reads it: ``integer 0–6``, ``one of a, b``, ``yes/no``."""
        if self.type == "boolean":
            return "yes/no"
        if self.type == "choice":
            return "one of " + ", ".join(self.choices)
        lo = "" if self.minimum is None else str(self.minimum)
        hi = "" if self.maximum is None else str(self.maximum)
        return f"integer {lo}–{hi}" if (lo or hi) else "integer"

    def check(self, value: Any) -> Any:
        """``value`` (typed, or a command-line string) as this option's type; ValueError if it isn't."""
        if self.type == "boolean":
            if isinstance(value, bool):
                return value
            if isinstance(value, str) and value.strip().lower() in TRUE_WORDS:
                return TRUE_WORDS[value.strip().lower()]
            raise ValueError(f"must be true or false, not {value!r}")
        if self.type == "integer":
            if isinstance(value, bool):
                raise ValueError(f"must be an integer, not {value!r}")
            if isinstance(value, str):
                try:
                    value = int(value.strip())
                except ValueError:
                    raise ValueError(f"must be an integer, not {value!r}") from None
            if not isinstance(value, int):
                raise ValueError(f"must be an integer, not {value!r}")
            if self.minimum is not None and value < self.minimum:
                raise ValueError(f"must be at least {self.minimum}, not {value}")
            if self.maximum is not None and value > self.maximum:
                raise ValueError(f"must be at most {self.maximum}, not {value}")
            return value
        v = str(value) if isinstance(value, str | int) and not isinstance(value, bool) else None
        if v is None or v not in self.choices:
            raise ValueError(f"{value!r} is not one of: {', '.join(self.choices)}")
        return v

    def patch_for(self, value: Any) -> list[Any]:
        """The patches (in order) that value ``value`` applies."""
        out = []
        if isinstance(self.patch, dict):
            out.append(_substitute(self.patch, value))
        extra = self.values.get(value)
        if isinstance(extra, dict):
            out.append(extra)
        return out


def _substitute(node: Any, value: Any) -> Any:
    """A copy of ``node`` with every ``$value`` string replaced (locations kept)."""
    if isinstance(node, dict):
        out = copy.copy(node)
        for k, v in node.items():
            out[k] = _substitute(v, value)
        return out
    if isinstance(node, list):
        out_l = copy.copy(node)
        for i, v in enumerate(node):
            out_l[i] = _substitute(v, value)
        return out_l
    return value if node == VALUE else node


def declared(data: Any, problems: list[Problem]) -> tuple[dict[str, Option], dict[str, Preset]]:
    """The options and presets of merged ruleset ``data``, typed; declaration mistakes go to
    ``problems`` (a value that isn't its option's type is then kept as written)."""

    def problem(path: tuple[Any, ...], message: str, *, key: bool = False) -> None:
        problems.append(Problem(location_of(data, path, key=key), file_path(data, path), message))

    opts: dict[str, Option] = {}
    raw_conflicts: dict[str, Any] = {}  # option name → its `conflicts`, as written
    raw = data.get("options") if isinstance(data, dict) else None
    for name, d in (raw or {}).items() if isinstance(raw, dict) else ():
        path = ("options", name)
        if not isinstance(d, dict):
            continue  # the schema reports it
        if "type" not in d or "default" not in d:
            problem(path, f"option {name}: needs a `type` and a `default`")
            continue
        if d["type"] not in ("boolean", "integer", "choice"):
            continue  # the schema reports it
        opt = Option(name, d["type"], d.get("default"), str(d.get("description", "")),
                     tuple(str(c) for c in d.get("choices") or ()),
                     d.get("minimum"), d.get("maximum"), d.get("patch"), {})
        if opt.type == "choice" and len(opt.choices) < 2:
            problem(path, "a choice option needs `choices` (two or more)")
            continue
        if opt.type != "choice" and opt.choices:
            problem((*path, "choices"), f"only a choice option has choices (this one is {opt.type})")
        try:
            opt.default = opt.check(opt.default)
        except ValueError as e:
            problem((*path, "default"), f"option {name}: default {e}")
            continue
        values = d.get("values") or {}
        for k, patch in values.items() if isinstance(values, dict) else ():
            try:
                opt.values[opt.check(k)] = patch
            except ValueError as e:
                problem((*path, "values", k), f"option {name}: value {e}", key=True)
        opts[name] = opt
        raw_conflicts[name] = d.get("conflicts") or []
    for name, opt in opts.items():
        conflicts = []
        for i, c in enumerate(raw_conflicts[name] if isinstance(raw_conflicts[name], list) else ()):
            if not isinstance(c, dict):
                continue  # the schema reports it
            cpath = ("options", name, "conflicts", i)
            value: Any = None
            ok = True
            if "value" in c:
                try:
                    value = opt.check(c["value"])
                except ValueError as e:
                    problem((*cpath, "value"), f"option {name}: conflict value {e}")
                    ok = False
            others = c.get("with") or {}
            typed: dict[str, Any] = {}
            for other, v in others.items() if isinstance(others, dict) else ():
                checked = _check_named(opts, other, v, (*cpath, "with", other), problem)
                ok &= checked is not _BAD
                typed[other] = checked
            if ok:
                conflicts.append(Conflict(value, typed, str(c.get("why") or ""), "value" not in c))
        opt.conflicts = tuple(conflicts)
    presets: dict[str, Preset] = {}
    rawp = data.get("presets") if isinstance(data, dict) else None
    for pname, p in (rawp or {}).items() if isinstance(rawp, dict) else ():
        if not isinstance(p, dict) or not isinstance(p.get("set"), dict):
            continue
        chosen: dict[str, Any] = {}
        ok = True
        for oname, v in p["set"].items():
            checked = _check_named(opts, oname, v, ("presets", pname, "set", oname), problem)
            ok &= checked is not _BAD
            chosen[oname] = v if checked is _BAD else checked
        preset = Preset(str(pname), chosen, str(p.get("description", "")))
        if ok:
            try:
                choose(opts, presets={pname: preset}, preset=pname)
            except OptionError as e:
                problem(("presets", pname), str(e))
        presets[pname] = preset
    return opts, presets


_BAD: Any = object()  # a value _check_named rejected


def _check_named(opts: dict[str, Option], name: Any, value: Any, path: tuple[Any, ...], problem: Any) -> Any:
    """``value`` as option ``name``'s type, or ``_BAD`` (the problem reported)."""
    if name not in opts:
        hint = difflib.get_close_matches(str(name), list(opts), n=1)
        problem(path, f"unknown option {name!r}" + (f" (did you mean {hint[0]!r}?)" if hint else "")
                + f"; options: {', '.join(opts) or 'none declared'}", key=True)
        return _BAD
    try:
        return opts[name].check(value)
    except ValueError as e:
        problem(path, f"option {name}: {e}")
        return _BAD


def choose(opts: dict[str, Option], *, presets: dict[str, Preset], preset: str | None = None,
           sets: dict[str, Any] | None = None) -> dict[str, Any]:
    """Every option's value: defaults, then ``preset``, then ``sets`` (typed values, or
    command-line strings read as the option's type); :class:`OptionError` if bad."""
    values = {name: o.default for name, o in opts.items()}
    given: list[tuple[str, dict[str, Any]]] = []
    if preset is not None:
        if preset not in presets:
            hint = difflib.get_close_matches(preset, list(presets), n=1)
            raise OptionError(f"no preset {preset!r}" + (f" (did you mean {hint[0]!r}?)" if hint else "")
                              + f"; presets: {', '.join(presets) or 'none declared'}")
        given.append((f"preset {preset}", dict(presets[preset].set)))
    if sets:
        given.append(("--set", sets))
    for where, items in given:
        for name, raw in items.items():
            if name not in opts:
                hint = difflib.get_close_matches(str(name), list(opts), n=1)
                raise OptionError(f"{where}: unknown option {name!r}"
                                  + (f" (did you mean {hint[0]!r}?)" if hint else "")
                                  + f"; options: {', '.join(opts) or 'none declared'}")
            try:
                values[name] = opts[name].check(raw)
            except ValueError as e:
                raise OptionError(f"{where}: option {name} {e}") from None
    for name, o in opts.items():
        for c in o.conflicts:
            mine = values[name]
            if not c.applies(mine, o.default):
                continue
            if c.with_ and all(values[k] == v for k, v in c.with_.items()):
                both = ", ".join(f"{k}={_show(values[k])}" for k in c.with_)
                raise OptionError(f"option {name}={_show(mine)} conflicts with {both}"
                                  + (f": {c.why}" if c.why else ""))
    return values


def _show(v: Any) -> str:
    return ("true" if v else "false") if isinstance(v, bool) else str(v)


def apply(data: SourceMap, opts: dict[str, Option], values: dict[str, Any], merge: Any,
          explicit: set[str] | frozenset[str] = frozenset()) -> SourceMap:
    """``data`` with the patch of every value that differs from its default or was chosen explicitly."""
    for name, o in opts.items():
        if name not in explicit and values.get(name, o.default) == o.default:
            continue
        for patch in o.patch_for(values[name]):
            data = merge(data, patch)
    return data


def explicit_names(presets: dict[str, Preset], preset: str | None,
                   sets: dict[str, Any] | None) -> set[str]:
    """The options a preset or ``--set`` names (their patches apply even at the default value)."""
    out = set(sets or ())
    if preset in presets:
        out |= set(presets[preset].set)
    return out


def check_defaults(data: SourceMap, opts: dict[str, Option], merge: Any, problems: list[Problem]) -> None:
    """Each default's patch must describe the ruleset as written (change nothing).

    A file extending a ruleset may change what an inherited option governs
    (remove the birds plugin, say); the inherited default then no longer
    holds. That is reported too, with a hint to restate the default: the
    loader keeps only the problems of options declared in the file itself
    and ``mj lint`` reports the others (``stale-option``).
    """
    plain = to_plain(data)
    own = data.location.file if data.location is not None else None
    for name, o in opts.items():
        after = data
        for patch in o.patch_for(o.default):
            after = merge(after, patch)
        if to_plain(after) == plain:
            continue
        path = ("options", name, "default")
        loc = location_of(data, path)
        msg = (f"option {name}: the patch for the default value {_show(o.default)!r} "
               "changes the ruleset; the default must be what the ruleset says")
        if loc is not None and own is not None and loc.file != own:
            msg += (f" (declared at {loc}; this file changes what it governs: restate the default here, "
                    f"`options: {{{name}: {{default: …}}}}`, or accept it in `lint.accept`)")
        problems.append(Problem(loc, file_path(data, path), msg))


def describe(values: dict[str, Any], opts: dict[str, Option]) -> str:
    """``birds=4, opening_wins=false`` for the values that differ from the defaults."""
    return ", ".join(f"{k}={_show(v)}" for k, v in values.items() if k in opts and v != opts[k].default)


__all__ = ["Conflict", "Option", "OptionError", "Preset", "apply", "check_defaults", "choose", "declared",
           "describe", "explicit_names"]
