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
from typing import Any, TypeGuard

from companion.draw import commitment, draw_cubes, new_server_seed
from companion.kinds.base import ActionLog
from companion.kinds.clank.rules import DrawRequest, Game, RuleError, Setup, make_setup
from companion.msg import N_

_HEX64 = re.compile(r"^[0-9a-f]{64}$")
TSCHAK = "tschak"  # companion.kinds.tschak.rules.EDITION, without loading the Tschak! rules


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
        self.closed = False  # the scored game was closed: its log takes nothing more

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

    def apply(self, raw: Any, work: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """Apply an action, commit it to the log (if any; with the table's ``work`` in
        progress after it, where given: ``GameLog.record``), then return its events."""
        if self.abandoned or self.closed:
            what = raw.get("do", "action") if isinstance(raw, dict) else "action"
            if self.closed:
                raise RuleError(N_("the game is closed: its scores are final"), during=str(what))
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
                self.log.record(action, events, draws, ending, work)
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

    def close(self, reason: str = "closed at the table") -> None:
        """The scores have been read: the log is closed, and its head is final. Only a
        game that is over is closed; closing it again changes nothing."""
        if self.closed or self.abandoned:
            return
        if not self.game.state.game_over:
            raise RuleError(N_("the game is not over"), during="close")
        if self.log is not None:
            self.log.close(reason)
        self.closed = True

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


def is_tschak(options: Any) -> TypeGuard[dict[str, Any]]:
    """A ``new`` line's options for a Tschak! game."""
    return isinstance(options, dict) and options.get("edition") == TSCHAK
