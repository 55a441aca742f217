"""`clank-companion scan --reader rdm6300:PTY` end to end, through a pseudo-terminal that
is closed (unplugged) and reopened while the command runs."""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import sys
import time

from hardware.readers.fake_serial import FakeRdm6300, FakeSerialPort

A = "0A00C0FFEE"
B = "1B2C3D4E5F"


class Lines:
    """The child's stdout and stderr, read without blocking past a deadline."""

    def __init__(self, child: subprocess.Popen) -> None:
        self.child = child
        self.out = b""
        self.err = b""
        self.sel = selectors.DefaultSelector()
        self.sel.register(child.stdout, selectors.EVENT_READ, "out")
        self.sel.register(child.stderr, selectors.EVENT_READ, "err")

    def pump(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            for key, _ in self.sel.select(timeout=0.05):
                chunk = os.read(key.fileobj.fileno(), 4096)
                if key.data == "out":
                    self.out += chunk
                else:
                    self.err += chunk

    def wait_err(self, text: str, seconds: float = 10) -> None:
        deadline = time.monotonic() + seconds
        while text.encode() not in self.err and time.monotonic() < deadline:
            self.pump(0.05)
        assert text.encode() in self.err, self.err.decode()

    def wait_out_lines(self, n: int, seconds: float = 10) -> None:
        deadline = time.monotonic() + seconds
        while self.out.count(b"\n") < n and time.monotonic() < deadline:
            self.pump(0.05)


def test_scan_prints_exactly_the_valid_debounced_uids_and_survives_a_reopen(tmp_path):
    port = FakeSerialPort(tmp_path)
    rdm = FakeRdm6300(port, interval=0.05)
    config = tmp_path / "config.toml"
    config.write_text("[reader]\ngone_after = 0.3\nwindow = 0.5\n")
    child = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "companion",
            "scan",
            "--reader",
            f"rdm6300:{port.path}",
            "--db",
            str(tmp_path / "games.db"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "CLANK_CONFIG": str(config)},
    )
    lines = Lines(child)
    try:
        lines.wait_err("connected")
        rdm.write_noise(b"\x02ZZZZZZZZZZ00\x03 \x02" + b"0A00C0FFEE" + b"FF\x03")  # bad frames
        rdm.present(A)  # repeated every 50 ms for a second: one scan
        lines.pump(1.0)
        rdm.remove()
        lines.pump(0.8)  # gone, and past the window
        rdm.present(A, repeat=False)  # put back: a second scan
        lines.wait_out_lines(2)
        port.close()  # unplugged
        lines.wait_err("lost")
        lines.pump(0.5)
        port.reopen()
        lines.wait_err("connected", seconds=15)
        rdm.present(B)
        lines.wait_out_lines(3)
        lines.pump(0.5)
        rdm.remove()
    finally:
        child.send_signal(signal.SIGTERM)
        child.wait(timeout=10)
        lines.pump(0.2)
        rdm.close()
        port.close()
    assert lines.out.decode().splitlines() == [
        f"{A}  unknown tag",
        f"{A}  unknown tag",
        f"{B}  unknown tag",
    ]
    assert child.returncode == 0
