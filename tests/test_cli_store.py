"""The database commands: replay --db, games, resume, abandon, and the demo."""

from __future__ import annotations

import io
import json

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
    assert main(["audit", "verify", "--db", str(db)]) == 0
    assert "game 1: OK" in capsys.readouterr().out


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
    assert "no game 7" in capsys.readouterr().err


def test_the_demo_plays_and_records_the_four_player_game(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("CLANK_DB", str(tmp_path / "demo.db"))
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "Replaying clank-4-players.jsonl" in out
    assert "dragon draw #1" in out and "ranking: 1. red 85" in out
    assert main(["games", "--db", str(tmp_path / "demo.db")]) == 0
    assert "over" in capsys.readouterr().out
