"""Conformance files: hands and the results a ruleset must give (format 1).

The format is described in ``docs/conformance.md``; :func:`schema` is its JSON
Schema (``mj schema --conformance``), which accepts exactly the keys this
runner reads. :func:`run_file` checks every case of a file and never stops at
a bad case: a case that can't be read or run is reported as an error with its
reason. Used by ``mj conformance`` and by the pytest plugin.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from ..core.errors import HandError, MJError, RulesetError
from ..core.hand import WinContext, make_hand, parse_flowers
from ..core.tiles import TileParseError, format_tiles, parse_tile, parse_tiles
from ..evaluate.scoring import Evaluator, Result
from ..rules.loader import load_ruleset
from ..rules.model import CounterRule, Ruleset
from ..rules.yamlsource import load_yaml_file, location_of
from ..settle.settlement import SeatFacts

FILE_KEYS = {"format", "ruleset", "options", "preset", "description", "cases"}
CASE_KEYS = {
    "id", "note", "kind", "wildcard", "indicator", "seat", "hand", "melds", "win_tile", "win_by",
    "discarder", "flags", "context", "seat_state", "in_play", "expect",
    "flowers", "seat_wind", "prevalent_wind", "seats", "options", "counters",
}
EXPECT_KEYS = {"win", "patterns", "payments", "call"}


@lru_cache(maxsize=1)
def schema() -> dict[str, Any]:
    """The JSON Schema of a conformance file (shipped as ``schema/conformance.schema.json``)."""
    text = resources.files("mjframework").joinpath("schema/conformance.schema.json").read_text("utf-8")
    return json.loads(text)


@dataclass
class CaseResult:
    file: str
    id: str
    line: int | None
    status: str  # pass | fail | error
    diffs: list[tuple[str, Any, Any]] = field(default_factory=list)  # (key, expected, got)
    message: str = ""
    got: dict[str, Any] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return self.status == "pass"

    def to_dict(self) -> dict[str, Any]:
        return {
            "file": self.file, "id": self.id, "line": self.line, "status": self.status,
            "message": self.message,
            "diffs": [{"key": k, "expected": e, "got": g} for k, e, g in self.diffs],
            "got": self.got,
        }

    def describe(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        if self.status == "pass":
            return f"PASS {self.id}"
        if self.status == "error":
            return f"ERROR {self.id} ({where}): {self.message}"
        lines = [f"FAIL {self.id} ({where})"]
        for key, exp, got in self.diffs:
            lines.append(f"    {key}: expected {_show(exp)}")
            lines.append(f"    {' ' * len(key)}       got {_show(got)}")
        return "\n".join(lines)


def _brief(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 80 else text[:80] + "…"


def _show(v: Any) -> str:
    if isinstance(v, list):
        return "[" + ", ".join(str(x) for x in v) + "]"
    return str(v)


class CaseError(MJError):
    pass


def conformance_files(paths: Iterable[str | Path]) -> Iterator[Path]:
    for p in map(Path, paths):
        if p.is_dir():
            yield from sorted(x for x in p.rglob("*.y*ml") if x.suffix in (".yaml", ".yml"))
        else:
            yield p


def load_file(path: Path) -> tuple[Any, Evaluator | None, str]:
    """(data, evaluator or None, error message)."""
    try:
        data = load_yaml_file(path)
    except RulesetError as e:
        return None, None, "; ".join(str(p) for p in e.problems)
    if not isinstance(data, dict) or "cases" not in data or "ruleset" not in data:
        return data, None, "not a conformance file (needs `format`, `ruleset` and `cases`)"
    unknown = set(data) - FILE_KEYS
    if unknown:
        return data, None, (f"unknown top-level key(s): {', '.join(sorted(map(str, unknown)))} "
                            f"(known: {', '.join(sorted(FILE_KEYS))})")
    if data.get("format") != 1:
        return data, None, f"unsupported format {data.get('format')!r} (this runner reads format 1)"
    if not isinstance(data["cases"], list):
        return data, None, "`cases` must be a list"
    if not isinstance(data["ruleset"], str) or not data["ruleset"].strip() or "\0" in data["ruleset"]:
        return data, None, "`ruleset` must be a ruleset id or a path"
    options, preset = data.get("options") or {}, data.get("preset")
    if not isinstance(options, dict) or not (preset is None or isinstance(preset, str)):
        return data, None, "`options` must be a mapping of option names to values, `preset` a preset name"
    try:
        ruleset = load_ruleset(data["ruleset"], base_dir=path.parent, named_in=path,
                               options={str(k): v for k, v in options.items()}, preset=preset)
        return data, Evaluator(ruleset), ""
    except RulesetError as e:
        return data, None, "ruleset: " + "; ".join(str(p) for p in e.problems)
    except (MJError, OSError, ValueError) as e:
        return data, None, f"ruleset: {e}"


def run_file(path: str | Path) -> list[CaseResult]:
    """Every case of one file; a file or case that can't be run is an ``error`` result, never an exception."""
    path = Path(path)
    if not path.is_file():
        return [CaseResult(str(path), "(file)", None, "error", message="no such file")]
    data, ev, err = load_file(path)
    if ev is None:
        return [CaseResult(str(path), "(file)", None, "error", message=err)]
    results = []
    seen: set[str] = set()
    evaluators: dict[tuple[tuple[str, str], ...], Evaluator] = {}
    for i, case in enumerate(data["cases"]):
        loc = location_of(data, ("cases", i))
        line = loc.line if loc else None
        raw_id = case.get("id", f"cases[{i}]") if isinstance(case, dict) else f"cases[{i}]"
        id_ok = isinstance(raw_id, str | int) and not isinstance(raw_id, bool)
        cid = str(raw_id) if id_ok else f"cases[{i}]"
        if not id_ok:
            results.append(CaseResult(str(path), cid, line, "error", message="`id` must be a string"))
            continue
        if cid in seen:
            results.append(CaseResult(str(path), cid, line, "error", message="duplicate case id"))
            continue
        seen.add(cid)
        case_ev, err = case_evaluator(data, path, case, ev, evaluators)
        if case_ev is None:
            results.append(CaseResult(str(path), cid, line, "error", message=err))
            continue
        results.append(run_case(case_ev, case, str(path), cid, line))
    return results


def case_evaluator(data: Any, path: Path, case: Any, ev: Evaluator,
                    cache: dict[tuple[tuple[str, str], ...], Evaluator]) -> tuple[Evaluator | None, str]:
    """The evaluator a case runs with: the file's, or, where the case sets ``options``, the
    ruleset loaded with the file's options and the case's over them (one per distinct set)."""
    own = case.get("options") if isinstance(case, dict) else None
    if not own:
        return ev, ""
    if not isinstance(own, dict):
        return None, "`options` must be a mapping of option names to values"
    options = {str(k): v for k, v in (data.get("options") or {}).items()}
    options.update({str(k): v for k, v in own.items()})
    key = tuple(sorted((k, repr(v)) for k, v in options.items()))
    found = cache.get(key)
    if found is None:
        try:
            found = Evaluator(load_ruleset(data["ruleset"], base_dir=path.parent, named_in=path,
                                           options=options,
                                           preset=data.get("preset")))
        except RulesetError as e:
            return None, "options: " + "; ".join(str(p) for p in e.problems)
        except (MJError, OSError, ValueError) as e:
            return None, f"options: {e}"
        cache[key] = found
    return found, ""


def context_value(value: Any) -> Any:
    """Context values that are tile strings become tile lists (birds: [3m, 4s])."""
    if isinstance(value, str):
        try:
            return parse_tiles(value)
        except TileParseError:
            return value
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        try:
            return [t for v in value for t in parse_tiles(v)]
        except TileParseError:
            return value
    return value


def run_case(ev: Evaluator, case: Any, file: str, cid: str, line: int | None) -> CaseResult:
    try:
        got, expect = _run(ev, case)
    except (MJError, TileParseError, ValueError, TypeError, KeyError, IndexError) as e:
        msg = e.reason if isinstance(e, TileParseError) else str(e)
        return CaseResult(file, cid, line, "error", message=msg)
    except RecursionError:  # pragma: no cover - the loader bounds nesting
        return CaseResult(file, cid, line, "error", message="the case is nested too deeply")
    diffs: list[tuple[str, Any, Any]] = []
    for key in ("win", "patterns", "payments", "call"):
        if key not in expect:
            continue
        exp, g = expect[key], got.get(key)
        same = sorted(exp or []) == sorted(g or []) if key == "patterns" else exp == g
        if not same:
            diffs.append((key, exp, g))
    return CaseResult(file, cid, line, "fail" if diffs else "pass", diffs, got=got)


def _run(ev: Evaluator, case: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    if not isinstance(case, dict):
        raise CaseError("a case must be a mapping")
    unknown = set(case) - CASE_KEYS
    if unknown:
        raise CaseError(f"unknown key(s): {', '.join(sorted(map(str, unknown)))}")
    expect = case.get("expect")
    if not isinstance(expect, dict):
        raise CaseError("`expect` must be a mapping")
    bad = set(expect) - EXPECT_KEYS
    if bad:
        raise CaseError(f"unknown expect key(s): {', '.join(sorted(map(str, bad)))}")
    for key, item_type, what in (("patterns", str, "pattern names"), ("payments", int, "integers")):
        if key not in expect:
            continue
        value = expect[key]
        if not isinstance(value, list) or not all(
                isinstance(v, item_type) and not isinstance(v, bool) for v in value):
            raise CaseError(f"`expect.{key}` must be a list of {what}, not {_brief(value)}")
    if "win" in expect and not isinstance(expect["win"], bool):
        raise CaseError(f"`expect.win` must be true or false, not {_brief(expect['win'])}")
    if "call" in expect and expect["call"] is not None and not isinstance(expect["call"], str):
        raise CaseError(f"`expect.call` must be a string (or null), not {_brief(expect['call'])}")
    if "hand" not in case:
        raise CaseError("missing `hand`")
    seat = case.get("seat", 0)
    if not isinstance(seat, int) or isinstance(seat, bool):
        raise CaseError("`seat` must be a number 0–3")
    flags = case.get("flags") or []
    if not isinstance(flags, list) or not all(isinstance(f, str) for f in flags):
        raise CaseError("`flags` must be a list of flag names")
    raw_context = case.get("context") or {}
    if not isinstance(raw_context, dict):
        raise CaseError("`context` must be a mapping (e.g. {birds: [3m, 4s]})")
    seat_state = case.get("seat_state") or {}
    if not isinstance(seat_state, dict):
        raise CaseError("`seat_state` must be a mapping (e.g. {ready: true, void_suit: m})")
    counts = case_counters(case.get("counters"), ev.ruleset, seat)
    if counts:  # the winner's counts read as its seat state, as in play (its own state first)
        seat_state = {**counts, **seat_state}
    in_play = case.get("in_play")
    if in_play is not None and (not isinstance(in_play, list) or not all(
            isinstance(x, int) and not isinstance(x, bool) for x in in_play)):
        raise CaseError("`in_play` must be a list of seats still in the hand (e.g. [0, 2, 3])")
    melds = case.get("melds") or []
    if not isinstance(melds, list):
        raise CaseError("`melds` must be a list of meld strings")
    context = ev.check_context_inputs({str(k): context_value(v) for k, v in raw_context.items()})
    wc = case.get("wildcard")
    ind = case.get("indicator")
    if wc is not None and ind is not None:
        raise CaseError("give `wildcard` or `indicator`, not both")
    wildcard = ev.wildcard_from(parse_tile(str(wc)) if wc is not None else None,
                                parse_tile(str(ind)) if ind is not None else None)
    kind = case.get("kind", "win")
    if kind == "opening":
        ctx = WinContext(seat=seat, win_by="self_draw", flags=frozenset(flags), extra=context,
                         seat_state=dict(seat_state))
        try:
            tiles = parse_tiles(str(case["hand"]))
        except TileParseError as e:
            raise HandError(f"hand: {e.reason} at column {e.position + 1}") from None
        opened = ev.evaluate_opening(tiles, ctx)
        got: dict[str, Any] = {"patterns": opened.score.pattern_names,
                               "payments": opened.payments, "win": opened.score.win}
        return got, expect
    if kind != "win":
        raise CaseError(f"unknown kind {kind!r} (win or opening)")
    if "win_tile" not in case:
        raise CaseError("missing `win_tile`")
    hand = make_hand(str(case["hand"]), [str(m) for m in melds],
                     str(case["win_tile"]))
    try:  # a count, or the flowers by name (`1f 5f`: `seat_flowers`, `flower_sets` read them)
        flowers, flower_tiles = parse_flowers(case.get("flowers", 0))
    except HandError as e:
        raise CaseError(f"`flowers` must be a number of flowers set aside (0 or more) or flower tiles: {e}") \
            from None
    winds = {k: parse_tile(str(case[k])) for k in ("seat_wind", "prevalent_wind") if case.get(k) is not None}
    ctx = WinContext(seat=seat, win_by=str(case.get("win_by", "self_draw")),
                     discarder=case.get("discarder"), flags=frozenset(flags), extra=context,
                     seat_state=dict(seat_state),
                     in_play=frozenset(in_play) if in_play is not None else None,
                     flowers=flowers, flower_tiles=flower_tiles, **winds)
    result: Result = ev.evaluate(hand, ctx, wildcard, seats=case_seats(case.get("seats"), ev.ruleset.players))
    got = {"win": result.score.win}
    if result.score.win:
        got["patterns"] = result.score.pattern_names
        got["payments"] = result.payments
        got["call"] = result.call
        got["reading"] = describe_reading(result)
    else:
        got["reason"] = result.score.reason
    return got, expect


def case_counters(raw: Any, rs: Ruleset, seat: int) -> dict[str, int]:
    """A case's ``counters`` (as a ``hand_start`` event shows them: ``{lianzhuang: 2, streak:
    [0, 1, 0, 0]}``), checked against the ruleset's ``counters``: the winner's counts."""
    if raw is None:
        return {}
    declared = {c.name: c for c in rs.counters}
    if not isinstance(raw, dict):
        raise CaseError("`counters` must be a mapping of counter names to counts (e.g. {lianzhuang: 2})")
    out: dict[str, int] = {}
    for name, value in raw.items():
        rule = declared.get(str(name))
        if rule is None:
            known = ", ".join(sorted(declared)) or "none"
            raise CaseError(f"`counters.{name}`: no such counter (this ruleset counts: {known})")

        if rule.scope == "seat":
            if not isinstance(value, list) or len(value) != rs.players:
                raise CaseError(f"`counters.{name}` counts per seat: give {rs.players} counts, "
                                "like [0, 1, 0, 0]")
            out[rule.name] = [_count(rule, v) for v in value][seat]
        else:
            out[rule.name] = _count(rule, value)
    return out


def _count(rule: CounterRule, v: Any) -> int:
    """One count of a case's ``counters``: a whole number 0 … the counter's ``max``."""
    if not isinstance(v, int) or isinstance(v, bool) or v < 0:
        raise CaseError(f"`counters.{rule.name}`: a count is a whole number 0 or more, not {_brief(v)}")
    if rule.max is not None and v > rule.max:
        raise CaseError(f"`counters.{rule.name}`: at most {rule.max}, not {v}")
    return v


def case_seats(raw: Any, players: int) -> dict[int, SeatFacts] | None:
    """A case's ``seats`` (``{2: {melds: [...], seat_state: {...}}}``) as settlement reads them."""
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise CaseError("`seats` must be a mapping of seat numbers to {melds, seat_state}")
    out: dict[int, SeatFacts] = {}
    for key, d in raw.items():
        try:
            seat = int(key)
        except (TypeError, ValueError):
            raise CaseError(f"`seats`: {key!r} is not a seat number") from None
        if not 0 <= seat < players:
            raise CaseError(f"`seats`: there is no seat {seat} at a table of {players}")
        if not isinstance(d, dict) or set(d) - {"melds", "seat_state"}:
            raise CaseError(f"`seats.{seat}` must be a mapping with `melds` and/or `seat_state`")
        melds = d.get("melds") or []
        state = d.get("seat_state") or {}
        if not isinstance(melds, list) or not isinstance(state, dict):
            raise CaseError(f"`seats.{seat}`: `melds` is a list of meld strings, `seat_state` a mapping")
        made = make_hand("", [str(m) for m in melds]).melds
        for m in made:
            if m.from_seat is not None and not 0 <= m.from_seat < players:
                raise CaseError(f"`seats.{seat}`: meld {m}: there is no seat {m.from_seat}")
            if m.from_seat == seat:
                raise CaseError(f"`seats.{seat}`: meld {m} claimed from its own seat")
        out[seat] = SeatFacts(tuple(made), dict(state))
    return out


def describe_reading(result: Result) -> str:
    r = result.score.reading
    if r is None:
        return ""
    parts = []
    for g in r.groups:
        s = format_tiles(g.tiles)
        if "w" in g.sources or "s" in g.sources:
            s += "(" + "".join(g.sources) + ")"
        if g.meld:
            s = f"{g.meld}:{s}"
        parts.append(s)
    return " ".join(parts)


def summary_line(results: list[CaseResult]) -> str:
    passed = sum(r.passed for r in results)
    return f"{passed} passed, {len(results) - passed} failed"
