"""The fixed, named action space of a ruleset (shared by the env and external bots).

Every engine option maps to one action name (``discard:3m``, ``pung:5p``,
``concealed_kong:E``…; tiles in mjai names, as in the seat log); see
:class:`ActionSpace`. No numpy needed.
"""

from __future__ import annotations

from typing import Any

from ..core.errors import MJError
from ..core.kinds import KONG_MELDS
from ..core.tiles import to_mjai
from ..hooks.registry import load_plugin_class
from .players import Decision, Option


class EnvError(MJError):
    """The environment can't map the engine's options to its action space (or a misuse)."""


MELD_SLOTS: dict[str, str] = {m: m.payment_key for m in KONG_MELDS}  # a kong option's action name
DECISION_KINDS = ("turn", "claim", "rob", "exchange", "declare", "other")
VOID_SUITS = "mps"


class ActionSpace:
    """The fixed, named actions of one ruleset; an index is a position in :attr:`names`.

    ``discard:<t>`` and (with 报听) ``discard_ready:<t>`` per tile kind; ``win``;
    ``pass``; ``pung:<t>``, ``kong:<t>`` (claimed), ``concealed_kong:<t>``,
    ``added_kong:<t>``; with chows ``chow:<t>:<i>`` (the claimed tile ``t`` at
    place ``i`` of the run); with an exchange ``exchange:<t>`` (one tile
    picked per step, the exchange sent after the last pick); with a void suit
    ``declare:m|p|s``; with kinds laid aside as kongs by choice ``lay_kong:<t>``; and each
    plugin's declared option kinds
    (``Plugin.option_kinds``: ``<kind>`` or ``<kind>:<t>``).
    """

    def __init__(self, ruleset: Any) -> None:
        self.kinds: tuple[int, ...] = tuple(ruleset.tileset.kinds)
        self.kind_index = {t: i for i, t in enumerate(self.kinds)}
        codes = [to_mjai(t) for t in self.kinds]
        names: list[str] = [f"discard:{c}" for c in codes]
        if ruleset.flow.ready:
            names += [f"discard_ready:{c}" for c in codes]
        names += ["win", "pass"]
        names += [f"pung:{c}" for c in codes]
        names += [f"{slot}:{c}" for slot in ("kong", "concealed_kong", "added_kong") for c in codes]
        if ruleset.claims.chow:
            names += [f"chow:{c}:{i}" for c in codes for i in range(3)]
        self.exchange = ruleset.flow.exchange.tiles if ruleset.flow.exchange is not None else 0
        if self.exchange:
            names += [f"exchange:{c}" for c in codes]
        if ruleset.flow.void_suit is not None:
            names += [f"declare:{s}" for s in VOID_SUITS]
        if any(lk.choice for lk in getattr(ruleset, "laid_kongs", ())):
            names += [f"lay_kong:{c}" for c in codes]
        self.plugin_kinds: dict[str, bool] = {}
        for plugin in ruleset.plugins:
            declared = getattr(load_plugin_class(plugin), "option_kinds", None) or {}
            for kind, with_tile in declared.items():
                if kind in self.plugin_kinds:
                    continue
                self.plugin_kinds[kind] = bool(with_tile)
                names += [f"{kind}:{c}" for c in codes] if with_tile else [kind]
        if len(set(names)) != len(names):
            raise EnvError(f"{ruleset.id}: a plugin's option kind clashes with an engine action")
        self.names: tuple[str, ...] = tuple(names)
        self.index = {n: i for i, n in enumerate(names)}
        self.n = len(names)

    def __len__(self) -> int:
        return self.n

    def _code(self, t: int | None, option: Option) -> str:
        if t is None or t not in self.kind_index:
            raise EnvError(f"option {option!r} has no tile of this ruleset")
        return to_mjai(t)

    def name_of(self, option: Option) -> str:
        """The action name of an engine option (:class:`EnvError` if it has none)."""
        k = option.kind
        if k in ("win", "pass"):
            return k
        if k == "discard":
            slot = "discard_ready" if option.value == "ready" else "discard"
            return f"{slot}:{self._code(option.tile, option)}"
        if k == "pung":
            return f"pung:{self._code(option.tile, option)}"
        if k == "kong" and option.meld in MELD_SLOTS:
            return f"{MELD_SLOTS[option.meld]}:{self._code(option.tile, option)}"
        if k == "chow":
            return f"chow:{self._code(option.tile, option)}:{option.tiles.index(option.tile)}"
        if k == "lay_kong":
            return f"lay_kong:{self._code(option.tile, option)}"
        if k == "declare" and option.value in tuple(VOID_SUITS):
            return f"declare:{option.value}"
        if k in self.plugin_kinds:
            return f"{k}:{self._code(option.tile, option)}" if self.plugin_kinds[k] else k
        raise EnvError(f"option kind {k!r} is not in the action space: a plugin offering it must "
                       f"declare it in Plugin.option_kinds")

    def legal(self, decision: Decision) -> dict[int, Option]:
        """Action index → the one engine option it stands for (not for exchanges)."""
        out: dict[int, Option] = {}
        for o in decision.options:
            i = self.index.get(self.name_of(o))
            if i is None:
                raise EnvError(f"{self.name_of(o)} is not an action of this ruleset")
            if i in out:
                raise EnvError(f"two options of one decision map to {self.names[i]}: "
                               f"{out[i]!r} and {o!r}")
            out[i] = o
        return out


def option_name(space: ActionSpace, option: Option) -> str:
    """An option's name for a bot: the action name, or for an exchange ``exchange:1m,2m,3m``."""
    if option.kind == "exchange":
        return "exchange:" + ",".join(to_mjai(t) for t in option.tiles)
    return space.name_of(option)


__all__ = ["DECISION_KINDS", "VOID_SUITS", "ActionSpace", "EnvError", "option_name"]
