"""A scrolling list never stops with half a line at its fold without showing that it
scrolls: the opening's checklist, the tags screen, the past games, Settings, in every
language at 800x480.

Each list is seen at its top, in its middle and at its bottom. Wherever it goes on
below (or above) its view, the fold falls between two lines: no line of text and no
button is cut by it, and nothing of what the band at the fold hides shows through. The
scroll bar is seen at rest, with an arrow at each end where the list goes on, and a
band with room for it wears a large arrow (their contrast measured from the window's
pixels); a tap on the band scrolls on. A list that fits shows neither band nor arrow.
A pop-up's list, laid out as the pickers', on the pop-up's colour, too.

With CLANK_SCREENSHOTS=<folder> every step is saved as lists-<lang>-<nn>-<step>.png.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("KIVY_WINDOW", "sdl2")
from kivy.config import Config as KivyConfig  # noqa: E402

KivyConfig.set("graphics", "width", "800")
KivyConfig.set("graphics", "height", "480")

from kivy.metrics import dp  # noqa: E402
from kivy.uix.behaviors import ButtonBehavior  # noqa: E402
from kivy.uix.label import Label  # noqa: E402
from kivy.uix.modalview import ModalView  # noqa: E402
from kivy.uix.widget import Widget  # noqa: E402

from companion import i18n  # noqa: E402
from companion.config import AppConfig, Config  # noqa: E402
from companion.store.tags import Component  # noqa: E402
from companion.ui.fold import FoldScroll, text_lines  # noqa: E402
from companion.ui.harness import Harness, window_pixels  # noqa: E402

SHOTS = Path(os.environ["CLANK_SCREENSHOTS"]) if os.environ.get("CLANK_SCREENSHOTS") else None
SEED = "5eed" * 16
SIX = ["red", "yellow", "green", "blue", "purple", "orange"]
CONTRAST = 3.0  # a part of the screen that says something (WCAG 2.1, 1.4.11)
POSITIONS = {"top": 1.0, "middle": 0.5, "bottom": 0.0}
Colour = tuple[int, int, int]


@pytest.fixture(autouse=True)
def english_afterwards():
    yield
    i18n.set_language("en")


def open_ui(tmp_path: Path, language: str) -> Harness:
    db = tmp_path / "games.db"
    return Harness(db, Config(app=AppConfig(database=str(db), language=language)))


def lists(ui: Harness) -> list[FoldScroll]:
    """The scrolling lists the window shows (a pop-up's, when one is open over it)."""
    popups = [w for w in ui.window.children if isinstance(w, ModalView)]
    shown = popups[0].walk() if popups else ui.widgets()
    return [w for w in shown if isinstance(w, FoldScroll) and w.opacity > 0
            and w.get_root_window() is not None and w.height > 1]  # fmt: skip


def pop_up_list(entries: list[str]) -> ModalView:
    """A pop-up with a list of big buttons, two to a row, laid out as the pickers' are
    (kv/popups.kv), its list a FoldScroll on the pop-up's own colour."""
    from kivy.graphics import Color, Rectangle
    from kivy.uix.boxlayout import BoxLayout
    from kivy.uix.gridlayout import GridLayout

    from companion.ui.screens.kit import table_button

    ground = [0.16, 0.17, 0.2, 1]
    view = ModalView(size_hint=(0.96, 0.94))
    box = BoxLayout(orientation="vertical", padding=dp(6))
    with box.canvas.before:
        Color(*ground)
        back = Rectangle()
    box.bind(pos=lambda w, pos: setattr(back, "pos", pos))
    box.bind(size=lambda w, size: setattr(back, "size", size))
    scroll = FoldScroll(fade=ground)
    grid = GridLayout(cols=2, spacing=dp(8), padding=(0, 0, dp(14), 0), size_hint_y=None)
    grid.bind(minimum_height=grid.setter("height"))
    for text in entries:
        grid.add_widget(table_button(text, lambda: None))
    scroll.add_widget(grid)
    box.add_widget(scroll)
    view.add_widget(box)
    view.open(animation=False)
    return view


# ------------------------------------------------------------------ seen from the window
def luminance(c: Colour) -> float:
    def linear(v: int) -> float:
        s = v / 255
        return s / 12.92 if s <= 0.04045 else ((s + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(v) for v in c)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: Colour, b: Colour) -> float:
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def pixels(x: float, y: float, w: float, h: float) -> list[Colour]:
    return window_pixels(round(x), round(y), max(1, round(w)), max(1, round(h)))


def most_apart(colours: list[Colour], ground: Colour) -> float:
    """The strongest contrast of a colour seen in a region against ``ground``."""
    return max(contrast(c, ground) for c in colours)


def line_boxes(view: FoldScroll) -> list[tuple[Widget, float, float]]:
    """Each line of the list in window coordinates (widget, bottom, top): a button
    whole, a text line by line."""
    out = []
    for w in view.line_widgets():
        bottom = w.to_window(w.x, w.y)[1]
        if isinstance(w, Label) and not isinstance(w, ButtonBehavior):
            out += [(w, b, t) for b, t in text_lines(w, bottom)]
        else:
            out.append((w, bottom, bottom + w.height))
    return out


def fold_problems(ui: Harness, view: FoldScroll, where: str) -> list[str]:
    """What the list shows wrong at its folds, measured on the window."""
    ui.frames(3)
    found = []
    x, y = view.to_window(view.x, view.y)
    top = y + view.height
    content = view.viewport_size[1]
    if content <= view.height + 1:
        if view.below or view.above or view.more_below or view.more_above:
            found.append(f"{where}: a list that fits shows a band or an arrow")
        return found
    at_top, at_bottom = view.scroll_y >= 0.999, view.scroll_y <= 0.001
    if view.more_below == at_bottom or view.more_above == at_top:
        found.append(f"{where}: the arrows do not say where the list goes on")
    low, high = y + view.below, top - view.above  # the folds
    for w, bottom, up in line_boxes(view):
        if up <= low + 1 or bottom >= high - 1:
            continue  # out of sight (under a band or beyond the edge)
        if bottom < low - 1 or up > high + 1:
            text = getattr(w, "text", "")
            found.append(f"{where}: {text[:30]!r} is cut at the fold ({bottom:.0f}-{up:.0f})")
    # the scroll bar, seen at rest: its handle against its track
    bx = view.to_window(view.right - view.bar_width, view.y)[0] + view.bar_width / 2
    hy = view.to_window(0, view._handle_y_pos[1])[1]
    hh = view._handle_y_size[1]
    handle = pixels(bx, hy + hh / 2, 1, 1)[0]
    free_at = [v for v in (y + dp(16), top - dp(16)) if not hy - 2 <= v <= hy + hh + 2]
    track = pixels(bx, free_at[0], 1, 1)[0] if free_at else None
    if track is not None and contrast(handle, track) < CONTRAST:
        found.append(f"{where}: the scroll bar {handle} is not seen on its track {track}")
    ground = (77, 79, 92) if track is None else track
    for more, end in ((view.more_below, y + dp(3)), (view.more_above, top - dp(9))):
        arrow = pixels(bx - view.bar_width / 2 + 1, end, view.bar_width - 2, dp(6))
        if more and most_apart(arrow, ground) < CONTRAST:
            found.append(f"{where}: no arrow seen at the end of the scroll bar")
    # a band is of one colour but for its arrow: nothing of the line it hides shows
    middle = x + (view.width - view.bar_width) / 2
    for band, bottom in ((view.below, y), (view.above, top - view.above)):
        if band < 2:
            continue
        left = pixels(x, bottom + 1, middle - dp(20) - x, band - 2)
        fill = pixels(x, bottom + band / 2, 1, 1)[0]
        if most_apart(left, fill) > 1.05:
            found.append(f"{where}: the band shows what it hides")
        arrow = pixels(middle - 3, bottom + band / 2 - 2, 6, 4)
        if band >= dp(22) and most_apart(arrow, fill) < CONTRAST:
            found.append(f"{where}: the band's arrow is not seen")
    return found


def tour(ui: Harness) -> Iterator[str]:
    app = ui.app
    ctl = app.controller
    for _game in range(9):  # past games enough to scroll
        ctl.new_game({"edition": "clank", "players": ["red", "blue"], "server_seed": SEED})
        ctl.abandon()
        ctl.close_game()
    app.show_screen("pastgames")
    yield "past-games"
    app.show_screen("settings")
    yield "settings"
    app.show_screen("tags")
    tags = app.screen("tags")
    tags.start("bulk")
    for n in range(3):
        tags.scanned(f"0400000000000{n}")
    yield "tags"
    said = []
    for n in range(3, 7):  # what the last scans did, more than the room holds
        tags.scanned(f"0400000000000{n}")
        said.append(tags.prompt)
    tags.prompt = "\n".join(said)
    yield "tags-long"
    tags.stop()
    ctl.new_game({"edition": "catacombs", "players": SIX, "party": True, "server_seed": SEED})
    app.show_screen(app.home_screen())
    yield "opening"
    for name in ("Tattle", "Sneak"):
        ctl.scan_component(Component("card", "catacombs", name))
    yield "opening-row"
    from companion.ui.screens.choices import catalog_components, component_label

    found = catalog_components("catacombs", cards=("dungeon",), tokens=False)
    picker = pop_up_list([component_label(c) for c in found][:24])
    yield "pop-up"
    picker.dismiss(animation=False)


@pytest.mark.parametrize("language", i18n.LANGUAGES)
def test_every_list_ends_on_whole_lines_and_shows_that_it_scrolls(tmp_path, language):
    ui = open_ui(tmp_path, language)
    found: list[str] = []
    try:
        n = 0
        for step in tour(ui):
            ui.frames(3)  # the screen left is gone
            views = lists(ui)
            assert views, f"{step}: no list"
            for i, view in enumerate(views):
                for where, position in POSITIONS.items():
                    view.scroll_y = position
                    name = f"{step}-{i}-{where}"
                    found += fold_problems(ui, view, name)
                    if SHOTS is not None and (where != "bottom" or i == 0):
                        SHOTS.mkdir(parents=True, exist_ok=True)
                        ui.screenshot(SHOTS / f"lists-{language}-{n:02d}-{name}.png")
                        n += 1
                view.scroll_y = 1
        assert not found, "\n".join(found)
    finally:
        ui.close()


def test_a_tap_on_the_band_brings_the_hidden_line_whole(tmp_path):
    ui = open_ui(tmp_path, "ru")
    try:
        steps = tour(ui)
        while next(steps) != "opening-row":
            pass
        ui.frames(3)
        (view,) = lists(ui)
        assert view.scroll_y == 1 and view.below >= dp(22) and not view.more_above
        y = view.to_window(view.x, view.y)[1]
        hidden = [w for w, bottom, top in line_boxes(view) if bottom < y < top]
        assert len(hidden) == 1
        ui.tap(view)  # its middle: a line of the list, not the band
        assert view.scroll_y == 1
        touch_at = view.to_window(view.center_x, view.y + view.below / 2)
        from kivy.tests.common import UnitTestTouch

        touch = UnitTestTouch(*touch_at)
        touch.touch_down()
        touch.touch_up()
        ui.frames(3)
        assert view.scroll_y < 1 and view.more_above
        (w,) = hidden
        bottom = w.to_window(w.x, w.y)[1]
        top = view.to_window(view.x, view.top)[1]
        assert y + view.below - 1 <= bottom and bottom + w.height <= top - view.above + 1
        assert fold_problems(ui, view, "after the tap") == []
    finally:
        ui.close()
