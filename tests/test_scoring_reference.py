"""Differential test: the scoring's reading search against the slow reference.

``Evaluator.score`` judges readings with the pattern judge generated for the ruleset
(``evaluate/codegen.py``) and only the readings that can decide the result (one reading
when no pattern looks at it; groups of wildcards alone read as one kind per class of
kinds the patterns can't tell apart). ``tests/slow_reference.py`` keeps the previous
algorithm, which judges every reading of every shape, one pattern at a time with the
interpreted requirements. Both must give identical
results — win or not and why, patterns with their points and times, points, payments
and the call — on hands of every shipped ruleset, the purpose-made ones under
``tests/rulesets`` and ``tests/data/scoring``, with 0–4 wildcards, exposed melds and
kongs, every win context and flag (the hands of ``test_fast_paths.random_case``).

``MJ_SCORING_HANDS`` sets the hands per ruleset: 1,000 by default (CI time), 10,000
for the full check (``MJ_SCORING_HANDS=10000 python -m pytest tests/test_scoring_reference.py``).
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
import slow_reference as ref
from test_fast_paths import RULESETS, _complete, random_case

from mjframework.core.errors import HandError
from mjframework.core.hand import Hand, WinContext, check_hand
from mjframework.evaluate.scoring import Evaluator, Result, Score
from mjframework.rules.loader import load_ruleset

HERE = Path(__file__).resolve().parent
HANDS = int(os.environ.get("MJ_SCORING_HANDS", "1000"))
# Every shipped ruleset (those test_fast_paths leaves out too), the purpose-made ones.
SHIPPED = sorted(p.stem for p in (HERE.parent / "rulesets").glob("*.yaml"))
ALL = [*RULESETS, *(r for r in SHIPPED if r not in RULESETS),
       str(HERE / "data" / "scoring" / "wild-measures.yaml")]


def _reference(ev: Evaluator, hand: Hand, ctx: WinContext, wildcard: int | None) -> Result:
    score = ref.score(ev, hand, ctx, wildcard)
    if not score.win:
        return Result(score, None)
    return Result(score, ev.settle(hand, ctx, score), ev.call(ctx, score))


def _facts(r: Result) -> tuple:
    s: Score = r.score
    return (s.win, s.reason, s.points, s.uncapped, s.wildcard,
            [(p.name, p.points, p.times) for p in s.patterns], r.payments, r.call)


def _winning(ev: Evaluator, rng: random.Random) -> tuple[Hand, WinContext, int | None]:
    """random_case, with hands the engine can win (the rest of the time) preferred 3 to 1."""
    for _ in range(4):
        hand, ctx, wildcard = random_case(ev, rng)
        if ev.is_win(hand, ctx, wildcard):
            break
    return hand, ctx, wildcard


@pytest.mark.parametrize("rid", ALL, ids=lambda r: Path(r).stem)
def test_score_matches_reference(rid: str) -> None:
    ev = Evaluator(load_ruleset(rid))
    rng = random.Random(f"score {Path(rid).stem}")
    wins = wild = 0
    for i in range(HANDS):
        hand, ctx, wildcard = _winning(ev, rng)
        want = _reference(ev, hand, ctx, wildcard)
        got = ev.evaluate(hand, ctx, wildcard)
        assert _facts(got) == _facts(want), (i, hand, ctx, wildcard)
        if got.score.win:
            # The reading reported is one of the hand's readings and judges to the same result.
            assert got.score.reading is not None
            wins += 1
            wild += any(t in ev.wild_kinds(got.score.wildcard) for t in (*hand.concealed, hand.win_tile))
    assert wins > HANDS // 20, wins
    if ev.ruleset.wildcard is not None:
        assert wild > HANDS // 20, wild


def _free_group_case(ev: Evaluator, rng: random.Random) -> tuple[Hand, WinContext, int | None]:
    """A complete concealed hand with one whole meld (and sometimes one more tile) turned into
    wildcards: the reading search's classes of kinds decide what that meld is read as."""
    _hand, ctx, wildcard = random_case(ev, rng)  # a context and a wildcard
    wild = sorted(ev.wild_kinds(ev.wildcard_from(wildcard) if wildcard is not None else None))
    kinds = [k for k in ev.kinds if k not in wild and k != ev.stand_in_for(wildcard)]
    while True:
        pool = [t for t in ev.ruleset.tileset.full_wall() if t in kinds]
        rng.shuffle(pool)
        tiles = _complete(rng, pool, kinds, 4)
        if tiles is None:
            continue
        tiles[:3] = [rng.choice(wild)] * 3  # the first meld _complete took
        if rng.random() < 0.5:
            tiles[rng.randrange(3, 14)] = rng.choice(wild)
        rng.shuffle(tiles)
        hand = Hand(tuple(tiles[:-1]), (), tiles[-1])
        try:
            check_hand(hand, ev.ruleset, wildcard)
        except HandError:
            continue
        return hand, ctx, wildcard


WILD = ["yongzhou-wangba", "yongzhou-huandiao", str(HERE / "rulesets" / "hongzhong.yaml"),
        str(HERE / "data" / "scoring" / "wild-measures.yaml")]


@pytest.mark.parametrize("rid", WILD, ids=lambda r: Path(r).stem)
def test_wildcard_meld_matches_reference(rid: str) -> None:
    """Hands whose wildcards make up a whole group: what it stands for is where the search
    reads one kind per class."""
    ev = Evaluator(load_ruleset(rid))
    rng = random.Random(f"free groups {Path(rid).stem}")
    wins = 0
    for i in range(max(HANDS // 2, 100)):
        hand, ctx, wildcard = _free_group_case(ev, rng)
        want = _reference(ev, hand, ctx, wildcard)
        got = ev.evaluate(hand, ctx, wildcard)
        assert _facts(got) == _facts(want), (i, hand, ctx, wildcard)
        wins += got.score.win
    assert wins > HANDS // 10, wins


@pytest.mark.parametrize("rid", WILD, ids=lambda r: Path(r).stem)
def test_first_reading_and_visit_agree_with_every_reading(rid: str) -> None:
    """``readings(first=True)`` finds a reading exactly when there is one, and it is one of
    them; ``visit`` sees every reading (until it stops the search)."""
    from mjframework.evaluate.readings import readings

    ev = Evaluator(load_ruleset(rid))
    rng = random.Random(f"first {Path(rid).stem}")
    for i in range(max(HANDS // 4, 100)):
        hand, _ctx, wildcard = _free_group_case(ev, rng) if i % 2 else random_case(ev, rng)
        full = ev.split([*hand.concealed, hand.win_tile], wildcard)
        for shape in ev.shapes:
            every = readings(full, hand.melds, shape, ev.kinds)
            first = readings(full, hand.melds, shape, ev.kinds, first=True)
            assert bool(first) == bool(every), (i, hand, wildcard, shape)
            assert len(first) <= 1 or shape.kind not in ("standard", "pairs")
            canon = {tuple(sorted(r.groups, key=repr)) for r in every}
            assert all(tuple(sorted(r.groups, key=repr)) in canon for r in first), (i, hand, wildcard, shape)
            seen: list = []
            readings(full, hand.melds, shape, ev.kinds, visit=lambda r, seen=seen: seen.append(r) is not None)
            assert {tuple(sorted(r.groups, key=repr)) for r in seen} == canon, (i, hand, wildcard, shape)


@pytest.mark.parametrize("rid", ALL, ids=lambda r: Path(r).stem)
def test_waiting_tiles_matches_reference(rid: str) -> None:
    """The `waiting_tiles` measure (kinds that complete the held tiles) skips lone kinds; the
    count is the one every kind gives."""
    ev = Evaluator(load_ruleset(rid))
    rng = random.Random(f"waiting {Path(rid).stem}")
    for i in range(max(HANDS // 2, 100)):
        hand, _ctx, wildcard = random_case(ev, rng)
        want = ref.waiting_tiles(ev, hand.concealed, hand.melds, wildcard)
        assert ev.waiting_tiles(hand.concealed, hand.melds, wildcard) == want, (i, hand, wildcard)


@pytest.mark.parametrize("rid", ALL, ids=lambda r: Path(r).stem)
def test_one_pass_split_of_a_win_is_the_split_of_its_tiles(rid: str) -> None:
    """``Evaluator._split_won`` (the 14 tiles split in one pass, with the wildcards held) is
    ``split`` of the 14 tiles and ``split(held).wilds``, with wildcards and stand-ins held
    and won (the wildcard's own kind, stand-ins and the fixed kinds made likelier)."""
    ev = Evaluator(load_ruleset(rid))
    rng = random.Random(f"split {Path(rid).stem}")
    for i in range(max(HANDS // 4, 100)):
        hand, _ctx, wildcard = random_case(ev, rng)
        wc = wildcard if wildcard is not None else ev._default_wild
        special = sorted(ev.wild_kinds(wc) | {ev.stand_in_for(wc)} - {None})
        held = list(hand.concealed)
        win = hand.win_tile
        if special and rng.random() < 0.5:  # (not checked as a hand: counts only)
            held[rng.randrange(len(held))] = rng.choice(special)
            if rng.random() < 0.3:
                win = rng.choice(special)
        assert win is not None
        full, held_wilds = ev._split_won(held, win, wc, ev._is_wild(win, wc))
        want = (ev.split([*held, win], wc), ev.split(held, wc).wilds)
        assert (full, held_wilds) == want, (i, held, win, wc)


@pytest.mark.parametrize("rid", ALL, ids=lambda r: Path(r).stem)
def test_a_concealed_hand_checked_in_the_split_is_refused_as_check_hand_refuses_it(rid: str) -> None:
    """``score`` checks a concealed hand of the right size in the pass that splits it: a tile
    outside the set (a flower, a kind the set leaves out) or one copy too many, held or won,
    is the same HandError, with the same words, as ``check_hand``'s; a hand that fits scores."""
    ev = Evaluator(load_ruleset(rid))
    rng = random.Random(f"check {Path(rid).stem}")
    outside = [k for k in range(34) if k not in ev.kinds] + [34, 41]  # (34+: flowers)
    refused = 0
    for i in range(max(HANDS // 4, 100)):
        hand, ctx, wildcard = random_case(ev, rng)
        if hand.melds:
            continue
        tiles = [*hand.concealed, hand.win_tile]
        how = rng.randrange(4)
        if how == 1:
            tiles[rng.randrange(len(tiles))] = rng.choice(outside)
        elif how >= 2:
            kind = rng.choice(tiles)
            where = [j for j, t in enumerate(tiles) if t != kind]
            rng.shuffle(where)
            for j in where[:ev.ruleset.tileset.copies + 1 - tiles.count(kind)]:
                tiles[j] = kind
            if how == 3:  # (the winning tile one of them)
                j = tiles.index(kind)
                tiles[j], tiles[-1] = tiles[-1], tiles[j]
        bad = Hand(tuple(tiles[:-1]), (), tiles[-1])
        try:
            check_hand(bad, ev.ruleset, wildcard)
        except HandError as e:
            refused += 1
            with pytest.raises(HandError) as got:
                ev.score(bad, ctx, wildcard)
            assert str(got.value) == str(e), (i, bad)
        else:
            assert isinstance(ev.score(bad, ctx, wildcard), Score)
    assert refused > HANDS // 20, refused
