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
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

# the message types live beside the rules (no translation there); they are named here too
from companion.msg import (
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

__all__ = [
    # the message types, named here too
    "EN_",
    "N_",
    "NC_",
    "NN_",
    "Msg",
    "Name",
    "Refusal",
    "localized",
    # the languages and their catalogs
    "DOMAIN",
    "LANGUAGES",
    "LOCALE_DIR",
    "system_language",
    "resolve_language",
    "set_language",
    "current_language",
    "catalog_path",
    "compiled_path",
    "translation",
    # words said in the current language, and said again after a switch
    "Said",
    "retold",
    "retell_held",
    "_",
    "ngettext",
    "pgettext",
    "npgettext",
    # an edition's own words
    "ed_",
    "ned_",
    "translate_template",
    # the names the screens give colours and the reader's states
    "CUBE_NAMES",
    "COLOUR_LETTERS",
    "READER_STATES",
    "reader_state",
    "player_name",
    "colour_letter",
]

log = logging.getLogger(__name__)

LOCALE_DIR = package_path("locale")  # package data (companion/resources.py)
DOMAIN = "companion"
LANGUAGES = ("en", "ru", "uk", "es")  # English is the source: it has no catalog
# the gettext context of an edition's own words (``ed_``, ``ned_``) is the edition's name;
# an edition without words of its own, or none (a badge has none), reads in the default
# edition's (the kinds' registry names it: companion.kinds.DEFAULT)
_default_edition = ""


def _default() -> str:
    global _default_edition
    if not _default_edition:
        from companion.kinds import DEFAULT

        _default_edition = DEFAULT
    return _default_edition


def _in_words(edition: str | None, english: str, say: Callable[[str], str]) -> str:
    """``say(context)`` in the edition's words, else in the default edition's."""
    if edition:
        shown = say(edition)
        if shown != english:
            return shown
    return say(_default())


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
    language chosen. Strings already on screen change when they are computed again, or
    said again (``retold``)."""
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


# ------------------------------------------------------------------ texts said again
class Said(str):
    """A text in the table's language that remembers how it was said: the catalog's
    words it came from, the values put into them, the texts joined to it. A language
    switched at run time says it again (``retold``), so that a text told before the
    switch and kept (the table's "what just happened", a message, a question open) is
    read in the new language like everything drawn again. Every function of this module
    that translates gives one; ``format`` and ``+`` keep the recipe. Anything else made
    of it (an f-string, ``join``, ``upper``) is a plain ``str``, the words as they were.
    A copy (``copy``, ``pickle``) is a plain ``str`` too."""

    how: Callable[..., str] | None
    of: tuple[Any, ...]

    def __new__(cls, text: str = "", how: Callable[..., str] | None = None,
                of: tuple[Any, ...] = ()) -> Said:  # fmt: skip
        said = super().__new__(cls, text)
        said.how, said.of = how, of  # none: made by Kivy as type(text)(...), not said
        return said

    def again(self) -> str:
        """The text said again, in the language spoken now."""
        return str(self) if self.how is None else self.how(*self.of)

    def format(self, *args: object, **kwargs: object) -> Said:
        return Said(str.format(self, *args, **kwargs), _formatted, (self, args, kwargs))

    def __add__(self, other: str) -> Said:
        if not isinstance(other, str):
            return NotImplemented
        return Said(str.__add__(self, other), _joined, (self, other))

    def __radd__(self, other: str) -> Said:
        if not isinstance(other, str):
            return NotImplemented
        return Said(str.__add__(other, self), _joined, (other, self))

    def __reduce__(self) -> tuple[type[str], tuple[str]]:
        return str, (str(self),)


def _formatted(template: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
    return retold(template).format(
        *(retold(a) for a in args), **{k: retold(v) for k, v in kwargs.items()}
    )


def _joined(left: str, right: str) -> str:
    return retold(left) + retold(right)


def retold(value: Any) -> Any:
    """``value`` said again in the language spoken now: a ``Said`` text, and the texts
    inside a list, a tuple or a dict (a list or a dict is changed in place, so that
    whoever holds it sees the new words). Anything else comes back as it is."""
    if isinstance(value, Said):
        return value.again()
    if isinstance(value, list):
        for i, item in enumerate(value):
            new = retold(item)
            if new is not item:
                value[i] = new
        return value
    if isinstance(value, dict):
        for key, item in value.items():
            new = retold(item)
            if new is not item:
                value[key] = new
        return value
    if type(value) is tuple:
        items = tuple(retold(item) for item in value)
        return value if all(a is b for a, b in zip(items, value, strict=True)) else items
    return value


def retell_held(holder: object) -> None:
    """Every text ``holder`` keeps in its attributes said again (a controller's last
    words, a message waiting to be shown), after the language changed."""
    for name, value in list(vars(holder).items()):
        new = retold(value)
        if new is not value:
            setattr(holder, name, new)


# ------------------------------------------------------------------ the functions
def _(message: str) -> str:
    return Said(_translation.gettext(message), _, (message,))


def ngettext(singular: str, plural: str, n: int) -> str:
    return Said(_translation.ngettext(singular, plural, n), ngettext, (singular, plural, n))


def pgettext(context: str, message: str) -> str:
    return Said(_translation.pgettext(context, message), pgettext, (context, message))


def npgettext(context: str, singular: str, plural: str, n: int) -> str:
    shown = _translation.npgettext(context, singular, plural, n)
    return Said(shown, npgettext, (context, singular, plural, n))


def ed_(edition: str | None, message: str) -> str:
    """``message`` in the words of ``edition`` (an edition without words of its own,
    None included, as a badge has none, reads in the default edition's words)."""
    shown = _in_words(edition, message, lambda c: _translation.pgettext(c, message))
    return Said(shown, ed_, (edition, message))


def ned_(edition: str | None, singular: str, plural: str, n: int) -> str:
    """The plural form for ``n``, in the words of ``edition``."""
    english = singular if n == 1 else plural

    def say(context: str) -> str:
        return _translation.npgettext(context, singular, plural, n)

    return Said(_in_words(edition, english, say), ned_, (edition, singular, plural, n))


def translate_template(template: str | tuple[str, str], n: object, edition: str | None) -> str:
    """The template in the current language: the edition's words first, then the plain
    catalog (an ``EN_`` template lives in the edition contexts, an ``N_`` one without)."""
    if isinstance(template, tuple):
        if not isinstance(n, int):  # Msg refuses a plural template without one
            raise TypeError("a plural message needs a whole number n")
        singular, plural = template
        english = singular if n == 1 else plural
        count = n
        shown = _in_words(
            edition, english, lambda c: _translation.npgettext(c, singular, plural, count)
        )
        if shown == english:
            shown = _translation.ngettext(singular, plural, n)
    else:
        text = template
        shown = _in_words(edition, text, lambda c: _translation.pgettext(c, text))
        if shown == template:
            shown = _translation.gettext(template)
    return Said(shown, translate_template, (template, n, edition))


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
    # TRANSLATORS: the letter that marks a player's colour (in the disc on their panel,
    # before their count in the bag, at the end of their line in a chart): a letter of
    # the colour's name, one of its own for each colour, and never one that reads as a
    # digit beside a number ("O0" reads "00"): not O, О, З, Ч, Б, I or l
    "red": NC_("colour letter", "R"),
    "yellow": NC_("colour letter", "Y"),
    "green": NC_("colour letter", "G"),
    "blue": NC_("colour letter", "B"),
    "purple": NC_("colour letter", "P"),
    "orange": NC_("colour letter", "N"),
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
    shown = _translation.pgettext("colour", name) if name in CUBE_NAMES else name
    if capital:
        shown = shown[:1].upper() + shown[1:]
    return Said(shown, player_name, (name, capital))


def colour_letter(name: str) -> str:
    """The letter that marks a colour (a player's first letter if it is not one)."""
    if name in COLOUR_LETTERS:
        return pgettext("colour letter", COLOUR_LETTERS[name])
    return name[:1].upper()
