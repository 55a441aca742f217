"""Settings -> New phone link, behind the admin PIN: the menu asks the PIN first (the
installer's, or with none configured the default one), a question follows (Cancel keeps
the link), and the answer renews the token. The button is table-sized (26sp, 64 px and
more) and whole in every language. The
phones' page, running meanwhile, refuses the old link from the next request and opens
the new one, without a restart; the Phones screen shows the new link's code."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import aiohttp
import pytest

os.environ.setdefault("KIVY_WINDOW", "sdl2")
from kivy.config import Config as KivyConfig  # noqa: E402

KivyConfig.set("graphics", "width", "800")
KivyConfig.set("graphics", "height", "480")

from companion.config import AppConfig, Config, WebConfig  # noqa: E402
from companion.join_link import URL_FILE_ENV, read_token, token_path  # noqa: E402
from companion.pin import DEFAULT_PIN, hash_pin  # noqa: E402
from companion.ui.harness import Harness  # noqa: E402
from companion.ui.ink import screen_metrics  # noqa: E402
from companion.ui.screens.popups import INERT, Confirm, PinPad  # noqa: E402
from companion.web.access import load_token  # noqa: E402
from tests.helpers import popup  # noqa: E402
from tests.screen_metrics import problems, shown  # noqa: E402
from tests.test_phones_screen import check_code  # noqa: E402
from tests.test_web_support import serving, wait_for  # noqa: E402

BUTTON = "New phone link"
QUESTION = "Give the phones a new link? The old one stops working at once."
YES = "Yes, a new link"
DONE = "The phones have a new link: Menu, then Phones, shows its code."


@pytest.fixture(autouse=True)
def _no_link_file(monkeypatch, tmp_path):
    monkeypatch.delenv(URL_FILE_ENV, raising=False)
    monkeypatch.setenv("CLANK_CONFIG", str(tmp_path / "config.toml"))


def table(tmp_path: Path, pin: str = "") -> Harness:
    """The table with a game on it (recorded in its database, as the phones read it);
    ``pin``: the admin PIN its settings hold (none: the default PIN opens Settings)."""
    db = tmp_path / "games.db"
    app = AppConfig(database=str(db), language="en", admin_pin_hash=hash_pin(pin) if pin else "")
    config = Config(app=app, web=WebConfig())
    ui = Harness(db, config)
    ui.app.controller.new_game({"edition": "clank", "players": ["red", "blue"]})
    ui.app.controller.begin()
    ui.frames(2)
    assert ui.app.screens.current == "table"
    return ui


def open_settings(ui: Harness, pin: str = "2468") -> None:
    """Menu -> Settings: the PIN pad first; the right PIN opens the screen."""
    ui.tap("Menu")
    ui.tap("Settings")
    assert ui.app.screens.current != "settings"
    pad = popup(ui, PinPad)
    assert shown(pad)
    ui.enter_pin(pin)


def renew(ui: Harness) -> None:
    """On the Settings screen: the button, the question, yes."""
    ui.tap(BUTTON)
    confirm = popup(ui, Confirm)
    assert confirm.question == QUESTION and shown(ui.find(QUESTION))
    assert problems(confirm) == []
    ui.frames(2, seconds=INERT + 0.1)  # the answer takes taps only after a moment
    ui.tap(YES)
    assert not [w for w in ui.window.children if isinstance(w, Confirm)]


@pytest.mark.parametrize("pin", ["913705", ""], ids=["installer-pin", "no-pin-set"])
def test_without_the_pin_there_is_no_new_link(tmp_path, pin):
    """The pad closed without a PIN, or a wrong PIN: no Settings, no button, the token
    as it was. With no PIN in the settings the default one is asked all the same."""
    ui = table(tmp_path, pin)
    try:
        old = load_token(ui.store.path)
        ui.tap("Menu")
        ui.tap("Settings")
        pad = popup(ui, PinPad)
        pad.dismiss(animation=False)  # closed without a PIN
        ui.frames(2)
        assert ui.app.screens.current == "table"
        with pytest.raises(LookupError):
            ui.find(BUTTON)
        wrong = "2468" if pin else "913705"
        open_settings(ui, wrong)
        assert ui.app.screens.current != "settings"
        assert popup(ui, PinPad).message == "Wrong PIN"
        with pytest.raises(LookupError):
            ui.find(BUTTON)
        popup(ui, PinPad).dismiss(animation=False)
        ui.frames(2)
        assert read_token(token_path(ui.store.path)) == old
    finally:
        ui.close()


@pytest.mark.parametrize("pin", ["913705", ""], ids=["installer-pin", "no-pin-set"])
def test_with_the_pin_the_button_asks_then_renews(tmp_path, pin):
    ui = table(tmp_path, pin)
    try:
        old = load_token(ui.store.path)
        open_settings(ui, pin or DEFAULT_PIN)
        assert ui.app.screens.current == "settings"
        renew(ui)
        new = read_token(token_path(ui.store.path))
        assert new is not None and new != old
        assert ui.app.screen("settings").message == DONE
    finally:
        ui.close()


@pytest.mark.parametrize("language", ["en", "es", "ru", "uk"])
def test_the_button_is_table_sized_and_whole_in_every_language(tmp_path, language):
    from kivy.metrics import sp

    names = {"en": "English", "es": "Español", "ru": "Русский", "uk": "Українська"}
    ui = table(tmp_path)
    try:
        open_settings(ui)
        ui.tap(names[language])  # the table's language, chosen on this screen
        assert ui.app.screens.current == "settings"
        screen = ui.app.screen("settings")
        button = screen.ids.phone_link
        assert button.text == _in(language, BUTTON)
        assert button.font_size == sp(26) and button.height >= 64
        assert shown(button) and button.texture_size[1] <= button.height
        assert problems(screen) == []
        ui.frames(3)
        cut = screen_metrics(ui.window)["cut"]  # shortened, or a word broken inside
        assert not [c for c in cut if any(word in c for word in button.text.split())], cut
        # the edition numbers keep their room beside it (a line at least)
        details = ui.find(screen.details)
        assert shown(details) and details.parent.height >= details.font_size
        ui.tap(button)
        confirm = popup(ui, Confirm)
        assert confirm.question == _in(language, QUESTION)
        assert problems(confirm) == []
        confirm.dismiss(animation=False)
        ui.frames(2)
    finally:
        ui.close()


def _in(language: str, text: str) -> str:
    from companion.i18n import _, current_language, set_language

    before = current_language()
    set_language(language)
    try:
        return _(text)
    finally:
        set_language(before)


def test_the_pin_guards_the_new_link_and_cancel_keeps_the_old_one(tmp_path):
    ui = table(tmp_path)
    try:
        old = load_token(ui.store.path)
        open_settings(ui, "1357")  # a wrong PIN: no Settings, no button
        assert ui.app.screens.current != "settings"
        assert popup(ui, PinPad).message == "Wrong PIN"
        with pytest.raises(LookupError):
            ui.find(BUTTON)
        popup(ui, PinPad).dismiss(animation=False)
        ui.frames(2)

        open_settings(ui)
        assert ui.app.screens.current == "settings"
        assert problems(ui.app.screen("settings")) == []
        ui.tap(BUTTON)
        popup(ui, Confirm)
        ui.frames(2, seconds=INERT + 0.1)
        ui.tap("Cancel")
        assert read_token(token_path(ui.store.path)) == old
        assert ui.app.screen("settings").message == ""
    finally:
        ui.close()


def test_settings_renew_the_token_and_the_running_page_follows_at_once(tmp_path):
    """The page in this process (aiohttp's test server), the table's Settings renewing
    the token meanwhile: the old link is refused, the new one opens the game."""
    from aiohttp.test_utils import TestClient, TestServer

    from companion.web.server import WebCompanion, make_app

    ui = table(tmp_path)
    db = ui.store.path

    async def status(client, token: str) -> int:
        response = await client.get("/api/state", headers={"Authorization": f"Bearer {token}"})
        await response.read()
        return response.status

    async def main() -> tuple[str, str]:
        old = load_token(db)
        companion = WebCompanion(db, old, poll=0.02)
        async with TestClient(TestServer(make_app(companion))) as client:
            assert await status(client, old) == 200
            open_settings(ui)
            assert ui.app.screens.current == "settings"
            renew(ui)
            new = read_token(token_path(db))
            assert new is not None and new != old
            assert await status(client, old) == 403
            assert await status(client, new) == 200
            return old, new

    try:
        old, new = asyncio.run(main())
        screen = ui.app.screen("settings")
        assert screen.message == DONE and shown(ui.find(DONE))
        # Back, then Menu -> Phones: the new link's code (the desktop: made from the token)
        ui.tap("Back")
        ui.tap("Menu")
        ui.tap("Phones")
        phones = ui.app.screens.current_screen
        assert phones.url == f"http://127.0.0.1:8765/?t={new}"
        assert old not in phones.url
    finally:
        ui.close()


def test_on_the_pi_the_phones_screen_shows_the_new_link_the_service_writes(tmp_path, monkeypatch):
    """``serve`` in a process of its own writes its link for the kiosk; renewed on the
    table, the service writes the new one and the Phones screen shows its code."""
    ui = table(tmp_path)
    db = ui.store.path
    run = tmp_path / "run"
    run.mkdir()
    link = run / "join-url"
    try:
        with serving(db, env={URL_FILE_ENV: str(link)}) as served:
            monkeypatch.setenv(URL_FILE_ENV, str(link))
            open_settings(ui)
            renew(ui)
            new = read_token(token_path(db))
            assert new is not None and new != served.token
            wait_for(lambda: link.read_text().strip() == f"{served.base}/?t={new}", timeout=5)

            async def statuses() -> tuple[int, int]:
                async with aiohttp.ClientSession() as session:
                    out = []
                    for token in (served.token, new):
                        async with session.get(
                            served.base + "/api/state",
                            headers={"Authorization": f"Bearer {token}"},
                        ) as response:
                            out.append(response.status)
                    return out[0], out[1]

            assert asyncio.run(statuses()) == (403, 200)
            ui.tap("Back")
            ui.tap("Menu")
            ui.tap("Phones")
            screen = ui.app.screens.current_screen
            check_code(ui, screen, f"{served.base}/?t={new}", tmp_path / "phones-renewed.png")
    finally:
        ui.close()
