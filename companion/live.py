"""The game on the table, whatever its kind: the life every game shares, written once.

Each kind's controller (the screens' side of a game: the app's own table's, or the
``control`` module of a kind with screens of its own) is a ``LiveGame``. What every
game does the same way is here:

- which game the table left when the companion last stopped, and taking it up again
  (``resume_last``): the last unfinished game, or the last game over whose scores were
  not closed;
- the work in progress: what the table has scanned or entered that is not an action
  yet (cards scanned for an action not yet committed, a row laid out before the first
  turn). Each kind keeps its own as one value (``_work`` to save it, ``_restore`` to
  take it back, each part kept only if it has the shape the kind writes); it is saved
  with every change in the store's ``in_progress`` row and read back the same way for
  every kind, beside ``closed``;
- closing a scored game, abandoning one, letting other programs open it
  (``close_game``, ``abandon``, ``_drop_table``);
- refusals turned into updates: a refusal is told (in the table's words: ``_reason``),
  never raised, and nothing changes;
- the listeners (the screens), told of each thing that happened with one ``Update``: what
  kind of thing it was (the same few for every kind), and what the kind adds of its own
  (``what`` names the work in progress that changed, ``detail`` carries the kind's
  account of an action: its screens read it, the shared layers pass it on).

What a kind decides is left to it: its actions, its phases, its view, its scans.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from companion.i18n import _

if TYPE_CHECKING:
    from companion.store import GameStore
    from companion.store.tags import Component

JSON = dict[str, Any]  # the work in progress as the store keeps it

UpdateKind = Literal[
    "action",  # an action was committed (``detail``: the kind's account of it)
    "entry",  # the work in progress changed, no action yet (``what``: the kind's name of it)
    "setup",  # the set-up of a game not yet started changed
    "rejected",  # the rules or the store refused: ``message`` says why
    "unknown_tag",  # ``uid`` is bound to nothing
    "seat",  # a player badge was scanned (``component``)
    "game",  # a game started, resumed, closed or was abandoned
    "ignored",  # a scan that means nothing now
]


@dataclass(frozen=True)
class Update:
    """What the listeners hear after each thing that happened: typed, never the rules'
    own dicts. ``what`` and ``detail`` are the kind's: the name of the work in progress
    that changed (an "entry"), and what its screens show of an action beyond its line
    (a value of the kind's own type; None: nothing)."""

    kind: UpdateKind
    message: str = ""
    detail: object = None
    uid: str | None = None
    component: Component | None = None
    what: str = ""


Listener = Callable[[Update], None]

Resumed = Literal["none", "resumed", "failed", "closed"]


def left_game(store: GameStore) -> tuple[int, str, bool] | None:
    """The game the table left when the companion last stopped: (its id, its edition,
    whether its scores were closed). The last unfinished game; else the last game if it
    is over (its scores may still be on the screen); else None."""
    game = store.last_unfinished()
    if game is not None:
        row = store.game_row(game)
    else:
        game = store.last_game()
        if game is None:
            return None
        row = store.game_row(game)
        if row["status"] != "over":
            return None
    closed = bool(store.in_progress(game).get("closed") or row["closed"])
    return game, str(row["edition"]), closed


class LiveGame:
    """The life of a game on the table, the same for every kind (see the module)."""

    # the errors that are refusals (told, nothing changed); anything else is a fault
    refusals: tuple[type[Exception], ...] = ()

    def __init__(self, store: GameStore | None) -> None:
        self.store = store
        self.table: Any = None  # the kind's table, or None
        self.listeners: list[Listener] = []
        self.last = ""  # what just happened, in one line
        self.closed = False  # the scores were read and the table moved on

    # ------------------------------------------------------------ the kind's part
    def owns(self, edition: str) -> bool:
        """Whether this controller plays ``edition``'s games."""
        raise NotImplementedError

    def _reason(self, error: Exception) -> str:
        """A refusal as the table reads it: its language, its game's words."""
        raise NotImplementedError

    def _work(self) -> JSON:
        """The work in progress, as saved (empty: none)."""
        return {}

    def _restore(self, saved: JSON) -> None:
        """The work in progress saved before a restart, taken back (parts of a shape
        the kind does not write are left out)."""

    def _clear(self) -> None:
        """No work in progress."""
        self.closed = False

    def _may_abandon(self) -> bool:
        return self.table is not None

    @property
    def may_abandon(self) -> bool:
        """The game on the table may be given up now (the Settings screen offers it)."""
        return self._may_abandon()

    def settings_note(self) -> str:
        """What the Settings screen says of the game on the table, in the table's words
        (the numbers of its box the table may check); "": nothing."""
        return ""

    def _abandoned(self) -> None:
        """After an abandon: what the kind's table shows next."""

    def resume(self, game: int) -> bool:
        """Carry on with a recorded game of this kind (False: refused, and told)."""
        raise NotImplementedError

    # ------------------------------------------------------------------ reading
    @property
    def in_play(self) -> bool:
        """A game of this kind is on the table (or, for a kind with one, its set-up)."""
        return self.table is not None

    @property
    def phase(self) -> str:
        """Where the game is: each kind names its phases (its screens follow them)."""
        raise NotImplementedError

    def view(self) -> object:
        """The table as the kind's screens draw it: a frozen picture, in its language."""
        raise NotImplementedError

    def moment(self) -> tuple[object, ...]:
        """Where the table stands now: a tap aimed at one moment is refused at another
        (an action, a scan or a new game since changes it). A kind adds what it has on
        screen that changes what a tap means."""
        if self.table is None:
            return (None,)
        return (self.game_id, getattr(self.table, "actions_seen", None), self.phase)

    def aimed(self, aim: tuple[object, ...] | None) -> bool:
        """Whether a tap aimed at ``aim`` (the moment its screen showed when the finger
        came down; None: a panel's button, aimed at the table as it is) meets the table
        where it was aimed. A stale one changes nothing, and the table is told."""
        if aim is None or aim == self.moment():
            return True
        self._tell(Update("rejected", _("The table changed before that tap: nothing was done")))
        return False

    @property
    def game_id(self) -> int | None:
        if self.table is None:
            return None
        found = getattr(self.table, "game_id", None)
        if found is None:
            found = getattr(getattr(self.table, "log", None), "game", None)
        return found if isinstance(found, int) else None

    # ------------------------------------------------------------------ the life
    def resume_last(self) -> Resumed:
        """At start-up: carry on with the game the table left if it is one of this
        kind's. "none": no game, or another kind's; "closed": its scores were closed
        (the new-game screen); "failed": it cannot be resumed (told)."""
        if self.store is None:
            return "none"
        left = left_game(self.store)
        if left is None or not self.owns(left[1]):
            return "none"
        game, _edition, closed = left
        if closed:
            return "closed"
        return "resumed" if self.resume(game) else "failed"

    def close_game(self) -> bool:
        """The scores have been read: the log is closed (its head is final, the one to
        photograph) and the next start shows the new-game screen. False: nothing was
        closed (no game on the table, or the close was refused: the update says why)."""
        if self.table is None:
            return False
        try:
            self.table.close()
        except self.refusals as e:
            self._refused(e)
            return False
        self.closed = True
        self._save()
        self._drop_table()
        self._tell(Update("game", _("game closed")))
        return True

    def abandon(self, reason: str = "abandoned at the table") -> bool:
        """Give the game up: its log keeps it, marked abandoned (a game with a bag has its
        server seed revealed: its draws can be checked)."""
        if not self._may_abandon():
            return False
        try:
            self.table.abandon(reason)
        except self.refusals as e:
            self._refused(e)
            return False
        self._abandoned()
        self._tell(Update("game", _("game abandoned")))
        return True

    def _drop_table(self) -> None:
        """The table moves on from this game: other programs may open it now."""
        game = self.game_id
        if self.store is not None and game is not None:
            self.store.release(game)
        self.table = None
        self._clear()

    # ------------------------------------------------------- the work in progress
    def _save(self) -> None:
        game = self.game_id
        if self.store is None or game is None:
            return
        self.store.save_in_progress(game, self._work_body())

    def _work_body(self) -> JSON:
        """The work in progress as the store keeps it (``_save``)."""
        body: JSON = {"closed": True} if self.closed else {}
        body.update(self._work())
        return body

    def _load_saved(self) -> None:
        game = self.game_id
        if self.store is None or game is None:
            return
        saved = self.store.in_progress(game)
        self._restore(saved)
        self.closed = saved.get("closed") is True

    # ------------------------------------------------------------------ telling
    def _refused(self, error: Exception) -> None:
        self._tell(Update("rejected", self._reason(error)))

    def _tell(self, update: Update) -> None:
        if update.message and update.kind not in ("ignored", "seat"):
            self.last = update.message
        for listener in list(self.listeners):
            listener(update)
