"""Tiles laid aside as kongs (``laid_kongs``: 红中杠): docs/pattern-language.md, "Tiles laid aside
as kongs". Checked from the log: a 红中 never stays in a hand, each is replaced from the kong
end, the count is the seat's state, and every payment doubles per kong its seats laid aside."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from mjframework.core.errors import HandError
from mjframework.core.hand import WinContext, make_hand
from mjframework.evaluate.scoring import Evaluator
from mjframework.rules.loader import check_file, load_ruleset
from mjframework.run.simulate import simulate

RS = Path(__file__).parent / "rulesets"


def test_red_is_laid_aside_replaced_and_doubles(tmp_path: Path) -> None:
    log = tmp_path / "l.jsonl"
    simulate(str(RS / "laid-kongs.yaml"), 150, seed=2, log=str(log), workers=1)
    events = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()[1:]]
    laid = doubled = bonus = 0
    counts = [0] * 4
    held: list[list[str]] = [[] for _ in range(4)]
    for i, e in enumerate(events):
        t = e["type"]
        if t == "hand_start":
            counts = [0] * 4
        elif t == "deal":
            held = [list(h) for h in e["hands"]]
        elif t == "draw":
            held[e["seat"]].append(e["tile"])
        elif t == "laid_kong":
            assert e["tile"] == "7z" and e["name"] == "red_kongs"
            held[e["seat"]].remove("7z")
            counts[e["seat"]] += 1
            laid += 1
            nxt = events[i + 1]  # replaced at once from the kong end
            assert nxt["type"] in ("draw", "laid_kong") or nxt["type"] == "abandon"
            if nxt["type"] == "draw":
                assert nxt["seat"] == e["seat"] and nxt["source"] == "kong"
        elif t in ("discard", "win", "claim"):
            assert e.get("tile") != "7z", e
            if t == "discard":
                assert all("7z" not in h for h in held), "a 红中 kept in a hand"
                held[e["seat"]].remove(e["tile"])
        if t == "win":
            bonus += "红中杠开花" in e["patterns"]
            assert ("红中杠开花" in e["patterns"]) == (counts[e["seat"]] == 2), (e, counts)
            win = e
        if t == "settlement" and not e.get("kind"):
            for it in e["items"]:
                if it["reason"] in ("kong", "added_kong", "concealed_kong"):
                    continue
                factor = 2 ** (counts[it["payer"]] + counts[it["payee"]])
                assert it["amount"] == win["points"] * factor, (it, counts)
                doubled += factor > 1
    assert laid > 100 and doubled > 50 and bonus > 0


def test_scoring_reads_the_counts_from_the_context() -> None:
    ev = Evaluator(load_ruleset(RS / "laid-kongs.yaml"))
    hand = make_hand("123m 456m 789p 234s 5s", [], "5s")
    extra = ev.check_context_inputs({"laid_kongs": [1, 0, 0, 2]})
    res = ev.evaluate(hand, WinContext(seat=1, win_by="self_draw", extra=extra))
    assert res.payments == [-2, 2 + 1 + 4, -1, -4]  # ×2 from seat 0, ×1 from seat 2, ×4 from seat 3
    with pytest.raises(HandError, match="one count"):
        ev.check_context_inputs({"laid_kongs": [1, 0]})


@pytest.mark.parametrize(("data", "message"), [
    ({"laid_kongs": {"red": {"tiles": "5m 中"}}}, "not in this ruleset's tile set: 7z"),
    ({"laid_kongs": {"wins": {"tiles": "5m"}}}, "seat state the engine keeps"),
    ({"laid_kongs": {"a": {"tiles": "5m"}, "b": {"tiles": "5m 6m"}}}, "under two names"),
    ({"laid_kongs": {"a": {"tiles": "5m"}}, "wildcard": {"fixed": "5m"}}, "would never be wild"),
])
def test_meaning_checks(data: dict[str, Any], message: str, tmp_path: Path) -> None:
    f = tmp_path / "bad.yaml"
    f.write_text(yaml.safe_dump({"format": 1, "id": "t", "name": "t", "extends": str(RS / "base-108.yaml"),
                                 **data}, allow_unicode=True), encoding="utf-8")
    rs, problems = check_file(f)
    assert rs is None
    assert any(message in str(p) for p in problems), problems


# -- laid aside by choice (`choice: true`: the option `lay_kong` on the holder's turn) ----------

def _events(path: Path, hands: int, seed: int, players: Any = None) -> list[dict[str, Any]]:
    import random

    from mjframework.evaluate.scoring import Evaluator as Ev
    from mjframework.play.bots import GreedyBot
    from mjframework.play.game import Game
    rs = load_ruleset(path)
    ev = Ev(rs)
    events: list[dict[str, Any]] = []
    for h in range(hands):
        bots = players(h) if players else [GreedyBot(random.Random(seed * 100 + h * 4 + i)) for i in range(4)]
        Game(rs, bots, seed=seed * 1000 + h, dealer=h % 4, evaluator=ev, emit=events.append).play()
    return events


def test_a_choice_kind_is_laid_aside_on_the_holder_s_turn_only() -> None:
    events = _events(RS / "laid-choice.yaml", 40, 3)
    laid = [i for i, e in enumerate(events) if e["type"] == "laid_kong"]
    assert len(laid) > 20
    for i in laid:
        e = events[i]
        # never during the deal: on the seat's turn — after its own draw or claim (the dealer's
        # first turn: right after the deal) — then a kong-end draw
        before = next(x for x in reversed(events[:i]) if x["type"] in ("draw", "claim", "deal"))
        dealer = next(x for x in reversed(events[:i]) if x["type"] == "hand_start")["dealer"]
        assert before.get("seat", dealer) == e["seat"], (before, e)
        after = events[i + 1]
        assert after["type"] == "draw" and after["seat"] == e["seat"] and after["source"] == "kong"
    # the dealt hands keep their 红中 until a turn (on sight, some seat would lay one at the deal)
    deals = [e for e in events if e["type"] == "deal"]
    assert any("7z" in h for d in deals for h in d["hands"])


def test_a_player_may_keep_a_choice_kind() -> None:
    import random

    from mjframework.play.bots import GreedyBot
    from mjframework.play.players import Decision, Option, TableView

    class Keeper(GreedyBot):
        def decide(self, view: TableView, decision: Decision) -> Option:
            kept = tuple(o for o in decision.options if o.kind != "lay_kong")
            return super().decide(view, Decision(decision.kind, decision.seat, kept, decision.tile,
                                                 decision.from_seat, decision.prompt))

    events = _events(RS / "laid-choice.yaml", 30, 5,
                     lambda h: [Keeper(random.Random(h * 4 + i)) for i in range(4)])
    assert not [e for e in events if e["type"] == "laid_kong"]
    assert [e for e in events if e["type"] == "discard" and e["tile"] == "7z"]  # an ordinary tile


def test_the_action_space_names_lay_kong_only_where_it_is_offered() -> None:
    from mjframework.play.actions import ActionSpace
    from mjframework.play.players import Option
    choice = ActionSpace(load_ruleset(RS / "laid-choice.yaml"))
    assert "lay_kong:C" in choice.names and "lay_kong:1m" in choice.names
    assert choice.name_of(Option("lay_kong", 33)) == "lay_kong:C"
    on_sight = ActionSpace(load_ruleset(RS / "laid-kongs.yaml"))
    assert not [n for n in on_sight.names if n.startswith("lay_kong")]


def test_the_env_gives_lay_kong_its_own_indices() -> None:
    """The env's fixed layout has a slot per kind for ``lay_kong`` (tests/test_envs.py plays it)."""
    pytest.importorskip("numpy")
    from mjframework.play.players import Option
    from mjframework.run.envs.encoding import ACTION_INDEX, ActionCodec
    codec = ActionCodec(load_ruleset(RS / "laid-choice.yaml"))
    assert codec.index_of(Option("lay_kong", 33)) == ACTION_INDEX["lay_kong:C"]
    assert codec.names[ACTION_INDEX["lay_kong:C"]] == "lay_kong:C"
    ActionCodec(load_ruleset(RS / "laid-kongs.yaml"))  # on sight: nothing to choose
