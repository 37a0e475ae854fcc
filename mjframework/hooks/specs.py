"""The plugin contract: every hook a plugin may implement.

A plugin is a class registered under the entry-point group
``mjframework.plugins`` (the entry point's name is the name rulesets use) and
switched on by a ruleset::

    plugins:
      kaigang: {dice: 2}

The engine creates one instance per ruleset with the (validated) options:
``Plugin(options)``. The class declares ``options_schema`` (a JSON Schema for
its options, checked by ``mj validate``) and implements any of the hooks below
with methods marked ``@hookimpl``. Hooks receive read-only views or the object
they are about (a settlement) and never reach into engine state.

Hook names start with ``mj_``. Unless a hook says *firstresult*, every plugin
that implements it is called, in the order the ruleset lists the plugins;
pluggy's ``tryfirst`` / ``trylast`` marks and ``wrapper=True`` implementations
work as pluggy documents them (see docs/plugins.md).

Everything a plugin imports comes from :mod:`mjframework.plugin`.

Game hooks receive ``hand``, a :class:`~mjframework.play.game.HandControl`: what a
plugin may see (hands, melds, discards, the live wall's next tiles, per-seat
state and who has left the hand) and do
(roll dice, draw, make a kong, lock a hand, settle opening declarations, emit
its own events), and ``hand.stash``, where a plugin keeps its state for this
hand. A plugin ends a turn or the hand by *returning* a typed result
(:class:`~mjframework.play.outcomes.Discard`,
:class:`~mjframework.play.outcomes.Continue`, :class:`~mjframework.play.outcomes.Win`,
:class:`~mjframework.play.outcomes.EndDrawn`) that the engine acts on after the
hook returns; it asks a player by returning a decision point
(:class:`~mjframework.play.outcomes.Ask`), whose answer comes to ``mj_answer``.
A plugin that raises is reported by name and hook, and the hand is abandoned
cleanly.

When the hooks are called during a hand, in order:

1. ``mj_after_deal`` — once, after the deal and the wildcard flip;
2. ``mj_extra_options`` / ``mj_handle_option`` — at each turn and claim decision;
   ``mj_restrict_options`` — at every decision (turn, claim, rob, exchange,
   declare, a plugin's own); ``mj_refuse_win`` — whenever the engine judges
   whether a seat may win (its turn, a discard, a robbed kong, waits);
3. ``mj_last_tile`` — when one live tile is left and a player is to draw it;
   ``mj_answer`` — after each decision point a plugin returned (an ``Ask``);
4. ``mj_settlement_inputs`` then ``mj_modify_settlement`` — at each settlement;
5. ``mj_next_dealer`` — when the hand ends;
6. ``mj_announce`` — after every event (for spoken calls).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:  # pragma: no cover
    from ..core.hand import WinContext
    from ..core.tiles import Tile
    from ..play.game import HandControl, HandResult
    from ..play.outcomes import Ask, HandEnd, OptionOutcome
    from ..play.players import Decision, Option
    from ..settle.settlement import Settlement, SettlementContext

PROJECT = "mjframework"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


@hookspec
def mj_modify_settlement(settlement: Settlement, context: SettlementContext) -> None:
    """Change a settlement before it is applied.

    Called once per settlement (a win, opening wins, …) after the ruleset's
    payout rules have produced ``settlement.payments``, a list of
    :class:`~mjframework.settle.settlement.Payment` (payer → payee, amount, reason).
    Modify the list in place — replace, scale or add payments — in the manner
    of pytest's ``pytest_collection_modifyitems``. Every payment is between two
    players, so a settlement always sums to zero; a plugin that needs money to
    leave the table (a penalty) adds a payment to ``None``.

    ``context`` says what is being settled: the winner(s), how, the dealer,
    the scored patterns, and ``context.extra`` (plugin inputs such as the
    birds flipped, from a conformance case's ``context`` or from the game).

    Example: a birds plugin doubles each payment once per bird on its payer
    or payee.
    """


@hookspec(firstresult=True)
def mj_win_call(patterns: list[str], context: SettlementContext) -> str | None:
    """The spoken call (报牌) for a win, e.g. ``"self-drawn!"``.

    *firstresult*: the first plugin that returns a string decides.
    """


@hookspec
def mj_plugin_info() -> dict[str, Any] | None:
    """Describe the plugin for ``mj plugins`` (``{"description": ...}``)."""


@hookspec
def mj_after_deal(hand: HandControl) -> Ask | tuple[Ask, ...] | None:
    """After the deal and the wildcard flip, before the dealer's first turn.

    Opening declarations go here: look at each seat with
    ``hand.evaluate_opening(seat)`` and settle with ``hand.settle_opening``.
    To ask a seat first, return an :class:`~mjframework.play.outcomes.Ask` (its
    ``mj_answer`` goes on from there and ends by returning ``None``); to ask
    several seats at once, a tuple of ``Ask`` s, one a seat (a decision set:
    every seat is asked before ``mj_answer`` hears any answer, then it hears
    each in the tuple's order). A hook that may return an ``Ask`` may return a
    tuple of them.
    """


@hookspec(firstresult=True)
def mj_answer(hand: HandControl, ask: Ask, choice: Option) -> Ask | tuple[Ask, ...] | OptionOutcome | None:
    """The answer to a decision point a plugin declared by returning ``ask``; *firstresult*.

    A hook that needs a player's choice (``mj_after_deal``, ``mj_last_tile``,
    ``mj_handle_option``) returns an :class:`~mjframework.play.outcomes.Ask`
    instead of waiting for it; the engine puts it to ``ask.seat`` however the hand
    is driven (bots, the stepper, the environment, a browser) and calls this hook
    with the option chosen. Return the next ``Ask``, or what the declaring hook
    returns (its ``Win``, ``EndDrawn``, ``Discard``, … or ``None``). Answer only the
    points you declared (``ask.point``, named ``"<plugin>.<name>"``) and return
    ``None`` for the others; carry your state in ``ask.data``.
    """


@hookspec
def mj_extra_options(hand: HandControl, seat: int, decision: Decision) -> list[Option] | None:
    """Extra options to offer ``seat`` at a turn decision (after a draw) or a claim
    decision (on another's discard: ``decision.kind == "claim"``).

    Return plugin-specific :class:`~mjframework.play.players.Option` s (a ``kind``
    the engine doesn't know, e.g. ``open_kong``); if the player picks one,
    ``mj_handle_option`` carries it out. A claim option ranks among the claims
    as the engine claim its ``meld`` names (``meld="kong"``: as a kong); it is
    carried out only if it wins the discard, and its handler takes the tile with
    ``hand.take_discard(seat, option)``.
    """


@hookspec(firstresult=True)
def mj_handle_option(hand: HandControl, seat: int,
                     option: Option) -> OptionOutcome | Ask | tuple[Ask, ...] | None:
    """Carry out a plugin option the player chose; *firstresult*.

    Return what happens next; the engine does it after the hook returns:

    - ``Discard(tile, flags)`` — the seat discards ``tile`` and the other
      players may claim it, with ``flags`` added to their win context (e.g.
      ``("after_kong_discard",)``);
    - ``Continue(drawn_tile, flags)`` — the seat goes on with its turn holding
      ``drawn_tile`` (not for a claim option);
    - ``Win(seats, tile, win_by, discarder, flags)`` — settle the win(s) and end
      the hand (e.g. what ``hand.offer_rob`` returns when a kong is robbed);
    - ``EndDrawn(next_dealer)`` — end the hand drawn;
    - ``None`` — not this plugin's option.

    The tuples ``("discard", tile, flags)`` / ``("continue", tile, flags)`` of
    earlier releases still work, with a ``DeprecationWarning``.
    """


@hookspec(firstresult=True)
def mj_last_tile(hand: HandControl, seat: int) -> HandEnd | Ask | tuple[Ask, ...] | None:
    """One live tile is left and ``seat`` is to draw it; *firstresult*.

    A plugin that runs its own procedure for the last tile (a roaming last tile)
    returns how the hand ends: ``Win(seats, tile, win_by, discarder, flags)`` or
    ``EndDrawn(next_dealer)``; the engine settles it after the hook returns.
    Returning ``None`` lets the engine draw the tile as usual. A procedure that asks
    players returns an :class:`~mjframework.play.outcomes.Ask` and goes on in
    ``mj_answer`` (see there).
    """


@hookspec
def mj_context_inputs() -> dict[str, dict[str, Any]] | None:
    """The ``context.extra`` keys this plugin reads, so given inputs can be checked.

    ``mj score --context``, the playground and conformance cases give these
    keys by hand; a key no plugin of the ruleset declares is an error (a
    mistyped ``bird=`` must not be silently ignored). Each key maps to what it
    holds: ``{"birds": {"tiles": True, "max": 2, "description": "..."}}``:
    ``tiles`` — a list of tiles, each of the ruleset's tile set, at most
    ``max`` of them.
    """


@hookspec
def mj_settlement_inputs(hand: HandControl, context: SettlementContext) -> dict[str, Any] | None:
    """Inputs a settlement needs from the table, merged into ``context.extra``.

    Called before ``mj_modify_settlement`` for each win and each opening
    declaration during a game (a conformance case gives them directly).
    Example: a birds plugin reveals tiles with ``hand.peek_live`` and
    returns ``{"birds": [...]}``, emitting its own event.
    """


@hookspec(firstresult=True)
def mj_next_dealer(hand: HandControl, result: HandResult) -> int | None:
    """Who deals next, overriding the ruleset's rotation; *firstresult*.

    ``result`` holds the engine's choice (``result.next_dealer``), the
    winners and the payments.
    """


@hookspec
def mj_announce(hand: HandControl, event: dict[str, Any]) -> str | tuple[str, int] | None:
    """What a player says after ``event`` (报牌), or ``None``.

    Return the text (said by the event's seat) or ``(text, seat)``; the engine
    emits it as a ``call`` event, which ``mj play`` prints.
    """



@hookspec
def mj_restrict_options(hand: HandControl, seat: int, decision: Decision) -> list[Option] | None:
    """Options to *remove* from a decision before ``seat`` is asked.

    Called for every decision — a turn (after ``mj_extra_options``), a claim
    on a discard, a robbed kong, an exchange, a declaration, a plugin's own —
    with the options the rules allow. Return the options to take away (or
    ``None``); every plugin's removals apply. A turn must keep a discard or a
    win: a plugin that removes them all abandons the hand with its name.

    Example: a plugin forbidding a claim of a tile the claimer discarded
    earlier returns ``[o for o in decision.options if o.kind in ("pung", "kong")
    and o.tile in hand.discards_of(seat)]`` when ``decision.kind == "claim"``.
    """


@hookspec
def mj_refuse_win(hand: HandControl | None, seat: int, tile: Tile, win_by: str,
                  context: WinContext) -> str | None:
    """Refuse a win the ruleset's patterns accept: return the reason (or ``None``).

    Asked wherever the engine decides whether ``seat`` may win on ``tile`` —
    its own turn, a discard, a robbed kong — and when it works out who is
    ready (a drawn end's settlements, ``HandControl.waits``). Any plugin
    returning a reason refuses it. ``context`` is the win's context,
    ``context.seat_state`` the seat's declarations and plugin state.

    Outside a game — ``mj score``, conformance cases, the playground — it is
    called with ``hand=None``: there is no table to look at, so a plugin that
    refuses decides from ``context`` alone (``seat_state``, ``flags``,
    ``extra``) and must not touch ``hand`` without checking it for ``None``.

    Example: refuse a win by discard to a seat that passed the same tile
    earlier in the turn round (过水不胡).
    """
