"""What wakes the watcher as soon as the table writes to the game database.

Linux tells a process through inotify when a file of a folder is written: the database's
folder is watched for writes to the database and its ``-wal``, ``-shm`` and ``-journal``
files, and each one sets the watcher going at once. The kernel does the watching: while
nothing is written this costs nothing. Where inotify cannot be had (another system, no
watch left), ``start`` says so and the watcher keeps to its poll.
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import os
import struct
from collections.abc import Callable
from pathlib import Path

IN_MODIFY = 0x002
IN_MOVED_FROM = 0x040
IN_MOVED_TO = 0x080
IN_CREATE = 0x100
IN_DELETE = 0x200
IN_NONBLOCK = 0o4000
IN_CLOEXEC = 0o2000000
WATCHED = IN_MODIFY | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE
EVENT = struct.Struct("iIII")  # wd, mask, cookie, length of the name that follows
SUFFIXES = ("", "-wal", "-shm", "-journal")


def _libc() -> ctypes.CDLL | None:
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
    except OSError:
        return None
    if not hasattr(libc, "inotify_init1"):
        return None
    return libc


class Writes:
    """The database's files watched for writes; ``wake`` called (in the loop) after
    each batch of writes to them."""

    def __init__(self, database: Path, wake: Callable[[], None]) -> None:
        self.folder = database.parent
        self.names = {os.fsencode(database.name + s) for s in SUFFIXES}
        self.wake = wake
        self.fd: int | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def start(self) -> str | None:
        """Watch from now on; None, or why the watcher has to keep to its poll."""
        libc = _libc()
        if libc is None:
            return "no inotify on this system"
        fd = libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC)
        if fd < 0:
            return f"inotify: {os.strerror(ctypes.get_errno())}"
        if libc.inotify_add_watch(fd, os.fsencode(self.folder), WATCHED) < 0:
            problem = os.strerror(ctypes.get_errno())
            os.close(fd)
            return f"inotify on {self.folder}: {problem}"
        self.fd = fd
        self._loop = asyncio.get_running_loop()
        self._loop.add_reader(fd, self._read)
        return None

    def _read(self) -> None:
        if self.fd is None:
            return
        try:
            data = os.read(self.fd, 64 * 1024)
        except BlockingIOError:
            return
        except OSError:  # never seen; the poll goes on alone
            self.close()
            return
        written = False
        at = 0
        while at + EVENT.size <= len(data):
            _wd, _mask, _cookie, length = EVENT.unpack_from(data, at)
            name = data[at + EVENT.size : at + EVENT.size + length].rstrip(b"\0")
            at += EVENT.size + length
            written = written or not length or name in self.names
        if written:
            self.wake()

    def close(self) -> None:
        if self.fd is None:
            return
        if self._loop is not None and not self._loop.is_closed():
            self._loop.remove_reader(self.fd)
        os.close(self.fd)
        self.fd = None
