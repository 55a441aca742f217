"""The table: one game with its seeds, the fair draw wired in as the chance source.

Every way of playing (the table script, the touchscreen, the reader and buttons)
goes through a Table: it owns the server seed, shows only its commitment until the
game is over, and reports state in the table-script output shape.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from companion.draw import commitment, draw_cubes, new_server_seed
from companion.rules import DrawRequest, Game, RuleError, Setup, make_setup

_HEX64 = re.compile(r"^[0-9a-f]{64}$")


class Table:
    def __init__(self, setup: Setup, server_seed: str | None = None) -> None:
        if server_seed is None:
            server_seed = new_server_seed()
        elif not _HEX64.match(server_seed):
            raise RuleError('new: "server_seed" must be 64 lowercase hexadecimal characters')
        self.setup = setup
        self._server_seed = server_seed
        self.commitment = commitment(server_seed)
        self.game = Game(setup, self._chance)

    @classmethod
    def from_options(cls, options: Any) -> Table:
        """A table from the options of a ``{"new": {...}}`` line."""
        setup = make_setup(options)
        seed = options.get("server_seed")
        if seed is not None and not isinstance(seed, str):
            raise RuleError('new: "server_seed" must be 64 lowercase hexadecimal characters')
        return cls(setup, seed)

    def _chance(self, request: DrawRequest) -> Sequence[str]:
        return draw_cubes(
            self._server_seed,
            request.client_seed,
            request.nonce,
            request.bag,
            request.seats,
            request.count,
        )

    def apply(self, action: Any) -> list[dict[str, Any]]:
        return self.game.apply(action)

    @property
    def server_seed(self) -> str | None:
        """Revealed only once the game is over."""
        return self._server_seed if self.game.state.game_over else None

    def snapshot(self) -> dict[str, Any]:
        out = self.game.snapshot()
        out["commitment"] = self.commitment
        out["client_seed"] = self.game.state.client_seed
        out["server_seed"] = self.server_seed
        return out
