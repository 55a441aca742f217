"""Times the exact odds of the next dragon attack (companion.kinds.clank.rules.odds.attack_odds) and
prints the median and p99 per call, in ms.

Target on the reference machine: under 1 ms per call, for 6 players with ghosts and a
full bag as for a 4-player base game. Also times next_attack_odds on a real game and the
JSON conversion.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion.kinds.clank.rules import Game, make_setup  # noqa: E402
from companion.kinds.clank.rules.odds import attack_odds, next_attack_odds, odds_json  # noqa: E402

COLOURS = ["red", "yellow", "green", "blue", "purple", "orange"]
TARGET_MS = 1.0
REPEATS = 20_000


def _times(call: Callable[[], object], repeats: int) -> tuple[list[float], list[float]]:
    """Per call, in ms: the wall-clock time, and the CPU time of this thread (which leaves
    out the time the operating system gave to other processes)."""
    for _ in range(50):  # warm-up
        call()
    wall, cpu = [], []
    clock, thread = time.perf_counter_ns, time.thread_time_ns
    for _ in range(repeats):
        c0 = thread()
        t0 = clock()
        call()
        t1 = clock()
        c1 = thread()
        wall.append((t1 - t0) / 1e6)
        cpu.append((c1 - c0) / 1e6)
    return sorted(wall), sorted(cpu)


def _report(label: str, call: Callable[[], object], repeats: int = REPEATS) -> float:
    wall, cpu = _times(call, repeats)
    p99 = cpu[int(len(cpu) * 0.99) - 1]
    verdict = "ok" if p99 < TARGET_MS else "TOO SLOW"
    print(
        f"{label:<44} cpu: median {statistics.median(cpu):.4f} ms, p99 {p99:.4f} ms "
        f"(< {TARGET_MS:g} ms: {verdict}) | wall: median {statistics.median(wall):.4f} ms, "
        f"p99 {wall[int(len(wall) * 0.99) - 1]:.4f} ms, worst {wall[-1]:.3f} ms"
    )
    return p99


def six_players_with_ghosts() -> tuple[dict[str, int], dict[str, int], int, dict[str, int]]:
    """A full Catacombs party bag: 24 black, ~30 cubes per player in bag and area, 10
    ghosts, 12 cubes drawn, every player's health left different (nothing shared)."""
    bag = {"black": 24, **{c: 22 + i for i, c in enumerate(COLOURS)}, "ghost": 6}
    area = {**{c: 8 - i for i, c in enumerate(COLOURS)}, "ghost": 4}
    health = {c: 10 - i for i, c in enumerate(COLOURS)}
    return bag, area, 12, health


def six_players_worst() -> tuple[dict[str, int], dict[str, int], int, dict[str, int]]:
    """Beyond the rules' numbers: 30 cubes per player, 10 ghosts, 20 health, 16 drawn."""
    bag = {"black": 24, **{c: 30 for c in COLOURS}, "ghost": 10}
    health = {c: 20 - i for i, c in enumerate(COLOURS)}
    return bag, {}, 16, health


def four_player_base() -> tuple[dict[str, int], dict[str, int], int, dict[str, int]]:
    """A 4-player Clank! game midway: rage space 4 and 2 Danger cards (5 cubes)."""
    bag = {"black": 17, "red": 4, "yellow": 6, "green": 2, "blue": 5, "ghost": 0}
    area = {"red": 3, "yellow": 1, "green": 4, "blue": 0, "ghost": 0}
    health = {"red": 7, "yellow": 9, "green": 4, "blue": 10}
    return bag, area, 5, health


def real_game() -> Game:
    setup = make_setup({"edition": "catacombs", "players": COLOURS, "party": True})
    game = Game(setup, lambda request: [])  # no draw is made here
    for i, colour in enumerate(COLOURS):
        game.apply({"do": "clank", "player": colour, "n": 4 + i})
        game.apply({"do": "damage", "player": colour, "n": 1 + i})
    for _ in range(5):
        game.apply({"do": "ghost"})
    game.apply({"do": "rage", "n": 4})
    return game


def main() -> None:
    print(
        f"attack_odds, exact (Fraction) distribution; target < {TARGET_MS:g} ms per call "
        f"(p99 of {REPEATS} calls; 'cpu' is this thread's CPU time, 'wall' includes the "
        "operating system's interruptions)"
    )
    worst = 0.0
    for label, state in (
        ("6 players, ghosts, full bag (12 drawn)", six_players_with_ghosts()),
        ("4-player base game (5 drawn)", four_player_base()),
        ("stress: 6 x 30 cubes, 20 health, 16 drawn", six_players_worst()),
    ):
        bag, area, count, health = state
        worst = max(
            worst, _report(label, lambda b=bag, a=area, n=count, h=health: attack_odds(b, a, n, h))
        )
    game = real_game()
    worst = max(
        worst, _report("next_attack_odds, 6-player Catacombs", lambda: next_attack_odds(game))
    )
    odds = next_attack_odds(game)
    assert odds is not None
    _report("odds_json of that result", lambda: odds_json(odds))
    verdict = "under" if worst < TARGET_MS else "OVER"
    print(f"slowest cpu p99: {worst:.4f} ms ({verdict} the < {TARGET_MS:g} ms target)")


if __name__ == "__main__":
    main()
