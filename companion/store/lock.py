"""One writer per game: a lock per game, held while a game is open for playing.

The touchscreen and a command-line ``resume`` (or ``abandon``) must never append to the
same game at once: the second would find its next record number taken. Each game open
for writing holds a one-byte record lock at offset ``game`` of ``<database>.lock``; the
operating system drops it when the process ends, however it ends, so a crash never
leaves a game locked. Reading (listing games, verifying, exporting) takes no lock.

POSIX record locks belong to a process, and closing any descriptor of the file drops
them all: one descriptor per lock file is kept open while this process holds any game
of that database, and a game already held by this process counts as held elsewhere too.
"""

from __future__ import annotations

import errno
import fcntl
import os
import threading
from pathlib import Path

from companion.i18n import N_
from companion.store.db import StoreError

_guard = threading.Lock()
_open: dict[str, tuple[int, set[int]]] = {}  # lock file -> (descriptor, games held)


class GameBusy(StoreError):
    """The game is open for writing in another program (or another window)."""


def lock_path(db_path: Path) -> Path:
    return db_path.with_name(db_path.name + ".lock")


def acquire(db_path: Path, game: int) -> None:
    """Hold ``game`` of the database for writing; GameBusy if someone else holds it."""
    path = lock_path(db_path)
    key = os.path.realpath(path)
    busy = GameBusy(
        N_(
            "game {game} is open in another program (the touchscreen or another "
            "command): close it there first; nothing was written"
        ),
        game=game,
    )
    with _guard:
        entry = _open.get(key)
        if entry is None:
            try:
                fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            except OSError as e:
                raise StoreError(
                    N_("cannot open the lock file {path} ({problem})"),
                    path=str(path),
                    problem=e.strerror or str(e),
                ) from None
            entry = (fd, set())
        fd, held = entry
        if game in held:
            raise busy
        try:
            fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, game)
        except OSError as e:
            if not held:
                os.close(fd)
            if e.errno in (errno.EACCES, errno.EAGAIN):
                raise busy from None
            raise StoreError(
                N_("cannot lock game {game} ({problem})"), game=game, problem=e.strerror or str(e)
            ) from None
        held.add(game)
        _open[key] = entry


def release(db_path: Path, game: int) -> None:
    key = os.path.realpath(lock_path(db_path))
    with _guard:
        entry = _open.get(key)
        if entry is None or game not in entry[1]:
            return
        fd, held = entry
        held.discard(game)
        if held:
            fcntl.lockf(fd, fcntl.LOCK_UN, 1, game)
        else:  # closing drops this process's last lock on the file
            os.close(fd)
            del _open[key]
