"""The game engine: one hand from wall to settlement, driven by the ruleset alone.

:class:`Game` builds the wall, rolls and breaks it, deals, flips the
indicator, then runs turns — draw, self-draw win, kongs, discard, claims by
priority — until a win or the wall runs out, settles, and names the next
dealer. Everything variant-specific comes from the ruleset (claims, win
rules, priorities, dealer rotation) or from plugins; the engine knows no
variant.

One seeded :class:`random.Random` per hand: the same seed and the same
decisions replay the same hand exactly.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from . import settlement as st
from .events import EventSink, make_event, tiles_out
from .hand import KONG_PAYMENT_KEY, Hand, Meld, WinContext
from .players import Decision, IllegalDecision, Option, Player, TableView
from .scoring import Evaluator, Score
from .tiles import Tile, is_honor, tile_code


@dataclass
class SeatState:
    hand: list[Tile] = field(default_factory=list)
    melds: list[Meld] = field(default_factory=list)
    discards: list[Tile] = field(default_factory=list)
    drew_first: bool = False  # has had a turn (first_turn ends with it)


@dataclass
class HandResult:
    result: str  # win | draw | abandon
    winners: list[int]
    next_dealer: int
    payments: list[int]
    patterns: dict[int, list[str]] = field(default_factory=dict)
    error: str = ""


class HandAbandoned(Exception):
    """A player or plugin failed; the hand stops cleanly with an ``abandon`` event."""


class Game:
    """Plays one hand. ``players`` are indexed by absolute seat."""

    def __init__(self, ruleset: Any, players: Sequence[Player], *, seed: int, dealer: int = 0,
                 hand_no: int = 0, emit: EventSink | None = None, evaluator: Evaluator | None = None,
                 last_winner_call: tuple[int, str] | None = None) -> None:
        from .wall import Wall

        self.ruleset = ruleset
        self.players = list(players)
        if len(self.players) != ruleset.players:
            raise ValueError(f"{ruleset.id} needs {ruleset.players} players, got {len(self.players)}")
        self.seed = seed
        self.hand_no = hand_no
        self.dealer = dealer
        self.rng = random.Random(seed)
        self.emit = emit or (lambda e: None)
        self.ev = evaluator or Evaluator(ruleset)
        self.wall = Wall(ruleset, self.rng, dealer)
        self.seats = [SeatState() for _ in range(ruleset.players)]
        self.wildcard: Tile | None = None
        self.indicator: Tile | None = None
        self.no_claims = True
        self.kongs: list[st.KongRecord] = []
        self.last_drawer: int | None = None
        self._after_kong_discard = False
        self.claims = ruleset.claims
        self.win_rules = ruleset.win
        self.priority = {k: i for i, k in enumerate(
            self.claims.get("priority") or ["win", "kong", "pung", "chow"])}

    # -- helpers -------------------------------------------------------------

    def _event(self, type_: str, **fields: Any) -> None:
        self.emit(make_event(type_, **fields))

    def _ask(self, decision: Decision) -> Option:
        seat = decision.seat
        if len(decision.options) == 1 and decision.kind != "turn":
            return decision.options[0]
        try:
            choice = self.players[seat].decide(TableView(self, seat), decision)
        except IllegalDecision:
            raise
        except Exception as e:  # a bot (or UI) failing must not corrupt the hand
            raise HandAbandoned(f"seat {seat} failed deciding {decision.kind}: "
                                f"{type(e).__name__}: {e}") from e
        if choice not in decision.options:
            raise HandAbandoned(f"seat {seat} chose {choice!r}, which was not offered "
                                f"for {decision.kind} (options: "
                                f"{', '.join(o.label() for o in decision.options)})")
        return choice

    def _ctx(self, seat: int, win_by: str, discarder: int | None, flags: set[str]) -> WinContext:
        return WinContext(seat=seat, win_by=win_by, discarder=discarder, flags=frozenset(flags),
                          dealer=self.dealer)

    def _hand(self, seat: int, win_tile: Tile, held: list[Tile] | None = None) -> Hand:
        s = self.seats[seat]
        return Hand(tuple(held if held is not None else s.hand), tuple(s.melds), win_tile)

    def _is_wild(self, t: Tile) -> bool:
        return self.wildcard is not None and t == self.wildcard

    # -- the hand ------------------------------------------------------------

    def play(self) -> HandResult:
        rs = self.ruleset
        self._event("hand_start", hand=self.hand_no, ruleset=rs.id, dealer=self.dealer, seed=self.seed)
        try:
            return self._play()
        except HandAbandoned as e:
            nxt = self.dealer
            self._event("abandon", reason=str(e))
            self._event("hand_end", result="abandon", next_dealer=nxt)
            return HandResult("abandon", [], nxt, [0] * rs.players, error=str(e))

    def _play(self) -> HandResult:
        rs = self.ruleset
        brk = self.wall.break_wall()
        self._event("dice", purpose="break", values=list(brk.dice))
        self._event("wall", start_wall=brk.wall_seat, start_stack=brk.stack, height=self.wall.height,
                    tiles=[tile_code(t) if t is not None else None for t in self.wall.slots])
        self._deal()
        self._event("deal", hands=[tiles_out(sorted(s.hand)) for s in self.seats])
        if rs.wildcard is not None:
            dice, ind = self.wall.flip_indicator()
            self._event("dice", purpose="wildcard", values=list(dice))
            self.indicator = ind
            self.wildcard = rs.wildcard.wildcard_for(ind)
            self._event("wildcard", indicator=tile_code(ind), wildcard=tile_code(self.wildcard))
        return self._turns()

    def _deal(self) -> None:
        d = self.ruleset.deal
        n = self.ruleset.players
        order = [(self.dealer + i) % n for i in range(n)]
        for _ in range(int(d.get("rounds", 3))):
            for seat in order:
                for _ in range(int(d.get("block", 4))):
                    self.seats[seat].hand.append(self._must(self.wall.take_live()))
        for step in d.get("then", []) or []:
            seat = (self.dealer + int(step["seat"])) % n
            for pick in step.get("take", []) or []:
                self.seats[seat].hand.append(self.wall.take_at(int(pick["stack"]), pick["layer"]))
            for _ in range(int(step.get("tiles", 0))):
                self.seats[seat].hand.append(self._must(self.wall.take_live()))
        # Tiles taken out of order (跳杠) leave the live end at the first untaken slot.
        while self.wall.live < len(self.wall.slots) and self.wall.slots[self.wall.live] is None:
            self.wall.live += 1

    @staticmethod
    def _must(t: Tile | None) -> Tile:
        if t is None:
            raise HandAbandoned("the wall ran out during the deal")
        return t

    def _turns(self) -> HandResult:
        n = self.ruleset.players
        seat = self.dealer
        drawn: Tile | None = None  # the dealer starts with 14, no draw
        flags: set[str] = set()
        must_draw = False
        while True:
            if must_draw:
                t = self.wall.take_live()
                if t is None:
                    return self._exhausted()
                self.last_drawer = seat
                self.seats[seat].hand.append(t)
                drawn = t
                flags = set()
                if self.wall.live_remaining() == 0:
                    flags.add("last_tile")
                self._event("draw", seat=seat, tile=tile_code(t), source="wall")
            if not self.seats[seat].drew_first:
                if self.no_claims:
                    flags |= {"first_turn", "no_claims_yet"}
                self.seats[seat].drew_first = True
            elif self.no_claims:
                flags.add("no_claims_yet")
            outcome = self._turn(seat, drawn, flags)
            if isinstance(outcome, HandResult):
                return outcome
            kind, payload = outcome
            if kind == "discarded":
                tile = payload
                last = "last_tile" in flags
                claim = self._claims(seat, tile, last, first=("first_turn" in flags and seat == self.dealer))
                if isinstance(claim, HandResult):
                    return claim
                if last:
                    return self._exhausted()
                if claim is None:
                    seat = (seat + 1) % n
                    must_draw = True
                    drawn = None
                    continue
                seat, drawn, flags, must_draw = claim
                continue

    def _turn(self, seat: int, drawn: Tile | None, flags: set[str]) -> Any:
        """A player holding a full hand acts: win, kong, or discard. Loops over kongs."""
        s = self.seats[seat]
        while True:
            options: list[Option] = []
            win = self._self_win(seat, drawn, flags)
            if win is not None:
                win_tile, held = win
                options.append(Option("win", win_tile))
            can_kong = self._kong_tiles_left()
            if can_kong and self.claims.get("concealed_kong", True):
                for t, c in sorted(Counter(s.hand).items()):
                    if c == 4 and not self._is_wild(t):
                        options.append(Option("kong", t, (t,) * 4, "concealed-kong"))
            if can_kong and self.claims.get("added_kong", True):
                for m in s.melds:
                    if m.kind == "pung" and m.tiles[0] in s.hand:
                        options.append(Option("kong", m.tiles[0], (m.tiles[0],) * 4, "added-kong"))
            for t in sorted(set(s.hand)):
                options.append(Option("discard", t))
            choice = self._ask(Decision("turn", seat, tuple(options), drawn))
            if choice.kind == "win":
                return self._settle_win([seat], win_tile, "self_draw", None, flags,
                                        {seat: self._hand(seat, win_tile, held)})
            if choice.kind == "kong":
                t = choice.tile
                assert t is not None
                if choice.meld == "concealed-kong":
                    for _ in range(4):
                        s.hand.remove(t)
                    s.melds.append(Meld("concealed-kong", (t,) * 4))
                    self._event("kong", seat=seat, kind="concealed", tile=tile_code(t))
                    self.kongs.append(st.KongRecord(seat, "concealed_kong"))
                else:
                    s.hand.remove(t)
                    i = next(i for i, m in enumerate(s.melds) if m.kind == "pung" and m.tiles[0] == t)
                    self._event("kong", seat=seat, kind="added", tile=tile_code(t))
                    robbed = self._rob(seat, t)
                    if robbed is not None:
                        return robbed
                    s.melds[i] = Meld("added-kong", (t,) * 4, s.melds[i].from_seat)
                    self.kongs.append(st.KongRecord(seat, "added_kong"))
                rep = self.wall.take_kong()
                if rep is None:
                    return self._exhausted()
                s.hand.append(rep)
                self.last_drawer = seat
                self._event("draw", seat=seat, tile=tile_code(rep), source="kong")
                drawn = rep
                flags = (flags - {"first_turn", "last_tile"}) | {"after_kong"}
                if self.wall.live_remaining() == 0:
                    flags.add("last_tile")
                continue
            assert choice.kind == "discard" and choice.tile is not None
            s.hand.remove(choice.tile)
            s.discards.append(choice.tile)
            self._event("discard", seat=seat, tile=tile_code(choice.tile))
            self._after_kong_discard = "after_kong" in flags
            return ("discarded", choice.tile)

    def _self_win(self, seat: int, drawn: Tile | None, flags: set[str]) -> tuple[Tile, list[Tile]] | None:
        """(winning tile, tiles held before it) if the seat can win by self-draw now.

        Normally the winning tile is the one just drawn. The dealer's dealt 14
        have no drawn tile: every tile is tried and the best-paying is used.
        After a claimed pung or chow there is no draw and no win.
        """
        if not self.win_rules.get("self_draw", True):
            return None
        hand = self.seats[seat].hand
        if drawn is not None:
            candidates = [drawn]
        elif "first_turn" in flags:
            candidates = sorted(set(hand))
        else:
            return None
        ctx = self._ctx(seat, "self_draw", None, flags)
        best: tuple[int, Tile, list[Tile]] | None = None
        for t in candidates:
            held = list(hand)
            held.remove(t)
            h = self._hand(seat, t, held)
            if not self.ev.is_win(h, ctx, self.wildcard):
                continue
            if len(candidates) == 1:
                return t, held
            pts = self.ev.score(h, ctx, self.wildcard).points
            if best is None or pts > best[0]:
                best = (pts, t, held)
        return (best[1], best[2]) if best else None

    def _kong_tiles_left(self) -> bool:
        return self.wall.kong_remaining() > 0 and self.wall.live_remaining() > 0

    def _seats_after(self, seat: int) -> list[int]:
        n = self.ruleset.players
        return [(seat + i) % n for i in range(1, n)]

    def _claims(self, discarder: int, tile: Tile, last: bool, first: bool) -> Any:
        """Offer the discard to the others; resolve by priority. None if nobody claims."""
        n = self.ruleset.players
        wild = self._is_wild(tile)
        can_discard_win = bool(self.win_rules.get("discard", False)) and not wild
        flags_base: set[str] = set()
        if last:
            flags_base.add("last_tile")
        if getattr(self, "_after_kong_discard", False):
            flags_base.add("after_kong_discard")
        wants: list[tuple[int, int, Option]] = []  # (priority, turn distance, option)
        for dist, seat in enumerate(self._seats_after(discarder)):
            s = self.seats[seat]
            options: list[Option] = []
            flags = set(flags_base)
            if first and not s.drew_first and self.no_claims:
                flags |= {"first_turn", "no_claims_yet"}
            elif self.no_claims:
                flags.add("no_claims_yet")
            if can_discard_win and self.ev.is_win(
                    self._hand(seat, tile), self._ctx(seat, "discard", discarder, flags), self.wildcard):
                options.append(Option("win", tile))
            if not wild and not last:
                c = s.hand.count(tile)
                if c >= 3 and self.claims.get("kong", True) and self._kong_tiles_left():
                    options.append(Option("kong", tile, (tile,) * 4, "kong"))
                if c >= 2 and self.claims.get("pung", True):
                    options.append(Option("pung", tile, (tile,) * 3))
                if (self.claims.get("chow") == "left" and seat == (discarder + 1) % n
                        and not is_honor(tile)):
                    for seq in self._chows(s.hand, tile):
                        options.append(Option("chow", tile, seq))
            if not options:
                continue
            options.append(Option("pass"))
            choice = self._ask(Decision("claim", seat, tuple(options), tile, discarder))
            if choice.kind != "pass":
                wants.append((self.priority.get(choice.kind, 99), dist, choice, seat, flags))
        if not wants:
            return None
        wants.sort(key=lambda w: (w[0], w[1]))
        top = wants[0]
        if top[2].kind == "win":
            winners = [w for w in wants if w[2].kind == "win"]
            if self.win_rules.get("discard_winners", "first_in_turn") != "all":
                winners = winners[:1]
            seats = [w[3] for w in winners]
            flags_by = {w[3]: w[4] for w in winners}
            return self._settle_win(seats, tile, "discard", discarder, flags_by,
                                    {w: self._hand(w, tile) for w in seats})
        _, _, choice, seat, _ = top
        s = self.seats[seat]
        self.seats[discarder].discards.pop()
        self.no_claims = False
        used = list(choice.tiles)
        used.remove(tile)
        for t in used:
            s.hand.remove(t)
        kind = {"kong": "kong", "pung": "pung", "chow": "chow"}[choice.kind]
        s.melds.append(Meld(kind, tuple(sorted(choice.tiles)), discarder))
        s.drew_first = True
        self._event("claim", seat=seat, kind=kind, tiles=tiles_out(sorted(choice.tiles)),
                    from_seat=discarder)
        if kind == "kong":
            self.kongs.append(st.KongRecord(seat, "kong", discarder))
            rep = self.wall.take_kong()
            if rep is None:
                return self._exhausted()
            s.hand.append(rep)
            self.last_drawer = seat
            self._event("draw", seat=seat, tile=tile_code(rep), source="kong")
            flags = {"after_kong"}
            if self.wall.live_remaining() == 0:
                flags.add("last_tile")
            return seat, rep, flags, False
        return seat, None, set(), False

    @staticmethod
    def _chows(hand: list[Tile], tile: Tile) -> list[tuple[Tile, ...]]:
        out = []
        r = tile % 9
        for lo in (tile - 2, tile - 1, tile):
            if lo < 0 or lo // 9 != tile // 9 or lo % 9 > 6 or lo % 9 > r:
                continue
            seq = (lo, lo + 1, lo + 2)
            need = [t for t in seq if t != tile]
            if all(hand.count(t) >= need.count(t) for t in need):
                out.append(seq)
        return out

    def _rob(self, kong_seat: int, tile: Tile) -> HandResult | None:
        """Others may rob an added kong where the ruleset allows it."""
        if self.win_rules.get("robbed_kong") != "added" or self._is_wild(tile):
            return None
        robbers = []
        for seat in self._seats_after(kong_seat):
            ctx = self._ctx(seat, "robbed_kong", kong_seat, set())
            if not self.ev.is_win(self._hand(seat, tile), ctx, self.wildcard):
                continue
            choice = self._ask(Decision("rob", seat, (Option("win", tile), Option("pass")), tile, kong_seat))
            if choice.kind == "win":
                robbers.append(seat)
        if not robbers:
            return None
        if self.win_rules.get("discard_winners", "first_in_turn") != "all":
            robbers = robbers[:1]
        return self._settle_win(robbers, tile, "robbed_kong", kong_seat, set(),
                                {r: self._hand(r, tile) for r in robbers})

    # -- endings ----------------------------------------------------------------

    def _settle_win(self, winners: list[int], tile: Tile, win_by: str, discarder: int | None,
                    flags: Any, hands: dict[int, Hand]) -> HandResult:
        n = self.ruleset.players
        total = [0] * n
        patterns: dict[int, list[str]] = {}
        for w in winners:
            f = flags.get(w, set()) if isinstance(flags, dict) else flags
            ctx = self._ctx(w, win_by, discarder, f)
            score: Score = self.ev.score(hands[w], ctx, self.wildcard)
            if not score.win:  # an engine bug if it happens: is_win said yes
                raise HandAbandoned(f"seat {w} was offered a win that does not score: {score.reason}")
            patterns[w] = score.pattern_names
            self._event("win", seat=w, win_by=win_by, tile=tile_code(tile), from_seat=discarder,
                        patterns=score.pattern_names, points=score.points,
                        call=self.ev.call(ctx, score))
            settlement = self.ev.settle(hands[w], ctx, score,
                                        kongs=self.kongs if w == winners[0] else [])
            net = settlement.net()
            self._event("settlement", payments=net,
                        items=[p.to_dict() for p in settlement.payments])
            total = [a + b for a, b in zip(total, net, strict=True)]
        nxt = self._next_dealer_after_win(winners, discarder)
        self._event("hand_end", result="win", next_dealer=nxt)
        return HandResult("win", winners, nxt, total, patterns)

    def _next_dealer_after_win(self, winners: list[int], discarder: int | None) -> int:
        d = self.ruleset.dealer
        if len(winners) > 1:
            rule = d.get("after_multiple_winners", "first_winner")
            if rule == "discarder" and discarder is not None:
                return discarder
            return winners[0]
        return winners[0]

    def _exhausted(self) -> HandResult:
        n = self.ruleset.players
        rule = self.ruleset.dealer.get("after_draw", "dealer")
        if rule == "last_tile_drawer" and self.last_drawer is not None:
            nxt = self.last_drawer
        elif rule == "next":
            nxt = (self.dealer + 1) % n
        else:
            nxt = self.dealer
        payments = [0] * n
        if self.kongs and not self.ruleset.scoring.kongs_void_on_draw:
            s = st.Settlement(n, st.kong_payments(self.ruleset, self.kongs))
            payments = s.net()
            self._event("settlement", payments=payments, items=[p.to_dict() for p in s.payments])
        self._event("hand_end", result="draw", next_dealer=nxt)
        return HandResult("draw", [], nxt, payments)


__all__ = ["KONG_PAYMENT_KEY", "Game", "HandAbandoned", "HandResult", "SeatState"]
