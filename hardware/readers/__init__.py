"""Tag readers behind one interface, chosen by a spec string (like gpiozero's pin factories).

Specs, from configuration or the ``CLANK_READER`` environment variable:

    fake                      the simulated reader (tests, the desktop)
    mfrc522[:BUS.DEVICE][,rst=PIN]   MFRC522 on SPI (default 0.0), full 4/7/10-byte UIDs
    rdm6300:PORT              RDM6300 125 kHz module on a serial port (9600 baud)
    pn532:PORT                PN532 on a UART (115200 baud)
    wedge[:PATH][,dec]        USB keyboard-wedge reader typing UIDs (PATH "-": stdin)

Drivers are imported only when their reader is made: the MFRC522 one needs the ``pi``
extra on a Raspberry Pi.
"""

from __future__ import annotations

import os

from hardware.readers.base import ReaderFault, ReaderStatus, Scan, TagDevice, normalise_uid
from hardware.readers.fake import FakeReader
from hardware.readers.presence import Presence
from hardware.readers.worker import ReaderWorker

__all__ = [
    "FakeReader",
    "Presence",
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


_FORMS = "fake, mfrc522[:BUS.DEVICE][,rst=PIN], rdm6300:PORT, pn532:PORT, wedge[:PATH][,dec]"


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
    kind, arg, options, _flags = _parse(spec)
    if kind not in ("fake", "mfrc522", "rdm6300", "pn532", "wedge"):
        raise SpecError(f"unknown reader {spec!r}; the forms are: {_FORMS}")
    if kind in ("rdm6300", "pn532") and not arg:
        raise SpecError(f"{spec!r}: {kind} needs a serial port, such as {kind}:/dev/serial0")
    if kind == "mfrc522":
        bus, _, device = (arg or "0.0").partition(".")
        try:
            int(bus), int(device or 0), int(options.get("rst", 0))
        except ValueError:
            raise SpecError(f"{spec!r}: mfrc522 takes BUS.DEVICE numbers and rst=PIN") from None


def make_reader(spec: str | None = None) -> TagDevice:
    """The device for a spec (default: $CLANK_READER, else the fake reader)."""
    spec = spec or os.environ.get(ENV) or "fake"
    check_spec(spec)
    kind, arg, options, flags = _parse(spec)
    if kind == "fake":
        return FakeReader(arg or "fake")
    if kind == "mfrc522":
        bus, _, device = (arg or "0.0").partition(".")
        rst = int(options["rst"]) if "rst" in options else None
        from hardware.readers.mfrc522 import Mfrc522Device

        return Mfrc522Device(int(bus), int(device or 0), rst)
    if kind == "rdm6300":
        from hardware.readers.serial_readers import Rdm6300Device

        return Rdm6300Device(arg)
    if kind == "pn532":
        from hardware.readers.serial_readers import Pn532UartDevice

        return Pn532UartDevice(arg)
    from hardware.readers.wedge import WedgeDevice  # the last kind check_spec knows

    return WedgeDevice(arg or "-", "dec" if "dec" in flags else "hex")
