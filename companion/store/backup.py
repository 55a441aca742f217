"""Copies of the game database taken while a game is being played.

SQLite's online backup copies a consistent snapshot page by page, even while the app is
writing (WAL); a plain file copy could catch a half-written page. The seal key beside the
database is copied with it: without it a running game cannot be resumed.
"""

from __future__ import annotations

import shutil
import sqlite3
import time
from pathlib import Path

from companion.i18n import N_
from companion.store.db import StoreError

PREFIX = "games-"


def backup(database: Path, folder: Path, *, keep: int = 7, now: float | None = None) -> Path:
    """Write ``folder/games-YYYYmmdd-HHMMSS.db`` (and its key) and keep the newest ``keep``."""
    if keep < 1:
        raise StoreError(N_("keep at least one backup"))
    if not database.exists():
        raise StoreError(N_("no game database at {database}"), database=str(database))
    folder.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now))
    target = folder / f"{PREFIX}{stamp}.db"
    partial = target.with_suffix(".db.partial")
    source = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    try:
        dest = sqlite3.connect(partial)
        try:
            source.backup(dest)
        finally:
            dest.close()
    finally:
        source.close()
    partial.replace(target)  # a copy cut short never looks like a good one
    key = database.with_name(database.name + ".key")
    if key.exists():
        shutil.copy2(key, target.with_name(target.name + ".key"))
        target.with_name(target.name + ".key").chmod(0o600)
    for old in sorted(folder.glob(f"{PREFIX}*.db"))[:-keep]:
        old.unlink()
        old.with_name(old.name + ".key").unlink(missing_ok=True)
    return target
