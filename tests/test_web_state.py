"""The web companion's state: rebuilt from the log's recorded draws, never from the seed,
it is the table script's ``replay --json`` output for the same actions (the odds while
the game runs, the server seed only once it is over), step by step and from scratch."""

from __future__ import annotations

import json
import sqlite3

import pytest

from companion.script import parse_line
from companion.session import Session
from companion.store import GameStore
from companion.web.reader import Games
from tests.test_web_support import SimulatedTable, expected, files_of, record, script

GAMES = ["clank-2-players-short.jsonl", "catacombs-3-players.jsonl", "tschak-3-players.jsonl"]


def _checkpoints(n: int) -> list[int]:
    """Where to compare: the set-up, a few points on the way, the last lines."""
    marks = {1, 2, 3, n - 1, n} | set(range(5, n, max(1, n // 7)))
    return sorted(m for m in marks if 1 <= m <= n)


@pytest.mark.parametrize("name", GAMES)
def test_the_state_is_the_replay_output_at_every_step(tmp_path, name, monkeypatch):
    lines = script(name)
    db = tmp_path / "games.db"
    marks = _checkpoints(len(lines))
    with GameStore(db) as store:
        options = parse_line(*lines[0])["new"]
        table = Session(store).start(options)
        seed = options.get("server_seed")
        # from here on the seal key cannot be read: the web side must not need it
        import companion.store.seal as seal

        def no_key(*args, **kwargs):
            raise AssertionError("the web side read the seal key")

        monkeypatch.setattr(seal, "read_key_file", no_key)
        statements: list[str] = []
        live = Games(db)
        for number, (_line, text) in enumerate(lines[1:], start=2):
            table.apply(parse_line(number, text))
            if number not in marks:
                continue
            want = expected(lines[:number])
            got = live.game(None)
            assert live.db.conn is not None
            live.db.conn.set_trace_callback(statements.append)
            payload = got.payload()
            assert payload["state"] == want, f"{name}: line {number}"
            fresh = Games(db).game(None).payload()
            assert fresh["state"] == want  # replayed from scratch: the same
            text_out = json.dumps(payload)
            if not want["game_over"] and seed:
                assert seed not in text_out  # the seed stays sealed while the game runs
                assert want["server_seed"] is None
            if want["edition"] != "tschak" and not want["game_over"]:
                assert "odds" in payload["state"]
        assert not [s for s in statements if "sealed_seed" in s]
        assert payload["status"] == "over" and payload["state"]["game_over"]
        if seed:
            assert payload["state"]["server_seed"] == seed
        live.close()


def test_undo_and_an_undone_draw_replay_as_recorded(tmp_path):
    """An undo takes back a draw that stays in the log (its nonce is never reused): the
    replay from the log's draws gives the same draws, undone ones included."""
    lines = script("clank-2-players-short.jsonl")
    # the first attack of the game, then an undo of it, then the same step again
    with_attack = []
    for number, text in lines:
        with_attack.append((number, text))
        if '"end_turn"' in text and "Dead Run" not in text and len(with_attack) > 6:
            break
    extra = [(900, '{"do": "attack"}'), (901, '{"do": "undo"}'), (902, '{"do": "attack"}')]
    played = with_attack + extra
    db = tmp_path / "games.db"
    want = record(db, played)
    got = Games(db).game(None).payload()
    assert got["state"] == want
    undone = [d for d in want["draws"] if d.get("undone")]
    assert undone, want["draws"]
    assert got["view"]["last"]  # the last action, in words


def test_an_abandoned_game_shows_its_revealed_seed(tmp_path):
    lines = script("clank-2-players-short.jsonl")[:12]
    db = tmp_path / "games.db"
    with GameStore(db) as store:
        from companion.script import replay

        result = replay(iter(lines), start=Session(store).start)
        assert result.table is not None
        result.table.abandon("a test")
        want = result.output()
    got = Games(db).game(None).payload()
    assert got["status"] == "abandoned"
    assert got["state"] == want
    assert got["state"]["server_seed"] == json.loads(lines[0][1])["new"]["server_seed"]


def test_reading_writes_nothing_and_makes_no_file(tmp_path):
    """The database read while nobody has it open: not a byte changes, no file appears
    beside it (no -wal, no -shm)."""
    db = tmp_path / "games.db"
    record(db, script("catacombs-3-players.jsonl")[:20])
    before = files_of(tmp_path)
    games = Games(db)
    games.game(None).payload()
    games.game(1).payload()
    games.close()
    assert files_of(tmp_path) == before


def test_reading_beside_the_running_table_writes_nothing(tmp_path):
    """While the table's app (another process) has the database open, the web side reads
    through its write-ahead log without writing a byte to it, to its index (-shm) or to
    the file."""
    db = tmp_path / "games.db"
    lines = script("clank-2-players-short.jsonl")
    record(db, lines[:10])
    table = SimulatedTable(db, 1)
    try:
        games = Games(db)
        before = files_of(tmp_path)
        first = games.game(None).payload()
        assert not games.db.immutable  # read through the table's log
        assert files_of(tmp_path) == before
        for number, text in lines[10:14]:
            table.apply(parse_line(number, text))
        before = files_of(tmp_path)
        second = games.game(None).payload()
        assert files_of(tmp_path) == before
        assert second["state"]["actions"] == first["state"]["actions"] + 4
        assert second["state"] == expected(lines[:14])
        games.close()
    finally:
        table.close()


def test_a_connection_opened_without_the_table_follows_it_once_it_starts(tmp_path):
    db = tmp_path / "games.db"
    lines = script("clank-2-players-short.jsonl")
    record(db, lines[:8])
    games = Games(db)
    assert games.game(None).payload()["state"] == expected(lines[:8])
    assert games.db.immutable  # nobody had it open
    with GameStore(db) as store:
        table = Session(store).resume(1)
        for number, text in lines[8:12]:
            table.apply(parse_line(number, text))
        assert games.game(None).payload()["state"] == expected(lines[:12])
    games.close()


def test_a_damaged_record_stops_the_replay_there(tmp_path):
    db = tmp_path / "games.db"
    lines = script("clank-2-players-short.jsonl")
    record(db, lines[:10])
    conn = sqlite3.connect(db)
    conn.execute("DROP TRIGGER log_no_update")
    conn.execute("UPDATE log SET body = body || ' ' WHERE seq = 5")
    conn.commit()
    conn.close()
    got = Games(db).game(None).payload()
    assert got["damaged"] == 5
    assert got["state"] == expected(lines[:4])  # the game as it stood before record 5
