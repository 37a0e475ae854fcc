"""The evaluator's share of a simulated hand, per call, without a profiler.

    python benchmarks/eval_share.py [--hands N] [--only RULESET ...]

cProfile charges every call its own overhead, so code made of many small calls
(the evaluator's screens, the bots' table look-ups) looks larger in a profile than it
is. This script plays ``--hands`` greedy-bot hands of each ruleset through an
:class:`Evaluator` subclass that records the arguments of the calls the table makes
every turn (and the bots' ``wintable.discard_needs``, looked up through the module by
the bots, so recorded by replacing it while the hands are played and putting it back;
since the bots choose a usual turn's discard block by block from memoised block entries,
``bots._block_choices``, it is left for turns that restrict the discards, and its line
is often absent),
then replays each kind of call alone on a fresh evaluator and reports, per kind, calls
per hand, CPU µs per call and the share of a hand (the same hands played again without
recording, timed). Memos: the replay of ``is_win`` / ``may_win_on`` starts with the
screen's verdicts forgotten, as the game's first sight of each hand.
"""

from __future__ import annotations

import argparse
import copy
import time
from collections.abc import Callable
from typing import Any

from mjframework.evaluate import wintable
from mjframework.evaluate.scoring import Evaluator
from mjframework.play.bots import GreedyBot
from mjframework.play.game import Game
from mjframework.rules.loader import load_ruleset

RULESETS = ("yongzhou-huandiao", "yongzhou-wangba", "changsha", "sichuan-xuezhan", "mcr")
KINDS = ("win_candidates_of", "may_win_any_of", "may_win_on", "is_win", "score", "score_opening",
         "settle")


def _frozen(args: tuple[Any, ...]) -> tuple[Any, ...]:
    """The call's arguments as they were (the table's lists change after the call)."""
    return tuple(copy.copy(a) if isinstance(a, (list, bytearray)) else a for a in args)


class RecordingEvaluator(Evaluator):
    """An evaluator that notes the arguments of the calls in :data:`KINDS`."""

    calls: dict[str, list[tuple[tuple[Any, ...], dict[str, Any]]]]

    def _note(self, kind: str, args: tuple[Any, ...], kw: dict[str, Any]) -> None:
        self.calls.setdefault(kind, []).append((_frozen(args), dict(kw)))

    def win_candidates_of(self, *a: Any, **k: Any) -> Any:
        self._note("win_candidates_of", a, k)
        return super().win_candidates_of(*a, **k)

    def may_win_any_of(self, *a: Any, **k: Any) -> Any:
        self._note("may_win_any_of", a, k)
        return super().may_win_any_of(*a, **k)

    def may_win_on(self, *a: Any, **k: Any) -> Any:
        self._note("may_win_on", a, k)
        return super().may_win_on(*a, **k)

    def is_win(self, *a: Any, **k: Any) -> Any:
        self._note("is_win", a, k)
        return super().is_win(*a, **k)

    def score(self, *a: Any, **k: Any) -> Any:
        self._note("score", a, k)
        return super().score(*a, **k)

    def score_opening(self, *a: Any, **k: Any) -> Any:
        self._note("score_opening", a, k)
        return super().score_opening(*a, **k)

    def settle(self, *a: Any, **k: Any) -> Any:
        self._note("settle", a, k)
        return super().settle(*a, **k)


def _play(rs: Any, ev: Evaluator, first: int, hands: int) -> None:
    for s in range(first, first + hands):
        Game(rs, [GreedyBot() for _ in range(rs.players)], seed=s, evaluator=ev).play()


def share(name: str, hands: int) -> None:
    rs = load_ruleset(name)
    rec = RecordingEvaluator(rs)
    rec.calls = {}
    needs: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
    real = wintable.discard_needs

    def discard_needs(counts: Any, candidates: Any) -> list[int]:
        needs.append(((list(counts), list(candidates)), {}))
        return real(counts, candidates)

    wintable.discard_needs = discard_needs
    try:
        _play(rs, rec, 0, hands)
    finally:
        wintable.discard_needs = real
    ev = Evaluator(rs)
    _play(rs, ev, 10_000, 5)  # (tables loaded, memos warm)
    t0 = time.process_time()
    _play(rs, ev, 0, hands)
    hand = (time.process_time() - t0) / hands
    print(f"{name}: a hand {hand * 1e6:,.0f} µs (CPU)")
    fresh = Evaluator(rs)
    todo: list[tuple[str, Callable[..., Any], list[tuple[tuple[Any, ...], dict[str, Any]]]]] = [
        (kind, getattr(fresh, kind), rec.calls[kind]) for kind in KINDS if kind in rec.calls]
    todo.append(("discard_needs (bots)", real, needs))
    for kind, f, calls in todo:
        if kind in ("is_win", "may_win_on"):
            fresh.screen.clear_memo()
        t0 = time.process_time()
        for a, k in calls:
            f(*a, **k)
        dt = time.process_time() - t0
        if calls:
            print(f"  {kind:22s} {len(calls) / hands:6.1f} a hand × {dt / len(calls) * 1e6:7.2f} µs"
                  f" = {dt / hands / hand * 100:5.1f} % of a hand")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hands", type=int, default=100)
    ap.add_argument("--only", action="append", choices=RULESETS)
    args = ap.parse_args()
    for name in args.only or RULESETS:
        share(name, args.hands)


if __name__ == "__main__":
    main()
