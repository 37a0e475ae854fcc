"""The plugins' facade over a hand: :class:`HandControl` (passed to game hooks as ``hand``).

It reads the table's documented state (:class:`~mjframework.play.table.state.HandState`'s
public attributes) and acts through the table's public steps — the same rules and
events as the engine's own moves; it reaches into no private member of the game.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ...core.errors import HandError
from ...core.hand import Hand, Meld
from ...core.stash import Stash
from ...core.tiles import Tile, tile_code
from ...evaluate.scoring import Score
from .. import events as evt
from ..outcomes import Win
from ..players import Decision, Option
from .state import HandOver

if TYPE_CHECKING:
    from ..game import Game


class HandControl:
    """What a plugin may see and do during a hand (passed to game hooks as ``hand``).

    Seeing returns copies; doing goes through the same rules and events as
    the engine's own moves. A plugin ends the hand or a turn by *returning* a
    typed result from its hook (:class:`~mjframework.play.outcomes.Win`,
    :class:`~mjframework.play.outcomes.EndDrawn`, :class:`~mjframework.play.outcomes.Discard`,
    :class:`~mjframework.play.outcomes.Continue`); the engine acts on it. State a plugin
    keeps for this hand goes in :attr:`stash`.
    """

    def __init__(self, game: Game) -> None:
        self._g = game
        #: Per-hand plugin state, keyed by :class:`~mjframework.core.stash.StashKey` objects;
        #: dropped with the hand (a plugin instance serves every hand of its ruleset).
        self.stash = Stash()

    # -- seeing ----------------------------------------------------------------

    @property
    def ruleset_id(self) -> str:
        return self._g.ruleset.id

    @property
    def players(self) -> int:
        return self._g.ruleset.players

    @property
    def dealer(self) -> int:
        return self._g.dealer

    @property
    def hand_no(self) -> int:
        return self._g.hand_no

    @property
    def wildcard(self) -> Tile | None:
        return self._g.wildcard

    @property
    def wildcards(self) -> frozenset[Tile]:
        """Every wild kind of this hand (the fixed ones and the flipped one)."""
        return self._g.wildcards

    @property
    def indicator(self) -> Tile | None:
        return self._g.indicator

    @property
    def previous(self) -> tuple[int, str] | None:
        """(seat, call) of the previous hand's win in this game, if it had one."""
        return self._g.previous

    @property
    def opening_winners(self) -> tuple[int, ...]:
        return tuple(self._g.opening_winners)

    @property
    def no_claims_yet(self) -> bool:
        return self._g.no_claims

    def hand_of(self, seat: int) -> tuple[Tile, ...]:
        return tuple(sorted(self._g.seats[seat].hand))

    def melds_of(self, seat: int) -> tuple[Meld, ...]:
        return tuple(self._g.seats[seat].melds)

    def discards_of(self, seat: int) -> tuple[Tile, ...]:
        return tuple(self._g.seats[seat].discards)

    def live_remaining(self) -> int:
        return self._g.wall.live_remaining()

    def peek_live(self, n: int) -> list[Tile]:
        """The next ``n`` live tiles (fewer near the end), without drawing them."""
        return self._g.wall.peek_live(n)

    def peek_end(self, n: int) -> list[Tile]:
        """The next ``n`` tiles at the kong end (fewer near the end), without drawing them."""
        return self._g.wall.peek_end(n)

    def is_locked(self, seat: int) -> bool:
        return seat in self._g.locked

    def seat_state(self, seat: int) -> dict[str, Any]:
        """A copy of the seat's state: declarations (``void_suit``, ``ready``), ``wins`` this
        hand, and what plugins stored; patterns see it as ``WinContext.seat_state``."""
        return dict(self._g.seats[seat].state)

    def has_left(self, seat: int) -> bool:
        """The seat won and left the hand (``win.after_win: leave``)."""
        return seat in self._g.out

    @property
    def winners(self) -> tuple[int, ...]:
        """Seats that have won so far this hand, in order."""
        return tuple(self._g.winners())

    def won_tiles_of(self, seat: int) -> tuple[Tile, ...]:
        """Tiles the seat won on and set aside (a hand that goes on after a win)."""
        return tuple(self._g.seats[seat].won_tiles)

    @property
    def last_tile_replacement(self) -> int | None:
        """The seat whose draw from the kong end took the last drawable tile, or None.

        Then the hand has no last tile: nobody's win carries ``last_tile``."""
        return self._g.last_tile_replacement

    def score_win(self, seat: int, tile: Tile, win_by: str, discarder: int | None = None,
                  flags: Sequence[str] = ()) -> Score:
        """How ``seat`` would score winning on ``tile`` (held already for a self-draw)."""
        g = self._g
        held = list(g.seats[seat].hand)
        if win_by == "self_draw":
            held.remove(tile)
        ctx = g.win_context(seat, win_by, discarder, set(flags))
        if not g.win_rules.allows(win_by):
            return Score(False, f"no win by {win_by}")
        hand = g.win_hand(seat, tile, held)
        if g.refuses(seat, hand, ctx):
            return Score(False, "refused by the declarations or a plugin")
        return g.ev.score(hand, ctx, g.wildcard)

    def can_win(self, seat: int, tile: Tile, win_by: str, discarder: int | None = None,
                flags: Sequence[str] = ()) -> bool:
        """Would ``seat`` win on ``tile``? A hand that can't exist (a fifth copy) is no win."""
        try:
            return self.score_win(seat, tile, win_by, discarder, flags).win
        except HandError:
            return False

    # -- doing -------------------------------------------------------------------

    def emit(self, type_: str, **fields: Any) -> None:
        self._g.plugin_event(type_, **fields)

    def roll(self, n: int, purpose: str, text: str = "") -> tuple[int, ...]:
        """Roll ``n`` dice (a ``dice`` event; ``text`` says what for, to players)."""
        dice = self._g.wall.roll(n)
        self._g.send(evt.Dice(purpose=purpose, values=list(dice), text=text or None))
        return dice

    def ask(self, seat: int, options: Sequence[Option], tile: Tile | None = None,
            kind: str = "plugin", from_seat: int | None = None, prompt: str = "") -> Option:
        """Ask a player to choose (``prompt`` is shown to a human)."""
        return self._g.ask(Decision(kind, seat, tuple(options), tile, from_seat, prompt))

    def draw(self, seat: int) -> Tile | None:
        """Give ``seat`` the next live tile (a ``draw`` event, source wall)."""
        return self._g.draw(seat, "wall")

    def draw_from_end(self, seat: int, stacks_back: int) -> Tile | None:
        """Give ``seat`` the top tile of the ``stacks_back``-th stack counted back from the
        last one (its bottom tile if the top is gone); a ``draw`` event, source kong."""
        return self._g.give(seat, self._g.wall.take_from_end(stacks_back), "kong")

    @property
    def tile_kinds(self) -> tuple[Tile, ...]:
        return self._g.ruleset.tileset.kinds

    def waits(self, seat: int, concealed: Sequence[Tile] | None = None,
              melds: Sequence[Meld] | None = None, win_by: str = "self_draw",
              flags: Sequence[str] = ()) -> list[Tile]:
        """Tiles that would complete ``concealed`` + ``melds`` (default: the seat's own,
        which must then be a waiting hand of 13 tiles less 3 per meld)."""
        g = self._g
        s = g.seats[seat]
        ctx = g.win_context(seat, win_by, None if win_by == "self_draw" else (seat + 1) % self.players,
                     set(flags))
        held = list(s.hand if concealed is None else concealed)
        ms = list(s.melds if melds is None else melds)
        return [t for t in g.ev.waits(held, ms, ctx, g.wildcard)
                if not g.refuses(seat, Hand(tuple(held), tuple(ms), t), ctx)]

    def reveal(self, seat: int, tile: Tile) -> None:
        """Lay a held tile face up among the seat's discards, with no claims on it."""
        g = self._g
        g.seats[seat].hand.remove(tile)
        g.seats[seat].discards.append(tile)
        g.send(evt.Discard(seat=seat, tile=tile_code(tile)))

    def offer_rob(self, seat: int, tile: Tile) -> Win | None:
        """Offer the tile of ``seat``'s added kong to be robbed, as the ruleset's win rules say:
        the players who may rob are asked in turn. Returns the robbery as a :class:`Win` for
        the hook to return (the engine settles it), or ``None`` if nobody robs."""
        robbers = self._g.robbers(seat, tile)
        return Win(tuple(robbers), tile, "robbed_kong", seat) if robbers else None

    def rob_kong(self, seat: int, tile: Tile) -> None:
        """Deprecated: ``robbed = hand.offer_rob(seat, tile)`` and return ``robbed`` if not None.

        Ends the hand, unwinding through the caller, if someone robs the kong."""
        _deprecated("HandControl.rob_kong() is deprecated: return hand.offer_rob(seat, tile) "
                    "from the hook when it is not None")
        result = self._g.rob(seat, tile)
        if result is not None:
            raise HandOver(result)

    def make_kong(self, seat: int, tile: Tile) -> None:
        """Turn four held tiles (concealed) or a pung + the held fourth (added) into a kong.

        Robbing is separate (:meth:`rob_kong`), so a plugin can offer it first.
        """
        self._g.make_kong(seat, tile, robbable=False)

    def set_seat_state(self, seat: int, key: str, value: Any) -> None:
        """Store per-seat state patterns can read (``WinContext.seat_state[key]``)."""
        self._g.seats[seat].state[key] = value

    def take_discard(self, seat: int, option: Option) -> None:
        """Carry out a plugin's claim ``option`` that won the discard: ``seat`` takes the
        discarded tile into the meld ``option.tiles`` (a ``claim`` event of the kind
        ``option.meld`` names, e.g. ``kong``). For a kong no replacement is drawn: the
        plugin draws (e.g. :meth:`draw_from_end`). Only inside ``mj_handle_option`` for
        a claim."""
        g = self._g
        if g.offered is None:
            raise RuntimeError("take_discard outside a claim")
        discarder, tile = g.offered
        g.take_claim(seat, option, discarder, tile)

    def lock(self, seat: int) -> None:
        """From now on the seat may only win, or discard the tile it draws."""
        self._g.locked.add(seat)

    def win(self, seats: Sequence[int], tile: Tile, win_by: str, discarder: int | None = None,
            flags: Sequence[str] | dict[int, Sequence[str]] = ()) -> None:
        """Deprecated: return ``Win(seats, tile, win_by, discarder, flags)`` from the hook.

        Settles the win(s) and ends the hand, unwinding through the caller."""
        _deprecated("HandControl.win() is deprecated: return "
                    "mjframework.plugin.Win(seats, tile, win_by, discarder, flags) from the hook")
        fl: tuple[str, ...] | dict[int, tuple[str, ...]] = (
            {k: tuple(v) for k, v in flags.items()} if isinstance(flags, dict) else tuple(flags))
        raise HandOver(self._g.carry_out(Win(tuple(seats), tile, win_by, discarder, fl)))

    def end_drawn(self, next_dealer: int | None = None) -> None:
        """Deprecated: return ``EndDrawn(next_dealer)`` from the hook.

        Ends the hand as drawn (流局), unwinding through the caller."""
        _deprecated("HandControl.end_drawn() is deprecated: return "
                    "mjframework.plugin.EndDrawn(next_dealer) from the hook")
        raise HandOver(self._g.end_drawn(next_dealer))

    def evaluate_opening(self, seat: int) -> Score:
        g = self._g
        ctx = g.win_context(seat, "self_draw", None, {"first_turn", "no_claims_yet"})
        return g.ev.score_opening(g.seats[seat].hand, ctx)

    def settle_opening(self, seat: int, score: Score) -> list[int]:
        """Announce and settle a seat's opening declarations at once (like a self-draw)."""
        return self._g.settle_opening(seat, score)


def _deprecated(message: str) -> None:
    # stacklevel 3: the plugin line that called the HandControl method.
    warnings.warn(message + " (removed in the next release)", DeprecationWarning, stacklevel=3)


