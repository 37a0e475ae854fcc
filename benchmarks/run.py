"""All of mjframework's speed figures in one run, with a summary table.

Run from the repository root (about a minute on 2 cores):

    python benchmarks/run.py [--seed N] [--quick] [--profile]

Sections, each on fixed seeded inputs (see benchmarks/README.md):

1. lookup tables: cold build, cached load, memory (``bench_wincheck``);
2. the win check, ``mjframework.wintable`` (``bench_wincheck``);
3. full scoring, ``Evaluator.evaluate`` (best reading + patterns + settlement)
   on complete winning hands with 0-4 wildcards, per ruleset, plus the
   rulesets' own conformance cases;
4. the reference, PyPI ``mahjong``'s ``HandCalculator.estimate_hand_value``,
   on the same no-wildcard hands;
5. waits of 13-tile hands, ``Evaluator.waits`` and ``Evaluator.free_waits``;
6. simulation: ``Game(...).play()`` with four ``GreedyBot`` s, one process;

then a table: line, hands/s, reference hands/s, ours/ref, target.
``--profile`` instead runs cProfile once over full scoring and over the
simulation and prints the top functions.
"""

from __future__ import annotations

import argparse
import cProfile
import importlib.metadata
import io
import os
import platform
import pstats
import random
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

import bench_wincheck
from _timing import BenchResult, Row, bench, report, row, summary_table

from mjframework.bots import GreedyBot
from mjframework.game import Game
from mjframework.hand import Hand, WinContext
from mjframework.ruleset import load_ruleset
from mjframework.scoring import Evaluator
from mjframework.tiles import format_tiles, is_honor, parse_tile

try:
    from mahjong.constants import EAST
    from mahjong.hand_calculating.hand import HandCalculator
    from mahjong.hand_calculating.hand_config import HandConfig
except ImportError:  # pragma: no cover - depends on the machine
    HandCalculator = None

RULESETS = ("yongzhou-wangba", "yongzhou-huandiao", "changsha")
CONFORMANCE_DIR = Path(__file__).resolve().parent.parent / "tests" / "conformance"
# Simulation targets, hands/s on one core; full scoring vs the reference.
SIM_TARGET = {"changsha": 500, "yongzhou-wangba": 300, "yongzhou-huandiao": 300}
SCORING_TARGET_RATIO = 2.0
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
    bases: list[list[int]] = []
    out: dict[int, list[Case]] = {w: [] for w in wilds}
    while len(bases) < n:
        wildcard = rng.choice(kinds) if has_wild else None
        tiles = complete_tiles(rng, [k for k in kinds if k != wildcard], pair_ranks=pair_ranks)
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

    from mjframework.hand import make_hand

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


def scoring_section(evs: dict[str, Evaluator], rng: random.Random, n: int, repeat: int) -> list[Row]:
    rows: list[Row] = []
    hc = HandCalculator() if HandCalculator else None
    cfg = HandConfig(is_tsumo=True, player_wind=EAST, round_wind=EAST) if hc else None
    print("\n== full scoring: Evaluator.evaluate(hand, ctx, wildcard) ==")
    print(f"({n} complete concealed hands per line, self-drawn; reference: mahjong "
          "HandCalculator.estimate_hand_value, is_tsumo=True, on the same hands without wildcards)")
    for rid, ev in evs.items():
        wilds = range(5) if ev.ruleset.wildcard is not None else (0,)
        _bases, cases = complete_cases(ev, rng, n, wilds)
        ref = None
        if hc:
            items = [ref_item(c) for c in cases[0]]
            answers = [hc.estimate_hand_value(t, w, config=cfg) for t, w in items]
            errors = Counter(a.error for a in answers if a.error)
            if errors:
                raise SystemExit(f"reference rejected {sum(errors.values())} hands: {dict(errors)}")
            yaku = sum(len(a.yaku) for a in answers) / len(answers)
            ref = bench(lambda t, w: hc.estimate_hand_value(t, w, config=cfg), items, repeat, label="ref",
                        budget=LINE_BUDGET)
        for w, cs in cases.items():
            ours = bench(ev.evaluate, [c.args() for c in cs], repeat, label=f"{rid}, {w} wildcards",
                         budget=LINE_BUDGET)
            print(report(ours, ref if w == 0 else None))
            rows.append(row(BenchResult(f"scoring: {rid}, {w} wild", ours.items, ours.passes,
                                        ours.best_seconds),
                            ref, target_ratio=SCORING_TARGET_RATIO, ref_note="*" if w else ""))
        if hc:
            print(f"{'':44} (reference: {yaku:.1f} yaku per hand on average, none rejected)")
        conf = conformance_cases(ev)
        if conf:
            ours = bench(ev.evaluate, [c.args() for c in conf], repeat,
                         label=f"{rid}, its {len(conf)} conformance wins", budget=LINE_BUDGET)
            print(report(ours))
            rows.append(row(BenchResult(f"scoring: {rid}, conformance cases", ours.items, ours.passes,
                                        ours.best_seconds)))
    return rows


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
        t0 = time.perf_counter()
        play_hands(rs, ev, seeds, results)
        first = time.perf_counter() - t0
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


def _timed(fn: Callable, *args) -> float:
    t0 = time.perf_counter()
    fn(*args)
    return time.perf_counter() - t0


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

    print()
    tables = bench_wincheck.tables_section()
    print("\n== win check: mjframework.wintable (bench_wincheck.py) ==")
    rows = bench_wincheck.run(args.seed, win_hands, repeat, tables=False)
    rng = random.Random(args.seed)
    rows += scoring_section(evs, rng, score_hands, repeat)
    rows += waits_section(evs, rng, wait_hands, repeat)
    rows += sim_section(evs, args.seed, sim_hands, sim_repeat)

    print("\n== summary ==")
    print(summary_table(rows))
    print("* reference measured on the same hands before wildcards were put in (it has none)")
    try:
        import resource

        rss = f", process max RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB"
    except ImportError:  # not on POSIX
        rss = ""
    print(f"tables: cold build {tables['cold_s']:.2f} s, cached load {tables['cached_s']:.2f} s, "
          f"{tables['getsizeof_mb']:.1f} MB by getsizeof, {tables['tracemalloc_mb']:.1f} MB by tracemalloc "
          f"({tables['tracemalloc_peak_mb']:.1f} MB peak){rss}")
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
