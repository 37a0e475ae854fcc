"""Fuzzing `mj serve` with random HTTP requests: an answer (never a 500), and the server stays up."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator

import pytest
from conftest import examples
from hypothesis import given
from hypothesis import strategies as st
from servekit import port, post_json, request, running

from mjframework.ui.serve import PlaygroundServer

SERVER: dict[str, PlaygroundServer] = {}


@pytest.fixture(scope="module", autouse=True)
def server() -> Iterator[PlaygroundServer]:
    with running(workers=1, deadline=30) as s:
        s.head_timeout = s.body_timeout = 2
        SERVER["s"] = s
        yield s


paths = st.sampled_from(["/", "/api/score", "/api/validate", "/api/rulesets", "/api/card?ruleset=changsha",
                         "/api/card?ruleset=../../etc/passwd", "/api/ruleset-source?ruleset=%2e%2e",
                         "/app.js", "/../../etc/passwd", "/%00", "//", "/api/score?x=" + "a" * 3000, "*"])
methods = st.sampled_from(["GET", "POST", "HEAD", "PUT", "DELETE", "OPTIONS", "BREW", "get"])
json_bodies = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=30) | st.sampled_from(
    ["changsha", "234m 345p 666s 789s 8p", "8p", "id: x\nextends: /etc/passwd\n", "name: &a [*a]"]),
    lambda c: st.lists(c, max_size=4) | st.dictionaries(st.sampled_from(
        ["ruleset", "hand", "win_tile", "yaml", "name", "melds", "context", "seat", "discarder", "win_by",
         "flags", "wildcard", "indicator", "opening"]), c, max_size=6), max_leaves=12)
header_sets = st.fixed_dictionaries({}, optional={
    "Host": st.sampled_from(["127.0.0.1", "localhost:1", "evil.example", "", "[::1]", "127.0.0.1:99999"]),
    "Content-Type": st.sampled_from(["application/json", "text/plain", "application/json; charset=utf-8",
                                     ""]),
    "Content-Length": st.sampled_from(["-1", "0", "5", "abc", "99999999999", " 3"]),
    "X-MJ-Token": st.sampled_from(["", "wrong"]),
    "Origin": st.sampled_from(["null", "http://evil.example", "http://localhost"]),
    "Transfer-Encoding": st.sampled_from(["chunked"]),
})


def _raw(s: PlaygroundServer, data: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port(s)), timeout=60) as c:
        try:
            c.sendall(data)
            c.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        out = b""
        while True:
            try:
                chunk = c.recv(65536)
            except (ConnectionResetError, TimeoutError):
                break
            if not chunk:
                break
            out += chunk
        return out


@examples(120)
@given(methods, paths, header_sets, st.one_of(json_bodies.map(lambda b: json.dumps(b).encode()),
                                               st.binary(max_size=200)), st.booleans())
def test_random_requests_get_an_answer_and_never_a_500(method: str, path: str, headers: dict[str, str],
                                                       body: bytes, use_token: bool) -> None:
    s = SERVER["s"]
    h = {"Host": "127.0.0.1", "Connection": "close", **headers}
    if use_token and "X-MJ-Token" not in headers:
        h["X-MJ-Token"] = s.token
    h.setdefault("Content-Length", str(len(body)))
    head = f"{method} {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in h.items()) + "\r\n"
    answer = _raw(s, head.encode("latin-1", "replace") + body)
    if answer:  # (a closed connection is an answer to a garbled request)
        status = answer.split(b"\r\n", 1)[0].split(b" ")
        assert len(status) >= 2 and status[1].isdigit(), answer[:200]
        assert int(status[1]) != 500, answer[:500]  # (501: a method it doesn't have; 503: busy)
        assert b"Traceback" not in answer
    assert request(s, "GET", "/api/rulesets")[0] == 200  # still serving


@examples(60)
@given(json_bodies, st.sampled_from(["/api/score", "/api/validate"]))
def test_random_json_to_the_api_is_an_answer(body: object, path: str) -> None:
    status, r = post_json(SERVER["s"], path, body)
    assert status in (200, 400), r
    text = json.dumps(r)
    assert "Traceback" not in text and "/etc/passwd:" not in text


@examples(30)
@given(st.binary(max_size=400))
def test_random_bytes_on_the_socket(data: bytes) -> None:
    answer = _raw(SERVER["s"], data)
    assert b"Traceback" not in answer
    if answer:
        assert b" 500 " not in answer.split(b"\r\n", 1)[0], answer[:300]
