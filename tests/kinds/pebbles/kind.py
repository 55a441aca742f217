"""The pebbles kind as the shared layers see it (``KIND``): a dragon bag of its own (a
server seed, committed and sealed, and draws), a game ended by the draw that makes two
points, its screens and its phones part in modules loaded when first asked for."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from companion.kinds.pebbles.table import EDITION, PebbleError, PebbleTable

from companion.kinds.base import JSON, GameTable, PhoneFace, TableFace, TagTarget
from companion.msg import Refusal
from companion.story import GameHistory

# a seed whose game below ends at its last draw (with a fresh seed a game may run long)
SAMPLE_SEED = "2" * 64


def sample(edition: str) -> list[str]:
    """A short game of ``edition``, played to its end, as a table script."""
    new = {"edition": edition, "players": ["ann", "bob"], "server_seed": SAMPLE_SEED}
    return [
        json.dumps({"new": new}),
        '{"do": "draw"}',
        '{"do": "draw"}',
        "# taken back: the draw stays in the log, the next one has a new nonce",
        '{"do": "undo"}',
        *['{"do": "draw"}'] * 3,
    ]


def _table(table: GameTable) -> PebbleTable:
    assert isinstance(table, PebbleTable), table
    return table


class PebbleKind:
    name = EDITION
    has_bag = True
    ending = "reveal"
    errors: tuple[type[Exception], ...] = (PebbleError,)
    file_errors: tuple[type[Exception], ...] = ()
    charted = False

    # ------------------------------------------------------------ set-up and replay
    def new_table(self, options: JSON, server_seed: str | None = None) -> GameTable:
        return PebbleTable(options, server_seed)

    def setup_record(self, table: GameTable) -> JSON:
        t = _table(table)
        return {
            "setup": {"edition": t.edition, "players": t.players, "client_seed": t.client_seed},
            "seats": t.players,
            "commitment": t.commitment,
            "client_seed": t.client_seed,
        }

    def rebuild_table(self, record: JSON, server_seed: str | None) -> GameTable:
        return PebbleTable(record["setup"], server_seed)

    def commitment(self, table: GameTable) -> str:
        return _table(table).commitment

    def replay(self, table: GameTable, action: JSON, keep: bool) -> tuple[Any, list[JSON]]:
        return _table(table).step(action)

    def is_over(self, table: GameTable) -> bool:
        return _table(table).state.over

    def refusal(self, error: Exception, during: str | None = None) -> Refusal | None:
        return error if isinstance(error, PebbleError) else None

    def output(self, table: GameTable) -> JSON:
        return table.snapshot()

    # ------------------------------------------------------------ its words
    def tell_event(self, event: JSON, edition: str) -> str:
        if event["event"] == "drew":
            return f"{event['player']} drew {event['pebble']}"
        return "the last draw was taken back"

    def tell_state(self, out: JSON) -> list[str]:
        points = ", ".join(f"{p} {v['points']}" for p, v in out["players"].items())
        return [f"Pebbles - {'game over' if out['game_over'] else 'playing'}: {points}"]

    def sample_script(self, edition: str) -> list[str]:
        return sample(edition)

    def story(
        self, game_id: int, row: Mapping[str, Any], records: list[JSON], setup: Any
    ) -> GameHistory:
        players = tuple(row.get("players") or ())
        status = str(row.get("status"))
        return GameHistory(game_id, str(row.get("edition") or EDITION), players, status, (),
                           None, None, None)  # fmt: skip

    # ------------------------------------------------------------ its box's tags
    titles: Mapping[str, str] = {EDITION: "Pebbles"}

    def english_title(self, edition: str) -> str:
        return "Pebbles"

    def resolve_component(self, edition: str | None, kind: str, name: str) -> TagTarget:
        raise PebbleError("pebbles carry no tags")

    def components(
        self, edition: str, kinds: Iterable[str], sets: Iterable[str], party: bool
    ) -> Sequence[TagTarget]:
        return []

    def component_words(self, name: str) -> str:
        return name

    bulk_sets: tuple[str, ...] = ()
    bulk_label = "Bulk: every pebble"

    # ------------------------------------------------------------ the new game
    player_limits = (2, 4)

    def seats_note(self, count: int) -> str:
        from companion.i18n import _

        return _("Pebbles is for 2 to 4 players") if count > 4 else ""

    def prepare(self, control: Any, edition: str, seats: Sequence[str]) -> None:
        """Started at once: nothing to set up."""
        control.new_game(edition, list(seats))

    def table_face(self) -> TableFace:
        from companion.kinds.pebbles.face import FACE  # Kivy's: loaded when the app asks

        return FACE

    def phone_face(self) -> PhoneFace | None:
        from companion.kinds.pebbles.phones import FACE

        return FACE


KIND = PebbleKind()
