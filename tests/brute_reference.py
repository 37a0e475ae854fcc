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
    kind: str  # pung | kong | added-kong | concealed-kong
    tile: str
    from_seat: int | None = None

    @property
    def size(self) -> int:
        return 3 if self.kind == "pung" else 4


def parse_meld(text: str) -> Meld:
    words = text.split()
    (tile,) = parse(words[1])
    from_seat = int(words[3]) if len(words) == 4 and words[2] == "from" else None
    if words[0] not in ("pung", "kong", "added-kong", "concealed-kong") or len(words) not in (2, 4):
        raise ValueError(f"cannot read the meld {text!r}")
    return Meld(words[0], tile, from_seat)


@dataclass
class Reading:
    kind: str  # standard | seven_pairs | thirteen
    tiles: list[str]  # every concrete tile of the hand, melds included
    groups: list[tuple[str, ...]] = field(default_factory=list)  # standard: every set and the pair


def readings(concealed: list[str], melds: list[Meld]) -> Iterator[Reading]:
    """Every reading of 14 concrete tiles (``concealed`` with the winning tile, plus ``melds``)."""
    every = concealed + [m.tile for m in melds for _ in range(m.size)]
    counts = Counter(concealed)
    for split in _splits(counts, 4 - len(melds)):
        yield Reading("standard", every, split + [(m.tile,) * m.size for m in melds])
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


SCORERS = {"hongzhong": hongzhong, "guangdong-tuidaohu": guangdong}
