"""A reserved tail of the wall (``wall.reserve``, 留尾): docs/pattern-language.md, "A hand's flow".

Never drawn from either end; the hand is drawn when only the tail is left; the last drawable
tile is the last tile (海底); `mj validate` refuses a tail that leaves nothing to draw.
"""

from __future__ import annotations

import random
from pathlib import Path

import yaml

from mjframework.play.bots import GreedyBot
from mjframework.play.game import Game
from mjframework.play.wall import Wall
from mjframework.rules.loader import check_file, load_ruleset

RS = Path(__file__).parent / "rulesets"


def test_the_tail_is_never_drawn_and_ends_the_hand() -> None:
    rs = load_ruleset(RS / "reserve-tail.yaml")
    assert rs.wall.reserve == 14
    drawn = last_tile_wins = kongs = 0
    for seed in range(160):
        events: list[dict] = []
        game = Game(rs, [GreedyBot(random.Random(seed * 4 + i)) for i in range(4)], seed=seed,
                    emit=events.append)
        result = game.play()
        left = len(game.wall.slots) - game.wall.slots.count(None)
        assert left >= 14, (seed, left)
        kongs += sum(e["type"] == "kong" for e in events)
        if result.result == "draw":
            drawn += 1
            assert left == 14, (seed, left)  # drawn exactly when only the tail is left
        for e in events:
            if e["type"] == "win" and "海底捞月" in e["patterns"]:
                last_tile_wins += 1
                assert left == 14
    assert drawn > 20 and last_tile_wins > 0 and kongs > 0


def test_the_wall_counts_the_tail_out() -> None:
    rs = load_ruleset(RS / "reserve-tail.yaml")
    wall = Wall(rs, random.Random(3), 0)
    wall.break_wall()
    total = len(wall.slots)
    assert wall.live_remaining() == total - 14
    taken = 0
    while wall.take_live() is not None:
        taken += 1
    assert taken == total - 14 and wall.live_remaining() == 0 and wall.kong_remaining() == 0
    assert wall.take_kong() is None and wall.peek_live(3) == []
    assert len(wall.peek_end(2)) == 2  # the tail may be looked at (bonus tiles from the kong end)


def test_validate_refuses_a_tail_that_leaves_nothing_to_draw(tmp_path: Path) -> None:
    f = tmp_path / "t.yaml"
    f.write_text(yaml.safe_dump({"format": 1, "id": "t", "name": "t", "extends": str(RS / "base-108.yaml"),
                                 "wall": {"reserve": 55}}), encoding="utf-8")
    rs, problems = check_file(f)
    assert rs is None
    assert any("leaves nothing to draw" in str(p) and p.path == ("wall", "reserve") for p in problems)
