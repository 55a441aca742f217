"""A game kind of the tests' own, to prove the seam by use: the session, the log, resume
and both verifiers play it without knowing it.

Pebbles: the bag holds 3 black pebbles and one of each player's colour. On a turn the
player draws one pebble (a fair draw, as the dragon's): their own colour scores a point,
and the pebble goes back. The first to 2 points wins. ``undo`` takes back the last draw
(it stays in the log, with its nonce: the next draw is a new one).
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from typing import Any

from companion.draw import commitment, draw_cubes, new_server_seed
from companion.kinds.base import JSON, ActionLog, GameTable
from companion.msg import Refusal
from companion.story import GameHistory

EDITION = "pebbles"


class PebbleError(Refusal):
    """An action the pebble rules refuse."""


@dataclass
class State:
    turn: int = 0
    points: dict[str, int] = field(default_factory=dict)
    over: bool = False


class PebbleTable:
    def __init__(self, options: JSON, server_seed: str | None = None) -> None:
        players = options.get("players")
        if not isinstance(players, list) or not 2 <= len(players) <= 4:
            raise PebbleError("pebbles is for 2 to 4 players", during="new")
        self.players = [str(p) for p in players]
        self.client_seed = str(options.get("client_seed", ""))
        self._seed = server_seed or new_server_seed()
        self.commitment = commitment(self._seed)
        self.state = State(points=dict.fromkeys(self.players, 0))
        self.history: list[State] = []
        self.next_nonce = 1
        self.log: ActionLog | None = None
        self.abandoned = False
        self.closed = False
        self.actions_seen = 0

    edition = EDITION

    @property
    def finished(self) -> bool:
        return self.state.over or self.abandoned

    def ranking(self) -> list[JSON]:
        order = sorted(self.players, key=lambda p: -self.state.points[p])
        return [
            {"player": p, "place": 1 + sum(self.state.points[q] > self.state.points[p]
                                           for q in self.players),
             "score": self.state.points[p]}
            for p in order
        ]  # fmt: skip

    def step(self, action: Any) -> tuple[list[JSON], list[JSON]]:
        """Apply one action (no log): its events and draws."""
        if not isinstance(action, dict) or action.get("do") not in ("draw", "undo"):
            raise PebbleError("unknown action", during="action")
        if self.state.over or self.closed:
            raise PebbleError("the game is over", during=str(action["do"]))
        if action["do"] == "undo":
            if not self.history:
                raise PebbleError("nothing to undo", during="undo")
            self.state = self.history.pop()
            self.actions_seen += 1
            return [{"event": "undo"}], []
        player = self.players[self.state.turn % len(self.players)]
        bag = {"black": 3, **dict.fromkeys(self.players, 1)}
        drawn = draw_cubes(self._seed, self.client_seed, self.next_nonce, bag, self.players, 1)
        draw = {"nonce": self.next_nonce, "reason": "turn", "client_seed": self.client_seed,
                "bag": bag, "count": 1, "drawn": list(drawn)}  # fmt: skip
        self.next_nonce += 1
        self.history.append(copy.deepcopy(self.state))
        if drawn[0] == player:
            self.state.points[player] += 1
        self.state.turn += 1
        self.state.over = self.state.points[player] >= 2
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
        return {
            "edition": EDITION,
            "points": dict(self.state.points),
            "game_over": self.state.over,
            "ranking": self.ranking() if self.state.over else None,
            "server_seed": self._seed if self.finished else None,
        }


# a seed whose game below ends at its last draw (with a fresh seed a game may run long)
SAMPLE_SEED = "2" * 64
SAMPLE = [
    json.dumps(
        {"new": {"edition": EDITION, "players": ["ann", "bob"], "server_seed": SAMPLE_SEED}}
    ),
    '{"do": "draw"}',
    '{"do": "draw"}',
    "# taken back: the draw stays in the log, the next one has a new nonce",
    '{"do": "undo"}',
    *['{"do": "draw"}'] * 3,
]


class PebbleKind:
    name = EDITION
    has_bag = True
    ending = "reveal"
    errors: tuple[type[Exception], ...] = (PebbleError,)

    def new_table(self, options: JSON, server_seed: str | None = None) -> GameTable:
        return PebbleTable(options, server_seed)

    def setup_record(self, table: GameTable) -> JSON:
        assert isinstance(table, PebbleTable)
        return {
            "setup": {"edition": EDITION, "players": table.players,
                      "client_seed": table.client_seed},
            "seats": table.players,
            "commitment": table.commitment,
            "client_seed": table.client_seed,
        }  # fmt: skip

    def rebuild_table(self, record: JSON, server_seed: str | None) -> GameTable:
        return PebbleTable(record["setup"], server_seed)

    def commitment(self, table: GameTable) -> str:
        assert isinstance(table, PebbleTable)
        return table.commitment

    def replay(self, table: GameTable, action: JSON, keep: bool) -> tuple[Any, list[JSON]]:
        assert isinstance(table, PebbleTable)
        return table.step(action)

    def is_over(self, table: GameTable) -> bool:
        assert isinstance(table, PebbleTable)
        return table.state.over

    def refusal(self, error: Exception, during: str | None = None) -> Refusal | None:
        return error if isinstance(error, PebbleError) else None

    def output(self, table: GameTable) -> JSON:
        return table.snapshot()

    def tell_event(self, event: JSON, edition: str) -> str:
        if event["event"] == "drew":
            return f"{event['player']} drew {event['pebble']}"
        return "the last draw was taken back"

    def tell_state(self, out: JSON) -> list[str]:
        points = ", ".join(f"{p} {n}" for p, n in out["points"].items())
        return [f"Pebbles - {'game over' if out['game_over'] else 'playing'}: {points}"]

    def sample_script(self, edition: str) -> list[str]:
        return list(SAMPLE)

    file_errors: tuple[type[Exception], ...] = ()

    charted = False

    def story(self, game_id: int, row: Any, records: list[JSON], setup: Any) -> GameHistory:
        return GameHistory(game_id, EDITION, tuple(row.get("players") or ()), str(row.get(
            "status")), (), None, None, None)  # fmt: skip

    titles = {EDITION: "Pebbles"}

    def english_title(self, edition: str) -> str:
        return "Pebbles"

    def resolve_component(self, edition: str | None, kind: str, name: str) -> Any:
        raise PebbleError("pebbles carry no tags")

    def components(self, edition: str, kinds: Any, sets: Any, party: bool) -> list[Any]:
        return []

    def component_words(self, name: str) -> str:
        return name

    bulk_sets = ()
    bulk_label = "Bulk: every pebble"

    def table_face(self) -> Any:
        from tests.kind_pebbles_face import FACE  # Kivy's: loaded when the app asks

        return FACE

    def phone_face(self) -> None:
        return None  # no page for the phones: they say they cannot show its games


KIND = PebbleKind()
