"""PettingZoo's Parallel env answers a decision set in one step: the claims on a discard,
an exchange (a tile a step, every seat at once), a declaration at the deal — every seat of
the set with its own mask, in the same ``step(actions)`` — and the hand is the one the
one-seat core env plays seat by seat, event for event."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("pettingzoo", reason="the env extra (pettingzoo) is not installed")

from mjframework.play.seatlog import seat_log
from mjframework.rules.loader import available_rulesets
from mjframework.run.env import EnvError, IllegalAction, MahjongEnv
from mjframework.run.envs.pz import MahjongParallelEnv

SHIPPED = sorted(available_rulesets())


def _play_parallel(rid: str, seed: int) -> tuple[list[dict[int, int]], list[list[int]],
                                                 MahjongParallelEnv, dict[str, int]]:
    """A hand of random legal actions in the Parallel env: each step's actions (seat →
    action) and deciding seats; the env at the end and the count of sets by kind."""
    env = MahjongParallelEnv(rid, options={"events": True})
    obs, infos = env.reset(seed=seed)
    rng = random.Random(seed)
    steps: list[dict[int, int]] = []
    deciding: list[list[int]] = []
    kinds: dict[str, int] = {}
    heard: list[list[dict]] = [[] for _ in env.possible_agents]  # the events each seat was told
    while env.agents:
        acting = env.agents_to_act
        seats = [env.possible_agents.index(a) for a in acting]
        # every deciding seat has its own non-empty mask, every other seat an empty one
        for a in env.agents:
            assert obs[a]["action_mask"].any() == (a in acting), (a, acting)
            s = env.possible_agents.index(a)
            if a in acting:  # its own decision, and not who else decides with it
                assert infos[a]["seat"] == s and "seats" not in infos[a] and "set" not in infos[a]
                assert infos[a]["decision"] == env.env.table.pending_set[seats.index(s)].kind
                assert isinstance(infos[a]["events"], list)
            else:
                assert infos[a] == ({"seat": seats[0]} if len(seats) == 1 else {})
        for a in acting:
            heard[env.possible_agents.index(a)].extend(infos[a]["events"])
        if len(acting) > 1:
            kind = infos[acting[0]]["decision"]
            kinds[kind] = kinds.get(kind, 0) + 1
        actions = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in acting}
        steps.append({env.possible_agents.index(a): x for a, x in actions.items()})
        deciding.append(seats)
        # the others' entries are ignored, whatever they hold
        obs, _rew, term, _trunc, infos = env.step({**dict.fromkeys(env.agents, 10_000), **actions})
        if any(term.values()):
            break
    # each seat was told its own seat log, no more: while it decided, then at the end
    table = env.env.table
    assert table is not None
    for s in range(len(heard)):
        told = heard[s] + infos[env.possible_agents[s]]["events_by_seat"][s]
        assert told == list(seat_log(table.events, s))
    return steps, deciding, env, kinds


def _replay_seat_by_seat(rid: str, seed: int, steps: list[dict[int, int]],
                         deciding: list[list[int]]) -> MahjongEnv:
    """The same choices in the one-seat core env: a set's seats one after another (an
    exchange: each seat's picks together, in the set's order)."""
    env = MahjongEnv(rid, options={"events": True})
    env.reset(seed)
    picks: dict[int, list[int]] = {}
    for actions, seats in zip(steps, deciding, strict=True):
        assert env.decision is not None and env.decision.seat == seats[0]
        if env.decision.kind == "exchange" and len(seats) > 1:
            for s in seats:
                picks.setdefault(s, []).append(actions[s])
            if len(picks[seats[0]]) < env.codec.exchange:
                continue
            for s in seats:
                for a in picks.pop(s):
                    assert env.decision is not None and env.decision.seat == s
                    env.step(a)
            continue
        for s in seats:
            assert env.decision is not None and env.decision.seat == s  # the set, as the engine asks it
            env.step(actions[s])
    assert env.done
    return env


@pytest.mark.parametrize("rid", SHIPPED)
def test_a_decision_set_is_one_parallel_step_and_the_same_hand(rid: str) -> None:
    kinds: dict[str, int] = {}
    env = MahjongParallelEnv(rid)
    for seed in range(3):
        steps, deciding, env, got = _play_parallel(rid, seed)
        for k, v in got.items():
            kinds[k] = kinds.get(k, 0) + v
        one = _replay_seat_by_seat(rid, seed, steps, deciding)
        assert one.table is not None and env.env.table is not None
        assert one.table.events == env.env.table.events
        assert one.result is not None and env.env.result is not None
        assert one.result.payments == env.env.result.payments
    rs = env.env.ruleset
    if rs.flow.exchange is not None:  # every seat picks at once, a tile a step
        assert kinds.get("exchange", 0) == 3 * rs.flow.exchange.tiles
    if rs.flow.void_suit is not None:
        assert kinds.get("declare", 0) == 3
    if rs.claims.chow:  # a chow and a pung on one discard
        assert kinds.get("claim", 0) > 0


def _to_claim_set(env: MahjongParallelEnv, seed: int) -> tuple[dict, dict] | None:
    obs, infos = env.reset(seed=seed)
    rng = random.Random(seed)
    while env.agents:
        acting = env.agents_to_act
        if len(acting) > 1 and infos[acting[0]]["decision"] == "claim":
            return obs, infos
        actions = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in acting}
        obs, _r, term, _t, infos = env.step(actions)
        if any(term.values()):
            return None
    return None


def _first_claim_set(env: MahjongParallelEnv) -> dict:
    """The observations at the first claim set (several seats asked at once) of changsha's
    first 40 hands; the test fails if none has one."""
    for seed in range(40):
        got = _to_claim_set(env, seed)
        if got is not None:
            return got[0]
    pytest.fail("no claim set in 40 changsha hands")


def test_a_claim_set_is_answered_in_one_step_and_checked_before_anything_changes() -> None:
    env = MahjongParallelEnv("changsha", options={"illegal": "raise", "events": True})
    obs = _first_claim_set(env)
    acting = env.agents_to_act
    table = env.env.table
    assert table is not None
    group = table.pending_set
    assert [env.possible_agents[d.seat] for d in group] == acting
    before = len(table.events)
    passes = {a: env.env.codec.names.index("pass") for a in acting}
    with pytest.raises(KeyError):  # every seat of the set must act
        env.step({acting[0]: passes[acting[0]]})
    bad = next(i for i in range(env.env.action_size) if not obs[acting[-1]]["action_mask"][i])
    with pytest.raises(IllegalAction):
        env.step({**passes, acting[-1]: bad})
    assert len(table.events) == before and table.pending_set == group and env.agents_to_act == acting
    env.step(passes)  # every seat passes: one step, and the set is gone
    assert not any(d in table.pending_set for d in group)
    assert len(table.events) > before


def test_a_set_with_an_illegal_action_forfeits_that_seat() -> None:
    env = MahjongParallelEnv("changsha")  # the standard forms' default: an illegal action terminates
    obs = _first_claim_set(env)
    acting = env.agents_to_act
    passes = {a: env.env.codec.names.index("pass") for a in acting}
    bad = next(i for i in range(env.env.action_size) if not obs[acting[-1]]["action_mask"][i])
    _o, rew, term, _t, infos = env.step({**passes, acting[-1]: bad})
    assert all(term.values()) and not env.agents
    offender = env.possible_agents.index(acting[-1])
    assert infos[acting[-1]]["offender"] == offender
    assert rew[acting[-1]] == -1.0 and sum(rew.values()) == -1.0


def test_the_core_env_refuses_a_set_without_every_seat() -> None:
    env = MahjongEnv("sichuan-xuezhan")
    env.sets = True
    _obs, info = env.reset(3)
    assert info["decision"] == "exchange" and info["seats"] == env.pending_seats == [0, 1, 2, 3]
    for s in env.pending_seats:  # each seat its own mask and its own decision in its observation
        assert env.action_mask(s).any()
    with pytest.raises(EnvError, match="no action for seat 3"):
        env.step_set({0: 0, 1: 0, 2: 0})


def test_a_room_offers_a_set_to_every_person_at_once() -> None:
    """Rooms take simultaneous answers through the same decision sets: every person of a set
    (the exchange, the void suits, the claims on a discard) is sent their decision before
    anyone answers, and answers in their own time — here the last seat first."""
    import threading
    import time

    from mjframework.run.simulate import load_cached
    from mjframework.ui.rooms import Room

    rs, ev = load_cached("sichuan-xuezhan")
    room = Room(rs, ev, humans=[0, 1, 2, 3], seed=5, hands=1, away_timeout=300)
    inbox: list[list[dict]] = [[] for _ in range(4)]
    lock = threading.Lock()
    for slot in room.seats:
        room.attach(slot, lambda m, s=slot.seat: (lock.acquire(), inbox[s].append(m), lock.release()))
    room.start()
    offered: dict[int, set[int]] = {}  # decision number → the seats it was put to
    answered: set[tuple[int, int]] = set()
    read = [0, 0, 0, 0]
    deadline = time.monotonic() + 120  # a guard against a hang only
    while not room.finished.is_set() and time.monotonic() < deadline:
        new: list[tuple[int, dict]] = []
        with lock:
            for s in range(4):
                new += [(s, m) for m in inbox[s][read[s]:] if m["type"] == "decision"]
                read[s] = len(inbox[s])
        for s, m in new:
            offered.setdefault(m["decision"], set()).add(s)
        # the last seat first: a seat before it would wait for ever if the room asked in turn
        for s, m in sorted(new, key=lambda x: -x[0]):
            if (m["decision"], s) not in answered:
                answered.add((m["decision"], s))
                room.receive(room.seats[s], {"type": "choose", "decision": m["decision"], "index": 0})
        time.sleep(0.005)
    room.close()
    assert room.finished.wait(30) and room.error is None and room.played == 1
    sets = [seats for seats in offered.values() if len(seats) > 1]
    assert sets.count({0, 1, 2, 3}) == 2  # the exchange and the void suits, every seat at once


_ANY = st.one_of(st.none(), st.booleans(), st.integers(-3, 500), st.integers(), st.floats(),
                 st.text(max_size=3), st.lists(st.integers(0, 5), max_size=2))
_SET_ENV = MahjongParallelEnv("sichuan-xuezhan", options={"illegal": "raise", "events": True})


@settings(max_examples=120, deadline=None)
@given(values=st.lists(_ANY, min_size=4, max_size=4), which=st.integers(0, 3))
def test_any_action_in_a_set_is_acted_on_or_refused_cleanly(values: list[object], which: int) -> None:
    """The exchange set (every seat at once): any value for one seat, legal actions for the
    others — acted on only when it is an integer legal in that seat's own mask, refused with
    EnvError otherwise, and a refusal changes nothing."""
    import operator

    env = _SET_ENV
    obs, _ = env.reset(seed=3)
    acting = env.agents_to_act
    assert len(acting) == 4
    actions: dict[str, object] = {a: int(np.flatnonzero(obs[a]["action_mask"])[0]) for a in acting}
    bad = acting[which]
    actions[bad] = values[which]
    table = env.env.table
    assert table is not None
    before, group = len(table.events), table.pending_set
    try:
        i = None if isinstance(values[which], bool) else operator.index(values[which])  # type: ignore[arg-type]
    except TypeError:
        i = None
    legal = i is not None and 0 <= i < env.env.action_size and obs[bad]["action_mask"][i] == 1
    try:
        env.step(actions)
    except EnvError:
        assert not legal
        assert len(table.events) == before and table.pending_set == group
        assert all(np.array_equal(env._observations()[a]["action_mask"], obs[a]["action_mask"])
                   for a in acting)  # no pick was kept
    else:
        assert legal
