"""Shared test helpers: games with a chance source the test controls."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import Any

import pytest

from companion.kinds.clank.rules import DrawRequest, Game, make_setup


class ScriptedChance:
    """Returns the outcomes a test lists, in order, and keeps the requests it saw.

    An outcome may name fewer cubes than asked only when the bag is that small; the
    rules check the outcome against the bag.
    """

    def __init__(self, *outcomes: Sequence[str]) -> None:
        self.outcomes = [list(o) for o in outcomes]
        self.requests: list[DrawRequest] = []

    def __call__(self, request: DrawRequest) -> list[str]:
        self.requests.append(request)
        if not self.outcomes:
            raise AssertionError(f"unexpected draw: {request}")
        return self.outcomes.pop(0)


def first_cubes(request: DrawRequest) -> list[str]:
    """A deterministic chance source: the bag's canonical order, first cubes first."""
    order = ["black", *request.seats, "ghost"]
    bag = [k for k in order for _ in range(request.bag.get(k, 0))]
    return bag[: min(request.count, len(bag))]


def new_game(
    edition: str = "clank",
    players: Sequence[str] = ("red", "blue"),
    chance: Any = None,
    **options: Any,
) -> Game:
    setup = make_setup({"edition": edition, "players": list(players), **options})
    return Game(setup, chance if chance is not None else first_cubes)


def do(game: Game, action: str, **fields: Any) -> list[dict[str, Any]]:
    return game.apply({"do": action, **fields})


def popup(ui: Any, cls: type) -> Any:
    """The pop-up of class ``cls`` open on the harness's window (the test fails if none)."""
    found = [w for w in ui.window.children if isinstance(w, cls)]
    assert found, f"no {cls.__name__} is open"
    return found[0]


def hypergeometric(total: int, mine: int, drawn: int, k: int) -> float:
    """The chance that ``drawn`` cubes taken without replacement from ``total`` holding
    ``mine`` of one kind include exactly ``k`` of it (an independent reference)."""
    from math import comb

    if k > mine or drawn - k < 0 or drawn - k > total - mine:
        return 0.0
    return comb(mine, k) * comb(total - mine, drawn - k) / comb(total, drawn)


@contextlib.contextmanager
def companion_draws_seed(seed: str) -> Iterator[None]:
    """The companion draws ``seed`` as a new game's server seed, as if its CSPRNG had: the
    game is recorded as one whose seed the companion drew (provably fair once revealed),
    with draws a test can foresee. A seed given in the ``new`` line is recorded as chosen
    outside the companion instead."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("companion.session.new_server_seed", lambda: seed)
        yield
