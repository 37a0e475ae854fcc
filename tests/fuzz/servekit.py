"""A playground server in a thread, and raw HTTP requests to it (for the hostile-request tests)."""

from __future__ import annotations

import http.client
import json
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from mjframework.ui.serve import PlaygroundServer, make_server


@contextmanager
def running(**kw: Any) -> Iterator[PlaygroundServer]:
    server = make_server("127.0.0.1", 0, quiet=True, **kw)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


def port(server: PlaygroundServer) -> int:
    return server.server_address[1]


def request(server: PlaygroundServer, method: str, path: str, body: bytes | None = None,
            headers: dict[str, str] | None = None, *, token: bool = True, json_type: bool = True,
            timeout: float = 60) -> tuple[int, Any]:
    """One request; ``headers`` override the defaults (Host, Content-Type, token)."""
    conn = http.client.HTTPConnection("127.0.0.1", port(server), timeout=timeout)
    h = {"Host": f"127.0.0.1:{port(server)}"}
    if method == "POST":
        if json_type:
            h["Content-Type"] = "application/json"
        if token:
            h["X-MJ-Token"] = server.token
    h.update(headers or {})
    try:
        conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        for k, v in h.items():
            conn.putheader(k, v)
        if body is not None and "Content-Length" not in h:
            conn.putheader("Content-Length", str(len(body)))
        conn.endheaders()
        if body is not None:
            conn.send(body)
        r = conn.getresponse()
        data = r.read()
        ctype = r.getheader("Content-Type") or ""
        return r.status, json.loads(data) if "json" in ctype else data
    finally:
        conn.close()


def post_json(server: PlaygroundServer, path: str, obj: Any, **kw: Any) -> tuple[int, Any]:
    return request(server, "POST", path, json.dumps(obj).encode(), **kw)


def raw(server: PlaygroundServer, data: bytes, timeout: float = 30) -> bytes:
    """Send raw bytes; return everything the server answers before it closes."""
    with socket.create_connection(("127.0.0.1", port(server)), timeout=timeout) as s:
        s.sendall(data)
        out = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                return out
            out += chunk
