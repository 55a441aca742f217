"""The phone page's own behaviour, in Debian's chromium (selenium) where it needs a page:

- a path that dies without a reset (the server stopped with SIGSTOP: no byte, no reset)
  dims the page, says since when it is not up to date and connects again within a
  second of 30 s of silence, and at once when the phone wakes up; the page's clock is
  moved forward instead of waiting (``CLOCK``);
- nothing is wider than the phone at 320 and 390 px, in four languages, on every page
  (picking, watching, a player's own, the end of a game with its proof, Tschak!, and the
  notice of a dead path, whole), and old content is dimmed;
- the last game stays reachable once the table began the next one, and the colour of
  the game before is asked again, never taken over;
- the phone as a witness of the proof: it shows the commitment from the moment it
  joins, keeps it (and when) in localStorage, checks the revealed seed against it by
  itself at the end, and shows a commitment that changed in red;
- BG Stats: the length of the play read from the log (not from the server having seen
  the end), the date in local time, BoardGameGeek's id only where it is confirmed.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.i18n import _, set_language
from companion.session import Session
from companion.store import GameStore
from companion.web.bgstats import play, play_date
from companion.web.reader import Games
from companion.web.server import bgstats_play
from companion.web.words import WORDS
from tests.test_web_browser import (  # noqa: F401 (browser: the fixture, asked by name)
    CHROMEDRIVER,
    CHROMIUM,
    OPENING,
    PLAY,
    _present,
    _start_game,
    _text,
    _wait,
    browser,
    needs_browser,
)
from tests.test_web_support import REPO, SimulatedTable, record, run_app, script, serving

LANGUAGES = ("en", "ru", "uk", "es")
WIDTHS = (320, 390)

# Before the page's own script: its clock made movable (window.__skew, in ms, added to
# Date.now), its event streams counted (window.__streams), and the time of the last event
# they brought kept (window.__lastEvent).
CLOCK = """
(() => {
  const realNow = Date.now.bind(Date);
  window.__skew = 0;
  Date.now = () => realNow() + window.__skew;
  const Real = window.EventSource;
  window.__streams = 0;
  window.__lastEvent = Date.now();
  window.EventSource = class extends Real {
    constructor(...args) {
      super(...args);
      window.__streams += 1;
      for (const kind of ["state", "alive"]) {
        this.addEventListener(kind, () => { window.__lastEvent = Date.now(); });
      }
    }
  };
})();
"""


def _click(driver, selector: str) -> None:
    """A tap, found and made at once (the page may be drawn again between two calls)."""
    _wait(driver, _present(selector))
    _wait(driver, lambda d: d.execute_script(
        "const n = document.querySelector(arguments[0]); if (n) n.click(); return !!n",
        selector))  # fmt: skip


def _class_and_text(driver, selector: str) -> tuple[str, str]:
    """An element's classes and text, read at once."""
    found = driver.execute_script(
        "const n = document.querySelector(arguments[0]); return [n.className, n.textContent]",
        selector,
    )
    return str(found[0]), str(found[1])


def _open(driver, url: str) -> None:
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": CLOCK})
    driver.get(url)


def _forward(driver, seconds: float) -> None:
    driver.execute_script("window.__skew += arguments[0] * 1000", seconds)


def _silent_for(driver, seconds: float) -> None:
    """The page's clock moved on until its stream has been silent for ``seconds``."""
    driver.execute_script(
        "window.__skew += arguments[0] * 1000 - (Date.now() - window.__lastEvent)", seconds
    )


def _streams(driver) -> int:
    return int(driver.execute_script("return window.__streams"))


def _opacity(driver) -> float:
    return float(
        driver.execute_script("return getComputedStyle(document.getElementById('main')).opacity")
    )


def _fresh(driver) -> bool:
    return bool(
        driver.execute_script(
            "return document.getElementById('link').className === 'link'"
            " && !document.body.classList.contains('stale')"
            " && getComputedStyle(document.getElementById('main')).opacity === '1'"
        )
    )


def _stale(driver) -> bool:
    return bool(
        driver.execute_script(
            "return document.getElementById('link').classList.contains('off')"
            " && document.body.classList.contains('stale')"
        )
    )


@contextlib.contextmanager
def _paused(served) -> Iterator[None]:
    """The server stopped (SIGSTOP): its connections stay open and say nothing, as a
    path that died without a reset (a phone out of the Wi-Fi, a router that dropped it)."""
    os.kill(served.proc.pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(served.proc.pid, signal.SIGCONT)


def _words(language: str) -> dict[str, str]:
    set_language(language)
    try:
        return {key: _(text) for key, text in WORDS.items()}
    finally:
        set_language("en")


def _metrics(driver, width: int, height: int = 844) -> None:
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 2, "mobile": True},
    )


def _shot(driver, width: int, name: str) -> None:
    folder = os.environ.get("CLANK_SCREENSHOTS")
    if not folder:
        return
    Path(folder).mkdir(parents=True, exist_ok=True)
    height = driver.execute_script("return document.documentElement.scrollHeight")
    _metrics(driver, width, max(844, int(height)))
    try:
        driver.save_screenshot(str(Path(folder) / f"phone-{width}-{name}.png"))
    finally:
        _metrics(driver, width)


# Every element inside its own box and inside the phone: none scrolls sideways, none
# reaches past the edge, the document no wider than the phone.
OVERFLOW = """
const width = arguments[0];
const out = [];
const name = (n) => n.tagName.toLowerCase() + (n.id ? "#" + n.id : "") +
  (n.className && typeof n.className === "string" ? "." + n.className.split(" ").join(".") : "");
for (const n of document.querySelectorAll("body *")) {
  const r = n.getBoundingClientRect();
  if (!r.width && !r.height) continue;
  if (n.clientWidth > 0 && n.scrollWidth > n.clientWidth + 1) {
    out.push(name(n) + " scrolls: " + n.scrollWidth + " > " + n.clientWidth);
  }
  if (r.right > width + 0.5 || r.left < -0.5) {
    out.push(name(n) + " past the edge: " + Math.round(r.left) + ".." + Math.round(r.right));
  }
}
if (document.documentElement.scrollWidth > width) {
  out.push("the document: " + document.documentElement.scrollWidth);
}
return out;
"""


def _fits(driver, width: int, what: str) -> None:
    _metrics(driver, width)
    driver.execute_script("return document.body.offsetHeight")  # laid out at this width
    found = driver.execute_script(OVERFLOW, width)
    assert not found, f"{what} at {width} px: {found}"


# ------------------------------------------------------------------ P1: a dead path
@needs_browser
def test_a_silent_path_dims_the_page_and_connects_again(tmp_path, request):
    driver = request.getfixturevalue("browser")
    db = tmp_path / "games.db"
    _start_game(db)
    with serving(db) as served:
        _open(driver, served.url)
        _wait(driver, _present('button[data-player="red"]'))
        _click(driver, 'button[data-player="red"]')
        _wait(driver, _present("#turn.yours"))
        _wait(driver, _fresh)
        assert _streams(driver) == 1

        # 31 s of silence on a path that died without a reset: old, dimmed, and a
        # new stream asked for (within the page's tick of a second)
        with _paused(served):
            _silent_for(driver, 26)
            time.sleep(1.5)
            assert _fresh(driver)  # one "alive" missed is no news yet
            _silent_for(driver, 31)
            _wait(driver, _stale, timeout=5)
            assert _text(driver, "#link").startswith(_words("en")["stale"].split("{")[0])
            assert _opacity(driver) < 0.6  # "Your turn" and the rest, dimmed
            assert _streams(driver) == 2
        # the table answers the new stream: current again, the dot green
        _wait(driver, _fresh, timeout=10)
        assert _text(driver, "#link") == ""

        # the phone wakes up 20 s later (longer than an "alive" event's 15): dimmed at
        # once and connected again, without waiting for the 30 s
        with _paused(served):
            _silent_for(driver, 20)
            driver.execute_script("document.dispatchEvent(new Event('visibilitychange'))")
            assert _stale(driver)
            assert _streams(driver) == 3
        _wait(driver, _fresh, timeout=10)

        # brought back from the browser's cache: connected again
        driver.execute_script(
            "window.dispatchEvent(new PageTransitionEvent('pageshow', {persisted: true}))"
        )
        _wait(driver, lambda d: _streams(d) == 4)
        _wait(driver, _fresh, timeout=10)


# ------------------------------------------------------------------ P2: narrow phones
RUNNING = ["purple", "orange", "yellow", "blue"]  # the longest colour names there are


def _three_games(db: Path) -> None:
    """Game 1 a Clank! game over, game 2 a Tschak! game over, game 3 a Clank! game the
    table plays (its seed the companion's), four players each."""
    record(db, script("clank-4-players.jsonl"))
    record(db, script("tschak-4-players.jsonl"))
    with GameStore(db) as store:
        table = Session(store).start(
            {"edition": "clank", "players": RUNNING, "client_seed": "table"}
        )
        table.apply(OPENING[1])
        table.apply({"do": "clank", "player": "purple", "n": 3})
        table.apply({"do": "clank", "player": "orange", "n": 12})
        table.apply({"do": "attack"})


def _picking(driver) -> bool:
    return bool(driver.execute_script("return !!document.querySelector('button[data-player]')"))


def _verdict_shown(driver, kind: str) -> None:
    """The browser's check of a proof ends with its verdict (``kind``: "ok" or "bad"). The
    check reads and hashes the whole log in the page: on a busy machine it may take long,
    so the wait is generous, and a verdict that never comes says what the page showed."""
    from selenium.common.exceptions import TimeoutException

    try:
        _wait(driver, _present(f"#verify-result.{kind}"), timeout=90)
    except TimeoutException:
        shown = driver.execute_script(
            "const n = document.querySelector('#verify-result');"
            "return n ? [n.className, n.textContent] : 'no result at all'"
        )
        raise AssertionError(f"no {kind} verdict; the page shows {shown!r}") from None


def _choose(driver, player: str) -> None:
    if not _picking(driver):
        _click(driver, "#change")
    _wait(driver, _present(f'button[data-player="{player}"]'))
    _click(driver, f'button[data-player="{player}"]')


HOLD = (
    "const plain = window.fetch;"
    "const part = arguments[0];"
    "let release;"
    "const held = new Promise((_, fail) => { release = fail; });"
    "window.releaseHeld = () => release(new TypeError('cut'));"
    "let first = true;"
    "window.fetch = (url, ...rest) => {"
    "  if (first && String(url).includes(part)) { first = false; return held; }"
    "  return plain(url, ...rest);"
    "};"
)
"""A script for the page: the next request whose address holds its argument waits until
``window.releaseHeld()``, then fails as a cut connection would."""


def _result(driver) -> list[str] | None:
    return driver.execute_script(
        "const n = document.querySelector('#verify-result');"
        "return n ? [n.className, n.textContent] : null"
    )


@contextlib.contextmanager
def _at_the_tschak_end(driver, tmp_path: Path) -> Iterator[None]:
    """The page served three games (the table's #3, a Clank! #1 with a seed given, a
    Tschak! #2) and showing #2's end, its proof offered."""
    db = tmp_path / "games.db"
    _three_games(db)
    with serving(db) as served:
        _open(driver, served.url)
        _wait(driver, lambda d: _text(d, "#title").endswith(" · #3"))
        driver.execute_script("location.hash = '#game=2'")
        _wait(driver, _present("#winner"))
        _wait(driver, _present("#download"))
        _wait(driver, _present("#verify"))
        yield


@needs_browser
def test_an_earlier_game_never_offers_the_proof_of_the_game_shown_before(tmp_path, request):
    """From a Tschak! game's end (its proof shown) the page goes to a Clank! game; until that
    game's proof has come, no proof is offered. Before, the Clank! game showed the Tschak!
    game's download and check buttons, and a tap on the check gave the Tschak! verdict under
    the Clank! game (a seed given: it must be bad). Its proof is held, so the page is read in
    the very state a player could tap."""
    driver = request.getfixturevalue("browser")
    with _at_the_tschak_end(driver, tmp_path):
        driver.execute_script(HOLD, "/api/proof?game=1")
        driver.execute_script("location.hash = '#game=1'")
        _wait(driver, lambda d: _text(d, "#title").endswith(" · #1"))
        _wait(driver, _present("#proof"))
        offered = driver.execute_script(
            "return [...document.querySelectorAll('#download, #verify')].map(n => n.id)"
        )
        assert offered == [], offered
        driver.execute_script("window.releaseHeld()")
        # the proof that failed to come is asked again with the next state; a fresh page
        # asks at once
        driver.refresh()
        _wait(driver, lambda d: _text(d, "#title").endswith(" · #1"))
        _wait(driver, _present("#download"))
        _click(driver, "#verify")
        _verdict_shown(driver, "bad")


@needs_browser
def test_a_check_still_running_when_the_page_moves_on_is_never_shown_under_another_game(
    tmp_path, request
):
    """The Tschak! game's log is being checked, and the page goes to a Clank! game before the
    log has arrived; that game is then checked (a seed given: bad). When the first check
    ends (its log unreadable), its verdict is dropped: before, it replaced the Clank! game's
    own. The held log is released as a failed request, so the old check ends within
    microtasks: the script reads the page after the next task, with no pause."""
    driver = request.getfixturevalue("browser")
    with _at_the_tschak_end(driver, tmp_path):
        driver.execute_script(HOLD, "export")
        _click(driver, "#verify")
        _wait(driver, lambda d: (_result(d) or ["", ""])[1] != "")
        driver.execute_script("location.hash = '#game=1'")
        _wait(driver, lambda d: _text(d, "#title").endswith(" · #1"))
        _wait(driver, _present("#download"))
        _click(driver, "#verify")
        _verdict_shown(driver, "bad")
        before = _result(driver)
        after = driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "window.releaseHeld();"
            "setTimeout(() => {"
            "  const n = document.querySelector('#verify-result');"
            "  done(n ? [n.className, n.textContent] : null);"
            "}, 0);"
        )
        assert after == before, (before, after)


@needs_browser
def test_nothing_is_wider_than_a_phone_of_320_or_390_px(tmp_path, request):
    driver = request.getfixturevalue("browser")
    db = tmp_path / "games.db"
    _three_games(db)
    config = tmp_path / "config.toml"
    config.write_text('[app]\nlanguage = "en"\n', encoding="utf-8")
    with serving(db, env={"CLANK_CONFIG": str(config)}) as served:
        _open(driver, served.url)
        for language in LANGUAGES:
            partial = config.with_name("config.new")
            partial.write_text(f'[app]\nlanguage = "{language}"\n', encoding="utf-8")
            partial.replace(config)
            _wait(driver, lambda d, lang=language: d.execute_script(
                "return document.documentElement.lang") == lang)  # fmt: skip
            driver.execute_script("location.hash = ''")
            _wait(driver, lambda d: _text(d, "#title").endswith(" · #3"))

            # picking, watching, a player's own (whose turn it is)
            if not _picking(driver):
                _click(driver, "#change")
            _wait(driver, _present('button[data-player="purple"]'))
            for width in WIDTHS:
                _fits(driver, width, f"{language}: picking a colour")
            _choose(driver, "")
            _wait(driver, _present(".others .row"))
            for width in WIDTHS:
                _fits(driver, width, f"{language}: watching")
                _shot(driver, width, f"{language}-watching")
            _choose(driver, "purple")
            _wait(driver, _present("#turn.yours"))
            _wait(driver, _present("#witness"))
            for width in WIDTHS:
                _fits(driver, width, f"{language}: a player's own")
                _shot(driver, width, f"{language}-table")

            # the earlier games: a Clank! game's end and proof, checked; Tschak!'s end
            driver.execute_script("location.hash = '#game=1'")
            _wait(driver, lambda d: _text(d, "#title").endswith(" · #1"))
            _wait(driver, _present("#download"))
            _click(driver, "#verify")
            _verdict_shown(driver, "bad")  # a seed given
            for width in WIDTHS:
                _fits(driver, width, f"{language}: the end of a game")
                _shot(driver, width, f"{language}-end")
            driver.execute_script("location.hash = '#game=2'")
            _wait(driver, _present("#winner"))
            _wait(driver, _present("#download"))
            for width in WIDTHS:
                _fits(driver, width, f"{language}: the end of a Tschak! game")
            driver.execute_script("location.hash = ''")
            _wait(driver, _present("#turn.yours"))

            # a dead path: the notice whole, the old "Your turn" dimmed
            with _paused(served):
                _forward(driver, 31)
                _wait(driver, _stale, timeout=5)
                for width in WIDTHS:
                    _fits(driver, width, f"{language}: the notice of a dead path")
                    link = driver.execute_script(
                        "const r = document.getElementById('link').getBoundingClientRect();"
                        "return [r.left, r.right, r.height]"
                    )
                    assert link[0] >= 0 and link[1] <= width and link[2] > 0, link
                    assert _opacity(driver) < 0.6
                    _shot(driver, width, f"{language}-stale")
            _wait(driver, _fresh, timeout=10)


# ------------------------------------------------------------------ P3: the games before
@needs_browser
def test_the_last_game_stays_reachable_and_the_colour_is_asked_again(tmp_path, request):
    driver = request.getfixturevalue("browser")
    db = tmp_path / "games.db"
    _start_game(db)
    words = _words("en")
    table = SimulatedTable(db, 1)
    try:
        with serving(db) as served:
            _open(driver, served.url)
            _wait(driver, _present('button[data-player="red"]'))
            _click(driver, 'button[data-player="red"]')
            _wait(driver, _present("#me-clank"))
            for action in PLAY:
                table.apply(action)
            _wait(driver, _present("#winner"))
            _wait(driver, _present("#bgstats"))
            table.close()

            # the table begins the next game: the phone asks again which colour
            with GameStore(db) as store:
                Session(store).start(
                    {"edition": "clank", "players": ["blue", "red"], "client_seed": "next"}
                )
            _wait(driver, lambda d: _text(d, "#title") == "Clank! · #2")
            _wait(driver, _present("#pick"))
            assert driver.execute_script("return !document.getElementById('me')")
            assert words["pick_again"] in _text(driver, "#pick")
            classes, label = _class_and_text(driver, 'button[data-player="red"]')
            assert "last" in classes.split()
            assert words["last_choice"] in label

            # ... and the last game is a tap away: its scores, its proof, BG Stats
            _wait(driver, _present('#earlier a[data-game="1"]'))
            _shot(driver, 390, "en-next-game")
            _click(driver, '#earlier a[data-game="1"]')
            _wait(driver, _present("#winner"))
            _wait(driver, _present("#download"))
            _wait(driver, _present("#bgstats"))
            assert _text(driver, "#title") == "Clank! · #1"
            assert driver.execute_script("return location.hash") == "#game=1"
            assert _text(driver, "#scores")
            # its colour is the one chosen for it
            assert words["you"] in driver.execute_script(
                "return document.querySelector('.who.bar:not(.earlier-bar)').textContent"
            )
            # back to the table's game, still asking
            _click(driver, "#back")
            _wait(driver, lambda d: _text(d, "#title") == "Clank! · #2")
            _wait(driver, _present("#pick"))
            _click(driver, 'button[data-player="blue"]')
            _wait(driver, _present("#me-clank"))
            kept = json.loads(driver.execute_script("return localStorage['clank-table:me']"))
            assert kept == {"1": "red", "2": "blue"}
    finally:
        table.close()


def test_the_games_list_names_the_newest_games_first(tmp_path):
    db = tmp_path / "games.db"
    record(db, script("clank-2-players-short.jsonl"))
    record(db, script("tschak-3-players.jsonl"))
    with GameStore(db) as store:
        Session(store).start({"edition": "clank", "players": ["red", "blue"]})

    async def check(client, token):
        refused = await client.get("/api/games")
        answer = await client.get("/api/games", headers={"Authorization": f"Bearer {token}"})
        return refused.status, answer.status, await answer.json()

    refused, status, body = run_app(db, check)
    assert refused == 403
    assert status == 200
    listed = [(g["game"], g["edition"], g["status"]) for g in body["games"]]
    assert listed == [(3, "clank", "playing"), (2, "tschak", "over"), (1, "clank", "over")]
    assert body["games"][1]["title"] == "Tschak!"
    assert all(g["created_at"] for g in body["games"])


# ------------------------------------------------------------------ the phone as a witness
SEEN = """
const entry = JSON.parse(localStorage["clank-table:witness"] || "{}")[arguments[0]];
return entry || null;
"""


@needs_browser
def test_the_phone_witnesses_the_commitment_and_checks_the_seed_itself(tmp_path, request):
    driver = request.getfixturevalue("browser")
    db = tmp_path / "games.db"
    _start_game(db)
    words = _words("en")
    commitment = Games(db).game(1).commitment
    table = SimulatedTable(db, 1)
    try:
        with serving(db) as served:
            # from the moment it joins, before any colour is chosen
            _open(driver, served.url)
            _wait(driver, _present('button[data-player="red"]'))
            seen = driver.execute_script(SEEN, "1")
            assert seen["commitment"] == commitment
            # when it saw it: the phone's own clock, to the second
            at = driver.execute_script("return Date.parse(arguments[0])", seen["at"])
            assert abs(at / 1000 - time.time()) < 30
            _click(driver, 'button[data-player="red"]')
            _wait(driver, _present("#witness"))
            assert _text(driver, "#witness .hex") == commitment
            assert commitment[:8] in _text(driver, "#witness-line")

            for action in PLAY:
                table.apply(action)
            # at the end: the revealed seed checked against what the phone saw, by itself
            _wait(driver, _present("#witness-line.ok"), timeout=20)
            line = _text(driver, "#witness-line")
            assert line.startswith(words["witness_match"].split("{")[0] + commitment[:8])
            assert line.endswith(words["witness_match"].split("}")[-1])
            _click(driver, "#verify")
            checked = words["witness_checked"].split("}")[-1]  # "...: every draw checks"
            _wait(driver, lambda d: _text(d, "#witness-line").endswith(checked), timeout=30)
            assert driver.execute_script(SEEN, "1")["commitment"] == commitment
            _shot(driver, 390, "en-witness-end")

            # a phone that saw another commitment for this game: its proof in red
            driver.execute_script(
                "const all = JSON.parse(localStorage['clank-table:witness']);"
                "all['1'].commitment = 'ab'.repeat(32);"
                "localStorage['clank-table:witness'] = JSON.stringify(all);"
            )
            driver.refresh()
            _wait(driver, _present("#witness-line.bad"), timeout=20)
            assert "ab" * 4 in _text(driver, "#witness-line")
            assert (
                driver.execute_script(
                    "return document.querySelector('#proof .hex.bad').textContent"
                )
                == commitment
            )
    finally:
        table.close()


@needs_browser
def test_a_commitment_that_changes_during_the_game_is_shown_in_red(tmp_path, request):
    driver = request.getfixturevalue("browser")
    db = tmp_path / "games.db"
    _start_game(db)
    commitment = Games(db).game(1).commitment
    with serving(db) as served:
        _open(driver, served.url)
        _wait(driver, _present('button[data-player="red"]'))
        # this phone saw game 1 with another commitment earlier in the evening
        driver.execute_script(
            "localStorage['clank-table:witness'] = JSON.stringify({'1': {commitment:"
            " 'cd'.repeat(32), at: new Date(Date.now() - 600000).toISOString(), created: ''}})"
        )
        driver.refresh()
        _wait(driver, _present('button[data-player="red"]'))
        _click(driver, 'button[data-player="red"]')
        _wait(driver, _present("#witness"))
        assert "bad" in _class_and_text(driver, "#witness .hex")[0].split()
        classes, line = _class_and_text(driver, "#witness-line")
        assert "bad" in classes.split()
        assert "cd" * 4 in line and commitment[:8] in line
        colour = driver.execute_script(
            "return getComputedStyle(document.getElementById('witness-line')).color"
        )
        red, green, blue = (int(v) for v in colour[colour.index("(") + 1 : -1].split(",")[:3])
        assert red > 200 and green < 120 and blue < 120, colour
        _shot(driver, 390, "en-witness-changed")


def test_the_witness_words_are_in_every_language():
    english = _words("en")
    for language in ("ru", "uk", "es"):
        words = _words(language)
        for key in ("witness_saw", "witness_match", "witness_checked", "witness_changed",
                    "witness_other", "witness_mismatch", "witness_none", "stale",
                    "earlier_games", "back_live", "pick_again"):  # fmt: skip
            assert words[key] != english[key], (language, key)
            assert set(_placeholders(words[key])) == set(_placeholders(english[key]))


def _placeholders(text: str) -> list[str]:
    import re

    return re.findall(r"\{(\w+)\}", text)


# ------------------------------------------------------------------ P4: BG Stats
def _finished_game(db: Path, monkeypatch, start: str, end: str) -> None:
    """The browser tests' short game (its seed the companion's), begun at ``start`` and
    ended at ``end`` (the companion's clock, as the table's would say)."""
    monkeypatch.setattr("companion.session.now_text", lambda: start)
    monkeypatch.setattr("companion.store.log.now_text", lambda: end)
    with GameStore(db) as store:
        table = Session(store).start(OPENING[0]["new"])
        for action in OPENING[1:] + PLAY:
            table.apply(action)


def test_the_length_of_the_play_is_read_from_the_log_after_a_restart(tmp_path, monkeypatch):
    db = tmp_path / "games.db"
    _finished_game(db, monkeypatch, "2026-11-25T18:00:00+00:00", "2026-11-25T19:31:10+00:00")
    # the end is in the log, in the record that ended the game
    with GameStore(db) as store:
        kinds = {rec["kind"]: rec["body"] for rec in store.records(1)}
    assert kinds["reveal"]["ended_at"] == "2026-11-25T19:31:10+00:00"
    # a server that never saw the game end (started after it, or restarted)
    found = Games(db).game(1)
    assert found.ended_at == "2026-11-25T19:31:10+00:00"
    assert bgstats_play(found)["durationMin"] == 91

    # both verifiers take the record as it is now written
    export = tmp_path / "game-1.jsonl"
    from companion.web.proof import export_text

    with GameStore(db) as store:
        export.write_text(export_text(store.read, db, 1), encoding="utf-8")
    python = subprocess.run(
        ["python3", str(REPO / "companion" / "verify_log.py"), str(export)],
        capture_output=True,
        text=True,
    )
    assert python.returncode == 0, python.stdout + python.stderr
    node = shutil.which("node")
    if node is not None:
        verdict = subprocess.run(
            [node, "--input-type=module", "-e", VERDICT_JS,
             str(REPO / "companion" / "web" / "static" / "verify.js"), str(export)],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        assert json.loads(verdict.stdout)["status"] == "ok", verdict.stdout


VERDICT_JS = """
import { readFileSync } from "node:fs";
const { verifyExport } = await import(process.argv[1]);
console.log(JSON.stringify(await verifyExport(readFileSync(process.argv[2], "utf8"))));
"""


def test_an_abandoned_game_says_when_too(tmp_path, monkeypatch):
    db = tmp_path / "games.db"
    monkeypatch.setattr("companion.store.log.now_text", lambda: "2026-11-25T19:00:00+00:00")
    with GameStore(db) as store:
        table = Session(store).start(OPENING[0]["new"])
        table.abandon("given up at the table")
    with GameStore(db) as store:
        last = list(store.records(1))[-1]
    assert last["kind"] == "abandon"
    assert last["body"]["ended_at"] == "2026-11-25T19:00:00+00:00"
    assert Games(db).game(1).ended_at == "2026-11-25T19:00:00+00:00"


@pytest.fixture
def zone(monkeypatch):
    """Set the machine's time zone for the test (TZ), as the Pi's would be."""

    def set_zone(name: str) -> None:
        monkeypatch.setenv("TZ", name)
        time.tzset()

    yield set_zone
    monkeypatch.undo()
    time.tzset()


def test_the_play_is_dated_in_the_tables_local_time(zone):
    zone("Europe/Madrid")  # UTC+1 in November
    assert play_date("2026-11-25T18:22:48+00:00") == "2026-11-25 19:22:48"
    zone("Asia/Kolkata")  # UTC+5:30
    assert play_date("2026-11-25T18:22:48+00:00") == "2026-11-25 23:52:48"
    assert play_date("2026-11-25T20:22:48+02:00") == "2026-11-25 23:52:48"
    zone("UTC")
    assert play_date("2026-11-25T18:22:48+00:00") == "2026-11-25 18:22:48"


def test_boardgamegeeks_id_only_where_it_is_confirmed():
    def game_of(edition: str) -> dict:
        data = play(
            game=1,
            edition=edition,
            created_at="2026-11-25T18:00:00+00:00",
            commitment="",
            seats=["red"],
            ranking=[{"player": "red", "score": 10, "place": 1}],
            winners=["red"],
        )
        return data["game"]

    assert game_of("clank")["bggId"] == 201808  # Clank! A Deck-Building Adventure
    assert "bggId" not in game_of("catacombs")  # nothing here confirms one
    assert "bggId" not in game_of("tschak")
