"""A part of the screen drawn once and copied each frame until it changes.

Kivy draws the whole window at every frame in which anything changed. On the Pi's GPU
that is cheap; where OpenGL is rendered by the CPU (Mesa's llvmpipe, a desktop without a
GPU) each draw call costs, and a scan that changes one player's cube count would pay for
the whole table. A ``Cached`` layout draws its children into a texture of its own size
(an OpenGL framebuffer object) and the window draws that texture: one rectangle. Kivy's
framebuffer object renders its content again only when an instruction inside it changed,
so a part of the screen that did not change costs one copy.

A framebuffer costs more to make than it saves on the frame that makes it, and the
first frame of a screen is the one a player waits for. So a ``Cached`` layout starts as
a plain one, its children drawn straight into the window, and moves them into its
framebuffer once it has been shown (after the first frame that drew it).

Touches, ids and positions work as in any RelativeLayout: the children lie at (0, 0) in
the layout's own coordinates (``to_window`` turns them into the window's).

Where the CPU draws, every pixel copied or cleared costs, so a copy is made as cheaply as
the picture allows:

- a layout that lies on whole window pixels is copied texel for pixel (``nearest``):
  blending each pixel's neighbouring texels (``linear``) gives the same picture there,
  and is kept for a layout between pixels (5-6 players' panels are a third of a pixel
  off);
- a layout made ``opaque`` (its children paint every pixel of its box with opaque
  colours: a player's panel, its fill under everything) tells ``covering`` where nothing
  under its copy shows, and the window is not cleared there before a frame
  (``companion.ui.paint``); where it lies on whole pixels and nothing is drawn over it,
  a change inside it is drawn as its copy alone (``alone``).
"""

from __future__ import annotations

import math
import weakref
from typing import Any, NamedTuple

from kivy.uix.relativelayout import RelativeLayout

# the layouts not drawn into a framebuffer yet; after each frame, those in the window
# (they have just been drawn) are
_WAITING: weakref.WeakSet[Cached] = weakref.WeakSet()
_WATCHING: list[Any] = []  # the window whose frames are watched
_ALL: weakref.WeakSet[Cached] = weakref.WeakSet()  # every layout with a framebuffer
# the layouts whose framebuffer was made but no frame has drawn into it yet
_FRESH: weakref.WeakSet[Cached] = weakref.WeakSet()


def shown_parts() -> list[Cached]:
    """The layouts drawn into their framebuffers, in the window now (companion.ui.paint
    draws those that changed before the frame)."""
    return _in_window(_ALL)


def _in_window(layouts: weakref.WeakSet[Cached]) -> list[Cached]:
    """Those of ``layouts`` that are in the window now."""
    return [layout for layout in list(layouts) if layout.get_root_window() is not None]


class Copy(NamedTuple):
    """A layout shown, as the next frame copies it (``copies``)."""

    layout: Cached
    at: tuple[float, float, float, float]  # where its copy lies in the window (copied_at)
    opaque: bool  # made opaque, and its copy reaches the window as it is (as_it_is)

    @property
    def exact(self) -> bool:
        """Whether the copy lies on whole window pixels, a texel to a pixel."""
        x0, y0, x1, y1 = self.at
        return x0 == int(x0) and y0 == int(y0) and (x1 - x0, y1 - y0) == tuple(self.layout.fbo.size)


def copies() -> list[Copy]:
    """The layouts shown and how their copies lie, looked at once before a frame."""
    return [Copy(c, c.copied_at(), c.opaque and as_it_is(c)) for c in shown_parts()]


def covering(shown: list[Copy] | None = None) -> list[tuple[int, int, int, int]]:
    """The window pixels that the copies of the opaque layouts shown (``shown``, else
    looked at now) paint over whatever was drawn under them (x0, y0, x1, y1; x1 and y1
    excluded): each copy's box less two pixels all round. A copy between pixels blends
    two texels into each pixel, and the framebuffer's last column and row may lie past
    the layout's own edge (its size is rounded to whole pixels), so neither is counted.
    None where the copy does not reach the window as it is (``as_it_is``)."""
    out = []
    for copy in copies() if shown is None else shown:
        if copy.opaque:
            x0, y0, x1, y1 = copy.at
            out.append((math.floor(x0) + 2, math.floor(y0) + 2,
                        math.ceil(x1) - 2, math.ceil(y1) - 2))  # fmt: skip
    return out


def alone(shown: list[Copy]) -> list[tuple[Cached, tuple[int, int, int, int]]]:
    """The opaque layouts of ``shown`` whose copy paints every pixel of its box, and
    those boxes: a layout on whole window pixels (its corner and its size: its
    framebuffer's, copied texel for pixel) that reaches the window as it is. Where
    nothing is drawn over such a copy, drawing the copy alone there shows what drawing
    the whole window there would (``companion.ui.paint``)."""
    out = []
    for copy in shown:
        if copy.opaque and copy.exact and tuple(copy.layout.fbo.size) == tuple(copy.layout.size):
            x0, y0, x1, y1 = copy.at
            out.append((copy.layout, (int(x0), int(y0), int(x1), int(y1))))
    return out


_COPIER: list[Any] = []  # copy_alone's drawing: a render context, its rectangle


def _copier() -> tuple[Any, Any]:
    if not _COPIER:
        from kivy.graphics import Color, Rectangle, RenderContext

        context = RenderContext(use_parent_projection=False)
        with context:
            Color(1, 1, 1, 1)
            rectangle = Rectangle()
        _COPIER[:] = context, rectangle
    return _COPIER[0], _COPIER[1]


def as_it_is(widget: Any) -> bool:
    """Whether what the widget draws reaches the window as drawn: not faded (an opacity
    under 1 on the way up), not inside a stencil (a scroll view), not in a screen
    manager's transition (the window is its own parent)."""
    from kivy.uix.screenmanager import ScreenManager
    from kivy.uix.stencilview import StencilView

    while widget is not None and widget is not widget.parent:
        moving = isinstance(widget, ScreenManager) and widget.transition.is_active
        if getattr(widget, "opacity", 1) != 1 or isinstance(widget, StencilView) or moving:
            return False
        widget = widget.parent
    return True


def unsettled() -> bool:
    """Whether a layout in the window is not drawn into its framebuffer yet: not moved
    into one, or moved and no frame drawn since (the frame that draws it is the costly
    one: every draw of the part, into a new texture)."""
    return bool(_in_window(_WAITING) or _in_window(_FRESH))


def settle_now() -> None:
    """The layouts in the window that wait for their framebuffers get them now, rather
    than at the tick after the frame that drew them: the next frame draws into them."""
    _move(_in_window(_WAITING))


def _move(layouts: list[Cached]) -> None:
    """Each of ``layouts`` drawn into its framebuffer from now on, waiting no more."""
    for layout in layouts:
        _WAITING.discard(layout)
        layout.cache()


def _after_a_frame(window: Any, *args: Any) -> None:
    """After a frame (when the window flips it, before it is shown): the layouts that
    were drawn in it are cached at the next tick, not while the frame waits; those
    cached before it have been drawn into their framebuffers."""
    for layout in _in_window(_FRESH):
        _FRESH.discard(layout)
    shown = _in_window(_WAITING)
    if shown:  # each waits until then (unsettled tells)
        from kivy.clock import Clock

        Clock.schedule_once(lambda dt: _move(shown))


def _watch_frames() -> None:
    if not _WATCHING:
        from kivy.core.window import Window

        Window.fbind("on_flip", _after_a_frame)
        _WATCHING.append(Window)


class Cached(RelativeLayout):
    canvas: Any

    def __init__(self, opaque: bool = False, **kw: Any) -> None:
        self.fbo: Any = None  # made by cache()
        self._copy: Any = None
        self.opaque = opaque  # every pixel of its box painted, opaque, by its children
        super().__init__(**kw)
        _WAITING.add(self)
        _watch_frames()

    # ------------------------------------------------------------ the framebuffer
    def cache(self) -> None:
        """Draw the children into a framebuffer from now on (done once)."""
        if self.fbo is not None:
            return
        from kivy.graphics import ClearBuffers, ClearColor, Color, Fbo, Rectangle

        self.fbo = Fbo(size=self._fbo_size())
        _ALL.add(self)
        _FRESH.add(self)
        with self.fbo:
            ClearColor(0, 0, 0, 0)
            ClearBuffers()
        for child in reversed(self.children):  # in the order they are drawn
            self.canvas.remove(child.canvas)
            self.fbo.add(child.canvas)
        self.canvas.add(self.fbo)  # drawing the canvas renders the framebuffer, if it changed
        self.canvas.add(Color(1, 1, 1, 1))
        self._copy = Rectangle(size=self.fbo.size, texture=self.fbo.texture)
        self.canvas.add(self._copy)
        self.fbind("size", self._resize)

    def copied_at(self) -> tuple[float, float, float, float]:
        """Where the copy lies in the window (x0, y0, x1, y1): the framebuffer's size
        from the layout's corner."""
        w, h = self.fbo.size
        x0, y0 = self.to_window(self.x, self.y)
        x1, y1 = self.to_window(self.x + w, self.y + h)
        return x0, y0, x1, y1

    def copy_alone(self, window: Any, at: tuple[int, int, int, int]) -> Any:
        """The copy by itself, to draw into ``window``'s frame: the framebuffer's
        texture where the layout lies (``at``: its box, from ``alone``), drawn as the
        copy in the window's canvas is (one drawing for every layout: one shader
        program, bound once)."""
        context, rectangle = _copier()
        context["projection_mat"] = window.render_context["projection_mat"]
        context["modelview_mat"] = window.render_context["modelview_mat"]
        rectangle.pos, rectangle.size = at[:2], self.fbo.size
        rectangle.texture = self.fbo.texture
        return context

    def copy_exactly(self, exact: bool) -> None:
        """The copy sampled texel for pixel where the layout lies on whole window pixels
        (``exact``: ``Copy.exact``), a texel to a pixel; else blended as Kivy samples a
        texture (done before a frame)."""
        texture = self.fbo.texture
        sampled = "nearest" if exact else "linear"
        if texture.mag_filter != sampled:
            texture.mag_filter = texture.min_filter = sampled

    def _fbo_size(self) -> tuple[int, int]:
        return max(1, round(self.width)), max(1, round(self.height))

    def _resize(self, *args: Any) -> None:
        size = self._fbo_size()
        if tuple(self.fbo.size) != size:
            self.fbo.size = size  # a new texture of that size
        self._copy.size = size
        self._copy.texture = self.fbo.texture

    # once cached, the children draw into the framebuffer object, not into the window
    def add_widget(self, *args: Any, **kw: Any) -> None:
        self._into_fbo(super().add_widget, *args, **kw)

    def remove_widget(self, *args: Any, **kw: Any) -> None:
        self._into_fbo(super().remove_widget, *args, **kw)

    def clear_widgets(self, *args: Any, **kw: Any) -> None:
        self._into_fbo(super().clear_widgets, *args, **kw)

    def _into_fbo(self, change: Any, *args: Any, **kw: Any) -> None:
        if self.fbo is None:
            change(*args, **kw)
            return
        outer: Any = self.canvas
        self.canvas = self.fbo
        try:
            change(*args, **kw)
        finally:
            self.canvas = outer
