"""The pieces of ``Evaluator.is_win``'s first-sight path against their plain definitions.

``tests/test_fast_paths.py`` compares whole answers with the slow reference; these
tests pin the new table facts the path relies on, each against a brute-force
statement of what it means (counts and seeds fixed, no timing).
"""

from __future__ import annotations

import random

from mjframework.evaluate import wintable
from mjframework.evaluate.fastwin import _slack
from mjframework.rules.loader import load_ruleset


def _melds_only(block: list[int], seq: bool) -> bool:
    """Is ``block`` (one suit or the honors) exactly melds, by brute force?"""
    i = next((k for k, x in enumerate(block) if x), None)
    if i is None:
        return True
    if block[i] >= 3:
        b = block[:]
        b[i] -= 3
        if _melds_only(b, seq):
            return True
    if seq and i + 2 < len(block) and block[i + 1] and block[i + 2]:
        b = block[:]
        b[i] -= 1
        b[i + 1] -= 1
        b[i + 2] -= 1
        if _melds_only(b, seq):
            return True
    return False


def test_pair_ranks_are_the_ranks_whose_removal_leaves_melds() -> None:
    rng = random.Random(13)
    for _ in range(4000):
        seq = rng.random() < 0.75
        size = 9 if seq else 7
        block = [0] * size
        for _ in range(rng.choice((2, 5, 8, 11, 3, 6))):
            k = rng.randrange(size)
            if block[k] < 4:
                block[k] += 1
        want = frozenset(r for r in range(size) if block[r] >= 2 and sum(block) % 3 == 2
                         and _melds_only([x - 2 * (i == r) for i, x in enumerate(block)], seq))
        assert wintable.pair_ranks(bytes(block), seq) == want, (block, seq)


def test_pair_ranks_agree_with_need_melds_on_whole_hands() -> None:
    """On a natural standard win, a kind can be the pair exactly when its block's pair ranks
    hold it (the whole-hand check the first-sight path replaced)."""
    rng = random.Random(7)
    kinds = list(range(34))
    checked = 0
    while checked < 1500:
        c = [0] * 34
        for _ in range(4):
            t = rng.choice(kinds)
            if t < 27 and t % 9 <= 6 and rng.random() < 0.6:
                for x in (t, t + 1, t + 2):
                    c[x] += 1
            else:
                c[t] += 3
        c[rng.choice(kinds)] += 2
        if max(c) > 4 or not wintable.is_standard_win(c, 0):
            continue
        checked += 1
        b = bytes(c)
        for k in range(34):
            a, z, seq = next(blk for blk in wintable.BLOCKS if blk[0] <= k < blk[1])
            by_block = (k - a) in wintable.pair_ranks(b[a:z], seq)
            d = c[:]
            d[k] -= 2
            whole = c[k] >= 2 and wintable.need_melds(d) == 0
            assert by_block == whole, (c, k)


def test_slack_of_the_shipped_all_singles_shapes() -> None:
    """Knitted shapes hold no repeated kind, thirteen orphans one pair: the bounds the path
    uses to skip them (the readings themselves are checked by test_fast_paths)."""
    seen = set()
    for rid in ("yongzhou-wangba", "mcr"):
        for p in load_ruleset(rid).patterns:
            for s in p.shapes:
                if s.kind in ("knitted", "orphans"):
                    seen.add(s.kind)
                    assert _slack(s) == (0 if s.kind == "knitted" else 1)
                elif s.kind in ("standard", "pairs", "knitted_straight", "free"):
                    assert _slack(s) > 14
    assert seen == {"knitted", "orphans"}


def test_mcr_is_win_agrees_with_full_scoring_and_takes_the_sure_path() -> None:
    """国标 (8-fan minimum): ``is_win`` — table verdicts, sure wins by a pattern that holds on
    every reading and can't be excluded, else scoring — against full scoring itself, on the
    oracle generator's hands (every fan, then random ones; melds, kongs, flags, flowers), each
    asked in its own context and won by self-draw and on a discard. The sure-win rules must
    fire on some of them, or the test would not test them."""
    import mcr_hands

    from mjframework.core.hand import WinContext
    from mjframework.evaluate.scoring import Evaluator

    ev = Evaluator(load_ruleset("mcr"))
    screen = ev.screen
    assert screen.sure_min, "mcr should compile some sure-win rules"
    fired = 0
    real = screen._sure_min

    def counting(c, melds):  # type: ignore[no-untyped-def]
        nonlocal fired
        ok = real(c, melds)
        fired += ok
        return ok

    screen._sure_min = counting  # type: ignore[method-assign]
    wins = 0
    n = 0
    for h in mcr_hands.hands(3, n_random=900, per_fan=3):
        hand, ctx = mcr_hands.engine_input(h)
        for c in (ctx, WinContext(seat=ctx.seat, win_by="self_draw", dealer=ctx.dealer, flowers=ctx.flowers,
                                  seat_wind=ctx.seat_wind, prevalent_wind=ctx.prevalent_wind)):
            want = ev._score(hand, c, None).win
            screen.clear_memo()
            assert ev.is_win(hand, c) == want, (hand, c)
            wins += want
            n += 1
    print(f"sure wins {fired}, wins {wins} of {n}")
    assert fired >= 20, fired
    assert 0 < wins < n


def test_stand_ins_screened_as_wildcards_rule_out_every_reading() -> None:
    """When the stand-ins, taken as plain wildcards, fit no shape, no way of reading them fits
    one either (the screen then skips the readings): checked per reading with the tables and
    the quick tests, on random hands holding stand-ins (yongzhou: 中 stands in for a suited
    wildcard), and the screen must say so on a good share of them (else this tests nothing)."""
    from mjframework.evaluate.scoring import Evaluator

    ev = Evaluator(load_ruleset("yongzhou-wangba"))
    screen = ev.screen
    rng = random.Random(5)
    wall = [t for t in ev.ruleset.tileset.full_wall() if t < 34]
    screened = tried = 0
    while tried < 3000:
        wildcard = rng.choice([k for k in ev.kinds if k < 27])
        wild, stand, eff = screen.wild_info(wildcard)
        assert stand is not None
        tiles = rng.sample(wall, 14)
        if rng.random() < 0.5:
            tiles[:2] = [stand, stand]
        c = bytearray(34)
        for t in tiles:
            c[t] += 1
        w = sum(c[k] for k in wild)
        for k in wild:
            c[k] = 0
        s = c[stand]
        if not s:
            continue
        c[stand] = 0
        tried += 1
        dups = 14 - w - s - 34 + c.count(0)
        if not screen._stand_ins_never_fit(bytes(c), w, s, 14, 0, dups):
            continue
        screened += 1
        for split in screen._splits(c, s, stand, eff):
            v = bytes(split)
            assert not wintable.is_standard_win(v, w), (tiles, wildcard)
            assert wintable.need_pairs(v) > w, (tiles, wildcard)
            d = 14 - w - 34 + v.count(0)
            for shape, may_fit, slack in screen.other:
                assert d > slack or not may_fit(v, 14), (tiles, wildcard, shape.kind)
    assert screened > 1000, screened
