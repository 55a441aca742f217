"""Where the window changed since its last frame, read off Kivy's own marks.

Kivy flags each graphics instruction that changed, and every group holding it up to the
window's canvas, until a frame draws it. ``Damage.find`` follows the flags from the
window down to the widgets whose drawing changed and gives the boxes of window pixels to
draw again (``companion.ui.paint`` draws them):

- a widget's **place** is its box and its children's places, kept from the frame that
  last drew it: a widget that moved or shrank leaves its old place to be drawn again;
- a widget whose canvas holds other things than at its last frame (a child or an
  instruction came or went) is drawn again at its whole place, where it was and where it
  is;
- a widget whose own shapes changed adds their boxes, then and now, and no more; a
  colour that changed counts for the shapes after it. Kivy flags a colour, a texture or
  a transformation when it is set and never clears that flag, so their values are kept
  and compared instead;
- a widget whose change lies in a child passes the search on to that child, and a part
  drawn into a framebuffer of its own (``companion.ui.cached``) is searched inside it,
  within the pixels its copy covers: ``clips`` tells where it must be drawn again;
- a widget whose children came, went or are drawn in another order adds the places of
  those that came or went; another order shows only where two children lie on the same
  pixel, so where that pixel is not drawn again anyway the whole place is (the row's
  cards lie apart: a card come in "No tag"'s place costs its own place).

A widget whose canvas draws in coordinates of its own (a RelativeLayout, a ScrollView)
is drawn again at its whole place when its own instructions change; a pop-up at the whole
window (it darkens everything behind it).
"""

from __future__ import annotations

import math
import sys
import weakref
from collections.abc import Iterator
from typing import Any

from kivy.graphics import BindTexture, Color
from kivy.graphics.instructions import (
    Canvas,
    CanvasBase,
    ContextInstruction,
    InstructionGroup,
    VertexInstruction,
)
from kivy.uix.widget import Widget

Box = tuple[int, int, int, int]  # x0, y0, x1, y1: window pixels, x1 and y1 excluded
Extent = tuple[float, float, float, float]

MARGIN = 2  # pixels around a box: an antialiased edge may pass it by one
EMPTY: Extent = (0.0, 0.0, 0.0, 0.0)  # an instruction that draws nothing now
NOWHERE: Box = (0, 0, 0, 0)  # no pixel changed
MAX_PASSES = 4  # more boxes than this are drawn as the one box that holds them all
NEAR = 100_000  # two boxes are drawn as one when that costs at most this many pixels more


def union(a: Box | None, b: Box | None) -> Box | None:
    if a is None:
        return b
    if b is None:
        return a
    return min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])


def within(b: Box, limit: Box) -> bool:
    """Whether every pixel of ``b`` lies in ``limit``."""
    return limit[0] <= b[0] and limit[1] <= b[1] and b[2] <= limit[2] and b[3] <= limit[3]


def area(b: Box) -> int:
    return max(0, b[2] - b[0]) * max(0, b[3] - b[1])


def merged(boxes: list[Box], limit: Box) -> list[Box]:
    """The boxes clipped to ``limit``, those that overlap or lie near one another joined
    (a box drawn costs a walk of the window's canvas), and at most MAX_PASSES of them."""
    out: list[Box] = []
    for found in boxes:
        b = _clip(found, limit)
        if b is None:
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


def uncovered(box: Box, covers: list[Box]) -> list[Box]:
    """The parts of ``box`` that none of ``covers`` overlaps: boxes apart from one
    another, which with the covers' parts inside ``box`` make ``box`` whole."""
    out = [box]
    for c in covers:
        rest: list[Box] = []
        for b in out:
            inside = _clip(c, b)
            if inside is None:
                rest.append(b)
                continue
            x0, y0, x1, y1 = b
            cx0, cy0, cx1, cy1 = inside
            rest += [part for part in ((x0, y0, x1, cy0), (x0, cy1, x1, y1),  # below, above
                                       (x0, cy0, cx0, cy1), (cx1, cy0, x1, cy1))  # beside
                     if part[0] < part[2] and part[1] < part[3]]  # fmt: skip
        out = rest
    return out


def extent(ins: Any) -> Extent | None:
    """The box an instruction draws in, in its canvas's coordinates: EMPTY when it draws
    nothing, None when that cannot be told from it (a mesh, a line drawn by shape)."""
    size = getattr(ins, "size", None)
    pos = getattr(ins, "pos", None)
    if size is not None and pos is not None:
        if size[0] == 0 or size[1] == 0:
            return EMPTY
        x0, x1 = sorted((pos[0], pos[0] + size[0]))  # a size may be negative: a text
        y0, y1 = sorted((pos[1], pos[1] + size[1]))  # input's cursor is drawn downwards
        return x0, y0, x1, y1
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


def value(ins: Any) -> Any:
    """What an instruction that sets how the next ones draw sets: a colour's rgba, the
    texture bound, a transformation's matrix; None for one that sets nothing of its own."""
    if isinstance(ins, Color):
        return tuple(ins.rgba)
    if isinstance(ins, BindTexture):
        return id(ins.texture), ins.index
    matrix = getattr(ins, "matrix", None)
    return tuple(matrix.get()) if matrix is not None else None


def window_box(e: Extent, ox: float, oy: float) -> Box:
    return (int(ox + e[0]) - MARGIN, int(oy + e[1]) - MARGIN,
            int(ox + e[2]) + 1 + MARGIN, int(oy + e[3]) + 1 + MARGIN)  # fmt: skip


def _plain(widget: Any) -> bool:
    """Whether the widget's own instructions draw where its pos and size are (in its
    parent's coordinates); not a RelativeLayout's or a ScrollView's."""
    return type(widget).to_parent is Widget.to_parent


def _covers_window(widget: Any) -> bool:
    modalview = sys.modules.get("kivy.uix.modalview")
    return modalview is not None and isinstance(widget, modalview.ModalView)


def _transforms(widget: Any) -> bool:
    """A widget that turns or scales what it holds: its places are not boxes."""
    scatter = sys.modules.get("kivy.uix.scatter")
    return scatter is not None and isinstance(widget, scatter.Scatter)


class Damage:
    """What changed in a window, frame after frame (see the module's words)."""

    def __init__(self, window: Any) -> None:
        self.window = window
        self.places: weakref.WeakKeyDictionary[Any, Box] = weakref.WeakKeyDictionary()
        self.shapes: weakref.WeakKeyDictionary[Any, tuple[int, ...]] = weakref.WeakKeyDictionary()
        self.marks: weakref.WeakKeyDictionary[Any, Box] = weakref.WeakKeyDictionary()
        self.values: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()
        self.clips: dict[Any, Box] = {}  # parts drawn again only there (window pixels)
        # each widget's children, in drawing order, and their places
        self.kid_places: weakref.WeakKeyDictionary[Any, list[tuple[Any, Box | None]]] = (
            weakref.WeakKeyDictionary()
        )
        self._window_shape: tuple[int, ...] = ()
        self._window_kids: list[int] = []

    def whole(self) -> Box:
        return 0, 0, int(self.window.width), int(self.window.height)

    def record_all(self) -> None:
        """The window drawn whole: every place, shape, mark and value as they are now."""
        self.clips = {}
        kids = {id(w.canvas): w for w in self.window.children}
        self._window_shape = self._shape_and_flags(self.window.canvas, kids, None)[0]
        self._window_kids = list(kids)
        for root in self.window.children:
            self._record(root, 0.0, 0.0, self.whole())

    def find(self) -> list[Box]:
        """The boxes to draw again (none when nothing changed)."""
        window = self.window
        self.clips = {}
        if not window.canvas.needs_redraw:
            return []
        kids = {id(w.canvas): w for w in window.children}
        shape, inside, own = self._shape_and_flags(window.canvas, kids, None)
        if own or shape != self._window_shape or list(kids) != self._window_kids:
            # a root widget came or went
            self.record_all()
            return [self.whole()]
        boxes: list[Box] = []
        for kid in inside:
            self._visit(kid, 0.0, 0.0, boxes, self.whole())
        return boxes

    # ------------------------------------------------------------ the search
    def _shape_and_flags(
        self, canvas: Any, kids: dict[int, Any], fbo: Any
    ) -> tuple[tuple[int, ...], list[Any], bool]:
        """One walk through a canvas (and a part's framebuffer), in drawing order, down
        to its children's canvases: what it holds of its own (its shape), the children
        whose canvas changed, and whether an instruction of its own changed."""
        shape: list[int] = []
        inside: list[Any] = []
        own = False
        stack = [iter(canvas.children)]
        while stack:
            for ins in stack[-1]:
                kid = kids.get(id(ins))
                if kid is not None:
                    if ins.needs_redraw:
                        inside.append(kid)
                    continue
                shape.append(id(ins))
                if type(ins) is CanvasBase or type(ins) is InstructionGroup or ins is fbo:
                    stack.append(iter(ins.children))
                    break
                elif isinstance(ins, ContextInstruction):
                    own = own or self.values.get(ins) != value(ins)
                else:
                    own = own or ins.needs_redraw
            else:
                stack.pop()
                shape.append(0)
        return tuple(shape), inside, own

    def _visit(self, widget: Any, ox: float, oy: float, boxes: list[Box], limit: Box) -> Box | None:
        """Search a widget whose canvas changed (its pos in coordinates that start at
        ox, oy of the window; nothing it draws shows outside ``limit``); returns the box
        it adds."""
        first = len(boxes)  # the boxes this search adds start here
        kids = {id(w.canvas): w for w in widget.children}
        fbo = getattr(widget, "fbo", None)
        shape, inside, own = self._shape_and_flags(widget.canvas, kids, fbo)
        before = self.kid_places.get(widget)
        if shape != self.shapes.get(widget) or before is None or _transforms(widget):
            return self._whole_place(widget, ox, oy, boxes, limit)
        if not own and not inside and len(before) == len(widget.children):
            # flagged, and nothing in it says why (Kivy cleared a child's flag while a
            # frame drew it, before what changed it was drawn): all of it, to be sure
            return self._whole_place(widget, ox, oy, boxes, limit)
        changed: Box | None = None
        if own:
            changed = self._own(widget, ox, oy)
            if changed is None:
                return self._whole_place(widget, ox, oy, boxes, limit)
            changed = None if changed is NOWHERE else _clip(changed, limit)
            if changed is not None:
                boxes.append(changed)
        px, py = widget.to_parent(0, 0)
        kx, ky = ox + px, oy + py  # where its children's coordinates start
        inner = self._limit(widget, ox, oy, limit)
        now = list(reversed(widget.children))  # in drawing order
        was = [ref() for ref, _place in before]
        reordered = False
        if len(was) != len(now) or any(a is not b for a, b in zip(was, now, strict=True)):
            # children came or went: their places, no more
            here = {id(k) for k in now}
            kept = [k for k in was if k is not None and id(k) in here]
            staying = {id(k) for k in kept}  # alive: held in kept
            if kept != [k for k in now if id(k) in staying]:
                # drawn in another order: that changes no pixel where no two of them
                # lie but where they are drawn again anyway (a row of cards, one come
                # in "No tag"'s place), when the widget draws nothing of its own among
                # them (seen once its children's changes are known); else all of it,
                # and at once where most of them changed (the cards slid along): a
                # search of each would cost more
                if _draws_among(widget.canvas, kids) or 2 * len(inside) > len(kept):
                    return self._whole_place(widget, ox, oy, boxes, limit)
                reordered = True
            for kid, (_ref, place) in zip(was, before, strict=True):
                if (kid is None or id(kid) not in here) and place is not None:
                    gone = _clip(place, inner)
                    if gone is not None:
                        boxes.append(gone)
                        changed = union(changed, gone)
            for kid in now:
                if id(kid) not in staying:
                    came = _clip(self._record(kid, kx, ky, inner), inner)
                    if came is not None:
                        boxes.append(came)
                        changed = union(changed, came)
            inside = [k for k in inside if id(k) in staying]
        for kid in inside:
            changed = union(changed, self._visit(kid, kx, ky, boxes, inner))
        if reordered:
            drawn = boxes[first:]
            held = _clip(self.places.get(widget), inner)
            if held is not None and not any(within(held, d) for d in drawn):
                now_at = [self._record(k, kx, ky, inner) for k in now if id(k) in staying]
                if _order_shows(now_at, drawn, inner):
                    return self._whole_place(widget, ox, oy, boxes, limit)
        self.kid_places[widget] = _kid_places(self.places, widget)
        if changed is not None:  # it holds what its children drew
            if fbo is not None:
                clip = union(self.clips.get(widget), changed)
                assert clip is not None
                self.clips[widget] = clip
            grown = union(self.places.get(widget), changed)
            assert grown is not None
            self.places[widget] = grown
        return changed

    def _limit(self, widget: Any, ox: float, oy: float, limit: Box) -> Box:
        """What a widget's children can show: inside its box, for a widget that clips
        what it holds (a ScrollView); for a part drawn into a framebuffer, the pixels its
        copy covers, no more (its framebuffer's size from its corner)."""
        fbo = getattr(widget, "fbo", None)
        if fbo is None and not _clips(widget):
            return limit
        x, y = widget.pos
        if fbo is not None:
            w, h = fbo.size
            own = (math.floor(ox + x), math.floor(oy + y),
                   math.ceil(ox + x + w), math.ceil(oy + y + h))  # fmt: skip
        else:
            w, h = widget.size
            own = window_box((x, y, x + w, y + h), ox, oy)
        return _clip(own, limit) or NOWHERE

    def _whole_place(
        self, widget: Any, ox: float, oy: float, boxes: list[Box], limit: Box
    ) -> Box | None:
        place = _clip(union(self.places.get(widget), self._record(widget, ox, oy, limit)), limit)
        if place is not None:
            boxes.append(place)
        return place

    def _own(self, widget: Any, ox: float, oy: float) -> Box | None:
        """Where a widget's own changed instructions draw, now and at the last frame
        (NOWHERE: nowhere); None when that cannot be told (an instruction of no known
        place changed, or one that sets how others draw, other than a colour, or the
        widget draws in coordinates of its own). Colours, textures and transformations
        are kept as they are now."""
        if not _plain(widget) or _covers_window(widget):
            return None
        damage: Box | None = None
        coloured = False  # the last colour changed: the shapes after it are drawn again
        unknown = False
        for ins in _own_instructions(widget):
            if isinstance(ins, VertexInstruction):
                flagged = ins.needs_redraw or coloured
                e = extent(ins)
                if e is None:
                    unknown = unknown or flagged
                    continue
                now = None if e is EMPTY else window_box(e, ox, oy)
                if flagged:
                    damage = union(damage, union(self.marks.get(ins), now))
                if now is None:
                    self.marks.pop(ins, None)
                else:
                    self.marks[ins] = now
            elif isinstance(ins, ContextInstruction):
                v = value(ins)
                changed = self.values.get(ins) != v
                self.values[ins] = v
                if isinstance(ins, Color):
                    coloured = changed
                elif changed:
                    unknown = True
        if unknown:
            return None
        return NOWHERE if damage is None else damage

    # ------------------------------------------------------------ what lies over
    def drawn_over(self, widget: Any, box: Box) -> bool:
        """Whether anything the window draws after ``widget`` may paint a pixel of
        ``box``: the children each of its parents draws after it (by their places) and
        what the parent itself draws after them (by its shapes' marks), up to the window.
        Anything of no known place, or an instruction that is neither a shape of known
        place nor one that only sets how others draw, counts as over it. As of the last
        search (``find``)."""
        child = widget
        while True:
            parent = child.parent
            if parent is None:
                return True  # not shown
            kids = {id(w.canvas): w for w in parent.children}
            later = _drawn_after(parent.canvas, child.canvas, kids)
            if later is None:
                return True  # not drawn by its parent
            for ins in later:
                kid = kids.get(id(ins))
                if kid is not None:
                    place = self.places.get(kid)
                    if place is None or _clip(place, box) is not None:
                        return True
                elif isinstance(ins, VertexInstruction):
                    mark = self.marks.get(ins)
                    if mark is None:
                        if extent(ins) is not EMPTY:
                            return True
                    elif _clip(mark, box) is not None:
                        return True
                elif not isinstance(ins, ContextInstruction):
                    return True
            if parent is self.window:
                return False
            child = parent

    # ------------------------------------------------------------ where things are
    def _record(self, widget: Any, ox: float, oy: float, limit: Box) -> Box:
        """A widget's place now (its box, what its own shapes draw past it, its
        children's places; no more than ``limit``), and what it holds: kept for the
        next frames."""
        x, y = widget.pos
        w, h = widget.size
        x0, y0, x1, y1 = x, y, x + w, y + h
        plain = _plain(widget)
        for ins in _own_instructions(widget):
            if isinstance(ins, VertexInstruction):
                e = extent(ins) if plain else None
                if e is None or e is EMPTY:
                    self.marks.pop(ins, None)
                    continue
                self.marks[ins] = window_box(e, ox, oy)
                x0, y0 = min(x0, e[0]), min(y0, e[1])
                x1, y1 = max(x1, e[2]), max(y1, e[3])
            elif isinstance(ins, ContextInstruction):
                self.values[ins] = value(ins)
        box: Box | None = window_box((x0, y0, x1, y1), ox, oy)
        if _covers_window(widget) or _transforms(widget):
            box = self.whole()
        px, py = widget.to_parent(0, 0)
        inner = self._limit(widget, ox, oy, limit)
        for kid in widget.children:
            box = union(box, self._record(kid, ox + px, oy + py, inner))
        assert box is not None
        kids = {id(w.canvas): w for w in widget.children}
        self.shapes[widget] = self._shape_and_flags(
            widget.canvas, kids, getattr(widget, "fbo", None)
        )[0]
        place = _clip(box, limit) or NOWHERE
        self.places[widget] = place
        self.kid_places[widget] = _kid_places(self.places, widget)
        return place


def _kid_places(places: Any, widget: Any) -> list[tuple[Any, Box | None]]:
    """A widget's children in drawing order (weakly held) with their places."""
    return [(weakref.ref(k), places.get(k)) for k in reversed(widget.children)]


def _clip(b: Box | None, limit: Box) -> Box | None:
    """The part of ``b`` inside ``limit``, or None."""
    if b is None:
        return None
    c = max(b[0], limit[0]), max(b[1], limit[1]), min(b[2], limit[2]), min(b[3], limit[3])
    return c if c[0] < c[2] and c[1] < c[3] else None


def _clips(widget: Any) -> bool:
    stencil = sys.modules.get("kivy.uix.stencilview")
    return stencil is not None and isinstance(widget, stencil.StencilView)


def _draws_among(canvas: Any, kids: dict[int, Any]) -> bool:
    """Whether a widget's canvas holds anything of its own among its children's
    canvases (``kids``, by id), outside its before and after groups: an instruction
    there (a colour too: it tints the children drawn after it) sees them in order."""
    return any(id(ins) not in kids and type(ins) is not CanvasBase for ins in canvas.children)


def _order_shows(places: list[Box], drawn: list[Box], limit: Box) -> bool:
    """Whether the order in which widgets at ``places`` are drawn may show: two of them
    share a pixel (inside ``limit``) that none of the boxes ``drawn`` again holds."""
    for i, a in enumerate(places):
        for b in places[i + 1 :]:
            both = _clip(_clip(a, b), limit)
            if both is not None and not any(within(both, d) for d in drawn):
                return True
    return False


def _drawn_after(canvas: Any, mark: Any, kids: dict[int, Any]) -> list[Any] | None:
    """What a canvas draws after ``mark`` (a child's canvas), in drawing order: its
    instructions, its groups' (opened), and its children's canvases (``kids``, by id;
    unopened); None when ``mark`` is not in it."""
    out: list[Any] = []
    found = False
    stack = [iter(canvas.children)]
    while stack:
        for ins in stack[-1]:
            if ins is mark:
                found = True
            elif id(ins) not in kids and type(ins) in _GROUPS:
                stack.append(iter(ins.children))
                break
            elif found:
                out.append(ins)
        else:
            stack.pop()
    return out if found else None


_GROUPS = (CanvasBase, InstructionGroup, Canvas)  # drawn in place: opened


def _own_instructions(widget: Any) -> Iterator[Any]:
    """The instructions of a widget's canvas (with its before and after groups, and a
    part's framebuffer), not those of its children, in the order they are drawn."""
    kids = {id(w.canvas) for w in widget.children}
    stack = [iter(widget.canvas.children)]
    while stack:
        for ins in stack[-1]:
            if id(ins) in kids:
                continue
            if isinstance(ins, InstructionGroup):
                stack.append(iter(ins.children))
                break
            yield ins
        else:
            stack.pop()
