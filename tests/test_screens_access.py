"""Only legal choices offered; untagged cards keep their effects; everything reachable
without a game; settings for people; the audit says what it checked; the kiosk opens at
800x480 with an on-screen keyboard (TABLE_SCREEN.md)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

os.environ.setdefault("KIVY_WINDOW", "sdl2")
from kivy.config import Config as KivyConfig  # noqa: E402

KivyConfig.set("graphics", "width", "800")
KivyConfig.set("graphics", "height", "480")

from kivy.uix.label import Label  # noqa: E402

from companion.kinds.clank.screens.choices import player_actions  # noqa: E402
from companion.kinds.clank.screens.desk import desk_of  # noqa: E402
from companion.kinds.clank.screens.untagged import UntaggedPicker  # noqa: E402
from companion.ui.harness import Harness  # noqa: E402
from companion.ui.screens.popups import Picker, PinPad  # noqa: E402
from tests.helpers import companion_draws_seed, popup  # noqa: E402
from tests.screen_metrics import problems, shown  # noqa: E402

SEED = "5eed" * 16
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def ui(tmp_path, monkeypatch):
    monkeypatch.setenv("CLANK_CONFIG", str(tmp_path / "config.toml"))
    harness = Harness(tmp_path / "games.db")
    yield harness
    harness.close()


SEATS6 = ["red", "yellow", "green", "blue", "purple", "orange"]


def seen_texts(ui: Harness) -> list[str]:
    return [w.text for w in ui.widgets() if isinstance(w, Label) and w.text and shown(w)]


def playing(ui: Harness, *players: str, edition: str = "clank") -> None:
    ctl = ui.app.controller
    with companion_draws_seed(SEED):  # as the companion draws it: a provably fair game
        ctl.new_game({"edition": edition, "players": list(players),
                      "party": len(players) > 4})  # fmt: skip
    ctl.begin()
    ui.frames(2)


# -------------------------------------------------------------- legal choices
def test_a_players_actions_offer_only_what_the_rules_allow(ui):
    playing(ui, "red", "blue")
    ctl = ui.app.controller
    red = [label for label, _do in player_actions("red")]
    assert "Escape with an artifact" not in red  # no artifact yet
    assert "Gold −1" not in red and "Gold −7" not in red  # no gold
    assert "Heal 1" not in red  # not hurt
    assert "Artifact 20" in red
    ctl.do({"do": "artifact", "player": "red", "value": 20})
    ctl.do({"do": "gold", "player": "red", "n": 7})
    desk_of(ui.app).open_player_actions("blue")
    picker = popup(ui, Picker)
    offered = [w.text for w in picker.ids.grid.children]
    assert "Artifact 20" not in offered  # red took it
    assert "Artifact 25" in offered
    picker.close()
    red = [label for label, _do in player_actions("red")]
    assert "Escape with an artifact" in red and "Gold −7" in red
    ctl.do({"do": "depths", "player": "red", "in": True})
    red = [label for label, _do in player_actions("red")]
    assert "Escape with an artifact" not in red  # not from the Depths
    for label, do in player_actions("red"):  # and whatever is offered, the rules take
        if label.startswith(("Secret", "Buy", "Monkey", "Artifact")):
            continue  # each of these would change what is offered next
        before = ctl.view()
        assert do() is True, label
        ctl.undo()
        assert ctl.view().players == before.players


def _offered(player: str) -> list[str]:
    return [label for label, _do in player_actions(player)]


def _every_offer_is_taken(ui, *players: str) -> None:
    """Whatever is offered, the rules accept (then it is undone)."""
    ctl = ui.app.controller
    for player in players:
        for label, do in player_actions(player):
            before = ctl.view()
            assert do() is True, f"{player}: {label} offered, refused: {ctl.last}"
            ctl.undo()
            assert ctl.view().players == before.players, label


def test_a_full_pack_a_sold_out_market_and_a_freed_prisoner_are_not_offered(ui):
    playing(ui, "red", "blue")
    ctl = ui.app.controller
    for player in ("red", "blue"):
        ctl.do({"do": "gold", "player": player, "n": 30})
    ctl.do({"do": "artifact", "player": "red", "value": 20})
    assert not any(label.startswith("Artifact") for label in _offered("red"))  # pack full
    assert any(label.startswith("Artifact") for label in _offered("blue"))
    ctl.do({"do": "buy", "player": "red", "item": "backpack"})
    assert "Artifact 25" in _offered("red")  # room for one more
    ctl.do({"do": "buy", "player": "blue", "item": "backpack"})  # the last of the two
    assert "Buy backpack (7 gold)" not in _offered("blue") + _offered("red")
    assert not ctl.do({"do": "buy", "player": "blue", "item": "backpack"})  # the rules agree
    _every_offer_is_taken(ui, "red", "blue")


def test_a_prisoner_freed_is_not_offered_again(ui):
    """Once the table has given the box's count of each kind (no rulebook prints it), a
    kind whose prisoners are all freed is offered no more."""
    from companion.kinds.clank.catalog import load_catalog

    counts = {t.name: t.count for t in load_catalog("catacombs").tokens_of("prisoner")}
    ctl = ui.app.controller
    with companion_draws_seed(SEED):
        ctl.new_game({"edition": "catacombs", "players": ["red", "blue"], "prisoners": counts})
    ctl.begin()
    ui.frames(2)
    freed = [label for label in _offered("red") if label.startswith("Free prisoner")]
    assert freed
    for _ in range(counts["adventurer"]):  # every adventurer prisoner in the box
        assert ctl.do({"do": "prisoner", "player": "red", "name": "adventurer"})
    assert "Free prisoner: adventurer" not in _offered("red") + _offered("blue")
    assert "Free prisoner: barbarian" in _offered("blue")
    _every_offer_is_taken(ui, "red", "blue")


def test_a_guessed_prisoner_count_does_not_stop_the_offer(ui):
    """With the guessed counts the kind stays offered while the box has prisoners left
    (a scan frees it all the same)."""
    playing(ui, "red", "blue", edition="catacombs")
    ctl = ui.app.controller
    for _ in range(3):  # more than the guessed two
        assert ctl.do({"do": "prisoner", "player": "red", "name": "adventurer"})
    assert "Free prisoner: adventurer" in _offered("blue")


def test_a_ghost_is_offered_only_while_the_treasury_has_one(ui):
    playing(ui, "red", "blue", edition="catacombs")
    ctl = ui.app.controller
    while "A ghost appears" in [label for label, _do in player_actions("red")]:
        assert ctl.do({"do": "ghost"})
    assert ctl.view().ghosts_in_area == 5
    assert not ctl.do({"do": "ghost"})  # the rules agree


# ------------------------------------------------------------- untagged cards
def test_an_untagged_card_is_picked_by_name_and_keeps_its_effects(ui):
    playing(ui, "red", "blue")
    ctl = ui.app.controller
    ctl.end_turn()
    desk_of(ui.app).pick_untagged_card()
    picker = popup(ui, UntaggedPicker)
    ui.frames(2)
    quick = [ui.find("No tag: no dragon"), ui.find("No tag: dragon")]
    search = picker.ids.search
    top = search.to_window(search.x, search.top)[1]
    assert all(b.to_window(b.x, b.y)[1] >= top for b in quick)  # at the top
    names = [w.text for w in reversed(picker.ids.cards.children)]
    assert "Kobold" in names and "Overlord" in names and "Burgle" not in names  # the dungeon
    assert all(w.height >= 48 for w in picker.ids.cards.children)
    search.text = "overl"
    ui.frames(2)
    assert [w.text for w in picker.ids.cards.children] == ["Overlord"]
    assert problems(picker) == []
    from companion.ui.ink import screen_metrics

    measured = screen_metrics(ui.window)  # over the table: table-sized words
    assert measured["smallest_text_ink"] >= 18 and not measured["cut"], measured
    before = ctl.view()
    ui.tap("Overlord")
    view = ctl.view()
    assert [c.name for c in view.row if c.revealed] == ["Overlord"]
    desk_of(ui.app).pick_untagged_card()
    popup(ui, UntaggedPicker).ids.search.text = "kobold"
    ui.frames(2)
    ui.tap("Kobold")
    view = ctl.view()
    assert [c.name for c in view.row if c.revealed] == ["Overlord", "Kobold"]
    assert [c.name for c in view.row if c.danger] == ["Kobold"]
    desk_of(ui.app).pick_untagged_card()
    ui.tap("No tag: dragon")  # the quick choice, as before
    assert ctl.refill == ["Overlord", "Kobold", "Untagged card (dragon)"]
    ctl.end_turn()  # committed: the Overlord arrives, the dragon attacks with the Danger
    view = ctl.view()
    assert [c.name for c in view.row] == ["Overlord", "Kobold", "Untagged card (dragon)"]
    draw = view.draws[-1]
    bag = dict(draw.bag)
    assert all(bag[p.name] == p.clank + 1 for p in before.players)  # the Overlord's clank
    assert draw.count == before.next_attack + 1  # the Kobold's Danger


# --------------------------------------------------------- without a game
def test_the_new_game_screen_reaches_tags_settings_language_and_past_games(ui, tmp_path):
    ctl = ui.app.controller
    playing(ui, "red", "blue")
    ctl.do({"do": "artifact", "player": "blue", "value": 20})
    ctl.do({"do": "escape", "player": "blue"})
    ctl.clank(-30, "red")
    ctl.do({"do": "damage", "player": "red", "n": 10})
    ui.frames(2)
    ctl.close_game()
    playing(ui, "green", "yellow", "purple", edition="catacombs")
    ctl.abandon()
    ctl.close_game()
    ui.frames(2)
    assert ui.app.screens.current == "newgame"
    ui.tap("Past games")
    assert ui.app.screens.current == "pastgames"
    rows = [w.text for w in reversed(ui.app.screen("pastgames").ids.games.children)]
    assert len(rows) == 2
    assert rows[0].startswith("#2 · ") and "Clank! Catacombs · abandoned" in rows[0]
    assert "green, yellow, purple" in rows[0]
    assert rows[1].startswith("#1 · ") and "Clank! · over" in rows[1]
    assert "\nBlue wins — " in rows[1] and rows[1].endswith(" · red 0")  # then the others
    assert problems(ui.app.screen("pastgames")) == []
    ui.tap(rows[1])  # the game in charts, its audit one tap further
    assert ui.app.screens.current == "report" and ui.app.screen("report").game == 1
    ui.tap("Audit")
    audit = ui.app.screen("audit")
    assert ui.app.screens.current == "audit" and audit.game == 1
    assert audit.title_text.startswith("Game 1 · Clank! · ") and audit.title_text.endswith("over")
    assert audit.ranking_text.startswith("1. Blue: ")
    ui.tap("Verify")
    assert audit.result.startswith("Verified: ") and "recomputed" in audit.result
    ui.tap("Back")
    assert ui.app.screens.current == "report"
    ui.frames(2)
    ui.tap("Back")
    assert ui.app.screens.current == "pastgames"
    ui.tap("Back")
    assert ui.app.screens.current == "newgame"
    ui.tap("Tags")
    assert ui.app.screens.current == "tags"
    ui.tap("Back")
    ui.tap("Settings")
    popup(ui, PinPad).dismiss(animation=False)  # behind the PIN, as from the menu
    ui.frames(2)
    ui.tap("Language: English")
    picker = popup(ui, Picker)
    assert "English (chosen)" in [w.text for w in picker.ids.grid.children]
    ui.tap("Español")
    assert 'language = "es"' in (tmp_path / "config.toml").read_text()
    assert ui.find("Idioma: Español") and ui.app.screens.current == "newgame"


# ------------------------------------------------------------------ settings
def test_settings_are_for_people(ui, tmp_path):
    playing(ui, "red", "blue", "green", "yellow", "purple", edition="catacombs")
    ui.app.ask_pin()
    ui.enter_pin("2468")
    assert ui.app.screens.current == "settings"
    texts = seen_texts(ui)
    assert not [t for t in texts if str(tmp_path) in t or "games.db" in t or ".toml" in t]
    assert not [t for t in texts if "starting clank." in t or "_" in t]  # no internal keys
    assert any("the starting clank of seat 5" in t for t in texts)
    for name, pin in (("End turn button", "5"), ("Undo button", "6"), ("Green LED", "16"),
                      ("Red LED", "20"), ("Buzzer", "21")):  # fmt: skip
        ui.find(name)
        ui.find(pin)
    assert ui.find("English").state == "down" and ui.find("Español").state == "normal"
    assert ui.find("Simulated (no reader)")
    ui.tap("Change")
    picker = popup(ui, Picker)
    offered = [w.text for w in reversed(picker.ids.grid.children)]
    assert offered == ["Close", "Simulated (no reader) (chosen)", "MFRC522 on SPI",
                       "PN532 on /dev/serial0", "PN532 on /dev/ttyUSB0", "PN532 on /dev/ttyAMA0",
                       "RDM6300 on /dev/serial0", "RDM6300 on /dev/ttyUSB0",
                       "RDM6300 on /dev/ttyAMA0", "Keyboard wedge (USB)"]  # fmt: skip
    ui.tap("PN532 on /dev/serial0")
    assert 'spec = "pn532:/dev/serial0"' in (tmp_path / "config.toml").read_text()
    assert ui.find("PN532 on /dev/serial0")
    assert problems(ui.app.screen("settings")) == []


def test_the_set_up_checklist_names_no_internal_keys(ui):
    ctl = ui.app.controller
    ctl.new_game({"edition": "catacombs", "players": ["red", "blue", "green", "yellow",
                                                      "purple"], "party": True})  # fmt: skip
    ui.frames(2)
    checklist = ui.app.screen("opening").checklist
    assert "starting clank." not in checklist and "rage start." not in checklist
    assert "the starting clank of seat 5 is not printed in the rulebook" in checklist


# --------------------------------------------------------------------- audit
def test_the_audit_marks_undone_draws_and_seals_until_the_end(ui):
    playing(ui, "red", "blue")
    ctl = ui.app.controller
    ctl.do({"do": "attack"})
    ctl.undo()
    ctl.do({"do": "attack"})
    ui.frames(2)
    if desk_of(ui.app).attack_view is not None:
        desk_of(ui.app).attack_view.dismiss(animation=False)
    ui.app.open_audit()
    audit = ui.app.screen("audit")
    lines = audit.draws_text.split("\n")
    assert [d.undone for d in ctl.view().draws] == [True, False]
    assert lines[0].startswith("[color=") and "#1: " in lines[0] and "(undone)" in lines[0]
    assert lines[1].startswith("#2: ") and "undone" not in lines[1]
    ui.tap("Verify")
    assert audit.result == "Verified: 4 records chained; 2 draws sealed until the game ends"
    assert "re-computed" not in audit.result and "recomputed" not in audit.result


# ---------------------------------------------------------------------- kiosk
KIOSK = textwrap.dedent(
    """
    import sys
    import companion.cli, companion.ui.app
    assert "kivy.core.window" not in sys.modules, "the window was created on import"
    from companion.ui.app import configure_window
    configure_window(sys.argv[1] == "kiosk")
    from kivy.config import Config
    print(Config.get("graphics", "fullscreen"), Config.get("kivy", "keyboard_mode"))
    Config.set("graphics", "fullscreen", "0")  # no display to fill here
    from kivy.core.window import Window
    print(tuple(Window.size), Window.allow_vkeyboard, Window.docked_vkeyboard)
    if sys.argv[1] == "kiosk":
        from pathlib import Path
        from companion.ui.harness import Harness
        from kivy.uix.vkeyboard import VKeyboard
        ui = Harness(Path(sys.argv[2]))
        ui.app.controller.new_game({"edition": "clank", "players": ["red", "blue"]})
        ui.frames(3)
        words = ui.app.screen("opening").ids.words
        ui.tap(words)
        keyboard = [w for w in Window.children if isinstance(w, VKeyboard)]
        print(len(keyboard), words.to_window(words.x, words.y)[1] >= keyboard[0].top - 1)
        keyboard[0].dispatch("on_textinput", "owl")
        ui.frames(2)
        print(ui.app.controller.words)
        ui.close()
    """
)


def run_kiosk(mode: str, tmp_path: Path) -> list[str]:
    env = dict(os.environ, KIVY_HOME=str(tmp_path / "kivy"))
    out = subprocess.run([sys.executable, "-c", KIOSK, mode, str(tmp_path / "games.db")],
                         capture_output=True, text=True, env=env, cwd=ROOT,
                         timeout=300)  # fmt: skip
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout.split("\n")


def test_the_window_opens_at_800x480_and_the_kiosk_types_on_screen(tmp_path):
    window = run_kiosk("window", tmp_path)
    assert window[:2] == ["0 ", "(800, 480) False False"]
    kiosk = run_kiosk("kiosk", tmp_path)
    assert kiosk[0] == "auto systemanddock"
    assert kiosk[1] == "(800, 480) True True"
    assert kiosk[2] == "1 True"  # the field moved above the docked keyboard
    assert kiosk[3] == "owl"


def test_a_long_set_up_checklist_scrolls_and_the_title_stays_on_screen(ui):
    """Six players in Catacombs with the party: the checklist is long (starting clank for
    every seat, numbers the rulebook does not print); it scrolls, nothing leaves the top."""
    from kivy.uix.scrollview import ScrollView

    ctl = ui.app.controller
    ctl.new_game({"edition": "catacombs", "players": SEATS6, "party": True})
    ui.frames(3)
    screen = ui.app.screens.get_screen("opening")
    assert ui.app.screens.current == "opening" and len(ctl.checklist()) >= 10
    title = ui.find("Set up the table")
    _x, y = title.to_window(title.x, title.y)
    assert y + title.height <= 480 + 0.5
    # a label to each step, in a list that scrolls
    lines = screen.checklist.split("\n")
    steps = [w for w in screen.walk() if isinstance(w, Label) and w.text in lines]
    assert [w.text for w in steps] == lines
    assert all(isinstance(w.parent.parent, ScrollView) for w in steps)
    for w in screen.walk():
        if isinstance(w, Label) and shown(w) and w not in steps:
            wx, wy = w.to_window(w.x, w.y)
            assert wy >= -0.5 and wy + w.height <= 480.5, w.text
