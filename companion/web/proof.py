"""A finished game's proof for the phones: the commitment, the revealed seed, the chain
head, and the log itself, exported as ``clank-companion audit export`` writes it
(``companion.audit.check.export_game``, the same lines, byte for byte), for the page's
own verifier (``static/verify.js``) and for anyone's ``verify_log.py``.

Only once the game has ended (over or abandoned): before that the server answers 404 and
nothing more. The export goes through the store's own reading code, over the web side's
read-only connection: no key, no sealed seed, no write.
"""

from __future__ import annotations

import io
import sqlite3
from pathlib import Path
from typing import Any

from companion.audit.check import export_game
from companion.store.db import LazyDatabase
from companion.store.log import GameStore
from companion.web.reader import ReplayedGame


class ReadOnlyStore(GameStore):
    """The store's reading methods over a connection opened read-only elsewhere (the
    web side's): never opened for writing, never closed here."""

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self.path = path
        self.db = LazyDatabase(conn, path, writable=False)
        self._held: set[int] = set()


def export_text(conn: sqlite3.Connection, path: Path, game: int) -> str:
    """The game's audit export (JSON Lines: the header, then every record)."""
    out = io.StringIO()
    export_game(ReadOnlyStore(conn, path), game, out)
    return out.getvalue()


def proof(found: ReplayedGame) -> dict[str, Any]:
    """What the proof section shows of an ended game."""
    table = found.table
    seed = getattr(table, "server_seed", None)
    client_seed = ""
    if table is not None and hasattr(table, "game") and hasattr(table.game, "state"):
        client_seed = getattr(table.game.state, "client_seed", "") or ""
    return {
        "game": found.game,
        "edition": table.edition if table is not None else "",
        "status": found.status,
        "closed": found.closed,
        "created_at": found.created_at,
        "commitment": found.commitment,
        "server_seed": seed if isinstance(seed, str) else None,
        "client_seed": client_seed,
        "seed_origin": found.seed_origin,
        "head": found.head,
        "final": found.closed,
        "records": found.seq,
        "draws": found.draws,
        "damaged": found.damaged,
        "export": f"/api/export?game={found.game}",
        "file": f"clank-companion-game-{found.game}.jsonl",
    }
