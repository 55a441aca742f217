"""What the commands share: the database a command uses, the refusal of a command that
cannot be carried out, and the files a command writes (checked before anything is
opened, written whole or not at all)."""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path
from typing import IO, Any

from companion.config import database_path
from companion.i18n import N_, Refusal
from companion.script import shown_path


def default_db() -> Path:
    """The database a command uses without ``--db``: ``$CLANK_DB``, else the
    configuration's ``[app] database``, else the user's data folder (decided by
    ``companion.config.database_path``, as for the touchscreen)."""
    return database_path()


class CommandError(Refusal):
    """A command that cannot be carried out as asked; nothing was written."""


# The files beside a game database that belong to it: an export must never replace them.
DATABASE_FILES = ("", ".key", "-wal", "-shm", "-journal", ".lock", ".pin-lockout")


def _is_database_file(path: Path, db: Path) -> bool:
    """Whether ``path`` is the database or one of its files (by name, through links)."""
    real = Path(os.path.realpath(db))
    target = Path(os.path.realpath(path))
    for suffix in DATABASE_FILES:
        own = real.with_name(real.name + suffix)
        if target == own:
            return True
        with contextlib.suppress(OSError):  # the same file under another name
            if os.path.samefile(path, own):
                return True
    return False


def checked_output(output: str, db: str) -> Path:
    """The file an ``-o`` names, checked before anything is opened: its folder exists;
    it is not a folder, not the game database ``db`` nor one of its files, and if it
    exists it is a regular file (not a link, a pipe or a device); CommandError otherwise."""
    path = Path(output)
    try:
        if path.is_dir():
            raise CommandError(
                N_("cannot write {path}: it is a folder; name a file in it"), path=shown_path(path)
            )
        if not path.parent.is_dir():
            raise CommandError(
                N_("cannot write {path}: there is no folder {folder}; create it or name another"),
                path=shown_path(path),
                folder=shown_path(path.parent),
            )
        if _is_database_file(path, Path(db)):
            raise CommandError(
                N_(
                    "cannot write {path}: it is the game database or one of its files; name another"
                ),
                path=shown_path(path),
            )
        try:
            mode = os.lstat(path).st_mode
        except FileNotFoundError:
            mode = None
        if mode is not None and not stat.S_ISREG(mode):
            raise CommandError(
                N_(
                    "cannot write {path}: it is not a regular file (a link, a pipe or a "
                    "device); name another"
                ),
                path=shown_path(path),
            )
    except OSError as e:  # a name too long, a folder that cannot be searched
        raise CommandError(
            N_("cannot write {path}: {problem}"),
            path=shown_path(path),
            problem=str(e.strerror or e),
        ) from None
    return path


def write_whole(path: Path, write: Any, *, newline: str | None = None) -> int:
    """Write a file through a temporary ``.export-PID.part`` beside it (a short name, so
    that any name the folder takes will do), renamed once complete: the file is whole
    or untouched, and no ``.part`` is left behind. CommandError if it cannot be written."""
    tmp = path.parent / f".export-{os.getpid()}.part"
    opened = False
    try:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()  # left by a process of the same number that was killed
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
        opened = True
        out: IO[str]
        with open(fd, "w", encoding="utf-8", newline=newline) as out:
            count = int(write(out))
        os.replace(tmp, path)
    except BaseException as e:
        if opened:
            with contextlib.suppress(OSError):
                tmp.unlink()
        if isinstance(e, OSError):
            raise CommandError(
                N_("cannot write {path}: {problem}"),
                path=shown_path(path),
                problem=str(e.strerror or e),
            ) from None
        raise
    return count
