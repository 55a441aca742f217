"""Dragon attacks, knock-outs, the countdown (Clank!) and the out players' draws (Catacombs)."""

import pytest

from companion.kinds.clank.rules import RuleError
from tests.helpers import ScriptedChance, do, new_game

FOUR = ["red", "yellow", "green", "blue"]


def test_dragon_on_the_fifth_space_draws_four_cubes():
    chance = ScriptedChance(["black", "red", "black", "yellow"])
    game = new_game(players=FOUR, chance=chance)
    do(game, "rage", n=4)
    assert game.snapshot()["rage"] == {"space": 5, "draw": 4, "track": [2, 2, 3, 3, 4, 4, 5]}
    events = do(game, "attack")
    assert chance.requests[0].count == 4
    # all of the Clank! area went into the bag first
    assert chance.requests[0].bag == {
        "black": 24,
        "red": 3,
        "yellow": 2,
        "green": 1,
        "blue": 0,
        "ghost": 0,
    }
    snap = game.snapshot()
    assert snap["clank_area"] == {"red": 0, "yellow": 0, "green": 0, "blue": 0, "ghost": 0}
    assert snap["bag"] == {"black": 22, "red": 2, "yellow": 1, "green": 1, "blue": 0, "ghost": 0}
    assert snap["players"]["red"]["health"] == 9 and snap["players"]["yellow"]["health"] == 9
    assert snap["set_aside"]["black"] == 2
    assert [e["event"] for e in events].count("damage") == 2
    assert snap["draws"] == [
        {
            "nonce": 1,
            "reason": "attack",
            "client_seed": "",
            "count": 4,
            "bag": chance.requests[0].bag,
            "drawn": ["black", "red", "black", "yellow"],
            "action": 2,
        }
    ]


def test_danger_adds_cubes_and_rage_stays_on_the_track():
    chance = ScriptedChance(["black"] * 7)
    game = new_game(players=FOUR, chance=chance)
    do(game, "row", cards=["Dragon Shrine", "Dragon Shrine"])
    do(game, "rage", n=99)
    assert game.snapshot()["rage"]["space"] == 7
    do(game, "attack")
    assert chance.requests[0].count == 5 + 2
    do(game, "rage", n=-99)
    assert game.snapshot()["rage"]["space"] == 1


def test_artifact_and_dragon_egg_raise_rage():
    game = new_game(players=FOUR)
    do(game, "artifact", player="red", value=10)
    do(game, "secret", player="blue", name="Dragon Egg")
    assert game.snapshot()["rage"]["space"] == 3
    with pytest.raises(RuleError, match="already carries 1"):
        do(game, "artifact", player="red", value=5)
    with pytest.raises(RuleError, match="no artifact worth 10"):
        do(game, "artifact", player="blue", value=10)
    do(game, "gold", player="red", n=7)
    do(game, "buy", player="red", item="backpack")
    do(game, "artifact", player="red", value=5)
    assert game.snapshot()["players"]["red"]["artifacts"] == [10, 5]


def test_full_meter_knocks_out_at_once_and_later_cubes_count_as_black():
    chance = ScriptedChance(["red", "red", "blue"])
    game = new_game(players=["red", "blue"], chance=chance, health=2)
    do(game, "clank", player="red", n=3)
    do(game, "clank", player="blue", n=1)
    events = do(game, "attack")
    s = game.snapshot()
    assert s["players"]["red"]["status"] == "knocked_out"
    # blue was still playing: damage; had red's 3rd cube been drawn it would be set aside
    assert s["players"]["blue"]["damage"] == 1
    assert {"event": "knocked_out", "player": "red", "in_depths": False} in events
    assert s["countdown"] == {"player": "red", "space": 1}


def test_cubes_of_a_knocked_out_player_are_set_aside_like_black():
    chance = ScriptedChance(["red", "red"], ["red", "red", "black"])
    game = new_game(players=["red", "blue", "green"], chance=chance, health=2)
    do(game, "clank", player="red", n=5)
    do(game, "attack")  # red knocked out
    do(game, "rage", n=1)  # 3 cubes
    do(game, "attack")
    assert game.state.set_aside["red"] == 2
    assert game.state.players["red"].meter == 2


def _countdown_game(chance):
    game = new_game(players=["red", "yellow", "blue"], chance=chance)
    do(game, "artifact", player="red", value=5)
    do(game, "escape", player="red")
    assert game.snapshot()["countdown"] == {"player": "red", "space": 1}
    do(game, "end_turn", revealed=[])  # yellow
    do(game, "end_turn", revealed=[])  # blue
    return game


def test_countdown_attacks_with_one_two_three_extra_cubes_then_knocks_out():
    chance = ScriptedChance(["black"] * 4, ["black"] * 5, ["black"] * 6)
    game = _countdown_game(chance)
    # rage space 3 after the artifact (3 players start on 2): 3 cubes
    do(game, "end_turn", revealed=[])  # red's turn: countdown space 2, attack 3+1
    assert game.snapshot()["countdown"]["space"] == 2
    assert game.snapshot()["turn"]["active"] == "yellow"
    do(game, "end_turn", revealed=[])
    do(game, "end_turn", revealed=[])  # space 3: 3+2
    do(game, "end_turn", revealed=[])
    do(game, "end_turn", revealed=[])  # space 4: 3+3
    assert [r.count for r in chance.requests] == [4, 5, 6]
    assert [r.reason for r in chance.requests] == ["countdown"] * 3
    do(game, "end_turn", revealed=[])
    events = do(game, "end_turn", revealed=[])  # space 5: everyone inside knocked out
    snap = game.snapshot()
    assert snap["game_over"] and snap["countdown"]["space"] == 5
    assert snap["players"]["yellow"]["status"] == "knocked_out"
    assert snap["players"]["blue"]["status"] == "knocked_out"
    assert events[-1] == {"event": "game_over", "reason": "the countdown reached its last space"}
    with pytest.raises(RuleError, match="the game is over"):
        do(game, "end_turn", revealed=[])


def test_later_out_players_are_skipped_in_the_base_game():
    chance = ScriptedChance(["black"] * 4)
    game = new_game(players=["red", "yellow", "blue"], chance=chance)
    do(game, "artifact", player="red", value=5)
    do(game, "escape", player="red")
    do(game, "end_turn", revealed=[])
    do(game, "artifact", player="yellow", value=7)
    do(game, "escape", player="yellow")
    do(game, "end_turn", revealed=[])  # blue
    do(game, "end_turn", revealed=[])  # red (countdown 2, attack), yellow skipped, blue again
    assert game.snapshot()["turn"]["active"] == "blue"
    assert len(chance.requests) == 1


def test_out_players_draw_four_cubes_in_catacombs():
    chance = ScriptedChance(["black"] * 4)
    game = new_game("catacombs", players=["red", "yellow", "blue"], chance=chance)
    do(game, "artifact", player="red", value=5)
    do(game, "escape", player="red")
    assert game.snapshot()["countdown"] is None
    do(game, "rage", n=3)
    do(game, "end_turn", revealed=[])
    do(game, "end_turn", revealed=[])
    do(game, "end_turn", revealed=[])  # red's seat: draw 4, rage and Danger ignored
    assert [(r.count, r.reason) for r in chance.requests] == [(4, "out_draw")]
    assert game.snapshot()["turn"]["active"] == "yellow"


def test_out_players_draw_six_cubes_with_two_players():
    chance = ScriptedChance(["black"] * 6)
    game = new_game("catacombs", players=["red", "blue"], chance=chance)
    do(game, "artifact", player="red", value=5)
    do(game, "escape", player="red")
    do(game, "end_turn", revealed=[])  # blue plays
    do(game, "end_turn", revealed=[])  # red's seat: 6 cubes, then blue again
    assert chance.requests[0].count == 6
    assert game.snapshot()["turn"] == {"active": "blue", "number": 3}


def test_ghosts_hurt_everyone_inside_and_return_to_the_clank_area():
    chance = ScriptedChance(["ghost", "black", "ghost"])
    game = new_game("catacombs", players=["red", "yellow", "blue"], chance=chance)
    do(game, "ghost")
    do(game, "ghost")
    do(game, "artifact", player="blue", value=5)
    do(game, "escape", player="blue")
    do(game, "rage", n=1)  # 3 cubes
    do(game, "attack")
    snap = game.snapshot()
    assert snap["players"]["red"]["damage"] == 2 and snap["players"]["yellow"]["damage"] == 2
    assert snap["players"]["blue"]["damage"] == 0  # escaped: out of the dungeon
    assert snap["clank_area"]["ghost"] == 2 and snap["bag"]["ghost"] == 0
    assert snap["treasury"]["ghost"] == 3
    assert snap["set_aside"]["black"] == 1  # to the treasury


def test_ghost_damage_without_supply_is_marked_with_a_treasury_black_cube():
    chance = ScriptedChance(["black"], ["ghost"])
    game = new_game("catacombs", players=["red", "blue"], chance=chance, rage_track=[1])
    do(game, "attack")  # one black cube to the treasury
    do(game, "clank", player="red", n=30)
    do(game, "ghost")
    do(game, "attack")
    red = game.state.players["red"]
    assert (red.meter, red.meter_black, red.supply) == (0, 1, 0)
    assert game.state.set_aside["black"] == 0
    do(game, "heal", player="red", n=1)
    assert game.state.players["red"].meter_black == 0
    assert game.state.set_aside["black"] == 1


def test_ghost_damage_counts_when_the_treasury_has_no_black_cube():
    """Catacombs ru:909-911, uk:557: a ghost hurts a player with an empty supply all the
    same; with no black cube in the treasury either, one from the box marks it."""
    chance = ScriptedChance(["ghost"])
    game = new_game("catacombs", players=["red", "blue"], chance=chance, rage_track=[1])
    do(game, "clank", player="red", n=30)  # red's whole supply into the Clank! area
    do(game, "ghost")
    assert game.state.set_aside["black"] == 0
    events = do(game, "attack")
    red, blue = game.state.players["red"], game.state.players["blue"]
    assert (red.supply, red.meter, red.meter_black, red.meter_box) == (0, 0, 0, 1)
    assert red.damage == 1 and blue.damage == 1
    assert {"event": "damage", "player": "red", "health": 9} in events
    assert game.state.set_aside["black"] == 0  # the treasury gave nothing it did not have
    assert game.snapshot()["players"]["red"]["health"] == 9
    # healing puts the marker back in the box: no cube appears in the treasury or the bag
    do(game, "heal", player="red", n=1)
    assert (red := game.state.players["red"]).damage == 0 and red.meter_box == 0
    assert game.state.set_aside["black"] == 0 and game.state.bag["black"] == 24
    assert red.supply == 0  # a black marker is not one of red's cubes


def test_ghost_damage_from_the_box_can_knock_out():
    chance = ScriptedChance(["ghost"])
    game = new_game(
        "catacombs", players=["red", "yellow", "blue"], chance=chance, rage_track=[1], health=3
    )
    do(game, "damage", player="red", n=2)
    do(game, "clank", player="red", n=30)
    do(game, "ghost")
    events = do(game, "attack")
    red = game.state.players["red"]
    assert red.status == "knocked_out" and red.meter_box == 1 and red.damage == 3
    assert {"event": "knocked_out", "player": "red", "in_depths": False} in events
    assert game.state.players["yellow"].damage == 1 and game.state.players["yellow"].playing


def test_ghost_damage_uses_the_treasury_first_and_heals_back_to_where_it_came_from():
    chance = ScriptedChance(["black"], ["ghost", "ghost"])
    game = new_game(
        "catacombs", players=["red", "blue"], chance=chance, rage_track=[1, 2], rage_start=1
    )
    do(game, "attack")  # one black cube to the treasury
    do(game, "clank", player="red", n=30)
    do(game, "ghost")
    do(game, "ghost")
    do(game, "rage", n=1)
    do(game, "attack")
    red = game.state.players["red"]
    assert (red.meter_black, red.meter_box, red.damage) == (1, 1, 2)
    assert game.state.set_aside["black"] == 0
    do(game, "heal", player="red", n=1)  # the box's marker goes first
    red = game.state.players["red"]
    assert (red.meter_black, red.meter_box) == (1, 0)
    assert game.state.set_aside["black"] == 0
    do(game, "heal", player="red", n=1)
    assert game.state.players["red"].meter_black == 0
    assert game.state.set_aside["black"] == 1  # the treasury's cube is back
    black = game.state.bag["black"] + game.state.set_aside["black"]
    assert black == 24


# Forced damage (a monster, a card) with an empty supply: no rulebook covers it. The
# companion does what the Catacombs ghost rule does (ru:909-911, uk:557): a black cube from
# the treasury marks it (the base game: the black cubes attacks set aside), else one from
# the box; the damage always counts.
@pytest.mark.parametrize("edition", ["clank", "catacombs"])
def test_forced_damage_with_an_empty_supply_is_marked_with_a_black_cube(edition):
    chance = ScriptedChance(["black"])
    game = new_game(edition, players=["red", "blue"], chance=chance, rage_track=[1])
    do(game, "attack")  # one black cube to the treasury (set aside)
    do(game, "clank", player="red", n=30)  # red's whole supply into the Clank! area
    assert game.state.players["red"].supply == 0
    events = do(game, "damage", player="red", n=2)
    red = game.state.players["red"]
    assert (red.supply, red.meter, red.meter_black, red.meter_box) == (0, 0, 1, 1)
    assert red.damage == 2 and game.snapshot()["players"]["red"]["health"] == 8
    assert [e for e in events if e["event"] == "damage"] == [
        {"event": "damage", "player": "red", "health": 9},
        {"event": "damage", "player": "red", "health": 8},
    ]
    assert game.state.set_aside["black"] == 0  # the treasury gave its one cube
    do(game, "heal", player="red", n=2)  # back where each marker came from
    red = game.state.players["red"]
    assert red.damage == 0 and red.supply == 0
    assert game.state.set_aside["black"] == 1 and game.state.bag["black"] == 23


def test_forced_damage_with_an_empty_supply_can_knock_out():
    game = new_game("clank", players=FOUR[:3], health=3)
    do(game, "clank", player="red", n=30)
    events = do(game, "damage", player="red", n=5)
    red = game.state.players["red"]
    assert red.status == "knocked_out" and red.meter_box == 3 and red.damage == 3
    assert {"event": "knocked_out", "player": "red", "in_depths": False} in events
    assert game.state.countdown is not None  # the first one out starts the countdown


def test_voluntary_damage_still_needs_supply_cubes():
    game = new_game("catacombs", players=["red", "blue"])
    do(game, "clank", player="red", n=30)
    with pytest.raises(RuleError, match="has 0 cubes in supply, not 1"):
        do(game, "damage", player="red", n=1, voluntary=True)


def test_an_empty_bag_after_an_attack_ends_catacombs():
    bag = ["black"] * 24 + ["red"] * 3 + ["blue"] * 2
    chance = ScriptedChance(bag)
    game = new_game("catacombs", players=["red", "blue"], chance=chance, rage_track=[30])
    do(game, "depths", player="blue", **{"in": True})
    events = do(game, "attack")
    snap = game.snapshot()
    assert snap["game_over"] and snap["end_reason"] == "the dragon bag is empty"
    assert {e["event"] for e in events} >= {"bag_empty", "game_over"}
    assert snap["players"]["red"]["status"] == "knocked_out"
    assert game.state.players["blue"].knocked_out_in_depths


def test_the_empty_bag_does_not_end_the_base_game():
    chance = ScriptedChance(["black"] * 24 + ["red"] * 3 + ["blue"] * 2)
    game = new_game(players=["red", "blue"], chance=chance, rage_track=[30])
    do(game, "attack")
    snap = game.snapshot()
    assert sum(snap["bag"].values()) == 0
    assert not snap["game_over"]
    assert snap["players"]["red"]["damage"] == 3 and snap["players"]["blue"]["damage"] == 2


def test_deck_out_ends_catacombs():
    game = new_game("catacombs", players=["red", "blue"])
    do(game, "deck_out")
    assert game.snapshot()["game_over"]
    with pytest.raises(RuleError, match="only in Clank! Catacombs"):
        do(new_game(), "deck_out")


def test_escape_needs_an_artifact_and_the_way_out_of_the_depths():
    game = new_game(players=["red", "blue"])
    do(game, "artifact", player="red", value=20)
    do(game, "depths", player="red", **{"in": True})
    with pytest.raises(RuleError, match="still in the Depths"):
        do(game, "escape", player="red")
    do(game, "depths", player="red", **{"in": False})
    do(game, "escape", player="red")
    assert game.snapshot()["players"]["red"]["status"] == "escaped"
