"""BG Stats' push link for a finished game: it decodes to the right scores, ranks and
winner, and its ids are stable (a second import of the same game finds the first)."""

from __future__ import annotations

import json
import time
import urllib.parse

from companion.web.bgstats import PUSH_LINK, minutes_between, play, play_date, push_link
from companion.web.reader import Games
from companion.web.server import bgstats_play
from tests.test_web_support import expected, record, script


def _decoded(url: str) -> dict:
    assert url.startswith(PUSH_LINK)
    return json.loads(urllib.parse.unquote(url[len(PUSH_LINK) :]))


def test_the_link_decodes_to_the_scores_and_the_winner(tmp_path):
    db = tmp_path / "games.db"
    lines = script("clank-4-players.jsonl")
    record(db, lines)
    want = expected(lines)
    found = Games(db).game(None)
    data = _decoded(push_link(bgstats_play(found)))

    assert data["sourceName"] == "Clank! Table Companion"
    assert data["location"] == "Clank! Table Companion"
    assert data["game"]["name"] == "Clank!"
    assert data["game"]["highestWins"] is True and data["game"]["noPoints"] is False
    assert data["game"]["bggId"] == 201808  # Clank!'s, confirmed (none for the others)
    assert data["playDate"] == play_date(found.created_at)
    by_role = {p["role"]: p for p in data["players"]}
    for r in want["ranking"]:
        p = by_role[r["player"].capitalize()]
        assert p["score"] == r["score"]
        assert p["rank"] == r["place"]
        assert p["winner"] == (r["place"] == 1 and r["score"] > 0)
    assert sum(p["winner"] for p in data["players"]) >= 1
    winner = [p for p in data["players"] if p["winner"]][0]
    assert winner["score"] == max(r["score"] for r in want["ranking"])
    first_seat = json.loads(lines[0][1])["new"]["players"][0]
    assert [p["startPlayer"] for p in data["players"]].count(True) == 1
    assert by_role[first_seat.capitalize()]["startPlayer"] is True
    # the record that ended the game says when: its length, whoever reads the log
    assert data["durationMin"] >= 1


def test_the_ids_are_stable_and_tell_games_apart(tmp_path):
    db = tmp_path / "games.db"
    lines = script("clank-2-players-short.jsonl")
    record(db, lines)
    record(db, lines)
    one = bgstats_play(Games(db).game(1))
    again = bgstats_play(Games(db).game(1))  # replayed afresh, as after a restart
    other = bgstats_play(Games(db).game(2))
    assert one == again
    assert one["sourcePlayId"] != other["sourcePlayId"]
    ids = {p["sourcePlayerId"] for p in one["players"]}
    assert len(ids) == len(one["players"])
    assert ids.isdisjoint(p["sourcePlayerId"] for p in other["players"])
    assert one["game"]["sourceGameId"] == other["game"]["sourceGameId"]  # the same box


def test_tschak_names_its_players_and_winners(tmp_path):
    db = tmp_path / "games.db"
    lines = script("tschak-3-players.jsonl")
    record(db, lines)
    want = expected(lines)
    data = bgstats_play(Games(db).game(None))
    assert data["game"]["name"] == "Tschak!"
    scores = {p["name"]: p for p in data["players"]}
    for r in want["ranking"]:
        assert scores[r["player"]]["score"] == r["score"]
        assert scores[r["player"]]["winner"] == (r["player"] in want["winners"])
    assert all(p["role"] for p in data["players"])


def test_dates_and_lengths(monkeypatch):
    monkeypatch.setenv("TZ", "UTC")  # the date is the table's local time: here UTC
    time.tzset()
    assert play_date("2026-11-25T18:22:48+00:00") == "2026-11-25 18:22:48"
    assert play_date("2026-11-25T20:22:48+02:00") == "2026-11-25 18:22:48"
    monkeypatch.undo()
    time.tzset()
    assert minutes_between("2026-11-25T18:00:00+00:00", "2026-11-25T19:31:10+00:00") == 91
    assert minutes_between("2026-11-25T18:00:00+00:00", "nonsense") is None
    # dates keep whole seconds: an end in the first second is still a (short) game
    assert minutes_between("2026-11-25T18:00:00+00:00", "2026-11-25T18:00:00+00:00") == 1
    assert minutes_between("2026-11-25T18:00:00+00:00", "2026-11-25T18:00:29+00:00") == 1
    assert minutes_between("2026-11-25T18:00:05+00:00", "2026-11-25T18:00:00+00:00") is None
    data = play(
        game=3,
        edition="catacombs",
        created_at="2026-11-25T18:00:00+00:00",
        commitment="ab" * 32,
        seats=["red", "blue"],
        ranking=[
            {"player": "blue", "score": 40, "place": 1},
            {"player": "red", "score": 40, "place": 1},
        ],
        winners=["blue", "red"],
        ended_at="2026-11-25T19:00:00+00:00",
    )
    assert data["durationMin"] == 60
    assert data["game"]["name"] == "Clank! Catacombs"
    assert [p["rank"] for p in data["players"]] == [1, 1]
    assert all(p["winner"] for p in data["players"])
