"""What a reading is made of, and the helpers every shape's reader shares (moved out of :mod:`.readings`).

:class:`Group` and :class:`Reading` (the reading itself), :class:`Tiles` (a hand's
concealed tiles split into naturals, wildcards and stand-ins) with
:func:`stand_in_splits`, and the groups of wildcards alone (:func:`_free_groups`,
:class:`FreeKinds`), and the groups :func:`.readings._standard` may take with
wildcards in them (:func:`_wild_options`). See :mod:`.readings` for the sources ``n``/``w``/``s``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from ..core.hand import Meld
from ..core.tiles import HONOR_BASE, Tile
from ..rules.model import Shape


class Group(NamedTuple):
    """One group of a reading. A NamedTuple: readings build many of them."""

    kind: str  # seq | triplet | kong | pair | single
    tiles: tuple[Tile, ...]
    sources: tuple[str, ...]  # per tile: n / w / s
    meld: str | None = None  # the exposed meld's kind, None if formed in hand

    @property
    def is_meld(self) -> bool:
        return self.kind in ("seq", "triplet", "kong")


@dataclass(frozen=True)
class Reading:
    shape: Shape
    groups: tuple[Group, ...]

    @property
    def tiles(self) -> list[Tile]:
        return [t for g in self.groups for t in g.tiles]


@dataclass(frozen=True)
class Tiles:
    """The concealed tiles split for reading: natural counts, wildcards, stand-ins.

    ``counts`` holds natural tiles; stand-ins are kept apart (``stand_ins``)
    because each may be read as its own tile or as ``wildcard``.
    """

    counts: tuple[int, ...]
    wilds: int
    stand_ins: int
    stand_in_tile: Tile | None
    wildcard: Tile | None


def stand_in_splits(t: Tiles) -> Iterator[tuple[list[int], int]]:
    """(natural counts, how many stand-ins read as the wildcard's tile) for each split.

    The wildcard's own kind has no natural copies (all are wild), so the
    count at ``wildcard`` after a split is exactly the stand-ins read as it.
    """
    base = list(t.counts)
    if not t.stand_ins or t.stand_in_tile is None or t.wildcard is None:
        yield base, 0
        return
    for k in range(t.stand_ins + 1):
        c = base[:]
        c[t.stand_in_tile] += t.stand_ins - k
        c[t.wildcard] += k
        yield c, k


def _src(t: Tile, wildcard: Tile | None) -> str:
    return "s" if t == wildcard else "n"


def _free_groups(w: int, melds: int, pairs: int, kinds: Sequence[Tile], acc: list[Group],
                 out: list[tuple[Group, ...]], seq_starts: Sequence[Tile] | None = None,
                 first: bool = False) -> None:
    """Wildcards left over form whole groups on their own: enumerate what they stand for.

    ``kinds``: the kinds a triplet or pair of wildcards may be read as; ``seq_starts``: the
    lowest tiles of the sequences they may be read as (None: every sequence within ``kinds``).
    """
    if not melds and not pairs:
        out.append(tuple(acc))
        return
    if melds:
        # (built as taken: with ``first`` the first option is all that is needed)
        for g in _free_melds(kinds, seq_starts):
            acc.append(g)
            _free_groups(w - 3, melds - 1, pairs, kinds, acc, out, seq_starts, first)
            acc.pop()
            if first and out:
                return
        return
    for t in kinds:
        acc.append(Group("pair", (t, t), ("w", "w")))
        _free_groups(w - 2, melds, pairs - 1, kinds, acc, out, seq_starts, first)
        acc.pop()
        if first and out:
            return


def _free_melds(kinds: Sequence[Tile], seq_starts: Sequence[Tile] | None) -> Iterator[Group]:
    """The melds a group of wildcards alone may be read as, in :func:`_free_groups`'s order."""
    if seq_starts is None:
        for t in kinds:
            yield Group("triplet", (t, t, t), ("w", "w", "w"))
            if t < HONOR_BASE and t % 9 <= 6 and t + 2 in kinds:
                yield Group("seq", (t, t + 1, t + 2), ("w", "w", "w"))
    else:
        for t in kinds:
            yield Group("triplet", (t, t, t), ("w", "w", "w"))
        for t in seq_starts:
            yield Group("seq", (t, t + 1, t + 2), ("w", "w", "w"))


class FreeKinds:
    """Which kinds groups made of wildcards alone are read as, for one hand.

    ``key(t)`` names a class of kinds that every pattern judged treats alike when a group
    of wildcards alone is read as one of them (see ``Evaluator``'s reading search): a
    reading with such a group judges as the same reading with the group read as any other
    kind of its class. So ``n`` such groups need only the first ``n`` kinds of each class
    (pairs and triplets), and sequences only the first ``n`` of each class of sequences.
    Sequences next to triplets or pairs of wildcards alone (two or more groups with a
    meld among them) fall back to every kind: there a class-preserving swap need not keep
    a sequence a sequence.
    """

    def __init__(self, kinds: Sequence[Tile], key: Callable[[Tile], object]) -> None:
        self.all_kinds = tuple(kinds)
        have = set(kinds)
        classes: dict[object, list[Tile]] = {}
        seqs: dict[object, list[Tile]] = {}
        for t in kinds:
            k = key(t)
            classes.setdefault(k, []).append(t)
        # Each kind's class as a number (the classes in order of their first kind).
        keys = {t: i for i, members in enumerate(classes.values()) for t in members}
        for t in kinds:
            if t < HONOR_BASE and t % 9 <= 6 and t + 2 in have:  # as _free_groups reads sequences
                seqs.setdefault((keys[t], keys.get(t + 1, -1), keys[t + 2]), []).append(t)
        self.key: dict[Tile, int] = keys
        self._choices: dict[tuple[int, int], tuple[tuple[Tile, ...], tuple[Tile, ...] | None]] = {}
        self._classes = list(classes.values())
        self._seqs = list(seqs.values())

    def choice(self, melds: int, pairs: int) -> tuple[tuple[Tile, ...], tuple[Tile, ...] | None]:
        """(triplet and pair kinds, sequence starts) for ``melds`` melds and ``pairs`` pairs of
        wildcards alone."""
        got = self._choices.get((melds, pairs))
        if got is None:
            n = melds + pairs
            if melds and n > 1:
                got = self.all_kinds, None
            else:
                got = (tuple(sorted(t for members in self._classes for t in members[:n])),
                       tuple(sorted(t for members in self._seqs for t in members[:n])))
            self._choices[melds, pairs] = got
        return got


def _meld_group(m: Meld) -> Group:
    kind = "seq" if m.kind == "chow" else "triplet" if m.kind == "pung" else "kong"
    return Group(kind, m.tiles, ("n",) * len(m.tiles), meld=m.kind)


def _group_key(g: Group) -> tuple[tuple[Tile, ...], str, tuple[str, ...], str]:
    return (g.tiles, g.kind, g.sources, g.meld or "")


class _Visit(list[tuple[Group, ...]]):
    """An ``out`` list for :func:`_standard` (with ``first``) that hands each reading found to
    ``visit`` as it is found, and takes it only when ``visit`` says the search may stop."""

    def __init__(self, visit: Callable[[tuple[Group, ...]], bool]) -> None:
        super().__init__()
        self.visit = visit

    def append(self, groups: tuple[Group, ...]) -> None:
        if self.visit(groups):
            super().append(groups)


def _wild_options(c: list[int], w: int, melds: int, pairs: int, t: Tile,
                  wildcard: Tile | None) -> Iterator[tuple[Group, tuple[Tile, ...], int]]:
    """The groups :func:`_standard` may take for the lowest tile left ``t`` with wildcards in
    them, as (group, natural tiles used, wildcards used), built as they are asked for."""
    src = _src(t, wildcard)
    ct = c[t]
    if pairs and ct >= 1 and w >= 1:
        yield Group("pair", (t, t), (src, "w")), (t,), 1
    if melds:
        for a in range(min(2, ct), 0, -1):
            if 3 - a <= w:
                yield Group("triplet", (t, t, t), (src,) * a + ("w",) * (3 - a)), (t,) * a, 3 - a
    if melds and t < HONOR_BASE:
        r = t % 9
        if r <= 6:
            for use1, use2 in ((True, False), (False, True), (False, False)):
                if (use1 and c[t + 1] == 0) or (use2 and c[t + 2] == 0):
                    continue
                need = (not use1) + (not use2)
                if need > w:
                    continue
                used = (t,) + ((t + 1,) if use1 else ()) + ((t + 2,) if use2 else ())
                yield Group("seq", (t, t + 1, t + 2), (src, _src(t + 1, wildcard) if use1 else "w",
                                                       _src(t + 2, wildcard) if use2 else "w")), used, need
        if 1 <= r <= 7:
            for use2 in (True, False):
                if use2 and c[t + 1] == 0:
                    continue
                need = 1 + (not use2)
                if need <= w:
                    g = Group("seq", (t - 1, t, t + 1), ("w", src, _src(t + 1, wildcard) if use2 else "w"))
                    yield g, ((t, t + 1) if use2 else (t,)), need
        if r >= 2 and w >= 2:
            yield Group("seq", (t - 2, t - 1, t), ("w", "w", src)), (t,), 2
