"""四川麻将 · 血战到底 (rulesets/sichuan-xuezhan.yaml, docs/rules/sichuan-xuezhan.md).

The hand-computed cases live in tests/conformance/sichuan-xuezhan*.yaml and the 2,000-hand replay
in tests/test_replay.py; this file checks what those can't: the `groups.laid_down` measure the
ruleset's 金钩钓 needs (on a purpose-made ruleset), the 自摸加底 option, and a short simulation
through the CLI.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from mjframework.cli import main
from mjframework.core.hand import WinContext, make_hand
from mjframework.evaluate.scoring import Evaluator
from mjframework.rules.loader import load_ruleset

ROOT = Path(__file__).resolve().parents[1]

LAID_DOWN = """\
format: 1
id: test-laid-down
name: test laid-down groups
extends: {base}
patterns:
  - name: win
    shape: standard
    points: 1
  - name: all laid down
    require: {{groups: {{kind: [triplet], laid_down: true, count: 4}}}}
    points: 10
  - name: one formed in hand
    require: {{groups: {{kind: [triplet], laid_down: false, count: 1}}}}
    points: 100
"""


@pytest.fixture(scope="module")
def laid_down(tmp_path_factory: pytest.TempPathFactory) -> Evaluator:
    path = tmp_path_factory.mktemp("laid") / "laid.yaml"
    path.write_text(LAID_DOWN.format(base=ROOT / "tests" / "rulesets" / "base-108.yaml"), "utf-8")
    return Evaluator(load_ruleset(str(path)))


@pytest.mark.parametrize(("melds", "hand", "want"), [
    # a concealed kong is laid down (unlike `exposed`, which means made with a claimed tile)
    (["concealed-kong 7m", "pung 3m from 0", "kong 4p from 3", "added-kong 6p"], "1p", {"all laid down"}),
    (["pung 3m from 0", "pung 7m from 2", "pung 4p from 3"], "666p 1p", {"one formed in hand"}),
    ([], "111m 123p 456p 789p 9s", {"one formed in hand"}),
])
def test_laid_down_groups(laid_down: Evaluator, melds: list[str], hand: str, want: set[str]) -> None:
    tile = hand.split()[-1][-2:]
    score = laid_down.score(make_hand(hand, melds, tile), WinContext(seat=1, win_by="discard", discarder=0))
    assert score.win
    assert set(score.pattern_names) - {"win"} == want


def test_jiadi_only_changes_self_draw() -> None:
    """加底: 自摸 is worth no 番, and each payer adds one base after the cap."""
    base = Evaluator(load_ruleset("sichuan-xuezhan"))
    jiadi = Evaluator(load_ruleset("sichuan-xuezhan", options={"self_draw": "base"}))
    hand = make_hand("111s 333s 88s 99s", ["concealed-kong 2s"], "9s")
    ctx = WinContext(seat=3, win_by="self_draw")
    assert base.evaluate(hand, ctx).payments == [-16, -16, -16, 48]   # 5 番, capped at 4
    assert jiadi.evaluate(hand, ctx).payments == [-17, -17, -17, 51]  # 4 番 = 16, + 1
    disc = WinContext(seat=3, win_by="discard", discarder=1)
    assert base.evaluate(hand, disc).payments == jiadi.evaluate(hand, disc).payments == [0, -16, 0, 16]


def test_simulate_has_several_wins_exchanges_and_declarations(tmp_path: Path) -> None:
    log = tmp_path / "sc.jsonl"
    res = CliRunner().invoke(main, ["simulate", "sichuan-xuezhan", "--hands", "60", "--seed", "1",
                                    "--log", str(log)])
    assert res.exit_code == 0, res.output
    wins_per_hand: list[int] = []
    types: set[str] = set()
    for line in log.read_text("utf-8").splitlines()[1:]:
        e = json.loads(line)
        types.add(e["type"])
        if e["type"] == "hand_start":
            wins_per_hand.append(0)
        elif e["type"] == "win":
            wins_per_hand[-1] += 1
        elif e["type"] == "hand_end":
            assert e["result"] in ("win", "draw")
    assert {"exchange", "declare", "kong"} <= types
    assert 2 in wins_per_hand and 3 in wins_per_hand


def test_conformance_in_play_key(tmp_path: Path) -> None:
    """`in_play` (seats still in the hand) decides who pays a self-draw; a bad value is a case error."""
    from mjframework.run.conformance import run_file

    f = tmp_path / "cases.yaml"
    f.write_text(
        "format: 1\nruleset: sichuan-xuezhan\ncases:\n"
        "  - {id: two-left, seat: 1, in_play: [1, 3], hand: 123m 456m 789p 234p 5p, win_tile: 5p,\n"
        "     expect: {payments: [0, 2, 0, -2]}}\n"
        "  - {id: bad, seat: 1, in_play: three, hand: 123m 456m 789p 234p 5p, win_tile: 5p,\n"
        "     expect: {win: true}}\n", "utf-8")
    good, bad = run_file(f)
    assert good.passed, good.describe()
    assert bad.status == "error" and "in_play" in bad.message


# -- an independent reading of docs/rules/sichuan-xuezhan.md §5/§7, against the evaluator ----------
#
# A small brute-force scorer written from the rules page alone (no mjframework import below this
# line's helpers): it enumerates the 4-sets-and-a-pair and seven-pairs readings of a hand, adds the
# 番 of §7, caps at 4 and pays 2^番. Hypothesis builds random hands of the variant and both must agree.

CAP = 4


def _groups_of(counts: dict[str, int]) -> list[list[tuple[str, str]]]:
    """Every way to split ``counts`` (tile → n) into triplets ('t') and sequences ('s')."""
    keys = sorted(k for k, v in counts.items() if v)
    if not keys:
        return [[]]
    k = keys[0]
    r, s = int(k[0]), k[1]
    out = []
    if counts[k] >= 3:
        counts[k] -= 3
        out += [[("t", k), *rest] for rest in _groups_of(counts)]
        counts[k] += 3
    nxt = [f"{r + 1}{s}", f"{r + 2}{s}"]
    if r <= 7 and all(counts.get(x, 0) for x in nxt):
        for x in (k, *nxt):
            counts[x] -= 1
        out += [[("s", k), *rest] for rest in _groups_of(counts)]
        for x in (k, *nxt):
            counts[x] += 1
    return out


def _group_tiles(kind: str, t: str) -> list[str]:
    if kind == "s":
        return [f"{int(t[0]) + i}{t[1]}" for i in range(3)]
    return [t] * {"t": 3, "k": 4, "p": 2}[kind]


def independent_score(held: list[str], melds: list[tuple[str, str]], win_by: str, flags: set[str],
                      void: str | None) -> tuple[int, set[tuple[str, ...]]] | None:
    """(amount per payer, pattern-name sets of the best readings) or None for no win.
    ``held``: the concealed tiles with the winning tile; ``melds``: (kind, tile)."""
    laid = [("k" if kind.endswith("kong") else "t", t) for kind, t in melds]
    every = held + [x for g in laid for x in _group_tiles(*g)]
    suits = {t[1] for t in every}
    if len(suits) == 3 or (void is not None and void in suits):
        return None
    fours = sum(1 for t in set(every) if every.count(t) == 4)
    counts: dict[str, int] = {}
    for t in held:
        counts[t] = counts.get(t, 0) + 1
    readings = []
    for p in [t for t, n in counts.items() if n >= 2]:
        counts[p] -= 2
        readings += [("std", [*g, *laid, ("p", p)]) for g in _groups_of(counts) if len(g) + len(laid) == 4]
        counts[p] += 2
    if not melds and len(held) == 14 and all(n % 2 == 0 for n in counts.values()):
        readings.append(("7p", []))
    best: dict[int, set[tuple[str, ...]]] = {}
    for shape, groups in readings:
        fan: dict[str, int] = {}
        if shape == "std" and all(k != "s" for k, _ in groups):
            if all(int(t[0]) in (2, 5, 8) for t in every):
                fan["将对"] = 3
            else:
                fan["对对胡"] = 1
        if len(suits) == 1:
            fan["清一色"] = 2
        if shape == "7p":
            fan["龙七对" if 4 in counts.values() else "七对"] = 3 if 4 in counts.values() else 2
        if shape == "std" and all(any(int(x[0]) in (1, 9) for x in _group_tiles(*g)) for g in groups):
            fan["带幺九"] = 2
        if shape == "std" and not fan:
            fan["平胡"] = 0
        if len(laid) == 4:
            fan["金钩钓"] = 1
        if fours:
            fan["根"] = fours
        if win_by == "self_draw":
            fan["自摸"] = 1
            if "after_kong" in flags:
                fan["杠上花"] = 1
            if "last_tile" in flags:
                fan["海底捞月"] = 1
        if win_by == "discard" and "after_kong_discard" in flags:
            fan["杠上炮"] = 1
        if win_by == "robbed_kong":
            fan["抢杠胡"] = 1
        amount = 2 ** min(sum(fan.values()), CAP)
        best.setdefault(amount, set()).add(tuple(sorted(fan)))
    if not best:
        return None
    top = max(best)
    return top, best[top]


@st.composite
def sichuan_hands(draw: st.DrawFn) -> dict:
    # Mostly two suits and few kongs or flags, so that most hands stay below the cap.
    suits = draw(st.sampled_from(["mp", "ms", "ps", "mp", "ms", "ps", "m", "mps"]))
    if draw(st.integers(0, 4)) == 0:  # seven pairs
        kinds = draw(st.lists(st.tuples(st.integers(1, 9), st.sampled_from(suits)), min_size=6, max_size=7))
        kinds = kinds + kinds[:7 - len(kinds)]  # a repeated kind is four identical tiles
        concealed = [f"{r}{s}" for r, s in kinds for _ in range(2)]
        melds: list[tuple[str, str]] = []
    else:
        # Biased now and then towards the rarer patterns: 带幺九 (1s and 9s), 将对 (2-5-8 triplets),
        # 金钩钓 (every set laid down).
        mode = draw(st.sampled_from(["any", "any", "terminals", "258", "laid"]))
        rank = {"terminals": st.sampled_from([1, 9]), "258": st.sampled_from([2, 5, 8])}.get(
            mode, st.integers(1, 9))
        start = st.sampled_from([1, 7]) if mode == "terminals" else st.integers(1, 7)
        melded = ["pung", "pung", "kong", "added-kong", "concealed-kong"]
        concealed, melds = [], []
        for _ in range(4):
            s = draw(st.sampled_from(suits))
            if mode not in ("258", "laid") and draw(st.booleans()):
                concealed += _group_tiles("s", f"{draw(start)}{s}")
                continue
            t = f"{draw(rank)}{s}"
            how = draw(st.sampled_from(melded if mode == "laid" else ["held"] * 4 + melded))
            if how == "held":
                concealed += [t] * 3
            else:
                melds.append((how, t))
        concealed += [f"{draw(rank)}{draw(st.sampled_from(suits))}"] * 2
    every = concealed + [t for kind, t in melds for _ in range(4 if kind.endswith("kong") else 3)]
    assume(all(every.count(t) <= 4 for t in set(every)))
    win = draw(st.sampled_from(sorted(set(concealed))))
    held = list(concealed)
    held.remove(win)
    win_by = draw(st.sampled_from(["self_draw", "discard", "discard", "robbed_kong"]))
    flag = st.sampled_from(["after_kong", "after_kong_discard", "last_tile"])
    flags = set(draw(st.lists(flag, max_size=1)))
    missing = [x for x in "mps" if x not in suits]
    void = draw(st.sampled_from([None, *missing, *missing, "m", "p", "s"]))
    seat = draw(st.integers(0, 3))
    others = [x for x in range(4) if x != seat]
    in_play = sorted([seat, *draw(st.lists(st.sampled_from(others), min_size=1, max_size=3, unique=True))])
    return dict(held=held, melds=melds, win=win, win_by=win_by, flags=flags, void=void, seat=seat,
                in_play=in_play, discarder=next(x for x in in_play if x != seat))  # a discarder is in play


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(sichuan_hands())
def test_evaluator_agrees_with_an_independent_reading(case: dict) -> None:
    ev = _sichuan()
    giver = case["discarder"]  # any other seat
    meld_strs = [f"{k} {t}" + (f" from {giver}" if k in ("pung", "kong") else "") for k, t in case["melds"]]
    by = case["win_by"]
    hand = make_hand(" ".join(case["held"]), meld_strs, case["win"])
    ctx = WinContext(seat=case["seat"], win_by=by, discarder=None if by == "self_draw" else case["discarder"],
                     flags=frozenset(case["flags"]), in_play=frozenset(case["in_play"]),
                     seat_state={"void_suit": case["void"]} if case["void"] else {})
    got = ev.evaluate(hand, ctx)
    want = independent_score([*case["held"], case["win"]], case["melds"], by, case["flags"], case["void"])
    assert got.score.win == (want is not None), (got.score.reason, want)
    if want is None:
        return
    amount, names = want
    if len(names) == 1:
        assert tuple(sorted(got.score.pattern_names)) in names
    pay = [0] * 4
    for p in (case["in_play"] if by == "self_draw" else [case["discarder"]]):
        if p != case["seat"]:
            pay[p] -= amount
            pay[case["seat"]] += amount
    assert got.payments == pay, (got.score.pattern_names, names)


_EV: list[Evaluator] = []


def _sichuan() -> Evaluator:
    if not _EV:
        _EV.append(Evaluator(load_ruleset("sichuan-xuezhan")))
    return _EV[0]
