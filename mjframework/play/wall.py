"""The wall: stacks built per seat, dice, the break, the deal, the indicator flip, draws.

Geometry (docs/rules/): seats are counterclockwise (0 dealer, 1 right, 2
opposite, 3 left); draws move clockwise, along each wall from its owner's
right end to the left end, then on to the left-hand player's wall. So the
walls in draw order, starting at the broken wall's owner ``o``, are ``o``,
``o−1``, ``o−2``, ``o−3`` (mod 4).

The ring of stacks is rotated so that stack 0 is where the first draw
starts. Live draws go forward (each stack top, then bottom); kong
replacements go backward from the stack just before the start. A flipped
indicator that ``ends_live_wall`` is never drawn and neither end may pass its
stack; without one, the two ends meet. A reserved tail (``wall.reserve``, 留尾)
of N tiles is never drawn from either end: once only N are left, nothing more
is drawn (the last drawable tile is the last tile); the kong end may still be
looked at (:meth:`Wall.peek_end`).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..core.tiles import Tile
from ..rules.model import IndicatorRule, Ruleset


@dataclass(frozen=True)
class Break:
    dice: tuple[int, ...]
    wall_seat: int  # absolute seat whose wall is broken
    stack: int  # N: the N-th stack counted as the ruleset says


def _die(values: tuple[int, ...], which: str) -> int:
    if which == "high":
        return max(values)
    if which == "low":
        return min(values)
    return sum(values)


def shuffle(rng: random.Random, x: list[Tile]) -> None:
    """``rng.shuffle(x)``, the very same permutation and generator state, at about half the cost.

    A hand's wall is shuffled once per hand (136 swaps: ~3 % of a simulated hand).
    :meth:`random.Random.shuffle` draws each index through ``_randbelow``, one Python call
    per tile; this is its loop (Fisher–Yates from the end, an index below ``n`` drawn as
    ``getrandbits(n.bit_length())`` retried until below ``n``) inlined. A subclass of
    :class:`random.Random` may draw differently, so it gets its own ``shuffle``.
    """
    if type(rng) is not random.Random:
        rng.shuffle(x)
        return
    getrandbits = rng.getrandbits
    for i in range(len(x) - 1, 0, -1):
        n = i + 1
        k = n.bit_length()
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        x[i], x[j] = x[j], x[i]


class Wall:
    """The tiles not in anyone's hand, as stacks around the table."""

    def __init__(self, ruleset: Ruleset, rng: random.Random, dealer: int) -> None:
        self.ruleset = ruleset
        self.rng = rng
        self.dealer = dealer
        players = ruleset.players
        spec = ruleset.wall
        height = spec.height
        per = spec.stacks_per_seat
        # stacks_per_seat as a list is per seat counted from the dealer.
        self.sizes = [per[(s - dealer) % players] if isinstance(per, tuple) else per
                      for s in range(players)]
        self.height = height
        tiles = ruleset.tileset.full_wall()
        shuffle(rng, tiles)
        self.tiles_in_seat_order = tiles  # walls of seat 0..3, each from its owner's right end
        self.slots: list[Tile | None] = []
        self.start_stack = 0
        self.indicator_stack: int | None = None
        self.indicator: Tile | None = None
        self.reserve = spec.reserve  # tiles never drawn (0: none)
        # Counts tiles taken out of ``slots`` (every write to it is here): with the two ends,
        # the indicator and the list itself (tests lay out a wall by replacing it) it keys
        # the memos of ``live_remaining`` / ``kong_remaining``, which the engine and plugins
        # ask several times a turn.
        self._taken = 0
        self._live_memo: tuple[tuple[int, int, int | None, int, int], int] | None = None
        self._kong_memo: tuple[tuple[int, int, int | None, int, int], int] | None = None

    # -- dice and the break ----------------------------------------------------

    def roll(self, n: int = 2) -> tuple[int, ...]:
        return tuple(self.rng.randint(1, 6) for _ in range(n))

    def break_wall(self) -> Break:
        """Roll for the break and lay the ring out in draw order from the start."""
        spec = self.ruleset.break_
        players = self.ruleset.players
        dice = self.roll(spec.dice)
        value = _die(dice, spec.wall.die)
        rel = spec.wall.seats.get(value, 0)
        owner = (self.dealer + rel) % players
        n = _die(dice, spec.stack.die)
        # Walls in draw order from the owner: owner, owner-1, … (clockwise).
        order = [(owner - i) % players for i in range(players)]
        offsets = {}
        pos = 0
        for s in range(players):
            offsets[s] = pos
            pos += self.sizes[s] * self.height
        ring: list[Tile | None] = []
        self.wall_start: dict[int, int] = {}
        for s in order:
            self.wall_start[s] = len(ring) // self.height
            ring.extend(self.tiles_in_seat_order[offsets[s]:offsets[s] + self.sizes[s] * self.height])
        size = self.sizes[owner]
        n = max(1, min(n, size))
        start = size - n if spec.stack.from_ == "owner_left" else n - 1
        self.stacks = len(ring) // self.height
        cut = start * self.height
        self.slots = ring[cut:] + ring[:cut]
        self._taken += 1
        self.start_stack = start
        self.live = 0  # next live slot
        self.kong_stack = self.stacks - 1  # next kong stack (backwards)
        self.kong_layer = 0
        self._owner = owner
        return Break(dice, owner, n)

    def _ring_stack(self, seat: int, index_from_right: int) -> int:
        """Rotated stack index of the ``index_from_right``-th stack (0-based) of ``seat``'s wall."""
        return (self.wall_start[seat] + index_from_right - self.start_stack) % self.stacks

    # -- the deal ------------------------------------------------------------

    def take_live(self) -> Tile | None:
        """The next live tile, or None when the live wall is exhausted."""
        if self.reserve and self._over_reserve() <= 0:
            return None
        ind = self.indicator_stack  # (_blocked going forward, inline: a draw every turn)
        while self.live < len(self.slots):
            if ind is not None and self.live // self.height >= ind:
                return None
            t = self.slots[self.live]
            self.slots[self.live] = None
            self._taken += 1
            self.live += 1
            if t is not None:
                return t
        return None

    def take_live_n(self, k: int) -> list[Tile]:
        """The next ``k`` live tiles, as ``k`` calls of :meth:`take_live` would take them,
        stopping early (a shorter list) where one would return None. (The deal takes ~53.)"""
        out: list[Tile] = []
        slots = self.slots
        height = self.height
        ind = self.indicator_stack
        if self.reserve:
            k = min(k, self._over_reserve())
        while len(out) < k and self.live < len(slots):
            if ind is not None and self.live // height >= ind:
                break
            t = slots[self.live]
            slots[self.live] = None
            self._taken += 1
            self.live += 1
            if t is not None:
                out.append(t)
        return out

    def take_at(self, stacks_ahead: int, layer: str) -> Tile:
        """A specific tile ahead of the live end (跳杠 style deals): stack 1 is the next one."""
        first = self.live // self.height
        stack = first + stacks_ahead - 1
        slot = stack * self.height + (0 if layer == "top" or self.height == 1 else 1)
        t = self.slots[slot]
        if t is None:
            raise RuntimeError(f"deal: stack {stacks_ahead} {layer} is already taken")
        self.slots[slot] = None
        self._taken += 1
        return t

    def peek_live(self, n: int) -> list[Tile]:
        """Up to ``n`` of the next live tiles, not taken (never the reserved tail's)."""
        if self.reserve:
            n = min(n, self._over_reserve())
        out: list[Tile] = []
        i = self.live
        while i < len(self.slots) and len(out) < n:
            if self._blocked(i // self.height, forward=True):
                break
            t = self.slots[i]
            if t is not None:
                out.append(t)
            i += 1
        return out

    def peek_end(self, n: int) -> list[Tile]:
        """Up to ``n`` of the next tiles at the kong end, not taken."""
        out: list[Tile] = []
        stack, layer = self.kong_stack, self.kong_layer
        while stack >= 0 and len(out) < n and not self._blocked(stack, forward=False):
            if (stack + 1) * self.height <= self.live:
                break  # the live end has taken everything from here on
            slot = stack * self.height + layer
            t = self.slots[slot] if slot >= self.live else None
            if t is not None:
                out.append(t)
            layer += 1
            if layer >= self.height:
                layer, stack = 0, stack - 1
        return out

    def take_from_end(self, stacks_back: int) -> Tile | None:
        """The top tile of the ``stacks_back``-th stack back from the last one (bottom if
        the top is gone); None if that stack is gone or not at the kong end."""
        stack = self.kong_stack - (stacks_back - 1)
        if self.reserve and self._over_reserve() <= 0:
            return None
        if stack < 0 or (stack + 1) * self.height <= self.live or self._blocked(stack, forward=False):
            return None
        for layer in range(self.height):
            slot = stack * self.height + layer
            if slot >= self.live and self.slots[slot] is not None:
                t = self.slots[slot]
                self.slots[slot] = None
                self._taken += 1
                return t
        return None

    def take_kong(self) -> Tile | None:
        """A replacement tile from the kong end (backwards), or None."""
        if self.reserve and self._over_reserve() <= 0:
            return None
        while self.kong_stack >= 0:
            if self._blocked(self.kong_stack, forward=False):
                return None
            slot = self.kong_stack * self.height + self.kong_layer
            self.kong_layer += 1
            if self.kong_layer >= self.height:
                self.kong_layer = 0
                self.kong_stack -= 1
            if slot < self.live:
                continue  # the live end took this one (the ends meet inside a stack)
            t = self.slots[slot]
            if t is not None:
                self.slots[slot] = None
                self._taken += 1
                return t
        return None

    def _over_reserve(self) -> int:
        """How many tiles may still be drawn before only the reserved tail is left."""
        return len(self.slots) - self.slots.count(None) - self.reserve

    def _blocked(self, stack: int, forward: bool) -> bool:
        if self.indicator_stack is None:
            return False
        return stack >= self.indicator_stack if forward else stack <= self.indicator_stack

    def live_remaining(self) -> int:
        """Tiles still drawable from the live end."""
        key = (self.live, self.kong_stack, self.indicator_stack, self._taken, id(self.slots))
        memo = self._live_memo
        if memo is not None and memo[0] == key:
            return memo[1]
        if self.indicator_stack is not None:
            end = self.indicator_stack * self.height
        else:
            end = (self.kong_stack + 1) * self.height
        seg = self.slots[self.live:end]
        n = len(seg) - seg.count(None)
        if self.reserve:
            n = max(0, min(n, self._over_reserve()))
        self._live_memo = (key, n)
        return n

    def kong_remaining(self) -> int:
        key = (self.live, self.kong_stack, self.indicator_stack, self._taken, id(self.slots))
        memo = self._kong_memo
        if memo is not None and memo[0] == key:
            return memo[1]
        lo = (self.indicator_stack + 1) * self.height if self.indicator_stack is not None else self.live
        hi = (self.kong_stack + 1) * self.height
        seg = self.slots[max(lo, self.live):hi]
        n = len(seg) - seg.count(None)
        if self.reserve:
            n = max(0, min(n, self._over_reserve()))
        self._kong_memo = (key, n)
        return n

    def remaining(self) -> list[Tile]:
        """Every tile still in the wall (drawable or not), the indicator included."""
        out = [t for t in self.slots if t is not None]
        if self.indicator is not None:
            out.append(self.indicator)
        return out

    # -- the indicator -------------------------------------------------------

    def flip_indicator(self) -> tuple[tuple[int, ...], Tile]:
        """Roll and flip the indicator as the ruleset's ``wildcard.indicator`` says."""
        rule = self.ruleset.wildcard.indicator if self.ruleset.wildcard else IndicatorRule()
        dice = self.roll(rule.dice)
        s = sum(dice)
        players = self.ruleset.players
        seat = (self._owner + 1) % players if rule.wall == "after_break_wall" else self._owner
        size = self.sizes[seat]
        s = max(1, min(s, size))
        from_right = s - 1 if rule.count_from == "owner_right" else size - s
        stack = self._ring_stack(seat, from_right)
        layer = 0 if rule.layer == "top" or self.height == 1 else 1
        slot = stack * self.height + layer
        t = self.slots[slot]
        if t is None:  # already drawn in the deal: take the next stack's tile
            for k in range(1, self.stacks):
                slot = ((stack + k) % self.stacks) * self.height + layer
                if self.slots[slot] is not None:
                    stack = (stack + k) % self.stacks
                    t = self.slots[slot]
                    break
        assert t is not None
        self.slots[slot] = None
        self._taken += 1
        self.indicator = t
        if rule.ends_live_wall:
            self.indicator_stack = stack
        return dice, t
