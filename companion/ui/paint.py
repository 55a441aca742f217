"""The window drawn again only where it changed.

Kivy draws the whole window at every frame in which anything in it changed. Where the CPU
draws OpenGL (Mesa's llvmpipe: a machine without a GPU driver, and the benchmarks) a frame
costs about the pixels it covers, some 8 ns each here whatever they show: a frame of the
table cost its whole window when a scan changed one player's panel.

So the window is drawn into a framebuffer of its own size, the *page*, which keeps what it
shows from one frame to the next. Before a frame, the boxes of window pixels whose drawing
changed are found (``companion.ui.damage``); only they are drawn again, the window's
canvas clipped with a scissor to each (where nothing is drawn, nothing is paid), over what
the page kept. The page is then copied to the window: with ``glBlitFramebuffer``, or as
one rectangle of its texture where the context has no such function. The parts of a
screen drawn into framebuffers of their own (``companion.ui.cached``) that changed are
drawn first, each clipped to where its children changed: a scissor inside the page's
pass would clip them.

What the page shows is what drawing the window whole shows, pixel for pixel: with
``check`` set, every frame is drawn whole a second time into a framebuffer of its own and
the two are compared (the tests and the monkey set it). Where the page cannot be made (a
rotated window, a framebuffer refused, a viewport that is not the window's size) Kivy's own
drawing is used.
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Callable, Iterator
from typing import Any

from companion.ui.damage import Box, Damage, merged

# OpenGL's names, as glext.h gives them
GL_FRAMEBUFFER = 0x8D40
GL_READ_FRAMEBUFFER = 0x8CA8
GL_DRAW_FRAMEBUFFER = 0x8CA9
GL_FRAMEBUFFER_BINDING = 0x8CA6
GL_COLOR_BUFFER_BIT = 0x4000
GL_NEAREST = 0x2600
GL_VIEWPORT = 0x0BA2
GL_SCISSOR_TEST = 0x0C11


class PaintMismatch(AssertionError):
    """A frame drawn where it changed differs from the same frame drawn whole."""


def _loaded(name: str) -> Iterator[str]:
    """The paths of the shared libraries of this process whose file name holds ``name``."""
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as maps:
            seen: set[str] = set()
            for line in maps:
                path = line.rstrip("\n").partition("/")[2]
                if path and name in path.rsplit("/", 1)[-1] and path not in seen:
                    seen.add(path)
                    yield "/" + path
    except OSError:
        return


def gl_function(name: str, *argtypes: Any) -> Callable[..., Any] | None:
    """An OpenGL function of the current context that Kivy does not wrap, found through
    SDL's loader (the one Kivy's window made the context with), or None."""
    for path in _loaded("libSDL2"):
        try:
            sdl = ctypes.CDLL(path)
            get = sdl.SDL_GL_GetProcAddress
        except (OSError, AttributeError):
            continue
        get.restype = ctypes.c_void_p
        get.argtypes = [ctypes.c_char_p]
        address = get(name.encode())
        if address:
            return ctypes.CFUNCTYPE(None, *argtypes)(address)
    return None


class Painter:
    """The window's ``on_draw``: the page drawn where it changed, then shown."""

    def __init__(self, window: Any) -> None:
        self.window = window
        self.kivy_draw: Callable[[], None] = window.on_draw  # Kivy's own: clear, draw all
        self.check = False
        self.off = False  # CLANK_PAINT=0: Kivy draws the whole window, as it would
        self.page: Any = None
        self.page_id = 0
        self.damage = Damage(window)
        self.whole = True  # the next frame is drawn whole
        self.drawn: list[Box] = []  # what the last frame drew again (the census reads it)
        self.frames = 0
        self._seen: tuple[Any, ...] = ()  # what drawing the whole window depends on
        self._blit: Callable[..., Any] | None = None
        self._blit_checked = False
        self._quad: Any = None  # the page as one rectangle, where there is no blit
        self._proof: Any = None  # the frame drawn whole, when checking

    # ------------------------------------------------------------ the frame
    def draw(self, *args: Any) -> None:
        from kivy.graphics.opengl import glGetIntegerv

        window = self.window
        size = int(window.width), int(window.height)
        viewport = tuple(glGetIntegerv(GL_VIEWPORT))[:4]
        # Kivy's own drawing: the first frame (no page to make before it), or when asked
        first = (self.frames == 0 and not self.check) or self.off
        self.frames += 1
        if first or window.rotation or viewport != (0, 0, *size) or not self._page_for(size):
            self.page = None
            self.drawn = [(0, 0, *size)]
            self.kivy_draw()
            return
        window_id = int(glGetIntegerv(GL_FRAMEBUFFER_BINDING)[0])
        context = window.render_context
        seen = (size, tuple(window.clearcolor), tuple(context["projection_mat"].get()),
                tuple(context["modelview_mat"].get()))  # fmt: skip
        whole = (0, 0, *size)
        if self.whole or seen != self._seen:
            boxes = [whole]
            self._seen = seen
            self.whole = False
            self.damage.record_all()
        else:
            boxes = merged(self.damage.find(), whole)
        self._framebuffers_first()
        self.drawn = boxes
        if boxes:
            self._draw_page(boxes)
        if self.check:
            self._compare(size, boxes)
        self._show(size, window_id)

    def _page_for(self, size: tuple[int, int]) -> bool:
        if self.page is not None and tuple(self.page.size) == size:
            return True
        from kivy.graphics import Fbo
        from kivy.graphics.opengl import glGetIntegerv

        try:
            self.page = Fbo(size=size, with_stencilbuffer=True)
        except Exception:  # a framebuffer refused: Kivy draws as it always did
            self.page = None
            return False
        self.page.bind()
        self.page_id = int(glGetIntegerv(GL_FRAMEBUFFER_BINDING)[0])
        self.page.release()
        self._proof = None
        self._quad = None
        self.whole = True
        return True

    def _draw_page(self, boxes: list[Box]) -> None:
        from kivy.graphics.opengl import glDisable, glEnable, glScissor

        window = self.window
        self.page.bind()
        try:
            if boxes != [(0, 0, int(window.width), int(window.height))]:
                glEnable(GL_SCISSOR_TEST)
            for x0, y0, x1, y1 in boxes:
                glScissor(x0, y0, x1 - x0, y1 - y0)
                window.clear()
                window.render_context.draw()
        finally:
            glDisable(GL_SCISSOR_TEST)
            self.page.release()

    def _show(self, size: tuple[int, int], window_id: int) -> None:
        """The page copied to the window."""
        from kivy.graphics.opengl import GL_NO_ERROR, glBindFramebuffer, glGetError

        first = not self._blit_checked
        if first:
            self._blit_checked = True
            self._blit = gl_function("glBlitFramebuffer", *[ctypes.c_int] * 8,
                                     ctypes.c_uint, ctypes.c_uint)  # fmt: skip
            while glGetError() != GL_NO_ERROR:  # errors of others, not the blit's
                pass
        w, h = size
        if self._blit is not None:
            glBindFramebuffer(GL_READ_FRAMEBUFFER, self.page_id)
            glBindFramebuffer(GL_DRAW_FRAMEBUFFER, window_id)
            self._blit(0, 0, w, h, 0, 0, w, h, GL_COLOR_BUFFER_BIT, GL_NEAREST)
            glBindFramebuffer(GL_FRAMEBUFFER, window_id)
            if not first or glGetError() == GL_NO_ERROR:
                return
            self._blit = None  # refused: the rectangle instead, from now on
        self._rectangle(size).draw()

    def _rectangle(self, size: tuple[int, int]) -> Any:
        """The page as one rectangle over the window, drawn without blending: it already
        holds what blending made of each pixel."""
        if self._quad is None:
            from kivy.graphics import Callback, Color, Rectangle, RenderContext
            from kivy.graphics.opengl import GL_BLEND, glDisable, glEnable

            quad = RenderContext(use_parent_projection=False)
            quad["projection_mat"] = self.window.render_context["projection_mat"]
            quad["modelview_mat"] = self.window.render_context["modelview_mat"]
            with quad:
                Callback(lambda instr: glDisable(GL_BLEND))
                Color(1, 1, 1, 1)
                Rectangle(size=size, texture=self.page.texture)
                Callback(lambda instr: glEnable(GL_BLEND))
            self._quad = quad
        return self._quad

    def _framebuffers_first(self) -> None:
        """The parts of the screen drawn into framebuffers of their own, those that
        changed, drawn before the page: each where its children changed (a scissor
        there, in the part's own pixels), or whole."""
        from kivy.graphics.opengl import glDisable, glEnable, glScissor

        from companion.ui.cached import shown_parts

        clips = self.damage.clips
        for part in shown_parts():
            fbo = part.fbo
            if not fbo.needs_redraw:
                continue
            clip = clips.get(part)
            if clip is None:
                fbo.draw()
                continue
            ox, oy = part.to_window(part.x, part.y)
            w, h = fbo.size
            x0, y0 = max(0, int(clip[0] - ox)), max(0, int(clip[1] - oy))
            x1, y1 = min(w, int(clip[2] - ox) + 1), min(h, int(clip[3] - oy) + 1)
            if x1 <= x0 or y1 <= y0:
                fbo.draw()  # nothing of it shows: drawn, so that it is not flagged
                continue
            glEnable(GL_SCISSOR_TEST)
            glScissor(x0, y0, x1 - x0, y1 - y0)
            try:
                fbo.draw()
            finally:
                glDisable(GL_SCISSOR_TEST)

    # ------------------------------------------------------------ the proof
    def _compare(self, size: tuple[int, int], boxes: list[Box]) -> None:
        """The frame drawn whole into a framebuffer of its own, and compared with the
        page; a difference raises PaintMismatch."""
        from kivy.graphics import Fbo
        from kivy.graphics.opengl import GL_RGBA, GL_UNSIGNED_BYTE, glReadPixels

        if self._proof is None or tuple(self._proof.size) != size:
            self._proof = Fbo(size=size, with_stencilbuffer=True)
        w, h = size
        pixels = []
        for fbo in (self._proof, self.page):
            fbo.bind()
            if fbo is self._proof:
                self.window.clear()
                self.window.render_context.draw()
            pixels.append(bytes(glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE)))
            fbo.release()
        whole, page = pixels
        if whole == page:
            return
        x0, y0, x1, y1 = _where_they_differ(whole, page, w, h)
        self.whole = True  # the next frame heals the page
        saved = ""
        folder = os.environ.get("CLANK_PAINT_CHECK_DIR", "")
        if folder:  # both frames, to look at
            try:
                os.makedirs(folder, exist_ok=True)
            except OSError as e:
                saved = f"; not saved in {folder}: {e.strerror}"
            else:
                for texture, name in ((self._proof.texture, "drawn-whole.png"),
                                      (self.page.texture, "drawn-where-changed.png")):  # fmt: skip
                    texture.save(os.path.join(folder, name), flipped=False)
                saved = f"; both frames saved in {folder}"
        raise PaintMismatch(
            f"the frame drawn where it changed differs from the frame drawn whole in "
            f"x {x0}-{x1}, y {y0}-{y1} (window pixels); drawn again: {boxes}{saved}"
        )


def _where_they_differ(a: bytes, b: bytes, w: int, h: int) -> Box:
    """The box (edges included) of the pixels in which two RGBA images of w x h differ."""
    row = w * 4
    ys = [y for y in range(h) if a[y * row : (y + 1) * row] != b[y * row : (y + 1) * row]]
    xs = [
        x
        for x in range(w)
        if any(a[y * row + x * 4 : y * row + x * 4 + 4] != b[y * row + x * 4 : y * row + x * 4 + 4]
               for y in ys)
    ]  # fmt: skip
    return xs[0], ys[0], xs[-1], ys[-1]


def install(window: Any) -> Painter:
    """The window drawn by a Painter from now on (one per window: a second call returns
    the first, its next frame drawn whole)."""
    painter = getattr(window, "_painter", None)
    if not isinstance(painter, Painter):
        painter = Painter(window)
        painter.off = os.environ.get("CLANK_PAINT", "") == "0"
        painter.check = os.environ.get("CLANK_PAINT_CHECK", "") == "1"
        window._painter = painter
        window.on_draw = painter.draw
    painter.whole = True
    return painter


def painter_of(window: Any) -> Painter | None:
    painter = getattr(window, "_painter", None)
    return painter if isinstance(painter, Painter) else None
