"""What the phones show of a Tschak! game (``GameKind.phone_face``): its tower, the
floors played and who took what, and the scores once the game is over. Collected cards
lie face down (its rules, T-F4), so the page shows no score while the game runs. With no
dragon bag the table is replayed from its log as it was set up: there is no seed to keep
from the phones.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from companion.i18n import _, player_name
from companion.kinds.base import JSON, GameTable, LastAction
from companion.store.tags import edition_title

COLOURS = ("red", "yellow", "green", "blue", "purple", "orange")  # each seat's, in turn
BGSTATS_NAME = "Tschak!"  # no BoardGameGeek id is confirmed: BG Stats matches the name


def colour(players: Sequence[str], player: str) -> str:
    """The colour of a player's panel and chip: their seat's."""
    index = list(players).index(player) if player in players else 0
    return COLOURS[index % len(COLOURS)]


def _card(notation: Any) -> str:
    if not isinstance(notation, str):
        return ""
    try:
        from companion.kinds.tschak.words import card_words

        return card_words(notation)
    except Exception:  # a card the words do not know: its notation
        return notation


def _floor_words(table: GameTable, index: int, record: Mapping[str, Any]) -> JSON:
    players = list(record.get("strength", {}))
    takes = {}
    for what in ("treasure", "monster"):
        part = record.get(what) or {}
        if part.get("to"):
            takes[part["to"]] = _("takes {card}").format(card=_card(part.get("card")))
    out: JSON = {
        "title": _("Tower {tower} · floor {floor}").format(
            tower=record.get("tower"), floor=record.get("floor")
        ),
        "teams": [
            {
                "player": p,
                "strength": record["strength"][p],
                "takes": takes.get(p, _("takes nothing")),
            }
            for p in players
        ],
        "reasons": [str(record.get("why", ""))],
    }
    try:  # the verdict with its reasons, as the table's screen words it
        from companion.kinds.tschak.verdicts import floor_verdict

        verdict = floor_verdict(table.game, index)  # type: ignore[attr-defined]
        out["reasons"] = list(verdict.reasons)
        out["teams"] = [
            {"player": t.player, "strength": t.strength, "takes": t.takes_text}
            for t in verdict.teams
        ]
    except Exception:  # the rules' own English line stays
        pass
    return out


def _ranking(state: Mapping[str, Any]) -> list[JSON]:
    out: list[JSON] = []
    for r in state.get("ranking") or []:
        out.append(
            {
                "player": r["player"],
                "label": str(r["player"]),
                "score": r["score"],
                "place": r.get("place", len(out) + 1),
            }
        )
    return out


def tschak_view(table: GameTable, state: Mapping[str, Any], last: LastAction | None) -> JSON:
    players = list(state.get("players", {}))
    floors = state.get("floors") or []
    towers = state.get("towers") or []
    tower_cards = []
    if towers:
        current = towers[-1]
        done = {f.get("floor") for f in floors if f.get("tower") == current.get("tower")}
        for i, (monster, treasure) in enumerate(
            zip(current.get("monsters", []), current.get("treasures", []), strict=False)
        ):
            tower_cards.append(
                {
                    "floor": i + 1,
                    "monster": _card(monster),
                    "treasure": _card(treasure),
                    "done": i + 1 in done,
                }
            )
    view: JSON = {
        "title": edition_title(str(state.get("edition") or table.edition)),
        "layout": "towers",
        "pick": "name",
        "players": {
            p: {"label": p, "letter": p[:1].upper(), "colour": colour(players, p)} for p in players
        },
        "tower_cards": tower_cards,
        "floors": [_floor_words(table, i, f) for i, f in enumerate(floors)][::-1],
        "last": "",
    }
    if view["floors"]:
        first = view["floors"][0]
        view["last"] = first["title"] + (": " + first["reasons"][0] if first["reasons"] else "")
    if state.get("game_over"):
        view["ranking"] = _ranking(state)
        view["winners"] = list(state.get("winners") or [])
    return view


class TschakPhones:
    """The Tschak! kind's ``PhoneFace``."""

    def replay_table(self, record: JSON, draws: Callable[[Any], Sequence[str]]) -> GameTable:
        from companion.kinds.tschak.kind import KIND

        return KIND.rebuild_table(record, None)  # no bag: nothing is drawn

    def reveal(self, table: GameTable, seed: str | None) -> None:
        return None  # no bag, no seed

    def page_view(
        self, table: GameTable, state: Mapping[str, Any], last: LastAction | None
    ) -> JSON:
        return tschak_view(table, state, last)

    def roles(self, seats: Sequence[str]) -> dict[str, str]:
        return {p: player_name(colour(seats, p), capital=True) for p in seats}

    def names(self, seats: Sequence[str]) -> dict[str, str]:
        return {p: p for p in seats}  # the players are named at the table

    def bgstats_game(self, edition: str) -> tuple[str, int | None]:
        return BGSTATS_NAME, None


FACE = TschakPhones()
