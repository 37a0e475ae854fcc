"""Typed ruleset objects: what a validated YAML ruleset becomes.

Everything here is plain frozen data; :mod:`mjframework.ruleset` builds it
from YAML and the evaluator, settlement and game engine only read it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .tiles import Tile, TileSet, is_honor, rank_of, suit_of

# Win contexts and flags (conformance FORMAT.md uses the same words).
WIN_BY = ("self_draw", "discard", "robbed_kong")
FLAGS = ("after_kong", "open_kong", "last_tile", "first_turn", "no_claims_yet", "after_kong_discard")
MELD_KINDS = ("chow", "pung", "kong", "added-kong", "concealed-kong")


@dataclass(frozen=True)
class Count:
    """An exact number or bounds (``{min: 1}``)."""

    min: int | None = None
    max: int | None = None

    def ok(self, value: int) -> bool:
        return (self.min is None or value >= self.min) and (self.max is None or value <= self.max)

    def __str__(self) -> str:
        if self.min == self.max:
            return str(self.min)
        if self.max is None:
            return f"≥{self.min}"
        if self.min is None:
            return f"≤{self.max}"
        return f"{self.min}–{self.max}"


@dataclass(frozen=True)
class TileFilter:
    """Tiles matching every given criterion."""

    ranks: frozenset[int] | None = None
    suits: frozenset[int] | None = None  # 0 m, 1 p, 2 s
    honors: bool | None = None
    tiles: frozenset[Tile] | None = None

    def match(self, t: Tile) -> bool:
        honor = is_honor(t)
        if self.honors is not None and honor != self.honors:
            return False
        if self.ranks is not None and (honor or rank_of(t) not in self.ranks):
            return False
        if self.suits is not None and (honor or suit_of(t) not in self.suits):
            return False
        return self.tiles is None or t in self.tiles


@dataclass(frozen=True)
class Shape:
    """How tiles are read. ``kind`` is standard, pairs, knitted, orphans or free."""

    kind: str
    melds: int = 0
    pair: int = 0
    pairs: int = 0
    min_gap: int = 3
    distinct_honors: bool = True
    orphans: tuple[Tile, ...] = ()
    name: str = ""

    def label(self) -> str:
        if self.name:
            return self.name
        if self.kind == "standard":
            return f"{self.melds} melds" + (" + pair" if self.pair else "")
        if self.kind == "pairs":
            return f"{self.pairs} pairs"
        return self.kind


@dataclass(frozen=True)
class Wait:
    """The 13 held tiles, ``free_wildcards`` wildcards set aside, are exactly ``rest``."""

    free_wildcards: int
    rest: Shape


@dataclass(frozen=True)
class When:
    win_by: frozenset[str] | None = None
    win_tile: str | None = None  # "wildcard" | "natural"
    seat: str | None = None  # "dealer" | "non_dealer"
    discarder: str | None = None
    flags: frozenset[str] = frozenset()
    not_flags: frozenset[str] = frozenset()


@dataclass(frozen=True, eq=False)  # identity: patterns are compared and hashed often
class Pattern:
    name: str
    points: int
    index: int  # declaration order: earlier wins ties
    tier: str | None = None
    phase: str = "win"
    shapes: tuple[Shape, ...] = ()  # empty: a bonus pattern (needs a win by another)
    waits: tuple[Wait, ...] = ()
    counts: tuple[tuple[str, Count], ...] = ()
    all_tiles: TileFilter | None = None
    no_tiles: TileFilter | None = None
    pair: TileFilter | None = None
    when: When = field(default_factory=When)
    times_per: str | None = None
    times_every: int = 1
    excludes: frozenset[str] = frozenset()
    description: str = ""

    @property
    def makes_win(self) -> bool:
        """A shaped or wait pattern establishes a win; a bonus one only adds to one."""
        return bool(self.shapes or self.waits)


@dataclass(frozen=True)
class StandIn:
    tile: Tile
    when: str = "always"  # always | wildcard_suited | wildcard_honor


@dataclass(frozen=True)
class WildcardRule:
    successors: dict[Tile, Tile]
    stand_ins: tuple[StandIn, ...] = ()
    indicator: dict[str, Any] = field(default_factory=dict)

    def wildcard_for(self, indicator: Tile) -> Tile:
        return self.successors[indicator]


@dataclass(frozen=True)
class KongPayment:
    payer: str  # discarder | each_other
    amount: int


@dataclass(frozen=True)
class Scoring:
    combine: str = "highest"
    tiers: tuple[str, ...] = ()
    payout: dict[str, str] = field(default_factory=dict)
    dealer_bonus: int = 0
    kongs: dict[str, KongPayment] = field(default_factory=dict)
    kongs_void_on_draw: bool = True
    # Which of several equal-paying results is scored (see docs/pattern-language.md).
    ties: str = "first_declared"


@dataclass(frozen=True)
class LeaveRule:
    """What happens when a player leaves mid-hand (``leave:`` in the YAML)."""

    penalty: int = 0  # what the leaver pays
    paid_to: str = "none"  # none (to nobody: the hand's sum is -penalty) | each_other
    hand: str = "abandon"  # abandon | bot (a bot plays the leaver's seat to the hand's end)


@dataclass(frozen=True)
class Ruleset:
    """A loaded, validated ruleset."""

    id: str
    name: str
    description: str
    source: str
    players: int
    tileset: TileSet
    wildcard: WildcardRule | None
    scoring: Scoring
    patterns: tuple[Pattern, ...]
    shapes: dict[str, Shape]
    claims: dict[str, Any]
    win: dict[str, Any]
    dealer: dict[str, Any]
    wall: dict[str, Any]
    break_: dict[str, Any]
    deal: dict[str, Any]
    plugins: dict[str, dict[str, Any]]
    data: dict[str, Any]  # the merged YAML, for tools that show it
    leave: LeaveRule = field(default_factory=lambda: LeaveRule())

    def pattern(self, name: str) -> Pattern:
        for p in self.patterns:
            if p.name == name:
                return p
        raise KeyError(name)

    def patterns_for(self, phase: str) -> tuple[Pattern, ...]:
        return tuple(p for p in self.patterns if p.phase == phase)

    def summary(self) -> str:
        wild = "wildcard" if self.wildcard else "no wildcard"
        plugins = ", ".join(self.plugins) or "no plugins"
        return (
            f"{self.id}: {self.name} — {self.tileset.size} tiles, {wild}, "
            f"{len(self.patterns)} patterns ({self.scoring.combine}), {plugins}"
        )
