"""The typed ruleset sections and the JSON Schema state the same defaults.

Each table section (``claims``, ``win``, ``dealer``, ``wall``, ``break``, ``deal``,
``wildcard.indicator``, ``declarations.void_suit``, ``leave``) is a dataclass in
:mod:`mjframework.rules.model` whose field defaults are the section's defaults; the
schema states them as ``default`` keywords (for editors and readers). These
tests walk both and fail on any difference, on a key one has and the other
lacks, and on a schema ``default`` no dataclass accounts for.
"""

from __future__ import annotations

import json
import typing
import warnings
from dataclasses import MISSING, Field, fields
from typing import Any

import pytest

from mjframework.rules.loader import load_ruleset, schema
from mjframework.rules.model import (
    PAYOUT_DEFAULTS,
    BreakRule,
    Claims,
    DealerRule,
    DealRule,
    Flow,
    HandRule,
    IndicatorRule,
    LeaveRule,
    Scoring,
    Section,
    VoidSuit,
    WallRule,
    WinRule,
    yaml_key,
)

# schema path of the section's object schema → its dataclass
SECTIONS: dict[tuple[str, ...], type[Section]] = {
    ("$defs", "claims"): Claims,
    ("$defs", "win"): WinRule,
    ("$defs", "dealer"): DealerRule,
    ("$defs", "wall"): WallRule,
    ("$defs", "break"): BreakRule,
    ("$defs", "deal"): DealRule,
    ("$defs", "wildcard", "properties", "indicator"): IndicatorRule,
    ("$defs", "declarations", "properties", "void_suit"): VoidSuit,
    ("properties", "leave"): LeaveRule,
    ("properties", "hand"): HandRule,
}


def _at(doc: dict[str, Any], path: tuple[str, ...]) -> dict[str, Any]:
    for key in path:
        doc = doc[key]
    return doc


def as_json(value: Any) -> Any:
    """A default as the schema writes it: sections as mappings by YAML key, tuples as lists."""
    if isinstance(value, Section):
        return {yaml_key(f.name): as_json(getattr(value, f.name)) for f in fields(value)}  # type: ignore[arg-type]
    if isinstance(value, tuple | list):
        return [as_json(x) for x in value]
    if isinstance(value, dict):
        return {str(k): as_json(v) for k, v in value.items()}
    return value


def default_of(f: Field[Any]) -> Any:
    if f.default is not MISSING:
        return f.default
    if f.default_factory is not MISSING:
        return f.default_factory()
    return MISSING


def _nested(cls: type, name: str) -> type[Section] | None:
    """The section type a field holds (itself, or as the items of a tuple), if any."""
    hint = typing.get_type_hints(cls)[name]
    for t in (hint, *typing.get_args(hint)):
        if isinstance(t, type) and issubclass(t, Section):
            return t
    return None


def walk(obj: dict[str, Any], cls: type, path: tuple[str, ...], seen: set[tuple[str, ...]],
         renames: dict[str, str] | None = None, skip: frozenset[str] = frozenset()) -> list[str]:
    """Differences between the object schema ``obj`` and the dataclass ``cls`` (recursively);
    each schema ``default`` compared is added to ``seen`` (by its path)."""
    renames = renames or {}
    props = {k: v for k, v in obj["properties"].items() if k not in skip}
    required = set(obj.get("required", ()))
    by_key = {renames.get(yaml_key(f.name), yaml_key(f.name)): f for f in fields(cls)}
    by_key = {k: f for k, f in by_key.items() if k not in skip}
    out = [f"{'.'.join(path)}: {k} is in the schema but not in {cls.__name__}"
           for k in props if k not in by_key]
    out += [f"{'.'.join(path)}: {cls.__name__}.{f.name} is not in the schema" for k, f in by_key.items()
            if k not in props]
    for key, prop in props.items():
        f = by_key.get(key)
        if f is None:
            continue
        where = ".".join((*path, key))
        default = default_of(f)
        if key in required:
            if default is not MISSING:
                out.append(f"{where}: required by the schema, yet {cls.__name__}.{f.name} has a default")
        elif default is MISSING:
            out.append(f"{where}: optional in the schema, yet {cls.__name__}.{f.name} has no default")
        elif "default" in prop:
            seen.add((*path, key))
            if prop["default"] != as_json(default):
                out.append(f"{where}: the schema's default is {prop['default']!r}, "
                           f"{cls.__name__}.{f.name}'s {as_json(default)!r}")
        elif default is not None:
            out.append(f"{where}: {cls.__name__}.{f.name} defaults to {as_json(default)!r}; "
                       "the schema states no default")
        inner = _nested(cls, f.name)
        if inner is not None:
            sub = prop["items"] if prop.get("type") == "array" else prop
            out += walk(sub, inner, (*path, key), seen)
    return out


def schema_defaults(node: Any, path: tuple[str, ...] = ()) -> set[tuple[str, ...]]:
    """The path of every ``default`` keyword in the schema (a property named `default` is not one)."""
    found: set[tuple[str, ...]] = set()
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "properties":
                for name, sub in v.items():
                    found |= schema_defaults(sub, (*path, name))
            elif k == "default":
                found.add(path)
            elif k == "$defs":
                for name, sub in v.items():
                    found |= schema_defaults(sub, ("$defs", name))
            else:
                found |= schema_defaults(v, path)
    elif isinstance(node, list):
        for x in node:
            found |= schema_defaults(x, path)
    return found


def walk_scoring(sch: dict[str, Any], seen: set[tuple[str, ...]]) -> list[str]:
    """`scoring`: keys by YAML name but `base`/`table` (value_base, value_table); `kongs`,
    `payout` and `on_draw` are read into other shapes (checked by the tests)."""
    return walk(sch["$defs"]["scoring"], Scoring, ("$defs", "scoring"), seen,
                renames={"value_base": "base", "value_table": "table"},
                skip=frozenset({"kongs", "kongs_void_on_draw", "payout", "on_draw"}))


def test_a_difference_is_reported(sch: dict[str, Any]) -> None:
    """The walk finds a changed default, a missing one, and a key only one side has."""
    win = json.loads(json.dumps(sch["$defs"]["win"]))
    win["properties"]["self_draw"]["default"] = True
    del win["properties"]["discard"]["default"]
    win["properties"]["new_key"] = {"type": "boolean"}
    got = walk(win, WinRule, ("$defs", "win"), set())
    assert len(got) == 3 and "self_draw" in got[1] and "new_key" in got[0] and "discard" in got[2], got


@pytest.fixture(scope="module")
def sch() -> dict[str, Any]:
    return schema()


@pytest.mark.parametrize("path", list(SECTIONS), ids=lambda p: ".".join(p[1:]))
def test_section_defaults_match_the_schema(sch: dict[str, Any], path: tuple[str, ...]) -> None:
    assert walk(_at(sch, path), SECTIONS[path], path, set()) == []


def test_scoring_defaults_match_the_schema(sch: dict[str, Any]) -> None:
    obj = sch["$defs"]["scoring"]
    seen: set[tuple[str, ...]] = set()
    # `kongs`, `payout` and `on_draw` are read into other shapes: checked below.
    assert walk_scoring(sch, seen) == []
    payout = obj["properties"]["payout"]["properties"]
    assert {k: v["default"] for k, v in payout.items()} == PAYOUT_DEFAULTS
    kongs = obj["properties"]["kongs"]["properties"]
    assert kongs["void_on_draw"]["default"] == Scoring.kongs_void_on_draw
    assert kongs["paid"]["default"] == Flow.kongs_paid
    assert kongs["refund"]["default"] is False and Flow.kong_refund is None  # no refund
    assert Flow.on_draw == () and "default" not in obj["properties"]["on_draw"]


def test_every_schema_default_is_a_dataclass_default(sch: dict[str, Any]) -> None:
    """A `default` added to the schema must be one of the checked sections' (no stray ones)."""
    seen: set[tuple[str, ...]] = set()
    for path, cls in SECTIONS.items():
        walk(_at(sch, path), cls, path, seen)
    walk_scoring(sch, seen)
    seen |= {("$defs", "scoring", "payout", k) for k in PAYOUT_DEFAULTS}
    seen |= {("$defs", "scoring", "kongs", k) for k in ("void_on_draw", "paid", "refund")}
    seen = {tuple(k for k in p if k != "properties") for p in seen}
    assert schema_defaults(sch) - seen == set()


def test_flow_takes_the_sections_defaults() -> None:
    assert Flow().after_win == WinRule().after_win
    assert Flow().after_winners == WinRule().after_winners
    assert Flow().kong_flags == frozenset(WinRule().kong_flags)
    assert Flow().which_win == DealerRule().which_win


def test_from_yaml_fills_the_defaults() -> None:
    win = WinRule.from_yaml({"discard": True})
    assert win.discard and not win.self_draw and win.discard_winners == "first_in_turn"
    assert win.allows("discard") and not win.allows("self_draw") and not win.allows("robbed_kong")
    assert WinRule.from_yaml({"robbed_kong": "added"}).allows("robbed_kong")
    assert not WinRule(self_draw=True).allows("discard_winners")  # only ways of winning
    brk = BreakRule.from_yaml({"dice": 1, "wall": {"die": "sum", "seats": {"1": 0, "2": 3}},
                               "stack": {"die": "low"}})
    assert brk.wall.seats == {1: 0, 2: 3} and brk.stack.from_ == "owner_left"
    deal = DealRule.from_yaml({"then": [{"seat": 0, "take": [{"stack": 1, "layer": "top"}]},
                                        {"seat": 1, "tiles": 1}]})
    assert (deal.rounds, deal.block) == (3, 4)
    assert deal.then[0].take[0].layer == "top" and deal.then[1].tiles == 1 and deal.then[0].tiles == 0
    assert Claims.from_yaml({"priority": []}).priority == Claims().priority
    assert Claims.from_yaml({"concealed_kong": False}).allows_kong("added-kong")
    assert not Claims.from_yaml({"concealed_kong": False}).allows_kong("concealed-kong")


def test_loaded_sections_are_typed() -> None:
    rs = load_ruleset("changsha")
    assert isinstance(rs.win, WinRule) and rs.win.robbed_kong == "added"
    assert isinstance(rs.claims, Claims) and isinstance(rs.deal, DealRule)
    assert sum(rs.wall.stacks_per_seat if isinstance(rs.wall.stacks_per_seat, tuple)
               else (rs.wall.stacks_per_seat,) * rs.players) * rs.wall.height == rs.tileset.size


def test_reading_a_section_as_a_mapping_is_deprecated() -> None:
    rs = load_ruleset("changsha")
    with pytest.warns(DeprecationWarning, match="WinRule"):
        assert rs.win.get("discard") is True
    with pytest.warns(DeprecationWarning):
        assert rs.deal["rounds"] == rs.deal.rounds
    with pytest.warns(DeprecationWarning):
        assert dict(rs.claims.items())["pung"] is rs.claims.pung
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert rs.win.discard is True  # attributes never warn
