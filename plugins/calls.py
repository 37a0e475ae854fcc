"""报牌 (calls): what players say aloud — here, the call for a win.

The phrase tables live in the ruleset's YAML (``plugins: {calls: {...}}``) so
another variant reuses the plugin with its own words:

``wins``        scored pattern → call (``单换调: 换调``)
``after_kong``  on a kong replacement draw: ``replace`` whole calls
                (``自摸: 开杠自摸``), otherwise put ``prefix`` before the call
``repeat``      calls said when the same player wins twice in a row
"""

from __future__ import annotations

from typing import Any, ClassVar

from mjframework.hookspecs import hookimpl
from mjframework.settlement import SettlementContext


class Plugin:
    options_schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "wins": {"type": "object", "additionalProperties": {"type": "string"},
                     "description": "Scored pattern name → the call."},
            "after_kong": {
                "type": "object", "additionalProperties": False,
                "properties": {
                    "prefix": {"type": "string"},
                    "replace": {"type": "object", "additionalProperties": {"type": "string"}},
                },
            },
            "repeat": {
                "type": "array",
                "items": {
                    "type": "object", "additionalProperties": False, "required": ["calls", "say"],
                    "properties": {"calls": {"type": "array", "items": {"type": "string"}},
                                   "say": {"type": "string"}},
                },
            },
        },
    }

    def __init__(self, options: dict[str, Any]) -> None:
        self.wins: dict[str, str] = dict(options.get("wins", {}))
        ak = options.get("after_kong", {})
        self.kong_prefix: str = ak.get("prefix", "")
        self.kong_replace: dict[str, str] = dict(ak.get("replace", {}))
        self.repeat = list(options.get("repeat", []))

    @hookimpl
    def mj_plugin_info(self) -> dict[str, Any]:
        return {"description": "报牌: the spoken calls, from phrase tables in the ruleset"}

    @hookimpl
    def mj_win_call(self, patterns: list[str], context: SettlementContext) -> str | None:
        calls = [self.wins[p] for p in patterns if p in self.wins]
        if not calls:
            return None
        call = calls[0]
        if "after_kong" in context.flags or "open_kong" in context.flags:
            call = self.kong_replace.get(call, self.kong_prefix + call)
        return call
