"""起手小胡 (opening wins): declared right after the deal and settled at once.

After the deal (and the wildcard flip, if any) each seat in turn order from
the dealer is judged on its dealt tiles against the ruleset's
``phase: opening`` patterns (``hand.evaluate_opening``). A seat with any of
them declares: ``hand.settle_opening`` emits an ``opening_win`` event and a
``settlement`` paid like a self-draw of the summed points (several patterns
add up as the ruleset's ``combine`` says); plugins such as 扎鸟 take part in
that settlement as in any other. Then the hand goes on as usual.

Options::

    opening-wins:
      declare: auto     # auto: every seat that can declares (default)
                        # ask: the seat is asked (a "declare" or "pass" decision,
                        #      kind "opening"; "declare" is listed first)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from mjframework.plugin import Ask, Option, hookimpl

if TYPE_CHECKING:  # pragma: no cover
    from mjframework.plugin import HandControl

DECLARE = "declare"
POINT = "opening-wins.declare"  # the decision point: declare or pass


class Plugin:
    # The option kinds this plugin offers players (kind → carries a tile): the
    # learning-agent environment gives each a fixed action (docs/agents.md).
    option_kinds: ClassVar[dict[str, bool]] = {DECLARE: False}
    options_schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "declare": {
                "enum": ["auto", "ask"],
                "description": "auto: every seat holding an opening pattern declares it; "
                               "ask: the seat chooses (declare or pass).",
            },
        },
    }

    def __init__(self, options: dict[str, Any]) -> None:
        self.declare = str(options.get("declare", "auto"))

    @hookimpl
    def mj_plugin_info(self) -> dict[str, Any]:
        return {"description": "起手小胡: opening patterns declared after the deal and paid at once"}

    @hookimpl
    def mj_after_deal(self, hand: HandControl) -> tuple[Ask, ...] | None:
        """Settle every seat that can declare, from the dealer on; with ``declare: ask``,
        ask them all at once (a decision set: one ``Ask`` a seat, answered in mj_answer)."""
        n = hand.players
        asks: list[Ask] = []
        for i in range(n):
            seat = (hand.dealer + i) % n
            score = hand.evaluate_opening(seat)
            if not score.win:
                continue
            if self.declare == "ask":  # a decision point: the answer comes to mj_answer
                asks.append(Ask(seat, [Option(DECLARE, text="报起手"), Option("pass")], POINT, kind="opening",
                                prompt="起手: 你的牌可以报 (you may declare your dealt tiles):", data=score))
            else:
                hand.settle_opening(seat, score)
        return tuple(asks) or None

    @hookimpl
    def mj_answer(self, hand: HandControl, ask: Ask, choice: Option) -> None:
        if ask.point == POINT and choice.kind == DECLARE:
            hand.settle_opening(ask.seat, ask.data)
