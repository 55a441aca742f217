"""The pebbles table: its state, its one action and its refusal."""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from companion.draw import commitment, draw_cubes, new_server_seed
from companion.kinds.base import JSON, ActionLog
from companion.msg import Refusal

EDITION = "pebbles"
BLACK = "black"  # the bag's own pebbles: no player's
WIN = 2  # the points that win
Draws = Callable[[Any], Sequence[str]]  # the log's draws, handed back one draw at a time


class PebbleError(Refusal):
    """An action the pebble rules refuse (nothing changed)."""


@dataclass
class State:
    turn: int = 0
    points: dict[str, int] = field(default_factory=dict)
    over: bool = False


class PebbleTable:
    """One game of pebbles. Seeded, it draws from its server seed; given ``draws`` (the
    phones, replaying a log without the seed) it takes each draw's pebbles from them,
    and its seed is the one the log revealed (``revealed``)."""

    def __init__(
        self,
        options: JSON,
        server_seed: str | None = None,
        *,
        draws: Draws | None = None,
        committed: str = "",
    ) -> None:
        players = options.get("players")
        if not isinstance(players, list) or not 2 <= len(players) <= 4:
            raise PebbleError("pebbles is for 2 to 4 players", during="new")
        if len({str(p) for p in players}) != len(players) or BLACK in map(str, players):
            raise PebbleError("each player needs a pebble colour of their own", during="new")
        edition = options.get("edition", EDITION)
        self.edition = edition if isinstance(edition, str) else EDITION
        self.players = [str(p) for p in players]
        self.client_seed = str(options.get("client_seed", ""))
        self._draws = draws
        self._seed = "" if draws is not None else server_seed or new_server_seed()
        self.commitment = committed if draws is not None else commitment(self._seed)
        self.revealed: str | None = None  # the seed the log revealed (replayed without it)
        self.state = State(points=dict.fromkeys(self.players, 0))
        self.history: list[State] = []
        self.next_nonce = 1
        self.log: ActionLog | None = None
        self.abandoned = False
        self.closed = False
        self.actions_seen = 0

    # ------------------------------------------------------------------ reading
    @property
    def finished(self) -> bool:
        return self.state.over or self.abandoned

    @property
    def active(self) -> str:
        """Whose turn it is (the last to draw, once the game is over)."""
        turn = self.state.turn - 1 if self.state.over else self.state.turn
        return self.players[turn % len(self.players)]

    @property
    def server_seed(self) -> str | None:
        """The seed, shown once the game is over or abandoned (None before)."""
        if not self.finished:
            return None
        return self.revealed if self._draws is not None else self._seed

    def ranking(self) -> list[JSON]:
        points = self.state.points
        order = sorted(self.players, key=lambda p: -points[p])
        return [
            {"player": p, "place": 1 + sum(points[q] > points[p] for q in self.players),
             "score": points[p]}
            for p in order
        ]  # fmt: skip

    def winners(self) -> list[str]:
        return [r["player"] for r in self.ranking() if r["place"] == 1] if self.state.over else []

    # ------------------------------------------------------------------ playing
    def _draw(self, bag: dict[str, int]) -> list[str]:
        if self._draws is None:
            return list(
                draw_cubes(self._seed, self.client_seed, self.next_nonce, bag, self.players, 1)
            )
        drawn = list(self._draws({"bag": dict(bag), "count": 1}))
        if len(drawn) != 1 or drawn[0] not in bag:
            raise PebbleError("a pebble the bag does not hold", during="draw")
        return drawn

    def step(self, action: Any) -> tuple[list[JSON], list[JSON]]:
        """Apply one action (no log): its events and draws."""
        if not isinstance(action, dict) or action.get("do") not in ("draw", "undo"):
            raise PebbleError("unknown action", during="action")
        if self.state.over or self.closed or self.abandoned:
            raise PebbleError("the game is over", during=str(action["do"]))
        if action["do"] == "undo":
            if not self.history:
                raise PebbleError("nothing to undo", during="undo")
            self.state = self.history.pop()
            self.actions_seen += 1
            return [{"event": "undo", "player": self.active}], []
        player = self.active
        bag = {BLACK: 3, **dict.fromkeys(self.players, 1)}
        drawn = self._draw(bag)
        draw = {"nonce": self.next_nonce, "reason": "turn", "client_seed": self.client_seed,
                "bag": bag, "count": 1, "drawn": drawn}  # fmt: skip
        self.next_nonce += 1
        self.history.append(copy.deepcopy(self.state))
        if drawn[0] == player:
            self.state.points[player] += 1
        self.state.turn += 1
        self.state.over = self.state.points[player] >= WIN
        self.actions_seen += 1
        return [{"event": "drew", "player": player, "pebble": drawn[0]}], [draw]

    def apply(self, raw: Any) -> list[JSON]:
        before = (copy.deepcopy(self.state), list(self.history), self.next_nonce)
        events, draws = self.step(raw)
        if self.log is not None:
            ending = None
            if self.state.over:
                ending = {"server_seed": self._seed, "reason": "two points",
                          "ranking": self.ranking()}  # fmt: skip
            try:
                self.log.record(dict(raw), events, draws, ending)
            except BaseException:
                self.state, self.history, self.next_nonce = before
                self.actions_seen -= 1
                raise
        return events

    def abandon(self, reason: str) -> None:
        if self.finished:
            raise PebbleError("the game is already over", during="abandon")
        if self.log is not None:
            self.log.abandon(self._seed, reason)
        self.abandoned = True

    def close(self, reason: str = "closed at the table") -> None:
        if self.closed or self.abandoned:
            return
        if not self.state.over:
            raise PebbleError("the game is not over", during="close")
        if self.log is not None:
            self.log.close(reason)
        self.closed = True

    def snapshot(self) -> JSON:
        """The table as a script's ``--json`` output shows it."""
        return {
            "edition": self.edition,
            "players": {p: {"points": n} for p, n in self.state.points.items()},
            "turn": None if self.finished else self.active,
            "game_over": self.state.over,
            "ranking": self.ranking() if self.state.over else None,
            "winners": self.winners(),
            "commitment": self.commitment,
            "server_seed": self.server_seed,
        }
