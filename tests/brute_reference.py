"""An independent, brute-force scorer for the conformance cases of the newer variants.

Small, slow and meant to be obviously right: it imports nothing from the engine. It
reads tiles with its own parser, gives every wildcard every kind it may stand for
(all multisets of them), enumerates every reading of the concrete tiles (four sets
and a pair, seven pairs, thirteen orphans), applies the pattern list of the rules
page directly, and keeps the reading that pays most. The pages followed:

- docs/rules/hongzhong.md — 红中 wild for any suited tile; 「胡牌」 (four melds and a
  pair, or seven pairs) or 「四红中」, both 2; self-draw only (no 点炮 by default);
  抢杠胡 paid by the konger alone for all three; each 中码 (1/5/9 of a suit or 中)
  adds 2 to every payment the winner receives; kong money 点杠 3 / 补杠 1 each / 暗杠 2
  each, unchanged by 码.
- docs/rules/guangdong-tuidaohu.md — 白板 wild for any tile; factors 鸡胡 ×1, 碰碰胡 ×2,
  七小对 ×2, 豪华七小对 ×4, 混一色 ×2, 清一色 ×4, 字一色 ×8 (not also 碰碰胡), 十三幺 ×8,
  杠上开花 ×2 multiply, counted at most ×8; each payer pays 2 × the product;
  self-draw (and 抢杠胡, paid by the konger for all three) only; each 马 on the winner
  (counted from the winner: 1/5/9, 东, 中 are its own) makes every payer pay the win
  once more; kong money as above, unchanged by 马.
- docs/rules/taiwan-16.md — 17 tiles to win (five sets and a pair, chows and melds included);
  the 台 table (正花 by the flowers' names, 花杠, 独听 by the kinds the held 16 wait on, 平胡's
  two-sided wait and 暗刻 by where the winning tile sits, 杠上开花 on a kong's or a flower's
  replacement), the patterns each counts in place
  of; each payer pays 底 5 + 台, and 庄家 1 + 2 × 连庄 more where the dealer pays or is paid.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import combinations_with_replacement
from typing import Any

HONOR_NAMES = {"东": "1z", "南": "2z", "西": "3z", "北": "4z", "白": "5z", "发": "6z", "中": "7z"}
SUITED = [f"{r}{s}" for s in "mps" for r in range(1, 10)]
HONORS = [f"{r}z" for r in range(1, 8)]
ORPHANS = {"1m", "9m", "1p", "9p", "1s", "9s", *HONORS}


def parse(text: str) -> list[str]:
    """``"123m 中中 5s"`` → ``["1m", "2m", "3m", "7z", "7z", "5s"]`` (compact notation, honor names)."""
    out: list[str] = []
    for token in str(text).split():
        digits = ""
        for ch in token:
            if ch.isdigit():
                digits += ch
            elif ch in "mpsz" and digits:
                out += [d + ch for d in digits]
                digits = ""
            elif ch in HONOR_NAMES and not digits:
                out.append(HONOR_NAMES[ch])
            else:
                raise ValueError(f"cannot read {token!r}")
        if digits:
            raise ValueError(f"cannot read {token!r}")
    return out


@dataclass(frozen=True)
class Meld:
    kind: str  # chow | pung | kong | added-kong | concealed-kong
    tile: str  # a chow's lowest tile
    from_seat: int | None = None

    @property
    def size(self) -> int:
        return 3 if self.kind in ("chow", "pung") else 4

    @property
    def tiles(self) -> tuple[str, ...]:
        if self.kind == "chow":
            return tuple(f"{int(self.tile[0]) + i}{self.tile[1]}" for i in range(3))
        return (self.tile,) * self.size

    @property
    def claimed(self) -> bool:
        """Made with a claimed tile (or added to one): every meld but a concealed kong."""
        return self.kind != "concealed-kong"


def parse_meld(text: str) -> Meld:
    words = text.split()
    if words[0] not in ("chow", "pung", "kong", "added-kong", "concealed-kong") or len(words) not in (2, 4):
        raise ValueError(f"cannot read the meld {text!r}")
    tiles = parse(words[1])
    from_seat = int(words[3]) if len(words) == 4 and words[2] == "from" else None
    if words[0] == "chow":
        ranks = sorted(int(t[0]) for t in tiles)
        if len(tiles) != 3 or len({t[1] for t in tiles}) != 1 or tiles[0][1] == "z" \
                or ranks != list(range(ranks[0], ranks[0] + 3)):
            raise ValueError(f"not a chow: {text!r}")
        return Meld("chow", f"{ranks[0]}{tiles[0][1]}", from_seat)
    (tile,) = tiles
    return Meld(words[0], tile, from_seat)


@dataclass
class Reading:
    kind: str  # standard | seven_pairs | thirteen
    tiles: list[str]  # every concrete tile of the hand, melds included
    groups: list[tuple[str, ...]] = field(default_factory=list)  # standard: every set and the pair


def readings(concealed: list[str], melds: list[Meld]) -> Iterator[Reading]:
    """Every reading of the concrete tiles (``concealed`` with the winning tile, plus ``melds``):
    sets and a pair for any hand size (14 tiles: four sets, 17: five), seven pairs and thirteen
    orphans for 14. A reading's groups list the concealed ones first, then the melds."""
    every = concealed + [t for m in melds for t in m.tiles]
    counts = Counter(concealed)
    if len(concealed) % 3 != 2:
        return
    for split in _splits(counts, (len(concealed) - 2) // 3):
        yield Reading("standard", every, split + [m.tiles for m in melds])
    if not melds and len(concealed) == 14 and all(n % 2 == 0 for n in counts.values()):
        yield Reading("seven_pairs", every)
    if not melds and len(concealed) == 14 and set(counts) == ORPHANS:
        yield Reading("thirteen", every)


def _splits(counts: Counter[str], sets: int, pair_taken: bool = False) -> Iterator[list[tuple[str, ...]]]:
    """Every split of ``counts`` into exactly ``sets`` sets and one pair."""
    live = +counts
    if not live:
        if sets == 0 and pair_taken:
            yield []
        return
    t = min(live)
    options: list[tuple[str, ...]] = []
    if not pair_taken and live[t] >= 2:
        options.append((t, t))
    if sets > 0 and live[t] >= 3:
        options.append((t, t, t))
    if sets > 0 and t[1] != "z" and int(t[0]) <= 7:
        a, b = f"{int(t[0]) + 1}{t[1]}", f"{int(t[0]) + 2}{t[1]}"
        if live[a] and live[b]:
            options.append((t, a, b))
    for shape in options:
        rest = live.copy()
        rest.subtract(shape)
        pair = len(shape) == 2
        for tail in _splits(rest, sets - (0 if pair else 1), pair_taken or pair):
            yield [shape, *tail]


def assignments(tiles: list[str], wild: str, stands_for: list[str]) -> Iterator[list[str]]:
    """``tiles`` with every wildcard replaced, in every way (multisets: wildcards are alike)."""
    plain = [t for t in tiles if t != wild]
    n = len(tiles) - len(plain)
    for chosen in combinations_with_replacement(stands_for, n):
        yield plain + list(chosen)


# -- the two pattern lists ---------------------------------------------------------------

def guangdong_factors(r: Reading, flags: set[str], win_by: str, melds: list[Meld]) -> dict[str, int]:
    suits = {t[1] for t in r.tiles if t[1] != "z"}
    honors = any(t[1] == "z" for t in r.tiles)
    out: dict[str, int] = {}
    if r.kind == "thirteen":
        out["十三幺"] = 8
    elif r.kind == "seven_pairs":
        luxury = any(n >= 4 for n in Counter(r.tiles).values())
        out["豪华七小对" if luxury else "七小对"] = 4 if luxury else 2
    elif all(len(g) >= 3 and len(set(g)) == 1 for g in r.groups if len(g) != 2):
        out["碰碰胡"] = 2
    if r.kind != "thirteen":
        if len(suits) == 1 and not honors:
            out["清一色"] = 4
        elif len(suits) == 1 and honors:
            out["混一色"] = 2
        elif not suits:
            out["字一色"] = 8
            out.pop("碰碰胡", None)
    if "after_kong" in flags and win_by == "self_draw" and any(m.size == 4 for m in melds):
        out["杠上开花"] = 2
    if not set(out) - {"杠上开花"}:
        out["鸡胡"] = 1
    return out


def _kong_money(melds: list[Meld], winner: int, players: int = 4) -> list[int]:
    net = [0] * players
    for m in melds:
        if m.kind == "kong" and m.from_seat is not None:
            net[m.from_seat] -= 3
            net[winner] += 3
        elif m.kind in ("added-kong", "concealed-kong"):
            each = 1 if m.kind == "added-kong" else 2
            for s in range(players):
                if s != winner:
                    net[s] -= each
                    net[winner] += each
    return net


def _pay(winner: int, win_by: str, payer: int | None, per_payer: int, players: int = 4) -> list[int]:
    """Each other player pays ``per_payer`` on a self-draw; on a robbed kong the konger pays
    the three shares (the caller prices the shares)."""
    net = [0] * players
    if win_by == "self_draw":
        for s in range(players):
            if s != winner:
                net[s] -= per_payer
                net[winner] += per_payer
    else:
        assert payer is not None
        net[payer] -= per_payer
        net[winner] += per_payer
    return net


@dataclass
class Outcome:
    win: bool
    payments: list[int] | None = None
    patterns: list[frozenset[str]] = field(default_factory=list)  # every pattern set paying the most


Parts = tuple[list[str], list[Meld], int, str, "int | None", set[str], list[str]]


def _case_parts(case: dict[str, Any]) -> Parts:
    concealed = parse(case["hand"]) + parse(case["win_tile"])
    melds = [parse_meld(m) for m in case.get("melds") or ()]
    bonus = (case.get("context") or {}).get("bonus_tiles") or []
    bonus = parse(bonus) if isinstance(bonus, str) else [t for b in bonus for t in parse(b)]
    return (concealed, melds, int(case.get("seat", 0)), case["win_by"], case.get("discarder"),
            set(case.get("flags") or ()), bonus)


def hongzhong(case: dict[str, Any], dianpao: bool = False) -> Outcome:
    """``dianpao``: the 点炮 option (a discard may be won on; the discarder pays alone for all three)."""
    concealed, melds, seat, win_by, discarder, _flags, bonus = _case_parts(case)
    if win_by not in ("self_draw", "robbed_kong") and not (dianpao and win_by == "discard"):
        return Outcome(False)
    names: set[str] = set()
    if concealed.count("7z") == 4:
        names.add("四红中")
    for tiles in assignments(concealed, "7z", SUITED):
        if next(readings(tiles, melds), None) is not None:
            names.add("胡牌")
            break
    if not names:
        return Outcome(False)
    hits = sum(1 for t in bonus if t == "7z" or (t[1] != "z" and t[0] in "159"))
    per = 2 + 2 * hits if win_by == "self_draw" else 6 + 2 * hits
    pay = _pay(seat, win_by, discarder, per)
    kongs = _kong_money(melds, seat)
    shown = "胡牌" if "胡牌" in names else "四红中"  # both 2: the first declared is shown
    return Outcome(True, [a + b for a, b in zip(pay, kongs, strict=True)], [frozenset({shown})])


def guangdong(case: dict[str, Any]) -> Outcome:
    concealed, melds, seat, win_by, discarder, flags, bonus = _case_parts(case)
    if win_by not in ("self_draw", "robbed_kong"):
        return Outcome(False)
    best: int | None = None
    sets: list[frozenset[str]] = []
    for tiles in assignments(concealed, "5z", SUITED + HONORS):
        for r in readings(tiles, melds):
            factors = guangdong_factors(r, flags, win_by, melds)
            product = 1
            for f in factors.values():
                product *= f
            value = min(product, 8)
            if best is None or value > best:
                best, sets = value, [frozenset(factors)]
            elif value == best and frozenset(factors) not in sets:
                sets.append(frozenset(factors))
    if best is None:
        return Outcome(False)
    on_winner = 0
    for t in bonus:
        offset = {"1z": 0, "7z": 0, "2z": 1, "6z": 1, "3z": 2, "5z": 2, "4z": 3}[t] if t[1] == "z" \
            else (int(t[0]) - 1) % 4
        on_winner += offset == 0
    share = 2 * best * (1 + on_winner)
    per = share if win_by == "self_draw" else 3 * share
    pay = _pay(seat, win_by, discarder, per)
    kongs = _kong_money(melds, seat)
    return Outcome(True, [a + b for a, b in zip(pay, kongs, strict=True)], sets)


# -- taiwan-16 (docs/rules/taiwan-16.md) ----------------------------------------------------

FLOWER_NAMES = dict(zip("春夏秋冬梅兰竹菊", (f"{n}f" for n in range(1, 9)), strict=True))
DRAGONS = {"5z", "6z", "7z"}
WINDS = {"1z", "2z", "3z", "4z"}

# 台 of each pattern, as in the page's table; and what each counts in place of.
TAIWAN_TAI = {"胡牌": 0, "门清": 1, "自摸": 1, "门清自摸": 3, "全求人": 2, "独听": 1, "正花": 1, "花杠": 2,
              "八仙过海": 8, "三元牌": 1, "门风": 1, "圈风": 1, "小三元": 4, "大三元": 8, "小四喜": 8,
              "大四喜": 16, "平胡": 2, "碰碰胡": 4, "三暗刻": 2, "四暗刻": 5, "五暗刻": 8, "混一色": 4,
              "清一色": 8, "字一色": 16, "海底捞月": 1, "河底捞鱼": 1, "杠上开花": 1, "抢杠胡": 1,
              "天胡": 24, "地胡": 16}
TAIWAN_IN_PLACE_OF = {"门清自摸": {"门清", "自摸"}, "全求人": {"独听"}, "八仙过海": {"正花", "花杠"},
                      "小三元": {"三元牌"}, "大三元": {"三元牌"}, "小四喜": {"门风", "圈风"},
                      "大四喜": {"门风", "圈风"}, "字一色": {"碰碰胡"},
                      "天胡": {"门清", "自摸", "门清自摸", "独听"},
                      "地胡": {"门清", "自摸", "门清自摸", "独听"}}


def parse_flowers(value: Any) -> tuple[int, list[str]]:
    """A case's ``flowers``: a count (which ones unknown) or the flowers by code or name."""
    if value is None:
        return 0, []
    if isinstance(value, int):
        return value, []
    named: list[str] = []
    for token in str(value).split():
        digits = ""
        for ch in token:
            if ch.isdigit():
                digits += ch
            elif ch == "f" and digits:
                named += [d + "f" for d in digits]
                digits = ""
            elif ch in FLOWER_NAMES and not digits:
                named.append(FLOWER_NAMES[ch])
            else:
                raise ValueError(f"cannot read the flowers {token!r}")
        if digits:
            raise ValueError(f"cannot read the flowers {token!r}")
    return len(named), named


def _wait_kinds(held: list[str], melds: list[Meld]) -> int:
    """How many tile kinds make the held tiles (without the winning one) a hand of sets and a pair."""
    return sum(1 for k in SUITED + HONORS if next(readings([*held, k], melds), None) is not None)


def _wait_of(group: tuple[str, ...], tile: str) -> str:
    if len(group) == 2:
        return "single"
    if len(set(group)) == 1:
        return "pair_pair"
    low = int(group[0][0])
    rank = int(tile[0])
    if rank == low + 1:
        return "closed"
    if (rank == low and low == 7) or (rank == low + 2 and low == 1):
        return "edge"
    return "open"


def taiwan_patterns(r: Reading, placed: int, melds: list[Meld], *, win_tile: str, win_by: str,
                    flags: set[str], seat_wind: int, prevalent: str, dealer: bool, waits: int,
                    flower_count: int, flowers: list[str]) -> dict[str, int]:
    """The patterns of one reading, the winning tile in concealed group ``placed``, with their 台
    (a pattern counted "each" once per flower, set or 刻)."""
    concealed_groups = r.groups[: len(r.groups) - len(melds)]
    sets = [g for g in r.groups if len(g) != 2]
    (pair,) = [g for g in r.groups if len(g) == 2]
    triplets = [g for g in sets if len(set(g)) == 1]
    sequences = [g for g in sets if len(set(g)) == 3]
    concealed_triplets = sum(1 for i, g in enumerate(concealed_groups) if len(g) == 3 and len(set(g)) == 1
                             and not (i == placed and win_by != "self_draw"))
    concealed_triplets += sum(1 for m in melds if m.kind == "concealed-kong")
    claimed = sum(1 for m in melds if m.claimed)
    suits = {t[1] for t in r.tiles if t[1] != "z"}
    honors = sum(1 for t in r.tiles if t[1] == "z")
    dragon_triplets = sum(1 for g in triplets if g[0] in DRAGONS)
    wind_triplets = sum(1 for g in triplets if g[0] in WINDS)
    own_wind = f"{seat_wind + 1}z"
    first = {"first_turn", "no_claims_yet"} <= flags

    out = {"胡牌"}
    if claimed == 0 and win_by != "self_draw":
        out.add("门清")
    if win_by == "self_draw":
        out.add("自摸")
        if claimed == 0:
            out.add("门清自摸")
    if claimed == 5 and win_by == "discard":
        out.add("全求人")
    if waits == 1:
        out.add("独听")
    own_flowers = sum(1 for f in flowers if (int(f[0]) - 1) % 4 == seat_wind)
    flower_sets = sum(1 for whole in ({"1f", "2f", "3f", "4f"}, {"5f", "6f", "7f", "8f"})
                      if whole <= set(flowers))
    if own_flowers:
        out.add("正花")
    if flower_sets:
        out.add("花杠")
    if flower_count == 8:
        out.add("八仙过海")
    if dragon_triplets:
        out.add("三元牌")
    if any(g[0] == own_wind for g in triplets):
        out.add("门风")
    if any(g[0] == prevalent for g in triplets):
        out.add("圈风")
    if dragon_triplets == 2 and pair[0] in DRAGONS:
        out.add("小三元")
    if dragon_triplets == 3:
        out.add("大三元")
    if wind_triplets == 3 and pair[0] in WINDS:
        out.add("小四喜")
    if wind_triplets == 4:
        out.add("大四喜")
    if (len(sequences) == 5 and pair[0][1] != "z" and flower_count == 0 and win_by == "discard"
            and _wait_of(concealed_groups[placed], win_tile) == "open"):
        out.add("平胡")
    if not sequences:
        out.add("碰碰胡")
    out |= {3: {"三暗刻"}, 4: {"四暗刻"}, 5: {"五暗刻"}}.get(concealed_triplets, set())
    if len(suits) == 1:
        out.add("混一色" if honors else "清一色")
    if not suits:
        out.add("字一色")
    if "last_tile" in flags:
        out.add("海底捞月" if win_by == "self_draw" else "河底捞鱼" if win_by == "discard" else "")
    if flags & {"after_kong", "after_flower"} and win_by == "self_draw":  # (花上自摸 too)
        out.add("杠上开花")
    if win_by == "robbed_kong":
        out.add("抢杠胡")
    if first and win_by == "self_draw":
        out.add("天胡" if dealer else "地胡")
    out.discard("")
    for big, small in TAIWAN_IN_PLACE_OF.items():
        if big in out:
            out -= small
    each = {"正花": own_flowers, "花杠": flower_sets, "三元牌": dragon_triplets}
    return {n: TAIWAN_TAI[n] * each.get(n, 1) for n in out}


def taiwan16(case: dict[str, Any]) -> Outcome:
    """Every reading, every place of the winning tile; the one paying most. Each payer pays 底 5
    + 台, and 1 + 2 × 连庄 more where the dealer pays or is paid."""
    concealed, melds, seat, win_by, discarder, flags, _bonus = _case_parts(case)
    win_tile = parse(case["win_tile"])[0]
    dealer = int(case.get("dealer", 0))
    seat_wind = (seat - dealer) % 4
    prevalent = parse(str(case.get("prevalent_wind", "东")))[0]
    flower_count, flowers = parse_flowers(case.get("flowers"))
    state = {**(case.get("counters") or {}), **(case.get("seat_state") or {})}
    lianzhuang = int(state.get("lianzhuang", 0))
    if len(concealed) + 3 * len(melds) != 17:  # 16 held (a kong as three) and the winning tile
        return Outcome(False)
    waits = _wait_kinds(parse(case["hand"]), melds)
    best: int | None = None
    sets: list[frozenset[str]] = []
    for r in readings(concealed, melds):
        concealed_groups = r.groups[: len(r.groups) - len(melds)]
        for placed, g in enumerate(concealed_groups):
            if win_tile not in g:
                continue
            names = taiwan_patterns(r, placed, melds, win_tile=win_tile, win_by=win_by, flags=flags,
                                    seat_wind=seat_wind, prevalent=prevalent, dealer=seat == dealer,
                                    waits=waits, flower_count=flower_count, flowers=flowers)
            tai = sum(names.values())
            if best is None or tai > best:
                best, sets = tai, [frozenset(names)]
            elif tai == best and frozenset(names) not in sets:
                sets.append(frozenset(names))
    if best is None:
        return Outcome(False)
    payers = [s for s in range(4) if s != seat] if win_by == "self_draw" else [discarder]
    net = [0] * 4
    for p in payers:
        assert p is not None
        amount = 5 + best + ((1 + 2 * lianzhuang) if dealer in (p, seat) else 0)
        net[p] -= amount
        net[seat] += amount
    return Outcome(True, net, sets)


SCORERS = {"hongzhong": hongzhong, "guangdong-tuidaohu": guangdong, "taiwan-16": taiwan16}
