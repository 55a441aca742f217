"""The one exception of the Tschak! rules: an action, an option or a card they refuse."""

from __future__ import annotations

from typing import Any


class TschakError(ValueError):
    """A refusal. ``code`` is a stable machine word ("illegal_team", "not_seated", ...);
    ``template`` (the ``message`` given) is an English template whose ``{names}`` are
    filled from ``params``; ``str()`` is the English sentence, starting with the refused
    action ("floor: ...") once ``during`` is known.

    Every template is a literal marked with ``N_`` (companion.msg) where it is raised, so
    that the catalogs hold it: a screen shows ``_(err.template).format(**err.params)`` in
    the table's language. The params are codes and values (a card's notation, a player's
    name, a setting's name, a number), never English words.

    The game that raised it is unchanged."""

    def __init__(self, code: str, message: str, /, **params: Any) -> None:
        self.code = code
        self.template = message
        self.params = params
        self.during: str | None = None
        super().__init__(code, message)

    @property
    def text(self) -> str:
        """The English sentence without the action's name."""
        try:
            return self.template.format(**self.params)
        except (KeyError, IndexError, ValueError):  # a template that names no param
            return self.template

    def __str__(self) -> str:
        return f"{self.during}: {self.text}" if self.during else self.text

    def as_dict(self) -> dict[str, Any]:
        """Code, English reason and params (JSON values), for a log or a screen."""
        return {"code": self.code, "reason": str(self), "params": dict(self.params)}
