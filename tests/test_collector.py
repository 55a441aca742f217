"""The garbage collector at the table (companion.ui.app): held off while the app starts,
then run once the table has been still for a moment, between taps, not in the middle
of one; the young objects collected less often than Python's default while it plays.
"""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from companion.ui import app as ui_app
from companion.ui.harness import Harness


@pytest.fixture
def ui(tmp_path: Path):
    harness = Harness(tmp_path / "games.db")
    threshold = gc.get_threshold()
    yield harness
    harness.close()
    gc.set_threshold(*threshold)
    gc.unfreeze()  # what the app froze goes back to the collector (a test process)
    gc.enable()


def test_the_collector_runs_when_the_table_is_still_and_not_during_a_tap(ui, monkeypatch):
    from kivy.clock import Clock

    collections: list[tuple[int, float]] = []
    collect = gc.collect

    def noted(generation: int = 2) -> int:
        collections.append((generation, Clock.get_time()))
        return collect(generation)

    flips: list[float] = []
    ui.window.fbind("on_flip", lambda *args: flips.append(Clock.get_time()))
    ui.app._settle()  # what the app does once its first frame is shown
    assert gc.isenabled() and gc.get_threshold()[0] == ui_app.YOUNG
    monkeypatch.setattr(gc, "collect", noted)
    ctl = ui.app.controller
    ctl.new_game({"edition": "clank", "players": ["red", "blue"]})
    ctl.begin()
    ui.until(lambda: collections)  # the table drawn, then still: the collector ran
    generation, at = collections[0]
    assert generation == 1  # the young objects
    assert flips and at - flips[-1] >= ui_app.STILL - 0.05  # after a still moment
    for _ in range(3):  # a tap after another: none runs while the table answers them
        collections.clear()
        ctl.clank(1)
        ui.frames(2)
        assert collections == []
    ui.app._still_collections = ui_app.WHOLE_EVERY - 1
    ui.until(lambda: collections)
    assert collections[0][0] == 2  # every WHOLE_EVERY times, everything not frozen
