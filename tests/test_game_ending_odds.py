"""The two dragon steps that end the game whatever the cubes, and their odds.

TABLE_SCRIPT.md ("The next attack's odds"): the countdown marker moving to its last space
(Clank!) knocks out everyone still in the dungeon and draws nothing; in Catacombs a draw
that takes the whole bag ends the game and knocks out everyone inside. For such a step
every player inside has ``knock_out`` 1, ``damage`` puts all its weight on its last
entry, and the odds say ``"ends_game": true`` (the countdown's last move: ``"count": 0``).
The expectations here are computed from the rules' text, not from companion.kinds.clank.rules.odds.
"""

from __future__ import annotations

import json
from fractions import Fraction
from math import comb
from pathlib import Path
from typing import Any

import pytest

from companion.cli import main
from companion.kinds.clank.controller import Controller
from companion.kinds.clank.rules.odds import next_attack_odds, next_step, odds_json
from companion.store import GameStore
from tests.helpers import ScriptedChance, do, new_game

F = Fraction
SEED = "5a" * 32


def capped(total: int, hurting: int, drawn: int, health: int) -> list[Fraction]:
    """P(losing k health), k = 0 .. health: ``hurting`` of ``total`` cubes cost 1 health
    each, ``drawn`` taken without replacement, the loss capped at ``health``."""
    ways = comb(total, drawn)
    exact = [
        F(comb(hurting, k) * comb(total - hurting, drawn - k), ways) if k <= drawn else F(0)
        for k in range(health)
    ]
    return [*exact, 1 - sum(exact)]


def knocked_out(health: int) -> list[Fraction]:
    return [F(0)] * health + [F(1)]


def damages(odds: Any) -> dict[str, list[Fraction]]:
    return {name: list(po.damage) for name, po in odds.players.items()}


# ------------------------------------------------------------- Clank!: the countdown
def countdown_game(space: int) -> Any:
    """Four players; red escapes at once and the countdown marker is moved to ``space``
    (each countdown attack draws only black cubes)."""
    chance = ScriptedChance(*[["black"] * n for n in (3, 4, 5)])
    game = new_game("clank", players=["red", "yellow", "green", "blue"], chance=chance)
    do(game, "artifact", player="red", value=20)
    do(game, "escape", player="red")
    do(game, "end_turn", revealed=[])  # red's turn ends: yellow plays
    while game.state.countdown.space < space:
        for _ in range(3):  # yellow, green, blue; then red's seat moves the marker
            do(game, "end_turn", revealed=[])
    assert game.state.countdown.space == space and not game.state.game_over
    return game


@pytest.mark.parametrize("space", [1, 2, 3])
def test_the_countdown_s_next_step_draws_its_extra_cubes(space):
    game = countdown_game(space)
    s = game.state
    # rage: red took an artifact (+1) from space 1 (four players): 2 cubes; the step to
    # space k + 1 draws k more
    count = 2 + space
    odds = next_attack_odds(game)
    assert odds is not None
    assert (odds.reason, odds.count, odds.ends_game) == ("countdown", count, False)
    total = sum(s.bag.values()) + sum(s.area.values())
    for name in ("yellow", "green", "blue"):
        p = s.players[name]
        mine = s.bag[name] + s.area[name]
        assert list(odds.players[name].damage) == capped(total, mine, count, 10 - p.damage)
    assert "red" not in odds.players


def test_the_countdown_s_last_step_knocks_out_everyone_inside_and_draws_nothing():
    game = countdown_game(4)
    do(game, "clank", player="yellow", n=5)  # noise changes nothing: nothing is drawn
    odds = next_attack_odds(game)
    assert odds is not None
    assert (odds.reason, odds.count, odds.ends_game) == ("countdown", 0, True)
    health = {n: 10 - game.state.players[n].damage for n in ("yellow", "green", "blue")}
    assert damages(odds) == {n: knocked_out(h) for n, h in health.items()}
    assert all(po.knock_out == 1 for po in odds.players.values())
    out = odds_json(odds)
    assert out["ends_game"] is True and out["count"] == 0 and out["reason"] == "countdown"
    assert out["players"]["yellow"] == {"damage": [0.0] * health["yellow"] + [1.0],
                                        "knock_out": 1.0}  # fmt: skip
    # and so it goes: the next pass of red's seat ends the game, every one inside out
    draws = len(game.draws)
    for _ in range(3):
        do(game, "end_turn", revealed=[])
    s = game.state
    assert s.game_over and s.end_reason == "the countdown reached its last space"
    assert len(game.draws) == draws  # nothing was drawn
    assert all(s.players[n].status == "knocked_out" for n in health)
    assert next_attack_odds(game) is None


def test_the_refill_attack_odds_stay_before_anyone_is_out():
    game = new_game("clank", players=["red", "yellow", "green", "blue"])
    step = next_step(game)
    assert step is not None and (step.reason, step.count, step.ends_game) == ("attack", 2, False)


# ------------------------------------------------------- Catacombs: the whole bag
def test_a_catacombs_attack_that_takes_the_whole_bag_ends_the_game():
    # 24 black + red 3 + blue 2 in the Clank! area = 29 cubes; the track draws 29
    game = new_game("catacombs", players=["red", "blue"], rage_track=[29], rage_start=1)
    odds = next_attack_odds(game)
    assert odds is not None
    assert (odds.reason, odds.count, odds.ends_game) == ("attack", 29, True)
    assert damages(odds) == {"red": knocked_out(10), "blue": knocked_out(10)}
    assert odds_json(odds)["ends_game"] is True
    # and it does: every cube is drawn, the bag is empty, everyone inside is out
    everything = ["black"] * 24 + ["red"] * 3 + ["blue"] * 2
    game = new_game(
        "catacombs",
        players=["red", "blue"],
        chance=ScriptedChance(everything),
        rage_track=[29],
        rage_start=1,
    )
    do(game, "attack")
    s = game.state
    assert s.game_over and s.end_reason == "the dragon bag is empty"
    assert s.players["red"].status == s.players["blue"].status == "knocked_out"


def test_one_cube_left_in_the_bag_is_an_ordinary_attack():
    game = new_game("catacombs", players=["red", "blue"], rage_track=[28], rage_start=1)
    odds = next_attack_odds(game)
    assert odds is not None
    assert (odds.reason, odds.count, odds.ends_game) == ("attack", 28, False)
    # 29 cubes, 28 drawn: red (3 cubes) loses 2 or 3, blue (2 cubes) 1 or 2
    assert list(odds.players["red"].damage) == capped(29, 3, 28, 10)
    assert odds.players["red"].damage[3] == F(26, 29)
    assert odds.players["blue"].damage[2] == F(27, 29)
    assert odds_json(odds)["ends_game"] is False


def test_a_ghost_drawn_with_the_whole_bag_still_ends_the_game():
    """The ghosts drawn go back to the Clank! area, not into the bag: the bag is empty."""
    game = new_game("catacombs", players=["red", "blue"], rage_track=[30], rage_start=1)
    do(game, "ghost")  # 30 cubes now
    odds = next_attack_odds(game)
    assert odds is not None and (odds.count, odds.ends_game) == (30, True)


def test_an_out_player_s_draw_that_takes_the_whole_bag_ends_the_game():
    """Blue is out: the next sure draw is blue's, 6 cubes with two players; with 6
    cubes or fewer in the bag and the Clank! area it takes them all."""
    draws = ScriptedChance(["black"] * 20, ["black"] * 4)
    game = new_game("catacombs", players=["red", "blue"], chance=draws, rage_track=[20])
    do(game, "clank", player="red", n=-3)  # red's cubes back to supply
    do(game, "attack")  # 20 of the 26 cubes: 24 black + blue 2
    do(game, "damage", player="blue", n=10)  # blue is knocked out
    s = game.state
    assert sum(s.bag.values()) + sum(s.area.values()) == 6
    odds = next_attack_odds(game)
    assert odds is not None
    assert (odds.reason, odds.count, odds.ends_game) == ("out_draw", 6, True)
    assert damages(odds) == {"red": knocked_out(10)}
    do(game, "clank", player="red", n=1)  # 7 cubes: the draw leaves one
    odds = next_attack_odds(game)
    assert odds is not None and (odds.reason, odds.count, odds.ends_game) == ("out_draw", 6, False)
    # red's one cube among 7, 6 drawn: drawn unless it is the one left
    assert list(odds.players["red"].damage) == [F(1, 7), F(6, 7), *[F(0)] * 9]


def test_the_base_game_goes_on_when_the_bag_runs_out():
    game = new_game("clank", players=["red", "blue"], rage_track=[29], rage_start=1)
    odds = next_attack_odds(game)
    assert odds is not None and (odds.count, odds.ends_game) == (29, False)
    assert list(odds.players["red"].damage) == capped(29, 3, 29, 10)
    assert odds.players["red"].damage[3] == 1  # every cube drawn: red's 3 for sure


# ---------------------------------------------------------- replay --json
def _replay(tmp_path: Path, capsys: Any, *lines: dict[str, Any]) -> dict[str, Any]:
    path = tmp_path / "game.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    code = main(["replay", str(path), "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def test_replay_json_says_the_countdown_s_last_step_ends_the_game(tmp_path, capsys):
    new = {"new": {"edition": "clank", "players": ["red", "blue"], "server_seed": SEED}}
    turns = [{"do": "end_turn", "revealed": []}] * 4  # red's, then blue's three
    start = [{"do": "artifact", "player": "red", "value": 20}, {"do": "escape", "player": "red"}]
    state = _replay(tmp_path, capsys, new, *start, *turns[:3])
    assert state["countdown"] == {"player": "red", "space": 3}
    odds = state["odds"]
    assert odds["ends_game"] is False and odds["reason"] == "countdown"
    assert odds["count"] == state["next_attack"] + 3
    state = _replay(tmp_path, capsys, new, *start, *turns)
    assert state["countdown"] == {"player": "red", "space": 4} and not state["game_over"]
    odds = state["odds"]
    assert odds["ends_game"] is True and odds["count"] == 0 and odds["reason"] == "countdown"
    health = state["players"]["blue"]["health"]
    assert odds["players"] == {"blue": {"damage": [0.0] * health + [1.0], "knock_out": 1.0}}


def test_replay_json_says_the_draw_that_empties_the_bag_ends_the_game(tmp_path, capsys):
    new = {"new": {"edition": "catacombs", "players": ["red", "blue"], "server_seed": SEED,
                   "rage_track": [29], "rage_start": 1}}  # fmt: skip
    odds = _replay(tmp_path, capsys, new)["odds"]
    assert odds["ends_game"] is True and odds["count"] == 29 and odds["reason"] == "attack"
    assert odds["players"]["red"] == {"damage": [0.0] * 10 + [1.0], "knock_out": 1.0}
    state = _replay(tmp_path, capsys, new, {"do": "clank", "player": "red", "n": 1})
    odds = state["odds"]  # 30 cubes, 29 drawn: not the whole bag
    assert odds["ends_game"] is False and odds["count"] == 29
    assert odds["players"]["red"]["damage"][4] == pytest.approx(float(F(26, 30)), abs=1e-12)
    state = _replay(tmp_path, capsys, new, {"do": "attack"})
    assert state["game_over"] and "odds" not in state
    assert {p["status"] for p in state["players"].values()} == {"knocked_out"}


# --------------------------------------------------------------- the view
def test_the_view_tells_the_step_that_ends_the_game(tmp_path):
    with GameStore(tmp_path / "games.db") as store:
        ctl = Controller(store)
        ctl.new_game({"edition": "clank", "players": ["red", "blue"], "server_seed": SEED})
        ctl.begin()
        view = ctl.view()
        assert view.odds_reason == "attack" and not view.odds_ends_game
        ctl.do({"do": "artifact", "player": "red", "value": 20})
        ctl.do({"do": "escape", "player": "red"})
        for _ in range(4):
            ctl.do({"do": "end_turn", "revealed": []})
        view = ctl.view()
        assert view.countdown == ("red", 4)
        assert (view.odds_reason, view.odds_count, view.odds_ends_game) == ("countdown", 0, True)
        blue = view.player("blue")
        assert blue.knock_out == 1.0 and blue.odds == (0.0,) * blue.health + (1.0,)
        assert blue.expected_damage == blue.health
        assert not view.player("red").odds  # out: no odds

    with GameStore(tmp_path / "catacombs.db") as store:
        ctl = Controller(store)
        ctl.new_game({"edition": "catacombs", "players": ["red", "blue"], "server_seed": SEED,
                      "rage_track": [29], "rage_start": 1})  # fmt: skip
        ctl.begin()
        view = ctl.view()
        assert (view.odds_reason, view.odds_count, view.odds_ends_game) == ("attack", 29, True)
        assert {p.knock_out for p in view.players} == {1.0}
        ctl.clank(1, "red")
        assert not ctl.view().odds_ends_game  # 30 cubes: one stays in the bag


@pytest.mark.parametrize("draw", [26, 27, 28, 29, 30])
@pytest.mark.parametrize("ghosts", [0, 2])
def test_ends_game_says_exactly_when_the_catacombs_attack_ends_it(draw, ghosts):
    """Said before, seen after: the odds say the game ends exactly when the attack, played
    out, leaves the bag empty and everyone knocked out."""
    game = new_game("catacombs", players=["red", "blue"], rage_track=[draw], rage_start=1)
    for _ in range(ghosts):
        do(game, "ghost")
    odds = next_attack_odds(game)
    assert odds is not None
    do(game, "attack")  # the bag's first cubes (tests.helpers.first_cubes)
    s = game.state
    assert odds.ends_game == s.game_over == (s.end_reason == "the dragon bag is empty")
    assert odds.ends_game == (draw >= 29 + ghosts)
    if odds.ends_game:
        assert all(p.status == "knocked_out" for p in s.players.values())
