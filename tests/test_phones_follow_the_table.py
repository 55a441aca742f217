"""The phones' page and the table say the same things the same way: the table's language
chosen on its Settings screen is the running page's (its words, its pushed states and the
page itself) without a restart; the player whose turn it is is marked in the table's
white, from the table's own constants, never in yellow (a player's colour); every count
takes the plural form its language gives it (Russian and Ukrainian have three: 1 and 21,
2, 5); and the health lost on average is written by one formatter for the table and the
phones, with the decimal comma of Spanish, Russian and Ukrainian."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import aiohttp
import pytest

os.environ.setdefault("KIVY_WINDOW", "sdl2")
from kivy.config import Config as KivyConfig  # noqa: E402

KivyConfig.set("graphics", "width", "800")
KivyConfig.set("graphics", "height", "480")

from companion import i18n  # noqa: E402
from companion.config import AppConfig, Config, WebConfig  # noqa: E402
from companion.i18n import set_language  # noqa: E402
from companion.kinds.clank.phones import odds_words  # noqa: E402
from companion.kinds.clank.screens.odds import AVERAGE, cells  # noqa: E402
from companion.kinds.clank.view import health_lost, next_draw_title  # noqa: E402
from companion.ui.colours import COLOURS, TURN_INK, TURN_MARK  # noqa: E402
from companion.ui.harness import Harness  # noqa: E402
from companion.web.colours import hex_colour, palette_css  # noqa: E402
from companion.web.words import PLURALS, page_words  # noqa: E402
from tests.test_web_browser import (  # noqa: E402, F401 (browser: the fixture, by name)
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
from tests.test_web_support import css_rules, serving, wait_for  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
STATIC = ROOT / "companion" / "web" / "static"
NODE = shutil.which("node")
LANGUAGE_BUTTONS = {"en": "English", "es": "Español", "ru": "Русский", "uk": "Українська"}


@pytest.fixture(autouse=True)
def english_afterwards():
    yield
    set_language("en")


def _table(tmp_path: Path, language: str = "en", players: int = 2) -> Harness:
    db = tmp_path / "games.db"
    config = Config(app=AppConfig(database=str(db), language=language), web=WebConfig())
    ui = Harness(db, config)
    seats = ["red", "blue", "green", "yellow"][:players]
    ui.app.controller.new_game({"edition": "clank", "players": seats})
    ui.app.controller.begin()
    ui.frames(2)
    return ui


# ------------------------------------------------------------------ the language
def test_the_language_chosen_on_the_tables_settings_is_the_running_pages(tmp_path, monkeypatch):
    """The table's Settings screen saves the language (its settings file); ``serve``, in a
    process of its own and never restarted, speaks it from then on: its words, the state
    it pushes and the page it sends, whose language and title are the table's."""
    config = tmp_path / "config.toml"
    monkeypatch.setenv("CLANK_CONFIG", str(config))
    ui = _table(tmp_path)
    try:
        ui.app.set_language("en")  # the settings file, as the table writes it
        assert config.is_file()
        with serving(ui.store.path, env={"CLANK_CONFIG": str(config)}) as served:
            auth = {"Authorization": f"Bearer {served.token}"}

            async def ask() -> tuple[str, str, str]:
                async with aiohttp.ClientSession(headers=auth) as session:
                    async with session.get(served.base + "/api/words") as words:
                        lang = (await words.json())["lang"]
                    async with session.get(served.base + "/api/state") as state:
                        turn = (await state.json())["view"]["turn"]
                    async with session.get(served.base + "/") as page:
                        html = await page.text()
                return lang, turn, html

            lang, turn, html = asyncio.run(ask())
            assert lang == "en" and turn.startswith("Turn ") and '<html lang="en">' in html
            assert "<title>Table companion</title>" in html

            ui.tap("Menu")
            ui.tap("Settings")
            ui.enter_pin("2468")
            assert ui.app.screens.current == "settings"
            ui.tap(LANGUAGE_BUTTONS["uk"])  # the table's Settings: Українська
            assert 'language = "uk"' in config.read_text(encoding="utf-8")
            wait_for(lambda: asyncio.run(ask())[0] == "uk", timeout=5)
            lang, turn, html = asyncio.run(ask())
            set_language("uk")
            title = i18n._("Table companion")
            set_language("en")
            assert turn.startswith("Хід ") and '<html lang="uk">' in html, turn
            assert f"<title>{title}</title>" in html and title != "Table companion"
            assert f'<h1 id="title">{title}</h1>' in html
    finally:
        ui.close()


# ------------------------------------------------------------------ the turn marker
def _rgb(text: str) -> tuple[int, int, int]:
    return int(text[1:3], 16), int(text[3:5], 16), int(text[5:7], 16)


def test_the_page_marks_the_turn_in_the_tables_white_never_in_a_players_colour():
    generated = css_rules(palette_css())[":root"]
    assert generated["--turn"] == hex_colour(TURN_MARK) == "#ffffff"
    assert generated["--turn-ink"] == hex_colour(TURN_INK)
    assert hex_colour(TURN_MARK) not in {hex_colour(c) for c in COLOURS.values()}

    page = css_rules((STATIC / "app.css").read_text(encoding="utf-8"))
    # every mark of the turn takes the table's marker, by name
    assert page[".turn.yours"]["background"] == "var(--turn)"
    assert page[".turn.yours"]["color"] == "var(--turn-ink)"
    assert page[".turn-badge"]["background"] == "var(--turn)"
    assert page[".turn-badge"]["color"] == "var(--turn-ink)"
    assert "var(--turn)" in page[".others .row.active"]["outline"]
    for side in ("top", "right", "bottom"):
        assert page[".panel.active"][f"border-{side}-color"] == "var(--turn)"
    # and nothing of the page's own style is the yellow player's colour, or near it (the
    # turn was once marked in yellow)
    text = (STATIC / "app.css").read_text(encoding="utf-8")
    assert "--mark" not in text
    yellow = _rgb(hex_colour(COLOURS["yellow"]))
    for found in re.findall(r"#[0-9a-fA-F]{6}\b", text):
        apart = sum((a - b) ** 2 for a, b in zip(_rgb(found), yellow, strict=True)) ** 0.5
        assert apart > 100, found

    script = (STATIC / "app.js").read_text(encoding="utf-8")
    assert 'el("span", "turn-badge", t("turn"))' in script
    assert '" active"' in script and "active-mark" not in script


def test_the_tables_panel_draws_its_turn_marker_from_the_same_constants(tmp_path):
    from companion.kinds.clank.screens.panel import PanelHeader, PlayerPanel

    ui = _table(tmp_path)
    try:
        table = ui.app.screens.get_screen("table")
        panels = [w for w in table.walk() if isinstance(w, PlayerPanel)]
        active = [p for p in panels if p.active]
        assert len(active) == 1
        header = next(w for w in active[0].walk() if isinstance(w, PanelHeader))
        assert list(header._badge_colour.rgb) == pytest.approx(TURN_MARK[:3])
        assert header._badge_colour.a == 1
        assert list(header.turn_ink.colour.rgb) == pytest.approx(TURN_INK[:3])
        idle = next(p for p in panels if not p.active)
        idle_header = next(w for w in idle.walk() if isinstance(w, PanelHeader))
        assert idle_header._badge_colour.a == 0
    finally:
        ui.close()


def _rgb_css(rgba: tuple[float, ...]) -> str:
    r, g, b = _rgb(hex_colour(rgba))
    return f"rgb({r}, {g}, {b})"


def _style(driver, selector: str, prop: str) -> str:
    return str(
        driver.execute_script(
            "return getComputedStyle(document.querySelector(arguments[0]))[arguments[1]]",
            selector,
            prop,
        )
    )


@needs_browser
def test_the_open_page_marks_whose_turn_it_is_in_white(tmp_path, request):
    """In a real browser, in Russian: watching blue, red's row is framed in white with
    the table's badge; as red, the banner and the panel are."""
    driver = request.getfixturevalue("browser")
    db = tmp_path / "games.db"
    _start_game(db)  # red plays first
    config = tmp_path / "config.toml"
    config.write_text('[app]\nlanguage = "ru"\n', encoding="utf-8")
    white, ink = _rgb_css(TURN_MARK), _rgb_css(TURN_INK)
    set_language("ru")
    badge = i18n._("turn")
    set_language("en")
    with serving(db, env={"CLANK_CONFIG": str(config)}) as served:
        driver.get(served.url)
        _wait(driver, _present('button[data-player="blue"]'))
        _css(driver, 'button[data-player="blue"]').click()
        _wait(driver, _present('.others .row[data-player="red"]'))
        row = '.others .row[data-player="red"]'
        assert "active" in _css(driver, row).get_attribute("class")
        assert _style(driver, row, "outlineColor") == white
        assert _text(driver, row + " .turn-badge") == badge
        assert _style(driver, row + " .turn-badge", "backgroundColor") == white
        assert _style(driver, row + " .turn-badge", "color") == ink
        assert "yours" not in _css(driver, "#turn").get_attribute("class")
        assert driver.execute_script("return document.querySelectorAll('.turn-badge').length") == 1
        assert driver.execute_script("return document.documentElement.scrollWidth") <= 390

        _css(driver, "#change").click()
        _wait(driver, _present('button[data-player="red"]'))
        _css(driver, 'button[data-player="red"]').click()
        _wait(driver, _present("#turn.yours"))
        assert _style(driver, "#turn", "backgroundColor") == white
        assert _style(driver, "#turn", "color") == ink
        assert _style(driver, "#me", "borderTopColor") == white
        assert _style(driver, "#me", "borderLeftColor") == _rgb_css(COLOURS["red"])
        assert _text(driver, "#me .turn-badge") == badge
        assert driver.execute_script("return document.documentElement.scrollWidth") <= 390


# ------------------------------------------------------------------ plural forms
# The real catalogs: (1, 21) one form, 2 another, 5 a third in Russian and Ukrainian.
CUBES = {
    "ru": {1: "1 кубик", 2: "2 кубика", 5: "5 кубиков", 21: "21 кубик"},
    "uk": {1: "1 кубик", 2: "2 кубики", 5: "5 кубиків", 21: "21 кубик"},
    "es": {1: "1 cubo", 2: "2 cubos", 5: "5 cubos", 21: "21 cubos"},
    "en": {1: "1 cube", 2: "2 cubes", 5: "5 cubes", 21: "21 cubes"},
}
COUNTS = (1, 2, 5, 21)


def _picked(entry: dict, n: int) -> str:
    at = n if n < len(entry["pick"]) else 100 + n % 100
    return str(entry["forms"][int(entry["pick"][at])])


def _catalog_forms(language: str, singular: str) -> tuple[str, ...]:
    from babel.messages.pofile import read_po

    with open(i18n.catalog_path(language), "rb") as f:
        catalog = read_po(f)
    found = catalog.get(singular)
    assert found is not None and not found.fuzzy and isinstance(found.string, tuple), singular
    assert all(found.string), (language, singular)
    return tuple(found.string)


@pytest.mark.parametrize("language", ["ru", "uk"])
def test_every_count_the_page_words_takes_its_form_in_russian_and_ukrainian(language):
    set_language(language)
    words = page_words()
    assert words["lang"] == language
    assert {n: _picked(words["plurals"]["cubes"], n).format(n=n) for n in COUNTS} == CUBES[language]
    for key, (singular, _plural) in PLURALS.items():
        one, few, many = _catalog_forms(language, singular)
        entry = words["plurals"][key]
        assert [_picked(entry, n) for n in COUNTS] == [one, few, many, one], key
    # what the server words itself with a count: the next draw and the likeliest damage
    for n in COUNTS:
        title = next_draw_title("clank", "attack", n, False)
        assert title.endswith(CUBES[language][n]), title
    hurt = {n: odds_words([0.1] + [0.0] * (n - 1) + [0.8, 0.1], 0.1, 30, "clank") for n in COUNTS}
    one, few, many = (
        f.replace("{n}", "").replace("({chance})", "")
        for f in _catalog_forms(language, "Most likely {n} damage ({chance})")
    )
    heads = {n: hurt[n]["headline"].replace(str(n), "").replace("(80%)", "") for n in COUNTS}
    assert [heads[n] for n in COUNTS] == [one, few, many, one]


@pytest.mark.parametrize("language", ["en", "es"])
def test_two_forms_in_english_and_spanish(language):
    set_language(language)
    entry = page_words()["plurals"]["cubes"]
    assert len(entry["forms"]) == 2
    assert {n: _picked(entry, n).format(n=n) for n in COUNTS} == CUBES[language]


@pytest.mark.skipif(NODE is None, reason="node is not installed: words.js untested")
@pytest.mark.parametrize("language", ["ru", "uk"])
def test_the_pages_script_picks_the_catalogs_forms(tmp_path, language):
    """static/words.js, run in node on what /api/words gives in the real catalog."""
    set_language(language)
    given = tmp_path / "words.json"
    given.write_text(json.dumps(page_words(), ensure_ascii=False), encoding="utf-8")
    probe = tmp_path / "probe.mjs"
    probe.write_text(
        "import { readFileSync } from 'node:fs';\n"
        f"const {{ plural }} = await import({json.dumps((STATIC / 'words.js').as_uri())});\n"
        "const W = JSON.parse(readFileSync(process.argv[2], 'utf8'));\n"
        f"console.log(JSON.stringify({json.dumps(list(COUNTS))}.map((n) => "
        "plural(W, 'cubes', n))));\n",
        encoding="utf-8",
    )
    result = subprocess.run(
        [str(NODE), str(probe), str(given)], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == [CUBES[language][n] for n in COUNTS]


# ------------------------------------------------------------------ the decimal separator
@pytest.mark.parametrize(
    ("language", "small", "large"),
    [("en", "0.4", "2.5"), ("es", "0,4", "2,5"), ("ru", "0,4", "2,5"), ("uk", "0,4", "2,5")],
)
def test_health_lost_on_average_in_each_languages_own_way(language, small, large):
    set_language(language)
    assert health_lost(0.04) == "0" and health_lost(0.0) == "0"
    assert health_lost(0.38) == small and health_lost(2.46) == large
    assert health_lost(10.0) == "10" and health_lost(9.97) == "10"
    # the phones' words: the same figure
    words = odds_words([0.62, 0.38], 0.38, 1, "clank")
    assert small in words["average"], words["average"]


@pytest.mark.parametrize("language", ["en", "es", "ru", "uk"])
def test_the_table_and_the_phones_write_the_same_figure(tmp_path, language):
    """The health lost on average in the table's All odds and the page's 'on average'
    for the same player at the same moment: one formatter, the language's separator."""
    ui = _table(tmp_path, language)
    try:
        ctl = ui.app.controller
        ctl.clank(3, "red")
        ctl.do({"do": "rage", "n": 2})
        ui.frames(3)
        red = ctl.view().player("red")
        assert 0.05 < red.expected_damage < 9.9 and f"{red.expected_damage:.1f}" != "0.0"
        figure = health_lost(red.expected_damage)
        separator = "." if language == "en" else ","
        assert separator in figure and ("," if language == "en" else ".") not in figure
        # the table says it in All odds (one tap away from the panels)
        assert cells(red)[AVERAGE] == "−" + figure, cells(red)
        words = odds_words(list(red.odds), red.knock_out, red.health, "clank")
        assert figure in words["average"], words["average"]
    finally:
        ui.close()


def test_no_figure_of_the_odds_is_formatted_anywhere_else():
    """One formatter (companion.kinds.clank.view.health_lost): the table's All odds and the phones'
    words format no decimal of their own."""
    clank = ROOT / "companion" / "kinds" / "clank"
    for path in (clank / "screens" / "odds.py", clank / "phones.py"):
        text = path.read_text(encoding="utf-8")
        assert not re.search(r":\.\d+f\}|%\.\d+f", text), path
        assert "health_lost(" in text, path
