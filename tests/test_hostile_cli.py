"""What a hostile tester hands the command line: each gets one line on stderr, naming
what is wrong and where, exit status 2, no traceback, and nothing written (no file, no
``.part`` left behind, no change to the database)."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from companion.cli import main

ROOT = Path(__file__).resolve().parent.parent
SEED = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
NEW = {"new": {"edition": "clank", "players": ["red", "blue"], "server_seed": SEED}}
NEW_LINE = json.dumps(NEW)
CLANK = '{"do": "clank", "player": "red", "n": 1}'
DEEP = "[" * 1000 + "]" * 1000
BIG = '{"do": "rage", "n": ' + "1" * 5000 + "}"
TWICE = '{"do": "clank", "player": "red", "n": 1, "n": 2}'
SURROGATE = '{"do": "secret", "player": "red", "name": "\\udcff"}'
NEW_TWICE = '{"new": {"edition": "clank", "players": ["red", "blue"], "edition": "catacombs"}}'
TAGS = "uid,kind,edition,name\n01020304,card,clank,Ruby\n"


def cli(*args: str | bytes | Path, stdin: bytes = b"") -> tuple[int, str, str]:
    """The real command, as a separate process running this checkout's code."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LANG": "C.UTF-8"}
    env.pop("CLANK_DB", None)
    done = subprocess.run(
        [sys.executable, "-m", "companion.cli", *map(os.fsencode, args)],
        input=stdin,
        capture_output=True,
        env=env,
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    return (
        done.returncode,
        done.stdout.decode("utf-8", "backslashreplace"),
        done.stderr.decode("utf-8", "backslashreplace"),
    )


def refused(code: int, out: str, err: str, *starts: str) -> None:
    """Exit 2 and one line on stderr (after resume's own notice, if any)."""
    assert code == 2, (code, out, err)
    assert "Traceback" not in err, err
    lines = err.splitlines()
    if lines and lines[0].startswith("resumed game "):
        lines = lines[1:]
    assert len(lines) == 1 and err.endswith("\n"), err
    assert lines[0].startswith(starts), err


def written(folder: Path) -> dict[str, object]:
    """What is in a folder: the files (SQLite's own side files aside) and, for each
    database, its games, log and tags."""
    files = sorted(
        os.fsencode(p.relative_to(folder))
        for p in folder.rglob("*")
        if not p.name.endswith(("-wal", "-shm", "-journal", ".lock"))
    )
    tables: dict[str, object] = {}
    for db in sorted(folder.rglob("*.db")):
        conn = sqlite3.connect(db)
        try:
            tables[db.name] = [
                conn.execute(f"SELECT * FROM {t} ORDER BY 1").fetchall()
                for t in ("games", "log", "tags")
            ]
        finally:
            conn.close()
    return {"files": files, "tables": tables}


@pytest.fixture
def table(tmp_path) -> Path:
    """A folder with a database holding one game (one action played) and one tag."""
    script = tmp_path / "game.jsonl"
    script.write_text(f"{NEW_LINE}\n{CLANK}\n", encoding="utf-8")
    assert main(["replay", str(script), "--db", str(tmp_path / "games.db")]) == 0
    tags = tmp_path / "tags.csv"
    tags.write_text(TAGS, encoding="utf-8")
    assert main(["tags", "import", str(tags), "--db", str(tmp_path / "games.db")]) == 0
    return tmp_path


# ---------------------------------------------------------------- table-script lines
@pytest.mark.parametrize(
    ("line", "reason"),
    [
        (DEEP, "line 1: nested more than 32 levels deep"),
        (BIG, "line 1: the number 111111111111111111111... is too large"),
        (NEW_TWICE, 'line 1: the key "edition" appears twice in one object'),
        (SURROGATE, "line 1: \\udcff is half of a surrogate pair, not a character"),
    ],
)
def test_replay_refuses_a_hostile_first_line_and_writes_nothing(tmp_path, line, reason):
    script = tmp_path / "game.jsonl"
    script.write_text(line + "\n", encoding="utf-8")
    before = written(tmp_path)
    refused(*cli("replay", script, "--db", tmp_path / "games.db"), reason)
    assert written(tmp_path) == before  # not even an empty database


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        (DEEP, "line 2: nested more than 32 levels deep"),
        (BIG, "line 2: the number 111111111111111111111... is too large"),
        (TWICE, 'line 2: the key "n" appears twice in one object'),
        (SURROGATE, "line 2: \\udcff is half of a surrogate pair, not a character"),
        ('{"do": "rage", "n": NaN}', "line 2: NaN is not a JSON number"),
        ('{"do": "rage", "n": 1e400}', "line 2: the number 1e400 is too large"),
    ],
)
def test_resume_refuses_hostile_actions_and_the_log_is_unchanged(table, line, reason):
    actions = table / "more.jsonl"
    actions.write_text(f"# more\n{line}\n{CLANK}\n", encoding="utf-8")
    before = written(table)
    refused(*cli("resume", "--db", table / "games.db", "--actions", actions), reason)
    assert written(table) == before


def test_keep_going_lists_a_duplicate_key_and_goes_on(tmp_path):
    script = tmp_path / "game.jsonl"
    script.write_text(f"{NEW_LINE}\n{TWICE}\n{DEEP}\n{BIG}\n{CLANK}\n", encoding="utf-8")
    code, out, err = cli("replay", script, "--json", "--keep-going")
    assert code == 0, err
    state = json.loads(out)
    assert state["errors"] == [
        {"line": 2, "reason": 'the key "n" appears twice in one object'},
        {"line": 3, "reason": "nested more than 32 levels deep"},
        {"line": 4, "reason": "the number 111111111111111111111... is too large"},
    ]
    assert state["clank_area"]["red"] == 4  # 3 at set-up, then line 5's clank
    assert len(err.splitlines()) == 3 and "Traceback" not in err


def test_resume_from_standard_input_that_is_not_utf8(table):
    before = written(table)
    code, out, err = cli(
        "resume", "--db", table / "games.db", "--actions", "-", stdin=b'{"do": "at\xfftack"}\n'
    )
    refused(code, out, err, "line 1: not UTF-8 text")
    assert written(table) == before


@pytest.mark.parametrize("name", ["missing.jsonl", "."])
def test_resume_actions_naming_a_missing_file_or_a_folder(table, name):
    before = written(table)
    path = table / name
    reason = "cannot read " + str(path)
    refused(*cli("resume", "--db", table / "games.db", "--actions", path), reason)
    assert written(table) == before


# ---------------------------------------------------------------- paths
BAD_NAME = os.fsdecode(b"x\xff")  # what Python makes of a file name that is not UTF-8


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        (["games", "--db", "{bad}.db"], "--db: "),
        (["replay", "{dir}/game.jsonl", "--db", "{bad}.db"], "--db: "),
        (["replay", "{bad}.jsonl"], "file: "),
        (["resume", "--db", "{dir}/games.db", "--actions", "{bad}.jsonl"], "--actions: "),
        (["audit", "export", "--db", "{dir}/games.db", "--game", "1", "-o", "{bad}"], "-o: "),
        (["tags", "export", "--db", "{dir}/games.db", "-o", "{bad}.csv"], "-o: "),
        (["tags", "import", "{bad}.csv", "--db", "{dir}/games.db"], "file: "),
        (["backup", "--db", "{dir}/games.db", "--to", "{bad}"], "--to: "),
    ],
)
def test_a_path_that_is_not_utf8_is_named(table, args, reason):
    (table / f"{BAD_NAME}.jsonl").write_text(f"{NEW_LINE}\n", encoding="utf-8")
    (table / f"{BAD_NAME}.csv").write_text(TAGS, encoding="utf-8")
    before = written(table)
    argv = [a.format(bad=table / BAD_NAME, dir=table) for a in args]
    code, out, err = cli(*argv)
    refused(code, out, err, reason)
    assert "x\\udcff" in err and "is not a usable path" in err
    assert written(table) == before


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["games", "--db", "{dir}/x\ud800.db"], "--db"),
        (["replay", "{dir}/game.jsonl", "--db", "{dir}/x\udcff.db"], "--db"),
        (["replay", "{dir}/x\ud800.jsonl"], "file"),
        (["tags", "import", "{dir}/x\ud800.csv", "--db", "{dir}/games.db"], "file"),
        (["tags", "export", "-o", "{dir}/x\ud800.csv", "--db", "{dir}/games.db"], "-o"),
        (["audit", "export", "--game", "1", "-o", "{dir}/x\udcff", "--db", "{dir}/games.db"], "-o"),
        (["resume", "--db", "{dir}/games.db", "--actions", "{dir}/x\ud800.jsonl"], "--actions"),
        (["abandon", "--db", "{dir}/games.db", "--game", "1", "--reason", "x\ud800"], "--reason"),
    ],
)
def test_lone_surrogates_in_arguments_in_process(table, capsys, argv, named):
    """Strings no file name decodes to (\\ud800) as well: only main() can be given them."""
    capsys.readouterr()
    before = written(table)
    code = main([a.format(dir=table) for a in argv])
    out, err = capsys.readouterr()
    refused(code, out, err, f"{named}: ")
    assert "is not" in err and written(table) == before


def test_a_unicode_error_anywhere_is_one_line(table, capsys, monkeypatch):
    """The last guard in main(): a UnicodeError from deeper down names the argument."""

    def explode(args):
        raise UnicodeEncodeError("utf-8", args.reason, 0, 1, "surrogates not allowed")

    monkeypatch.setattr("companion.cli.cmd_abandon", explode)
    code = main(["abandon", "--db", str(table / "games.db"), "--game", "1"])
    out, err = capsys.readouterr()
    refused(code, out, err, "--reason: abandoned at the table is not")


# ---------------------------------------------------------------- output files
@pytest.mark.parametrize("command", [["audit", "export", "--game", "1"], ["tags", "export"]])
@pytest.mark.parametrize(
    ("target", "reason"),
    [
        ("missing/x.out", "cannot write {dir}/missing/x.out: there is no folder"),
        (".", "cannot write {dir}: it is a folder"),
    ],
)
def test_output_into_a_missing_folder_or_onto_a_folder(table, command, target, reason):
    before = written(table)
    output = os.path.normpath(table / target)
    code, out, err = cli(*command, "--db", table / "games.db", "-o", output)
    refused(code, out, err, reason.format(dir=table))
    assert written(table) == before  # no .part, no file


def test_an_export_that_fails_leaves_no_part_file(table):
    before = written(table)
    code, out, err = cli(
        "audit", "export", "--db", table / "games.db", "--game", "9", "-o", table / "g9.jsonl"
    )
    refused(code, out, err, "no game 9")
    assert written(table) == before


# ---------------------------------------------------------------- tag sets
@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (
            b"uid,kind,edition,name\n05060708,card,clank," + b"x" * 131_073 + b"\n",
            "line 2: not readable as CSV (field larger than field limit (131072))",
        ),
        (b"uid,kind,edition,name\n05060708,card,clank,Ruby\xff\n", "line 2: not UTF-8 text"),
        (b"uid,kind,edition,name\n05060708,card,clank,Ru\0by\n", "line 2: a NUL character"),
        (b"x" * 131_073 + b"\n05060708,card,clank,Ruby\n", "line 1: not readable as CSV"),
    ],
)
def test_a_hostile_tag_set_imports_nothing(table, data, reason):
    shared = table / "hostile.csv"
    shared.write_bytes(data)
    before = written(table)
    code, out, err = cli("tags", "import", shared, "--db", table / "games.db")
    refused(code, out, err, f"{shared}: {reason}")
    assert err.rstrip().endswith("; nothing was imported")
    assert written(table) == before
