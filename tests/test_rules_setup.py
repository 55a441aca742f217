"""Set-up per player count, editions and the options a table may correct."""

import pytest

from companion.rules import RuleError, make_setup, setup_checklist
from tests.helpers import new_game

FOUR = ["red", "yellow", "green", "blue"]


@pytest.mark.parametrize(("players", "space", "draw"), [(2, 3, 3), (3, 2, 2), (4, 1, 2)])
def test_rage_start_by_player_count(players, space, draw):
    game = new_game(players=FOUR[:players])
    snap = game.snapshot()
    assert snap["rage"] == {"space": space, "draw": draw, "track": [2, 2, 3, 3, 4, 4, 5]}


def test_starting_clank_by_seat_and_cubes():
    snap = new_game(players=FOUR).snapshot()
    assert snap["clank_area"] == {"red": 3, "yellow": 2, "green": 1, "blue": 0, "ghost": 0}
    assert [p["supply"] for p in snap["players"].values()] == [27, 28, 29, 30]
    assert snap["bag"] == {"black": 24, "red": 0, "yellow": 0, "green": 0, "blue": 0, "ghost": 0}
    assert snap["turn"] == {"active": "red", "number": 1}
    assert all(p["health"] == 10 and p["status"] == "playing" for p in snap["players"].values())


def test_catacombs_has_five_ghosts_in_the_treasury():
    snap = new_game("catacombs", players=FOUR[:3]).snapshot()
    assert snap["treasury"] == {"ghost": 5}
    assert snap["clank_area"]["ghost"] == 0
    assert set(snap["settings"]["unconfirmed"]) == {"rage_track", "rage_start", "health"}


@pytest.mark.parametrize(
    ("players", "removed"),
    [(2, "Remove 2 random artifacts"), (3, "Remove 1 random artifact unseen")],
)
def test_artifacts_removed_is_a_setup_instruction(players, removed):
    setup = make_setup({"edition": "clank", "players": FOUR[:players]})
    assert any(line.startswith(removed) for line in setup_checklist(setup))
    # all seven stay takeable: the app cannot know which ones the table removed
    assert sorted(new_game(players=FOUR[:players]).state.artifacts_left) == [
        5,
        7,
        10,
        15,
        20,
        25,
        30,
    ]


def test_four_players_remove_no_artifact():
    setup = make_setup({"edition": "clank", "players": FOUR})
    assert not any("artifact" in line for line in setup_checklist(setup))


def test_party_allows_six_players_with_empty_seats_five_and_six():
    six = FOUR + ["purple", "orange"]
    with pytest.raises(RuleError, match="2-4"):
        make_setup({"edition": "clank", "players": six})
    game = new_game("catacombs", players=six, party=True)
    snap = game.snapshot()
    assert snap["clank_area"]["purple"] == 0 and snap["clank_area"]["orange"] == 0
    assert snap["rage"]["space"] == 1
    assert "starting_clank.5" in snap["settings"]["unconfirmed"]
    # party artifacts join the pile
    assert game.state.artifacts_left.count(10) == 2


@pytest.mark.parametrize(
    ("options", "reason"),
    [
        ({"edition": "monopoly", "players": ["a", "b"]}, "unknown edition"),
        ({"edition": "clank", "players": ["red"]}, "1 players"),
        ({"edition": "clank", "players": ["red", "red"]}, "distinct"),
        ({"edition": "clank", "players": ["red", "Blue"]}, "lowercase"),
        ({"edition": "clank", "players": ["red", "black"]}, "cube kind"),
        ({"edition": "clank", "players": ["red", "blue"], "health": 0}, "health"),
        ({"edition": "clank", "players": ["red", "blue"], "rage_start": 9}, "rage_start"),
        ({"edition": "clank", "players": ["red", "blue"], "rage_track": []}, "rage_track"),
        ({"edition": "clank", "players": ["red", "blue"], "colour": 1}, "unknown field"),
    ],
)
def test_bad_new_game_options(options, reason):
    with pytest.raises(RuleError, match=reason):
        make_setup(options)


def test_table_corrects_unconfirmed_numbers():
    game = new_game(
        "catacombs", players=FOUR[:2], rage_track=[3, 3, 4, 4, 5, 5], rage_start=2, health=12
    )
    snap = game.snapshot()
    assert snap["rage"]["space"] == 2 and snap["rage"]["draw"] == 3
    assert snap["players"]["red"]["health"] == 12
    assert snap["settings"]["unconfirmed"] == []
