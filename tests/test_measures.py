"""One vocabulary of measures (issue 22): :mod:`mjframework.rules.measures` is the registry,
and every list that names a measure — the loader's, the schema's ``require``, the judges,
the reading search's levels, the win screen's cheap measures, the docs table — agrees with
it. A measure added, renamed or dropped in one place and not the others fails here."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from mjframework.core.errors import RulesetError
from mjframework.core.hand import WinContext, make_hand
from mjframework.evaluate import bulkjudge, compiler, fastwin_rules, patterns
from mjframework.evaluate.patterns import HandFacts, Measures
from mjframework.evaluate.readings import Tiles, readings
from mjframework.evaluate.scoring import Evaluator
from mjframework.rules import loader, measures, model
from mjframework.rules.measures import MEASURES, NAMES

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = ROOT / "mjframework" / "schema" / "ruleset.schema.json"
DOCS = ROOT / "docs" / "pattern-language.md"
RULESETS = Path(__file__).resolve().parent / "rulesets"


def test_the_registry_is_well_formed() -> None:
    assert len(set(NAMES)) == len(NAMES)
    for m in MEASURES:
        assert m.name.isidentifier() and m.name.islower(), m.name
        assert m.counts and not m.counts[0].islower() and m.counts.endswith("."), m.name  # (a sentence)
        assert "|" not in m.counts, m.name  # (a cell of the docs table)
        assert m.computed in ("hand", "tiles", "groups", "reading"), m.name
        assert 0 <= m.level <= 3, m.name
        # hand-level facts are the same on every reading: the search need not look at one
        assert (m.computed == "hand") == (m.level == 0), m.name


def test_the_loader_reads_the_registry() -> None:
    assert loader.COUNT_MEASURES == NAMES  # `times: {per: …}`
    assert not set(loader.NOT_COUNTS) & set(NAMES)


def test_the_schema_lists_every_measure_in_the_registrys_words() -> None:
    schema = json.loads(SCHEMA.read_text("utf-8"))
    assert schema == loader.schema()  # the packaged schema is this file
    assert measures.schema_measures(schema) == {m.name: m.counts for m in MEASURES}
    assert list(measures.schema_measures(schema)) == list(NAMES)
    # and the file is exactly as the registry makes it (`python -m mjframework.rules.measures`)
    text = SCHEMA.read_text("utf-8")
    assert measures.rewrite_schema(text) == text, "run: python -m mjframework.rules.measures"


def test_the_docs_table_is_the_registrys() -> None:
    text = DOCS.read_text("utf-8")
    assert text.count(measures.DOCS_BEGIN) == 1 and text.count(measures.DOCS_END) == 1
    assert measures.rewrite_docs(text) == text, "run: python -m mjframework.rules.measures"
    for name in NAMES:
        assert f"| `{name}` |" in text


def test_every_measure_has_a_judge_and_every_judge_a_measure() -> None:
    judges = {n[3:] for n in dir(Measures) if n.startswith("_m_")}
    assert judges == set(NAMES)


def _measures_of(hand: str, win: str) -> Measures:
    """The judge's measures on the first standard reading of a concealed hand (no wildcard)."""
    h = make_hand(hand, [], win)
    counts = [0] * 34
    assert h.win_tile is not None
    for t in (*h.concealed, h.win_tile):
        counts[t] += 1
    standard = model.Shape("standard", melds=4, pair=1)
    reading = readings(Tiles(tuple(counts), 0, 0, None, None), h.melds, standard, list(range(34)))[0]
    facts = HandFacts(wildcards=0, wildcards_held=0, win_tile_wild=False, suits_in_set=3, win_tile=h.win_tile,
                      held=h.concealed)
    return Measures(reading.tiles, reading, facts, None)


def test_where_the_registry_says_a_measure_is_computed_is_where_it_is() -> None:
    """The one-pass tile and group counts fill exactly the registry's ``tiles`` / ``groups``
    measures (and the bulk judge packs exactly the group ones)."""
    assert measures.computed("tiles") == patterns.TILE_MEASURES
    assert measures.computed("groups") == patterns.GROUP_MEASURES
    assert set(bulkjudge._PACKED) == measures.computed("groups") and len(bulkjudge._PACKED) == 6
    m = _measures_of("123m456m111p999s1s", "1s")
    m._tile_measures()
    assert set(m._cache) == measures.computed("tiles")
    m._cache.clear()
    m._group_measures()
    assert set(m._cache) == measures.computed("groups")


def test_the_search_levels_are_the_registrys() -> None:
    # the compiler lists the levels below 3 (the rest read the whole reading)
    assert {m.name: m.level for m in MEASURES if m.level < 3} == compiler._MEASURE_LEVEL


def test_the_win_screen_judges_only_registered_measures() -> None:
    assert set(fastwin_rules._MEASURES) <= set(NAMES)


def test_seat_measures_are_one_list_in_the_model_and_the_schema() -> None:
    """The other vocabulary of measures: a payer's own melds (``scoring.per_payer``)."""
    schema = json.loads(SCHEMA.read_text("utf-8"))
    found = []

    def walk(x: object) -> None:
        if isinstance(x, dict):
            per = x.get("per")
            if isinstance(per, dict) and "enum" in per:
                found.append(per["enum"])
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    walk(schema)
    assert found == [list(model.SEAT_MEASURES)]


def test_every_measure_loads_and_judges_through_a_ruleset(tmp_path: Path) -> None:
    """Each registered measure, required and counted by a pattern (``times: {per: …}``), loads
    and is judged: the pattern's times are the measure's value on the reading scored."""
    pats = "\n".join(f"  - {{name: m_{n}, require: {{{n}: {{min: 0}}}}, times: {{per: {n}}}, points: 1}}"
                     for n in NAMES)
    path = tmp_path / "every-measure.yaml"
    path.write_text(textwrap.dedent(f"""\
        format: 1
        id: test-every-measure
        name: every measure
        extends: {RULESETS / 'base-108.yaml'}
        patterns:
        """) + pats + "\n", "utf-8")
    ev = Evaluator(loader.load_ruleset(path))
    s = ev.score(make_hand("111m234m567p999s5s", [], "5s"), WinContext())
    assert s.win, s.reason
    times = {p.name[2:]: p.times for p in s.patterns if p.name.startswith("m_")}
    assert times.get("triplets") == 2 and times.get("sequences") == 2 and times.get("suits") == 3
    assert times.get("distinct_kinds") == 9 and times.get("sets_of_three") == 2
    assert "honors" not in times and "kongs" not in times  # 0 times: not counted


@pytest.mark.parametrize("bad", ["triplet", "sets_of_5"])
def test_an_unknown_measure_is_a_located_error_naming_the_registrys(tmp_path: Path, bad: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(textwrap.dedent(f"""\
        format: 1
        id: test-bad-measure
        name: bad measure
        extends: {RULESETS / 'base-108.yaml'}
        patterns:
          - {{name: x, require: {{triplets: {{min: 1}}}}, times: {{per: {bad}}}, points: 1}}
        """), "utf-8")
    with pytest.raises(RulesetError) as e:
        loader.load_ruleset(path)
    msg = str(e.value)
    assert bad in msg and "bad.yaml" in msg
