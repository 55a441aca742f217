"""The window drawn again only where it changed (companion.ui.paint, companion.ui.damage)
shows, at every frame, what drawing it whole shows, pixel for pixel.

The painter's check draws every frame a second time, whole, into a framebuffer of its
own and compares: a difference raises PaintMismatch in the frame that made it. Here it
is on through a game played by taps and scans (pop-ups, the table, a refill, other
screens and back), and the game is held to having drawn most frames in part only.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import given
from hypothesis import strategies as st

os.environ.setdefault("KIVY_WINDOW", "sdl2")

from companion.ui import damage  # noqa: E402
from companion.ui.damage import MAX_PASSES, area, merged  # noqa: E402
from companion.ui.harness import Harness  # noqa: E402
from companion.ui.paint import PaintMismatch, painter_of, to_draw  # noqa: E402

WHOLE = 800 * 480


@pytest.fixture(params=["window", "page"])
def ui(request, tmp_path, monkeypatch):
    """The app, its painter checking every frame: drawn straight into the window (whose
    buffer keeps the last frame), or on the page copied to it (a window that does not
    say what its buffer holds)."""
    from companion.kinds.clank.screens.attack import AttackView

    monkeypatch.setattr(AttackView, "STEP", 3600.0)
    harness = Harness(tmp_path / "games.db")
    painter = painter_of(harness.window)
    assert painter is not None
    asked = painter.check, painter.page_only  # as the environment asked
    painter.check, painter.whole = True, True
    painter.page_only = request.param == "page"
    drawn: list[int] = []  # the pixels each frame drew again

    def note(*args):
        assert painter.mode in (request.param, "kivy")
        if painter.mode == request.param:
            drawn.append(sum(area(b) for b in painter.drawn))

    harness.window.fbind("on_flip", note)
    harness.drawn = drawn
    yield harness
    harness.window.funbind("on_flip", note)
    painter.check, painter.page_only = asked
    harness.close()


def drawer(ui: Harness, *picks: str) -> None:
    for pick in picks:
        ui.tap("Scan drawer")
        ui.tap(pick)


def at_the_table(ui: Harness) -> None:
    """Red and Blue, three cards scanned into the opening row, the first turn begun."""
    from companion.ui.screens.popups import INERT

    ui.tap("Red")
    ui.tap("Blue")
    ui.tap("Start game")
    drawer(ui, "Tattle", "Sneak", "Search")
    ui.tap("Start the first turn")
    ui.frames(2, seconds=INERT + 0.1)
    ui.tap("Yes, start the first turn")


def test_every_frame_of_a_game_drawn_where_it_changed_is_the_frame_drawn_whole(ui):
    at_the_table(ui)
    assert ui.app.screens.current == "table"
    ui.frames(2, seconds=1.2)
    before = len(ui.drawn)
    for step in (1, -1, 2):  # a clank tapped in the actions: the panel's figure changes
        ui.app.controller.clank(step)
        ui.frames(2, seconds=1.2)  # the panel settles: its veil goes
    clanks = ui.drawn[before:]
    ui.on_panel("red", "Clank! +1")
    ui.on_panel("blue", "Clank! +1")
    ui.tap("Undo")
    ui.tap("Sneak")  # bought: it leaves the row, the others keep their places
    ui.tap("End Red's turn")
    drawer(ui, "Bracers of Agility")
    ui.tap("No tag")
    ui.tap("No tag: no dragon")
    ui.tap("Undo")
    ui.tap(ui.app.screens.get_screen("table").end_turn_text)
    assert ui.snapshot["turn"]["active"] == "blue"
    ui.tap("Menu")
    ui.frames(2, seconds=1.2)
    ui.tap("Settings")
    ui.frames(2, seconds=1.2)
    ui.app.show_screen(ui.app.home_screen())
    ui.frames(3, seconds=1.2)
    # every frame above passed the check, a pop-up's (the whole window darkened or
    # lit again) and a table's alike; a clank drew again a part of its panel (veiled for
    # a second: the whole panel, a quarter of the window at two players) and no more
    assert len(ui.drawn) > 40 and sum(1 for px in ui.drawn if px < WHOLE // 2) > 15
    assert len(clanks) >= 6 and max(clanks) < WHOLE // 2 and min(clanks) < WHOLE // 50


def test_the_check_finds_a_change_the_search_left_out(ui, monkeypatch):
    ui.tap("Red")
    ui.tap("Blue")
    ui.frames(2, seconds=1.2)
    monkeypatch.setattr(damage.Damage, "find", lambda self: [])  # "nothing changed"
    with pytest.raises(PaintMismatch, match="differs from the frame drawn whole"):
        ui.tap("Yellow")
        ui.frames(3, seconds=1.2)


boxes = st.tuples(
    st.integers(-50, 850), st.integers(-50, 530), st.integers(0, 400), st.integers(0, 300)
).map(lambda b: (b[0], b[1], b[0] + b[2], b[1] + b[3]))


@given(st.lists(boxes, max_size=12))
def test_the_boxes_drawn_hold_every_box_that_changed_within_the_window(found):
    limit = (0, 0, 800, 480)
    drawn = merged(found, limit)
    assert len(drawn) <= MAX_PASSES
    for x0, y0, x1, y1 in drawn:
        assert 0 <= x0 < x1 <= 800 and 0 <= y0 < y1 <= 480
    assert_held(found, drawn)


def assert_held(found: list, drawn: list) -> None:
    """Every box found (its part inside the window) lies inside one of those drawn."""
    for b in found:
        inside = max(b[0], 0), max(b[1], 0), min(b[2], 800), min(b[3], 480)
        if area(inside) == 0:
            continue
        assert any(
            d[0] <= inside[0] and d[1] <= inside[1] and inside[2] <= d[2] and inside[3] <= d[3]
            for d in drawn
        ), (b, drawn)


def test_a_text_inputs_cursor_drawn_downwards_is_drawn_again_as_it_blinks(ui):
    """Kivy draws a text input's cursor with a negative height: its box is below its
    place, and the search once took it for nothing drawn (found by the monkey)."""
    from kivy.uix.textinput import TextInput

    from companion.ui.damage import _own_instructions, extent

    field = TextInput(size_hint=(None, None), size=(300, 60), pos=(40, 300))
    ui.window.add_widget(field)
    try:
        ui.frames(2)
        field.focus = True
        for _ in range(6):  # the cursor blinks every half second: each frame is checked
            ui.frames(2, seconds=0.6)
        cursor = [i for i in _own_instructions(field) if getattr(i, "size", (0, 0))[1] < 0]
        assert cursor and extent(cursor[0]) is not None
        x0, y0, x1, y1 = extent(cursor[0])
        assert y1 - y0 > 10 and x1 > x0
    finally:
        field.focus = False
        ui.window.remove_widget(field)


@given(
    st.lists(st.lists(boxes, max_size=4), max_size=6),
    st.lists(boxes, max_size=4),
    st.integers(0, 9),
)
def test_a_window_buffer_drawn_frames_ago_is_brought_to_this_frame(changes, changed, age):
    """A window of several buffers says how many frames ago the one about to be drawn
    was drawn (its age): every box that changed since is drawn again in it, or all of
    it when those frames are not known; an unknown age (0) leaves the frame to the
    page."""
    whole = (0, 0, 800, 480)
    drawn = to_draw(changes, changed, age, whole)
    if age == 0:
        assert drawn is None
        return
    assert drawn is not None
    if age - 1 > len(changes):
        assert drawn == [whole]
        return
    since = changes[len(changes) - age + 1 :] if age > 1 else []
    assert_held(changed + [box for frame in since for box in frame], drawn)
    if age == 1:  # the last frame's changes are in the buffer already
        assert drawn == merged(changed, whole)


def test_a_painting_switch_it_does_not_know_is_said_and_changes_nothing(monkeypatch, caplog):
    """CLANK_PAINT takes 0 (Kivy draws every frame whole) or page (never straight into
    the window); anything else is said in one line, and the window is painted as
    without it."""
    from types import SimpleNamespace

    from companion.ui import paint

    window = SimpleNamespace(on_draw=lambda: None)
    monkeypatch.setenv("CLANK_PAINT", "pgae")
    with caplog.at_level("WARNING", logger="companion.ui.paint"):
        painter = paint.install(window)
    assert not painter.off and not painter.page_only
    assert [r.getMessage() for r in caplog.records] == [
        "CLANK_PAINT=pgae is neither 0 nor page: the window is drawn again where it "
        "changed, as without it"
    ]


@given(st.tuples(st.integers(0, 30), st.integers(0, 30), st.integers(1, 30), st.integers(1, 30))
       .map(lambda b: (b[0], b[1], b[0] + b[2], b[1] + b[3])),
       st.lists(st.tuples(st.integers(-5, 40), st.integers(-5, 40), st.integers(0, 30),
                          st.integers(0, 30)).map(lambda b: (b[0], b[1], b[0] + b[2], b[1] + b[3])),
                max_size=5))  # fmt: skip
def test_the_window_is_cleared_in_a_box_wherever_no_opaque_copy_covers_it(box, covers):
    def pixels(b):
        return {(x, y) for x in range(b[0], b[2]) for y in range(b[1], b[3])}

    parts = damage.uncovered(box, covers)
    cleared = [pixels(b) for b in parts]
    assert all(b[0] < b[2] and b[1] < b[3] for b in parts)
    assert sum(map(len, cleared)) == len(set().union(*cleared))  # none drawn twice
    covered = set().union(*(pixels(c) for c in covers)) & pixels(box)
    assert set().union(*cleared) == pixels(box) - covered  # all the rest, nothing under


def test_a_part_said_opaque_that_is_not_is_found_by_the_check(ui):
    """The window is not cleared under an opaque part's copy: a part that leaves some of
    its box unpainted shows there what the window held before, and the check sees it."""
    from kivy.graphics import Color, Rectangle
    from kivy.uix.widget import Widget

    from companion.ui.cached import Cached

    ui.tap("Red")
    ui.frames(2, seconds=1.2)
    part = Cached(opaque=True, size_hint=(None, None), size=(120, 80), pos=(300, 200))
    block = Widget()
    with block.canvas:
        Color(1, 0, 0, 1)
        half = Rectangle(size=(60, 80))  # the left half painted, the right left empty
    part.add_widget(block)
    ui.window.add_widget(part)
    try:
        ui.until(lambda: part.fbo is not None)
        ui.frames(2)
        with pytest.raises(PaintMismatch, match="differs from the frame drawn whole"):
            half.pos = (60, 0)  # the left half empty now: the old red stays under it
            ui.frames(2)
        # as it is: cleared under, drawn as the whole frame is (the painter drew the
        # frame after the mismatch whole: it healed it)
        part.opaque = False
        half.pos = (0, 0)
        ui.frames(2)
        half.pos = (60, 0)
        ui.frames(2)
    finally:
        ui.window.remove_widget(part)


def test_six_players_panels_between_pixels_are_drawn_as_the_whole_frame(tmp_path):
    """With 5-6 players a panel lies a third of a pixel off: its copy is blended (not a
    texel for a pixel) and the window is cleared along its edges; a clank and a turn
    passing are drawn as the whole frame is (the check is on)."""
    from companion.config import AppConfig, Config
    from companion.ui.cached import covering

    db = tmp_path / "games.db"
    ui = Harness(db, Config(app=AppConfig(database=str(db))))
    painter = painter_of(ui.window)
    asked = painter.check
    painter.check = painter.whole = True
    try:
        ctl = ui.app.controller
        seats = ["red", "yellow", "green", "blue", "purple", "orange"]
        ctl.new_game({"edition": "clank", "players": seats, "party": True})
        ctl.begin()
        ui.frames(3, seconds=1.2)
        slots = [p.parent for p in ui.app.screens.get_screen("table").panels()]
        ui.frames(2)
        between = [s for s in slots if s.to_window(s.x, s.y)[0] != int(s.to_window(s.x, s.y)[0])]
        assert between and all(s.fbo.texture.mag_filter == "linear" for s in between)
        assert any(s.fbo.texture.mag_filter == "nearest" for s in slots)  # the first column
        assert len(covering()) == 6
        for step in (1, 1, -1):
            ctl.clank(step)
            ui.frames(2, seconds=1.2)
        ctl.end_turn()
        ui.frames(2)
        assert painter.mode == "window" and painter.drawn != [(0, 0, 800, 480)]
    finally:
        painter.check = asked
        ui.close()


def copies_alone(monkeypatch) -> list[list]:
    """The parts each frame draws as their copy alone, a list per frame that does."""
    from companion.ui.paint import Painter

    alone: list[list] = []
    draw_copies = Painter._draw_copies

    def noted(self, copies):
        alone.append([part for part, _at, _box in copies])
        draw_copies(self, copies)

    monkeypatch.setattr(Painter, "_draw_copies", noted)
    return alone


def test_a_panel_nothing_lies_over_is_drawn_as_its_copy_alone(ui, monkeypatch):
    """A change inside an opaque part on whole pixels (a player's panel) is drawn as the
    part's copy alone, the window's canvas not walked there; not where anything is
    drawn over the part (a pop-up, a widget laid over it), where the window is drawn as
    before. Every frame is checked against the frame drawn whole."""
    from kivy.graphics import Color, Rectangle
    from kivy.uix.modalview import ModalView
    from kivy.uix.widget import Widget

    alone = copies_alone(monkeypatch)
    ctl = ui.app.controller
    ctl.new_game({"edition": "clank", "players": ["red", "blue"]})
    ctl.begin()
    ui.frames(3, seconds=1.2)
    red = ui.app.screens.get_screen("table").panels()[0].parent
    assert red.fbo is not None

    def clank_drawn_alone() -> bool:
        alone.clear()
        ctl.clank(1)
        ui.frames(2, seconds=1.2)
        return any(red in parts for parts in alone)

    assert clank_drawn_alone()
    assert all(b != (0, 0, 800, 480) for b in painter_of(ui.window).drawn)
    # a widget laid over the red panel's figures: the copy alone would paint over it
    x, y = red.to_window(red.x, red.y)
    over = Widget(size_hint=(None, None), pos=(x, y), size=(red.width, red.height))
    with over.canvas:
        Color(1, 0, 0, 0.5)
        Rectangle(pos=over.pos, size=over.size)
    ui.window.add_widget(over)
    try:
        ui.frames(2)
        assert not clank_drawn_alone()
    finally:
        ui.window.remove_widget(over)
    ui.frames(2)
    assert clank_drawn_alone()
    view = ModalView(size_hint=(0.4, 0.4))  # a pop-up darkens the whole window
    view.open(animation=False)
    try:
        ui.frames(2, seconds=0.5)
        assert not clank_drawn_alone()
    finally:
        view.dismiss(animation=False)
    ui.frames(2)
    assert clank_drawn_alone()


def test_children_drawn_in_another_order_are_drawn_again_where_the_order_shows(ui):
    """Children taken out and put back in another order (the row's cards, one come to
    "No tag"'s place) are drawn again only where they changed when no two of them lie
    on a pixel not drawn again anyway; where two overlap, the order shows: all of the
    parent is drawn again. Every frame is checked against the frame drawn whole."""
    from kivy.graphics import Color, Rectangle
    from kivy.uix.floatlayout import FloatLayout
    from kivy.uix.widget import Widget

    def block(rgba, pos, size=(100, 60)):
        w = Widget(size_hint=(None, None), pos=pos, size=size)
        with w.canvas:
            Color(*rgba)
            w.rect = Rectangle(pos=pos, size=size)
        return w

    ui.tap("Red")
    ui.frames(2, seconds=1.2)
    holder = FloatLayout(size_hint=(None, None), pos=(100, 150), size=(500, 200))
    red, green, blue = (block((1, 0, 0, 1), (110, 160)), block((0, 1, 0, 1), (230, 160)),
                        block((0, 0, 1, 1), (350, 160)))  # fmt: skip
    for w in (red, green, blue):
        holder.add_widget(w)
    ui.window.add_widget(holder)
    painter = painter_of(ui.window)
    try:
        ui.frames(2)
        # apart: blue drawn first now, and green turned yellow
        holder.remove_widget(red)
        holder.remove_widget(green)
        holder.add_widget(red)
        holder.add_widget(green)
        green.canvas.children[0].rgba = (1, 1, 0, 1)
        ui.frames(1)
        assert all(b[2] - b[0] < 200 for b in painter.drawn), painter.drawn  # green's alone
        # over each other: blue (drawn first) moved half under green, then drawn last
        blue.pos = blue.rect.pos = (280, 160)
        ui.frames(1)
        holder.remove_widget(blue)
        holder.add_widget(blue)  # over the others now
        red.canvas.children[0].rgba = (1, 0, 1, 1)  # and red changed, apart
        ui.frames(1)
        assert any(b[2] - b[0] >= 240 for b in painter.drawn), painter.drawn  # all of it
    finally:
        ui.window.remove_widget(holder)


def test_the_rows_cards_lie_on_the_windows_background_painted_into_the_row(ui, monkeypatch):
    """The row's part paints the window's background under its cards: opaque, a card
    taken from it is drawn as the row's copy alone; an empty row's words lie on nothing,
    blended as before (the part is not opaque then). Every frame is checked."""
    alone = copies_alone(monkeypatch)
    at_the_table(ui)
    ui.frames(2, seconds=1.2)
    table = ui.app.screens.get_screen("table")
    part = table.ids.row_part
    assert part.opaque and list(table.row_fill) == list(ui.window.clearcolor)
    alone.clear()
    ui.tap("Sneak")  # bought: it leaves the row
    ui.frames(2, seconds=1.2)
    assert any(part in parts for parts in alone)
    ctl = ui.app.controller
    ctl.new_game({"edition": "clank", "players": ["red", "blue"]})
    ctl.begin()  # no card scanned: the row's words
    ui.frames(2, seconds=1.2)
    assert ui.app.screens.current == "table" and not ctl.table.game.state.row
    assert not part.opaque and table.row_fill[3] == 0
