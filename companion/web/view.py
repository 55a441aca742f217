"""What the phone page says about one state of a game, in the table's language: whose
turn, the odds in words, the last action, the verdicts. Sent beside the state (the
table script's output, which stays exactly as ``replay --json`` gives it) as ``view``.

Nothing here is new information: every sentence is made from the state and the log's
last action. Collected Tschak! cards lie face down (its rules, T-F4): the page shows
the floors and who took what, and the scores only once the game is over.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from companion.i18n import (
    _,
    colour_letter,
    ed_,
    ngettext,
    player_name,
)
from companion.kinds.clank.table import TSCHAK
from companion.kinds.clank.view import health_lost, next_draw_title, percent
from companion.msg import Msg
from companion.store.tags import edition_title

if TYPE_CHECKING:
    from companion.web.reader import ReplayedGame

TSCHAK_COLOURS = ("red", "yellow", "green", "blue", "purple", "orange")  # by seat


def page_view(game: ReplayedGame, state: Mapping[str, Any]) -> dict[str, Any]:
    edition = str(state.get("edition", ""))
    if edition == TSCHAK:
        return tschak_view(game, state)
    return clank_view(game, state)


# ------------------------------------------------------------------ Clank!
def _last_action(game: ReplayedGame, edition: str) -> str:
    from companion.kinds.clank.view import describe_action, describe_undo

    if game.last is None:
        return ""
    action, events, undone = game.last
    try:
        if action.get("do") == "undo":
            return describe_undo(undone, edition)
        return describe_action(action, events, edition)
    except (KeyError, TypeError, ValueError):
        return str(action.get("do", ""))


def odds_words(damage: list[float], knock_out: float, health: int, edition: str) -> dict[str, Any]:
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


def _ranking(state: Mapping[str, Any], label: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for r in state.get("ranking") or []:
        out.append(
            {
                "player": r["player"],
                "label": label(r["player"]),
                "score": r["score"],
                "place": r.get("place", len(out) + 1),
            }
        )
    return out


def clank_view(game: ReplayedGame, state: Mapping[str, Any]) -> dict[str, Any]:
    edition = str(state["edition"])
    odds = state.get("odds")
    odds_players = (odds or {}).get("players", {})
    players = {}
    for name, p in state["players"].items():
        entry: dict[str, Any] = {
            "label": player_name(name, capital=True),
            "letter": colour_letter(name),
            "status": _status(p, edition),
        }
        if name in odds_players:
            o = odds_players[name]
            entry["odds"] = odds_words(o["damage"], o["knock_out"], p["health"], edition)
        players[name] = entry
    turn = state["turn"]
    over = bool(state.get("game_over"))
    view: dict[str, Any] = {
        "title": edition_title(edition),
        "area": ed_(edition, "Cubes in the Clank! area"),
        "health": ed_(edition, "health"),
        "rage": ed_(edition, "Rage"),
        "turn": _("Turn {number} · {player} plays").format(
            number=turn["number"], player=player_name(turn["active"], capital=True)
        ),
        "next": _next_text(odds, edition),
        "last": _last_action(game, edition),
        "players": players,
        "bag_labels": {k: player_name(k, capital=True) for k in state.get("bag", {})},
    }
    if over:
        view["end"] = _end_words(state.get("end_reason"), edition)
        ranking = _ranking(state, lambda n: player_name(n, capital=True))
        view["ranking"] = ranking
        view["winners"] = [
            r["player"]
            for r in ranking
            if r["place"] == 1 and r["score"] > 0  # a first place scoring nothing wins nothing
        ]
    return view


def _end_words(reason: Any, edition: str) -> str:
    if not isinstance(reason, str) or not reason:
        return ""
    return Msg(reason).localized(edition)  # the rules' reasons are in the catalogs


# ------------------------------------------------------------------ Tschak!
def _card(notation: Any) -> str:
    if not isinstance(notation, str):
        return ""
    try:
        from companion.kinds.tschak.words import card_words

        return card_words(notation)
    except Exception:  # a card the words do not know: its notation
        return notation


def tschak_colour(players: list[str], player: str) -> str:
    index = players.index(player) if player in players else 0
    return TSCHAK_COLOURS[index % len(TSCHAK_COLOURS)]


def _floor_words(game: ReplayedGame, index: int, record: Mapping[str, Any]) -> dict[str, Any]:
    players = list(record.get("strength", {}))
    takes = {}
    for what in ("treasure", "monster"):
        part = record.get(what) or {}
        if part.get("to"):
            takes[part["to"]] = _("takes {card}").format(card=_card(part.get("card")))
    out: dict[str, Any] = {
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

        verdict = floor_verdict(game.table.game, index)  # type: ignore[union-attr]
        out["reasons"] = list(verdict.reasons)
        out["teams"] = [
            {"player": t.player, "strength": t.strength, "takes": t.takes_text}
            for t in verdict.teams
        ]
    except Exception:  # the rules' own English line stays
        pass
    return out


def tschak_view(game: ReplayedGame, state: Mapping[str, Any]) -> dict[str, Any]:
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
    view: dict[str, Any] = {
        "title": edition_title(TSCHAK),
        "players": {
            p: {"label": p, "letter": p[:1].upper(), "colour": tschak_colour(players, p)}
            for p in players
        },
        "tower_cards": tower_cards,
        "floors": [_floor_words(game, i, f) for i, f in enumerate(floors)][::-1],
        "last": "",
    }
    if view["floors"]:
        first = view["floors"][0]
        view["last"] = first["title"] + (": " + first["reasons"][0] if first["reasons"] else "")
    if state.get("game_over"):
        ranking = _ranking(state, str)
        view["ranking"] = ranking
        view["winners"] = list(state.get("winners") or [])
    return view
