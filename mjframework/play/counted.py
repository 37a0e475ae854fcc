"""A seat's tiles as typed lists that keep their counts per kind as they change.

A seat's held tiles, its discards and its melds are read far more often than they change:
every turn the claim screen, the bots and the environment's observation want them as counts
per kind, while a turn changes them by a tile or two. :class:`CountedTiles` (held tiles,
discards) and :class:`CountedMelds` (melds) are plain lists to every reader — iteration,
indexing, ``==``, ``len``, ``list(...)`` as before — whose every mutating method also keeps
``counts`` (a :class:`bytearray` indexed by tile) up to date. Nothing else writes them.

The reference is counting from scratch (:func:`count_tiles`, :func:`count_melds`);
``tests/test_counted.py`` compares the two at every step of random hands of every shipped
ruleset, and the list operations one by one against a plain list.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import SupportsIndex, overload

from ..core.hand import Meld
from ..core.tiles import FLOWER_BASE, FLOWER_NAMES, Tile
from .visibility import FACE_DOWN_KINDS

#: Every tile id a seat's lists can hold (the standard kinds, then the flowers).
ALL_KINDS = FLOWER_BASE + len(FLOWER_NAMES)


def count_tiles(tiles: Iterable[Tile]) -> bytearray:
    """Counts per kind of ``tiles``, from scratch (the reference)."""
    c = bytearray(ALL_KINDS)
    for t in tiles:
        c[t] += 1
    return c


def count_melds(melds: Iterable[Meld], face_up_only: bool = False) -> bytearray:
    """Counts per kind of the tiles in ``melds`` (``face_up_only``: only melds laid face
    up, as other seats see them before the hand's end), from scratch (the reference)."""
    c = bytearray(ALL_KINDS)
    for m in melds:
        if face_up_only and m.kind in FACE_DOWN_KINDS:
            continue
        for t in m.tiles:
            c[t] += 1
    return c


class CountedTiles(list[Tile]):
    """A list of tiles that keeps ``counts`` (per kind) as it changes.

    (The overrides call ``list.append(self, …)``, not ``super()``: a draw and a discard
    each pass here, and ``super()`` doubles the cost of the call.)"""

    __slots__ = ("counts",)

    def __init__(self, tiles: Iterable[Tile] = ()) -> None:
        list.__init__(self, tiles)
        self.counts = count_tiles(self)

    def __reduce__(self) -> tuple[type[CountedTiles], tuple[list[Tile]]]:
        return CountedTiles, (list(self),)

    def append(self, t: Tile) -> None:
        list.append(self, t)
        self.counts[t] += 1

    def remove(self, t: Tile) -> None:
        list.remove(self, t)
        self.counts[t] -= 1

    def pop(self, i: SupportsIndex = -1) -> Tile:
        t = list.pop(self, i)
        self.counts[t] -= 1
        return t

    def insert(self, i: SupportsIndex, t: Tile) -> None:
        list.insert(self, i, t)
        self.counts[t] += 1

    def extend(self, tiles: Iterable[Tile]) -> None:
        tiles = list(tiles)
        list.extend(self, tiles)
        c = self.counts
        for t in tiles:
            c[t] += 1

    def clear(self) -> None:
        list.clear(self, )
        self._recount()

    def __iadd__(self, tiles: Iterable[Tile]) -> CountedTiles:  # type: ignore[override,misc]
        self.extend(tiles)
        return self

    def __imul__(self, n: SupportsIndex) -> CountedTiles:
        list.__imul__(self, n)
        self._recount()
        return self

    @overload
    def __setitem__(self, i: SupportsIndex, t: Tile) -> None: ...

    @overload
    def __setitem__(self, i: slice, t: Iterable[Tile]) -> None: ...

    def __setitem__(self, i: SupportsIndex | slice, t: Tile | Iterable[Tile]) -> None:
        list.__setitem__(self, i, t)  # type: ignore[misc,assignment]
        self._recount()

    def __delitem__(self, i: SupportsIndex | slice) -> None:
        list.__delitem__(self, i)
        self._recount()

    def _recount(self) -> None:
        self.counts = count_tiles(self)


class CountedMelds(list[Meld]):
    """A seat's melds, keeping ``counts`` (per kind, of every meld's tiles), ``face_up``
    (the same of the melds laid face up: what the other seats see before the hand's end)."""

    __slots__ = ("counts", "face_up")

    def __init__(self, melds: Iterable[Meld] = ()) -> None:
        list.__init__(self, melds)
        self._recount()

    def __reduce__(self) -> tuple[type[CountedMelds], tuple[list[Meld]]]:
        return CountedMelds, (list(self),)

    def _add(self, m: Meld, d: int) -> None:
        c = self.counts
        for t in m.tiles:
            c[t] += d
        if m.kind not in FACE_DOWN_KINDS:
            c = self.face_up
            for t in m.tiles:
                c[t] += d

    def append(self, m: Meld) -> None:
        list.append(self, m)
        self._add(m, 1)

    def remove(self, m: Meld) -> None:
        list.remove(self, m)
        self._add(m, -1)

    def pop(self, i: SupportsIndex = -1) -> Meld:
        m = list.pop(self, i)
        self._add(m, -1)
        return m

    def insert(self, i: SupportsIndex, m: Meld) -> None:
        list.insert(self, i, m)
        self._add(m, 1)

    def extend(self, melds: Iterable[Meld]) -> None:
        for m in list(melds):
            self.append(m)

    def clear(self) -> None:
        list.clear(self, )
        self._recount()

    def __iadd__(self, melds: Iterable[Meld]) -> CountedMelds:  # type: ignore[override,misc]
        self.extend(melds)
        return self

    def __imul__(self, n: SupportsIndex) -> CountedMelds:
        list.__imul__(self, n)
        self._recount()
        return self

    @overload
    def __setitem__(self, i: SupportsIndex, m: Meld) -> None: ...

    @overload
    def __setitem__(self, i: slice, m: Iterable[Meld]) -> None: ...

    def __setitem__(self, i: SupportsIndex | slice, m: Meld | Iterable[Meld]) -> None:
        list.__setitem__(self, i, m)  # type: ignore[misc,assignment]
        self._recount()

    def __delitem__(self, i: SupportsIndex | slice) -> None:
        list.__delitem__(self, i)
        self._recount()

    def _recount(self) -> None:
        self.counts = count_melds(self)
        self.face_up = count_melds(self, face_up_only=True)
