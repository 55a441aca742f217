"""The game log: commit before show, resume, undo as an event, bad databases, full disk."""

from __future__ import annotations

import json
import sqlite3

import pytest

from companion.audit.check import verify_store
from companion.kinds.clank.rules import RuleError
from companion.session import Session
from companion.store import GameStore, StoreError
from companion.store.db import SCHEMA_VERSION

NEW = {
    "edition": "clank",
    "players": ["red", "blue"],
    "server_seed": "77" * 32,
    "client_seed": "table",
}


@pytest.fixture
def store(tmp_path):
    s = GameStore(tmp_path / "games.db")
    yield s
    s.close()


def play_some(table, n_attacks: int = 3) -> None:
    table.apply({"do": "row", "cards": ["Ladder", "Tattle"]})
    for _ in range(n_attacks):
        table.apply({"do": "clank", "player": "red", "n": 2})
        table.apply({"do": "attack"})
        table.apply({"do": "end_turn", "revealed": []})


def test_every_action_is_in_the_log_when_apply_returns(store):
    table = Session(store).start(NEW)
    play_some(table)
    rows = store.db.execute("SELECT kind, count(*) FROM log GROUP BY kind").fetchall()
    assert dict(rows) == {"new": 1, "action": 10}
    assert table.log.head == store.games()[0]["head"]


def test_pragmas_make_commits_durable(store):
    assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store.db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_resume_rebuilds_the_same_game_and_continues_the_nonces(store, tmp_path):
    table = Session(store).start(NEW)
    play_some(table)
    table.apply({"do": "undo"})  # the last end_turn
    table.apply({"do": "undo"})  # the last attack: its draw stays, marked undone
    before = table.snapshot()
    store.close()
    again = GameStore(tmp_path / "games.db")
    resumed = Session(again).resume(1)
    assert resumed.snapshot() == before
    resumed.apply({"do": "attack"})
    assert [d["nonce"] for d in resumed.snapshot()["draws"]] == [1, 2, 3, 4]
    assert resumed.snapshot()["draws"][2]["undone"] is True
    assert all(r.ok for r in verify_store(again))
    again.close()


def test_the_log_refuses_update_and_delete(store):
    Session(store).start(NEW)
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        store.db.execute("UPDATE log SET body = '{}'")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        store.db.execute("DELETE FROM log")


def test_undo_is_an_event_and_nothing_is_deleted(store):
    table = Session(store).start(NEW)
    table.apply({"do": "attack"})
    table.apply({"do": "undo"})
    actions = [r[0] for r in store.db.execute("SELECT action FROM actions ORDER BY seq")]
    assert actions == ["attack", "undo"]
    (nonce,) = store.db.execute("SELECT nonce FROM draws").fetchone()
    assert nonce == 1


def test_a_rejected_action_writes_nothing(store):
    table = Session(store).start(NEW)
    with pytest.raises(RuleError):
        table.apply({"do": "clank", "player": "pink", "n": 1})
    assert store.db.execute("SELECT count(*) FROM log").fetchone()[0] == 1


def test_game_end_reveals_the_seed_in_the_same_commit(store):
    table = Session(store).start(NEW)
    for p, v in [("red", 5), ("blue", 7)]:
        table.apply({"do": "artifact", "player": p, "value": v})
        table.apply({"do": "escape", "player": p})
    game = store.games()[0]
    assert game["status"] == "over" and game["server_seed"] == "77" * 32
    assert game["ranking"][0]["player"] == "blue"
    kinds = [r[0] for r in store.db.execute("SELECT kind FROM log ORDER BY seq")]
    assert kinds[-1] == "reveal"
    with pytest.raises(RuleError):
        table.apply({"do": "attack"})


def test_the_database_alone_does_not_reveal_a_running_seed(store, tmp_path):
    Session(store).start(NEW)
    raw = (tmp_path / "games.db").read_bytes()
    assert ("77" * 32).encode() not in raw
    sealed = store.db.execute("SELECT sealed_seed FROM games").fetchone()[0]
    assert sealed != "77" * 32


def test_resume_without_the_key_is_refused_clearly(store, tmp_path):
    Session(store).start(NEW)
    (tmp_path / "games.db.key").unlink()
    with pytest.raises(StoreError, match="seal key .* is missing"):
        Session(store).resume(1)


def test_abandon_reveals_the_seed_and_closes_the_game(store, tmp_path):
    table = Session(store).start(NEW)
    play_some(table, 1)
    table.abandon("the cat sat on the board")
    assert store.games()[0]["status"] == "abandoned"
    with pytest.raises(RuleError, match="abandoned"):
        table.apply({"do": "attack"})
    (check,) = verify_store(store)
    assert check.ok and check.draws_checked == 1


def test_a_full_disk_records_nothing_and_keeps_the_game(tmp_path):
    store = GameStore(tmp_path / "games.db")
    table = Session(store).start(NEW)
    play_some(table, 1)
    count = store.db.execute("SELECT count(*) FROM log").fetchone()[0]
    pages = store.db.execute("PRAGMA page_count").fetchone()[0]
    store.db.execute(f"PRAGMA max_page_count = {pages}")
    recorded = 0
    last_shown = table.snapshot()
    with pytest.raises(StoreError, match="disk is full"):
        for n in range(500):  # fill the last page, then one more
            table.apply({"do": "gold", "player": "red", "n": 1 + n % 3})
            recorded += 1
            last_shown = table.snapshot()
    assert recorded > 0
    # the refused action was taken back in memory: the table shows the last recorded state
    assert table.snapshot() == last_shown
    assert store.db.execute("SELECT count(*) FROM log").fetchone()[0] == count + recorded
    store.db.execute("PRAGMA max_page_count = 1073741823")
    store.close()
    again = GameStore(tmp_path / "games.db")
    assert Session(again).resume(1).snapshot() == last_shown
    assert all(r.ok for r in verify_store(again))
    again.close()


def test_a_file_that_is_not_a_database(tmp_path):
    path = tmp_path / "notes.db"
    path.write_text("shopping list: dice, sleeves, snacks\n" * 100)
    with pytest.raises(StoreError, match="not a companion database"):
        GameStore(path)
    assert path.read_text().startswith("shopping list")


def test_a_foreign_database(tmp_path):
    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE recipes (name TEXT)")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match="another program"):
        GameStore(path)


def test_a_database_from_the_future(tmp_path):
    path = tmp_path / "games.db"
    GameStore(path).close()
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match="newer version"):
        GameStore(path)


def test_an_older_database_is_migrated(tmp_path):
    """A database of the first schema (games and log, no tags) opens and gains the tags."""
    from sqlite_utils import Database

    from companion.store.db import APPLICATION_ID, migrations

    path = tmp_path / "games.db"
    old = Database(path)
    old.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    migrations().apply(old, stop_before="m002_tags")
    assert old.execute("PRAGMA user_version").fetchone()[0] == 1
    assert "tags" not in old.table_names()
    old.conn.close()
    store = GameStore(path)
    applied = [r[0] for r in store.db.execute("SELECT name FROM _sqlite_migrations")]
    assert applied == ["m001_game_log", "m002_tags", "m003_table_in_progress"]
    assert store.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 3
    assert "tags" in store.db.table_names()
    store.close()


def test_a_damaged_database_is_refused(tmp_path):
    path = tmp_path / "games.db"
    store = GameStore(path)
    table = Session(store).start(NEW)
    play_some(table, 5)
    store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.close()
    data = bytearray(path.read_bytes())
    for i in range(4096 + 100, len(data), 97):  # scribble over pages after the header page
        data[i] ^= 0x5A
    path.write_bytes(bytes(data))
    with pytest.raises(StoreError):
        Session(GameStore(path)).resume(1)


def test_games_list_and_history_queries(store):
    t1 = Session(store).start(NEW)
    play_some(t1, 2)
    Session(store).start({**NEW, "edition": "catacombs"})
    games = store.games()
    assert [(g["id"], g["edition"], g["actions"]) for g in games] == [
        (1, "clank", 7),
        (2, "catacombs", 0),
    ]
    draws = store.db.execute("SELECT game, nonce, drawn FROM draws ORDER BY nonce").fetchall()
    assert [(g, n) for g, n, _ in draws] == [(1, 1), (1, 2)]
    assert isinstance(json.loads(draws[0][2]), list)
    assert store.last_unfinished() == 2


# ---------------------------------------------- a disk that cannot be written is said so
def _connect_through(monkeypatch, prepare):
    real = sqlite3.connect

    def connect(*args, **kwargs):
        conn = real(*args, **kwargs)
        prepare(conn)
        return conn

    monkeypatch.setattr(sqlite3, "connect", connect)


def test_a_read_only_disk_is_not_called_a_foreign_database(tmp_path, monkeypatch):
    path = tmp_path / "games.db"
    GameStore(path).close()
    # as on a disk mounted read-only (root ignores file modes, so the test asks SQLite)
    _connect_through(monkeypatch, lambda conn: conn.execute("PRAGMA query_only = ON"))
    with pytest.raises(StoreError) as caught:
        GameStore(tmp_path / "new.db")
    assert "cannot be written (a read-only disk or folder)" in str(caught.value)
    assert "not a companion database" not in str(caught.value)


def test_a_full_disk_is_not_called_a_foreign_database(tmp_path, monkeypatch):
    _connect_through(monkeypatch, lambda conn: conn.execute("PRAGMA max_page_count = 1"))
    with pytest.raises(StoreError) as caught:
        GameStore(tmp_path / "games.db")
    assert "is full: nothing was changed" in str(caught.value)


@pytest.mark.parametrize("name", ["\ud800.db", "ok/\udfff/games.db"])
def test_a_path_that_is_not_text_is_a_clear_refusal(tmp_path, name):
    with pytest.raises(StoreError, match="not a usable file name"):
        GameStore(str(tmp_path) + "/" + name)


def test_a_path_under_a_file_is_a_clear_refusal(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(StoreError, match="file, not a folder"):
        GameStore(tmp_path / "file" / "games.db")


# ------------------------------------------- a log that does not verify is not resumed
def _attacker(path):
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("DROP TRIGGER IF EXISTS log_no_update")
    conn.execute("DROP TRIGGER IF EXISTS log_no_delete")
    return conn


@pytest.mark.parametrize(
    "edit",
    [
        "UPDATE log SET hash = substr(hash, 1, 63) || 'x' WHERE seq = (SELECT max(seq) FROM log)",
        "UPDATE log SET hash = substr(hash, 1, 63) || "
        "CASE substr(hash, 64) WHEN '0' THEN '1' ELSE '0' END WHERE seq = 3",
        "DELETE FROM log WHERE seq = 4",
        "INSERT INTO log SELECT game, 0, kind, body, prev, hash FROM log WHERE seq = 2",
        "INSERT INTO log SELECT game, 99, 'reveal', '{}', hash, hash FROM log "
        "WHERE seq = (SELECT max(seq) FROM log)",
        "UPDATE log SET body = CAST(x'7b22ff22' AS TEXT) WHERE seq = 2",
    ],
)
def test_a_log_that_does_not_verify_is_never_resumed_or_written(tmp_path, edit):
    path = tmp_path / "games.db"
    with GameStore(path) as store:
        play_some(Session(store).start(NEW), 2)
    _attacker(path).execute(edit)
    with GameStore(path) as store:
        before = store.db.execute("SELECT count(*) FROM log").fetchone()[0]
        with pytest.raises(StoreError, match="does not verify|not a record|reveal before"):
            Session(store).resume(1)
        (check,) = verify_store(store)
        assert not check.ok
        assert store.db.execute("SELECT count(*) FROM log").fetchone()[0] == before


def test_a_log_without_its_games_row_fails_the_audit(tmp_path):
    path = tmp_path / "games.db"
    with GameStore(path) as store:
        play_some(Session(store).start(NEW), 1)
    conn = _attacker(path)
    conn.execute("PRAGMA foreign_keys = OFF")
    conn.execute("DELETE FROM in_progress")
    conn.execute("DELETE FROM games")
    with GameStore(path) as store:
        (check,) = verify_store(store)
        assert not check.ok and "the games table does not" in str(check.message)


def test_a_ranking_of_the_wrong_shape_is_no_ranking(tmp_path):
    path = tmp_path / "games.db"
    with GameStore(path) as store:
        Session(store).start(NEW)
    _attacker(path).execute("UPDATE games SET ranking = '[1, 2]'")
    with GameStore(path) as store:
        (game,) = store.games()
        assert game["ranking"] is None and game["damaged"] == ["ranking"]


@pytest.mark.parametrize(
    ("column", "value"),
    [("commitment", b"A"), ("sealed_seed", b"\x00\xff"), ("created_at", b"\xff"),
     ("server_seed", b"\xff"), ("ranking", b"\xff")],
)  # fmt: skip
def test_binary_cells_in_the_games_table_are_damage_not_tracebacks(tmp_path, column, value):
    path = tmp_path / "games.db"
    with GameStore(path) as store:
        play_some(Session(store).start(NEW), 1)
    _attacker(path).execute(f"UPDATE games SET {column} = ?", [value])
    with GameStore(path) as store:
        (game,) = store.games()
        json.dumps(game)  # listable and exportable as it stands
        assert column in game["damaged"] or column == "sealed_seed"
        if column in ("commitment", "sealed_seed"):
            with pytest.raises(StoreError):
                Session(store).resume(1)
        (check,) = verify_store(store)
        assert not check.ok


@pytest.mark.parametrize(
    "body", ["[" * 100000 + "]" * 100000, "1" * 5000, b"\xff", b"{\xff}", "{}"]
)
def test_a_damaged_work_in_progress_row_reads_as_nothing(tmp_path, body):
    with GameStore(tmp_path / "games.db") as store:
        Session(store).start(NEW)
        store.db.execute("INSERT INTO in_progress (game, body) VALUES (1, ?)", [body])
        assert store.in_progress(1) == {}


def test_a_nul_in_the_path_is_a_clear_refusal(tmp_path):
    with pytest.raises(StoreError, match="holds a NUL"):
        GameStore(str(tmp_path / "a\x00b.db"))


def test_reading_an_empty_file_makes_no_database_of_it(tmp_path):
    empty = tmp_path / "e.db"
    empty.touch()
    with pytest.raises(StoreError, match="no game database"):
        GameStore(empty, create=False)
    assert empty.stat().st_size == 0
