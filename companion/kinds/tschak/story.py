"""A Tschak! game told as data (companion.story): its scores once over (no dragon, so
no points to chart)."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import Any

from companion.story import GameHistory

EDITION = "tschak"


def story(
    game_id: int, row: Mapping[str, Any], records: list[dict[str, Any]], options: Any
) -> GameHistory:
    """A Tschak! game: its scores once over (no dragon, so no points to chart). Actions
    the rules refuse on replay are passed over, as for Clank!; the audit names them."""
    from companion.kinds.tschak.rules import TschakError
    from companion.kinds.tschak.table import TschakTable

    kinds = {rec.get("kind") for rec in records}
    players = tuple(p for p in row.get("players") or () if isinstance(p, str))
    try:
        table: TschakTable | None = TschakTable(options)
    except TschakError:
        table = None
    if table is not None:
        players = table.game.players
        for rec in records:
            body = rec.get("body")
            if rec.get("kind") == "action" and isinstance(body, dict):
                with contextlib.suppress(TschakError, TypeError, KeyError):
                    table.apply(body.get("action"))
    over = table is not None and table.game.game_over
    status = "abandoned" if "abandon" in kinds else "over" if over else "playing"
    scores = totals = qualifies = places = None
    ranked = None
    if table is not None and over:
        results = table.game.scores()
        scores = {p: dict(results[p].parts) for p in players}
        totals = {p: results[p].total for p in players}
        qualifies = dict.fromkeys(players, True)
        order = table.game.ranking()[0]
        ranked = tuple((r["player"], r["score"]) for r in order)
        places = {r["player"]: r["place"] for r in order}
    return GameHistory(
        game=game_id,
        edition=EDITION,
        players=players,
        status=status,
        points=(),
        scores=scores,
        totals=totals,
        ranking=ranked,
        qualifies=qualifies,
        places=places,
        end_reason="over" if over else None,
    )
