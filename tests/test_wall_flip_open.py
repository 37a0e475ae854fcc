"""翻鬼 with the indicator kept out of play without ending the wall
(`wildcard.indicator.ends_live_wall: false`; docs/pattern-language.md, "Wildcards"):
on a purpose-made ruleset (tests/rulesets/flip-open.yaml) and as guangdong-tuidaohu's
option `fangui`."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from mjframework.rules.loader import load_ruleset
from mjframework.run.simulate import simulate

RS = Path(__file__).parent / "rulesets"


def _hands(path: str, n: int, seed: int, tmp_path: Path, **kw: Any) -> list[dict[str, Any]]:
    log = tmp_path / "flip.jsonl"
    simulate(path, n, seed=seed, log=str(log), workers=1, **kw)
    hands: list[dict[str, Any]] = []
    for line in log.read_text(encoding="utf-8").splitlines():
        e = json.loads(line)
        if e["type"] == "hand_start":
            hands.append({"tiles": [], "result": None})
        elif e["type"] == "deal":
            hands[-1]["tiles"] += [t for h in e["hands"] for t in h]
        elif e["type"] == "draw":
            hands[-1]["tiles"].append(e["tile"])
        elif e["type"] == "wildcard":
            hands[-1]["indicator"], hands[-1]["wildcard"] = e["indicator"], e["wildcard"]
        elif e["type"] == "hand_end":
            hands[-1]["result"] = e["result"]
    return hands


def _successor(code: str) -> str:
    return f"{int(code[0]) % 9 + 1}{code[1]}"


def test_the_indicator_is_out_of_play_and_the_wall_drawn_to_its_end(tmp_path: Path) -> None:
    hands = _hands(str(RS / "flip-open.yaml"), 120, 5, tmp_path)
    drawn = [h for h in hands if h["result"] == "draw"]
    assert len(drawn) > 40 and all(h["result"] in ("win", "draw") for h in hands)
    for h in hands:
        assert h["wildcard"] == _successor(h["indicator"])
        # One copy of the indicator's kind is out of play: never dealt, never drawn.
        assert Counter(h["tiles"])[h["indicator"]] <= 3
    # A drawn hand has drawn every tile but the indicator: the live wall was not ended there.
    assert {len(h["tiles"]) for h in drawn} == {107}


def test_with_the_indicator_ending_the_wall_fewer_are_drawn(tmp_path: Path) -> None:
    """The contrast: the default (`ends_live_wall: true`) stops both ends at the indicator."""
    f = tmp_path / "ends.yaml"
    f.write_text(f"format: 1\nid: t\nname: t\nextends: {RS / 'flip-open.yaml'}\n"
                 "wildcard: {indicator: {ends_live_wall: true}}\n", encoding="utf-8")
    drawn = [h for h in _hands(str(f), 60, 5, tmp_path) if h["result"] == "draw"]
    assert drawn and all(len(h["tiles"]) < 107 for h in drawn)


def test_guangdong_s_fangui_option(tmp_path: Path) -> None:
    rs = load_ruleset("guangdong-tuidaohu", options={"fangui": True})
    assert rs.wildcard is not None and rs.wildcard.flips and not rs.wildcard.fixed
    assert not rs.wildcard.indicator.ends_live_wall
    assert load_ruleset("guangdong-tuidaohu").wildcard.fixed  # type: ignore[union-attr]
    hands = _hands("guangdong-tuidaohu", 80, 3, tmp_path, options={"fangui": True})
    honors = {"1z": "2z", "2z": "3z", "3z": "4z", "4z": "1z", "7z": "6z", "6z": "5z", "5z": "7z"}
    for h in hands:
        ind = h["indicator"]
        assert h["wildcard"] == (honors[ind] if ind[1] == "z" else _successor(ind))
        assert Counter(h["tiles"])[ind] <= 3
    assert all(h["result"] in ("win", "draw") for h in hands)
