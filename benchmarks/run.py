"""All of mjframework's speed figures in one run, with a summary table.

Run from the repository root (about a minute on 2 cores):

    python benchmarks/run.py [--seed N] [--quick] [--profile]

Sections, each on fixed seeded inputs (see benchmarks/README.md):

1. lookup tables: cold build, cached load, memory (``bench_wincheck``);
2. the win check, ``mjframework.evaluate.wintable`` (``bench_wincheck``);
3. full scoring, ``Evaluator.evaluate`` (best reading + patterns + settlement)
   on complete winning hands with 0-4 wildcards, per ruleset, plus the
   rulesets' own conformance cases;
4. the reference, PyPI ``mahjong``'s ``HandCalculator.estimate_hand_value``,
   on the same no-wildcard hands;
5. ``Evaluator.is_win`` against the bare table check, every shipped ruleset
   (complete and random hands; remembered verdicts and first sight);
6. waits of 13-tile hands, ``Evaluator.waits`` and ``Evaluator.free_waits``;
7. simulation: ``Game(...).play()`` with four ``GreedyBot`` s, one process;
8. env: random legal ``MahjongEnv`` steps against ``Game.play``'s decisions (``bench_env``);
9. memory: the process tree's peak PSS of ``mj simulate changsha`` with 2 workers against
   1 (``bench_memory``; Linux's ``/proc``).

then a table: line, hands/s, reference hands/s, ours/ref, target.
``--profile`` instead runs cProfile once over full scoring and over the
simulation and prints the top functions; ``--only SECTION`` (repeatable: wincheck, env,
scoring, is_win, waits, mcr, simulation, memory) runs just those.
"""

from __future__ import annotations

import argparse
import cProfile
import dataclasses
import importlib.metadata
import io
import os
import platform
import pstats
import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
try:
    import mjframework  # noqa: F401
except ImportError:  # run from a checkout that isn't installed
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import bench_memory
import bench_wincheck
from _timing import (
    BenchResult,
    Row,
    bench,
    comparison_row,
    interleave,
    report,
    report_comparison,
    row,
    summary_table,
)

from mjframework.core.hand import Hand, WinContext
from mjframework.core.tiles import format_tiles, is_honor, parse_tile
from mjframework.evaluate.scoring import Evaluator
from mjframework.evaluate.wintable import is_standard_win
from mjframework.play.bots import GreedyBot
from mjframework.play.game import Game
from mjframework.rules.loader import load_ruleset

try:
    from mahjong.constants import EAST
    from mahjong.hand_calculating.hand import HandCalculator
    from mahjong.hand_calculating.hand_config import HandConfig
except ImportError:  # pragma: no cover - depends on the machine
    HandCalculator = None
try:
    from MahjongGB import MahjongFanCalculator, RegularShanten
except ImportError:  # pragma: no cover - depends on the machine
    MahjongFanCalculator = RegularShanten = None

SECTIONS = ("wincheck", "scoring", "is_win", "waits", "mcr", "simulation", "env", "memory")
RULESETS = ("yongzhou-wangba", "yongzhou-huandiao", "changsha")
# Simulated too (every shipped ruleset): their scoring has no reference to compare with.
SIM_ONLY = ("sichuan-xuezhan", "mcr")
CONFORMANCE_DIR = Path(__file__).resolve().parent.parent / "tests" / "conformance"
# Simulation targets, hands/s on one core; full scoring vs the reference.
SIM_TARGET = {"changsha": 1000, "yongzhou-wangba": 1000, "yongzhou-huandiao": 1000,
              "sichuan-xuezhan": 1000, "mcr": 1000}
# A hand with 4 wildcards may cost at most 3x the same hand with none (ours/ref >= 1/3);
# Evaluator.is_win >= 0.5x the bare table check; Evaluator.waits >= 5x PyMahjongGB's RegularShanten.
WILD_COST_RATIO = 1 / 3
IS_WIN_RATIO = 0.5
WAITS_GB_RATIO = 5.0
SCORING_TARGET_RATIO = 3.0
GB_TARGET_RATIO = 0.5
MCR_TARGET_RATIO = 0.25  # 国标 full scoring ÷ PyMahjongGB (issue 22)
# Seconds a single scoring/waits line may take before its repeats stop (see _timing.bench).
LINE_BUDGET = 2.5


@dataclass(frozen=True)
class Case:
    """One scoring call: ``ev.evaluate(hand, ctx, wildcard)``."""

    hand: Hand
    ctx: WinContext
    wildcard: int | None

    def args(self) -> tuple[Hand, WinContext, int | None]:
        return self.hand, self.ctx, self.wildcard


# ---------------------------------------------------------------------------
# hands


def complete_tiles(rng: random.Random, kinds: Sequence[int], *, pair_ranks: Sequence[int] | None = None,
                   p_sequence: float = 2 / 3) -> list[int]:
    """4 melds + a pair from ``kinds``, at most 4 copies of a kind.

    Each meld is a sequence with probability ``p_sequence`` (honors only ever
    make triplets), else a triplet; ``pair_ranks`` (0-based) restricts the
    pair to suited tiles of those ranks (changsha's 2-5-8 pair for 平胡).
    """
    allowed = set(kinds)
    seqs = [k for k in kinds if not is_honor(k) and k % 9 <= 6 and {k + 1, k + 2} <= allowed]
    pairs = [k for k in kinds if pair_ranks is None or (not is_honor(k) and k % 9 in pair_ranks)]
    while True:
        tiles: list[int] = []
        for _ in range(4):
            if seqs and rng.random() < p_sequence:
                s = rng.choice(seqs)
                tiles += [s, s + 1, s + 2]
            else:
                tiles += [rng.choice(kinds)] * 3
        tiles += [rng.choice(pairs)] * 2
        if max(Counter(tiles).values()) <= 4:
            rng.shuffle(tiles)
            return tiles


def make_case(tiles14: Sequence[int], win_index: int, wildcard: int | None) -> Case:
    held = list(tiles14)
    win = held.pop(win_index)
    return Case(Hand(tuple(sorted(held)), (), win), WinContext(seat=0, win_by="self_draw"), wildcard)


def complete_cases(ev: Evaluator, rng: random.Random, n: int,
                   wilds: Sequence[int]) -> tuple[list[list[int]], dict[int, list[Case]]]:
    """``n`` complete concealed hands, self-drawn by the dealer, each in ``len(wilds)`` versions.

    The wildcard (for rulesets with one) is a random kind; the natural tiles
    avoid it, then ``w`` random tiles of the hand become wildcard copies, so a
    hand has exactly ``w`` wildcards (a 中 that is a stand-in stays in). The
    winning tile is a random one of the 14. Returns the base (no wildcard)
    14-tile lists and ``{w: cases}``; every case is checked to win.
    """
    kinds = ev.kinds
    has_wild = ev.ruleset.wildcard is not None
    pair_ranks = (1, 4, 7) if ev.ruleset.id == "changsha" else None
    # 四川 hands win only lacking a suit (缺一门): each hand leaves out a random suit.
    lack_suit = ev.ruleset.id.startswith("sichuan")
    bases: list[list[int]] = []
    out: dict[int, list[Case]] = {w: [] for w in wilds}
    while len(bases) < n:
        wildcard = rng.choice(kinds) if has_wild else None
        lacking = rng.randrange(3) if lack_suit else None
        tiles = complete_tiles(rng, [k for k in kinds if k != wildcard
                                     and (lacking is None or is_honor(k) or k // 9 != lacking)],
                               pair_ranks=pair_ranks)
        order = list(range(14))
        rng.shuffle(order)  # which tiles become wildcards: the first w of this order
        win_index = rng.randrange(14)
        versions = {}
        for w in wilds:
            t = list(tiles)
            for i in order[:w]:
                t[i] = wildcard
            versions[w] = make_case(t, win_index, wildcard)
        bases.append(tiles)
        for w, case in versions.items():
            out[w].append(case)
    for w, cases in out.items():
        bad = [c for c in cases if not ev.score(*c.args()).win]
        if bad:
            c = bad[0]
            raise SystemExit(f"{ev.ruleset.id}: generated hand does not win ({len(bad)} of {len(cases)}, "
                             f"{w} wildcards): {format_tiles(c.hand.concealed)} + "
                             f"{format_tiles([c.hand.win_tile])}, wildcard {c.wildcard}")
    return bases, out


def conformance_cases(ev: Evaluator) -> list[Case]:
    """The ruleset's own winning conformance cases (realistic: melds, flags, seven pairs …)."""
    import yaml

    from mjframework.core.hand import make_hand

    path = CONFORMANCE_DIR / f"{ev.ruleset.id}.yaml"
    if not path.exists():
        return []
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    out = []
    for case in data.get("cases", []):
        if case.get("kind", "win") != "win" or not case.get("expect", {}).get("win"):
            continue
        wc, ind = case.get("wildcard"), case.get("indicator")
        wildcard = ev.wildcard_from(parse_tile(str(wc)) if wc is not None else None,
                                    parse_tile(str(ind)) if ind is not None else None)
        extra = case.get("context") or {}
        if extra:  # plugin inputs (birds …) need the conformance runner's parsing: skip
            continue
        hand = make_hand(str(case["hand"]), [str(m) for m in case.get("melds") or []],
                         str(case["win_tile"]))
        ctx = WinContext(seat=case.get("seat", 0), win_by=str(case.get("win_by", "self_draw")),
                         discarder=case.get("discarder"), flags=frozenset(case.get("flags") or []))
        c = Case(hand, ctx, wildcard)
        if ev.evaluate(*c.args()).score.win:
            out.append(c)
    return out


def random13(rng: random.Random, ev: Evaluator, n: int) -> list[tuple[list[int], int | None]]:
    """13 tiles from the ruleset's wall; wildcard a random kind (for rulesets with one)."""
    wall = ev.ruleset.tileset.full_wall()
    has_wild = ev.ruleset.wildcard is not None
    return [(sorted(rng.sample(wall, 13)), rng.choice(ev.kinds) if has_wild else None) for _ in range(n)]


def to136(tiles: Sequence[int]) -> list[int]:
    """34-kind tiles → 136 ids (kind * 4 + copy), sorted."""
    seen: Counter[int] = Counter()
    out = []
    for t in sorted(tiles):
        out.append(t * 4 + seen[t])
        seen[t] += 1
    return out


# ---------------------------------------------------------------------------
# sections


def ref_item(case: Case) -> tuple[list[int], int]:
    tiles = to136([*case.hand.concealed, case.hand.win_tile])
    win = case.hand.win_tile * 4  # first copy of its kind: always in the list
    return tiles, win


def gb_code(t: int) -> str:
    """A 34-kind tile in PyMahjongGB's notation (W1 万, B1 筒, T1 条, F1-F4 winds, J1-J3 dragons)."""
    if t < 27:
        return "WBT"[t // 9] + str(t % 9 + 1)
    return ("F" + str(t - 26)) if t < 31 else ("J" + str(t - 30))


def gb_item(case: Case) -> tuple:
    """The same concealed hand for PyMahjongGB's ``MahjongFanCalculator``."""
    return (tuple(gb_code(t) for t in case.hand.concealed), gb_code(case.hand.win_tile))


def gb_fans(hand: tuple[str, ...], win: str):
    return MahjongFanCalculator(pack=(), hand=hand, winTile=win, flowerCount=0, isSelfDrawn=True,
                                is4thTile=False, isAboutKong=False, isWallLast=False,
                                seatWind=0, prevalentWind=0)


def scoring_section(evs: dict[str, Evaluator], rng: random.Random, n: int, repeat: int) -> list[Row]:
    """Full scoring, interleaved round by round with the references on the same hands.

    References: ``mahjong``'s ``HandCalculator.estimate_hand_value`` (riichi
    yaku) and PyMahjongGB's ``MahjongFanCalculator`` (国标 fans, C++), each
    given the no-wildcard version of the hands; lines with wildcards are
    marked ``*`` (same hands before wildcards were put in).
    """
    rows: list[Row] = []
    hc = HandCalculator() if HandCalculator else None
    cfg = HandConfig(is_tsumo=True, player_wind=EAST, round_wind=EAST) if hc else None
    print("\n== full scoring: Evaluator.evaluate(hand, ctx, wildcard) ==")
    print(f"({n} complete concealed hands per line, self-drawn; interleaved with the references on the "
          "same hands without wildcards: mahjong HandCalculator.estimate_hand_value (is_tsumo=True)"
          + (", PyMahjongGB MahjongFanCalculator" if MahjongFanCalculator else "") + ")")
    for rid, ev in evs.items():
        wilds = range(5) if ev.ruleset.wildcard is not None else (0,)
        _bases, cases = complete_cases(ev, rng, n, wilds)
        refs: dict[str, tuple] = {}
        if hc:
            items = [ref_item(c) for c in cases[0]]
            answers = [hc.estimate_hand_value(t, w, config=cfg) for t, w in items]
            errors = Counter(a.error for a in answers if a.error)
            if errors:
                raise SystemExit(f"reference rejected {sum(errors.values())} hands: {dict(errors)}")
            refs["ref"] = (lambda t, w: hc.estimate_hand_value(t, w, config=cfg), items)
        if MahjongFanCalculator:
            gb_items = [gb_item(c) for c in cases[0]]
            for h, w in gb_items:
                gb_fans(h, w)  # raises on a hand it does not take as a win
            refs["gb"] = (gb_fans, gb_items)
        for w, cs in cases.items():
            label = f"{rid}, {w} wildcards"
            ours = (ev.evaluate, [c.args() for c in cs])
            if refs:
                comp = interleave(label, {"ours": ours, **refs}, repeat)
                print(report_comparison(comp))
                note = "*" if w else ""
                if "ref" in refs:
                    rows.append(comparison_row(f"scoring: {rid}, {w} wild", comp,
                                               target_ratio=SCORING_TARGET_RATIO, ref_note=note))
                if "gb" in refs:
                    rows.append(comparison_row(f"scoring vs PyMahjongGB: {rid}, {w} wild", comp, ref="gb",
                                               target_ratio=GB_TARGET_RATIO, ref_note=note))
            else:
                r = bench(*ours, repeat, label=label, budget=LINE_BUDGET)
                print(report(r))
                rows.append(row(BenchResult(f"scoring: {rid}, {w} wild", r.items, r.passes, r.best_seconds)))
        if 4 in cases:
            comp = interleave(f"{rid}, 4 wildcards vs the same hands with 0",
                              {"ours": (ev.evaluate, [c.args() for c in cases[4]]),
                               "zero": (ev.evaluate, [c.args() for c in cases[0]])}, repeat)
            print(report_comparison(comp))
            rows.append(comparison_row(f"wildcard cost: {rid}, 4 wild vs 0", comp, ref="zero",
                                       target_ratio=WILD_COST_RATIO))
        conf = conformance_cases(ev)
        if conf:
            ours_r = bench(ev.evaluate, [c.args() for c in conf], repeat,
                           label=f"{rid}, its {len(conf)} conformance wins", budget=LINE_BUDGET)
            print(report(ours_r))
            rows.append(row(BenchResult(f"scoring: {rid}, conformance cases", ours_r.items, ours_r.passes,
                                        ours_r.best_seconds)))
    return rows


def is_win_section(evs: dict[str, Evaluator], seed: int, n: int, repeat: int) -> list[Row]:
    """``Evaluator.is_win`` against the bare table check inside it, every shipped ruleset.

    *complete*: complete hands (as for scoring; for rulesets with a wildcard
    the i-th hand has ``i % 5`` wildcards; 国标: the oracle generator's hands,
    melds, kongs and flags included, most but not all reaching 8 fans);
    *random 14*: 14 tiles from the ruleset's wall. The table check gets the
    natural counts of the 14 concealed-side tiles and the wildcard count
    ready made. Every hand is a fresh object and no hand repeats within a
    pass, but passes repeat: ``is_win`` remembers its table verdicts per
    (tiles, melds, winning tile, wildcard), so after the first pass these are
    the answers as the game gets them for a hand it asks about again; the
    *first sight* line clears that memo before every pass (the cost of a
    hand never seen).
    """
    print("\n== is_win: Evaluator.is_win(hand, ctx, wildcard) against wintable.is_standard_win ==")
    print(f"({n} hands per line; interleaved CPU-time rounds, ours/table = table time ÷ ours)")
    rows: list[Row] = []
    for rid, ev in evs.items():
        rng = random.Random(f"{seed} is_win {rid}")
        wall = [t for t in ev.ruleset.tileset.full_wall() if t < 34]  # no flowers
        if rid == "mcr":
            sys.path.insert(0, str(CONFORMANCE_DIR.parent))
            import mcr_hands

            gen = mcr_hands.hands(seed, n_random=n, per_fan=1)
            complete = [Case(*mcr_hands.engine_input(h), None) for h, _ in zip(gen, range(n), strict=False)]
        else:
            wilds = range(5) if ev.ruleset.wildcard is not None else (0,)
            _, by_w = complete_cases(ev, rng, n, wilds)
            complete = [by_w[wilds[i % len(wilds)]][i] for i in range(n)]
        rand = [make_case(rng.sample(wall, 14), 0, c.wildcard) for c in complete]
        for name, cs in (("complete", complete), ("random 14", rand)):
            table_items = []
            for c in cs:
                counts = [0] * 34
                w = 0
                wild = ev.wild_kinds(c.wildcard) if c.wildcard is not None else ()
                for t in (*c.hand.concealed, c.hand.win_tile):
                    if t in wild:
                        w += 1
                    else:
                        counts[t] += 1
                table_items.append((counts, w))
            args = [c.args() for c in cs]
            wins = sum(ev.is_win(*a) for a in args)
            comp = interleave(f"{rid}, is_win, {name} hands ({wins} win)",
                              {"ours": (ev.is_win, args), "table": (is_standard_win, table_items)}, repeat)
            print(report_comparison(comp))
            rows.append(comparison_row(f"is_win vs table: {rid}, {name}", comp, ref="table",
                                       target_ratio=IS_WIN_RATIO))
            clear = getattr(ev.screen, "clear_memo", None)
            if clear is not None:
                comp = interleave(f"{rid}, is_win, {name} hands, first sight",
                                  {"ours": (_first_sight(ev, clear), [(None, None, None), *args]),
                                   "table": (is_standard_win, [([0] * 34, 0), *table_items])}, repeat)
                print(report_comparison(comp))
                rows.append(comparison_row(f"is_win vs table: {rid}, {name}, first sight", comp,
                                           ref="table", target_ratio=IS_WIN_RATIO))
    return rows


def _first_sight(ev: Evaluator, clear: Callable[[], None]) -> Callable[..., bool]:
    """``ev.is_win``, except that a ``None`` hand (the first item of a pass) clears the memo."""
    is_win = ev.is_win

    def go(hand: Hand | None, ctx: WinContext | None, wildcard: int | None) -> bool:
        if hand is None:
            clear()
            return False
        return is_win(hand, ctx, wildcard)
    return go


def waits_section(evs: dict[str, Evaluator], rng: random.Random, n: int, repeat: int) -> list[Row]:
    rows: list[Row] = []
    print("\n== waits of a 13-tile hand: Evaluator.waits(concealed, wildcard=W) ==")
    print(f"({n} hands per line; ready = a complete hand minus its winning tile)")
    for rid, ev in evs.items():
        has_wild = ev.ruleset.wildcard is not None
        sets: list[tuple[str, list[tuple]]] = []
        if has_wild:
            _, cases = complete_cases(ev, rng, n, range(5))
            ready0 = cases[0]
            ready_w = [cases[1 + i % 4][i] for i in range(n)]  # 1, 2, 3, 4 wildcards in turn
            sets.append(("ready, 0 wild", [(c.hand.concealed, (), None, c.wildcard) for c in ready0]))
            sets.append(("ready, 1-4 wild", [(c.hand.concealed, (), None, c.wildcard) for c in ready_w]))
        else:
            _, cases = complete_cases(ev, rng, n, (0,))
            ready0, ready_w = cases[0], []
            sets.append(("ready", [(c.hand.concealed, (), None, None) for c in ready0]))
        for c in ready0[:50] + ready_w[:50]:  # the tile taken out must be among the waits
            assert c.hand.win_tile in ev.waits(c.hand.concealed, wildcard=c.wildcard), c
        sets.append(("random 13", [(tiles, (), None, w) for tiles, w in random13(rng, ev, n)]))
        for name, items in sets:
            if RegularShanten and name.startswith("ready"):
                gb = [(tuple(gb_code(t) for t in concealed),) for concealed, *_ in items]
                comp = interleave(f"{rid}, {name}", {"ours": (ev.waits, items),
                                                     "gb": (lambda h: RegularShanten(hand=h), gb)}, repeat)
                print(report_comparison(comp))
                rows.append(comparison_row(f"waits vs PyMahjongGB: {rid}, {name}", comp, ref="gb",
                                           target_ratio=WAITS_GB_RATIO,
                                           ref_note="" if name.endswith("0 wild") or not has_wild else "*"))
                continue
            r = bench(ev.waits, items, repeat, label=f"{rid}, {name}", budget=LINE_BUDGET)
            print(report(r))
            rows.append(row(BenchResult(f"waits: {rid}, {name}", r.items, r.passes, r.best_seconds)))
        if has_wild:
            items = [(c.hand.concealed, (), c.wildcard) for c in ready0 + ready_w]
            found = sum(bool(ev.free_waits(*a)) for a in items)
            r = bench(ev.free_waits, items, repeat, label=f"{rid}, free_waits, ready 0-4 wild",
                      budget=LINE_BUDGET)
            print(report(r) + f"   ({found} of {len(items)} have a free-wildcard wait)")
            rows.append(row(BenchResult(f"free_waits: {rid}, ready 0-4 wild", r.items, r.passes,
                                        r.best_seconds)))
    return rows


def play_hands(rs, ev: Evaluator, seeds: Sequence[int], sink: list | None = None) -> None:
    for seed in seeds:
        bots = [GreedyBot(random.Random(seed * 4 + i)) for i in range(rs.players)]
        res = Game(rs, bots, seed=seed, dealer=seed % rs.players, evaluator=ev).play()
        if sink is not None:
            sink.append(res)


def sim_section(evs: dict[str, Evaluator], seed: int, hands: int, repeat: int) -> list[Row]:
    rows: list[Row] = []
    print("\n== simulation: Game(ruleset, [GreedyBot] * 4, seed=s, evaluator=ev).play() ==")
    print(f"({hands} hands per ruleset, seeds {seed}..{seed + hands - 1}, dealer = seed mod 4, "
          f"one process; best of {repeat} after a first pass)")
    seeds = list(range(seed, seed + hands))
    for rid, ev in evs.items():
        rs = ev.ruleset
        results: list = []
        t0 = time.process_time()
        play_hands(rs, ev, seeds, results)
        first = time.process_time() - t0
        best = min([first] + [_timed(play_hands, rs, ev, seeds) for _ in range(repeat)])
        kinds = Counter(r.result for r in results)
        if kinds["abandon"]:
            err = next(r.error for r in results if r.result == "abandon")
            print(f"  !! {kinds['abandon']} hands abandoned, e.g. {err}")
        rate = hands / best
        target = SIM_TARGET.get(rid)
        print(f"{rid:<44} {rate:>12,.0f}/s {best / hands * 1e3:8.2f} ms/hand   "
              f"won {kinds['win'] / hands:5.1%}, drawn {kinds['draw'] / hands:5.1%}"
              + (f"   target {target}/s: {rate / target:.2f}x" if target else ""))
        rows.append(Row(f"simulation: {rid} (won {kinds['win'] / hands:.0%})", rate,
                        target_rate=target))
    return rows


ENV_TARGET = 20_000  # random legal env steps per CPU second (issue 22)


def env_section(evs: dict[str, Evaluator], seed: int, hands: int, rounds: int) -> list[Row]:
    """``bench_env``'s ``env`` line against its ``game`` line (the bare engine's decisions per
    CPU second), interleaved per round on the same evaluator: steps per CPU second, and the
    median (min–max) of the per-round ratio env ÷ game. Needs numpy (the ``env`` extra)."""
    try:
        import bench_env
    except ImportError as e:  # numpy (or an env dependency) missing
        print(f"\n== env: skipped ({e}; `pip install .[env]`) ==")
        return []
    print(f"\n== env: random legal steps per CPU second, {hands} hands × {rounds} rounds, "
          "against Game.play's decisions (bench_env.py) ==")
    rows = []
    for rid, ev in evs.items():
        env_rates: list[float] = []
        game_rates: list[float] = []
        bench_env.game_line(ev.ruleset, ev, 2, seed - 1)  # (warm-up: the tables' first use)
        bench_env.env_line(ev.ruleset, ev, 2, seed - 1)
        for r in range(rounds):
            s = seed + 1000 * r
            steps, secs = bench_env.game_line(ev.ruleset, ev, hands, s)
            game_rates.append(steps / secs)
            steps, secs = bench_env.env_line(ev.ruleset, ev, hands, s)
            env_rates.append(steps / secs)
        rate = statistics.median(env_rates)
        ratios = tuple(a / b for a, b in zip(env_rates, game_rates, strict=True))
        print(f"{rid:<44} {rate:>12,.0f}/s   game {statistics.median(game_rates):>10,.0f}/s   "
              f"env/game {statistics.median(ratios):.2f} ({min(ratios):.2f}–{max(ratios):.2f})")
        rows.append(Row(f"env steps vs Game.play: {rid}", rate, statistics.median(game_rates),
                        target_rate=ENV_TARGET, ratios=ratios))
    return rows


def memory_section(hands: int, rounds: int, ruleset: str = "changsha") -> list[Row]:
    """2 workers ÷ 1: the peak PSS of ``mj simulate``'s process tree (``bench_memory``)."""
    print(f"\n== memory: mj simulate {ruleset} -n {hands}, process tree's peak PSS, 2 workers ÷ 1 "
          "(bench_memory.py) ==")
    if not bench_memory.available():
        print("skipped: no /proc/<pid>/smaps_rollup (Linux only)")
        return []
    pairs = bench_memory.run(ruleset, hands, rounds=rounds)
    one = statistics.median(p[0].mb for p in pairs)
    two = statistics.median(p[1].mb for p in pairs)
    # (the "hands/s" columns hold MB here: 2 workers, then 1)
    return [Row(f"memory: PSS MB, 2 workers vs 1 ({ruleset})", two, one,
                target_ratio=bench_memory.TARGET, at_most=True, ratios=tuple(bench_memory.ratios(pairs)))]


def _timed(fn: Callable, *args) -> float:
    """CPU seconds of one call."""
    t0 = time.process_time()
    fn(*args)
    return time.process_time() - t0


# ---------------------------------------------------------------------------
# profile


def profile(evs: dict[str, Evaluator], seed: int, top: int = 22) -> None:
    """cProfile full scoring (no-wildcard hands, then 1-4 wildcards) and the simulation."""
    rng = random.Random(seed)
    work = {rid: complete_cases(ev, rng, 300, range(5) if ev.ruleset.wildcard else (0,))[1]
            for rid, ev in evs.items()}

    def scoring(wilds: Sequence[int]) -> Callable[[], None]:
        def go() -> None:
            for rid, ev in evs.items():
                for w, cases in work[rid].items():
                    if w in wilds:
                        for c in cases:
                            ev.evaluate(*c.args())
        return go

    def simulation() -> None:
        for ev in evs.values():
            play_hands(ev.ruleset, ev, range(seed, seed + 60))

    for name, fn in (("full scoring, 300 no-wildcard hands per ruleset", scoring((0,))),
                     ("full scoring, 300 hands each with 1, 2, 3, 4 wildcards (2 rulesets)",
                      scoring((1, 2, 3, 4))),
                     ("simulation, 60 hands per ruleset", simulation)):
        pr = cProfile.Profile()
        pr.enable()
        fn()
        pr.disable()
        for key in ("tottime", "cumulative"):
            buf = io.StringIO()
            pstats.Stats(pr, stream=buf).strip_dirs().sort_stats(key).print_stats(top)
            text = buf.getvalue()
            print(f"\n== cProfile: {name}, by {key} ==")
            print(text[text.find("   ncalls"):].rstrip())


# ---------------------------------------------------------------------------


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=20240601)
    ap.add_argument("--quick", action="store_true", help="fewer hands and repeats (a smoke test)")
    ap.add_argument("--profile", action="store_true", help="cProfile scoring and simulation instead")
    ap.add_argument("--only", choices=SECTIONS,
                    action="append", help="run only these sections (repeatable)")
    args = ap.parse_args()
    t_start = time.perf_counter()
    win_hands, repeat = (300, 2) if args.quick else (2000, 5)
    score_hands, wait_hands = (100, 40) if args.quick else (400, 150)
    sim_hands, sim_repeat = (30, 1) if args.quick else (200, 3)

    try:
        ref = f"mahjong {importlib.metadata.version('mahjong')}"
    except importlib.metadata.PackageNotFoundError:
        ref = "no reference (`pip install mahjong==2.1.0`)"
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"mjframework benchmarks: Python {platform.python_version()} on {platform.machine()}, "
          f"{cpus} CPUs, {ref}, seed {args.seed}, best of {repeat}")
    load_start = _load()
    if load_start is not None and load_start > 0.5:
        print(f"!! load average {load_start:.2f} before starting: other processes may share the CPUs, "
              "figures will be low and noisy")
    evs = {rid: Evaluator(load_ruleset(rid)) for rid in RULESETS}
    if args.profile:
        profile(evs, args.seed)
        return

    only = set(args.only or SECTIONS)
    sim_evs = {**evs, **{rid: Evaluator(load_ruleset(rid)) for rid in SIM_ONLY}}
    rows: list[Row] = []
    tables = None
    if "wincheck" in only:
        print()
        tables = bench_wincheck.tables_section()
        print("\n== win check: mjframework.evaluate.wintable (bench_wincheck.py) ==")
        rows += bench_wincheck.run(args.seed, win_hands, repeat, tables=False)
    rng = random.Random(args.seed)
    if "scoring" in only:
        rows += scoring_section(evs, rng, score_hands, repeat)
    if "is_win" in only:
        rows += is_win_section(sim_evs, args.seed, 200 if args.quick else 500, repeat)
    if "waits" in only:
        rows += waits_section(evs, rng, wait_hands, repeat)
    if MahjongFanCalculator and "mcr" in only:  # 国标麻将 against the C++ calculator, on the same hands
        import bench_mcr

        print("\n== 国标麻将 full scoring: ours against MahjongFanCalculator (bench_mcr.py) ==")
        mcr = bench_mcr.run(args.seed, 200 if args.quick else 1000, repeat)
        if "row" in mcr:
            rows.append(dataclasses.replace(mcr["row"], target_ratio=MCR_TARGET_RATIO))
    if "simulation" in only:
        rows += sim_section(sim_evs, args.seed, sim_hands, sim_repeat)
    if "env" in only:
        rows += env_section(sim_evs, args.seed, 6 if args.quick else 20, 2 if args.quick else 3)
    if "memory" in only:
        rows += memory_section(200 if args.quick else 1000, 1 if args.quick else 2)

    print("\n== summary ==")
    print(summary_table(rows))
    print("* reference measured on the same hands before wildcards were put in (it has none)")
    try:
        import resource

        rss = f", process max RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB"
    except ImportError:  # not on POSIX
        rss = ""
    if tables is not None:
        print(f"tables: cold build {tables['cold_s']:.2f} s, cached load {tables['cached_s']:.2f} s, "
              f"{tables['getsizeof_mb']:.1f} MB by getsizeof, {tables['tracemalloc_mb']:.1f} MB by "
              f"tracemalloc ({tables['tracemalloc_peak_mb']:.1f} MB peak){rss}")
    load_end = _load()
    loads = ("" if load_end is None
             else f", 1-min load average {load_start:.2f} at start, {load_end:.2f} at end")
    print(f"(total {time.perf_counter() - t_start:.0f} s{loads})")


def _load() -> float | None:
    """1-minute load average (this run itself adds about 1), None where unknown."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return None


if __name__ == "__main__":
    main()
