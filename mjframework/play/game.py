"""The game engine: one hand from wall to settlement, driven by the ruleset alone.

:class:`Game` builds the wall, rolls and breaks it, deals, flips the
indicator, then runs turns — draw, self-draw win, kongs, discard, claims by
priority — until a win or the wall runs out, settles, and names the next
dealer. Everything variant-specific comes from the ruleset (claims, win
rules, priorities, dealer rotation) or from plugins; the engine knows no
variant.

The engine's concerns live in :mod:`mjframework.play.table` (state, relay, wins,
moves, endings, kongs, claims, turn, control), each a class extending the one it
builds on; :class:`Game` tops the stack with the hand's setup and :meth:`Game.play`.

One seeded :class:`random.Random` per hand: the same seed and the same
decisions replay the same hand exactly.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..core.hand import KONG_PAYMENT_KEY
from ..core.tiles import Tile, is_flower, is_honor, tile_code
from ..evaluate.scoring import Evaluator
from ..hooks.registry import PluginError
from ..rules.model import Ruleset
from . import counters as cnt
from . import events as evt
from .events import EventSink, tiles_out
from .players import Decision, Option, Player, TableView
from .table.control import HandControl
from .table.relay import Steps, run_to_end
from .table.state import HandAbandoned, HandOver, HandResult, Resume, SeatState, exchange_option
from .table.turn import Turns
from .visibility import BY_SEAT, NOBODY


class Game(Turns):
    """Plays one hand. ``players`` are indexed by absolute seat; ``emit`` is the event sink
    (a :class:`~mjframework.play.events.CountingSink` is told the frequent events it does
    not read by type alone)."""

    def __init__(self, ruleset: Ruleset, players: Sequence[Player], *, seed: int, dealer: int = 0,
                 hand_no: int = 0, emit: EventSink | None = None, evaluator: Evaluator | None = None,
                 last_winner_call: tuple[int, str] | None = None, hand_in_game: int | None = None,
                 counters: cnt.Counts | None = None, deal_passes: int | None = None) -> None:
        self.control = HandControl(self)
        super().__init__(ruleset, players, seed=seed, dealer=dealer, hand_no=hand_no, emit=emit,
                         evaluator=evaluator, last_winner_call=last_winner_call, hand_in_game=hand_in_game,
                         counters=counters, deal_passes=deal_passes)
        # Each seat's view (it reads the game live: one per seat serves every decision).
        self._views = [TableView(self, seat) for seat in range(ruleset.players)]

    # -- the hand ------------------------------------------------------------

    def play(self) -> HandResult:
        """Play the hand with the seats' players; its result.

        The hand runs as :meth:`steps`; with every seat's player here, no step ever
        waits, so this is one call with no hand-over."""
        return run_to_end(self.steps(), lambda d: RuntimeError(
            f"seat {d.seat} is played from outside (OUTSIDE): drive the hand with Game.steps() "
            "or the stepper's Table"))

    def steps(self) -> Steps[HandResult]:
        """The hand as a machine driven from outside: a generator that yields each
        :class:`Decision` of a seat played by :data:`~mjframework.play.players.OUTSIDE`,
        is sent the chosen :class:`Option` (or thrown the player's exception: it
        leaves), and returns the :class:`HandResult`. Seats with a player of their own
        are asked directly and never yield."""
        rs = self.ruleset
        try:
            self.send(evt.HandStart(hand=self.hand_no, ruleset=rs.id, dealer=self.dealer, seed=self.seed,
                                    counters=cnt.table_view(rs, self.counters) if self.counters else None,
                                    hand_size=rs.hand.size if rs.hand.size != 13 else None))
            result = yield from self._play()
        except GeneratorExit:
            # A hand nobody finishes is closed (also by the collector at interpreter exit, when
            # this module's names may already be gone): nothing to tell, nothing to match below.
            raise
        except HandOver as over:
            assert isinstance(over.result, HandResult)  # (play going on is resumed in _play)
            result = over.result
        except (HandAbandoned, PluginError) as e:
            # Told straight to the sinks: a failing plugin must not be asked again.
            nxt = self.dealer
            plugin = getattr(e, "plugin", None) or getattr(e.__cause__, "plugin", None)
            self._emit_raw(evt.Abandon(reason=str(e), plugin=plugin or None).to_json())
            self.reveal_melds(self._emit_raw)
            self._emit_raw(evt.HandEnd(result="abandon", next_dealer=nxt).to_json())
            return HandResult("abandon", [], nxt, [0] * rs.players, error=str(e))
        return result

    def _play(self) -> Steps[HandResult]:
        rs = self.ruleset
        brk = self.wall.break_wall()
        self.send(evt.Dice(purpose="break", values=list(brk.dice)))
        if "wall" in self._counted:
            self._count("wall")
        elif not self._silent:  # (136 tile codes: not made for nobody)
            self.send(evt.Wall(start_wall=brk.wall_seat, start_stack=brk.stack, height=self.wall.height,
                                tiles=[tile_code(t) if t is not None else None for t in self.wall.slots],
                                hidden={"tiles": NOBODY}))
        self._deal()
        if "deal" in self._counted:
            self._count("deal")
        else:
            self.send(evt.Deal(hands=[tiles_out(sorted(s.hand)) for s in self.seats],
                                hidden={"hands": BY_SEAT}))
        if rs.tileset.flowers:
            self._replace_dealt_flowers()
        if self.laid_on_sight:
            self._lay_dealt_kongs()
        rule = rs.wildcard
        if rule is not None and rule.flips:
            dice, ind = self.wall.flip_indicator()
            self.send(evt.Dice(purpose="wildcard", values=list(dice)))
            self.indicator = ind
            self.wildcard = rule.wildcard_for(ind)
            self.wildcards = rule.kinds(self.wildcard)
            if rule.fixed:
                self.send(evt.Wildcard(indicator=tile_code(ind), wildcard=tile_code(self.wildcard),
                                        wildcards=tiles_out(sorted(self.wildcards))))
            else:
                self.send(evt.Wildcard(indicator=tile_code(ind), wildcard=tile_code(self.wildcard)))
        elif rule is not None:  # fixed wildcards only: nothing flipped, nothing taken out of play
            self.wildcard = rule.fixed[0]
            self.wildcards = rule.kinds()
            self.send(evt.Wildcard(indicator=None, wildcard=tile_code(self.wildcard),
                                    wildcards=tiles_out(sorted(self.wildcards))))
        if self.flow.exchange is not None:
            yield from self._exchange()
        if self.flow.void_suit is not None:
            yield from self._declare_void()
        try:
            for said in self.hook("mj_after_deal", hand=self.control):
                end = yield from self.follow(said)
                if end is not None:
                    raise HandAbandoned(f"mj_after_deal (or its mj_answer) returned {end!r}: "
                                        "expected None or an Ask")
        except HandOver as over:  # a deprecated HandControl.win, in a hand that goes on
            if not isinstance(over.result, Resume):
                raise
            return (yield from self._turns(over.result))
        return (yield from self._turns())

    # -- phases before play ------------------------------------------------------

    def _exchange(self) -> Steps[None]:
        """Every seat passes the declared number of tiles in one direction."""
        ex = self.flow.exchange
        assert ex is not None
        n = self.ruleset.players
        direction = ex.direction
        if direction is None:
            dice = self.wall.roll(ex.dice)
            self.send(evt.Dice(purpose="exchange", values=list(dice)))
            direction = ex.by_dice[sum(dice)]
        step = {"right": 1, "across": 2, "left": n - 1}[direction]
        # Every seat chooses at once: one decision set (Relay.ask_set), from the dealer on.
        order = [(self.dealer + i) % n for i in range(n)]
        choices = yield from self.ask_set([
            Decision("exchange", seat, self._exchange_options(self.seats[seat].hand, ex.tiles, ex.same_suit),
                     prompt=f"pass {ex.tiles} tiles to the {direction}") for seat in order])
        chosen: dict[int, tuple[Tile, ...]] = {
            seat: choice.tiles for seat, choice in zip(order, choices, strict=True)}
        for seat, tiles in chosen.items():
            for t in tiles:
                self.seats[seat].hand.remove(t)
        for seat, tiles in chosen.items():
            self.seats[(seat + step) % n].hand.extend(tiles)
        # The log keeps every pass (``passes``); a player sees only what it gave and got.
        self.send(evt.Exchange(
            direction=direction,
            passes=[{"seat": seat, "to": (seat + step) % n, "tiles": tiles_out(list(t))}
                    for seat, t in sorted(chosen.items())],
            given=[tiles_out(list(chosen[seat])) for seat in range(n)],
            received=[tiles_out(list(chosen[(seat - step) % n])) for seat in range(n)],
            hidden={"passes": NOBODY, "given": BY_SEAT, "received": BY_SEAT}))

    @staticmethod
    def _exchange_options(hand: list[Tile], k: int, same_suit: bool) -> tuple[Option, ...]:
        """Every distinct choice of ``k`` held tiles (of one suit, where the rule says so;
        any ``k`` if no suit has that many)."""
        from itertools import combinations

        groups: list[list[Tile]] = []
        if same_suit:
            by: dict[int, list[Tile]] = {}
            for t in sorted(hand):
                by.setdefault(3 if is_honor(t) else t // 9, []).append(t)
            groups = [g for g in by.values() if len(g) >= k]
        if not groups:
            groups = [sorted(hand)]
        seen: dict[tuple[Tile, ...], None] = {}
        for g in groups:
            for combo in combinations(g, k):
                seen.setdefault(combo, None)
        return tuple([exchange_option(combo) for combo in seen])

    def _declare_void(self) -> Steps[None]:
        """Every seat declares one suit of the tile set void."""
        n = self.ruleset.players
        suits = sorted({t // 9 for t in self.ruleset.tileset.kinds if not is_honor(t)})
        # Every seat declares at once: one decision set, from the dealer on, told after the last.
        order = [(self.dealer + i) % n for i in range(n)]
        options = tuple(Option("declare", value="mps"[x]) for x in suits)
        choices = yield from self.ask_set([Decision("declare", seat, options, prompt="declare a void suit")
                                           for seat in order])
        for seat, choice in zip(order, choices, strict=True):
            self.seats[seat].state["void_suit"] = choice.value
            self.send(evt.Declare(seat=seat, what="void_suit", value=choice.value))

    def _replace_dealt_flowers(self) -> None:
        """After the deal each player, from the dealer on, sets flowers aside and replaces them."""
        n = self.ruleset.players
        for seat in [(self.dealer + i) % n for i in range(n)]:
            hand = self.seats[seat].hand
            while any(is_flower(t) for t in hand):
                f = next(t for t in hand if is_flower(t))
                hand.remove(f)
                self._set_flower_aside(seat, f)
                rep = self.wall.take_kong()
                if rep is None:
                    raise HandAbandoned("the wall ran out replacing flowers")
                hand.append(rep)
                self.send(evt.Draw(seat=seat, tile=tile_code(rep), source="flower", hidden={"tile": seat}))

    def _lay_dealt_kongs(self) -> None:
        """After the deal each player, from the dealer on, lays aside the `laid_kongs` kinds held."""
        n = self.ruleset.players
        for seat in [(self.dealer + i) % n for i in range(n)]:
            held = self.seats[seat].hand
            while (t := next((x for x in held if x in self.laid_on_sight), None)) is not None:
                self._lay_kong(seat, t)
                if self.give(seat, self.wall.take_kong(), "kong") is None:
                    raise HandAbandoned("the wall ran out replacing a tile laid aside as a kong")

    def _deal(self) -> None:
        d = self.ruleset.deal
        n = self.ruleset.players
        order = [(self.dealer + i) % n for i in range(n)]
        for _ in range(d.rounds):
            for seat in order:
                block = self.wall.take_live_n(d.block)
                self.seats[seat].hand.extend(block)
                if len(block) < d.block:
                    self._must(None)
        for step in d.then:
            seat = (self.dealer + step.seat) % n
            for pick in step.take:
                self.seats[seat].hand.append(self.wall.take_at(pick.stack, pick.layer))
            for _ in range(step.tiles):
                self.seats[seat].hand.append(self._must(self.wall.take_live()))
        # Tiles taken out of order (跳杠) leave the live end at the first untaken slot.
        while self.wall.live < len(self.wall.slots) and self.wall.slots[self.wall.live] is None:
            self.wall.live += 1

    @staticmethod
    def _must(t: Tile | None) -> Tile:
        if t is None:
            raise HandAbandoned("the wall ran out during the deal")
        return t



__all__ = ["KONG_PAYMENT_KEY", "Game", "HandAbandoned", "HandControl", "HandResult", "SeatState"]
