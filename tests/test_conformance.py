"""Every registered game kind, and the tests' own, through the kind API alone (as
OpenSpiel's api_test runs over ``registered_games()``).

Each kind gives a short game of each of its editions (``GameKind.sample_script``); a
driver that knows no game plays it through the table script, the session (start, a power
cut and a resume, abandon, close), both verifiers, the kind's words for its events, the
phones' page and the touchscreen's screens. A new box passes here before it is a box.
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion import kinds
from companion.audit.check import export_game, verify_store
from companion.draw import commitment
from companion.kinds import GameKind, GameTable, kind_of
from companion.script import Replay, numbered, replay
from companion.session import Session
from companion.store import GameStore
from companion.verify_log import EXIT_NOT_PROVABLY_FAIR, EXIT_OK, check_records, read_export
from companion.verify_log import verdict as standalone_verdict
from tests.helpers import companion_draws_seed
from tests.kinds import mount, unmount

# every edition the registry plays with the box of the tests' own mounted (a package
# under companion/kinds/ and its line in KINDS), and those whose kind has a bag
mount()
EDITIONS = sorted(kinds.editions())
WITH_BAG = [e for e in EDITIONS if kind_of(e).has_bag]
unmount()


@pytest.fixture(autouse=True)
def pebbles() -> Iterator[None]:
    mount()
    yield
    unmount()


def test_the_suite_runs_every_box_and_the_tests_own() -> None:
    assert {"clank", "catacombs", "tschak", "pebbles"} <= set(EDITIONS)
    assert kind_of("pebbles").__module__ == "companion.kinds.pebbles.kind"


# ------------------------------------------------------------------ the driver
Lines = list[tuple[int, str]]


def sample(edition: str) -> Lines:
    """The kind's short game of ``edition``, as numbered script lines."""
    return list(numbered(kind_of(edition).sample_script(edition)))


def new_options(lines: Lines) -> dict[str, Any]:
    options: dict[str, Any] = json.loads(lines[0][1])["new"]
    return options


def without_seed(lines: Lines, seed: str) -> tuple[Lines, str]:
    """The lines with the seed left out of the ``new`` line (the companion draws it),
    and the seed the game needs to play as written."""
    options = new_options(lines)
    given = options.pop("server_seed", None)
    return [(lines[0][0], json.dumps({"new": options})), *lines[1:]], given or seed


def played(lines: Lines, **kwargs: Any) -> tuple[Replay, list[dict[str, Any]]]:
    """The script replayed; every event it gave, in order."""
    events: list[dict[str, Any]] = []

    def step(number: int, action: Any, told: Any, error: Any) -> None:
        assert error is None, f"line {number}: {error}"
        events.extend(told)

    return replay(iter(lines), on_step=step, **kwargs), events


def actions(lines: Lines) -> list[dict[str, Any]]:
    return [json.loads(text) for _, text in lines[1:]]


def record(db: Path, lines: Lines, *, cut_after: int | None = None) -> tuple[int, GameTable]:
    """The game recorded in ``db`` through a Session as the table records it, with a power
    cut (the store closed, the game resumed from its log) after ``cut_after`` actions."""
    kind = kind_of(new_options(lines).get("edition", kinds.DEFAULT))
    store = GameStore(db)
    table = Session(store).start(new_options(lines))
    assert table.log is not None
    game: int = table.log.game  # type: ignore[attr-defined]
    for done, action in enumerate(actions(lines), start=1):
        table.apply(action)
        if done == cut_after:
            before = kind.output(table)
            store.close()  # the power cut: nothing but the log is left
            store = GameStore(db)
            table = Session(store).resume(game)
            assert kind.output(table) == before, "the resumed game is not the game"
    store.close()
    return game, table


def verified(db: Path, game: int) -> dict[str, Any]:
    """Both verifiers over the recorded game: the store's audit, and the standalone
    ``verify_log`` over its export; the standalone summary."""
    with GameStore(db, create=False) as store:
        (check,) = verify_store(store, game)
        assert check.ok, str(check.message)
        out = io.StringIO()
        export_game(store, game, out)
    header, records = read_export(out.getvalue().splitlines())
    return check_records(header, records)


# ------------------------------------------------------------------ the sample itself
@pytest.mark.parametrize("edition", EDITIONS)
def test_the_kind_gives_a_short_game_of_its_edition_played_to_its_end(edition: str) -> None:
    lines = sample(edition)
    kind = kind_of(edition)
    assert new_options(lines).get("edition") == edition
    assert ("server_seed" in new_options(lines)) == kind.has_bag  # a bag's game replays
    result, _ = played(lines)
    assert result.errors == [] and result.actions == len(lines) - 1
    assert result.table is not None and kind.is_over(result.table)
    assert result.output()["edition"] == edition


# ------------------------------------------------------------------ one seed contract
@pytest.mark.parametrize("edition", EDITIONS)
def test_a_script_with_a_given_seed_replays_the_same_way_twice(edition: str) -> None:
    lines = sample(edition)
    kind = kind_of(edition)
    first, first_events = played(lines)
    again, again_events = played(lines)
    assert first.output() == again.output() and first_events == again_events
    assert first.table is not None and again.table is not None
    assert kind.commitment(first.table) == kind.commitment(again.table)
    seed = str(new_options(lines).get("server_seed"))
    assert kind.commitment(first.table) == (commitment(seed) if kind.has_bag else "")


@pytest.mark.parametrize("edition", EDITIONS)
def test_a_script_plays_the_same_with_a_database_and_without(edition: str, tmp_path: Path) -> None:
    lines = sample(edition)
    alone, alone_events = played(lines)
    with GameStore(tmp_path / "games.db") as store:
        kept, kept_events = played(lines, start=Session(store).start)
    assert kept.output() == alone.output() and kept_events == alone_events


@pytest.mark.parametrize("edition", WITH_BAG)
def test_a_seed_that_is_not_one_is_refused_on_the_new_line(edition: str, tmp_path: Path) -> None:
    from companion.script import ScriptError

    lines = sample(edition)
    options = {**new_options(lines), "server_seed": "A" * 64}
    bad = [(1, json.dumps({"new": options})), *lines[1:]]
    with pytest.raises(ScriptError, match='line 1: new: "server_seed" must be 64 lowercase'):
        replay(iter(bad))
    with GameStore(tmp_path / "games.db") as store:
        with pytest.raises(ScriptError, match="server_seed"):
            replay(iter(bad), start=Session(store).start)
        assert store.last_game() is None  # nothing was written


# ------------------------------------------------------------------ the session
@pytest.mark.parametrize("edition", EDITIONS)
def test_start_a_power_cut_resume_and_close_through_the_session(
    edition: str, tmp_path: Path
) -> None:
    lines = sample(edition)
    kind = kind_of(edition)
    db = tmp_path / "games.db"
    game, table = record(db, lines, cut_after=max(1, (len(lines) - 1) // 2))
    assert kind.is_over(table) and not table.closed
    with GameStore(db) as store:
        table = Session(store).resume(game)
        replayed = played(lines)[0].table
        assert replayed is not None and kind.output(table) == kind.output(replayed)
        table.close()
        assert table.closed
        row = store.game_row(game)
        assert row["edition"] == edition and row["status"] == "over" and row["closed"]


@pytest.mark.parametrize("edition", EDITIONS)
def test_abandon_through_the_session(edition: str, tmp_path: Path) -> None:
    lines = sample(edition)
    db = tmp_path / "games.db"
    with GameStore(db) as store:
        table = Session(store).start(new_options(lines))
        game = table.log.game  # type: ignore[union-attr]
        table.apply(actions(lines)[0])
        table.abandon("abandoned at the table")
        assert table.abandoned and table.finished
    with GameStore(db) as store:
        assert store.game_row(game)["status"] == "abandoned"
        again = Session(store).resume(game)
        assert again.abandoned
    summary = verified(db, game)  # both verifiers pass it
    kind = kind_of(edition)
    assert summary["no_bag"] != kind.has_bag
    if kind.has_bag:
        assert summary["revealed"]  # an abandoned game's seed is revealed


# ------------------------------------------------------------------ both verifiers
@pytest.mark.parametrize("edition", EDITIONS)
def test_both_verifiers_pass_a_game_the_companion_drew_the_seed_of(
    edition: str, tmp_path: Path
) -> None:
    lines, seed = without_seed(sample(edition), "0" * 64)
    db = tmp_path / "games.db"
    with companion_draws_seed(seed):
        game, _ = record(db, lines)
    summary = verified(db, game)
    assert standalone_verdict(summary) == EXIT_OK
    if kind_of(edition).has_bag:
        assert summary["revealed"] and not summary["seed_given"]


@pytest.mark.parametrize("edition", WITH_BAG)
def test_a_seed_the_script_gave_is_not_called_provably_fair(edition: str, tmp_path: Path) -> None:
    db = tmp_path / "games.db"
    game, _ = record(db, sample(edition))
    summary = verified(db, game)
    assert summary["seed_given"] and standalone_verdict(summary) == EXIT_NOT_PROVABLY_FAIR


# ------------------------------------------------------------------ its words
def is_fallback(event: dict[str, Any], text: str) -> bool:
    """A telling that only spells the event out: its name, its fields, a dump of it."""
    name = str(event.get("event", "")).replace("_", " ")
    fields = ", ".join(f"{k} {v}" for k, v in event.items() if k != "event")
    dumps = (json.dumps(event), str(event), repr(event))
    return text.strip() in (name, f"{name}: {fields}", *dumps) or text.lstrip().startswith("{")


@pytest.mark.parametrize("edition", EDITIONS)
def test_every_event_of_the_game_is_told_in_words(edition: str) -> None:
    kind = kind_of(edition)
    _, events = played(sample(edition))
    assert events, "the sample game gives no event"
    untold = []
    for event in events:
        text = kind.tell_event(event, edition)
        if not isinstance(text, str) or not text.strip() or is_fallback(event, text):
            untold.append(f"{event.get('event')}: {text!r}")
    assert sorted(set(untold)) == []


@pytest.mark.parametrize("edition", EDITIONS)
def test_the_final_table_is_told_in_words(edition: str) -> None:
    kind: GameKind = kind_of(edition)
    result, _ = played(sample(edition))
    told = kind.tell_state(result.output())
    assert told and all(isinstance(line, str) and line.strip() for line in told)


# ------------------------------------------------------------------ the phones
@pytest.mark.parametrize("edition", EDITIONS)
def test_the_phones_show_the_game_or_say_they_cannot(edition: str, tmp_path: Path) -> None:
    """A kind with a phones' part (``GameKind.phone_face``) is shown: the state is the
    script's output and the page has its title; a kind without one is answered with a
    reason (an ``error``), never a server's failure."""
    from tests.test_web_support import run_app

    lines = sample(edition)
    db = tmp_path / "games.db"
    game, _ = record(db, lines[: max(2, len(lines) // 2)])
    face = getattr(kind_of(edition), "phone_face", lambda: None)()

    async def check(client: Any, token: str) -> tuple[int, Any]:
        page = await client.get("/", params={"t": token})
        assert page.status == 200
        answer = await client.get("/api/state", params={"t": token, "game": str(game)})
        return answer.status, await answer.json()

    status, body = run_app(db, check)
    assert status < 500, body
    if face is None:
        assert body.get("error") and "view" not in body, body
    else:
        expected = played(lines[: max(2, len(lines) // 2)])[0].output()
        assert status == 200 and body["state"] == expected
        assert body["view"]["title"]


# ------------------------------------------------------------------ the touchscreen
@pytest.mark.parametrize("edition", EDITIONS)
def test_every_screen_of_its_face_builds_and_shows_a_game(edition: str, tmp_path: Path) -> None:
    """Under Kivy (800x480): the kind's face (``GameKind.table_face``) names its screens;
    with a game of the kind on the table, each one is built and shown, and so is every
    screen every table has (the menu's: they ask the controller of the game on the table,
    whatever its kind)."""
    face = kind_of(edition).table_face()
    assert face is not None, f"{edition}: the kind has no face on the touchscreen"
    assert face.screens, f"{edition}: its face names no screen"
    os.environ.setdefault("KIVY_WINDOW", "sdl2")
    from kivy.config import Config as KivyConfig

    KivyConfig.set("graphics", "width", "800")
    KivyConfig.set("graphics", "height", "480")
    from companion.config import AppConfig, Config
    from companion.ui.app import SCREENS
    from companion.ui.harness import Harness

    lines = sample(edition)
    db = tmp_path / "games.db"
    record(db, lines[: max(2, len(lines) // 2)])  # a game running, left on the table
    ui = Harness(db, Config(app=AppConfig(database=str(db), language="en")))
    try:
        for name in [*face.screens, *SCREENS]:
            ui.app.show_screen(name)
            ui.frames(2)
            screen = ui.app.screens.get_screen(name)
            assert ui.app.screens.current == name
            texts = [
                w.text
                for w in screen.walk()
                if isinstance(getattr(w, "text", None), str) and w.text.strip()
            ]
            assert texts, f"{name} shows nothing"
    finally:
        ui.close()
