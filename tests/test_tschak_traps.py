"""Tschak! traps a table fell into (issue's findings, each a regression test): the misplay
an undone card brought stays after Undo; the pickers of tower 1 offer cards no hand can
hold and the refusal comes at Resolve without naming the player; a tap on a laid card
takes it back without a question."""

from __future__ import annotations

import os

from tests.test_tschak_control import Heard, set_out, started

TOWER = (["monster:3", "troglodyte", "monster:1"], ["chest:4", "ring", "elixir"])


def test_undo_of_the_card_that_made_a_misplay_takes_the_penalty_with_it():
    control = started(("red", "blue"))
    set_out(control, *TOWER)
    assert control.add_card("M4", "red") and control.add_card("M5", "red")
    assert "red" in control.misplays  # two mages: the penalty, as the table saw it
    assert control.undo()  # the second mage was a slip of the finger
    assert control.teams["red"] == ["M4"] and "red" not in control.misplays
    assert not control.view().teams[0].misplay


def test_a_card_taken_back_for_the_swap_keeps_the_penalty():
    control = started(("red", "blue"))
    set_out(control, *TOWER)
    assert control.add_card("M4", "red") and control.add_card("M5", "red")
    assert control.remove_card("red", 1)  # the player swaps it (T-X1): the penalty stays
    assert "red" in control.misplays
    assert control.add_card("W3", "red")
    assert control.undo()  # the swapped-in card undone: the penalty is not its doing
    assert "red" in control.misplays


def test_the_pickers_offer_only_what_the_hands_can_hold_in_tower_1():
    control = started(("red", "blue"))
    heard = Heard(control)
    set_out(control, *TOWER)
    game = control.game
    assert game is not None and game.known_hand("red") is None  # tower 1: hands unknown
    everything = set(game.catalog.hero_counts)
    assert set(control.hand_choices("red")) == everything
    assert control.add_card("M4", "red")
    # a card whose only copy another team holds is not offered, and is refused as entered
    assert game.catalog.hero_counts["M4"] == 1  # the box's only mage 4 without a staff
    assert "M4" not in control.hand_choices("blue")
    before = control.snapshot()
    assert not control.add_card("M4", "blue")
    assert heard.last.kind == "rejected" and heard.last.message.startswith("Blue: ")
    assert control.snapshot() == before and control.teams.get("blue", []) == []


def test_a_tap_on_a_laid_card_asks_before_taking_it_back(tmp_path, monkeypatch):
    os.environ.setdefault("KIVY_WINDOW", "sdl2")
    from companion.kinds.tschak.screens.widgets import CardChip
    from companion.ui.harness import Harness
    from companion.ui.screens.popups import Confirm
    from tests.helpers import popup

    monkeypatch.setenv("CLANK_CONFIG", str(tmp_path / "config.toml"))
    ui = Harness(tmp_path / "games.db")
    try:
        tschak = ui.app.control("tschak")
        tschak.prepare(["red", "blue"])
        assert tschak.start()
        for card in [*TOWER[0], *TOWER[1]]:
            tschak.scan_card(card)
        assert tschak.set_out_tower()
        assert tschak.add_card("M4s", "red") and tschak.add_card("W3", "red")
        ui.frames(3)
        chip = next(
            w
            for w in ui.app.screens.current_screen.walk()
            if isinstance(w, CardChip) and w.notation == "W3"
        )
        ui.tap(chip)
        question = popup(ui, Confirm)
        assert tschak.teams["red"] == ["M4s", "W3"]  # nothing taken yet
        assert "Red" in question.question
        yes = next(w for w in question.walk() if getattr(w, "text", "") == question.yes_text)
        ui.armed()  # the answer takes taps a moment after it shows
        ui.tap(yes)
        assert tschak.teams["red"] == ["M4s"]
    finally:
        ui.close()
