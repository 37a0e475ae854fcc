"""Differential test: the table-driven fast paths against their slow references.

``Evaluator.is_win`` / ``Evaluator.waits`` (:mod:`mjframework.evaluate.fastwin`) must
give exactly the answers of the previous implementation (kept in
``tests/slow_reference.py``) on many hands per ruleset: every shipped
ruleset and the purpose-made ones under ``tests/rulesets``; 0–4 wildcards
(flipped or fixed), exposed melds and kongs, every win context and flag,
declared void suits. Hands are near-complete (a complete hand with a few
tiles swapped) or random from the wall, so both the accepting and the
rejecting paths are exercised. Every hand is asked twice, in two contexts:
the second answer comes from the verdict ``is_win`` remembered for the
first. Counts and seeds are fixed.

Size: ``MJ_FAST_PATH_HANDS`` hands per shipped ruleset (default 10,000) for ``is_win``
(each in two contexts) and the bot's discard, and a sixth of that for
``waits`` (34 reference ``is_win`` calls each); a quarter of those for each purpose-made
ruleset of tests/rulesets/ (24 of them: each tests one feature of the language, on
hands that exercise it as often as the shipped rulesets' do). The default run takes about
52 s of CPU time for the whole file (measured on the shared 2-core machine,
2026-11-30); ``MJ_FAST_PATH_HANDS=1000`` is a quick look (about 8 s).
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
import slow_reference as ref

from mjframework.core.errors import HandError
from mjframework.core.hand import Hand, Meld, WinContext, check_hand
from mjframework.core.tiles import HONOR_BASE
from mjframework.evaluate import wintable
from mjframework.evaluate.scoring import Evaluator
from mjframework.play.bots import GreedyBot, _discard_by_blocks
from mjframework.rules.loader import load_ruleset
from mjframework.rules.model import FLAGS

HERE = Path(__file__).resolve().parent
RULESETS = ["changsha", "yongzhou-wangba", "yongzhou-huandiao", "sichuan-xuezhan", "mcr", "taiwan-16",
            *(str(p) for p in sorted((HERE / "rulesets").glob("*.yaml")))]
SHIPPED = RULESETS[:6]
HANDS = int(os.environ.get("MJ_FAST_PATH_HANDS", "10000"))  # is_win and discard: per ruleset
WAIT_HANDS = max(100, HANDS // 6)  # waits (34 reference is_win calls each): per ruleset


def _hands(rid: str, n: int) -> int:
    """``n`` for a shipped ruleset, a quarter (at least 100) for a purpose-made one."""
    return n if rid in SHIPPED else max(100, n // 4)


def _evaluator(rid: str) -> Evaluator:
    return Evaluator(load_ruleset(rid))


def _meld(rng: random.Random, pool: list[int], kinds: list[int]) -> Meld | None:
    """A random exposed meld whose tiles are taken from ``pool`` (None if it can't be made)."""
    kind = rng.choice(["chow", "pung", "pung", "kong", "concealed-kong", "added-kong"])
    for _ in range(20):
        t = rng.choice(kinds)
        if kind == "chow":
            if t >= HONOR_BASE or t % 9 > 6 or t + 1 not in kinds or t + 2 not in kinds:
                continue
            tiles = [t, t + 1, t + 2]
        else:
            tiles = [t] * (3 if kind == "pung" else 4)
        if all(pool.count(x) >= tiles.count(x) for x in set(tiles)):
            for x in tiles:
                pool.remove(x)
            seat = None if kind in ("concealed-kong", "added-kong") else rng.choice([1, 2, 3])
            return Meld(kind, tuple(tiles), seat)
    return None


def _complete(rng: random.Random, pool: list[int], kinds: list[int], melds: int) -> list[int] | None:
    """``melds`` melds + a pair taken from ``pool``, or None."""
    out: list[int] = []
    for _ in range(melds):
        for _ in range(30):
            t = rng.choice(kinds)
            seq = t < HONOR_BASE and t % 9 <= 6 and t + 2 in kinds and rng.random() < 0.6
            tiles = [t, t + 1, t + 2] if seq else [t, t, t]
            if all(pool.count(x) >= tiles.count(x) for x in set(tiles)):
                for x in tiles:
                    pool.remove(x)
                out += tiles
                break
        else:
            return None
    for _ in range(30):
        t = rng.choice(kinds)
        if pool.count(t) >= 2:
            pool.remove(t)
            pool.remove(t)
            return [*out, t, t]
    return None


def _pairs(rng: random.Random, pool: list[int], kinds: list[int], n: int) -> list[int] | None:
    out: list[int] = []
    for _ in range(n):
        for _ in range(30):
            t = rng.choice(kinds)
            if pool.count(t) >= 2:
                pool.remove(t)
                pool.remove(t)
                out += [t, t]
                break
        else:
            return None
    return out


def _singles(rng: random.Random, pool: list[int], kinds: list[int]) -> list[int] | None:
    """14 tiles for knitted / thirteen-orphans shapes: terminals and honors, or 1-4-7 / 2-5-8 / 3-6-9
    in different suits and honors (with the odd tile out of place)."""
    if rng.random() < 0.5:
        pick = [t for t in kinds if t >= HONOR_BASE or t % 9 in (0, 8)]
        tiles = [*pick, rng.choice(pick)]
    else:
        starts = rng.sample(range(3), 3)
        pick = [s * 9 + r for s, start in enumerate(starts) for r in (start, start + 3, start + 6)]
        pick = [t for t in pick + list(range(HONOR_BASE, 34)) if t in kinds]
        tiles = rng.sample(pick, min(14, len(pick)))
    tiles = tiles[:14]
    if len(tiles) < 14 or any(pool.count(t) < tiles.count(t) for t in set(tiles)):
        return None
    for t in tiles:
        pool.remove(t)
    return tiles


def random_context(ev: Evaluator, rng: random.Random, seat: int) -> WinContext:
    """A random win context for the winner at ``seat``: how the tile came, dealer, flags, void suit."""
    rs = ev.ruleset
    win_by = rng.choice(["self_draw", "self_draw", "discard", "discard", "robbed_kong"])
    dealer = rng.randrange(rs.players)
    discarder = None if win_by == "self_draw" else rng.choice([s for s in range(rs.players) if s != seat])
    flags = frozenset(f for f in (*FLAGS, *rs.flags) if rng.random() < 0.12)
    state = {}
    if rs.flow.void_suit is not None and rng.random() < 0.7:
        state["void_suit"] = rng.choice("mps")
    return WinContext(seat=seat, win_by=win_by, discarder=discarder, flags=flags, dealer=dealer,
                      seat_state=state)


def random_case(ev: Evaluator, rng: random.Random) -> tuple[Hand, WinContext, int | None]:
    """One hand (``hand.size`` - 3 per meld tiles + a winning tile), a context and a wildcard."""
    rs = ev.ruleset
    kinds = list(ev.kinds)
    rule = rs.wildcard
    wildcard = None
    if rule is not None:
        if rule.flips:
            wildcard = rng.choice(sorted(set(rule.wildcard_for(i) for i in (rule.successors or kinds))))
        elif rule.fixed:
            wildcard = rule.fixed[0]
    wild = ev.wild_kinds(ev.wildcard_from(wildcard) if wildcard is not None else None)
    while True:
        pool = rs.tileset.full_wall()
        rng.shuffle(pool)
        most = rs.hand.max_melds  # (4 for 13-tile hands, 5 for 16)
        n_melds = rng.choice([0, 0, 0, 1, 1, 2, 3, 4] + ([most] if most > 4 else []))
        melds = []
        for _ in range(n_melds):
            m = _meld(rng, pool, kinds)
            if m is not None:
                melds.append(m)
        size = rs.hand.winning - 3 * len(melds)
        style = rng.random()
        if style < 0.45:
            tiles = _complete(rng, pool, kinds, (size - 2) // 3)
        elif style < 0.55 and not melds and size == 14:
            tiles = _pairs(rng, pool, kinds, 7)
        elif style < 0.62 and not melds and size == 14:
            tiles = _singles(rng, pool, kinds)
        else:
            tiles = [pool.pop() for _ in range(size)]
        if tiles is None:
            continue
        # Swap a few tiles for random ones (near-complete, ready, not ready).
        for _ in range(rng.choice([0, 0, 1, 1, 2, 3])):
            i = rng.randrange(len(tiles))
            pool.append(tiles[i])
            tiles[i] = pool.pop(0)
        # Put in 0-4 wildcards (where the ruleset has any).
        if wild:
            k = rng.choice([0, 0, 1, 2, 3, 4])
            spare = [t for t in pool if t in wild]
            for _ in range(min(k, len(spare))):
                i = rng.randrange(len(tiles))
                pool.append(tiles[i])
                tiles[i] = spare.pop()
                pool.remove(tiles[i])
        rng.shuffle(tiles)
        break
    seat = rng.randrange(rs.players)
    ctx = random_context(ev, rng, seat)
    melds = [Meld(m.kind, m.tiles, (seat + 1 + (m.from_seat - 1) % (rs.players - 1)) % rs.players)
             if m.from_seat is not None else m
             for m in melds]  # claimed from another seat
    hand = Hand(tuple(tiles[:-1]), tuple(melds), tiles[-1])
    try:
        check_hand(hand, rs, wildcard)  # only hands the ruleset allows (its melds, its tiles)
    except HandError:
        return random_case(ev, rng)
    return hand, ctx, wildcard


@pytest.mark.parametrize("rid", RULESETS, ids=lambda r: Path(r).stem)
def test_is_win_matches_reference(rid: str) -> None:
    ev = _evaluator(rid)
    rng = random.Random(f"is_win {Path(rid).stem}")
    wins = 0
    n = _hands(rid, HANDS)
    for i in range(n):
        hand, ctx, wildcard = random_case(ev, rng)
        want = ref.is_win(ev, hand, ctx, wildcard)
        got = ev.is_win(hand, ctx, wildcard)
        assert got == want, (i, hand, ctx, wildcard)
        wins += want
        # The same tiles again (a fresh but equal hand), in another context: the remembered
        # table verdict must give the same answer as the reference there too.
        ctx2 = random_context(ev, rng, ctx.seat)
        again = Hand(tuple(hand.concealed), tuple(hand.melds), hand.win_tile)
        assert ev.is_win(again, ctx2, wildcard) == ref.is_win(ev, hand, ctx2, wildcard), (i, hand, ctx2)
        # The context-free screen the game asks first never rules out a win.
        if want:
            assert ev.screen.possible(list(hand.concealed), list(hand.melds), hand.win_tile, wildcard)
    # Both answers occur often enough for the comparison to mean something.
    assert n // 50 < wins < n - n // 50, wins


@pytest.mark.parametrize("rid", RULESETS, ids=lambda r: Path(r).stem)
def test_waits_match_reference(rid: str) -> None:
    ev = _evaluator(rid)
    rng = random.Random(f"waits {Path(rid).stem}")
    ready = 0
    n = _hands(rid, WAIT_HANDS)
    for i in range(n):
        hand, ctx, wildcard = random_case(ev, rng)
        want = ref.waits(ev, hand.concealed, hand.melds, ctx, wildcard)
        got = ev.waits(hand.concealed, hand.melds, ctx, wildcard)
        assert got == want, (i, hand, ctx, wildcard)
        ready += bool(want)
    assert ready > n // 50, ready


@pytest.mark.parametrize("rid", RULESETS, ids=lambda r: Path(r).stem)
def test_waiting_tiles_match_reference(rid: str) -> None:
    """The ``waiting_tiles`` measure checks only candidate kinds; the count must not change."""
    ev = _evaluator(rid)
    rng = random.Random(f"waiting_tiles {Path(rid).stem}")
    waiting = 0
    n = _hands(rid, WAIT_HANDS)
    for i in range(n):
        hand, _ctx, wildcard = random_case(ev, rng)
        want = ref.waiting_tiles(ev, hand.concealed, hand.melds, wildcard)
        assert ev.waiting_tiles(hand.concealed, hand.melds, wildcard) == want, (i, hand, wildcard)
        waiting += bool(want)
    assert waiting > n // 50, waiting


@pytest.mark.parametrize("rid", RULESETS, ids=lambda r: Path(r).stem)
def test_bot_discard_matches_reference(rid: str) -> None:
    """The greedy bot's discard choice (per-block need tables) is the previous one on the same hands."""
    ev = _evaluator(rid)
    rng = random.Random(f"discard {Path(rid).stem}")
    bot = GreedyBot(random.Random(0))
    for i in range(_hands(rid, HANDS)):
        hand, _ctx, wildcard = random_case(ev, rng)
        wild = ev.wild_kinds(wildcard)
        tiles = [*hand.concealed, hand.win_tile]
        if rng.random() < 0.3:  # after a claimed pung / chow: two tiles fewer, as in GreedyBot._claim
            tiles = tiles[2:]
        c = [0] * 34
        w = 0
        for t in tiles:
            if t in wild:
                w += 1
            else:
                c[t] += 1
        cands = [t for t in range(34) if c[t]]
        before = c[:]
        want = ref.best_discard(c, w, cands)
        assert bot._best_discard(c, w, cands) == want, (i, tiles, wildcard)
        need, tile = _discard_by_blocks(c)  # the usual turn's path: every kind held a candidate
        assert (need - w if tile is not None else 99, tile) == want, (i, tiles, wildcard)
        assert c == before


def test_discard_needs_is_need_melds_pair_of_each_reduced_hand() -> None:
    """wintable.discard_needs gives need_melds_pair of the hand less each candidate, on and off the tables."""
    rng = random.Random("discard_needs")
    for _ in range(3000):
        c = [0] * 34
        for _ in range(rng.choice([5, 8, 11, 14, 14, 17])):
            c[rng.randrange(34)] += 1
        if rng.random() < 0.1:  # a block beyond the tables (more than 4 of a kind)
            c[rng.randrange(34)] += 5
        cands = [t for t in range(34) if c[t]]
        want = []
        for t in cands:
            c[t] -= 1
            want.append(wintable.need_melds_pair(c))
            c[t] += 1
        assert wintable.discard_needs(c, cands) == want, c
        # the bot's block-by-block choice: the least of those needs, the tie-break's tile
        assert _discard_by_blocks(c) == ref.best_discard(c, 0, cands), c
    with pytest.raises(ValueError):
        wintable.discard_needs([0] * 34, [3])


def test_is_win_takes_tile_lists_and_a_full_memo() -> None:
    """Hands given as lists (unhashable) are judged without the memo; a memo that fills up is
    emptied and goes on giving the same answers."""
    from mjframework.evaluate import fastwin

    ev = _evaluator("changsha")
    rng = random.Random("memo")
    cases = [random_case(ev, rng) for _ in range(300)]
    want = [ref.is_win(ev, h, c, w) for h, c, w in cases]
    as_lists = [ev.is_win(Hand(list(h.concealed), h.melds, h.win_tile), c, w) for h, c, w in cases]  # type: ignore[arg-type]
    assert as_lists == want
    old = fastwin.MEMO_SIZE
    fastwin.MEMO_SIZE = 50
    try:
        ev.screen.clear_memo()
        for _ in range(2):
            assert [ev.is_win(h, c, w) for h, c, w in cases] == want
            assert len(ev.screen._memo) <= 50
    finally:
        fastwin.MEMO_SIZE = old


def test_score_after_is_win_is_a_fresh_score() -> None:
    """``Evaluator.score`` reuses the score ``is_win`` just worked out for the same inputs
    (mcr: its minimum makes ``is_win`` score every hand a shape fits): it must equal a
    fresh one, be a copy, and not be reused once the inputs differ."""
    ev = _evaluator("mcr")
    rng = random.Random("score again mcr")
    reused = 0
    for i in range(max(200, HANDS // 10)):
        hand, ctx, wildcard = random_case(ev, rng)
        ev.is_win(hand, ctx, wildcard)
        last = ev.screen.last_scored
        try:
            got = ev.score(hand, ctx, wildcard)
        except HandError:
            continue
        assert got == ev._score(hand, ctx, wildcard), (i, hand, ctx)
        if last is not None and last[0] is hand:
            reused += 1
            assert got is not last[5] and got.patterns is not last[5].patterns
            other = random_context(ev, rng, ctx.seat)
            assert ev.score(hand, other, wildcard) == ev._score(hand, other, wildcard), (i, hand, other)
    assert reused > 10, reused


def test_a_free_pattern_of_a_few_wildcards_screens_out_hands_with_fewer() -> None:
    """A free pattern (``shape: any``) that requires N wildcards (红中's 四红中) fits no hand
    holding fewer: the screen says no without scoring, yet every hand holding them wins, and
    a 13-tile hand holding N-1 waits on a wildcard only, one holding N on every kind."""
    from mjframework.core.tiles import parse_tiles

    ev = _evaluator("hongzhong")
    ctx = WinContext(win_by="self_draw")
    junk = parse_tiles("19m 258p 147s")  # fits no standard or seven-pairs reading
    for wilds, wins in ((3, False), (4, True)):
        held = [*junk, *parse_tiles("中" * wilds), *parse_tiles("39m 69s")[:13 - len(junk) - wilds]]
        win = parse_tiles("5m")[0]
        hand = Hand(tuple(held), (), win)
        assert ev.screen.possible(held, [], win, None) is wins
        assert ev.is_win(hand, ctx) is wins is ref.is_win(ev, hand, ctx)
        assert ev.waits(held, [], ctx) == ref.waits(ev, held, [], ctx)
    assert ev.waits([*junk, *parse_tiles("中中中 39m 6s")], [], ctx) == parse_tiles("中")
