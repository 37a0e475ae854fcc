"""``mj simulate`` and :mod:`mjframework.run.simulate`: determinism, statistics, logs, bad input."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from mjframework.cli import main
from mjframework.play.bots import BOTS
from mjframework.play.events import Collector
from mjframework.play.game import Game
from mjframework.run import simulate as sim
from mjframework.run.simulate import SimulationError, simulate

RULESETS = ["yongzhou-huandiao", "yongzhou-wangba", "changsha"]


def _summary(res: sim.SimResult) -> dict[str, Any]:
    d = res.to_dict()
    for k in ("seconds", "hands_per_second", "workers"):
        d.pop(k)
    return d


def test_same_seed_same_log_whatever_the_workers(tmp_path: Path) -> None:
    """Byte-identical logs and identical statistics with 1 and 2 worker processes."""
    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    r1 = simulate("changsha", 40, seed=11, log=one, workers=1)
    r2 = simulate("changsha", 40, seed=11, log=two, workers=2)
    assert one.read_bytes() == two.read_bytes()
    assert _summary(r1) == _summary(r2)
    assert r1.stats.hands == 40 and r1.stats.games == 5
    assert sorted(p.name for p in tmp_path.iterdir()) == ["one.jsonl", "two.jsonl"]  # no parts left


@pytest.mark.parametrize("ruleset", [*RULESETS, "sichuan-xuezhan", "mcr"])
def test_statistics_without_a_log_match_those_with_one(ruleset: str, tmp_path: Path) -> None:
    """Without a log the statistics sink gets the frequent events bare (``{"type": …}``,
    events.reads_fields_of): the statistics are those of the same run written to a log."""
    logged = simulate(ruleset, 24, seed=3, log=tmp_path / "log.jsonl")
    bare = simulate(ruleset, 24, seed=3)
    assert _summary(bare) == _summary(logged)


def test_same_seed_same_results_mixed_bots_and_short_last_game(tmp_path: Path) -> None:
    a = simulate("yongzhou-wangba", 13, seed=5, bots="greedy,random,greedy,random", hands_per_game=4,
                 workers=2, log=tmp_path / "a.jsonl")
    b = simulate("yongzhou-wangba", 13, seed=5, bots=["greedy", "random", "greedy", "random"],
                 hands_per_game=4, workers=1, log=tmp_path / "b.jsonl")
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()
    assert _summary(a) == _summary(b)
    assert a.stats.games == 4  # 4 + 4 + 4 + 1
    c = simulate("yongzhou-wangba", 13, seed=6, hands_per_game=4)
    assert _summary(c) != _summary(a)


def test_log_structure(tmp_path: Path) -> None:
    log = tmp_path / "h.jsonl"
    simulate("yongzhou-huandiao", 10, seed=3, hands_per_game=4, log=log)
    lines = [json.loads(x) for x in log.read_text("utf-8").splitlines()]
    assert lines[0] == {"type": "simulation", "format": 1, "ruleset": "yongzhou-huandiao", "seed": 3,
                        "hands": 10, "hands_per_game": 4, "bots": ["greedy"] * 4}
    starts = [e for e in lines if e["type"] == "hand_start"]
    assert [e["hand"] for e in starts] == list(range(10))
    assert [e["game"] for e in starts] == [0] * 4 + [1] * 4 + [2] * 2
    ends = [i for i, e in enumerate(lines) if e["type"] == "hand_end"]
    assert len(ends) == 10 and ends[-1] == len(lines) - 1
    # Within a game the dealer follows next_dealer.
    for k in range(1, 10):
        if k % 4:
            prev_end = lines[ends[k - 1]]
            assert starts[k]["dealer"] == prev_end["next_dealer"]


def test_first_dealer_follows_the_ruleset() -> None:
    from mjframework.rules.loader import load_ruleset

    wangba, changsha = load_ruleset("yongzhou-wangba"), load_ruleset("changsha")
    assert {sim.first_dealer(wangba, 1, g) for g in range(20)} == {0}  # seat0
    assert {sim.first_dealer(changsha, 1, g) for g in range(40)} == {0, 1, 2, 3}  # random, per game
    assert sim.first_dealer(changsha, 1, 7) == sim.first_dealer(changsha, 1, 7)


def test_statistics_add_up() -> None:
    res = simulate("yongzhou-wangba", 48, seed=9)
    s = res.stats
    assert s.hands == 48 == s.won + s.drawn + s.abandoned
    assert s.exhaustive <= s.drawn
    assert sum(s.wins_by_seat) == s.winners >= s.won
    assert s.self_draw + s.discard_wins + s.robbed_kong == s.winners
    assert sum(s.net_by_seat) == 0
    d = res.to_dict()
    assert d["hands"] == 48 and d["win_share"] == round(s.won / 48, 4)
    assert all(p["count"] > 0 for p in d["patterns"].values())
    assert sum(p["count"] for p in d["patterns"].values()) >= s.winners
    text = res.table()
    for word in ("hands/s", "won", "drawn", "abandoned", "win rate", "avg payout"):
        assert word in text


def test_opening_declarations_count_in_net_and_patterns() -> None:
    res = simulate("changsha", 64, seed=3)
    s = res.stats
    assert s.openings > 0  # 起手 declarations happen in this sample
    assert sum(s.net_by_seat) == 0
    assert sum(n for n, _ in s.patterns.values()) >= s.winners + s.openings


def test_progress_reports_every_hand() -> None:
    seen: list[int] = []
    simulate("changsha", 21, seed=1, hands_per_game=8, workers=2, progress=seen.append)
    assert sum(seen) == 21


class _Faulty:
    """A bot that fails at its third decision of a hand (every hand: fresh bots)."""

    def __init__(self, rng: random.Random | None = None) -> None:
        self.calls = 0

    def decide(self, view: Any, decision: Any) -> Any:
        self.calls += 1
        if self.calls == 3:
            raise RuntimeError("boom")
        return decision.options[0] if decision.kind == "turn" else decision.options[-1]


def test_abandoned_hands_are_counted_and_the_run_goes_on(monkeypatch: pytest.MonkeyPatch,
                                                        tmp_path: Path) -> None:
    monkeypatch.setitem(BOTS, "faulty", _Faulty)
    log = tmp_path / "f.jsonl"
    res = simulate("yongzhou-wangba", 6, seed=1, bots="greedy,faulty,greedy,greedy", log=log)
    assert res.stats.hands == 6 and res.stats.abandoned == 6
    assert res.stats.engine_errors == 0
    events = [json.loads(x) for x in log.read_text("utf-8").splitlines()]
    assert sum(e["type"] == "abandon" for e in events) == 6
    assert "boom" in next(e for e in events if e["type"] == "abandon")["reason"]
    assert "abandoned" in res.table()


def test_engine_failures_are_counted_and_the_log_stays_well_formed(monkeypatch: pytest.MonkeyPatch,
                                                                   tmp_path: Path) -> None:
    class Broken(Game):
        def play(self) -> Any:
            if self.hand_no % 3 == 1:
                self.emit({"type": "hand_start", "hand": self.hand_no, "ruleset": "x",
                           "dealer": self.dealer, "seed": self.seed})
                raise ZeroDivisionError("engine bug")
            return super().play()

    monkeypatch.setattr(sim, "Game", Broken)
    log = tmp_path / "e.jsonl"
    res = simulate("changsha", 6, seed=2, log=log)
    assert res.stats.hands == 6 and res.stats.engine_errors == 2 and res.stats.abandoned == 2
    events = [json.loads(x) for x in log.read_text("utf-8").splitlines()]
    bad = [i for i, e in enumerate(events) if e["type"] == "abandon"]
    assert len(bad) == 2 and all(events[i]["engine_error"] for i in bad)
    assert all(events[i + 1]["type"] == "hand_end" for i in bad)


def test_a_failed_run_leaves_no_log(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    real = sim.play_game

    def failing(spec: Any, game: int, stats: Any, out: Any) -> None:
        if game == 2:
            raise RuntimeError("disk full")
        real(spec, game, stats, out)

    monkeypatch.setattr(sim, "play_game", failing)
    log = tmp_path / "never.jsonl"
    with pytest.raises(RuntimeError):
        simulate("changsha", 40, seed=1, log=log)
    assert list(tmp_path.iterdir()) == []


def test_a_failed_run_keeps_the_previous_log(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    log = tmp_path / "keep.jsonl"
    log.write_text("old\n", "utf-8")
    monkeypatch.setattr(sim, "play_game", lambda *a: (_ for _ in ()).throw(RuntimeError("x")))
    with pytest.raises(RuntimeError):
        simulate("changsha", 8, seed=1, log=log)
    assert log.read_text("utf-8") == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["keep.jsonl"]


# -- the command -------------------------------------------------------------------


def test_cli_table_and_log(tmp_path: Path) -> None:
    log = tmp_path / "out" / "c.jsonl"
    r = CliRunner().invoke(main, ["simulate", "changsha", "--hands", "16", "--seed", "4", "--log", str(log)])
    assert r.exit_code == 0, r.output
    assert "hands/s" in r.output and "seat" in r.output and str(log) in r.output
    assert log.exists() and log.read_text("utf-8").count('"type":"hand_end"') == 16


def test_cli_json_is_one_object() -> None:
    r = CliRunner().invoke(main, ["simulate", "yongzhou-huandiao", "-n", "8", "--seed", "4", "--json",
                                  "--workers", "2", "--bots", "greedy,random,greedy,random"])
    assert r.exit_code == 0, r.output
    d = json.loads(r.output)
    assert d["hands"] == 8 and d["seed"] == 4 and d["workers"] == 2
    assert d["bots"] == ["greedy", "random", "greedy", "random"]
    for key in ("won", "drawn", "abandoned", "exhaustive_draws", "win_rate_by_seat", "avg_net_by_seat",
                "patterns", "hands_per_second"):
        assert key in d


def test_cli_without_seed_prints_the_seed_it_used() -> None:
    r = CliRunner().invoke(main, ["simulate", "changsha", "-n", "2", "--json"])
    assert r.exit_code == 0, r.output
    assert isinstance(json.loads(r.output)["seed"], int)


@pytest.mark.parametrize(("args", "message"), [
    (["no-such-ruleset", "--hands", "5"], "no ruleset"),
    (["changsha"], "--hands N"),
    (["changsha", "--hands", "0"], "--hands must be at least 1"),
    (["changsha", "--hands", "-3"], "--hands must be at least 1"),
    (["changsha", "--hands", "lots"], "--hands must be an integer"),
    (["changsha", "--hands", "5", "--seed", "x1"], "--seed must be an integer"),
    (["changsha", "--hands", "5", "--seed", "1.5"], "--seed must be an integer"),
    (["changsha", "--hands", "5", "--bots", "clever"], "unknown bot 'clever'"),
    (["changsha", "--hands", "5", "--bots", "greedy,random"], "give 1 or 4"),
    (["changsha", "--hands", "5", "--workers", "0"], "--workers must be at least 1"),
    (["changsha", "--hands", "5", "--hands-per-game", "0"], "--hands-per-game must be at least 1"),
])
def test_cli_bad_input(args: list[str], message: str) -> None:
    r = CliRunner().invoke(main, ["simulate", *args])
    assert r.exit_code == 1, r.output
    assert message in r.output
    assert "Traceback" not in r.output


def test_api_bad_input() -> None:
    with pytest.raises(SimulationError):
        simulate("changsha", 0)
    with pytest.raises(SimulationError):
        simulate("changsha", 3, bots="nobody")


# -- engine findings ---------------------------------------------------------------


def test_engine_hand_result_payments_include_opening_declarations() -> None:
    """Engine bug (game.py): ``HandResult.payments`` leaves out the opening declarations'
    payments (起手小胡, ``HandControl.settle_opening``), although they are settled during
    the hand (``settlement`` events). A caller summing ``result.payments`` — a score
    sheet, ``mj play``'s running total — misses them; ``mj simulate`` sums the events.

    Reproduce: changsha, ``Game(seed=hand_seed(5, 0, 32), dealer=0)`` with greedy bots
    ``make_bots(("greedy",) * 4, 5, 0, 32)``: seat 2 declares an opening win, the hand's
    settlement events sum to [-20, -50, 0, 70] but ``result.payments`` is [0, -10, 10, 0].
    """
    rs, ev = sim.load_cached("changsha")
    for h in range(200):
        events = Collector()
        game = Game(rs, sim.make_bots(("greedy",) * 4, 5, 0, h), seed=sim.hand_seed(5, 0, h),
                    dealer=0, emit=lambda e, c=events: c.append(e), evaluator=ev)
        result = game.play()
        if any(e["type"] == "opening_win" for e in events):
            break
    else:  # pragma: no cover
        pytest.skip("no opening declaration in the sample")
    settled = [0] * 4
    for e in events:
        if e["type"] == "settlement":
            settled = [a + b for a, b in zip(settled, e["payments"], strict=True)]
    assert result.payments == settled


def test_engine_keeps_events_for_an_empty_collector() -> None:
    """Engine bug (game.py ``Game.__init__``): ``self.emit = emit or (lambda e: None)``
    tests the sink's truth value, and ``events.Collector`` is a ``list``: a fresh, empty
    Collector is falsy, so ``Game(..., emit=Collector())`` silently records nothing.
    (Fix: ``emit if emit is not None else …``.)
    """
    rs, ev = sim.load_cached("yongzhou-wangba")
    events = Collector()
    Game(rs, sim.make_bots(("greedy",) * 4, 1, 0, 0), seed=1, emit=events, evaluator=ev).play()
    assert events, "a Collector passed as emit= received no events"


def test_a_simulated_greedy_bots_rng_is_its_derived_one() -> None:
    """make_bots seeds a greedy bot's RNG only when it is asked for: the same generator as
    bot_rng's; other bots get theirs at once."""
    bots = sim.make_bots(["greedy", "random", "greedy", "greedy"], 7, 2, 3)
    for seat in (0, 2, 3):
        assert bots[seat].rng.random() == sim.bot_rng(7, 2, 3, seat).random()
    assert bots[1].rng.random() == sim.bot_rng(7, 2, 3, 1).random()
    bot = BOTS["greedy"]()
    mine = random.Random(4)
    bot.rng = mine
    assert bot.rng is mine and BOTS["greedy"](mine).rng is mine


def test_the_deadline_handler_is_set_once_a_game_and_restored() -> None:
    """Hands are timed with one SIGALRM handler per game (armed per hand): after the run the
    previous handler is back and no timer is left running."""
    import signal

    before = signal.getsignal(signal.SIGALRM)
    res = simulate("yongzhou-wangba", 5, seed=2, hands_per_game=2)
    assert res.stats.hands == 5 and res.stats.abandoned == 0
    assert signal.getsignal(signal.SIGALRM) is before
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
