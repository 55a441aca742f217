"""The phone page in a real browser (Debian's chromium, driven by selenium) at 390x844:
join by the link, pick a colour, see the table's commit within half a second, and after
the game check every draw on the phone and refuse a forged log. With CLANK_SCREENSHOTS
set, the pages are saved as PNG in four languages (``phone-<lang>-<page>.png``)."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.script import parse_line
from companion.session import Session
from companion.store import GameStore
from tests.test_web_support import REPO, WITH_PEBBLES, SimulatedTable, serving

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
VERIFY_JS = REPO / "companion" / "web" / "static" / "verify.js"
LIMIT = 0.5
LANGUAGES = ("en", "ru", "uk", "es")

# the mark of every test that drives the browser (here, and in the other pages' tests)
needs_browser = pytest.mark.skipif(
    CHROMIUM is None or CHROMEDRIVER is None,
    reason="the browser tests need Debian's chromium and chromium-driver "
    "(apt-get install chromium chromium-driver)",
)
pytestmark = needs_browser

# A short game whose seed the companion draws (so its draws are provably fair), with
# three dragon draws, that ends whatever the cubes.
OPENING = [
    {"new": {"edition": "clank", "players": ["red", "blue"], "client_seed": "table"}},
    {
        "do": "row",
        "cards": [
            "Tattle",
            "Move Silently",
            "Dwarven Peddler",
            "Gem Collector",
            "Dead Run",
            "Wand of Recall",
        ],
    },  # fmt: skip
    {"do": "clank", "player": "red", "n": 3},
    {"do": "clank", "player": "blue", "n": 1},
]
PLAY = [
    {"do": "clank", "player": "red", "n": 2},
    {"do": "attack"},
    {"do": "clank", "player": "blue", "n": 2},
    {"do": "attack"},
    {"do": "artifact", "player": "red", "value": 20},
    {"do": "escape", "player": "red"},
    {"do": "end_turn", "revealed": []},
    {"do": "attack"},
    {"do": "artifact", "player": "blue", "value": 25},
    {"do": "escape", "player": "blue"},
]


def _start_game(db: Path) -> None:
    with GameStore(db) as store:
        table = Session(store).start(OPENING[0]["new"])
        for action in OPENING[1:]:
            table.apply(action)


@pytest.fixture
def browser() -> Iterator[object]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="clank-chromium-")
    options = webdriver.ChromeOptions()
    assert CHROMIUM is not None and CHROMEDRIVER is not None
    options.binary_location = CHROMIUM
    for arg in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={profile}",
        "--window-size=390,844",
    ):
        options.add_argument(arg)
    options.add_experimental_option(
        "mobileEmulation", {"deviceMetrics": {"width": 390, "height": 844, "pixelRatio": 2}}
    )
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_script_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def _wait(driver, condition, timeout: float = 10.0):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout, poll_frequency=0.02).until(condition)


def _text(driver, selector: str) -> str | None:
    """The text of an element, read at once (the page may be redrawn meanwhile)."""
    return driver.execute_script(
        "const n = document.querySelector(arguments[0]); return n ? n.textContent : null",
        selector,
    )


def _css(driver, selector: str):
    from selenium.webdriver.common.by import By

    return driver.find_element(By.CSS_SELECTOR, selector)


def _present(selector: str):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec

    return ec.presence_of_element_located((By.CSS_SELECTOR, selector))


def _shot(driver, name: str) -> None:
    folder = os.environ.get("CLANK_SCREENSHOTS")
    if not folder:
        return
    Path(folder).mkdir(parents=True, exist_ok=True)
    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": 390, "height": max(844, int(height)), "deviceScaleFactor": 2, "mobile": True},
    )
    try:
        driver.save_screenshot(str(Path(folder) / f"{name}.png"))
    finally:
        driver.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride",
            {"width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": True},
        )


def _no_overflow(driver) -> None:
    """Nothing wider than the phone: no sideways scrolling."""
    width = driver.execute_script("return document.documentElement.scrollWidth")
    assert width <= 390, width


WATCH_CHANGE = """
const done = arguments[arguments.length - 1];
const node = document.querySelector(arguments[0]);
const before = node.textContent;
const observer = new MutationObserver(() => {
  const now = document.querySelector(arguments[0]);
  if (now && now.textContent !== before) {
    window.__changedAt = Date.now();
    observer.disconnect();
  }
});
observer.observe(document.getElementById("main"), {subtree: true, childList: true,
                                                   characterData: true});
window.__changedAt = null;
done(before);
"""


def test_join_pick_follow_the_table_and_check_the_proof(tmp_path, browser):
    driver = browser
    db = tmp_path / "games.db"
    _start_game(db)
    table = SimulatedTable(db, 1)
    try:
        with serving(db) as served:
            driver.get(served.url)
            _wait(driver, _present('button[data-player="red"]'))
            assert "t=" not in driver.current_url  # the token left the address bar
            _no_overflow(driver)
            _css(driver, 'button[data-player="red"]').click()
            _wait(driver, _present("#me-clank"))
            assert _text(driver, "#me-clank") == "6"  # seat 1's starting 3, and 3
            assert _text(driver, "#me-health") == "10"
            assert _text(driver, "#my-odds")
            _no_overflow(driver)

            # the table commits a scan: it is on the phone within half a second
            before = driver.execute_async_script(WATCH_CHANGE, "#me-clank")
            assert before == "6"
            committed = table.apply(PLAY[0])
            _wait(driver, lambda d: d.execute_script("return window.__changedAt"))
            changed = driver.execute_script("return window.__changedAt") / 1000
            assert _text(driver, "#me-clank") == "8"
            assert changed - committed < LIMIT, changed - committed
            assert "+2" in _text(driver, "#last")

            # a reload: the cookie still opens it, and the colour is remembered
            driver.refresh()
            _wait(driver, _present("#me-clank"))
            assert _text(driver, "#me-clank") == "8"

            # the rest of the game; then the scores, the proof and the check on the phone
            for action in PLAY[1:]:
                table.apply(action)
            _wait(driver, _present("#winner"))
            _wait(driver, _present("#verify"))
            assert (
                _css(driver, "#bgstats")
                .get_attribute("href")
                .startswith("https://app.bgstatsapp.com/createPlay.html?data=")
            )
            _no_overflow(driver)
            if not VERIFY_JS.exists():
                pytest.skip("companion/web/static/verify.js is not there yet: no check to run")
            _css(driver, "#verify").click()
            verdict = (
                "const n = document.getElementById('verify-result');"
                "return !!n && (n.classList.contains('ok') || n.classList.contains('bad'))"
            )
            _wait(driver, lambda d: d.execute_script(verdict), timeout=30)
            result = _css(driver, "#verify-result")
            assert "ok" in result.get_attribute("class"), result.text
            assert "3" in result.text  # every one of the three draws recomputed

            # a forged log: one drawn cube changed; the phone's checker refuses it
            verdicts = driver.execute_async_script(FORGE)
            good, forged = verdicts
            assert good["ok"] is True and good["status"] == "ok", good
            assert forged["ok"] is False and forged["status"] == "failed", forged
    finally:
        table.close()


FORGE = """
const done = arguments[arguments.length - 1];
(async () => {
  const { verifyExport } = await import("/static/verify.js");
  const text = await (await fetch("/api/export?game=1")).text();
  const good = await verifyExport(text);
  const lines = text.trim().split("\\n").map((line) => JSON.parse(line));
  for (const rec of lines.slice(1)) {
    const draws = rec.body && rec.body.draws;
    if (draws && draws.length && draws[0].drawn.length) {
      draws[0].drawn[0] = draws[0].drawn[0] === "black" ? "red" : "black";
      break;
    }
  }
  const forged = await verifyExport(lines.map((o) => JSON.stringify(o)).join("\\n") + "\\n");
  done([good, forged]);
})().catch((e) => done([{ok: false, status: String(e)}, {}]));
"""


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_phone_pages_in_each_language(tmp_path, browser, language):
    """Every page of the phone in the table's language, nothing wider than the phone;
    saved as screenshots when CLANK_SCREENSHOTS is set."""
    driver = browser
    db = tmp_path / "games.db"
    _start_game(db)
    config = tmp_path / "config.toml"
    config.write_text(f'[app]\nlanguage = "{language}"\n', encoding="utf-8")
    table = SimulatedTable(db, 1)
    try:
        with serving(db, env={"CLANK_CONFIG": str(config)}) as served:
            driver.get(served.url)
            _wait(driver, _present('button[data-player="red"]'))
            assert driver.execute_script("return document.documentElement.lang") == language
            _no_overflow(driver)
            _shot(driver, f"phone-{language}-1-pick")
            _css(driver, 'button[data-player="red"]').click()
            for action in PLAY[:4]:
                table.apply(action)
            _wait(driver, lambda d: _text(d, "#me-clank") == "0")
            _wait(driver, _present("#my-odds"))
            _no_overflow(driver)
            _shot(driver, f"phone-{language}-2-table")
            for action in PLAY[4:]:
                table.apply(action)
            _wait(driver, _present("#download"))
            _no_overflow(driver)
            _shot(driver, f"phone-{language}-3-end")
            words = json.loads(driver.execute_script("return JSON.stringify(document.title)"))
            assert words
    finally:
        table.close()


def test_tschak_on_the_phone(tmp_path, browser):
    from companion.script import read_lines

    driver = browser
    db = tmp_path / "games.db"
    lines = list(read_lines(REPO / "examples" / "tschak-3-players.jsonl"))
    with GameStore(db) as store:
        table = Session(store).start(parse_line(*lines[0])["new"])
        for number, text in lines[1:4]:
            table.apply(parse_line(number, text))
    simulated = SimulatedTable(db, 1)
    try:
        with serving(db) as served:
            driver.get(served.url)
            _wait(driver, _present('button[data-player="anna"]'))
            _css(driver, 'button[data-player="anna"]').click()
            _wait(driver, _present("#turn"))
            assert _css(driver, "#turn").text
            _no_overflow(driver)
            _shot(driver, "phone-en-4-tschak")
            started = time.monotonic()
            for number, text in lines[4:]:
                simulated.apply(parse_line(number, text))
            _wait(driver, _present("#winner"), timeout=20)
            assert time.monotonic() - started < 20
            _no_overflow(driver)
            _shot(driver, "phone-en-5-tschak-end")
    finally:
        simulated.close()


def test_a_game_the_phones_cannot_show_says_so(tmp_path, browser):
    """The newest game is of a kind without a phones part (the tests' own pebbles, from a
    variant of its kind registered without one): the page says the phones cannot show
    it, under its title, and the server goes on."""
    from companion import kinds
    from companion.i18n import _
    from companion.web.words import WORDS
    from tests.kinds import UNSHOWN, register_unshown, unmount
    from tests.test_kinds import play_pebbles

    driver = browser
    db = tmp_path / "games.db"
    _start_game(db)
    register_unshown()
    try:
        game = play_pebbles(db, edition=UNSHOWN)
    finally:
        kinds.register(UNSHOWN, None)
        unmount()
    says = _(WORDS["not_shown"])
    with serving(db, cli=WITH_PEBBLES) as served:
        driver.get(served.url)
        _wait(driver, lambda d: _text(d, "#main .notice") == says)
        assert _text(driver, "#title") == f"Pebbles · #{game}"
        _no_overflow(driver)
        driver.get(f"{served.base}/#game=1")  # the game before it: shown as ever
        _wait(driver, _present("#bag"))
        driver.get(f"{served.base}/#game={game}")
        _wait(driver, lambda d: _text(d, "#main .notice") == says)


def test_a_new_box_is_shown_in_the_pages_own_layout(tmp_path, browser):
    """A game of the tests' own box (``companion.kinds.pebbles``, mounted) on the page,
    with no script of its own: its title, whose turn it is and its lines (each player's
    points), in the kind-neutral layout "lines"."""
    from tests.helpers import companion_draws_seed
    from tests.kinds import mount, unmount

    driver = browser
    db = tmp_path / "games.db"
    mount()
    try:
        with GameStore(db) as store, companion_draws_seed("0" * 64):  # a long game
            table = Session(store).start({"edition": "pebbles", "players": ["red", "blue"]})
            for _ in range(3):
                table.apply({"do": "draw"})
            points = table.snapshot()["players"]
            game = table.log.game  # type: ignore[union-attr]
    finally:
        unmount()
    with serving(db, cli=WITH_PEBBLES) as served:
        driver.get(served.url)
        _wait(driver, _present('button[data-player="blue"]'))
        _css(driver, 'button[data-player="blue"]').click()
        _wait(driver, _present("#lines"))
        assert _text(driver, "#title") == f"Pebbles · #{game}"
        shown = driver.execute_script(
            "return [...document.querySelectorAll('#lines .line')].map((n) => n.textContent)"
        )
        assert shown == [
            f"{p.title()}: {v['points']} point" + "s" * (v["points"] != 1)
            for p, v in points.items()
        ]
        assert _text(driver, "#turn") == "Blue's turn"
        assert _text(driver, "#last").startswith("Red drew ")
        _no_overflow(driver)
        _shot(driver, "phone-en-6-pebbles")
