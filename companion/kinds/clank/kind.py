"""The Clank! kind as the shared layers see it: the base game and Catacombs.

Its rules are ``rules/``, its catalog ``catalog/``, its table (the fair draw wired in)
``table``; this module is what the shared layers see of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from companion.kinds.base import JSON, GameTable, KindModules, PhoneFace, TableFace
from companion.kinds.clank.catalog import CatalogError
from companion.kinds.clank.rules import RuleError, make_setup
from companion.kinds.clank.rules.setup import as_listed
from companion.kinds.clank.table import Table, draw_record
from companion.msg import Refusal

# a short game of each edition to its end, from the examples the guide shows
SAMPLES = {"clank": "clank-2-players-short.jsonl", "catacombs": "catacombs-3-players.jsonl"}


def _table(table: GameTable) -> Table:
    assert isinstance(table, Table), table  # a Clank! game's table, made by this kind
    return table


class ClankKind(KindModules):
    # its story and its tags, in modules of its own (imported when first asked for)
    story_module = "companion.kinds.clank.story"
    tags_module = "companion.kinds.clank.tags"

    name = "clank"
    has_bag = True
    ending = "reveal"
    errors: tuple[type[Exception], ...] = (RuleError,)

    def new_table(self, options: JSON, server_seed: str | None = None) -> GameTable:
        if server_seed is not None:
            options = {**options, "server_seed": server_seed}
        return Table.from_options(options)  # checks the seed

    def setup_record(self, table: GameTable) -> JSON:
        t = _table(table)
        setup = t.setup
        return {
            "setup": setup.as_dict(),
            "seats": list(setup.players),
            "commitment": t.commitment,
            "client_seed": setup.client_seed,
            # the numbers no rulebook prints that the game plays with: the set-up above
            # writes out the edition's own values too, which read back as corrections
            "unconfirmed": list(setup.unconfirmed),
        }

    def rebuild_table(self, record: JSON, server_seed: str | None) -> GameTable:
        setup = make_setup(record["setup"])
        unconfirmed = record.get("unconfirmed")
        if isinstance(unconfirmed, list) and all(isinstance(u, str) for u in unconfirmed):
            setup = replace(setup, unconfirmed=tuple(unconfirmed))
        else:  # a log written before it kept them: the edition's own numbers listed
            setup = as_listed(setup)
        return Table(setup, server_seed)

    def commitment(self, table: GameTable) -> str:
        return _table(table).commitment

    def replay(self, table: GameTable, action: JSON, keep: bool) -> tuple[Any, list[JSON]]:
        game = _table(table).game
        mark = len(game.draws)
        events = game.apply(action, keep_before=keep)
        return events, [draw_record(d) for d in game.draws[mark:]]

    def is_over(self, table: GameTable) -> bool:
        return _table(table).game.state.game_over

    def refusal(self, error: Exception, during: str | None = None) -> Refusal | None:
        return error if isinstance(error, RuleError) else None

    def output(self, table: GameTable) -> JSON:
        from companion.kinds.clank.rules.odds import next_attack_odds, odds_json

        t = _table(table)
        out = t.snapshot()
        odds = next_attack_odds(t.game)
        if odds is not None:  # what the next dragon draw would do (ends_game too)
            out["odds"] = odds_json(odds)
        return out

    def tell_event(self, event: JSON, edition: str) -> str:
        from companion.kinds.clank.telling import tell_event

        return tell_event(event, edition)

    def tell_state(self, out: JSON) -> list[str]:
        from companion.kinds.clank.telling import tell_state

        return tell_state(out)

    def sample_script(self, edition: str) -> list[str]:
        from companion.resources import shared_folder

        name = SAMPLES.get(edition, SAMPLES["clank"])
        return (shared_folder("examples") / name).read_text(encoding="utf-8").splitlines()

    file_errors: tuple[type[Exception], ...] = (CatalogError,)  # its catalog's files

    charted = True

    # its editions' own words (gettext contexts: the two rulebooks name things differently)
    word_contexts = ("clank", "catacombs")

    # 2 to 4 players; 5 or 6 with the Adventuring Party
    player_limits = (2, 6)

    def seats_note(self, count: int) -> str:
        from companion.i18n import _

        return _("5-6 players play with the Adventuring Party") if count > 4 else ""

    def prepare(self, control: Any, edition: str, seats: Sequence[str]) -> None:
        """The game starts at once (its opening row and client seed come next)."""
        options: JSON = {"edition": edition, "players": list(seats)}
        if len(seats) > 4:
            options["party"] = True
        control.new_game(options)

    def table_face(self) -> TableFace:
        from companion.kinds.clank.face import FACE

        return FACE

    def phone_face(self) -> PhoneFace:
        from companion.kinds.clank.phones import FACE

        return FACE


KIND = ClankKind()
