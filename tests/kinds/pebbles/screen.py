"""The pebbles screen: each player's points in big type on their colour, whose turn it is,
what just happened, a big Draw button, Undo, and Close game once the game is over. A
function of the controller's view (``show_own``); its buttons call the controller. Layout
in ``kv/pebbles.kv``."""

from __future__ import annotations

from typing import Any

from companion.kinds.pebbles.face import PebbleControl, PebbleView
from companion.kinds.pebbles.table import EDITION
from kivy.app import App
from kivy.properties import BooleanProperty, ListProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.screenmanager import Screen

from companion.i18n import _
from companion.ui.colours import colour, text_colour
from companion.ui.layouts import Layout, kind_layout

LAYOUTS = (kind_layout("companion.kinds.pebbles", "pebbles.kv"),)


def ctl() -> PebbleControl:
    control = App.get_running_app().control(EDITION)
    assert isinstance(control, PebbleControl)
    return control


class SeatPanel(Layout, BoxLayout):
    """One player: their name and their points, on their colour; the player whose turn it
    is framed in white (no player's colour)."""

    layouts = LAYOUTS
    label_text = StringProperty("")
    points_text = StringProperty("")
    swatch = ListProperty([0.5, 0.5, 0.5, 1])
    ink = ListProperty([1, 1, 1, 1])
    active = BooleanProperty(False)


class PebbleScreen(Layout, Screen):
    layouts = LAYOUTS
    turn_text = StringProperty("")
    last_text = StringProperty("")
    over = BooleanProperty(False)
    playing = BooleanProperty(False)

    def on_pre_enter(self, *args: Any) -> None:
        self.show_own()

    def show_own(self) -> None:
        """Drawn again from the controller's view (the app asks this of a kind's screen)."""
        self.show(ctl().view())

    def show(self, view: PebbleView) -> None:
        self.turn_text = view.turn
        self.last_text = view.last
        self.over = view.over
        self.playing = view.playing
        seats = self.ids.seats
        while len(seats.children) > len(view.seats):
            seats.remove_widget(seats.children[0])
        while len(seats.children) < len(view.seats):
            seats.add_widget(SeatPanel())
        for panel, seat in zip(reversed(seats.children), view.seats, strict=True):
            panel.label_text = seat.label
            panel.points_text = str(seat.points)
            panel.swatch = list(colour(seat.colour))
            panel.ink = list(text_colour(seat.colour))
            panel.active = seat.active

    # ------------------------------------------------------------------ taps
    def on_touch_down(self, touch: Any) -> bool:
        """The table's moment when the finger came down is what the tap aims at."""
        self.pressed = ctl().moment()
        return bool(super().on_touch_down(touch))

    def aimed(self) -> bool:
        return ctl().aimed(getattr(self, "pressed", None))

    def draw(self) -> None:
        if self.aimed():
            ctl().draw()

    def undo(self) -> None:
        if self.aimed():
            ctl().undo()

    def close_game(self) -> None:
        """Closing a game cannot be taken back: the table confirms it first."""
        if not self.aimed():
            return
        from companion.ui.screens.popups import Confirm

        question = _("Close the game? The scores have been read; its log is final.")
        Confirm(question, _("Yes, close the game"), ctl().close).open()
