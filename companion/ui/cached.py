"""A part of the screen drawn once and copied each frame until it changes.

Kivy draws the whole window at every frame in which anything changed. On the Pi's GPU
that is cheap; where OpenGL is rendered by the CPU (Mesa's llvmpipe, a desktop without a
GPU) each draw call costs, and a scan that changes one player's cube count would pay for
the whole table. A ``Cached`` layout draws its children into a texture of its own size
(an OpenGL framebuffer object) and the window draws that texture: one rectangle. Kivy's
framebuffer object renders its content again only when an instruction inside it changed,
so a part of the screen that did not change costs one copy.

Touches, ids and positions work as in any RelativeLayout: the children lie at (0, 0) in
the layout's own coordinates (``to_window`` turns them into the window's).
"""

from __future__ import annotations

from typing import Any

from kivy.graphics import Canvas, ClearBuffers, ClearColor, Color, Fbo, Rectangle
from kivy.uix.relativelayout import RelativeLayout


class Cached(RelativeLayout):
    def __init__(self, **kw: Any) -> None:
        self.canvas = Canvas()
        with self.canvas:
            self.fbo = Fbo(size=(1, 1))
            Color(1, 1, 1, 1)
            self._copy = Rectangle(size=(1, 1), texture=self.fbo.texture)
        with self.fbo:
            ClearColor(0, 0, 0, 0)
            ClearBuffers()
        super().__init__(**kw)
        self.fbind("size", self._resize)
        self._resize()

    def _resize(self, *args: Any) -> None:
        size = (max(1, round(self.width)), max(1, round(self.height)))
        if tuple(self.fbo.size) != size:
            self.fbo.size = size  # a new texture of that size
        self._copy.size = size
        self._copy.texture = self.fbo.texture

    # the children draw into the framebuffer object, not into the window
    def add_widget(self, *args: Any, **kw: Any) -> None:
        outer, self.canvas = self.canvas, self.fbo
        try:
            super().add_widget(*args, **kw)
        finally:
            self.canvas = outer

    def remove_widget(self, *args: Any, **kw: Any) -> None:
        outer, self.canvas = self.canvas, self.fbo
        try:
            super().remove_widget(*args, **kw)
        finally:
            self.canvas = outer

    def clear_widgets(self, *args: Any, **kw: Any) -> None:
        outer, self.canvas = self.canvas, self.fbo
        try:
            super().clear_widgets(*args, **kw)
        finally:
            self.canvas = outer
