"""What a hostile tester leaves beside the game database, or puts in its place: a seal key
that is a pipe, a device or readable by others; a database missing a table, another
program's database, a damaged one; a table script whose "new" is no object. Each is
refused with one line (exit 2), at once, and nothing is written."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import logging
import multiprocessing
import os
import shutil
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from companion.cli import main
from companion.kinds.clank.controller import Controller
from companion.session import Session
from companion.store import GameStore, StoreError
from companion.store.db import SCHEMA_VERSION
from companion.store.seal import SealError, key_path, read_key

ROOT = Path(__file__).resolve().parent.parent
SEED = "3c" * 32
NEW = {"new": {"edition": "clank", "players": ["red", "blue"], "server_seed": SEED}}
CLANK = {"do": "clank", "player": "red", "n": 1}
TSCHAK = ROOT / "examples" / "tschak-3-players.jsonl"


def write(path: Path, *lines: object) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def cli(*args: str | Path, timeout: float = 60) -> tuple[int, str, str]:
    """The real command in a process of its own (a hang is a failure, not a stuck test)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LANG": "C.UTF-8"}
    env.pop("CLANK_DB", None)
    done = subprocess.run(
        [sys.executable, "-m", "companion.cli", *map(str, args)],
        capture_output=True,
        env=env,
        cwd=ROOT,
        timeout=timeout,
        check=False,
    )
    return done.returncode, done.stdout.decode(), done.stderr.decode()


def one_line(code: int, err: str) -> str:
    assert code == 2, (code, err)
    assert "Traceback" not in err, err
    assert err.endswith("\n") and err.count("\n") == 1, err
    return err


def running(tmp_path: Path) -> Path:
    """A database with one running game (a few actions) and its seal key."""
    db = tmp_path / "games.db"
    new = {"new": {"edition": "clank", "players": ["red", "blue"]}}  # a seed of its own
    script = write(tmp_path / "game.jsonl", new, CLANK)
    assert main(["replay", str(script), "--db", str(db)]) == 0
    return db


def files_of(folder: Path) -> dict[str, str]:
    """Every file of a folder with the hash of its bytes."""
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "not a file"
        for p in sorted(folder.iterdir())
    }


# ------------------------------------------------------------------ 8a: the key's file
def test_a_pipe_as_the_seal_key_is_refused_at_once(tmp_path, capsys):
    db = running(tmp_path)
    key = key_path(db)
    key.unlink()
    os.mkfifo(key)
    code, _out, err = cli("resume", "--db", db, timeout=30)
    assert "not a regular file" in one_line(code, err)
    code, _out, err = cli("backup", "--db", db, "--to", tmp_path / "copies", timeout=30)
    assert "not a regular file" in one_line(code, err)
    with pytest.raises(SealError, match="not a regular file"):
        read_key(db)


def test_a_link_to_an_endless_device_as_the_seal_key_is_refused_unread(tmp_path):
    db = running(tmp_path)
    key = key_path(db)
    key.unlink()
    key.symlink_to("/dev/zero")
    for command in (["resume"], ["abandon", "--game", "1"]):
        code, _out, err = cli(*command, "--db", db, timeout=30)
        if command[0] == "abandon":  # a damaged key: the game can only be given up
            assert code == 0 and "can never be recomputed" in _out, (code, _out, err)
        else:
            assert "not a regular file" in one_line(code, err)
    code, _out, err = cli("backup", "--db", db, "--to", tmp_path / "copies", timeout=30)
    assert "not a regular file" in one_line(code, err)


def test_a_huge_key_file_is_refused_as_damaged_and_read_only_in_part(tmp_path, monkeypatch):
    db = running(tmp_path)
    key_path(db).write_bytes(b"0" * (8 * 1024 * 1024))
    os.chmod(key_path(db), 0o600)
    asked: list[int] = []
    real = os.read

    def read(fd: int, n: int) -> bytes:
        asked.append(n)
        return real(fd, n)

    monkeypatch.setattr(os, "read", read)
    with pytest.raises(SealError, match="damaged"):
        read_key(db)
    assert 0 < sum(asked) < 200, asked


def test_a_link_to_a_whole_key_still_opens_the_game(tmp_path):
    db = running(tmp_path)
    key = key_path(db)
    kept = tmp_path / "kept.key"
    key.rename(kept)
    key.symlink_to(kept)
    with GameStore(db) as store:
        assert Session(store).resume(1).actions_seen == 1


# ---------------------------------------------------------------- 8b: the key's mode
@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o660, 0o666])
def test_a_key_others_can_read_is_made_private_and_said_so(tmp_path, caplog, mode):
    db = running(tmp_path)
    os.chmod(key_path(db), mode)
    with caplog.at_level(logging.WARNING), GameStore(db) as store:
        assert Session(store).resume(1).actions_seen == 1
    assert stat.S_IMODE(os.stat(key_path(db)).st_mode) == 0o600
    (warning,) = [r.getMessage() for r in caplog.records if "seal key" in r.getMessage()]
    assert f"{mode:04o}" in warning and "0600" in warning and "\n" not in warning


def test_the_warning_reaches_the_command_line_in_one_line(tmp_path):
    db = running(tmp_path)
    os.chmod(key_path(db), 0o644)
    code, out, err = cli("resume", "--db", db, "--json")
    assert code == 0, err
    lines = [line for line in err.splitlines() if "seal key" in line]
    assert len(lines) == 1 and "0644" in lines[0], err
    assert stat.S_IMODE(os.stat(key_path(db)).st_mode) == 0o600


def test_a_key_others_can_read_that_cannot_be_made_private_is_refused(
    tmp_path, monkeypatch, capsys
):
    db = running(tmp_path)
    os.chmod(key_path(db), 0o644)

    def refuse(*args: object) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "fchmod", refuse)
    monkeypatch.setattr(os, "chmod", refuse)
    with GameStore(db) as store, pytest.raises(StoreError, match="other users") as caught:
        Session(store).resume(1)
    assert not isinstance(caught.value, SealError)  # the key is whole: never given up for lost
    capsys.readouterr()
    one_line(main(["resume", "--db", str(db)]), capsys.readouterr().err)
    # abandon does not take it for a lost key: the game is still there, unchanged
    one_line(main(["abandon", "--db", str(db), "--game", "1"]), capsys.readouterr().err)
    with GameStore(db, create=False) as store:
        assert store.game_row(1)["status"] == "playing"


# ------------------------------------------------------------- 8c: a table dropped
COMMANDS = [
    ["games"],
    ["games", "--json"],
    ["resume"],
    ["resume", "--game", "1"],
    ["abandon", "--game", "1"],
    ["audit", "verify"],
    ["audit", "verify", "--game", "1"],
    ["audit", "export", "--game", "1"],
    ["results", "--game", "1"],
    ["report", "--game", "1", "-o", "{tmp}/charts"],
    ["tags", "list"],
    ["tags", "export"],
    ["tags", "import", "{tmp}/tags.csv"],
    ["replay", "{tmp}/game.jsonl"],
    ["demo"],
    ["backup", "--to", "{tmp}/copies"],
]
DAMAGE = {
    "games": "DROP TABLE games",
    "log": "DROP TABLE log",
    "tags": "DROP TABLE tags",
    "in_progress": "DROP TABLE in_progress",
    "a column": "ALTER TABLE games RENAME COLUMN ranking TO places",
    "a table made a view": "DROP TABLE tags; CREATE VIEW tags AS SELECT 1 AS uid",
}


@pytest.fixture(scope="module")
def recorded_game(tmp_path_factory):
    folder = tmp_path_factory.mktemp("finished")
    db = folder / "games.db"
    game = write(folder / "game.jsonl", NEW, CLANK)
    assert main(["replay", str(game), "--db", str(db)]) == 0
    return db


@pytest.mark.parametrize("damage", DAMAGE)
def test_a_database_missing_part_of_its_schema_is_refused_by_every_command(
    tmp_path, capsys, recorded_game, damage
):
    db = tmp_path / "games.db"
    shutil.copy(recorded_game, db)
    shutil.copy(key_path(recorded_game), key_path(db))
    conn = sqlite3.connect(db)
    conn.executescript("DROP VIEW draws; DROP VIEW actions; " + DAMAGE[damage])
    conn.close()
    write(tmp_path / "game.jsonl", NEW, CLANK)
    (tmp_path / "tags.csv").write_text("uid,kind,edition,name\n01020304,card,clank,Ruby\n")
    before = files_of(tmp_path)
    capsys.readouterr()
    for command in COMMANDS:
        argv = [part.replace("{tmp}", str(tmp_path)) for part in command] + ["--db", str(db)]
        err = one_line(main(argv), capsys.readouterr().err)
        assert "is damaged" in err and "restore a backup" in err, (command, err)
        assert files_of(tmp_path) == before, command


@pytest.mark.parametrize(
    "command",
    [["scan", "--reader", "fake"], ["tags", "enroll", "--edition", "clank", "--reader", "fake"]],
)
def test_the_reader_commands_refuse_it_before_the_reader_starts(tmp_path, recorded_game, command):
    db = tmp_path / "games.db"
    shutil.copy(recorded_game, db)
    conn = sqlite3.connect(db)
    conn.execute("DROP TABLE tags")
    conn.close()
    code, _out, err = cli(*command, "--db", db, timeout=60)  # a reader runs until stopped
    assert "tags table is missing" in one_line(code, err)


def test_the_touchscreen_store_refuses_it_too(tmp_path, recorded_game):
    db = tmp_path / "games.db"
    shutil.copy(recorded_game, db)
    conn = sqlite3.connect(db)
    conn.execute("DROP TABLE in_progress")
    conn.close()
    with pytest.raises(StoreError, match="in_progress table is missing"):
        GameStore(db, later_schema=True)


# ------------------------------------------------------- 8d: a "new" that is no object
@pytest.mark.parametrize("value", [True, False, [], ["clank"], "clank", None, 3, 2.5, {}])
def test_a_new_line_that_is_no_object_is_refused_and_writes_nothing(tmp_path, capsys, value):
    script = write(tmp_path / "odd.jsonl", {"new": value}, CLANK)
    db = tmp_path / "sub" / "games.db"
    for argv in (["replay", str(script)], ["replay", str(script), "--db", str(db)]):
        err = one_line(main(argv), capsys.readouterr().err)
        assert err.startswith("line 1: "), err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["odd.jsonl"]


def test_new_options_the_rules_refuse_write_no_database_either(tmp_path, capsys):
    script = write(tmp_path / "one.jsonl", {"new": {"edition": "clank", "players": ["red"]}})
    db = tmp_path / "games.db"
    one_line(main(["replay", str(script), "--db", str(db)]), capsys.readouterr().err)
    assert not db.exists()


# ----------------------------------------------------- 8e: read-only commands write nothing
READ_ONLY = [
    ["games"],
    ["audit", "verify"],
    ["audit", "export", "--game", "1"],
    ["results", "--game", "1"],
    ["report", "--game", "1", "-o", "{tmp}/charts"],
    ["tags", "list"],
    ["tags", "export"],
    ["resume", "--game", "7"],
    ["abandon", "--game", "7"],
]


def _foreign(kind: str, path: Path) -> None:
    conn = sqlite3.connect(path)
    if kind == "empty":  # an SQLite database with nothing in it yet
        conn.execute("PRAGMA user_version = 7")
    elif kind == "wal":
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("CREATE TABLE recipes (name TEXT)")
        conn.execute("INSERT INTO recipes VALUES ('bread')")
    else:
        conn.execute("CREATE TABLE recipes (name TEXT)")
        conn.execute("INSERT INTO recipes VALUES ('bread')")
    conn.commit()
    conn.close()


@pytest.mark.parametrize("kind", ["tables", "empty", "wal"])
def test_a_foreign_database_is_refused_and_left_byte_for_byte(tmp_path, capsys, kind):
    db = tmp_path / "recipes.db"
    _foreign(kind, db)
    before = files_of(tmp_path)
    for command in READ_ONLY:
        argv = [part.replace("{tmp}", str(tmp_path)) for part in command] + ["--db", str(db)]
        err = one_line(main(argv), capsys.readouterr().err)
        assert "not a companion database" in err, (command, err)
        assert files_of(tmp_path) == before, command


@pytest.mark.parametrize("kind", ["tables", "empty", "wal"])
def test_commands_that_write_refuse_a_foreign_database_unchanged_too(tmp_path, capsys, kind):
    db = tmp_path / "recipes.db"
    _foreign(kind, db)
    before = files_of(tmp_path)
    script = write(tmp_path.parent / f"{kind}.jsonl", NEW)
    for argv in (["replay", str(script)], ["tags", "import", str(script)]):
        code = main([*argv, "--db", str(db)])
        err = capsys.readouterr().err
        if kind == "empty":  # an empty database is no other program's: it may become ours
            continue
        assert "not a companion database" in one_line(code, err), (argv, err)
        assert files_of(tmp_path) == before, argv


def test_read_only_commands_leave_a_companion_database_as_it_was(tmp_path, capsys):
    db = tmp_path / "games.db"
    game = write(tmp_path.parent / "game.jsonl", NEW, CLANK)
    assert main(["replay", str(game), "--db", str(db)]) == 0
    before = files_of(tmp_path)
    assert "games.db-wal" not in before and "games.db.key" in before
    capsys.readouterr()
    for command in READ_ONLY:
        if command[0] in ("report",):
            continue  # writes its charts: its folder is another
        argv = [part.replace("{tmp}", str(tmp_path)) for part in command] + ["--db", str(db)]
        main(argv)
        assert files_of(tmp_path) == before, command
    capsys.readouterr()


def test_an_older_database_is_read_as_it_is_and_migrated_only_to_write(tmp_path, capsys):
    from sqlite_utils import Database

    from companion.store.db import APPLICATION_ID, migrations

    db = tmp_path / "games.db"
    old = Database(db)
    old.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    migrations().apply(old, stop_before="m002_tags")
    old.conn.close()
    before = files_of(tmp_path)
    for command in (["games"], ["tags", "list"], ["tags", "export"], ["audit", "verify"]):
        assert main([*command, "--db", str(db)]) == 0, capsys.readouterr().err
        assert files_of(tmp_path) == before, command
    capsys.readouterr()
    with GameStore(db, create=False) as store:
        Session(store).start(NEW["new"])
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    conn.close()


# ------------------------------------------------------------------ 10a: formulas
@pytest.mark.parametrize(
    ("cell", "shown"),
    [
        ("=1+2", "'=1+2"),
        ("+1", "'+1"),
        ("-1", "'-1"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tx", "'\tx"),
        ("\rx", "'\rx"),
        ("anna", "anna"),
        ("", ""),
        (-3, -3),
        (7, 7),
    ],
)
def test_a_cell_that_would_be_a_formula_is_written_as_text(cell, shown):
    from companion.store.tags import safe_cell

    assert safe_cell(cell) == shown


def test_results_write_player_names_as_text_never_as_formulas(tmp_path, capsys):
    names = {"anna": "=HYPERLINK(1)", "boris": "@sum", "vera": "-2+3"}
    text = TSCHAK.read_text()
    for plain, hostile in names.items():
        text = text.replace(json.dumps(plain), json.dumps(hostile))
    script = tmp_path / "tschak.jsonl"
    script.write_text(text)
    db = tmp_path / "games.db"
    assert main(["replay", str(script), "--db", str(db)]) == 0
    capsys.readouterr()
    assert main(["results", "--db", str(db), "--game", "1"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert sorted(r["player"] for r in rows) == sorted("'" + n for n in names.values())


# ------------------------------------------------------- 10b: unconfirmed after resume
SEATS = ["red", "blue", "green", "yellow", "purple", "orange"]


@pytest.mark.parametrize("edition", ["clank", "catacombs"])
@pytest.mark.parametrize("count", [2, 3, 4, 5, 6])
def test_a_resumed_game_lists_what_the_new_game_listed(tmp_path, edition, count):
    options: dict[str, object] = {"edition": edition, "players": SEATS[:count]}
    if count > 4:
        options["party"] = True
    db = tmp_path / "games.db"
    with GameStore(db) as store:
        fresh = Controller(store)
        fresh.new_game(options)
        listed = (fresh.setup_numbers(), fresh.checklist())
    with GameStore(db) as store:  # the app started again: the game resumes
        again = Controller(store)
        assert again.resume_last() is not None
        assert (again.setup_numbers(), again.checklist()) == listed


# ------------------------------------------------------------ 10c: two at once
def _open_new(path: str, start: object, results: object) -> None:
    start.wait()  # type: ignore[attr-defined]
    try:
        GameStore(path).close()
        results.put("ok")  # type: ignore[attr-defined]
    except StoreError as e:
        results.put(str(e))  # type: ignore[attr-defined]


def test_two_programs_making_a_new_database_at_once_both_open_it(tmp_path):
    context = multiprocessing.get_context("fork")
    for attempt in range(25):
        path = str(tmp_path / f"games-{attempt}.db")
        start = context.Event()
        results = context.Queue()
        workers = [context.Process(target=_open_new, args=(path, start, results)) for _ in range(3)]
        for w in workers:
            w.start()
        start.set()
        for w in workers:
            w.join(60)
        outcomes = [results.get(timeout=5) for _ in workers]
        assert outcomes == ["ok"] * len(workers), (attempt, outcomes)
        with GameStore(path, create=False) as store:
            assert store.games() == []


# ------------------------------------------------------- 10d: damage said in one line
def test_a_damaged_page_is_said_in_one_line(tmp_path, capsys):
    db = tmp_path / "games.db"
    game = write(tmp_path / "game.jsonl", NEW, CLANK)
    assert main(["replay", str(game), "--db", str(db)]) == 0
    conn = sqlite3.connect(db)
    with conn:
        conn.executemany(
            "INSERT INTO tags (uid, kind, edition, name, enrolled_at)"
            " VALUES (?, 'card', 'clank', 'Ruby', '')",
            [(f"{i:08X}",) for i in range(3000)],
        )
    (root,) = conn.execute(
        "SELECT rootpage FROM sqlite_master WHERE name = 'sqlite_autoindex_tags_1'"
    ).fetchone()
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    size = conn.execute("PRAGMA page_size").fetchone()[0]
    conn.close()
    data = bytearray(db.read_bytes())
    page = (root - 1) * size
    for offset in range(page + 200, page + size - 8, 7):  # the index's cells, scribbled over
        data[offset] ^= 0x55
    db.write_bytes(bytes(data))
    problem = sqlite3.connect(db).execute("PRAGMA quick_check").fetchone()[0]
    assert "\n" in problem  # SQLite's own words take several lines
    capsys.readouterr()
    for command in (["games"], ["replay", str(game)]):
        err = one_line(main([*command, "--db", str(db)]), capsys.readouterr().err)
        assert "is damaged" in err, err


def test_every_store_refusal_is_one_line_whatever_it_names():
    from companion.i18n import N_

    error = StoreError(N_("{path} is damaged: {problem}"), path="a\nb.db", problem="x\r\ny\tz")
    assert "\n" not in str(error) and "\r" not in str(error)
    assert "\n" not in error.localized() and str(error) == r"a\nb.db is damaged: x\r\ny\tz"
