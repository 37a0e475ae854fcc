#!/usr/bin/env python3
"""A minimal external bot for `mj play --bot` / `mj match` (docs/bots.md).

Reads one JSON event per line on stdin; when a line is a request, answers
with one JSON line choosing an offered action: it always wins when it can,
otherwise discards the tile it just drew if allowed (摸打, tsumogiri), else
takes the first option offered. Standard library only.

    mj play changsha --bot 'python examples/echo_bot.py' --watch --seed 3
"""

from __future__ import annotations

import json
import sys


def main() -> None:
    seat = None
    drawn = None
    for line in sys.stdin:
        event = json.loads(line)
        kind = event.get("type")
        if kind == "start_kyoku":
            seat = event.get("seat")
        elif kind == "tsumo" and event.get("actor") == seat:
            drawn = event.get("pai")
        elif kind == "request":
            options = event["options"]
            choice = options[0]
            if "win" in options:
                choice = "win"
            elif drawn is not None and f"discard:{drawn}" in options:
                choice = f"discard:{drawn}"
            print(json.dumps({"action": choice}), flush=True)
        elif kind == "end_game":
            break


if __name__ == "__main__":
    main()
