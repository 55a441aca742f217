"""Translations: every user-facing string goes through ``_`` (gettext).

The catalogs will live in ``companion/locale/<lang>/LC_MESSAGES/companion.mo``; until a
language has one, English is shown.
"""

from __future__ import annotations

import gettext
from pathlib import Path

LOCALE_DIR = Path(__file__).with_name("locale")
DOMAIN = "companion"

_translation: gettext.NullTranslations = gettext.NullTranslations()


def set_language(language: str) -> None:
    global _translation
    _translation = gettext.translation(
        DOMAIN, localedir=LOCALE_DIR, languages=[language], fallback=True
    )


def _(message: str) -> str:
    return _translation.gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    return _translation.ngettext(singular, plural, n)
