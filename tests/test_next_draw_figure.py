"""The figure beside the odds is the draw the odds are of (issue's finding: during the
countdown the top said "Next attack 4" while the odds were for a 6-cube draw)."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("KIVY_WINDOW", "sdl2")

from companion.kinds.clank.screens.desk import desk_of  # noqa: E402
from companion.ui.harness import Harness  # noqa: E402
from tests.helpers import companion_draws_seed  # noqa: E402

SEED = "c0de" * 16


@pytest.fixture
def ui(tmp_path, monkeypatch):
    from companion.kinds.clank.screens.attack import AttackView

    monkeypatch.setenv("CLANK_CONFIG", str(tmp_path / "config.toml"))
    monkeypatch.setattr(AttackView, "STEP", 0.0)
    harness = Harness(tmp_path / "games.db")
    yield harness
    harness.close()


def test_the_figure_is_the_countdowns_draw_while_the_countdown_runs(ui):
    ctl = ui.app.controller
    with companion_draws_seed(SEED):
        ctl.new_game({"edition": "clank", "players": ["red", "blue", "green"]})
    ctl.begin()
    table = ui.app.screen("table")
    ui.app.show_screen("table")
    view = ctl.view()
    assert view.odds_reason == "attack"
    assert table.next_attack == str(view.next_attack) and table.next_caption == "Next attack"
    ctl.do({"do": "artifact", "player": "red", "value": 20})
    ctl.do({"do": "escape", "player": "red"})
    for _ in range(2):
        ctl.do({"do": "end_turn", "revealed": []})
        if desk_of(ui.app).attack_view is not None:
            desk_of(ui.app).attack_view.dismiss(animation=False)
    ui.frames(2)
    view = ctl.view()
    assert view.countdown is not None and view.odds_reason == "countdown"
    assert not view.odds_ends_game and view.odds_count != view.next_attack  # the finding
    assert table.next_attack == str(view.odds_count)  # the draw the odds are of
    assert table.next_caption == "Countdown draw"
