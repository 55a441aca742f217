"""The server notices a commit as the table writes it, not at its next poll: a stream
receives each new state in a small part of the poll's interval, and while nothing is
written the watcher looks no more often than its poll."""

from __future__ import annotations

import asyncio
import json
import statistics
import time

from companion.script import parse_line
from companion.web import server
from companion.web.notice import Writes
from tests.test_web_support import SimulatedTable, record, run_app, script

POLL = 1.0  # the watcher's poll in these tests: a commit seen only by it waits ~0.5 s


async def _next_state(stream) -> dict:
    while True:
        chunk = (await asyncio.wait_for(stream.content.readuntil(b"\n\n"), 10)).decode()
        if chunk.startswith("event: state"):
            return json.loads(chunk.split("data: ", 1)[1])


def test_a_commit_reaches_the_stream_long_before_the_poll(tmp_path):
    db = tmp_path / "games.db"
    lines = script("clank-2-players-short.jsonl")
    record(db, lines[:10])
    table = SimulatedTable(db, 1)

    async def check(client, token):
        loop = asyncio.get_running_loop()
        delays: list[float] = []
        async with client.get("/api/events", headers={"Authorization": f"Bearer {token}"}) as s:
            actions = (await _next_state(s))["state"]["actions"]
            for number, text in lines[10:20]:
                await asyncio.sleep(0.3)  # out of step with the poll
                committed = await loop.run_in_executor(None, table.apply, parse_line(number, text))
                actions += 1
                assert (await _next_state(s))["state"]["actions"] == actions
                delays.append(time.time() - committed)
        return delays

    try:
        delays = run_app(db, check, poll=POLL)
    finally:
        table.close()
    print("delays", [round(d, 3) for d in delays])
    # a commit waits for the poll: about POLL / 2 at the median; noticed: a few ms
    assert statistics.median(delays) < POLL / 4, delays


def test_an_idle_database_is_looked_at_no_more_often_than_the_poll(tmp_path, monkeypatch):
    db = tmp_path / "games.db"
    record(db, script("clank-2-players-short.jsonl")[:10])
    table = SimulatedTable(db, 1)  # the table's app has the database open, and waits
    looks: list[float] = []
    changed = server.WebCompanion._changed

    def counted(self):
        looks.append(time.monotonic())
        return changed(self)

    monkeypatch.setattr(server.WebCompanion, "_changed", counted)

    async def check(client, token):
        async with client.get("/api/events", headers={"Authorization": f"Bearer {token}"}) as s:
            await _next_state(s)
            await asyncio.sleep(0.5)  # the table's opening writes are behind
            start = len(looks)
            await asyncio.sleep(1.0)
            return len(looks) - start

    try:
        count = run_app(db, check, poll=0.1)
    finally:
        table.close()
    assert count <= 12, count  # ten a second, as before the writes were watched


def test_writes_to_the_database_files_wake_and_others_do_not(tmp_path):
    db = tmp_path / "games.db"

    async def main() -> list[str]:
        woken = asyncio.Event()
        seen: list[str] = []
        writes = Writes(db, woken.set)
        assert writes.start() is None
        try:
            for name in ("games.db.web-token", "other.db-wal", "games.db-wal", "games.db"):
                woken.clear()
                with open(tmp_path / name, "ab") as f:
                    f.write(b"x")
                try:
                    await asyncio.wait_for(woken.wait(), 0.5)
                    seen.append(name)
                except TimeoutError:
                    pass
        finally:
            writes.close()
        return seen

    assert asyncio.run(main()) == ["games.db-wal", "games.db"]
