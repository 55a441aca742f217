"""A fake tag reader for tests and the desktop: ``present(uid)`` and ``remove()``."""

from __future__ import annotations

import threading

from hardware.readers.base import ReaderFault, TagDevice
from hardware.uid import normalise_uid


class FakeReader(TagDevice):
    """Behaves like a polling reader: reports the tag in its field on every read."""

    def __init__(self, name: str = "fake") -> None:
        self.name = name
        self._uid: str | None = None
        self._changed = threading.Condition()
        self._fault: str | None = None
        self._plugged = True
        self.opened = False
        self.opens = 0

    # what a test (or the on-screen scan drawer) does
    def present(self, uid: str | bytes) -> None:
        with self._changed:
            self._uid = normalise_uid(uid)
            self._changed.notify_all()

    def remove(self) -> None:
        with self._changed:
            self._uid = None
            self._changed.notify_all()

    def unplug(self, reason: str = "the reader was unplugged") -> None:
        with self._changed:
            self._plugged = False
            self._fault = reason
            self._changed.notify_all()

    def plug(self) -> None:
        with self._changed:
            self._plugged = True
            self._fault = None
            self._changed.notify_all()

    # the device side
    def open(self) -> None:
        if not self._plugged:
            raise ReaderFault(f"{self.name}: not connected")
        self.opened = True
        self.opens += 1

    def read(self, timeout: float) -> list[str]:
        with self._changed:
            if self._fault is None and self._uid is None:
                self._changed.wait(timeout)
            elif self._fault is None:
                self._changed.wait(min(timeout, 0.05))  # poll rate while a tag lies there
            if self._fault is not None:
                raise ReaderFault(self._fault)
            return [self._uid] if self._uid is not None else []

    def close(self) -> None:
        self.opened = False
