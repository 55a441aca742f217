"""Translations: every user-facing string goes through gettext.

Python code calls ``_("...")`` and ``ngettext(...)``; kv files call ``_("...")`` (imported
in kv/common.kv). Words that each edition names its own way (the noise word, the Clank!
area, the rage track, secrets, the Depths...) go through ``ed_(edition, "...")`` and
``ned_(edition, ...)``: gettext contexts named after the edition ("clank", "catacombs"),
so that a Russian table reads «Бздынь!» with the base game and «клац!» with Catacombs.
English needs no catalog: the source strings are the English text.

The catalogs are ``companion/locale/<lang>/LC_MESSAGES/companion.po`` (sources, in the
repository). The app reads only the ``.mo`` files compiled from them (never committed):
building the package (a wheel, an sdist's build, ``pip install -e``) compiles them with
Babel (setup.py), and ``python -m companion.i18n_tools compile`` compiles a checkout's again
after a ``.po`` changed (./dev does before app, test and screenshots). A language whose
``.mo`` is missing shows English. ``python -m companion.i18n_tools extract`` brings every
``.po`` up to date with the code: new strings get an empty translation, strings the code
no longer uses are dropped. Both commands are in ``companion.i18n_tools``, which needs
Babel (a dev dependency and a build requirement, never one of the app's); this module
needs the standard library only.

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

import gettext
import logging
import os
from collections.abc import Mapping
from pathlib import Path

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
from companion.resources import package_path

log = logging.getLogger(__name__)

LOCALE_DIR = package_path("locale")  # package data (companion/resources.py)
DOMAIN = "companion"
LANGUAGES = ("en", "ru", "uk", "es")  # English is the source: it has no catalog
EDITIONS = ("clank", "catacombs")  # the gettext contexts of ed_ and ned_

_translation: gettext.NullTranslations = gettext.NullTranslations()
_language = "en"


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
    """The catalog's source, the .po file (the tools read it; the app does not)."""
    return LOCALE_DIR / language / "LC_MESSAGES" / f"{DOMAIN}.po"


def compiled_path(language: str) -> Path:
    """The compiled catalog the app reads, beside its .po."""
    return LOCALE_DIR / language / "LC_MESSAGES" / f"{DOMAIN}.mo"


def translation(language: str) -> gettext.NullTranslations:
    """The compiled catalog of ``language``; English (or a language whose .mo is
    missing) translates nothing."""
    if language == "en":
        return gettext.NullTranslations()
    try:
        with open(compiled_path(language), "rb") as f:
            return gettext.GNUTranslations(f)
    except FileNotFoundError:
        if catalog_path(language).is_file():
            log.warning(
                "%s is not compiled: showing English (python -m companion.i18n_tools compile)",
                catalog_path(language),
            )
        return gettext.NullTranslations()


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
