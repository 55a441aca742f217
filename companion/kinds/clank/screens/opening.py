"""The opening: the set-up checklist, the commitment (text and QR code), the opening row
as it is dealt, and the seed words the table types. Layout in the kind's kv/opening.kv."""

from __future__ import annotations

from typing import Any

from kivy.clock import Clock
from kivy.factory import Factory
from kivy.properties import NumericProperty, StringProperty
from kivy.uix.screenmanager import Screen

from companion.i18n import _
from companion.kinds.clank.screens.shown import ClankScreen, clank
from companion.kinds.clank.view import TableView
from companion.ui.layouts import Layout, kind_layout
from companion.ui.screens.kit import grouped

KV = "companion.kinds.clank"  # the package whose kv/ holds its layouts


def docked_keyboard_height() -> float:
    """The height of Kivy's on-screen keyboard docked at the bottom (the kiosk), else 0."""
    from kivy.core.window import Window
    from kivy.uix.vkeyboard import VKeyboard

    if not getattr(Window, "docked_vkeyboard", False):
        return 0
    return max((w.height * w.scale for w in Window.children if isinstance(w, VKeyboard)),
               default=0)  # fmt: skip


class OpeningScreen(Layout, ClankScreen, Screen):
    """Set-up checklist, the commitment (text and QR), the opening row, the seed words."""

    layouts = (kind_layout(KV, "opening.kv"),)

    checklist = StringProperty("")
    commitment = StringProperty("")
    commitment_text = StringProperty("")  # all 64 digits, in groups of 8
    row_text = StringProperty("")
    seed_text = StringProperty("")

    def redraw(self, view: TableView) -> None:
        ctl = clank()
        self.checklist = "\n".join(f"• {line}" for line in ctl.checklist())
        self.commitment = view.commitment
        self.commitment_text = grouped(view.commitment, per_line=2)
        row = list(view.opening or ())
        self.row_text = _("Opening row ({n} of {size}): {cards}").format(
            n=len(row),
            size=view.row_size,
            cards=", ".join(row) or _("scan the cards as you deal them"),
        )
        seed = ctl.client_seed()
        self.seed_text = _("Client seed: {seed}").format(seed=seed or _("(empty)"))
        words = self.ids.words
        if words.text != view.words and not words.focus:
            words.text = view.words

    keyboard_room = NumericProperty(0)  # the on-screen keyboard's height, while typing

    def on_checklist(self, *args: Any) -> None:
        """A line to each step (two or three when long): a step scrolled partly out of
        sight is whole once a finger scrolls to it."""
        box = self.ids.checklist
        box.clear_widgets()
        for line in self.checklist.split("\n") if self.checklist else ():
            box.add_widget(Factory.OpeningLine(text=line))

    def typing(self, focused: bool) -> None:
        """The words field took (or left) the focus: in the kiosk, Kivy's on-screen
        keyboard docks at the bottom; the field moves up above it."""
        Clock.schedule_once(lambda dt: self._make_room(focused), 0)

    def _make_room(self, focused: bool) -> None:
        height = docked_keyboard_height() if focused else 0
        self.keyboard_room = max(0, height - self.to_window(self.x, self.y)[1])

    def words_changed(self, text: str) -> None:
        ctl = clank()
        if ctl.opening is not None and text != ctl.words:
            ctl.set_words(text)
            self.seed_text = _("Client seed: {seed}").format(seed=ctl.client_seed() or "-")
