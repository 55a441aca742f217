"""The phones through the kind: each kind words its own games for the page
(``GameKind.phone_face``), the web side names no game, and a game of a kind without a
phones part (the tests' own pebbles, registered under another edition without it) is one
the phones say they cannot show, in the API's JSON error shape, with nothing more of its
log, and never a crash; the tests' own box mounted (``companion.kinds.pebbles``) is shown
in the page's kind-neutral layout, "lines"."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion import kinds
from companion.kinds import kind_of
from companion.web.bgstats import bgstats_game
from companion.web.reader import Games, NotShown
from companion.web.words import WORDS, page_words
from tests.kinds import UNSHOWN, mount, register_unshown, unmount
from tests.test_kinds import EDITIONS, names_of_games, play_pebbles
from tests.test_web_support import expected, record, run_app, script

ROOT = Path(__file__).resolve().parent.parent
WEB = ROOT / "companion" / "web"


@pytest.fixture
def pebbles() -> Iterator[None]:
    """The box of the tests' own mounted (its package, its line in KINDS), and a variant
    of its kind whose ``phone_face()`` is None registered as ``UNSHOWN``."""
    mount()
    register_unshown()
    yield
    kinds.register(UNSHOWN, None)
    unmount()


# ------------------------------------------------------------ the web side names no game
@pytest.mark.parametrize("module", sorted(p.name for p in WEB.glob("*.py")))
def test_a_module_of_the_phones_names_no_game(module):
    assert names_of_games(WEB / module) == [], module


@pytest.mark.parametrize("script_file", sorted(p.name for p in (WEB / "static").glob("*.js")))
def test_the_page_names_no_edition(script_file):
    text = (WEB / "static" / script_file).read_text(encoding="utf-8")
    named = [e for e in EDITIONS if re.search(rf"[\"'`]{e}[\"'`]", text)]
    assert named == [], script_file


# ------------------------------------------------------------ each kind's phones part
@pytest.mark.parametrize("edition", ["clank", "catacombs", "tschak"])
def test_every_box_of_the_table_has_a_phones_part(edition):
    face = kind_of(edition).phone_face()
    assert face is not None
    name, _bgg = face.bgstats_game(edition)
    assert name and bgstats_game(edition) == face.bgstats_game(edition)


def test_only_the_confirmed_boardgamegeek_id_is_sent():
    assert bgstats_game("clank") == ("Clank!", 201808)
    assert bgstats_game("catacombs") == ("Clank! Catacombs", None)
    assert bgstats_game("tschak") == ("Tschak!", None)


@pytest.mark.parametrize(
    ("name", "layout", "pick"),
    [
        ("clank-2-players-short.jsonl", "dragon", "colour"),
        ("tschak-2-players.jsonl", "towers", "name"),
    ],
)
def test_each_kind_tells_the_page_its_layout(tmp_path, name, layout, pick):
    db = tmp_path / "games.db"
    lines = script(name)
    record(db, lines)
    payload = Games(db).game(None).payload()
    assert payload["state"] == expected(lines)  # the state stays the table script's
    assert payload["view"]["layout"] == layout and payload["view"]["pick"] == pick


def test_the_bag_shows_the_ghosts_only_in_an_edition_that_has_them(tmp_path):
    shown = {}
    for name in ("clank-2-players-short.jsonl", "catacombs-3-players.jsonl"):
        db = tmp_path / name.replace(".jsonl", ".db")
        record(db, script(name)[:6])
        payload = Games(db).game(None).payload()
        assert "ghost" in payload["state"]["bag"]
        shown[payload["edition"]] = payload["view"]["bag"]
    assert "ghost" not in shown["clank"] and "ghost" in shown["catacombs"]
    assert "black" in shown["clank"] and "black" in shown["catacombs"]


# ------------------------------------------------------------ a game the phones cannot show
def test_a_new_box_is_shown_in_the_pages_own_layout(pebbles, tmp_path):
    assert kind_of("pebbles").phone_face() is not None
    assert bgstats_game("pebbles") == ("Pebbles", None)  # no id: BG Stats matches the name
    db = tmp_path / "games.db"
    game = play_pebbles(db)
    payload = Games(db).game(None).payload()
    assert payload["game"] == game and payload["status"] == "over"
    view = payload["view"]
    assert view["layout"] == "lines" and view["pick"] == "name" and view["title"] == "Pebbles"
    points = payload["state"]["players"]
    assert view["lines"] == [f"{p.title()}: {v['points']} point" + "s" * (v["points"] != 1)
                             for p, v in points.items()]  # fmt: skip
    assert view["winners"] == [r["player"] for r in view["ranking"] if r["place"] == 1]
    assert payload["state"]["server_seed"] == "7a" * 32  # revealed by its log, at the end


def test_a_kind_without_a_phones_part_is_a_kind(pebbles):
    assert kind_of(UNSHOWN).phone_face() is None
    assert bgstats_game(UNSHOWN) == ("Pebbles", None)  # its title: BG Stats matches it


def test_the_reader_says_a_game_cannot_be_shown(pebbles, tmp_path):
    db = tmp_path / "games.db"
    game = play_pebbles(db, edition=UNSHOWN)
    games = Games(db)
    for _ in range(2):  # replayed, then asked again
        with pytest.raises(NotShown) as caught:
            games.game(None)
        assert caught.value.game == game and caught.value.edition == UNSHOWN
    assert games.replayed[game].seq == 1  # nothing of its log read past its set-up


def test_the_api_says_a_game_cannot_be_shown_and_shows_the_others(pebbles, tmp_path):
    db = tmp_path / "games.db"
    first = script("clank-2-players-short.jsonl")
    record(db, first)
    unshown = play_pebbles(db, edition=UNSHOWN)  # the newest game: the table plays it now

    async def check(client, token):
        auth = {"Authorization": f"Bearer {token}"}
        answers = {}
        for path in (
            "/api/state",
            f"/api/state?game={unshown}",
            "/api/state?game=1",
            f"/api/proof?game={unshown}",
            f"/api/export?game={unshown}",
            f"/api/bgstats?game={unshown}",
            "/api/proof",
            "/api/games",
        ):
            got = await client.get(path, headers=auth)
            answers[path] = (got.status, await got.read())
        stream = await client.get("/api/events", headers=auth)
        event = b""
        while b"event: state" not in event:
            event += await stream.content.readline()
        event += await stream.content.readline()
        stream.close()
        return answers, event

    answers, event = run_app(db, check)
    newest = {"game": unshown, "error": "not_shown", "edition": UNSHOWN, "title": "Pebbles"}
    for path in ("/api/state", f"/api/state?game={unshown}"):
        status, body = answers[path]
        data = json.loads(body)
        assert status == 404 and data == {**newest, "lang": data["lang"]}, path
        assert "state" not in data and "view" not in data
    pushed = json.loads(event.split(b"data: ", 1)[1])
    assert pushed == json.loads(answers["/api/state"][1])  # the streams are told the same
    status, body = answers["/api/state?game=1"]
    assert status == 200 and json.loads(body)["state"] == expected(first)
    for path in ("proof", "export", "bgstats"):  # nothing more of it, as before an end
        assert answers[f"/api/{path}?game={unshown}"] == (404, b""), path
    assert answers["/api/proof"] == (404, b"")
    status, body = answers["/api/games"]
    listed = {g["game"]: g["edition"] for g in json.loads(body)["games"]}
    assert status == 200 and listed == {1: "clank", unshown: UNSHOWN}


def test_the_page_has_words_for_a_game_it_cannot_show():
    assert "cannot show" in WORDS["not_shown"]
    assert page_words()["words"]["not_shown"]
    page = (WEB / "static" / "app.js").read_text(encoding="utf-8")
    assert '"not_shown"' in page  # the page words the error it is given
