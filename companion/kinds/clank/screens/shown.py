"""What the Clank! screens share as screens of the kind's face: each is drawn again from
one view of the controller (``GameScreen.show_own``, which the app asks of the screen
shown), once the game has its players."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kivy.app import App

from companion.kinds.clank.view import TableView

if TYPE_CHECKING:
    from companion.kinds.clank.controller import Controller


def clank() -> Controller:
    """The running app's Clank! controller (made when first needed): the Clank! screens
    ask it in Clank!'s own terms, whatever game is on the table."""
    from companion.kinds.clank.screens.desk import desk_of

    return desk_of(App.get_running_app()).controller


class ClankScreen:
    """Mixed into a Clank! screen whose ``redraw`` draws a view of the table."""

    def redraw(self, view: TableView) -> None:
        raise NotImplementedError

    def show_own(self) -> None:
        """Redrawn from the controller's view (the app asks this of the screen shown)."""
        view = clank().view()
        if view.players:
            self.redraw(view)
