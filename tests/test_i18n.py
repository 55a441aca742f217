"""The translations: catalogs in step with the code, placeholders kept, plural forms,
the editions' own words, the language chosen, the .mo files compiled by Babel and never
committed, the app's translations without Babel."""

from __future__ import annotations

import functools
import gettext
import logging
import re
import shutil
import struct
import subprocess
import sys
import tokenize
from pathlib import Path

import pytest
from babel.messages.pofile import PoFileError, read_po

from companion import i18n, i18n_tools
from companion.config import LANGUAGES, ConfigError, parse_config
from companion.kinds.clank.checklist import setup_checklist
from companion.kinds.clank.rules.setup import make_setup

ROOT = Path(__file__).resolve().parent.parent
TRANSLATED = [lang for lang in i18n.LANGUAGES if lang != "en"]
EXTRACTED = functools.cache(i18n_tools.extract)
RU_UK_PLURALS = (
    "nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && "
    "(n%100<10 || n%100>=20) ? 1 : 2);"
)


@pytest.fixture(autouse=True)
def english_afterwards():
    yield
    i18n.set_language("en")


def catalog(lang: str):
    with open(i18n.catalog_path(lang), "rb") as f:
        return read_po(f)


def key(message) -> tuple[str | None, str, str | None]:
    if isinstance(message.id, str):
        return (message.context, message.id, None)
    return (message.context, message.id[0], message.id[1])


# ------------------------------------------------------------ catalogs and code
def test_every_language_has_a_catalog():
    assert set(i18n.LANGUAGES) == set(LANGUAGES)  # the settings offer what is translated
    assert [p.parent.parent.name for p in i18n_tools.catalogs()] == sorted(TRANSLATED)


@pytest.mark.parametrize("lang", TRANSLATED)
def test_the_catalog_has_every_string_of_the_code_and_no_other(lang):
    """Extraction (Babel) from companion/**/*.py and kv/*.kv against the .po file."""
    used = {(c, m, info["plural"]) for (c, m), info in EXTRACTED().items()}
    have = {key(m) for m in catalog(lang) if m.id}
    missing = sorted(used - have, key=str)
    unused = sorted(have - used, key=str)
    hint = "run: .venv/bin/python -m companion.i18n_tools extract, then translate"
    assert not missing, f"{lang}: strings missing from the catalog ({hint}):\n" + "\n".join(
        map(str, missing)
    )
    assert not unused, f"{lang}: entries the code no longer uses ({hint}):\n" + "\n".join(
        map(str, unused)
    )


def test_extraction_reads_the_kv_files():
    """kv rules call _("...") like Python: every such call is in the catalogs."""
    found = EXTRACTED()
    kv_calls = set()
    for path in [*(ROOT / "kv").rglob("*.kv"), *(ROOT / "companion").rglob("*.kv")]:
        text = path.read_text(encoding="utf-8")
        kv_calls |= {(None, m) for m in re.findall(r'\b_\("((?:[^"\\]|\\.)*)"\)', text)}
        kv_calls |= set(re.findall(r'\bpgettext\("([^"]*)", "((?:[^"\\]|\\.)*)"\)', text))
    kv_calls = {(c, m.encode().decode("unicode_escape")) for c, m in kv_calls}
    assert len(kv_calls) > 40
    in_kv = {k for k, info in found.items() if any(".kv:" in w for w in info["where"])}
    assert kv_calls == in_kv
    wheres = [w for k in in_kv for w in found[k]["where"]]
    # the shared layouts (kv/) and the kinds' own (their packages' kv/) alike
    assert any(w.startswith("kv/") for w in wheres)
    assert any(w.startswith("companion/kinds/") and ".kv:" in w for w in wheres)
    assert (None, "Undo") in in_kv


def test_no_translation_call_hides_inside_an_f_string():
    """Extraction cannot see _() inside an f-string: such a string would never be
    translated and never be missed."""
    hidden = []
    for path in i18n_tools.source_files(ROOT):
        if path.suffix != ".py":
            continue
        with open(path, "rb") as f:
            for tok in tokenize.tokenize(f.readline):
                if tok.type != tokenize.STRING:
                    continue
                prefix = re.match(r"[a-zA-Z]*", tok.string).group(0).lower()
                if "f" in prefix and re.search(r"\b(_|n?p?gettext|ed_|ned_)\(", tok.string):
                    hidden.append(f"{path.relative_to(ROOT)}:{tok.start[0]}")
    assert not hidden


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_entry_is_translated_and_reviewed(lang):
    cat = catalog(lang)
    for m in cat:
        if not m.id:
            continue
        strings = [m.string] if isinstance(m.string, str) else list(m.string)
        assert all(strings), f"{lang}: untranslated {key(m)}"
        assert len(strings) == (1 if isinstance(m.id, str) else cat.num_plurals), key(m)
        assert not m.fuzzy, f"{lang}: fuzzy (check it, then drop the flag) {key(m)}"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_translations_keep_the_placeholders_and_markup(lang):
    def tags(text: str) -> list[str]:
        return sorted(re.findall(r"\[/?[a-z]+(?:=[^\]]*)?\]", text))

    for m in catalog(lang):
        if not m.id:
            continue
        ids = [m.id] if isinstance(m.id, str) else list(m.id)
        strings = [m.string] if isinstance(m.string, str) else list(m.string)
        want = i18n_tools.placeholders(ids[-1])
        assert i18n_tools.placeholders(ids[0]) == want  # singular and plural msgid agree
        for s in strings:
            assert i18n_tools.placeholders(s) == want, f"{lang} {key(m)}: {s!r}"
            assert tags(s) == tags(ids[-1]), f"{lang} {key(m)}: {s!r}"
            assert s.count("\n") == ids[-1].count("\n"), f"{lang} {key(m)}: {s!r}"


# ------------------------------------------------------------------ plural forms
def test_plural_forms_headers():
    for lang in ("ru", "uk"):
        assert catalog(lang).plural_forms == RU_UK_PLURALS
        text = i18n.catalog_path(lang).read_text(encoding="utf-8")
        assert "nplurals=3;" in text
    assert catalog("es").plural_forms == "nplurals=2; plural=(n != 1);"


CUBES = {
    "ru": ["1 кубик", "2 кубика", "5 кубиков", "11 кубиков", "21 кубик", "22 кубика"],
    "uk": ["1 кубик", "2 кубики", "5 кубиків", "11 кубиків", "21 кубик", "22 кубики"],
}


@pytest.mark.parametrize("lang", ["ru", "uk"])
def test_cubes_take_the_right_plural_form(lang):
    i18n.set_language(lang)
    counts = (1, 2, 5, 11, 21, 22)
    from companion.i18n_tools import edition_contexts

    assert edition_contexts()  # every kind's editions with words of their own
    for edition in edition_contexts():
        for msgid, plural in [
            ("the dragon drew {n} cube", "the dragon drew {n} cubes"),
            ("The dragon attacks! ({n} cube)", "The dragon attacks! ({n} cubes)"),
        ]:
            shown = [i18n.ned_(edition, msgid, plural, n).format(n=n) for n in counts]
            for text, want in zip(shown, CUBES[lang], strict=True):
                assert want in text, (edition, text, want)


def test_english_and_spanish_plurals():
    ghosts = ("{n} ghost in Clank!", "{n} ghosts in Clank!")
    assert i18n.ngettext(*ghosts, 1).format(n=1) == "1 ghost in Clank!"
    assert i18n.ngettext(*ghosts, 21).format(n=21) == "21 ghosts in Clank!"
    i18n.set_language("es")
    assert i18n.ngettext(*ghosts, 1).format(n=1).startswith("1 fantasma ")
    assert i18n.ngettext(*ghosts, 0).format(n=0).startswith("0 fantasmas ")


# ------------------------------------------------------------- edition words
WORDS = [  # language, edition, msgid (plural: n=5), what the rulebook calls it
    ("ru", "clank", "{player} {n} clank", "Бздынь!"),
    ("ru", "catacombs", "{player} {n} clank", "клац!"),
    ("uk", "clank", "{player} {n} clank", "кланк!"),
    ("uk", "catacombs", "{player} {n} clank", "кланк!"),
    ("es", "clank", "{player} {n} clank", "Clank!"),
    ("ru", "clank", "{name}: {n} cube into the Clank! area.", "Бздынь! в Зону шума"),
    ("ru", "catacombs", "{name}: {n} cube into the Clank! area.", "клац! в область «Клац!»"),
    ("uk", "catacombs", "{name}: {n} cube into the Clank! area.", "у зону «Кланк!»"),
    ("es", "clank", "{name}: {n} cube into the Clank! area.", "zona de Clank!"),
    ("ru", "clank", "Put the dragon on space {space} of the rage track ({n} cube per attack).",
     "Трека ярости"),
    ("ru", "catacombs",
     "Put the dragon on space {space} of the rage track ({n} cube per attack).", "шкалы ярости"),
    ("uk", "clank", "Put the dragon on space {space} of the rage track ({n} cube per attack).",
     "треку люті"),
    ("es", "clank", "Put the dragon on space {space} of the rage track ({n} cube per attack).",
     "registro de ira"),
    ("ru", "clank", "Secret: {name}", "Тайна"),
    ("ru", "catacombs", "Secret: {name}", "Секрет"),
    ("uk", "catacombs", "Secret: {name}", "Таємниця"),
    ("es", "clank", "Secret: {name}", "Secreto"),
    ("ru", "clank", "in the Depths", "Глубинах"),
    ("ru", "catacombs", "in the Depths", "недрах"),
    ("uk", "catacombs", "in the Depths", "глибинах"),
    ("ru", "clank", "−{n} Clank!", "анти-шум"),
    ("ru", "catacombs", "−{n} Clank!", "клац!"),
    ("ru", "clank", "health", "здоровья"),
    ("uk", "catacombs", "health", "здоров'я"),
    ("es", "catacombs", "health", "salud"),
    ("ru", "clank", "The dragon attacks! ({n} cube)", "Дракон"),
    ("uk", "catacombs", "The dragon attacks! ({n} cube)", "Дракон"),
    ("es", "clank", "The dragon attacks! ({n} cube)", "dragón"),
    ("ru", "clank", "Market: {name}", "Магазин"),
    ("ru", "catacombs", "Market: {name}", "Рынок"),
]  # fmt: skip
PLAIN = [  # words that do not change with the edition
    ("ru", "Rage", "Ярость"), ("uk", "Rage", "Лють"), ("es", "Rage", "Rabia"),
    ("ru", "Next attack", "атака"), ("uk", "Next attack", "атака"),
    ("es", "Next attack", "ataque"),
    ("ru", "Prisoners", "Пленники"), ("uk", "Prisoners", "В'язні"),
    ("es", "Prisoners", "Prisioneros"),
    ("ru", "Prisoner: {name}", "Пленник"), ("uk", "Prisoner: {name}", "В'язень"),
]  # fmt: skip


@pytest.mark.parametrize(("lang", "edition", "msgid", "word"), WORDS)
def test_each_edition_speaks_its_rulebook_words(lang, edition, msgid, word):
    i18n.set_language(lang)
    plural = {m: info["plural"] for (c, m), info in EXTRACTED().items() if c == edition}[msgid]
    shown = i18n.ed_(edition, msgid) if plural is None else i18n.ned_(edition, msgid, plural, 5)
    assert word in shown


@pytest.mark.parametrize(("lang", "msgid", "word"), PLAIN)
def test_words_every_edition_shares(lang, msgid, word):
    i18n.set_language(lang)
    assert word in i18n._(msgid)


def test_the_set_up_checklist_follows_language_and_edition():
    i18n.set_language("ru")
    base = setup_checklist(make_setup({"edition": "clank", "players": ["red", "blue"]}))
    assert base[0] == "Поставьте Маркер дракона на деление 3 Трека ярости (3 кубика за атаку)."
    assert base[1] == "красный: 3 кубика Бздынь! в Зону шума."
    assert base[3] == "Уберите 2 случайных артефакта, не глядя."
    cata = setup_checklist(make_setup({"edition": "catacombs", "players": ["red", "blue"]}))
    assert cata[1] == "красный: 3 кубика клац! в область «Клац!»."
    assert "шкалы ярости" in cata[0] and any("размер шкалы здоровья" in c for c in cata)
    i18n.set_language("en")
    assert setup_checklist(make_setup({"edition": "clank", "players": ["red", "blue"]}))[1] == (
        "red: 3 cubes into the Clank! area."
    )


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_colour_letters_tell_the_players_apart(lang):
    i18n.set_language(lang)
    colours = ["red", "yellow", "green", "blue", "purple", "orange"]
    letters = [i18n.colour_letter(c) for c in colours]
    assert len(set(letters)) == 6 and all(1 <= len(x) <= 2 for x in letters)
    assert i18n._("gh") not in letters and "×" not in letters
    names = [i18n.player_name(c) for c in colours]
    assert len(set(names)) == 6
    if lang == "en":
        assert letters == list("RYGBPN") and names == colours


# -------------------------------------------------------------- the language
@pytest.mark.parametrize(
    ("environ", "lang"),
    [
        ({}, "en"),
        ({"LANG": "ru_RU.UTF-8"}, "ru"),
        ({"LANG": "uk_UA.UTF-8"}, "uk"),
        ({"LANG": "es_ES.UTF-8"}, "es"),
        ({"LANG": "de_DE.UTF-8"}, "en"),
        ({"LANG": "C.UTF-8"}, "en"),
        ({"LANG": "en_GB.UTF-8", "LC_MESSAGES": "uk_UA.UTF-8"}, "uk"),
        ({"LANG": "ru_RU.UTF-8", "LC_ALL": "es_AR.UTF-8"}, "es"),
        ({"LANG": "de_DE.UTF-8", "LANGUAGE": "fr:uk:ru"}, "uk"),
        ({"LANG": "C", "LANGUAGE": "ru"}, "en"),  # gettext ignores LANGUAGE in the C locale
        ({"LANG": "es"}, "es"),
    ],
)
def test_the_system_locale_chooses_the_language(environ, lang):
    assert i18n.system_language(environ) == lang


def test_an_empty_setting_means_the_system_language(monkeypatch):
    for var in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("LANG", "uk_UA.UTF-8")
    assert i18n.set_language("") == "uk" and i18n._("Undo") == "Скасувати"
    assert i18n.set_language("system") == "uk"
    assert i18n.set_language("es") == "es" and i18n._("Undo") == "Deshacer"
    assert i18n.set_language("en") == "en" and i18n._("Undo") == "Undo"


def test_the_configuration_takes_a_language_or_the_system_one():
    for value in ("en", "ru", "uk", "es", "", "system"):
        config = parse_config(f'[app]\nlanguage = "{value}"\n', "test.toml")
        assert config.app.language == value
    assert parse_config("", "test.toml").app.language == ""  # not set: the system's
    with pytest.raises(ConfigError, match="language must be one of"):
        parse_config('[app]\nlanguage = "fr"\n', "test.toml")


# ------------------------------------------------------------ .po and .mo files
def translations_of(mo: Path) -> gettext.GNUTranslations:
    with open(mo, "rb") as f:
        return gettext.GNUTranslations(f)


@pytest.mark.parametrize("lang", TRANSLATED)
def test_the_compiled_catalog_translates_every_entry_as_its_po_says(lang, tmp_path):
    """Babel's .mo (companion.i18n_tools) has every entry of the .po, plural forms too."""
    mo = tmp_path / "companion.mo"
    assert i18n_tools.compile_catalog(i18n.catalog_path(lang), mo)
    t = translations_of(mo)
    assert t.info()["plural-forms"] == catalog(lang).plural_forms
    for m in catalog(lang):
        if not m.id:
            continue
        c, singular, plural = key(m)
        if plural is None:
            got = [t.pgettext(c, singular) if c else t.gettext(singular)]
            want = [m.string]
        else:
            ns = (1, 2, 5) if len(m.string) == 3 else (1, 2)
            got = [t.npgettext(c, singular, plural, n) if c else t.ngettext(singular, plural, n)
                   for n in ns]  # fmt: skip
            want = list(m.string)
        assert got == want, (lang, key(m))


def test_compiling_leaves_out_fuzzy_and_obsolete_entries(tmp_path):
    po = tmp_path / "companion.po"
    po.write_text(
        r"""# a comment
msgid ""
msgstr ""
"Language: es\n"
"Plural-Forms: nplurals=2; plural=(n != 1);\n"

#, fuzzy
msgid "old"
msgstr "viejo"

#. extracted
msgctxt "clank"
msgid "{n} cube"
msgid_plural "{n} cubes"
msgstr[0] "{n} cubo"
msgstr[1] "{n} "
"cubos"

msgid "a \"quoted\"\n"
"line"
msgstr "una \"cita\"\nlínea"

#~ msgid "gone"
#~ msgstr "ido"
""",
        encoding="utf-8",
    )
    mo = tmp_path / "companion.mo"
    assert i18n_tools.compile_catalog(po, mo)
    assert not i18n_tools.compile_catalog(po, mo)  # the same bytes: left alone
    t = translations_of(mo)
    assert t.gettext("old") == "old"  # fuzzy: not used
    assert t.gettext("gone") == "gone"
    assert t.npgettext("clank", "{n} cube", "{n} cubes", 3) == "{n} cubos"
    assert t.npgettext("clank", "{n} cube", "{n} cubes", 1) == "{n} cubo"
    assert t.gettext('a "quoted"\nline') == 'una "cita"\nlínea'


def test_a_broken_po_is_not_compiled(tmp_path):
    po = tmp_path / "companion.po"
    po.write_text('msgid ""\nmsgstr ""\n\nmsgid "a"\nmsgsrt "b"\n', encoding="utf-8")
    with pytest.raises(PoFileError):
        i18n_tools.compile_catalog(po, tmp_path / "companion.mo")
    assert not (tmp_path / "companion.mo").exists()


@pytest.fixture
def locale_copy(tmp_path, monkeypatch):
    """The catalogs, not compiled, in a folder of their own that the app reads."""
    folder = tmp_path / "locale"
    shutil.copytree(i18n.LOCALE_DIR, folder, ignore=shutil.ignore_patterns("*.mo"))
    monkeypatch.setattr(i18n, "LOCALE_DIR", folder)
    return folder


def test_compile_builds_every_mo_once(locale_copy):
    assert i18n_tools.outdated_catalogs(locale_copy) == i18n_tools.catalogs(locale_copy)
    written = i18n_tools.compile_catalogs(locale_copy)
    assert sorted(p.parent.parent.name for p in written) == sorted(TRANSLATED)
    assert i18n_tools.compile_catalogs(locale_copy) == []  # up to date: nothing rewritten
    assert i18n_tools.outdated_catalogs(locale_copy) == []
    for lang in TRANSLATED:
        mo = locale_copy / lang / "LC_MESSAGES" / "companion.mo"
        assert struct.unpack("<I", mo.read_bytes()[:4])[0] == 0x950412DE
        assert "Babel" in translations_of(mo).info()["generated-by"]


def test_the_app_reads_only_the_compiled_catalogs(locale_copy, caplog):
    """A changed .po shows once compiled; a language whose .mo is missing shows English
    (and says why in the log)."""
    i18n_tools.compile_catalogs(locale_copy)
    i18n.set_language("ru")
    assert i18n._("Undo") == "Отменить"
    po = locale_copy / "ru" / "LC_MESSAGES" / "companion.po"
    po.write_text(po.read_text(encoding="utf-8").replace('"Отменить"', '"Назад на шаг"'),
                  encoding="utf-8")  # fmt: skip
    assert i18n_tools.outdated_catalogs(locale_copy) == [po]
    i18n.set_language("ru")  # not compiled yet: the .mo as it was
    assert i18n._("Undo") == "Отменить"
    assert i18n_tools.compile_catalogs(locale_copy) == [po.with_suffix(".mo")]
    i18n.set_language("ru")
    assert i18n._("Undo") == "Назад на шаг"
    (locale_copy / "es" / "LC_MESSAGES" / "companion.po").unlink()  # only the .mo is left
    i18n.set_language("es")
    assert i18n._("Undo") == "Deshacer"
    (locale_copy / "uk" / "LC_MESSAGES" / "companion.mo").unlink()  # only the .po
    with caplog.at_level(logging.WARNING, logger="companion.i18n"):
        i18n.set_language("uk")
    assert i18n._("Undo") == "Undo"
    assert "is not compiled" in caplog.text and "uk" in caplog.text


def test_the_translations_need_no_babel():
    """The app (and the Pi) have no Babel: companion.i18n loads neither it nor the tools."""
    code = (
        "import sys; from companion import i18n; i18n.set_language('ru'); "
        "print(i18n._('Undo') != 'Undo', sorted(m for m in sys.modules "
        "if m.split('.')[0] == 'babel' or m == 'companion.i18n_tools'))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout  # fmt: skip
    assert out.split() == ["True", "[]"]


def test_the_checkouts_catalogs_are_compiled():
    """./dev compiles the .mo files before app, test and screenshots (and pip install -e
    when it installs the checkout); after changing a .po by hand, compile it again."""
    outdated = i18n_tools.outdated_catalogs()
    assert not outdated, f"run: .venv/bin/python -m companion.i18n_tools compile ({outdated})"


def test_the_compile_command(tmp_path):
    """What ./dev runs: python -m companion.i18n_tools compile."""
    result = subprocess.run(
        [sys.executable, "-m", "companion.i18n_tools", "compile"],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    for lang in TRANSLATED:
        assert (i18n.LOCALE_DIR / lang / "LC_MESSAGES" / "companion.mo").is_file()
    assert i18n_tools.outdated_catalogs() == []


def test_the_compile_command_without_babel(tmp_path):
    """An installation has no Babel: compile says its catalogs stay as its build compiled
    them, and fails when one is missing."""
    code = (
        "import importlib.util, sys\n"
        "real = importlib.util.find_spec\n"
        "importlib.util.find_spec = lambda name, *a: None if name == 'babel' else real(name, *a)\n"
        "from companion import i18n, i18n_tools\n"
        "i18n.LOCALE_DIR = __import__('pathlib').Path(sys.argv[1])\n"
        "sys.exit(i18n_tools.main(['compile']))\n"
    )
    folder = tmp_path / "locale"
    shutil.copytree(i18n.LOCALE_DIR, folder, ignore=shutil.ignore_patterns("*.mo"))
    i18n_tools.compile_catalogs(folder)

    def compile_without_babel() -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-c", code, str(folder)], cwd=tmp_path,
                              capture_output=True, text=True, check=False)  # fmt: skip

    done = compile_without_babel()
    assert done.returncode == 0 and "Babel is not installed" in done.stdout, done.stderr
    (folder / "es" / "LC_MESSAGES" / "companion.mo").unlink()
    failed = compile_without_babel()
    assert failed.returncode == 1 and "needs Babel" in failed.stderr
    assert "es/LC_MESSAGES/companion.mo is missing" in failed.stderr


def test_extract_leaves_up_to_date_catalogs_as_they_are(tmp_path):
    """The catalogs are written the way `python -m companion.i18n_tools extract` writes them."""
    folder = tmp_path / "locale"
    shutil.copytree(i18n.LOCALE_DIR, folder, ignore=shutil.ignore_patterns("*.mo"))
    assert i18n_tools.update_catalogs(locale_dir=folder) == []

    def content(path: Path) -> list[str]:  # the line numbers of the #: comments drift
        return [line for line in path.read_text(encoding="utf-8").splitlines()
                if not line.startswith("#:")]  # fmt: skip

    for lang in TRANSLATED:
        assert content(folder / lang / "LC_MESSAGES" / "companion.po") == content(
            i18n.catalog_path(lang)
        )


def test_a_newer_babel_leaves_the_catalogs_as_they_are(tmp_path, monkeypatch):
    """Babel writes its own version into the header: a new Babel release must not make
    an up-to-date catalog look changed (CI installs whatever Babel is newest)."""
    import babel.messages.catalog

    monkeypatch.setattr(babel.messages.catalog, "VERSION", "99.1.0")
    folder = tmp_path / "locale"
    shutil.copytree(i18n.LOCALE_DIR, folder, ignore=shutil.ignore_patterns("*.mo"))
    assert i18n_tools.update_catalogs(locale_dir=folder) == []
    for lang in TRANSLATED:
        written = (folder / lang / "LC_MESSAGES" / "companion.po").read_bytes()
        kept = i18n.catalog_path(lang).read_bytes()
        assert b"99.1.0" not in written
        assert i18n_tools.GENERATED_BY.findall(written) == i18n_tools.GENERATED_BY.findall(kept)


def test_extract_adds_new_strings_and_drops_unused_ones(tmp_path):
    root = tmp_path / "project"
    (root / "companion").mkdir(parents=True)
    (root / "kv").mkdir()
    (root / "companion" / "a.py").write_text('_("Undo")\nngettext("{n} egg", "{n} eggs", n)\n')
    (root / "kv" / "a.kv").write_text('<A>:\n    text: _("Back")\n')
    folder = tmp_path / "locale"
    shutil.copytree(i18n.LOCALE_DIR, folder, ignore=shutil.ignore_patterns("*.mo"))
    changes = i18n_tools.update_catalogs(root, folder)
    assert "ru: new  '{n} egg'" in changes and "ru: gone  'Menu'" in changes
    with open(folder / "ru" / "LC_MESSAGES" / "companion.po", "rb") as f:
        ru = read_po(f)
    assert ru.get("Undo").string == "Отменить" and ru.get("Back").string == "Назад"
    assert ru.get("Menu") is None
    egg = ru.get("{n} egg")  # untranslated, or a close one's translation marked for review
    assert egg.fuzzy or egg.string == ("", "", "")


def test_mo_files_are_never_committed():
    assert "*.mo" in (ROOT / ".gitignore").read_text().split()
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    tracked = subprocess.run(
        ["git", "ls-files", "*.mo"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    assert tracked == []


# ------------------------------------------------------------------- fonts
def _cmap(path: Path) -> set[int]:
    """The characters a TrueType font has a glyph for (its cmap, formats 4 and 12)."""
    data = path.read_bytes()

    def u16(at: int) -> int:
        return struct.unpack(">H", data[at : at + 2])[0]

    def u32(at: int) -> int:
        return struct.unpack(">I", data[at : at + 4])[0]

    tables = {data[12 + 16 * i : 16 + 16 * i]: u32(20 + 16 * i) for i in range(u16(4))}
    base = tables[b"cmap"]
    chars: set[int] = set()
    for i in range(u16(base + 2)):
        t = base + u32(base + 8 + 8 * i)
        if u16(t) == 4:
            n = u16(t + 6) // 2
            ends, starts, deltas, ranges = (t + 14, t + 16 + 2 * n, t + 16 + 4 * n, t + 16 + 6 * n)
            for s in range(n):
                start, end = u16(starts + 2 * s), u16(ends + 2 * s)
                delta = struct.unpack(">h", data[deltas + 2 * s : deltas + 2 * s + 2])[0]
                offset = u16(ranges + 2 * s)
                for c in range(start, min(end, 0xFFFE) + 1):
                    glyph = c if offset == 0 else u16(ranges + 2 * s + offset + 2 * (c - start))
                    if glyph and (glyph + delta) & 0xFFFF:
                        chars.add(c)
        elif u16(t) == 12:
            for j in range(u32(t + 12)):
                chars.update(range(u32(t + 16 + 12 * j), u32(t + 20 + 12 * j) + 1))
    return chars


def test_every_character_has_a_glyph_in_the_fonts():
    """Kivy's own Roboto (in the Kivy wheel, so on the Pi too) draws every character the
    catalogs use; the audit list, which shows an arrow, uses Kivy's DejaVu Sans."""
    import kivy

    fonts = Path(kivy.__file__).parent / "data" / "fonts"
    roboto = _cmap(fonts / "Roboto-Regular.ttf") & _cmap(fonts / "Roboto-Bold.ttf")
    dejavu = _cmap(fonts / "DejaVuSans.ttf")
    in_dejavu = {"#{nonce}: bag {bag} → drew {drawn}"}  # kv/audit.kv: font_name DejaVuSans
    missing = set()
    for lang in TRANSLATED:
        for m in catalog(lang):
            if not m.id:
                continue
            ids = [m.id] if isinstance(m.id, str) else list(m.id)
            strings = [m.string] if isinstance(m.string, str) else list(m.string)
            font = dejavu if ids[0] in in_dejavu else roboto
            for text in ids + strings:
                missing |= {(ch, text) for ch in text if ord(ch) not in font and ch != "\n"}
    assert not missing, sorted(missing)
    assert {ord(ch) for ch in "«»ёЁїЇєЄґҐіІ'’ñÑáéíóúü¡¿—–−…·•×"} <= roboto
