"""The readers of the shapes other than ``standard`` (moved out of :mod:`.readings`).

``pairs`` (seven pairs and the like), ``knitted``, ``orphans`` and ``free``, and the
knitted straights' tile lists. :mod:`.readings` dispatches to them through ``READERS``.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

from ..core.hand import Meld
from ..core.tiles import NUM_KINDS, Tile, is_honor, suit_of
from ..rules.model import Shape
from .reading_groups import FreeKinds, Group, Reading, Tiles, _group_key, _meld_group, _src, stand_in_splits


def pairs_readings(t: Tiles, melds: Sequence[Meld], shape: Shape,
                   kinds: Sequence[Tile], free: FreeKinds | None = None,
                   first: bool = False) -> list[Reading]:
    if melds:
        return []
    total = sum(t.counts) + t.wilds + t.stand_ins
    if total != 2 * shape.pairs:
        return []
    found: dict[tuple[Group, ...], None] = {}  # in the order found (most-held kinds first)
    for c, _k in stand_in_splits(t):
        groups: list[Group] = []
        need = 0
        for tile, n in enumerate(c):
            if not n:
                continue
            src = _src(tile, t.wildcard)
            groups.extend(Group("pair", (tile, tile), (src, src)) for _ in range(n // 2))
            if n % 2:
                groups.append(Group("pair", (tile, tile), (src, "w")))
                need += 1
        if need > t.wilds:
            continue
        n_free = (t.wilds - need) // 2
        if first:
            # The first reading found: ``groups`` are already in order (kinds ascending; a
            # kind's natural pairs before the one taking a wildcard), and pairs of wildcards
            # alone are read as the kind held most (the first among equals, as the sort below
            # picks it), placed after the groups of the kinds up to it.
            if n_free:
                k = max(kinds if free is None else free.choice(0, n_free)[0], key=c.__getitem__)
                at = sum(1 for g in groups if g.tiles[0] <= k)
                groups[at:at] = [Group("pair", (k, k), ("w", "w"))] * n_free
            return [Reading(shape, tuple(groups))]
        if n_free == 0:
            found[tuple(sorted(groups, key=_group_key))] = None
            continue
        out: list[tuple[Group, ...]] = []
        # Pairs of wildcards alone read as the kinds held most first: where a pattern counts
        # copies (four of a kind), the best readings tend to come first.
        choice = sorted(kinds if free is None else free.choice(0, n_free)[0], key=lambda k: -c[k])
        _free_pairs(n_free, choice[:1] if first else choice, 0, groups, out)
        for g in out:
            found[tuple(sorted(g, key=_group_key))] = None
        if first and found:
            break
    return [Reading(shape, g) for g in list(found)[:1 if first else None]]


def _free_pairs(n: int, kinds: Sequence[Tile], start: int, acc: list[Group],
                out: list[tuple[Group, ...]]) -> None:
    if n == 0:
        out.append(tuple(acc))
        return
    for i in range(start, len(kinds)):
        acc.append(Group("pair", (kinds[i], kinds[i]), ("w", "w")))
        _free_pairs(n - 1, kinds, i, acc, out)
        acc.pop()


def knitted_readings(t: Tiles, melds: Sequence[Meld], shape: Shape,
                     kinds: Sequence[Tile]) -> list[Reading]:
    """All tiles singles: honors distinct, same-suit tiles ``min_gap`` apart.

    Wildcards fill free places; they go first to honors not yet held (more
    distinct honors is what knitted patterns reward), then to suited places
    that keep the gaps. One reading per number of wildcards given to honors.
    """
    if melds:
        return []
    total = sum(t.counts) + t.wilds + t.stand_ins
    if total != 14:
        return []
    readings = []
    for c, _k in stand_in_splits(t):
        if any(n > 1 for n in c):
            continue
        held = [tile for tile, n in enumerate(c) if n]
        if not _knit_ok(held, shape.min_gap, shape.tracks):
            continue
        base = [Group("single", (x,), (_src(x, t.wildcard),)) for x in held]
        missing_honors = [h for h in kinds if is_honor(h) and h not in held]
        for to_honors in range(min(t.wilds, len(missing_honors)), -1, -1):
            chosen = held + missing_honors[:to_honors]
            extra = _fill_suited(chosen, t.wilds - to_honors, kinds, shape.min_gap, shape.tracks)
            if extra is None:
                continue
            groups = base + [Group("single", (x,), ("w",)) for x in missing_honors[:to_honors] + extra]
            readings.append(Reading(shape, tuple(sorted(groups, key=_group_key))))
    return readings


def _knit_ok(tiles: Sequence[Tile], gap: int, tracks: bool = False) -> bool:
    by_suit: dict[int, list[int]] = {}
    for x in tiles:
        if is_honor(x):
            continue
        by_suit.setdefault(suit_of(x), []).append(x % 9)
    for ranks in by_suit.values():
        ranks.sort()
        if any(b - a < gap for a, b in pairwise(ranks)):
            return False
    if tracks:  # each suit on one track (147 / 258 / 369), a different track per suit
        used = []
        for ranks in by_suit.values():
            if len({r % 3 for r in ranks}) != 1:
                return False
            used.append(ranks[0] % 3)
        if len(set(used)) != len(used):
            return False
    return len({x for x in tiles if is_honor(x)}) == sum(1 for x in tiles if is_honor(x))


def _fill_suited(chosen: list[Tile], n: int, kinds: Sequence[Tile], gap: int,
                 tracks: bool = False) -> list[Tile] | None:
    extra: list[Tile] = []
    for _ in range(n):
        for k in kinds:
            if is_honor(k) or k in chosen or k in extra:
                continue
            if _knit_ok([*chosen, *extra, k], gap, tracks):
                extra.append(k)
                break
        else:
            return None
    return extra


def orphans_readings(t: Tiles, melds: Sequence[Meld], shape: Shape,
                     kinds: Sequence[Tile]) -> list[Reading]:
    if melds:
        return []
    need_kinds = shape.orphans
    total = sum(t.counts) + t.wilds + t.stand_ins
    if total != len(need_kinds) + 1:
        return []
    readings = []
    for c, _k in stand_in_splits(t):
        if any(n and tile not in need_kinds for tile, n in enumerate(c)):
            continue
        if sum(n > 1 for n in c) > 1 or any(n > 2 for n in c):
            continue
        groups = [Group("single", (x,), (_src(x, t.wildcard),)) for x in need_kinds if c[x]]
        dup = [x for x in need_kinds if c[x] == 2]
        groups += [Group("single", (x,), (_src(x, t.wildcard),)) for x in dup]
        missing = [x for x in need_kinds if not c[x]]
        if len(missing) > t.wilds:
            continue
        groups += [Group("single", (x,), ("w",)) for x in missing]
        if not dup:
            groups.append(Group("single", (need_kinds[0],), ("w",)))
        readings.append(Reading(shape, tuple(sorted(groups, key=_group_key))))
    return readings


def free_readings(t: Tiles, melds: Sequence[Meld], shape: Shape,
                  kinds: Sequence[Tile]) -> list[Reading]:
    """No structure: every tile a single; a wildcard is read as the commonest natural tile."""
    readings = []
    exposed = tuple(_meld_group(m) for m in melds)
    for c, _k in stand_in_splits(t):
        held = [tile for tile, n in enumerate(c) for _ in range(n)]
        stand = max(range(NUM_KINDS), key=lambda x: c[x]) if held else (t.wildcard or kinds[0])
        groups = [Group("single", (x,), (_src(x, t.wildcard),)) for x in held]
        groups += [Group("single", (stand,), ("w",)) for _ in range(t.wilds)]
        readings.append(Reading(shape, exposed + tuple(groups)))
    return readings


# The knitted straights: 147, 258, 369, each in a different suit (suit of track 0, 1, 2).
KNITTED_STRAIGHTS = tuple(tuple(suit * 9 + track + 3 * k
                                for track, suit in enumerate(order) for k in range(3))
                          for order in ((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)))
