"""Flowers by name: the ``seat_flowers`` (正花) and ``flower_sets`` (花杠) measures —
docs/pattern-language.md, "Requirements". Play gives the winner's flowers by name; a
conformance case, a pattern's example and ``mj score --flowers`` may name them (a count alone
leaves both measures at 0)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from mjframework.cli import main
from mjframework.core.errors import HandError
from mjframework.core.hand import WinContext, check_context, make_hand, parse_flowers
from mjframework.core.tiles import parse_tiles
from mjframework.evaluate.scoring import Evaluator
from mjframework.play.bots import GreedyBot
from mjframework.play.game import Game
from mjframework.rules.loader import load_ruleset
from mjframework.run.conformance import run_file

RS = Path(__file__).parent / "rulesets" / "seat-flowers.yaml"
HAND = make_hand("123m 456m 789p 234s 5s", win_tile="5s")


def _names(ev: Evaluator, **ctx: Any) -> list[str]:
    score = ev.score(HAND, WinContext(**ctx))
    assert score.win
    return [f"{p.name}×{p.times}" if p.times > 1 else p.name for p in score.patterns]


def test_seat_flowers_follow_the_seat_wind() -> None:
    ev = Evaluator(load_ruleset(RS))
    f = parse_tiles
    # seat 2 is 西: 秋 (3f) and 竹 (7f) are its own, 春 (1f) is 东's
    assert _names(ev, seat=2, flowers=3, flower_tiles=tuple(f("3f 7f 1f"))) == ["win", "own flower×2"]
    assert _names(ev, seat=0, flowers=2, flower_tiles=tuple(f("1f 5f"))) == ["win", "own flower×2"]
    assert _names(ev, seat=1, flowers=2, flower_tiles=tuple(f("1f 5f"))) == ["win"]
    # a declared seat wind wins over the seat's place
    assert _names(ev, seat=1, seat_wind=f("北")[0], flowers=2, flower_tiles=tuple(f("4f 8f"))) \
        == ["win", "own flower×2"]
    # the count alone says nothing about which
    assert _names(ev, seat=2, flowers=3) == ["win"]


def test_flower_sets_count_whole_sets_of_four() -> None:
    ev = Evaluator(load_ruleset(RS))
    f = parse_tiles
    assert _names(ev, seat=3, flowers=3, flower_tiles=tuple(f("1f 2f 3f"))) == ["win"]
    assert _names(ev, seat=3, flowers=4, flower_tiles=tuple(f("5f 6f 7f 8f"))) \
        == ["win", "own flower", "flower set"]
    assert _names(ev, seat=3, flowers=8, flower_tiles=tuple(range(34, 42))) \
        == ["win", "own flower×2", "flower set×2"]


@pytest.mark.parametrize(("value", "want"), [(0, (0, ())), ("2", (2, ())), (3, (3, ())),
                                             ("5f 1f", (2, (34, 38))), ("春梅", (2, (34, 38)))])
def test_parse_flowers(value: Any, want: tuple[int, tuple[int, ...]]) -> None:
    assert parse_flowers(value) == want


@pytest.mark.parametrize("value", ["1m", "1f 1f", -1, True, "9f", [1]])
def test_parse_flowers_refuses(value: Any) -> None:
    with pytest.raises(HandError):
        parse_flowers(value)


def test_the_context_checks_flower_tiles() -> None:
    with pytest.raises(HandError, match="give the same number"):
        check_context(WinContext(flowers=1, flower_tiles=(34, 35)), 4)
    with pytest.raises(HandError, match="each a different flower"):
        check_context(WinContext(flowers=1, flower_tiles=(3,)), 4)


def test_play_gives_the_winner_s_flowers_by_name() -> None:
    """Each win's 正花 count is what the seat's own flower events say."""
    rs = load_ruleset(RS)
    own = 0
    for seed in range(40):
        events: list[dict[str, Any]] = []
        Game(rs, [GreedyBot(random.Random(seed * 4 + i)) for i in range(4)], seed=seed,
             emit=events.append).play()
        dealer = next(e for e in events if e["type"] == "hand_start")["dealer"]
        flowers: dict[int, list[int]] = {s: [] for s in range(4)}
        for e in events:
            if e["type"] == "flower":
                flowers[e["seat"]].append(parse_tiles(e["tile"])[0])
            if e["type"] == "win":
                seat = e["seat"]
                wind = (seat - dealer) % 4
                mine = sum((t - 34) % 4 == wind for t in flowers[seat])
                got = e["patterns"].count("own flower")
                assert got == (1 if mine else 0), (seed, e, flowers[seat])
                own += mine > 0
    assert own > 3


def test_cases_and_mj_score_name_flowers(tmp_path: Path) -> None:
    doc = {"format": 1, "ruleset": str(RS), "cases": [
        {"id": "named", "seat": 2, "hand": "123m 456m 789p 234s 5s", "win_tile": "5s", "flowers": "3f 7f 1f",
         "expect": {"win": True, "patterns": ["win", "own flower"], "payments": [-3, -3, 9, -3]}},
        {"id": "bad", "seat": 2, "hand": "123m 456m 789p 234s 5s", "win_tile": "5s", "flowers": "3m",
         "expect": {"win": True}},
    ]}
    f = tmp_path / "c.yaml"
    f.write_text(yaml.safe_dump(doc, allow_unicode=True), encoding="utf-8")
    named, bad = run_file(f)
    assert named.status == "pass", named
    assert bad.status == "error" and "`flowers`" in bad.message
    r = CliRunner().invoke(main, ["score", str(RS), "123m 456m 789p 234s 5s", "-t", "5s", "-s", "2",
                                  "--flowers", "秋竹春", "--json"])
    assert r.exit_code == 0, r.output
    assert "own flower" in r.output
    r = CliRunner().invoke(main, ["score", str(RS), "123m 456m 789p 234s 5s", "-t", "5s", "--flowers", "3m"])
    assert r.exit_code != 0 and "Traceback" not in r.output and "flower" in r.output
