"""Rooms (mjframework.ui.rooms) over the Starlette app (mjframework.ui.webapp), no real network.

Every shipped ruleset plays a room to its settlement; people play seats over
WebSockets (Starlette's TestClient), a closed socket rejoins its seat, an absent
seat goes to a bot after the declared timeout; every frame a seat receives is
derived from that seat's view only (checked against the visibility module),
and every hand is in the records file, replayable.
"""

from __future__ import annotations

import itertools
import json
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("starlette", reason="the 'web' extra (starlette) is not installed")
pytest.importorskip("httpx2", reason="Starlette's TestClient needs httpx2")

from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from mjframework.play.seatlog import seat_log
from mjframework.play.visibility import view_for
from mjframework.rules.loader import available_rulesets
from mjframework.run.records import RecordStore
from mjframework.run.replay import Replay
from mjframework.ui.rooms import Room
from mjframework.ui.webapp import make_app

WAIT = 300  # seconds: a guard against a hang only (every room is bounded by its hands)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> RecordStore:
    return RecordStore(tmp_path_factory.mktemp("rooms") / "records.sqlite3")


@pytest.fixture(scope="module")
def client(store: RecordStore) -> Any:
    app = make_app(store=store, bot_pause=0)
    with TestClient(app, base_url="http://localhost") as c:
        c.app_state = app.state
        yield c
    app.state.close()


def _open(client: Any, **body: Any) -> dict[str, Any]:
    r = client.post("/api/rooms", json={"bot_pause": 0, **body},
                    headers={"X-MJ-Token": client.app_state.playground.token})
    assert r.status_code == 200, r.text
    return dict(r.json())


def _ws(client: Any, room: str, token: str) -> Any:
    return client.websocket_connect(f"ws://localhost/ws/{room}?token={token}")


def _play_seat(ws: Any, frames: list[dict[str, Any]], pick: Any = None,
               stop: Any = None) -> dict[str, Any] | None:
    """Answer every decision (the first option, or ``pick``'s) until the room is over (or ``stop``)."""
    while True:
        m = ws.receive_json()
        frames.append(m)
        if stop is not None and stop(m):
            return m
        if m["type"] == "decision":
            i = 0 if pick is None else pick(m)
            ws.send_json({"type": "choose", "decision": m["decision"], "index": i})
        elif m["type"] == "hand_over" and not m["last"]:
            ws.send_json({"type": "next"})
        elif m["type"] == "room_over":
            return m


def _prefer_claims(m: dict[str, Any]) -> int:
    """Win, kong, pung or chow when offered (so claims and several wins happen), else the first option."""
    for kind in ("win", "kong", "pung", "chow"):
        for o in m["options"]:
            if o["kind"] == kind:
                return int(o["index"])
    return 0


def _check_frames(frames: list[dict[str, Any]], seat: int, full: list[dict[str, Any]]) -> None:
    """What one seat received holds only what that seat sees: its seat-log events are exactly
    seat_log(full, seat); the replay log is exactly view_for of each event; states carry only
    the seat's own hand (others' as counts); decisions are the seat's own."""
    events = [m["event"] for m in frames if m["type"] == "event"]
    expected = list(seat_log(full, seat))
    assert events[-len(expected):] == json.loads(json.dumps(expected))
    overs = [m for m in frames if m["type"] == "hand_over"]
    assert overs[-1]["log"] == json.loads(json.dumps([view_for(e, seat) for e in full]))
    deal = next(e for e in full if e["type"] == "deal")
    others_dealt = [h for s, h in enumerate(deal["hands"]) if s != seat]
    assert all(h is not None for h in others_dealt)  # (the truth has them …)
    for m in frames:
        if m["type"] == "state":
            assert m["seat"] == seat and set(m) >= {"hand", "seats"}
            for x in m["seats"]:
                assert set(x) == {"seat", "word", "name", "wind", "concealed", "out", "melds", "discards",
                                  "flowers", "declared", "total"}
                assert isinstance(x["concealed"], int)
        elif m["type"] == "decision":
            assert m["seat"] == seat
        elif m["type"] == "event":
            e = m["event"]
            if e["type"] == "start_kyoku":
                assert all(set(t) == {"?"} for s, t in enumerate(e["tehais"]) if s != seat)
            if e["type"] == "tsumo" and e["actor"] != seat:
                assert e["pai"] == "?"
            if e["type"] == "wall":
                assert e["tiles"] is None
    # … and nothing a seat receives names the wall's order
    assert all(m.get("type") != "wall" or m.get("tiles") is None for m in overs[-1]["log"])


@pytest.mark.parametrize("rid", sorted(available_rulesets()))
def test_every_shipped_ruleset_plays_a_room_of_bots_to_its_settlement(rid: str, store: RecordStore,
                                                                       client: Any) -> None:
    out = _open(client, ruleset=rid, humans=0, hands=2, seed=5)
    room: Room = client.app_state.rooms.rooms[out["room"]]
    assert room.finished.wait(WAIT) and room.error is None
    assert room.played == 2 and len(room.hand_ids) == 2
    rows = store.hands(room=out["room"])
    assert {r.ruleset_id for r in rows} == {rid} and len(rows) == 2
    assert sum(room.totals) == 0 and [sum(r.deltas[s] for r in rows) for s in range(len(room.totals))] \
        == room.totals


@pytest.mark.parametrize("rid", ["changsha", "sichuan-xuezhan", "mcr"])
def test_a_person_plays_a_seat_over_the_websocket_and_sees_only_their_seat(rid: str, store: RecordStore,
                                                                          client: Any) -> None:
    out = _open(client, ruleset=rid, humans=1, hands=1, seed=7)
    seat0 = out["seats"][0]
    assert seat0["human"] and len(seat0["token"]) >= 20 and all(not s["human"] for s in out["seats"][1:])
    assert "token" not in out["seats"][1]
    frames: list[dict[str, Any]] = []
    with _ws(client, out["room"], seat0["token"]) as ws:
        end = _play_seat(ws, frames, pick=_prefer_claims)
    assert end is not None and end["error"] is None
    kinds = {m["type"] for m in frames}
    assert {"hello", "state", "decision", "waits", "event", "say", "hand_over", "room_over"} <= kinds
    for m in frames:
        if m["type"] == "waits":
            assert set(m) == {"type", "decision", "after"}
            assert all(isinstance(w, list) for w in m["after"].values())
    over = next(m for m in frames if m["type"] == "hand_over")
    assert over["lines"] and over["lines"][-1].startswith("本手")
    hand_id = over["hand_id"]
    full = store.log(hand_id)
    _check_frames(frames, 0, full)
    # the hand is kept, exports as an engine log, and replays to the same settlement
    row = next(r for r in store.hands(room=out["room"]))
    assert row.kinds[0] == "human" and row.deltas == over["payments"]
    replay = Replay(full)
    assert replay.frames and "hand ends" in replay.frames[-1]
    # the room's hands, and a hand masked for the asking seat
    r = client.get(f"/api/rooms/{out['room']}/hands?token={seat0['token']}")
    assert r.status_code == 200 and [h["id"] for h in r.json()["hands"]] == [hand_id]
    r = client.get(f"/api/rooms/{out['room']}/hands/{hand_id}?token={seat0['token']}")
    assert r.status_code == 200 and r.json()["log"] == json.loads(json.dumps([view_for(e, 0) for e in full]))
    assert client.get(f"/api/rooms/{out['room']}/hands/{hand_id}?token=nope").status_code == 404


def test_exchanges_declarations_and_several_wins_reach_the_person(client: Any) -> None:
    """四川: the 换三张 and 定缺 decisions go to the person's seat; the hand plays on after a win."""
    out = _open(client, ruleset="sichuan-xuezhan", humans=1, hands=2, seed=3)
    frames: list[dict[str, Any]] = []
    with _ws(client, out["room"], out["seats"][0]["token"]) as ws:
        _play_seat(ws, frames, pick=_prefer_claims)
    kinds = {m["kind"] for m in frames if m["type"] == "decision"}
    assert {"exchange", "declare", "turn"} <= kinds
    wins = [m for m in frames if m["type"] == "event" and m["event"]["type"] == "hora"]
    assert len(wins) >= 2


def test_two_people_one_leaves_and_rejoins_mid_hand(client: Any, store: RecordStore) -> None:
    out = _open(client, ruleset="changsha", humans=2, hands=1, seed=11, away_timeout=600)
    a, b = out["seats"][0], out["seats"][1]
    room: Room = client.app_state.rooms.rooms[out["room"]]
    frames_a: list[dict[str, Any]] = []
    frames_b: list[dict[str, Any]] = []
    errors: list[BaseException] = []

    def play_a() -> None:
        try:
            with _ws(client, out["room"], a["token"]) as wa:
                _play_seat(wa, frames_a)
        except BaseException as e:  # (reported below)
            errors.append(e)

    player_a = threading.Thread(target=play_a, daemon=True)
    player_a.start()
    # b plays until its third decision arrives, then closes the tab without answering it
    seen: list[dict[str, Any]] = []

    def third(m: dict[str, Any]) -> bool:
        if m["type"] == "decision":
            seen.append(m)
        return len(seen) == 3

    with _ws(client, out["room"], b["token"]) as wb:
        pending = _play_seat(wb, frames_b, stop=third)
    assert pending is not None
    for _ in range(1000):  # the server notices the close
        if room.seats[1].status() == "away":
            break
        threading.Event().wait(0.01)
    assert room.seats[1].status() == "away" and not room.finished.is_set()
    # the same link rejoins: the table again, then the decision left unanswered
    rejoined: list[dict[str, Any]] = []
    with _ws(client, out["room"], b["token"]) as wb2:
        hello = wb2.receive_json()
        assert hello["type"] == "hello" and hello["seat"] == 1
        rejoined.append(hello)
        while True:
            m = wb2.receive_json()
            rejoined.append(m)
            if m["type"] == "decision":
                assert m["decision"] == pending["decision"]
                wb2.send_json({"type": "choose", "decision": m["decision"], "index": 0})
                break
        assert any(m["type"] == "state" for m in rejoined)
        assert any(m["type"] == "event" and m["event"]["type"] == "start_kyoku" for m in rejoined)
        _play_seat(wb2, rejoined)
    player_a.join(WAIT)
    assert not errors and not player_a.is_alive()
    assert room.finished.is_set() and room.error is None
    full = store.log(room.hand_ids[0])
    _check_frames(frames_a, 0, full)
    _check_frames(rejoined, 1, full)
    row = store.hands(room=out["room"])[0]
    assert row.kinds[:2] == ["human", "human"]


def test_a_seat_away_past_the_timeout_is_played_by_a_bot(client: Any, store: RecordStore) -> None:
    out = _open(client, ruleset="changsha", humans=1, hands=1, seed=2, away_timeout=0)
    room: Room = client.app_state.rooms.rooms[out["room"]]
    assert room.finished.wait(WAIT) and room.error is None  # nobody came: a bot played seat 0
    assert room.seats[0].replaced
    assert store.hands(room=out["room"])[0].kinds[0] == "bot"


def test_requests_that_are_refused(client: Any) -> None:
    token = client.app_state.playground.token
    # opening a room needs the page's token, JSON, this server's Host and no foreign Origin
    assert client.post("/api/rooms", json={"ruleset": "changsha"}).status_code == 403
    assert client.post("/api/rooms", json={"ruleset": "changsha"},
                       headers={"X-MJ-Token": token, "Host": "evil.example"}).status_code == 403
    assert client.post("/api/rooms", json={"ruleset": "changsha"},
                       headers={"X-MJ-Token": token, "Origin": "http://evil.example"}).status_code == 403
    for body, word in (({"ruleset": "nope"}, "ruleset"), ({"ruleset": "changsha", "humans": 9}, "humans"),
                       ({"ruleset": "changsha", "hands": 0}, "hands"), ([1], "JSON object"),
                       ({"yaml": "id: x\n  bad: [", "humans": 0}, "problems"),
                       ({"yaml": "extends: /etc/passwd\nid: x\n", "humans": 0}, "problems")):
        r = client.post("/api/rooms", json=body, headers={"X-MJ-Token": token})
        assert r.status_code == 400 and word in r.json()["error"], (body, r.text)
        assert "/tmp" not in r.text and "Traceback" not in r.text
    out = _open(client, ruleset="changsha", humans=1, hands=1, seed=1, away_timeout=600)
    # a seat needs its own token; a foreign page can't open a socket
    with pytest.raises(WebSocketDisconnect) as e, _ws(client, out["room"], "guess"):
        pass
    assert e.value.code == 4404
    with pytest.raises(WebSocketDisconnect) as e, client.websocket_connect(
            f"ws://localhost/ws/{out['room']}?token={out['seats'][0]['token']}",
            headers={"Origin": "http://evil.example"}):
        pass
    assert e.value.code == 4403
    # an oversized message closes the socket; the seat stays and can rejoin
    with _ws(client, out["room"], out["seats"][0]["token"]) as ws:
        assert ws.receive_json()["type"] == "hello"
        ws.send_text("x" * 10000)
        with pytest.raises(WebSocketDisconnect):
            while True:
                ws.receive_json()
    info = client.get(f"/api/rooms/{out['room']}?token={out['seats'][0]['token']}").json()
    assert info["room"] == out["room"]
    client.app_state.rooms.rooms[out["room"]].close()


def test_a_pasted_ruleset_plays_in_a_room(client: Any, store: RecordStore) -> None:
    yaml_text = "id: my-house\nname: My house rules\nextends: changsha.yaml\n"
    out = _open(client, yaml=yaml_text, humans=0, hands=1, seed=4)
    assert out["ruleset"]["id"] == "my-house"
    room: Room = client.app_state.rooms.rooms[out["room"]]
    assert room.finished.wait(WAIT) and room.error is None
    row = store.hands(room=out["room"])[0]
    assert row.ruleset_id == "my-house" and store.ruleset_data(row.ruleset_hash)["id"] == "my-house"


def test_the_playground_is_served_by_the_same_app(client: Any) -> None:
    r = client.get("/api/rulesets")
    assert r.status_code == 200 and {x["id"] for x in r.json()["rulesets"]} == set(available_rulesets())
    r = client.post("/api/score", json={"ruleset": "changsha", "hand": "234m 345p 666s 789s 8p",
                                        "win_tile": "8p", "seat": 3, "win_by": "self_draw"},
                    headers={"X-MJ-Token": client.app_state.playground.token})
    assert r.status_code == 200 and r.json()["win"] is True, r.text
    assert client.post("/api/score", json={}).status_code == 403  # no token
    page = client.get("/play")
    assert page.status_code == 200 and 'name="mj-token"' in page.text
    assert client.get("/tiles.js").status_code == 200
    assert client.get("/play", headers={"Host": "evil.example"}).status_code == 403


def test_tile_faces_are_drawn_for_every_tile() -> None:
    """tiles.js names and draws every kind (万 with 萬, the dots, the bamboo, winds, dragons, flowers)."""
    import shutil
    import subprocess

    node = shutil.which("node")
    if not node:
        pytest.skip("no Node.js to run tiles.js")
    path = Path(__file__).resolve().parents[1] / "mjframework" / "web" / "tiles.js"
    script = ("const T = require(process.argv[1]); const out = {};"
              "for (const s of ['m','p','s']) for (let n = 1; n <= 9; n++)"
              " out[n + s] = [T.name(n + s), T.svg(n + s)];"
              "for (let n = 1; n <= 7; n++) out[n + 'z'] = [T.name(n + 'z'), T.svg(n + 'z')];"
              "for (let n = 1; n <= 8; n++) out[n + 'f'] = [T.name(n + 'f'), T.svg(n + 'f')];"
              "out.back = [T.name(null), T.svg(null)];"
              "process.stdout.write(JSON.stringify(out));")
    res = subprocess.run([node, "-e", script, str(path)], capture_output=True, text=True, timeout=60,
                         check=True)
    out = json.loads(res.stdout)
    from mjframework.core.tiles import parse_tile, tile_name

    for code, (name, svg) in out.items():
        assert svg.startswith("<svg") and svg.endswith("</svg>")
        if code != "back":
            assert name == tile_name(parse_tile(code)), code
            assert f'aria-label="{name}"' in svg
    assert "萬" in out["5m"][1] and "五" in out["5m"][1]
    assert out["5p"][1].count("<circle") == 10 and "中" in out["7z"][1] and "發" in out["6z"][1]
    assert "東" in out["1z"][1] and "菊" in out["8f"][1]


_JSON = st.recursive(st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False)
                     | st.text(max_size=20),
                     lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner,
                                                                                  max_size=4),
                     max_leaves=12)
_FIELDS = st.fixed_dictionaries({}, optional={
    "ruleset": st.sampled_from(["changsha", "nope", ""]) | _JSON, "yaml": st.text(max_size=60) | _JSON,
    "humans": _JSON, "hands": _JSON, "away_timeout": _JSON, "seed": _JSON, "names": _JSON,
    "options": _JSON, "preset": _JSON, "bot_pause": _JSON})


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=_FIELDS | _JSON)
def test_any_room_request_is_answered_without_an_internal_error(client: Any, body: Any) -> None:
    r = client.post("/api/rooms", content=json.dumps(body), headers={
        "X-MJ-Token": client.app_state.playground.token, "Content-Type": "application/json"})
    assert r.status_code in (200, 400), r.text
    assert "Traceback" not in r.text
    if r.status_code == 200:  # a valid request: the room is real; close it
        client.app_state.rooms.rooms[r.json()["room"]].close()


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(junk=st.lists(_JSON | st.fixed_dictionaries({"type": st.sampled_from(["choose", "next", "x"])},
                                                   optional={"decision": _JSON, "index": _JSON}),
                     max_size=8))
def test_junk_from_a_player_changes_nothing(client: Any, junk: list[Any]) -> None:
    """Stray, stale and malformed messages are ignored: the seat still gets its decision and the
    hand plays to its end."""
    out = _open(client, ruleset="changsha", humans=1, hands=1, seed=6)
    frames: list[dict[str, Any]] = []
    with _ws(client, out["room"], out["seats"][0]["token"]) as ws:
        for m in junk:
            ws.send_text(json.dumps(m))
        end = _play_seat(ws, frames)
    assert end is not None and end["error"] is None and end["played"] == 1


class _Logged(Room):
    """A room that keeps the whole truth of its hands (what the records file would get)."""

    def __init__(self, *a: Any, **kw: Any) -> None:
        super().__init__(*a, **kw)
        self.truth: list[dict[str, Any]] = []

    def _emit(self, e: dict[str, Any]) -> None:
        self.truth.append(e)
        super()._emit(e)


@pytest.mark.parametrize(("ruleset", "hands"),
                         [("mcr", 5), (str(Path(__file__).parent / "rulesets" / "counters.yaml"), 4),
                          (str(Path(__file__).parent / "rulesets" / "wind-by-deal.yaml"), 6)])
def test_a_rooms_hands_follow_on_as_mj_plays_do(ruleset: str, hands: int) -> None:
    """A room of several hands is the same series as ``mj play``'s / ``mj simulate``'s (one loop,
    ``hand_series``): dealer, prevalent wind, repeat calls and the ruleset's counters carried from
    hand to hand — with the seat's own bot playing (away at once), its log is theirs, byte for byte."""
    from mjframework.run.simulate import load_cached, make_bots, play_hands

    rs, ev = load_cached(ruleset, (), None)
    room = _Logged(rs, ev, humans=[0], seed=11, hands=hands, away_timeout=0)
    room.start()
    assert room.finished.wait(WAIT) and room.error is None and room.played == hands
    theirs: list[dict[str, Any]] = []
    for _ in play_hands(rs, lambda h: make_bots(("greedy",) * rs.players, 11, 0, h), seed=11, hands=hands,
                        emit=theirs.append, evaluator=ev):
        pass
    assert json.dumps(room.truth) == json.dumps(theirs)
    state = next(m for m in room.seats[0].log if m["type"] == "state")  # the last hand's table
    starts = [e for e in theirs if e["type"] == "hand_start"]
    if rs.flow.prevalent_counts == "deal_passes":  # the wind moves by the deal's passes, not by hands
        passes = sum(a["dealer"] != b["dealer"] for a, b in itertools.pairwise(starts))
        assert passes < 4 and state["hand_no"] == hands - 1 and state["prevalent"] == "东"
    elif rs.flow.prevalent_every:  # 国标: 东 for four hands, then 南
        assert state["hand_no"] == hands - 1 and state["prevalent"] == "南"
    else:
        assert any(e.get("counters") for e in starts[1:])  # counters carried into later hands


@pytest.mark.parametrize("rid", ["changsha", "sichuan-xuezhan", "mcr"])
def test_a_seat_that_asks_for_english_is_told_the_hand_in_english(rid: str, client: Any) -> None:
    """``?lang=en`` on the socket (the page's ?lang=en / its language switch): the narration, the
    settlement lines, the seats' and winds' names and the options' labels come in English — no
    Chinese left but the ruleset's own words (its name, its patterns) and what is said in 「」."""
    import re

    from mjframework.run.simulate import load_cached

    out = _open(client, ruleset=rid, humans=1, hands=1, seed=7)
    frames: list[dict[str, Any]] = []
    with client.websocket_connect(f"ws://localhost/ws/{out['room']}?token={out['seats'][0]['token']}"
                                  "&lang=en") as ws:
        assert _play_seat(ws, frames, pick=_prefer_claims) is not None
    rs, _ = load_cached(rid, (), None)
    kept = sorted([rs.name, *(p.name for p in rs.patterns)], key=len, reverse=True)
    texts = [m["text"] for m in frames if m["type"] == "say"]
    over = [m for m in frames if m["type"] == "hand_over"]
    texts += [x for m in over for x in [*m["lines"], m["next_dealer"]]]
    texts += [o["label"] for m in frames if m["type"] == "decision" for o in m["options"]]
    texts += [x[k] for m in frames if m["type"] in ("hello", "state") for x in m["seats"]
              for k in ("word", "wind") if x.get(k)]
    assert any(" discards " in t for t in texts) and over and over[0]["lines"]
    cjk = re.compile(r"[\u4e00-\u9fff]")
    # a plugin's text (扎鸟's birds) is its designer's words, put word by word where the table knows them
    theirs = {c for e in over[0]["log"] if isinstance(e.get("text"), str) for c in cjk.findall(e["text"])}
    for t in texts:
        rest = re.sub(r"「[^」]*」", "", t)
        for w in kept:
            rest = rest.replace(w, "")
        assert not set(cjk.findall(rest)) - theirs, t
