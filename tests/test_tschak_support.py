"""Helpers shared by the Tschak! tests (imported by the other test_tschak_* files), and
checks of the helpers themselves."""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from companion.kinds.tschak.rules import TschakGame, load_catalog, parse_hero, seating
from companion.kinds.tschak.rules.cards import HERO_CLASSES

# Four hands of the H1 template, strongest first in every position (see
# structured_tower): whoever holds H1 takes every treasure, whoever holds H4 every monster.
H1 = ["M5s", "M5", "Mc", "W6a", "W6", "W5a", "D4a", "D4x", "D4u", "A"]
H2 = ["M4s", "M4", "M3s", "W5", "W4a", "W4", "D3a", "D3x", "D3u", "A"]
H3 = ["M3", "M2s", "M2", "W3a", "W3", "W2a", "D2a", "D2x", "D2u", "A"]
H4 = ["Mc", "Mc", "Mc", "W2", "W1a", "W1", "D1a", "D1x", "D1u", "A"]
HANDS = [H1, H2, H3, H4]

# the 3-player example game, its players seated as colours (the touchscreen seats colours)
EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "tschak-3-players.jsonl"
COLOURS = {"anna": "red", "boris": "blue", "vera": "green"}


def renamed(value: Any) -> Any:
    """``value`` with the example's player names replaced by their colours."""
    if isinstance(value, dict):
        return {COLOURS.get(k, k): renamed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [renamed(v) for v in value]
    return COLOURS.get(value, value) if isinstance(value, str) else value


def example_actions() -> list[dict[str, Any]]:
    """The example game's actions (its ``new`` line left out), seated as colours."""
    lines = [json.loads(line) for line in EXAMPLE.read_text().splitlines() if line.strip()]
    return [renamed(a) for a in lines[1:]]


def plan(hand: Sequence[str]) -> tuple[list[list[str]], str]:
    """The fixed way to play a structured hand: mage, warrior and dwarf number k on floor
    k, except floor 3: its mage, its warrior and the artifact; the last dwarf is kept."""
    m, w, d = hand[0:3], hand[3:6], hand[6:9]
    return [[m[0], w[0], d[0]], [m[1], w[1], d[1]], [m[2], w[2], "A"]], d[2]


def new(players: Sequence[str], **settings: Any) -> TschakGame:
    return TschakGame(list(players), settings)


def do(game: TschakGame, action: str, **fields: Any) -> list[dict[str, Any]]:
    return game.apply({"do": action, **fields})


DEFAULT_MONSTERS = ["monster:1", "monster:2", "troglodyte"]
DEFAULT_TREASURES = ["chest:2", "ring", "chest:3"]


def tower(game: TschakGame, monsters=None, treasures=None) -> list[dict[str, Any]]:
    return do(
        game,
        "tower",
        monsters=list(monsters or DEFAULT_MONSTERS),
        treasures=list(treasures or DEFAULT_TREASURES),
    )


def play_tower(
    game: TschakGame,
    teams: dict[str, list[list[str]]],
    last: dict[str, str | None] | None,
    monsters=None,
    treasures=None,
) -> list[list[dict[str, Any]]]:
    """Set out a tower, play its three floors (``teams[player][floor]``) and, if ``last``
    is given, the trophies. The events of each action."""
    out = [tower(game, monsters, treasures)]
    for floor in range(3):
        out.append(do(game, "floor", teams={p: t[floor] for p, t in teams.items()}))
    if last is not None:
        out.append(do(game, "trophies", last=last))
    return out


def play_structured_game(
    players: Sequence[str], towers: Sequence[tuple[list[str], list[str]]], **settings: Any
) -> TschakGame:
    """A whole game with H1..H4 dealt to the seats, passed left after every tower, and
    played with ``plan``."""
    game = new(players, **settings)
    seats = seating(list(players))
    hands = list(HANDS)
    for monsters, treasures in towers:
        teams, last = {}, {}
        for seat, name in enumerate(seats):
            if name is not None:
                teams[name], last[name] = plan(hands[seat])
        play_tower(game, teams, last, monsters, treasures)
        hands = [hands[(i - 1) % 4] for i in range(4)]
    return game


# ------------------------------------------------------------------ random legal games
def deal(rng: random.Random) -> list[list[str]]:
    """Four hands of 3 mages, 3 warriors, 3 dwarves and 1 artifact from the catalog."""
    catalog = load_catalog()
    pools: dict[str, list[str]] = {}
    for row in catalog.heroes:
        pools.setdefault(row.card.colour, []).append(row.card.notation)
    for pool in pools.values():
        rng.shuffle(pool)
    hands = []
    for s in range(4):
        hand = []
        for colour in HERO_CLASSES:
            hand += pools[colour][3 * s : 3 * s + 3]
        hand.append(pools["artifact"][s])
        hands.append(hand)
    return hands


def random_plan(
    hand: Sequence[str], rng: random.Random, slot: bool = True
) -> tuple[list[list[str]], str | None]:
    """Three legal teams and the last card, chosen at random from a 10-card hand."""
    by: dict[str, list[str]] = {c: [] for c in HERO_CLASSES}
    for card in hand:
        colour = parse_hero(card).colour
        if colour in by:
            by[colour].append(card)
    for pool in by.values():
        rng.shuffle(pool)
    teams: list[list[str]] = []
    if slot:
        use = rng.random() < 0.75
        art_floor = rng.randrange(3) if use else -1
        missing = rng.choice(HERO_CLASSES)
        for f in range(3):
            if f == art_floor:
                team = [by[c].pop() for c in HERO_CLASSES if c != missing] + ["A"]
            else:
                team = [by[c].pop() for c in HERO_CLASSES]
            rng.shuffle(team)
            teams.append(team)
        last = by[missing].pop() if use else "A"
        return teams, last
    art_floor = rng.randrange(4)  # 3: never played
    for f in range(3):
        team = [by[c].pop() for c in HERO_CLASSES] + (["A"] if f == art_floor else [])
        rng.shuffle(team)
        teams.append(team)
    return teams, ("A" if art_floor == 3 else None)


def tower_decks(rng: random.Random) -> tuple[list[str], list[str]]:
    """The monster and treasure decks, shuffled, two of each back in the box (T-S2)."""
    catalog = load_catalog()
    monsters = [r.card.notation for r in catalog.tower_cards if r.card.is_monster]
    treasures = [r.card.notation for r in catalog.tower_cards if r.card.is_treasure]
    rng.shuffle(monsters)
    rng.shuffle(treasures)
    return monsters[2:], treasures[2:]


def random_game(
    players: Sequence[str],
    rng: random.Random,
    settings: dict[str, Any] | None = None,
    tiebreak: bool = True,
) -> tuple[TschakGame, list[dict[str, Any]]]:
    """A whole random legal game; the game and the actions applied. With ``tiebreak``
    every floor and trophies line names a random order for ties the chain leaves."""
    game = TschakGame(list(players), settings or {})
    slot = game.settings.artifact_takes_slot
    seats = seating(list(players))
    hands = deal(rng)
    monsters, treasures = tower_decks(rng)
    actions: list[dict[str, Any]] = []

    def act(action: dict[str, Any]) -> None:
        game.apply(action)
        actions.append(action)

    for t in range(4):
        act(
            {
                "do": "tower",
                "monsters": monsters[3 * t : 3 * t + 3],
                "treasures": treasures[3 * t : 3 * t + 3],
            }
        )
        plans = {name: random_plan(hands[s], rng, slot) for s, name in enumerate(seats) if name}
        for f in range(3):
            order = list(players)
            rng.shuffle(order)
            floor = {"do": "floor", "teams": {p: plans[p][0][f] for p in players}}
            act({**floor, "tiebreak": order} if tiebreak else floor)
        order = list(players)
        rng.shuffle(order)
        trophies = {"do": "trophies", "last": {p: plans[p][1] for p in players}}
        act({**trophies, "tiebreak": order} if tiebreak else trophies)
        hands = [hands[(i - 1) % 4] for i in range(4)]
    for p in players:
        held = game.state.monsters[p]
        if "elixir" in game.state.treasures[p] and rng.random() < 0.5:
            options = [m for m in held if game.settings.elixir_troglodyte or m != "troglodyte"]
            if game.settings.elixir_optional or not options:
                options.append(None)
            act({"do": "elixir", "player": p, "discard": rng.choice(options)})
    return game, actions


# ------------------------------------------------------------------ the helpers' own tests
def test_deal_gives_every_seat_three_of_each_class_and_an_artifact():
    hands = deal(random.Random(3))
    assert [len(h) for h in hands] == [10, 10, 10, 10]
    for hand in hands:
        colours = Counter(parse_hero(c).colour for c in hand)
        assert colours == {"mage": 3, "warrior": 3, "dwarf": 3, "artifact": 1}
    assert Counter(c for h in hands for c in h) == load_catalog().hero_counts


def test_structured_hands_are_the_whole_template_deck():
    assert Counter(c for h in HANDS for c in h) == load_catalog().hero_counts


def test_random_plan_uses_the_hand_exactly():
    rng = random.Random(7)
    for _ in range(50):
        hand = deal(rng)[0]
        teams, last = random_plan(hand, rng)
        used = [c for t in teams for c in t] + [last]
        assert Counter(used) == Counter(hand)
        for team in teams:
            assert len({parse_hero(c).colour for c in team}) == 3
