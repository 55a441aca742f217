"""The reader interface: presence and debounce, the worker's faults, fake, wedge, factory."""

from __future__ import annotations

import io
import os
import queue
import threading
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hardware.readers import (
    FakeReader,
    Presence,
    ReaderFault,
    ReaderStatus,
    ReaderWorker,
    SpecError,
    make_reader,
    normalise_uid,
)
from hardware.readers.base import TagDevice
from hardware.readers.wedge import WedgeDevice, parse_wedge_line


def test_normalise_uid():
    assert normalise_uid(b"\x04\xa2\x24\xb2\xc3\x5e\x80") == "04A224B2C35E80"
    assert normalise_uid("04:a2:24:b2") == "04A224B2"
    for bad in ["", "0", "xyz1", "04:a2:2"]:
        with pytest.raises(ValueError):
            normalise_uid(bad)


def test_a_tag_lying_on_the_reader_is_one_scan():
    p = Presence(gone_after=0.5, window=1.0)
    times = [i * 0.05 for i in range(100)]  # seen 20 times a second for 5 s
    assert [p.seen("AA", t) for t in times].count(True) == 1


def test_removed_and_put_back_scans_again_after_the_window():
    p = Presence(gone_after=0.5, window=1.0)
    assert p.seen("AA", 0.0)
    assert not p.seen("AA", 0.6)  # gone at 0.5, back at 0.6: within the window
    assert not p.seen("AA", 0.7)
    assert p.seen("AA", 1.8)  # gone at 1.2, back after the window
    assert p.seen("BB", 1.9)  # another tag at once


@given(st.lists(st.tuples(st.sampled_from(["AA", "BB", "CC"]), st.floats(0, 0.4)), max_size=200))
def test_presence_never_scans_a_tag_twice_within_the_window(sightings):
    p = Presence(gone_after=0.3, window=0.8)
    now, last = 0.0, {}
    for uid, gap in sightings:
        now += gap
        if p.seen(uid, now):
            assert uid not in last or now - last[uid] >= 0.8
            last[uid] = now


class Collector:
    def __init__(self) -> None:
        self.scans: queue.Queue = queue.Queue()
        self.statuses: list[tuple[ReaderStatus, str]] = []
        self.changed = threading.Condition()

    def scan(self, s) -> None:
        self.scans.put(s)

    def status(self, status: ReaderStatus, detail: str) -> None:
        with self.changed:
            self.statuses.append((status, detail))
            self.changed.notify_all()

    def wait_status(self, wanted: ReaderStatus, after: int = 0, timeout: float = 5.0) -> int:
        deadline = time.monotonic() + timeout
        with self.changed:
            while True:
                for i, (s, _) in enumerate(self.statuses[after:], start=after):
                    if s == wanted:
                        return i
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"no {wanted} in {self.statuses}")
                self.changed.wait(left)

    def wait_until(self, seen, timeout: float = 5.0) -> None:
        """Wait for the statuses to satisfy ``seen`` (told by the worker, not by a clock)."""
        deadline = time.monotonic() + timeout
        with self.changed:
            while not seen(self.statuses):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"not seen in {self.statuses}")
                self.changed.wait(left)


def test_worker_delivers_debounced_scans_from_the_fake_reader():
    reader = FakeReader()
    got = Collector()
    worker = ReaderWorker(reader, got.scan, got.status, gone_after=0.15, window=0.2, poll=0.02)
    worker.start()
    try:
        got.wait_status(ReaderStatus.CONNECTED)
        reader.present("04a224b2c35e80")
        scan = got.scans.get(timeout=2)
        assert (scan.uid, scan.reader) == ("04A224B2C35E80", "fake")
        time.sleep(0.3)  # lying there: still one scan
        assert got.scans.empty()
        reader.remove()
        time.sleep(0.3)
        reader.present("04A224B2C35E80")
        assert got.scans.get(timeout=2).uid == "04A224B2C35E80"
    finally:
        worker.stop()
    assert worker.status == ReaderStatus.STOPPED


def test_an_unplugged_reader_is_reported_and_reconnected_with_backoff():
    reader = FakeReader()
    got = Collector()
    worker = ReaderWorker(reader, got.scan, got.status, poll=0.02, backoff=(0.02, 0.1))
    worker.start()
    try:
        first = got.wait_status(ReaderStatus.CONNECTED)
        reader.unplug("cable pulled")
        lost = got.wait_status(ReaderStatus.LOST, first)
        assert got.statuses[lost][1] == "cable pulled"
        got.wait_status(ReaderStatus.RECONNECTING, lost)

        def at_its_ceiling(statuses) -> bool:
            delays = [d for s, d in statuses if s == ReaderStatus.RECONNECTING]
            return len(delays) >= 2 and "0.1 s" in delays[-1]

        got.wait_until(at_its_ceiling)  # backing off to its ceiling
        delays = [d for s, d in got.statuses if s == ReaderStatus.RECONNECTING]
        assert "0.1 s" not in delays[0]  # and it started below it
        reader.plug()
        got.wait_status(ReaderStatus.CONNECTED, lost)
        reader.present("AABBCCDD")
        assert got.scans.get(timeout=2).uid == "AABBCCDD"
    finally:
        worker.stop()


class Exploding(TagDevice):
    name = "exploding"

    def __init__(self) -> None:
        self.reads = 0

    def open(self) -> None:
        pass

    def read(self, timeout: float) -> list[str]:
        self.reads += 1
        time.sleep(0.01)
        if self.reads % 3 == 0:
            raise RuntimeError("driver bug")
        return ["0102030405"]

    def close(self) -> None:
        raise OSError("and a bad close")


def test_driver_and_handler_bugs_do_not_kill_the_worker():
    device = Exploding()
    got = Collector()

    def bad_handler(scan):
        got.scan(scan)
        raise ValueError("the table's bug")

    worker = ReaderWorker(
        device, bad_handler, got.status, gone_after=5, window=0, poll=0.01, backoff=(0.01, 0.02)
    )
    worker.start()
    try:
        got.scans.get(timeout=2)
        got.wait_until(
            lambda statuses: any(s == ReaderStatus.LOST and "driver bug" in d for s, d in statuses)
        )
        # reading on after both bugs (each driver bug is a LOST, then a reconnection)
        got.wait_until(lambda statuses: device.reads > 6)
        assert worker._thread is not None and worker._thread.is_alive()
    finally:
        worker.stop()


def test_wedge_lines():
    assert parse_wedge_line("04A224B2C35E80\n") == "04A224B2C35E80"
    assert parse_wedge_line("0012345678", "dec") == "00BC614E"
    assert parse_wedge_line("hello") is None
    assert parse_wedge_line("99999999999", "dec") is None


def test_wedge_reader_from_a_pipe_and_its_end():
    r, w = os.pipe()
    stream = os.fdopen(r, encoding="utf-8")
    device = WedgeDevice("pipe", stream=stream)
    device.open()
    os.write(w, b"04A224B2C35E80\nnoise\n0A0B")
    assert device.read(1.0) == ["04A224B2C35E80"]
    os.write(w, b"0C0D\n")
    assert device.read(1.0) == ["0A0B0C0D"]
    assert device.read(0.01) == []
    os.close(w)
    with pytest.raises(ReaderFault, match="gone"):
        device.read(1.0)
    device.close()


def test_wedge_reader_without_a_file_descriptor():
    device = WedgeDevice("text", stream=io.StringIO("01020304\n"))
    device.open()
    assert device.read(0.1) == ["01020304"]


def test_reader_specs(monkeypatch):
    assert isinstance(make_reader("fake"), FakeReader)
    monkeypatch.setenv("CLANK_READER", "fake:drawer")
    assert make_reader().name == "drawer"
    wedge = make_reader("wedge:-,dec")
    assert isinstance(wedge, WedgeDevice) and wedge.fmt == "dec" and wedge.path == "-"
    for bad, reason in [
        ("nfc9000", "unknown reader"),
        ("rdm6300", "needs a serial port"),
        ("mfrc522:zero", "BUS.DEVICE"),
    ]:
        with pytest.raises(SpecError, match=reason):
            make_reader(bad)


def test_a_reader_lost_as_soon_as_it_opens_backs_off_instead_of_spinning():
    """A keyboard reader at the end of its stream opens fine and is lost at once: the
    worker must wait before it opens it again (it used to reopen it at full speed)."""
    statuses: list[str] = []
    lost = threading.Event()
    again = threading.Event()

    def status(state, detail):
        statuses.append(state.value)
        if state.value == "lost":
            lost.set()
        elif state.value == "connected" and lost.is_set():
            again.set()

    worker = ReaderWorker(
        WedgeDevice(stream=io.StringIO("")), lambda scan: None, status, backoff=(30.0, 60.0)
    )
    worker.start()
    try:
        assert lost.wait(30)
        assert not again.wait(0.5)  # no reconnection for 30 s
    finally:
        worker.stop()
    assert statuses.count("connected") == 1
