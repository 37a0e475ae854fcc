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
    "HandError": "core.errors", "MJError": "core.errors", "RulesetError": "core.errors",
    "PluginError": "hooks.registry", "SimulationError": "run.simulate", "TileParseError": "core.tiles",
    # rulesets
    "Ruleset": "rules.model", "available_rulesets": "rules.loader", "load_ruleset": "rules.loader",
    # tiles and hands
    "Tile": "core.tiles", "format_tiles": "core.tiles", "parse_tile": "core.tiles",
    "parse_tiles": "core.tiles", "tile_code": "core.tiles", "tile_name": "core.tiles",
    "Hand": "core.hand", "Meld": "core.hand", "WinContext": "core.hand", "make_hand": "core.hand",
    "parse_meld": "core.hand",
    # scoring and settling
    "Evaluator": "evaluate.scoring", "Result": "evaluate.scoring", "Score": "evaluate.scoring",
    "Payment": "settle.settlement", "Settlement": "settle.settlement",
    "SettlementContext": "settle.settlement",
    # playing a hand, stepping it, simulating many
    "Game": "play.game", "HandResult": "play.game",
    "Decision": "play.players", "Option": "play.players", "Player": "play.players",
    "TableView": "play.players",
    "GreedyBot": "play.bots", "RandomBot": "play.bots",
    "Table": "play.stepper", "play_hand": "play.stepper", "run_policy": "play.stepper",
    # (``simulate`` itself is the submodule's name: the function is exported as run_simulation)
    "SimResult": "run.simulate", "run_simulation": ("run.simulate", "simulate"),
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
