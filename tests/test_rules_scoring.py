"""Scoring: who scores, categories, conditional VP, the artifact tie-break."""

import pytest

from companion.kinds.clank.catalog import parse_vp_rule
from companion.kinds.clank.catalog.vprule import VPRuleError
from tests.helpers import ScriptedChance, do, new_game


def _finish_by_escape(game, *players):
    for name in players:
        do(game, "escape", player=name)


def test_escaped_player_scores_artifact_gold_tokens_mastery_and_cards():
    game = new_game(players=["red", "blue"])
    do(game, "artifact", player="red", value=20)
    do(game, "gold", player="red", n=16)
    do(game, "buy", player="red", item="crown")  # most valuable crown: 10
    do(game, "token", player="red", name="monkey idol")
    do(game, "secret", player="red", name="dragon egg")
    do(game, "secret", player="red", name="treasure")  # +2 gold, no VP of its own
    do(game, "artifact", player="blue", value=5)
    _finish_by_escape(game, "red", "blue")
    do(
        game,
        "cards",
        player="red",
        cards=["Secret Tome", "Secret Tome", "Wizard", "The Duke", "Burgle"],
    )
    snap = game.snapshot()
    detail = snap["players"]["red"]["score_detail"]
    assert detail["parts"] == {
        "artifacts": 20,
        "gold": 11,
        "tokens": 10 + 5 + 20,
        "secrets": 3,
        "prisoners": 0,
        "cards": 7 + 7 + 2 * 2 + 11 // 5,
    }
    assert snap["players"]["red"]["score"] == 20 + 11 + 35 + 3 + 20
    assert "Wizard: 2 per card:Secret Tome = 4" in detail["conditional"]
    assert snap["ranking"][0] == {"player": "red", "score": 89, "place": 1}


def test_knocked_out_in_the_depths_scores_nothing_but_above_it_is_rescued():
    chance = ScriptedChance(["red"] * 3 + ["blue"] * 2)
    game = new_game(players=["red", "blue"], chance=chance, health=2, rage_track=[5])
    do(game, "artifact", player="red", value=10)
    do(game, "artifact", player="blue", value=5)
    do(game, "depths", player="blue", **{"in": True})
    do(game, "gold", player="red", n=3)
    do(game, "attack")
    snap = game.snapshot()
    assert snap["game_over"]
    red, blue = snap["players"]["red"], snap["players"]["blue"]
    assert red["status"] == blue["status"] == "knocked_out"
    assert red["score"] == 13  # rescued: artifact + gold, no mastery token
    assert blue["score"] == 0
    assert blue["score_detail"]["reason"] == "knocked out in the Depths"


def test_no_artifact_no_score_even_escaped_is_impossible():
    game = new_game(players=["red", "blue"])
    with pytest.raises(Exception, match="carries no artifact"):
        do(game, "escape", player="red")


def test_catacombs_requires_an_artifact_in_any_case():
    chance = ScriptedChance(["red", "red", "blue", "blue"])
    game = new_game("catacombs", players=["red", "blue"], chance=chance, health=2, rage_track=[4])
    do(game, "gold", player="red", n=9)
    do(game, "clank", player="blue", n=1)
    do(game, "attack")
    snap = game.snapshot()
    assert snap["players"]["red"]["score"] == 0
    assert snap["players"]["red"]["score_detail"]["reason"] == "no artifact"


def test_tie_goes_to_the_most_valuable_artifact():
    game = new_game(players=["red", "yellow", "blue"])
    do(game, "artifact", player="red", value=10)
    do(game, "gold", player="red", n=5)
    do(game, "artifact", player="yellow", value=15)
    do(game, "artifact", player="blue", value=7)
    do(game, "gold", player="blue", n=8)
    _finish_by_escape(game, "red", "yellow", "blue")
    ranking = game.snapshot()["ranking"]
    assert [r["score"] for r in ranking] == [35, 35, 35]
    assert [r["player"] for r in ranking] == ["yellow", "red", "blue"]
    assert [r["place"] for r in ranking] == [1, 2, 3]


def test_catacombs_prisoners_and_conditional_vp():
    game = new_game("catacombs", players=["red", "blue"])
    do(game, "artifact", player="red", value=12)
    for name in [
        "warrior",
        "monk",
        "mayor",
        "haunted",
        "adventurer",
        "discount coupon",
        "golden monkeybot",
        "primatologist",
        "priest",
    ]:
        do(game, "prisoner", player="red", name=name)
    do(game, "shrine", player="red")
    do(game, "shrine", player="red")
    assert game.state.players["red"].gold == 1 + 2
    assert game.state.area["ghost"] == 1  # the haunted prisoner's ghost
    do(game, "artifact", player="blue", value=5)
    _finish_by_escape(game, "red", "blue")
    do(game, "cards", player="red", cards=["Thirst for Adventure", "Brave Hero"])
    detail = game.snapshot()["players"]["red"]["score_detail"]
    # warrior 8 prisoners (the coupon is not one), monk 2 shrines, mayor 5, haunted 3,
    # adventurer 3, monkeybot 3, primatologist 5 (the monkeybot is an idol), priest 2
    assert detail["parts"]["prisoners"] == 8 + 2 + 5 + 3 + 3 + 3 + 5 + 2
    # Thirst: 2 x (1 artifact + 1 idol); Brave Hero: 5 with 3+ prisoners
    assert detail["parts"]["cards"] == 4 + 5


def test_coupon_takes_five_gold_off_one_purchase():
    game = new_game("catacombs", players=["red", "blue"])
    do(game, "prisoner", player="red", name="discount coupon")
    do(game, "gold", player="red", n=2)
    with pytest.raises(Exception, match="costs 7 gold; red has 2"):
        do(game, "buy", player="red", item="backpack")
    do(game, "buy", player="red", item="backpack", coupon=True)
    assert game.state.players["red"].gold == 0
    with pytest.raises(Exception, match="no discount coupon"):
        do(game, "buy", player="red", item="backpack", coupon=True)


@pytest.mark.parametrize(
    ("rule", "counts", "vp"),
    [
        ("2 per card:Secret Tome", {"card:Secret Tome": 3}, 6),
        ("1 per 5 gold", {"gold": 14}, 2),
        ("10 if mastery >= 1", {"mastery": 0}, 0),
        ("10 if mastery >= 1", {"mastery": 1}, 10),
        (
            "4 if 2 of secret:chalice,secret:dragon egg,monkey_idols",
            {"secret:chalice": 1, "monkey_idols": 2},
            4,
        ),
        ("4 if 2 of secret:chalice,secret:dragon egg,monkey_idols", {"monkey_idols": 3}, 0),
        ("5 if crowns >= 1 and gems >= 1", {"crowns": 1, "gems": 0}, 0),
        ("2 per artifacts+monkey_idols", {"artifacts": 2, "monkey_idols": 1}, 6),
    ],
)
def test_vp_rules(rule, counts, vp):
    assert parse_vp_rule(rule).value(lambda c: counts.get(c, 0)) == vp


@pytest.mark.parametrize(
    "bad",
    ["2 each tome", "5 if luck >= 1", "1 per 0 gold", "4 if 5 of gold,crowns", "5 if gold > 1"],
)
def test_bad_vp_rules(bad):
    with pytest.raises(VPRuleError):
        parse_vp_rule(bad)


# ------------------------------------- Catacombs: values counted as the catalog guesses
def _catacombs_hoard(**options):
    """Red reveals the chalice, buys a backpack and the two most valuable crowns; blue
    holds none of them; both escape."""
    game = new_game("catacombs", players=["red", "blue"], **options)
    do(game, "artifact", player="red", value=12)
    do(game, "secret", player="red", name="chalice")
    do(game, "gold", player="red", n=21)
    do(game, "buy", player="red", item="backpack")
    do(game, "buy", player="red", item="crown")  # 10: the top of the stack, printed
    do(game, "buy", player="red", item="crown")  # the middle one: not printed
    do(game, "artifact", player="blue", value=5)
    _finish_by_escape(game, "red", "blue")
    return game


def test_guessed_catacombs_values_are_flagged_where_the_scoring_explains_them():
    from companion import i18n

    game = _catacombs_hoard()
    detail = game.snapshot()["players"]["red"]["score_detail"]
    assert detail["parts"]["secrets"] == 7  # counted: the catalog's guess
    assert detail["parts"]["tokens"] == 10 + 9 + 5 + 20  # crowns, backpack, mastery
    assert detail["unconfirmed"] == ["crown", "backpack", "chalice"]
    assert "chalice: 7 VP (unconfirmed)" in detail["conditional"]
    assert "backpack: 5 VP (unconfirmed)" in detail["conditional"]
    assert "crown: 9 VP (unconfirmed)" in detail["conditional"]  # the 10 is printed
    assert game.snapshot()["players"]["blue"]["score_detail"]["unconfirmed"] == []
    score = game.scores()["red"]
    shown = [c.localized("catacombs") for c in score.conditional]
    assert "chalice: 7 VP (unconfirmed: not printed in the rulebook)" in shown
    i18n.set_language("ru")
    try:
        shown = [c.localized("catacombs") for c in score.conditional]
    finally:
        i18n.set_language("en")
    assert "chalice: 7 ПО (не подтверждено: в правилах не указано)" in shown


def test_corrected_catacombs_values_count_as_the_table_read_them():
    game = _catacombs_hoard(chalice_vp=8, backpack_vp=3, crowns=[10, 6, 8])
    detail = game.snapshot()["players"]["red"]["score_detail"]
    assert detail["unconfirmed"] == []
    assert detail["parts"]["secrets"] == 8
    assert detail["parts"]["tokens"] == 10 + 8 + 3 + 20  # the crowns 10 and 8 bought
    assert detail["conditional"] == []


def test_the_base_game_flags_nothing():
    game = new_game(players=["red", "blue"])
    do(game, "artifact", player="red", value=20)
    do(game, "secret", player="red", name="chalice")
    do(game, "gold", player="red", n=14)
    do(game, "buy", player="red", item="backpack")
    do(game, "buy", player="red", item="crown")
    do(game, "artifact", player="blue", value=5)
    _finish_by_escape(game, "red", "blue")
    detail = game.snapshot()["players"]["red"]["score_detail"]
    assert detail["unconfirmed"] == [] and detail["conditional"] == []
    assert detail["parts"]["secrets"] == 7 and detail["parts"]["tokens"] == 10 + 5 + 20
