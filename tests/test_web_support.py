"""What the web companion's tests share: games recorded from the example scripts, a
simulated table that goes on playing in another process, the server run for real (a
process of its own on a free loopback port) or in this process (aiohttp's TestServer).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.script import read_lines, replay
from companion.session import Session
from companion.store import GameStore

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"
CLI = [sys.executable, "-m", "companion.cli"]


def script(name: str) -> list[tuple[int, str]]:
    return list(read_lines(EXAMPLES / name))


def record(db: Path, lines: list[tuple[int, str]]) -> dict[str, Any]:
    """The script's game recorded in ``db`` as the table records it (the store closed
    after, as a table that stops); the replay's ``--json`` output."""
    with GameStore(db) as store:
        result = replay(iter(lines), start=Session(store).start)
        return result.output()


def expected(lines: list[tuple[int, str]]) -> dict[str, Any]:
    """What ``replay --json`` prints for these lines (no database)."""
    return replay(iter(lines)).output()


TABLE_CHILD = """
import json, sys, time
from companion.session import Session
from companion.store import GameStore
db, game = sys.argv[1], int(sys.argv[2])
with GameStore(db) as store:
    table = Session(store).resume(game)
    print("ready", flush=True)
    for line in sys.stdin:
        if not line.strip():
            continue
        table.apply(json.loads(line))
        print(json.dumps({"committed": time.time()}), flush=True)
"""


class SimulatedTable:
    """The table's app in another process: it resumes the game (with its seal key) and
    applies each action it is given, committed to the log before it answers."""

    def __init__(self, db: Path, game: int) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", TABLE_CHILD, str(db), str(game)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=REPO,
        )
        assert self.proc.stdout is not None
        first = self.proc.stdout.readline()
        assert first.strip() == "ready", first + self._stderr()

    def _stderr(self) -> str:
        if self.proc.poll() is None:
            return ""
        assert self.proc.stderr is not None
        return self.proc.stderr.read()

    def apply(self, action: dict[str, Any]) -> float:
        """Apply ``action``; the time it was committed (time.time() in the child)."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(action) + "\n")
        self.proc.stdin.flush()
        answer = self.proc.stdout.readline()
        assert answer, self._stderr()
        return float(json.loads(answer)["committed"])

    def close(self) -> None:
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@dataclass
class Served:
    url: str  # the join URL
    base: str  # http://127.0.0.1:PORT
    token: str
    proc: subprocess.Popen[str]

    def stderr(self) -> str:
        return self._err

    _err: str = ""


# ``clank-companion`` with the box of the tests' own mounted (pebbles, a package under
# companion/kinds/ and its line in KINDS), and its variant without a phones part
WITH_PEBBLES = [
    sys.executable,
    "-c",
    "import sys; from companion.cli import main; "
    "from tests.kinds import mount, register_unshown; mount(); register_unshown(); "
    "sys.exit(main(sys.argv[1:]))",
]


@contextlib.contextmanager
def serving(
    db: Path, *extra: str, env: dict[str, str] | None = None, cli: list[str] = CLI
) -> Iterator[Served]:
    """``clank-companion serve --db DB --port 0`` in a process of its own (``cli``: the
    command); the join URL is its first line. Stopped with SIGTERM afterwards; its log
    must hold no traceback."""
    environ = {**os.environ, "CLANK_CONFIG": "", "XDG_CONFIG_HOME": str(db.parent / "cfg")}
    environ.update(env or {})
    proc = subprocess.Popen(
        [*cli, "serve", "--db", str(db), "--port", "0", *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
        env=environ,
    )
    assert proc.stdout is not None and proc.stderr is not None
    url = proc.stdout.readline().strip()
    if not url:
        proc.wait(timeout=10)
        raise AssertionError("serve did not start: " + proc.stderr.read())
    base, _, token = url.partition("/?t=")
    served = Served(url, base, token, proc)
    try:
        yield served
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            _out, err = proc.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            _out, err = proc.communicate()
        served._err = err
        assert "Traceback" not in err, err


def run_app(db: Path, check: Callable[[Any, str], Any], *, poll: float = 0.02) -> Any:
    """``check(client, token)`` against the application in this process (aiohttp's
    TestServer on a loopback port, TestClient), inside asyncio.run."""
    from aiohttp.test_utils import TestClient, TestServer

    from companion.web.access import load_token
    from companion.web.server import WebCompanion, make_app

    token = load_token(db)

    async def main() -> Any:
        companion = WebCompanion(db, token, poll=poll)
        async with TestClient(TestServer(make_app(companion))) as client:
            return await check(client, token)

    return asyncio.run(main())


def wait_for(condition: Callable[[], bool], timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("timed out")
        time.sleep(0.02)


def css_rules(css: str) -> dict[str, dict[str, str]]:
    """A style sheet's rules: each selector's declarations, by property (comments left
    out; a rule for several selectors is each one's)."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    rules: dict[str, dict[str, str]] = {}
    for selector, body in re.findall(r"([^{}]+)\{([^}]*)\}", css):
        for one in selector.split(","):
            found = rules.setdefault(one.strip(), {})
            for declaration in body.split(";"):
                if ":" in declaration:
                    name, value = declaration.split(":", 1)
                    found[name.strip()] = value.strip()
    return rules


def files_of(folder: Path) -> dict[str, bytes]:
    """Every file in ``folder`` with its bytes (what "nothing written" compares)."""
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}
