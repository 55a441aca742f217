"""What a hostile tester hands the command line: each gets one line on stderr, naming
what is wrong and where, exit status 2, no traceback, and nothing written (no file, no
``.part`` left behind, no change to the database)."""

from __future__ import annotations

import errno
import io
import json
import os
import sqlite3
import stat
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

    monkeypatch.setattr("companion.cli.games.cmd_abandon", explode)
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


# ---------------------------------------------------------------- export targets
EXPORTS = [["audit", "export", "--game", "1"], ["tags", "export"]]


def _special(table: Path, kind: str) -> Path:
    """A target an export must not replace, made in the test's own folder."""
    if kind == "fifo":
        path = table / "pipe"
        os.mkfifo(path)
    elif kind == "symlink":
        (table / "elsewhere.txt").write_text("keep me\n", encoding="utf-8")
        path = table / "link.txt"
        path.symlink_to(table / "elsewhere.txt")
    elif kind == "hardlink":
        path = table / "same-as-db"
        os.link(table / "games.db", path)
    else:  # the database or one of its files: made if SQLite has not made it yet
        path = table / kind
        if not path.exists():
            path.write_bytes(b"")
    return path


def _fingerprint(path: Path) -> tuple[int, bytes]:
    """What a file is and holds (a link: where it points; a FIFO: nothing, unopened)."""
    mode = os.lstat(path).st_mode
    if stat.S_ISLNK(mode):
        return mode, os.fsencode(os.readlink(path))
    return mode, path.read_bytes() if stat.S_ISREG(mode) else b""


@pytest.mark.parametrize("command", EXPORTS)
@pytest.mark.parametrize(
    ("kind", "reason"),
    [
        ("games.db", "it is the game database or one of its files"),
        ("games.db.key", "it is the game database or one of its files"),
        ("games.db-wal", "it is the game database or one of its files"),
        ("games.db-shm", "it is the game database or one of its files"),
        ("games.db.lock", "it is the game database or one of its files"),
        ("hardlink", "it is the game database or one of its files"),
        ("symlink", "it is not a regular file"),
        ("fifo", "it is not a regular file"),
    ],
)
def test_an_export_never_replaces_the_database_its_files_or_a_special_file(
    table, capsys, command, kind, reason
):
    target = _special(table, kind)
    before_target = _fingerprint(target)
    before = written(table)
    capsys.readouterr()
    code = main([*command, "--db", str(table / "games.db"), "-o", str(target)])
    out, err = capsys.readouterr()
    refused(code, out, err, f"cannot write {target}: {reason}")
    if kind.endswith(("-wal", "-shm")):  # SQLite's own: it may tidy them away on closing
        assert not target.exists() or b"uid,kind" not in target.read_bytes()
    else:
        assert _fingerprint(target) == before_target
    assert written(table) == before
    assert not list(table.glob(".export-*"))


@pytest.mark.parametrize("command", EXPORTS)
@pytest.mark.parametrize("length", [250, 255])
def test_an_export_to_a_long_name_is_written_through_a_short_temporary_file(
    table, capsys, command, length
):
    """The temporary file is named .export-PID.part, so any name the folder takes works
    (255 bytes: the longest a Linux file system names)."""
    target = table / ("x" * length)
    capsys.readouterr()
    assert main([*command, "--db", str(table / "games.db"), "-o", str(target)]) == 0
    assert target.read_text(encoding="utf-8")
    assert not list(table.glob(".export-*"))


@pytest.mark.parametrize("command", EXPORTS)
def test_an_export_to_a_name_too_long_is_one_line(table, capsys, command):
    target = table / ("x" * 300)
    before = written(table)
    capsys.readouterr()
    code = main([*command, "--db", str(table / "games.db"), "-o", str(target)])
    out, err = capsys.readouterr()
    refused(code, out, err, f"cannot write {target}: File name too long")
    assert written(table) == before


# ---------------------------------------------------------------- reading creates nothing
@pytest.mark.parametrize(
    "command",
    [
        ["games"],
        ["audit", "verify"],
        ["audit", "export", "--game", "1"],
        ["audit", "export", "--game", "1", "-o", "{dir}/out.jsonl"],
        ["tags", "list"],
        ["tags", "export"],
        ["tags", "export", "-o", "{dir}/out.csv"],
        ["resume", "--game", "1"],
        ["abandon", "--game", "1"],
    ],
)
def test_a_command_on_a_missing_database_refuses_and_creates_nothing(tmp_path, capsys, command):
    db = tmp_path / "missing" / "games.db"
    code = main([a.format(dir=tmp_path) for a in command] + ["--db", str(db)])
    out, err = capsys.readouterr()
    refused(code, out, err, f"no game database at {db}")
    assert list(tmp_path.iterdir()) == []


def test_scan_on_a_missing_database_creates_none(tmp_path, capsys, monkeypatch):
    """Checking a reader's wiring needs no database: every tag is unknown, none is made."""
    monkeypatch.setattr("companion.cli.tags._run_reader", lambda *a, **k: 0)
    monkeypatch.setenv("CLANK_CONFIG", "")
    db = tmp_path / "games.db"
    assert main(["scan", "--reader", "fake", "--db", str(db)]) == 0
    assert f"no game database at {db}" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_audit_verify_of_a_game_that_is_not_there(table, capsys):
    capsys.readouterr()
    code = main(["audit", "verify", "--db", str(table / "games.db"), "--game", "42"])
    out, err = capsys.readouterr()
    refused(code, out, err, f"no game 42 in {table / 'games.db'}")
    assert "FAILED" not in out


# ---------------------------------------------------------------- standard output
@pytest.mark.parametrize(
    "command",
    [
        ["replay", "-v", "{dir}/game.jsonl"],
        ["replay", "--json", "{dir}/game.jsonl"],
        ["audit", "export", "--game", "1", "--db", "{dir}/games.db"],
        ["tags", "export", "--db", "{dir}/games.db"],
        ["games", "--db", "{dir}/games.db"],
    ],
)
def test_a_closed_pipe_ends_the_command_quietly(table, command):
    """`... | head -1`: the reader went away; no traceback, the shell's 141."""
    read_end, write_end = os.pipe()
    os.close(read_end)  # closed before the first write: every write meets a broken pipe
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LANG": "C.UTF-8"}
    env.pop("CLANK_DB", None)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "companion.cli", *(a.format(dir=table) for a in command)],
            stdout=write_end,
            stderr=subprocess.PIPE,
            env=env,
            cwd=ROOT,
            timeout=120,
            check=False,
        )
    finally:
        os.close(write_end)
    err = done.stderr.decode("utf-8", "backslashreplace")
    assert done.returncode == 141, err
    assert err == "" or "Traceback" not in err and "recorded as" not in err, err


def test_the_demo_stopped_by_a_closed_pipe_is_abandoned(tmp_path):
    read_end, write_end = os.pipe()
    os.close(read_end)
    db = tmp_path / "demo.db"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LANG": "C.UTF-8", "CLANK_DB": str(db)}
    env.pop("PYTHONUNBUFFERED", None)  # the first write is the first action's flush
    try:
        done = subprocess.run(
            [sys.executable, "-m", "companion.cli", "demo"],
            stdout=write_end,
            stderr=subprocess.PIPE,
            env=env,
            cwd=ROOT,
            timeout=120,
            check=False,
        )
    finally:
        os.close(write_end)
    assert done.returncode == 141 and b"Traceback" not in done.stderr, done.stderr
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("SELECT status FROM games").fetchall() == [("abandoned",)]
    finally:
        conn.close()


class FullDisk:
    """Standard output on a full disk."""

    def write(self, text: str) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def flush(self) -> None:
        pass


@pytest.mark.parametrize(
    "command",
    [
        ["games", "--db", "{dir}/games.db"],
        ["tags", "export", "--db", "{dir}/games.db"],
        ["audit", "export", "--game", "1", "--db", "{dir}/games.db"],
        ["replay", "{dir}/game.jsonl"],
    ],
)
def test_standard_output_on_a_full_disk_is_one_line(table, capsys, monkeypatch, command):
    capsys.readouterr()
    monkeypatch.setattr("sys.stdout", FullDisk())
    code = main([a.format(dir=table) for a in command])
    err = capsys.readouterr().err
    refused(code, "", err, "cannot write to standard output: No space left on device")


def _interrupted(argv: list[str]) -> int:
    try:
        return main(argv)
    except KeyboardInterrupt:
        pytest.fail("Ctrl-C came out of main() as a traceback")


def test_ctrl_c_in_any_command_says_interrupted(table, capsys, monkeypatch):
    def ctrl_c(args):
        raise KeyboardInterrupt

    monkeypatch.setattr("companion.cli.games.cmd_games", ctrl_c)
    capsys.readouterr()
    assert _interrupted(["games", "--db", str(table / "games.db")]) == 130
    out, err = capsys.readouterr()
    assert err == "interrupted\n" and out == ""


def test_ctrl_c_during_the_demo_abandons_its_game(tmp_path, capsys, monkeypatch):
    """The half-played demo must not stay "playing" and become resume's default."""
    db = tmp_path / "demo.db"
    sleeps = []

    def sleep(seconds: float) -> None:
        sleeps.append(seconds)
        if len(sleeps) == 3:
            raise KeyboardInterrupt

    monkeypatch.setattr("companion.cli.games.time.sleep", sleep)
    assert _interrupted(["demo", "--delay", "0.01", "--db", str(db)]) == 130
    assert capsys.readouterr().err.endswith("interrupted\n")
    assert main(["games", "--db", str(db), "--json"]) == 0
    (game,) = json.loads(capsys.readouterr().out)
    assert game["status"] == "abandoned" and game["actions"] == 3
    assert main(["resume", "--db", str(db)]) == 2
    assert "no unfinished game" in capsys.readouterr().err


# ---------------------------------------------------------------- --delay
@pytest.mark.parametrize("value", ["-1", "-0.5", "nan", "inf", "-inf", "1e400", "11", "soon"])
@pytest.mark.parametrize("command", [["demo"], ["replay", "-v", "{dir}/game.jsonl"]])
def test_a_delay_that_is_not_0_to_10_seconds_is_refused(table, capsys, monkeypatch, command, value):
    monkeypatch.setattr("companion.cli.games.time.sleep", lambda seconds: None)  # never waits
    before = written(table)
    argv = [a.format(dir=table) for a in command] + [f"--delay={value}"]
    with pytest.raises(SystemExit) as stopped:
        main([*argv, "--db", str(table / "other.db")])
    assert stopped.value.code == 2
    assert "argument --delay: expected seconds from 0 to 10" in capsys.readouterr().err
    assert written(table) == before


@pytest.mark.parametrize("value", ["0", "0.0", "10"])
def test_a_delay_from_0_to_10_seconds_is_taken(table, capsys, monkeypatch, value):
    waited = []
    monkeypatch.setattr("companion.cli.games.time.sleep", waited.append)
    assert main(["replay", "-v", str(table / "game.jsonl"), f"--delay={value}"]) == 0
    assert waited == ([float(value)] if float(value) else [])


# ---------------------------------------------------------------- huge inputs
MIB = 1024 * 1024


def _big_script(path: Path, size: int, first: str = NEW_LINE) -> Path:
    """A script of ``size`` bytes: a first line, then comments (harmless but many)."""
    comment = b"# " + b"." * 1000 + b"\n"
    with path.open("wb") as f:
        f.write(first.encode() + b"\n")
        left = size - len(first) - 1
        f.write(comment * (left // len(comment)))
        f.write(b"#" * (left % len(comment)))
    assert path.stat().st_size == size
    return path


def test_a_script_larger_than_16_mib_is_refused_unread(tmp_path, capsys):
    script = _big_script(tmp_path / "big.jsonl", 16 * MIB + 1)
    code = main(["replay", str(script), "--db", str(tmp_path / "games.db")])
    out, err = capsys.readouterr()
    refused(code, out, err, f"{script} is larger than 16 MiB")
    assert not (tmp_path / "games.db").exists()


def test_a_script_of_16_mib_is_read(tmp_path, capsys):
    script = _big_script(tmp_path / "big.jsonl", 16 * MIB)
    assert main(["replay", str(script), "--json"]) == 0


def test_more_actions_larger_than_16_mib_are_refused(table, capsys):
    actions = _big_script(table / "more.jsonl", 16 * MIB + 1, first=CLANK)
    before = written(table)
    capsys.readouterr()
    code = main(["resume", "--db", str(table / "games.db"), "--actions", str(actions)])
    out, err = capsys.readouterr()
    refused(code, out, err, f"{actions} is larger than 16 MiB")
    assert written(table) == before


@pytest.mark.parametrize("comment", [True, False])
def test_a_line_over_1_mib_is_refused(tmp_path, capsys, comment):
    line = "#" + "x" * MIB if comment else '{"do": "clank", "x": "' + "x" * MIB + '"}'
    script = tmp_path / "long.jsonl"
    script.write_text(f"{NEW_LINE}\n{line}\n{CLANK}\n", encoding="utf-8")
    code = main(["replay", str(script)])
    out, err = capsys.readouterr()
    refused(code, out, err, "line 2: longer than 1 MiB")


def test_a_line_over_1_mib_on_standard_input_is_refused_unread(table, capsys, monkeypatch):
    class Endless(io.RawIOBase):
        """Standard input that never ends a line (as /dev/zero): read as asked, no more."""

        read_so_far = 0

        def readable(self) -> bool:
            return True

        def readinto(self, buffer) -> int:
            self.read_so_far += len(buffer)
            assert self.read_so_far < 4 * MIB, "read far beyond the line limit"
            buffer[:] = b"x" * len(buffer)
            return len(buffer)

    stdin = io.TextIOWrapper(io.BufferedReader(Endless()), encoding="utf-8")
    monkeypatch.setattr("sys.stdin", stdin)
    before = written(table)
    capsys.readouterr()
    code = main(["resume", "--db", str(table / "games.db"), "--actions", "-"])
    out, err = capsys.readouterr()
    refused(code, out, err, "line 1: longer than 1 MiB")
    assert written(table) == before


def test_a_tag_set_larger_than_16_mib_is_refused_unread(table, capsys):
    shared = table / "big.csv"
    with shared.open("wb") as f:
        f.write(TAGS.encode())
        f.write(b"05060708,card,clank,Ruby\n" * (16 * MIB // 25 + 1))
    before = written(table)
    capsys.readouterr()
    code = main(["tags", "import", str(shared), "--db", str(table / "games.db")])
    out, err = capsys.readouterr()
    refused(code, out, err, f"{shared} is larger than 16 MiB")
    assert written(table) == before


def test_a_tag_set_line_over_1_mib_is_refused(table, capsys):
    shared = table / "long.csv"
    shared.write_text(TAGS + "05060708,card,clank,Ruby" + "," * MIB + "\n", encoding="utf-8")
    before = written(table)
    capsys.readouterr()
    code = main(["tags", "import", str(shared), "--db", str(table / "games.db")])
    out, err = capsys.readouterr()
    refused(code, out, err, f"{shared}: line 3: longer than 1 MiB")
    assert written(table) == before


@pytest.mark.parametrize(
    ("uid", "reason"),
    [
        ("0" * 34, "line 2: a tag UID of 34 hexadecimal digits; a tag has at most 32"),
        ("0" * 200, "line 2: a tag UID of 200 hexadecimal digits; a tag has at most 32"),
    ],
)
def test_a_tag_uid_longer_than_32_digits_is_refused(table, capsys, uid, reason):
    shared = table / "long-uid.csv"
    shared.write_text(f"uid,kind,edition,name\n{uid},card,clank,Ruby\n", encoding="utf-8")
    before = written(table)
    capsys.readouterr()
    code = main(["tags", "import", str(shared), "--db", str(table / "games.db")])
    out, err = capsys.readouterr()
    refused(code, out, err, f"{shared}: {reason}")
    assert written(table) == before


@pytest.mark.parametrize("start", ["0", "-3", "1000", "10000000"])
def test_enroll_refuses_a_start_beyond_the_components_at_once(tmp_path, capsys, monkeypatch, start):
    monkeypatch.setattr("companion.cli.tags._run_reader", lambda *a, **k: 0)
    monkeypatch.setenv("CLANK_CONFIG", "")
    db = tmp_path / "games.db"
    argv = ["tags", "enroll", "--edition", "clank", "--kind", "special", "--db", str(db)]
    code = main([*argv, f"--start={start}"])
    out, err = capsys.readouterr()
    refused(code, out, err, "--start must be from 1 to 7 (the components to enroll)")
    assert not db.exists()


def test_enroll_starts_at_the_position_asked_for(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("companion.cli.tags._run_reader", lambda *a, **k: 0)
    monkeypatch.setenv("CLANK_CONFIG", "")
    db = tmp_path / "games.db"
    argv = ["tags", "enroll", "--edition", "clank", "--kind", "special", "--db", str(db)]
    assert main([*argv, "--start", "7"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("7 of 7: scan ") and "continue with --start 7" in err


LONG_SEED = "s" * 1001


@pytest.mark.parametrize(
    ("lines", "reason"),
    [
        (
            [json.dumps({"new": {**NEW["new"], "client_seed": LONG_SEED}})],
            'line 1: "client_seed" is 1001 characters long: at most 1000 are allowed',
        ),
        (
            [NEW_LINE, json.dumps({"do": "seed", "client_seed": LONG_SEED})],
            'line 2: "client_seed" is 1001 characters long: at most 1000 are allowed',
        ),
    ],
)
def test_a_client_seed_over_1000_characters_is_refused(tmp_path, capsys, lines, reason):
    script = tmp_path / "game.jsonl"
    script.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code = main(["replay", str(script), "--db", str(tmp_path / "games.db")])
    out, err = capsys.readouterr()
    refused(code, out, err, reason)
    if len(lines) == 1:
        assert not (tmp_path / "games.db").exists()


def test_a_client_seed_of_1000_characters_is_taken(tmp_path, capsys):
    script = tmp_path / "game.jsonl"
    new = {"new": {**NEW["new"], "client_seed": "s" * 1000}}
    seed = json.dumps({"do": "seed", "client_seed": "t" * 1000})
    script.write_text(f"{json.dumps(new)}\n{seed}\n", encoding="utf-8")
    assert main(["replay", str(script), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["client_seed"] == "t" * 1000
