"""Tschak! rules: legal teams, strength, floors, ties, trophies, hands, refusals, settings.

The ids (TL-1, TF-4, TT-3, ...) are the acceptance examples of TSCHAK_SPEC.md section 17.
"""

from __future__ import annotations

import copy

import pytest

from companion.kinds.tschak.rules import TschakError, TschakGame
from tests.test_tschak_support import (
    H1,
    H2,
    H3,
    H4,
    do,
    new,
    plan,
    play_structured_game,
    play_tower,
    tower,
)

SECOND_TOWER = (["monster:3", "monster:4", "troglodyte"], ["chest:4", "ring", "ring"])


def two(**settings):
    game = new(["ann", "bob"], **settings)
    tower(game)
    return game


def three(**settings):
    game = new(["ann", "bob", "cat"], **settings)
    tower(game)
    return game


def floor(game, **teams):
    return do(game, "floor", teams=teams)[0]


def refused(game, code, action):
    """The action is refused with ``code`` and the game is exactly as before."""
    before = copy.deepcopy(game.snapshot())
    undo_depth = len(game._history)
    with pytest.raises(TschakError) as info:
        game.apply(action)
    assert info.value.code == code, str(info.value)
    assert game.snapshot() == before
    assert len(game._history) == undo_depth
    return info.value


# ------------------------------------------------------------------ legality (T-L1..3)
def test_tl1_two_blue_cards_are_an_illegal_team():
    game = two()
    e = refused(
        game,
        "illegal_team",
        {"do": "floor", "teams": {"ann": ["M4", "M2", "W3"], "bob": ["M3", "W2", "D1u"]}},
    )
    assert str(e).startswith("floor: ann's team has two mage cards")
    assert e.params["cards"] == ["M4", "M2", "W3"]


def test_tl2_mage_warrior_artifact_is_legal():
    game = two()
    event = floor(game, ann=["M4", "W3", "A"], bob=["M3", "W2", "D1u"])
    assert event["strength"] == {"ann": 4 + 2 * 3, "bob": 6}  # the warrior 3 is doubled


def test_tl3_two_cards_are_incomplete():
    game = two()
    refused(
        game,
        "incomplete_team",
        {"do": "floor", "teams": {"ann": ["M4", "W3"], "bob": ["M3", "W2", "D1u"]}},
    )


def test_tl4_mage_warrior_dwarf_is_legal():
    game = two()
    event = floor(game, ann=["M4", "W3", "D2x"], bob=["M3", "W2", "D1u"])
    assert event["strength"] == {"ann": 9, "bob": 6}


def test_four_cards_are_too_many_when_the_artifact_takes_a_slot():
    game = two()
    refused(
        game,
        "team_size",
        {"do": "floor", "teams": {"ann": ["M4", "W3", "D2x", "A"], "bob": ["M3", "W2", "D1u"]}},
    )


def test_two_artifacts_in_one_team_are_illegal():
    refused(
        two(),
        "illegal_team",
        {"do": "floor", "teams": {"ann": ["M4", "A", "A"], "bob": ["M3", "W2", "D1u"]}},
    )


# ------------------------------------------------------------------ floors (section 17)
def test_tf1_four_players_strongest_treasure_weakest_monster_middle_nothing():
    game = new(["p1", "p2", "p3", "p4"])
    tower(game, ["monster:3", "monster:1", "troglodyte"], ["chest:4", "ring", "ring"])
    event = floor(
        game,
        p1=["M5s", "W3", "D2x"],
        p2=["M2", "W6a", "D4a"],
        p3=["M3s", "W1", "D1u"],
        p4=["M4", "W4a", "D3u"],
    )
    assert event["strength"] == {"p1": 10, "p2": 12, "p3": 5, "p4": 11}
    assert event["treasure"] == {"card": "chest:4", "to": "p2"}
    assert event["monster"] == {"card": "monster:3", "to": "p3"}
    assert event["order"] == ["p2", "p4", "p1", "p3"]
    players = game.snapshot()["players"]
    assert players["p1"]["monsters"] == players["p1"]["treasures"] == []
    assert players["p4"]["monsters"] == players["p4"]["treasures"] == []
    assert players["p2"]["treasures"] == ["chest:4"]
    assert players["p3"]["monsters"] == ["monster:3"]


def test_tf3_two_chameleons_with_no_mage_to_copy_are_zero():
    game = two()
    event = floor(game, ann=["Mc", "W5a", "D3u"], bob=["Mc", "W6", "D4a"])
    assert event["strength"] == {"ann": 8, "bob": 10}
    assert event["treasure"]["to"] == "bob"
    assert event["monster"]["to"] == "ann"
    assert event["detail"]["ann"]["members"][0] == {
        "card": "Mc",
        "value": 0,
        "copied_from": None,
        "doubled": False,
        "points": 0,
    }


def test_tf4_the_artifact_doubles_a_chameleon_that_copied_a_two():
    game = two()
    event = floor(game, ann=["Mc", "W5a", "A"], bob=["M2", "W1", "D1u"])
    assert event["strength"] == {"ann": 9, "bob": 4}
    assert event["treasure"]["to"] == "ann"
    assert event["monster"]["to"] == "bob"
    assert event["detail"]["ann"]["members"] == [
        {"card": "Mc", "value": 2, "copied_from": "bob", "doubled": True, "points": 4},
        {"card": "W5a", "value": 5, "doubled": False, "points": 5},
    ]


def test_tf6_the_staff_breaks_a_tie_of_equal_mages():
    game = two()
    event = floor(game, ann=["M4s", "W3", "D2x"], bob=["M4", "W3a", "D2u"])
    assert event["strength"] == {"ann": 9, "bob": 9}
    assert event["treasure"]["to"] == "ann"
    assert event["monster"]["to"] == "bob"
    assert event["why"] == (
        "ann 9 = bob 9: mage 4 with a staff beats mage 4 without a staff, ann strongest; "
        "bob weakest"
    )
    tie = event["explain"]["strongest"]["ties"][0]
    assert (tie["step"], tie["winner"], tie["loser"]) == ("mage_weapon", "ann", "bob")


def test_tf8_the_dwarves_decide_when_mages_and_warriors_are_level():
    game = two()
    event = floor(game, ann=["Mc", "D3a", "A"], bob=["Mc", "D3u", "A"])
    assert event["strength"] == {"ann": 3, "bob": 3}
    assert event["treasure"]["to"] == "ann"
    assert event["monster"]["to"] == "bob"
    tie = event["explain"]["strongest"]["ties"][0]
    assert tie["step"] == "dwarf_weapon"
    assert "dwarf 3 with an axe beats dwarf 3 unarmed" in event["why"]


def test_tf11_a_cursed_chest_still_goes_to_the_strongest():
    game = new(["p1", "p2", "p3", "p4"])
    tower(game, ["monster:3", "monster:1", "troglodyte"], ["cursed:2", "ring", "ring"])
    event = floor(
        game,
        p1=["M5s", "W3", "D2x"],
        p2=["M2", "W6a", "D4a"],
        p3=["M3s", "W1", "D1u"],
        p4=["M4", "W4a", "D3u"],
    )
    assert event["treasure"] == {"card": "cursed:2", "to": "p2"}
    assert event["monster"] == {"card": "monster:3", "to": "p3"}


def test_why_explains_a_tie_the_chameleon_loses():
    game = two()
    event = floor(game, ann=["M3", "W6", "D2u"], bob=["Mc", "W5", "D3u"])
    assert event["strength"] == {"ann": 11, "bob": 11}  # the chameleon copies 3
    assert event["why"] == "ann 11 = bob 11: mage 3 beats the chameleon, ann strongest; bob weakest"
    tie = event["explain"]["strongest"]["ties"][0]
    assert tie == {
        "step": "mage",
        "winner": "ann",
        "loser": "bob",
        "winner_card": "M3",
        "loser_card": "Mc",
        "winner_value": 3,
        "loser_value": 0,
        "reason": "mage 3 beats the chameleon",
        "against": "bob",
    }


def test_table_script_example_floor_and_json_shape():
    game = new(["anna", "boris", "vera"])
    do(
        game,
        "tower",
        monsters=["monster:3", "troglodyte", "monster:1"],
        treasures=["chest:4", "ring", "cursed:2"],
    )
    do(
        game,
        "floor",
        teams={
            "anna": ["M3s", "W5", "D2x"],
            "boris": ["Mc", "W6a", "A"],
            "vera": ["M2", "W1", "D1u"],
        },
    )
    snap = game.snapshot()
    assert snap["edition"] == "tschak"
    assert snap["game_over"] is False
    assert (snap["tower"], snap["floor"], snap["next"]) == (1, 2, "floor")
    assert snap["floors"] == [
        {
            "tower": 1,
            "floor": 1,
            "strength": {"anna": 10, "boris": 12, "vera": 4},
            "treasure": {"card": "chest:4", "to": "boris"},
            "monster": {"card": "monster:3", "to": "vera"},
            "why": "boris 12 strongest; vera 4 weakest",
            "teams": {
                "anna": ["M3s", "W5", "D2x"],
                "boris": ["Mc", "W6a", "A"],
                "vera": ["M2", "W1", "D1u"],
            },
        }
    ]
    assert snap["players"]["anna"] == {
        "gold": 0,
        "monsters": [],
        "treasures": [],
        "score": None,
        "score_detail": {},
    }
    assert snap["players"]["boris"]["treasures"] == ["chest:4"]
    assert snap["players"]["vera"]["monsters"] == ["monster:3"]
    assert snap["ranking"] is None and snap["winners"] is None and snap["errors"] == []
    assert snap["seats"][3] == {"seat": 4, "player": None, "board": 1}


def test_catalog_names_are_cards_too():
    game = two()
    event = floor(game, ann=["mage_07", "warrior_12", "dwarf_01"], bob=["M2", "W1a", "D2u"])
    assert event["teams"]["ann"] == ["M5s", "W6", "D1a"]
    assert event["strength"]["ann"] == 12


# ------------------------------------------------------------------ trophies (section 9)
def tt3_game(**settings):
    game = new(["p1", "p2", "p3"], **settings)
    play_tower(
        game,
        {
            "p1": [["M5s", "W6a", "D4a"], ["M5", "W6", "D4x"], ["M4s", "D4u", "A"]],
            "p2": [["M4", "W5a", "D3x"], ["M3s", "W4a", "D3u"], ["M3", "W4", "A"]],
            "p3": [["M2s", "W3a", "D2a"], ["Mc", "W3", "D2x"], ["W2a", "D2u", "A"]],
        },
        None,
    )
    return game


def test_tt3_three_players_the_weakest_gets_no_trophy():
    game = tt3_game()
    events = do(game, "trophies", last={"p1": "W5", "p2": "D3a", "p3": "M2"})
    assert events[0]["gold"] == {"p1": 3, "p2": 2, "p3": 0}
    assert events[0]["why"] == "p1 W5 > p2 D3a > p3 M2; p3 weakest, no trophy; gold: p1 3, p2 2"
    assert events[1]["event"] == "pass"
    assert {p: v["gold"] for p, v in game.snapshot()["players"].items()} == {
        "p1": 3,
        "p2": 2,
        "p3": 0,
    }


def test_tt3_setting_three_two_one_gives_the_weakest_one_gold():
    game = tt3_game(three_player_trophies="3-2-1")
    events = do(game, "trophies", last={"p1": "W5", "p2": "D3a", "p3": "M2"})
    assert events[0]["gold"] == {"p1": 3, "p2": 2, "p3": 1}


def test_tt4_two_players_warrior_beats_dwarf_at_equal_strength():
    game = new(["p1", "p2"])
    play_tower(
        game,
        {
            "p1": [["M5s", "W6a", "D4x"], ["M5", "W6", "D4u"], ["M4s", "W5a", "A"]],
            "p2": [["M3s", "W5", "D3a"], ["M3", "W4a", "D3x"], ["M2s", "D3u", "A"]],
        },
        None,
    )
    event = do(game, "trophies", last={"p1": "D4a", "p2": "W4"})[0]
    assert event["gold"] == {"p1": 0, "p2": 2}
    assert "warrior 4 beats dwarf 4" in event["why"]


def structured_tower(players, last_of_h4="D1u", **settings):
    """Four players holding H1..H4, playing ``plan``; H4 may keep its artifact."""
    game = new(players, **settings)
    teams = {}
    last = {}
    for name, hand in zip(players, (H1, H2, H3, H4), strict=True):
        teams[name], last[name] = plan(hand)
    if last_of_h4 == "A":
        teams[players[3]][2] = ["Mc", "W1", "D1u"]
        last[players[3]] = "A"
    play_tower(game, teams, None)
    return game, last


def test_a11_a_held_artifact_ranks_last_and_the_others_keep_their_trophies():
    game, last = structured_tower(["a", "b", "c", "d"], last_of_h4="A")
    event = do(game, "trophies", last=last)[0]
    assert event["gold"] == {"a": 3, "b": 2, "c": 1, "d": 0}
    assert "d A: artifact, no trophy" in event["why"]


def test_a11_excluded_the_weakest_of_the_others_gets_nothing_either():
    game, last = structured_tower(
        ["a", "b", "c", "d"], last_of_h4="A", trophy_zero_cards="excluded"
    )
    event = do(game, "trophies", last=last)[0]
    assert event["gold"] == {"a": 3, "b": 2, "c": 0, "d": 0}


def test_a_chameleon_last_card_never_takes_gold_even_when_alone_with_a_weaker_card():
    game = new(["p1", "p2"])
    play_tower(
        game,
        {
            "p1": [["M5s", "W6a", "D4x"], ["M5", "W6", "D4u"], ["W5a", "D4a", "A"]],
            "p2": [["M3s", "W5", "D3a"], ["M3", "W4a", "D3x"], ["W4", "D3u", "A"]],
        },
        None,
    )
    event = do(game, "trophies", last={"p1": "Mc", "p2": "M2"})[0]
    assert event["gold"] == {"p1": 0, "p2": 2}


def test_four_players_trophies_three_two_one():
    game, last = structured_tower(["a", "b", "c", "d"])
    event = do(game, "trophies", last=last)[0]
    assert event["gold"] == {"a": 3, "b": 2, "c": 1, "d": 0}
    assert event["why"].startswith("a D4u > b D3u > c D2u > d D1u")


# ------------------------------------------------------------------ hands and towers
def test_hands_pass_left_and_the_next_tower_is_checked_against_them():
    players = ["red", "yellow", "green", "blue"]
    game, last = structured_tower(players)
    events = do(game, "trophies", last=last)
    assert events[1] == {
        "event": "pass",
        "tower": 1,
        "moves": [
            {"from": 1, "to": 2},
            {"from": 2, "to": 3},
            {"from": 3, "to": 4},
            {"from": 4, "to": 1},
        ],
    }
    tower(game, *SECOND_TOWER)
    assert game.known_hand("yellow") == sorted(H1)  # red's hand went left to yellow
    assert game.known_hand("red") == sorted(H4)
    e = refused(
        game,
        "not_in_hand",
        {
            "do": "floor",
            "teams": {
                "red": ["M5s", "W2", "D1a"],  # M5s is yellow's now
                "yellow": ["M5", "W6a", "D4a"],
                "green": ["M4s", "W5", "D3a"],
                "blue": ["M3", "W3a", "D2a"],
            },
        },
    )
    assert e.params["card"] == "M5s"


def test_the_last_card_may_be_left_out_when_the_hand_is_known():
    players = ["red", "yellow", "green", "blue"]
    game, last = structured_tower(players)
    do(game, "trophies", last=last)
    hands = {"red": H4, "yellow": H1, "green": H2, "blue": H3}
    teams = {p: plan(h)[0] for p, h in hands.items()}
    play_tower(game, teams, None, *SECOND_TOWER)
    event = do(game, "trophies")[0]
    assert event["last"] == {"red": "D1u", "yellow": "D4u", "green": "D3u", "blue": "D2u"}
    assert event["gold"] == {"red": 0, "yellow": 3, "green": 2, "blue": 1}


def test_three_players_the_boards_hand_is_known_after_the_first_tower():
    game = new(["ann", "bob", "cat"])
    teams, last = {}, {}
    for name, hand in zip(["ann", "bob", "cat"], (H1, H2, H3), strict=True):
        teams[name], last[name] = plan(hand)
    play_tower(game, teams, last)
    tower(game, *SECOND_TOWER)
    assert game.known_hand("ann") == sorted(H4)  # the board (seat 4) passed it left
    assert game.known_hand("bob") == sorted(H1)
    assert game.known_hand("cat") == sorted(H2)


def test_two_players_sit_with_the_boards_between_them():
    game = new(["ann", "bob"])
    seats = game.snapshot()["seats"]
    assert seats == [
        {"seat": 1, "player": "ann", "board": None},
        {"seat": 2, "player": None, "board": 1},
        {"seat": 3, "player": "bob", "board": None},
        {"seat": 4, "player": None, "board": 2},
    ]
    teams = {"ann": plan(H1)[0], "bob": plan(H3)[0]}
    play_tower(game, teams, {"ann": "D4u", "bob": "D2u"})
    tower(game, *SECOND_TOWER)
    # tower 2: both hands come from boards, unseen: only the pool of unseen cards is known
    assert game.known_hand("ann") is None and game.known_hand("bob") is None
    refused(
        game,
        "no_copies_left",
        {
            "do": "floor",
            "teams": {"ann": ["M5s", "W1", "D1u"], "bob": ["M4", "W4", "D3u"]},  # M5s: ann's old
        },
    )


def test_a_second_artifact_in_one_tower_is_refused():
    game = two()
    floor(game, ann=["M5s", "W6a", "A"], bob=["M2", "W1", "D1u"])
    refused(
        game,
        "hand_colours",
        {"do": "floor", "teams": {"ann": ["M5", "W6", "A"], "bob": ["M3", "W2", "D2u"]}},
    )


def test_a_card_out_twice_in_one_tower_is_refused():
    game = two()
    floor(game, ann=["M5s", "W6a", "D4a"], bob=["M2", "W1", "D1u"])
    refused(
        game,
        "no_copies_left",
        {"do": "floor", "teams": {"ann": ["M5", "W6", "D4x"], "bob": ["M5s", "W2", "D2u"]}},
    )


def test_the_last_card_must_be_the_colour_left_in_hand():
    game = tt3_game()
    e = refused(
        game, "hand_colours", {"do": "trophies", "last": {"p1": "D1a", "p2": "D3a", "p3": "M2"}}
    )
    assert e.params["player"] == "p1"


def test_a_card_the_catalog_does_not_have_is_refused_unless_cards_are_not_checked():
    refused(
        two(),
        "not_in_catalog",
        {"do": "floor", "teams": {"ann": ["M9s", "W6", "D4x"], "bob": ["M2", "W1", "D1u"]}},
    )
    game = two(check_cards=False)
    event = floor(game, ann=["M9s", "W6", "D4x"], bob=["M2", "W1", "D1u"])
    assert event["strength"]["ann"] == 19


def test_check_cards_false_allows_the_same_card_twice():
    game = two(check_cards=False)
    event = floor(game, ann=["M5s", "W6a", "D4a"], bob=["M5s", "W6", "D4x"])
    assert event["treasure"]["to"] == "ann"  # warrior 6 with an axe


def test_a_tower_card_used_more_often_than_the_box_holds_is_refused():
    game = new(["ann", "bob"])
    play_tower(
        game,
        {"ann": plan(H1)[0], "bob": plan(H3)[0]},
        {"ann": "D4u", "bob": "D2u"},
        treasures=["elixir", "ring", "ring"],
    )
    refused(
        game,
        "no_copies_left",
        {
            "do": "tower",
            "monsters": ["monster:1", "monster:2", "monster:3"],
            "treasures": ["elixir", "ring", "chest:2"],
        },
    )


def test_tower_cards_must_be_monsters_and_treasures():
    game = new(["ann", "bob"])
    refused(
        game,
        "not_a_treasure",
        {
            "do": "tower",
            "monsters": ["monster:1", "monster:2", "monster:3"],
            "treasures": ["troglodyte", "ring", "chest:2"],
        },
    )
    refused(
        game,
        "not_a_monster",
        {
            "do": "tower",
            "monsters": ["ring", "monster:2", "monster:3"],
            "treasures": ["chest:4", "ring", "chest:2"],
        },
    )
    refused(
        game,
        "bad_tower",
        {"do": "tower", "monsters": ["monster:2", "monster:3"], "treasures": ["ring"] * 3},
    )


# ------------------------------------------------------------------ refusals
def test_a_floor_before_its_tower_is_refused():
    game = new(["ann", "bob"])
    e = refused(
        game,
        "no_tower",
        {"do": "floor", "teams": {"ann": ["M5s", "W6a", "D4a"], "bob": ["M2", "W1", "D1u"]}},
    )
    assert str(e) == "floor: tower 1 is not set out: a floor needs its tower's cards first"


def test_phase_order_is_enforced():
    game = two()
    refused(game, "floors_not_done", {"do": "trophies", "last": {"ann": "A", "bob": "A"}})
    refused(
        game,
        "tower_not_done",
        {"do": "tower", "monsters": ["monster:4"] * 3, "treasures": ["ring"] * 3},
    )
    game = tt3_game()
    refused(
        game,
        "trophies_due",
        {"do": "tower", "monsters": ["monster:4"] * 3, "treasures": ["ring"] * 3},
    )
    refused(
        game,
        "trophies_due",
        {
            "do": "floor",
            "teams": {
                "p1": ["M5s", "W6a", "D4a"],
                "p2": ["M2", "W1", "D1u"],
                "p3": ["M3", "W2", "D2u"],
            },
        },
    )


def test_a_player_who_is_not_seated_is_refused():
    game = two()
    e = refused(
        game,
        "not_seated",
        {
            "do": "floor",
            "teams": {
                "ann": ["M5s", "W6a", "D4a"],
                "bob": ["M2", "W1", "D1u"],
                "zed": ["M3", "W2", "D2u"],
            },
        },
    )
    assert e.params["name"] == "zed"
    refused(game, "not_seated", {"do": "elixir", "player": "zed", "discard": None})
    refused(
        game,
        "team_missing",
        {"do": "floor", "teams": {"ann": ["M5s", "W6a", "D4a"]}},
    )


def test_actions_after_the_end_are_refused():
    game = play_structured_game(["ann", "bob"], TWO_PLAYER_TOWERS)
    assert game.game_over
    for action in (
        {"do": "tower", "monsters": ["monster:1"] * 3, "treasures": ["ring"] * 3},
        {"do": "floor", "teams": {"ann": ["M5s", "W6a", "D4a"], "bob": ["M2", "W1", "D1u"]}},
        {"do": "trophies", "last": {"ann": "A", "bob": "A"}},
    ):
        refused(game, "game_over", action)


def test_malformed_actions_are_refused():
    game = two()
    refused(game, "unknown_action", {"do": "shuffle"})
    refused(game, "unknown_field", {"do": "floor", "teams": {}, "colour": "red"})
    refused(game, "bad_action", {"do": "floor"})
    refused(
        game,
        "bad_card",
        {"do": "floor", "teams": {"ann": ["M5s", "W6a", "D4"], "bob": ["M2", "W1", "D1u"]}},
    )
    refused(
        game,
        "bad_card",
        {"do": "floor", "teams": {"ann": ["M5x", "W6a", "D4a"], "bob": ["M2", "W1", "D1u"]}},
    )
    refused(game, "bad_team", {"do": "floor", "teams": {"ann": "M5s", "bob": ["M2", "W1", "D1u"]}})
    with pytest.raises(TschakError) as info:
        game.apply(["floor"])
    assert info.value.code == "bad_action"


def test_new_game_options_are_checked():
    for options, code in (
        ({"players": ["a"]}, "bad_players"),
        ({"players": ["a", "b", "c", "d", "e"]}, "bad_players"),
        ({"players": ["a", "a"]}, "bad_players"),
        ({"players": ["a", ""]}, "bad_players"),
        ({"players": ["a", "b"], "settings": {"colour": 1}}, "unknown_setting"),
        ({"players": ["a", "b"], "settings": {"chameleon_scope": "game"}}, "bad_setting"),
        ({"players": ["a", "b"], "settings": {"check_cards": 1}}, "bad_setting"),
        ({"players": ["a", "b"], "server_seed": "00"}, "unknown_option"),
        ({"players": ["a", "b"], "edition": "clank"}, "bad_options"),
        ({"edition": "tschak"}, "bad_players"),
        ({"players": ["a", "b"], "catalog": {"mage_99": "M5s"}}, "bad_correction"),
    ):
        with pytest.raises(TschakError) as info:
            TschakGame.from_options(options)
        assert info.value.code == code, options
    game = TschakGame.from_options(
        {
            "edition": "tschak",
            "players": ["a", "b"],
            "settings": {"chameleon_scope": "tower"},
            "catalog": {"mage_01": "M6s"},
        }
    )
    assert game.settings.chameleon_scope == "tower"
    assert game.catalog.hero("mage_01").notation == "M6s"


# ------------------------------------------------------------------ undo
def test_undo_takes_back_a_floor_and_nothing_is_left_to_undo_at_the_start():
    game = new(["ann", "bob"])
    refused(game, "nothing_to_undo", {"do": "undo"})
    tower(game)
    before = game.snapshot()
    floor(game, ann=["M5s", "W6a", "D4a"], bob=["M2", "W1", "D1u"])
    assert do(game, "undo") == [{"event": "undo", "action": "floor"}]
    assert game.snapshot() == before
    floor(game, ann=["M5s", "W6a", "D4a"], bob=["M2", "W1", "D1u"])  # the cards are free again
    assert game.snapshot()["players"]["ann"]["treasures"] == ["chest:2"]


def test_undo_after_the_end_reopens_the_last_trophies():
    game = play_structured_game(["ann", "bob"], TWO_PLAYER_TOWERS)
    do(game, "undo")
    snap = game.snapshot()
    assert (snap["game_over"], snap["next"], snap["ranking"]) == (False, "trophies", None)
    do(game, "trophies", last={"ann": "D3u", "bob": "D1u"})
    assert game.snapshot()["game_over"]


# ------------------------------------------------------------------ settings (section 14)
def test_a2_artifact_as_a_fourth_card():
    game = two(artifact_takes_slot=False)
    event = floor(game, ann=["M4", "W3", "D2x", "A"], bob=["M3", "W2", "D1u"])
    assert event["strength"] == {"ann": 4 + 3 + 2 * 2, "bob": 6}
    refused(
        game,
        "illegal_team",
        {"do": "floor", "teams": {"ann": ["M5", "W6", "A"], "bob": ["M2", "W1", "D1a"]}},
    )


def test_a2_fourth_card_game_ends_a_tower_with_no_last_card():
    game = new(["ann", "bob"], artifact_takes_slot=False)
    play_tower(
        game,
        {
            "ann": [["M5s", "W6a", "D4a"], ["M5", "W6", "D4x", "A"], ["Mc", "W5a", "D4u"]],
            "bob": [["M3s", "W5", "D3a"], ["M3", "W4a", "D3x"], ["M2s", "W4", "D3u"]],
        },
        None,
    )
    event = do(game, "trophies", last={"ann": None, "bob": "A"})[0]
    assert event["gold"] == {"ann": 0, "bob": 0}


def test_a3_chameleon_scope_tower_copies_an_earlier_floors_mage():
    results = {}
    for scope in ("floor", "tower"):
        game = two(chameleon_scope=scope)
        floor(game, ann=["M2", "W1", "D1u"], bob=["M5s", "W2", "D2u"])
        results[scope] = floor(game, ann=["Mc", "W6a", "D4a"], bob=["W6", "D4x", "A"])
    assert results["floor"]["strength"] == {"ann": 10, "bob": 14}
    assert results["floor"]["treasure"]["to"] == "bob"
    assert results["tower"]["strength"] == {"ann": 15, "bob": 14}
    assert results["tower"]["treasure"]["to"] == "ann"


def test_a4_chameleon_copies_the_doubled_mage():
    printed = floor(two(), ann=["Mc", "W6", "D1u"], bob=["M2", "W5", "A"])
    assert printed["strength"] == {"ann": 9, "bob": 9}
    assert printed["treasure"]["to"] == "bob"  # 9 = 9: mage 2 beats the chameleon
    effective = floor(
        two(chameleon_copies="effective"), ann=["Mc", "W6", "D1u"], bob=["M2", "W5", "A"]
    )
    assert effective["strength"] == {"ann": 11, "bob": 9}
    assert effective["treasure"]["to"] == "ann"


def test_a5_chameleon_copies_the_weakest_opposing_mage():
    teams = {"ann": ["Mc", "W1", "D1u"], "bob": ["M5s", "W2", "D2u"], "cat": ["M2", "W3", "D1x"]}
    strongest = floor(three(), **teams)
    assert strongest["strength"] == {"ann": 7, "bob": 9, "cat": 6}
    assert strongest["monster"]["to"] == "cat"
    weakest = floor(three(chameleon_target="weakest"), **teams)
    assert weakest["strength"] == {"ann": 4, "bob": 9, "cat": 6}
    assert weakest["monster"]["to"] == "ann"


def test_a6_tie_chain_with_effective_numbers():
    teams = {"ann": ["M2", "W3", "A"], "bob": ["M3", "W2", "D2u"]}
    printed = floor(two(), **teams)
    assert printed["strength"] == {"ann": 7, "bob": 7}
    assert printed["treasure"]["to"] == "bob"  # mage 3 beats mage 2
    effective = floor(two(tie_values="effective"), **teams)
    assert effective["treasure"]["to"] == "ann"  # mage 2 doubled (4) beats mage 3
    assert "mage 2 doubled (4) beats mage 3" in effective["why"]


def test_a7_a_missing_mage_below_the_chameleon():
    teams = {"ann": ["Mc", "W4", "D4u"], "bob": ["W4a", "D2u", "A"]}
    zero = floor(two(), **teams)
    assert zero["strength"] == {"ann": 8, "bob": 8}
    assert zero["treasure"]["to"] == "bob"  # chameleon = no mage; the axe decides
    below = floor(two(tie_missing="below_chameleon"), **teams)
    assert below["treasure"]["to"] == "ann"
    assert "the chameleon beats no mage" in below["why"]


def test_a9_a_tie_the_chain_cannot_break_asks_the_table():
    teams = {"ann": ["M3", "W3", "D3u"], "bob": ["M3", "W3", "D3u"]}
    game = two(check_cards=False)
    e = refused(game, "tie_unresolved", {"do": "floor", "teams": teams})
    assert e.params["tied"] == ["ann", "bob"]
    event = do(game, "floor", teams=teams, tiebreak=["bob", "ann"])[0]
    assert (event["treasure"]["to"], event["monster"]["to"]) == ("bob", "ann")
    assert "the table decided" in event["why"]
    seat = floor(two(check_cards=False, unresolved_tie="seat_order"), **teams)
    assert (seat["treasure"]["to"], seat["monster"]["to"]) == ("ann", "bob")


# ------------------------------------------------------------------ misplay (T-X1, A16)
MISPLAY_TEAMS = {
    "ann": ["M5s", "W6a", "D4a"],  # 15, the corrected team of the offender
    "bob": ["M4", "W4", "D3u"],  # 11
    "cat": ["M2", "W1", "D1u"],  # 4
}


def test_a16_the_offender_takes_the_monster_and_the_treasure_goes_to_the_others():
    game = three()
    event = do(game, "floor", teams=MISPLAY_TEAMS, misplays=["ann"])[0]
    assert event["monster"] == {"card": "monster:1", "to": "ann"}
    assert event["treasure"] == {"card": "chest:2", "to": "bob"}
    assert event["misplays"] == ["ann"]
    assert event["why"] == "ann misplayed and takes the monster; bob 11 strongest"


def test_a16_setting_all_lets_the_offender_win_the_treasure_too():
    game = three(misplay_other_card="all")
    event = do(game, "floor", teams=MISPLAY_TEAMS, misplays=["ann"])[0]
    assert event["monster"]["to"] == "ann"
    assert event["treasure"]["to"] == "ann"


def test_misplay_takes_the_cursed_chest_when_it_costs_more():
    game = new(["ann", "bob", "cat"])
    tower(game, ["monster:1", "monster:2", "troglodyte"], ["cursed:3", "ring", "ring"])
    event = do(game, "floor", teams=MISPLAY_TEAMS, misplays=["ann"])[0]
    assert event["treasure"] == {"card": "cursed:3", "to": "ann"}
    assert event["monster"] == {"card": "monster:1", "to": "cat"}
    assert event["explain"]["misplays"] == [
        {"player": "ann", "took": "treasure", "card": "cursed:3", "penalty": 3}
    ]


def test_misplay_counts_a_troglodyte_by_what_it_adds_to_the_square():
    game = new(["ann", "bob", "cat"])
    tower(game, ["troglodyte", "troglodyte", "monster:1"], ["cursed:2", "ring", "ring"])
    # floor 1: a first troglodyte costs 1 < 2 skulls: ann takes the cursed chest
    first = do(game, "floor", teams=MISPLAY_TEAMS, misplays=["ann"])[0]
    assert first["treasure"]["to"] == "ann" and first["monster"]["to"] == "cat"
    game = new(["ann", "bob", "cat"])
    tower(game, ["troglodyte", "troglodyte", "monster:1"], ["chest:2", "cursed:2", "ring"])
    floor(game, ann=["M2", "W1", "D1u"], bob=["M4", "W4", "D3u"], cat=["M5s", "W6a", "D4a"])
    assert game.snapshot()["players"]["ann"]["monsters"] == ["troglodyte"]
    second = do(
        game,
        "floor",
        teams={"ann": ["M5", "W6", "D4x"], "bob": ["M3", "W3", "D3x"], "cat": ["M2s", "W2", "D1x"]},
        misplays=["ann"],
    )[0]
    assert second["monster"]["to"] == "ann"  # a second troglodyte costs 4 - 1 = 3 > 2
    assert second["treasure"] == {"card": "cursed:2", "to": "bob"}


# ------------------------------------------------------------------ whole games
FOUR_PLAYER_TOWERS = [
    (["monster:1", "monster:2", "monster:3"], ["chest:2", "chest:3", "chest:4"]),
    (["troglodyte", "troglodyte", "monster:4"], ["ring", "ring", "ring"]),
    (["troglodyte", "monster:5", "monster:2"], ["war_trophy", "elixir", "chest:5"]),
    (["troglodyte", "troglodyte", "monster:3"], ["ring", "ring", "cursed:3"]),
]
THREE_PLAYER_TOWERS = [
    (["monster:1", "monster:2", "monster:2"], ["chest:2", "chest:3", "ring"]),
    (["troglodyte", "troglodyte", "troglodyte"], ["ring", "ring", "elixir"]),
    (["monster:3", "monster:4", "troglodyte"], ["war_trophy", "chest:4", "cursed:2"]),
    (["monster:5", "monster:3", "monster:4"], ["chest:5", "ring", "ring"]),
]
TWO_PLAYER_TOWERS = [
    (["monster:1", "monster:2", "troglodyte"], ["chest:2", "ring", "ring"]),
    (["monster:3", "troglodyte", "troglodyte"], ["chest:3", "war_trophy", "ring"]),
    (["monster:4", "monster:5", "monster:2"], ["cursed:2", "chest:4", "elixir"]),
    (["monster:3", "troglodyte", "monster:4"], ["ring", "chest:5", "cursed:3"]),
]


def test_whole_game_four_players():
    players = ["red", "yellow", "green", "blue"]
    game = play_structured_game(players, FOUR_PLAYER_TOWERS)
    snap = game.snapshot()
    assert snap["game_over"] and snap["next"] is None and snap["tower"] == 4
    assert len(snap["floors"]) == 12 and len(snap["trophies"]) == 4
    # the holder of H1 takes each tower's treasures, the holder of H4 its monsters
    assert snap["floors"][0]["why"] == (
        "red 15 strongest; blue 8 = green 8: mage 3 beats the chameleon, blue weakest"
    )
    p = snap["players"]
    assert {n: v["gold"] for n, v in p.items()} == dict.fromkeys(players, 6)
    assert p["red"]["treasures"] == ["chest:2", "chest:3", "chest:4"]
    assert p["red"]["monsters"] == ["troglodyte", "troglodyte", "monster:4"]
    assert p["yellow"]["treasures"] == ["ring", "ring", "ring"]
    assert p["green"]["treasures"] == ["war_trophy", "elixir", "chest:5"]
    assert p["blue"]["monsters"] == ["monster:1", "monster:2", "monster:3"]
    assert {n: v["score"] for n, v in p.items()} == {"red": 7, "yellow": 7, "green": 11, "blue": 1}
    assert p["green"]["score_detail"]["elixir"] == {"discard": "troglodyte", "by": "best"}
    assert p["green"]["score_detail"]["war_trophy"] == 4
    assert snap["ranking"] == [
        {"player": "green", "score": 11, "place": 1},
        {"player": "red", "score": 7, "place": 2},
        {"player": "yellow", "score": 7, "place": 2},
        {"player": "blue", "score": 1, "place": 4},
    ]
    assert snap["winners"] == ["green"]


def test_whole_game_three_players():
    game = play_structured_game(["ann", "bob", "cat"], THREE_PLAYER_TOWERS)
    snap = game.snapshot()
    p = snap["players"]
    assert {n: v["gold"] for n, v in p.items()} == {"ann": 8, "bob": 7, "cat": 5}
    assert p["ann"]["monsters"] == ["troglodyte"] * 3
    assert p["cat"]["treasures"] == ["war_trophy", "chest:4", "cursed:2"]
    assert p["cat"]["score_detail"]["war_trophy"] == 12
    assert {n: v["score"] for n, v in p.items()} == {"ann": 18, "bob": 7, "cat": 2}
    assert p["bob"]["score_detail"]["elixir"] == {"discard": "monster:4", "by": "best"}
    assert snap["winners"] == ["ann"]
    # tower 3: bob holds H4, its chameleon copies cat's mage 5 and ties ann's 8
    assert snap["floors"][6]["strength"] == {"ann": 8, "bob": 8, "cat": 15}
    assert snap["floors"][6]["monster"]["to"] == "bob"


def test_whole_game_two_players_with_a_negative_score():
    game = play_structured_game(["ann", "bob"], TWO_PLAYER_TOWERS)
    snap = game.snapshot()
    p = snap["players"]
    assert {n: v["gold"] for n, v in p.items()} == {"ann": 4, "bob": 4}
    assert p["ann"]["score"] == -1
    assert p["bob"]["score"] == 5
    assert p["bob"]["score_detail"]["war_trophy"] == 5  # 1 per monster with two players
    assert p["bob"]["score_detail"]["elixir"] == {"discard": "monster:4", "by": "best"}
    assert snap["ranking"] == [
        {"player": "bob", "score": 5, "place": 1},
        {"player": "ann", "score": -1, "place": 2},
    ]
    assert snap["winners"] == ["bob"]


def test_the_elixir_choice_after_the_end_rescores():
    game = play_structured_game(["ann", "bob"], TWO_PLAYER_TOWERS)
    events = do(game, "elixir", player="bob", discard="troglodyte")
    assert events[0]["ranking"][0] == {"player": "bob", "score": 4, "place": 1}
    detail = game.snapshot()["players"]["bob"]["score_detail"]
    assert detail["elixir"] == {"discard": "troglodyte", "by": "player"}
    do(game, "elixir", player="bob", discard=None)
    assert game.snapshot()["players"]["bob"]["score"] == 2
    refused(game, "no_elixir", {"do": "elixir", "player": "ann", "discard": None})
    refused(game, "not_held", {"do": "elixir", "player": "bob", "discard": "monster:5"})
