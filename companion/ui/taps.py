"""Every tap means what the player meant, on every screen of every game.

Fingers double-tap, and a person who is not sure a tap took taps again a moment later,
while the screen changes under the finger. Three rules, held here once for the whole
touchscreen:

- **A second tap on the same spot within ``SAME_TAP`` seconds is the same tap**
  (``SameTap``, bound to the window before any widget sees the touch): a double tap on
  End turn ends one turn, a double tap on a card of the row takes one card.
- **A control that appeared, or whose meaning changed, less than ``SETTLE`` seconds
  before the finger came down ignores that touch, and looks it** (``SettleRule``): every
  button of every screen and pop-up, of every game kind, Settings, pickers, lists and
  the PIN pad alike. Before each frame is drawn the rule looks at every control the
  window shows and notes since when it has meant what it means (its ``meaning`` where
  it has one: the move it would commit; else its words); a control new or changed is
  veiled (dimmed) until its second has passed, and a touch on it does nothing, not even
  the press's feedback. A pop-up's buttons are new when it opens, so nothing under the
  finger that opened it acts in that second.
- **A tap acts on the table it was aimed at:** a screen keeps the controller's moment it
  was drawn for (``aim``), and the controller refuses an action whose aim is not the
  moment any more (``companion.live.LiveGame.aimed``), with a line that says so.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator
from typing import Any

from kivy.clock import Clock
from kivy.graphics import Color, InstructionGroup, Rectangle
from kivy.properties import BooleanProperty, StringProperty
from kivy.uix.behaviors import ButtonBehavior
from kivy.uix.button import Button
from kivy.uix.screenmanager import Screen
from kivy.uix.widget import Widget
from kivy.weakproxy import WeakProxy

SAME_TAP = 0.4  # seconds: a second tap on the same spot within it is the same tap
SETTLE = 1.0  # seconds a control that appeared or changed its meaning ignores taps
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


VEIL = (0.06, 0.07, 0.09, 0.55)  # a settling control: darkened, as inert things look


def meaning_of(control: Widget) -> tuple[str, bool]:
    """What a touch on ``control`` would do, as far as the rule can tell: its ``meaning``
    where it says one (the move it commits), else its words; and whether it shows at all
    (a control that starts to show, starts to mean something). A control greyed out
    that comes to take taps means what its words said while it was greyed."""
    meaning = getattr(control, "meaning", "")
    if not meaning:
        text = getattr(control, "text", "")
        meaning = text if isinstance(text, str) else ""
    return meaning, control.opacity > 0


def controls(window: Any) -> Iterator[tuple[Widget, Any]]:
    """Every control (a widget that takes presses) the window holds, pop-ups first, with
    where it lies: its screen's name, else the pop-up (or the window's layer) it is on."""
    for control, where, _place in placed_controls(window):
        yield control, where


def placed_controls(window: Any) -> Iterator[tuple[Widget, Any, tuple[int, int]]]:
    """``controls``, each with where it is in the window (its pos, rounded): found on the
    way down, as the offsets of the layouts that move what they hold (a RelativeLayout,
    a ScrollView), not asked of each control up through its parents."""
    stack: list[tuple[Widget, Any, float, float, bool]] = [
        (w, id(w), 0.0, 0.0, True) for w in reversed(window.children)
    ]
    while stack:
        widget, where, ox, oy, plain = stack.pop()
        if isinstance(widget, Screen):
            where = widget.name
        if isinstance(widget, ButtonBehavior):
            if plain:
                x, y = ox + widget.x, oy + widget.y
            else:  # under a layout that turns or scales: asked of the widget
                x, y = widget.to_window(*widget.pos)
            yield widget, where, (round(x), round(y))
        if widget.children:
            if plain and type(widget).to_parent is not Widget.to_parent:
                px, py = widget.to_parent(0, 0)
                qx, qy = widget.to_parent(1, 1)
                if abs(qx - px - 1) < 1e-9 and abs(qy - py - 1) < 1e-9:  # only moves them
                    ox, oy = ox + px, oy + py
                else:
                    plain = False
            stack.extend((child, where, ox, oy, plain) for child in widget.children)


class SettleRule:
    """The settle rule (see the module's words): one for the window, bound to its frames
    (``look``) and, through every control's press (``ButtonBehavior``), to its touches
    (``holds``)."""

    def __init__(self) -> None:
        # control -> [meaning, since when, the look that last saw it]
        self._seen: weakref.WeakKeyDictionary[Widget, list[Any]] = weakref.WeakKeyDictionary()
        self._veils: weakref.WeakKeyDictionary[Widget, InstructionGroup] = (
            weakref.WeakKeyDictionary()
        )
        self._looks = 0
        self._places: dict[tuple[Any, ...], float] = {}  # (screen, meaning, x, y) -> since
        self._wake: Any = None
        self.window: Any = None
        self.held = 0  # touches the rule took, and nothing done

    # ------------------------------------------------------------------ frames
    def attach(self, window: Any) -> None:
        """Look at the window's controls before each of its frames is drawn."""
        _install()
        if self.window is not None:
            self.window.funbind("on_draw", self.look)
        self.window = window
        self._places = {}  # an app started afresh: nothing it shows lay there before
        window.fbind("on_draw", self.look)

    def detach(self) -> None:
        if self.window is not None:
            self.window.funbind("on_draw", self.look)
            self.window = None
        if self._wake is not None:
            self._wake.cancel()
            self._wake = None

    @staticmethod
    def now() -> float:
        return float(Clock.time())  # the main loop's clock, when a touch comes to a control

    def look(self, *args: Any) -> None:
        """Note what every control shown means now, and since when; veil those whose
        second has not passed, unveil the others; come back when the next one settles."""
        if self.window is None:
            return
        now = self.now()
        self._looks += 1
        look = self._looks
        soonest: float | None = None
        places = self._places
        self._places = {}
        for control, where, at in placed_controls(self.window):
            meaning = meaning_of(control)
            seen = self._seen.get(control)
            place = (where, meaning, *at)
            if seen is None or seen[2] != look - 1 or seen[0] != meaning:
                # new under the finger, or changed; a control built again where one
                # meaning the same lay in the last frame is not new (a list redrawn)
                seen = [meaning, places.get(place, now), look]
                self._seen[control] = seen
            else:
                seen[2] = look
            self._places[place] = seen[1]
            left = seen[1] + SETTLE - now if meaning[1] and not control.disabled else 0.0
            self._show(control, left > 0)
            if left > 0:
                soonest = left if soonest is None else min(soonest, left)
        if self._wake is not None:
            self._wake.cancel()
            self._wake = None
        if soonest is not None:  # a frame then, drawn with them unveiled
            self._wake = Clock.schedule_once(self._frame, soonest + 0.01)

    def _frame(self, *args: Any) -> None:
        """Ask for a frame: the rule looks as it is drawn (never between frames, where a
        control built but not yet shown would be dated before anyone could see it)."""
        self._wake = None
        if self.window is not None:
            self.window.canvas.ask_update()

    def _show(self, control: Widget, settling: bool) -> None:
        if isinstance(control, Steady):
            control.settling = settling
        veil = self._veils.get(control)
        if settling:
            if veil is None:
                veil = InstructionGroup()
                veil.add(Color(*VEIL))
                veil.add(Rectangle(pos=control.pos, size=control.size))
                control.canvas.after.add(veil)
                self._veils[control] = veil
                control.fbind("pos", self._follow)  # it follows the control from now on
                control.fbind("size", self._follow)
        elif veil is not None:
            control.canvas.after.remove(veil)
            del self._veils[control]
            control.funbind("pos", self._follow)
            control.funbind("size", self._follow)

    def _follow(self, control: Widget, *args: Any) -> None:
        veil = self._veils.get(control)
        if veil is not None:
            rect = veil.children[-1]
            rect.pos, rect.size = control.pos, control.size

    # ----------------------------------------------------------------- touches
    def settling(self, control: Widget) -> bool:
        """Whether ``control`` would ignore a touch now: it appeared or changed its
        meaning less than SETTLE seconds ago, or it was not in the last frame drawn (no
        finger aimed at it), or it changed since."""
        left = self.left(control)
        return left is None or left > 0

    def left(self, control: Widget) -> float | None:
        """The seconds until ``control`` takes taps (0 once it does); None while the rule
        has not seen it as it is now (not drawn since it appeared or changed)."""
        control = _widget(control)
        seen = self._seen.get(control)
        if seen is None or seen[2] != self._looks or seen[0] != meaning_of(control):
            return None
        return max(0.0, seen[1] + SETTLE - self.now())

    def holds(self, control: Widget, touch: Any) -> bool:
        """Whether the rule takes ``touch`` from ``control`` (and nothing is done)."""
        if self.window is None or getattr(touch, "is_mouse_scrolling", False):
            return False
        if control.disabled or not control.collide_point(*touch.pos):
            return False
        if not self.settling(control):  # the touch comes to it as the finger comes down
            return False
        self.held += 1
        return True

    def restart(self, *controls: Widget) -> None:
        """``controls`` mean something new from now on (a verdict that just came, a
        screen just shown); those not drawn yet are new when they are."""
        now = self.now()
        for control in controls:
            seen = self._seen.get(_widget(control))
            if seen is not None:
                seen[1] = now
        self._frame()

    def release(self, *controls: Widget) -> None:
        """The second of ``controls`` is over (a person who waited for them; tests)."""
        self.look()
        for control in map(_widget, controls):
            seen = self._seen.get(control)
            if seen is not None:
                seen[1] = float("-inf")
            self._show(control, False)

    def release_all(self) -> None:
        """Every control's second is over (a screen looked at after a while; tests)."""
        self.release(*self._seen.keys())


RULE = SettleRule()  # the touchscreen's: one window, one rule


def _widget(control: Any) -> Any:
    """The widget itself, where kv's ids hand out a proxy of it."""
    return control.__ref__() if isinstance(control, WeakProxy) else control


def _install() -> None:
    """Every control's press goes through the rule first (done once)."""
    if getattr(ButtonBehavior, "_settle_rule", False):
        return
    pressed = ButtonBehavior.on_touch_down

    def on_touch_down(self: Any, touch: Any) -> bool:
        if RULE.holds(self, touch):
            return True  # taken, and nothing done: the widget beneath gets nothing either
        return bool(pressed(self, touch))

    ButtonBehavior.on_touch_down = on_touch_down
    ButtonBehavior._settle_rule = True


class Steady(Widget):
    """A control that says what it means (``meaning``: the move it commits, where its
    words do not say it all, as a card of the row in its place) and shows whether it is
    settling (``settling``, kept by the rule)."""

    settling = BooleanProperty(False)
    meaning = StringProperty("")

    def settle(self) -> None:
        """Inert for SETTLE seconds from now (a verdict that just came under it)."""
        RULE.restart(self)


def settle(widget: Widget) -> None:
    """Every control of ``widget`` (a screen just shown) inert a moment: what lay under
    the finger a moment ago means something else now."""
    RULE.restart(*(child for child in widget.walk() if isinstance(child, ButtonBehavior)))


class SteadyButton(Steady, Button):
    """A button whose meaning is its text (End turn naming the player, Start the first
    turn, Continue)."""

    def on_text(self, widget: Any, text: str) -> None:
        self.meaning = text
