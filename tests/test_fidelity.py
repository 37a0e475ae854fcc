"""Rule fidelity: the calls after a kong and on a discard, 点杠开杠, leaving the table,
first-turn patterns on seven pairs, no 海底 after a replacement draw, claim priorities,
截胡, and the declared tie-break for equal pay."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import mjframework_rulesets
import pytest
from click.testing import CliRunner
from mjframework_plugins.calls import Plugin as Calls

from mjframework.cli import main
from mjframework.hand import WinContext, make_hand
from mjframework.ruleset import load_ruleset
from mjframework.scoring import Evaluator
from mjframework.settlement import SettlementContext
from mjframework.tiles import parse_tile


class _Hand:
    dealer = 0
    previous = None


def _ctx(flags: tuple[str, ...]) -> Any:
    return SettlementContext("win", 4, 0, winners=(1,), flags=frozenset(flags))


def test_after_kong_call_is_kaigang_plus_the_patterns_name() -> None:
    plugin = Calls(load_ruleset("yongzhou-huandiao").plugins["calls"])
    assert plugin.mj_win_call(["单换调"], _ctx(())) == "换调"
    assert plugin.mj_win_call(["单换调"], _ctx(("after_kong",))) == "开杠单换调"
    assert plugin.mj_win_call(["双换调王"], _ctx(("after_kong",))) == "开杠双换调王"
    assert plugin.mj_win_call(["自摸"], _ctx(("after_kong",))) == "开杠自摸"  # replaced whole
    # The default puts the prefix before the call.
    other = Calls({"wins": {"单换调": "换调"}, "after_kong": {"prefix": "K"}})
    assert other.mj_win_call(["单换调"], _ctx(("after_kong",))) == "K换调"


def test_the_discard_offer_is_an_option_off_by_default() -> None:
    event = {"type": "discard", "seat": 0, "tile": "8m"}
    shipped = Calls(load_ruleset("yongzhou-huandiao").plugins["calls"])
    assert shipped.mj_announce(hand=_Hand(), event=event) == "八万"
    opts = {**load_ruleset("yongzhou-huandiao").plugins["calls"], "discard_ask": "{tile}有没有人要啊"}
    assert Calls(opts).mj_announce(hand=_Hand(), event=event) == "八万有没有人要啊"


# -- equal pay: scoring.ties ----------------------------------------------------------

TIES_DEMO = """\
format: 1
id: ties-demo
name: ties demo
extends: [{frag}/tiles-108.yaml, {frag}/shapes.yaml]
wall: {{stacks_per_seat: [14, 13, 14, 13], height: 2, draw_direction: clockwise}}
break: {{dice: 2, wall: {{die: sum, seats: {{"2": 1, "3": 2, "4": 3, "5": 0, "6": 1, "7": 2, "8": 3,
        "9": 0, "10": 1, "11": 2, "12": 3}}}}, stack: {{die: low, from: owner_left}}}}
deal: {{rounds: 3, block: 4, then: [{{seat: 0, tiles: 2}}, {{seat: 1, tiles: 1}}, {{seat: 2, tiles: 1}},
       {{seat: 3, tiles: 1}}]}}
wildcard: null
claims: {{chow: left, pung: true, kong: true}}
win: {{self_draw: true, discard: true}}
dealer: {{first: seat0, after_win: winner, after_draw: next}}
scoring: {{combine: sum, {ties}payout: {{self_draw: each_other, discard: discarder}}}}
patterns:
  - {{name: 对子, shape: seven_pairs, points: 2}}
  - {{name: 顺, shape: standard, points: 1}}
  - {{name: 有顺, shape: standard, require: {{sequences: {{min: 1}}}}, points: 1}}
"""


def _ties_demo(tmp_path: Path, ties: str | None) -> Evaluator:
    frag = Path(mjframework_rulesets.__file__).parent / "fragments"
    p = tmp_path / f"ties-{ties}.yaml"
    p.write_text(TIES_DEMO.format(frag=frag, ties=f"ties: {ties}, " if ties else ""), encoding="utf-8")
    return Evaluator(load_ruleset(p))


@pytest.mark.parametrize(("ties", "patterns"), [
    (None, ["对子"]),                   # the default: first declared
    ("first_declared", ["对子"]),
    ("fewest_patterns", ["对子"]),
    ("most_patterns", ["顺", "有顺"]),
])
def test_the_declared_tie_break_decides_between_equal_readings(
        tmp_path: Path, ties: str | None, patterns: list[str]) -> None:
    """223344m 556677p 99s pays 2 as seven pairs (对子) and 2 as four sequences (顺 + 有顺)."""
    ev = _ties_demo(tmp_path, ties)
    hand = make_hand("223344m 556677p 9s", [], "9s")
    score = ev.score(hand, WinContext(seat=0, win_by="self_draw"), None)
    assert score.points == 2 and score.pattern_names == patterns
    assert ev.ruleset.scoring.ties == (ties or "first_declared")


def test_wangba_tie_is_real_and_declared(tmp_path: Path) -> None:
    """王归位 + 王钓 pays what 龙巧对 + 王钓 pays: with 龙巧对 out of the way the other shows."""
    hand = make_hand("4444m 55m 6666m 111p", [], "1p")
    ctx = WinContext(seat=1, win_by="discard", discarder=2)
    shipped = Evaluator(load_ruleset("yongzhou-wangba"))
    w = parse_tile("5m")
    got = shipped.score(hand, ctx, w)
    assert got.pattern_names == ["龙巧对", "王钓"] and got.points == 8
    p = tmp_path / "no-long.yaml"
    p.write_text("format: 1\nid: no-long\nname: no-long\nextends: yongzhou-wangba\npatterns:\n"
                 "  - {name: 龙巧对, shape: seven_pairs, require: {sets_of_four: {min: 1}},\n"
                 "     when: {win_by: [robbed_kong]}, points: 4, excludes: [七巧对]}\n", encoding="utf-8")
    other = Evaluator(load_ruleset(p)).score(hand, ctx, w)
    assert other.pattern_names == ["王钓", "王归位"] and other.points == 8


@pytest.mark.parametrize("rid", ["changsha", "yongzhou-huandiao", "yongzhou-wangba"])
def test_every_shipped_ruleset_declares_its_ties_and_the_rule_card_shows_it(rid: str) -> None:
    text = (Path(mjframework_rulesets.__file__).parent / f"{rid}.yaml").read_text(encoding="utf-8")
    assert "\n  ties: first_declared" in text
    r = CliRunner().invoke(main, ["doc", rid])
    assert r.exit_code == 0, r.output
    assert "equal pay: the result whose patterns come first in declaration order" in r.output
