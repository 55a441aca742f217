"""A cached part of the screen (companion.ui.cached) draws straight into the window for
its first frame, then into its framebuffer, and keeps drawing what it is given."""

from __future__ import annotations

import os

os.environ.setdefault("KIVY_WINDOW", "sdl2")

from kivy.base import EventLoop  # noqa: E402
from kivy.graphics import Color, Rectangle  # noqa: E402
from kivy.uix.label import Label  # noqa: E402
from kivy.uix.widget import Widget  # noqa: E402

from companion.ui.cached import Cached  # noqa: E402
from companion.ui.harness import window_pixels  # noqa: E402


def frames(n: int = 3) -> None:
    for _ in range(n):
        EventLoop.idle()


def test_a_cached_layout_moves_into_its_framebuffer_once_it_has_been_shown():
    EventLoop.ensure_window()
    window = EventLoop.window
    shown, hidden = Cached(size_hint=(None, None), size=(200, 60)), Cached()
    first = Label(text="first")
    shown.add_widget(first)
    assert shown.fbo is None and first.canvas in shown.canvas.children  # drawn directly
    window.add_widget(shown)
    try:
        frames()
        assert shown.fbo is not None and hidden.fbo is None  # never shown: never cached
        assert first.canvas in shown.fbo.children and first.canvas not in shown.canvas.children
        assert tuple(shown.fbo.size) == (200, 60)
        # what comes after goes into the framebuffer too, and leaves it
        second = Label(text="second")
        shown.add_widget(second)
        assert second.canvas in shown.fbo.children
        shown.remove_widget(first)
        assert first.canvas not in shown.fbo.children
        shown.size = (300, 80)
        frames()
        assert tuple(shown.fbo.size) == (300, 80)
        assert shown.children == [second] and second.parent is shown
    finally:
        window.remove_widget(shown)


def shown_at(x: int, y: int) -> tuple[int, int, int]:
    """The colour the window shows at (x, y), after a frame."""
    return window_pixels(x, y, 1, 1)[0]


def test_what_a_cached_layout_draws_is_on_the_screen_and_follows_its_changes():
    """The pixels, not the widget tree: a framebuffer made but never drawn shows an
    empty place while every widget reports the right texts."""
    EventLoop.ensure_window()
    window = EventLoop.window
    layout = Cached(size_hint=(None, None), size=(120, 80), pos=(40, 30))
    block = Widget(size_hint=(1, 1))
    with block.canvas:
        paint = Color(1, 0, 0, 1)
        patch = Rectangle(size=(120, 80))
    layout.add_widget(block)
    window.add_widget(layout)
    try:
        frames(4)
        assert layout.fbo is not None
        assert shown_at(100, 70) == (255, 0, 0)
        paint.rgba = (0, 1, 0, 1)  # a change inside: the framebuffer is drawn again
        frames(2)
        assert shown_at(100, 70) == (0, 255, 0)
        patch.size = (60, 80)  # the right half left empty: the window shows through
        frames(2)
        assert shown_at(70, 70) == (0, 255, 0) and shown_at(140, 70) != (0, 255, 0)
    finally:
        window.remove_widget(layout)
