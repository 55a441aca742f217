"""The database commands: replay --db, games, resume, abandon, and the demo."""

from __future__ import annotations

import io
import json
import sqlite3

import pytest

from companion.cli import main

SEED = "5e" * 32
NEW = {"new": {"edition": "catacombs", "players": ["red", "blue"], "server_seed": SEED}}


def write(path, *lines):
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def test_replay_into_a_database_then_resume_from_stdin(tmp_path, capsys, monkeypatch):
    db = tmp_path / "games.db"
    script = write(
        tmp_path / "a.jsonl",
        NEW,
        {"do": "clank", "player": "red", "n": 2},
        {"do": "ghost"},
        {"do": "attack"},
    )
    assert main(["replay", str(script), "--db", str(db), "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert main(["games", "--db", str(db), "--json"]) == 0
    (game,) = json.loads(capsys.readouterr().out)
    assert game["status"] == "playing" and game["actions"] == 3 and game["server_seed"] is None
    monkeypatch.setattr("sys.stdin", io.StringIO('{"do": "attack"}\n# a note\n'))
    assert main(["resume", "--db", str(db), "--actions", "-", "--json"]) == 0
    out = capsys.readouterr()
    state = json.loads(out.out)
    assert "resumed game 1: 3 actions" in out.err
    assert [d["nonce"] for d in state["draws"]] == [1, 2]
    assert state["draws"][0] == first["draws"][0]
    # still running: not yet proven, as the standalone verifier says of its export
    assert main(["audit", "verify", "--db", str(db)]) == 4
    assert capsys.readouterr().out.startswith("game 1: NOT YET: ")
    # the script chose the seed: once revealed, the game holds together and proves
    # nothing fair
    assert main(["abandon", "--db", str(db), "--game", "1"]) == 0
    capsys.readouterr()
    assert main(["audit", "verify", "--db", str(db)]) == 3
    out = capsys.readouterr().out
    assert "game 1: NOT PROVABLY FAIR" in out and "seed chosen outside the companion" in out


def test_abandon_reveals_the_seed(tmp_path, capsys):
    db = tmp_path / "games.db"
    script = write(tmp_path / "a.jsonl", NEW, {"do": "attack"})
    main(["replay", str(script), "--db", str(db)])
    capsys.readouterr()
    assert main(["abandon", "--db", str(db), "--game", "1"]) == 0
    assert SEED in capsys.readouterr().out
    assert main(["abandon", "--db", str(db), "--game", "1"]) == 2
    assert main(["resume", "--db", str(db)]) == 2
    assert "no unfinished game" in capsys.readouterr().err


def test_bad_database_paths_get_one_line(tmp_path, capsys):
    bogus = tmp_path / "bogus.db"
    bogus.write_bytes(b"\x00garbage" * 500)
    assert main(["games", "--db", str(bogus)]) == 2
    err = capsys.readouterr().err
    assert "not a companion database" in err and err.count("\n") == 1
    assert main(["games", "--db", str(tmp_path)]) == 2
    assert "is a folder" in capsys.readouterr().err
    assert main(["resume", "--db", str(tmp_path / "new.db"), "--game", "7"]) == 2
    assert "no game database at" in capsys.readouterr().err  # and none was made
    assert not (tmp_path / "new.db").exists()
    script = write(tmp_path / "a.jsonl", NEW)
    assert main(["replay", str(script), "--db", str(tmp_path / "new.db")]) == 0
    capsys.readouterr()
    assert main(["resume", "--db", str(tmp_path / "new.db"), "--game", "7"]) == 2
    assert "no game 7" in capsys.readouterr().err


def test_the_demo_plays_and_records_the_four_player_game(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("CLANK_DB", str(tmp_path / "demo.db"))
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "Replaying clank-4-players.jsonl" in out
    assert "dragon draw #1" in out and "ranking: 1. red 85" in out
    assert main(["games", "--db", str(tmp_path / "demo.db")]) == 0
    assert "over" in capsys.readouterr().out


@pytest.mark.parametrize("key", [None, b"not a key\n", b"ab" * 32])
def test_abandon_gives_up_a_game_whose_seal_key_is_lost_or_damaged(tmp_path, capsys, key):
    """The key gone (or damaged, or another's): the seed is lost, and abandon is the way
    out, not a dead end."""
    db = tmp_path / "games.db"
    script = write(tmp_path / "a.jsonl", {"new": {"edition": "clank", "players": ["red", "blue"]}})
    assert main(["replay", str(script), "--db", str(db)]) == 0
    key_file = tmp_path / "games.db.key"
    key_file.unlink()
    if key is not None:
        key_file.write_bytes(key)
    capsys.readouterr()
    assert main(["resume", "--db", str(db)]) == 2  # as before: it cannot be resumed
    capsys.readouterr()
    assert main(["abandon", "--db", str(db), "--game", "1"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("game 1 abandoned;") and "can never be recomputed" in out
    assert err == ""
    assert main(["games", "--db", str(db), "--json"]) == 0
    (game,) = json.loads(capsys.readouterr().out)
    assert game["status"] == "abandoned" and game["server_seed"] is None
    assert main(["resume", "--db", str(db)]) == 2
    assert "no unfinished game" in capsys.readouterr().err
    assert main(["abandon", "--db", str(db), "--game", "1"]) == 2  # once is enough
    assert capsys.readouterr().err.count("\n") == 1


@pytest.mark.parametrize(
    ("column", "value"),
    [
        ("ranking", "[1, 2]"),
        ("ranking", '[{"place": 1}]'),
        ("ranking", '[{"player": 7}]'),
        ("ranking", '{"player": "red"}'),
        ("ranking", "[[]]"),
        ("players", '[1, ["red"], {"a": 1}]'),
    ],
)
def test_games_survives_cells_of_the_wrong_shape(tmp_path, capsys, column, value):
    db = tmp_path / "games.db"
    script = write(tmp_path / "a.jsonl", NEW)
    assert main(["replay", str(script), "--db", str(db)]) == 0
    conn = sqlite3.connect(db)
    with conn:
        conn.execute(f"UPDATE games SET {column} = ?", [value])
    conn.close()
    capsys.readouterr()
    assert main(["games", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("game   1 ") and "winner" not in out
    assert main(["games", "--db", str(db), "--json"]) == 0


@pytest.mark.parametrize(
    ("ranking", "players"),
    [([1, 2], ["red"]), ([{"place": 1}], ["red"]), ([[]], ["red"]), (None, [1, ["red"], None])],
)
def test_the_games_listing_guards_what_the_store_hands_it(
    tmp_path, capsys, monkeypatch, ranking, players
):
    """Whatever shape the store's parsed cells have, the listing shows the game."""
    db = tmp_path / "games.db"
    script = write(tmp_path / "a.jsonl", NEW)
    assert main(["replay", str(script), "--db", str(db)]) == 0
    row = {
        "id": 1,
        "created_at": "2024-01-01T00:00:00+00:00",
        "edition": "clank",
        "players": players,
        "status": "over",
        "commitment": "",
        "server_seed": None,
        "ranking": ranking,
        "actions": 0,
        "head": "",
        "damaged": [],
    }
    monkeypatch.setattr("companion.cli.games.GameStore.games", lambda self: [row])
    capsys.readouterr()
    assert main(["games", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("game   1 ") and "winner" not in out


def test_games_names_the_winner_of_a_good_ranking(tmp_path, capsys):
    db = tmp_path / "games.db"
    script = write(tmp_path / "a.jsonl", NEW)
    assert main(["replay", str(script), "--db", str(db)]) == 0
    conn = sqlite3.connect(db)
    with conn:
        conn.execute(
            "UPDATE games SET ranking = ?", ['[{"place": 1, "player": "blue", "score": 12}]']
        )
    conn.close()
    capsys.readouterr()
    assert main(["games", "--db", str(db)]) == 0
    assert ", winner blue (blue 12)" in capsys.readouterr().out  # the scores too


def _finished(tmp_path, capsys):
    """A Catacombs game played to its end (red escapes with an artifact, blue is knocked
    out): its database."""
    db = tmp_path / "games.db"
    script = write(
        tmp_path / "a.jsonl",
        {"new": {**NEW["new"], "health": 2}},
        {"do": "artifact", "player": "red", "value": 20},
        {"do": "escape", "player": "red"},
        {"do": "damage", "player": "blue", "n": 2},
    )
    assert main(["replay", str(script), "--db", str(db)]) == 0
    capsys.readouterr()
    return db


def test_results_writes_a_finished_games_scores(tmp_path, capsys):
    db = _finished(tmp_path, capsys)
    assert main(["results", "--db", str(db), "--game", "1"]) == 0
    assert [line.split(",")[3] for line in capsys.readouterr().out.splitlines()[1:]] == [
        "red",
        "blue",
    ]


def test_results_of_a_running_game_says_it_is_not_over(tmp_path, capsys):
    db = tmp_path / "games.db"
    assert main(["replay", str(write(tmp_path / "a.jsonl", NEW)), "--db", str(db)]) == 0
    capsys.readouterr()
    assert main(["results", "--db", str(db), "--game", "1"]) == 2
    err = capsys.readouterr().err
    assert err == "game 1 is not over: it has no results yet\n"


def test_results_of_a_finished_game_whose_log_is_damaged_says_why_it_has_none(tmp_path, capsys):
    """The games table says the game is over; its log, damaged by hand, no longer tells
    its scores: the command says so, not that the game is not over."""
    db = _finished(tmp_path, capsys)
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("DROP TRIGGER IF EXISTS log_no_update")
    (last,) = conn.execute("SELECT max(seq) FROM log WHERE game = 1 AND kind = 'action'").fetchone()
    conn.execute("UPDATE log SET body = 'not json' WHERE game = 1 AND seq = ?", [last])
    conn.close()
    out = tmp_path / "results.csv"
    assert main(["results", "--db", str(db), "--game", "1", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "not over" not in err
    assert err.startswith("game 1 is over, but its scores cannot be read from its log")
    assert "audit verify" in err and not out.exists()


def test_without_db_the_configured_database_is_used(tmp_path, capsys, monkeypatch):
    """$CLANK_DB first, then the configuration's [app] database, then the data folder."""
    configured = tmp_path / "configured.db"
    config = tmp_path / "config.toml"
    config.write_text(f'[app]\ndatabase = "{configured}"\n', encoding="utf-8")
    monkeypatch.setenv("CLANK_CONFIG", str(config))
    monkeypatch.delenv("CLANK_DB", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    script = write(tmp_path / "a.jsonl", NEW)
    assert main(["replay", str(script), "--db", str(configured)]) == 0
    capsys.readouterr()
    assert main(["games"]) == 0
    assert "game   1 " in capsys.readouterr().out
    monkeypatch.setenv("CLANK_DB", str(tmp_path / "override.db"))
    assert main(["games"]) == 2
    assert capsys.readouterr().err == f"no game database at {tmp_path / 'override.db'}\n"
    assert not (tmp_path / "data").exists()
