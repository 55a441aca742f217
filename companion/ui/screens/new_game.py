"""The new game: the seats in order (colours tapped or player badges scanned), the box
(one button for each edition the kinds' registry plays), the language, and a running game
that could not be resumed. Layout in kv/newgame.kv."""

from __future__ import annotations

from typing import Any

from kivy.app import App
from kivy.factory import Factory
from kivy.properties import BooleanProperty, ListProperty, StringProperty
from kivy.uix.screenmanager import Screen

from companion.i18n import _, localized, player_name
from companion.kinds import DEFAULT, editions, kind_of
from companion.store.tags import edition_title
from companion.ui.colours import colour, text_colour
from companion.ui.layouts import Layout
from companion.ui.screens.kit import LANGUAGE_NAMES
from companion.ui.widgets import SEAT_COLOURS, FitToggleButton


class NewGameScreen(Layout, Screen):
    layouts = ("newgame.kv",)
    edition = StringProperty(DEFAULT)
    seats = ListProperty([])
    message = StringProperty("")
    noted = BooleanProperty(False)  # the message is the kind's note on the seats taken
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
        found = getattr(app.controller, "unresumable", None) if app is not None else None
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
        for edition in editions():  # the boxes, in the registry's order
            title = edition_title(edition)
            # a long title on a wider button (two lines at most, the table's size)
            toggle = Factory.EditionToggle(text=title, size_hint_x=max(1.0, len(title) / 11.5))
            toggle.edition = edition
            toggle.bind(on_release=lambda b: setattr(self, "edition", b.edition))
            self.ids.editions.add_widget(toggle)
        self.on_edition()
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
        kind = kind_of(self.edition)
        least, most = kind.player_limits
        self.can_start = least <= count <= most
        note = kind.seats_note(count)
        self.noted = bool(note)
        self.message = note or _("Tap colours in seat order, first player first (or scan badges).")

    def on_edition(self, *args: Any) -> None:
        if "editions" in self.ids:
            for toggle in self.ids.editions.children:
                toggle.state = "down" if toggle.edition == self.edition else "normal"
        if "colours" in self.ids:  # each kind seats as many players as it plays with
            self.on_seats()

    def start(self) -> None:
        """The game of the edition chosen, for the seats taken: its kind starts it at once
        or opens its set-up first."""
        app = App.get_running_app()
        kind_of(self.edition).prepare(app.control(self.edition), self.edition, list(self.seats))

    def confirm_abandon_unresumable(self) -> None:
        """The game that cannot be resumed, given up after a confirmation."""
        from companion.ui.screens.popups import Confirm

        ctl = App.get_running_app().controller
        found = getattr(ctl, "unresumable", None)
        if found is None:
            return
        game = found[0]
        question = _("Abandon game {game}? It can never go on; its log still verifies.")
        yes = _("Yes, abandon game {game}").format(game=game)
        Confirm(question.format(game=game), yes, ctl.abandon_unresumable).open()
