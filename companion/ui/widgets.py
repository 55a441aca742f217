"""The table's widgets: behaviour here, layout in kv/*.kv."""

from __future__ import annotations

from typing import Any

from kivy.app import App
from kivy.clock import Clock
from kivy.core.text import Label as CoreLabel
from kivy.core.text.markup import MarkupLabel
from kivy.metrics import sp
from kivy.properties import (
    BooleanProperty,
    ListProperty,
    NumericProperty,
    ObjectProperty,
    StringProperty,
)
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.label import Label
from kivy.uix.modalview import ModalView
from kivy.uix.screenmanager import Screen
from kivy.uix.togglebutton import ToggleButton

from companion.i18n import _, localized, ned_, ngettext, player_name
from companion.ui.colours import colour, letter, text_colour

SEAT_COLOURS = ["red", "yellow", "green", "blue", "purple", "orange"]


class StatusBar(BoxLayout):
    text = StringProperty("")
    simulated = BooleanProperty(False)


class FitText:
    """A text that must be read whole in every language: its font shrinks from
    ``full_font_size`` (to ``min_font_size`` at most) until the text fits the widget,
    wrapped to the widget's width when ``text_size`` has one."""

    full_font_size = NumericProperty("15sp")
    min_font_size = NumericProperty("11sp")

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._fitted: tuple[Any, ...] = ()
        self.bind(text=self._refit, size=self._refit, full_font_size=self._refit, bold=self._refit,
                  font_name=self._refit, markup=self._refit, text_size=self._refit)  # fmt: skip
        self._refit()

    def _refit(self, *args: Any) -> None:
        full, least = self.full_font_size, self.min_font_size
        wrap = None if self.shorten else self.text_size[0]  # shortened: one line
        state = (self.text, self.width, self.height, full, least, wrap, self.bold, self.font_name)
        if state == self._fitted:
            return
        self._fitted = state
        size = full
        if self.text and self.width > 1 and self.height > 1:
            w, h = self._measure(full, wrap)
            if w > self.width + 1 or h > self.height + 1:
                size = self._largest_fitting(full, least, wrap, w, h)
        self.font_size = size

    def _largest_fitting(self, full: float, least: float, wrap: float | None, w: float,
                         h: float) -> float:  # fmt: skip
        if wrap is None:  # one line: its width follows the font, one guess is near
            size = max(least, int(min(full * min(self.width / w, self.height / h), full - 1)))
            while size > least and not self._fits(size, wrap):
                size = max(least, size - sp(1))
            return size
        low, high = int(least), int(full) - 1  # wrapped: halve the range of whole pixels
        while low < high:
            middle = (low + high + 1) // 2
            if self._fits(middle, wrap):
                low = middle
            else:
                high = middle - 1
        return max(least, low)

    def _measure(self, font_size: float, wrap: float | None) -> tuple[float, float]:
        options = {k: getattr(self, k) for k in Label._font_properties}
        options.update(font_size=font_size, text_size=(wrap, None), shorten=False)
        core = (MarkupLabel if self.markup else CoreLabel)(**options)
        core.refresh()
        return core.content_size

    def _fits(self, font_size: float, wrap: float | None) -> bool:
        w, h = self._measure(font_size, wrap)
        return w <= self.width + 1 and h <= self.height + 1


class FitLabel(FitText, Label):
    pass


class FitToggleButton(FitText, ToggleButton):
    pass


def edition() -> str:
    """The edition on the table (its words name things on screen)."""
    app = App.get_running_app()
    table = app.controller.table if app is not None else None
    return table.game.edition.name if table is not None else "clank"


class NewGameScreen(Screen):
    edition = StringProperty("clank")
    seats = ListProperty([])
    seats_text = StringProperty("")
    message = StringProperty("")
    can_start = BooleanProperty(False)
    # a running game the app could not resume (its seal key lost or damaged): said
    # large above everything else, with the way out when there is one
    problem = StringProperty("")
    abandon_text = StringProperty("")

    def on_pre_enter(self, *args: Any) -> None:
        self.show_unresumable()

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
            button = FitToggleButton(text=player_name(name, capital=True), full_font_size="18sp",
                                     bold=True)  # fmt: skip
            button.colour_name = name
            button.background_normal = ""
            button.background_down = ""
            button.background_color = colour(name)
            button.color = text_colour(name)
            button.bind(on_release=lambda b: self.toggle_seat(b.colour_name))
            self.ids.colours.add_widget(button)
        self.on_seats()

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
        self.can_start = 2 <= count <= 6
        self.seats_text = (
            ",  ".join(f"{i}. {player_name(s)}" for i, s in enumerate(self.seats, start=1))
            if self.seats
            else _("No seats yet")
        )
        self.message = _("5-6 players play with the Adventuring Party") if count > 4 else ""

    def start(self) -> None:
        options = {"edition": self.edition, "players": list(self.seats)}
        if len(self.seats) > 4:
            options["party"] = True
        App.get_running_app().controller.new_game(options)


class CubeChip(Label):
    swatch = ListProperty([1, 1, 1, 1])


class AttackView(ModalView):
    """The dragon's draw, cube by cube; cannot be dismissed before the last one."""

    title = StringProperty("")
    bag_text = StringProperty("")
    outcome = StringProperty("")
    finished = BooleanProperty(False)
    dismiss_text = StringProperty("")
    draw = ObjectProperty(None)

    def play(self, draw: dict[str, Any], events: list[dict[str, Any]], step: float = 0.35) -> None:
        self.draw = draw
        n = len(draw["drawn"])
        self.title = ned_(
            edition(), "The dragon attacks! ({n} cube)", "The dragon attacks! ({n} cubes)", n
        ).format(n=n)
        bag = ", ".join(f"{player_name(k)} {v}" for k, v in draw["bag"].items() if v)
        self.bag_text = _("Bag before the draw: {bag} · draw #{nonce}").format(
            bag=bag, nonce=draw["nonce"]
        )
        knocked = [e["player"] for e in events if e["event"] == "knocked_out"]
        hurt: dict[str, int] = {}
        for e in events:
            if e["event"] == "damage":
                hurt[e["player"]] = hurt.get(e["player"], 0) + 1
        lines = [
            ngettext("{p}: {n} damage", "{p}: {n} damage", n).format(p=player_name(p), n=n)
            for p, n in hurt.items()
        ]
        for p in knocked:
            out = _("{p} is knocked out!").format(p=player_name(p))
            lines.append(f"[b][color=ff6655]{out}[/color][/b]")
        self.outcome = "\n".join(lines) or _("Only black cubes: nobody is hurt.")
        self.dismiss_text = _("Continue")
        self.ids.cubes.clear_widgets()
        self.finished = False
        cubes = list(draw["drawn"])

        def next_cube(dt: float) -> None:
            if not cubes:
                if knocked:  # a knock-out is read before it can be dismissed
                    self.dismiss_text = _("Read: {players} knocked out").format(
                        players=", ".join(player_name(p) for p in knocked)
                    )
                    Clock.schedule_once(lambda dt: setattr(self, "finished", True), 4 * step)
                else:
                    self.finished = True
                return
            cube = cubes.pop(0)
            marks = {"black": "×", "ghost": _("gh")}  # never a player's letter
            chip = CubeChip(text=marks.get(cube) or letter(cube))
            chip.swatch = list(colour(cube))
            chip.color = text_colour(cube)
            self.ids.cubes.add_widget(chip)
            Clock.schedule_once(next_cube, step)

        Clock.schedule_once(next_cube, 0 if step == 0 else step)
