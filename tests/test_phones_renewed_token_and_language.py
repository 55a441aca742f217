"""The phones' page follows the table while it runs: a token renewed on the table is the
only one at once (the old join link 403, its open streams ended, the link written again
for the Phones screen); the table's language, changed in its settings, is the page's
without a restart; the players' colours are the table's own palette; and every word with
a count takes the plural form its language gives that count."""

from __future__ import annotations

import ast
import asyncio
import io
import json
import os
import re
import select
import shutil
import subprocess
from pathlib import Path

import aiohttp
import pytest

from companion import i18n
from companion.i18n import set_language
from companion.join_link import URL_FILE_ENV, file_signature, read_token, renew_token, token_path
from companion.web.access import TokenFile, load_token
from companion.web.colours import hex_colour
from companion.web.server import WebCompanion, make_app, static_files
from companion.web.words import PICKED, PLURALS, WORDS, TableLanguage, page_words, plural_forms
from tests.test_web_support import css_rules, record, script, serving, wait_for

ROOT = Path(__file__).resolve().parent.parent
STATIC = ROOT / "companion" / "web" / "static"
NODE = shutil.which("node")


def _game(tmp_path: Path, lines: int = 12) -> Path:
    db = tmp_path / "games.db"
    record(db, script("clank-2-players-short.jsonl")[:lines])
    return db


def _app(db: Path, check, *, language: TableLanguage | None = None, told=None):
    """``check(client, companion)`` against the application in this process."""
    from aiohttp.test_utils import TestClient, TestServer

    token = load_token(db)

    async def main():
        companion = WebCompanion(db, token, poll=0.02, language=language, on_token=told)
        async with TestClient(TestServer(make_app(companion))) as client:
            return await check(client, companion)

    return asyncio.run(main())


async def _status(client, path: str, token: str, how: str = "bearer") -> int:
    if how == "bearer":
        response = await client.get(path, headers={"Authorization": f"Bearer {token}"})
    elif how == "cookie":
        response = await client.get(path, headers={"Cookie": f"clank_table={token}"})
    else:
        response = await client.get(path, params={"t": token})
    await response.read()
    return response.status


async def _until(condition, timeout: float = 5.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not await condition():
        assert loop.time() < deadline, "timed out"
        await asyncio.sleep(0.02)


# ------------------------------------------------------------------ the token, renewed
def test_the_table_renews_the_token_whole_and_owner_only(tmp_path):
    db = tmp_path / "games.db"
    old = load_token(db)
    new = renew_token(db)
    assert new != old and len(new) == 43
    path = token_path(db)
    assert read_token(path) == new
    assert path.stat().st_mode & 0o777 == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["games.db.web-token"]  # no leftover
    assert renew_token(db) not in (old, new)


def test_a_token_that_cannot_be_written_is_said_in_words(tmp_path):
    from companion.join_link import WebError

    (tmp_path / "games.db.web-token").mkdir()  # a folder in its place: never replaced
    with pytest.raises(WebError, match="cannot write a new token"):
        renew_token(tmp_path / "games.db")


def test_after_renewal_the_old_token_is_refused_and_the_new_one_opens_everything(tmp_path):
    db = _game(tmp_path)
    told: list[str | None] = []

    async def check(client, companion):
        old = companion.token
        for how in ("bearer", "cookie", "query"):
            assert await _status(client, "/api/state", old, how) == 200
        stream = await client.get("/api/events", headers={"Authorization": f"Bearer {old}"})
        first = (await stream.content.readuntil(b"\n\n")).decode()
        assert first.startswith("retry:")

        new = renew_token(db)  # the table's Settings, in another process on the Pi
        # the very next request: no restart, no wait for the watcher
        for path in ("/", "/api/state", "/api/words", "/static/app.js", "/api/events"):
            for how in ("bearer", "cookie", "query"):
                assert await _status(client, path, old, how) == 403, (path, how)
        for how in ("bearer", "cookie", "query"):
            assert await _status(client, "/api/state", new, how) == 200, how
        page = await client.get("/", params={"t": new})
        await page.read()
        assert page.status == 200 and page.cookies["clank_table"].value == new

        # the stream opened with the old token ends; whoever shows the link is told
        rest = await asyncio.wait_for(stream.content.read(), 5)
        assert stream.content.at_eof(), rest
        await _until(lambda: _true(told == [new]))
        return old, new

    old, new = _app(db, check, told=told.append)
    assert old != new


async def _true(value: bool) -> bool:
    return value


def test_a_token_file_gone_or_damaged_lets_nobody_in(tmp_path):
    db = _game(tmp_path)
    path = token_path(db)

    async def check(client, companion):
        token = companion.token
        assert await _status(client, "/api/state", token) == 200
        path.unlink()
        assert await _status(client, "/api/state", token) == 403
        path.write_text("not a token\n")
        assert await _status(client, "/api/state", token) == 403
        assert "damaged" in companion.access.problem
        path.write_text(token + "\n")  # whole again: the same token opens again
        assert await _status(client, "/api/state", token) == 200
        return True

    assert _app(db, check)


def test_the_token_file_is_read_only_when_it_changed(tmp_path, monkeypatch):
    path = tmp_path / "games.db.web-token"
    path.write_text("A" * 43 + "\n")
    reads: list[Path] = []
    real = read_token

    def counting(p):
        reads.append(p)
        return real(p)

    monkeypatch.setattr("companion.web.access.read_token", counting)
    tokens = TokenFile(path, "A" * 43)
    for _ in range(50):
        assert tokens.current() == "A" * 43
    assert len(reads) == 1 and tokens.generation == 0
    path.write_text("B" * 43 + "\n")
    os.utime(path, ns=(1, 1))  # even a file written back with an old time is a new one
    assert tokens.current() == "B" * 43 and tokens.generation == 1


def test_serve_takes_the_new_token_and_writes_the_new_link_without_a_restart(tmp_path):
    db = _game(tmp_path)
    run = tmp_path / "run"
    run.mkdir()
    link = run / "join-url"
    with serving(db, env={URL_FILE_ENV: str(link)}) as served:
        assert link.read_text().strip() == served.url
        old = served.token

        new = renew_token(db)
        wait_for(lambda: link.read_text().strip().endswith("?t=" + new), timeout=5)
        assert link.read_text().strip() == served.base + "/?t=" + new
        assert link.stat().st_mode & 0o777 == 0o640
        # the new link is printed too, a line of its own after the first
        assert served.proc.stdout is not None
        ready, _, _ = select.select([served.proc.stdout], [], [], 5)
        assert ready, "no second line"
        assert served.proc.stdout.readline().strip() == served.base + "/?t=" + new

        async def main():
            async with aiohttp.ClientSession() as session:
                out = {}
                for name, token in (("old", old), ("new", new)):
                    async with session.get(
                        served.base + "/api/state", headers={"Authorization": f"Bearer {token}"}
                    ) as response:
                        out[name] = (response.status, await response.read())
                return out

        answers = asyncio.run(main())
        assert answers["old"] == (403, b"")
        assert answers["new"][0] == 200
    assert not link.exists()  # the newest link is taken away when it stops
    assert old not in served.stderr() and new not in served.stderr()  # the log holds no token


# ------------------------------------------------------------------ the table's language
def _config(path: Path, language: str) -> None:
    partial = path.with_name(path.name + ".new")
    partial.write_text(f'[app]\nlanguage = "{language}"\n', encoding="utf-8")
    partial.replace(path)  # as the table's Settings screen saves it


def test_the_page_follows_the_tables_language_without_a_restart(tmp_path, monkeypatch):
    db = _game(tmp_path)
    config = tmp_path / "config.toml"
    _config(config, "en")
    monkeypatch.setenv("CLANK_CONFIG", str(config))

    async def words(client, token) -> dict:
        response = await client.get("/api/words", headers={"Authorization": f"Bearer {token}"})
        return await response.json()

    async def state(client, token) -> dict:
        response = await client.get("/api/state", headers={"Authorization": f"Bearer {token}"})
        return await response.json()

    async def check(client, companion):
        token = companion.token
        assert (await words(client, token))["lang"] == "en"
        english = await state(client, token)
        assert english["lang"] == "en" and english["view"]["turn"].startswith("Turn ")
        stream = await client.get("/api/events", headers={"Authorization": f"Bearer {token}"})
        seen: list[dict] = []

        async def next_state() -> dict:
            while True:
                chunk = (await stream.content.readuntil(b"\n\n")).decode()
                if chunk.startswith("event: state"):
                    return json.loads(chunk.split("data: ", 1)[1])

        seen.append(await next_state())
        assert seen[0]["lang"] == "en"

        _config(config, "ru")  # the table's Settings: Русский
        pushed = await asyncio.wait_for(next_state(), 5)  # the phones are told at once
        assert pushed["lang"] == "ru" and pushed["view"]["turn"].startswith("Ход ")
        got = await words(client, token)
        assert got["lang"] == "ru" and got["words"]["your_turn"] != WORDS["your_turn"]
        assert got["colours"]["red"] != "red"
        russian = await state(client, token)
        assert russian["lang"] == "ru" and russian["state"] == english["state"]

        config.write_text("[app\nbroken", encoding="utf-8")  # a file that cannot be read
        await _until(lambda: _looked_at_settings(companion))  # the server saw it
        assert (await words(client, token))["lang"] == "ru"  # the language stays
        _config(config, "es")
        await _until(lambda: _lang_is(client, token, "es"))
        stream.close()
        return True

    assert _app(db, check, language=TableLanguage())


async def _looked_at_settings(companion) -> bool:
    """The server has looked at the settings file as it is now (its poll came round)."""
    table = companion.language
    return table._seen == tuple(file_signature(place) for place in table.places)


async def _lang_is(client, token: str, language: str) -> bool:
    response = await client.get("/api/words", headers={"Authorization": f"Bearer {token}"})
    return (await response.json())["lang"] == language


def test_serve_follows_the_settings_file(tmp_path):
    db = _game(tmp_path)
    config = tmp_path / "config.toml"
    _config(config, "en")
    with serving(db, env={"CLANK_CONFIG": str(config)}) as served:

        async def lang() -> str:
            async with (
                aiohttp.ClientSession() as session,
                session.get(
                    served.base + "/api/words",
                    headers={"Authorization": f"Bearer {served.token}"},
                ) as response,
            ):
                return str((await response.json())["lang"])

        assert asyncio.run(lang()) == "en"
        _config(config, "uk")
        wait_for(lambda: asyncio.run(lang()) == "uk", timeout=5)


def test_a_server_told_no_settings_keeps_its_language(tmp_path, monkeypatch):
    """In this process without ``language``: the language it was started in stays."""
    db = _game(tmp_path)
    config = tmp_path / "config.toml"
    _config(config, "en")
    monkeypatch.setenv("CLANK_CONFIG", str(config))
    set_language("uk")

    async def check(client, companion):
        assert companion.language is None  # it follows no settings file: nothing to poll
        return await _lang_is(client, companion.token, "uk")

    assert _app(db, check)


def test_the_page_asks_for_its_words_again_when_the_language_changed():
    script_text = (STATIC / "app.js").read_text(encoding="utf-8")
    assert "payload.lang !== W.lang" in script_text and "loadWords()" in script_text


# ------------------------------------------------------------------ the players' colours
def test_the_phone_shows_the_tables_own_colours():
    from companion.ui.colours import COLOURS, text_colour

    files = static_files()
    rules = css_rules(files["colours.css"][0].decode("utf-8"))
    assert files["colours.css"][1].startswith("text/css")
    for name, rgba in COLOURS.items():
        colour = hex_colour(rgba)
        assert rules[":root"][f"--{name}"] == colour, name
        assert rules[f".c-{name}"] == {
            "background": f"var(--{name})",
            "color": hex_colour(text_colour(name)),
        }, name
    for name in ("red", "yellow", "green", "blue", "purple", "orange"):
        assert rules[f".band-{name}"] == {"border-left-color": f"var(--{name})"}
    # the exact channels: the touchscreen's 0..1 values, to the nearest of 255 steps
    assert hex_colour(COLOURS["red"]) == "#" + "".join(
        f"{round(v * 255):02x}" for v in COLOURS["red"][:3]
    )


def test_the_pages_own_style_holds_no_player_colour():
    """One source: app.css names the colours and the chips, colours.css (made from the
    palette) holds them, and the page loads it after app.css."""
    from companion.ui.colours import COLOURS

    app_css = css_rules((STATIC / "app.css").read_text(encoding="utf-8"))
    for name in COLOURS:
        assert f"--{name}" not in app_css.get(":root", {}), name
        assert f".c-{name}" not in app_css and f".band-{name}" not in app_css, name
    html = (STATIC / "index.html").read_text(encoding="utf-8")
    sheets = re.findall(r'<link rel="stylesheet" href="([^"]+)">', html)
    assert sheets == ["/static/app.css", "/static/colours.css"]
    script_text = (STATIC / "app.js").read_text(encoding="utf-8")
    listed = re.search(r"const COLOURS = \[([^\]]*)\]", script_text)
    assert listed is not None
    assert set(re.findall(r'"(\w+)"', listed[1])) == set(COLOURS)


def test_the_colours_are_served_with_the_page(tmp_path):
    db = _game(tmp_path, 3)

    async def check(client, companion):
        auth = {"Authorization": f"Bearer {companion.token}"}
        response = await client.get("/static/colours.css", headers=auth)
        body = await response.read()
        assert response.status == 200
        assert response.headers["Content-Type"].startswith("text/css")
        assert "default-src 'self'" in response.headers["Content-Security-Policy"]
        return body

    assert _app(db, check) == static_files()["colours.css"][0]
    assert sum(len(body) for body, _kind in static_files().values()) < 150 * 1024


# ------------------------------------------------------------------ plurals
RU_RULE = (
    "nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && "
    "(n%100<10 || n%100>=20) ? 1 : 2);"
)


def _russian_like(messages: dict[tuple[str, str], list[str]]) -> i18n.gettext.GNUTranslations:
    """A catalog with Russian's three plural forms for ``messages``, compiled in memory."""
    from babel.messages.catalog import Catalog
    from babel.messages.mofile import write_mo

    catalog = Catalog(locale="ru")
    for (singular, plural), forms in messages.items():
        catalog.add((singular, plural), tuple(forms))
    out = io.BytesIO()
    write_mo(out, catalog)
    out.seek(0)
    translation = i18n.gettext.GNUTranslations(out)
    assert "nplurals=3" in translation.info()["plural-forms"].replace(" ", "")
    return translation


def _fake_russian(monkeypatch) -> None:
    forms = {
        pair: [f"{pair[0]} [one]", f"{pair[0]} [few]", f"{pair[0]} [many]"]
        for pair in PLURALS.values()
    }
    monkeypatch.setattr(i18n, "_translation", _russian_like(forms))
    monkeypatch.setattr(i18n, "_language", "ru")


def _picked(entry: dict, n: int) -> str:
    """The form the page takes for ``n`` (static/words.js, pluralIndex)."""
    at = n if n < len(entry["pick"]) else 100 + n % 100
    return str(entry["forms"][int(entry["pick"][at])])


RU_COUNTS = {
    **{1: "one", 2: "few", 5: "many", 11: "many", 21: "one", 22: "few", 25: "many"},
    **{111: "many", 121: "one", 1001: "one", 1002: "few", 1011: "many", 10004: "few"},
}


def test_every_count_takes_the_russian_form_of_its_count(monkeypatch):
    _fake_russian(monkeypatch)
    words = page_words()
    assert set(words["plurals"]) == set(PLURALS)
    for key, (singular, _plural) in PLURALS.items():
        entry = words["plurals"][key]
        assert len(entry["forms"]) == 3 and len(entry["pick"]) == PICKED, key
        for n, form in RU_COUNTS.items():
            assert _picked(entry, n) == f"{singular} [{form}]", (key, n)


def test_the_picked_forms_are_the_catalogs_for_every_count():
    """The page's rule (a count above PICKED as 100 plus its last two digits) gives what
    the catalog gives, in each language's own plural rule, for counts far beyond."""
    for language in i18n.LANGUAGES:
        set_language(language)
        translation = i18n._translation
        rule = getattr(translation, "plural", lambda n: int(n != 1))
        singular = "Too many wrong PINs: wait {n} second"
        plural = "Too many wrong PINs: wait {n} seconds"
        entry = plural_forms(singular, plural)
        for n in [*range(0, 1000), 1001, 1011, 1021, 12345, 100001, 10**9 + 2]:
            assert _picked(entry, n) == i18n.ngettext(singular, plural, n), (language, n)
            assert rule(n) == rule(100 + n % 100) or n < PICKED, (language, n)


def test_the_russian_catalog_gives_three_forms_through_the_same_words():
    """The real Russian catalog, through the page's own plural forms: a message it
    already translates with three forms (the PIN pad's) gives 1, 2 and 5 each its own."""
    set_language("ru")
    entry = plural_forms(
        "Too many wrong PINs: wait {n} second", "Too many wrong PINs: wait {n} seconds"
    )
    assert len(entry["forms"]) == 3
    assert len({_picked(entry, 1), _picked(entry, 2), _picked(entry, 5)}) == 3
    assert "секунду" in _picked(entry, 1) and "секунды" in _picked(entry, 2)
    assert "секунд" in _picked(entry, 5) and _picked(entry, 21) == _picked(entry, 1)


@pytest.mark.parametrize("key", sorted(PLURALS))
def test_each_phone_plural_takes_its_russian_form_once_translated(key):
    """The page's own plurals in the shipped Russian catalog: 1, 2 and 5 each take their
    own form. Until the catalog translates a word, that word is an expected failure."""
    from babel.messages.pofile import read_po

    singular, plural = PLURALS[key]
    with open(i18n.catalog_path("ru"), "rb") as f:
        catalog = read_po(f)
    found = catalog.get(singular)
    translated = (
        found is not None
        and not found.fuzzy
        and isinstance(found.string, tuple)
        and all(found.string)
    )
    if not translated:
        pytest.xfail(f"{singular!r} is not translated into Russian yet")
    set_language("ru")
    entry = page_words()["plurals"][key]
    # Russian's three forms: 1 (and 21), 2-4 (and 22), 5-20 (and 11, 25): each count
    # takes the catalog's own form for it (two forms may be the same word: "Победители")
    one, few, many = (f.replace("{n}", "") for f in found.string)
    assert [_picked(entry, n).replace("{n}", "") for n in (1, 21, 2, 22, 5, 11, 25)] == [
        one,
        one,
        few,
        few,
        many,
        many,
        many,
    ], entry["forms"]


def test_english_has_its_two_forms():
    words = page_words()["plurals"]
    for key, (singular, plural) in PLURALS.items():
        assert _picked(words[key], 1) == singular, key
        assert _picked(words[key], 0) == _picked(words[key], 2) == plural, key
        assert _picked(words[key], 5) == _picked(words[key], 1001) == plural, key


# Words with a number that is not a count: a record's number, a decimal (no plural form
# of any language is chosen by a decimal: gettext's forms are for whole counts).
NOT_A_COUNT = {
    "The log does not check from record {n} on: the table's audit says more.",
    "On average {n} health lost",
}


def _strings_given_to(path: Path, names: set[str]) -> list[tuple[str, str]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        name = getattr(node.func, "id", getattr(node.func, "attr", ""))
        first = node.args[0]
        if name in names and isinstance(first, ast.Constant) and isinstance(first.value, str):
            found.append((name, first.value))
    return found


def test_every_count_on_the_phone_goes_through_a_plural():
    """The server's words: a count ({n}) only in a plural (ngettext, NN_), never in a
    word with one form; the page's: a count only through its plurals (tn), never a
    number put beside a word."""
    web = ROOT / "companion" / "web"
    phones = sorted((ROOT / "companion" / "kinds").glob("*/phones.py"))  # each kind's words
    assert phones
    single = []
    for path in [*sorted(web.glob("*.py")), *phones]:
        single += [text for _name, text in _strings_given_to(path, {"_", "N_", "ed_"})]
    assert [text for text in single if "{n}" in text and text not in NOT_A_COUNT] == []
    assert [text for text in WORDS.values() if "{n}" in text and text not in NOT_A_COUNT] == []
    clank = ROOT / "companion" / "kinds" / "clank" / "phones.py"
    plurals = _strings_given_to(clank, {"ngettext", "ned_"})
    assert any("{n}" in text for _name, text in plurals)  # the odds' "Most likely N damage"
    for singular, plural in PLURALS.values():
        assert "{n}" in singular + plural or singular != plural

    page = (STATIC / "app.js").read_text(encoding="utf-8")
    used = set()
    for first in re.findall(r"\btn\(([^,]*),", page):  # the key, or a choice of keys
        used |= set(re.findall(r'"(\w+)"', first))
    assert used == set(PLURALS)
    # a word given a count any other way, or a number joined to a word by hand
    numbered = {key for key, text in WORDS.items() if text in NOT_A_COUNT}  # "damaged"
    given_n = set(re.findall(r'\bt\("(\w+)",\s*\{\s*n\s*:', page))
    assert given_n <= numbered
    for key in ("cubes", "records", "winner", "winners", "earlier", "verified"):
        assert not re.search(rf'\bt\(\s*"{key}"', page), key


@pytest.mark.skipif(NODE is None, reason="node is not installed: words.js untested")
def test_the_page_picks_the_forms_the_server_gives(monkeypatch, tmp_path):
    """static/words.js, run in node on the words the server gives with a Russian-like
    catalog: the form of each count is the catalog's."""
    _fake_russian(monkeypatch)
    words = page_words()
    counts = sorted(RU_COUNTS)
    probe = tmp_path / "probe.mjs"
    probe.write_text(
        "import { readFileSync } from 'node:fs';\n"
        f"const {{ plural }} = await import({json.dumps((STATIC / 'words.js').as_uri())});\n"
        "const W = JSON.parse(readFileSync(process.argv[2], 'utf8'));\n"
        "const out = {};\n"
        "for (const key of Object.keys(W.plurals)) {\n"
        f"  out[key] = {json.dumps(counts)}.map((n) => plural(W, key, n));\n"
        "}\n"
        "console.log(JSON.stringify(out));\n",
        encoding="utf-8",
    )
    given = tmp_path / "words.json"
    given.write_text(json.dumps(words, ensure_ascii=False), encoding="utf-8")
    result = subprocess.run(
        [str(NODE), str(probe), str(given)], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    shown = json.loads(result.stdout)
    for key, (singular, _plural) in PLURALS.items():
        want = [f"{singular} [{RU_COUNTS[n]}]".replace("{n}", str(n)) for n in counts]
        assert shown[key] == want, key
