"""Messages kept as their English template and values, shown later in the language the
table reads: what the rules, the store and the catalog give instead of words.

Standard library only: the rules import this, never the translations. Showing a message
(``localized``) loads companion.i18n then. The markers (``N_``, ``EN_``, ``NN_``,
``NC_``) only mark strings for the catalogs.
"""

from __future__ import annotations


def N_(message: str) -> str:
    """Marks a string for the catalogs; translated later with ``_``."""
    return message


def NC_(context: str, message: str) -> str:
    """Marks a string with a context for the catalogs; translated later with pgettext."""
    return message


def EN_(message: str) -> str:
    """Marks a string that names things in an edition's own words (the Depths, the
    Clank! area...) for the catalogs, once per edition; shown later by ``Msg``."""
    return message


def NN_(singular: str, plural: str) -> tuple[str, str]:
    """Marks a message with a plural for the catalogs; ``Msg`` picks the form for its
    ``n`` value when it is shown."""
    return (singular, plural)


# ------------------------------------------------------------ messages shown later
class Msg:
    """A message kept as its English template and its values, so that it is shown in the
    language the table reads when it is shown, not when it was made. ``str()`` is the
    English; ``localized(edition)`` the current language, in the edition's words when the
    template was marked with ``EN_``. A template marked with ``NN_`` (singular, plural)
    takes the plural form for the value ``n``. Values that have a ``localized`` method
    (a Msg, a Name, a tag's Component) are localized with it."""

    __slots__ = ("template", "params")

    def __init__(self, template: str | tuple[str, str], /, **params: object) -> None:
        if isinstance(template, tuple) and not isinstance(params.get("n"), int):
            raise TypeError("a plural message needs a whole number n")
        self.template = template
        self.params = params

    def __str__(self) -> str:
        template = self.template
        if isinstance(template, tuple):
            template = template[0] if self.params["n"] == 1 else template[1]
        values = {k: str(v) if hasattr(v, "localized") else v for k, v in self.params.items()}
        return template.format(**values)

    def __repr__(self) -> str:
        return f"Msg({self.template!r}, **{self.params!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Msg) and (self.template, self.params) == (
            other.template,
            other.params,
        )

    def __hash__(self) -> int:
        return hash(self.template)

    def localized(self, edition: str | None = None) -> str:
        values = {
            k: v.localized(edition) if hasattr(v, "localized") else v
            for k, v in self.params.items()
        }
        from companion.i18n import translate_template  # the words, when shown

        return translate_template(self.template, self.params.get("n"), edition).format(**values)


class Name(str):
    """A player's name (a colour, most often, or a cube kind) inside a message: English in
    ``str()``, the current language's colour word in ``localized()``."""

    __slots__ = ()

    def localized(self, edition: str | None = None) -> str:
        from companion.i18n import player_name

        return player_name(str(self))


class Refusal(ValueError):
    """An error the table reads: a ``Msg`` underneath, so that the screen shows it in the
    table's language while logs, scripts and tests see the English ``str()``.
    ``during`` names the action or step refused ("take", "new"): the English message
    starts with it, the localized one leaves it out (the table knows what it tapped)."""

    def __init__(
        self,
        template: str | tuple[str, str] | Msg,
        /,
        *,
        during: str | None = None,
        **params: object,
    ) -> None:
        self.message = template if isinstance(template, Msg) else Msg(template, **params)
        self.during = during
        english = str(self.message)
        super().__init__(f"{during}: {english}" if during else english)

    def localized(self, edition: str | None = None) -> str:
        return self.message.localized(edition)


def localized(error: BaseException | object, edition: str | None = None) -> str:
    """What the table reads of an error or a message: localized when it knows how,
    else its text as it is."""
    if hasattr(error, "localized"):
        return error.localized(edition)
    return str(error)
