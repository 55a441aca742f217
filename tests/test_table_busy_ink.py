"""The table in its busiest states, at four players in every language (the states the
screens' tour of the languages walks through): a panel with gold, an artifact and a
credit of clank, a player in the Depths, ghosts waiting in the Clank! area. Nothing on
the table is shortened with "...": a status takes two lines, a header too full leaves out
the name (the letter in its disc and the panel's colour name the player), the ghosts
waiting are counted on their chip."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("KIVY_WINDOW", "sdl2")
from kivy.config import Config as KivyConfig  # noqa: E402

KivyConfig.set("graphics", "width", "800")
KivyConfig.set("graphics", "height", "480")

from companion.config import AppConfig, Config  # noqa: E402
from companion.store.tags import resolve  # noqa: E402
from companion.ui.harness import Harness  # noqa: E402
from companion.ui.ink import screen_metrics  # noqa: E402

SEED = "5eed" * 16
SHOTS = os.environ.get("CLANK_SCREENSHOTS")


def whole(ui: Harness, name: str) -> dict:
    ui.frames(3)
    if SHOTS:
        from pathlib import Path

        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        ui.screenshot(Path(SHOTS) / f"{name}.png")
    found = screen_metrics(ui.window)
    assert not found["cut"], found["cut"]
    assert found["smallest_text_ink"] >= 18
    assert found["smallest_figure_ink"] >= 30  # every figure the table watches, 2-4 players
    return found


@pytest.mark.parametrize("language", ["en", "es", "ru", "uk"])
def test_the_busiest_table_at_four_players_shortens_nothing(tmp_path, language, monkeypatch):
    monkeypatch.setenv("CLANK_CONFIG", str(tmp_path / "config.toml"))
    db = tmp_path / "games.db"
    ui = Harness(db, Config(app=AppConfig(database=str(db), language=language)))
    try:
        ctl = ui.app.controller
        players = ["red", "yellow", "green", "blue"]
        ctl.new_game({"edition": "clank", "players": players, "server_seed": SEED})
        for name in ("Tattle", "Sneak", "Search"):
            ctl.scan_component(resolve("card", "clank", name))
        ctl.begin()
        for player, n in (("red", 7), ("yellow", 12), ("green", 21), ("blue", 22)):
            ctl.clank(n, player)
        ctl.do({"do": "gold", "player": "red", "n": 25})
        ctl.do({"do": "artifact", "player": "red", "value": 30})
        ctl.do({"do": "depths", "player": "yellow", "in": True})
        ctl.do({"do": "clank", "player": "red", "n": -12})  # more than it has: a credit
        found = whole(ui, f"table-busy-{language}")
        texts = {t["text"] for t in found["texts"]}
        assert any("30" in t for t in texts)  # red's artifact, whole
        ctl.abandon()
        ctl.close_game()
        ui.app.show_screen(ui.app.home_screen())

        ctl.new_game({"edition": "catacombs", "players": players, "server_seed": SEED})
        ctl.begin()
        ctl.do({"do": "ghost"})  # a ghost waits in the Clank! area
        ctl.do({"do": "depths", "player": "blue", "in": True})
        ctl.do({"do": "clank", "player": "red", "n": -5})
        ctl.do({"do": "artifact", "player": "blue", "value": 20})
        ctl.do({"do": "secret", "player": "green", "name": "dragon egg"})
        ui.frames(3)
        chips = [count for _mark, count, *_ in ui.app.screen("table").ids.bag.chips]
        assert any(c.endswith("+1") for c in chips), chips  # counted on the ghost chip
        whole(ui, f"table-catacombs-four-{language}")
    finally:
        ui.close()
