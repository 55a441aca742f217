"""The screens around the table read from across it, as the table screen does
(TABLE_SCREEN.md): in every language, with long, realistic content, every text drawn at
least 18 px of ink as measured from the window's pixels (companion.ui.ink), nothing
shortened with "..." and no word broken inside, every button a finger's size (48 px)
and 8 px from the next. New game, the opening, the audit, tags, the PIN pad, the trouble
screen, past games, all games, and a game's charts (their axes and legends too).

With CLANK_SCREENSHOTS=<folder> each screen is saved there as side-<lang>-<screen>.png.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("KIVY_WINDOW", "sdl2")
from kivy.config import Config as KivyConfig  # noqa: E402

KivyConfig.set("graphics", "width", "800")
KivyConfig.set("graphics", "height", "480")

from kivy.uix.modalview import ModalView  # noqa: E402

from companion import i18n  # noqa: E402
from companion.config import AppConfig, Config  # noqa: E402
from companion.store import GameStore  # noqa: E402
from companion.store.seal import key_path  # noqa: E402
from companion.store.tags import Component  # noqa: E402
from companion.ui.harness import Harness  # noqa: E402
from companion.ui.ink import LETTER, screen_metrics  # noqa: E402
from tests.screen_metrics import MIN_GAP, MIN_TARGET, targets  # noqa: E402
from tests.test_report import close_popups, play_to_the_end  # noqa: E402

SHOTS = Path(os.environ["CLANK_SCREENSHOTS"]) if os.environ.get("CLANK_SCREENSHOTS") else None
LANGUAGES = ("en", "es", "ru", "uk")
SEED = "5eed" * 16
SIX = ["red", "yellow", "green", "blue", "purple", "orange"]
INK = 18  # px: any text a seated player reads without leaning in


@pytest.fixture(autouse=True)
def english_afterwards():
    yield
    i18n.set_language("en")


def harness(db: Path, language: str) -> Harness:
    return Harness(db, Config(app=AppConfig(database=str(db), language=language)))


def popups(ui: Harness) -> list[ModalView]:
    return [w for w in ui.window.children if isinstance(w, ModalView)]


def measure(ui: Harness, language: str, name: str) -> list[str]:
    """What keeps the screen (or the pop-up over it) from being read across the table:
    each text under 18 px of ink, each text shortened or broken, each button under a
    fingertip's size or too near the next."""
    ui.frames(4)
    if SHOTS is not None:
        SHOTS.mkdir(parents=True, exist_ok=True)
        ui.screenshot(SHOTS / f"side-{language}-{name}.png")
    measured = screen_metrics(ui.window)
    where = f"{language} {name}"
    found = [
        f"{where}: {t['text']!r} has {t['ink']} px of ink"
        for t in measured["texts"]
        if t["ink"] and LETTER.search(t["text"]) and t["ink"] < INK
    ]
    if measured["smallest_text_ink"] is None:
        found.append(f"{where}: no text measured")
    found += [f"{where}: cut {c}" for c in measured["cut"]]
    top = popups(ui)[:1] or [ui.app.screens.current_screen]
    buttons = targets(top[0])
    for b in buttons:
        if b.w + 0.5 < MIN_TARGET or b.h + 0.5 < MIN_TARGET:
            found.append(f"{where}: button {b.text!r} is {b.w:.0f}x{b.h:.0f} px")
    for i, a in enumerate(buttons):
        for b in buttons[i + 1 :]:
            if a.gap(b) + 0.5 < MIN_GAP and not a.overlaps(b):
                found.append(f"{where}: buttons {a.text!r} and {b.text!r} {a.gap(b):.0f} px apart")
    for b in buttons:  # a button reaching out of the window is not a target
        if b.x < -1 or b.y < -1 or b.x + b.w > 801 or b.y + b.h > 481:
            found.append(f"{where}: button {b.text!r} reaches out of the screen")
    return found


def card(edition: str, name: str) -> Component:
    return Component("card", edition, name)


def tour(ui: Harness, language: str) -> list[str]:
    """Every screen around the table with long content, measured in turn."""
    app, ctl = ui.app, ui.app.controller
    found: list[str] = []
    newgame = app.screen("newgame")
    for colour in ("red", "blue"):
        newgame.toggle_seat(colour)
    found += measure(ui, language, "new-game")
    newgame.clear_seats()
    for colour in SIX:
        newgame.toggle_seat(colour)
    found += measure(ui, language, "new-game-six")
    newgame.clear_seats()

    # the opening: the checklist, the commitment, the row, the seed words
    ctl.new_game({"edition": "clank", "players": ["red", "yellow", "green", "blue"],
                  "server_seed": SEED})  # fmt: skip
    for name in ("Tattle", "Sneak", "Search"):
        ctl.scan_component(card("clank", name))
    app.screen("opening").ids.words.text = "owlbear pizza"
    found += measure(ui, language, "opening")
    ctl.abandon()
    ctl.close_game()
    app.show_screen(app.home_screen())
    ctl.new_game({"edition": "catacombs", "players": SIX, "party": True, "server_seed": SEED})
    found += measure(ui, language, "opening-catacombs-six")
    ctl.abandon()
    ctl.close_game()
    app.show_screen(app.home_screen())

    # a game played to its end: its audit, verified, with a draw undone
    game = play_to_the_end(ui, SIX)
    app.open_audit()
    app.screen("audit").verify()
    found += measure(ui, language, "audit")
    ctl.close_game()
    app.show_screen(app.home_screen())
    play_to_the_end(ui, ["green", "blue", "red"], undo_one=False)
    ctl.close_game()
    app.show_screen(app.home_screen())

    # a game's charts, each in turn; past games; every game at once
    app.open_past_game(game)
    ui.frames(2)
    report = app.screen("report")
    for chart in ("noise", "damage", "rage", "scores"):
        report.show(chart)
        found += measure(ui, language, f"report-{chart}")
    app.open_audit(game, back_to="report")
    found += measure(ui, language, "audit-past-game")
    ctl.new_game({"edition": "catacombs", "players": ["purple", "orange"], "server_seed": SEED})
    ctl.abandon()
    ctl.close_game()
    app.show_screen("pastgames")
    found += measure(ui, language, "past-games")
    app.show_screen("stats")
    stats = app.screen("stats")
    for chart in ("fairness", "wins", "seats"):
        stats.show(chart)
        found += measure(ui, language, f"stats-{chart}")

    # tags: a box walked tag by tag, a tag enrolled already, Tschak!'s cards
    app.show_screen("tags")
    tags = app.screen("tags")
    tags.edition = "catacombs"
    tags.start("bulk")
    tags.scanned("04000000000001")
    tags.scanned("04000000000001")  # refused: just enrolled
    found += measure(ui, language, "tags-bulk")
    tags.stop()
    tags.start("enroll")
    tags.scanned("04000000000001")
    found += measure(ui, language, "tags-enrolled-already")
    tags.stop()
    tags.edition = "tschak"
    tags.start("bulk")
    tags.scanned("04000000000002")
    found += measure(ui, language, "tags-tschak")
    tags.stop()

    # the PIN pad: asked to re-bind during a game, then locked out
    ctl.new_game({"edition": "clank", "players": ["red", "blue"], "server_seed": SEED})
    ctl.begin()
    app.show_screen("tags")
    tags.start("rebind")
    found += measure(ui, language, "pin-rebind")
    for wrong in ("1", "22", "333"):
        for digit in wrong:
            app.pin_pad.digit(digit)
        app.pin_pad.digit("ok")
    assert app.pin_pad.locked
    found += measure(ui, language, "pin-locked")
    close_popups(ui)
    return found


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_screens_around_the_table_read_from_across_it(tmp_path, language, monkeypatch):
    monkeypatch.setenv("CLANK_CONFIG", str(tmp_path / "config.toml"))
    ui = harness(tmp_path / "games.db", language)
    try:
        assert i18n.current_language() == language
        found = tour(ui, language)
    finally:
        ui.close()
    assert not found, f"{len(found)} problems in {language}:\n" + "\n".join(found)


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_game_that_cannot_be_resumed_reads_from_across_the_table(tmp_path, language):
    db = tmp_path / "games.db"
    with GameStore(db) as store:
        from companion.kinds.clank.controller import Controller

        ctl = Controller(store)
        ctl.new_game({"edition": "clank", "players": ["red", "blue"]})
        ctl.begin()
    key_path(db).unlink()  # the seal key beside the database is gone
    ui = harness(db, language)
    try:
        assert ui.app.controller.unresumable is not None
        assert ui.app.screens.current == "newgame"
        assert ui.app.screen("newgame").problem
        found = measure(ui, language, "unresumable-game")
    finally:
        ui.close()
    assert not found, "\n".join(found)


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_tschak_games_scores_read_from_across_the_table(tmp_path, language):
    """A past Tschak! game in charts: its scores only (no dragon), the parts against it
    below zero, the legend in as many lines as it takes."""
    from tests.test_session_tschak import finished

    db, _shown = finished(tmp_path)
    ui = harness(db, language)
    try:
        ui.app.open_past_game(1)
        ui.frames(2)
        report = ui.app.screen("report")
        assert report.shown == "scores" and list(report.charts) == ["scores"]
        found = measure(ui, language, "report-tschak-scores")
    finally:
        ui.close()
    assert not found, "\n".join(found)
