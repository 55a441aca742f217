"""Charts drawn with Kivy's own graphics, readable at 800x480 across a table.

- ``LineChart``: values over a game's steps, one line per series (a player's tally, a
  level of the whole table, as the game's kind measures them), the steps its kind marks
  (a draw from a bag) ticked along the bottom.
- ``BarChart``: stacked bars, one per player (the score's parts), or pairs of bars (the
  colours drawn against what a fair draw would give).

Text is drawn as textures (Kivy's core label) at the table's size, 26 px (about 18 px of
ink: TABLE_SCREEN.md), the axes' numbers and the legends too; where a chart is too narrow
for a name it shows its short form (a colour's letter) rather than shrinking it, and a
legend too long for one line takes two. The charts hold no game logic: they are given
numbers and words (companion.history gives the numbers). A chart lists the texts it drew
(``drawn_texts``), so that the screens' measure reads them as it reads Labels.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from kivy.core.text import Label as CoreLabel
from kivy.graphics import Color, Line, Rectangle
from kivy.properties import ListProperty, ObjectProperty, StringProperty
from kivy.uix.widget import Widget

from companion.ui.colours import BACKGROUND, DRAGON_MARK
from companion.ui.drawn import DrawnText

TEXT = 26  # px: every text on a chart (about 18 px of ink)
LINE = 34  # px: a line of chart text, with room around it
INK = (0.92, 0.92, 0.95, 1)
GRID = (1, 1, 1, 0.12)
# a tick under the plot at a marked step: a colour no player's line is near; the
# plot on the screens' own background (BACKGROUND), so a PNG reads as the screen does
MARK = DRAGON_MARK


@dataclass(frozen=True)
class Series:
    name: str  # shown in the legend
    rgba: tuple[float, ...]
    values: Sequence[float]
    short: str = ""  # in the legend when the names do not fit (a colour's letter)


@dataclass(frozen=True)
class Bar:
    name: str  # under the bar
    parts: Sequence[tuple[str, float, tuple[float, ...]]]  # (part, value, colour), bottom first
    total: str = ""  # over the bar (on two lines, broken at its " · ", in a narrow bar)
    target: float | None = None  # a value marked across the bar (what a fair draw expects)
    short: str = ""  # under the bar when its name is wider than the bar's room (a letter)


@dataclass(frozen=True)
class LineData:
    title: str
    series: Sequence[Series]
    marks: Sequence[int] = ()  # the steps marked (the kind's: a draw from its bag)
    x_label: str = ""
    mark_label: str = ""
    steps: int = 0  # the x axis runs 0 .. steps
    y_max: float | None = None  # default: the largest value


@dataclass(frozen=True)
class BarData:
    title: str
    bars: Sequence[Bar]
    legend: Sequence[tuple[str, tuple[float, ...]]] = field(default_factory=tuple)
    y_max: float | None = None


def text_texture(text: str, size: int = TEXT, bold: bool = False, wrap: float | None = None) -> Any:
    """``text`` drawn (on as many lines as it takes in ``wrap`` px, when given)."""
    label = CoreLabel(text=text, font_size=size, bold=bold, text_size=(wrap, None))
    label.refresh()
    return label.texture


def nice_step(top: float, lines: int = 4) -> float:
    """A round step for the grid (1, 2, 5, 10, ...) giving about ``lines`` lines."""
    raw = max(top, 1) / lines
    scale = 1.0
    while scale * 10 <= raw:
        scale *= 10
    for m in (1, 2, 5, 10):
        if m * scale >= raw:
            return m * scale
    return 10 * scale


class Chart(Widget):
    """The frame shared by the charts: title at the top, a plot area with a grid."""

    data = ObjectProperty(None, allownone=True)
    title = StringProperty("")
    texts = ListProperty([])  # every text drawn, with its size (the tests read them)
    boxes = ListProperty([])  # every text drawn: (text, x, y, width, height)

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.bind(pos=self.draw, size=self.draw, data=self.draw)

    def _text(self, text: str, x: float, y: float, *, size: int = TEXT, bold: bool = False,
              anchor: str = "left", wrap: float | None = None) -> tuple[float, float]:  # fmt: skip
        """Draw ``text`` with its left (or centre, or right) bottom at (x, y), on as many
        lines as it takes in ``wrap`` px when given."""
        texture = text_texture(text, size, bold, wrap)
        w, h = texture.size
        if anchor == "center":
            x -= w / 2
        elif anchor == "right":
            x -= w
        Color(*INK)
        Rectangle(texture=texture, pos=(round(x), round(y)), size=(w, h))
        self.texts.append((text, size))
        self.boxes.append((text, x, y, w, h))
        return w, h

    def drawn_texts(self) -> list[DrawnText]:
        """Every text the chart shows, in the window's coordinates (the screens' measure
        reads them as it reads Labels)."""
        out = []
        for (text, x, y, w, h), (_t, size) in zip(self.boxes, self.texts, strict=True):
            wx, wy = self.to_window(x, y)
            out.append(DrawnText(text, float(size), wx, wy, w, h))
        return out

    def _head(
        self,
        title: str,
        legend: Sequence[tuple[str, tuple[float, ...]]],
        short: Sequence[str] = (),
        extra: Sequence[tuple[str, tuple[float, ...]]] = (),
    ) -> float:
        """The title (on two lines when it must), and the legend right of it, or under it
        when they would meet (in as many lines as it takes, or in ``short`` words when the
        whole names would need more than one line), ``extra`` after it in full; returns the
        top of the plot."""
        full = self.width - 16
        wrap = None if text_texture(title, bold=True).size[0] <= full else full
        tw, th = text_texture(title, bold=True, wrap=wrap).size
        below = self.top - 2 - th  # the title's bottom
        self._text(title, self.x + 8, below, bold=True, wrap=wrap)

        def widths(items: Sequence[tuple[str, tuple[float, ...]]]) -> list[float]:
            return [text_texture(name).size[0] + 34 for name, _rgba in items]

        sized = widths(legend)
        if short and sum(sized) > full:
            legend = [(s, rgba) for s, (_n, rgba) in zip(short, legend, strict=True)]
            sized = widths(legend)
        legend = [*legend, *extra]
        sized += widths(extra)
        if not legend:
            return below - 8
        if wrap is None and sum(sized) <= self.width - tw - 24:  # beside the title
            lines = [list(zip(legend, sized, strict=True))]
        else:  # under the title, as many lines as it takes
            lines = [[]]
            room = full
            for item, w in zip(legend, sized, strict=True):
                if lines[-1] and w > room:
                    lines.append([])
                    room = full
                lines[-1].append((item, w))
                room -= w
            below -= LINE
        for k, line in enumerate(lines):
            y = below - k * LINE
            lx = self.right - 8
            for (name, rgba), w in reversed(line):
                self._text(name, lx, y, anchor="right")
                Color(*rgba)
                Rectangle(pos=(lx - w + 10, y + 7), size=(18, 18))
                lx -= w
        return below - (len(lines) - 1) * LINE - 8

    def _y_axis(
        self,
        most: float,
        left: float,
        right: float,
        bottom: float,
        top: float,
        least: float = 0.0,
    ) -> Callable[[float], float]:
        """The grid and its values from 0 (or a round value at or below a negative
        ``least``) to a round value at or above ``most``, as many lines as the height
        holds with their values apart; returns the height of a value on it."""
        lines = max(1, min(4, int((top - bottom) // (LINE + 6))))
        step = nice_step(max(most - min(least, 0), 1), lines)
        top_value = step * -(-max(most, 1) // step)
        low_value = -step * -(-max(-least, 0) // step)

        def py(v: float) -> float:
            return bottom + (top - bottom) * (v - low_value) / (top_value - low_value)

        tick = low_value
        while tick <= top_value + 1e-9:
            Color(*GRID)
            Line(points=[left, py(tick), right, py(tick)], width=1.6 if tick == 0 else 1)
            self._text(f"{tick:g}", left - 6, py(tick) - LINE / 2 + 2, anchor="right")
            tick += step
        return py

    def _axis_room(self, most: float, least: float = 0.0) -> float:
        """How far the plot stands from the left: room for the widest value on its axis."""
        widest = max(abs(most), abs(least), 1)
        digits = f"{-widest if least < 0 else widest:g}"
        return text_texture(digits + "0").size[0] + 14

    def draw(self, *args: Any) -> None:
        self.canvas.clear()
        self.texts = []
        self.boxes = []
        if self.data is None or self.width < 50 or self.height < 50:
            return
        with self.canvas:
            Color(*BACKGROUND)
            Rectangle(pos=self.pos, size=self.size)
            self.plot(self.data)

    def plot(self, data: Any) -> None:
        raise NotImplementedError


class LineChart(Chart):
    def plot(self, data: LineData) -> None:
        legend = [(series.name, series.rgba) for series in data.series]
        shorts = [series.short or series.name for series in data.series]
        # each line ends in its letter (a colour's), so no line is known by its colour alone
        ends = [s for s in data.series if s.short and s.values]
        room = max((text_texture(s.short, bold=True).size[0] for s in ends), default=0)
        most = data.y_max or max((max(s.values, default=0) for s in data.series), default=0)
        left, bottom = self.x + self._axis_room(most), self.y + LINE + 4
        right = self.right - 12 - (room + 14 if ends else 0)
        # what the marks are said under the plot, beside the axis' name; in the legend
        # when the two do not fit side by side
        mark_label = data.mark_label if data.marks else ""
        beside = sum(text_texture(t).size[0] for t in (data.x_label, mark_label) if t)
        under = beside + 24 <= right - left
        extra = [] if under or not mark_label else [(mark_label, MARK)]
        top = self._head(data.title, legend, shorts, extra) - 12
        steps = max(data.steps, max((len(s.values) for s in data.series), default=1) - 1, 1)
        py = self._y_axis(most, left, right, bottom, top)

        def px(i: float) -> float:
            return left + (right - left) * i / steps

        for i in data.marks:  # the marked steps
            Color(*MARK)
            Rectangle(pos=(px(i) - 2, bottom - 10), size=(4, 10))
        if data.x_label:
            self._text(data.x_label, left, self.y + 2)
        if mark_label and under:
            self._text(mark_label, right, self.y + 2, anchor="right")
        for s in data.series:
            if not s.values:
                continue
            points = []
            for i, v in enumerate(s.values):
                points += [px(i), py(v)]
            Color(*s.rgba)
            if len(points) >= 4:
                Line(points=points, width=2.2)
            else:
                Rectangle(pos=(points[0] - 3, points[1] - 3), size=(6, 6))
        self._line_letters(ends, right, top, py)

    def _line_letters(
        self,
        ends: Sequence[Series],
        right: float,
        top: float,
        py: Callable[[float], float],
    ) -> None:
        """Each series' letter right of its line's end, joined to it by a stroke of its
        colour; letters of lines ending at the same height are stacked, none over
        another."""
        if not ends:
            return
        h = text_texture("Ag", bold=True).size[1] + 2
        wanted = sorted((py(s.values[-1]) - h / 2, i) for i, s in enumerate(ends))
        ys = [y for y, _i in wanted]
        ys[0] = max(ys[0], self.y + 2)
        for k in range(1, len(ys)):  # pushed up off the one below
            ys[k] = max(ys[k], ys[k - 1] + h)
        ys[-1] = min(ys[-1], top - h)
        for k in range(len(ys) - 2, -1, -1):  # and down from the top
            ys[k] = min(ys[k], ys[k + 1] - h)
        for y, (_want, i) in zip(ys, wanted, strict=True):
            s = ends[i]
            Color(*s.rgba)
            Line(points=[right, py(s.values[-1]), right + 6, y + h / 2], width=1.6)
            Rectangle(pos=(right + 7, y + 4), size=(4, h - 8))
            self._text(s.short, right + 13, y + 1, bold=True)


class BarChart(Chart):
    def plot(self, data: BarData) -> None:
        head = self._head(data.title, data.legend)
        bars = list(data.bars)
        if not bars:
            return
        most = data.y_max or max(sum(max(v, 0) for _p, v, _c in b.parts) for b in bars)
        least = min(sum(min(v, 0) for _p, v, _c in b.parts) for b in bars)
        left, bottom = self.x + self._axis_room(most, least), self.y + LINE + 4
        right = self.right - 12
        slot = (right - left) / len(bars)
        # a name wider than its bar's room goes by its short form (every bar alike); a
        # total too wide goes on two lines, broken at its " · "
        fits = all(text_texture(b.name).size[0] <= slot - 6 for b in bars)
        names = [b.name if fits or not b.short else b.short for b in bars]
        totals = [
            b.total.replace(" · ", "\n")
            if text_texture(b.total, bold=True).size[0] > slot - 6 and " · " in b.total
            else b.total
            for b in bars
        ]
        above = max((text_texture(t, bold=True).size[1] for t in totals if t), default=0)
        top = head - above - 6
        py = self._y_axis(most, left, right, bottom, top, least)
        width = min(slot * 0.7, 110)
        zero = py(0)
        for i, b in enumerate(bars):
            x = left + slot * i + (slot - width) / 2
            y = below = zero  # positive parts stack up from zero, negative ones down
            for _part, value, rgba in b.parts:
                if value == 0:
                    continue
                h = py(abs(value)) - zero
                Color(*rgba)
                if value > 0:
                    Rectangle(pos=(x, y), size=(width, h))
                    y += h
                else:
                    below -= h
                    Rectangle(pos=(x, below), size=(width, h))
            if b.target is not None:
                Color(1, 1, 1, 0.95)
                Rectangle(pos=(x - 6, py(b.target) - 2), size=(width + 12, 4))
            if totals[i]:
                over = max(y, py(b.target) + 2 if b.target is not None else y)
                self._text(totals[i], x + width / 2, over + 4, anchor="center", bold=True)
            self._text(names[i], x + width / 2, self.y + 2, anchor="center")
