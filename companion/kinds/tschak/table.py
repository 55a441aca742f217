"""A Tschak! game at the table: the same shape as a Clank! ``Table`` (apply, abandon,
snapshot, a log that commits each action before it is shown), with no dragon bag."""

from __future__ import annotations

from typing import Any

from companion.kinds.base import ActionLog
from companion.kinds.tschak.rules import EDITION as TSCHAK
from companion.kinds.tschak.rules import TschakError, TschakGame
from companion.msg import N_, Refusal


def tschak_refusal(error: TschakError, during: str | None = None) -> Refusal:
    """A Tschak! refusal as the table reads it: the same English, in the table's language
    when shown (its template is marked for the catalogs, its values are codes)."""
    return Refusal(error.template, during=error.during or during, **error.params)


class TschakTable:
    """A Tschak! game at the table: the same ``apply``, ``abandon`` and ``snapshot`` as a
    Clank! table, with no dragon bag (so no seeds and no draws). With a log attached,
    every accepted action is committed before ``apply`` returns; one that cannot be
    recorded is taken back and the error raised.

    Once the game is over only what keeps it over is taken: the elixir, and undoing
    an elixir (the last floor's result is the record's)."""

    def __init__(self, options: Any, *, log: ActionLog | None = None) -> None:
        self.game = TschakGame.from_options(options)
        self._corrections = options.get("catalog")  # the table's catalog corrections
        self.log = log
        self.abandoned = False
        self.closed = False  # the scored game was closed: its log takes nothing more
        self.actions_seen = 0  # accepted actions, undos included (as the log counts them)

    @property
    def setup(self) -> dict[str, Any]:
        """The options that make this game again, every setting written out."""
        g = self.game
        out: dict[str, Any] = {
            "edition": TSCHAK,
            "players": list(g.players),
            "settings": g.settings.as_dict(),
        }
        if self._corrections:
            out["catalog"] = self._corrections
        return out

    edition = TSCHAK

    @property
    def finished(self) -> bool:
        return self.game.game_over or self.abandoned

    def apply(self, raw: Any) -> list[dict[str, Any]]:
        name = raw.get("do") if isinstance(raw, dict) else None
        if self.abandoned:
            error = TschakError("abandoned", "the game was abandoned")
            error.during = name if isinstance(name, str) else None
            raise error
        if self.closed:
            error = TschakError("closed", N_("the game is closed: its scores are final"))
            error.during = name if isinstance(name, str) else None
            raise error
        was_over = self.game.game_over
        if was_over and name == "undo" and self.game.last_action != "elixir":
            error = TschakError("over", "the game is over: only the elixir can be undone")
            error.during = "undo"
            raise error
        mark = self.game.mark()
        events = self.game.apply(raw)
        if self.log is not None:
            ending: dict[str, Any] | None = None  # see ActionLog
            if self.game.game_over:
                ranking = self.game.ranking()[0]
                ending = {"ranking": ranking}
                if not was_over:
                    ending["reason"] = "over"
            try:
                self.log.record(dict(raw), list(events), [], ending)
            except BaseException:
                self.game.rollback(mark)
                raise
        self.actions_seen += 1
        return events

    def abandon(self, reason: str) -> None:
        if self.finished:
            error = TschakError("over", "the game is already over")
            error.during = "abandon"
            raise error
        if self.log is not None:
            self.log.abandon(None, reason)
        self.abandoned = True

    def close(self, reason: str = "closed at the table") -> None:
        """The scores have been read: the log is closed, and its head is final."""
        if self.closed or self.abandoned:
            return
        if not self.game.game_over:
            error = TschakError("not_over", N_("the game is not over"))
            error.during = "close"
            raise error
        if self.log is not None:
            self.log.close(reason)
        self.closed = True

    def snapshot(self) -> dict[str, Any]:
        return self.game.snapshot()
