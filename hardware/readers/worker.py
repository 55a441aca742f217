"""Runs one tag device on its own thread: debounced scans out, faults survived.

The worker opens the device, reads it in a loop and hands every accepted scan to
``on_scan`` (called on the worker's thread: a screen must pass it to its main loop).
When the device fails it reports the status, closes it, and reconnects with an
exponential backoff; the worker itself never dies of a device, nor of a callback.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from hardware.readers.base import ReaderFault, ReaderStatus, Scan, TagDevice
from hardware.readers.presence import Presence

log = logging.getLogger(__name__)

ScanHandler = Callable[[Scan], None]
StatusHandler = Callable[[ReaderStatus, str], None]


class ReaderWorker:
    def __init__(
        self,
        device: TagDevice,
        on_scan: ScanHandler,
        on_status: StatusHandler | None = None,
        *,
        gone_after: float = 0.5,
        window: float = 1.0,
        poll: float = 0.1,
        backoff: tuple[float, float] = (0.25, 8.0),
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.device = device
        self.on_scan = on_scan
        self.on_status = on_status
        self.presence = Presence(gone_after, window)
        self.poll = poll
        self.backoff = backoff
        self.clock = clock
        self.status = ReaderStatus.STOPPED
        self.detail = ""
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # ----------------------------------------------------------------- control
    def start(self) -> None:
        if self._thread is not None and self._thread.is_alive():
            return
        self._stop.clear()
        self._thread = threading.Thread(
            target=self.run, name=f"reader {self.device.name}", daemon=True
        )
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
        self._set(ReaderStatus.STOPPED, "")

    # -------------------------------------------------------------------- loop
    def _set(self, status: ReaderStatus, detail: str) -> None:
        if (status, detail) == (self.status, self.detail):
            return
        self.status, self.detail = status, detail
        if self.on_status is not None:
            try:
                self.on_status(status, detail)
            except Exception:  # a status display must not stop the reader
                log.exception("reader status handler failed")

    def run(self) -> None:
        delay = self.backoff[0]
        self._set(ReaderStatus.CONNECTING, self.device.name)
        while not self._stop.is_set():
            try:
                self.device.open()
            except ReaderFault as e:
                self._set(ReaderStatus.RECONNECTING, f"{e}; retrying in {delay:.1f} s")
                self._stop.wait(delay)
                delay = min(delay * 2, self.backoff[1])
                continue
            except Exception as e:  # noqa: BLE001 - a driver bug must not kill the worker
                log.exception("reader %s failed to open", self.device.name)
                self._set(ReaderStatus.RECONNECTING, f"{e!r}; retrying in {delay:.1f} s")
                self._stop.wait(delay)
                delay = min(delay * 2, self.backoff[1])
                continue
            self._set(ReaderStatus.CONNECTED, self.device.name)
            connected_at = self.clock()
            try:
                self._read_until_fault()
            except ReaderFault as e:
                self._set(ReaderStatus.LOST, str(e))
            except Exception as e:  # noqa: BLE001
                log.exception("reader %s failed", self.device.name)
                self._set(ReaderStatus.LOST, repr(e))
            finally:
                try:
                    self.device.close()
                except Exception:  # noqa: BLE001
                    log.exception("reader %s failed to close", self.device.name)
            if self.clock() - connected_at >= self.backoff[1]:
                delay = self.backoff[0]  # it held a good while: this loss is a fresh one
            elif not self._stop.is_set():
                # lost as soon as it opened (a keyboard stream at its end, say): back off,
                # or the worker would spin reopening it
                self._stop.wait(delay)
                delay = min(delay * 2, self.backoff[1])

    def _read_until_fault(self) -> None:
        while not self._stop.is_set():
            uids = self.device.read(self.poll)
            now = self.clock()
            for uid in uids:
                if self.presence.seen(uid, now):
                    self._deliver(Scan(uid, self.device.name, now))
            self.presence.expire(now)

    def _deliver(self, scan: Scan) -> None:
        try:
            self.on_scan(scan)
        except Exception:  # noqa: BLE001 - the table's bug must not stop the reader
            log.exception("scan handler failed for %s", scan.uid)
