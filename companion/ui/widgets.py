"""The table's widgets: behaviour here, layout in kv/*.kv."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kivy.app import App
from kivy.clock import Clock
from kivy.graphics import Color, Ellipse, Line, Quad, Rectangle
from kivy.metrics import dp
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
from kivy.uix.screenmanager import NoTransition, ScreenManager
from kivy.uix.togglebutton import ToggleButton

from companion.i18n import _, ned_, ngettext, player_name
from companion.kinds.clank.view import AttackEvent, HurtView
from companion.ui.colours import colour, letter, text_colour
from companion.ui.drawn import fitting_font_size
from companion.ui.layouts import Layout
from companion.ui.taps import SteadyButton  # noqa: F401 - the attack's Continue (attack.kv)


def _register_fonts() -> None:
    """Kivy's DejaVuSans (arrows, hearts, the skull) and its monospaced font by name: a
    font given by a name Kivy does not know is looked up on disk at every text drawn."""
    import os

    from kivy import kivy_data_dir
    from kivy.core.text import LabelBase

    for name in ("DejaVuSans", "RobotoMono-Regular"):
        LabelBase.register(name, os.path.join(kivy_data_dir, "fonts", name + ".ttf"))


_register_fonts()

SEAT_COLOURS = ["red", "yellow", "green", "blue", "purple", "orange"]


class Screens(Layout, ScreenManager):
    """The app's screens, one shown at a time, without a transition. Kivy's screen
    manager clips its screens to its box with a stencil (for transitions that slide one
    beside another); that cost every frame two fills of the whole window into the
    stencil buffer and a stencil test for every pixel drawn, where OpenGL is drawn by the
    CPU (a third of a redrawn table's time). Shown one at a time, full size, the screens
    need no clipping: its rule in common.kv draws nothing."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("transition", NoTransition())
        super().__init__(**kwargs)


class StatusBar(Layout, BoxLayout):
    text = StringProperty("")
    simulated = BooleanProperty(False)


if TYPE_CHECKING:  # the mixin is always mixed into a Label
    from kivy.uix.label import Label as _LabelBase
else:
    _LabelBase = object


class FitText(_LabelBase):
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
            options = {k: getattr(self, k) for k in Label._font_properties}
            size = fitting_font_size(options, full, least, (self.width, self.height), wrap)
        self.font_size = size


class FitLabel(FitText, Label):
    pass


class FitToggleButton(FitText, ToggleButton):
    pass


def edition() -> str:
    """The edition on the table (its words name things on screen)."""
    app = App.get_running_app()
    return app.controller.edition if app is not None else "clank"


class CubeToken(Label):
    """A cube drawn from the bag as a cube: a player's in the player's colour with the
    player's letter on its face, a black cube black, a ghost as a ghost. ``kind`` "" is a
    cube still to come (a faint outline)."""

    kind = StringProperty("")
    face = ListProperty([0, 0, 0, 0])  # the colour of its front face as drawn

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("bold", True)
        super().__init__(**kwargs)
        self.bind(pos=self._paint, size=self._paint, kind=self._paint)
        self._paint()

    def on_kind(self, *args: Any) -> None:
        self.text = "" if self.kind in ("", "black", "ghost") else letter(self.kind)
        self.color = list(text_colour(self.kind))

    def _paint(self, *args: Any) -> None:
        self.canvas.before.clear()
        side = min(self.width, self.height)
        x = self.center_x - side / 2
        y = self.center_y - side / 2
        with self.canvas.before:
            if self.kind == "ghost":
                self.face = list(_ghost(x, y, side))
            elif self.kind:
                self.face = list(_cube(x, y, side, colour(self.kind), outline=self.kind == "black"))
            else:
                self.face = [0, 0, 0, 0]
                Color(1, 1, 1, 0.18)
                Line(rectangle=(x + side * 0.1, y + side * 0.1, side * 0.7, side * 0.7),
                     width=1.5, dash_length=6, dash_offset=4)  # fmt: skip
        depth = side * 0.2
        self.padding = (0, depth, depth, 0)  # the letter sits on the cube's front face


def _shade(rgba: tuple[float, ...], factor: float) -> tuple[float, float, float, float]:
    """Lighter (factor > 1, towards white) or darker (factor < 1)."""
    if factor >= 1:
        return (*(c + (1 - c) * (factor - 1) for c in rgba[:3]), 1)  # type: ignore[return-value]
    return (*(c * factor for c in rgba[:3]), 1)  # type: ignore[return-value]


def _cube(
    x: float, y: float, side: float, rgba: tuple[float, ...], *, outline: bool
) -> tuple[float, ...]:
    """A cube seen from the front, a little from above and from the right."""
    depth = side * 0.2
    face = side - depth
    if outline:  # a black cube on a dark background: black faces, a light edge
        rgba = (0.05, 0.05, 0.06, 1)
        top: tuple[float, ...] = (0.25, 0.25, 0.27, 1)
        right: tuple[float, ...] = (0.12, 0.12, 0.13, 1)
    else:
        top, right = _shade(rgba, 1.35), _shade(rgba, 0.65)
    Color(*rgba)
    Rectangle(pos=(x, y), size=(face, face))
    Color(*top)
    Quad(points=[x, y + face, x + face, y + face, x + side, y + side, x + depth, y + side])
    Color(*right)
    Quad(points=[x + face, y, x + side, y + depth, x + side, y + side, x + face, y + face])
    Color(*((0.75, 0.75, 0.78, 1) if outline else _shade(rgba, 0.45)))
    Line(points=[x, y, x + face, y, x + side, y + depth, x + side, y + side, x + depth,
                 y + side, x, y + face, x, y], width=1.5, joint="round")  # fmt: skip
    Line(points=[x, y + face, x + face, y + face, x + side, y + side], width=1.2)
    Line(points=[x + face, y, x + face, y + face], width=1.2)
    return rgba


def _ghost(x: float, y: float, side: float) -> tuple[float, ...]:
    """A ghost: a round head, a body, a wavy hem and two dark eyes."""
    pale = colour("ghost")
    w = side * 0.8
    left = x + side * 0.1
    Color(*pale)
    Ellipse(pos=(left, y + side * 0.3), size=(w, side * 0.66))
    Rectangle(pos=(left, y + side * 0.16), size=(w, side * 0.47))
    bump = w / 3
    for i in range(3):
        Ellipse(pos=(left + i * bump, y + side * 0.04), size=(bump, side * 0.24))
    Color(0.1, 0.1, 0.14, 1)
    eye = side * 0.13
    Ellipse(pos=(left + w * 0.26, y + side * 0.58), size=(eye, eye * 1.4))
    Ellipse(pos=(left + w * 0.74 - eye, y + side * 0.58), size=(eye, eye * 1.4))
    return pale


class BagCount(Layout, BoxLayout):
    """One kind of cube in the bag before the draw: a small cube and, under it, how many
    (a figure the table reads)."""

    layouts = ("attack.kv",)

    kind = StringProperty("")
    count = StringProperty("")
    figure_size = NumericProperty("44sp")


class VerdictLine(Layout, BoxLayout):
    """One player after the attack: damage taken and health left, or knocked out. The
    damage is a figure with its word beside it (``damage``, ``damage_words``: the
    sentence's words around the number, in the language's order)."""

    layouts = ("attack.kv",)

    kind = StringProperty("")
    letter_text = StringProperty("")
    swatch = ListProperty([1, 1, 1, 1])
    ink = ListProperty([1, 1, 1, 1])
    damage_text = StringProperty("")  # the damage in words ("2 damage")
    damage = StringProperty("")  # its figure ("2")
    damage_words = StringProperty("")  # the words beside it ("damage")
    health = StringProperty("")
    health_text = StringProperty("")
    knocked_out = BooleanProperty(False)
    figure_size = NumericProperty("44sp")

    def on_kind(self, *args: Any) -> None:
        self.letter_text = letter(self.kind)
        self.swatch = list(colour(self.kind))
        self.ink = list(text_colour(self.kind))


class AttackView(Layout, ModalView):
    """The dragon attack as an event: the bag's counts, then the cubes drawn one at a
    time, large and in the middle; the verdict (each player's damage, health left,
    knock-outs) only once the last cube is shown, and then one plain Continue. The bag's
    counts, the damage and the health left are figures the whole table reads
    (companion.ui.figures: smaller with 5-6 players, as the table's)."""

    layouts = ("attack.kv",)

    title = StringProperty("")
    nonce_text = StringProperty("")
    outcome = StringProperty("")  # the verdict in one text (for the tests and the log)
    shown = NumericProperty(0)  # cubes shown so far
    finished = BooleanProperty(False)  # the last cube is shown: the verdict and Continue
    dismiss_text = StringProperty("")
    draw = ObjectProperty(None)
    figure_size = NumericProperty("44sp")  # px: the bag's counts, the damage, the health
    cube_side = NumericProperty(112)  # px: each cube drawn, as large as its room allows
    STEP = 0.6  # seconds between two cubes
    CUBE = 112  # px: the largest cube (one to five of them)
    LEAST_CUBE = 60  # px: the smallest, however many cubes and players

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.ids.cube_room.bind(size=self.fit_cubes)

    def play(self, attack: AttackEvent, step: float | None = None) -> None:
        from companion.ui.figures import figure_size  # (it builds on this module's labels)

        step = self.STEP if step is None else step
        draw = attack.draw
        self.draw = draw
        nonce, bag, drawn = draw.nonce, draw.bag, draw.drawn
        n = len(drawn)
        self.title = ned_(
            edition(), "The dragon attacks! ({n} cube)", "The dragon attacks! ({n} cubes)", n
        ).format(n=n)
        self.nonce_text = _("draw #{nonce}").format(nonce=nonce)
        self.dismiss_text = _("Continue")
        self.finished = False
        self.shown = 0
        seats = {k for k, _n in bag if k not in ("black", "ghost")}
        self.figure_size = figure_size(len(seats | {h.player for h in attack.hurt}))
        counts = self.ids.bag
        counts.clear_widgets()
        for kind, count in bag:
            if count:
                counts.add_widget(BagCount(kind=kind, count=str(count),
                                           figure_size=self.figure_size))  # fmt: skip
        cubes = self.ids.cubes
        cubes.clear_widgets()
        for _i in range(n):
            cubes.add_widget(CubeToken(size_hint=(None, None)))
        self._verdict(attack.hurt)
        self.fit_cubes()
        self._drawn = list(drawn)
        self._step = step
        if not self._drawn:
            self.finished = True
            return
        Clock.schedule_once(self._next_cube, step)

    def on_finished(self, view: Any, finished: bool) -> None:
        """Continue takes taps a moment after it appears (a finger still tapping the
        button that opened the attack, or the cubes, finds nothing)."""
        if finished:
            self.ids.dismiss.settle()

    def fit_cubes(self, *args: Any) -> None:
        """The cubes as large as the room the title, the bag and the verdict leave them
        (its room kept from the first cube), CUBE px at most, LEAST_CUBE at least."""
        cubes, room = self.ids.cubes, self.ids.cube_room
        tokens = list(cubes.children)
        n = len(tokens)
        gap = 12 if n <= 6 else 8
        wide = (room.width - dp(20) - gap * max(n - 1, 0)) / max(n, 1)
        side = int(max(self.LEAST_CUBE, min(self.CUBE, wide, room.height - dp(4))))
        cubes.spacing = gap
        for token in tokens:
            token.size = (side, side)
            token.font_size = max(36, int(side * 0.42))
        cubes.width = n * side + max(n - 1, 0) * gap
        self.cube_side = side

    def _next_cube(self, dt: float) -> None:
        tokens = list(reversed(self.ids.cubes.children))
        if self.shown >= len(self._drawn) or self.shown >= len(tokens):
            return
        tokens[self.shown].kind = self._drawn[self.shown]
        self.shown += 1
        if self.shown == len(self._drawn):
            self.finished = True  # the verdict shows with the last cube, Continue with it
        else:
            Clock.schedule_once(self._next_cube, self._step)

    def _verdict(self, hurt: tuple[HurtView, ...]) -> None:
        from companion.ui.figures import around

        box = self.ids.verdict
        box.clear_widgets()
        lines = []
        for h in hurt:
            p, n, out = h.player, h.damage, h.knocked_out
            damage = ngettext("{n} damage", "{n} damage", n).format(n=n) if n else ""
            # the figure drawn apart, the sentence's words beside it
            before, after = around(damage, str(n)) if n else ("", "")
            line = VerdictLine(kind=p, damage_text=damage, damage=str(n) if n else "",
                               damage_words=" ".join(w for w in (before, after) if w),
                               knocked_out=out, figure_size=self.figure_size)  # fmt: skip
            if out:
                line.health_text = _("knocked out!")
            elif h.health is not None:
                line.health = str(h.health)  # beside a heart: no words
            box.add_widget(line)
            words = f"{player_name(p)}: {damage}" if damage else player_name(p)
            if out:
                words += " · " + _("{p} is knocked out!").format(p=player_name(p))
            elif h.health is not None:
                words += " · " + ngettext("{n} health left", "{n} health left", h.health).format(
                    n=h.health
                )
            lines.append(words)
        box.cols = 2 if len(lines) > 2 else 1
        nobody = _("Nobody is hurt.")
        self.ids.nobody.text = "" if lines else nobody
        self.outcome = "\n".join(lines) or nobody
