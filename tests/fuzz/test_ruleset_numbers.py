"""Numbers in rulesets: every integer field refuses `.inf`, `.nan`, huge and fractional floats with a
located error (FILE:LINE:COL and the YAML path), never an `OverflowError` traceback."""

from __future__ import annotations

import copy
import math
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mjframework.rules import loader
from mjframework.rules.loader import available_rulesets, check_file, load_chain

BAD_FLOATS = st.sampled_from([math.inf, -math.inf, math.nan, 1e300, 2.5, 3.0, -0.0]) | st.floats()


def _integer_nodes(node: Any, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], dict[str, Any]]]:
    out = []
    if isinstance(node, dict):
        t = node.get("type")
        if t == "integer" or (isinstance(t, list) and "integer" in t):
            out.append((path, node))
        for k, v in node.items():
            out += _integer_nodes(v, (*path, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _integer_nodes(v, (*path, str(i)))
    return out


INTEGER_NODES = _integer_nodes(loader.schema())


def test_the_schema_has_its_integer_fields() -> None:
    assert len(INTEGER_NODES) >= 50, len(INTEGER_NODES)  # (the walk finds them: the test below is not empty)


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(INTEGER_NODES), BAD_FLOATS)
def test_every_integer_field_of_the_schema_refuses_floats(node: tuple[tuple[str, ...], dict[str, Any]],
                                                          value: float) -> None:
    path, sub = node
    validator = loader._validator().evolve(schema=sub)
    errors = list(validator.iter_errors(value))
    assert errors, (path, value)
    if "integer" in (sub["type"] if isinstance(sub["type"], list) else [sub["type"]]):
        assert any(e.validator == "type" for e in errors), (path, value)


def _plain(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_plain(v) for v in x]
    return x


def _int_paths(x: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(x, bool):
        return []
    if isinstance(x, int):
        return [path]
    items = x.items() if isinstance(x, dict) else enumerate(x) if isinstance(x, list) else ()
    return [p for k, v in items for p in _int_paths(v, (*path, k))]


@cache
def _shipped(rid: str) -> Any:
    return _plain(load_chain(available_rulesets()[rid], [], ()))


# Every integer a shipped ruleset writes (its `extends` merged in), one path per distinct field.
FIELDS: list[tuple[str, tuple[Any, ...]]] = []
_seen: set[tuple[Any, ...]] = set()
for _rid in sorted(available_rulesets()):
    for _p in _int_paths(_shipped(_rid)):
        _shape = tuple(k if isinstance(k, str) else 0 for k in _p)
        if _shape not in _seen:
            _seen.add(_shape)
            FIELDS.append((_rid, _p))


def test_the_shipped_rulesets_write_many_integer_fields() -> None:
    assert len(FIELDS) >= 25, len(FIELDS)


def _check_with(tmp: Path, rid: str, path: tuple[Any, ...], value: Any) -> list[Any]:
    data = copy.deepcopy(_shipped(rid))
    d = data
    for k in path[:-1]:
        d = d[k]
    d[path[-1]] = value
    f = tmp / "numbers.yaml"
    f.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    where = tuple(path)
    if path[:1] == ("options",) and path[2] == "values":
        # (an option's value is a patch, checked when the option is chosen: the error is then
        # located in the patch, at the merged ruleset's YAML path)
        rs, problems = check_file(f, options={path[1]: path[3]})
        where = tuple(path[4:])
    else:
        rs, problems = check_file(f)  # (must not raise)
    assert rs is None and problems, (rid, path, value)
    here = [p for p in problems if tuple(p.path) == where]
    assert here, (path, [str(p) for p in problems][:5])
    loc = here[0].location
    assert loc is not None and loc.file == str(f) and loc.line >= 1 and loc.column >= 1
    assert "must be" in here[0].message, here[0].message  # (an integer, or the one value allowed)
    return problems


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(FIELDS), st.sampled_from([math.inf, -math.inf, math.nan, 1e300, 2.5, 3.0]))
def test_a_float_in_any_integer_field_of_a_shipped_ruleset_is_a_located_error(
        tmp_path: Path, field: tuple[str, tuple[Any, ...]], value: float) -> None:
    rid, path = field
    _check_with(tmp_path, rid, path, value)


@pytest.mark.parametrize("path", [("tiles", "copies"), ("scoring", "dealer_bonus"),
                                  ("shapes", "standard", "melds"), ("tiles", "flowers")])
def test_inf_where_it_used_to_overflow(tmp_path: Path, path: tuple[str, ...]) -> None:
    rid = next(r for r, p in FIELDS if p == path)
    problems = _check_with(tmp_path, rid, path, math.inf)
    assert any("not inf" in p.message for p in problems)


def test_yaml_inf_and_nan_literals_in_a_small_file(tmp_path: Path) -> None:
    f = tmp_path / "t.yaml"
    for text, where in [("players: .inf", "players"), ("players: .NaN", "players"),
                        ("leave: {penalty: -.inf}", "leave.penalty"),
                        ("deal: {rounds: 1.0e+300}", "deal.rounds"),
                        ("plugins: {kaigang: {dice: .inf}}", "plugins.kaigang.dice")]:
        f.write_text(f"id: t\nname: t\nextends: changsha\n{text}\n")
        rs, problems = check_file(f)
        assert rs is None
        mine = [p for p in problems if ".".join(map(str, p.path)) == where]
        assert mine and mine[0].location.line == 4, (text, [str(p) for p in problems])
        assert str(mine[0]).startswith(f"{f}:4:"), str(mine[0])


def test_the_playground_answers_a_ruleset_with_inf_with_its_problems() -> None:
    from servekit import post_json, running

    with running(workers=1) as s:
        text = "id: t\nname: t\nextends: changsha\nplayers: .inf\n"
        status, r = post_json(s, "/api/validate", {"yaml": text})
        assert status == 200 and not r["ok"], r
        assert any(p["path"] == ["players"] and p["line"] == 4 for p in r["problems"]), r
        status, r = post_json(s, "/api/score", {"ruleset": "changsha", "hand": "234m 345p 666s 789s 8p",
                                                "win_tile": "8p", "options": {"dealer_bonus": math.inf}})
        assert status == 400 and "dealer_bonus" in r["error"], r


# -- seats a ruleset names are seats of its table -----------------------------------------------------

@pytest.mark.parametrize(("text", "where"), [
    ("players: 3\ndeal: {then: [{seat: 3, tiles: 1}]}", "deal.then[0].seat"),
    ("players: 3", "break.wall.seats.4"),
])
def test_a_seat_beyond_the_table_is_a_located_error(tmp_path: Path, text: str, where: str) -> None:
    f = tmp_path / "t.yaml"
    f.write_text(f"id: t\nname: t\nextends: sichuan-xuezhan\n{text}\n")
    rs, problems = check_file(f)
    assert rs is None
    mine = [p for p in problems if str(p).split(": ")[1] == where] if problems else []
    assert mine and "a table of 3 has seats 0–2" in mine[0].message and mine[0].location, \
        [str(p) for p in problems]


def test_a_seat_the_schema_refuses_is_reported_once(tmp_path: Path) -> None:
    f = tmp_path / "t.yaml"
    f.write_text("id: t\nname: t\nextends: changsha\nbreak: {wall: {die: sum, seats: {1: 7}}}\n")
    _, problems = check_file(f)
    assert [p.message for p in problems if tuple(p.path) == ("break", "wall", "seats", 1)] == \
        ["must be at most 3, not 7"]


@pytest.mark.parametrize("seat", [-1, 7, 4])
def test_a_pattern_example_s_seat_must_be_at_the_table(tmp_path: Path, seat: int) -> None:
    data = copy.deepcopy(_shipped("mcr"))
    i = next(i for i, p in enumerate(data["patterns"]) if isinstance(p.get("example"), dict))
    data["patterns"][i]["example"]["seat"] = seat
    f = tmp_path / "t.yaml"
    f.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    rs, problems = check_file(f)
    assert rs is None and any(tuple(p.path) == ("patterns", i, "example", "seat") and p.location
                              for p in problems), [str(p) for p in problems][:5]
