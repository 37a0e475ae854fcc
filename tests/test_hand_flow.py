"""Hand flow and the phases around play, on small purpose-made rulesets.

* flags: the discard after an ordinary kong's replacement carries
  ``after_kong_discard`` (a declared 杠上炮 scores in play), unless
  ``win.kong_flags`` says the ruleset's kong doesn't raise it;
* ``win.after_win: leave / stay``: several wins in one hand, each settled
  when it happens; the next dealer by ``dealer.which_win``;
* ``exchange`` (tiles passed before play) and ``declarations.void_suit``
  (定缺: discard it first, no claim of it, no win holding it);
* ``scoring.kongs.paid: at_kong`` with ``refund: not_ready`` and
  ``scoring.on_draw`` (the payments of a drawn end);
* the plugin hooks that restrict: ``mj_restrict_options``, ``mj_refuse_win``;
* located errors for combinations that can't work.

Scripted hands lay the wall out so the deal, the live draws and the kong
replacements are known (:func:`stacked`); scripted players discard what the
test says. Simulated hands are checked event by event by :class:`FlowCheck`
(tiles conserved through exchanges and wins, money conserved, nobody plays
after leaving, no win holding the declared void suit).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import pytest
import yaml
from click.testing import CliRunner

from mjframework.cli import main
from mjframework.core.tiles import is_honor, parse_tile, parse_tiles, tile_code
from mjframework.hooks.registry import register_plugin, unregister_plugin
from mjframework.hooks.specs import hookimpl
from mjframework.play.bots import GreedyBot
from mjframework.play.game import Game, HandResult
from mjframework.play.players import Decision, Option, TableView
from mjframework.rules.loader import check_file, load_ruleset

BASE: dict[str, Any] = {
    "format": 1,
    "id": "flow-test",
    "name": "flow test",
    "players": 4,
    "tiles": {"name": "t108", "suits": ["m", "p", "s"], "honors": "", "copies": 4},
    "wall": {"stacks_per_seat": [14, 13, 14, 13], "height": 2},
    "break": {"dice": 2, "wall": {"die": "sum", "seats": {str(v): (v - 1) % 4 for v in range(2, 13)}},
              "stack": {"die": "low", "from": "owner_left"}},
    "deal": {"rounds": 3, "block": 4, "then": [{"seat": 0, "tiles": 2}, {"seat": 1, "tiles": 1},
                                                {"seat": 2, "tiles": 1}, {"seat": 3, "tiles": 1}]},
    "wildcard": None,
    "claims": {"chow": False, "pung": True, "kong": True, "added_kong": True, "concealed_kong": True,
               "priority": ["win", "kong", "pung"]},
    "win": {"self_draw": True, "discard": True, "robbed_kong": "added", "discard_winners": "all"},
    "dealer": {"first": "seat0", "after_win": "winner", "after_multiple_winners": "discarder",
               "after_draw": "dealer"},
    "scoring": {"combine": "sum", "payout": {"self_draw": "each_other", "discard": "discarder",
                                             "robbed_kong": "discarder"}},
    "patterns": [
        {"name": "胡", "shape": {"melds": 4, "pair": 1}, "points": 1},
        {"name": "七对", "shape": {"pairs": 7}, "points": 4},
        {"name": "杠上炮", "when": {"win_by": ["discard"], "flags": ["after_kong_discard"]}, "points": 2},
        {"name": "杠上花", "when": {"win_by": ["self_draw"], "flags": ["after_kong"]}, "points": 2},
    ],
}

# A 血战-like table: exchange 3 of a suit by dice, a void suit, winners leave, kongs paid
# at once with refunds, 查大叫 and 查花猪 at a drawn end.
BLOOD: dict[str, Any] = {
    "win": {"after_win": "leave"},
    "exchange": {"tiles": 3, "suit": "same", "direction": {"dice": 2, "odd": "right", "even": "left"}},
    "declarations": {"void_suit": {}},
    "dealer": {"which_win": "first"},
    "scoring": {"kongs": {"kong": {"discarder": 2}, "added_kong": {"each_other": 1},
                          "concealed_kong": {"each_other": 2}, "paid": "at_kong", "refund": "not_ready"},
                "on_draw": [{"pay": 16, "from": ["holding_void"], "to": ["not_holding_void"]},
                            {"pay": "best_wait", "from": ["not_ready", "not_holding_void"],
                             "to": ["ready"]}]},
}


def merged(*overrides: dict[str, Any]) -> dict[str, Any]:
    def merge(a: Any, b: Any) -> Any:
        if isinstance(a, dict) and isinstance(b, dict):
            out = dict(a)
            for k, v in b.items():
                out[k] = merge(a[k], v) if k in a else v
            return out
        return b

    out: dict[str, Any] = BASE
    for o in overrides:
        out = merge(out, o)
    return out


def write(tmp_path: Path, data: dict[str, Any], name: str = "flow-test.yaml") -> Path:
    p = tmp_path / name
    p.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return p


def ruleset(tmp_path: Path, *overrides: dict[str, Any]) -> Any:
    return load_ruleset(write(tmp_path, merged(*overrides)))


# -- scripted hands ----------------------------------------------------------------------


def stacked(game: Game, hands: dict[int, str], live: str = "", kong: str = "") -> None:
    """Lay ``game``'s wall out after the break: the deal gives ``hands`` (by seat; the
    dealer's 14 first dealt 12 then 2), live draws come in ``live`` order and kong
    replacements in ``kong`` order; every other tile fills the rest."""
    rs = game.ruleset
    orig = game.wall.break_wall

    def patched() -> Any:
        brk = orig()
        w = game.wall
        n = rs.players
        order: list[int] = []  # the seat each dealt tile goes to, in live order
        for _ in range(rs.deal.rounds):
            for i in range(n):
                order.extend([(game.dealer + i) % n] * rs.deal.block)
        for step in rs.deal.then:
            order.extend([(game.dealer + step.seat) % n] * step.tiles)
        want = {s: parse_tiles(h) for s, h in hands.items()}
        rest = Counter(rs.tileset.full_wall())
        for ts in [*want.values(), parse_tiles(live), parse_tiles(kong)]:
            rest.subtract(ts)
        assert not -rest, f"more tiles than the set has: {-rest}"
        filler = sorted(rest.elements())
        seq: list[int] = []
        for seat in order:
            seq.append(want[seat].pop(0) if want.get(seat) else filler.pop())
        seq.extend(parse_tiles(live))
        slots: list[int | None] = [None] * len(w.slots)
        slots[:len(seq)] = seq
        kong_slots = [st * w.height + layer for st in range(w.stacks - 1, -1, -1)
                      for layer in range(w.height)]
        for slot, t in zip(kong_slots, parse_tiles(kong), strict=False):
            slots[slot] = t
        for i, t in enumerate(slots):
            if t is None:
                slots[i] = filler.pop()
        w.slots = slots
        return brk

    game.wall.break_wall = patched  # type: ignore[method-assign]


class Script:
    """Discards the listed tiles in order (then what a greedy bot would); takes a win,
    a kong or a claim when its ``take`` says so; chooses exchanges and declarations by
    ``pick``."""

    def __init__(self, discards: str = "", take: tuple[str, ...] = ("win", "kong"),
                 pick: Callable[[Decision], Option] | None = None, ready: bool = False) -> None:
        self.ready = ready
        self.discards = parse_tiles(discards)
        self.take = take
        self.pick = pick
        self.greedy = GreedyBot(random.Random(0))
        self.seen: list[Decision] = []

    def decide(self, view: TableView, decision: Decision) -> Option:
        self.seen.append(decision)
        for kind in self.take:
            for o in decision.options:
                if o.kind == kind:
                    return o
        if decision.kind == "turn" and self.discards:
            t = self.discards.pop(0)
            want = "ready" if self.ready else None
            return next(o for o in decision.options if o.kind == "discard" and o.tile == t
                        and o.value == want)
        if decision.kind in ("exchange", "declare") and self.pick is not None:
            return self.pick(decision)
        if decision.kind == "claim":
            return next(o for o in decision.options if o.kind == "pass")
        return self.greedy.decide(view, decision)


def play(rs: Any, players: list[Any], hands: dict[int, str], live: str = "", kong: str = "",
         seed: int = 1) -> tuple[HandResult, list[dict[str, Any]]]:
    events: list[dict[str, Any]] = []
    game = Game(rs, players, seed=seed, dealer=0, emit=events.append)
    stacked(game, hands, live, kong)
    result = game.play()
    assert result.result != "abandon", result.error
    return result, events


def of(events: list[dict[str, Any]], type_: str) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == type_]


# Seat 0 (dealer) holds four 1m; seat 1 waits on 2p / 5p. Seat 0 kongs 1m (concealed), draws
# 2s from the kong end and discards 5p.
KONG_HANDS = {
    0: "1111m 234p 678p 55s 5p 9m",
    1: "234m 567m 34p 666s 99s",
    2: "1111p 9999p 3333s 9m",
    3: "7777s 8888s 1111s 7m",
}


def test_after_kong_discard_scores_in_play_after_a_concealed_kong(tmp_path: Path) -> None:
    rs = ruleset(tmp_path)
    players = [Script("5p"), Script(), Script(), Script()]
    result, events = play(rs, players, KONG_HANDS, kong="2s")
    kong = of(events, "kong")
    assert kong and kong[0]["seat"] == 0 and kong[0]["kind"] == "concealed"
    win = of(events, "win")[0]
    assert (win["seat"], win["win_by"], win["tile"], win["from_seat"]) == (1, "discard", "5p", 0)
    assert win["patterns"] == ["胡", "杠上炮"]
    assert result.winners == [1]


def test_after_kong_discard_after_a_claimed_kong(tmp_path: Path) -> None:
    """Seat 0 discards 9s; seat 1 claims the kong (点杠), draws 5s from the kong end and
    discards 3p; seat 3 wins on it (a single wait): 杠上炮."""
    rs = ruleset(tmp_path)
    hands = {0: "9s 123m 456m 789m 11p 23p", 1: "999s 234m 567m 3p 88p 1s",
             2: "234p 678p 345s 999m 6p", 3: "111s 222s 444s 888m 3p"}
    players = [Script("9s"), Script("3p"), Script(), Script()]
    _, events = play(rs, players, hands, kong="5s")
    claim = of(events, "claim")[0]
    assert (claim["seat"], claim["kind"], claim["from_seat"]) == (1, "kong", 0)
    draw = of(events, "draw")[0]
    assert (draw["seat"], draw["tile"], draw["source"]) == (1, "5s", "kong")
    win = of(events, "win")[0]
    assert (win["seat"], win["tile"], win["from_seat"]) == (3, "3p", 1)
    assert win["patterns"] == ["胡", "杠上炮"]


def test_kong_flags_without_after_kong_discard(tmp_path: Path) -> None:
    rs = ruleset(tmp_path, {"win": {"kong_flags": ["after_kong"]}})
    players = [Script("5p"), Script(), Script(), Script()]
    _, events = play(rs, players, KONG_HANDS, kong="2s")
    assert of(events, "win")[0]["patterns"] == ["胡"]


def test_after_kong_self_draw(tmp_path: Path) -> None:
    rs = ruleset(tmp_path)
    hands = {**KONG_HANDS, 0: "1111m 234p 678p 55s 23p"}
    _, events = play(rs, [Script(), Script(), Script(), Script()], hands, kong="4p")
    win = of(events, "win")[0]
    assert (win["seat"], win["win_by"], win["patterns"]) == (0, "self_draw", ["胡", "杠上花"])


def test_no_flag_on_an_ordinary_discard(tmp_path: Path) -> None:
    rs = ruleset(tmp_path)
    players = [Script("5p", take=("win",)), Script(), Script(), Script()]
    _, events = play(rs, players, KONG_HANDS)
    assert not of(events, "kong")
    assert of(events, "win")[0]["patterns"] == ["胡"]


# -- simulated hands, checked event by event -------------------------------------------------


class FlowCheck:
    """What every hand of a ruleset that plays on after a win must satisfy, from its events."""

    def __init__(self, rs: Any) -> None:
        self.rs = rs
        self.problems: list[str] = []

    def check(self, events: list[dict[str, Any]], result: HandResult) -> dict[str, Any]:
        n = self.rs.players
        flow = self.rs.flow
        hand: list[Counter[int]] = [Counter() for _ in range(n)]
        melds: list[list[int]] = [[] for _ in range(n)]
        discards: list[list[int]] = [[] for _ in range(n)]
        won: list[list[int]] = [[] for _ in range(n)]
        seen: Counter[int] = Counter()  # every tile that came out of the wall
        out: set[int] = set()
        void: dict[int, int] = {}
        money = [0] * n
        kong_items: Counter[tuple[int, int, int]] = Counter()
        locked: set[int] = set()
        drawn: dict[int, int] = {}
        groups: list[list[dict[str, Any]]] = []
        last = ""
        winners: list[int] = []
        wins = 0
        discard_no = 0  # discards so far: several winners on one discard share its tile
        won_on: set[int] = set()
        facts = {"exchange": False, "declare": 0, "wins": 0, "kong_settlements": 0, "drawn": 0,
                 "refunds": 0}

        def bad(msg: str) -> None:
            self.problems.append(f"seed {events[0]['seed']}: {msg}")

        def take(seat: int, tiles: list[int], what: str) -> None:
            for t in tiles:
                if hand[seat][t] <= 0:
                    bad(f"{what}: seat {seat} doesn't hold {tile_code(t)}")
                hand[seat][t] -= 1

        def in_void(seat: int, t: int) -> bool:
            return seat in void and not is_honor(t) and t // 9 == void[seat]

        for e in events:
            ty = e["type"]
            seat = e.get("seat")
            if ty in ("draw", "discard", "claim", "kong", "win") and seat in out:
                bad(f"{ty} by seat {seat}, who has left the hand")
            if ty == "deal":
                for s, h in enumerate(e["hands"]):
                    ts = parse_tiles("".join(h))
                    hand[s].update(ts)
                    seen.update(ts)
            elif ty == "exchange":
                facts["exchange"] = True
                k = flow.exchange.tiles
                for p in e["passes"]:
                    ts = parse_tiles("".join(p["tiles"]))
                    if len(ts) != k:
                        bad(f"exchange: seat {p['seat']} passed {len(ts)} tiles, not {k}")
                    suits = {3 if is_honor(t) else t // 9 for t in ts}
                    if flow.exchange.same_suit and len(suits) != 1:
                        bad(f"exchange: seat {p['seat']} passed mixed suits {p['tiles']}")
                    take(p["seat"], ts, "exchange")
                for p in e["passes"]:
                    hand[p["to"]].update(parse_tiles("".join(p["tiles"])))
                if sorted(p["to"] for p in e["passes"]) != list(range(n)):
                    bad("exchange: not everyone received tiles")
            elif ty == "declare":
                facts["declare"] += 1
                if e["what"] == "void_suit":
                    void[seat] = "mps".index(e["value"])
            elif ty == "draw":
                t = parse_tile(e["tile"])
                hand[seat][t] += 1
                seen[t] += 1
                drawn[seat] = t
            elif ty == "discard":
                t = parse_tile(e["tile"])
                held_void = [x for x in hand[seat].elements() if in_void(seat, x)]
                vs = flow.void_suit
                if vs is not None and vs.discard_first and held_void and not in_void(seat, t):
                    bad(f"seat {seat} discarded {e['tile']} holding its void suit")
                if seat in locked and (last != "draw" or drawn.get(seat) != t):
                    bad(f"seat {seat}, locked after winning, discards {e['tile']}, not its draw")
                take(seat, [t], "discard")
                discards[seat].append(t)
                discard_no += 1
            elif ty == "claim":
                ts = parse_tiles("".join(e["tiles"]))
                t = discards[e["from_seat"]].pop()
                if in_void(seat, t):
                    bad(f"seat {seat} claimed {tile_code(t)} of its void suit")
                rest = list(ts)
                rest.remove(t)
                take(seat, rest, "claim")
                melds[seat].extend(ts)
            elif ty == "kong":
                t = parse_tile(e["tile"])
                take(seat, [t] * (4 if e["kind"] == "concealed" else 1), "kong")
                melds[seat].append(t)  # (an added kong's pung is already there)
                if e["kind"] == "concealed":
                    melds[seat].extend([t] * 3)
            elif ty == "win":
                facts["wins"] += 1
                wins += 1
                t = parse_tile(e["tile"])
                held = list(hand[seat].elements())
                if e["win_by"] == "discard" or e["win_by"] == "robbed_kong":
                    held.append(t)
                if any(in_void(seat, x) for x in held):
                    bad(f"seat {seat} won holding its void suit: {[tile_code(x) for x in held]}")
                if seat not in winners:
                    winners.append(seat)
                if last == "win":
                    groups[-1].append(e)
                else:
                    groups.append([e])
                self._last_win = dict(e, _discard_no=discard_no)
            elif ty == "settlement":
                net = [0] * n
                for it in e["items"]:
                    net[it["payer"]] -= it["amount"]
                    if it["payee"] is not None:
                        net[it["payee"]] += it["amount"]
                    if it["payer"] in out:
                        bad(f"seat {it['payer']} paid after leaving: {e}")
                if net != e["payments"] or sum(net) != 0:
                    bad(f"settlement doesn't add up: {e}")
                money = [a + b for a, b in zip(money, net, strict=True)]
                kind = e.get("kind")
                items = [(it["payer"], it["payee"], it["amount"]) for it in e["items"]]
                if kind == "kong":
                    kong_items.update(items)
                elif kind == "refund":
                    back = Counter((b, a, x) for a, b, x in items)
                    if back - kong_items:
                        bad(f"a refund of kong money never paid: {dict(back - kong_items)}")
                    kong_items.subtract(back)
                elif kind == "draw":
                    fixed = [r.amount for r in flow.on_draw if isinstance(r.amount, int)]
                    for a, b, x in items:
                        if a in out or b in out:
                            bad(f"a drawn end's payment involves a seat that left: {e}")
                        if x in fixed:  # here: the void-holder's fixed payment (查花猪)
                            if not any(in_void(a, y) for y in hand[a].elements()):
                                bad(f"seat {a} pays {x} holding no void tile: {e}")
                            if any(in_void(b, y) for y in hand[b].elements()):
                                bad(f"seat {b} is paid {x} holding its void suit: {e}")
                facts["kong_settlements"] += kind == "kong"
                facts["drawn"] += kind == "draw"
                facts["refunds"] += kind == "refund"
                if kind is None and self._last_win is not None:  # a win's settlement: apply it
                    w = self._last_win
                    self._last_win = None
                    ws, t = w["seat"], parse_tile(w["tile"])
                    first = True  # several winners on one discard share the one tile
                    if w["win_by"] == "discard":
                        first = w["_discard_no"] not in won_on
                        won_on.add(w["_discard_no"])
                        if first:
                            discards[w["from_seat"]].pop()
                    elif w["win_by"] == "self_draw":
                        take(ws, [t], "self-drawn win")
                    elif w["win_by"] == "robbed_kong":
                        first = t in melds[w["from_seat"]]
                        if first:
                            melds[w["from_seat"]].remove(t)  # the added kong's fourth never stayed
                    if first:
                        won[ws].append(t)
                    if flow.after_win == "leave":
                        out.add(ws)
                    else:
                        locked.add(ws)
            elif ty == "hand_end":
                if e.get("winners", winners) != winners:
                    bad(f"hand_end winners {e.get('winners')} != {winners}")
                if groups:
                    g = groups[0] if self.rs.flow.which_win == "first" else groups[-1]
                    want = g[0]["from_seat"] if len(g) > 1 else g[0]["seat"]
                    if e["next_dealer"] != want:
                        bad(f"next dealer {e['next_dealer']}, expected {want}")
            if ty not in ("settlement", "dice", "call"):
                last = ty
        # tiles conserved: what came out of the wall is in hands, melds, discards or won
        where: Counter[int] = Counter()
        for s in range(n):
            where.update(hand[s].elements())
            where.update(melds[s])
            where.update(discards[s])
            where.update(won[s])
        if where != seen:
            bad(f"tiles not conserved: extra {where - seen}, missing {seen - where}")
        if money != result.payments or sum(money) != 0:
            bad(f"money: events {money}, result {result.payments}")
        before_last = {w["seat"] for g in groups[:-1] for w in g}
        if flow.after_winners is not None and len(before_last) >= flow.after_winners:
            bad(f"play went on after {len(before_last)} winners, the ruleset stops at {flow.after_winners}")
        facts["winners"] = len(winners)
        facts["repeat_wins"] = facts["wins"] - len(winners)
        return facts

    _last_win: dict[str, Any] | None = None


def simulate(rs: Any, hands: int, seed: int) -> tuple[FlowCheck, list[dict[str, Any]]]:
    check = FlowCheck(rs)
    all_facts = []
    dealer = 0
    for h in range(hands):
        events: list[dict[str, Any]] = []
        players = [GreedyBot(random.Random(f"{seed}/{h}/{s}")) for s in range(rs.players)]
        result = Game(rs, players, seed=seed * 100_000 + h, dealer=dealer, hand_no=h,
                      emit=events.append).play()
        assert result.result != "abandon", result.error
        all_facts.append(check.check(events, result))
        dealer = result.next_dealer
    return check, all_facts


def test_blood_battle_like_table_keeps_its_books(tmp_path: Path) -> None:
    rs = ruleset(tmp_path, BLOOD)
    check, facts = simulate(rs, 150, seed=3)
    assert check.problems == []
    assert all(f["exchange"] for f in facts)
    assert all(f["declare"] == 4 for f in facts)
    winners = Counter(f["winners"] for f in facts)
    assert winners[2] and winners[3], winners  # several wins in one hand happen
    assert sum(f["kong_settlements"] for f in facts)
    assert sum(f["drawn"] for f in facts)


def test_winners_stay_and_win_again(tmp_path: Path) -> None:
    """``after_win: stay`` (血流成河): a winner stays, locked, and may win again; only the wall
    ends the hand; the last win names the next dealer (``dealer.which_win: last``)."""
    rs = ruleset(tmp_path, {"win": {"after_win": "stay"}, "dealer": {"which_win": "last"}})
    check, facts = simulate(rs, 60, seed=5)
    assert check.problems == []
    assert sum(f["repeat_wins"] for f in facts) > 0  # someone won twice in a hand


def test_after_winners_ends_the_hand_early(tmp_path: Path) -> None:
    rs = ruleset(tmp_path, {"win": {"after_win": "leave", "after_winners": 2}})
    check, facts = simulate(rs, 60, seed=6)
    assert check.problems == []
    # the hand stops once two have won (several winners on one discard may make it three)
    assert any(f["winners"] == 2 for f in facts) and max(f["winners"] for f in facts) <= 3


# -- the exchange and the void suit, scripted -----------------------------------------------


def first(decision: Decision) -> Option:
    return decision.options[0]


def suit(code: str) -> Callable[[Decision], Option]:
    """Declare ``code`` void; pass the first exchange offered."""
    def pick(d: Decision) -> Option:
        if d.kind == "declare":
            return next(o for o in d.options if o.value == code)
        return d.options[0]
    return pick


@pytest.mark.parametrize(("direction", "step"), [("right", 1), ("across", 2), ("left", 3)])
def test_exchange_passes_in_the_declared_direction(tmp_path: Path, direction: str, step: int) -> None:
    rs = ruleset(tmp_path, {"exchange": {"tiles": 3, "direction": direction}})
    _, events = play(rs, [Script(pick=first) for _ in range(4)], {})
    ex = of(events, "exchange")[0]
    assert ex["direction"] == direction
    deal = of(events, "deal")[0]["hands"]
    for p in ex["passes"]:
        assert p["to"] == (p["seat"] + step) % 4
        ts = parse_tiles("".join(p["tiles"]))
        assert len(ts) == 3 and len({t // 9 for t in ts}) == 1  # one suit
        assert not Counter(ts) - Counter(parse_tiles("".join(deal[p["seat"]])))
    assert not [e for e in of(events, "dice") if e["purpose"] == "exchange"]


def test_exchange_direction_by_dice(tmp_path: Path) -> None:
    rs = ruleset(tmp_path, {"exchange": {"tiles": 3, "suit": "any",
                                         "direction": {"dice": 2, "odd": "left", "even": "right"}}})
    seen: Counter[str] = Counter()
    for seed in range(8):
        _, events = play(rs, [Script(pick=first) for _ in range(4)], {}, seed=seed)
        dice = next(e for e in of(events, "dice") if e["purpose"] == "exchange")["values"]
        ex = of(events, "exchange")[0]
        assert ex["direction"] == ("left" if sum(dice) % 2 else "right")
        seen[ex["direction"]] += 1
    assert len(seen) == 2


VOID_HANDS = {
    0: "123m 456m 789m 11s 23s 2p",   # void p: must discard 2p first; later 9m
    1: "1m 234s 567s 345p 678p",      # void m: must discard 1m first
    2: "88m 234s 678s 345p 78p",      # void m
    3: "999m 234s 567s 678p 2p",      # void m: would win on 2p, holds 999m; may not pung 9m
}


def test_void_suit_discard_first_no_claim_no_win(tmp_path: Path) -> None:
    rs = ruleset(tmp_path, {"declarations": {"void_suit": {}}})
    players = [Script("2p 9m", take=("win",), pick=suit("p")), Script("1m", pick=suit("m")),
               Script("8m", pick=suit("m")), Script(pick=suit("m"), take=("win", "kong", "pung"))]
    _, events = play(rs, players, VOID_HANDS, live="7s 1s 9p 9s")
    assert {e["seat"]: e["value"] for e in of(events, "declare")} == {0: "p", 1: "m", 2: "m", 3: "m"}
    turns = {s: next(d for d in players[s].seen if d.kind == "turn") for s in (0, 1)}
    assert {o.tile for o in turns[0].options if o.kind == "discard"} == set(parse_tiles("2p"))
    assert {o.tile for o in turns[1].options if o.kind == "discard"} == set(parse_tiles("1m"))
    two_p, nine_m = parse_tiles("2p 9m")
    # seat 3 waits on 2p but holds its void suit: not even asked; nor about seat 0's 9m
    asked = [(d.tile, d.from_seat) for d in players[3].seen if d.kind == "claim"]
    assert (two_p, 0) not in asked and (nine_m, 0) not in asked
    assert [e["tile"] for e in of(events, "discard")][:5] == ["2p", "1m", "8m", "9m", "9m"]
    assert not [e for e in of(events, "claim") if e["seat"] == 3]


def test_void_suit_refused_by_the_evaluator_too(tmp_path: Path) -> None:
    """mj score / conformance / the game agree: a hand holding its void suit is no win."""
    from mjframework.core.hand import Hand, WinContext
    from mjframework.evaluate.scoring import Evaluator

    rs = ruleset(tmp_path, {"declarations": {"void_suit": {}}})
    ev = Evaluator(rs)
    hand = Hand(tuple(parse_tiles("123m 456p 789p 234s 5s")), (), parse_tiles("5s")[0])
    assert ev.score(hand, WinContext(seat=0)).win
    assert not ev.score(hand, WinContext(seat=0, seat_state={"void_suit": "m"})).win
    assert not ev.is_win(hand, WinContext(seat=0, seat_state={"void_suit": "m"}))
    assert not ev.score(hand, WinContext(seat=0, seat_state={"void_suit": "s"})).win
    loose = ruleset(tmp_path, {"declarations": {"void_suit": {"win_holding": True}}})
    assert Evaluator(loose).score(hand, WinContext(seat=0, seat_state={"void_suit": "m"})).win


def test_ready_declaration_locks_and_patterns_see_it(tmp_path: Path) -> None:
    rs = ruleset(tmp_path, {"declarations": {"ready": {}},
                            "patterns": [*BASE["patterns"],
                                         {"name": "报听", "when": {"seat_state": {"ready": True}},
                                          "points": 3}]})
    hands = {0: "9m 123m 456m 789m 11p 23p", 1: "234m 567m 34p 666s 99s",
             2: "111s 222s 333s 4s 55m 6m", 3: "777s 888s 999p 1m 2m 33p"}
    players = [Script("9m"), Script("1s", ready=True), Script("5p", take=("win",)), Script()]
    _, events = play(rs, players, hands, live="1s 5p")
    assert of(events, "declare") == [{"type": "declare", "seat": 1, "what": "ready", "value": True}]
    win = of(events, "win")[0]
    assert (win["seat"], win["tile"], win["patterns"]) == (1, "5p", ["胡", "报听"])
    # a ready option comes only with a discard that leaves the hand waiting
    turn = next(d for d in players[1].seen if d.kind == "turn")
    assert {o.tile for o in turn.options if o.value == "ready"} == set(parse_tiles("1s"))


# -- kongs paid at the kong, drawn ends ------------------------------------------------------


def test_kong_paid_at_the_kong(tmp_path: Path) -> None:
    rs = ruleset(tmp_path, {"scoring": {"kongs": {"concealed_kong": {"each_other": 2},
                                                  "paid": "at_kong"}}})
    players = [Script("5p"), Script(), Script(), Script()]
    result, events = play(rs, players, KONG_HANDS, kong="2s")
    i = next(i for i, e in enumerate(events) if e["type"] == "kong")
    assert events[i + 1]["type"] == "settlement" and events[i + 1]["kind"] == "kong"
    assert events[i + 1]["payments"] == [6, -2, -2, -2]
    win = of(events, "win")[0]
    paid = next(e for e in events[i + 2:] if e["type"] == "settlement")
    assert "kind" not in paid and len(paid["items"]) == 1  # no kong money a second time
    pts = win["points"]
    assert result.payments == [6 - pts, -2 + pts, -2, -2]


def test_blood_table_refunds_and_drawn_payments(tmp_path: Path) -> None:
    rs = ruleset(tmp_path, BLOOD)
    check, facts = simulate(rs, 150, seed=8)
    assert check.problems == []
    assert sum(f["refunds"] for f in facts) and sum(f["drawn"] for f in facts)


# -- plugins that restrict -------------------------------------------------------------------


class NoPungNoSelfDraw:
    """Removes every pung option; refuses every self-drawn win."""

    options_schema: ClassVar[dict[str, Any]] = {"type": "object"}

    def __init__(self, options: dict[str, Any]) -> None:
        self.options = options

    @hookimpl
    def mj_restrict_options(self, hand: Any, seat: int, decision: Decision) -> list[Option]:
        return [o for o in decision.options if o.kind == "pung"]

    @hookimpl
    def mj_refuse_win(self, hand: Any, seat: int, tile: int, win_by: str, context: Any) -> str | None:
        return "no self-draw here" if win_by == "self_draw" else None


class NoDiscard:
    options_schema: ClassVar[dict[str, Any]] = {"type": "object"}

    def __init__(self, options: dict[str, Any]) -> None:
        self.options = options

    @hookimpl
    def mj_restrict_options(self, hand: Any, seat: int, decision: Decision) -> list[Option]:
        return [o for o in decision.options if o.kind in ("discard", "win")]


@pytest.fixture
def restricting() -> Any:
    register_plugin("t-no-pung", NoPungNoSelfDraw)
    register_plugin("t-no-discard", NoDiscard)
    yield
    unregister_plugin("t-no-pung")
    unregister_plugin("t-no-discard")


def test_plugins_remove_options_and_refuse_wins(tmp_path: Path, restricting: Any) -> None:
    rs = ruleset(tmp_path, {"plugins": {"t-no-pung": {}}})
    events: list[dict[str, Any]] = []
    for h in range(40):
        players = [GreedyBot(random.Random(f"r/{h}/{s}")) for s in range(4)]
        Game(rs, players, seed=h, dealer=h % 4, emit=events.append).play()
    assert not [e for e in of(events, "claim") if e["kind"] == "pung"]
    assert not [e for e in of(events, "win") if e["win_by"] == "self_draw"]
    assert of(events, "win")  # discard wins still happen
    assert not of(events, "abandon")


def test_a_plugin_removing_every_discard_abandons_the_hand(tmp_path: Path, restricting: Any) -> None:
    rs = ruleset(tmp_path, {"plugins": {"t-no-discard": {}}})
    result = Game(rs, [GreedyBot(random.Random(s)) for s in range(4)], seed=1).play()
    assert result.result == "abandon"
    assert "removed every discard" in result.error


# -- bad combinations are located errors -----------------------------------------------------


@pytest.mark.parametrize(("override", "words"), [
    ({"win": {"after_win": "leave", "after_winners": 4}}, "at most 3"),
    ({"win": {"after_win": "stay", "after_winners": 5}}, "at most 4"),
    ({"win": {"after_winners": 2}}, "needs `after_win"),
    ({"exchange": {"tiles": 14, "direction": "right"}}, "a hand holds only 13"),
    ({"exchange": {"tiles": 3, "direction": {"dice": 1, "values": {"1": "left", "2": "right"}}}},
     "no direction for the dice sum 3"),
    ({"exchange": {"tiles": 3, "direction": {"dice": 1, "odd": "left", "values": {"2": "left"}}}},
     "not both"),
    ({"scoring": {"kongs": {"refund": "not_ready"}}}, "needs `paid: at_kong`"),
    ({"scoring": {"kongs": {"paid": "at_kong", "void_on_draw": True}}}, "never voided"),
    ({"scoring": {"on_draw": [{"pay": 8, "from": ["holding_void"], "to": ["any"]}]}}, "needs `declarations"),
])
def test_bad_combinations_are_located(tmp_path: Path, override: dict[str, Any], words: str) -> None:
    path = write(tmp_path, merged(override))
    _, problems = check_file(path)
    hits = [p for p in problems if words in p.message]
    assert hits, [str(p) for p in problems]
    assert hits[0].location is not None and hits[0].location.line > 1
    r = CliRunner().invoke(main, ["validate", str(path)])
    assert r.exit_code != 0 and words in r.output and "Traceback" not in r.output


def test_across_needs_four_players(tmp_path: Path) -> None:
    data = merged({"exchange": {"tiles": 3, "direction": "across"}})
    data["players"] = 3
    _, problems = check_file(write(tmp_path, data))
    assert any("`across` needs 4 players" in p.message for p in problems)


def test_a_player_sees_only_its_own_exchange_and_everyone_the_declarations(tmp_path: Path) -> None:
    from mjframework.play.visibility import view_for
    from mjframework.ui.human import Announcer

    rs = ruleset(tmp_path, BLOOD)
    events: list[dict[str, Any]] = []
    Game(rs, [GreedyBot(random.Random(s)) for s in range(4)], seed=3, emit=events.append).play()
    ex = of(events, "exchange")[0]
    mine = view_for(ex, 1)
    assert mine["passes"] is None
    assert mine["given"][1] == ex["given"][1] and mine["given"][0] is None
    assert mine["received"][1] == next(p["tiles"] for p in ex["passes"] if p["to"] == 1)
    lines: list[str] = []
    seat1 = Announcer(lines.append, seat=1)
    for e in events:
        seat1(e)
    text = "\n".join(lines)
    assert "换牌" in text and text.count("换出") == 1 and text.count(" 缺 ") == 4


def test_rule_card_tells_the_flow(tmp_path: Path) -> None:
    r = CliRunner().invoke(main, ["doc", str(write(tmp_path, merged(BLOOD))), "--format", "md"])
    assert r.exit_code == 0, r.output
    assert "3 tiles of one suit, passed by 2 dice" in r.output
    assert "a hand holding it cannot win" in r.output
    assert "winners leave, the others play on until 3 have won" in r.output
    assert "paid when the kong is made" in r.output and "best possible win" in r.output
