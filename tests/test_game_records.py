"""The engine's cheap records for the hot loop agree with the plain ones.

``make_decision`` (a :class:`Decision` without the frozen dataclass's per-field set-up),
the shared ``PASS`` and claim options, and :meth:`TableView.counts` are what the game
hands players at every turn and claim; they must be indistinguishable from what a
player would build itself.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from mjframework.play.bots import GreedyBot
from mjframework.play.game import Game
from mjframework.play.players import PASS, Decision, Option, TableView, make_decision
from mjframework.play.table import state as table_state
from mjframework.rules.loader import load_ruleset


@given(st.sampled_from(["turn", "claim", "rob"]), st.integers(0, 3),
       st.lists(st.integers(0, 33), max_size=14), st.one_of(st.none(), st.integers(0, 33)),
       st.one_of(st.none(), st.integers(0, 3)))
def test_make_decision_is_an_equal_decision(kind: str, seat: int, tiles: list[int], tile: int | None,
                                            from_seat: int | None) -> None:
    options = (*(Option("discard", t) for t in tiles), PASS)
    fast = make_decision(kind, seat, options, tile, from_seat)
    plain = Decision(kind, seat, options, tile, from_seat)
    assert type(fast) is Decision
    assert fast == plain and hash(fast) == hash(plain) and repr(fast) == repr(plain)
    assert (fast.kind, fast.seat, fast.options, fast.tile, fast.from_seat, fast.prompt) == (
        kind, seat, options, tile, from_seat, "")


def test_shared_options_equal_fresh_ones() -> None:
    assert Option("pass") == PASS
    pung = table_state.meld_option("pung", 5, (5, 5, 5))
    assert pung == Option("pung", 5, (5, 5, 5)) and pung is table_state.meld_option("pung", 5, (5, 5, 5))
    assert table_state.meld_option("kong", 5, (5,) * 4, "kong") == Option("kong", 5, (5,) * 4, "kong")


class _Checker(GreedyBot):
    """A greedy bot that checks, at each decision, what its view counts."""

    checked = 0

    def decide(self, view: TableView, decision: Decision) -> Option:
        c = view.counts()
        assert c == [Counter(view.hand)[t] for t in range(34)]
        c[0] += 1  # a fresh list: the view's next answer is unchanged
        assert view.counts()[0] == c[0] - 1
        _Checker.checked += 1
        return super().decide(view, decision)


def test_table_view_counts_are_the_hand_counted() -> None:
    rs = load_ruleset("yongzhou-wangba")
    for seed in range(3):
        Game(rs, [_Checker(random.Random(i)) for i in range(4)], seed=seed).play()
    assert _Checker.checked > 50


def test_the_engine_hands_out_claim_decisions_with_the_shared_pass() -> None:
    seen: list[Any] = []

    class Watch(GreedyBot):
        def decide(self, view: TableView, decision: Decision) -> Option:
            if decision.kind == "claim":
                seen.append(decision.options[-1])
            return super().decide(view, decision)

    rs = load_ruleset("changsha")
    for seed in range(3):
        Game(rs, [Watch(random.Random(i)) for i in range(4)], seed=seed).play()
    assert seen and all(o is PASS for o in seen)


def _old_exchange(bot: GreedyBot, view: Any, opts: Any) -> Option:
    """The greedy bot's exchange choice as it was written before (every tile's suit compared)."""
    from mjframework.play.bots import _counts, _isolation, missing

    c, w = _counts(view.hand, view.wildcard)

    def key_left(o: Option) -> int:
        suit = o.tiles[0] // 9
        if suit >= 3 or not all(t // 9 == suit for t in o.tiles):
            return 99
        return sum(c[suit * 9:suit * 9 + 9]) - len(o.tiles)

    def key(o: Option) -> tuple[int, int, int, tuple[int, ...]]:
        c2 = c[:]
        for t in o.tiles:
            c2[t] -= 1
        return (key_left(o), missing(c2, w), sum(_isolation(c2, t) for t in o.tiles) * -1, o.tiles)

    return min(opts, key=key)


class _View:
    def __init__(self, hand: list[int], wildcard: int | None) -> None:
        self.hand = tuple(sorted(hand))
        self.wildcard = wildcard


def test_exchange_choice_matches_the_previous_formula() -> None:
    """The exchange key (one suit when the lowest and highest tile are) chooses as before, on
    the engine's options and on odd ones (mixed suits, honors) a plugin could offer."""
    rng = random.Random("exchange")
    bot = GreedyBot(random.Random(0))
    for _ in range(3000):
        hand = [rng.randrange(34) for _ in range(13)]
        wildcard = rng.choice([None, None, *(t for t in range(34) if t not in hand)])
        opts = list(Game._exchange_options(hand, 3, True))
        for _ in range(rng.randrange(4)):
            opts.append(Option("exchange", None, tuple(rng.sample(hand, 3))))
        view: Any = _View(hand, wildcard)
        assert bot._exchange(view, opts) is _old_exchange(bot, view, opts), (hand, wildcard)


def test_the_wall_shuffle_is_random_shuffle() -> None:
    """wall.shuffle gives random.Random.shuffle's permutation and leaves the generator in the
    same state (the next draws agree), for any length; a Random subclass uses its own."""
    from mjframework.play.wall import shuffle

    for seed in range(300):
        for n in (0, 1, 2, 7, 64, 108, 136, 144, 300):
            a, b = list(range(n)), list(range(n))
            ra, rb = random.Random(seed * 1000 + n), random.Random(seed * 1000 + n)
            shuffle(ra, a)
            rb.shuffle(b)
            assert a == b and ra.random() == rb.random(), (seed, n)

    class Fixed(random.Random):
        def shuffle(self, x: Any, *args: Any) -> None:
            x.reverse()

    x = [1, 2, 3]
    shuffle(Fixed(1), x)
    assert x == [3, 2, 1]


def test_take_live_n_takes_what_take_live_would() -> None:
    """Wall.take_live_n(k) (the deal's blocks) leaves the wall as k take_live calls do and
    returns their tiles, stopping where take_live would return None (an indicator's stack,
    gaps, the end)."""
    import copy

    from mjframework.play.wall import Wall

    rng = random.Random("take_live_n")
    for rid in ("changsha", "yongzhou-wangba", "sichuan-xuezhan"):
        rs = load_ruleset(rid)
        for i in range(60):
            a = Wall(rs, random.Random(i), i % 4)
            a.break_wall()
            if rng.random() < 0.5:
                a.indicator_stack = rng.randrange(a.stacks)
            for _ in range(rng.randrange(8)):  # gaps, as taken-out tiles leave
                a.slots[rng.randrange(len(a.slots))] = None
            a.live = rng.randrange(len(a.slots) // 2)
            b = copy.deepcopy(a)
            for k in (4, 4, 1, 13, 40, 80):
                want = []
                for _ in range(k):
                    t = b.take_live()
                    if t is None:
                        break
                    want.append(t)
                assert a.take_live_n(k) == want
                assert (a.slots, a.live, a._taken) == (b.slots, b.live, b._taken)


def test_announcing_plugins_leave_the_events_they_never_speak_about_counted() -> None:
    """With a plugin announcing (huandiao's calls: only_for discards, claims, …, not draws), a
    counting sink reading no fields is told draws, the deal and the wall by type alone, and
    gets the events the plugin speaks about in full: the plugin says the same things, in the
    same places, as with a sink reading everything (a sink not reading ``call`` events is told
    those by type, in the same places)."""
    from mjframework.play.events import counting

    class Sink(list[dict[str, Any]]):
        def __call__(self, event: dict[str, Any]) -> None:
            self.append(event)

        def count(self, type_: str) -> None:
            self.append({"counted": type_})

    def types(events: list[dict[str, Any]]) -> list[str]:
        return [e.get("type") or e["counted"] for e in events]

    rs = load_ruleset("yongzhou-huandiao")
    for seed in range(4):
        full, some, none = Sink(), Sink(), Sink()
        Game(rs, [GreedyBot(random.Random(i)) for i in range(4)], seed=seed, emit=full).play()
        Game(rs, [GreedyBot(random.Random(i)) for i in range(4)], seed=seed,
             emit=counting(some, frozenset({"call"}), some.count)).play()
        # A sink reading no fields at all is told of the plugin's calls by type too (same places).
        Game(rs, [GreedyBot(random.Random(i)) for i in range(4)], seed=seed,
             emit=counting(none, frozenset(), none.count)).play()
        assert types(none) == types(full)
        assert [e for e in none if e.get("counted") == "call"] == [{"counted": "call"}] * sum(
            e["type"] == "call" for e in full)
        assert types(some) == types(full)
        calls = [e for e in full if e["type"] == "call"]
        assert calls and [e for e in some if e.get("type") == "call"] == calls
        for b, f in zip(some, full, strict=True):
            if f["type"] in ("draw", "deal", "wall"):
                assert b == {"counted": f["type"]}
            else:
                assert b == f


def test_counting_of_answers_as_the_protocol_check() -> None:
    """``events.counting_of`` (asked at every table's set-up) tells a counting sink exactly
    where ``isinstance(sink, CountingSink)`` does, on sinks of every kind: functions, bound
    methods, the simulation's statistics sink, ``counting``'s, objects missing a member or
    with a method set to None."""
    from mjframework.play.events import CountingSink, counting, counting_of
    from mjframework.run.simulate import Stats, StatsSink

    class Full:
        fields_read = frozenset({"discard"})

        def __call__(self, event: dict[str, Any]) -> None: ...

        def count(self, type_: str) -> None: ...

    class NoCount:
        fields_read = frozenset()

        def __call__(self, event: dict[str, Any]) -> None: ...

    class CountOff(Full):
        count = None  # type: ignore[assignment]

    class NotCallable:
        fields_read = frozenset()

        def count(self, type_: str) -> None: ...

    class Inherited(Full):
        pass

    seen: list[Any] = []
    sinks: list[Any] = [None, seen.append, print, lambda e: None, Full(), NoCount(), CountOff(),
                        NotCallable(), Inherited(), counting(seen.append, {"draw"}, seen.append),
                        StatsSink(Stats())]
    got = [counting_of(s) is not None for s in sinks]
    assert got == [isinstance(s, CountingSink) for s in sinks]
    assert got.count(True) >= 3
    full = Full()
    assert counting_of(full) == (full.fields_read, full.count)
