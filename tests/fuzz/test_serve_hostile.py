"""`mj serve` against slow, idle and careless clients: deadlines, connection caps, 400s, Host parsing.

Every test here is bounded by counts (connections, bytes, tries), never by how fast the machine is:
a socket timeout only stops a test that would otherwise hang.
"""

from __future__ import annotations

import json
import re
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from servekit import port, post_json, request, running

from mjframework.core.errors import MJError
from mjframework.ui import serve as serve_mod
from mjframework.ui.serve import Playground, PlaygroundServer, parse_host, parse_origin

HAND = {"ruleset": "changsha", "hand": "234m 345p 666s 789s 8p", "win_tile": "8p"}


@pytest.fixture(scope="module")
def server() -> Iterator[PlaygroundServer]:
    with running(workers=1) as s:
        yield s


def _connect(s: PlaygroundServer) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port(s)), timeout=20)


def _closed_by_server(c: socket.socket) -> bytes | None:
    """What the server sent before closing ``c``, or None if it is still open (nothing to read)."""
    c.setblocking(False)
    try:
        data = c.recv(65536)
    except BlockingIOError:
        return None
    finally:
        c.setblocking(True)
    return data + (c.recv(65536) if data else b"")


# -- slow and idle clients ------------------------------------------------------------------------


def test_forty_drip_feeding_connections_do_not_deny_service(server: PlaygroundServer) -> None:
    """Each of 40 connections sends a byte of its head now and then: a normal request is still answered
    at once (the old server gave each a thread until its socket timed out: 503 for everyone)."""
    drips = [_connect(server) for _ in range(40)]
    try:
        for round_ in range(3):
            for c in drips:
                c.sendall(b"GET / HTTP/1.1\r\n"[round_:round_ + 1])
            status, r = request(server, "GET", "/api/rulesets", timeout=5)
            assert status == 200 and r["rulesets"], r
        assert all(_closed_by_server(c) is None for c in drips)  # (they were not simply dropped)
    finally:
        for c in drips:
            c.close()


def test_three_hundred_idle_sockets_do_not_time_out_a_get() -> None:
    with running(workers=1) as s:
        idle = [_connect(s) for _ in range(300)]
        try:
            status, _ = request(s, "GET", "/api/rulesets", timeout=5)
            assert status == 200
            assert s.open_connections() <= s.max_per_client + 1
            # the oldest idle ones were closed to make room, the newest are still open
            assert _closed_by_server(idle[0]) == b"" and _closed_by_server(idle[-1]) is None
        finally:
            for c in idle:
                c.close()


def test_connection_caps_evict_the_oldest_waiting_connection() -> None:
    with running(workers=1) as s:
        s.max_connections, s.max_per_client = 12, 8
        idle = [_connect(s) for _ in range(30)]
        try:
            assert request(s, "GET", "/api/rulesets", timeout=5)[0] == 200
            assert s.open_connections() <= 8
            open_now = [c for c in idle if _closed_by_server(c) is None]
            assert 0 < len(open_now) <= 8 and open_now == idle[len(idle) - len(open_now):]
        finally:
            for c in idle:
                c.close()


@pytest.mark.parametrize("stage", ["head", "body"])
def test_a_request_must_arrive_within_its_deadline_not_per_byte(stage: str) -> None:
    """A byte every 0.1 s keeps a per-read socket timeout happy forever; the request's own deadline
    (0.5 s here) closes it, with a 408, after a bounded number of bytes."""
    with running(workers=1) as s:
        s.head_timeout = s.body_timeout = 0.5
        with _connect(s) as c:
            if stage == "body":
                c.sendall(f"POST /api/validate HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                          f"Content-Type: application/json\r\nX-MJ-Token: {s.token}\r\n"
                          "Content-Length: 100000\r\n\r\n".encode())
            answer = None
            for i in range(200):  # (0.5 s at 0.1 s a byte: it stops after ~5 of these)
                try:
                    c.sendall(b"X-A: b\r\n"[i % 8:i % 8 + 1])
                except OSError:
                    break
                c.settimeout(0.1)
                try:
                    answer = c.recv(65536)
                    break
                except TimeoutError:
                    continue
            assert answer is not None and (answer == b"" or answer.startswith(b"HTTP/1.1 408 ")), (i, answer)
            assert i < 100


def test_a_huge_head_is_refused_with_431(server: PlaygroundServer) -> None:
    with _connect(server) as c:
        c.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * (serve_mod.MAX_HEAD + 10))
        answer = c.recv(1000)
    assert answer.startswith(b"HTTP/1.1 431 ")


def test_keep_alive_and_pipelined_requests(server: PlaygroundServer) -> None:
    one = f"GET /api/rulesets HTTP/1.1\r\nHost: 127.0.0.1:{port(server)}\r\n\r\n".encode()
    with _connect(server) as c:
        c.sendall(one + one)  # two requests in one packet: two answers on the same connection
        data = b""
        while data.count(b"HTTP/1.1 200 ") < 2:
            chunk = c.recv(65536)
            assert chunk, data[:300]
            data += chunk
        c.sendall(one.replace(b"\r\n\r\n", b"\r\nConnection: close\r\n\r\n"))
        while chunk := c.recv(65536):
            data += chunk
    assert data.count(b"HTTP/1.1 200 ") == 3 and data.rstrip().endswith(b"}")


def test_a_validate_killed_at_its_deadline_leaves_no_temp_folder() -> None:
    with running(workers=1, deadline=0.01) as s:
        (worker,) = list(s.pool._workers)
        # (what the killed worker's `validate` would have left: its pid names it)
        left = Path(tempfile.gettempdir()) / f"mj-serve-{worker.process.pid}-abc"
        left.mkdir()
        (left / "ruleset.yaml").write_text("id: x\n")
        status, r = post_json(s, "/api/validate", {"yaml": "id: x\nextends: changsha\n"})
        assert status == 503 and "takes too long" in r["error"], r
        assert not left.exists()


# -- client mistakes: 400 with a message, never 500 -------------------------------------------------

JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner,
                                                                                 max_size=3),
                    max_leaves=8)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(key=st.sampled_from(sorted(serve_mod.SCORE_FIELDS)), value=JSON,
       extra=st.dictionaries(st.sampled_from(sorted(serve_mod.SCORE_FIELDS)), JSON, max_size=2))
def test_any_value_in_any_score_field_is_an_answer_or_a_clear_error(key: str, value: Any,
                                                                   extra: dict[str, Any]) -> None:
    req = {**HAND, **extra, key: value}
    try:
        r = serve_mod.score(req)
    except MJError as e:
        assert str(e) and "Traceback" not in str(e)
    else:
        json.dumps(r)


@pytest.mark.parametrize(("body", "words"), [
    ({**HAND, "win_tile": ["8p"]}, "win_tile: give a tile"),
    ({**HAND, "seat": 1.9}, "seat"),
    ({**HAND, "seat": 7}, "a seat is 0–3"),
    ({**HAND, "seat": -1}, "a seat is 0–3"),
    ({**HAND, "discarder": "9", "win_by": "discard"}, "a seat is 0–3"),
    ({**HAND, "hand": {"a": 1}}, "hand: give tiles"),
    ({**HAND, "opening": "yes"}, "opening: give true or false"),
])
def test_score_mistakes_are_400(server: PlaygroundServer, body: dict[str, Any], words: str) -> None:
    status, r = post_json(server, "/api/score", body)
    assert status == 400 and words in r["error"], r


@pytest.mark.parametrize("raw", [
    b'{"ruleset": "changsha", "hand": "234m 345p 666s 789s 8p", "win_tile": "8p", "seat": 1e999}',
    b'{"ruleset": "changsha", "hand": "234m 345p 666s 789s 8p", "win_tile": "8p", "seat": NaN}',
    b'{"ruleset": "changsha", "hand": "\\ud800", "win_tile": "8p"}',
    b'{"ruleset": ["changsha"]}',
    b'[1, 2]',
    b'"text"',
])
def test_raw_json_mistakes_are_400(server: PlaygroundServer, raw: bytes) -> None:
    status, r = request(server, "POST", "/api/score", raw)
    assert status == 400 and r["error"], r


@pytest.mark.parametrize("body", [
    {"yaml": "id: x\n", "name": "a\x00b.yaml"},
    {"yaml": "id: x\n", "name": "../x.yaml"},
    {"yaml": "id: x\n", "name": ["x.yaml"]},
    {"yaml": "id: x\n", "name": "x" * 200 + ".yaml"},
    {"yaml": "id: \ud800\n"},
    {"yaml": ["id: x"]},
])
def test_validate_mistakes_are_400(server: PlaygroundServer, body: dict[str, Any]) -> None:
    status, r = post_json(server, "/api/validate", body)
    assert status == 400 and r["error"], r


def test_a_unicode_file_name_is_fine(server: PlaygroundServer) -> None:
    status, r = post_json(server, "/api/validate", {"yaml": "id: x\n", "name": "长沙.yaml"})
    assert status == 200 and all(p["file"] in (None, "长沙.yaml") for p in r["problems"]), r


# -- Host and Origin --------------------------------------------------------------------------------

@pytest.mark.parametrize("host", ["[::1].evil.example", "localhost:1@evil.example", "localhost@evil.example",
                                  "localhost:80:80", "localhost:", "[::1]:", "[::1]x", "[::1", "localhost x",
                                  "127.0.0.1:8000/evil", "localhost:123456", "LOCALHOST.", "[evil]"])
def test_hosts_that_only_look_local_are_refused(server: PlaygroundServer, host: str) -> None:
    assert request(server, "GET", "/api/rulesets", headers={"Host": host})[0] == 403


@pytest.mark.parametrize("origin", ["http://[::1].evil.example", "http://localhost:1@evil.example",
                                   "http://localhost@evil.example", "javascript://localhost", "localhost",
                                   "http://[::1"])
def test_origins_that_only_look_local_are_refused(server: PlaygroundServer, origin: str) -> None:
    status, _ = post_json(server, "/api/validate", {"yaml": "id: x\n"}, headers={"Origin": origin})
    assert status == 403


@pytest.mark.parametrize(("value", "name"), [("localhost", "localhost"), ("LocalHost:8000", "localhost"),
                                             ("[::1]", "::1"), ("[0:0::1]:80", "::1"),
                                             ("127.0.0.1:1", "127.0.0.1")])
def test_parse_host_reads_real_hosts(value: str, name: str) -> None:
    assert parse_host(value) == name
    assert parse_origin(f"http://{value}") == name


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="lochast:[]@.1:/%ex-_ \t\x00", max_size=30))
def test_a_host_parses_to_localhost_only_when_it_is_localhost(value: str) -> None:
    name = parse_host(value)
    if name == "localhost":
        assert re.fullmatch(r"localhost(:[0-9]{1,5})?", value.strip().lower()), value
    if name == "::1":
        assert value.strip().startswith("[") and "@" not in value


# -- the transport-free entry point ----------------------------------------------------------------

def test_dispatch_without_a_transport(server: PlaygroundServer) -> None:
    app: Playground = server.app
    h = [("Host", "localhost"), ("Content-Type", "application/json"), ("X-MJ-Token", app.token)]
    body = json.dumps(HAND).encode()
    status, headers, out = app.dispatch("POST", "/api/score", [*h, ("Content-Length", str(len(body)))], body)
    assert status == 200 and json.loads(out)["win"] is True
    assert ("Content-Length", str(len(out))) in headers
    assert app.check_head("POST", "/api/score", [*h, ("Content-Length", str(len(body)))]) is None
    # the head checks are repeated by dispatch: a transport that skips check_head is still safe
    status, _, out = app.dispatch("POST", "/api/score", [("Host", "evil.example"), *h[1:]], body)
    assert status == 403
    status, _, out = app.dispatch("POST", "/api/score", [*h, ("Host", "localhost")], body)
    assert status == 400 and b"twice" in out
    status, _, out = app.dispatch("GET", "/api/rulesets", {"host": "127.0.0.1"})
    assert status == 200 and json.loads(out)["rulesets"]
    status, _, out = app.dispatch("HEAD", "/", {"host": "127.0.0.1"})
    assert status == 200 and out == b""
    status, _, _ = app.dispatch("DELETE", "/", {"host": "127.0.0.1"})
    assert status == 405


# -- the transport-free entry point, fuzzed ----------------------------------------------------------

BODY_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
                         lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
                             st.sampled_from([*serve_mod.SCORE_FIELDS, "yaml", "name"]) | st.text(max_size=5),
                             inner, max_size=5), max_leaves=12)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                    HealthCheck.too_slow])
@given(path=st.sampled_from(["/api/score", "/api/validate", "/api/nope", "/api/score?x=1"]),
       body=BODY_JSON.map(lambda v: json.dumps(v).encode()) | st.binary(max_size=40)
       | st.sampled_from([b'{"seat": ' + b"9" * 5000 + b"}", b"[" * 5000, b'"\\ud800"', b"\xff"]))
def test_any_post_body_is_answered_without_a_500(server: PlaygroundServer, path: str, body: bytes) -> None:
    app: Playground = server.app
    h = [("Host", "localhost"), ("Content-Type", "application/json"), ("X-MJ-Token", app.token),
         ("Content-Length", str(len(body)))]
    status, _, out = app.dispatch("POST", path, h, body)
    assert status in (200, 400, 404, 503), (status, out[:300])
    assert json.loads(out)
