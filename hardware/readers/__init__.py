"""Tag readers behind one interface, chosen by a spec string (like gpiozero's pin factories).

Specs, from configuration or the ``CLANK_READER`` environment variable:

    fake                      the simulated reader (tests, the desktop)
    mfrc522[:BUS.DEVICE][,rst=PIN]   MFRC522 on SPI (default 0.0), full 4/7/10-byte UIDs
    rdm6300:PORT              RDM6300 125 kHz module on a serial port (9600 baud)
    pn532:PORT                PN532 on a UART (115200 baud)
    wedge[:PATH][,dec]        USB keyboard-wedge reader typing UIDs (PATH "-": stdin)

``READERS`` below is the one list of them (forms, checks, makers). Drivers are imported
only when their reader is made: the MFRC522 one needs the ``pi`` extra on a Raspberry Pi.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

from hardware.readers.base import ReaderFault, ReaderStatus, Scan, TagDevice
from hardware.readers.fake import FakeReader
from hardware.readers.presence import Presence
from hardware.readers.worker import ReaderWorker
from hardware.uid import normalise_uid

__all__ = [
    "FakeReader",
    "READERS",
    "Presence",
    "ReaderKind",
    "ReaderFault",
    "ReaderStatus",
    "ReaderWorker",
    "Scan",
    "SpecError",
    "TagDevice",
    "make_reader",
    "normalise_uid",
]

ENV = "CLANK_READER"


class SpecError(ValueError):
    """A reader spec that names no known reader; the message shows the forms."""


@dataclass(frozen=True)
class ReaderKind:
    """One kind of reader: its spec form (shown when a spec is wrong), whether its ARG is
    required (a serial port), its own checks, and how its device is made (the driver
    imported only then)."""

    name: str
    form: str
    make: Callable[[str, dict[str, str], list[str]], TagDevice]
    needs_arg: str = ""  # the example shown when ARG is missing ("" : none needed)
    check: Callable[[str, str, dict[str, str]], None] | None = None


def _fake(arg: str, options: dict[str, str], flags: list[str]) -> TagDevice:
    return FakeReader(arg or "fake")


def _check_mfrc522(spec: str, arg: str, options: dict[str, str]) -> None:
    bus, _, device = (arg or "0.0").partition(".")
    try:
        int(bus), int(device or 0), int(options.get("rst", 0))
    except ValueError:
        raise SpecError(f"{spec!r}: mfrc522 takes BUS.DEVICE numbers and rst=PIN") from None


def _mfrc522(arg: str, options: dict[str, str], flags: list[str]) -> TagDevice:
    from hardware.readers.mfrc522 import Mfrc522Device

    bus, _, device = (arg or "0.0").partition(".")
    rst = int(options["rst"]) if "rst" in options else None
    return Mfrc522Device(int(bus), int(device or 0), rst)


def _rdm6300(arg: str, options: dict[str, str], flags: list[str]) -> TagDevice:
    from hardware.readers.serial_readers import Rdm6300Device

    return Rdm6300Device(arg)


def _pn532(arg: str, options: dict[str, str], flags: list[str]) -> TagDevice:
    from hardware.readers.serial_readers import Pn532UartDevice

    return Pn532UartDevice(arg)


def _wedge(arg: str, options: dict[str, str], flags: list[str]) -> TagDevice:
    from hardware.readers.wedge import WedgeDevice

    return WedgeDevice(arg or "-", "dec" if "dec" in flags else "hex")


# Every reader the companion knows, in one place: the spec forms, the checks and the
# makers all come from here.
READERS: dict[str, ReaderKind] = {
    kind.name: kind
    for kind in (
        ReaderKind("fake", "fake", _fake),
        ReaderKind(
            "mfrc522",
            "mfrc522[:BUS.DEVICE][,rst=PIN]",
            _mfrc522,
            check=_check_mfrc522,
        ),
        ReaderKind("pn532", "pn532:PORT", _pn532, needs_arg="pn532:/dev/serial0"),
        ReaderKind("rdm6300", "rdm6300:PORT", _rdm6300, needs_arg="rdm6300:/dev/serial0"),
        ReaderKind("wedge", "wedge[:PATH][,dec]", _wedge),
    )
}
_FORMS = ", ".join(kind.form for kind in READERS.values())


def _parse(spec: str) -> tuple[str, str, dict[str, str], list[str]]:
    """'kind[:ARG][,key=value][,flag]' -> (kind, ARG, options, flags)."""
    head, colon, rest = spec.strip().partition(":")
    if not colon:
        head, _, rest = head.partition(",")
        rest = "," + rest if rest else ""
    parts = [p.strip() for p in rest.split(",")]
    arg = parts.pop(0) if parts and "=" not in parts[0] else ""
    parts = [p for p in parts if p]
    options = dict(p.split("=", 1) for p in parts if "=" in p)
    flags = [p for p in parts if "=" not in p]
    return head.strip().lower(), arg, options, flags


def check_spec(spec: str) -> None:
    """SpecError unless ``spec`` names a reader this companion knows (nothing is opened)."""
    name, arg, options, _flags = _parse(spec)
    kind = READERS.get(name)
    if kind is None:
        raise SpecError(f"unknown reader {spec!r}; the forms are: {_FORMS}")
    if kind.needs_arg and not arg:
        raise SpecError(f"{spec!r}: {name} needs a serial port, such as {kind.needs_arg}")
    if kind.check is not None:
        kind.check(spec, arg, options)


def make_reader(spec: str | None = None) -> TagDevice:
    """The device for a spec (default: $CLANK_READER, else the fake reader)."""
    spec = spec or os.environ.get(ENV) or "fake"
    check_spec(spec)
    name, arg, options, flags = _parse(spec)
    return READERS[name].make(arg, options, flags)
