"""Differential test: the first reading of a hand with wildcards from the per-block tables
(``evaluate/wild_blocks.py``) against the whole-hand search they replace
(``readings._first_standard``, the slow reference), on every shipped ruleset with wildcards.

Hands of ``test_fast_paths.random_case`` (complete, near-complete and random hands, exposed
melds and kongs, seven pairs) holding 1–4 wildcards. For each: the first standard reading
through the tables (built on first sight, not lazily) is the search's, and is one of the
hand's readings (every reading, as a set); the full scoring — win or not and why, patterns,
points, payments, the call — is the same with the tables as with the search alone. Bounded
by counts and seeds.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest
from test_fast_paths import random_case

from mjframework.core.tiles import Tile
from mjframework.evaluate import readings as rd
from mjframework.evaluate import wild_blocks as wb
from mjframework.evaluate.scoring import Evaluator, Result
from mjframework.rules.loader import load_ruleset

RULESETS = ["yongzhou-wangba", "yongzhou-huandiao", "hongzhong", "guangdong-tuidaohu"]
HANDS = 250  # per ruleset (each scored twice, its standard readings read three ways)


def _tables(c: Sequence[int], w: int, melds: int, pairs: int, kinds: Sequence[Tile],
            wildcard: Tile | None, lazy: bool = False) -> tuple[rd.Group, ...] | None:
    """The tables, built on first sight (readings asks lazily: a block met once is searched)."""
    _tables.calls += 1  # type: ignore[attr-defined]
    return wb.first_wild_groups(c, w, melds, pairs, kinds, wildcard)


def _search(c: Sequence[int], w: int, melds: int, pairs: int, kinds: Sequence[Tile],
            wildcard: Tile | None, lazy: bool = False) -> tuple[rd.Group, ...] | None:
    raise ValueError("the search alone")  # (standard_readings then searches)


def _facts(r: Result) -> tuple:
    s = r.score
    return (s.win, s.reason, s.points, s.uncapped, s.wildcard,
            [(p.name, p.points, p.times) for p in s.patterns], r.payments, r.call)


@pytest.mark.parametrize("rid", RULESETS)
def test_tables_read_and_score_as_the_search(rid: str, monkeypatch: pytest.MonkeyPatch) -> None:
    ev = Evaluator(load_ruleset(rid))
    assert ev.ruleset.wildcard is not None
    standard = [s for s in ev.shapes if s.kind == "standard"]
    pairs_shapes = [s for s in ev.shapes if s.kind == "pairs"]
    monkeypatch.setattr(wb, "_TABLES", {})
    monkeypatch.setattr(wb, "_MEMO", {})
    monkeypatch.setattr(wb, "_tables", 0)
    _tables.calls = 0  # type: ignore[attr-defined]
    rng = random.Random(f"wild-tables {rid}")
    hands = wilds = read = won = sevens = 0
    while hands < HANDS:
        for _ in range(4):  # hands the engine can win preferred (as test_scoring_reference)
            hand, ctx, wildcard = random_case(ev, rng)
            if ev.is_win(hand, ctx, wildcard):
                break
        wc = wildcard if wildcard is not None else ev._default_wild
        assert hand.win_tile is not None
        full = ev.split([*hand.concealed, hand.win_tile], wc)
        if not 1 <= full.wilds + full.stand_ins <= 4:
            continue
        hands += 1
        wilds |= 1 << full.wilds
        for shape in standard:
            monkeypatch.setattr(rd, "first_wild_groups", _search)
            want = rd.readings(full, hand.melds, shape, ev.kinds, first=True)
            monkeypatch.setattr(rd, "first_wild_groups", _tables)
            got = rd.readings(full, hand.melds, shape, ev.kinds, first=True)
            assert got == want, (rid, hand, wildcard)
            if got and full.wilds <= 3:  # (every reading of four wildcards: too many for CI)
                every = set(rd.readings(full, hand.melds, shape, ev.kinds))
                assert got[0] in every
                read += 1
        monkeypatch.setattr(rd, "first_wild_groups", _search)
        want_r = ev.evaluate(hand, ctx, wildcard)
        monkeypatch.setattr(rd, "first_wild_groups", _tables)
        got_r = ev.evaluate(hand, ctx, wildcard)
        assert _facts(got_r) == _facts(want_r), (rid, hand, ctx, wildcard)
        won += got_r.score.win
        sevens += any(rd.readings(full, hand.melds, s, ev.kinds, first=True) for s in pairs_shapes)
    assert wilds >> 1 & 0b1111 == 0b1111  # 1, 2, 3 and 4 wildcards each met
    assert sevens or not pairs_shapes  # seven pairs with wildcards among them

    assert won >= HANDS // 3 and read >= HANDS // 3 and _tables.calls >= HANDS  # type: ignore[attr-defined]
