"""The claim screen's kinds (:meth:`Evaluator.win_candidates_of`, from a seat's kept counts)
against the same asked of the tiles (:meth:`Evaluator.win_candidates`) and against full
scoring: every kind a hand wins on is among them ("no" is certain), on every shipped *and*
purpose-made ruleset (``tests/test_counts_paths.py`` asks the shipped ones in play).

Hands are drawn near complete shapes (groups of runs and triples, a pair, seven pairs, the
orphans, random tiles), some groups declared as melds, with each wildcard the ruleset may
turn up, stand-ins held or not; every shipped and purpose-made ruleset.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from mjframework.core.errors import HandError
from mjframework.core.hand import Hand, Meld, WinContext
from mjframework.evaluate.scoring import Evaluator
from mjframework.play.counted import count_tiles
from mjframework.rules.loader import load_ruleset

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
ALL = [*sorted(p.stem for p in (ROOT / "rulesets").glob("*.yaml")),
       *(str(p) for p in sorted((HERE / "rulesets").glob("*.yaml"))),
       str(HERE / "data" / "scoring" / "wild-measures.yaml")]
HANDS = 200


def _hand(rng: random.Random, kinds: list[int], extra: list[int], size: int
          ) -> tuple[list[int], list[Meld]]:
    """``size`` − 1 held tiles (+ melds) near a complete shape; ``extra``: kinds to sprinkle in
    (wild kinds, stand-ins)."""
    style = rng.random()
    groups: list[list[int]] = []
    if style < 0.15:
        pairs = rng.sample(kinds, min(len(kinds), size // 2))
        held = [t for t in pairs for _ in range(2)]
    elif style < 0.25:
        honors = [k for k in kinds if k >= 27 or k % 9 in (0, 8)]
        held = [rng.choice(honors) for _ in range(size)]
    else:
        for _ in range((size - 2) // 3):
            t = rng.choice(kinds)
            if rng.random() < 0.5 and t < 27 and t % 9 <= 6 and t + 1 in kinds and t + 2 in kinds:
                groups.append([t, t + 1, t + 2])
            elif rng.random() < 0.8:
                groups.append([t] * 3)
            else:
                groups.append([rng.choice(kinds) for _ in range(3)])
        held = [t for g in groups for t in g] + [rng.choice(kinds)] * 2
    for _ in range(rng.choice((0, 0, 1, 2, 3))):
        held[rng.randrange(len(held))] = rng.choice(extra or kinds)
    n_melds = rng.choice((0, 0, 1, 2)) if groups else 0
    melds = [Meld("pung" if g[0] == g[-1] else "chow", tuple(g)) for g in groups[:n_melds]]
    rest = held[3 * n_melds:]
    rest.remove(rng.choice(rest))
    if max(count_tiles(rest + [t for m in melds for t in m.tiles])) > 4:
        rest = [rng.choice(kinds) for _ in rest]
    return rest, melds


def _no_win_outside(ev: Evaluator, held: list[int], melds: list[Meld], wildcard: int | None,
                    got: set[int], where: str) -> None:
    """No kind outside the candidates wins by self-draw (full scoring; hands the ruleset
    refuses as tiles — a chow where it has none, a melded wildcard — are not scored)."""
    ctx = WinContext(win_by="self_draw")
    mine = count_tiles(held + [t for m in melds for t in m.tiles])
    for t in ev.kinds:
        if t in got or mine[t] >= ev.ruleset.tileset.copies:
            continue
        try:
            won = ev.score(Hand(tuple(held), tuple(melds), t), ctx, wildcard).win
        except HandError:
            return
        assert not won, f"{where}: wins on {t}, not a candidate"


@pytest.mark.parametrize("ref", ALL, ids=lambda r: Path(r).stem)
def test_candidates_match_the_tile_path_and_hold_every_win(ref: str) -> None:
    rs = load_ruleset(ref)
    ev = Evaluator(rs)
    kinds = list(ev.kinds)
    rule = rs.wildcard
    wildcards = [None, *rule.possible(kinds)] if rule is not None else [None]
    rng = random.Random(ref)
    ready = 0  # hands with a standard or pairs wait (a kind beyond the ones always in)
    for i in range(HANDS):
        wildcard = rng.choice(wildcards)
        wild, stand, _eff = ev.screen.wild_info(wildcard)
        extra = [*wild, *([stand] if stand is not None else [])]
        held, melds = _hand(rng, kinds, extra, rs.hand.size + 1)
        counts = count_tiles(held)
        where = f"{ref} #{i}: {held} {melds} wildcard {wildcard}"
        got = ev.win_candidates_of(counts, melds, wildcard)
        assert got == ev.win_candidates(held, melds, wildcard), where
        assert counts == count_tiles(held), where  # the caller's counts are not changed
        if i % 8 == 0 and got is not None:  # (full scoring is slow: every eighth hand)
            _no_win_outside(ev, held, melds, wildcard, got, where)
        ready += got is not None and bool(got - set(extra))
    assert ready >= HANDS // 20, "the hands drawn should often be ready"
