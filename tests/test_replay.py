"""Replay check: a simulation log must tell a legal story, judged from the log alone.

:class:`LogChecker` reads a ``mj simulate --log`` file and checks, hand by
hand, what the rules (docs/rules/) say a hand must be — without looking at the engine:

* the ``wall`` event is a permutation of the full set (136 or 108), its break
  position follows the break dice, and every tile is accounted for exactly
  once: the deal takes the right slots (three rounds of 4, then 跳杠 or the
  2/1/1/1 finish), each ``draw`` takes the next slot from the correct end
  (``source: wall`` forward from the live end, ``kong`` backward from the
  kong end, top before bottom), the indicator is the top tile of the stack
  the wildcard dice point at and is never drawn, birds are the next live
  tiles (shown, not drawn), and deal + draws + indicator + what is left =
  the set;
* turn order, and hand sizes after every event: after a draw
  ``concealed + 3·melds = 14``, after a discard ``13`` for every seat
  (kongs count 3 here, i.e. ``concealed + meld tiles = 14 + kongs`` /
  ``13 + kongs``);
* claims are legal for the ruleset: no chow in the 永州 rulesets, a chow only
  by the player after the discarder and holding the two other tiles, a
  pung/kong only of the discarded tile with two/three of it held, never a
  claimed wildcard; no pung/chow/kong of the last (海底) discard;
* wins: by self-draw on the tile just drawn; on a discard only where the
  ruleset allows it, never on a wildcard, the first winner in turn order
  (截胡) unless several may win; re-scoring the winning hand from the
  tracked tiles gives the logged patterns and points; opening declarations
  (起手) likewise;
* drawn hands: the wall really is exhausted;
* settlements sum to zero and match their items; each payment is what the
  payout rule says (each other / the discarder, the dealer's +10, ×2 per
  bird on either side, kong payments); nothing is paid on a drawn hand where
  the ruleset voids payments;
* the next dealer follows the ruleset (the winner; 通炮 → the discarder; a
  drawn hand → ``dealer.after_draw``; two opening winners → the seat the
  opening birds hit) and is the next hand's dealer within a game;
  ``hand_end`` is the last event of every hand.

The ruleset facts are written out here from docs/rules/ (``RULES``); which
optional plugins are switched on is read from the ruleset, and the
evaluator is used to re-score wins.
"""

from __future__ import annotations

import dataclasses
import json
import os
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from mjframework.core.errors import HandError
from mjframework.core.hand import Hand, Meld, WinContext
from mjframework.core.tiles import is_honor, parse_tile, rank_of
from mjframework.evaluate.scoring import Evaluator
from mjframework.play.wall import Wall
from mjframework.rules.loader import load_ruleset
from mjframework.run.simulate import simulate
from mjframework.settle.settlement import check_balance

# 2,000 hands per ruleset, as the game-engine issue asks; MJ_REPLAY_HANDS=300 for a quick run.
HANDS = int(os.environ.get("MJ_REPLAY_HANDS", "2000"))
SEED = int(os.environ.get("MJ_REPLAY_SEED", "2024"))

# Deal slots (in draw order from the break), per seat counted from the dealer:
# three rounds of 4, then the ruleset's finish. Slot 2k is stack k's top tile.
_ROUNDS = {rel: [r * 16 + rel * 4 + i for r in range(3) for i in range(4)] for rel in range(4)}
DEAL_YONGZHOU = {0: [*_ROUNDS[0], 48, 52], 1: [*_ROUNDS[1], 49], 2: [*_ROUNDS[2], 50], 3: [*_ROUNDS[3], 51]}
DEAL_CHANGSHA = {0: [*_ROUNDS[0], 48, 49], 1: [*_ROUNDS[1], 50], 2: [*_ROUNDS[2], 51], 3: [*_ROUNDS[3], 52]}


def _yz_break(dice: list[int]) -> tuple[int, int]:
    """(wall owner relative to the dealer, N) — docs/rules/yongzhou-huandiao.md, "Dice and the break"."""
    return {1: 2, 3: 2, 5: 2, 2: 1, 6: 1, 4: 3}[max(dice)], min(dice)


def _cs_break(dice: list[int]) -> tuple[int, int]:
    """changsha.yaml's choice: the sum counted from the dealer, the lower die the stack."""
    return (sum(dice) - 1) % 4, min(dice)


YZ = dict(size=136, kinds=34, chow=False, multi_win=False, robbed_kong=False, after_draw="last_drawer",
          deal=DEAL_YONGZHOU, brk=_yz_break, wildcard=True, kongs_void=True, dealer_bonus=0)
RULES: dict[str, dict[str, Any]] = {
    "yongzhou-huandiao": dict(YZ, discard_win=False, first="random",
                              kong_pay={"kong": ("discarder", 30), "added": ("each", 10),
                                        "concealed": ("each", 20)}),
    "yongzhou-wangba": dict(YZ, discard_win=True, first="seat0"),
    "changsha": dict(size=108, kinds=27, chow=True, discard_win=True, multi_win=True,
                     robbed_kong=True, after_draw="next", first="random", deal=DEAL_CHANGSHA,
                     brk=_cs_break, wildcard=False, kongs_void=True, dealer_bonus=10,
                     # 庄家确定: two or more opening winners (天胡 counts, the YAML's choice) →
                     # the seat the opening birds hit.
                     bird_dealer_also=("天胡",)),
}
RULESETS = list(RULES)


def T(code: str) -> int:
    return parse_tile(code)


class Seat:
    """One seat's tiles as the log tells them."""

    def __init__(self) -> None:
        self.concealed: Counter[int] = Counter()
        self.melds: list[Meld] = []
        self.discards: list[int] = []
        self.turns = 0  # wall draws and claims taken (the dealer's first turn counts)
        self.locked = False

    def size(self) -> int:
        return sum(self.concealed.values()) + 3 * len(self.melds)

    def take(self, tile: int, n: int = 1) -> bool:
        if self.concealed[tile] < n:
            return False
        self.concealed[tile] -= n
        if not self.concealed[tile]:
            del self.concealed[tile]
        return True

    def tiles(self) -> list[int]:
        return sorted(self.concealed.elements())


class HandCheck:
    """Checks one hand's events; ``problems`` collects what is wrong."""

    # Events that don't change "what came last".
    QUIET = ("settlement", "dice", "wildcard", "call", "birds", "reveal", "leave")

    def __init__(self, rid: str, start: dict[str, Any], problems: list[str], ev: Evaluator) -> None:
        self.rid = rid
        self.rules = RULES[rid]
        self.held = self.rules.get("hand", 13)  # tiles held between turns (`hand.size`)
        self.plugins = dict(ev.ruleset.plugins)
        self.ev = ev
        self.start = start
        self.dealer = start["dealer"]
        self.problems = problems
        self.seats = [Seat() for _ in range(4)]
        self.slots: list[int] = []
        self.taken: list[bool] = []
        self.live = 0
        self.kong_order: list[int] = []
        self.kong_pos = 0
        self.limit = 0  # live draws stay below this slot (the indicator's stack)
        self.ind_stack: int | None = None
        self.indicator: int | None = None
        self.wildcard: int | None = None
        self.dice: dict[str, list[int]] = {}
        self.start_n = 0
        self.expect: tuple[str, int] | None = None  # (what, seat) must come next
        self.last_discard: tuple[int, int] | None = None  # (seat, tile)
        self.last_event = ""
        self.claims_made = 0
        self.last_wall_drawer: int | None = None
        self.last_draw: dict[int, tuple[int, str, bool]] = {}  # seat → (tile, source, took the last)
        self.haidi_discard = False
        self.discard_flags: set[str] = set()
        self.wins: list[dict[str, Any]] = []
        self.kongs: list[tuple[int, str, int | None]] = []  # (owner, kind, discarder)
        self.pending_rob: tuple[int, int] | None = None
        self.open_kong: tuple[int, int] | None = None  # (seat, tile) of a 开杠 in progress
        self.birds: dict[str, list[int]] = {}
        self.opening_birds: list[int] | None = None
        self.opening: list[dict[str, Any]] = []
        self.pending_settlement: tuple[str, dict[str, Any]] | None = None
        self.settled_wins = 0
        self.haidi: list[tuple[int, str]] = []
        self.haidi_shown: int | None = None
        self.kong_haidi: int | None = None
        self.result: str | None = None
        self.next_dealer = self.dealer
        self.abandoned = False
        self.revealed: list[tuple[int, Meld]] = []  # face-down kongs turned up (reveal events)
        self.left: list[int] = []  # seats that left the table (leave events)
        self.pending_leave: int | None = None  # a leaver whose penalty is settled next
        self.index = 0  # event index within the hand (hand_start is 0)
        # A hand that goes on after a win (the ruleset's `win.after_win`: leave / stay).
        self.flow = ev.ruleset.flow
        self.out: set[int] = set()  # seats that won and left
        self.groups: list[list[dict[str, Any]]] = []  # wins, grouped by the discard / draw they came on
        self.won: list[list[int]] = [[] for _ in range(4)]  # tiles won on and set aside
        self.state: list[dict[str, Any]] = [{} for _ in range(4)]  # per-seat state (declarations, wins)

    # -- helpers -------------------------------------------------------------

    def bad(self, msg: str) -> None:
        self.problems.append(f"{self.rid} hand {self.start['hand']} (seed {self.start['seed']}, "
                             f"dealer {self.dealer}, event {self.index}): {msg}")

    def live_slots(self) -> list[int]:
        return [s for s in range(self.live, self.limit) if not self.taken[s]]

    def live_left(self) -> int:
        return len(self.live_slots())

    def kong_left(self) -> int:
        return sum(1 for s in self.kong_order[self.kong_pos:] if not self.taken[s])

    def next_live(self) -> int | None:
        while self.live < self.limit and self.taken[self.live]:
            self.live += 1
        return self.live if self.live < self.limit else None

    def next_kong(self) -> int | None:
        while self.kong_pos < len(self.kong_order):
            s = self.kong_order[self.kong_pos]
            if not self.taken[s]:
                return s  # (a slot behind the live end is always taken: the ends have met)
            self.kong_pos += 1
        return None

    def open_kong_slot(self, total: int) -> tuple[int | None, str]:
        """开杠: the top tile (bottom if gone) of the stack ``total`` back from the last, or
        the farthest stack with a tile counting fewer; failing that the next live tile
        (docs/rules/changsha.md, "开杠"; the kaigang plugin)."""
        last = self.next_kong()
        if last is not None:
            for back in range(total, 0, -1):
                stack = last // 2 - (back - 1)
                if stack < 0 or (stack + 1) * 2 <= self.live or (self.ind_stack is not None
                                                                 and stack <= self.ind_stack):
                    continue
                for slot in (stack * 2, stack * 2 + 1):
                    if not self.taken[slot]:
                        return slot, "kong"
        return self.next_live(), "wall"

    def check_sizes(self, seat: int, want: int, after: str) -> None:
        got = self.seats[seat].size()
        if got != want:
            self.bad(f"after {after}, seat {seat} holds {got} (concealed + 3·melds), expected {want}")

    def hits(self, birds: list[int]) -> list[int]:
        h = [0] * 4
        for t in birds:
            h[(self.dealer + rank_of(t) - 1) % 4] += 1
        return h

    def next_active(self, seat: int) -> int:
        """The next seat in turn order that has not left the hand."""
        for k in range(1, 5):
            if (seat + k) % 4 not in self.out:
                return (seat + k) % 4
        return seat

    def _expect(self, what: str, seat: int) -> None:
        if self.expect is None:
            return
        kind, who = self.expect
        if kind != what or who != seat:
            self.bad(f"{what} by seat {seat}, expected {kind} by seat {who}")

    # -- events ----------------------------------------------------------------

    def feed(self, e: dict[str, Any]) -> None:
        self.index += 1
        t = e["type"]
        if self.result is not None:
            self.bad(f"{t} after hand_end")
            return
        if self.abandoned and t not in ("hand_end", "reveal"):
            return
        handler = getattr(self, "on_" + t, None)
        if handler is None:
            self.bad(f"unknown event type {t!r}")
            return
        handler(e)
        if t not in self.QUIET:
            self.last_event = t

    def on_dice(self, e: dict[str, Any]) -> None:
        v = e["values"]
        if not v or not all(1 <= x <= 6 for x in v):
            self.bad(f"dice {v}")
        self.dice[e["purpose"]] = v

    def on_call(self, e: dict[str, Any]) -> None:
        if (e.get("seat") is not None and not 0 <= e["seat"] < 4) or not e.get("text"):
            self.bad(f"call {e}")

    def on_wall(self, e: dict[str, Any]) -> None:
        r = self.rules
        tiles = e["tiles"]
        if None in tiles:
            self.bad("the wall has empty slots before the deal")
            return
        self.slots = [T(c) for c in tiles]
        self.taken = [False] * len(self.slots)
        counts = Counter(self.slots)
        if len(self.slots) != r["size"] or len(counts) != r["kinds"] or set(counts.values()) != {4}:
            self.bad(f"the wall is not the full {r['size']}-tile set: {len(self.slots)} slots, "
                     f"{len(counts)} kinds")
        if e["height"] != 2:
            self.bad(f"height {e['height']}")
        rel, n = r["brk"](self.dice["break"])
        if e["start_wall"] != (self.dealer + rel) % 4 or e["start_stack"] != n:
            self.bad(f"break dice {self.dice['break']}: wall {e['start_wall']} stack {e['start_stack']}, "
                     f"expected wall {(self.dealer + rel) % 4} stack {n}")
        stacks = len(self.slots) // 2
        self.kong_order = [s * 2 + layer for s in range(stacks - 1, -1, -1) for layer in (0, 1)]
        self.limit = len(self.slots)
        self.start_n = n

    def on_deal(self, e: dict[str, Any]) -> None:
        hands = e["hands"]
        for rel, slots in self.rules["deal"].items():
            seat = (self.dealer + rel) % 4
            want = sorted(self.slots[s] for s in slots)
            got = sorted(T(c) for c in hands[seat])
            if want != got:
                self.bad(f"deal: seat {seat} got {hands[seat]}, the wall's slots {slots} hold {want}")
            for s in slots:
                if self.taken[s]:
                    self.bad(f"deal: slot {s} dealt twice")
                self.taken[s] = True
            self.seats[seat].concealed.update(got)
        self.live = max(s for slots in self.rules["deal"].values() for s in slots) + 1
        self.check_sizes(self.dealer, self.held + 1, "the deal")
        for k in range(1, 4):
            self.check_sizes((self.dealer + k) % 4, self.held, "the deal")
        self.seats[self.dealer].turns = 1
        self.expect = ("turn", self.dealer)

    def on_wildcard(self, e: dict[str, Any]) -> None:
        if not self.rules["wildcard"]:
            self.bad("a wildcard in a ruleset without one")
            return
        s = sum(self.dice["wildcard"])
        # The wildcard flip: on the break owner's right-hand neighbour's wall (the last one in draw
        # order: ring stacks 51–67 counted from the owner's right end), the S-th stack from
        # its right end. The ring starts (slot 0) at the owner's stack 17 − N.
        stack = (51 + s - 1 - (17 - self.start_n)) % 68
        self.indicator = T(e["indicator"])
        if self.slots[stack * 2] != self.indicator:
            self.bad(f"indicator {e['indicator']} is not the top of stack {stack} "
                     f"({self.slots[stack * 2]}) that dice {self.dice['wildcard']} point at")
        if self.taken[stack * 2]:
            self.bad("the indicator was already dealt")
        self.taken[stack * 2] = True
        self.ind_stack = stack
        self.limit = stack * 2
        self.kong_order = [x for x in self.kong_order if x // 2 > stack]
        succ = self.ev.ruleset.wildcard.successors  # type: ignore[union-attr]
        self.wildcard = T(e["wildcard"])
        if succ[self.indicator] != self.wildcard:
            self.bad(f"wildcard {e['wildcard']} is not the successor of {e['indicator']}")

    def on_birds(self, e: dict[str, Any]) -> None:
        rule = self.ev.ruleset.bonus_tiles
        want = self.live_slots()[:rule.count if rule is not None else 0]
        got = [T(c) for c in e["tiles"]]
        if got != [self.slots[s] for s in want]:
            self.bad(f"birds {e['tiles']} are not the next live tiles {[self.slots[s] for s in want]}")
        seats = [(self.dealer + rank_of(t) - 1) % 4 for t in got]
        if e["seats"] != seats:
            self.bad(f"birds {e['tiles']} hit {e['seats']}, expected {seats}")
        self.birds[e["kind"]] = got
        if e["kind"] == "opening" and self.opening_birds is None:
            self.opening_birds = got

    def on_opening_win(self, e: dict[str, Any]) -> None:
        seat = e["seat"]
        if self.last_event not in ("deal", "opening_win") or self.expect != ("turn", self.dealer):
            self.bad(f"opening declaration after {self.last_event}")
        held = self.seats[seat].tiles()
        if sorted(T(c) for c in e["hand"]) != held:
            self.bad(f"opening declaration of seat {seat} shows {e['hand']}, it holds {held}")
        ctx = WinContext(seat=seat, win_by="self_draw", dealer=self.dealer,
                         flags=frozenset({"first_turn", "no_claims_yet"}))
        try:
            score = self.ev.score_opening(held, ctx)
        except HandError as ex:
            self.bad(f"opening declaration of an impossible hand: {ex}")
            return
        if not score.win or score.pattern_names != e["patterns"] or score.points != e["points"]:
            self.bad(f"opening declaration {e['patterns']} {e['points']}; the dealt tiles score "
                     f"{score.pattern_names} {score.points}")
        if any(o["seat"] == seat for o in self.opening):
            self.bad(f"seat {seat} declares twice")
        self.opening.append(e)
        self.pending_settlement = ("opening", e)

    def on_draw(self, e: dict[str, Any]) -> None:
        seat, tile, src = e["seat"], T(e["tile"]), e["source"]
        if self.expect is not None and self.expect[0] == "open_kong_draw":
            self._expect("open_kong_draw", seat)
            slot, want_src = self.open_kong_slot(sum(self.dice.get("open_kong", [0])))
            if src != want_src:
                self.bad(f"开杠 draw from the {src} end, expected {want_src}")
        elif src == "wall":
            self._expect("draw", seat)
            slot = self.next_live()
        elif src == "kong":
            self._expect("kong_draw", seat)
            slot = self.next_kong()
            self.kong_pos += 1
        else:
            self.bad(f"draw source {src!r}")
            return
        if slot is None:
            self.bad(f"seat {seat} drew {e['tile']} from the {src} end, which is exhausted")
        else:
            if self.slots[slot] != tile:
                self.bad(f"seat {seat} drew {e['tile']} ({src}); the slot it must come from, {slot}, "
                         f"holds {self.slots[slot]}")
            self.taken[slot] = True
            if src == "wall":
                self.live = slot + 1
        h = self.seats[seat]
        h.concealed[tile] += 1
        if src == "wall":
            h.turns += 1
            self.last_wall_drawer = seat
        empty = self.live_left() == 0
        if src == "kong" and empty:
            self.kong_haidi = seat
        # (tile, source, took the 海底): a replacement draw of the last tile is no 海底.
        self.last_draw[seat] = (tile, src, empty and src == "wall")
        self.check_sizes(seat, self.held + 1, f"a {src} draw")
        self.expect = ("turn", seat)

    def on_discard(self, e: dict[str, Any]) -> None:
        seat, tile = e["seat"], T(e["tile"])
        self._expect("turn", seat)
        h = self.seats[seat]
        if not h.take(tile):
            self.bad(f"seat {seat} discarded {e['tile']} without holding it")
        h.discards.append(tile)
        drawn = self.last_draw.get(seat)
        if h.locked and (drawn is None or drawn[0] != tile or self.last_event != "draw"):
            self.bad(f"locked seat {seat} discards {e['tile']}, not the tile it drew")
        for s in range(4):
            self.check_sizes(s, self.held, f"seat {seat}'s discard")
        self.last_discard = (seat, tile)
        self.haidi_discard = (self.last_event == "draw" and drawn is not None and drawn[2]
                              and self.live_left() == 0)
        self.discard_flags = set()
        if self.open_kong is not None and self.open_kong[0] == seat:
            self.discard_flags.add("after_kong_discard")
            self.open_kong = None
        if self.haidi_discard:
            self.discard_flags.add("last_tile")
        self.expect = ("draw", self.next_active(seat))  # unless claimed, won on, or the wall is done

    def on_claim(self, e: dict[str, Any]) -> None:
        seat, kind, tiles, frm = e["seat"], e["kind"], [T(c) for c in e["tiles"]], e["from_seat"]
        opened = self.open_kong is not None and self.open_kong[0] == seat and kind == "kong"
        if self.last_event != ("open_kong" if opened else "discard") or self.last_discard is None:
            self.bad(f"claim not right after a discard (after {self.last_event})")
            return
        dseat, tile = self.last_discard
        if frm != dseat or seat == dseat:
            self.bad(f"seat {seat} claims from seat {frm}; the discarder is {dseat}")
        if tile not in tiles:
            self.bad(f"claim {e['tiles']} does not use the discard {tile}")
        if self.wildcard is not None and tile == self.wildcard:
            self.bad(f"a wildcard ({e['tiles']}) was claimed")
        if self.haidi_discard:
            self.bad(f"{kind} of the last (海底) discard")
        h = self.seats[seat]
        if h.locked:
            self.bad(f"locked seat {seat} claims")
        if seat in self.out:
            self.bad(f"seat {seat} claims after leaving the hand")
        used = list(tiles)
        used.remove(tile)
        if kind == "chow":
            if not self.rules["chow"]:
                self.bad("a chow in a ruleset without chow")
            if seat != (dseat + 1) % 4:
                self.bad(f"chow by seat {seat}, not the player after the discarder {dseat}")
            st = sorted(tiles)
            if (len(st) != 3 or is_honor(st[0]) or st[0] // 9 != st[2] // 9
                    or st[1] != st[0] + 1 or st[2] != st[0] + 2):
                self.bad(f"chow {e['tiles']} is not a sequence")
        elif kind in ("pung", "kong"):
            n = 3 if kind == "pung" else 4
            if tiles != [tile] * n:
                self.bad(f"{kind} {e['tiles']} is not {n} × the discard")
            if kind == "kong" and self.kong_left() == 0:
                self.bad("a kong claimed with no replacement tile left")
        else:
            self.bad(f"claim kind {kind!r}")
        for t in used:
            if not h.take(t):
                self.bad(f"seat {seat} claims {kind} {e['tiles']} without holding {t}")
        self.seats[dseat].discards.pop()
        h.melds.append(Meld(kind, tuple(sorted(tiles)), dseat))
        self.claims_made += 1
        h.turns += 1
        self.last_draw.pop(seat, None)
        if kind == "kong":
            self.kongs.append((seat, "kong", dseat))
            self.check_sizes(seat, self.held, "a claimed kong")
            self.expect = ("kong_draw", seat)
            if opened:
                assert self.open_kong is not None
                if self.open_kong[1] != tile:
                    self.bad("点杠开杠 of one tile, claim of another")
                h.locked = True
                self.expect = ("open_kong_draw", seat)
        else:
            self.check_sizes(seat, self.held + 1, f"a claimed {kind}")
            self.expect = ("turn", seat)

    def on_open_kong(self, e: dict[str, Any]) -> None:
        seat = e["seat"]
        if e.get("kind") == "claimed":  # 点杠开杠: on the discard just made; the claim follows
            if self.last_event != "discard" or self.last_discard is None or (
                    self.last_discard[1] != T(e["tile"])):
                self.bad(f"点杠开杠 of {e['tile']} not on that discard (after {self.last_event})")
        else:
            self._expect("turn", seat)
        if "kaigang" not in self.plugins:
            self.bad("开杠 without the kaigang plugin")
        self.open_kong = (seat, T(e["tile"]))
        if e.get("kind") == "added":
            self.pending_rob = (seat, T(e["tile"]))  # robbed (抢杠) before the kong is made

    def on_kong(self, e: dict[str, Any]) -> None:
        seat, kind, tile = e["seat"], e["kind"], T(e["tile"])
        self._expect("turn", seat)
        h = self.seats[seat]
        if h.locked:
            self.bad(f"locked seat {seat} makes a kong")
        if self.wildcard is not None and tile == self.wildcard:
            self.bad("a kong of wildcards")
        if kind == "concealed":
            if not h.take(tile, 4):
                self.bad(f"seat {seat} declares a concealed kong of {e['tile']} without four")
            h.melds.append(Meld("concealed-kong", (tile,) * 4))
        elif kind == "added":
            i = next((i for i, m in enumerate(h.melds) if m.kind == "pung" and m.tiles[0] == tile), None)
            if i is None or not h.take(tile):
                self.bad(f"seat {seat} adds {e['tile']} to a pung it doesn't have (or lacks the tile)")
            else:
                h.melds[i] = Meld("added-kong", (tile,) * 4, h.melds[i].from_seat)
            self.pending_rob = (seat, tile)
        else:
            self.bad(f"kong kind {kind!r}")
        self.kongs.append((seat, kind, None))
        self.check_sizes(seat, self.held, f"a {kind} kong")
        if self.open_kong is not None and self.open_kong[0] == seat:
            if self.open_kong[1] != tile:
                self.bad("开杠 of one tile, kong of another")
            h.locked = True
            self.expect = ("open_kong_draw", seat)
        else:
            self.expect = ("kong_draw", seat)

    def on_haidi(self, e: dict[str, Any]) -> None:
        seat, action = e["seat"], e["action"]
        if "haidi" not in self.plugins:
            self.bad("海底漫游 without the haidi plugin")
        if not self.haidi:
            self._expect("draw", seat)
            if self.live_left() != 1:
                self.bad(f"海底 offered with {self.live_left()} live tiles left")
        elif seat != (self.haidi[-1][0] + 1) % 4 or self.haidi[-1][1] != "pass":
            self.bad(f"海底 offered to seat {seat} out of turn")
        self.haidi.append((seat, action))
        self.expect = ("draw", seat) if action == "take" else None

    def on_haidi_shown(self, e: dict[str, Any]) -> None:
        seat = e["seat"]
        drawn = self.last_draw.get(seat)
        if not self.haidi or self.haidi[-1] != (seat, "take") or drawn is None or drawn[0] != T(e["tile"]):
            self.bad(f"海底 {e['tile']} shown by seat {seat}, who did not take it")
        self.haidi_shown = seat
        self.last_discard = (seat, T(e["tile"]))
        self.discard_flags = {"last_tile"}
        self.expect = None

    def on_win(self, e: dict[str, Any]) -> None:
        seat, by, tile = e["seat"], e["win_by"], T(e["tile"])
        h = self.seats[seat]
        flags: set[str] = set()
        discarder: int | None = None
        if by == "self_draw":
            self._expect("turn", seat)
            if not h.take(tile):
                self.bad(f"seat {seat} wins by self-draw on {e['tile']} without holding it")
            drawn = self.last_draw.get(seat)
            first_turn = h.turns == 1 and self.claims_made == 0
            if self.last_event not in ("draw", "deal", "opening_win"):
                self.bad(f"self-draw win after {self.last_event}, not right after a draw")
            elif drawn is None and not (seat == self.dealer and first_turn):
                self.bad("self-draw win without a drawn tile")
            elif drawn is not None and drawn[0] != tile:
                self.bad(f"self-draw win on {e['tile']}, but seat {seat} drew {drawn[0]}")
            if drawn is not None:
                if drawn[1] == "kong":
                    flags.add("after_kong")
                if drawn[2]:
                    flags.add("last_tile")
            if self.open_kong is not None and self.open_kong[0] == seat:
                flags.add("open_kong")
            if first_turn and (drawn is None or drawn[1] == "wall"):
                flags.add("first_turn")
        elif by == "discard":
            if not self.rules["discard_win"] and self.haidi_shown is None:
                self.bad("a win on a discard in a self-draw-only ruleset")
            if self.last_discard is None or self.last_event not in ("discard", "win", "haidi_shown"):
                self.bad(f"discard win after {self.last_event}")
                return
            discarder, dtile = self.last_discard
            if e["from_seat"] != discarder or tile != dtile:
                self.bad(f"discard win on {e['tile']} from {e['from_seat']}; last discard {dtile} "
                         f"by {discarder}")
            if self.wildcard is not None and tile == self.wildcard:
                self.bad("a win on a discarded wildcard")
            flags |= self.discard_flags
            if (discarder == self.dealer and len(self.seats[discarder].discards) == 1
                    and self.claims_made == 0 and h.turns == 0):
                flags.add("first_turn")
        elif by == "robbed_kong":
            if not self.rules["robbed_kong"] or self.pending_rob is None or self.last_event not in (
                    "kong", "win", "open_kong"):
                self.bad("robbing a kong where that isn't possible")
                return
            discarder = self.pending_rob[0]
            if e["from_seat"] != discarder or tile != self.pending_rob[1]:
                self.bad("robbed-kong win on the wrong tile or seat")
        else:
            self.bad(f"win_by {by!r}")
            return
        same_group = bool(self.wins) and self.last_event == "win"
        if by != "self_draw" and same_group and not (self.rules["multi_win"] or self.haidi_shown is not None):
            self.bad("two winners on one discard")
        if seat in self.out:
            self.bad(f"seat {seat} wins after leaving the hand")
        if same_group:
            self.groups[-1].append(e)
        else:
            self.groups.append([e])
        if h.size() != self.held:
            self.bad(f"winner seat {seat} holds {h.size()} + the winning tile")
        self.wins.append(e)
        self.expect = None
        if not self.claims_made:
            flags.add("no_claims_yet")
        ctx = self.win_context(seat, by, discarder, flags, tile)
        try:
            score = self.ev.score(Hand(tuple(h.tiles()), tuple(h.melds), tile), ctx, self.wildcard)
        except HandError as ex:
            self.bad(f"seat {seat}'s winning hand is impossible: {ex}")
            return
        if not score.win:
            self.bad(f"seat {seat}'s logged win does not score: {score.reason}; hand {h.tiles()} "
                     f"melds {[str(m) for m in h.melds]} tile {e['tile']}")
        elif score.pattern_names != e["patterns"] or score.points != e["points"]:
            self.bad(f"seat {seat}'s win scores {score.pattern_names} {score.points} from the log, "
                     f"logged {e['patterns']} {e['points']} (flags {sorted(ctx.flags)})")
        if by == "discard" and not self.rules["multi_win"] and discarder is not None:
            # 截胡: nobody earlier in turn order after the discarder could have won.
            for k in range(1, 4):
                other = (discarder + k) % 4
                if other == seat:
                    break
                o = self.seats[other]
                oc = self.win_context(other, "discard", discarder, flags, tile, state=False)
                if o.size() == self.held and self.ev.is_win(Hand(tuple(o.tiles()), tuple(o.melds), tile), oc,
                                                     self.wildcard):
                    self.bad(f"seat {seat} won on the discard, but seat {other} comes first and could")
        if by == "self_draw":
            h.concealed[tile] += 1  # back in the hand (a discard stays in the discarder's pile)
        self.pending_settlement = ("win", e)

    def win_context(self, seat: int, by: str, discarder: int | None, flags: set[str], tile: int,
                    state: bool = True) -> WinContext:
        """The context a win by ``seat`` is re-scored in (``state``: with its per-seat state)."""
        return WinContext(seat=seat, win_by=by, discarder=discarder, dealer=self.dealer,
                          flags=frozenset(flags), seat_state=dict(self.state[seat]) if state else {},
                          in_play=frozenset(s for s in range(4) if s not in self.out)
                          if self.out and state else None)

    def on_leave(self, e: dict[str, Any]) -> None:
        """A player left: the ruleset's declared penalty is settled next, then the hand
        is abandoned (or a bot plays on)."""
        rule = self.ev.ruleset.leave
        if (e["penalty"], e["paid_to"], e["hand"]) != (rule.penalty, rule.paid_to, rule.hand):
            self.bad(f"leave {e}: the ruleset declares {rule}")
        if e["seat"] in self.left:
            self.bad(f"seat {e['seat']} leaves twice")
        self.left.append(e["seat"])
        self.pending_leave = e["seat"] if rule.penalty else None

    def on_settlement(self, e: dict[str, Any]) -> None:
        pays = e["payments"]
        # Zero-sum, or short by exactly the ruleset's declared leave penalty (paid to nobody).
        for problem in check_balance(self.ev.ruleset, e["items"], pays):
            self.bad(f"settlement: {problem}")
        if self.pending_leave is not None:
            leaver, self.pending_leave = self.pending_leave, None
            rule = self.ev.ruleset.leave
            payees = [None] if rule.paid_to == "none" else [s for s in range(4) if s != leaver]
            want = [{"payer": leaver, "payee": p, "amount": rule.penalty, "reason": "leave"} for p in payees]
            if e["items"] != want:
                self.bad(f"leave settlement {e['items']}, expected {want}")
            return
        if any(it["payee"] is None for it in e["items"]):
            self.bad(f"a payment to nobody that is no leave penalty: {e['items']}")
        if any(it["payer"] in self.out for it in e["items"]):
            self.bad(f"a seat that left the hand pays: {e['items']}")
        if e.get("kind") is not None:
            self.on_declared_settlement(e)
            return
        if self.pending_settlement is None:
            if self.rules["kongs_void"]:
                self.bad("payments on a drawn hand where they are void")
            return
        kind, what = self.pending_settlement
        self.pending_settlement = None
        if kind == "opening":
            self.check_items(what, "self_draw", e["items"], self.birds.get("opening", []), kongs=False)
        else:
            self.check_items(what, what["win_by"], e["items"], self.birds.get("win", []),
                             kongs=self.settled_wins == 0 and self.flow.kongs_paid == "at_win")
            self.settled_wins += 1
            if self.flow.continues:
                self.set_aside(what)

    def on_declared_settlement(self, e: dict[str, Any]) -> None:
        """A settlement with a ``kind``: a kong paid when made, or a drawn end's (refund, draw).
        Amounts are the ruleset's; here: when they may happen and who is in them."""
        kind = e["kind"]
        if kind == "kong":
            if self.flow.kongs_paid != "at_kong" or not self.kongs:
                self.bad("a kong settlement where kongs are not paid at the kong")
            elif self.last_event not in ("kong", "claim"):
                self.bad(f"a kong settlement after {self.last_event}")
            elif any(it["payee"] != self.kongs[-1][0] for it in e["items"]):
                self.bad(f"kong money to someone else than the konger {self.kongs[-1][0]}: {e['items']}")
        elif kind in ("draw", "refund"):
            if self.live_left():
                self.bad(f"a drawn end's {kind} settlement with {self.live_left()} live tiles left")
        else:
            self.bad(f"settlement kind {kind!r}")

    def set_aside(self, win: dict[str, Any]) -> None:
        """After a settled win in a hand that goes on: the winning tile leaves play with the
        winner (several winners on one discard share it), the winner leaves or is locked."""
        seat, tile, by = win["seat"], T(win["tile"]), win["win_by"]
        h = self.seats[seat]
        first = self.groups[-1][0] is win
        if by == "self_draw":
            h.take(tile)
        elif by == "discard" and first and self.last_discard is not None:
            self.seats[self.last_discard[0]].discards.pop()
        elif by == "robbed_kong" and first and self.pending_rob is not None:
            k = self.seats[self.pending_rob[0]]
            i = next((i for i, m in enumerate(k.melds)
                      if m.kind == "added-kong" and m.tiles[0] == tile), None)
            if i is not None:  # the robbed kong stays a pung
                k.melds[i] = Meld("pung", (tile,) * 3, k.melds[i].from_seat)
            if self.kongs and self.kongs[-1][:2] == (self.pending_rob[0], "added"):
                self.kongs.pop()  # it never became a kong
        if first:
            self.won[seat].append(tile)
        self.state[seat]["wins"] = self.state[seat].get("wins", 0) + 1
        if self.flow.after_win == "leave":
            self.out.add(seat)
        else:
            h.locked = True
        group = self.groups[-1]
        if group[-1] is win:  # the group's last settlement: play resumes after the last winner
            after = seat if by == "self_draw" else win["from_seat"]
            order = [(after + k) % 4 for k in range(1, 5)]
            last = max((w["seat"] for w in group), key=order.index)
            self.expect = ("draw", self.next_active(last))

    def check_items(self, win: dict[str, Any], by: str, items: list[dict[str, Any]], birds: list[int],
                    kongs: bool) -> None:
        """A win's (or an opening declaration's) payments, and the kong payments with it."""
        w = win["seat"]
        reason = "+".join(win["patterns"])
        mine = [it for it in items if it["reason"].split(" ×")[0] == reason]
        others = [it for it in items if it not in mine]
        payers = sorted(it["payer"] for it in mine)
        want_payers = (sorted(s for s in range(4) if s != w and s not in self.out) if by == "self_draw"
                       else [win["from_seat"]])
        if payers != want_payers or any(it["payee"] != w for it in mine):
            self.bad(f"payments {mine}: expected payers {want_payers} paying seat {w}")
        hits = self.hits(birds)
        for it in mine:
            base = win["points"] + (self.rules["dealer_bonus"] if self.dealer in (it["payer"], w) else 0)
            amount = base * 2 ** (hits[it["payer"]] + hits[w])
            if it["amount"] != amount:
                self.bad(f"seat {it['payer']} pays {it['amount']} for {reason}, expected {amount} "
                         f"(birds {birds})")
        want_kongs = Counter(self.kong_payments()) if kongs else Counter()
        got_kongs = Counter((it["payer"], it["payee"], it["amount"]) for it in others)
        if got_kongs != want_kongs:
            self.bad(f"kong payments {dict(got_kongs)}, expected {dict(want_kongs)}")

    def kong_payments(self) -> list[tuple[int, int, int]]:
        table = self.rules.get("kong_pay") or {}
        out = []
        for owner, kind, frm in self.kongs:
            if kind not in table:
                continue
            who, amount = table[kind]
            if who == "discarder":
                out.append((frm, owner, amount))
            else:
                out += [(p, owner, amount) for p in range(4) if p != owner]
        return out

    def on_abandon(self, e: dict[str, Any]) -> None:
        if self.pending_leave is not None:
            self.bad("abandoned before the leaver's penalty was settled")
        self.abandoned = True

    def on_reveal(self, e: dict[str, Any]) -> None:
        """A face-down kong turned up at the hand's end: each one exactly once, as it was made."""
        seat, tiles = e["seat"], [T(c) for c in e["tiles"]]
        m = Meld(e["kind"], tuple(tiles))
        if m not in [x for x in self.seats[seat].melds if x.kind == "concealed-kong"]:
            self.bad(f"seat {seat} reveals {e['tiles']}, not one of its concealed kongs")
        self.revealed.append((seat, m))

    def on_hand_start(self, e: dict[str, Any]) -> None:
        self.bad("hand_start inside a hand")

    def on_hand_end(self, e: dict[str, Any]) -> None:
        self.result = e["result"]
        nxt = e["next_dealer"]
        self.next_dealer = nxt
        face_down = sorted((s, m.tiles) for s, h in enumerate(self.seats) for m in h.melds
                           if m.kind == "concealed-kong")
        if sorted((s, m.tiles) for s, m in self.revealed) != face_down:
            self.bad(f"concealed kongs {face_down} but revealed {self.revealed}")
        if self.abandoned:
            if self.result != "abandon":
                self.bad("an abandoned hand must end with result abandon")
            return
        if self.pending_settlement is not None:
            self.bad(f"no settlement for the {self.pending_settlement[0]}")
        want: int | None
        if self.result == "win":
            if not self.wins:
                self.bad("result win without a win event")
                return
            if self.settled_wins != len(self.wins):
                self.bad(f"{len(self.wins)} wins but {self.settled_wins} settlements")
            group = self.groups[0] if self.flow.which_win == "first" else self.groups[-1]
            want = group[0]["from_seat"] if len(group) > 1 else group[0]["seat"]
            if self.rules.get("dealer_passes"):
                want = (self.dealer + 1) % 4
            elif self.rules.get("dealer_or_next"):  # the dealer stays on a win of its own, else passes
                want = self.dealer if any(w["seat"] == self.dealer for w in group) else (self.dealer + 1) % 4
            if self.flow.continues:
                self.check_continued_end(e)
        elif self.result == "draw":
            if self.wins:
                self.bad("result draw after a win")
            want = self._drawn_hand_dealer()
        else:
            self.bad(f"result {self.result!r}")
            return
        also = set(self.rules.get("bird_dealer_also", ()))
        openers = {o["seat"] for o in self.opening} | {w["seat"] for w in self.wins
                                                       if also.intersection(w["patterns"])}
        if len(openers) >= 2 and self.opening_birds:
            hits = [(self.dealer + rank_of(t) - 1) % 4 for t in self.opening_birds]
            want = max(hits, key=lambda s: (hits.count(s), -hits.index(s)))
        if nxt != want:
            self.bad(f"next dealer {nxt}, expected {want} ({self.result})")
        self.account()

    def check_continued_end(self, e: dict[str, Any]) -> None:
        """A hand that went on after wins ends when enough players have won, or at the wall's end."""
        winners: list[int] = []
        for w in self.wins:
            if w["seat"] not in winners:
                winners.append(w["seat"])
        if e.get("winners") != winners:
            self.bad(f"hand_end winners {e.get('winners')}, the wins say {winners}")
        need = self.flow.after_winners
        before_last = {w["seat"] for g in self.groups[:-1] for w in g}
        if need is not None and len(before_last) >= need:
            self.bad(f"play went on after {len(before_last)} players had won; the hand ends at {need}")
        enough = (need is not None and len(winners) >= need) or len(self.out) >= 3
        if not enough and self.live_left():
            self.bad(f"the hand ended with {len(winners)} winner(s) and {self.live_left()} live tiles left")

    def _drawn_hand_dealer(self) -> int | None:
        if self.haidi:
            taker = next((s for s, a in self.haidi if a == "take"), None)
            if taker is None:
                if len(self.haidi) != 4:
                    self.bad(f"drawn after {len(self.haidi)} passes of the 海底")
                return self.haidi[0][0]
            if self.live_left():
                self.bad("the 海底 taker left live tiles")
            return taker
        if self.last_event == "discard":
            if self.live_left():
                self.bad(f"drawn hand with {self.live_left()} live tiles left")
        elif self.last_event in ("kong", "claim"):
            if self.kong_left():
                self.bad(f"drawn hand (no kong replacement) with {self.kong_left()} kong-end tiles left")
        else:
            self.bad(f"drawn hand ends after {self.last_event}")
        if "haidi" in self.plugins and self.kong_haidi is not None:
            return self.kong_haidi
        if self.rules["after_draw"] == "last_drawer":
            return self.last_wall_drawer
        return (self.dealer + 1) % 4

    def account(self) -> None:
        """Every tile of the set exactly once: in hands, melds, discards, the indicator, the wall."""
        held: Counter[int] = Counter()
        for s in self.seats:
            held.update(s.concealed)
            for m in s.melds:
                held.update(m.tiles)
            held.update(s.discards)
        for won in self.won:
            held.update(won)
        if self.indicator is not None:
            held[self.indicator] += 1
        left = Counter(self.slots[i] for i in range(len(self.slots)) if not self.taken[i])
        if held + left != Counter(self.slots):
            full = Counter(self.slots)
            self.bad(f"tiles not accounted for: extra {dict(held + left - full)}, "
                     f"missing {dict(full - held - left)}")
        if sum(self.taken) + sum(left.values()) != self.rules["size"]:
            self.bad("deal + draws + indicator + the rest is not the full set")


class LogChecker:
    """``ruleset``: the ruleset file when the log's id is not a built-in one; ``like``: the
    built-in ruleset whose rule facts (``RULES``) it shares."""

    def __init__(self, ruleset: str | Path | None = None, like: str | None = None) -> None:
        self.ruleset = ruleset
        self.like = like
        self.problems: list[str] = []
        self.hands = 0
        self.results: Counter[str] = Counter()
        self.events: Counter[str] = Counter()
        self.multi_win_hands: Counter[int] = Counter()  # hands by their number of win events
        self.evs: dict[str, Evaluator] = {}

    def check(self, path: Path) -> list[str]:
        with open(path, encoding="utf-8") as f:
            header = json.loads(f.readline())
            assert header["type"] == "simulation", header
            rid = header["ruleset"]
            options = header.get("options") or {}  # the house rules the hands were played with
            key = json.dumps([rid, options], sort_keys=True)
            if key not in self.evs:
                self.evs[key] = Evaluator(load_ruleset(self.ruleset or rid, options=options or None))
            ev = self.evs[key]
            if self.like:
                RULES.setdefault(rid, RULES[self.like])
            per_game = header["hands_per_game"]
            hand: HandCheck | None = None
            for line in f:
                e = json.loads(line)
                self.events[e["type"]] += 1
                if e["type"] == "hand_start":
                    prev = hand
                    if prev is not None and prev.result is None:
                        prev.bad("no hand_end")
                    self._start(e, rid, per_game, prev)
                    hand = HAND_CHECKS.get(self.like or rid, HandCheck)(rid, e, self.problems, ev)
                    self.hands += 1
                    continue
                if hand is None:
                    self.problems.append(f"event before any hand_start: {line[:80]}")
                    continue
                hand.feed(e)
                if e["type"] == "hand_end":
                    self.results[e["result"]] += 1
                    self.multi_win_hands[len(hand.wins)] += 1
        if hand is not None and hand.result is None:
            hand.bad("the log ends inside a hand")
        if self.hands != header["hands"]:
            self.problems.append(f"{self.hands} hands logged, the header says {header['hands']}")
        return self.problems

    def _start(self, e: dict[str, Any], rid: str, per_game: int, prev: HandCheck | None) -> None:
        n = self.hands
        if e["hand"] != n or e["game"] != n // per_game or e["ruleset"] != rid:
            self.problems.append(f"hand_start {e} out of order (expected hand {n})")
        if not 0 <= e["dealer"] < 4:
            self.problems.append(f"hand {n}: dealer {e['dealer']}")
        if n % per_game == 0:
            if RULES[rid]["first"] == "seat0" and e["dealer"] != 0:
                self.problems.append(f"hand {n}: a game's first dealer is {e['dealer']}, not 0")
        elif prev is not None and e["dealer"] != prev.next_dealer:
            self.problems.append(f"hand {n}: dealer {e['dealer']}, the last hand named {prev.next_dealer}")


# -- the tests ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("replay")
    out = {}
    for rid in RULESETS:
        p = d / f"{rid}.jsonl"
        res = simulate(rid, HANDS, seed=SEED, log=p, workers=1)
        assert res.stats.hands == HANDS
        out[rid] = p
    return out


@pytest.mark.parametrize("rid", RULESETS)
def test_replay_from_log(logs: dict[str, Path], rid: str) -> None:
    checker = LogChecker()
    problems = checker.check(logs[rid])
    assert checker.hands == HANDS
    assert checker.results["abandon"] == 0, problems[:5]
    assert checker.results["win"] > 0 and checker.events["discard"] > 0
    assert not problems, f"{len(problems)} problems, first ones:\n" + "\n".join(problems[:15])


PLUS = """\
format: 1
id: changsha-plus
name: 长沙麻将 with 海底漫游 and 开杠
extends: changsha
plugins:
  haidi: {}
  kaigang: {dice: 2}
"""


def test_replay_with_the_last_tile_and_open_kong_plugins(tmp_path: Path) -> None:
    """The optional 海底漫游 and 开杠 plugins switched on: their events replay too."""
    rs = tmp_path / "changsha-plus.yaml"
    rs.write_text(PLUS, "utf-8")
    log = tmp_path / "plus.jsonl"
    simulate(str(rs), HANDS, seed=SEED + 1, log=log)
    checker = LogChecker(rs, like="changsha")
    problems = checker.check(log)
    assert checker.events["haidi"] > 0 and checker.events["haidi_shown"] > 0
    assert checker.events["open_kong"] > 0
    assert not problems, f"{len(problems)} problems, first ones:\n" + "\n".join(problems[:15])


LEAVE = """\
format: 1
id: changsha-leave
name: 长沙麻将, winners leave and the others play on
extends: changsha
win: {after_win: leave}
# The plugins' procedures (birds for the win that ends the hand, the roaming last
# tile, 开杠) are written for a hand that ends at its first win: off here.
bonus_tiles: null
plugins: {opening-wins: null, haidi: null, kaigang: null}
"""


def test_replay_when_winners_leave_and_the_others_play_on(tmp_path: Path) -> None:
    """Several wins in one hand (``win.after_win: leave``): each settles when it happens, the
    winners make no move after it, their tiles stay accounted for, play resumes after the
    last winner, the first win names the next dealer."""
    rs = tmp_path / "changsha-leave.yaml"
    rs.write_text(LEAVE, "utf-8")
    log = tmp_path / "leave.jsonl"
    simulate(str(rs), HANDS // 4, seed=SEED + 2, log=log)
    checker = LogChecker(rs, like="changsha")
    problems = checker.check(log)
    assert not problems, f"{len(problems)} problems, first ones:\n" + "\n".join(problems[:15])
    per_hand = Counter()
    wins = 0
    for line in log.read_text("utf-8").splitlines()[1:]:
        e = json.loads(line)
        if e["type"] == "win":
            wins += 1
        elif e["type"] == "hand_end":
            per_hand[len(e["winners"])] += 1
    assert per_hand[2] and per_hand[3], per_hand


def _rewrite(lines: list[str], i: int, **changes: Any) -> list[str]:
    """The log with event ``i`` changed, up to the end of the hand after its own (what a
    check of it can need: the next hand's dealer, money carried), not the whole run: each
    doctored log is checked again, and a whole 2,000-hand log takes seconds."""
    e = json.loads(lines[i])
    e.update(changes)
    starts = [k for k in range(i + 1, len(lines)) if '"type":"hand_start"' in lines[k]][:2]
    end = starts[1] if len(starts) == 2 else len(lines)
    return [*lines[:i], json.dumps(e, ensure_ascii=False), *lines[i + 1:end]]


def test_the_checker_catches_doctored_logs(logs: dict[str, Path], tmp_path: Path) -> None:
    """The checker is not vacuous: a swapped draw, a wrong next dealer, an unpaid item are caught."""
    lines = logs["yongzhou-wangba"].read_text("utf-8").splitlines()
    p = tmp_path / "bad.jsonl"

    def problems(doctored: list[str]) -> list[str]:
        p.write_text("\n".join(doctored) + "\n", "utf-8")
        return LogChecker().check(p)

    i = next(i for i, line in enumerate(lines) if '"type":"draw"' in line)
    tile = json.loads(lines[i])["tile"]
    assert any("drew" in q for q in problems(_rewrite(lines, i, tile="1z" if tile != "1z" else "2z")))
    j = next(j for j, line in enumerate(lines) if '"type":"hand_end"' in line)
    nxt = json.loads(lines[j])["next_dealer"]
    assert any("dealer" in q for q in problems(_rewrite(lines, j, next_dealer=(nxt + 1) % 4)))
    k = next(k for k, line in enumerate(lines) if '"type":"settlement"' in line)
    pays = json.loads(lines[k])["payments"]
    assert any("sum to" in q for q in problems(_rewrite(lines, k, payments=[pays[0] + 1, *pays[1:]])))
    c = next(c for c, line in enumerate(lines) if '"type":"claim"' in line)
    assert any("claim" in q or "holding" in q for q in problems(_rewrite(lines, c, seat=(json.loads(
        lines[c])["from_seat"]))))


# -- engine findings (each reproduces one bug found by the replay check) ---------------


def test_engine_kong_replacement_where_the_two_ends_meet() -> None:
    """Engine bug (wall.py ``Wall.take_kong``): without an indicator the live end and the
    kong end meet. When the live end has taken the *top* of the last stack, its bottom tile
    is still there — ``live_remaining() == kong_remaining() == 1``, so the engine offers a
    kong — but ``take_kong`` looks at the top slot first, sees it is behind the live end and
    returns None ("the ends have met") instead of moving on to the bottom tile. The hand is
    then scored as drawn and that tile is never drawn.

    Seen in a simulation: ``mj simulate changsha --hands 300 --seed 2024`` hand 93 (game 11,
    hand 5, hand seed 7988636655273188662, dealer 2): seat 0 draws 1p as the second-to-last
    tile, makes an added kong of 1p (event 118), and the hand ends drawn although the last
    tile (slot 107) is still in the wall.
    """
    rs = load_ruleset("changsha")
    wall = Wall(rs, random.Random(7), dealer=0)
    wall.break_wall()
    for _ in range(len(wall.slots) - 1):
        assert wall.take_live() is not None
    assert wall.live_remaining() == 1 and wall.kong_remaining() == 1  # so a kong is offered
    assert wall.take_kong() is not None, "the last tile (the bottom of the last stack) is lost"


# -- 四川麻将 · 血战到底 (docs/rules/sichuan-xuezhan.md) -----------------------------------
#
# The same log-only replay as above, with what 血战到底 adds: the 换三张 exchange (three tiles of
# one suit, to the seat the dice name; tiles conserved), 定缺 declarations (void tiles discarded
# first, never claimed, never in a winning hand), several wins per hand (winners leave: no events
# by them afterwards; a self-draw is paid only by the players still in), 番 amounts (base × 2^番,
# at most 4 番, + 1 per payer on a self-draw under 自摸加底), kong money paid at the kong
# (刮风下雨), and the drawn end (退税, 查花猪, 查大叫), every settlement summing to zero.

SC_EXCHANGE = {2: "left", 5: "left", 8: "left", 11: "left", 3: "across", 6: "across", 9: "across",
               12: "across", 4: "right", 7: "right", 10: "right"}
SC_STEP = {"right": 1, "across": 2, "left": 3}
SC_KONG = {"kong": 2, "added": 1, "concealed": 2}  # 直杠 from the discarder; 补杠 / 暗杠 from each in play
SC_CAP = 4
SC_HUAZHU = 16
RULES["sichuan-xuezhan"] = dict(
    size=108, kinds=27, chow=False, discard_win=True, multi_win=True, robbed_kong=True,
    after_draw="dealer", first="random", deal=DEAL_CHANGSHA, brk=_cs_break, wildcard=False,
    kongs_void=False, dealer_bonus=0)


def _suit(t: int) -> int:
    return t // 9


class XuezhanCheck(HandCheck):
    """:class:`HandCheck` for 血战到底: several wins per hand, exchange, void suits, money."""

    QUIET = (*HandCheck.QUIET, "exchange", "declare")

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.out: list[int] = []  # winners, in order (they have left the hand)
        self.void: dict[int, int] = {}
        self.exchanged = False
        self.win_groups: list[tuple[list[int], int | None]] = []  # (winners, discarder) per win
        self.last_drawer_kong: int | None = None  # seat whose last draw was a kong replacement
        self.last_kong: tuple[int, str, int | None] | None = None
        self.kong_income: list[tuple[int, list[tuple[int, int, int]]]] = []  # owner, (payer, payee, n)
        self.refunds: Counter[tuple[int, int, int]] = Counter()
        self.drawn_pays: Counter[tuple[int, int, int]] = Counter()

    def active(self) -> list[int]:
        return [s for s in range(4) if s not in self.out]

    def next_active(self, seat: int) -> int:
        for k in range(1, 5):
            if (seat + k) % 4 not in self.out:
                return (seat + k) % 4
        return seat

    def in_void(self, seat: int, t: int) -> bool:
        return seat in self.void and _suit(t) == self.void[seat]

    def holds_void(self, seat: int) -> bool:
        return any(self.in_void(seat, t) for t in self.seats[seat].concealed)

    def feed(self, e: dict[str, Any]) -> None:
        seat = e.get("seat")
        if e["type"] in ("draw", "discard", "claim", "kong", "win") and seat in self.out:
            self.index += 1
            self.bad(f"seat {seat} already won and left, but has a {e['type']} event")
            return
        super().feed(e)

    # -- before play -------------------------------------------------------------------

    def on_exchange(self, e: dict[str, Any]) -> None:
        if self.last_event != "deal" or self.exchanged:
            self.bad(f"exchange after {self.last_event}")
        self.exchanged = True
        want = SC_EXCHANGE[sum(self.dice.get("exchange", [0]))] if "exchange" in self.dice else None
        if e["direction"] != want:
            self.bad(f"exchange to the {e['direction']}; the dice {self.dice.get('exchange')} say {want}")
        passes = e["passes"]
        if sorted(p["seat"] for p in passes) != [0, 1, 2, 3]:
            self.bad(f"exchange passes {passes}")
            return
        before = [s.size() for s in self.seats]
        taken = {}
        for p in passes:
            seat, tiles = p["seat"], [T(c) for c in p["tiles"]]
            if p["to"] != (seat + SC_STEP.get(e["direction"], 0)) % 4:
                self.bad(f"seat {seat} passes to {p['to']} going {e['direction']}")
            if len(tiles) != 3 or len({_suit(t) for t in tiles}) != 1:
                self.bad(f"seat {seat} passes {p['tiles']}: not three tiles of one suit")
            for t in tiles:
                if not self.seats[seat].take(t):
                    self.bad(f"seat {seat} passes {p['tiles']} without holding them")
            taken[p["to"]] = tiles
            if "given" in e and sorted(T(c) for c in e["given"][seat]) != sorted(tiles):
                self.bad(f"seat {seat} is shown giving {e['given'][seat]}, it passed {p['tiles']}")
            if "received" in e and sorted(T(c) for c in e["received"][p["to"]]) != sorted(tiles):
                self.bad(f"seat {p['to']} is shown receiving {e['received'][p['to']]}, it got {p['tiles']}")
        for to, tiles in taken.items():
            self.seats[to].concealed.update(tiles)
        if [s.size() for s in self.seats] != before:
            self.bad(f"the exchange changed hand sizes {before} → {[s.size() for s in self.seats]}")

    def on_declare(self, e: dict[str, Any]) -> None:
        seat = e["seat"]
        if e["what"] != "void_suit" or e["value"] not in ("m", "p", "s"):
            self.bad(f"declaration {e}")
            return
        if not self.exchanged or seat in self.void or self.last_event != "deal":
            self.bad(f"seat {seat} declares a void suit out of place (after {self.last_event})")
        self.void[seat] = "mps".index(e["value"])

    # -- play ---------------------------------------------------------------------------

    def on_draw(self, e: dict[str, Any]) -> None:
        if len(self.void) != 4:
            self.bad("play starts before every seat declared a void suit")
        super().on_draw(e)
        self.last_drawer_kong = e["seat"] if e["source"] == "kong" else None

    def on_discard(self, e: dict[str, Any]) -> None:
        seat, tile = e["seat"], T(e["tile"])
        self._expect("turn", seat)
        if self.holds_void(seat) and not self.in_void(seat, tile):
            self.bad(f"seat {seat} discards {e['tile']} while holding its void suit")
        h = self.seats[seat]
        if not h.take(tile):
            self.bad(f"seat {seat} discarded {e['tile']} without holding it")
        h.discards.append(tile)
        for s in self.active():
            self.check_sizes(s, 13, f"seat {seat}'s discard")
        self.last_discard = (seat, tile)
        self.haidi_discard = self.live_left() == 0
        self.discard_flags = {"last_tile"} if self.haidi_discard else set()
        if self.last_drawer_kong == seat and self.last_event == "draw":
            self.discard_flags.add("after_kong_discard")
        self.last_drawer_kong = None
        self.expect = ("draw", self.next_active(seat))

    def on_claim(self, e: dict[str, Any]) -> None:
        if self.last_discard is not None and self.in_void(e["seat"], self.last_discard[1]):
            self.bad(f"seat {e['seat']} claims {e['tiles']} of its void suit")
        super().on_claim(e)
        if e["kind"] == "kong":
            self.last_kong = (e["seat"], "kong", e["from_seat"])

    def on_kong(self, e: dict[str, Any]) -> None:
        if self.in_void(e["seat"], T(e["tile"])):
            self.bad(f"seat {e['seat']} makes a kong of its void suit")
        super().on_kong(e)
        self.last_kong = (e["seat"], e["kind"], None)

    def on_win(self, e: dict[str, Any]) -> None:
        seat = e["seat"]
        h = self.seats[seat]
        tiles = [*h.tiles(), T(e["tile"])] if e["win_by"] != "self_draw" else h.tiles()
        tiles += [t for m in h.melds for t in m.tiles]
        if any(self.in_void(seat, t) for t in tiles):
            self.bad(f"seat {seat} wins holding its void suit")
        if e["points"] > SC_CAP:
            self.bad(f"a win of {e['points']} 番, above the cap")
        robbed = e["win_by"] == "robbed_kong"
        if robbed:  # the robbed kong is not made: no kong money, the pung stays a pung
            self.last_kong = None
            owner = self.seats[e["from_seat"]]
            for i, m in enumerate(owner.melds):
                if m.kind == "added-kong" and m.tiles[0] == T(e["tile"]):
                    owner.melds[i] = Meld("pung", m.tiles[:3], m.from_seat)
        super().on_win(e)
        if robbed and not any(w is not e and w["win_by"] == "robbed_kong" for w in self.wins):
            self.seats[seat].concealed[T(e["tile"])] += 1  # the robbed tile leaves with the (first) robber
        by, frm = e["win_by"], e.get("from_seat")
        same = (self.win_groups and by != "self_draw" and self.last_event == "win"
                and self.win_groups[-1][1] == frm)
        if same:
            self.win_groups[-1][0].append(seat)
        else:
            self.win_groups.append(([seat], frm if by != "self_draw" else None))
        after = frm if by != "self_draw" and frm is not None else seat
        self.out.append(seat)
        if len(self.out) < 3:
            order = [(after + i) % 4 for i in range(1, 5)]
            last = max(self.win_groups[-1][0], key=order.index)
            self.expect = ("draw", self.next_active(last))

    # -- money -------------------------------------------------------------------------

    def on_settlement(self, e: dict[str, Any]) -> None:
        pays = e["payments"]
        if sum(pays) != 0:
            self.bad(f"settlement {pays} does not sum to zero")
        items = [(it["payer"], it["payee"], it["amount"]) for it in e["items"]]
        net = [0] * 4
        for payer, payee, n in items:
            net[payer] -= n
            if payee is not None:
                net[payee] += n
        if net != pays:
            self.bad(f"settlement {pays} differs from its items {net}")
        kind = e.get("kind")
        if kind == "kong":
            self.check_kong(items)
        elif kind == "refund":
            self.refunds.update(items)
        elif kind == "draw":
            self.drawn_pays.update(items)
        elif self.pending_settlement is None or self.pending_settlement[0] != "win":
            self.bad(f"a win settlement without a win ({e})")
        else:
            self.check_win_pay(self.pending_settlement[1], items)
            self.pending_settlement = None
            self.settled_wins += 1

    def check_kong(self, items: list[tuple[int, int | None, int]]) -> None:
        if self.last_kong is None:
            self.bad(f"kong money {items} without a kong")
            return
        owner, kind, frm = self.last_kong
        self.last_kong = None
        if kind == "kong":
            want = [(frm, owner, SC_KONG[kind])]
        else:
            want = [(p, owner, SC_KONG[kind]) for p in self.active() if p != owner]
        if Counter(items) != Counter(want):
            self.bad(f"kong money for a {kind} kong by seat {owner}: {items}, expected {want}")
        self.kong_income.append((owner, [(a, b, n) for a, b, n in items if b is not None]))

    def check_win_pay(self, win: dict[str, Any], items: list[tuple[int, int | None, int]]) -> None:
        w, by = win["seat"], win["win_by"]
        # 自摸加底 (the option self_draw=base): a self-draw adds the ruleset's bonus per payer
        bonus = self.ev.ruleset.scoring.bonuses.get("self_draw", 0)
        amount = 2 ** win["points"] + (bonus if by == "self_draw" else 0)
        payers = [p for p in self.active() if p != w] if by == "self_draw" else [win["from_seat"]]
        want = [(p, w, amount) for p in payers]
        if Counter(items) != Counter(want):
            self.bad(f"seat {w}'s {by} win ({win['points']} 番) paid {items}, expected {want}")

    def ready(self, seat: int) -> bool:
        if self.holds_void(seat):
            return False
        h = self.seats[seat]
        ctx = WinContext(seat=seat, win_by="self_draw", dealer=self.dealer)
        return any(self.can_come(seat, t) for t in self.ev.waits(h.tiles(), list(h.melds), ctx, None))

    def can_come(self, seat: int, t: int) -> bool:
        """A wait counts unless it is of the void suit or the seat holds all four of it."""
        h = self.seats[seat]
        held = h.concealed[t] + sum(m.tiles.count(t) for m in h.melds)
        return not self.in_void(seat, t) and held < 4

    def best_wait(self, seat: int, payer: int) -> int:
        h = self.seats[seat]
        best = 0
        ctx = WinContext(seat=seat, win_by="discard", discarder=payer, dealer=self.dealer)
        for t in self.ev.waits(h.tiles(), list(h.melds), ctx, None):
            if not self.can_come(seat, t):
                continue
            score = self.ev.score(Hand(tuple(h.tiles()), tuple(h.melds), t), ctx, None)
            if score.win:
                best = max(best, 2 ** score.points)
        return best

    def check_drawn_end(self) -> None:
        """退税, 查花猪 and 查大叫 among the players still in the hand, from the tiles alone."""
        act = self.active()
        ready = {s: self.ready(s) for s in act}
        pig = {s: self.holds_void(s) for s in act}
        refunds: Counter[tuple[int, int, int]] = Counter()
        for owner, pays in self.kong_income:
            if owner in act and not ready[owner]:
                refunds.update((payee, payer, n) for payer, payee, n in pays)
        if refunds != self.refunds:
            self.bad(f"退税 {dict(self.refunds)}, expected {dict(refunds)}")
        want: Counter[tuple[int, int, int]] = Counter()
        for a in act:
            for b in act:
                if a == b:
                    continue
                if pig[a] and not pig[b]:
                    want[(a, b, SC_HUAZHU)] += 1
                if not pig[a] and not ready[a] and ready[b]:
                    want[(a, b, self.best_wait(b, a))] += 1
        if want != self.drawn_pays:
            self.bad(f"drawn-end payments {dict(self.drawn_pays)}, expected {dict(want)} "
                     f"(ready {ready}, 花猪 {pig})")

    def on_hand_end(self, e: dict[str, Any]) -> None:
        self.result = e["result"]
        self.next_dealer = e["next_dealer"]
        if self.abandoned:
            self.bad(f"abandoned hand: {e}")
            return
        if self.pending_settlement is not None:
            self.bad("no settlement for the last win")
        if self.settled_wins != len(self.wins):
            self.bad(f"{len(self.wins)} wins but {self.settled_wins} settlements")
        if e.get("winners") != self.out:
            self.bad(f"hand_end winners {e.get('winners')}, the log's winners {self.out}")
        if len(self.out) < 3:  # ended by the wall
            if self.live_left() and (self.last_event not in ("kong", "claim") or self.kong_left()):
                self.bad(f"the hand ends with {len(self.out)} winners and {self.live_left()} live tiles")
            self.check_drawn_end()
        elif self.refunds or self.drawn_pays:
            self.bad("drawn-end settlements after three wins")
        if self.win_groups:
            ws, frm = self.win_groups[0]
            want = frm if len(ws) > 1 and frm is not None else ws[0]
            if self.result != "win":
                self.bad(f"result {self.result} after wins")
        else:
            want = self.dealer
            if self.result != "draw":
                self.bad(f"result {self.result} without a win")
        if self.next_dealer != want:
            self.bad(f"next dealer {self.next_dealer}, expected {want}")
        self.account()


HAND_CHECKS: dict[str, type[HandCheck]] = {"sichuan-xuezhan": XuezhanCheck}


@pytest.fixture(scope="module")
def sichuan_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    log = tmp_path_factory.mktemp("replay-sichuan") / "sichuan.jsonl"
    res = simulate("sichuan-xuezhan", HANDS, seed=SEED, log=log, workers=1)
    assert res.stats.hands == HANDS
    return log


def test_replay_sichuan_xuezhan(sichuan_log: Path) -> None:
    """2,000 hands of 血战到底 replay from the log: several wins per hand, money conserved,
    exchanges conserve tiles, never a win holding the void suit."""
    checker = LogChecker()
    problems = checker.check(sichuan_log)
    assert not problems, f"{len(problems)} problems, first ones:\n" + "\n".join(problems[:15])
    assert checker.events["exchange"] == HANDS and checker.events["declare"] == 4 * HANDS
    assert checker.multi_win_hands[2] > 0 and checker.multi_win_hands[3] > 0, checker.multi_win_hands
    assert checker.events["settlement"] > checker.events["win"]  # kong money and drawn ends too


def test_replay_sichuan_jiadi(tmp_path: Path) -> None:
    """The 自摸加底 option (self_draw=base) in play: a self-draw pays 2^番 + 1 per payer (a quarter
    of the hands); the checker reads the option from the log's header."""
    log = tmp_path / "jiadi.jsonl"
    simulate("sichuan-xuezhan", HANDS // 4, seed=SEED + 2, log=log, workers=1, options={"self_draw": "base"})
    checker = LogChecker()
    problems = checker.check(log)
    assert not problems, f"{len(problems)} problems, first ones:\n" + "\n".join(problems[:15])
    assert checker.hands == HANDS // 4 and checker.multi_win_hands[3] > 0


def test_the_sichuan_checker_catches_doctored_logs(sichuan_log: Path, tmp_path: Path) -> None:
    """The 血战 checks are not vacuous: a wrong exchange, a void-suit discard, kong money, a
    winner who plays on and a wrong self-draw payment are each caught."""
    lines = sichuan_log.read_text("utf-8").splitlines()
    p = tmp_path / "bad.jsonl"

    def problems(doctored: list[str]) -> list[str]:
        p.write_text("\n".join(doctored) + "\n", "utf-8")
        return LogChecker().check(p)

    events = [json.loads(line) for line in lines]
    i = next(i for i, e in enumerate(events) if e["type"] == "exchange")
    passes = events[i]["passes"]
    bad = [dict(passes[0], to=(passes[0]["to"] + 1) % 4), *passes[1:]]
    assert any("passes to" in q for q in problems(_rewrite(lines, i, passes=bad)))
    i = next(i for i, e in enumerate(events) if e["type"] == "declare")
    other = "mps"[("mps".index(events[i]["value"]) + 1) % 3]
    assert any("void" in q for q in problems(_rewrite(lines, i, value=other)))
    k = next(k for k, e in enumerate(events) if e["type"] == "settlement" and e.get("kind") == "kong")
    items = [dict(it, amount=it["amount"] + 1) for it in events[k]["items"]]
    pays = [x * 2 for x in events[k]["payments"]]
    assert any("kong money" in q for q in problems(_rewrite(lines, k, items=items, payments=pays)))
    w = next(w for w, e in enumerate(events) if e["type"] == "win" and e["win_by"] == "self_draw"
             and events[w + 1]["type"] == "settlement" and len(events[w + 1]["items"]) == 3)
    items = events[w + 1]["items"][:2]
    pays = [0] * 4
    for it in items:
        pays[it["payer"]] -= it["amount"]
        pays[it["payee"]] += it["amount"]
    assert any("paid" in q for q in problems(_rewrite(lines, w + 1, items=items, payments=pays)))
    d = next(d for d in range(w + 2, len(events)) if events[d]["type"] == "discard"
             and events[d]["seat"] != events[w]["seat"])
    assert any("already won" in q for q in problems(_rewrite(lines, d, seat=events[w]["seat"])))


class _Leaver:
    """A greedy bot that leaves the table (PlayerLeft) at its 5th decision in every third hand."""

    hands = 0

    def __init__(self, rng: random.Random | None = None) -> None:
        from mjframework.play.bots import GreedyBot

        self.bot = GreedyBot(rng or random.Random(0))
        self.calls = 0
        _Leaver.hands += 1
        self.leaves = _Leaver.hands % 3 == 0

    def decide(self, view: Any, decision: Any) -> Any:
        from mjframework.play.players import PlayerLeft

        self.calls += 1
        if self.leaves and self.calls == 5:
            raise PlayerLeft("timed out")
        return self.bot.decide(view, decision)


def test_replay_accepts_exactly_the_declared_leave_penalty(monkeypatch: pytest.MonkeyPatch,
                                                            tmp_path: Path) -> None:
    """changsha declares leave: {penalty: 70, paid_to: none}: a leaver's settlement sums to
    -70 and the replay check accepts it — and nothing else paid to nobody."""
    from mjframework.play.bots import BOTS

    monkeypatch.setitem(BOTS, "leaver", _Leaver)
    _Leaver.hands = 0
    log = tmp_path / "leave.jsonl"
    res = simulate("changsha", 24, seed=SEED, log=log, bots="greedy,leaver,greedy,greedy", workers=1)
    checker = LogChecker()
    problems = checker.check(log)
    assert not problems, problems[:10]
    leaves = checker.events["leave"]
    assert leaves >= 5 and checker.results["abandon"] == leaves
    assert sum(res.stats.net_by_seat) == -70 * leaves
    lines = log.read_text("utf-8").splitlines()
    events = [json.loads(x) for x in lines]
    i = next(i for i, e in enumerate(events) if e["type"] == "leave")
    assert events[i]["seat"] == 1 and events[i]["reason"] == "timed out"
    assert events[i + 1]["type"] == "settlement" and sum(events[i + 1]["payments"]) == -70
    # Tampered: a penalty of 60 (not the declared 70), or the 70 paid to nobody for a pattern.
    for field, value in (("amount", 60), ("reason", "平胡")):
        e = json.loads(lines[i + 1])
        e["items"][0][field] = value
        e["payments"][1] = -e["items"][0]["amount"]
        tampered = [*lines[:i + 1], json.dumps(e, ensure_ascii=False), *lines[i + 2:]]
        p = tmp_path / "bad.jsonl"
        p.write_text("\n".join(tampered) + "\n", "utf-8")
        found = LogChecker().check(p)
        assert found and all("settlement" in x for x in found), (field, found)

# -- 国标麻将 (mcr): flowers, winds, 8 + fans ----------------------------------------------

RULES["mcr"] = dict(
    size=144, kinds=42, chow=True, discard_win=True, multi_win=False, robbed_kong=True,
    after_draw="next", first="random", deal=DEAL_CHANGSHA, brk=_cs_break, wildcard=False,
    kongs_void=True, dealer_bonus=0, dealer_passes=True, each_pays=8, prevalent_every=4)
MCR_HANDS = int(os.environ.get("MJ_REPLAY_MCR_HANDS", "1000"))


class McrCheck(HandCheck):
    """:class:`HandCheck` for 国标: the 144-tile wall with eight flowers, flowers set aside and
    replaced from the kong end (after the deal, from the dealer on, and whenever drawn), the
    winds and flowers of each win, the 4th tile (和绝张), and 8 + fans payments."""

    QUIET = (*HandCheck.QUIET, "flower")
    hands_per_game = 1  # set by the test from the log's header

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.flowers: list[list[int]] = [[] for _ in range(4)]
        self.flower_size: dict[int, int] = {}
        self.orig_src: dict[int, str] = {}  # the source of the draw a flower replacement continues
        self.played = False  # a wall draw or a discard happened (the deal's replacements are over)

    def on_wall(self, e: dict[str, Any]) -> None:
        tiles = [T(c) for c in e["tiles"]]
        counts = Counter(tiles)
        flowers = [t for t in counts if t >= 34]
        if sorted(flowers) != list(range(34, 42)) or any(counts[t] != 1 for t in flowers):
            self.bad(f"the wall's flowers {sorted(flowers)} are not 1f-8f once each")
        r = self.rules
        self.rules = dict(r, size=136, kinds=34)  # the base check: 136 tiles, 4 of each kind
        super().on_wall(dict(e, tiles=[c for c in e["tiles"] if T(c) < 34]))
        self.rules = r
        self.slots = tiles  # the real slots hold all 144
        self.taken = [False] * len(tiles)
        stacks = len(tiles) // 2
        self.kong_order = [s * 2 + layer for s in range(stacks - 1, -1, -1) for layer in (0, 1)]
        self.limit = len(tiles)

    def on_flower(self, e: dict[str, Any]) -> None:
        seat, tile = e["seat"], T(e["tile"])
        if tile < 34:
            self.bad(f"seat {seat} sets aside {e['tile']}, not a flower")
            return
        h = self.seats[seat]
        if self.last_event not in ("deal", "draw"):
            self.bad(f"a flower set aside after {self.last_event}")
        self.flower_size[seat] = h.size()
        if not h.take(tile):
            self.bad(f"seat {seat} sets aside {e['tile']} without holding it")
        self.flowers[seat].append(tile)
        self.expect = ("flower_draw", seat)

    def on_draw(self, e: dict[str, Any]) -> None:
        seat, src = e["seat"], e["source"]
        if src != "flower":
            self.played = True
            self.orig_src[seat] = src
            super().on_draw(e)
            return
        tile = T(e["tile"])
        self._expect("flower_draw", seat)
        slot = self.next_kong()
        self.kong_pos += 1
        if slot is None:
            self.bad(f"seat {seat} replaces a flower from an exhausted wall")
        else:
            if self.slots[slot] != tile:
                self.bad(f"seat {seat}'s flower replacement {e['tile']}; slot {slot} holds "
                         f"{self.slots[slot]}")
            self.taken[slot] = True
        h = self.seats[seat]
        h.concealed[tile] += 1
        if h.size() != self.flower_size.get(seat):
            self.bad(f"seat {seat} holds {h.size()} after a flower replacement, "
                     f"had {self.flower_size.get(seat)}")
        self.last_draw[seat] = (tile, self.orig_src.get(seat, "wall"), self.live_left() == 0)
        self.expect = ("turn", seat) if self.played else None

    def on_discard(self, e: dict[str, Any]) -> None:
        if not self.played and any(t >= 34 for s in self.seats for t in s.concealed):
            self.bad("play began with a flower still held")
        self.played = True
        super().on_discard(e)

    def win_context(self, seat: int, by: str, discarder: int | None, flags: set[str], tile: int,
                    state: bool = True) -> WinContext:
        """With the seat's flowers, the prevalent wind of the hand's place in its game (the
        seat wind follows from the dealer), and 和绝张 when the other three are in sight."""
        held = self.seats[seat].concealed[tile] - (by == "self_draw")
        seen = sum(s.discards.count(tile) + sum(m.tiles.count(tile) for m in s.melds) for s in self.seats)
        if by != "self_draw":
            seen -= 1  # the discarded (robbed) tile itself
        if held <= 0 and seen >= 3:
            flags = {*flags, "last_copy"}
        hand_in_game = self.start["hand"] % self.hands_per_game
        return WinContext(seat=seat, win_by=by, discarder=discarder, dealer=self.dealer,
                          flags=frozenset(flags), flowers=len(self.flowers[seat]),
                          prevalent_wind=27 + (hand_in_game // self.rules["prevalent_every"]) % 4)

    def check_items(self, win: dict[str, Any], by: str, items: list[dict[str, Any]], birds: list[int],
                    kongs: bool) -> None:
        """The discarder pays 8 + fans and the others 8; on a self-draw each pays 8 + fans."""
        w, pts = win["seat"], win["points"]
        got = sorted((it["payer"], it["payee"], it["amount"]) for it in items)
        want = sorted((p, w, self.rules["each_pays"] + (pts if by == "self_draw" or p == win["from_seat"]
                                                         else 0)) for p in range(4) if p != w)
        if got != want:
            self.bad(f"payments {got}, expected {want} ({by}, {pts} fans)")

    def _drawn_hand_dealer(self) -> int | None:
        if self.expect is not None and self.expect[0] == "flower_draw":
            # the last tile drawn was a flower and nothing is left to replace it
            if self.next_kong() is not None or self.live_left():
                self.bad("a flower not replaced though the wall still has tiles")
            return (self.dealer + 1) % 4
        return super()._drawn_hand_dealer()

    def account(self) -> None:
        for seat, fl in enumerate(self.flowers):
            self.won[seat].extend(fl)
        super().account()


HAND_CHECKS["mcr"] = McrCheck


@pytest.fixture(scope="module")
def mcr_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    log = tmp_path_factory.mktemp("replay-mcr") / "mcr.jsonl"
    res = simulate("mcr", MCR_HANDS, seed=1, log=log, workers=1)
    assert res.stats.hands == MCR_HANDS
    return log


def test_replay_mcr(mcr_log: Path) -> None:
    """`mj simulate mcr --hands 1000 --seed 1` replays from its log with no problem: flowers set
    aside and replaced from the kong end, every win re-scored with its flowers, winds and 4th
    tile, 8 + fans paid, the deal passing every hand."""
    with open(mcr_log, encoding="utf-8") as f:
        McrCheck.hands_per_game = json.loads(f.readline())["hands_per_game"]
    checker = LogChecker()
    problems = checker.check(mcr_log)
    assert not problems, f"{len(problems)} problems, first ones:\n" + "\n".join(problems[:15])
    assert checker.results["abandon"] == 0 and checker.results["win"] > MCR_HANDS // 2
    assert checker.events["flower"] > MCR_HANDS


# 红中麻将 · 转转 (docs/rules/hongzhong.md): four fixed 红中 wildcards (nothing flipped, never
# discarded), self-draw only, 抢杠胡 paid by the konger for all three, kong money with the win,
# and 抓码 — bonus tiles turned up from the kong end after the win, 2 (3 when the winning hand
# holds no 红中); each 1/5/9 or 红中 among them adds 2 to every payment to the winner.
RED = 33  # 中 (7z)
HZ_HITS = frozenset({0, 4, 8, 9, 13, 17, 18, 22, 26, RED})
RULES["hongzhong"] = dict(
    size=112, kinds=28, chow=False, discard_win=False, multi_win=True, robbed_kong=True,
    after_draw="dealer", first="random", deal=DEAL_CHANGSHA, brk=_cs_break, wildcard=True,
    kongs_void=True, dealer_bonus=0,
    kong_pay={"kong": ("discarder", 3), "added": ("each", 1), "concealed": ("each", 2)})


class HongzhongCheck(HandCheck):
    """:class:`HandCheck` for 红中麻将: fixed wildcards, 码 from the kong end, 全包, +2 per 中码."""

    QUIET = (*HandCheck.QUIET, "bonus_tiles")

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.ma: list[int] = []

    def on_wildcard(self, e: dict[str, Any]) -> None:
        if e["indicator"] is not None or T(e["wildcard"]) != RED or "wildcard" in self.dice:
            self.bad(f"the wildcard is 红中, fixed, nothing flipped: {e}")
        self.wildcard = RED

    def on_discard(self, e: dict[str, Any]) -> None:
        if T(e["tile"]) == RED:
            self.bad(f"seat {e['seat']} discards a 红中")
        super().on_discard(e)

    def on_bonus_tiles(self, e: dict[str, Any]) -> None:
        if self.last_event != "win" or not self.wins:
            self.bad(f"码 after {self.last_event}, not right after the win")
            return
        win = self.wins[-1]
        h = self.seats[win["seat"]]
        held = [*h.concealed.elements(), *(t for m in h.melds for t in m.tiles), T(win["tile"])]
        count = 2 + (0 if RED in held else 1)
        want = [self.slots[s] for s in self.kong_order[self.kong_pos:] if not self.taken[s]][:count]
        got = [T(c) for c in e["tiles"]]
        if got != want or e["kind"] != "win" or e["name"] != "码":
            self.bad(f"码 {e['tiles']} are not the next {count} at the kong end {want}")
        seats = [win["seat"] if t in HZ_HITS else None for t in got]
        if e["seats"] != seats:
            self.bad(f"码 {e['tiles']} hit {e['seats']}, expected {seats}")
        self.ma = got

    def check_items(self, win: dict[str, Any], by: str, items: list[dict[str, Any]], birds: list[int],
                    kongs: bool) -> None:
        w = win["seat"]
        reason = "+".join(win["patterns"])
        mine = [it for it in items if it["reason"].split(" +")[0] == reason]
        others = [it for it in items if it not in mine]
        want_payers = sorted(s for s in range(4) if s != w) if by == "self_draw" else [win["from_seat"]]
        if sorted(it["payer"] for it in mine) != want_payers or any(it["payee"] != w for it in mine):
            self.bad(f"payments {mine}: expected payers {want_payers} paying seat {w}")
        hits = sum(t in HZ_HITS for t in self.ma)
        for it in mine:
            amount = win["points"] * (1 if by == "self_draw" else 3) + 2 * hits
            if it["amount"] != amount:
                self.bad(f"seat {it['payer']} pays {it['amount']} for {reason}, expected {amount} "
                         f"(码 {self.ma})")
        made = self.kongs
        if by == "robbed_kong" and made and made[-1][:2] == (win["from_seat"], "added"):
            self.kongs = made[:-1]  # a robbed 补杠 never became a kong: no kong money
        want_kongs = Counter(self.kong_payments()) if kongs else Counter()
        self.kongs = made
        got_kongs = Counter((it["payer"], it["payee"], it["amount"]) for it in others)
        if got_kongs != want_kongs:
            self.bad(f"kong payments {dict(got_kongs)}, expected {dict(want_kongs)}")

    def _drawn_hand_dealer(self) -> int | None:
        super()._drawn_hand_dealer()
        return self.dealer  # 荒庄: the dealer deals again


HAND_CHECKS["hongzhong"] = HongzhongCheck


def test_replay_hongzhong(tmp_path: Path) -> None:
    """2,000 hands of 红中麻将 replay from the log: 红中 never discarded, the 码 the next tiles at
    the kong end (one more without 红中), every payment with its 中码, kong money untouched."""
    log = tmp_path / "hongzhong.jsonl"
    simulate("hongzhong", HANDS, seed=SEED, log=log, workers=1)
    checker = LogChecker()
    problems = checker.check(log)
    assert not problems, f"{len(problems)} problems, first ones:\n" + "\n".join(problems[:15])
    assert checker.results["abandon"] == 0 and checker.results["win"] > HANDS // 2
    assert checker.events["bonus_tiles"] > HANDS // 2 and checker.events["kong"] > 0


# 广东推倒胡 (docs/rules/guangdong-tuidaohu.md): four fixed 白板 鬼 (they may be discarded, never
# claimed), self-draw only, 抢杠全包 (the konger pays the three shares), patterns that multiply
# (the win event's points: the capped product), each payer 2 × points; 买马 — from the kong end
# after the win, 2 (4 without 鬼 in the winning hand), counted from the winner (1/5/9 东 中 the
# winner's, 2/6 南 发 the next seat's …); each 马 on the winner multiplies the win's payments.
GHOST = 31  # 白 (5z)
GD_HONOR_OFFSET = {27: 0, 28: 1, 29: 2, 30: 3, 33: 0, 32: 1, 31: 2}  # 东南西北 中发白
RULES["guangdong-tuidaohu"] = dict(
    size=136, kinds=34, chow=False, discard_win=False, multi_win=True, robbed_kong=True,
    after_draw="dealer", first="random", deal=DEAL_CHANGSHA, brk=_cs_break, wildcard=True,
    kongs_void=True, dealer_bonus=0, dealer_or_next=True,
    kong_pay={"kong": ("discarder", 3), "added": ("each", 1), "concealed": ("each", 2)})


class GuangdongCheck(HongzhongCheck):
    """:class:`HandCheck` for 广东推倒胡 (the shape of 红中麻将's check, other numbers)."""

    def on_wildcard(self, e: dict[str, Any]) -> None:
        if e["indicator"] is not None or T(e["wildcard"]) != GHOST or "wildcard" in self.dice:
            self.bad(f"the 鬼 is 白板, fixed, nothing flipped: {e}")
        self.wildcard = GHOST

    def on_discard(self, e: dict[str, Any]) -> None:
        HandCheck.on_discard(self, e)  # a 鬼 may be discarded (and is then dead)

    def on_bonus_tiles(self, e: dict[str, Any]) -> None:
        if self.last_event != "win" or not self.wins:
            self.bad(f"马 after {self.last_event}, not right after the win")
            return
        win = self.wins[-1]
        w = win["seat"]
        h = self.seats[w]
        held = [*h.concealed.elements(), *(t for m in h.melds for t in m.tiles), T(win["tile"])]
        count = 2 + (0 if GHOST in held else 2)
        want = [self.slots[s] for s in self.kong_order[self.kong_pos:] if not self.taken[s]][:count]
        got = [T(c) for c in e["tiles"]]
        if got != want or e["name"] != "马":
            self.bad(f"马 {e['tiles']} are not the next {count} at the kong end {want}")
        seats = [(w + (GD_HONOR_OFFSET[t] if t >= 27 else (rank_of(t) - 1) % 4)) % 4 for t in got]
        if e["seats"] != seats:
            self.bad(f"马 {e['tiles']} hit {e['seats']}, expected {seats}")
        self.ma = [t for t, s in zip(got, seats, strict=True) if s == w]  # the winner's own

    def check_items(self, win: dict[str, Any], by: str, items: list[dict[str, Any]], birds: list[int],
                    kongs: bool) -> None:
        w = win["seat"]
        reason = "+".join(win["patterns"])
        mine = [it for it in items if it["reason"].split(" (for")[0].split(" ×")[0] == reason]
        others = [it for it in items if it not in mine]
        payers = sorted(it["payer"] for it in mine)
        want_payers = (sorted(s for s in range(4) if s != w) if by == "self_draw"
                       else [win["from_seat"]] * 3)  # 抢杠全包: the konger pays the three shares
        if payers != want_payers or any(it["payee"] != w for it in mine):
            self.bad(f"payments {mine}: expected payers {want_payers} paying seat {w}")
        amount = 2 * win["points"] * (1 + len(self.ma))
        for it in mine:
            if it["amount"] != amount:
                self.bad(f"seat {it['payer']} pays {it['amount']} for {reason}, expected {amount} "
                         f"(马 on the winner {self.ma})")
        made = self.kongs
        if by == "robbed_kong" and made and made[-1][:2] == (win["from_seat"], "added"):
            self.kongs = made[:-1]
        want_kongs = Counter(self.kong_payments()) if kongs else Counter()
        self.kongs = made
        got_kongs = Counter((it["payer"], it["payee"], it["amount"]) for it in others)
        if got_kongs != want_kongs:
            self.bad(f"kong payments {dict(got_kongs)}, expected {dict(want_kongs)}")


HAND_CHECKS["guangdong-tuidaohu"] = GuangdongCheck


def test_replay_guangdong_tuidaohu(tmp_path: Path) -> None:
    """2,000 hands of 广东推倒胡 replay from the log: the 鬼 fixed, the 马 the next tiles at the
    kong end (two more without 鬼) and where they fall, every payment 2 × the capped product ×
    (1 + the winner's 马), 抢杠全包, kong money, the deal kept or passed on."""
    log = tmp_path / "guangdong.jsonl"
    simulate("guangdong-tuidaohu", HANDS, seed=SEED, log=log, workers=1)
    checker = LogChecker()
    problems = checker.check(log)
    assert not problems, f"{len(problems)} problems, first ones:\n" + "\n".join(problems[:15])
    assert checker.results["abandon"] == 0 and checker.results["win"] > HANDS // 2
    assert checker.events["bonus_tiles"] > HANDS // 2 and checker.events["kong"] > 0


# 台湾十六张 (docs/rules/taiwan-16.md): the 144-tile wall with 8 flowers (as 国标), three break
# dice, 16-tile hands (four rounds of 4 and the dealer's 17th), the last 16 tiles never drawn
# (留尾), 吃 from the left, one winner per discard; each payer pays 底 5 + 台, + 1 and + 2 per
# hand kept (连庄拉庄) where the dealer pays or is paid; the dealer stays on its own win or a
# drawn hand, and the count of hands kept goes up by one each time and back to 0 when the deal
# passes.
_TW_ROUNDS = {rel: [r * 16 + rel * 4 + i for r in range(4) for i in range(4)] for rel in range(4)}
TW_RESERVE = 16
RULES["taiwan-16"] = dict(
    size=144, kinds=42, chow=True, discard_win=True, multi_win=False, robbed_kong=True,
    after_draw="dealer", first="random", deal={0: [*_TW_ROUNDS[0], 64], 1: _TW_ROUNDS[1],
                                                2: _TW_ROUNDS[2], 3: _TW_ROUNDS[3]},
    brk=_cs_break, wildcard=False, kongs_void=True, dealer_bonus=0, dealer_or_next=True,
    prevalent_every=4, hand=16)


class TaiwanCheck(McrCheck):
    """:class:`McrCheck` (flowers, winds) with 16-tile hands, the reserved tail, 底 + 台
    payments with 庄家 and 连庄拉庄, and the count of hands the dealer kept."""

    # (game, dealer named for the next hand, the count that hand must start with, the times the
    # deal has passed in the game: the prevalent wind moves every 4 — `prevalent_counts: deal_passes`)
    carried: tuple[int, int, int, int] | None = None

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.flower_rep = [False] * 4
        counters = self.start.get("counters") or {}
        self.kept = counters.get("lianzhuang")
        if self.start.get("hand_size") != 16:
            self.bad(f"hand_start says hand_size {self.start.get('hand_size')}, not 16")
        game = self.start["hand"] // self.hands_per_game
        c = TaiwanCheck.carried
        want = c[2] if c is not None and c[0] == game else 0
        self.passes = c[3] if c is not None and c[0] == game else 0
        if self.kept != want:
            self.bad(f"连庄 count {self.kept} at the hand's start, expected {want}")

    def untaken(self) -> int:
        return self.taken.count(False)

    def on_draw(self, e: dict[str, Any]) -> None:
        """Whether each seat's last tile in play replaced a flower (``after_flower``: 花上自摸)."""
        super().on_draw(e)
        self.flower_rep[e["seat"]] = e["source"] == "flower" and self.played

    def win_context(self, seat: int, by: str, discarder: int | None, flags: set[str], tile: int,
                    state: bool = True) -> WinContext:
        """:class:`McrCheck`'s, with the flowers by name (正花 and 花杠 read them) and the
        prevalent wind of the times the deal has passed (not of the hand's place)."""
        ctx = super().win_context(seat, by, discarder, flags, tile, state)
        if by == "self_draw" and self.flower_rep[seat]:
            ctx = dataclasses.replace(ctx, flags=ctx.flags | {"after_flower"})
        return dataclasses.replace(ctx, flower_tiles=tuple(self.flowers[seat]),
                                   prevalent_wind=27 + (self.passes // 4) % 4)

    def live_left(self) -> int:
        return min(len(self.live_slots()), max(0, self.untaken() - TW_RESERVE))

    def kong_left(self) -> int:
        return min(super().kong_left(), max(0, self.untaken() - TW_RESERVE))

    def next_live(self) -> int | None:
        return super().next_live() if self.untaken() > TW_RESERVE else None

    def next_kong(self) -> int | None:
        return super().next_kong() if self.untaken() > TW_RESERVE else None

    def check_items(self, win: dict[str, Any], by: str, items: list[dict[str, Any]], birds: list[int],
                    kongs: bool) -> None:
        w, pts = win["seat"], win["points"]
        payers = [p for p in range(4) if p != w] if by == "self_draw" else [win["from_seat"]]
        n = self.kept or 0
        want = sorted((p, w, 5 + pts + ((1 + 2 * n) if self.dealer in (p, w) else 0)) for p in payers)
        got = sorted((it["payer"], it["payee"], it["amount"]) for it in items)
        if got != want:
            self.bad(f"payments {got}, expected {want} ({by}, {pts} 台, 连庄 {n})")

    def _drawn_hand_dealer(self) -> int | None:
        super()._drawn_hand_dealer()  # (its checks; a drawn hand keeps the dealer here: 流局连庄)
        return self.dealer

    def on_hand_end(self, e: dict[str, Any]) -> None:
        super().on_hand_end(e)
        game = self.start["hand"] // self.hands_per_game
        stays = e.get("next_dealer") == self.dealer
        TaiwanCheck.carried = (game, e.get("next_dealer", -1), (self.kept or 0) + 1 if stays else 0,
                               self.passes + (not stays))


HAND_CHECKS["taiwan-16"] = TaiwanCheck


def test_replay_taiwan_16(tmp_path: Path) -> None:
    """2,000 hands of 台湾十六张 replay from the log: 16-tile hands dealt from the right slots,
    flowers set aside and replaced, the 16 reserved tiles never drawn, every win re-scored,
    every payment 底 + 台 (+ 庄家 and 连庄拉庄), the dealer kept or passed and the count carried."""
    log = tmp_path / "taiwan-16.jsonl"
    simulate("taiwan-16", HANDS, seed=SEED, log=log, workers=1)
    with open(log, encoding="utf-8") as f:
        TaiwanCheck.hands_per_game = json.loads(f.readline())["hands_per_game"]
    TaiwanCheck.carried = None
    checker = LogChecker()
    problems = checker.check(log)
    assert not problems, f"{len(problems)} problems, first ones:\n" + "\n".join(problems[:15])
    assert checker.results["abandon"] == 0 and checker.results["win"] > HANDS // 2
    assert checker.events["flower"] > HANDS and checker.events["kong"] > 0
    assert checker.results["draw"] > 0


def test_the_taiwan_checker_catches_doctored_logs(tmp_path: Path) -> None:
    """The 台湾十六张 checks are not vacuous: a payment without its 连庄 money, a count not
    carried, a drawn hand that passes the deal and a 17th tile dealt to a non-dealer are caught."""
    log = tmp_path / "tw.jsonl"
    simulate("taiwan-16", 120, seed=SEED, log=log, workers=1)
    lines = log.read_text("utf-8").splitlines()
    per_game = json.loads(lines[0])["hands_per_game"]
    p = tmp_path / "bad.jsonl"

    def problems(doctored: list[str]) -> list[str]:
        p.write_text("\n".join(doctored) + "\n", "utf-8")
        TaiwanCheck.hands_per_game, TaiwanCheck.carried = per_game, None
        return LogChecker().check(p)

    assert problems(lines) == []
    # a settlement of a hand the dealer had kept: its 连庄 money taken off both sides
    k = next(k for k, line in enumerate(lines) if '"type":"settlement"' in line and "lianzhuang" in line)
    e = json.loads(lines[k])
    items = [dict(it, amount=it["amount"] - 2) for it in e["items"]]
    pays = [0] * 4
    for it in items:
        pays[it["payer"]] -= it["amount"]
        pays[it["payee"]] += it["amount"]
    assert any("连庄" in q for q in problems(_rewrite(lines, k, items=items, payments=pays)))
    # the count at a hand's start
    s = next(s for s, line in enumerate(lines)
             if '"type":"hand_start"' in line and json.loads(line)["counters"]["lianzhuang"] == 1)
    assert any("连庄 count" in q for q in problems(_rewrite(lines, s, counters={"lianzhuang": 0})))
    # a drawn hand keeps the dealer (流局连庄)
    d = next(d for d, line in enumerate(lines) if '"type":"hand_end"' in line and '"result":"draw"' in line)
    nxt = json.loads(lines[d])["next_dealer"]
    assert any("dealer" in q for q in problems(_rewrite(lines, d, next_dealer=(nxt + 1) % 4)))
