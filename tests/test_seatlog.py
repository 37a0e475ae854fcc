"""Per-seat event streams (mjframework.play.seatlog, mj simulate --log-seat)."""

from __future__ import annotations

import json
import random

import pytest
from click.testing import CliRunner

from mjframework import load_ruleset
from mjframework.cli import main
from mjframework.play.bots import GreedyBot
from mjframework.play.events import Collector
from mjframework.play.game import Game
from mjframework.play.seatlog import HIDDEN, seat_log
from mjframework.rules.loader import available_rulesets

MJAI_TYPES = {"start_kyoku", "tsumo", "dahai", "pon", "chi", "daiminkan", "ankan", "kakan", "hora",
              "ryukyoku", "end_kyoku"}


def _hands(rid: str, n: int) -> list[list[dict]]:
    rs = load_ruleset(rid)
    out = []
    for seed in range(n):
        c = Collector()
        Game(rs, [GreedyBot(random.Random(seed * 7 + i)) for i in range(rs.players)], seed=seed,
             dealer=seed % rs.players, emit=c).play()
        out.append(list(c))
    return out


def _masked_like(truth, view) -> bool:
    """``view`` is ``truth`` with some values replaced by "?" / None, nothing else changed."""
    if view == truth:
        return True
    if view in (HIDDEN, None):
        return True
    if isinstance(truth, dict) and isinstance(view, dict):
        same_keys = truth.keys() - {"seat"} == view.keys() - {"seat"}
        return same_keys and all(_masked_like(truth[k], view[k]) for k in truth if k != "seat")
    if isinstance(truth, list) and isinstance(view, list):
        return len(truth) == len(view) and all(_masked_like(a, b) for a, b in zip(truth, view, strict=True))
    return False


@pytest.mark.parametrize("rid", sorted(available_rulesets()))
def test_seat_logs_mask_only_what_the_seat_cannot_see(rid: str) -> None:
    seen_types: set[str] = set()
    for events in _hands(rid, 6):
        truth = list(seat_log(events, None))
        assert not any(HIDDEN in json.dumps(e) for e in truth if e["type"] not in ("wall",))
        for seat in range(4):
            view = list(seat_log(events, seat))
            assert len(view) == len(truth)
            for t, v in zip(truth, view, strict=True):
                assert t["type"] == v["type"]
                assert _masked_like(t, v), (t, v)
                seen_types.add(v["type"])
                if v["type"] == "tsumo":
                    assert (v["pai"] == HIDDEN) == (v["actor"] != seat)
                if v["type"] == "ankan" and v["actor"] != seat:
                    assert v["consumed"] == [HIDDEN] * 4
                if v["type"] == "start_kyoku":
                    assert HIDDEN not in v["tehais"][seat]
                    assert all(set(h) == {HIDDEN} for i, h in enumerate(v["tehais"]) if i != seat)
            assert view[0]["type"] == "start_kyoku" and view[-1]["type"] == "end_kyoku"
    assert {"start_kyoku", "tsumo", "dahai", "end_kyoku"} <= seen_types


def test_claims_follow_mjai_fields() -> None:
    for events in _hands("changsha", 6):
        for e in seat_log(events, 0):
            if e["type"] in ("pon", "chi", "daiminkan"):
                assert {"actor", "target", "pai", "consumed"} <= e.keys()
                assert len(e["consumed"]) == {"pon": 2, "chi": 2, "daiminkan": 3}[e["type"]]
            if e["type"] == "hora":
                assert {"actor", "target", "pai"} <= e.keys()
            if e["type"] == "dahai":
                assert isinstance(e["tsumogiri"], bool)


def test_concealed_kong_hidden_until_revealed() -> None:
    # Find a hand with a concealed kong (greedy bots make them now and then).
    rs = load_ruleset("yongzhou-wangba")
    for seed in range(400):
        c = Collector()
        Game(rs, [GreedyBot(random.Random(seed * 7 + i)) for i in range(4)], seed=seed, emit=c).play()
        kongs = [e for e in c if e["type"] == "kong" and e["kind"] == "concealed"]
        if kongs:
            break
    else:
        pytest.skip("no concealed kong in 400 hands")
    owner = kongs[0]["seat"]
    other = (owner + 1) % 4
    view = list(seat_log(c, other))
    ankan = next(e for e in view if e["type"] == "ankan")
    assert ankan["consumed"] == [HIDDEN] * 4
    reveal = next(e for e in view if e["type"] == "reveal")
    assert reveal["actor"] == owner and HIDDEN not in reveal["tiles"]
    mine = next(e for e in seat_log(c, owner) if e["type"] == "ankan")
    assert HIDDEN not in mine["consumed"]


def test_simulate_log_seat(tmp_path) -> None:
    log = tmp_path / "s.jsonl"
    r = CliRunner().invoke(main, ["simulate", "changsha", "-n", "2", "-s", "4", "--log", str(log),
                                  "--log-seat", "1"])
    assert r.exit_code == 0, r.output
    lines = [json.loads(x) for x in log.read_text("utf-8").splitlines()]
    assert lines[0]["type"] == "start_game" and lines[0]["seat"] == 1
    assert sum(1 for e in lines if e["type"] == "start_kyoku") == 2
    assert all(e["pai"] == HIDDEN for e in lines if e["type"] == "tsumo" and e["actor"] != 1)
    again = tmp_path / "t.jsonl"
    CliRunner().invoke(main, ["simulate", "changsha", "-n", "2", "-s", "4", "--log", str(again),
                              "--log-seat", "1"])
    assert again.read_bytes() == log.read_bytes()
    bad = CliRunner().invoke(main, ["simulate", "changsha", "-n", "1", "--log", str(tmp_path / "x.jsonl"),
                                    "--log-seat", "9"])
    assert bad.exit_code != 0 and "seat 9" in bad.output and not (tmp_path / "x.jsonl").exists()
    assert not list(tmp_path.glob(".*.tmp"))


def test_a_hand_that_ends_before_the_deal_still_ends() -> None:
    ev = [{"type": "hand_start", "hand": 0, "ruleset": "x", "dealer": 0, "seed": 1},
          {"type": "dice", "purpose": "break", "values": [1, 2]},
          {"type": "abandon", "reason": "plugin failed"},
          {"type": "hand_end", "result": "abandon", "next_dealer": 0}]
    out = list(seat_log(ev, 1))
    assert [e["type"] for e in out] == ["dice", "abandon", "end_kyoku"]
