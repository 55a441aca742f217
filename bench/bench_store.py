"""The durable game log: commit latency per action, and how fast a log is verified.

Prints the latency of committing one action (WAL, synchronous=FULL: each commit is on
the storage device before the action is shown), p50 and p99, and the verification
throughput of `audit verify` (chain, seed, every draw recomputed, the whole game replayed
through the rules) in records and events per second.

Targets on the reference machine: p99 at most 10 ms per committed action; at least
20,000 events verified per second. The database is written in a folder on the same disk
as this checkout (not a RAM disk), which is where the Pi keeps its database too.
"""

from __future__ import annotations

import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.long_game import PLAYERS, long_game  # noqa: E402
from companion.audit.check import verify_store  # noqa: E402
from companion.session import Session  # noqa: E402
from companion.store import GameStore  # noqa: E402


def main() -> None:
    folder = Path(tempfile.mkdtemp(prefix="bench-store-", dir=ROOT))
    try:
        store = GameStore(folder / "games.db")
        actions = long_game(rounds=60)
        latencies: list[float] = []
        games = 3
        for _ in range(games):
            table = Session(store).start({"edition": "clank", "players": PLAYERS})
            for action in actions:
                t0 = time.perf_counter()
                table.apply(action)  # returns after the commit
                latencies.append(time.perf_counter() - t0)
        ms = sorted(t * 1000 for t in latencies)
        print(f"committed actions: {len(ms)} in {games} games")
        print(
            f"commit latency per action: p50 {statistics.median(ms):.2f} ms, "
            f"p99 {ms[int(len(ms) * 0.99) - 1]:.2f} ms, worst {ms[-1]:.2f} ms"
        )
        records = events = 0
        for row in store.db.execute("SELECT body FROM log WHERE kind = 'action'"):
            events += row[0].count('"event":')
        records = store.db.execute("SELECT count(*) FROM log").fetchone()[0]
        t0 = time.perf_counter()
        results = verify_store(store)
        elapsed = time.perf_counter() - t0
        assert all(r.ok for r in results)
        print(
            f"verify: {records} records holding {events} events in {elapsed:.2f} s: "
            f"{records / elapsed:,.0f} records/s, {events / elapsed:,.0f} events/s "
            "(chain, seal, draws, full replay)"
        )
        store.close()
    finally:
        shutil.rmtree(folder)


if __name__ == "__main__":
    main()
