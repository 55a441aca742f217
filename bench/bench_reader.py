"""Tag readers: the delay from a frame's last byte to the scan being delivered, and the
processor time a reader costs while nothing happens.

- Latency: an RDM6300 frame is written to a pseudo-terminal; the reader worker (serial
  device, parser, debounce) delivers the scan to a callback. Printed: p50, p99 and worst
  over the frames. Target on the reference machine: p99 under 5 ms.
- Idle CPU: a worker polls for a few seconds with nothing to read: the RDM6300 on a
  silent port, the fake polling reader with no tag, and the MFRC522 driver polling an
  emulated chip. Printed: CPU seconds per second.
"""

from __future__ import annotations

import resource
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hardware.readers import FakeReader, ReaderWorker  # noqa: E402
from hardware.readers.base import TagDevice  # noqa: E402
from hardware.readers.fake_mfrc522 import FakeMfrc522Device  # noqa: E402
from hardware.readers.fake_serial import FakeSerialPort  # noqa: E402
from hardware.readers.serial_readers import Rdm6300Device, rdm6300_frame  # noqa: E402

FRAMES = 300


def latency() -> list[float]:
    with tempfile.TemporaryDirectory() as folder:
        port = FakeSerialPort(folder)
        delivered = threading.Event()
        arrived: list[float] = []

        def on_scan(scan: object) -> None:
            arrived.append(time.perf_counter())
            delivered.set()

        # window 0 and a short gone_after: every frame of a new tag is a scan
        worker = ReaderWorker(
            Rdm6300Device(str(port.path)), on_scan, gone_after=0.001, window=0.0, poll=0.1
        )
        worker.start()
        time.sleep(0.3)
        delays = []
        for i in range(FRAMES):
            frame = rdm6300_frame(i.to_bytes(5, "big"))
            delivered.clear()
            port.write(frame[:-1])
            time.sleep(0.002)
            sent = time.perf_counter()
            port.write(frame[-1:])  # the last byte
            if not delivered.wait(1.0):
                raise SystemExit(f"frame {i} was not delivered")
            delays.append((arrived[-1] - sent) * 1000)
            time.sleep(0.005)
        worker.stop()
        port.close()
    return delays


def idle_cpu(device: TagDevice, seconds: float = 4.0) -> float:
    worker = ReaderWorker(device, lambda scan: None)
    worker.start()
    time.sleep(0.5)
    before = resource.getrusage(resource.RUSAGE_SELF)
    time.sleep(seconds)
    after = resource.getrusage(resource.RUSAGE_SELF)
    worker.stop()
    used = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return used / seconds


def main() -> None:
    delays = sorted(latency())
    print(
        f"frame to scan: p50 {statistics.median(delays):.2f} ms, "
        f"p99 {delays[int(len(delays) * 0.99) - 1]:.2f} ms, worst {delays[-1]:.2f} ms "
        f"over {len(delays)} frames (RDM6300 on a pseudo-terminal)"
    )
    with tempfile.TemporaryDirectory() as folder:
        port = FakeSerialPort(folder)
        cpu = idle_cpu(Rdm6300Device(str(port.path)))
        port.close()
    print(f"idle CPU, RDM6300 on a silent port: {cpu * 100:.2f} % of one core")
    print(f"idle CPU, polling reader with no tag: {idle_cpu(FakeReader()) * 100:.2f} % of one core")
    cpu = idle_cpu(FakeMfrc522Device())
    print(
        f"idle CPU, MFRC522 driver polling an emulated chip with no tag: {cpu * 100:.2f} % "
        "of one core (the emulation's own work included)"
    )


if __name__ == "__main__":
    main()
