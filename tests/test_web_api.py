"""The web companion's API, in this process (aiohttp's TestServer and TestClient): the
token, the state, the proof, export and BG Stats only once a game has ended, no seed in
any answer while it runs, the security headers."""

from __future__ import annotations

import io
import json
import sqlite3

import pytest

import companion.web.access as access
from companion.audit.check import export_game
from companion.store import GameStore
from tests.test_web_support import expected, record, run_app, script

PATHS = [
    "/",
    "/api/state",
    "/api/state?game=1",
    "/api/events",
    "/api/words",
    "/api/proof?game=1",
    "/api/export?game=1",
    "/api/bgstats?game=1",
    "/static/app.js",
    "/static/index.html",
    "/nothing/here",
    "/static/../api/state",
]
ENDED = ("/api/proof", "/api/export", "/api/bgstats")


def _running(tmp_path, lines=20):
    db = tmp_path / "games.db"
    played = script("clank-2-players-short.jsonl")[:lines]
    record(db, played)
    return db, played


def _seeds(db, played):
    seed = json.loads(played[0][1])["new"]["server_seed"]
    conn = sqlite3.connect(db)
    sealed = conn.execute("SELECT sealed_seed FROM games WHERE id = 1").fetchone()[0]
    conn.close()
    return seed, sealed


def _other(token: str) -> str:
    """The token with its last character changed."""
    return token[:-1] + ("A" if token[-1] != "A" else "B")


def test_without_the_token_every_answer_is_403_and_empty(tmp_path):
    db, _ = _running(tmp_path)

    async def check(client, token):
        answers = {}
        for path in PATHS:
            for headers, params in (
                ({}, {}),
                ({"Authorization": "Bearer " + "x" * 43}, {}),
                ({"Authorization": "Basic " + token}, {}),
                ({"Cookie": "clank_table=" + _other(token)}, {}),
                ({}, {"t": token[:-2]}),
                ({}, {"t": token + "x"}),
                ({}, {"t": ""}),
            ):
                response = await client.get(path, headers=headers, params=params)
                body = await response.read()
                assert response.status == 403, (path, headers, params)
                assert body == b"", path
                answers[path] = sorted(k for k in response.headers if k not in ("Date",))
        return answers

    with_game = run_app(db, check)
    # the same answer, header for header, when there is no database at all: a stranger
    # learns nothing, not even whether a game is running
    without = run_app(tmp_path / "elsewhere" / "games.db", check)
    assert with_game == without


def test_the_token_by_query_header_or_cookie(tmp_path):
    db, played = _running(tmp_path)

    async def check(client, token):
        first = await client.get("/", params={"t": token})
        assert first.status == 200
        assert "clank_table" in first.cookies
        cookie = first.cookies["clank_table"]
        assert cookie["httponly"] and cookie["samesite"] == "Strict"
        # the cookie alone is enough now (the page's later requests)
        by_cookie = await client.get("/api/state")
        assert by_cookie.status == 200
        client.session.cookie_jar.clear()
        assert (await client.get("/api/state")).status == 403
        by_header = await client.get("/api/state", headers={"Authorization": f"Bearer {token}"})
        by_query = await client.get("/api/state", params={"t": token})
        return await by_header.json(), await by_query.json()

    header, query = run_app(db, check)
    assert header == query
    assert header["game"] == 1 and header["state"] == expected(played)


def test_the_token_is_compared_in_constant_time(tmp_path, monkeypatch):
    db, _ = _running(tmp_path)
    calls = []
    real = access.hmac.compare_digest

    def spy(a, b):
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(access.hmac, "compare_digest", spy)

    async def check(client, token):
        await client.get("/api/state", params={"t": "wrong"})
        await client.get("/api/state", params={"t": token})

    run_app(db, check)
    assert len(calls) >= 2 and all(isinstance(a, bytes) for a, _b in calls)


def test_the_state_and_a_game_by_number(tmp_path):
    db = tmp_path / "games.db"
    first = script("clank-2-players-short.jsonl")
    second = script("tschak-2-players.jsonl")[:3]
    record(db, first)
    record(db, second)

    async def check(client, token):
        auth = {"Authorization": f"Bearer {token}"}
        newest = await (await client.get("/api/state", headers=auth)).json()
        older = await (await client.get("/api/state?game=1", headers=auth)).json()
        missing = await client.get("/api/state?game=3", headers=auth)
        return newest, older, missing.status

    newest, older, missing = run_app(db, check)
    assert newest["game"] == 2 and newest["state"] == expected(second)
    assert older["game"] == 1 and older["state"] == expected(first)
    assert missing == 404


def test_proof_export_and_bgstats_only_once_the_game_has_ended(tmp_path):
    db, played = _running(tmp_path)
    seed, sealed = _seeds(db, played)

    async def running(client, token):
        auth = {"Authorization": f"Bearer {token}"}
        seen = []
        for path in ENDED:
            for query in ("", "?game=1"):
                response = await client.get(path + query, headers=auth)
                body = await response.read()
                assert response.status == 404, path
                assert body == b"", path  # and nothing more
        for path in PATHS:
            response = await client.get(path, headers=auth)
            if path == "/api/events":
                seen.append(await response.content.readuntil(b"\n\n"))
                seen.append(await response.content.readuntil(b"\n\n"))
                response.close()
            else:
                seen.append(await response.read())
            seen.append(json.dumps(dict(response.headers)).encode())
        return seen

    for body in run_app(db, running):
        assert seed.encode() not in body and sealed.encode() not in body

    # the rest of the game: now they answer
    record_rest = script("clank-2-players-short.jsonl")
    db2 = tmp_path / "over.db"
    record(db2, record_rest)

    async def over(client, token):
        auth = {"Authorization": f"Bearer {token}"}
        proof = await (await client.get("/api/proof?game=1", headers=auth)).json()
        export = await client.get("/api/export?game=1", headers=auth)
        text = await export.text()
        bg = await (await client.get("/api/bgstats?game=1", headers=auth)).json()
        newest_proof = await client.get("/api/proof", headers=auth)
        return proof, export.headers, text, bg, newest_proof.status

    proof, headers, text, bg, newest = run_app(db2, over)
    with GameStore(db2, create=False) as store:
        out = io.StringIO()
        export_game(store, 1, out)
    assert text == out.getvalue()  # the audit export's lines, as export_game writes them
    assert "attachment" in headers["Content-Disposition"]
    assert proof["server_seed"] == seed and proof["commitment"]
    assert proof["head"] == json.loads(text.splitlines()[-1])["hash"]
    assert proof["records"] == len(text.splitlines()) - 1
    assert bg["url"].startswith("https://app.bgstatsapp.com/createPlay.html?data=")
    assert newest == 200


def test_an_abandoned_game_has_a_proof_but_no_bgstats(tmp_path):
    db, _ = _running(tmp_path, lines=8)
    with GameStore(db) as store:
        store.abandon_unresumable(1, "the key is lost")

    async def check(client, token):
        auth = {"Authorization": f"Bearer {token}"}
        proof = await client.get("/api/proof?game=1", headers=auth)
        bg = await client.get("/api/bgstats?game=1", headers=auth)
        return proof.status, await proof.json(), bg.status

    status, proof, bg = run_app(db, check)
    assert status == 200 and proof["status"] == "abandoned" and proof["server_seed"] is None
    assert bg == 404


def test_every_answer_carries_the_security_headers(tmp_path):
    db, _ = _running(tmp_path)

    async def check(client, token):
        auth = {"Authorization": f"Bearer {token}"}
        out = []
        for path in PATHS:
            response = await client.get(path, headers=auth)
            out.append((path, response.status, dict(response.headers)))
            response.close()
        return out

    for path, status, headers in run_app(db, check):
        assert "default-src 'self'" in headers["Content-Security-Policy"], path
        assert headers["X-Content-Type-Options"] == "nosniff", path
        assert headers["Referrer-Policy"] == "no-referrer", path
        if path.startswith("/api/") and path != "/api/events" and status == 200:
            assert headers["Content-Type"].startswith("application/json"), path


@pytest.mark.parametrize("name", ["clank-2-players-short.jsonl", "tschak-3-players.jsonl"])
def test_the_events_begin_with_the_state(tmp_path, name):
    db = tmp_path / "games.db"
    played = script(name)[:9]
    record(db, played)

    async def check(client, token):
        response = await client.get("/api/events", headers={"Authorization": f"Bearer {token}"})
        assert response.headers["Content-Type"].startswith("text/event-stream")
        events = []
        while len(events) < 1:
            chunk = (await response.content.readuntil(b"\n\n")).decode()
            if chunk.startswith("event: state"):
                events.append(json.loads(chunk.split("data: ", 1)[1]))
        response.close()
        return events[0]

    first = run_app(db, check)
    assert first["state"] == expected(played)


def test_the_words_are_in_the_tables_language(tmp_path, monkeypatch):
    db, _ = _running(tmp_path)
    from companion.i18n import set_language

    set_language("ru")

    async def check(client, token):
        response = await client.get("/api/words", headers={"Authorization": f"Bearer {token}"})
        return await response.json()

    words = run_app(db, check)
    assert words["lang"] == "ru"
    assert words["colours"]["red"] != "red"
    assert words["words"]["your_turn"] != "Your turn"
