"""The window drawn again only where it changed.

Kivy draws the whole window at every frame in which anything in it changed. Where the CPU
draws OpenGL (Mesa's llvmpipe: a machine without a GPU driver, and the benchmarks) a frame
costs about the pixels it covers, some 8 ns each here whatever they show: a frame of the
table cost its whole window when a scan changed one player's panel.

So the window is drawn into a framebuffer of its own size, the *page*, which keeps what it
shows from one frame to the next. Before a frame, the widgets whose drawing changed are
found: Kivy flags each graphics instruction that changed, and every group holding it up to
the window's canvas, until a frame draws it. Only their places are drawn again, the
window's canvas clipped with a scissor to each place (where nothing is drawn, nothing is
paid), over what the page kept. The page is then copied to the window: with
``glBlitFramebuffer`` (a copy of memory where the CPU draws), or as one rectangle of its
texture where the context has no such function.

A widget's place is where it is and where it was: the box of the widget and of everything
it holds, kept from the frame that last drew it (a widget that moved or shrank leaves its
old place to be drawn again). A widget whose own drawing changed, or whose children came
or went, is drawn again at its whole place; one whose change lies in a child passes the
search on to that child. The framebuffers of the parts of a screen (``companion.ui.cached``)
are drawn first, unclipped, and their places with them.

What the page shows is what drawing the window whole shows, pixel for pixel: with
``check`` set, every frame is drawn whole a second time into a framebuffer of its own and
the two are compared (the tests and the monkey set it). Where the page cannot be made (a
rotated window, a framebuffer refused, a viewport that is not the window's size) Kivy's own
drawing is used.
"""

from __future__ import annotations

import ctypes
import os
import weakref
from collections.abc import Callable, Iterator
from typing import Any

Box = tuple[int, int, int, int]  # x0, y0, x1, y1: window pixels, x1 and y1 excluded

MARGIN = 2  # pixels around a widget's box: an antialiased edge may pass it by one
MAX_PASSES = 4  # more places than this are drawn as the one box that holds them all
NEAR = 100_000  # two places are drawn as one box when that costs at most this many pixels more

# OpenGL's names, as glext.h gives them
GL_FRAMEBUFFER = 0x8D40
GL_READ_FRAMEBUFFER = 0x8CA8
GL_DRAW_FRAMEBUFFER = 0x8CA9
GL_FRAMEBUFFER_BINDING = 0x8CA6
GL_COLOR_BUFFER_BIT = 0x4000
GL_NEAREST = 0x2600
GL_VIEWPORT = 0x0BA2
GL_SCISSOR_TEST = 0x0C11


def _modal_view() -> type:
    from kivy.uix.modalview import ModalView

    return ModalView


def _relative() -> tuple[type, ...]:
    """The widgets whose canvas draws in coordinates of their own."""
    from kivy.uix.relativelayout import RelativeLayout
    from kivy.uix.scatter import Scatter

    return RelativeLayout, Scatter


def _own_instructions(widget: Any) -> Iterator[Any]:
    """The instructions of a widget's canvas (with its before and after groups), not
    those of its children."""
    from kivy.graphics.instructions import InstructionGroup

    kids = {id(w.canvas) for w in widget.children}
    stack = [iter(widget.canvas.children)]
    while stack:  # in the order they are drawn
        for ins in stack[-1]:
            if id(ins) in kids:
                continue
            if isinstance(ins, InstructionGroup):
                stack.append(iter(ins.children))
                break
            yield ins
        else:
            stack.pop()


EMPTY = (0.0, 0.0, 0.0, 0.0)  # an instruction that draws nothing now
NOWHERE: Box = (0, 0, 0, 0)  # no pixel changed


def _extent(ins: Any) -> tuple[float, float, float, float] | None:
    """The box an instruction draws in, in its canvas's coordinates: EMPTY when it draws
    nothing, None when that cannot be told from it (a mesh, a line drawn by shape)."""
    size = getattr(ins, "size", None)
    pos = getattr(ins, "pos", None)
    if size is not None and pos is not None:
        if size[0] <= 0 or size[1] <= 0:
            return EMPTY
        return pos[0], pos[1], pos[0] + size[0], pos[1] + size[1]
    points = getattr(ins, "points", None)
    if points:
        xs, ys = points[0::2], points[1::2]
        pad = float(getattr(ins, "width", 1.0) or 1.0) + 1
        return min(xs) - pad, min(ys) - pad, max(xs) + pad, max(ys) + pad
    if points is not None and not any(
        getattr(ins, shape, None) for shape in ("rectangle", "rounded_rectangle", "circle",
                                                "ellipse", "bezier")
    ):  # fmt: skip
        return EMPTY
    return None


def _value(ins: Any) -> Any:
    """What an instruction that sets how the next ones draw sets: a colour's rgba, a
    texture bound, a transformation's matrix; None for one that sets nothing of its own
    (or is no such instruction)."""
    from kivy.graphics import BindTexture, Color
    from kivy.graphics.instructions import ContextInstruction

    if not isinstance(ins, ContextInstruction):
        return None
    if isinstance(ins, Color):
        return tuple(ins.rgba)
    if isinstance(ins, BindTexture):
        return id(ins.texture), ins.index
    matrix = getattr(ins, "matrix", None)
    return tuple(matrix.get()) if matrix is not None else None


def _window_box(got: tuple[float, float, float, float], ox: float, oy: float) -> Box:
    return (int(ox + got[0]) - MARGIN, int(oy + got[1]) - MARGIN,
            int(ox + got[2]) + 1 + MARGIN, int(oy + got[3]) + 1 + MARGIN)  # fmt: skip


class PaintMismatch(AssertionError):
    """A frame drawn where it changed differs from the same frame drawn whole."""


def union(a: Box | None, b: Box | None) -> Box | None:
    if a is None:
        return b
    if b is None:
        return a
    return min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])


def area(b: Box) -> int:
    return max(0, b[2] - b[0]) * max(0, b[3] - b[1])


def merged(boxes: list[Box], limit: Box) -> list[Box]:
    """The boxes clipped to the window, those that overlap or lie near one another drawn
    as one, and at most MAX_PASSES of them."""
    out: list[Box] = []
    for b in boxes:
        b = max(b[0], limit[0]), max(b[1], limit[1]), min(b[2], limit[2]), min(b[3], limit[3])
        if area(b) == 0:
            continue
        out.append(b)
        while len(out) > 1:  # the newest against each earlier: join what is worth joining
            new = out[-1]
            for i, old in enumerate(out[:-1]):
                joined = union(old, new)
                assert joined is not None
                if area(joined) <= area(old) + area(new) + NEAR:
                    del out[i]
                    out[-1] = joined
                    break
            else:
                break
    if len(out) > MAX_PASSES:
        whole: Box | None = None
        for b in out:
            whole = union(whole, b)
        assert whole is not None
        out = [whole]
    return out


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
        self.page: Any = None
        self.page_id = 0
        self.places: weakref.WeakKeyDictionary[Any, Box] = weakref.WeakKeyDictionary()
        self.shapes: weakref.WeakKeyDictionary[Any, tuple[int, ...]] = weakref.WeakKeyDictionary()
        self._window_shape: tuple[int, ...] = ()
        self.clips: dict[Any, Box] = {}  # parts to draw again only there (window pixels)
        self.marks: weakref.WeakKeyDictionary[Any, Box] = weakref.WeakKeyDictionary()
        self.values: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()
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
        if window.rotation or viewport != (0, 0, *size) or not self._page_for(size):
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
            self.clips = {}
            self._seen = seen
            self.whole = False
            self._record_all()
        else:
            boxes = merged(self._changed(), whole)
        self._framebuffers_first()
        self.drawn = boxes
        self.frames += 1
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

        if not self._blit_checked:
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
            if self.frames == 1 and glGetError() != GL_NO_ERROR:
                self._blit = None  # refused: the rectangle instead, from now on
            else:
                return
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

        clips, self.clips = self.clips, {}
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

    # ------------------------------------------------------------ what changed
    def _changed(self) -> list[Box]:
        """The places to draw again, found from the flags of the window's canvas."""
        window = self.window
        canvas = window.canvas
        if not canvas.needs_redraw:
            return []
        kids = {id(w.canvas): w for w in window.children}
        flagged = list(self._flagged(canvas, kids))
        if self._shape(canvas) != self._window_shape or any(k is None for k, _i in flagged):
            self._record_all()  # a root widget came or went, or the window's own drawing
            return [(0, 0, int(window.width), int(window.height))]
        boxes: list[Box] = []
        for kid, _ins in flagged:
            self._visit(kid, boxes)
        return boxes

    @staticmethod
    def _shape(canvas: Any) -> tuple[int, ...]:
        """What a canvas holds, through its plain groups (its before and after groups
        among them), down to the canvases of its children: a child's canvas or an
        instruction that came or went changes it, whatever else changed with it."""
        from kivy.graphics.instructions import CanvasBase, InstructionGroup

        shape: list[int] = []
        stack = [iter(canvas.children)]
        while stack:
            for ins in stack[-1]:
                shape.append(id(ins))
                if type(ins) is CanvasBase or type(ins) is InstructionGroup:
                    stack.append(iter(ins.children))
                    break
            else:
                stack.pop()
                shape.append(0)
        return tuple(shape)

    def _changed_value(self, ins: Any, keep: bool = True) -> bool:
        """Whether an instruction that sets how the next ones draw (a colour, a texture,
        a transformation) changed since the last frame. Kivy flags these when set and
        never clears the flag, so their values are kept and compared."""
        value = _value(ins)
        if value is None:
            return False
        old = self.values.get(ins)
        if keep:
            self.values[ins] = value
        return old != value

    def _flagged(self, group: Any, kids: dict[int, Any]) -> Iterator[tuple[Any, Any]]:
        """The children of ``group`` that changed: (widget, None) for a child widget's
        canvas, (None, instruction) for anything else."""
        from kivy.graphics.instructions import CanvasBase, ContextInstruction, InstructionGroup

        for ins in group.children:
            if isinstance(ins, ContextInstruction):
                if self._changed_value(ins, keep=False):
                    yield None, ins
                continue
            if not ins.needs_redraw:
                continue
            kid = kids.get(id(ins))
            if kid is not None:
                yield kid, None
            elif type(ins) is CanvasBase or type(ins) is InstructionGroup:
                yield from self._flagged(ins, kids)
            else:
                yield None, ins

    def _shape_of(self, widget: Any) -> tuple[int, ...]:
        """What a widget's canvas holds (and, for a part drawn into a framebuffer, what
        the framebuffer holds)."""
        fbo = getattr(widget, "fbo", None)
        shape = self._shape(widget.canvas)
        return shape if fbo is None else (*shape, -1, *self._shape(fbo))

    def _visit(self, widget: Any, boxes: list[Box]) -> Box | None:
        """Search a widget whose canvas changed; returns the box it adds to the page.
        It is drawn again whole if its own drawing changed or if what its canvas holds
        did (a child came or went); otherwise the search goes on in its children. A
        part drawn into a framebuffer is searched the same way inside it, and drawn
        again into it only where its children changed."""
        kids = {id(w.canvas): w for w in widget.children}
        fbo = getattr(widget, "fbo", None)
        changed: Box | None = None
        inside = []
        structural = own = self.shapes.get(widget) != self._shape_of(widget)
        groups = [widget.canvas] if fbo is None else [widget.canvas, fbo]
        for group in groups:
            if own:
                break
            for kid, ins in self._flagged(group, kids):
                if kid is not None:
                    inside.append(kid)
                elif ins is not fbo:  # the part's framebuffer is searched next
                    own = True
                    break
        if own and not structural and not inside:
            changed = self._own_damage(widget)
            if changed is not None:  # only what its changed instructions covered
                if changed is NOWHERE:
                    return None
                boxes.append(changed)
                grown = union(self.places.get(widget), changed)
                assert grown is not None
                self.places[widget] = grown
                return changed
        if own:  # drawn again whole, where it was and where it is
            old = self.places.get(widget)
            changed = union(old, self._record(widget))
            assert changed is not None
            boxes.append(changed)
            return changed
        for kid in inside:
            changed = union(changed, self._visit(kid, boxes))
        if changed is not None:  # it holds what its children drew
            if fbo is not None:
                clip = union(self.clips.get(widget), changed)
                assert clip is not None
                self.clips[widget] = clip
            grown = union(self.places.get(widget), changed)
            assert grown is not None
            self.places[widget] = grown
        return changed

    def _own_damage(self, widget: Any) -> Box | None:
        """Where a widget's own changed instructions draw, now and at the last frame
        (NOWHERE: nowhere); None when that cannot be told: an instruction of no known
        place changed, or one that changes how others draw, or one came or went, or the
        widget draws in coordinates of its own. A changed colour counts for the shapes
        it colours."""
        from kivy.graphics import Color
        from kivy.graphics.instructions import VertexInstruction

        if isinstance(widget, _relative()):
            return None
        ox, oy = widget.to_window(0, 0)
        damage: Box | None = None
        coloured = False  # the last colour changed: the shapes after it are drawn again
        for ins in _own_instructions(widget):
            if isinstance(ins, VertexInstruction):
                flagged = ins.needs_redraw
                got = _extent(ins)
                if got is None:
                    if flagged or coloured:
                        return None
                    continue
                now = None if got is EMPTY else _window_box(got, ox, oy)
                if flagged or coloured:
                    damage = union(damage, union(self.marks.get(ins), now))
                if now is None:
                    self.marks.pop(ins, None)
                else:
                    self.marks[ins] = now
            elif isinstance(ins, Color):
                coloured = self._changed_value(ins)
            elif self._changed_value(ins):
                return None
        return NOWHERE if damage is None else damage

    # ------------------------------------------------------------ where things are
    def _box(self, widget: Any) -> Box:
        """Where a widget draws, in window pixels: its box, and whatever its own
        instructions draw past it (a label's text taller than the label)."""
        if isinstance(widget, _modal_view()):  # it darkens the whole window behind it
            return 0, 0, int(self.window.width), int(self.window.height)
        ox, oy = widget.to_window(0, 0)  # where the widget's own coordinates start
        x, y = widget.pos
        w, h = widget.size
        x0, y0, x1, y1 = x, y, x + w, y + h
        if not isinstance(widget, _relative()):  # its canvas draws in its parent's space
            from kivy.graphics.instructions import VertexInstruction

            for ins in _own_instructions(widget):
                if not isinstance(ins, VertexInstruction):
                    continue
                got = _extent(ins)
                if got is None or got is EMPTY:
                    self.marks.pop(ins, None)
                    continue
                self.marks[ins] = _window_box(got, ox, oy)
                x0, y0 = min(x0, got[0]), min(y0, got[1])
                x1, y1 = max(x1, got[2]), max(y1, got[3])
        return (int(ox + x0) - MARGIN, int(oy + y0) - MARGIN,
                int(ox + x1) + 1 + MARGIN, int(oy + y1) + 1 + MARGIN)  # fmt: skip

    def _record(self, widget: Any) -> Box:
        """A widget's place now: its box and its children's places; and what its canvas
        holds."""
        box: Box | None = self._box(widget)
        for kid in widget.children:
            box = union(box, self._record(kid))
        assert box is not None
        self.places[widget] = box
        self.shapes[widget] = self._shape_of(widget)
        for ins in _own_instructions(widget):
            value = _value(ins)
            if value is not None:
                self.values[ins] = value
        return box

    def _record_all(self) -> None:
        self._window_shape = self._shape(self.window.canvas)
        for root in self.window.children:
            self._record(root)

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
        raise PaintMismatch(
            f"the frame drawn where it changed differs from the frame drawn whole in "
            f"x {x0}-{x1}, y {y0}-{y1} (window pixels); drawn again: {boxes}"
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
        painter.check = os.environ.get("CLANK_PAINT_CHECK", "") == "1"
        window._painter = painter
        window.on_draw = painter.draw
    painter.whole = True
    return painter


def painter_of(window: Any) -> Painter | None:
    painter = getattr(window, "_painter", None)
    return painter if isinstance(painter, Painter) else None
