"""The hand-size primitive (``hand: {size: N}``): docs/pattern-language.md, "Hand size".

A ruleset says how many tiles a hand holds between turns (13 unless said); a complete hand
holds one more (one more per kong). The deal check, the shapes, check_hand, the fast win
check, the waits, readiness, play, seat logs and the terminal read it. Shapes of a fixed size
(seven pairs, knitted, knitted straight) are located errors where they can't hold the hand.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from mjframework.cli import main
from mjframework.core.errors import HandError
from mjframework.core.hand import Hand, WinContext, check_hand, make_hand
from mjframework.core.tiles import parse_tiles
from mjframework.evaluate.scoring import Evaluator
from mjframework.play.bots import GreedyBot
from mjframework.play.game import Game
from mjframework.play.seatlog import SeatStream
from mjframework.rules.loader import check_file, load_ruleset
from mjframework.rules.model import Ruleset

RS = Path(__file__).parent / "rulesets"
SHIPPED = ["changsha", "yongzhou-huandiao", "yongzhou-wangba", "mcr", "sichuan-xuezhan", "hongzhong",
           "guangdong-tuidaohu"]


def _problems(tmp_path: Path, data: dict[str, Any]) -> list[str]:
    f = tmp_path / "t.yaml"
    f.write_text(yaml.safe_dump({"format": 1, "id": "t", "name": "t", "extends": str(RS / "hand-16.yaml"),
                                 **data}, allow_unicode=True), encoding="utf-8")
    rs, problems = check_file(f)
    assert rs is None, "the ruleset should be refused"
    return [str(p) for p in problems]


def test_the_default_is_13_and_every_earlier_ruleset_keeps_it() -> None:
    for rid in SHIPPED:
        assert load_ruleset(rid).hand.size == 13, rid
    rs = load_ruleset(RS / "hand-16.yaml")
    assert (rs.hand.size, rs.hand.winning, rs.hand.max_melds) == (16, 17, 5)
    assert load_ruleset("taiwan-16").hand.size == 16


@pytest.mark.parametrize("size", [14, 15, 12])
def test_a_size_that_cant_win_is_a_located_error(tmp_path: Path, size: int) -> None:
    problems = _problems(tmp_path, {"hand": {"size": size}})
    assert any("t.yaml:" in p and "hand.size" in p and "3 per set + 1" in p for p in problems), problems


def test_the_schema_bounds_the_size(tmp_path: Path) -> None:
    assert any("hand.size" in p for p in _problems(tmp_path, {"hand": {"size": 25}}))
    assert any("hand.size" in p for p in _problems(tmp_path, {"hand": {"size": 1}}))
    assert any("hand" in p and "unknown key" in p for p in _problems(tmp_path, {"hand": {"tiles": 16}}))


def test_a_shape_must_hold_the_declared_hand(tmp_path: Path) -> None:
    problems = _problems(tmp_path, {"shapes": {"standard": {"melds": 4, "pair": 1}}})
    assert any("shapes.standard" in p and "not a 17-tile hand" in p for p in problems), problems
    problems = _problems(tmp_path, {"shapes": {"seven_pairs": {"pairs": 7}}})
    assert any("shapes.seven_pairs" in p and "14 tiles, not a 17-tile hand" in p for p in problems), problems
    problems = _problems(tmp_path, {"shapes": {"knitted": {"knitted": {"min_gap": 3}}}})
    assert any("shapes.knitted" in p and "hand: {size: 16}" in p for p in problems), problems
    problems = _problems(tmp_path, {"shapes": {"dragon": {"knitted_straight": True, "melds": 1, "pair": 1}}})
    assert any("shapes.dragon" in p and "14-tile hand" in p for p in problems), problems


def test_seven_pairs_fits_a_13_tile_hand_only_and_eight_pairs_no_size(tmp_path: Path) -> None:
    # (size 19: 10 pairs are 20 tiles, a complete hand 20: allowed)
    f = tmp_path / "p.yaml"
    f.write_text(yaml.safe_dump({"format": 1, "id": "p", "name": "p", "extends": str(RS / "hand-16.yaml"),
                                 "hand": {"size": 19}, "wall": {"stacks_per_seat": 17},
                                 "deal": {"rounds": 4, "block": 4, "then": [{"seat": 0, "tiles": 4},
                                                                           *({"seat": s, "tiles": 3}
                                                                             for s in (1, 2, 3))]},
                                 "shapes": {"standard": {"melds": 6, "pair": 1}, "pairs": {"pairs": 10}}}),
                 encoding="utf-8")
    rs, problems = check_file(f)
    assert rs is not None, [str(p) for p in problems]
    assert rs.shapes["pairs"].pairs == 10


def test_the_deal_must_give_the_declared_size(tmp_path: Path) -> None:
    problems = _problems(tmp_path, {"deal": {"rounds": 3, "block": 4, "then": [
        {"seat": 0, "tiles": 2}, {"seat": 1, "tiles": 1}, {"seat": 2, "tiles": 1}, {"seat": 3, "tiles": 1}]}})
    assert any("deal" in p and "the dealer needs 17 and the others 16" in p for p in problems), problems


def test_an_exchange_may_pass_up_to_the_hand(tmp_path: Path) -> None:
    problems = _problems(tmp_path, {"exchange": {"tiles": 17, "direction": "right"}})
    assert any("exchange.tiles" in p and "holds only 16" in p for p in problems), problems


def test_held_ranks_lists_the_declared_size(tmp_path: Path) -> None:
    nine_gates = {"name": "gates", "shape": "standard", "require": {"held_ranks": "1112345678999"},
                  "points": 8}
    problems = _problems(tmp_path, {"patterns": [nine_gates]})
    assert any("patterns[0].require.held_ranks" in p and "a hand holds 16" in p for p in problems), problems
    f = tmp_path / "g.yaml"
    f.write_text(yaml.safe_dump({"format": 1, "id": "g", "name": "g", "extends": str(RS / "hand-16.yaml"),
                                 "patterns": [dict(nine_gates, require={"held_ranks": "1112345666678999"})]}),
                 encoding="utf-8")
    rs, problems = check_file(f)
    assert rs is not None, [str(p) for p in problems]
    ev = Evaluator(rs)
    score = ev.score(make_hand("1112345666678999m", win_tile="5m"), WinContext(seat=1, dealer=0))
    assert "gates" in score.pattern_names


def test_check_hand_counts_the_declared_size() -> None:
    rs = load_ruleset(RS / "hand-16.yaml")
    check_hand(make_hand("123m 456m 789m 123p 456p 5s", win_tile="5s"), rs, None)
    check_hand(make_hand("123m 456m 789m 123p 5s", ["kong 1z"], "5s"), rs, None)
    with pytest.raises(HandError, match="a winning hand has 17 tiles"):
        check_hand(make_hand("123m 456m 789m 123p 5s", win_tile="5s"), rs, None)
    with pytest.raises(HandError, match="a winning hand has 17 tiles"):
        check_hand(make_hand("", ["pung 1z", "pung 2z", "pung 3z", "pung 4z", "pung 5z", "pung 6z"], "7z"),
                   rs, None)
    mcr = load_ruleset("changsha")
    with pytest.raises(HandError, match="a winning hand has 14 tiles"):
        check_hand(make_hand("123m 456m 789m 123p 456p 5s", win_tile="5s"), mcr, None)


def test_scoring_and_waits_read_five_sets() -> None:
    ev = Evaluator(load_ruleset(RS / "hand-16.yaml"))
    ctx = WinContext(seat=1, win_by="discard", discarder=2, dealer=0)
    held = parse_tiles("111m 222m 333p 444p 5s 666s")
    score = ev.score(Hand(tuple(held), (), parse_tiles("5s")[0]), ctx)
    assert score.win and {p.name for p in score.patterns} == {"win", "all pungs", "concealed"}
    assert ev.waits(held, [], ctx) == parse_tiles("457s")  # 456s + 66s, 555s + 666s, 567s + 66s
    assert ev.waiting_tiles(held) == 3
    assert ev.waiting_tiles(parse_tiles("123m 456m 789m 123p 99s 45s")) == 2
    # four sets and a pair are a 14-tile win elsewhere, not here
    assert not ev.is_win(make_hand("123m 456m 789m 55s 78s", [], "9s"), ctx)
    assert ev.is_win(make_hand("123m 456m 789m 55s 78s", ["pung 1z"], "9s"), ctx)


def _seventeen(rng: random.Random, wild: bool) -> list[int]:
    """17 tiles: five random sets and a pair (a tile or two then swapped), or 17 at random."""
    if rng.random() < 0.3:
        tiles = rng.sample([t for t in range(34) for _ in range(4)], 17)
    else:
        tiles = []
        while len(tiles) < 15:
            t = rng.randrange(34)
            group = [t, t + 1, t + 2] if t < 27 and t % 9 < 7 and rng.random() < 0.6 else [t] * 3
            tiles += group
        tiles += [rng.randrange(34)] * 2
        for _ in range(rng.choice([0, 0, 1, 2])):
            tiles[rng.randrange(17)] = rng.randrange(34)
    if wild:
        for _ in range(rng.choice([0, 1, 2])):
            tiles[rng.randrange(17)] = 33
    if any(tiles.count(t) > 4 for t in tiles):
        return _seventeen(rng, wild)
    rng.shuffle(tiles)
    return tiles


def test_the_fast_check_agrees_with_scoring_on_16_tile_hands() -> None:
    """is_win (the win tables, the memo) against the scorer, hands with 中 wild included."""
    for name in ("hand-16.yaml", "hand-16-wild.yaml"):
        rs = load_ruleset(RS / name)
        ev = Evaluator(rs)
        rng = random.Random(name)
        wild = 33 if rs.wildcard else None
        wins = 0
        for _ in range(400):
            tiles = _seventeen(rng, wild is not None)
            hand = Hand(tuple(tiles[:-1]), (), tiles[-1])
            ctx = WinContext(seat=1, win_by="self_draw", dealer=0)
            fast = ev.is_win(hand, ctx, wild)
            assert fast == ev.score(hand, ctx, wild).win, hand
            wins += fast
        assert 100 < wins < 400, (name, wins)


def test_play_deals_17_and_16_and_says_so(tmp_path: Path) -> None:
    rs: Ruleset = load_ruleset(RS / "hand-16.yaml")
    results = []
    for seed in range(12):
        events: list[dict[str, Any]] = []
        game = Game(rs, [GreedyBot(random.Random(seed * 4 + i)) for i in range(4)], seed=seed,
                    emit=events.append)
        results.append(game.play().result)
        start = next(e for e in events if e["type"] == "hand_start")
        deal = next(e for e in events if e["type"] == "deal")
        assert start["hand_size"] == 16
        assert sorted(len(h) for h in deal["hands"]) == [16, 16, 16, 17]
        stream = SeatStream(1)
        out = [x for e in events for x in stream.feed(e)]
        kyoku = next(x for x in out if x["type"] == "start_kyoku")
        assert [len(t) for t in kyoku["tehais"]] == [17 if s == start["dealer"] else 16 for s in range(4)]
    assert results.count("win") >= 8
    # a 13-tile ruleset's hand_start says nothing new (its logs are unchanged)
    events = []
    Game(load_ruleset("changsha"), [GreedyBot(random.Random(i)) for i in range(4)], seed=1,
         emit=events.append).play()
    assert "hand_size" not in next(e for e in events if e["type"] == "hand_start")


def test_mj_score_and_simulate_a_16_tile_ruleset() -> None:
    r = CliRunner().invoke(main, ["score", str(RS / "hand-16.yaml"), "111m 222m 333p 444p 5s 666s",
                                  "-t", "5s"])
    assert r.exit_code == 0, r.output
    assert "all pungs" in r.output
    r = CliRunner().invoke(main, ["score", str(RS / "hand-16.yaml"), "111m 222m 333p 5s 666s", "-t", "5s"])
    assert r.exit_code != 0 and "17 tiles" in r.output and "Traceback" not in r.output
    r = CliRunner().invoke(main, ["simulate", str(RS / "hand-16-wild.yaml"), "--hands", "40", "--seed", "5"])
    assert r.exit_code == 0 and "abandoned         0" in r.output, r.output


def _sets_and_pair(counts: list[int], sets: int) -> bool:
    """Brute force: ``counts`` (one suit, 9 ranks) is ``sets`` sets and a pair."""
    def sets_only(c: list[int], n: int) -> bool:
        i = next((k for k in range(9) if c[k]), None)
        if i is None:
            return n == 0
        if n == 0:
            return False
        if c[i] >= 3:
            c[i] -= 3
            ok = sets_only(c, n - 1)
            c[i] += 3
            if ok:
                return True
        if i <= 6 and c[i + 1] and c[i + 2]:
            for k in (i, i + 1, i + 2):
                c[k] -= 1
            ok = sets_only(c, n - 1)
            for k in (i, i + 1, i + 2):
                c[k] += 1
            return ok
        return False
    for p in range(9):
        if counts[p] >= 2:
            c = counts[:]
            c[p] -= 2
            if sets_only(c, sets):
                return True
    return False


def test_one_suit_17_tile_hands_outside_the_win_tables_are_exact() -> None:
    """A suit block of 15–17 tiles is beyond the precomputed tables (14 tiles at most) and
    falls back to the on-demand programme: is_win and waits against a brute force."""
    ev = Evaluator(load_ruleset(RS / "hand-16.yaml"))
    ctx = WinContext(seat=1, win_by="self_draw", dealer=0)
    rng = random.Random("one suit")
    wins = checked_waits = 0
    for _ in range(300):
        while True:
            counts = [0] * 9
            for _ in range(17):
                counts[rng.randrange(9)] += 1
            if max(counts) <= 4:
                break
        tiles = [r for r in range(9) for _ in range(counts[r])]  # 万 (m): kinds 0-8
        rng.shuffle(tiles)
        hand = Hand(tuple(tiles[:-1]), (), tiles[-1])
        want = _sets_and_pair(counts, 5)
        assert ev.is_win(hand, ctx) == want, counts
        wins += want
        held = tiles[:-1]
        if checked_waits < 60:
            hc = [held.count(r) for r in range(9)]
            # (a kind held four times still counts, as everywhere: waits are of the shape)
            brute = [r for r in range(9) if _sets_and_pair([*hc[:r], hc[r] + 1, *hc[r + 1:]], 5)]
            assert ev.waits(held, [], ctx) == brute, hc
            checked_waits += 1
    # near-complete hands are rare at random: make some sure ones too
    for _ in range(100):
        counts = [0] * 9
        for _ in range(5):
            r = rng.randrange(7)
            for k in ((r, r + 1, r + 2) if rng.random() < 0.7 else (r, r, r)):
                counts[k] += 1
        counts[rng.randrange(9)] += 2
        if max(counts) > 4:
            continue
        tiles = [r for r in range(9) for _ in range(counts[r])]
        assert ev.is_win(Hand(tuple(tiles[:-1]), (), tiles[-1]), ctx)
        wins += 1
    assert wins > 50
