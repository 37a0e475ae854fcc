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
* **accept under a minimum to win** (``scoring.minimum``, e.g. 8 points): no wildcard held, a shape fits
  that a requirement-free pattern wins by, and a bonus pattern worth the minimum
  holds on every reading by the tiles alone and cannot be excluded or counted
  down (:meth:`WinScreen._minimum_rules`);
* anything else goes to the generic path unchanged, so answers are the same
  by construction (``tests/test_fast_paths.py`` checks this against the
  previous implementation on tens of thousands of hands).

A hand never seen before (*first sight*) is counted once into a ``bytearray``;
the tests come cheapest first (the standard table, the odd counts for pairs, the
tiles beyond the first of their kind for knitted / orphans shapes), and stand-ins
are first tried as plain wildcards, which rules out every way of reading them at
once (:meth:`WinScreen._stand_ins_never_fit`). ``benchmarks/floor.py``: CPython's least cost.

``waits`` computes, from per-suit wait tables (:func:`.wintable.standard_waits`),
the kinds that could complete any shape; only those go to ``is_win``.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..core.hand import Hand, Meld, WinContext
from ..core.tiles import NUM_KINDS, Tile
from ..rules.model import Shape
from . import wintable
from .fastwin_rules import _NO_SLACK, RuleCompiler, _getter, _precheck, _slack  # (compile step)
from .verdict import scored_win
from .waits import shape_possible, straight_kinds_held, wait_holds

if TYPE_CHECKING:  # pragma: no cover
    from .scoring import Evaluator, Score

_is_standard_win = wintable.is_standard_win
_need_melds = wintable.need_melds
_ODD = wintable._ODD  # each count's parity, for bytes.translate (as wintable.need_pairs)
_MAX_NEED = wintable.MAX_NEED
_pair_ranks = wintable.pair_ranks
_ZEROS = [0] * NUM_KINDS
#: Table verdicts remembered per evaluator (see :meth:`WinScreen.is_win`); the memo is
#: emptied when it reaches this many entries (a few MB).
MEMO_SIZE = 1 << 14
_UNSEEN: Any = object()
_CONCEALED_ONLY = frozenset({"knitted", "orphans"})  # shapes with no declared meld


def _natural_counts(tiles: Sequence[Tile], win: Tile | None,
                    wild: Collection[Tile]) -> tuple[bytearray, int]:
    """``tiles`` (and ``win``) counted per kind into a ``bytearray``, the wildcards taken out:
    (natural counts, how many wildcards). A bytearray, not a list: the tables want bytes, and
    bytes of a bytearray is one copy, of a list a conversion per item."""
    c = bytearray(NUM_KINDS)
    for t in tiles:
        c[t] += 1
    if win is not None:
        c[win] += 1
    return c, _take_out(c, wild)


def _take_out(c: bytearray, wild: Collection[Tile]) -> int:
    """Zero the counts of the ``wild`` kinds in ``c``: how many tiles they held."""
    w = 0
    for k in wild:
        x = c[k]
        if x:
            w += x
            c[k] = 0
    return w


class WinScreen(RuleCompiler):
    """The fast paths of one evaluator (built by :class:`~.scoring.Evaluator` on first use)."""

    def __init__(self, ev: Evaluator) -> None:
        self.ev = ev
        rs = ev.ruleset
        self.win_by = rs.win.win_by
        self.kinds = tuple(ev.kinds)
        self.std: set[int] = set()  # melds of standard shapes with one pair
        self.pairs: set[int] = set()  # pairs of pairs shapes
        self.free = False
        # knitted, orphans, other standard shapes: generic check, after a quick may-it-fit test
        # and a bound on the natural tiles beyond the first of their kind (see _slack)
        self.other: list[tuple[Shape, Callable[[bytes, int], bool], int]] = []
        for s in ev.shapes:
            if s.kind == "standard" and s.pair == 1:
                self.std.add(s.melds)
            elif s.kind == "pairs":
                self.pairs.add(s.pairs)
            elif s.kind == "free":
                self.free = True
            else:
                self.other.append((s, _precheck(s), _slack(s)))
        # (banned kinds, their counts' getter, fewest wildcards) per free pattern with a tile filter
        # or a wildcard count (a hand with fewer fits none of its readings); free_any: with neither.
        free = list(zip(ev._free_banned, ev._free_min_wild, strict=True))
        self.free_getters = [(b or frozenset(), _getter(b or ()), w) for b, w in free if b is not None or w]
        self.free_any = self.free and any(b is None and not mw for b, mw in free)
        self.uncond_std = {s.melds for s in ev._unconditional if s.kind == "standard" and s.pair == 1}
        self.uncond_pairs = {s.pairs for s in ev._unconditional if s.kind == "pairs"}
        self.uncond_other = [s for s in ev._unconditional if any(s is o for o, _, _ in self.other)]
        self.rules = self._accept_rules()
        self.waits_ok = self._waits_imply_shapes()
        self.min_free = min((w.free_wildcards for p in ev.wait_patterns for w in p.waits), default=None)
        # Standard and pairs shapes by their size in tiles (a declared meld counted as 3; the
        # first-sight path tests the hand's size in them).
        self.std_n = {3 * m + 2 for m in self.std}
        self.pairs_n = {2 * k for k in self.pairs}
        self.uncond_pairs_n = {2 * k for k in self.uncond_pairs}
        # Is there anything to check besides the standard and pairs shapes (_rest)?
        self.rest_needed = bool(self.other or self.free or
                                (self.min_free is not None and not self.waits_ok))
        # When the other shapes are all-singles ones and nothing else is left to check: the
        # most repeated tiles a hand may hold to fit one of them (see _slack); else no bound.
        self.other_only = bool(self.other) and not self.free and (self.min_free is None or self.waits_ok)
        self.free_only = (self.free and not self.free_any and not self.other
                          and (self.min_free is None or self.waits_ok))
        self.rest_slack = max((sl for _s, _f, sl in self.other), default=0) if not (
            self.free or (self.min_free is not None and not self.waits_ok)) else _NO_SLACK
        self._wild: dict[Tile | None, tuple[frozenset[Tile], Tile | None, Tile | None]] = {}
        # (concealed, melds, winning tile, wildcard) -> verdict; hashable sequences only (tuples)
        self._memo: dict[tuple[Sequence[Tile], Sequence[Meld], Tile, Tile | None], bool | None] = {}
        # Per pair filter of an acceptance rule: (block start, end, suited, its ranks) (_pair_in)
        self._pair_blocks: dict[frozenset[Tile], tuple[tuple[int, int, bool, frozenset[int]], ...]] = {}
        self.last_scored: tuple[Hand, WinContext, dict[str, Any], dict[str, Any], Tile | None, Score] | None
        self.last_scored = None
        self._suits = ev._suits_in_set
        # A True verdict is a win in any context won by self-draw or with no wildcard: no
        # declared void suit to refuse it, and no wild kinds unless they may be claimed.
        self._ctx_free = not ev._void_rule and (ev._wild_claims or not ev._fixed)
        self.sure_min, self.sure_std, self.sure_pairs_n = self._minimum_rules()
        # The other shapes as wait_sets reads them: (kind, quick test, the full size for a
        # concealed-only all-singles shape — 0 for any other —, its orphans).
        self._wait_other = [(sh.kind, may_fit, (14 if sh.kind == "knitted" else len(sh.orphans) + 1)
                             if sh.kind in _CONCEALED_ONLY else 0, tuple(sh.orphans))
                            for sh, may_fit, _ in self.other]

    def clear_memo(self) -> None:
        """Forget the remembered table verdicts (benchmarks use it to time a first sight)."""
        self._memo.clear()

    # -- the compiled rules, per hand (compiled by RuleCompiler) --------------------

    def _sure_min(self, c: bytearray, melds: Sequence[Meld]) -> bool:
        """Does a rule of :meth:`_minimum_rules` hold for the natural counts ``c`` (no wildcard,
        no stand-in; they fit a shape those rules apply to) and ``melds``?"""
        full: Sequence[int] = c
        if melds:
            full = c[:]
            for m in melds:
                for t in m.tiles:
                    full[t] += 1
        for checks, banned_of in self.sure_min:
            if banned_of is not None and any(banned_of(full)):
                continue
            for f, cnt in checks:
                if not cnt.ok(f(c, full, self._suits, 0, 0, melds)):
                    break
            else:
                return True
        return False

    def _rules_hold(self, key: tuple[str, int], c: bytearray, w: int, s: int, wh: int,
                    melds: Sequence[Meld], b: bytes | None = None) -> bool | None:
        """For natural counts ``c`` with ``w`` wildcards (``wh`` of them held, not the winning
        tile) and ``s`` stand-ins, which fit shape ``key``: True when a rule that makes a sure
        win holds, False when no win-making pattern can match by this shape, None when unsure.
        ``c`` is left as it was; ``b``: ``bytes(c)`` when at hand."""
        rules = self.rules.get(key)
        unsure = key not in self.exact
        if not rules:
            return None if unsure else False
        full: Sequence[int] | None = None
        plain = not w and not s
        for kinds, checks, whole, accepts in rules:
            judged = True  # every check could be judged
            if checks:
                if full is None:
                    full = c
                    if melds:
                        full = c[:]
                        for m in melds:
                            for t in m.tiles:
                                full[t] += 1
                failed = False
                for f, cnt, natural in checks:
                    if natural and not plain:
                        judged = False
                    elif not cnt.ok(f(c, full, self._suits, w, wh, melds)):
                        failed = True
                        break
                if failed:
                    continue  # the pattern can't match
            if not whole or not judged or (kinds is not None and not plain):
                unsure = True
                continue
            if kinds is not None and not self._pair_in(kinds, c, key, b):
                continue
            if accepts:
                return True
            unsure = True
        return None if unsure else False

    def _pair_in(self, kinds: frozenset[Tile], c: bytearray, key: tuple[str, int], b: bytes | None) -> bool:
        """Can the pair of a melds-and-pair reading of the natural counts ``c`` (a win with no
        wildcard and no stand-in) be one of ``kinds``?

        Of a standard shape (one pair): the pair lies in the one block (suit or honors)
        whose tile count is 2 mod 3, every other block is melds only, so a kind can be the
        pair exactly when its block less two of it is melds only: per block from the
        memoised :func:`.wintable.pair_ranks`, no whole-hand lookup per candidate kind.
        Other shapes: each candidate kind with two copies taken out, by the table.
        """
        if key[0] == "standard":
            blocks = self._pair_blocks.get(kinds)
            if blocks is None:
                blocks = self._pair_blocks[kinds] = tuple(
                    (a, z, seq, frozenset(k - a for k in kinds if a <= k < z))
                    for a, z, seq in wintable.BLOCKS if any(a <= k < z for k in kinds))
            if b is None:
                b = bytes(c)
            for a, z, seq, ranks in blocks:  # noqa: SIM110 (a loop: cheaper than any() of a generator)
                if not ranks.isdisjoint(_pair_ranks(b[a:z], seq)):
                    return True
            return False
        for k in kinds:
            if c[k] >= 2:
                c[k] -= 2
                ok = _need_melds(c) == 0
                c[k] += 2
                if ok:
                    return True
        return False

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

    def is_win(self, hand: Hand, ctx: WinContext, wildcard: Tile | None = None) -> bool:
        """:meth:`Evaluator.is_win`: the table verdict (remembered), the context checks, and
        scoring only where the tables cannot decide.

        The game calls this tens of times per turn, most often on a hand it has not
        asked about (a *first sight*), so the path is kept flat: one key, one count of
        the tiles (:meth:`_fresh`), the common context answers inline.
        """
        win = hand.win_tile
        if win is None or ctx.win_by not in self.win_by:
            return False
        try:
            verdict = self._memo.get((hand.concealed, hand.melds, win, wildcard), _UNSEEN)
        except TypeError:  # a list of tiles: not remembered
            verdict = self._fresh(hand.concealed, hand.melds, win, wildcard)
        if verdict is _UNSEEN:  # first sight: work it out, and remember it (_verdict_for, inline)
            verdict = self._fresh(hand.concealed, hand.melds, win, wildcard)
            memo = self._memo
            if len(memo) >= MEMO_SIZE:
                memo.clear()
            memo[(hand.concealed, hand.melds, win, wildcard)] = verdict
        if verdict is False:
            return False
        if self._ctx_free and verdict is True and (ctx.win_by == "self_draw" or wildcard is None):
            return True  # (what _in_context says: no void rule, no wildcard won on a discard)
        return self._in_context(hand, ctx, wildcard, verdict)

    def _in_context(self, hand: Hand, ctx: WinContext, wildcard: Tile | None, verdict: bool | None) -> bool:
        """The rest of :meth:`is_win` once the tables have not said no (``verdict`` True or None)."""
        ev = self.ev
        if ctx.win_by != "self_draw" and not ev._wild_claims and hand.win_tile in self.wild_info(wildcard)[0]:
            return False
        if ev._void_rule and ev.void_refuses(hand, ctx):
            return False
        if verdict:
            return True
        score = scored_win(ev, hand, ctx, wildcard)  # (None: refused, no result built)
        if score is not None and isinstance(hand.concealed, tuple) and isinstance(hand.melds, tuple):
            # Kept for Evaluator.score: the game scores the same win again to settle it.
            self.last_scored = (hand, ctx, dict(ctx.seat_state), dict(ctx.extra), wildcard, score)
        return score is not None

    def scored_before(self, hand: Hand, ctx: WinContext, wildcard: Tile | None) -> Score | None:
        """A copy of the score :meth:`is_win` worked out last, if it was for these very inputs
        (equal hand, context — its mappings compared as they were then — and wildcard)."""
        last = self.last_scored
        if last is None:
            return None
        h, c, state, extra, wild, score = last
        if wild != wildcard or h != hand or c != ctx or ctx.seat_state != state or ctx.extra != extra:
            return None
        return replace(score, patterns=list(score.patterns))

    def _verdict_for(self, concealed: Sequence[Tile], melds: Sequence[Meld], win: Tile,
                     wildcard: Tile | None, memo: bool = True) -> bool | None:
        """The context-free verdict on ``concealed`` + ``win`` (+ ``melds``), remembered."""
        verdict = self._fresh(concealed, melds, win, wildcard)
        if memo:
            m = self._memo
            if len(m) >= MEMO_SIZE:
                m.clear()
            m[(concealed, melds, win, wildcard)] = verdict
        return verdict

    def _fresh(self, concealed: Sequence[Tile], melds: Sequence[Meld], win: Tile,
               wildcard: Tile | None) -> bool | None:
        """The context-free verdict, worked out (nothing remembered): the tiles counted once
        (:func:`_natural_counts`), the wildcards and stand-ins taken out, then :meth:`_verdict`."""
        info = self._wild.get(wildcard)
        if info is None:
            info = self.wild_info(wildcard)
        wild, stand, eff = info
        c, w = _natural_counts(concealed, win, wild)
        if stand is not None and c[stand]:
            s = c[stand]
            c[stand] = 0
            return self._verdict(c, w, s, stand, eff, concealed, melds, win, win in wild)
        # No stand-in held: one reading of the tiles, and the tests of _verdict inline.
        e = len(melds)
        n = len(concealed) + 1
        b = bytes(c)
        possible = False
        if n + 3 * e in self.std_n and _is_standard_win(b, w):
            m = (n - 2) // 3 + e
            if m in self.uncond_std:
                return True
            held = self._rules_hold(("standard", m), c, w, 0, w - (win in wild), melds, b)
            if held:
                return True
            possible = held is None
            if possible and not w and m in self.sure_std and self._sure_min(c, melds):
                return True
        if not e and n in self.pairs_n:
            odd = b.translate(_ODD).count(1)  # (wintable.need_pairs, inline)
            if odd <= w and odd <= _MAX_NEED:
                if n in self.uncond_pairs_n:
                    return True
                held = self._rules_hold(("pairs", n // 2), c, w, 0, w - (win in wild), melds, b)
                if held:
                    return True
                if held is None:
                    possible = True
                    if not w and n in self.sure_pairs_n and self._sure_min(c, melds):
                        return True
        if not self.rest_needed:
            return None if possible else False
        if not possible:
            if self.rest_slack < n - w - NUM_KINDS + c.count(0):
                return False  # too many repeated kinds for the all-singles shapes, the only others
            if self.other_only:  # no other shape's quick test passes: no shape fits (as _rest)
                dups = n - w - NUM_KINDS + c.count(0)
                for shape, may_fit, slack in self.other:
                    if dups <= slack and not (e and shape.kind in _CONCEALED_ONLY) and may_fit(b, n):
                        break
                else:
                    return False
            elif self.free_only:  # (what _rest does when free shapes' tile filters are all that's left)
                for banned, held_of, mw in self.free_getters:
                    if w >= mw and not any(held_of(b)) and not (
                            melds and any(t in banned for m in melds for t in m.tiles)):
                        return None
                return False
        return self._rest(c, (b,), w, 0, n, e, concealed, melds, win, eff, possible)

    def possible_any(self, tiles: Sequence[Tile], melds: Sequence[Meld], wildcard: Tile | None) -> bool:
        """Could some tile of ``tiles`` (a full hand: a dealer's first turn) be its winning tile?

        False is certain: :meth:`possible` is False for ``tiles`` less ``t`` and ``t``, for
        every ``t`` held. The hand's counts are the same whichever tile is the winning one,
        and so are the tests that rule most hands out in :meth:`_fresh` (the standard and
        pairs table checks, the repeated-tiles bound and quick tests of the all-singles
        shapes, the free shapes' tile filters): one count and one pass instead of one per
        kind held. Where :meth:`_fresh` would look further (a stand-in held, a shape that
        fits, the rest of the shapes), True: ask :meth:`possible` per tile.
        """
        return self.possible_any_of(_natural_counts(tiles, None, ())[0], len(tiles), melds, wildcard)

    def possible_any_of(self, c: bytearray, n: int, melds: Sequence[Meld], wildcard: Tile | None) -> bool:
        """:meth:`possible_any` for the hand's counts per kind (``c``: a fresh ``bytearray`` of
        :data:`NUM_KINDS`, changed here) and size ``n``: a seat's kept counts, not recounted."""
        wild, stand, _eff = self._wild.get(wildcard) or self.wild_info(wildcard)
        w = _take_out(c, wild)
        if stand is not None and c[stand]:
            return True
        e = len(melds)
        b = bytes(c)
        if n + 3 * e in self.std_n and _is_standard_win(b, w):
            return True
        if not e and n in self.pairs_n:
            odd = b.translate(_ODD).count(1)
            if odd <= w and odd <= _MAX_NEED:
                return True
        if not self.rest_needed:
            return False
        dups = n - w - NUM_KINDS + c.count(0)
        if self.rest_slack < dups:
            return False
        if self.other_only:
            return any(dups <= slack and not (e and shape.kind in _CONCEALED_ONLY) and may_fit(b, n)
                       for shape, may_fit, slack in self.other)
        if self.free_only:
            return any(w >= mw and not any(held_of(b))
                       and not (melds and any(t in banned for m in melds for t in m.tiles))
                       for banned, held_of, mw in self.free_getters)
        return True

    def possible(self, concealed: Sequence[Tile], melds: Sequence[Meld], win: Tile,
                 wildcard: Tile | None) -> bool:
        """Could ``concealed`` + ``win`` (+ ``melds``) win in some context? False is certain.

        The context-free half of :meth:`is_win`: the game asks it before it
        builds a context for each seat that might win on a discard.
        """
        concealed = tuple(concealed)
        melds = tuple(melds)
        verdict = self._memo.get((concealed, melds, win, wildcard), _UNSEEN)
        if verdict is _UNSEEN:
            verdict = self._verdict_for(concealed, melds, win, wildcard)
        return verdict is not False

    def _verdict(self, c: bytearray, w: int, s: int, stand: Tile | None, wildcard: Tile | None,
                 concealed: Sequence[Tile], melds: Sequence[Meld], win: Tile, win_wild: bool) -> bool | None:
        """True / False when the tables decide, None when the hand needs scoring.

        Most hands the game asks about fit no shape, so the shape tests come cheapest
        first and share what they compute: one ``bytes`` of the counts per reading of the
        stand-ins (the tables' key form), and the tiles beyond the first of each kind
        (``dups``), which rules out the all-singles shapes (knitted: none; orphans: one)
        with one C call.
        """
        e = len(melds)
        n = len(concealed) + 1
        possible = False
        if not s:
            views: Sequence[bytes] = (bytes(c),)
        elif self._stand_ins_never_fit(bytes(c), w, s, n, e, n - w - s - NUM_KINDS + c.count(0)):
            views = ()  # no reading of the stand-ins fits a shape: straight to the free checks
        else:
            views = [bytes(x) for x in self._splits(c, s, stand, wildcard)]
        std_m = (n - 2) // 3 + e if (n - 2) % 3 == 0 else -1
        if std_m in self.std:
            for v in views:
                if _is_standard_win(v, w):
                    if std_m in self.uncond_std:
                        return True
                    held = self._rules_hold(("standard", std_m), c, w, s, w - win_wild, melds)
                    if held:
                        return True
                    if held is None:
                        possible = True
                    break
        if not e and n % 2 == 0 and n // 2 in self.pairs:
            for v in views:
                odd = v.translate(_ODD).count(1)  # (wintable.need_pairs, inline)
                if odd <= w and odd <= _MAX_NEED:
                    if n // 2 in self.uncond_pairs:
                        return True
                    held = self._rules_hold(("pairs", n // 2), c, w, s, w - win_wild, melds)
                    if held:
                        return True
                    if held is None:
                        possible = True
                    break
        return self._rest(c, views, w, s, n, e, concealed, melds, win, wildcard, possible)

    def _rest(self, c: bytearray, views: Sequence[bytes], w: int, s: int, n: int, e: int,
              concealed: Sequence[Tile], melds: Sequence[Meld], win: Tile, wildcard: Tile | None,
              possible: bool) -> bool | None:
        """:meth:`_verdict` after the standard and pairs shapes (``possible``: one of them
        fits, but the tables can't tell whether a pattern makes it a win): the other shapes,
        then, where no shape fits, free shapes and free-wildcard waits."""
        if self.other and (not possible or self.uncond_other) and views:
            dups = n - w - s - NUM_KINDS + c.count(0)  # natural tiles beyond the first of their kind
            full = None
            for shape, may_fit, slack in self.other:
                if dups > slack or (e and shape.kind in _CONCEALED_ONLY):
                    continue
                for v in views:
                    if may_fit(v, n):
                        break
                else:
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
            for banned, held_of, mw in self.free_getters:
                if w + s >= mw and not any(held_of(c)) and not (
                        melds and any(t in banned for m in melds for t in m.tiles)):
                    return None
        if self.min_free is not None and w >= self.min_free and not self.waits_ok:
            split = self.ev.split(concealed, wildcard)
            if any(wait_holds(split, e, wt) for p in self.ev.wait_patterns for wt in p.waits):
                return None
        return False

    def _stand_ins_never_fit(self, b: bytes, w: int, s: int, n: int, e: int, dups: int) -> bool:
        """Does no reading of the ``s`` stand-ins fit any shape? ``b``: the natural counts
        without them, ``w``: the wildcards.

        Each reading adds the stand-ins to ``b`` as some kinds; a wildcard can be any kind,
        so a standard shape that doesn't fit with them as ``w + s`` wildcards fits no reading
        (the table is exact for any number of wildcards); each added tile changes the odd
        counts by one, so a pairs shape needs at most ``s`` more odd counts on ``b`` than on a
        reading. The quick tests of the all-singles shapes only get harder to pass as tiles
        are added (see :func:`_slack`), so failing them on ``b`` is failing them on every
        reading; any other shape: not known, False.
        """
        std_m = (n - 2) // 3 + e if (n - 2) % 3 == 0 else -1
        if std_m in self.std and _is_standard_win(b, w + s):
            return False
        if (not e and n % 2 == 0 and n // 2 in self.pairs
                and b.translate(_ODD).count(1) <= min(w, _MAX_NEED) + s):
            return False
        for shape, may_fit, slack in self.other:
            if dups > slack or (e and shape.kind in _CONCEALED_ONLY):
                continue
            if slack == _NO_SLACK or may_fit(b, n):
                return False  # (a shape whose quick test can't be asked of b, or it passes)
        return True

    @staticmethod
    def _splits(c: bytearray, s: int, stand: Tile | None, wildcard: Tile | None) -> list[bytearray]:
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

    def wait_sets(self, concealed: Sequence[Tile], melds: Sequence[Meld],
                  wildcard: Tile | None, sure_too: bool = True) -> tuple[set[Tile], set[Tile] | None]:
        """``(sure, candidates)`` for the 13-tile hand ``concealed`` (+ ``melds``).

        *candidates*: a superset of the kinds that complete the hand (None: every
        kind may). *sure*: natural kinds that complete it into a shape some
        pattern makes a win by the tiles alone (unconditionally, or by an
        acceptance rule on wildcard counts): :meth:`is_win` is True for each in
        every context the ruleset allows a win in (empty where the context can
        refuse a win: a declared void suit).

        Both come from the per-suit wait tables (:func:`.wintable.standard_waits`)
        and the odd counts (pairs shapes), once per way of reading the stand-ins:
        the wildcards are one equivalence class — whatever natural tile wins, they
        are the same ``w`` — so no kind is tried one by one. Wild and stand-in
        kinds as the winning tile change ``w`` or the stand-ins instead: they are
        always candidates, never sure. With ``sure_too`` False, *sure* is left empty
        (the game's claim screen needs only the candidates).
        """
        return self.wait_sets_of(_natural_counts(concealed, None, ())[0], len(concealed), melds, wildcard,
                                 sure_too)

    def wait_sets_of(self, c: bytearray, size: int, melds: Sequence[Meld], wildcard: Tile | None,
                     sure_too: bool = True) -> tuple[set[Tile], set[Tile] | None]:
        """:meth:`wait_sets` for the held tiles' counts per kind (``c``, changed here, as in
        :meth:`possible_any_of`) and their number ``size``."""
        wild, stand, eff = self._wild.get(wildcard) or self.wild_info(wildcard)
        w = _take_out(c, wild)
        s = 0
        if stand is not None:
            s, c[stand] = c[stand], 0
        e = len(melds)
        n = size + 1
        # Each reading of the stand-ins as bytes, made once for every test below.
        views = [bytes(c2) for c2 in self._splits(c, s, stand, eff)] if s else [bytes(c)]
        every = self.free_any or (self.min_free is not None and w >= self.min_free and not self.waits_ok)
        out: set[Tile] = set()
        for kind, may_fit, size, orphans in self._wait_other:
            if size:
                # The 13 tiles must already pass the shape's quick test (at its full size).
                if not e and (may_fit(views[0], size) or any(may_fit(v, size) for v in views[1:])):
                    if kind == "knitted":
                        every = True
                    out.update(orphans)
            elif kind == "knitted_straight":
                # Nine kinds of one straight in the 14 tiles, so eight of them in the 13 already
                # (natural tiles: the screen never fits it with a wildcard held).
                if any(straight_kinds_held(v) >= 8 for v in views):
                    every = True
            else:
                every = True  # other standard shapes: every kind is checked
        std: set[Tile] = set()
        if self.std:
            for v in views:
                std.update(wintable.standard_waits(v, w))
        pairs: set[Tile] | None = set()
        if self.pairs and not e:
            for v in views:
                n_odd = v.translate(_ODD).count(1)
                if n_odd + 1 <= w:  # any kind may do
                    pairs = None
                    break
                if n_odd - 1 <= w and pairs is not None:  # (the kinds only when they can matter)
                    pairs |= {t for t, x in enumerate(v) if x & 1}
        sure: set[Tile] = set()
        if sure_too and not self.ev._void_rule:
            std_m = (n - 2) // 3 + e if (n - 2) % 3 == 0 else -1
            if std_m in self.uncond_std or self._facts_accept(("standard", std_m), w, melds):
                sure |= std
            if not e and n % 2 == 0 and (n // 2 in self.uncond_pairs
                                         or self._facts_accept(("pairs", n // 2), w, melds)):
                sure |= set(self.kinds) if pairs is None else pairs
            sure -= wild
            sure.discard(stand)
        if every or pairs is None:
            return sure, None
        out |= std | pairs | wild
        if stand is not None:
            out.add(stand)  # the winning tile may be a wildcard or a stand-in
        if self.free:
            meld_tiles = [t for m in melds for t in m.tiles]
            for banned, _held_of, mw in self.free_getters:
                if w + s >= mw and not any(c[t] for t in banned) and not any(t in banned for t in meld_tiles):
                    out.update(t for t in self.kinds if t not in banned)
        return sure, out

    def _facts_accept(self, key: tuple[str, int], w: int, melds: Sequence[Meld]) -> bool:
        """Does an acceptance rule of shape ``key`` that reads only wildcard counts (no pair
        filter) hold with ``w`` wildcards, all held (the winning tile natural)?"""
        for kinds, checks, _whole, accepts in self.rules.get(key, ()):
            if accepts and kinds is None and not any(nat for _f, _c, nat in checks) and all(
                    cnt.ok(f(_ZEROS, _ZEROS, self._suits, w, w, melds)) for f, cnt, _n in checks):
                return True
        return False

    def waits(self, concealed: Sequence[Tile], melds: Sequence[Meld], ctx: WinContext,
              wildcard: Tile | None) -> list[Tile]:
        """:meth:`Evaluator.waits`: the sure waits from the tables (:meth:`wait_sets`), then
        :meth:`is_win`'s checks for the other candidate kinds only (not remembered: a hand's
        34 kinds would crowd out the verdicts the game asks for again)."""
        if ctx.win_by not in self.win_by:
            return []
        concealed = tuple(concealed)
        melds = tuple(melds)
        sure, cand = self.wait_sets(concealed, melds, wildcard)
        wild = self.wild_info(wildcard)[0]
        ev = self.ev
        no_wild_win = ctx.win_by != "self_draw" and not ev._wild_claims
        out = []
        for t in self.kinds:
            if t in sure:
                out.append(t)
            elif cand is None or t in cand:
                verdict = self._verdict_for(concealed, melds, t, wildcard, memo=False)
                if verdict is False or (no_wild_win and t in wild):
                    continue
                if verdict and not ev._void_rule:
                    out.append(t)  # (what _in_context would say, without building the hand)
                elif self._in_context(Hand(concealed, melds, t), ctx, wildcard, verdict):
                    out.append(t)
        return out
