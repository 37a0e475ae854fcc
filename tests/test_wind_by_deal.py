"""The prevalent wind moves when the deal has gone round (``winds.prevalent_counts:
deal_passes``; docs/pattern-language.md, "Winds and flowers"): with a dealer who stays on a
win or a drawn hand, the wind advances only after every seat has dealt and passed the deal
on, counted from the dealers of the hands as a game plays them; by default it still moves
every ``prevalent_every`` hands."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
import yaml

from mjframework.evaluate.scoring import Evaluator
from mjframework.rules.loader import check_file, load_ruleset
from mjframework.rules.model import Ruleset
from mjframework.run.simulate import make_bots, play_hands

RS = Path(__file__).parent / "rulesets"
EAST = 27  # 东 as the engine's tile index (南 28, 西 29, 北 30)


def _series(rs: Ruleset, seed: int, hands: int) -> list[tuple[int, int, int | None]]:
    """(dealer, prevalent wind as the win context gets it, next dealer) of each hand of one game."""
    ev = Evaluator(rs)
    out = []
    for g, result in play_hands(rs, lambda h: make_bots(("greedy",) * 4, seed, 0, h), seed=seed,
                                hands=hands, emit=lambda e: None, evaluator=ev):
        wind = g.win_context(g.dealer, "self_draw", None, set()).prevalent_wind
        out.append((g.dealer, wind, result.next_dealer))
    return out


@pytest.mark.parametrize("seed", [5, 8])
def test_the_wind_moves_once_each_seat_has_dealt_and_passed_the_deal(seed: int) -> None:
    rs = load_ruleset(str(RS / "wind-by-deal.yaml"))
    assert (rs.flow.prevalent_every, rs.flow.prevalent_counts) == (4, "deal_passes")
    series = _series(rs, seed, 30)
    passes = 0
    stays = 0
    for h, (dealer, wind, _next) in enumerate(series):
        assert wind == EAST + (passes // 4) % 4, (h, series)
        if h + 1 < len(series):
            assert series[h + 1][0] == _next
        passes += _next != dealer
        stays += _next == dealer
    assert stays >= 3  # the dealer kept the deal: counting hands would have moved the wind sooner
    winds = [w for _d, w, _n in series]
    assert winds[4] == EAST and EAST + 1 in winds  # still 东 in the fifth hand, and 南 reached


def test_by_default_the_wind_moves_every_n_hands() -> None:
    rs = load_ruleset(str(RS / "wind-by-deal.yaml"))
    by_hands = dataclasses.replace(rs, flow=dataclasses.replace(rs.flow, prevalent_counts="hands"))
    series = _series(by_hands, 5, 12)
    assert [w for _d, w, _n in series] == [EAST + h // 4 for h in range(12)]
    assert any(d == n for d, _w, n in series)  # though the dealer stayed


@pytest.mark.parametrize(("winds", "message"), [
    ({"prevalent_counts": "deal_passes"}, "prevalent_every"),
    ({"prevalent_every": 4, "prevalent_counts": "rounds"}, "rounds"),
])
def test_bad_winds_are_located_errors(winds: dict[str, Any], message: str, tmp_path: Path) -> None:
    f = tmp_path / "bad.yaml"
    f.write_text(yaml.safe_dump({"format": 1, "id": "t", "name": "t", "extends": str(RS / "base-108.yaml"),
                                 "winds": winds}, allow_unicode=True), encoding="utf-8")
    rs, problems = check_file(f)
    assert rs is None
    assert any(message in str(p) and p.path[0] == "winds" for p in problems), problems



# -- every path that plays a game of hands counts the passes the same way (play.series.Carry) --

def _by_deal(hands: list[tuple[int, int | None]]) -> None:
    """``hands``: (dealer, prevalent wind) of each hand of one game, in order. The wind is
    东 + (passes so far) // 4, and counting hands instead would have shown otherwise."""
    passes = 0
    for h, (dealer, wind) in enumerate(hands):
        assert wind == EAST + (passes // 4) % 4, (h, hands)
        if h + 1 < len(hands):
            passes += hands[h + 1][0] != dealer
    assert any(w != EAST + (h // 4) % 4 for h, (_d, w) in enumerate(hands)), hands  # the test can tell


@pytest.fixture
def dealt(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every hand built while the test runs (its dealer and prevalent wind are read after)."""
    from mjframework.play.table.state import HandState

    made: list[Any] = []
    init = HandState.__init__

    def recording(self: Any, *a: Any, **kw: Any) -> None:
        init(self, *a, **kw)
        made.append(self)

    monkeypatch.setattr(HandState, "__init__", recording)
    return made


def test_match_boards_of_several_hands(dealt: list[Any]) -> None:
    from mjframework.run.match import run_match

    result = run_match(str(RS / "wind-by-deal.yaml"), ["greedy"] * 4, 24, seed=5, hands_per_board=12)
    assert result.abandoned == 0 and len(dealt) == 24
    for board in (dealt[:12], dealt[12:]):
        _by_deal([(g.dealer, g.prevalent_wind) for g in board])


def test_the_stepper_plays_a_game_with_a_carry() -> None:
    from mjframework.play.series import Carry
    from mjframework.play.stepper import Table, play_hand
    from mjframework.run.simulate import hand_seed

    rs = load_ruleset(str(RS / "wind-by-deal.yaml"))
    ev = Evaluator(rs)
    table = Table(rs, seed=0, evaluator=ev, carry=Carry(rs, 0))
    seen = []
    for h in range(14):
        table.reset(seed=hand_seed(5, 0, h))
        assert table.game is not None and table.game.hand_no == h
        seen.append((table.game.dealer, table.game.prevalent_wind))
        play_hand(table, make_bots(("greedy",) * 4, 5, 0, h))
    _by_deal(seen)
    # the same hands as mj simulate's game (one loop: hand_series)
    assert seen == [(d, w) for d, w, _n in _series(rs, 5, 14)]


def test_the_env_plays_the_hands_of_a_game() -> None:
    pytest.importorskip("numpy")
    from mjframework.run.env import make_env

    rs = load_ruleset(str(RS / "wind-by-deal.yaml"))
    env = make_env(rs, seed=3, options={"dealer": "game"})
    seen = []
    for _h in range(16):
        env.reset()
        g = env.table.game
        seen.append((g.dealer, g.prevalent_wind))
        while env.result is None:
            env.step(int(env.observe(env.agent_to_act)["action_mask"].argmax()))
    _by_deal(seen)
    env.reset(seed=3)  # a given seed starts a new game
    assert (env.table.game.dealer, env.table.game.hand_in_game) == (0, 0)
