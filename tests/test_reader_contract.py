"""One contract for every reader kind: the same cases, through the real ReaderWorker.

Each kind in ``hardware.readers.READERS`` is made (through ``make_reader`` where it can be)
and wired to its emulation:

- ``fake``: the FakeReader itself;
- ``mfrc522``: the real driver and the real ``mfrc522`` package, over fake RPi.GPIO and
  spidev modules, talking SPI to an emulated MFRC522 chip with emulated type A tags;
- ``rdm6300`` and ``pn532``: the real drivers with pyserial on a pseudo-terminal, an
  emulated module on its other end;
- ``wedge``: the keyboard-wedge driver reading a FIFO that the test "types" into.

A ``Rig`` lays a tag and lifts it, unplugs and replugs the reader, and puts garbage on
the wire where the kind has one. The cases run every rig through a real ReaderWorker.
The worker's clock moves one step at each of its reads and jumps when a tag is lifted
(``SteppingClock``): presence and debounce are then measured in reads, so a busy
machine that starves a thread for a while does not turn a lying tag into a lifted one.
Every wait is on an event (a scan in a queue, a status, a number of reads) with a
generous timeout; no case sleeps.

What a kind cannot do is said in ``CANNOT``, which the parametrization shows.
"""

from __future__ import annotations

import contextlib
import os
import queue
import string
import threading
from collections.abc import Callable, Iterator
from functools import reduce
from operator import xor
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from hardware.readers import (
    READERS,
    FakeReader,
    ReaderStatus,
    ReaderWorker,
    Scan,
    TagDevice,
    make_reader,
)
from hardware.readers.fake_mfrc522 import (
    ANSWERS,
    FAULTS,
    FakeMfrc522Chip,
    FakeTag,
    fake_pi,
)
from hardware.readers.fake_serial import FakePn532, FakeRdm6300, FakeSerialPort
from hardware.readers.mfrc522 import Mfrc522Device, crc_a
from hardware.readers.serial_readers import (
    ACK_FRAME,
    Pn532UartDevice,
    Rdm6300Device,
    build_pn532_frame,
    rdm6300_frame,
)
from hardware.readers.wedge import WedgeDevice

KINDS = ("fake", "mfrc522", "rdm6300", "pn532", "wedge")

# type A UIDs (ISO/IEC 14443-3): single, double (NTAG213) and triple size
CLASSIC = "1A2B3C4D"
NTAG_A = "04A1B2C3D4E580"
NTAG_B = "04C5D6E7F80A91"
TRIPLE = "0811223344556677889A"
# 125 kHz EM4100 cards as the RDM6300 reads them: a version byte and a 32-bit number
EM_A = "0A00C0FFEE"
EM_B = "1B2C3D4E5F"

TIMEOUT = 30.0  # for every wait: generous, a busy machine never reaches it
STOP_TIMEOUT = 10.0
STEP = 0.1  # the worker's clock, per call (about one read)
POLL = 0.1
GONE_AFTER = 2.0  # 20 reads without the tag
WINDOW = 0.5
LYING_READS = 30  # longer than both GONE_AFTER and WINDOW, in reads
QUIET_READS = 3

# The cases, by the name kinds_for() takes
CASES = ("whole_uid", "sizes", "lying", "again", "two_tags", "garbage", "stale", "unplug",
         "stop", "stop_unplugged")  # fmt: skip
# The cases a kind cannot do, and why (shown as the skip reason of its parameter).
CANNOT: dict[tuple[str, str], str] = {
    ("fake", "garbage"): "the fake reader has no wire: present() takes a UID or refuses it",
    ("fake", "stale"): "the fake reader has no wire, so no partial frame to leave behind",
    ("mfrc522", "stale"): (
        "no byte stream outlives a poll: every MFRC522 exchange starts from a flushed FIFO, "
        "and an unplugged chip is reset when it is plugged again"
    ),
}


def kinds_for(case: str) -> list[Any]:
    """Every kind as a parameter of ``case``; the ones in CANNOT say why they cannot."""
    assert case in CASES
    return [
        pytest.param(
            kind,
            id=kind,
            marks=[pytest.mark.skip(reason=f"{kind} cannot: {CANNOT[kind, case]}")]
            if (kind, case) in CANNOT
            else [],
        )
        for kind in KINDS
    ]


# ------------------------------------------------------------------- the rigs
class Rig:
    """A reader kind's real device, wired to its emulation."""

    kind = ""
    device: TagDevice
    tag_a, tag_b = NTAG_A, NTAG_B
    uid_bytes = 7  # the length of tag_a's UID: what a scan must carry whole
    sizes: tuple[str, ...] = (CLASSIC, NTAG_A, TRIPLE)  # one UID of each size it reads
    repeats = True  # it reports a tag again and again while the tag lies there
    partial = b""  # the beginning of a frame, for the stale case

    def lay(self, uid: str) -> None:
        raise NotImplementedError

    def lift(self) -> None:
        raise NotImplementedError

    def unplug(self) -> None:
        raise NotImplementedError

    def replug(self) -> None:
        raise NotImplementedError

    def noise(self, data: bytes) -> None:
        """Put garbage made of ``data`` on the wire; never a valid frame."""
        raise NotImplementedError(f"{self.kind} has no wire")

    def send_partial(self) -> None:
        """Leave the beginning of a frame (``partial``) on the wire."""
        raise NotImplementedError(f"{self.kind} has no wire")


class FakeRig(Rig):
    kind = "fake"

    def __init__(self, stack: contextlib.ExitStack, tmp_path: Path) -> None:
        device = make_reader("fake:contract")
        assert isinstance(device, FakeReader)
        self.device = self.reader = device

    def lay(self, uid: str) -> None:
        self.reader.present(uid.lower())

    def lift(self) -> None:
        self.reader.remove()

    def unplug(self) -> None:
        self.reader.unplug()

    def replug(self) -> None:
        self.reader.plug()


class NoiseTag(FakeTag):
    """Something in the field that answers every frame with the next of ``answers``
    (an empty one: silence), whatever the frame was."""

    def __init__(self, answers: list[bytes]) -> None:
        super().__init__(CLASSIC, atqa=0x0004, sak=0x08, kind="noise")
        self.answers = answers or [b""]
        self.heard = 0
        self.heard_all = threading.Event()

    def receive(self, frame: bytes, last_bits: int) -> bytes | None:
        answer = self.answers[self.heard % len(self.answers)]
        self.heard += 1
        if self.heard >= len(self.answers):
            self.heard_all.set()
        return answer or None


class GarblingTag(FakeTag):
    """A real tag, but in each of its exchanges with the reader one answer arrives
    spoilt (``data`` says which and how): the ATQA one byte short or long, a byte of
    the UID CLn + BCC or of the SAK + CRC_A changed, which the BCC or the CRC_A must
    catch. Every answer after the spoilt one in the same exchange is spoilt too, so no
    exchange is ever whole, however the driver's frames and the emulated chip's answers
    fall in time on a busy machine: no scan may come of it."""

    def __init__(self, uid: str, data: bytes) -> None:
        model = FakeTag.for_uid(uid)
        super().__init__(uid, atqa=model.atqa, sak=model.sak, kind="garbled")
        self.data = data or b"\x00"
        self.exchanges = 0
        self.target = ""
        self.spoiling = False  # the exchange's answer has been spoilt: the rest are too
        self.several = threading.Event()

    def receive(self, frame: bytes, last_bits: int) -> bytes | None:
        answer = super().receive(frame, last_bits)
        if answer is None:
            return None
        byte = self.data[self.exchanges % len(self.data)]
        if last_bits == 7:  # REQA/WUPA: a new exchange, and its target
            self.exchanges += 1
            if self.exchanges >= 3:
                self.several.set()
            self.target = ("atqa", "uid", "sak")[byte % 3]
            self.spoiling = False
        kind = "atqa" if last_bits == 7 else "uid" if frame[1:2] == b"\x20" else "sak"
        if kind != self.target and not self.spoiling:
            return answer
        self.spoiling = True
        if kind == "atqa":
            return answer[:1] if byte & 0x80 else answer + answer[:1]
        spoilt = bytearray(answer)
        spoilt[(byte >> 2) % len(spoilt)] ^= (byte >> 4) or 0x01
        return bytes(spoilt)


def mfrc522_answers(data: bytes) -> list[bytes]:
    """Answers cut from ``data`` (a length byte, then that many bytes mod 7). An answer
    that would be a valid SAK (3 bytes, a good CRC_A) gets its last byte changed, so no
    answer sequence can ever complete a SELECT: no UID can come out of the noise."""
    answers, i = [], 0
    while i < len(data):
        size = data[i] % 7
        answer = bytearray(data[i + 1 : i + 1 + size])
        i += 1 + size
        if len(answer) == 3 and crc_a(bytes(answer[:1])) == bytes(answer[1:]):
            answer[2] ^= 0x01
        answers.append(bytes(answer))
    return answers


class Mfrc522Rig(Rig):
    kind = "mfrc522"

    def __init__(self, stack: contextlib.ExitStack, tmp_path: Path) -> None:
        self.chip = FakeMfrc522Chip()
        stack.enter_context(fake_pi(self.chip))  # the real package imports these fakes
        device = make_reader("mfrc522")
        assert isinstance(device, Mfrc522Device)
        self.device = device

    def lay(self, uid: str) -> None:
        self.chip.present(FakeTag.for_uid(uid))

    def lift(self) -> None:
        self.chip.remove()

    def unplug(self) -> None:
        self.chip.unplug()

    def replug(self) -> None:
        self.chip.plug()

    def noise(self, data: bytes) -> None:
        # garbage from the field, answered to the driver's own frames...
        tag = NoiseTag(mfrc522_answers(data))
        self.chip.present(tag)
        assert tag.heard_all.wait(TIMEOUT), "the driver never polled the noise"
        self.chip.remove()
        # ...tag B, every exchange with it spoilt...
        garbled = GarblingTag(NTAG_B, data)
        self.chip.present(garbled)
        assert garbled.several.wait(TIMEOUT), "the driver never polled the garbled tag"
        self.chip.remove()
        # ...and the next tag's first answers garbled on their way to the chip
        for byte in data[:2]:
            self.chip.inject(ANSWERS[byte % 3], sorted(FAULTS)[(byte >> 2) % 4])


def break_rdm6300_frames(stream: bytes) -> bytes:
    """``stream`` with every valid RDM6300 frame spoilt (its ETX changed). Written from
    the datasheet, not with the parser under test."""
    data = bytearray(stream)
    changed = True
    while changed:  # every pass removes an ETX byte: it ends
        changed = False
        for i in range(len(data) - 13):
            window = bytes(data[i : i + 14])
            digits = window[1:13]
            if window[0] != 0x02 or window[13] != 0x03:
                continue
            if not all(chr(c) in "0123456789ABCDEF" for c in digits):
                continue
            values = bytes.fromhex(digits.decode())
            if reduce(xor, values[:5], 0) == values[5]:
                data[i + 13] = 0x00
                changed = True
    return bytes(data)


class SerialRig(Rig):
    """A module on a serial port (a pty): tags laid on the emulated module, the port
    closed and reopened as a cable is pulled and put back."""

    port: FakeSerialPort
    module: FakeRdm6300 | FakePn532
    partial: bytes

    def lay(self, uid: str) -> None:
        self.module.present(uid)

    def lift(self) -> None:
        self.module.remove()

    def unplug(self) -> None:
        self.port.close()

    def replug(self) -> None:
        self.port.reopen()

    def send_partial(self) -> None:
        self.port.write(self.partial)  # PN532: between two commands, the next discards it


class Rdm6300Rig(SerialRig):
    kind = "rdm6300"
    tag_a, tag_b = EM_A, EM_B
    uid_bytes = 5
    sizes = (EM_A,)  # a 125 kHz EM4100 card: always five bytes
    partial = b"\x02" + EM_B[:5].encode()

    def __init__(self, stack: contextlib.ExitStack, tmp_path: Path) -> None:
        self.port = FakeSerialPort(tmp_path, "ttyRDM6300")
        stack.callback(self.port.close)
        self.module = FakeRdm6300(self.port, interval=0.02)
        stack.callback(self.module.close)
        device = make_reader(f"rdm6300:{self.port.path}")
        assert isinstance(device, Rdm6300Device)
        self.device = device

    def noise(self, data: bytes) -> None:
        # random bytes, and tag B's frame with a byte changed by them
        frame = bytearray(rdm6300_frame(bytes.fromhex(EM_B)))
        if data:
            frame[data[0] % len(frame)] ^= data[-1] or 0x01
        self.port.write(break_rdm6300_frames(data + bytes(frame)))


def break_pn532_uid_answers(stream: bytes) -> bytes:
    """``stream`` with every valid PN532 frame that answers InListPassiveTarget (TFI
    0xD5, code 0x4B) spoilt: its code becomes 0x4A, which its checksum then refuses.
    Written from the user manual, not with the parser under test."""
    data = bytearray(stream)
    changed = True
    while changed:  # every pass removes a 0x4B byte: it ends
        changed = False
        for i in range(len(data) - 7):
            if data[i : i + 3] != b"\x00\x00\xff":
                continue
            length, lcs = data[i + 3], data[i + 4]
            end = i + 5 + length + 2
            if length < 2 or (length + lcs) % 256 or end > len(data):
                continue
            body = data[i + 5 : i + 5 + length]
            if body[:2] != b"\xd5\x4b" or (sum(body) + data[end - 2]) % 256 or data[end - 1]:
                continue
            data[i + 6] = 0x4A
            changed = True
    return bytes(data)


class Pn532Rig(SerialRig):
    kind = "pn532"
    partial = b"\x00\x00\xff\x0c\xf4\xd5\x4b\x01\x01\x00\x44\x00\x07"

    def __init__(self, stack: contextlib.ExitStack, tmp_path: Path) -> None:
        self.port = FakeSerialPort(tmp_path, "ttyPN532")
        stack.callback(self.port.close)
        self.module = FakePn532(self.port)
        stack.callback(self.module.close)
        assert isinstance(make_reader(f"pn532:{self.port.path}"), Pn532UartDevice)
        # The driver class itself: make_reader's 0.1 s ACK timeout suits the chip, which
        # answers in a millisecond; the emulation is a thread, which a busy machine may
        # hold up for longer than that.
        self.device = Pn532UartDevice(str(self.port.path), ack_timeout=0.5)

    def noise(self, data: bytes) -> None:
        # the next answers replaced by garbage (with a tag's answer, spoilt, among it),
        # and garbage sent between the commands
        target = b"\x4b\x01\x01\x00\x44\x00\x07" + bytes.fromhex(NTAG_B)  # tag B, whole
        spoilt = bytearray(build_pn532_frame(target, tfi=0xD5))
        if data:
            spoilt[data[0] % len(spoilt)] ^= data[-1] or 0x01
        half = len(data) // 2
        self.module.fail_next(ACK_FRAME + break_pn532_uid_answers(data[:half] + bytes(spoilt)))
        self.port.write(break_pn532_uid_answers(data[half:]))


def break_wedge_lines(stream: bytes) -> bytes:
    """``stream`` as lines, each one that could read as a UID (hex digits and the
    separators a reader may type) spoilt with a 'Z'; the last line ended. A wedge has
    no checksum: a line of hex digits is a UID to it, so garbage must not be one."""
    lines = []
    for line in stream.split(b"\n"):
        text = line.decode("utf-8", errors="replace").strip()
        for separator in ": -":
            text = text.replace(separator, "")
        if not text or all(c in string.hexdigits for c in text):
            line = b"Z" + line
        lines.append(line)
    return b"\n".join(lines) + b"\n"


class WedgeRig(Rig):
    kind = "wedge"
    repeats = False  # it types a tag once; lifting it types nothing
    partial = b"AB"  # a line begun, never ended: glued to the next, "AB04A1..." is a UID

    def __init__(self, stack: contextlib.ExitStack, tmp_path: Path) -> None:
        self.path = tmp_path / "wedge"
        os.mkfifo(self.path)
        self.keyboard: int | None = None
        self.replug()
        stack.callback(self.unplug)
        device = make_reader(f"wedge:{self.path}")
        assert isinstance(device, WedgeDevice)
        self.device = device

    def type(self, data: bytes) -> None:
        assert self.keyboard is not None, "typing on an unplugged keyboard"
        os.write(self.keyboard, data)

    def lay(self, uid: str) -> None:
        self.type(uid.lower().encode() + b"\n")  # as some readers type it: normalised

    def lift(self) -> None:
        pass  # nothing is typed

    def unplug(self) -> None:
        if self.keyboard is not None:
            os.close(self.keyboard)
            self.keyboard = None

    def replug(self) -> None:
        # read-write, so that it opens without waiting for a reader
        self.keyboard = os.open(self.path, os.O_RDWR)

    def noise(self, data: bytes) -> None:
        self.type(break_wedge_lines(data))

    def send_partial(self) -> None:
        self.type(self.partial)


RIGS: dict[str, Callable[[contextlib.ExitStack, Path], Rig]] = {
    rig.kind: rig for rig in (FakeRig, Mfrc522Rig, Rdm6300Rig, Pn532Rig, WedgeRig)
}


# ------------------------------------------------------------- the worker's side
class SteppingClock:
    """The worker's clock: STEP at every call (the worker asks once per read), and a
    jump when the test says time passed (a tag lifted, gone for good)."""

    def __init__(self) -> None:
        self.now = 1000.0
        self._lock = threading.Lock()

    def __call__(self) -> float:
        with self._lock:
            self.now += STEP
            return self.now

    def jump(self, seconds: float) -> None:
        with self._lock:
            self.now += seconds


class Probe(TagDevice):
    """The device as the worker sees it, counting its reads for the test to wait on."""

    def __init__(self, device: TagDevice) -> None:
        self.device = device
        self.name = device.name
        self.reads = 0
        self.last_sighting = 0  # the number of the last read that returned a UID
        self.opens = 0  # the times the worker began to open the device
        self.changed = threading.Condition()

    def open(self) -> None:
        with self.changed:
            self.opens += 1
            self.changed.notify_all()
        self.device.open()

    def read(self, timeout: float) -> list[str]:
        try:
            uids = self.device.read(timeout)
        except BaseException:
            self._count([])
            raise
        self._count(uids)
        return uids

    def _count(self, uids: list[str]) -> None:
        with self.changed:
            self.reads += 1
            if uids:
                self.last_sighting = self.reads
            self.changed.notify_all()

    def close(self) -> None:
        self.device.close()

    def wait(self, done: Callable[[], bool], what: str) -> None:
        with self.changed:
            assert self.changed.wait_for(done, TIMEOUT), f"{what}: {self.reads} reads"


class Run:
    """A rig's device run by a real ReaderWorker; the scans and statuses it reports."""

    def __init__(self, rig: Rig) -> None:
        self.rig = rig
        self.probe = Probe(rig.device)
        self.clock = SteppingClock()
        self.scans: queue.Queue[Scan] = queue.Queue()
        self.statuses: list[tuple[ReaderStatus, str]] = []
        self.changed = threading.Condition()
        self.worker = ReaderWorker(
            self.probe,
            self.scans.put,
            self._status,
            gone_after=GONE_AFTER,
            window=WINDOW,
            poll=POLL,
            backoff=(0.05, 0.5),
            clock=self.clock,
        )

    def _status(self, status: ReaderStatus, detail: str) -> None:
        with self.changed:
            self.statuses.append((status, detail))
            self.changed.notify_all()

    @property
    def alive(self) -> bool:
        thread = self.worker._thread
        return thread is not None and thread.is_alive()

    # ------------------------------------------------------------------- waits
    def wait_status(self, wanted: ReaderStatus, after: int = 0) -> int:
        """The index of the first ``wanted`` status at ``after`` or later."""

        def found() -> int | None:
            return next(
                (i for i, (s, _) in enumerate(self.statuses) if i >= after and s is wanted),
                None,
            )

        with self.changed:
            assert self.changed.wait_for(lambda: found() is not None, TIMEOUT), (
                f"no {wanted.value} after {after}: {self.statuses}"
            )
            index = found()
        assert index is not None
        return index

    def connected(self) -> int:
        return self.wait_status(ReaderStatus.CONNECTED)

    def reads(self, n: int) -> None:
        """Wait until the worker has read the device ``n`` more times."""
        mark = self.probe.reads
        self.probe.wait(lambda: self.probe.reads >= mark + n, f"{n} reads")

    def scan(self) -> Scan:
        try:
            return self.scans.get(timeout=TIMEOUT)
        except queue.Empty:
            raise AssertionError(f"no scan; statuses {self.statuses}") from None

    def quiet(self) -> None:
        """No scan but the ones taken: a few more reads, and none came."""
        self.reads(QUIET_READS)
        extra = []
        while not self.scans.empty():
            extra.append(self.scans.get_nowait().uid)
        assert extra == [], "scans nobody laid a tag for"

    # ----------------------------------------------------------------- actions
    def lay_and_scan(self, uid: str) -> Scan:
        self.rig.lay(uid)
        return self.scan()

    def lift(self) -> None:
        """Lift the tag; once the device has read a few times without any tag, the
        clock jumps past the presence rules: the tag is gone for good."""
        mark = self.probe.reads
        self.rig.lift()
        probe = self.probe
        probe.wait(
            lambda: probe.reads - max(mark, probe.last_sighting) >= QUIET_READS,
            "reads without the lifted tag",
        )
        self.clock.jump(GONE_AFTER + WINDOW + 1.0)

    def stop(self) -> None:
        self.worker.stop(timeout=STOP_TIMEOUT)


@pytest.fixture
def rig(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Rig]:
    with contextlib.ExitStack() as stack:
        yield RIGS[request.param](stack, tmp_path)


@pytest.fixture
def run(rig: Rig) -> Iterator[Run]:
    run = Run(rig)
    run.worker.start()
    try:
        yield run
    finally:
        run.stop()


# ------------------------------------------------------------------- the cases
def test_every_reader_kind_is_in_the_contract() -> None:
    assert sorted(READERS) == sorted(KINDS) == sorted(RIGS)
    assert all(kind in KINDS and case in CASES for kind, case in CANNOT)


@pytest.mark.parametrize("rig", kinds_for("whole_uid"), indirect=True)
def test_a_laid_tag_is_exactly_one_scan_of_its_whole_uid(run: Run) -> None:
    run.connected()
    scan = run.lay_and_scan(run.rig.tag_a)
    assert scan.uid == run.rig.tag_a  # normalised: uppercase hex, nothing else
    assert len(bytes.fromhex(scan.uid)) == run.rig.uid_bytes  # the NTAG's 7, the EM's 5
    assert scan.reader == run.rig.device.name
    run.quiet()


@pytest.mark.parametrize("rig", kinds_for("sizes"), indirect=True)
def test_every_uid_size_the_kind_reads_comes_through_whole(run: Run) -> None:
    run.connected()
    for uid in run.rig.sizes:
        assert run.lay_and_scan(uid).uid == uid
        run.lift()
    run.quiet()


@pytest.mark.parametrize("rig", kinds_for("lying"), indirect=True)
def test_a_tag_left_lying_is_not_reported_again(run: Run) -> None:
    run.connected()
    assert run.lay_and_scan(run.rig.tag_a).uid == run.rig.tag_a
    mark = run.probe.last_sighting
    run.reads(LYING_READS)  # past the window and gone_after, in reads
    if run.rig.repeats:  # it did report the tag all along
        assert run.probe.last_sighting > mark
    run.quiet()


@pytest.mark.parametrize("rig", kinds_for("again"), indirect=True)
def test_lifted_and_laid_again_is_a_new_scan(run: Run) -> None:
    run.connected()
    for _ in range(3):
        assert run.lay_and_scan(run.rig.tag_a).uid == run.rig.tag_a
        run.lift()
    run.quiet()


@pytest.mark.parametrize("rig", kinds_for("two_tags"), indirect=True)
def test_two_different_tags_one_after_the_other(run: Run) -> None:
    run.connected()
    a, b = run.rig.tag_a, run.rig.tag_b
    assert run.lay_and_scan(a).uid == a
    run.lift()
    assert run.lay_and_scan(b).uid == b
    assert run.lay_and_scan(a).uid == a  # B swapped for A without a pause
    run.lift()
    run.quiet()


@pytest.mark.parametrize("rig", kinds_for("garbage"), indirect=True)
@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(noise=st.lists(st.binary(min_size=1, max_size=48), min_size=1, max_size=3))
# (garbage that looks like a tag names tag B: a scan of it would not pass for tag A's)
@example(noise=[b"\x02" + EM_B.encode() + b"00\x03"])  # an RDM6300 frame, bad checksum
@example(noise=[b"\x00\x00\xff\x03\xfd\xd5\x4b\x01\xdf\x00", b"\x00\x00\xff\x00\xff\x00"])
@example(noise=[NTAG_B.lower().encode(), b"\x02\x03\x00\x00\xff\xff\x00\x00\n\n\x88\x04"])
def test_garbage_on_the_wire_never_scans_and_never_kills_the_worker(
    run: Run, noise: list[bytes]
) -> None:
    run.connected()
    for chunk in noise:
        run.rig.noise(chunk)
    # a tag laid after the garbage: the first scan is its own, whole
    assert run.lay_and_scan(run.rig.tag_a).uid == run.rig.tag_a
    run.lift()
    run.quiet()
    assert run.alive


@pytest.mark.parametrize("rig", kinds_for("stale"), indirect=True)
def test_a_partial_frame_before_an_unplug_does_not_spoil_the_next_scan(run: Run) -> None:
    run.connected()
    run.rig.send_partial()
    run.reads(QUIET_READS)  # the device has taken it in
    mark = len(run.statuses)
    run.rig.unplug()
    lost = run.wait_status(ReaderStatus.LOST, mark)
    run.rig.replug()
    run.wait_status(ReaderStatus.CONNECTED, lost)
    assert run.lay_and_scan(run.rig.tag_a).uid == run.rig.tag_a
    run.lift()
    run.quiet()


@pytest.mark.parametrize("rig", kinds_for("unplug"), indirect=True)
def test_unplugged_is_lost_and_replugged_recovers(run: Run) -> None:
    run.connected()
    assert run.lay_and_scan(run.rig.tag_a).uid == run.rig.tag_a
    run.lift()
    mark = len(run.statuses)
    run.rig.unplug()
    lost = run.wait_status(ReaderStatus.LOST, mark)
    assert run.alive
    run.rig.replug()
    run.wait_status(ReaderStatus.CONNECTED, lost)
    assert run.lay_and_scan(run.rig.tag_b).uid == run.rig.tag_b
    run.lift()
    run.quiet()


@pytest.mark.parametrize("rig", kinds_for("stop"), indirect=True)
def test_stop_ends_the_thread(run: Run) -> None:
    run.connected()
    assert run.lay_and_scan(run.rig.tag_a).uid == run.rig.tag_a  # and lying there
    run.stop()
    assert not run.alive
    assert run.worker.status is ReaderStatus.STOPPED
    assert run.statuses[-1] == (ReaderStatus.STOPPED, "")


@pytest.mark.parametrize("rig", kinds_for("stop_unplugged"), indirect=True)
def test_stop_ends_the_thread_while_the_reader_is_unplugged(run: Run) -> None:
    run.connected()
    mark = len(run.statuses)
    run.rig.unplug()
    run.wait_status(ReaderStatus.LOST, mark)
    opens = run.probe.opens
    run.probe.wait(lambda: run.probe.opens > opens, "trying to open it again")
    run.stop()
    assert not run.alive
    assert run.statuses[-1] == (ReaderStatus.STOPPED, "")
