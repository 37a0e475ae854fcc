"""Ruleset lint: meaning-level warnings beyond schema validity.

:func:`lint_file` loads a valid ruleset and samples hands with the seeded,
generic candidate search of :mod:`mjframework.design.rulecard` (one generator per
pattern, so every pattern's shape, wait, filters and context are covered).
Each sampled hand is scored twice:

- by the real evaluator (what is *scored*, after exclusions, tiers, combine);
- by a *raw* evaluator on a copy of the ruleset with every ``excludes`` and
  ``tier`` cleared and ``combine: sum``, so every pattern that holds on the
  chosen reading is kept (what *matches*, before combining).

From those samples it reports:

``dead-pattern``
    a pattern never among the scored ones (matched but always beaten or
    excluded; or never matched at all by the search);
``useless-exclusion``
    ``A excludes B`` but no sampled hand matches both;
``duplicate-patterns``
    two patterns matching exactly the same sampled hands, no exclusion between;
``inverted-payout``
    every sampled hand matching A matches B, yet A pays less than B;
``no-op-override``
    an ``extends`` override whose value equals the inherited one;
``stale-option``
    an inherited house-rule option whose default no longer describes the
    ruleset (this file changed what the option governs).

Sampling evidence is a search, not a proof: a warning says what was found.
The search is bounded by candidate counts and a seed, never by wall time, so
the same command gives the same findings on any machine, however loaded.
Every warning names the YAML location (in the file that declares the value)
and, where a hand shows it, an ``mj score`` command reproducing it.

A designer acknowledges a warning in the ruleset itself::

    lint:
      accept:
        - {rule: useless-exclusion, pattern: A, other: B, why: "the rules state it"}

An accepted warning is still listed (as accepted, with its reason) but is not
a warning: ``mj lint --strict`` passes. ``pattern`` matches the warning's
first pattern, the optional ``other`` its second; an ``accept`` entry that
matches no warning is itself reported (``stale-accept``), so acknowledgements
don't outlive the problem they describe.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..core.errors import HandError, Location, Problem, RulesetError, format_path
from ..core.tiles import format_tiles, tile_code
from ..evaluate.scoring import Evaluator
from ..rules.loader import check_file
from ..rules.model import Pattern, Ruleset
from ..rules.yamlsource import SourceMap, file_path, load_yaml_file, location_of, to_plain
from .rulecard import Example, _Searcher, declared_example

DEFAULT_SAMPLES = 2500  # candidate hands per ruleset (spread over the patterns)
MIN_PER_PATTERN = 40
MAX_PER_PATTERN = 400
EXTRA_FOR_EXCLUSION = 200  # targeted candidates before calling an exclusion useless
MIN_IMPLIED = 5  # hands matching A needed before "A implies B" is trusted

CHECKS = ("dead-pattern", "useless-exclusion", "duplicate-patterns", "inverted-payout", "no-op-override",
          "stale-option", "stale-accept")
NOTES: tuple[str, ...] = ()  # checks about the evidence, not the ruleset: never fail --strict


@dataclass
class LintWarning:
    check: str
    location: Location | None
    path: tuple[Any, ...]
    message: str
    patterns: list[str] = field(default_factory=list)
    example: str | None = None  # an `mj score ...` command
    example_text: str | None = None  # the hand and its context, readable
    accepted: str | None = None  # the `lint.accept` reason, when the ruleset acknowledges it
    inherited: str | None = None  # the extended file it is about, outside the linted file's folder

    @property
    def counts(self) -> bool:
        """Whether ``mj lint --strict`` fails on it: not accepted, not inherited, not a note."""
        return self.accepted is None and self.inherited is None and self.check not in NOTES

    def __str__(self) -> str:
        head = str(Problem(self.location, self.path, f"{self.check}: {self.message}"))
        if self.accepted is not None:
            head = f"{head}\n    accepted: {self.accepted}"
        elif self.inherited is not None:
            head = f"{head}\n    inherited: in {self.inherited}, which this ruleset extends (not counted)"
        elif self.example:
            head += f"\n    e.g. {self.example_text}\n    check: {self.example}"
        return head

    def to_json(self) -> dict[str, Any]:
        loc = self.location
        return {
            "check": self.check,
            "file": loc.file if loc else None,
            "line": loc.line if loc else None,
            "column": loc.column if loc else None,
            "path": format_path(self.path),
            "message": self.message,
            "patterns": self.patterns,
            "example": self.example,
            "example_text": self.example_text,
            "accepted": self.accepted,
            "inherited": self.inherited,
        }


@dataclass
class _Sample:
    example: Example
    matched: frozenset[str]  # before exclusions / tiers / combine
    scored: tuple[str, ...]  # what the ruleset actually scores


# --------------------------------------------------------------------------
# evaluators


def raw_ruleset(rs: Ruleset) -> Ruleset:
    """A copy of ``rs`` where nothing is combined away: no excludes, no tiers, sum."""
    patterns = tuple(replace(p, excludes=frozenset(), tier=None) for p in rs.patterns)
    return replace(rs, patterns=patterns, scoring=replace(rs.scoring, tiers=(), combine="sum"))


def _score(ev: Evaluator, ex: Example) -> list[str] | None:
    ctx = ex.context()
    try:
        s = ev.score_opening(ex.concealed, ctx) if ex.opening else ev.score(ex.hand(), ctx, ex.wildcard)
    except HandError:
        return None
    return s.pattern_names if s.win else None


class _Sampler:
    def __init__(self, rs: Ruleset, seed: int) -> None:
        self.rs = rs
        self.ev = Evaluator(rs)
        self.raw = Evaluator(raw_ruleset(rs), self.ev.pm)
        self.seed = seed
        self.samples: list[_Sample] = []
        self.tries: dict[str, int] = {}
        self._searchers: dict[str, _Searcher] = {}

    def _searcher(self, p: Pattern) -> _Searcher:
        s = self._searchers.get(p.name)
        if s is None:
            rng = random.Random(f"{self.rs.id}/lint/{p.name}/{self.seed}")
            s = self._searchers[p.name] = _Searcher(self.ev, rng)
        return s

    def run(self, p: Pattern, n: int) -> list[_Sample]:
        """``n`` candidates from ``p``'s generator; the winning ones are kept."""
        s = self._searcher(p)
        out = []
        declared = declared_example(self.ev, p)  # the designer's own example is a sample too
        if declared is not None:
            matched = _score(self.raw, declared)
            if matched:
                declared.names = list(_score(self.ev, declared) or [])
                out.append(_Sample(declared, frozenset(matched), tuple(declared.names)))
        for _ in range(n):
            self.tries[p.name] = self.tries.get(p.name, 0) + 1
            ex = s.candidate(p)
            if ex is None:
                continue
            matched = _score(self.raw, ex)
            if not matched:
                continue
            scored = _score(self.ev, ex) or []
            ex.names = list(scored)
            smp = _Sample(ex, frozenset(matched), tuple(scored))
            out.append(smp)
        self.samples.extend(out)
        return out


# --------------------------------------------------------------------------
# the checks


def _where(rs: Ruleset, p: Pattern, *rest: Any) -> tuple[Location | None, tuple[Any, ...]]:
    path = ("patterns", p.index, *rest)
    return location_of(rs.data, path), file_path(rs.data, path)


def _example(ex: Example, ref: str) -> tuple[str, str]:
    if ex.opening:
        hand = f"dealt {format_tiles(sorted(ex.concealed))}"
    else:
        assert ex.win_tile is not None  # (only an opening hand has none)
        hand = f"{format_tiles(sorted(ex.concealed))} + {tile_code(ex.win_tile)}"
        if ex.melds:
            hand += " melds " + ", ".join(ex.meld_args())
        if ex.wildcard is not None:
            hand += f", wildcard {tile_code(ex.wildcard)}"
    ctx = f"seat {ex.seat}, " + ("dealt tiles" if ex.opening else ex.win_by.replace("_", " ")
                                  + (f" from seat {ex.discarder}" if ex.discarder is not None else ""))
    if ex.flags:
        ctx += ", flags " + "+".join(sorted(ex.flags))
    scored = " + ".join(ex.names) if ex.names else "nothing"
    return ex.command(ref), f"{hand} ({ctx}) scores {scored}"


def _definition(p: Pattern) -> tuple:
    return (p.phase, p.shapes, p.waits, p.counts, p.all_tiles, p.no_tiles, p.pair, p.every_group,
            p.any_group, p.groups, p.groups_count, p.win_wait, p.when, p.times_per, p.times_every,
            p.sets, p.held_ranks, p.fallback, p.counts_to_minimum, p.condition)


def lint_ruleset(rs: Ruleset, ref: str | None = None, *, seed: int = 0,
                 samples: int = DEFAULT_SAMPLES) -> list[LintWarning]:
    """The sampling checks (dead, useless exclusion, duplicate, inverted payout).

    Deterministic: ``samples`` candidates (spread over the patterns) from
    generators seeded by the ruleset id, the pattern and ``seed``.
    """
    ref = ref or rs.id
    sampler = _Sampler(rs, seed)
    pats = list(rs.patterns)
    per = max(MIN_PER_PATTERN, min(MAX_PER_PATTERN, samples // max(1, len(pats))))
    for p in pats:
        sampler.run(p, per)
    by_name = {p.name: p for p in pats}

    # Targeted search for exclusions no sampled hand shows both sides of.
    def both(a: str, b: str) -> list[_Sample]:
        return [s for s in sampler.samples if a in s.matched and b in s.matched]

    for a in pats:
        for ex in sorted(a.excludes):
            if ex in by_name and not both(a.name, ex) and not _disjoint_when(a, by_name[ex]):
                sampler.run(a, EXTRA_FOR_EXCLUSION)
                sampler.run(by_name[ex], EXTRA_FOR_EXCLUSION)

    smp = sampler.samples
    matches: dict[str, list[int]] = {p.name: [] for p in pats}
    scored: dict[str, int] = {p.name: 0 for p in pats}
    for i, s in enumerate(smp):
        for n in s.matched:
            if n in matches:
                matches[n].append(i)
        for n in s.scored:
            if n in scored:
                scored[n] += 1
    out: list[LintWarning] = []

    # 1. dead patterns
    for p in pats:
        if scored[p.name]:
            continue
        loc, path = _where(rs, p)
        if not matches[p.name]:
            out.append(LintWarning(
                "dead-pattern", loc, path,
                f"{p.name!r}: the search found no hand matching its definition "
                f"({sampler.tries.get(p.name, 0)} candidates); it may never be scored",
                [p.name]))
            continue
        first = smp[matches[p.name][0]]
        beaters = sorted({q for i in matches[p.name] for q in smp[i].scored},
                         key=lambda n: by_name[n].index if n in by_name else 0)
        excluders = sorted({q.name for q in pats if p.name in q.excludes
                            and any(q.name in smp[i].matched for i in matches[p.name])})
        why = []
        if excluders:
            why.append("excluded by " + ", ".join(excluders))
        if beaters:
            why.append("beaten (tiers / combine) by " + ", ".join(beaters[:5])
                       + (f" and {len(beaters) - 5} more" if len(beaters) > 5 else ""))
        cmd, text = _example(first.example, ref)
        out.append(LintWarning(
            "dead-pattern", loc, path,
            f"{p.name!r} is never scored: {len(matches[p.name])} sampled hands match it, "
            f"none scores it ({'; '.join(why) or 'no reading pays it'})",
            [p.name], cmd, text))

    # 2. useless exclusions
    for a in pats:
        raw_ex = a.excludes
        for j, b in enumerate(_excludes_list(rs, a)):
            if isinstance(b, dict):  # `{pattern: X, times|shared}`: a partial exclusion
                b = b.get("pattern")
            if not isinstance(b, str) or b not in raw_ex or b not in by_name:
                continue
            if both(a.name, b):
                continue
            loc, path = _where(rs, a, "excludes", j)
            never = _disjoint_when(a, by_name[b])
            out.append(LintWarning(
                "useless-exclusion", loc, path,
                f"{a.name!r} excludes {b!r}, but no sampled hand matches both "
                f"({len(matches[a.name])} match {a.name!r}, {len(matches[b])} match {b!r})"
                + (f"; they can never both apply: {never}" if never else ""),
                [a.name, b]))

    # 3. duplicates (same definition, or the same sampled hands) with no exclusion between
    reported: set[frozenset[str]] = set()
    for i, a in enumerate(pats):
        for b in pats[i + 1:]:
            if a.name in b.excludes or b.name in a.excludes or a.phase != b.phase:
                continue
            same_def = _definition(a) == _definition(b)
            same_hands = bool(matches[a.name]) and matches[a.name] == matches[b.name]
            if not (same_def or same_hands):
                continue
            reported.add(frozenset((a.name, b.name)))
            loc, path = _where(rs, b)
            aloc, apath = _where(rs, a)
            how = ("the same definition" if same_def
                   else f"exactly the same {len(matches[a.name])} sampled hands")
            dup_cmd: str | None = None
            dup_text: str | None = None
            if matches[a.name]:
                dup_cmd, dup_text = _example(smp[matches[a.name][0]].example, ref)
            out.append(LintWarning(
                "duplicate-patterns", loc, path,
                f"{b.name!r} and {a.name!r} ({aloc}: {format_path(apath)}) match {how}, "
                "and neither excludes the other", [b.name, a.name], dup_cmd, dup_text))

    # 4. inverted payouts (between base wins, or between bonuses: a bonus adds
    # to a base win, so a bonus paying more or less than a base is normal)
    for a in pats:
        ma = set(matches[a.name])
        if len(ma) < MIN_IMPLIED:
            continue
        for b in pats:
            if b is a or b.phase != a.phase or a.points >= b.points:
                continue
            if a.phase == "win" and a.makes_win != b.makes_win:
                continue
            if frozenset((a.name, b.name)) in reported:
                continue
            mb = set(matches[b.name])
            if ma <= mb and ma != mb:
                loc, path = _where(rs, a, "points")
                cmd, text = _example(smp[min(ma)].example, ref)
                out.append(LintWarning(
                    "inverted-payout", loc, path,
                    f"{a.name!r} pays {a.points} but every sampled hand matching it ({len(ma)}) also "
                    f"matches {b.name!r}, which pays {b.points}", [a.name, b.name], cmd, text))
    return out


def _disjoint_when(a: Pattern, b: Pattern) -> str | None:
    """Why the two patterns' ``when`` can never both hold, if they can't."""
    wa, wb = a.when, b.when
    for key in ("win_tile", "seat", "discarder"):
        va, vb = getattr(wa, key), getattr(wb, key)
        if va is not None and vb is not None and va != vb:
            return f"when.{key} {va} vs {vb}"
    if wa.win_by is not None and wb.win_by is not None and not wa.win_by & wb.win_by:
        return f"when.win_by {'/'.join(sorted(wa.win_by))} vs {'/'.join(sorted(wb.win_by))}"
    clash = (wa.flags & wb.not_flags) | (wb.flags & wa.not_flags)
    if clash:
        return f"flag {'+'.join(sorted(clash))} required by one, forbidden by the other"
    if a.phase != b.phase:
        return f"phase {a.phase} vs {b.phase}"
    return None


def _excludes_list(rs: Ruleset, p: Pattern) -> list[Any]:
    """``excludes`` as written (for item locations): names, or ``{pattern: X, …}`` mappings."""
    raw = rs.data.get("patterns", [])
    item = raw[p.index] if isinstance(raw, list) and p.index < len(raw) else None
    ex = item.get("excludes") if isinstance(item, dict) else None
    return list(ex) if isinstance(ex, list) else sorted(p.excludes)


# --------------------------------------------------------------------------
# no-op overrides


def _base_data(path: Path, own: Any) -> tuple[Any, list[Problem]]:
    """What ``path`` extends, merged, as the loader merges it.

    Uses the loader's own chain loading (``ruleset.load_chain`` / ``merge_data``):
    the loader has no public "load what this file extends" yet.
    """
    from ..rules import loader as rs_mod

    ext = own.get("extends")
    refs = [ext] if isinstance(ext, str) else ext if isinstance(ext, list) else []
    problems: list[Problem] = []
    merged: Any = SourceMap()
    for ref in refs:
        if not isinstance(ref, str):
            continue
        try:
            target = rs_mod.resolve_ruleset_ref(ref, path.parent)
        except FileNotFoundError:
            continue
        base = rs_mod.load_chain(target, problems, (path.resolve(),))
        if isinstance(base, dict):
            merged = rs_mod.merge_data(merged, base)
    return merged, problems


def lint_overrides(path: str | Path) -> list[LintWarning]:
    """Keys of the file that set exactly what it already inherits through ``extends``."""
    p = Path(path)
    own = load_yaml_file(p)
    if not isinstance(own, dict) or "extends" not in own:
        return []
    base, _ = _base_data(p, own)
    out: list[LintWarning] = []

    def where(base_path: tuple) -> str:
        loc = location_of(base, base_path)
        return f" (inherited from {loc})" if loc else ""

    def walk(o: Any, b: Any, path: tuple) -> None:
        for k, v in o.items():
            if path == () and k in ("extends", "id", "fragment", "format"):
                continue
            if k not in b or v is None:
                continue
            bv = b[k]
            kp = (*path, k)
            if path == () and k == "patterns" and isinstance(v, list) and isinstance(bv, list):
                inherited = {item.get("name"): i for i, item in enumerate(bv) if isinstance(item, dict)}
                for i, item in enumerate(v):
                    name = item.get("name") if isinstance(item, dict) else None
                    if name in inherited and to_plain(item) == to_plain(bv[inherited[name]]):
                        out.append(LintWarning(
                            "no-op-override", location_of(own, ("patterns", i)), ("patterns", i),
                            f"pattern {name!r} overrides the inherited one with an identical definition"
                            + where(("patterns", inherited[name])), [str(name)]))
                continue
            if isinstance(v, dict) and isinstance(bv, dict) and to_plain(v) != to_plain(bv):
                walk(v, bv, kp)
                continue
            if to_plain(v) == to_plain(bv):
                out.append(LintWarning(
                    "no-op-override", location_of(own, kp, key=True), kp,
                    f"`{format_path(kp)}` is set to the value it already inherits" + where(kp)))

    walk(own, base, ())
    return out


# --------------------------------------------------------------------------


def stale_options(rs: Ruleset) -> list[LintWarning]:
    """Inherited options whose default this ruleset no longer has."""
    from ..rules import options as option_mod
    from ..rules.loader import merge_data

    problems: list[Problem] = []
    option_mod.check_defaults(rs.data, rs.option_decls, merge_data, problems)  # type: ignore[arg-type]
    return [LintWarning("stale-option", q.location, q.path, q.message, [str(q.path[1])])
            for q in problems if len(q.path) > 1]


def apply_accepts(rs: Ruleset, warnings: list[LintWarning]) -> list[LintWarning]:
    """Mark the warnings the ruleset's ``lint.accept`` acknowledges; report stale entries."""
    lint = rs.data.get("lint") if isinstance(rs.data, dict) else None
    accepts = lint.get("accept") if isinstance(lint, dict) else None
    if not isinstance(accepts, list):
        return warnings
    out = list(warnings)
    for i, entry in enumerate(accepts):
        if not isinstance(entry, dict):
            continue
        rule, pat, other = entry.get("rule"), entry.get("pattern"), entry.get("other")
        hits = [w for w in out if w.check == rule and w.accepted is None
                and (pat is None or (w.patterns[:1] == [pat]))
                and (other is None or (w.patterns[1:2] == [other]))]
        for w in hits:
            w.accepted = str(entry.get("why", "")).strip() or "accepted"
        if not hits:
            path = ("lint", "accept", i)
            what = " ".join(f"{k} {v}" for k, v in (("pattern", pat), ("other", other)) if v is not None)
            out.append(LintWarning(
                "stale-accept", location_of(rs.data, path), file_path(rs.data, path),
                f"accepts {rule}{' for ' + what if what else ''}, but lint finds no such warning; "
                "remove the entry", [p for p in (pat, other) if p]))
    return out


def mark_inherited(path: Path, warnings: list[LintWarning]) -> None:
    """Mark the warnings located in a file outside ``path``'s folder tree: a base ruleset the
    file extends (a shipped one, another package's). They are the base's to fix or accept
    (``mj lint BASE``) and are listed, but don't fail ``--strict`` for this file: a variant
    made by ``mj new-variant`` from any base passes its own CI. A warning about this file's
    own declarations, its own fragments beside it, or without a location still counts."""
    own = path.resolve().parent
    for w in warnings:
        if w.location is None or w.accepted is not None:
            continue
        try:
            Path(w.location.file).resolve().relative_to(own)
        except ValueError:
            w.inherited = w.location.file
        except OSError:
            continue


def lint_file(ref: str | Path, *, seed: int = 0, samples: int = DEFAULT_SAMPLES) -> list[LintWarning]:
    """Every lint warning for a ruleset file (or built-in id). Invalid rulesets raise."""
    from ..rules.loader import resolve_ruleset_ref

    ref_s = str(ref)
    try:
        path = Path(ref_s) if Path(ref_s).is_file() else resolve_ruleset_ref(ref_s)
    except FileNotFoundError:
        raise RulesetError([Problem(None, (), f"no ruleset {ref_s!r}")]) from None
    rs, problems = check_file(path)
    if problems:
        raise RulesetError(problems)
    if rs is None:
        raise RulesetError([Problem(None, (), f"{path}: a fragment, not a playable ruleset")])
    out = lint_overrides(path)
    out += lint_ruleset(rs, ref_s, seed=seed, samples=samples)
    out += stale_options(rs)
    out = apply_accepts(rs, out)
    mark_inherited(path, out)
    return sorted(out, key=lambda w: (w.location.file, w.location.line, w.location.column, w.check)
                  if w.location else ("", 0, 0, w.check))


__all__ = ["CHECKS", "NOTES", "LintWarning", "apply_accepts", "lint_file", "lint_overrides", "lint_ruleset",
           "mark_inherited",
           "raw_ruleset"]
