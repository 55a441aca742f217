"""The web server against strangers and floods: a stranger who holds sockets open (no
token) never keeps a phone out, a request's head must come in time and small, one
address holds a bounded number of connections, running out of descriptors is one line
a minute; many requests for one game share one answer, made a few at a time; a missing
game is a JSON error; every stream hears ``alive`` every KEEPALIVE_SECONDS.

The limits are lowered here (the module's constants, read when ``serve`` starts) so
that each test takes a second or two; the load test runs ``clank-companion serve`` as a
process of its own under a lowered file limit."""

from __future__ import annotations

import asyncio
import configparser
import errno
import io
import json
import logging
import os
import resource
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp
import pytest

import companion.web.server as server
from companion.web.access import load_token
from companion.web.reader import Games
from tests.test_web_support import CLI, REPO, expected, record, run_app, script

LOOPBACK = "127.0.0.1"
PARTIAL_HEAD = b"GET /api/state HTTP/1.1\r\nHost: x\r\n"


# ------------------------------------------------------------------ helpers
def _served_here(db: Path, check: Callable[[int, str], Awaitable[Any]]) -> Any:
    """``check(port, token)`` against ``serve`` itself (gate and all) in this process."""

    async def main() -> Any:
        token = load_token(db)
        loop = asyncio.get_running_loop()
        url: asyncio.Future[str] = loop.create_future()
        stop = asyncio.Event()
        serving = loop.create_task(
            server.serve(db, LOOPBACK, 0, token=token, ready=url.set_result, stop=stop)
        )
        port = int((await asyncio.wait_for(url, 10)).split("/?t=")[0].rsplit(":", 1)[1])
        try:
            return await check(port, token)
        finally:
            stop.set()
            await asyncio.wait_for(serving, 10)

    return asyncio.run(main())


async def _connect(port: int, address: str = LOOPBACK) -> tuple[Any, Any]:
    return await asyncio.open_connection(LOOPBACK, port, local_addr=(address, 0))


async def _closed(reader: asyncio.StreamReader, within: float) -> bool:
    """Whether the server closed the connection (or answered and closed) within
    ``within`` seconds."""
    deadline = time.monotonic() + within
    while (left := deadline - time.monotonic()) > 0:
        try:
            chunk = await asyncio.wait_for(reader.read(65536), left)
        except TimeoutError:
            return False
        except ConnectionError:
            return True
        if not chunk:
            return True
    return False


async def _still_open(readers: list[asyncio.StreamReader]) -> int:
    return sum([not await _closed(r, 0.05) for r in readers])


async def _answer(reader: asyncio.StreamReader) -> bytes:
    try:
        return await asyncio.wait_for(reader.read(65536), 2)
    except ConnectionError:
        return b""


def _get(port: int, token: str, path: str = "/api/state") -> bytes:
    return f"GET {path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n\r\n".encode()


def _recorded(tmp_path: Path) -> Path:
    db = tmp_path / "games.db"
    record(db, script("clank-2-players-short.jsonl")[:20])
    return db


# ------------------------------------------------------------------ W1: the load test
FD_LIMIT = 320  # the server's file limit here (the unit's is far higher)
ADDRESSES = 20  # the stranger's addresses (127.0.0.2 ...), 15 sockets each
EACH = 15
GREEDY = 100  # and one address that opens this many at once
PHONE_SECONDS = 2.0


def _lowered_file_limit() -> None:  # in the server's process, before it starts
    resource.setrlimit(resource.RLIMIT_NOFILE, (FD_LIMIT, FD_LIMIT))


# The stranger, in a process of its own (its sockets and its work are not the phone's):
# from each address, socket after socket, a partial head, then a header line every
# 0.3 s, never the end of it; opened again whenever the server closes it. Prints what
# it saw when its time is up.
STRANGER = r"""
import asyncio, json, resource, sys
port, addresses, each, greedy = (int(a) for a in sys.argv[1:5])
seconds = float(sys.argv[5])
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
if soft < 4096 <= hard:
    resource.setrlimit(resource.RLIMIT_NOFILE, (4096, hard))
seen = {"opened": 0, "closed": 0, "failed": 0}
HEAD = b"GET /api/state HTTP/1.1\r\nHost: x\r\n"

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
        seen["closed"] += 1
        writer.close()

async def main():
    stop = asyncio.Event()
    tasks = [asyncio.ensure_future(one(f"127.0.0.{2 + i % addresses}", stop))
             for i in range(addresses * each)]
    tasks += [asyncio.ensure_future(one("127.0.0.250", stop)) for _ in range(greedy)]
    await asyncio.sleep(seconds)
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    print(json.dumps(seen), flush=True)

asyncio.run(main())
"""


async def _fresh_state(url: str, auth: dict[str, str], timeout: aiohttp.ClientTimeout) -> int:
    """A phone that wakes up: a fresh connection, its state asked for; the status (0:
    no answer)."""
    try:
        async with (
            aiohttp.ClientSession(timeout=timeout) as fresh,
            fresh.get(url, headers=auth) as r,
        ):
            await r.read()
            return r.status
    except (aiohttp.ClientError, TimeoutError):
        return 0


def test_a_slowloris_without_the_token_does_not_keep_a_phone_out(tmp_path):
    db = _recorded(tmp_path)
    env = {**os.environ, "CLANK_CONFIG": "", "XDG_CONFIG_HOME": str(tmp_path / "cfg")}
    proc = subprocess.Popen(
        [*CLI, "serve", "--db", str(db), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
        env=env,
        preexec_fn=_lowered_file_limit,
    )
    assert proc.stdout is not None
    base, _, token = proc.stdout.readline().strip().partition("/?t=")
    port = int(base.rsplit(":", 1)[1])
    counts = [str(n) for n in (port, ADDRESSES, EACH, GREEDY, PHONE_SECONDS + 0.7)]
    stranger = subprocess.Popen([sys.executable, "-c", STRANGER, *counts], stdout=subprocess.PIPE)
    fds: list[int] = []

    async def main() -> tuple[list[float], list[int]]:
        await asyncio.sleep(0.5)  # every socket of the stranger's opened and sending
        took: list[float] = []
        statuses: list[int] = []
        auth = {"Authorization": f"Bearer {token}"}
        timeout = aiohttp.ClientTimeout(total=5)
        async with (
            aiohttp.ClientSession(timeout=timeout) as phone,
            phone.get(base + "/api/events", headers=auth) as stream,
        ):
            first = await asyncio.wait_for(stream.content.readuntil(b"\n\n"), 1)
            assert first.startswith(b"retry")
            end = time.monotonic() + PHONE_SECONDS
            while time.monotonic() < end:
                fds.append(len(os.listdir(f"/proc/{proc.pid}/fd")))
                t0 = time.monotonic()
                statuses.append(await _fresh_state(base + "/api/state", auth, timeout))
                took.append(time.monotonic() - t0)
                await asyncio.sleep(0.2)
            # the phone's stream (its token given) was never closed to make room
            state = await asyncio.wait_for(stream.content.readuntil(b"\n\n"), 1)
            assert state.startswith(b"event: state")
        return took, statuses

    try:
        took, statuses = asyncio.run(main())
        seen = json.loads(stranger.communicate(timeout=30)[0])
    finally:
        stranger.kill()
        proc.terminate()
        _out, err = proc.communicate(timeout=15)
    assert statuses and set(statuses) == {200}, (statuses, took)
    assert max(took) < 1.0, took
    assert seen["opened"] > FD_LIMIT, seen  # the stranger held more sockets than the limit
    assert max(fds) < FD_LIMIT - 32, max(fds)  # room kept below the limit all along
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) <= 8, lines  # refusals and the like: one line a minute each
    assert sum("Too many open files" in line for line in lines) <= 1, lines


def test_the_unit_raises_the_file_limit_above_what_the_server_keeps_free():
    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.optionxform = str  # type: ignore[assignment,method-assign]
    unit.read_string((REPO / "systemd" / "clank-companion-web.service").read_text())
    limit = int(unit["Service"]["LimitNOFILE"])
    assert limit >= server.MAX_CONNECTIONS + server.FD_RESERVE


# ------------------------------------------------------------------ W1: the gate
@pytest.fixture
def quick(monkeypatch):
    """Limits small enough to be reached in a test (read when ``serve`` starts)."""
    monkeypatch.setattr(server, "HEAD_SECONDS", 0.5, raising=False)
    monkeypatch.setattr(server, "HEAD_BYTES", 2048, raising=False)
    monkeypatch.setattr(server, "MAX_PER_CLIENT", 4, raising=False)
    monkeypatch.setattr(server, "MAX_CONNECTIONS", 6, raising=False)
    monkeypatch.setattr(server, "KEEPALIVE_SECONDS", 0.3)


def test_a_request_head_must_come_in_time_and_small(tmp_path, quick):
    db = _recorded(tmp_path)

    async def check(port: int, token: str) -> None:
        # nothing at all; a head that never ends, sent slowly; one too long
        silent, _w1 = await _connect(port)
        slow, slow_writer = await _connect(port, "127.0.0.2")
        slow_writer.write(PARTIAL_HEAD)
        long, long_writer = await _connect(port, "127.0.0.3")
        long_writer.write(PARTIAL_HEAD + b"X-Long: " + b"y" * 3000 + b"\r\n")
        assert await _closed(long, 0.3)  # at once
        t0 = time.monotonic()
        for _ in range(3):
            assert not await _closed(slow, 0.1)
            slow_writer.write(b"X-Slow: 1\r\n")
        assert await _closed(slow, 1.0) and await _closed(silent, 0.2)
        assert 0.4 < time.monotonic() - t0 < 1.2
        # a whole request without the token (403), then a next head that never ends
        reader, writer = await _connect(port, "127.0.0.4")
        writer.write(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        assert (await _answer(reader)).startswith(b"HTTP/1.1 403")
        writer.write(PARTIAL_HEAD)
        assert await _closed(reader, 1.2)
        # a phone's stream outlives the head's time: it gave the token
        reader, writer = await _connect(port, "127.0.0.5")
        writer.write(_get(port, token, "/api/events"))
        got = b""
        end = time.monotonic() + 1.2
        while time.monotonic() < end:
            got += await asyncio.wait_for(reader.read(65536), 1)
        assert got.startswith(b"HTTP/1.1 200") and got.count(b"event: alive") >= 2
        writer.close()

    _served_here(db, check)


def test_one_address_holds_a_bounded_number_of_connections(tmp_path, quick, monkeypatch):
    monkeypatch.setattr(server, "HEAD_SECONDS", 5.0, raising=False)  # not the point here
    db = _recorded(tmp_path)

    async def check(port: int, token: str) -> None:
        # a stranger's 10 sockets from one address: its oldest make room for its newest
        stranger, kept = [], []  # (a writer let go closes its socket)
        for _ in range(10):
            reader, writer = await _connect(port, "127.0.0.2")
            writer.write(b"GET")
            stranger.append(reader)
            kept.append(writer)
            await asyncio.sleep(0.01)
        open_ = [not await _closed(r, 0.05) for r in stranger]
        assert open_ == [False] * 6 + [True] * 4, open_
        # a phone's 4 streams (the token given) from another: 6 in all, so two of the
        # stranger's make room
        phone = []
        for _ in range(4):
            reader, writer = await _connect(port, "127.0.0.3")
            writer.write(_get(port, token, "/api/events"))
            assert (await _answer(reader)).startswith(b"HTTP/1.1 200")
            phone.append(writer)
        assert await _still_open(stranger) == 2
        # the phone's fifth: its own four all gave the token, so it is refused, cleanly
        reader, writer = await _connect(port, "127.0.0.3")
        writer.write(_get(port, token))
        answer = await _answer(reader)
        assert answer.startswith(b"HTTP/1.1 503") and b"Content-Length: 0" in answer
        assert await _closed(reader, 0.5)
        # another phone: a stranger's socket makes room for it
        reader, writer = await _connect(port, "127.0.0.4")
        writer.write(_get(port, token))
        assert (await _answer(reader)).startswith(b"HTTP/1.1 200")
        assert await _still_open(stranger) == 1
        for w in phone:
            w.close()

    _served_here(db, check)


@pytest.fixture
def web_log():
    """``setup_logging`` as ``serve`` runs it (into a buffer), undone after."""
    names = ("companion.web", "aiohttp", "asyncio")
    saved = {n: logging.getLogger(n) for n in names}
    before = {n: (lg.handlers[:], lg.propagate, lg.level) for n, lg in saved.items()}
    out = io.StringIO()
    server.setup_logging()
    for handler in {h for lg in saved.values() for h in lg.handlers}:
        if isinstance(handler, logging.StreamHandler):
            handler.setStream(out)
    yield out
    for n, (handlers, propagate, level) in before.items():
        saved[n].handlers, saved[n].propagate = handlers, propagate
        saved[n].setLevel(level)


def test_running_out_of_descriptors_is_one_line_a_minute(tmp_path, web_log):
    db = _recorded(tmp_path)

    async def check(port: int, token: str) -> None:
        loop = asyncio.get_running_loop()
        for _ in range(300):  # what the event loop says for each accept that fails
            try:
                raise OSError(errno.EMFILE, os.strerror(errno.EMFILE))
            except OSError as e:
                loop.call_exception_handler(
                    {"message": "socket.accept() out of system resource", "exception": e}
                )
        await asyncio.sleep(0)

    _served_here(db, check)
    err = web_log.getvalue()
    assert "Traceback" not in err
    assert sum("Too many open files" in line for line in err.splitlines()) == 1, err


# ------------------------------------------------------------------ W2: one answer, shared
def _ended_and_newer(tmp_path: Path, newer: int = 1) -> tuple[Path, list]:
    """Game 1 played to its end, and ``newer`` running games after it."""
    db = tmp_path / "games.db"
    first = script("clank-2-players-short.jsonl")
    record(db, first)
    for _ in range(newer):
        record(db, script("tschak-2-players.jsonl")[:3])
    return db, first


def test_many_requests_for_an_ended_game_read_and_make_it_once(tmp_path, monkeypatch):
    db, first = _ended_and_newer(tmp_path)
    asked: list[int | None] = []
    original = Games.game

    def counted(self: Games, number: int | None) -> Any:
        asked.append(number)
        return original(self, number)

    monkeypatch.setattr(Games, "game", counted)

    async def check(client, token):
        auth = {"Authorization": f"Bearer {token}"}

        async def one() -> tuple[int, bytes]:
            async with client.get("/api/state?game=1", headers=auth) as r:
                return r.status, await r.read()

        return await asyncio.gather(*(one() for _ in range(100)))

    answers = run_app(db, check)
    assert {status for status, _ in answers} == {200}
    assert len({body for _, body in answers}) == 1
    state = json.loads(answers[0][1])
    assert state["game"] == 1 and state["status"] == "over"
    assert state["state"] == expected(first)
    assert asked.count(1) == 1, asked.count(1)  # one read of the game for 100 requests


def test_different_games_are_made_a_few_at_a_time(tmp_path, monkeypatch):
    db, _first = _ended_and_newer(tmp_path, newer=5)
    watcher = {"_follow_language", "_changed", "_newest", "_look", "close"}
    at_once = [0, 0]  # now, most
    original = server.WebCompanion.run

    async def counted(self: Any, call: Callable[..., Any], *args: Any) -> Any:
        if getattr(call, "__name__", "") in watcher:
            return await original(self, call, *args)
        at_once[0] += 1
        at_once[1] = max(at_once[1], at_once[0])
        try:
            return await original(self, call, *args)
        finally:
            at_once[0] -= 1

    monkeypatch.setattr(server.WebCompanion, "run", counted)

    async def check(client, token):
        auth = {"Authorization": f"Bearer {token}"}

        async def one(game: int) -> int:
            async with client.get(f"/api/state?game={game}", headers=auth) as r:
                await r.read()
                return r.status

        return await asyncio.gather(*(one(g) for g in range(1, 7) for _ in range(3)))

    assert set(run_app(db, check)) == {200}
    assert at_once[1] <= server.REPLAYS_AT_ONCE, at_once


# ------------------------------------------------------------------ P5, P1
def test_a_missing_game_is_the_documented_json_error(tmp_path):
    db = _recorded(tmp_path)

    async def check(client, token):
        auth = {"Authorization": f"Bearer {token}"}
        async with client.get("/api/state?game=99", headers=auth) as r:
            return r.status, r.headers["Content-Type"], await r.read()

    status, kind, body = run_app(db, check)
    assert status == 404 and kind.startswith("application/json")
    answer = json.loads(body)
    assert answer["game"] is None and answer["error"] == "no_game" and answer["lang"]


def test_every_stream_hears_alive_however_often_the_state_changes(tmp_path, monkeypatch):
    monkeypatch.setattr(server, "KEEPALIVE_SECONDS", 0.25)
    db = _recorded(tmp_path)

    async def check(client, token):
        companion = client.server.app[server.APP_KEY]
        auth = {"Authorization": f"Bearer {token}"}
        events: list[bytes] = []
        async with client.get("/api/events", headers=auth) as stream:
            end = time.monotonic() + 1.2
            while time.monotonic() < end:
                events.append(await asyncio.wait_for(stream.content.readuntil(b"\n\n"), 1))
            quiet = list(events)
            # the state changes every 50 ms: "alive" still comes on time
            end = time.monotonic() + 1.2
            while time.monotonic() < end:
                companion.hub.publish(200, companion.hub.body)
                events.append(await asyncio.wait_for(stream.content.readuntil(b"\n\n"), 1))
                await asyncio.sleep(0.05)
        return quiet, events[len(quiet) :]

    quiet, busy = run_app(db, check)
    assert quiet[0] == b"retry: 1000\n\n" and quiet[1].startswith(b"event: state\ndata: {")
    alive = b"event: alive\ndata: {}\n\n"
    assert quiet.count(alive) >= 3, quiet  # a named event, with data: the page sees it
    assert not any(e.startswith(b":") for e in quiet + busy)  # no comment any more
    assert busy.count(alive) >= 3 and any(e.startswith(b"event: state") for e in busy)
