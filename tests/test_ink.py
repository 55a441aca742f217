"""The ink of a screen's texts, measured from the window's pixels (companion.ui.ink): a
digit's or a capital's height as drawn, without what hangs below the line, an accent, a
sign beside a digit or the next line; each text's role as the screen declares it; the
limits a screen's texts are held to; a shortened text listed; and every screenshot
writing its metrics beside it."""

from __future__ import annotations

import json
import os

import pytest

os.environ.setdefault("KIVY_WINDOW", "sdl2")

from companion.ui.harness import Harness  # noqa: E402
from companion.ui.ink import FIGURE, ink_height, problems, screen_metrics  # noqa: E402


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
        assert texts["12"]["digit_height"] > texts["Noise 12"]["digit_height"] >= 9
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
    assert found["smallest_text_cap"] is not None and found["smallest_text_cap"] >= 15
    assert {"smallest_figure_digits", "smallest_watched_cap", "smallest_text_cap", "cut",
            "texts", "smallest_figure_ink", "smallest_text_ink",
            "players"} == set(found)  # fmt: skip
    assert found["players"] == 0  # no game on the table yet
    texts = found["texts"]
    assert texts and all(
        set(t) == {"text", "role", "digit_height", "cap_height", "cut"} for t in texts
    )
    assert {t["role"] for t in texts} <= {"figure", "watched", "text"}
    assert problems(found, 4) == problems(screen_metrics(ui.window), 4)  # read alike


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
        assert texts["—"]["digit_height"] is None and texts["—"]["cap_height"] is None
        assert texts["Gold"]["cap_height"] >= 15
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


def samples(ui, *labels):
    """The texts measured, by their words, of ``labels`` drawn on a plain ground of
    their own in the window, above the screen (as a pop-up: the screen is not read)."""
    from kivy.graphics import Color, Rectangle
    from kivy.uix.floatlayout import FloatLayout
    from kivy.uix.modalview import ModalView

    sheet = ModalView(background_color=(0, 0, 0, 0), overlay_color=(0, 0, 0, 0))
    room = FloatLayout()
    sheet.add_widget(room)
    for w in labels:
        with w.canvas.before:
            Color(0.1, 0.1, 0.12, 1)
            Rectangle(pos=w.pos, size=w.size)
        room.add_widget(w)
    ui.window.add_widget(sheet)
    try:
        ui.frames(3)
        metrics = screen_metrics(ui.window)
        return metrics, {t["text"]: t for t in metrics["texts"]}
    finally:
        ui.window.remove_widget(sheet)
        room.clear_widgets()


def sample(text, font_size, at, **options):
    """A Label showing ``text`` in a box of its own at ``at`` (window px)."""
    from kivy.uix.label import Label

    return Label(text=text, font_size=font_size, size_hint=(None, None), size=(190, 110),
                 pos=at, **options)  # fmt: skip


def coverage_rows(text, font_size):
    """How many rows of ``text``, rendered alone, its glyphs cover by half or more: its
    height as the font draws it, read apart from the window and from the measure."""
    from kivy.core.text import Label as CoreLabel

    core = CoreLabel(text=text, font_size=font_size)
    core.refresh()
    width, height = core.texture.size
    alpha = core.texture.pixels[3::4]
    return sum(max(alpha[r * width : (r + 1) * width]) >= 128 for r in range(height))


def test_a_zero_drawn_thirty_pixels_high_measures_thirty(ui):
    size = next(s for s in range(30, 60) if coverage_rows("0", s) == 30)
    metrics, texts = samples(ui, sample("0", size, (20, 300)), sample("10 %", size, (300, 300)))
    assert abs(texts["0"]["digit_height"] - 30) <= 1, texts["0"]
    assert texts["0"]["role"] == "figure" and texts["0"]["cap_height"] is None
    assert abs(texts["10 %"]["digit_height"] - 30) <= 1
    assert metrics["smallest_figure_digits"] == min(t["digit_height"] for t in texts.values())


def test_a_sign_or_a_descender_beside_digits_does_not_count(ui):
    """The audit's "#1" read 20 px where its digit is 16: a "#", a "%", a bracket, a
    letter's tail beside a digit are not its height."""
    size = 36
    at = [(10 + 195 * (i % 4), 20 + 115 * (i // 4)) for i in range(8)]
    mono = {"font_name": "RobotoMono-Regular"}
    _metrics, texts = samples(
        ui,
        sample("1", size, at[0]),
        sample("#1", size, at[1]),
        sample("(#1)", size, at[2]),
        sample("нокаут 5%", size, at[3]),
        sample("1j", size, at[4]),
        sample("2 damage", size, at[5]),
        sample("[b]#[/b]1g", size, at[6], markup=True, **mono),
    )
    one = texts["1"]["digit_height"]
    assert one >= 24
    for text in ("#1", "(#1)", "нокаут 5%", "1j", "2 damage", "[b]#[/b]1g"):
        assert abs(texts[text]["digit_height"] - one) <= 1, (text, texts[text])
        assert texts[text]["cap_height"] is None
    # the tallest run of ink, the earlier measure, counted them
    assert texts["(#1)"]["ink"] > one + 3 and texts["1j"]["ink"] > one + 3


def test_lowercase_reports_the_height_of_its_fonts_capital(ui):
    """A text of lowercase letters alone ("g", "нокаут") is as high as a reader takes it
    for: the height a capital of its font draws, not its x-height nor its descender."""
    size = 36
    _metrics, texts = samples(
        ui,
        sample("H", size, (10, 20)),
        sample("g", size, (210, 20)),
        sample("нокаут", size, (410, 20)),
        sample("Hg", size, (10, 200)),
        sample("gj", size, (210, 200), bold=True),
        sample("H ", size, (410, 200), bold=True),
    )
    cap = texts["H"]["cap_height"]
    assert abs(cap - coverage_rows("H", size)) <= 1
    for text in ("g", "нокаут", "Hg"):
        assert texts[text]["cap_height"] == cap and texts[text]["digit_height"] is None, text
    assert texts["gj"]["cap_height"] == texts["H "]["cap_height"]  # in its own (bold) font


def test_an_accent_over_a_capital_does_not_count(ui):
    size = 40
    _metrics, texts = samples(
        ui,
        sample("E", size, (10, 20)),
        sample("Ё", size, (210, 20)),
        sample("É", size, (410, 20)),
        sample("ÉTÉ", size, (10, 200)),
        sample("Щука", size, (210, 200)),
    )
    cap = texts["E"]["cap_height"]
    for text in ("Ё", "É", "ÉTÉ", "Щука"):
        assert texts[text]["cap_height"] == cap, (text, texts[text])


def test_a_text_of_two_lines_measures_one(ui):
    """Lines laid close (a line height under 1, as the scores are): a tail of the line
    above touches an accent or a digit of the line below; one line is measured."""
    size = 40
    close = {"line_height": 0.75}
    _metrics, texts = samples(
        ui,
        sample("E", size, (10, 20)),
        sample("12", size, (210, 20)),
        sample("Hg\nHg", size, (410, 20), **close),
        sample("gy\nÉ", size, (10, 200), **close),
        sample("gy\n12", size, (210, 200), **close),
        sample("Round\nof 12", size, (410, 200)),
    )
    cap, digits = texts["E"]["cap_height"], texts["12"]["digit_height"]
    assert texts["Hg\nHg"]["cap_height"] == cap and texts["gy\nÉ"]["cap_height"] == cap
    assert texts["gy\n12"]["digit_height"] == digits
    assert texts["Round\nof 12"]["digit_height"] == digits
    assert texts["gy\nÉ"]["ink"] > cap + 5  # the earlier measure ran the lines together


def test_what_the_window_shows_is_measured_not_what_the_font_would_draw(ui):
    """Digits half hidden by what is drawn over them measure what shows of them; the
    letters beside them, whole, do not stand in for them."""
    from kivy.core.text import Label as CoreLabel
    from kivy.uix.widget import Widget

    size = 40
    label = sample("12 Gold", size, (20, 200))
    whole = sample("12", size, (300, 200))
    label.texture_update()
    core = CoreLabel(text="12", font_size=size)
    core.refresh()
    tw, th = label.texture_size
    left, bottom = int(label.center_x - tw / 2), int(label.center_y - th / 2)
    # over the upper half of the texture, as wide as the digits: their tops hidden
    cover = Widget(size_hint=(None, None), pos=(left, bottom + th // 2),
                   size=(core.content_size[0], th - th // 2))  # fmt: skip
    _metrics, texts = samples(ui, label, whole, cover)
    shown, full = texts["12 Gold"]["digit_height"], texts["12"]["digit_height"]
    assert full >= 26 and 4 <= shown <= full - 8, (shown, full)


def test_a_screen_declares_what_its_texts_are(ui):
    """A Label says its role with ``ink_role``, as a class attribute or a Kivy property;
    unsaid, a number alone is a figure unless the label says it is none. A drawn widget
    names its figures and its watched texts; the others are as it says, or texts."""
    from kivy.properties import StringProperty
    from kivy.uix.label import Label

    from companion.ui.drawn import DrawnWidget

    class Status(Label):
        ink_role = "watched"

    class Odds(Label):
        ink_role = StringProperty("figure")

    class Count(Label):
        figure = False

    class Bag(DrawnWidget):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.count = self.ink(44)
            self.word = self.ink(30)
            self.note = self.ink(26)

        def draw(self):
            for ink, text, y in ((self.count, "24", 0), (self.word, "bag", 50),
                                 (self.note, "left 3", 90)):  # fmt: skip
                ink.show(text)
                ink.place(self.x, self.y + y)

        def figures(self):
            return [t for t in (self.count.seen(self),) if t]

        def watched(self):
            return [t for t in (self.word.seen(self),) if t]

    at = dict(size_hint=(None, None), size=(190, 60), font_size=30)
    bag = Bag(size_hint=(None, None), size=(190, 130), pos=(600, 300))
    said = Label(text="ready 3", pos=(10, 400), **at)
    said.ink_role = "figure"  # a property made on the spot, as kv makes one
    metrics, texts = samples(
        ui,
        Status(text="Red's turn", pos=(10, 20), **at),
        Odds(text="knock-out 5%", pos=(210, 20), **at),
        Label(text="12", pos=(410, 20), **at),
        Count(text="7", pos=(10, 100), **at),
        Label(text="Undo", pos=(210, 100), **at),
        Odds(text="0%", ink_role="text", pos=(410, 100), **at),
        said,
        bag,
    )
    roles = {text: t["role"] for text, t in texts.items()}
    assert roles == {"Red's turn": "watched", "knock-out 5%": "figure", "12": "figure",
                     "7": "text", "Undo": "text", "0%": "text", "ready 3": "figure",
                     "24": "figure", "bag": "watched", "left 3": "text"}  # fmt: skip
    assert texts["24"]["digit_height"] >= 28 and texts["bag"]["cap_height"] >= 18
    assert metrics["smallest_watched_cap"] == min(
        texts["Red's turn"]["cap_height"], texts["bag"]["cap_height"]
    )
    # a number in a text that is no figure counts as that text's height
    assert metrics["smallest_text_cap"] == min(
        texts["7"]["digit_height"], texts["0%"]["digit_height"], texts["left 3"]["digit_height"],
        texts["Undo"]["cap_height"],
    )  # fmt: skip
    bag.ink_role = "watched"  # a drawn widget says what its other texts are
    _metrics, texts = samples(ui, bag)
    assert texts["left 3"]["role"] == "watched" and texts["24"]["role"] == "figure"


def _text(text, role, digit=None, cap=None):
    return {"text": text, "role": role, "digit_height": digit, "cap_height": cap, "cut": ""}


def test_the_limits_depend_on_who_reads_and_how_many_play():
    metrics = {"texts": [
        _text("5", "figure", digit=28),
        _text("knock-out 5%", "figure", digit=31),
        _text("Red's turn", "watched", cap=20),
        _text("Rage 3", "watched", digit=21),
        _text("Undo", "text", cap=17),
        _text("2 left", "text", digit=18),
        _text("—", "text"),
        _text("?", "figure"),
        _text("x", "figures", cap=30),
    ]}  # fmt: skip
    four = problems(metrics, 4)
    assert four == [
        "figure '5': digits 28 px high, under 30",
        'watched "Red\'s turn": capitals 20 px high, under 21',
        "text 'Undo': capitals 17 px high, under 18",
        "'x' says its role is 'figures' (one of figure, watched, text)",
    ]
    six = problems(metrics, 6)
    assert not any("'5'" in p for p in six) and len(six) == 3  # 26 px with 5-6 players
    assert problems({"texts": [_text("5", "figure", digit=26)]}, 5) == []
    assert problems({"texts": [_text("5", "figure", digit=25)]}, 6) == [
        "figure '5': digits 25 px high, under 26"
    ]


def test_every_screenshot_is_held_to_the_limits_at_its_tables_size(ui, tmp_path):
    """``./dev screenshots`` ends by holding each screenshot of its metrics.json to the
    limits at the players its table had: a figure of 27 px passes at six players and
    fails at four; a text of 14 px fails anywhere; a file of screens all within passes."""
    from companion.ui.ink import held, main

    size = next(s for s in range(20, 60) if coverage_rows("0", s) == 27)
    metrics, _texts = samples(ui, sample("24", size, (20, 300)))
    shots = {"six": {**metrics, "players": 6}, "four": {**metrics, "players": 4}}
    small, _ = samples(ui, sample("Noise", 14, (20, 300)))
    shots["words"] = {**small, "players": 6}
    found = held(shots)
    assert set(found) == {"four", "words"}, found
    assert "figure '24': digits 27 px high, under 30" in found["four"]
    assert any("'Noise'" in p and "under 18" in p for p in found["words"]), found["words"]
    path = tmp_path / "metrics.json"
    path.write_text(json.dumps(shots), encoding="utf-8")
    assert main([str(path)]) == 1
    path.write_text(json.dumps({"six": shots["six"]}), encoding="utf-8")
    assert main([str(path)]) == 0
