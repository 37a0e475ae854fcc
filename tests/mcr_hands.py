"""A seeded generator of legal 国标麻将 (MCR) winning hands, for the oracle test.

Every hand is a complete winning shape (four sets and a pair, or one of the
special shapes: 七对, 连七对, 十三幺, 全不靠, 七星不靠, 组合龙 with a set and a
pair) together with the facts the scoring needs: declared melds (claimed
chows/pungs/kongs with who offered them, concealed kongs), the concealed
tiles held before the win, the winning tile, self-draw or discard, 和绝张 (the
4th tile), 杠上开花 / 抢杠和 ("about kong"), 妙手回春 / 海底捞月 ("wall last"),
flowers (0–8), seat wind and prevalent wind.

Only combinations that can happen in play are produced, and only those whose
facts both calculators read the same way (PyMahjongGB silently corrects
impossible flags; we never give it one):

* no tile more than 4 times; a kong is always declared (concealed or melded);
* the winning tile is one of the tiles held, never a tile of a declared meld;
* 和绝张 only when the hand holds no other copy of the winning tile (the other
  three are then visible: in the winner's melds, or discarded / melded by
  others); when the winner's own melds show three copies it is always set;
* 杠上开花 only self-drawn with at least one kong declared; 抢杠和 only on a
  discard-like win of a tile the hand holds nowhere else (the other three are in
  the robbed pung, so 和绝张 is set too: the rule book says 抢杠和 不计和绝张);
  neither is combined with the last tile of the wall (no kong is made on it);
* 全求人 / special shapes / "concealed" fans are built with the exposure they need.

:func:`random_hand` draws an unrestricted hand; :func:`hand_for` builds a hand
meant to contain one fan (keyed by the English name PyMahjongGB uses); the
builder is by construction, not by asking the oracle, so a hand whose target fan
is absorbed by a bigger one (不计) is still a legal test hand. :func:`hands`
yields a reproducible mix for a seed.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace

# Tile kinds as the engine numbers them (mjframework.core.tiles): 0–8 万, 9–17 筒,
# 18–26 索/条, 27–30 东南西北, 31 白, 32 发, 33 中.
EAST, SOUTH, WEST, NORTH, WHITE, GREEN, RED = 27, 28, 29, 30, 31, 32, 33
WINDS = (EAST, SOUTH, WEST, NORTH)
DRAGONS = (WHITE, GREEN, RED)
HONORS = WINDS + DRAGONS
ALL_KINDS = tuple(range(34))
SUITS = (0, 1, 2)

# PyMahjongGB tile codes: W 万, B 筒 (dots), T 条 (bamboo), F1–F4 winds E S W N,
# J1 中, J2 发, J3 白.
_PMG_SUIT = "WBT"
_PMG_HONOR = ("F1", "F2", "F3", "F4", "J3", "J2", "J1")


def pmg_code(t: int) -> str:
    """PyMahjongGB's code of an engine tile kind."""
    if t >= 27:
        return _PMG_HONOR[t - 27]
    return f"{_PMG_SUIT[t // 9]}{t % 9 + 1}"


def tile(suit: int, rank: int) -> int:
    return suit * 9 + rank - 1


def is_honor(t: int) -> bool:
    return t >= 27


def rank(t: int) -> int:
    return t % 9 + 1


def suit(t: int) -> int:
    return 3 if t >= 27 else t // 9


def is_terminal(t: int) -> bool:
    return t < 27 and rank(t) in (1, 9)


def is_t_or_h(t: int) -> bool:
    return t >= 27 or rank(t) in (1, 9)


# A set: ("chow", lowest tile) | ("pung", tile) | ("kong", tile).
SetT = tuple[str, int]


def set_tiles(s: SetT) -> list[int]:
    kind, t = s
    if kind == "chow":
        return [t, t + 1, t + 2]
    return [t] * (4 if kind == "kong" else 3)


ALL_CHOWS = [("chow", tile(s, r)) for s in SUITS for r in range(1, 8)]
ALL_PUNGS = [("pung", t) for t in ALL_KINDS]


@dataclass(frozen=True)
class MeldSpec:
    """A declared meld. ``offer``: for a chow, which of its 3 tiles was claimed (1–3);
    for a pung / melded kong, who offered it relative to the winner (1 left/上家,
    2 opposite, 3 right/下家); 0 for a concealed kong. ``added``: a melded kong made
    by adding to a claimed pung (加杠)."""

    kind: str  # chow | pung | kong | concealed-kong
    tile: int  # lowest tile
    offer: int
    added: bool = False

    @property
    def tiles(self) -> list[int]:
        if self.kind == "chow":
            return [self.tile, self.tile + 1, self.tile + 2]
        return [self.tile] * (3 if self.kind == "pung" else 4)

    @property
    def claimed(self) -> bool:
        return self.kind != "concealed-kong"


@dataclass(frozen=True)
class MCRHand:
    melds: tuple[MeldSpec, ...]
    concealed: tuple[int, ...]  # held before the winning tile, sorted
    win_tile: int
    self_drawn: bool = False
    fourth_tile: bool = False
    about_kong: bool = False
    wall_last: bool = False
    flowers: int = 0
    seat_wind: int = 0  # 0..3 = E S W N
    prevalent_wind: int = 0
    built_for: str = "random"
    shape: str = "standard"  # standard | special

    def all_tiles(self) -> list[int]:
        out = [*self.concealed, self.win_tile]
        for m in self.melds:
            out.extend(m.tiles)
        return out

    def pmg_args(self) -> dict:
        """Keyword arguments of ``MahjongGB.MahjongFanCalculator``."""
        pack = []
        for m in self.melds:
            if m.kind == "chow":
                pack.append(("CHI", pmg_code(m.tile + 1), m.offer))
            elif m.kind == "pung":
                pack.append(("PENG", pmg_code(m.tile), m.offer))
            else:
                pack.append(("GANG", pmg_code(m.tile), m.offer if m.kind == "kong" else 0))
        return dict(
            pack=tuple(pack), hand=tuple(pmg_code(t) for t in self.concealed),
            winTile=pmg_code(self.win_tile), flowerCount=self.flowers,
            isSelfDrawn=self.self_drawn, is4thTile=self.fourth_tile,
            isAboutKong=self.about_kong, isWallLast=self.wall_last,
            seatWind=self.seat_wind, prevalentWind=self.prevalent_wind,
        )

    def describe(self) -> str:
        """A one-line, human-readable form (for failure messages and the contract notes)."""
        from mjframework.core.tiles import format_tiles

        parts = [format_tiles(self.concealed, sort=True) or "-", f"win {format_tiles([self.win_tile])}"]
        for m in self.melds:
            what = m.kind + ("(added)" if m.added else "")
            parts.append(f"[{what} {format_tiles(m.tiles)} offer {m.offer}]")
        flags = [n for n, v in (("self-drawn", self.self_drawn), ("4th-tile", self.fourth_tile),
                                ("about-kong", self.about_kong), ("wall-last", self.wall_last)) if v]
        if self.flowers:
            flags.append(f"{self.flowers} flowers")
        flags.append(f"seat {'ESWN'[self.seat_wind]} prevalent {'ESWN'[self.prevalent_wind]}")
        return " ".join(parts) + " | " + ", ".join(flags)


@dataclass
class Plan:
    """What a builder asks for; :func:`_finish` turns it into a legal :class:`MCRHand`."""

    sets: list[SetT] = field(default_factory=list)
    pair: int | None = None
    special: list[int] | None = None  # 14 tiles of a special shape (no melds, except 组合龙)
    knitted_rest: bool = False  # 组合龙 + a set + a pair: the set may be claimed
    claimed: tuple[int, int] = (0, 4)  # how many sets are claimed (min, max)
    claim_p: float = 0.35
    kong_p: float = 0.08  # chance a pung becomes a kong
    concealed_kong_p: float = 0.4
    self_drawn: bool | None = None
    win: str | None = None  # pair | edge | closed | chow | pung | None (any held tile)
    win_tile: int | None = None
    fourth_tile: bool | None = None
    about_kong: bool | None = None
    wall_last: bool | None = None
    flowers: int | None = None
    seat_wind: int | None = None
    prevalent_wind: int | None = None
    keep_pungs: bool = False  # 暗刻 fans: declared melds never include the pungs
    kong_order: tuple[str, ...] | None = None  # kinds of the kongs, in set order (else random)


def _counts_ok(tiles: list[int]) -> bool:
    return all(n <= 4 for n in Counter(tiles).values())


def _flowers(rng: random.Random) -> int:
    return rng.choices(range(9), weights=(40, 20, 12, 8, 6, 5, 4, 3, 2))[0]


def _finish(rng: random.Random, plan: Plan, built_for: str) -> MCRHand | None:
    """Choose melds, winning tile and flags for ``plan``; None when the plan is not legal."""
    seat = plan.seat_wind if plan.seat_wind is not None else rng.randrange(4)
    prevalent = plan.prevalent_wind if plan.prevalent_wind is not None else rng.randrange(4)
    flowers = plan.flowers if plan.flowers is not None else _flowers(rng)
    melds: list[MeldSpec] = []
    if plan.special is not None:
        held = list(plan.special)
        if plan.knitted_rest and plan.sets:
            s = plan.sets[0]
            if rng.random() < plan.claim_p and plan.claimed[1] > 0:
                melds.append(_declare(rng, s, plan))
                held = [*held[:9], plan.pair, plan.pair]  # type: ignore[list-item]
            else:
                held = held[:9] + set_tiles(s) + [plan.pair, plan.pair]  # type: ignore[list-item]
        if not _counts_ok(held + [t for m in melds for t in m.tiles]):
            return None
        shape = "special"
    else:
        sets = list(plan.sets)
        if plan.pair is None or len(sets) != 4:
            return None
        # Some pungs become kongs (each kong is declared).
        sets = [("kong", t) if k == "pung" and rng.random() < plan.kong_p else (k, t) for k, t in sets]
        all_t = [t for s in sets for t in set_tiles(s)] + [plan.pair, plan.pair]
        if not _counts_ok(all_t):
            return None
        lo, hi = plan.claimed
        order = list(range(4))
        rng.shuffle(order)
        # Kongs are always declared: melded (claimed) or concealed.
        kong_kinds: dict[int, str] = {}
        for i in order:
            if sets[i][0] == "kong":
                concealed = hi == 0 or plan.keep_pungs or rng.random() < plan.concealed_kong_p
                kong_kinds[i] = "concealed-kong" if concealed else "kong"
        if plan.kong_order is not None:
            ks = [i for i in range(4) if sets[i][0] == "kong"]
            kong_kinds.update(zip(ks, plan.kong_order, strict=False))
        melded_kongs = sum(k == "kong" for k in kong_kinds.values())
        for i in order:
            if melded_kongs > hi and kong_kinds.get(i) == "kong":
                kong_kinds[i] = "concealed-kong"
                melded_kongs -= 1
        candidates = [i for i in order if sets[i][0] != "kong"
                      and not (plan.keep_pungs and sets[i][0] == "pung")]
        want = sum(rng.random() < plan.claim_p for _ in candidates)
        n_claim = min(max(want, lo - melded_kongs), hi - melded_kongs, len(candidates))
        if melded_kongs + n_claim < lo:
            return None
        declared = set(kong_kinds) | set(candidates[:n_claim])
        held = [plan.pair, plan.pair]
        for i in range(4):
            if i in declared:
                k, t = sets[i]
                if k == "kong":
                    concealed = kong_kinds[i] == "concealed-kong"
                    offer = 0 if concealed else rng.randint(1, 3)
                    added = rng.random() < 0.3 and not concealed  # 加杠: only a melded kong
                    melds.append(MeldSpec(kong_kinds[i], t, offer, added=added))
                else:
                    melds.append(_declare(rng, sets[i], plan))
            else:
                held.extend(set_tiles(sets[i]))
        shape = "standard"
        if len(held) + 3 * len(melds) != 14:
            return None
    held.sort()
    win = _choose_win(rng, plan, held, melds)
    if win is None:
        return None
    concealed = list(held)
    concealed.remove(win)
    full = Counter(held + [t for m in melds for t in m.tiles])
    in_melds = sum(m.tiles.count(win) for m in melds)
    others_held = held.count(win) - 1
    has_kong = any(m.kind in ("kong", "concealed-kong") for m in melds)

    self_drawn = plan.self_drawn if plan.self_drawn is not None else rng.random() < 0.45
    about_kong = plan.about_kong if plan.about_kong is not None else rng.random() < 0.08
    wall_last = plan.wall_last if plan.wall_last is not None else rng.random() < 0.06
    if about_kong:
        if self_drawn and not has_kong:
            if plan.about_kong:
                return None
            about_kong = False
        if not self_drawn and (in_melds or others_held):
            if plan.about_kong:
                return None
            about_kong = False
    if about_kong and wall_last:
        if plan.wall_last:
            about_kong = False
        else:
            wall_last = False
    if about_kong and not self_drawn:
        fourth = True  # robbing a kong: the other three are in the robbed pung
    elif in_melds == 3:
        fourth = True
    elif others_held:
        fourth = False
        if plan.fourth_tile:
            return None
    else:
        fourth = plan.fourth_tile if plan.fourth_tile is not None else rng.random() < 0.15
    if full[win] > 4:
        return None
    return MCRHand(
        melds=tuple(melds), concealed=tuple(concealed), win_tile=win, self_drawn=self_drawn,
        fourth_tile=fourth, about_kong=about_kong, wall_last=wall_last, flowers=flowers,
        seat_wind=seat, prevalent_wind=prevalent, built_for=built_for, shape=shape,
    )


def _declare(rng: random.Random, s: SetT, plan: Plan) -> MeldSpec:
    k, t = s
    if k == "chow":
        return MeldSpec("chow", t, rng.randint(1, 3))
    if k == "pung":
        return MeldSpec("pung", t, rng.randint(1, 3))
    if plan.claimed[1] == 0 or rng.random() < plan.concealed_kong_p:
        return MeldSpec("concealed-kong", t, 0)
    return MeldSpec("kong", t, rng.randint(1, 3), added=rng.random() < 0.3)


def _choose_win(rng: random.Random, plan: Plan, held: list[int], melds: list[MeldSpec]) -> int | None:
    if plan.win_tile is not None:
        return plan.win_tile if plan.win_tile in held else None
    options = list(held)
    if plan.win == "pair" and plan.pair is not None:
        options = [plan.pair]
    elif plan.win in ("edge", "closed", "chow"):
        declared = Counter()
        for m in melds:
            declared[(m.kind if m.kind != "concealed-kong" else "kong", m.tile)] += 1
        opts = []
        for s in plan.sets:
            if s[0] != "chow" or declared[s] > 0:
                if declared[s] > 0:
                    declared[s] -= 1
                continue
            t = s[1]
            if plan.win == "closed":
                opts.append(t + 1)
            elif plan.win == "edge":
                if rank(t) == 1:
                    opts.append(t + 2)
                elif rank(t) == 7:
                    opts.append(t)
            else:
                opts.extend([t, t + 1, t + 2])
        options = [t for t in opts if t in held]
    elif plan.win == "pung":
        options = [s[1] for s in plan.sets if s[0] == "pung" and held.count(s[1]) >= 3]
    if plan.fourth_tile:
        options = [t for t in options if held.count(t) == 1]
    if plan.about_kong and plan.self_drawn is False:
        in_melds = {t for m in melds for t in m.tiles}
        options = [t for t in options if held.count(t) == 1 and t not in in_melds]
    if not options:
        return None
    return rng.choice(options)


# --- random sets -------------------------------------------------------------

def _pick_sets(rng: random.Random, n: int, pool: list[SetT], used: list[int], chow_w: float = 0.55,
               tries: int = 40) -> list[SetT] | None:
    chows = [s for s in pool if s[0] == "chow"]
    pungs = [s for s in pool if s[0] == "pung"]
    out: list[SetT] = []
    c = Counter(used)
    for _ in range(tries):
        if len(out) == n:
            return out
        src = chows if (chows and (not pungs or rng.random() < chow_w)) else pungs
        if not src:
            return None
        s = rng.choice(src)
        ts = set_tiles(s)
        if all(c[t] + ts.count(t) <= 4 for t in set(ts)):
            if s[0] == "pung" and c[s[1]] + 3 > 4:
                continue
            out.append(s)
            c.update(ts)
    return out if len(out) == n else None


def _fill(rng: random.Random, core: list[SetT], pair: int | None, *,
          group_ok: Callable[[SetT], bool] = lambda s: True,
          pair_ok: Callable[[int], bool] = lambda t: True,
          chow_w: float = 0.55) -> tuple[list[SetT], int] | None:
    """``core`` plus random sets (all satisfying ``group_ok``) up to four, and a pair."""
    used = [t for s in core for t in set_tiles(s)]
    if pair is not None:
        used += [pair, pair]
    pool = [s for s in ALL_CHOWS + ALL_PUNGS if group_ok(s)]
    rest = _pick_sets(rng, 4 - len(core), pool, used, chow_w)
    if rest is None:
        return None
    sets = core + rest
    if pair is None:
        c = Counter(t for s in sets for t in set_tiles(s))
        cands = [t for t in ALL_KINDS if pair_ok(t) and c[t] <= 2]
        if not cands:
            return None
        pair = rng.choice(cands)
    rng.shuffle(sets)
    return sets, pair


def _plan_from(rng: random.Random, core: list[SetT], pair: int | None = None, **kw) -> Plan | None:
    group_ok = kw.pop("group_ok", lambda s: True)
    pair_ok = kw.pop("pair_ok", lambda t: True)
    chow_w = kw.pop("chow_w", 0.55)
    got = _fill(rng, core, pair, group_ok=group_ok, pair_ok=pair_ok, chow_w=chow_w)
    if got is None:
        return None
    return Plan(sets=got[0], pair=got[1], **kw)


def _tiles_ok(pred: Callable[[int], bool]) -> Callable[[SetT], bool]:
    return lambda s: all(pred(t) for t in set_tiles(s))


def _perm(rng: random.Random) -> list[int]:
    p = list(SUITS)
    rng.shuffle(p)
    return p


# --- special shapes ----------------------------------------------------------

KNITTED = ((1, 4, 7), (2, 5, 8), (3, 6, 9))


def _knitted_tiles(rng: random.Random) -> list[int]:
    """The 9 tiles of a 组合龙 (147 / 258 / 369 in three different suits)."""
    p = _perm(rng)
    return [tile(p[i], r) for i in range(3) for r in KNITTED[i]]


def _seven_pairs(rng: random.Random, pred: Callable[[int], bool] = lambda t: True,
                 allow_four: bool = True) -> list[int] | None:
    kinds = [t for t in ALL_KINDS if pred(t)]
    out: list[int] = []
    c: Counter[int] = Counter()
    for _ in range(60):
        if len(out) == 14:
            return out
        t = rng.choice(kinds)
        if c[t] == 2 and not (allow_four and rng.random() < 0.3):
            continue
        if c[t] >= 4:
            continue
        out += [t, t]
        c[t] += 2
    return out if len(out) == 14 else None


def _honors_knitted(rng: random.Random, n_honors: int) -> list[int]:
    kn = _knitted_tiles(rng)
    return sorted(rng.sample(kn, 14 - n_honors) + rng.sample(HONORS, n_honors))


# --- one builder per fan -------------------------------------------------------

Builder = Callable[[random.Random], Plan | None]
FANS: dict[str, tuple[int, str, Builder]] = {}


def fan(value: int, en: str, zh: str) -> Callable[[Builder], Builder]:
    def deco(fn: Builder) -> Builder:
        FANS[en] = (value, zh, fn)
        return fn
    return deco


def _chow_in(s: int, r: int) -> SetT:
    return ("chow", tile(s, r))


def _pung(t: int) -> SetT:
    return ("pung", t)


@fan(88, "Big Four Winds", "大四喜")
def _(rng):
    return _plan_from(rng, [_pung(w) for w in WINDS])


@fan(88, "Big Three Dragons", "大三元")
def _(rng):
    return _plan_from(rng, [_pung(d) for d in DRAGONS])


GREEN_TILES = {tile(2, r) for r in (2, 3, 4, 6, 8)} | {GREEN}


@fan(88, "All Green", "绿一色")
def _(rng):
    return _plan_from(rng, [], group_ok=_tiles_ok(lambda t: t in GREEN_TILES),
                      pair_ok=lambda t: t in GREEN_TILES)


@fan(88, "Nine Gates", "九莲宝灯")
def _(rng):
    s = rng.choice(SUITS)
    base = [tile(s, 1)] * 3 + [tile(s, r) for r in range(2, 9)] + [tile(s, 9)] * 3
    extra = tile(s, rng.randint(1, 9))
    return Plan(special=sorted([*base, extra]), win_tile=extra, claimed=(0, 0))


@fan(88, "Four Kongs", "四杠")
def _(rng):
    p = _plan_from(rng, [], group_ok=lambda s: s[0] == "pung", chow_w=0.0)
    if p:
        p.sets = [("kong", t) for _, t in p.sets]
    return p


@fan(88, "Seven Shifted Pairs", "连七对")
def _(rng):
    s, start = rng.choice(SUITS), rng.randint(1, 3)
    return Plan(special=[tile(s, r) for r in range(start, start + 7) for _ in (0, 1)], claimed=(0, 0))


@fan(88, "Thirteen Orphans", "十三幺")
def _(rng):
    orphans = [t for t in ALL_KINDS if is_t_or_h(t)]
    return Plan(special=sorted([*orphans, rng.choice(orphans)]), claimed=(0, 0))


@fan(64, "All Terminals", "清幺九")
def _(rng):
    return _plan_from(rng, [], group_ok=lambda s: s[0] == "pung" and is_terminal(s[1]),
                      pair_ok=is_terminal, chow_w=0.0)


@fan(64, "Little Four Winds", "小四喜")
def _(rng):
    ws = list(WINDS)
    rng.shuffle(ws)
    return _plan_from(rng, [_pung(w) for w in ws[:3]], ws[3])


@fan(64, "Little Three Dragons", "小三元")
def _(rng):
    ds = list(DRAGONS)
    rng.shuffle(ds)
    return _plan_from(rng, [_pung(d) for d in ds[:2]], ds[2])


@fan(64, "All Honors", "字一色")
def _(rng):
    return _plan_from(rng, [], group_ok=lambda s: s[0] == "pung" and is_honor(s[1]), pair_ok=is_honor,
                      chow_w=0.0)


@fan(64, "Four Concealed Pungs", "四暗刻")
def _(rng):
    p = _plan_from(rng, [], group_ok=lambda s: s[0] == "pung", chow_w=0.0, claimed=(0, 0),
                   keep_pungs=True)
    if p:
        if rng.random() < 0.5:
            p.self_drawn = True
        else:
            p.self_drawn, p.win = False, "pair"
    return p


@fan(64, "Pure Terminal Chows", "一色双龙会")
def _(rng):
    s = rng.choice(SUITS)
    return _plan_from(rng, [_chow_in(s, 1), _chow_in(s, 1), _chow_in(s, 7), _chow_in(s, 7)], tile(s, 5))


@fan(48, "Quadruple Chow", "一色四同顺")
def _(rng):
    c = rng.choice(ALL_CHOWS)
    return _plan_from(rng, [c] * 4)


@fan(48, "Four Pure Shifted Pungs", "一色四节高")
def _(rng):
    s, r = rng.choice(SUITS), rng.randint(1, 6)
    return _plan_from(rng, [_pung(tile(s, r + i)) for i in range(4)])


@fan(32, "Four Pure Shifted Chows", "一色四步高")
def _(rng):
    s = rng.choice(SUITS)
    d = rng.choice((1, 2))
    r = rng.randint(1, 7 - 3 * d)
    return _plan_from(rng, [_chow_in(s, r + i * d) for i in range(4)])


@fan(32, "Three Kongs", "三杠")
def _(rng):
    p = _plan_from(rng, [], group_ok=lambda s: s[0] == "pung", chow_w=0.0)
    if p:
        p.sets = [("kong", t) for _, t in p.sets[:3]] + [p.sets[3]]
        p.kong_p = 0.0
        if rng.random() < 0.6:
            got = _pick_sets(rng, 1, ALL_CHOWS, [t for s in p.sets[:3] for t in set_tiles(s)] + [p.pair] * 2)
            if got:
                p.sets[3] = got[0]
    return p


@fan(32, "All Terminals and Honors", "混幺九")
def _(rng):
    core = [_pung(rng.choice(HONORS)), _pung(rng.choice([t for t in ALL_KINDS if is_terminal(t)]))]
    if core[0] == core[1]:
        return None
    return _plan_from(rng, core, group_ok=lambda s: s[0] == "pung" and is_t_or_h(s[1]), pair_ok=is_t_or_h,
                      chow_w=0.0)


@fan(24, "Seven Pairs", "七对")
def _(rng):
    sp = _seven_pairs(rng)
    return Plan(special=sp, claimed=(0, 0)) if sp else None


@fan(24, "Greater Honors and Knitted Tiles", "七星不靠")
def _(rng):
    return Plan(special=_honors_knitted(rng, 7), claimed=(0, 0))


@fan(24, "All Even Pungs", "全双刻")
def _(rng):
    ok = lambda t: t < 27 and rank(t) % 2 == 0  # noqa: E731
    return _plan_from(rng, [], group_ok=lambda s: s[0] == "pung" and ok(s[1]), pair_ok=ok, chow_w=0.0)


@fan(24, "Full Flush", "清一色")
def _(rng):
    s = rng.choice(SUITS)
    ok = lambda t: suit(t) == s  # noqa: E731
    return _plan_from(rng, [], group_ok=_tiles_ok(ok), pair_ok=ok, chow_w=0.7)


@fan(24, "Pure Triple Chow", "一色三同顺")
def _(rng):
    return _plan_from(rng, [rng.choice(ALL_CHOWS)] * 3)


@fan(24, "Pure Shifted Pungs", "一色三节高")
def _(rng):
    s, r = rng.choice(SUITS), rng.randint(1, 7)
    return _plan_from(rng, [_pung(tile(s, r + i)) for i in range(3)])


def _range_fan(lo: int, hi: int) -> Builder:
    ok = lambda t: t < 27 and lo <= rank(t) <= hi  # noqa: E731
    return lambda rng: _plan_from(rng, [], group_ok=_tiles_ok(ok), pair_ok=ok)


fan(24, "Upper Tiles", "全大")(_range_fan(7, 9))
fan(24, "Middle Tiles", "全中")(_range_fan(4, 6))
fan(24, "Lower Tiles", "全小")(_range_fan(1, 3))


@fan(16, "Pure Straight", "清龙")
def _(rng):
    s = rng.choice(SUITS)
    return _plan_from(rng, [_chow_in(s, 1), _chow_in(s, 4), _chow_in(s, 7)])


@fan(16, "Three-Suited Terminal Chows", "三色双龙会")
def _(rng):
    a, b, c = _perm(rng)
    return _plan_from(rng, [_chow_in(a, 1), _chow_in(a, 7), _chow_in(b, 1), _chow_in(b, 7)], tile(c, 5))


@fan(16, "Pure Shifted Chows", "一色三步高")
def _(rng):
    s, d = rng.choice(SUITS), rng.choice((1, 2))
    r = rng.randint(1, 7 - 2 * d)
    return _plan_from(rng, [_chow_in(s, r + i * d) for i in range(3)])


@fan(16, "All Five", "全带五")
def _(rng):
    has5 = lambda s: any(t < 27 and rank(t) == 5 for t in set_tiles(s))  # noqa: E731
    return _plan_from(rng, [], group_ok=has5, pair_ok=lambda t: t < 27 and rank(t) == 5)


@fan(16, "Triple Pung", "三同刻")
def _(rng):
    r = rng.randint(1, 9)
    return _plan_from(rng, [_pung(tile(s, r)) for s in SUITS])


@fan(16, "Three Concealed Pungs", "三暗刻")
def _(rng):
    p = _plan_from(rng, [_pung(t) for t in rng.sample(ALL_KINDS, 3)], keep_pungs=True)
    if p:
        p.self_drawn = True if rng.random() < 0.6 else None
        if p.self_drawn is None:
            p.self_drawn, p.win = False, "pair"
    return p


@fan(12, "Lesser Honors and Knitted Tiles", "全不靠")
def _(rng):
    return Plan(special=_honors_knitted(rng, rng.randint(5, 6)), claimed=(0, 0))


@fan(12, "Knitted Straight", "组合龙")
def _(rng):
    if rng.random() < 0.15:  # 全不靠 with a complete knitted straight
        kn = _knitted_tiles(rng)
        return Plan(special=sorted(kn + rng.sample(HONORS, 5)), claimed=(0, 0))
    kn = _knitted_tiles(rng)
    got = _fill(rng, [], None)
    if got is None:
        return None
    s, pair = got[0][0], got[1]
    if not _counts_ok(kn + set_tiles(s) + [pair, pair]):
        return None
    return Plan(special=kn, knitted_rest=True, sets=[s], pair=pair, claimed=(0, 1), claim_p=0.4)


@fan(12, "Upper Four", "大于五")
def _(rng):
    return _range_fan(6, 9)(rng)


@fan(12, "Lower Four", "小于五")
def _(rng):
    return _range_fan(1, 4)(rng)


@fan(12, "Big Three Winds", "三风刻")
def _(rng):
    return _plan_from(rng, [_pung(w) for w in rng.sample(WINDS, 3)], pair_ok=lambda t: t not in WINDS)


@fan(8, "Mixed Straight", "花龙")
def _(rng):
    a, b, c = _perm(rng)
    return _plan_from(rng, [_chow_in(a, 1), _chow_in(b, 4), _chow_in(c, 7)])


REVERSIBLE = {tile(1, r) for r in (1, 2, 3, 4, 5, 8, 9)} | {tile(2, r) for r in (2, 4, 5, 6, 8, 9)} | {WHITE}


@fan(8, "Reversible Tiles", "推不倒")
def _(rng):
    return _plan_from(rng, [], group_ok=_tiles_ok(lambda t: t in REVERSIBLE),
                      pair_ok=lambda t: t in REVERSIBLE)


@fan(8, "Mixed Triple Chow", "三色三同顺")
def _(rng):
    r = rng.randint(1, 7)
    return _plan_from(rng, [_chow_in(s, r) for s in SUITS])


@fan(8, "Mixed Shifted Pungs", "三色三节高")
def _(rng):
    p, r = _perm(rng), rng.randint(1, 7)
    return _plan_from(rng, [_pung(tile(p[i], r + i)) for i in range(3)])


@fan(8, "Chicken Hand", "无番和")
def _(rng):
    # Chows and 2–8 pungs across three suits with an honor pair that is neither wind of the
    # winner, at least one claimed set, won on a discard: most such hands score nothing.
    a, b, c = _perm(rng)
    core = [_chow_in(a, rng.randint(2, 6)), _chow_in(b, rng.randint(2, 6)), _pung(tile(c, rng.randint(2, 8)))]
    pair = rng.choice((WEST, NORTH))
    return _plan_from(rng, core, pair, group_ok=lambda s: s[0] == "chow" and 2 <= rank(s[1]) <= 6,
                      claimed=(2, 3), self_drawn=False, seat_wind=rng.choice((0, 1)),
                      prevalent_wind=rng.choice((0, 1)), win="chow", about_kong=False, wall_last=False,
                      fourth_tile=False, kong_p=0.0)


def _flagged(**flags) -> Builder:
    def build(rng):
        got = _fill(rng, [], None)
        if got is None:
            return None
        p = Plan(sets=got[0], pair=got[1], **flags)
        if flags.get("about_kong") and flags.get("self_drawn"):
            i = next((i for i, s in enumerate(p.sets) if s[0] == "pung"), None)
            if i is None:
                t = rng.choice(ALL_KINDS)
                if Counter(x for s in p.sets[1:] for x in set_tiles(s))[t] + 2 * (p.pair == t) > 0:
                    return None
                p.sets[0], i = ("kong", t), 0
            else:
                p.sets[i] = ("kong", p.sets[i][1])
        return p
    return build


fan(8, "Last Tile Draw", "妙手回春")(_flagged(self_drawn=True, wall_last=True, about_kong=False))
fan(8, "Last Tile Claim", "海底捞月")(_flagged(self_drawn=False, wall_last=True, about_kong=False))
fan(8, "Out with Replacement Tile", "杠上开花")(_flagged(self_drawn=True, about_kong=True, wall_last=False))
fan(8, "Robbing The Kong", "抢杠和")(_flagged(self_drawn=False, about_kong=True, wall_last=False))


@fan(6, "All Pungs", "碰碰和")
def _(rng):
    return _plan_from(rng, [], group_ok=lambda s: s[0] == "pung", chow_w=0.0, claimed=(1, 4))


@fan(6, "Half Flush", "混一色")
def _(rng):
    s = rng.choice(SUITS)
    ok = lambda t: suit(t) in (s, 3)  # noqa: E731
    return _plan_from(rng, [_pung(rng.choice(HONORS))], group_ok=_tiles_ok(ok), pair_ok=ok)


@fan(6, "Mixed Shifted Chows", "三色三步高")
def _(rng):
    p, r = _perm(rng), rng.randint(1, 5)
    return _plan_from(rng, [_chow_in(p[i], r + i) for i in range(3)])


@fan(6, "All Types", "五门齐")
def _(rng):
    a, b, c = _perm(rng)
    w, d = rng.choice(WINDS), rng.choice(DRAGONS)
    core = [rng.choice([s for s in ALL_CHOWS + ALL_PUNGS if s[1] < 27 and suit(s[1]) == x])
            for x in (a, b, c)]
    if rng.random() < 0.5:
        return _plan_from(rng, [*core, _pung(w)], d)
    return _plan_from(rng, [*core, _pung(d)], w)


@fan(6, "Melded Hand", "全求人")
def _(rng):
    return _plan_from(rng, [], claimed=(4, 4), kong_p=0.0, self_drawn=False, win="pair", about_kong=False)


@fan(6, "Two Concealed Kongs", "双暗杠")
def _(rng):
    p = _plan_from(rng, [_pung(t) for t in rng.sample(ALL_KINDS, 2)], kong_p=0.0)
    if p:
        ks = [i for i, s in enumerate(p.sets) if s[0] == "pung"][:2]
        p.sets = [("kong", s[1]) if i in ks else s for i, s in enumerate(p.sets)]
        p.concealed_kong_p = 1.0
    return p


@fan(6, "Two Dragons Pungs", "双箭刻")
def _(rng):
    return _plan_from(rng, [_pung(d) for d in rng.sample(DRAGONS, 2)], pair_ok=lambda t: t not in DRAGONS)


@fan(4, "Outside Hand", "全带幺")
def _(rng):
    return _plan_from(rng, [], group_ok=lambda s: any(is_t_or_h(t) for t in set_tiles(s)), pair_ok=is_t_or_h)


@fan(4, "Fully Concealed Hand", "不求人")
def _(rng):
    return _plan_from(rng, [], claimed=(0, 0), self_drawn=True, kong_p=0.03)


@fan(4, "Two Melded Kongs", "双明杠")
def _(rng):
    p = _plan_from(rng, [_pung(t) for t in rng.sample(ALL_KINDS, 2)], kong_p=0.0)
    if p:
        ks = [i for i, s in enumerate(p.sets) if s[0] == "pung"][:2]
        p.sets = [("kong", s[1]) if i in ks else s for i, s in enumerate(p.sets)]
        p.concealed_kong_p = 0.0
    return p


@fan(4, "Last Tile", "和绝张")
def _(rng):
    return _plan_from(rng, [], fourth_tile=True, about_kong=False)


@fan(2, "Dragon Pung", "箭刻")
def _(rng):
    return _plan_from(rng, [_pung(rng.choice(DRAGONS))])


@fan(2, "Prevalent Wind", "圈风刻")
def _(rng):
    w = rng.randrange(4)
    return _plan_from(rng, [_pung(WINDS[w])], prevalent_wind=w)


@fan(2, "Seat Wind", "门风刻")
def _(rng):
    w = rng.randrange(4)
    return _plan_from(rng, [_pung(WINDS[w])], seat_wind=w)


@fan(2, "Concealed Hand", "门前清")
def _(rng):
    return _plan_from(rng, [], claimed=(0, 0), self_drawn=False, kong_p=0.03)


@fan(2, "All Chows", "平和")
def _(rng):
    return _plan_from(rng, [], group_ok=lambda s: s[0] == "chow", pair_ok=lambda t: t < 27, chow_w=1.0)


@fan(2, "Tile Hog", "四归一")
def _(rng):
    c = rng.choice(ALL_CHOWS)
    t = c[1] + rng.randrange(3)
    core = [c, _pung(t)] if rng.random() < 0.5 else [c, c]
    pair = None if core[1][0] == "pung" else t
    return _plan_from(rng, core, pair, kong_p=0.0)


@fan(2, "Double Pung", "双同刻")
def _(rng):
    r, (a, b, _c) = rng.randint(1, 9), _perm(rng)
    return _plan_from(rng, [_pung(tile(a, r)), _pung(tile(b, r))])


@fan(2, "Two Concealed Pungs", "双暗刻")
def _(rng):
    p = _plan_from(rng, [_pung(t) for t in rng.sample(ALL_KINDS, 2)], keep_pungs=True)
    if p:
        p.self_drawn = True if rng.random() < 0.5 else None
    return p


@fan(2, "Concealed Kong", "暗杠")
def _(rng):
    p = _plan_from(rng, [("kong", rng.choice(ALL_KINDS))], kong_p=0.0)
    if p:
        p.concealed_kong_p = 1.0
    return p


@fan(2, "All Simples", "断幺")
def _(rng):
    ok = lambda t: not is_t_or_h(t)  # noqa: E731
    return _plan_from(rng, [], group_ok=_tiles_ok(ok), pair_ok=ok)


@fan(1, "Pure Double Chow", "一般高")
def _(rng):
    return _plan_from(rng, [rng.choice(ALL_CHOWS)] * 2)


@fan(1, "Mixed Double Chow", "喜相逢")
def _(rng):
    r, (a, b, _c) = rng.randint(1, 7), _perm(rng)
    return _plan_from(rng, [_chow_in(a, r), _chow_in(b, r)])


@fan(1, "Short Straight", "连六")
def _(rng):
    s, r = rng.choice(SUITS), rng.randint(1, 4)
    return _plan_from(rng, [_chow_in(s, r), _chow_in(s, r + 3)])


@fan(1, "Two Terminal Chows", "老少副")
def _(rng):
    s = rng.choice(SUITS)
    return _plan_from(rng, [_chow_in(s, 1), _chow_in(s, 7)])


@fan(1, "Pung of Terminals or Honors", "幺九刻")
def _(rng):
    return _plan_from(rng, [_pung(rng.choice([t for t in ALL_KINDS if is_t_or_h(t) and t not in DRAGONS]))])


@fan(1, "Melded Kong", "明杠")
def _(rng):
    p = _plan_from(rng, [("kong", rng.choice(ALL_KINDS))], kong_p=0.0)
    if p:
        p.concealed_kong_p = 0.0
    return p


@fan(1, "One Voided Suit", "缺一门")
def _(rng):
    void = rng.choice(SUITS)
    ok = lambda t: suit(t) != void  # noqa: E731
    return _plan_from(rng, [], group_ok=_tiles_ok(ok), pair_ok=ok)


@fan(1, "No Honors", "无字")
def _(rng):
    return _plan_from(rng, [], group_ok=_tiles_ok(lambda t: t < 27), pair_ok=lambda t: t < 27)


@fan(1, "Edge Wait", "边张")
def _(rng):
    s = rng.choice(SUITS)
    return _plan_from(rng, [_chow_in(s, rng.choice((1, 7)))], win="edge", claim_p=0.5)


@fan(1, "Closed Wait", "嵌张")
def _(rng):
    return _plan_from(rng, [rng.choice(ALL_CHOWS)], win="closed", claim_p=0.5)


@fan(1, "Single Wait", "单钓将")
def _(rng):
    return _plan_from(rng, [], win="pair", claim_p=0.5)


@fan(1, "Self-Drawn", "自摸")
def _(rng):
    return _plan_from(rng, [], self_drawn=True, about_kong=False, wall_last=False, claimed=(1, 4))


@fan(1, "Flower Tiles", "花牌")
def _(rng):
    return _plan_from(rng, [], flowers=rng.randint(1, 8))


@fan(5, "Concealed Kong and Melded Kong", "明暗杠")
def _(rng):
    p = _plan_from(rng, [_pung(t) for t in rng.sample(ALL_KINDS, 2)], kong_p=0.0)
    if p:
        ks = [i for i, s in enumerate(p.sets) if s[0] == "pung"][:2]
        p.sets = [("kong", s[1]) if i in ks else s for i, s in enumerate(p.sets)]
        p.kong_order = ("concealed-kong", "kong")
    return p


# The 81 fans of the 2006 rule book (花牌 included); PyMahjongGB's 明暗杠 is the 82nd entry.
RULE_BOOK_FANS = [en for en in FANS if en != "Concealed Kong and Melded Kong"]


def _random_plan(rng: random.Random) -> Plan | None:
    x = rng.random()
    rng_pair = rng.choice(ALL_KINDS)
    if x < 0.02:
        sp = _seven_pairs(rng)
        return Plan(special=sp, claimed=(0, 0)) if sp else None
    if x < 0.03:  # pairs packed in a few ranks: the hand also reads as four sets and a pair
        s, lo = rng.choice(SUITS), rng.randint(1, 5)
        sp = _seven_pairs(rng, lambda t: (suit(t) == s and lo <= rank(t) <= lo + 4) or t == rng_pair)
        return Plan(special=sp, claimed=(0, 0)) if sp else None
    if x < 0.035:
        return FANS["Thirteen Orphans"][2](rng)
    if x < 0.045:
        return FANS["Lesser Honors and Knitted Tiles"][2](rng)
    if x < 0.05:
        return FANS["Knitted Straight"][2](rng)
    chow_w = rng.choice((0.3, 0.55, 0.8))
    if rng.random() < 0.3:  # fewer suits: more flush-like and shifted fans
        keep = set(rng.sample((0, 1, 2, 3), rng.randint(1, 3)))
        ok = lambda t: suit(t) in keep  # noqa: E731
        return _plan_from(rng, [], group_ok=_tiles_ok(ok), pair_ok=ok, chow_w=chow_w,
                          claim_p=rng.choice((0.0, 0.3, 0.6)))
    return _plan_from(rng, [], chow_w=chow_w, claim_p=rng.choice((0.0, 0.3, 0.6)))


def _build(rng: random.Random, make: Builder, built_for: str, tries: int = 200) -> MCRHand:
    for _ in range(tries):
        plan = make(rng)
        if plan is None:
            continue
        h = _finish(rng, plan, built_for)
        if h is not None:
            return h
    raise RuntimeError(f"no legal hand for {built_for!r} in {tries} tries")


def random_hand(rng: random.Random) -> MCRHand:
    """An unrestricted legal winning hand."""
    return _build(rng, _random_plan, "random")


def hand_for(rng: random.Random, en: str) -> MCRHand:
    """A legal winning hand built to contain the fan ``en`` (PyMahjongGB's English name)."""
    return _build(rng, FANS[en][2], en)


def hands(seed: int, n_random: int, per_fan: int) -> Iterator[MCRHand]:
    """``per_fan`` hands for every fan (in table order), then ``n_random`` random hands."""
    rng = random.Random(seed)
    for en in FANS:
        for _ in range(per_fan):
            yield hand_for(rng, en)
    for _ in range(n_random):
        yield random_hand(rng)


def with_flags(h: MCRHand, **kw) -> MCRHand:
    return replace(h, **kw)


# --- our engine's input --------------------------------------------------------

def engine_input(h: MCRHand, seat: int | None = None):
    """``(Hand, WinContext)`` for mjframework's Evaluator with the mcr ruleset.

    The winner sits at ``seat`` (default: a seat that varies from hand to hand) and the dealer
    where the winner's seat wind puts it (seat wind 东 = the dealer), so the engine's default
    seat wind agrees; both winds are also given explicitly. A claimed meld's offer maps to the
    seat it came from: 1 = left (上家, seat − 1), 2 = opposite, 3 = right.
    """
    from mjframework.core.hand import Hand, Meld, WinContext

    if seat is None:
        seat = (h.win_tile + h.flowers + len(h.concealed)) % 4
    dealer = (seat - h.seat_wind) % 4
    melds = []
    for m in h.melds:
        if m.kind == "concealed-kong":
            melds.append(Meld("concealed-kong", tuple(m.tiles)))
        elif m.kind == "chow":
            melds.append(Meld("chow", tuple(m.tiles), (seat - 1) % 4))
        elif m.kind == "kong" and m.added:
            melds.append(Meld("added-kong", tuple(m.tiles), (seat - m.offer) % 4))
        else:
            melds.append(Meld(m.kind, tuple(m.tiles), (seat - m.offer) % 4))
    flags = set()
    if h.about_kong and h.self_drawn:
        flags.add("after_kong")
    if h.wall_last:
        flags.add("last_tile")
    if h.fourth_tile:
        flags.add("last_copy")
    if h.self_drawn:
        win_by, discarder = "self_draw", None
    else:
        win_by = "robbed_kong" if h.about_kong else "discard"
        discarder = (seat + 1 + (h.win_tile + h.flowers) % 3) % 4
    ctx = WinContext(seat=seat, dealer=dealer, win_by=win_by, discarder=discarder, flags=frozenset(flags),
                     seat_wind=EAST + h.seat_wind, prevalent_wind=EAST + h.prevalent_wind,
                     flowers=h.flowers)
    return Hand(tuple(h.concealed), tuple(melds), h.win_tile), ctx


def from_engine(hand, ctx, built_for: str = "example") -> MCRHand:
    """An :class:`MCRHand` from our engine's ``(Hand, WinContext)`` (e.g. a ruleset's example hand),
    so it can be given to PyMahjongGB. Offers come from the melds' ``from_seat`` relative to the
    winner (a chow's claimed tile does not matter to the score: 1)."""
    seat = ctx.seat
    melds = []
    for m in hand.melds:
        low = min(m.tiles)
        offer = (seat - m.from_seat) % 4 if m.from_seat is not None else 1
        offer = offer or 1
        if m.kind == "chow":
            melds.append(MeldSpec("chow", low, 1))
        elif m.kind == "concealed-kong":
            melds.append(MeldSpec("concealed-kong", low, 0))
        elif m.kind in ("kong", "added-kong"):
            melds.append(MeldSpec("kong", low, offer, added=m.kind == "added-kong"))
        else:
            melds.append(MeldSpec("pung", low, offer))
    seat_wind = (ctx.seat_wind - EAST) if ctx.seat_wind is not None else (seat - ctx.dealer) % 4
    prevalent = (ctx.prevalent_wind - EAST) if ctx.prevalent_wind is not None else 0
    return MCRHand(
        melds=tuple(melds), concealed=tuple(sorted(hand.concealed)), win_tile=hand.win_tile,
        self_drawn=ctx.win_by == "self_draw", fourth_tile="last_copy" in ctx.flags,
        about_kong="after_kong" in ctx.flags or ctx.win_by == "robbed_kong",
        wall_last="last_tile" in ctx.flags, flowers=ctx.flowers, seat_wind=seat_wind,
        prevalent_wind=prevalent, built_for=built_for,
        shape="standard",
    )
