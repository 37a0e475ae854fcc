"""How many kinds a held hand waits on (the ``waiting_tiles`` measure), by shape only."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..core.hand import Meld
from ..core.tiles import Tile
from ..rules.model import Shape
from . import wintable
from .readings import KNITTED_STRAIGHTS
from .waits import shape_possible

if TYPE_CHECKING:
    from .scoring import Evaluator

_KNITTED_SETS = [(ks, frozenset(ks)) for ks in KNITTED_STRAIGHTS]


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
    only by the table's waits (:func:`.wintable.standard_waits`: each of them does, as
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
                sure.update(wintable.standard_waits(c, 0))
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
                    out.update(wintable.standard_waits(rest, 0))
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
