"""MFRC522 on SPI: the whole 4-, 7- or 10-byte UID of an ISO/IEC 14443-3 type A tag.

Register access goes through the ``mfrc522`` package (the project's ``pi`` extra), but the
tag protocol is done here. The package's ``SimpleMFRC522`` and ``MFRC522_Anticoll`` stop at
cascade level 1: a 7-byte NTAG213 UID comes back as four bytes starting with the cascade
tag 0x88, and stickers that share their first three UID bytes look alike. This driver
runs every cascade level (ISO/IEC 14443-3, 6.5.3) and returns the complete UID.

Each poll wakes the tag with WUPA, reads its UID and sends it to HALT. WUPA also wakes
halted tags, so a tag lying on the reader is reported on every read; debouncing and
presence tracking happen in ``hardware.readers.worker``.

Wiring (SPI0, 3.3 V only): SDA/CS to GPIO 8 (CE0, physical pin 24), SCK to GPIO 11,
MOSI to GPIO 10, MISO to GPIO 9, RST to GPIO 25 (physical pin 22), IRQ unconnected.
Enable SPI (``raspi-config``, or ``dtparam=spi=on`` in config.txt). ``pin_rst`` is a BCM
number, like every pin in this project; the driver sets BCM numbering when nobody has.

Raspberry Pi 5: the package needs the ``RPi.GPIO`` module, and RPi.GPIO does not support
the Pi 5. The ``rpi-lgpio`` package is a drop-in replacement that provides the RPi.GPIO
module on top of lgpio. The two cannot be installed side by side (both install a module
named RPi.GPIO), so uninstall RPi.GPIO first::

    pip uninstall RPi.GPIO
    pip install rpi-lgpio

``mfrc522`` declares RPi.GPIO as a requirement, so installing or upgrading it (or the
``pi`` extra) brings RPi.GPIO back: uninstall it again afterwards.

The package is imported only in ``open()``: it imports RPi.GPIO and spidev at import
time, which works only on a Pi. ``chip_factory`` replaces it (tests, the desktop: see
``hardware.readers.fake_mfrc522``).
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Callable
from typing import Protocol

from hardware.readers.base import ReaderFault, TagDevice
from hardware.uid import normalise_uid

log = logging.getLogger(__name__)

# ---------------------------------------------------------------- MFRC522 registers
# Addresses and bits from the MFRC522 datasheet (section 9), only those used here.
COMMAND_REG = 0x01
COMM_IRQ_REG = 0x04
DIV_IRQ_REG = 0x05
ERROR_REG = 0x06
FIFO_DATA_REG = 0x09
FIFO_LEVEL_REG = 0x0A
CONTROL_REG = 0x0C
BIT_FRAMING_REG = 0x0D
VERSION_REG = 0x37

CMD_IDLE = 0x00
CMD_TRANSCEIVE = 0x0C

IRQ_RX = 0x20  # CommIrqReg: the receiver found the end of a frame (garbled ones too)
IRQ_IDLE = 0x10  # CommIrqReg: a command ended by itself
IRQ_TIMER = 0x01  # CommIrqReg: the timer ran out, i.e. no tag answered
IRQ_ALL = 0x7F  # CommIrqReg written with Set1 = 0: clear these flags
IRQ_CRC = 0x04  # DivIrqReg: the CRC coprocessor is done

FLUSH_FIFO = 0x80  # FIFOLevelReg
FIFO_LEVEL = 0x7F
START_SEND = 0x80  # BitFramingReg; its low three bits are TxLastBits
RX_LAST_BITS = 0x07  # ControlReg: valid bits in the last received byte, 0 = all
RECEIVE_ERRORS = 0x1B  # ErrorReg: BufferOvfl | CollErr | ParityErr | ProtocolErr

#: VersionReg values of chips that work (0x00 and 0xFF: nothing answers on the bus)
KNOWN_VERSIONS = {
    0x91: "MFRC522 v1.0",
    0x92: "MFRC522 v2.0",
    0x88: "FM17522 (a clone)",
    0x12: "a counterfeit MFRC522",
}
NO_CHIP = (0x00, 0xFF)

# ---------------------------------------------------------- ISO/IEC 14443-3 type A
WUPA = 0x52  # wake-up, 7-bit short frame: wakes IDLE and HALT tags
SHORT_FRAME_BITS = 7
HLTA = bytes([0x50, 0x00])  # then CRC_A; a tag does not answer
CASCADE_LEVELS = (0x93, 0x95, 0x97)  # the SEL code of each cascade level
NVB_ANTICOLLISION = 0x20  # SEL and NVB only: the tag answers its whole UID CLn and BCC
NVB_SELECT = 0x70  # SEL, NVB, the UID CLn and its BCC: 7 bytes, then CRC_A
CASCADE_TAG = 0x88  # first byte of a UID CLn that holds only 3 UID bytes
SAK_UID_NOT_COMPLETE = 0x04  # SAK's cascade bit: go on to the next level

DEFAULT_RESET_PIN = 25  # BCM GPIO 25, physical pin 22


def crc16(data: bytes, preset: int = 0x6363) -> int:
    """The CRC of ISO/IEC 14443-3 (reflected polynomial 0x8408) from ``preset``."""
    crc = preset
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x8408 if crc & 1 else crc >> 1
    return crc


def crc_a(data: bytes) -> bytes:
    """CRC_A (preset 0x6363), low byte first, as it follows a frame."""
    crc = crc16(data)
    return bytes([crc & 0xFF, crc >> 8])


def bcc(uid_part: bytes) -> int:
    """The block check character of a UID CLn: the XOR of its four bytes."""
    check = 0
    for byte in uid_part:
        check ^= byte
    return check


class RegisterChip(Protocol):
    """The calls of the package's ``mfrc522.MFRC522`` class that this driver makes."""

    def Read_MFRC522(self, addr: int) -> int: ...

    def Write_MFRC522(self, addr: int, val: int) -> None: ...

    def SetBitMask(self, reg: int, mask: int) -> None: ...

    def ClearBitMask(self, reg: int, mask: int) -> None: ...

    def CalulateCRC(self, pIndata: list[int]) -> list[int]: ...

    def Close_MFRC522(self) -> None: ...


class Mfrc522Device(TagDevice):
    """An MFRC522 on SPI bus ``bus``, chip select ``device``, reset on BCM pin ``pin_rst``."""

    #: pause between polls while no tag answers
    poll_interval = 0.03
    #: the chip's own timer ends a frame nobody answers after 15 ms (the package's
    #: MFRC522_Init); no interrupt at all for this long means the chip is gone
    frame_limit = 0.25

    def __init__(
        self,
        bus: int = 0,
        device: int = 0,
        pin_rst: int | None = None,
        *,
        chip_factory: Callable[[], RegisterChip] | None = None,
    ) -> None:
        self.bus = bus
        self.device = device
        self.pin_rst = DEFAULT_RESET_PIN if pin_rst is None else pin_rst
        self.name = f"mfrc522:{bus}.{device}"
        self.version: int | None = None
        self._chip_factory = chip_factory
        self._chip: RegisterChip | None = None

    # ------------------------------------------------------------------ open/close
    def open(self) -> None:
        self.close()
        try:
            chip = self._chip_factory() if self._chip_factory else self._package_chip()
        except OSError as e:
            raise ReaderFault(
                f"{self.name}: cannot open SPI bus {self.bus} device {self.device} ({e}); "
                "is SPI enabled (raspi-config, dtparam=spi=on)?"
            ) from e
        except RuntimeError as e:  # what RPi.GPIO raises off a Pi, on a Pi 5, without rights
            raise ReaderFault(
                f"{self.name}: GPIO refused ({e}); on a Raspberry Pi 5 replace RPi.GPIO "
                "with rpi-lgpio"
            ) from e
        try:
            version = chip.Read_MFRC522(VERSION_REG)
        except OSError as e:
            _close_quietly(chip, self.pin_rst)
            raise ReaderFault(f"{self.name}: SPI failed: {e}") from e
        if version in NO_CHIP:
            _close_quietly(chip, self.pin_rst)
            raise ReaderFault(
                f"{self.name}: no MFRC522 answers on SPI bus {self.bus} device {self.device} "
                f"(VersionReg reads 0x{version:02X}); check the wiring and the 3.3 V supply"
            )
        if version in KNOWN_VERSIONS:
            log.info("%s: %s", self.name, KNOWN_VERSIONS[version])
        else:
            log.warning("%s: unknown chip version 0x%02X; trying it anyway", self.name, version)
        self.version = version
        self._chip = chip

    def _package_chip(self) -> RegisterChip:
        """The package's MFRC522, imported now: it needs RPi.GPIO and spidev, so a Pi."""
        try:
            import RPi.GPIO as GPIO
            from mfrc522 import MFRC522
        except ImportError as e:
            raise ReaderFault(
                f"{self.name}: the mfrc522 package is missing ({e}); install the 'pi' extra"
            ) from e
        # The package would choose BOARD numbering and pin 22 when no mode is set, but
        # BCM pin 15 (the UART's RX) when someone already chose BCM; and gpiozero over
        # RPi.GPIO wants BCM. So: BCM, and the reset pin as a BCM number.
        mode = GPIO.getmode()
        if mode is None:
            GPIO.setmode(GPIO.BCM)
        elif mode != GPIO.BCM:
            raise ReaderFault(
                f"{self.name}: GPIO numbering is already BOARD in this process; "
                "the reset pin is a BCM number"
            )
        return MFRC522(bus=self.bus, device=self.device, pin_rst=self.pin_rst)

    def close(self) -> None:
        chip, self._chip = self._chip, None
        if chip is not None:
            _close_quietly(chip, self.pin_rst)

    # ------------------------------------------------------------------------ read
    def read(self, timeout: float) -> list[str]:
        chip = self._chip
        if chip is None:
            raise ReaderFault(f"{self.name}: not open")
        deadline = time.monotonic() + timeout
        try:
            while True:
                uid = self._poll(chip)
                if uid is not None:
                    return [normalise_uid(uid)]
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    break
                time.sleep(min(self.poll_interval, remaining))
            version = chip.Read_MFRC522(VERSION_REG)
        except OSError as e:
            raise ReaderFault(f"{self.name}: SPI failed: {e}") from e
        if version != self.version:  # unplugged: the bus reads 0x00 or 0xFF
            raise ReaderFault(f"{self.name}: the MFRC522 stopped answering")
        return []

    def _poll(self, chip: RegisterChip) -> bytes | None:
        """One look at the field: the UID of the tag there, or None (no tag, or garbled)."""
        atqa = self._transceive(chip, bytes([WUPA]), last_bits=SHORT_FRAME_BITS)
        if atqa is None or len(atqa) != 2:
            return None
        uid = self._anticollision_and_select(chip)
        if uid is not None:
            self._halt(chip)
        return uid

    def _anticollision_and_select(self, chip: RegisterChip) -> bytes | None:
        """ISO/IEC 14443-3, 6.5.3: one cascade level after another until SAK says done."""
        uid = b""
        for sel in CASCADE_LEVELS:
            # ANTICOLLISION with no UID bits known: the tag sends UID CLn (4 bytes) + BCC.
            uid_cln = self._transceive(chip, bytes([sel, NVB_ANTICOLLISION]))
            if uid_cln is None or len(uid_cln) != 5 or bcc(uid_cln[:4]) != uid_cln[4]:
                return None
            # SELECT that UID CLn: the tag answers SAK + CRC_A.
            select = bytes([sel, NVB_SELECT]) + uid_cln
            sak = self._transceive(chip, select + self._chip_crc(chip, select))
            if sak is None or len(sak) != 3 or crc_a(sak[:1]) != sak[1:]:
                return None
            not_complete = bool(sak[0] & SAK_UID_NOT_COMPLETE)
            if not_complete != (uid_cln[0] == CASCADE_TAG):
                return None  # the cascade tag and the SAK disagree: not a valid answer
            if not not_complete:
                return uid + uid_cln[:4]
            uid += uid_cln[1:4]  # the cascade tag, then three UID bytes
        return None  # ISO/IEC 14443-3 has no fourth cascade level

    def _halt(self, chip: RegisterChip) -> None:
        """HLTA: the tag answers nothing and then wakes only for WUPA (the next poll)."""
        self._transceive(chip, HLTA + self._chip_crc(chip, HLTA))

    # ------------------------------------------------------------ the chip's side
    def _transceive(self, chip: RegisterChip, frame: bytes, last_bits: int = 0) -> bytes | None:
        """Send ``frame`` (only ``last_bits`` bits of its last byte if not 0), return the answer.

        None when no tag answered (the chip's timer ran out) or the answer was garbled.
        This is the package's MFRC522_ToCard redone: its wait loop cannot see the timer
        (it spins 2000 SPI reads on every frame nobody answers, each HALT included) and
        it does not report a partial last byte.
        """
        chip.Write_MFRC522(COMMAND_REG, CMD_IDLE)  # end whatever the chip was doing
        chip.Write_MFRC522(COMM_IRQ_REG, IRQ_ALL)
        chip.Write_MFRC522(FIFO_LEVEL_REG, FLUSH_FIFO)
        for byte in frame:
            chip.Write_MFRC522(FIFO_DATA_REG, byte)
        chip.Write_MFRC522(BIT_FRAMING_REG, last_bits)
        chip.Write_MFRC522(COMMAND_REG, CMD_TRANSCEIVE)
        chip.SetBitMask(BIT_FRAMING_REG, START_SEND)
        give_up = time.monotonic() + self.frame_limit
        while True:
            irq = chip.Read_MFRC522(COMM_IRQ_REG)
            if irq & (IRQ_RX | IRQ_IDLE | IRQ_TIMER):  # not ErrIRq: the frame goes on
                break
            if time.monotonic() > give_up:
                raise ReaderFault(f"{self.name}: the MFRC522 stopped answering (no interrupt)")
        chip.ClearBitMask(BIT_FRAMING_REG, START_SEND)
        if not irq & IRQ_RX or chip.Read_MFRC522(ERROR_REG) & RECEIVE_ERRORS:
            return None  # no answer, or a collision, parity, protocol or overflow error
        count = chip.Read_MFRC522(FIFO_LEVEL_REG) & FIFO_LEVEL
        if chip.Read_MFRC522(CONTROL_REG) & RX_LAST_BITS:
            return None  # a partial last byte: no answer this driver asks for
        return bytes(chip.Read_MFRC522(FIFO_DATA_REG) for _ in range(count))

    def _chip_crc(self, chip: RegisterChip, data: bytes) -> bytes:
        """CRC_A from the chip's coprocessor, low byte first."""
        chip.Write_MFRC522(COMMAND_REG, CMD_IDLE)
        # The package's CalulateCRC means to clear CRCIRq but its ClearBitMask cannot (the
        # register clears the bits written as 1), so it would accept a stale flag.
        chip.Write_MFRC522(DIV_IRQ_REG, IRQ_CRC)
        crc = chip.CalulateCRC(list(data))
        if not chip.Read_MFRC522(DIV_IRQ_REG) & IRQ_CRC:
            raise ReaderFault(f"{self.name}: the MFRC522 did not calculate a CRC")
        return bytes(crc)


def _close_quietly(chip: RegisterChip, pin_rst: int) -> None:
    """Close SPI and release only the reset pin.

    The package's Close_MFRC522 runs GPIO.cleanup() on every channel, which would release
    the buttons and LEDs of the panel each time a lost reader is reconnected.
    """
    spi = getattr(chip, "spi", None)
    try:
        if spi is None:
            chip.Close_MFRC522()  # a stand-in chip without SPI of its own
            return
        spi.close()
        gpio = sys.modules.get("RPi.GPIO")  # loaded by the package when the chip was made
        if gpio is not None:
            gpio.cleanup(pin_rst)
    except Exception:  # noqa: BLE001 - close must not raise
        log.warning("closing the MFRC522 failed", exc_info=True)
