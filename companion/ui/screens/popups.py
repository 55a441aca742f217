"""The pop-ups the screens share: a list to pick from, a question before what cannot be
taken back, the picker of a revealed card without a tag, and the admin PIN pad.

Layout in kv/popups.kv; the behaviour here only calls the controller (or the app).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from kivy.clock import Clock
from kivy.metrics import dp
from kivy.properties import BooleanProperty, StringProperty
from kivy.uix.gridlayout import GridLayout
from kivy.uix.modalview import ModalView

from companion.i18n import _, ngettext
from companion.pin import MAX_DIGITS, Lockout
from companion.ui.layouts import Layout
from companion.ui.screens.kit import table_button
from companion.ui.taps import SETTLE

INERT = SETTLE  # seconds it ignores taps after it appears: the settle rule's (companion.ui.taps)


class Picker(Layout, ModalView):
    """A scrolling list of big buttons; the chosen entry's callback runs on release."""

    layouts = ("popups.kv",)

    title = StringProperty("")

    def __init__(
        self, title: str, entries: Sequence[tuple[str, Callable[[], Any]]], **kw: Any
    ) -> None:
        super().__init__(size_hint=(0.96, 0.94), **kw)
        self.title = title
        grid: GridLayout = self.ids.grid
        grid.add_widget(table_button(_("Close"), self.close, background_color=(0.4, 0.2, 0.2, 1)))
        for text, action in entries:
            grid.add_widget(table_button(text, partial(self._choose, action)))

    def close(self) -> None:
        self.dismiss(animation=False)  # gone at once: the next tap reaches the table

    def _choose(self, action: Callable[[], Any]) -> None:
        self.close()
        action()


class Message(Layout, ModalView):
    """A text too long for its line, whole (the table's status line opens it); a tap
    anywhere puts it away."""

    layouts = ("popups.kv",)

    text = StringProperty("")

    def __init__(self, text: str, **kw: Any) -> None:
        super().__init__(size_hint=(0.94, None), height=dp(300), **kw)
        self.text = text

    def on_touch_down(self, touch: Any) -> bool:
        self.dismiss(animation=False)
        return True


class Confirm(Layout, ModalView):
    """A question before something that cannot be taken back: one tap never does it.
    "Cancel" and the action, far apart; the action runs on release. The action's button
    is inert for INERT seconds after the question appears, and looks it (a double tap on
    what opened the question does not answer it), and meanwhile a tap beside the
    question does not put it away either."""

    layouts = ("popups.kv",)

    question = StringProperty("")
    note = StringProperty("")
    yes_text = StringProperty("")
    cancel_text = StringProperty("")
    armed = BooleanProperty(False)  # the action's button takes taps (not in the first moment)

    def __init__(
        self, question: str, yes: str, action: Callable[[], Any], note: str = "", **kw: Any
    ) -> None:
        # centred, its buttons above the table's bottom line (End turn) whatever the question
        super().__init__(size_hint=(0.94, None), height=dp(300), **kw)
        self.question = question
        self.note = note
        self.yes_text = yes
        self.cancel_text = _("Cancel")
        self.action = action
        self._arming: Any = None

    def on_pre_open(self) -> None:
        self.armed = False
        if self._arming is not None:
            self._arming.cancel()
        self._arming = Clock.schedule_once(self._arm, INERT)

    def _arm(self, *args: Any) -> None:
        self.armed = True

    def on_touch_down(self, touch: Any) -> bool:
        if not self.armed and not self.collide_point(*touch.pos):
            self._touch_started_inside = None  # the second tap of a double tap: kept
            return True
        return bool(super().on_touch_down(touch))

    def close(self) -> None:
        if self._arming is not None:
            self._arming.cancel()
        self.dismiss(animation=False)

    def confirm(self) -> None:
        if not self.armed:
            return
        self.close()
        self.action()


class PinPad(Layout, ModalView):
    """The admin PIN, asked before Settings open (and before a tag is re-bound during a
    game). Typed, then OK: the app's ``Lockout`` counts wrong PINs, and while it holds
    the pad after too many the keys take nothing and the pad says how long to wait."""

    layouts = ("popups.kv",)

    entered = StringProperty("")
    message = StringProperty("")
    locked = BooleanProperty(False)

    def __init__(
        self,
        on_unlock: Callable[[], Any],
        *,
        check: Callable[[str], bool],
        lockout: Lockout,
        prompt: str = "",
        **kw: Any,
    ) -> None:
        super().__init__(**kw)
        self.on_unlock = on_unlock
        self.check = check
        self.lockout = lockout
        self.prompt = prompt or _("Admin PIN")
        self.message = self.prompt
        self._ticking: Any = None
        self.refresh()

    def digit(self, key: str) -> None:
        """A key of the pad: a digit, "clear" or "ok"."""
        if self.refresh():
            return  # locked out: the keys take nothing
        if key == "clear":
            self.entered = ""
            self.message = self.prompt
        elif key == "ok":
            self.submit()
        elif key.isdigit() and len(self.entered) < MAX_DIGITS:
            self.entered += key

    def submit(self) -> None:
        if not self.entered:
            return
        entered, self.entered = self.entered, ""
        result = self.lockout.attempt(entered, self.check)
        if result:
            self.dismiss(animation=False)
            self.on_unlock()
        elif not self.refresh():
            self.message = _("Wrong PIN")

    def refresh(self, *args: Any) -> bool:
        """Show the lock-out while it lasts; True while the pad is locked."""
        wait = self.lockout.wait()
        was_locked, self.locked = self.locked, wait > 0
        if self.locked:
            self.message = ngettext(
                "Too many wrong PINs: wait {n} second",
                "Too many wrong PINs: wait {n} seconds",
                wait,
            ).format(n=wait)
            if self._ticking is None:
                self._ticking = Clock.schedule_interval(self.refresh, 0.25)
        else:
            if was_locked:
                self.message = self.prompt
            self._stop_ticking()
        return self.locked

    def _stop_ticking(self) -> None:
        if self._ticking is not None:
            self._ticking.cancel()
            self._ticking = None

    def on_dismiss(self) -> None:
        self._stop_ticking()
