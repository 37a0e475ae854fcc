"""The environment keeps the hand's events only when asked (its ``events`` option): without
them the table builds no event at all, and the hand, the observations, the masks and the
rewards are the same, step by step, for every shipped ruleset."""

from __future__ import annotations

import random

import pytest

np = pytest.importorskip("numpy")

from mjframework.rules.loader import available_rulesets  # noqa: E402
from mjframework.run.env import EnvError, make_env  # noqa: E402


@pytest.mark.parametrize("rid", sorted(available_rulesets()))
def test_an_env_keeping_no_events_plays_the_same_hands(rid: str) -> None:
    quiet, kept = make_env(rid), make_env(rid, options={"events": True})
    steps = 0
    for seed in (3, 4):
        rng = random.Random(seed)
        (a, _), (b, _) = quiet.reset(seed), kept.reset(seed)
        assert quiet.table is not None and kept.table is not None
        done = False
        while not done:
            assert np.array_equal(a["observation"], b["observation"])
            assert np.array_equal(a["action_mask"], b["action_mask"])
            legal = np.flatnonzero(a["action_mask"])
            action = int(legal[rng.randrange(len(legal))])
            a, ra, done, _t, _i = quiet.step(action)
            b, rb, done_b, _t, _i = kept.step(action)
            assert done == done_b and np.array_equal(ra, rb)
            steps += 1
        assert np.array_equal(a["observation"], b["observation"])
        assert kept.table.events and not quiet.table.events
    assert steps > 20
    with pytest.raises(EnvError, match="events=True"):
        quiet.seat_events(0)
    assert kept.seat_events(0)
