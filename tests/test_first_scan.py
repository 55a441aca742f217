"""The first scan after start-up waits for none of start-up's own work: before the reader
starts (and the buttons, and the database's writer settles), the parts of the screen are
moved into their framebuffers and a frame is drawn into them (companion.ui.app,
``_after_first_frame``). On a Pi the first frame comes slowly, and the move into the
framebuffers (at the tick after the frame that drew the parts) fell due at the same tick
as the rest of start-up: the parts were moved after the reader had started, and the
first scan paid for drawing every part into a new texture."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from companion.ui.cached import Cached
from companion.ui.harness import Harness

SLOW = 0.15  # a first frame slower than the tenth of a second start-up waits after it


@pytest.fixture
def ui(tmp_path: Path):
    harness = Harness(tmp_path / "games.db")
    yield harness
    harness.close()


@pytest.mark.parametrize("first", ["start-up's wait", "the part's frame"])
def test_the_parts_are_in_their_framebuffers_and_drawn_before_the_reader_starts(
    ui, monkeypatch, first
):
    from kivy.uix.label import Label

    events: list[str] = []
    monkeypatch.setattr(ui.app, "_settle", lambda: events.append("settle"))
    monkeypatch.setattr(ui.app, "_start_hardware", lambda: events.append("reader"))
    cache = Cached.cache

    def noted(self: Cached) -> None:
        if self is part and self.fbo is None:
            events.append("moved")
        cache(self)

    monkeypatch.setattr(Cached, "cache", noted)
    ui.window.fbind("on_flip", lambda *args: events.append("frame"))
    part = Cached(size_hint=(None, None), size=(60, 40), pos=(10, 10))
    part.add_widget(Label(text="7", size=(60, 40)))
    ui.window.add_widget(part)
    try:
        if first == "start-up's wait":  # as in the app: its wait is asked for first
            ui.app._after_first_frame()
            ui.frames(1)  # the frame that draws the part straight into the window
        else:
            ui.frames(1)
            ui.app._after_first_frame()
        time.sleep(SLOW)  # both now fall due at the next tick
        ui.until(lambda: "reader" in events)
        assert part.fbo is not None
        moved, settled = events.index("moved"), events.index("settle")
        assert "frame" in events[moved:settled], events  # drawn into it, then the rest
        assert events.index("reader") > settled
    finally:
        ui.window.remove_widget(part)
