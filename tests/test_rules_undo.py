"""Undo reverts state, never history: undone draws stay listed and nonces move on."""

import pytest

from companion.kinds.clank.rules import RuleError, make_setup
from companion.kinds.clank.table import Table
from tests.helpers import do, new_game

SEED = "11" * 32


def test_undo_reverts_the_last_action_and_walks_back():
    game = new_game(players=["red", "blue"])
    before = game.snapshot()
    do(game, "clank", player="red", n=2)
    do(game, "gold", player="blue", n=3)
    do(game, "undo")
    assert game.state.players["blue"].gold == 0 and game.state.area["red"] == 5
    do(game, "undo")
    assert game.snapshot() == before
    with pytest.raises(RuleError, match="nothing to undo"):
        do(game, "undo")


def test_an_undone_draw_stays_in_the_audit_and_its_nonce_is_never_reused():
    table = Table(make_setup({"edition": "clank", "players": ["red", "blue"]}), SEED)
    table.apply({"do": "clank", "player": "red", "n": 5})
    table.apply({"do": "attack"})
    first = table.snapshot()["draws"][0]
    table.apply({"do": "undo"})
    snap = table.snapshot()
    assert snap["draws"][0]["undone"] is True
    assert snap["clank_area"]["red"] == 8 and snap["bag"]["black"] == 24
    table.apply({"do": "attack"})
    draws = table.snapshot()["draws"]
    assert [d["nonce"] for d in draws] == [1, 2]
    assert draws[1]["bag"] == first["bag"]  # same bag, new nonce: a fresh draw
    assert "undone" not in draws[1]


def test_undo_cannot_reopen_a_finished_game():
    game = new_game(players=["red", "blue"])
    do(game, "artifact", player="red", value=5)
    do(game, "artifact", player="blue", value=7)
    do(game, "escape", player="red")
    do(game, "escape", player="blue")
    do(game, "cards", player="red", cards=["Ruby"])
    # once the seed is revealed nothing is undone (the log's verifiers accept only deck
    # declarations after the reveal): a declaration is corrected by declaring again
    with pytest.raises(RuleError, match="server seed is revealed"):
        do(game, "undo")
    do(game, "cards", player="red", cards=[])
    assert not game.state.players["red"].cards


def test_client_seed_is_fixed_after_the_first_draw():
    game = new_game(players=["red", "blue"])
    do(game, "seed", client_seed="04A1B2C3D4E5F6 07A1B2C3D4E5F6")
    assert game.state.client_seed.startswith("04A1")
    do(game, "attack")
    with pytest.raises(RuleError, match="cannot change once a draw"):
        do(game, "seed", client_seed="other")
    do(game, "undo")  # the attack
    with pytest.raises(RuleError, match="client seed is fixed"):
        do(game, "undo")
