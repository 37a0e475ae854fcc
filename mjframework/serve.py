"""``mj serve``: a local web playground on the standard library alone.

:func:`make_server` returns a :class:`http.server.ThreadingHTTPServer` that
serves the static page in ``mjframework/web/`` and a small JSON API:

=====================================  ===============================================
``GET  /``                             the page (``index.html``, ``app.js``, ``style.css``)
``GET  /api/rulesets``                 built-in rulesets: id, name, tile kinds, wildcard
``GET  /api/ruleset-source?ruleset=``  the ruleset's YAML text
``GET  /api/card?ruleset=``            the HTML rule card (``mj doc --format html``)
``POST /api/score``                    score a hand (the same inputs as ``mj score``)
``POST /api/validate``                 check YAML text; located problems
=====================================  ===============================================

A request the user got wrong (a bad hand, an unknown ruleset, malformed JSON)
answers HTTP 400 with ``{"error": "..."}``; the server keeps running. Only the
built-in rulesets are served by id: the API never opens a path it is given.
"""

from __future__ import annotations

import json
import mimetypes
import os
import shutil
import sys
import tempfile
import traceback
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from .conformance import context_value, describe_reading
from .errors import HandError, MJError
from .hand import WinContext, make_hand
from .model import FLAGS, WIN_BY
from .ruleset import available_rulesets, builtin_rulesets_dir, check_file, load_ruleset
from .scoring import Evaluator
from .tiles import TileParseError, format_tiles, parse_tile, tile_code, tile_emoji, tile_name

MAX_BODY = 1 << 20  # 1 MiB: a ruleset is a few kB
SEAT_NAMES = ("庄家", "下家", "对家", "上家")
STATIC_FILES = ("index.html", "app.js", "style.css", "replay.js")


class BadRequest(MJError):
    """A request the API can't act on (400)."""


# --------------------------------------------------------------------------
# the API, as plain functions (JSON in, JSON out) so they can be tested alone


def _ruleset_id(value: Any) -> str:
    known = available_rulesets()
    if not isinstance(value, str) or value not in known:
        raise BadRequest(f"no ruleset {value!r} (built-in ids: {', '.join(known) or 'none'})")
    return value


def _tile_info(t: int) -> dict[str, Any]:
    return {"code": tile_code(t), "name": tile_name(t), "emoji": tile_emoji(t)}


def list_rulesets() -> list[dict[str, Any]]:
    """Every built-in ruleset that loads, with what the page needs to draw a palette."""
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
    return out


def ruleset_source(rid: Any) -> str:
    return available_rulesets()[_ruleset_id(rid)].read_text(encoding="utf-8")


def rule_card(rid: Any) -> str:
    from .rulecard import build_card, render  # the card search is only paid for when asked

    return render(build_card(load_ruleset(_ruleset_id(rid))), "html")


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
    ev = Evaluator(load_ruleset(_ruleset_id(req.get("ruleset"))))
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
    extra = {str(k): context_value(v) for k, v in extra_in.items()}
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
        "ruleset": ev.ruleset.id, "win": s.win, "reason": s.reason,
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
    with tempfile.TemporaryDirectory(prefix="mj-serve-") as tmp:
        folder = Path(tmp)
        frags = builtin / "fragments"
        if frags.is_dir():
            try:
                (folder / "fragments").symlink_to(frags, target_is_directory=True)
            except OSError:  # no symlinks (Windows without the privilege): copy
                shutil.copytree(frags, folder / "fragments")
        path = folder / name
        path.write_text(req["yaml"], encoding="utf-8")
        rs, problems = check_file(path)
        prefix = str(folder) + os.sep
        out = []
        for p in problems:
            loc = p.location
            file = None
            if loc is not None:
                file = loc.file[len(prefix):] if loc.file.startswith(prefix) else loc.file
            text = str(p).replace(prefix, "")
            out.append({
                "file": file, "line": loc.line if loc else None, "column": loc.column if loc else None,
                "in_editor": file == name, "message": p.message,
                "path": list(map(str, p.path)), "text": text,
            })
    return {"ok": not problems, "problems": out,
            "summary": rs.summary() if rs is not None else None}


# --------------------------------------------------------------------------
# HTTP


def _web_dir() -> Path:
    return Path(str(resources.files("mjframework") / "web"))


class Handler(BaseHTTPRequestHandler):
    server_version = "mj-serve/1"
    quiet = False

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
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            raise BadRequest("bad Content-Length") from None
        if length > MAX_BODY:
            raise BadRequest(f"request too large ({length} bytes; at most {MAX_BODY})")
        raw = self.rfile.read(length) if length else b""
        try:
            return json.loads(raw.decode("utf-8") or "null")
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise BadRequest(f"the request body is not JSON: {e}") from None

    def _dispatch(self, fn: Any) -> None:
        try:
            fn()
        except MJError as e:
            self._error(HTTPStatus.BAD_REQUEST, str(e))
        except Exception as e:  # a bug: report it, keep serving
            traceback.print_exc(file=sys.stderr)
            self._error(HTTPStatus.INTERNAL_SERVER_ERROR, f"internal error: {type(e).__name__}: {e}")

    # -- routes
    def do_GET(self) -> None:
        self._dispatch(self._get)

    do_HEAD = do_GET

    def do_POST(self) -> None:
        self._dispatch(self._post)

    def _get(self) -> None:
        url = urlsplit(self.path)
        query = {k: v[-1] for k, v in parse_qs(url.query).items()}
        route = url.path
        if route == "/api/rulesets":
            self._json({"rulesets": list_rulesets()})
        elif route == "/api/ruleset-source":
            rid = query.get("ruleset")
            self._json({"ruleset": rid, "name": f"{rid}.yaml", "yaml": ruleset_source(rid)})
        elif route == "/api/card":
            self._send(200, rule_card(query.get("ruleset")).encode(), "text/html; charset=utf-8")
        elif route in ("/", "/index.html") or route.lstrip("/") in STATIC_FILES:
            name = "index.html" if route == "/" else route.lstrip("/")
            f = _web_dir() / name
            ctype = mimetypes.guess_type(name)[0] or "application/octet-stream"
            if ctype.startswith("text/") or ctype.endswith("javascript"):
                ctype += "; charset=utf-8"
            self._send(200, f.read_bytes(), ctype)
        elif route == "/favicon.ico":
            self._send(204, b"", "image/x-icon")
        else:
            self._error(HTTPStatus.NOT_FOUND, f"no such page: {route}")

    def _post(self) -> None:
        route = urlsplit(self.path).path
        if route == "/api/score":
            self._json(score(self._body()))
        elif route == "/api/validate":
            self._json(validate(self._body()))
        else:
            self._error(HTTPStatus.NOT_FOUND, f"no such endpoint: POST {route}")


def make_server(host: str = "127.0.0.1", port: int = 8000, *, quiet: bool = False) -> ThreadingHTTPServer:
    """A ready server (port 0 picks a free one: read ``server.server_address``)."""
    handler = type("QuietHandler" if quiet else "Handler", (Handler,), {"quiet": quiet})
    server = ThreadingHTTPServer((host, port), handler)
    server.daemon_threads = True
    return server


__all__ = ["list_rulesets", "make_server", "rule_card", "ruleset_source", "score", "validate"]
