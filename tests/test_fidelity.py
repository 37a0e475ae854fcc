"""Rule fidelity: the calls after a kong and on a discard, 点杠开杠, leaving the table,
first-turn patterns on seven pairs, no 海底 after a replacement draw, claim priorities,
截胡, and the declared tie-break for equal pay."""

from __future__ import annotations

from typing import Any

from mjframework_plugins.calls import Plugin as Calls

from mjframework.ruleset import load_ruleset
from mjframework.settlement import SettlementContext


class _Hand:
    dealer = 0
    previous = None


def _ctx(flags: tuple[str, ...]) -> Any:
    return SettlementContext("win", 4, 0, winners=(1,), flags=frozenset(flags))


def test_after_kong_call_is_kaigang_plus_the_patterns_name() -> None:
    plugin = Calls(load_ruleset("yongzhou-huandiao").plugins["calls"])
    assert plugin.mj_win_call(["单换调"], _ctx(())) == "换调"
    assert plugin.mj_win_call(["单换调"], _ctx(("after_kong",))) == "开杠单换调"
    assert plugin.mj_win_call(["双换调王"], _ctx(("after_kong",))) == "开杠双换调王"
    assert plugin.mj_win_call(["自摸"], _ctx(("after_kong",))) == "开杠自摸"  # replaced whole
    # The default puts the prefix before the call.
    other = Calls({"wins": {"单换调": "换调"}, "after_kong": {"prefix": "K"}})
    assert other.mj_win_call(["单换调"], _ctx(("after_kong",))) == "K换调"


def test_the_discard_offer_is_an_option_off_by_default() -> None:
    event = {"type": "discard", "seat": 0, "tile": "8m"}
    shipped = Calls(load_ruleset("yongzhou-huandiao").plugins["calls"])
    assert shipped.mj_announce(hand=_Hand(), event=event) == "八万"
    opts = {**load_ruleset("yongzhou-huandiao").plugins["calls"], "discard_ask": "{tile}有没有人要啊"}
    assert Calls(opts).mj_announce(hand=_Hand(), event=event) == "八万有没有人要啊"
