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
from companion.ui.screens import Picker  # noqa: E402

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
    before = ui.snapshot
    ui.key(F1, 58)
    assert _settings_panels(ui) == []
    assert ui.app.screens.current == "table" and ui.snapshot == before
    ui.tap("Menu")  # the table still takes taps: nothing lies over it
    assert [w for w in ui.window.children if isinstance(w, Picker)]
