"""A Clank! game told as data (companion.story) by replaying its log through the rules.

Each point is a ``ClankPoint``: the tallies and the level the charts read by name (the
cubes in the Clank! area, the damage, the rage track), marked where the dragon drew, and
what the dragon drew and knocked out.

A record that cannot be read, or that the rules refuse on replay, is skipped and the
replay goes on (the audit's ``verify`` is where damage is named).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
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


# what a Clank! point measures, as the charts ask for it by name
NOISE = "noise"  # each player's cubes in the Clank! area
DAMAGE = "damage"  # each player's damage taken so far
RAGE = "rage"  # the rage track's space, 1-based


@dataclass(frozen=True)
class ClankPoint(Point):
    """A Clank! point: the cubes in the Clank! area and the damage per player, the rage
    track, and what the dragon did in this step (marked when it drew)."""

    attack: tuple[str, ...] | None = None  # the cubes the dragon drew (None: no draw)
    knocked_out: tuple[str, ...] = ()  # players knocked out in this step

    @property
    def clank(self) -> Mapping[str, int]:
        return self.tallies.get(NOISE, {})

    @property
    def damage(self) -> Mapping[str, int]:
        return self.tallies.get(DAMAGE, {})

    @property
    def rage(self) -> int:
        return self.levels.get(RAGE, 1)


def _point(
    game: Game, step: int, attack: tuple[str, ...] | None, out: tuple[str, ...]
) -> ClankPoint:
    s = game.state
    return ClankPoint(
        step=step,
        turn=s.turn,
        active=s.seats[s.active],
        tallies={
            NOISE: {name: s.area.get(name, 0) for name in s.seats},
            DAMAGE: {name: s.players[name].damage for name in s.seats},
        },
        levels={RAGE: s.rage + 1},
        marked=bool(attack),  # as the charts mark it: the dragon drew cubes
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
    points: list[ClankPoint] = []
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
