"""A QR code drawn with Kivy rectangles (no image files, no Pillow), and the proof of a
game shown full screen."""

from __future__ import annotations

from typing import Any

from kivy.clock import Clock
from kivy.graphics import Color, Rectangle
from kivy.properties import BooleanProperty, NumericProperty, StringProperty
from kivy.uix.behaviors import ButtonBehavior
from kivy.uix.modalview import ModalView
from kivy.uix.widget import Widget

from companion.ui.layouts import Layout
from companion.ui.taps import SETTLE

INERT = SETTLE  # seconds it ignores taps after it appears: the settle rule's (companion.ui.taps)


def qr_matrix(data: str, border: int = 2) -> list[list[bool]]:
    """The modules of a QR code for ``data`` (error level M: a glare on the glass may hide
    a few), quiet zone of ``border`` modules included."""
    import qrcode  # when a code is first drawn: the first frame has none

    code = qrcode.QRCode(error_correction=qrcode.constants.ERROR_CORRECT_M, border=border)
    code.add_data(data)
    code.make(fit=True)
    return [list(row) for row in code.get_matrix()]


class QRCode(Widget):
    data = StringProperty("")
    border = NumericProperty(2)  # the light quiet zone around the code, in modules
    module = NumericProperty(0)  # pixels per module as drawn (a phone wants 2.5 or more)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._matrix: list[list[bool]] = []
        self.bind(data=self._encode, border=self._encode, pos=self._paint, size=self._paint)
        if self.data:
            self._encode()

    def _encode(self, *args: Any) -> None:
        self._matrix = qr_matrix(self.data, int(self.border)) if self.data else []
        self._paint()

    def _paint(self, *args: Any) -> None:
        self.canvas.clear()
        if not self._matrix:
            self.module = 0
            return
        n = len(self._matrix)
        side = min(self.width, self.height)
        cell = max(int(side / n), 1)  # whole pixels: blurred modules do not scan
        self.module = cell
        full = cell * n
        # on whole pixels too: every module as wide as the next
        x0 = round(self.x + (self.width - full) / 2)
        y0 = round(self.y + (self.height - full) / 2)
        with self.canvas:
            Color(1, 1, 1, 1)
            Rectangle(pos=(x0, y0), size=(full, full))
            Color(0, 0, 0, 1)
            for r, row in enumerate(self._matrix):
                for c, dark in enumerate(row):
                    if dark:
                        Rectangle(pos=(x0 + c * cell, y0 + (n - 1 - r) * cell), size=(cell, cell))


class QRButton(ButtonBehavior, QRCode):
    """A QR code that a finger can tap (to see it full screen)."""


class ProofView(Layout, ModalView):
    """The verification data full screen: the QR code as large as the screen allows (a
    phone reads it at arm's length), the revealed server seed and the chain head in full.

    ``final`` False (the decks are still being scanned): the head so far, said in words
    over it not to be the one to photograph; a tap on the code or Close puts it away.
    ``final`` True (the game was just closed): the final head, the one to photograph; it
    stays until Done (inert for a moment: the finger that confirmed the close may land
    again), and a tap on the code does nothing."""

    layouts = ("proof.kv",)

    data = StringProperty("")
    seed_text = StringProperty("")
    head_text = StringProperty("")
    final = BooleanProperty(False)
    armed = BooleanProperty(True)  # Done takes taps (False for a moment after it appears)

    def __init__(
        self, data: str, seed_text: str, head_text: str, final: bool = False, **kw: Any
    ) -> None:
        super().__init__(size_hint=(1, 1), auto_dismiss=not final, **kw)
        self.data = data
        self.seed_text = seed_text
        self.head_text = head_text
        self.final = final
        self.armed = not final
        self._arming: Any = None

    def on_open(self) -> None:
        if self.final:
            self.armed = False
            self._arming = Clock.schedule_once(lambda dt: setattr(self, "armed", True), INERT)

    def on_dismiss(self) -> None:
        if self._arming is not None:
            self._arming.cancel()
            self._arming = None

    def show(self, data: str, seed_text: str, head_text: str) -> None:
        """The proof so far as it is now (a deck scanned while it is shown)."""
        self.data = data
        self.seed_text = seed_text
        self.head_text = head_text

    def tapped_code(self) -> None:
        if not self.final:
            self.close()

    def close(self) -> None:
        if self.final and not self.armed:
            return
        self.dismiss(animation=False)
