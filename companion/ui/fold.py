"""A scrolling list that never stops with half a line at its fold without showing that
it scrolls (the look is kv/common.kv's ``<FoldScroll>``).

Its scroll bar is seen at rest, light on its dark track, with an arrow at each end
where the list goes on. There, the view's edge (the fold) falls between two lines: a
band of the colour under the list covers what the edge would cut of a line (a text line
of a long text; a whole button, a whole item of a list), so the list ends on whole
lines. A tap on a band scrolls on, the line it hid first. A list that fits its view
shows neither bar nor band.

A band covers only a line the edge cuts, never a whole one: the screens' ink measure
(companion.ui.ink) leaves a line that is not whole in its view alone, and reads every
whole one as it is drawn.

Every scrolling list of the screens is a ``FoldScroll``: one rule for all of them, each
list's layout says only what is in it (and, on a pop-up, the colour under it: ``fade``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from kivy.clock import Clock
from kivy.properties import BooleanProperty, ListProperty, NumericProperty
from kivy.uix.behaviors import ButtonBehavior
from kivy.uix.label import Label
from kivy.uix.scrollview import ScrollView
from kivy.uix.widget import Widget

MOST = 0.45  # of the view: a band never covers more (a line taller is cut by the edge)
ROUGH = 1.0  # px of rounding: a line touching the fold is not cut by it
LONG = 0.5  # of the view: a text taller than this is kept whole line by line, not as one
Span = tuple[float, float]  # a line's bottom and top, in the list's own height


class FoldScroll(ScrollView):
    """A vertical list that scrolls (see the module): ``below`` and ``above`` are the
    heights of the bands at its bottom and top (0: the list does not go on there)."""

    below = NumericProperty(0)
    above = NumericProperty(0)
    more_below = BooleanProperty(False)  # the list goes on below its view
    more_above = BooleanProperty(False)
    # the colour under the list: the window's background (companion.ui.app.BACKGROUND);
    # a pop-up's list gives its own
    fade = ListProperty([0.14, 0.15, 0.18, 1])

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._refold = Clock.create_trigger(lambda dt: self.fold(), -1)
        self._watched: list[Widget] = []  # the lines' widgets: laid out again, a new fold
        for name in ("scroll_y", "size", "pos", "viewport_size"):
            self.fbind(name, self._refold)

    def add_widget(self, widget: Widget, *args: Any, **kwargs: Any) -> None:
        super().add_widget(widget, *args, **kwargs)
        widget.fbind("children", self._refold)  # an item added or taken away

    def remove_widget(self, widget: Widget, *args: Any, **kwargs: Any) -> None:
        widget.funbind("children", self._refold)
        super().remove_widget(widget, *args, **kwargs)

    # ------------------------------------------------------------------ the fold
    def seen(self) -> tuple[float, float, float] | None:
        """The part of the list in view, in the list's own height from its bottom (low,
        high), and how far it scrolls; None when it fits."""
        content = self._viewport
        if content is None or content.height <= self.height + ROUGH:
            return None
        scrolls = content.height - self.height
        low = min(max(self.scroll_y, 0.0), 1.0) * scrolls
        return low, low + self.height, scrolls

    def line_widgets(self) -> list[Widget]:
        """The widgets of the list's lines: its texts and buttons shown (or the list
        itself, one long text)."""
        content = self._viewport
        if content is None:
            return []
        return [w for w in content.walk(restrict=True)  # the list itself a text, or its items
                if isinstance(w, Label | ButtonBehavior)
                and w.opacity > 0 and w.height > ROUGH]  # fmt: skip

    def lines(self, fine: bool = False) -> Iterator[Span]:
        """Where each line of the list lies (bottom, top), in the list's own height: each
        button as a whole; each text as a whole, or line by line when it is
        taller than half the view or (``fine``) always."""
        content = self._viewport
        if content is None:
            return
        base = content.to_window(0, 0)[1]
        for w in self.line_widgets():
            bottom = w.to_window(w.x, w.y)[1] - base
            text = isinstance(w, Label) and not isinstance(w, ButtonBehavior)
            if text and (fine or w.height > LONG * self.height):
                yield from text_lines(w, bottom)
            else:
                yield bottom, bottom + w.height

    def fold(self) -> None:
        """The bands, from where the list stands now: over the items the view's edges cut,
        or, with no room for that, over the lines of text they cut."""
        seen = self.seen()
        if seen is None:
            self.below = self.above = 0
            self.more_below = self.more_above = False
            return
        low, high, scrolls = seen
        self._watch(self.line_widgets())
        self.more_below = low > ROUGH
        self.more_above = high < scrolls + self.height - ROUGH
        # whole items first, then a long text line by line; an edge that cuts even so
        # (a line taller than a band may be) has no band
        for fine in (False, True):
            below, above = self.bands(list(self.lines(fine)), low, high)
            whole = below is not None and above is not None
            if whole and (below or 0.0) + (above or 0.0) <= self.height / 2:
                break
        below, above = below or 0.0, above or 0.0
        if below + above > self.height / 2:  # a view too low for both: its edges cut
            below = above = 0.0
        self.below, self.above = below, above

    def bands(
        self, spans: list[Span], low: float, high: float
    ) -> tuple[float | None, float | None]:
        """The heights of the bands over what the edges of the view (``low``, ``high``)
        would cut of the lines ``spans``; None for an edge that cuts a line taller than a
        band may be."""
        most = MOST * self.height
        below = free(spans, low, up=True, within=low + most) if self.more_below else low
        above = free(spans, high, up=False, within=high - most) if self.more_above else high
        return (
            None if below is None else below - low,
            None if above is None else high - above,
        )

    def _watch(self, widgets: list[Widget]) -> None:
        """The fold is found again when a line moves or changes its height (a text laid
        out at its width, a row grown): the list's own height may stay the same."""
        if widgets == self._watched:
            return
        for w in self._watched:
            w.funbind("y", self._refold)
            w.funbind("height", self._refold)
        for w in widgets:
            w.fbind("y", self._refold)
            w.fbind("height", self._refold)
        self._watched = widgets

    def on_touch_down(self, touch: Any) -> bool:
        """A tap on a band scrolls on (what is under the band is not tapped)."""
        wheel = getattr(touch, "is_mouse_scrolling", False)
        if not wheel and self.collide_point(*touch.pos) and touch.x < self.right - self.bar_width:
            if self.below and touch.y < self.y + self.below:
                self.page(down=True)
                return True
            if self.above and touch.y > self.top - self.above:
                self.page(down=False)
                return True
        return bool(super().on_touch_down(touch))

    def page(self, down: bool) -> None:
        """On by a page: the line the band hid comes whole to the other end of the view."""
        seen = self.seen()
        if seen is None:
            return
        low, high, scrolls = seen
        if down:  # the line the band hid comes to the top of the view
            top = low + self.below
            self.scroll_y = min(1.0, max(0.0, (top - self.height) / scrolls))
        else:
            bottom = high - self.above
            self.scroll_y = min(1.0, max(0.0, bottom / scrolls))


def text_lines(label: Label, bottom: float) -> Iterator[Span]:
    """The lines of a label's text (bottom, top), its bottom at ``bottom``; the label as
    a whole when its text is not laid out yet."""
    core = label._label
    lines = getattr(core, "_cached_lines", None) if core is not None else None
    if not lines:
        yield bottom, bottom + label.height
        return
    texture_height = label.texture_size[1]
    top = bottom + label.height / 2 + texture_height / 2  # a label centres its texture
    padding = core.options.get("padding", (0, 0, 0, 0))
    top -= padding[1] if len(padding) == 4 else padding[-1]
    for line in lines:
        yield top - line.h, top
        top -= line.h


def free(spans: list[Span], start: float, *, up: bool, within: float) -> float | None:
    """The first place from ``start`` (upwards or downwards) that is inside no line, not
    beyond ``within``; None when there is none."""
    place, moved = start, True
    while moved:
        moved = False
        for bottom, top in spans:
            if bottom + ROUGH < place < top - ROUGH:
                place, moved = (top if up else bottom), True
    beyond = place > within if up else place < within
    return None if beyond else place
