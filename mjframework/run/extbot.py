"""External bots: a program at the table, speaking JSON lines on stdin/stdout.

The protocol (docs/bots.md): the program reads one JSON object per line —

- ``{"type": "hello", "protocol": "mjframework-bot/1", "name": …, "ruleset": …,
  "players": 4, "actions": [every action name of the ruleset]}`` once;
- the hand as its seat sees it, in the seat-log shape (docs/seat-log.md:
  ``start_kyoku``, ``tsumo``, ``dahai``, ``pon`` … ``end_kyoku``);
- ``{"type": "request", "actor": seat, "decision": kind, "pai": tile or null,
  "target": seat or null, "prompt": text, "options": [action names]}`` when it
  must decide —

and answers each request with one line, ``{"action": "<one of the options>"}``.
``{"type": "end_game"}`` ends the session (then stdin closes).

A program that answers late (``timeout`` seconds), answers something that
isn't one of the options, exits or crashes *leaves the table*
(:class:`~mjframework.play.players.PlayerLeft` with its name and what happened):
the ruleset's ``leave`` rule applies (the hand is abandoned, or a bot plays
on), never a hang. A program that left is not asked again this session.

What a program may send is bounded (docs/limits.md, "External bots"): a line
of at most :data:`MAX_LINE` bytes, at most :data:`MAX_PENDING` bytes unread
by the table at any time or answering one request; past either it leaves
("sent more than … without a newline"), and the pipe is no longer read. The
program runs in a process group of its own: when it leaves or the session
ends the whole group is stopped (SIGTERM, then SIGKILL), so a child that
holds its output open (``bash -c 'bot; true'``) can't keep the table waiting.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import queue
import select
import shlex
import signal
import subprocess
import threading
import time
from typing import IO, Any

from ..core.tiles import to_mjai
from ..play.actions import ActionSpace, EnvError, option_name
from ..play.players import Decision, Option, PlayerLeft, TableView
from ..play.seatlog import SeatStream

PROTOCOL = "mjframework-bot/1"
DEFAULT_TIMEOUT = 10.0
MAX_TIMEOUT = 86400.0  # seconds per decision: a day; inf/nan/≤ 0 are refused
MAX_LINE = 1 << 20  # bytes in one line from a bot (an answer is ~30)
MAX_PENDING = 4 << 20  # bytes read from a bot and not yet consumed, or read while answering one request
_POSIX = os.name == "posix"
_LINE_COST = 100  # what a queued line costs beyond its bytes (object, queue slot): counted in MAX_PENDING


def check_timeout(seconds: float) -> float:
    """``seconds`` if it is a usable per-decision timeout: finite, > 0, at most :data:`MAX_TIMEOUT`."""
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not math.isfinite(seconds) \
            or not 0 < seconds <= MAX_TIMEOUT:
        raise ValueError(f"a bot timeout is a number of seconds above 0 and at most {MAX_TIMEOUT:g}, "
                         f"not {seconds!r}")
    return float(seconds)


class _Gone(str):
    """What the reader hands the table instead of a line: why the bot must leave."""


def _describe(value: object) -> str:
    return {list: "a list", dict: "an object", str: "a string", bool: "a boolean", int: "a number",
            float: "a number", type(None): "null"}.get(type(value), type(value).__name__)


class ExternalBot:
    """A :class:`~mjframework.play.players.Player` that is a program (``command``, split like a shell)."""

    def __init__(self, command: str, ruleset: Any, *, name: str | None = None,
                 timeout: float = DEFAULT_TIMEOUT, stderr: IO[str] | int | None = None) -> None:
        self.command = command
        argv = shlex.split(command)
        if not argv:
            raise ValueError("an empty bot command")
        self.name = name or os.path.basename(argv[-1] if len(argv) > 1 else argv[0])
        self.ruleset = ruleset
        self.timeout = check_timeout(timeout)
        self.space = ActionSpace(ruleset)
        self.gone: str | None = None  # why it left, once it has
        self._stream: SeatStream | None = None
        self._seat: int | None = None
        self._out: queue.Queue[bytes | None] = queue.Queue()
        self._answers: queue.Queue[bytes | _Gone | None] = queue.Queue()  # lines; a _Gone; None at the end
        self._pending = 0  # bytes in self._answers
        self._pending_lock = threading.Lock()
        self._stopping = threading.Event()
        self._closed = False
        try:
            # A session of its own: its process group is stopped as a whole (see close()).
            self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=stderr, bufsize=0, start_new_session=_POSIX)
        except (OSError, ValueError) as e:
            raise ValueError(f"bot {self.name!r}: cannot start {command!r}: {e}") from e
        # Writing and reading happen in threads so a bot that reads nothing (or
        # writes nothing) can never block the table: only a timed wait does.
        self._writer = threading.Thread(target=self._write_loop, daemon=True, name=f"bot-{self.name}-w")
        self._reader = threading.Thread(target=self._read_loop, daemon=True, name=f"bot-{self.name}-r")
        self._writer.start()
        self._reader.start()
        self._send({"type": "hello", "protocol": PROTOCOL, "name": self.name, "ruleset": ruleset.id,
                    "players": ruleset.players, "actions": list(self.space.names)})

    # -- the pipes -----------------------------------------------------------------

    def _write_loop(self) -> None:
        assert self.proc.stdin is not None
        while True:
            line = self._out.get()
            if line is None:
                break
            try:
                view = memoryview(line)
                while view:
                    view = view[self.proc.stdin.write(view) or 0:]
            except (BrokenPipeError, OSError, ValueError):
                break
        with contextlib.suppress(BrokenPipeError, OSError, ValueError):
            self.proc.stdin.close()

    def _read_loop(self) -> None:
        """Cut the bot's output into lines, bounded: a line over MAX_LINE bytes, or more than
        MAX_PENDING bytes not yet taken by the table, ends the reading with a :class:`_Gone`.

        Reads the raw descriptor with a short ``select`` so that :meth:`close` can stop it
        even while a stray child keeps the pipe open (no lock is held across a read).
        """
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        buf = bytearray()
        end: _Gone | None = None
        try:
            while not self._stopping.is_set():
                if _POSIX and not select.select([fd], [], [], 0.2)[0]:
                    continue
                chunk = os.read(fd, 65536)
                if not chunk:
                    break
                start = len(buf)
                buf += chunk
                while (i := buf.find(b"\n", start)) >= 0:
                    line = bytes(buf[:i + 1])
                    del buf[:i + 1]
                    start = 0
                    if not line.strip():
                        continue  # blank lines are allowed and dropped (they cost no memory)
                    with self._pending_lock:
                        self._pending += len(line) + _LINE_COST
                        over = self._pending > MAX_PENDING
                    if over:
                        end = _Gone(f"sent more than {MAX_PENDING} bytes the table had not asked for")
                        return
                    self._answers.put(line)
                if len(buf) > MAX_LINE:
                    end = _Gone(f"sent more than {MAX_LINE} bytes without a newline")
                    return
        except (OSError, ValueError):
            pass
        finally:
            self._answers.put(end)

    def _send(self, obj: dict[str, Any]) -> None:
        if self.gone is None:
            self._out.put((json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8"))

    # -- the table's side ----------------------------------------------------------

    def sit(self, seat: int) -> None:
        """Take ``seat`` for the next hand (a duplicate match moves bots between hands)."""
        self._seat = seat
        self._stream = SeatStream(seat)

    def __call__(self, event: dict[str, Any]) -> None:
        """An event sink: the bot hears the hand as its seat sees it."""
        if self._stream is None or self.gone is not None:
            return
        for e in self._stream.feed(event):
            self._send(e)

    def decide(self, view: TableView, decision: Decision) -> Option:
        if self.gone is not None:
            raise PlayerLeft(f"bot {self.name!r} left earlier ({self.gone})")
        try:
            names = {option_name(self.space, o): o for o in decision.options}
        except EnvError as e:
            return self._leave(f"cannot be asked: {e}")
        self._send({"type": "request", "actor": decision.seat, "decision": decision.kind,
                    "pai": None if decision.tile is None else _mjai(decision.tile),
                    "target": decision.from_seat, "prompt": decision.prompt, "options": list(names)})
        deadline = time.monotonic() + self.timeout
        read = 0
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return self._leave(f"timed out (no answer within {self.timeout:g}s)")
            try:
                raw = self._answers.get(timeout=left)
            except queue.Empty:
                return self._leave(f"timed out (no answer within {self.timeout:g}s)")
            if isinstance(raw, _Gone):
                return self._leave(str(raw))
            if raw is None:
                return self._leave(self._why_eof())
            with self._pending_lock:
                self._pending -= len(raw) + _LINE_COST
            read += len(raw)
            if read > MAX_PENDING:
                return self._leave(f"sent more than {MAX_PENDING} bytes while answering one request")
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                return self._leave(f"sent invalid UTF-8 (byte {e.start} of a line: {raw[:40]!r})")
            shown = line.strip()[:80]
            try:
                answer = json.loads(line)
            except (json.JSONDecodeError, RecursionError):
                return self._leave(f"answered garbage: {shown!r} (not JSON)")
            if not isinstance(answer, dict):
                return self._leave(f"sent {_describe(answer)} where an object {{\"action\": …}} "
                                   f"was expected: {shown!r}")
            if "action" not in answer:
                return self._leave(f"sent an object without \"action\": {shown!r}")
            action = answer["action"]
            if not isinstance(action, str):
                return self._leave(f"sent {_describe(action)} where an action name was expected: {shown!r}")
            if action not in names:
                return self._leave(f"answered {shown!r}, not one of the options "
                                   f"({', '.join(list(names)[:8])}{' …' if len(names) > 8 else ''})")
            return names[action]

    def _why_eof(self) -> str:
        """Its output ended: it exited (with what code, or killed by which signal), or closed it."""
        try:
            code = self.proc.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            return "closed its output (still running)"
        if code < 0:
            with contextlib.suppress(ValueError):
                return f"was killed by {signal.Signals(-code).name}"
        return f"exited with code {code}"

    def _leave(self, why: str) -> Option:
        self.gone = why
        self.close(grace=0.0)
        raise PlayerLeft(f"bot {self.name!r} ({self.command}) {why}")

    def close(self, grace: float = 1.0) -> None:
        """End the session: ``end_game``, close stdin, give the program ``grace`` seconds to
        exit, then stop its process group (SIGTERM, then SIGKILL). Safe to call twice."""
        if self._closed:
            return
        self._closed = True
        if self.gone is None:
            self._send({"type": "end_game"})
            self.gone = "the session ended"
        self._out.put(None)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=grace)
        # The whole process group: the program and whatever it started (still holding the pipes).
        self._signal(signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=2.0)
        self._signal(signal.SIGKILL)
        self.proc.wait()
        self._stopping.set()
        if threading.current_thread() is not self._reader:
            self._reader.join(timeout=1.0)
        if self.proc.stdout is not None and not self._reader.is_alive():
            with contextlib.suppress(OSError):
                self.proc.stdout.close()

    def _signal(self, sig: int) -> None:
        with contextlib.suppress(OSError):  # (the group is gone already: ProcessLookupError)
            if _POSIX:
                os.killpg(self.proc.pid, sig)
            elif self.proc.poll() is None:  # pragma: no cover - no process groups
                self.proc.terminate()

    def __enter__(self) -> ExternalBot:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _mjai(t: int) -> str:
    return to_mjai(t)


def is_policy_file(command: str) -> bool:
    """A ``--bot`` argument that names a trained policy (a ``.npz`` file), not a program to run."""
    return command.endswith(".npz") and not any(c.isspace() for c in command)


def open_bot(command: str, ruleset: Any, *, name: str | None = None, timeout: float = DEFAULT_TIMEOUT) -> Any:
    """The player a ``--bot`` argument names: a trained policy's ``.npz`` file
    (:class:`mjframework.run.envs.policy.PolicySeat`, needs numpy) or an external program
    (:class:`ExternalBot`). Both sit, hear events, decide and close alike; a policy must
    also be ``attach``-ed to each hand's game. A bad file raises ``ValueError``."""
    if not is_policy_file(command):
        return ExternalBot(command, ruleset, name=name, timeout=timeout)
    try:
        from .envs.policy import MLPPolicy, PolicySeat
    except ImportError as e:
        raise ValueError(f"--bot {command}: a trained policy needs numpy (pip install 'mjframework[env]'): "
                         f"{e}") from None
    from ..core.errors import MJError

    try:
        return PolicySeat(MLPPolicy.load(command), name or os.path.basename(command)[:-4])
    except MJError as e:
        raise ValueError(str(e)) from None


def parse_bot_specs(specs: list[str] | tuple[str, ...]) -> list[tuple[str, str]]:
    """``NAME=COMMAND`` or ``COMMAND`` (named ``bot1``, ``bot2`` … in order) → (name, command)."""
    out: list[tuple[str, str]] = []
    for i, spec in enumerate(specs, 1):
        name, sep, command = spec.partition("=")
        if sep and name and " " not in name and name.isidentifier():
            out.append((name, command))
        else:
            out.append((f"bot{i}", spec))
    names = [n for n, _ in out]
    if len(set(names)) != len(names):
        raise ValueError(f"two bots with one name: {', '.join(names)}")
    return out


__all__ = ["DEFAULT_TIMEOUT", "MAX_LINE", "MAX_PENDING", "MAX_TIMEOUT", "PROTOCOL", "ExternalBot",
           "check_timeout", "is_policy_file", "open_bot", "parse_bot_specs"]
