"""Records: every hand played by people, kept in one embedded SQLite file.

A hand played by ``mj play`` or in a room (``mj serve --rooms``) is written
to the records file the moment it ends (its ``hand_end`` event), in one
transaction: the ruleset (its hash and merged YAML, so a pasted ruleset can be
reloaded), the options it was played with, the seats (who sat where, human
or bot), the whole engine log of the hand (docs/events.md), each seat's own
log (docs/seat-log.md: what that seat saw) and the settlement. A server
killed between hands loses nothing: the file runs in WAL mode and a hand is
either wholly in it or not at all.

Where the file lives: ``--records PATH`` where a command offers it, else the
``MJ_RECORDS`` environment variable, else the user's data folder
(:func:`default_path`: ``$XDG_DATA_HOME/mjframework/records.sqlite3``, by
default ``~/.local/share/…``; ``~/Library/Application Support/mjframework``
on macOS; ``%LOCALAPPDATA%\\mjframework`` on Windows).

The schema is versioned with ``PRAGMA user_version``: :data:`MIGRATIONS`
holds one script per version, applied in order (each in its own
transaction) when an older file is opened; a file from a newer mjframework
is refused with a clear error rather than misread.

``mj records`` lists and filters the hands (ruleset, date, player) and
exports one as an engine log that ``mj replay`` reads.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import sys
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.errors import MJError
from ..play.seatlog import seat_log

Event = dict[str, Any]
ENV_VAR = "MJ_RECORDS"
FILE_NAME = "records.sqlite3"

#: One SQL script per schema version: ``MIGRATIONS[i]`` takes a file from version ``i`` to ``i + 1``.
MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE rulesets (
        hash TEXT PRIMARY KEY,          -- sha256 of the merged ruleset data (ruleset_hash)
        id   TEXT NOT NULL,
        name TEXT NOT NULL,
        data TEXT NOT NULL              -- the merged YAML as JSON: reloadable without the file
    );
    CREATE TABLE sessions (
        id           INTEGER PRIMARY KEY,
        kind         TEXT NOT NULL,     -- play | room
        room         TEXT,              -- the room's public id (rooms only)
        ruleset_hash TEXT NOT NULL REFERENCES rulesets(hash),
        options      TEXT NOT NULL,     -- JSON: every declared option's value, as played
        preset       TEXT,
        seed         INTEGER,
        started      TEXT NOT NULL      -- UTC, ISO 8601
    );
    CREATE TABLE hands (
        id           INTEGER PRIMARY KEY,
        session_id   INTEGER NOT NULL REFERENCES sessions(id),
        hand_no      INTEGER NOT NULL,
        ruleset_id   TEXT NOT NULL,
        ruleset_hash TEXT NOT NULL REFERENCES rulesets(hash),
        options      TEXT NOT NULL,
        seed         INTEGER,
        dealer       INTEGER,
        result       TEXT,              -- hand_end's result: win | draw | abandoned …
        deltas       TEXT NOT NULL,     -- JSON: each seat's net for the hand
        settlement   TEXT NOT NULL,     -- JSON: the hand's settlement events
        log          TEXT NOT NULL,     -- the hand's engine log, JSON lines (the whole truth)
        played       TEXT NOT NULL      -- UTC, ISO 8601, when the hand ended
    );
    CREATE TABLE hand_seats (
        hand_id INTEGER NOT NULL REFERENCES hands(id),
        seat    INTEGER NOT NULL,
        player  TEXT NOT NULL,
        kind    TEXT NOT NULL,          -- human | bot
        delta   INTEGER NOT NULL,
        log     TEXT NOT NULL,          -- what this seat saw: its seat log, JSON lines
        PRIMARY KEY (hand_id, seat)
    );
    CREATE INDEX hands_by_ruleset ON hands(ruleset_id, played);
    CREATE INDEX hands_by_date ON hands(played);
    CREATE INDEX seats_by_player ON hand_seats(player);
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)


class RecordsError(MJError):
    """A records file that can't be used (unreadable, not SQLite, from a newer version), or no such hand."""


def default_path(env: dict[str, str] | None = None, platform: str | None = None) -> Path:
    """The records file: ``$MJ_RECORDS``, else the platform's per-user data folder."""
    env = dict(os.environ) if env is None else env
    platform = sys.platform if platform is None else platform
    if env.get(ENV_VAR):
        return Path(env[ENV_VAR]).expanduser()
    home = Path(env.get("HOME") or Path.home())
    if platform.startswith("win"):
        base = Path(env.get("LOCALAPPDATA") or home / "AppData" / "Local")
    elif platform == "darwin":
        base = home / "Library" / "Application Support"
    else:
        base = Path(env["XDG_DATA_HOME"]) if env.get("XDG_DATA_HOME") else home / ".local" / "share"
    return base / "mjframework" / FILE_NAME


def ruleset_hash(rs: Any) -> str:
    """The ruleset's identity for records: sha256 of its merged data (``extends`` resolved).

    The chosen option values are kept beside it, so one hash covers every house-rule
    setting of one ruleset text."""
    text = json.dumps(rs.data, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def _dumps(x: Any) -> str:
    return json.dumps(x, ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True)
class Seat:
    """Who sat at a seat: a name and ``human`` or ``bot``."""

    player: str
    kind: str = "bot"


@dataclass(frozen=True)
class HandRow:
    """One hand in a listing."""

    id: int
    played: str
    ruleset_id: str
    ruleset_hash: str
    session_id: int
    session_kind: str
    room: str | None
    hand_no: int
    seed: int | None
    result: str | None
    deltas: list[int]
    players: list[str]
    kinds: list[str]

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "played": self.played, "ruleset": self.ruleset_id,
                "ruleset_hash": self.ruleset_hash, "session": self.session_id, "kind": self.session_kind,
                "room": self.room, "hand": self.hand_no, "seed": self.seed, "result": self.result,
                "deltas": self.deltas,
                "seats": [{"player": p, "kind": k} for p, k in zip(self.players, self.kinds, strict=True)]}


class RecordStore:
    """The records file, opened (created and migrated if need be).

    Safe to share between threads: one connection, one lock; each hand is one transaction."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else default_path()
        self._lock = threading.Lock()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None,
                                       timeout=10)
        except (OSError, sqlite3.Error) as e:
            raise RecordsError(f"{self.path}: cannot open the records file: {e}") from None
        try:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")  # a committed hand survives a power cut too
            self._db.execute("PRAGMA foreign_keys=ON")
            self._migrate()
        except sqlite3.DatabaseError as e:
            self._db.close()
            raise RecordsError(f"{self.path}: not a records file ({e})") from None

    def _migrate(self) -> None:
        version = self._db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise RecordsError(f"{self.path}: written by a newer mjframework (schema {version}; "
                               f"this one reads up to {SCHEMA_VERSION})")
        for v in range(version, SCHEMA_VERSION):
            with self._lock:
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    # re-read under the write lock: another process may have migrated meanwhile
                    if self._db.execute("PRAGMA user_version").fetchone()[0] != v:
                        self._db.execute("ROLLBACK")
                        continue
                    for statement in MIGRATIONS[v].split(";"):
                        if statement.strip():
                            self._db.execute(statement)
                    self._db.execute(f"PRAGMA user_version = {v + 1}")
                    self._db.execute("COMMIT")
                except BaseException:
                    self._db.execute("ROLLBACK")
                    raise

    @property
    def version(self) -> int:
        return int(self._db.execute("PRAGMA user_version").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> RecordStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writing -------------------------------------------------------------------

    def start_session(self, rs: Any, *, kind: str, seed: int | None = None, preset: str | None = None,
                      room: str | None = None) -> int:
        """A series of hands on one ruleset (an ``mj play`` run, a room); returns its id."""
        h = ruleset_hash(rs)
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.execute("INSERT OR IGNORE INTO rulesets(hash, id, name, data) VALUES (?,?,?,?)",
                                 (h, rs.id, rs.name, _dumps(rs.data) if _jsonable(rs.data) else
                                  json.dumps(rs.data, default=str, ensure_ascii=False)))
                cur = self._db.execute(
                    "INSERT INTO sessions(kind, room, ruleset_hash, options, preset, seed, started) "
                    "VALUES (?,?,?,?,?,?,?)",
                    (kind, room, h, _dumps(dict(rs.options)), preset, seed, _now()))
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        assert cur.lastrowid is not None
        return cur.lastrowid

    def add_hand(self, session_id: int, events: Sequence[Event], seats: Sequence[Seat]) -> int:
        """Keep one finished hand (its events from ``hand_start`` to ``hand_end``) in one transaction."""
        if not events or events[0].get("type") != "hand_start":
            raise ValueError("a hand's events start with hand_start")
        start = events[0]
        end = next((e for e in reversed(events) if e.get("type") == "hand_end"), {})
        players = len(seats)
        settlements = [e for e in events if e.get("type") == "settlement"]
        deltas = [0] * players
        for e in settlements:
            for i, x in enumerate(e.get("payments", [])[:players]):
                deltas[i] += int(x)
        log = "".join(_dumps(e) + "\n" for e in events)
        seat_logs = ["".join(_dumps(e) + "\n" for e in seat_log(events, s)) for s in range(players)]
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                row = self._db.execute("SELECT ruleset_hash, options FROM sessions WHERE id=?",
                                       (session_id,)).fetchone()
                if row is None:
                    raise RecordsError(f"no session {session_id} in {self.path}")
                cur = self._db.execute(
                    "INSERT INTO hands(session_id, hand_no, ruleset_id, ruleset_hash, options, seed, dealer,"
                    " result, deltas, settlement, log, played) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                    (session_id, int(start.get("hand") or 0), str(start.get("ruleset")), row[0], row[1],
                     start.get("seed"), start.get("dealer"), end.get("result"), _dumps(deltas),
                     _dumps(settlements), log, _now()))
                hand_id = cur.lastrowid
                self._db.executemany(
                    "INSERT INTO hand_seats(hand_id, seat, player, kind, delta, log) VALUES (?,?,?,?,?,?)",
                    [(hand_id, s, seat.player, seat.kind, deltas[s], seat_logs[s])
                     for s, seat in enumerate(seats)])
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        assert hand_id is not None
        return hand_id

    # -- reading -------------------------------------------------------------------

    def hands(self, *, ruleset: str | None = None, since: str | None = None, until: str | None = None,
              player: str | None = None, room: str | None = None, session: int | None = None,
              limit: int = 100) -> list[HandRow]:
        """The hands kept, newest first, filtered: ``ruleset`` id, played ``since``/``until``
        (ISO dates or times, UTC; ``until`` a date covers that whole day), a ``player`` at any seat,
        a ``room``, a ``session``."""
        where: list[str] = []
        args: list[Any] = []
        if ruleset:
            where.append("h.ruleset_id = ?")
            args.append(ruleset)
        if since:
            where.append("h.played >= ?")
            args.append(since)
        if until:
            where.append("h.played <= ?")
            args.append(until + ("T23:59:59Z" if len(until) == 10 else ""))
        if player:
            where.append("h.id IN (SELECT hand_id FROM hand_seats WHERE player = ?)")
            args.append(player)
        if room:
            where.append("s.room = ?")
            args.append(room)
        if session is not None:
            where.append("h.session_id = ?")
            args.append(session)
        sql = ("SELECT h.id, h.played, h.ruleset_id, h.ruleset_hash, h.session_id, s.kind, s.room, h.hand_no,"
               " h.seed, h.result, h.deltas FROM hands h JOIN sessions s ON s.id = h.session_id"
               + (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY h.id DESC LIMIT ?")
        args.append(max(0, int(limit)))
        with self._lock:
            rows = self._db.execute(sql, args).fetchall()
            out = []
            for r in rows:
                seats = self._db.execute("SELECT player, kind FROM hand_seats WHERE hand_id=? ORDER BY seat",
                                         (r[0],)).fetchall()
                out.append(HandRow(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9],
                                   json.loads(r[10]), [p for p, _ in seats], [k for _, k in seats]))
        return out

    def log(self, hand_id: int, seat: int | None = None) -> list[Event]:
        """A kept hand's events: the engine log (``seat=None``) or that seat's seat log."""
        with self._lock:
            if seat is None:
                row = self._db.execute("SELECT log FROM hands WHERE id=?", (hand_id,)).fetchone()
            else:
                row = self._db.execute("SELECT log FROM hand_seats WHERE hand_id=? AND seat=?",
                                       (hand_id, seat)).fetchone()
                if row is None and self._db.execute("SELECT 1 FROM hands WHERE id=?", (hand_id,)).fetchone():
                    raise RecordsError(f"hand {hand_id} has no seat {seat}")
        if row is None:
            raise RecordsError(f"no hand {hand_id} in {self.path}")
        return [json.loads(line) for line in row[0].splitlines() if line]

    def ruleset_data(self, hash_: str) -> dict[str, Any]:
        with self._lock:
            row = self._db.execute("SELECT data FROM rulesets WHERE hash=?", (hash_,)).fetchone()
        if row is None:
            raise RecordsError(f"no ruleset {hash_[:12]} in {self.path}")
        return dict(json.loads(row[0]))


def _jsonable(x: Any) -> bool:
    try:
        json.dumps(x)
    except (TypeError, ValueError):
        return False
    return True


class HandRecorder:
    """An event sink that keeps each hand in the store when it ends (its ``hand_end``).

    ``seats`` says who sits where; it may change between hands (a bot taking a
    seat over): it is read when the hand ends. ``on_hand(hand_id)`` is told each
    hand kept."""

    def __init__(self, store: RecordStore, session_id: int, seats: Callable[[], Sequence[Seat]],
                 on_hand: Callable[[int], None] | None = None) -> None:
        self.store = store
        self.session_id = session_id
        self.seats = seats
        self.on_hand = on_hand
        self._events: list[Event] | None = None
        self.kept: list[int] = []

    def __call__(self, e: Event) -> None:
        t = e.get("type")
        if t == "hand_start":
            self._events = [e]
            return
        if self._events is None:
            return
        self._events.append(e)
        if t == "hand_end":
            events, self._events = self._events, None
            hand_id = self.store.add_hand(self.session_id, events, list(self.seats()))
            self.kept.append(hand_id)
            if self.on_hand is not None:
                self.on_hand(hand_id)


def write_jsonl(events: Iterable[Event]) -> str:
    return "".join(_dumps(e) + "\n" for e in events)


__all__ = ["ENV_VAR", "MIGRATIONS", "SCHEMA_VERSION", "HandRecorder", "HandRow", "RecordStore",
           "RecordsError", "Seat", "default_path", "ruleset_hash", "write_jsonl"]
