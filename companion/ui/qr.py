"""A QR code drawn with Kivy rectangles (no image files, no Pillow), and the proof of a
game shown full screen."""

from __future__ import annotations

from typing import Any

from kivy.graphics import Color, Rectangle
from kivy.properties import NumericProperty, StringProperty
from kivy.uix.behaviors import ButtonBehavior
from kivy.uix.modalview import ModalView
from kivy.uix.widget import Widget

from companion.ui.layouts import Layout


def qr_matrix(data: str) -> list[list[bool]]:
    """The modules of a QR code for ``data``, quiet zone included (error level M)."""
    import qrcode  # when a code is first drawn: the first frame has none

    code = qrcode.QRCode(error_correction=qrcode.constants.ERROR_CORRECT_M, border=2)
    code.add_data(data)
    code.make(fit=True)
    return [list(row) for row in code.get_matrix()]


class QRCode(Widget):
    data = StringProperty("")
    module = NumericProperty(0)  # pixels per module as drawn (a phone wants 2.5 or more)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._matrix: list[list[bool]] = []
        self.bind(data=self._encode, pos=self._paint, size=self._paint)

    def _encode(self, *args: Any) -> None:
        self._matrix = qr_matrix(self.data) if self.data else []
        self._paint()

    def _paint(self, *args: Any) -> None:
        self.canvas.clear()
        if not self._matrix:
            return
        n = len(self._matrix)
        side = min(self.width, self.height)
        cell = max(int(side / n), 1)  # whole pixels: blurred modules do not scan
        self.module = cell
        full = cell * n
        x0 = self.x + (self.width - full) / 2
        y0 = self.y + (self.height - full) / 2
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
    phone reads it at arm's length), the revealed server seed and the chain head in full."""

    layouts = ("scoring.kv",)

    data = StringProperty("")
    seed_text = StringProperty("")
    head_text = StringProperty("")

    def __init__(self, data: str, seed_text: str, head_text: str, **kw: Any) -> None:
        super().__init__(size_hint=(1, 1), auto_dismiss=True, **kw)
        self.data = data
        self.seed_text = seed_text
        self.head_text = head_text

    def close(self) -> None:
        self.dismiss(animation=False)
