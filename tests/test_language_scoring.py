"""Scoring policies (issue 11): 番 with doubling or a table, a cap, a minimum to
win, multipliers and bonuses per payer; with their located errors.

Purpose-made rulesets live in ``tests/rulesets/``; broken ones are written
under ``tmp_path`` extending them.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from mjframework.cli import main
from mjframework.core.hand import WinContext, make_hand
from mjframework.evaluate.scoring import Evaluator
from mjframework.rules.loader import load_ruleset

HERE = Path(__file__).resolve().parent
RULESETS = HERE / "rulesets"


def ev_of(name: str) -> Evaluator:
    return Evaluator(load_ruleset(RULESETS / name))


def variant(tmp_path: Path, body: str, base: str = "fan-108.yaml") -> tuple[Path, str]:
    text = (f"format: 1\nid: v\nname: v\nextends: {RULESETS / base}\n"
            + textwrap.dedent(body).lstrip("\n"))
    p = tmp_path / "v.yaml"
    p.write_text(text, encoding="utf-8")
    return p, text


def validate(path: Path) -> tuple[int, list[str]]:
    r = CliRunner().invoke(main, ["validate", str(path)], catch_exceptions=False)
    assert "Traceback" not in r.output
    return r.exit_code, [ln for ln in r.stderr.splitlines() if ln and "file(s) with problems" not in ln]


def where(path: Path, text: str, needle: str) -> str:
    """``FILE:LINE:COL`` of ``needle`` in ``text``; a ``|`` in it marks the column meant."""
    mark = needle.find("|")
    i = text.index(needle.replace("|", "")) + max(mark, 0)
    line = text.count("\n", 0, i) + 1
    col = i - (text.rfind("\n", 0, i) + 1) + 1
    return f"{path}:{line}:{col}"


def test_fan_doubling_cap_multiplier_bonus() -> None:
    ev = ev_of("fan-108.yaml")
    # 对对胡 1 + 清一色 2 = 3 番 (cap 3) → 2^3 = 8; the dealer pays ×2, self-draw +1 each.
    hand = make_hand("1112223334445m", win_tile="5m")
    res = ev.evaluate(hand, WinContext(seat=1))
    assert res.score.points == 3
    assert res.payments == [-17, 35, -9, -9]


def test_cap_limits_the_points_not_the_patterns() -> None:
    ev = ev_of("fan-108.yaml")
    # 七对 2 + 清一色 2 = 4 番, capped at 3.
    s = ev.score(make_hand("1133557799224m", win_tile="4m"), WinContext(seat=1))
    assert s.win and s.uncapped == 4 and s.points == 3
    assert ev.ruleset.scoring.amount(s.points) == 8


def test_minimum_to_win() -> None:
    ev = ev_of("fan-108.yaml")
    hand = make_hand("123456789m234p5s", win_tile="5s")
    ctx = WinContext(seat=1)
    s = ev.score(hand, ctx)
    assert not s.win and "below the minimum of 1" in s.reason
    assert not ev.is_win(hand, ctx)
    assert ev.waits(list(hand.concealed)) == []  # 5s alone is 0 番: not a wait either
    base = ev_of("base-108.yaml")
    assert base.is_win(hand, ctx)


def test_value_table(tmp_path: Path) -> None:
    p, _ = variant(tmp_path, """
        scoring:
          combine: sum
          cap: 2
          value: table
          table: [1, 3, 10]
        """)
    ev = Evaluator(load_ruleset(p))
    res = ev.evaluate(make_hand("1112223334445m", win_tile="5m"), WinContext(seat=1, win_by="discard",
                                                                             discarder=2))
    assert res.score.points == 2 and res.score.uncapped == 3
    assert res.payments == [0, 10, -10, 0]


def test_multipliers_for_the_discarder_and_dealer(tmp_path: Path) -> None:
    p, _ = variant(tmp_path, """
        scoring:
          combine: sum
          value: points
          payout: {discard: each_other}
          multipliers: {discarder: 2, dealer: 3}
        """)
    ev = Evaluator(load_ruleset(p))
    # 对对胡 1 + 清一色 2 = 3 points, paid as is by everyone; the discarder (dealer) ×2 ×3.
    res = ev.evaluate(make_hand("1112223334445m", win_tile="5m"),
                      WinContext(seat=1, win_by="discard", discarder=0))
    assert res.payments == [-18, 24, -3, -3]


@pytest.mark.parametrize(("body", "needle", "path", "words"), [
    ("scoring:\n  minimum: 3\n  cap: 2\n", "cap: |2", "scoring.cap", ["below the minimum"]),
    ("scoring:\n  cap: 2\n  value: table\n  table: [1, 2]\n", "cap: |2", "scoring.cap", ["past the end"]),
    ("scoring:\n  cap: null\n  value: table\n  table: [1, 2]\n", "[1, 2]", "scoring.table",
     ["needs `scoring.cap`"]),
    ("scoring:\n  value: table\n", "value: |table", "scoring.value", ["needs `scoring.table`"]),
    ("scoring:\n  table: [1]\n", "table", "scoring.table", ["only read with `value: table`"]),
    ("scoring:\n  dealer_bonus: 2\n  bonuses: {dealer: 1}\n", "dealer: |1", "scoring.bonuses.dealer",
     ["once"]),
    ("scoring:\n  multipliers: {winner: 2}\n", "winner", "scoring.multipliers.winner", ["unknown key"]),
])
def test_bad_scoring_is_a_located_error(tmp_path: Path, body: str, needle: str, path: str,
                                        words: list[str]) -> None:
    p, text = variant(tmp_path, body)
    code, lines = validate(p)
    assert code == 1, lines
    hits = [ln for ln in lines if ln.startswith(f"{where(p, text, needle)}: {path}:")]
    assert len(hits) == 1, lines
    for w in words:
        assert w in hits[0]
