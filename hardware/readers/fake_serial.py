"""Fake serial tag readers on a pseudo-terminal, for the tests and the desktop demo.

``FakeSerialPort`` is a pty whose slave end is reached through a stable symlink (as
``/dev/serial/by-id/...`` would be): the device under test opens the symlink with
pyserial like a real port, while a fake reader writes (and reads) on the master end.
``close()`` unplugs the port: the pty goes away (a reader holding it open gets a fault)
and so does the symlink; ``reopen()`` plugs a new pty in and points the symlink at it.

``FakeRdm6300`` sends RDM6300 frames, repeating them while a tag is present like the
real module. ``FakePn532`` answers a PN532 host on its HSU: wake-up, SAMConfiguration,
GetFirmwareVersion, RFConfiguration and InListPassiveTarget, with ACK and response
frames; without MaxRetries set, InListPassiveTarget waits for a tag until the host
aborts it with an ACK frame, as the real chip does.

POSIX only (``pty``, ``termios``).
"""

from __future__ import annotations

import collections
import contextlib
import errno
import os
import pty
import select
import termios
import threading
import tty
from pathlib import Path
from types import TracebackType
from typing import Literal

from hardware.readers.serial_readers import (
    ACK_FRAME,
    CMD_GET_FIRMWARE_VERSION,
    CMD_IN_LIST_PASSIVE_TARGET,
    CMD_RF_CONFIGURATION,
    CMD_SAM_CONFIGURATION,
    ERROR_FRAME,
    HOST_TO_PN532,
    NACK_FRAME,
    PN532_TO_HOST,
    Pn532Frame,
    Pn532FrameKind,
    Pn532Parser,
    build_pn532_frame,
    rdm6300_frame,
)


def _as_bytes(uid: bytes | str) -> bytes:
    if isinstance(uid, str):
        return bytes.fromhex(uid.replace(":", "").replace(" ", ""))
    return bytes(uid)


class FakeSerialPort:
    """A pseudo-terminal with a stable symlink ``folder/name`` to its slave end."""

    def __init__(self, folder: str | os.PathLike[str], name: str = "ttyFAKE0") -> None:
        self.path = Path(folder) / name
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._master: int | None = None
        self._slave: int | None = None
        self._slave_name: str | None = None
        self._generation = 0
        with self._lock:
            self._plug()

    def __str__(self) -> str:
        return str(self.path)

    @property
    def closed(self) -> bool:
        return self._master is None

    @property
    def generation(self) -> int:
        """Counts the ptys this port has had; a fake device resets when it changes."""
        return self._generation

    @property
    def slave_name(self) -> str | None:
        """The current /dev/pts/N, or None while unplugged."""
        return self._slave_name

    def _plug(self) -> None:
        master, slave = pty.openpty()
        # Raw on both ends: no echo, no newline or flow-control translation.
        for fd in (slave, master):
            tty.setraw(fd, termios.TCSANOW)
        os.set_blocking(master, False)
        self._master, self._slave = master, slave
        self._slave_name = os.ttyname(slave)
        self._generation += 1
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.new")
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        os.symlink(self._slave_name, tmp)
        os.replace(tmp, self.path)  # atomic: the path always names a pty or nothing
        self._changed.notify_all()

    def _unplug(self) -> None:
        for fd in (self._master, self._slave):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._master = self._slave = None
        self._slave_name = None
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        self._changed.notify_all()

    def write(self, data: bytes) -> int:
        """Send ``data`` to the reader; returns the bytes written. What does not fit in
        the pty buffer is dropped, like a UART overrun. OSError when unplugged."""
        with self._lock:
            if self._master is None:
                raise OSError(errno.ENODEV, f"fake port {self.path} is closed")
            view = memoryview(bytes(data))
            written = 0
            while written < len(view):
                try:
                    written += os.write(self._master, view[written:])
                except BlockingIOError:
                    break
            return written

    def read(self, timeout: float, generation: int | None = None) -> bytes:
        """What the reader sent (master side), waiting up to ``timeout``; b"" on timeout,
        while unplugged, or when ``generation`` is given and no longer current."""
        with self._lock:
            if self._master is None or generation not in (None, self._generation):
                self._changed.wait(timeout)
                return b""
            fd, current = self._master, self._generation
        try:
            ready, _, _ = select.select([fd], [], [], timeout)
        except (OSError, ValueError):  # closed meanwhile
            return b""
        if not ready:
            return b""
        with self._lock:
            if self._master is None or self._generation != current:
                return b""  # the fd was closed (maybe reused) while we waited
            try:
                return os.read(fd, 4096)
            except OSError:  # nothing after all (EAGAIN), or the pty is going away
                return b""

    def close(self) -> None:
        """Unplug: close the pty and remove the symlink. Idempotent."""
        with self._lock:
            self._unplug()

    def reopen(self) -> None:
        """Plug a new pty in and point the symlink at it."""
        with self._lock:
            if self._master is not None:
                self._unplug()
            self._plug()

    def __enter__(self) -> FakeSerialPort:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class FakeRdm6300:
    """An RDM6300 on ``port``: sends a tag's frame, repeated every ``interval`` seconds
    while the tag is present (``repeat=True``), as the real module does."""

    def __init__(self, port: FakeSerialPort, *, interval: float = 0.1) -> None:
        self.port = port
        self.interval = interval
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def present(self, uid: bytes | str, *, repeat: bool = True) -> None:
        """Lay a tag (5 bytes: version + card number) on the reader."""
        frame = rdm6300_frame(_as_bytes(uid))
        self.remove()
        self.port.write(frame)
        if repeat:
            self._stop = threading.Event()
            self._thread = threading.Thread(
                target=self._repeat, args=(frame, self._stop), name="fake-rdm6300", daemon=True
            )
            self._thread.start()

    def _repeat(self, frame: bytes, stop: threading.Event) -> None:
        while not stop.wait(self.interval):
            with contextlib.suppress(OSError):  # unplugged: the frames go nowhere
                self.port.write(frame)

    def remove(self) -> None:
        """Take the tag away: the frames stop."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def write_noise(self, data: bytes) -> None:
        self.port.write(data)

    def close(self) -> None:
        self.remove()

    def __enter__(self) -> FakeRdm6300:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


FaultMode = Literal["silent", "nack", "error", "garbage"]

# SENS_RES (ATQA) and SEL_RES (SAK) by UID length: MIFARE Classic 1K, NTAG21x, triple size
_TYPE_A = {4: (b"\x00\x04", 0x08), 7: (b"\x00\x44", 0x00), 10: (b"\x00\x84", 0x00)}


class FakePn532:
    """A PN532 on the HSU of ``port``, emulated by a thread on the master side.

    It sleeps until it sees the 0x55 wake-up bytes (and again after every ``reopen``,
    like a power cycle), then answers each command frame with an ACK and its response.
    ``fail_next`` makes the next commands go wrong: "silent" (no answer), "nack",
    "error" (ACK then the error frame), "garbage", or the given bytes sent instead.
    """

    def __init__(
        self,
        port: FakeSerialPort,
        *,
        firmware: tuple[int, int, int, int] = (0x32, 0x01, 0x06, 0x07),
    ) -> None:
        self.port = port
        self.firmware = firmware
        self.commands: list[int] = []  # command codes received, in order
        self._lock = threading.Lock()
        self._uid: bytes | None = None
        self._faults: collections.deque[FaultMode | bytes] = collections.deque()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="fake-pn532", daemon=True)
        self._thread.start()

    def present(self, uid: bytes | str) -> None:
        """Lay a tag with this UID (4, 7 or 10 bytes) in the field."""
        raw = _as_bytes(uid)
        if len(raw) not in _TYPE_A:
            raise ValueError(f"a type A UID has 4, 7 or 10 bytes, not {len(raw)}")
        with self._lock:
            self._uid = raw

    def remove(self) -> None:
        with self._lock:
            self._uid = None

    def fail_next(self, mode: FaultMode | bytes, count: int = 1) -> None:
        """The next ``count`` commands go wrong: a FaultMode, or these bytes answer them."""
        with self._lock:
            self._faults.extend([mode] * count)

    def close(self) -> None:
        self._stop.set()
        self._thread.join()

    def __enter__(self) -> FakePn532:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the emulation -------------------------------------------------------------------

    def _run(self) -> None:
        parser = Pn532Parser(tfi=HOST_TO_PN532)
        generation = -1
        awake = False
        waiting_for_tag = False  # an InListPassiveTarget without MaxRetries is pending
        max_retries = 0xFF
        last_reply = b""
        while not self._stop.is_set():
            current = self.port.generation
            if current != generation:  # a new pty: a power cycle
                generation = current
                parser.reset()
                awake, waiting_for_tag, max_retries, last_reply = False, False, 0xFF, b""
            chunk = self.port.read(0.02, generation)
            if waiting_for_tag and (reply := self._target_reply()) is not None:
                waiting_for_tag = False
                last_reply = reply
                self._send(reply)
            if not chunk:
                continue
            if 0x55 in chunk:
                awake = True
            for frame in parser.feed(chunk):
                if not awake:
                    continue
                if frame.kind is Pn532FrameKind.ACK:
                    waiting_for_tag = False  # the host aborts the running command
                elif frame.kind is Pn532FrameKind.NACK:
                    self._send(last_reply)  # the host asks for the last reply again
                elif frame.kind is Pn532FrameKind.DATA:
                    waiting_for_tag = False
                    reply, waiting_for_tag, max_retries = self._answer(frame, max_retries)
                    if reply:
                        last_reply = reply
                        self._send(ACK_FRAME + reply)

    def _answer(self, frame: Pn532Frame, max_retries: int) -> tuple[bytes, bool, int]:
        """(reply frame or b"", waiting for a tag, MxRtyPassiveActivation) for a command."""
        code, params = frame.data[0], frame.data[1:]
        self.commands.append(code)
        with self._lock:
            fault = self._faults.popleft() if self._faults else None
        if fault is not None:
            self._send(self._fault_bytes(fault))
            return b"", False, max_retries
        if code == CMD_GET_FIRMWARE_VERSION:
            return self._reply(code, bytes(self.firmware)), False, max_retries
        if code == CMD_SAM_CONFIGURATION:
            return self._reply(code), False, max_retries
        if code == CMD_RF_CONFIGURATION:
            if params[:1] == b"\x05" and len(params) >= 4:
                max_retries = params[3]
            return self._reply(code), False, max_retries
        if code == CMD_IN_LIST_PASSIVE_TARGET:
            reply = self._target_reply()
            if reply is not None:
                return reply, False, max_retries
            if max_retries != 0xFF:
                return self._reply(code, b"\x00"), False, max_retries
            self._send(ACK_FRAME)
            return b"", True, max_retries  # the real chip waits for a tag
        return ERROR_FRAME, False, max_retries

    def _target_reply(self) -> bytes | None:
        with self._lock:
            uid = self._uid
        if uid is None:
            return None
        sens_res, sel_res = _TYPE_A[len(uid)]
        target = b"\x01\x01" + sens_res + bytes([sel_res, len(uid)]) + uid
        return self._reply(CMD_IN_LIST_PASSIVE_TARGET, target)

    @staticmethod
    def _reply(code: int, data: bytes = b"") -> bytes:
        return build_pn532_frame(bytes([code + 1]) + data, tfi=PN532_TO_HOST)

    @staticmethod
    def _fault_bytes(mode: FaultMode | bytes) -> bytes:
        if isinstance(mode, bytes):
            return mode
        if mode == "nack":
            return NACK_FRAME
        if mode == "error":
            return ACK_FRAME + ERROR_FRAME
        if mode == "garbage":
            return b"\x00\xff\x13\x37garbage\x00\x00\xff\x05"
        return b""

    def _send(self, data: bytes) -> None:
        if data:
            with contextlib.suppress(OSError):  # unplugged meanwhile
                self.port.write(data)
