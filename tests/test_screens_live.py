"""Every screen around the table is a function of the controller: after each step of
random play (scans, taps, undo, restarts), the live opening, scoring, audit and
past-games screens show exactly what the same screen freshly built shows.

A widget that a step forgot to update (a stale text, a button still enabled) fails here.
"""

from __future__ import annotations

import os
import random

import pytest

os.environ.setdefault("KIVY_WINDOW", "sdl2")
from kivy.config import Config as KivyConfig  # noqa: E402

KivyConfig.set("graphics", "width", "800")
KivyConfig.set("graphics", "height", "480")

from kivy.uix.behaviors import ButtonBehavior  # noqa: E402
from kivy.uix.label import Label  # noqa: E402
from kivy.uix.textinput import TextInput  # noqa: E402

from companion.store.tags import resolve  # noqa: E402
from companion.ui.app import screen_factory  # noqa: E402
from companion.ui.harness import Harness  # noqa: E402
from tests.monkey import lay_out  # noqa: E402

SEATS = ["red", "yellow", "green", "blue", "purple", "orange"]
CARDS = {
    "clank": ["Tattle", "Sneak", "Search", "Pickaxe", "Lucky Coin", "Tunnel Guide", "Kobold"],
    "catacombs": [],
}


def seen(screen) -> list[tuple[str, str, bool]]:
    """Every text shown and every button with whether it can be pressed."""
    out = []
    stack = [screen]
    while stack:
        w = stack.pop()
        if w.opacity > 0 and isinstance(w, Label | TextInput):
            pressable = isinstance(w, ButtonBehavior) and not w.disabled
            out.append((type(w).__name__, w.text, pressable))
        stack.extend(w.children)
    return sorted(out)


def fresh(ui: Harness, name: str):
    """The same screen, built afresh, shown the controller's state of the moment and laid
    out at the live screen's size (what a button reads may depend on its width)."""
    screen = screen_factory(name)(name="fresh-" + name)
    if ui.app.game_screen(name):  # a kind's screen, drawn as the app draws it
        screen.show_own()
    if hasattr(screen, "refresh"):
        screen.refresh()
    lay_out(screen, ui.app.screens.current_screen.size)
    return screen


def assert_live_is_fresh(ui: Harness, step: str) -> str:
    name = ui.app.screens.current
    live = seen(ui.app.screens.current_screen)
    assert live == seen(fresh(ui, name)), f"{name} after {step}"
    return name


def close_popups(ui: Harness) -> None:
    from kivy.uix.modalview import ModalView

    for w in list(ui.window.children):
        if isinstance(w, ModalView):
            w.dismiss(animation=False)
    ui.frames(2)


def card(edition: str, rng: random.Random):
    names = CARDS[edition] or _dungeon(edition)
    return resolve("card", edition, rng.choice(names))


def _dungeon(edition: str) -> list[str]:
    from companion.kinds.clank.catalog import load_catalog

    cards = load_catalog(edition).cards
    return sorted(c.name for c in cards.values() if c.in_dungeon_deck)[:10]


@pytest.mark.parametrize(("players", "edition", "seed"), [(2, "clank", 5), (4, "catacombs", 6)])
def test_the_opening_screen_follows_every_scan_word_and_undo(tmp_path, players, edition, seed):
    rng = random.Random(seed)
    db = tmp_path / "games.db"
    ui = Harness(db)
    try:
        ui.app.controller.new_game({"edition": edition, "players": SEATS[:players]})
        ui.frames(3)
        for n in range(40):
            ctl = ui.app.controller
            step = rng.choice(["scan", "scan", "undo", "words", "drop"])
            if step == "scan":
                ctl.scan_component(card(edition, rng))
            elif step == "undo":
                ctl.undo()
            elif step == "words":
                ctl.set_words(rng.choice(["", "owl", "seven red owls", "ß ü"]))
            elif step == "drop":
                ctl.drop_opening_card()
            ui.frames(2)
            close_popups(ui)
            assert assert_live_is_fresh(ui, f"step {n}: {step}") == "opening"
            if n % 15 == 14:  # a power cut
                ui.close()
                ui = Harness(db)
                ui.frames(2)
                assert assert_live_is_fresh(ui, f"step {n}: restart") == "opening"
    finally:
        ui.close()


def _to_scoring(ui: Harness, players: int, edition: str) -> None:
    ctl = ui.app.controller
    ctl.new_game({"edition": edition, "players": SEATS[:players], "party": players > 4})
    ctl.begin()
    ctl.do({"do": "artifact", "player": "red", "value": 20 if edition == "clank" else 25})
    ctl.do({"do": "escape", "player": "red"})
    for name in SEATS[1:players]:
        ctl.do({"do": "damage", "player": name, "n": 10})
    ui.frames(3)
    close_popups(ui)
    assert ui.app.screens.current == "scoring"


@pytest.mark.parametrize(("players", "edition", "seed"), [(3, "clank", 7), (5, "catacombs", 8)])
def test_the_scoring_screen_follows_every_scan_tap_and_undo(tmp_path, players, edition, seed):
    rng = random.Random(seed)
    db = tmp_path / "games.db"
    ui = Harness(db)
    try:
        _to_scoring(ui, players, edition)
        assert_live_is_fresh(ui, "the end")
        for n in range(40):
            ctl = ui.app.controller
            screen = ui.app.screens.current_screen
            step = rng.choice(["scan", "scan", "select", "remove", "undo"])
            if step == "scan":
                ctl.scan_component(card(edition, rng))
            elif step == "select":
                ui.tap(rng.choice(list(screen.ids.selector.children)))
            elif step == "remove" and screen.ids.deck.children:
                ui.tap(rng.choice(list(screen.ids.deck.children)))
            elif step == "undo":
                ctl.undo()
            ui.frames(2)
            close_popups(ui)
            assert assert_live_is_fresh(ui, f"step {n}: {step}") == "scoring"
            if n % 15 == 14:
                ui.close()
                ui = Harness(db)
                ui.frames(2)
                assert assert_live_is_fresh(ui, f"step {n}: restart") == "scoring"
    finally:
        ui.close()


def test_the_audit_and_past_games_follow_the_game(tmp_path):
    rng = random.Random(9)
    ui = Harness(tmp_path / "games.db")
    try:
        ctl = ui.app.controller
        ctl.new_game({"edition": "clank", "players": ["red", "blue"]})
        ctl.begin()
        for n in range(12):
            ctl.clank(rng.randint(1, 3))
            ctl.do({"do": "attack"})
            if rng.random() < 0.3:
                ctl.undo()
            close_popups(ui)
            ui.app.show_screen("audit")
            ui.frames(2)
            assert assert_live_is_fresh(ui, f"step {n}") == "audit"
            ui.app.show_screen("table")
        ui.app.show_screen("pastgames")
        ui.frames(2)
        assert assert_live_is_fresh(ui, "past games") == "pastgames"
    finally:
        ui.close()
