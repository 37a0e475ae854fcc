"""The plugin contract: every hook a plugin may implement.

A plugin is a class registered under the entry-point group
``mjframework.plugins`` (the entry point's name is the name rulesets use) and
switched on by a ruleset::

    plugins:
      zhaniao: {birds: 2}

The engine creates one instance per ruleset with the (validated) options:
``Plugin(options)``. The class declares ``options_schema`` (a JSON Schema for
its options, checked by ``mj validate``) and implements any of the hooks below
with methods marked ``@hookimpl``. Hooks receive read-only views or the object
they are about (a settlement) and never reach into engine state.

Hook names start with ``mj_``. Unless a hook says *firstresult*, every plugin
that implements it is called, in the order the ruleset lists the plugins;
pluggy's ``tryfirst`` / ``trylast`` marks and ``wrapper=True`` implementations
work as pluggy documents them (see docs/plugins.md).

Game hooks receive ``hand``, a :class:`~mjframework.game.HandControl`: what a
plugin may see (hands, melds, discards, the live wall's next tiles) and do
(roll dice, ask a player, draw, make a kong, lock a hand, win, end the hand
drawn, settle opening declarations, emit its own events). A plugin that
raises is reported by name and hook, and the hand is abandoned cleanly.

When the hooks are called during a hand, in order:

1. ``mj_after_deal`` — once, after the deal and the wildcard flip;
2. ``mj_extra_options`` / ``mj_handle_option`` — at each turn and claim decision;
3. ``mj_last_tile`` — when one live tile is left and a player is to draw it;
4. ``mj_settlement_inputs`` then ``mj_modify_settlement`` — at each settlement;
5. ``mj_next_dealer`` — when the hand ends;
6. ``mj_announce`` — after every event (for spoken calls).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:  # pragma: no cover
    from .game import HandControl, HandResult
    from .players import Decision, Option
    from .settlement import Settlement, SettlementContext

PROJECT = "mjframework"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


@hookspec
def mj_modify_settlement(settlement: Settlement, context: SettlementContext) -> None:
    """Change a settlement before it is applied.

    Called once per settlement (a win, opening wins, …) after the ruleset's
    payout rules have produced ``settlement.payments``, a list of
    :class:`~mjframework.settlement.Payment` (payer → payee, amount, reason).
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
def mj_plugin_info() -> dict[str, Any]:
    """Describe the plugin for ``mj plugins`` (``{"description": ...}``)."""


@hookspec
def mj_after_deal(hand: HandControl) -> None:
    """After the deal and the wildcard flip, before the dealer's first turn.

    Opening declarations go here: look at each seat with
    ``hand.evaluate_opening(seat)`` and settle with ``hand.settle_opening``.
    """


@hookspec
def mj_extra_options(hand: HandControl, seat: int, decision: Decision) -> list[Option] | None:
    """Extra options to offer ``seat`` at a turn decision (after a draw) or a claim
    decision (on another's discard: ``decision.kind == "claim"``).

    Return plugin-specific :class:`~mjframework.players.Option` s (a ``kind``
    the engine doesn't know, e.g. ``open_kong``); if the player picks one,
    ``mj_handle_option`` carries it out. A claim option ranks among the claims
    as the engine claim its ``meld`` names (``meld="kong"``: as a kong); it is
    carried out only if it wins the discard, and its handler takes the tile with
    ``hand.take_discard(seat, option)``.
    """


@hookspec(firstresult=True)
def mj_handle_option(hand: HandControl, seat: int, option: Option) -> tuple | None:
    """Carry out a plugin option the player chose; *firstresult*.

    Return ``("discard", tile, flags)`` — the seat discards ``tile`` and the
    other players may claim it, with ``flags`` added to their win context
    (e.g. ``after_kong_discard``) — or ``("continue", drawn_tile, flags)`` —
    the seat goes on with its turn holding ``drawn_tile``. To end the hand
    call ``hand.win(...)`` or ``hand.end_drawn(...)``. ``None``: not mine.
    """


@hookspec(firstresult=True)
def mj_last_tile(hand: HandControl, seat: int) -> bool | None:
    """One live tile is left and ``seat`` is to draw it; *firstresult*.

    A plugin that runs its own procedure for the last tile (a roaming last tile)
    must end the hand (``hand.win`` / ``hand.end_drawn``). Returning
    ``None`` lets the engine draw it as usual.
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

