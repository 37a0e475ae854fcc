"""Bots: a random-legal player and a greedy one.

The greedy bot always wins when it can; otherwise it discards (and claims)
to keep the fewest tiles missing from a standard hand — the table-based
"wildcards needed" of :mod:`mjframework.evaluate.wintable`, a shanten-like distance
that counts its wildcards as already placed. It never discards a wildcard
while it has another choice. Bots are deterministic given their RNG.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import lru_cache

from ..core.kinds import MeldKind
from ..core.tiles import HONOR_BASE, NUM_KINDS, Tile
from ..evaluate import wintable
from .players import Decision, Option, TableView

ENGINE_TURN_KINDS = frozenset({"win", "kong", "discard"})
SUITS = "mps"


class RandomBot:
    """Picks uniformly among the legal options (but never passes up a win)."""

    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng or random.Random()

    def decide(self, view: TableView, decision: Decision) -> Option:
        for o in decision.options:
            if o.kind == "win":
                return o
        return self.rng.choice(decision.options)


def _counts(tiles: Sequence[Tile], wildcard: Tile | None,
            others: frozenset[Tile] = frozenset()) -> tuple[list[int], int]:
    c = [0] * NUM_KINDS
    for t in tiles:
        c[t] += 1
    w = 0
    if wildcard is not None:
        w, c[wildcard] = c[wildcard], 0
    for k in others:  # further wild kinds (fixed wildcards)
        w, c[k] = w + c[k], 0
    return c, w


def _wild_out(c: list[int], wildcard: Tile | None, others: frozenset[Tile]) -> int:
    """Take the wild kinds out of the counts ``c`` (in place); how many wild tiles there were."""
    w = 0
    if wildcard is not None:
        w, c[wildcard] = c[wildcard], 0
    for k in others:  # further wild kinds (fixed wildcards)
        w, c[k] = w + c[k], 0
    return w


def missing(counts: list[int], wilds: int) -> int:
    """Tiles missing from a standard hand (melds + pair), wildcards counted as placed."""
    return wintable.need_melds_pair(counts) - wilds


# Per kind: the base of its isolation (10 for an honor; 8, +1 at a terminal, for a suited
# tile) and its neighbours within two ranks in its suit (none for an honor).
_ISO_BASE = tuple(10 if t >= HONOR_BASE else 8 + (t % 9 in (0, 8)) for t in range(NUM_KINDS))
_NEAR = tuple(() if t >= HONOR_BASE else tuple(t + d for d in (-2, -1, 1, 2) if 0 <= t % 9 + d <= 8)
              for t in range(NUM_KINDS))
# The same neighbours padded to four with NUM_KINDS (a zero appended to the counts), so the
# discard tie-break reads them without a loop.
_NEAR4 = tuple((*n, *(NUM_KINDS,) * (4 - len(n))) for n in _NEAR)


def _isolation(c: list[int], t: Tile) -> int:
    """Lower is more useful: neighbours and copies make a tile worth keeping."""
    return _ISO_BASE[t] - 3 * c[t] - sum(map(c.__getitem__, _NEAR[t]))


# One block's discards as the greedy bot sees them: (the change of the hand's table value a
# discard of the tile makes, the tie-break key, the tile).
_BlockChoice = tuple[int, int, Tile]


@lru_cache(maxsize=1 << 14)
def _block_choices(block: bytes, base: Tile) -> tuple[int, tuple[_BlockChoice, ...]]:
    """One block of a hand (the counts of one suit, or of the honors, its first kind
    ``base``) as :meth:`GreedyBot._best_discard` weighs it: the block's table entry
    (:func:`wintable.block_removals`) and, for each change of it that a discard from the
    block makes, the discard the tie-break prefers among those making it (the most
    isolated, then the lowest). A tile's isolation reads its own suit only, so it is the
    block's; memoised, as a hand changes one or two blocks a turn."""
    own, deltas = wintable.block_removals(block, base < HONOR_BASE)
    cp = [0] * (NUM_KINDS + 1)  # index NUM_KINDS: the zero _NEAR4 pads with
    cp[base:base + len(block)] = block
    best: dict[int, tuple[int, Tile]] = {}
    for r, d in enumerate(deltas):
        if block[r]:
            t = base + r
            a, b, e, f = _NEAR4[t]
            key = (3 * cp[t] + cp[a] + cp[b] + cp[e] + cp[f] - _ISO_BASE[t], t)
            got = best.get(d)
            if got is None or key < got:
                best[d] = key
    return own, tuple((d, key, t) for d, (key, t) in best.items())


def _discard_by_blocks(c: list[int]) -> tuple[int, Tile | None]:
    """:meth:`GreedyBot._best_discard` over every kind held (the usual turn), block by block:
    (least need, tile), the need before the wildcards are taken off; (99, None) for no tile.

    A discard changes one block, so the hand's value after it is the sum of the four
    block entries plus that block's change: the candidates are the blocks' remembered
    choices per change (:func:`_block_choices`, a few per block), not every kind held."""
    b = bytes(c)
    o0, ch0 = _block_choices(b[0:9], 0)
    o1, ch1 = _block_choices(b[9:18], 9)
    o2, ch2 = _block_choices(b[18:27], 18)
    o3, ch3 = _block_choices(b[27:], HONOR_BASE)
    total = o0 + o1 + o2 + o3
    need_of = wintable.need_of_entries
    best: tuple[int, int, Tile] | None = None
    for choices in (ch0, ch1, ch2, ch3):
        for d, key, t in choices:
            x = (need_of(total + d), key, t)
            if best is None or x < best:
                best = x
    return (99, None) if best is None else (best[0], best[2])


class GreedyBot:
    """Wins when it can; otherwise plays to be missing as few tiles as possible."""

    def __init__(self, rng: random.Random | None = None, *, rng_seed: str | None = None) -> None:
        # The greedy bot decides without chance; its RNG (``rng``) is made when first asked
        # for, from ``rng_seed`` when given (a simulation hands every bot its derived seed:
        # seeding costs more than a greedy bot's turn).
        self._rng = rng
        self._rng_seed = rng_seed
        # (wildcard, every wild kind, the wild kinds but the wildcard) of the last decision
        self._wild: tuple[Tile | None, frozenset[Tile], frozenset[Tile]] = (None, frozenset(), frozenset())

    @property
    def rng(self) -> random.Random:
        if self._rng is None:
            self._rng = random.Random(self._rng_seed) if self._rng_seed is not None else random.Random()
        return self._rng

    @rng.setter
    def rng(self, value: random.Random) -> None:
        self._rng = value

    def _others(self, view: TableView) -> tuple[Tile | None, frozenset[Tile]]:
        """The wildcard and the other wild kinds (fixed wildcards), worked out once a hand."""
        wildcard, kinds = view.wildcard, view.wildcards
        got = self._wild
        if got[0] != wildcard or got[1] is not kinds:
            got = self._wild = (wildcard, kinds, kinds - {wildcard})
        return wildcard, got[2]

    def decide(self, view: TableView, decision: Decision) -> Option:
        opts = decision.options
        if decision.kind == "turn":
            return self._turn(view, opts)
        for o in opts:
            if o.kind == "win":
                return o
        if decision.kind in ("claim", "rob"):
            return self._claim(view, decision)
        if decision.kind == "exchange":
            return self._exchange(view, opts)
        if decision.kind == "declare" and all(o.value is not None and o.value in SUITS for o in opts):
            return self._void(view, opts)
        # A decision the bot doesn't know (a plugin's): plugins list the
        # recommended option first.
        return opts[0]

    def _best_discard(self, c: list[int], w: int, candidates: Sequence[Tile]) -> tuple[int, Tile | None]:
        """The discard leaving the fewest tiles missing; ties: the most isolated tile, then the lowest.

        One table lookup per candidate (:func:`wintable.discard_needs`); the
        isolation tie-break is worked out only for the candidates tied at best.
        """
        if not candidates:
            return 99, None
        needs = wintable.discard_needs(c, candidates)
        least = min(needs)
        if needs.count(least) == 1:
            tile = candidates[needs.index(least)]
        else:  # the most isolated, then the lowest: the least (-isolation, tile)
            # (_isolation inline, over the neighbours padded to four: a turn's hot loop)
            cp = [*c, 0]  # index NUM_KINDS: the zero _NEAR4 pads with
            best: tuple[int, Tile] | None = None
            for t, n in zip(candidates, needs, strict=True):
                if n == least:
                    a, b, d, e = _NEAR4[t]
                    key = (3 * cp[t] + cp[a] + cp[b] + cp[d] + cp[e] - _ISO_BASE[t], t)
                    if best is None or key < best:
                        best = key
            assert best is not None
            tile = best[1]
        return least - w, tile

    def _turn(self, view: TableView, opts: Sequence[Option]) -> Option:
        """A win if offered (the first); else an option a plugin added (the first: e.g. a
        special kong, offered only when it makes sense, so the bot takes it); else a kong
        that leaves it no worse off, or the best discard. One pass over the options."""
        wildcard, wilds = self._others(view)
        kongs: list[Option] = []
        if [o.kind for o in opts].count("discard") == len(opts):
            # The usual turn, discards only (no win, kong or plugin option): the lists in
            # two comprehensions instead of the general loop's per-option branches.
            discards = [o for o in opts if o.value is None]
            natural = [t for o in discards
                       if (t := o.tile) is not None and t != wildcard and t not in wilds]
        else:
            discards = []
            natural = []
            extra = None  # the first option a plugin added
            for o in opts:
                kind = o.kind
                if kind == "discard":
                    if o.value is None:
                        discards.append(o)
                        t = o.tile
                        if t is not None and t != wildcard and t not in wilds:
                            natural.append(t)
                elif kind == "win":
                    return o
                elif kind == "kong":
                    kongs.append(o)
                elif extra is None:  # not one of ENGINE_TURN_KINDS
                    extra = o
            if extra is not None:
                return extra
        c = view.counts()
        w = _wild_out(c, wildcard, wilds)
        need, tile = 99, None
        if natural and len(natural) == NUM_KINDS - c.count(0):  # every kind held may go: by blocks
            need, tile = _discard_by_blocks(c)
            need -= w
        if tile not in natural:  # some kinds held may not be discarded (or none may)
            need, tile = self._best_discard(c, w, natural)
        for o in kongs:
            if o.tile is not None:
                t = o.tile
                c2 = c[:]
                c2[t] -= 4 if o.meld == MeldKind.CONCEALED_KONG else 1
                # After the kong a replacement is drawn: compare as a 13-tile wait.
                if missing(c2, w + 1) <= need:
                    return o
        if tile is None:  # only wildcards left to discard
            return discards[0]
        for o in discards:
            if o.tile == tile:
                return o
        raise AssertionError("the best discard is one of the discard options")

    def _exchange(self, view: TableView, opts: Sequence[Option]) -> Option:
        """Pass tiles of the shortest suit it can (the likely void suit), the ones that
        hurt the hand least."""
        c, w = _counts(view.hand, view.wildcard)

        in_suit = [sum(c[0:9]), sum(c[9:18]), sum(c[18:27])]

        def key_left(o: Option) -> int:
            """Tiles of the passed suit left after passing (99: not one suit). Suits are
            runs of kinds (0–8, 9–17, 18–26; honors after), so the tiles are of one suit
            when the lowest and the highest are."""
            tiles = o.tiles
            suit = min(tiles) // 9
            if suit >= 3 or max(tiles) // 9 != suit:
                return 99
            return in_suit[suit] - len(tiles)

        def key(o: Option) -> tuple[int, int, int, tuple[int, ...]]:
            c2 = c[:]
            for t in o.tiles:
                c2[t] -= 1
            return (key_left(o), missing(c2, w), sum(_isolation(c2, t) for t in o.tiles) * -1, o.tiles)

        # The first key part alone decides most of the choice: the rest only for those tied on it.
        lefts = [key_left(o) for o in opts]
        least = min(lefts)
        return min((o for o, left in zip(opts, lefts, strict=True) if left == least), key=key)

    def _void(self, view: TableView, opts: Sequence[Option]) -> Option:
        """Declare void the suit it holds fewest of (ties: the one costing least)."""
        c, w = _counts(view.hand, view.wildcard)

        def key(o: Option) -> tuple[int, int, str]:
            suit = SUITS.index(o.value or "")
            c2 = c[:]
            for t in range(suit * 9, suit * 9 + 9):
                c2[t] = 0
            return (sum(c[suit * 9:suit * 9 + 9]), missing(c2, w), o.value or "")

        return min(opts, key=key)

    def _claim(self, view: TableView, decision: Decision) -> Option:
        if not any(o.kind == "pass" for o in decision.options):
            return decision.options[0]
        wildcard, wilds = self._others(view)
        c = view.counts()
        w = _wild_out(c, wildcard, wilds)
        now = missing(c, w)
        best: tuple[int, Option] | None = None
        assert decision.tile is not None  # a claim is on the discarded tile
        for o in decision.options:
            if o.kind not in ("pung", "chow", "kong"):
                continue
            used = list(o.tiles)
            used.remove(decision.tile)
            c2 = c[:]
            for t in used:
                c2[t] -= 1
            if o.kind == "kong":
                after = missing(c2, w + 1)  # a replacement tile is drawn
            else:  # the best discard's need (what _best_discard says of every kind held)
                need, _tile = _discard_by_blocks(c2)
                after = need - w if _tile is not None else 99
            if after < now and (best is None or after < best[0]):
                best = (after, o)
        if best is not None:
            return best[1]
        return next(o for o in decision.options if o.kind == "pass")


BOTS = {"greedy": GreedyBot, "random": RandomBot}
