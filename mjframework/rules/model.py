"""Typed ruleset objects: what a validated YAML ruleset becomes.

Everything here is plain frozen data; :mod:`mjframework.rules.loader` builds it
from YAML and the evaluator, settlement and game engine only read it.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from functools import cached_property
from itertools import pairwise
from typing import Any, Literal, Self

from ..core import kinds as _kinds
from ..core.hand import FLAGS as FLAGS
from ..core.hand import WIN_BY as WIN_BY
from ..core.tiles import Tile, TileSet, is_honor, parse_tiles, rank_of, suit_of
from .options import Option, Preset

# Meld kinds as the YAML writes them.
MELD_KINDS = tuple(_kinds.MeldKind)


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
    any_of: tuple[TileFilter, ...] | None = None  # and at least one of these matches
    wind: str | None = None  # "seat" | "prevalent": the winner's seat wind / the prevalent wind

    def match(self, t: Tile, winds: dict[str, Tile] | None = None) -> bool:
        """``winds``: the win's ``seat`` and ``prevalent`` wind tiles (for ``wind``)."""
        if self.any_of is not None and not any(f.match(t, winds) for f in self.any_of):
            return False
        if self.wind is not None and (winds is None or winds.get(self.wind) != t):
            return False
        honor = is_honor(t)
        if self.honors is not None and honor != self.honors:
            return False
        if self.ranks is not None and (honor or rank_of(t) not in self.ranks):
            return False
        if self.suits is not None and (honor or suit_of(t) not in self.suits):
            return False
        return self.tiles is None or t in self.tiles


# Group kinds a `groups:` measure names → the reading's group kinds.
GROUP_KINDS = {name: tuple(k.value for k in ks) for name, ks in _kinds.GROUP_KIND_NAMES.items()}  # str: hot
# Where the winning tile sits in a reading (`win_wait`).
WIN_WAITS = ("single", "pair_pair", "closed", "edge", "open")


@dataclass(frozen=True)
class GroupFilter:
    """Groups of a reading to count: of these kinds, holding a matching tile, exposed or not."""

    kinds: frozenset[str] | None = None  # reading group kinds (seq, triplet, kong, pair, single)
    holding: TileFilter | None = None
    exposed: bool | None = None  # True: made with a claimed tile; False: formed in hand or concealed kong
    laid_down: bool | None = None  # True: a declared meld (concealed kongs included); False: formed in hand

    def match(self, kind: str, tiles: tuple[Tile, ...], meld: str | None,
              winds: dict[str, Tile] | None = None, won: bool = False) -> bool:
        """``won``: a triplet completed by a discarded winning tile, counted as exposed where the
        ruleset says so (``scoring.won_triplet: exposed``)."""
        if self.kinds is not None and kind not in self.kinds:
            return False
        if self.exposed is not None and (meld in CLAIMED_MELDS or won) != self.exposed:
            return False
        if self.laid_down is not None and (meld is not None) != self.laid_down:
            return False
        return self.holding is None or any(self.holding.match(t, winds) for t in tiles)


CLAIMED_MELDS = frozenset(m.value for m in _kinds.CLAIMED_MELDS)  # str: the scorer's hot path


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
    tracks: bool = False  # knitted: each suit's tiles on one track (147, 258, 369), a different one per suit
    name: str = ""

    def label(self) -> str:
        if self.name:
            return self.name
        if self.kind == "standard":
            return f"{self.melds} melds" + (" + pair" if self.pair else "")
        if self.kind == "pairs":
            return f"{self.pairs} pairs"
        if self.kind == "knitted_straight":
            return "knitted straight" + (f" + {self.melds} meld(s)" if self.melds else "") + (
                " + pair" if self.pair else "")
        return self.kind


@dataclass(frozen=True)
class Wait:
    """The 13 held tiles, ``free_wildcards`` wildcards set aside, are exactly ``rest``."""

    free_wildcards: int
    rest: Shape


MISSING: Any = object()  # a seat-state key that is not set (what `Test.ok` gets for it)


@dataclass(frozen=True)
class Test:
    """A test of one value, the same at every condition site (a measure of ``require``, a
    seat-state key of ``when``, a win's points): ``min`` / ``max`` (at least / at most),
    ``in`` (one of these), ``not`` (the inner test fails); all that are given must hold.
    A scalar in the YAML is ``{in: [scalar]}`` (equality)."""

    min: int | None = None
    max: int | None = None
    in_: tuple[Any, ...] | None = None  # (a tuple: a set would take True and 1 for one value)
    not_: Test | None = None

    def ok(self, value: Any) -> bool:
        """Does ``value`` pass? A missing value (:data:`MISSING`) passes only a ``not``."""
        if self.not_ is not None and self.not_.ok(value):
            return False
        if value is MISSING:
            return self.not_ is not None and self.min is None and self.max is None and self.in_ is None
        if self.min is not None or self.max is not None:
            if isinstance(value, bool) or not isinstance(value, int):
                return False
            if (self.min is not None and value < self.min) or (self.max is not None and value > self.max):
                return False
        # (True == 1 in Python: a boolean is one only of booleans)
        return self.in_ is None or any(
            value == x and isinstance(value, bool) == isinstance(x, bool) for x in self.in_)

    def __str__(self) -> str:
        parts = []
        if self.min is not None or self.max is not None:
            parts.append(str(Count(self.min, self.max)))
        if self.in_ is not None:
            vals = sorted(map(str, self.in_))
            parts.append(vals[0] if len(vals) == 1 else "one of " + "/".join(vals))
        if self.not_ is not None:
            parts.append(f"not {self.not_}")
        return " and ".join(parts) or "any"


@dataclass(frozen=True)
class When:
    win_by: frozenset[str] | None = None
    win_tile: str | None = None  # "wildcard" | "natural"
    seat: str | None = None  # "dealer" | "non_dealer"
    discarder: str | None = None
    flags: frozenset[str] = frozenset()
    not_flags: frozenset[str] = frozenset()
    seat_state: tuple[tuple[str, Any], ...] = ()  # the winner's per-seat state: key equals value
    state_tests: tuple[tuple[str, Test], ...] = ()  # … key passes a test (at least, one of, not)
    context: tuple[tuple[str, Test], ...] = ()  # plugin context (`WinContext.extra`) keys tested
    any_: tuple[When, ...] = ()  # at least one of these holds (`any:`)
    all_: tuple[When, ...] = ()  # every one of these holds (`all:`)
    not_: When | None = None  # this one does not hold (`not:`)

    def state_keys(self) -> set[str]:
        """Every seat-state key this context condition reads (nested ones too)."""
        out = {k for k, _ in self.seat_state} | {k for k, _ in self.state_tests}
        for w in (*self.any_, *self.all_, *((self.not_,) if self.not_ is not None else ())):
            out |= w.state_keys()
        return out

    def context_keys(self) -> set[str]:
        """Every plugin-context key this context condition reads (nested ones too)."""
        out = {k for k, _ in self.context}
        for w in (*self.any_, *self.all_, *((self.not_,) if self.not_ is not None else ())):
            out |= w.context_keys()
        return out


@dataclass(frozen=True)
class Condition:
    """``any`` / ``all`` / ``not`` over requirements (``require:``): a tree whose leaves are
    requirement-only patterns (judged like a pattern's own ``require``)."""

    op: str  # any | all | not
    items: tuple[Any, ...]  # Pattern (a leaf: its `require`) or Condition


@dataclass(frozen=True)
class WinRequirement:
    """One entry of ``win.require``: every win must meet it (checked once per reading, after
    the patterns are combined). Where ``if_`` holds (always, without it), the reading's
    ``require``, the win's ``when`` and the combined ``points`` must hold."""

    if_: Any = None  # Pattern (its require and when) or None
    check: Any = None  # Pattern (its require and when) or None
    points: Test | None = None
    why: str = ""


@dataclass(frozen=True)
class SetCombo:
    """A combination of ``count`` suited sets of one kind (``sets:``): two identical sequences,
    a straight, three pungs of one rank …

    The sets, sorted by (lowest rank, suit), must have suits that are all the
    same / pairwise different / follow ``suit_letters`` (equal letters = same
    suit, different letters = different suits); their lowest ranks must be
    exactly ``starts``, or rise by one constant step out of ``steps``.
    """

    kind: str  # "seq" | "triplet" (triplets include kongs)
    count: int
    suits: str = "any"  # same | different | any | letters
    suit_letters: tuple[str, ...] = ()
    steps: frozenset[int] | None = None
    starts: tuple[int, ...] | None = None

    def match(self, sets: list[tuple[int, int]]) -> bool:
        """``sets``: (suit, lowest rank 1-9) of each set, sorted."""
        suits = [s for s, _ in sets]
        if self.suits == "same" and len(set(suits)) != 1:
            return False
        if self.suits == "different" and len(set(suits)) != len(suits):
            return False
        if self.suits == "letters":
            seen: dict[str, int] = {}
            for letter, s in zip(self.suit_letters, suits, strict=True):
                if seen.setdefault(letter, s) != s:
                    return False
            if len(set(seen.values())) != len(seen):
                return False
        ranks = [r for _, r in sets]
        if self.starts is not None and tuple(ranks) != self.starts:
            return False
        if self.steps is not None:
            diffs = {b - a for a, b in pairwise(ranks)}
            if len(diffs) != 1 or next(iter(diffs)) not in self.steps:
                return False
        return True


@dataclass(frozen=True)
class Exclusion:
    """What a pattern that applies takes away from another (so it is not counted twice): all
    of it, ``times`` of its count, or (``shared``) the groups both count."""

    name: str
    times: int | None = None
    shared: bool = False


@dataclass(frozen=True)
class PatternExample:
    """A hand the designer gives as an example of a pattern (``example:``), shown by the rule
    card and checked to score the pattern (tests, ``mj doc``)."""

    concealed: tuple[Tile, ...]
    melds: tuple[Any, ...]  # hand.Meld
    win_tile: Tile
    seat: int = 0
    win_by: str = "self_draw"
    discarder: int | None = None
    flags: frozenset[str] = frozenset()
    flowers: int = 0
    flower_tiles: tuple[Tile, ...] = ()  # the flowers by name, where the example names them
    seat_wind: Tile | None = None
    prevalent_wind: Tile | None = None


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
    every_group: TileFilter | None = None  # every group holds a matching tile
    any_group: TileFilter | None = None  # some group holds a matching tile
    groups: GroupFilter | None = None  # counted by `groups_count` (and `times: {per: groups}`)
    groups_count: Count | None = None
    win_wait: frozenset[str] | None = None  # where the winning tile may sit (WIN_WAITS)
    when: When = field(default_factory=When)
    times_per: str | None = None
    times_every: int = 1
    excludes: frozenset[str] = frozenset()  # names wholly excluded
    description: str = ""
    en: str = ""  # the pattern's English name (optional)
    sets: SetCombo | None = None  # a combination of sets (counted under scoring.set_combinations)
    partial_excludes: tuple[Exclusion, ...] = ()  # `excludes` entries with `times` or `shared`
    held_ranks: tuple[int, ...] | None = None  # the 13 held tiles: one suit, these counts per rank
    fallback: bool = False  # counts only when no other pattern counting toward the minimum does
    after_cap: bool = False  # counted after `scoring.cap` (an extra the cap does not limit)
    counts_to_minimum: bool = True  # False: added after the minimum is judged (bonus tiles)
    example: PatternExample | None = None  # the designer's example hand (`example:`)
    # `require` beyond bounds on measures: `any` / `all` / `not`, and measures tested with `in`
    # / `not` (all of them must hold, besides the fields above)
    condition: Condition | None = None
    # Set from the fields: does `require` read groups (every/any group, groups, win_wait)? Lets
    # the evaluator skip those checks for the common pattern that has none.
    reads_groups: bool = field(init=False, default=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "reads_groups", any(x is not None for x in (
            self.every_group, self.any_group, self.groups, self.win_wait, self.sets, self.held_ranks,
            self.condition)))

    @property
    def has_requirements(self) -> bool:
        """Does ``require`` say anything (so fitting the shape is not enough)?"""
        return bool(self.counts) or self.fallback or any(x is not None for x in (
            self.all_tiles, self.no_tiles, self.pair, self.every_group, self.any_group, self.groups,
            self.win_wait, self.sets, self.held_ranks, self.condition))

    @property
    def makes_win(self) -> bool:
        """A shaped or wait pattern establishes a win; a bonus one only adds to one."""
        return bool(self.shapes or self.waits)


# --------------------------------------------------------------------------
# Table sections (`claims`, `win`, `dealer`, `wall`, `break`, `deal`, `wildcard.indicator`):
# each a frozen dataclass whose field defaults are the section's defaults, the only place
# they are written (tests/test_section_defaults.py checks them against the schema's
# `default`s). A field's YAML key is its name without a trailing `_` (`from_` ← `from`).


def yaml_key(name: str) -> str:
    """The YAML key of a section field (``from_`` → ``from``)."""
    return name.rstrip("_")


class Section:
    """Base of the table sections: built from their YAML mapping (:meth:`from_yaml`).

    Reading a section as a mapping (``rs.win.get("discard")``, ``rs.deal["rounds"]``) still
    works for code written when sections were dicts, with a :class:`DeprecationWarning`:
    read the attributes (``rs.win.discard``), which carry the defaults.
    """

    @classmethod
    def from_yaml(cls, d: Mapping[str, Any] | None) -> Self:
        """The section from its (schema-valid) YAML mapping; absent keys take the defaults."""
        d = d or {}
        kw: dict[str, Any] = {}
        for f in fields(cls):  # type: ignore[arg-type]
            key = yaml_key(f.name)
            if key in d and d[key] is not None:
                kw[f.name] = cls._convert(f.name, d[key])
        return cls(**kw)

    @classmethod
    def _convert(cls, name: str, value: Any) -> Any:
        """A YAML value as the field's type (lists become tuples; subclasses add the rest)."""
        return tuple(value) if isinstance(value, list) else value

    # -- the deprecated mapping view -------------------------------------------

    def _mapping(self) -> dict[str, Any]:
        warnings.warn(f"reading the ruleset's {type(self).__name__} section as a mapping is deprecated: "
                      "read its attributes", DeprecationWarning, stacklevel=3)
        return {yaml_key(f.name): getattr(self, f.name) for f in fields(self)}  # type: ignore[arg-type]

    def get(self, key: str, default: Any = None) -> Any:
        return self._mapping().get(key, default)

    def __getitem__(self, key: str) -> Any:
        return self._mapping()[key]

    def keys(self) -> Any:
        return self._mapping().keys()

    def items(self) -> Any:
        return self._mapping().items()


@dataclass(frozen=True)
class Claims(Section):
    """What may be claimed or declared (``claims:``), and which claim of a discard goes first."""

    chow: Literal[False, "left"] = False  # `left`: only the discarder's right-hand neighbour may 吃
    pung: bool = True
    kong: bool = True  # 点杠: a claimed kong on a discard
    added_kong: bool = True  # 明杠
    concealed_kong: bool = True  # 暗杠
    priority: tuple[str, ...] = ("win", "kong", "pung", "chow")
    never: str = ""  # kinds never claimed (tiles): no 吃 碰 杠 and no win on their discard

    @classmethod
    def _convert(cls, name: str, value: Any) -> Any:
        if name == "priority" and not value:  # `priority: []` keeps the usual order
            return cls.priority
        return super()._convert(name, value)

    @cached_property
    def never_kinds(self) -> frozenset[Tile]:
        """The kinds of ``never`` (the loader has checked the tiles)."""
        return frozenset(parse_tiles(self.never)) if self.never.strip() else frozenset()

    def allows_kong(self, meld: str) -> bool:
        """Is this kong allowed: ``kong`` (claimed), ``added-kong`` or ``concealed-kong``?"""
        return bool(getattr(self, meld.replace("-", "_")))


@dataclass(frozen=True)
class WinRule(Section):
    """How a hand may be won and what a win does to it (``win:``)."""

    self_draw: bool = False
    discard: bool = False
    robbed_kong: Literal[False, "added"] = False  # only an added kong (明杠) can be robbed
    discard_winners: str = "first_in_turn"  # first_in_turn (截胡) | all (通炮)
    after_win: str = "end"  # end | leave | stay
    after_winners: int | None = None
    kong_flags: tuple[str, ...] = ("after_kong", "after_kong_discard")
    require: tuple[Any, ...] = ()  # the entries as written; typed in `Ruleset.win_require`

    def allows(self, win_by: str) -> bool:
        """May a hand be won this way (``self_draw``, ``discard``, ``robbed_kong``)?"""
        return win_by in WIN_BY and bool(getattr(self, win_by))

    @property
    def win_by(self) -> frozenset[str]:
        """The ways a hand may be won."""
        return frozenset(w for w in WIN_BY if self.allows(w))


@dataclass(frozen=True)
class DealerRule(Section):
    """Who deals first and next (``dealer:``)."""

    first: str = "random"  # random | seat0
    after_win: str = "winner"  # winner | next (the deal passes every hand) | dealer_or_next
    after_multiple_winners: str = "first_winner"  # first_winner | discarder
    after_draw: str = "dealer"  # dealer | last_tile_drawer | next
    which_win: str = "first"  # first | last: the win of a hand that names the next dealer


@dataclass(frozen=True)
class HandRule(Section):
    """How many tiles a hand holds (``hand:``): ``size`` between turns, one more on a turn.

    A complete (winning) hand holds ``size + 1`` tiles, one more per kong: 13 → four sets and
    a pair (14), 16 → five sets and a pair (17). Sizes are 1 more than a multiple of 3.
    """

    size: int = 13

    @property
    def winning(self) -> int:
        """Tiles of a complete hand, a kong's fourth tile aside (``size + 1``)."""
        return self.size + 1

    @property
    def max_melds(self) -> int:
        """The most declared melds a hand can hold (every set but the pair)."""
        return self.size // 3


@dataclass(frozen=True)
class WallRule(Section):
    """How the wall is built (``wall:``)."""

    stacks_per_seat: int | tuple[int, ...] = 17  # a list: per seat counted from the dealer
    height: int = 2
    draw_direction: str = "clockwise"
    reserve: int = 0  # tiles never drawn: the hand is drawn when this many are left (留尾)


@dataclass(frozen=True)
class BreakWall(Section):
    """Which wall is broken: the die read (high, low, sum) → the seat counted from the dealer."""

    die: str
    seats: dict[int, int]

    @classmethod
    def _convert(cls, name: str, value: Any) -> Any:
        if name == "seats":
            return {int(k): int(v) for k, v in value.items()}
        return super()._convert(name, value)


@dataclass(frozen=True)
class BreakStack(Section):
    """Where in the broken wall: the die read, counted from the owner's left or right end."""

    die: str
    from_: str = "owner_left"


@dataclass(frozen=True)
class BreakRule(Section):
    """The dice and the break (``break:``)."""

    dice: int = 2
    wall: BreakWall = field(default_factory=lambda: BreakWall("high", {}))
    stack: BreakStack = field(default_factory=lambda: BreakStack("low"))

    @classmethod
    def _convert(cls, name: str, value: Any) -> Any:
        if name == "wall":
            return BreakWall.from_yaml(value)
        if name == "stack":
            return BreakStack.from_yaml(value)
        return super()._convert(name, value)


@dataclass(frozen=True)
class DealPick(Section):
    """A specific tile of the stacks ahead (跳杠): stack 1 is the next in draw order."""

    stack: int
    layer: str  # top | bottom


@dataclass(frozen=True)
class DealStep(Section):
    """A final pick of the deal: the seat (counted from the dealer) takes picks, then tiles."""

    seat: int
    tiles: int = 0
    take: tuple[DealPick, ...] = ()

    @classmethod
    def _convert(cls, name: str, value: Any) -> Any:
        if name == "take":
            return tuple(DealPick.from_yaml(p) for p in value)
        return super()._convert(name, value)


@dataclass(frozen=True)
class DealRule(Section):
    """The deal (``deal:``): rounds of blocks, dealer first, then the final picks."""

    rounds: int = 3
    block: int = 4
    then: tuple[DealStep, ...] = ()

    @classmethod
    def _convert(cls, name: str, value: Any) -> Any:
        if name == "then":
            return tuple(DealStep.from_yaml(s) for s in value)
        return super()._convert(name, value)


@dataclass(frozen=True)
class IndicatorRule(Section):
    """Where the wildcard indicator is flipped (``wildcard.indicator:``)."""

    dice: int = 2  # rolled; their sum counts the stacks
    wall: str = "after_break_wall"  # after_break_wall | break_wall
    count_from: str = "owner_right"  # owner_right | owner_left
    layer: str = "top"  # top | bottom
    ends_live_wall: bool = True  # never drawn: normal and kong draws both stop at it


@dataclass(frozen=True)
class StandIn:
    tile: Tile
    when: str = "always"  # always | wildcard_suited | wildcard_honor


@dataclass(frozen=True)
class WildcardRule:
    """Which tiles are wild (``wildcard:``).

    ``fixed`` tiles are wild in every hand (红中, 白板, or several kinds); with
    ``flips`` an indicator is also flipped from the wall and names one more
    kind: its successor (``names: successor``, by ``successors``) or its own
    kind (``names: itself``, 翻混). ``may_*`` say whether a wildcard may be
    discarded, claimed from a discard, or used in an exposed meld.
    """

    successors: dict[Tile, Tile]
    stand_ins: tuple[StandIn, ...] = ()
    indicator: IndicatorRule = field(default_factory=lambda: IndicatorRule())
    fixed: tuple[Tile, ...] = ()
    flips: bool = True
    names: str = "successor"  # successor | itself
    may_discard: bool = True
    may_claim: bool = False
    may_meld: bool = False

    def wildcard_for(self, indicator: Tile) -> Tile:
        return indicator if self.names == "itself" else self.successors[indicator]

    def kinds(self, flipped: Tile | None = None) -> frozenset[Tile]:
        """Every wild kind of a hand: the fixed ones and the flipped indicator's."""
        return frozenset(self.fixed) | ({flipped} if flipped is not None else frozenset())

    def possible(self, kinds: tuple[Tile, ...]) -> tuple[Tile, ...]:
        """The tiles that can be *the* wildcard of a hand (for tools that build example hands):
        the first fixed kind, or any indicator's choice."""
        if not self.flips:
            return self.fixed[:1]
        return tuple(sorted({self.wildcard_for(t) for t in kinds if t in self.successors}))


@dataclass(frozen=True)
class KongPayment:
    payer: str  # discarder | each_other
    amount: int


# What settlement can measure of a seat from its declared melds (`scoring.per_payer`).
SEAT_MEASURES = ("claimed_melds", "kongs", "exposed_kongs", "concealed_kongs", "melds")


@dataclass(frozen=True)
class PayerTest:
    """A condition on one payer (``per_payer[].if``): its meld measures and its seat state
    tested, whether it is the dealer / the discarder."""

    measures: tuple[tuple[str, Test], ...] = ()  # SEAT_MEASURES
    state: tuple[tuple[str, Test], ...] = ()
    dealer: bool | None = None
    discarder: bool | None = None


@dataclass(frozen=True)
class PayerRule:
    """One entry of ``scoring.per_payer``: each payer's amount × ``times`` and + ``plus``, once
    per ``per`` (a measure of the payer's own melds) or once, where ``if_`` holds of the payer."""

    times: int = 1
    plus: int = 0
    per: str | None = None
    if_: PayerTest | None = None


@dataclass(frozen=True)
class Liability:
    """One entry of ``scoring.liable`` (包): where ``when`` holds of the win, the seat ``pays``
    names — the discarder, or the feeder (the seat that gave the winner ``fed`` claimed melds
    or more) — pays every other player's share, each priced as if all of them paid."""

    pays: str  # discarder | feeder
    when: When = field(default_factory=When)
    fed: int | None = None


_SUPERSCRIPT_TIMES = {2: "²", 3: "³", 4: "⁴", 5: "⁵", 6: "⁶", 7: "⁷", 8: "⁸", 9: "⁹"}

# Who pays a win where `scoring.payout` doesn't say: every other player a self-draw, the
# discarder a discard or a robbed kong.
PAYOUT_DEFAULTS = {"self_draw": "each_other", "discard": "discarder", "robbed_kong": "discarder"}


@dataclass(frozen=True)
class Scoring:
    """How matched patterns become a payment (``scoring:``).

    ``points`` of the patterns combine (``combine``: the highest, the sum, or the product of
    factors, patterns marked ``after_cap`` multiplying or adding after the cap), are bounded by
    ``minimum`` (起胡: fewer is no win) and ``cap`` (封顶), then ``value``
    turns them into the amount each payer pays: as is (``points``), ``base ×
    2^points`` (``doubling``, 番) or a ``table`` lookup. Each payment is then
    multiplied (``multipliers``) and increased (``bonuses``) where the payer,
    winner or win qualifies (dealer, discarder, self_draw).
    """

    combine: str = "highest"
    tiers: tuple[str, ...] = ()
    payout: dict[str, str] = field(default_factory=dict)  # as written; `payer` adds the defaults
    dealer_bonus: int = 0
    kongs: dict[str, KongPayment] = field(default_factory=dict)
    kongs_void_on_draw: bool = True
    minimum: int | None = None
    cap: int | None = None
    value: str = "points"  # points | doubling | table
    value_base: int = 1
    value_table: tuple[int, ...] = ()
    multipliers: dict[str, int] = field(default_factory=dict)  # dealer | discarder | self_draw
    bonuses: dict[str, int] = field(default_factory=dict)  # dealer | discarder | self_draw
    set_combinations: str = "each"  # each | once (each set combined once more: docs/pattern-language.md)
    won_triplet: str = "concealed"  # concealed | exposed: a triplet completed by a discarded win tile
    exclusions: str = "all"  # all | ranked: an excluded pattern excludes nothing (higher points first)
    each_pays: int = 0  # every other player pays this on every win, besides the liable payer's amount

    # Which of several equal-paying results is scored (see docs/pattern-language.md).
    ties: str = "first_declared"
    negative_points: bool = False  # patterns may have negative points (said explicitly)
    per_payer: tuple[PayerRule, ...] = ()  # each payer's amount raised by its own melds and state
    payment_cap: int | None = None  # 封顶: one win payment at most this
    all_capped: int | None = None  # 金顶: when every payment of a win reached the cap, each pays this
    liable: tuple[Liability, ...] = ()  # 包: who pays instead of whom (the first that applies)

    @property
    def per_payment(self) -> bool:
        """Does a payment depend on more than the points and the seats (per-payer amounts,
        caps per payment, liability)? (Settlement then takes its slower path.)"""
        return bool(self.per_payer or self.liable) or self.payment_cap is not None

    def payer(self, win_by: str) -> str:
        """Who pays a win by ``win_by`` (``payout``, else :data:`PAYOUT_DEFAULTS`)."""
        return self.payout.get(win_by, PAYOUT_DEFAULTS[win_by])

    def capped(self, points: int) -> int:
        return points if self.cap is None else min(points, self.cap)

    @property
    def multiplies(self) -> bool:
        """``combine: product``: a pattern's points are a factor (×2, ×3 …)."""
        return self.combine == "product"

    def label(self, points: int, times: int = 1) -> str:
        """A pattern's points as players read them: ``×3`` under ``combine: product`` (``×3²``
        counted twice), else ``3`` (``3 ×2`` counted twice)."""
        if self.multiplies:
            return f"×{points}" + (_SUPERSCRIPT_TIMES.get(times, f"^{times}") if times > 1 else "")
        return str(points) + (f" ×{times}" if times > 1 else "")

    def amount(self, points: int) -> int:
        """What each payer pays for ``points`` (already capped), before multipliers and bonuses."""
        if self.value == "doubling":
            doubled: int = self.value_base * 2 ** max(points, 0)  # (int ** int is Any to mypy)
            return doubled
        if self.value == "table":
            paid: int = self.value_table[max(0, min(points, len(self.value_table) - 1))]
            return paid
        return points * self.value_base


@dataclass(frozen=True)
class Exchange:
    """Tiles passed between players before play."""

    tiles: int
    same_suit: bool = True  # all from one suit (honors count as one suit)
    direction: str | None = None  # right | across | left; None: by dice
    dice: int = 0  # dice rolled when the direction is by dice
    by_dice: dict[int, str] = field(default_factory=dict)  # dice sum → direction


@dataclass(frozen=True)
class VoidSuit(Section):
    """Each player declares a suit void and must get rid of it."""

    discard_first: bool = True  # while held, only tiles of the void suit may be discarded
    claim: bool = False  # may claim (pung / kong / chow) a tile of the void suit
    win_holding: bool = False  # may win holding a tile of it


@dataclass(frozen=True)
class DrawnPayment:
    """A declared settlement of a drawn end: every ``payer`` pays every ``payee``."""

    amount: int | str  # points, or "best_wait": the payee's best winning hand
    payer: tuple[str, ...]  # predicates all true of the payer
    payee: tuple[str, ...]


@dataclass(frozen=True)
class Flow:
    """How a hand runs around play: phases before it, what a win does, kongs paid when."""

    # The defaults are the sections' (`win:`, `dealer:`), written there only.
    after_win: str = WinRule.after_win  # end | leave | stay
    after_winners: int | None = WinRule.after_winners  # the hand ends when this many players have won
    which_win: str = DealerRule.which_win  # which win decides the next dealer: first | last
    kong_flags: frozenset[str] = frozenset(WinRule.kong_flags)
    exchange: Exchange | None = None
    void_suit: VoidSuit | None = None
    ready: bool = False  # players may declare ready (报听) with a discard; the hand is then locked
    kongs_paid: str = "at_win"  # at_win | at_kong
    kong_refund: str | None = None  # None | not_ready
    on_draw: tuple[DrawnPayment, ...] = ()
    prevalent_every: int | None = None  # winds: the prevalent wind advances every N hands of a game
    prevalent_counts: str = "hands"  # winds: what prevalent_every counts: hands | deal_passes

    @property
    def continues(self) -> bool:
        return self.after_win != "end"


@dataclass(frozen=True)
class LeaveRule(Section):
    """What happens when a player leaves mid-hand (``leave:`` in the YAML)."""

    penalty: int = 0  # what the leaver pays
    paid_to: str = "none"  # none (to nobody: the hand's sum is -penalty) | each_other
    hand: str = "abandon"  # abandon | bot (a bot plays the leaver's seat to the hand's end)


@dataclass(frozen=True)
class LaidKong:
    """Kinds laid aside as a kong as soon as a player holds one (``laid_kongs``: 红中杠, 皮子杠).

    Never kept, discarded or claimed: the tile goes aside with a replacement draw from the
    kong end, and the seat's count (seat state ``name``) goes up; with ``double`` each one
    doubles every win payment the seat makes or receives. With ``choice`` the holder may
    instead keep it (and discard or use it): on its turn it is offered ``lay_kong`` (赖子杠).
    """

    name: str
    tiles: frozenset[Tile]
    double: bool = False
    choice: bool = False  # laid aside only when the holder chooses to, on its turn (not on sight)


# What can happen in a hand, for the counters that last across hands (`counters:`). A table
# counter moves when its event holds; a seat counter when it holds for that seat.
COUNTER_EVENTS = ("dealer_stays", "deal_passes", "dealer_wins", "draw", "win", "wins", "loses", "always")


@dataclass(frozen=True)
class CounterRule:
    """A count that lasts across the hands of a game (``counters:``): 连庄, a carried level.

    After each hand (abandoned hands aside) it goes back to 0 when one of ``reset`` holds,
    else goes up by 1 when one of ``add`` holds, never above ``max``. ``scope: seat`` keeps
    one count per seat. The winner's count is in its seat state (``when: {seat_state:
    {NAME: N}}``); with ``pays_each`` every win payment the dealer makes or receives grows
    by ``pays_each`` × the count (docs/pattern-language.md, "Counters across hands").
    """

    name: str
    scope: str = "table"  # table | seat
    add: frozenset[str] = frozenset()
    reset: frozenset[str] = frozenset()
    max: int | None = None
    pays_each: int = 0
    description: str = ""


@dataclass(frozen=True)
class BonusMore:
    """More bonus tiles when the win qualifies (``bonus_tiles.more``)."""

    add: int
    no_wildcards: bool | None = None  # True: the winning hand holds no wildcard; False: it holds one
    patterns: frozenset[str] = frozenset()  # the win scores one of these patterns (empty: any win)


@dataclass(frozen=True)
class BonusDealer:
    """The seat the bonus tiles hit deals next (``bonus_tiles.deals_next``).

    Uses the first set turned up at the moment ``at`` (``opening`` or ``win``) when at
    least ``winners`` players won at that moment — for the opening: the opening winners
    plus every winner of the hand scoring one of ``also`` (a dealt hand that wins counts as
    a win at the opening) — the seat hit most deals next, ties going to the tile turned up first. It
    comes before every other next-dealer rule, plugins' included.
    """

    at: str = "opening"  # opening | win
    winners: int = 1
    also: frozenset[str] = frozenset()


@dataclass(frozen=True)
class BonusTiles:
    """Bonus tiles turned up from the wall at a settlement (birds, horses): ``bonus_tiles:``.

    Each tile hits a seat (``hit``): by its rank counted from the dealer or the
    winner (``(anchor + rank − 1) mod players``; ``honors`` gives an honor's
    offset instead of its rank), or, with ``tiles``, only the listed tiles hit,
    and they hit the anchor. Then every payment of the settlement changes by
    the hits of its payer and/or payee (``counts``): ``double`` ×2 per hit,
    ``multiply`` ×(1 + hits), ``add`` + ``amount`` per hit. ``kongs``: kong
    payments settled with the win change too. The game turns the tiles up
    (docs/pattern-language.md, "Bonus tiles"); ``key`` names them in cases and in
    the log (an event of that type), ``says`` leads the event's text per moment.
    """

    count: int
    name: str = "bonus tiles"
    more: tuple[BonusMore, ...] = ()
    source: str = "live"  # live (the next tiles to draw) | end (the kong end)
    at: frozenset[str] = frozenset({"win"})  # settlements that turn them up: win, opening
    anchor: str = "dealer"  # dealer | winner
    honors: dict[Tile, int] = field(default_factory=dict)  # honor → offset from the anchor
    tiles: frozenset[Tile] | None = None  # only these tiles hit (the anchor)
    effect: str = "double"  # double | multiply | add
    amount: int = 1  # with `add`: per hit
    counts: str = "both"  # both | payee | payer: whose hits change a payment
    kongs: bool = True
    weight: str = "one"  # one | rank: the hits a tile counts (rank: its rank; an honor honor_weight)
    honor_weight: int = 10  # with `weight: rank`: what an honor counts
    key: str = "bonus_tiles"  # their word in a case's context, `mj score -c` and the log's event type
    says: dict[str, str] = field(default_factory=dict)  # moment (win, opening) → the event text's lead
    # their own words' English (``en``: name, says): word as written → its English, for --lang en
    en: dict[str, str] = field(default_factory=dict)
    deals_next: BonusDealer | None = None  # the seat they hit deals next

    @property
    def most(self) -> int:
        """The most tiles one settlement can turn up."""
        return self.count + sum(m.add for m in self.more if m.add > 0)

    def hits_of(self, tile: Tile) -> int:
        """How many hits a tile that hits counts: 1, or with ``weight: rank`` its rank (an
        honor: ``honor_weight``)."""
        if self.weight != "rank":
            return 1
        return self.honor_weight if is_honor(tile) else rank_of(tile)

    def seat_hit(self, tile: Tile, *, dealer: int, winner: int, players: int) -> int | None:
        """The seat a bonus tile hits (None: no seat)."""
        anchor = dealer if self.anchor == "dealer" else winner
        if self.tiles is not None:
            return anchor if tile in self.tiles else None
        if is_honor(tile) and self.honors:
            offset = self.honors.get(tile)
            return None if offset is None else (anchor + offset) % players
        return (anchor + rank_of(tile) - 1) % players


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
    claims: Claims
    win: WinRule
    dealer: DealerRule
    wall: WallRule
    break_: BreakRule
    deal: DealRule
    plugins: dict[str, dict[str, Any]]
    data: dict[str, Any]  # the merged YAML, for tools that show it
    flags: tuple[str, ...] = ()  # flags beyond the engine's (FLAGS) that plugins set (`flags:`)
    flow: Flow = field(default_factory=Flow)
    leave: LeaveRule = field(default_factory=lambda: LeaveRule())
    options: dict[str, Any] = field(default_factory=dict)  # every declared option's value, as played
    option_decls: dict[str, Option] = field(default_factory=dict)  # the declared options, typed
    preset_decls: dict[str, Preset] = field(default_factory=dict)  # the declared presets, typed
    bonus_tiles: BonusTiles | None = None  # tiles turned up at a settlement (birds, horses)
    counters: tuple[CounterRule, ...] = ()  # counts that last across the hands of a game
    laid_kongs: tuple[LaidKong, ...] = ()  # kinds laid aside as kongs on sight
    win_require: tuple[WinRequirement, ...] = ()  # `win.require`: what every win must meet
    hand: HandRule = field(default_factory=lambda: HandRule())  # `hand.size`: tiles held (13)

    def options_declared(self) -> dict[str, Any]:
        """The ``options`` declarations (name → mapping), as written (``option_decls``: typed)."""
        d = self.data.get("options") if isinstance(self.data, dict) else None
        return dict(d) if isinstance(d, dict) else {}

    def presets(self) -> dict[str, Any]:
        """The ``presets`` declarations (name → {description, set}), as written (``preset_decls``: typed)."""
        d = self.data.get("presets") if isinstance(self.data, dict) else None
        return dict(d) if isinstance(d, dict) else {}

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
