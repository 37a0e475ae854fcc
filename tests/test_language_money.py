"""Issue 23, the language part: regression tests of the bugs met on the way, then the money
primitives (conditions beyond equality, `combine: product`, per-payer amounts, liability).

Purpose-made rulesets live in ``tests/rulesets/``; variations are written under ``tmp_path``
extending them.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from click.testing import CliRunner

from mjframework.cli import main
from mjframework.core.hand import WinContext, make_hand
from mjframework.evaluate.scoring import Evaluator
from mjframework.rules.loader import check_file, load_ruleset
from mjframework.run.simulate import simulate

HERE = Path(__file__).resolve().parent
RULESETS = HERE / "rulesets"


def variant(tmp_path: Path, body: str, base: str = "base-108.yaml", name: str = "v.yaml") -> Path:
    text = (f"format: 1\nid: v\nname: v\nextends: {RULESETS / base}\n"
            + textwrap.dedent(body).lstrip("\n"))
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def problems(path: Path) -> list[str]:
    _, probs = check_file(path)
    return [str(p) for p in probs]


# -- the bugs ----------------------------------------------------------------------


def test_an_empty_deal_is_a_located_error(tmp_path: Path) -> None:
    # `deal: {}` took the defaults (3 rounds of 4) and dealt 12 tiles each: nobody could win.
    base = (RULESETS / "base-108.yaml").read_text(encoding="utf-8")
    start = base.index("deal:")
    end = base.index("wildcard:")
    text = base[:start] + "deal: {}\n" + base[end:]
    p = tmp_path / "deal.yaml"
    p.write_text(text, encoding="utf-8")
    line = text[:text.index("deal:")].count("\n") + 1
    found = problems(p)
    assert any(f"{p}:{line}:" in x and "deal" in x and "[12, 12, 12, 12]" in x for x in found), found


def test_negative_points_under_a_zero_minimum_play_as_they_score(tmp_path: Path) -> None:
    # A negative pattern under `minimum: 0`: `mj score` said no win, while the fast win check
    # (which took `minimum: 0` for no minimum) offered it, and play abandoned the hand.
    p = variant(tmp_path, """
        scoring: {combine: sum, minimum: 0, negative_points: true}
        patterns:
          - name: no pungs
            require: {triplets: 0}
            points: -2
        """)
    ev = Evaluator(load_ruleset(p))
    hand, ctx = make_hand("123456789m234p5s", win_tile="5s"), WinContext(seat=1)
    assert not ev.score(hand, ctx).win
    assert not ev.is_win(hand, ctx)
    assert "5s" not in [str(t) for t in ev.waits(list(hand.concealed))]
    res = simulate(str(p), 24, seed=3)
    assert res.stats.abandoned == 0


def test_an_inherited_pattern_redefined_by_name_merges(tmp_path: Path) -> None:
    # `{name: 对对胡, points: 80}` used to replace the pattern whole: it lost its shape and
    # requirement, and every 平胡 scored it.
    p = variant(tmp_path, """
        patterns:
          - name: 对对胡
            points: 80
        """, base="fan-108.yaml")
    rs = load_ruleset(p)
    pat = rs.pattern("对对胡")
    assert pat.points == 80 and pat.shapes and dict(pat.counts)["sequences"].max == 0
    ev = Evaluator(rs)
    plain = ev.score(make_hand("123456789m234p5s", win_tile="5s"), WinContext(seat=1))
    assert "对对胡" not in plain.pattern_names
    pungs = ev.score(make_hand("111222333m444p5s", win_tile="5s"), WinContext(seat=1))
    assert "对对胡" in pungs.pattern_names
    # `replace: true` says "replace it whole" (here: a bonus pattern with no shape)
    q = variant(tmp_path, """
        patterns:
          - name: 对对胡
            replace: true
            require: {sequences: 0}
            points: 80
        """, base="fan-108.yaml", name="w.yaml")
    whole = load_ruleset(q).pattern("对对胡")
    assert not whole.shapes and whole.points == 80
    # and `null` drops one inherited key
    r = variant(tmp_path, """
        patterns:
          - name: 对对胡
            require: null
            points: 1
        """, base="fan-108.yaml", name="x.yaml")
    assert load_ruleset(r).pattern("对对胡").counts == ()


def test_value_table_picks_the_reading_that_pays_most(tmp_path: Path) -> None:
    # 7 pairs reads as 七对 (win 1 + 2 = 3 points → table[3] = 2) or as sequences and a pair
    # (1 point → table[1] = 5): the second pays more and is the one scored.
    p = variant(tmp_path, """
        scoring: {combine: sum, cap: 3, value: table, table: [0, 5, 10, 2]}
        patterns:
          - name: win
            shape: [standard, seven_pairs]
            points: 1
          - name: 七对
            shape: seven_pairs
            points: 2
        """)
    ev = Evaluator(load_ruleset(p))
    res = ev.evaluate(make_hand("1122334455667m", win_tile="7m"), WinContext(seat=1))
    assert res.score.pattern_names == ["win"] and res.payments == [-5, 15, -5, -5]
    every = ev.score_readings(make_hand("1122334455667m", win_tile="7m"), WinContext(seat=1))
    assert every[0].pattern_names == ["win"] and any("七对" in s.pattern_names for s in every)


def test_null_in_an_option_patch_changes_nothing_and_removes_an_inherited_option(tmp_path: Path) -> None:
    base = variant(tmp_path, """
        options:
          quiet:
            description: switch off a plugin this ruleset does not have
            type: boolean
            default: false
            patch: {plugins: {some-plugin: null}}
          big:
            description: every other player pays 1 more
            type: boolean
            default: false
            values:
              true: {scoring: {each_pays: 1}}
        """, name="optbase.yaml")
    assert problems(base) == []  # the default's patch (a `null` on nothing) changes nothing
    assert load_ruleset(base).options == {"quiet": False, "big": False}
    child = tmp_path / "child.yaml"
    child.write_text(f"format: 1\nid: c\nname: c\nextends: {base}\noptions:\n  big: null\n", encoding="utf-8")
    assert problems(child) == []
    assert load_ruleset(child).options == {"quiet": False}
    r = CliRunner().invoke(main, ["validate", str(child)])
    assert r.exit_code == 0, r.output
