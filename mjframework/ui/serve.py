"""``mj serve``: a local web playground on the standard library alone.

:class:`Playground` is the playground with no transport: ``dispatch(method,
path, headers, body) -> (status, headers, body)`` (and ``check_head`` before a
body is read). :func:`make_server` returns a :class:`PlaygroundServer`, ``mj
serve``'s own HTTP/1.1 transport for it; another server (an ASGI app) can
call :func:`make_playground` and ``dispatch``. It serves the static page in
``mjframework/web/`` and a small JSON API:

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
- slow clients can't starve it: one thread does every socket's I/O without
  blocking, a request reaches the answering threads (:data:`THREADS`;
  beyond :data:`QUEUED` waiting, 503) only once complete, each request's
  head, body and answer have a deadline, and open connections are capped
  (the oldest one still waiting for its request makes room for a new one);
- a request's fields are type-checked (:data:`SCORE_FIELDS`): a mistake is
  a 400 naming the field;
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
import ipaddress
import json
import mimetypes
import multiprocessing
import os
import queue
import re
import secrets
import selectors
import shutil
import signal
import socket
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Iterable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from http import HTTPStatus
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
MAX_HEAD = 16 << 10  # bytes of a request line and headers
MAX_HEADERS = 100  # header lines in one request
HEAD_TIMEOUT = 10.0  # seconds a connection may take to send a request's head (from its first awaited byte)
BODY_TIMEOUT = 10.0  # seconds, once the head is in, to send the body
SEND_TIMEOUT = 10.0  # seconds a client may take to read its answer
MAX_CONNECTIONS = 256  # open connections; a new one beyond closes the oldest still waiting for its request
MAX_PER_CLIENT = 64  # the same, per client address
THREADS = 8  # requests answered at once
QUEUED = 32  # complete requests waiting for a thread before new ones get 503
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


def _opt_seat(value: Any, what: str, players: int = 4) -> int | None:
    """A seat from a request: a whole number (or its decimal digits) 0 … players − 1."""
    if value is None or value == "":
        return None
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit() \
            and len(value.strip()) < 4:
        value = int(value.strip())
    if not isinstance(value, int) or isinstance(value, bool):
        raise BadRequest(f"{what} {_short(value)}: a seat is a whole number 0–{players - 1}")
    if not 0 <= value < players:
        raise BadRequest(f"{what} {value}: a seat is 0–{players - 1} at a table of {players}")
    return value


def _short(value: Any) -> str:
    """A request's value quoted in a message, cut to a readable length."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "…"


# The score request's fields and the JSON types each may have (None/null: not given).
SCORE_FIELDS: dict[str, tuple[tuple[type, ...], str]] = {
    "ruleset": ((str,), "a built-in ruleset's id"),
    "hand": ((str,), "tiles, like '234m 345p 666s 789s 8p'"),
    "win_tile": ((str,), "a tile, like '8p' or '八筒'"),
    "melds": ((list, str), "a list of melds, like ['pung 5p']"),
    "wildcard": ((str,), "a tile, like '8p'"),
    "indicator": ((str,), "a tile, like '8p'"),
    "seat": ((int, str), "a seat number"),
    "discarder": ((int, str), "a seat number"),
    "win_by": ((str,), f"one of {', '.join(WIN_BY)}"),
    "flags": ((list, str), "a list of flags"),
    "context": ((dict,), "an object of KEY: VALUE"),
    "options": ((dict,), "an object of NAME: VALUE"),
    "preset": ((str,), "a preset's name"),
    "opening": ((bool,), "true or false"),
}


def _check_fields(req: dict[str, Any], fields: dict[str, tuple[tuple[type, ...], str]]) -> None:
    """Every known field given (not null) has one of its JSON types: else a 400 naming it."""
    for key, (types, what) in fields.items():
        value = req.get(key)
        if value is None:
            continue
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            raise BadRequest(f"{key}: give {what}, not {_json_type(value)} {_short(value)}")


def _json_type(value: Any) -> str:
    return {bool: "a boolean", int: "a number", float: "a number", str: "a string", list: "a list",
            dict: "an object"}.get(type(value), type(value).__name__)


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
    _check_fields(req, SCORE_FIELDS)
    options, preset = _request_options(req)
    ev = Evaluator(load_ruleset(_ruleset_id(req.get("ruleset")), options=options, preset=preset))
    players = ev.ruleset.players
    wildcard, indicator = req.get("wildcard") or None, req.get("indicator") or None
    if wildcard and indicator:
        raise HandError("give a wildcard or an indicator, not both")
    wild = ev.wildcard_from(_opt_tile(wildcard, "wildcard"), _opt_tile(indicator, "indicator"))
    seat = _opt_seat(req.get("seat", 0), "seat", players) or 0
    discarder = _opt_seat(req.get("discarder"), "discarder", players)
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



@contextlib.contextmanager
def pasted_folder(prefix: str) -> Iterator[tuple[Path, Path, list[str]]]:
    """A temporary folder for a pasted ruleset whose ``fragments/`` are the built-in ones (linked,
    or copied where there are no symlinks): yields the folder, the built-in rulesets' folder and
    the path prefixes that messages must not show. (The pid in the folder's name lets a later
    server remove it if this process is killed outright.)"""
    builtin = builtin_rulesets_dir()
    with tempfile.TemporaryDirectory(prefix=f"{prefix}-{os.getpid()}-") as tmp:
        folder = Path(tmp)
        frags = builtin / "fragments"
        if frags.is_dir():
            try:
                (folder / "fragments").symlink_to(frags, target_is_directory=True)
            except OSError:  # no symlinks (Windows without the privilege): copy
                shutil.copytree(frags, folder / "fragments")
        yield folder, builtin, [str(folder) + os.sep, str(folder.resolve()) + os.sep,
                                str(builtin) + os.sep, str(builtin.resolve()) + os.sep]

def validate(req: Any) -> dict[str, Any]:
    """Check YAML text as if it were a file next to the built-in rulesets.

    The text is written to a temporary folder that links the built-in
    ``fragments/``, so ``extends: fragments/tiles-108.yaml`` resolves as it
    does for a shipped ruleset.
    """
    if not isinstance(req, dict) or not isinstance(req.get("yaml"), str):
        raise BadRequest('send {"yaml": "..."}')
    name = req.get("name") or "ruleset.yaml"
    if not isinstance(name, str):
        raise BadRequest(f"name: give a file name like 'my-variant.yaml', not {_json_type(name)}")
    if not _FILE_NAME.fullmatch(name) or name.startswith("."):
        raise BadRequest(f"name {_short(name)}: a file name like 'my-variant.yaml' (letters, digits, "
                         "'-', '_', '.'; at most 100 characters)")
    try:
        text = req["yaml"].encode("utf-8")
    except UnicodeEncodeError:
        raise BadRequest("yaml: the text has a lone surrogate (not valid Unicode)") from None
    with pasted_folder("mj-serve") as (folder, builtin, prefixes):
        path = folder / name
        path.write_bytes(text)
        # `extends` may reach the built-in rulesets and fragments only (never a path of
        # this machine), and messages name files relative to those folders.
        rs, problems = check_file(path, roots=(folder.resolve(), builtin.resolve()))
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


_FILE_NAME = re.compile(r"[\w.-]{1,95}\.ya?ml")


def _strip(text: str, prefixes: list[str]) -> str:
    for prefix in prefixes:
        text = text.replace(prefix, "")
    return text


# --------------------------------------------------------------------------
# worker processes: API calls with a deadline and a memory limit

MAX_NARRATED = 10_000  # events of one hand /api/narrate says (docs/limits.md)

NARRATE_FIELDS: dict[str, tuple[tuple[type, ...], str]] = {
    "events": ((list,), "a list of events (one hand of an `mj simulate --log` file)"),
    "seat": ((int,), "a seat number, or null for everyone"),
    "lang": ((str,), "zh or en"),
}


def narrate(req: Any) -> dict[str, Any]:
    """The replay tab's words: each event of one hand as the tables say it (``lines``, one per
    event, "" for an event they say nothing of) to ``seat`` (null: a spectator), in ``lang``.

    The events come from an uploaded file: they are data, never trusted. Their ruleset is
    looked up by the id the hand_start gives among the known ids (no path is opened); an
    unknown one is narrated without its own words. An event the table cannot read is said as
    its type."""
    from .human import narration, ruleset_words
    from .words import LANGS, Words

    if not isinstance(req, dict):
        raise BadRequest("send a JSON object")
    _check_fields(req, NARRATE_FIELDS)
    events = req.get("events") or []
    if len(events) > MAX_NARRATED:
        raise BadRequest(f"events: at most {MAX_NARRATED} (one hand of a log)")
    for i, e in enumerate(events):
        if not isinstance(e, dict) or not isinstance(e.get("type"), str):
            raise BadRequest(f"events[{i}]: an event is an object with a type")
    lang = req.get("lang") or "zh"
    if lang not in LANGS:
        raise BadRequest(f"lang: one of {', '.join(LANGS)}, not {_short(lang)}")
    start = events[0] if events and events[0]["type"] == "hand_start" else {}
    rid = start.get("ruleset")
    rs = load_ruleset(rid) if isinstance(rid, str) and rid in available_rulesets() else None
    deal: dict[str, Any] = next((e for e in events if e["type"] == "deal"), {})
    hands = deal.get("hands")
    players = rs.players if rs is not None else (
        len(hands) if isinstance(hands, list) and 2 <= len(hands) <= 4 else 4)
    seat = _opt_seat(req.get("seat"), "seat", players)
    said = narration(events, seat, players, after_win=rs.win.after_win if rs is not None else "end",
                     scoring=rs.scoring if rs is not None else None, doubtful=True)
    words = Words(lang, ruleset_words(rs) if rs is not None else ())
    return {"lines": [words(x) for x in said], "ruleset": rs.id if rs is not None else None}


API_CALLS = {"score": score, "validate": validate, "narrate": narrate}


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
        from ..core.procs import remove_stale

        remove_stale(Path(tempfile.gettempdir()), "mj-serve-")  # the killed worker's temp folder

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
# HTTP, without a transport: :class:`Playground` turns a request into a response


Headers = Mapping[str, str] | Iterable[tuple[str, str]]
Response = tuple[int, list[tuple[str, str]], bytes]
_HOST_NAME = re.compile(r"[a-z0-9](?:[a-z0-9._-]*[a-z0-9])?")  # a registered name or an IPv4 address
_PORT = re.compile(r"[0-9]{1,5}")


def _web_dir() -> Path:
    return Path(str(resources.files("mjframework") / "web"))


def parse_host(value: str) -> str | None:
    """The host name in a ``Host`` header (``name``, ``name:port``, ``[v6]``, ``[v6]:port``), lowercased,
    or None when the header is not exactly that (``[::1].evil.example``, ``localhost:1@evil.example``)."""
    value = value.strip().lower()
    if value.startswith("["):
        inside, sep, rest = value[1:].partition("]")
        if not sep or (rest and not (rest[:1] == ":" and _PORT.fullmatch(rest[1:]))):
            return None
        try:
            return str(ipaddress.IPv6Address(inside))
        except ValueError:
            return None
    name, sep, port = value.partition(":")
    if (sep and not _PORT.fullmatch(port)) or not _HOST_NAME.fullmatch(name) or len(name) > 253:
        return None
    return name


def parse_origin(value: str) -> str | None:
    """The host name of an ``Origin`` header (``http://NAME[:PORT]``), or None if it is not one."""
    scheme, sep, rest = value.strip().partition("://")
    if not sep or scheme.lower() not in ("http", "https"):
        return None
    return parse_host(rest)


def _header_map(headers: Headers) -> dict[str, str]:
    """Header names lowercased; a repeated Host, Origin, Content-Length, type or token is a mistake."""
    items = headers.items() if isinstance(headers, Mapping) else headers
    out: dict[str, str] = {}
    for k, v in items:
        k = k.lower()
        if k in out and k in _SINGLE_HEADERS:
            raise BadRequest(f"the {k} header is sent twice")
        out[k] = v
    return out


_SINGLE_HEADERS = frozenset({"host", "origin", "content-length", "content-type", "transfer-encoding",
                             TOKEN_HEADER.lower()})


class Playground:
    """The playground's HTTP semantics with no transport.

    A transport (``mj serve``'s own server, or another framework's) calls
    :meth:`check_head` once the request line and headers are in: an answer
    means "send this and don't read the body"; None means "read
    :meth:`body_length` bytes, then call :meth:`dispatch`". :meth:`dispatch`
    alone is also safe: it repeats the head checks.
    """

    def __init__(self, pool: WorkerPool, allowed_hosts: frozenset[str], *, token: str | None = None,
                 options: dict[str, Any] | None = None, preset: str | None = None) -> None:
        self.pool, self.allowed_hosts = pool, allowed_hosts
        self.token = token or secrets.token_urlsafe(24)
        self.start_options, self.start_preset = dict(options or {}), preset

    # -- the head: who may ask, and how large a body may come
    def check_head(self, method: str, path: str, headers: Headers) -> Response | None:
        try:
            self._check_head(method, _header_map(headers))
        except Refused as e:
            return self.error(e.status, str(e))
        except MJError as e:
            return self.error(HTTPStatus.BAD_REQUEST, str(e))
        return None

    def body_length(self, headers: Headers) -> int:
        """The body's length, once :meth:`check_head` passed (0 for a request without one)."""
        return int(_header_map(headers).get("content-length", "0").strip() or 0)

    def _check_head(self, method: str, h: dict[str, str]) -> None:
        name = parse_host(h.get("host", ""))
        if name is None or name not in self.allowed_hosts:
            raise Refused(HTTPStatus.FORBIDDEN, "this playground answers only to localhost "
                          "(or the --host it was started with)")
        origin = h.get("origin")
        if origin and origin != "null" and parse_origin(origin) not in self.allowed_hosts:
            raise Refused(HTTPStatus.FORBIDDEN, "requests from other sites are refused")
        if method not in ("GET", "HEAD", "POST"):
            raise Refused(HTTPStatus.METHOD_NOT_ALLOWED, f"method {method[:20]!r} not allowed")
        if h.get("transfer-encoding"):
            raise Refused(HTTPStatus.LENGTH_REQUIRED, "send the body with a Content-Length")
        raw_length = h.get("content-length")
        if method != "POST":
            if raw_length not in (None, "0"):
                raise BadRequest(f"a {method} request has no body")
            return
        ctype = h.get("content-type", "").split(";")[0].strip().lower()
        if ctype != "application/json":
            raise Refused(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, "send JSON (Content-Type: application/json)")
        token = h.get(TOKEN_HEADER.lower(), "")
        if not hmac.compare_digest(token.encode("utf-8", "replace"), self.token.encode()):
            raise Refused(HTTPStatus.FORBIDDEN, "missing or wrong token: reload the playground's page")
        if raw_length is None:
            raise Refused(HTTPStatus.LENGTH_REQUIRED, "a request body needs a Content-Length")
        raw_length = raw_length.strip()
        if not raw_length.isascii() or not raw_length.isdigit():
            raise BadRequest("bad Content-Length")
        if len(raw_length) > 12 or int(raw_length) > MAX_BODY:
            raise Refused(HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
                          f"request too large ({raw_length[:20]} bytes; at most {MAX_BODY})")

    # -- the whole request
    def dispatch(self, method: str, path: str, headers: Headers, body: bytes = b"") -> Response:
        """Answer one request: ``(status, headers, body)``. Never raises for a client's mistake."""
        try:
            h = _header_map(headers)
            self._check_head(method, h)
            if len(body) != self.body_length(h):
                raise BadRequest("the request body is not as long as its Content-Length")
            if method == "POST":
                status, out_headers, out = self._post(path, body)
            else:
                status, out_headers, out = self._get(path)
        except Refused as e:
            return self.error(e.status, str(e))
        except MJError as e:
            return self.error(HTTPStatus.BAD_REQUEST, str(e))
        except Exception as e:  # a bug: logged with an id; the answer carries only the id
            ref = secrets.token_hex(4)
            detail = str(e) if isinstance(e, _WorkerBug) else traceback.format_exc()
            print(f"mj serve: internal error {ref}:\n{detail}", file=sys.stderr)
            return self.error(HTTPStatus.INTERNAL_SERVER_ERROR,
                               f"internal error (id {ref}; the details are in the server's log)")
        if method == "HEAD":
            out = b""
        return status, out_headers, out

    @staticmethod
    def _answer(status: int, body: bytes, ctype: str) -> Response:
        return status, [("Content-Type", ctype), ("Content-Length", str(len(body))),
                        ("Cache-Control", "no-store"), ("X-Content-Type-Options", "nosniff")], body

    def _json(self, data: Any, status: int = 200) -> Response:
        # (a lone surrogate a request sent, quoted back, goes out as its JSON escape)
        return self._answer(status, json.dumps(data, ensure_ascii=False).encode("utf-8", "backslashreplace"),
                            "application/json; charset=utf-8")

    def error(self, status: int, message: str) -> Response:
        """An answer ``{"error": message}`` (for a transport's own refusals: 408, 431, 503)."""
        return self._json({"error": message}, status)

    def _get(self, path: str) -> Response:
        url = urlsplit(path)
        try:
            multi = parse_qs(url.query, max_num_fields=64)
        except ValueError:
            raise BadRequest("too many query fields") from None
        query = {k: v[-1] for k, v in multi.items()}
        route = url.path
        if route == "/api/rulesets":
            return self._json({"rulesets": list_rulesets(self.start_options, self.start_preset)})
        if route == "/api/ruleset-source":
            rid = query.get("ruleset")
            return self._json({"ruleset": rid, "name": f"{rid}.yaml", "yaml": ruleset_source(rid)})
        if route == "/api/card":
            sets = {}
            for item in multi.get("set", []):
                name, sep, value = item.partition("=")
                if not sep:
                    raise BadRequest(f"set {item!r}: write NAME=VALUE")
                sets[name] = value
            card = rule_card(query.get("ruleset"), sets, query.get("preset"))
            return self._answer(200, card.encode(), "text/html; charset=utf-8")
        if route in ("/", "/index.html") or route.lstrip("/") in STATIC_FILES:
            name = "index.html" if route == "/" else route.lstrip("/")
            ctype = mimetypes.guess_type(name)[0] or "application/octet-stream"
            if ctype.startswith("text/") or ctype.endswith("javascript"):
                ctype += "; charset=utf-8"
            body = (_web_dir() / name).read_bytes()
            if name == "index.html":  # the page carries this launch's token for its POSTs
                meta = b'<meta name="mj-token" content="' + self.token.encode() + b'">'
                body = body.replace(b'<meta charset="utf-8">', b'<meta charset="utf-8">\n' + meta, 1)
            return self._answer(200, body, ctype)
        if route == "/favicon.ico":
            return self._answer(204, b"", "image/x-icon")
        return self.error(HTTPStatus.NOT_FOUND, f"no such page: {route[:200]}")

    def _post(self, path: str, body: bytes) -> Response:
        route = urlsplit(path).path
        if route not in ("/api/score", "/api/validate", "/api/narrate"):
            return self.error(HTTPStatus.NOT_FOUND, f"no such endpoint: POST {route[:200]}")
        try:
            req = json.loads(body.decode("utf-8") or "null")
        except (ValueError, RecursionError) as e:  # (not UTF-8, not JSON, an integer of 5,000 digits)
            raise BadRequest(f"the request body is not JSON: {str(e)[:200]}") from None
        return self._json(self.pool.call(route.rsplit("/", 1)[1], req))


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


# --------------------------------------------------------------------------
# the transport: one thread does all socket I/O, a few threads compute answers


class _Conn:
    """One client connection, as the I/O loop sees it."""

    __slots__ = ("addr", "body_len", "deadline", "head", "inbuf", "keep", "outbuf", "sock", "state")

    def __init__(self, sock: socket.socket, addr: Any, deadline: float) -> None:
        self.sock, self.addr, self.deadline = sock, addr, deadline
        self.inbuf = bytearray()
        self.outbuf = b""
        self.state = "head"  # head → body → busy → write → (head again, or closed)
        self.head: tuple[str, str, str, list[tuple[str, str]]] | None = None
        self.body_len = 0
        self.keep = False


_HEAD_END = re.compile(rb"\r?\n\r?\n")


def _parse_head(raw: bytes) -> tuple[str, str, str, list[tuple[str, str]]]:
    """``(method, target, version, headers)`` of a request head; :class:`BadRequest` if it is not one."""
    lines = raw.decode("latin-1").replace("\r\n", "\n").split("\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or parts[2] not in ("HTTP/1.0", "HTTP/1.1") or not parts[0].isalpha() \
            or not parts[1].startswith("/"):
        raise BadRequest("malformed request line")
    if len(lines) > MAX_HEADERS + 1:
        raise Refused(HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, f"more than {MAX_HEADERS} headers")
    headers = []
    for line in lines[1:]:
        name, sep, value = line.partition(":")
        if not sep or not name or name != name.strip() or any(c in name for c in " \t\x00"):
            raise BadRequest("malformed header line")
        if any(ord(c) < 32 and c != "\t" for c in value):
            raise BadRequest("a control character in a header")
        headers.append((name, value.strip()))
    return parts[0], parts[1], parts[2], headers


class PlaygroundServer:
    """``mj serve``'s HTTP/1.1 transport for a :class:`Playground`.

    Slow clients can't starve it: one thread reads and writes every socket
    without blocking, and a request reaches the answering threads only once
    it is complete. A request's head must arrive within :data:`HEAD_TIMEOUT`
    of its first byte being awaited, its body within :data:`BODY_TIMEOUT`,
    its answer be taken within :data:`SEND_TIMEOUT`. At most
    :data:`MAX_CONNECTIONS` connections are open (:data:`MAX_PER_CLIENT` per
    client address); a new one beyond either closes the oldest that is still
    waiting for its request, so idle or drip-feeding sockets can't lock
    anyone out. Complete requests beyond :data:`THREADS` + :data:`QUEUED` get
    503 at once.
    """

    def __init__(self, address: tuple[str, int], app: Playground, *, threads: int = THREADS,
                 quiet: bool = False) -> None:
        family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
        self.socket = socket.socket(family, socket.SOCK_STREAM)
        try:
            self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            self.socket.bind(address)
            self.socket.listen(128)
            self.socket.setblocking(False)
        except BaseException:
            self.socket.close()
            raise
        self.server_address: tuple[str, int] = self.socket.getsockname()[:2]
        self.app, self.quiet = app, quiet
        self.head_timeout, self.body_timeout, self.send_timeout = HEAD_TIMEOUT, BODY_TIMEOUT, SEND_TIMEOUT
        self.max_connections, self.max_per_client = MAX_CONNECTIONS, MAX_PER_CLIENT
        self.max_inflight = threads + QUEUED
        self._threads = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="mj-serve")
        self._conns: dict[socket.socket, _Conn] = {}  # every open connection
        self._waiting: dict[socket.socket, _Conn] = {}  # those awaiting a request, oldest first
        self._inflight = 0
        self._done: queue.SimpleQueue[tuple[_Conn, Response]] = queue.SimpleQueue()
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._wake_w.setblocking(False)
        self._sel = selectors.DefaultSelector()
        self._stop = threading.Event()
        self._stopped = threading.Event()
        self._stopped.set()
        self._closed = False

    @property
    def token(self) -> str:
        return self.app.token

    @property
    def pool(self) -> WorkerPool:
        return self.app.pool

    def open_connections(self) -> int:
        return len(self._conns)

    # -- the loop
    def serve_forever(self, poll_interval: float = 0.5) -> None:
        self._stop.clear()
        self._stopped.clear()
        sel = self._sel
        sel.register(self.socket, selectors.EVENT_READ, "listen")
        sel.register(self._wake_r, selectors.EVENT_READ, "wake")
        try:
            while not self._stop.is_set():
                now = time.monotonic()
                timeout = poll_interval
                deadlines = [c.deadline for c in self._conns.values() if c.state != "busy"]
                if deadlines:  # (a request being answered has no deadline here: the worker pool's applies)
                    timeout = max(0.0, min(timeout, min(deadlines) - now))
                for key, events in sel.select(timeout):
                    if key.data == "listen":
                        self._accept()
                    elif key.data == "wake":
                        with contextlib.suppress(OSError):
                            while self._wake_r.recv(4096):
                                pass
                    else:
                        conn = key.data
                        try:
                            if events & selectors.EVENT_READ:
                                self._read(conn)
                            elif events & selectors.EVENT_WRITE:
                                self._write(conn)
                        except Exception:  # a bug: this connection is dropped, the server goes on
                            self._drop_on_bug(conn)
                while True:
                    try:
                        conn, response = self._done.get_nowait()
                    except queue.Empty:
                        break
                    self._inflight -= 1
                    try:
                        self._respond(conn, response)
                    except Exception:
                        self._drop_on_bug(conn)
                now = time.monotonic()
                for conn in [c for c in self._conns.values() if c.deadline <= now and c.state != "busy"]:
                    try:
                        if conn.state in ("head", "body") and (conn.inbuf or conn.state == "body"):
                            self._refuse(conn, HTTPStatus.REQUEST_TIMEOUT, "the request came too slowly")
                        else:
                            self._close(conn)
                    except Exception:
                        self._drop_on_bug(conn)
        finally:
            for conn in list(self._conns.values()):
                self._close(conn)
            with contextlib.suppress(KeyError, ValueError):
                sel.unregister(self.socket)
            with contextlib.suppress(KeyError, ValueError):
                sel.unregister(self._wake_r)
            self._stopped.set()

    def _drop_on_bug(self, conn: _Conn) -> None:
        print(f"mj serve: internal error:\n{traceback.format_exc()}", file=sys.stderr)
        self._close(conn)

    def shutdown(self) -> None:
        """Stop :meth:`serve_forever` (from another thread) and wait until it has."""
        self._stop.set()
        self._wake()
        self._stopped.wait()

    def server_close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._stop.set()
        self._wake()
        self.socket.close()
        self._threads.shutdown(wait=False, cancel_futures=True)
        self.app.pool.close()
        for s in (self._wake_r, self._wake_w):
            s.close()
        self._sel.close()

    def _wake(self) -> None:
        with contextlib.suppress(OSError):
            self._wake_w.send(b"x")

    # -- connections
    def _accept(self) -> None:
        for _ in range(64):  # a burst at a time: the loop must go on serving the others
            try:
                sock, addr = self.socket.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError:  # out of descriptors, or the client already gone
                return
            sock.setblocking(False)
            client = addr[0]
            mine = [c for c in self._waiting.values() if c.addr[0] == client]
            if len(mine) >= self.max_per_client:
                self._close(mine[0])
            if len(self._conns) >= self.max_connections and self._waiting:
                self._close(next(iter(self._waiting.values())))
            if len(self._conns) >= self.max_connections:  # all busy answering: no room
                with contextlib.suppress(OSError):
                    sock.send(b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n"
                              b"Connection: close\r\n\r\n")
                sock.close()
                continue
            conn = _Conn(sock, addr, time.monotonic() + self.head_timeout)
            self._conns[sock] = conn
            self._waiting[sock] = conn
            self._sel.register(sock, selectors.EVENT_READ, conn)

    def _close(self, conn: _Conn) -> None:
        self._conns.pop(conn.sock, None)
        self._waiting.pop(conn.sock, None)
        with contextlib.suppress(KeyError, ValueError):
            self._sel.unregister(conn.sock)
        with contextlib.suppress(OSError):
            conn.sock.close()

    def _read(self, conn: _Conn) -> None:
        try:
            data = conn.sock.recv(65536)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:
            self._close(conn)
            return
        conn.inbuf += data
        self._advance(conn)

    def _advance(self, conn: _Conn) -> None:
        """Parse what has come in; hand a complete request to a thread."""
        if conn.state == "head":
            m = _HEAD_END.search(conn.inbuf, 0, MAX_HEAD + 4)
            if m is None:
                if len(conn.inbuf) > MAX_HEAD:
                    self._refuse(conn, HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE,
                                 f"the request head is larger than {MAX_HEAD} bytes")
                return
            raw = bytes(conn.inbuf[:m.start()])
            del conn.inbuf[:m.end()]
            try:
                conn.head = _parse_head(raw)
            except Refused as e:
                self._refuse(conn, e.status, str(e))
                return
            except MJError as e:
                self._refuse(conn, HTTPStatus.BAD_REQUEST, str(e))
                return
            method, target, version, headers = conn.head
            answer = self.app.check_head(method, target, headers)
            if answer is not None:
                self._respond(conn, answer, close=True)
                return
            h = {k.lower(): v.lower() for k, v in headers}
            conn.keep = version == "HTTP/1.1" and h.get("connection") != "close"
            conn.body_len = self.app.body_length(headers)
            conn.state = "body"
            conn.deadline = time.monotonic() + self.body_timeout
            if conn.body_len and h.get("expect") == "100-continue" and len(conn.inbuf) < conn.body_len:
                with contextlib.suppress(OSError):
                    conn.sock.send(b"HTTP/1.1 100 Continue\r\n\r\n")
        if conn.state == "body" and len(conn.inbuf) >= conn.body_len:
            assert conn.head is not None
            body = bytes(conn.inbuf[:conn.body_len])
            del conn.inbuf[:conn.body_len]
            self._waiting.pop(conn.sock, None)
            with contextlib.suppress(KeyError, ValueError):
                self._sel.unregister(conn.sock)
            if self._inflight >= self.max_inflight:
                self._respond(conn, self.app.error(HTTPStatus.SERVICE_UNAVAILABLE,
                                                    "the playground is busy: try again"), close=True)
                return
            conn.state = "busy"
            self._inflight += 1
            method, target, _, headers = conn.head
            try:
                self._threads.submit(self._answer, conn, method, target, headers, body)
            except RuntimeError:  # shutting down
                self._inflight -= 1
                self._close(conn)

    def _answer(self, conn: _Conn, method: str, target: str, headers: list[tuple[str, str]],
                body: bytes) -> None:
        """(In a thread.) Compute the answer; the loop sends it."""
        try:
            response = self.app.dispatch(method, target, headers, body)
        except Exception:  # (dispatch answers every error itself: this is a last resort)
            response = self.app.error(HTTPStatus.INTERNAL_SERVER_ERROR, "internal error")
            print(f"mj serve: internal error:\n{traceback.format_exc()}", file=sys.stderr)
        if not self.quiet:
            print(f"{conn.addr[0]} - - [{time.strftime('%d/%b/%Y %H:%M:%S')}] "
                  f"\"{method} {target[:200]!r}\" {response[0]} -", file=sys.stderr)
        self._done.put((conn, response))
        self._wake()

    def _refuse(self, conn: _Conn, status: int, message: str) -> None:
        self._respond(conn, self.app.error(status, message), close=True)

    def _respond(self, conn: _Conn, response: Response, *, close: bool = False) -> None:
        if conn.sock not in self._conns:
            return
        status, headers, body = response
        keep = conn.keep and not close
        try:
            phrase = HTTPStatus(status).phrase
        except ValueError:
            phrase = "Status"
        lines = [f"HTTP/1.1 {status} {phrase}", "Server: mj-serve/1",
                 *(f"{k}: {v}" for k, v in headers), f"Connection: {'keep-alive' if keep else 'close'}"]
        conn.outbuf = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body
        conn.keep = keep
        conn.state = "write"
        conn.deadline = time.monotonic() + self.send_timeout
        self._waiting.pop(conn.sock, None)
        with contextlib.suppress(KeyError, ValueError):
            self._sel.unregister(conn.sock)
        self._sel.register(conn.sock, selectors.EVENT_WRITE, conn)
        self._write(conn)

    def _write(self, conn: _Conn) -> None:
        try:
            sent = conn.sock.send(conn.outbuf)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            self._close(conn)
            return
        conn.outbuf = conn.outbuf[sent:]
        if conn.outbuf:
            return
        if not conn.keep:
            with contextlib.suppress(OSError):
                conn.sock.shutdown(socket.SHUT_WR)
            self._close(conn)
            return
        # keep-alive: wait for the next request (possibly already here, pipelined)
        conn.state, conn.head, conn.body_len = "head", None, 0
        conn.deadline = time.monotonic() + self.head_timeout
        self._waiting[conn.sock] = conn
        self._sel.modify(conn.sock, selectors.EVENT_READ, conn)
        if conn.inbuf:
            self._advance(conn)


def make_server(host: str = "127.0.0.1", port: int = 8000, *, quiet: bool = False,
                options: dict[str, Any] | None = None, preset: str | None = None, threads: int = THREADS,
                workers: int = WORKERS, deadline: float = DEADLINE,
                worker_memory_mb: int = WORKER_MEMORY_MB) -> PlaygroundServer:
    """A ready server (port 0 picks a free one: read ``server.server_address``; ``server.token``
    is what POSTs must send in ``X-MJ-Token``). Call ``server_close()`` to stop its workers.

    ``options`` / ``preset``: house-rule option values the page starts with, for every
    ruleset that declares them; one no ruleset declares is an error (:class:`BadRequest`).
    """
    app = make_playground(host, options=options, preset=preset, workers=workers, deadline=deadline,
                          worker_memory_mb=worker_memory_mb)
    try:
        return PlaygroundServer((host, port), app, threads=threads, quiet=quiet)
    except BaseException:
        app.pool.close()
        raise


def make_playground(host: str = "127.0.0.1", *, options: dict[str, Any] | None = None,
                    preset: str | None = None, workers: int = WORKERS, deadline: float = DEADLINE,
                    worker_memory_mb: int = WORKER_MEMORY_MB) -> Playground:
    """The playground's API for any transport: its Host names are those of a server bound to
    ``host``; call ``app.pool.close()`` when done, to stop its worker processes."""
    check_start_options(options or {}, preset)
    return Playground(WorkerPool(workers, deadline, worker_memory_mb), _host_names(host),
                      options=options, preset=preset)


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


__all__ = ["Playground", "PlaygroundServer", "WorkerPool", "check_start_options", "is_loopback",
           "list_rulesets", "make_playground", "make_server", "parse_host", "parse_origin", "rule_card",
           "ruleset_source", "score", "validate"]
