"""How fast the browser table answers a person: the time from a move sent to the next decision.

A room of one person and three bots (``mj serve --rooms``' app, over Starlette's
TestClient WebSocket: no network, the same server code) on each ruleset; the
person always takes the first option. For every answer sent, the wall-clock
time until that seat's next ``decision`` frame arrives: the bots' turns in
between (``bot_pause`` 0: their thinking only), the engine, the seat's view,
its 听 (waits after each discard option), JSON and the socket. Fixed seeds.

    python benchmarks/bench_room.py             # every shipped ruleset, 3 hands each
    python benchmarks/bench_room.py --hands 1 changsha

The target is 100 ms per action (issue 25); the script prints median, 95th
percentile and worst per ruleset.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from starlette.testclient import TestClient

from mjframework.rules.loader import available_rulesets
from mjframework.ui.webapp import make_app


def measure(client: TestClient, token: str, rid: str, hands: int, seed: int) -> list[float]:
    r = client.post("/api/rooms", json={"ruleset": rid, "humans": 1, "hands": hands, "seed": seed,
                                        "bot_pause": 0}, headers={"X-MJ-Token": token})
    r.raise_for_status()
    out = r.json()
    times: list[float] = []
    sent: float | None = None
    with client.websocket_connect(f"ws://localhost/ws/{out['room']}?token={out['seats'][0]['token']}") as ws:
        while True:
            m = ws.receive_json()
            if m["type"] == "decision":
                if sent is not None:
                    times.append(time.perf_counter() - sent)
                sent = time.perf_counter()
                ws.send_json({"type": "choose", "decision": m["decision"], "index": 0})
            elif m["type"] == "hand_over":
                sent = None
                if not m["last"]:
                    ws.send_json({"type": "next"})
            elif m["type"] == "room_over":
                return times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("rulesets", nargs="*")
    ap.add_argument("--hands", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    app = make_app(bot_pause=0)
    print(f"{'ruleset':<20} {'actions':>7} {'median ms':>10} {'p95 ms':>8} {'worst ms':>9}")
    try:
        with TestClient(app, base_url="http://localhost") as client:
            for rid in args.rulesets or sorted(available_rulesets()):
                t = sorted(measure(client, app.state.playground.token, rid, args.hands, args.seed))
                p95 = t[min(len(t) - 1, int(0.95 * len(t)))]
                print(f"{rid:<20} {len(t):>7} {statistics.median(t) * 1000:>10.1f} {p95 * 1000:>8.1f} "
                      f"{t[-1] * 1000:>9.1f}")
    finally:
        app.state.close()


if __name__ == "__main__":
    main()
