"""The exact odds of the next dragon attack (companion.kinds.clank.rules.odds), checked against
independent computations: every ordered draw enumerated for small bags, a cube-by-cube
Markov chain for the bags of real games."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from fractions import Fraction
from itertools import permutations
from math import comb
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.kinds.clank.rules import DrawRequest, Game, make_setup
from companion.kinds.clank.rules.odds import (
    AttackOdds,
    PlayerOdds,
    attack_odds,
    next_attack_odds,
    odds_json,
)

COLOURS = ["red", "yellow", "green", "blue", "purple", "orange"]
F = Fraction


# --------------------------------------------------------------- independent references
def brute_force(
    bag: Mapping[str, int],
    area: Mapping[str, int],
    count: int,
    health_left: Mapping[str, int],
    ghost_hurts: bool = True,
) -> dict[str, list[Fraction]]:
    """Every ordered draw of distinct cubes, equally likely; each cube resolved in order as
    the engine does (a player knocked out takes no more damage)."""
    cubes = [kind for counts in (bag, area) for kind, n in counts.items() for _ in range(n)]
    n = min(max(count, 0), len(cubes))
    tallies = {name: [0] * (h + 1) for name, h in health_left.items()}
    draws = 0
    for draw in permutations(cubes, n):
        draws += 1
        for name, h in health_left.items():
            lost = 0
            for cube in draw:
                if lost == h:
                    break
                if cube == name or (ghost_hurts and cube == "ghost"):
                    lost += 1
            tallies[name][lost] += 1
    return {name: [F(t, draws) for t in tally] for name, tally in tallies.items()}


def markov_chain(own: int, ghosts: int, other: int, count: int, health: int) -> list[Fraction]:
    """One player's damage, drawing one cube at a time from (own, ghost, other) cubes."""
    states: dict[tuple[int, int, int, int], Fraction] = {(own, ghosts, other, 0): F(1)}
    for _ in range(count):
        after: dict[tuple[int, int, int, int], Fraction] = {}
        for (a, g, o, lost), p in states.items():
            left = a + g + o
            if left == 0:  # the bag ran out: nothing more is drawn
                after[(a, g, o, lost)] = after.get((a, g, o, lost), F(0)) + p
                continue
            hit = min(lost + 1, health)
            for key, n in (
                ((a - 1, g, o, hit), a),
                ((a, g - 1, o, hit), g),
                ((a, g, o - 1, lost), o),
            ):
                if n:
                    after[key] = after.get(key, F(0)) + p * F(n, left)
        states = after
    out = [F(0)] * (health + 1)
    for (_a, _g, _o, lost), p in states.items():
        out[lost] += p
    return out


def step_from_snapshot(snap: dict[str, Any]) -> tuple[str, int, bool]:
    """The next dragon draw from the table-script snapshot alone (TABLE_SCRIPT.md, "The
    next attack's odds"): (reason, cubes asked, whether it ends the game)."""
    total = sum(snap["bag"].values()) + sum(snap["clank_area"].values())
    countdown = snap["countdown"]
    if countdown is not None:  # Clank!: spaces 2-4 draw 1-3 more, space 5 ends the game
        space = countdown["space"] + 1
        if space == 5:
            return "countdown", 0, True
        return "countdown", snap["next_attack"] + space - 1, False
    catacombs = snap["edition"] == "catacombs"
    if catacombs and any(p["status"] != "playing" for p in snap["players"].values()):
        reason, count = "out_draw", 6 if len(snap["players"]) == 2 else 4
    else:
        reason, count = "attack", snap["next_attack"]
    return reason, count, catacombs and count >= total


def expected_from_snapshot(snap: dict[str, Any]) -> tuple[int, dict[str, list[Fraction]]]:
    """The next draw's odds from the table-script snapshot alone."""
    cubes = {k: snap["bag"].get(k, 0) + snap["clank_area"].get(k, 0) for k in snap["bag"]}
    total = sum(cubes.values())
    _reason, count, ends = step_from_snapshot(snap)
    ghosts = cubes.get("ghost", 0)
    out = {}
    for name, p in snap["players"].items():
        if p["status"] != "playing":
            continue
        own = cubes.get(name, 0)
        if ends:  # everyone inside is knocked out, whatever the cubes
            out[name] = [F(0)] * p["health"] + [F(1)]
        else:
            out[name] = markov_chain(own, ghosts, total - own - ghosts, count, p["health"])
    return min(count, total), out


def assert_well_formed(odds: AttackOdds, health_left: Mapping[str, int]) -> None:
    assert list(odds.players) == list(health_left)
    for name, po in odds.players.items():
        assert isinstance(po, PlayerOdds)
        assert len(po.damage) == health_left[name] + 1
        assert all(isinstance(p, Fraction) and 0 <= p <= 1 for p in po.damage)
        assert sum(po.damage) == 1
        assert po.knock_out == po.damage[-1]
        assert po.expected == sum(k * p for k, p in enumerate(po.damage))


def damages(odds: AttackOdds) -> dict[str, list[Fraction]]:
    return {name: list(po.damage) for name, po in odds.players.items()}


# --------------------------------------------------------------------- small exact cases
def test_one_cube_from_three():
    odds = attack_odds({"black": 2, "red": 1}, {}, 1, {"red": 1})
    assert odds.count == 1
    assert damages(odds) == {"red": [F(2, 3), F(1, 3)]}
    assert odds.players["red"].knock_out == F(1, 3)
    assert odds.players["red"].expected == F(1, 3)


def test_the_opening_four_player_attack():
    # 24 black in the bag; red 3, yellow 2, green 1 in the area; 2 cubes drawn of 30
    bag = {"black": 24, "red": 0, "yellow": 0, "green": 0, "blue": 0, "ghost": 0}
    area = {"red": 3, "yellow": 2, "green": 1, "blue": 0, "ghost": 0}
    health = {name: 10 for name in ("red", "yellow", "green", "blue")}
    odds = attack_odds(bag, area, 2, health)
    assert odds.count == 2
    zeros = [F(0)] * 8
    assert damages(odds) == {
        "red": [F(351, 435), F(81, 435), F(3, 435), *zeros],
        "yellow": [F(378, 435), F(56, 435), F(1, 435), *zeros],
        "green": [F(406, 435), F(29, 435), F(0), *zeros],
        "blue": [F(1), F(0), F(0), *zeros],
    }
    assert odds.players["red"].expected == F(2 * 3, 30)
    assert_well_formed(odds, health)


def test_ghosts_hurt_every_player_in_the_dungeon():
    bag = {"black": 3, "red": 1, "blue": 0, "ghost": 1}
    health = {"red": 2, "blue": 1}
    odds = attack_odds(bag, {}, 2, health)
    # red: 2 hurting cubes of 5 (own + ghost); blue: the ghost only
    assert damages(odds) == {
        "red": [F(3, 10), F(6, 10), F(1, 10)],
        "blue": [F(6, 10), F(4, 10)],
    }
    assert damages(odds) == brute_force(bag, {}, 2, health)
    assert_well_formed(odds, health)


def test_ghosts_in_the_area_are_poured_in_too():
    odds = attack_odds({"black": 3}, {"ghost": 1, "red": 1}, 2, {"red": 2, "blue": 1})
    assert damages(odds) == {
        "red": [F(3, 10), F(6, 10), F(1, 10)],
        "blue": [F(6, 10), F(4, 10)],
    }


def test_without_ghost_damage_ghosts_count_as_black():
    bag = {"black": 3, "red": 1, "ghost": 1}
    odds = attack_odds(bag, {}, 2, {"red": 2, "blue": 1}, ghost_hurts=False)
    assert damages(odds) == {"red": [F(6, 10), F(4, 10), F(0)], "blue": [F(1), F(0)]}
    assert damages(odds) == brute_force(bag, {}, 2, {"red": 2, "blue": 1}, ghost_hurts=False)


def test_cubes_of_players_out_of_the_dungeon_count_as_black():
    # yellow escaped, green was knocked out: their cubes are still in the bag and area
    bag = {"black": 2, "red": 2, "yellow": 3, "green": 1, "ghost": 1}
    area = {"red": 1, "yellow": 1, "green": 0, "ghost": 0}
    as_black = {"black": 2 + 3 + 1 + 1, "red": 3, "ghost": 1}
    health = {"red": 3, "blue": 2}
    odds = attack_odds(bag, area, 3, health)
    assert damages(odds) == damages(attack_odds(as_black, {}, 3, health))
    assert set(odds.players) == {"red", "blue"}
    assert damages(odds) == brute_force(bag, area, 3, health)
    # blue has no cube in play: only the ghost can hurt them (1 of 11, 3 drawn)
    assert damages(odds)["blue"] == [F(8, 11), F(3, 11), F(0)]


def test_knock_out_caps_the_damage():
    bag = {"black": 1, "red": 4}
    odds = attack_odds(bag, {}, 3, {"red": 2})
    # 3 of 5 drawn: at least 2 red always
    assert damages(odds) == {"red": [F(0), F(0), F(1)]}
    assert odds.players["red"].knock_out == 1
    assert odds.players["red"].expected == 2


def test_a_bag_smaller_than_the_draw_is_drawn_whole():
    bag = {"black": 1, "red": 2, "blue": 1, "ghost": 1}
    health = {"red": 5, "blue": 1}
    odds = attack_odds(bag, {}, 10, health)
    assert odds.count == 5
    assert damages(odds) == {
        "red": [F(0), F(0), F(0), F(1), F(0), F(0)],
        "blue": [F(0), F(1)],
    }
    assert damages(odds) == brute_force(bag, {}, 10, health)


def test_the_exact_size_of_the_bag_is_drawn_whole():
    odds = attack_odds({"black": 2}, {"red": 1}, 3, {"red": 2})
    assert odds.count == 3
    assert damages(odds) == {"red": [F(0), F(1), F(0)]}


@pytest.mark.parametrize("count", [0, -2])
def test_no_cube_drawn(count):
    odds = attack_odds({"black": 5, "red": 3, "ghost": 2}, {"red": 1}, count, {"red": 3})
    assert odds.count == 0
    assert damages(odds) == {"red": [F(1), F(0), F(0), F(0)]}
    assert odds.players["red"].knock_out == 0
    assert odds.players["red"].expected == 0


def test_an_empty_bag():
    odds = attack_odds({"black": 0, "red": 0}, {"red": 0, "ghost": 0}, 4, {"red": 2, "blue": 1})
    assert odds.count == 0
    assert damages(odds) == {"red": [F(1), F(0), F(0)], "blue": [F(1), F(0)]}


def test_no_health_left_is_a_certain_knock_out():
    odds = attack_odds({"black": 3}, {}, 2, {"red": 0})
    assert damages(odds) == {"red": [F(1)]}
    assert odds.players["red"].knock_out == 1


def test_players_keep_the_order_given():
    health = {"green": 1, "red": 2, "blue": 3}
    odds = attack_odds({"black": 3, "red": 1, "blue": 1, "green": 1}, {}, 2, health)
    assert list(odds.players) == ["green", "red", "blue"]
    assert_well_formed(odds, health)


def test_players_alike_have_equal_odds():
    odds = attack_odds({"black": 6, "red": 2, "blue": 2, "ghost": 1}, {}, 3, {"red": 3, "blue": 3})
    assert odds.players["red"] == odds.players["blue"]
    assert damages(odds) == brute_force(
        {"black": 6, "red": 2, "blue": 2, "ghost": 1}, {}, 3, {"red": 3, "blue": 3}
    )


@pytest.mark.parametrize(
    "bag, area, health",
    [
        ({"black": -1}, {}, {"red": 1}),
        ({"black": 1}, {"red": -1}, {"red": 1}),
        ({"black": 1}, {}, {"red": -1}),
        ({"black": 1}, {}, {"ghost": 1}),
        ({"black": 1}, {}, {"black": 1}),
    ],
)
def test_impossible_inputs_are_refused(bag, area, health):
    with pytest.raises(ValueError):
        attack_odds(bag, area, 1, health)


def test_a_large_bag_against_the_closed_form():
    # 6 players, ghosts, a full bag: each player's law is hypergeometric, capped
    bag = {"black": 24, **{c: 10 + i for i, c in enumerate(COLOURS)}, "ghost": 6}
    area = {**{c: i for i, c in enumerate(COLOURS)}, "ghost": 4}
    health = {c: 10 - i for i, c in enumerate(COLOURS)}
    odds = attack_odds(bag, area, 12, health)
    total = sum(bag.values()) + sum(area.values())
    assert odds.count == 12
    for i, colour in enumerate(COLOURS):
        hurting = 10 + 2 * i + 10
        exact = [
            F(comb(hurting, k) * comb(total - hurting, 12 - k), comb(total, 12)) for k in range(13)
        ]
        h = health[colour]
        assert list(odds.players[colour].damage) == [*exact[:h], sum(exact[h:])]
        own = 10 + 2 * i
        assert list(odds.players[colour].damage) == markov_chain(own, 10, total - own - 10, 12, h)
    assert_well_formed(odds, health)


# ------------------------------------------------------------------- JSON (TABLE_SCRIPT)
def test_odds_json_has_the_table_script_shape():
    bag = {"black": 24, "red": 0, "yellow": 0, "green": 0, "blue": 0, "ghost": 0}
    area = {"red": 3, "yellow": 2, "green": 1, "blue": 0, "ghost": 0}
    health = {"red": 10, "yellow": 9, "green": 2, "blue": 1}
    odds = attack_odds(bag, area, 4, health)
    out = odds_json(odds)
    assert json.loads(json.dumps(out)) == out
    assert set(out) == {"count", "ends_game", "reason", "players"} and out["count"] == 4
    assert out["ends_game"] is False and out["reason"] == "attack"
    assert list(out["players"]) == ["red", "yellow", "green", "blue"]
    for name, entry in out["players"].items():
        assert set(entry) == {"damage", "knock_out"}
        exact = odds.players[name].damage
        assert len(entry["damage"]) == health[name] + 1
        assert all(isinstance(x, float) for x in entry["damage"])
        assert all(
            abs(x - float(p)) <= 1e-9 and abs(F(x) - p) <= F(1, 10**9)
            for x, p in zip(entry["damage"], exact, strict=True)
        )
        assert abs(sum(entry["damage"]) - 1) <= 1e-9
        assert entry["knock_out"] == entry["damage"][-1]
    # red: 3 of 30 hurt, 4 drawn
    assert out["players"]["red"]["damage"][0] == pytest.approx(comb(27, 4) / comb(30, 4), abs=1e-12)
    assert out["players"]["blue"] == {"damage": [1.0, 0.0], "knock_out": 0.0}


# ---------------------------------------------------------------- property tests (small)
NAMES = ["red", "blue", "green", "yellow"]


@st.composite
def small_states(draw: Any) -> tuple[dict[str, int], dict[str, int], int, dict[str, int], bool]:
    kinds = ["black", "ghost", *NAMES]
    bag = {k: draw(st.integers(0, 3)) for k in kinds}
    area = {k: draw(st.integers(0, 2)) for k in kinds if k != "black"}
    # keep the bag small enough to enumerate every ordered draw
    while sum(bag.values()) + sum(area.values()) > 7:
        big = max((bag, area), key=lambda d: sum(d.values()))
        kind = max(big, key=lambda k: big[k])
        big[kind] -= 1
    inside = draw(st.lists(st.sampled_from(NAMES), unique=True, max_size=4))
    health = {name: draw(st.integers(0, 4)) for name in inside}
    count = draw(st.integers(-1, 8))
    return bag, area, count, health, draw(st.booleans())


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_states())
def test_random_small_states_match_every_ordered_draw(state):
    bag, area, count, health, ghost_hurts = state
    odds = attack_odds(bag, area, count, health, ghost_hurts)
    assert odds.count == min(max(count, 0), sum(bag.values()) + sum(area.values()))
    assert damages(odds) == brute_force(bag, area, count, health, ghost_hurts)
    assert_well_formed(odds, health)
    out = odds_json(odds)
    for name, entry in out["players"].items():
        assert abs(sum(entry["damage"]) - 1) <= 1e-9
        assert entry["knock_out"] == float(odds.players[name].knock_out)


@settings(max_examples=60, deadline=None)
@given(
    own=st.integers(0, 30),
    ghosts=st.integers(0, 10),
    other=st.integers(0, 60),
    count=st.integers(0, 14),
    health=st.integers(1, 10),
)
def test_random_large_bags_match_the_markov_chain(own, ghosts, other, count, health):
    bag = {"black": other, "red": own, "ghost": ghosts}
    odds = attack_odds(bag, {}, count, {"red": health})
    assert list(odds.players["red"].damage) == markov_chain(own, ghosts, other, count, health)


# ------------------------------------------------------------------------- real games
class Spread:
    """A deterministic chance source that hurts: one cube of each kind in the bag in turn,
    the ghosts and the last seats first."""

    def __call__(self, request: DrawRequest) -> list[str]:
        left = dict(request.bag)
        order = ["ghost", *reversed(request.seats), "black"]
        out: list[str] = []
        want = min(request.count, sum(left.values()))
        while len(out) < want:
            for kind in order:
                if len(out) < want and left.get(kind, 0) > 0:
                    left[kind] -= 1
                    out.append(kind)
        return out


def new_game(edition: str, players: Sequence[str]) -> Game:
    setup = make_setup({"edition": edition, "players": list(players), "party": len(players) > 4})
    return Game(setup, Spread())


def check_against_snapshot(game: Game) -> AttackOdds | None:
    snap = game.snapshot()
    odds = next_attack_odds(game)
    if snap["game_over"]:
        assert odds is None
        return None
    assert odds is not None
    count, expected = expected_from_snapshot(snap)
    reason, _count, ends = step_from_snapshot(snap)
    assert (odds.count, odds.reason, odds.ends_game) == (count, reason, ends)
    assert damages(odds) == expected
    health = {n: p["health"] for n, p in snap["players"].items() if p["status"] == "playing"}
    assert_well_formed(odds, health)
    assert list(odds.players) == [n for n in game.state.seats if n in health]
    return odds


def scenario(edition: str, players: Sequence[str]) -> list[dict[str, Any]]:
    """Clank, rage, ghosts, attacks, a knock-out and an escape, with the game still on."""
    first, last = players[0], players[-1]
    actions: list[dict[str, Any]] = []
    for i, name in enumerate(players):
        actions.append({"do": "clank", "player": name, "n": 2 + i})
    if edition == "clank":
        actions.append({"do": "row", "cards": ["Dragon Shrine"]})  # danger: one more cube
    else:
        actions += [{"do": "ghost"}, {"do": "ghost"}]
    actions += [
        {"do": "rage", "n": 2},
        {"do": "attack"},
        {"do": "damage", "player": first, "n": 3},
        {"do": "clank", "player": last, "n": 4},
        {"do": "damage", "player": last, "n": 20},  # knocked out, cubes still in play
        {"do": "attack"},
    ]
    if len(players) > 2:
        second = players[1]
        actions += [
            {"do": "artifact", "player": second, "value": 5},
            {"do": "clank", "player": second, "n": 3},
            {"do": "escape", "player": second},
        ]
    actions += [{"do": "rage", "n": 3}, {"do": "clank", "player": first, "n": 5}]
    if edition == "catacombs":
        actions.append({"do": "ghost"})
    return actions


@pytest.mark.parametrize("edition", ["clank", "catacombs"])
@pytest.mark.parametrize("n", [2, 4, 5, 6])
def test_next_attack_odds_in_real_games(edition, n):
    players = COLOURS[:n]
    game = new_game(edition, players)
    check_against_snapshot(game)
    for action in scenario(edition, players):
        game.apply(action)
        check_against_snapshot(game)
    snap = game.snapshot()
    assert not snap["game_over"]
    assert snap["players"][players[-1]]["status"] == "knocked_out"
    assert sum(snap["bag"].values()) + sum(snap["clank_area"].values()) > 0
    odds = check_against_snapshot(game)
    assert odds is not None
    assert players[-1] not in odds.players
    # the knocked-out player's cubes are still in play and count as black
    assert snap["bag"][players[-1]] + snap["clank_area"][players[-1]] > 0
    if n > 2:
        assert snap["players"][players[1]]["status"] == "escaped"
        assert players[1] not in odds.players
    inside = [p for p in players if snap["players"][p]["status"] == "playing"]
    assert list(odds.players) == inside
    if edition == "clank":  # the countdown runs: its next step, with its extra cubes
        assert snap["countdown"]["space"] == 1 and odds.reason == "countdown"
        assert odds.count == snap["next_attack"] + 1
    else:  # a player is out: an out player's draw, 4 cubes (6 with two players)
        assert odds.reason == "out_draw" and odds.count == (6 if n == 2 else 4)
    assert not odds.ends_game
    if edition == "catacombs":
        assert snap["clank_area"]["ghost"] + snap["bag"]["ghost"] > 0
    # the first player has taken damage and made the most noise: a real risk
    first = odds.players[players[0]]
    assert len(first.damage) == snap["players"][players[0]]["health"] + 1
    assert 0 < first.damage[0] < 1 and first.expected > 0


@pytest.mark.parametrize("edition", ["clank", "catacombs"])
def test_next_attack_odds_at_the_start(edition):
    game = new_game(edition, COLOURS[:4])
    odds = next_attack_odds(game)
    assert odds is not None and odds.count == 2  # 4 players start on space 1: 2 cubes
    zeros = [F(0)] * 8
    assert damages(odds) == {
        "red": [F(351, 435), F(81, 435), F(3, 435), *zeros],
        "yellow": [F(378, 435), F(56, 435), F(1, 435), *zeros],
        "green": [F(406, 435), F(29, 435), F(0), *zeros],
        "blue": [F(1), F(0), F(0), *zeros],
    }


def test_next_attack_odds_with_two_players_uses_the_third_space():
    game = new_game("catacombs", ["red", "blue"])
    odds = next_attack_odds(game)
    assert odds is not None and odds.count == 3  # space 3: 3 cubes, of 24 black + 3 red + 2 blue
    red = odds.players["red"].damage
    assert red[0] == F(comb(26, 3), comb(29, 3))
    assert red[3] == F(1, comb(29, 3))
    game.apply({"do": "ghost"})
    red = next_attack_odds(game).players["red"].damage
    assert red[0] == F(comb(26, 3), comb(30, 3))  # red 3 + the ghost now hurt red


def test_next_attack_odds_is_none_when_the_game_is_over():
    game = new_game("clank", ["red", "blue"])
    game.apply({"do": "damage", "player": "red", "n": 10})
    assert next_attack_odds(game) is not None
    game.apply({"do": "damage", "player": "blue", "n": 10})
    assert game.state.game_over
    assert next_attack_odds(game) is None


def test_next_attack_odds_leaves_the_game_alone():
    game = new_game("catacombs", COLOURS[:5])
    game.apply({"do": "ghost"})
    before = game.snapshot()
    odds = next_attack_odds(game)
    assert odds is not None
    assert game.snapshot() == before
    assert odds_json(odds)["count"] == before["next_attack"]
