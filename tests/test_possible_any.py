"""``WinScreen.possible_any``: the one-pass screen of a dealer's first turn agrees with
:meth:`WinScreen.possible` asked per tile (False only when every tile's screen says False)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from mjframework.core.hand import Meld
from mjframework.core.tiles import HONOR_BASE
from mjframework.evaluate.scoring import Evaluator
from mjframework.rules.loader import load_ruleset

HERE = Path(__file__).resolve().parent
RULESETS = ["changsha", "yongzhou-wangba", "yongzhou-huandiao", "sichuan-xuezhan", "mcr",
            *(str(p) for p in sorted((HERE / "rulesets").glob("*.yaml")))]


def _hand(rng: random.Random, kinds: list[int], full: int = 14) -> tuple[list[int], tuple[Meld, ...]]:
    """A full hand (``full`` tiles — ``hand.size`` + 1 — less 3 per meld): random tiles, or
    melds and a pair / pairs with a tile or two changed, or terminals and honors; sometimes with
    declared melds."""
    pool = [t for t in kinds for _ in range(4)]
    rng.shuffle(pool)
    melds: list[Meld] = []
    for _ in range(rng.choice([0, 0, 0, 1, 2])):
        t = rng.choice(kinds)
        if pool.count(t) >= 3:
            for _ in range(3):
                pool.remove(t)
            melds.append(Meld("pung", (t, t, t), 1))
    n = full - 3 * len(melds)
    style = rng.random()
    tiles: list[int] = []
    if style < 0.4:
        tiles = pool[:n]
    else:
        while len(tiles) < n - 3:
            t = rng.choice(kinds)
            seq = style < 0.7 and t < HONOR_BASE and t % 9 <= 6 and t + 2 in kinds
            group = [t, t + 1, t + 2] if seq else [t, t] if style >= 0.85 else [t, t, t]
            tiles += group[:n - len(tiles)]
        t = rng.choice(kinds)
        tiles += [t] * (n - len(tiles))  # (a pair, mostly)
        for _ in range(rng.choice([0, 1, 1, 2])):
            tiles[rng.randrange(n)] = rng.choice(kinds)
        if style >= 0.95:  # terminals and honors
            pick = [t for t in kinds if t >= HONOR_BASE or t % 9 in (0, 8)] or kinds
            tiles = [rng.choice(pick) for _ in range(n)]
    return tiles, tuple(melds)


@pytest.mark.parametrize("rid", RULESETS)
def test_possible_any_is_possible_of_some_tile(rid: str) -> None:
    ev = Evaluator(load_ruleset(rid))
    screen = ev.screen
    kinds = sorted(ev.kinds)
    rng = random.Random(f"possible_any {rid}")
    ruled_out = kept = 0
    for i in range(1000):
        tiles, melds = _hand(rng, kinds, ev.ruleset.hand.winning)
        wildcard = rng.choice([None, *kinds]) if i % 3 else None
        per_tile = any(screen.possible(tuple(tiles[:k] + tiles[k + 1:]), melds, t, wildcard)
                       for k, t in enumerate(tiles))
        if screen.possible_any(tiles, melds, wildcard):
            kept += 1
        else:
            assert not per_tile, (tiles, melds, wildcard)
            ruled_out += 1
        screen.clear_memo()
    assert kept > 2, kept
    if not rid.endswith(".yaml"):  # the shipped rulesets: most dealt hands are screened out at once
        assert ruled_out > 20, ruled_out
