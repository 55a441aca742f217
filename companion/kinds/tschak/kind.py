"""The Tschak! kind as the shared layers see it: no dragon bag, so no seed and no draw;
a game ends with an ``end`` record. Its rules are loaded when a Tschak! game is first
played (a Clank! table never loads them)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from companion.kinds.base import JSON, GameTable, KindModules, PhoneFace, TableFace
from companion.msg import Refusal


def _errors() -> tuple[type[Exception], ...]:
    from companion.kinds.tschak.rules import TschakError

    return (TschakError,)


class TschakKind(KindModules):
    # its story and its tags, in modules of its own (imported when first asked for)
    story_module = "companion.kinds.tschak.story"
    tags_module = "companion.kinds.tschak.tags"

    name = "tschak"
    has_bag = False
    ending = "end"

    @property
    def errors(self) -> tuple[type[Exception], ...]:
        return _errors()

    def new_table(self, options: JSON, server_seed: str | None = None) -> GameTable:
        from companion.kinds.tschak.table import TschakTable

        return TschakTable(options)

    def setup_record(self, table: GameTable) -> JSON:
        setup: JSON = table.setup  # type: ignore[attr-defined]
        return {
            "setup": setup,
            "seats": setup["players"],
            "commitment": "",  # no dragon bag: nothing to commit to
            "client_seed": "",
        }

    def rebuild_table(self, record: JSON, server_seed: str | None) -> GameTable:
        setup = record["setup"]
        from companion.kinds.tschak.table import TschakTable

        return TschakTable(setup)

    def commitment(self, table: GameTable) -> str:
        return ""

    def replay(self, table: GameTable, action: JSON, keep: bool) -> tuple[Any, list[JSON]]:
        events = table.apply(action)  # no log attached while replaying
        return json.loads(json.dumps(events)), []  # as the log reads it back

    def is_over(self, table: GameTable) -> bool:
        over: bool = table.game.game_over  # type: ignore[attr-defined]
        return over

    def refusal(self, error: Exception, during: str | None = None) -> Refusal | None:
        from companion.kinds.tschak.rules import TschakError
        from companion.kinds.tschak.table import tschak_refusal

        return tschak_refusal(error, during) if isinstance(error, TschakError) else None

    def output(self, table: GameTable) -> JSON:
        return table.snapshot()

    def tell_event(self, event: JSON, edition: str) -> str:
        from companion.kinds.tschak.telling import tell_event

        return tell_event(event)

    def tell_state(self, out: JSON) -> list[str]:
        from companion.kinds.tschak.telling import tell_state

        return tell_state(out)

    def sample_script(self, edition: str) -> list[str]:
        from companion.resources import shared_folder

        path = shared_folder("examples") / "tschak-2-players.jsonl"  # one the guide shows
        return path.read_text(encoding="utf-8").splitlines()

    # a card catalog that cannot be used is one of its rules' ``errors``
    file_errors: tuple[type[Exception], ...] = ()

    charted = False

    player_limits = (2, 4)

    def seats_note(self, count: int) -> str:
        from companion.i18n import _

        return _("Tschak! is for 2 to 4 players") if count > 4 else ""

    def prepare(self, control: Any, edition: str, seats: Sequence[str]) -> None:
        """Its set-up first: the settings, the card catalog."""
        control.prepare(list(seats))

    def table_face(self) -> TableFace:
        from companion.kinds.tschak.face import FACE

        return FACE

    def phone_face(self) -> PhoneFace:
        from companion.kinds.tschak.phones import FACE

        return FACE


KIND = TschakKind()
