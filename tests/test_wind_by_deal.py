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

