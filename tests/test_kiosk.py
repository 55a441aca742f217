"""The kiosk has no way around the admin PIN, not even with a USB keyboard."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("KIVY_WINDOW", "sdl2")
from kivy.config import Config as KivyConfig  # noqa: E402

KivyConfig.set("graphics", "width", "800")
KivyConfig.set("graphics", "height", "480")

from kivy.uix.settings import Settings  # noqa: E402

from companion.ui.harness import Harness  # noqa: E402
from companion.ui.screens.popups import INERT, Picker  # noqa: E402

F1 = 282  # SDL's keycode, the key Kivy opens its settings panel with
MENU = 319  # the menu key of some keyboards (Kivy's settings on Android)


@pytest.fixture
def ui(tmp_path):
    harness = Harness(tmp_path / "games.db")
    yield harness
    harness.close()


def _settings_panels(ui: Harness) -> list[Settings]:
    return [w for w in ui.widgets() if isinstance(w, Settings)]


def test_f1_on_a_keyboard_opens_no_settings_panel(ui):
    rotation = KivyConfig.get("graphics", "rotation")
    for _ in range(2):  # F1 toggles Kivy's panel: twice, in case the first one closed it
        ui.key(F1, 58)
        assert _settings_panels(ui) == []
    ui.key(MENU)
    assert _settings_panels(ui) == []
    assert ui.app.use_kivy_settings is False
    assert ui.app.open_settings() is False  # and not by a call either
    ui.frames(2)
    assert _settings_panels(ui) == [] and ui.app.screens.current == "newgame"
    assert KivyConfig.get("graphics", "rotation") == rotation


def test_f1_during_a_game_leaves_the_table_as_it_is(ui):
    ui.tap("Red")
    ui.tap("Blue")
    ui.tap("Start game")
    ui.tap("Start the first turn")
    ui.frames(2, seconds=INERT + 0.1)  # a short opening row asks first
    ui.tap("Yes, start the first turn")
    before = ui.snapshot
    ui.key(F1, 58)
    assert _settings_panels(ui) == []
    assert ui.app.screens.current == "table" and ui.snapshot == before
    ui.tap("Menu")  # the table still takes taps: nothing lies over it
    assert [w for w in ui.window.children if isinstance(w, Picker)]


def test_re_binding_a_tag_during_a_tschak_game_asks_for_the_pin(ui):
    """A sticker re-bound mid-game could make a weak card read as a strong one: during a
    Tschak! game as during a Clank! one, only with the admin PIN."""
    from companion.store.tags import component_words, components

    cards = {c.name: c for c in components("tschak", ("card",), ())}
    weak, strong = cards["mage_01"], cards["mage_07"]  # a mage 2 and a mage 5
    uid = "04C0FFEE000002"
    ui.app.tags.bind(uid, weak)
    tschak = ui.app.control("tschak")
    assert tschak.prepare(["red", "blue"]) and tschak.start()
    ui.frames(2)
    assert ui.app.controller is tschak  # the controller of the game on the table
    ui.tap("Menu")
    ui.tap("Tags")
    tags = ui.app.screens.get_screen("tags")
    ui.tap("Re-bind a tag")
    assert tags.mode == "" and ui.app.pin_pad is not None
    assert ui.app.pin_pad.get_parent_window() is not None
    assert ui.app.pin_pad.message == "Admin PIN: re-bind a tag during a game"
    ui.tap("Cancel")
    ui.app.on_scan(uid)  # no re-binding without the PIN
    ui.frames(2)
    assert ui.app.tags.lookup(uid) == weak
    assert tags.edition == "tschak"  # the screen offers the box on the table first
    ui.tap("Re-bind a tag")
    ui.enter_pin("2468")
    assert tags.mode == "rebind"
    ui.app.on_scan(uid)
    ui.frames(2)
    ui.tap(component_words(strong))
    assert ui.app.tags.lookup(uid) == strong


def test_re_binding_a_tag_with_no_game_needs_no_pin(ui):
    ui.app.show_screen("tags")
    ui.tap("Re-bind a tag")
    assert ui.app.screens.get_screen("tags").mode == "rebind" and ui.app.pin_pad is None


def test_the_settings_screen_serves_a_tschak_game_and_abandons_it(ui):
    """The Settings screen asks the controller of the game on the table, whatever its
    kind: during a Tschak! game it opens (it once asked Tschak!'s controller for Clank!'s
    edition numbers and failed), lists no edition numbers, and offers to abandon the game."""
    tschak = ui.app.control("tschak")
    assert tschak.prepare(["red", "blue"]) and tschak.start()
    ui.frames(2)
    ui.app.show_screen("settings")
    settings = ui.app.screens.get_screen("settings")
    assert ui.app.screens.current == "settings"
    assert settings.details == "" and settings.has_game
    ui.tap("Abandon this game")
    ui.armed()
    ui.tap("Yes, abandon it")
    ui.until(lambda: not tschak.in_play)
    game = ui.app.store.last_game()
    assert ui.app.store.game_row(game)["status"] == "abandoned"
