"""The accounting primitives of issue 12, on ``tests/rulesets/combos-136.yaml``: combinations
of sets counted once (``set_combinations: once``), ranked, partial and shared exclusions, a
fallback pattern, a minimum that bonus tiles don't count toward, seat and prevalent winds,
the knitted shapes, held ranks, one-tile waits, a triplet won on a discard, ``each_pays``,
flowers in play and declared examples."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from mjframework.cli import main
from mjframework.core.errors import HandError
from mjframework.core.hand import WinContext, make_hand
from mjframework.core.tiles import format_tiles, parse_tiles, tile_code, tile_name
from mjframework.design.rulecard import build_card
from mjframework.evaluate.scoring import Evaluator
from mjframework.rules.loader import check_file, load_ruleset
from mjframework.run.simulate import simulate

RULESET = Path(__file__).resolve().parent / "rulesets" / "combos-136.yaml"


@pytest.fixture(scope="module")
def ev() -> Evaluator:
    return Evaluator(load_ruleset(RULESET))


def fans(ev: Evaluator, hand: str, win: str, melds: tuple[str, ...] = (), **ctx: object) -> dict[str, int]:
    s = ev.score(make_hand(hand, list(melds), win), WinContext(**ctx))  # type: ignore[arg-type]
    return {p.name: p.times for p in s.patterns}


# -- combinations of sets ---------------------------------------------------------------

def test_pairs_of_sets_are_limited_to_one_new_set_each(ev: Evaluator) -> None:
    # 234 567 in two suits: four pairs of sets match (two mixed, two six), but four sets
    # allow three; the surplus goes from the repeated, lowest, last-declared pattern.
    got = fans(ev, "234567m234567p5s", "5s", discarder=1, win_by="discard", seat=0)
    assert got["mixed-chow"] + got.get("six", 0) == 3
    assert got["mixed-chow"] == 2 and got["six"] == 1


def test_an_unrelated_set_lowers_the_limit(ev: Evaluator) -> None:
    # 123 123 789 (+ 456 of another suit, unrelated): at most two of the three sets combine.
    got = fans(ev, "112233789m456p5s", "5s", discarder=1, win_by="discard", seat=0)
    assert got == {**got, "same-chow": 1}
    assert sum(got.get(n, 0) for n in ("same-chow", "mixed-chow", "six")) <= 2


def test_a_three_set_combination_takes_its_sets_and_the_fourth_combines_once(ev: Evaluator) -> None:
    # 123 456 789 123 of one suit: the straight, then the fourth 123 combines once (same-chow),
    # never as 123-456 (six) on top.
    got = fans(ev, "123456789123m5s", "5s", win_by="discard", discarder=3, seat=0)
    assert got["straight"] == 1 and got["same-chow"] == 1 and "six" not in got


def test_each_mode_counts_a_set_pattern_once_if_any_sets_match(tmp_path: Path) -> None:
    p = tmp_path / "each.yaml"
    p.write_text(RULESET.read_text("utf-8").replace("set_combinations: once", "set_combinations: each"),
                 "utf-8")
    rs, problems = check_file(p)
    assert rs is not None, problems
    got = fans(Evaluator(rs), "234567m234567p5s", "5s", discarder=1, win_by="discard", seat=0)
    assert got["mixed-chow"] == 1 and got["six"] == 1


# -- exclusions -----------------------------------------------------------------------

def test_ranked_exclusions_an_excluded_pattern_excludes_nothing(ev: Evaluator) -> None:
    # four triplets: big excludes medium, so medium's exclusion of small does not apply.
    got = fans(ev, "111222m333p444s5s", "5s", win_by="discard", discarder=3, seat=0)
    assert "big" in got and "medium" not in got and "small" in got


def test_shared_exclusion_takes_away_only_the_groups_both_count(ev: Evaluator) -> None:
    # 东 南 西 triplets + 9m triplet; seat 0 (东), prevalent 东: three-winds takes 东南西,
    # prevalent and seat take 东 again: one terminal pung (9m) is left.
    got = fans(ev, "111222333z999m5s", "5s", win_by="discard", discarder=3, seat=0)
    assert got["three-winds"] == 1 and got["prevalent"] == 1 and got["seat"] == 1
    assert got["terminal-pung"] == 1


def test_times_exclusion_takes_that_many(ev: Evaluator) -> None:
    got = fans(ev, "1112345678999p", "9p", win_by="discard", discarder=3, seat=0)
    assert "nine-gates" in got and "terminal-pung" not in got  # 111 123 456 789 99: one pung, taken
    got2 = fans(ev, "1112345678999p", "5p", win_by="discard", discarder=3, seat=0)
    assert got2.get("terminal-pung", 0) == 1  # 111 234 55 678 999: two terminal pungs, one taken


# -- fallback, minimum, bonus tiles -----------------------------------------------------------

def test_fallback_counts_only_alone_and_bonus_tiles_do_not_reach_the_minimum(ev: Evaluator) -> None:
    h = make_hand("456p789s1122s", ["chow 123m from 3"], "2s")  # nothing at all: the fallback
    s = ev.score(h, WinContext(win_by="discard", discarder=3, seat=0))
    assert s.win and s.pattern_names == ["nothing"]
    s = ev.score(h, WinContext(win_by="discard", discarder=3, seat=0, flowers=2))
    assert s.pattern_names == ["nothing", "bonus"] and s.points == 5
    # concealed (2) alone is below the minimum of 3; two flowers do not help
    h = make_hand("123m456p789s11p23s", [], "4s")
    s = ev.score(h, WinContext(win_by="discard", discarder=3, seat=0, flowers=2))
    assert not s.win and "minimum" in s.reason and "concealed" in s.pattern_names


# -- winds ------------------------------------------------------------------------------

def test_seat_wind_follows_the_dealer_and_prevalent_wind_is_given(ev: Evaluator) -> None:
    h = make_hand("222z123m456p789s5s", [], "5s")
    ctx = WinContext(win_by="discard", discarder=3, seat=1, dealer=0)  # seat 1 after the dealer: 南
    assert ctx.winds() == {"seat": parse_tiles("南")[0], "prevalent": parse_tiles("东")[0]}
    got = fans(ev, "222z123m456p789s5s", "5s", win_by="discard", discarder=3, seat=1)
    assert "seat" in got and "prevalent" not in got
    got = fans(ev, "222z123m456p789s5s", "5s", win_by="discard", discarder=3, seat=1,
               prevalent_wind=parse_tiles("南")[0])
    assert "seat" in got and "prevalent" in got and "terminal-pung" not in got
    with pytest.raises(HandError, match="wind tile"):
        ev.score(h, WinContext(seat_wind=parse_tiles("中")[0]))


# -- shapes and measures ----------------------------------------------------------------

def test_knitted_tracks_and_the_knitted_straight(ev: Evaluator) -> None:
    got = fans(ev, "147m258p369s1234z", "5z", win_by="discard", discarder=3, seat=0)
    assert "knit" in got and "knit-straight" in got and "concealed" not in got
    # 1m 4m 8m keeps the gaps but leaves the track: not the knitted shape.
    assert not ev.score(make_hand("148m258p369s1234z", [], "5z"), WinContext()).win
    got = fans(ev, "147m258p369s123p5s", "5s", win_by="discard", discarder=3, seat=0)
    assert "knit-straight" in got and "concealed" in got and "knit" not in got


def test_held_ranks_and_one_tile_waits(ev: Evaluator) -> None:
    assert "nine-gates" in fans(ev, "1112345678999m", "5m", win_by="discard", discarder=3, seat=0)
    # the same ranks with one declared meld are not the 13 held tiles
    assert "nine-gates" not in fans(ev, "1112345678m", "8m", ("pung 9m from 3",), win_by="discard",
                                    discarder=3, seat=0)
    # single wait: 5s alone completes the hand
    assert ev.waiting_tiles(make_hand("123m456p789s111z5s", [], None).concealed) == 1
    assert "single" in fans(ev, "123m456p789s111z5s", "5s", win_by="discard", discarder=3, seat=0)
    # 1-4 wait on 23: two tiles, not a single wait
    assert ev.waiting_tiles(make_hand("23m456p789s111z55s", [], None).concealed) == 2


def test_a_triplet_completed_by_a_discard_is_exposed(ev: Evaluator) -> None:
    # 555m won on a discard: only 222p 333s are concealed triplets
    self_drawn = fans(ev, "55m222p333s456s77z", "5m", seat=0)
    assert "two-concealed" not in self_drawn  # three concealed triplets (not two)
    on_discard = fans(ev, "55m222p333s456s77z", "5m", win_by="discard", discarder=3, seat=0)
    assert "two-concealed" in on_discard


# -- payments, play, tools ------------------------------------------------------------------

def test_each_pays_a_base_besides_the_discarder(ev: Evaluator) -> None:
    h = make_hand("456p789s1122s", ["chow 123m from 3"], "2s")  # the fallback: 3 points
    ctx = WinContext(win_by="discard", discarder=2, seat=0)
    r = ev.evaluate(h, ctx)
    assert r.payments == [3 + 2 + 2 + 2, -2, -(3 + 2), -2]
    r = ev.evaluate(h, WinContext(seat=0))
    assert r.payments is not None and r.payments[1:] == [-(r.score.points + 2)] * 3


def test_flower_tiles_print_and_parse() -> None:
    t = parse_tiles("1f 8f 春 菊")
    assert [tile_code(x) for x in t] == ["1f", "8f", "1f", "8f"]
    assert tile_name(t[0]) == "春" and format_tiles(t[:2]) == "18f"


def test_flowers_are_set_aside_and_replaced_in_play(tmp_path: Path) -> None:
    log = tmp_path / "c.jsonl"
    res = simulate(str(RULESET), 12, seed=5, log=log, workers=1)
    assert res.stats.abandoned == 0
    events = [json.loads(x) for x in log.read_text("utf-8").splitlines()[1:]]
    flowers = [e for e in events if e["type"] == "flower"]
    assert flowers and all(e["tile"].endswith("f") for e in flowers)
    for i, e in enumerate(events):
        if e["type"] == "flower":
            nxt = events[i + 1]
            assert nxt["type"] in ("draw", "hand_end") and (nxt["type"] == "hand_end" or
                                                            nxt["source"] == "flower")
        if e["type"] == "discard":
            assert not e["tile"].endswith("f")
    starts = [e for e in events if e["type"] == "hand_start"]
    assert [e["dealer"] for e in starts[:4]] == [0, 1, 2, 3]  # dealer.after_win: next


def test_a_flower_is_never_held(ev: Evaluator) -> None:
    with pytest.raises(HandError, match="flower"):
        ev.score(make_hand("123m456p789s1122s", [], "1f"), WinContext())


def test_declared_example_and_english_names(ev: Evaluator) -> None:
    card = build_card(load_ruleset(RULESET))
    entry = next(e for e in card.patterns if e.pattern.name == "bonus")
    assert entry.example is not None and entry.example.declared and "bonus" in entry.example.names
    r = CliRunner().invoke(main, ["score", str(RULESET), "123456789m11p22s", "-t", "2s", "--json",
                                  "--lang", "en"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert {"name": "straight", "en": "Straight", "points": 10, "times": 1, "label": "10"} in out["patterns"]
    r = CliRunner().invoke(main, ["score", str(RULESET), "123456789m11p22s", "-t", "2s", "--lang", "en",
                                  "--flowers", "1", "--prevalent-wind", "南"])
    assert r.exit_code == 0 and "Straight" in r.output and "bonus" in r.output


def test_a_bad_example_is_a_located_error(tmp_path: Path) -> None:
    text = RULESET.read_text("utf-8").replace('hand: "123456789m11p22s"', 'hand: "123456789x"')
    p = tmp_path / "bad.yaml"
    p.write_text(text, "utf-8")
    rs, problems = check_file(p)
    assert rs is None and any("example" in str(x) for x in problems), problems
