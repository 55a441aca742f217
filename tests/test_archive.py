"""The archive: every game of the database, of any kind, as the past-games list, the
audit and the charts read it."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator

import pytest

from companion.archive import Archive, LoggedDraw, Place, bag_laid_out
from companion.history import NoResults
from companion.session import Session
from companion.store import GameStore
from tests.kinds import mount, unmount

SEED = "3c" * 32


@pytest.fixture
def pebbles() -> Iterator[None]:
    """The box of the tests' own mounted (``companion.kinds.pebbles``, its line in KINDS)."""
    mount()
    yield
    unmount()


@pytest.fixture
def store(tmp_path) -> Iterator[GameStore]:
    with GameStore(tmp_path / "games.db") as s:
        yield s


def pebbles_game(store: GameStore, *, undo: bool = False) -> int:
    """A game of pebbles played to its end (an undo after the first draw: its draw
    stays in the log, undone)."""
    table = Session(store).start({"edition": "pebbles", "players": ["ann", "bob"]})
    table.apply({"do": "draw"})
    if undo:
        table.apply({"do": "undo"})
    while not table.finished:
        table.apply({"do": "draw"})
    table.close()
    game = store.last_game()
    assert game is not None
    return game


def test_every_games_summary_whatever_its_kind(store, pebbles):
    table = Session(store).start({"edition": "catacombs", "players": ["red", "blue"],
                                  "server_seed": SEED})  # fmt: skip
    table.apply({"do": "clank", "player": "red", "n": 2})
    game = pebbles_game(store)
    archive = Archive(store)
    assert [(g.id, g.edition, g.status) for g in archive.games()] == [
        (1, "catacombs", "playing"),
        (game, "pebbles", "over"),
    ]
    summary = archive.game_summary(game)
    assert summary is not None and summary.closed and not summary.key_lost
    assert summary.players == ("ann", "bob")
    assert summary.ranking is not None
    winner = summary.ranking[0]
    assert winner == Place(1, winner.player, 2) and isinstance(winner, Place)
    assert archive.game_summary(99) is None
    assert archive.data_folder == store.path.parent


def test_a_games_draws_are_read_from_its_log_undone_ones_marked(store, pebbles):
    game = pebbles_game(store, undo=True)
    draws = Archive(store).logged_draws(game)
    assert [d.nonce for d in draws] == list(range(1, len(draws) + 1))
    assert [d.undone for d in draws] == [True] + [False] * (len(draws) - 1)
    assert all(d.bag == (("black", 3), ("ann", 1), ("bob", 1)) for d in draws)
    assert all(isinstance(d, LoggedDraw) and d.reason == "turn" for d in draws)


def test_a_bag_is_laid_out_as_the_fair_draw_lays_it_out():
    counts = {"ghost": 2, "blue": 3, "red": 1, "black": 4, "stone": 1}
    assert bag_laid_out(["red", "blue"], counts) == (
        ("black", 4),
        ("red", 1),
        ("blue", 3),
        ("ghost", 2),
        ("stone", 1),
    )


def test_a_new_kinds_game_is_told_checked_and_exported(store, pebbles):
    game = pebbles_game(store)
    archive = Archive(store)
    history = archive.history(game)  # told by its kind
    assert history.edition == "pebbles" and history.players == ("ann", "bob")
    assert archive.verify(game).ok
    out = io.StringIO()
    count = archive.export(game, out)
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert count == len(lines) - 1 and lines[-1]["hash"] == archive.chain_head(game)
    assert archive.record().games == 0  # its players are no colours of the record


def test_the_results_of_a_game_whose_kind_tells_no_scores_say_so(store, pebbles):
    game = pebbles_game(store)
    out = io.StringIO()
    with pytest.raises(NoResults, match=f"game {game} is over, but its scores cannot be read"):
        Archive(store).results_csv(game, out)
    assert out.getvalue() == ""
