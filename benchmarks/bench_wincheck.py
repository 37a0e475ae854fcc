"""Benchmark of the win-check core (mjframework.evaluate.wintable) against `mahjong`.

Run from the repository root:

    python benchmarks/bench_wincheck.py [--seed N] [--hands N] [--repeat N]

Prints table build/load times and memory, then hands/s for each query on a
fixed, seeded set of hands, and for the reference implementation (PyPI
``mahjong``: ``Agari.is_agari``, ``Shanten``) on the very same count lists
where one exists. See benchmarks/README.md for what each line means.

``benchmarks/run.py`` calls :func:`tables_section` and :func:`run` and puts
the main lines (:func:`run`'s return value) into its summary table.
"""

from __future__ import annotations

import argparse
import gc
import importlib.metadata
import platform
import random
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

try:
    from mjframework.evaluate import wintable as W
    from mjframework.evaluate.distance import distance
except ImportError:  # run from a checkout that isn't installed
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from mjframework.evaluate import wintable as W
    from mjframework.evaluate.distance import distance

from _timing import BenchResult, Row, bench, comparison_row, interleave, report, report_comparison, row

try:
    import mahjong
    from mahjong.agari import Agari
    from mahjong.shanten import Shanten
except ImportError:  # pragma: no cover - depends on the machine
    mahjong = None

# All melds of the 34-kind encoding: 21 sequences, 34 triplets.
MELDS = [(s, s + 1, s + 2) for s in range(27) if s % 9 <= 6] + [(k, k, k) for k in range(34)]
WALL = [k for k in range(34) for _ in range(4)]


def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "?"


def complete_hand(rng: random.Random) -> list[int]:
    """4 random melds + a random pair, at most 4 copies of a kind."""
    while True:
        c = [0] * 34
        for meld in rng.choices(MELDS, k=4):
            for k in meld:
                c[k] += 1
        c[rng.randrange(34)] += 2
        if max(c) <= 4:
            return c


def replace_by_wildcards(rng: random.Random, c: list[int], w: int) -> list[int]:
    """w random tiles of the hand become wildcards (removed from the naturals)."""
    c = c.copy()
    for _ in range(w):
        k = rng.choice([k for k, x in enumerate(c) for _ in range(x)])
        c[k] -= 1
    return c


def random_hand(rng: random.Random, n: int) -> list[int]:
    """n tiles drawn from a 136-tile wall."""
    c = [0] * 34
    for t in rng.sample(WALL, n):
        c[t] += 1
    return c


def ref_waits(agari: Agari, c: list[int]) -> list[int]:
    """Reference waits: try each drawable kind with is_agari (34 calls)."""
    out = []
    for t in range(34):
        if c[t] < 4:
            c[t] += 1
            if agari.is_agari(c):
                out.append(t)
            c[t] -= 1
    return out


def tables_section() -> dict[str, float]:
    """Print (and return) cold build / cached load seconds and memory in MB."""
    print("== tables ==")
    with tempfile.TemporaryDirectory() as tmp:
        W.reset_tables()
        t0 = time.perf_counter()
        cold = W.ensure_tables(cache_dir=tmp)
        cold_wall = time.perf_counter() - t0
        size = cold.cache_path.stat().st_size if cold.cache_path else 0
        W.reset_tables()
        t0 = time.perf_counter()
        warm = W.ensure_tables(cache_dir=tmp)
        warm_wall = time.perf_counter() - t0
        assert (cold.source, warm.source) == ("built", "cache"), (cold.source, warm.source)
        print(
            f"cold build (+ write cache file)       {cold_wall:7.3f} s"
            f"   ({cold.suit_entries:,} suit + {cold.honor_entries:,} honor keys)"
        )
        print(f"cached load                           {warm_wall:7.3f} s   (file {size / 1e6:.1f} MB)")
        print(f"memory, sys.getsizeof sum             {warm.approx_bytes / 1e6:7.1f} MB")

        W.reset_tables()
        gc.collect()
        tracemalloc.start()
        W.ensure_tables(use_cache=False)
        gc.collect()
        current, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        print(
            f"memory, tracemalloc after build       {current / 1e6:7.1f} MB"
            f"   (peak while building {peak / 1e6:.1f} MB)"
        )
        W.reset_tables()
        W.ensure_tables(cache_dir=tmp)  # the rest runs on loaded tables
    return {
        "cold_s": cold_wall,
        "cached_s": warm_wall,
        "file_mb": size / 1e6,
        "getsizeof_mb": warm.approx_bytes / 1e6,
        "tracemalloc_mb": current / 1e6,
        "tracemalloc_peak_mb": peak / 1e6,
    }


def run(seed: int, n: int, repeat: int, *, tables: bool = True) -> list[Row]:
    """Print every section; return the main lines as summary :class:`Row` s.

    ``tables=False`` skips the table build/load section (the caller ran
    :func:`tables_section` itself).
    """
    rng = random.Random(seed)
    rows: list[Row] = []
    if mahjong is None:
        print("reference package `mahjong` is not importable: printing our figures only")
    else:
        print(
            f"reference: mahjong {_version('mahjong')} "
            "(Agari.is_agari, Shanten.calculate_shanten_for_regular_hand)"
        )
    if tables:
        print()
        tables_section()

    agari = Agari() if mahjong else None
    base = [complete_hand(rng) for _ in range(n)]
    complete = {w: [replace_by_wildcards(rng, c, w) for c in base] for w in range(5)}
    randoms = {w: [random_hand(rng, 14 - w) for _ in range(n)] for w in range(5)}

    # Correctness cross-check on the same lists, before timing.
    assert all(W.is_standard_win(c, w) for w in range(5) for c in complete[w])
    if agari:
        assert all(agari.is_agari(c) for c in complete[0])
        ours = [W.is_standard_win(c, 0) for c in randoms[0]]
        theirs = [agari.is_agari(c) for c in randoms[0]]
        extra = sum(t and not o for o, t in zip(ours, theirs, strict=True))
        assert not any(o and not t for o, t in zip(ours, theirs, strict=True))
        print(
            f"\nrandom 14-tile hands: {sum(ours)} standard wins of {n}; is_agari agrees "
            f"except {extra} seven-pairs/orphans hands it also accepts"
        )

    def line(label: str, fn, items, ref_fn=None, ref_items=None, summary: str = "",
             **row_kw) -> Row | None:
        """Time ``fn`` (interleaved with ``ref_fn`` when there is one); print; return its summary row."""
        if ref_fn is None:
            ours = bench(fn, items, repeat, label=label)
            print(report(ours))
            r = row(BenchResult(summary or label, ours.items, ours.passes, ours.best_seconds), **row_kw)
        else:
            comp = interleave(label, {"ours": (fn, items), "ref": (ref_fn, ref_items or items)}, repeat)
            print(report_comparison(comp))
            r = comparison_row(summary or label, comp, **row_kw)
        if summary:
            rows.append(r)
        return r

    print("\n== is_standard_win(counts, w) ==")
    ref = agari.is_agari if agari else None
    for w in range(5):
        # Target (README): 0-4 wildcards >= 3x is_agari on the same hands
        # without wildcards (the reference has none; marked "*" for w > 0).
        line(
            f"complete hands, {w} wildcards",
            W.is_standard_win,
            [(c, w) for c in complete[w]],
            ref,
            [(c,) for c in complete[0]],
            summary=f"wincheck: is_standard_win, complete, {w} wild",
            target_ratio=3.0,
            ref_note="*" if w and ref else "",
        )
    for w in range(5):
        items = [(c, w) for c in randoms[w]]
        line(
            f"random 14-tile hands, {w} wildcards",
            W.is_standard_win,
            items,
            ref if w == 0 else None,
            [(c,) for c in randoms[0]],
            summary="wincheck: is_standard_win, random 14, 0 wild" if w == 0 else "",
        )
    as_bytes = [(bytes(c), 0) for c in complete[0]]
    line("complete hands, 0 wildcards, bytes input", W.is_standard_win, as_bytes)

    print("\n== standard_waits(counts13, w) ==  (ref: 34 x is_agari)")
    tenpai = {}
    for w in (0, 1):
        hands13 = []
        for c in complete[w]:
            c = c.copy()
            c[rng.choice([k for k, x in enumerate(c) for _ in range(x)])] -= 1
            hands13.append(c)
        tenpai[w] = hands13
    if agari:  # same waits, bar a fifth copy (ours) and seven pairs/orphans (theirs)
        for c in tenpai[0][:300]:
            ours_w = {t for t in W.standard_waits(c, 0) if c[t] < 4}
            assert ours_w <= set(ref_waits(agari, c))
    wref = (lambda c: ref_waits(agari, c)) if agari else None
    line(
        "tenpai 13-tile hands, 0 wildcards",
        W.standard_waits,
        [(c, 0) for c in tenpai[0]],
        wref,
        [(c,) for c in tenpai[0]],
        summary="wincheck: standard_waits, tenpai, 0 wild",
    )
    line("tenpai 13-tile hands, 1 wildcard", W.standard_waits, [(c, 1) for c in tenpai[1]])
    rand13 = [random_hand(rng, 13) for _ in range(n)]
    line(
        "random 13-tile hands, 0 wildcards",
        W.standard_waits,
        [(c, 0) for c in rand13],
        wref,
        [(c,) for c in rand13],
        summary="wincheck: standard_waits, random 13, 0 wild",
    )

    print("\n== distance(counts, w) ==  (ref: Shanten regular + 1)")
    if mahjong:
        sh = Shanten()
        assert all(distance(c, 0) == sh.calculate_shanten_for_regular_hand(c) + 1 for c in randoms[0][:500])
    sref = Shanten().calculate_shanten_for_regular_hand if mahjong else None
    few = n // 4  # distance is ~100x slower than a win check; keep the run short
    line(
        "random 14-tile hands, 0 wildcards",
        distance,
        [(c, 0) for c in randoms[0][:few]],
        sref,
        [(c,) for c in randoms[0][:few]],
        summary="wincheck: distance, random 14, 0 wild",
    )
    line("random 14-tile hands, 2 wildcards", distance, [(c, 2) for c in randoms[2][:few]])
    return rows


def header(seed: int, n: int, repeat: int) -> None:
    print(
        f"Python {platform.python_version()} on {platform.machine()}, "
        f"seed {seed}, {n} hands per set, best of {repeat}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=20240601)
    ap.add_argument("--hands", type=int, default=2000, help="hands per set")
    ap.add_argument("--repeat", type=int, default=7, help="timing repeats (best kept)")
    args = ap.parse_args()
    header(args.seed, args.hands, args.repeat)
    run(args.seed, args.hands, args.repeat)


if __name__ == "__main__":
    t0 = time.perf_counter()
    main()
    try:
        import resource

        rss = f", process max RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB"
    except ImportError:  # not on POSIX
        rss = ""
    print(f"\n(total {time.perf_counter() - t0:.1f} s{rss})")
