"""The one reader interface every tag reader implements.

A *device* (``TagDevice``) talks to one piece of hardware: it opens, reports the tag
UIDs it sees during a short read, and closes. It knows nothing of debouncing,
reconnecting or threads: ``hardware.readers.worker`` adds those for every device alike.
"""

from __future__ import annotations

import abc
import enum
from dataclasses import dataclass


class ReaderFault(Exception):
    """The device failed (unplugged, not answering, refused); the worker reconnects."""


class ReaderStatus(enum.Enum):
    CONNECTING = "connecting"
    CONNECTED = "connected"
    LOST = "lost"
    RECONNECTING = "reconnecting"
    STOPPED = "stopped"


@dataclass(frozen=True)
class Scan:
    """One accepted scan: the tag's whole UID in uppercase hex, where and when."""

    uid: str
    reader: str
    at: float  # time.monotonic() when the scan was accepted


class TagDevice(abc.ABC):
    """A tag reader's hardware side."""

    #: a short name for logs and scans, such as "mfrc522:0.0" or "rdm6300:/dev/serial0"
    name: str = "reader"

    @abc.abstractmethod
    def open(self) -> None:
        """Connect; raises ReaderFault when the device is missing or does not answer."""

    @abc.abstractmethod
    def read(self, timeout: float) -> list[str]:
        """Wait up to ``timeout`` seconds; return the UIDs seen (normalised), maybe none.

        A device that polls returns the tag in its field on every call while it lies
        there; one that sends frames returns a UID for every valid frame it received.
        Raises ReaderFault when the device fails; never returns garbage as a UID.
        """

    @abc.abstractmethod
    def close(self) -> None:
        """Release the device; must not raise."""
