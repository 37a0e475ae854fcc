"""The kinds that could complete a seat's held tiles, from its kept counts: the claim screen's set.

The table asks, for every discard and every other seat, "may this seat win on it?". A
seat's held tiles stay the same while the others discard, so the answer is worked out
once per held hand as a set of kinds (:meth:`Evaluator.win_candidates_of`, remembered by
the table per seat) and each discard is then a set lookup. That set is worked out about
once per turn — a seat's hand changes at its own draw and discard — so its cost is part
of every turn of a simulated hand.

:meth:`.fastwin.WinScreen.wait_sets_of` is the reference: it also works out the *sure*
waits, reads every way of taking the stand-ins, and serves every configuration.
:class:`CandidateScreen` answers the usual call — no stand-in held (every hand of a
ruleset without stand-ins) — with the same steps and nothing else: the wild kinds taken out
once per wildcard, one key of the counts, the quick tests of the all-singles shapes, the
standard waits from the per-suit tables, the odd counts for a pairs shape, the free
patterns' tile filters. A hand holding a stand-in goes to the reference. The answers are
the same (``tests/test_candidates.py``: every shipped and purpose-made ruleset, random
held hands with and without melds and wildcards).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..core.hand import Meld
from ..core.tiles import NUM_KINDS, Tile
from . import wintable
from .waits import straight_kinds_held

if TYPE_CHECKING:  # pragma: no cover
    from .fastwin import WinScreen

_ODD = wintable._ODD
#: A wildcard count no hand reaches (no free-wildcard wait to make every kind a candidate).
_NEVER = 1 << 30
#: Per wildcard: (wild kinds, stand-in kind, the kinds always in the set: wild kinds and stand-in).
_WildPlan = tuple[tuple[Tile, ...], Tile | None, frozenset[Tile]]


class CandidateScreen:
    """:meth:`.fastwin.WinScreen.wait_sets_of`'s candidates (``sure_too=False``) for a seat's
    held tiles given as counts per kind (see the module's docstring)."""

    def __init__(self, screen: WinScreen) -> None:
        self.screen = screen
        # A free pattern with no tile filter and no wildcard count: any kind may complete any hand.
        self.every = screen.free_any
        # A free-wildcard wait not implied by a shape: with this many wildcards, any kind may.
        self.every_from = (screen.min_free if screen.min_free is not None and not screen.waits_ok
                           else _NEVER)
        self.other = screen._wait_other
        self.std = bool(screen.std)
        self.pairs = bool(screen.pairs)
        self.free = screen.free
        self._plans: dict[Tile | None, _WildPlan] = {}

    def _plan(self, wildcard: Tile | None) -> _WildPlan:
        wild, stand, _eff = self.screen.wild_info(wildcard)
        plan = self._plans[wildcard] = (tuple(wild), stand, wild | {stand} if stand is not None else wild)
        return plan

    def __call__(self, counts: bytes | bytearray, melds: Sequence[Meld],
                 wildcard: Tile | None) -> set[Tile] | None:
        """A superset of the kinds that complete the held tiles ``counts`` (+ ``melds``);
        None: any kind may."""
        wild, stand, always = self._plans.get(wildcard) or self._plan(wildcard)
        c = bytearray(counts[:NUM_KINDS])
        if stand is not None and c[stand]:  # stand-ins held: each way of reading them (reference)
            return self.screen.wait_sets_of(c, sum(c), melds, wildcard, sure_too=False)[1]
        w = 0
        for k in wild:
            x = c[k]
            if x:
                w += x
                c[k] = 0
        if self.every or w >= self.every_from:
            return None
        v = bytes(c)
        e = len(melds)
        out = set(always)
        for kind, may_fit, size, orphans in self.other:
            if size:  # an all-singles shape, concealed only: the held tiles pass its quick test
                if not e and may_fit(v, size):
                    if kind == "knitted":
                        return None
                    out.update(orphans)
            elif kind != "knitted_straight" or straight_kinds_held(v) >= 8:
                return None  # (other standard shapes: every kind is checked)
        if self.std:
            out.update(wintable.standard_waits(v, w))
        if self.pairs and not e:
            n_odd = v.translate(_ODD).count(1)
            if n_odd + 1 <= w:
                return None
            if n_odd - 1 <= w:
                out.update([t for t, x in enumerate(v) if x & 1])
        if self.free:
            self._free(out, c, w, melds)
        return out

    def _free(self, out: set[Tile], c: bytearray, w: int, melds: Sequence[Meld]) -> None:
        """The free patterns whose tile filter the hand passes: every kind they allow."""
        meld_tiles = [t for m in melds for t in m.tiles]
        kinds = self.screen.kinds
        for banned, _held_of, mw in self.screen.free_getters:
            if w >= mw and not any(c[t] for t in banned) and not any(t in banned for t in meld_tiles):
                out.update(t for t in kinds if t not in banned)
