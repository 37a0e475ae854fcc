"""Property tests of the scoring engine (:class:`mjframework.scoring.Evaluator`).

Hands are built from the rules of the game, not from the engine: four melds
(sequences within a suit, triplets, honors only as triplets) and a pair taken
from the ruleset's tile set with at most four copies of a kind, then wildcard
copies put in place of some tiles, some melds laid down as exposed melds, and
one tile taken out as the winning tile. Every such hand must win, and the
result must not depend on tile order, must settle to zero, and must come with
a reading that is really made of melds and pairs of the hand's tiles.
"""

from __future__ import annotations

import functools
from collections import Counter
from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, assume, find, given, settings
from hypothesis import strategies as st

from mjframework import wintable
from mjframework.hand import Hand, Meld, WinContext
from mjframework.model import FLAGS
from mjframework.ruleset import load_ruleset
from mjframework.scoring import Evaluator, Result
from mjframework.tiles import NUM_KINDS, counts_of, format_tiles, is_honor

RULESETS = ("yongzhou-huandiao", "yongzhou-wangba", "changsha")
WILD_RULESETS = ("yongzhou-huandiao", "yongzhou-wangba")

SETTINGS = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}


@functools.cache
def evaluator(rid: str) -> Evaluator:
    return Evaluator(load_ruleset(rid))


def _pair_258(rid: str) -> bool:
    """changsha's 平胡 needs a 2, 5 or 8 pair: generated hands use one so they always win."""
    return rid == "changsha"


# ---------------------------------------------------------------------------
# building hands


@st.composite
def standard_groups(draw, rid: str,
                    start: tuple[tuple[str, tuple[int, ...]], ...] = ()
                    ) -> list[tuple[str, tuple[int, ...]]]:
    """4 melds + a pair from the ruleset's tile set, at most 4 copies of a kind
    (``start``: groups already chosen, counted against the copies)."""
    kinds = evaluator(rid).kinds
    groups = list(start)
    counts: Counter[int] = Counter(t for _, ts in groups for t in ts)
    while sum(g[0] != "pair" for g in groups) < 4:
        seq_starts = [k for k in kinds if not is_honor(k) and k % 9 <= 6
                      and all(counts[k + i] < 4 for i in range(3))]
        triplets = [k for k in kinds if counts[k] <= 1]
        if seq_starts and draw(st.booleans()):
            s = draw(st.sampled_from(seq_starts))
            g = ("seq", (s, s + 1, s + 2))
        else:
            k = draw(st.sampled_from(triplets))
            g = ("triplet", (k, k, k))
        counts.update(g[1])
        groups.append(g)
    if not any(g[0] == "pair" for g in groups):
        pairs = [k for k in kinds if counts[k] <= 2
                 and (not _pair_258(rid) or (not is_honor(k) and k % 9 in (1, 4, 7)))]
        p = draw(st.sampled_from(pairs))
        groups.append(("pair", (p, p)))
    return groups


@st.composite
def groups_with_five(draw, rid: str) -> tuple[int, list[tuple[str, tuple[int, ...]]]]:
    """A complete hand holding five of one kind (one of them must then be a wildcard)."""
    k = draw(st.sampled_from(evaluator(rid).kinds), label="five of")
    seqs = [("seq", (s, s + 1, s + 2)) for s in (k - 2, k - 1, k)
            if not is_honor(k) and s >= 0 and s // 9 == k // 9 and s % 9 <= 6]
    templates = [(("triplet", (k,) * 3), ("pair", (k, k)))]
    if seqs:
        a = draw(st.sampled_from(seqs))
        b = draw(st.sampled_from(seqs))
        c = draw(st.sampled_from(seqs))
        templates += [(("triplet", (k,) * 3), a, b), (("pair", (k, k)), a, b, c)]
    start = draw(st.sampled_from(templates))
    counts = Counter(t for _, ts in start for t in ts)
    assume(all(n <= 4 for t, n in counts.items() if t != k))
    return k, draw(standard_groups(rid, start=start))


@st.composite
def seven_pairs_tiles(draw, rid: str) -> list[int]:
    kinds = evaluator(rid).kinds
    counts: Counter[int] = Counter()
    for _ in range(7):
        k = draw(st.sampled_from([k for k in kinds if counts[k] <= 2]))
        counts[k] += 2
    return sorted(counts.elements())


@dataclass
class Built:
    """A generated winning hand and how it was made (printed on failure)."""

    rid: str
    concealed: tuple[int, ...]
    melds: tuple[Meld, ...]
    win_tile: int
    wildcard: int | None
    seat: int = 0

    @property
    def hand(self) -> Hand:
        return Hand(self.concealed, self.melds, self.win_tile)

    def __repr__(self) -> str:
        w = "" if self.wildcard is None else f" wildcard={format_tiles([self.wildcard])}"
        ms = "".join(f" [{m}]" for m in self.melds)
        return (f"Built({self.rid}: {format_tiles(sorted(self.concealed))} "
                f"+ {format_tiles([self.win_tile])}{ms}{w} seat={self.seat})")


def _exposed(draw, rid: str, g: tuple[str, tuple[int, ...]], counts: Counter[int],
             seat: int) -> Meld | None:
    """Lay a generated meld down as an exposed meld, if the ruleset allows its kind."""
    ev = evaluator(rid)
    kind, tiles = g
    if kind == "seq":
        if not ev.ruleset.claims.get("chow"):
            return None
        return Meld("chow", tiles)
    options = ["pung"]
    if counts[tiles[0]] == 3:  # the fourth copy is free: it may be a kong
        options += ["kong", "added-kong", "concealed-kong"]
    mk = draw(st.sampled_from(options))
    if mk == "pung":
        return Meld("pung", tiles)
    counts[tiles[0]] += 1
    from_seat = draw(st.sampled_from([s for s in range(4) if s != seat])) if mk == "kong" else None
    return Meld(mk, (tiles[0],) * 4, from_seat)


@st.composite
def winning_hands(draw, rid: str, *, melds: bool = False, wild: bool = True,
                  seven_pairs: bool = False, need_wildcard: bool = False) -> Built:
    """A complete hand of ``rid``; with ``melds``, some melds exposed (claims the ruleset has)."""
    ev = evaluator(rid)
    seat = draw(st.integers(0, 3))
    exposed: list[Meld] = []
    if seven_pairs and draw(st.booleans()):
        side = draw(seven_pairs_tiles(rid))
        counts = Counter(side)
    else:
        groups = draw(standard_groups(rid))
        counts = Counter(t for _, ts in groups for t in ts)
        side = []
        for g in groups:
            m = None
            if melds and g[0] != "pair" and draw(st.booleans()):
                m = _exposed(draw, rid, g, counts, seat)
            if m is None:
                side.extend(g[1])
            else:
                exposed.append(m)
    wildcard = None
    if wild and ev.ruleset.wildcard is not None:
        unused = [k for k in ev.kinds if counts[k] == 0]
        wildcard = draw(st.sampled_from(unused) if need_wildcard
                        else st.none() | st.sampled_from(unused))
    if wildcard is not None:
        n = draw(st.integers(0, min(4, len(side))))
        for i in draw(st.lists(st.integers(0, len(side) - 1), unique=True, min_size=n, max_size=n)):
            side[i] = wildcard
    win_at = draw(st.integers(0, len(side) - 1))
    win_tile = side.pop(win_at)
    exposed = draw(st.permutations(exposed)) if exposed else []
    return Built(rid, tuple(side), tuple(exposed), win_tile, wildcard, seat)


@st.composite
def contexts(draw, rid: str, seat: int, win_tile: int, wildcard: int | None,
             with_birds: bool = True) -> WinContext:
    """A random context the ruleset allows (win_by, discarder, flags, dealer, birds)."""
    ev = evaluator(rid)
    allowed = [w for w in ("self_draw", "discard", "robbed_kong") if ev.ruleset.win.get(w)]
    win_by = draw(st.sampled_from(allowed))
    discarder = None
    if win_by != "self_draw":
        discarder = draw(st.sampled_from([s for s in range(4) if s != seat]))
    flags = frozenset(draw(st.lists(st.sampled_from(FLAGS), unique=True, max_size=3)))
    dealer = draw(st.integers(0, 3))
    extra = {}
    if with_birds and ev.ruleset.plugins.get("zhaniao") is not None:
        extra["birds"] = draw(st.lists(st.sampled_from(ev.kinds), max_size=4))
    return WinContext(seat=seat, win_by=win_by, discarder=discarder, flags=flags, dealer=dealer,
                      extra=extra)


def _outcome(r: Result) -> tuple:
    s = r.score
    return (s.win, sorted(s.pattern_names), s.points, r.payments, r.call)


# ---------------------------------------------------------------------------
# 1. every complete hand wins


@pytest.mark.parametrize("rid", WILD_RULESETS)
@settings(max_examples=120, **SETTINGS)
@given(data=st.data())
def test_complete_hand_with_wildcards_wins(rid: str, data: st.DataObject) -> None:
    b = data.draw(winning_hands(rid, need_wildcard=True), label="hand")
    s = evaluator(rid).score(b.hand, WinContext(), b.wildcard)
    assert s.win, (b, s.reason)
    assert s.points > 0 and s.patterns


@settings(max_examples=120, **SETTINGS)
@given(data=st.data())
def test_complete_changsha_hand_with_258_pair_wins(data: st.DataObject) -> None:
    b = data.draw(winning_hands("changsha"), label="hand")
    s = evaluator("changsha").score(b.hand, WinContext(), None)
    assert s.win, (b, s.reason)
    assert s.patterns


@pytest.mark.parametrize("rid", RULESETS)
@settings(max_examples=50, **SETTINGS)
@given(data=st.data())
def test_complete_hand_with_exposed_melds_wins(rid: str, data: st.DataObject) -> None:
    b = data.draw(winning_hands(rid, melds=True), label="hand")
    s = evaluator(rid).score(b.hand, WinContext(seat=b.seat), b.wildcard)
    assert s.win, (b, s.reason)


@pytest.mark.parametrize("rid", RULESETS)
@settings(max_examples=50, **SETTINGS)
@given(data=st.data())
def test_seven_pairs_hand_wins(rid: str, data: st.DataObject) -> None:
    """Every ruleset here scores seven pairs (七巧对 / 硬巧对 / 七小对), four of a kind = 2 pairs."""
    tiles = data.draw(seven_pairs_tiles(rid), label="tiles")
    i = data.draw(st.integers(0, 13), label="win index")
    hand = Hand(tuple(tiles[:i] + tiles[i + 1:]), (), tiles[i])
    s = evaluator(rid).score(hand, WinContext(), None)
    assert s.win, (format_tiles(tiles), s.reason)


ZHONG = 33  # 中


@pytest.mark.parametrize("rid", WILD_RULESETS)
@settings(max_examples=100, **SETTINGS)
@given(data=st.data())
def test_wildcard_may_be_a_tile_of_the_hand(rid: str, data: st.DataObject) -> None:
    """Any kind may be the wildcard: its copies in the hand stand for themselves (or anything)."""
    ev = evaluator(rid)
    tiles = [t for _, ts in data.draw(standard_groups(rid), label="groups") for t in ts]
    w = data.draw(st.sampled_from(ev.kinds), label="wildcard")
    room = 4 - tiles.count(w)
    n = data.draw(st.integers(0, room), label="more wildcards")
    for i in data.draw(st.lists(st.integers(0, 13), unique=True, min_size=n, max_size=n)):
        if tiles.count(w) < 4:
            tiles[i] = w
    i = data.draw(st.integers(0, 13), label="win index")
    hand = Hand(tuple(tiles[:i] + tiles[i + 1:]), (), tiles[i])
    s = ev.score(hand, WinContext(), w)
    assert s.win, (format_tiles(tiles), format_tiles([w]), s.reason)
    _check_reading(ev, Built(rid, hand.concealed, (), hand.win_tile, w), s.reading)


@pytest.mark.parametrize("rid", WILD_RULESETS)
@settings(max_examples=100, **SETTINGS)
@given(data=st.data())
def test_wildcard_may_be_a_fifth_copy(rid: str, data: st.DataObject) -> None:
    """Built with five of a kind, one of the five a wildcard: still a win (RULINGS §1)."""
    ev = evaluator(rid)
    five, groups = data.draw(groups_with_five(rid), label="groups")
    tiles = [t for _, ts in groups for t in ts]
    fives = [k for k in set(tiles) if tiles.count(k) == 5]
    assert five in fives
    w = data.draw(st.sampled_from([k for k in ev.kinds if k not in tiles]), label="wildcard")
    for k in fives:
        tiles[tiles.index(k)] = w
    i = data.draw(st.integers(0, 13), label="win index")
    hand = Hand(tuple(tiles[:i] + tiles[i + 1:]), (), tiles[i])
    s = ev.score(hand, WinContext(), w)
    assert s.win, (format_tiles(tiles), format_tiles([w]), s.reason)
    _check_reading(ev, Built(rid, hand.concealed, (), hand.win_tile, w), s.reading)


@pytest.mark.parametrize("rid", WILD_RULESETS)
@settings(max_examples=100, **SETTINGS)
@given(data=st.data())
def test_zhong_stands_in_for_the_wildcards_tile(rid: str, data: st.DataObject) -> None:
    """中 may stand for the wildcard's natural tile (huandiao: suited wildcards only)."""
    ev = evaluator(rid)
    tiles = [t for _, ts in data.draw(standard_groups(rid), label="groups") for t in ts]
    assume(ZHONG not in tiles)
    candidates = [k for k in set(tiles) if k != ZHONG
                  and (rid == "yongzhou-wangba" or not is_honor(k))]
    w = data.draw(st.sampled_from(sorted(candidates)), label="wildcard")
    at = [i for i, t in enumerate(tiles) if t == w]
    n = data.draw(st.integers(1, len(at)), label="stand-ins")
    for i in at[:n]:
        tiles[i] = ZHONG
    i = data.draw(st.integers(0, 13), label="win index")
    hand = Hand(tuple(tiles[:i] + tiles[i + 1:]), (), tiles[i])
    assert ev.stand_in_for(w) == ZHONG
    s = ev.score(hand, WinContext(), w)
    assert s.win, (format_tiles(tiles), format_tiles([w]), s.reason)
    _check_reading(ev, Built(rid, hand.concealed, (), hand.win_tile, w), s.reading)


# ---------------------------------------------------------------------------
# 2. a complete hand minus a tile is not a win, and waits for that tile


@pytest.mark.parametrize("rid", RULESETS)
@settings(max_examples=60, **SETTINGS)
@given(data=st.data())
def test_complete_hand_minus_a_tile(rid: str, data: st.DataObject) -> None:
    ev = evaluator(rid)
    groups = data.draw(standard_groups(rid), label="groups")
    tiles = [t for _, ts in groups for t in ts]
    assert wintable.is_standard_win(counts_of(tiles), 0)
    i = data.draw(st.integers(0, 13), label="removed index")
    removed = tiles.pop(i)
    assert not wintable.is_standard_win(counts_of(tiles), 0)
    assert not wintable.is_standard_win(bytes(counts_of(tiles)), 0)
    # No wildcard, and a wildcard that is none of the 14 tiles: both wait on the removed tile.
    wildcards: list[int | None] = [None]
    if ev.ruleset.wildcard is not None:
        wildcards.append(data.draw(st.sampled_from(
            [k for k in ev.kinds if k not in tiles and k != removed]), label="wildcard"))
    for w in wildcards:
        waits = ev.waits(tiles, wildcard=w)
        assert waits, (format_tiles(tiles), w)
        assert removed in waits, (format_tiles(tiles), format_tiles([removed]), w)


# ---------------------------------------------------------------------------
# 3. waits() agrees with scoring every possible winning tile


@st.composite
def thirteen_tiles(draw, rid: str) -> tuple[list[int], int | None]:
    ev = evaluator(rid)
    if draw(st.booleans()):
        wall = ev.ruleset.tileset.full_wall()
        idx = draw(st.lists(st.integers(0, len(wall) - 1), unique=True, min_size=13, max_size=13))
        tiles = [wall[i] for i in idx]
    else:  # near a win: a complete hand less one tile, maybe one tile changed
        tiles = [t for _, ts in draw(standard_groups(rid)) for t in ts]
        tiles.pop(draw(st.integers(0, 13)))
        if draw(st.booleans()):
            i = draw(st.integers(0, 12))
            k = draw(st.sampled_from([k for k in ev.kinds if tiles.count(k) < 4]))
            tiles[i] = k
    wildcard = None
    if ev.ruleset.wildcard is not None:
        wildcard = draw(st.none() | st.sampled_from(ev.kinds))
    if wildcard is not None:
        n = draw(st.integers(0, 3))
        for i in draw(st.lists(st.integers(0, 12), unique=True, min_size=n, max_size=n)):
            if tiles.count(wildcard) < 4:
                tiles[i] = wildcard
    return tiles, wildcard


@pytest.mark.parametrize("rid", RULESETS)
@settings(max_examples=40, **SETTINGS)
@given(data=st.data())
def test_waits_match_brute_force(rid: str, data: st.DataObject) -> None:
    ev = evaluator(rid)
    tiles, w = data.draw(thirteen_tiles(rid), label="13 tiles, wildcard")
    drawable = [t for t in ev.kinds if tiles.count(t) < 4]
    brute = {t for t in drawable if ev.score(Hand(tuple(tiles), (), t), WinContext(), w).win}
    got = {t for t in ev.waits(tiles, wildcard=w) if t in drawable}
    assert got == brute, (format_tiles(sorted(tiles)), w, format_tiles(sorted(got)),
                          format_tiles(sorted(brute)))


# ---------------------------------------------------------------------------
# 4. order doesn't matter


@pytest.mark.parametrize("rid", RULESETS)
@settings(max_examples=40, **SETTINGS)
@given(data=st.data())
def test_order_invariance(rid: str, data: st.DataObject) -> None:
    ev = evaluator(rid)
    b = data.draw(winning_hands(rid, melds=True, seven_pairs=True), label="hand")
    ctx = data.draw(contexts(rid, b.seat, b.win_tile, b.wildcard), label="ctx")
    first = ev.evaluate(b.hand, ctx, b.wildcard)
    concealed = data.draw(st.permutations(b.concealed), label="shuffled")
    melds = data.draw(st.permutations(b.melds), label="melds shuffled")
    again = ev.evaluate(Hand(tuple(concealed), tuple(melds), b.win_tile), ctx, b.wildcard)
    assert _outcome(again) == _outcome(first), b


# ---------------------------------------------------------------------------
# 5. settlements sum to zero


@pytest.mark.parametrize("rid", RULESETS)
@settings(max_examples=60, **SETTINGS)
@given(data=st.data())
def test_settlement_sums_to_zero(rid: str, data: st.DataObject) -> None:
    ev = evaluator(rid)
    b = data.draw(winning_hands(rid, melds=True, seven_pairs=True), label="hand")
    ctx = data.draw(contexts(rid, b.seat, b.win_tile, b.wildcard), label="ctx")
    r = ev.evaluate(b.hand, ctx, b.wildcard)
    if ctx.win_by == "self_draw" or b.win_tile != b.wildcard:
        # Only a wildcard won on a discard may fail; everything else is a complete hand.
        assert r.score.win, (b, ctx, r.score.reason)
    if r.score.win:
        assert r.payments is not None and len(r.payments) == ev.ruleset.players
        assert sum(r.payments) == 0, (b, ctx, r.payments)
        assert r.payments[b.seat] > 0, (b, ctx, r.payments)
        assert r.settlement is not None and r.settlement.penalties() == 0


@settings(max_examples=100, **SETTINGS)
@given(data=st.data())
def test_changsha_birds_settlement_sums_to_zero(data: st.DataObject) -> None:
    ev = evaluator("changsha")
    b = data.draw(winning_hands("changsha", melds=True, seven_pairs=True), label="hand")
    ctx = data.draw(contexts("changsha", b.seat, b.win_tile, None), label="ctx")
    birds = data.draw(st.lists(st.sampled_from(ev.kinds), min_size=1, max_size=6), label="birds")
    ctx = WinContext(ctx.seat, ctx.win_by, ctx.discarder, ctx.flags, ctx.dealer, {"birds": birds})
    r = ev.evaluate(b.hand, ctx, None)
    assert r.score.win
    assert sum(r.payments) == 0, (b, ctx, r.payments)
    plain = ev.evaluate(b.hand, WinContext(ctx.seat, ctx.win_by, ctx.discarder, ctx.flags,
                                           ctx.dealer), None)
    # birds only ever double: each seat's net moves the same way, at least as far
    for with_birds, without in zip(r.payments, plain.payments, strict=True):
        assert abs(with_birds) >= abs(without)
        assert with_birds * without >= 0


@settings(max_examples=150, **SETTINGS)
@given(data=st.data())
def test_changsha_opening_settlement_sums_to_zero(data: st.DataObject) -> None:
    ev = evaluator("changsha")
    seat = data.draw(st.integers(0, 3), label="seat")
    dealer = data.draw(st.integers(0, 3), label="dealer")
    size = 14 if seat == dealer else 13
    wall = ev.ruleset.tileset.full_wall()
    idx = data.draw(st.lists(st.integers(0, len(wall) - 1), unique=True, min_size=size,
                             max_size=size), label="dealt")
    tiles = [wall[i] for i in idx]
    birds = data.draw(st.lists(st.sampled_from(ev.kinds), max_size=4), label="birds")
    ctx = WinContext(seat=seat, dealer=dealer, extra={"birds": birds} if birds else {})
    r = ev.evaluate_opening(tiles, ctx)
    assert r.payments is not None
    assert sum(r.payments) == 0, (format_tiles(sorted(tiles)), seat, dealer, birds, r.payments)
    if r.score.win:
        assert r.payments[seat] > 0
    else:
        assert r.payments == [0, 0, 0, 0]


# ---------------------------------------------------------------------------
# 6. the chosen reading is made of real groups of the hand's tiles

GROUP_SIZE = {"seq": 3, "triplet": 3, "kong": 4, "pair": 2, "single": 1}


def _check_reading(ev: Evaluator, b: Built, reading) -> None:
    kongs = sum(m.is_kong for m in b.melds)
    tiles = reading.tiles
    assert len(tiles) == 14 + kongs, (b, reading)
    for g in reading.groups:
        assert g.kind in GROUP_SIZE, g
        assert len(g.tiles) == GROUP_SIZE[g.kind] == len(g.sources), g
        assert all(0 <= t < NUM_KINDS and t in ev.kinds for t in g.tiles), g
        if g.kind == "seq":
            a, m, c = g.tiles
            assert not is_honor(a) and a // 9 == c // 9 and m == a + 1 and c == a + 2, g
        elif g.kind != "single":
            assert len(set(g.tiles)) == 1, g
    # The tiles as held: wildcards read as 'w', a stand-in read as the wildcard's tile as 's'.
    held = [*b.concealed, b.win_tile, *(t for m in b.melds for t in m.tiles)]
    stand = ev.stand_in_for(b.wildcard)
    wilds = sum(1 for t in held if b.wildcard is not None and t == b.wildcard)
    read_wilds = sum(1 for g in reading.groups for s in g.sources if s == "w")
    assert read_wilds == wilds, (b, reading)
    naturals = Counter(t for t in held if b.wildcard is None or t != b.wildcard)
    read_naturals = Counter(stand if s == "s" else t for g in reading.groups
                            for t, s in zip(g.tiles, g.sources, strict=True) if s != "w")
    assert read_naturals == naturals, (b, reading)
    # exposed melds appear as themselves
    exposed = Counter((m.kind, m.tiles) for m in b.melds)
    read_exposed = Counter((g.meld, g.tiles) for g in reading.groups if g.meld)
    assert read_exposed == exposed, (b, reading)


@pytest.mark.parametrize("rid", RULESETS)
@settings(max_examples=60, **SETTINGS)
@given(data=st.data())
def test_chosen_reading_is_consistent(rid: str, data: st.DataObject) -> None:
    ev = evaluator(rid)
    b = data.draw(winning_hands(rid, melds=True, seven_pairs=True), label="hand")
    s = ev.score(b.hand, WinContext(seat=b.seat), b.wildcard)
    assert s.win and s.reading is not None, b
    _check_reading(ev, b, s.reading)


@pytest.mark.parametrize("rid", RULESETS)
@settings(max_examples=40, **SETTINGS)
@given(data=st.data())
def test_reading_of_any_winning_13_plus_1(rid: str, data: st.DataObject) -> None:
    """Random 13 tiles + each tile that wins them: the reading is still consistent."""
    ev = evaluator(rid)
    tiles, w = data.draw(thirteen_tiles(rid), label="13 tiles, wildcard")
    waits = [t for t in ev.waits(tiles, wildcard=w) if tiles.count(t) < 4]
    assume(waits)
    t = data.draw(st.sampled_from(waits), label="win tile")
    s = ev.score(Hand(tuple(tiles), (), t), WinContext(), w)
    assert s.win and s.reading is not None
    _check_reading(ev, Built(rid, tuple(tiles), (), t, w), s.reading)


@pytest.mark.parametrize("rid", RULESETS)
def test_generators_make_varied_hands(rid: str) -> None:
    """The generators reach exposed kongs, wildcards in hand and seven-pair hands."""
    strat = winning_hands(rid, melds=True, seven_pairs=True)
    quick = settings(max_examples=2000, database=None, **SETTINGS)
    find(strat, lambda b: any(m.is_kong for m in b.melds), settings=quick)
    find(strat, lambda b: len(b.melds) >= 3, settings=quick)
    if evaluator(rid).ruleset.wildcard is not None:
        find(strat, lambda b: (*b.concealed, b.win_tile).count(b.wildcard) >= 2, settings=quick)
