"""One writer per game: the touchscreen and a command-line resume never append to the same
game at once; a crashed holder frees its game."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap

import pytest

from companion.session import Session
from companion.store import GameStore
from companion.store.lock import GameBusy

NEW = {"edition": "clank", "players": ["red", "blue"], "client_seed": "table"}


def cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "companion.cli", *args],
        capture_output=True,
        text=True,
        input=stdin,
        check=False,
        env={**os.environ, "LANG": "C.UTF-8"},
    )


def log_rows(path) -> int:
    with GameStore(path) as store:
        return store.db.execute("SELECT count(*) FROM log").fetchone()[0]


def test_a_second_writer_in_this_process_is_refused(tmp_path):
    path = tmp_path / "games.db"
    first = GameStore(path)
    table = Session(first).start(NEW)
    second = GameStore(path)
    with pytest.raises(GameBusy, match="game 1 is open in another program"):
        Session(second).resume(1)
    table.apply({"do": "clank", "player": "red", "n": 1})  # the holder writes on
    # a second game is no trouble
    other = Session(second).start(NEW)
    other.apply({"do": "clank", "player": "blue", "n": 1})
    want = table.snapshot()
    first.close()
    assert Session(second).resume(1).snapshot() == want
    second.close()


def test_a_cli_resume_while_the_app_holds_the_game_says_so(tmp_path):
    path = tmp_path / "games.db"
    store = GameStore(path)
    Session(store).start(NEW).apply({"do": "clank", "player": "red", "n": 1})
    before = log_rows(path)
    actions = tmp_path / "more.jsonl"
    actions.write_text(json.dumps({"do": "clank", "player": "blue", "n": 2}) + "\n")
    for extra in ([], ["--keep-going"]):
        result = cli("resume", "--db", str(path), "--game", "1", "--actions", str(actions), *extra)
        assert result.returncode == 2, result.stderr
        assert result.stderr.strip() == (
            "game 1 is open in another program (the touchscreen or another command): "
            "close it there first; nothing was written"
        )
        result = cli("abandon", "--db", str(path), "--game", "1")
        assert result.returncode == 2 and "open in another program" in result.stderr
    assert log_rows(path) == before
    store.close()
    result = cli("resume", "--db", str(path), "--game", "1", "--actions", str(actions))
    assert result.returncode == 0, result.stderr
    assert log_rows(path) == before + 1


HOLDER = textwrap.dedent(
    """
    import sys
    from companion.session import Session
    from companion.store import GameStore
    store = GameStore(sys.argv[1])
    Session(store).resume(1)
    print("holding", flush=True)
    sys.stdin.read()
    """
)


def test_a_killed_holder_frees_its_game(tmp_path):
    path = tmp_path / "games.db"
    with GameStore(path) as store:
        Session(store).start(NEW)
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stdout.readline() == "holding\n"
    with GameStore(path) as store, pytest.raises(GameBusy):
        Session(store).resume(1)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    for stream in (proc.stdin, proc.stdout):
        stream.close()
    with GameStore(path) as store:
        assert Session(store).resume(1).log is not None


def test_reading_takes_no_lock(tmp_path):
    path = tmp_path / "games.db"
    store = GameStore(path)
    Session(store).start(NEW)
    for args in (["games"], ["audit", "verify"], ["audit", "export", "--game", "1"]):
        result = cli(*args, "--db", str(path))
        # the audit of a running game: NOT YET (4), its seed still sealed
        assert result.returncode == (4 if args[:2] == ["audit", "verify"] else 0), result.stderr
    store.close()
