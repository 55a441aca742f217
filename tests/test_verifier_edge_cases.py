"""The verifiers and the database at their edges, each case reproduced: a given seed passed
off as an old log's, one verdict for a running game, a schema version set back by hand,
game numbers beyond SQLite's 64 bits."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import subprocess
from pathlib import Path

import pytest

from companion.audit.check import verify_store
from companion.cli import main
from companion.session import Session
from companion.store import GameStore, StoreError
from companion.store.db import SCHEMA_VERSION, open_database
from companion.verify_log import (
    EXIT_FAILED,
    EXIT_SEALED,
    GENESIS,
    canonical,
    link_hash,
    record_bytes,
)
from tests.helpers import companion_draws_seed
from tests.test_proof_rigged_or_fair import export_text, standalone
from tests.test_web_verify_js import NODE, VERDICTS_JS, VERIFY_JS, needs_node

ROOT = Path(__file__).resolve().parent.parent
VERIFIER = ROOT / "companion" / "verify_log.py"
GIVEN = {"edition": "clank", "players": ["red", "blue"], "server_seed": "ab" * 32}


def finish(table) -> None:
    for player, value in (("red", 10), ("blue", 20)):
        table.apply({"do": "artifact", "player": player, "value": value})
        table.apply({"do": "escape", "player": player})
    assert table.game.state.game_over


def files_of(folder: Path) -> dict[str, str]:
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.iterdir())
        if p.is_file()
    }


# ------------------------------------------- V1: a given seed passed off as an old log's
# What a forger takes out of record 1 of a given-seed log before computing the chain
# again: the origin alone, the origin and the date, or all three.
STRIPPED = {
    "origin": ("seed_origin",),
    "origin-and-date": ("seed_origin", "created_at"),
    "origin-date-and-format": ("seed_origin", "created_at", "format"),
}


def given_seed_db(tmp_path: Path) -> Path:
    db = tmp_path / "games.db"
    with GameStore(db) as store:
        table = Session(store).start(GIVEN)
        table.apply({"do": "clank", "player": "red", "n": 3})
        table.apply({"do": "attack"})
        finish(table)
        assert next(store.records(1))["body"]["seed_origin"] == "given"
    return db


def rechained(records: list[dict]) -> None:
    prev = GENESIS
    for rec in records:
        rec["prev"] = prev
        data = record_bytes(rec["game"], rec["seq"], rec["kind"], canonical(rec["body"]))
        rec["hash"] = prev = link_hash(prev, data)


def stripped_export(text: str, keys: tuple[str, ...]) -> str:
    rows = [json.loads(line) for line in text.splitlines() if line.strip()]
    header, records = rows[0], rows[1:]
    for key in keys:
        del records[0]["body"][key]
    rechained(records)
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in [header, *records])


def strip_in_database(db: Path, keys: tuple[str, ...]) -> None:
    """The same forgery in the database itself: the append-only triggers dropped, record
    1 rewritten and every hash after it computed again."""
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("DROP TRIGGER log_no_update")
    rows = conn.execute("SELECT seq, kind, body FROM log WHERE game = 1 ORDER BY seq").fetchall()
    prev = GENESIS
    for seq, kind, text in rows:
        body = json.loads(text)
        if seq == 1:
            for key in keys:
                del body[key]
        text = canonical(body)
        digest = link_hash(prev, record_bytes(1, seq, kind, text))
        conn.execute(
            "UPDATE log SET body = ?, prev = ?, hash = ? WHERE game = 1 AND seq = ?",
            [text, prev, digest, seq],
        )
        prev = digest
    conn.close()


@pytest.mark.parametrize("keys", STRIPPED.values(), ids=STRIPPED.keys())
def test_a_given_seed_stripped_of_its_origin_fails_the_standalone_verifier(tmp_path, keys):
    with GameStore(given_seed_db(tmp_path), create=False) as store:
        text = export_text(store)
    code, out = standalone(tmp_path / "export.jsonl", stripped_export(text, keys))
    assert code == EXIT_FAILED, out
    assert out.startswith("FAILED: record 1:") and "where the server seed came from" in out, out


@pytest.mark.parametrize("keys", STRIPPED.values(), ids=STRIPPED.keys())
def test_a_given_seed_stripped_of_its_origin_fails_the_audit(tmp_path, capsys, keys):
    db = given_seed_db(tmp_path)
    strip_in_database(db, keys)
    assert main(["audit", "verify", "--db", str(db)]) == EXIT_FAILED
    out = capsys.readouterr().out
    assert out.startswith("game 1: FAILED: record 1:"), out
    assert "where the server seed came from" in out, out


@needs_node
def test_a_given_seed_stripped_of_its_origin_fails_the_browser_verifier(tmp_path):
    with GameStore(given_seed_db(tmp_path), create=False) as store:
        text = export_text(store)
    files = []
    for name, keys in STRIPPED.items():
        path = tmp_path / f"{name}.jsonl"
        path.write_text(stripped_export(text, keys), encoding="utf-8")
        files.append(str(path))
    done = subprocess.run(
        [NODE, "--input-type=module", "-e", VERDICTS_JS, VERIFY_JS.as_uri(), *files],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    for path, found in json.loads(done.stdout).items():
        assert found["status"] == "failed", (path, found)
        assert found["message"].startswith("FAILED: record 1:"), (path, found)
        assert "where the server seed came from" in found["message"], (path, found)


def test_a_log_without_a_dragon_bag_needs_no_origin(tmp_path, capsys):
    """A Tschak! game has no server seed, so its record 1 says no origin: it still
    verifies."""
    db = tmp_path / "games.db"
    script = ROOT / "examples" / "tschak-2-players.jsonl"
    assert main(["replay", str(script), "--db", str(db)]) == 0
    assert main(["audit", "verify", "--db", str(db)]) == 0
    with GameStore(db, create=False) as store:
        assert "seed_origin" not in next(store.records(1))["body"]
        text = export_text(store)
    code, out = standalone(tmp_path / "export.jsonl", text)
    assert code == 0, out


# ------------------------------------------------ V2: one verdict for a running game
@pytest.mark.parametrize("given", [False, True], ids=["seed-drawn", "seed-given"])
def test_a_running_game_is_not_yet_proven_by_either_verifier(tmp_path, capsys, given):
    """The key is on this machine, so the audit replays the game and recomputes its
    draws with the sealed seed; its verdict is still the standalone verifier's: NOT YET,
    status 4, since nobody else can recompute a draw before the seed is revealed (a seed
    chosen outside the companion included: NOT PROVABLY FAIR once it is revealed)."""
    db = tmp_path / "games.db"
    options = GIVEN if given else {"edition": "clank", "players": ["red", "blue"]}
    with GameStore(db) as store, companion_draws_seed("5e" * 32):
        table = Session(store).start(options)
        table.apply({"do": "clank", "player": "red", "n": 3})
        table.apply({"do": "attack"})
    with GameStore(db, create=False) as store:
        (check,) = verify_store(store)
        text = export_text(store)
    assert check.ok and check.status == EXIT_SEALED, (check.status, str(check.message))
    assert "replayed through the rules" in str(check.message)
    capsys.readouterr()
    assert main(["audit", "verify", "--db", str(db)]) == EXIT_SEALED
    out = capsys.readouterr().out
    assert out.startswith("game 1: NOT YET: "), out
    code, said = standalone(tmp_path / "export.jsonl", text)
    assert code == EXIT_SEALED and "NOT YET" in said, said


# ------------------------------------------- V3: a schema version set back by hand
def played_db(tmp_path: Path) -> Path:
    db = tmp_path / "games.db"
    assert main(["replay", str(ROOT / "examples" / "clank-2-players-short.jsonl"),
                 "--db", str(db)]) == 0  # fmt: skip
    return db


def set_version(db: Path, version: int) -> None:
    conn = sqlite3.connect(db)
    conn.execute(f"PRAGMA user_version = {version}")
    conn.commit()
    conn.close()


COMMANDS = [
    ["games"],
    ["audit", "verify"],
    ["audit", "export", "--game", "1"],
    ["results", "--game", "1"],
    ["resume", "--game", "1"],
    ["abandon", "--game", "1"],
    ["tags", "list"],
    ["replay", str(ROOT / "examples" / "clank-2-players-short.jsonl")],
]


@pytest.mark.parametrize("version", range(SCHEMA_VERSION))
def test_a_schema_version_set_back_is_refused_as_damaged(tmp_path, capsys, version):
    """user_version 0 (or any version older than the tables the file holds) would hide
    every game: the temporary stand-ins of the tables an older schema lacks would read
    in their place, and a new game would be written where nothing reads it."""
    db = played_db(tmp_path)
    set_version(db, version)
    before = files_of(tmp_path)
    capsys.readouterr()
    for command in COMMANDS:
        code = main([*command, "--db", str(db)])
        out, err = capsys.readouterr()
        assert code == 2, (command, code, out, err)
        assert "Traceback" not in err and err.count("\n") == 1, (command, err)
        assert f"{db} is damaged" in err and "schema" in err, (command, err)
    for create in (False, True):
        with pytest.raises(StoreError, match="is damaged"):
            GameStore(db, create=create)
    assert files_of(tmp_path) == before  # nothing written


def test_a_database_made_but_not_yet_laid_out_still_opens(tmp_path):
    """Version 0 with none of the companion's tables is a database made a moment ago
    (its schema waits for the first write): that one is not damaged."""
    db = tmp_path / "games.db"
    open_database(db, later=True).conn.close()  # closed before its schema was made
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 0
    assert conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0
    conn.close()
    with GameStore(db) as store:
        assert store.games() == []
        Session(store).start(GIVEN)
        assert [g["id"] for g in store.games()] == [1]


# ------------------------------------------------- V4: game numbers beyond 64 bits
GAME_COMMANDS = [
    ["abandon"],
    ["resume"],
    ["results"],
    ["report", "-o", "charts"],
    ["audit", "verify"],
    ["audit", "export"],
]


@pytest.mark.parametrize("game", [str(2**63), str(-(2**63) - 1), "9" * 40])
@pytest.mark.parametrize("command", GAME_COMMANDS)
def test_a_game_number_beyond_64_bits_is_one_line(tmp_path, capsys, monkeypatch, command, game):
    monkeypatch.chdir(tmp_path)
    db = played_db(tmp_path)
    before = files_of(tmp_path)
    capsys.readouterr()
    code = main([*command, "--db", str(db), "--game", game])
    out, err = capsys.readouterr()
    assert code == 2, (code, out, err)
    assert err == f"no game {game} in {db}\n", err
    assert files_of(tmp_path) == before
