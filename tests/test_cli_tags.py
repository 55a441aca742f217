"""`clank-companion tags ...` and `scan` with a keyboard-wedge reader on a pipe."""

from __future__ import annotations

import json
import os
import selectors
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from companion.cli import main
from hardware.readers import Scan


def test_tags_import_list_export(tmp_path, capsys):
    db = str(tmp_path / "games.db")
    shared = tmp_path / "tags.csv"
    shared.write_text(
        "uid,kind,edition,name\n04a224b2c35e80,card,clank,Kobold\n0A0B0C0D,badge,,red\n",
        encoding="utf-8",
    )
    assert main(["tags", "import", str(shared), "--db", db]) == 0
    assert "2 tags imported" in capsys.readouterr().out
    assert main(["tags", "list", "--db", db, "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert {t["uid"] for t in listed} == {"04A224B2C35E80", "0A0B0C0D"}
    out = tmp_path / "back.csv"
    assert main(["tags", "export", "-o", str(out), "--db", db]) == 0
    assert out.read_text().splitlines()[1:] == [
        "0A0B0C0D,badge,,red",
        "04A224B2C35E80,card,clank,Kobold",
    ]
    bad = tmp_path / "bad.csv"
    bad.write_text("uid,kind,edition,name\n01020304,card,clank,Nope\n", encoding="utf-8")
    assert main(["tags", "import", str(bad), "--db", db]) == 2
    assert "line 2: no card 'Nope'" in capsys.readouterr().err


def run_with_stdin(
    args: list[str], lines: bytes, wait_for: int, config: str, timeout: float = 20
) -> str:
    """Run the CLI with a keyboard reader on a pipe; stop it once `wait_for` lines came
    (or the time is up: the assertions then show what did come)."""
    child = subprocess.Popen(
        [sys.executable, "-m", "companion", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "CLANK_CONFIG": config},
    )
    assert child.stdin is not None and child.stdout is not None and child.stderr is not None
    # the reader says when it is up: lines written before then would arrive in one burst,
    # inside the debounce window, however slowly the machine started the program
    # (read from the pipe itself: a buffered readline could hold the "connected" line
    # in its buffer while the selector waits for bytes that already came)
    ready = time.monotonic() + timeout
    said = b""
    with selectors.DefaultSelector() as sel:
        sel.register(child.stderr, selectors.EVENT_READ)
        while time.monotonic() < ready and sel.select(timeout=ready - time.monotonic()):
            chunk = os.read(child.stderr.fileno(), 4096)
            said += chunk
            if b": connected" in said or not chunk:
                break
    for line in lines.splitlines(keepends=True):
        child.stdin.write(line)
        child.stdin.flush()
        time.sleep(0.4)  # each tag taken away before the next, beyond the debounce window
    out = b""
    deadline = time.monotonic() + timeout
    with selectors.DefaultSelector() as sel:
        sel.register(child.stdout, selectors.EVENT_READ)
        while out.count(b"\n") < wait_for and time.monotonic() < deadline:
            if sel.select(timeout=0.2):
                chunk = os.read(child.stdout.fileno(), 4096)
                if not chunk:
                    break
                out += chunk
    child.send_signal(signal.SIGTERM)
    child.communicate(timeout=10)
    return out.decode()


@pytest.fixture
def quick_debounce(tmp_path) -> str:
    path = tmp_path / "config.toml"
    path.write_text("[reader]\ngone_after = 0.1\nwindow = 0.2\n")
    return str(path)


def test_scan_prints_known_and_unknown_tags(tmp_path, quick_debounce):
    db = str(tmp_path / "games.db")
    shared = tmp_path / "tags.csv"
    shared.write_text("uid,kind,edition,name\n01020304,minor_secret,clank,dragon egg\n")
    assert main(["tags", "import", str(shared), "--db", db]) == 0
    # taken away and put back after the (short) window: a second scan; noise: nothing
    out = run_with_stdin(
        ["scan", "--reader", "wedge:-", "--db", db],
        b"01020304\nnot a tag\n01020304\nAABBCCDDEEFF00\n",
        wait_for=3,
        config=quick_debounce,
    )
    assert out.splitlines() == [
        "01020304  minor secret dragon egg (Clank!)",
        "01020304  minor secret dragon egg (Clank!)",
        "AABBCCDDEEFF00  unknown tag",
    ]


def test_bulk_enrollment_from_the_command_line(tmp_path, capsys, quick_debounce):
    db = str(tmp_path / "games.db")
    out = run_with_stdin(
        [
            "tags",
            "enroll",
            "--edition",
            "clank",
            "--kind",
            "special",
            "--reader",
            "wedge:-",
            "--db",
            db,
        ],
        b"11111111\n22222222\n11111111\n33333333\n",
        wait_for=8,
        config=quick_debounce,
    )
    lines = out.splitlines()
    assert lines[0] == "1 of 7: scan token monkey idol (Clank!)"
    assert "  11111111 is token monkey idol (Clank!)" in lines
    assert any("just enrolled" in line for line in lines)
    assert main(["tags", "list", "--db", db]) == 0
    assert capsys.readouterr().out.count("monkey idol") == 3


def _damaged_db(tmp_path) -> str:
    db = tmp_path / "games.db"
    shared = tmp_path / "tags.csv"
    shared.write_text("uid,kind,edition,name\n01020304,card,clank,Kobold\n", encoding="utf-8")
    assert main(["tags", "import", str(shared), "--db", str(db)]) == 0
    conn = sqlite3.connect(db)
    with conn:
        conn.executemany(
            "INSERT INTO tags (uid, kind, edition, name, enrolled_at) VALUES (?, ?, ?, ?, '')",
            [("AA01", "weird", "clank", "Kobold"), (b"\xaa\x02", "card", "clank", "Kobold")],
        )
    conn.close()
    return str(db)


def test_tags_list_and_export_skip_rows_edited_into_nonsense(tmp_path, capsys):
    db = _damaged_db(tmp_path)
    capsys.readouterr()
    assert main(["tags", "list", "--db", db]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines() == ["01020304              card Kobold (Clank!)"]
    warnings = [line for line in err.splitlines() if line.startswith("skipped tag")]
    assert sorted(warnings) == [
        "skipped tag AA01: its row in the registry is damaged (edited by hand?)",
        "skipped tag x'AA02': its row in the registry is damaged (edited by hand?)",
    ]
    assert main(["tags", "list", "--db", db, "--json"]) == 0
    assert [t["uid"] for t in json.loads(capsys.readouterr().out)] == ["01020304"]
    assert main(["tags", "export", "--db", db]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines() == ["uid,kind,edition,name", "01020304,card,clank,Kobold"]
    assert err.count("skipped tag") == 2
    target = tmp_path / "back.csv"
    assert main(["tags", "export", "--db", db, "-o", str(target)]) == 0
    assert target.read_text(encoding="utf-8").splitlines()[1:] == ["01020304,card,clank,Kobold"]
    assert "1 tag written" in capsys.readouterr().err


def test_scan_treats_a_damaged_row_as_an_unknown_tag(tmp_path, capsys, monkeypatch):
    db = _damaged_db(tmp_path)
    monkeypatch.setenv("CLANK_CONFIG", "")

    def reader(spec, on_scan, **kwargs):
        for uid in ("AA01", "01020304"):
            on_scan(Scan(uid=uid, reader="fake", at=0.0))
        return 0

    monkeypatch.setattr("companion.cli.tags._run_reader", reader)
    capsys.readouterr()
    assert main(["scan", "--reader", "fake", "--db", db]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "AA01  unknown tag",
        "01020304  card Kobold (Clank!)",
    ]
