"""The seats' counted lists (mjframework/play/counted.py) against counting from scratch.

The table keeps each seat's counts per kind as its held tiles, discards and melds change;
the reference is recounting the lists. Random legal hands of every shipped ruleset are
stepped, and both are compared for every seat at every step (and at the hand's end); the
list operations are compared one by one with a plain list.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mjframework.core.hand import Meld
from mjframework.play.counted import ALL_KINDS, CountedMelds, CountedTiles, count_melds, count_tiles
from mjframework.play.players import Decision
from mjframework.play.stepper import Table
from mjframework.play.table.state import SeatState
from mjframework.rules.loader import available_rulesets
from mjframework.run.simulate import load_cached

SHIPPED = sorted(available_rulesets())


def _check(game: Any, where: str) -> int:
    for seat, s in enumerate(game.seats):
        assert type(s.hand) is CountedTiles and type(s.discards) is CountedTiles
        assert type(s.melds) is CountedMelds
        assert s.hand.counts == count_tiles(s.hand), f"{where}: seat {seat}'s held counts"
        assert s.discards.counts == count_tiles(s.discards), f"{where}: seat {seat}'s discard counts"
        assert s.melds.counts == count_melds(s.melds), f"{where}: seat {seat}'s meld counts"
        assert s.melds.face_up == count_melds(s.melds, face_up_only=True), f"{where}: seat {seat}'s face-up"
    return sum(len(s.melds) for s in game.seats)


@pytest.mark.parametrize("rid", SHIPPED)
def test_counts_kept_match_recounting_at_every_step(rid: str) -> None:
    rs, ev = load_cached(rid)
    steps = melds = 0
    for seed in range(6):
        rng = random.Random(seed)
        table = Table(rs, seed=seed, dealer=seed % rs.players, evaluator=ev)
        pending = table.reset()
        while isinstance(pending, Decision):
            assert table.game is not None
            melds += _check(table.game, f"{rid} seed {seed} step {steps}")
            # Claims taken more often than at random, so melds and kongs are made.
            claims = [o for o in pending.options if o.kind in ("pung", "kong", "chow")]
            pending = table.step(claims[0] if claims and rng.random() < 0.7 else rng.choice(pending.options))
            steps += 1
        assert table.game is not None
        _check(table.game, f"{rid} seed {seed} end")
    assert steps > 100 and melds > 0  # the hands were played, and melds were made


_TILE = st.integers(0, ALL_KINDS - 1)
_OPS = st.lists(st.one_of(
    st.tuples(st.just("append"), _TILE), st.tuples(st.just("remove"), _TILE),
    st.tuples(st.just("pop"), st.integers(-3, 3)), st.tuples(st.just("insert"), st.integers(-3, 3), _TILE),
    st.tuples(st.just("extend"), st.lists(_TILE, max_size=4)),
    st.tuples(st.just("iadd"), st.lists(_TILE, max_size=3)),
    st.tuples(st.just("setitem"), st.integers(-3, 3), _TILE),
    st.tuples(st.just("setslice"), st.lists(_TILE, max_size=5)),
    st.tuples(st.just("delitem"), st.integers(-3, 3)), st.tuples(st.just("delslice"), st.integers(0, 3)),
    st.tuples(st.just("clear")), st.tuples(st.just("sort"))), max_size=30)


def _apply(x: Any, op: tuple[Any, ...]) -> Any:
    name, *args = op
    if name == "iadd":
        x += args[0]
    elif name == "setitem":
        x[args[0]] = args[1]
    elif name == "setslice":
        x[1:3] = args[0]
    elif name == "delitem":
        del x[args[0]]
    elif name == "delslice":
        del x[:args[0]]
    else:
        getattr(x, name)(*args)
    return x


@settings(max_examples=200, deadline=None)
@given(st.lists(_TILE, max_size=14), _OPS)
def test_counted_tiles_behave_as_a_list_and_keep_their_counts(start: list[int], ops: list[Any]) -> None:
    plain, counted = list(start), CountedTiles(start)
    for op in ops:
        try:
            a: Any = _apply(plain, op)
        except (ValueError, IndexError) as e:
            with pytest.raises(type(e)):
                _apply(counted, op)
        else:
            b = _apply(counted, op)
            assert (a is plain) == (b is counted)
        assert counted == plain and counted.counts == count_tiles(plain)


def test_counted_melds_keep_every_and_face_up_counts() -> None:
    pung, ck = Meld("pung", (3, 3, 3), 1), Meld("concealed-kong", (30,) * 4)
    m = CountedMelds([pung])
    m.append(ck)
    assert m.counts[3] == 3 and m.counts[30] == 4 and m.face_up[30] == 0 and m.face_up[3] == 3
    m[0] = Meld("added-kong", (3,) * 4, 1)  # a pung made a kong in place
    assert m.counts[3] == 4 and m.face_up[3] == 4
    m.remove(ck)
    assert m.counts == count_melds(m) and m.face_up == count_melds(m, face_up_only=True)
    assert m.pop().tiles == (3,) * 4 and not any(m.counts) and not any(m.face_up)


def test_a_plain_list_given_to_a_seat_is_counted() -> None:
    """A test or a tool laying out a hand assigns plain lists: the seat counts them."""
    s = SeatState()
    s.hand = [1, 1, 5]
    s.melds = [Meld("pung", (7, 7, 7), 2)]
    assert type(s.hand) is CountedTiles and s.hand.counts[1] == 2
    assert type(s.melds) is CountedMelds and s.melds.counts[7] == 3
    s.hand.remove(1)
    assert s.hand.counts[1] == 1


@pytest.mark.parametrize("rid", SHIPPED)
def test_a_hand_with_no_sink_builds_no_event_and_plays_the_same(rid: str) -> None:
    """With nobody listening the frequent events are not built (``Relay``: all counted by
    nobody); the hand is the one a logged game plays."""
    from mjframework.play.bots import GreedyBot
    from mjframework.play.events import Collector
    from mjframework.play.game import Game

    rs, ev = load_cached(rid)
    for seed in range(4):
        results = []
        for emit in (None, Collector()):
            bots = [GreedyBot(random.Random(seed * 4 + i)) for i in range(rs.players)]
            g = Game(rs, bots, seed=seed, dealer=seed % rs.players, evaluator=ev, emit=emit)
            r = g.play()
            results.append((r.result, r.winners, r.payments, r.patterns, [list(s.discards) for s in g.seats]))
            if emit is None and g._silent:  # (a plugin announcing on events hears them all)
                assert g._counted >= {"draw", "discard", "deal", "wall"}
            elif emit is not None:
                assert any(e["type"] == "discard" for e in emit)
        assert results[0] == results[1]
