"""Mutations of the shipped rulesets, for the fuzzing suite.

Every mutation is a pure function of a :class:`random.Random`, so a hypothesis-drawn seed
(or a plain seeded loop, for the batch run under resource limits) reproduces it exactly.
A mutation changes keys, types, values or structure of the plain data, or the YAML text
itself (aliases, tags, a NUL, deep nesting), or the `extends` graph.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import yaml

from mjframework.rules.loader import available_rulesets
from mjframework.rules.yamlsource import load_yaml_file, to_plain

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = {rid: to_plain(load_yaml_file(p)) for rid, p in available_rulesets().items()}
FRAGMENTS = {p.name: to_plain(load_yaml_file(p))
             for p in sorted((ROOT / "rulesets" / "fragments").glob("*.yaml"))}


def _keys(d: Any, out: set[str]) -> None:
    if isinstance(d, dict):
        for k, v in d.items():
            out.add(str(k))
            _keys(v, out)
    elif isinstance(d, list):
        for v in d:
            _keys(v, out)


_all: set[str] = set()
for _d in [*SHIPPED.values(), *FRAGMENTS.values()]:
    _keys(_d, _all)
KEYS = sorted(_all)

ODD_VALUES: list[Any] = [
    None, True, False, 0, -1, 1, 2, 3, 4, 13, 14, 99, -10**6, 10**6, 10**7, 10**15, 2**31, -2**63, 0.5,
    1e300, float("inf"), float("nan"), "", " ", "x", "0", "1m", "1z", "19m 19p 19s 1234567z", "八万", "中",
    "standard", "seven_pairs", "any", "changsha", "wildcard", "self_draw", "\u0000", "\u202e", "é" * 300,
    "x" * 5000, [], [None], [1, 2, 3], [[[]]], {}, {"min": 3}, {"min": -1, "max": 99}, {"a": {"b": {"c": 1}}},
    {"melds": 0, "pair": 0}, {"melds": 4, "pair": 1}, {"pairs": 7}, {"orphans": ""}, {"free": True},
]
REFS = ["changsha", "yongzhou-wangba", "yongzhou-huandiao", "fragments/tiles-108.yaml",
        "fragments/shapes.yaml", "fragments/tiles-136.yaml", "self.yaml", "b.yaml", "c.yaml", "missing.yaml",
        "/etc/passwd", "../x.yaml", "", ".", "fragments", "fragments/", "a\u0000b", "~", "nope"]


def _paths(d: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix]
    if isinstance(d, dict):
        for k, v in d.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(d, list):
        for i, v in enumerate(d):
            out += _paths(v, (*prefix, i))
    return out


def _get(d: Any, path: tuple) -> Any:
    for p in path:
        d = d[p]
    return d


def _set(d: Any, path: tuple, value: Any) -> Any:
    if not path:
        return value
    _get(d, path[:-1])[path[-1]] = value
    return d


def _odd(rng: random.Random, depth: int = 0) -> Any:
    v = rng.choice(ODD_VALUES)
    if depth < 2 and rng.random() < 0.2:
        return [_odd(rng, depth + 1) for _ in range(rng.randrange(4))]
    if depth < 2 and rng.random() < 0.1:
        return {rng.choice(KEYS): _odd(rng, depth + 1) for _ in range(rng.randrange(3))}
    return v


def mutate_data(data: Any, rng: random.Random, rounds: int = 3) -> Any:
    """Apply ``rounds`` structural mutations to (a copy of) plain data."""
    import copy

    d = copy.deepcopy(data)
    for _ in range(rounds):
        paths = _paths(d)
        path = rng.choice(paths)
        kind = rng.randrange(9)
        try:
            target = _get(d, path)
            parent = _get(d, path[:-1]) if path else None
            if kind == 0 and path and isinstance(parent, dict):  # delete a key
                del parent[path[-1]]
            elif kind == 1 and path and isinstance(parent, dict):  # rename (typo) a key
                v = parent.pop(path[-1])
                parent[rng.choice([str(path[-1])[:-1], str(path[-1]) + "s", rng.choice(KEYS), 7, True])] = v
            elif kind == 2:  # replace a value by an odd one
                d = _set(d, path, _odd(rng))
            elif kind == 3 and isinstance(target, list) and target:  # duplicate / drop / shuffle items
                op = rng.randrange(3)
                if op == 0:
                    target.append(copy.deepcopy(rng.choice(target)))
                elif op == 1:
                    target.pop(rng.randrange(len(target)))
                else:
                    rng.shuffle(target)
            elif kind == 4 and isinstance(target, dict):  # add an unknown or known key
                target[rng.choice([*KEYS, "zzz", "patterns", "extends"])] = _odd(rng)
            elif kind == 5 and isinstance(target, int) and not isinstance(target, bool):  # nudge a number
                d = _set(d, path, rng.choice([target + 1, target - 1, -target, target * 1000, 0]))
            elif kind == 6 and isinstance(target, str):  # damage a string
                i = rng.randrange(len(target) + 1)
                junk = rng.choice(["x", "9", "z", " ", "万", "", "m"])
                d = _set(d, path, target[:i] + junk + target[i + 1:])
            elif kind == 7 and isinstance(d, dict):  # extends graph
                refs = [rng.choice(REFS) for _ in range(rng.randrange(4))]
                d["extends"] = refs if rng.random() < 0.7 else (refs[0] if refs else None)
            elif kind == 8:  # wrap in structure
                d = _set(d, path, rng.choice([[target], {"x": target}, [target, target]]))
        except (KeyError, IndexError, TypeError):
            continue
    return d


def dump(data: Any) -> str:
    return yaml.safe_dump(data, allow_unicode=True, sort_keys=False, width=4096)


TEXT_EDITS = [
    lambda t, r: t.replace(": ", ": !!python/tuple ", 1),
    lambda t, r: t.replace(": ", ": !custom ", 1),
    lambda t, r: t.replace(": [", ": !!set [", 1),
    lambda t, r: t.replace(": ", ": !!binary ", 1),
    lambda t, r: "x: &a [1, 2]\ny: &b [*a, *a, *a, *a]\nz: &c [*b, *b, *b, *b]\n" + t,
    lambda t, r: "q: &q [*q]\n" + t,
    lambda t, r: t + "deep: " + "[" * r.randrange(30, 900) + "]" * r.randrange(30, 900) + "\n",
    lambda t, r: t + "big: " + "9" * r.randrange(15, 6000) + "\n",
    lambda t, r: t[: r.randrange(len(t) + 1)],  # truncated
    lambda t, r: t.replace("\n", "\n\u0000", 1),
    lambda t, r: t.replace("  ", "\t", 1),
    lambda t, r: "--- \n" + t + "\n---\nsecond: doc\n",
    lambda t, r: t + "m: &m {a: 1}\nn: {<<: [*m, *m], b: 2}\n",
    lambda t, r: t.replace(":", "", 1),
    lambda t, r: "\ufeff" + t,
    lambda t, r: t.encode("utf-8", "replace").decode("latin-1"),
]


def mutate_text(text: str, rng: random.Random) -> str:
    return rng.choice(TEXT_EDITS)(text, rng)


def mutant(rng: random.Random) -> tuple[str, dict[str, str]]:
    """A mutated ruleset text, plus sibling files (for `extends`), from ``rng`` alone."""
    source = rng.choice([*SHIPPED.values(), *FRAGMENTS.values()])
    data = mutate_data(source, rng, rounds=rng.randrange(1, 5))
    text = dump(data)
    if rng.random() < 0.3:
        text = mutate_text(text, rng)
    siblings: dict[str, str] = {}
    for name in ("b.yaml", "c.yaml"):
        if rng.random() < 0.5:
            other = mutate_data(rng.choice(list(FRAGMENTS.values())), rng, rounds=rng.randrange(0, 3))
            if isinstance(other, dict) and rng.random() < 0.5:
                other["extends"] = [rng.choice(["b.yaml", "c.yaml", "self.yaml", "fragments/shapes.yaml"])]
            siblings[name] = dump(other)
    return text, siblings


def write_mutant(folder: Path, rng: random.Random) -> Path:
    text, siblings = mutant(rng)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "self.yaml").write_text(text, encoding="utf-8", errors="surrogatepass")
    for name, body in siblings.items():
        (folder / name).write_text(body, encoding="utf-8")
    frag = folder / "fragments"
    if not frag.exists():
        frag.symlink_to(ROOT / "rulesets" / "fragments", target_is_directory=True)
    return folder / "self.yaml"
