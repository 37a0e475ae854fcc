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

**Failures and interruptions.** Each hand has a deadline (``hand_timeout``):
past it a timer signal stops the hand where it is and the plugin running
then is named in the ``abandon`` event. A worker process that dies (killed,
out of memory, a plugin ending the process) loses its chunk: the chunk's
games are replayed one by one in fresh processes, and a game whose process
dies again is logged as abandoned, hand by hand. Workers die with the parent
(:func:`~mjframework.core.procs.die_with_parent`), and a Ctrl-C or SIGTERM kills
them at once rather than waiting for a hung hand. Temporary files carry the
writer's pid (``.F.jsonl.PID.….tmp``); a later run writing the same log
removes those whose writer is gone (after a SIGKILL).
"""

from __future__ import annotations

import gc
import json
import os
import random
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Callable, Generator, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import IO, Any

from ..core.errors import MJError
from ..core.fileio import commit, is_stdio, temp_beside
from ..evaluate import wintable
from ..evaluate.scoring import Evaluator
from ..hooks.registry import HandDeadline
from ..play.bots import BOTS, GreedyBot
from ..play.events import Event, EventSink, counting, counting_of
from ..play.game import Game, HandResult
from ..play.series import Carry, watching
from ..rules.loader import load_ruleset
from ..rules.model import Ruleset
from .runner import ProcessPool, kill_pool, return_free_memory, run_alone, run_windowed, usable_workers

LOG_FORMAT = 1
HAND_TIMEOUT = 60.0  # seconds a hand may take (a greedy hand takes milliseconds)


class SimulationError(MJError):
    """Bad simulation input (hand count, bots, workers …)."""


# -- deterministic derivation ---------------------------------------------------


def hand_seed(seed: int, game: int, hand: int) -> int:
    """The engine seed of hand ``hand`` (0-based, within the game) of game ``game``."""
    return random.Random(f"{seed}/{game}/{hand}").getrandbits(63)


def bot_rng(seed: int, game: int, hand: int, seat: int) -> random.Random:
    """The RNG a bot at ``seat`` uses for that hand."""
    return random.Random(_bot_seed(seed, game, hand, seat))


def _bot_seed(seed: int, game: int, hand: int, seat: int) -> str:
    return f"{seed}/{game}/{hand}/bot{seat}"


def first_dealer(ruleset: Ruleset, seed: int, game: int) -> int:
    """The first dealer of a game, as ``dealer.first`` says."""
    rule = ruleset.dealer.first
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
    """The hand's bots, each with its RNG from :func:`bot_rng` (a greedy bot seeds it only
    if it is ever asked for: the same generator then, and no seeding cost per hand)."""
    return [GreedyBot(rng_seed=_bot_seed(seed, game, hand, seat)) if BOTS[name] is GreedyBot
            else BOTS[name](bot_rng(seed, game, hand, seat)) for seat, name in enumerate(names)]


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
        for name, (n, pay) in other.patterns.items():
            mine = self.patterns.setdefault(name, [0, 0])
            mine[0] += n
            mine[1] += pay
        for reason, n in other.abandon_reasons.items():
            self.abandon_reasons[reason] = self.abandon_reasons.get(reason, 0) + n


class StatsSink:
    """An event sink that counts what the events of each hand say."""

    # The event types whose fields it reads; of the frequent others it counts only the type
    # (events.CountingSink: the engine calls ``count`` instead of building them).
    FIELDS_READ = frozenset({"win", "opening_win", "settlement", "claim", "hand_end"})
    fields_read = FIELDS_READ

    def __init__(self, stats: Stats) -> None:
        self.stats = stats
        self._pending: tuple[int, list[str]] | None = None
        self._last = ""  # type of the last event other than a settlement
        self._won = False  # a win this hand
        self._went_on = False  # and play after it

    def __call__(self, e: Event) -> None:
        t = e["type"]
        if t == "draw" or t == "discard":  # two every turn: only their type counts
            if self._won:
                self._went_on = True
            self._last = t
            return
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

    def count(self, type_: str) -> None:
        """An event of ``type_`` whose fields it does not read (a draw, a discard, the deal,
        the wall, a plugin's call): what ``__call__`` does with its type alone."""
        if self._won and (type_ == "draw" or type_ == "discard"):
            self._went_on = True
        self._last = type_

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
    options: tuple[tuple[str, str], ...] = ()  # house-rule options (name, value), as given
    preset: str | None = None
    hand_timeout: float = HAND_TIMEOUT  # 0: no deadline

    @property
    def games(self) -> int:
        return -(-self.hands // self.hands_per_game)

    def hands_in_game(self, game: int) -> int:
        return min(self.hands_per_game, self.hands - game * self.hands_per_game)

    def header(self, ruleset_id: str) -> Event:
        out: Event = {"type": "simulation", "format": LOG_FORMAT, "ruleset": ruleset_id, "seed": self.seed,
                      "hands": self.hands, "hands_per_game": self.hands_per_game, "bots": list(self.bots)}
        if self.options or self.preset:
            rs, _ = load_cached(self.ruleset, self.options, self.preset)
            out["options"] = rs.options
            if self.preset:
                out["preset"] = self.preset
        return out


_EVALUATORS: dict[tuple[object, ...], tuple[Ruleset, Evaluator]] = {}


def options_key(options: Any) -> tuple[tuple[str, str], ...]:
    items = options.items() if isinstance(options, dict) else options or ()
    return tuple(sorted((str(k), str(v)) for k, v in items))


def load_cached(ref: str, options: Any = (), preset: str | None = None) -> tuple[Ruleset, Evaluator]:
    """The ruleset (with its chosen options) and an evaluator, once per process."""
    key = (ref, options_key(options), preset)
    if key not in _EVALUATORS:
        from ..evaluate.wintable import ensure_tables

        rs = load_ruleset(ref, options=dict(key[1]) or None, preset=preset)
        _EVALUATORS[key] = (rs, Evaluator(rs))
        ensure_tables()  # now, not lazily inside the first hand (where its deadline would cut it off)
    return _EVALUATORS[key]


def dump_event(e: Event) -> str:
    return json.dumps(e, ensure_ascii=False, separators=(",", ":")) + "\n"


@contextmanager
def hand_deadline(seconds: float) -> Iterator[None]:
    """Raise :class:`HandDeadline` in this (main) thread if the block runs past ``seconds``.

    A real-time timer signal interrupts pure-Python loops and sleeps alike. Off the
    main thread (a Dask worker's thread) or without ``setitimer``, there is no deadline.
    """
    import threading

    if seconds <= 0 or not hasattr(signal, "setitimer") or \
            threading.current_thread() is not threading.main_thread():
        yield
        return

    def expired(signum: int, frame: Any) -> None:
        raise HandDeadline(f"the hand ran past its {seconds:g} s deadline")

    old = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


class _Deadlines:
    """:func:`hand_deadline` for a run of hands: the timer-signal handler installed once
    (``with``), the timer armed around each hand (:meth:`hand`). A game plays ~8 hands;
    installing and restoring the handler per hand cost about 1 % of a greedy hand."""

    def __init__(self, seconds: float) -> None:
        import threading

        self.seconds = seconds
        self.on = (seconds > 0 and hasattr(signal, "setitimer")
                   and threading.current_thread() is threading.main_thread())
        self._old: Any = None

    def __enter__(self) -> _Deadlines:
        if self.on:
            seconds = self.seconds

            def expired(signum: int, frame: Any) -> None:
                raise HandDeadline(f"the hand ran past its {seconds:g} s deadline")

            self._old = signal.signal(signal.SIGALRM, expired)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.on:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self._old)

    def hand(self, play: Callable[[], HandResult]) -> HandResult:
        """``play()`` with the deadline armed (and disarmed after, whatever happens)."""
        if not self.on:
            return play()
        signal.setitimer(signal.ITIMER_REAL, self.seconds)
        try:
            return play()
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)


def hand_series(rs: Ruleset, players: Callable[[int], list[Any]], *, seed: int, game: int = 0,
                hands: int, first_hand_no: int = 0, emit: EventSink,
                evaluator: Evaluator | Any,  # or a stand-in that forwards to one (the table's ScoreRecorder)
                ) -> Generator[Game, HandResult, None]:
    """The hands of one game in order, for a caller that plays each hand itself: yields each
    hand's :class:`Game` before it is played and is *sent* that hand's result to make the next.

    The one loop over a series of hands (``mj simulate``, ``mj play``'s two tables; see
    :func:`play_hands` for the rules it keeps). A caller that plays a hand step by step (the
    full-screen table drives :meth:`Game.steps` from its event loop) uses this form; a
    caller with a plain ``play(game)`` uses :func:`play_hands`. Stop early by leaving it.
    """
    carry = Carry(rs, first_dealer(rs, seed, game))  # dealer, counters, deal passes, last call
    # A counting sink stays one through the wrapper (reading wins too).
    counts = counting_of(emit)
    sink: EventSink = watching(carry, emit)
    if counts is not None:
        sink = counting(sink, counts[0] | {"win"}, counts[1])
    for h in range(hands):
        g = Game(rs, players(h), seed=hand_seed(seed, game, h), hand_no=first_hand_no + h,
                 emit=sink, evaluator=evaluator, **carry.game_kwargs())
        carry.after((yield g))


def play_hands(rs: Ruleset, players: Callable[[int], list[Any]], *, seed: int, game: int = 0,
               hands: int, first_hand_no: int = 0, emit: EventSink,
               evaluator: Evaluator | Any,  # or a stand-in that forwards to one (the table's ScoreRecorder)
               play: Callable[[Game], HandResult] = Game.play) -> Iterator[tuple[Game, HandResult]]:
    """Play the hands of one game in order; yield each ``(game, result)`` once it is played.

    The one loop over a series of hands (``mj simulate``, ``mj play``'s two tables): hand
    ``h`` gets ``players(h)`` and the seed ``hand_seed(seed, game, h)``; the first dealer is
    :func:`first_dealer`'s, then each hand's ``next_dealer`` deals (an abandoned hand's
    too: the same dealer again); the previous hand's win call (when it had exactly one)
    is carried into the next hand for repeat calls. ``play`` plays one hand (the caller's
    deadline or error handling, or screen set-up, goes there); stop early by leaving the loop.
    """
    series = hand_series(rs, players, seed=seed, game=game, hands=hands, first_hand_no=first_hand_no,
                         emit=emit, evaluator=evaluator)
    g = next(series, None)
    while g is not None:
        result = play(g)
        yield g, result
        try:
            g = series.send(result)
        except StopIteration:
            return


def play_game(spec: SimSpec, game: int, stats: Stats, out: IO[str] | None) -> None:
    """Play one game (its hands in order), counting into ``stats`` and logging to ``out``."""
    rs, ev = load_cached(spec.ruleset, spec.options, spec.preset)
    sink = StatsSink(stats)
    write = out.write if out is not None else None

    def logged(e: Event) -> None:
        if e["type"] == "hand_start":
            e = {"type": "hand_start", "game": game, **{k: v for k, v in e.items() if k != "type"}}
        sink(e)
        if write is not None:
            write(dump_event(e))

    # Counting only: the statistics sink itself, which reads few events' fields and counts the
    # frequent others (their tile codes need not be made).
    emit: EventSink = logged if write is not None else sink

    def play(g: Game) -> HandResult:
        try:
            return deadlines.hand(g.play)
        except HandDeadline as e:  # the deadline passed outside any plugin (a bot, the engine)
            reason = f"timed out: {e}"
            emit({"type": "abandon", "reason": reason})
            emit({"type": "hand_end", "result": "abandon", "next_dealer": g.dealer})
            return HandResult("abandon", [], g.dealer, [0] * rs.players, error=reason)
        except Exception as e:  # an engine failure: count it, keep the log well-formed, go on
            reason = f"engine error: {type(e).__name__}: {e}"
            emit({"type": "abandon", "reason": reason, "engine_error": True})
            emit({"type": "hand_end", "result": "abandon", "next_dealer": g.dealer})
            stats.engine_errors += 1
            return HandResult("abandon", [], g.dealer, [0] * rs.players, error=reason)

    stats.games += 1
    with _Deadlines(spec.hand_timeout) as deadlines:
        for g, result in play_hands(rs, lambda h: make_bots(spec.bots, spec.seed, game, h), seed=spec.seed,
                                    game=game, hands=spec.hands_in_game(game),
                                    first_hand_no=game * spec.hands_per_game, emit=emit, evaluator=ev,
                                    play=play):
            sink.hand_done(result, g.dealer)


def run_chunk(spec: SimSpec, games: Sequence[int], log_path: str | None) -> Stats:
    """Worker entry point: play ``games`` in order; log lines go to ``log_path``."""
    rs, _ = load_cached(spec.ruleset, spec.options, spec.preset)
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

    def failure_summary(self) -> str | None:
        """``12 hands abandoned: plugin 'x' timed out in … (12)``, or None if no hand was."""
        return abandon_summary(self.stats)

    def to_dict(self) -> dict[str, Any]:
        s = self.stats
        n = max(s.hands, 1)
        pats = sorted(s.patterns.items(), key=lambda kv: (-kv[1][0], kv[0]))
        return {
            "ruleset": self.ruleset_id,
            "options": load_cached(self.spec.ruleset, self.spec.options, self.spec.preset)[0].options,
            "preset": self.spec.preset,
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

        def pct(x: float) -> str:
            return f"{100 * x / n:5.1f}%"

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


def abandon_summary(stats: Stats) -> str | None:
    if not stats.abandoned:
        return None
    reasons = sorted(stats.abandon_reasons.items(), key=lambda kv: (-kv[1], kv[0]))
    why = "; ".join(f"{k} ({n})" for k, n in reasons[:5]) + ("; …" if len(reasons) > 5 else "")
    return f"{stats.abandoned} hand{'s' if stats.abandoned != 1 else ''} abandoned: {why}"


def _width(text: str) -> int:
    """Display width: CJK characters take two columns."""
    return sum(2 if ord(c) > 0x2E80 else 1 for c in text)


def game_chunks(games: int, workers: int) -> list[list[int]]:
    size = max(1, min(16, games // (workers * 8) or 1))
    return [list(range(i, min(i + size, games))) for i in range(0, games, size)]


def simulate(ruleset: str, hands: int, *, seed: int = 0, bots: str | Sequence[str] = "greedy",
             hands_per_game: int = 8, workers: int = 1, log: str | Path | None = None,
             progress: Callable[[int], None] | None = None, options: dict[str, Any] | None = None,
             preset: str | None = None, hand_timeout: float = HAND_TIMEOUT) -> SimResult:
    """Play ``hands`` hands; write the log to ``log`` (atomically) if given; ``"-"``: to stdout.

    ``progress(n)`` is called with the number of hands just finished; a hand
    running longer than ``hand_timeout`` seconds is abandoned (0: no deadline).
    ``options`` / ``preset``: the ruleset's house-rule options to play with.
    """
    if hands <= 0:
        raise SimulationError(f"the number of hands must be positive, got {hands}")
    if hands_per_game <= 0:
        raise SimulationError(f"hands per game must be positive, got {hands_per_game}")
    if workers <= 0:
        raise SimulationError(f"workers must be positive, got {workers}")
    if not hand_timeout >= 0:
        raise SimulationError(f"the hand timeout must be 0 (none) or positive, got {hand_timeout}")
    rs, _ = load_cached(ruleset, options, preset)
    names = parse_bots(bots if isinstance(bots, str) else ",".join(bots), rs.players)
    spec = SimSpec(ruleset, hands, seed, names, hands_per_game, options=options_key(options), preset=preset,
                   hand_timeout=hand_timeout)
    workers = usable_workers(workers, hands)  # (capped: runner.usable_workers)
    stats = Stats(rs.players)
    tmp_paths: list[str] = []
    out: IO[str] | None = None
    to_stdout = is_stdio(log)
    log_path = Path(log) if log is not None and not to_stdout else None
    start = time.perf_counter()
    try:
        if to_stdout:
            out = sys.stdout
            out.write(dump_event(spec.header(rs.id)))
        elif log_path is not None:
            fd, tmp = temp_beside(log_path)
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
            commit(tmp_paths[0], log_path)
            tmp_paths.pop(0)
        elif out is not None:
            out.flush()
    finally:
        if out is not None and not out.closed and not to_stdout:
            out.close()
        for p in tmp_paths:
            Path(p).unlink(missing_ok=True)
    seconds = time.perf_counter() - start
    return SimResult(spec, rs.id, rs.name, stats, seconds, workers)


def _run_part(spec: SimSpec, part: tuple[list[int], str | None]) -> Stats:
    """A worker's unit: ``run_chunk`` on (games, the path its log lines go to)."""
    return run_chunk(spec, *part)


def abandoned_game(spec: SimSpec, game: int, players: int, reason: str, out: IO[str] | None) -> Stats:
    """Stats (and log lines) for a game whose worker process died: every hand abandoned."""
    stats = Stats(players)
    stats.games = 1
    n = spec.hands_in_game(game)
    stats.hands = stats.abandoned = n
    stats.abandon_reasons[reason] = n
    if out is not None:
        for h in range(n):
            out.write(dump_event({"type": "abandon", "game": game, "hand": game * spec.hands_per_game + h,
                                  "reason": reason, "worker_died": True}))
            out.write(dump_event({"type": "hand_end", "result": "abandon", "next_dealer": None}))
    return stats


def _isolated(spec: SimSpec, players: int, part: tuple[list[int], str | None]) -> Stats:
    """Replay a chunk whose worker died, one game per fresh process; a game that kills its
    process again is abandoned (a plugin ending the process, memory, a crash)."""
    games, path = part
    stats = Stats(players)
    out = open(path, "w", encoding="utf-8", newline="\n") if path is not None else None  # noqa: SIM115
    try:
        for g in games:
            sub = None
            if path is not None:
                fd, sub = tempfile.mkstemp(prefix=Path(path).name + ".", suffix=".tmp", dir=Path(path).parent)
                os.close(fd)
            try:
                st = run_alone(partial(_run_part, spec), ([g], sub))
                if st is None:
                    st = abandoned_game(spec, g, players, "worker process died", out)
                elif out is not None and sub is not None:
                    with open(sub, encoding="utf-8", newline="\n") as part_file:
                        shutil.copyfileobj(part_file, out)
            finally:
                if sub is not None:
                    Path(sub).unlink(missing_ok=True)
            stats.merge(st)
    finally:
        if out is not None:
            out.close()
    return stats


@contextmanager
def shared_with_workers(spec: SimSpec) -> Iterator[None]:
    """Load what every worker needs here, once, before the pool forks.

    The win tables (2 MB of read-only buffers, never written by a lookup) and the loaded
    ruleset and evaluator are made in this process: forked workers share those pages
    instead of each loading its own copy. ``gc.freeze()`` keeps the collector from writing
    to them (which would copy them); what loading freed goes back to the system first
    (:func:`~.runner.return_free_memory`), not into each worker's copies. Each step was
    measured on ``benchmarks/bench_memory.py``'s tree (its ruleset, 1,000 hands, 2 workers):
    without the freeze 73–75 MB instead of 59–60, without the trim 62–63, with the ruleset
    loaded by each worker instead 61; the ``spawn`` and ``forkserver`` start methods 107–113.
    """
    wintable.ensure_tables()
    load_cached(spec.ruleset, spec.options, spec.preset)
    gc.collect()
    return_free_memory()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def _run_parallel(spec: SimSpec, workers: int, stats: Stats, out: IO[str] | None, log_path: Path | None,
                  tmp_paths: list[str], progress: Callable[[int], None] | None) -> None:
    players = stats.players

    def parts() -> Iterator[tuple[list[int], str | None]]:
        for games in game_chunks(spec.games, workers):
            path = None
            if out is not None:  # each chunk's events, copied into the log in game order
                if log_path is not None:
                    fd, path = temp_beside(log_path, suffix=".part", tag=f"part{games[0]}.")
                else:
                    fd, path = tempfile.mkstemp(prefix=f"mj-log.part{games[0]}.")
                os.close(fd)
                tmp_paths.append(path)
            yield games, path

    def merge(part: tuple[list[int], str | None], chunk_stats: Stats) -> None:
        games, path = part
        stats.merge(chunk_stats)
        if path is not None and out is not None:
            with open(path, encoding="utf-8", newline="\n") as part_file:
                shutil.copyfileobj(part_file, out)
            Path(path).unlink(missing_ok=True)
            tmp_paths.remove(path)
        if progress:
            progress(sum(spec.hands_in_game(g) for g in games))

    with shared_with_workers(spec):
        pool = ProcessPool(partial(_run_part, spec), workers, partial(_isolated, spec, players))
        try:
            run_windowed(parts(), pool.submit, workers * 3, merge)
        except BaseException:
            pool.kill()
            raise
        pool.shutdown()


__all__ = ["HAND_TIMEOUT", "SimResult", "SimSpec", "SimulationError", "Stats", "abandon_summary", "bot_rng",
           "first_dealer", "hand_deadline", "hand_seed", "hand_series", "kill_pool", "make_bots",
           "parse_bots", "play_game", "play_hands", "run_chunk", "simulate"]
