"""Tiles: the 34 tile kinds, their names, and parsing/printing of tile strings.

A tile kind is an ``int`` 0–33 so hands can be count vectors and table keys:

====== ============ =========================
index  compact      Chinese
====== ============ =========================
0–8    1m–9m        一万 … 九万
9–17   1p–9p        一筒 … 九筒
18–26  1s–9s        一索 … 九索 (also 条)
27–33  1z–7z        东 南 西 北 白 发 中
====== ============ =========================

Which kinds a game uses, and how many copies, is the ruleset's business
(:class:`TileSet`); the names and the notation are fixed (docs/conformance.md, "Tiles") so that
every ruleset and conformance file reads the same.

Two notations are parsed, freely mixed: compact (``123m 456p 77z``, digits
before their suit letter, spaces optional) and Chinese names (``三筒 八万 东 中``,
``六条`` = ``六索``, ``红中``, ``發`` …). A parse error names the 1-based column.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property

Tile = int

SUIT_LETTERS = "mps"
HONOR_LETTER = "z"
NUM_KINDS = 34
HONOR_BASE = 27
# Bonus tiles (flowers: 春夏秋冬 梅兰竹菊, ``1f``–``8f``) are numbered after the 34 kinds. They
# are never held: a ruleset with ``tiles.flowers`` sets each aside when drawn and replaces it.
FLOWER_BASE = NUM_KINDS
FLOWER_NAMES = "春夏秋冬梅兰竹菊"
FLOWER_LETTER = "f"

RANK_CHARS = "一二三四五六七八九"
SUIT_NAMES = ("万", "筒", "索")
HONOR_NAMES = ("东", "南", "西", "北", "白", "发", "中")

# Emoji, in the same order as the kinds.
_EMOJI = (
    [chr(0x1F007 + i) for i in range(9)]  # 🀇 … 🀏 characters (万)
    + [chr(0x1F019 + i) for i in range(9)]  # 🀙 … 🀡 dots (筒)
    + [chr(0x1F010 + i) for i in range(9)]  # 🀐 … 🀘 bamboo (索)
    + [chr(0x1F000), chr(0x1F001), chr(0x1F002), chr(0x1F003),  # 🀀🀁🀂🀃 winds
       chr(0x1F006), chr(0x1F005), chr(0x1F004)]  # 🀆 白 🀅 发 🀄 中
)

# Accepted spellings of a suit after a Chinese numeral.
_SUIT_ALIASES = {
    "万": 0, "萬": 0, "筒": 1, "饼": 1, "餅": 1, "索": 2, "条": 2, "條": 2,
}
_RANK_ALIASES = {c: i for i, c in enumerate(RANK_CHARS)} | {"幺": 0, "两": 1}
# Honor spellings, longest first so that 东风 is read before 东.
_HONOR_ALIASES: dict[str, int] = {}
for _i, _names in enumerate((
    ("东风", "東風", "东", "東"),
    ("南风", "南風", "南"),
    ("西风", "西風", "西"),
    ("北风", "北風", "北"),
    ("白板", "白"),
    ("发财", "發財", "发", "發"),
    ("红中", "紅中", "中"),
)):
    for _n in _names:
        _HONOR_ALIASES[_n] = HONOR_BASE + _i
_HONOR_SPELLINGS = sorted(_HONOR_ALIASES, key=len, reverse=True)


class TileParseError(ValueError):
    """A tile string could not be read; ``position`` is the 0-based index."""

    def __init__(self, text: str, position: int, message: str) -> None:
        self.text = text
        self.position = position
        self.reason = message
        super().__init__(f"column {position + 1}: {message} in {text!r}")


# --------------------------------------------------------------------------
# kinds


def is_honor(t: Tile) -> bool:
    return HONOR_BASE <= t < FLOWER_BASE


def is_flower(t: Tile) -> bool:
    """A bonus tile (flower), never part of a hand."""
    return t >= FLOWER_BASE


def suit_of(t: Tile) -> int:
    """0, 1, 2 for m, p, s; 3 for honors."""
    return t // 9 if t < HONOR_BASE else 3


def rank_of(t: Tile) -> int:
    """1–9 for suited tiles, 1–7 for honors (1z … 7z)."""
    return t % 9 + 1 if t < HONOR_BASE else t - HONOR_BASE + 1


def make_tile(suit: str, rank: int) -> Tile:
    """The kind for suit letter ``m``/``p``/``s``/``z`` and rank."""
    if suit == HONOR_LETTER:
        if not 1 <= rank <= 7:
            raise ValueError(f"honor rank must be 1–7, got {rank}")
        return HONOR_BASE + rank - 1
    s = SUIT_LETTERS.find(suit)
    if s < 0 or len(suit) != 1:
        raise ValueError(f"unknown suit {suit!r}")
    if not 1 <= rank <= 9:
        raise ValueError(f"rank must be 1–9, got {rank}")
    return s * 9 + rank - 1


def tile_code(t: Tile) -> str:
    """Compact code of one tile: ``3p``, ``7z`` (a flower: ``1f``–``8f``)."""
    if t >= FLOWER_BASE:
        return f"{t - FLOWER_BASE + 1}{FLOWER_LETTER}"
    if t >= HONOR_BASE:
        return f"{t - HONOR_BASE + 1}z"
    return f"{t % 9 + 1}{SUIT_LETTERS[t // 9]}"


def tile_name(t: Tile) -> str:
    """Chinese name as players say it: ``三筒``, ``八万``, ``东``, ``中`` (a flower: ``春`` …)."""
    if t >= FLOWER_BASE:
        return FLOWER_NAMES[t - FLOWER_BASE]
    if t >= HONOR_BASE:
        return HONOR_NAMES[t - HONOR_BASE]
    return RANK_CHARS[t % 9] + SUIT_NAMES[t // 9]


def tile_emoji(t: Tile) -> str:
    if t >= FLOWER_BASE:  # 🀢🀣🀤🀥 plum orchid bamboo chrysanthemum, 🀦🀧🀨🀩 the seasons
        i = t - FLOWER_BASE
        return chr(0x1F026 + i) if i < 4 else chr(0x1F022 + i - 4)
    return _EMOJI[t]


# --------------------------------------------------------------------------
# parsing


def parse_tile(text: str) -> Tile:
    """Exactly one tile, in either notation (``3p``, ``三筒``, ``中``)."""
    tiles = parse_tiles(text)
    if len(tiles) != 1:
        raise TileParseError(text, 0, f"expected one tile, found {len(tiles)}")
    return tiles[0]


def parse_tiles(text: str) -> list[Tile]:
    """Read a tile string in compact and/or Chinese notation, in order.

    >>> [tile_code(t) for t in parse_tiles("123m 7z 三筒 六条")]
    ['1m', '2m', '3m', '7z', '3p', '6s']
    """
    out: list[Tile] = []
    i, n = 0, len(text)
    pending: list[tuple[int, int]] = []  # (digit, position) awaiting a suit letter
    while i < n:
        ch = text[i]
        if ch.isspace() or ch in ",，、":
            if pending:
                _missing_suit(text, pending)
            i += 1
            continue
        if "0" <= ch <= "9":
            pending.append((int(ch), i))
            i += 1
            continue
        low = ch.lower()
        if low == FLOWER_LETTER and pending:
            for rank, pos in pending:
                if not 1 <= rank <= len(FLOWER_NAMES):
                    raise TileParseError(text, pos, f"{rank}f is not a flower (1f–8f)")
                out.append(FLOWER_BASE + rank - 1)
            pending = []
            i += 1
            continue
        if low in SUIT_LETTERS or low == HONOR_LETTER:
            if not pending:
                raise TileParseError(text, i, f"suit letter {ch!r} with no ranks before it")
            for rank, pos in pending:
                limit = 7 if low == HONOR_LETTER else 9
                if not 1 <= rank <= limit:
                    kind = "an honor (1z–7z)" if low == HONOR_LETTER else "a suited tile (1–9)"
                    raise TileParseError(text, pos, f"{rank}{low} is not {kind}")
                out.append(make_tile(low, rank))
            pending = []
            i += 1
            continue
        if pending:
            if ch.isascii() and ch.isalpha():
                raise TileParseError(text, i, f"unknown suit letter {ch!r} (m, p, s or z)")
            _missing_suit(text, pending)
        if ch in _RANK_ALIASES:
            if i + 1 < n and text[i + 1] in _SUIT_ALIASES:
                out.append(_SUIT_ALIASES[text[i + 1]] * 9 + _RANK_ALIASES[ch])
                i += 2
                continue
            raise TileParseError(text, i, f"numeral {ch!r} must be followed by 万, 筒 or 索/条")
        for spelling in _HONOR_SPELLINGS:
            if text.startswith(spelling, i):
                out.append(_HONOR_ALIASES[spelling])
                i += len(spelling)
                break
        else:
            if ch in FLOWER_NAMES:
                out.append(FLOWER_BASE + FLOWER_NAMES.index(ch))
                i += 1
                continue
            raise TileParseError(text, i, f"unexpected character {ch!r}")
    if pending:
        _missing_suit(text, pending)
    return out


def _missing_suit(text: str, pending: list[tuple[int, int]]) -> None:
    digits = "".join(str(d) for d, _ in pending)
    raise TileParseError(text, pending[0][1], f"ranks {digits!r} have no suit letter (m, p, s or z)")


# --------------------------------------------------------------------------
# printing


def format_tiles(tiles: Iterable[Tile], style: str = "compact", sort: bool = False) -> str:
    """Print tiles: ``compact`` (``123m 77z``), ``chinese`` (``一万 二万``) or ``emoji``."""
    seq = sorted(tiles) if sort else list(tiles)
    if style == "chinese":
        return " ".join(tile_name(t) for t in seq)
    if style == "emoji":
        return "".join(tile_emoji(t) for t in seq)
    if style != "compact":
        raise ValueError(f"unknown style {style!r}")
    # Group consecutive tiles of one suit: 123m 45p 77z.
    parts: list[str] = []
    digits = ""
    letter = ""
    for t in seq:
        code = tile_code(t)
        if code[1] != letter and digits:
            parts.append(digits + letter)
            digits = ""
        letter = code[1]
        digits += code[0]
    if digits:
        parts.append(digits + letter)
    return " ".join(parts)


def counts_of(tiles: Iterable[Tile]) -> list[int]:
    """A 34-long count vector."""
    c = [0] * NUM_KINDS
    for t in tiles:
        c[t] += 1
    return c


# --------------------------------------------------------------------------
# tile sets


@dataclass(frozen=True)
class TileSet:
    """The tiles a ruleset plays with: which suits and honors, how many copies.

    ``successors`` maps each kind to the next one in wildcard order (the
    indicator's successor is the wildcard).
    """

    name: str
    kinds: tuple[Tile, ...]
    copies: int
    successors: dict[Tile, Tile]
    flowers: int = 0  # bonus tiles 1f… (one of each), set aside when drawn and replaced

    @property
    def size(self) -> int:
        return len(self.kinds) * self.copies + self.flowers

    @property
    def has_honors(self) -> bool:
        return any(is_honor(t) for t in self.kinds)

    def __contains__(self, t: object) -> bool:
        return t in self.kinds

    def full_wall(self) -> list[Tile]:
        """Every physical tile once, in kind order."""
        return [t for t in self.kinds for _ in range(self.copies)] + [
            FLOWER_BASE + i for i in range(self.flowers)]

    @cached_property
    def kind_set(self) -> frozenset[Tile]:
        """``kinds`` as a set (membership tests)."""
        return frozenset(self.kinds)

    def check_hand(self, tiles: Sequence[Tile], what: str = "hand") -> None:
        """Raise ``ValueError`` if a tile isn't in the set or appears too often."""
        # Every hand scored is checked: the common answer (all fine) in one pass; anything
        # wrong is found again below, with its message.
        if self.kind_set.issuperset(tiles):
            counts = [0] * NUM_KINDS
            for t in tiles:
                counts[t] += 1
            if max(counts) <= self.copies:
                return
        for t in tiles:
            if is_flower(t):
                raise ValueError(f"{what}: {tile_name(t)} ({tile_code(t)}) is a flower, never held "
                                 "(flowers set aside are counted apart, e.g. mj score --flowers)")
        counts = counts_of(tiles)
        for t, c in enumerate(counts):
            if c and t not in self.kinds:
                raise ValueError(f"{what}: {tile_name(t)} ({tile_code(t)}) is not in the {self.name} set")
            if c > self.copies:
                raise ValueError(
                    f"{what}: {c} × {tile_name(t)} ({tile_code(t)}), the set has only {self.copies}"
                )


# --------------------------------------------------------------------------
# other tools' notations
#
# The engine has no red fives; these converters keep a red flag beside the kind
# (``(tile, red)``) so a tool's tiles survive a round trip. Red fives exist in
# the 136-index form as copy 0 of each five (16 = 0m-red, 52 = 0p, 88 = 0s, the
# Tenhou convention), in mpsz as the digit ``0`` and in mjai as ``5mr``.

MJAI_HONORS = ("E", "S", "W", "N", "P", "F", "C")  # 东 南 西 北 白(haku) 发(hatsu) 中(chun)
# Botzone (Chinese standard mahjong): W 万, B 饼 (筒), T 条 (索), F1–F4 东南西北, J1–J3 中发白.
_BOTZONE_SUITS = "WBT"
_BOTZONE_DRAGONS = (HONOR_BASE + 6, HONOR_BASE + 5, HONOR_BASE + 4)  # J1 中, J2 发, J3 白
RED_136 = (16, 52, 88)


def _check_kind(t: Tile) -> None:
    if not isinstance(t, int) or isinstance(t, bool) or not 0 <= t < NUM_KINDS:
        raise ValueError(f"not a tile kind (0–33): {t!r}")


def _check_red(t: Tile, red: bool) -> None:
    if red and (is_honor(t) or t % 9 != 4):
        raise ValueError(f"only a five can be red, not {tile_code(t)}")


def to_mjai(t: Tile, red: bool = False) -> str:
    """The mjai protocol's name: ``5m``, ``5mr`` (red), ``E`` ``S`` ``W`` ``N`` ``P`` ``F`` ``C``.

    mjai has no flowers; as an extension a flower keeps its compact code (``1f``–``8f``).
    """
    if isinstance(t, int) and not isinstance(t, bool) and FLOWER_BASE <= t < FLOWER_BASE + len(FLOWER_NAMES) \
            and not red:
        return tile_code(t)
    _check_kind(t)
    _check_red(t, red)
    if is_honor(t):
        return MJAI_HONORS[t - HONOR_BASE]
    return tile_code(t) + ("r" if red else "")


def from_mjai(name: str) -> tuple[Tile, bool]:
    """``(kind, red)`` for an mjai tile name (``5pr`` → ``(13, True)``)."""
    if name in MJAI_HONORS:
        return HONOR_BASE + MJAI_HONORS.index(name), False
    if len(name) == 2 and name[1] == FLOWER_LETTER and name[0] in "12345678":  # the flower extension
        return FLOWER_BASE + int(name[0]) - 1, False
    red = len(name) == 3 and name.endswith("r")
    core = name[:2] if red else name
    if len(core) != 2 or core[0] not in "123456789" or core[1] not in SUIT_LETTERS:
        raise TileParseError(name, 0, "not an mjai tile name (1m–9m, 1p–9p, 1s–9s, 5mr, E S W N P F C; "
                             "flowers 1f–8f)")
    t = make_tile(core[1], int(core[0]))
    if red and core[0] != "5":
        raise TileParseError(name, 0, "only a five can be red")
    return t, red


def to_botzone(t: Tile) -> str:
    """Botzone's code: ``W1``–``W9`` 万, ``B1``–``B9`` 筒 (饼), ``T1``–``T9`` 索 (条),
    ``F1``–``F4`` 东南西北, ``J1``–``J3`` 中发白."""
    _check_kind(t)
    if not is_honor(t):
        return f"{_BOTZONE_SUITS[t // 9]}{t % 9 + 1}"
    if t < HONOR_BASE + 4:
        return f"F{t - HONOR_BASE + 1}"
    return f"J{_BOTZONE_DRAGONS.index(t) + 1}"


def from_botzone(code: str) -> Tile:
    """The kind of a Botzone code (``T5`` → 5s, ``J1`` → 中)."""
    if len(code) == 2 and code[1].isdigit():
        letter, n = code[0], int(code[1])
        if letter in _BOTZONE_SUITS and 1 <= n <= 9:
            return _BOTZONE_SUITS.index(letter) * 9 + n - 1
        if letter == "F" and 1 <= n <= 4:
            return HONOR_BASE + n - 1
        if letter == "J" and 1 <= n <= 3:
            return _BOTZONE_DRAGONS[n - 1]
    raise TileParseError(code, 0, "not a Botzone tile code (W1–W9, B1–B9, T1–T9, F1–F4, J1–J3)")


def to_136(t: Tile, copy: int = 0, red: bool = False) -> int:
    """The 136-array index ``4·kind + copy`` (copy 0–3). A red five is copy 0 of its five;
    a plain five with ``red=False`` must then not be copy 0 when reds are in play
    (:func:`to_136` leaves that to the caller: it checks only ``red`` ⇒ copy 0)."""
    _check_kind(t)
    _check_red(t, red)
    if red:
        return 4 * t
    if not 0 <= copy <= 3:
        raise ValueError(f"copy must be 0–3, got {copy}")
    return 4 * t + copy


def from_136(index: int) -> Tile:
    """The kind of a 136-array index (0–135)."""
    if not isinstance(index, int) or not 0 <= index < 4 * NUM_KINDS:
        raise ValueError(f"not a 136-array index (0–135): {index!r}")
    return index // 4


def is_red_136(index: int) -> bool:
    """A red five in the 136 convention (16, 52, 88)."""
    return index in RED_136


def to_34(t: Tile) -> int:
    """The 34-array index (the engine's kind itself, checked)."""
    _check_kind(t)
    return t


def from_34(index: int) -> Tile:
    _check_kind(index)
    return index


def parse_mpsz(text: str) -> list[tuple[Tile, bool]]:
    """``(kind, red)`` pairs from mpsz with red fives ``0`` (``"406m55z"``); spaces allowed."""
    out: list[tuple[Tile, bool]] = []
    pending: list[tuple[int, int]] = []  # (digit, column)
    for i, ch in enumerate(text):
        if ch.isspace():
            continue
        if ch in "0123456789":
            pending.append((int(ch), i))
            continue
        if ch in SUIT_LETTERS or ch == HONOR_LETTER:
            if not pending:
                raise TileParseError(text, i, f"suit letter {ch!r} without digits before it")
            for d, col in pending:
                if ch == HONOR_LETTER and not 1 <= d <= 7:
                    raise TileParseError(text, col, f"honor rank must be 1–7, got {d}")
                if ch != HONOR_LETTER and d == 0:
                    out.append((make_tile(ch, 5), True))
                elif d == 0:
                    raise TileParseError(text, col, "0 (a red five) needs a suit m, p or s")
                else:
                    out.append((make_tile(ch, d), False))
            pending = []
            continue
        raise TileParseError(text, i, f"unexpected {ch!r}")
    if pending:
        raise TileParseError(text, pending[0][1], "digits without a suit letter after them")
    return out


def format_mpsz(tiles: Iterable[Tile | tuple[Tile, bool]]) -> str:
    """mpsz, runs of one suit sharing the letter, a red five as ``0``: ``[(4, True), 5]`` → ``"06m"``."""
    parts: list[str] = []
    letter = ""
    digits = ""
    for item in tiles:
        t, red = item if isinstance(item, tuple) else (item, False)
        _check_kind(t)
        _check_red(t, red)
        s = HONOR_LETTER if is_honor(t) else SUIT_LETTERS[t // 9]
        if s != letter and digits:
            parts.append(digits + letter)
            digits = ""
        letter = s
        digits += "0" if red else str(rank_of(t))
    if digits:
        parts.append(digits + letter)
    return "".join(parts)


NOTATIONS = ("mpsz", "mjai", "botzone", "136", "34", "compact")


def parse_notation(text: str, notation: str = "auto") -> list[Tile]:
    """Tiles in another tool's notation (red flags dropped): ``mpsz`` (with ``0``), ``mjai``
    or ``botzone`` names separated by spaces or commas, ``136``/``34`` integer lists, or
    ``auto`` (per token: an mjai/Botzone name, else the engine's own notations)."""
    tokens = [tok for tok in text.replace(",", " ").split() if tok]
    if notation == "mpsz":
        return [t for t, _ in parse_mpsz(text)]
    if notation == "mjai":
        return [from_mjai(tok)[0] for tok in tokens]
    if notation == "botzone":
        return [from_botzone(tok) for tok in tokens]
    if notation in ("136", "34"):
        try:
            ints = [int(tok.strip("[]")) for tok in tokens if tok.strip("[]")]
        except ValueError as e:
            raise TileParseError(text, 0, f"a {notation}-index list holds integers") from e
        return [from_136(i) for i in ints] if notation == "136" else [from_34(i) for i in ints]
    if notation == "compact":
        return parse_tiles(text)
    if notation != "auto":
        raise ValueError(f"unknown notation {notation!r} (one of {', '.join(NOTATIONS)}, auto)")
    out: list[Tile] = []
    for tok in tokens:
        if tok in MJAI_HONORS or (len(tok) == 3 and tok.endswith("r")):
            out.append(from_mjai(tok)[0])
        elif len(tok) == 2 and tok[0] in "WBTFJ" and tok[1].isdigit():
            out.append(from_botzone(tok))
        elif "0" in tok:
            out.extend(t for t, _ in parse_mpsz(tok))
        else:
            out.extend(parse_tiles(tok))
    return out
