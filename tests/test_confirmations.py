"""Nothing irreversible on one tap (TABLE_SCREEN.md): undoing a dragon draw, the action
that ends the game, starting with a short opening row and quitting each ask first, naming
what happens; a double tap on what asks does not answer the question; the question's
action is inert for a moment and looks it, and its buttons never lie over End turn; a draw
taken back is counted on the table screen and in the audit.

With CLANK_SCREENSHOTS=<folder> each question is saved there as PNG.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("KIVY_WINDOW", "sdl2")
from kivy.config import Config as KivyConfig  # noqa: E402

KivyConfig.set("graphics", "width", "800")
KivyConfig.set("graphics", "height", "480")

from kivy.app import App  # noqa: E402
from kivy.tests.common import UnitTestTouch  # noqa: E402
from kivy.uix.label import Label  # noqa: E402
from kivy.uix.modalview import ModalView  # noqa: E402

from companion.config import AppConfig, Config  # noqa: E402
from companion.kinds.clank.screens.desk import desk_of  # noqa: E402
from companion.store.tags import resolve  # noqa: E402
from companion.ui import app as app_module  # noqa: E402
from companion.ui.harness import Harness  # noqa: E402
from companion.ui.screens.popups import INERT, Confirm, Picker  # noqa: E402
from companion.ui.taps import RULE  # noqa: E402
from tests.helpers import companion_draws_seed, popup  # noqa: E402
from tests.monkey import VirtualClock  # noqa: E402

SEED = "5eed" * 16
SHOTS = Path(os.environ["CLANK_SCREENSHOTS"]) if os.environ.get("CLANK_SCREENSHOTS") else None
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def ui(tmp_path, monkeypatch):
    from companion.kinds.clank.screens.attack import AttackView

    monkeypatch.setenv("CLANK_CONFIG", str(tmp_path / "config.toml"))
    monkeypatch.setattr(AttackView, "STEP", 3600.0)  # no cube comes while a test looks
    harness = Harness(tmp_path / "games.db")
    yield harness
    harness.close()


def shot(ui: Harness, name: str) -> None:
    if SHOTS is not None:
        SHOTS.mkdir(parents=True, exist_ok=True)
        ui.screenshot(SHOTS / f"{name}.png")


def playing(ui: Harness, *players: str) -> None:
    ctl = ui.app.controller
    with companion_draws_seed(SEED):  # draws the test can foresee
        ctl.new_game({"edition": "clank", "players": list(players)})
    ctl.begin()
    ui.frames(2)


def close_attack(ui: Harness) -> None:
    if desk_of(ui.app).attack_view is not None:
        desk_of(ui.app).attack_view.dismiss(animation=False)
    ui.frames(2)


def questions(ui: Harness) -> list[Confirm]:
    return [w for w in ui.window.children if isinstance(w, Confirm)]


def yes_button(confirm: Confirm):
    return next(w for w in confirm.walk() if getattr(w, "text", None) == confirm.yes_text)


def double_tap(ui: Harness, target) -> None:
    """Two taps 0.1 s apart on the same spot, as a finger double-taps (once the target
    takes taps: a button that just changed its meaning is inert a moment)."""
    widget = ui.find(target) if isinstance(target, str) else target
    ui.frames(2)
    ui.settled(widget)
    x, y = widget.to_window(*widget.center)
    # a finger's double tap is quick; a busy machine's frames are not: the same-tap
    # window held for the two taps, however slow the frames between them
    import companion.ui.taps as taps

    held, taps.SAME_TAP = taps.SAME_TAP, 3600.0
    try:
        for _ in range(2):
            touch = UnitTestTouch(x, y)
            touch.touch_down()
            touch.touch_up()
            ui.frames(1, seconds=0.1)
    finally:
        taps.SAME_TAP = held
    ui.frames(2)


def answer(ui: Harness, yes: str) -> None:
    """The confirming tap, once the question takes it."""
    ui.frames(2, seconds=INERT + 0.1)
    ui.tap(yes)


def attacked(ui: Harness) -> None:
    """A card's dragon attack, drawn (draw #1), its view put away."""
    assert ui.app.controller.do({"do": "attack"})
    close_attack(ui)


# ------------------------------------------------------- 1. undoing a dragon draw
def test_undoing_a_dragon_draw_asks_first_and_the_table_counts_it(ui):
    playing(ui, "red", "blue")
    ctl = ui.app.controller
    clank = ctl.view().players[0].clank
    ui.on_panel("red", "Clank! +1")
    ui.tap("Undo")  # no draw in it: one tap takes it back
    assert not questions(ui) and ctl.view().players[0].clank == clank
    attacked(ui)
    ui.tap("Undo")
    confirm = popup(ui, Confirm)
    assert confirm.question == "Undo “the dragon attacks”?"
    assert "Draw #1 stays in the log" in confirm.note and "new cubes" in confirm.note
    assert [d.undone for d in ctl.view().draws] == [False]  # one tap does not do it
    ui.tap(yes_button(confirm))  # nor a tap on the answer at once
    assert [d.undone for d in ctl.view().draws] == [False] and questions(ui)
    shot(ui, "undo-draw")
    answer(ui, "Yes, undo it")
    assert [d.undone for d in ctl.view().draws] == [True] and not questions(ui)
    # counted where the whole table sees it, and in the audit
    table = ui.app.screens.get_screen("table")
    assert table.undone_note == "1 draw undone"
    assert ui.find("1 draw undone").get_root_window() is not None
    shot(ui, "table-draw-undone")
    attacked(ui)  # done again: a new draw
    assert [d.nonce for d in ctl.view().draws] == [1, 2]
    ui.tap("Undo")
    answer(ui, "Yes, undo it")
    assert table.undone_note == "2 draws undone"
    ui.app.open_audit()
    ui.frames(2)
    audit = ui.app.screens.get_screen("audit")
    assert audit.title_text == "Audit: every draw of this game · 2 draws undone"
    assert ui.find(audit.title_text).get_root_window() is not None
    shot(ui, "audit-draws-undone")


def test_a_double_tap_on_undo_does_not_take_back_the_draw(ui):
    playing(ui, "red", "blue")
    ctl = ui.app.controller
    attacked(ui)
    double_tap(ui, "Undo")
    assert [d.undone for d in ctl.view().draws] == [False]
    assert len(questions(ui)) == 1  # the second tap neither answers nor puts it away
    answer(ui, "Cancel")
    assert not questions(ui) and [d.undone for d in ctl.view().draws] == [False]


def test_the_panels_undo_button_asks_too_and_a_stale_answer_does_nothing(ui):
    playing(ui, "red", "blue")
    ctl = ui.app.controller
    attacked(ui)
    desk_of(ui.app).undo()  # the Undo button of the panel (hardware.gpio)
    desk_of(ui.app).undo()  # pressed again: one question
    assert len(questions(ui)) == 1
    clank = ctl.view().players[0].clank
    ctl.clank(1, "red")  # the table moved on under the question (a scan...)
    answer(ui, "Yes, undo it")
    assert [d.undone for d in ctl.view().draws] == [False]  # not the clank, not the draw
    assert ctl.view().players[0].clank == clank + 1
    assert ui.app.status.text == "The table changed meanwhile: nothing was done"


# ------------------------------------------------------- 2. the end of the game
def test_the_last_player_escaping_asks_first(ui):
    playing(ui, "red", "blue")
    ctl = ui.app.controller
    for player, value in (("red", 20), ("blue", 25)):
        assert ctl.do({"do": "artifact", "player": player, "value": value})
    ui.on_panel("blue")
    ui.tap("Escape with an artifact")  # red is still inside: no question
    assert not questions(ui) and ctl.view().players[1].status == "escaped"
    ui.on_panel("red")
    ui.tap("Escape with an artifact")
    confirm = popup(ui, Confirm)
    assert confirm.question == "Red escapes: the game ends. Go on?"
    assert "server seed is revealed" in confirm.note
    shot(ui, "escape-ends-the-game")
    assert ctl.phase == "playing"  # one tap does not do it
    answer(ui, "Yes, end the game")
    assert ctl.phase == "scoring" and ctl.snapshot()["players"]["red"]["status"] == "escaped"


def test_a_double_tap_on_the_escape_that_ends_the_game_does_not_end_it(ui):
    playing(ui, "red", "blue")
    ctl = ui.app.controller
    ctl.do({"do": "artifact", "player": "red", "value": 20})
    ctl.do({"do": "artifact", "player": "blue", "value": 25})
    ctl.do({"do": "escape", "player": "blue"})
    ui.on_panel("red")
    picker = popup(ui, Picker)
    double_tap(ui, "Escape with an artifact")
    assert picker.get_parent_window() is None
    assert ctl.phase == "playing" and ctl.snapshot()["players"]["red"]["status"] == "playing"


def test_an_end_of_turn_that_ends_the_game_asks_first(ui):
    """The countdown's last space knocks out everyone still inside: the End turn that
    brings it asks first (and a double tap on End turn does not answer)."""
    playing(ui, "red", "blue", "green", "yellow")
    ctl = ui.app.controller
    ctl.do({"do": "artifact", "player": "red", "value": 20})
    ctl.do({"do": "escape", "player": "red"})
    ending = {"do": "end_turn", "revealed": []}
    for _ in range(40):
        if ctl.ends_game(ending) or ctl.phase != "playing":
            break
        ctl.end_turn()  # the refill opens
        ctl.end_turn()  # and ends the turn with nothing revealed
        close_attack(ui)
    draws = len(ctl.view().draws)
    assert ctl.phase == "playing" and ctl.ends_game(ending)
    assert len(ctl.view().draws) == draws  # the trial left no draw behind
    end_turn = ui.find(ui.app.screens.get_screen("table").end_turn_text)
    double_tap(ui, end_turn)
    confirm = popup(ui, Confirm)
    assert confirm.question.startswith("End turn (") and "the game ends" in confirm.question
    shot(ui, "end-turn-ends-the-game")
    assert ctl.phase == "playing" and ctl.refill is None and len(ctl.view().draws) == draws
    answer(ui, "Yes, end the game")
    ctl.end_turn()  # the refill, opened by the answer, ends with nothing revealed
    close_attack(ui)
    assert ctl.phase == "scoring"


def test_trying_an_action_leaves_the_game_as_it_was(ui):
    playing(ui, "red", "blue")
    ctl = ui.app.controller
    ctl.do({"do": "artifact", "player": "red", "value": 20})
    before, head = ctl.snapshot(), ctl.table.log.head
    nonce = ctl.table.game.next_nonce
    assert ctl.ends_game({"do": "attack"}) is False
    assert ctl.ends_game({"do": "escape", "player": "blue"}) is False  # no artifact
    assert ctl.ends_game({"do": "escape", "player": "red"}) is False  # blue is inside
    assert ctl.snapshot() == before and ctl.table.log.head == head
    assert ctl.table.game.next_nonce == nonce


# ------------------------------------------------------- 3. a short opening row
def opening(ui: Harness, cards: int) -> list[str]:
    ctl = ui.app.controller
    with companion_draws_seed(SEED):
        ctl.new_game({"edition": "clank", "players": ["red", "blue"]})
    ui.frames(2)
    names = [name for name, dragon in ctl.dungeon_cards() if not dragon][:cards]
    for name in names:
        ctl.scan_component(resolve("card", "clank", name))
    ui.frames(2)
    return names


def test_starting_with_a_short_opening_row_asks_first(ui):
    names = opening(ui, 3)
    ctl = ui.app.controller
    ui.tap("Start the first turn")
    confirm = popup(ui, Confirm)
    assert confirm.question == "Opening row: 3 of 6 cards scanned. Start the first turn?"
    assert ctl.phase == "opening"
    ui.tap(yes_button(confirm))  # not at once
    assert ctl.phase == "opening"
    shot(ui, "short-opening-row")
    answer(ui, "Yes, start the first turn")
    assert ctl.phase == "playing" and ctl.snapshot()["row"] == names


def test_a_double_tap_on_start_does_not_start_a_short_row_and_a_full_one_starts_at_once(ui):
    opening(ui, 5)
    ctl = ui.app.controller
    double_tap(ui, "Start the first turn")
    assert ctl.phase == "opening" and len(questions(ui)) == 1
    desk_of(ui.app).end_turn()  # the panel's End turn during the opening: the same question
    assert len(questions(ui)) == 1 and ctl.phase == "opening"
    answer(ui, "Cancel")
    name = [n for n, dragon in ctl.dungeon_cards() if not dragon][5]
    ctl.scan_component(resolve("card", "clank", name))
    ui.tap("Start the first turn")  # six of six: nothing to ask
    assert not questions(ui) and ctl.phase == "playing"


# ------------------------------------------------------- 4. quitting
@pytest.fixture
def stops(monkeypatch):
    stopped: list[bool] = []
    monkeypatch.setattr(App, "stop", lambda self, *largs: stopped.append(True))
    return stopped


def test_quit_asks_first_and_says_the_companion_comes_back(ui, stops):
    ui.app.show_screen("settings")
    ui.tap("Quit the companion")
    confirm = popup(ui, Confirm)
    assert confirm.question == "Quit the companion?"
    assert "The window closes" in confirm.note  # a desktop: the window goes
    confirm.close()
    ui.app.kiosk = True
    ui.tap("Quit the companion")
    confirm = popup(ui, Confirm)
    assert confirm.note.startswith("The companion restarts in a few seconds")
    shot(ui, "quit")
    assert stops == [] and not ui.app.restart_asked  # one tap does not quit
    answer(ui, "Yes, quit")
    assert stops == [True] and ui.app.restart_asked and not ui.app.quit_asked


def test_a_double_tap_on_quit_does_not_quit(ui, stops):
    ui.app.show_screen("settings")
    double_tap(ui, "Quit the companion")
    assert stops == [] and len(questions(ui)) == 1


class Ended:
    """What run_app sees of an app that ended after Quit on the Settings screen."""

    quit_asked = False
    restart_asked = True
    kiosk = False

    def run(self) -> None:
        pass

    def close_store(self) -> None:
        pass


def test_quit_in_the_kiosk_exits_with_a_status_its_service_restarts(tmp_path, monkeypatch):
    monkeypatch.setattr(app_module, "configure_window", lambda fullscreen: None)
    monkeypatch.setattr(app_module, "start_app", lambda config_, config_problem=None: Ended())
    config = Config(app=AppConfig(database=str(tmp_path / "games.db"), language="en"))
    status = app_module.run_app(config, fullscreen=True)
    assert status == app_module.EXIT_RESTART != 0
    assert app_module.run_app(config, fullscreen=False) == 0  # a desktop: Quit quits
    unit = (ROOT / "systemd" / "clank-companion.service").read_text()
    lines = [line.strip() for line in unit.splitlines()]
    assert "Restart=on-failure" in lines  # any status but 0 is restarted
    assert not any(line.startswith(("RestartPreventExitStatus", "SuccessExitStatus"))
                   for line in lines)  # fmt: skip


# ------------------------------------------------------- 5. the question itself
def test_the_answer_is_inert_at_first_looks_it_and_lies_over_no_turn_button(ui):
    playing(ui, "red", "blue")
    attacked(ui)
    table = ui.app.screens.get_screen("table")
    end_turn = ui.find(table.end_turn_text)
    ex, ey = end_turn.to_window(end_turn.x, end_turn.y)
    # the clock on frames, not on the machine's time: a busy machine takes longer than
    # the question's first moment to draw three frames
    with VirtualClock():
        ui.tap("Undo")
        confirm = popup(ui, Confirm)
        yes = yes_button(confirm)
        cancel = next(w for w in confirm.walk() if getattr(w, "text", None) == "Cancel")
        ui.frames(3)
        assert yes.disabled and not cancel.disabled
    inert = ui.pixels(yes)
    for button in (yes, cancel):
        x, y = button.to_window(button.x, button.y)
        assert button.height >= 48 and button.width >= 48  # big enough for a finger
        apart = (x >= ex + end_turn.width or x + button.width <= ex
                 or y >= ey + end_turn.height or y + button.height <= ey)  # fmt: skip
        assert apart, f"{button.text!r} lies over End turn"
    ui.until(lambda: not yes.disabled and not RULE.settling(yes))  # its moment passed
    ui.frames(2)
    armed = ui.pixels(yes)

    def mean(pixels):
        return [sum(p[i] for p in pixels) / len(pixels) for i in range(3)]

    assert sum(abs(a - b) for a, b in zip(mean(inert), mean(armed), strict=True)) > 60
    shot(ui, "undo-draw-armed")
    # a tap beside the question puts it away once it takes taps
    touch = UnitTestTouch(5, 5)
    touch.touch_down()
    touch.touch_up()
    ui.until(lambda: not [w for w in ui.window.children if isinstance(w, ModalView)])


@pytest.mark.parametrize("language", ["en", "ru", "uk", "es"])
def test_every_question_fits_its_box_in_table_sized_words(tmp_path, language):
    """The questions and their notes in table-sized words (26 px), whole inside the
    question's box in every language: the longest ones, with the longest names in them."""
    from companion.i18n import _, ngettext, player_name
    from companion.ui.ink import screen_metrics

    db = tmp_path / "games.db"
    ui = Harness(db, Config(app=AppConfig(database=str(db), language=language)))
    try:
        player = player_name("purple", capital=True)
        draws = ngettext(
            "Draw {numbers} stays in the log, marked undone: done again, the attack draws "
            "new cubes.",
            "Draws {numbers} stay in the log, marked undone: done again, the attacks draw "
            "new cubes.",
            2,
        ).format(numbers="#12, #13")
        questions = [
            (_("Undo “{what}”?").format(what=_("End turn ({player})").format(player=player)),
             _("Yes, undo it"), draws),
            (_("Opening row: {n} of {size} cards scanned. Start the first turn?").format(
                n=3, size=6), _("Yes, start the first turn"),
             _("The client seed is fixed with these cards; the missing ones come with the "
               "first refill.")),
            (_("{what}: the game ends. Go on?").format(
                what=_("{player} escapes").format(player=player)), _("Yes, end the game"),
             _("The server seed is revealed and nothing can be undone: the scoring begins.")),
            (_("Give the phones a new link? The old one stops working at once."),
             _("Yes, a new link"), _("Every phone scans the new code again: Menu, then Phones.")),
            (_("Abandon the game? Its seed is revealed; it cannot go on."), _("Yes, abandon it"),
             ""),
        ]  # fmt: skip
        for question, yes, note in questions:
            confirm = Confirm(question, yes, lambda: None, note=note)
            confirm.open(animation=False)
            ui.frames(4)
            for w in confirm.walk():
                if isinstance(w, Label) and w.text and w.opacity > 0:
                    tw, th = w.texture_size
                    assert th <= w.height + 1 and tw <= w.width + 1, (language, w.text, w.size,
                                                                      w.texture_size)  # fmt: skip
                    assert w.font_size >= 26, (language, w.text)
            measured = screen_metrics(ui.window)
            assert not measured["cut"], (language, measured["cut"])
            assert measured["smallest_text_ink"] >= 18, (language, question)
            confirm.dismiss(animation=False)
            ui.frames(2)
    finally:
        ui.close()
