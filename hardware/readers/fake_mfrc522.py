"""A fake MFRC522 at the SPI byte level, with emulated type A tags, for tests and the desktop.

``FakeMfrc522Chip`` answers SPI transfers as the chip does (address byte
``(reg << 1) & 0x7E``, ``| 0x80`` to read) from a register file. It emulates what the
``mfrc522`` package and ``hardware.readers.mfrc522`` use:

- CommandReg: Idle, Transceive, CalcCRC, SoftReset (and NoCmdChange); any other command
  raises NotImplementedError, so a test that needs it says so at once;
- the 64-byte FIFO (FIFODataReg, FIFOLevelReg with its flush bit);
- CommIrqReg / DivIrqReg with their Set1/Set2 write rule (bit 7 set: set the bits written
  as 1, else clear them); TxIRq, RxIRq, ErrIRq, TimerIRq when no tag answers (only when
  TModeReg.TAuto is set, as on the chip), CRCIRq;
- ErrorReg (CollErr, ParityErr...), ControlReg.RxLastBits, CollReg.CollPos,
  BitFramingReg (StartSend, TxLastBits; RxAlign raises NotImplementedError);
- the CRC coprocessor with ModeReg's CRC preset (0x6363 after the package's init),
  CRCResultRegM/L;
- VersionReg (0x92 unless told); TxControlReg's antenna bits switch the field; every
  other register is plain storage with the datasheet's reset value.

Tags (``FakeTag``) hear every frame while ``present()``: REQA/WUPA (7-bit short frames),
ANTICOLLISION and SELECT at each cascade level (the SELECT's CRC_A is checked), HLTA,
and the ISO/IEC 14443-3 state machine (IDLE, READY, ACTIVE, HALT; a tag woken from HALT
falls back to HALT on an error). Two tags whose answers differ collide: the chip reports
CollErr. ``inject()`` garbles the next answers.

Not emulated: timing (answers are instant), parity and Manchester coding, bit-oriented
anticollision (NVB other than 0x20 / 0x70), RATS and anything past SELECT (READ, WRITE,
MIFARE authentication), the IRQ pin, the RST pin, power-down.

``fake_pi()`` / ``install_fake_pi_modules()`` put fake ``RPi.GPIO`` and ``spidev`` modules
into ``sys.modules`` so the real package's MFRC522 class runs against fake chips.
``FakeMfrc522Device`` needs no package at all: the driver over a small stand-in for the
package's register calls, for the desktop.

Why one module of over 600 lines: it is one emulated chip (its registers, its FIFO, its
interrupts, its CRC coprocessor and the tags in its field answer one another on every
SPI transfer); a part alone would emulate nothing.
"""

from __future__ import annotations

import contextlib
import enum
import errno
import os
import sys
import threading
from collections import deque
from collections.abc import Iterator, Mapping, MutableMapping
from dataclasses import dataclass
from types import ModuleType

from hardware.readers.mfrc522 import Mfrc522Device, bcc, crc16, crc_a
from hardware.uid import normalise_uid

# ------------------------------------------------------------ registers and bits
COMMAND = 0x01
COMM_IEN = 0x02
COMM_IRQ = 0x04
DIV_IRQ = 0x05
ERROR = 0x06
STATUS1 = 0x07
FIFO_DATA = 0x09
FIFO_LEVEL = 0x0A
CONTROL = 0x0C
BIT_FRAMING = 0x0D
COLL = 0x0E
MODE = 0x11
TX_CONTROL = 0x14
TX_ASK = 0x15
CRC_RESULT_M = 0x21
CRC_RESULT_L = 0x22
T_MODE = 0x2A
T_PRESCALER = 0x2B
T_RELOAD_H = 0x2C
T_RELOAD_L = 0x2D
VERSION = 0x37

RESET_VALUES = {
    COMMAND: 0x20,
    COMM_IEN: 0x80,
    COMM_IRQ: 0x14,
    STATUS1: 0x21,
    0x0B: 0x08,  # WaterLevelReg
    CONTROL: 0x10,
    COLL: 0xA0,
    MODE: 0x3F,
    TX_CONTROL: 0x80,
    0x16: 0x10,  # TxSelReg
    0x17: 0x84,  # RxSelReg
    0x18: 0x84,  # RxThresholdReg
    0x19: 0x4D,  # DemodReg
    0x1C: 0x62,  # MfTxReg
    0x1F: 0xEB,  # SerialSpeedReg
    CRC_RESULT_M: 0xFF,
    CRC_RESULT_L: 0xFF,
    0x24: 0x26,  # ModWidthReg
    0x26: 0x48,  # RFCfgReg
    0x27: 0x88,  # GsNReg
    0x28: 0x20,  # CWGsPReg
    0x29: 0x20,  # ModGsPReg
}
READ_ONLY = {ERROR, STATUS1, CRC_RESULT_M, CRC_RESULT_L, VERSION}

IDLE, CALC_CRC, NO_CMD_CHANGE, TRANSCEIVE, SOFT_RESET = 0x0, 0x3, 0x7, 0xC, 0xF

TX_IRQ, RX_IRQ, ERR_IRQ, TIMER_IRQ = 0x40, 0x20, 0x02, 0x01
CRC_IRQ = 0x04
CRC_READY = 0x20  # Status1Reg
BUFFER_OVFL, COLL_ERR, PARITY_ERR = 0x10, 0x08, 0x02
START_SEND = 0x80
T_AUTO = 0x80
ANTENNA = 0x03
COLL_POS_NOT_VALID = 0x20
FIFO_SIZE = 64
CRC_PRESETS = (0x0000, 0x6363, 0xA671, 0xFFFF)  # ModeReg bits 1:0

# --------------------------------------------------------------- ISO/IEC 14443-3
REQA, WUPA = 0x26, 0x52
CASCADE_LEVELS = (0x93, 0x95, 0x97)
CASCADE_TAG = 0x88
SAK_UID_NOT_COMPLETE = 0x04


class TagState(enum.Enum):
    IDLE = "idle"
    READY = "ready"
    ACTIVE = "active"
    HALT = "halt"


class FakeTag:
    """An ISO/IEC 14443-3 type A tag as far as a reader meets it before it reads memory."""

    def __init__(self, uid: bytes | str, *, atqa: int, sak: int, kind: str = "tag") -> None:
        uid = bytes.fromhex(normalise_uid(uid))
        if len(uid) not in (4, 7, 10):
            raise ValueError(f"a type A UID has 4, 7 or 10 bytes, not {len(uid)}")
        # UID CLn of each cascade level: the cascade tag + 3 bytes, then the last 4 bytes
        levels = [bytes([CASCADE_TAG]) + uid[i : i + 3] for i in range(0, len(uid) - 4, 3)]
        levels.append(uid[-4:])
        if levels[-1][0] == CASCADE_TAG:
            raise ValueError("ISO/IEC 14443-3 reserves 0x88 where the last UID CLn starts")
        self.uid = uid
        self.atqa = atqa
        self.sak = sak
        self.kind = kind
        self.levels = levels
        self.state = TagState.IDLE
        self.level = 0
        self.from_halt = False  # READY*/ACTIVE*: woken from HALT, an error sends it back

    @classmethod
    def ntag213(cls, uid: bytes | str = "04A1B2C3D4E580") -> FakeTag:
        return cls._sized(uid, 7, atqa=0x0044, sak=0x00, kind="NTAG213")

    @classmethod
    def mifare_classic_1k(cls, uid: bytes | str = "1A2B3C4D") -> FakeTag:
        return cls._sized(uid, 4, atqa=0x0004, sak=0x08, kind="MIFARE Classic 1K")

    @classmethod
    def triple_size(cls, uid: bytes | str = "0811223344556677889A") -> FakeTag:
        return cls._sized(uid, 10, atqa=0x0084, sak=0x20, kind="10-byte UID tag")

    @classmethod
    def for_uid(cls, uid: bytes | str) -> FakeTag:
        """A tag of the usual kind for the UID's length (4: MIFARE Classic, 7: NTAG213)."""
        raw = bytes.fromhex(normalise_uid(uid))
        make = {4: cls.mifare_classic_1k, 7: cls.ntag213, 10: cls.triple_size}.get(len(raw))
        if make is None:
            raise ValueError(f"a type A UID has 4, 7 or 10 bytes, not {len(raw)}")
        return make(raw)

    @classmethod
    def _sized(cls, uid: bytes | str, size: int, *, atqa: int, sak: int, kind: str) -> FakeTag:
        tag = cls(uid, atqa=atqa, sak=sak, kind=kind)
        if len(tag.uid) != size:
            raise ValueError(f"a {kind} has a {size}-byte UID")
        return tag

    def __repr__(self) -> str:
        return f"<{self.kind} {self.uid.hex().upper()} {self.state.value}>"

    def power_on(self) -> None:
        self.state, self.level, self.from_halt = TagState.IDLE, 0, False

    def receive(self, frame: bytes, last_bits: int) -> bytes | None:
        """The tag's answer to a frame (whole bytes), or None when it keeps quiet."""
        short = last_bits == 7 and len(frame) == 1
        if self.state in (TagState.IDLE, TagState.HALT):
            woken = short and (
                frame[0] == WUPA or (frame[0] == REQA and self.state is TagState.IDLE)
            )
            if not woken:
                return None
            self.from_halt = self.state is TagState.HALT
            self.state, self.level = TagState.READY, 0
            return self.atqa.to_bytes(2, "little")
        if self.state is TagState.ACTIVE and last_bits == 0 and _is_hlta(frame):
            self.state = TagState.HALT
            return None
        if self.state is TagState.READY and last_bits == 0:
            answer = self._cascade_step(frame)
            if answer is not None:
                return answer
        # anything else is an error: back to IDLE, or to HALT when woken from there
        self.state, self.level = (TagState.HALT if self.from_halt else TagState.IDLE), 0
        return None

    def _cascade_step(self, frame: bytes) -> bytes | None:
        sel = CASCADE_LEVELS[self.level]
        uid_cln = self.levels[self.level] + bytes([bcc(self.levels[self.level])])
        if frame == bytes([sel, 0x20]):
            return uid_cln
        select = bytes([sel, 0x70]) + uid_cln
        if frame != select + crc_a(select):
            return None
        if self.level + 1 < len(self.levels):
            self.level += 1
            sak = SAK_UID_NOT_COMPLETE
        else:
            self.state = TagState.ACTIVE
            sak = self.sak
        return bytes([sak]) + crc_a(bytes([sak]))


def _is_hlta(frame: bytes) -> bool:
    return len(frame) == 4 and frame[:2] == b"\x50\x00" and frame[2:] == crc_a(frame[:2])


# -------------------------------------------------------------------------- chip
ANSWERS = ("atqa", "uid", "sak")  # to REQA/WUPA, to ANTICOLLISION, to SELECT
FAULTS = {
    "bad_check": "the last byte's low bit flipped (a bad BCC, a bad CRC_A)",
    "short": "the last byte lost",
    "parity": "delivered with ErrorReg.ParityErr",
    "silent": "lost altogether: the timer runs out",
}


@dataclass
class _Fault:
    answer: str
    fault: str
    times: int
    after: int


class FakeMfrc522Chip:
    """The MFRC522 behind the SPI wire, and the field in front of its antenna."""

    def __init__(self, version: int = 0x92) -> None:
        self.version = version
        #: raised by every SPI transfer while set (an SPI driver failure)
        self.spi_error: OSError | None = None
        #: every frame the chip sent to the field: (bytes, valid bits in the last byte)
        self.frames: list[tuple[bytes, int]] = []
        self.tags: list[FakeTag] = []
        self.regs = bytearray(64)
        self.fifo: deque[int] = deque()
        self._crc_data = bytearray()
        self._faults: list[_Fault] = []
        self._miso: int | None = None
        self._lock = threading.RLock()
        self.soft_reset()

    # ------------------------------------------------ what a test or the desktop does
    def present(self, *tags: FakeTag) -> None:
        """Put exactly these tags on the reader; a tag that arrives is powered up (IDLE)."""
        with self._lock:
            for tag in tags:
                if tag not in self.tags:
                    tag.power_on()
            self.tags = list(tags)

    def remove(self) -> None:
        with self._lock:
            self.tags = []

    def inject(self, answer: str, fault: str, times: int = 1, *, after: int = 0) -> None:
        """Garble ``times`` answers of one kind (see ANSWERS and FAULTS), ``after`` others.

        ``inject("uid", "bad_check", after=1)``: the level 2 UID CLn of an NTAG213 gets
        a bad BCC, level 1 goes through.
        """
        if answer not in ANSWERS or fault not in FAULTS:
            raise ValueError(f"answers: {ANSWERS}; faults: {sorted(FAULTS)}")
        with self._lock:
            self._faults.append(_Fault(answer, fault, times, after))

    def unplug(self, miso: int = 0x00) -> None:
        """The module comes off the bus: reads see ``miso``, writes are lost."""
        self._miso = miso

    def plug(self) -> None:
        self._miso = None
        self.soft_reset()  # it was powered off

    # ---------------------------------------------------------------- the SPI side
    def transfer(self, data: list[int]) -> list[int]:
        """One SPI transfer: byte 0 addresses a register; reads chain addresses."""
        with self._lock:
            if self.spi_error is not None:
                raise self.spi_error
            if self._miso is not None:
                return [self._miso] * len(data)
            if not data:
                return []
            out = [0]
            reading, reg = bool(data[0] & 0x80), (data[0] >> 1) & 0x3F
            for byte in data[1:]:
                if reading:  # MISO carries the register addressed by the previous byte
                    out.append(self.read_register(reg))
                    reg = (byte >> 1) & 0x3F
                else:  # every further byte goes to the same register (the FIFO)
                    self.write_register(reg, byte)
                    out.append(0)
            return out

    @property
    def command(self) -> int:
        return self.regs[COMMAND] & 0x0F

    @property
    def antenna_on(self) -> bool:
        return bool(self.regs[TX_CONTROL] & ANTENNA)

    def read_register(self, reg: int) -> int:
        if reg == FIFO_DATA:
            return self.fifo.popleft() if self.fifo else 0
        if reg == FIFO_LEVEL:
            return len(self.fifo)
        if reg == VERSION:
            return self.version
        return self.regs[reg]

    def write_register(self, reg: int, value: int) -> None:
        value &= 0xFF
        if reg == COMMAND:
            self._run(value)
        elif reg in (COMM_IRQ, DIV_IRQ):  # bit 7 set: set the bits given, else clear them
            if value & 0x80:
                self.regs[reg] |= value & 0x7F
            else:
                self.regs[reg] &= ~value & 0x7F
        elif reg == FIFO_DATA:
            self._fifo_write(value)
        elif reg == FIFO_LEVEL:
            if value & 0x80:
                self.fifo.clear()
                self.regs[ERROR] &= ~BUFFER_OVFL
        elif reg == CONTROL:  # RxLastBits are read-only
            self.regs[CONTROL] = (self.regs[CONTROL] & 0x07) | (value & 0x38) | 0x10
        elif reg == BIT_FRAMING:
            self.regs[reg] = value
            if value & START_SEND and self.command == TRANSCEIVE:
                self._transceive()
        elif reg == TX_CONTROL:
            was_on = self.antenna_on
            self.regs[reg] = value
            self._field_switched(was_on)
        elif reg not in READ_ONLY:
            self.regs[reg] = value

    def soft_reset(self) -> None:
        with self._lock:
            was_on = bool(self.regs[TX_CONTROL] & ANTENNA)
            self.regs = bytearray(64)
            for reg, value in RESET_VALUES.items():
                self.regs[reg] = value
            self.fifo.clear()
            self._crc_data.clear()
            self._field_switched(was_on)

    # ---------------------------------------------------------------- the commands
    def _run(self, value: int) -> None:
        command = value & 0x0F
        if command == NO_CMD_CHANGE:
            self.regs[COMMAND] = (value & 0xF0) | self.command
            return
        self.regs[COMMAND] = value
        if command == SOFT_RESET:
            self.soft_reset()
        elif command == CALC_CRC:
            self._crc_data = bytearray(self.fifo)
            self.fifo.clear()
            self._calculate_crc()
        elif command == TRANSCEIVE:
            if self.regs[BIT_FRAMING] & START_SEND:
                self._transceive()
        elif command != IDLE:  # the host's Idle sets no IdleIRq
            raise NotImplementedError(f"the fake MFRC522 does not emulate command 0x{command:X}")

    def _fifo_write(self, value: int) -> None:
        if self.command == CALC_CRC:  # the coprocessor takes the byte at once
            self._crc_data.append(value)
            self._calculate_crc()
        elif len(self.fifo) >= FIFO_SIZE:
            self.regs[ERROR] |= BUFFER_OVFL
        else:
            self.fifo.append(value)

    def _calculate_crc(self) -> None:
        if self.regs[MODE] & 0x80:
            raise NotImplementedError("the fake MFRC522 does not emulate ModeReg.MSBFirst")
        crc = crc16(bytes(self._crc_data), CRC_PRESETS[self.regs[MODE] & 0x03])
        self.regs[CRC_RESULT_M], self.regs[CRC_RESULT_L] = crc >> 8, crc & 0xFF
        self.regs[DIV_IRQ] |= CRC_IRQ
        self.regs[STATUS1] |= CRC_READY

    def _field_switched(self, was_on: bool) -> None:
        if was_on and not self.antenna_on:
            for tag in self.tags:  # no field, no power
                tag.power_on()

    def _transceive(self) -> None:
        framing = self.regs[BIT_FRAMING]
        if framing & 0x70:
            raise NotImplementedError("the fake MFRC522 does not emulate RxAlign")
        frame, last_bits = bytes(self.fifo), framing & 0x07
        self.fifo.clear()
        self.frames.append((frame, last_bits))
        self.regs[ERROR] &= BUFFER_OVFL  # the receiver's error bits start afresh
        self.regs[COMM_IRQ] |= TX_IRQ
        heard = [tag.receive(frame, last_bits) for tag in self.tags] if self.antenna_on else []
        answers = [answer for answer in heard if answer is not None]
        answer, errors = self._collide(answers)
        answer, errors = self._garble(_answer_kind(frame, last_bits), answer, errors)
        if answer is None:
            if self.regs[T_MODE] & T_AUTO:
                self.regs[COMM_IRQ] |= TIMER_IRQ
            return
        self.fifo.extend(answer[:FIFO_SIZE])
        self.regs[CONTROL] &= ~0x07  # RxLastBits: every answer here is whole bytes
        self.regs[ERROR] |= errors
        self.regs[COMM_IRQ] |= RX_IRQ | (ERR_IRQ if errors else 0)

    def _collide(self, answers: list[bytes]) -> tuple[bytes | None, int]:
        """What the receiver makes of several tags answering at once."""
        if not answers:
            return None, 0
        if all(answer == answers[0] for answer in answers):
            return answers[0], 0
        size = max(len(answer) for answer in answers)
        padded = [answer.ljust(size, b"\0") for answer in answers]
        merged = bytes(_or_all(column) for column in zip(*padded, strict=True))
        differ = [
            i * 8 + bit for i in range(size) for bit in range(8) if _bit_differs(padded, i, bit)
        ]
        position = differ[0] + 1
        self.regs[COLL] = position % 32 if position <= 32 else COLL_POS_NOT_VALID
        return merged, COLL_ERR

    def _garble(self, kind: str, answer: bytes | None, errors: int) -> tuple[bytes | None, int]:
        fault = next((f for f in self._faults if f.answer == kind), None)
        if answer is None or fault is None:
            return answer, errors
        if fault.after:
            fault.after -= 1
            return answer, errors
        fault.times -= 1
        if not fault.times:
            self._faults.remove(fault)
        if fault.fault == "bad_check":
            return answer[:-1] + bytes([answer[-1] ^ 0x01]), errors
        if fault.fault == "short":
            return answer[:-1], errors
        if fault.fault == "parity":
            return answer, errors | PARITY_ERR
        return None, errors  # silent


def _answer_kind(frame: bytes, last_bits: int) -> str:
    if last_bits == 7 and len(frame) == 1:
        return "atqa"
    if len(frame) >= 2 and frame[1] == 0x20:
        return "uid"
    return "sak"


def _or_all(column: tuple[int, ...]) -> int:
    merged = 0
    for byte in column:
        merged |= byte
    return merged


def _bit_differs(answers: list[bytes], index: int, bit: int) -> bool:
    return len({(answer[index] >> bit) & 1 for answer in answers}) > 1


# --------------------------------------------------------- fake RPi.GPIO, spidev
Chips = FakeMfrc522Chip | Mapping[tuple[int, int], FakeMfrc522Chip]


class FakeSpiDev:
    """``spidev.SpiDev`` as the package uses it, wired to fake chips by (bus, device)."""

    #: the chips a module's SpiDev class reaches (see fake_pi_modules)
    chips: Mapping[tuple[int, int], FakeMfrc522Chip] = {}

    def __init__(
        self,
        bus: int | None = None,
        device: int | None = None,
        *,
        chips: Mapping[tuple[int, int], FakeMfrc522Chip] | None = None,
    ) -> None:
        if chips is not None:
            self.chips = chips
        self.max_speed_hz = 125_000_000
        self.mode = 0
        self._chip: FakeMfrc522Chip | None = None
        if bus is not None and device is not None:
            self.open(bus, device)

    def open(self, bus: int, device: int) -> None:
        chip = self.chips.get((bus, device))
        if chip is None:
            path = f"/dev/spidev{bus}.{device}"
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), path)
        self._chip = chip

    def xfer2(self, data: list[int], *_: int) -> list[int]:
        if self._chip is None:
            raise OSError(errno.EBADF, os.strerror(errno.EBADF))
        return self._chip.transfer(list(data))

    xfer = xfer2

    def close(self) -> None:
        self._chip = None


class FakeGpio:
    """The state behind the fake ``RPi.GPIO`` module: numbering mode and output levels."""

    BOARD, BCM = 10, 11
    OUT, IN = 0, 1
    LOW, HIGH = 0, 1
    PUD_OFF, PUD_DOWN, PUD_UP = 20, 21, 22

    def __init__(self) -> None:
        self.mode: int | None = None
        self.pins: dict[int, int] = {}
        self.cleanups = 0

    def getmode(self) -> int | None:
        return self.mode

    def setmode(self, mode: int) -> None:
        if self.mode is not None and mode != self.mode:
            raise ValueError("A different mode has already been set!")
        self.mode = mode

    def setwarnings(self, flag: bool) -> None:
        pass

    def setup(self, channel: int, direction: int, pull_up_down: int = 20, initial: int = 0) -> None:
        if self.mode is None:
            raise RuntimeError("Please set pin numbering mode using GPIO.setmode")
        self.pins[channel] = initial if direction == self.OUT else 0

    def output(self, channel: int, value: int) -> None:
        if channel not in self.pins:
            raise RuntimeError("The GPIO channel has not been set up as an OUTPUT")
        self.pins[channel] = int(bool(value))

    def input(self, channel: int) -> int:
        return self.pins.get(channel, 0)

    def cleanup(self, channel: int | None = None) -> None:
        self.cleanups += 1
        if channel is None:
            self.pins.clear()
            self.mode = None
        else:
            self.pins.pop(channel, None)

    def module(self) -> ModuleType:
        module = ModuleType("RPi.GPIO")
        for name in dir(self):
            if name.isupper() or name in _GPIO_FUNCTIONS:
                setattr(module, name, getattr(self, name))
        return module


_GPIO_FUNCTIONS = ("getmode", "setmode", "setwarnings", "setup", "output", "input", "cleanup")
_FAKED = ("RPi", "RPi.GPIO", "spidev")


def _chip_map(chips: Chips) -> dict[tuple[int, int], FakeMfrc522Chip]:
    return {(0, 0): chips} if isinstance(chips, FakeMfrc522Chip) else dict(chips)


def fake_pi_modules(chips: Chips, gpio: FakeGpio | None = None) -> dict[str, ModuleType]:
    """Fake ``RPi``, ``RPi.GPIO`` and ``spidev`` modules by name; one chip sits on SPI 0.0."""
    gpio_module = (gpio or FakeGpio()).module()
    # modules made here: mypy knows no attributes of a bare ModuleType, hence the ignores
    rpi = ModuleType("RPi")
    rpi.__path__ = []  # a package, so that "import RPi.GPIO" works
    rpi.GPIO = gpio_module  # type: ignore[attr-defined]
    spidev = ModuleType("spidev")
    spidev.SpiDev = type("SpiDev", (FakeSpiDev,), {"chips": _chip_map(chips)})  # type: ignore[attr-defined]
    return {"RPi": rpi, "RPi.GPIO": gpio_module, "spidev": spidev}


def _package_modules(modules: Mapping[str, object]) -> list[str]:
    return [name for name in modules if name == "mfrc522" or name.startswith("mfrc522.")]


def install_fake_pi_modules(
    chips: Chips, modules: MutableMapping[str, ModuleType] | None = None
) -> FakeGpio:
    """Put the fakes into ``sys.modules`` for good; returns the fake GPIO's state.

    An ``mfrc522`` package already imported is forgotten, so that its next import binds
    the fakes.
    """
    target = sys.modules if modules is None else modules
    gpio = FakeGpio()
    target.update(fake_pi_modules(chips, gpio))
    for name in _package_modules(target):
        del target[name]
    return gpio


@contextlib.contextmanager
def fake_pi(chips: Chips) -> Iterator[FakeGpio]:
    """``install_fake_pi_modules`` for a with block; ``sys.modules`` is restored after."""
    names = [*_FAKED, *_package_modules(sys.modules)]
    saved = {name: sys.modules[name] for name in names if name in sys.modules}
    try:
        yield install_fake_pi_modules(chips)
    finally:
        for name in [*_FAKED, *_package_modules(sys.modules)]:
            sys.modules.pop(name, None)
        sys.modules.update(saved)


# -------------------------------------------------------- the desktop, no package
class RegisterStandIn:
    """The package's MFRC522 register calls that the driver makes, over a fake SPI device.

    Written like the package (same init, same CRC routine), for machines without it.
    """

    def __init__(self, chip: FakeMfrc522Chip) -> None:
        self.spi = FakeSpiDev(0, 0, chips={(0, 0): chip})
        self.Write_MFRC522(COMMAND, SOFT_RESET)  # MFRC522_Init, as the package does it
        self.Write_MFRC522(T_MODE, 0x8D)
        self.Write_MFRC522(T_PRESCALER, 0x3E)
        self.Write_MFRC522(T_RELOAD_L, 30)
        self.Write_MFRC522(T_RELOAD_H, 0)
        self.Write_MFRC522(TX_ASK, 0x40)
        self.Write_MFRC522(MODE, 0x3D)
        self.SetBitMask(TX_CONTROL, ANTENNA)

    def Read_MFRC522(self, addr: int) -> int:
        return self.spi.xfer2([((addr << 1) & 0x7E) | 0x80, 0])[1]

    def Write_MFRC522(self, addr: int, val: int) -> None:
        self.spi.xfer2([(addr << 1) & 0x7E, val])

    def SetBitMask(self, reg: int, mask: int) -> None:
        self.Write_MFRC522(reg, self.Read_MFRC522(reg) | mask)

    def ClearBitMask(self, reg: int, mask: int) -> None:
        self.Write_MFRC522(reg, self.Read_MFRC522(reg) & ~mask)

    def CalulateCRC(self, pIndata: list[int]) -> list[int]:
        self.ClearBitMask(DIV_IRQ, CRC_IRQ)
        self.SetBitMask(FIFO_LEVEL, 0x80)
        for byte in pIndata:
            self.Write_MFRC522(FIFO_DATA, byte)
        self.Write_MFRC522(COMMAND, CALC_CRC)
        for _ in range(0xFF):
            if self.Read_MFRC522(DIV_IRQ) & CRC_IRQ:
                break
        return [self.Read_MFRC522(CRC_RESULT_L), self.Read_MFRC522(CRC_RESULT_M)]

    def Close_MFRC522(self) -> None:
        self.spi.close()


class FakeMfrc522Device(Mfrc522Device):
    """The real MFRC522 driver on an emulated chip: ``present(uid)`` and ``remove()``."""

    def __init__(self, chip: FakeMfrc522Chip | None = None, name: str = "mfrc522:fake") -> None:
        self.chip = chip if chip is not None else FakeMfrc522Chip()
        super().__init__(chip_factory=lambda: RegisterStandIn(self.chip))
        self.name = name

    def present(self, tag: FakeTag | bytes | str) -> None:
        """Lay a tag on the reader; a UID makes a tag of the usual kind for its length."""
        self.chip.present(tag if isinstance(tag, FakeTag) else FakeTag.for_uid(tag))

    def remove(self) -> None:
        self.chip.remove()
