"""The Tschak! controller without Kivy: scans and taps become TschakGame actions, every
refusal leaves the game unchanged and says why, the verdict names its reason, the
running totals stay hidden until the table turns them on, and the catalog check keeps
the table's corrections for the next games."""

from __future__ import annotations

import pytest

from companion.i18n import set_language
from companion.kinds.tschak.catalog_check import (
    CATALOG_COLUMNS,
    CatalogCheck,
    default_catalog_path,
)
from companion.kinds.tschak.control import TschakControl
from companion.kinds.tschak.table import TschakTable
from companion.kinds.tschak.views import Update
from companion.session import Session
from companion.store import GameStore
from companion.store.tags import Component, TagRegistry
from tests.test_tschak_support import example_actions


class Heard:
    def __init__(self, control: TschakControl) -> None:
        self.updates: list[Update] = []
        control.listeners.append(self.updates.append)

    @property
    def last(self) -> Update:
        return self.updates[-1]


def started(players=("red", "blue", "green"), **settings) -> TschakControl:
    control = TschakControl()
    assert control.prepare(list(players))
    for key, value in settings.items():
        assert control.set_setting(key, value)
    assert control.start()
    return control


def set_out(control: TschakControl, monsters, treasures) -> None:
    for card in [*monsters, *treasures]:
        assert control.scan_card(card), control.last
    assert control.set_out_tower(), control.last


def play_floor(control: TschakControl, teams: dict[str, list[str]]) -> bool:
    for player, cards in teams.items():
        for card in cards:
            assert control.add_card(card, player), control.last
    return control.resolve_floor()


# ------------------------------------------------------------------ a whole game
def test_a_whole_game_through_the_controller_is_the_script_game():
    control = started()
    heard = Heard(control)
    for action in example_actions():
        if action["do"] == "tower":
            set_out(control, action["monsters"], action["treasures"])
            assert control.phase == "floor"
        elif action["do"] == "floor":
            for player, cards in action["teams"].items():
                control.select(player)
                for card in cards:
                    assert control.scan_card(card), control.last  # to the chosen player
            assert control.view().can_resolve
            assert control.resolve_floor(), control.last
            assert control.phase == "verdict"
            control.go_on()
        elif action["do"] == "trophies":
            known = {t.player: t.known for t in control.view().teams}
            for player, card in action["last"].items():
                if known[player] is None:
                    assert control.add_card(card, player)
                else:
                    assert known[player].notation == card  # the tracked hand knows it
            assert control.resolve_trophies(), control.last
            assert control.phase == "trophy_verdict"
            control.go_on()
        else:
            assert control.choose_elixir(action["player"], action["discard"])
    script = TschakTable({"edition": "tschak", "players": ["red", "blue", "green"]})
    for action in example_actions():
        script.apply(action)
    assert control.snapshot() == script.snapshot()
    view = control.view()
    assert view.phase == "over" and view.final is not None
    winner = script.snapshot()["winners"][0]
    assert view.final.winner_text.startswith(winner.capitalize() + " wins with ")
    assert [c.player for c in view.final.columns] == [
        r["player"] for r in script.snapshot()["ranking"]
    ]
    assert heard.last.kind == "action"


def test_the_verdict_names_the_tie_step_and_the_breakdown():
    control = started(("red", "blue"))
    set_out(control, ["monster:3", "troglodyte", "monster:1"], ["chest:4", "ring", "elixir"])
    assert play_floor(control, {"red": ["M4s", "W3", "D2x"], "blue": ["M4", "W3a", "D2u"]})
    verdict = control.view().verdict
    assert verdict is not None
    strengths = {t.player: t.strength for t in verdict.teams}
    assert strengths == {"red": 9, "blue": 9}
    takes = {t.player: t.takes for t in verdict.teams}
    assert takes == {"red": "treasure", "blue": "monster"}
    assert verdict.reasons[0] == (
        "Red 9 = Blue 9: Red (mage 4 with a staff) beats Blue (mage 4 without a staff); "
        "Red takes chest, 4 gold"
    )
    control.go_on()
    # TF-4: the artifact doubles the chameleon, which copies the opposing mage 2
    assert play_floor(control, {"red": ["Mc", "W5a", "A"], "blue": ["M2", "W1", "D1u"]})
    verdict = control.view().verdict
    red = next(t for t in verdict.teams if t.player == "red")
    assert red.strength == 9 and red.takes == "treasure"
    assert red.detail == "Chameleon = 2 (copies Blue) ×2 = 4"


def test_a_refusal_changes_nothing_and_says_why():
    control = started(("red", "blue"))
    heard = Heard(control)
    before = control.snapshot()
    assert not control.set_out_tower()  # the floors are empty
    assert heard.last.kind == "rejected"
    assert heard.last.message == "every floor needs its monster and its treasure"
    assert not control.scan_card("M5s")  # a hero before the tower
    assert "first set out the tower" in heard.last.message
    assert control.scan_card("elixir")
    assert not control.scan_card("elixir")  # the box has one
    assert heard.last.message == "no elixir is left in the box"
    assert not control.set_slot("monsters", 1, "ring")
    assert heard.last.message == "ring of Power is a treasure: it goes in a treasure's slot"
    assert not control.set_slot("treasures", 2, "no such card")
    assert heard.last.kind == "rejected"
    assert control.snapshot() == before  # nothing reached the game
    for card in ["monster:3", "troglodyte", "monster:1", "chest:4", "ring"]:
        assert control.scan_card(card)
    assert control.set_out_tower()
    # a team with two mages: the table sees it, the team takes the penalty (T-X1)
    assert control.add_card("M4", "red") and control.add_card("M5", "red")
    team = control.view().teams[0]
    assert team.state == "illegal" and team.misplay
    assert heard.last.message.startswith("Red: two mage cards!")
    assert not control.view().can_resolve
    before = control.snapshot()
    assert not control.resolve_floor()
    assert control.snapshot() == before
    control.remove_card("red", 1)
    assert control.add_card("W3", "red") and control.add_card("D2x", "red")
    assert control.add_card("M2", "blue") and control.add_card("W1", "blue")
    assert control.add_card("D1u", "blue")
    assert control.resolve_floor()
    record = control.snapshot()["floors"][-1]
    assert record["misplays"] == ["red"] and record["monster"]["to"] == "red"
    control.go_on()
    # the same mage cannot come out twice in a tower: the rules refuse it as it is
    # entered, naming the player (not at Resolve), and the picker never offers it
    before = control.snapshot()
    assert "M4" not in control.hand_choices("red") and "M3" in control.hand_choices("red")
    assert not control.add_card("M4", "red")
    assert heard.last.kind == "rejected" and heard.last.message.startswith("Red: mage 4")
    assert control.snapshot() == before and control.teams.get("red", []) == []
    assert control.phase == "floor"


def test_an_unbreakable_tie_asks_the_table_who_is_stronger():
    control = started(("red", "blue"), check_cards=False)
    heard = Heard(control)
    set_out(control, ["monster:3", "troglodyte", "monster:1"], ["chest:4", "ring", "elixir"])
    before = control.snapshot()
    assert not play_floor(control, {"red": ["Mc", "W5a", "D3u"], "blue": ["Mc", "W5a", "D3u"]})
    view = control.view()
    assert control.snapshot() == before and view.question is not None
    assert view.question.players == (("red", "Red"), ("blue", "Blue"))
    assert "still tied after the dwarves" in view.question.text
    assert not view.can_resolve
    assert control.answer_tie("blue")
    record = control.snapshot()["floors"][-1]
    assert record["treasure"]["to"] == "blue" and record["monster"]["to"] == "red"
    assert "the table decided" in control.view().verdict.reasons[0]
    assert heard.last.kind == "action"


def test_undo_takes_back_the_last_card_then_the_floor_with_its_teams():
    control = started(("red", "blue"))
    heard = Heard(control)
    set_out(control, ["monster:3", "troglodyte", "monster:1"], ["chest:4", "ring", "elixir"])
    teams = {"red": ["M4s", "W3", "D2x"], "blue": ["M4", "W3a", "D2u"]}
    assert play_floor(control, teams)
    assert control.undo()
    assert heard.last.message == ("Undo: floor 1 of tower 1 taken back: correct the teams")
    assert control.phase == "floor" and control.snapshot()["floors"] == []
    assert control.teams == teams  # back on screen, to be corrected
    assert control.undo()  # the card entered last
    assert control.teams["blue"] == ["M4", "W3a"]
    assert heard.last.message == "Blue: dwarf 2, unarmed taken back"
    assert control.add_card("D1u", "blue") and control.resolve_floor()
    assert control.snapshot()["floors"][0]["teams"]["blue"] == ["M4", "W3a", "D1u"]


def test_running_totals_stay_hidden_until_the_table_turns_them_on():
    control = started(("red", "blue"))
    set_out(control, ["monster:3", "troglodyte", "monster:1"], ["chest:4", "ring", "elixir"])
    assert play_floor(control, {"red": ["M5s", "W3", "D2x"], "blue": ["M4", "W3a", "D2u"]})
    control.go_on()
    assert all(t.score == "" for t in control.view().teams)
    control.toggle_scores()
    scores = {t.player: t.score for t in control.view().teams}
    assert scores == {"red": "4 VP so far", "blue": "-3 VP so far"}
    assert control.view().totals == "Running totals (VP): Red +4 · Blue −3"
    control.toggle_scores()
    assert all(t.score == "" for t in control.view().teams)


def test_a_scan_finds_its_player_when_the_hands_are_tracked():
    control = started()
    actions = example_actions()
    for action in actions[:5]:  # the first tower, its trophies: the hands are known now
        assert control.do(action) is not None
    control.showing = None
    set_out(control, actions[5]["monsters"], actions[5]["treasures"])
    control.select("red")
    assert "W5" in actions[6]["teams"]["green"]
    assert control.scan_card("W5")  # only green's tracked hand holds it
    assert control.teams == {"green": ["W5"]}
    left = list(control.game.known_hand("green"))
    left.remove("W5")  # on the floor now
    assert set(control.hand_choices("green")) == set(left)  # a tap offers only the hand
    assert "W5" not in control.hand_choices("green") or left.count("W5")


def test_the_setup_lists_every_setting_with_its_default_and_keeps_a_change():
    control = TschakControl()
    assert not control.prepare(["red"])  # 2 to 4 players
    assert control.prepare(["red", "blue", "green"])
    setup = control.view().setup
    assert setup is not None
    assert len(setup.settings) == 15
    scope = next(s for s in setup.settings if s.key == "chameleon_scope")
    assert scope.ambiguity == "A3" and not scope.changed
    assert scope.value_text == scope.default_text == "this floor's teams"
    assert [c[0] for c in scope.choices] == ["floor", "tower"]
    assert setup.seating == "1. Red  ·  2. Blue  ·  3. Green  ·  4. «On the way» board 1"
    assert any(line.startswith("A8 · ") for line in setup.fixed)
    assert control.set_setting("chameleon_scope", "tower")
    assert not control.set_setting("chameleon_scope", "everywhere")  # refused, kept
    assert control.options()["settings"] == {"chameleon_scope": "tower"}
    assert control.start()
    assert control.game.settings.chameleon_scope == "tower"


def test_the_catalog_check_keeps_corrections_for_new_games(tmp_path):
    path = tmp_path / "tschak_cards.csv"
    control = TschakControl(catalog_path=path)
    check = control.check
    assert check.position == 0 and check.current_id == "mage_01"
    control.check_number(6)  # the card says 6, not 2
    control.check_weapon("none")
    view = control.check_view()
    assert view.card.notation == "M6" and not view.checked
    assert [label for label, _v, chosen in view.numbers if chosen] == ["6"]
    control.check_right()
    assert (
        check.current_id == "mage_02" and control.check_message == "checked: mage 6 without a staff"
    )
    control.check_right()  # mage_02 as listed
    text = path.read_text()
    assert text.splitlines()[0] == ",".join(CATALOG_COLUMNS)
    assert "mage_01,adventurer,mage,6,none,,,Y,checked at the table" in text
    again = CatalogCheck(path)  # read back after a restart
    assert again.card("mage_01").notation == "M6" and again.confirmed("mage_02")
    assert again.position == 2  # the first card not yet checked
    assert control.prepare(["red", "blue"])
    assert control.options()["catalog"] == {"mage_01": "M6", "mage_02": "M2"}
    assert control.start()
    assert control.game.catalog.by_id["mage_01"].card.notation == "M6"
    assert control.game.catalog.hero_counts["M2"] == 1


def test_a_broken_corrections_file_is_named_and_blocks_the_start(tmp_path):
    path = tmp_path / "tschak_cards.csv"
    path.write_text(",".join(CATALOG_COLUMNS) + "\nmage_01,adventurer,warrior,3,axe,,,Y,\n")
    control = TschakControl(catalog_path=path)
    assert control.check.problem == (
        "tschak_cards.csv: line 2: mage_01 is a mage card (the box's counts)"
    )
    heard = Heard(control)
    control.prepare(["red", "blue"])
    assert control.view().setup.catalog_problem == control.check.problem
    assert not control.start()
    assert heard.last.kind == "rejected" and control.table is None


def test_the_piles_are_checked_against_the_game():
    control = started()
    for action in example_actions():
        assert control.do(action) is not None
    control.showing = None
    final = control.view().final
    assert final is not None and not final.revealed
    red = next(p for p in final.piles if p.player == "red")
    held = control.snapshot()["players"]["red"]
    assert red.expected == len(held["monsters"]) + len(held["treasures"])
    assert red.status == "unscanned"
    control.select("red")
    for card in [*held["monsters"], *held["treasures"]]:
        assert control.scan_card(card)
    red = next(p for p in control.view().final.piles if p.player == "red")
    assert red.status == "match" and red.status_text == "piles match the game"
    assert control.scan_card("chest:5")  # not what red won
    red = next(p for p in control.view().final.piles if p.player == "red")
    assert red.status == "mismatch" and "chest, 5 gold" in red.status_text
    assert control.undo()  # the mistaken scan taken back
    assert next(p for p in control.view().final.piles if p.player == "red").status == "match"
    control.reveal()
    assert control.view().final.revealed


def test_tags_enroll_in_the_catalog_check_and_play_in_the_game(tmp_path):
    with GameStore(tmp_path / "games.db") as store:
        registry = TagRegistry(store.db)
        control = TschakControl(registry=registry, catalog_path=tmp_path / "c.csv")
        control.check.go_to("warrior_12")
        control.check_scan("04AA000000000C")  # an unknown tag: enrolled for the card shown
        assert registry.lookup("04AA000000000C") == Component("card", "tschak", "warrior_12")
        control.check.go_to("mage_01")
        control.check_scan("04AA000000000C")  # a known one brings its card on screen
        assert control.check.current_id == "warrior_12"
        control.prepare(["red", "blue"])
        control.start()
        heard = Heard(control)
        set_out(control, ["monster:3", "troglodyte", "monster:1"], ["chest:4", "ring", "elixir"])
        control.scan("04AA000000000C")
        assert control.teams == {"red": ["W6"]}
        control.scan("04BB000000000D")
        assert heard.last.kind == "unknown_tag" and heard.last.uid == "04BB000000000D"
        assert control.bind_tag("04BB000000000D", "D4a").endswith("is now dwarf 4 with an axe")
        control.scan("04BB000000000D")
        assert control.teams == {"red": ["W6", "D4a"]}


def test_a_game_is_recorded_and_resumed_with_what_was_entered(tmp_path):
    db = tmp_path / "games.db"
    with GameStore(db) as store:
        session = Session(store)
        control = TschakControl(start=session.start, resume=session.resume, store=store)
        control.prepare(["red", "blue"])
        assert control.start() and control.game_id == 1
        set_out(control, ["monster:3", "troglodyte", "monster:1"], ["chest:4", "ring", "elixir"])
        control.add_card("M4s", "red")
        control.toggle_scores()
        before = control.snapshot()
    with GameStore(db) as store:
        assert store.last_unfinished() == 1
        session = Session(store)
        again = TschakControl(start=session.start, resume=session.resume, store=store)
        assert again.resume_last() == "resumed"
        assert again.snapshot() == before
        assert again.teams == {"red": ["M4s"]} and again.scores_visible
        kinds = [r["kind"] for r in store.records(1)]
        assert kinds == ["new", "action"]  # the tower, committed before it was shown


def test_words_follow_the_table_language():
    control = started(("red", "blue"))
    set_language("ru")
    try:
        view = control.view()
        assert view.title == "Башня 1 из 4 · выложите этажи"
        set_out(control, ["monster:3", "troglodyte", "monster:1"], ["chest:4", "ring", "elixir"])
        assert play_floor(control, {"red": ["Mc", "W5a", "A"], "blue": ["M2", "W1", "D1u"]})
        red = next(t for t in control.view().verdict.teams if t.player == "red")
        assert red.detail == "Хамелеон = 2 (копирует: Синий) ×2 = 4"
        assert control.view().floors[1].monster.title == "Троглодит"
        assert control.view().floors[1].treasure.words == "кольцо Всевластия"
    finally:
        set_language("en")


@pytest.mark.parametrize("folder", [None, "ours"])
def test_the_corrections_live_in_the_catalog_folder_or_beside_the_games(
    tmp_path, monkeypatch, folder
):
    if folder:
        monkeypatch.setenv("CLANK_CATALOG_DIR", str(tmp_path / folder))
        assert default_catalog_path(tmp_path / "g.db") == tmp_path / folder / "tschak_cards.csv"
    else:
        monkeypatch.delenv("CLANK_CATALOG_DIR", raising=False)
        assert default_catalog_path(tmp_path / "g.db") == tmp_path / "tschak_cards.csv"


def test_hostile_input_is_refused_with_the_game_unchanged(tmp_path):
    with GameStore(tmp_path / "games.db") as store:
        registry = TagRegistry(store.db)
        registry.bind("04C1A4C000000001", Component("card", "clank", "Burgle"))
        control = TschakControl(registry=registry)
        heard = Heard(control)
        assert not control.prepare(["red", "red"])  # the same name twice
        assert heard.last.kind == "rejected"
        assert not control.prepare(["red", "blue", "green", "yellow", "purple"])
        assert control.prepare(["red", "blue"])
        assert not control.set_setting("no_such_setting", True)
        assert not control.set_setting("check_cards", "maybe")
        assert control.pending["settings"] == {}
        assert control.start()
        before = control.snapshot()
        control.scan("04C1A4C000000001")  # a Clank! card's sticker
        assert heard.last.kind == "rejected" and "is not in this game's box" in heard.last.message
        assert not control.scan_card("M99z") and heard.last.kind == "rejected"
        assert not control.set_slot("monsters", 4, "monster:3")  # there is no floor 4
        assert not control.add_card("M5s", "red")  # no tower yet
        assert not control.remove_card("nobody", 0)
        control.select("nobody")  # not seated: nothing happens
        assert control.selected != "nobody"
        assert not control.answer_tie("red")  # no question asked
        assert not control.choose_elixir("red", "troglodyte")  # nobody holds the elixir
        assert control.snapshot() == before


def test_a_hand_edited_corrections_file_is_read_or_refused_by_line(tmp_path):
    path = tmp_path / "tschak_cards.csv"
    header = ",".join(CATALOG_COLUMNS)
    path.write_text(
        header + "\nmonster_1,tower,monster,,,5,,Y,seen\nmage_03,adventurer,mage,x,,,,Y,\n"
    )
    check = CatalogCheck(path)
    assert check.problem.startswith("tschak_cards.csv: line 3: ")
    assert check.card("monster_1").notation == "monster:1"  # nothing of a broken file is used
    path.write_text(
        header + "\nmonster_1,tower,monster,,,5,,Y,seen\nno_such_card,tower,ring,,,,,Y,\n"
    )
    assert (
        CatalogCheck(path).problem == "tschak_cards.csv: line 3: no card 'no_such_card' in the box"
    )
    path.write_text(header + "\nmonster_1,tower,monster,,,5,,Y,seen\n")
    check = CatalogCheck(path)
    assert check.problem == "" and check.card("monster_1").notation == "monster:5"
    assert check.corrections() == {"monster_1": "monster:5"}
