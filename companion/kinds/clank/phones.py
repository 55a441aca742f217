"""What the phones show of a Clank! game (``GameKind.phone_face``): the table replayed
from its log without its seed, and the page's words for one state: whose turn, the odds
in words, the last action, the verdicts. Nothing here is new information: every sentence
is made from the state (the table script's ``replay --json`` output) and the log's last
action.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from companion.i18n import _, colour_letter, ed_, ngettext, player_name
from companion.kinds.base import JSON, GameTable, LastAction
from companion.kinds.clank.rules import DrawRequest, Game, Setup
from companion.kinds.clank.table import Table
from companion.kinds.clank.view import health_lost, next_draw_title, percent
from companion.msg import Msg
from companion.store.tags import edition_title

STAND_IN_SEED = "00" * 32  # never drawn from: every draw comes from the log
# BG Stats' names of the editions, and BoardGameGeek's ids where confirmed (Clank! A
# Deck-Building Adventure: 201808). Clank! Catacombs has none here: nothing in the
# project's sources confirms one, and a wrong id would file the play under another game.
BGSTATS_NAMES = {"clank": "Clank!", "catacombs": "Clank! Catacombs"}
BGG_IDS = {"clank": 201808}

__all__ = ["FACE", "ClankPhones", "SeedlessTable", "odds_words"]


class SeedlessTable(Table):
    """A Clank! table without its seed: the commitment is the log's, the draws come
    from the log, and the server seed is the one the log revealed (None until then),
    shown only once the game is over or abandoned, as a seeded table shows it."""

    def __init__(
        self, setup: Setup, commitment: str, draws: Callable[[DrawRequest], Sequence[str]]
    ) -> None:
        self.setup = setup
        self._server_seed = ""
        self.revealed: str | None = None
        self.commitment = commitment
        self.game = Game(setup, draws)
        self.log = None
        self.abandoned = False
        self.closed = False

    @property
    def server_seed(self) -> str | None:
        return self.revealed if self.finished else None


# ------------------------------------------------------------------ the page's words
def _last_action(last: LastAction | None, edition: str) -> str:
    from companion.kinds.clank.view import describe_action, describe_undo

    if last is None:
        return ""
    action, events, undone = last
    try:
        if action.get("do") == "undo":
            return describe_undo(undone, edition)
        return describe_action(action, events, edition)
    except (KeyError, TypeError, ValueError):
        return str(action.get("do", ""))


def odds_words(damage: list[float], knock_out: float, health: int, edition: str) -> JSON:
    """One player's odds of the next draw, in words: the most likely outcome, the
    knock-out, the health lost on average; ``cells``: (health lost, chance) worth a
    cell, the knock-out last."""
    likely = max(range(len(damage)), key=lambda k: damage[k]) if damage else 0
    chance = percent(damage[likely]) if damage else "0%"
    last = len(damage) - 1
    if likely == last and last > 0:
        headline = _("Most likely knocked out ({chance})").format(chance=chance)
    elif likely == 0:
        headline = _("Most likely unhurt ({chance})").format(chance=chance)
    else:
        headline = ngettext(
            "Most likely {n} damage ({chance})", "Most likely {n} damage ({chance})", likely
        ).format(n=likely, chance=chance)
    expected = sum(k * p for k, p in enumerate(damage))
    if knock_out <= 0:
        ko = _("No risk of a knock-out")
    else:
        ko = _("Knock-out: {chance}").format(chance=percent(knock_out))
    cells = [[k, percent(p)] for k, p in enumerate(damage) if k in (0, last) or p >= 0.005]
    return {
        "headline": headline,
        "knock_out": ko,
        "average": _("On average {n} health lost").format(n=health_lost(expected)),
        "cells": cells,
        "danger": knock_out >= 0.25 or (knock_out > 0 and health <= 2),
    }


def _next_text(odds: Mapping[str, Any] | None, edition: str) -> str:
    if not odds:
        return ""
    reason = str(odds.get("reason", "attack"))
    return next_draw_title(edition, reason, int(odds.get("count", 0)), bool(odds.get("ends_game")))


def _status(p: Mapping[str, Any], edition: str) -> str:
    status = p.get("status")
    if status == "escaped":
        return _("escaped")
    if status == "knocked_out":
        if p.get("in_depths"):
            return ed_(edition, "knocked out in the Depths")
        return _("knocked out")
    if p.get("in_depths"):
        return ed_(edition, "in the Depths")
    return ""


def _ranking(state: Mapping[str, Any]) -> list[JSON]:
    out: list[JSON] = []
    for r in state.get("ranking") or []:
        out.append(
            {
                "player": r["player"],
                "label": player_name(r["player"], capital=True),
                "score": r["score"],
                "place": r.get("place", len(out) + 1),
            }
        )
    return out


def _end_words(reason: Any, edition: str) -> str:
    if not isinstance(reason, str) or not reason:
        return ""
    return Msg(reason).localized(edition)  # the rules' reasons are in the catalogs


def _bag(table: GameTable, state: Mapping[str, Any]) -> list[str]:
    """The cubes the page shows in the bag: the ghosts only in an edition that has them."""
    ghosts = True
    if isinstance(table, Table):
        ghosts = table.setup.catalog.edition.ghost_cubes > 0
    return [k for k in state.get("bag", {}) if k != "ghost" or ghosts]


def clank_view(table: GameTable, state: Mapping[str, Any], last: LastAction | None) -> JSON:
    edition = str(state["edition"])
    odds = state.get("odds")
    odds_players = (odds or {}).get("players", {})
    players = {}
    for name, p in state["players"].items():
        entry: JSON = {
            "label": player_name(name, capital=True),
            "letter": colour_letter(name),
            "status": _status(p, edition),
        }
        if name in odds_players:
            o = odds_players[name]
            entry["odds"] = odds_words(o["damage"], o["knock_out"], p["health"], edition)
        players[name] = entry
    turn = state["turn"]
    view: JSON = {
        "title": edition_title(edition),
        "layout": "dragon",
        "pick": "colour",
        "area": ed_(edition, "Cubes in the Clank! area"),
        "health": ed_(edition, "health"),
        "rage": ed_(edition, "Rage"),
        "turn": _("Turn {number} · {player} plays").format(
            number=turn["number"], player=player_name(turn["active"], capital=True)
        ),
        "next": _next_text(odds, edition),
        "last": _last_action(last, edition),
        "players": players,
        "bag": _bag(table, state),
        "bag_labels": {k: player_name(k, capital=True) for k in state.get("bag", {})},
    }
    if state.get("game_over"):
        view["end"] = _end_words(state.get("end_reason"), edition)
        ranking = _ranking(state)
        view["ranking"] = ranking
        view["winners"] = [
            r["player"]
            for r in ranking
            if r["place"] == 1 and r["score"] > 0  # a first place scoring nothing wins nothing
        ]
    return view


class ClankPhones:
    """The Clank! kind's ``PhoneFace``."""

    def replay_table(self, record: JSON, draws: Callable[[Any], Sequence[str]]) -> GameTable:
        from companion.kinds.clank.kind import KIND

        # set up again as the kind makes it from its record (a stand-in seed: the real
        # one is not the phones' to read), then played with the log's own draws
        seeded = KIND.rebuild_table(record, STAND_IN_SEED)
        assert isinstance(seeded, Table), seeded
        commitment = record["commitment"]
        if not isinstance(commitment, str):
            raise TypeError("no commitment")
        return SeedlessTable(seeded.setup, commitment, draws)

    def reveal(self, table: GameTable, seed: str | None) -> None:
        if isinstance(table, SeedlessTable):
            table.revealed = seed

    def page_view(
        self, table: GameTable, state: Mapping[str, Any], last: LastAction | None
    ) -> JSON:
        return clank_view(table, state, last)

    def roles(self, seats: Sequence[str]) -> dict[str, str]:
        return {p: player_name(p, capital=True) for p in seats}  # a player is a colour

    def names(self, seats: Sequence[str]) -> dict[str, str]:
        return self.roles(seats)

    def bgstats_game(self, edition: str) -> tuple[str, int | None]:
        return BGSTATS_NAMES.get(edition, edition), BGG_IDS.get(edition)


FACE = ClankPhones()
