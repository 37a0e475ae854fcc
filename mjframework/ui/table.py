"""The table as one seat sees it: a model fed by events, shared by every way of playing.

:class:`TableState` follows a hand from its events — rivers (discard ponds),
melds, the viewer's own hand and drawn tile, the wildcard and its indicator,
the dealer, the calls (报牌), every win with its reading and every payment,
and the running totals — so a front end (the full-screen table of
:mod:`mjframework.ui.tui`, a test) only draws it. It knows only what its viewer
may know: every event passes :func:`mjframework.play.visibility.view_for` first
(the one place that decides hidden information).

Also here, because the line mode and the full-screen table share them:

- :func:`match_input`: a player's typed answer (``5m``, ``五万``, ``中``, ``碰``,
  ``吃 345m``, a plugin option's text, or a menu number) → the option it means;
- :func:`ready_waits` / :func:`unseen`: 听 — the tiles that complete a 13-tile
  hand, as the engine's :meth:`~mjframework.evaluate.scoring.Evaluator.waits` says, and
  how many of each the viewer has not seen;
- :class:`ScoreRecorder`: wraps the game's evaluator so a win can be shown with
  its reading (which tile each 王 stood for), which the ``win`` event does not carry.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core.hand import Hand, Meld, WinContext
from ..core.kinds import KONG_MELDS, MELD_WORDS, KongKind, MeldKind
from ..core.tiles import HONOR_BASE, Tile, TileParseError, parse_tile, parse_tiles, tile_name
from ..play.events import Event
from ..play.players import Option
from ..play.visibility import view_for

# -- the reading of a win -------------------------------------------------------------------


class ScoreRecorder:
    """An evaluator that remembers each seat's last winning score (for showing a win's reading).

    The engine scores a win just before it emits the ``win`` event, so the last
    winning :class:`~mjframework.evaluate.scoring.Score` recorded for the winner is the
    one the event reports. Everything else is the wrapped evaluator's.
    """

    def __init__(self, evaluator: Any) -> None:
        self._ev = evaluator
        self.last_win: dict[int, tuple[Hand, Any]] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self._ev, name)

    def score(self, hand: Hand, ctx: WinContext, wildcard: Tile | None = None) -> Any:
        s = self._ev.score(hand, ctx, wildcard)
        if s.win:
            self.last_win[ctx.seat] = (hand, s)
        return s


def reading_parts(score: Any, stand_in: Tile | None = None) -> tuple[list[str], list[str]]:
    """The groups of a scored reading (``[一万 二万 王→三万]``) and what each 王 stood for."""
    r = getattr(score, "reading", None)
    if r is None:
        return [], []
    groups, wild = [], []
    for g in r.groups:
        names = []
        for t, src in zip(g.tiles, g.sources, strict=True):
            if src == "w":
                names.append(f"王→{tile_name(t)}")
                wild.append(tile_name(t))
            elif src == "s" and stand_in is not None:
                names.append(f"{tile_name(stand_in)}→{tile_name(t)}")
            else:
                names.append(tile_name(t))
        groups.append("[" + " ".join(names) + "]")
    return groups, wild


# -- typed answers -----------------------------------------------------------------------

# Words a player may type for an option's kind (Chinese, pinyin, English, one-letter keys).
KIND_WORDS = {
    "win": ("胡", "和", "h", "hu", "win"),
    "pung": ("碰", "p", "peng", "pung", "pong"),
    "chow": ("吃", "c", "chi", "chow"),
    "kong": ("杠", "g", "gang", "kong", "暗杠", "明杠", "点杠", "补"),
    "pass": ("过", "x", "guo", "pass", "不要"),
    "discard": ("打", "d", "da", "discard"),
}
_WORD_KIND = {w: k for k, words in KIND_WORDS.items() for w in words}


def option_tiles(o: Option) -> tuple[Tile, ...]:
    return o.tiles or ((o.tile,) if o.tile is not None else ())


def match_input(text: str, options: Sequence[Option], *, numbers: bool = True) -> Option:
    """The option a typed answer means; ``ValueError`` (a message for the player) if none or several.

    Accepted: a menu number (``numbers``); a tile in any notation (``5m``,
    ``五万``, ``中``: that tile's discard, or the one option on that tile);
    a kind (``胡``, ``碰``, ``吃``, ``杠``, ``过`` or ``h``/``p``/``c``/``g``/``x``),
    optionally followed by tiles to pick among several (``吃 345m``, ``杠 东``);
    or an option's own text (what a plugin named it).
    """
    s = text.strip()
    if not s:
        raise ValueError("empty answer")
    if numbers and s.isdigit():
        # isdecimal and a bounded length: '²' is a digit int() refuses, and int() of
        # thousands of digits raises; either is an answer asked again.
        if not s.isdecimal() or len(s) > 6:
            raise ValueError(f"no option {s[:12]!r} (1–{len(options)})")
        n = int(s)
        if 1 <= n <= len(options):
            return options[n - 1]
        raise ValueError(f"no option {n} (1–{len(options)})")
    by_text = [o for o in options if o.text and (s == o.text or s.lower() == o.kind.lower())]
    if len(by_text) == 1:
        return by_text[0]
    kind = None
    rest = s
    for word in sorted(_WORD_KIND, key=len, reverse=True):
        if s.lower().startswith(word) and (len(s) == len(word) or not s[len(word)].isascii()
                                           or not s[len(word)].isalpha()):
            kind, rest = _WORD_KIND[word], s[len(word):].strip()
            break
    if kind is None:
        kinds = {o.kind for o in options}
        if s.lower() in kinds:
            kind, rest = s.lower(), ""
    tiles: list[Tile] = []
    if rest:
        try:
            tiles = parse_tiles(rest)
        except TileParseError as e:
            raise ValueError(f"{rest!r}: {e}") from None
    pool = [o for o in options if kind is None or o.kind == kind]
    if kind is None and len(tiles) == 1:
        # A tile alone: its discard first, else the option on it.
        discards = [o for o in pool if o.kind == "discard" and o.tile == tiles[0]]
        pool = discards or [o for o in pool if tiles[0] in option_tiles(o)]
    elif tiles:
        want = sorted(tiles)
        pool = [o for o in pool if sorted(option_tiles(o)) == want
                or (len(want) == 1 and want[0] in option_tiles(o))]
    if len(pool) == 1:
        return pool[0]
    if not pool:
        what = " ".join(tile_name(t) for t in tiles) if tiles else s
        raise ValueError(f"{what}: not one of the options")
    raise ValueError(f"{s}: several options match; say which (e.g. 吃 345m)")


# Option kinds that take a discard into a meld: shown as buttons even though they name several tiles.
MELD_OPTION_KINDS = frozenset({"chow", "pung", "kong", "win"})


def tile_sets(options: Sequence[Option], held: Sequence[Tile]) -> dict[tuple[Tile, ...], Option]:
    """Options that are a choice of several of one's own tiles (an exchange, a plugin's), by sorted tiles.

    Such a decision may have hundreds of options: the player picks the tiles in the hand
    instead of reading a list."""
    out: dict[tuple[Tile, ...], Option] = {}
    for o in options:
        if len(o.tiles) > 1 and o.kind not in MELD_OPTION_KINDS and _within(o.tiles, held):
            out.setdefault(tuple(sorted(o.tiles)), o)
    return out


def _within(tiles: Sequence[Tile], held: Sequence[Tile]) -> bool:
    rest = list(held)
    for t in tiles:
        if t not in rest:
            return False
        rest.remove(t)
    return True


_DIRECTION_WORDS = {"right": "下家", "across": "对家", "left": "上家"}
_ENGINE_PROMPTS = [  # the engine's own questions (play/game.py), as players say them
    (re.compile(r"pass (\d+) tiles to the (right|across|left)"),
     lambda m: f"换 {m.group(1)} 张给{_DIRECTION_WORDS[m.group(2)]}"),
    (re.compile(r"declare a void suit"), lambda m: "选一门不要 (缺门)"),
]


def prompt_words(decision: Any) -> str:
    """A decision's question as the table says it: the engine's own in players' words; a
    plugin's as the plugin wrote it."""
    text = decision.prompt or ""
    for pattern, say in _ENGINE_PROMPTS:
        text = pattern.sub(say, text)
    return text


# -- 听: waits and unseen tiles ----------------------------------------------------------------


def ready_waits(ev: Any, concealed: Sequence[Tile], melds: Sequence[Meld], *, seat: int, dealer: int,
                players: int, wildcard: Tile | None) -> list[Tile]:
    """The tiles that complete this hand (``hand.size`` held, less 3 per meld): the engine's own waits.

    A tile counts if it wins by self-draw, or on a discard where the ruleset
    allows that (:meth:`Evaluator.waits` in each of those contexts).
    """
    found: set[Tile] = set()
    for win_by in ("self_draw", "discard"):
        if not ev.ruleset.win.allows(win_by):
            continue
        ctx = WinContext(seat=seat, win_by=win_by, dealer=dealer,
                         discarder=None if win_by == "self_draw" else (seat + players - 1) % players)
        found.update(ev.waits(list(concealed), list(melds), ctx, wildcard))
    return sorted(found)


# -- the table, as one seat sees it ----------------------------------------------------------------

# Events that mean play went on after a win (the winner's tile then left play).
_PLAY_GOES_ON = frozenset({"draw", "discard", "claim", "kong", "flower"})

SEAT_WORDS = ("你", "下家", "对家", "上家")
WATCH_WORDS = ("东家", "南家", "西家", "北家")
KONG_WORDS = MELD_WORDS


@dataclass
class SeatView:
    """One seat: its river, melds (``None`` tiles: face down), and concealed tiles where known."""

    hand: list[Tile] | None = None  # known concealed tiles (the viewer's own; everyone's for a spectator)
    hidden: int = 0  # concealed tiles that are not known
    melds: list[tuple[str, tuple[Tile | None, ...]]] = field(default_factory=list)
    river: list[Tile] = field(default_factory=list)
    total: int = 0  # the running total over the session
    flowers: list[Tile] = field(default_factory=list)  # flowers and seasons laid aside, face up
    won: list[Tile] = field(default_factory=list)  # tiles won on and set aside (play went on)
    wins: int = 0  # wins this hand (several in a ruleset that plays on after a win)
    out: bool = False  # won and left the hand (``win.after_win: leave``)
    declared: dict[str, Any] = field(default_factory=dict)  # public declarations: void_suit, ready

    @property
    def held(self) -> int:
        return (len(self.hand) if self.hand is not None else 0) + self.hidden


@dataclass
class WinView:
    """A win as shown: who, how, the reading, patterns, points and the payments with reasons."""

    seat: int
    win_by: str
    tile: Tile
    from_seat: int | None
    patterns: list[str]
    points: int
    call: str | None = None
    concealed: list[Tile] = field(default_factory=list)
    melds: list[Meld] = field(default_factory=list)
    groups: list[str] = field(default_factory=list)  # the reading, group by group
    wildcards: list[str] = field(default_factory=list)  # what each 王 stood for
    scored: list[tuple[str, int, int]] = field(default_factory=list)  # (pattern, points, times)
    payments: list[dict[str, Any]] = field(default_factory=list)  # settlement items
    net: list[int] = field(default_factory=list)


class TableState:
    """A hand (and the session's totals) as ``viewer`` sees it; feed it every event.

    ``viewer`` is an absolute seat, or ``None`` for a spectator (every hand
    shown). ``recorder`` (a :class:`ScoreRecorder`) lets a win show its
    reading; ``copies`` is how many of each tile the set has (for unseen counts).
    """

    def __init__(self, players: int, viewer: int | None, *, copies: int = 4,
                 recorder: ScoreRecorder | None = None, stand_in: Callable[[Tile | None], Tile | None]
                 | None = None, calls_kept: int = 6, after_win: str = "end") -> None:
        self.players = players
        self.after_win = after_win  # the ruleset's win.after_win: end | leave | stay
        self.viewer = viewer
        self.copies = copies
        self.recorder = recorder
        self._stand_in = stand_in
        self.seats = [SeatView() for _ in range(players)]
        self.calls: deque[str] = deque(maxlen=calls_kept)
        self.hands_played = 0
        self._new_hand()

    def _new_hand(self) -> None:
        self.hand_no = 0
        self.ruleset = ""
        self.dealer = 0
        self.hand_size = 13  # tiles held between turns (`hand.size`; the hand_start event says so)
        self.wildcard: Tile | None = None
        self.indicator: Tile | None = None
        self.drawn: Tile | None = None  # the viewer's drawn tile, kept apart from the hand
        self.turn: int | None = None
        self.last_discard: tuple[int, Tile] | None = None
        self.wall_left: int | None = None  # live tiles left: set by whoever runs the game
        # The hand's prevalent wind (圈风; None when the ruleset has no `winds`): set by whoever
        # runs the game from its Game.prevalent_wind (by hands or by the deal's passes).
        self.prevalent: Tile | None = None
        self.wins: list[WinView] = []
        self.other_settlements: list[dict[str, Any]] = []  # opening, kongs on a draw, plugins'
        self.net = [0] * self.players
        self.result: str | None = None  # win | draw | abandon, when the hand is over
        self.next_dealer: int | None = None
        self.reason = ""
        self.leaves: list[Event] = []  # players who left the table this hand (their penalty is settled)
        # A plugin's events told right after a win or an opening declaration, before its
        # settlement (tiles flipped to multiply it, say): their text, seats said as the viewer does.
        self.told_at_wins: list[str] = []
        self._previous = ""  # the type of the event before this one
        # wins whose tile leaves play if play goes on (win.after_win: leave | stay)
        self._aside: list[tuple[int, Tile, str, int | None]] = []
        for s in self.seats:
            s.hand, s.hidden, s.melds, s.river = None, 0, [], []
            s.flowers, s.won, s.wins, s.out, s.declared = [], [], 0, False, {}

    # -- names --------------------------------------------------------------------

    def name(self, seat: int) -> str:
        if self.players != 4:
            return "你" if seat == self.viewer else f"座{seat}"
        if self.viewer is None:
            return WATCH_WORDS[seat]
        return SEAT_WORDS[(seat - self.viewer) % 4]

    def seat_wind(self, seat: int) -> Tile | None:
        """``seat``'s own wind (门风: the dealer's is 东, then round the table), or None when
        the ruleset has no winds (no prevalent wind was set)."""
        if self.prevalent is None:
            return None
        return HONOR_BASE + (seat - self.dealer) % self.players

    def winds_text(self) -> str:
        """``圈风 东   门风 你 南 · 下家 西 · …``, or "" when the ruleset has no winds."""
        if self.prevalent is None:
            return ""
        seats = " · ".join(f"{self.name(s)} {tile_name(self.seat_wind(s) or 0)}" for s in range(self.players))
        return f"圈风 {tile_name(self.prevalent)}   门风 {seats}"

    def knows(self, seat: int) -> bool:
        return self.viewer is None or seat == self.viewer

    # -- events -------------------------------------------------------------------------

    def feed(self, event: Event) -> None:
        """Take one event (masked here for the viewer)."""
        e = view_for(event, self.viewer)
        t = e["type"]
        if self._aside and t in _PLAY_GOES_ON:
            self._set_aside()
        handler = getattr(self, "_on_" + t, None)
        if handler is not None:
            handler(e)
        elif e.get("text") and self._previous in ("win", "opening_win") and t not in ("dice", "call"):
            self.told_at_wins.append(seat_words_in(str(e["text"]), self.viewer, self.players))
        self._previous = t
        if t == "call" and e.get("text"):
            who = self.name(e["seat"]) if isinstance(e.get("seat"), int) else ""
            self.calls.append(f"{who}「{e['text']}」" if who else f"「{e['text']}」")

    def _on_hand_start(self, e: Event) -> None:
        self._new_hand()
        self.hand_no, self.ruleset, self.dealer = e["hand"], e["ruleset"], e["dealer"]
        self.hand_size = int(e.get("hand_size") or 13)  # tiles held (`hand.size`)
        self.calls.clear()

    def _on_deal(self, e: Event) -> None:
        for s, hand in enumerate(e["hands"]):
            sv = self.seats[s]
            if hand is not None and self.knows(s) and all(c is not None for c in hand):
                sv.hand = sorted(parse_tile(c) for c in hand)
            elif hand is not None:
                sv.hidden = len(hand)
            else:  # masked: the deal gives the dealer one more than the others (13: 14)
                sv.hidden = self.hand_size + (s == self.dealer)
        self.turn = self.dealer

    def _on_wildcard(self, e: Event) -> None:
        self.wildcard = parse_tile(e["wildcard"])
        self.indicator = parse_tile(e["indicator"]) if e.get("indicator") else None  # none: fixed wildcards

    def _on_flower(self, e: Event) -> None:
        """A flower laid aside face up (its replacement is the next ``draw``)."""
        tile = parse_tile(e["tile"])
        self._take(e["seat"], [tile])
        self.seats[e["seat"]].flowers.append(tile)

    def _on_exchange(self, e: Event) -> None:
        """Tiles passed before play: the viewer sees what it gave and got; others' counts stay."""
        given, got = e.get("given") or [], e.get("received") or []
        for s, sv in enumerate(self.seats):
            if s < len(given) and given[s] is not None and s < len(got) and got[s] is not None:
                self._take(s, [parse_tile(c) for c in given[s]])
                if sv.hand is not None:
                    sv.hand = sorted(sv.hand + [parse_tile(c) for c in got[s]])
                else:
                    sv.hidden += len(got[s])

    def _on_declare(self, e: Event) -> None:
        self.seats[e["seat"]].declared[e["what"]] = e.get("value")


    def _set_aside(self) -> None:
        """Play went on after a win: the winning tile left play with the winner (docs/events.md)."""
        for seat, tile, win_by, from_seat in self._aside:
            if win_by == "discard" and from_seat is not None:
                river = self.seats[from_seat].river
                if river and river[-1] == tile:
                    river.pop()
            elif win_by == "self_draw":
                self._take(seat, [tile])
            self.seats[seat].won.append(tile)
            if self.after_win == "leave":
                self.seats[seat].out = True
        self._aside = []

    def _take(self, seat: int, tiles: Sequence[Tile | None]) -> None:
        sv = self.seats[seat]
        for t in tiles:
            if sv.hand is not None and t is not None and t in sv.hand:
                sv.hand.remove(t)
            elif sv.hidden:
                sv.hidden -= 1
        if seat == self.viewer or self.viewer is None:
            self.drawn = None

    def _on_draw(self, e: Event) -> None:
        sv = self.seats[e["seat"]]
        tile = parse_tile(e["tile"]) if e.get("tile") else None
        if tile is not None and sv.hand is not None:
            sv.hand.append(tile)
            sv.hand.sort()
        else:
            sv.hidden += 1
        if e["seat"] == self.viewer or (self.viewer is None and tile is not None):
            self.drawn = tile
        self.turn = e["seat"]

    def _on_discard(self, e: Event) -> None:
        tile = parse_tile(e["tile"])
        self._take(e["seat"], [tile])
        self.seats[e["seat"]].river.append(tile)
        self.last_discard = (e["seat"], tile)
        self.turn = e["seat"]

    def _on_claim(self, e: Event) -> None:
        tiles = [parse_tile(c) for c in e["tiles"]]
        river = self.seats[e["from_seat"]].river
        claimed = river.pop() if river else None
        used = list(tiles)
        if claimed in used:
            used.remove(claimed)
        self._take(e["seat"], used)
        self.seats[e["seat"]].melds.append((e["kind"], tuple(tiles)))
        self.turn = e["seat"]
        self.last_discard = None

    def _on_kong(self, e: Event) -> None:
        sv = self.seats[e["seat"]]
        tile = parse_tile(e["tile"]) if e.get("tile") else None
        if e["kind"] == KongKind.CONCEALED:
            self._take(e["seat"], [tile] * 4)
            sv.melds.append((MeldKind.CONCEALED_KONG, (tile,) * 4))
        else:
            assert tile is not None
            self._take(e["seat"], [tile])
            for i, (kind, ts) in enumerate(sv.melds):
                if kind == MeldKind.PUNG and ts[0] == tile:
                    sv.melds[i] = (MeldKind.ADDED_KONG, (tile,) * 4)
                    break
        self.turn = e["seat"]

    def _on_reveal(self, e: Event) -> None:
        """A face-down meld turned up at the hand's end."""
        tiles = tuple(parse_tile(c) for c in e.get("tiles", []))
        melds = self.seats[e["seat"]].melds
        for i, (kind, ts) in enumerate(melds):
            if kind == e.get("kind") and (not ts or None in ts):
                melds[i] = (kind, tiles)
                break

    def _on_win(self, e: Event) -> None:
        seat = e["seat"]
        w = WinView(seat, e["win_by"], parse_tile(e["tile"]), e.get("from_seat"), list(e.get("patterns", [])),
                    int(e.get("points", 0)), e.get("call"))
        rec = self.recorder.last_win.get(seat) if self.recorder is not None else None
        if rec is not None:
            hand, score = rec
            if score.pattern_names == w.patterns:
                w.concealed, w.melds = sorted(hand.concealed), list(hand.melds)
                stand = self._stand_in(self.wildcard) if self._stand_in is not None else None
                w.groups, w.wildcards = reading_parts(score, stand)
                w.scored = [(p.name, p.points, p.times) for p in score.patterns]
        if not w.scored:
            w.scored = [(p, 0, 1) for p in w.patterns]
        self.wins.append(w)
        self.seats[seat].wins += 1
        if self.after_win != "end":
            self._aside.append((seat, w.tile, w.win_by, w.from_seat))

    def _on_settlement(self, e: Event) -> None:
        pays = list(e["payments"])
        self.net = [a + b for a, b in zip(self.net, pays, strict=False)]
        for s, p in zip(self.seats, pays, strict=False):
            s.total += p
        if self.wins and not self.wins[-1].net:
            self.wins[-1].payments = list(e.get("items", []))
            self.wins[-1].net = pays
        else:
            self.other_settlements.append(e)

    def _on_abandon(self, e: Event) -> None:
        self.reason = e.get("reason", "")

    def _on_hand_end(self, e: Event) -> None:
        self.result = e["result"]
        self.next_dealer = e.get("next_dealer")
        self._aside = []
        if e["result"] != "abandon":
            self.hands_played += 1

    def _on_leave(self, e: Event) -> None:
        self.leaves.append(e)

    def reveal(self, seat: int, concealed: Sequence[Tile], melds: Sequence[Meld]) -> None:
        """At the hand's end every hand is shown, concealed kongs included."""
        sv = self.seats[seat]
        sv.hand, sv.hidden = sorted(concealed), 0
        sv.melds = [(m.kind if m.kind != "kong" else "kong", tuple(m.tiles)) for m in melds]

    # -- what the viewer knows ---------------------------------------------------------

    def visible_count(self, tile: Tile) -> int:
        """Copies of ``tile`` the viewer can see: own hand, every river and face-up meld, the indicator."""
        n = 0
        for s, sv in enumerate(self.seats):
            n += sv.river.count(tile) + sv.won.count(tile)
            n += sum(ts.count(tile) for _, ts in sv.melds)
            if s == self.viewer and sv.hand is not None:
                n += sv.hand.count(tile)
        if self.indicator == tile:
            n += 1
        return n

    def unseen(self, tile: Tile) -> int:
        return max(0, self.copies - self.visible_count(tile))


def seat_word(seat: int, viewer: int | None, players: int = 4) -> str:
    """下家 / 对家 / 上家 relative to ``viewer`` (东家 … for a spectator)."""
    if players != 4:
        return f"座{seat}"
    return WATCH_WORDS[seat] if viewer is None else SEAT_WORDS[(seat - viewer) % 4]


# A plugin's text names a seat as ``{seat:N}`` (docs/plugins.md); ``座N`` is read the same way.
_SEAT_REF = re.compile(r"\{seat:(\d+)\}|座(\d)")


def seat_words_in(text: str, viewer: int | None, players: int = 4) -> str:
    """A plugin's text names seats absolutely (``{seat:2}``, or ``座2``); say them as the viewer
    does (下家 …)."""
    def word(m: re.Match[str]) -> str:
        n = int(m.group(1) or m.group(2))
        return seat_word(n, viewer, players) if n < players and players == 4 else m.group(0)

    return _SEAT_REF.sub(word, text)


# Settlement reasons the engine writes in English (kong payments, leaving), as players say them.
REASON_WORDS = {**{m.payment_key: KONG_WORDS[m] for m in KONG_MELDS}, "leave": "离桌"}


def is_win_item(item: dict[str, Any]) -> bool:
    """A settlement item paying for a win's patterns (not a kong, a refund or a leaver's penalty)."""
    return item.get("reason", "").partition(" ")[0] not in REASON_WORDS


# The sides of a payment that scoring.multipliers / scoring.bonuses name (docs/pattern-language.md).
TERM_WORDS = {"dealer": "庄家", "discarder": "放炮", "self_draw": "自摸"}


def payment_terms(scoring: Any, *, dealer: int, winner: int, payer: int, discarder: int | None,
                  win_by: str) -> list[str]:
    """Why a payer pays a win more than its base: each multiplier and bonus of the ruleset that
    applies to this payer (``庄家 ×2``, ``庄家 +1``, ``自摸 +1``), as the settlement computes them
    (:func:`mjframework.settle.settlement.win_plan`)."""
    applies = {"dealer": dealer in (payer, winner), "discarder": payer == discarder,
               "self_draw": win_by == "self_draw"}
    out = [f"{TERM_WORDS.get(k, k)} ×{m}" for k, m in scoring.multipliers.items()
           if applies.get(k) and m != 1]
    if scoring.dealer_bonus and applies["dealer"]:
        out.append(f"{TERM_WORDS['dealer']} +{scoring.dealer_bonus}")
    out += [f"{TERM_WORDS.get(k, k)} +{b}" for k, b in scoring.bonuses.items() if applies.get(k) and b]
    if scoring.each_pays:
        out.append(f"底 +{scoring.each_pays}")  # every other player pays it on every win
    return out


def reason_words(reason: str) -> str:
    """A payment's reason for players: ``kong`` → 点杠 (pattern names and plugins' words unchanged)."""
    head, sep, tail = reason.partition(" ")
    return REASON_WORDS.get(head, head) + sep + tail


def payment_reason(item: Mapping[str, Any], name: Callable[[int], str]) -> str:
    """A settlement item's reason for players (:func:`reason_words`); a liable payer's (包,
    ``scoring.liable``: the item's ``for_seat``) says whose share it pays: ``自摸  包 (代对家付)``.
    ``name``: a seat's name as the viewer calls it."""
    reason = str(item.get("reason", ""))
    whose = item.get("for_seat")
    if whose is None:
        return reason_words(reason)
    return f"{reason_words(reason.removesuffix(f' (for seat {whose})'))}  包 (代{name(whose)}付)"
