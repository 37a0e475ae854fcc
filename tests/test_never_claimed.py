"""Kinds never claimed (``claims.never``): docs/pattern-language.md, "Kinds never claimed"."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from mjframework.core.hand import WinContext, make_hand
from mjframework.core.tiles import parse_tiles
from mjframework.evaluate.scoring import Evaluator
from mjframework.rules.loader import check_file, load_ruleset
from mjframework.run.simulate import simulate

RS = Path(__file__).parent / "rulesets"
FIVES = set(parse_tiles("5m 5p 5s"))


def test_play_never_claims_them(tmp_path: Path) -> None:
    log = tmp_path / "n.jsonl"
    simulate(str(RS / "never-claimed.yaml"), 200, seed=4, log=str(log), workers=1)
    events = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    last_discard = None
    claims_of_others = discard_wins = fives_discarded = 0
    for e in events:
        if e["type"] == "discard":
            last_discard = parse_tiles(e["tile"])[0]
            fives_discarded += last_discard in FIVES
        elif e["type"] == "claim":
            assert last_discard not in FIVES, e
            claims_of_others += 1
        elif e["type"] == "win" and e["win_by"] == "discard":
            assert parse_tiles(e["tile"])[0] not in FIVES, e
            discard_wins += 1
        elif e["type"] == "draw":
            last_discard = None
    assert fives_discarded > 50 and claims_of_others > 50 and discard_wins > 10


def test_scoring_agrees() -> None:
    ev = Evaluator(load_ruleset(RS / "never-claimed.yaml"))
    hand = make_hand("123m 456m 789p 234s 5s", [], "5s")
    on_discard = ev.score(hand, WinContext(seat=1, win_by="discard", discarder=3))
    assert not on_discard.win and "never claimed" in on_discard.reason
    assert ev.score(hand, WinContext(seat=1, win_by="self_draw")).win
    other = make_hand("123m 456m 789p 234s 6s", [], "6s")
    assert ev.score(other, WinContext(seat=1, win_by="discard", discarder=3)).win


def test_meaning_checks(tmp_path: Path) -> None:
    f = tmp_path / "bad.yaml"
    f.write_text(yaml.safe_dump({"format": 1, "id": "t", "name": "t", "extends": str(RS / "base-108.yaml"),
                                 "claims": {"never": "5m 中"}}, allow_unicode=True), encoding="utf-8")
    rs, problems = check_file(f)
    assert rs is None
    assert any("not in this ruleset's tile set: 7z" in str(p) and p.path == ("claims", "never")
               for p in problems), problems
