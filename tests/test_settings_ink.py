"""The Settings screen at the table's size (TABLE_SCREEN.md): in every language, from its
top to the bottom of its list, every text 18 px of ink or more, nothing shortened or
broken, every button a fingertip's size and apart from the others, and the edition's
numbers (a game on the table) readable once scrolled to."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("KIVY_WINDOW", "sdl2")
from kivy.config import Config as KivyConfig  # noqa: E402

KivyConfig.set("graphics", "width", "800")
KivyConfig.set("graphics", "height", "480")

from kivy.uix.scrollview import ScrollView  # noqa: E402

from companion.ui.ink import screen_metrics  # noqa: E402
from tests.screen_metrics import problems  # noqa: E402
from tests.test_settings_phone_link import _no_link_file, open_settings, table  # noqa: E402, F401

SHOTS = os.environ.get("CLANK_SCREENSHOTS")
NAMES = {"en": "English", "es": "Español", "ru": "Русский", "uk": "Українська"}


def readable(ui, name: str) -> dict:
    ui.frames(3)
    if SHOTS:
        from pathlib import Path

        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        ui.screenshot(Path(SHOTS) / f"{name}.png")
    found = screen_metrics(ui.window)
    small = [(t["text"], t["ink"]) for t in found["texts"] if 0 < t["ink"] < 18]
    assert found["smallest_text_ink"] >= 18, small
    assert not found["cut"], found["cut"]
    assert problems(ui.app.screen("settings")) == []
    return found


def settings_in(tmp_path, language: str):
    """A table with a game on it, Settings opened with the PIN, in ``language``."""
    ui = table(tmp_path)
    try:
        open_settings(ui)
        ui.tap(NAMES[language])
    except BaseException:
        ui.close()
        raise
    return ui


@pytest.mark.parametrize("language", list(NAMES))
def test_settings_hold_the_table_sizes_from_top_to_bottom(tmp_path, language):
    ui = settings_in(tmp_path, language)
    try:
        screen = ui.app.screen("settings")
        assert screen.details  # a game on the table: the edition's numbers are listed
        top = readable(ui, f"settings-{language}-top")
        assert any(t["text"] == NAMES[language] for t in top["texts"])
        view = next(w for w in screen.walk() if isinstance(w, ScrollView))
        assert view.viewport_size[1] > view.height  # longer than its room: it scrolls
        view.scroll_y = 0
        bottom = readable(ui, f"settings-{language}-bottom")
        shown = {t["text"] for t in bottom["texts"]}
        assert screen.details in shown and screen.ids.phone_link.text in shown
    finally:
        ui.close()


@pytest.mark.parametrize("language", list(NAMES))
def test_a_new_admin_pin_is_shown_whole_in_every_language(tmp_path, language):
    """The PIN is shown once: its line is never shortened, in the longest language."""
    ui = settings_in(tmp_path, language)
    try:
        screen = ui.app.screen("settings")
        screen.new_pin()
        ui.frames(3)
        assert screen.message and any(ch.isdigit() for ch in screen.message)
        readable(ui, f"settings-{language}-new-pin")
        shown = {t["text"] for t in screen_metrics(ui.window)["texts"]}
        assert screen.message in shown
    finally:
        ui.close()
