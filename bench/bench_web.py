"""The phones' page under load, beside a table that plays: sixty open event streams and
a burst of 500 requests, on loopback only, bounded in count and time.

Runs ``clank-companion serve`` in a process of its own on a long running game (four
players, odds and all), opens 60 event streams, then sends 500 requests for the state
50 at a time while the table (this process) commits actions. Prints:

- the server's memory (resident set, from /proc) alone and with the 60 streams open;
- the time the burst of 500 requests took, and its p50 and p99 per request;
- the time from each commit to the last of the 60 phones having it;
- the table's commit latency alone and during the load (the table must not slow down).

Targets on the reference machine (a Pi 4): under 100 MB with 60 streams; the burst
under 5 s; every commit on every phone within 0.5 s; the table's p99 unchanged within
a few milliseconds.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import aiohttp  # noqa: E402

from bench.long_game import PLAYERS, long_game  # noqa: E402
from companion.session import Session  # noqa: E402
from companion.store import GameStore  # noqa: E402

STREAMS = 60
REQUESTS = 500
AT_ONCE = 50
COMMITS = 20
DEADLINE = 120.0  # seconds: the whole bench, whatever happens

# The table in a process of its own, as on the Pi: it times its own commits.
TABLE = """
import json, sys, time
from companion.session import Session
from companion.store import GameStore
with GameStore(sys.argv[1]) as store:
    table = Session(store).resume(int(sys.argv[2]))
    print(json.dumps({"actions": table.actions_seen}), flush=True)
    for line in sys.stdin:
        t0 = time.perf_counter()
        table.apply(json.loads(line))
        took = time.perf_counter() - t0
        print(json.dumps({"took": took, "actions": table.actions_seen}), flush=True)
"""


class Table:
    def __init__(self, db: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", TABLE, str(db), "1"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        self.actions_seen = json.loads(self._line())["actions"]

    def _line(self) -> str:
        assert self.proc.stdout is not None
        return self.proc.stdout.readline()

    def apply(self, action: dict) -> float:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(action) + "\n")
        self.proc.stdin.flush()
        answer = json.loads(self._line())
        self.actions_seen = answer["actions"]
        return float(answer["took"])

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


async def next_state(response: aiohttp.ClientResponse) -> bytes:
    while True:
        chunk = await response.content.readuntil(b"\n\n")
        if chunk.startswith(b"event: state"):
            return chunk


async def load(base: str, token: str, table, actions, pid: int) -> None:
    auth = {"Authorization": f"Bearer {token}"}
    connector = aiohttp.TCPConnector(limit=STREAMS + AT_ONCE + 10)
    timeout = aiohttp.ClientTimeout(total=DEADLINE)
    loop = asyncio.get_running_loop()
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
        streams = [await session.get(base + "/api/events", headers=auth) for _ in range(STREAMS)]
        await asyncio.gather(*(next_state(r) for r in streams))
        print(f"server memory with {STREAMS} streams open: {rss_mb(pid):.1f} MB")

        # the table commits while the burst goes on; each commit reaches every stream (two
        # commits close together may reach a phone as one state: it shows the newest)
        latest = [0] * STREAMS
        changed = asyncio.Event()
        delays: list[float] = []
        commits: list[float] = []

        async def read(i: int, response: aiohttp.ClientResponse) -> None:
            while True:
                chunk = await next_state(response)
                latest[i] = json.loads(chunk.split(b"data: ", 1)[1])["state"]["actions"]
                changed.set()

        async def commit() -> None:
            for action in actions:
                await asyncio.sleep(0.15)
                commits.append(await loop.run_in_executor(None, table.apply, action))
                done = time.perf_counter()
                target = table.actions_seen
                while min(latest) < target:
                    changed.clear()
                    await changed.wait()
                delays.append((time.perf_counter() - done) * 1000)

        per_request: list[float] = []

        async def ask(n: int) -> None:
            for _ in range(n):
                t0 = time.perf_counter()
                async with session.get(base + "/api/state", headers=auth) as response:
                    await response.read()
                    assert response.status == 200
                per_request.append(time.perf_counter() - t0)

        readers = [asyncio.ensure_future(read(i, r)) for i, r in enumerate(streams)]
        committing = asyncio.ensure_future(commit())
        t0 = time.perf_counter()
        await asyncio.gather(*(ask(REQUESTS // AT_ONCE) for _ in range(AT_ONCE)))
        burst = time.perf_counter() - t0
        await asyncio.wait_for(committing, DEADLINE)
        for reader in readers:
            reader.cancel()
        ms = [x * 1000 for x in per_request]
        print(
            f"burst of {len(per_request)} requests ({AT_ONCE} at a time): {burst:.2f} s, "
            f"p50 {statistics.median(ms):.1f} ms, p99 {p(ms, 0.99):.1f} ms per request"
        )
        print(
            f"commit to all {STREAMS} phones: p50 {statistics.median(delays):.0f} ms, "
            f"worst {max(delays):.0f} ms ({len(delays)} commits)"
        )
        print(
            f"the table's commits during the load: p50 {statistics.median(commits) * 1000:.2f} "
            f"ms, p99 {p(commits, 0.99) * 1000:.2f} ms"
        )
        print(f"server memory after the burst: {rss_mb(pid):.1f} MB")
        for r in streams:
            r.close()


def main() -> None:
    folder = Path(tempfile.mkdtemp(prefix="bench-web-", dir=ROOT))
    proc = None
    try:
        db = folder / "games.db"
        actions = long_game(rounds=20)
        store = GameStore(db)
        table = Session(store).start({"edition": "clank", "players": PLAYERS})
        for action in actions[:-COMMITS]:
            table.apply(action)
        alone = []
        print(f"game: {table.actions_seen} actions, 4 players, running (odds on every change)")
        store.close()
        table = Table(db)
        table.apply({"do": "gold", "player": PLAYERS[0], "n": 1})  # warm
        for _ in range(COMMITS):
            alone.append(table.apply({"do": "gold", "player": PLAYERS[0], "n": 1}))
        print(
            f"the table's commits alone: p50 {statistics.median(alone) * 1000:.2f} ms, "
            f"p99 {p(alone, 0.99) * 1000:.2f} ms"
        )
        env = {**os.environ, "CLANK_CONFIG": "", "XDG_CONFIG_HOME": str(folder)}
        proc = subprocess.Popen(
            [sys.executable, "-m", "companion.cli", "serve", "--db", str(db), "--port", "0"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            cwd=ROOT,
            env=env,
        )
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        base, _, token = url.partition("/?t=")
        assert base.startswith("http://127.0.0.1:"), url  # loopback only
        time.sleep(0.5)
        print(f"server memory, no stream open: {rss_mb(proc.pid):.1f} MB")
        asyncio.run(
            asyncio.wait_for(load(base, token, table, actions[-COMMITS:], proc.pid), DEADLINE)
        )
        table.close()
    finally:
        if proc is not None:
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
