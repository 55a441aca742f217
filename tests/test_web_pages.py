"""The phone page's files: every byte from the Pi (nothing fetched from anywhere else,
no inline script or style that the Content-Security-Policy would refuse), under 150 KB
in all; its words in every language the table speaks; the odds in words."""

from __future__ import annotations

import re

import pytest
from babel.messages.pofile import read_po

from companion import i18n
from companion.kinds.clank.phones import odds_words
from companion.kinds.clank.view import percent
from companion.web.server import static_files
from companion.web.words import WORDS, page_words

BUDGET = 150 * 1024


def test_the_page_is_small():
    files = static_files()
    assert {"index.html", "app.js", "app.css"} <= set(files)
    total = sum(len(body) for body, _kind in files.values())
    assert total < BUDGET, total


NAMESPACES = {"http://www.w3.org/2000/svg"}  # a name inside SVG, never fetched


def test_nothing_comes_from_elsewhere():
    for name, (body, _kind) in static_files().items():
        text = body.decode("utf-8")
        # no address of another place (the BG Stats link comes from the server, on demand)
        assert set(re.findall(r"https?://[^\s\"'`)]+", text)) <= NAMESPACES, name
        assert "@import" not in text and "url(" not in text, name
        for target in re.findall(r"(?:src|href)=\"([^\"]*)\"", text):
            assert target.startswith("/") and not target.startswith("//"), (name, target)
        for target in re.findall(r"(?:fetch|import|EventSource)\(\s*[\"']([^\"']*)", text):
            assert target.startswith(("/", "./")) and not target.startswith("//"), target


def test_the_html_has_no_inline_script_style_or_handler():
    html = static_files()["index.html"][0].decode("utf-8")
    assert "<style" not in html and " style=" not in html
    for tag in re.findall(r"<script[^>]*>", html):
        assert "src=" in tag, tag
    assert not re.search(r"\son[a-z]+=", html)


def test_the_script_writes_text_never_markup():
    script = static_files()["app.js"][0].decode("utf-8")
    for risky in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("):
        assert risky not in script, risky
    # it never asks on a timer: the stream says when something changed. Its one timer
    # looks at the stream's silence (a dead path) and asks the server for nothing
    assert "setTimeout" not in script
    assert re.findall(r"setInterval\((\w+)", script) == ["lookAtTheSilence"]
    watch = script.split("function lookAtTheSilence")[1].split("\n}\n")[0]
    assert "fetch(" not in watch


@pytest.mark.parametrize("lang", [lang for lang in i18n.LANGUAGES if lang != "en"])
def test_every_word_of_the_page_is_translated(lang):
    with open(i18n.catalog_path(lang), "rb") as f:
        catalog = read_po(f)
    for key, text in WORDS.items():
        entry = catalog.get(text)
        assert entry is not None and entry.string and not entry.fuzzy, (lang, key)
    i18n.set_language(lang)
    words = page_words()
    assert words["lang"] == lang
    assert words["words"]["your_turn"] != WORDS["your_turn"]
    assert set(words["colours"]) >= {"red", "blue", "black"}


def test_the_odds_in_words():
    assert percent(0) == "0%" and percent(1) == "100%"
    assert percent(0.001) == "<1%" and percent(0.999) == ">99%" and percent(0.374) == "37%"
    words = odds_words([0.63, 0.33, 0.04], 0.04, 2, "clank")
    assert words["headline"] == "Most likely unhurt (63%)"
    assert words["knock_out"] == "Knock-out: 4%"
    assert words["average"] == "On average 0.4 health lost"
    assert words["danger"] is True  # 2 health left and a chance of a knock-out
    assert [c[0] for c in words["cells"]] == [0, 1, 2]
    worst = odds_words([0.0, 0.1, 0.9], 0.9, 2, "clank")
    assert worst["headline"] == "Most likely knocked out (90%)"
    middle = odds_words([0.2, 0.5, 0.3, 0.0], 0.0, 3, "clank")
    assert middle["headline"] == "Most likely 1 damage (50%)"
    assert middle["knock_out"] == "No risk of a knock-out"
