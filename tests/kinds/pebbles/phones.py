"""What the phones show of a pebbles game (``GameKind.phone_face``): the page's kind-neutral
layout, "lines" (each player's points, one line each, and whose turn it is), the last
draw, and the ranking once the game is over. Replayed from its log without the seed: each
draw is handed the pebble the log recorded for it."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from companion.kinds.pebbles.face import COLOURS, colour_of, label_of
from companion.kinds.pebbles.table import PebbleTable

from companion.i18n import _, ngettext
from companion.kinds.base import JSON, GameTable, LastAction
from companion.store.tags import edition_title


def _last(last: LastAction | None) -> str:
    if last is None:
        return ""
    action, events, _undone = last
    if action.get("do") == "undo":
        return _("Undo: the last draw taken back (it stays in the log)")
    for event in events:
        if event.get("event") == "drew":
            return _("{player} drew {pebble}").format(
                player=label_of(str(event.get("player"))), pebble=label_of(str(event.get("pebble")))
            )
    return ""


def pebbles_view(table: GameTable, state: Mapping[str, Any], last: LastAction | None) -> JSON:
    points: Mapping[str, Mapping[str, int]] = state.get("players") or {}
    players = list(points)
    lines = [
        ngettext("{player}: {n} point", "{player}: {n} points", v["points"]).format(
            player=label_of(p), n=v["points"]
        )
        for p, v in points.items()
    ]
    view: JSON = {
        "title": edition_title(str(state.get("edition") or table.edition)),
        "layout": "lines",
        "pick": "colour" if all(p in COLOURS for p in players) else "name",
        "players": {
            p: {"label": label_of(p), "letter": p[:1].upper(), "colour": colour_of(players, p)}
            for p in players
        },
        "lines": lines,
        "turn": "",
        "last": _last(last),
    }
    if state.get("turn"):
        view["turn"] = _("{player}'s turn").format(player=label_of(str(state["turn"])))
    if state.get("game_over"):
        view["ranking"] = [
            {"player": r["player"], "label": label_of(r["player"]), "score": r["score"],
             "place": r["place"]}
            for r in state.get("ranking") or []
        ]  # fmt: skip
        view["winners"] = list(state.get("winners") or [])
    return view


class PebblePhones:
    """The pebbles kind's ``PhoneFace``."""

    def replay_table(self, record: JSON, draws: Callable[[Any], Sequence[str]]) -> GameTable:
        committed = record["commitment"]
        if not isinstance(committed, str):
            raise TypeError("no commitment")
        return PebbleTable(record["setup"], draws=draws, committed=committed)

    def reveal(self, table: GameTable, seed: str | None) -> None:
        if isinstance(table, PebbleTable):
            table.revealed = seed

    def page_view(
        self, table: GameTable, state: Mapping[str, Any], last: LastAction | None
    ) -> JSON:
        return pebbles_view(table, state, last)

    def roles(self, seats: Sequence[str]) -> dict[str, str]:
        return {p: label_of(colour_of(list(seats), p)) for p in seats}

    def names(self, seats: Sequence[str]) -> dict[str, str]:
        return {p: label_of(p) for p in seats}

    def bgstats_game(self, edition: str) -> tuple[str, int | None]:
        return "Pebbles", None  # no such game at BoardGameGeek: matched by its name


FACE = PebblePhones()
