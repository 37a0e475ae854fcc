"""报牌 (calls): what players say aloud at the table.

The phrase tables live in the ruleset's YAML (``plugins: {calls: {...}}``) so
another variant reuses the plugin with its own words. Each table is
optional: when it is absent, that call is simply not made.

``numbers``     how numbers are said, from 1 up (``[一, 二, …, 十二]``);
                numbers past the list are said as digits
``dice``        the break roll, said by the dealer: ``high`` maps the higher
                die to its phrase (``"4": 四反``), then ``low`` says the lower
                die (``"{n}墩"``): 「四反三墩」
``wildcard``    the wildcard flip, said by the dealer: ``{n}`` the sum of the
                wildcard dice, ``{tile}`` the wildcard, ``{indicator}`` the
                flipped tile (``"{n}墩 {tile}的王"``: 「七墩 三筒的王」)
``claims``      claims and kongs by kind: ``pung``, ``chow``, ``kong``
                (claimed on a discard), ``added``, ``concealed``
``discard``     a discard, ``{tile}`` the tile's name (``"{tile}"``: 「八万」)
``discard_ask`` optional (off when absent): said instead of ``discard``, the
                offer of the discard to the table (``"{tile}有没有人要啊"``:
                「八万有没有人要啊」)
``wins``        scored pattern → the call for a win (``单换调: 换调``); the first
                scored pattern with a call decides
``after_kong``  on a kong replacement draw: ``replace`` whole calls
                (``自摸: 开杠自摸``), otherwise put ``prefix`` before the call —
                or, with ``prefix_to: pattern``, before the name of the
                pattern that gave the call (「开杠」 + 单换调: 「开杠单换调」)
``repeat``      when the player who won the previous hand of the game wins
                again and both calls are in one group's ``calls``, the group's
                ``say`` is said instead of the win call (「又自摸啦」)

Tiles are said by their Chinese names (三筒, 八万, 西, 发).
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any, ClassVar

from mjframework.plugin import SettlementContext, StashKey, hookimpl, only_for, parse_tile, tile_name

if TYPE_CHECKING:  # pragma: no cover
    from mjframework.plugin import HandControl


def _template(*names: str) -> dict[str, Any]:
    """A phrase with only the given ``{placeholders}`` (checked by ``mj validate``)."""
    fields = "|".join(names)
    return {"type": "string", "pattern": rf"^([^{{}}]|\{{({fields})\}})*$",
            "description": "A phrase; placeholders: " + ", ".join("{" + n + "}" for n in names)}


CLAIM_KINDS = ("pung", "chow", "kong", "added", "concealed")


class Plugin:
    options_schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "numbers": {"type": "array", "items": {"type": "string"},
                        "description": "How 1, 2, 3, … are said."},
            "dice": {
                "type": "object", "additionalProperties": False, "required": ["high", "low"],
                "description": "The break roll: the higher die's phrase, then the lower die's.",
                "properties": {
                    "high": {"type": "object",
                             "propertyNames": {"enum": ["1", "2", "3", "4", "5", "6"]},
                             "additionalProperties": {"type": "string"},
                             "description": "The higher die of the break roll → its phrase."},
                    "low": _template("n"),
                },
            },
            "wildcard": _template("n", "tile", "indicator"),
            "claims": {
                "type": "object", "additionalProperties": False,
                "description": "Claims and kongs by kind → the call.",
                "properties": {k: {"type": "string"} for k in CLAIM_KINDS},
            },
            "discard": _template("tile"),
            "discard_ask": _template("tile"),
            "wins": {"type": "object", "additionalProperties": {"type": "string"},
                     "description": "Scored pattern name → the call."},
            "after_kong": {
                "type": "object", "additionalProperties": False,
                "description": "A win on a kong replacement draw: replace whole calls, or add a prefix.",
                "properties": {
                    "prefix": {"type": "string"},
                    "prefix_to": {"enum": ["call", "pattern"],
                                  "description": "What the prefix goes before: the win call "
                                                 "(default) or the name of the pattern that "
                                                 "gave it."},
                    "replace": {"type": "object", "additionalProperties": {"type": "string"}},
                },
            },
            "repeat": {
                "type": "array",
                "description": "Said instead of the win call when the previous hand's winner wins "
                               "again and both calls are in one group.",
                "items": {
                    "type": "object", "additionalProperties": False, "required": ["calls", "say"],
                    "properties": {"calls": {"type": "array", "items": {"type": "string"}},
                                   "say": {"type": "string"}},
                },
            },
        },
    }

    def __init__(self, options: dict[str, Any]) -> None:
        self.numbers: list[str] = [str(x) for x in options.get("numbers", [])]
        dice = options.get("dice")
        self.dice_high: dict[int, str] | None = (
            {int(k): str(v) for k, v in dice["high"].items()} if dice else None)
        self.dice_low: str = str(dice["low"]) if dice else ""
        self.wildcard_say: str | None = options.get("wildcard")
        self.claims: dict[str, str] = dict(options.get("claims", {}))
        self.discard_say: str | None = options.get("discard_ask") or options.get("discard")
        self.wins: dict[str, str] = dict(options.get("wins", {}))
        ak = options.get("after_kong", {})
        self.kong_prefix: str = ak.get("prefix", "")
        self.prefix_to_pattern = ak.get("prefix_to", "call") == "pattern"
        self.kong_replace: dict[str, str] = dict(ak.get("replace", {}))
        self.repeat = [(frozenset(r["calls"]), str(r["say"])) for r in options.get("repeat", [])]
        # The sum of the wildcard dice, kept on the hand until the wildcard event says the tile
        # (a key of this instance's own, as each instance kept its own table before).
        self._wildcard_dice = StashKey[int]()

    @hookimpl
    def mj_plugin_info(self) -> dict[str, Any]:
        return {"description": "报牌: the spoken calls, from phrase tables in the ruleset"}

    def number(self, n: int) -> str:
        return self.numbers[n - 1] if 1 <= n <= len(self.numbers) else str(n)

    # -- the call for a win (also what a conformance case's `expect.call` checks) ----

    @hookimpl
    def mj_win_call(self, patterns: list[str], context: SettlementContext) -> str | None:
        called = [p for p in patterns if p in self.wins]
        if not called:
            return None
        call = self.wins[called[0]]
        if "after_kong" in context.flags or "open_kong" in context.flags:
            if call in self.kong_replace:
                return self.kong_replace[call]
            return self.kong_prefix + (called[0] if self.prefix_to_pattern else call)
        return call

    def repeat_call(self, seat: int, call: str, previous: tuple[int, str] | None) -> str | None:
        """The repeat call if ``seat`` also won the previous hand with a call of the same group."""
        if previous is None or previous[0] != seat:
            return None
        for calls, say in self.repeat:
            if call in calls and previous[1] in calls:
                return say
        return None

    # -- calls during a game ------------------------------------------------------------

    @hookimpl
    @only_for("dice", "wildcard", "discard", "claim", "kong", "win")  # nothing to say otherwise
    def mj_announce(self, hand: HandControl, event: dict[str, Any]) -> str | tuple[str, int] | None:
        kind = event["type"]
        if kind == "dice":
            values = [int(v) for v in event.get("values", [])]
            if event.get("purpose") == "wildcard":
                hand.stash[self._wildcard_dice] = sum(values)
            elif event.get("purpose") == "break" and self.dice_high is not None and values:
                high = self.dice_high.get(max(values))
                if high is not None:
                    return high + self.dice_low.format(n=self.number(min(values))), hand.dealer
            return None
        if kind == "wildcard":
            n = hand.stash.pop(self._wildcard_dice, None)
            if self.wildcard_say is None or n is None:
                return None
            return self.wildcard_say.format(n=self.number(n), tile=_name(event["wildcard"]),
                                            indicator=_name(event["indicator"])), hand.dealer
        if kind == "discard":
            return self.discard_say.format(tile=_name(event["tile"])) if self.discard_say else None
        if kind in ("claim", "kong"):
            return self.claims.get(event.get("kind", ""))
        if kind == "win":
            call = event.get("call")
            if not call:
                return None
            return self.repeat_call(event["seat"], call, hand.previous) or call
        return None


@lru_cache(maxsize=256)
def _name(code: str) -> str:
    """A tile's spoken name from its code (asked on every discard: a handful of codes)."""
    return tile_name(parse_tile(code))
