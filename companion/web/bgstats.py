"""A finished game as a BG Stats play, handed over by BG Stats' push link:

    https://app.bgstatsapp.com/createPlay.html?data=<the play as URL-encoded JSON>

Opened on a phone with BG Stats, the link shows its import dialog with the play filled
in, for the player to confirm; nothing is sent anywhere by the companion itself.

The field names are BG Stats' own (its "push plays to BG Stats from other apps or
websites" page): ``sourceName``, ``sourcePlayId``, ``playDate`` (the table's local
time, ``yyyy-MM-dd HH:mm:ss``, as BG Stats reads it), ``durationMin``, ``location``,
``game`` (``name``, ``bggId``, ``sourceGameId``, ``highestWins``, ``noPoints``,
``cooperative``) and ``players`` (``name``, ``sourcePlayerId``, ``role``, ``score``,
``rank``, ``winner``, ``startPlayer``). The game's name and its BoardGameGeek id are its
kind's (``PhoneFace.bgstats_game``); the id is sent only where the kind has one
confirmed; for the other boxes BG Stats matches the game by its name (and remembers the
match by ``sourceGameId``).

``durationMin`` runs from the game's first record (``created_at``) to the record that
ended it (``ended_at``, which the companion writes in the log): the same whoever reads
the log, and whenever. A log written before the records said it: from the end this
server saw come, else none.

The ids are stable: ``sourcePlayId`` and each ``sourcePlayerId`` are derived from the
database's game number and the game's own commitment and date (both in its first
record), so importing the same game twice finds the first import; ``sourceGameId``
names the box, so BG Stats asks once which of its games each box is.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import urllib.parse
from typing import Any

from companion.kinds import kind_of

PUSH_LINK = "https://app.bgstatsapp.com/createPlay.html?data="
SOURCE_NAME = "Clank! Table Companion"
LOCATION = "Clank! Table Companion"


def _stable_id(*parts: object) -> str:
    text = "\x1f".join(str(p) for p in parts)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:24]


def bgstats_game(edition: str) -> tuple[str, int | None]:
    """The edition's game as BG Stats knows it (its kind says): its name, and its
    BoardGameGeek id where one is confirmed (a wrong one would file the play under
    another game). A kind the phones cannot show: its English title, no id."""
    kind = kind_of(edition)
    face = kind.phone_face()
    if face is None:
        return kind.english_title(edition), None
    return face.bgstats_game(edition)


def play_date(created_at: str) -> str:
    """The game's start as BG Stats reads a date: the table's local time (the machine's
    time zone), ``yyyy-MM-dd HH:mm:ss``. The log keeps it in UTC (a date without a zone
    is UTC)."""
    try:
        when = datetime.datetime.fromisoformat(created_at)
    except ValueError:  # a date the log does not give: the play is dated now
        when = datetime.datetime.now(datetime.UTC)
    if when.tzinfo is None:
        when = when.replace(tzinfo=datetime.UTC)
    return when.astimezone().strftime("%Y-%m-%d %H:%M:%S")


def minutes_between(start: str, end: str) -> int | None:
    try:
        a = datetime.datetime.fromisoformat(start)
        b = datetime.datetime.fromisoformat(end)
    except ValueError:
        return None
    if a.tzinfo is None:
        a = a.replace(tzinfo=datetime.UTC)
    if b.tzinfo is None:
        b = b.replace(tzinfo=datetime.UTC)
    seconds = (b - a).total_seconds()
    # The dates keep whole seconds: an end seen in the game's first second is a short
    # game (BG Stats counts it as a minute), an end before the start is no length at all.
    return max(1, round(seconds / 60)) if seconds >= 0 else None


def play(
    *,
    game: int,
    edition: str,
    created_at: str,
    commitment: str,
    seats: list[str],
    ranking: list[dict[str, Any]],
    winners: list[str],
    ended_at: str | None = None,
    roles: dict[str, str] | None = None,
    names: dict[str, str] | None = None,
) -> dict[str, Any]:
    """The play of a finished game. ``seats``: the players in seat order (seat 1 began);
    ``ranking``: ``{"player", "score", "place"}`` best first; ``roles``: each player's
    colour; ``names``: how each player is called (default: as the game names them)."""
    play_id = _stable_id("clank-companion", game, created_at, commitment)
    roles = roles or {}
    names = names or {}
    players: list[dict[str, Any]] = []
    for place_entry in ranking:
        player = place_entry["player"]
        entry: dict[str, Any] = {
            "name": names.get(player, player),
            "sourcePlayerId": _stable_id(play_id, seats.index(player) + 1, player),
            "score": place_entry["score"],
            "rank": place_entry.get("place", len(players) + 1),
            "winner": player in winners,
            "startPlayer": bool(seats) and player == seats[0],
        }
        if player in roles:
            entry["role"] = roles[player]
        players.append(entry)
    name, bgg_id = bgstats_game(edition)
    out: dict[str, Any] = {
        "sourceName": SOURCE_NAME,
        "sourcePlayId": play_id,
        "playDate": play_date(created_at),
        "location": LOCATION,
        "game": {
            "name": name,
            "sourceGameId": f"clank-companion-{edition}",
            "highestWins": True,
            "noPoints": False,
            "cooperative": False,
        },
        "players": players,
    }
    if bgg_id is not None:
        out["game"]["bggId"] = bgg_id
    if ended_at:
        length = minutes_between(created_at, ended_at)
        if length is not None:
            out["durationMin"] = length
    return out


def push_link(data: dict[str, Any]) -> str:
    """BG Stats' push link for a play."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return PUSH_LINK + urllib.parse.quote(text, safe="")
