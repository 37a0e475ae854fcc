"""Matches between players: built-in bots and external programs, optionally duplicate.

``mj match RULESET --seats bot1,greedy,greedy,random --bot 'python my_bot.py'
--hands 400 --duplicate``: each *board* (one wall, one dealer) is played once
per rotation of the participants round the table, so every participant plays
every seat of every wall — the luck of the deal cancels out. Standings give
each participant's mean money per hand and win rate, each with a 95%
confidence interval (normal approximation over boards: a board's rotations
are one paired sample in a duplicate match, a hand is one sample otherwise).
Players are built-in bots, external programs (``--bot``) or trained policies
(a ``.npz`` path, :mod:`mjframework.run.envs.policy`). Everything derives
from the seed: the same command prints the same numbers.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core.errors import MJError
from ..evaluate.scoring import Evaluator
from ..play.bots import BOTS
from ..play.events import EventSink, fan_out
from ..play.game import Game, HandResult
from ..rules.model import Ruleset
from .simulate import hand_seed, load_cached, play_hands


class MatchError(MJError):
    """A match that can't be played as asked (bad seats, hand count)."""


@dataclass
class Standing:
    name: str
    hands: int = 0
    total: int = 0
    wins: int = 0
    per_sample: list[float] = field(default_factory=list)
    win_samples: list[float] = field(default_factory=list)  # share of a sample's hands won

    @property
    def mean(self) -> float:
        return self.total / self.hands if self.hands else 0.0

    @property
    def ci95(self) -> float:
        """Half-width of the 95% confidence interval of the mean per hand."""
        return _half_width(self.per_sample)

    @property
    def win_rate(self) -> float:
        return self.wins / self.hands if self.hands else 0.0

    @property
    def win_ci95(self) -> float:
        """Half-width of the 95% confidence interval of the win rate (same samples as :attr:`ci95`)."""
        return _half_width(self.win_samples)


def _half_width(xs: list[float]) -> float:
    """1.96 standard errors of the mean of ``xs`` (normal approximation); ∞ under two samples."""
    if len(xs) < 2:
        return math.inf
    m = sum(xs) / len(xs)
    var = sum((x - m) ** 2 for x in xs) / (len(xs) - 1)
    return 1.96 * math.sqrt(var / len(xs))


@dataclass
class MatchResult:
    ruleset: str
    seed: int
    hands: int
    duplicate: bool
    standings: list[Standing]
    abandoned: int = 0
    notes: list[str] = field(default_factory=list)
    left: dict[str, str] = field(default_factory=dict)  # external bot → why it left (`mj match` exits 1)

    def table(self) -> str:
        kind = "duplicate (each board played from every seat)" if self.duplicate else "fixed seats"
        lines = [f"{self.ruleset}: {self.hands} hands, seed {self.seed}, {kind}",
                 f"{'':2}{'player':<16}{'hands':>7}{'total':>9}{'per hand':>11}{'± 95% CI':>11}{'win %':>8}"
                 f"{'± 95% CI':>10}"]
        for i, s in enumerate(sorted(self.standings, key=lambda s: (-s.mean, s.name)), 1):
            ci = "∞" if math.isinf(s.ci95) else f"{s.ci95:.2f}"
            wci = "∞" if math.isinf(s.win_ci95) else f"{100 * s.win_ci95:.1f}"
            lines.append(f"{i:<2}{s.name:<16}{s.hands:>7}{s.total:>+9}{s.mean:>+11.2f}{ci:>11}"
                         f"{100 * s.win_rate:>7.1f}%{wci:>10}")
        if self.abandoned:
            lines.append(f"abandoned hands: {self.abandoned}")
        lines += self.notes
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {"ruleset": self.ruleset, "seed": self.seed, "hands": self.hands, "duplicate": self.duplicate,
                "abandoned": self.abandoned, "left": dict(self.left),
                "standings": [{"name": s.name, "hands": s.hands, "total": s.total, "mean": s.mean,
                               "ci95": None if math.isinf(s.ci95) else s.ci95, "wins": s.wins,
                               "win_rate": s.win_rate,
                               "win_ci95": None if math.isinf(s.win_ci95) else s.win_ci95}
                              for s in self.standings]}


def _names(seats: Sequence[str]) -> list[str]:
    """Participant names: a name used twice becomes ``greedy#1``, ``greedy#2``."""
    counts: dict[str, int] = {}
    for s in seats:
        counts[s] = counts.get(s, 0) + 1
    seen: dict[str, int] = {}
    out = []
    for s in seats:
        if counts[s] > 1:
            seen[s] = seen.get(s, 0) + 1
            out.append(f"{s}#{seen[s]}")
        else:
            out.append(s)
    return out


def _load_policies(names: Any) -> dict[str, Any]:
    """Seats named by a ``.npz`` path: trained policies (mjframework.run.envs.policy)."""
    out: dict[str, Any] = {}
    for name in names:
        if name.endswith(".npz") and name not in out:
            try:
                from .envs.policy import MLPPolicy, PolicyBot
            except ImportError as e:  # numpy missing
                raise MatchError(f"--seats {name}: a trained policy needs numpy (the env extra): "
                                 f"{e}") from None
            out[name] = PolicyBot(MLPPolicy.load(name))
    return out


def run_match(ruleset_ref: str, seats: Sequence[str], hands: int, *, seed: int = 0, duplicate: bool = False,
              bots: Sequence[tuple[str, str]] = (), bot_timeout: float = 10.0,
              progress: Callable[[int], None] | None = None, hands_per_board: int = 1) -> MatchResult:
    """Play ``hands`` hands between ``seats`` (built-in bot names or the names of ``bots``).

    ``hands_per_board`` > 1: a board is a game of that many hands, played as ``mj simulate``
    plays a game (:func:`~.simulate.play_hands`: the dealer passes by the rules, the ruleset's
    ``counters`` carry from hand to hand); a duplicate match replays the whole game per
    rotation. With 1 (the default) a board is one hand with a dealer of its own."""
    from .extbot import open_bot

    rs, ev = load_cached(ruleset_ref)
    n = rs.players
    if len(seats) != n:
        raise MatchError(f"--seats: {rs.id} needs {n} players, got {len(seats)} ({', '.join(seats)})")
    commands = dict(bots)
    policies = _load_policies(s for s in seats if s not in BOTS and s not in commands)
    unknown = [s for s in seats if s not in BOTS and s not in commands and s not in policies]
    if unknown:
        raise MatchError(f"--seats: unknown player {unknown[0]!r} (built-in: {', '.join(sorted(BOTS))}; "
                         f"external: {', '.join(commands) or 'none given with --bot'}; "
                         "or a trained policy's .npz file)")
    unused = [b for b in commands if b not in seats]
    if unused:
        raise MatchError(f"--bot {unused[0]} is not seated (--seats {','.join(seats)})")
    if hands <= 0:
        raise MatchError(f"the number of hands must be positive, got {hands}")
    if duplicate and hands % n:
        raise MatchError(f"a duplicate match plays each board {n} times: --hands must be a multiple of {n}")
    if hands_per_board < 1:
        raise MatchError(f"--hands-per-board must be positive, got {hands_per_board}")
    if hands % ((n if duplicate else 1) * hands_per_board):
        raise MatchError(f"--hands must be a multiple of --hands-per-board ({hands_per_board})"
                         + (f" × {n} rotations" if duplicate else ""))
    names = _names(seats)
    standings = [Standing(name) for name in names]
    result = MatchResult(rs.id, seed, hands, duplicate, standings)
    externals: dict[int, Any] = {}  # --bot: external programs, or trained policies (NAME=FILE.npz)
    try:
        for i, s in enumerate(seats):
            if s in commands:
                try:
                    externals[i] = open_bot(commands[s], rs, name=names[i], timeout=bot_timeout)
                except ValueError as e:
                    raise MatchError(str(e)) from None
        rotations = n if duplicate else 1
        boards = hands // (rotations * hands_per_board)
        for board in range(boards):
            dealer = random.Random(f"{seed}/{board}/dealer").randrange(n)
            board_money = [0.0] * n
            board_wins = [0] * n
            for r in range(rotations):
                at = [(i + r) % n for i in range(n)]  # participant i sits at seat at[i]
                players: list[Any] = [None] * n
                for i in range(n):
                    seat = at[i]
                    if i in externals:
                        externals[i].sit(seat)
                        players[seat] = externals[i]
                    elif seats[i] in policies:
                        players[seat] = policies[seats[i]]
                    else:
                        players[seat] = BOTS[seats[i]](random.Random(f"{seed}/{board}/{seat}"))
                for res in _board_hands(rs, ev, players, seed, board, r, dealer, hands_per_board,
                                        fan_out(*externals.values()), result):
                    if res.result == "abandon":
                        result.abandoned += 1
                    for i in range(n):
                        money = res.payments[at[i]]
                        st = standings[i]
                        st.hands += 1
                        st.total += money
                        st.wins += at[i] in res.winners
                        board_money[i] += money
                        board_wins[i] += at[i] in res.winners
                        if not duplicate:
                            st.per_sample.append(money)
                            st.win_samples.append(1.0 if at[i] in res.winners else 0.0)
                    if progress:
                        progress(1)
            if duplicate:
                for i in range(n):
                    standings[i].per_sample.append(board_money[i] / (rotations * hands_per_board))
                    standings[i].win_samples.append(board_wins[i] / (rotations * hands_per_board))
        for bot in externals.values():
            if bot.gone not in (None, "the session ended"):
                result.notes.append(f"{bot.name} left: {bot.gone}")
                result.left[bot.name] = bot.gone
    finally:
        for bot in externals.values():
            bot.close()
    return result


def _board_hands(rs: Ruleset, ev: Evaluator, players: list[Any], seed: int, board: int, rotation: int,
                 dealer: int, hands: int, emit: EventSink, result: MatchResult) -> Iterator[HandResult]:
    """The hands of one board played by ``players`` (one rotation), each result once played.

    One hand: the board's own seed and ``dealer``. More: a game of ``hands`` hands as
    :func:`~.simulate.play_hands` plays it (the counters carried, the deal passed by the
    rules). An engine failure is counted as an abandoned hand and ends the board's rotation."""

    def attached(game: Game) -> HandResult:
        for p in players:
            if hasattr(p, "attach"):  # a trained policy reads the table through its game
                p.attach(game)
        return game.play()

    try:
        if hands == 1:
            yield attached(Game(rs, players, seed=hand_seed(seed, 0, board), dealer=dealer, hand_no=board,
                                emit=emit, evaluator=ev))
            return
        for _game, res in play_hands(rs, lambda _h: players, seed=seed, game=board, hands=hands,
                                     first_hand_no=board * hands, emit=emit, evaluator=ev, play=attached):
            yield res
    except Exception as e:  # an engine failure: counted, the match goes on
        result.abandoned += 1
        result.notes.append(f"board {board} rotation {rotation}: engine error: {type(e).__name__}: {e}")


__all__ = ["MatchError", "MatchResult", "Standing", "run_match"]
