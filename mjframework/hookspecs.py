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
that implements it is called, in the order the ruleset lists the plugins.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:  # pragma: no cover
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
