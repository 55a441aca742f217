"""Backups of the game database: consistent while a game is written, key included,
a few generations kept, and a clear word when there is nothing to back up."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import pytest

from companion.audit.check import verify_store
from companion.cli import main
from companion.session import Session
from companion.store import GameStore, StoreError
from companion.store.backup import backup
from companion.store.tags import TagRegistry, resolve

NEW = {
    "edition": "clank",
    "players": ["red", "blue"],
    "server_seed": "42" * 32,
    "client_seed": "table",
}
T0 = time.mktime((2025, 3, 14, 20, 0, 0, 0, 0, -1))  # an evening's game, local time


def play_round(table) -> None:
    table.apply({"do": "clank", "player": "red", "n": 1})
    table.apply({"do": "attack"})
    table.apply({"do": "end_turn", "revealed": []})


def quiet_round(table) -> None:
    """A turn that can be played for ever: no attack, so nobody is knocked out."""
    table.apply({"do": "clank", "player": "blue", "n": 1})
    table.apply({"do": "clank", "player": "blue", "n": -1})
    table.apply({"do": "end_turn", "revealed": []})


@pytest.fixture
def played(tmp_path) -> Path:
    """A database with a game in progress and an enrolled tag, closed."""
    path = tmp_path / "live" / "games.db"
    with GameStore(path) as store:
        table = Session(store).start(NEW)
        table.apply({"do": "row", "cards": ["Ladder", "Tattle"]})
        for _ in range(3):
            play_round(table)
        TagRegistry(store.db).bind("04A224B2C35E80", resolve("card", "clank", "kobold"))
    return path


def integrity(path: Path) -> str:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return conn.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        conn.close()


def test_a_backup_is_a_whole_database_with_its_key(played, tmp_path):
    folder = tmp_path / "backups"
    made = backup(played, folder, now=T0)
    assert made == folder / "games-20250314-200000.db"
    assert integrity(made) == "ok"
    key = made.with_name(made.name + ".key")
    assert key.read_bytes() == played.with_name("games.db.key").read_bytes()
    assert key.stat().st_mode & 0o777 == 0o600
    assert not list(folder.glob("*.partial"))
    # the copy resumes the same game (the key unseals its seed), verifies, keeps the tags
    with GameStore(played) as original:
        want = Session(original).resume(1).snapshot()
    with GameStore(made) as copy:
        assert Session(copy).resume(1).snapshot() == want
        assert [c.ok for c in verify_store(copy)] == [True]
        assert str(TagRegistry(copy.db).lookup("04A224B2C35E80")) == "card Kobold (clank)"


def test_only_the_newest_generations_are_kept_each_with_its_key(played, tmp_path):
    folder = tmp_path / "backups"
    stranger = folder / "notes.txt"
    folder.mkdir()
    stranger.write_text("not a backup")
    made = [backup(played, folder, keep=3, now=T0 + 3600 * i) for i in range(6)]
    kept = sorted(folder.glob("games-*.db"))
    assert kept == made[-3:]
    assert sorted(folder.glob("games-*.db.key")) == [m.with_name(m.name + ".key") for m in kept]
    assert stranger.read_text() == "not a backup"
    backup(played, folder, keep=1, now=T0 + 3600 * 10)
    assert [p.name for p in folder.glob("games-*.db")] == ["games-20250315-060000.db"]
    with pytest.raises(StoreError, match="keep at least one"):
        backup(played, folder, keep=0)


def test_a_backup_taken_while_a_game_is_written_is_consistent(played, tmp_path):
    """The app's connection commits actions in a loop; every copy taken meanwhile is a
    whole database whose log chain verifies: no half-written action, no torn page."""
    stop = threading.Event()
    written = [0]
    errors: list[BaseException] = []

    def writer() -> None:
        try:
            with GameStore(played) as store:
                table = Session(store).resume(1)
                while not stop.is_set():
                    quiet_round(table)
                    written[0] += 3
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    thread = threading.Thread(target=writer)
    thread.start()
    copies = []
    try:
        deadline = time.monotonic() + 30
        while written[0] < 30 and thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert written[0] >= 30, errors
        for i in range(8):
            copies.append(backup(played, tmp_path / "backups", keep=20, now=T0 + i))
            time.sleep(0.02)
    finally:
        stop.set()
        thread.join(timeout=30)
    assert not errors, errors
    actions = []
    for copy in copies:
        assert integrity(copy) == "ok", copy
        with GameStore(copy) as store:
            (check,) = verify_store(store)
            assert check.ok, check.message
            rows = store.db.execute("SELECT count(*) FROM log WHERE kind = 'action'")
            actions.append(rows.fetchone()[0])
    # the copies were really taken during play: each later one holds more of the game
    assert actions == sorted(actions) and actions[0] < actions[-1]


def test_a_missing_database_is_a_clear_error_and_writes_nothing(tmp_path, capsys):
    missing = tmp_path / "nowhere" / "games.db"
    folder = tmp_path / "backups"
    with pytest.raises(StoreError, match=f"no game database at {missing}"):
        backup(missing, folder)
    assert not folder.exists()
    assert main(["backup", "--db", str(missing), "--to", str(folder)]) == 2
    assert f"no game database at {missing}" in capsys.readouterr().err


def test_a_copy_cut_short_never_looks_like_a_backup(played, tmp_path, monkeypatch):
    folder = tmp_path / "backups"
    good = backup(played, folder, keep=2, now=T0)

    real_connect = sqlite3.connect

    class CutShort:
        """The database being copied, failing after the first page (card full, power cut)."""

        def __init__(self, conn: sqlite3.Connection) -> None:
            self.conn = conn

        def backup(self, target: sqlite3.Connection) -> None:
            def fail(status: int, remaining: int, total: int) -> None:
                raise sqlite3.OperationalError("disk I/O error")

            self.conn.backup(target, pages=1, progress=fail)

        def __getattr__(self, name: str):
            return getattr(self.conn, name)

    def connect(*args, **kwargs):
        conn = real_connect(*args, **kwargs)
        return CutShort(conn) if kwargs.get("uri") else conn  # the source opens read-only

    monkeypatch.setattr(sqlite3, "connect", connect)
    with pytest.raises(StoreError, match="disk I/O error.*the earlier copies are kept"):
        backup(played, folder, keep=1, now=T0 + 60)
    monkeypatch.undo()
    assert not list(folder.glob("*.partial"))  # the part that was written is gone ...
    assert sorted(folder.glob("games-*.db")) == [good]  # ... and none was rotated away
    assert sorted(folder.glob("games-*.key")) == [good.with_name(good.name + ".key")]
    assert integrity(good) == "ok"


def test_leftovers_of_a_copy_killed_midway_are_cleaned_up(played, tmp_path):
    """Killed after the key was copied and while the database was: the next backup
    removes the orphan key and the partial database."""
    folder = tmp_path / "backups"
    folder.mkdir()
    (folder / "games-20250101-000000.db.key").write_text("00" * 32 + "\n")
    (folder / "games-20250101-000000.db.partial").write_bytes(b"SQLite format 3\0half")
    (folder / "games-20250101-000001.db.key.partial").write_text("0")
    made = backup(played, folder, now=T0)
    assert sorted(p.name for p in folder.iterdir()) == [made.name, made.name + ".key"]


def test_the_key_is_copied_before_the_database(played, tmp_path, monkeypatch):
    """A backup killed between the two copies must never leave a database without its key
    (a running game could not be resumed from it)."""
    order: list[str] = []
    real_replace = Path.replace

    def replace(self, target):
        order.append(Path(target).suffix)
        return real_replace(self, target)

    monkeypatch.setattr(Path, "replace", replace)
    backup(played, tmp_path / "backups", now=T0)
    assert order == [".key", ".db"]


def test_backup_refuses_what_is_no_companion_database(tmp_path, capsys):
    folder = tmp_path / "backups"
    text = tmp_path / "notes.db"
    text.write_text("shopping list")
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE x (y)").connection.close()
    no_log = tmp_path / "nolog.db"
    with GameStore(no_log):
        pass
    conn = sqlite3.connect(no_log)
    conn.execute("DROP VIEW draws")
    conn.execute("DROP VIEW actions")
    conn.execute("DROP TABLE log")
    conn.close()
    for path in (text, other, no_log, tmp_path):
        assert main(["backup", "--db", str(path), "--to", str(folder)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "Traceback" not in err, err
    assert not folder.exists()


def test_backup_to_a_file_is_refused(played, tmp_path, capsys):
    target = tmp_path / "a-file"
    target.write_text("keep me")
    assert main(["backup", "--db", str(played), "--to", str(target)]) == 2
    assert "is a file: give --to a folder" in capsys.readouterr().err
    assert target.read_text() == "keep me"


def test_a_database_without_a_key_is_backed_up_alone(played, tmp_path):
    played.with_name("games.db.key").unlink()
    made = backup(played, tmp_path / "backups", now=T0)
    assert integrity(made) == "ok"
    assert not made.with_name(made.name + ".key").exists()


def test_the_backup_command(played, tmp_path, capsys):
    folder = tmp_path / "backups"
    assert main(["backup", "--db", str(played), "--to", str(folder), "--keep", "2"]) == 0
    (made,) = folder.glob("games-*.db")
    assert capsys.readouterr().out.strip() == f"backed up {played} to {made}"
    assert integrity(made) == "ok"
    assert made.with_name(made.name + ".key").exists()


@pytest.mark.parametrize("name", ["50%41.db", "x#y.db", "q?mode=rwc.db"])
def test_names_with_uri_letters_back_up_that_very_database(played, tmp_path, name):
    odd = tmp_path / name
    odd.write_bytes(played.read_bytes())
    odd.with_name(odd.name + ".key").write_bytes(played.with_name("games.db.key").read_bytes())
    decoy = tmp_path / "50A.db"  # what "50%41" means in a URI
    with GameStore(decoy) as other:
        Session(other).start(NEW)
        Session(other).start(NEW)
    made = backup(odd, tmp_path / "out", now=T0)
    with GameStore(made) as copy:
        assert [g["id"] for g in copy.games()] == [1]


def test_the_live_database_is_never_pruned_as_an_old_copy(played, tmp_path):
    live = tmp_path / "live" / "games-20200101-000000.db"
    played.rename(live)
    played.with_name("games.db.key").rename(live.with_name(live.name + ".key"))
    made = backup(live, live.parent, keep=1, now=T0)
    assert live.exists() and live.with_name(live.name + ".key").exists()
    assert made.exists()
