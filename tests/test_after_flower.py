"""The ``after_flower`` flag (docs/pattern-language.md, "Context (`when`)"): the engine raises
it on a turn whose tile replaced a flower — after a wall draw or a kong's replacement, never
for the flowers replaced in the deal — and a pattern reads it. Checked from the log alone on a
purpose-made ruleset (tests/rulesets/after-flower.yaml)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mjframework.run.simulate import simulate

RS = Path(__file__).parent / "rulesets"


def test_a_self_draw_on_a_flowers_replacement_and_only_it_is_flagged(tmp_path: Path) -> None:
    log = tmp_path / "f.jsonl"
    simulate(str(RS / "after-flower.yaml"), 600, seed=2, log=str(log), workers=1)
    flagged = unflagged = kong_then_flower = 0
    last: dict[int, dict[str, Any]] = {}  # each seat's last draw in play
    dealt = True
    for line in log.read_text(encoding="utf-8").splitlines()[1:]:
        e = json.loads(line)
        if e["type"] == "hand_start":
            last, dealt = {}, True
        elif e["type"] == "draw":
            if e["source"] != "flower":
                dealt = False
            if not dealt:
                prev = last.get(e["seat"])
                if e["source"] == "flower" and prev is not None and prev["source"] == "kong":
                    kong_then_flower += 1
                last[e["seat"]] = e
        elif e["type"] == "discard":
            dealt = False
            last.pop(e["seat"], None)
        elif e["type"] == "win" and e["win_by"] == "self_draw":
            d = last.get(e["seat"])
            on_flower = d is not None and d["source"] == "flower" and d["tile"] == e["tile"]
            assert ("花上自摸" in e["patterns"]) == on_flower, (e, d)
            flagged += on_flower
            unflagged += not on_flower
    assert flagged >= 5 and unflagged >= 20 and kong_then_flower >= 1, (flagged, unflagged, kong_then_flower)
