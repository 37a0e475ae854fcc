"""What one hand of a game hands on to the next: the one place that keeps it.

A game is a series of hands (``mj simulate``, ``mj play``'s tables, rooms, ``mj match``
boards of several hands, a stepped :class:`~mjframework.play.stepper.Table` or the
learning env told to play a game). Between two hands four things carry over, and every
path counts them the same way by going through a :class:`Carry`:

- the dealer: each hand's ``next_dealer`` deals the next (an abandoned hand's too);
- the ruleset's counters (:mod:`.counters`: 连庄, a level);
- how many times the deal has passed to another seat (``winds.prevalent_counts:
  deal_passes`` moves the prevalent wind by these, not by hands);
- the previous hand's win call, when it had exactly one (for repeat calls).

Use: ``Game(rs, players, seed=…, emit=carry.watching(sink), **carry.game_kwargs())``
for each hand, then ``carry.after(result)``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import counters
from .events import Event, EventSink

if TYPE_CHECKING:
    from ..rules.model import Ruleset
    from .game import HandResult


class Carry:
    """The state a game carries from hand to hand (see the module's docstring)."""

    def __init__(self, rs: Ruleset, dealer: int) -> None:
        self.rs = rs
        self.dealer = dealer
        self.hand = 0  # the next hand's place in the game (0-based)
        self.passes = 0  # times the deal went to another seat so far
        self.counts: counters.Counts = counters.start(rs)
        self.last_call: tuple[int, str] | None = None
        self._calls: list[tuple[int, str]] = []  # the hand being played's win calls

    def game_kwargs(self) -> dict[str, Any]:
        """The next hand's :class:`~mjframework.play.game.Game` keywords that come from the game."""
        self._calls.clear()
        return dict(dealer=self.dealer, hand_in_game=self.hand, counters=self.counts,
                    deal_passes=self.passes, last_winner_call=self.last_call)

    def watch(self, e: Event) -> None:
        """Read one event of the hand being played (its win calls)."""
        if e["type"] == "win" and e.get("call"):
            self._calls.append((e["seat"], e["call"]))

    def after(self, result: HandResult) -> None:
        """Move on past a played hand: the next dealer, counters, passes and call."""
        self.last_call = self._calls[0] if len(self._calls) == 1 else None
        self._calls.clear()
        if self.counts:
            self.counts = counters.after_hand(self.rs, self.counts, dealer=self.dealer,
                                              next_dealer=result.next_dealer, result=result.result,
                                              winners=result.winners)
        self.passes += result.next_dealer != self.dealer
        self.dealer = result.next_dealer
        self.hand += 1


def watching(carry: Carry, emit: EventSink | None) -> EventSink:
    """``emit`` with ``carry`` reading every event first."""
    if emit is None:
        return carry.watch

    def both(e: Event) -> None:
        carry.watch(e)
        emit(e)

    return both


__all__ = ["Carry", "watching"]
