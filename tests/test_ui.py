"""The touchscreen, driven by simulated touches at 800x480 (offscreen)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("KIVY_WINDOW", "sdl2")
from kivy.config import Config as KivyConfig  # noqa: E402

KivyConfig.set("graphics", "width", "800")
KivyConfig.set("graphics", "height", "480")

from companion.ui.harness import Harness  # noqa: E402

SHOTS = Path(os.environ.get("CLANK_SCREENSHOTS", "")) if os.environ.get("CLANK_SCREENSHOTS") else None


@pytest.fixture
def ui(tmp_path):
    harness = Harness(tmp_path / "games.db")
    yield harness
    harness.close()


def shot(ui: Harness, name: str) -> None:
    if SHOTS is not None:
        SHOTS.mkdir(parents=True, exist_ok=True)
        ui.screenshot(SHOTS / f"{name}.png")


def test_new_game_then_clank_end_turn_and_undo(ui):
    assert ui.app.screens.current == "newgame"
    ui.tap("Red")
    ui.tap("Blue")
    shot(ui, "newgame")
    ui.tap("Start game")
    assert ui.app.screens.current == "table"
    snap = ui.snapshot
    assert list(snap["players"]) == ["red", "blue"]
    panels = {p.player: p for p in ui.app.screens.get_screen("table").ids.players.children}
    plus = [w for w in panels["red"].walk() if getattr(w, "text", "") == "+1"][0]
    ui.tap(plus)
    ui.tap(plus)
    assert ui.snapshot["clank_area"]["red"] == 5
    shot(ui, "table")
    ui.tap("Undo")
    assert ui.snapshot["clank_area"]["red"] == 4
    ui.tap("End turn (red)")
    ui.tap("Scan revealed cards (0)...")
    assert ui.snapshot["turn"]["active"] == "blue"


def start(ui: Harness, *colours: str, edition: str | None = None) -> None:
    if edition == "catacombs":
        ui.tap("Clank! Catacombs")
    for c in colours:
        ui.tap(c)
    ui.tap("Start game")


def test_a_refill_from_the_scan_drawer_brings_the_dragon(ui):
    start(ui, "Red", "Yellow", "Green")
    ui.app.controller.clank(3)  # red makes noise: the bag will hold red cubes
    ui.frames(2)
    ui.tap("End turn (red)")
    ui.tap("Scan drawer")
    shot(ui, "scan-drawer")
    ui.tap("Orc Grunt")
    assert ui.snapshot["refill"] == ["Orc Grunt"]
    ui.tap("Scan revealed cards (1)...")
    view = ui.app.attack_view
    assert view is not None and view.title.startswith("The dragon attacks! (2 cubes)")
    assert not view.finished  # the cubes come one by one; Continue waits for the last
    ui.frames(5, seconds=1.0)
    assert view.finished and len(view.ids.cubes.children) == 2
    shot(ui, "attack")
    ui.tap("Continue")
    assert ui.snapshot["turn"]["active"] == "yellow"
    assert ui.snapshot["draws"][0]["nonce"] == 1


def test_restarting_comes_back_to_the_same_table(tmp_path):
    first = Harness(tmp_path / "games.db")
    start(first, "Green", "Blue", "Red", "Yellow")
    first.app.controller.clank(2)
    first.frames(2)
    before = first.snapshot
    first.close()  # the power goes
    again = Harness(tmp_path / "games.db")
    try:
        assert again.app.screens.current == "table"
        assert again.snapshot == before
        panels = again.app.screens.get_screen("table").ids.players.children
        assert [p.player for p in reversed(panels)] == ["green", "blue", "red", "yellow"]
        assert [p.active for p in reversed(panels)] == [True, False, False, False]
    finally:
        again.close()


def test_catacombs_game_with_five_players_and_a_knock_out(ui):
    start(ui, "Red", "Yellow", "Green", "Blue", "Purple", edition="catacombs")
    snap = ui.snapshot
    assert snap["edition"] == "catacombs" and snap["party"] and len(snap["players"]) == 5
    ui.app.controller.do({"do": "damage", "player": "purple", "n": 12})
    ui.frames(2)
    panels = {p.player: p for p in ui.app.screens.get_screen("table").ids.players.children}
    assert panels["purple"].out and panels["purple"].status_text == "knocked out"
    shot(ui, "table-five-players")
