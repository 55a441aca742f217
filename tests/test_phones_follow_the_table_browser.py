"""The phone page in a real browser (Debian's chromium, driven by selenium) following the
table: its chips and its band in the table's own colours, the table's language changed
in the settings while the page is open, and a new link given on the table (the open page
says so; the new link opens the page again)."""

from __future__ import annotations

from pathlib import Path

from companion.i18n import _, set_language
from companion.join_link import renew_token
from companion.web.colours import palette
from companion.web.words import WORDS
from tests.test_web_browser import (  # noqa: F401 (browser: the fixture, asked by name)
    CHROMEDRIVER,
    CHROMIUM,
    _css,
    _present,
    _start_game,
    _text,
    _wait,
    browser,
    needs_browser,
)
from tests.test_web_support import serving

pytestmark = needs_browser


def _rgb(hex_colour: str) -> str:
    r, g, b = (int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgb({r}, {g}, {b})"


def _config(path: Path, language: str) -> None:
    partial = path.with_name(path.name + ".new")
    partial.write_text(f'[app]\nlanguage = "{language}"\n', encoding="utf-8")
    partial.replace(path)


def _style(driver, selector: str, prop: str) -> str:
    return str(
        driver.execute_script(
            "return getComputedStyle(document.querySelector(arguments[0]))[arguments[1]]",
            selector,
            prop,
        )
    )


def test_the_open_page_follows_the_tables_colours_language_and_new_link(tmp_path, request):
    driver = request.getfixturevalue("browser")
    db = tmp_path / "games.db"
    _start_game(db)
    config = tmp_path / "config.toml"
    _config(config, "en")
    colours = palette()
    with serving(db, env={"CLANK_CONFIG": str(config)}) as served:
        driver.get(served.url)
        _wait(driver, _present('button[data-player="red"]'))
        # the chips of the picker and of the bag, and my panel's band: the table's palette
        for player in ("red", "blue"):
            selector = f'button[data-player="{player}"] .chip'
            assert _style(driver, selector, "backgroundColor") == _rgb(colours[player][0])
            assert _style(driver, selector, "color") == _rgb(colours[player][1])
        _css(driver, 'button[data-player="red"]').click()
        _wait(driver, _present("#me-clank"))
        assert _style(driver, "#me", "borderLeftColor") == _rgb(colours["red"][0])
        assert _style(driver, "#bag .c-black", "backgroundColor") == _rgb(colours["black"][0])
        assert driver.execute_script("return document.documentElement.lang") == "en"
        english = _text(driver, "#turn")

        # the table's Settings: Українська; the open page follows, nothing reloaded
        _config(config, "uk")
        _wait(driver, lambda d: d.execute_script("return document.documentElement.lang") == "uk")
        _wait(driver, lambda d: _text(d, "#turn") not in (None, english))
        assert _text(driver, "#me-clank") == "6"  # the same game, the colour remembered

        # the table's Settings: a new link. The open page is turned away and says so
        set_language("uk")
        says = _(WORDS["new_link"])
        set_language("en")
        new = renew_token(db)
        _wait(driver, lambda d: _text(d, "#main") == says, timeout=15)
        driver.get(f"{served.base}/?t={new}")
        _wait(driver, _present("#me-clank"))
        assert "t=" not in driver.current_url
