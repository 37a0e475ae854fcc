"""What CPython itself costs for the least work an ``is_win`` target line needs.

    python benchmarks/floor.py [--seed N] [--hands N] [--rounds N]

The ``is_win`` targets of issue 13 are ratios to the bare table check
(``wintable.is_standard_win(counts, w)``, given its 34-count vector ready
made): ours must take at most 2× its time. This script times, on the same
hands and the same way as ``run.py`` (CPU time, contenders interleaved pass
by pass, median of the rounds; :mod:`_timing`), the pieces any generic
``is_win(hand, ctx, wildcard)`` has to pay before it knows anything:

* **call**: one call of a Python function taking (hand, ctx, wildcard);
* **count**: that call, reading the hand's tiles and counting the 14 into a
  34-count ``bytearray``, then ``bytes`` of it (the tables' key form);
* **count+table**: that, and the table check on the bytes — the least work
  of a first-sight ``is_win`` that answers from the win table alone;
* **+memo**: that, and building the key of the remembered verdicts, one
  failed look-up and one store (what a first sight pays for the game's
  later repeats);
* **+patterns**: count+table, and one trivial Python call per win pattern of
  the ruleset — the least a ruleset with a minimum to win (国标: 8 fans) pays
  when each pattern is a Python predicate;

next to the table check itself (the reference), its budget (2× the table
check) and ``Evaluator.is_win`` on first sight (its memo emptied each pass).
Lines: a shipped ruleset's complete hands (the table check walks all four
blocks), its random 14-tile hands (most stop at the honor block), and 国标
complete hands. A floor above the budget means the target is out of reach
of any generic Python code with that input, however the evaluator is written.
Every contender but the table check runs inside the same pass-start wrapper
as ``run.py``'s first-sight line (it empties the memos; one call layer, about
0.05 µs, part of the *call* row), so the floors are that much high.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "benchmarks"), str(ROOT / "tests")]

from _timing import interleave  # noqa: E402

from mjframework.core.hand import Hand, WinContext  # noqa: E402
from mjframework.core.tiles import NUM_KINDS  # noqa: E402
from mjframework.evaluate.scoring import Evaluator  # noqa: E402
from mjframework.evaluate.wintable import ensure_tables, is_standard_win  # noqa: E402
from mjframework.rules.loader import load_ruleset  # noqa: E402

IS_WIN_RATIO = 0.5  # the target: is_win >= 0.5x the bare table check


def _count(hand: Hand, ctx: WinContext, wildcard: int | None) -> bytes:
    c = bytearray(NUM_KINDS)
    for t in hand.concealed:
        c[t] += 1
    c[hand.win_tile] += 1  # type: ignore[index]
    return bytes(c)


def floors(n_patterns: int) -> dict[str, Callable[..., Any]]:
    """The floor pieces, each a function of (hand, ctx, wildcard)."""
    memo: dict[tuple, bool] = {}
    preds = [lambda b: False] * n_patterns

    def call(hand: Hand, ctx: WinContext, wildcard: int | None) -> None:
        return None

    def count_table(hand: Hand, ctx: WinContext, wildcard: int | None) -> bool:
        return is_standard_win(_count(hand, ctx, wildcard), 0)

    def with_memo(hand: Hand, ctx: WinContext, wildcard: int | None) -> bool:
        key = (hand.concealed, hand.melds, hand.win_tile, wildcard)
        v = memo.get(key)
        if v is None:
            if len(memo) > 4096:
                memo.clear()
            v = memo[key] = is_standard_win(_count(hand, ctx, wildcard), 0)
        return v

    def with_patterns(hand: Hand, ctx: WinContext, wildcard: int | None) -> bool:
        b = _count(hand, ctx, wildcard)
        win = is_standard_win(b, 0)
        for p in preds:
            p(b)
        return win

    def clearing_memo() -> None:
        memo.clear()

    with_memo.clear = clearing_memo  # type: ignore[attr-defined]
    return {"call": call, "count": _count, "count+table": count_table, "+memo": with_memo,
            f"+patterns ({n_patterns})": with_patterns}


@dataclass
class Line:
    label: str
    micros: dict[str, float]  # contender -> median µs per hand
    budget: float


def measure(label: str, ev: Evaluator, hands: Sequence[tuple[Hand, WinContext, int | None]],
            rounds: int, patterns: bool) -> Line:
    """Time the floors, the table check and first-sight ``is_win`` on ``hands``, interleaved."""
    table_items = []
    for hand, _ctx, _wildcard in hands:
        counts = [0] * NUM_KINDS
        for t in (*hand.concealed, hand.win_tile):
            counts[t] += 1  # (0 wildcards: every hand here is natural)
        table_items.append((counts, 0))
    parts = floors(len(ev.win_patterns))
    if not patterns:
        parts = {k: v for k, v in parts.items() if not k.startswith("+patterns")}
    clear_memo = ev.screen.clear_memo
    floor_memo = parts["+memo"]

    def first_sight(fn: Callable[..., Any]) -> Callable[..., Any]:
        """``fn``, except that the ``None`` hand starting each pass forgets every remembered verdict."""
        def go(hand: Hand | None, ctx: WinContext, wildcard: int | None) -> Any:
            if hand is None:
                clear_memo()
                floor_memo.clear()  # type: ignore[attr-defined]
                return None
            return fn(hand, ctx, wildcard)
        return go

    items = [(None, WinContext(), None), *hands]
    contenders: dict[str, tuple[Callable[..., Any], Sequence[tuple[Any, ...]]]] = {
        "table": (is_standard_win, [([0] * NUM_KINDS, 0), *table_items])}
    for name, fn in parts.items():
        contenders[name] = (first_sight(fn), items)
    contenders["is_win, first sight"] = (first_sight(ev.is_win), items)
    comp = interleave(label, contenders, rounds)
    micros = {name: statistics.median(s) / comp.items * 1e6 for name, s in comp.seconds.items()}
    return Line(label, micros, micros["table"] / IS_WIN_RATIO)


def hands_of(ev: Evaluator, seed: int, n: int) -> tuple[list, list]:
    """Complete hands (as ``run.py`` makes them, no wildcard) and random 14-tile hands."""
    import run as R

    rng = random.Random(f"{seed} floor {ev.ruleset.id}")
    wall = [t for t in ev.ruleset.tileset.full_wall() if t < NUM_KINDS]
    if ev.ruleset.id == "mcr":
        import mcr_hands

        gen = mcr_hands.hands(seed, n_random=n, per_fan=1)
        complete = [mcr_hands.engine_input(h) for h, _ in zip(gen, range(n), strict=False)]
        complete = [(h, c, None) for h, c in complete if not h.melds]  # the count floor reads no melds
    else:
        _, by_w = R.complete_cases(ev, rng, n, (0,))
        complete = [c.args() for c in by_w[0]]
    rand = [R.make_case(rng.sample(wall, 14), 0, None).args() for _ in range(n)]
    return complete, rand


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--hands", type=int, default=400)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--ruleset", default="yongzhou-wangba", help="the shipped ruleset of the first two lines")
    a = ap.parse_args()
    ensure_tables()
    lines = []
    ev = Evaluator(load_ruleset(a.ruleset))
    complete, rand = hands_of(ev, a.seed, a.hands)
    lines.append(measure(f"{a.ruleset}, complete", ev, complete, a.rounds, patterns=False))
    lines.append(measure(f"{a.ruleset}, random 14", ev, rand, a.rounds, patterns=False))
    mcr = Evaluator(load_ruleset("mcr"))
    mcr_complete, _ = hands_of(mcr, a.seed, a.hands)
    lines.append(measure("mcr, complete (8-fan minimum)", mcr, mcr_complete, a.rounds, patterns=True))

    print(f"is_win floors: µs per hand, median of {a.rounds} interleaved CPU-time rounds "
          f"(Python {sys.version.split()[0]}); budget = table ÷ {IS_WIN_RATIO}")
    names = sorted({k for ln in lines for k in ln.micros}, key=lambda k: list(
        next(ln for ln in lines if k in ln.micros).micros).index(k))
    width = max(len(n) for n in names) + 2
    print(f"{'':<{width}}" + "".join(f"{ln.label:>34}" for ln in lines))
    for name in names:
        row = f"{name:<{width}}"
        for ln in lines:
            v = ln.micros.get(name)
            row += f"{'-' if v is None else f'{v:.2f}':>34}"
        print(row)
    print(f"{'budget (2x table)':<{width}}" + "".join(f"{ln.budget:>34.2f}" for ln in lines))
    for ln in lines:
        floor = max(v for k, v in ln.micros.items() if k in ("count+table",) or k.startswith("+patterns"))
        ours = ln.micros["is_win, first sight"]
        print(f"{ln.label}: floor {floor:.2f} µs = {floor / ln.budget:.2f}x the budget; "
              f"is_win first sight {ours:.2f} µs = {ln.micros['table'] / ours:.2f}x the table check")


if __name__ == "__main__":
    main()
