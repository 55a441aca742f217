"""Tschak! final scoring, the elixir, the winner (TSCHAK_SPEC.md sections 10 and 17)."""

from __future__ import annotations

import copy

import pytest

from companion.kinds.tschak.rules import (
    Settings,
    TschakError,
    TschakGame,
    parse_tower_card,
    rank,
    score_player,
)
from tests.test_tschak_rules import TWO_PLAYER_TOWERS
from tests.test_tschak_support import do, play_structured_game


def cards(*names):
    return [parse_tower_card(n) for n in names]


def score(gold=0, monsters=(), treasures=(), players=4, discard="best", **settings):
    return score_player(
        gold,
        cards(*monsters),
        cards(*treasures),
        players=players,
        settings=Settings(**settings),
        discard=discard if discard in ("best", None) else parse_tower_card(discard),
    )


def test_ts1_gold_chest_rings_monster_troglodytes():
    s = score(5, ["monster:3", "troglodyte", "troglodyte"], ["chest:4", "ring", "ring", "ring"])
    assert s.total == 11
    assert s.as_dict() == {
        "gold": 5,
        "chests": 4,
        "cursed_chests": 0,
        "rings": 9,
        "war_trophy": 0,
        "monsters": -3,
        "troglodytes": -4,
        "total": 11,
        "counts": {"rings": 3, "monsters": 1, "troglodytes": 2, "received": 3},
        "elixir": None,
    }


def test_ts2_war_trophy_counts_monsters_and_troglodytes_two_each_one_with_two_players():
    holdings = (["monster:2", "troglodyte", "troglodyte"], ["war_trophy"])
    four = score(0, *holdings)
    assert (four.total, four.parts["war_trophy"]) == (0, 6)
    two = score(0, *holdings, players=2)
    assert (two.total, two.parts["war_trophy"]) == (-3, 3)


def test_ts4_the_elixir_is_optional_and_the_best_is_to_keep_the_troglodyte():
    best = score(0, ["troglodyte"], ["elixir", "war_trophy"])
    assert best.total == 1
    assert best.elixir == {"discard": None, "by": "best"}
    assert best.options == [{"discard": None, "score": 1}, {"discard": "troglodyte", "score": 0}]
    used = score(0, ["troglodyte"], ["elixir", "war_trophy"], discard="troglodyte")
    assert used.total == 0
    assert used.elixir == {"discard": "troglodyte", "by": "player"}
    assert used.counts == {"rings": 0, "monsters": 0, "troglodytes": 0, "received": 1}


def test_ts7_equal_scores_fewer_monsters_wins_then_a_shared_win():
    a = score(16, ["monster:1", "monster:1"])
    b = score(17, ["monster:1", "monster:1", "monster:1"])
    assert a.total == b.total == 14
    ranking, winners = rank({"a": a, "b": b}, ["a", "b"])
    assert winners == ["a"]
    assert ranking == [
        {"player": "a", "score": 14, "place": 1},
        {"player": "b", "score": 14, "place": 2},
    ]
    c = score(16, ["monster:1", "monster:1"])
    ranking, winners = rank({"b": b, "a": a, "c": c}, ["b", "a", "c"])
    assert winners == ["a", "c"]
    assert [r["place"] for r in ranking] == [1, 1, 3]


@pytest.mark.parametrize(
    ("n", "points"), [(0, 0), (1, 1), (2, 4), (3, 9), (4, 16), (5, 25), (6, 36)]
)
def test_ts8_rings_score_their_count_squared(n, points):
    assert score(0, [], ["ring"] * n).total == points


@pytest.mark.parametrize(
    ("n", "points"), [(0, 0), (1, -1), (2, -4), (3, -9), (4, -16), (5, -25), (6, -36)]
)
def test_ts9_troglodytes_cost_their_count_squared(n, points):
    assert score(0, ["troglodyte"] * n).total == points


def test_cursed_chests_cost_their_skulls_and_totals_may_be_negative():
    s = score(1, ["monster:4"], ["cursed:2", "cursed:3", "chest:2"])
    assert s.parts["cursed_chests"] == -5
    assert s.total == 1 - 5 + 2 - 4


def test_the_best_elixir_discards_the_costliest_monster():
    s = score(0, ["monster:1", "monster:5", "monster:3"], ["elixir"])
    assert s.total == -4
    assert s.elixir == {"discard": "monster:5", "by": "best"}


def test_a13_war_trophy_without_troglodytes():
    holdings = (["monster:1", "troglodyte", "troglodyte"], ["war_trophy"])
    assert score(0, *holdings).total == 6 - 1 - 4
    assert score(0, *holdings, war_trophy_troglodytes=False).total == 2 - 1 - 4


def test_a14_elixir_not_optional_must_discard():
    forced = score(0, ["troglodyte"], ["elixir", "war_trophy"], elixir_optional=False)
    assert forced.total == 0
    assert forced.elixir == {"discard": "troglodyte", "by": "best"}


def test_a14_elixir_may_not_take_a_troglodyte():
    holdings = (["monster:1", "troglodyte", "troglodyte"], ["elixir"])
    allowed = score(0, *holdings)
    assert (allowed.total, allowed.elixir["discard"]) == (-2, "troglodyte")
    barred = score(0, *holdings, elixir_troglodyte=False)
    assert (barred.total, barred.elixir["discard"]) == (-4, "monster:1")


def test_a15_final_tie_counts_monsters_as_received_or_after_the_elixir():
    a = score(16, ["monster:1", "monster:1"])
    b = score(16, ["monster:1", "monster:1", "monster:5"], ["elixir"])
    assert a.total == b.total == 14
    assert (b.monsters_received, b.monsters_kept) == (3, 2)
    assert rank({"a": a, "b": b}, ["a", "b"])[1] == ["a"]
    after = Settings(final_tie_monsters="after_elixir")
    assert rank({"a": a, "b": b}, ["a", "b"], after)[1] == ["a", "b"]


# ------------------------------------------------------------------ through a game
def test_a14_elixir_actions_follow_the_settings():
    game = play_structured_game(["ann", "bob"], TWO_PLAYER_TOWERS, elixir_optional=False)
    before = copy.deepcopy(game.snapshot())
    with pytest.raises(TschakError) as info:
        do(game, "elixir", player="bob", discard=None)
    assert info.value.code == "elixir_required"
    assert game.snapshot() == before
    game = play_structured_game(["ann", "bob"], TWO_PLAYER_TOWERS, elixir_troglodyte=False)
    with pytest.raises(TschakError) as info:
        do(game, "elixir", player="bob", discard="troglodyte")
    assert info.value.code == "elixir_troglodyte"


def test_a13_through_a_game_changes_the_elixirs_best_use():
    game = play_structured_game(["ann", "bob"], TWO_PLAYER_TOWERS, war_trophy_troglodytes=False)
    bob = game.snapshot()["players"]["bob"]
    assert bob["score"] == 3
    assert bob["score_detail"]["elixir"] == {"discard": "troglodyte", "by": "best"}
    assert bob["score_detail"]["war_trophy"] == 4


def test_scores_are_available_before_the_end_for_an_opt_in_scoreboard():
    game = play_structured_game(["ann", "bob"], TWO_PLAYER_TOWERS[:1] * 1)
    assert not game.game_over
    assert game.snapshot()["players"]["ann"]["score"] is None
    assert game.scores()["ann"].total == 2 + 2 + 4  # gold 2, chest 2, two rings


def test_a14_a_keep_them_all_made_when_nothing_could_go_does_not_outlive_a_new_monster():
    """With the elixir not optional, "discard": null is taken while the owner holds only
    troglodytes it may not discard; a monster received later must still go (T-E6, A14),
    not be kept because of that earlier line."""
    settings = {"elixir_optional": False, "elixir_troglodyte": False, "check_cards": False}
    game = TschakGame(["ann", "bob"], settings)
    strong, weak = ["M5s", "W6a", "D4a"], ["M2", "W1", "D1u"]
    do(game, "tower", monsters=["troglodyte", "troglodyte", "monster:4"],
       treasures=["elixir", "ring", "ring"])  # fmt: skip
    do(game, "floor", teams={"ann": strong, "bob": weak})  # ann: the elixir
    do(game, "floor", teams={"ann": weak, "bob": strong})  # ann: a troglodyte
    do(game, "elixir", player="ann", discard=None)  # nothing it may discard yet
    do(game, "floor", teams={"ann": weak, "bob": strong})  # ann: monster:4
    ann = game.scores()["ann"]
    assert ann.elixir == {"discard": "monster:4", "by": "best"}
    assert ann.total == -1  # the troglodyte kept, the monster gone (else -5)
    do(game, "elixir", player="ann", discard="monster:4")  # now a choice of the owner's
    assert game.scores()["ann"].elixir == {"discard": "monster:4", "by": "player"}
