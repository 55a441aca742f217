"""The Phones screen (Menu -> Phones): the phones' join link as a QR code that a phone
(here zbarimg) reads as exactly the link, from the file the web service leaves it in (the
Pi) or made by the table itself (a desktop); what it says when the phones are off; and
the web service's side: the file written once it listens, group-readable only, and
removed when it stops. The screen never loads the web side (aiohttp)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

os.environ.setdefault("KIVY_WINDOW", "sdl2")
from kivy.config import Config as KivyConfig  # noqa: E402

KivyConfig.set("graphics", "width", "800")
KivyConfig.set("graphics", "height", "480")

from companion.config import AppConfig, Config, WebConfig  # noqa: E402
from companion.join_link import URL_FILE_ENV, write_url_file  # noqa: E402
from companion.ui.harness import Harness  # noqa: E402
from companion.web.access import load_token  # noqa: E402
from tests.screen_metrics import problems, shown  # noqa: E402
from tests.test_web_support import record, script, serving  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SHOTS = Path(os.environ["CLANK_SCREENSHOTS"]) if os.environ.get("CLANK_SCREENSHOTS") else None
SCAN = "Scan with your phone's camera, on the table's Wi-Fi"
OFF = "Phones are off: turn them on in the settings' [web] section"
NO_TOKEN = "Phones are off: they have no token yet (clank-companion serve makes one)"
NOT_RUNNING = "The phones' page is not running yet: it starts just after the table"
TOKEN = "eZ0n3x" + "A" * 35 + "Qk"  # 43 characters of the URL-safe alphabet


@pytest.fixture(autouse=True)
def _no_link_file(monkeypatch):
    monkeypatch.delenv(URL_FILE_ENV, raising=False)


def table(tmp_path: Path, web: WebConfig | None = None) -> Harness:
    db = tmp_path / "games.db"
    config = Config(app=AppConfig(database=str(db), language="en"), web=web or WebConfig())
    return Harness(db, config)


def open_phones(ui: Harness) -> object:
    """A game on the table, then Menu -> Phones."""
    ctl = ui.app.controller
    if ctl.phase == "none":
        ctl.new_game({"edition": "clank", "players": ["red", "blue"]})
        ctl.begin()
        ui.frames(2)
    assert ui.app.screens.current == "table"
    ui.tap("Menu")
    ui.tap("Phones")
    assert ui.app.screens.current == "phones"
    return ui.app.screens.current_screen


def decode(ui: Harness, path: Path) -> str:
    """What a phone's camera reads on the screen: zbarimg on a screenshot."""
    zbarimg = shutil.which("zbarimg")
    if zbarimg is None:
        pytest.skip("zbarimg is missing (Debian: apt-get install zbar-tools)")
    ui.screenshot(path)
    if SHOTS is not None:
        SHOTS.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, SHOTS / path.name)
    found = subprocess.run(
        [zbarimg, "--raw", "-q", str(path)], capture_output=True, text=True, timeout=60
    )
    assert found.returncode == 0, found.stderr
    return found.stdout.rstrip("\n")


def check_code(ui: Harness, screen, url: str, shot: Path) -> None:
    """The code holds exactly ``url``, large enough for arm's length; the link in words
    under it (its token shortened), the instruction beside it, nothing too small."""
    qr = screen.ids.qr
    assert screen.url == url and qr.data == url and shown(qr)
    assert qr.module >= 3 and min(qr.size) >= 380
    assert decode(ui, shot) == url
    base, _, token = url.partition("?t=")
    words = ui.find(f"{base}?t={token[:4]}…")
    code_y = qr.to_window(qr.x, qr.y)[1]
    assert shown(words) and words.to_window(words.x, words.y)[1] + words.height <= code_y + 1
    assert token not in words.text
    assert shown(ui.find(SCAN)) and shown(ui.find("The players' phones"))
    assert problems(screen) == []


# ------------------------------------------------------------------ the web service's file
def test_the_server_leaves_its_join_link_for_the_table_and_takes_it_away(tmp_path, monkeypatch):
    db = tmp_path / "games.db"
    record(db, script("clank-2-players-short.jsonl")[:5])
    run = tmp_path / "run"
    run.mkdir(mode=0o750)
    link = run / "join-url"
    umask = os.umask(0o077)  # the web unit's UMask=0077: still group-readable, as it must be
    try:
        with serving(db, env={URL_FILE_ENV: str(link)}) as served:
            os.umask(umask)
            # written before the first line is printed: whoever has the line finds the file
            assert link.read_text(encoding="ascii") == served.url + "\n"
            assert link.stat().st_mode & 0o777 == 0o640  # the kiosk's group reads it, no one else
            assert sorted(p.name for p in run.iterdir()) == ["join-url"]  # no temporary file

            # the kiosk (no network of its own) reads it: the screen shows exactly that link
            monkeypatch.setenv(URL_FILE_ENV, str(link))
            ui = table(tmp_path)
            try:
                screen = open_phones(ui)
                check_code(ui, screen, served.url, tmp_path / "phones-from-file.png")
                ui.tap("Back")
                assert ui.app.screens.current == "table"
            finally:
                ui.close()
    finally:
        os.umask(umask)
    assert not link.exists()  # stopped: the link is gone with the service
    assert list(run.iterdir()) == []


def test_the_server_keeps_serving_when_it_cannot_write_the_link(tmp_path):
    db = tmp_path / "games.db"
    missing = tmp_path / "no-such-folder" / "join-url"
    with serving(db, env={URL_FILE_ENV: str(missing)}) as served:
        assert served.url.startswith("http://127.0.0.1:")
    assert "cannot write the join link" in served.stderr()
    assert not missing.exists()


# ------------------------------------------------------------------ the table makes it
@pytest.mark.parametrize(
    ("address", "host"), [("127.0.0.1", "127.0.0.1"), ("0.0.0.0", "192.168.1.23")]
)
def test_on_a_desktop_the_table_makes_the_link_itself(tmp_path, monkeypatch, address, host):
    """No file named: the settings' [web] address and port, the token beside the
    database (0.0.0.0: this machine's address on its network)."""
    monkeypatch.setattr("companion.join_link.lan_address", lambda: host)
    ui = table(tmp_path, WebConfig(address=address, port=8765))
    try:
        token = load_token(ui.store.path)  # as `clank-companion serve` makes it
        screen = open_phones(ui)
        url = f"http://{host}:8765/?t={token}"
        check_code(ui, screen, url, tmp_path / f"phones-{address}.png")
        ui.tap("Back")
        assert ui.app.screens.current == "table"
    finally:
        ui.close()


# ------------------------------------------------------------------ no code
def no_code(ui: Harness, screen, says: str) -> None:
    assert screen.url == "" and screen.ids.qr.data == "" and screen.ids.qr.module == 0
    assert screen.problem == says and shown(ui.find(says))
    assert screen.link_text == ""
    with pytest.raises(LookupError):
        ui.find(SCAN)
    assert problems(screen) == []
    ui.find("Back")


def test_phones_turned_off_say_so_instead_of_a_code(tmp_path):
    ui = table(tmp_path, WebConfig(enabled=False))
    try:
        load_token(ui.store.path)
        screen = open_phones(ui)
        no_code(ui, screen, OFF)
        if SHOTS is not None:
            SHOTS.mkdir(parents=True, exist_ok=True)
            ui.screenshot(SHOTS / "phones-off.png")
        ui.tap("Back")
        assert ui.app.screens.current == "table"
    finally:
        ui.close()


def test_without_a_token_the_phones_are_off(tmp_path):
    ui = table(tmp_path)
    try:
        screen = open_phones(ui)
        no_code(ui, screen, NO_TOKEN)
        # the web side starts meanwhile and makes its token: the code comes by itself
        token = load_token(ui.store.path)
        ui.frames(2, seconds=2.2)
        assert screen.url == f"http://127.0.0.1:8765/?t={token}"
        assert screen.problem == "" and screen.ids.qr.module >= 3
    finally:
        ui.close()
    # the app closed while the screen was shown: it stops looking at the next tick
    (tmp_path / "later").mkdir()
    later = table(tmp_path / "later")
    try:
        later.frames(2, seconds=2.2)
        assert screen._recheck is None
    finally:
        later.close()


def test_on_the_pi_the_table_waits_for_the_web_services_file(tmp_path, monkeypatch):
    """A file named but not there (the web service not started yet): no link made up
    (the kiosk cannot learn the Pi's address); once it is written, the code comes."""
    link = tmp_path / "join-url"
    monkeypatch.setenv(URL_FILE_ENV, str(link))
    ui = table(tmp_path, WebConfig(address="0.0.0.0"))
    try:
        load_token(ui.store.path)  # there, but not what the kiosk goes by
        screen = open_phones(ui)
        no_code(ui, screen, NOT_RUNNING)
        link.write_text("not a link\n")
        screen.refresh()
        assert screen.url == "" and "is damaged" in screen.problem
        url = f"http://192.168.1.23:8765/?t={TOKEN}"
        write_url_file(link, url)
        ui.frames(2, seconds=2.2)
        assert screen.url == url and screen.problem == ""
        # leaving the screen stops looking
        ui.tap("Back")
        assert ui.app.screens.current == "table" and screen._recheck is None
    finally:
        ui.close()


# ------------------------------------------------------------------ nothing of the web side
def test_the_screen_loads_no_web_side(tmp_path):
    """The app's first frame does not load the screen, and the screen (making the link
    from the token) loads neither aiohttp nor the web side."""
    (tmp_path / "games.db.web-token").write_text(TOKEN + "\n")
    code = textwrap.dedent(
        f"""
        import sys
        from pathlib import Path
        import companion.ui.app
        print("screen" if "companion.ui.screens.phones" in sys.modules else "-")
        from companion.config import AppConfig, Config
        from companion.ui.screens.phones import phones_link
        db = Path({str(tmp_path / "games.db")!r})
        url, problem = phones_link(Config(app=AppConfig(database=str(db))), db)
        print(url, repr(problem))
        print(sorted(m for m in sys.modules if m == "aiohttp" or m.startswith("companion.web")))
        """
    )
    env = {**os.environ, "KIVY_NO_ARGS": "1", "KIVY_NO_CONSOLELOG": "1"}
    env.pop(URL_FILE_ENV, None)
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env, timeout=120
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()[-3:]
    assert lines == ["-", f"http://127.0.0.1:8765/?t={TOKEN} ''", "[]"]
