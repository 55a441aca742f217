"""The new game: the seats in order (colours tapped or player badges scanned), the box,
the language, and a running game that could not be resumed. Layout in kv/newgame.kv."""

from __future__ import annotations

from typing import Any

from kivy.app import App
from kivy.properties import BooleanProperty, ListProperty, StringProperty
from kivy.uix.screenmanager import Screen

from companion.i18n import _, localized, player_name
from companion.ui.colours import colour, text_colour
from companion.ui.layouts import Layout
from companion.ui.screens.kit import LANGUAGE_NAMES
from companion.ui.widgets import SEAT_COLOURS, FitToggleButton


class NewGameScreen(Layout, Screen):
    layouts = ("newgame.kv",)
    edition = StringProperty("clank")
    seats = ListProperty([])
    message = StringProperty("")
    can_start = BooleanProperty(False)
    # a running game the app could not resume (its seal key lost or damaged): said
    # large above everything else, with the way out when there is one
    problem = StringProperty("")
    abandon_text = StringProperty("")
    language_text = StringProperty("")

    def on_pre_enter(self, *args: Any) -> None:
        self.show_unresumable()
        self.show_language()

    def show_language(self) -> None:
        from companion.i18n import current_language

        language = LANGUAGE_NAMES.get(current_language(), current_language())
        self.language_text = _("Language: {language}").format(language=language)

    def show_unresumable(self) -> None:
        """The controller's ``unresumable`` game, if any, and whether it can be given up."""
        from companion.store.seal import SealError

        app = App.get_running_app()
        found = app.controller.unresumable if app is not None else None
        if found is None:
            self.problem = self.abandon_text = ""
            return
        game, reason = found
        self.problem = _("Game {game} cannot be resumed: {reason}").format(
            game=game, reason=localized(reason)
        )
        # only a lost or damaged key can be given up here (a game open in another
        # program is that program's to finish)
        self.abandon_text = (
            _("Abandon game {game}").format(game=game) if isinstance(reason, SealError) else ""
        )

    def on_kv_post(self, base_widget: Any) -> None:
        for name in SEAT_COLOURS:
            button = FitToggleButton(text=player_name(name, capital=True), full_font_size="26sp",
                                     min_font_size="26sp", bold=True)  # fmt: skip
            button.colour_name = name
            button.background_normal = ""
            button.background_down = ""
            button.background_color = colour(name)
            button.color = text_colour(name)
            button.bind(on_release=lambda b: self.toggle_seat(b.colour_name))
            self.ids.colours.add_widget(button)
        self.on_seats()
        self.show_language()

    def toggle_seat(self, name: str) -> None:
        if name in self.seats:
            self.seats.remove(name)
        else:
            self.seats.append(name)

    def clear_seats(self) -> None:
        self.seats = []

    def on_seats(self, *args: Any) -> None:
        for button in self.ids.colours.children:
            button.state = "down" if button.colour_name in self.seats else "normal"
            seat = (
                self.seats.index(button.colour_name) + 1 if button.colour_name in self.seats else 0
            )
            shown = player_name(button.colour_name, capital=True)
            button.text = f"{seat}. {shown}" if seat else shown
        count = len(self.seats)
        tschak = self.edition == "tschak"
        self.can_start = 2 <= count <= (4 if tschak else 6)
        self.message = (
            _("Tschak! is for 2 to 4 players")
            if tschak and count > 4
            else _("5-6 players play with the Adventuring Party")
            if count > 4
            else _("Tap colours in seat order, first player first (or scan badges).")
        )

    def on_edition(self, *args: Any) -> None:
        if "colours" in self.ids:  # Tschak! seats 2 to 4
            self.on_seats()

    def start(self) -> None:
        if self.edition == "tschak":  # its set-up first: the settings, the card catalog
            App.get_running_app().control("tschak").prepare(list(self.seats))
            return
        options = {"edition": self.edition, "players": list(self.seats)}
        if len(self.seats) > 4:
            options["party"] = True
        App.get_running_app().controller.new_game(options)
