"""Hooks are called through pluggy itself: ordering marks, wrappers, tracing, named failures.

Each test switches on small purpose-made plugins (registered in-process) for
a ruleset that extends a built-in one, and checks what pluggy promises a
plugin author: ``tryfirst`` / ``trylast`` reorder the ruleset's order,
``wrapper=True`` and ``hookwrapper=True`` implementations see and may change
the others' results, ``mj --trace-hooks`` reports every call, and a plugin
that raises — an ``MJError`` of its own included — is named with its hook.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from mjframework.cli import main
from mjframework.core.errors import MJError
from mjframework.hooks import registry
from mjframework.hooks.registry import (
    PluginError,
    call_hook,
    make_plugin_manager,
    set_hook_tracing,
    trace_hooks,
)
from mjframework.hooks.specs import hookimpl
from mjframework.play.bots import GreedyBot
from mjframework.play.game import Game
from mjframework.rules.loader import load_ruleset

CALLS: list[str] = []


class _Recorder:
    """Appends ``<name>`` to CALLS in mj_modify_settlement and answers mj_win_call with its name."""

    name = "?"

    def __init__(self, options: dict[str, Any]) -> None:
        self.options = options

    @hookimpl
    def mj_modify_settlement(self, settlement: Any, context: Any) -> None:
        CALLS.append(self.name)


class First(_Recorder):
    name = "first"


class Second(_Recorder):
    name = "second"


class Eager(_Recorder):
    name = "eager"

    @hookimpl(tryfirst=True)
    def mj_modify_settlement(self, settlement: Any, context: Any) -> None:
        CALLS.append(self.name)


class Late(_Recorder):
    name = "late"

    @hookimpl(trylast=True)
    def mj_modify_settlement(self, settlement: Any, context: Any) -> None:
        CALLS.append(self.name)


class Caller(_Recorder):
    """A firstresult hook: the call phrase."""

    name = "caller"

    @hookimpl
    def mj_win_call(self, patterns: list[str], context: Any) -> str:
        return "+".join(patterns)


class Loud(_Recorder):
    """A new-style wrapper: sees the inner result and changes it."""

    name = "loud"

    @hookimpl(wrapper=True)
    def mj_win_call(self, patterns: list[str], context: Any) -> Any:
        CALLS.append("loud:before")
        inner = yield
        CALLS.append(f"loud:after:{inner}")
        return None if inner is None else inner + "!"


class OldStyle(_Recorder):
    """An old-style hookwrapper: sees the outcome, forces a result."""

    name = "oldstyle"

    @hookimpl(hookwrapper=True)
    def mj_win_call(self, patterns: list[str], context: Any) -> Any:
        outcome = yield
        CALLS.append(f"oldstyle:{outcome.get_result()}")
        outcome.force_result("forced")


class Boom(_Recorder):
    name = "boom"

    @hookimpl
    def mj_modify_settlement(self, settlement: Any, context: Any) -> None:
        raise ValueError("bad arithmetic")


class OwnMJError(_Recorder):
    """Raises an MJError subclass of its own: still named, not taken for an engine error."""

    name = "own-mj-error"

    class Refused(MJError):
        pass

    @hookimpl
    def mj_after_deal(self, hand: Any) -> None:
        raise self.Refused("this table is closed")


class BrokenWrapper(_Recorder):
    name = "broken-wrapper"

    @hookimpl(wrapper=True)
    def mj_win_call(self, patterns: list[str], context: Any) -> Any:
        result = yield
        raise KeyError(f"lost {result}")


PLUGINS = {cls.name: cls for cls in (First, Second, Eager, Late, Caller, Loud, OldStyle, Boom, OwnMJError,
                                     BrokenWrapper)}


@pytest.fixture(autouse=True)
def _registered() -> Iterator[None]:
    for name, cls in PLUGINS.items():
        registry.register_plugin(name, cls)
    CALLS.clear()
    try:
        yield
    finally:
        for name in PLUGINS:
            registry.unregister_plugin(name)
        set_hook_tracing(None)


def ruleset_with(tmp_path: Path, *names: str) -> Path:
    """A ruleset that extends the built-in changsha, with only ``names`` as its plugins, in that order."""
    off = "".join(f"  {p}: null\n" for p in ("opening-wins", "haidi", "kaigang", "calls"))
    on = "".join(f"  {n}: {{}}\n" for n in names)
    path = tmp_path / "hooks.yaml"
    path.write_text(textwrap.dedent("""\
        format: 1
        id: hooks
        name: hooks
        extends: changsha
        plugins:
        """) + off + on, encoding="utf-8")
    return path


def settle(pm: Any) -> Any:
    """Call mj_modify_settlement with throwaway arguments (the recorders ignore them)."""
    return call_hook(pm, "mj_modify_settlement", settlement=None, context=None)


def test_plugins_run_in_ruleset_order_without_marks() -> None:
    settle(make_plugin_manager({"first": {}, "second": {}}))
    assert CALLS == ["first", "second"]
    CALLS.clear()
    settle(make_plugin_manager({"second": {}, "first": {}}))
    assert CALLS == ["second", "first"]


def test_tryfirst_and_trylast_reorder_the_ruleset_order() -> None:
    settle(make_plugin_manager({"late": {}, "first": {}, "eager": {}, "second": {}}))
    assert CALLS == ["eager", "first", "second", "late"]


def test_a_new_style_wrapper_sees_and_changes_the_result() -> None:
    pm = make_plugin_manager({"loud": {}, "caller": {}})
    assert call_hook(pm, "mj_win_call", firstresult=True, patterns=["a", "b"], context=None) == "a+b!"
    assert CALLS == ["loud:before", "loud:after:a+b"]


def test_an_old_style_hookwrapper_can_force_the_result() -> None:
    pm = make_plugin_manager({"oldstyle": {}, "caller": {}})
    assert call_hook(pm, "mj_win_call", firstresult=True, patterns=["x"], context=None) == "forced"
    assert CALLS == ["oldstyle:x"]


def test_calling_a_hook_against_its_spec_is_a_programming_error() -> None:
    pm = make_plugin_manager({"caller": {}})
    with pytest.raises(TypeError, match="firstresult"):
        call_hook(pm, "mj_win_call", patterns=[], context=None)


def test_a_raising_plugin_is_named_with_its_hook() -> None:
    pm = make_plugin_manager({"first": {}, "boom": {}})
    with pytest.raises(PluginError) as info:
        settle(pm)
    assert (info.value.plugin, info.value.hook) == ("boom", "mj_modify_settlement")
    assert str(info.value) == "plugin 'boom' failed in mj_modify_settlement: ValueError: bad arithmetic"


def test_a_wrapper_failing_after_its_yield_is_named() -> None:
    pm = make_plugin_manager({"broken-wrapper": {}, "caller": {}})
    with pytest.raises(PluginError, match="plugin 'broken-wrapper' failed in mj_win_call: KeyError"):
        call_hook(pm, "mj_win_call", firstresult=True, patterns=["a"], context=None)


def test_an_inner_failure_passes_a_wrapper_still_naming_the_inner_plugin() -> None:
    pm = make_plugin_manager({"loud": {}, "broken-wrapper": {}, "caller": {}})
    with pytest.raises(PluginError) as info:
        call_hook(pm, "mj_win_call", firstresult=True, patterns=["a"], context=None)
    assert info.value.plugin == "broken-wrapper"


def test_a_plugins_own_mjerror_abandons_the_hand_with_its_name(tmp_path: Path) -> None:
    rs = load_ruleset(ruleset_with(tmp_path, "own-mj-error"))
    log: list[dict[str, Any]] = []
    result = Game(rs, [GreedyBot() for _ in range(rs.players)], seed=1, emit=log.append).play()
    assert result.result == "abandon"
    assert result.error == "plugin 'own-mj-error' failed in mj_after_deal: Refused: this table is closed"
    assert [e["type"] for e in log][-2:] == ["abandon", "hand_end"]


def test_a_wrapper_plugin_works_in_a_played_hand(tmp_path: Path) -> None:
    """The order marks and wrappers act in the game too, not only in direct calls."""
    rs = load_ruleset(ruleset_with(tmp_path, "late", "first", "eager"))
    for seed in range(1, 40):
        CALLS.clear()
        result = Game(rs, [GreedyBot() for _ in range(rs.players)], seed=seed).play()
        if result.result == "win":
            break
    assert result.result == "win"
    assert CALLS[:3] == ["eager", "first", "late"]


def test_trace_hooks_reports_calls_and_results() -> None:
    lines: list[str] = []
    pm = make_plugin_manager({"caller": {}})
    stop = trace_hooks(pm, lines.append)
    call_hook(pm, "mj_win_call", firstresult=True, patterns=["a"], context=None)
    stop()
    call_hook(pm, "mj_win_call", firstresult=True, patterns=["b"], context=None)
    assert lines == ["hook mj_win_call(patterns=['a'], context=None) -> [caller]",
                     "hook mj_win_call returned 'a'"]


def test_mj_trace_hooks_prints_the_calls_of_a_command(tmp_path: Path) -> None:
    path = ruleset_with(tmp_path, "caller")
    result = CliRunner().invoke(main, ["--trace-hooks", "score", str(path), "22m 55m 88m 22p 55p 88p 2s",
                                       "-t", "2s", "-s", "0"])
    assert result.exit_code == 0, result.output
    assert "hook mj_win_call(patterns=" in result.output
    assert "-> [caller]" in result.output


def test_a_hook_with_no_implementation_answers_like_pluggy_without_calling_it() -> None:
    """No implementation: [] (or None for a firstresult hook), as pluggy would say, and cheap;
    a traced manager still reports the call; the spec check still applies."""
    pm = make_plugin_manager({})
    assert call_hook(pm, "mj_last_tile", firstresult=True, hand=None, seat=0) is None
    assert call_hook(pm, "mj_last_tile", firstresult=True, hand=None, seat=0) == \
        pm.hook.mj_last_tile(hand=None, seat=0)
    assert call_hook(pm, "mj_after_deal", hand=None) == [] == pm.hook.mj_after_deal(hand=None)
    with pytest.raises(TypeError):
        call_hook(pm, "mj_last_tile", hand=None, seat=0)  # not called as firstresult
    seen: list[str] = []
    stop = trace_hooks(pm, seen.append)
    assert call_hook(pm, "mj_after_deal", hand=None) == []
    assert any(line.startswith("hook mj_after_deal(") for line in seen), seen
    stop()
    seen.clear()
    call_hook(pm, "mj_after_deal", hand=None)
    assert seen == []


class _Offers:
    """Plain implementations answering mj_extra_options / mj_win_call with ``answer`` (None: nothing)."""

    answer: Any = None

    def __init__(self, options: dict[str, Any]) -> None:
        pass

    @hookimpl
    def mj_extra_options(self, hand: Any, seat: int, decision: Any) -> Any:
        CALLS.append(f"{type(self).__name__}:{seat}")
        return self.answer

    @hookimpl
    def mj_win_call(self, patterns: list[str], context: Any) -> Any:
        CALLS.append(type(self).__name__)
        return self.answer


class Silent(_Offers):
    answer = None


class OfferA(_Offers):
    answer = ("a",)


class OfferB(_Offers):
    answer = ("b",)


def test_plain_implementations_called_directly_answer_like_pluggy() -> None:
    """Hooks whose implementations are all plain are called without pluggy's machinery: same
    order, same answers (None dropped, a firstresult hook stopping at the first answer), same
    calls made; a call missing a spec argument still goes through pluggy (and its warning)."""
    for name, cls in (("silent", Silent), ("offer-a", OfferA), ("offer-b", OfferB)):
        registry.register_plugin(name, cls)
    try:
        for order in (["silent", "offer-a", "offer-b"], ["offer-b", "silent", "offer-a"], ["silent"]):
            pm = make_plugin_manager({n: {} for n in order})
            CALLS.clear()
            ours = call_hook(pm, "mj_extra_options", hand=None, seat=2, decision=None)
            ours_calls = list(CALLS)
            CALLS.clear()
            theirs = pm.hook.mj_extra_options(hand=None, seat=2, decision=None)
            assert (ours, ours_calls) == (theirs, CALLS), order
            CALLS.clear()
            ours = call_hook(pm, "mj_win_call", firstresult=True, patterns=[], context=None)
            ours_calls = list(CALLS)
            CALLS.clear()
            theirs = pm.hook.mj_win_call(patterns=[], context=None)
            assert (ours, ours_calls) == (theirs, CALLS), order
        pm = make_plugin_manager({"offer-a": {}})
        with pytest.warns(UserWarning, match="decision"), pytest.raises(Exception, match="decision"):
            call_hook(pm, "mj_extra_options", hand=None, seat=0)
    finally:
        for name in ("silent", "offer-a", "offer-b"):
            registry.unregister_plugin(name)


# -- BoundHook and only_for: the hooks the engine calls at every decision and event ----------


def test_a_bound_hook_calls_like_pluggy_and_follows_registrations() -> None:
    """BoundHook.call answers as pluggy would (order, None dropped, the same calls made),
    re-plans when a plugin is registered or unregistered after its first call, and goes
    through pluggy (so tracing sees the call) once the manager is traced."""
    for name, cls in (("silent", Silent), ("offer-a", OfferA), ("offer-b", OfferB)):
        registry.register_plugin(name, cls)
    try:
        for order in (["silent", "offer-a", "offer-b"], ["offer-b", "silent", "offer-a"], ["silent"], []):
            pm = make_plugin_manager({n: {} for n in order})
            bound = registry.bound_hook(pm, "mj_extra_options")
            assert bound is registry.bound_hook(pm, "mj_extra_options")  # one per manager and hook
            CALLS.clear()
            ours = bound.call(None, 3, None)
            ours_calls = list(CALLS)
            CALLS.clear()
            assert (ours, ours_calls) == (pm.hook.mj_extra_options(hand=None, seat=3, decision=None), CALLS)
        pm = make_plugin_manager({"offer-a": {}})
        bound = registry.bound_hook(pm, "mj_extra_options")
        assert bound.call(None, 0, None) == [("a",)]
        late = OfferB({})
        pm.register(late, name="late-b")
        assert bound.call(None, 0, None) == pm.hook.mj_extra_options(hand=None, seat=0, decision=None)
        assert len(bound.call(None, 0, None)) == 2
        pm.unregister(late)
        assert bound.call(None, 0, None) == [("a",)]
        seen: list[str] = []
        stop = trace_hooks(pm, seen.append)
        assert bound.direct() is None  # traced: through pluggy
        assert bound.call(None, 1, None) == [("a",)]
        assert any(line.startswith("hook mj_extra_options(") for line in seen), seen
        stop()
        assert bound.direct() is not None
        assert registry.bound_hook(None, "mj_extra_options").call(None, 0, None) == []
    finally:
        for name in ("silent", "offer-a", "offer-b"):
            registry.unregister_plugin(name)


def test_a_bound_hook_with_a_wrapper_goes_through_pluggy() -> None:
    pm = make_plugin_manager({"loud": {}, "caller": {}})
    assert registry.bound_hook(pm, "mj_win_call").direct() is None
    pm = make_plugin_manager({"caller": {}})
    plan = registry.bound_hook(pm, "mj_win_call").direct()
    assert plan is not None and [p[0].plugin_name for p in plan] == ["caller"]


SEEN: list[tuple[str, Any]] = []


class _Watcher:
    """Records every mj_extra_options decision and mj_announce event it is called with."""

    tag = "all"

    def __init__(self, options: dict[str, Any]) -> None:
        pass

    @hookimpl
    def mj_extra_options(self, hand: Any, seat: int, decision: Any) -> None:
        SEEN.append((self.tag, decision))

    @hookimpl
    def mj_announce(self, hand: Any, event: Any) -> None:
        SEEN.append((self.tag, event))


class WatchAll(_Watcher):
    tag = "all"


class WatchKongs(_Watcher):
    """Called only for decisions offering a kong, and only for discard and win events."""

    tag = "some"

    @hookimpl
    @registry.only_for("kong")
    def mj_extra_options(self, hand: Any, seat: int, decision: Any) -> None:
        SEEN.append((self.tag, decision))

    @hookimpl
    @registry.only_for("discard", "win")
    def mj_announce(self, hand: Any, event: Any) -> None:
        SEEN.append((self.tag, event))


def test_only_for_skips_exactly_the_calls_it_rules_out(tmp_path: Path) -> None:
    """A played hand with two watchers, one marked ``only_for``: the marked one sees exactly
    the decisions offering a kong and the events of its types that the unmarked one sees,
    in the same order; the plugin API exports the marker."""
    from mjframework import plugin

    assert plugin.only_for is registry.only_for
    registry.register_plugin("watch-all", WatchAll)
    registry.register_plugin("watch-kongs", WatchKongs)
    try:
        rs = load_ruleset(ruleset_with(tmp_path, "watch-all", "watch-kongs"))
        kongs = 0
        for seed in range(1, 30):
            SEEN.clear()
            Game(rs, [GreedyBot() for _ in range(rs.players)], seed=seed).play()
            every = [x for tag, x in SEEN if tag == "all"]
            some = [x for tag, x in SEEN if tag == "some"]
            decisions = [x for x in every if not isinstance(x, dict)]
            events = [x for x in every if isinstance(x, dict)]
            assert decisions and events
            want = ([d for d in decisions if any(o.kind == "kong" for o in d.options)]
                    + [e for e in events if e["type"] in ("discard", "win")])
            got = [x for x in some if not isinstance(x, dict)] + [x for x in some if isinstance(x, dict)]
            assert got == want, seed
            kongs += sum(1 for x in some if not isinstance(x, dict))
        assert kongs > 0  # some hand offered a kong
    finally:
        registry.unregister_plugin("watch-all")
        registry.unregister_plugin("watch-kongs")


class SayDiscards:
    """Says something about every discard (and nothing else): its calls go out as events."""

    def __init__(self, options: dict[str, Any]) -> None:
        self.options = options

    @hookimpl
    @registry.only_for("discard")
    def mj_announce(self, hand: Any, event: Any) -> str:
        SEEN.append(("say", event))
        return f"discard {event['tile']}"


def test_with_no_sink_only_the_events_an_announcing_plugin_reads_are_built(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A game with no sink and a plugin announcing about discards only: the plugin hears
    the same events as with a sink, but no draw is built (its ``only_for`` rules draws out)
    and its calls, which nobody would read, are not built either."""
    from mjframework.play import events as evt

    built: list[str] = []
    for cls in (evt.Draw, evt.Call, evt.Discard):
        made = cls.to_json
        monkeypatch.setattr(cls, "to_json", lambda self, made=made: (built.append(self.TYPE), made(self))[1])
    registry.register_plugin("say-discards", SayDiscards)
    try:
        rs = load_ruleset(ruleset_with(tmp_path, "say-discards"))
        for seed in range(1, 6):
            SEEN.clear()
            events: list[dict[str, Any]] = []
            Game(rs, [GreedyBot() for _ in range(rs.players)], seed=seed, emit=events.append).play()
            heard = list(SEEN)
            assert heard and any(e["type"] == "call" for e in events)
            assert {"draw", "call", "discard"} <= set(built)
            SEEN.clear()
            built.clear()
            Game(rs, [GreedyBot() for _ in range(rs.players)], seed=seed).play()
            assert heard == SEEN, seed
            assert set(built) == {"discard"}, seed
            built.clear()
    finally:
        registry.unregister_plugin("say-discards")
