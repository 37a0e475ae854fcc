"""Counters that last across the hands of a game (``counters:``): docs/pattern-language.md,
"Counters across hands". Checked from the log alone, hand after hand: the counts each
``hand_start`` shows follow from the hand before (its dealer, next dealer and winners), the
dealer stays on its own win, the counts pay and are read by patterns as seat state."""

from __future__ import annotations

import json
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from mjframework.cli import main
from mjframework.play import counters
from mjframework.rules.loader import check_file, load_ruleset
from mjframework.run.simulate import simulate

RS = Path(__file__).parent / "rulesets"


def _hands(log: Path) -> list[list[dict[str, Any]]]:
    hands: list[list[dict[str, Any]]] = []
    for line in log.read_text(encoding="utf-8").splitlines()[1:]:
        e = json.loads(line)
        if e["type"] == "hand_start":
            hands.append([])
        hands[-1].append(e)
    return hands


def test_counts_follow_the_hands_of_each_game(tmp_path: Path) -> None:
    log = tmp_path / "c.jsonl"
    simulate(str(RS / "counters.yaml"), 240, seed=3, hands_per_game=12, log=str(log), workers=1)
    hands = _hands(log)
    assert len(hands) == 240
    lz_max = streak_max = dealer_pays = bonus_wins = 0
    want: dict[str, Any] | None = None
    for n, events in enumerate(hands):
        start, end = events[0], events[-1]
        got = start["counters"]
        if n % 12 == 0:
            want = {"lianzhuang": 0, "streak": [0, 0, 0, 0]}  # a game starts from 0
        assert got == want, (n, got, want)
        dealer, nxt = start["dealer"], end["next_dealer"]
        wins = [e for e in events if e["type"] == "win"]
        winners = {w["seat"] for w in wins}
        # The dealer stays on a win of its own or a drawn hand, else the deal passes right.
        if end["result"] == "win":
            assert nxt == (dealer if dealer in winners else (dealer + 1) % 4)
        elif end["result"] == "draw":
            assert nxt == dealer
        lz = got["lianzhuang"]
        for w in wins:  # patterns read the count as the winner's seat state
            assert ("连庄胡" in w["patterns"]) == (w["seat"] == dealer and lz >= 2)
            bonus_wins += "连庄胡" in w["patterns"]
        for e in events:
            if e["type"] != "settlement" or e.get("kind"):
                continue
            w = next(x for x in wins if x["seat"] == e["items"][0]["payee"])
            for it in e["items"]:
                with_dealer = dealer in (it["payer"], it["payee"])
                assert it["amount"] == w["points"] + (lz if with_dealer else 0), (n, it, lz)
                dealer_pays += with_dealer and lz > 0
        # The next hand's counts, worked out here from the rules in tests/rulesets/counters.yaml.
        if end["result"] == "abandon":
            continue
        lz = 0 if nxt != dealer else min(lz + 1, 5)
        streak = [0 if (end["result"] == "win" and s not in winners) else v + (s in winners)
                  for s, v in enumerate(got["streak"])]
        want = {"lianzhuang": lz, "streak": streak}
        lz_max, streak_max = max(lz_max, lz), max(streak_max, *streak)
    assert lz_max >= 2 and streak_max >= 2 and dealer_pays > 10 and bonus_wins > 0


def test_a_ruleset_without_counters_logs_none() -> None:
    rs = load_ruleset("changsha")
    assert rs.counters == () and counters.start(rs) == {}


def test_an_abandoned_hand_moves_nothing() -> None:
    rs = load_ruleset(RS / "counters.yaml")
    counts = {"lianzhuang": (2, 2, 2, 2), "streak": (0, 1, 0, 0)}
    assert counters.after_hand(rs, counts, dealer=0, next_dealer=0, result="abandon", winners=[]) == counts
    assert counters.after_hand(rs, counts, dealer=0, next_dealer=0, result="win", winners=[0]) == {
        "lianzhuang": (3, 3, 3, 3), "streak": (1, 0, 0, 0)}
    assert counters.after_hand(rs, counts, dealer=0, next_dealer=1, result="win", winners=[1]) == {
        "lianzhuang": (0, 0, 0, 0), "streak": (0, 2, 0, 0)}


def test_mj_score_reads_a_count_given_as_seat_state() -> None:
    args = ["score", str(RS / "counters.yaml"), "123m 456m 789p 234s 5s", "-t", "5s", "-s", "0"]
    plain = CliRunner().invoke(main, args)
    raised = CliRunner().invoke(main, [*args, "--seat-state", "lianzhuang=2"])
    assert plain.exit_code == raised.exit_code == 0, plain.output + raised.output
    assert "庄家 +3" in plain.output
    # 连庄胡 (3) + win (1) = 4, + 2 for the count on each of the dealer's three payments.
    assert "连庄胡" in raised.output and "庄家 +18" in raised.output, raised.output
    higher = CliRunner().invoke(main, [*args, "--seat-state", "lianzhuang=3"])  # `{min: 2}`: 3 too
    assert "连庄胡" in higher.output and "庄家 +21" in higher.output, higher.output


@pytest.mark.parametrize(("counter", "message"), [
    ({"wins": {"add": ["draw"]}}, "seat state the engine keeps"),
    ({"n": {"add": ["wins"]}}, "only a seat counter"),
    ({"n": {"reset": ["draw"]}}, "never goes up"),
    ({"连庄": {"add": ["draw"]}}, "doesn't match"),
    ({"n": {"add": ["sometimes"]}}, "sometimes"),
])
def test_meaning_checks(counter: dict[str, Any], message: str, tmp_path: Path) -> None:
    f = tmp_path / "bad.yaml"
    f.write_text(yaml.safe_dump({"format": 1, "id": "t", "name": "t", "extends": str(RS / "base-108.yaml"),
                                 "counters": counter}, allow_unicode=True), encoding="utf-8")
    rs, problems = check_file(f)
    assert rs is None
    assert any(message in str(p) and p.path[0] == "counters" for p in problems), problems


# -- counters in a conformance case (`counters:`, as a hand_start event shows them) ---------

def _case_file(tmp_path: Path, cases: list[dict[str, Any]]) -> Path:
    f = tmp_path / "counters-cases.yaml"
    f.write_text(yaml.safe_dump({"format": 1, "ruleset": str(RS / "counters.yaml"), "cases": cases},
                                allow_unicode=True), encoding="utf-8")
    return f


BASE_CASE = {"hand": "123m 456m 789p 234s 5s", "win_tile": "5s", "win_by": "self_draw"}


def test_a_case_gives_the_counts_the_hand_began_with(tmp_path: Path) -> None:
    from mjframework.run.conformance import run_file
    cases = [
        # the dealer's 连庄 at 2: 连庄胡 (3) + win (1), +2 × 1 on every payment it receives
        {**BASE_CASE, "id": "streak-2", "seat": 0, "counters": {"lianzhuang": 2, "streak": [1, 0, 0, 0]},
         "expect": {"win": True, "patterns": ["win", "连庄胡"], "payments": [18, -6, -6, -6]}},
        # at 1: no 连庄胡, still +1 on every dealer payment
        {**BASE_CASE, "id": "streak-1", "seat": 0, "counters": {"lianzhuang": 1},
         "expect": {"win": True, "patterns": ["win"], "payments": [6, -2, -2, -2]}},
        # a non-dealer's win: only the payment the dealer makes grows
        {**BASE_CASE, "id": "other-wins", "seat": 1, "counters": {"lianzhuang": 2},
         "expect": {"win": True, "patterns": ["win"], "payments": [-3, 5, -1, -1]}},
    ]
    results = run_file(_case_file(tmp_path, cases))
    assert [r.status for r in results] == ["pass"] * 3, [r.describe() for r in results]


@pytest.mark.parametrize(("counters", "message"), [
    ({"lianzhaung": 1}, "no such counter (this ruleset counts: lianzhuang, streak)"),
    ({"lianzhuang": -1}, "a whole number 0 or more"),
    ({"lianzhuang": 6}, "at most 5"),
    ({"streak": 2}, "give 4 counts"),
    ([1], "must be a mapping"),
])
def test_a_case_s_counters_are_checked(counters: Any, message: str, tmp_path: Path) -> None:
    from mjframework.run.conformance import run_file
    case = {**BASE_CASE, "id": "bad", "counters": counters, "expect": {"win": True}}
    (result,) = run_file(_case_file(tmp_path, [case]))
    assert result.status == "error" and message in result.describe(), result.describe()


# -- counters across the hands of an `mj match` board (`--hands-per-board K`) ---------------

def test_a_match_board_of_several_hands_carries_the_counters(monkeypatch: pytest.MonkeyPatch) -> None:
    from mjframework.play.game import Game
    from mjframework.run.match import run_match
    seen: list[tuple[int, int, dict[str, Any]]] = []
    play = Game.play

    def recording(self: Game) -> Any:
        res = play(self)
        seen.append((self.dealer, res.next_dealer, counters.table_view(self.ruleset, self.counters)))
        return res

    monkeypatch.setattr(Game, "play", recording)
    result = run_match(str(RS / "counters.yaml"), ["greedy"] * 4, 32, seed=3, hands_per_board=8)
    assert len(seen) == 32 and sum(s.hands for s in result.standings) == 4 * 32
    for board in range(4):
        hands = seen[board * 8:(board + 1) * 8]
        assert hands[0][2] == {"lianzhuang": 0, "streak": [0, 0, 0, 0]}  # each board starts at 0
        for (dealer, nxt, counts), (next_dealer, _, next_counts) in pairwise(hands):
            assert next_dealer == nxt  # the deal passes by the rules within a board
            stays = nxt == dealer
            assert next_counts["lianzhuang"] == (min(counts["lianzhuang"] + 1, 5) if stays else 0)
    assert max(c["lianzhuang"] for _, _, c in seen) >= 1  # not vacuous: a streak was carried


def test_one_hand_per_board_is_the_match_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    from mjframework.run.match import MatchError, run_match
    one = run_match(str(RS / "counters.yaml"), ["greedy", "random", "greedy", "random"], 8, seed=4)
    again = run_match(str(RS / "counters.yaml"), ["greedy", "random", "greedy", "random"], 8, seed=4,
                      hands_per_board=1)
    assert one.to_dict() == again.to_dict()
    with pytest.raises(MatchError, match="multiple of --hands-per-board"):
        run_match(str(RS / "counters.yaml"), ["greedy"] * 4, 12, hands_per_board=8)
    with pytest.raises(MatchError, match="multiple of --hands-per-board"):
        run_match(str(RS / "counters.yaml"), ["greedy"] * 4, 16, hands_per_board=8, duplicate=True)
