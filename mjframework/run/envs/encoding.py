"""The fixed encodings of the environments: one observation layout and one action space for
every ruleset (docs/agents.md, "Encodings").

Every ruleset — 108 or 136 tiles, flowers or none, 2 to 4 players, any plugins — is encoded
in the same shapes, so one network can be trained on several families:

- tiles index the 34 standard kinds by their number (``1m`` = 0 … ``7z`` = 33; a ruleset
  without honours leaves 27–33 at zero); flowers (``1f``–``8f``) are counted apart;
- seats are relative to the observer (``r = 0`` the observer, ``1`` the next in turn, …)
  and padded to :data:`MAX_SEATS` (``present_r`` says which seats exist);
- the action space is :data:`ACTION_N` indices (:data:`ACTIONS`): discards, claims, kongs
  (claimed, concealed, added, and a ``laid_kongs`` kind laid aside by choice), exchanges,
  declarations; the plugins' own option
  kinds take :data:`PLUGIN_TILE_SLOTS` per-tile slots and :data:`PLUGIN_PLAIN_SLOTS` plain
  slots, in the order the ruleset lists its plugins (:meth:`ActionCodec.names` says which).

:class:`HandEncoder` builds a seat's observation only from what that seat may see
(:mod:`mjframework.play.visibility`): its own tiles, every discard and exposed meld, another
seat's concealed kong as a count until it is revealed, flowers, wildcards, declarations,
counters and the money settled so far. :class:`ActionCodec` maps an engine option to its
index and back; :class:`~mjframework.play.actions.ActionSpace` (the ruleset's named
actions) is its slow reference (``tests/test_envs.py`` checks both agree).
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...core.kinds import MeldKind
from ...core.tiles import FLOWER_BASE, NUM_KINDS, to_mjai
from ...play.actions import DECISION_KINDS, VOID_SUITS, ActionSpace, EnvError
from ...play.players import Decision, Option
from ...play.visibility import FACE_DOWN_KINDS as FACE_DOWN
from ...play.visibility import is_face_down

K = NUM_KINDS  # tile kinds of every plane
MAX_SEATS = 4
FLOWERS = 8
PLUGIN_TILE_SLOTS = 2
PLUGIN_PLAIN_SLOTS = 4
MAX_TILES = 4 * K + FLOWERS  # the most tiles a ruleset's set can hold (4 copies of 34 kinds, 8 flowers)
MAX_MONEY = 1e9  # the bound of the money scalars (far beyond any ruleset's payouts)

_CODES = [to_mjai(t) for t in range(K)]


def _action_names() -> tuple[str, ...]:
    names: list[str] = [f"discard:{c}" for c in _CODES]
    names += [f"discard_ready:{c}" for c in _CODES]
    names += ["win", "pass"]
    for slot in ("pung", "kong", "concealed_kong", "added_kong"):
        names += [f"{slot}:{c}" for c in _CODES]
    names += [f"chow:{c}:{i}" for c in _CODES for i in range(3)]
    names += [f"exchange:{c}" for c in _CODES]
    names += [f"declare:{s}" for s in VOID_SUITS]
    for j in range(PLUGIN_TILE_SLOTS):
        names += [f"plugin_tile_{j}:{c}" for c in _CODES]
    names += [f"plugin_{j}" for j in range(PLUGIN_PLAIN_SLOTS)]
    # Added after the plugin slots (not beside the kongs) so that every earlier index keeps
    # its meaning (an action recorded in a dataset of the 417-action layout names the same move).
    names += [f"lay_kong:{c}" for c in _CODES]
    return tuple(names)


#: The universal action names (plugin slots generic; :meth:`ActionCodec.names` names them).
ACTIONS: tuple[str, ...] = _action_names()
ACTION_N = len(ACTIONS)
ACTION_INDEX = {n: i for i, n in enumerate(ACTIONS)}
DISCARD = ACTION_INDEX["discard:1m"]
DISCARD_READY = ACTION_INDEX["discard_ready:1m"]
WIN = ACTION_INDEX["win"]
PASS = ACTION_INDEX["pass"]
PUNG = ACTION_INDEX["pung:1m"]
_KONG_BASE = {MeldKind.KONG: ACTION_INDEX["kong:1m"],
              MeldKind.CONCEALED_KONG: ACTION_INDEX["concealed_kong:1m"],
              MeldKind.ADDED_KONG: ACTION_INDEX["added_kong:1m"]}
CHOW = ACTION_INDEX["chow:1m:0"]
EXCHANGE = ACTION_INDEX["exchange:1m"]
DECLARE = ACTION_INDEX["declare:m"]
PLUGIN_TILE = ACTION_INDEX["plugin_tile_0:1m"]
PLUGIN_PLAIN = ACTION_INDEX["plugin_0"]
LAY_KONG = ACTION_INDEX["lay_kong:1m"]


class ActionCodec:
    """A ruleset's engine options ↔ the universal action indices.

    ``index_of(option)`` is arithmetic on the option (no strings): the hot path of every
    step. :attr:`local` is the ruleset's named :class:`ActionSpace`; :attr:`to_universal`
    maps its indices to the universal ones (the reference the tests compare against).
    """

    def __init__(self, ruleset: Any) -> None:
        self.local = ActionSpace(ruleset)
        self.plugin_slots: dict[str, int] = {}  # a plugin option kind → its first universal index
        tile_kinds = [k for k, with_tile in self.local.plugin_kinds.items() if with_tile]
        plain_kinds = [k for k, with_tile in self.local.plugin_kinds.items() if not with_tile]
        if len(tile_kinds) > PLUGIN_TILE_SLOTS or len(plain_kinds) > PLUGIN_PLAIN_SLOTS:
            raise EnvError(f"{ruleset.id}: its plugins declare {len(tile_kinds)} option kinds with a tile "
                           f"and "
                           f"{len(plain_kinds)} without; the action space has {PLUGIN_TILE_SLOTS} and "
                           f"{PLUGIN_PLAIN_SLOTS} slots")
        for j, k in enumerate(tile_kinds):
            self.plugin_slots[k] = PLUGIN_TILE + j * K
        for j, k in enumerate(plain_kinds):
            self.plugin_slots[k] = PLUGIN_PLAIN + j
        self.exchange = self.local.exchange
        names = list(ACTIONS)
        for k, base in self.plugin_slots.items():
            if self.local.plugin_kinds[k]:
                names[base:base + K] = [f"{k}:{c}" for c in _CODES]
            else:
                names[base] = k
        #: The universal names with the plugin slots named after this ruleset's option kinds.
        self.names: tuple[str, ...] = tuple(names)
        self.to_universal = np.array([self._universal(n) for n in self.local.names], dtype=np.int64)

    def _universal(self, local_name: str) -> int:
        kind, _, rest = local_name.partition(":")
        if kind in self.plugin_slots:
            base = self.plugin_slots[kind]
            return base + self._tile(rest) if self.local.plugin_kinds[kind] else base
        if kind == "chow":
            code, _, place = rest.partition(":")
            return CHOW + 3 * self._tile(code) + int(place)
        if local_name in ACTION_INDEX:
            return ACTION_INDEX[local_name]
        raise EnvError(f"{local_name} has no universal action")  # pragma: no cover - names are built above

    @staticmethod
    def _tile(code: str) -> int:
        return _CODES.index(code)

    def index_of(self, option: Option) -> int:
        """The universal index of an engine option (:class:`EnvError` if it has none)."""
        k = option.kind
        t = option.tile
        if k == "discard" and t is not None and t < K:
            return (DISCARD_READY if option.value == "ready" else DISCARD) + t
        if k == "pass":
            return PASS
        if k == "win":
            return WIN
        if t is not None and t < K:
            if k == "pung":
                return PUNG + t
            if k == "kong" and option.meld in _KONG_BASE:
                return _KONG_BASE[option.meld] + t  # type: ignore[index]
            if k == "chow":
                return CHOW + 3 * t + option.tiles.index(t)
            if k == "lay_kong":
                return LAY_KONG + t
        if k == "declare" and option.value is not None and option.value in VOID_SUITS:
            return DECLARE + VOID_SUITS.index(option.value)
        base = self.plugin_slots.get(k)
        if base is not None:
            if not self.local.plugin_kinds[k]:
                return base
            if t is not None and t < K:
                return base + t
        # The named space raises the precise error (an undeclared plugin kind, a tile-less option).
        self.local.name_of(option)
        raise EnvError(f"option {option!r} has no action")

    def legal(self, decision: Decision) -> dict[int, Option]:
        """Universal index → the one engine option it stands for (not for exchanges).

        One comprehension with a plain discard (most options of a turn) inline and the rest
        by :meth:`index_of`; two options on one index show as a shorter map, and only then
        is the clash looked for (:class:`EnvError` naming both)."""
        options = decision.options
        out = {(DISCARD + o.tile
                if o.kind == "discard" and o.value is None and o.tile is not None and o.tile < K
                else self.index_of(o)): o for o in options}
        if len(out) != len(options):
            seen: dict[int, Option] = {}
            for o in options:
                i = self.index_of(o)
                if i in seen:
                    raise EnvError(f"two options of one decision map to {self.names[i]}: "
                                   f"{seen[i]!r} and {o!r}")
                seen[i] = o
        return out


def pickable(options: Any, picks: Any) -> list[int]:
    """The exchange actions that extend ``picks`` (tiles picked so far) towards one of the
    offered exchange ``options``: an exchange is stepped one tile at a time."""
    out: set[int] = set()
    for o in options:
        rest = list(o.tiles)
        try:
            for t in picks:
                rest.remove(t)
        except ValueError:  # this exchange doesn't hold the picks
            continue
        out.update(rest)
    return sorted(EXCHANGE + t for t in out)


@dataclass(frozen=True)
class ObsLayout:
    """Where each feature sits in the flat observation vector (docs/agents.md)."""

    planes: tuple[str, ...]
    scalars: tuple[str, ...]

    @property
    def size(self) -> int:
        return len(self.planes) * K + len(self.scalars)

    def plane(self, name: str) -> slice:
        """The ``K``-wide slice of a tile plane."""
        i = self.planes.index(name)
        return slice(i * K, (i + 1) * K)

    def scalar(self, name: str) -> int:
        """The index of a scalar."""
        return len(self.planes) * K + self.scalars.index(name)

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """``(low, high)`` of every entry: tile counts 0–4 (a ruleset has at most 4 copies of a
        kind), counts of tiles 0–:data:`MAX_TILES`, money ±:data:`MAX_MONEY`, flags 0–1."""
        low = np.zeros(self.size, dtype=np.float32)
        high = np.ones(self.size, dtype=np.float32)
        high[:len(self.planes) * K] = 4
        for i, name in enumerate(self.scalars, len(self.planes) * K):
            if name.startswith("score_"):
                low[i], high[i] = -MAX_MONEY, MAX_MONEY
            elif name.startswith(("live_", "discards_", "kongs_", "concealed_", "face_down_",
                                  "flower_count_")):
                high[i] = MAX_TILES
            elif name == "players":
                high[i] = MAX_SEATS
        return low, high

    def split(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(planes, scalars)``: the tile planes as a ``(…, P, 34)`` array (a view) and the scalars."""
        cut = len(self.planes) * K
        return obs[..., :cut].reshape(*obs.shape[:-1], len(self.planes), K), obs[..., cut:]


_R = range(MAX_SEATS)
LAYOUT = ObsLayout(
    planes=("hand", *(f"discards_{r}" for r in _R), *(f"melds_{r}" for r in _R),
            "wildcards", "indicator", "decision_tile", "exchange_picked", "won_tiles"),
    scalars=("live_remaining", "discards_total", "kongs_total", "players",
             *(f"{what}_{r}" for what in ("present", "dealer", "score", "face_down_kongs", "concealed_count",
                                          "flower_count", "ready", "out") for r in _R),
             *(f"void_{s}_{r}" for s in VOID_SUITS for r in _R),
             *(f"flower_{f}_{r}" for r in _R for f in range(1, FLOWERS + 1)),
             *(f"decision_{k}" for k in DECISION_KINDS)),
)
OBS_SIZE = LAYOUT.size

_P = {name: i * K for i, name in enumerate(LAYOUT.planes)}
_S = {name: LAYOUT.scalar(name) for name in LAYOUT.scalars}
_WILD, _IND, _DTILE, _PICKED, _WON = (
    _P[n] for n in ("wildcards", "indicator", "decision_tile", "exchange_picked", "won_tiles"))
_DECISION = {k: _S[f"decision_{k}"] for k in DECISION_KINDS}


def _scalar_rows(what: str) -> list[int]:
    return [_S[f"{what}_{r}"] for r in _R]


_PRESENT, _DEALER, _SCORE, _FDK, _CONC, _FLC, _READY, _OUT = (
    _scalar_rows(w) for w in ("present", "dealer", "score", "face_down_kongs", "concealed_count",
                              "flower_count", "ready", "out"))
_VOID = {s: _scalar_rows(f"void_{s}") for s in VOID_SUITS}
_FLOWER0 = [_S[f"flower_1_{r}"] for r in _R]
_PLANES = len(LAYOUT.planes) * K
_LIVE, _PLAYERS, _DISCARDS, _KONGS = (_S[n] for n in ("live_remaining", "players", "discards_total",
                                                      "kongs_total"))
_ZERO = array("f", bytes(4 * OBS_SIZE))  # the all-zero observation every encoding starts from (copied)
# The count planes kept by the table (hand, discards_0–3, melds_0–3) lie together first.
assert LAYOUT.planes[:9] == ("hand", *(f"discards_{r}" for r in _R), *(f"melds_{r}" for r in _R))
COUNT_PLANES = 9 * K  # their entries
_NONE = bytes(K)  # a seat's empty plane
_PADS = {n: bytes(K * (MAX_SEATS - n)) for n in range(1, MAX_SEATS + 1)}  # the absent seats' planes


def encode(game: Any, seat: int, decision: Decision | None = None, picks: Any = (),
           out: np.ndarray | None = None) -> np.ndarray:
    """The observation of ``seat`` (float32, :data:`OBS_SIZE`), written into ``out`` if given
    (a :class:`HandEncoder` made for one call; an env keeps one per hand)."""
    return HandEncoder(game).encode(seat, decision, picks, out)


def encode_parts(game: Any, seat: int, decision: Decision | None = None,
                 picks: Any = ()) -> tuple[array[float], bytes]:
    """:meth:`HandEncoder.parts` of a :class:`HandEncoder` made for one call."""
    return HandEncoder(game).parts(seat, decision, picks)


class HandEncoder:
    """The fast observation encoder of one hand's table (``game``), every seat's.

    What a hand never changes is written once, when it is made: for each observer an
    ``array('f')`` template holding the seats present, the dealer's place and the number of
    players, and the order of the other seats relative to it with the indices of their
    scalars. Each step then copies the observer's template and writes only what moves.
    It is made again for each hand (the table's ``game`` and its seats are the hand's).

    Shaped for speed (it runs every step): the nine count planes (hand, each seat's
    discards and melds) are the counts the table keeps per seat as its lists change
    (:mod:`mjframework.play.counted`: a seat's melds as the others see them are its
    ``face_up`` counts until the hand's end), joined as bytes and converted by numpy in
    one assignment; the rest is written into a Python ``array('f')`` (an item costs tens
    of nanoseconds there, against ~100 ns for a numpy scalar store), which numpy then
    views without a copy. :func:`encode_reference` is the plain by-name version it is
    tested against at every step of seeded hands (``tests/test_envs.py``).
    """

    __slots__ = ("_base", "_pad", "_rows", "game")

    def __init__(self, game: Any) -> None:
        self.game = game
        seats = game.seats
        n = len(seats)
        self._pad = _PADS[n]
        self._base: list[array[float]] = []
        # Per observer, per relative seat r: (r, the seat's state, its absolute number, and the
        # indices of its scalars: face-down kongs, concealed count, score, flower count, the
        # first flower flag less FLOWER_BASE, ready, out; its void-suit flags by suit).
        self._rows: list[tuple[tuple[Any, ...], ...]] = []
        for seat in range(n):
            b = _ZERO[:]
            b[_DEALER[(game.dealer - seat) % n]] = 1.0
            b[_PLAYERS] = n
            rows = []
            for r in range(n):
                s = (seat + r) % n
                b[_PRESENT[r]] = 1.0
                rows.append((r, seats[s], s, _FDK[r], _CONC[r], _SCORE[r], _FLC[r], _FLOWER0[r] - FLOWER_BASE,
                             _READY[r], _OUT[r], {v: _VOID[v][r] for v in VOID_SUITS}))
            self._base.append(b)
            self._rows.append(tuple(rows))

    def encode(self, seat: int, decision: Decision | None = None, picks: Any = (),
               out: np.ndarray | None = None) -> np.ndarray:
        """The observation of ``seat`` (float32, :data:`OBS_SIZE`), written into ``out`` if given."""
        buf, planes = self.parts(seat, decision, picks)
        view = np.frombuffer(buf, dtype=np.float32)
        view[:COUNT_PLANES] = np.frombuffer(planes, dtype=np.uint8)
        if out is None:
            return view
        out[:] = view
        return out

    def parts(self, seat: int, decision: Decision | None = None,
              picks: Any = ()) -> tuple[array[float], bytes]:
        """The observation of ``seat`` in two parts: the float32 entries (an ``array('f')`` of
        :data:`OBS_SIZE`, its first :data:`COUNT_PLANES` left zero) and those count planes as
        bytes (one count a byte). :meth:`encode` puts them together; the vector env joins the
        parts of all its tables and converts each kind in one numpy assignment.

        ``decision`` is the pending decision (shown only if it is ``seat``'s), ``picks`` the
        exchange tiles picked so far. Reads only what ``seat`` may see: its own hand and won
        tiles, every seat's discards, melds as ``seat`` sees them, counts, flowers and
        declarations (all public), the wildcards and indicator."""
        game = self.game
        buf = self._base[seat][:]
        buf[_LIVE] = game.wall.live_remaining()
        hidden = not game.revealed
        settled = game.settled
        gone = game.out
        kongs = 0
        discards = 0
        rivers = []
        shown = []
        me = None
        for r, st, s, fdk, conc, score, flc, f0, ready, out, void in self._rows[seat]:
            river = st.discards
            rivers.append(river.counts[:K])
            discards += len(river)
            melds = st.melds
            if melds:
                face_down = 0
                if r and hidden:
                    shown.append(melds.face_up[:K])
                    for m in melds:
                        if len(m.tiles) == 4:
                            kongs += 1
                        if m.kind in FACE_DOWN:
                            face_down += 1
                    buf[fdk] = face_down
                else:
                    shown.append(melds.counts[:K])
                    for m in melds:
                        if len(m.tiles) == 4:
                            kongs += 1
            else:
                shown.append(_NONE)
            if not r:
                me = st
            buf[conc] = len(st.hand)
            buf[score] = settled[s]
            if st.flowers:
                buf[flc] = len(st.flowers)
                for f in st.flowers:
                    buf[f0 + f] = 1.0
            state = st.state
            if state:
                if state.get("ready"):
                    buf[ready] = 1.0
                v = state.get("void_suit")
                if v in void:
                    buf[void[v]] = 1.0
            if s in gone:
                buf[out] = 1.0
        assert me is not None
        buf[_DISCARDS] = discards
        buf[_KONGS] = kongs
        for t in me.won_tiles:
            buf[_WON + t] += 1
        for t in game.wildcards:
            buf[_WILD + t] += 1
        if game.indicator is not None and game.indicator < K:
            buf[_IND + game.indicator] += 1
        if decision is not None and decision.seat == seat:
            if decision.tile is not None and decision.tile < K:
                buf[_DTILE + decision.tile] += 1
            for t in picks:
                buf[_PICKED + t] += 1
            buf[_DECISION.get(decision.kind, _DECISION["other"])] = 1.0
        pad = self._pad
        return buf, b"".join((me.hand.counts[:K], *rivers, pad, *shown, pad))


def encode_reference(game: Any, seat: int, decision: Decision | None = None, picks: Any = ()) -> np.ndarray:
    """:func:`encode` feature by feature, by name, through :func:`~mjframework.play.visibility.meld_for`
    — the slow reference of the differential test."""
    from ...play.visibility import meld_for

    obs = np.zeros(OBS_SIZE, dtype=np.float32)
    n = len(game.seats)

    def add(plane: str, tiles: Any) -> None:
        sl = LAYOUT.plane(plane)
        for t in tiles:
            obs[sl.start + t] += 1

    add("hand", game.seats[seat].hand)
    add("won_tiles", game.seats[seat].won_tiles)
    add("wildcards", sorted(game.wildcards))
    if game.indicator is not None:
        add("indicator", [game.indicator])
    obs[LAYOUT.scalar("live_remaining")] = game.wall.live_remaining()
    obs[LAYOUT.scalar("players")] = n
    for r in range(n):
        s = (seat + r) % n
        st = game.seats[s]
        add(f"discards_{r}", st.discards)
        obs[LAYOUT.scalar("discards_total")] += len(st.discards)
        for m in st.melds:
            shown = meld_for(m, s, seat, game.revealed)
            add(f"melds_{r}", shown.tiles)
            obs[LAYOUT.scalar(f"face_down_kongs_{r}")] += 1 if is_face_down(m) and not shown.tiles else 0
            obs[LAYOUT.scalar("kongs_total")] += 1 if len(m.tiles) == 4 else 0
        obs[LAYOUT.scalar(f"present_{r}")] = 1
        obs[LAYOUT.scalar(f"dealer_{r}")] = 1 if s == game.dealer else 0
        obs[LAYOUT.scalar(f"score_{r}")] = game.settled[s]
        obs[LAYOUT.scalar(f"concealed_count_{r}")] = len(st.hand)
        obs[LAYOUT.scalar(f"flower_count_{r}")] = len(st.flowers)
        for f in st.flowers:
            obs[LAYOUT.scalar(f"flower_{f - FLOWER_BASE + 1}_{r}")] = 1
        obs[LAYOUT.scalar(f"ready_{r}")] = 1 if st.state.get("ready") else 0
        obs[LAYOUT.scalar(f"out_{r}")] = 1 if s in game.out else 0
        for v in VOID_SUITS:
            obs[LAYOUT.scalar(f"void_{v}_{r}")] = 1 if st.state.get("void_suit") == v else 0
    if decision is not None and decision.seat == seat:
        if decision.tile is not None:
            add("decision_tile", [decision.tile])
        add("exchange_picked", picks)
        kind = decision.kind if decision.kind in DECISION_KINDS else "other"
        obs[LAYOUT.scalar(f"decision_{kind}")] = 1
    return obs


__all__ = [
    "ACTIONS",
    "ACTION_INDEX",
    "ACTION_N",
    "COUNT_PLANES",
    "FLOWERS",
    "LAYOUT",
    "MAX_SEATS",
    "OBS_SIZE",
    "PLUGIN_PLAIN_SLOTS",
    "PLUGIN_TILE_SLOTS",
    "ActionCodec",
    "HandEncoder",
    "K",
    "ObsLayout",
    "encode",
    "encode_parts",
    "encode_reference",
    "pickable",
]
