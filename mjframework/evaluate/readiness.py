"""How many kinds a held hand waits on (the ``waiting_tiles`` measure), by shape only."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..core.hand import Meld
from ..core.tiles import Tile
from ..rules.model import Shape
from .readings import _BLOCKS, BLOCK_TABLE_MAX, KNITTED_STRAIGHTS, block_decompositions
from .waits import shape_possible, straight_kinds_held

if TYPE_CHECKING:
    from .scoring import Evaluator

_KNITTED_SETS = [(ks, frozenset(ks)) for ks in KNITTED_STRAIGHTS]

# Per block (the three suits, the honors; readings' blocks): its counts -> its wait facts
# (see _block_wait_facts), filled as count vectors are met, bounded like the reading tables.
_BLOCK_WAITS: tuple[dict[bytes, tuple[int, int, int]], ...] = ({}, {}, {}, {})


def _pair_options(block: int, key: bytes) -> int:
    """Bit ``p`` (0 or 1) set when the block's tiles split wholly into melds and ``p`` pairs."""
    out = 0
    for _melds, pairs, _groups in block_decompositions(block, key):
        if pairs <= 1:
            out |= 1 << pairs
    return out


def _block_wait_facts(block: int, key: bytes) -> tuple[int, int, int]:
    """Of one block's natural counts: its pair options (:func:`_pair_options`), and the
    block's kinds (a bit per kind, 0–33) one more tile of which lets it split into melds only,
    and into melds and one pair. From the per-block decompositions, once per count vector."""
    table = _BLOCK_WAITS[block]
    got = table.get(key)
    if got is None:
        to_melds = to_pair = 0
        lo = _BLOCKS[block][0]
        more = bytearray(key)
        for r in range(len(more)):
            more[r] += 1
            opts = _pair_options(block, bytes(more))
            more[r] -= 1
            if opts & 1:
                to_melds |= 1 << (lo + r)
            if opts & 2:
                to_pair |= 1 << (lo + r)
        got = (_pair_options(block, key), to_melds, to_pair)
        if len(table) >= BLOCK_TABLE_MAX:
            table.clear()
        table[key] = got
    return got


def _union_melds(facts: list[tuple[int, int, int]], but: int) -> int:
    """The kinds to melds only of every block but ``but``."""
    out = 0
    for i, f in enumerate(facts):
        if i != but:
            out |= f[1]
    return out


def natural_standard_waits(counts: Sequence[int]) -> list[Tile]:
    """The kinds ``t`` for which natural ``counts`` (34 kinds) plus one ``t`` split into melds and
    one pair: :func:`.wintable.standard_waits` with no wildcard (a kind all four of whose tiles
    are held is listed too), from per-block facts (``tests/test_readiness.py`` compares them).

    The block taking the added tile must then split into melds only while exactly one other
    block holds the pair, or take the pair itself while the others split into melds only. So
    the blocks that cannot split into melds only ("stuck") decide: none — each block's
    additions to a pair, and to melds only where another block can hold the pair; one —
    its own additions as if none were stuck, the others' to melds only if it can hold the
    pair; two — each one's to melds only if the other can hold the pair; more — none."""
    b = bytes(counts)
    facts = [_block_wait_facts(i, b[lo:hi]) for i, (lo, hi) in enumerate(_BLOCKS)]
    stuck = [i for i in range(4) if not facts[i][0] & 1]
    bits = 0
    if len(stuck) <= 1:
        for i in (stuck or range(4)):  # (with one stuck, the others split into melds only)
            _own, to_melds, to_pair = facts[i]
            bits |= to_pair
            if any(facts[j][0] & 2 for j in range(4) if j != i):
                bits |= to_melds
        if len(stuck) == 1 and facts[stuck[0]][0] & 2:
            bits |= _union_melds(facts, stuck[0])
    elif len(stuck) == 2:
        s, u = stuck
        if facts[u][0] & 2:
            bits |= facts[s][1]
        if facts[s][0] & 2:
            bits |= facts[u][1]
    out: list[Tile] = []
    while bits:
        low = bits & -bits
        out.append(low.bit_length() - 1)
        bits ^= low
    return out


def waiting_tiles(ev: Evaluator, concealed: Sequence[Tile], melds: Sequence[Meld] = (),
                  wildcard: Tile | None = None) -> int:
    """How many tile kinds complete these held tiles to a standard shape (melds + a pair), a
    knitted straight with melds, or, with no declared meld, pairs, as this ruleset's patterns
    use (the `waiting_tiles` measure: a hand waiting on one tile only has 1). Only the shape
    counts, not the patterns.

    Only candidate kinds are checked (:meth:`_waiting_candidates`), each as before; those
    the win table already names as completing a standard shape are counted unchecked."""
    shapes = ev._waiting_shapes
    exposed = len(melds)
    cand, sure = waiting_candidates(ev, concealed, exposed, shapes, wildcard)
    if cand is None:
        todo: Sequence[Tile] = ev.kinds
        n = 0
    else:
        kinds = ev._kind_set
        todo = [t for t in cand if t not in sure and t in kinds]
        n = sum(1 for t in sure if t in kinds)
    for t in todo:
        full = ev.split([*concealed, t], wildcard)
        if any(shape_possible(full, exposed, s, ev.kinds) for s in shapes):
            n += 1
    return n


def waiting_candidates(ev: Evaluator, concealed: Sequence[Tile], exposed: int, shapes: Sequence[Shape],
                       wildcard: Tile | None) -> tuple[set[Tile] | None, set[Tile]]:
    """A superset of the kinds that :meth:`waiting_tiles` counts (None: every kind may), and
    the kinds among them known to count.

    With no wildcard and no stand-in held: a standard shape (melds + one pair) is completed
    only by the table's waits (:func:`natural_standard_waits`: each of them does, as
    :func:`.waits.rest_holds` judges, unless it is itself a wild or stand-in kind), a pairs
    shape only by the one kind held an odd number of times, a knitted straight (with a pair)
    by the ninth kind of a straight eight of whose kinds are held, or, all nine held, by the
    table's waits of the rest; a wild or stand-in kind as the added tile is always a
    candidate."""
    held = ev.split(concealed, wildcard)
    if held.wilds or held.stand_ins:
        return None, set()
    c = held.counts
    n = len(concealed) + 1
    out: set[Tile] = set()
    sure: set[Tile] = set()
    odd: list[Tile] | None = None
    for s in shapes:
        if s.kind == "standard" and s.pair == 1:
            if n == 3 * (s.melds - exposed) + 2:
                sure.update(natural_standard_waits(c))
        elif s.kind == "pairs":
            if not exposed and n == 2 * s.pairs:
                if odd is None:
                    # one odd kind, the rest pairs: at most n / 2 kinds (else none is looked for)
                    odd = [k for k, x in enumerate(c) if x & 1] if len(set(concealed)) * 2 <= n else []
                if len(odd) == 1:
                    out.update(odd)
        elif s.kind == "knitted_straight" and s.pair == 1:
            # The hand's straight is among the tiles held plus the added one: eight of its
            # nine kinds are held. Eight: the ninth completes it; nine: the added tile
            # completes the rest (melds + pair) the straight leaves.
            if straight_kinds_held(bytes(c)) < 8:  # (most hands: no straight is near)
                continue
            held_kinds = set(concealed)  # (no wildcard or stand-in held: the kinds of c)
            for ks, kind_set in _KNITTED_SETS:
                if len(kind_set & held_kinds) < 8:
                    continue
                missing = [x for x in ks if not c[x]]
                if len(missing) == 1:
                    out.add(missing[0])
                elif not missing:
                    rest = list(c)
                    for x in ks:
                        rest[x] -= 1
                    out.update(natural_standard_waits(rest))
        else:
            return None, set()
    out |= sure
    eff = ev._default_wild if wildcard is None else wildcard
    special = set(ev.wild_kinds(eff)) if ev._fixed else ({eff} if eff is not None else set())
    stand = ev.stand_in_for(eff)
    if stand is not None:
        special.add(stand)
    out |= special
    sure -= special  # (as the added tile it is split off as a wildcard or stand-in: checked)
    return out, sure
