"""A new box, end to end: the tests' own pebbles, a package under ``companion/kinds/``
(mounted: its folder on the package's path and its one line in ``KINDS``, nothing else
changed), played through the real app under Kivy at 800x480. Its toggle is on the new-game
screen (from the registry), its screen shows, Draw plays it to its end and Close game
closes it; then its log passes both verifiers, the phones' API shows it in the page's
kind-neutral layout, and the table script replays its sample game.

With CLANK_SCREENSHOTS=<folder> its screen is saved there as PNG."""

from __future__ import annotations

import io
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("KIVY_WINDOW", "sdl2")
from kivy.config import Config as KivyConfig  # noqa: E402

KivyConfig.set("graphics", "width", "800")
KivyConfig.set("graphics", "height", "480")

from companion.audit.check import export_game, verify_store  # noqa: E402
from companion.kinds import editions, kind_of  # noqa: E402
from companion.script import numbered, replay  # noqa: E402
from companion.store import GameStore  # noqa: E402
from companion.ui.harness import Harness  # noqa: E402
from companion.verify_log import EXIT_OK, check_records, read_export, verdict  # noqa: E402
from tests.helpers import companion_draws_seed  # noqa: E402
from tests.kinds import mount, unmount  # noqa: E402
from tests.test_web_support import run_app  # noqa: E402

SEED = "4" * 64  # red and blue: over at the fifth draw (a fresh seed may run long)
SCREEN = "pebbles_table"


@pytest.fixture
def ui(tmp_path: Path) -> Iterator[Harness]:
    mount()
    harness = Harness(tmp_path / "games.db")
    try:
        yield harness
    finally:
        harness.close()
        unmount()


def shot(ui: Harness, tmp_path: Path, name: str) -> Path:
    folder = Path(os.environ.get("CLANK_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return ui.screenshot(folder / f"{name}.png")


def texts(ui: Harness) -> list[str]:
    return [t for w in ui.widgets() if isinstance(t := getattr(w, "text", None), str) and t]


def test_a_new_box_is_played_from_the_new_game_screen_to_the_verifiers_and_the_phones(
    ui: Harness, tmp_path: Path
) -> None:
    assert "pebbles" in editions()
    assert ui.app.screens.current == "newgame"
    ui.tap("Pebbles")  # its toggle, from the registry
    assert ui.app.screens.get_screen("newgame").edition == "pebbles"
    ui.tap("Red")
    ui.tap("Blue")
    with companion_draws_seed(SEED):
        ui.tap("Start game")
    assert ui.app.screens.current == SCREEN
    assert {"Red", "Blue", "0", "Red's turn", "Draw", "Undo"} <= set(texts(ui))
    screen = ui.app.screens.get_screen(SCREEN)

    control: Any = ui.app.control("pebbles")
    draws = 0
    while control.phase == "playing":
        ui.tap("Draw")
        draws += 1
        assert draws <= 5, "the seed's game did not end at its fifth draw"
        if draws == 2:
            assert screen.last_text  # what just happened, in one line
            shot(ui, tmp_path, "pebbles-1-playing")
    points = control.table.snapshot()["players"]
    assert points == {"red": {"points": 2}, "blue": {"points": 0}}
    shown = set(texts(ui))
    assert {"2", "0", "Winner: Red", "Close game"} <= shown and "Draw" not in shown
    shot(ui, tmp_path, "pebbles-2-over")
    game = control.game_id
    assert game is not None

    ui.tap("Close game")  # cannot be taken back: a question first
    ui.armed()
    ui.tap("Yes, close the game")
    ui.until(lambda: ui.app.screens.current == "newgame")
    db = Path(ui.store.path)
    with GameStore(db, create=False) as store:
        row = store.game_row(game)
        assert row["edition"] == "pebbles" and row["status"] == "over" and row["closed"]

    # both verifiers: the store's audit, and the standalone one over its export
    with GameStore(db, create=False) as store:
        (check,) = verify_store(store, game)
        assert check.ok and check.status == EXIT_OK and check.final, str(check.message)
        out = io.StringIO()
        export_game(store, game, out)
    header, records = read_export(out.getvalue().splitlines())
    summary = check_records(header, records)
    assert verdict(summary) == EXIT_OK and summary["draws_checked"] == draws
    assert summary["revealed"] and not summary["seed_given"]

    # the phones: its state and its lines
    async def state(client: Any, token: str) -> tuple[int, Any]:
        answer = await client.get("/api/state", params={"t": token, "game": str(game)})
        return answer.status, await answer.json()

    status, body = run_app(db, state)
    assert status == 200, body
    assert body["state"]["players"] == points and body["state"]["server_seed"] == SEED
    view = body["view"]
    assert view["title"] == "Pebbles" and view["layout"] == "lines"
    assert view["lines"] == ["Red: 2 points", "Blue: 0 points"]
    assert view["winners"] == ["red"] and view["ranking"][0]["label"] == "Red"

    # its sample script, through the table script
    kind = kind_of("pebbles")
    result = replay(iter(numbered(kind.sample_script("pebbles"))))
    assert result.errors == [] and result.table is not None and kind.is_over(result.table)
