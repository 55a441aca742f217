"""Each game in pictures, every game at once, and the same charts as files.

Played as the table plays: a game to its end, the scoring screen's Charts, each chart in
turn, Past games, All games; in every language at 800x480 (the screenshots are taken
when CLANK_SCREENSHOTS names a folder, as ``./dev screenshots`` does). The charts' data is
checked against the game's own history; ``clank-companion report`` and ``results`` write
the same charts as PNG files and the results as CSV.
"""

from __future__ import annotations

import csv
import io
import os
import struct
from pathlib import Path

import pytest

os.environ.setdefault("KIVY_WINDOW", "sdl2")
from kivy.config import Config as KivyConfig  # noqa: E402

KivyConfig.set("graphics", "width", "800")
KivyConfig.set("graphics", "height", "480")

from kivy.uix.modalview import ModalView  # noqa: E402

from companion.cli import main  # noqa: E402
from companion.config import AppConfig, Config  # noqa: E402
from companion.i18n import _  # noqa: E402
from companion.ui.charts import TEXT  # noqa: E402
from companion.ui.harness import Harness  # noqa: E402
from tests.screen_metrics import problems  # noqa: E402

SHOTS = Path(os.environ["CLANK_SCREENSHOTS"]) if os.environ.get("CLANK_SCREENSHOTS") else None
SEED = "ab" * 32


def shot(ui: Harness, name: str) -> None:
    if SHOTS is not None:
        SHOTS.mkdir(parents=True, exist_ok=True)
        ui.screenshot(SHOTS / f"{name}.png")


def close_popups(ui: Harness) -> None:
    for w in list(ui.window.children):
        if isinstance(w, ModalView):
            w.dismiss(animation=False)
    ui.frames(2)


def play_to_the_end(ui: Harness, players: list[str], *, undo_one: bool = True) -> int:
    """A short game with attacks (one undone unless ``undo_one`` is False), an escape and
    knock-outs."""
    ctl = ui.app.controller
    ctl.new_game({"edition": "clank", "players": players, "server_seed": SEED,
                  "party": len(players) > 4})  # fmt: skip
    ctl.begin()
    for n in range(6):
        ctl.clank(2 + n % 3, players[n % len(players)])
        ctl.do({"do": "attack"})
        if n == 2 and undo_one:
            ctl.undo()
        close_popups(ui)
        ctl.end_turn()
        ctl.end_turn()
    ctl.do({"do": "artifact", "player": players[0], "value": 20})
    ctl.do({"do": "escape", "player": players[0]})
    for p in players[1:]:
        ctl.do({"do": "damage", "player": p, "n": 10})
    close_popups(ui)
    ctl.add_to_deck("Burgle", players[0])
    ui.frames(3)
    assert ctl.phase == "scoring"
    assert ctl.game_id is not None
    return ctl.game_id


def chart_texts_readable(screen) -> list[str]:
    """Every text a chart draws is at least TEXT px (20)."""
    from companion.ui.charts import Chart

    small = []
    for w in screen.walk():
        if isinstance(w, Chart) and w.opacity > 0:
            small += [f"{t!r} {size}px" for t, size in w.texts if size < TEXT]
            small += overlapping(w)
    return small


def overlapping(chart) -> list[str]:
    """Texts of a chart drawn over each other, or outside it."""
    found = []
    boxes = chart.boxes
    for i, (a, ax, ay, aw, ah) in enumerate(boxes):
        inside_x = chart.x - 1 <= ax and ax + aw <= chart.right + 1
        inside_y = chart.y - 1 <= ay and ay + ah <= chart.top + 1
        if not (inside_x and inside_y):
            found.append(f"{a!r} outside the chart")
        for b, bx, by, bw, bh in boxes[i + 1 :]:
            if ax < bx + bw - 1 and bx < ax + aw - 1 and ay < by + bh - 1 and by < ay + ah - 1:
                found.append(f"{a!r} over {b!r}")
    return found


SEATS = ["red", "yellow", "green", "blue", "purple", "orange"]


@pytest.mark.parametrize(("language", "count"), [("en", 3), ("ru", 6), ("uk", 4), ("es", 5)])
def test_a_game_and_every_game_told_in_charts(tmp_path, language, count):
    db = tmp_path / "games.db"
    ui = Harness(db, Config(app=AppConfig(database=str(db), language=language)))
    try:
        players = SEATS[:count]
        game = play_to_the_end(ui, players)
        history = ui.app.archive.history(game)
        ui.tap(_("Charts"))  # on the scoring screen
        report = ui.app.screens.get_screen("report")
        assert ui.app.screens.current == "report" and report.game is None
        for name, label in (("noise", _("Noise")), ("damage", _("Damage")),
                            ("rage", _("Rage")), ("scores", _("Scores"))):  # fmt: skip
            ui.tap(label)
            assert report.shown == name
            shot(ui, f"report-{language}-{name}")
            assert not problems(report), problems(report)
            assert not chart_texts_readable(report)
        # the charts say what the game's history says
        noise = report.charts["noise"]
        assert [s.values[-1] for s in noise.series] == [
            history.points[-1].tally("noise", p) for p in players
        ]
        drew = {pt.turn for pt in history.points if pt.marked}
        assert len(noise.marks) == len(drew) >= 5  # the undone attack is not there
        scores = report.charts["scores"]
        assert [b.total for b in scores.bars] == [str(s) for _p, s in history.ranking]
        ui.tap(_("Back"))
        assert ui.app.screens.current == "scoring"

        # Past games: the game opens in charts; its audit and back
        ui.app.show_screen("pastgames")
        ui.frames(2)
        past = ui.app.screens.get_screen("pastgames")
        ui.tap(next(iter(past.ids.games.children)))
        assert ui.app.screens.current == "report" and report.game == game
        ui.tap(_("Audit"))
        assert ui.app.screens.current == "audit"
        ui.app.screens.get_screen("audit").back()
        ui.frames(2)
        assert ui.app.screens.current == "report"
        ui.tap(_("Back"))
        assert ui.app.screens.current == "pastgames"
        shot(ui, f"past-games-{language}")

        # every game: the draws against a fair draw, the wins
        ui.tap(_("All games: fair draw, wins"))
        stats = ui.app.screens.get_screen("stats")
        assert ui.app.screens.current == "stats"
        f = ui.app.archive.fairness()
        assert f.draws == sum(1 for pt in history.points if pt.marked) >= 5
        assert f"{f.p_value:.3f}" in stats.fairness_text
        shot(ui, f"stats-{language}-fairness")
        assert not problems(stats) and not chart_texts_readable(stats)
        ui.tap(_("Wins"))
        shot(ui, f"stats-{language}-wins")
        assert not problems(stats) and not chart_texts_readable(stats)
        wins = stats.charts["wins"].bars
        won = [b.total.split(" · ")[0] for b in wins]
        assert sorted(won) == ["0/1"] * (count - 1) + ["1/1"]
        ui.tap(_("Seats"))  # each seat's record, a line each
        assert len(stats.seat_lines) == count
        assert all(ui.find(line) for line in stats.seat_lines)
        shot(ui, f"stats-{language}-seats")
        assert not problems(stats)
    finally:
        ui.close()


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def test_the_charts_as_files_and_the_results_as_csv(tmp_path, capsys):
    db = tmp_path / "games.db"
    ui = Harness(db)
    try:
        game = play_to_the_end(ui, ["blue", "red"])
    finally:
        ui.close()
    out = tmp_path / "charts"
    assert main(["report", "--db", str(db), "--game", str(game), "--all", "-o", str(out)]) == 0
    written = sorted(p.name for p in out.iterdir())
    assert written == sorted(
        [f"game-{game}-{k}.png" for k in ("noise", "damage", "rage", "scores")]
        + ["all-games-fairness.png", "all-games-wins.png"]
    )
    for name in written:
        assert png_size(out / name) == (800, 480)
    capsys.readouterr()
    assert main(["results", "--db", str(db), "--game", str(game)]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [r["player"] for r in rows] == ["blue", "red"]
    assert rows[0]["place"] == "1" and rows[0]["qualifies"] == "true"
    assert int(rows[0]["score"]) == sum(
        int(rows[0][k]) for k in ("artifacts", "gold", "tokens", "secrets", "prisoners", "cards")
    )
    # a game that does not exist, or is not over: one line, exit 2, nothing written
    assert main(["results", "--db", str(db), "--game", "99"]) == 2
    assert "no game 99" in capsys.readouterr().err
    assert main(["report", "--db", str(db), "--game", "99", "-o", str(tmp_path / "x")]) == 2
    assert not (tmp_path / "x").exists()


def test_the_audit_exports_the_log_and_a_finished_games_results(tmp_path, monkeypatch):
    from companion.ui.screens import audit as screens

    stick = tmp_path / "stick"
    monkeypatch.setattr(screens, "export_folder", lambda: stick)
    ui = Harness(tmp_path / "games.db")
    try:
        game = play_to_the_end(ui, ["green", "blue"])
        ui.app.open_audit(game)
        ui.frames(2)
        ui.tap("Export (USB stick or file)")
        audit = ui.app.screens.get_screen("audit")
        log = stick / f"clank-game-{game}.jsonl"
        results = stick / f"clank-game-{game}-results.csv"
        assert log.exists() and results.exists(), audit.result
        assert results.name in audit.result
        rows = list(csv.DictReader(results.open(encoding="utf-8")))
        assert [r["player"] for r in rows] == ["green", "blue"]
    finally:
        ui.close()
