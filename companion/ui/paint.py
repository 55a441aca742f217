"""The window drawn again only where it changed.

Kivy draws the whole window at every frame in which anything in it changed. Where the CPU
draws OpenGL (Mesa's llvmpipe: a machine without a GPU driver, and the benchmarks) a frame
costs about the pixels it covers, some 8 ns each here whatever they show: a frame of the
table cost its whole window when a scan changed one player's panel.

So before a frame, the boxes of window pixels whose drawing changed are found
(``companion.ui.damage``), and only they are drawn again: the window's canvas clipped
with a scissor to each (where nothing is drawn, nothing is paid), over what the buffer
already holds. Which buffer:

- **the window's own**, where it says what it holds (``buffer_age``): SDL's offscreen
  window is one buffer that keeps its frame; a window of several buffers (Wayland, KMS,
  X11) that tells each buffer's age is brought up to this frame by drawing where the
  frames since it was last drawn changed (``to_draw``). Only in a window without
  multisampling, whose pixels are the page's: the app's has none
  (``companion.ui.window_settings``).
- **the page** otherwise: a framebuffer of the window's size, which keeps the frame; it
  is copied to the window after (with ``glBlitFramebuffer``, or as one rectangle of its
  texture where the context has no such function).

The parts of a screen drawn into framebuffers of their own (``companion.ui.cached``)
that changed are drawn first, each clipped to where its children changed: a scissor in
the window's pass would clip them. Where a change lies inside an opaque part's copy on
whole pixels and nothing is drawn over it (a player's panel when a clank is tapped),
that copy alone is drawn there: a walk of the window's canvas costs every draw call in
it, wherever the scissor is.

What is shown is what drawing the window whole shows, pixel for pixel: with ``check``
set, every frame is drawn whole a second time and the two are compared (the tests and
the monkey set it): in the window's buffer, over what was drawn in part; beside the
page, in a framebuffer of its own. Where neither buffer can be used (a
rotated window, a framebuffer refused, a viewport that is not the window's size) Kivy's
own drawing is used. ``CLANK_PAINT=0`` leaves every frame to Kivy, ``CLANK_PAINT=page``
never draws straight into the window.
"""

from __future__ import annotations

import ctypes
import logging
import os
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from companion.ui.damage import Box, Damage, merged, uncovered, union, within

# OpenGL's names, as glext.h gives them
GL_FRAMEBUFFER = 0x8D40
GL_READ_FRAMEBUFFER = 0x8CA8
GL_DRAW_FRAMEBUFFER = 0x8CA9
GL_FRAMEBUFFER_BINDING = 0x8CA6
GL_COLOR_BUFFER_BIT = 0x4000
GL_NEAREST = 0x2600
GL_VIEWPORT = 0x0BA2
GL_SCISSOR_TEST = 0x0C11
GL_SAMPLE_BUFFERS = 0x80A8

log = logging.getLogger(__name__)

KEPT = 4  # frames whose changes are kept: a window of up to KEPT + 1 buffers is drawn in


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


def _library(name: str, symbol: str) -> Any:
    """The shared library of this process whose file name holds ``name`` and which has
    ``symbol``, or None."""
    for path in _loaded(name):
        try:
            library = ctypes.CDLL(path)
            getattr(library, symbol)
        except (OSError, AttributeError):
            continue
        return library
    return None


def gl_function(name: str, *argtypes: Any) -> Callable[..., Any] | None:
    """An OpenGL function of the current context that Kivy does not wrap, found through
    SDL's loader (the one Kivy's window made the context with), or None."""
    sdl = _library("libSDL2", "SDL_GL_GetProcAddress")
    if sdl is None:
        return None
    get = sdl.SDL_GL_GetProcAddress
    get.restype = ctypes.c_void_p
    get.argtypes = [ctypes.c_char_p]
    address = get(name.encode())
    return ctypes.CFUNCTYPE(None, *argtypes)(address) if address else None


EGL_EXTENSIONS, EGL_DRAW, EGL_BUFFER_AGE = 0x3055, 0x3059, 0x313D
GLX_EXTENSIONS, GLX_BACK_BUFFER_AGE = 3, 0x20F4


def buffer_age() -> Callable[[], int] | None:
    """How the window tells, before a frame, how many frames ago the buffer about to be
    drawn was drawn (1: it holds the last frame; 0: not known), or None where it cannot.

    - SDL's ``offscreen`` window is an EGL pixel buffer: one buffer, which a swap leaves
      as it is (EGL 1.5, 3.10.3: "If surface is a pixel buffer [...] eglSwapBuffers has
      no effect"): always 1.
    - An EGL window (Wayland, KMS, X11 through EGL) that offers EGL_EXT_buffer_age, and a
      GLX window that offers GLX_EXT_buffer_age, say it."""
    sdl = _library("libSDL2", "SDL_GetCurrentVideoDriver")
    if sdl is not None:
        sdl.SDL_GetCurrentVideoDriver.restype = ctypes.c_char_p
        if sdl.SDL_GetCurrentVideoDriver() == b"offscreen":
            return lambda: 1
    egl = _library("libEGL", "eglGetCurrentDisplay")
    if egl is not None:
        egl.eglGetCurrentDisplay.restype = ctypes.c_void_p
        egl.eglGetCurrentSurface.restype = ctypes.c_void_p
        egl.eglGetCurrentSurface.argtypes = [ctypes.c_int]
        egl.eglQueryString.restype = ctypes.c_char_p
        egl.eglQueryString.argtypes = [ctypes.c_void_p, ctypes.c_int]
        egl.eglQuerySurface.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int,
                                        ctypes.POINTER(ctypes.c_int)]  # fmt: skip
        display = egl.eglGetCurrentDisplay()
        if display and b"EGL_EXT_buffer_age" in (egl.eglQueryString(display, EGL_EXTENSIONS)
                                                 or b"").split():  # fmt: skip

            def egl_age() -> int:
                age = ctypes.c_int(0)
                surface = egl.eglGetCurrentSurface(EGL_DRAW)
                if not egl.eglQuerySurface(display, surface, EGL_BUFFER_AGE, ctypes.byref(age)):
                    return 0
                return age.value

            return egl_age
    glx = _library("libGL", "glXGetCurrentDisplay")
    if glx is not None:
        glx.glXGetCurrentDisplay.restype = ctypes.c_void_p
        glx.glXGetCurrentDrawable.restype = ctypes.c_ulong
        glx.glXQueryExtensionsString.restype = ctypes.c_char_p
        glx.glXQueryExtensionsString.argtypes = [ctypes.c_void_p, ctypes.c_int]
        glx.glXQueryDrawable.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_int,
                                         ctypes.POINTER(ctypes.c_uint)]  # fmt: skip
        display = glx.glXGetCurrentDisplay()
        if display and b"GLX_EXT_buffer_age" in (glx.glXQueryExtensionsString(display, 0)
                                                 or b"").split():  # fmt: skip

            def glx_age() -> int:
                age = ctypes.c_uint(0)
                drawable = glx.glXGetCurrentDrawable()
                if not drawable:
                    return 0
                glx.glXQueryDrawable(display, drawable, GLX_BACK_BUFFER_AGE, ctypes.byref(age))
                return int(age.value)

            return glx_age
    return None


def to_draw(changes: list[list[Box]], changed: list[Box], age: int, whole: Box) -> list[Box] | None:
    """What to draw into a window buffer last drawn ``age`` frames ago so that it shows
    this frame: where this frame changed and where the ``age - 1`` frames since it
    changed (``changes``: the last frames', oldest first); the whole window when those
    are not known; None when the age is not known (0)."""
    if age < 1:
        return None
    if age - 1 > len(changes):
        return [whole]
    since = [box for older in changes[len(changes) - (age - 1) :] for box in older]
    return merged(changed + since, whole)


class Painter:
    """The window's ``on_draw``: the page drawn where it changed, then shown."""

    def __init__(self, window: Any) -> None:
        self.window = window
        self.kivy_draw: Callable[[], None] = window.on_draw  # Kivy's own: clear, draw all
        self.check = False
        self.off = False  # CLANK_PAINT=0: Kivy draws the whole window, as it would
        self.page: Any = None
        self.page_id = 0
        self._window_id = 0  # the window's framebuffer, as the frame began
        self.damage = Damage(window)
        self.whole = True  # the next frame is drawn whole
        self.drawn: list[Box] = []  # what the last frame drew again (the census reads it)
        self.frames = 0
        self._seen: tuple[Any, ...] = ()  # what drawing the whole window depends on
        self._blit: Callable[..., Any] | None = None
        self._blit_checked = False
        self._quad: Any = None  # the page as one rectangle, where there is no blit
        self.changes: deque[list[Box]] = deque(maxlen=KEPT)  # where the last frames changed
        self.mode = "kivy"  # how the last frame was drawn: "kivy", "window" or "page"
        self.page_only = False  # CLANK_PAINT=page: never straight into the window
        self._fresh = True  # the page was just made: drawn whole
        self._age: Callable[[], int] | None = None
        self._age_checked = False
        self._proof: Any = None  # the frame drawn whole, when checking

    # ------------------------------------------------------------ the frame
    def draw(self, *args: Any) -> None:
        from kivy.graphics.opengl import glGetIntegerv

        window = self.window
        size = int(window.width), int(window.height)
        whole = (0, 0, *size)
        viewport = tuple(glGetIntegerv(GL_VIEWPORT))[:4]
        # Kivy's own drawing: the first frame (no page to make before it), or when asked
        first = (self.frames == 0 and not self.check) or self.off
        self.frames += 1
        if first or window.rotation or viewport != (0, 0, *size):
            self._kivy(whole)
            return
        window_id = self._window_id = int(glGetIntegerv(GL_FRAMEBUFFER_BINDING)[0])
        context = window.render_context
        seen = (size, tuple(window.clearcolor), tuple(context["projection_mat"].get()),
                tuple(context["modelview_mat"].get()))  # fmt: skip
        if self.whole or seen != self._seen:
            changed = [whole]
            self._seen = seen
            self.whole = False
            self.damage.record_all()
        else:
            changed = self.damage.find()
        from companion.ui.cached import copies as looked_at

        shown = looked_at()  # the parts drawn into framebuffers, and where their copies lie
        copies, rest = self._copies_alone(changed, shown)
        boxes = to_draw(list(self.changes), rest, self._window_age(), whole)
        if boxes is not None:  # the window's buffer holds a frame we know: drawn in it
            self.mode = "window"
            self.page = None  # not kept up to date from here on
        elif self._page_for(size):
            self.mode = "page"
            boxes = [whole] if self._fresh else merged(rest, whole)
            self._fresh = False
        else:
            self._kivy(whole)
            return
        self.changes.append(changed)
        self._framebuffers_first(shown)
        if boxes == [whole]:
            copies = []  # drawn whole: the copies with the rest
        self.drawn = boxes + [box for _part, _at, box in copies]
        if boxes:
            self._draw_into(boxes, shown)
        if copies:
            self._draw_copies(copies)
        if self.check:
            self._compare(size, boxes)
        if self.mode == "page":
            self._show(size, window_id)

    def _kivy(self, whole: Box) -> None:
        """Kivy draws the window whole, as it always did."""
        self.mode = "kivy"
        self.page = None
        self.changes.append([whole])
        self.drawn = [whole]
        self.kivy_draw()

    def _window_age(self) -> int:
        """How many frames ago the window's buffer about to be drawn was drawn; 0 where
        the window does not say (then the page keeps the frame)."""
        if not self._age_checked:
            from kivy.graphics.opengl import glGetIntegerv

            self._age_checked = True
            # a window that blends samples of each pixel draws edges otherwise than the
            # page (and the proof) would: drawn on the page (the app's has none)
            single = int(glGetIntegerv(GL_SAMPLE_BUFFERS)[0]) == 0
            self._age = buffer_age() if single else None
        if self._age is None or self.page_only:
            return 0
        try:
            return int(self._age())
        except (OSError, ValueError, ctypes.ArgumentError):
            self._age = None
            return 0

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
        self._fresh = True
        return True

    @contextmanager
    def _target(self) -> Iterator[None]:
        """The buffer this frame is drawn in bound: the page, or the window's own."""
        if self.mode == "page":
            self.page.bind()
        else:
            from kivy.graphics.opengl import glBindFramebuffer

            glBindFramebuffer(GL_FRAMEBUFFER, self._window_id)
        try:
            yield
        finally:
            if self.mode == "page":
                self.page.release()

    def _draw_into(self, boxes: list[Box], shown: list[Any]) -> None:
        """The window's canvas drawn into this frame's buffer, clipped to each of
        ``boxes``."""
        from kivy.graphics.opengl import glClear, glClearColor, glDisable, glEnable, glScissor

        from companion.ui.cached import covering

        window = self.window
        whole = boxes == [(0, 0, int(window.width), int(window.height))]
        covered = [] if whole else covering(shown)  # a whole window: cleared at once, unclipped
        with self._target():
            if not whole:
                glEnable(GL_SCISSOR_TEST)
            # the background only: nothing Kivy draws tests depths, and a stencil is
            # cleared by the first StencilPush that uses it (a third less to clear);
            # not under an opaque part's copy, which paints over it
            glClearColor(*window.clearcolor)
            try:
                for box in boxes:
                    for x0, y0, x1, y1 in uncovered(box, covered):
                        glScissor(x0, y0, x1 - x0, y1 - y0)
                        glClear(GL_COLOR_BUFFER_BIT)
                    x0, y0, x1, y1 = box
                    glScissor(x0, y0, x1 - x0, y1 - y0)
                    window.render_context.draw()
            finally:
                glDisable(GL_SCISSOR_TEST)

    def _copies_alone(
        self, changed: list[Box], shown: list[Any]
    ) -> tuple[list[tuple[Any, Box, Box]], list[Box]]:
        """The boxes that changed inside the copy of an opaque part on whole pixels
        (``companion.ui.cached.alone``) over which nothing is drawn, each with its part:
        there the part's copy alone is drawn, the window's canvas is not walked (a walk
        costs every draw call in the window, wherever the scissor is); and the others."""
        if not changed or changed == [self.damage.whole()]:
            return [], changed
        from companion.ui.cached import alone

        parts = alone(shown)
        if not parts:
            return [], changed
        inside: dict[Any, tuple[Box, Box, list[Box]]] = {}  # part: its box, the union, them
        rest: list[Box] = []
        for box in changed:
            held = next(((p, at) for p, at in parts if within(box, at)), None)
            if held is None:
                rest.append(box)
                continue
            part, at = held
            _at, joined, found = inside.get(part, (at, box, []))
            inside[part] = at, union(joined, box) or box, [*found, box]
        copies: list[tuple[Any, Box, Box]] = []
        for part, (at, joined, found) in inside.items():
            if self.damage.drawn_over(part, joined):
                rest += found
            else:
                copies.append((part, at, joined))
        return copies, rest

    def _draw_copies(self, copies: list[tuple[Any, Box, Box]]) -> None:
        """Each part's copy alone (where it lies, ``at``), clipped to its box that
        changed."""
        from kivy.graphics.opengl import glDisable, glEnable, glScissor

        with self._target():
            glEnable(GL_SCISSOR_TEST)
            try:
                for part, at, (x0, y0, x1, y1) in copies:
                    glScissor(x0, y0, x1 - x0, y1 - y0)
                    part.copy_alone(self.window, at).draw()
            finally:
                glDisable(GL_SCISSOR_TEST)

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

    def _framebuffers_first(self, shown: list[Any]) -> None:
        """The parts of the screen drawn into framebuffers of their own, those that
        changed, drawn before the page: each where its children changed (a scissor
        there, in the part's own pixels), or whole."""
        from kivy.graphics.opengl import glDisable, glEnable, glScissor

        clips = self.damage.clips
        for copy in shown:
            part = copy.layout
            part.copy_exactly(copy.exact)
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
        """The frame drawn whole into the same kind of buffer, and compared with what
        this frame's buffer (the window's, or the page's) holds; a difference raises
        PaintMismatch. The window's own buffer is read, then drawn whole again and read
        once more: Mesa may draw an edge that falls exactly between two pixels on the
        other side of it in a window's buffer than in a framebuffer of the app's (they
        are stored upside down from each other), so a proof drawn elsewhere would find
        differences that no partial drawing made."""
        from kivy.graphics import Fbo
        from kivy.graphics.opengl import GL_RGBA, GL_UNSIGNED_BYTE, glReadPixels

        w, h = size
        with self._target():
            drawn = bytes(glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE))
        # the page's proof in a framebuffer of its own; the window's buffer drawn whole
        # over what was drawn in part
        proof = None
        if self.mode == "page":
            if self._proof is None or tuple(self._proof.size) != size:
                self._proof = Fbo(size=size, with_stencilbuffer=True)
            proof = self._proof
            proof.bind()
        self.window.clear()
        self.window.render_context.draw()
        whole = bytes(glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE))
        if proof is not None:
            proof.release()
        if whole == drawn:
            return
        x0, y0, x1, y1 = _where_they_differ(whole, drawn, w, h)
        self.whole = True  # the next frame heals what was drawn
        saved = ""
        folder = os.environ.get("CLANK_PAINT_CHECK_DIR", "")
        if folder:  # both frames, to look at
            try:
                os.makedirs(folder, exist_ok=True)
            except OSError as e:
                saved = f"; not saved in {folder}: {e.strerror}"
            else:
                from kivy.graphics.texture import Texture

                for pixels, name in ((whole, "drawn-whole.png"),
                                     (drawn, "drawn-where-changed.png")):  # fmt: skip
                    texture = Texture.create(size=size, colorfmt="rgba")
                    texture.blit_buffer(pixels, colorfmt="rgba", bufferfmt="ubyte")
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
        asked = os.environ.get("CLANK_PAINT", "")
        if asked not in ("", "0", "page"):
            log.warning("CLANK_PAINT=%s is neither 0 nor page: the window is drawn again "
                        "where it changed, as without it", asked)  # fmt: skip
        painter.off = asked == "0"
        painter.page_only = asked == "page"
        painter.check = os.environ.get("CLANK_PAINT_CHECK", "") == "1"
        window._painter = painter
        window.on_draw = painter.draw
    painter.whole = True
    return painter


def painter_of(window: Any) -> Painter | None:
    painter = getattr(window, "_painter", None)
    return painter if isinstance(painter, Painter) else None
