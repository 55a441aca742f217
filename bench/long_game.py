"""A long, plausible base game as a list of actions: for benchmarks and crash tests."""

from __future__ import annotations

import random

from companion.kinds.clank.catalog import load_catalog

PLAYERS = ["red", "yellow", "green", "blue"]


def long_game(rounds: int, seed: int = 7) -> list[dict]:
    """A plausible long game that keeps everyone inside: clank, gold, refills, healing."""
    rng = random.Random(seed)
    catalog = load_catalog("clank")
    dungeon = [c.name for c in catalog.cards.values() if c.set == "dungeon" for _ in range(c.count)]
    calm = [c.name for c in catalog.cards.values() if c.set == "dungeon" and not c.dragon_attack]
    rng.shuffle(dungeon)
    actions: list[dict] = [{"do": "row", "cards": rng.sample(calm, 6)}]
    row = list(actions[0]["cards"])
    for turn in range(rounds * len(PLAYERS)):
        p = PLAYERS[turn % len(PLAYERS)]
        actions.append({"do": "clank", "player": p, "n": rng.randint(1, 3)})
        actions.append({"do": "gold", "player": p, "n": rng.randint(1, 2)})
        if rng.random() < 0.3:
            actions.append({"do": "clank", "player": p, "n": -2})
        actions.append({"do": "heal", "player": p, "n": 3})
        if rng.random() < 0.2:  # Mister Whiskers and friends
            actions.append({"do": "attack"})
        taken = rng.sample(row, rng.randint(1, 2))
        for card in taken:
            row.remove(card)
            actions.append({"do": "take", "card": card})
        if len(dungeon) < 2:
            dungeon = [c for c in calm] * 2
            rng.shuffle(dungeon)
        revealed = [dungeon.pop() for _ in taken]
        row += revealed
        actions.append({"do": "end_turn", "revealed": revealed})
    return actions
