"""The evaluator's questions asked of a seat's kept counts against the same asked of its tiles.

:meth:`Evaluator.win_candidates_of` and :meth:`Evaluator.may_win_any_of` take a hand's
counts per kind (a seat's kept ``bytearray``, play/counted.py); their reference is the
tile-list methods :meth:`Evaluator.win_candidates` and :meth:`Evaluator.may_win_any`. Both
are asked the same hands: random hands (hypothesis, every shipped ruleset, with and
without a wildcard, with melds, drawn near a complete shape so that waits exist), and
every seat's held tiles at every step of random legal hands.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mjframework.core.hand import Meld
from mjframework.core.tiles import NUM_KINDS
from mjframework.evaluate.readings import KNITTED_STRAIGHTS
from mjframework.evaluate.waits import straight_kinds_held
from mjframework.play.counted import count_tiles
from mjframework.play.players import Decision
from mjframework.play.stepper import Table
from mjframework.rules.loader import available_rulesets
from mjframework.run.simulate import load_cached

SHIPPED = sorted(available_rulesets())


def _same(ev: Any, held: list[int], melds: list[Meld], wildcard: int | None, where: str) -> None:
    """Both paths agree on ``held`` (13 − 3·melds tiles: the candidates; one more: any win)."""
    counts = count_tiles(held)
    if len(held) % 3 == 1:
        want = ev.win_candidates(held, melds, wildcard)
        assert ev.win_candidates_of(counts, melds, wildcard) == want, where
        assert ev.win_candidates_of(bytes(counts), tuple(melds), wildcard) == want, where
    else:
        want_any = ev.may_win_any(held, melds, wildcard)
        assert ev.may_win_any_of(counts, melds, wildcard) == want_any, where
    assert counts == count_tiles(held)  # the caller's counts are not changed


@st.composite
def _hands(draw: Any, kinds: tuple[int, ...],
           wild_kinds: tuple[int, ...]) -> tuple[list[int], list[Meld], int | None]:
    """A complete-looking hand (runs, triples, a pair, or random tiles), some groups declared
    as melds, then one tile taken out (13-tile side) or kept (14: a self-draw)."""
    kind = st.sampled_from(kinds)
    groups: list[list[int]] = []
    for _ in range(4):
        t = draw(kind)
        shape = draw(st.sampled_from(("pung", "chow", "any")))
        if shape == "chow" and t < 27 and t % 9 <= 6 and t + 1 in kinds and t + 2 in kinds:
            groups.append([t, t + 1, t + 2])
        elif shape == "pung":
            groups.append([t] * 3)
        else:
            groups.append([draw(kind) for _ in range(3)])
    pair = draw(kind)
    n_melds = draw(st.integers(0, 2))
    melds = [Meld("pung" if g[0] == g[-1] else "chow", tuple(g)) for g in groups[:n_melds]]
    held = [t for g in groups[n_melds:] for t in g] + [pair, pair]
    if max(count_tiles(held + [t for m in melds for t in m.tiles])) > 4:
        held = [draw(kind) for _ in held]  # too many copies of a kind: random tiles instead
    held = draw(st.permutations(held))
    if draw(st.booleans()):
        held = held[:-1]  # the 13-tile side
    wildcard = draw(st.sampled_from((None, *wild_kinds))) if wild_kinds else None
    return list(held), melds, wildcard


@pytest.mark.parametrize("rid", SHIPPED)
def test_counts_paths_match_tile_paths_on_random_hands(rid: str) -> None:
    rs, ev = load_cached(rid)
    kinds = tuple(ev.kinds)
    rule = rs.wildcard
    wild_kinds = tuple(rule.possible(kinds)) if rule is not None else ()

    @settings(max_examples=150, deadline=None, derandomize=True)
    @given(_hands(kinds, wild_kinds))
    def check(hand: tuple[list[int], list[Meld], int | None]) -> None:
        held, melds, wildcard = hand
        _same(ev, held, melds, wildcard, f"{rid}: {held} {melds} wildcard {wildcard}")

    check()


@pytest.mark.parametrize("rid", SHIPPED)
def test_counts_paths_match_tile_paths_in_play(rid: str) -> None:
    """Every seat's held tiles, at every step of random legal hands (claims taken often, so
    melds are made), asked both ways with the seat's own kept counts."""
    rs, ev = load_cached(rid)
    asked = 0
    for seed in range(3):
        rng = random.Random(seed)
        table = Table(rs, seed=seed, dealer=seed % rs.players, evaluator=ev)
        pending = table.reset()
        while isinstance(pending, Decision):
            game = table.game
            assert game is not None
            for seat, s in enumerate(game.seats):
                if len(s.hand) % 3 == 0 or any(t >= NUM_KINDS for t in s.hand):
                    continue
                where = f"{rid} seed {seed} seat {seat}: {list(s.hand)}"
                if len(s.hand) % 3 == 1:
                    assert (ev.win_candidates_of(s.hand.counts, s.melds, game.wildcard)
                            == ev.win_candidates(list(s.hand), list(s.melds), game.wildcard)), where
                else:
                    assert (ev.may_win_any_of(s.hand.counts, s.melds, game.wildcard)
                            == ev.may_win_any(list(s.hand), list(s.melds), game.wildcard)), where
                asked += 1
            claims = [o for o in pending.options if o.kind in ("pung", "kong", "chow")]
            pending = table.step(claims[0] if claims and rng.random() < 0.7 else rng.choice(pending.options))
    assert asked > 200


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=NUM_KINDS, max_size=NUM_KINDS))
def test_straight_kinds_held_counts_as_the_reference(counts: list[int]) -> None:
    """The bit-count form (waits.straight_kinds_held) against counting each straight's kinds."""
    want = max(sum(1 for x in ks if counts[x]) for ks in KNITTED_STRAIGHTS)
    assert straight_kinds_held(bytes(counts)) == want
