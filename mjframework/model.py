"""Typed ruleset objects: what a validated YAML ruleset becomes.

Everything here is plain frozen data; :mod:`mjframework.ruleset` builds it
from YAML and the evaluator, settlement and game engine only read it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from .hand import FLAGS as FLAGS
from .hand import WIN_BY as WIN_BY
from .tiles import Tile, TileSet, is_honor, rank_of, suit_of

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
GROUP_KINDS = {"sequence": ("seq",), "triplet": ("triplet", "kong"), "kong": ("kong",),
               "pair": ("pair",), "single": ("single",)}
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


CLAIMED_MELDS = frozenset(("chow", "pung", "kong", "added-kong"))


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


@dataclass(frozen=True)
class When:
    win_by: frozenset[str] | None = None
    win_tile: str | None = None  # "wildcard" | "natural"
    seat: str | None = None  # "dealer" | "non_dealer"
    discarder: str | None = None
    flags: frozenset[str] = frozenset()
    not_flags: frozenset[str] = frozenset()
    seat_state: tuple[tuple[str, Any], ...] = ()  # the winner's per-seat state: key equals value


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
    counts_to_minimum: bool = True  # False: added after the minimum is judged (bonus tiles)
    example: PatternExample | None = None  # the designer's example hand (`example:`)
    # Set from the fields: does `require` read groups (every/any group, groups, win_wait)? Lets
    # the evaluator skip those checks for the common pattern that has none.
    reads_groups: bool = field(init=False, default=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "reads_groups", any(x is not None for x in (
            self.every_group, self.any_group, self.groups, self.win_wait, self.sets, self.held_ranks)))

    @property
    def has_requirements(self) -> bool:
        """Does ``require`` say anything (so fitting the shape is not enough)?"""
        return bool(self.counts) or self.fallback or any(x is not None for x in (
            self.all_tiles, self.no_tiles, self.pair, self.every_group, self.any_group, self.groups,
            self.win_wait, self.sets, self.held_ranks))

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
    """Which tiles are wild (``wildcard:``).

    ``fixed`` tiles are wild in every hand (红中, 白板, or several kinds); with
    ``flips`` an indicator is also flipped from the wall and names one more
    kind: its successor (``names: successor``, by ``successors``) or its own
    kind (``names: itself``, 翻混). ``may_*`` say whether a wildcard may be
    discarded, claimed from a discard, or used in an exposed meld.
    """

    successors: dict[Tile, Tile]
    stand_ins: tuple[StandIn, ...] = ()
    indicator: dict[str, Any] = field(default_factory=dict)
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


@dataclass(frozen=True)
class Scoring:
    """How matched patterns become a payment (``scoring:``).

    ``points`` of the patterns combine (``combine``), are bounded by
    ``minimum`` (起胡: fewer is no win) and ``cap`` (封顶), then ``value``
    turns them into the amount each payer pays: as is (``points``), ``base ×
    2^points`` (``doubling``, 番) or a ``table`` lookup. Each payment is then
    multiplied (``multipliers``) and increased (``bonuses``) where the payer,
    winner or win qualifies (dealer, discarder, self_draw).
    """

    combine: str = "highest"
    tiers: tuple[str, ...] = ()
    payout: dict[str, str] = field(default_factory=dict)
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

    def capped(self, points: int) -> int:
        return points if self.cap is None else min(points, self.cap)

    def amount(self, points: int) -> int:
        """What each payer pays for ``points`` (already capped), before multipliers and bonuses."""
        if self.value == "doubling":
            return self.value_base * 2 ** max(points, 0)
        if self.value == "table":
            return self.value_table[max(0, min(points, len(self.value_table) - 1))]
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
class VoidSuit:
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

    after_win: str = "end"  # end | leave | stay
    after_winners: int | None = None  # the hand ends when this many players have won
    which_win: str = "first"  # which win decides the next dealer: first | last
    kong_flags: frozenset[str] = frozenset({"after_kong", "after_kong_discard"})
    exchange: Exchange | None = None
    void_suit: VoidSuit | None = None
    ready: bool = False  # players may declare ready (报听) with a discard; the hand is then locked
    kongs_paid: str = "at_win"  # at_win | at_kong
    kong_refund: str | None = None  # None | not_ready
    on_draw: tuple[DrawnPayment, ...] = ()
    prevalent_every: int | None = None  # winds: the prevalent wind advances every N hands of a game

    @property
    def continues(self) -> bool:
        return self.after_win != "end"


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
    flags: tuple[str, ...] = ()  # flags beyond the engine's (FLAGS) that plugins set (`flags:`)
    flow: Flow = field(default_factory=Flow)
    leave: LeaveRule = field(default_factory=lambda: LeaveRule())
    options: dict[str, Any] = field(default_factory=dict)  # every declared option's value, as played

    def options_declared(self) -> dict[str, Any]:
        """The ``options`` declarations (name → mapping), as written."""
        d = self.data.get("options") if isinstance(self.data, dict) else None
        return dict(d) if isinstance(d, dict) else {}

    def presets(self) -> dict[str, Any]:
        """The ``presets`` declarations (name → {description, set})."""
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
