"""Loading rulesets: YAML → ``extends`` merged → schema- and meaning-checked → :class:`Ruleset`.

Every problem found is collected (not just the first) and reported as
``FILE:LINE:COL: yaml.path: message`` through :class:`RulesetError`.

``extends`` semantics: mappings merge key by key (the extending file wins),
lists are replaced, except ``patterns``, which merge by name (a pattern with
an inherited name replaces it in place; new ones are appended); a ``null``
value removes an inherited key (``plugins: {zhaniao: null}``).
"""

from __future__ import annotations

import difflib
import json
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema

from . import plugins as plugin_registry
from .errors import Location, Problem, RulesetError
from .model import (
    FLAGS,
    GROUP_KINDS,
    Count,
    DrawnPayment,
    Exchange,
    Flow,
    GroupFilter,
    KongPayment,
    LeaveRule,
    Pattern,
    Ruleset,
    Scoring,
    Shape,
    StandIn,
    TileFilter,
    VoidSuit,
    Wait,
    When,
    WildcardRule,
)
from .tiles import (
    HONOR_BASE,
    SUIT_LETTERS,
    TileParseError,
    TileSet,
    is_honor,
    parse_tile,
    parse_tiles,
    tile_name,
)
from .yamlsource import SourceList, SourceMap, file_path, load_yaml_file, location_of

# `require` keys that are not counts, and those only a win's reading has.
NOT_COUNTS = ("all_tiles", "no_tiles", "pair", "every_group", "any_group", "groups", "win_wait")
READING_ONLY = ("every_group", "any_group", "groups", "win_wait", "pair")
# Count measures (`times: {per: …}` may name any of them).
COUNT_MEASURES = (
    "wildcards", "wildcards_held", "natural_wildcards", "self_wild_sequences", "honors", "distinct_honors",
    "suits", "missing_suits", "sequences", "triplets", "kongs", "claimed_melds", "concealed_kongs",
    "exposed_kongs", "concealed_triplets", "sets_of_four", "sets_of_three",
)

# Sections a playable ruleset must have once its `extends` chain is merged.
REQUIRED_SECTIONS = (
    "name", "players", "tiles", "wall", "break", "deal", "claims", "win", "dealer",
    "scoring", "patterns",
)


# --------------------------------------------------------------------------
# finding files


def builtin_rulesets_dir() -> Path:
    """The rulesets shipped with the package (``rulesets/`` in the source tree)."""
    return Path(str(resources.files("mjframework_rulesets")))


def available_rulesets() -> dict[str, Path]:
    """Built-in ruleset ids → files (fragments excluded)."""
    out: dict[str, Path] = {}
    for p in sorted(builtin_rulesets_dir().glob("*.yaml")):
        out[p.stem] = p
    return out


def resolve_ruleset_ref(ref: str, base_dir: Path | None = None) -> Path:
    """A ruleset id or path → the file. Paths are relative to ``base_dir``."""
    candidates: list[Path] = []
    looks_like_path = ref.endswith((".yaml", ".yml")) or "/" in ref or "\\" in ref
    if looks_like_path:
        p = Path(ref)
        candidates.append(p if p.is_absolute() or base_dir is None else base_dir / p)
        if base_dir is not None and not p.is_absolute():
            candidates.append(Path(ref))
    else:
        # An id: the built-in rulesets first (a conformance file may sit next
        # to files named like ids), then the caller's folder and ./rulesets.
        candidates.append(builtin_rulesets_dir() / f"{ref}.yaml")
        if base_dir is not None:
            candidates.append(base_dir / f"{ref}.yaml")
        candidates.append(Path("rulesets") / f"{ref}.yaml")
    for c in candidates:
        if c.is_file():
            return c
    raise FileNotFoundError(ref)


# --------------------------------------------------------------------------
# schema


@lru_cache(maxsize=1)
def schema() -> dict[str, Any]:
    text = resources.files("mjframework").joinpath("schema/ruleset.schema.json").read_text("utf-8")
    return json.loads(text)


@lru_cache(maxsize=1)
def _validator() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(schema())


def _describe_type(t: str | list[str]) -> str:
    names = {"integer": "an integer", "string": "a string", "object": "a mapping",
             "array": "a list", "boolean": "true or false", "null": "null", "number": "a number"}
    if isinstance(t, list):
        return " or ".join(names.get(x, x) for x in t)
    return names.get(t, t)


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
    if v == "additionalProperties" and isinstance(err.instance, dict):
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
        return [Problem(loc, path, f"must be {_describe_type(err.validator_value)}, not {err.instance!r}")]
    if v == "required":
        missing = err.message.split("'")[1] if "'" in err.message else err.message
        return [Problem(loc, path, f"missing required key {missing!r}")]
    if v == "enum":
        opts = ", ".join(json.dumps(o, ensure_ascii=False) for o in err.validator_value)
        return [Problem(loc, path, f"{err.instance!r} is not one of: {opts}")]
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
            return [Problem(loc, path, f"must be {kinds}, not {err.instance!r}")]
        # Report the alternative that got furthest (deepest error).
        sub = [e for e in ctx_errors if e.validator != "type"] or ctx_errors
        if sub:
            best = max(sub, key=lambda e: len(e.absolute_path))
            return _explain(best, data)
        return [Problem(loc, path, err.message)]
    if v in ("minItems", "maxItems", "minProperties", "maxProperties", "uniqueItems", "minLength"):
        return [Problem(loc, path, err.message)]
    return [Problem(loc, path, err.message)]


# --------------------------------------------------------------------------
# extends


def _merge(base: Any, over: Any, key: str | None = None) -> Any:
    if isinstance(base, dict) and isinstance(over, dict):
        out = SourceMap()
        out.location = getattr(over, "location", None) or getattr(base, "location", None)
        for src in (base, over):
            for k, v in src.items():
                if src is over and v is None and k in out:
                    del out[k]
                    continue
                out[k] = _merge(out[k], v, k) if (src is over and k in out) else v
                if isinstance(src, SourceMap):
                    out.locations[k] = src.locations.get(k)
                    out.key_locations[k] = src.key_locations.get(k)
        return out
    if key == "patterns" and isinstance(base, list) and isinstance(over, list):
        out_l = SourceList()
        out_l.location = getattr(over, "location", None)
        inherited: dict[Any, int] = {}  # base pattern name → position, until overridden
        for src in (base, over):
            locs = getattr(src, "locations", [None] * len(src))
            for item, loc in zip(src, locs, strict=False):
                name = item.get("name") if isinstance(item, dict) else None
                if src is over and name is not None and name in inherited:
                    i = inherited.pop(name)  # once: a repeat in the same file stays a duplicate
                    out_l[i] = item
                    out_l.locations[i] = loc
                    continue
                if src is base and name is not None:
                    inherited[name] = len(out_l)
                out_l.append(item)
                out_l.locations.append(loc)
        return out_l
    return over


def _load_chain(path: Path, problems: list[Problem], stack: tuple[Path, ...]) -> Any:
    """Load ``path`` with everything it extends merged in (base first)."""
    real = path.resolve()
    try:
        data = load_yaml_file(path)
    except RulesetError as e:
        problems.extend(e.problems)
        return None
    if not isinstance(data, dict):
        problems.append(Problem(Location(str(path), 1, 1), (), "a ruleset file must be a YAML mapping"))
        return None
    problems.extend(_schema_problems(data, data))
    ext = data.get("extends")
    refs = [ext] if isinstance(ext, str) else ext if isinstance(ext, list) else []
    merged: Any = SourceMap()
    for i, ref in enumerate(refs):
        if not isinstance(ref, str):
            continue
        where = ("extends", i) if isinstance(ext, list) else ("extends",)
        loc = location_of(data, where)
        try:
            target = resolve_ruleset_ref(ref, path.parent)
        except FileNotFoundError:
            problems.append(Problem(loc, where, f"cannot find {ref!r} to extend "
                                    f"(a ruleset id, or a path relative to {path.parent})"))
            continue
        if target.resolve() in stack or target.resolve() == real:
            chain = " → ".join(p.name for p in (*stack, real, target.resolve()))
            problems.append(Problem(loc, where, f"`extends` loops: {chain}"))
            continue
        base = _load_chain(target, problems, (*stack, real))
        if isinstance(base, dict):
            merged = _merge(merged, base)
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
    return _merge(merged, own)


# --------------------------------------------------------------------------
# building typed objects (with meaning checks)


class _Builder:
    def __init__(self, data: SourceMap, problems: list[Problem], broken: set[Any] | None = None) -> None:
        self.data = data
        self.problems = problems
        self.broken = broken or set()

    def problem(self, path: tuple, message: str, *, key: bool = False) -> None:
        self.problems.append(Problem(location_of(self.data, path, key=key),
                                     file_path(self.data, path), message))

    def tiles(self, text: Any, path: tuple) -> list[int]:
        if not isinstance(text, str):
            return []
        try:
            return parse_tiles(text)
        except TileParseError as e:
            self.problem(path, f"bad tile string: {e.reason} at column {e.position + 1} of {text!r}")
            return []

    def tile(self, text: Any, path: tuple) -> int | None:
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
                       copies=int(t.get("copies", 4)), successors={})

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
                                indicator=dict(w.get("indicator", {}) or {}), fixed=tuple(fixed),
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
                            indicator=dict(w.get("indicator", {}) or {}), fixed=tuple(fixed),
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

    def shape(self, d: Any, path: tuple) -> Shape | None:
        if not isinstance(d, dict):
            return None
        kinds = [k for k in ("pairs", "knitted", "orphans", "free") if k in d]
        if "melds" in d or "pair" in d:
            kinds.insert(0, "standard")
        if len(kinds) != 1:
            self.problem(path, "a shape is exactly one of: melds (+ pair), pairs, knitted, orphans, free"
                         + (f"; found {', '.join(kinds)}" if kinds else ""))
            return None
        kind = kinds[0]
        if kind == "standard":
            return Shape("standard", melds=int(d.get("melds", 0)), pair=int(d.get("pair", 0)))
        if kind == "pairs":
            return Shape("pairs", pairs=int(d["pairs"]))
        if kind == "knitted":
            k = d["knitted"] or {}
            return Shape("knitted", min_gap=int(k.get("min_gap", 3)),
                         distinct_honors=bool(k.get("distinct_honors", True)))
        if kind == "orphans":
            tiles = self.tiles(d["orphans"], (*path, "orphans"))
            if len(set(tiles)) != len(tiles):
                self.problem((*path, "orphans"), "each orphan tile should be listed once")
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

    def tile_filter(self, d: Any, path: tuple) -> TileFilter | None:
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
        )

    def group_filter(self, d: Any, path: tuple) -> tuple[GroupFilter | None, Count | None]:
        if not isinstance(d, dict):
            return None, None
        kinds = d.get("kind")
        return GroupFilter(
            kinds=frozenset(k for x in kinds for k in GROUP_KINDS[x]) if kinds else None,
            holding=self.tile_filter(d.get("holding"), (*path, "holding")),
            exposed=d.get("exposed"),
            laid_down=d.get("laid_down"),
        ), self.count(d["count"]) if "count" in d else Count(1, None)

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
                rest = self.shape(wd.get("rest"), (*wpath, "rest"))
                if rest is not None and rest.kind not in ("standard", "pairs"):
                    self.problem((*wpath, "rest"), "a wait's rest must be melds (+ pair) or pairs")
                if rest is not None:
                    waits.append(Wait(int(wd.get("free_wildcards", 1)), rest))
                if not has_wildcard:
                    self.problem(wpath, "a wildcard wait needs a `wildcard` rule in the ruleset")
            req = p.get("require") or {}
            counts = tuple((k, self.count(v)) for k, v in req.items()
                           if k not in NOT_COUNTS and isinstance(v, int | dict))
            wh = p.get("when") or {}
            when = When(
                win_by=frozenset(wh["win_by"]) if "win_by" in wh else None,
                win_tile=wh.get("win_tile"),
                seat=wh.get("seat"),
                discarder=wh.get("discarder"),
                flags=frozenset(wh.get("flags", [])),
                not_flags=frozenset(wh.get("not_flags", [])),
                seat_state=tuple(sorted((wh.get("seat_state") or {}).items())),
            )
            for key in ("flags", "not_flags"):
                for j, f in enumerate(wh.get(key) or []):
                    if f not in FLAGS and f not in declared_flags:
                        hint = difflib.get_close_matches(str(f), [*FLAGS, *declared_flags], n=1)
                        self.problem((*path, "when", key, j), f"unknown flag {f!r}"
                                     + (f" (did you mean {hint[0]!r}?)" if hint else "")
                                     + "; a flag a plugin sets must be declared under `flags`")
            if when.win_tile == "wildcard" and not has_wildcard:
                self.problem((*path, "when", "win_tile"), "the ruleset has no wildcard")
            excludes = p.get("excludes") or []
            for j, ex in enumerate(excludes):
                if ex not in names:
                    hint = difflib.get_close_matches(str(ex), list(names), n=1)
                    self.problem((*path, "excludes", j), f"unknown pattern {ex!r}"
                                 + (f" (did you mean {hint[0]!r}?)" if hint else ""))
                elif ex == p["name"]:
                    self.problem((*path, "excludes", j), "a pattern can't exclude itself")
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
        value_kind = s.get("value", "points")
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
            value=value_kind, value_base=int(s.get("base", 1)), value_table=table,
            multipliers={k: int(v) for k, v in (s.get("multipliers") or {}).items()},
            bonuses={k: int(v) for k, v in bonuses.items()},
            combine=s.get("combine", "highest"),
            tiers=tuple(t for t in s.get("tiers", []) if isinstance(t, str))
            if isinstance(s.get("tiers"), list) else (),
            payout=dict(s.get("payout", {}) or {}),
            dealer_bonus=int(s.get("dealer_bonus", 0) or 0),
            kongs=kongs,
            kongs_void_on_draw=bool((s.get("kongs") or {}).get("void_on_draw", True)),
            ties=str(s.get("ties", "first_declared")),
        )

    def flow(self, tileset: TileSet | None) -> Flow:
        """Hand flow, phases before play, declarations, kong and drawn-end settlements."""
        d = self.data
        players = d.get("players") if isinstance(d.get("players"), int) else 4
        win = d.get("win") or {}
        after_win = win.get("after_win", "end")
        after_winners = win.get("after_winners")
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
            if k > 13:
                self.problem(("exchange", "tiles"), f"an exchange of {k} tiles: a hand holds only 13")
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
            void = VoidSuit(discard_first=bool(v.get("discard_first", True)),
                            claim=bool(v.get("claim", False)),
                            win_holding=bool(v.get("win_holding", False)))
            if tileset is not None and not any(not is_honor(t) for t in tileset.kinds):
                self.problem(("declarations", "void_suit"), "a void suit needs suits in the tile set")
        sc = d.get("scoring") or {}
        kongs = sc.get("kongs") or {}
        paid = kongs.get("paid", "at_win")
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
        kong_flags = win.get("kong_flags")
        return Flow(
            after_win=after_win, after_winners=after_winners,
            which_win=(d.get("dealer") or {}).get("which_win", "first"),
            kong_flags=frozenset(kong_flags) if isinstance(kong_flags, list) else Flow.kong_flags,
            exchange=exchange, void_suit=void, ready=isinstance(decl.get("ready"), dict),
            kongs_paid=paid, kong_refund=refund, on_draw=tuple(on_draw),
        )

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
            validator = jsonschema.Draft202012Validator(opt_schema)
            for err in validator.iter_errors(options):
                for prob in _explain(err, options):
                    sub = (*path, *prob.path)
                    self.problems.append(Problem(prob.location or location_of(self.data, sub),
                                                 sub, f"plugin {name}: {prob.message}"))
            out[name] = options
        return out

    def table_checks(self, tileset: TileSet | None) -> None:
        players = self.data.get("players")
        wall = self.data.get("wall") or {}
        if tileset and isinstance(players, int) and wall:
            stacks = wall.get("stacks_per_seat", 0)
            total_stacks = sum(stacks) if isinstance(stacks, list) else stacks * players
            if isinstance(stacks, list) and len(stacks) != players:
                self.problem(("wall", "stacks_per_seat"), f"give one number per player ({players})")
            if total_stacks * wall.get("height", 2) != tileset.size:
                self.problem(("wall",), f"the wall holds {total_stacks * wall.get('height', 2)} tiles "
                             f"but the tile set has {tileset.size}")
        brk = self.data.get("break") or {}
        w = brk.get("wall") or {}
        if w:
            dice = brk.get("dice", 2)
            values = range(dice, 6 * dice + 1) if w.get("die") == "sum" else range(1, 7)
            missing = [v for v in values if str(v) not in (w.get("seats") or {})]
            if missing:
                self.problem(("break", "wall", "seats"), f"no wall for die value(s) {missing}")
        deal = self.data.get("deal") or {}
        if deal and isinstance(players, int):
            per = [deal.get("rounds", 0) * deal.get("block", 0)] * players
            for step in deal.get("then", []) or []:
                seat = step.get("seat", 0)
                if seat < players:
                    per[seat] += step.get("tiles", 0) + len(step.get("take", []) or [])
            if per[0] != 14 or any(x != 13 for x in per[1:]):
                self.problem(("deal",), f"the deal gives {per} tiles; the dealer needs 14 and the others 13")


def _guard(fn: Any, *args: Any) -> Any:
    try:
        return fn(*args)
    except (TypeError, ValueError, AttributeError, KeyError, IndexError):
        return None


def _check_complete(data: SourceMap, problems: list[Problem]) -> None:
    if "fragment" in data:
        return
    for key in REQUIRED_SECTIONS:
        if key not in data:
            problems.append(Problem(data.location, (key,),
                                    "missing: not set in this file nor in any file it extends"))
    if "patterns" in data and isinstance(data["patterns"], list) and not data["patterns"]:
        problems.append(Problem(location_of(data, ("patterns",)), ("patterns",), "no patterns declared"))


def check_file(path: str | Path) -> tuple[Ruleset | None, list[Problem]]:
    """Load and check one file; return the ruleset (if it is a valid ruleset) and all problems."""
    p = Path(path)
    problems: list[Problem] = []
    data = _load_chain(p, problems, ())
    if not isinstance(data, SourceMap):
        return None, problems
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
    plugins = _guard(b.plugins) or {}
    flow = _guard(b.flow, tileset) or Flow()
    if "fragment" not in data:
        _guard(b.table_checks, tileset)
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
        claims=dict(data.get("claims") or {}), win=dict(data.get("win") or {}),
        dealer=dict(data.get("dealer") or {}), wall=dict(data.get("wall") or {}),
        break_=dict(data.get("break") or {}), deal=dict(data.get("deal") or {}),
        plugins=plugins, data=data, flags=flags, flow=flow,
        leave=_leave_rule(data.get("leave") or {}),
    )
    return rs, problems


def _leave_rule(d: dict[str, Any]) -> LeaveRule:
    return LeaveRule(penalty=int(d.get("penalty", 0)), paid_to=str(d.get("paid_to", "none")),
                     hand=str(d.get("hand", "abandon")))


def load_ruleset(ref: str | Path, base_dir: Path | None = None) -> Ruleset:
    """Load a ruleset by id or path; raise :class:`RulesetError` listing every problem."""
    ref_s = str(ref)
    try:
        path = Path(ref_s) if Path(ref_s).is_file() else resolve_ruleset_ref(ref_s, base_dir)
    except FileNotFoundError:
        known = ", ".join(available_rulesets()) or "none"
        raise RulesetError([Problem(None, (), f"no ruleset {ref_s!r} (not a file; built-in ids: {known})")]
                           ) from None
    return _load_cached(str(path.resolve()), path.stat().st_mtime_ns)


@lru_cache(maxsize=32)
def _load_cached(path: str, _mtime: int) -> Ruleset:
    rs, problems = check_file(path)
    if problems or rs is None:
        raise RulesetError(problems or [Problem(None, (), f"{path}: a fragment, not a playable ruleset")])
    return rs


__all__ = [
    "HONOR_BASE", "available_rulesets", "check_file", "load_ruleset", "resolve_ruleset_ref", "schema",
]
