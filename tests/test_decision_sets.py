"""Several seats deciding at once: the claims on a discard, the robbing of an added kong,
an exchange (换三张), a declaration at the deal (定缺) are each one decision set
(``Table.pending_set``), answered together (``Table.step_all``) or seat by seat (``step``)
with the same hand, event for event."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any, ClassVar

import pytest

from mjframework.hooks.registry import register_plugin, unregister_plugin
from mjframework.hooks.specs import hookimpl
from mjframework.play.players import Decision, IllegalDecision, Option
from mjframework.play.stepper import Table
from mjframework.rules.loader import available_rulesets, load_ruleset
from mjframework.run.simulate import load_cached

SHIPPED = sorted(available_rulesets())


def _pick(rng: random.Random, d: Decision) -> Option:
    claims = [o for o in d.options if o.kind != "pass"]
    return claims[0] if claims and rng.random() < 0.5 else rng.choice(d.options)


@pytest.mark.parametrize("rid", SHIPPED)
def test_a_decision_set_answered_at_once_plays_as_seat_by_seat(rid: str) -> None:
    rs, ev = load_cached(rid)
    sets: dict[str, int] = {}
    for seed in range(5):
        rng = random.Random(seed)
        together = Table(rs, seed=seed, evaluator=ev)
        pending = together.reset()
        answers: list[Option] = []  # every answer, in the order the engine took them
        while isinstance(pending, Decision):
            group = together.pending_set
            assert group[0] is pending
            assert len({d.seat for d in group}) == len(group)
            if len(group) > 1:
                kinds = {d.kind for d in group}
                assert len(kinds) == 1 and kinds <= {"claim", "rob", "exchange", "declare"}
                kind = kinds.pop()
                sets[kind] = sets.get(kind, 0) + 1
                if kind in ("claim", "rob"):  # one discard, one added kong
                    assert len({(d.tile, d.from_seat) for d in group}) == 1
                else:  # every seat at once (at the deal)
                    assert len(group) == rs.players
                    assert all(o.kind == kind for d in group for o in d.options)
                chosen = {d.seat: _pick(rng, d) for d in group}
                before = len(answers)
                pending = together.step_all(chosen)
                answers.extend(chosen[d.seat] for d in group)
                assert len(answers) - before == len(group)
            else:
                answers.append(_pick(rng, pending))
                pending = together.step(answers[-1])
        one_by_one = Table(rs, seed=seed, evaluator=ev)
        p = one_by_one.reset()
        expected: list[Decision] = []  # the rest of a set, as pending_set showed it
        for a in answers:
            assert isinstance(p, Decision)
            if expected:
                assert p == expected.pop(0)  # the set showed the decisions the engine then asks
            elif len(one_by_one.pending_set) > 1:
                expected = list(one_by_one.pending_set[1:])
            p = one_by_one.step(a)
        assert not expected
        assert p == pending
        assert one_by_one.events == together.events
    if rs.claims.chow:  # a chow and a pung on one discard: several seats decide at once
        assert sets.get("claim", 0) > 0
    assert sets.get("exchange", 0) == (5 if rs.flow.exchange is not None else 0)
    assert sets.get("declare", 0) == (5 if rs.flow.void_suit is not None else 0)


def test_step_all_refuses_an_incomplete_or_wrong_answer_and_changes_nothing() -> None:
    rs, ev = load_cached("changsha")
    for seed in range(40):
        table = Table(rs, seed=seed, evaluator=ev)
        rng = random.Random(seed)
        pending = table.reset()
        while isinstance(pending, Decision) and len(table.pending_set) < 2:
            pending = table.step(rng.choice(pending.options))
        if not isinstance(pending, Decision):
            continue
        group = table.pending_set
        before = len(table.events)
        passes = {d.seat: next(o for o in d.options if o.kind == "pass") for d in group}
        with pytest.raises(IllegalDecision, match="no answer"):
            table.step_all({group[0].seat: passes[group[0].seat]})
        with pytest.raises(IllegalDecision, match="not offered"):
            table.step_all({**passes, group[-1].seat: Option("discard", 0)})
        assert len(table.events) == before and table.pending_set == group
        after = table.step_all(passes)
        assert after is not group[0] and len(table.events) > before
        return
    pytest.fail("no decision set in 40 changsha hands")


class _OnlyManzuVoidForSeat1NoPung:
    """Leaves seat 1 one void suit to declare (so it is not asked) and removes every pung."""

    options_schema: ClassVar[dict[str, Any]] = {"type": "object"}

    def __init__(self, options: dict[str, Any]) -> None:
        self.options = options

    @hookimpl
    def mj_restrict_options(self, hand: Any, seat: int, decision: Decision) -> list[Option]:
        if decision.kind == "declare" and seat == 1:
            return [o for o in decision.options if o.value != "m"]
        return [o for o in decision.options if o.kind == "pung"]


def test_a_set_shows_the_decisions_as_restricted_and_leaves_out_a_seat_with_one_option(
        tmp_path: Path) -> None:
    from test_hand_flow import BLOOD, merged, write

    register_plugin("t-set-restrict", _OnlyManzuVoidForSeat1NoPung)
    try:
        rs = load_ruleset(write(tmp_path, merged(BLOOD, {"plugins": {"t-set-restrict": {}}})))
        claim_sets = 0
        for seed in range(6):
            table = Table(rs, seed=seed)
            rng = random.Random(seed)
            pending = table.reset()
            declared = False
            while isinstance(pending, Decision):
                group = table.pending_set
                for d in group:
                    assert not any(o.kind == "pung" for o in d.options)  # restricted as shown
                if group[0].kind == "declare":
                    assert [d.seat for d in group] == [0, 2, 3]  # seat 1 has one option: not asked
                    declared = True
                claim_sets += len(group) > 1 and group[0].kind == "claim"
                pending = table.step_all({d.seat: rng.choice(d.options) for d in group})
            assert declared
            void = [e for e in table.events if e["type"] == "declare"]
            assert [e["seat"] for e in void] == [0, 1, 2, 3] and void[1]["value"] == "m"
    finally:
        unregister_plugin("t-set-restrict")


def test_a_plugins_decision_set_is_asked_at_once_and_plays_as_seat_by_seat(tmp_path: Path) -> None:
    """opening-wins with ``declare: ask`` returns one Ask a seat that may declare: the seats
    are one set (kind ``opening``); answered together or one by one, the same hand."""
    ask = tmp_path / "changsha-ask.yaml"
    ask.write_text("format: 1\nid: changsha-ask\nextends: changsha\n"
                   "plugins: {opening-wins: {declare: ask}}\n", encoding="utf-8")
    rs = load_ruleset(ask)
    sets = 0
    for seed in range(300):  # the deal and the opening only (two seats may declare in ~1 hand of 300)
        table = Table(rs, seed=seed)
        pending = table.reset()
        answers: list[Option] = []
        while isinstance(pending, Decision) and pending.kind in ("opening", "exchange", "declare"):
            group = table.pending_set
            if group[0].kind == "opening":
                assert not [e for e in table.events if e["type"] == "opening_win"]  # none told yet
                sets += len(group) > 1
                chosen = {d.seat: d.options[i % 2] for i, d in enumerate(group)}  # declare, pass, …
                pending = table.step_all(chosen)
                answers.extend(chosen[d.seat] for d in group)
                declared = [e["seat"] for e in table.events if e["type"] == "opening_win"]
                assert declared == [d.seat for i, d in enumerate(group) if i % 2 == 0]
            else:
                answers.append(pending.options[0])
                pending = table.step(answers[-1])
        if not answers:
            continue
        one = Table(rs, seed=seed)
        p = one.reset()
        for a in answers:
            assert isinstance(p, Decision)
            p = one.step(a)
        assert one.events == table.events and p == pending
    assert sets > 0  # two seats at once
