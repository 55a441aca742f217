"""The table actions a game needed and the screen could not record: the artifacts removed
unseen at set-up (base game, 2-3 players), the Catacombs discount coupon and the
Catacombs deck-out. Each through the rules, the table script, the controller and the
touchscreen."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

os.environ.setdefault("KIVY_WINDOW", "sdl2")
from kivy.config import Config as KivyConfig  # noqa: E402

KivyConfig.set("graphics", "width", "800")
KivyConfig.set("graphics", "height", "480")

from companion.kinds.clank.checklist import setup_checklist  # noqa: E402
from companion.kinds.clank.controller import Controller, Update  # noqa: E402
from companion.kinds.clank.legal import legal_actions, table_actions  # noqa: E402
from companion.kinds.clank.rules import RuleError, make_setup  # noqa: E402
from companion.kinds.clank.table import Table  # noqa: E402
from companion.script import ScriptError, replay  # noqa: E402
from companion.session import Session  # noqa: E402
from companion.store import GameStore  # noqa: E402
from companion.store.tags import TagRegistry, resolve  # noqa: E402
from tests.helpers import companion_draws_seed, do, new_game, popup  # noqa: E402
from tests.test_rules_properties import COLOURS, actions, run_random_game  # noqa: E402

FOUR = ["red", "blue", "green", "yellow"]
SEED = "5eed" * 16
BASE_PILE = [5, 7, 10, 15, 20, 25, 30]


def offered(game, player: str, what: str) -> list[dict]:
    return [dict(o.action) for o in legal_actions(game, player) if o.what == what]


# ================================================== 1. the artifacts removed at set-up
def test_the_table_records_each_artifact_it_removed_and_nobody_is_offered_it():
    """Base game, two players: "before placing the artifacts, shuffle them face down and
    remove some at random ... with 2 players, two" (ru:109-115, es:41-46)."""
    game = new_game(players=FOUR[:2])
    removals = [o.action["artifact"] for o in table_actions(game) if o.what == "removed"]
    assert removals == BASE_PILE
    events = do(game, "removed", artifact=25)
    assert events == [{"event": "removed", "artifact": 25}]
    assert 25 not in game.state.artifacts_left and game.state.rage == game.setup.rage_start - 1
    assert game.snapshot()["settings"]["removed_artifacts"] == [25]
    assert {"do": "artifact", "player": "red", "value": 25} not in offered(game, "red", "artifact")
    with pytest.raises(RuleError, match="^artifact: the artifact worth 25 was removed at set-up"):
        do(game, "artifact", player="red", value=25)
    with pytest.raises(RuleError, match="^removed: the artifact worth 25 was removed at set-up"):
        do(game, "removed", artifact=25)
    do(game, "removed", artifact=7)
    assert game.snapshot()["settings"]["removed_artifacts"] == [25, 7]
    assert sorted(game.state.artifacts_left) == [5, 10, 15, 20, 30]
    assert [o for o in table_actions(game) if o.what == "removed"] == []  # all recorded
    with pytest.raises(RuleError, match="with 2 players the table removes 2 artifacts, and they"):
        do(game, "removed", artifact=5)
    do(game, "undo")  # undone like any action
    assert game.state.removed == (25,) and 7 in game.state.artifacts_left
    assert [o.n for o in table_actions(game) if o.what == "removed"] == [5, 7, 10, 15, 20, 30]


def test_three_players_remove_one_artifact():
    game = new_game(players=FOUR[:3])
    do(game, "removed", artifact=30)
    with pytest.raises(RuleError, match="with 3 players the table removes 1 artifact, and it is"):
        do(game, "removed", artifact=5)
    assert table_actions(game) == []


@pytest.mark.parametrize(
    ("edition", "players", "party"),
    [("clank", 4, False), ("catacombs", 2, False), ("catacombs", 3, False), ("clank", 5, True)],
)
def test_no_artifact_is_removed_where_no_rule_removes_one(edition, players, party):
    """Four players, the party's five and six, and Catacombs (one pile of seven,
    ru:238-240) remove none: the action is refused and the Menu does not offer it."""
    seats = [*FOUR, "purple", "orange"][:players]
    game = new_game(edition, players=seats, party=party)
    before = game.snapshot()
    with pytest.raises(RuleError, match=f"with {players} players no artifact is removed at set"):
        do(game, "removed", artifact=5)
    assert game.snapshot() == before
    assert [o for o in table_actions(game) if o.what == "removed"] == []


def test_a_removed_artifact_must_still_be_in_the_pile():
    game = new_game(players=FOUR[:2])
    with pytest.raises(RuleError, match="^removed: no artifact worth 12 is left"):
        do(game, "removed", artifact=12)
    do(game, "artifact", player="red", value=30)  # taken: it was not removed
    with pytest.raises(RuleError, match="^removed: no artifact worth 30 is left"):
        do(game, "removed", artifact=30)
    with pytest.raises(RuleError, match="'artifact' must be a whole number"):
        game.apply({"do": "removed", "artifact": "30"})
    with pytest.raises(RuleError, match="missing field 'artifact'"):
        game.apply({"do": "removed"})


def test_the_new_option_and_the_action_count_together():
    game = new_game(players=FOUR[:2], removed_artifacts=[25, 7])
    assert game.state.removed == (25, 7) and table_actions(game) == []
    with pytest.raises(RuleError, match="removes 2 artifacts, and they are recorded"):
        do(game, "removed", artifact=5)
    assert game.snapshot()["settings"]["removed_artifacts"] == [25, 7]


def test_a_game_that_records_nothing_is_as_before():
    game = new_game(players=FOUR[:2])
    assert game.state.removed == () and game.snapshot()["settings"]["removed_artifacts"] is None
    assert sorted(game.state.artifacts_left) == BASE_PILE


def test_the_checklist_names_what_is_recorded_and_says_how_to_record_the_rest():
    setup = make_setup({"edition": "clank", "players": FOUR[:2]})
    lines = setup_checklist(setup, (25,))
    assert "Remove 2 random artifacts unseen." in lines
    assert (
        "Once the game is under way, record the removed artifacts in the Menu: nobody is "
        "offered them then." in lines
    )
    assert "Removed at set-up: the artifact worth 25." in lines
    lines = setup_checklist(setup, (25, 7))
    assert not any(line.startswith(("Remove 2", "Once the game")) for line in lines)
    assert "Removed at set-up: the artifacts worth 25, 7." in lines
    three = setup_checklist(make_setup({"edition": "clank", "players": FOUR[:3]}))
    assert (
        "Once the game is under way, record the removed artifact in the Menu: nobody is "
        "offered it then." in three
    )


@st.composite
def games_with_removals(draw: st.DrawFn, edition: str) -> tuple[dict, list[dict]]:
    players = COLOURS[: draw(st.integers(2, 4))]
    removed = st.builds(
        lambda v: {"do": "removed", "artifact": v}, st.sampled_from([5, 7, 10, 12, 25, 30])
    )
    script = draw(st.lists(st.one_of(actions(edition, players), removed, removed), max_size=60))
    return {"edition": edition, "players": players}, script


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["clank", "catacombs"]).flatmap(games_with_removals))
def test_random_games_with_removals_keep_every_artifact_and_undo_cleanly(case):
    """Every artifact is in the pile, held by a player or removed, once; never more are
    removed than the rule removes; every refusal changes nothing and every undo restores
    the game as it was (the rules' property test, with the removals among its actions)."""
    run_random_game(case)
    options, script = case
    table = Table(make_setup(options), "ab" * 32)
    for action in script:
        with contextlib.suppress(RuleError):
            table.apply(action)
        s = table.game.state
        held = [v for p in s.players.values() for v in p.artifacts]
        pile = table.game.setup.artifact_pile()
        assert sorted([*s.artifacts_left, *held, *s.removed]) == sorted(pile)
        assert len(s.removed) <= table.game.setup.artifacts_to_remove()


# ================================================== 2. the discount coupon
def coupon_game(gold: int):
    game = new_game("catacombs", players=FOUR[:2])
    do(game, "prisoner", player="red", name="discount coupon")
    do(game, "gold", player="red", n=gold)
    return game


def test_the_coupon_is_offered_as_a_buy_five_gold_cheaper():
    """The coupon: "use this token once when buying at the market, to pay 5 gold less ...
    once used, put it back in the box" (Catacombs ru:83-89); the price is 7 (uk:349)."""
    game = coupon_game(3)
    buys = [(o.name, o.n, dict(o.action)) for o in legal_actions(game, "red") if o.what == "buy"]
    items = ["backpack", "blood amulet", "lockpick set", "crown"]  # the party's cloak: 5-6
    assert buys == [
        (name, 2, {"do": "buy", "item": name, "coupon": True, "player": "red"}) for name in items
    ]
    game.apply(buys[0][2])
    red = game.state.players["red"]
    assert red.gold == 1 and red.coupons == 0 and red.tokens["backpack"] == 1
    assert offered(game, "red", "buy") == []  # the coupon is used up
    with pytest.raises(RuleError, match="red has no discount coupon"):
        do(game, "buy", player="red", item="backpack", coupon=True)


def test_with_the_coupon_and_the_full_price_both_buys_are_offered():
    game = coupon_game(9)
    labels = [(o.name, o.n, o.action.get("coupon", False)) for o in legal_actions(game, "red")
              if o.what == "buy" and o.name == "backpack"]  # fmt: skip
    assert labels == [("backpack", 7, False), ("backpack", 2, True)]
    do(game, "buy", player="red", item="backpack")  # the full price keeps the coupon
    assert game.state.players["red"].gold == 2 and game.state.players["red"].coupons == 1


def test_no_coupon_no_coupon_buy():
    game = new_game("catacombs", players=FOUR[:2])
    do(game, "gold", player="red", n=20)
    assert not [o for o in legal_actions(game, "red") if o.action.get("coupon")]
    base = new_game(players=FOUR[:2])
    do(base, "gold", player="red", n=20)
    assert not [o for o in legal_actions(base, "red") if o.action.get("coupon")]
    game = coupon_game(1)  # 2 gold even with the coupon
    assert offered(game, "red", "buy") == []
    with pytest.raises(RuleError, match="backpack costs 2 gold; red has 1"):
        do(game, "buy", player="red", item="backpack", coupon=True)


# ================================================== 3. the Catacombs deck-out
def test_the_deck_out_knocks_out_everyone_inside_and_scores_as_the_rulebook_says():
    """The deck-out: "in the rare case that the dungeon deck has too few cards to refill
    the row, all remaining players are knocked out at once and the game ends" (ru:876-880,
    uk:541); who scores: an artifact, and not knocked out in the Depths (ru:1022-1023)."""
    game = new_game("catacombs", players=FOUR[:3])
    assert [o.what for o in table_actions(game)] == ["deck_out"]
    assert table_actions(game, opening=True) == []
    do(game, "artifact", player="red", value=20)
    do(game, "artifact", player="blue", value=5)
    do(game, "depths", player="blue", **{"in": True})
    draws = len(game.draws)
    events = do(game, "deck_out")
    assert [e["event"] for e in events] == ["knocked_out"] * 3 + ["game_over"]
    assert [e.get("in_depths") for e in events[:3]] == [False, True, False]
    snap = game.snapshot()
    assert snap["game_over"] and snap["end_reason"] == "the dungeon deck cannot refill the row"
    assert {p["status"] for p in snap["players"].values()} == {"knocked_out"}
    assert len(game.draws) == draws  # no attack: the game ended before step 3
    scores = game.scores()
    assert scores["red"].qualifies and scores["red"].total == 20  # no mastery token
    assert not scores["blue"].qualifies and not scores["green"].qualifies
    assert table_actions(game) == []
    with pytest.raises(RuleError, match="^deck_out: the game is over"):
        do(game, "deck_out")


def test_the_deck_out_is_only_catacombs():
    game = new_game(players=FOUR[:2])
    assert table_actions(game) and all(o.what == "removed" for o in table_actions(game))
    with pytest.raises(RuleError, match="^deck_out: only in Clank! Catacombs"):
        do(game, "deck_out")


# ================================================== the table script
def script(tmp_path: Path, *lines: dict) -> Path:
    path = tmp_path / "game.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    return path


def test_the_table_script_plays_the_new_actions(tmp_path):
    path = script(
        tmp_path,
        {"new": {"edition": "clank", "players": ["red", "blue"], "server_seed": SEED}},
        {"do": "removed", "artifact": 30},
        {"do": "removed", "artifact": 5},
        {"do": "artifact", "player": "red", "value": 25},
    )
    out = replay(path).output()
    assert out["settings"]["removed_artifacts"] == [30, 5]
    assert out["players"]["red"]["artifacts"] == [25] and out["actions"] == 3
    bad = script(
        tmp_path,
        {"new": {"edition": "clank", "players": ["red", "blue"], "server_seed": SEED}},
        {"do": "removed", "artifact": 30},
        {"do": "artifact", "player": "red", "value": 30},
    )
    with pytest.raises(ScriptError, match="line 3: artifact: the artifact worth 30 was removed"):
        replay(bad)
    out = replay(bad, keep_going=True).output()
    assert out["errors"] == [
        {"line": 3, "reason": "artifact: the artifact worth 30 was removed at set-up"}
    ]


def test_the_table_script_buys_with_the_coupon_and_ends_by_the_deck_out(tmp_path):
    new = {"edition": "catacombs", "players": ["red", "blue"], "server_seed": SEED}
    path = script(
        tmp_path,
        {"new": new},
        {"do": "prisoner", "player": "red", "name": "discount coupon"},
        {"do": "gold", "player": "red", "n": 2},
        {"do": "buy", "player": "red", "item": "crown", "coupon": True},
        {"do": "artifact", "player": "red", "value": 10},
        {"do": "deck_out"},
    )
    out = replay(path).output()
    red = out["players"]["red"]
    assert red["gold"] == 0 and red["crowns"] == [10] and red["status"] == "knocked_out"
    assert out["game_over"] and out["end_reason"] == "the dungeon deck cannot refill the row"
    assert out["server_seed"] == SEED and out["draws"] == []
    assert out["ranking"][0]["player"] == "red"


def test_a_recorded_game_resumes_with_its_removed_artifacts(tmp_path):
    store = GameStore(tmp_path / "games.db")
    try:
        new = {"edition": "clank", "players": ["red", "blue", "green"], "server_seed": SEED}
        path = script(tmp_path, {"new": new}, {"do": "removed", "artifact": 20})
        before = replay(path, start=Session(store).start).output()
    finally:
        store.close()
    again = GameStore(tmp_path / "games.db")
    try:
        table = Session(again).resume(1)
        assert table.snapshot()["settings"]["removed_artifacts"] == [20]
        assert table.snapshot()["players"] == before["players"]
        with pytest.raises(RuleError, match="removed at set-up"):
            table.apply({"do": "artifact", "player": "red", "value": 20})
    finally:
        again.close()


# ================================================== the controller
@pytest.fixture
def controller(tmp_path):
    store = GameStore(tmp_path / "games.db")
    registry = TagRegistry(store.db)
    registry.bind("A0000000", resolve("artifact", "clank", "20"))
    for n, name in enumerate(["Ladder", "Tattle", "Sneak"]):
        registry.bind(f"0{n}000000", resolve("card", "clank", name))
    ctl = Controller(store, registry=registry)
    heard: list[Update] = []
    ctl.listeners.append(heard.append)
    yield ctl, heard
    store.close()


def test_a_removal_recorded_in_the_opening_keeps_the_opening_going(controller):
    """The Menu's removal is no move of a player: the opening row being dealt stays, and
    its undo too; a scanned artifact is taken as ever, in play refused once removed."""
    ctl, heard = controller
    ctl.new_game({"edition": "clank", "players": ["red", "blue"], "server_seed": SEED})
    assert [o.n for o in ctl.table_offers()] == BASE_PILE
    assert ctl.do({"do": "removed", "artifact": 25})
    assert ctl.phase == "opening" and ctl.table.game.state.removed == (25,)
    assert heard[-1].message == "the artifact 25 was removed at set-up"
    assert "Removed at set-up: the artifact worth 25." in ctl.checklist()
    assert ctl.undo()  # the opening goes on
    assert ctl.phase == "opening" and ctl.table.game.state.removed == ()
    ctl.scan("00000000")
    assert ctl.do({"do": "removed", "artifact": 20})
    ctl.scan("01000000")
    assert ctl.phase == "opening" and ctl.view().opening == ("Ladder", "Tattle")
    assert ctl.begin() and ctl.phase == "playing"
    assert ctl.snapshot()["row"] == ["Ladder", "Tattle"]
    assert not [o for o in ctl.offers("red") if o.what == "artifact" and o.n == 20]
    ctl.scan("A0000000")  # red takes it: refused
    assert heard[-1].kind == "rejected"
    assert heard[-1].message == "the artifact worth 20 was removed at set-up"
    assert [o.n for o in ctl.table_offers()] == [5, 7, 10, 15, 25, 30]  # one more to record


def test_a_removal_where_none_is_removed_is_refused_and_the_opening_stays(controller):
    ctl, heard = controller
    ctl.new_game({"edition": "clank", "players": FOUR, "server_seed": SEED})
    ctl.scan("00000000")
    actions = ctl.table.actions_seen
    assert ctl.table_offers() == []
    assert not ctl.do({"do": "removed", "artifact": 20})
    assert heard[-1].kind == "rejected"
    assert heard[-1].message == "with 4 players no artifact is removed at set-up"
    assert ctl.phase == "opening" and ctl.view().opening == ("Ladder",)
    assert ctl.table.actions_seen == actions


def test_the_controller_offers_the_coupon_buy_and_says_so(controller):
    ctl, heard = controller
    ctl.new_game({"edition": "catacombs", "players": ["red", "blue"], "server_seed": SEED})
    assert ctl.begin()
    ctl.do({"do": "prisoner", "player": "red", "name": "discount coupon"})
    ctl.do({"do": "gold", "player": "red", "n": 2})
    coupon = next(o for o in ctl.offers("red") if o.what == "buy" and o.name == "backpack")
    assert coupon.n == 2 and coupon.action["coupon"] is True
    assert ctl.do(dict(coupon.action))
    assert heard[-1].message == "red bought backpack with the coupon"
    assert ctl.snapshot()["players"]["red"]["gold"] == 0


def test_no_table_offers_outside_the_opening_and_play(controller):
    ctl, heard = controller
    assert ctl.table_offers() == []
    ctl.new_game({"edition": "catacombs", "players": ["red", "blue"], "server_seed": SEED})
    assert ctl.table_offers() == []  # the opening: Catacombs removes nothing
    assert ctl.begin() and [o.what for o in ctl.table_offers()] == ["deck_out"]
    assert ctl.do({"do": "deck_out"}) and ctl.phase == "scoring"
    assert ctl.table_offers() == []


# ================================================== the touchscreen
@pytest.fixture
def ui(tmp_path, monkeypatch):
    from companion.kinds.clank.screens.attack import AttackView
    from companion.ui.harness import Harness

    monkeypatch.setenv("CLANK_CONFIG", str(tmp_path / "config.toml"))
    monkeypatch.setattr(AttackView, "STEP", 3600.0)
    harness = Harness(tmp_path / "games.db")
    yield harness
    harness.close()


def playing(ui, edition: str, *players: str) -> Controller:
    ctl = ui.app.controller
    with companion_draws_seed(SEED):
        ctl.new_game({"edition": edition, "players": list(players)})
    ctl.begin()
    ui.frames(2)
    return ctl


def more(ui, player: str) -> None:
    ui.on_panel(player)  # the panel opens the player's actions


def test_the_menu_records_the_artifacts_removed_at_set_up(ui):
    from companion.ui.screens.popups import Picker

    ctl = playing(ui, "clank", "red", "blue")
    ui.tap("Menu")
    ui.tap("Artifact removed at set-up")
    assert popup(ui, Picker).title == "Which artifact was removed at set-up?"
    ui.tap("Artifact 30")
    assert ctl.table.game.state.removed == (30,)
    assert ctl.view().last == "the artifact 30 was removed at set-up"
    more(ui, "red")
    with pytest.raises(LookupError):
        ui.find("Artifact 30")  # red's menu no longer offers it
    ui.tap("Artifact 25")  # the others are still offered
    assert ctl.snapshot()["players"]["red"]["artifacts"] == [25]
    ui.tap("Menu")
    ui.tap("Artifact removed at set-up")
    with pytest.raises(LookupError):
        ui.find("Artifact 25")  # taken: not in the pile any more
    ui.tap("Artifact 5")
    assert ctl.table.game.state.removed == (30, 5)
    ui.tap("Menu")
    with pytest.raises(LookupError):
        ui.find("Artifact removed at set-up")  # both recorded
    ui.tap("Close")
    ui.tap("Undo")  # no draw in it: taken back at once
    assert ctl.table.game.state.removed == (30,)


def test_the_catacombs_deck_out_asks_first_then_ends_the_game(ui):
    from companion.ui.screens.popups import INERT, Confirm

    ctl = playing(ui, "catacombs", "red", "blue")
    ctl.do({"do": "artifact", "player": "red", "value": 10})
    ctl.end_turn()  # the refill opens; the deck runs out in it
    ctl.scan_component(resolve("card", "catacombs", "Bandit"))
    assert ctl.refill == ["Bandit"]
    ui.tap("Menu")
    ui.tap("The dungeon deck cannot refill the row: end the game")
    confirm = popup(ui, Confirm)
    assert confirm.question == "The dungeon deck is empty: the game ends. Go on?"
    assert "server seed is revealed" in confirm.note
    assert ctl.phase == "playing"  # one tap does not end it
    ui.frames(2, seconds=INERT + 0.1)  # the answer takes taps after a moment
    ui.tap("Yes, end the game")
    assert ctl.phase == "scoring" and ctl.refill is None
    snap = ctl.snapshot()
    assert snap["end_reason"] == "the dungeon deck cannot refill the row"
    assert snap["draws"] == [] and snap["server_seed"] == SEED


def test_the_base_game_menu_has_no_deck_out(ui):
    playing(ui, "clank", "red", "blue", "green", "yellow")
    ui.tap("Menu")
    ui.find("Dragon attack (card effect)")
    for entry in ("The dungeon deck cannot refill the row: end the game",
                  "Artifact removed at set-up"):  # fmt: skip
        with pytest.raises(LookupError):
            ui.find(entry)


def test_the_players_menu_buys_with_the_coupon(ui):
    ctl = playing(ui, "catacombs", "red", "blue")
    ctl.do({"do": "prisoner", "player": "red", "name": "discount coupon"})
    ctl.do({"do": "gold", "player": "red", "n": 8})
    more(ui, "red")
    ui.find("Buy backpack (7 gold)")
    ui.tap("Buy backpack with the coupon (2 gold)")
    red = ctl.snapshot()["players"]["red"]
    assert red["gold"] == 6 and red["tokens"]["backpack"] == 1
    assert ctl.view().last == "red bought backpack with the coupon"
    more(ui, "red")
    with pytest.raises(LookupError):
        ui.find("Buy backpack with the coupon (2 gold)")
