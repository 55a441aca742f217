"""The life every game shares, written once (``companion.live.LiveGame``): both kinds'
controllers are one, and a controller of the tests' own kind lives through it (work in
progress saved, a power cut, resume, close, abandon) without a line of its own for any
of it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.kinds.clank.controller import Controller
from companion.kinds.tschak.control import TschakControl
from companion.live import LiveGame, Update, left_game
from companion.store import GameStore
from tests.helpers import companion_draws_seed
from tests.kinds import mount, unmount

SHARED_LIFE = (
    "resume_last",
    "close_game",
    "abandon",
    "_drop_table",
    "_save",
    "_load_saved",
    "_tell",
    "_refused",
    "game_id",
)


@pytest.mark.parametrize("control", [Controller, TschakControl])
def test_both_controllers_live_the_one_shared_life(control):
    assert issubclass(control, LiveGame)
    for klass in control.__mro__:
        if klass is LiveGame:
            break
        own = [name for name in SHARED_LIFE if name in vars(klass)]
        # Clank's resume_last only narrows the answer to its table (the app's own use)
        assert own in ([], ["resume_last"]), (klass.__name__, own)
        if own:
            assert "super().resume_last()" in _source(klass, "resume_last")


def _source(klass: type, name: str) -> str:
    import inspect

    return inspect.getsource(vars(klass)[name])


def hand_control() -> type[LiveGame]:
    """The controller of the box of the tests' own (``companion.kinds.pebbles``, mounted),
    with work in progress of its own (the pebbles a player has in hand, not yet drawn):
    nothing else of the life."""
    from companion.kinds.pebbles.face import PebbleControl

    class HandControl(PebbleControl):
        def __init__(self, store: GameStore) -> None:
            super().__init__(store)
            self.hand: list[str] = []
            self.heard: list[Update] = []
            self.listeners.append(self.heard.append)

        def _reason(self, error: Exception) -> str:
            return f"pebbles refused: {error}"

        def _clear(self) -> None:
            super()._clear()
            self.hand = []

        def _work(self) -> dict[str, Any]:
            return {"hand": list(self.hand)} if self.hand else {}

        def _restore(self, saved: dict[str, Any]) -> None:
            hand = saved.get("hand")
            if isinstance(hand, list) and all(isinstance(h, str) for h in hand):
                self.hand = hand

        def start(self) -> None:
            with companion_draws_seed("5c" * 32):
                assert self.new_game("pebbles", ["ann", "bob"])

        def hold(self, pebble: str) -> None:
            self.hand.append(pebble)
            self._save()

    return HandControl


@pytest.fixture
def pebbles() -> Iterator[Any]:
    """The box of the tests' own mounted; its controller, with a hand of pebbles."""
    mount()
    yield hand_control()
    unmount()


def test_the_controller_of_a_new_box_lives_the_one_shared_life(pebbles):
    from companion.kinds.pebbles.face import PebbleControl

    test_both_controllers_live_the_one_shared_life(PebbleControl)


def test_a_kind_of_its_own_keeps_its_work_through_a_power_cut(pebbles, tmp_path: Path):
    db = tmp_path / "games.db"
    store = GameStore(db)
    live = pebbles(store)
    live.start()
    live.draw()
    live.hold("black")
    live.hold("ann")
    game = live.game_id
    assert game is not None
    store.close()  # the power cut: nothing else is written

    store = GameStore(db)
    assert left_game(store) == (game, "pebbles", False)
    again = pebbles(store)
    assert again.resume_last() == "resumed"
    assert again.hand == ["black", "ann"] and again.game_id == game
    assert again.table.snapshot() == live.table.snapshot()
    # another kind's controller leaves it alone
    assert Controller(store).resume_last() is None
    while not again.table.finished:
        again.draw()
    assert again.close_game() and again.table is None and again.hand == []
    assert again.heard[-1] == Update("game", "game closed") and again.last == "game closed"
    store.close()

    store = GameStore(db)
    assert pebbles(store).resume_last() == "closed"
    assert store.in_progress(game)["closed"] is True  # saved with the work it had
    store.close()


def test_a_kind_of_its_own_abandons_and_is_refused_in_its_own_words(pebbles, tmp_path):
    store = GameStore(tmp_path / "games.db")
    live = pebbles(store)
    assert not live.abandon() and not live.close_game()  # no game: nothing happens
    live.start()
    live.hold("bob")
    assert live.abandon()
    assert live.heard[-1].kind == "game" and live.table.abandoned
    assert store.game_row(live.game_id)["status"] == "abandoned"
    # the table refuses a second abandon: told as an update, never raised
    assert not live.abandon()
    refused = live.heard[-1]
    assert refused.kind == "rejected" and refused.message.startswith("pebbles refused:")
    store.close()
