"""The hooks an evaluator asks on every win (``mj_refuse_win``, ``mj_modify_settlement``,
``mj_win_call``): whether each has an implementation is decided once per evaluator
(``Evaluator.hook_live``), not per win — what a win does must not change for it: the
plugins there are asked, as pluggy would ask them; tracing started or stopped, or a plugin
registered or unregistered, after the evaluator's first win is seen."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from mjframework.core.hand import WinContext, make_hand
from mjframework.evaluate.scoring import PER_WIN_HOOKS, Evaluator
from mjframework.hooks import registry
from mjframework.hooks.registry import make_plugin_manager, trace_hooks
from mjframework.hooks.specs import hookimpl
from mjframework.rules.loader import load_ruleset

SEEN: list[str] = []  # what the plugin was shown


class _Says:
    """Calls the win, notes the settlements it is shown, refuses wins on a discard."""

    def __init__(self, options: dict[str, Any]) -> None:
        pass

    @hookimpl
    def mj_win_call(self, patterns: list[str], context: Any) -> str:
        return f"{context.win_by}:{'+'.join(patterns)}"

    @hookimpl
    def mj_modify_settlement(self, settlement: Any, context: Any) -> None:
        SEEN.append(f"settled {context.kind} {context.points}")

    @hookimpl
    def mj_refuse_win(self, hand: Any, seat: int, tile: int, win_by: str, context: Any) -> str | None:
        return "no wins on a discard here" if win_by == "discard" else None


@pytest.fixture(autouse=True)
def _plugin() -> Iterator[None]:
    registry.register_plugin("says-test", _Says)
    SEEN.clear()
    try:
        yield
    finally:
        registry.unregister_plugin("says-test")


def _plain() -> Evaluator:
    rs = load_ruleset("changsha")
    return Evaluator(rs, make_plugin_manager({}))


def _win() -> tuple[Any, WinContext]:
    return make_hand("22m 55m 88m 22p 55p 88p 2s", None, "2s"), WinContext(seat=1, dealer=0)


def test_the_per_win_hooks_answer_as_their_plugins_do() -> None:
    ev = Evaluator(load_ruleset("changsha"), make_plugin_manager({"says-test": {}}))
    assert all(ev.hook_live(h) for h in PER_WIN_HOOKS)
    hand, ctx = _win()
    got = ev.evaluate(hand, ctx)
    assert got.score.win and got.call == "self_draw:" + "+".join(got.score.pattern_names)
    assert SEEN[:] == [f"settled win {got.score.points}"]
    refused = ev.evaluate(hand, WinContext(seat=1, dealer=0, win_by="discard", discarder=2))
    assert not refused.score.win and refused.score.reason == "refused: no wins on a discard here"
    assert len(SEEN) == 1  # (a refused win is not settled)


def test_no_plugin_no_hook_and_tracing_started_later_is_seen() -> None:
    ev = _plain()
    hand, ctx = _win()
    first = ev.evaluate(hand, ctx)
    assert first.score.win and first.call is None
    assert not any(ev.hook_live(h) for h in PER_WIN_HOOKS)
    lines: list[str] = []
    stop = trace_hooks(ev.pm, lines.append)
    try:
        assert all(ev.hook_live(h) for h in PER_WIN_HOOKS)  # traced: every call is reported
        again = ev.evaluate(hand, ctx)
    finally:
        stop()
    assert (again.score.points, again.payments, again.call) == (first.score.points, first.payments, None)
    for hook in PER_WIN_HOOKS:
        assert any(line.startswith(f"hook {hook}(") for line in lines), (hook, lines)
    assert not any(ev.hook_live(h) for h in PER_WIN_HOOKS)  # stopped: decided again


def test_a_plugin_registered_after_the_first_win_is_asked_and_one_unregistered_is_not() -> None:
    ev = _plain()
    hand, ctx = _win()
    assert ev.evaluate(hand, ctx).call is None
    assert not any(ev.hook_live(h) for h in PER_WIN_HOOKS)
    ev.pm.register(_Says({}), name="late")
    assert all(ev.hook_live(h) for h in PER_WIN_HOOKS)
    got = ev.evaluate(hand, ctx)
    assert got.call == "self_draw:" + "+".join(got.score.pattern_names)
    assert SEEN[:] == [f"settled win {got.score.points}"]
    ev.pm.unregister(name="late")
    assert not any(ev.hook_live(h) for h in PER_WIN_HOOKS)
    assert ev.evaluate(hand, ctx).call is None and len(SEEN) == 1
