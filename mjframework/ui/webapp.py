"""``mj serve --rooms``: the playground, browser play and rooms on Starlette + uvicorn.

The optional ``web`` extra (``pip install 'mjframework[web]'``) brings an
async web stack with WebSockets. :func:`make_app` builds one ASGI app that

- serves the playground as ``mj serve`` does: every request it does not
  route itself goes to :meth:`mjframework.ui.serve.Playground.dispatch`, with
  the same Host/Origin/token checks and limits;
- serves the table page (``/play``: ``mjframework/web/play.*``, tile faces
  drawn in SVG by ``tiles.js``);
- opens rooms (``POST /api/rooms``) and plays them over WebSockets
  (``/ws/ROOM?token=SEAT_TOKEN``), each seat getting only its own view
  (:mod:`mjframework.ui.rooms`);
- lists a room's kept hands and gives any of them to a seat of that room,
  masked for that seat (``GET /api/rooms/ROOM/hands?token=…``,
  ``…/hands/ID?token=…``), from the records file
  (:mod:`mjframework.run.records`).

Safety, as the playground's (docs/limits.md): bound to localhost unless
told otherwise; the Host header (and an Origin, when sent, WebSockets
included) must name this server; opening a room needs the page's token; a
seat needs its own unguessable token (the invite link); request bodies are
at most :data:`~mjframework.ui.serve.MAX_BODY` bytes, WebSocket messages
at most :data:`MAX_MESSAGE` bytes and :data:`MAX_RATE` a second; at most
:data:`MAX_ROOMS` rooms are open at once; pasted YAML is first checked in the
playground's worker processes (time and memory limits) and its ``extends``
reaches only the built-in rulesets; no path is ever taken from a request.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from ..core.errors import MJError, RulesetError
from .human import ruleset_words
from .rooms import MAX_HANDS, Room, SeatSlot, in_language
from .serve import MAX_BODY, Playground, make_playground, parse_host, parse_origin, pasted_folder
from .words import Words

MAX_ROOMS = 16  # rooms open at once (a finished room is dropped after ROOM_LINGER seconds)
ROOM_LINGER = 3600.0
MAX_MESSAGE = 4096  # bytes of one WebSocket message from a player
MAX_RATE = 20  # messages a second from one connection (over a 5-second window)
MAX_SOCKETS_PER_SEAT = 4
DEFAULT_AWAY = 60.0  # seconds a seat may be away before a bot plays it
PLAY_FILES = {"play.html": "text/html; charset=utf-8", "play.js": "text/javascript; charset=utf-8",
              "tiles.js": "text/javascript; charset=utf-8", "play.css": "text/css; charset=utf-8"}


class RoomError(MJError):
    """A room request the user got wrong (answered 400 with the message)."""


def _web_dir() -> Path:
    return Path(__file__).resolve().parent.parent / "web"


def load_pasted(text: str, options: dict[str, Any] | None, preset: str | None) -> Any:
    """A ruleset from YAML text, as the playground checks it: ``extends`` reaches only the
    built-in rulesets and fragments, and messages name no path of this machine."""
    from ..rules.loader import check_file

    with pasted_folder("mj-room") as (folder, builtin, prefixes):
        path = folder / "ruleset.yaml"
        path.write_text(text, encoding="utf-8")
        rs, problems = check_file(path, options=options, preset=preset,
                                  roots=(folder.resolve(), builtin.resolve()))
        if problems or rs is None:
            first = str(problems[0]) if problems else "not a whole ruleset (a fragment?)"
            for prefix in prefixes:
                first = first.replace(prefix, "")
            raise RoomError(f"the ruleset has problems: {first}"
                            + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""))
    return rs


class Rooms:
    """The server's rooms, and how they are opened."""

    def __init__(self, playground: Playground, *, store: Any = None, bot_pause: float = 0.4,
                 max_rooms: int = MAX_ROOMS, policies: dict[str, Any] | None = None) -> None:
        self.playground = playground
        #: Trained policies the bots' seats may take, by name (``mj serve --bot NAME=FILE``:
        #: loaded by the server at its start; a request names one, never a path).
        self.policies = dict(policies or {})
        self.store = store
        self.bot_pause = bot_pause
        self.max_rooms = max_rooms
        self.rooms: dict[str, Room] = {}
        self._finished_at: dict[str, float] = {}

    def _tidy(self) -> None:
        now = time.monotonic()
        for rid, room in list(self.rooms.items()):
            if room.finished.is_set():
                at = self._finished_at.setdefault(rid, now)
                if now - at > ROOM_LINGER:
                    del self.rooms[rid]
                    self._finished_at.pop(rid, None)

    def open(self, req: Any) -> dict[str, Any]:
        """Open a room from a request body (see docs/play-online.md); runs in a worker thread."""
        from ..evaluate.scoring import Evaluator
        from ..evaluate.wintable import ensure_tables
        from ..rules.loader import available_rulesets
        from ..run.simulate import load_cached

        if not isinstance(req, dict):
            raise RoomError('send a JSON object: {"ruleset": ID} or {"yaml": TEXT}, "humans": N …')
        self._tidy()
        if sum(not r.finished.is_set() for r in self.rooms.values()) >= self.max_rooms:
            raise RoomError(f"{self.max_rooms} rooms are open: wait for one to finish")
        options = req.get("options") or {}
        preset = req.get("preset") or None
        if not isinstance(options, dict) or not all(isinstance(k, str) for k in options):
            raise RoomError("options: an object of NAME: VALUE")
        if preset is not None and not isinstance(preset, str):
            raise RoomError("preset: a name")
        if isinstance(req.get("yaml"), str):
            text = req["yaml"]
            if len(text.encode("utf-8")) > MAX_BODY:
                raise RoomError(f"the ruleset is too large (at most {MAX_BODY} bytes)")
            checked = self.playground.pool.call("validate", {"yaml": text})  # time and memory bounded
            if not checked.get("ok"):
                first = (checked.get("problems") or [{"text": "invalid"}])[0]
                raise RoomError(f"the ruleset has problems: {first.get('text')}")
            rs = load_pasted(text, options, preset)
            ev = Evaluator(rs)
            ensure_tables()
        else:
            rid = req.get("ruleset")
            if not isinstance(rid, str) or rid not in available_rulesets():
                raise RoomError(f"ruleset: one of {', '.join(available_rulesets())}, "
                                "or send its YAML as yaml")
            rs, ev = load_cached(rid, options, preset)
        n = rs.players
        humans = req.get("humans", 1)
        if isinstance(humans, bool) or not isinstance(humans, int) or not 0 <= humans <= n:
            raise RoomError(f"humans: a number of people, 0 to {n}")
        hands = req.get("hands", 1)
        if isinstance(hands, bool) or not isinstance(hands, int) or not 1 <= hands <= MAX_HANDS:
            raise RoomError(f"hands: 1 to {MAX_HANDS}")
        away = req.get("away_timeout", DEFAULT_AWAY)
        if isinstance(away, bool) or not isinstance(away, int | float) or not 0 <= away <= 3600:
            raise RoomError("away_timeout: seconds, 0 to 3600")
        seed = req.get("seed")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)
                                 or not 0 <= seed < 2**63):
            raise RoomError("seed: a whole number 0 or more")
        names_in = req.get("names") or []
        if not isinstance(names_in, list) or not all(isinstance(x, str) for x in names_in):
            raise RoomError("names: a list of the people's names")
        names = {s: names_in[s][:32] for s in range(min(humans, len(names_in))) if names_in[s].strip()}
        bot = req.get("bot", "greedy")
        if bot != "greedy" and (not isinstance(bot, str) or bot not in self.policies):
            raise RoomError(f"bot: one of {', '.join(['greedy', *self.policies])}")
        pause = req.get("bot_pause", self.bot_pause)
        if isinstance(pause, bool) or not isinstance(pause, int | float) or not 0 <= pause <= 5:
            raise RoomError("bot_pause: seconds, 0 to 5")
        room = Room(rs, ev, humans=list(range(humans)), names=names, seed=seed, hands=hands,
                    away_timeout=float(away), bot_pause=float(pause), store=self.store,
                    policy=(bot, self.policies[bot]) if bot != "greedy" else None)
        self.rooms[room.id] = room
        room.start()
        return {"room": room.id, "ruleset": {"id": rs.id, "name": rs.name}, "seed": room.seed,
                "players": n, "hands": hands, "away_timeout": room.away_timeout,
                "seats": [{"seat": s.seat, "human": s.human, "name": s.name,
                           **({"token": s.token, "url": f"/play?room={room.id}&token={quote(s.token)}"}
                              if s.human else {})} for s in room.seats]}

    def close(self) -> None:
        for room in self.rooms.values():
            room.close()


def make_app(host: str = "127.0.0.1", *, options: dict[str, Any] | None = None, preset: str | None = None,
             store: Any = None, bot_pause: float = 0.4, playground: Playground | None = None,
             max_rooms: int = MAX_ROOMS, policies: dict[str, Any] | None = None) -> Starlette:
    """The ASGI app (``app.state.playground``, ``app.state.rooms``); close the playground's
    worker pool and the rooms when done (``app.state.close()``)."""
    pg = playground or make_playground(host, options=options, preset=preset)
    rooms = Rooms(pg, store=store, bot_pause=bot_pause, max_rooms=max_rooms, policies=policies)

    def host_ok(headers: Any) -> bool:
        name = parse_host(headers.get("host", ""))
        if name is None or name not in pg.allowed_hosts:
            return False
        origin = headers.get("origin")
        return not origin or origin == "null" or parse_origin(origin) in pg.allowed_hosts

    def refuse(status: int, message: str) -> JSONResponse:
        return JSONResponse({"error": message}, status_code=status, headers={"Cache-Control": "no-store"})

    async def playground_route(request: Request) -> Response:
        headers = list(request.headers.items())
        early = pg.check_head(request.method, request.url.path, headers)
        if early is not None:
            return _response(early)
        body = b""
        if request.method == "POST":
            body = await request.body()
        path = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        return _response(await run_in_threadpool(pg.dispatch, request.method, path, headers, body))

    async def play_file(request: Request) -> Response:
        if not host_ok(request.headers):
            return refuse(403, "this server answers only to the names it was started with")
        name = request.url.path.lstrip("/") or "play.html"
        name = "play.html" if name == "play" else name
        if name not in PLAY_FILES:
            return refuse(404, "no such page")
        body = (_web_dir() / name).read_bytes()
        if name == "play.html":  # the page carries this launch's token for its POSTs
            meta = b'<meta name="mj-token" content="' + pg.token.encode() + b'">'
            body = body.replace(b'<meta charset="utf-8">', b'<meta charset="utf-8">\n' + meta, 1)
        return Response(body, media_type=PLAY_FILES[name],
                        headers={"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"})

    async def open_room(request: Request) -> Response:
        headers = list(request.headers.items())
        early = pg.check_head("POST", request.url.path, headers)  # Host, Origin, JSON, token, length
        if early is not None:
            return _response(early)
        body = await request.body()
        if len(body) > MAX_BODY:
            return refuse(413, "request too large")
        try:
            req = json.loads(body.decode("utf-8") or "null")
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as e:
            return refuse(400, f"the request body is not JSON: {str(e)[:200]}")
        try:
            out = await run_in_threadpool(rooms.open, req)
        except RulesetError as e:
            first = str(e.problems[0].message) if e.problems else str(e)
            return refuse(400, f"the ruleset has problems: {first}")
        except MJError as e:
            return refuse(e.status if hasattr(e, "status") else 400, str(e))
        except ValueError as e:
            return refuse(400, str(e))
        return JSONResponse(out, headers={"Cache-Control": "no-store"})

    def seat_for(request: Request | WebSocket) -> tuple[Room, SeatSlot] | None:
        room = rooms.rooms.get(request.path_params.get("room", ""))
        token = request.query_params.get("token", "")
        if room is None or not token or len(token) > 100:
            return None
        slot = room.seat_of(token)
        return None if slot is None else (room, slot)

    async def bot_list(request: Request) -> Response:
        if not host_ok(request.headers):
            return refuse(403, "this server answers only to the names it was started with")
        return JSONResponse({"bots": ["greedy", *rooms.policies]}, headers={"Cache-Control": "no-store"})

    async def room_info(request: Request) -> Response:
        if not host_ok(request.headers):
            return refuse(403, "this server answers only to the names it was started with")
        found = seat_for(request)
        if found is None:
            return refuse(404, "no such room or seat (check the invite link)")
        return JSONResponse(found[0].summary(), headers={"Cache-Control": "no-store"})

    async def room_hands(request: Request) -> Response:
        if not host_ok(request.headers):
            return refuse(403, "this server answers only to the names it was started with")
        found = seat_for(request)
        if found is None:
            return refuse(404, "no such room or seat (check the invite link)")
        room, _ = found
        if store is None:
            return JSONResponse({"hands": [], "records": False})
        rows = await run_in_threadpool(store.hands, room=room.id, limit=MAX_HANDS)
        return JSONResponse({"hands": [r.to_dict() for r in rows], "records": True},
                            headers={"Cache-Control": "no-store"})

    async def room_hand(request: Request) -> Response:
        """A kept hand of this room, masked for the asking seat (for its replay)."""
        from ..play.visibility import view_for

        if not host_ok(request.headers):
            return refuse(403, "this server answers only to the names it was started with")
        found = seat_for(request)
        if found is None or store is None:
            return refuse(404, "no such room or seat (check the invite link)")
        room, slot = found
        try:
            hand_id = int(request.path_params["hand"])
        except ValueError:
            return refuse(404, "no such hand")
        if hand_id not in room.hand_ids:
            return refuse(404, "no such hand in this room")
        events = await run_in_threadpool(store.log, hand_id)
        masked = [view_for(e, slot.seat) for e in events]
        said = await run_in_threadpool(room.narration, masked, slot.seat)  # as the table said them
        if request.query_params.get("lang") == "en":
            words = Words("en", ruleset_words(room.rs))
            said = [words(x) for x in said]
        return JSONResponse({"hand": hand_id, "seat": slot.seat, "log": masked, "said": said},
                            headers={"Cache-Control": "no-store"})

    async def room_socket(ws: WebSocket) -> None:
        if not host_ok(ws.headers):
            await ws.close(code=4403)
            return
        found = seat_for(ws)
        if found is None:
            await ws.close(code=4404)
            return
        room, slot = found
        if len(slot.sends) >= MAX_SOCKETS_PER_SEAT:
            await ws.close(code=4429)
            return
        await ws.accept()
        loop = asyncio.get_running_loop()
        out: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()

        # The seat's language (``?lang=en``; the room composes in Chinese): each message is put
        # into it as it is sent, the kept ones too when they are sent again on a rejoin.
        say = (in_language(Words("en", ruleset_words(room.rs)))
               if ws.query_params.get("lang") == "en" else None)

        def send(m: dict[str, Any]) -> None:
            loop.call_soon_threadsafe(out.put_nowait, m if say is None else say(m))

        async def writer() -> None:
            while True:
                m = await out.get()
                if m is None:
                    return
                await ws.send_text(json.dumps(m, ensure_ascii=False, separators=(",", ":")))

        task = asyncio.create_task(writer())
        room.attach(slot, send)
        stamps: list[float] = []
        try:
            while True:
                text = await ws.receive_text()
                now = time.monotonic()
                stamps = [t for t in stamps if now - t < 5.0]
                stamps.append(now)
                if len(text) > MAX_MESSAGE or len(stamps) > 5 * MAX_RATE:
                    await ws.close(code=1009 if len(text) > MAX_MESSAGE else 4429)
                    break
                try:
                    m = json.loads(text)
                except (json.JSONDecodeError, RecursionError):
                    continue
                if isinstance(m, dict) and m.get("type") in ("choose", "next"):
                    room.receive(slot, {k: m.get(k) for k in ("type", "decision", "index")})
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            room.detach(slot, send)
            out.put_nowait(None)
            with contextlib.suppress(Exception):
                await task

    routes = [
        Route("/play", play_file, methods=["GET", "HEAD"]),
        *(Route(f"/{name}", play_file, methods=["GET", "HEAD"]) for name in PLAY_FILES),
        Route("/api/rooms", open_room, methods=["POST"]),
        Route("/api/bots", bot_list, methods=["GET"]),
        Route("/api/rooms/{room}", room_info, methods=["GET"]),
        Route("/api/rooms/{room}/hands", room_hands, methods=["GET"]),
        Route("/api/rooms/{room}/hands/{hand}", room_hand, methods=["GET"]),
        WebSocketRoute("/ws/{room}", room_socket),
        Route("/{path:path}", playground_route, methods=["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH",
                                                          "OPTIONS"]),
    ]
    app = Starlette(routes=routes)
    app.state.playground = pg
    app.state.rooms = rooms
    app.state.store = store

    def close() -> None:
        rooms.close()
        pg.pool.close()

    app.state.close = close
    return app


def _response(r: tuple[int, list[tuple[str, str]], bytes]) -> Response:
    status, headers, body = r
    return Response(body, status_code=status,
                    headers={k: v for k, v in headers if k.lower() != "content-length"})


def serve(sock: Any, host: str, *, quiet: bool = False, options: dict[str, Any] | None = None,
          preset: str | None = None, store: Any = None, bot_pause: float = 0.4,
          policies: dict[str, Any] | None = None) -> None:
    """Run the app with uvicorn on the bound socket ``sock`` until Ctrl-C / SIGTERM."""
    import uvicorn

    app = make_app(host, options=options, preset=preset, store=store, bot_pause=bot_pause, policies=policies)
    config = uvicorn.Config(app, log_level="warning" if quiet else "info", ws="websockets-sansio",
                            ws_max_size=MAX_MESSAGE, lifespan="off", server_header=False,
                            timeout_graceful_shutdown=2)
    server = uvicorn.Server(config)
    try:
        server.run(sockets=[sock])
    finally:
        app.state.close()


__all__ = ["MAX_MESSAGE", "MAX_ROOMS", "RoomError", "Rooms", "load_pasted", "make_app", "serve"]
