"""国标麻将 (MCR) full scoring: ours against PyMahjongGB's ``MahjongFanCalculator``.

    python benchmarks/bench_mcr.py                 # 1,000 hands, 5 interleaved rounds
    python benchmarks/bench_mcr.py --hands 3000 --rounds 9 --seed 7

The hands are the oracle test's generator (``tests/mcr_hands.py``): for every
fan a few hands built to contain it, the rest random legal winning hands (melds,
kongs, flowers, winds and win flags included), kept only when they reach the
8-fan minimum, so every call is a real win to score on both sides. Both sides
are checked to agree on the total before timing.

* **ours**: ``Evaluator(load_ruleset("mcr")).evaluate(hand, ctx)`` — validate the
  hand and context, every reading of every shape, all 81 fans with their
  exclusions, the best reading, the 8-fan minimum, the settlement and the call.
* **ref**: ``MahjongFanCalculator(..., verbose=True)`` on the same hands in its
  own encoding (C++; it divides the hand, scores every division, keeps the best).

Timing is CPU time (``time.process_time``). Each round times one pass of ours
and one of the reference over all hands, alternating which goes first; the
ratio (reference time ÷ our time, above 1 = we are faster) is taken per round,
and the median and the min–max over rounds are printed, so load on the machine
hits both sides alike.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "benchmarks")]

from _timing import comparison_row, interleave, report_comparison  # noqa: E402 (the folder's shared timing)


def make_hands(seed: int, n: int):
    """``n`` winning hands (≥ 8 fans without flowers) as (ours, reference) argument tuples."""
    import mcr_hands as M
    from MahjongGB import MahjongFanCalculator

    out_ours, out_ref = [], []
    gen = M.hands(seed, n_random=10 * n, per_fan=max(1, n // (4 * len(M.FANS))))
    for h in gen:
        args = h.pmg_args()
        fans = MahjongFanCalculator(**args, verbose=True)
        if sum(v * c for v, c, _zh, en in fans if en != "Flower Tiles") < 8:
            continue
        out_ours.append(M.engine_input(h))
        out_ref.append(args)
        if len(out_ours) == n:
            break
    return out_ours, out_ref


def run(seed: int = 1, hands: int = 1000, rounds: int = 5) -> dict[str, Any]:
    from MahjongGB import MahjongFanCalculator

    from mjframework.evaluate.scoring import Evaluator
    from mjframework.rules.loader import load_ruleset

    ev = Evaluator(load_ruleset("mcr"))
    ours_items, ref_items = make_hands(seed, hands)
    # Same hands, same totals: otherwise the comparison would time different work.
    for (hand, ctx), args in zip(ours_items, ref_items, strict=True):
        theirs = sum(v * c for v, c, _zh, _en in MahjongFanCalculator(**args, verbose=True))
        mine = ev.evaluate(hand, ctx)
        got = mine.score.points if hasattr(mine, "score") else None
        if got is not None and got != theirs:
            raise SystemExit(f"ours {got} ≠ PyMahjongGB {theirs} on a benchmark hand: fix before timing")

    def ref(args: dict) -> Any:
        return MahjongFanCalculator(**args, verbose=True)

    contenders = {"ours": (ev.evaluate, ours_items), "ref": (ref, [(a,) for a in ref_items])}
    label = f"scoring: mcr, {len(ours_items)} winning hands"
    comp = interleave(label, contenders, rounds=rounds)
    print(report_comparison(comp))
    return {"row": comparison_row(label, comp), "seconds": comp.seconds, "items": comp.items}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--hands", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    try:
        import MahjongGB  # noqa: F401
    except ImportError:
        raise SystemExit("PyMahjongGB is not installed (pip install PyMahjongGB, the test extra)") from None
    run(a.seed, a.hands, a.rounds)


if __name__ == "__main__":
    main()
