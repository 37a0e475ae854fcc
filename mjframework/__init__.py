"""mjframework: a mahjong variant declared in YAML; one engine plays, scores and settles it.

The library face (documented in docs/api.md)::

    import mjframework as mj

    rs = mj.load_ruleset("rulesets/my-variant.yaml")
    ev = mj.Evaluator(rs)
    hand = mj.make_hand("123m 456p 789s 22m 34s", win_tile="5s")
    score = ev.score(hand, mj.WinContext(win_by="self_draw", seat=0, dealer=0))
    result = mj.Game(rs, [mj.GreedyBot() for _ in range(rs.players)], seed=1).play()

Plugin authors import from :mod:`mjframework.plugin` instead.

``import mjframework`` is light: each name is imported on first use (PEP 562),
so a tool that needs only the tiles or the errors doesn't load the engine.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from . import _compat  # noqa: F401  (the old flat import paths, deprecated)

__version__ = "0.2.0"

# name → the module (relative to this package) that defines it, or (module, name there).
_WHERE: dict[str, str | tuple[str, str]] = {
    # errors
    "HandError": "errors", "MJError": "errors", "RulesetError": "errors",
    "PluginError": "plugins", "SimulationError": "simulate", "TileParseError": "tiles",
    # rulesets
    "Ruleset": "model", "available_rulesets": "ruleset", "load_ruleset": "ruleset",
    # tiles and hands
    "Tile": "tiles", "format_tiles": "tiles", "parse_tile": "tiles", "parse_tiles": "tiles",
    "tile_code": "tiles", "tile_name": "tiles",
    "Hand": "hand", "Meld": "hand", "WinContext": "hand", "make_hand": "hand", "parse_meld": "hand",
    # scoring and settling
    "Evaluator": "scoring", "Result": "scoring", "Score": "scoring",
    "Payment": "settlement", "Settlement": "settlement", "SettlementContext": "settlement",
    # playing a hand, stepping it, simulating many
    "Game": "game", "HandResult": "game",
    "Decision": "players", "Option": "players", "Player": "players", "TableView": "players",
    "GreedyBot": "bots", "RandomBot": "bots",
    "Table": "stepper", "play_hand": "stepper", "run_policy": "stepper",
    # (``simulate`` itself is the submodule's name: the function is exported as run_simulation)
    "SimResult": "simulate", "run_simulation": ("simulate", "simulate"),
}

# Spelled out (not sorted(_WHERE)) so that linters and type checkers read it; a test checks both agree.
__all__ = [
    "Decision", "Evaluator", "Game", "GreedyBot", "Hand", "HandError", "HandResult", "MJError", "Meld",
    "Option", "Payment", "Player", "PluginError", "RandomBot", "Result", "Ruleset", "RulesetError",
    "Score", "Settlement", "SettlementContext", "SimResult", "SimulationError", "Table", "TableView",
    "Tile", "TileParseError", "WinContext", "available_rulesets", "format_tiles", "load_ruleset",
    "make_hand", "parse_meld", "parse_tile", "parse_tiles", "play_hand", "run_policy", "run_simulation",
    "tile_code", "tile_name",
]


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module 'mjframework' has no attribute {name!r}")
    module, attr = where if isinstance(where, tuple) else (where, name)
    value = getattr(importlib.import_module(f".{module}", __name__), attr)
    globals()[name] = value  # once imported, a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


if TYPE_CHECKING:  # pragma: no cover — what a type checker sees
    from .core.errors import HandError, MJError, RulesetError
    from .core.hand import Hand, Meld, WinContext, make_hand, parse_meld
    from .core.tiles import Tile, TileParseError, format_tiles, parse_tile, parse_tiles, tile_code, tile_name
    from .evaluate.scoring import Evaluator, Result, Score
    from .hooks.registry import PluginError
    from .play.bots import GreedyBot, RandomBot
    from .play.game import Game, HandResult
    from .play.players import Decision, Option, Player, TableView
    from .play.stepper import Table, play_hand, run_policy
    from .rules.loader import available_rulesets, load_ruleset
    from .rules.model import Ruleset
    from .run.simulate import SimResult, SimulationError
    from .run.simulate import simulate as run_simulation
    from .settle.settlement import Payment, Settlement, SettlementContext
