"""The touchscreen, driven by simulated touches and scans at 800x480 (offscreen).

With CLANK_SCREENSHOTS=<folder> every screen these tests visit is saved there as PNG
(``./dev screenshots`` does that).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

os.environ.setdefault("KIVY_WINDOW", "sdl2")
from kivy.config import Config as KivyConfig  # noqa: E402

KivyConfig.set("graphics", "width", "800")
KivyConfig.set("graphics", "height", "480")

from companion import pin  # noqa: E402
from companion.config import load_config  # noqa: E402
from companion.kinds.clank.screens.desk import desk_of  # noqa: E402
from companion.store import GameStore  # noqa: E402
from companion.store.seal import key_path  # noqa: E402
from companion.store.tags import Component, resolve  # noqa: E402
from companion.ui.harness import Harness  # noqa: E402
from tests.screen_metrics import INK_FIGURE, ink_problems  # noqa: E402

SHOTS = Path(os.environ["CLANK_SCREENSHOTS"]) if os.environ.get("CLANK_SCREENSHOTS") else None


@pytest.fixture
def ui(tmp_path, monkeypatch):
    from companion.kinds.clank.screens.attack import AttackView

    monkeypatch.setattr(AttackView, "STEP", 3600.0)  # the cubes come when wait_attack says
    harness = Harness(tmp_path / "games.db")
    yield harness
    harness.close()


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def shot(ui: Harness, name: str) -> None:
    if SHOTS is not None:
        SHOTS.mkdir(parents=True, exist_ok=True)
        ui.screenshot(SHOTS / f"{name}.png")


def drawer(ui: Harness, *picks: str) -> None:
    """Scan components through the simulated reader's drawer."""
    for pick in picks:
        ui.tap("Scan drawer")
        ui.tap(pick)


def start(ui: Harness, *colours: str, edition: str = "clank") -> None:
    if edition == "catacombs":
        ui.tap("Clank! Catacombs")
    for c in colours:
        ui.tap(c)
    ui.tap("Start game")
    assert ui.app.screens.current == "opening"


def answer(ui: Harness, yes: str) -> None:
    """The confirming tap of a question, once it takes taps (not in its first moment)."""
    from companion.ui.screens.popups import INERT

    ui.frames(2, seconds=INERT + 0.1)
    ui.tap(yes)


def begin(ui: Harness) -> None:
    ui.tap("Start the first turn")
    answer(ui, "Yes, start the first turn")  # a short opening row asks first
    assert ui.app.screens.current == "table"


def test_set_up_and_fairness_then_clank_undo_and_a_refill(ui):
    assert ui.app.screens.current == "newgame"
    ui.tap("Red")
    ui.tap("Blue")
    assert ui.app.screens.get_screen("newgame").seats == ["red", "blue"]
    shot(ui, "01-new-game")
    ui.tap("Start game")
    opening = ui.app.screens.get_screen("opening")
    snap = ui.snapshot
    assert opening.commitment == snap["commitment"] and snap["client_seed"] == ""
    assert "Put the dragon on space" in opening.checklist
    drawer(ui, "Kobold")  # a dragon-symbol card cannot open the row
    assert "dragon-attack symbol" in ui.app.status.text
    drawer(ui, "Orc Grunt", "Tattle")
    assert "Orc Grunt" not in opening.row_text  # Orc Grunt shows the dragon symbol too
    drawer(ui, "Sneak", "Search")
    assert "Opening row (3 of 6): Tattle, Sneak, Search" in opening.row_text
    opening.ids.words.text = "owlbear  pizza"
    ui.frames(2)
    shot(ui, "02-opening-fairness")
    begin(ui)
    snap = ui.snapshot
    assert snap["client_seed"] == "Tattle Sneak Search owlbear pizza"
    assert snap["row"] == ["Tattle", "Sneak", "Search"]
    ui.on_panel("red", "Clank! +1")
    ui.on_panel("red", "Clank! +1")
    ui.on_panel("blue", "Clank! +1")  # for another player, one tap on their panel
    assert ui.snapshot["clank_area"] == {"red": 5, "blue": 3, "ghost": 0}
    shot(ui, "03-table")
    ui.tap("Undo")
    assert ui.snapshot["clank_area"]["blue"] == 2
    ui.tap("Sneak")  # bought: it leaves the row
    assert ui.snapshot["row"] == ["Tattle", "Search"]
    ui.tap("End Red's turn")
    assert ui.snapshot["refill"] == []
    drawer(ui, "Bracers of Agility")
    ui.tap("No tag")
    ui.tap("No tag: no dragon")
    assert ui.snapshot["refill"] == ["Bracers of Agility", "Untagged card"]
    shot(ui, "04-refill")
    ui.tap("Undo")  # the last revealed card, taken back
    assert ui.snapshot["refill"] == ["Bracers of Agility"]
    ui.tap(ui.app.screens.get_screen("table").end_turn_text)  # the refill ends here
    snap = ui.snapshot
    assert snap["turn"]["active"] == "blue" and snap["refill"] is None
    assert snap["row"] == ["Tattle", "Search", "Bracers of Agility"]


def wait_attack(ui: Harness) -> None:
    """Show the attack's cubes one by one, as its clock would (the tests hold the clock:
    on a busy machine no cube comes before the test looks for it)."""
    view = desk_of(ui.app).attack_view
    for _ in range(len(view._drawn)):
        if view.finished:
            break
        view._next_cube(0)
        ui.frames(1)
    assert view.finished and view.ids.dismiss.text == "Continue"


def dismiss_attack(ui: Harness) -> None:
    view = desk_of(ui.app).attack_view
    assert not view.finished  # the cubes come one by one; the dismiss waits
    assert view.ids.dismiss.disabled
    wait_attack(ui)
    ui.tap(view.ids.dismiss)
    ui.until(lambda: view.get_parent_window() is None)  # the view fades out


def test_a_two_player_game_from_set_up_to_the_ranking(ui):
    """A whole game on the touchscreen, set-up to the ranking and the audit: the dragon
    attacks until blue is knocked out, each attack's cubes drawn at the pace the table
    sees them, so the test takes as long as about twenty attacks do (20-50 s)."""
    start(ui, "Red", "Blue")
    begin(ui)
    for _ in range(4):
        ui.on_panel("blue", "Clank! +3")
    ui.tap("End Red's turn")
    ui.tap("No tag")
    ui.tap("No tag: dragon")  # the dragon-symbol card without a tag
    ui.tap(ui.app.screens.get_screen("table").end_turn_text)  # the refill ends here
    view = desk_of(ui.app).attack_view
    assert view.title.startswith("The dragon attacks!")
    assert view.nonce_text == f"draw #{ui.snapshot['draws'][0]['nonce']}"
    shot(ui, "05-attack")
    dismiss_attack(ui)
    attacks = 1
    # red takes an artifact and leaves; the dragon keeps attacking until blue falls
    ui.on_panel("red")
    shot(ui, "06-player-actions")
    ui.tap("Artifact 20")
    assert ui.snapshot["players"]["red"]["artifacts"] == [20]
    ui.on_panel("red")
    ui.tap("Escape with an artifact")
    assert ui.snapshot["players"]["red"]["status"] == "escaped"
    while ui.snapshot["players"]["blue"]["status"] == "playing":
        assert attacks < 40
        ui.on_panel("blue", "Clank! +1")
        ui.tap("Menu")
        ui.tap("Dragon attack (card effect)")
        answer(ui, "Yes, the dragon attacks")  # a card's attack is confirmed first
        attacks += 1
        knocked = ui.snapshot["players"]["blue"]["status"] == "knocked_out"
        view = desk_of(ui.app).attack_view
        assert not view.finished and view.ids.dismiss.disabled
        if knocked:
            wait_attack(ui)  # the verdict comes with the last cube
            assert "knocked out" in view.outcome
            shot(ui, "07-knock-out")
            ui.tap(view.ids.dismiss)
            ui.until(lambda view=view: view.get_parent_window() is None)
        else:
            dismiss_attack(ui)
    assert view.ids.dismiss.text == "Continue" and desk_of(ui.app).attack_view is None
    snap = ui.snapshot
    assert snap["game_over"] and len(snap["draws"]) == attacks
    assert ui.app.screens.current == "scoring"
    # scoring: red scans the deck, blue's is scored as well, a mistaken card taken out
    drawer(ui, "Burgle", "Burgle", "Dragon's Eye", "Treasure Hunter")
    scoring = ui.app.screens.get_screen("scoring")
    shot(ui, "08-scoring")
    # read from across the table: every text drawn 18 px high at least, nothing cut
    assert not ink_problems(ui, INK_FIGURE, with_figures=False), ink_problems(
        ui, INK_FIGURE, with_figures=False
    )
    assert scoring.player == "red" and "Cards" in dict(scoring.parts)
    ui.tap("Treasure Hunter")  # tapped in the deck list: taken out again
    assert sorted(ui.app.controller.deck("red")) == ["Burgle", "Burgle", "Dragon's Eye"]
    ui.tap("B · Blue...")
    drawer(ui, "Stumble")
    assert ui.app.controller.deck("blue") == ["Stumble"]
    ui.tap("R · Red...")
    snap = ui.snapshot
    red = snap["players"]["red"]["score_detail"]
    assert red["parts"]["artifacts"] == 20 and red["parts"]["tokens"] >= 20
    assert snap["ranking"][0]["player"] == "red"
    assert scoring.ranking_text.startswith(f"1. Red: {red['total']} VP")
    assert scoring.winner_text == f"Red wins — {red['total']}"
    seed_shown = scoring.seed_text.replace(" ", "").replace("\n", "")
    assert snap["server_seed"] and seed_shown == snap["server_seed"]
    assert snap["server_seed"] in scoring.qr_data
    shot(ui, "08-scoring")
    ui.tap("Audit")
    audit = ui.app.screens.get_screen("audit")
    assert audit.draws_text.count("#") == attacks
    ui.tap("Verify")
    assert audit.result.startswith("Verified")
    shot(ui, "09-audit")
    ui.tap("Back")
    assert ui.app.screens.current == "scoring"
    ui.tap("Close game")
    shot(ui, "08-scoring-close")
    answer(ui, "Yes, close the game")
    assert ui.app.screens.current == "newgame"
    ui.armed()  # the final proof over it, its Done taking taps
    ui.find("Photograph this: it proves the game was not rewritten later")
    shot(ui, "08-scoring-final-proof")


def test_a_refill_from_the_scan_drawer_brings_the_dragon(ui):
    start(ui, "Red", "Yellow", "Green")
    begin(ui)
    ui.on_panel("red", "Clank! +1")
    ui.tap("End Red's turn")
    drawer(ui, "Orc Grunt")
    ui.tap(ui.app.screens.get_screen("table").end_turn_text)  # the refill ends here
    view = desk_of(ui.app).attack_view
    drawn = ui.snapshot["draws"][-1]["drawn"]
    assert len(drawn) == ui.snapshot["draws"][-1]["count"] >= 2
    assert view is not None and view.title == f"The dragon attacks! ({len(drawn)} cubes)"
    shown = ui.app.screens.get_screen("table").ids.row.children
    assert "Orc Grunt" in [c.card for c in shown if c.opacity > 0]
    wait_attack(ui)
    assert view.finished and [c.kind for c in reversed(view.ids.cubes.children)] == drawn


def test_the_app_resumes_the_same_table_after_a_restart(tmp_path):
    first = Harness(tmp_path / "games.db")
    start(first, "Green", "Purple")
    drawer(first, "Tattle")
    assert first.app.screens.current == "opening"
    first.close()
    again = Harness(tmp_path / "games.db")  # the opening row survives the restart
    assert again.app.screens.current == "opening"
    assert again.app.controller.opening == [{"name": "Tattle", "uid": ""}]
    begin(again)
    again.on_panel("green", "Clank! +1")
    again.tap("End Green's turn")
    drawer(again, "Sneak")
    before = again.snapshot
    again.close()
    third = Harness(tmp_path / "games.db")
    assert third.app.screens.current == "table"
    assert third.snapshot == before and before["refill"] == ["Sneak"]
    third.close()


def test_catacombs_with_five_players_and_a_knock_out(ui):
    start(ui, "Red", "Yellow", "Green", "Blue", "Purple", edition="catacombs")
    begin(ui)
    snap = ui.snapshot
    assert snap["party"] and len(snap["players"]) == 5
    ui.on_panel("red")
    ui.tap("A ghost appears")
    assert ui.snapshot["clank_area"]["ghost"] == 1
    ui.on_panel("yellow")
    ui.tap("Free prisoner: priest")
    assert ui.snapshot["players"]["yellow"]["prisoners"] == ["priest"]
    shot(ui, "10-catacombs-five-players")
    for _ in range(9):
        ui.app.controller.do({"do": "damage", "player": "blue", "n": 1})
    ui.app.controller.do({"do": "damage", "player": "blue", "n": 1})
    ui.frames(2)
    panel = next(p for p in ui.app.screens.get_screen("table").panels()
                 if p.player == "blue")  # fmt: skip
    assert panel.out and panel.status_text == "knocked out"


def test_an_unknown_tag_is_enrolled_from_the_screen(ui):
    uid = "04A1B2C3D4E5F6"
    ui.app.on_scan(uid)  # nobody knows this sticker: the table says what it is
    ui.frames(2)
    shot(ui, "11-enroll-unknown-tag")
    ui.tap("Badge: green")
    assert str(ui.app.tags.lookup(uid)) == "badge green"
    ui.app.on_scan(uid)  # now it seats green on the new-game screen
    ui.frames(2)
    assert ui.app.screens.get_screen("newgame").seats == ["green"]
    ui.app.show_screen("tags")
    ui.tap("Bulk: the dungeon deck")
    tags = ui.app.screens.get_screen("tags")
    assert tags.prompt.startswith("1 of ")
    ui.app.on_scan("04000000000001")
    assert tags.prompt.startswith("04000000000001 is card")
    shot(ui, "12-tags")
    ui.tap("Stop")
    ui.tap("Re-bind a tag")
    ui.app.on_scan(uid)
    ui.frames(2)
    ui.tap("Badge: orange")
    assert str(ui.app.tags.lookup(uid)) == "badge orange"
    ui.tap("Back")
    assert ui.app.screens.current == "newgame"


def test_tschak_cards_get_their_tags_on_the_tags_screen(ui):
    ui.app.show_screen("tags")
    ui.tap("Tschak!")
    tags = ui.app.screens.get_screen("tags")
    assert tags.edition == "tschak"
    ui.tap("Bulk: every card")
    assert tags.prompt.startswith("1 of 68")
    ui.app.on_scan("04000000000002")
    first = ui.app.tags.lookup("04000000000002")
    assert first is not None and first.edition == "tschak"
    assert tags.prompt.startswith(f"04000000000002 is {first.localized()}\n2 of 68")
    ui.tap("Stop")
    shot(ui, "12-tags-tschak")
    ui.tap("Enroll a tag")
    ui.app.on_scan("04000000000003")  # a card chosen in words, as on its face
    ui.frames(2)
    ui.tap("troglodyte")
    card = ui.app.tags.lookup("04000000000003")
    assert card is not None and card.edition == "tschak"
    assert card.localized() == "card troglodyte (Tschak!)"


class Stones:
    """A box of the test's own with tags: the tags screen offers it as it offers every
    box of the registry."""

    titles = {"stones": "Stones"}
    bulk_sets = ("bag",)
    bulk_label = "Bulk: the stones in the bag"

    def components(self, edition, kinds, sets, party):
        shelf = {"white": "bag", "black": "bag", "grey": "shelf"}
        return [Component("card", edition, n) for n, s in shelf.items() if s in sets]

    def component_words(self, name):
        return f"the {name} stone"


def test_a_new_kinds_box_gets_its_tags_on_the_tags_screen(ui):
    """The boxes are the registry's: a kind registered since is offered by its title, and
    its bulk enrollment walks what the kind says it walks."""
    from companion.kinds import register

    register("stones", Stones())
    try:
        ui.app.show_screen("tags")
        ui.tap("Stones")
        tags = ui.app.screens.get_screen("tags")
        assert tags.edition == "stones"
        ui.tap("Bulk: the stones in the bag")
        assert tags.prompt == "1 of 2: scan card the white stone (Stones)"
        ui.app.on_scan("04000000000005")
        assert ui.app.tags.lookup("04000000000005") == Component("card", "stones", "white")
        assert tags.prompt.endswith("2 of 2: scan card the black stone (Stones)")
        ui.tap("Clank!")
        assert tags.edition == "clank"
        assert tags.bulk_text == "Bulk: the dungeon deck"
        ui.find("Bulk: the dungeon deck")
    finally:
        register("stones", None)


def test_settings_open_only_with_the_admin_pin(ui, tmp_path, monkeypatch):
    monkeypatch.setenv("CLANK_CONFIG", str(tmp_path / "config.toml"))
    ui.app.ask_pin()
    ui.frames(2)
    ui.enter_pin("1111")
    assert ui.app.screens.current == "newgame" and ui.app.pin_pad.message == "Wrong PIN"
    ui.tap("1")
    ui.tap("2")
    assert ui.app.pin_pad.entered == "12"
    ui.tap("Clear")
    assert ui.app.pin_pad.entered == ""
    ui.tap("1")
    shot(ui, "13-settings-pin")
    ui.tap("Clear")
    ui.enter_pin("2468")
    assert ui.app.screens.current == "settings"
    settings = ui.app.screens.get_screen("settings")
    shot(ui, "14-settings")
    ui.tap("Change")  # the reader, picked from a list
    shot(ui, "14-settings-reader")
    ui.tap("RDM6300 on /dev/serial0")
    assert 'spec = "rdm6300:/dev/serial0"' in (tmp_path / "config.toml").read_text()
    assert settings.reader_text == "RDM6300 on /dev/serial0"
    settings.set_reader("nonsense-reader")
    assert "rdm6300" in (tmp_path / "config.toml").read_text()  # refused, nothing lost
    assert "unknown reader" in settings.message
    ui.tap("Back")
    assert ui.app.screens.current == "newgame"


def test_a_new_admin_pin_is_saved_as_a_hash_and_shown_once(ui, tmp_path, monkeypatch):
    path = tmp_path / "config.toml"
    path.write_text('[app]\nadmin_pin = "1357"\nlanguage = "en"\n')  # an older file: plain
    monkeypatch.setenv("CLANK_CONFIG", str(path))
    ui.app.settings_ = load_config(path)
    ui.app.ask_pin()
    ui.enter_pin("2468")
    assert ui.app.screens.current == "newgame"  # the file's PIN, not the default
    ui.enter_pin("1357")
    assert ui.app.screens.current == "settings"
    settings = ui.app.screens.get_screen("settings")
    ui.tap("New admin PIN")
    new = re.fullmatch(r"The new admin PIN is (\d{6}): write it down\.", settings.message)
    assert new, settings.message
    text = path.read_text()
    assert "admin_pin =" not in text and "1357" not in text and new[1] not in text.split("$")[0]
    saved = load_config(path)
    assert pin.is_pin_hash(saved.app.admin_pin_hash) and saved.app.pin_matches(new[1])
    ui.tap("Back")
    ui.app.ask_pin()
    ui.enter_pin("1357")
    assert ui.app.screens.current == "newgame"  # the old PIN is gone
    ui.enter_pin(new[1])
    assert ui.app.screens.current == "settings"


def test_wrong_pins_lock_the_pad_for_longer_and_longer(ui):
    clock = FakeClock()
    ui.app.pin_lockout.clock = clock
    ui.app.ask_pin()
    for wrong in ("1", "22", "333"):
        ui.enter_pin(wrong)
    pad = ui.app.pin_pad
    assert pad.locked and pad.message == "Too many wrong PINs: wait 5 seconds"
    shot(ui, "13-settings-pin-locked")
    ui.enter_pin("2468")  # refused unread: the keys take nothing while it waits
    assert pad.entered == "" and ui.app.screens.current == "newgame"
    clock.now += 3.2
    pad.refresh()
    assert pad.message == "Too many wrong PINs: wait 2 seconds"
    clock.now += 2
    pad.refresh()
    ui.enter_pin("4444")  # wrong again: twice as long
    assert pad.locked and pad.message == "Too many wrong PINs: wait 10 seconds"
    ui.tap("Cancel")
    ui.app.ask_pin()  # a new pad does not start the count again
    assert ui.app.pin_pad.locked and ui.app.pin_pad.message.endswith("wait 10 seconds")
    clock.now += 10
    ui.app.pin_pad.refresh()  # the pad's clock tick: the keys take digits again
    assert not ui.app.pin_pad.locked and ui.app.pin_pad.message == "Admin PIN"
    ui.enter_pin("2468")
    assert ui.app.screens.current == "settings"
    assert ui.app.pin_lockout.failures == 0


def test_re_binding_a_tag_during_a_game_asks_for_the_pin(ui):
    uid = "04C0FFEE000001"
    ui.app.tags.bind(uid, resolve("badge", None, "green"))
    start(ui, "Red", "Blue")
    begin(ui)
    ui.tap("Menu")
    ui.tap("Tags")
    tags = ui.app.screens.get_screen("tags")
    ui.tap("Enroll a tag")  # enrolling a new tag changes nothing the table relies on
    assert tags.mode == "enroll"
    ui.tap("Stop")
    ui.tap("Re-bind a tag")
    assert tags.mode == "" and ui.app.pin_pad.get_parent_window() is not None
    assert ui.app.pin_pad.message == "Admin PIN: re-bind a tag during a game"
    shot(ui, "12-tags-rebind-pin")
    ui.enter_pin("9999")
    assert tags.mode == ""
    ui.tap("Cancel")
    ui.app.on_scan(uid)  # no re-binding without the PIN
    ui.frames(2)
    assert str(ui.app.tags.lookup(uid)) == "badge green"
    ui.tap("Re-bind a tag")
    ui.enter_pin("2468")
    assert tags.mode == "rebind"
    ui.app.on_scan(uid)
    ui.frames(2)
    ui.tap("Badge: orange")
    assert str(ui.app.tags.lookup(uid)) == "badge orange"


def test_a_game_whose_seal_key_is_lost_is_shown_and_can_be_abandoned(tmp_path):
    db = tmp_path / "games.db"
    first = Harness(db)
    start(first, "Red", "Blue")
    begin(first)
    first.on_panel("red", "Clank! +1")
    first.close()
    key_path(db).unlink()  # the seal key beside the database is gone
    ui = Harness(db)  # the app still starts
    try:
        newgame = ui.app.screens.get_screen("newgame")
        assert ui.app.screens.current == "newgame"
        assert ui.app.controller.unresumable is not None
        assert newgame.problem.startswith("Game 1 cannot be resumed: the seal key ")
        assert "is missing" in newgame.problem
        banner = ui.find("Game 1 cannot be resumed: ...")
        assert banner.font_size >= 20 and banner.height >= 80
        shot(ui, "15-unresumable-game")
        ui.tap("Abandon game 1")
        shot(ui, "16-unresumable-confirm")
        ui.tap("Cancel")  # not yet: nothing happens
        assert ui.store.game_row(1)["status"] == "playing" and newgame.problem
        ui.tap("Abandon game 1")
        answer(ui, "Yes, abandon game 1")
        assert ui.store.game_row(1)["status"] == "abandoned"
        assert ui.app.controller.unresumable is None
        assert newgame.problem == "" and newgame.abandon_text == ""
        with pytest.raises(LookupError):
            ui.find("Abandon game 1")
        start(ui, "Green", "Yellow")  # and the table plays on
    finally:
        ui.close()
    again = Harness(db)  # the next start does not ask again
    try:
        assert again.app.controller.unresumable is None
        assert again.app.screens.current == "opening"
    finally:
        again.close()


def _hex_label(ui: Harness, text: str):
    label = ui.find(text)
    assert label.font_size >= 20, label.font_size
    label.texture_update()
    assert label.texture_size[0] <= label.width + 1, (label.texture_size, label.size)
    assert label.texture_size[1] <= label.height + 1, (label.texture_size, label.size)
    return label


def test_the_commitment_and_the_chain_head_are_shown_in_full_to_be_photographed(ui):
    start(ui, "Red", "Blue")
    commitment = ui.snapshot["commitment"]
    assert len(commitment) == 64
    lines = ui.app.screens.get_screen("opening").commitment_text.split("\n")
    assert [len(g) for line in lines for g in line.split(" ")] == [8] * 8 and len(lines) == 4
    assert "".join(lines).replace(" ", "") == commitment
    _hex_label(ui, ui.app.screens.get_screen("opening").commitment_text)
    ui.find("Sealed: photograph this before the first draw")
    begin(ui)
    ctl = ui.app.controller
    ctl.do({"do": "damage", "player": "red", "n": 10})
    ctl.do({"do": "damage", "player": "blue", "n": 10})
    ui.frames(2)
    assert ui.app.screens.current == "scoring"
    head = ui.app.archive.chain_head(ctl.game_id)
    assert len(head) == 64
    scoring = ui.app.screens.get_screen("scoring")
    groups = [head[i : i + 8] for i in range(0, 64, 8)]
    assert scoring.head_text == "\n".join(" ".join(groups[i : i + 2]) for i in (0, 2, 4, 6))
    ui.tap(scoring.ids.qr)  # the proof, full screen
    _hex_label(ui, scoring.head_text)
    # the decks are still to be scanned: this head is not the one to photograph (the final
    # proof, "Photograph this", follows Close game: tests/test_final_proof.py)
    ui.find("Not final yet: close the game to get the final proof")
    shot(ui, "08-scoring-proof")
    ui.tap("Close")
    ui.tap("Audit")
    audit = ui.app.screens.get_screen("audit")
    assert audit.head_text == " ".join(groups[:4]) + "\n" + " ".join(groups[4:])
    assert audit.commitment_text.replace("\n", " ").replace(" ", "") == commitment
    _hex_label(ui, audit.head_text)
    # the decks are still to be scanned: the head moves on until the game is closed
    assert ui.find(audit.head_note).text.startswith("Chain head so far")
    assert "…" not in audit.commitment_text + audit.head_text
    game = ctl.game_id
    ctl.close_game()
    final = ui.app.archive.chain_head(game)
    assert final != head  # the close record
    ui.app.open_audit(game)
    ui.frames(2)
    audit = ui.app.screens.get_screen("audit")
    assert audit.head_text.replace("\n", " ").replace(" ", "") == final
    assert ui.find(audit.head_note).text.startswith("Final chain head. Photograph this")


POWER_CUT = textwrap.dedent(
    """
    import os, sys, time
    from kivy.config import Config
    Config.set("graphics", "width", "800")
    Config.set("graphics", "height", "480")
    from companion.ui.harness import Harness
    ui = Harness(sys.argv[1])
    ui.tap("Red"); ui.tap("Blue"); ui.tap("Start game"); ui.tap("Start the first turn")
    ui.armed(); ui.tap("Yes, start the first turn")  # a short row asks first
    c = ui.app.controller
    c.clank(4); c.clank(2, "blue"); c.do({"do": "gold", "player": "red", "n": 3})
    c.end_turn()
    c.reveal_untagged(False)
    print("ready", flush=True)
    time.sleep(60)
    """
)


def test_a_power_cut_mid_game_comes_back_to_the_same_screen(tmp_path):
    db = tmp_path / "games.db"
    env = dict(os.environ)
    child = subprocess.Popen(
        [sys.executable, "-c", POWER_CUT, str(db)], stdout=subprocess.PIPE, text=True, env=env
    )
    try:
        assert child.stdout.readline().strip() == "ready"
    finally:
        child.kill()  # SIGKILL: no clean-up at all
        child.wait()
    with GameStore(db) as store:
        assert store.last_unfinished() == 1
    ui = Harness(db)
    try:
        snap = ui.snapshot
        assert ui.app.screens.current == "table"
        assert snap["clank_area"] == {"red": 7, "blue": 4, "ghost": 0}
        assert snap["players"]["red"]["gold"] == 3
        assert snap["refill"] == ["Untagged card"]
        assert ui.app.screens.get_screen("table").end_turn_text.startswith("End the turn now (")
    finally:
        ui.close()


def test_switching_the_language_keeps_the_game_on_screen(ui, tmp_path, monkeypatch):
    monkeypatch.setenv("CLANK_CONFIG", str(tmp_path / "config.toml"))
    start(ui, "Red", "Blue")
    begin(ui)
    ui.on_panel("blue", "Clank! +1")
    before = ui.snapshot
    ui.app.ask_pin()
    ui.enter_pin("2468")
    ui.tap("Español")
    assert 'language = "es"' in (tmp_path / "config.toml").read_text()
    assert ui.app.screens.current == "settings" and ui.snapshot == before
    assert len(ui.window.children) == 1  # the old screens are gone, not hidden behind
    ui.tap(ui.app.screens.get_screen("settings").ids.back)
    assert ui.app.screens.current == "table"
    assert ui.app.screens.get_screen("table").panels()
    ui.on_panel("red", "¡Clank! +1")  # the table speaks Spanish now
    assert ui.snapshot["clank_area"]["red"] == before["clank_area"]["red"] + 1
