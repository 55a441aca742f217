"""The web companion run for real (``clank-companion serve`` in a process of its own)
beside a table that plays in another process: every commit reaches an open event
stream within half a second, the first line is the join URL, and the table is never
slowed or touched."""

from __future__ import annotations

import asyncio
import json
import time

import aiohttp

from companion.script import parse_line
from tests.test_web_support import SimulatedTable, expected, record, script, serving

LIMIT = 0.5  # seconds from the table's commit to the phone's page


async def _next_state(response: aiohttp.ClientResponse) -> dict:
    while True:
        chunk = (await response.content.readuntil(b"\n\n")).decode()
        if chunk.startswith("event: state"):
            return json.loads(chunk.split("data: ", 1)[1])


def test_the_first_line_is_the_join_url_with_its_token(tmp_path):
    db = tmp_path / "games.db"
    record(db, script("clank-2-players-short.jsonl")[:5])
    with serving(db) as served:
        assert served.url.startswith("http://127.0.0.1:")
        assert len(served.token) == 43
        token_file = tmp_path / "games.db.web-token"
        assert token_file.read_text().strip() == served.token
        assert token_file.stat().st_mode & 0o777 == 0o600


def test_a_commit_reaches_the_stream_within_half_a_second(tmp_path):
    db = tmp_path / "games.db"
    lines = script("clank-2-players-short.jsonl")
    record(db, lines[:10])
    table = SimulatedTable(db, 1)
    delays: list[float] = []
    states: list[dict] = []
    try:
        with serving(db) as served:

            async def main() -> None:
                auth = {"Authorization": f"Bearer {served.token}"}
                timeout = aiohttp.ClientTimeout(total=60)
                async with (
                    aiohttp.ClientSession(timeout=timeout) as session,
                    session.get(served.base + "/api/events", headers=auth) as response,
                ):
                    first = await _next_state(response)
                    assert first["state"] == expected(lines[:10])
                    loop = asyncio.get_running_loop()
                    for number, text in lines[10:18]:
                        action = parse_line(number, text)
                        committed = await loop.run_in_executor(None, table.apply, action)
                        got = await asyncio.wait_for(_next_state(response), LIMIT * 4)
                        delays.append(time.time() - committed)
                        states.append(got)

            asyncio.run(main())
    finally:
        table.close()
    assert len(delays) == 8
    print("delays", [round(d, 3) for d in delays])
    assert max(delays) < LIMIT, delays
    assert states[-1]["state"] == expected(lines[:18])
    assert [s["state"]["actions"] for s in states] == list(range(10, 18))


def test_the_end_of_the_game_opens_the_proof(tmp_path):
    db = tmp_path / "games.db"
    lines = script("clank-2-players-short.jsonl")
    record(db, lines[:-8])
    table = SimulatedTable(db, 1)
    try:
        with serving(db) as served:

            async def main() -> tuple[int, int, dict]:
                auth = {"Authorization": f"Bearer {served.token}"}
                timeout = aiohttp.ClientTimeout(total=120)
                async with (
                    aiohttp.ClientSession(timeout=timeout) as session,
                    session.get(served.base + "/api/events", headers=auth) as stream,
                ):
                    before = await session.get(served.base + "/api/proof?game=1", headers=auth)
                    assert (await _next_state(stream))["status"] != "over"
                    loop = asyncio.get_running_loop()
                    for number, text in lines[-8:]:
                        await loop.run_in_executor(None, table.apply, parse_line(number, text))
                    while (await _next_state(stream))["status"] != "over":
                        pass  # the page waits for the stream's word that the game is over
                    after = await session.get(served.base + "/api/bgstats?game=1", headers=auth)
                    return before.status, after.status, await after.json()

            before, after, bg = asyncio.run(main())
    finally:
        table.close()
    assert before == 404 and after == 200
    assert bg["play"]["durationMin"] >= 1  # the end was seen as it came
