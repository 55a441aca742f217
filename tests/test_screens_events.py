"""The dragon attack and the end of the game are events, and nothing destructive happens
on one tap (TABLE_SCREEN.md), as a player across the table sees them at 800x480."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

os.environ.setdefault("KIVY_WINDOW", "sdl2")
from kivy.config import Config as KivyConfig  # noqa: E402

KivyConfig.set("graphics", "width", "800")
KivyConfig.set("graphics", "height", "480")

from companion.kinds.clank.screens.attack import AttackView, CubeToken, VerdictLine  # noqa: E402
from companion.kinds.clank.screens.desk import desk_of  # noqa: E402
from companion.kinds.clank.view import attacks_from_events  # noqa: E402
from companion.story import LoggedDraw  # noqa: E402
from companion.ui.harness import Harness  # noqa: E402
from companion.ui.qr import ProofView  # noqa: E402
from companion.ui.screens.popups import INERT, Confirm  # noqa: E402
from tests.helpers import popup  # noqa: E402
from tests.screen_metrics import problems, shown  # noqa: E402

SEED = "5eed" * 16


@pytest.fixture
def ui(tmp_path, monkeypatch):
    monkeypatch.setattr(AttackView, "STEP", 3600.0)  # the cubes come when step_cube says
    harness = Harness(tmp_path / "games.db")
    yield harness
    harness.close()


def tokens(view: AttackView) -> list[CubeToken]:
    return list(reversed(view.ids.cubes.children))


def verdict_lines(view: AttackView) -> list[VerdictLine]:
    return list(reversed(view.ids.verdict.children))


def verdict_shown(view: AttackView) -> bool:
    return any(shown(line) for line in verdict_lines(view)) or shown(view.ids.nobody)


def step_cube(ui: Harness, view: AttackView) -> None:
    """Show the next cube, as the view's clock would (the tests hold the clock: a busy
    machine's slow frames must not show two cubes between two checks)."""
    before = view.shown
    view._next_cube(0)
    ui.frames(1)
    assert view.shown == before + 1


# ------------------------------------------------------------------ the attack
def test_the_dragon_attack_is_an_event(ui):
    """A real attack through the Menu: the bag's counts first, the cubes one at a time,
    large and in the middle, black drawn black; the verdict and one plain Continue only
    once the last cube is shown."""
    ctl = ui.app.controller
    ctl.new_game({"edition": "clank", "players": ["red", "blue"], "server_seed": SEED})
    ctl.begin()
    ctl.clank(6, "red")
    ctl.clank(4, "blue")
    ui.tap("Menu")
    ui.tap("Dragon attack (card effect)")
    assert desk_of(ui.app).attack_view is None and not ctl.view().draws  # a confirmation first
    ui.frames(2, seconds=INERT + 0.1)  # the question takes no tap in its first moment
    ui.tap("Yes, the dragon attacks")
    view = desk_of(ui.app).attack_view
    draw = ctl.view().draws[-1]
    assert view.draw == draw and len(draw.drawn) == draw.count >= 2
    # the bag before the draw, kind by kind
    bag = [(b.kind, b.count) for b in reversed(view.ids.bag.children)]
    assert bag == [(k, str(n)) for k, n in draw.bag if n]
    cubes = tokens(view)
    assert len(cubes) == len(draw.drawn) and all(c.kind == "" for c in cubes)
    assert not view.finished and not verdict_shown(view)
    assert view.ids.dismiss.disabled and view.ids.dismiss.text == "Continue"
    for i in range(len(draw.drawn)):
        step_cube(ui, view)
        assert [c.kind for c in cubes] == [*draw.drawn[: i + 1]] + [""] * (len(cubes) - i - 1)
        last = i == len(draw.drawn) - 1
        assert view.finished is last and verdict_shown(view) is last
        assert view.ids.dismiss.disabled is not last
    for cube, kind in zip(cubes, draw.drawn, strict=True):
        assert cube.width >= 60 and cube.height >= 60  # large
        if kind == "black":
            assert cube.text == "" and sum(cube.face[:3]) < 0.3  # a black cube, no "x"
        else:
            assert cube.text == {"red": "R", "blue": "B"}[kind] and cube.font_size >= 36
    middle = view.ids.cubes.to_window(*view.ids.cubes.center)[0]
    assert abs(middle - 400) < 30  # in the middle
    assert view.ids.dismiss.text == "Continue"
    view_box = view.children[0]
    assert problems(view_box, {line.health for line in verdict_lines(view)}) == []
    assert problems(view.ids.cubes, {c.text for c in cubes if c.text}) == []
    ui.tap(view.ids.dismiss)
    ui.until(lambda: view.get_parent_window() is None)


def test_a_knock_out_is_told_after_the_last_cube_with_health_left(ui):
    ctl = ui.app.controller
    ctl.new_game({"edition": "catacombs", "players": ["red", "yellow", "green"],
                  "server_seed": SEED})  # fmt: skip
    ctl.begin()
    ui.frames(2)
    bag = (("black", 9), ("red", 3), ("yellow", 2), ("green", 0), ("ghost", 1))
    draw = LoggedDraw(7, "attack", 4, bag, ("ghost", "yellow", "black", "red"), False)
    events = [
        {"event": "draw", "nonce": 7},
        {"event": "damage", "player": "red", "health": 8},
        {"event": "damage", "player": "yellow", "health": 1},
        {"event": "damage", "player": "green", "health": 9},
        {"event": "damage", "player": "yellow", "health": 0},
        {"event": "knocked_out", "player": "yellow", "in_depths": False},
        {"event": "damage", "player": "red", "health": 7},
    ]
    (attack,) = attacks_from_events(events, {7: draw})
    desk_of(ui.app).show_attacks((attack,))
    view = desk_of(ui.app).attack_view
    cubes = tokens(view)
    for _ in range(3):
        step_cube(ui, view)
        assert not verdict_shown(view) and view.ids.dismiss.disabled
    assert cubes[0].kind == "ghost" and cubes[0].text == "" and cubes[0].face[0] > 0.8
    step_cube(ui, view)
    assert view.finished and verdict_shown(view) and not view.ids.dismiss.disabled
    lines = {line.kind: line for line in verdict_lines(view)}
    assert lines["red"].damage_text == "2 damage" and lines["red"].health == "7"
    assert lines["yellow"].knocked_out and lines["yellow"].health_text == "knocked out!"
    assert lines["green"].health == "9"
    assert "yellow is knocked out!" in view.outcome
    assert view.ids.dismiss.text == "Continue"  # never "Read: yellow knocked out"
    assert problems(view.children[0], {"7", "9"}) == []
    view.dismiss(animation=False)


# ------------------------------------------------------------------- the end
def play_to_the_end(ui: Harness) -> None:
    ctl = ui.app.controller
    ctl.new_game({"edition": "clank", "players": ["red", "blue", "green"],
                  "server_seed": SEED})  # fmt: skip
    ctl.begin()
    ctl.do({"do": "artifact", "player": "blue", "value": 25})
    ctl.do({"do": "escape", "player": "blue"})
    for player in ("red", "green"):
        ctl.clank(-30, player)
        ctl.do({"do": "damage", "player": player, "n": 10})
    ui.frames(3)
    if desk_of(ui.app).attack_view is not None:
        desk_of(ui.app).attack_view.dismiss(animation=False)
    assert ui.app.screens.current == "scoring"
    ctl.add_to_deck("Dragon's Eye")
    ui.frames(3)


def test_the_end_shows_the_winner_first_and_large(ui):
    play_to_the_end(ui)
    scoring = ui.app.screens.get_screen("scoring")
    view = ui.app.controller.view()
    winner = view.ranking[0]
    assert winner.player == "blue"
    assert scoring.winner_text == f"Blue wins — {winner.score}"
    # the words, and the total a figure beside them
    banner, total = scoring.ids.winner, scoring.ids.winner_score
    assert banner.text == "Blue wins —" and total.text == str(winner.score)
    assert banner.font_size >= 36 and total.font_size >= 44  # 26 and 31 px of ink
    top = banner.to_window(banner.x, banner.top)[1]
    texts = [w for w in scoring.walk() if getattr(w, "text", "") and shown(w)]
    assert all(w.to_window(w.x, w.top)[1] <= top + 1 for w in texts)  # the first thing
    # each player's total a figure on their button, the chosen player's breakdown
    totals = {b.text: b.children[0].text for b in scoring.ids.selector.children}
    assert totals == {"B · Blue": str(winner.score), "R · Red": "0", "G · Green": "0"}
    red = next(s for s in view.scores if s.player == "red")
    assert scoring.player == "red" and not red.qualifies  # the player being scored
    assert scoring.reason_text and scoring.parts == []  # why nothing counts
    assert problems(scoring) == []


def test_the_proof_qr_code_scans_full_screen(ui, tmp_path):
    play_to_the_end(ui)
    scoring = ui.app.screens.get_screen("scoring")
    ui.tap(scoring.ids.qr)
    proof = popup(ui, ProofView)
    ui.frames(3)
    assert proof.ids.qr.data == scoring.qr_data
    assert proof.ids.qr.module >= 3  # whole pixels per module, at least 2.5
    assert proof.ids.qr.width >= 400
    assert problems(proof) == []
    zbarimg = shutil.which("zbarimg")
    if zbarimg is None:
        pytest.skip("zbarimg is missing (Debian: apt-get install zbar-tools)")
    shot = ui.screenshot(tmp_path / "proof.png")
    decoded = subprocess.run(
        [zbarimg, "--raw", "-q", str(shot)], capture_output=True, text=True, timeout=60
    )
    assert decoded.returncode == 0, decoded.stderr
    assert decoded.stdout.rstrip("\n") == scoring.qr_data
    assert '"server_seed":"' + SEED in decoded.stdout
    ui.tap(proof.ids.qr)  # a tap closes it again
    assert proof.get_parent_window() is None


# ----------------------------------------------------- nothing on one tap
def test_close_game_asks_first_and_names_the_decks_not_scored(ui):
    play_to_the_end(ui)
    ui.tap("Close game")
    confirm = popup(ui, Confirm)
    assert confirm.note == "Not scored yet: the decks of Blue, Green."  # red has a card
    ui.tap("Cancel")
    assert ui.app.screens.current == "scoring" and ui.app.controller.table is not None
    ui.tap("Close game")
    ui.frames(2, seconds=INERT + 0.1)  # the question takes no tap in its first moment
    ui.tap("Yes, close the game")
    assert ui.app.screens.current == "newgame" and ui.app.controller.table is None


def test_abandon_asks_first(ui, tmp_path, monkeypatch):
    monkeypatch.setenv("CLANK_CONFIG", str(tmp_path / "config.toml"))
    ctl = ui.app.controller
    ctl.new_game({"edition": "clank", "players": ["red", "blue"]})
    ctl.begin()
    ui.frames(2)
    ui.app.ask_pin()
    ui.enter_pin("2468")
    ui.tap("Abandon this game")
    assert ctl.phase == "playing"
    ui.tap("Cancel")
    assert ctl.phase == "playing"
    ui.tap("Abandon this game")
    ui.frames(2, seconds=INERT + 0.1)  # the question takes no tap in its first moment
    ui.tap("Yes, abandon it")
    assert ctl.table is None and ui.store.game_row(1)["status"] == "abandoned"
