"""The table's language: ``mj play --lang zh`` (the default) or ``--lang en``.

The table composes its messages in Chinese, as players at a Chinese table say
them (下家 打 五万, 碰, 自摸). For ``en`` one function, :func:`translate`, turns a
finished message into English at the point where it is shown (the line mode's
output and prompts, each piece of the full-screen table's text), from a table of
phrases and tile names: so no message is left out because a code path forgot
to ask for a translation, and the Chinese messages stay exactly as they were.

What stays in the ruleset's own words in either language: its name, its
pattern names and what its plugins say (calls such as 「碰」, a
bird's text; what is said, in 「」, is kept whole) — those are the designer's, not the table's.

English tile names are the compact codes for suited tiles (``5m`` 五万, ``3p``
三筒, ``7s`` 七索: what a player types) and words for honors and flowers
(``East`` … ``Red``, ``Plum`` …); typed English honor names are read back
(:func:`typed`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping

from ..core.tiles import FLOWER_BASE, HONOR_BASE, tile_code, tile_name

LANGS = ("zh", "en")

HONORS_EN = ("East", "South", "West", "North", "White", "Green", "Red")
FLOWERS_EN = ("Spring", "Summer", "Autumn", "Winter", "Plum", "Orchid", "Bamboo", "Chrysanthemum")


def tile_en(t: int) -> str:
    if t >= FLOWER_BASE:
        return FLOWERS_EN[t - FLOWER_BASE]
    if t >= HONOR_BASE:
        return HONORS_EN[t - HONOR_BASE]
    return tile_code(t)


# Whole phrases first (the line mode's bilingual messages keep only their English), then
# words; the longest match wins, so 东家 (a seat) is read before 东 (a tile).
PHRASES: dict[str, str] = {
    # bilingual messages: their English half
    "本手作废 (hand abandoned)": "hand abandoned",
    "本手作废 (the hand is void)": "the hand is void",
    "由机器人代打 (a bot plays on)": "a bot plays on",
    "机器人代打 (a bot plays on)": "a bot plays on",
    "付给无人 (paid to nobody)": "paid to nobody",
    "付给每家 (to each other player)": "to each other player",
    "离开牌桌 (left the table": "left the table (",
    "游戏停止 (game stopped": "game stopped (",
    "继续 (staying)": "staying",
    "选一门不要 (缺门)": "declare a void suit",
    " [y/N] (leave the table?) ": " [y/N] ",
    "流局 (the wall is exhausted)": "drawn hand (the wall is exhausted)",
    "流局 (牌墙摸完)": "drawn hand (the wall is exhausted)",
    "不能这样选 (not one of the choices)": "not one of the choices",
    "不能换这几张 (pass": "(pass",
    "再按 q 离开, 其他键继续 (press q again to leave, any other key to stay)":
        "press q again to leave, any other key to stay",
    "(this hand is not counted)": "(this hand is not counted)",
    "罚 ": "penalty ",
    "(翻 ": "(flipped ",
    "你 = seat 0, bots: 下家 / 对家 / 上家.": "you = seat 0, bots on your right, across and left.",
    " 的数字或牌名 (": " (",
    "请输入 1–": "answer 1–",
    "或牌名: ": "or a tile: ",
    "选择 [1-": "choose [1-",
    "换哪几张: ": "which tiles: ",
    "看不懂 (": "cannot read that (",
    " — 你要吗?": " — take it?",
    "离开牌桌?": "Leave the table?",
    "离开牌桌": "left the table",
    # the full screen's key help
    "←/→ 选牌  Enter 打出  或输入牌名 (5m 五万 中)  ":
        "←/→ pick  Enter discards  or type a tile (5m 3p East)  ",
    "←/→ 选牌  空格 选/不选  ": "←/→ move  space picks/unpicks  ",
    "Enter 确定  ": "Enter confirms  ",
    "Enter 选牌  ": "Enter picks  ",
    "或输入牌名 (1m 1m 7m)  ": "or type the tiles (1m 1m 7m)  ",
    "←/→ 选择  ": "←/→ choose  ",
    "牌局结束 — q / Enter 退出": "game over — q / Enter quits",
    "Enter 下一手   q 退出": "Enter next hand   q quits",
    "+ 快  - 慢  空格 暂停  q 退出": "+ faster  - slower  space pauses  q quits",
    "q 退出": "q quits",
    "(暂停)": "(paused)",
    "不能这样选": "not one of the choices",
    "输入: ": "typed: ",
    # the person's own moves, said in the first person's grammar
    "你 打": "You discard", "你 摸": "You draw", "你 胡": "You win", "你 补花": "You lay aside a flower:",
    "你 补牌": "You draw a replacement", "你 补": "You draw",
    "你 碰": "You pung", "你 吃": "You chow", "你 杠": "You kong",
    # seats
    "东家": "East", "南家": "South", "西家": "West", "北家": "North",
    "下家": "Right", "对家": "Across", "上家": "Left", "你": "You",
    # the table
    "庄家: ": "dealer: ", "下一手庄家: ": "next dealer: ", "下一手庄家 ": "next dealer ",
    "圈风": "round wind", "门风": "seat winds",
    "庄家": "dealer", "庄": "dealer", "余牌": "wall", "每步": "step", " 秒": " s",
    "种子": "seed", "报牌": "calls", "副露": "melds", "手牌": "hand", "河  ": "river  ",
    "弃 ": "discards ", "摸到": "drew", "王 作 ": "wild stood for ",
    "、": ", ", "   胡×": "   won×", "   胡": "   won", "读法": "reading", "番型": "patterns",
    "   共 ": "   total ", "本手 ": "this hand ", "总计": "total", "结算": "settled",
    "掷骰": "dice", "开牌": "break", "翻王": "wildcard", "换牌": "exchange", "翻牌": "flipped",
    "换给": "pass to ", "换出": "gave", "换入": "got", "换 ": "pass ", "补花": "lays aside a flower:",
    "补牌": "draws a replacement",
    "开局报": "opening declaration", "已离场": "out", "报听": "ready", "放炮": "dealt in",
    "自摸": "self-draw", "点炮": "on a discard", "抢杠": "robbing a kong", "的杠": "'s kong", " 的)": ")",
    "可以抢杠:": "you may rob the kong:", "加杠": "adds a kong", "点杠": "claimed kong",
    "暗杠": "concealed kong",
    "明杠": "added kong", "离桌": "leaving", "选 ": "pick ", " 张 ": " tiles ", " 张": " tiles",
    "输入 ": "type ", "亮": "shows ", "鸟": "bird", "底 ": "base ",
    "胡": "wins", "碰": "pung", "吃": "chow", "杠": "kong", "过": "pass", "打": "discards", "摸": "draws",
    "补": "draws", "缺 ": "void ", "缺": "void ", "听": "waits", "花": "flowers", "分": "points",
    "罚": "penalty",
    "王": "wild", "河": "river", "抢": "robs",
    # suits (a void suit, 缺 万)
    "万": "characters", "筒": "dots", "条": "bamboo", "索": "bamboo",
}
for _t in range(FLOWER_BASE + 8):
    PHRASES.setdefault(tile_name(_t), tile_en(_t))

def _hands(m: re.Match[str]) -> str:
    n = int(m.group(1))
    return f"{n} hand" + ("" if n == 1 else "s")


# Counted phrases: read before the table above.
_COUNTED: list[tuple[re.Pattern[str], str | Callable[[re.Match[str]], str]]] = [
    (re.compile(r"罚 (\d+) 分 \(you pay \d+\)"), r"you pay \1"),
    (re.compile(r"第 (\d+) 手"), r"hand \1"),
    (re.compile(r"换 (\d+) 张给"), r"pass \1 tiles to "),
    (re.compile(r"输入 (\d+) 张"), r"type \1 tiles"),
    (re.compile(r"\((\d+) 手\)"), lambda m: f"({_hands(m)})"),
    (re.compile(r"(\d+) 手(?!牌)"), _hands),
    (re.compile(r"手牌 (\d+) 张"), r"\1 tiles"),
    (re.compile(r"座(\d)"), r"seat \1"),
    (re.compile(r"包 \(代(.+?)付\)"), r"liable (pays for \1)"),
]
_SAID = re.compile(r"(「[^」]*」)")


_HAN = re.compile(r"[\u3400-\u9fff]+")


class Words:
    """Messages as shown in ``lang`` (``zh``: unchanged). ``keep``: the ruleset's own words (its
    pattern names), shown as written in either language — they match before any phrase inside
    them; a mapping gives a word its designer's English (a pattern's ``en``), shown for ``en``.

    A run of Chinese characters is translated only when the table's phrases cover all of it;
    otherwise it is shown whole, as written: a word the table does not know (a plugin's event
    text, a bonus's name: 扎 + 鸟) is never half-translated ("扎bird")."""

    def __init__(self, lang: str = "zh", keep: Iterable[str] | Mapping[str, str] = ()) -> None:
        self.lang = check_lang(lang)
        self._table = PHRASES
        self._re = re.compile("|".join(re.escape(p) for p in sorted(self._table, key=len, reverse=True)))
        # The ruleset's own words are set apart before any phrase is read: a phrase that starts
        # before one of them ("   胡" before a pattern whose name starts with 胡) must not take part of it.
        self._english = {w: e for w, e in keep.items() if w and e} if isinstance(keep, Mapping) else {}
        kept = sorted({w for w in keep if w}, key=len, reverse=True)
        self._keep = re.compile("(" + "|".join(map(re.escape, kept)) + ")") if kept else None

    def __call__(self, text: str) -> str:
        if self.lang == "zh" or not text:
            return text
        # What a player says (「…」) is the plugin's words, as said at the table: kept.
        return "".join(part if part.startswith("「") else self._mixed(part) for part in _SAID.split(text))

    def _mixed(self, text: str) -> str:
        if self._keep is None:
            return self._plain(text)
        # (re.split with one group: the ruleset's words at the odd places, shown as written
        # or in their designer's English)
        return "".join(self._english.get(part, part) if i % 2 else self._plain(part)
                       for i, part in enumerate(self._keep.split(text)))

    def _plain(self, text: str) -> str:
        for pattern, repl in _COUNTED:
            text = pattern.sub(repl, text)
        found = list(self._re.finditer(text))
        covered = bytearray(len(text))
        for m in found:
            covered[m.start():m.end()] = b"\1" * (m.end() - m.start())
        # the runs of Chinese the phrases do not cover whole: kept as written
        kept = [(r.start(), r.end()) for r in _HAN.finditer(text) if not all(covered[r.start():r.end()])]
        out: list[str] = []
        at = 0
        for m in found:
            if any(a < m.end() and m.start() < b for a, b in kept):
                continue  # it touches a word kept whole: not translated
            out.append(text[at:m.start()])
            said = self._table[m.group(0)]
            if out and at == m.start() and _glued(text, m.start()) and said[:1].isalnum():
                out.append(" ")  # two phrases of one Chinese run: two English words
            out.append(said)
            at = m.end()
        out.append(text[at:])
        return "".join(out)

    def typed(self, text: str) -> str:
        """A typed answer, English honor names read as tiles (``east`` → ``1z``)."""
        return typed(text) if self.lang == "en" else text


def _glued(text: str, i: int) -> bool:
    """Chinese on both sides of position ``i`` (two phrases written together)."""
    return 0 < i < len(text) and bool(_HAN.match(text[i - 1])) and bool(_HAN.match(text[i]))


_TYPED = {name.lower(): f"{i + 1}z" for i, name in enumerate(HONORS_EN)}
_TYPED_WORD = re.compile(r"\b(" + "|".join(_TYPED) + r")\b", re.IGNORECASE)


def typed(text: str) -> str:
    """A player's typed answer with English honor names read as tiles (``east`` → ``1z``)."""
    return _TYPED_WORD.sub(lambda m: _TYPED[m.group(0).lower()], text)


def check_lang(lang: str) -> str:
    if lang not in LANGS:
        raise ValueError(f"--lang must be one of {', '.join(LANGS)}, not {lang!r}")
    return lang
