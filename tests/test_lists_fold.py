"""A scrolling list never stops with half a line at its fold without showing that it
scrolls: the opening's checklist, the tags screen, the past games, Settings, the pickers
(a list of buttons, the untagged card's, Tschak!'s cards and choices), the audit, the
scoring screen's deck and breakdown, the seats' record, the trouble screen's backups,
Tschak!'s set-up, in every language at 800x480 (the pickers of the box's names in one).

Each list is seen at its top, in its middle and at its bottom. Wherever it goes on
below (or above) its view, the fold falls between two lines: no line of text and no
button is cut by it, and nothing of what the band at the fold hides shows through. The
scroll bar is seen at rest, with an arrow at each end where the list goes on, and a
band with room for it wears a large arrow (their contrast measured from the window's
pixels); a tap on the band scrolls on. A list that fits shows neither band nor arrow.
A pop-up's list on the pop-up's colour, too.

With CLANK_SCREENSHOTS=<folder> every step is saved as lists-<lang>-<tour>-<nn>-<step>.png.
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
from companion.i18n import _  # noqa: E402
from companion.kinds.clank.screens.desk import desk_of  # noqa: E402
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


# ------------------------------------------------------------------ the tours
def close_popups(ui: Harness) -> None:
    for w in list(ui.window.children):
        if isinstance(w, ModalView):
            w.dismiss(animation=False)
    ui.frames(2)


def side_screens(ui: Harness) -> Iterator[str]:
    """The screens beside the game: past games, Settings, the tags."""
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


def clank_game(ui: Harness, pickers: bool = True) -> Iterator[str]:
    """A game at six, its lists from the opening to the seats' record: the checklist, the
    pickers (``pickers``), the audit of many draws, a long deck at the scoring."""
    from companion.kinds.clank.screens.choices import catalog_components

    app = ui.app
    ctl = app.controller
    ctl.new_game({"edition": "catacombs", "players": SIX, "party": True, "server_seed": SEED})
    app.show_screen(app.home_screen())
    yield "opening"
    for name in ("Tattle", "Sneak"):
        ctl.scan_component(Component("card", "catacombs", name))
    yield "opening-row"
    if pickers:
        app.open_scan_drawer()  # a picker: the box's components, two to a row
        yield "drawer"
        close_popups(ui)
        desk_of(app).pick_untagged_card()  # the dungeon cards, under a search field
        yield "untagged"
        close_popups(ui)
    for _card in range(2):  # a row of Clank! cards: not the catacombs' own
        ctl.drop_opening_card()
    assert ctl.begin()
    for player in SIX:  # six colours in the bag: a draw takes two lines of the audit
        ctl.clank(2, player)
    for _attack in range(5):
        ctl.do({"do": "attack"})
    close_popups(ui)
    ctl.do({"do": "artifact", "player": "red", "value": 25})
    ctl.do({"do": "escape", "player": "red"})
    for player in SIX[1:]:
        ctl.do({"do": "damage", "player": player, "n": 10})
    ui.frames(3)
    close_popups(ui)
    assert app.screens.current == "scoring"
    found = catalog_components("catacombs", cards=("starter", "reserve", "dungeon"), tokens=False)
    for c in found[:10]:  # a deck longer than its column
        ctl.add_to_deck(c.name, "red")
    ctl.add_to_deck("Boots of the Ape Lord", "red")  # three lines in its column
    ui.frames(3)
    assert not overflowing(app.screens.current_screen.ids.deck.children)
    yield "scoring"
    if pickers:
        ui.tap(_("Add a card by hand"))  # every card of the box
        yield "add-card"
        close_popups(ui)
    app.open_audit()
    yield "audit"
    assert ctl.close_game()
    close_popups(ui)
    app.show_screen("stats")
    app.screen("stats").show("seats")
    yield "seats"


def overflowing(buttons: list[Widget]) -> list[str]:
    """The buttons whose words, wrapped at their width, need more height than they
    have (each rendered apart, as Kivy draws a text whose height is free)."""
    from kivy.core.text import Label as CoreLabel

    out = []
    for b in buttons:
        options = {k: getattr(b, k) for k in Label._font_properties}
        core = CoreLabel(**{**options, "text_size": (b.width - 8, None)})
        core.refresh()
        if core.texture.size[1] > b.height:
            out.append(f"{b.text!r}: {core.texture.size[1]} px of words, {b.height:.0f} high")
    return out


def tschak_game(ui: Harness, pickers: bool = True) -> Iterator[str]:
    """Tschak! at three: the set-up, a setting's choices, the card picker (``pickers``)."""
    from companion.kinds.tschak.screens.base import open_tschak_drawer

    app = ui.app
    assert app.control("tschak").prepare(["red", "blue", "green"])
    ui.frames(2)
    assert app.screens.current == "tschak_setup"
    yield "tschak-setup"
    setup = app.screens.get_screen("tschak_setup")
    (row,) = [
        r for r in setup.ids.settings.children if getattr(r, "key", "") == "final_tie_monsters"
    ]
    ui.tap(row.ids.value)  # its choices, a button each
    yield "tschak-choices"
    close_popups(ui)
    if pickers:
        open_tschak_drawer()  # every face of the box, four to a row
        yield "tschak-drawer"
        close_popups(ui)


def main_screens(ui: Harness, pickers: bool = True) -> Iterator[str]:
    """The screens beside the game, then a game of Clank! from its opening to its end."""
    yield from side_screens(ui)
    yield from clank_game(ui, pickers)


TOURS = {"clank": main_screens, "tschak": tschak_game}
# the pickers of the box's cards and components: their lines are whole buttons of the
# box's names, alike in every language; seen in one
PICKERS_IN = "ru"


class Looks:
    """Every list a step of a tour shows, at its top, middle and bottom: what is wrong
    with its folds (and, with CLANK_SCREENSHOTS, the window at each)."""

    def __init__(self, ui: Harness, name: str) -> None:
        self.ui, self.name, self.n = ui, name, 0
        self.found: list[str] = []

    def __call__(self, step: str) -> None:
        self.ui.frames(3)  # the screen left is gone
        views = lists(self.ui)
        assert views, f"{step}: no list"
        for i, view in enumerate(views):
            for where, position in POSITIONS.items():
                view.scroll_y = position
                name = f"{step}-{i}-{where}"
                self.found += fold_problems(self.ui, view, name)
                if SHOTS is not None and (where != "bottom" or i == 0):
                    SHOTS.mkdir(parents=True, exist_ok=True)
                    self.ui.screenshot(SHOTS / f"lists-{self.name}-{self.n:02d}-{name}.png")
                    self.n += 1
            view.scroll_y = 1


@pytest.mark.parametrize("tour", TOURS)
@pytest.mark.parametrize("language", i18n.LANGUAGES)
def test_every_list_ends_on_whole_lines_and_shows_that_it_scrolls(tmp_path, language, tour):
    ui = open_ui(tmp_path, language)
    look = Looks(ui, f"{language}-{tour}")
    try:
        for step in TOURS[tour](ui, pickers=language == PICKERS_IN):
            look(step)
        assert not look.found, "\n".join(look.found)
    finally:
        ui.close()


def test_the_backups_list_too(tmp_path):
    """The trouble screen's copies of a database that cannot be used, more than its
    room holds (the words are a date: one language)."""
    from companion.store.backup import backup
    from tests.test_trouble_screen import StartedHarness, not_sqlite, played

    db = tmp_path / "games.db"
    source = played(tmp_path / "copied.db")
    for hour in range(9):
        backup(source, tmp_path / "backups", keep=9, now=1_700_000_000 + 3600 * hour)
    not_sqlite(db)
    ui = StartedHarness(Config(app=AppConfig(database=str(db), language="en")))
    look = Looks(ui, "en-trouble")
    try:
        ui.tap("Restore a backup")
        look("backups")
        assert not look.found, "\n".join(look.found)
    finally:
        ui.close()


def test_a_tap_on_the_band_brings_the_hidden_line_whole(tmp_path):
    ui = open_ui(tmp_path, "ru")
    try:
        steps = clank_game(ui, pickers=False)
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


def test_an_edge_that_cuts_a_whole_item_too_tall_for_a_band_folds_line_by_line(monkeypatch):
    """A text of six lines, 180 px high, in a view of 200 px whose bottom edge cuts it:
    whole, it would need a band of 140 px, over the limit (0.45 of the view); line by
    line, the band covers the one line the edge cuts. Neither found: no band at all."""
    view = FoldScroll(size=(300, 200))
    whole = [(0.0, 60.0), (60.0, 240.0), (240.0, 400.0)]  # a button, a text, the rest
    lines = [(60.0 + 30 * i, 90.0 + 30 * i) for i in range(6)]
    fine = [(0.0, 60.0), *lines, (240.0, 400.0)]
    monkeypatch.setattr(view, "seen", lambda: (100.0, 300.0, 200.0))  # bottom edge at 100
    monkeypatch.setattr(view, "_watch", lambda widgets: None)
    monkeypatch.setattr(view, "line_widgets", lambda: [])
    monkeypatch.setattr(view, "lines", lambda fine_=False: iter(fine if fine_ else whole))
    view.fold()
    assert view.more_below and view.below == 20.0  # up to the line at 120, not 0
    monkeypatch.setattr(view, "lines", lambda fine_=False: iter(whole))  # no line breaks
    view.fold()
    assert view.below == 0.0  # cut: the item is taller than a band may be
