"""A win's verdict without the refusal's result: what :meth:`Evaluator.is_win` needs of the
scorer when the tables cannot decide a hand.

Under a minimum to win (``scoring.minimum``) fitting a shape is not a win, so every such hand
is scored; in play most of them are refused (benchmarks/README.md, "`is_win` under a minimum"). The
verdict is the reference's (:meth:`Evaluator._finish`: the best reading's points toward the
minimum), but a refused hand builds no :class:`~.results.Score` — no sorted patterns, no
reason text — and a win's is built once, to be handed over for settling
(:meth:`~.fastwin.WinScreen.scored_before`). ``tests/test_verdict.py`` compares it with
``score(...).win``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.hand import Hand, WinContext
from ..core.tiles import Tile
from .results import Score

if TYPE_CHECKING:
    from .scoring import Evaluator


def scored_win(ev: Evaluator, hand: Hand, ctx: WinContext, wildcard: Tile | None) -> Score | None:
    """The hand's :class:`Score` if it wins, None if it does not (as ``ev._score(...).win``)."""
    wild = ev._wildcard(wildcard)
    best = ev._best(hand, ctx, wild)
    if isinstance(best, str):
        return None
    _key, reading, picked, points = best
    minimum = ev.ruleset.scoring.minimum
    if minimum is not None and ev._combined([(p, n) for p, n in picked if p.counts_to_minimum]) < minimum:
        return None
    return ev._finish(reading, picked, points, wild)
