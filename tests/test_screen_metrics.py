"""The screen measurements catch what they are meant to catch."""

from __future__ import annotations

import os

os.environ.setdefault("KIVY_WINDOW", "sdl2")

from kivy.base import EventLoop  # noqa: E402
from kivy.uix.boxlayout import BoxLayout  # noqa: E402
from kivy.uix.button import Button  # noqa: E402
from kivy.uix.label import Label  # noqa: E402

from tests.screen_metrics import problems  # noqa: E402


def laid_out(root):
    EventLoop.ensure_window()
    window = EventLoop.window
    window.size = (800, 480)
    window.add_widget(root)
    for _ in range(3):
        EventLoop.idle()
    return root


def test_small_text_small_buttons_close_buttons_and_overflow_are_caught():
    root = BoxLayout(size_hint=(None, None), size=(700, 100), spacing=4)
    small = Label(text="tiny", font_size=15)
    figure = Label(text="7", font_size=30)
    root.add_widget(small)
    root.add_widget(figure)
    root.add_widget(Button(text="a", size_hint_x=None, width=30, font_size=20))
    root.add_widget(Button(text="b", size_hint_x=None, width=60, font_size=20))
    narrow = BoxLayout(size_hint_x=None, width=100)
    narrow.add_widget(Label(text="wide", font_size=20, size_hint_x=None, width=200))
    root.add_widget(narrow)
    try:
        found = "\n".join(problems(laid_out(root), {figure}))
    finally:
        root.parent.remove_widget(root)
    assert "text 'tiny' is 15 px (at least 20)" in found
    assert "text '7' is 30 px (at least 36)" in found
    assert "button 'a' is 30x100 px" in found
    assert "buttons 'a' and 'b' are 4 px apart" in found
    assert "text 'wide' sticks out of its place" in found


def test_a_screen_that_meets_the_numbers_has_no_problem():
    root = BoxLayout(size_hint=(None, None), size=(300, 100), spacing=8)
    root.add_widget(Label(text="fine", font_size=20))
    root.add_widget(Button(text="a", font_size=20))
    root.add_widget(Button(text="b", font_size=20))
    try:
        assert problems(laid_out(root)) == []
    finally:
        root.parent.remove_widget(root)


def test_texts_drawn_without_labels_are_measured_too():
    """A widget that draws its texts (companion.ui.drawn) is held to the same numbers:
    a small text, a small figure and a text wider than the widget are caught."""
    from kivy.metrics import dp

    from companion.kinds.clank.screens.panel import Figures
    from companion.ui.drawn import DrawnWidget

    class Sign(DrawnWidget):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.small = self.ink(15)
            self.wide = self.ink(20)

        def draw(self):
            self.small.show("small")
            self.small.place(self.x, self.y)
            self.wide.show("a text far wider than its sign")
            self.wide.place(self.x, self.top - self.wide.size[1])

    root = BoxLayout(size_hint=(None, None), size=(600, 100), spacing=8)
    sign = Sign(size_hint_x=None, width=120)
    row = Figures(clank="3", health="9", compact=True, size_hint_x=None, width=200)
    root.add_widget(sign)
    root.add_widget(row)
    try:
        laid_out(root)
        row.clank_ink.show("3", font_size=30)  # as if the figures were set too small
        row.clank_ink.place(row.x + dp(40), row.y)
        found = "\n".join(problems(root, set(row.figures())))
    finally:
        root.parent.remove_widget(root)
    assert "text 'small' is 15 px (at least 20)" in found
    assert "text 'a text far wider than its sign' sticks out of its place" in found
    assert "text '3' is 30 px (at least 36)" in found
    assert "'9'" not in found  # the health is drawn big enough
