"""Replays a long base game through the real table (fair draw included) and prints:
actions per second, and the time per dragon attack (median, p99, worst).

Targets on the reference machine: at least 20,000 actions/s on one core; no attack
slower than 1 ms.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.long_game import PLAYERS, long_game  # noqa: E402
from companion.rules import make_setup  # noqa: E402
from companion.table import Table  # noqa: E402


def main() -> None:
    actions = long_game(rounds=60)
    setup = make_setup({"edition": "clank", "players": PLAYERS, "health": 10})
    best_rate = 0.0
    attack_times: list[float] = []
    for repeat in range(5):
        table = Table(setup, "5a" * 32)
        per_action: list[tuple[float, bool]] = []
        start = time.perf_counter()
        for action in actions:
            t0 = time.perf_counter()
            events = table.apply(action)
            per_action.append((time.perf_counter() - t0, any(e["event"] == "draw" for e in events)))
        elapsed = time.perf_counter() - start
        best_rate = max(best_rate, len(actions) / elapsed)
        if repeat == 0:
            attacks = sum(1 for _, drew in per_action if drew)
            over = table.game.state.game_over
        attack_times += [t for t, drew in per_action if drew]
    attack_times.sort()
    ms = [t * 1000 for t in attack_times]
    print(f"actions replayed: {len(actions)}  dragon attacks: {attacks}  game over: {over}")
    if len(actions) < 1000 or attacks < 50:
        raise SystemExit("the benchmark game is too short to measure what it promises")
    print(f"throughput: {best_rate:,.0f} actions/s (best of 5 runs, one core)")
    print(
        f"attack time: median {statistics.median(ms):.3f} ms, "
        f"p99 {ms[int(len(ms) * 0.99) - 1]:.3f} ms, worst {ms[-1]:.3f} ms "
        f"over {len(ms)} attacks"
    )


if __name__ == "__main__":
    main()
