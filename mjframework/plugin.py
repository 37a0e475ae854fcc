"""The plugin API: everything a plugin author imports from mjframework, in one place.

::

    from mjframework.plugin import Discard, HandControl, Option, StashKey, hookimpl

    SEEN = StashKey[list[int]]()          # per-hand state, on ``hand.stash``

    class Plugin:
        options_schema = {"type": "object"}

        def __init__(self, options): ...

        @hookimpl
        def mj_handle_option(self, hand: HandControl, seat: int, option: Option) -> Discard | None:
            ...

What the hooks are and when they are called: :mod:`mjframework.hooks.specs`
and docs/plugins.md; every name here is documented in docs/api.md. A plugin
that imports only from this module keeps working when the package's inner
modules move.

- hooks: :data:`hookimpl` (pluggy's marker for this project), :func:`only_for` (when the
  engine need not call an implementation);
- the table: :class:`HandControl` (the ``hand`` of every game hook, with its
  per-hand :attr:`HandControl.stash`), :class:`HandResult`;
- what hooks return to end a turn or the hand: :class:`Discard`, :class:`Continue`,
  :class:`Win`, :class:`EndDrawn`;
- decisions: :class:`Option`, :class:`Decision`;
- settlement: :class:`Settlement`, :class:`SettlementContext`, :class:`Payment`;
- hands: :class:`Meld`, :class:`WinContext`, :class:`Score`;
- tiles: :data:`Tile` and the functions that parse and print tiles;
- per-hand state: :class:`Stash`, :class:`StashKey`;
- errors: :class:`MJError` (a plugin's own error with a clear message),
  :class:`PluginError`, :class:`TileParseError`.
"""

from __future__ import annotations

from .core.errors import MJError
from .core.hand import Meld, WinContext
from .core.stash import Stash, StashKey
from .core.tiles import (
    Tile,
    TileParseError,
    format_tiles,
    is_honor,
    parse_tile,
    parse_tiles,
    rank_of,
    suit_of,
    tile_code,
    tile_name,
)
from .evaluate.scoring import Score
from .hooks.registry import PluginError, only_for
from .hooks.specs import hookimpl
from .play.game import HandControl, HandResult
from .play.outcomes import Ask, Continue, Discard, EndDrawn, HandEnd, OptionOutcome, Win
from .play.players import Decision, Option
from .settle.settlement import Payment, Settlement, SettlementContext

__all__ = [
    "Ask",
    "Continue",
    "Decision",
    "Discard",
    "EndDrawn",
    "HandControl",
    "HandEnd",
    "HandResult",
    "MJError",
    "Meld",
    "Option",
    "OptionOutcome",
    "Payment",
    "PluginError",
    "Score",
    "Settlement",
    "SettlementContext",
    "Stash",
    "StashKey",
    "Tile",
    "TileParseError",
    "Win",
    "WinContext",
    "format_tiles",
    "hookimpl",
    "is_honor",
    "only_for",
    "parse_tile",
    "parse_tiles",
    "rank_of",
    "suit_of",
    "tile_code",
    "tile_name",
]
