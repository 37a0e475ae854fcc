"""Wildcards (issue 11): fixed wildcard tiles (one kind or several), the
indicator naming itself (翻混) or following a declared order, and what a
wildcard may do in play — scored, played and shown on purpose-made rulesets.
"""

from __future__ import annotations

import json
import textwrap
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from mjframework.cli import main
from mjframework.core.errors import HandError
from mjframework.core.hand import WinContext, make_hand
from mjframework.core.tiles import parse_tile
from mjframework.design.rulecard import build_card
from mjframework.evaluate.scoring import Evaluator
from mjframework.rules.loader import load_ruleset
from mjframework.run.simulate import simulate

RULESETS = Path(__file__).resolve().parent / "rulesets"
HONGZHONG = RULESETS / "hongzhong.yaml"
RED = parse_tile("中")
WHITE = parse_tile("白")


def variant(tmp_path: Path, body: str, base: Path = HONGZHONG, name: str = "v.yaml") -> tuple[Path, str]:
    text = f"format: 1\nid: v\nname: v\nextends: {base}\n" + textwrap.dedent(body).lstrip("\n")
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p, text


@pytest.fixture(scope="module")
def ev() -> Evaluator:
    return Evaluator(load_ruleset(HONGZHONG))


def test_fixed_wildcard_validates_and_needs_no_wildcard_argument(ev: Evaluator) -> None:
    r = CliRunner().invoke(main, ["validate", str(HONGZHONG)], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    rule = ev.ruleset.wildcard
    assert rule is not None and rule.fixed == (RED,) and not rule.flips
    assert ev.wildcard_from() == RED
    assert ev.wildcard_from(RED) == RED
    with pytest.raises(HandError, match="fixed"):
        ev.wildcard_from(parse_tile("5m"))
    with pytest.raises(HandError, match="flips no indicator"):
        ev.wildcard_from(None, parse_tile("5m"))


def test_four_wildcards_score(ev: Evaluator) -> None:
    hand = make_hand("345559m446s中中中中", win_tile="2p")
    s = ev.score(hand, WinContext())
    assert s.win and s.pattern_names == ["四红中"]
    # The same with the wildcard given, and a standard hand using all four.
    assert ev.score(hand, WinContext(), RED).pattern_names == ["四红中"]
    s = ev.score(make_hand("123456789m1p中中中", win_tile="中"), WinContext())
    assert s.win and {"胡牌", "四红中"} <= set(s.pattern_names)
    assert sum(src == "w" for g in s.reading.groups for src in g.sources) == 4  # type: ignore[union-attr]


def test_wildcard_rules_of_the_hand(ev: Evaluator) -> None:
    # Not won on a discarded 中 (may.claim false), never in a meld (may.meld false).
    s = ev.score(make_hand("中中123456789m12p", win_tile="中"), WinContext(seat=1, win_by="discard",
                                                                         discarder=2))
    assert not s.win and "discard" in s.reason
    with pytest.raises(HandError, match="wildcard"):
        ev.score(make_hand("123456789m1p", ["pung 中 from 2"], "1p"), WinContext())


def test_several_fixed_kinds_and_claimable_wildcards(tmp_path: Path) -> None:
    p, _ = variant(tmp_path, """
        tiles: {name: suited-plus-two, suits: [m, p, s], honors: 中白, copies: 4}
        wall: {stacks_per_seat: [15, 14, 15, 14], height: 2, draw_direction: clockwise}
        wildcard:
          fixed: 中白
          may: {claim: true, discard: true}
        """)
    ev = Evaluator(load_ruleset(p))
    s = ev.score(make_hand("123456789m11p中白", win_tile="1p"), WinContext())
    assert s.win and "四红中" not in s.pattern_names
    assert ev.wild_kinds(ev.wildcard_from()) == {RED, WHITE}
    s = ev.score(make_hand("中中白123456789m1p", win_tile="白"), WinContext())
    assert "四红中" in s.pattern_names  # 中中白 + 白: four wildcards of two kinds
    # may.claim: a discarded wildcard can be won on.
    s = ev.score(make_hand("123456789m123p5s", win_tile="白"),
                 WinContext(seat=1, win_by="discard", discarder=0))
    assert s.win


def test_fixed_wildcard_plays_500_hands(tmp_path: Path) -> None:
    log = tmp_path / "hz.jsonl"
    res = simulate(str(HONGZHONG), 500, seed=1, log=log)
    assert res.stats.hands == 500 and res.stats.abandoned == 0
    events = [json.loads(line) for line in log.read_text("utf-8").splitlines()]
    wild = [e for e in events if e["type"] == "wildcard"]
    assert len(wild) == 500 and all(e["indicator"] is None and e["wildcard"] == "7z" for e in wild)
    assert not any(e["type"] == "dice" and e.get("purpose") == "wildcard" for e in events)
    # 中 is never discarded, claimed or melded; no tile leaves play (112 tiles in the wall).
    assert not any(e["type"] == "discard" and e["tile"] == "7z" for e in events)
    assert not any(e["type"] in ("claim", "kong") and "7z" in json.dumps(e) for e in events)
    walls = [e for e in events if e["type"] == "wall"]
    assert all(Counter(walls[0]["tiles"])["7z"] == 4 for _ in walls[:1])
    assert all(len(w["tiles"]) == 112 for w in walls)


def test_rule_card_examples_use_only_the_fixed_wildcard() -> None:
    card = build_card(load_ruleset(HONGZHONG), budget=200)
    examples = [e.example for e in card.patterns if e.example is not None]
    assert examples and all(x.wildcard in (None, RED) for x in examples)
    assert any(row[0] == "fixed" and "中" in row[1]
               for title, rows in card.sections if title == "Wildcard" for row in rows)


def _flip_ruleset(tmp_path: Path, wildcard: str) -> Path:
    p, _ = variant(tmp_path, "wildcard: null\n", base=RULESETS / "base-108.yaml", name="b.yaml")
    q = tmp_path / "flip.yaml"
    q.write_text(f"format: 1\nid: flip\nname: flip\nextends: {p}\n" + textwrap.dedent(wildcard).lstrip("\n"),
                 encoding="utf-8")
    return q


def test_indicator_names_itself(tmp_path: Path) -> None:
    q = _flip_ruleset(tmp_path, """
        wildcard:
          indicator: {dice: 2, wall: after_break_wall, count_from: owner_right, layer: top}
          names: itself
        """)
    ev = Evaluator(load_ruleset(q))
    assert ev.wildcard_from(None, parse_tile("5m")) == parse_tile("5m")
    log = tmp_path / "f.jsonl"
    simulate(str(q), 20, seed=2, log=log)
    flips = [json.loads(x) for x in log.read_text("utf-8").splitlines() if '"type":"wildcard"' in x]
    assert flips and all(e["indicator"] == e["wildcard"] for e in flips)


def test_declared_successor_order(tmp_path: Path) -> None:
    q = _flip_ruleset(tmp_path, """
        wildcard:
          indicator: {dice: 2}
          successors: {suits: none, cycles: [1m3m5m7m9m2m4m6m8m, 1p2p3p4p5p6p7p8p9p, 9s8s7s6s5s4s3s2s1s]}
        """)
    ev = Evaluator(load_ruleset(q))
    assert ev.wildcard_from(None, parse_tile("1m")) == parse_tile("3m")
    assert ev.wildcard_from(None, parse_tile("8m")) == parse_tile("1m")
    assert ev.wildcard_from(None, parse_tile("1s")) == parse_tile("9s")
    # Rule card examples only use wildcards some indicator names (here: every kind).
    rule = ev.ruleset.wildcard
    assert rule is not None and len(rule.possible(tuple(ev.kinds))) == 27


@pytest.mark.parametrize(("body", "needle", "path", "words"), [
    ("wildcard:\n  fixed: 东\n", "东", "wildcard.fixed", ["not in the", "tile set"]),
    ("wildcard:\n  fixed: 中\n  names: itself\n", "names", "wildcard.names", ["flips none"]),
    ("wildcard:\n  fixed: 中\n  may: {discard: false, claim: true}\n", "claim: true", "wildcard.may.claim",
     ["can't be claimed"]),
    ("wildcard:\n  fixed: 中中\n", "中中", "wildcard.fixed", ["once"]),
    ("wildcard:\n  fixed: 5x\n", "5x", "wildcard.fixed", ["bad tile string"]),
])
def test_bad_wildcards_are_located_errors(tmp_path: Path, body: str, needle: str, path: str,
                                          words: list[str]) -> None:
    p, text = variant(tmp_path, body)
    r = CliRunner().invoke(main, ["validate", str(p)], catch_exceptions=False)
    assert r.exit_code == 1 and "Traceback" not in r.output
    i = text.rindex(needle)
    line = text.count("\n", 0, i) + 1
    col = i - (text.rfind("\n", 0, i) + 1) + 1
    hits = [ln for ln in r.stderr.splitlines() if ln.startswith(f"{p}:{line}:") and f": {path}:" in ln]
    assert len(hits) == 1, r.stderr
    assert f":{line}:" in hits[0] and col >= 1
    for w in words:
        assert w in hits[0]


def test_a_fixed_wildcard_scores_as_a_flipped_one(tmp_path: Path) -> None:
    """Property: 中 fixed scores every hand exactly as a flipped 中 (names: itself) given as the wildcard."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    p, _ = variant(tmp_path, """
        wildcard:
          fixed: null
          indicator: {dice: 2}
          names: itself
        """)
    fixed, flipped = Evaluator(load_ruleset(HONGZHONG)), Evaluator(load_ruleset(p))
    assert flipped.ruleset.wildcard is not None and flipped.ruleset.wildcard.flips
    deck = [t for t in fixed.kinds for _ in range(4)]

    @settings(max_examples=150, deadline=None, derandomize=True)
    @given(st.permutations(deck), st.sampled_from(["self_draw", "discard"]))
    def check(order: list[int], win_by: str) -> None:
        hand = make_hand(order[:13], win_tile=order[13])
        ctx = WinContext(seat=1, win_by=win_by, discarder=None if win_by == "self_draw" else 2)
        a, b = fixed.score(hand, ctx), flipped.score(hand, ctx, RED)
        assert (a.win, a.points, a.pattern_names) == (b.win, b.points, b.pattern_names)

    check()
    # Random hands rarely win: the same on hands built to win, with 0–4 wildcards.
    for n in range(5):
        held = parse_tiles_list("123m456m789m123p5p")[: 13 - n] + [RED] * n
        hand = make_hand(held, win_tile=parse_tile("5p"))
        a, b = fixed.score(hand, WinContext()), flipped.score(hand, WinContext(), RED)
        assert a.win and (a.points, a.pattern_names) == (b.points, b.pattern_names)


def parse_tiles_list(text: str) -> list[int]:
    from mjframework.core.tiles import parse_tiles
    return parse_tiles(text)


def test_examples_leave_a_suit_out_when_a_void_suit_must_be_declared() -> None:
    """With `declarations.void_suit.win_holding: false` (the engine's key) every example win misses a suit."""
    import dataclasses

    from mjframework.core.tiles import is_honor, suit_of
    from mjframework.design.rulecard import _Searcher
    from mjframework.rules.model import VoidSuit

    rs = load_ruleset(RULESETS / "base-108.yaml")
    flow = dataclasses.replace(rs.flow, void_suit=VoidSuit(win_holding=False))
    ev = Evaluator(dataclasses.replace(rs, flow=flow))
    import random
    s = _Searcher(ev, random.Random(1))
    assert s.void_suit_needed
    seen = 0
    for _ in range(300):
        ex = s.candidate(rs.patterns[0])
        if ex is None:
            continue
        suits = {suit_of(t) for t in ex.hand().all_tiles if not is_honor(t)}
        assert len(suits) <= 2
        seen += 1
    assert seen > 50
    assert not _Searcher(Evaluator(rs), random.Random(1)).void_suit_needed
