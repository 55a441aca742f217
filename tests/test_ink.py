"""The ink of a screen's texts, measured from the window's pixels (companion.ui.ink): a
larger font measures higher ink, a figure is told from a word, a shortened text is
listed, and every screenshot writes its metrics beside it."""

from __future__ import annotations

import json
import os

import pytest

os.environ.setdefault("KIVY_WINDOW", "sdl2")

from companion.ui.harness import Harness  # noqa: E402
from companion.ui.ink import FIGURE, ink_height, screen_metrics  # noqa: E402


def test_ink_is_the_tallest_run_of_rows_that_stand_out():
    bg, ink = (20, 20, 30), (240, 240, 240)
    image = [[bg] * 10 for _ in range(12)]
    for row in (2, 3, 4, 5, 6):  # one line of text, 5 rows high
        image[row][4] = ink
    image[9][3] = ink  # an accent apart from it
    assert ink_height(image, 0, 0, 10, 12) == 5
    assert ink_height(image, 0, 0, 3, 12) == 0  # no ink there
    assert FIGURE.match("10") and FIGURE.match("−1") and FIGURE.match("5%")
    assert not FIGURE.match("End turn") and not FIGURE.match("☠ 5%")


@pytest.fixture
def ui(tmp_path, monkeypatch):
    monkeypatch.setenv("CLANK_CONFIG", str(tmp_path / "config.toml"))
    harness = Harness(tmp_path / "games.db")
    yield harness
    harness.close()


def test_a_larger_font_measures_higher_ink_and_a_cut_text_is_listed(ui):
    from kivy.uix.label import Label

    small = Label(text="Noise 12", font_size=16, size_hint=(None, None), size=(300, 60),
                  pos=(10, 300))  # fmt: skip
    large = Label(text="12", font_size=48, size_hint=(None, None), size=(300, 80),
                  pos=(10, 100))  # fmt: skip
    cut = Label(text="a text far too long to be read whole in so little room",
                font_size=20, size_hint=(None, None), size=(120, 40), pos=(400, 100),
                text_size=(120, 40), shorten=True)  # fmt: skip
    from kivy.graphics import Color, Rectangle

    for w in (small, large, cut):
        with w.canvas.before:  # a plain ground of its own: the screen beneath is not read
            Color(0.1, 0.1, 0.12, 1)
            Rectangle(pos=w.pos, size=w.size)
        ui.window.add_widget(w)
    try:
        ui.frames(3)
        texts = {t["text"]: t for t in screen_metrics(ui.window)["texts"]}
        assert texts["12"]["figure"] and not texts["Noise 12"]["figure"]
        assert 30 <= texts["12"]["ink"] <= 48  # a 48 px font draws a digit ~35 px high
        assert 9 <= texts["Noise 12"]["ink"] <= 16
        assert texts[cut.text]["cut"] == "shortened"
    finally:
        for w in (small, large, cut):
            ui.window.remove_widget(w)


def test_a_broken_word_is_listed_but_a_long_path_may_break(ui):
    """A word broken inside is a defect; a file's path longer than the screen is wide can
    only show broken (the trouble screen names the damaged file)."""
    from kivy.uix.label import Label

    word = Label(text="see Unverständlichkeitsbeschwerdeformular", font_size=26,
                 size_hint=(None, None), size=(200, 200), text_size=(200, None))  # fmt: skip
    path = Label(text="kept as /var/lib/clank-companion/backups/games.db.unusable-20261126",
                 font_size=26, size_hint=(None, None), size=(200, 200), text_size=(200, None),
                 pos=(300, 0))  # fmt: skip
    for w in (word, path):
        ui.window.add_widget(w)
    try:
        ui.frames(3)
        cut = screen_metrics(ui.window)["cut"]
        assert any("Unverständlichkeitsbeschwerdeformular" in c and "broken" in c for c in cut)
        assert not any("games.db" in c for c in cut)
    finally:
        for w in (word, path):
            ui.window.remove_widget(w)


def test_a_text_scrolled_partly_out_of_sight_is_not_measured(ui):
    """A list in a scrolled view shows its last entry cut by the view's edge until a
    finger scrolls to it: that sliver of ink is no text size; the entries in view are."""
    from kivy.uix.boxlayout import BoxLayout
    from kivy.uix.label import Label
    from kivy.uix.scrollview import ScrollView

    view = ScrollView(size_hint=(None, None), size=(300, 100), pos=(20, 200))
    column = BoxLayout(orientation="vertical", size_hint_y=None, height=240)
    for i in range(4):
        column.add_widget(Label(text=f"entry {i}", font_size=26, size_hint_y=None, height=60))
    view.add_widget(column)
    ui.window.add_widget(view)
    try:
        ui.frames(3)
        view.scroll_y = 1  # the first entry whole, the second cut by the bottom edge
        ui.frames(3)
        texts = {t["text"]: t for t in screen_metrics(ui.window)["texts"]}
        assert "entry 0" in texts and texts["entry 0"]["ink"] >= 14
        assert "entry 1" not in texts and "entry 3" not in texts
    finally:
        ui.window.remove_widget(view)


def test_a_screenshot_writes_its_metrics_beside_it(ui, tmp_path):
    shots = tmp_path / "shots"
    shots.mkdir()
    ui.screenshot(shots / "newgame.png")
    metrics = json.loads((shots / "metrics.json").read_text(encoding="utf-8"))
    found = metrics["newgame"]
    assert found["smallest_text_ink"] is not None and found["smallest_text_ink"] > 5
    assert set(found) == {"smallest_figure_ink", "smallest_text_ink", "cut"}


def test_a_text_shown_within_its_room_again_is_not_made_again(ui):
    """A name too long for its room is shortened once; drawn again as it was (the turn
    moved, a figure changed), its texture stays: no whole text made and cut each time."""
    from companion.ui.drawn import Ink

    ink = Ink(26)
    ink.show_within("Wilhelmina von Drachenfels-Brandenburg", (1, 1, 1, 1), 120)
    shortened, texture = ink.shortened, ink.rect.texture
    assert shortened and ink.size[0] <= 120
    ink.show_within("Wilhelmina von Drachenfels-Brandenburg", (1, 0.8, 0.3, 1), 120)
    assert ink.rect.texture is texture and ink.shortened
    assert tuple(ink.colour.rgba) == (1, 0.8, 0.3, 1)  # the colour follows
    ink.show_within("Wilhelmina von Drachenfels-Brandenburg", (1, 1, 1, 1), 300)
    assert ink.rect.texture is not texture and ink.size[0] <= 300  # a new room: made again
    ink.show("Red")  # shown otherwise in between: asked again, made again
    ink.show_within("Red", (1, 1, 1, 1), 300)
    assert ink.text == "Red" and not ink.shortened


def test_a_dash_alone_has_no_letter_height_and_is_not_the_smallest_text(ui):
    """A text's height is read from a digit or a capital: "—" in an empty cell of a
    table draws one thin stroke, and must not pass for a 2 px text."""
    from kivy.graphics import Color, Rectangle
    from kivy.uix.label import Label

    dash = Label(text="—", font_size=26, size_hint=(None, None), size=(80, 50), pos=(10, 300))
    word = Label(text="Gold", font_size=26, size_hint=(None, None), size=(120, 50),
                 pos=(200, 300))  # fmt: skip
    for w in (dash, word):
        with w.canvas.before:
            Color(0.1, 0.1, 0.12, 1)
            Rectangle(pos=w.pos, size=w.size)
        ui.window.add_widget(w)
    try:
        ui.frames(3)
        metrics = screen_metrics(ui.window)
        texts = {t["text"]: t for t in metrics["texts"]}
        assert 0 < texts["—"]["ink"] <= 4  # measured, and listed for a closer look
        assert texts["Gold"]["ink"] >= 15
        assert metrics["smallest_text_ink"] > texts["—"]["ink"]  # the dash is not counted
    finally:
        for w in (dash, word):
            ui.window.remove_widget(w)


def test_a_marked_up_text_is_measured_without_its_tags(ui):
    """A text's markup ("[font=...]", "[b]") takes no room on screen: a line that fits is
    not listed as shortened for the length of its tags."""
    from kivy.uix.label import Label

    text = "[font=DejaVuSans]\u25b2[/font] [b]ring[/b] of Power"
    line = Label(text=text, markup=True, font_size=26, shorten=True, size_hint=(None, None),
                 size=(260, 40), text_size=(260, 40), pos=(10, 200))  # fmt: skip
    ui.window.add_widget(line)
    try:
        ui.frames(3)
        texts = {t["text"]: t for t in screen_metrics(ui.window)["texts"]}
        assert texts[text]["cut"] == ""
        line.text = text + ", and much more than the line can hold"
        ui.frames(2)
        texts = {t["text"]: t for t in screen_metrics(ui.window)["texts"]}
        assert texts[line.text]["cut"] == "shortened"
    finally:
        ui.window.remove_widget(line)
