"""The table: one game with its seeds, the fair draw wired in as the chance source.

Every way of playing (the table script, the touchscreen, the reader and buttons)
goes through a Table: it owns the server seed, shows only its commitment until the
game is over, and reports state in the table-script output shape. With a game log
attached, every accepted action is committed to the log before ``apply`` returns (commit
before show); an action that cannot be recorded is taken back and the error raised.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Protocol, TypeGuard

from companion.draw import commitment, draw_cubes, new_server_seed
from companion.msg import N_, Refusal
from companion.rules import DrawRequest, Game, RuleError, Setup, make_setup
from companion.tschak import EDITION as TSCHAK
from companion.tschak import TschakError, TschakGame

_HEX64 = re.compile(r"^[0-9a-f]{64}$")


class ActionLog(Protocol):
    """Where a table commits what happens (the durable game log)."""

    def record(
        self,
        action: dict[str, Any],
        events: list[dict[str, Any]],
        draws: list[dict[str, Any]],
        ending: dict[str, Any] | None,
    ) -> None: ...

    def abandon(self, server_seed: str | None, reason: str) -> None: ...


# ``ending`` of ActionLog.record: {"server_seed", "reason", "ranking"} when a game with a
# dragon bag ends (its seed revealed), {"reason", "ranking"} when a game without one
# ends, {"ranking"} when a score changes after the end.


class Table:
    def __init__(
        self, setup: Setup, server_seed: str | None = None, *, log: ActionLog | None = None
    ) -> None:
        if server_seed is None:
            server_seed = new_server_seed()
        elif not _HEX64.match(server_seed):
            raise RuleError(
                N_('"server_seed" must be 64 lowercase hexadecimal characters'), during="new"
            )
        self.setup = setup
        self._server_seed = server_seed
        self.commitment = commitment(server_seed)
        self.game = Game(setup, self._chance)
        self.log = log
        self.abandoned = False

    @classmethod
    def from_options(cls, options: Any, *, log: ActionLog | None = None) -> Table:
        """A table from the options of a ``{"new": {...}}`` line."""
        setup = make_setup(options)
        seed = options.get("server_seed")
        if seed is not None and not isinstance(seed, str):
            raise RuleError(
                N_('"server_seed" must be 64 lowercase hexadecimal characters'), during="new"
            )
        return cls(setup, seed, log=log)

    def _chance(self, request: DrawRequest) -> Sequence[str]:
        return draw_cubes(
            self._server_seed,
            request.client_seed,
            request.nonce,
            request.bag,
            request.seats,
            request.count,
        )

    @property
    def edition(self) -> str:
        return self.game.edition.name

    @property
    def actions_seen(self) -> int:
        return self.game.actions_seen

    @property
    def finished(self) -> bool:
        return self.game.state.game_over or self.abandoned

    def apply(self, raw: Any) -> list[dict[str, Any]]:
        """Apply an action, commit it to the log (if any), then return its events."""
        if self.abandoned:
            what = raw.get("do", "action") if isinstance(raw, dict) else "action"
            raise RuleError(N_("the game was abandoned"), during=str(what))
        mark = self.game.mark()
        was_over = self.game.state.game_over
        events = self.game.apply(raw)
        action = self.game.last_action
        if self.log is not None:
            draws = [draw_record(d) for d in self.game.draws[mark.draws_len :]]
            ending = None
            if self.game.state.game_over and not was_over:
                ending = {
                    "server_seed": self._server_seed,
                    "reason": self.game.state.end_reason,
                    "ranking": self.game.snapshot()["ranking"],
                }
            elif was_over:  # a deck scanned for scoring: the ranking changes
                ending = {"ranking": self.game.snapshot()["ranking"]}
            try:
                self.log.record(action, events, draws, ending)
            except BaseException:
                self.game.rollback(mark)
                raise
        return events

    def abandon(self, reason: str) -> None:
        """Give the game up: the server seed is revealed so its draws can be checked."""
        if self.finished:
            raise RuleError(N_("the game is already over"), during="abandon")
        if self.log is not None:
            self.log.abandon(self._server_seed, reason)
        self.abandoned = True

    @property
    def server_seed(self) -> str | None:
        """Revealed only once the game is over (or abandoned)."""
        return self._server_seed if self.finished else None

    def snapshot(self) -> dict[str, Any]:
        out = self.game.snapshot()
        out["abandoned"] = self.abandoned
        out["commitment"] = self.commitment
        out["client_seed"] = self.game.state.client_seed
        out["server_seed"] = self.server_seed
        return out


def draw_record(d: Any) -> dict[str, Any]:
    return {
        "nonce": d.nonce,
        "reason": d.reason,
        "client_seed": d.client_seed,
        "bag": dict(d.bag),
        "count": d.count,
        "drawn": list(d.drawn),
    }


def tschak_refusal(error: TschakError, during: str | None = None) -> Refusal:
    """A Tschak! refusal as the table reads it: the same English, in the table's language
    when shown (its template is marked for the catalogs, its values are codes)."""
    return Refusal(error.template, during=error.during or during, **error.params)


def is_tschak(options: Any) -> TypeGuard[dict[str, Any]]:
    """A ``new`` line's options for a Tschak! game."""
    return isinstance(options, dict) and options.get("edition") == TSCHAK


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

    def snapshot(self) -> dict[str, Any]:
        return self.game.snapshot()
