"""The hand as a stepper (mjframework.play.stepper): stepped from outside == bot-driven."""

from __future__ import annotations

import random
from typing import ClassVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mjframework import load_ruleset
from mjframework.play.bots import GreedyBot, RandomBot
from mjframework.play.events import Collector
from mjframework.play.game import Game, HandResult
from mjframework.play.players import Decision, IllegalDecision, Option
from mjframework.play.stepper import Table, play_hand, run_policy

RULESETS = ["changsha", "yongzhou-wangba", "yongzhou-huandiao", "sichuan-xuezhan"]
BACKENDS = [None, "thread"]  # (``backend`` chose a worker once; it is accepted and ignored now)


def _bot_log(rs, seed: int, make) -> list:
    c = Collector()
    Game(rs, [make(seed, i) for i in range(rs.players)], seed=seed, emit=c).play()
    return list(c)


def _greedy(seed: int, seat: int) -> GreedyBot:
    return GreedyBot(random.Random(seed * 10 + seat))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("rid", RULESETS)
def test_stepped_from_outside_equals_bot_driven(rid: str, backend: str) -> None:
    rs = load_ruleset(rid)
    for seed in range(4):
        expected = _bot_log(rs, seed, _greedy)
        # No Player object: a plain policy picks by index with its own seeded RNG per seat.
        rngs = [random.Random(seed * 10 + i) for i in range(rs.players)]
        table = Table(rs, seed=seed, backend=backend)
        pending = table.reset()
        steps = 0
        while isinstance(pending, Decision):
            d = pending
            wins = [o for o in d.options if o.kind == "win"]
            pending = table.step(wins[0] if wins else rngs[d.seat].choice(d.options))
            steps += 1
        assert isinstance(pending, HandResult) and table.done
        rngs = [random.Random(seed * 10 + i) for i in range(rs.players)]
        bots = [RandomBot(r) for r in rngs]
        assert list(table.events) == _bot_log(rs, seed, lambda s, i, bots=bots: bots[i])
        assert steps > 0
        # Player.decide as an adapter over the stepper gives the bot-driven log too.
        t2 = Table(rs, seed=seed, backend=backend)
        play_hand(t2, [_greedy(seed, i) for i in range(rs.players)])
        assert list(t2.events) == expected


@pytest.mark.parametrize("backend", BACKENDS)
def test_illegal_option_is_refused_and_changes_nothing(backend: str) -> None:
    rs = load_ruleset("changsha")
    table = Table(rs, seed=3, backend=backend)
    d = table.reset()
    assert isinstance(d, Decision)
    before = len(table.events)
    with pytest.raises(IllegalDecision):
        table.step(Option("pung", 0, (0, 0, 0)))
    assert len(table.events) == before and table.pending is d
    nxt = table.step(d.options[0])
    assert nxt is not d
    table.close()


@pytest.mark.parametrize("backend", BACKENDS)
def test_leave_applies_the_leave_rule(backend: str) -> None:
    rs = load_ruleset("changsha")
    table = Table(rs, seed=5, backend=backend)
    d = table.reset()
    assert isinstance(d, Decision)
    out = table.leave(d.seat, "bot crashed")
    types = [e["type"] for e in table.events]
    assert "leave" in types
    leave = next(e for e in table.events if e["type"] == "leave")
    assert leave["seat"] == d.seat and leave["reason"] == "bot crashed"
    if rs.leave.hand == "bot":
        assert isinstance(out, (Decision, HandResult))
    else:
        assert isinstance(out, HandResult) and out.result == "abandon"
    table.close()


@pytest.mark.parametrize("backend", BACKENDS)
def test_close_mid_hand_and_reset(backend: str | None) -> None:
    import threading

    rs = load_ruleset("sichuan-xuezhan")
    before = threading.active_count()
    table = Table(rs, seed=1, backend=backend)
    for _ in range(3):
        d = table.reset()
        assert isinstance(d, Decision)
        table.step(d.options[0])
    table.close()
    table.close()
    assert threading.active_count() == before
    with pytest.raises(RuntimeError):
        table.step(Option("pass"))
    # A finished hand then a fresh one from the same table replay the same.
    first = run_policy(table, lambda d, v: d.options[0])
    log = list(table.events)
    assert run_policy(table, lambda d, v: d.options[0]) == first and list(table.events) == log


def test_engine_error_surfaces_on_the_callers_side() -> None:
    rs = load_ruleset("changsha")
    table = Table(rs, seed=2)
    table.reset()

    def boom(*a, **k):
        raise ZeroDivisionError("engine bug")

    assert table.game is not None
    table.game._discard = boom  # the next discard fails inside the engine
    with pytest.raises(ZeroDivisionError):
        pending = table.pending
        while isinstance(pending, Decision):
            opts = [o for o in pending.options if o.kind == "discard"] or list(pending.options)
            pending = table.step(opts[0])


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rid=st.sampled_from(RULESETS), seed=st.integers(0, 2**32), policy_seed=st.integers(0, 2**16),
       dealer=st.integers(0, 3))
def test_any_seed_any_policy_same_log(rid: str, seed: int, policy_seed: int, dealer: int) -> None:
    rs = load_ruleset(rid)
    rng = random.Random(policy_seed)
    table = Table(rs, seed=seed, dealer=dealer)
    choices: list[int] = []
    pending = table.reset()
    while isinstance(pending, Decision):
        i = rng.randrange(len(pending.options))
        choices.append(i)
        pending = table.step(pending.options[i])

    class Replayer:
        def __init__(self) -> None:
            self.it = iter(choices)

        def decide(self, view, decision):
            return decision.options[next(self.it)]

    shared = Replayer()
    c = Collector()
    Game(rs, [shared] * rs.players, seed=seed, dealer=dealer, emit=c).play()
    assert list(c) == list(table.events)
    assert next(shared.it, None) is None


def _of_kinds(rs, seeds: range, kinds: set[str]) -> set[str]:
    """Step hands of ``rs`` with a seeded random policy, checking each log against the
    bot-driven replay of the same choices; the decision kinds of ``kinds`` seen."""
    seen: set[str] = set()
    for seed in seeds:
        rng = random.Random(seed)
        table = Table(rs, seed=seed)
        choices: list[int] = []
        pending = table.reset()
        while isinstance(pending, Decision):
            if pending.kind in kinds:
                seen.add(pending.kind)
            # Take a win or a last tile when offered (so the plugins' procedures run on).
            pick = [i for i, o in enumerate(pending.options) if o.kind in ("win", "take_last", "declare")]
            i = pick[0] if pick and rng.random() < 0.8 else rng.randrange(len(pending.options))
            choices.append(i)
            pending = table.step(pending.options[i])
        assert pending.result != "abandon", pending.error
        it = iter(choices)

        class Replayer:
            def decide(self, view, decision, it=it):
                return decision.options[next(it)]

        c = Collector()
        Game(rs, [Replayer()] * rs.players, seed=seed, emit=c).play()
        assert list(c) == list(table.events)
    return seen


def test_plugins_decision_points_are_stepped_from_outside(tmp_path) -> None:
    """The built-in plugins that ask players (haidi's last tile, opening-wins' declaration,
    kaigang's robbable kong) declare decision points: a stepped hand is asked them like
    any decision, with no worker beside the caller, and logs the same as bots replaying it."""
    ask = tmp_path / "changsha-ask.yaml"
    ask.write_text("format: 1\nid: changsha-ask\nextends: changsha\n"
                   "plugins: {opening-wins: {declare: ask}}\n", encoding="utf-8")
    rs = load_ruleset(ask)
    seen = _of_kinds(rs, range(60), {"last_tile", "last_tile_win", "opening"})
    assert {"last_tile", "opening"} <= seen, seen


def test_a_plugin_waiting_inside_its_hook_works_for_bots_only(tmp_path) -> None:
    """The deprecated ``hand.ask`` (waiting inside the hook) still works in ``Game.play``;
    a hand stepped from outside is abandoned with a message naming the way out."""
    from mjframework.hooks import registry
    from mjframework.plugin import hookimpl

    class OldAsker:
        options_schema: ClassVar[dict] = {"type": "object"}
        option_kinds: ClassVar[dict] = {"nod": False}

        def __init__(self, options) -> None:
            pass

        @hookimpl
        def mj_after_deal(self, hand):
            choice = hand.ask(hand.dealer, [Option("nod"), Option("pass")], kind="old")
            hand.emit("nodded", seat=hand.dealer, value=choice.kind)

    registry.register_plugin("old-asker", OldAsker)
    try:
        rid = tmp_path / "old.yaml"
        rid.write_text("format: 1\nid: old\nextends: changsha\nplugins: {old-asker: {}}\n", "utf-8")
        rs = load_ruleset(rid)
        c = Collector()
        Game(rs, [_greedy(1, i) for i in range(4)], seed=1, emit=c).play()
        assert any(e["type"] == "nodded" for e in c)
        out = run_policy(Table(rs, seed=1), lambda d, v: d.options[0])
        assert out.result == "abandon" and "return an Ask" in (out.error or "")
    finally:
        registry.unregister_plugin("old-asker")


def test_a_table_is_stepped_from_any_thread() -> None:
    """Nothing runs beside the caller: a hand reset in one thread steps on in another."""
    import threading

    rs = load_ruleset("changsha")
    table = Table(rs, seed=4)
    pending = table.reset()
    out: list = []

    def finish() -> None:
        p = pending
        while isinstance(p, Decision):
            p = table.step(p.options[0])
        out.append(p)

    before = threading.active_count()
    t = threading.Thread(target=finish)
    t.start()
    t.join()
    assert isinstance(out[0], HandResult) and threading.active_count() == before
    again = Table(rs, seed=4)
    assert run_policy(again, lambda d, v: d.options[0]) == out[0]
    assert list(again.events) == list(table.events)
