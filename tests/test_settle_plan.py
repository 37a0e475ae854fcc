"""Win payments from a per-seat plan (settle.win_plan / pay_plan, Evaluator.settle's cache)
against the payment rule computed payer by payer, as settlement did before plans.

The plan turns ``payment_amount`` into ``base × times + plus``; these tests check every
seat arrangement, payer subset and a range of points on the shipped rulesets, the
purpose-made ones and a ruleset with every multiplier, bonus and ``each_pays`` declared.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterable, Sequence
from pathlib import Path

import pytest

from mjframework.core.hand import Hand, WinContext
from mjframework.evaluate.scoring import Evaluator, Score, ScoredPattern
from mjframework.rules.loader import load_ruleset
from mjframework.rules.model import Ruleset
from mjframework.settle import settlement as st

HERE = Path(__file__).resolve().parent
RULESETS = ["changsha", "yongzhou-wangba", "yongzhou-huandiao", "sichuan-xuezhan", "mcr",
            *(str(p) for p in sorted((HERE / "rulesets").glob("*.yaml")))]


def reference_win_payments(ruleset: Ruleset, *, winner: int, dealer: int, win_by: str, discarder: int | None,
                           points: int, reason: str, payers: Sequence[int] | None = None) -> list[st.Payment]:
    """win_payments as it was: payment_amount per payer."""
    rule = ruleset.scoring.payer(win_by)
    who: Iterable[int]
    if rule == "discarder" and discarder is not None:
        who = [discarder]
    else:
        who = (s for s in range(ruleset.players) if s != winner)
    if payers is not None:
        who = [p for p in who if p in payers]
    sc = ruleset.scoring
    base = sc.amount(points)
    out = []
    liable = list(who)
    for payer in liable:
        out.append(st.Payment(payer, winner, st.payment_amount(
            sc, base, dealer=dealer in (payer, winner), discarder=payer == discarder,
            self_draw=win_by == "self_draw") + sc.each_pays, reason))
    if sc.each_pays:
        for payer in range(ruleset.players):
            if payer != winner and payer not in liable and (payers is None or payer in payers):
                out.append(st.Payment(payer, winner, sc.each_pays, reason))
    return out


def _everything(rs: Ruleset) -> Ruleset:
    sc = dataclasses.replace(rs.scoring, multipliers={"dealer": 2, "discarder": 3, "self_draw": 5},
                             bonuses={"dealer": 1, "discarder": 7, "self_draw": 11}, dealer_bonus=13,
                             each_pays=17)
    return dataclasses.replace(rs, scoring=sc)


def _cases(rs: Ruleset):
    n = rs.players
    for winner, dealer in itertools.product(range(n), range(n)):
        for win_by in ("self_draw", "discard", "robbed_kong"):
            discarders = [None] if win_by == "self_draw" else [s for s in range(n) if s != winner]
            for discarder in discarders:
                others = [s for s in range(n) if s != winner]
                subsets = [None] + [list(c) for k in range(len(others) + 1)
                                    for c in itertools.combinations(others, k)]
                for payers in subsets:
                    yield winner, dealer, win_by, discarder, payers


@pytest.mark.parametrize("rid", [*RULESETS, "everything"], ids=lambda r: Path(r).stem)
def test_plans_pay_as_the_rule(rid: str) -> None:
    rs = _everything(load_ruleset("changsha")) if rid == "everything" else load_ruleset(rid)
    for winner, dealer, win_by, discarder, payers in _cases(rs):
        for points in (0, 1, 2, 3, 7, 12, 40):
            kw = dict(winner=winner, dealer=dealer, win_by=win_by, discarder=discarder, payers=payers)
            want = reference_win_payments(rs, points=points, reason="x", **kw)
            assert st.win_payments(rs, points=points, reason="x", **kw) == want, (kw, points)
            plan = st.win_plan(rs, **kw)
            assert st.pay_plan(plan, winner, rs.scoring.amount(points), "x") == want


def test_evaluator_settle_uses_the_plan_per_seats() -> None:
    """Evaluator.settle (cached plans) pays as the rule for every seat arrangement, twice over."""
    rs = _everything(load_ruleset("changsha"))
    ev = Evaluator(rs)
    hand = Hand((0,) * 3 + (1,) * 3 + (2,) * 3 + (3,) * 3 + (4,), (), 4)
    for _round in range(2):
        for winner, dealer, win_by, discarder, payers in _cases(rs):
            ctx = WinContext(seat=winner, dealer=dealer, win_by=win_by, discarder=discarder)
            score = Score(True, patterns=[ScoredPattern("a", 2), ScoredPattern("b", 3)], points=5)
            got = ev.settle(hand, ctx, score, kongs=[], payers=payers, plugins=False)
            want = reference_win_payments(rs, winner=winner, dealer=dealer, win_by=win_by,
                                          discarder=discarder, points=5, reason="a+b", payers=payers)
            assert got.payments == want
