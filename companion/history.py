"""Each game told as data, and statistics across games: what the history screens chart.

Pure: no Kivy, no words. Everything here is codes and numbers (colours, seat numbers,
score part names as the rules give them); the screens choose the words.

A game's story is rebuilt by replaying its log through the rules: the set-up from the
``new`` record, then every action that no later undo took back, with a chance source
that hands back the cubes the log recorded for that action. No seed is needed: the log
holds every draw. A record that cannot be read, or that the rules refuse on replay, is
skipped and the replay goes on (the audit's ``verify`` is where damage is named).
"""

from __future__ import annotations

import csv
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import IO, Any

from companion.kinds import kind_for
from companion.msg import N_, Refusal
from companion.store.log import GameStore, undone_actions
from companion.store.tags import safe_cell
from companion.story import GameHistory, Point

# the game told as data lives in companion.story (the kinds tell their games in it)
__all__ = [
    "Fairness",
    "GameHistory",
    "NoResults",
    "Point",
    "Record",
    "cubes",
    "fairness",
    "game_history",
    "record",
    "results_csv",
]

STATUSES = ("playing", "over", "abandoned")


def cubes(value: Any) -> list[str] | None:
    """A recorded draw's cubes, if they are a list of names."""
    if isinstance(value, list) and all(isinstance(c, str) for c in value):
        return list(value)
    return None


def _replay(game_id: int, row: Mapping[str, Any], records: list[dict[str, Any]]) -> GameHistory:
    """A game told by its kind from its log (the kind of its ``new`` record's set-up)."""
    options = _setup_of(records)
    return kind_for(options).story(game_id, row, records, options)


def _setup_of(records: list[dict[str, Any]]) -> dict[str, Any] | None:
    for rec in records:
        body = rec.get("body")
        if rec.get("kind") == "new" and isinstance(body, dict):
            setup = body.get("setup")
            return setup if isinstance(setup, dict) else None
    return None


def game_history(store: GameStore, game: int) -> GameHistory:
    """A game of the store as data (StoreError: no such game, or the database is too
    damaged to read)."""
    row = store.game_row(game)
    history = _replay(game, row, list(store.records(game)))
    return history


# ------------------------------------------------------------------ fairness
@dataclass(frozen=True)
class Fairness:
    """Were the dragon's draws fair? Observed against expected cubes, per category.

    Categories: "black", "ghost", and the players' cubes by seat ("seat1", "seat2", ...:
    colours differ between games, seats do not). Each draw of n cubes from a bag holding
    K_c of N cubes expects n * K_c / N of category c (exact, also without replacement).

    ``chi_square`` is Pearson's statistic over the categories expected at all, with
    ``df`` = their number - 1, and ``p_value`` its chi-square tail. The statistic treats
    the cubes as multinomial draws with the pooled proportions; the real draws are
    without replacement, from bags that differ from draw to draw, and both make the true
    spread of the counts a little smaller than the multinomial's: the test is slightly
    conservative (a small p-value is still a real warning; a large one proves little).
    With few cubes expected per category the chi-square approximation itself is rough.
    """

    draws: int  # draws counted (undone ones excluded; abandoned games included)
    cubes: int
    observed: Mapping[str, int]
    expected: Mapping[str, float]
    chi_square: float
    df: int
    p_value: float


def _category(kind: str, seats: Sequence[str]) -> str | None:
    if kind in ("black", "ghost"):
        return kind
    if kind in seats:
        return f"seat{seats.index(kind) + 1}"
    return None


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _tally(draw: Any, seats: Sequence[str]) -> tuple[dict[str, int], dict[str, int]] | None:
    """(bag, drawn) of one recorded draw by category; None: a draw that does not hold
    together (a damaged record)."""
    if not isinstance(draw, dict) or not isinstance(draw.get("bag"), dict):
        return None
    drawn = cubes(draw.get("drawn"))
    if drawn is None:
        return None
    bag: dict[str, int] = {}
    left: dict[str, int] = {}
    for kind, n in draw["bag"].items():
        if not _whole(n) or n < 0:
            return None
        if n == 0:
            continue
        category = _category(kind, seats) if isinstance(kind, str) else None
        if category is None:
            return None
        bag[category] = bag.get(category, 0) + n
        left[kind] = n
    count = draw.get("count", len(drawn))
    if not _whole(count) or len(drawn) != min(max(count, 0), sum(bag.values())):
        return None
    got: dict[str, int] = {}
    for cube in drawn:
        if left.get(cube, 0) < 1:
            return None
        left[cube] -= 1
        category = _category(cube, seats)
        assert category is not None
        got[category] = got.get(category, 0) + 1
    return bag, got


def _order(category: str) -> tuple[int, int]:
    if category == "black":
        return (0, 0)
    if category == "ghost":
        return (2, 0)
    return (1, int(category[4:]))


def fairness(
    store: GameStore, games: Iterable[int] | None = None, *, include_undone: bool = False
) -> Fairness:
    """The draws of ``games`` (all the store's games when None) against the bags they
    were drawn from; draws of abandoned and running games count. Undone draws are left
    out (they were taken back, and the next draw came from the same bag).

    ``include_undone``: count them too. The draws that stood are what the table played;
    but a table may undo the draws it dislikes and draw again, which biases them. Every
    draw the fair draw ever made, undone or not, is the test of the draw itself."""
    ids = [row["id"] for row in store.games()] if games is None else list(games)
    observed: dict[str, int] = {}
    expected: dict[str, float] = {}
    draws = cubes = 0
    for game in ids:
        records = list(store.records(game))
        options = _setup_of(records)
        seats = options.get("players") if options is not None else None
        if not isinstance(seats, list) or not all(isinstance(s, str) for s in seats):
            continue  # nobody can say whose cubes were drawn
        undone = set() if include_undone else undone_actions(records)
        for rec in records:
            body = rec.get("body")
            if rec.get("kind") != "action" or not isinstance(body, dict):
                continue
            if rec.get("seq") in undone or not isinstance(body.get("draws"), list):
                continue
            for draw in body["draws"]:
                tallied = _tally(draw, seats)
                if tallied is None:
                    continue
                bag, got = tallied
                size = sum(bag.values())
                n = sum(got.values())
                draws += 1
                cubes += n
                for category, k in bag.items():
                    observed[category] = observed.get(category, 0) + got.get(category, 0)
                    expected[category] = expected.get(category, 0.0) + n * k / size
    order = sorted(observed, key=_order)
    observed = {c: observed[c] for c in order}
    expected = {c: expected[c] for c in order}
    used = [c for c in order if expected[c] > 0]
    statistic = sum((observed[c] - expected[c]) ** 2 / expected[c] for c in used)
    df = max(len(used) - 1, 0)
    if df == 0:
        statistic = 0.0
    return Fairness(
        draws=draws,
        cubes=cubes,
        observed=observed,
        expected=expected,
        chi_square=statistic,
        df=df,
        p_value=chi_square_sf(statistic, df),
    )


def chi_square_sf(x: float, df: int) -> float:
    """P(X >= x) for X chi-square with ``df`` degrees of freedom: Q(df/2, x/2), the
    regularized upper incomplete gamma function. No test (df 0) or x <= 0: 1."""
    if df <= 0 or not x > 0:
        return 1.0
    if math.isinf(x):
        return 0.0
    return min(1.0, max(0.0, _gamma_q(df / 2, x / 2)))


def _gamma_q(a: float, x: float) -> float:
    """Q(a, x) = Γ(a, x) / Γ(a): the series for P below a + 1, else Lentz's continued
    fraction for Q (Numerical Recipes, 6.2)."""
    front = math.exp(-x + a * math.log(x) - math.lgamma(a))
    if x < a + 1:
        term = total = 1.0 / a
        ap = a
        for _ in range(10_000):
            ap += 1
            term *= x / ap
            total += term
            if abs(term) < abs(total) * 1e-16:
                break
        return 1.0 - total * front
    tiny = 1e-300
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-16:
            break
    return front * h


# ------------------------------------------------------------------ the record
@dataclass(frozen=True)
class Record:
    """Across all finished games: wins, games played and average score, by colour and by
    seat (1-based). A shared first place is a win for each who shares it; a first place
    that scores nothing is none (everybody knocked out without an artifact, or in the
    Depths: the rules rank them all first, with 0)."""

    games: int
    wins_by_colour: Mapping[str, int]
    wins_by_seat: Mapping[int, int]
    played_by_colour: Mapping[str, int]
    played_by_seat: Mapping[int, int]
    average_score_by_colour: Mapping[str, float]
    average_score_by_seat: Mapping[int, float]


def _results(history: GameHistory, row: Mapping[str, Any]) -> list[tuple[str, int, int, bool]]:
    """(player, place, score, won) of a finished game: the replay's, else the games
    table's (which does not say who qualifies: a score above 0 does)."""
    if history.ranking is not None and history.places is not None:
        qualifies = history.qualifies or {}
        return [
            (p, history.places[p], score, history.places[p] == 1 and qualifies.get(p, score > 0))
            for p, score in history.ranking
        ]
    return [
        (r["player"], r["place"], r["score"], r["place"] == 1 and r["score"] > 0)
        for r in row.get("ranking") or []
    ]


def record(store: GameStore) -> Record:
    """The record of every finished game in the store (running and abandoned games do
    not count)."""
    games = 0
    wins_c: dict[str, int] = {}
    wins_s: dict[int, int] = {}
    played_c: dict[str, int] = {}
    played_s: dict[int, int] = {}
    sum_c: dict[str, int] = {}
    sum_s: dict[int, int] = {}
    for row in store.games():
        if row["status"] not in ("over", None):  # None: a damaged cell, the log decides
            continue
        if not isinstance(row["edition"], str) or not kind_for(row).charted:
            continue  # another box: its players are names, not the dragon's colours
        history = _replay(row["id"], row, list(store.records(row["id"])))
        results = _results(history, row)
        if history.status != "over" or not results:
            continue
        games += 1
        for player, _place, score, first in results:
            seat = history.players.index(player) + 1 if player in history.players else None
            won = 1 if first else 0
            wins_c[player] = wins_c.get(player, 0) + won
            played_c[player] = played_c.get(player, 0) + 1
            sum_c[player] = sum_c.get(player, 0) + score
            if seat is not None:
                wins_s[seat] = wins_s.get(seat, 0) + won
                played_s[seat] = played_s.get(seat, 0) + 1
                sum_s[seat] = sum_s.get(seat, 0) + score
    return Record(
        games=games,
        wins_by_colour=dict(sorted(wins_c.items())),
        wins_by_seat=dict(sorted(wins_s.items())),
        played_by_colour=dict(sorted(played_c.items())),
        played_by_seat=dict(sorted(played_s.items())),
        average_score_by_colour={k: sum_c[k] / played_c[k] for k in sorted(played_c)},
        average_score_by_seat={k: sum_s[k] / played_s[k] for k in sorted(played_s)},
    )


# ------------------------------------------------------------------ export
FIXED_COLUMNS = ("game", "date", "edition", "player", "seat", "place", "score")


class NoResults(Refusal):
    """A game that has no results to write, and why: it is not over, or it is over and
    its log does not tell its scores (a record of it is damaged)."""


def results_csv(store: GameStore, game: int, out: IO[str]) -> int:
    """A finished game's results as CSV, for spreadsheets and score-keeping apps: a
    header, then one row per player, best first: game, date (when the game was created,
    ISO 8601), edition, player, seat, place, score, one column per score part, and
    qualifies ("true"/"false"). Returns the rows written (header not counted).

    NoResults (a ValueError): the game is not over; or it is over (by the games table
    or by its log), but its log, replayed by its kind, does not tell its scores (a record
    of it is damaged, or its kind tells none)."""
    row = store.game_row(game)
    history = _replay(game, row, list(store.records(game)))
    told = (history.scores, history.ranking, history.places, history.qualifies)
    if history.status == "over" and None not in told:
        return _write_results(game, row, history, out)
    if history.status == "over" or row.get("status") == "over":
        raise NoResults(
            N_(
                "game {game} is over, but its scores cannot be read from its log "
                "(audit verify says whether a record of it is damaged)"
            ),
            game=game,
        )
    raise NoResults(N_("game {game} is not over: it has no results yet"), game=game)


def _write_results(game: int, row: Mapping[str, Any], history: GameHistory, out: IO[str]) -> int:
    assert history.scores is not None and history.ranking is not None
    assert history.places is not None and history.qualifies is not None
    parts: list[str] = []
    for player in history.players:
        parts.extend(k for k in history.scores[player] if k not in parts)
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([safe_cell(cell) for cell in (*FIXED_COLUMNS, *parts, "qualifies")])
    date = row.get("created_at") or ""
    for player, score in history.ranking:
        cells = [
            game,
            date,
            history.edition,
            player,
            history.players.index(player) + 1,
            history.places[player],
            score,
            *(history.scores[player].get(k, 0) for k in parts),
            "true" if history.qualifies[player] else "false",
        ]
        writer.writerow([safe_cell(cell) for cell in cells])  # a name is no formula
    return len(history.ranking)
