"""The pebbles kind on the touchscreen (``GameKind.table_face``): one screen that shows the
points, a controller that takes up the game the table left. Imported by name when the app
first builds the screen, as a box's own screens are."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kivy.app import App
from kivy.uix.label import Label
from kivy.uix.screenmanager import Screen

from companion.live import LiveGame
from companion.session import Session
from tests.kind_pebbles import EDITION, PebbleError

SCREEN = "pebbles_table"


class PebbleControl(LiveGame):
    refusals = (PebbleError,)

    def owns(self, edition: str) -> bool:
        return edition == EDITION

    def _reason(self, error: Exception) -> str:
        return str(error)

    def resume(self, game: int) -> bool:
        assert self.store is not None
        self.table = Session(self.store).resume(game)
        return True

    @property
    def phase(self) -> str:
        if self.table is None:
            return "none"
        return "over" if self.table.state.over else "playing"

    def view(self) -> str:
        if self.table is None:
            return "no game of pebbles"
        points = ", ".join(f"{p} {n}" for p, n in self.table.state.points.items())
        return f"Pebbles ({self.phase}): {points}"


class PebbleScreen(Screen):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.words = Label(text="")
        self.add_widget(self.words)

    def show_own(self) -> None:
        self.words.text = App.get_running_app().control(EDITION).view()


class PebbleFace:
    screens: Mapping[str, tuple[str, str]] = {SCREEN: (__name__, "PebbleScreen")}
    phase_screens: Mapping[str, str] = {"none": SCREEN, "playing": SCREEN, "over": SCREEN}

    def make_control(self, app: Any) -> PebbleControl:
        return PebbleControl(app.store)

    def scan(self, app: Any, uid: str) -> None:
        """Pebbles carry no tags: a scan changes nothing."""

    def open_drawer(self) -> None:
        """No components to lay on a reader."""

    visited: tuple[str, ...] = ()  # its menu visits no screen

    def menu_entries(self, app: Any) -> list[tuple[str, Any]]:
        return []  # nothing beyond what every table's menu has

    def press(self, app: Any, button: str) -> None:
        """The panel's buttons do nothing for pebbles."""

    def turn(self, control: Any) -> object:
        return control.phase

    def tag_choices(self, edition: str) -> list[tuple[str, Any]]:
        return []  # pebbles carry no tags


FACE = PebbleFace()
