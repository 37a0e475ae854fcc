"""The measures: the numbers a pattern's ``require`` can bound and ``times: {per: …}`` can count.

One registry, read by everyone who names a measure: the loader checks ``times.per`` against
it (:data:`~.loader.COUNT_MEASURES`), the evaluator's judges compute what it lists where it
says (:class:`~mjframework.evaluate.patterns.Measures`: ``TILE_MEASURES``, ``GROUP_MEASURES``,
a ``_m_<name>`` method each), the reading search reads its ``level``, and the ruleset schema's
``require`` properties and the measures table of ``docs/pattern-language.md`` are made from it
(:func:`schema_line`, :func:`docs_table`). ``tests/test_measures.py`` fails when any of them
drifts; ``python -m mjframework.rules.measures`` (from a checkout) rewrites the schema's lines
and the docs table from here.

A new measure is one entry here, then its judge (a ``Measures._m_<name>``, or a line of the
one-pass tile or group count), then ``python -m mjframework.rules.measures``.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

#: Where the evaluator computes a measure (:class:`~mjframework.evaluate.patterns.Measures`):
#: ``hand`` from the hand's facts (the same on every reading); ``tiles`` in the one pass
#: over the tiles as read (``TILE_MEASURES``); ``groups`` in the one pass over the reading's
#: groups (``GROUP_MEASURES``; the bulk judge packs these); ``reading`` by a judge of its own.
Computed = Literal["hand", "tiles", "groups", "reading"]


@dataclass(frozen=True)
class Measure:
    """One measure: its name, what it counts (the docs' and the schema's words), where the
    evaluator computes it, and how much of a reading it looks at (``level``: 0 nothing, the
    hand's facts; 1 the suit or honor of each tile; 2 also how many copies of each kind; 3
    the whole reading, ranks included — what the reading search may leave out, see
    :func:`~mjframework.evaluate.compiler._reading_level`)."""

    name: str
    counts: str
    computed: Computed
    level: int


MEASURES: tuple[Measure, ...] = (
    Measure("wildcards", "Wildcard tiles among all the hand's tiles (a stand-in is never a wildcard).",
            "hand", 0),
    Measure("wildcards_held", "Wildcard tiles among the tiles held before the winning tile.", "hand", 0),
    Measure("natural_wildcards", "Wildcards read as their own natural tile.", "reading", 1),
    Measure("self_wild_sequences", "Sequences whose two other tiles are natural and that use a wildcard as "
            "its own natural tile.", "reading", 1),
    Measure("honors", "Honor tiles.", "tiles", 1),
    Measure("distinct_honors", "Distinct honor kinds.", "tiles", 2),
    Measure("suits", "Distinct suits present.", "tiles", 1),
    Measure("missing_suits", "Suits of the tile set absent from the hand.", "tiles", 1),
    Measure("sequences", "Sequences of the reading (melded or formed in hand).", "groups", 1),
    Measure("triplets", "Triplets of the reading, kongs included.", "groups", 1),
    Measure("kongs", "Kongs (claimed, added or concealed).", "groups", 1),
    Measure("claimed_melds", "Melds made with a claimed tile or added to one (chow, pung, kong, added "
            "kong); a concealed kong is not claimed.", "groups", 1),
    Measure("concealed_kongs", "Concealed kongs (暗杠).", "groups", 1),
    Measure("exposed_kongs", "Kongs made with a claimed tile or added to a 碰 (点杠, 明杠).", "groups", 1),
    Measure("concealed_triplets", "Triplets and kongs not made with a claimed tile (formed in hand, or "
            "concealed kongs); a triplet completed by the winning discard counts too "
            "(unless `scoring.won_triplet: exposed`).", "reading", 1),
    Measure("sets_of_four", "Tile kinds present four times, as read — melded or not (a kong and four "
            "in hand count alike).", "tiles", 2),
    Measure("sets_of_three", "Tile kinds present at least three times, as read.", "tiles", 2),
    Measure("fours_not_kong", "Tile kinds with all four tiles in the hand, not as a kong.", "reading", 2),
    Measure("distinct_kinds", "Distinct tile kinds in the hand.", "tiles", 2),
    Measure("rank_span", "Highest minus lowest rank of the suited tiles, plus one (0 without suited "
            "tiles).", "tiles", 3),
    Measure("knitted_straights", "1 if the tiles hold a knitted straight (147, 258, 369 of three different "
            "suits), else 0.", "reading", 3),
    Measure("flowers", "Bonus tiles (flowers) the winner set aside.", "hand", 0),
    Measure("seat_flowers", "Flowers of the winner's own seat: 春夏秋冬 and 梅兰竹菊 each count for "
            "东 南 西 北 in that order. Needs the flowers by name (play gives them; a case names them).",
            "hand", 0),
    Measure("flower_sets", "Whole sets of four flowers the winner set aside: 春夏秋冬, 梅兰竹菊 (0–2).",
            "hand", 0),
    Measure("waiting_tiles", "Tile kinds that complete the 13 held tiles to a standard, pairs or "
            "knitted-straight shape (1: waiting on one tile only).", "hand", 0),
)

NAMES: tuple[str, ...] = tuple(m.name for m in MEASURES)
BY_NAME: dict[str, Measure] = {m.name: m for m in MEASURES}


def computed(where: Computed) -> frozenset[str]:
    """The names of the measures computed ``where``."""
    return frozenset(m.name for m in MEASURES if m.computed == where)


# --------------------------------------------------------------------------
# what is made from the registry: the schema's `require` lines and the docs table

SCHEMA_REF = "#/$defs/count"
_SCHEMA_LINE = re.compile(r'^(\s*)"(\w+)": \{"\$ref": "' + re.escape(SCHEMA_REF) + r'"')
DOCS_BEGIN = ("<!-- measures: made from mjframework/rules/measures.py "
              "(python -m mjframework.rules.measures) -->")
DOCS_END = "<!-- /measures -->"


def schema_line(m: Measure, indent: str) -> str:
    """The ruleset schema's line for ``m`` among ``require``'s properties (a count, described)."""
    described = json.dumps(m.counts, ensure_ascii=False)
    return f'{indent}"{m.name}": {{"$ref": "{SCHEMA_REF}", "description": {described}}},'


def schema_measures(schema: dict[str, Any]) -> dict[str, str]:
    """The count properties of the schema's ``require`` (name → description)."""
    props: dict[str, dict[str, Any]] = schema["$defs"]["require"]["properties"]
    return {k: str(v.get("description", "")) for k, v in props.items() if v.get("$ref") == SCHEMA_REF}


def rewrite_schema(text: str) -> str:
    """``text`` (the schema file) with ``require``'s count lines made from the registry, in its
    order, where the first of them stood; every other line kept as it is."""
    lines = text.split("\n")
    start = next(i for i, line in enumerate(lines) if line.strip().startswith('"require": {'))
    first = None
    kept: list[str] = []
    indent = ""
    for i, line in enumerate(lines):
        m = _SCHEMA_LINE.match(line) if i > start else None
        if m is None:
            kept.append(line)
            continue
        if first is None:
            first, indent = len(kept), m[1]
    if first is None:
        raise ValueError("no count property under require")
    made = [schema_line(m, indent) for m in MEASURES]
    return "\n".join(kept[:first] + made + kept[first:])


def docs_table() -> str:
    """The measures table of docs/pattern-language.md, between its markers."""
    rows = [DOCS_BEGIN, "", "| measure | counts |", "|---|---|"]
    rows += [f"| `{m.name}` | {m.counts.rstrip('.')} |" for m in MEASURES]
    return "\n".join([*rows, "", DOCS_END])


def rewrite_docs(text: str) -> str:
    """``text`` (docs/pattern-language.md) with the table between the markers made anew."""
    a, b = text.index(DOCS_BEGIN), text.index(DOCS_END) + len(DOCS_END)
    return text[:a] + docs_table() + text[b:]


def main(root: Path) -> int:
    """Rewrite the schema's count lines and the docs table of the checkout at ``root``."""
    schema = root / "mjframework" / "schema" / "ruleset.schema.json"
    docs = root / "docs" / "pattern-language.md"
    if not docs.is_file():
        print(f"error: {docs} not found (run from a checkout of mjframework)", file=sys.stderr)
        return 1
    for path, rewrite in ((schema, rewrite_schema), (docs, rewrite_docs)):
        old = path.read_text("utf-8")
        new = rewrite(old)
        if new != old:
            path.write_text(new, "utf-8")
            print(f"rewrote {path}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main(Path(__file__).resolve().parents[2]))
