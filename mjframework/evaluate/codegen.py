"""Python source generated per ruleset: the pattern judge of one compiled ruleset as straight-line code.

:class:`~.compiler.CompiledRuleset` holds a ruleset's requirements as bit masks and tables
(:class:`~.bulkjudge.BulkJudge`); the interpreted judge (``Evaluator._judge_reference``)
walks them, testing per reading which family of requirement is live, looping over
measure tables, exclusion masks and tiers. The profile of scoring says that walk — not
any one test — is the cost (CPython's per-step cost over dozens of small calls a hand). So,
as template engines and ``attrs`` do, this module writes the walk out once per ruleset:

* ``holding(m, alive)``: each family the ruleset uses, in the interpreted order, with
  its masks and value tables as literals (a family no pattern uses is not written at all;
  a measure computed in one pass with others is read from the reading's cache directly);
* ``group_families(m, alive)``: the one pass over the reading's groups for every family
  that reads groups (tile, every/any-group and pair filters, the group measures, the group
  filters' counts — a byte per filter in each group's remembered facts, so one addition a
  group counts them all — and the multisets of sets the combination tables are keyed by);
* ``judge(reading, alive, facts, wildcard)``: the reading's measures, ``holding``, the
  win mask, the exclusions unrolled over the patterns that exclude something (ranked or
  not, as the ruleset says), then the tiers and ``combine`` — remembered per set of
  patterns kept when no pattern's count depends on the reading (no ``times``, no set
  combination counted once, no partial exclusion); else, where the count reads only some
  values of the reading (each ``times`` measure or count of groups, the multisets of sets
  combined once), remembered per set of patterns and those values (``count_read``); else
  (a partial exclusion reads which groups) counted by the interpreted ``_count`` every
  time; ``win.require`` last;
* ``judge_keyed(...)``: the same with the result's order key (``Evaluator.order`` and
  ``tie_key``, specialised), which is what the scorer compares readings by;
* ``best_plain(full, hand, masks, facts, wildcard)``: the whole search of a hand with no
  wildcard (``Evaluator._best_plain``, its reference) unrolled over the ruleset's shapes:
  per shape, its cheap pre-check written for its kind (a pairs shape's tile count and odd
  counts, an orphans shape's other kinds as literal indices, a knitted shape's singles),
  its reader called directly (no dispatch on the shape's kind, and an orphans or knitted
  shape's readings found once, not once for the pre-check and again to read them), and
  ``judge_keyed`` on each reading; a standard shape is read in the function itself (the
  tile-count test, the per-block tables through ``natural_groups``, the melds' groups), its
  readings' tiles counted and the wind key made once a hand (a hand with no wildcard: every
  reading reads the same tiles), each reading judged from them by ``judge_counted``.

Safety: the source holds numbers, masks and value tables only. Every string that comes
from a ruleset (a pattern's name in a comment, a measure's name as a key) is written with
``repr()``; objects (patterns, filters, conditions, bound methods) are handed to the
module in its namespace, never written as source. ``tests/test_codegen.py`` generates
modules for rulesets whose names try to break out of a string or a comment.

Caching: the code object is kept in memory per (generator version, source digest) — the
source is a function of the compiled ruleset alone, so equal sources share one
``compile()``. Not on disk: generating and compiling a ruleset's module takes about a
millisecond (``mj compile RULESET --source`` prints it), less than reading a file would
save. ``Evaluator(ruleset, generated=False)`` scores with the interpreted judge, the
reference ``tests/test_codegen.py`` compares the generated one with.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from operator import methodcaller
from types import CodeType
from typing import TYPE_CHECKING, Any

from ..core.tiles import HONOR_BASE, NUM_KINDS
from .bulkjudge import BulkJudge, _union
from .patterns import _PACKED, TILE_MEASURES, Measures, condition_holds, group_win_wait, wind_key
from .reading_groups import _meld_group
from .readings import READERS, Group, Reading, natural_groups, pairs_readings, standard_readings
from .waits import straight_kinds_held
from .wintable import need_pairs

if TYPE_CHECKING:
    from ..rules.model import Pattern, Shape
    from .compiler import CompiledRuleset
    from .scoring import Evaluator

# Bumped whenever the generated source changes shape (part of the cache key).
GENERATOR_VERSION = 6

# Hand-level measures read straight from the hand's facts (as Measures._m_<name> does).
_FROM_FACTS = {"wildcards": "m.facts.wildcards", "wildcards_held": "m.facts.wildcards_held",
               "flowers": "m.facts.flowers"}

# Tile measures (Measures._tile_measures) as one expression each over the reading's counts
# per kind `c` (NUM_KINDS of them); rank_span has none (a ruleset reading it computes them all).
_SUITS = " + ".join(f"(c[{b}:{b + 9}] != Z9)" for b in range(0, HONOR_BASE, 9))
_TILE_EXPR = {
    "honors": f"sum(c[{HONOR_BASE}:])",
    "distinct_honors": f"{NUM_KINDS - HONOR_BASE} - c[{HONOR_BASE}:].count(0)",
    "distinct_kinds": f"{NUM_KINDS} - c.count(0)",
    "suits": _SUITS,
    "missing_suits": f"m.facts.suits_in_set - ({_SUITS})",
    "sets_of_three": "bytes(c).translate(AT_LEAST_3).count(1)",
    "sets_of_four": "bytes(c).translate(AT_LEAST_4).count(1)",
}

_CODE: dict[str, CodeType] = {}  # (version, source digest) -> compiled module
# Per set of patterns a reading keeps: those left after the tiers, whether counting them reads
# the reading, and (if not) the result, (points, [(pattern, times)]) or None, with its key;
# if it does, what the count reads of the reading (see _reads; None: more than those values).
_Plan = tuple[list[Any], bool, tuple[int, list[Any]] | None, tuple[Any, int, list[Any]] | None,
              tuple[Callable[[Measures], Any], ...] | None]
_Counted = tuple[tuple[int, list[Any]] | None, tuple[Any, int, list[Any]] | None]


def _reads(kept: list[Pattern], once: bool) -> tuple[Callable[[Measures], Any], ...] | None:
    """Every value of a reading that counting ``kept`` (``CompiledRuleset._count``) reads, as
    functions of its measures: each ``times`` pattern's measure or count of groups, and per kind
    of set combined once, the reading's multiset of such sets (all the accounting reads,
    ``BulkJudge.account_combinations``). None when the count reads more (a partial exclusion
    reads which groups each pattern counts)."""
    if any(p.partial_excludes for p in kept):
        return None
    reads: list[Callable[[Measures], Any]] = []
    kinds: list[str] = []
    for p in kept:
        if p.sets is not None and once:
            if p.sets.kind not in kinds:
                kinds.append(p.sets.kind)
                of = ("seq",) if p.sets.kind == "seq" else ("triplet", "kong")
                reads.append(methodcaller("sets_key", p.sets.kind, of))
        elif p.times_per == "groups" and p.groups is not None:
            reads.append(methodcaller("count_groups", p.groups))
        elif p.times_per is not None:
            reads.append(methodcaller("get", p.times_per))
    return tuple(reads)


def _hex(n: int) -> str:
    return hex(n) if n >= 0 else f"-{hex(-n)}"


def _names(bulk: BulkJudge, mask: int) -> str:
    """The names of a mask's patterns, for a comment (each as repr(): data, never code)."""
    return ", ".join(repr(bulk.patterns[i].name) for i in range(len(bulk.patterns)) if mask >> i & 1)


def _comment(text: str) -> str:
    """A comment line's text: repr() already escapes line breaks; anything else a tokenizer
    could end a comment at is escaped too (defence in depth)."""
    return "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in text)


def source(ev: CompiledRuleset) -> str:
    """The generated module of a compiled ruleset, as text (``mj compile --source``); it reads
    the compiled ruleset only (the objects it names are bound by :class:`Generated`)."""
    bulk = ev._bulk
    sc = ev.ruleset.scoring
    out: list[str] = [
        f"# Generated by mjframework.evaluate.codegen (version {GENERATOR_VERSION}) for ruleset "
        f"{_comment(repr(ev.ruleset.id))}.",
        f"# {len(bulk.patterns)} win pattern(s), one bit each (rank order: higher points first).",
        "# Names below are repr() data in comments; the objects come from the namespace.",
        "",
    ]
    for i, p in enumerate(bulk.patterns):
        out.append(f"# bit {i}: {_comment(repr(p.name))}")
    out += ["", "", "def holding(m, alive):", "    cache = m._cache"]
    # (OR-ed here: two measures of one pattern share its bit)
    tile_measures = group_measures = 0
    for name, mask, _keep, _bounded in bulk.cheap_tables:
        if name in TILE_MEASURES:
            tile_measures |= mask
        elif name in _PACKED:
            group_measures |= mask
    if tile_measures:
        out += [f"    if alive & {_hex(tile_measures)}:"]
        used = sorted({name for name, _m, _k, _b in bulk.cheap_tables if name in TILE_MEASURES})
        if all(name in _TILE_EXPR for name in used):
            # only the measures the ruleset reads, each one expression (Measures._tile_measures'
            # values: tests/test_codegen.py compares them), kept in the reading's cache
            out.append("        c = m.counts")
            out += [f"        cache[{name!r}] = {_TILE_EXPR[name]}" for name in used]
        else:
            out.append("        m._tile_measures()")
    fam = _pass_mask(bulk)
    if fam:
        out += [f"    if alive & {_hex(fam)}:", "        alive = group_families(m, alive)"]
    for k, (name, mask, keep, _bounded) in enumerate(bulk.cheap_tables):
        if name in _IN_THE_PASS:  # (judged by group_families, from its locals)
            continue
        out.append(f"    if alive & {_hex(mask)}:  # {_comment(repr(name))}: {_comment(_names(bulk, mask))}")
        if name in TILE_MEASURES:
            # filled by _tile_measures above (it ran: alive only shrinks)
            out.append(f"        v = cache[{name!r}]")
        elif name in _FROM_FACTS:
            out.append(f"        v = {_FROM_FACTS[name]}")
        else:
            out += [f"        v = cache.get({name!r})", "        if v is None:",
                    f"            v = m.get({name!r})"]
        table = "(" + ", ".join(_hex(x) for x in keep) + ",)"
        out.append(f"        alive &= {table}[v] if 0 <= v < {len(keep)} else KEEP_FOR[{k}](v)")
    for bit, ranks in bulk.held_ranks:
        out += [f"    if alive & {_hex(bit)} and not m.held_ranks_are({tuple(int(r) for r in ranks)!r}):",
                f"        alive &= {_hex(~bit)}"]
    for j, (bit, _cond) in enumerate(bulk.conditions):
        out += [f"    if alive & {_hex(bit)} and not condition_holds(CONDITIONS[{j}], m):",
                f"        alive &= {_hex(~bit)}"]
    for k, (name, bounded) in enumerate(bulk.costly):
        out += [f"    if alive & {_hex(bounded.mask)}:  # {_comment(repr(name))}",
                f"        alive &= COSTLY_KEEP_FOR[{k}](m.get({name!r}))"]
    out += ["    return alive", ""]
    out += _families_source(bulk)
    out += _key_source(ev, sc.ties)
    out += _judge_source(ev, "judge", keyed=False)
    out += _judge_source(ev, "judge_keyed", keyed=True)
    if any(shape.kind == "standard" for shape, _p in ev._by_shape):
        out += _judge_source(ev, "judge_counted", keyed=True, counted=True)
    out += _plain_source(ev)
    return "\n".join(out) + "\n"


# The measures whose bounds the group pass judges itself (from its locals, then kept in the
# reading's cache for whatever reads them later): those counted over the groups.
_IN_THE_PASS = frozenset((*_PACKED, "concealed_triplets"))


def _hidden_mask(bulk: BulkJudge) -> int:
    """The patterns bounding ``concealed_triplets`` (counted by the group pass)."""
    return _union(mask for name, mask, _k, _b in bulk.cheap_tables if name == "concealed_triplets")


def _pass_mask(bulk: BulkJudge) -> int:
    """The patterns the group pass judges something of: the group families, the measures
    counted over the groups, where the winning tile sits."""
    return bulk.group_family_mask | bulk.group_measure_mask | _hidden_mask(bulk) | bulk.win_wait_mask


def _writes_families(bulk: BulkJudge) -> bool:
    """Is ``group_families`` written out for this ruleset? Where some pattern reads the groups
    (else ``holding`` never calls it)."""
    return bool(_pass_mask(bulk))


def _families_source(bulk: BulkJudge) -> list[str]:
    """``group_families``: ``BulkJudge._group_families`` with only the families the ruleset
    uses (tile, every-group, any-group and pair filters, the group measures, the groups'
    counts per filter, the set combinations), as literals. The group filters' counts come
    packed, a byte per filter (``_Tables.group_facts``' last entry): one addition a group."""
    if not _writes_families(bulk):
        return []
    tile, every, anyg, pair = bulk.tile_mask, bulk.every_group_mask, bulk.any_group_mask, bulk.pair_mask
    counting = bulk.group_count_mask
    sets = [(k, kind, mask) for k, (kind, _kinds, mask, _combos, _table) in enumerate(bulk.sets)]
    out = ["", "def group_families(m, alive):",
           "    \"\"\"As BulkJudge._group_families, with the families this ruleset uses only.\"\"\"",
           "    tables = wind_tables(m) or FREE" if bulk._windy else "    tables = FREE",
           "    memo = tables.groups",
           "    packed = dead = anyhit = pairs = pair_dead = counted = 0",
           f"    every = {_hex(every)}"]
    out += [f"    s{k} = []" for k, _kind, _mask in sets]
    # the patterns bounding concealed triplets: counted here too, as the filters' counts are
    hidden = _hidden_mask(bulk)
    waits = bulk.win_wait_mask
    if waits:  # where the winning tile sits, per group (remembered per group and winning tile)
        out += [f"    w = m.facts.win_tile if alive & {_hex(waits)} else None",
                "    wild = m.facts.win_tile_wild", "    hit = 0"]
    won_matters = counting | hidden
    if won_matters:  # the won triplet (counted exposed) matters to these counts only
        out += [f"    won = m.won_triplet() if alive & {_hex(won_matters)} else None", "    hidden = 0",
                "    for i, g in enumerate(m._groups()):",
                "        f = memo.get((g, i == won))",
                "        if f is None:",
                "            f = tables.group_facts(BULK, g, i == won)",
                "        counted += f[8]"]
        if hidden:
            out.append("        hidden += f[9]")
    else:
        out += ["    for g in m._groups():",
                "        f = memo.get((g, False))  # (no pattern counts groups: no won triplet)",
                "        if f is None:",
                "            f = tables.group_facts(BULK, g, False)"]
    if bulk.group_measure_mask:
        out.append("        packed += f[7]")
    if waits:
        out += ["        if w is not None:", "            h = WAITS.get((g, w, wild))",
                "            if h is None:", "                h = win_wait_of(g, w, wild)",
                "            hit |= h"]
    if tile:
        out.append("        dead |= f[0]")
    if every:
        out.append("        every &= f[1]")
    if anyg:
        out.append("        anyhit |= f[2]")
    if pair:
        out += ["        if f[4] >= 0:", "            pairs += 1", "            pair_dead = f[4]"]
    for n, (k, _kind, _mask) in enumerate(sets):
        out += [f"        {'if' if n == 0 else 'elif'} f[5] == {k}:", f"            s{k}.append(f[6])"]
    out += _pass_measures(bulk, hidden, waits)
    out += _pass_filters(bulk, sets)
    return [*out, "    return alive", ""]


def _pass_measures(bulk: BulkJudge, hidden: int, waits: int) -> list[str]:
    """``group_families``' measures counted over the groups (the group measures, concealed
    triplets) kept in the reading's cache and their bounds applied from its locals, and
    where the winning tile sits."""
    out: list[str] = []
    tables = {name: (k, mask, keep) for k, (name, mask, keep, _b) in enumerate(bulk.cheap_tables)}

    def judged(name: str, indent: str) -> list[str]:
        """``v``'s bounds (measure ``name``) applied, as ``holding`` applies a measure's."""
        if name not in tables:
            return []
        k, mask, keep = tables[name]
        table = "(" + ", ".join(_hex(x) for x in keep) + ",)"
        return [f"{indent}if alive & {_hex(mask)}:  # {_comment(repr(name))}: {_comment(_names(bulk, mask))}",
                f"{indent}    alive &= {table}[v] if v < {len(keep)} else KEEP_FOR[{k}](v)"]
    if bulk.group_measure_mask:
        out += [f"    if alive & {_hex(bulk.group_measure_mask)}:", "        cache = m._cache"]
        for k, name in enumerate(_PACKED):
            out += [f"        v = cache[{name!r}] = packed >> {8 * k} & 255", *judged(name, "        ")]
    if hidden:  # (counted when these patterns were alive on entry: they are now)
        k, _mask, keep = tables["concealed_triplets"]
        out += [f"    if alive & {_hex(hidden)}:  # 'concealed_triplets': {_comment(_names(bulk, hidden))}",
                "        v = m._cache['concealed_triplets'] = hidden",
                "        alive &= (" + ", ".join(_hex(x) for x in keep) + f",)[v] if v < {len(keep)} "
                f"else KEEP_FOR[{k}](v)"]
    if waits:
        out += [f"    if alive & {_hex(waits)}:", f"        alive &= ~({_hex(waits)} & ~hit)"]
    return out


def _pass_filters(bulk: BulkJudge, sets: list[tuple[int, str, int]]) -> list[str]:
    """``group_families``' tile, every/any-group and pair filters, the group filters' counts
    and the set combinations, applied after the pass."""
    tile, every, anyg, pair = bulk.tile_mask, bulk.every_group_mask, bulk.any_group_mask, bulk.pair_mask
    counting = bulk.group_count_mask
    out: list[str] = []
    gone = []
    if tile:
        gone.append(f"(dead & {_hex(tile)})")
    if every:
        gone.append(f"({_hex(every)} & ~every)")
    if anyg:
        gone.append(f"({_hex(anyg)} & ~anyhit)")
    if pair:
        gone.append(f"(pair_dead & {_hex(pair)} if pairs == 1 else 0)")
    if gone:
        out.append(f"    alive &= ~({' | '.join(gone)})")
    if counting:
        out += [f"    if alive & {_hex(counting)}:", "        gc = m._group_cache"]
        for j, bounded in enumerate(bulk.group_count_tables):
            out.append(f"        n = counted >> {8 * j} & 255")
            # count_groups(f) of each pattern's filter equal to this one, for `times` later
            out += [f"        gc[FILTER_IDS[{j}][{i}]] = n" for i in range(len(bulk.group_filter_ids[j]))]
            if bounded.mask:
                table = "(" + ", ".join(_hex(x) for x in bounded.keep) + ",)"
                out += [f"        if alive & {_hex(bounded.mask)}:",
                        f"            alive &= {table}[n] if n < {len(bounded.keep)} "
                        f"else COUNT_KEEP_FOR[{j}](n)"]
    for k, kind, mask in sets:
        out += [f"    if alive & {_hex(mask)}:  # sets of {_comment(repr(kind))}",
                f"        key = m._set_keys[{kind!r}] = tuple(sorted(s{k}))",
                f"        keep = SET_TABLES[{k}].get(key)",
                "        if keep is None:",
                f"            keep = SET_TABLES[{k}][key] = SETS_KEEP(m, {kind!r}, SET_COMBOS[{k}])",
                "        alive &= keep"]
    return out


def _plain_source(ev: CompiledRuleset) -> list[str]:
    """``best_plain``: ``Evaluator._best_plain`` unrolled over the ruleset's shapes (in
    ``_by_shape`` order, which is the order readings are compared in: the first best wins)."""
    out = ["", "def best_plain(full, hand, masks, facts, wildcard):",
           "    \"\"\"The best (key, reading, picked, points) of a hand with no wildcard, or None;",
           "    masks[i]: the patterns to judge on shape i (0: not judged). As Evaluator._best_plain.\"\"\"",
           "    best = None",
           "    melds = hand.melds",
           "    c = full.counts"]
    for i, (shape, _patterns) in enumerate(ev._by_shape):
        kind = shape.kind
        out += ["", f"    # shape {i}: {_comment(repr(shape.name))} ({_comment(repr(kind))})",
                f"    alive = masks[{i}]"]
        if kind == "standard":
            out += _standard_source(i, shape)
            continue
        elif kind == "pairs":  # waits.rest_holds on a hand with no wildcard
            out += [f"    if alive and not melds and sum(c) == {2 * shape.pairs} and need_pairs(c) <= 0:",
                    f"        found = pairs_readings(full, melds, SHAPES[{i}], KINDS, None, False)"]
        elif kind == "orphans":  # waits.shape_possible: no tile of another kind, all concealed
            others = [k for k in range(NUM_KINDS) if k not in shape.orphans]
            test = " or ".join(f"c[{k}]" for k in others) or "False"
            out += [f"    if alive and not melds and not ({test}):",
                    f"        found = READ[{i}](full, melds, SHAPES[{i}], KINDS)"]
        elif kind == "knitted":  # waits.shape_possible: all singles, all concealed
            out += ["    if alive and not melds and max(c) <= 1:",
                    f"        found = READ[{i}](full, melds, SHAPES[{i}], KINDS)"]
        elif kind == "knitted_straight":  # waits.shape_possible's first test, one translation
            out += ["    if alive and straight_kinds_held(bytes(c)) == 9 and "
                    f"could_be(full, hand, SHAPES[{i}]):",
                    f"        found = READ[{i}](full, melds, SHAPES[{i}], KINDS)"]
        else:  # free: the evaluator's own pre-check
            out += [f"    if alive and could_be(full, hand, SHAPES[{i}]):",
                    f"        found = READ[{i}](full, melds, SHAPES[{i}], KINDS)"]
        out += ["        for reading in found:",
                "            keyed = judge_keyed(reading, alive, facts, wildcard)",
                "            if keyed is not None and (best is None or keyed[0] < best[0]):",
                "                best = (keyed[0], reading, keyed[2], keyed[1])"]
    return [*out, "    return best", ""]


def _standard_source(i: int, shape: Shape) -> list[str]:
    """``best_plain``'s standard shape ``i``: ``standard_readings`` of a hand with no wildcard
    (its tile count test, then the per-block tables, ``natural_groups``), its readings' tiles
    counted once (every reading reads the same tiles: the concealed counts and the melds'
    groups) and each reading judged from those counts (``judge_counted``). Where a tile is
    read as a stand-in (the wildcard's kind held as natural tiles), ``standard_readings``."""
    judged = ["            keyed = judge_keyed(reading, alive, facts, wildcard)",
              "            if keyed is not None and (best is None or keyed[0] < best[0]):",
              "                best = (keyed[0], reading, keyed[2], keyed[1])"]
    return [
        "    if alive:",
        f"        need = {shape.melds} - len(melds)",
        f"        if need >= 0 and sum(c) == 3 * need + {2 * shape.pair}:",
        "            if full.wildcard is not None and c[full.wildcard]:",
        "                groups_of = None",
        "            else:",
        f"                groups_of = natural_groups(c, need, {shape.pair})",
        "            if groups_of is None:",
        f"                for reading in standard_readings(full, melds, SHAPES[{i}], KINDS, None, False):",
        *("        " + line for line in judged),
        "            elif groups_of:",
        "                exposed = tuple([meld_group(x) for x in melds]) if melds else ()",
        "                counts = [*c]",
        "                for g in exposed:",
        "                    for t in g.tiles:",
        "                        counts[t] += 1",
        "                winds = wind_key(facts.winds)",
        "                for groups in groups_of:",
        f"                    reading = Reading(SHAPES[{i}], exposed + groups)",
        "                    keyed = judge_counted(reading, counts, winds, alive, facts, wildcard)",
        "                    if keyed is not None and (best is None or keyed[0] < best[0]):",
        "                        best = (keyed[0], reading, keyed[2], keyed[1])"]


def _judge_source(ev: CompiledRuleset, name: str, keyed: bool, counted: bool = False) -> list[str]:
    """``judge`` (keyed False) or ``judge_keyed``: the same walk, the second answering the
    result's order key too (remembered in the plan where the result is); ``counted``: the
    reading's tiles come counted, with the hand's wind key (``judge_counted``: the readings of
    a hand with no wildcard read the same tiles, counted once a hand by ``best_plain``)."""
    bulk = ev._bulk
    ranked = ev.ruleset.scoring.exclusions == "ranked"
    table = bulk.excludes_ranked if ranked else bulk.excludes
    excluders = [(i, x) for i, x in enumerate(table) if x]
    doc = ("((order, tie key), points, [(pattern, times)]) or None" if keyed
           else "(points, [(pattern, times)]) or None")
    out = ["", f"def {name}(reading, {'counts, winds, ' if counted else ''}alive, facts, wildcard):",
           "    \"\"\"The patterns of `alive` one reading meets, excluded, tiered and combined:",
           f"    {doc} (as Evaluator._judge_reference).\"\"\"",
           "    m = Measures(None, reading, facts, wildcard, counts, winds)" if counted else
           "    m = Measures(reading.tiles, reading, facts, wildcard)",
           "    held = holding(m, alive)",
           f"    if not held & {_hex(bulk.makes_win)}:",
           "        return None"]
    if excluders:
        everyone = sum(1 << i for i, _ in excluders)
        out.append(f"    if held & {_hex(everyone)}:")
        if ranked:
            # in rank order, a pattern still kept drops the ones it excludes ranked below it
            out.append("        kept = held")
            for i, x in excluders:
                below = x & ~((1 << (i + 1)) - 1)
                if below:
                    out += [f"        if kept & {_hex(1 << i)}:  # {_comment(repr(bulk.patterns[i].name))}",
                            f"            kept &= {_hex(~below)}"]
            out.append("        held = kept")
        else:
            out.append("        excluded = 0")
            for i, x in excluders:
                out += [f"        if held & {_hex(1 << i)}:  # {_comment(repr(bulk.patterns[i].name))}",
                        f"            excluded |= {_hex(x)}"]
            out.append("        held &= ~excluded")
    out += ["    plan = PLANS.get(held)",
            "    if plan is None:",
            "        plan = make_plan(held)",
            "    if plan[1]:",
            "        result, key = count_read(plan, held, m)",
            "    else:",
            "        result, key = plan[2], plan[3]",
            "    if result is None:",
            "        return None"]
    if ev._win_require:
        out += ["    if not meets_win_require(result[0], m, facts):",
                "        return None"]
    out += ["    return key" if keyed else "    return result", ""]
    return out


def _key_source(ev: CompiledRuleset, ties: str) -> list[str]:
    out = ["", "def key_of(points, picked):",
           "    \"\"\"((order, tie key), points, picked): as Evaluator.order and tie_key.\"\"\""]
    if ev._by_pay:
        out.append("    order = order_of(points)")
    else:
        out.append("    order = -points")
    out.append("    marks = tuple(sorted([p.index for p, _ in picked])) if len(picked) > 1 "
               "else (picked[0][0].index,)")
    if ties == "fewest_patterns":
        out.append("    return (order, (len(marks), marks)), points, picked")
    elif ties == "most_patterns":
        out.append("    return (order, (-len(marks), marks)), points, picked")
    else:
        out.append("    return (order, marks), points, picked")
    return [*out, ""]


class Generated:
    """One evaluator's generated module: its source, and the functions bound to its judge."""

    def __init__(self, ev: Evaluator) -> None:
        self.source = source(ev)
        digest = hashlib.blake2b(self.source.encode("utf-8"), digest_size=16).hexdigest()
        key = f"{GENERATOR_VERSION}:{digest}"
        code = _CODE.get(key)
        if code is None:
            code = _CODE[key] = compile(self.source, f"<mjframework generated: {ev.ruleset.id!r}>", "exec")
        bulk = ev._bulk
        self._mask_of = bulk.mask_of
        plans: dict[int, _Plan] = {}

        def make_plan(held: int) -> _Plan:
            """The patterns ``held`` keeps after the tiers, in declared order; whether their
            count reads the reading (then counted on each reading); else their result."""
            kept = bulk.patterns_of(held)
            kept.sort(key=ev._index)
            ranks = ev._tier_rank
            if ranks and kept:
                default = ev.ruleset.scoring.tiers[0]
                top = min(ranks[p.tier or default] for p in kept)
                kept = [p for p in kept if ranks[p.tier or default] == top]
            once = ev.ruleset.scoring.set_combinations == "once"
            if any(p.times_per is not None or p.partial_excludes or (p.sets is not None and once)
                   for p in kept):
                plan: _Plan = (kept, True, None, None, _reads(kept, once))
            else:
                result = ev._count(kept, _NO_MEASURES)
                plan = (kept, False, result, None if result is None else namespace["key_of"](*result), ())
            if len(plans) > 1 << 14:
                plans.clear()
            plans[held] = plan
            return plan

        counts: dict[tuple[Any, ...], _Counted] = {}

        def count_read(plan: _Plan, held: int, m: Measures) -> _Counted:
            """A plan's result and key on reading ``m``: counted once per the values the count
            reads (a table filled as they are met, bounded), or every time where it reads more."""
            reads = plan[4]
            key = None
            if reads is not None:
                key = (held, *[read(m) for read in reads])
                got = counts.get(key)
                if got is not None:
                    return got
            result = ev._count(plan[0], m)
            got = (result, None if result is None else namespace["key_of"](*result))
            if key is not None:
                if len(counts) > 1 << 16:
                    counts.clear()
                counts[key] = got
            return got

        def win_wait_of(g: Group, w: int, wild: bool) -> int:
            """The win_wait patterns group ``g`` satisfies (as BulkJudge.holding), remembered."""
            memo = bulk._win_wait_hits
            h = bulk.win_wait_accept.get(group_win_wait(g, w, wild) or "", 0)
            if len(memo) > 1 << 16:
                memo.clear()
            memo[g, w, wild] = h
            return h

        namespace: dict[str, Any] = {
            "__builtins__": {"sorted": sorted, "len": len, "tuple": tuple, "sum": sum, "max": max,
                             "bytes": bytes, "enumerate": enumerate},
            "Z9": [0] * 9, "AT_LEAST_3": _AT_LEAST[3], "AT_LEAST_4": _AT_LEAST[4],
            "Measures": Measures, "condition_holds": condition_holds,
            "wind_tables": bulk._wind_tables, "FREE": bulk._free, "BULK": bulk,
            "FILTER_IDS": tuple(tuple(ids) for ids in bulk.group_filter_ids),
            "WAITS": bulk._win_wait_hits, "win_wait_of": win_wait_of,
            "COUNT_KEEP_FOR": tuple(b.keep_for for b in bulk.group_count_tables),
            "SET_TABLES": tuple(table for _k, _ks, _m, _c, table in bulk.sets),
            "SET_COMBOS": tuple(combos for _k, _ks, _m, combos, _t in bulk.sets),
            "SETS_KEEP": bulk._sets_keep,
            "KEEP_FOR": tuple(b.keep_for for _n, _m, _k, b in bulk.cheap_tables),
            "COSTLY_KEEP_FOR": tuple(b.keep_for for _n, b in bulk.costly),
            "CONDITIONS": tuple(c for _b, c in bulk.conditions),
            "PLANS": plans, "make_plan": make_plan, "count_read": count_read,
            "meets_win_require": ev._meets_win_require, "order_of": ev.order,
            "SHAPES": tuple(s for s, _p in ev._by_shape), "KINDS": ev.kinds,
            "READ": tuple(READERS[s.kind] for s, _p in ev._by_shape), "could_be": ev._could_be,
            "standard_readings": standard_readings, "pairs_readings": pairs_readings,
            "natural_groups": natural_groups, "meld_group": _meld_group, "Reading": Reading,
            "wind_key": wind_key,
            "need_pairs": need_pairs, "straight_kinds_held": straight_kinds_held,
        }
        exec(code, namespace)  # our own generated source (see the module's docstring)
        self.holding: Callable[[Measures, int], int] = namespace["holding"]
        self.judge: Callable[..., tuple[int, list[Any]] | None] = namespace["judge"]
        self.judge_keyed: Callable[..., tuple[tuple[Any, Any], int, list[Any]] | None] = \
            namespace["judge_keyed"]
        self.best_plain: Callable[..., Any] = namespace["best_plain"]
        self._shape_index = {id(s): i for i, (s, _p) in enumerate(ev._by_shape)}
        self._masks: dict[int, tuple[int, ...]] = {}

    def masks(self, shapes: list[tuple[Shape, list[Pattern]]]) -> tuple[int, ...]:
        """``best_plain``'s masks for the scorer's list of (shape, patterns to judge): per
        shape of the ruleset, its patterns' mask (0: not judged). Kept per list: the scorer
        keeps its lists (``Evaluator._todo``), so their ids stay theirs."""
        got = self._masks.get(id(shapes))
        if got is None:
            masks = [0] * len(self._shape_index)
            for shape, todo in shapes:
                masks[self._shape_index[id(shape)]] = self._mask_of(todo)
            got = self._masks[id(shapes)] = tuple(masks)
        return got


# bytes.translate tables: 1 for a count of at least 3 (4), else 0
_AT_LEAST = {n: bytes(int(x >= n) for x in range(256)) for n in (3, 4)}


class _NoMeasures:
    """Stands in for a reading's measures where the count reads none (a plan's static result):
    reading one would be a bug in :func:`Generated.make_plan`'s test, so it raises."""

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"a static plan read the reading's {name}")


_NO_MEASURES: Any = _NoMeasures()
