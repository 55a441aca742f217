"""Measuring a screen as a player across the table meets it: the size of every text it
shows, every button a finger can press, and the gaps between them (TABLE_SCREEN.md)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from kivy.uix.behaviors import ButtonBehavior
from kivy.uix.label import Label
from kivy.uix.scrollview import ScrollView
from kivy.uix.widget import Widget

from companion.ui.drawn import DrawnText
from companion.ui.ink import walk

MIN_TEXT = 20  # px: any text on the table screen
MIN_FIGURE = 36  # px: the figures a player looks for
MIN_TARGET = 48  # px: a fingertip
MIN_GAP = 8  # px between two touch targets


@dataclass(frozen=True)
class Box:
    widget: Widget
    text: str
    x: float
    y: float
    w: float
    h: float

    def gap(self, other: Box) -> float:
        """The distance between two boxes (0 when they touch or overlap)."""
        dx = max(other.x - (self.x + self.w), self.x - (other.x + other.w), 0)
        dy = max(other.y - (self.y + self.h), self.y - (other.y + other.h), 0)
        return max(dx, dy)

    def overlaps(self, other: Box) -> bool:
        return (
            self.x < other.x + other.w
            and other.x < self.x + self.w
            and self.y < other.y + other.h
            and other.y < self.y + self.h
        )


def shown(widget: Widget) -> bool:
    """On screen: in the window, not hidden (opacity 0 or zero size) by it or an ancestor."""
    if widget.get_root_window() is None:
        return False
    node: Widget | None = widget
    while node is not None and node is not node.parent:
        if getattr(node, "opacity", 1) <= 0.01:
            return False
        if node.width < 1 or node.height < 1:
            return False
        node = node.parent if isinstance(node.parent, Widget) else None
    return True


def box(widget: Widget) -> Box:
    x, y = widget.to_window(widget.x, widget.y)
    return Box(widget, str(getattr(widget, "text", "")), x, y, widget.width, widget.height)


def texts(root: Widget) -> list[tuple[Label, float]]:
    """Every text shown under ``root``, with the font size it is drawn at (px)."""
    out = []
    for w in walk(root):
        if isinstance(w, Label) and w.text.strip() and shown(w):
            out.append((w, float(w.font_size)))
    return out


def drawn(root: Widget) -> list[tuple[Widget, DrawnText]]:
    """Every text drawn straight into a canvas under ``root`` (companion.ui.drawn), with
    the widget that draws it."""
    return [
        (w, t)
        for w in walk(root)
        if hasattr(w, "drawn_texts") and shown(w)
        for t in w.drawn_texts()
    ]


def sticks_out(text: DrawnText, widget: Widget, slack: float = 1) -> bool:
    """Whether a drawn text reaches past the widget that draws it."""
    b = box(widget)
    return (
        text.x < b.x - slack
        or text.y < b.y - slack
        or text.x + text.width > b.x + b.w + slack
        or text.y + text.height > b.y + b.h + slack
    )


def in_view(b: Box) -> Box | None:
    """The part of a button a finger can reach: within every scroll view around it (None
    when it is scrolled out of sight; a finger scrolls to it first)."""
    x0, y0, x1, y1 = b.x, b.y, b.x + b.w, b.y + b.h
    node = b.widget.parent
    while isinstance(node, Widget) and node is not node.parent:
        if isinstance(node, ScrollView):
            vx, vy = node.to_window(node.x, node.y)
            x0, y0 = max(x0, vx), max(y0, vy)
            x1, y1 = min(x1, vx + node.width), min(y1, vy + node.height)
        node = node.parent
    if x1 - x0 < 1 or y1 - y0 < 1:
        return None
    return Box(b.widget, b.text, x0, y0, x1 - x0, y1 - y0)


def targets(root: Widget) -> list[Box]:
    """Every button a finger can press under ``root``, as much of it as is in view."""
    found = []
    for w in walk(root):
        if isinstance(w, ButtonBehavior) and shown(w) and not w.disabled:
            seen = in_view(box(w))
            if seen is not None:
                found.append(seen)
    return found


def _inside(widget: Widget, outer: Widget) -> bool:
    node = widget.parent
    while isinstance(node, Widget) and node is not node.parent:
        if node is outer:
            return True
        node = node.parent
    return False


def problems(root: Widget, figures: Collection[Widget | DrawnText] = frozenset()) -> list[str]:
    """What breaks the table-screen numbers under ``root``; ``figures``: the labels (or
    drawn texts) that must be at least MIN_FIGURE (the numbers a player looks for)."""
    found = []
    for label, size in texts(root):
        least = MIN_FIGURE if label in figures else MIN_TEXT
        if size + 0.5 < least:
            found.append(f"text {label.text!r} is {size:.0f} px (at least {least})")
    for widget, text in drawn(root):
        least = MIN_FIGURE if text in figures else MIN_TEXT
        if text.font_size + 0.5 < least:
            found.append(f"text {text.text!r} is {text.font_size:.0f} px (at least {least})")
        if sticks_out(text, widget):
            found.append(f"text {text.text!r} sticks out of its place")
    for label, _size in texts(root):
        outer = label.parent
        if isinstance(outer, Widget) and outer is not label and shown(outer):
            a, b = box(label), box(outer)
            # a scroll view shows its content a window at a time: only its width must fit
            scrolled = isinstance(outer, ScrollView)
            if (
                a.x < b.x - 1
                or a.x + a.w > b.x + b.w + 1
                or (not scrolled and (a.y < b.y - 1 or a.y + a.h > b.y + b.h + 1))
            ):
                found.append(f"text {label.text!r} sticks out of its place")
    buttons = targets(root)
    for b in buttons:
        w, h = b.widget.width, b.widget.height  # whole (a part scrolled away comes back)
        if w + 0.5 < MIN_TARGET or h + 0.5 < MIN_TARGET:
            found.append(f"button {b.text!r} is {w:.0f}x{h:.0f} px (at least {MIN_TARGET})")
    for i, a in enumerate(buttons):
        for b in buttons[i + 1 :]:
            if _inside(a.widget, b.widget) or _inside(b.widget, a.widget):
                continue  # one inside the other: one target
            if a.gap(b) + 0.5 < MIN_GAP:
                found.append(f"buttons {a.text!r} and {b.text!r} are {a.gap(b):.0f} px apart")
    return found


INK_FIGURE = 30  # px of ink: every figure the table watches, 2-4 players (TABLE_SCREEN.md)
INK_FIGURE_SIX = 26  # the same with 5-6 players
INK_TEXT = 18  # px of ink: every other text on the table screen


def ink_problems(ui: Any, least_figure: int, *, with_figures: bool = True) -> list[str]:
    """What the window's pixels show too small or cut: each figure's ink (a digit's
    height) and every other text's, and any text shortened or with a word broken
    (``with_figures``: the screen shows figures, and one at least must be measured)."""
    from companion.ui.ink import CROWDED, problems, screen_metrics
    from companion.ui.taps import RULE

    RULE.release_all()  # the screen as it is read: a control new a moment ago is veiled
    ui.frames(2)
    measured = screen_metrics(ui.window)
    out = []
    for t in measured["texts"]:
        if not t["ink"]:
            continue
        least = least_figure if t["figure"] else INK_TEXT
        if t["ink"] < least:
            out.append(f"{t['text']!r} has {t['ink']} px of ink, under {least}")
    figures_seen = [t for t in measured["texts"] if t["figure"] and t["ink"]]
    if with_figures and not figures_seen:
        out.append("no figure measured")
    # each text by its role: a figure's digits, a watched text's and another's capitals
    # (companion.ui.ink), at the table's size for its players
    out += problems(measured, CROWDED if least_figure < INK_FIGURE else CROWDED - 1)
    return out + [f"cut: {c}" for c in measured["cut"]]
