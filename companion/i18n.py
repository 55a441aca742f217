"""Translations: every user-facing string goes through gettext.

Python code calls ``_("...")`` and ``ngettext(...)``; kv files call ``_("...")`` (imported
in kv/common.kv). Words that each edition names its own way (the noise word, the Clank!
area, the rage track, secrets, the Depths...) go through ``ed_(edition, "...")`` and
``ned_(edition, ...)``: gettext contexts named after the edition ("clank", "catacombs"),
so that a Russian table reads «Бздынь!» with the base game and «клац!» with Catacombs.
English needs no catalog: the source strings are the English text.

The catalogs are ``companion/locale/<lang>/LC_MESSAGES/companion.po`` (sources, in the
repository); ``python -m companion.i18n compile`` builds the ``.mo`` files next to them
(never committed). A missing or stale ``.mo`` is compiled in memory from its ``.po`` at
load time, so a checkout runs without that step. ``python -m companion.i18n extract``
(Babel, a dev dependency) brings every ``.po`` up to date with the code: new strings get
an empty translation, strings the code no longer uses are dropped.

Plural forms follow each catalog's Plural-Forms header; Russian and Ukrainian have three
(1, 21 кубик; 2, 22 кубика; 5, 11 кубиков).

The edition vocabulary (the translations of the ``ed_`` strings), as the rulebooks in
shared/rules print it; file and line in the translator comments of each .po:

ru, Clank! (clank-base.ru.txt): the noise word «Бздынь!» (53, 344), the Clank! area
    «Зона шума» (165, 346), anti-clank «анти-шум» (348), the dragon «Дракон» (370),
    «Трек ярости» (143, 324), health «здоровье» and damage «урон» (384-392), secrets
    «Основные тайны», «Малые тайны» (45, 49, 332), the Depths «Глубины» (394-396),
    the market «Магазин» (123, 292-296), monkey idols «Идол обезьяны» (78, 322).
ru, Catacombs (clank-catacombs.ru.txt): «клац!» (20, 373-384), the area «область «Клац!»»
    on the «планшет «Клац!»» (49, 279, 376), «шкала ярости» (62, 226), «дракон» (25, 854),
    «здоровье», «урон» (117, 435, 737), secrets «большие секреты», «маленькие секреты»
    (241, 538, 725), prisoners «пленники» (56, 146, 556), ghosts «призраки» (54, 799),
    the Depths «недра» (42, 211, 623), «рынок» (148, 371), «обезьяний идол» (76, 108),
    «дорожное святилище» (6, 681).
uk, both (clank-catacombs.uk.txt; there is no Ukrainian base rulebook, and lines 137 and
    148 say the base game «КЛАНК! Підземна пригода» shares the basic rules): «кланк!»
    (279, 285), the area «зона «Кланк!»» (253, 285, 549), «трек люті», «лють» (154, 363,
    551), «дракон» (34, 545), «здоров'я», «поранення» (559-572), «великі таємниці»,
    «малі таємниці» (91, 95, 176), «в'язні» (115, 381), «привиди» (57, 441), the Depths
    «глибини» (29, 411, 614), gold is «монети» (283, 349), «ринок» (349), «мавпячий
    ідол» (119, 477), «святилище» (487-493).
es, both (clank-base.es.txt; there is no Spanish Catacombs rulebook): «¡Clank!» (5, 22,
    200), the area «zona de Clank!» («Clank! Zona» 88, «Clank! Área» 200, 224), «rabia»
    and «registro de ira» (5, 180, 228), «dragón» (222-232), «salud», «daño» (240-248),
    «secretos mayores», «secretos menores» (14, 15, 178), the Depths «profundidades»
    (5, 250), «mercado» (158-162), «ídolo de mono» (178). Catacombs words without a
    Spanish rulebook («prisioneros», «fantasmas», «santuario») are this app's own.

The edition titles: «КЛАНК! Катакомбы» (clank-catacombs.ru.txt 3), «КЛАНК! Катакомби»
(clank-catacombs.uk.txt 7); Clank! keeps its name in Russian (clank-base.ru.txt 3).
"""

from __future__ import annotations

import ast
import gettext
import hashlib
import io
import logging
import os
import string
import struct
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypedDict

# the message types live beside the rules (no translation there); they are named here too
from companion.msg import (  # noqa: F401
    EN_,
    N_,
    NC_,
    NN_,
    Msg,
    Name,
    Refusal,
    localized,
)

log = logging.getLogger(__name__)

LOCALE_DIR = Path(__file__).with_name("locale")
DOMAIN = "companion"
LANGUAGES = ("en", "ru", "uk", "es")  # English is the source: it has no catalog
EDITIONS = ("clank", "catacombs")  # the gettext contexts of ed_ and ned_
SOURCE_HASH = "X-Source-SHA256"  # in a compiled catalog's header: which .po it came from

_translation: gettext.NullTranslations = gettext.NullTranslations()
_language = "en"
_loaded: dict[str, tuple[str, gettext.NullTranslations]] = {}


# ------------------------------------------------------------------ the language
def system_language(environ: Mapping[str, str] | None = None) -> str:
    """The language of the system locale, as gettext looks for it: LANGUAGE (a list,
    unless the locale is C), then the first set of LC_ALL, LC_MESSAGES and LANG;
    English when none of them is Russian, Ukrainian or Spanish."""
    env = os.environ if environ is None else environ
    locale = next((env[v] for v in ("LC_ALL", "LC_MESSAGES", "LANG") if env.get(v)), "")
    wanted = [] if locale in ("C", "POSIX") or locale.startswith("C.") else [locale]
    if env.get("LANGUAGE") and wanted:
        wanted = env["LANGUAGE"].split(":") + wanted
    for item in wanted:
        code = item.split(".")[0].split("@")[0].replace("-", "_").split("_")[0].lower()
        if code in LANGUAGES:
            return code
    return "en"


def resolve_language(setting: str) -> str:
    """The language a setting means: itself, or (empty, "system") the system's."""
    return setting if setting in LANGUAGES else system_language()


def set_language(language: str) -> str:
    """Speak ``language`` from now on ("" or "system": the system locale's); returns the
    language chosen. Strings already on screen change when they are computed again."""
    global _translation, _language
    _language = resolve_language(language)
    _translation = translation(_language)
    return _language


def current_language() -> str:
    return _language


def catalog_path(language: str) -> Path:
    return LOCALE_DIR / language / "LC_MESSAGES" / f"{DOMAIN}.po"


def translation(language: str) -> gettext.NullTranslations:
    """The catalog of ``language``: its .mo if built from the current .po, else the .po
    compiled in memory; English (or a language without a catalog) translates nothing."""
    po = catalog_path(language)
    mo = po.with_suffix(".mo")
    if language == "en" or not (po.is_file() or mo.is_file()):
        return gettext.NullTranslations()
    if not po.is_file():  # an installation that kept only the compiled catalog
        with open(mo, "rb") as f:
            return gettext.GNUTranslations(f)
    text = po.read_bytes()
    digest = hashlib.sha256(text).hexdigest()
    cached = _loaded.get(language)
    if cached is not None and cached[0] == digest:
        return cached[1]
    result: gettext.NullTranslations | None = None
    if mo.is_file():
        with open(mo, "rb") as f:
            built = gettext.GNUTranslations(f)
        if built.info().get(SOURCE_HASH.lower()) == digest:
            result = built
    if result is None:
        log.info("%s: no up-to-date .mo, compiling the catalog in memory", po)
        result = gettext.GNUTranslations(io.BytesIO(mo_bytes(parse_po(text.decode()), digest)))
    _loaded[language] = (digest, result)
    return result


# ------------------------------------------------------------------ the functions
def _(message: str) -> str:
    return _translation.gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    return _translation.ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    return _translation.pgettext(context, message)


def npgettext(context: str, singular: str, plural: str, n: int) -> str:
    return _translation.npgettext(context, singular, plural, n)


def ed_(edition: str | None, message: str) -> str:
    """``message`` in the words of ``edition`` ("clank" or "catacombs"; any other, None
    included, as a badge has none, reads as Clank!)."""
    return _translation.pgettext(edition if edition in EDITIONS else "clank", message)


def ned_(edition: str | None, singular: str, plural: str, n: int) -> str:
    """The plural form for ``n``, in the words of ``edition``."""
    context = edition if edition in EDITIONS else "clank"
    return _translation.npgettext(context, singular, plural, n)


def translate_template(template: str | tuple[str, str], n: object, edition: str | None) -> str:
    """The template in the current language: the edition's words first, then the plain
    catalog (an ``EN_`` template lives in the edition contexts, an ``N_`` one without)."""
    context = edition if edition in EDITIONS else "clank"
    if isinstance(template, tuple):
        if not isinstance(n, int):  # Msg refuses a plural template without one
            raise TypeError("a plural message needs a whole number n")
        singular, plural = template
        english = singular if n == 1 else plural
        shown = _translation.npgettext(context, singular, plural, n)
        if shown == english:
            shown = _translation.ngettext(singular, plural, n)
        return shown
    shown = _translation.pgettext(context, template)
    return _translation.gettext(template) if shown == template else shown


# Player colours (and the cube kinds that share the bag) as the screens name them, with
# the letter that marks each colour so that colour never carries meaning alone.
CUBE_NAMES = {
    "red": NC_("colour", "red"),
    "yellow": NC_("colour", "yellow"),
    "green": NC_("colour", "green"),
    "blue": NC_("colour", "blue"),
    "purple": NC_("colour", "purple"),
    "orange": NC_("colour", "orange"),
    "black": NC_("colour", "black"),
    "ghost": NC_("colour", "ghost"),
}
COLOUR_LETTERS = {
    "red": NC_("colour letter", "R"),
    "yellow": NC_("colour letter", "Y"),
    "green": NC_("colour letter", "G"),
    "blue": NC_("colour letter", "B"),
    "purple": NC_("colour letter", "P"),
    "orange": NC_("colour letter", "O"),
}


# A reader's states (hardware.readers.ReaderStatus values) as the status line names them.
READER_STATES = {
    "connecting": N_("connecting"),
    "connected": N_("connected"),
    "lost": N_("lost"),
    "reconnecting": N_("reconnecting"),
    "stopped": N_("stopped"),
}


def reader_state(value: str) -> str:
    return _(READER_STATES[value]) if value in READER_STATES else value


def player_name(name: str, capital: bool = False) -> str:
    """A player (a colour at the table) or a cube kind, in the current language."""
    shown = pgettext("colour", name) if name in CUBE_NAMES else name
    return shown[:1].upper() + shown[1:] if capital else shown


def colour_letter(name: str) -> str:
    """The letter that marks a colour (a player's first letter if it is not one)."""
    if name in COLOUR_LETTERS:
        return pgettext("colour letter", COLOUR_LETTERS[name])
    return name[:1].upper()


# ------------------------------------------------------------ .po and .mo (no Babel)
@dataclass
class Entry:
    """One message of a .po file."""

    msgid: str
    msgid_plural: str | None = None
    msgstr: list[str] = field(default_factory=list)
    context: str | None = None
    fuzzy: bool = False
    comments: list[str] = field(default_factory=list)  # translator and extracted comments


class PoError(ValueError):
    """A .po file that cannot be read; the message names the line."""


def parse_po(text: str, source: str = "<po>") -> list[Entry]:
    """The entries of a .po file (obsolete ``#~`` entries left out), the header first."""
    entries: list[Entry] = []
    current: Entry | None = None
    part: str | None = None  # which field a continued string line extends
    flags: set[str] = set()
    comments: list[str] = []

    def finish() -> None:
        nonlocal current, flags, comments
        if current is None:
            return
        current.fuzzy = "fuzzy" in flags
        current.comments = comments
        entries.append(current)
        current, flags, comments = None, set(), []

    def unquote(s: str, lineno: int) -> str:
        s = s.strip()
        if not (len(s) >= 2 and s[0] == s[-1] == '"'):
            raise PoError(f"{source}:{lineno}: expected a quoted string")
        try:
            value = ast.literal_eval(s)
        except (SyntaxError, ValueError) as e:
            raise PoError(f"{source}:{lineno}: {e}") from None
        return value

    def append(value: str) -> None:
        assert current is not None and part is not None
        if part == "msgid":
            current.msgid += value
        elif part == "msgid_plural":
            current.msgid_plural = (current.msgid_plural or "") + value
        elif part == "msgctxt":
            current.context = (current.context or "") + value
        else:
            current.msgstr[int(part)] += value

    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#~"):
            continue
        if line.startswith("#"):
            if current is not None and part not in ("msgctxt", None):
                finish()
            if line.startswith("#,"):
                flags |= {f.strip() for f in line[2:].split(",")}
            elif line.startswith(("# ", "#.")) or line == "#":
                comments.append(line[2:].strip())
            continue
        keyword, _sep, rest = line.partition(" ")
        if keyword == "msgctxt":
            finish()
            current = Entry("", context="")
            part = "msgctxt"
            append(unquote(rest, lineno))
        elif keyword == "msgid":
            if current is None or part != "msgctxt":
                finish()
                current = Entry("")
            part = "msgid"
            append(unquote(rest, lineno))
        elif keyword == "msgid_plural" and current is not None:
            part = "msgid_plural"
            current.msgid_plural = ""
            append(unquote(rest, lineno))
        elif keyword == "msgstr" and current is not None:
            current.msgstr = [""]
            part = "0"
            append(unquote(rest, lineno))
        elif keyword.startswith("msgstr[") and keyword.endswith("]") and current is not None:
            index = int(keyword[7:-1])
            if index != len(current.msgstr):
                raise PoError(f"{source}:{lineno}: {keyword} out of order")
            current.msgstr.append("")
            part = str(index)
            append(unquote(rest, lineno))
        elif line.startswith('"') and current is not None and part is not None:
            append(unquote(line, lineno))
        else:
            raise PoError(f"{source}:{lineno}: cannot read {line[:40]!r}")
    finish()
    return entries


def mo_bytes(entries: Iterable[Entry], source_hash: str = "") -> bytes:
    """A GNU .mo file of the translated, not fuzzy entries (the header always), with the
    source's hash added to the header. The layout is gettext's (and Python's msgfmt)."""
    pairs: dict[bytes, bytes] = {}
    for e in entries:
        if e.msgid == "" and e.context is None:
            header = e.msgstr[0] if e.msgstr else ""
            if "charset=" not in header:  # the strings below are UTF-8
                header = header.rstrip("\n") + "\nContent-Type: text/plain; charset=UTF-8\n"
            if source_hash:
                header = header.rstrip("\n") + f"\n{SOURCE_HASH}: {source_hash}\n"
            pairs[b""] = header.lstrip("\n").encode()
            continue
        if e.fuzzy or not e.msgstr or not all(e.msgstr):
            continue
        key = e.msgid if e.msgid_plural is None else f"{e.msgid}\0{e.msgid_plural}"
        if e.context is not None:
            key = f"{e.context}\x04{key}"
        pairs[key.encode()] = "\0".join(e.msgstr).encode()
    keys = sorted(pairs)
    ids = strs = b""
    offsets = []
    for k in keys:
        offsets.append((len(ids), len(k), len(strs), len(pairs[k])))
        ids += k + b"\0"
        strs += pairs[k] + b"\0"
    start = 7 * 4 + 16 * len(keys)  # header, then the two tables of (length, offset)
    koffsets: list[int] = []
    voffsets: list[int] = []
    for o1, l1, o2, l2 in offsets:
        koffsets += [l1, o1 + start]
        voffsets += [l2, o2 + start + len(ids)]
    out = struct.pack("Iiiiiii", 0x950412DE, 0, len(keys), 7 * 4, 7 * 4 + len(keys) * 8, 0, 0)
    out += struct.pack(f"{len(koffsets)}i", *koffsets)
    out += struct.pack(f"{len(voffsets)}i", *voffsets)
    return out + ids + strs


def catalogs(locale_dir: Path | None = None) -> list[Path]:
    """Every .po file, one per language."""
    return sorted((locale_dir or LOCALE_DIR).glob(f"*/LC_MESSAGES/{DOMAIN}.po"))


def compile_catalogs(locale_dir: Path | None = None) -> list[Path]:
    """Build every ``.mo`` from its ``.po``; returns those written (unchanged ones are
    left alone)."""
    written = []
    for po in catalogs(locale_dir):
        text = po.read_bytes()
        data = mo_bytes(parse_po(text.decode(), str(po)), hashlib.sha256(text).hexdigest())
        mo = po.with_suffix(".mo")
        if mo.is_file() and mo.read_bytes() == data:
            continue
        partial = mo.with_name(mo.name + ".new")
        partial.write_bytes(data)
        partial.replace(mo)
        written.append(mo)
    return written


def placeholders(text: str) -> set[str]:
    """The {fields} of a str.format template."""
    try:
        return {name for _t, name, _s, _c in string.Formatter().parse(text) if name is not None}
    except ValueError:
        return {"<malformed>"}


# ------------------------------------------------------------ extraction (Babel)
PROJECT = Path(__file__).resolve().parent.parent
KEYWORDS = {
    "_": None,
    "N_": None,
    "ngettext": (1, 2),
    "pgettext": ((1, "c"), 2),
    "npgettext": ((1, "c"), 2, 3),
    "NC_": ((1, "c"), 2),
    "NN_": (1, 2),
}
EDITION_KEYWORDS = {
    "ed_": (2,),
    "ned_": (2, 3),
    "EN_": (1,),
}  # the message, once per edition context


def source_files(root: Path = PROJECT) -> list[Path]:
    """Where the user-facing strings are: the package's Python files and the kv layouts."""
    return sorted((root / "companion").rglob("*.py")) + sorted((root / "kv").glob("*.kv"))


class Extracted(TypedDict):
    """A message found in the code: its plural (None when it has none), where it is used
    ("path:line") and its translator comments."""

    plural: str | None
    where: list[str]
    comments: list[str]


def extract(root: Path = PROJECT) -> dict[tuple[str | None, str], Extracted]:
    """Every message the code uses, keyed by (context, msgid): its plural and where it
    is used. kv files are read as Python: their ``_("...")`` calls are Python calls."""
    from babel.messages.extract import extract as babel_extract

    found: dict[tuple[str | None, str], Extracted] = {}
    for path in source_files(root):
        for keywords, contexts in ((KEYWORDS, None), (EDITION_KEYWORDS, EDITIONS)):
            with open(path, "rb") as f:
                messages = list(
                    babel_extract("python", f, keywords=keywords, comment_tags=("TRANSLATORS:",))
                )
            for lineno, message, comments, context in messages:
                singular, plural = (message, None) if isinstance(message, str) else message[:2]
                for ctx in contexts or (context,):
                    entry = found.setdefault(
                        (ctx, singular), {"plural": plural, "where": [], "comments": []}
                    )
                    entry["where"].append(f"{path.relative_to(root)}:{lineno}")
                    for c in comments:
                        if c not in entry["comments"]:
                            entry["comments"].append(c)
    return found


def update_catalogs(root: Path = PROJECT, locale_dir: Path | None = None) -> list[str]:
    """Bring every .po in line with the code (Babel's update): new messages come in
    untranslated, a changed one keeps its old translation marked fuzzy, unused ones go;
    translator comments stay. Returns a line per change."""
    from babel.messages.catalog import Catalog
    from babel.messages.pofile import read_po, write_po

    template = Catalog(domain=DOMAIN, fuzzy=False)
    for (context, msgid), info in extract(root).items():
        plural = info["plural"]
        where = [(w.rsplit(":", 1)[0], int(w.rsplit(":", 1)[1])) for w in info["where"]]
        template.add(msgid if plural is None else (msgid, plural), locations=where,
                     auto_comments=info["comments"], context=context)  # fmt: skip
    changes = []
    for po in catalogs(locale_dir):
        with open(po, "rb") as f:
            catalog = read_po(f, ignore_obsolete=True)
        before = {(m.context, _singular(m.id)) for m in catalog if m.id}
        template.creation_date = catalog.creation_date  # no churn in the header
        catalog.update(template, update_header_comment=False, keep_user_comments=True)
        after = {(m.context, _singular(m.id)) for m in catalog if m.id}
        lang = po.parent.parent.name
        changes += [f"{lang}: new {c or ''} {m!r}" for c, m in sorted(after - before, key=str)]
        changes += [f"{lang}: gone {c or ''} {m!r}" for c, m in sorted(before - after, key=str)]
        with open(po, "wb") as f:
            write_po(f, catalog, width=96, ignore_obsolete=True, include_previous=False)
    return changes


def _singular(msgid: str | tuple[str, ...] | list[str]) -> str:
    """A babel message id's singular: the id itself, or the first of its forms."""
    return msgid if isinstance(msgid, str) else msgid[0]


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    command = args[0] if args else ""
    if command == "compile":
        for mo in compile_catalogs():
            print(f"compiled {mo}")
        return 0
    if command == "extract":
        for change in update_catalogs():
            print(change)
        return 0
    print("usage: python -m companion.i18n compile | extract", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
