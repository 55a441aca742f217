"""Every tap means what the player meant, on every screen of every game.

Fingers double-tap, and a tap lands a moment after the screen changed under it. Three
rules, held here once for the whole touchscreen:

- **A second tap on the same spot within ``SAME_TAP`` seconds is the same tap**
  (``SameTap``, bound to the window before any widget sees the touch): a double tap on
  End turn ends one turn, a double tap on a card of the row takes one card.
- **A target whose meaning changes is inert for ``SETTLE`` seconds, and looks it**
  (``Steady``, a button's behaviour): when End turn starts to name another player, or a
  card of the row re-flows under the finger, a finger already on its way does nothing.
- **A tap acts on the table it was aimed at:** a screen keeps the controller's moment it
  was drawn for (``aim``), and the controller refuses an action whose aim is not the
  moment any more (``companion.live.LiveGame.aimed``), with a line that says so.
"""

from __future__ import annotations

from typing import Any

from kivy.clock import Clock
from kivy.graphics import Color, Rectangle
from kivy.properties import BooleanProperty, StringProperty
from kivy.uix.button import Button
from kivy.uix.widget import Widget

SAME_TAP = 0.4  # seconds: a second tap on the same spot within it is the same tap
SETTLE = 0.6  # seconds a target that changed its meaning ignores taps
NEAR = 24  # px (about 5 mm): the same spot, for a fingertip


class SameTap:
    """Bound to the window's ``on_touch_down``: swallows the second tap of a double tap
    (returns True, so no widget sees it)."""

    def __init__(self) -> None:
        self.last: tuple[float, float, float] | None = None  # when, x, y
        self.swallowed = 0  # how many taps were taken as the one before them

    def __call__(self, window: Any, touch: Any) -> bool:
        if getattr(touch, "is_mouse_scrolling", False):
            return False
        when = float(getattr(touch, "time_start", 0.0))
        x, y = touch.pos
        last, self.last = self.last, (when, x, y)
        if last is None:
            return False
        then, lx, ly = last
        if 0 <= when - then < SAME_TAP and abs(x - lx) <= NEAR and abs(y - ly) <= NEAR:
            self.swallowed += 1
            return True
        return False


class Steady(Widget):
    """A button that is inert for ``SETTLE`` seconds after its meaning (its ``meaning``,
    by default its text) changes while it shows, and looks it: darkened. The first
    meaning a button gets is not a change (nothing was under the finger before)."""

    settling = BooleanProperty(False)
    meaning = StringProperty("")

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._settle: Any = None
        self._had_meaning = False  # the first meaning is not a change
        with self.canvas.after:
            self._veil_colour = Color(0.06, 0.07, 0.09, 0)
            self._veil = Rectangle(pos=self.pos, size=self.size)
        self.bind(pos=self._place_veil, size=self._place_veil)

    def _place_veil(self, *args: Any) -> None:
        self._veil.pos = self.pos
        self._veil.size = self.size

    def on_meaning(self, widget: Any, meaning: str) -> None:
        shown = self.get_root_window() is not None
        if not shown or not meaning:
            return
        if self._had_meaning:
            self.settle()
        self._had_meaning = True

    def settle(self) -> None:
        """Inert for SETTLE seconds from now."""
        if self._settle is not None:
            self._settle.cancel()
        self.settling = True
        self._settle = Clock.schedule_once(self._settled, SETTLE)

    def _settled(self, *args: Any) -> None:
        self._settle = None
        self.settling = False

    def on_settling(self, widget: Any, settling: bool) -> None:
        self._veil_colour.a = 0.55 if settling else 0  # inert: it looks it

    def on_touch_down(self, touch: Any) -> bool:
        if self.settling and self.collide_point(*touch.pos):
            return True  # taken, and nothing done: the widget beneath gets nothing either
        return bool(super().on_touch_down(touch))


def settle(widget: Widget) -> None:
    """Every steady target of ``widget`` (a screen just shown) inert a moment: what lay
    under the finger a moment ago means something else now."""
    for child in widget.walk():
        if isinstance(child, Steady):
            child.settle()


class SteadyButton(Steady, Button):
    """A button whose meaning is its text (End turn naming the player, Start the first
    turn, Continue)."""

    def on_text(self, widget: Any, text: str) -> None:
        self.meaning = text
