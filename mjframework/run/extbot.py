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
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import shlex
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
        self.timeout = timeout
        self.space = ActionSpace(ruleset)
        self.gone: str | None = None  # why it left, once it has
        self._stream: SeatStream | None = None
        self._seat: int | None = None
        self._out: queue.Queue[str | None] = queue.Queue()
        self._answers: queue.Queue[str | None] = queue.Queue()
        try:
            self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=stderr, text=True, encoding="utf-8", bufsize=1)
        except OSError as e:
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
                self.proc.stdin.write(line)
                self.proc.stdin.flush()
            except (BrokenPipeError, OSError, ValueError):
                break
        with contextlib.suppress(BrokenPipeError, OSError, ValueError):
            self.proc.stdin.close()

    def _read_loop(self) -> None:
        assert self.proc.stdout is not None
        try:
            for line in self.proc.stdout:
                self._answers.put(line)
        except (OSError, ValueError):
            pass
        self._answers.put(None)

    def _send(self, obj: dict[str, Any]) -> None:
        if self.gone is None:
            self._out.put(json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n")

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
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return self._leave(f"timed out (no answer within {self.timeout:g}s)")
            try:
                line = self._answers.get(timeout=left)
            except queue.Empty:
                return self._leave(f"timed out (no answer within {self.timeout:g}s)")
            if line is None:
                code = self.proc.poll()
                return self._leave("exited" + ("" if code is None else f" with code {code}"))
            if not line.strip():
                continue
            try:
                answer = json.loads(line)
            except json.JSONDecodeError:
                return self._leave(f"answered garbage: {line.strip()[:80]!r} (not JSON)")
            action = answer.get("action") if isinstance(answer, dict) else None
            if action not in names:
                return self._leave(f"answered {line.strip()[:80]!r}, not one of the options "
                                   f"({', '.join(list(names)[:8])}{' …' if len(names) > 8 else ''})")
            return names[action]

    def _leave(self, why: str) -> Option:
        self.gone = why
        self.close(grace=0.0)
        raise PlayerLeft(f"bot {self.name!r} ({self.command}) {why}")

    def close(self, grace: float = 1.0) -> None:
        """End the session: ``end_game``, close stdin, give the program ``grace`` seconds to
        exit, then stop it (terminate, then kill). Safe to call twice."""
        if self.gone is None:
            self._send({"type": "end_game"})
            self.gone = "the session ended"
        self._out.put(None)
        try:
            self.proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=2.0)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc.stdout is not None:
            with contextlib.suppress(OSError):
                self.proc.stdout.close()

    def __enter__(self) -> ExternalBot:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _mjai(t: int) -> str:
    return to_mjai(t)


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


__all__ = ["DEFAULT_TIMEOUT", "PROTOCOL", "ExternalBot", "parse_bot_specs"]
