"""Serial tag readers: the RDM6300 and PN532 frame parsers, and both devices end to end
against fake readers on a pseudo-terminal."""

from __future__ import annotations

import functools
import operator
import re
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import serial
from hypothesis import example, given, settings
from hypothesis import strategies as st

from hardware.readers.base import ReaderFault, TagDevice
from hardware.readers.fake_serial import FakePn532, FakeRdm6300, FakeSerialPort
from hardware.readers.serial_readers import (
    Pn532Frame,
    Pn532FrameKind,
    Pn532Parser,
    Pn532UartDevice,
    Rdm6300Device,
    Rdm6300Parser,
    build_pn532_frame,
    parse_in_list_passive_target,
    rdm6300_frame,
)

# ---------------------------------------------------------------------------------------
# Independent encoders and plain scans, written from the datasheets without the code
# under test. The property tests compare the incremental parsers with these scans.
# ---------------------------------------------------------------------------------------


def rdm_encode(data: bytes) -> bytes:
    check = functools.reduce(operator.xor, data, 0)
    return b"\x02" + "".join(f"{b:02X}" for b in data + bytes([check])).encode() + b"\x03"


def rdm_scan(stream: bytes) -> list[tuple[int, bytes]]:
    """(position, 5 data bytes) of every valid frame in a complete stream, scanning left
    to right: a valid frame is taken whole, anything else moves on by one byte."""
    found = []
    i = stream.find(b"\x02")
    while i >= 0 and i + 14 <= len(stream):
        window = stream[i : i + 14]
        if window[13] == 0x03 and re.fullmatch(rb"[0-9A-F]{12}", window[1:13]):
            values = bytes.fromhex(window[1:13].decode())
            if functools.reduce(operator.xor, values[:5], 0) == values[5]:
                found.append((i, values[:5]))
                i = stream.find(b"\x02", i + 14)
                continue
        i = stream.find(b"\x02", i + 1)
    return found


ACK = b"\x00\x00\xff\x00\xff\x00"
NACK = b"\x00\x00\xff\xff\x00\x00"
ERROR = b"\x00\x00\xff\x01\xff\x7f\x81\x00"


def pn_encode(payload: bytes, tfi: int = 0xD5) -> bytes:
    length = len(payload) + 1
    dcs = (-(tfi + sum(payload))) % 256
    return b"\x00\x00\xff" + bytes([length, (-length) % 256, tfi]) + payload + bytes([dcs, 0])


def pn_scan(stream: bytes) -> list[tuple[int, str, bytes]]:
    """(position, kind, data) of every valid PN532->host frame in a complete stream."""
    found = []
    i = stream.find(b"\x00\x00\xff")
    while i >= 0:
        size = 0
        if stream[i : i + 6] == ACK:
            found.append((i, "ack", b""))
            size = 6
        elif stream[i : i + 6] == NACK:
            found.append((i, "nack", b""))
            size = 6
        elif i + 5 <= len(stream):
            length, lcs = stream[i + 3], stream[i + 4]
            end = i + 5 + length + 2
            if length and (length + lcs) % 256 == 0 and end <= len(stream):
                body, dcs, post = stream[i + 5 : end - 2], stream[end - 2], stream[end - 1]
                if (sum(body) + dcs) % 256 == 0 and post == 0:
                    if body[0] == 0xD5:
                        found.append((i, "data", body[1:]))
                        size = end - i
                    elif body == b"\x7f":
                        found.append((i, "error", b""))
                        size = end - i
        i = stream.find(b"\x00\x00\xff", i + (size or 1))
    return found


def as_tuples(frames: list[Pn532Frame]) -> list[tuple[str, bytes]]:
    return [(f.kind.value, f.data) for f in frames]


def feed_in_chunks(parser: Any, stream: bytes, sizes: list[int]) -> list[Any]:
    out: list[Any] = []
    pos = 0
    for size in sizes:
        out += parser.feed(stream[pos : pos + size])
        pos += size
    out += parser.feed(stream[pos:])
    return out


# Bytes that cannot start a frame, appended so that every candidate frame in the body is
# decided (an incremental parser rightly keeps waiting on an incomplete one).
RDM_FILLER = b"\xff" * 13
PN_FILLER = b"\x01" * 262

chunk_sizes = st.lists(st.integers(min_value=1, max_value=40), max_size=60)

# ---------------------------------------------------------------------------------------
# RDM6300 parser
# ---------------------------------------------------------------------------------------

rdm_data = st.binary(min_size=5, max_size=5)


@st.composite
def rdm_decoy(draw: st.DrawFn) -> bytes:
    """Noise that looks like frames: truncated, a bad checksum, lowercase hex, raw bytes."""
    frame = rdm_encode(draw(rdm_data))
    kind = draw(st.sampled_from(["truncated", "checksum", "lowercase", "bytes"]))
    if kind == "truncated":
        return frame[: draw(st.integers(1, 13))]
    if kind == "checksum":
        wrong = (int(frame[11:13], 16) + draw(st.integers(1, 255))) % 256
        return frame[:11] + f"{wrong:02X}".encode() + frame[13:]
    if kind == "lowercase":
        return frame.lower() if frame.lower() != frame else frame[:5]
    return draw(st.binary(max_size=30))


def test_rdm6300_known_frame() -> None:
    frame = b"\x0262E3086CED08\x03"
    assert rdm6300_frame(bytes.fromhex("62E3086CED")) == frame
    assert Rdm6300Parser().feed(frame) == [bytes.fromhex("62E3086CED")]


def test_rdm6300_frame_split_byte_by_byte() -> None:
    parser = Rdm6300Parser()
    frame = rdm_encode(bytes.fromhex("0A1B2C3D4E"))
    assert [parser.feed(frame[i : i + 1]) for i in range(13)] == [[]] * 13
    assert parser.feed(frame[13:]) == [bytes.fromhex("0A1B2C3D4E")]


@given(
    items=st.lists(
        st.one_of(rdm_data.map(lambda d: (d, rdm_encode(d))), rdm_decoy().map(lambda b: (None, b))),
        max_size=12,
    ),
    sizes=chunk_sizes,
)
def test_rdm6300_parser_matches_a_plain_scan(
    items: list[tuple[bytes | None, bytes]], sizes: list[int]
) -> None:
    # Expected frames: the independent plain scan of the whole stream, since random noise
    # could in principle hold a valid frame. Every inserted frame must be among them, in
    # order: a candidate that started earlier cannot be valid across a frame's STX (0x02
    # is neither a hex digit nor ETX), so noise never swallows a frame.
    stream = b"".join(raw for _, raw in items) + RDM_FILLER
    expected = [data for _, data in rdm_scan(stream)]
    assert feed_in_chunks(Rdm6300Parser(), stream, sizes) == expected
    remaining = iter(expected)
    assert all(any(got == data for got in remaining) for data, _ in items if data is not None)


@given(
    frames=st.lists(rdm_data, max_size=8),
    noise=st.lists(st.binary(max_size=25).map(lambda b: b.replace(b"\x02", b"")), max_size=9),
    sizes=chunk_sizes,
)
def test_rdm6300_exactly_the_frames_come_out_of_clean_noise(
    frames: list[bytes], noise: list[bytes], sizes: list[int]
) -> None:
    # Noise without any STX byte cannot start a frame: exactly the inserted frames come out.
    stream = b"".join(n + rdm_encode(f) for n, f in zip(noise, frames, strict=False))
    stream += b"".join(rdm_encode(f) for f in frames[len(noise) :])
    stream += b"".join(noise[len(frames) :])
    assert feed_in_chunks(Rdm6300Parser(), stream, sizes) == frames


@given(data=rdm_data, sentinel=rdm_data)
def test_rdm6300_every_single_bit_flip_is_refused(data: bytes, sentinel: bytes) -> None:
    frame = rdm_encode(data)
    assert Rdm6300Parser().feed(frame) == [data]
    for bit in range(len(frame) * 8):
        flipped = bytearray(frame)
        flipped[bit // 8] ^= 1 << (bit % 8)
        assert Rdm6300Parser().feed(bytes(flipped) + RDM_FILLER) == [], f"bit {bit}"
        # and a frame right after the damaged one is still found
        assert Rdm6300Parser().feed(bytes(flipped) + rdm_encode(sentinel)) == [sentinel]


# ---------------------------------------------------------------------------------------
# PN532 parser
# ---------------------------------------------------------------------------------------

pn_payload = st.binary(max_size=40)


@st.composite
def pn_frame(draw: st.DrawFn) -> tuple[bytes, tuple[str, bytes]]:
    kind = draw(st.sampled_from(["data", "data", "data", "ack", "nack", "error"]))
    if kind == "data":
        payload = draw(pn_payload)
        return pn_encode(payload), ("data", payload)
    return {"ack": ACK, "nack": NACK, "error": ERROR}[kind], (kind, b"")


@st.composite
def pn_decoy(draw: st.DrawFn) -> bytes:
    """Noise that looks like frames: truncated, one byte changed, host->PN532, raw bytes."""
    frame, _ = draw(pn_frame())
    kind = draw(st.sampled_from(["truncated", "changed", "host", "bytes"]))
    if kind == "truncated":
        return frame[: draw(st.integers(1, len(frame) - 1))]
    if kind == "changed":
        at = draw(st.integers(0, len(frame) - 1))
        return frame[:at] + bytes([(frame[at] + draw(st.integers(1, 255))) % 256]) + frame[at + 1 :]
    if kind == "host":
        return pn_encode(draw(pn_payload), tfi=0xD4)
    return draw(st.binary(max_size=30))


def test_pn532_known_frames() -> None:
    assert build_pn532_frame(b"\x02") == bytes.fromhex("0000ff02fed4022a00")
    assert build_pn532_frame(b"\x14\x01\x14\x01") == bytes.fromhex("0000ff05fbd4140114010200")
    answer = bytes.fromhex("0000ff06fad50332010607e800")  # GetFirmwareVersion: PN532 v1.6
    stream = ACK + answer + NACK + ERROR
    assert as_tuples(Pn532Parser().feed(stream)) == [
        ("ack", b""),
        ("data", bytes.fromhex("0332010607")),
        ("nack", b""),
        ("error", b""),
    ]


def test_pn532_parser_ignores_the_other_direction_and_wakeup() -> None:
    host = Pn532Parser(tfi=0xD4)
    command = build_pn532_frame(b"\x4a\x01\x00")
    assert host.feed(b"\x55\x55" + b"\x00" * 14 + command) == [
        Pn532Frame(Pn532FrameKind.DATA, b"\x4a\x01\x00")
    ]
    assert Pn532Parser().feed(command) == []


@given(items=st.lists(st.one_of(pn_frame(), pn_decoy()), max_size=10), sizes=chunk_sizes)
def test_pn532_parser_matches_a_plain_scan(
    items: list[tuple[bytes, tuple[str, bytes]] | bytes], sizes: list[int]
) -> None:
    # Expected frames: the independent plain scan of the whole stream (with a filler tail
    # so every candidate is decided). Here noise may legitimately complete or swallow a
    # frame (a truncated header followed by the right bytes), so the scan, not the list
    # of inserted frames, is the reference; the next test uses noise that cannot.
    stream = b"".join(i[0] if isinstance(i, tuple) else i for i in items) + PN_FILLER
    expected = [(kind, data) for _, kind, data in pn_scan(stream)]
    assert as_tuples(feed_in_chunks(Pn532Parser(), stream, sizes)) == expected


@given(
    frames=st.lists(pn_frame(), max_size=8),
    noise=st.lists(st.binary(max_size=25).map(lambda b: b.replace(b"\xff", b"")), max_size=9),
    sizes=chunk_sizes,
)
def test_pn532_exactly_the_frames_come_out_of_clean_noise(
    frames: list[tuple[bytes, tuple[str, bytes]]], noise: list[bytes], sizes: list[int]
) -> None:
    # Noise without 0xFF cannot hold (or help form) a start code 00 00 FF, so exactly the
    # inserted frames come out, in order.
    stream = b"".join(n + f for n, (f, _) in zip(noise, frames, strict=False))
    stream += b"".join(f for f, _ in frames[len(noise) :]) + b"".join(noise[len(frames) :])
    expected = [parsed for _, parsed in frames]
    assert as_tuples(feed_in_chunks(Pn532Parser(), stream, sizes)) == expected


@settings(deadline=None)
@given(frame=pn_frame())
@example(frame=(pn_encode(ACK + ERROR), ("data", ACK + ERROR)))  # frames embedded in data
def test_pn532_every_single_bit_flip_is_refused(frame: tuple[bytes, tuple[str, bytes]]) -> None:
    raw, parsed = frame
    assert as_tuples(Pn532Parser().feed(raw)) == [parsed]
    for bit in range(len(raw) * 8):
        flipped = bytearray(raw)
        flipped[bit // 8] ^= 1 << (bit % 8)
        stream = bytes(flipped) + PN_FILLER
        out = as_tuples(Pn532Parser().feed(stream))
        if b"\x00\x00\xff" not in stream[1:]:
            # no other start code anywhere: the damaged frame must give nothing at all
            assert out == [], f"bit {bit}"
        else:
            # The payload itself holds a start code (random data may embed a whole
            # frame): whatever comes out must be such an embedded frame, valid by
            # construction, never the damaged frame read at position 0.
            found = pn_scan(stream)
            assert out == [(kind, data) for _, kind, data in found], f"bit {bit}"
            assert all(pos > 0 for pos, _, _ in found), f"bit {bit}"


def test_parse_in_list_passive_target() -> None:
    ntag = bytes.fromhex("04A1B2C3D4E5F6")
    assert parse_in_list_passive_target(b"\x01\x01\x00\x44\x00\x07" + ntag) == ntag
    classic = bytes.fromhex("DEADBEEF")
    ats = b"\x05\x78\x80\x70\x02"
    assert parse_in_list_passive_target(b"\x01\x01\x00\x04\x08\x04" + classic + ats) == classic
    assert parse_in_list_passive_target(b"\x00") == b""
    assert parse_in_list_passive_target(b"\x01\x01\x00\x44\x00\x07\x04") is None  # short
    assert parse_in_list_passive_target(b"\x01\x01\x00\x44\x00\x05" + ntag) is None  # length
    assert parse_in_list_passive_target(b"") is None


# ---------------------------------------------------------------------------------------
# Devices against fake readers on a pty
# ---------------------------------------------------------------------------------------


@pytest.fixture
def port(tmp_path: Path) -> Iterator[FakeSerialPort]:
    fake_port = FakeSerialPort(tmp_path, "ttyRFID")
    yield fake_port
    fake_port.close()


def read_until(device: TagDevice, count: int, *, attempts: int = 20) -> list[str]:
    """Read until ``count`` UIDs arrived; fails (rather than hangs) after ``attempts``."""
    seen: list[str] = []
    for _ in range(attempts):
        seen += device.read(0.5)
        if len(seen) >= count:
            return seen
    pytest.fail(f"only {seen} after {attempts} reads")


def opened(device: TagDevice) -> TagDevice:
    device.open()
    return device


@pytest.fixture
def rdm(port: FakeSerialPort) -> Iterator[tuple[Rdm6300Device, FakeRdm6300]]:
    fake = FakeRdm6300(port, interval=0.02)
    device = Rdm6300Device(str(port.path))
    device.open()  # before any frame: opening the port discards what waits in it
    yield device, fake
    fake.close()
    device.close()


def test_rdm6300_uid_comes_through_whole(rdm: tuple[Rdm6300Device, FakeRdm6300]) -> None:
    device, fake = rdm
    assert device.name.startswith("rdm6300:")
    fake.present(bytes.fromhex("0a1b2c3d4e"), repeat=False)
    assert read_until(device, 1) == ["0A1B2C3D4E"]


def test_rdm6300_repeated_frames_give_repeated_uids(
    rdm: tuple[Rdm6300Device, FakeRdm6300],
) -> None:
    device, fake = rdm
    fake.present("1122334455")
    seen = read_until(device, 3)
    fake.remove()
    assert set(seen) == {"1122334455"}


def test_rdm6300_frame_split_across_reads(rdm: tuple[Rdm6300Device, FakeRdm6300]) -> None:
    device, fake = rdm
    frame = rdm6300_frame(bytes.fromhex("0102030405"))
    fake.write_noise(frame[:7])
    assert device.read(0.0) == []
    fake.write_noise(frame[7:])
    assert read_until(device, 1) == ["0102030405"]


def test_rdm6300_noise_and_bad_checksums_give_nothing(
    rdm: tuple[Rdm6300Device, FakeRdm6300],
) -> None:
    device, fake = rdm
    good = rdm6300_frame(bytes.fromhex("A1A2A3A4A5"))
    bad_checksum = good[:11] + b"00" + good[13:]
    fake.write_noise(b"\x02\x03\xff hello \x02" + bad_checksum + good[:9] + good.lower())
    fake.present("0000000001", repeat=False)  # a sentinel: once it is in, so is the junk
    assert read_until(device, 1) == ["0000000001"]


def test_rdm6300_closed_port_faults(rdm: tuple[Rdm6300Device, FakeRdm6300]) -> None:
    device, fake = rdm
    fake.port.close()
    with pytest.raises(ReaderFault, match="ttyRFID"):
        device.read(2.0)


def test_rdm6300_port_closed_during_a_blocking_read_faults(
    rdm: tuple[Rdm6300Device, FakeRdm6300],
) -> None:
    device, fake = rdm
    timer = threading.Timer(0.05, fake.port.close)
    timer.start()
    try:
        with pytest.raises(ReaderFault):
            device.read(3.0)
    finally:
        timer.join()


def test_rdm6300_reconnects_after_reopen(rdm: tuple[Rdm6300Device, FakeRdm6300]) -> None:
    device, fake = rdm
    fake.port.close()
    with pytest.raises(ReaderFault):
        device.read(1.0)
    device.close()
    with pytest.raises(ReaderFault):
        device.open()  # unplugged: the path is gone
    fake.port.reopen()
    device.open()
    fake.present("CAFEBABE00", repeat=False)
    assert read_until(device, 1) == ["CAFEBABE00"]


@pytest.mark.parametrize("make", [Rdm6300Device, Pn532UartDevice])
def test_missing_port_is_a_clear_fault(tmp_path: Path, make: Callable[[str], TagDevice]) -> None:
    missing = str(tmp_path / "ttyNOPE")
    device = make(missing)
    with pytest.raises(ReaderFault, match=f"cannot open serial port {re.escape(missing)}"):
        device.open()
    device.close()


class StubSerial:
    """A serial port that is always "ready" yet returns nothing, or raises."""

    def __init__(self, *, read_error: Exception | None = None) -> None:
        self.read_error = read_error
        self.reads = 0
        self.timeout: float | None = None
        self.in_waiting = 0

    def read(self, size: int = 1) -> bytes:
        self.reads += 1
        if self.read_error is not None:
            raise self.read_error
        return b""

    def write(self, data: bytes) -> int:
        return len(data)

    def reset_input_buffer(self) -> None:
        pass

    def close(self) -> None:
        raise OSError("close failed")


def test_rdm6300_empty_reads_fault_instead_of_spinning() -> None:
    stub = StubSerial()
    device = Rdm6300Device("/dev/ttyS9", serial_factory=lambda *a, **k: stub)
    device.open()
    with pytest.raises(ReaderFault, match="/dev/ttyS9"):
        device.read(5.0)
    assert stub.reads <= 3
    device.close()  # the stub's close raises; the device's must not


def test_rdm6300_readiness_without_data_faults() -> None:
    error = serial.SerialException("device reports readiness to read but returned no data")
    device = Rdm6300Device(
        "/dev/ttyS9", serial_factory=lambda *a, **k: StubSerial(read_error=error)
    )
    device.open()
    with pytest.raises(ReaderFault, match="readiness"):
        device.read(1.0)
    device.close()
    device.close()


def test_read_before_open_faults() -> None:
    with pytest.raises(ReaderFault):
        Rdm6300Device("/dev/ttyS9").read(0.1)
    with pytest.raises(ReaderFault):
        Pn532UartDevice("/dev/ttyS9").read(0.1)


@pytest.fixture
def pn532(port: FakeSerialPort) -> Iterator[tuple[Pn532UartDevice, FakePn532]]:
    fake = FakePn532(port)
    device = Pn532UartDevice(str(port.path), ack_timeout=0.2)
    yield device, fake
    device.close()
    fake.close()


@pytest.mark.parametrize(
    "uid", ["04A1B2C3D4E5F6", "DEADBEEF", "0411223344556677889A"], ids=["ntag", "4", "10"]
)
def test_pn532_uid_comes_through_whole(pn532: tuple[Pn532UartDevice, FakePn532], uid: str) -> None:
    device, fake = pn532
    device.open()
    assert device.name.startswith("pn532:")
    assert device.firmware == (0x32, 0x01, 0x06, 0x07)
    assert fake.commands[:3] == [0x14, 0x02, 0x32]  # SAM, firmware, MaxRetries
    fake.present(bytes.fromhex(uid))
    assert read_until(device, 1) == [uid]
    assert fake.commands[-1] == 0x4A


def test_pn532_no_tag_answers_promptly(pn532: tuple[Pn532UartDevice, FakePn532]) -> None:
    device, fake = pn532
    device.open()
    # MaxRetries is set, so the PN532 answers NbTg = 0; were it left at 0xFF the fake
    # would wait for a tag, every poll would time out and the third read would fault.
    for _ in range(4):
        assert device.read(0.05) == []
    fake.present("04A1B2C3D4E5F6")
    assert device.read(0.05) == ["04A1B2C3D4E5F6"]
    fake.remove()
    assert device.read(0.0) == []


@pytest.mark.parametrize("mode", ["nack", "error", "garbage", "silent"])
def test_pn532_bad_answer_gives_no_uid_this_time(
    pn532: tuple[Pn532UartDevice, FakePn532], mode: Any
) -> None:
    device, fake = pn532
    device.open()
    fake.present("04A1B2C3D4E5F6")
    fake.fail_next(mode)
    assert device.read(0.05) == []
    assert read_until(device, 1) == ["04A1B2C3D4E5F6"]


def test_pn532_repeated_failures_fault(pn532: tuple[Pn532UartDevice, FakePn532]) -> None:
    device, fake = pn532
    device.open()
    fake.fail_next("nack", 3)
    assert device.read(0.05) == []
    assert device.read(0.05) == []
    with pytest.raises(ReaderFault, match="stopped answering"):
        device.read(0.05)


def test_pn532_silent_port_is_no_pn532(port: FakeSerialPort) -> None:
    device = Pn532UartDevice(str(port.path), ack_timeout=0.05)
    with pytest.raises(ReaderFault, match=f"no PN532 on {re.escape(str(port.path))}"):
        device.open()
    device.close()


def test_pn532_closed_port_faults_and_reopen_works(
    pn532: tuple[Pn532UartDevice, FakePn532],
) -> None:
    device, fake = pn532
    device.open()
    fake.present("04A1B2C3D4E5F6")
    assert read_until(device, 1) == ["04A1B2C3D4E5F6"]
    fake.port.close()
    with pytest.raises(ReaderFault, match="ttyRFID"):
        device.read(2.0)
    device.close()
    fake.port.reopen()  # a power cycle too: the fake sleeps until woken again
    device.open()
    assert read_until(device, 1) == ["04A1B2C3D4E5F6"]


def test_fake_pn532_waits_for_a_tag_until_aborted(port: FakeSerialPort) -> None:
    # Without MaxRetries the fake behaves as the chip does: InListPassiveTarget only
    # answers once a tag appears, and an ACK from the host aborts it.
    fake = FakePn532(port)
    link = serial.Serial(str(port.path), 115200, timeout=0.5)
    try:
        parser = Pn532Parser()
        link.write(b"\x55\x55\x00\x00\x00" + build_pn532_frame(b"\x4a\x01\x00"))
        assert parser.feed(link.read(6)) == [Pn532Frame(Pn532FrameKind.ACK)]
        link.write(ACK)  # abort
        link.write(build_pn532_frame(b"\x4a\x01\x00"))
        assert parser.feed(link.read(6)) == [Pn532Frame(Pn532FrameKind.ACK)]
        fake.present("DEADBEEF")
        expected = pn_encode(b"\x4b\x01\x01\x00\x04\x08\x04\xde\xad\xbe\xef")
        assert link.read(len(expected)) == expected
    finally:
        link.close()
        fake.close()
