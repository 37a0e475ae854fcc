"""Issue 23, the language part: regression tests of the bugs met on the way, then the money
primitives (conditions beyond equality, `combine: product`, per-payer amounts, liability).

Purpose-made rulesets live in ``tests/rulesets/``; variations are written under ``tmp_path``
extending them.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any, ClassVar

import pytest
from click.testing import CliRunner

from mjframework.cli import main
from mjframework.core.hand import Meld, WinContext, make_hand
from mjframework.evaluate.scoring import Evaluator
from mjframework.hooks.registry import register_plugin, unregister_plugin
from mjframework.plugin import hookimpl
from mjframework.rules.loader import check_file, load_ruleset
from mjframework.run.conformance import run_file
from mjframework.run.simulate import simulate
from mjframework.settle.settlement import SeatFacts

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


# -- conditions beyond equality ------------------------------------------------------


def _score(ev: Evaluator, tiles: str, win: str, melds: tuple[str, ...] = (), **ctx: object):
    hand, context = make_hand(tiles, list(melds), win_tile=win), WinContext(**ctx)  # type: ignore[arg-type]
    s = ev.score(hand, context)
    assert ev.is_win(hand, context) == s.win  # play and `mj score` agree
    return s


def test_measures_and_state_tested_beyond_equality() -> None:
    ev = Evaluator(load_ruleset(RULESETS / "conditions-108.yaml"))
    # 少刻 {in: [1, 3]}: three pungs yes, none no; 无杠 {not: {min: 1}}; 非断 `not` over a filter
    s = _score(ev, "111222m333p456p2s", "2s", seat=1, win_by="discard", discarder=2)
    assert s.pattern_names == ["win", "少刻", "无杠", "非断"]
    s = _score(ev, "123456789m234p2s", "2s", seat=1, win_by="discard", discarder=2)
    assert s.pattern_names == ["win", "无杠", "非断"]
    # 混或清 `any`: one suit
    s = _score(ev, "1112223456788m", "8m", seat=1, win_by="discard", discarder=2)
    assert "混或清" in s.pattern_names
    # 飘 `seat_state: {piao: {min: 3}}`: 3 and 4 yes; 2, a string, a boolean or unset no
    for piao, holds in ((3, True), (4, True), (2, False), ("3", False), (True, False), (None, False)):
        state = {} if piao is None else {"piao": piao}
        s = _score(ev, "123456789m234p2s", "2s", seat=1, seat_state=state)
        assert ("飘" in s.pattern_names) == holds, piao
    # 门风或庄 `when: {any: [{seat: dealer}, {not: {win_by: [discard]}}]}`
    assert "门风或庄" in _score(ev, "123456789m234p2s", "2s", seat=0, win_by="discard",
                                 discarder=2).pattern_names
    assert "门风或庄" in _score(ev, "123456789m234p2s", "2s", seat=1).pattern_names
    assert "门风或庄" not in _score(ev, "123456789m234p2s", "2s", seat=1, win_by="discard",
                                     discarder=2).pattern_names


def test_win_require_is_said_once_for_every_win() -> None:
    ev = Evaluator(load_ruleset(RULESETS / "conditions-108.yaml"))
    s = _score(ev, "123456789m234p3s", "3s", seat=1)
    assert not s.win and "the pair must be a 2, 5 or 8" in s.reason
    assert ev.waits(list(make_hand("123456789m234p3s", win_tile="3s").concealed)) == []
    # an open hand (a claimed pung) needs 2 points: 1 on a discard, 2 on a self-draw
    melds = ("pung 3m from 3", "pung 4p from 3")
    s = _score(ev, "345m456p2s", "2s", melds, seat=1, win_by="discard", discarder=2)
    assert not s.win and "an open hand needs 2 points" in s.reason
    s = _score(ev, "345m456p2s", "2s", melds, seat=1)
    assert s.win and s.points == 2
    r = CliRunner().invoke(main, ["score", str(RULESETS / "conditions-108.yaml"), "123456789m234p3s",
                                  "-t", "3s", "-s", "1"])
    assert "the pair must be a 2, 5 or 8" in r.output, r.output


def test_conditions_play(tmp_path: Path) -> None:
    res = simulate(str(RULESETS / "conditions-108.yaml"), 16, seed=2)
    assert res.stats.abandoned == 0


def test_bad_conditions_are_located_errors(tmp_path: Path) -> None:
    p = variant(tmp_path, """
        win:
          require:
            - why: nothing to check
        patterns:
          - name: odd
            require: {kongs: {min: 3, max: 1}}
            points: 1
          - name: typo
            when: {any: [{flags: [last_tiel]}]}
            points: 1
          - name: badkey
            require: {any: [{sequencs: 1}]}
            points: 1
        """)
    text = p.read_text(encoding="utf-8")

    def line_of(needle: str) -> int:
        return text[:text.index(needle)].count("\n") + 1
    found = problems(p)
    expect = [(line_of("- why"), "win.require[0]", "needs `require`, `when` or `points`"),
              (line_of("max: 1"), "kongs.max", "no count passes"),
              (line_of("last_tiel"), "when.any[0].flags[0]", "unknown flag 'last_tiel'"),
              (line_of("sequencs"), "require.any[0]", "unknown key 'sequencs'")]
    for line, path, words in expect:
        assert any(f"{p}:{line}:" in x and path in x and words in x for x in found), (line, path, found)


# -- combine: product ------------------------------------------------------------------


def test_product_multiplies_factors_under_a_cap() -> None:
    ev = Evaluator(load_ruleset(RULESETS / "product-108.yaml"))
    discard = {"seat": 1, "win_by": "discard", "discarder": 2}
    s = _score(ev, "1112223334445m", "5m", **discard)  # 碰碰胡 ×2 × 清一色 ×4 = ×8
    assert s.pattern_names == ["win", "碰碰胡", "清一色"] and s.points == 8
    assert ev.evaluate(make_hand("1112223334445m", win_tile="5m"),
                       WinContext(**discard)).payments == [0, 16, -16, 0]  # type: ignore[arg-type]
    s = _score(ev, "1133557799224m", "4m", **discard)  # 清一色 ×4 × 七对 ×4 = ×16, capped at ×8
    assert s.points == 8 and s.uncapped == 16
    s = _score(ev, "1133557799224m", "4m", seat=1)  # … and 自摸 ×2 after the cap: ×16
    assert s.points == 16 and s.uncapped == 32
    s = _score(ev, "123456789m234p5s", "5s", seat=1)  # win ×1 × 自摸 ×2
    assert s.points == 2
    # two kongs: 杠 counted twice, ×2²
    s = _score(ev, "123m456p5s", "5s", ("kong 1s from 2", "kong 9p from 3"), **discard)
    assert ("杠", 2) in [(p.name, p.times) for p in s.patterns] and s.points == 4


def test_commands_print_factors(tmp_path: Path) -> None:
    r = CliRunner().invoke(main, ["score", str(RULESETS / "product-108.yaml"), "1133557799224m",
                                  "-t", "4m", "-s", "1"])
    assert r.exit_code == 0, r.output
    assert "清一色  ×4" in r.output and "七对  ×4" in r.output and "自摸  ×2" in r.output
    r = CliRunner().invoke(main, ["score", str(RULESETS / "product-108.yaml"), "123m456p5s", "-t", "5s",
                                  "-s", "1", "-m", "kong 1s from 2", "-m", "kong 9p from 3", "--json"])
    assert '"label": "×2²"' in r.output, r.output
    r = CliRunner().invoke(main, ["doc", str(RULESETS / "product-108.yaml")])
    assert r.exit_code == 0 and "清一色 — ×4" in r.output, r.output[-2000:]


def test_product_mistakes_are_located(tmp_path: Path) -> None:
    p = variant(tmp_path, """
        patterns:
          - name: zero
            require: {kongs: 1}
            points: 0
        """, base="product-108.yaml")
    assert any("under `combine: product` points are a factor" in x and "v.yaml:8:13: patterns[0].points" in x
               for x in problems(p)), problems(p)
    q = variant(tmp_path, """
        scoring: {combine: sum, cap: null}
        """, base="product-108.yaml", name="w.yaml")
    assert any("`after_cap` is counted after `scoring.cap`" in x for x in problems(q)), problems(q)


# -- per-payer amounts, caps, liability ---------------------------------------------------


def _payments(ev: Evaluator, tiles: str, win: str, melds: tuple[str, ...] = (),
              seats: dict[int, SeatFacts] | None = None, **ctx: object) -> list[tuple[int, int]]:
    hand, context = make_hand(tiles, list(melds), win_tile=win), WinContext(**ctx)  # type: ignore[arg-type]
    score = ev.score(hand, context)
    assert score.win, score.reason
    return [(p.payer, p.amount) for p in ev.settle(hand, context, score, seats=seats).payments]


def test_each_payer_pays_by_its_own_melds_and_state_capped() -> None:
    ev = Evaluator(load_ruleset(RULESETS / "payers-108.yaml"))
    seats = {0: SeatFacts((Meld("pung", (0, 0, 0), 2), Meld("pung", (19, 19, 19), 3))),  # 2 claims: ×4
             2: SeatFacts((Meld("kong", (20,) * 4, 3),)),  # a claimed kong: ×2 ×2
             3: SeatFacts((), {"piao": 1})}  # +1
    # 1 point (win): 1 × 4, 1 × 2 × 2, 1 + 1
    assert _payments(ev, "123456789m234p5s", "5s", seats=seats, seat=1) == [(0, 4), (2, 4), (3, 2)]
    # 3 points (win + 清一色): 12 and 12 capped at 8 (封顶), 4
    assert _payments(ev, "1112345678999m", "5m", seats=seats, seat=1) == [(0, 8), (2, 8), (3, 4)]
    # every payer capped: each pays 12 (金顶)
    seats[3] = SeatFacts((Meld("pung", (9, 9, 9), 0), Meld("pung", (10,) * 3, 0)), {"piao": 2})  # 3 × 4 + 1
    assert _payments(ev, "1112345678999m", "5m", seats=seats, seat=1) == [(0, 12), (2, 12), (3, 12)]
    # no seats given: nobody has melds or state
    assert _payments(ev, "1112345678999m", "5m", seat=1) == [(0, 3), (2, 3), (3, 3)]


def test_liability_says_who_pays_instead_of_whom() -> None:
    ev = Evaluator(load_ruleset(RULESETS / "liable-108.yaml"))
    hand = "123456789m234p5s"
    # a self-draw: everyone pays their share (the dealer ×2)
    assert _payments(ev, hand, "5s", seat=1) == [(0, 2), (2, 1), (3, 1)]
    # a discard by seat 2: seat 2 pays every share, each as a self-draw share (点炮包三家)
    assert _payments(ev, hand, "5s", seat=1, win_by="discard", discarder=2) == [(2, 2), (2, 1), (2, 1)]
    # a robbed kong of the dealer: the konger pays all (抢杠全包)
    assert _payments(ev, hand, "5s", seat=1, win_by="robbed_kong", discarder=0) == [(0, 2), (0, 1), (0, 1)]
    # three claims fed by seat 2: seat 2 pays everything, even on a self-draw
    fed = ("pung 1m from 2", "pung 2m from 2", "pung 3p from 2", "pung 4p from 3")
    assert _payments(ev, "5s", "5s", fed, seat=1) == [(2, 8), (2, 4), (2, 4)]
    two = ("pung 1m from 2", "pung 2m from 3", "pung 3p from 2", "pung 4p from 3")
    assert _payments(ev, "5s", "5s", two, seat=1) == [(0, 8), (2, 4), (3, 4)]
    hand_ = make_hand("5s", list(fed), win_tile="5s")
    s = ev.settle(hand_, WinContext(seat=1), ev.score(hand_, WinContext(seat=1)))
    assert s.net() == [0, 16, -16, 0] and "(for seat 0)" in s.payments[0].reason


def test_money_rulesets_play_with_balanced_settlements() -> None:
    for name in ("payers-108.yaml", "liable-108.yaml", "product-108.yaml"):
        res = simulate(str(RULESETS / name), 16, seed=4)
        assert res.stats.abandoned == 0, name


def test_bad_money_is_located(tmp_path: Path) -> None:
    p = variant(tmp_path, """
        scoring:
          payment_cap: 8
          all_capped: 4
          per_payer:
            - {per: kongs}
          liable:
            - {pays: feeder}
            - {pays: discarder, fed: 2}
        """, base="payers-108.yaml")
    found = problems(p)
    for path, words in (("scoring.all_capped", "below `payment_cap`"),
                        ("scoring.per_payer[0]", "`times` (a factor) or `plus`"),
                        ("scoring.liable[0].pays", "give `fed`"),
                        ("scoring.liable[1].fed", "needs `pays: feeder`")):
        assert any(f": {path}:" in x and words in x and str(p) in x for x in found), (path, found)


# -- cases and `mj score` see what play sees ----------------------------------------------------


def test_conformance_cases_give_other_seats_and_options_per_case() -> None:
    for name in ("money.yaml", "liable.yaml", "conditions.yaml", "product.yaml"):
        results = run_file(RULESETS / "cases" / name)
        assert results and all(r.passed for r in results), [r.describe() for r in results]


def test_mj_score_gives_other_seats() -> None:
    r = CliRunner().invoke(main, ["score", str(RULESETS / "payers-108.yaml"), "1112345678999m", "-t", "5m",
                                  "-s", "1", "--seat-meld", "0:pung 1p from 2", "--seat-meld",
                                  "0:pung 2p from 3", "--seat-meld", "2:kong 3p from 3",
                                  "--seat-state-of", "3:piao=1", "--json"])
    assert r.exit_code == 0, r.output
    assert '"payments": [-8, 20, -8, -4]' in r.output
    for bad in (["--seat-meld", "1:pung 1p from 2"], ["--seat-meld", "2:pung 1p from 2"],
                ["--seat-meld", "x"], ["--seat-state-of", "2:piao"]):
        r = CliRunner().invoke(main, ["score", str(RULESETS / "payers-108.yaml"), "1112345678999m",
                                      "-t", "5m", "-s", "1", *bad])
        assert r.exit_code != 0 and "Traceback" not in r.output and "error" in r.output, (bad, r.output)


class _Refuser:
    """Refuses a discard win of a seat whose state says it passed the tile (过水不胡); records the
    melds the settlement hook sees."""

    options_schema: ClassVar[dict[str, Any]] = {"type": "object"}
    seen: ClassVar[list[Any]] = []

    def __init__(self, options: dict[str, Any]) -> None:
        self.options = options

    @hookimpl
    def mj_refuse_win(self, hand: Any, seat: int, tile: int, win_by: str, context: Any) -> str | None:
        return "passed it this round" if win_by == "discard" and context.seat_state.get("passed") else None

    @hookimpl
    def mj_modify_settlement(self, settlement: Any, context: Any) -> None:
        _Refuser.seen.append(dict(context.melds))


def test_score_and_cases_honour_refuse_win_and_give_melds_to_settlement(tmp_path: Path) -> None:
    register_plugin("t-refuser", _Refuser)
    try:
        p = variant(tmp_path, "plugins: {t-refuser: {}}\n")
        ev = Evaluator(load_ruleset(p))
        hand = make_hand("123456789m234p5s", win_tile="5s")
        ctx = WinContext(seat=1, win_by="discard", discarder=2, seat_state={"passed": True})
        res = ev.evaluate(hand, ctx)
        assert not res.score.win and "passed it this round" in res.score.reason
        assert ev.evaluate(hand, WinContext(seat=1, win_by="discard", discarder=2)).score.win
        r = CliRunner().invoke(main, ["score", str(p), "123456789m234p5s", "-t", "5s", "-s", "1", "-d", "2",
                                      "--seat-state", "passed=true"])
        assert "passed it this round" in r.output, r.output
        cases = tmp_path / "cases.yaml"
        cases.write_text(f"format: 1\nruleset: {p}\ncases:\n"
                         "  - {id: refused, seat: 1, hand: 123456789m234p5s, win_tile: 5s, win_by: discard,\n"
                         "     discarder: 2, seat_state: {passed: true}, expect: {win: false}}\n"
                         "  - {id: melds, seat: 1, hand: 123456789m5s, win_tile: 5s,\n"
                         "     melds: [pung 2p from 3], seats: {3: {melds: [pung 7s from 1]}},\n"
                         "     expect: {win: true}}\n", encoding="utf-8")
        _Refuser.seen.clear()
        results = run_file(cases)
        assert all(r.passed for r in results), [r.describe() for r in results]
        assert [{s: [str(m) for m in ms] for s, ms in d.items()} for d in _Refuser.seen] == [
            {1: [str(Meld("pung", (10, 10, 10), 3))], 3: [str(Meld("pung", (24, 24, 24), 1))]}]
    finally:
        unregister_plugin("t-refuser")


def test_bad_case_seats_are_case_errors(tmp_path: Path) -> None:
    cases = tmp_path / "cases.yaml"
    hand = "seat: 1, hand: 1112345678999m, win_tile: 5m, expect: {win: true}"
    cases.write_text(f"format: 1\nruleset: {RULESETS / 'payers-108.yaml'}\ncases:\n"
                     f"  - {{id: a, {hand}, seats: {{7: {{}}}}}}\n"
                     f"  - {{id: b, {hand}, seats: {{2: {{melds: [pung 1p from 2]}}}}}}\n"
                     f"  - {{id: c, {hand}, options: {{cap: 99}}}}\n"
                     f"  - {{id: d, {hand}, seats: {{2: {{hand: 1m}}}}}}\n", encoding="utf-8")
    got = {r.id: r for r in run_file(cases)}
    assert got["a"].status == "error" and "no seat 7" in got["a"].message
    assert got["b"].status == "error" and "its own seat" in got["b"].message
    assert got["c"].status == "error" and "cap" in got["c"].message
    assert got["d"].status == "error" and "`melds` and/or `seat_state`" in got["d"].message


def test_a_case_files_relative_ruleset_is_found_beside_it_first(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    # The same relative name in the current folder (a ruleset where the hand pays 1) and beside the
    # case file (one where it pays 80): the case file's neighbour is meant.
    here, there = tmp_path / "cwd", tmp_path / "cases"
    (here / "sub").mkdir(parents=True)
    (there / "sub").mkdir(parents=True)
    for folder, points in ((here, 1), (there, 80)):
        # (`extends` reaches only the file's own folder tree: the base is copied beside it)
        base = (RULESETS / "base-108.yaml").read_text("utf-8")
        (folder / "sub" / "base-108.yaml").write_text(base, "utf-8")
        (folder / "sub" / "r.yaml").write_text(
            "format: 1\nid: r\nname: r\nextends: base-108.yaml\n"
            f"patterns:\n  - {{name: win, points: {points}}}\n", encoding="utf-8")
    (there / "c.yaml").write_text(
        "format: 1\nruleset: sub/r.yaml\ncases:\n  - {id: a, seat: 1, hand: 123456789m234p5s, win_tile: 5s,\n"
        "     expect: {payments: [-80, 240, -80, -80]}}\n", encoding="utf-8")
    monkeypatch.chdir(here)
    results = run_file(there / "c.yaml")
    assert [r.status for r in results] == ["pass"], [r.describe() for r in results]


def test_liability_may_read_the_plugin_context_patterns_may_not(tmp_path: Path) -> None:
    # "the discarder of the tile that completed a dangerous exposed hand": a plugin says so in
    # the context (here given by hand); the liability reads it, at settlement.
    p = variant(tmp_path, """
        scoring:
          liable:
            - {pays: discarder, when: {win_by: [discard], context: {dangerous: true}}}
        """)
    ev = Evaluator(load_ruleset(p))
    hand = make_hand("123456789m234p5s", win_tile="5s")
    for extra, pays in (({"dangerous": True}, [(2, 1), (2, 1), (2, 1)]), ({}, [(2, 1)])):
        ctx = WinContext(seat=1, win_by="discard", discarder=2, extra=extra)
        if not extra:
            ctx = WinContext(seat=1, win_by="discard", discarder=2)
        got = [(x.payer, x.amount) for x in ev.settle(hand, ctx, ev.score(hand, ctx)).payments]
        assert got == pays, extra
    q = variant(tmp_path, """
        patterns:
          - name: birds
            when: {any: [{context: {birds: {min: 1}}}]}
            points: 1
        """, name="w.yaml")
    assert any("patterns[0].when" in x and "`context` is what plugins give when the win is settled" in x
               for x in problems(q)), problems(q)


def test_mj_score_does_not_explain_a_taiwan_16_payment_as_a_multiple() -> None:
    """A payment with the 底 and the dealer's 台 added (`scoring.bonuses`) is no multiple of the
    台: `mj score` printed "7 = 1 ×7" for 底 5 + 1 台 + 庄家 1; now the amount alone."""
    from click.testing import CliRunner

    from mjframework.cli import main

    out = CliRunner().invoke(main, ["score", "taiwan-16", "234m 567p 99s 45m", "-m", "pung 5s from 1",
                                    "-m", "chow 678s from 1", "-t", "3m", "-s", "2"])
    assert out.exit_code == 0, out.output
    assert "×" not in out.output and "  7   胡牌+自摸" in out.output
