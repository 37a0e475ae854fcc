"""Events told as players would read them: Chinese tile names, seats by their place.

A :class:`Narrator` is an event sink that writes one line per event worth
telling (draws of other players are quiet unless ``verbose``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .events import Event
from .tiles import format_tiles, parse_tiles, tile_name

SEAT_NAMES = ("庄家", "下家", "对家", "上家")  # counted from the dealer
CLAIM_NAMES = {"chow": "吃", "pung": "碰", "kong": "点杠"}
KONG_NAMES = {"added": "明杠", "concealed": "暗杠"}
WIN_BY = {"self_draw": "自摸", "discard": "点炮", "robbed_kong": "抢杠"}


def _tiles(codes: list[str] | str) -> str:
    text = codes if isinstance(codes, str) else " ".join(codes)
    return format_tiles(parse_tiles(text), "chinese")


def _tile(code: str) -> str:
    return tile_name(parse_tiles(code)[0])


class Narrator:
    """Writes a readable account of a hand (``write`` defaults to ``print``)."""

    def __init__(self, write: Callable[[str], Any] = print, *, verbose: bool = False,
                 show_hands: bool = True) -> None:
        self.write = write
        self.verbose = verbose
        self.show_hands = show_hands
        self.dealer = 0
        self.wildcard: str | None = None

    def seat(self, s: int) -> str:
        return f"座{s}({SEAT_NAMES[(s - self.dealer) % 4]})"

    def __call__(self, e: Event) -> None:
        handler = getattr(self, "_" + e["type"], None)
        if handler is not None:
            line = handler(e)
            if line:
                self.write(line)

    def _hand_start(self, e: Event) -> str:
        self.dealer = e["dealer"]
        self.wildcard = None
        return f"── 第{e['hand'] + 1}局  {e['ruleset']}  庄家 座{e['dealer']}  (seed {e['seed']})"

    def _dice(self, e: Event) -> str:
        what = {"break": "开门", "wildcard": "翻王"}.get(e["purpose"], e["purpose"])
        return f"掷骰 {what}: {' '.join(map(str, e['values']))}"

    def _deal(self, e: Event) -> str | None:
        if not self.show_hands:
            return None
        return "\n".join(f"  {self.seat(s)} {_tiles(h)}" for s, h in enumerate(e["hands"]))

    def _wildcard(self, e: Event) -> str:
        self.wildcard = e["wildcard"]
        return f"翻出 {_tile(e['indicator'])}，{_tile(e['wildcard'])}是王"

    def _draw(self, e: Event) -> str | None:
        if e["source"] == "kong":
            return f"{self.seat(e['seat'])} 杠后补牌 {_tile(e['tile'])}"
        if self.verbose:
            return f"{self.seat(e['seat'])} 摸 {_tile(e['tile'])}"
        return None

    def _discard(self, e: Event) -> str:
        return f"{self.seat(e['seat'])} 打 {_tile(e['tile'])}"

    def _claim(self, e: Event) -> str:
        return (f"{self.seat(e['seat'])} {CLAIM_NAMES.get(e['kind'], e['kind'])} "
                f"{_tiles(e['tiles'])} (座{e['from_seat']}打的)")

    def _kong(self, e: Event) -> str:
        return f"{self.seat(e['seat'])} {KONG_NAMES.get(e['kind'], e['kind'])} {_tile(e['tile'])}"

    def _win(self, e: Event) -> str:
        how = WIN_BY.get(e["win_by"], e["win_by"])
        frm = f" (座{e['from_seat']})" if e.get("from_seat") is not None else ""
        call = f" 「{e['call']}」" if e.get("call") else ""
        return (f"{self.seat(e['seat'])} 胡了！{how}{frm} {_tile(e['tile'])}{call}  "
                f"番型 {'、'.join(e['patterns'])}  {e['points']}分")

    def _settlement(self, e: Event) -> str:
        parts = [f"座{s} {p:+d}" for s, p in enumerate(e["payments"])]
        return "结算 " + "  ".join(parts)

    def _abandon(self, e: Event) -> str:
        return f"本局作废: {e['reason']}"

    def _hand_end(self, e: Event) -> str:
        result = {"win": "和牌", "draw": "流局", "abandon": "作废"}.get(e["result"], e["result"])
        return f"本局{result}，下局庄家 座{e['next_dealer']}"

    def _birds(self, e: Event) -> str:
        hits = "、".join(f"座{s}" for s in e.get("seats", []))
        return f"扎鸟 {_tiles(e['tiles']) or '(无)'}" + (f" → {hits}" if hits else "")

    def _opening_win(self, e: Event) -> str:
        return (f"{self.seat(e['seat'])} 起手 {'、'.join(e['patterns'])}  {e['points']}分  "
                f"({_tiles(e['hand'])})")

    def _call(self, e: Event) -> str:
        return f"{self.seat(e['seat'])}: 「{e['text']}」"
