"""Typed events: every event of real logs (and of every seat's view of them) reads into its
dataclass and writes back byte for byte; docs/events.md documents exactly the dataclasses."""

from __future__ import annotations

import dataclasses
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mjframework.core.kinds import EventType
from mjframework.play import events as ev
from mjframework.play.bots import GreedyBot
from mjframework.play.events import EVENT_TYPES, EventBase, EventError, PluginEvent, from_json
from mjframework.play.game import Game
from mjframework.play.visibility import view_for
from mjframework.rules.loader import load_ruleset
from mjframework.run.simulate import simulate

ROOT = Path(__file__).resolve().parents[1]
RULESETS = sorted(p.stem for p in (ROOT / "rulesets").glob("*.yaml"))
DOC = ROOT / "docs" / "events.md"


def dump(e: dict[str, Any]) -> str:
    return json.dumps(e, ensure_ascii=False, separators=(",", ":"))


def round_trips(d: dict[str, Any]) -> EventBase:
    """``d`` → dataclass → dict is ``d`` again, key order and JSON bytes included."""
    e = from_json(d)
    assert type(e) is EVENT_TYPES.get(d["type"], PluginEvent)
    back = e.to_json()
    assert back == d and list(back) == list(d) and dump(back) == dump(d)
    assert from_json(back) == e
    return e


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for rs in RULESETS:
        path = tmp_path_factory.mktemp("logs") / f"{rs}.jsonl"
        simulate(rs, 16, seed=1, hands_per_game=8, log=path)
        out[rs] = path.read_text("utf-8").splitlines()
    return out


@pytest.mark.parametrize("ruleset", RULESETS)
def test_every_logged_event_round_trips_and_so_does_every_seats_view(
        ruleset: str, logs: dict[str, list[str]]) -> None:
    for line in logs[ruleset]:
        d = json.loads(line)
        e = round_trips(d)
        assert dump(e.to_json()) == line  # the log's very bytes
        for seat in (None, 0, 1, 2, 3):
            round_trips(view_for(d, seat))


def test_the_logs_hold_the_engine_events(logs: dict[str, list[str]]) -> None:
    """The round trip above is not vacuous: the shipped rulesets' logs hold nearly every
    engine type (the rest is made on purpose below), and plugins' events read as PluginEvent."""
    seen = {json.loads(line)["type"] for lines in logs.values() for line in lines}
    # (no shipped ruleset lays tiles aside as kongs: tests/test_laid_kongs.py logs them)
    rare = {EventType.LEAVE, EventType.ABANDON, EventType.LAID_KONG}
    assert set(EVENT_TYPES) - rare <= seen, set(EVENT_TYPES) - rare - seen
    assert seen - set(EVENT_TYPES), "no plugin event in the shipped rulesets' logs"


class _Quits:
    """Leaves the table at its first decision."""

    def decide(self, view: Any, decision: Any) -> Any:
        raise RuntimeError("gone")


@pytest.mark.parametrize("ruleset", RULESETS)
def test_a_leaver_and_an_abandoned_hand_round_trip(ruleset: str) -> None:
    rs = load_ruleset(ruleset)
    got: list[dict[str, Any]] = []
    players = [GreedyBot(random.Random(i)) for i in range(rs.players)]
    players[1] = _Quits()  # type: ignore[call-overload]
    Game(rs, players, seed=3, dealer=1, emit=got.append).play()
    assert "leave" in {e["type"] for e in got}
    for d in got:
        round_trips(d)
    round_trips(ev.Abandon(reason="engine error: x", engine_error=True).to_json())
    round_trips(ev.Abandon(game=1, hand=9, reason="worker died", worker_died=True).to_json())
    round_trips(ev.Abandon(reason="plugin 'x' failed", plugin="x").to_json())


def test_optional_fields_are_left_out_and_order_is_the_logs() -> None:
    assert ev.HandStart(game=2, hand=17, ruleset="r", dealer=1, seed=5).to_json() == {
        "type": "hand_start", "game": 2, "hand": 17, "ruleset": "r", "dealer": 1, "seed": 5}
    assert list(ev.HandStart(hand=1, ruleset="r", dealer=0, seed=5).to_json()) == [
        "type", "hand", "ruleset", "dealer", "seed"]
    assert ev.Kong(seat=0, kind="added", tile="5s").to_json() == {
        "type": "kong", "seat": 0, "kind": "added", "tile": "5s"}
    # a field that is null when it doesn't apply stays (null), never missing
    assert ev.Win(seat=1, win_by="self_draw", tile="1m", from_seat=None, patterns=[], points=0,
                  call=None).to_json()["from_seat"] is None


def test_a_malformed_event_is_a_clear_error() -> None:
    with pytest.raises(EventError, match=r"not a 'draw' event: missing \['hidden', 'source'\]"):
        from_json({"type": "draw", "seat": 1, "tile": "1m"})
    with pytest.raises(EventError, match=r"unknown \['colour'\]"):
        from_json({"type": "discard", "seat": 1, "tile": "1m", "colour": "red"})
    with pytest.raises(EventError, match="needs a 'type'"):
        from_json({"seat": 1})
    with pytest.raises(EventError, match="type 'discard'"):
        ev.Draw.from_json({"type": "discard", "seat": 1, "tile": "1m"})
    assert ev.Discard.from_json({"type": "discard", "seat": 1, "tile": "1m"}) == ev.Discard(seat=1, tile="1m")


def test_the_registry_is_keyed_by_the_event_type_vocabulary() -> None:
    assert set(EVENT_TYPES) == {str(t) for t in EventType}
    for name, cls in EVENT_TYPES.items():
        assert name == cls.TYPE and type(cls.TYPE) is str
        assert not hasattr(cls(**{f.name: None for f in dataclasses.fields(cls)}), "__dict__")  # slots


# -- a property over generated events ---------------------------------------------------------

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=12)


def _event_strategy(cls: type[EventBase]) -> st.SearchStrategy[EventBase]:
    return st.builds(cls, **{f.name: JSON for f in dataclasses.fields(cls)})


EVENTS = st.one_of([_event_strategy(c) for c in EVENT_TYPES.values()]) | st.builds(
    PluginEvent, type=st.text(min_size=1, max_size=8).filter(lambda t: t not in EVENT_TYPES),
    fields=st.dictionaries(st.text(max_size=5).filter(lambda k: k != "type"), JSON, max_size=4))


@settings(max_examples=300, deadline=None)
@given(EVENTS)
def test_any_event_round_trips_through_json(e: EventBase) -> None:
    d = e.to_json()
    assert d["type"] == (e.type if isinstance(e, PluginEvent) else type(e).TYPE)
    back = from_json(json.loads(dump(d)))
    assert back == e
    assert dump(back.to_json()) == dump(d)


# -- docs/events.md is the dataclasses' reference ----------------------------------------------

def _documented() -> dict[str, dict[str, bool]]:
    """Event type → {field: marked *optional*} from the doc's field tables: the header's table
    and one ``### `type` `` section per engine event (plugins' events are a separate table)."""
    text = DOC.read_text("utf-8")
    engine = text[:text.index("## Plugin events")] + "\n## (end)"
    out: dict[str, dict[str, bool]] = {}
    header = engine[engine.index("The **header**"):engine.index("## A hand")]
    sections = [("simulation", header)] + [
        (m.group(1), m.group(2)) for m in re.finditer(r"^### `(\w+)`\n(.*?)(?=^##)", engine, re.M | re.S)]
    for name, body in sections:
        rows = re.findall(r"^\| `(\w+)` \| [^|]+ \| (.*) \|$", body, re.M)
        out[name] = {f: "*optional*" in meaning for f, meaning in rows}
    return out


def test_docs_events_md_documents_every_event_type_and_field_and_nothing_else() -> None:
    documented = _documented()
    assert set(documented) == set(EVENT_TYPES), (
        f"undocumented: {sorted(set(EVENT_TYPES) - set(documented))}, "
        f"no such event: {sorted(set(documented) - set(EVENT_TYPES))}")
    for name, cls in EVENT_TYPES.items():
        fields = {f.name: bool(f.metadata.get("optional")) for f in dataclasses.fields(cls)}
        assert documented[name] == fields, (
            f"docs/events.md `{name}` documents {documented[name]}, the dataclass has {fields} "
            "(field: marked *optional*)")
