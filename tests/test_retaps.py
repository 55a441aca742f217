"""A hasty finger never makes a second move: a person not sure a tap took taps the same
spot again half a second to a second later, while the screen has changed under the
finger. Every case the table met commits nothing on that second tap, at 0.45, 0.7 and
0.9 s, in both games and at several table sizes (companion.ui.taps: the settle rule).

Each case taps once as a person does (the control settled), then touches the same spot
again ``gap`` seconds after the first touch came down, and checks that the second
touch changed neither the game nor the screen."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("KIVY_WINDOW", "sdl2")
from kivy.clock import Clock  # noqa: E402
from kivy.config import Config as KivyConfig  # noqa: E402

KivyConfig.set("graphics", "width", "800")
KivyConfig.set("graphics", "height", "480")

from companion.kinds.clank.screens.desk import desk_of  # noqa: E402
from companion.store.tags import resolve  # noqa: E402
from companion.ui.harness import Harness  # noqa: E402
from tests.helpers import companion_draws_seed  # noqa: E402
from tests.monkey import Touch, VirtualClock, frame  # noqa: E402

SEED = "7a95" * 16
GAPS = (0.45, 0.7, 0.9)
COLOURS = ["red", "blue", "green", "yellow", "purple", "orange"]


@pytest.fixture
def ui(tmp_path: Path, monkeypatch):
    from companion.kinds.clank.screens.attack import AttackView

    monkeypatch.setenv("CLANK_CONFIG", str(tmp_path / "config.toml"))
    monkeypatch.setattr(AttackView, "STEP", 0.0)  # the cubes at once
    harness = Harness(tmp_path / "games.db")
    yield harness
    harness.close()


def retap(ui: Harness, target: Any, gap: float, state: Callable[[], Any]) -> tuple[Any, Any]:
    """Tap ``target`` as a person does, then touch the same spot ``gap`` seconds after
    that first touch came down: the state after the first tap, and after the second.
    The clock is the monkey's (tests/monkey.py): each frame moves it on by a frame's
    time, however long a busy machine takes to draw it, so the gap is the finger's."""
    ui.frames(2)
    widget = ui.find(target) if isinstance(target, str) else target
    ui.settled(widget)
    x, y = widget.to_window(*widget.center)
    with VirtualClock():
        down = Clock.time()
        first = Touch(x, y)
        first.touch_down()
        first.touch_up()
        frame()
        frame()
        after_first = state()
        while Clock.time() - down < gap - 1 / 60:
            frame(draw=False)  # the clock and the layout run; drawing only costs time
        frame()  # the window as the finger finds it
        second = Touch(x, y)
        second.touch_down()
        second.touch_up()
        for _ in range(3):
            frame()
    return after_first, state()


def opened_and_nothing_done(ui: Harness, target: Any, gap: float, state: Callable[[], Any]):
    """A re-tap on ``target``, which opens a pop-up (a player's actions, a card picker):
    the pop-up opened, and the second touch did nothing to the game; then it is closed."""
    first, second = retap(ui, target, gap, state)
    assert first[2], "the pop-up opened"
    assert second[0] == first[0]  # nothing committed: no action, no card
    for w in list(ui.window.children[:-1]):
        w.dismiss(animation=False)
    ui.frames(2)


def table_state(ui: Harness, snapshot: Callable[[], Any]) -> Callable[[], Any]:
    """What a tap can change: the game (``snapshot``), the screen, the pop-ups open."""

    def state() -> Any:
        popups = tuple(type(w).__name__ for w in ui.window.children[:-1])
        return snapshot(), ui.app.screens.current, popups

    return state


def clank_state(ui: Harness) -> Callable[[], Any]:
    return table_state(ui, ui.app.controller.snapshot)


def clank_game(ui: Harness, players: int, row: int = 0) -> None:
    ctl = ui.app.controller
    with companion_draws_seed(SEED):
        ctl.new_game({"edition": "clank", "players": COLOURS[:players], "party": players > 4})
    names = [n for n, dragon in ctl.dungeon_cards() if not dragon][:row]
    for name in names:  # the opening row, scanned
        ctl.scan_component(resolve("card", "clank", name))
    assert ctl.begin()
    ui.frames(3)


def end_turn(ui: Harness) -> Any:
    table = ui.app.screen("table")
    return ui.find(table.end_turn_text)


def end_turn_retap(ui: Harness, players: int, gap: float, *, row: int) -> tuple[Any, Any]:
    """A Clank! game of ``players`` with ``row`` cards in its opening row: End turn
    re-tapped ``gap`` seconds later (see retap)."""
    clank_game(ui, players, row=row)
    return retap(ui, end_turn(ui), gap, clank_state(ui))


def test_a_settled_button_answers_on_the_first_frame(ui):
    """The settle costs a table that waits nothing: End turn, settled, ends the turn as
    the finger lifts, and the next frame names the next player."""
    clank_game(ui, 4, row=6)
    button = end_turn(ui)
    ui.settled(button)
    x, y = button.to_window(*button.center)
    turn = ui.app.controller.snapshot()["turn"]["number"]
    with VirtualClock():
        finger = Touch(x, y)
        finger.touch_down()
        finger.touch_up()
        assert ui.app.controller.snapshot()["turn"]["number"] == turn + 1
        frame()
    assert end_turn(ui).text == "End Blue's turn"


# ------------------------------------------------------------------ Clank!
@pytest.mark.parametrize("players", [2, 4, 6])
@pytest.mark.parametrize("gap", GAPS)
def test_end_turn_with_a_full_row_ends_one_turn(ui, players, gap):
    first, second = end_turn_retap(ui, players, gap, row=6)
    assert first[0]["turn"]["active"] == COLOURS[1]  # red's turn ended
    assert second == first  # the next player's turn did not end too


@pytest.mark.parametrize("players", [2, 4, 6])
@pytest.mark.parametrize("gap", GAPS)
def test_end_turn_with_a_short_row_leaves_the_refill_open(ui, players, gap):
    first, second = end_turn_retap(ui, players, gap, row=0)
    assert ui.app.controller.refill is not None  # "End the turn now (N unrevealed)" lies there
    assert second == first  # the turn did not end unrefilled


@pytest.mark.parametrize("players", [2, 4, 6])
@pytest.mark.parametrize("gap", GAPS)
def test_a_players_panel_opens_their_actions_and_commits_none(ui, players, gap):
    clank_game(ui, players)
    state = clank_state(ui)
    table = ui.app.screen("table")
    for panel in table.panels():  # whatever action lies under the finger when it opens
        opened_and_nothing_done(ui, panel, gap, state)


@pytest.mark.parametrize("players", [2, 3])  # the tables that remove one (base game)
@pytest.mark.parametrize("gap", GAPS)
def test_the_artifact_removed_at_set_up_is_picked_not_tapped(ui, players, gap):
    clank_game(ui, players)
    state = clank_state(ui)
    ui.tap("Menu")
    first, second = retap(ui, "Artifact removed at set-up", gap, state)
    assert "Picker" in first[2]
    assert second[0] == first[0]  # no artifact recorded


# ------------------------------------------------------------------ Tschak!
def tschak_floor(ui: Harness, players: int, *, laid: bool = True) -> Any:
    """A Tschak! game at its first floor; ``laid``: every team's cards laid."""
    tschak = ui.app.control("tschak")
    tschak.prepare(COLOURS[:players])
    assert tschak.start()
    for card in ["monster:3", "troglodyte", "monster:1", "chest:4", "ring", "elixir"]:
        tschak.scan_card(card)
    assert tschak.set_out_tower()
    hands = [["M4s", "W3", "D2x"], ["M4", "W3a", "D2u"], ["M2", "W2", "D3x"], ["M3", "W4", "D4a"]]
    for player, cards in zip(COLOURS[:players], hands if laid else [], strict=False):
        for card in cards:
            tschak.add_card(card, player)
    ui.app.show_screen(ui.app.home_screen())
    ui.frames(3)
    return tschak


def tschak_state(ui: Harness) -> Callable[[], Any]:
    return table_state(ui, ui.app.control("tschak").snapshot)


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("gap", GAPS)
def test_a_floors_verdict_is_not_skipped_unread(ui, players, gap):
    tschak_floor(ui, players)
    first, second = retap(ui, "Resolve floor 1", gap, tschak_state(ui))
    assert first[1] == "tschak_verdict"  # "Next: floor 2" lies under the finger
    assert second == first


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("gap", GAPS)
def test_a_card_slot_opens_its_picker_and_records_nothing(ui, players, gap):
    from companion.kinds.tschak.screens.floor import TeamPanel
    from companion.kinds.tschak.screens.widgets import CardChip

    tschak_floor(ui, players, laid=False)
    state = tschak_state(ui)
    for player in COLOURS[:players]:  # whatever card lies under the finger when it opens
        panel = next(w for w in ui.widgets() if isinstance(w, TeamPanel) and w.player == player)
        slots = [w for w in panel.walk() if isinstance(w, CardChip) and w.notation == ""]
        for slot in slots[:1]:  # its first empty slot: each slot's picker opens alike
            opened_and_nothing_done(ui, slot, gap, state)


@pytest.mark.parametrize("gap", GAPS)
def test_the_last_trophies_do_not_jump_to_the_scores(ui, gap):
    from tests.test_tschak_screens import ACTIONS

    tschak = ui.app.control("tschak")
    tschak.prepare(["red", "blue", "green"])  # the example game's table, as colours
    assert tschak.start()
    for action in ACTIONS[:-2]:  # to the last tower's trophies
        assert tschak.do(action) is not None, tschak.last
    ui.app.show_screen(ui.app.home_screen())
    assert tschak.phase == "trophies"
    first, second = retap(ui, "Award the trophies", gap, tschak_state(ui))
    assert first[1] == "tschak_verdict"  # "Next: the scores" lies under the finger
    assert second == first


# ------------------------------------------------------------------ the panel's buttons
class Signals:
    def __init__(self) -> None:
        self.played: list[str] = []

    def signal(self, pattern: str) -> None:
        self.played.append(pattern)

    def close(self) -> None:
        pass


def test_the_panels_end_turn_pressed_right_after_a_turn_change_is_not_taken(ui):
    """The GPIO End turn follows the rule: a press within a second of a change of turn
    (or screen) is ignored, with the buzzer's "not taken"; a press after it acts."""
    clank_game(ui, 3, row=6)
    ui.app.panel = Signals()
    ctl = ui.app.controller
    with VirtualClock():
        for _ in range(int(60 * 1.2)):  # the table as it was for a while
            frame()
        ui.app.panel_press("end_turn", desk_of(ui.app).end_turn)  # red's turn ends
        for _ in range(3):
            frame()
        assert ctl.snapshot()["turn"]["active"] == "blue"
        for _ in range(int(60 * 0.7)):  # 0.7 s later, the same button again
            frame()
        ui.app.panel_press("end_turn", desk_of(ui.app).end_turn)
        for _ in range(3):
            frame()
        assert ctl.snapshot()["turn"]["active"] == "blue"  # blue's turn did not end
        assert ui.app.panel.played == ["not_taken"]
        for _ in range(int(60 * 0.5)):  # more than a second after the change
            frame()
        ui.app.panel_press("end_turn", desk_of(ui.app).end_turn)
        for _ in range(3):
            frame()
        assert ctl.snapshot()["turn"]["active"] == "green"
    ui.app.panel = None


@pytest.mark.parametrize("language", ["en", "ru", "uk", "es"])
def test_the_panels_end_turn_during_a_tschak_game_says_it_is_not_used(tmp_path, language):
    """Tschak! has no turn to end: the panel's End turn changes nothing, says why on the
    status bar, whole, in the table's language, and plays "not taken" (before, it did
    nothing anyone could see or hear)."""
    from companion.config import AppConfig, Config
    from companion.ui.ink import screen_metrics

    db = tmp_path / "games.db"
    ui = Harness(db, Config(app=AppConfig(database=str(db), language=language)))
    try:
        tschak = tschak_floor(ui, 2)
        ui.app.panel = signals = Signals()
        before = tschak.snapshot()
        with VirtualClock():
            for _ in range(int(60 * 1.2)):
                frame()
            ui.app.press("end_turn")
            frame()
        ui.frames(2)
        shown = ui.app.status.text
        assert "Tschak!" in shown, shown
        assert (shown == "Tschak! has no turns: End turn does nothing") == (language == "en")
        cut = screen_metrics(ui.window)["cut"]
        assert not [c for c in cut if shown in c], cut
        assert tschak.snapshot() == before
        assert signals.played == ["not_taken"]
    finally:
        ui.app.panel = None
        ui.close()


# ------------------------------------------------------------------ what is new
def test_a_list_built_again_as_it_was_is_not_new_but_a_changed_or_moved_button_is(ui):
    """A screen that builds its buttons again at each redraw (the scoring screen's
    players) keeps them taking taps when they mean what they meant where they were; a
    button whose move changed, or a list that grew under it, is new."""
    from kivy.uix.boxlayout import BoxLayout
    from kivy.uix.button import Button

    from companion.ui.taps import RULE

    layer = BoxLayout(size=(400, 80), pos=(200, 200))
    ui.window.add_widget(layer)
    try:

        def build(*words: str) -> list[Button]:
            layer.clear_widgets()
            buttons = [Button(text=w) for w in words]
            for b in buttons:
                layer.add_widget(b)
            ui.frames(3)
            return buttons

        with VirtualClock():
            build("Red", "Blue")
            for _ in range(80):  # more than a second: both settled
                frame()
            red, blue = build("Red", "Blue")  # built again, the same
            assert not RULE.settling(red) and not RULE.settling(blue)
            red, blue = build("Red", "Green")  # another move where Blue was
            assert not RULE.settling(red) and RULE.settling(blue)
            red, *_ = build("Yellow", "Red", "Green")  # Red moved: another spot
            assert RULE.settling(red)
    finally:
        ui.window.remove_widget(layer)
