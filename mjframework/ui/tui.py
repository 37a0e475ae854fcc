"""``mj play``'s full-screen table, on Textual (the optional ``tui`` extra).

The table shows the four seats — rivers (discard ponds), melds (another
seat's concealed kong face down until the hand ends), scores, the dealer
(庄) — with the wildcard (王) and its indicator and the live wall's count at
the top, the calls (报牌) as a status line, and your hand at the bottom,
sorted, the drawn tile apart.

Playing: ←/→ pick a tile, Enter discards it; or type a tile in any notation
(``5m``, ``五万``, ``中``: it is picked) and Enter. Other choices (胡, 碰, 吃,
杠, 过, a plugin's own) are buttons with keys (``h``, ``p``, ``c``, ``g``,
``x`` …); on a claim ←/→ move between them. 听 shows when your hand is
ready, with the waits and how many of each you have not seen; on your turn
it shows what the picked discard would leave you waiting on. At a win: the
reading (what each 王 stood for), the patterns and points, each payment with
its reason (the ruleset's multipliers and bonuses that apply to the payer
included) and what a plugin told with the win (tiles flipped to multiply
it, say), and the totals; Enter goes on. A choice of
several of one's own tiles (an exchange, a plugin's) is made in the hand: ←/→ and
space on each tile, Enter when they make a choice, or type them. Flowers are
laid aside by their seat; each seat shows its counters (flowers, wins, 已离场,
缺, 报听). ``q`` asks first, then leaves the table (the ruleset's ``leave``
rule); a failure closes the table and ``mj play`` exits 1 saying why.
``--lang en``: every piece of text passes :mod:`mjframework.ui.words`.

How it fits: no thread. The hand is the engine's generator
(:meth:`~mjframework.play.game.Game.steps`, every seat played from outside),
stepped by an async worker on the screen's own event loop (:class:`Session`):
a built-in bot's decision is answered at once; a program or a trained policy
seated by ``--bot`` (as in the line mode) thinks on a worker thread while the
screen goes on taking keys and drawing; the person's
:class:`~mjframework.play.players.Decision` is shown and awaited, so any option a
plugin offers shows as a button. What is drawn comes from a
:class:`~mjframework.ui.table.TableState` fed by the events as the viewer may
see them, and is drawn once per stop (the person's decision, a paced bot's move,
the hand's end), not once per event. ``--watch`` is the same table with four
bots (every hand face up), paced by ``--speed`` (``+``/``-`` change it,
space pauses).
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from rich.cells import cell_len
from rich.text import Text
from textual.app import App, ComposeResult
from textual.containers import Grid, Horizontal, Vertical
from textual.events import Key
from textual.widgets import Button, Static

from ..core.errors import MJError
from ..core.tiles import Tile, TileParseError, is_flower, parse_tile, parse_tiles, tile_name
from ..play.events import Event
from ..play.players import SUIT_NAMES, Decision, Option, TableView
from .human import PACED, Announcer, InputEnded, Speaker, option_label, ruleset_words
from .table import (
    KONG_WORDS,
    ScoreRecorder,
    TableState,
    is_win_item,
    match_input,
    payment_reason,
    payment_terms,
    prompt_words,
    ready_waits,
    tile_sets,
)
from .words import Words

# Keys for option buttons: a mnemonic per kind first, then these.
KIND_KEYS = {"win": "h", "pung": "p", "chow": "c", "kong": "g", "pass": "x"}
SPARE_KEYS = "abefijklmnorstuvwyz"
WIN_WORDS = {"self_draw": "自摸", "discard": "点炮", "robbed_kong": "抢杠"}
BACK = "▇▇"  # a face-down tile


def _tile_text(t: Tile | None, wildcard: Tile | None, style: str = "") -> Text:
    if t is None:
        return Text(BACK, style="grey50")
    if wildcard is not None and t == wildcard:
        return Text(tile_name(t) + "*", style=("bold yellow " + style).strip())
    suit_style = ("red", "blue", "green", "bold")[min(t // 9, 3)]
    return Text(tile_name(t), style=(suit_style + " " + style).strip())


def _tiles_text(tiles: Any, wildcard: Tile | None, sep: str = " ") -> Text:
    out = Text()
    for i, t in enumerate(tiles):
        if i:
            out.append(sep)
        out.append_text(_tile_text(t, wildcard))
    return out


def _melds_text(melds: Any, wildcard: Tile | None) -> Text:
    out = Text()
    for kind, tiles in melds:
        if out:
            out.append("  ")
        out.append(KONG_WORDS.get(kind, kind) + "[")
        out.append_text(_tiles_text(tiles, wildcard))
        out.append("]")
    return out


@dataclass
class Pending:
    """A decision on screen: the options split into hand tiles and buttons, and 听 per discard."""

    decision: Decision
    hand: list[Tile]  # sorted, the drawn tile removed
    drawn: Tile | None
    discards: dict[Tile, Option]  # tile → its discard option
    buttons: list[tuple[str, Option]]  # (key, option)
    waits_after: dict[Tile, list[Tile]] = field(default_factory=dict)  # discard → waits then
    sets: dict[tuple[Tile, ...], Option] = field(default_factory=dict)  # picked tiles → option
    chosen: list[int] = field(default_factory=list)  # positions in :attr:`tiles` picked (sets)

    @property
    def set_size(self) -> int:
        return len(next(iter(self.sets))) if self.sets else 0

    def chosen_set(self) -> Option | None:
        """The option the picked tiles make, if they make one."""
        return self.sets.get(tuple(sorted(self.tiles[i] for i in self.chosen)))

    @property
    def tiles(self) -> list[Tile]:
        """The hand as shown, left to right (the drawn tile last)."""
        return self.hand + ([self.drawn] if self.drawn is not None else [])

    @property
    def buttons_mode(self) -> bool:
        """No hand tile to pick (a claim, a plugin's question): ←/→ move among the buttons."""
        return not self.discards and not self.sets

    def pickable(self, t: Tile) -> bool:
        return t in self.discards or any(t in k for k in self.sets)


class _Quit(Exception):
    """The watcher pressed q: the hand stops at its next step."""


class TableSeat:
    """The human seat: its decisions go to the screen, which answers through :attr:`answers`."""

    def __init__(self, app: TableApp, seat: int) -> None:
        self.app = app
        self.seat = seat
        self.answers: asyncio.Queue[Option | None] = asyncio.Queue()
        self.stopped = False

    async def decide(self, view: TableView, decision: Decision) -> Option:
        """Show ``decision`` and wait (on the screen's loop) for the answer; ``q`` leaves."""
        if self.stopped:  # q was pressed while the bots moved: leave now
            raise InputEnded("quit")
        self.app.show_decision(self.app.session.pending_for(view, decision))
        answer = await self.answers.get()
        if answer is None:
            self.stopped = True
            raise InputEnded("quit")
        return answer


def _value_key(o: Option) -> str | None:
    """A one-letter value is its own key (a void suit: ``m`` 万, ``p`` 筒, ``s`` 索); never ``q`` (leave)."""
    v = o.value
    return v if isinstance(v, str) and len(v) == 1 and v.isalpha() and v.islower() and v != "q" else None


def assign_keys(options: list[Option]) -> list[tuple[str, Option]]:
    """A key per option: the kind's mnemonic (h 胡, p 碰, c 吃, g 杠, x 过) where free, else a spare.

    Past the spare keys an option has no key (``""``): it is still reached with ←/→, a click,
    or by typing it (its tiles, its kind, its text), so a decision may offer any number."""
    used: set[str] = set()
    out = []
    for o in options:
        key = KIND_KEYS.get(o.kind) or _value_key(o)
        if key is None or key in used:
            key = next((k for k in SPARE_KEYS if k not in used), "")
        used.add(key)
        out.append((key, o))
    return out


class Session:
    """The hands of one ``mj play`` session, driven from the screen's own event loop.

    No thread: each hand is :meth:`Game.steps` (every seat :data:`OUTSIDE`), stepped by
    :meth:`play` in an async worker of the :class:`TableApp`. A bot's decision is
    answered right there, the person's is awaited from the screen. Every event updates
    the model (:class:`TableState`, the narration, 听) at once, while the engine is at that
    event; the screen is redrawn once per stop — the person's decision, the hand's end, or
    (paced, ``speed`` > 0) each step, with the pause after a bot's move. So the bots' turns between two
    of the person's actions cost no frame each (benchmarks/bench_table.py)."""

    def __init__(self, app: TableApp, ruleset_ref: str, *, seed: int, hands: int, watch: bool,
                 speak: bool, speed: float, options: dict[str, Any] | None = None,
                 preset: str | None = None, lang: str = "zh",
                 externals: dict[int, Any] | None = None) -> None:
        from ..run.simulate import load_cached

        self.app = app
        self.rs, ev = load_cached(ruleset_ref, options or (), preset)
        self.recorder = ScoreRecorder(ev)
        self.seed, self.hands, self.watch = seed, hands, watch
        self.speed = speed
        self.viewer: int | None = None if watch else 0
        self.state = TableState(self.rs.players, self.viewer, copies=self.rs.tileset.copies,
                                recorder=self.recorder, stand_in=ev.stand_in_for,
                                after_win=self.rs.win.after_win)
        self.words = Words(lang, ruleset_words(self.rs))  # the table's language
        self.error: str | None = None  # what stopped the table, if something failed
        self.failures: list[str] = []  # why hands were abandoned (a plugin, a player's program)
        self.log: deque[str] = deque(maxlen=200)
        self.announcer = Announcer(self.log.append, self.viewer, self.rs.players)
        self.announcer.recorder = self.recorder
        if speak:
            self.announcer.speaker = Speaker()
        self.human = TableSeat(app, 0)
        self.bots: list[Any] = []  # this hand's bots (the person's seat's unused)
        self.game: Any = None
        self._wall_up = False
        self._told = False  # an event happened since the last stop
        self._moved = False  # a paced move to show happened since the last stop
        self.events: list[Event] = []  # this hand's events, as the engine told them
        self.waits: list[Tile] = []  # the viewer's waits while holding 13 (less 3 per meld)
        self.totals = [0] * self.rs.players
        self.played = 0
        self.quit = asyncio.Event()  # q pressed (or the table failed)
        self.running = asyncio.Event()  # cleared: paused (watch)
        self.running.set()
        self.go_on: asyncio.Queue[bool] = asyncio.Queue()  # after a hand: continue (True) or stop
        self.record: Any = None  # an extra event sink (the records file: mj play's --records)
        # External programs and trained policies (``--bot``) by seat: they sit, hear events and
        # decide as in the line mode (ui/human.play_session); the caller opens and closes them.
        self.externals: dict[int, Any] = dict(externals or {})
        # A seated program or policy decides on this thread, off the screen's loop: a slow one
        # never freezes the screen. One worker: decisions stay in order, one at a time. (The
        # built-in bots answer on the loop: a few ms, less than the hop — benchmarks/README.md.)
        self.thinker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mj-bot")
        self.thinking = 0  # bot decisions under way off the loop (0 or 1)

    # -- the game, on the screen's event loop -------------------------------------------------

    async def run(self) -> None:
        """The hands, then the end. A failure is kept (``error``) and closes the table, so
        ``mj play`` says what went wrong and exits non-zero (no traceback)."""
        try:
            await self._run()
        except _Quit:
            pass
        except Exception as e:  # anything: the screen must close, the CLI report it
            self.error = f"{type(e).__name__}: {e}"
            self.quit.set()
            self.app.exit(None, 1)
        finally:  # a bot still thinking finishes on its thread (play_table closes the programs)
            self.thinker.shutdown(wait=False)

    async def _run(self) -> None:
        from ..play.events import fan_out
        from ..play.players import OUTSIDE
        from ..run.simulate import hand_series, make_bots

        rs = self.rs

        def seats(h: int) -> list[Any]:
            self.bots = make_bots(("greedy",) * rs.players, self.seed, 0, h)
            for s, bot in self.externals.items():
                bot.sit(s)
                self.bots[s] = bot
            return [OUTSIDE] * rs.players

        series = hand_series(rs, seats, seed=self.seed, hands=self.hands,
                             emit=fan_out(self.record, self.on_event, *self.externals.values()),
                             evaluator=self.recorder)
        game = next(series, None)
        h = 0
        while game is not None:
            try:
                result = await self.play(game)
            except _Quit:  # q pressed during the hand
                break
            self.totals = [sv.total for sv in self.state.seats]  # every settlement told, a leaver's too
            if self.human.stopped or self.quit.is_set():
                break
            if result.result == "abandon":  # not by the player's leaving: something failed
                self.failures.append(result.error or self.state.reason or "hand abandoned")
            self.played += result.result != "abandon"
            last = h == self.hands - 1
            if not self.app.hand_over(last):
                break
            if not last and not await self.go_on.get():
                break
            game = next_or_none(series, result)
            h += 1
        self.app.session_over()

    async def play(self, game: Any) -> Any:
        """Step one hand to its result: bots answer at once, the person from the screen."""
        self.game = game
        for bot in self.externals.values():
            if hasattr(bot, "attach"):  # a trained policy reads the table through its game
                bot.attach(game)
        self.waits = []
        self._told = self._moved = False
        steps = game.steps()
        me = self.viewer
        try:
            pending: Decision = next(steps)
            while True:
                await self._pause()
                answer: Option | None = None
                failed: Exception | None = None
                try:
                    if pending.seat == me:
                        answer = await self.human.decide(TableView(game, me), pending)
                    elif pending.seat in self.externals:  # a program or a policy: maybe slow
                        answer = await self._bot_decides(self.externals[pending.seat],
                                                         TableView(game, pending.seat), pending)
                    else:  # a built-in bot: a few ms, answered here (a thread hop costs more)
                        answer = self.bots[pending.seat].decide(TableView(game, pending.seat), pending)
                except Exception as e:  # the engine's rule: a player failing leaves the table
                    failed = e
                pending = steps.throw(failed) if failed is not None else steps.send(answer)
        except StopIteration as end:
            return end.value
        finally:
            steps.close()

    async def _bot_decides(self, bot: Any, view: TableView, decision: Decision) -> Option:
        """A bot's answer, thought on :attr:`thinker` while the screen's loop goes on (keys,
        redraws). The engine waits meanwhile — nothing steps the hand — so the bot reads a
        table that does not move; the events it hears come only when the hand steps again."""
        self.thinking += 1
        try:
            answer: Option = await asyncio.get_running_loop().run_in_executor(
                self.thinker, bot.decide, view, decision)
        finally:
            self.thinking -= 1
        return answer

    async def _pause(self) -> None:
        """Between two steps: stop if the spectator left; show a bot's move and wait ``speed``."""
        if self.watch and self.quit.is_set():
            raise _Quit()  # a spectator stops at once; a player leaves at their next decision
        if self.speed > 0 and self._told:  # paced: show each step as it happens
            self._told = False
            self.app.refresh_table()
            if self._moved:
                self._moved = False
                await asyncio.sleep(self.speed)
        await self.running.wait()
        if self.watch and self.quit.is_set():
            raise _Quit()

    def on_event(self, e: Event) -> None:
        """Every event of the hand, told while the engine is at it: update the model (the
        screen draws it at the next stop, :meth:`_pause` or the next decision)."""
        if e["type"] == "hand_start":
            self.events = []
        self.events.append(e)
        self.state.feed(e)
        self.announcer(e)  # it tells each event as the viewer sees it
        g = self.game
        if e["type"] == "hand_start":
            self._wall_up = False
            self.state.prevalent = g.prevalent_wind  # 圈风 (by hands or by the deal's passes)
        elif e["type"] == "wall":
            self._wall_up = True  # the wall is built and broken: it can be counted
        if self._wall_up:
            self.state.wall_left = g.wall.live_remaining()
        me = self.viewer
        t = e["type"]
        if t == "hand_end":
            for s, seat in enumerate(g.seats):  # every hand is shown at the end, concealed kongs too
                self.state.reveal(s, seat.hand, seat.melds)
        elif me is not None and (t in ("deal", "exchange") or (e.get("seat") == me and (
                t in ("discard", "claim", "kong") or (t == "draw" and e.get("source") == "flower")))):
            # 听 changes only when the hand does (a flower's replacement at the deal included)
            waits = self.waits_of(list(g.seats[me].hand))
            if waits is not None:
                self.waits = waits
        self._told = True
        if (self.watch or e.get("seat") != me) and t in PACED:
            self._moved = True

    def waits_of(self, concealed: list[Tile]) -> list[Tile] | None:
        """The viewer's waits with these concealed tiles; ``None`` when the hand cannot wait
        (only ``hand.size`` tiles — 13 —, less 3 per meld, with no flower still to lay aside, wait)."""
        me = self.viewer
        if me is None:
            return []
        g = self.game
        melds = list(g.seats[me].melds)
        if len(concealed) + 3 * len(melds) != self.rs.hand.size or any(is_flower(t) for t in concealed):
            return None
        return ready_waits(self.recorder, concealed, melds, seat=me, dealer=g.dealer,
                           players=self.rs.players, wildcard=g.wildcard)

    def pending_for(self, view: TableView, decision: Decision) -> Pending:
        hand = list(view.hand)
        drawn = decision.tile if decision.kind == "turn" and decision.tile in hand else None
        if drawn is not None:
            hand.remove(drawn)
        held = set(view.hand)
        discards = {o.tile: o for o in decision.options
                    if o.kind == "discard" and o.tile is not None and o.tile in held}
        sets = tile_sets(decision.options, view.hand)
        chosen = set(sets.values())
        others = [o for o in decision.options if o not in discards.values() and o not in chosen]
        p = Pending(decision, hand, drawn, discards, assign_keys(others), sets=sets)
        full = list(view.hand)
        for t in discards:
            rest = list(full)
            rest.remove(t)
            p.waits_after[t] = self.waits_of(rest) or []
        return p


def next_or_none(series: Any, result: Any) -> Any:
    """The series' next hand after ``result``, or ``None`` when it has no more."""
    try:
        return series.send(result)
    except StopIteration:
        return None


class TableApp(App):
    """The full-screen table. ``speed``: seconds to pause after each bot's move."""

    TITLE = "mj play"
    CSS = """
    Screen { layout: vertical; }
    #top { height: 1; background: $boost; }
    #board { height: 1fr; grid-size: 3 3; grid-columns: 1fr 2fr 1fr; grid-rows: auto 1fr auto; }
    #center, #seat1, #seat3 { height: 100%; }
    #center { overflow-y: auto; }
    .seat { border: round $secondary; padding: 0 1; }
    .seat.turn { border: round $accent; }
    #center { border: round $panel; padding: 0 1; }
    .blank { }
    #bottom { height: auto; }
    #hand { height: 3; border: round $primary; padding: 0 1; }
    #ting { height: 1; }
    #calls { height: 1; color: $text-muted; }
    #actions { height: auto; min-height: 1; }
    #actions Button { min-width: 10; margin: 0 1 0 0; }
    #actions Button.picked { text-style: reverse; }
    #prompt { height: 1; background: $boost; }
    """

    def __init__(self, ruleset_ref: str, *, seed: int, hands: int = 1, watch: bool = False,
                 speak: bool = False, speed: float = 0.0, options: dict[str, Any] | None = None,
                 preset: str | None = None, lang: str = "zh",
                 externals: dict[int, Any] | None = None) -> None:
        super().__init__()
        self.session = Session(self, ruleset_ref, seed=seed, hands=hands, watch=watch, speak=speak,
                               speed=speed, options=options, preset=preset, lang=lang, externals=externals)
        self.pending: Pending | None = None
        self.pick = 0  # index into the hand (tiles mode) or the buttons
        self._shown_buttons: list[tuple[Button, Option]] = []
        self._button_labels: list[str] = []  # what the mounted buttons read
        self.typed = ""
        self.message = ""
        self.between_hands = False
        self.finished = False
        self.shown_ting = ""  # the 听 line as shown (plain text)
        self._texts: dict[str, Text] = {}  # what each Static shows (see _show)
        self.confirm_quit = False  # q pressed once: asking whether to leave
        self.decision_ready = asyncio.Event()  # set when a decision is on screen (tests wait on it)
        self.idle = asyncio.Event()  # set at the end of a hand / the session

    # -- layout --------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static(id="top")
        with Grid(id="board"):
            yield Static(classes="blank")
            yield Static(id="seat2", classes="seat")
            yield Static(classes="blank")
            yield Static(id="seat3", classes="seat")
            yield Static(id="center")
            yield Static(id="seat1", classes="seat")
            yield Static(classes="blank")
            yield Static(id="seat0", classes="seat")
            yield Static(classes="blank")
        with Vertical(id="bottom", classes="bottom"):
            yield Static(id="calls")
            yield Static(id="hand")
            yield Static(id="ting")
            yield Horizontal(id="actions")
            yield Static(id="prompt")

    def on_mount(self) -> None:
        rs = self.session.rs
        self.title = f"{rs.name} ({rs.id})"
        if self.session.watch:  # a spectator holds no hand: every hand is shown in its seat
            for wid in ("#hand", "#ting", "#actions"):
                self.query_one(wid).display = False
        self.refresh_table()
        self.run_worker(self.session.run(), exclusive=True, name="game")

    # -- drawing --------------------------------------------------------------------------------

    def _rel(self, k: int) -> int:
        """The absolute seat at relative position ``k`` (0 bottom, 1 right, 2 top, 3 left)."""
        v = self.session.viewer
        n = self.session.rs.players
        return ((0 if v is None else v) + k) % n

    def refresh_table(self) -> None:
        st = self.session.state
        rs = self.session.rs
        top = Text()
        top.append(f" {rs.name}  第 {st.hand_no + 1} 手", style="bold")
        if st.wildcard is not None:
            top.append("   王 ")
            top.append_text(_tile_text(st.wildcard, st.wildcard))
            if st.indicator is not None:
                top.append(" (翻 ")
                top.append_text(_tile_text(st.indicator, None))
                top.append(")")
        if st.prevalent is not None:
            top.append(f"   圈风 {tile_name(st.prevalent)}")
        top.append(f"   庄家 {st.name(st.dealer)}")
        top.append(f"   余牌 {st.wall_left if st.wall_left is not None else '-'}")
        if self.session.watch:
            paused = "  (暂停)" if not self.session.running.is_set() else ""
            top.append(f"   每步 {self.session.speed:.1f} 秒{paused}")
        self._show("#top", self._tr(top))
        for k in range(4):
            if k >= rs.players:
                self._show(f"#seat{k}", Text())
                continue
            s = self._rel(k)
            w = self._show(f"#seat{k}", self._tr(self._seat_text(s)))
            w.set_class(st.turn == s and st.result is None, "turn")
        self._show("#center", self._tr(self._center_text()))
        calls = Text("报牌 ", style="bold")
        calls.append("  ".join(st.calls) if st.calls else "—")
        self._show("#calls", self._tr(calls))
        self._draw_hand()

    # Widgets whose size the layout fixes (CSS heights, the grid's 1fr middle row): new text in
    # them never moves anything else.
    FIXED_SIZE = frozenset({"#top", "#calls", "#hand", "#ting", "#prompt", "#seat1", "#seat3"})

    def _show(self, wid: str, text: Text) -> Static:
        """Put ``text`` in widget ``wid`` unless it shows exactly that already.

        An update costs the screen a layout of every widget and a repaint even when nothing in
        it changed, so most widgets are skipped (a bot's move changes one seat and the centre),
        and new text is repainted without a layout when it cannot change the widget's size: a
        widget of fixed size, or text of as many lines as before, none wider than the widget
        (no wrapping), in a widget sized by its content (benchmarks/bench_table.py)."""
        w = self.query_one(wid, Static)
        old = self._texts.get(wid)
        # Text's == compares the characters and spans only: the whole-text style counts too.
        if old is None or old != text or old.style != text.style or old.end != text.end:
            self._texts[wid] = text
            w.update(text, layout=old is None or not (wid in self.FIXED_SIZE or self._same_height(
                old, text, w.content_size.width)))
        return w

    @staticmethod
    def _same_height(old: Text, new: Text, width: int) -> bool:
        """``new`` takes as many rows as ``old`` in ``width`` columns: as many lines, none wrapped."""
        lines = new.plain.split("\n")
        return (width > 0 and len(lines) == old.plain.count("\n") + 1
                and all(cell_len(line) <= width for line in [*lines, *old.plain.split("\n")]))

    def _seat_text(self, s: int) -> Text:
        st = self.session.state
        sv = st.seats[s]
        w = st.wildcard
        out = Text()
        out.append(st.name(s), style="bold")
        wind = st.seat_wind(s)
        if wind is not None:  # its own wind (门风), apart from the seat's name (东家 is a seat, not a wind)
            out.append(f" ({tile_name(wind)})")
        bot = self.session.externals.get(s)
        if bot is not None:  # a program or a trained policy seated by --bot: its name
            out.append(f" ‹{bot.name}›", style="italic")
        if s == st.dealer:
            out.append(" 庄", style="bold red")
        out.append(f"   {sv.total:+d}")
        out.append_text(self._counters(sv))
        out.append("\n")
        if sv.flowers:
            out.append("花 ")
            out.append_text(_tiles_text(sv.flowers, None))
            out.append("\n")
        if sv.melds:
            out.append("副露 ")
            out.append_text(_melds_text(sv.melds, w))
            out.append("\n")
        if s != st.viewer:
            if sv.hand is not None:
                out.append("手牌 ")
                out.append_text(_tiles_text(sv.hand, w))
                out.append("\n")
            elif sv.hidden:
                out.append(f"手牌 {sv.hidden} 张\n", style="grey50")
        out.append("河  ")
        last = st.last_discard
        for i, t in enumerate(sv.river):
            if i and i % 6 == 0:
                out.append("\n    ")
            elif i:
                out.append(" ")
            hot = last is not None and last[0] == s and i == len(sv.river) - 1
            out.append_text(_tile_text(t, w, "reverse" if hot else ""))
        return out

    @staticmethod
    def _counters(sv: Any) -> Text:
        """A seat's counters this hand: wins (several where play goes on), out, declarations."""
        out = Text()
        if sv.wins:
            out.append(f"   胡×{sv.wins}" if sv.wins > 1 else "   胡", style="bold green")
        if sv.out:
            out.append(" 已离场", style="grey50")
        if sv.declared.get("void_suit"):
            out.append(f"   缺{SUIT_NAMES.get(sv.declared['void_suit'], sv.declared['void_suit'])}",
                       style="bold")
        if sv.declared.get("ready"):
            out.append("   报听", style="bold magenta")
        if sv.flowers:
            out.append(f"   花×{len(sv.flowers)}")
        return out

    def _center_text(self) -> Text:
        st = self.session.state
        if st.result is not None:
            return self._result_text()
        out = Text()
        room = self.query_one("#center", Static).content_size.height or 12  # the newest lines that fit
        lines = [line for line in self.session.log if not line.startswith(("═", "─", "第 "))][-room:]
        out.append("\n".join(lines))
        return out

    def _result_text(self) -> Text:
        """The hand's end: each win with its reading, patterns, points and payments; the totals."""
        st = self.session.state
        w = st.wildcard
        out = Text()
        for e in st.leaves:
            fine = f"  罚 {e['penalty']}" if e.get("penalty") else ""
            out.append(f"{st.name(e['seat'])} 离开牌桌{fine}\n", style="bold")
        if not st.wins:
            out.append({"draw": "流局 (the wall is exhausted)", "abandon": f"本手作废 {st.reason}"}
                       .get(st.result or "", st.result or ""), style="bold")
            out.append("\n")
        for win in st.wins:
            out.append(f"{st.name(win.seat)} 胡 ", style="bold")
            out.append_text(_tile_text(win.tile, w))
            how = WIN_WORDS.get(win.win_by, win.win_by)
            if win.from_seat is not None and win.win_by == "discard":
                how = f"{st.name(win.from_seat)} 放炮"
            elif win.from_seat is not None:
                how = f"抢 {st.name(win.from_seat)} 的杠"
            out.append(f"  {how}")
            if win.call:
                out.append(f"  「{win.call}」")
            out.append("\n")
            if win.groups:
                out.append("读法 " + " ".join(win.groups) + "\n")
            if win.wildcards:
                out.append("王 作 " + "、".join(win.wildcards) + "\n")
            out.append("番型 " + "  ".join(
                f"{name} {pts}" + (f"×{times}" if times > 1 else "") for name, pts, times in win.scored)
                + f"   共 {win.points} 分\n")
            for item in win.payments:
                out.append(self._payment_line(item, win))
        for text in st.told_at_wins:  # a plugin's part of the payments (tiles flipped for a win …)
            out.append(text + "\n")
        for e in st.other_settlements:
            for item in e.get("items", []):
                out.append(self._payment_line(item))
        n = st.players
        out.append("本手 " + "  ".join(f"{st.name(s)} {st.net[s]:+d}" for s in range(n)) + "\n")
        out.append(f"总计 ({st.hands_played} 手) " + "  ".join(
            f"{st.name(s)} {st.seats[s].total:+d}" for s in range(n)) + "\n", style="bold")
        if st.next_dealer is not None:
            out.append(f"下一手庄家 {st.name(st.next_dealer)}\n")
        return out

    def _payment_line(self, item: dict[str, Any], win: Any = None) -> str:
        """``下家 → 你 20  <patterns> ×2 …  (庄家 +1)``: who pays whom, how much, and why."""
        st = self.session.state
        payee = st.name(item["payee"]) if item.get("payee") is not None else "—"
        why = payment_reason(item, st.name)
        if win is not None and is_win_item(item) and item.get("payee") == win.seat:
            terms = payment_terms(self.session.rs.scoring, dealer=st.dealer, winner=win.seat,
                                  payer=item["payer"], discarder=win.from_seat, win_by=win.win_by)
            if terms:
                why += f"  ({', '.join(terms)})"
        return f"  {st.name(item['payer'])} → {payee} {item['amount']}  {why}\n"

    def _hand_width(self) -> int:
        """The hand line's width in cells (the screen's, less the box's border and padding)."""
        return max(1, self.size.width - 4)

    def _hand_text(self, p: Pending, w: Tile | None, sep: str, gap: str) -> Text:
        """The hand, the picked tile reversed, the drawn tile ``gap`` apart, the others ``sep``."""
        hand = Text()
        tiles = p.tiles
        for i, t in enumerate(tiles):
            if p.drawn is not None and i == len(tiles) - 1:
                hand.append(gap)
            elif i:
                hand.append(sep)
            picked = not p.buttons_mode and i == self.pick
            style = "reverse" if picked else ("" if p.pickable(t) else "dim")
            if i in p.chosen:
                style += " underline bold"
            hand.append_text(_tile_text(t, w, style))
        return hand

    def _draw_hand(self) -> None:
        st = self.session.state
        p = self.pending
        w = st.wildcard
        hand = Text()
        ting = Text()
        me = st.viewer
        if p is not None:
            hand = self._hand_text(p, w, " ", "   ")
            if self._tr(hand).cell_len > self._hand_width():  # 17 tiles on 80 columns: written closer
                hand = self._hand_text(p, w, "", " ")
            sel = self._picked_tile()
            if p.sets:
                k = p.set_size
                chosen = [p.tiles[i] for i in sorted(p.chosen)]
                ting.append(f"{prompt_words(p.decision) or p.decision.kind}: 选 {k} 张 ", style="bold")
                ting.append_text(_tiles_text(chosen, w) if chosen else Text("—", style="grey50"))
                ting.append(f"  ({len(chosen)}/{k})")
                if len(chosen) == k and p.chosen_set() is None:
                    ting.append("  不能这样选", style="bold red")
            elif sel is not None and p.discards:
                after = p.waits_after.get(sel, [])
                ting.append(f"打 {tile_name(sel)} → ")
                if after:
                    ting.append_text(self._waits_text(after))
                else:
                    ting.append("—", style="grey50")  # not ready after this discard
            elif self.session.waits:
                ting.append_text(self._waits_text(self.session.waits))
            if p.decision.kind in ("claim", "rob") and p.decision.tile is not None:
                src = st.name(p.decision.from_seat) if p.decision.from_seat is not None else ""
                ting.append(f"   {src} {'打' if p.decision.kind == 'claim' else '加杠'} ")
                ting.append_text(_tile_text(p.decision.tile, w))
            elif p.decision.prompt and not p.sets:
                ting.append("   " + prompt_words(p.decision))
        elif me is not None and st.seats[me].hand is not None:
            hand.append_text(_tiles_text(st.seats[me].hand, w))
            if self._tr(hand).cell_len > self._hand_width():
                hand = _tiles_text(st.seats[me].hand, w, sep="")
            if self.session.waits and st.result is None:
                ting.append_text(self._waits_text(self.session.waits))
        self._show("#hand", self._tr(hand))
        ting = self._tr(ting)
        self._show("#ting", ting)
        self.shown_ting = ting.plain
        self._show("#prompt", self._tr(self._prompt_text()))

    def _tr(self, text: Text) -> Text:
        """``text`` in the table's language (:mod:`mjframework.ui.words`), piece by styled piece."""
        words = self.session.words
        if words.lang == "zh":
            return text
        cuts = sorted({x for span in text.spans for x in (span.start, span.end)} - {0, len(text)})
        out = Text(style=text.style, end=text.end)
        for piece in text.divide(cuts):
            start = len(out)
            out.append(words(piece.plain))
            for span in piece.spans:  # a piece lies inside or outside each span: it is styled whole
                out.stylize(span.style, start, len(out))
        return out

    def _waits_text(self, waits: list[Tile]) -> Text:
        st = self.session.state
        out = Text("听 ", style="bold magenta")
        for i, t in enumerate(waits):
            if i:
                out.append("  ")
            out.append_text(_tile_text(t, st.wildcard))
            out.append(f"({st.unseen(t)})")
        return out

    def _prompt_text(self) -> Text:
        out = Text()
        if self.message:
            out.append(self.message + "   ", style="bold red")
        if self.typed:
            out.append(f"输入: {self.typed}▏   ", style="bold")
        if self.confirm_quit:
            out.append(self._quit_question(), style="bold yellow")
            return out
        if self.finished:
            out.append("牌局结束 — q / Enter 退出")
        elif self.between_hands:
            out.append("Enter 下一手   q 退出")
        elif self.pending is not None:
            if self.pending.sets:
                done = self.pending.chosen_set() is not None
                out.append("←/→ 选牌  空格 选/不选  " + ("Enter 确定  " if done else "Enter 选牌  ")
                           + "或输入牌名 (1m 1m 7m)  ")
            elif self.pending.discards:
                out.append("←/→ 选牌  Enter 打出  或输入牌名 (5m 五万 中)  ")
            else:
                out.append("←/→ 选择  Enter 确定  ")
            out.append("q 退出")
        elif self.session.watch:
            out.append("+ 快  - 慢  空格 暂停  q 退出")
        else:
            out.append("q 退出")
        return out

    # -- decisions ---------------------------------------------------------------------------

    def show_decision(self, pending: Pending) -> None:
        self.pending = pending
        self.typed = ""
        self.message = ""
        if pending.discards:
            tiles = pending.tiles
            self.pick = len(tiles) - 1 if pending.drawn is not None else 0
            while self.pick > 0 and tiles[self.pick] not in pending.discards:
                self.pick -= 1
        elif pending.sets:
            tiles = pending.tiles
            self.pick = next((i for i, t in enumerate(tiles) if pending.pickable(t)), 0)
        else:
            # Claims: start on 胡 if offered, else on 过 (an idle Enter never takes a tile).
            keys = [o.kind for _, o in pending.buttons]
            self.pick = 0 if "win" in keys or "pass" not in keys else keys.index("pass")
        self._build_buttons()
        self.refresh_table()
        self.decision_ready.set()

    def _build_buttons(self) -> None:
        """The pending decision's buttons, mounted only when they differ from those on screen
        (a turn after a turn has none): mounting and removing widgets costs a layout."""
        box = self.query_one("#actions", Horizontal)
        p = self.pending
        if p is None:
            return
        w = self.session.state.wildcard
        labels = []
        for key, o in p.buttons:
            label = self.session.words(option_label(o, w))
            labels.append(f"{key}  {label}" if key else label)
        if labels == self._button_labels:
            buttons = [b for b, _ in self._shown_buttons]
        else:
            box.remove_children()
            buttons = []
            for label in labels:
                b = Button(label, compact=True, classes="option")
                b.can_focus = False  # keys drive the table; a click works too
                buttons.append(b)
            box.mount_all(buttons)
            self._button_labels = labels
        for i, b in enumerate(buttons):
            b.set_class(p.buttons_mode and i == self.pick, "picked")
        self._shown_buttons = [(b, o) for b, (_, o) in zip(buttons, p.buttons, strict=True)]

    def answer(self, option: Option) -> None:
        """Send the choice to the game (:meth:`TableSeat.decide` awaits it)."""
        if self.pending is None:
            return
        self.pending = None
        self.decision_ready.clear()
        self.typed = ""
        self.message = ""
        if self._shown_buttons:  # (a turn has none: nothing to lay out again)
            self.query_one("#actions", Horizontal).remove_children()
            self._shown_buttons, self._button_labels = [], []
        self.session.human.answers.put_nowait(option)
        self._draw_hand()

    def _picked_tile(self) -> Tile | None:
        p = self.pending
        if p is None or p.buttons_mode or not p.tiles:
            return None
        return p.tiles[min(self.pick, len(p.tiles) - 1)]

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if self.pending is not None:
            chosen = [o for b, o in self._shown_buttons if b is event.button]
            if chosen:
                self.answer(chosen[0])

    def on_key(self, event: Key) -> None:
        key, ch = event.key, event.character
        event.stop()
        if self.confirm_quit:  # q asked: a second q leaves, any other key stays
            self.confirm_quit = False
            if key == "q" or key == "y":
                self.action_quit_game()
            else:
                self.refresh_table()
            return
        if key == "q" and not self.typed:
            if self._quit_costs():
                self.confirm_quit = True
                self.refresh_table()
            else:
                self.action_quit_game()
            return
        if self.finished:
            if key in ("enter", "escape"):
                self.exit(self.session.totals)
            return
        if self.between_hands:
            if key == "enter":
                self.between_hands = False
                self.idle.clear()
                self.session.go_on.put_nowait(True)
                self.refresh_table()
            return
        p = self.pending
        if p is None:
            if self.session.watch and key in ("plus", "equals_sign", "+", "="):
                self.session.speed = round(max(0.0, self.session.speed - 0.2), 1)
            elif self.session.watch and key in ("minus", "-"):
                self.session.speed = round(min(5.0, self.session.speed + 0.2), 1)
            elif self.session.watch and key == "space":
                if self.session.running.is_set():
                    self.session.running.clear()
                else:
                    self.session.running.set()
            self.refresh_table()
            return
        if key in ("left", "right"):
            self._move(-1 if key == "left" else 1)
        elif key == "space" and p.sets and not self.typed:
            self._toggle()
        elif key == "enter":
            self._enter()
        elif key == "backspace":
            self.typed = self.typed[:-1]
        elif key == "escape":
            self.typed = ""
            self.message = ""
        elif ch and ch.isprintable() and (not ch.isspace() or self.typed):
            hot = dict(p.buttons)
            if not self.typed and ch in hot:
                self.answer(hot[ch])
                return
            self.typed += ch
            self._preview()
        self._refresh_pick()

    def _move(self, step: int) -> None:
        p = self.pending
        assert p is not None
        if p.buttons_mode:
            if p.buttons:
                self.pick = (self.pick + step) % len(p.buttons)
            return
        tiles = p.tiles
        i = self.pick
        for _ in range(len(tiles)):
            i = (i + step) % len(tiles)
            if p.pickable(tiles[i]):
                self.pick = i
                return

    def _toggle(self) -> None:
        """Pick the tile under the cursor for a choice of several tiles (or put it back)."""
        p = self.pending
        assert p is not None
        if self.pick in p.chosen:
            p.chosen.remove(self.pick)
        elif len(p.chosen) < p.set_size and p.pickable(p.tiles[self.pick]):
            p.chosen.append(self.pick)
        self.message = ""

    def _preview(self) -> None:
        """A typed tile is picked at once (Enter then discards it)."""
        p = self.pending
        assert p is not None
        try:
            t = parse_tile(self.session.words.typed(self.typed))
        except (TileParseError, ValueError):
            return
        if t in p.discards:
            tiles = p.tiles
            self.pick = max(i for i, x in enumerate(tiles) if x == t)

    def _enter(self) -> None:
        p = self.pending
        assert p is not None
        if self.typed and p.sets:
            try:
                want = tuple(sorted(parse_tiles(self.session.words.typed(self.typed))))
            except TileParseError as e:
                want, self.message = (), f"{self.typed}: {e.reason}"
            self.typed = ""
            if want in p.sets:
                self.answer(p.sets[want])
            elif want:
                self.message = f"{' '.join(tile_name(t) for t in want)}: 不能这样选 (not one of the choices)"
            return
        if p.sets and not self.typed:
            chosen = p.chosen_set()
            if chosen is not None:
                self.answer(chosen)
            else:
                self._toggle()
            return
        if self.typed:
            try:
                choice = match_input(self.session.words.typed(self.typed), p.decision.options, numbers=False)
            except ValueError as e:
                self.message = str(e)
                self.typed = ""
                return
            self.answer(choice)
            return
        if p.buttons_mode:
            if p.buttons:
                self.answer(p.buttons[self.pick][1])
            return
        t = self._picked_tile()
        if t is not None and t in p.discards:
            self.answer(p.discards[t])

    def _refresh_pick(self) -> None:
        if self.pending is not None:
            for i, (b, _) in enumerate(self._shown_buttons):
                b.set_class(self.pending.buttons_mode and i == self.pick, "picked")
        self._draw_hand()

    # -- hands and the session ---------------------------------------------------------------

    def hand_over(self, last: bool) -> bool:
        """A hand has ended (called by :class:`Session`): show it; go on unless quitting."""
        self.refresh_table()
        if self.session.quit.is_set():
            return False
        if not last:
            if self.session.watch:
                self.set_timer(max(1.0, 5 * self.session.speed) if self.session.speed else 0.01,
                               lambda: self.session.go_on.put_nowait(True))
            else:
                self.between_hands = True
        self.idle.set()
        self.refresh_table()
        return True

    def session_over(self) -> None:
        self.finished = True
        self.between_hands = False
        self.idle.set()
        if self.session.quit.is_set() or self.session.human.stopped:
            self.exit(self.session.totals)
            return
        self.refresh_table()

    def _quit_costs(self) -> bool:
        """Leaving needs a yes: a player in a hand (the ruleset's leave rule then applies)."""
        s = self.session
        return not s.watch and not self.finished and not self.between_hands and s.state.result is None

    def _quit_question(self) -> str:
        rule = self.session.rs.leave
        fine = (f"罚 {rule.penalty} 分 (you pay {rule.penalty})" if rule.penalty
                else "本手作废 (the hand is void)" if rule.hand == "abandon"
                else "机器人代打 (a bot plays on)")
        return f"离开牌桌? {fine} — 再按 q 离开, 其他键继续 (press q again to leave, any other key to stay)"

    def on_unmount(self) -> None:
        self.action_quit_game()  # never leave the game waiting for an answer

    def action_quit_game(self) -> None:
        """q: a spectator stops watching; a player leaves the table (the ruleset's ``leave`` rule
        applies at their next decision — now, if one is on screen) and no further hand starts."""
        s = self.session
        s.quit.set()
        s.speed = 0.0
        s.running.set()
        s.go_on.put_nowait(False)
        s.human.stopped = True
        if self.pending is not None:
            self.pending = None
            s.human.answers.put_nowait(None)
        if self.finished:
            self.exit(s.totals)


def play_table(ruleset_ref: str, *, seed: int, hands: int = 1, watch: bool = False, speak: bool = False,
               speed: float | None = None, options: dict[str, Any] | None = None,
               preset: str | None = None, record: Any = None, lang: str = "zh",
               bots: Sequence[tuple[str, str]] = (), bot_timeout: float | None = None) -> list[int]:
    """Run the full-screen table; return the totals (printed when the screen closes).

    ``record``: an extra event sink that sees every event (the records file).
    ``bots``: (name, command) of external programs or trained policies (``FILE.npz``), seated
    after the person (from seat 0 with ``watch``) as in the line mode; each program's decision
    waits at most ``bot_timeout`` seconds. A bad ``--bot`` raises ``ValueError``."""
    import click

    from ..run.extbot import DEFAULT_TIMEOUT, open_bot
    from ..run.simulate import load_cached

    rs, _ = load_cached(ruleset_ref, options or (), preset)
    first = 0 if watch else 1
    if len(bots) > rs.players - first:
        raise ValueError(f"{len(bots)} bots but only {rs.players - first} free seats")
    externals: dict[int, Any] = {}
    try:
        for i, (name, command) in enumerate(bots):
            externals[first + i] = open_bot(command, rs, name=name, timeout=bot_timeout or DEFAULT_TIMEOUT)
        app = TableApp(ruleset_ref, seed=seed, hands=hands, watch=watch, speak=speak,
                       speed=(0.6 if watch else 0.3) if speed is None else speed, options=options,
                       preset=preset, lang=lang, externals=externals)
        app.session.record = record
        app.run()
    finally:
        for bot in externals.values():  # a program still thinking stops here, and its thread returns
            bot.close()
    s = app.session
    if s.error is not None:  # the table failed: say what, exit non-zero (the CLI turns MJError into exit 1)
        raise MJError(f"the table stopped: {s.error} (seed {seed}; `mj play --plain` plays the same hands)")
    names = [s.state.name(i) for i in range(s.rs.players)]
    say = s.words
    for e in s.state.leaves:
        fine = f" 罚 {e['penalty']}" if e.get("penalty") else ""
        click.echo(say(f"{names[e['seat']]} 离开牌桌{fine}"))
    click.echo(say(f"{s.rs.name} ({s.rs.id}) — seed {seed}: {s.played} 手   总计  "
                   + "   ".join(f"{n} {v:+d}" for n, v in zip(names, s.totals, strict=True))))
    if s.failures:
        raise MJError(f"{len(s.failures)} hand(s) abandoned: {s.failures[0]}")
    return s.totals


__all__ = ["Pending", "Session", "TableApp", "TableSeat", "assign_keys", "play_table"]
