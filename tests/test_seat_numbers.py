"""A dealer seat comes from callers (the API, an environment's options, a request): it is an
integer seat of the table, or a clear ValueError — never read as another seat, never IndexError."""

from __future__ import annotations

import pytest

from mjframework.play.bots import BOTS
from mjframework.play.game import Game
from mjframework.rules.loader import load_ruleset

RS = load_ruleset("changsha")


def players() -> list:
    import random

    return [BOTS["greedy"](random.Random(i)) for i in range(RS.players)]


@pytest.mark.parametrize("dealer", [-1, 4, 7, 1.9, 1.0, "1", True, None, 10**30])
def test_a_bad_dealer_is_refused(dealer: object) -> None:
    with pytest.raises(ValueError, match="the dealer is a seat number from 0 to 3"):
        Game(RS, players(), seed=1, dealer=dealer)  # type: ignore[arg-type]


def test_any_integer_type_is_a_seat() -> None:
    np = pytest.importorskip("numpy")
    assert Game(RS, players(), seed=1, dealer=np.int64(2)).dealer == 2
    assert type(Game(RS, players(), seed=1, dealer=np.int64(2)).dealer) is int
