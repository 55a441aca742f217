"""The six players' panels told apart as the window paints them, by every player.

A six-player table is drawn; each panel's fill is read from the window's pixels (its
most common colour) and simulated as a deutan, protan and tritan player sees it
(tests/cvd.py): every two fills are at least 20 apart in CAM02-UCS, in normal vision too.

With CLANK_SCREENSHOTS=<folder> the table is saved there (table-colours-6.png) and, in
its cvd/ folder, as each deficiency sees it: look at them.
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import pytest

os.environ.setdefault("KIVY_WINDOW", "sdl2")
from kivy.config import Config as KivyConfig  # noqa: E402

KivyConfig.set("graphics", "width", "800")
KivyConfig.set("graphics", "height", "480")

from companion.config import AppConfig, Config  # noqa: E402
from companion.ui.colours import panel_tint  # noqa: E402
from companion.ui.harness import Harness  # noqa: E402
from companion.ui.taps import RULE  # noqa: E402

pytest.importorskip("colorspacious", reason="colorspacious (the dev extra) is not installed")
from tests import cvd  # noqa: E402

SHOTS = Path(os.environ["CLANK_SCREENSHOTS"]) if os.environ.get("CLANK_SCREENSHOTS") else None
SEATS = ["red", "yellow", "green", "blue", "purple", "orange"]
LEAST_PAINTED = 20  # tests/test_colours.py: told apart at a glance


def test_six_panels_are_told_apart_by_every_player(tmp_path):
    db = tmp_path / "games.db"
    ui = Harness(db, Config(app=AppConfig(database=str(db))))
    try:
        ctl = ui.app.controller
        ctl.new_game({"edition": "clank", "players": SEATS, "party": True})
        ctl.begin()
        ui.frames(3)
        screen = ui.app.screens.get_screen("table")
        # the panels are new: each is veiled (inert) for its first moment, then as it is
        ui.until(lambda: not any(RULE.settling(p) for p in screen.panels()))
        ui.frames(2)
        fills = {}
        for panel in screen.panels():
            common = Counter(ui.pixels(panel)).most_common(1)[0][0]
            fills[panel.player] = tuple(v / 255 for v in common)
        assert sorted(fills) == sorted(SEATS)
        for name, fill in fills.items():  # the fill is the panel's tint, as painted
            assert fill == pytest.approx(panel_tint(name)[:3], abs=2.5 / 255), name
        if SHOTS is not None:
            SHOTS.mkdir(parents=True, exist_ok=True)
            shot = ui.screenshot(SHOTS / "table-colours-6.png")
            cvd.simulate_png(shot, SHOTS / "cvd")
        for vision in cvd.VISIONS:
            d, a, b = cvd.closest(fills, vision)
            assert d >= LEAST_PAINTED, f"{vision or 'normal'}: {a} and {b} {d:.1f} apart"
    finally:
        ui.close()
