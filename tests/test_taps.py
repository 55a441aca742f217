"""Every tap means what the player meant (TABLE_SCREEN.md, issue's findings first): a
double tap is one tap; a button that changed its meaning is inert a moment and looks it;
a tap acts on the table it was aimed at, and a stale one changes nothing and says so; the
attack's Continue lies over no button that changes the turn."""

from __future__ import annotations

import os
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

os.environ.setdefault("KIVY_WINDOW", "sdl2")
from kivy.config import Config as KivyConfig  # noqa: E402

KivyConfig.set("graphics", "width", "800")
KivyConfig.set("graphics", "height", "480")

from kivy.tests.common import UnitTestTouch  # noqa: E402

from companion.kinds.clank.screens.desk import desk_of  # noqa: E402
from companion.store.tags import resolve  # noqa: E402
from companion.ui.harness import Harness  # noqa: E402
from companion.ui.screens.popups import Picker  # noqa: E402
from companion.ui.taps import RULE, SAME_TAP, SETTLE, SameTap, Steady  # noqa: E402
from tests.helpers import companion_draws_seed, popup  # noqa: E402

SEED = "7a95" * 16


@pytest.fixture
def ui(tmp_path: Path, monkeypatch):
    from companion.kinds.clank.screens.attack import AttackView

    monkeypatch.setenv("CLANK_CONFIG", str(tmp_path / "config.toml"))
    monkeypatch.setattr(AttackView, "STEP", 0.0)  # the cubes at once: the verdict shows
    harness = Harness(tmp_path / "games.db")
    yield harness
    harness.close()


@pytest.fixture
def lasting(monkeypatch):
    """A target's inert moment lasts while the test looks (a busy machine may take longer
    than SETTLE between two frames); ``calm`` ends it, as the moment passing would."""
    from companion.ui import taps

    monkeypatch.setattr(taps, "SETTLE", 3600.0)


def calm(widget: Steady) -> None:
    RULE.release(widget)


def playing(ui: Harness, *players: str) -> None:
    ctl = ui.app.controller
    with companion_draws_seed(SEED):
        ctl.new_game({"edition": "clank", "players": list(players)})
    ctl.begin()
    ui.frames(3)


def end_turn_button(ui: Harness) -> Steady:
    table = ui.app.screen("table")
    return next(w for w in table.walk() if isinstance(w, Steady) and w.text.startswith("End"))


def settled(ui: Harness, widget: Steady) -> None:
    end = time.monotonic() + 20 * SETTLE
    while widget.settling and time.monotonic() < end:
        ui.frames(1)
    assert not widget.settling


def touch(x: float, y: float, ui: Harness | None = None) -> None:
    t = UnitTestTouch(x, y)
    t.touch_down()
    t.touch_up()
    if ui is not None:
        ui.frames(1)


def double_touch(x: float, y: float, ui: Harness) -> None:
    """A double tap: both touches stamped as the finger made them, a moment apart, however
    long the table takes to answer the first (a busy machine may take longer than a double
    tap lasts, and a touch is stamped when it is made)."""
    touches = [UnitTestTouch(x, y), UnitTestTouch(x, y)]
    for t in touches:
        t.touch_down()
        t.touch_up()
    ui.frames(1)


def turn(ui: Harness) -> tuple[int, str]:
    snap = ui.app.controller.snapshot()
    assert snap is not None
    return snap["turn"]["number"], snap["turn"]["active"]


# ------------------------------------------------------------ the same tap
def test_a_second_touch_on_the_same_spot_within_the_window_is_the_same_tap():
    same = SameTap()

    def at(when: float, x: float, y: float) -> bool:
        return same(None, SimpleNamespace(time_start=when, pos=(x, y), ud={}))

    assert not at(10.0, 100, 100)
    assert at(10.0 + SAME_TAP * 0.5, 104, 98)  # the second tap of a double tap
    assert not at(10.0 + SAME_TAP * 0.5 + 0.01, 300, 100)  # elsewhere: a tap of its own
    assert not at(20.0, 300, 100)  # long after: a tap of its own
    assert not at(20.0 + SAME_TAP * 1.5, 300, 100)  # slower than a double tap
    assert same.swallowed == 1


def test_a_double_tap_on_end_turn_ends_one_turn(ui):
    playing(ui, "red", "blue", "green")
    button = end_turn_button(ui)
    settled(ui, button)  # as a person waits for it
    before = turn(ui)
    x, y = button.to_window(*button.center)
    double_touch(x, y, ui)
    ctl = ui.app.controller
    assert ctl.refill is not None  # the turn's end: the row's refill
    ctl.end_turn()  # the refill done (nothing revealed), by the panel's button
    ui.frames(2)
    number, active = turn(ui)
    assert (number, active) == (before[0] + 1, "blue")  # one turn, not two
    assert ui.app.same_tap.swallowed >= 1


def test_a_double_tap_on_a_card_of_the_row_takes_one_card(ui):
    ctl = ui.app.controller
    with companion_draws_seed(SEED):
        ctl.new_game({"edition": "clank", "players": ["red", "blue"]})
    names = [n for n, dragon in ctl.dungeon_cards() if not dragon][:6]
    for name in names:  # the opening row, scanned
        ctl.scan_component(resolve("card", "clank", name))
    assert ctl.begin()
    ui.frames(3)
    assert [c.name for c in ctl.view().row] == names
    table = ui.app.screen("table")
    first = next(w for w in reversed(table.ids.row.children) if w.card == names[0])
    settled(ui, first)
    x, y = first.to_window(*first.center)
    double_touch(x, y, ui)  # the row re-flowed under the finger: the second is the same tap
    assert [c.name for c in ctl.view().row] == names[1:]  # one card left the row, not two
    # the card that moved under the finger is inert a moment
    assert next(w for w in reversed(table.ids.row.children) if w.card == names[1]).settling


# ------------------------------------------------------------ a changed meaning
def test_end_turn_naming_another_player_is_inert_a_moment_and_looks_it(ui, lasting):
    playing(ui, "red", "blue")
    button = end_turn_button(ui)
    calm(button)
    ctl = ui.app.controller
    ui.tap(button)  # red's End turn: the refill's bar takes its place
    assert ctl.refill is not None
    assert "End the turn now" in button.text
    assert button.settling  # the bar is new under the finger
    lit = ui.pixels(button)
    # a finger already on its way, 0.1 s later
    ui.frames(1, seconds=0.1)
    x, y = button.to_window(*button.center)
    touch(x + 60, y, ui)  # not the same spot: a tap of its own, on a button still settling
    assert ctl.refill is not None  # nothing happened
    calm(button)  # the moment passed
    ui.frames(2)
    bright = ui.pixels(button)
    assert sum(map(sum, bright)) > sum(map(sum, lit)) * 1.3  # inert, it looked darker
    ui.tap(button)  # now it ends the turn, as it says
    assert turn(ui)[1] == "blue" and button.text == "End Blue's turn" and button.settling


def test_a_screen_just_shown_takes_no_tap_for_a_moment(ui, lasting):
    ctl = ui.app.controller
    with companion_draws_seed(SEED):
        ctl.new_game({"edition": "clank", "players": ["red", "blue"]})
    ui.frames(2)
    ctl.begin()  # the opening's Start, answered: the table screen comes up
    ui.frames(2)
    assert ui.app.screens.current == "table"
    button = end_turn_button(ui)
    assert button.settling
    x, y = button.to_window(*button.center)
    touch(x, y, ui)  # a late second tap of the Start button, where End turn is now
    assert ctl.refill is None and turn(ui)[1] == "red"


# ------------------------------------------------------------ the aim
def test_a_tap_whose_table_changed_before_the_finger_lifted_does_nothing(ui):
    playing(ui, "red", "blue")
    button = end_turn_button(ui)
    settled(ui, button)
    ctl = ui.app.controller
    cubes = ctl.snapshot()["clank_area"]["red"]
    x, y = button.to_window(*button.center)
    t = UnitTestTouch(x, y)
    t.touch_down()  # red's End turn, aimed ...
    ctl.clank(2, "red")  # ... while a scan or the panel changes the table
    t.touch_up()
    ui.frames(2)
    assert ctl.refill is None and turn(ui)[1] == "red"  # the stale tap did nothing
    # the table's line says so
    assert "The table changed before that tap" in ui.app.screen("table").last_text
    assert ctl.snapshot()["clank_area"]["red"] == cubes + 2  # what happened meanwhile stays


def test_a_players_menu_opened_before_a_change_acts_on_nothing(ui):
    playing(ui, "red", "blue")
    ctl = ui.app.controller
    desk_of(ui.app).open_player_actions("red")
    ui.frames(2)
    menu = popup(ui, Picker)
    entry = next(w for w in menu.walk() if "gold" in getattr(w, "text", "").lower())
    ctl.clank(1, "blue")  # the table moved on while the menu was open
    gold = ctl.snapshot()["players"]["red"]["gold"]
    ui.tap(entry)
    assert ctl.snapshot()["players"]["red"]["gold"] == gold
    assert "The table changed before that tap" in ui.app.screen("table").last_text


def test_the_panels_buttons_act_on_the_table_as_it_is(ui):
    playing(ui, "red", "blue")
    desk_of(ui.app).end_turn()  # the panel's End turn: no aim, the turn on the table now
    ui.app.controller.end_turn()
    assert turn(ui)[1] == "blue"


# ------------------------------------------------------------ the overlay
def test_the_attacks_continue_lies_over_no_button_that_changes_the_turn(ui, lasting):
    playing(ui, "red", "blue")
    ctl = ui.app.controller
    assert ctl.do({"do": "attack"})
    ui.frames(3)
    view = desk_of(ui.app).attack_view
    assert view is not None and view.finished
    go_on = view.ids.dismiss
    assert go_on.settling  # the verdict just came: Continue takes no tap yet

    def box(w):
        x, y = w.to_window(w.x, w.y)
        return x, y, x + w.width, y + w.height

    table = ui.app.screen("table")
    turners = [end_turn_button(ui)]
    turners += [w for w in table.walk() if getattr(w, "text", "") == "Undo"]
    assert len(turners) == 2
    cx0, cy0, cx1, cy1 = box(go_on)
    for w in turners:
        x0, y0, x1, y1 = box(w)
        assert cx1 <= x0 or x1 <= cx0 or cy1 <= y0 or y1 <= cy0, (w.text, box(w), box(go_on))


def test_a_tschak_resolve_whose_teams_changed_before_the_finger_lifted_does_nothing(ui):
    tschak = ui.app.control("tschak")
    tschak.prepare(["red", "blue"])
    assert tschak.start()
    for card in ["monster:3", "troglodyte", "monster:1", "chest:4", "ring", "elixir"]:
        tschak.scan_card(card)
    assert tschak.set_out_tower()
    for player, cards in {"red": ["M4s", "W3", "D2x"], "blue": ["M4", "W3a", "D2u"]}.items():
        for card in cards:
            tschak.add_card(card, player)
    ui.frames(3)
    resolve = ui.find("Resolve floor 1")
    ui.settled(resolve)  # as a person waits for it
    x, y = resolve.to_window(*resolve.center)
    t = UnitTestTouch(x, y)
    t.touch_down()  # Resolve, aimed at the teams on screen ...
    tschak.toggle_misplay("red")  # ... while another finger marks red's misplay
    t.touch_up()
    ui.frames(2)
    assert tschak.snapshot()["floors"] == []  # the floor was not resolved on a stale aim
    assert "The table changed before that tap" in tschak.last
    ui.tap(resolve)  # aimed at the teams as they are now
    assert len(tschak.snapshot()["floors"]) == 1


def test_the_rule_finds_each_control_where_the_window_shows_it(ui):
    """The settle rule notes where every control lies (a control built again where one
    meaning the same lay is not new): found on the way down through the layouts that
    move what they hold, it is where Kivy's own to_window puts it, under a moved
    RelativeLayout, a scrolled ScrollView and a turned Scatter alike."""
    from kivy.uix.boxlayout import BoxLayout
    from kivy.uix.button import Button
    from kivy.uix.relativelayout import RelativeLayout
    from kivy.uix.scatter import Scatter
    from kivy.uix.scrollview import ScrollView

    from companion.ui.taps import controls, placed_controls

    layer = RelativeLayout(pos=(37.5, 21.25), size_hint=(None, None), size=(500, 400))
    scroll = ScrollView(size_hint=(None, None), size=(200, 150), pos=(10.3, 30.7))
    column = BoxLayout(orientation="vertical", size_hint_y=None, height=600)
    for n in range(6):
        column.add_widget(Button(text=f"row {n}"))
    scroll.add_widget(column)
    scroll.scroll_y = 0.37
    layer.add_widget(scroll)
    turned = Scatter(rotation=30, scale=1.5, pos=(250, 60), size_hint=(None, None))
    turned.add_widget(Button(text="turned", size=(80, 40)))
    layer.add_widget(turned)
    layer.add_widget(Button(text="plain", pos=(300.4, 320.6), size_hint=(None, None)))
    ui.window.add_widget(layer)
    try:
        ui.frames(2)
        placed = list(placed_controls(ui.window))
        assert [c for c, _w, _p in placed] == [c for c, _w in controls(ui.window)]
        texts = {getattr(c, "text", "") for c, _w, _p in placed}
        assert {"row 0", "row 5", "turned", "plain"} <= texts
        for control, _where, at in placed:
            assert at == tuple(round(v) for v in control.to_window(*control.pos)), control
    finally:
        ui.window.remove_widget(layer)
