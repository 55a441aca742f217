"""A Clank! game told as data (companion.story) by replaying its log through the rules.

A record that cannot be read, or that the rules refuse on replay, is skipped and the
replay goes on (the audit's ``verify`` is where damage is named).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from companion.history import cubes
from companion.kinds.clank.rules import DrawRequest, Game, RuleError, make_setup
from companion.kinds.clank.rules.scoring import ranking as rank_scores
from companion.store.log import undone_actions
from companion.story import GameHistory, Point


class _OffRecord(Exception):
    """The replay asked for a draw the record does not hold."""


class _RecordedChance:
    """The chance source of a replay: the cubes the log recorded, in order."""

    def __init__(self) -> None:
        self.pending: list[list[str] | None] = []

    def load(self, draws: Any) -> None:
        items = draws if isinstance(draws, list) else []
        self.pending = [cubes(d.get("drawn")) if isinstance(d, dict) else None for d in items]

    def __call__(self, request: DrawRequest) -> Sequence[str]:
        if not self.pending:
            raise _OffRecord
        drawn = self.pending.pop(0)
        if drawn is None:
            raise _OffRecord
        return drawn  # the rules check it against the bag


def _point(game: Game, step: int, attack: tuple[str, ...] | None, out: tuple[str, ...]) -> Point:
    s = game.state
    return Point(
        step=step,
        turn=s.turn,
        active=s.seats[s.active],
        clank={name: s.area.get(name, 0) for name in s.seats},
        damage={name: s.players[name].damage for name in s.seats},
        rage=s.rage + 1,
        attack=attack,
        knocked_out=out,
    )


def story(
    game_id: int, row: Mapping[str, Any], records: list[dict[str, Any]], options: Any
) -> GameHistory:
    """A Clank! game told from its log: the set-up ``options`` of its ``new`` record (None:
    damaged), then every action that no later undo took back, with the cubes the log
    recorded for it (no seed needed)."""
    kinds = {rec.get("kind") for rec in records}
    players = tuple(p for p in row.get("players") or () if isinstance(p, str))
    edition = row.get("edition") if isinstance(row.get("edition"), str) else ""
    game: Game | None = None
    chance = _RecordedChance()
    if options is not None:
        try:
            game = Game(make_setup(options), chance)
        except Exception:  # a damaged set-up: the story cannot be told
            game = None
    points: list[Point] = []
    start = None
    if game is not None:
        players, edition = game.setup.players, game.setup.edition
        start = _point(game, 0, None, ())
        try:
            undone = undone_actions(records)
        except Exception:
            undone = set()
        for rec in records:
            body = rec.get("body")
            if rec.get("kind") != "action" or not isinstance(body, dict):
                continue
            action = body.get("action")
            if rec.get("seq") in undone or not isinstance(action, dict):
                continue
            if action.get("do") == "undo":
                continue  # what it took back is not replayed at all
            chance.load(body.get("draws"))
            was_over = game.state.game_over
            mark = game.mark()
            try:
                events = game.apply(action)
            except RuleError:
                continue  # refused, and nothing changed
            except Exception:
                game.rollback(mark)
                continue
            if chance.pending:  # the record holds draws that the rules did not make
                game.rollback(mark)
                continue
            if was_over:
                continue  # a deck scanned for scoring
            made = game.draws[mark.draws_len :]
            attack = tuple(c for d in made for c in d.drawn) if made else None
            out = tuple(
                dict.fromkeys(
                    e["player"]
                    for e in events
                    if e.get("event") == "knocked_out" and isinstance(e.get("player"), str)
                )
            )
            points.append(_point(game, len(points) + 1, attack, out))
    over = game is not None and game.state.game_over
    if "abandon" in kinds:
        status = "abandoned"
    elif "reveal" in kinds or over:
        status = "over"
    else:
        status = "playing"
    scores = totals = qualifies = places = None
    ranked = None
    if game is not None and over:
        results = game.scores()
        scores = {name: dict(results[name].parts) for name in game.state.seats}
        totals = {name: results[name].total for name in game.state.seats}
        qualifies = {name: results[name].qualifies for name in game.state.seats}
        order = rank_scores(results, game.state)
        ranked = tuple((r["player"], r["score"]) for r in order)
        places = {r["player"]: r["place"] for r in order}
    history = GameHistory(
        game=game_id,
        edition=edition or "",
        players=tuple(players),
        status=status,
        points=tuple(points),
        scores=scores,
        totals=totals,
        ranking=ranked,
        qualifies=qualifies,
        places=places,
        start=start,
        end_reason=(game.state.end_reason or None) if over and game is not None else None,
    )
    return history
