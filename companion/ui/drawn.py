"""Texts drawn straight into a widget's canvas, for the parts of the table that are many
small texts in fixed places (a player's name and figures, the rage track, the bag).

A Kivy Label is a whole widget: its properties, its bindings, its layout rule and its
own place in every layout pass. The table shows some eighty texts; as Labels they were
most of the time to its first frame. An ``Ink`` is one texture and one rectangle in the
canvas of the ``DrawnWidget`` that places it, made again only when its text or look
changes.

The screen's checks (tests/screen_metrics.py) see these texts as they see Labels: a
drawn widget lists them in ``drawn_texts()`` with their size and place on screen.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from kivy.clock import Clock
from kivy.core.text import Label as CoreLabel
from kivy.core.text.markup import MarkupLabel
from kivy.metrics import sp
from kivy.uix.widget import Widget


def text_extent(
    options: Mapping[str, Any], font_size: float, wrap: float | None
) -> tuple[float, float]:
    """The size a text takes at ``font_size`` (wrapped at ``wrap`` px, or on one line):
    Kivy's layout pass alone, no texture made."""
    core = (MarkupLabel if options.get("markup") else CoreLabel)(
        **{**options, "font_size": font_size, "text_size": (wrap, None), "shorten": False}
    )
    core.resolve_font_name()
    w, h = core.render()
    left, top, right, bottom = core.options["padding"]
    return w - left - right, h - top - bottom


def fitting_font_size(options: Mapping[str, Any], full: float, least: float,
                      room: tuple[float, float], wrap: float | None) -> float:  # fmt: skip
    """The largest font size from ``full`` down to ``least`` at which the text of
    ``options`` (a Label's font properties) fits ``room`` (width, height), wrapped at
    ``wrap`` px or on one line; ``least`` when none does."""
    width, height = room

    def fits(size: float) -> bool:
        w, h = text_extent(options, size, wrap)
        return w <= width + 1 and h <= height + 1

    w, h = text_extent(options, full, wrap)
    if w <= width + 1 and h <= height + 1:
        return full
    if wrap is None:  # one line: its width follows the font, one guess is near
        size = max(least, int(min(full * min(width / w, height / h), full - 1)))
        while size > least and not fits(size):
            size = max(least, size - sp(1))
        return size
    low, high = int(least), int(full) - 1  # wrapped: halve the range of whole pixels
    while low < high:
        middle = (low + high + 1) // 2
        if fits(middle):
            low = middle
        else:
            high = middle - 1
    return max(least, low)


class DrawnText(NamedTuple):
    """A text as a player sees it: its words, its font size (px), its box (window
    coordinates) and whether it was shortened to fit."""

    text: str
    font_size: float
    x: float
    y: float
    width: float
    height: float
    shortened: bool = False


def _px(size: str | float) -> float:
    return sp(size.removesuffix("sp")) if isinstance(size, str) else size


def _digits(core: Any, texture: Any) -> Any:
    """The part of a one-line text's texture that digits are drawn in: from a little
    under the baseline to a little over the digits' height."""
    size = core.options["font_size"]
    descent = abs(core.get_descent()) if hasattr(core, "get_descent") else size * 0.25
    bottom = max(0, int(descent - size * 0.06))
    height = min(int(texture.height) - bottom, int(size * 0.84))
    return texture.get_region(0, bottom, int(texture.width), height)


class Ink:
    """One text in a canvas: ``show`` sets its words and look (the texture is made again
    only when they change), ``place`` its lower left corner; ``size`` is its size (0, 0
    for no text)."""

    def __init__(self, font_size: str | float, *, bold: bool = False, font_name: str = "",
                 markup: bool = False, trim: bool = False) -> None:  # fmt: skip
        from kivy.graphics import Color, Rectangle

        # trim: a figure's texture cut to its digits' height (the line's room above and
        # below them dropped), so that a big number fits a row as high as its ink
        self.trim = trim
        self.font_size = _px(font_size)
        self.options: dict[str, Any] = {"bold": bold, "markup": markup}
        if font_name:
            self.options["font_name"] = font_name
        self.text = ""
        self.shortened = False
        self.colour = Color(1, 1, 1, 1)
        self.rect = Rectangle(size=(0, 0))
        self._made: tuple[Any, ...] = ()
        self._within: tuple[Any, ...] = ()  # what show_within was last asked, and showed

    @property
    def size(self) -> tuple[float, float]:
        w, h = self.rect.size
        return w, h

    def show(self, text: str, rgba: Any = (1, 1, 1, 1), font_size: str | float | None = None,
             width: float | None = None, halign: str = "left") -> None:  # fmt: skip
        """``width``: the text is laid in that many px (aligned by ``halign``), shortened
        with an ellipsis when longer; its texture is that wide: place it at the left of
        its room."""
        if font_size is not None:
            self.font_size = _px(font_size)
        made = (text, self.font_size, width, halign, tuple(self.options.items()))
        self._within = ()
        if made != self._made:
            self._made = made
            self.text = text
            self.shortened = False
            if text:
                options = {**self.options, "text": text, "font_size": self.font_size}
                if width is not None:
                    options.update(text_size=(max(1, width), None), shorten=True,
                                   shorten_from="right", halign=halign)  # fmt: skip
                core = (MarkupLabel if self.options["markup"] else CoreLabel)(**options)
                core.refresh()
                self.shortened = bool(core.is_shortened)
                texture = core.texture
                if self.trim:
                    texture = _digits(core, texture)
                self.rect.texture = texture
                self.rect.size = texture.size
            else:
                self.rect.texture = None
                self.rect.size = (0, 0)
        self.colour.rgba = rgba

    def show_within(self, text: str, rgba: Any, room: float, halign: str = "left") -> None:
        """``text`` as it comes when it fits ``room`` px (its texture as wide as its words),
        else shortened to ``room``. Asked the same again, nothing is made again (a
        shortened text is not first made whole)."""
        asked = (text, room, halign, self.font_size, tuple(self.options.items()))
        if asked == self._within:
            self.colour.rgba = rgba
            return
        self.show(text, rgba)
        if self.size[0] > room:
            self.show(text, rgba, width=max(1.0, room), halign=halign)
            self.shortened = True  # (a marked-up text's core label does not say it)
        self._within = asked

    def place(self, x: float, y: float) -> None:
        self.rect.pos = (round(x), round(y))

    def seen(self, widget: Widget) -> DrawnText | None:
        """The text as a player sees it (None when it shows nothing)."""
        if not self.text or self.colour.a <= 0.01:
            return None
        w, h = self.rect.size
        x, y = widget.to_window(*self.rect.pos)
        return DrawnText(self.text, float(self.font_size), x, y, w, h, self.shortened)


class DrawnWidget(Widget):
    """A widget that draws its texts (``Ink``) and shapes itself. A subclass makes its
    shapes in ``__init__``, then its inks with ``ink()`` (drawn over the shapes), and
    places everything in ``draw()``; it is drawn again at the next frame after its size,
    place or any property in ``drawn_from`` changed."""

    drawn_from: tuple[str, ...] = ()

    def __init__(self, **kwargs: Any) -> None:
        self.inks: list[Ink] = []
        super().__init__(**kwargs)
        self._trigger = Clock.create_trigger(self._redraw, -1)
        for name in ("pos", "size", *self.drawn_from):
            self.fbind(name, self._trigger)
        self._trigger()

    def ink(self, font_size: str | float, **options: Any) -> Ink:
        ink = Ink(font_size, **options)
        self.canvas.add(ink.colour)
        self.canvas.add(ink.rect)
        self.inks.append(ink)
        return ink

    def drop_ink(self, ink: Ink) -> None:
        self.canvas.remove(ink.colour)
        self.canvas.remove(ink.rect)
        self.inks.remove(ink)

    def keep_parts(self, parts: list[Any], n: int, shapes: Callable[[], tuple[Any, ...]],
                   font_size: str, **options: Any) -> None:  # fmt: skip
        """``n`` repeated parts (a cell of a row), each its ``shapes()`` (added to the
        canvas in order) and one ink over them: parts made or dropped to fit ``n``."""
        while len(parts) < n:
            made = shapes()
            for shape in made:
                self.canvas.add(shape)
            parts.append((*made, self.ink(font_size, **options)))
        while len(parts) > n:
            *gone, ink = parts.pop()
            for shape in gone:
                self.canvas.remove(shape)
            self.drop_ink(ink)

    def _redraw(self, *args: Any) -> None:
        self.draw()

    def draw(self) -> None:
        raise NotImplementedError

    def drawn(self) -> None:
        """Drawn now if a change waits for the next frame (as a Label's text is set at
        once, though its texture follows at the next frame)."""
        if self._trigger.is_triggered:
            self._trigger.cancel()
            self.draw()

    def drawn_texts(self) -> list[DrawnText]:
        """Every text the widget shows (the screen's checks read them)."""
        self.drawn()
        return [t for t in (ink.seen(self) for ink in self.inks) if t is not None]
