"""The kiosk never goes black: a game database or a settings file that cannot be used
brings up the trouble screen (not an exit), which says what is wrong and offers what
can be done with no keyboard, two taps each; the unusable file is always kept.

With CLANK_SCREENSHOTS=<folder> the trouble screen's steps are saved there as PNG.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

os.environ.setdefault("KIVY_WINDOW", "sdl2")
from kivy.config import Config as KivyConfig  # noqa: E402

KivyConfig.set("graphics", "width", "800")
KivyConfig.set("graphics", "height", "480")

from kivy.base import EventLoop  # noqa: E402

from companion import i18n  # noqa: E402
from companion.config import AppConfig, Config, ConfigError, load_config  # noqa: E402
from companion.kinds.clank.controller import Controller  # noqa: E402
from companion.store import GameStore, StoreError  # noqa: E402
from companion.store.backup import backup  # noqa: E402
from companion.store.db import APPLICATION_ID  # noqa: E402
from companion.store.seal import key_path  # noqa: E402
from companion.ui import trouble  # noqa: E402
from companion.ui.app import EXIT_UNASKED, start_app  # noqa: E402
from companion.ui.harness import Harness  # noqa: E402
from tests.screen_metrics import problems  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SHOTS = Path(os.environ["CLANK_SCREENSHOTS"]) if os.environ.get("CLANK_SCREENSHOTS") else None


class StartedHarness(Harness):
    """The test harness over the app as ``clank-companion app`` makes it (start_app),
    trouble screen and all, rather than over a database opened by the test."""

    def __init__(self, config: Config, problem: ConfigError | None = None) -> None:
        EventLoop.ensure_window()
        self.window = EventLoop.window
        self.window.size = (800, 480)
        self.mount(start_app(config, config_problem=problem))

    def close(self) -> None:
        self.unmount()
        self.app.close_store()

    def confirm(self, yes: str) -> None:
        """The second tap, once the confirmation takes taps."""
        self.frames(2, seconds=trouble.INERT + 0.1)
        self.tap(yes)


@pytest.fixture
def started():
    made: list[StartedHarness] = []

    def start(db: Path, problem: ConfigError | None = None, language: str = "en") -> StartedHarness:
        ui = StartedHarness(Config(app=AppConfig(database=str(db), language=language)), problem)
        made.append(ui)
        return ui

    yield start
    for ui in made:
        ui.close()


def shot(ui: Harness, name: str) -> None:
    """The screen as a player meets it (TABLE_SCREEN.md's numbers), saved if asked."""
    assert problems(ui.app.screens.current_screen) == []
    if SHOTS is not None:
        SHOTS.mkdir(parents=True, exist_ok=True)
        ui.screenshot(SHOTS / f"trouble-{name}.png")


# ------------------------------------------------------------------ unusable files
def foreign(path: Path) -> Path:
    """A SQLite database of another program."""
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE recipes (name TEXT, minutes INTEGER)")
    conn.execute("INSERT INTO recipes VALUES ('soup', 40)")
    conn.commit()
    conn.close()
    return path


def not_sqlite(path: Path) -> Path:
    path.write_bytes(b"these are the minutes of the last club meeting\n" * 40)
    return path


def played(path: Path) -> Path:
    """A companion database with a game on the table (and its seal key beside it)."""
    with GameStore(path) as store:
        Controller(store).new_game({"edition": "clank", "players": ["red", "blue"]})
    return path


def without_log(path: Path) -> Path:
    """A companion database whose game log was dropped by hand."""
    played(path)
    conn = sqlite3.connect(path)
    conn.execute("DROP VIEW draws")
    conn.execute("DROP VIEW actions")
    conn.execute("DROP TABLE log")
    conn.commit()
    conn.close()
    return path


def version_set_back(path: Path) -> Path:
    """A companion database whose schema version was set back to 0 by hand: read as it
    says, every game would hide behind empty stand-ins of its tables."""
    played(path)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version = 0")
    conn.commit()
    conn.close()
    return path


def kept_files(db: Path) -> list[Path]:
    return sorted(db.parent.glob(db.name + ".unusable-*"))


# ------------------------------------------------------------------ reproducers
@pytest.mark.parametrize(
    ("make", "words"),
    [
        (foreign, ("another program",)),
        (not_sqlite, ("not a companion database",)),
        (without_log, ("damaged", "log", "missing")),
        (version_set_back, ("damaged", "schema version is 0", "games table")),
    ],
)
def test_a_database_that_cannot_be_used_brings_up_the_trouble_screen(
    tmp_path, started, make, words
):
    db = make(tmp_path / "games.db")
    before = db.read_bytes()
    ui = started(db)
    assert ui.app.screens.current == "trouble"
    assert ui.find("The game database cannot be used")
    screen = ui.app.screens.current_screen
    assert all(w in screen.message for w in words) and str(db) in screen.message
    for button in ("Start with a fresh database", "Restore a backup"):
        target = ui.find(button)
        assert target.width >= 48 and target.height >= 48
    assert db.read_bytes() == before  # nothing is touched before the table chooses
    shot(ui, f"database-{make.__name__}")


def test_a_database_damaged_as_the_game_resumes_is_said_too(tmp_path, started, monkeypatch):
    """A problem only resuming finds (past start_app's checks): the same screen."""
    db = played(tmp_path / "games.db")

    def broken(self):
        raise sqlite3.DatabaseError("database disk image is malformed")

    monkeypatch.setattr(Controller, "resume_last", broken)
    ui = started(db)
    assert ui.app.screens.current == "trouble"
    assert "is damaged (database disk image is malformed)" in ui.app.screens.current_screen.message
    assert not hasattr(ui.app, "store")  # closed: it can be moved aside


def test_a_broken_settings_file_brings_up_the_trouble_screen(tmp_path, started, monkeypatch):
    settings = tmp_path / "config.toml"
    settings.write_text('[app]\nlanguage = "en"\nfullscreen = maybe\n')
    monkeypatch.setenv("CLANK_CONFIG", str(settings))
    with pytest.raises(ConfigError) as problem:
        load_config()
    ui = started(tmp_path / "games.db", problem.value)
    assert ui.app.screens.current == "trouble"
    assert ui.find("The settings file cannot be read")
    assert str(settings) in ui.app.screens.current_screen.message
    assert ui.find("Start with the default settings")
    shot(ui, "settings")


def test_the_app_command_runs_the_touchscreen_with_a_broken_settings_file(tmp_path, monkeypatch):
    """No exit with status 2 and a line in the journal: the touchscreen starts."""
    import companion.ui.app
    from companion.cli import main

    settings = tmp_path / "config.toml"
    settings.write_text("[app\n")
    monkeypatch.setenv("CLANK_CONFIG", str(settings))
    seen = {}

    def run_app(config, *, fullscreen=False, config_problem=None):
        seen.update(config=config, fullscreen=fullscreen, problem=config_problem)
        return 0

    monkeypatch.setattr(companion.ui.app, "run_app", run_app)
    assert main(["app", "--fullscreen", "--db", str(tmp_path / "games.db")]) == 0
    assert isinstance(seen["problem"], ConfigError) and seen["fullscreen"] is True
    assert seen["config"].app.database == str(tmp_path / "games.db")  # --db still counts


def test_the_trouble_screen_speaks_the_tables_language(tmp_path, started):
    db = foreign(tmp_path / "games.db")
    ui = started(db, language="es")
    assert i18n.current_language() == "es"
    with pytest.raises(StoreError) as problem:
        GameStore(db)
    assert ui.app.screens.current_screen.message == problem.value.localized()
    shot(ui, "database-es")


@pytest.mark.parametrize("language", ["en", "es", "ru", "uk"])
def test_every_step_of_the_trouble_screen_reads_from_across_the_table(tmp_path, started, language):
    """The problem, the question, what was done: every text 18 px of ink at least (as
    measured from the window's pixels), nothing shortened, no word broken, in every
    language."""
    from companion.ui.ink import screen_metrics

    db = foreign(tmp_path / "games.db")
    ui = started(db, language=language)
    screen = ui.app.screens.current_screen
    steps = [("problem", lambda: None), ("confirm", screen.ask_fresh), ("done", screen.fresh)]
    for step, move in steps:
        move()
        ui.frames(3)
        assert problems(screen) == [], (language, step)
        measured = screen_metrics(ui.window)
        assert measured["smallest_text_ink"] >= 18, (language, step, measured["texts"])
        assert not measured["cut"], (language, step, measured["cut"])


# ------------------------------------------------------------------ the ways out
def test_a_fresh_database_keeps_the_unusable_one_and_reaches_the_home_screen(tmp_path, started):
    import companion.ui.trouble

    db = foreign(tmp_path / "games.db")
    before = db.read_bytes()
    ui = started(db)
    # the question's first moment held (however slow the machine, the tap lands in it)
    inert, companion.ui.trouble.INERT = companion.ui.trouble.INERT, 3600.0
    ui.tap("Start with a fresh database")
    assert ui.find("Start with a fresh database?")
    shot(ui, "confirm")
    try:
        ui.tap("Yes, start fresh", hasty=True)  # a double tap: the question takes no tap yet
    finally:
        companion.ui.trouble.INERT = inert
    assert db.read_bytes() == before and kept_files(db) == []
    ui.tap("Cancel")
    assert ui.find("The game database cannot be used")
    ui.tap("Start with a fresh database")
    ui.confirm("Yes, start fresh")
    [kept] = kept_files(db)
    assert kept.read_bytes() == before  # kept, byte for byte
    assert kept.name.startswith("games.db.unusable-20") and not db.exists()
    assert ui.find("Done")
    assert str(kept) in ui.app.screens.current_screen.message  # where it is, on the screen
    shot(ui, "done")
    ui.tap("Continue")
    assert ui.app.screens.current == "newgame" and ui.app.trouble is None
    ui.tap("Red")
    ui.tap("Blue")
    ui.tap("Start game")
    assert ui.app.screens.current == "opening"
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    assert conn.execute("SELECT count(*) FROM games").fetchone()[0] == 1
    conn.close()
    assert kept.read_bytes() == before


def test_a_database_without_its_log_is_kept_with_its_seal_key(tmp_path, started):
    db = without_log(tmp_path / "games.db")
    key = key_path(db).read_bytes()
    ui = started(db)
    ui.tap("Start with a fresh database")
    ui.confirm("Yes, start fresh")
    [kept] = [p for p in kept_files(db) if p.suffix != ".key"]
    assert key_path(kept).read_bytes() == key  # the seal key goes with its database
    assert not key_path(db).exists()
    ui.tap("Continue")
    assert ui.app.screens.current == "newgame"


def test_restoring_a_backup_brings_the_game_back(tmp_path, started):
    db = played(tmp_path / "games.db")
    older = backup(db, tmp_path / "backups", now=1_700_000_000)
    newer = backup(db, tmp_path / "backups", now=1_700_003_600)
    (tmp_path / "backups" / "games-20000101-000000.db").write_bytes(b"not a copy at all" * 9)
    key = key_path(db).read_bytes()
    damaged = db.read_bytes()[:4096] + b"\0" * 4096  # the log's pages gone
    db.write_bytes(damaged)
    ui = started(db)
    assert ui.app.screens.current == "trouble"
    ui.tap("Restore a backup")
    dates = [trouble.backup_date(newer), trouble.backup_date(older)]
    labels = [w.text for w in ui.app.screens.current_screen.ids.backups.children[::-1]]
    assert labels == [f"Copy of {d}" for d in dates]  # newest first; the bad one left out
    shot(ui, "backups")
    ui.tap(f"Copy of {dates[0]}")
    assert ui.find(f"Restore the copy of {dates[0]}?")
    ui.confirm("Yes, restore it")
    [kept, kept_key] = kept_files(db)
    assert kept.read_bytes() == damaged and kept_key == key_path(kept)
    assert kept_key.read_bytes() == key
    assert db.read_bytes() == newer.read_bytes()
    assert key_path(db).read_bytes() == key_path(newer).read_bytes()
    assert ui.find("Done")
    ui.tap("Continue")
    assert ui.app.screens.current == "opening"  # the game, where the copy had it
    assert ui.app.controller.unresumable is None and ui.app.controller.game_id == 1


def test_with_no_backup_the_screen_says_so_and_goes_back(tmp_path, started):
    db = not_sqlite(tmp_path / "games.db")
    ui = started(db)
    ui.tap("Restore a backup")
    assert "No usable copy was found in" in ui.app.screens.current_screen.message
    shot(ui, "no-backup")
    ui.tap("Back")
    assert ui.find("Start with a fresh database")


def test_the_default_settings_keep_the_broken_file(tmp_path, started, monkeypatch):
    settings = tmp_path / "config.toml"
    settings.write_text("[reader]\nspec = 'mfrc522:0.0'\n[app\n")
    before = settings.read_bytes()
    monkeypatch.setenv("CLANK_CONFIG", str(settings))
    with pytest.raises(ConfigError) as problem:
        load_config()
    ui = started(tmp_path / "games.db", problem.value)
    ui.tap("Start with the default settings")
    shot(ui, "settings-confirm")
    ui.confirm("Yes, use the defaults")
    [kept] = sorted(tmp_path.glob("config.toml.unusable-*"))
    assert kept.read_bytes() == before
    assert str(kept) in ui.app.screens.current_screen.message
    shot(ui, "settings-done")
    assert load_config().reader == Config().reader  # the next start reads the defaults
    ui.tap("Continue")
    assert ui.app.screens.current == "newgame"


def test_the_settings_and_then_the_database(tmp_path, started, monkeypatch):
    """Both unusable: the settings first, then the database, then the home screen."""
    settings = tmp_path / "config.toml"
    settings.write_text("[app\n")
    monkeypatch.setenv("CLANK_CONFIG", str(settings))
    db = foreign(tmp_path / "games.db")
    with pytest.raises(ConfigError) as problem:
        load_config()
    ui = started(db, problem.value)
    ui.tap("Start with the default settings")
    ui.confirm("Yes, use the defaults")
    ui.tap("Continue")
    assert ui.find("The game database cannot be used")
    assert "config.toml.unusable-" in ui.app.screens.current_screen.message  # still said
    ui.tap("Start with a fresh database")
    ui.confirm("Yes, start fresh")
    ui.tap("Continue")
    assert ui.app.screens.current == "newgame"


def test_a_table_dropped_while_the_store_is_open_is_found(tmp_path):
    """The touchscreen's own check, whether or not the store refused it on opening."""
    with GameStore(played(tmp_path / "games.db")) as store:
        trouble.check_schema(store)
        for statement in ("DROP VIEW draws", "DROP VIEW actions", "DROP TABLE log"):
            store.db.conn.execute(statement)
        with pytest.raises(StoreError, match="its log table is missing"):
            trouble.check_schema(store)


def test_a_move_that_fails_halfway_is_taken_back(tmp_path, monkeypatch):
    db = played(tmp_path / "games.db")
    Path(f"{db}-wal").write_bytes(b"wal")
    files = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    real = os.rename
    calls = []

    def rename(old, new):
        calls.append(old)
        if len(calls) == 2:
            raise OSError(13, "Permission denied")
        real(old, new)

    monkeypatch.setattr(os, "rename", rename)
    with pytest.raises(StoreError, match="could not be moved aside"):
        trouble.set_aside(db)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == files


def test_a_second_move_in_the_same_second_takes_another_name(tmp_path):
    first = trouble.set_aside(not_sqlite(tmp_path / "games.db"), now=1_700_000_000)
    second = trouble.set_aside(not_sqlite(tmp_path / "games.db"), now=1_700_000_000)
    assert first is not None and second is not None
    assert first != second and first.exists() and second.exists()


# ------------------------------------------------------------------ the kiosk's exits
KIOSK = textwrap.dedent(
    """
    import sys
    from kivy.clock import Clock
    import companion.ui.app as ui_app

    configure = ui_app.configure_window

    def configure_window(fullscreen):
        configure(fullscreen)
        from kivy.config import Config
        print("escape", Config.get("kivy", "exit_on_escape"))
        Config.set("graphics", "fullscreen", "0")  # no display to fill here

    ui_app.configure_window = configure_window
    start = ui_app.CompanionApp.on_start

    def on_start(self):
        start(self)
        from kivy.base import EventLoop, stopTouchApp
        def escape(dt):
            for event in ("on_key_down", "on_keyboard"):
                EventLoop.window.dispatch(event, 27, 41, None, [])
        def end(dt):
            print("screen", self.screens.current, EventLoop.status)
            if sys.argv[2] == "quit":
                self.stop()  # Quit on the Settings screen
            else:
                stopTouchApp()  # the loop ends without the table asking
        Clock.schedule_once(escape, 0.3)
        Clock.schedule_once(end, 0.8)

    ui_app.CompanionApp.on_start = on_start
    from companion.cli import main
    sys.exit(main(["app", "--fullscreen", "--db", sys.argv[1]]))
    """
)


def run_kiosk(tmp_path: Path, db: Path, end: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, KIVY_HOME=str(tmp_path / "kivy"), KIVY_NO_ARGS="1")
    env.update(CLANK_CONFIG="", XDG_CONFIG_HOME=str(tmp_path / "settings"))  # the defaults
    return subprocess.run(
        [sys.executable, "-c", KIOSK, str(db), end],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=300,
    )


def test_the_kiosk_ignores_escape_and_only_quit_ends_it_cleanly(tmp_path):
    db = foreign(tmp_path / "games.db")
    quit_ = run_kiosk(tmp_path, db, "quit")
    assert quit_.returncode == 0, quit_.stderr[-2000:]
    # Kivy's exit_on_escape is off, whatever Kivy's settings file says: Escape left the
    # trouble screen up, and the loop was still running when it was told to end
    assert quit_.stdout.split("\n")[:2] == ["escape 0", "screen trouble started"]
    unasked = run_kiosk(tmp_path, tmp_path / "fresh.db", "unasked")
    assert unasked.stdout.split("\n")[:2] == ["escape 0", "screen newgame started"]
    assert unasked.returncode == EXIT_UNASKED != 0, unasked.stderr[-2000:]  # restarted
    assert db.exists() and db.read_bytes()[:15] == b"SQLite format 3"
