"""The claim round's parts as shares of a simulated hand, timed inside the game.

    python benchmarks/claim_share.py [--hands N] [--only RULESET ...]

Plays ``--hands`` greedy-bot hands of each ruleset (after 10 to warm the evaluator's
memos) with the methods of a claim round on a discard wrapped, each timed in CPU
(``time.process_time``): the whole round (``Claims._claims``), the seat's wins worked
out (``_may_win_on``: the kinds a seat may win on; ``_wins``: a win on the discard judged),
the options plugins add (``_extra_options``, called at every turn too), the decision set
asked (``ask_set``: the claims, and the exchange and void declarations before play),
the greedy bot's claim choice, a claim carried out, a win scored and settled
(``settle_win``: every win, self-drawn ones too), and the phases before play (the
exchange, the void declaration) where a ruleset has them. Per part: calls a hand, CPU µs
a call, share of the hand. Times are inclusive and overlap (``ask_set`` holds the bot's
choice; the round holds most others); each wrapper adds ~1 µs a call, so the per-call
figures are upper bounds — ``eval_share.py`` replays the evaluator's calls without it.
"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Generator
from typing import Any

from mjframework.evaluate.scoring import Evaluator
from mjframework.play import bots as bots_mod
from mjframework.play.game import Game
from mjframework.play.table import claims as claims_mod
from mjframework.rules.loader import load_ruleset

RULESETS = ("yongzhou-huandiao", "yongzhou-wangba", "changsha", "sichuan-xuezhan", "mcr")
CLAIMS = claims_mod.Claims
# (owner, method, label, a generator (an engine step) or a plain function)
PARTS: tuple[tuple[type, str, str, bool], ...] = (
    (CLAIMS, "_claims", "claim round", True),
    (CLAIMS, "_may_win_on", "  may win on (kinds)", False),
    (CLAIMS, "_wins", "  win on it judged", False),
    (CLAIMS, "_extra_options", "  plugins' options*", False),
    (CLAIMS, "ask_set", "  decision set asked*", True),
    (bots_mod.GreedyBot, "_claim", "    bot: claim", False),
    (CLAIMS, "take_claim", "  claim carried out", False),
    (CLAIMS, "settle_win", "win scored, settled*", False),
    (Game, "_exchange", "exchange (before play)", True),
    (bots_mod.GreedyBot, "_exchange", "  bot: exchange", False),
    (Game, "_declare_void", "void declared", True),
)


def _wrapped(f: Callable[..., Any], label: str, gen: bool, took: dict[str, float],
             calls: Counter[str]) -> Callable[..., Any]:
    clock = time.process_time
    if gen:
        def step(*a: Any, **k: Any) -> Generator[Any, Any, Any]:
            t = clock()
            r = yield from f(*a, **k)
            took[label] += clock() - t
            calls[label] += 1
            return r
        return step

    def plain(*a: Any, **k: Any) -> Any:
        t = clock()
        r = f(*a, **k)
        took[label] += clock() - t
        calls[label] += 1
        return r
    return plain


def _play(rs: Any, ev: Evaluator, seeds: range) -> None:
    for s in seeds:
        bots = [bots_mod.GreedyBot(random.Random(s * 4 + i)) for i in range(rs.players)]
        Game(rs, bots, seed=s, dealer=s % rs.players, evaluator=ev).play()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hands", type=int, default=150)
    ap.add_argument("--only", action="append", help="a ruleset (repeatable)")
    args = ap.parse_args()
    took: dict[str, float] = defaultdict(float)
    calls: Counter[str] = Counter()
    saved = [(owner, name, getattr(owner, name)) for owner, name, _, _ in PARTS]
    for owner, name, label, gen in PARTS:
        setattr(owner, name, _wrapped(getattr(owner, name), label, gen, took, calls))
    try:
        for rid in args.only or RULESETS:
            rs = load_ruleset(rid)
            ev = Evaluator(rs)
            _play(rs, ev, range(10_000, 10_010))  # warm the memos
            took.clear()
            calls.clear()
            t = time.process_time()
            _play(rs, ev, range(args.hands))
            total = time.process_time() - t
            n = args.hands
            print(f"{rid}: {n} hands, {total / n * 1e6:.0f} µs CPU a hand")
            for _, _, label, _ in PARTS:
                if calls[label]:
                    each = took[label] / calls[label] * 1e6
                    print(f"  {label:24s} {calls[label] / n:6.1f} a hand  {each:7.1f} µs"
                          f"  {took[label] / total * 100:5.1f} %")
    finally:
        for owner, name, f in saved:
            setattr(owner, name, f)
    print("* also outside the claim round (turns, the phases before play, self-drawn wins)")


if __name__ == "__main__":
    main()
