"""Rule cards: a ruleset described from its YAML alone, with engine-found examples.

:func:`build_card` gathers everything a player needs on one page (tiles,
wildcard, claims, win rules, table procedure, scoring, plugins) and, for every
pattern, an *example hand found by the engine*: candidate hands are generated
generically from the pattern's typed definition (shape, wait, filters,
``when``) by a seeded random search, and the first hand whose score is exactly
that pattern alone is kept (for a *bonus* pattern, which never wins alone:
the bonus on top of one base win). When none is found within the budget (a
count of candidates, never a time), the hand with the smallest pattern set
containing it is shown instead, and flagged.

:func:`render_markdown` and :func:`render_html` print the card (HTML is one
self-contained file, tiles as emoji glyphs).
"""

from __future__ import annotations

import html
import random
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from ..core.errors import HandError
from ..core.hand import Hand, Meld, WinContext
from ..core.kinds import KONG_PAYMENT_KEYS, GroupKind, MeldKind
from ..core.tiles import (
    SUIT_LETTERS,
    Tile,
    format_tiles,
    is_honor,
    rank_of,
    suit_of,
    tile_code,
    tile_name,
)
from ..evaluate.scoring import Evaluator, Result
from ..rules.loader import load_ruleset, ruleset_ref
from ..rules.model import Count, GroupFilter, Pattern, Ruleset, Shape, TileFilter, Wait

SEAT_NAMES = ("庄家 dealer", "下家 right", "对家 opposite", "上家 left")
DEFAULT_BUDGET = 2000

# --------------------------------------------------------------------------
# examples


@dataclass
class Example:
    """A hand the engine scored for a pattern, with everything needed to re-score it."""

    pattern: str
    exact: bool  # the pattern is the only one scored
    names: list[str]
    points: int
    concealed: list[Tile]
    melds: list[Meld]
    win_tile: Tile | None  # None: an opening (dealt) hand
    wildcard: Tile | None
    seat: int
    win_by: str
    discarder: int | None
    flags: frozenset[str]
    tries: int
    result: Result | None = field(default=None, repr=False)
    flowers: int = 0
    flower_tiles: tuple[Tile, ...] = ()  # the flowers by name (a ruleset's example may name them)
    seat_wind: Tile | None = None
    prevalent_wind: Tile | None = None
    declared: bool = False  # the ruleset's own `example:` (not searched)
    seat_state: tuple[tuple[str, Any], ...] = ()  # the winner's per-seat state the pattern asks for

    @property
    def opening(self) -> bool:
        return self.win_tile is None

    def context(self) -> WinContext:
        return WinContext(seat=self.seat, win_by=self.win_by, discarder=self.discarder, flags=self.flags,
                          flowers=self.flowers, flower_tiles=self.flower_tiles, seat_wind=self.seat_wind,
                          prevalent_wind=self.prevalent_wind, seat_state=dict(self.seat_state))

    def hand(self) -> Hand:
        return Hand(tuple(self.concealed), tuple(self.melds), self.win_tile)

    def meld_args(self) -> list[str]:
        out = []
        for m in self.melds:
            tiles = format_tiles(m.tiles) if m.kind == "chow" else tile_code(m.tiles[0])
            out.append(f"{m.kind} {tiles}" + (f" from {m.from_seat}" if m.from_seat is not None else ""))
        return out

    def cli_args(self) -> list[str]:
        """Arguments for ``mj score RULESET ...`` that reproduce this example."""
        args = [format_tiles(sorted(self.concealed))]
        if self.opening:
            args.append("--opening")
        else:
            assert self.win_tile is not None  # (only an opening hand has none)
            args += ["--win-tile", tile_code(self.win_tile)]
        for m in self.meld_args():
            args += ["--melds", m]
        if self.wildcard is not None and not self.opening:
            args += ["--wildcard", tile_code(self.wildcard)]
        args += ["--seat", str(self.seat)]
        if self.win_by != "self_draw" and self.discarder is not None:
            args += ["--discard-from", str(self.discarder)]
            if self.win_by == "robbed_kong":
                args.append("--robbed-kong")
        for f in sorted(self.flags):
            args += ["--flag", f]
        if self.flower_tiles:
            args += ["--flowers", format_tiles(self.flower_tiles)]
        elif self.flowers:
            args += ["--flowers", str(self.flowers)]
        if self.seat_wind is not None:
            args += ["--seat-wind", tile_code(self.seat_wind)]
        if self.prevalent_wind is not None:
            args += ["--prevalent-wind", tile_code(self.prevalent_wind)]
        for k, v in self.seat_state:
            args += ["--seat-state", f"{k}={str(v).lower() if isinstance(v, bool) else v}"]
        return args

    def command(self, ruleset_id: str) -> str:
        def q(a: str) -> str:
            return f"'{a}'" if (" " in a or not a) else a
        return "mj score " + " ".join(q(a) for a in [ruleset_id, *self.cli_args()])


class _Searcher:
    """Generic candidate generation from a pattern's typed definition."""

    def __init__(self, ev: Evaluator, rng: random.Random) -> None:
        self.ev = ev
        self.rs: Ruleset = ev.ruleset
        self.rng = rng
        self.kinds = list(self.rs.tileset.kinds)
        self.copies = self.rs.tileset.copies
        self.win_by_allowed = [w for w in ("self_draw", "discard", "robbed_kong") if self.rs.win.allows(w)]
        self.suits = sorted({suit_of(t) for t in self.kinds if not is_honor(t)})
        # Each seat declares a void suit and may not win holding it (`declarations.void_suit.win_holding:
        # false`): only hands missing a suit can occur as wins.
        void = self.rs.flow.void_suit
        self.void_suit_needed = void is not None and not void.win_holding
        # What makes a win: shapes and waits of the shaped / wait patterns.
        self.win_bases: list[Shape | Wait] = []
        for p in self.rs.patterns_for("win"):
            for s in p.shapes:
                if s not in self.win_bases:
                    self.win_bases.append(s)
            for w in p.waits:
                if w not in self.win_bases:
                    self.win_bases.append(w)

    # -- tile pools --------------------------------------------------------

    def pool(self, p: Pattern) -> list[Tile]:
        kinds = [t for t in self.kinds
                 if (p.all_tiles is None or p.all_tiles.match(t))
                 and (p.no_tiles is None or not p.no_tiles.match(t))]
        r = self.rng.random()
        suits = sorted({suit_of(t) for t in kinds if not is_honor(t)})
        if suits and r < 0.45:
            keep = set(self.rng.sample(suits, 1 if r < 0.2 else min(2, len(suits))))
            narrowed = [t for t in kinds if is_honor(t) or suit_of(t) in keep]
            if self.rng.random() < 0.5:
                narrowed = [t for t in narrowed if not is_honor(t)]
            if len(narrowed) >= 3:
                kinds = narrowed
        elif self.rng.random() < 0.3:
            suited = [t for t in kinds if not is_honor(t)]
            if len(suited) >= 3:
                kinds = suited
        if self.void_suit_needed and p.phase == "win":
            # A hand still holding its declared void suit cannot win: leave one suit out.
            present = sorted({suit_of(t) for t in kinds if not is_honor(t)})
            if len(present) > 1 and len(present) == len(self.suits):
                gone = self.rng.choice(present)
                kinds = [t for t in kinds if is_honor(t) or suit_of(t) != gone]
        return kinds

    # -- shapes --------------------------------------------------------------

    def _meld(self, pool: list[Tile], counts: list[int], must: TileFilter | None = None,
              kind: str | None = None) -> list[Tile] | None:
        """A random meld from ``pool``; with ``must``, one holding a matching tile; ``kind``
        (seq / triplet) forces its kind."""
        for _ in range(20):
            t = self.rng.choice(pool)
            seq_ok = not is_honor(t) and rank_of(t) <= 7 and t + 1 in pool and t + 2 in pool
            if kind == GroupKind.SEQUENCE and not seq_ok:
                continue
            if kind == GroupKind.SEQUENCE or (kind is None and self.rng.random() < 0.55 and seq_ok):
                tiles = [t, t + 1, t + 2]
            else:
                tiles = [t, t, t]
            if must is not None and not any(must.match(x) for x in tiles):
                continue
            if all(counts[x] + tiles.count(x) <= self.copies for x in set(tiles)):
                for x in tiles:
                    counts[x] += 1
                return tiles
        return None

    def standard(self, shape: Shape, pool: list[Tile], p: Pattern, *, exposable: bool = True,
                 avoid: Tile | None = None
                 ) -> tuple[list[Tile], list[Meld]] | None:
        """Concealed tiles (win tile included) and exposed melds for melds + pair."""
        pool = [t for t in pool if t != avoid]
        if not pool:
            return None
        counts = [0] * 34
        melds: list[list[Tile]] = []
        # Group requirements steer the melds (most of the time: the plain draws find the rest).
        # (The random draws are only made for such patterns, so other patterns' searches stay as they were.)
        every = p.every_group if p.every_group is not None and self.rng.random() < 0.85 else None
        wanted: list[tuple[TileFilter | None, str | None]] = []
        if p.groups is not None and self.rng.random() < 0.85:
            gk = p.groups.kinds or frozenset((GroupKind.SEQUENCE, GroupKind.TRIPLET))
            gkind = (GroupKind.SEQUENCE if gk <= {GroupKind.SEQUENCE}
                     else GroupKind.TRIPLET if gk & {GroupKind.TRIPLET, GroupKind.KONG} else None)
            if gkind is not None:
                n = p.groups_count.min if p.groups_count is not None and p.groups_count.min else 1
                wanted = [(p.groups.holding, gkind)] * min(n, shape.melds)
        for i in range(shape.melds):
            must, kind = wanted[i] if i < len(wanted) else (None, None)
            m = self._meld(pool, counts, must if must is not None else every, kind)
            if m is None and (must is not None or every is not None):
                m = self._meld(pool, counts)
            if m is None:
                return None
            melds.append(m)
        pair: list[Tile] = []
        for _ in range(shape.pair):
            ppool = [t for t in pool if (p.pair is None or p.pair.match(t))
                     and (every is None or every.match(t))] or pool
            t = self.rng.choice(ppool)
            if counts[t] + 2 > self.copies:
                return None
            counts[t] += 2
            pair += [t, t]
        exposed: list[Meld] = []
        if exposable:
            claimed = dict(p.counts).get("claimed_melds")
            r = self.rng.random()
            n = 0 if r < 0.5 else self.rng.randint(0, len(melds))
            if claimed is not None and self.rng.random() < 0.7:
                n = min(len(melds), claimed.min if claimed.min is not None else 0)
            kept = []
            for i, m in enumerate(melds):
                em = self._expose(m, counts) if i < n else None
                if em is None:
                    kept.append(m)
                else:
                    exposed.append(em)
            melds = kept
        concealed = [t for m in melds for t in m] + pair
        return concealed, exposed

    def _expose(self, tiles: list[Tile], counts: list[int]) -> Meld | None:
        """The meld exposed (claimed or declared), or None if it must stay concealed."""
        src = (self.seat + 3) % self.rs.players  # claimed from the left-hand player
        if tiles[0] != tiles[1]:
            return Meld("chow", tuple(tiles), src) if self.rs.claims.chow else None
        kind = "pung"
        t = tiles[0]
        if counts[t] + 1 <= self.copies and self.rng.random() < 0.25:
            kind = self.rng.choice([k for k in ("kong", "added-kong", "concealed-kong")
                                    if self.rs.claims.allows_kong(k)] or ["kong"])
            counts[t] += 1
            return Meld(kind, (t,) * 4, src if kind == "kong" else None)
        return Meld(kind, (t,) * 3, src)

    def pairs(self, shape: Shape, pool: list[Tile], avoid: Tile | None = None) -> list[Tile] | None:
        pool = [t for t in pool if t != avoid]
        counts = [0] * 34
        out: list[Tile] = []
        for _ in range(shape.pairs):
            for _ in range(20):
                t = self.rng.choice(pool)
                if counts[t] == 0 or (self.rng.random() < 0.3 and counts[t] + 2 <= self.copies):
                    break
            else:
                return None
            if counts[t] + 2 > self.copies:
                return None
            counts[t] += 2
            out += [t, t]
        return out

    def knitted(self, shape: Shape, pool: list[Tile]) -> list[Tile] | None:
        honors = [t for t in pool if is_honor(t)]
        suits = sorted({suit_of(t) for t in pool if not is_honor(t)})
        gap = max(1, shape.min_gap)
        per_suit_max = (8 // gap) + 1
        lo = max(0, 14 - per_suit_max * len(suits))
        hi = min(14, len(honors) if shape.distinct_honors else 14)
        if lo > hi:
            return None
        h = self.rng.randint(lo, hi)
        if self.rng.random() < 0.3:
            h = hi
        n = 14 - h
        split = [0] * len(suits)
        for _ in range(n):
            room = [i for i in range(len(suits)) if split[i] < per_suit_max]
            if not room:
                return None
            split[self.rng.choice(room)] += 1
        out: list[Tile] = []
        for s, k in zip(suits, split, strict=True):
            for _ in range(50):
                ranks = sorted(self.rng.sample(range(9), k))
                if all(b - a >= gap for a, b in pairwise(ranks)):
                    break
            else:
                return None
            if any(s * 9 + r not in pool for r in ranks):
                return None
            out += [s * 9 + r for r in ranks]
        if shape.distinct_honors:
            out += self.rng.sample(honors, h)
        else:
            out += [self.rng.choice(honors) for _ in range(h)]
        return out if len(out) == 14 else None

    def orphans(self, shape: Shape) -> list[Tile]:
        tiles = list(shape.orphans)
        return [*tiles, self.rng.choice(tiles)]

    def free(self, pool: list[Tile], size: int) -> list[Tile] | None:
        counts = [0] * 34
        out: list[Tile] = []
        while len(out) < size:
            t = self.rng.choice(pool)
            k = min(self.rng.choice([1, 1, 1, 2, 2, 3, 4]), size - len(out), self.copies - counts[t])
            if k <= 0:
                if all(counts[x] >= self.copies for x in pool):
                    return None
                continue
            counts[t] += k
            out += [t] * k
        return out

    # -- context -----------------------------------------------------------------

    def context(self, p: Pattern, win_wild: bool) -> tuple[int, str, int | None, frozenset[str]]:
        w = p.when
        players = self.rs.players
        if w.seat == "dealer":
            seat = 0
        elif w.seat == "non_dealer" or w.discarder == "dealer":
            seat = self.rng.randint(1, players - 1)
        else:
            seat = self.rng.randint(0, players - 1)
        choices = [x for x in self.win_by_allowed if w.win_by is None or x in w.win_by] or ["self_draw"]
        if win_wild or p.phase == "opening":
            choices = ["self_draw"]
        win_by = self.rng.choice(choices)
        discarder = None
        if win_by != "self_draw":
            if w.discarder == "dealer":
                discarder = 0
            else:
                others = [s for s in range(players) if s != seat and (w.discarder != "non_dealer" or s != 0)]
                discarder = self.rng.choice(others)
        return seat, win_by, discarder, frozenset(w.flags)

    # -- candidates --------------------------------------------------------------

    def wildcard_count(self, p: Pattern, name: str, default: tuple[int, int]) -> int:
        c = dict(p.counts).get(name)
        if c is None:
            return self.rng.randint(*default)
        lo = c.min if c.min is not None else 0
        hi = c.max if c.max is not None else lo + 2
        return self.rng.randint(lo, hi)

    def candidate(self, p: Pattern) -> Example | None:
        ex = self._candidate(p)
        if ex is not None and p.when.seat_state:
            ex.seat_state = p.when.seat_state
        return ex

    def _candidate(self, p: Pattern) -> Example | None:
        rs = self.rs
        pool = self.pool(p)
        if not pool:
            return None
        self.seat = 0
        if p.phase == "opening":
            seat, win_by, disc, flags = self.context(p, False)
            tiles = self.free(pool, rs.hand.size + (seat == 0))
            if tiles is None:
                return None
            return Example(p.name, False, [], 0, tiles, [], None, None, seat, win_by, disc, flags, 0)
        bases: list[Shape | Wait] = list(p.shapes) + list(p.waits)
        if not bases:
            bases = self.win_bases
        base = self.rng.choice(bases)
        wild: Tile | None = None
        # Only wildcards the variant can have: its fixed kind, or what some indicator names.
        possible = rs.wildcard.possible(tuple(self.kinds)) if rs.wildcard is not None else ()
        if possible:
            wild = self.rng.choice(possible)
        want_wild_win = p.when.win_tile == "wildcard" or (
            p.when.win_tile is None and wild is not None and self.rng.random() < 0.2)
        seat, win_by, disc, flags = self.context(p, want_wild_win and wild is not None)
        self.seat = seat
        melds: list[Meld] = []
        if isinstance(base, Wait):
            if wild is None:
                return None
            rest = self._shape_tiles(base.rest, pool, p, avoid=wild, exposable=True)
            if rest is None:
                return None
            held, melds = rest
            extra = max(0, self.wildcard_count(p, "wildcards_held", (0, 0)) - base.free_wildcards)
            if self.rng.random() < 0.2:
                extra += 1
            held = self._replace(held, wild, extra)
            held = held + [wild] * base.free_wildcards
            if p.when.win_tile == "wildcard" or (p.when.win_tile is None and want_wild_win):
                win = wild
            else:
                win = self.rng.choice([t for t in pool if t != wild])
            concealed = held
        else:
            got = self._shape_tiles(base, pool, p, avoid=None, exposable=True)
            if got is None:
                return None
            tiles, melds = got
            if wild is not None:
                own = [t for t in tiles if t in possible]
                if self.rng.random() < 0.5 and own and len(possible) > 1:
                    wild = self.rng.choice(own)
                if any(t in self.ev.wild_kinds(wild) for m in melds for t in m.tiles):
                    return None
                tiles = self._replace(tiles, wild, self.wildcard_count(p, "wildcards", (0, 2)))
            if want_wild_win and wild in tiles:
                win = wild
            else:
                natural = [t for t in tiles if t != wild] or tiles
                win = self.rng.choice(natural)
            concealed = list(tiles)
            concealed.remove(win)
        if wild is not None and win == wild:
            seat, win_by, disc, flags = self.context(p, True)
            if seat != self.seat:
                melds = [Meld(m.kind, m.tiles, None if m.from_seat is None else (seat + 3) % rs.players)
                         for m in melds]
        return Example(p.name, False, [], 0, concealed, melds, win, wild, seat, win_by, disc, flags, 0)

    def _replace(self, tiles: list[Tile], wild: Tile, n: int) -> list[Tile]:
        tiles = list(tiles)
        have = tiles.count(wild)
        idx = [i for i, t in enumerate(tiles) if t != wild]
        self.rng.shuffle(idx)
        for i in idx[:max(0, n - have)]:
            tiles[i] = wild
        return tiles

    def _shape_tiles(self, shape: Shape, pool: list[Tile], p: Pattern, *, avoid: Tile | None,
                     exposable: bool) -> tuple[list[Tile], list[Meld]] | None:
        if shape.kind == "standard":
            return self.standard(shape, pool, p, exposable=exposable, avoid=avoid)
        if shape.kind == "pairs":
            t = self.pairs(shape, pool, avoid)
        elif shape.kind == "knitted":
            t = self.knitted(shape, pool)
        elif shape.kind == "orphans":
            t = self.orphans(shape)
        else:
            t = self.free(pool, self.rs.hand.size + 1)
        return None if t is None else (t, [])

    # -- scoring -------------------------------------------------------------------

    def score(self, ex: Example) -> list[str] | None:
        ctx = ex.context()
        try:
            if ex.opening:
                s = self.ev.score_opening(ex.concealed, ctx)
            else:
                s = self.ev.score(ex.hand(), ctx, ex.wildcard)
        except HandError:
            return None
        if not s.win:
            return None
        ex.points = s.points
        return s.pattern_names



def _points(rs: Ruleset, points: int) -> str:
    """A pattern's points as the card shows them: ``×3`` (a factor, ``combine: product``) or
    ``3 points``."""
    return rs.scoring.label(points) if rs.scoring.multiplies else f"{points} points"


def is_bonus(p: Pattern) -> bool:
    """A win-phase pattern without shape or wait: it only adds to a win made by another."""
    return p.phase == "win" and not p.makes_win


def _exact(ev: Evaluator, p: Pattern, names: list[str]) -> bool:
    """``names`` shows ``p`` alone: by itself, or (a bonus) on top of exactly one base win."""
    if names == [p.name]:
        return True
    if not is_bonus(p) or len(names) != 2 or p.name not in names:
        return False
    other = next(n for n in names if n != p.name)
    try:
        return ev.ruleset.pattern(other).makes_win
    except KeyError:
        return False


def find_example(ev: Evaluator, p: Pattern, seed: int = 0, budget: int = DEFAULT_BUDGET) -> Example | None:
    """Search for a hand scoring exactly ``p`` (else the smallest pattern set containing it).

    A bonus pattern's exact example is the bonus alone where the ruleset's
    combining lets it score alone, else the bonus on top of one base win.
    """
    rng = random.Random(f"{ev.ruleset.id}/{p.name}/{seed}")
    s = _Searcher(ev, rng)
    best: Example | None = None
    for i in range(1, budget + 1):
        ex = s.candidate(p)
        if ex is None:
            continue
        names = s.score(ex)
        if not names or p.name not in names:
            continue
        ex.names, ex.tries = names, i
        if names == [p.name]:
            ex.exact = True
            best = ex
            break
        if _exact(ev, p, names):
            if not (best is not None and best.exact):
                ex.exact = True
                best = ex  # the bonus on a base win; go on looking for it alone, where it can be
            continue
        if best is None or (not best.exact and len(names) < len(best.names)):
            best = ex
    if best is not None:
        ctx = best.context()
        best.result = (ev.evaluate_opening(best.concealed, ctx) if best.opening
                       else ev.evaluate(best.hand(), ctx, best.wildcard))
    return best


# --------------------------------------------------------------------------
# the card


@dataclass
class PatternEntry:
    pattern: Pattern
    reading: str
    example: Example | None


@dataclass
class Card:
    ruleset: Ruleset
    sections: list[tuple[str, list[tuple[str, str]]]]  # title → (label, text) rows
    patterns: list[PatternEntry]
    settlement: tuple[Example, list[str]] | None

    @property
    def exact(self) -> int:
        return sum(1 for e in self.patterns if e.example is not None and e.example.exact)

    def missing(self) -> list[str]:
        return [e.pattern.name for e in self.patterns if e.example is None or not (
            e.example.exact or (e.example.declared and e.pattern.name in e.example.names))]


def describe_filter(f: TileFilter) -> str:
    parts = []
    if f.ranks is not None:
        parts.append("rank " + "/".join(str(r) for r in sorted(f.ranks)))
    if f.suits is not None:
        parts.append("suit " + "/".join(SUIT_LETTERS[s] for s in sorted(f.suits)))
    if f.honors is not None:
        parts.append("honors" if f.honors else "not honors")
    if f.tiles is not None:
        parts.append("one of " + format_tiles(sorted(f.tiles)))
    if f.any_of is not None:
        parts.append("(" + " or ".join(describe_filter(x) for x in f.any_of) + ")")
    return " and ".join(parts) or "any tile"


def describe_groups(f: GroupFilter, count: Count | None) -> str:
    kinds = sorted(f.kinds) if f.kinds is not None else ["group"]
    text = "/".join(kinds)
    if f.exposed is not None:
        text = ("exposed " if f.exposed else "concealed ") + text
    if f.laid_down is not None:
        text = ("laid-down " if f.laid_down else "in-hand ") + text
    if f.holding is not None:
        text += f" holding {describe_filter(f.holding)}"
    return f"{text} {count}" if count is not None else text


def describe_shape(s: Shape) -> str:
    if s.kind == "standard":
        text = f"{s.melds} melds" + (f" + {s.pair} pair" if s.pair else "")
    elif s.kind == "pairs":
        text = f"{s.pairs} pairs"
    elif s.kind == "knitted":
        text = f"knitted (same-suit gaps ≥ {s.min_gap}" + (", distinct honors)" if s.distinct_honors else ")")
    elif s.kind == "orphans":
        text = f"orphans {format_tiles(s.orphans)} (one twice)"
    else:
        text = "any tiles (no structure)"
    return f"{s.name} = {text}" if s.name else text


def describe_pattern(p: Pattern) -> str:
    """A one-line reading of the pattern's definition."""
    parts: list[str] = []
    if p.phase == "opening":
        parts.append("opening declaration on the dealt tiles")
    if p.shapes:
        parts.append("shape " + " or ".join(describe_shape(s) for s in p.shapes))
    if p.waits:
        parts.append("wait: " + " or ".join(
            f"13 held = {w.free_wildcards} wildcard(s) set aside + {describe_shape(w.rest)}"
            for w in p.waits))
    if not p.shapes and not p.waits and p.phase == "win":
        parts.append("bonus (adds to a win made by another pattern)")
    req = [f"{name} {count}" for name, count in p.counts]
    if p.all_tiles is not None:
        req.append(f"every tile {describe_filter(p.all_tiles)}")
    if p.no_tiles is not None:
        req.append(f"no tile {describe_filter(p.no_tiles)}")
    if p.pair is not None:
        req.append(f"pair {describe_filter(p.pair)}")
    if p.every_group is not None:
        req.append(f"every group holds {describe_filter(p.every_group)}")
    if p.any_group is not None:
        req.append(f"some group holds {describe_filter(p.any_group)}")
    if p.groups is not None:
        req.append(describe_groups(p.groups, p.groups_count))
    if p.win_wait is not None:
        req.append("winning tile as " + "/".join(sorted(p.win_wait)) + " wait")
    if req:
        parts.append("require " + ", ".join(req))
    w = p.when
    when = []
    if w.win_by is not None:
        when.append("by " + "/".join(sorted(w.win_by)))
    if w.win_tile:
        when.append(f"winning tile {w.win_tile}")
    if w.seat:
        when.append(f"winner {w.seat.replace('_', '-')}")
    if w.discarder:
        when.append(f"discarder {w.discarder.replace('_', '-')}")
    if w.flags:
        when.append("flags " + "+".join(sorted(w.flags)))
    if w.not_flags:
        when.append("not " + "+".join(sorted(w.not_flags)))
    if w.seat_state:
        when.append("winner's state " + ", ".join(f"{k}={v}" for k, v in w.seat_state))
    if when:
        parts.append("when " + ", ".join(when))
    if p.times_per:
        parts.append(f"counted once per {p.times_every if p.times_every > 1 else ''} {p.times_per}".replace(
            "per  ", "per "))
    return "; ".join(parts)


def _fmt(v: Any, top: bool = True) -> str:
    if isinstance(v, dict):
        inner = ", ".join(f"{k}: {_fmt(x, False)}" for k, x in v.items())
        return (inner or "defaults") if top else "{" + inner + "}"
    if isinstance(v, list):
        return "[" + ", ".join(_fmt(x, False) for x in v) + "]"
    if v is True:
        return "yes"
    if v is False:
        return "no"
    if v is None:
        return "—"
    return str(v)


def _tile_set_text(ts: Any) -> str:
    """``standard-136: 136 tiles, 34 kinds × 4 copies`` (+ ``and 8 flowers``: the set's name
    counts the suited and honor tiles only, so the flowers are named beside it)."""
    kinds = f"{len(ts.kinds)} kinds × {ts.copies} copies"
    if not ts.flowers:
        return f"{ts.name}: {ts.size} tiles, {kinds}"
    return f"{ts.name} and {ts.flowers} flowers: {ts.size} tiles, {kinds} + {ts.flowers} flowers"


def _sections(rs: Ruleset) -> list[tuple[str, list[tuple[str, str]]]]:
    ts = rs.tileset
    out: list[tuple[str, list[tuple[str, str]]]] = []
    suits = sorted({SUIT_LETTERS[suit_of(t)] for t in ts.kinds if not is_honor(t)})
    honors = [t for t in ts.kinds if is_honor(t)]
    out.append(("Tiles", [
        ("set", _tile_set_text(ts)),
        ("suits", ", ".join(suits) or "—"),
        ("honors", format_tiles(honors, "chinese") if honors else "none"),
        ("players", str(rs.players)),
        *([("hand", f"{rs.hand.size} tiles held, {rs.hand.winning} to win (`hand.size`)")]
          if rs.hand.size != 13 else []),
    ]))
    w = rs.wildcard
    if w is None:
        out.append(("Wildcard", [("wildcard", "none")]))
    else:
        rows = []
        if w.fixed:
            rows.append(("fixed", format_tiles(w.fixed, "chinese") + " — wild in every hand"
                         + ("" if w.flips else "; nothing is flipped")))
        if w.flips:
            rows.append(("indicator", _fmt((rs.data.get("wildcard") or {}).get("indicator") or {})))
        if w.flips and w.names == "itself":
            rows.append(("flipped", "the indicator's own kind is wild (翻混)"))
        suited = [t for t in ts.kinds if not is_honor(t)] if w.flips and w.names == "successor" else []
        if suited:
            rows.append(("successors (suits)",
                         "1→2→…→9→1 in each suit (the wildcard is the indicator's successor)"))
        rings: list[list[Tile]] = []
        seen: set[Tile] = set()
        for t in ts.kinds:
            if is_honor(t) and t not in seen and t in w.successors:
                ring = [t]
                seen.add(t)
                nxt = w.successors.get(t)
                while nxt is not None and nxt not in seen:
                    ring.append(nxt)
                    seen.add(nxt)
                    nxt = w.successors.get(nxt)
                rings.append(ring)
        if rings:
            rows.append(("successors (honors)",
                         "; ".join("→".join(tile_name(t) for t in [*r, r[0]]) for r in rings)))
        for si in w.stand_ins:
            cond = {"always": "always", "wildcard_suited": "while the wildcard is suited",
                    "wildcard_honor": "while the wildcard is an honor"}.get(si.when, si.when)
            rows.append(("stand-in",
                         f"{tile_name(si.tile)} may be read as the wildcard's natural tile, {cond}"))
        may = {"discarded": w.may_discard, "claimed": w.may_claim, "melded": w.may_meld}
        rows.append(("wildcards may be", ", ".join(f"{k} {'yes' if v else 'no'}" for k, v in may.items())))
        out.append(("Wildcard", rows))
    # The table sections as the file writes them (the merged YAML), defaults left out.
    claims = dict(rs.data.get("claims") or {})
    prio = claims.pop("priority", None)
    rows = [(k, _fmt(v)) for k, v in claims.items()]
    if prio:
        rows.append(("priority", " > ".join(map(str, prio))))
    out.append(("Claims", rows))
    out.append(("Win", [(k, _fmt(v)) for k, v in (rs.data.get("win") or {}).items()]))
    out.append(("Wall, break, deal", [(k, _fmt(rs.data.get(k) or {})) for k in ("wall", "break", "deal")]))
    out.append(("Dealer", [(k, _fmt(v)) for k, v in (rs.data.get("dealer") or {}).items()]))
    fl = rs.flow
    rows = []
    if fl.exchange is not None:
        ex = fl.exchange
        to = ex.direction or (f"by {ex.dice} dice: " + ", ".join(
            f"{v} {d}" for v, d in sorted(ex.by_dice.items())))
        rows.append(("exchange", f"{ex.tiles} tiles" + (" of one suit" if ex.same_suit else "")
                     + f", passed {to}"))
    if fl.void_suit is not None:
        vs = fl.void_suit
        rows.append(("void suit", "each player declares one: "
                     + "; ".join(x for x in (
                         "discarded first" if vs.discard_first else "",
                         "never claimed" if not vs.claim else "",
                         "a hand holding it cannot win" if not vs.win_holding else "") if x)))
    if fl.ready:
        rows.append(("ready", "a player may declare ready with a discard; the hand is then locked"))
    if fl.continues:
        rows.append(("after a win", ("winners leave, the others play on" if fl.after_win == "leave"
                                     else "winners stay (locked) and may win again")
                     + (f" until {fl.after_winners} have won" if fl.after_winners else "")
                     + " or the wall ends"))
    if rows:
        out.append(("Before and around play", rows))
    lv = rs.leave
    paid = {"none": "to nobody", "each_other": "to each other player"}.get(lv.paid_to, lv.paid_to)
    then = {"abandon": "the hand is abandoned", "bot": "a bot plays the seat on"}.get(lv.hand, lv.hand)
    out.append(("Leaving the table", [("penalty", f"{lv.penalty} {paid}" if lv.penalty else "none"),
                                      ("the hand", then)]))
    sc = rs.scoring
    combine = {"sum": "sum: matching patterns add up",
               "highest": "highest: only the best-paying pattern counts"}.get(sc.combine, sc.combine)
    rows = [("combine", combine),
            ("tiers", " > ".join(sc.tiers) + " (only the highest tier matched counts)"
             if sc.tiers else "none"),
            ("payout", _fmt(sc.payout)),
            ("ties", TIES.get(sc.ties, sc.ties)),
            ("dealer bonus", f"+{sc.dealer_bonus} on each payment the dealer makes or receives"
             if sc.dealer_bonus else "none")]
    if sc.minimum is not None:
        rows.append(("minimum to win", f"{sc.minimum} point(s)"))
    if sc.cap is not None:
        rows.append(("cap", f"{sc.cap} point(s) counted at most"))
    if sc.value == "doubling":
        rows.append(("value", f"each payer pays {sc.value_base} × 2^points"))
    elif sc.value == "table":
        rows.append(("value", "each payer pays " + ", ".join(
            f"{a} for {i}" for i, a in enumerate(sc.value_table))))
    elif sc.value_base != 1:
        rows.append(("value", f"each payer pays points × {sc.value_base}"))
    if sc.multipliers:
        rows.append(("multipliers", ", ".join(f"×{m} {k}" for k, m in sc.multipliers.items())))
    if sc.bonuses:
        rows.append(("bonuses", ", ".join(f"+{b} {k}" for k, b in sc.bonuses.items())))
    if sc.kongs:
        kongs = "; ".join(f"{k}: {v.amount} from {v.payer}" for k, v in sc.kongs.items())
        if rs.flow.kongs_paid == "at_kong":
            kongs += "; paid when the kong is made, by the players still in"
            if rs.flow.kong_refund:
                kongs += "; given back at a drawn end by a konger not ready"
        elif sc.kongs_void_on_draw:
            kongs += "; void on a drawn hand"
        rows.append(("kong payments", kongs))
    else:
        rows.append(("kong payments", "none"))
    for rule in rs.flow.on_draw:
        amount = ("the payee's best possible win" if rule.amount == "best_wait"
                  else f"{rule.amount}")
        rows.append(("at a drawn end", f"each {' & '.join(rule.payer).replace('_', ' ')} player pays "
                     f"each {' & '.join(rule.payee).replace('_', ' ')} player {amount}"))
    out.append(("Scoring", rows))
    bt = rs.bonus_tiles
    if bt is not None:
        more = "".join(f", {m.add:+d} " + " & ".join(
            ([] if m.no_wildcards is None else ["holding no wildcard" if m.no_wildcards else "holding one"])
            + ([f"with {' or '.join(sorted(m.patterns))}"] if m.patterns else [])) for m in bt.more)
        hit = (f"{format_tiles(sorted(bt.tiles))} hit the {bt.anchor}" if bt.tiles is not None
               else f"rank r hits the seat r − 1 after the {bt.anchor}")
        effect = {"double": "×2 per hit", "multiply": "×(1 + hits)",
                  "add": f"+{bt.amount} per hit"}.get(bt.effect, bt.effect)
        if bt.weight == "rank":
            hit += f"; each counts its rank as hits (an honor {bt.honor_weight})"
        whose = {"both": "payer's and payee's", "payee": "payee's (the winner's)", "payer": "payer's"}
        extra: list[tuple[str, str]] = []
        if bt.key != "bonus_tiles":
            extra.append(("in cases and logs", f"`{bt.key}`"))
        if bt.deals_next is not None:
            dn = bt.deals_next
            also = f" (counting {', '.join(sorted(dn.also))} as a win at the opening)" if dn.also else ""
            extra.append(("next dealer", f"the seat the {dn.at} set hits most, when {dn.winners} or more "
                          f"won at the {dn.at}{also}; before every other rule"))
        out.append(("Bonus tiles", [
            ("name", bt.name),
            ("how many", f"{bt.count}{more}, " + ("the next live tiles" if bt.source == "live"
                                                    else "from the kong end")),
            ("turned up at", ", ".join(sorted(bt.at))), ("hits", hit),
            ("effect", f"{effect} on each payment, counting the {whose.get(bt.counts, bt.counts)} hits"
             + ("" if bt.kongs else "; kong money unchanged")), *extra]))
    if rs.counters:
        out.append(("Counters across hands", [
            (c.name, f"{c.scope}: +1 on {', '.join(sorted(c.add))}"
             + (f", back to 0 on {', '.join(sorted(c.reset))}" if c.reset else "")
             + (f", at most {c.max}" if c.max else "")
             + (f"; +{c.pays_each} × the count on each payment the dealer makes or receives"
                if c.pays_each else "")) for c in rs.counters]))
    if rs.wall.reserve:
        out.append(("Wall", [("reserved tail", f"the last {rs.wall.reserve} tiles are never drawn")]))
    out.append(("Plugins", [(name, _fmt(opts) or "defaults") for name, opts in rs.plugins.items()]
                or [("plugins", "none")]))
    opts = _options(rs)
    if opts:
        out.append(("Options", opts))
    return out


def _options(rs: Ruleset) -> list[tuple[str, str]]:
    """The house-rule options (``--set NAME=VALUE``) and presets (``--preset NAME``)."""
    rows = []
    for name, o in rs.option_decls.items():
        text = f"{o.description}; " if o.description else ""
        text += f"{o.kind()}, default {_show(o.default)}"
        if rs.options.get(name, o.default) != o.default:
            text += f"; this card: {_show(rs.options[name])}"
        rows.append((f"--set {name}=…", text))
    for name, p in rs.preset_decls.items():
        sets = ", ".join(f"{k}={_show(v)}" for k, v in p.set.items())
        rows.append((f"--preset {name}", (f"{p.description}: " if p.description else "") + sets))
    return rows


def _show(v: Any) -> str:
    return ("true" if v else "false") if isinstance(v, bool) else str(v)


def _check(ex: Example, rs: Ruleset) -> str:
    """The ``mj score`` command that reproduces ``ex`` (with the card's non-default options)."""
    declared = rs.option_decls
    sets = [f" --set {k}={_show(v)}" for k, v in rs.options.items()
            if k in declared and v != declared[k].default]
    return ex.command(ruleset_ref(rs)) + "".join(sets)


TIES = {
    "first_declared": "equal pay: the result whose patterns come first in declaration order",
    "fewest_patterns": "equal pay: the result with the fewest patterns, then the first declared",
    "most_patterns": "equal pay: the result with the most patterns, then the first declared",
}


def _settlement(ev: Evaluator, entries: list[PatternEntry]) -> tuple[Example, list[str]] | None:
    exs = [e.example for e in entries if e.example is not None and e.example.result is not None
           and e.example.result.settlement is not None and e.example.exact]
    if not exs:
        return None
    rs = ev.ruleset
    sc = rs.scoring

    def interest(x: Example) -> int:
        """Prefer an example that shows the most rules: discard payer, dealer bonus, kong payments."""
        n = 0 if x.opening else 1
        n += 2 * (x.win_by != "self_draw")
        n += 2 * bool(sc.dealer_bonus and 0 in (x.seat, x.discarder))
        n += 3 * any(m.is_kong and MeldKind(m.kind).payment_key in sc.kongs for m in x.melds)
        return n

    ex = max(exs, key=interest)  # the first declared among the most instructive
    res = ex.result
    assert res is not None and res.settlement is not None
    lines = []
    win_by = "self_draw" if ex.opening else ex.win_by
    rule = sc.payer(win_by)
    lines.append(f"Winner: seat {ex.seat} ({SEAT_NAMES[ex.seat]}), by {win_by}"
                 + (f" on seat {ex.discarder}'s tile" if ex.discarder is not None else "")
                 + f"; patterns {' + '.join(ex.names)} = {res.score.points} points; payout rule: {rule}.")
    for pay in res.settlement.payments:
        bonus = sc.dealer_bonus if sc.dealer_bonus and 0 in (pay.payer, pay.payee) else 0
        to = "nobody" if pay.payee is None else f"seat {pay.payee}"
        if pay.reason in KONG_PAYMENT_KEYS:
            arith = f"{pay.amount} ({pay.reason} payment)"
        elif bonus and pay.amount == res.score.points + bonus:
            arith = f"{res.score.points} + {bonus} (dealer bonus) = {pay.amount}"
        elif pay.amount == res.score.points:
            arith = f"{pay.amount}"
        else:
            arith = f"{pay.amount} ({pay.reason})"
        lines.append(f"seat {pay.payer} pays {to}: {arith}")
    net = res.settlement.net()
    lines.append("Net: " + ", ".join(f"seat {i} {n:+d}" for i, n in enumerate(net)))
    return ex, lines


def build_card(ruleset: Ruleset | str, seed: int = 0, budget: int = DEFAULT_BUDGET) -> Card:
    rs = ruleset if isinstance(ruleset, Ruleset) else load_ruleset(ruleset)
    key = (id(rs), seed, budget)
    card = _CARDS.get(key)
    if card is None or card.ruleset is not rs:
        card = _CARDS[key] = _build(rs, seed, budget)
    return card


_CARDS: dict[tuple[int, int, int], Card] = {}


# A card's search costs (patterns × tries × patterns judged per try): past this many
# patterns the tries per pattern shrink with the square, so a large ruleset's card
# costs about what a 32-pattern one does (at least CARD_MIN_TRIES tries each).
CARD_PATTERNS = 32
CARD_MIN_TRIES = 20


def card_budget(budget: int, patterns: int) -> int:
    """Tries per pattern for a card of ``patterns`` patterns."""
    if patterns <= CARD_PATTERNS:
        return budget
    return max(min(budget, CARD_MIN_TRIES), budget * CARD_PATTERNS ** 2 // patterns ** 2)


def declared_example(ev: Evaluator, p: Pattern) -> Example | None:
    """The ruleset's own example of ``p`` (``example:``), scored; None if it has none. An
    example that does not score ``p`` is returned with ``names`` lacking it (the card warns)."""
    d = p.example
    if d is None:
        return None
    ex = Example(pattern=p.name, exact=False, names=[], points=0, concealed=list(d.concealed),
                 melds=list(d.melds), win_tile=d.win_tile, wildcard=None, seat=d.seat, win_by=d.win_by,
                 discarder=d.discarder, flags=d.flags, tries=0, flowers=d.flowers,
                 flower_tiles=d.flower_tiles, seat_wind=d.seat_wind, prevalent_wind=d.prevalent_wind,
                 declared=True)
    try:
        ex.result = ev.evaluate(ex.hand(), ex.context())
    except HandError:
        return ex
    s = ex.result.score
    ex.names, ex.points = s.pattern_names, s.points
    ex.exact = s.win and ex.names == [p.name]
    if not s.win:
        ex.names = []
    return ex


def _build(rs: Ruleset, seed: int, budget: int) -> Card:
    ev = Evaluator(rs)
    per = card_budget(budget, len(rs.patterns))
    entries = [PatternEntry(p, describe_pattern(p), declared_example(ev, p) or find_example(ev, p, seed, per))
               for p in rs.patterns]
    return Card(rs, _sections(rs), entries, _settlement(ev, entries))


# --------------------------------------------------------------------------
# rendering


def _context_text(ex: Example) -> str:
    parts = [f"seat {ex.seat} ({SEAT_NAMES[ex.seat].split()[0]})"]
    if ex.opening:
        parts.append("dealt tiles")
    elif ex.win_by == "self_draw":
        parts.append("self-draw")
    else:
        parts.append(f"{ex.win_by.replace('_', ' ')} from seat {ex.discarder}")
    if ex.flags:
        parts.append("flags " + ", ".join(sorted(ex.flags)))
    if ex.flowers:
        parts.append(f"{ex.flowers} flower(s)")
    if ex.seat_wind is not None or ex.prevalent_wind is not None:
        w = ex.context().winds()
        parts.append(f"seat wind {tile_name(w['seat'])}, prevalent wind {tile_name(w['prevalent'])}")
    return ", ".join(parts)


def _example_status(ex: Example | None) -> str:
    if ex is None:
        return "⚠ NO EXAMPLE FOUND: the search found no winning hand with this pattern"
    if ex.declared and ex.pattern not in ex.names:
        return "⚠ THE RULESET'S EXAMPLE DOES NOT SCORE THIS PATTERN" + (
            f" (it scores {' + '.join(ex.names)})" if ex.names else " (it is not a win)")
    if ex.declared and not ex.exact:
        return f"the ruleset's example scores {' + '.join(ex.names)} ({ex.points} points)"
    if ex.exact and ex.names != [ex.pattern]:
        base = next(n for n in ex.names if n != ex.pattern)
        return f"scores {ex.pattern} as a bonus on the base win {base} ({ex.points} points in all)"
    if ex.exact:
        return f"scores exactly {ex.pattern} ({ex.points} points)"
    return (f"⚠ NO EXACT EXAMPLE: smallest pattern set found is {' + '.join(ex.names)} "
            f"({ex.points} points)")


def _tier(rs: Ruleset, p: Pattern) -> str:
    if p.tier:
        return p.tier
    return f"{rs.scoring.tiers[0]} (default)" if rs.scoring.tiers else "—"


def render_markdown(card: Card) -> str:
    rs = card.ruleset
    out = [f"# {rs.name} (`{rs.id}`)", "", rs.description, ""]
    for title, rows in card.sections:
        out += [f"## {title}", "", "| | |", "|---|---|"]
        out += [f"| {k} | {v.replace('|', '/')} |" for k, v in rows]
        out.append("")
    out += [f"## Patterns ({len(card.patterns)}; exact examples for {card.exact})", ""]
    missing = card.missing()
    if missing:
        out += [f"> ⚠ No exact example found for: {', '.join(missing)}", ""]
    for e in card.patterns:
        p = e.pattern
        head = f"### {p.name}" + (f" ({p.en})" if p.en else "") + f" — {_points(rs, p.points)}"
        out += [head, ""]
        meta = [f"tier {_tier(rs, p)}"]
        if p.excludes:
            meta.append("excludes " + ", ".join(sorted(p.excludes)))
        out.append("- " + "; ".join(meta))
        out.append(f"- definition: {e.reading}")
        if p.description:
            out.append(f"- note: {p.description}")
        ex = e.example
        out.append(f"- example: {_example_status(ex)}")
        if ex is not None:
            if ex.opening:
                out.append(f"  - dealt: `{format_tiles(sorted(ex.concealed))}` "
                           f"({format_tiles(sorted(ex.concealed), 'chinese')})")
            else:
                assert ex.win_tile is not None  # (only an opening hand has none)
                out.append(f"  - hand: `{format_tiles(sorted(ex.concealed))}` + `{tile_code(ex.win_tile)}` "
                           f"({format_tiles(sorted(ex.concealed), 'chinese')} + {tile_name(ex.win_tile)})")
                for m in ex.meld_args():
                    out.append(f"  - meld: `{m}`")
                if ex.wildcard is not None:
                    out.append(f"  - wildcard: `{tile_code(ex.wildcard)}` ({tile_name(ex.wildcard)})")
            out.append(f"  - context: {_context_text(ex)}")
            out.append(f"  - check: `{_check(ex, rs)}`")
        out.append("")
    out += ["## Worked settlement", ""]
    if card.settlement is None:
        out.append("(no example to settle)")
    else:
        ex, lines = card.settlement
        out.append(f"Example of {ex.pattern}: `{_check(ex, rs)}`")
        out.append("")
        out += [f"- {line}" for line in lines]
    out.append("")
    return "\n".join(out)


_CSS = """
body{font-family:system-ui,sans-serif;max-width:60em;margin:2em auto;padding:0 1em;color:#222}
h1{border-bottom:2px solid #a33}h2{color:#a33;margin-top:1.5em}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:.3em .6em;vertical-align:top}
th{background:#f4eee8;text-align:left}.tiles{font-size:2em;line-height:1.2}
.warn{color:#b00;font-weight:bold}.ok{color:#070}code{background:#f4f4f4;padding:0 .2em}
.pattern{border:1px solid #ddd;border-radius:6px;padding:.5em 1em;margin:.8em 0}
"""


def render_html(card: Card) -> str:
    rs = card.ruleset
    e = html.escape
    out = ["<!DOCTYPE html>", '<html lang="zh"><head><meta charset="utf-8">',
           f"<title>{e(rs.name)} — rule card</title>", f"<style>{_CSS}</style></head><body>",
           f"<h1>{e(rs.name)} <small><code>{e(rs.id)}</code></small></h1>", f"<p>{e(rs.description)}</p>"]
    for title, rows in card.sections:
        out.append(f"<h2>{e(title)}</h2><table>")
        out += [f"<tr><th>{e(k)}</th><td>{e(v)}</td></tr>" for k, v in rows]
        out.append("</table>")
    out.append(f"<h2>Patterns ({len(card.patterns)}; exact examples for {card.exact})</h2>")
    missing = card.missing()
    if missing:
        out.append(f'<p class="warn">⚠ No exact example found for: {e(", ".join(missing))}</p>')
    for entry in card.patterns:
        p = entry.pattern
        ex = entry.example
        out.append('<div class="pattern">')
        out.append(f"<h3>{e(p.name)}" + (f" ({e(p.en)})" if p.en else "")
                   + f" — {e(_points(rs, p.points))}</h3><ul>")
        out.append(f"<li>tier {e(_tier(rs, p))}"
                   + (f"; excludes {e(', '.join(sorted(p.excludes)))}" if p.excludes else "") + "</li>")
        out.append(f"<li>definition: {e(entry.reading)}</li>")
        if p.description:
            out.append(f"<li>note: {e(p.description)}</li>")
        cls = "ok" if ex is not None and ex.exact else "warn"
        out.append(f'<li>example: <span class="{cls}">{e(_example_status(ex))}</span></li></ul>')
        if ex is not None:
            tiles = format_tiles(sorted(ex.concealed), "emoji")
            if ex.opening:
                out.append(f'<div class="tiles" title="{e(format_tiles(sorted(ex.concealed), "chinese"))}">'
                           f"{tiles}</div>")
            else:
                assert ex.win_tile is not None  # (only an opening hand has none)
                melds = " ".join(format_tiles(m.tiles, "emoji") for m in ex.melds)
                out.append(f'<div class="tiles" title="{e(format_tiles(sorted(ex.concealed), "chinese"))}">'
                           f"{tiles} + {format_tiles([ex.win_tile], 'emoji')}"
                           + (f" &nbsp; {melds}" if melds else "") + "</div>")
                if ex.wildcard is not None:
                    out.append(f"<p>wildcard {format_tiles([ex.wildcard], 'emoji')} "
                               f"{e(tile_name(ex.wildcard))}</p>")
            out.append(f"<p>{e(_context_text(ex))}</p><p><code>{e(_check(ex, rs))}</code></p>")
        out.append("</div>")
    out.append("<h2>Worked settlement</h2>")
    if card.settlement is None:
        out.append("<p>(no example to settle)</p>")
    else:
        ex, lines = card.settlement
        out.append(f"<p>Example of {e(ex.pattern)}: <code>{e(_check(ex, rs))}</code></p><ul>")
        out += [f"<li>{e(line)}</li>" for line in lines]
        out.append("</ul>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def render(card: Card, fmt: str) -> str:
    return render_html(card) if fmt == "html" else render_markdown(card)
