"""The engine's string vocabularies, one :class:`enum.StrEnum` each.

A member *is* its string (``MeldKind.ADDED_KONG == "added-kong"``, it hashes
and serializes the same), so logs, conformance files and ruleset YAML keep
their spellings while the engine compares against named members instead of
string literals.

One concept, several spellings — a kong made by adding the fourth tile to
one's pung is written three ways, each where it always has been:

============  ====================  ==========================================
spelling      where                 read / written by
============  ====================  ==========================================
added-kong    a meld's kind         ``Meld.kind``, conformance hands, views
added_kong    a payment / claim key ruleset YAML (``scoring.kongs``,
                                    ``claims``), settlement ``reason``,
                                    seat-log actions
added         a ``kong`` event      the event log (``kind`` of ``kong`` and
                                    of plugins' ``open_kong``)
============  ====================  ==========================================

The canonical member is the :class:`MeldKind`; :class:`KongKind` names the
kong kinds in the other two spellings, and :func:`kong_meld` reads any of the
three back to the :class:`MeldKind` (use it only where a string comes from
input: a log, a YAML key, a settlement reason).
"""

from __future__ import annotations

from enum import StrEnum


class MeldKind(StrEnum):
    """A declared meld's kind (``Meld.kind``)."""

    CHOW = "chow"
    PUNG = "pung"
    KONG = "kong"  # claimed from a discard (点杠)
    ADDED_KONG = "added-kong"  # the fourth tile added to one's pung (明杠 / 加杠)
    CONCEALED_KONG = "concealed-kong"  # four held tiles (暗杠)

    @property
    def is_kong(self) -> bool:
        return self in KONG_MELDS

    @property
    def payment_key(self) -> str:
        """The kong's key in ``scoring.kongs`` and a settlement ``reason`` (``added_kong``)."""
        return _PAYMENT_KEY[self]

    @property
    def event_kind(self) -> KongKind:
        """The ``kind`` of the kong's ``kong`` event (``added`` / ``concealed`` / ``claimed``)."""
        return _EVENT_KIND[self]


class KongKind(StrEnum):
    """A kong's kind as a ``kong`` (or ``open_kong``) event names it."""

    CLAIMED = "claimed"
    ADDED = "added"
    CONCEALED = "concealed"


class GroupKind(StrEnum):
    """A group of a reading (how a winning hand splits)."""

    SEQUENCE = "seq"
    TRIPLET = "triplet"
    KONG = "kong"
    PAIR = "pair"
    SINGLE = "single"


class EventType(StrEnum):
    """The ``type`` of an engine event (``docs/events.md``); plugins add their own."""

    SIMULATION = "simulation"
    HAND_START = "hand_start"
    DICE = "dice"
    WALL = "wall"
    DEAL = "deal"
    WILDCARD = "wildcard"
    EXCHANGE = "exchange"
    DECLARE = "declare"
    FLOWER = "flower"
    DRAW = "draw"
    DISCARD = "discard"
    CLAIM = "claim"
    KONG = "kong"
    WIN = "win"
    OPENING_WIN = "opening_win"
    SETTLEMENT = "settlement"
    REVEAL = "reveal"
    LEAVE = "leave"
    ABANDON = "abandon"
    CALL = "call"
    HAND_END = "hand_end"
    BONUS_TILES = "bonus_tiles"
    LAID_KONG = "laid_kong"


# Tuples, not sets: iterated to build tables, their order must not depend on string hashing.
KONG_MELDS = (MeldKind.KONG, MeldKind.ADDED_KONG, MeldKind.CONCEALED_KONG)
CLAIMED_MELDS = (MeldKind.CHOW, MeldKind.PUNG, MeldKind.KONG, MeldKind.ADDED_KONG)

_PAYMENT_KEY = {MeldKind.KONG: "kong", MeldKind.ADDED_KONG: "added_kong",
                MeldKind.CONCEALED_KONG: "concealed_kong"}
KONG_PAYMENT_KEYS = frozenset(_PAYMENT_KEY.values())
# The group kinds a ruleset's ``groups:`` measure names (YAML, input) → the readings' kinds:
# ``sequence`` is spelled ``seq`` in a reading, and a ``triplet`` there counts kongs too.
GROUP_KIND_NAMES: dict[str, tuple[GroupKind, ...]] = {
    "sequence": (GroupKind.SEQUENCE,), "triplet": (GroupKind.TRIPLET, GroupKind.KONG),
    "kong": (GroupKind.KONG,), "pair": (GroupKind.PAIR,), "single": (GroupKind.SINGLE,)}
# How players call each meld at the table: the one table of meld words (views, prompts,
# `mj score`'s melds). A claimed kong is 点杠 (the discarder "points" it, and pays for it),
# an added kong 明杠, a concealed one 暗杠 — the words of the rule pages, the payouts
# (点杠 30 from the discarder, 明杠 10 / 暗杠 20 from each other) and the conformance
# format. (明杠 alone can mean any exposed kong; next to 点杠 it is the added one.)
MELD_WORDS: dict[str, str] = {MeldKind.CHOW: "吃", MeldKind.PUNG: "碰", MeldKind.KONG: "点杠",
                              MeldKind.ADDED_KONG: "明杠", MeldKind.CONCEALED_KONG: "暗杠"}
_EVENT_KIND = {MeldKind.KONG: KongKind.CLAIMED, MeldKind.ADDED_KONG: KongKind.ADDED,
               MeldKind.CONCEALED_KONG: KongKind.CONCEALED}
_KONG_SPELLINGS: dict[str, MeldKind] = {
    **{str(m): m for m in KONG_MELDS},
    **{v: m for m, v in _PAYMENT_KEY.items()},
    **{str(v): m for m, v in _EVENT_KIND.items()},
}


def kong_meld(spelling: str) -> MeldKind:
    """Any spelling of a kong kind (``added-kong``, ``added_kong``, ``added``; ``kong`` and
    ``claimed`` for a claimed one) → its :class:`MeldKind`. For input only: the engine
    itself uses the members."""
    try:
        return _KONG_SPELLINGS[spelling]
    except KeyError:
        raise ValueError(f"unknown kong kind {spelling!r} (one of "
                         f"{', '.join(sorted(_KONG_SPELLINGS))})") from None
