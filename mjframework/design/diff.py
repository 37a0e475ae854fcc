"""The semantic difference between two rulesets (``mj diff A B``).

Both rulesets are loaded and validated (``extends`` merged), then compared
structurally, not as text: patterns are matched by name (added, removed,
re-pointed, redefined), and every other section is walked by a small generic
recursive comparer that yields ``path: old → new`` changes. Values left out
are compared as their documented defaults (``scoring.combine`` is
``highest`` whether written or not), and comments, key order and
descriptions of patterns never count.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ..core.errors import format_path
from ..rules.loader import schema_defaults
from ..rules.model import Ruleset

#: Marks a key present on one side only (JSON: ``null``; text: ``(absent)``).
ABSENT: Any = type("_Absent", (), {"__repr__": lambda self: "(absent)"})()

# Section order in the report; anything else in the data comes after, sorted.
SECTIONS = (
    "ruleset", "tiles", "wall", "break", "deal", "wildcard", "claims", "win", "dealer",
    "scoring", "shapes", "plugins",
)
# Top-level keys that are not compared (identity / file plumbing).
_SKIP = {"id", "format", "extends", "fragment", "patterns"}
# Scalars grouped under the "ruleset" section.
_RULESET_KEYS = ("name", "description", "players")
# Pattern keys compared (description is prose, not meaning).
_PATTERN_KEYS = ("points", "phase", "tier", "shape", "wait", "require", "when", "times", "excludes")

# Defaults the loader applies when a key is left out: the schema's `default`s (the typed
# sections' defaults), after these, which the schema doesn't state (see ruleset._Builder).
_DEFAULTS: dict[tuple[str, ...], Any] = {
    ("tiles", "copies"): 4,
    ("scoring", "payout"): {},
    ("scoring", "kongs"): {},
    ("wildcard", "successors", "suits"): "cycle",
    ("wildcard", "may", "discard"): True,
    ("wildcard", "may", "claim"): False,
    ("wildcard", "may", "meld"): False,
    **schema_defaults(),
}
_PATTERN_DEFAULTS = {"phase": "win"}


@dataclass
class Change:
    path: str
    old: Any
    new: Any

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "old": _plain(self.old), "new": _plain(self.new)}


@dataclass
class PatternChange:
    name: str
    changes: list[Change]

    @property
    def repointed(self) -> bool:
        return any(c.path == "points" for c in self.changes)

    @property
    def redefined(self) -> bool:
        return any(c.path != "points" for c in self.changes)


@dataclass
class Section:
    name: str
    changes: list[Change] = field(default_factory=list)


@dataclass
class RulesetDiff:
    a: str
    b: str
    added: list[dict[str, Any]] = field(default_factory=list)
    removed: list[dict[str, Any]] = field(default_factory=list)
    changed: list[PatternChange] = field(default_factory=list)
    order: Change | None = None
    sections: list[Section] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.changed or self.order or self.sections)

    def to_json(self) -> dict[str, Any]:
        patterns: dict[str, Any] = {
            "added": [_plain(p) for p in self.added],
            "removed": [_plain(p) for p in self.removed],
            "changed": [{"name": c.name, "changes": [x.to_json() for x in c.changes]}
                        for c in self.changed],
        }
        if self.order is not None:
            patterns["order"] = self.order.to_json()
        return {
            "a": self.a, "b": self.b, "identical": self.empty,
            "patterns": patterns,
            "sections": [{"name": s.name, "changes": [c.to_json() for c in s.changes]}
                         for s in self.sections],
        }


# --------------------------------------------------------------------------
# the generic comparer


def _plain(v: Any) -> Any:
    """Strip YAML source wrappers (and :data:`ABSENT` → ``None``) for JSON."""
    if v is ABSENT:
        return None
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [_plain(x) for x in v]
    return v


def compare(old: Any, new: Any, path: tuple = ()) -> list[tuple[tuple, Any, Any]]:
    """Every difference between two plain data trees as ``(path, old, new)``.

    Mappings recurse key by key (a missing key is :data:`ABSENT`); lists of the
    same length recurse item by item when they hold mappings, otherwise a
    changed list is reported whole; anything else is compared by value.
    """
    if isinstance(old, dict) and isinstance(new, dict):
        out: list[tuple[tuple, Any, Any]] = []
        keys = list(old) + [k for k in new if k not in old]
        for k in keys:
            out.extend(compare(old.get(k, ABSENT), new.get(k, ABSENT), (*path, k)))
        return out
    if (isinstance(old, list) and isinstance(new, list) and len(old) == len(new)
            and any(isinstance(x, dict) for x in old + new)):
        out = []
        for i, (x, y) in enumerate(zip(old, new, strict=True)):
            out.extend(compare(x, y, (*path, i)))
        return out
    if _same(old, new):
        return []
    return [(path, old, new)]


def _same(a: Any, b: Any) -> bool:
    # `True == 1` in Python; a ruleset's `true` and `1` mean different things.
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return a is b if ABSENT in (a, b) else a == b


# --------------------------------------------------------------------------
# normalising (defaults, nulls)


def _normal(v: Any) -> Any:
    """Plain data with ``null`` mapping values dropped (``null`` removes a key)."""
    if isinstance(v, dict):
        return {k: _normal(x) for k, x in v.items() if x is not None}
    if isinstance(v, list):
        return [_normal(x) for x in v]
    return v


def _with_defaults(data: dict[str, Any]) -> dict[str, Any]:
    out = _normal(data)
    for path, default in _DEFAULTS.items():
        node = out
        for k in path[:-1]:
            node = node.get(k) if isinstance(node, dict) else None
            if not isinstance(node, dict):
                break
        else:
            node.setdefault(path[-1], default)
    wc = out.get("wildcard")
    if isinstance(wc, dict):
        for si in wc.get("stand_ins", []) or []:
            if isinstance(si, dict):
                si.setdefault("when", "always")
    plugins = out.setdefault("plugins", {})
    if isinstance(plugins, dict):
        out["plugins"] = {k: (v if v is not None else {}) for k, v in plugins.items()}
    return out


def _pattern_data(p: dict[str, Any]) -> dict[str, Any]:
    d = {k: p[k] for k in _PATTERN_KEYS if k in p}
    for k, v in _PATTERN_DEFAULTS.items():
        d.setdefault(k, v)
    times = d.get("times")
    if isinstance(times, dict):
        d["times"] = {"every": 1, **times}
    if "excludes" in d and isinstance(d["excludes"], list):
        d["excludes"] = sorted(d["excludes"], key=str)  # a set: order doesn't matter
    if not d.get("excludes"):
        d.pop("excludes", None)
    for k in ("require", "when"):
        if d.get(k) is None:
            d[k] = {}  # compared leaf by leaf: `require.wildcards: ≥1 → (absent)`
    return d


# --------------------------------------------------------------------------
# diffing two rulesets


def diff_rulesets(a: Ruleset, b: Ruleset) -> RulesetDiff:
    da, db = _with_defaults(a.data), _with_defaults(b.data)
    out = RulesetDiff(a=a.id, b=b.id)

    # -- patterns, by name
    pa = {p["name"]: p for p in da.get("patterns", []) if isinstance(p, dict)}
    pb = {p["name"]: p for p in db.get("patterns", []) if isinstance(p, dict)}
    out.removed = [_pattern_summary(p) for n, p in pa.items() if n not in pb]
    out.added = [_pattern_summary(p) for n, p in pb.items() if n not in pa]
    for name, p in pa.items():
        if name not in pb:
            continue
        changes = [Change(format_path(path), o, n)
                   for path, o, n in compare(_pattern_data(p), _pattern_data(pb[name]))]
        if changes:
            out.changed.append(PatternChange(name, changes))
    common_a = [n for n in pa if n in pb]
    common_b = [n for n in pb if n in pa]
    if common_a != common_b:  # declaration order breaks ties
        out.order = Change("order", common_a, common_b)

    # -- every other section
    keys = [k for k in (*da, *(k for k in db if k not in da)) if k not in _SKIP]
    grouped: dict[str, list[Change]] = {}
    if a.tileset.size != b.tileset.size:  # derived: suits × 9 + honors, times copies
        grouped["tiles"] = [Change("tiles.size", a.tileset.size, b.tileset.size)]
    for k in keys:
        section = "ruleset" if k in _RULESET_KEYS else k
        for path, o, n in compare(da.get(k, ABSENT), db.get(k, ABSENT), (k,)):
            grouped.setdefault(section, []).append(Change(format_path(path), o, n))
    order = {s: i for i, s in enumerate(SECTIONS)}
    for name in sorted(grouped, key=lambda s: (order.get(s, len(order)), s)):
        out.sections.append(Section(name, grouped[name]))
    return out


def _pattern_summary(p: dict[str, Any]) -> dict[str, Any]:
    return {"name": p["name"], **{k: v for k, v in _pattern_data(p).items() if v != {}}}


# --------------------------------------------------------------------------
# text


def fmt(v: Any, *, count: bool = False) -> str:
    """A value as a designer writes it (YAML flow style); counts as ``5–6``."""
    if v is ABSENT:
        return "(absent)"
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if count and isinstance(v, dict) and v and set(v) <= {"min", "max"}:
        lo, hi = v.get("min"), v.get("max")
        if lo == hi:
            return str(lo)
        if hi is None:
            return f"≥{lo}"
        if lo is None:
            return f"≤{hi}"
        return f"{lo}–{hi}"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {fmt(x, count=count)}" for k, x in v.items()) + "}"
    if isinstance(v, list | tuple):
        return "[" + ", ".join(fmt(x, count=count) for x in v) + "]"
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False) if v == "" or v.strip() != v else v
    return str(v)


def _short(text: str, width: int = 100) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _change_line(c: Change, *, count: bool = False) -> str:
    if not count:  # pattern requirements read best as `≥1 → (absent)`
        if c.old is ABSENT and isinstance(c.new, dict | list):
            return f"{c.path}: added {_short(fmt(c.new))}"
        if c.new is ABSENT and isinstance(c.old, dict | list):
            return f"{c.path}: removed (was {_short(fmt(c.old))})"
    return f"{c.path}: {_short(fmt(c.old, count=count))} → {_short(fmt(c.new, count=count))}"


def render_text(d: RulesetDiff) -> str:
    if d.empty:
        return f"{d.a} → {d.b}: no differences"
    lines = [f"{d.a} → {d.b}"]
    if d.added or d.removed or d.changed or d.order:
        lines += ["", "patterns"]
        for p in d.removed:
            lines.append(f"  - {p['name']} ({p.get('points')})  only in {d.a}")
        for p in d.added:
            lines.append(f"  + {p['name']} ({p.get('points')})  only in {d.b}")
        for pc in d.changed:
            kind = " and ".join(w for w, on in (("re-pointed", pc.repointed),
                                                ("redefined", pc.redefined)) if on)
            lines.append(f"  ~ {pc.name} ({kind})")
            for c in pc.changes:
                lines.append("      " + _change_line(c, count=c.path.startswith("require")))
        if d.order:
            lines.append("  order (breaks ties): " + _change_line(d.order).split(": ", 1)[1])
    for s in d.sections:
        lines += ["", s.name]
        lines += ["  " + _change_line(c) for c in s.changes]
    return "\n".join(lines)
