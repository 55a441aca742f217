"""USB keyboard-wedge readers: the reader types the UID and presses Enter.

Such a reader looks like a keyboard. Read from a text stream: standard input of a
terminal, a file or a pipe (the touchscreen feeds its keyboard events the same way).
Many cheap readers type the 4-byte UID as a 10-digit decimal number (``dec``); others
type hex (``hex``, the default). Lines that are not a UID are ignored.

A PATH is opened without waiting: a named pipe that nobody writes to yet opens at once
(and is read once someone does), so the worker's thread never hangs in ``open`` and
can always be stopped. Each opening starts with an empty line: a line typed before a
reconnection without its Enter is never glued to the first line typed after it.
"""

from __future__ import annotations

import contextlib
import os
import select
import sys
from typing import IO

from hardware.readers.base import ReaderFault, TagDevice
from hardware.uid import normalise_uid


def parse_wedge_line(line: str, fmt: str = "hex") -> str | None:
    text = line.strip()
    if not text:
        return None
    if fmt == "dec":
        if not text.isdigit() or int(text) >= 2**32:
            return None
        return f"{int(text):08X}"
    try:
        return normalise_uid(text)
    except ValueError:
        return None


class WedgeDevice(TagDevice):
    def __init__(self, path: str = "-", fmt: str = "hex", stream: IO[str] | None = None) -> None:
        if fmt not in ("hex", "dec"):
            raise ValueError("a keyboard reader types hex or dec")
        self.path = path
        self.fmt = fmt
        self.name = f"wedge:{path}"
        self._given = stream
        self._stream: IO[str] | None = None
        self._buffer = ""

    def open(self) -> None:
        self._buffer = ""  # a line begun before a reconnection is not finished after it
        if self._given is not None:
            self._stream = self._given
        elif self.path == "-":
            self._stream = sys.stdin
        else:
            # O_NONBLOCK: a FIFO without a writer would block open() until one comes
            try:
                fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK)
            except OSError as e:
                raise ReaderFault(f"{self.name}: {e.strerror or e}") from None
            self._stream = os.fdopen(fd, encoding="utf-8", errors="replace")

    def read(self, timeout: float) -> list[str]:
        if self._stream is None:
            raise ReaderFault(f"{self.name}: not open")
        try:
            fd = self._stream.fileno()
        except (OSError, ValueError):
            fd = None
        if fd is not None:
            ready, _, _ = select.select([fd], [], [], timeout)
            if not ready:
                return []
            try:
                chunk = os.read(fd, 4096).decode("utf-8", errors="replace")
            except BlockingIOError:  # ready, and then nothing after all
                return []
            except OSError as e:
                raise ReaderFault(f"{self.name}: {e.strerror or e}") from None
        else:
            chunk = self._stream.readline()
        if not chunk:
            raise ReaderFault(f"{self.name}: the keyboard reader is gone")
        self._buffer += chunk
        *lines, self._buffer = self._buffer.split("\n")
        return [uid for line in lines if (uid := parse_wedge_line(line, self.fmt))]

    def close(self) -> None:
        if self._stream is not None and self._given is None and self.path != "-":
            with contextlib.suppress(OSError):
                self._stream.close()
        self._stream = None
