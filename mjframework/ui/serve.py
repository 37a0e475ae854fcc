"""``mj serve``: a local web playground on the standard library alone.

:func:`make_server` returns a :class:`http.server.ThreadingHTTPServer` that
serves the static page in ``mjframework/web/`` and a small JSON API:

=====================================  ===============================================
``GET  /``                             the page (``index.html``, ``app.js``, ``style.css``)
``GET  /api/rulesets``                 built-in rulesets: id, name, tile kinds, wildcard
``GET  /api/ruleset-source?ruleset=``  the ruleset's YAML text
``GET  /api/card?ruleset=``            the HTML rule card (``mj doc --format html``);
                                       ``&preset=NAME&set=NAME=VALUE…`` for house-rule options
``POST /api/score``                    score a hand (the same inputs as ``mj score``,
                                       ``"options": {NAME: VALUE}`` and ``"preset"`` included)
``POST /api/validate``                 check YAML text; located problems
=====================================  ===============================================

A request the user got wrong (a bad hand, an unknown ruleset, malformed JSON)
answers HTTP 400 with ``{"error": "..."}``; the server keeps running. Only the
built-in rulesets are served by id: the API never opens a path it is given.

**Safe on a shared machine** (``docs/limits.md``). The playground is a local
tool, but other users of the machine and web pages in the user's own browser
can reach its port, so:

- the ``Host`` header must name this machine as the user does (``localhost``,
  ``127.0.0.1``, ``[::1]`` or the ``--host`` given): a DNS-rebinding page can't;
- every POST needs ``Content-Type: application/json`` (which a cross-site form
  can't send without a CORS preflight that is never granted) and the
  per-launch token the page carries (``X-MJ-Token``);
- a body needs a valid ``Content-Length`` of at most :data:`MAX_BODY` bytes;
- sockets time out (:data:`SOCKET_TIMEOUT`); connections are served by a
  bounded thread pool (:data:`THREADS`; beyond :data:`QUEUED` waiting, 503);
- ``score`` and ``validate`` run in a few worker processes
  (:data:`WORKERS`), each limited in memory; a call that takes longer than
  the deadline (:data:`DEADLINE`) is cut off (the worker is killed and
  replaced) with a clear 503;
- ``extends`` in editor text reaches only the built-in rulesets and
  fragments, and messages never carry server paths or another file's text;
- an unexpected error answers 500 with an id; the traceback goes to the
  server's log only.
"""

from __future__ import annotations

import contextlib
import hmac
import json
import mimetypes
import multiprocessing
import os
import queue
import secrets
import shutil
import signal
import socket
import sys
import tempfile
import threading
import traceback
from concurrent.futures import ThreadPoolExecutor
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, HTTPServer
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from ..core.errors import HandError, MJError
from ..core.hand import WinContext, make_hand
from ..core.tiles import TileParseError, format_tiles, parse_tile, tile_code, tile_emoji, tile_name
from ..evaluate.scoring import Evaluator
from ..rules.loader import available_rulesets, builtin_rulesets_dir, check_file, load_ruleset
from ..rules.model import FLAGS, WIN_BY
from ..run.conformance import context_value, describe_reading

MAX_BODY = 1 << 20  # 1 MiB: a ruleset is a few kB
SOCKET_TIMEOUT = 10.0  # seconds a client may take to send its request
THREADS = 8  # connections served at once
QUEUED = 32  # connections waiting for a thread before new ones get 503
WORKERS = 2  # processes that score and validate
DEADLINE = 10.0  # seconds an API call may take before its worker is killed
WORKER_MEMORY_MB = 512  # address space of a worker process
TOKEN_HEADER = "X-MJ-Token"
LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "::1")
SEAT_NAMES = ("庄家", "下家", "对家", "上家")
STATIC_FILES = ("index.html", "app.js", "style.css", "replay.js")


class BadRequest(MJError):
    """A request the API can't act on (400)."""


class Refused(MJError):
    """A request that is not allowed to reach the API at all (its status says why)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


# --------------------------------------------------------------------------
# the API, as plain functions (JSON in, JSON out) so they can be tested alone


def _ruleset_id(value: Any) -> str:
    known = available_rulesets()
    if not isinstance(value, str) or value not in known:
        raise BadRequest(f"no ruleset {value!r} (built-in ids: {', '.join(known) or 'none'})")
    return value


def _tile_info(t: int) -> dict[str, Any]:
    return {"code": tile_code(t), "name": tile_name(t), "emoji": tile_emoji(t)}


def _options_info(rs: Any, start: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The ruleset's house-rule options (with the value the page starts with) and presets."""
    opts = []
    for name, o in rs.option_decls.items():
        value = o.default
        if name in start:
            with contextlib.suppress(ValueError):  # (not this ruleset's kind of value: keep the default)
                value = o.check(start[name])
        opts.append({"name": name, "type": o.type, "default": o.default, "value": value,
                     "description": o.description, "choices": list(o.choices),
                     "minimum": o.minimum, "maximum": o.maximum, "kind": o.kind()})
    pres = [{"name": n, "description": p.description, "set": p.set} for n, p in rs.preset_decls.items()]
    return opts, pres


def _request_options(req: dict[str, Any]) -> tuple[dict[str, Any] | None, str | None]:
    opts, preset = req.get("options"), req.get("preset") or None
    if opts is not None and not isinstance(opts, dict):
        raise BadRequest("options: give an object of NAME: VALUE")
    if preset is not None and not isinstance(preset, str):
        raise BadRequest("preset: give a preset's name")
    return (opts or None), preset


def list_rulesets(start: dict[str, Any] | None = None,
                  start_preset: str | None = None) -> list[dict[str, Any]]:
    """Every built-in ruleset that loads, with what the page needs to draw a palette.

    ``start`` / ``start_preset`` (``mj serve --set/--preset``): the option values the
    page starts with, for each ruleset that declares them.
    """
    out = []
    for rid in available_rulesets():
        try:
            rs = load_ruleset(rid)
        except MJError as e:  # a broken built-in shouldn't take the page down
            out.append({"id": rid, "name": rid, "error": str(e), "tiles": [], "wildcard": False})
            continue
        out.append({
            "id": rs.id, "name": rs.name, "description": rs.description, "players": rs.players,
            "tiles": [_tile_info(t) for t in rs.tileset.kinds],
            "wildcard": rs.wildcard is not None,
            "flags": list(FLAGS), "win_by": list(WIN_BY),
        })
        chosen = dict(start or {})
        presets = rs.preset_decls
        if start_preset in presets:
            chosen = {**presets[start_preset].set, **chosen}
        out[-1]["options"], out[-1]["presets"] = _options_info(rs, chosen)
        out[-1]["preset"] = start_preset if start_preset in presets else None
    return out


def ruleset_source(rid: Any) -> str:
    return available_rulesets()[_ruleset_id(rid)].read_text(encoding="utf-8")


def rule_card(rid: Any, options: dict[str, Any] | None = None, preset: str | None = None) -> str:
    from ..design.rulecard import build_card, render  # the card search is only paid for when asked

    return render(build_card(load_ruleset(_ruleset_id(rid), options=options or None, preset=preset or None)),
                  "html")


def _opt_tile(value: Any, what: str) -> int | None:
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise BadRequest(f"{what}: give a tile string like '8p' or '八筒'")
    try:
        return parse_tile(value.strip())
    except TileParseError as e:
        raise HandError(f"{what} {value!r}: {e.reason}") from None


def _opt_seat(value: Any, what: str) -> int | None:
    if value is None or value == "":
        return None
    try:
        seat = int(value)
    except (TypeError, ValueError):
        raise BadRequest(f"{what} {value!r}: a seat is 0–3") from None
    if not 0 <= seat <= 3:
        raise BadRequest(f"{what} {seat}: a seat is 0–3")
    return seat


def _str_list(value: Any, what: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        value = [v for v in value.splitlines() if v.strip()]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise BadRequest(f"{what}: give a list of strings")
    return [v.strip() for v in value if v.strip()]


def score(req: Any) -> dict[str, Any]:
    """Score one hand; the request mirrors ``mj score``'s options."""
    if not isinstance(req, dict):
        raise BadRequest("send a JSON object")
    options, preset = _request_options(req)
    ev = Evaluator(load_ruleset(_ruleset_id(req.get("ruleset")), options=options, preset=preset))
    wildcard, indicator = req.get("wildcard") or None, req.get("indicator") or None
    if wildcard and indicator:
        raise HandError("give a wildcard or an indicator, not both")
    wild = ev.wildcard_from(_opt_tile(wildcard, "wildcard"), _opt_tile(indicator, "indicator"))
    seat = _opt_seat(req.get("seat", 0), "seat") or 0
    discarder = _opt_seat(req.get("discarder"), "discarder")
    win_by = req.get("win_by") or ("discard" if discarder is not None else "self_draw")
    if win_by not in WIN_BY:
        raise BadRequest(f"win_by {win_by!r}: one of {', '.join(WIN_BY)}")
    if win_by == "self_draw":
        discarder = None
    elif discarder is None:
        raise HandError(f"win by {win_by} needs the discarder's seat")
    elif discarder == seat:
        raise HandError(f"the winner (seat {seat}) can't win on their own discard")
    flags = _str_list(req.get("flags"), "flags")
    unknown = [f for f in flags if f not in FLAGS]
    if unknown:
        raise BadRequest(f"unknown flag {unknown[0]!r} (known: {', '.join(FLAGS)})")
    extra_in = req.get("context") or {}
    if not isinstance(extra_in, dict):
        raise BadRequest("context: give an object of KEY: VALUE")
    extra = ev.check_context_inputs({str(k): context_value(v) for k, v in extra_in.items()})
    ctx = WinContext(seat=seat, win_by=win_by, discarder=discarder, flags=frozenset(flags), extra=extra)
    hand_text = req.get("hand")
    if not isinstance(hand_text, str) or not hand_text.strip():
        raise HandError("the hand is empty: add tiles (or type them, e.g. 234m 345p 666s 789s 8p)")
    melds = _str_list(req.get("melds"), "melds")
    if req.get("opening"):
        tiles = make_hand(hand_text).concealed
        result = ev.evaluate_opening(tiles, ctx)
        hand_info: dict[str, Any] = {"concealed": [_tile_info(t) for t in sorted(tiles)],
                                     "win_tile": None, "melds": []}
    else:
        win_tile = req.get("win_tile")
        if not win_tile:
            raise HandError("choose the winning tile")
        h = make_hand(hand_text, melds, win_tile)
        assert h.win_tile is not None  # (given just above)
        result = ev.evaluate(h, ctx, wild)
        hand_info = {"concealed": [_tile_info(t) for t in sorted(h.concealed)],
                     "win_tile": _tile_info(h.win_tile),
                     "melds": [{"kind": m.kind, "tiles": [_tile_info(t) for t in m.tiles],
                                "from_seat": m.from_seat} for m in h.melds]}
    s = result.score
    reading = None
    if s.reading is not None:
        reading = {
            "shape": s.reading.shape.kind,
            "text": describe_reading(result),
            "groups": [{
                "kind": g.kind, "meld": g.meld,
                "tiles": [_tile_info(t) | {"wild": src == "w", "stand_in": src == "s"}
                          for t, src in zip(g.tiles, g.sources, strict=True)],
            } for g in s.reading.groups],
        }
    payments = result.payments or []
    return {
        "ruleset": ev.ruleset.id, "options": ev.ruleset.options, "win": s.win, "reason": s.reason,
        "wildcard": None if wild is None else _tile_info(wild),
        "wildcard_text": None if wild is None else format_tiles([wild]),
        "hand": hand_info,
        "reading": reading,
        "patterns": [{"name": p.name, "points": p.points, "times": p.times} for p in s.patterns],
        "points": s.points,
        "call": result.call,
        "payments": [{"seat": i, "name": SEAT_NAMES[i] if i < len(SEAT_NAMES) else f"seat {i}",
                      "amount": a} for i, a in enumerate(payments)],
        "items": [p.to_dict() for p in result.settlement.payments] if result.settlement else [],
    }


def validate(req: Any) -> dict[str, Any]:
    """Check YAML text as if it were a file next to the built-in rulesets.

    The text is written to a temporary folder that links the built-in
    ``fragments/``, so ``extends: fragments/tiles-108.yaml`` resolves as it
    does for a shipped ruleset.
    """
    if not isinstance(req, dict) or not isinstance(req.get("yaml"), str):
        raise BadRequest('send {"yaml": "..."}')
    name = req.get("name") or "ruleset.yaml"
    if not isinstance(name, str) or not name.endswith((".yaml", ".yml")) or "/" in name or "\\" in name:
        name = "ruleset.yaml"
    builtin = builtin_rulesets_dir()
    # (the pid in the name lets a later server remove it if this process is killed outright)
    with tempfile.TemporaryDirectory(prefix=f"mj-serve-{os.getpid()}-") as tmp:
        folder = Path(tmp)
        frags = builtin / "fragments"
        if frags.is_dir():
            try:
                (folder / "fragments").symlink_to(frags, target_is_directory=True)
            except OSError:  # no symlinks (Windows without the privilege): copy
                shutil.copytree(frags, folder / "fragments")
        path = folder / name
        path.write_text(req["yaml"], encoding="utf-8")
        # `extends` may reach the built-in rulesets and fragments only (never a path of
        # this machine), and messages name files relative to those folders.
        rs, problems = check_file(path, roots=(folder.resolve(), builtin.resolve()))
        prefixes = [str(folder) + os.sep, str(folder.resolve()) + os.sep,
                    str(builtin) + os.sep, str(builtin.resolve()) + os.sep]
        out = []
        for p in problems:
            loc = p.location
            file = None
            if loc is not None:
                file = _strip(loc.file, prefixes)
            text = _strip(str(p), prefixes)
            out.append({
                "file": file, "line": loc.line if loc else None, "column": loc.column if loc else None,
                "in_editor": file == name, "message": p.message,
                "path": list(map(str, p.path)), "text": text,
            })
    return {"ok": not problems, "problems": out,
            "summary": rs.summary() if rs is not None else None}


def _strip(text: str, prefixes: list[str]) -> str:
    for prefix in prefixes:
        text = text.replace(prefix, "")
    return text


# --------------------------------------------------------------------------
# worker processes: API calls with a deadline and a memory limit

API_CALLS = {"score": score, "validate": validate}


def _worker_main(conn: Any, parent: int, memory_mb: int) -> None:
    """A worker: answer ``(call, request)`` messages until the pipe closes."""
    from ..core.procs import die_with_parent

    die_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the server's to handle
    if memory_mb:
        limit = memory_mb << 20
        try:
            import resource  # (POSIX only: elsewhere the deadline still applies, not the memory limit)

            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        except (ImportError, ValueError, OSError):  # or a lower hard limit is already set
            pass
    while True:
        try:
            call, req = conn.recv()
        except (EOFError, OSError):
            return
        try:
            answer: tuple[str, Any] = ("ok", API_CALLS[call](req))
        except MJError as e:
            answer = ("bad", str(e))
        except (MemoryError, RecursionError):
            answer = ("bad", "this request needs more memory than the playground allows "
                             "(see docs/limits.md)")
        except Exception:
            answer = ("bug", traceback.format_exc())
        try:
            conn.send(answer)
        except (OSError, ValueError):
            return


class _Worker:
    def __init__(self, ctx: Any, memory_mb: int) -> None:
        self.conn, child = ctx.Pipe()
        self.process = ctx.Process(target=_worker_main, args=(child, os.getpid(), memory_mb),
                                   daemon=True, name="mj-serve-worker")
        self.process.start()
        child.close()

    def kill(self) -> None:
        try:
            self.process.kill()
            self.process.join(5)
        except (OSError, ValueError, AssertionError):  # pragma: no cover - already gone
            pass
        self.conn.close()


class WorkerPool:
    """A fixed number of worker processes; :meth:`call` runs one API call with a deadline."""

    def __init__(self, size: int = WORKERS, deadline: float = DEADLINE,
                 memory_mb: int = WORKER_MEMORY_MB) -> None:
        self.size, self.deadline, self.memory_mb = size, deadline, memory_mb
        self._ctx = multiprocessing.get_context("spawn")  # never fork a threaded server
        self._idle: queue.Queue[_Worker] = queue.Queue()
        self._slots = threading.BoundedSemaphore(size)
        self._lock = threading.Lock()
        self._workers: set[_Worker] = set()
        self._closed = False
        from ..core.procs import remove_stale

        remove_stale(Path(tempfile.gettempdir()), "mj-serve-")  # left by killed workers
        for _ in range(size):  # started now, so the first request doesn't pay for it
            self._idle.put(self._new())

    def _new(self) -> _Worker:
        w = _Worker(self._ctx, self.memory_mb)
        with self._lock:
            self._workers.add(w)
        return w

    def _drop(self, w: _Worker) -> None:
        with self._lock:
            self._workers.discard(w)
        w.kill()

    def call(self, name: str, req: Any) -> Any:
        if not self._slots.acquire(timeout=self.deadline):
            raise Refused(HTTPStatus.SERVICE_UNAVAILABLE, "the playground is busy: try again")
        try:
            if self._closed:
                raise Refused(HTTPStatus.SERVICE_UNAVAILABLE, "the playground is stopping")
            w = self._idle.get_nowait()
            if not w.process.is_alive():
                self._drop(w)
                w = self._new()
            try:
                w.conn.send((name, req))
                if not w.conn.poll(self.deadline):
                    self._drop(w)
                    self._idle.put(self._new())
                    raise Refused(HTTPStatus.SERVICE_UNAVAILABLE,
                                  f"stopped after {self.deadline:g} s: this {name} takes too long "
                                  "(a ruleset too large or too complex? see docs/limits.md)")
                status, payload = w.conn.recv()
            except (EOFError, OSError, BrokenPipeError):
                self._drop(w)
                self._idle.put(self._new())
                raise BadRequest(f"this {name} stopped its worker (out of memory?); "
                                 "see docs/limits.md") from None
            self._idle.put(w)
        finally:
            self._slots.release()
        if status == "bad":
            raise BadRequest(payload)
        if status == "bug":
            raise _WorkerBug(payload)
        return payload

    def close(self) -> None:
        self._closed = True
        with self._lock:
            workers = list(self._workers)
            self._workers.clear()
        for w in workers:
            w.kill()


class _WorkerBug(Exception):
    """An unexpected error in a worker; carries the worker's traceback for the log."""


# --------------------------------------------------------------------------
# HTTP


def _web_dir() -> Path:
    return Path(str(resources.files("mjframework") / "web"))


class Handler(BaseHTTPRequestHandler):
    server_version = "mj-serve/1"
    quiet = False
    start_options: dict[str, Any] = {}  # noqa: RUF012 - (a class-level default, replaced per server)
    start_preset: str | None = None
    timeout = SOCKET_TIMEOUT  # applied to the connection's socket by StreamRequestHandler
    server: PlaygroundServer

    # -- plumbing
    def log_message(self, format: str, *args: Any) -> None:
        if not self.quiet:
            super().log_message(format, *args)

    def _send(self, status: int, body: bytes, ctype: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, data: Any, status: int = 200) -> None:
        self._send(status, json.dumps(data, ensure_ascii=False).encode(), "application/json; charset=utf-8")

    def _error(self, status: int, message: str) -> None:
        self._json({"error": message}, status)

    def _body(self) -> Any:
        raw_length = self.headers.get("Content-Length")
        if self.headers.get("Transfer-Encoding"):
            raise Refused(HTTPStatus.LENGTH_REQUIRED, "send the body with a Content-Length")
        if raw_length is None:
            raise Refused(HTTPStatus.LENGTH_REQUIRED, "a request body needs a Content-Length")
        if not raw_length.strip().isdigit() or not raw_length.isascii():
            raise BadRequest("bad Content-Length")
        length = int(raw_length)
        if length > MAX_BODY:
            self.close_connection = True  # the body is not read
            raise Refused(HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
                          f"request too large ({length} bytes; at most {MAX_BODY})")
        try:
            raw = self.rfile.read(length) if length else b""
        except TimeoutError:
            self.close_connection = True
            raise Refused(HTTPStatus.REQUEST_TIMEOUT, "the request body came too slowly") from None
        if len(raw) != length:
            self.close_connection = True
            raise BadRequest("the request body is shorter than its Content-Length")
        try:
            return json.loads(raw.decode("utf-8") or "null")
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as e:
            raise BadRequest(f"the request body is not JSON: {str(e)[:200]}") from None

    def _check_host(self) -> None:
        """Refuse a request whose Host isn't this server as its user names it (DNS rebinding)."""
        host = (self.headers.get("Host") or "").strip().lower()
        if host.startswith("["):
            name = host[1:host.find("]")] if "]" in host else host
        else:
            name = host.rsplit(":", 1)[0] if host.count(":") == 1 else host
        if not name or name not in self.server.allowed_hosts:
            raise Refused(HTTPStatus.FORBIDDEN, "this playground answers only to localhost "
                          "(or the --host it was started with)")
        origin = self.headers.get("Origin")
        if origin and origin != "null":
            o = urlsplit(origin)
            if (o.hostname or "").lower() not in self.server.allowed_hosts:
                raise Refused(HTTPStatus.FORBIDDEN, "requests from other sites are refused")

    def _check_post(self) -> None:
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if ctype != "application/json":
            raise Refused(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, "send JSON (Content-Type: application/json)")
        token = self.headers.get(TOKEN_HEADER) or ""
        if not hmac.compare_digest(token.encode("utf-8", "replace"), self.server.token.encode()):
            raise Refused(HTTPStatus.FORBIDDEN, "missing or wrong token: reload the playground's page")

    def _dispatch(self, fn: Any) -> None:
        try:
            self._check_host()
            fn()
        except Refused as e:
            self._error(e.status, str(e))
        except MJError as e:
            self._error(HTTPStatus.BAD_REQUEST, str(e))
        except (ConnectionError, TimeoutError):
            self.close_connection = True
        except Exception as e:  # a bug: logged with an id; the answer carries only the id
            ref = secrets.token_hex(4)
            detail = str(e) if isinstance(e, _WorkerBug) else traceback.format_exc()
            print(f"mj serve: internal error {ref}:\n{detail}", file=sys.stderr)
            self._error(HTTPStatus.INTERNAL_SERVER_ERROR,
                        f"internal error (id {ref}; the details are in the server's log)")

    # -- routes
    def do_GET(self) -> None:
        self._dispatch(self._get)

    do_HEAD = do_GET

    def do_POST(self) -> None:
        self._dispatch(self._post)

    def _get(self) -> None:
        url = urlsplit(self.path)
        multi = parse_qs(url.query)
        query = {k: v[-1] for k, v in multi.items()}
        route = url.path
        if route == "/api/rulesets":
            self._json({"rulesets": list_rulesets(self.start_options, self.start_preset)})
        elif route == "/api/ruleset-source":
            rid = query.get("ruleset")
            self._json({"ruleset": rid, "name": f"{rid}.yaml", "yaml": ruleset_source(rid)})
        elif route == "/api/card":
            sets = {}
            for item in multi.get("set", []):
                name, sep, value = item.partition("=")
                if not sep:
                    raise BadRequest(f"set {item!r}: write NAME=VALUE")
                sets[name] = value
            card = rule_card(query.get("ruleset"), sets, query.get("preset"))
            self._send(200, card.encode(), "text/html; charset=utf-8")
        elif route in ("/", "/index.html") or route.lstrip("/") in STATIC_FILES:
            name = "index.html" if route == "/" else route.lstrip("/")
            f = _web_dir() / name
            ctype = mimetypes.guess_type(name)[0] or "application/octet-stream"
            if ctype.startswith("text/") or ctype.endswith("javascript"):
                ctype += "; charset=utf-8"
            body = f.read_bytes()
            if name == "index.html":  # the page carries this launch's token for its POSTs
                meta = b'<meta name="mj-token" content="' + self.server.token.encode() + b'">'
                body = body.replace(b'<meta charset="utf-8">', b'<meta charset="utf-8">\n' + meta, 1)
            self._send(200, body, ctype)
        elif route == "/favicon.ico":
            self._send(204, b"", "image/x-icon")
        else:
            self._error(HTTPStatus.NOT_FOUND, f"no such page: {route}")

    def _post(self) -> None:
        route = urlsplit(self.path).path
        if route not in ("/api/score", "/api/validate"):
            self._error(HTTPStatus.NOT_FOUND, f"no such endpoint: POST {route}")
            return
        self._check_post()
        self._json(self.server.pool.call(route.rsplit("/", 1)[1], self._body()))


def _host_names(host: str) -> frozenset[str]:
    """The names a request's Host header may use for a server bound to ``host``."""
    names = {*LOOPBACK_HOSTS, host.lower().strip("[]")}
    if host in ("", "0.0.0.0", "::"):  # every interface: this machine's own names and addresses too
        try:
            hostname = socket.gethostname()
            names |= {hostname.lower(), socket.getfqdn().lower()}
            names |= set(socket.gethostbyname_ex(hostname)[2])
        except OSError:  # pragma: no cover - no name service
            pass
    return frozenset(n for n in names if n)


class PlaygroundServer(HTTPServer):
    """An HTTP server with a bounded thread pool, a token, allowed Host names and API workers."""

    request_queue_size = 64  # listen backlog

    def __init__(self, address: tuple[str, int], handler: type[Handler], *, threads: int = THREADS,
                 workers: int = WORKERS, deadline: float = DEADLINE,
                 worker_memory_mb: int = WORKER_MEMORY_MB) -> None:
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        super().__init__(address, handler)
        self.token = secrets.token_urlsafe(24)
        self.allowed_hosts = _host_names(address[0])
        self._threads = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="mj-serve")
        self._waiting = threading.BoundedSemaphore(threads + QUEUED)
        try:
            self.pool = WorkerPool(workers, deadline, worker_memory_mb)
        except BaseException:
            super().server_close()
            raise

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self._waiting.acquire(blocking=False):  # too many connections: answer at once
            with contextlib.suppress(OSError):
                request.sendall(b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n"
                                b"Connection: close\r\n\r\n")
            self.shutdown_request(request)
            return
        try:
            self._threads.submit(self._serve, request, client_address)
        except RuntimeError:  # the pool is shut down
            self._waiting.release()
            self.shutdown_request(request)

    def _serve(self, request: Any, client_address: Any) -> None:
        try:
            self.finish_request(request, client_address)
        except Exception:
            self.handle_error(request, client_address)
        finally:
            self.shutdown_request(request)
            self._waiting.release()

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that went away mid-request is not news

    def server_close(self) -> None:
        super().server_close()
        self._threads.shutdown(wait=False, cancel_futures=True)
        self.pool.close()


def make_server(host: str = "127.0.0.1", port: int = 8000, *, quiet: bool = False,
                options: dict[str, Any] | None = None, preset: str | None = None, threads: int = THREADS,
                workers: int = WORKERS, deadline: float = DEADLINE,
                worker_memory_mb: int = WORKER_MEMORY_MB) -> PlaygroundServer:
    """A ready server (port 0 picks a free one: read ``server.server_address``; ``server.token``
    is what POSTs must send in ``X-MJ-Token``). Call ``server_close()`` to stop its workers.

    ``options`` / ``preset``: house-rule option values the page starts with, for every
    ruleset that declares them; one no ruleset declares is an error (:class:`BadRequest`).
    """
    check_start_options(options or {}, preset)
    handler = type("QuietHandler" if quiet else "Handler", (Handler,),
                   {"quiet": quiet, "start_options": dict(options or {}), "start_preset": preset})
    return PlaygroundServer((host, port), handler, threads=threads, workers=workers, deadline=deadline,
                            worker_memory_mb=worker_memory_mb)


def check_start_options(options: dict[str, Any], preset: str | None) -> None:
    """Each ``mj serve --set`` name and ``--preset`` must be declared by some ruleset (value fitting)."""
    names: dict[str, list[Any]] = {}
    presets: set[str] = set()
    for rid in available_rulesets():
        try:
            rs = load_ruleset(rid)
        except MJError:
            continue
        for n, o in rs.option_decls.items():
            names.setdefault(n, []).append(o)
        presets |= set(rs.preset_decls)
    for n, v in options.items():
        if n not in names:
            raise BadRequest(f"--set {n}: no ruleset declares that option "
                             f"(options: {', '.join(sorted(names)) or 'none'})")
        errors = []
        for o in names[n]:
            try:
                o.check(v)
            except ValueError as e:
                errors.append(str(e))
        if len(errors) == len(names[n]):
            raise BadRequest(f"--set {n}={v}: {errors[0]}")
    if preset is not None and preset not in presets:
        raise BadRequest(f"--preset {preset}: no ruleset declares that preset "
                         f"(presets: {', '.join(sorted(presets)) or 'none'})")


def is_loopback(host: str) -> bool:
    return host.lower().strip("[]") in LOOPBACK_HOSTS or host.startswith("127.")


__all__ = ["PlaygroundServer", "WorkerPool", "check_start_options", "is_loopback", "list_rulesets",
           "make_server", "rule_card", "ruleset_source", "score", "validate"]
