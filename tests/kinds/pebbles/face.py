"""Pebbles on the touchscreen: its controller (a ``LiveGame``: new game, resume, draw,
undo, close) and its face (``GameKind.table_face``), which names its one screen."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from companion.kinds.pebbles.table import EDITION, PebbleError, PebbleTable

from companion.i18n import _, ngettext, player_name
from companion.kinds.base import KindControl, MenuEntry, TagTarget
from companion.live import LiveGame, Update
from companion.msg import localized
from companion.session import Session

SCREEN = "pebbles_table"
COLOURS = ("red", "yellow", "green", "blue", "purple", "orange")  # a named player's, by seat


def colour_of(players: list[str], player: str) -> str:
    """A player's colour: theirs when they are one, else their seat's."""
    if player in COLOURS:
        return player
    return COLOURS[players.index(player) % len(COLOURS)] if player in players else COLOURS[0]


def label_of(player: str) -> str:
    return str(player_name(player, capital=True))


@dataclass(frozen=True)
class Seat:
    player: str
    label: str
    points: int
    colour: str
    active: bool


@dataclass(frozen=True)
class PebbleView:
    """The table as its screen draws it, in the table's language."""

    seats: tuple[Seat, ...] = ()
    turn: str = ""  # whose turn it is, or who won
    last: str = ""
    over: bool = False
    playing: bool = False


class PebbleControl(LiveGame):
    refusals = (PebbleError,)

    def __init__(self, store: Any) -> None:
        super().__init__(store)
        self.session = Session(store) if store is not None else None

    def owns(self, edition: str) -> bool:
        from companion.kinds.pebbles.kind import KIND

        from companion.kinds import kind_of

        return kind_of(edition) is KIND

    def _reason(self, error: Exception) -> str:
        return localized(error)

    # ------------------------------------------------------------------ the life
    def new_game(self, edition: str, players: list[str]) -> bool:
        """A new game for ``players`` in seat order, recorded at once."""
        assert self.session is not None
        try:
            table = self.session.start({"edition": edition, "players": players})
        except PebbleError as e:
            self._refused(e)
            return False
        self.table = table
        self.closed = False
        self.last = ""
        self._tell(Update("game", _("new game")))
        return True

    def resume(self, game: int) -> bool:
        assert self.session is not None
        try:
            self.table = self.session.resume(game)
        except (PebbleError, ValueError) as e:
            self._refused(e)
            return False
        self._load_saved()
        self._tell(Update("game", _("game resumed")))
        return True

    def _act(self, action: dict[str, str]) -> bool:
        if self.table is None:
            return False
        try:
            events = self.table.apply(action)
        except PebbleError as e:
            self._refused(e)
            return False
        self._tell(Update("action", self._told(events)))
        return True

    def draw(self) -> bool:
        """The player whose turn it is draws a pebble."""
        return self._act({"do": "draw"})

    def undo(self) -> bool:
        """The last draw taken back (it stays in the log)."""
        return self._act({"do": "undo"})

    def close(self) -> bool:
        """The scores were read: the game is closed."""
        return self.close_game()

    # ------------------------------------------------------------------ reading
    @property
    def phase(self) -> str:
        if self.table is None:
            return "none"
        return "over" if self.table.state.over else "playing"

    def _told(self, events: list[dict[str, Any]]) -> str:
        for event in events:
            if event.get("event") == "drew":
                who = label_of(event["player"])
                pebble = event["pebble"]
                if pebble == event["player"]:
                    return _("{player} drew their own pebble: a point").format(player=who)
                shown = label_of(pebble)
                return _("{player} drew {pebble}").format(player=who, pebble=shown)
            if event.get("event") == "undo":
                return _("Undo: the last draw taken back (it stays in the log)")
        return ""

    def view(self) -> PebbleView:
        table = self.table
        if not isinstance(table, PebbleTable):
            return PebbleView()
        seats = tuple(
            Seat(p, label_of(p), n, colour_of(table.players, p),
                 p == table.active and not table.finished)
            for p, n in table.state.points.items()
        )  # fmt: skip
        if table.state.over:
            names = ", ".join(label_of(p) for p in table.winners())
            turn = ngettext("Winner: {names}", "Winners: {names}", len(table.winners()))
            turn = turn.format(names=names)
        else:
            turn = _("{player}'s turn").format(player=label_of(table.active))
        return PebbleView(seats, turn, self.last, table.state.over, not table.finished)


class PebbleFace:
    """The pebbles kind's ``TableFace``."""

    screens: Mapping[str, tuple[str, str]] = {
        SCREEN: ("companion.kinds.pebbles.screen", "PebbleScreen")
    }
    # no game: the new-game screen
    phase_screens: Mapping[str, str] = {"none": "newgame", "playing": SCREEN, "over": SCREEN}
    visited: tuple[str, ...] = ()  # its menu visits no screen

    def make_control(self, app: Any) -> PebbleControl:
        control = PebbleControl(app.store)

        def told(update: Update) -> None:
            if not getattr(app, "_building", False):
                app.follow(update.kind)

        control.listeners.append(told)
        return control

    def scan(self, app: Any, uid: str) -> None:
        """Pebbles carry no tags: a scan changes nothing."""

    def open_drawer(self) -> None:
        """No components to lay on a reader."""

    def menu_entries(self, app: Any) -> list[MenuEntry]:
        return []  # nothing beyond what every table's menu has

    def press(self, app: Any, button: str) -> None:
        """Undo on the panel takes the last draw back, as the screen's Undo does."""
        control = app.control(EDITION)
        if button == "undo" and control.in_play:
            control.undo()

    def turn(self, control: KindControl) -> object:
        return control.moment()

    def tag_choices(self, edition: str) -> list[tuple[str, TagTarget]]:
        return []  # pebbles carry no tags


FACE = PebbleFace()
