"""The hand's state, what each step returns, and queries over the seats.

Every other module of the table extends :class:`HandState` (see the package's
docstring); this one holds no flow.
"""

from __future__ import annotations

import operator
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...core.hand import Hand, Meld
from ...core.kinds import MeldKind
from ...core.tiles import HONOR_BASE, NUM_KINDS, Tile, is_honor
from ...evaluate.scoring import Evaluator
from ...hooks.registry import EngineAbort
from ...rules.model import Ruleset
from ...settle import settlement as st
from .. import counters as cnt
from ..counted import CountedMelds, CountedTiles
from ..players import Decision, Option, Player
from ..wall import Wall

if TYPE_CHECKING:
    from ..players import TableView
    from .control import HandControl


@dataclass
class SeatState:
    """One seat's part of the hand (the engine's own lists: views and plugins get copies)."""

    # Typed lists that keep their counts per kind as they change (play/counted.py): the
    # claim screen, the bots and the environment's observation read those instead of
    # counting every turn.
    hand: CountedTiles = field(default_factory=CountedTiles)
    melds: CountedMelds = field(default_factory=CountedMelds)
    discards: CountedTiles = field(default_factory=CountedTiles)
    drew_first: bool = False  # has had a turn (first_turn ends with it)
    # Declarations (void_suit, ready), wins this hand, and plugins' per-seat state.
    state: dict[str, Any] = field(default_factory=dict)
    won_tiles: list[Tile] = field(default_factory=list)  # tiles won on, set aside (after_win: stay)
    flowers: list[Tile] = field(default_factory=list)  # bonus tiles set aside (tiles.flowers)

    def __setattr__(self, name: str, value: Any) -> None:
        # A plain list given for the counted ones (a test or a tool laying out a hand) is
        # made a counted list, so the counts can't go stale.
        if name in _COUNTED and type(value) is not _COUNTED[name]:
            value = _COUNTED[name](value)
        object.__setattr__(self, name, value)


_COUNTED: dict[str, type[CountedTiles] | type[CountedMelds]] = {
    "hand": CountedTiles, "discards": CountedTiles, "melds": CountedMelds}


@dataclass
class HandResult:
    result: str  # win | draw | abandon
    winners: list[int]
    next_dealer: int
    payments: list[int]
    patterns: dict[int, list[str]] = field(default_factory=dict)
    error: str = ""


class HandAbandoned(EngineAbort):
    """A player or plugin failed; the hand stops cleanly with an ``abandon`` event."""


# -- what a step returns ----------------------------------------------------------------
# (Slotted, not frozen: a frozen dataclass costs ~4x to make, and a turn makes one. Nothing
# changes them once made.)

NO_FLAGS: frozenset[str] = frozenset()


@dataclass(slots=True)
class Discarded:
    """A turn ended with ``seat`` discarding ``tile``; a win on it carries ``flags``
    (e.g. ``after_kong_discard``) besides the claimer's own."""

    seat: int
    tile: Tile
    flags: frozenset[str] = NO_FLAGS


@dataclass(slots=True)
class Claimed:
    """``seat`` claimed a discard into a meld and plays next, holding ``drawn`` (a claimed
    kong's replacement; ``None`` after a pung or chow: no draw) with ``flags``."""

    seat: int
    drawn: Tile | None = None
    flags: frozenset[str] = NO_FLAGS


@dataclass(slots=True)
class Resume:
    """A win was settled and the hand goes on (``win.after_win``): ``seat`` draws next."""

    seat: int


# What a turn ends in: a discard for the others to claim, the hand's end, or play going on
# after a win.
TurnEnd = Discarded | HandResult | Resume
# What the claims on a discard end in: nobody claims (None), a meld (the claimer plays
# next), a plugin's claim that already made the claimer discard, the hand's end, or play
# going on after a win.
ClaimEnd = Claimed | Discarded | HandResult | Resume | None


class HandOver(BaseException):
    """Raised by the deprecated ending methods (``HandControl.win``, ``end_drawn``,
    ``rob_kong``), which end the hand from inside a plugin's frame, and when a player
    leaves a hand that is then abandoned; plugins now return a
    :class:`~mjframework.play.outcomes.Win` / :class:`~mjframework.play.outcomes.EndDrawn`
    instead. ``result`` is the hand's result, or a :class:`Resume` (a deprecated win in
    a hand that goes on).

    A BaseException so that the guard around plugin hooks, which turns a
    plugin's ``Exception`` into an abandoned hand, lets it through.
    """

    def __init__(self, result: HandResult | Resume) -> None:
        super().__init__(result.result if isinstance(result, HandResult) else "resume")
        self.result = result


@dataclass(slots=True)
class SeatWaits:
    """The kinds that could complete a seat's held tiles (``kinds``; None: any kind may),
    remembered with the hand they were worked out for (copies: the held tiles as a list and
    as their counts per kind, compared as bytes with the seat's kept counts — no key built
    per discard). A seat's held tiles stay the same while the others discard, so
    :meth:`Evaluator.win_candidates` runs once per held hand, not once per discard."""

    held: list[Tile]
    melds: list[Meld]
    wildcard: Tile | None
    kinds: set[Tile] | None
    counts: bytes = b""  # ``held``'s counts per kind (play/counted.py)

    def is_for(self, hand: CountedTiles, melds: list[Meld], wildcard: Tile | None) -> bool:
        """Still the seat's hand (and its kinds known)? (The kinds depend on the held tiles
        as a multiset: their counts.)"""
        return (self.kinds is not None and self.counts == hand.counts and self.melds == melds
                and self.wildcard == wildcard)

    def is_for_drawn(self, hand: list[Tile], melds: list[Meld], wildcard: Tile | None) -> bool:
        """The seat's hand is the remembered one plus the tile just drawn (its last)?"""
        return (self.kinds is not None and len(hand) == len(self.held) + 1 and self.wildcard == wildcard
                and hand[:-1] == self.held and self.melds == melds)


# -- the options a decision offers, built once --------------------------------------------

_DISCARDS: dict[Tile, Option] = {}
_MELDS: dict[tuple[str, Tile, tuple[Tile, ...], str | None], Option] = {}
_EXCHANGES: dict[tuple[Tile, ...], Option] = {}


def meld_option(kind: str, tile: Tile, tiles: tuple[Tile, ...], meld: str | None = None) -> Option:
    """The (immutable, shared) claim option ``Option(kind, tile, tiles, meld)``: built once."""
    key = (kind, tile, tiles, meld)
    o = _MELDS.get(key)
    if o is None:
        o = _MELDS[key] = Option(kind, tile, tiles, meld)
    return o


def exchange_option(tiles: tuple[Tile, ...]) -> Option:
    """The (immutable, shared) option of passing ``tiles``: a seat weighs ~20–80 of them."""
    o = _EXCHANGES.get(tiles)
    if o is None:
        o = _EXCHANGES[tiles] = Option("exchange", None, tiles)
    return o


def discard_option(t: Tile) -> Option:
    """The (immutable, shared) plain discard option of ``t``: built once per kind, not per turn."""
    o = _DISCARDS.get(t)
    if o is None:
        o = _DISCARDS[t] = Option("discard", t)
    return o


# The same, indexed by kind: a turn offers ~12 discards.
PLAIN_DISCARDS: tuple[Option, ...] = tuple(discard_option(t) for t in range(NUM_KINDS))

_SUIT_INDEX = {"m": 0, "p": 1, "s": 2}


class HandState:
    """One hand's state. ``players`` are indexed by absolute seat.

    Public attributes are the table's documented state (views, the stepper, the
    environment and :class:`HandControl` read them); the engine's own lists are
    never handed out (a view or a plugin gets copies):

    - ``ruleset``, ``players``, ``seed``, ``hand_no``, ``hand_in_game``, ``deal_passes``, ``dealer``,
      ``ev`` (the evaluator), ``pm`` (its plugin manager), ``wall``;
    - ``seats``: a :class:`SeatState` per seat (held tiles, melds, discards,
      declarations and plugins' per-seat state, tiles won on, flowers);
    - ``wildcard`` (the flipped one), ``wildcards`` (every wild kind), ``indicator``;
    - ``no_claims`` (nobody has claimed yet), ``locked`` (seats that may only win or
      discard their draw), ``out`` (seats that won and left), ``left`` (seats whose
      player left the table), ``opening_winners``, ``previous`` (the previous hand's
      win call);
    - ``kongs`` (made this hand; ``kongs_paid`` of them settled), ``kong_money``
      (paid at the kong), ``settled`` (net of settlements so far), ``win_log``
      (winners and discarder per win), ``patterns_won``;
    - ``last_drawer``, ``replacement_seat`` (whose last draw was a kong replacement),
      ``last_tile_replacement``, ``offered`` (the discard a plugin's claim takes),
      ``revealed`` (face-down melds shown), ``deciding`` (the decisions put to several
      seats at once — the claims on a discard, an exchange, a declaration at the deal —
      while they are asked: ``Relay.ask_set``);
    - ``counters`` (the ruleset's counts lasting across hands, as the hand began),
      ``laid`` (the ``laid_kongs`` kinds, each to its name).
    """

    control: HandControl  # the plugins' facade (set by Game)
    _views: list[TableView]  # each seat's view (set by Game)

    def __init__(self, ruleset: Ruleset, players: Sequence[Player], *, seed: int, dealer: int = 0,
                 hand_no: int = 0, evaluator: Evaluator | None = None,
                 last_winner_call: tuple[int, str] | None = None, hand_in_game: int | None = None,
                 counters: cnt.Counts | None = None, deal_passes: int | None = None) -> None:
        self.ruleset = ruleset
        self.players = list(players)
        if len(self.players) != ruleset.players:
            raise ValueError(f"{ruleset.id} needs {ruleset.players} players, got {len(self.players)}")
        try:  # (an integer of any kind, numpy's too; not 1.9, not True)
            ok = not isinstance(dealer, bool) and 0 <= operator.index(dealer) < ruleset.players
        except TypeError:
            ok = False
        if not ok:
            raise ValueError(f"the dealer is a seat number from 0 to {ruleset.players - 1}, not {dealer!r}")
        dealer = operator.index(dealer)
        self.seed = seed
        self.hand_no = hand_no
        # The hand's place in its game (the prevalent wind advances with it: `winds`).
        self.hand_in_game = hand_no if hand_in_game is None else hand_in_game
        # How often the deal went to another seat before this hand (`winds.prevalent_counts:
        # deal_passes`); unknown outside a series of hands: then as many as the hands before.
        self.deal_passes = self.hand_in_game if deal_passes is None else deal_passes
        self.dealer = dealer
        self.counters = counters if counters is not None else cnt.start(ruleset)  # play/counters.py
        self.rng = random.Random(seed)
        self.ev = evaluator or Evaluator(ruleset)
        self.wall = Wall(ruleset, self.rng, dealer)
        self.seats = [SeatState() for _ in range(ruleset.players)]
        self.wildcard: Tile | None = None
        self.wildcards: frozenset[Tile] = frozenset()  # every wild kind (fixed ones and the flipped one)
        self.indicator: Tile | None = None
        wrule = ruleset.wildcard
        # May a wildcard be (discarded, claimed, melded)?
        self.wild_may = (True, False, False) if wrule is None else (
            wrule.may_discard, wrule.may_claim, wrule.may_meld)
        self.no_claims = True
        self.kongs: list[st.KongRecord] = []
        self.last_drawer: int | None = None
        self.replacement_seat: int | None = None  # the seat whose last draw was a kong replacement
        # The seat whose replacement draw (from the kong end) took the last drawable
        # tile: the hand then has no last tile (no last_tile flag for anyone).
        self.last_tile_replacement: int | None = None
        self.claims = ruleset.claims
        self.win_rules = ruleset.win
        self.priority = {k: i for i, k in enumerate(self.claims.priority)}
        self.locked: set[int] = set()  # seats whose hand is locked (may only win or discard the draw)
        self.opening_winners: list[int] = []
        self.settled = [0] * ruleset.players  # net of settlements made before the hand's end
        self.revealed = False  # face-down melds shown (at the hand's end)
        self.left: list[int] = []  # seats that left the table this hand
        #: (discarder, tile) of the discard a plugin's claim is taking (inside
        #: ``mj_handle_option`` for a claim: see :meth:`HandControl.take_discard`), else None.
        self.offered: tuple[int, Tile] | None = None
        #: The decisions put to several seats at once (the claims on a discard, an exchange,
        #: a declaration), in the order they are asked, while they are being asked; else empty.
        self.deciding: tuple[Decision, ...] = ()
        # Per seat: the kinds that could complete its held tiles (see wins.may_win_on).
        self._win_cands: list[SeatWaits | None] = [None] * ruleset.players
        self.previous = last_winner_call  # (seat, call) of the previous hand's win in this game
        self.pm = self.ev.pm
        self.flow = ruleset.flow
        self.out: set[int] = set()  # seats that won and left the hand (after_win: leave)
        self.win_log: list[tuple[tuple[int, ...], int | None]] = []  # (winners, discarder) per win
        self.kongs_paid = 0  # kongs[:kongs_paid] are settled
        self.kong_money: list[tuple[st.KongRecord, list[st.Payment]]] = []  # paid at the kong
        self.patterns_won: dict[int, list[str]] = {}
        self.laid = {t: lk.name for lk in ruleset.laid_kongs for t in lk.tiles}  # laid_kongs: kind → name
        # the kinds laid aside as soon as held (the others, `choice`, when the holder says so)
        self.laid_on_sight = {t: lk.name for lk in ruleset.laid_kongs if not lk.choice for t in lk.tiles}

    # -- seats in play, declarations ------------------------------------------------

    def winners(self) -> list[int]:
        """Seats that have won so far this hand, in order (each once)."""
        out: list[int] = []
        for ws, _ in self.win_log:
            out.extend(w for w in ws if w not in out)
        return out

    def _next_active(self, seat: int) -> int:
        n = self.ruleset.players
        for i in range(1, n + 1):
            nxt = (seat + i) % n
            if nxt not in self.out:
                return nxt
        return seat

    def _seats_after(self, seat: int) -> list[int]:
        n = self.ruleset.players
        return [(seat + i) % n for i in range(1, n) if (seat + i) % n not in self.out]

    def _payers(self, winner: int) -> list[int]:
        return [p for p in range(self.ruleset.players) if p != winner and p not in self.out]

    def _void_of(self, seat: int) -> int | None:
        """The suit index (0 m, 1 p, 2 s) the seat declared void, if any."""
        v = self.seats[seat].state.get("void_suit")
        if v is None:
            return None
        i = _SUIT_INDEX.get(v)
        return "mps".index(v) if i is None else i  # (an unknown suit raises, as it did)

    def _in_void(self, seat: int, t: Tile) -> bool:
        v = self._void_of(seat)
        return v is not None and t // 9 == v  # (t // 9 is never a suit's index for an honor)

    def _holds_void(self, seat: int) -> bool:
        v = self._void_of(seat)
        return v is not None and any(not is_honor(t) and t // 9 == v for t in self.seats[seat].hand)

    def win_hand(self, seat: int, win_tile: Tile, held: list[Tile] | None = None) -> Hand:
        """``seat``'s hand winning on ``win_tile``: ``held`` (default: its held tiles) and its melds."""
        s = self.seats[seat]
        return Hand(tuple(held if held is not None else s.hand), tuple(s.melds), win_tile)

    def _is_wild(self, t: Tile) -> bool:
        return t in self.wildcards

    def _kong_tiles_left(self) -> bool:
        return self.wall.kong_remaining() > 0 and self.wall.live_remaining() > 0

    @property
    def prevalent_wind(self) -> Tile | None:
        """This hand's prevalent wind (东 … 北), or None when the ruleset has no ``winds``."""
        return self._prevalent_wind()

    def _prevalent_wind(self) -> Tile | None:
        every = self.flow.prevalent_every
        if not every:
            return None
        n = self.deal_passes if self.flow.prevalent_counts == "deal_passes" else self.hand_in_game
        return HONOR_BASE + (n // every) % 4


# The meld kinds as their plain ``str`` values, for the engine's melds and comparisons: in
# CPython 3.11 comparing a str to a StrEnum member costs ~8x a str comparison, and the
# melds reach the scorer's hot path (``Meld.claimed``, ``Meld.is_kong``). The members
# (:class:`MeldKind`) stay the vocabulary; these are their values.
CHOW: str = MeldKind.CHOW.value
PUNG: str = MeldKind.PUNG.value
KONG: str = MeldKind.KONG.value
ADDED_KONG: str = MeldKind.ADDED_KONG.value
CONCEALED_KONG: str = MeldKind.CONCEALED_KONG.value
_CLAIM_MELDS = {CHOW: CHOW, PUNG: PUNG, KONG: KONG}


def meld_kind_of(choice: Option) -> str:
    """The kind of meld (a :class:`MeldKind` value) a claim ``choice`` makes: its ``meld``
    for a kong (a plugin's claim names the meld it ranks and makes as), else its own kind
    (``pung``, ``chow``)."""
    return _CLAIM_MELDS[choice.meld if choice.meld == KONG else choice.kind]
