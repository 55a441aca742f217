"""Bad input for the web companion, run for real: unknown paths, ``..`` and encoded
slashes, huge or malformed query strings and headers, a missing or damaged database, a
database being written at that very moment. Each gets a clear status code; no answer and
no line of the log holds a traceback; nothing is written."""

from __future__ import annotations

import socket
import sqlite3
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from companion.web.access import load_token
from tests.test_web_support import REPO, files_of, record, script, serving


def _raw(base: str, data: bytes) -> tuple[int, bytes]:
    """Send ``data`` as it is; the status and body of the answer (0: the server closed)."""
    host, port = base.removeprefix("http://").rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=10) as s:
        s.sendall(data)
        chunks = []
        while True:
            try:
                chunk = s.recv(65536)
            except (ConnectionResetError, TimeoutError):
                break
            if not chunk:
                break
            chunks.append(chunk)
            if b"\r\n\r\n" in b"".join(chunks) and b"Content-Length: 0" in b"".join(chunks):
                break
    answer = b"".join(chunks)
    if not answer:
        return 0, b""
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split(b" ")[1]), body


def _get(url: str, token: str | None = None, method: str = "GET") -> tuple[int, bytes]:
    request = urllib.request.Request(url, method=method)
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


@pytest.fixture
def served(tmp_path):
    db = tmp_path / "games.db"
    record(db, script("clank-2-players-short.jsonl")[:12])
    load_token(db)
    before = files_of(tmp_path)
    with serving(db) as running:
        yield running
    assert files_of(tmp_path) == before  # nothing written, no file made
    assert "Traceback" not in running.stderr()
    assert running.token not in running.stderr()  # the log never holds the token


def test_unknown_paths_dot_dot_and_encoded_slashes(served):
    for path in (
        "/nothing",
        "/api",
        "/api/",
        "/api/state/1",
        "/static/",
        "/static/nothing.js",
        "/static/../api/state",
        "/static/%2e%2e/%2e%2e/etc/passwd",
        "/static/..%2Fapp.js",
        "/static/app.js%2F",
        "/static/app.js%00",
        "/static/%2Fetc%2Fpasswd",
        "/%2e%2e/%2e%2e/etc/passwd",
        "/api%2Fstate",
        "/static/.hidden",
        "/static/index.html/..",
    ):
        status, body = _get(served.base + path, served.token)
        assert status in (400, 404), (path, status)
        assert b"Traceback" not in body and b"File " not in body, path
        # without the token: 403 and nothing, whatever the path
        assert _get(served.base + path) == (403, b""), path


MALFORMED = [
    "game=abc",
    "game=-1",
    "game=0",
    "game=1e3",
    "game=1.0",
    "game=%00",
    "game=%ff%fe",
    "game=" + "9" * 30,
    "game=1&game=2",
    "game=%20%31",
    "game=%D9%A1",  # a digit, but not an ASCII one
]


def test_malformed_game_numbers(served):
    for query in MALFORMED:
        for path in ("/api/state", "/api/proof", "/api/export", "/api/bgstats"):
            status, body = _get(f"{served.base}{path}?{query}", served.token)
            assert status == 400, (path, query, status)
            assert body == b"" and b"Traceback" not in body


def test_huge_query_strings_and_headers(served):
    huge = "x" * 3000
    assert _get(f"{served.base}/api/state?game=1&junk={huge}", served.token)[0] == 414
    assert _get(f"{served.base}/api/state?{huge}")[0] == 414
    # a request line beyond what the server reads at all
    token = served.token.encode()
    line = b"GET /?t=" + token + b"&" + b"a" * 20000 + b" HTTP/1.1\r\nHost: x\r\n\r\n"
    status, body = _raw(served.base, line)
    assert status in (0, 400, 414), status
    # one header too long, too many headers, a broken request line, bytes that are no text
    long_header = (
        b"GET /api/state HTTP/1.1\r\nHost: x\r\nX-Big: " + token + b"y" * 20000 + b"\r\n\r\n"
    )
    assert _raw(served.base, long_header)[0] in (0, 400, 431)
    many = b"GET /api/state HTTP/1.1\r\nHost: x\r\n" + b"".join(
        b"X-%d: 1\r\n" % i for i in range(500)
    )
    assert _raw(served.base, many + b"\r\n")[0] in (0, 400, 431)
    assert _raw(served.base, b"GARBAGE\r\n\r\n")[0] in (0, 400)
    assert _raw(served.base, b"GET /\xff\xfe HTTP/1.1\r\nHost: x\r\n\r\n")[0] in (0, 400, 403)
    bad_token = b"GET /api/state HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \xff\xfe\r\n\r\n"
    assert _raw(served.base, bad_token)[0] in (400, 403)
    # the server is still there, and right
    assert _get(served.base + "/api/state", served.token)[0] == 200


def test_other_methods(served):
    for method in ("POST", "PUT", "DELETE", "PATCH"):
        assert _get(served.base + "/api/state", served.token, method)[0] == 405
        assert _get(served.base + "/api/state", None, method) == (403, b"")


def test_a_missing_database_is_no_game_and_is_not_made(tmp_path):
    db = tmp_path / "folder" / "games.db"
    db.parent.mkdir()
    load_token(db)
    with serving(db) as running:
        status, body = _get(running.base + "/api/state", running.token)
        assert status == 404 and b'"no_game"' in body
        assert _get(running.base + "/api/proof", running.token)[0] == 404
        assert _get(running.base + "/api/proof?game=1", running.token)[0] == 404
    assert sorted(p.name for p in db.parent.iterdir()) == ["games.db.web-token"]


@pytest.mark.parametrize(
    "damage",
    ["garbage", "cut", "empty", "other"],
)
def test_a_damaged_database(tmp_path, damage):
    db = tmp_path / "games.db"
    record(db, script("clank-2-players-short.jsonl")[:12])
    data = db.read_bytes()
    if damage == "garbage":
        db.write_bytes(b"this is not a database at all" * 100)
    elif damage == "cut":
        db.write_bytes(data[: len(data) // 3])
    elif damage == "empty":
        db.write_bytes(b"")
    else:  # another program's database
        db.unlink()
        conn = sqlite3.connect(db)
        conn.execute("CREATE TABLE t (x)")
        conn.commit()
        conn.close()
    load_token(db)
    before = files_of(tmp_path)
    with serving(db) as running:
        status, body = _get(running.base + "/api/state", running.token)
        assert status in (404, 503), (damage, status)
        assert b"Traceback" not in body
        for path in ("/api/state?game=1", "/api/proof?game=1", "/api/export?game=1"):
            status, body = _get(running.base + path, running.token)
            assert status in (404, 503), (damage, path, status)
        # the page itself is served all the same
        assert _get(running.base + "/", running.token)[0] == 200
    assert files_of(tmp_path) == before


WRITER = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN IMMEDIATE")
conn.execute("INSERT INTO games (created_at, edition, players, commitment, sealed_seed)"
             " VALUES ('x', 'clank', '[]', '', '')")
print("writing", flush=True)
sys.stdin.readline()  # the transaction stays open until the test has read
conn.execute("ROLLBACK")
"""


def test_a_database_being_written_at_that_moment(tmp_path):
    """A write held open by the table (its transaction not yet committed) neither blocks
    nor confuses the phones: they see the last committed state at once."""
    db = tmp_path / "games.db"
    lines = script("clank-2-players-short.jsonl")
    record(db, lines[:12])
    with serving(db) as running:
        writer = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(db)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=REPO,
        )
        assert writer.stdout is not None and writer.stdout.readline().strip() == "writing"
        try:
            for path in ("/api/state", "/api/state?game=1", "/api/words"):
                # answered while the write is still open: the writer waits for us
                status, body = _get(running.base + path, running.token)
                assert status == 200, (path, status, body)
                assert b'"game":2' not in body
            assert writer.poll() is None  # the write was open during every read
        finally:
            assert writer.stdin is not None
            writer.stdin.write("done\n")
            writer.stdin.close()
            writer.wait(timeout=30)


def test_a_burst_beside_a_table_that_commits(tmp_path):
    """Requests all the while the table commits: every answer a whole state, in order."""
    from companion.script import parse_line
    from tests.test_web_support import SimulatedTable

    db = tmp_path / "games.db"
    lines = script("clank-2-players-short.jsonl")
    record(db, lines[:10])
    table = SimulatedTable(db, 1)
    seen: list[int] = []
    problems: list[str] = []
    with serving(db) as running:
        stop = threading.Event()

        def ask() -> None:
            import json

            while not stop.is_set():
                status, body = _get(running.base + "/api/state", running.token)
                if status != 200:
                    problems.append(f"{status} {body[:80]!r}")
                    continue
                seen.append(json.loads(body)["state"]["actions"])

        askers = [threading.Thread(target=ask) for _ in range(3)]
        for a in askers:
            a.start()
        try:
            for number, text in lines[10:30]:
                table.apply(parse_line(number, text))
        finally:
            stop.set()
            for a in askers:
                a.join()
            table.close()
    assert not problems
    assert seen and min(seen) >= 9 and max(seen) <= 29


def test_a_token_file_that_is_damaged_stops_the_start(tmp_path):
    db = tmp_path / "games.db"
    Path(str(db) + ".web-token").write_text("short\n")
    result = subprocess.run(
        [sys.executable, "-m", "companion.cli", "serve", "--db", str(db), "--port", "0"],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=30,
        env={"PATH": "/usr/bin:/bin", "CLANK_CONFIG": "", "HOME": str(tmp_path)},
    )
    assert result.returncode == 2
    assert result.stdout == ""
    assert "damaged" in result.stderr and "Traceback" not in result.stderr
