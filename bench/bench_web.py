"""The phones' page under load, on loopback only, bounded in count and time. Each part
runs ``clank-companion serve`` in a process of its own, under the unit's file limit
(``LimitNOFILE=4096``); ``python bench/bench_web.py [notice] [load] [shared]
[slowloris]`` runs the parts named (all four without a name).

``notice``: six phones keep their streams beside a table that plays. Prints the
server's CPU (user and system, from /proc) over 20 s with no commit, then, for 60 commits
at irregular intervals, the time from each commit (in the table's process) to each of the
six phones receiving the new state: p50, p99 and worst of the 360.

``load``: beside a table that plays. A long running game (four players, odds and all),
60 event streams open, then 500 requests for the state 50 at a time while the table (a
process of its own) commits actions. Prints:

- the server's memory (resident set, from /proc) alone and with the 60 streams open;
- the time the burst of 500 requests took, and its p50 and p99 per request;
- the time from each commit to the last of the 60 phones having it;
- the table's commit latency alone and during the load (the table must not slow down).

``shared``: one phone asks for an ended game 2,000 times at once (its state, then its
export), as a reload storm would. Prints each burst's time and the server's memory
before, at its peak and after: the unit's cap is ``MemoryMax=256M``.

``slowloris``: a stranger without the token from 80 addresses holds 2,560 sockets (more
than the server keeps: 2,048), each sending a head of 15 kB that never ends, opened
again whenever the server closes it, while six phones keep their streams and one asks
for the state every 0.1 s on a fresh connection. Prints the phone's p50, p99 and worst,
the server's peak memory and descriptors, and its log's lines.

The phones and the stranger each come from addresses of their own (127.0.0.x): the
server holds at most 32 connections from one address.

Targets on the reference machine (a Pi 4): commit to six phones at p99 within 60 ms, the
idle server under 0.6 % of a core; under 100 MB with 60 streams; the burst
under 5 s; every commit on every phone within 0.5 s; the table's p99 unchanged within
a few milliseconds; 2,000 requests at once well under 256 MB; the phone's worst under
1 s during the slowloris, its descriptors below the limit.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import resource
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
SHARED = 2000  # requests at once for one ended game
STRANGER_ADDRESSES = 80
STRANGER_EACH = 32
STRANGER_HEAD = 15 * 1024  # bytes of head each stranger's socket sends at once
SLOWLORIS_SECONDS = 6.0
FILE_LIMIT = 4096  # the unit's LimitNOFILE
MEMORY_CAP_MB = 256  # the unit's MemoryMax
DEADLINE = 120.0  # seconds: each part, whatever happens
NOTICE_PHONES = 6
NOTICE_COMMITS = 60
IDLE_SECONDS = 20.0

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
        took, at = time.perf_counter() - t0, time.time()
        print(json.dumps({"took": took, "at": at, "actions": table.actions_seen}), flush=True)
"""

# The stranger in a process of its own: from each address, socket after socket, a head
# that never ends (STRANGER_HEAD bytes at once, then a line every 0.3 s), opened again
# whenever the server closes it. Prints how many it opened.
STRANGER = r"""
import asyncio, json, resource, sys
port, addresses, each, head_bytes = (int(a) for a in sys.argv[1:5])
seconds = float(sys.argv[5])
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 16384), hard))
seen = {"opened": 0, "failed": 0}
HEAD = b"GET /api/state HTTP/1.1\r\nHost: x\r\n"
HEAD += b"".join(b"X-%d: %s\r\n" % (i, b"y" * 1000) for i in range(head_bytes // 1010))

async def one(address, stop):
    while not stop.is_set():
        try:
            reader, writer = await asyncio.open_connection(
                "127.0.0.1", port, local_addr=(address, 0))
        except OSError:
            seen["failed"] += 1
            await asyncio.sleep(0.05)
            continue
        seen["opened"] += 1
        try:
            writer.write(HEAD)
            while not stop.is_set():
                try:
                    if not await asyncio.wait_for(reader.read(65536), 0.3):
                        break
                except asyncio.TimeoutError:
                    writer.write(b"X-Slow: 1\r\n")
        except ConnectionError:
            pass
        writer.close()

async def main():
    stop = asyncio.Event()
    tasks = [asyncio.ensure_future(one(f"127.0.1.{1 + i % addresses}", stop))
             for i in range(addresses * each)]
    await asyncio.sleep(seconds)
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    print(json.dumps(seen), flush=True)

asyncio.run(main())
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
        self.committed_at = 0.0  # time.time() in the table's process, after its last commit

    def _line(self) -> str:
        assert self.proc.stdout is not None
        return self.proc.stdout.readline()

    def apply(self, action: dict) -> float:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(action) + "\n")
        self.proc.stdin.flush()
        answer = json.loads(self._line())
        self.actions_seen = answer["actions"]
        self.committed_at = float(answer["at"])
        return float(answer["took"])

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


class Served:
    """``clank-companion serve`` in a process of its own, under the unit's file limit."""

    def __init__(self, db: Path, folder: Path) -> None:
        env = {**os.environ, "CLANK_CONFIG": "", "XDG_CONFIG_HOME": str(folder)}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "companion.cli", "serve", "--db", str(db), "--port", "0"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            env=env,
            preexec_fn=_unit_file_limit,
        )
        assert self.proc.stdout is not None
        url = self.proc.stdout.readline().strip()
        self.base, _, self.token = url.partition("/?t=")
        assert self.base.startswith("http://127.0.0.1:"), url  # loopback only
        self.port = int(self.base.rsplit(":", 1)[1])
        self.pid = self.proc.pid
        self.log = ""

    def stop(self) -> None:
        self.proc.terminate()
        try:
            _out, self.log = self.proc.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            _out, self.log = self.proc.communicate()


def _unit_file_limit() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (FILE_LIMIT, FILE_LIMIT))


def memory_mb(pid: int, field: str = "VmRSS") -> float:
    """The process's resident set now (VmRSS), or at its peak so far (VmHWM), in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def rss_mb(pid: int) -> float:
    return memory_mb(pid)


def p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def clients_from(count: int, subnet: str, **kwargs: object) -> list[aiohttp.ClientSession]:
    """``count`` clients, each from an address of its own (``subnet`` + 1, 2, ...)."""
    timeout = aiohttp.ClientTimeout(total=DEADLINE)
    return [
        aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=0, local_addr=(f"{subnet}.{1 + i}", 0)),
            timeout=timeout,
            **kwargs,  # type: ignore[arg-type]
        )
        for i in range(count)
    ]


async def next_state(response: aiohttp.ClientResponse) -> bytes:
    while True:
        chunk = await response.content.readuntil(b"\n\n")
        if chunk.startswith(b"event: state"):
            return chunk


# ------------------------------------------------------------------ notice
def cpu_seconds(pid: int) -> float:
    """The process's CPU time so far, user and system (/proc/PID/stat), in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def notice(base: str, token: str, table: Table, actions: list[dict], pid: int) -> None:
    auth = {"Authorization": f"Bearer {token}"}
    phones = clients_from(NOTICE_PHONES, "127.0.7")
    seen: list[list[tuple[int, float]]] = [[] for _ in phones]  # (actions, time.time())
    changed = asyncio.Event()

    async def read(i: int, response: aiohttp.ClientResponse) -> None:
        while True:
            chunk = await next_state(response)
            at = time.time()
            seen[i].append((json.loads(chunk.split(b"data: ", 1)[1])["state"]["actions"], at))
            changed.set()

    try:
        streams = [await phone.get(base + "/api/events", headers=auth) for phone in phones]
        readers = [asyncio.ensure_future(read(i, r)) for i, r in enumerate(streams)]
        while not all(seen):
            changed.clear()
            await changed.wait()

        cpu0, wall0 = cpu_seconds(pid), time.monotonic()
        await asyncio.sleep(IDLE_SECONDS)
        idle = (cpu_seconds(pid) - cpu0) / (time.monotonic() - wall0) * 100
        print(
            f"server CPU with {NOTICE_PHONES} streams open and no commit for"
            f" {IDLE_SECONDS:.0f} s: {idle:.2f} % of a core"
        )

        loop = asyncio.get_running_loop()
        pause = random.Random(11)
        delays: list[float] = []
        cpu0, wall0 = cpu_seconds(pid), time.monotonic()
        for action in actions:
            await asyncio.sleep(pause.uniform(0.08, 0.3))  # out of step with any poll
            await loop.run_in_executor(None, table.apply, action)
            target, at = table.actions_seen, table.committed_at
            while not all(s and s[-1][0] >= target for s in seen):
                changed.clear()
                await asyncio.wait_for(changed.wait(), 10)
            for states in seen:
                first = next(t for n, t in states if n >= target)
                delays.append((first - at) * 1000)
        busy = (cpu_seconds(pid) - cpu0) / (time.monotonic() - wall0) * 100
        for reader in readers:
            reader.cancel()
        for r in streams:
            r.close()
    finally:
        for phone in phones:
            await phone.close()
    print(
        f"commit to each of {NOTICE_PHONES} phones ({len(delays)} arrivals, {len(actions)}"
        f" commits): p50 {statistics.median(delays):.1f} ms, p99 {p(delays, 0.99):.1f} ms,"
        f" worst {max(delays):.1f} ms; server CPU meanwhile {busy:.1f} % of a core"
    )


def part_notice(folder: Path) -> None:
    print(f"== notice: {NOTICE_PHONES} phones' streams, the server idle, then commits")
    db = folder / "notice.db"
    actions = long_game(rounds=20)
    store = GameStore(db)
    playing = Session(store).start({"edition": "clank", "players": PLAYERS})
    for action in actions[:-NOTICE_COMMITS]:
        playing.apply(action)
    store.close()
    table = Table(db)  # the table's app has the database open all along
    served = Served(db, folder)
    try:
        time.sleep(0.5)
        asyncio.run(
            asyncio.wait_for(
                notice(served.base, served.token, table, actions[-NOTICE_COMMITS:], served.pid),
                DEADLINE,
            )
        )
        table.close()
    finally:
        served.stop()


# ------------------------------------------------------------------ load
async def load(base: str, token: str, table, actions, pid: int) -> None:
    auth = {"Authorization": f"Bearer {token}"}
    loop = asyncio.get_running_loop()
    phones = clients_from(STREAMS, "127.0.2")  # one phone an address, as at a table
    askers = clients_from(AT_ONCE // 10, "127.0.3")
    try:
        streams = [await phone.get(base + "/api/events", headers=auth) for phone in phones]
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

        async def ask(client: aiohttp.ClientSession, n: int) -> None:
            for _ in range(n):
                t0 = time.perf_counter()
                async with client.get(base + "/api/state", headers=auth) as response:
                    await response.read()
                    assert response.status == 200
                per_request.append(time.perf_counter() - t0)

        readers = [asyncio.ensure_future(read(i, r)) for i, r in enumerate(streams)]
        committing = asyncio.ensure_future(commit())
        t0 = time.perf_counter()
        await asyncio.gather(
            *(ask(askers[i % len(askers)], REQUESTS // AT_ONCE) for i in range(AT_ONCE))
        )
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
    finally:
        for client in phones + askers:
            await client.close()


def part_load(folder: Path) -> None:
    print("== load: 60 streams and a burst of 500 requests beside a table that plays")
    db = folder / "load.db"
    actions = long_game(rounds=20)
    store = GameStore(db)
    playing = Session(store).start({"edition": "clank", "players": PLAYERS})
    for action in actions[:-COMMITS]:
        playing.apply(action)
    alone: list[float] = []
    print(f"game: {playing.actions_seen} actions, 4 players, running (odds on every change)")
    store.close()
    table = Table(db)
    table.apply({"do": "gold", "player": PLAYERS[0], "n": 1})  # warm
    for _ in range(COMMITS):
        alone.append(table.apply({"do": "gold", "player": PLAYERS[0], "n": 1}))
    print(
        f"the table's commits alone: p50 {statistics.median(alone) * 1000:.2f} ms, "
        f"p99 {p(alone, 0.99) * 1000:.2f} ms"
    )
    served = Served(db, folder)
    try:
        time.sleep(0.5)
        print(f"server memory, no stream open: {rss_mb(served.pid):.1f} MB")
        asyncio.run(
            asyncio.wait_for(
                load(served.base, served.token, table, actions[-COMMITS:], served.pid), DEADLINE
            )
        )
        table.close()
    finally:
        served.stop()


# ------------------------------------------------------------------ shared
async def burst(base: str, token: str, path: str, count: int) -> tuple[float, set[int], int]:
    """``count`` requests for ``path`` at once, 20 from each address: the time they
    took, their statuses and the size of one body."""
    auth = {"Authorization": f"Bearer {token}"}
    clients = clients_from(count // 20, "127.0.4")
    sizes: list[int] = []

    async def one(i: int) -> int:
        async with clients[i % len(clients)].get(base + path, headers=auth) as response:
            sizes.append(len(await response.read()))
            return response.status

    try:
        t0 = time.perf_counter()
        statuses = await asyncio.gather(*(one(i) for i in range(count)))
        took = time.perf_counter() - t0
    finally:
        for client in clients:
            await client.close()
    return took, set(statuses), max(sizes)


def part_shared(folder: Path) -> None:
    print(f"== shared: {SHARED} requests at once for an ended game (MemoryMax {MEMORY_CAP_MB} MB)")
    db = folder / "shared.db"
    store = GameStore(db)
    ended = Session(store).start({"edition": "clank", "players": PLAYERS})
    for action in long_game(rounds=40):
        ended.apply(action)
    ended.abandon("the benchmark")
    Session(store).start({"edition": "clank", "players": PLAYERS[:2]})  # the newest, running
    store.close()
    served = Served(db, folder)
    try:
        time.sleep(0.5)
        print(f"server memory before: {rss_mb(served.pid):.1f} MB")
        for path in ("/api/state?game=1", "/api/export?game=1"):
            took, statuses, size = asyncio.run(
                asyncio.wait_for(burst(served.base, served.token, path, SHARED), DEADLINE)
            )
            time.sleep(0.5)
            print(
                f"{SHARED} x GET {path} ({size / 1024:.0f} kB each): statuses {sorted(statuses)}"
                f" in {took:.2f} s; server memory peak {memory_mb(served.pid, 'VmHWM'):.1f} MB,"
                f" after {rss_mb(served.pid):.1f} MB"
            )
    finally:
        served.stop()


# ------------------------------------------------------------------ slowloris
async def phone_during(base: str, token: str, seconds: float) -> tuple[list[float], list[int], int]:
    """Six phones keep their streams; one asks for the state every 0.1 s on a fresh
    connection (as a phone that wakes up): the time each answer took, its status (0:
    none within 10 s), and how many of the six streams opened and stayed open."""
    auth = {"Authorization": f"Bearer {token}"}
    timeout = aiohttp.ClientTimeout(total=10)
    phones = clients_from(6, "127.0.5")
    took: list[float] = []
    statuses: list[int] = []
    streams = []
    try:
        for phone in phones:
            with contextlib.suppress(aiohttp.ClientError, TimeoutError):
                streams.append(await phone.get(base + "/api/events", headers=auth, timeout=timeout))
        end = time.monotonic() + seconds
        i = 0
        while time.monotonic() < end:
            t0 = time.perf_counter()
            address = f"127.0.6.{1 + i % 200}"
            i += 1
            try:
                connector = aiohttp.TCPConnector(local_addr=(address, 0))
                async with (
                    aiohttp.ClientSession(connector=connector, timeout=timeout) as fresh,
                    fresh.get(base + "/api/state", headers=auth) as response,
                ):
                    await response.read()
                    statuses.append(response.status)
            except (aiohttp.ClientError, TimeoutError):
                statuses.append(0)
            took.append(time.perf_counter() - t0)
            await asyncio.sleep(0.1)
        kept = sum(not stream.content.at_eof() for stream in streams)
        for stream in streams:
            stream.close()
    finally:
        for phone in phones:
            await phone.close()
    return took, statuses, kept


def part_slowloris(folder: Path) -> None:
    sockets = STRANGER_ADDRESSES * STRANGER_EACH
    print(
        f"== slowloris: {sockets} sockets from {STRANGER_ADDRESSES} addresses, heads of"
        f" {STRANGER_HEAD // 1024} kB that never end, no token; file limit {FILE_LIMIT}"
    )
    db = folder / "slow.db"
    store = GameStore(db)
    table = Session(store).start({"edition": "clank", "players": PLAYERS})
    for action in long_game(rounds=5):
        table.apply(action)
    store.close()
    served = Served(db, folder)
    try:
        time.sleep(0.5)
        before = rss_mb(served.pid)
        counts = (served.port, STRANGER_ADDRESSES, STRANGER_EACH, STRANGER_HEAD)
        stranger = subprocess.Popen(
            [sys.executable, "-c", STRANGER, *map(str, counts), str(SLOWLORIS_SECONDS)],
            stdout=subprocess.PIPE,
            text=True,
        )
        fds: list[int] = []
        time.sleep(1.5)  # every socket opened
        for _ in range(5):
            fds.append(len(os.listdir(f"/proc/{served.pid}/fd")))
            time.sleep(0.05)
        took, statuses, kept = asyncio.run(
            phone_during(served.base, served.token, SLOWLORIS_SECONDS - 2.5)
        )
        fds.append(len(os.listdir(f"/proc/{served.pid}/fd")))
        peak = memory_mb(served.pid, "VmHWM")
        seen = json.loads(stranger.communicate(timeout=60)[0])
    finally:
        served.stop()
    ms = [x * 1000 for x in took]
    print(
        f"the stranger opened {seen['opened']} sockets ({seen['failed']} failed to connect)"
        f" in {SLOWLORIS_SECONDS:.0f} s"
    )
    print(
        f"the phone, a fresh connection every 0.1 s: {len(ms)} asked, statuses"
        f" {sorted(set(statuses))}; p50 {statistics.median(ms):.1f} ms, p99 {p(ms, 0.99):.1f}"
        f" ms, worst {max(ms):.1f} ms; the six phones' streams: {kept} open all along"
    )
    print(
        f"server: memory {before:.1f} MB before, peak {peak:.1f} MB; descriptors at most"
        f" {max(fds)} of {FILE_LIMIT}"
    )
    lines = served.log.splitlines()
    print(f"server log: {len(lines)} lines, {served.log.count('Traceback')} tracebacks")
    for line in lines:
        print("   ", line)


PARTS = {
    "notice": part_notice,
    "load": part_load,
    "shared": part_shared,
    "slowloris": part_slowloris,
}


def main() -> None:
    names = sys.argv[1:] or list(PARTS)
    unknown = [n for n in names if n not in PARTS]
    if unknown:
        raise SystemExit(f"no part {unknown[0]!r}: {', '.join(PARTS)}")
    folder = Path(tempfile.mkdtemp(prefix="bench-web-", dir=ROOT))
    try:
        for name in names:
            PARTS[name](folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
