"""Simulation: play many hands with bots, collect statistics, write a JSONL log.

Hands are grouped into *games* of ``hands_per_game`` hands. Within a game the
dealer follows each hand's ``next_dealer``; the first dealer of a game
follows the ruleset's ``dealer.first`` (``random``: drawn from the game's
own RNG; ``seat0`` / ``seed0``: seat 0).

Every random choice derives from (base seed, game index, hand index) only —
the hand's seed, every bot's RNG, a game's first dealer — so the results and
the log are byte-identical whatever the number of worker processes. With
``workers > 1`` games are handed out in chunks to a
:class:`~concurrent.futures.ProcessPoolExecutor`; each worker writes its
chunk's log lines to a temporary file next to the log, and the parent
appends the chunk files to the log in game order (memory stays flat).

Log format (``docs/events.md``): one JSON object per line. The first line is
a ``simulation`` header; then, for every hand, the engine's events, with the
simulator adding ``game`` (the game index) to each ``hand_start``.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import tempfile
import time
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from .bots import BOTS
from .errors import MJError
from .events import Event
from .game import Game, HandResult
from .model import Ruleset
from .ruleset import load_ruleset
from .scoring import Evaluator

LOG_FORMAT = 1


class SimulationError(MJError):
    """Bad simulation input (hand count, bots, workers …)."""


# -- deterministic derivation ---------------------------------------------------


def hand_seed(seed: int, game: int, hand: int) -> int:
    """The engine seed of hand ``hand`` (0-based, within the game) of game ``game``."""
    return random.Random(f"{seed}/{game}/{hand}").getrandbits(63)


def bot_rng(seed: int, game: int, hand: int, seat: int) -> random.Random:
    """The RNG a bot at ``seat`` uses for that hand."""
    return random.Random(f"{seed}/{game}/{hand}/bot{seat}")


def first_dealer(ruleset: Ruleset, seed: int, game: int) -> int:
    """The first dealer of a game, as ``dealer.first`` says."""
    rule = str(ruleset.dealer.get("first", "random"))
    if rule == "random":
        return random.Random(f"{seed}/{game}/dealer").randrange(ruleset.players)
    if rule in ("seat0", "seed0"):
        return 0
    raise SimulationError(f"{ruleset.id}: unknown dealer.first {rule!r} (random, seat0)")


def parse_bots(spec: str, players: int) -> tuple[str, ...]:
    """``greedy`` (every seat) or ``greedy,random,greedy,random`` (one per seat)."""
    names = tuple(n.strip() for n in spec.split(",")) if spec else ()
    if not names or any(not n for n in names):
        raise SimulationError(f"--bots {spec!r}: give one bot name, or {players} separated by commas")
    unknown = [n for n in names if n not in BOTS]
    if unknown:
        raise SimulationError(f"unknown bot {unknown[0]!r} (known: {', '.join(sorted(BOTS))})")
    if len(names) == 1:
        return names * players
    if len(names) != players:
        raise SimulationError(f"--bots {spec!r}: {len(names)} names for {players} seats "
                              f"(give 1 or {players})")
    return names


def make_bots(names: Sequence[str], seed: int, game: int, hand: int) -> list[Any]:
    return [BOTS[name](bot_rng(seed, game, hand, seat)) for seat, name in enumerate(names)]


# -- statistics -----------------------------------------------------------------


@dataclass
class Stats:
    """Counts that add up across games (integers only, so merging is exact)."""

    players: int = 4
    games: int = 0
    hands: int = 0
    won: int = 0  # hands with at least one winner
    winners: int = 0  # win events (several per hand on a multiple win)
    multi_win_hands: int = 0
    drawn: int = 0
    exhaustive: int = 0  # drawn because the live wall ran out
    abandoned: int = 0
    engine_errors: int = 0  # abandoned because the engine itself raised
    self_draw: int = 0
    discard_wins: int = 0
    robbed_kong: int = 0
    dealer_wins: int = 0
    kongs: int = 0
    claims: int = 0
    openings: int = 0  # opening declarations, paid at once; the hand goes on
    continued: int = 0  # hands that went on after a win (a ruleset's `win.after_win`)
    by_winners: dict[int, int] = field(default_factory=dict)  # such hands by their number of winners
    wins_by_seat: list[int] = field(default_factory=list)
    net_by_seat: list[int] = field(default_factory=list)  # every settlement of the hand
    patterns: dict[str, list[int]] = field(default_factory=dict)  # name → [count, payout sum]
    abandon_reasons: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.wins_by_seat:
            self.wins_by_seat = [0] * self.players
        if not self.net_by_seat:
            self.net_by_seat = [0] * self.players

    def merge(self, other: Stats) -> None:
        for name in ("games", "hands", "won", "winners", "multi_win_hands", "drawn", "exhaustive",
                     "abandoned", "engine_errors", "self_draw", "discard_wins", "robbed_kong",
                     "dealer_wins", "kongs", "claims", "openings", "continued"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for k, n in other.by_winners.items():
            self.by_winners[k] = self.by_winners.get(k, 0) + n
        self.wins_by_seat = [a + b for a, b in zip(self.wins_by_seat, other.wins_by_seat, strict=True)]
        self.net_by_seat = [a + b for a, b in zip(self.net_by_seat, other.net_by_seat, strict=True)]
        for k, (n, pay) in other.patterns.items():
            mine = self.patterns.setdefault(k, [0, 0])
            mine[0] += n
            mine[1] += pay
        for k, n in other.abandon_reasons.items():
            self.abandon_reasons[k] = self.abandon_reasons.get(k, 0) + n


class StatsSink:
    """An event sink that counts what the events of each hand say."""

    def __init__(self, stats: Stats) -> None:
        self.stats = stats
        self._pending: tuple[int, list[str]] | None = None
        self._last = ""  # type of the last event other than a settlement
        self._won = False  # a win this hand
        self._went_on = False  # and play after it

    def __call__(self, e: Event) -> None:
        t = e["type"]
        s = self.stats
        if t == "win":
            seat = e["seat"]
            s.winners += 1
            s.wins_by_seat[seat] += 1
            by = e.get("win_by")
            if by == "self_draw":
                s.self_draw += 1
            elif by == "discard":
                s.discard_wins += 1
            elif by == "robbed_kong":
                s.robbed_kong += 1
            self._pending = (seat, list(e.get("patterns", [])))
        elif t == "opening_win":
            s.openings += 1
            self._pending = (e["seat"], list(e.get("patterns", [])))
        elif t == "settlement":
            pays = e["payments"]
            s.net_by_seat = [a + b for a, b in zip(s.net_by_seat, pays, strict=True)]
            if self._pending is not None:
                seat, names = self._pending
                self._pending = None
                for n in names:
                    rec = s.patterns.setdefault(n, [0, 0])
                    rec[0] += 1
                    rec[1] += pays[seat]
        elif t == "kong" or (t == "claim" and e.get("kind") == "kong"):
            s.kongs += 1
        if t == "claim":
            s.claims += 1
        if t == "win":
            self._won = True
        elif self._won and t in ("draw", "discard"):
            self._went_on = True
        if t == "hand_end":
            if e.get("result") == "draw" and self._last not in ("kong", "claim"):
                s.exhaustive += 1
            if self._went_on:
                s.continued += 1
            if "winners" in e:  # a ruleset that may play on after a win
                k = len(e["winners"])
                s.by_winners[k] = s.by_winners.get(k, 0) + 1
            self._pending = None
            self._last = ""
            self._won = self._went_on = False
        elif t != "settlement":
            self._last = t

    def hand_done(self, result: HandResult, dealer: int) -> None:
        s = self.stats
        s.hands += 1
        if result.result == "win":
            s.won += 1
            if len(result.winners) > 1:
                s.multi_win_hands += 1
            if dealer in result.winners:
                s.dealer_wins += 1
        elif result.result == "draw":
            s.drawn += 1
        else:
            s.abandoned += 1
            reason = (result.error or "unknown").split(":")[0][:80]
            s.abandon_reasons[reason] = s.abandon_reasons.get(reason, 0) + 1


# -- playing games ---------------------------------------------------------------


@dataclass(frozen=True)
class SimSpec:
    """Everything a worker needs to play its games (picklable)."""

    ruleset: str  # id or path, loaded in each process
    hands: int
    seed: int
    bots: tuple[str, ...]
    hands_per_game: int = 8

    @property
    def games(self) -> int:
        return -(-self.hands // self.hands_per_game)

    def hands_in_game(self, game: int) -> int:
        return min(self.hands_per_game, self.hands - game * self.hands_per_game)

    def header(self, ruleset_id: str) -> Event:
        return {"type": "simulation", "format": LOG_FORMAT, "ruleset": ruleset_id, "seed": self.seed,
                "hands": self.hands, "hands_per_game": self.hands_per_game, "bots": list(self.bots)}


_EVALUATORS: dict[str, tuple[Ruleset, Evaluator]] = {}


def _load(ref: str) -> tuple[Ruleset, Evaluator]:
    if ref not in _EVALUATORS:
        rs = load_ruleset(ref)
        _EVALUATORS[ref] = (rs, Evaluator(rs))
    return _EVALUATORS[ref]


def dump_event(e: Event) -> str:
    return json.dumps(e, ensure_ascii=False, separators=(",", ":")) + "\n"


def play_game(spec: SimSpec, game: int, stats: Stats, out: IO[str] | None) -> None:
    """Play one game (its hands in order), counting into ``stats`` and logging to ``out``."""
    rs, ev = _load(spec.ruleset)
    sink = StatsSink(stats)
    write = out.write if out is not None else None

    calls: list[tuple[int, str]] = []  # this hand's win calls (for the next hand's repeat calls)

    def emit(e: Event) -> None:
        t = e["type"]
        if t == "hand_start":
            e = {"type": "hand_start", "game": game, **{k: v for k, v in e.items() if k != "type"}}
        elif t == "win" and e.get("call"):
            calls.append((e["seat"], e["call"]))
        sink(e)
        if write is not None:
            write(dump_event(e))

    dealer = first_dealer(rs, spec.seed, game)
    last_call: tuple[int, str] | None = None
    stats.games += 1
    for h in range(spec.hands_in_game(game)):
        g = Game(rs, make_bots(spec.bots, spec.seed, game, h), seed=hand_seed(spec.seed, game, h),
                 dealer=dealer, hand_no=game * spec.hands_per_game + h, emit=emit, evaluator=ev,
                 last_winner_call=last_call, hand_in_game=h)
        calls.clear()
        try:
            result = g.play()
        except Exception as e:  # an engine failure: count it, keep the log well-formed, go on
            reason = f"engine error: {type(e).__name__}: {e}"
            emit({"type": "abandon", "reason": reason, "engine_error": True})
            emit({"type": "hand_end", "result": "abandon", "next_dealer": dealer})
            result = HandResult("abandon", [], dealer, [0] * rs.players, error=reason)
            stats.engine_errors += 1
        sink.hand_done(result, dealer)
        last_call = calls[0] if len(calls) == 1 else None
        dealer = result.next_dealer


def run_chunk(spec: SimSpec, games: Sequence[int], log_path: str | None) -> Stats:
    """Worker entry point: play ``games`` in order; log lines go to ``log_path``."""
    rs, _ = _load(spec.ruleset)
    stats = Stats(rs.players)
    if log_path is None:
        for g in games:
            play_game(spec, g, stats, None)
        return stats
    with open(log_path, "w", encoding="utf-8", newline="\n") as out:
        for g in games:
            play_game(spec, g, stats, out)
    return stats


# -- the driver --------------------------------------------------------------------


@dataclass
class SimResult:
    spec: SimSpec
    ruleset_id: str
    ruleset_name: str
    stats: Stats
    seconds: float
    workers: int

    @property
    def hands_per_second(self) -> float:
        return self.stats.hands / self.seconds if self.seconds > 0 else 0.0

    def to_dict(self) -> dict[str, Any]:
        s = self.stats
        n = max(s.hands, 1)
        pats = sorted(s.patterns.items(), key=lambda kv: (-kv[1][0], kv[0]))
        return {
            "ruleset": self.ruleset_id,
            "seed": self.spec.seed,
            "bots": list(self.spec.bots),
            "hands": s.hands,
            "games": s.games,
            "hands_per_game": self.spec.hands_per_game,
            "workers": self.workers,
            "seconds": round(self.seconds, 3),
            "hands_per_second": round(self.hands_per_second, 1),
            "won": s.won,
            "drawn": s.drawn,
            "exhaustive_draws": s.exhaustive,
            "abandoned": s.abandoned,
            "engine_errors": s.engine_errors,
            "win_share": round(s.won / n, 4),
            "winners": s.winners,
            "multi_win_hands": s.multi_win_hands,
            "win_by": {"self_draw": s.self_draw, "discard": s.discard_wins, "robbed_kong": s.robbed_kong},
            "dealer_wins": s.dealer_wins,
            "kongs": s.kongs,
            "claims": s.claims,
            "opening_declarations": s.openings,
            "wins_by_seat": s.wins_by_seat,
            "win_rate_by_seat": [round(w / n, 4) for w in s.wins_by_seat],
            "avg_net_by_seat": [round(x / n, 3) for x in s.net_by_seat],
            "patterns": {name: {"count": c, "per_hand": round(c / n, 4),
                                "per_win": round(c / max(s.winners, 1), 4),
                                "avg_payout": round(pay / c, 2) if c else 0.0}
                         for name, (c, pay) in pats},
            "abandon_reasons": dict(sorted(s.abandon_reasons.items())),
            **({"hands_played_on_after_a_win": s.continued,
                "hands_by_winners": {str(k): v for k, v in sorted(s.by_winners.items())}}
               if s.by_winners else {}),
        }

    def table(self) -> str:
        d = self.to_dict()
        s = self.stats
        n = max(s.hands, 1)
        pct = lambda x: f"{100 * x / n:5.1f}%"  # noqa: E731
        lines = [
            f"{self.ruleset_name} ({self.ruleset_id}) — {s.hands} hands in {s.games} games of "
            f"≤{self.spec.hands_per_game}, seed {self.spec.seed}, bots {','.join(self.spec.bots)}",
            f"time        {self.seconds:.2f} s, {d['hands_per_second']:.1f} hands/s ({self.workers} "
            f"worker{'s' if self.workers != 1 else ''})",
            f"won         {s.won:7d}  {pct(s.won)}   (self-draw {s.self_draw}, discard {s.discard_wins}, "
            f"robbed kong {s.robbed_kong}; multiple winners {s.multi_win_hands}; dealer won {s.dealer_wins})",
            f"drawn       {s.drawn:7d}  {pct(s.drawn)}   (exhaustive {s.exhaustive})",
            *([f"opening     {s.openings:7d}  declarations (paid at once; the hand goes on)"]
              if s.openings else []),
            *([f"played on   {s.continued:7d}  {pct(s.continued)}   after a win; hands by winners: "
               + ", ".join(f"{k}: {v}" for k, v in sorted(s.by_winners.items()))]
              if s.by_winners else []),
            f"abandoned   {s.abandoned:7d}  {pct(s.abandoned)}"
            + (f"   (engine errors {s.engine_errors})" if s.engine_errors else ""),
            "",
            "seat   bot      wins   win rate   avg net/hand",
        ]
        for seat in range(s.players):
            lines.append(f"{seat:>4}   {self.spec.bots[seat]:<7} {s.wins_by_seat[seat]:6d}   "
                         f"{pct(s.wins_by_seat[seat])}    {s.net_by_seat[seat] / n:+10.2f}")
        if d["patterns"]:
            lines += ["", "pattern" + " " * 13 + "count   per hand   per win   avg payout"]
            for name, p in d["patterns"].items():
                pad = 20 - _width(name)
                lines.append(f"{name}{' ' * max(pad, 1)}{p['count']:5d}   {100 * p['per_hand']:7.1f}%  "
                             f"{100 * p['per_win']:7.1f}%   {p['avg_payout']:10.1f}")
        if s.abandon_reasons:
            lines += ["", "abandoned hands:"]
            lines += [f"  {k}: {v}" for k, v in sorted(s.abandon_reasons.items())]
        return "\n".join(lines)


def _width(text: str) -> int:
    """Display width: CJK characters take two columns."""
    return sum(2 if ord(c) > 0x2E80 else 1 for c in text)


def _chmod_like_new_file(path: str) -> None:
    """Temporary files are private (0600); the log gets a new file's usual mode."""
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(path, 0o666 & ~umask)


def _chunks(games: int, workers: int) -> list[list[int]]:
    size = max(1, min(16, games // (workers * 8) or 1))
    return [list(range(i, min(i + size, games))) for i in range(0, games, size)]


def simulate(ruleset: str, hands: int, *, seed: int = 0, bots: str | Sequence[str] = "greedy",
             hands_per_game: int = 8, workers: int = 1, log: str | Path | None = None,
             progress: Callable[[int], None] | None = None) -> SimResult:
    """Play ``hands`` hands; write the log to ``log`` (atomically) if given.

    ``progress(n)`` is called with the number of hands just finished.
    """
    if hands <= 0:
        raise SimulationError(f"the number of hands must be positive, got {hands}")
    if hands_per_game <= 0:
        raise SimulationError(f"hands per game must be positive, got {hands_per_game}")
    if workers <= 0:
        raise SimulationError(f"workers must be positive, got {workers}")
    rs, _ = _load(ruleset)
    names = parse_bots(bots if isinstance(bots, str) else ",".join(bots), rs.players)
    spec = SimSpec(ruleset, hands, seed, names, hands_per_game)
    stats = Stats(rs.players)
    tmp_paths: list[str] = []
    out: IO[str] | None = None
    log_path = Path(log) if log is not None else None
    start = time.perf_counter()
    try:
        if log_path is not None:
            log_path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{log_path.name}.", suffix=".tmp", dir=log_path.parent)
            tmp_paths.append(tmp)
            out = os.fdopen(fd, "w", encoding="utf-8", newline="\n")
            out.write(dump_event(spec.header(rs.id)))
        if workers == 1:
            for g in range(spec.games):
                play_game(spec, g, stats, out)
                if progress:
                    progress(spec.hands_in_game(g))
        else:
            _run_parallel(spec, workers, stats, out, log_path, tmp_paths, progress)
        if out is not None and log_path is not None:
            out.close()
            _chmod_like_new_file(tmp_paths[0])
            os.replace(tmp_paths[0], log_path)
            tmp_paths.pop(0)
    finally:
        if out is not None and not out.closed:
            out.close()
        for p in tmp_paths:
            Path(p).unlink(missing_ok=True)
    seconds = time.perf_counter() - start
    return SimResult(spec, rs.id, rs.name, stats, seconds, workers)


def _worker_init() -> None:
    """Workers leave Ctrl-C to the parent, which cancels what is pending and cleans up."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _run_parallel(spec: SimSpec, workers: int, stats: Stats, out: IO[str] | None, log_path: Path | None,
                  tmp_paths: list[str], progress: Callable[[int], None] | None) -> None:
    chunks = _chunks(spec.games, workers)
    pending: deque[tuple[Future[Stats], str | None, list[int]]] = deque()
    window = workers * 3
    it = iter(chunks)
    with ProcessPoolExecutor(max_workers=workers, initializer=_worker_init) as pool:
        try:
            def submit_next() -> bool:
                games = next(it, None)
                if games is None:
                    return False
                path = None
                if log_path is not None:
                    fd, path = tempfile.mkstemp(prefix=f".{log_path.name}.part{games[0]}.",
                                                dir=log_path.parent)
                    os.close(fd)
                    tmp_paths.append(path)
                pending.append((pool.submit(run_chunk, spec, games, path), path, games))
                return True

            while len(pending) < window and submit_next():
                pass
            while pending:
                fut, path, games = pending.popleft()
                stats.merge(fut.result())
                if path is not None and out is not None:
                    with open(path, encoding="utf-8", newline="\n") as part:
                        shutil.copyfileobj(part, out)
                    Path(path).unlink(missing_ok=True)
                    tmp_paths.remove(path)
                if progress:
                    progress(sum(spec.hands_in_game(g) for g in games))
                submit_next()
        except BaseException:
            for fut, _, _ in pending:
                fut.cancel()
            pool.shutdown(wait=True, cancel_futures=True)
            raise


__all__ = ["SimResult", "SimSpec", "SimulationError", "Stats", "bot_rng", "first_dealer", "hand_seed",
           "make_bots", "parse_bots", "play_game", "run_chunk", "simulate"]
