"""The MFRC522 driver through the real ``mfrc522`` package, against the fake chip.

The package imports RPi.GPIO and spidev at import time; ``fake_pi`` puts fakes of both
into ``sys.modules`` first, so the package's MFRC522 class talks to FakeMfrc522Chip at
the SPI byte level. Tests that need the package skip when it is not installed.
"""

from __future__ import annotations

import errno
import logging
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from hardware.readers.base import ReaderFault
from hardware.readers.fake_mfrc522 import (
    FakeGpio,
    FakeMfrc522Chip,
    FakeMfrc522Device,
    FakeTag,
    fake_pi,
)
from hardware.readers.mfrc522 import Mfrc522Device, crc_a

NTAG = "04A1B2C3D4E580"
CLASSIC = "1A2B3C4D"
TRIPLE = "0811223344556677889A"


@dataclass
class Pi:
    chip: FakeMfrc522Chip
    gpio: FakeGpio
    mfrc522: Any  # the real package, imported against the fakes


@pytest.fixture
def pi() -> Iterator[Pi]:
    chip = FakeMfrc522Chip()
    with fake_pi(chip) as gpio:
        package = pytest.importorskip("mfrc522")
        yield Pi(chip, gpio, package)


@pytest.fixture
def device(pi: Pi) -> Iterator[Mfrc522Device]:
    device = Mfrc522Device()
    device.open()
    yield device
    device.close()


# ------------------------------------------------------------------------ CRC_A
CRC_VECTORS = [
    ("0000", "A01E"),  # ISO/IEC 14443-3, annex B
    ("1234", "26CF"),  # ISO/IEC 14443-3, annex B
    ("313233343536373839", "05BF"),  # "123456789": the CRC catalogue's check 0xBF05
    ("5000", "57CD"),  # HLTA
    ("93708804CFFFBC", "7FBB"),  # a cascade level 1 SELECT, from a Wireshark capture
]


@pytest.mark.parametrize(("data", "crc"), CRC_VECTORS)
def test_crc_a_known_vectors(data: str, crc: str) -> None:
    assert crc_a(bytes.fromhex(data)).hex().upper() == crc


@pytest.mark.parametrize(("data", "crc"), CRC_VECTORS)
def test_the_fake_chips_crc_coprocessor_through_the_package(pi: Pi, data: str, crc: str) -> None:
    chip = pi.mfrc522.MFRC522()
    for _ in range(2):  # the second time CRCIRq is still set from the first
        assert bytes(chip.CalulateCRC(list(bytes.fromhex(data)))).hex().upper() == crc
        # CalcCRC runs until another command; bytes written meanwhile join its sum
        chip.Write_MFRC522(chip.CommandReg, chip.PCD_IDLE)


# ------------------------------------------------------------------- whole UIDs
def test_ntag213_gives_its_whole_seven_byte_uid(pi: Pi, device: Mfrc522Device) -> None:
    pi.chip.present(FakeTag.ntag213(NTAG))
    assert device.read(0.2) == [NTAG]
    assert device.name == "mfrc522:0.0"


def test_the_package_alone_cuts_the_ntag213_uid_at_cascade_level_1(pi: Pi) -> None:
    pi.chip.present(FakeTag.ntag213(NTAG))
    chip = pi.mfrc522.MFRC522()
    status, bits = chip.MFRC522_Request(chip.PICC_REQIDL)
    assert (status, bits) == (chip.MI_OK, 16)
    status, uid = chip.MFRC522_Anticoll()
    assert status == chip.MI_OK
    assert bytes(uid).hex().upper() == "8804A1B29F"  # cascade tag, 3 UID bytes, BCC


def test_mifare_classic_gives_its_four_byte_uid(pi: Pi, device: Mfrc522Device) -> None:
    pi.chip.present(FakeTag.mifare_classic_1k(CLASSIC))
    assert device.read(0.2) == [CLASSIC]


def test_a_ten_byte_uid_takes_three_cascade_levels(pi: Pi, device: Mfrc522Device) -> None:
    pi.chip.present(FakeTag.triple_size(TRIPLE))
    assert device.read(0.2) == [TRIPLE]
    selects = [frame[:2].hex() for frame, _ in pi.chip.frames if frame[1:2] == b"\x70"]
    assert selects == ["9370", "9570", "9770"]


def test_stickers_sharing_their_first_uid_bytes_stay_apart(pi: Pi, device: Mfrc522Device) -> None:
    first, second = FakeTag.ntag213("04A1B2C3D4E580"), FakeTag.ntag213("04A1B2115599AA")
    read = []
    for tag in (first, second):
        pi.chip.present(tag)
        read.append(device.read(0.2))
    assert read == [["04A1B2C3D4E580"], ["04A1B2115599AA"]]
    # what the package would have made of them: the same four bytes twice
    chip = pi.mfrc522.MFRC522()
    seen = []
    for tag in (FakeTag.ntag213("04A1B2C3D4E580"), FakeTag.ntag213("04A1B2115599AA")):
        pi.chip.present(tag)
        chip.MFRC522_Request(chip.PICC_REQIDL)
        seen.append(chip.MFRC522_Anticoll()[1][:4])
    assert seen[0] == seen[1] == [0x88, 0x04, 0xA1, 0xB2]


# --------------------------------------------------------------------- presence
def test_a_tag_is_reported_on_every_read_while_it_lies_there(pi: Pi, device: Mfrc522Device) -> None:
    pi.chip.present(FakeTag.ntag213(NTAG))
    assert [device.read(0) for _ in range(5)] == [[NTAG]] * 5
    sent = [(frame.hex(), bits) for frame, bits in pi.chip.frames]
    assert sent.count(("52", 7)) == 5  # WUPA, which wakes HALTed tags
    assert sent.count(("500057cd", 0)) == 5  # HLTA + CRC_A after every read
    assert ("26", 7) not in sent  # never REQA, which a HALTed tag ignores
    pi.chip.remove()
    assert device.read(0) == []
    assert device.read(0.05) == []


def test_a_read_waits_its_timeout_when_no_tag_answers(device: Mfrc522Device) -> None:
    started = time.monotonic()
    assert device.read(0.15) == []
    took = time.monotonic() - started
    assert 0.15 <= took < 5.0, took  # waits its time, and does not hang (no speed target)


def test_a_tag_laid_down_during_a_read_is_returned_at_once(
    pi: Pi, device: Mfrc522Device, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Counted in the reader's own pauses, not in seconds: a busy machine is slow, but the
    tag must still come back at the next poll, not at the end of the read's five seconds."""
    tag = FakeTag.mifare_classic_1k(CLASSIC)
    original = pi.chip.transfer
    calls = 0
    pauses_after = []  # the pauses the reader took once the tag was there

    def transfer(data: list[int]) -> list[int]:
        nonlocal calls
        calls += 1
        if calls == 200:
            pi.chip.present(tag)
        return original(data)

    class Clock:
        monotonic = staticmethod(time.monotonic)

        @staticmethod
        def sleep(seconds: float) -> None:
            if calls >= 200:
                pauses_after.append(seconds)
            time.sleep(seconds)

    pi.chip.transfer = transfer  # type: ignore[method-assign]
    monkeypatch.setattr("hardware.readers.mfrc522.time", Clock)
    assert device.read(5.0) == [CLASSIC]
    assert calls > 200  # the tag came during the read
    assert len(pauses_after) <= 1, pauses_after  # at most the poll it came in


# -------------------------------------------------------------- garbled answers
@pytest.mark.parametrize(
    ("answer", "fault"),
    [
        ("atqa", "short"),
        ("atqa", "parity"),
        ("uid", "bad_check"),  # a bad BCC
        ("uid", "short"),
        ("uid", "parity"),
        ("uid", "silent"),
        ("sak", "bad_check"),  # a bad CRC_A
        ("sak", "short"),
        ("sak", "parity"),
    ],
)
def test_a_garbled_answer_never_becomes_a_uid(
    pi: Pi, device: Mfrc522Device, answer: str, fault: str
) -> None:
    pi.chip.present(FakeTag.ntag213(NTAG))
    pi.chip.inject(answer, fault)
    assert device.read(0) == []
    assert device.read(0.5) == [NTAG]  # the next polls recover


@pytest.mark.parametrize("level", [1, 2])
def test_a_bad_bcc_at_either_cascade_level_is_no_tag(
    pi: Pi, device: Mfrc522Device, level: int
) -> None:
    pi.chip.present(FakeTag.ntag213(NTAG))
    pi.chip.inject("uid", "bad_check", after=level - 1)
    assert device.read(0) == []
    # the driver itself refused the answer: no SELECT at that level, although the
    # fake tag would have refused a SELECT with the wrong BCC too
    selects = [frame[0] for frame, _ in pi.chip.frames if frame[1:2] == b"\x70"]
    assert selects == [0x93] * (level - 1)
    assert device.read(0.5) == [NTAG]


class CascadeForgettingTag(FakeTag):
    """Sends the cascade tag at level 1 but a SAK that says the UID is complete."""

    def _cascade_step(self, frame: bytes) -> bytes | None:
        answer = super()._cascade_step(frame)
        if answer is not None and frame[:2] == b"\x93\x70":
            return b"\x00" + crc_a(b"\x00")
        return answer


def test_a_sak_that_contradicts_the_cascade_tag_is_no_tag(pi: Pi, device: Mfrc522Device) -> None:
    pi.chip.present(CascadeForgettingTag(NTAG, atqa=0x0044, sak=0x00))
    assert device.read(0.1) == []  # not "8804A1B2"


def test_two_tags_at_once_collide_and_give_nothing(pi: Pi, device: Mfrc522Device) -> None:
    # same first three UID bytes: level 1 agrees, level 2 collides
    pi.chip.present(FakeTag.ntag213("04A1B2C3D4E580"), FakeTag.ntag213("04A1B2115599AA"))
    assert device.read(0.2) == []
    pi.chip.present(FakeTag.ntag213(NTAG), FakeTag.mifare_classic_1k(CLASSIC))
    assert device.read(0.2) == []


# ----------------------------------------------------------------------- faults
@pytest.mark.parametrize("version", [0x00, 0xFF])
def test_no_chip_on_the_bus_is_a_fault_at_open(pi: Pi, version: int) -> None:
    pi.chip.version = version
    device = Mfrc522Device()
    with pytest.raises(ReaderFault, match=f"no MFRC522 answers.*0x{version:02X}"):
        device.open()
    assert pi.gpio.pins == {}  # closed again
    with pytest.raises(ReaderFault, match="not open"):
        device.read(0)


def test_a_missing_spi_device_is_a_fault_at_open(pi: Pi) -> None:
    with pytest.raises(ReaderFault, match="cannot open SPI bus 1 device 0.*spi=on"):
        Mfrc522Device(bus=1).open()


@pytest.mark.parametrize("version", [0x91, 0x92, 0x88, 0x12])
def test_known_chip_versions_open(pi: Pi, version: int) -> None:
    pi.chip.version = version
    device = Mfrc522Device()
    device.open()
    assert device.version == version
    device.close()


def test_an_unknown_chip_version_opens_with_a_warning(
    pi: Pi, caplog: pytest.LogCaptureFixture
) -> None:
    pi.chip.version = 0xB2
    device = Mfrc522Device()
    with caplog.at_level(logging.WARNING):
        device.open()
    assert "unknown chip version 0xB2" in caplog.text
    pi.chip.present(FakeTag.ntag213(NTAG))
    assert device.read(0.2) == [NTAG]
    device.close()


def test_an_spi_error_during_a_read_is_a_fault(pi: Pi, device: Mfrc522Device) -> None:
    pi.chip.present(FakeTag.ntag213(NTAG))
    pi.chip.spi_error = OSError(errno.EIO, "Input/output error")
    with pytest.raises(ReaderFault, match="SPI failed"):
        device.read(0.1)
    device.close()  # must not raise, though SPI still fails
    pi.chip.spi_error = None
    device.open()
    assert device.read(0.2) == [NTAG]


@pytest.mark.parametrize("miso", [0x00, 0xFF])
def test_a_reader_pulled_off_the_bus_is_a_fault(pi: Pi, device: Mfrc522Device, miso: int) -> None:
    device.frame_limit = 0.05
    pi.chip.unplug(miso)
    with pytest.raises(ReaderFault, match="stopped answering"):
        device.read(0.1)
    device.close()
    pi.chip.plug()
    device.open()
    assert device.read(0) == []


# ------------------------------------------------------------------- GPIO, close
def test_the_reset_pin_is_bcm_25_and_close_releases_only_it(pi: Pi) -> None:
    device = Mfrc522Device()
    device.open()
    assert (pi.gpio.mode, pi.gpio.pins) == (FakeGpio.BCM, {25: 1})
    pi.gpio.setup(16, 0)  # the panel's LED, set up by someone else
    device.close()
    device.close()  # twice is fine
    # the reset pin is released; the LED and the numbering mode are left alone
    assert (pi.gpio.mode, pi.gpio.pins) == (FakeGpio.BCM, {16: 0})
    Mfrc522Device(pin_rst=24).open()
    assert pi.gpio.pins == {16: 0, 24: 1}


def test_bcm_numbering_set_by_others_keeps_the_reset_pin(pi: Pi) -> None:
    pi.gpio.setmode(FakeGpio.BCM)  # as gpiozero over RPi.GPIO does
    pi.mfrc522.MFRC522()
    assert pi.gpio.pins == {15: 1}  # the package's own choice: BCM 15, the UART's RX
    pi.gpio.cleanup()
    pi.gpio.setmode(FakeGpio.BCM)
    Mfrc522Device().open()
    assert pi.gpio.pins == {25: 1}


def test_board_numbering_set_by_others_is_a_fault(pi: Pi) -> None:
    pi.gpio.setmode(FakeGpio.BOARD)
    with pytest.raises(ReaderFault, match="BOARD"):
        Mfrc522Device().open()


# -------------------------------------------------------- the desktop, no package
def test_the_fake_device_needs_no_package() -> None:
    device = FakeMfrc522Device()
    device.open()
    assert device.read(0) == []
    device.present("04:a1:b2:c3:d4:e5:80")
    assert device.read(0) == [NTAG]
    device.present(FakeTag.triple_size(TRIPLE))
    assert device.read(0) == [TRIPLE]
    device.remove()
    assert device.read(0) == []
    device.close()


def test_fake_tags_refuse_impossible_uids() -> None:
    with pytest.raises(ValueError, match="4, 7 or 10"):
        FakeTag.for_uid("0102030405")
    with pytest.raises(ValueError, match="0x88"):
        FakeTag.mifare_classic_1k("88010203")
    with pytest.raises(ValueError, match="7-byte"):
        FakeTag.ntag213(CLASSIC)
