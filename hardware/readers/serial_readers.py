"""Tag readers on a serial port: the RDM6300 (125 kHz) and the PN532 over its HSU/UART.

Two layers:

* pure, incremental frame parsers (``Rdm6300Parser``, ``Pn532Parser``) that are fed
  arbitrary byte chunks and return only complete, valid frames; noise, partial frames
  and bad checksums give nothing, and parsing resynchronises on the next start marker;
* the devices (``Rdm6300Device``, ``Pn532UartDevice``) implementing ``TagDevice`` with
  pyserial; every serial failure becomes ``ReaderFault``.

PN532 cancellation: ``Pn532UartDevice.open()`` sets MaxRetries with RFConfiguration
(item 0x05, MxRtyPassiveActivation = ``passive_retries``, 2 by default as libnfc does),
so InListPassiveTarget answers NbTg = 0 promptly when no tag is in the field and
``read()`` simply polls until its timeout. Should a response still not arrive within
``response_timeout`` (it should not happen), the device sends an ACK frame, which
aborts the pending command on the PN532, and reports no UID that time.
"""

from __future__ import annotations

import collections
import contextlib
import enum
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import serial

from hardware.readers.base import ReaderFault, TagDevice
from hardware.uid import normalise_uid

try:  # pyserial lets termios.error escape from a few calls on a hung-up tty
    import termios

    _PORT_ERRORS: tuple[type[BaseException], ...] = (
        serial.SerialException,
        OSError,
        termios.error,
    )
except ImportError:  # pragma: no cover - not a POSIX system
    _PORT_ERRORS = (serial.SerialException, OSError)

SerialFactory = Callable[..., Any]

# ---------------------------------------------------------------------------------------
# RDM6300 frames
# ---------------------------------------------------------------------------------------

RDM6300_STX = 0x02
RDM6300_ETX = 0x03
RDM6300_FRAME_LEN = 14  # STX, 10 hex data, 2 hex checksum, ETX
RDM6300_BAUDRATE = 9600

# The module sends uppercase ASCII hex. Lowercase is refused on purpose: 'A' and 'a'
# differ in one bit, so accepting both would let a one-bit error pass as a valid frame.
_UPPER_HEX = frozenset(b"0123456789ABCDEF")


def _xor(data: bytes) -> int:
    check = 0
    for byte in data:
        check ^= byte
    return check


def rdm6300_frame(data: bytes) -> bytes:
    """The 14-byte RDM6300 frame carrying ``data`` (5 bytes: version + card number)."""
    if len(data) != 5:
        raise ValueError(f"an RDM6300 frame carries 5 bytes, not {len(data)}")
    body = data.hex().upper() + f"{_xor(data):02X}"
    return bytes([RDM6300_STX]) + body.encode("ascii") + bytes([RDM6300_ETX])


class Rdm6300Parser:
    """Incremental RDM6300 frame parser: ``feed(chunk)`` returns the 5 data bytes of
    every valid frame completed by ``chunk``, in order.

    A candidate frame starts at an STX byte; as soon as one of its bytes is wrong (a
    byte that is not uppercase hex, no ETX, a bad checksum) only that STX is dropped and
    the search resumes at the next STX, so a frame following garbage is still found.
    An incomplete candidate is kept until the following chunks decide it.
    """

    def __init__(self) -> None:
        self._buf = bytearray()

    def reset(self) -> None:
        self._buf.clear()

    def feed(self, data: bytes) -> list[bytes]:
        buf = self._buf
        buf += data
        frames: list[bytes] = []
        while True:
            start = buf.find(RDM6300_STX)
            if start < 0:
                buf.clear()
                return frames
            del buf[:start]
            have = min(len(buf), RDM6300_FRAME_LEN)
            if not self._plausible(buf, have):
                del buf[:1]
                continue
            if have < RDM6300_FRAME_LEN:
                return frames  # a plausible start: wait for the rest
            payload = bytes.fromhex(buf[1:11].decode("ascii"))
            if _xor(payload) == int(buf[11:13], 16):
                frames.append(payload)
                del buf[:RDM6300_FRAME_LEN]
            else:
                del buf[:1]

    @staticmethod
    def _plausible(buf: bytearray, have: int) -> bool:
        """True when the first ``have`` bytes could still begin a valid frame."""
        if any(buf[i] not in _UPPER_HEX for i in range(1, min(have, RDM6300_FRAME_LEN - 1))):
            return False
        return have < RDM6300_FRAME_LEN or buf[RDM6300_FRAME_LEN - 1] == RDM6300_ETX


# ---------------------------------------------------------------------------------------
# PN532 frames
# ---------------------------------------------------------------------------------------

PN532_START = b"\x00\x00\xff"  # preamble + start code
HOST_TO_PN532 = 0xD4
PN532_TO_HOST = 0xD5
ERROR_TFI = 0x7F  # the application-level error frame 00 00 FF 01 FF 7F 81 00

ACK_FRAME = b"\x00\x00\xff\x00\xff\x00"
NACK_FRAME = b"\x00\x00\xff\xff\x00\x00"
ERROR_FRAME = b"\x00\x00\xff\x01\xff\x7f\x81\x00"

# Wake-up for the HSU: a long preamble; the first command must follow it at once.
PN532_WAKEUP = b"\x55\x55" + b"\x00" * 14

CMD_GET_FIRMWARE_VERSION = 0x02
CMD_SAM_CONFIGURATION = 0x14
CMD_RF_CONFIGURATION = 0x32
CMD_IN_LIST_PASSIVE_TARGET = 0x4A

PN532_IC = 0x32  # the IC byte GetFirmwareVersion reports for a PN532
_MAX_DATA = 254  # LEN counts the TFI and is one byte (extended frames are not used)


class Pn532FrameKind(enum.Enum):
    ACK = "ack"
    NACK = "nack"
    ERROR = "error"  # the syntax-error frame (TFI 0x7F)
    DATA = "data"  # a normal information frame


@dataclass(frozen=True)
class Pn532Frame:
    """One parsed frame; for DATA, ``data`` is what follows the TFI (command code first)."""

    kind: Pn532FrameKind
    data: bytes = b""


def build_pn532_frame(data: bytes, tfi: int = HOST_TO_PN532) -> bytes:
    """A normal information frame: preamble, start code, LEN, LCS, TFI, data, DCS, postamble.

    ``data`` starts with the command code (host->PN532, the default) or the response code
    (``tfi=PN532_TO_HOST``, as a fake PN532 answers).
    """
    if not 1 <= len(data) <= _MAX_DATA:
        raise ValueError(f"a PN532 frame carries 1 to {_MAX_DATA} data bytes, not {len(data)}")
    length = len(data) + 1
    body = bytes([tfi]) + data
    return PN532_START + bytes([length, -length & 0xFF]) + body + bytes([-sum(body) & 0xFF, 0x00])


class Pn532Parser:
    """Incremental PN532 frame parser for one direction (``tfi``: PN532_TO_HOST by default).

    ``feed(chunk)`` returns every complete, valid frame in order: ACK, NACK, the error
    frame and normal information frames carrying ``tfi``. A frame must have its
    preamble, start code, LEN + LCS = 0, TFI + data + DCS = 0 and its 0x00 postamble.
    When a candidate proves wrong only its first byte is dropped and the search resumes
    at the next ``00 00 FF``. Extended frames (LEN = LCS = 0xFF) are not supported and
    are skipped like noise.
    """

    def __init__(self, tfi: int = PN532_TO_HOST) -> None:
        self._tfi = tfi
        self._buf = bytearray()

    def reset(self) -> None:
        self._buf.clear()

    def feed(self, data: bytes) -> list[Pn532Frame]:
        buf = self._buf
        buf += data
        frames: list[Pn532Frame] = []
        while True:
            start = buf.find(PN532_START)
            if start < 0:
                del buf[: max(0, len(buf) - 2)]  # keep what may begin a start code
                return frames
            del buf[:start]
            verdict = self._decide(buf)
            if verdict is None:
                return frames  # plausible so far: wait for more bytes
            if verdict is False:
                del buf[:1]
                continue
            frame, size = verdict
            frames.append(frame)
            del buf[:size]

    def _decide(self, buf: bytearray) -> tuple[Pn532Frame, int] | Literal[False] | None:
        """(frame, size) when ``buf`` starts with a valid frame, False when it cannot,
        None when more bytes are needed to tell."""
        if len(buf) < 5:
            return None
        length, lcs = buf[3], buf[4]
        if (length, lcs) in ((0x00, 0xFF), (0xFF, 0x00)):
            if len(buf) < 6:
                return None
            if buf[5] != 0x00:
                return False
            kind = Pn532FrameKind.ACK if length == 0x00 else Pn532FrameKind.NACK
            return Pn532Frame(kind), 6
        if length == 0 or (length + lcs) & 0xFF:
            return False
        if len(buf) >= 6 and buf[5] != self._tfi and not (buf[5] == ERROR_TFI and length == 1):
            return False
        size = 3 + 2 + length + 2
        if len(buf) < size:
            return None
        body = buf[5 : 5 + length]
        if (sum(body) + buf[5 + length]) & 0xFF or buf[6 + length] != 0x00:
            return False
        if body[0] == ERROR_TFI:
            return Pn532Frame(Pn532FrameKind.ERROR), size
        return Pn532Frame(Pn532FrameKind.DATA, bytes(body[1:])), size


def parse_in_list_passive_target(response: bytes) -> bytes | None:
    """The NFCID1 of the first target in an InListPassiveTarget (106 kbps type A)
    response given without its 0x4B code: NbTg, Tg, SENS_RES (2), SEL_RES, NFCIDLength,
    NFCID1, [ATS]. b"" when NbTg is 0; None when the response is malformed.
    """
    if not response:
        return None
    if response[0] == 0:
        return b""
    if len(response) < 6:
        return None
    uid_len = response[5]
    if uid_len not in (4, 7, 10) or len(response) < 6 + uid_len:
        return None
    return bytes(response[6 : 6 + uid_len])


# ---------------------------------------------------------------------------------------
# The serial link shared by both devices
# ---------------------------------------------------------------------------------------

_EMPTY_READS_FOR_FAULT = 3


class _SerialLink:
    """A pyserial port whose every failure is a ReaderFault naming the port.

    A read that returns nothing long before its timeout means the port is gone (a
    closed pty may report readiness and then give no data); a few in a row raise
    ReaderFault instead of spinning.
    """

    def __init__(self, port: str, handle: Any) -> None:
        self.port = port
        self._handle = handle
        self._timeout: float | None = None
        self._early_empty = 0

    def read_some(self, timeout: float) -> bytes:
        """What arrives within ``timeout`` seconds (returns as soon as anything does)."""
        timeout = max(0.0, timeout)
        try:
            if self._timeout != timeout:
                self._handle.timeout = timeout
                self._timeout = timeout
            waiting = self._handle.in_waiting
            started = time.monotonic()
            chunk = self._handle.read(max(1, waiting))
        except _PORT_ERRORS as exc:
            raise ReaderFault(f"{self.port}: read failed: {exc}") from exc
        if chunk:
            self._early_empty = 0
            return bytes(chunk)
        if timeout > 0 and time.monotonic() - started < timeout / 2:
            self._early_empty += 1
            if self._early_empty >= _EMPTY_READS_FOR_FAULT:
                raise ReaderFault(f"{self.port}: the port returns no data (disconnected?)")
        elif timeout > 0:
            self._early_empty = 0
        return b""

    def write(self, data: bytes) -> None:
        try:
            self._handle.write(data)
        except _PORT_ERRORS as exc:
            raise ReaderFault(f"{self.port}: write failed: {exc}") from exc

    def discard_input(self) -> None:
        try:
            self._handle.reset_input_buffer()
        except _PORT_ERRORS as exc:
            raise ReaderFault(f"{self.port}: {exc}") from exc

    def close(self) -> None:
        with contextlib.suppress(Exception):  # close must never raise
            self._handle.close()


def _open_link(factory: SerialFactory, port: str, baudrate: int) -> _SerialLink:
    try:
        handle = factory(port, baudrate=baudrate, timeout=0.0, write_timeout=1.0)
    except _PORT_ERRORS as exc:
        raise ReaderFault(f"cannot open serial port {port}: {exc}") from exc
    return _SerialLink(port, handle)


# ---------------------------------------------------------------------------------------
# Devices
# ---------------------------------------------------------------------------------------


class Rdm6300Device(TagDevice):
    """An RDM6300 125 kHz reader on a serial port (9600 baud, it only ever sends).

    ``read`` returns a UID for every valid frame received, duplicates included: the
    module repeats its frame while a tag lies on it and debouncing is done elsewhere.
    Partial frames are kept between reads.
    """

    def __init__(
        self,
        port: str,
        baudrate: int = RDM6300_BAUDRATE,
        *,
        serial_factory: SerialFactory = serial.Serial,
    ) -> None:
        self.port = port
        self.baudrate = baudrate
        self.name = f"rdm6300:{port}"
        self._factory = serial_factory
        self._parser = Rdm6300Parser()
        self._link: _SerialLink | None = None

    def open(self) -> None:
        self.close()
        self._parser.reset()
        self._link = _open_link(self._factory, self.port, self.baudrate)

    def read(self, timeout: float) -> list[str]:
        link = self._link
        if link is None:
            raise ReaderFault(f"{self.name} is not open")
        deadline = time.monotonic() + max(0.0, timeout)
        uids: list[str] = []
        while True:
            remaining = deadline - time.monotonic()
            if uids or remaining <= 0:
                # Take what is already waiting without waiting any longer, then stop.
                chunk = link.read_some(0.0)
                uids.extend(self._decode(chunk))
                if not chunk or remaining <= 0:
                    return uids
            else:
                uids.extend(self._decode(link.read_some(remaining)))

    def _decode(self, chunk: bytes) -> list[str]:
        return [normalise_uid(payload) for payload in self._parser.feed(chunk)] if chunk else []

    def close(self) -> None:
        link, self._link = self._link, None
        if link is not None:
            link.close()


class Pn532UartDevice(TagDevice):
    """A PN532 on its HSU (UART) interface, polled with InListPassiveTarget (106 kbps A).

    ``open`` wakes the PN532 (long preamble, then SAMConfiguration in normal mode),
    checks GetFirmwareVersion and sets MaxRetries (see the module docstring) so that a
    poll without a tag returns promptly. ``read(timeout)`` polls until a tag answers or
    the timeout passes and returns ``[uid]`` or ``[]``. A command that gets a NACK, an
    error frame, garbage or no answer gives no UID that time; ``max_failures`` such
    commands in a row, or any serial error, raise ReaderFault. One command may run up to
    ``ack_timeout + response_timeout`` past ``read``'s timeout.
    """

    def __init__(
        self,
        port: str,
        baudrate: int = 115200,
        *,
        serial_factory: SerialFactory = serial.Serial,
        passive_retries: int = 0x02,
        ack_timeout: float = 0.1,
        response_timeout: float = 0.5,
        poll_interval: float = 0.02,
        max_failures: int = 3,
    ) -> None:
        if not 0 <= passive_retries <= 0xFE:
            raise ValueError("passive_retries must be 0..254 (0xFF would wait forever)")
        self.port = port
        self.baudrate = baudrate
        self.name = f"pn532:{port}"
        self.firmware: tuple[int, int, int, int] | None = None  # IC, Ver, Rev, Support
        self._factory = serial_factory
        self._passive_retries = passive_retries
        self._ack_timeout = ack_timeout
        self._response_timeout = response_timeout
        self._poll_interval = poll_interval
        self._max_failures = max_failures
        self._parser = Pn532Parser()
        self._frames: collections.deque[Pn532Frame] = collections.deque()
        self._failures = 0
        self._link: _SerialLink | None = None

    # -- TagDevice -------------------------------------------------------------------

    def open(self) -> None:
        self.close()
        self._link = _open_link(self._factory, self.port, self.baudrate)
        self._failures = 0
        try:
            self._configure()
        except BaseException:
            self.close()
            raise

    def read(self, timeout: float) -> list[str]:
        if self._link is None:
            raise ReaderFault(f"{self.name} is not open")
        deadline = time.monotonic() + max(0.0, timeout)
        while True:
            # MaxTg 1, BrTy 0x00 (106 kbps type A)
            response = self._command(CMD_IN_LIST_PASSIVE_TARGET, b"\x01\x00")
            uid = parse_in_list_passive_target(response) if response is not None else None
            if uid is None:
                self._failures += 1
                if self._failures >= self._max_failures:
                    raise ReaderFault(f"PN532 on {self.port} stopped answering")
                return []
            self._failures = 0
            if uid:
                return [normalise_uid(uid)]
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return []
            time.sleep(min(self._poll_interval, remaining))

    def close(self) -> None:
        link, self._link = self._link, None
        if link is not None:
            link.close()

    # -- the protocol ------------------------------------------------------------------

    def _configure(self) -> None:
        # Normal mode, virtual card timeout 0x14 (50 ms units), IRQ used.
        sam = b"\x01\x14\x01"
        answered = any(
            self._command(CMD_SAM_CONFIGURATION, sam, wake=True) is not None for _ in range(2)
        )
        firmware = self._command(CMD_GET_FIRMWARE_VERSION) if answered else None
        if firmware is None or len(firmware) < 4:
            raise ReaderFault(f"no PN532 on {self.port}")
        if firmware[0] != PN532_IC:
            raise ReaderFault(f"{self.port}: not a PN532 (IC 0x{firmware[0]:02X})")
        self.firmware = (firmware[0], firmware[1], firmware[2], firmware[3])
        # MaxRetries: MxRtyATR 0xFF, MxRtyPSL 0x01 (the defaults), MxRtyPassiveActivation.
        retries = bytes([0x05, 0xFF, 0x01, self._passive_retries])
        if self._command(CMD_RF_CONFIGURATION, retries) is None:
            raise ReaderFault(f"PN532 on {self.port} refused RFConfiguration (MaxRetries)")

    def _command(self, code: int, params: bytes = b"", *, wake: bool = False) -> bytes | None:
        """Send one command and return its response data (after the response code), or
        None when the PN532 sends a NACK or an error frame, or no ACK or response in time.
        Serial errors raise ReaderFault."""
        link = self._link
        if link is None:
            raise ReaderFault(f"{self.name} is not open")
        link.discard_input()
        self._parser.reset()
        self._frames.clear()
        link.write((PN532_WAKEUP if wake else b"") + build_pn532_frame(bytes([code]) + params))

        ack_deadline = time.monotonic() + self._ack_timeout
        while True:
            frame = self._next_frame(link, ack_deadline)
            if frame is None:
                self._abort(link)
                return None
            if frame.kind is Pn532FrameKind.ACK:
                break
            if frame.kind is not Pn532FrameKind.DATA:
                return None  # NACK or error frame
            # a late response to an earlier command: ignore it

        deadline = time.monotonic() + self._response_timeout
        while True:
            frame = self._next_frame(link, deadline)
            if frame is None:
                self._abort(link)
                return None
            if frame.kind is Pn532FrameKind.DATA and frame.data[:1] == bytes([code + 1]):
                return frame.data[1:]
            if frame.kind in (Pn532FrameKind.NACK, Pn532FrameKind.ERROR):
                return None

    def _next_frame(self, link: _SerialLink, deadline: float) -> Pn532Frame | None:
        while not self._frames:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            self._frames.extend(self._parser.feed(link.read_some(remaining)))
        return self._frames.popleft()

    @staticmethod
    def _abort(link: _SerialLink) -> None:
        """An ACK frame from the host aborts the command the PN532 is running."""
        link.write(ACK_FRAME)
