"""The companion in a real window, on a virtual X display, played with a real mouse.

The window must open at 800x480 straight away (not 800x600 first, which pushed the top
of the screen out of sight with no window manager), and clicks on it must start a game
that is in the database. Needs Debian's xvfb and xdotool (CI installs them).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from companion.store import GameStore

pytestmark = pytest.mark.skipif(
    shutil.which("Xvfb") is None or shutil.which("xdotool") is None,
    reason="needs Xvfb and xdotool (Debian: apt-get install xvfb xdotool)",
)

DEADLINE = 90.0  # seconds: generous, for a busy machine; each wait ends on its event


def wait_for(what: str, probe, deadline: float = DEADLINE, app=None, lines=()):
    """Poll ``probe`` until it answers; an app that has ended, or the deadline, fails
    with what the app wrote (the cause is there, not in the wait)."""
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        value = probe()
        if value:
            return value
        if app is not None and app.poll() is not None:
            raise AssertionError(
                f"the app ended ({app.returncode}) before {what} (X sockets: {_sockets()}):\n"
                + "".join(lines)
            )
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}:\n" + "".join(lines)[-6000:])


@pytest.fixture
def display():
    xvfb = subprocess.Popen(
        ["Xvfb", "-displayfd", "1", "-screen", "0", "1024x768x24", "-nolisten", "tcp"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert xvfb.stdout is not None
    number = xvfb.stdout.readline().strip()  # Xvfb writes it once the display is ready
    assert number.isdigit(), number
    # and a client can reach it (its socket there): the app is started only then
    reached = {**os.environ, "DISPLAY": f":{number}"}
    wait_for(f"display :{number} to take a client (sockets: {_sockets()})",
             lambda: xdotool(reached, "getdisplaygeometry").strip())  # fmt: skip
    yield f":{number}"
    xvfb.terminate()
    xvfb.wait(timeout=30)
    xvfb.stdout.close()


def _sockets() -> list[str]:
    folder = Path("/tmp/.X11-unix")
    return sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []


def xdotool(env: dict[str, str], *args: str) -> str:
    return subprocess.run(
        ["xdotool", *args], env=env, capture_output=True, text=True, timeout=60, check=False
    ).stdout


def test_the_window_opens_at_800x480_and_a_click_starts_a_game(display, tmp_path: Path):
    db = tmp_path / "games.db"
    config = tmp_path / "config.toml"
    config.write_text(f'[app]\nlanguage = "en"\ndatabase = "{db}"\n', encoding="utf-8")
    env = {
        **os.environ,
        "DISPLAY": display,
        "CLANK_CONFIG": str(config),
        "KIVY_HOME": str(tmp_path / "kivy"),
        "GPIOZERO_PIN_FACTORY": "mock",
        "KIVY_NO_ARGS": "1",
        "SDL_AUDIODRIVER": "dummy",
        # on X or not at all: SDL would fall back to its offscreen driver without a word
        # when it cannot reach the display, and the window would never be seen
        "SDL_VIDEODRIVER": "x11",
    }
    env.pop("CLANK_DB", None)
    env.pop("KIVY_NO_CONSOLELOG", None)  # its log says when the main loop runs
    env["KIVY_LOG_MODE"] = "KIVY"
    app = subprocess.Popen(
        [sys.executable, "-m", "companion.cli", "app", "--window"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(app.stderr), daemon=True)
    reader.start()
    try:

        def find_window() -> str | None:
            for wid in xdotool(env, "search", "--class", ".").split():
                if xdotool(env, "getwindowname", wid).strip() == "Clank! Table Companion":
                    return wid
            return None

        window = wait_for("the window", find_window, app=app, lines=lines)
        geometry = xdotool(env, "getwindowgeometry", window)
        size = re.search(r"Geometry: (\d+)x(\d+)", geometry)
        assert size is not None and size.groups() == ("800", "480"), geometry
        # the new-game screen: Red, Blue, then Start game (where the screen puts them)
        wait_for(
            "the main loop",
            lambda: any("main loop" in line for line in lines),
            app=app,
            lines=lines,
        )
        wait_for(
            "the window on screen",
            lambda: window in xdotool(env, "search", "--onlyvisible", "--class", ".").split(),
        )

        def started() -> list[dict] | None:
            if not db.exists():
                return None
            with GameStore(db, create=False) as store:
                games = store.games()
            return games or None

        # Clear seats, Red, Blue, Start game; again if the first clicks came before the
        # window took input (its first frames)
        for _attempt in range(5):
            for x, y in [(202, 340), (136, 212), (136, 276), (598, 340)]:
                # through XTEST, as a real mouse: a press and its release
                xdotool(env, "mousemove", "--sync", "--window", window, str(x), str(y))
                xdotool(env, "click", "1")
                time.sleep(0.5)  # a finger's pace: Kivy tells a tap from a double tap
            try:
                wait_for("the game to be recorded", started, 10)
                break
            except AssertionError:
                continue
        (game,) = wait_for("the game to be recorded", started, 5)
        assert game["players"] == ["red", "blue"] and game["status"] == "playing"
    finally:
        app.send_signal(signal.SIGTERM)
        try:
            app.wait(timeout=30)
        except subprocess.TimeoutExpired:
            app.kill()
            app.wait()
        reader.join(timeout=30)
        if app.stderr:
            app.stderr.close()
    err = "".join(lines)
    assert "Traceback" not in err, err
