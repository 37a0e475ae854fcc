"""Table-level screening for :meth:`Evaluator.is_win` and :meth:`Evaluator.waits`.

The generic path of ``is_win`` splits the hand into a :class:`~.readings.Tiles`,
asks every shape whether it could fit, and, when one might, scores the hand
(readings × patterns). Almost every call the game makes is answered long
before that: most hands fit no shape at all, and most that fit one fit a
shape some pattern accepts unconditionally. :class:`WinScreen` is compiled
once per evaluator from the ruleset's shapes and patterns and answers those
two cases from one count vector and a few :mod:`.wintable` lookups:

* **reject**: no shape of the ruleset is possible (standard shapes by the
  melds + pair table, pairs shapes by the odd-count table, ``free`` shapes by
  their tile filters, knitted / orphans by a quick necessary test) — then no
  reading exists, and no free-wildcard wait can hold either, because a hand
  that holds such a wait also fits the wait's completed shape, which is one of
  the evaluator's shapes (see :func:`WinScreen._waits_imply_shapes`);
* **accept**: a standard or pairs shape that some pattern makes a win with no
  requirement and no context fits (the generic path's own shortcut), or — a
  common case that the generic path scores in full — a standard shape whose
  only requirement is a filter on the pair (e.g. "the pair is a 2, 5 or 8"),
  when no wildcard or stand-in is involved and nothing can take the pattern
  away again (no minimum, no ``times``, no pattern excluding it);
* anything else goes to the generic path unchanged, so answers are the same
  by construction (``tests/test_fast_paths.py`` checks this against the
  previous implementation on tens of thousands of hands).

``waits`` computes, from per-suit wait tables (:func:`.wintable.standard_waits`),
the kinds that could complete any shape; only those go to ``is_win``.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from itertools import pairwise
from operator import itemgetter
from typing import TYPE_CHECKING

from . import wintable
from .hand import Hand, Meld, WinContext
from .model import Shape, When
from .tiles import NUM_KINDS, Tile
from .waits import shape_possible, wait_holds

if TYPE_CHECKING:  # pragma: no cover
    from .scoring import Evaluator

_is_standard_win = wintable.is_standard_win
_need_melds = wintable.need_melds
_need_pairs = wintable.need_pairs
_ZEROS = [0] * NUM_KINDS



def _split_counts(concealed: Sequence[Tile], win: Tile, wild: Collection[Tile], stand: Tile | None
                  ) -> tuple[list[int], int, int]:
    """Counts of ``concealed`` + ``win`` by kind, with the wildcards and the stand-in taken out:
    ``(counts, wildcards, stand-ins)``."""
    c = _ZEROS[:]
    for t in concealed:
        c[t] += 1
    c[win] += 1
    w = 0
    for k in wild:
        if c[k]:
            w += c[k]
            c[k] = 0
    s = 0
    if stand is not None and c[stand]:
        s = c[stand]
        c[stand] = 0
    return c, w, s

class WinScreen:
    """The fast paths of one evaluator (built by :class:`~.scoring.Evaluator` on first use)."""

    def __init__(self, ev: Evaluator) -> None:
        self.ev = ev
        rs = ev.ruleset
        self.win_by = rs.win.win_by
        self.kinds = tuple(ev.kinds)
        self.std: set[int] = set()  # melds of standard shapes with one pair
        self.pairs: set[int] = set()  # pairs of pairs shapes
        self.free = False
        # knitted, orphans, other standard shapes (with a quick may-it-fit test): generic check
        self.other: list[tuple[Shape, Callable[[bytes, int], bool]]] = []
        for s in ev.shapes:
            if s.kind == "standard" and s.pair == 1:
                self.std.add(s.melds)
            elif s.kind == "pairs":
                self.pairs.add(s.pairs)
            elif s.kind == "free":
                self.free = True
            else:
                self.other.append((s, _precheck(s)))
        self.free_banned = ev._free_banned
        # (banned kinds, getter of their counts) per filtered free pattern
        self.free_getters = [(b, _getter(b)) for b in self.free_banned if b is not None]
        # A free shape some pattern reads with no tile filter fits every hand.
        self.free_any = self.free and any(b is None for b in self.free_banned)
        self.uncond_std = {s.melds for s in ev._unconditional if s.kind == "standard" and s.pair == 1}
        self.uncond_pairs = {s.pairs for s in ev._unconditional if s.kind == "pairs"}
        self.uncond_other = [s for s in ev._unconditional if any(s is o for o, _ in self.other)]
        self.pair_kinds = self._pair_accept()
        self.waits_ok = self._waits_imply_shapes()
        self.min_free = min((w.free_wildcards for p in ev.wait_patterns for w in p.waits), default=None)
        self._wild: dict[Tile | None, tuple[frozenset[Tile], Tile | None, Tile | None]] = {}

    # -- compile -----------------------------------------------------------------

    def _pair_accept(self) -> dict[int, tuple[Tile, ...]]:
        """Per standard shape (by melds): pair kinds with which fitting the shape is a win.

        From patterns whose only condition is a pair filter; only where nothing
        can undo a matched pattern (a minimum, ``times``, an exclusion of it).
        """
        ev = self.ev
        rs = ev.ruleset
        if rs.scoring.minimum is not None or any(p.times_per is not None for p in ev.win_patterns):
            return {}
        excluded = set().union(*(p.excludes for p in ev.win_patterns)) if ev.win_patterns else set()
        out: dict[int, tuple[Tile, ...]] = {}
        for s, cands in ev._by_shape:
            if s.kind != "standard" or s.pair != 1:
                continue
            kinds: set[Tile] = set()
            for p in cands:
                if (p.shapes and not p.waits and p.pair is not None and p.when == When()
                        and p.name not in excluded and not p.counts
                        and all(x is None for x in (p.all_tiles, p.no_tiles, p.every_group, p.any_group,
                                                    p.groups, p.win_wait))):
                    kinds.update(t for t in self.kinds if p.pair.match(t))
            if kinds:
                out[s.melds] = tuple(sorted(kinds | set(out.get(s.melds, ()))))
        return out

    def _waits_imply_shapes(self) -> bool:
        """Does every free-wildcard wait, when it holds, make its completed shape fit?

        True for the waits whose free wildcards (with the winning tile) form
        exactly one group: 1 free + melds only (the pair), 2 free + melds and
        a pair (a meld), 1 free + pairs (a pair). Then "no shape fits" already
        rules the waits out; otherwise they are checked one by one.
        """
        for p in self.ev.wait_patterns:
            for w in p.waits:
                r, k = w.rest, w.free_wildcards
                if not ((r.kind == "standard" and ((r.pair == 0 and k == 1) or (r.pair == 1 and k == 2)))
                        or (r.kind == "pairs" and k == 1)):
                    return False
        return True

    def wild_info(self, wildcard: Tile | None) -> tuple[frozenset[Tile], Tile | None, Tile | None]:
        """(wild kinds, stand-in kind, effective wildcard) for a given wildcard, memoised."""
        info = self._wild.get(wildcard)
        if info is None:
            ev = self.ev
            eff = ev._default_wild if wildcard is None else wildcard
            if ev._fixed:
                wild = ev.wild_kinds(eff)
            else:
                wild = frozenset() if wildcard is None else frozenset((wildcard,))
            info = (wild, ev.stand_in_for(eff), eff)
            self._wild[wildcard] = info
        return info

    # -- is_win --------------------------------------------------------------------

    def is_win(self, hand: Hand, ctx: WinContext, wildcard: Tile | None) -> bool:
        win = hand.win_tile
        if win is None or ctx.win_by not in self.win_by:
            return False
        wild, stand, eff = self.wild_info(wildcard)
        win_wild = win in wild
        ev = self.ev
        if win_wild and ctx.win_by != "self_draw" and not ev._wild_claims:
            return False
        if ev._void_rule and ev.void_refuses(hand, ctx):
            return False
        c, w, s = _split_counts(hand.concealed, win, wild, stand)
        verdict = self._verdict(c, w, s, stand, eff, hand.concealed, hand.melds, win)
        if verdict is None:
            return ev._score(hand, ctx, wildcard).win
        return verdict

    def possible(self, concealed: Sequence[Tile], melds: Sequence[Meld], win: Tile,
                 wildcard: Tile | None) -> bool:
        """Could ``concealed`` + ``win`` (+ ``melds``) win in some context? False is certain.

        The context-free half of :meth:`is_win`: the game asks it before it
        builds a context for each seat that might win on a discard.
        """
        wild, stand, eff = self.wild_info(wildcard)
        c, w, s = _split_counts(concealed, win, wild, stand)
        return self._verdict(c, w, s, stand, eff, concealed, melds, win) is not False

    def _verdict(self, c: list[int], w: int, s: int, stand: Tile | None, wildcard: Tile | None,
                 concealed: Sequence[Tile], melds: Sequence[Meld], win: Tile) -> bool | None:
        """True / False when the tables decide, None when the hand needs scoring."""
        e = len(melds)
        n = len(concealed) + 1
        possible = False
        # The natural counts as bytes (the tables' key form), once per reading of the stand-ins.
        splits = self._splits(c, s, stand, wildcard) if s else (c,)
        views = [bytes(x) for x in splits] if s else (bytes(c),)
        std_m = (n - 2) // 3 + e if (n - 2) % 3 == 0 else -1
        if std_m in self.std:
            for v in views:
                if _is_standard_win(v, w):
                    if std_m in self.uncond_std:
                        return True
                    possible = True
                    kinds = self.pair_kinds.get(std_m)
                    if kinds and not w and not s:
                        for k in kinds:
                            if c[k] >= 2:
                                c[k] -= 2
                                ok = _need_melds(c) == 0
                                c[k] += 2
                                if ok:
                                    return True
                    break
        if not e and n % 2 == 0 and n // 2 in self.pairs:
            for v in views:
                if _need_pairs(v) <= w:
                    if n // 2 in self.uncond_pairs:
                        return True
                    possible = True
                    break
        if self.other and (not possible or self.uncond_other):
            full = None
            for shape, may_fit in self.other:
                if e and shape.kind in ("knitted", "orphans"):
                    continue
                if not any(may_fit(v, n) for v in views):
                    continue
                if full is None:
                    full = self.ev.split([*concealed, win], wildcard)
                if shape_possible(full, e, shape, self.kinds):
                    if shape in self.uncond_other:
                        return True
                    possible = True
                    break
        if possible:
            return None
        if self.free:
            if self.free_any:
                return None
            for banned, held in self.free_getters:
                if not any(held(c)) and not any(t in banned for m in melds for t in m.tiles):
                    return None
        if self.min_free is not None and w >= self.min_free and not self.waits_ok:
            split = self.ev.split(concealed, wildcard)
            if any(wait_holds(split, e, wt) for p in self.ev.wait_patterns for wt in p.waits):
                return None
        return False

    @staticmethod
    def _splits(c: list[int], s: int, stand: Tile | None, wildcard: Tile | None) -> list[list[int]]:
        """Each way of reading the stand-ins: k as the wildcard's own kind, the rest as themselves
        (as :func:`.readings.stand_in_splits`)."""
        if stand is None or wildcard is None:
            return [c]
        out = []
        for k in range(s + 1):
            c2 = c[:]
            c2[stand] += s - k
            c2[wildcard] += k
            out.append(c2)
        return out

    # -- waits ---------------------------------------------------------------------

    def candidates(self, concealed: Sequence[Tile], melds: Sequence[Meld],
                   wildcard: Tile | None) -> set[Tile] | None:
        """A superset of the kinds that complete the 13-tile hand (None: every kind)."""
        if self.free_any:
            return None
        wild, stand, eff = self.wild_info(wildcard)
        c = _ZEROS[:]
        for t in concealed:
            c[t] += 1
        w = 0
        for k in wild:
            w += c[k]
            c[k] = 0
        s = 0
        if stand is not None:
            s, c[stand] = c[stand], 0
        if self.min_free is not None and w >= self.min_free and not self.waits_ok:
            return None
        e = len(melds)
        out: set[Tile] = set()
        splits = self._splits(c, s, stand, eff) if s else [c]
        for shape, may_fit in self.other:
            if shape.kind in ("knitted", "orphans"):
                # The 13 tiles must already pass the shape's quick test (at its full size).
                size = 14 if shape.kind == "knitted" else len(shape.orphans) + 1
                if not e and any(may_fit(bytes(c2), size) for c2 in splits):
                    if shape.kind == "knitted":
                        return None
                    out.update(shape.orphans)
            else:
                return None  # other standard shapes: every kind is checked
        extra = set(wild)  # the winning tile may be a wildcard or a stand-in
        if stand is not None:
            extra.add(stand)
        if self.std:
            for c2 in splits:
                out.update(wintable.standard_waits(c2, w))
        if self.pairs and not e:
            for c2 in splits:
                odd = [t for t in range(NUM_KINDS) if c2[t] & 1]
                if len(odd) - 1 <= w:
                    out.update(odd)
                if len(odd) + 1 <= w:
                    return None  # any kind may do
        if self.free:
            meld_tiles = [t for m in melds for t in m.tiles]
            for banned in self.free_banned:
                if banned is not None and not any(c[t] for t in banned) and not any(
                        t in banned for t in meld_tiles):
                    out.update(t for t in self.kinds if t not in banned)
        return out | extra

    def waits(self, concealed: Sequence[Tile], melds: Sequence[Meld], ctx: WinContext,
              wildcard: Tile | None) -> list[Tile]:
        cand = self.candidates(concealed, melds, wildcard)
        concealed = tuple(concealed)
        melds = tuple(melds)
        is_win = self.is_win
        return [t for t in self.kinds if (cand is None or t in cand)
                and is_win(Hand(concealed, melds, t), ctx, wildcard)]


def _getter(kinds: Collection[Tile]) -> Callable[[Sequence[int]], tuple[int, ...]]:
    """The counts of ``kinds`` as a tuple, in one C call (``operator.itemgetter``)."""
    ks = sorted(kinds)
    if not ks:
        return lambda c: ()
    if len(ks) == 1:
        k = ks[0]
        return lambda c: (c[k],)
    return itemgetter(*ks)


def _precheck(shape: Shape) -> Callable[[bytes, int], bool]:
    """A quick necessary test (natural counts, concealed-side size) before a rare shape's generic check.

    With stand-ins held it is asked of each way of reading them (:meth:`WinScreen._splits`).
    """
    if shape.kind == "knitted":
        gap = shape.min_gap
        ok_blocks = set()
        for mask in range(512):
            ranks = [r for r in range(9) if mask >> r & 1]
            if all(b - a >= gap for a, b in pairwise(ranks)):
                ok_blocks.add(bytes((mask >> r) & 1 for r in range(9)))

        def knitted(b: bytes, n: int) -> bool:
            if n != 14:
                return False
            return (b[:9] in ok_blocks and b[9:18] in ok_blocks and b[18:27] in ok_blocks
                    and max(b[27:]) <= 1)
        return knitted
    if shape.kind == "orphans":
        size = len(shape.orphans) + 1
        others = _getter(set(range(NUM_KINDS)) - set(shape.orphans))

        def orphans(b: bytes, n: int) -> bool:
            return n == size and not any(others(b))
        return orphans
    return lambda b, n: True
