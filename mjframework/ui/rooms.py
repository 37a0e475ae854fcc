"""Rooms: people at one table over the network, the server deciding everything.

A :class:`Room` plays a series of hands of one ruleset. Each seat is a human
(who joins with that seat's secret token) or a bot. The hands run in the
room's own thread: the series of hands is :func:`mjframework.run.simulate.hand_series`'s
(dealer, prevalent wind, repeat calls and counters carried from hand to hand exactly as
``mj play`` and ``mj simulate`` carry them), each hand the engine's generator
(:meth:`mjframework.play.game.Game.steps`, every seat played from outside): at a bot's
decision the bot answers; at a human's the room sends the decision to that seat and waits
for the answer. Nothing here knows of
sockets: a transport (:mod:`mjframework.ui.webapp`) attaches a ``send``
function per connection and passes the player's messages to :meth:`Room.receive`.

**What a seat receives** is only what that seat may see, built from the
per-seat machinery the agents use: the seat's log events
(:class:`mjframework.play.seatlog.SeatStream`), a snapshot of the table from
:class:`mjframework.play.players.TableView` (its own hand; the others' melds
as :func:`mjframework.play.visibility.meld_for` shows them; discards,
flowers and counts, which everyone sees), the narration of the line-mode
table (:class:`mjframework.ui.human.Announcer`, which masks each event with
:func:`~mjframework.play.visibility.view_for`), and after the hand the hand's
engine log masked for that seat (for the replay). The wall's order and
another seat's concealed tiles never leave the server.

**Leaving and rejoining.** A seat whose connections all close keeps its seat:
the same token rejoins it (the table is sent again, then the pending
decision). A seat away longer than ``away_timeout`` seconds is played by a
bot from its next decision on, until the player comes back.

**Records.** With a :class:`~mjframework.run.records.RecordStore`, each hand
is kept when it ends (:class:`~mjframework.run.records.HandRecorder`).
"""

from __future__ import annotations

import queue
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..core.tiles import HONOR_BASE, tile_code, tile_name
from ..play.players import OUTSIDE, Decision, Option, TableView
from ..play.seatlog import SeatStream
from ..play.visibility import view_for
from .human import Announcer, narration
from .table import payment_reason, ready_waits, seat_word

Message = dict[str, Any]
Send = Callable[[Message], None]

WIND_NAMES = "东南西北"
MAX_HANDS = 64


def tile_info(t: int) -> dict[str, Any]:
    return {"code": tile_code(t), "name": tile_name(t)}


@dataclass
class SeatSlot:
    """One seat of a room: who plays it and how to reach them."""

    seat: int
    human: bool
    name: str
    token: str = field(default_factory=lambda: secrets.token_urlsafe(18))
    sends: list[Send] = field(default_factory=list)
    away_since: float | None = None  # when its last connection closed (None: connected, or a bot)
    replaced: bool = False  # played by a bot while away
    ever_joined: bool = False
    answers: queue.Queue[Message] = field(default_factory=queue.Queue)
    log: list[Message] = field(default_factory=list)  # this hand's messages, resent on rejoin

    @property
    def by_bot(self) -> bool:
        return not self.human or self.replaced

    def status(self) -> str:
        if not self.human:
            return "bot"
        if self.replaced:
            return "bot (away)"
        return "here" if self.sends else ("away" if self.ever_joined else "waiting")


class Room:
    """A table of ``rs`` (with its evaluator ``ev``) for ``humans`` people and bots elsewhere."""

    def __init__(self, rs: Any, ev: Any, *, humans: list[int], names: dict[int, str] | None = None,
                 seed: int | None = None, hands: int = 1, away_timeout: float = 60.0,
                 bot_pause: float = 0.0, store: Any = None, room_id: str | None = None,
                 clock: Callable[[], float] = time.monotonic, policy: tuple[str, Any] | None = None) -> None:
        n = rs.players
        if not 1 <= hands <= MAX_HANDS:
            raise ValueError(f"hands: 1 to {MAX_HANDS}")
        if any(not 0 <= s < n for s in humans) or len(set(humans)) != len(humans):
            raise ValueError(f"human seats must be distinct seats 0–{n - 1}")
        self.id = room_id or secrets.token_urlsafe(9)
        self.rs, self.ev = rs, ev
        self.seed = secrets.randbelow(10**9) if seed is None else seed
        self.hands = hands
        self.away_timeout = away_timeout
        self.bot_pause = bot_pause
        self.clock = clock
        names = names or {}
        self.policy = policy  # (name, a trained policy) that plays the bots' seats; None: greedy
        bot_name = policy[0] if policy else "greedy"
        self.seats = [SeatSlot(s, s in humans,
                               names.get(s) or (f"player {s + 1}" if s in humans else bot_name))
                      for s in range(n)]
        self.lock = threading.RLock()
        self.closed = threading.Event()
        self.finished = threading.Event()
        self.totals = [0] * n
        self.hand_ids: list[int] = []
        self.played = 0
        self.error: str | None = None
        self.game: Any = None  # the hand being played (a Game, paused at ``pending``)
        self._steps: Any = None  # its generator (Game.steps)
        self.pending: Decision | None = None
        # The decisions put to the seats at once (a decision set: claims, an exchange, a
        # declaration), seat → decision, each seat answering in its own time.
        self.offered: dict[int, Decision] = {}
        self.decision_no = 0
        self.hand_no = 0
        self._waits_cache: dict[Any, list[int]] = {}
        self._announcers: list[Announcer] = []
        self._streams: list[SeatStream] = []
        self._masked: list[list[Message]] = [[] for _ in range(n)]
        self._store = store
        self._recorder: Any = None
        self.session_id: int | None = None
        if store is not None:
            from ..run.records import HandRecorder, Seat

            self.session_id = store.start_session(rs, kind="room", seed=self.seed, room=self.id)
            self._recorder = HandRecorder(store, self.session_id, lambda: [
                Seat(s.name, "human" if s.human and not s.replaced else "bot") for s in self.seats],
                on_hand=self.hand_ids.append)
        self.thread = threading.Thread(target=self._main, name=f"mj-room-{self.id}", daemon=True)

    # -- the transport's side -------------------------------------------------------------

    def start(self) -> None:
        self.thread.start()

    def close(self) -> None:
        """Stop the room (the hand in progress is unwound, not recorded)."""
        self.closed.set()
        for s in self.seats:
            s.answers.put({"type": "closed"})

    def seat_of(self, token: str) -> SeatSlot | None:
        """The human seat this token opens (compared in constant time), or None."""
        found = None
        for s in self.seats:
            if s.human and secrets.compare_digest(s.token.encode(), token.encode("utf-8", "replace")):
                found = s
        return found

    def attach(self, slot: SeatSlot, send: Send) -> None:
        """A connection for ``slot`` opens: send it the room and this hand so far, then the decision."""
        with self.lock:
            slot.sends.append(send)
            slot.away_since = None
            slot.ever_joined = True
            back = slot.replaced
            slot.replaced = False
            send(self._hello(slot))
            for m in slot.log:
                send(m)
            mine = self.offered.get(slot.seat)
            if mine is not None:
                send(self._decision_message(slot.seat, mine))
                if mine.kind == "turn":
                    send(self._waits_message(slot.seat, mine))
        self._broadcast_seats()
        if back:
            self._say_all(f"{slot.name} is back")

    def detach(self, slot: SeatSlot, send: Send) -> None:
        with self.lock:
            if send in slot.sends:
                slot.sends.remove(send)
            if not slot.sends:
                slot.away_since = self.clock()
        self._broadcast_seats()

    def receive(self, slot: SeatSlot, message: Message) -> None:
        """A player's message: ``{"type": "choose", "decision": N, "index": I}`` or ``{"type": "next"}``."""
        slot.answers.put(message)

    def summary(self) -> Message:
        return {"room": self.id, "ruleset": {"id": self.rs.id, "name": self.rs.name}, "seed": self.seed,
                "hands": self.hands, "played": self.played, "totals": list(self.totals),
                "seats": [{"seat": s.seat, "name": s.name, "status": s.status()} for s in self.seats],
                "finished": self.finished.is_set(), "away_timeout": self.away_timeout,
                "hand_ids": list(self.hand_ids)}

    # -- messages -----------------------------------------------------------------------

    def _send(self, slot: SeatSlot, m: Message, keep: bool = True) -> None:
        with self.lock:
            if keep:
                slot.log.append(m)
            for send in list(slot.sends):
                send(m)

    def _hello(self, slot: SeatSlot) -> Message:
        rs = self.rs
        return {"type": "hello", "room": self.id, "seat": slot.seat, "players": rs.players,
                "ruleset": {"id": rs.id, "name": rs.name}, "seed": self.seed, "hands": self.hands,
                "away_timeout": self.away_timeout, "totals": list(self.totals), "played": self.played,
                "seats": [{"seat": s.seat, "name": s.name, "status": s.status(),
                           "word": seat_word(s.seat, slot.seat, rs.players)} for s in self.seats]}

    def _broadcast_seats(self) -> None:
        m = {"type": "seats", "seats": [{"seat": s.seat, "name": s.name, "status": s.status()}
                                        for s in self.seats]}
        for s in self.seats:
            if s.human:
                self._send(s, m, keep=False)

    def _say_all(self, text: str) -> None:
        for s in self.seats:
            if s.human:
                self._send(s, {"type": "say", "text": text})

    def _state(self, seat: int) -> Message:
        """The table as ``seat`` sees it now (read while the engine waits at a decision)."""
        g = self.game
        assert g is not None
        v = TableView(g, seat)
        n = self.rs.players
        wild = sorted(v.wildcards) if v.wildcards else ([] if v.wildcard is None else [v.wildcard])
        wind = g.prevalent_wind  # (by hands or by the deal's passes: `winds.prevalent_counts`)
        has_winds = wind is not None and n <= 4  # 门风 only where the ruleset has winds
        seats = []
        for s in range(n):
            st = g.seats[s]
            seats.append({
                "seat": s, "word": seat_word(s, seat, n), "name": self.seats[s].name,
                "wind": WIND_NAMES[(s - v.dealer) % n] if has_winds else None,
                "concealed": len(st.hand), "out": v.has_left(s),
                "melds": [{"kind": m.kind, "tiles": [tile_code(x) for x in m.tiles], "from": m.from_seat}
                          for m in v.melds_of(s)],
                "discards": [tile_code(x) for x in v.discards_of(s)],
                "flowers": [tile_code(x) for x in st.flowers],
                "declared": v.declared_of(s), "total": self.totals[s],
            })
        prevalent = WIND_NAMES[(wind - HONOR_BASE) % 4] if wind is not None else None
        hand = list(v.hand)
        return {"type": "state", "seat": seat, "hand_no": self.hand_no, "dealer": v.dealer,
                "hand": [tile_code(x) for x in hand],
                "wildcards": [tile_code(x) for x in wild],
                "indicator": None if v.indicator is None else tile_code(v.indicator),
                "live": v.live_remaining, "seats": seats, "prevalent": prevalent,
                "waits": [tile_code(x) for x in self._waits(seat, hand)]}

    def _waits(self, seat: int, concealed: list[int]) -> list[int]:
        """听: the tiles that complete ``seat``'s hand when it holds ``hand.size`` (13; less 3 per meld).

        Remembered for the hand (the same tiles and melds wait the same way): a state is
        sent at every decision of the table, and a scorer with many patterns is not free."""
        g = self.game
        assert g is not None
        melds = list(g.seats[seat].melds)
        if len(concealed) + 3 * len(melds) != self.rs.hand.size or seat in g.out:
            return []
        key = (seat, tuple(sorted(concealed)), repr(melds), g.dealer, g.wildcard)
        found = self._waits_cache.get(key)
        if found is None:
            try:
                found = ready_waits(self.ev, concealed, melds, seat=seat, dealer=g.dealer,
                                    players=self.rs.players, wildcard=g.wildcard)
            except Exception:  # a plugin's scorer failing here must not stop the table
                found = []
            self._waits_cache[key] = found
        return found

    def _decision_message(self, seat: int, d: Decision) -> Message:
        opts = [{"index": i, "kind": o.kind, "label": o.label(),
                 "tile": None if o.tile is None else tile_code(o.tile),
                 "tiles": [tile_code(x) for x in o.tiles], "value": o.value} for i, o in enumerate(d.options)]
        return {"type": "decision", "decision": self.decision_no, "kind": d.kind, "seat": seat,
                "tile": None if d.tile is None else tile_code(d.tile), "from_seat": d.from_seat,
                "prompt": d.prompt, "options": opts}

    def _waits_message(self, seat: int, d: Decision) -> Message:
        """听 after each discard offered (tile → waits), sent just after the decision so the
        decision itself is not held up by the scorer."""
        assert self.game is not None
        hand = list(TableView(self.game, seat).hand)
        after: dict[str, list[str]] = {}
        for o in d.options:
            if o.kind != "discard" or o.tile is None or o.tile not in hand:
                continue
            if tile_code(o.tile) not in after:
                rest = list(hand)
                rest.remove(o.tile)
                after[tile_code(o.tile)] = [tile_code(x) for x in self._waits(seat, rest)]
        return {"type": "waits", "decision": self.decision_no, "after": after}

    # -- the room's thread ---------------------------------------------------------------

    def _main(self) -> None:
        try:
            self._play()
        except Exception as e:  # an engine or plugin failure: said to the players, the room ends
            self.error = f"{type(e).__name__}: {e}"
            self._say_all(f"the table stopped: {self.error}")
        finally:
            if self._steps is not None:
                self._steps.close()  # a hand left unfinished (the room closed) is dropped
            self.finished.set()
            m = {"type": "room_over", "totals": list(self.totals), "played": self.played,
                 "error": self.error}
            for s in self.seats:
                if s.human:
                    self._send(s, m)

    def _emit(self, e: Message) -> None:
        if self._recorder is not None:
            self._recorder(e)
        t = e.get("type")
        for s in self.seats:
            self._masked[s.seat].append(view_for(e, s.seat))
            out = self._streams[s.seat].feed(e)
            if s.human:
                for ev in out:
                    self._send(s, {"type": "event", "event": ev})
                self._announcers[s.seat](e)
        if t == "settlement":
            for i, x in enumerate(e.get("payments", [])[:len(self.totals)]):
                self.totals[i] += int(x)

    def _play(self) -> None:
        from ..run.simulate import hand_series, make_bots

        rs = self.rs
        n = rs.players
        bots: list[Any] = []
        trained = None
        if self.policy is not None:
            from ..run.envs.policy import PolicyBot

            trained = PolicyBot(self.policy[1])

        def players(h: int) -> list[Any]:
            bots[:] = make_bots(("greedy",) * n, self.seed, 0, h)  # the bots of hand h, as mj play's
            if trained is not None:
                for s in self.seats:
                    if not s.human:  # an absent person's seat is still played by the greedy bot
                        bots[s.seat] = trained
            return [OUTSIDE] * n

        series = hand_series(rs, players, seed=self.seed, hands=self.hands, emit=self._emit,
                             evaluator=self.ev)
        game = next(series, None)
        h = 0
        while game is not None:
            if self.closed.is_set():
                return
            self.hand_no = h
            for s in self.seats:
                s.log = []
            self._masked = [[] for _ in range(n)]
            self._waits_cache.clear()
            self._streams = [SeatStream(s) for s in range(n)]
            self._announcers = [Announcer(self._narrator(s), s.seat, n) for s in self.seats]
            self.game = game
            if trained is not None:
                trained.attach(game)  # it reads the table through the game
            self._steps = steps = game.steps()
            try:
                pending = next(steps)
                while True:
                    self.pending = pending
                    self.decision_no += 1
                    self._push_states()
                    pending = self._answer_set(pending, game, bots, steps)
                    if pending is None:  # the room was closed
                        return
            except StopIteration as end:
                result = end.value
            self._steps = None
            self.pending = None
            self.played += 1
            self._push_states()
            self._hand_over(h, result)
            if h + 1 < self.hands and not self._wait_next():
                return
            try:
                game = series.send(result)
            except StopIteration:
                game = None
            h += 1

    def _narrator(self, slot: SeatSlot) -> Callable[[str], None]:
        def say(line: str) -> None:
            if slot.human and line.strip() and set(line.strip()) != {"═"}:
                self._send(slot, {"type": "say", "text": line.strip()})
        return say

    def _push_states(self) -> None:
        for s in self.seats:
            if s.human:
                m = self._state(s.seat)
                with self.lock:  # only the latest state is worth resending on rejoin
                    s.log = [x for x in s.log if x.get("type") != "state"]
                self._send(s, m)

    def _answer_set(self, pending: Decision, game: Any, bots: list[Any], steps: Any) -> Any:
        """The pending decision's set (``game.deciding`` from it on: the seats deciding at once,
        as ``Table.pending_set`` shows it) offered to every seat of it together — each person
        answers in their own time — then answered to the engine in its order, as
        ``Table.step_all``. The engine's next decision or end (StopIteration), None if closed."""
        deciding = list(game.deciding)
        at = next((i for i, d in enumerate(deciding) if d is pending), None)
        group = [pending] if at is None else deciding[at:]
        with self.lock:
            self.offered = {d.seat: d for d in group if not self.seats[d.seat].by_bot}
        for d in self.offered.values():
            self._offer(self.seats[d.seat], d)
        answers: dict[int, Option] = {}
        for d in group:
            option = self._choose(d, bots, offered=True)
            if option is None:  # the room was closed
                return None
            answers[d.seat] = option
            with self.lock:  # answered: a rejoining tab is not asked it again
                self.offered.pop(d.seat, None)
        with self.lock:
            self.pending = None
            self.offered = {}
        nxt = steps.send(answers[group[0].seat])
        rest = group[1:]
        while rest and any(d is nxt for d in rest):
            while rest[0] is not nxt:
                rest.pop(0)
            nxt = steps.send(answers[rest.pop(0).seat])
        return nxt

    def _offer(self, slot: SeatSlot, d: Decision) -> None:
        """Put ``d`` to a person's seat (answers to earlier decisions are dropped)."""
        while True:
            try:
                slot.answers.get_nowait()
            except queue.Empty:
                break
        self._send(slot, self._decision_message(d.seat, d), keep=False)
        if d.kind == "turn":
            self._send(slot, self._waits_message(d.seat, d), keep=False)

    def _choose(self, d: Decision, bots: list[Any], offered: bool = False) -> Option | None:
        assert self.game is not None
        slot = self.seats[d.seat]
        if slot.by_bot:
            if (self.bot_pause and any(s.sends for s in self.seats) and d.kind == "turn"
                    and self.closed.wait(self.bot_pause)):
                return None
            return bots[d.seat].decide(TableView(self.game, d.seat), d)
        if not offered:
            self._offer(slot, d)
        while True:
            try:
                m = slot.answers.get(timeout=0.25)
            except queue.Empty:
                if self.closed.is_set():
                    return None
                with self.lock:
                    away = slot.away_since is not None and self.clock() - slot.away_since >= self.away_timeout
                    never = not slot.ever_joined and self.away_timeout == 0
                    if away or never:
                        slot.replaced = True
                if slot.replaced:
                    self._broadcast_seats()
                    self._say_all(f"{slot.name} is away: a bot plays for them")
                    return bots[d.seat].decide(TableView(self.game, d.seat), d)
                continue
            if m.get("type") == "closed":
                return None
            if m.get("type") != "choose" or m.get("decision") != self.decision_no:
                continue  # a stale or stray message
            i = m.get("index")
            if isinstance(i, int) and not isinstance(i, bool) and 0 <= i < len(d.options):
                return d.options[i]
            self._send(slot, {"type": "error", "message": f"no option {str(i)[:20]}"}, keep=False)

    def _hand_over(self, h: int, result: Any) -> None:
        n = self.rs.players
        for s in self.seats:
            if not s.human:
                continue
            lines = self._explain(s.seat)
            m = {"type": "hand_over", "hand": h, "result": result.result, "winners": list(result.winners),
                 "payments": list(result.payments), "totals": list(self.totals), "lines": lines,
                 "next_dealer": seat_word(result.next_dealer, s.seat, n),
                 "hand_id": self.hand_ids[-1] if self.hand_ids and self._store is not None else None,
                 "log": self._masked[s.seat], "said": self.narration(self._masked[s.seat], s.seat),
                 "last": h + 1 >= self.hands}
            self._send(s, m)

    def narration(self, log: list[Message], seat: int) -> list[str]:
        """The replay's words for ``seat``'s log of a hand, one per event, as the table said them."""
        return narration(log, seat, self.rs.players, after_win=self.rs.win.after_win, scoring=self.rs.scoring)

    def _explain(self, seat: int) -> list[str]:
        """The settlement line by line, as the terminal table tells it: each win and its
        patterns, then every payment with its reason."""
        n = self.rs.players
        out: list[str] = []
        for e in self._masked[seat]:
            t = e.get("type")
            if t == "win":
                who = seat_word(e["seat"], seat, n)
                win_by = str(e.get("win_by", ""))
                by = {"self_draw": "自摸", "discard": "点炮", "robbed_kong": "抢杠"}.get(win_by, win_by)
                if e.get("from_seat") is not None and e.get("win_by") != "self_draw":
                    by += f" ({seat_word(e['from_seat'], seat, n)})"
                tile = "" if e.get("tile") is None else tile_name_code(e["tile"])
                out.append(f"{who} 胡 {tile} {by}: {' '.join(e.get('patterns', []))}"
                           + (f" — {e['points']} 分" if e.get("points") is not None else ""))
            elif t == "settlement":
                for it in e.get("items", []):
                    payee = seat_word(it["payee"], seat, n) if it.get("payee") is not None else "—"
                    out.append(f"  {seat_word(it['payer'], seat, n)} → {payee}  {it['amount']}  "
                               f"{payment_reason(it, lambda s: seat_word(s, seat, n))}")
            elif t == "hand_end" and e.get("result") == "draw":
                out.append("流局 (the wall ran out: a draw)")
            elif t == "abandon":
                out.append(f"本手作废 (abandoned): {e.get('reason', '')}")
        net = self._net(seat)
        out.append("本手 " + "  ".join(f"{seat_word(s, seat, n)} {d:+d}" for s, d in enumerate(net)))
        return out

    def _net(self, seat: int) -> list[int]:
        net = [0] * self.rs.players
        for e in self._masked[seat]:
            if e.get("type") == "settlement":
                for i, x in enumerate(e.get("payments", [])[:len(net)]):
                    net[i] += int(x)
        return net

    def _wait_next(self) -> bool:
        """Between hands: wait until every present human says "next" (or is away too long)."""
        waiting = {s.seat for s in self.seats if s.human and not s.replaced}
        while waiting:
            for seat in list(waiting):
                slot = self.seats[seat]
                try:
                    m = slot.answers.get_nowait()
                except queue.Empty:
                    with self.lock:
                        gone = (slot.away_since is not None and self.clock() - slot.away_since
                                >= self.away_timeout) or (not slot.ever_joined and self.away_timeout == 0)
                    if gone:
                        waiting.discard(seat)
                    continue
                if m.get("type") == "closed":
                    return False
                if m.get("type") == "next":
                    waiting.discard(seat)
            if waiting and self.closed.wait(0.1):
                return False
        return not self.closed.is_set()


def tile_name_code(code: str) -> str:
    from ..core.tiles import parse_tile

    return tile_name(parse_tile(code))


def in_language(words: Callable[[str], str]) -> Callable[[Message], Message]:
    """What a seat's messages say, in the seat's language (``words``: a
    :class:`~mjframework.ui.words.Words`, as ``mj play --lang`` uses): the narration, the
    settlement lines, the seats' and winds' names, the options' labels and a plugin's
    question. Codes, numbers and the ruleset's own words are left as they are; so is every
    message when the language is Chinese (the room composes in Chinese)."""

    def seats(xs: Any) -> Any:
        return [{**x, **{k: words(x[k]) for k in ("word", "wind") if isinstance(x.get(k), str)}} for x in xs]

    def translate(m: Message) -> Message:
        t = m.get("type")
        if t == "say":
            return {**m, "text": words(m["text"])}
        if t == "hand_over":
            return {**m, "lines": [words(x) for x in m["lines"]], "next_dealer": words(m["next_dealer"]),
                    "said": [words(x) for x in m.get("said", ())]}
        if t in ("hello", "state"):
            out = {**m, "seats": seats(m["seats"])}
            if isinstance(m.get("prevalent"), str):
                out["prevalent"] = words(m["prevalent"])
            return out
        if t == "decision":
            return {**m, "prompt": words(m["prompt"]) if m.get("prompt") else m.get("prompt"),
                    "options": [{**o, "label": words(o["label"])} for o in m["options"]]}
        return m

    return translate


__all__ = ["Room", "SeatSlot", "in_language", "tile_info"]
