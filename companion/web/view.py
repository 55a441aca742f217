"""What the phone page says about one state of a game, in the table's language: whose
turn, the odds in words, the last action, the verdicts. Sent beside the state (the
table script's output, which stays exactly as ``replay --json`` gives it) as ``view``.

Each kind words its own games (``GameKind.phone_face``: its ``page_view``); nothing here
names one. Nothing in a view is new information: every sentence is made from the state
and the log's last action.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from companion.web.reader import ReplayedGame


def page_view(game: ReplayedGame, state: Mapping[str, Any]) -> dict[str, Any]:
    """The view of a game its kind's phones part shows (``ReplayedGame`` replays only
    those)."""
    face, table = game.face, game.table
    assert face is not None and table is not None, game.game
    return face.page_view(table, state, game.last)
