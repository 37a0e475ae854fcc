"""A typed store for state that lives as long as one object (a hand): :class:`Stash`.

Modelled on pytest's ``Stash``: a plugin instance serves every hand of a
ruleset (a simulation reuses it for thousands), so state that belongs to one
hand is kept on the hand (``hand.stash``) rather than in the plugin, and goes
with it. Keys are :class:`StashKey` objects, not strings, so two plugins never
collide and a type checker knows what each key holds::

    BIRDS = StashKey[list[Tile]]()        # at module level, once

    hand.stash[BIRDS] = tiles
    hand.stash.get(BIRDS, [])            # -> list[Tile]
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar, cast, overload

T = TypeVar("T")
D = TypeVar("D")
_MISSING = object()


class StashKey(Generic[T]):
    """A key of a :class:`Stash`; ``T`` is the type of its value. Compared by identity."""

    __slots__ = ()


class Stash:
    """A mapping from :class:`StashKey` to values of the key's type."""

    __slots__ = ("_data",)

    def __init__(self) -> None:
        self._data: dict[StashKey[Any], object] = {}

    def __setitem__(self, key: StashKey[T], value: T) -> None:
        self._data[key] = value

    def __getitem__(self, key: StashKey[T]) -> T:
        """The value set for ``key``; ``KeyError`` if none was."""
        return cast("T", self._data[key])

    @overload
    def get(self, key: StashKey[T]) -> T | None: ...
    @overload
    def get(self, key: StashKey[T], default: D) -> T | D: ...
    def get(self, key: StashKey[T], default: object = None) -> object:
        """The value set for ``key``, or ``default``."""
        return self._data.get(key, default)

    def setdefault(self, key: StashKey[T], default: T) -> T:
        """The value set for ``key``; if none was, set ``default`` and return it."""
        return cast("T", self._data.setdefault(key, default))

    @overload
    def pop(self, key: StashKey[T]) -> T: ...
    @overload
    def pop(self, key: StashKey[T], default: D) -> T | D: ...
    def pop(self, key: StashKey[T], default: object = _MISSING) -> object:
        """Remove ``key`` and return its value (or ``default``; ``KeyError`` without one)."""
        if default is _MISSING:
            return self._data.pop(key)
        return self._data.pop(key, default)

    def __delitem__(self, key: StashKey[T]) -> None:
        del self._data[key]

    def __contains__(self, key: object) -> bool:
        return key in self._data

    def __len__(self) -> int:
        return len(self._data)

    def __repr__(self) -> str:
        return f"<Stash with {len(self._data)} key(s)>"


__all__ = ["Stash", "StashKey"]
