"""Bonus tiles from the wall (``bonus_tiles``: 扎鸟, 抓码, 买马), docs/pattern-language.md "Bonus tiles".

- changsha's 扎鸟 is its `bonus_tiles` (`key: birds`, `says`, `deals_next`): its logs'
  birds are checked against the rules page by a reference of their own, its bird cases pass;
- `deals_next` (the seat hit most deals next) and `key` on a purpose-made ruleset
  (bonus-dealer.yaml);
- the 抓码 kind (bonus-tiles.yaml): only listed tiles hit, they hit the winner, each adds to
  the winner's payments, one more tile when no wildcard is held, kong money left alone;
- which seat a tile hits, the count, and the loader's meaning checks.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from mjframework.core.errors import RulesetError
from mjframework.core.hand import WinContext, make_hand
from mjframework.core.tiles import parse_tile, parse_tiles, rank_of
from mjframework.evaluate.scoring import Evaluator
from mjframework.rules.loader import check_file, load_ruleset
from mjframework.run.conformance import run_file
from mjframework.run.simulate import simulate
from mjframework.settle import bonus

HERE = Path(__file__).parent
RS = HERE / "rulesets"
ROOT = HERE.parent


def _log(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _hit(code: str, dealer: int) -> int:
    """changsha's birds, as docs/rules/changsha.md says: rank r hits the seat r − 1 from the dealer."""
    return (dealer + rank_of(parse_tile(code)) - 1) % 4


@pytest.mark.parametrize("seed", [3, 11])
def test_changsha_birds_double_every_payment_they_hit(seed: int, tmp_path: Path) -> None:
    """changsha's 扎鸟 is its `bonus_tiles` (`key: birds`): the log's `birds` events, checked
    against the rules page by a reference of its own (not the engine's arithmetic)."""
    log = tmp_path / f"changsha-{seed}.jsonl"
    simulate("changsha", 150, seed=seed, log=str(log), workers=1)
    events = _log(log)
    assert not [e for e in events if e["type"] == "bonus_tiles"]
    dealer, checked, kinds = 0, 0, set()
    birds: list[str] = []
    for e in events:
        if e["type"] == "hand_start":
            dealer, birds = e["dealer"], []
        elif e["type"] == "birds":
            assert e["seats"] == [_hit(t, dealer) for t in e["tiles"]]
            assert e["text"].startswith({"win": "扎鸟  ", "opening": "起手扎鸟  "}[e["kind"]])
            birds = e["tiles"]
            kinds.add(e["kind"])
        elif e["type"] == "settlement" and birds:
            hits = [0] * 4
            for t in birds:
                hits[_hit(t, dealer)] += 1
            for item in e["items"]:
                factor = 2 ** (hits[item["payer"]] + hits[item["payee"]])
                assert item["amount"] % factor == 0 and (item["amount"] // factor) % 10 == 0
                assert (f" ×{factor} 鸟" in item["reason"]) == (factor > 1), item
                checked += factor > 1
    # Not vacuous: birds were turned up, for wins and openings, and changed payments.
    assert kinds == {"win", "opening"} and checked > 50


def test_changsha_s_bird_cases_give_the_birds_by_their_key(tmp_path: Path) -> None:
    """changsha's conformance cases give birds as `context: {birds: …}` (its `key`); the
    default word `bonus_tiles` is not one changsha reads."""
    data = yaml.safe_load((ROOT / "tests" / "conformance" / "changsha.yaml").read_text(encoding="utf-8"))
    cases = [c for c in data["cases"] if "birds" in (c.get("context") or {})]
    assert len(cases) >= 3
    f = tmp_path / "birds.yaml"
    f.write_text(yaml.safe_dump({"format": 1, "ruleset": "changsha", "cases": cases}, allow_unicode=True),
                 encoding="utf-8")
    results = run_file(f)
    assert [r.status for r in results] == ["pass"] * len(cases), [r for r in results if r.status != "pass"]
    from mjframework.core.errors import HandError
    with pytest.raises(HandError, match="unknown context key 'bonus_tiles'"):
        Evaluator(load_ruleset("changsha")).check_context_inputs({bonus.CONTEXT_KEY: parse_tiles("1m")})


# -- the seat the bonus tiles hit deals next (`deals_next`), their own word (`key`) --------

def test_the_seat_hit_most_deals_next(tmp_path: Path) -> None:
    log = tmp_path / "dealer.jsonl"
    simulate(str(RS / "bonus-dealer.yaml"), 120, seed=4, log=str(log), workers=1)
    events = _log(log)
    assert not [e for e in events if e["type"] == "bonus_tiles"]
    horses: list[dict[str, Any]] = []
    decided = moved = 0
    winners: list[int] = []
    for e in events:
        if e["type"] == "hand_start":
            horses, winners = [], []
        elif e["type"] == "win":
            winners.append(e["seat"])
        elif e["type"] == "horses":
            assert e["kind"] == "win" and e["text"].startswith("买马  ") and "name" not in e
            assert e["seats"] == [(winners[0] + rank_of(parse_tile(t)) - 1) % 4 for t in e["tiles"]]
            horses.append(e)
        elif e["type"] == "hand_end" and horses:
            seats = horses[0]["seats"]
            # the reference: most hits, ties to the horse turned up first
            want = max(seats, key=lambda s: (seats.count(s), -seats.index(s)))
            assert e["next_dealer"] == want
            decided += 1
            moved += want != winners[0]  # `after_win: winner` alone would say the winner
        elif e["type"] == "hand_end" and len(winners) == 1:
            assert e["next_dealer"] == winners[0]  # no horse left to turn up: the winner deals
    assert decided > 30 and moved > 10


def test_a_case_gives_the_tiles_by_the_rule_s_key() -> None:
    ev = Evaluator(load_ruleset(RS / "bonus-dealer.yaml"))
    assert "horses" in ev.context_inputs() and bonus.CONTEXT_KEY not in ev.context_inputs()
    h = make_hand("123m 456m 789p 234s 5s", [], "5s")
    plain = ev.evaluate(h, WinContext(seat=1, win_by="self_draw")).settlement
    # 1m and 5p hit the winner (seat 1): +1 per horse on each payment it receives; 2s hits seat 2.
    got = ev.evaluate(h, WinContext(seat=1, win_by="self_draw",
                                    extra={"horses": parse_tiles("1m 5p 2s")})).settlement
    assert plain is not None and got is not None
    assert [p.amount for p in got.payments] == [p.amount + 2 for p in plain.payments]


# -- 抓码: listed tiles hit the winner and add to what the winner receives --------------------

@pytest.fixture(scope="module")
def zhuama() -> Evaluator:
    return Evaluator(load_ruleset(RS / "bonus-tiles.yaml"))


def _settle(ev: Evaluator, hand: str, tile: str, *, seat: int = 1, win_by: str = "self_draw",
            discarder: int | None = None, tiles: str = "", melds: list[str] | None = None) -> list[int]:
    h = make_hand(hand, melds or [], tile)
    extra = {bonus.CONTEXT_KEY: parse_tiles(tiles)} if tiles else {}
    ctx = WinContext(seat=seat, win_by=win_by, discarder=discarder, extra=extra)
    res = ev.evaluate(h, ctx)
    assert res.settlement is not None
    return res.settlement.net()


def test_listed_tiles_hit_the_winner_and_add_per_hit(zhuama: Evaluator) -> None:
    hand = "123m 456m 789p 234s 5s"
    plain = _settle(zhuama, hand, "5s")  # 胡牌 2 + 无红中 2 = 4 from each of three
    assert plain == [-4, 12, -4, -4]
    # 1m and 中 hit (the winner); 2p and 6s don't: +2 per hit on each payment to the winner.
    assert _settle(zhuama, hand, "5s", tiles="1m 2p 中") == [-8, 24, -8, -8]
    assert _settle(zhuama, hand, "5s", tiles="2p 6s") == plain
    # A discard win: only the discarder pays, and pays the hits too.
    assert _settle(zhuama, hand, "5s", win_by="discard", discarder=3, tiles="9s 5p") == [0, 8, 0, -8]


def test_kong_money_is_left_alone_when_kongs_is_false(zhuama: Evaluator) -> None:
    got = _settle(zhuama, "456m 789p 234s 5s", "5s", melds=["concealed-kong 1m"], tiles="1p 5m")
    # win: 4 + 2×2 = 8 from each; the concealed kong: 2 from each, not raised.
    assert got == [-10, 30, -10, -10]


def test_count_and_more() -> None:
    rule = load_ruleset(RS / "bonus-tiles.yaml").bonus_tiles
    assert rule is not None and rule.most == 3
    red = frozenset({parse_tile("中")})
    assert bonus.count_for(rule, parse_tiles("123m 456m 789p 234s 55s"), ["胡牌"], red) == 3
    assert bonus.count_for(rule, parse_tiles("123m 456m 789p 234s 5s 中"), ["胡牌"], red) == 2


def test_the_game_turns_up_more_tiles_without_wildcards_and_logs_them(tmp_path: Path) -> None:
    log = tmp_path / "zm.jsonl"
    simulate(str(RS / "bonus-tiles.yaml"), 120, seed=5, log=str(log), workers=1)
    events = _log(log)
    wins = [e for e in events if e["type"] == "win"]
    flips = [e for e in events if e["type"] == "bonus_tiles"]
    assert flips and len(flips) <= len(wins)
    for i, e in enumerate(events):
        if e["type"] != "bonus_tiles":
            continue
        win = events[i - 1]
        assert win["type"] == "win" and e["kind"] == "win" and e["name"] == "码"
        assert len(e["tiles"]) in (2, 3)
        listed = set(parse_tiles("159m 159p 159s 中"))
        assert e["seats"] == [win["seat"] if parse_tile(t) in listed else None for t in e["tiles"]]
        settlement = next(x for x in events[i:] if x["type"] == "settlement")
        hits = sum(s is not None for s in e["seats"])
        for item in settlement["items"]:  # kong money (reason: the kong's kind) is left alone
            kong = item["reason"] in ("kong", "added_kong", "concealed_kong")
            assert ("码" in item["reason"]) == (hits > 0 and not kong)
    assert {len(e["tiles"]) for e in flips} == {2, 3}


# -- 一码全中: one tile whose rank counts as hits (`hit.weight: rank`) ----------------------

@pytest.mark.parametrize("path", [RS / "bonus-yima.yaml", "hongzhong"])
def test_one_tile_counts_its_rank(path: Path | str) -> None:
    rs = load_ruleset(path, options={"yima": True} if path == "hongzhong" else None)
    ev = Evaluator(rs)
    assert rs.bonus_tiles is not None and rs.bonus_tiles.most == 1
    assert _settle(ev, "123m 456m 789p 234s 5s", "5s") == [-2, 6, -2, -2]
    # 九万: 9 hits on the winner, +2 each on every payment; 中: 10; 一筒: 1.
    for tile, hits in (("9m", 9), ("中", 10), ("1p", 1), ("6s", 6)):
        per = 2 + 2 * hits
        assert _settle(ev, "123m 456m 789p 234s 5s", "5s", tiles=tile) == [-per, 3 * per, -per, -per]


def test_one_tile_in_play_hits_the_winner_with_its_rank(tmp_path: Path) -> None:
    log = tmp_path / "yima.jsonl"
    simulate(str(RS / "bonus-yima.yaml"), 80, seed=2, log=str(log), workers=1)
    events = _log(log)
    seen = 0
    for i, e in enumerate(events):
        if e["type"] != "bonus_tiles":
            continue
        win = events[i - 1]
        assert len(e["tiles"]) == 1 and e["seats"] == [win["seat"]]
        t = e["tiles"][0]
        hits = 10 if t == "7z" else int(t[0])
        settlement = next(x for x in events[i:] if x["type"] == "settlement")
        for item in settlement["items"]:
            if item["reason"] not in ("kong", "added_kong", "concealed_kong"):
                assert f"+{2 * hits} 码" in item["reason"], item
        seen += 1
    assert seen > 20


# -- which seat a tile hits ---------------------------------------------------------------

def _rule(hit: dict[str, Any], tmp_path: Path) -> Any:
    f = tmp_path / "r.yaml"
    data = {"format": 1, "id": "t", "name": "t", "extends": str(RS / "combos-136.yaml"),
            "bonus_tiles": {"count": 1, "hit": hit}}
    f.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    return load_ruleset(f).bonus_tiles


def test_rank_counts_seats_from_the_dealer_or_the_winner(tmp_path: Path) -> None:
    dealer = _rule({"from": "dealer"}, tmp_path)
    tiles = ("1m", "5p", "9s", "2m", "4s")
    assert [dealer.seat_hit(parse_tile(t), dealer=2, winner=1, players=4) for t in tiles] == [2, 2, 2, 3, 1]
    winner = _rule({"from": "winner"}, tmp_path)
    assert [winner.seat_hit(parse_tile(t), dealer=2, winner=1, players=4) for t in ("1m", "6m", "3s")
            ] == [1, 2, 3]


def test_an_honor_table_and_honors_not_listed(tmp_path: Path) -> None:
    rule = _rule({"from": "winner", "honors": {"东": 0, "南": 1, "中": 0}}, tmp_path)
    tiles = ("东", "南", "中", "白", "2m")
    hit = [rule.seat_hit(parse_tile(t), dealer=0, winner=3, players=4) for t in tiles]
    assert hit == [3, 0, 3, None, 0]


@pytest.mark.parametrize(("bonus_tiles", "message"), [
    ({"count": 1, "more": [{"add": 1, "patterns": ["没有"]}]}, "no pattern '没有'"),
    ({"count": 1, "more": [{"add": 1, "no_wildcards": True}]}, "has no wildcards"),
    ({"count": 1, "hit": {"honors": {"1m": 0}}}, "not an honor tile"),
    ({"count": 1, "hit": {"tiles": "1m 中"}}, "not in this ruleset's tile set: 7z"),
    ({"count": 1, "hit": {"tiles": "1m", "honors": {"中": 0}}}, "only the listed tiles hit"),
    ({"count": 9, "more": [{"add": 8}]}, "at most 16 tiles"),
    ({"count": 1, "on": ["win"]}, "unknown key 'on'"),
    ({"count": 1, "hit": {"honor_weight": 5}}, "only with `weight: rank`"),
    ({"count": 1, "key": "discard"}, "'discard' is the type of another event"),
    ({"count": 1, "says": {"opening": "起手"}}, "nothing is turned up at `opening`"),
    ({"count": 1, "deals_next": {"at": "opening"}}, "nothing is turned up at `opening`"),
    ({"count": 1, "deals_next": {"at": "win", "also": ["没有"]}}, "no pattern '没有'"),
])
def test_meaning_checks(bonus_tiles: dict[str, Any], message: str, tmp_path: Path) -> None:
    f = tmp_path / "bad.yaml"
    f.write_text(yaml.safe_dump({"format": 1, "id": "t", "name": "t", "extends": str(RS / "base-108.yaml"),
                                 "bonus_tiles": bonus_tiles}, allow_unicode=True), encoding="utf-8")
    rs, problems = check_file(f)
    assert rs is None
    text = "\n".join(str(p) for p in problems)
    assert message in text and "bonus_tiles" in text and f"{f}:" in text
    with pytest.raises(RulesetError):
        load_ruleset(f)


def test_a_case_gives_no_more_tiles_than_the_rule_turns_up(zhuama: Evaluator) -> None:
    from mjframework.core.errors import HandError
    with pytest.raises(HandError, match="at most 3"):
        zhuama.check_context_inputs({bonus.CONTEXT_KEY: parse_tiles("1m 2m 3m 4m")})


def test_the_rule_card_tells_key_weight_and_next_dealer() -> None:
    from click.testing import CliRunner

    from mjframework.cli import main
    card = CliRunner().invoke(main, ["doc", "changsha", "-o", "-"]).output
    assert "| in cases and logs | `birds` |" in card
    assert "| next dealer | the seat the opening set hits most, when 2 or more won at the opening" in card
    yima = CliRunner().invoke(main, ["doc", str(RS / "bonus-yima.yaml"), "-o", "-"]).output
    assert "each counts its rank as hits (an honor 10)" in yima
