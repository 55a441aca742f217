"""Clank, anti-clank, the row, Danger and Arrive effects."""

import pytest

from companion.kinds.clank.rules import RuleError
from tests.helpers import ScriptedChance, do, new_game


def test_anti_clank_is_carried_within_the_turn_and_lost_at_its_end():
    game = new_game(players=["red", "blue"])
    do(game, "clank", player="red", n=-5)  # 3 in the area: 3 back, 2 credit
    s = game.snapshot()["players"]["red"]
    assert (game.state.area["red"], s["supply"], s["credit"]) == (0, 30, 2)
    do(game, "clank", player="red", n=3)  # 2 cancelled, 1 added
    assert game.state.area["red"] == 1 and game.state.players["red"].credit == 0
    do(game, "clank", player="red", n=-2)  # 1 back, 1 credit
    assert game.state.players["red"].credit == 1
    do(game, "end_turn", revealed=[])
    assert game.state.players["red"].credit == 0
    do(game, "end_turn", revealed=[])
    do(game, "clank", player="red", n=1)
    assert game.state.area["red"] == 1


def test_clank_stops_when_the_supply_runs_out():
    game = new_game(players=["red", "blue"])
    do(game, "clank", player="blue", n=40)
    assert game.state.area["blue"] == 30 and game.state.players["blue"].supply == 0


def test_opening_row_refuses_the_dragon_symbol_and_counts_danger():
    game = new_game(players=["red", "blue"])
    with pytest.raises(RuleError, match="Kobold shows the dragon-attack symbol"):
        do(game, "row", cards=["Ladder", "Kobold"])
    do(game, "row", cards=["Dragon Shrine", "Ladder", "Tattle", "Dragon Shrine", "Sneak", "Search"])
    snap = game.snapshot()
    assert snap["danger"] == 2
    assert snap["next_attack"] == snap["rage"]["draw"] + 2
    with pytest.raises(RuleError, match="once"):
        do(game, "row", cards=["Ladder"])


def test_row_holds_six_cards():
    game = new_game(players=["red", "blue"])
    do(game, "row", cards=["Ladder", "Tattle", "Sneak", "Search", "Swagger", "Dead Run"])
    with pytest.raises(RuleError, match="record the cards taken first"):
        do(game, "end_turn", revealed=["Pickaxe"])
    do(game, "take", card="ladder")
    do(game, "end_turn", revealed=["Pickaxe"])
    assert game.state.row[-1] == "Pickaxe"
    with pytest.raises(RuleError, match="not in the dungeon row"):
        do(game, "take", card="Ladder")


def test_arrive_effects_then_one_attack_for_many_symbols():
    chance = ScriptedChance(["black", "black"])
    game = new_game(players=["red", "yellow", "green"], chance=chance)
    # Watcher: each player +1 clank on arrival; Orc Grunt and Ogre: two symbols, one attack
    do(game, "end_turn", revealed=["Watcher", "Orc Grunt", "Ogre"])
    (request,) = chance.requests
    # the clank from Watcher reached the bag before the draw
    assert request.bag == {"black": 24, "red": 4, "yellow": 3, "green": 2, "ghost": 0}
    assert request.count == 2  # 3 players: rage space 2 draws 2
    assert request.reason == "attack"


def test_cards_already_in_the_row_never_trigger_again():
    chance = ScriptedChance(["black", "black", "black"])  # 2 players: space 3 draws 3
    game = new_game(players=["red", "blue"], chance=chance)
    do(game, "end_turn", revealed=["Orc Grunt"])
    do(game, "end_turn", revealed=["Ladder"])
    assert len(chance.requests) == 1


def test_shrine_arrival_returns_black_cubes_to_the_bag():
    chance = ScriptedChance(["black"] * 4)
    game = new_game(players=["red", "blue"], chance=chance, rage_start=5)  # draws 4
    do(game, "attack")
    assert game.state.set_aside["black"] == 4
    do(game, "end_turn", revealed=["Shrine"])
    assert game.state.set_aside["black"] == 1 and game.state.bag["black"] == 23


def test_unknown_names_are_rejected():
    game = new_game()
    for action, fields, reason in [
        ("clank", {"player": "pink", "n": 1}, "unknown player 'pink'"),
        ("take", {"card": "Excalibur"}, "unknown card 'Excalibur'"),
        ("token", {"player": "red", "name": "sword"}, "unknown"),
        ("secret", {"player": "red", "name": "ruby"}, "unknown secret"),
        ("row", {"cards": ["Burgle"]}, "not a dungeon card"),
        ("clank", {"player": "red"}, "missing field 'n'"),
        ("clank", {"player": "red", "n": "2"}, "whole number"),
        ("clank", {"player": "red", "n": 1, "amount": 1}, "unknown field 'amount'"),
        ("fly", {}, "unknown action 'fly'"),
        ("ghost", {}, "only in Clank! Catacombs"),
    ]:
        with pytest.raises(RuleError, match=reason):
            do(game, action, **fields)
