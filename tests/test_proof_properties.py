"""Every honest game verifies, whatever the table did: random games with undo anywhere
(the client seed's action included), a power cut and a resume at any point, abandoned,
finished, closed or left running; each is checked by `audit verify` (which replays it
through the rules) and by the standalone verifier on its export, and both give the
verdict that the game's end calls for.

The number of games is ``PROOF_GAMES`` (default 500, each recorded in a real database);
`PROOF_GAMES=3000 ./dev test tests/test_proof_properties.py` runs thousands.
"""

from __future__ import annotations

import contextlib
import io
import os
import random
from pathlib import Path
from typing import Any

import pytest

from companion.audit.check import export_game, verify_store
from companion.kinds.clank.catalog import load_catalog
from companion.kinds.clank.rules import RuleError
from companion.kinds.clank.table import Table
from companion.session import Session
from companion.store import GameStore
from companion.verify_log import (
    EXIT_OK,
    EXIT_SEALED,
    Finding,
    check_records,
    read_export,
    verdict,
)

GAMES = int(os.environ.get("PROOF_GAMES", "500"))
COLOURS = ["red", "yellow", "green", "blue", "purple", "orange"]


def _cards(edition: str) -> tuple[list[str], list[str]]:
    """The edition's dungeon cards: those with a dragon symbol, and the others."""
    cards = [c for c in load_catalog(edition).cards.values() if c.in_dungeon_deck]
    dragon = sorted(c.name for c in cards if c.dragon_attack)
    quiet = sorted(c.name for c in cards if not c.dragon_attack)
    return dragon, quiet


CARDS = {e: _cards(e) for e in ("clank", "catacombs")}


def random_action(rng: random.Random, table: Table) -> dict[str, Any]:
    """An action a table might send now: mostly legal, often a draw, often an undo."""
    state = table.game.state
    edition = table.edition
    dragon, quiet = CARDS[edition]
    players = list(state.seats)
    inside = [p for p in players if state.players[p].playing] or players
    p = rng.choice(inside)
    roll = rng.random()
    if not state.opening_row_set and roll < 0.3:
        return {"do": "row", "cards": rng.sample(quiet, 3)}
    if roll < 0.10:
        return {"do": "seed", "client_seed": rng.choice(["", "table", "04A1 77", "ÄÖ ✓"])}
    if roll < 0.25:
        return {"do": "undo"}
    if roll < 0.40:
        return {"do": "clank", "player": p, "n": rng.randint(-2, 4)}
    if roll < 0.55:
        revealed = [rng.choice(dragon if rng.random() < 0.5 else quiet)]
        return {"do": "end_turn", "revealed": revealed}
    if roll < 0.62:
        return {"do": "attack"}
    if roll < 0.67:
        return {"do": "ghost"}
    if roll < 0.72:
        return {"do": "damage", "player": p, "n": rng.randint(1, 3)}
    if roll < 0.80:
        return {"do": "artifact", "player": p, "value": rng.choice([5, 10, 15, 20, 25, 30])}
    if roll < 0.90:
        return {"do": "escape", "player": p}
    if roll < 0.95:
        return {"do": "end_turn", "revealed": []}
    return {"do": "cards", "player": rng.choice(players), "cards": rng.sample(quiet, 2)}


def play_one(path: Path, rng: random.Random) -> tuple[int, str]:
    """One random game recorded in ``path``; returns its id and how it ended: "running",
    "abandoned", "over" or "closed"."""
    party = rng.random() < 0.2
    count = rng.randint(2, 6 if party else 4)
    options = {
        "edition": rng.choice(["clank", "catacombs"]),
        "players": COLOURS[:count],
        "party": party,
        "health": rng.randint(3, 10),
        "client_seed": rng.choice(["", "opening row", "04A224B2C35E80"]),
    }
    store = GameStore(path)
    table = Session(store).start(options)
    assert isinstance(table, Table) and table.log is not None
    game = table.log.game
    abandon_at = rng.randint(5, 120) if rng.random() < 0.2 else None
    for step in range(rng.randint(10, 160)):
        if rng.random() < 0.05:  # a power cut: the next start resumes from the log alone
            store.close()  # writes nothing: it lets go of the game and of the file
            store = GameStore(path)
            resumed = Session(store).resume(game)
            assert isinstance(resumed, Table)
            assert resumed.snapshot() == table.snapshot()
            table = resumed
        if step == abandon_at and not table.finished:
            table.abandon("given up at the table")
            break
        with contextlib.suppress(RuleError):  # refused: nothing changed, nothing recorded
            table.apply(random_action(rng, table))
        if table.game.state.game_over and rng.random() < 0.3:
            break
    ending = "running"
    if table.abandoned:
        ending = "abandoned"
    elif table.game.state.game_over:
        ending = "over"
        if rng.random() < 0.5:
            table.close()
            ending = "closed"
    store.close()
    return game, ending


def standalone(store: GameStore, game: int) -> dict[str, Any]:
    out = io.StringIO()
    export_game(store, game, out)
    header, records = read_export(out.getvalue().splitlines())
    return check_records(header, records)


@pytest.mark.parametrize("batch", range(10))
def test_every_honest_game_verifies_with_both_verifiers(tmp_path, batch):
    rng = random.Random(20261125 + batch)
    endings: dict[str, int] = {}
    for n in range(GAMES // 10):
        path = tmp_path / f"games-{n}.db"
        game, ending = play_one(path, rng)
        endings[ending] = endings.get(ending, 0) + 1
        with GameStore(path, create=False) as store:
            (check,) = verify_store(store, game)
            assert check.ok, (batch, n, ending, str(check.message))
            # the database check replays a running game with its key (its draws are
            # recomputed there too), yet its verdict is the standalone verifier's: not yet
            expected = EXIT_SEALED if ending == "running" else EXIT_OK
            assert check.status == expected, (batch, n, ending, str(check.message))
            assert check.final == (ending == "closed")
            try:
                summary = standalone(store, game)
            except Finding as e:
                pytest.fail(f"batch {batch} game {n} ({ending}): {e}")
        assert verdict(summary) == expected, (batch, n, ending, summary)
        assert summary["closed"] == (ending == "closed")
    # the batch saw the endings it is about
    assert "running" in endings and {"over", "closed"} & set(endings), endings
