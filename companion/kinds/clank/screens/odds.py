"""The odds of the next dragon draw, whole: for each player in the dungeon, the chance of
losing each amount of health, the chance of being knocked out, and the health lost on
average.

Exact (companion.kinds.clank.rules.odds: the bag and the Clank! area as they stand, cubes drawn
without replacement); opened by a tap on a player's figures on the table screen.
"""

from __future__ import annotations

from typing import Any

from kivy.graphics import Color, Rectangle
from kivy.metrics import dp, sp
from kivy.properties import StringProperty
from kivy.uix.anchorlayout import AnchorLayout
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.label import Label
from kivy.uix.modalview import ModalView
from kivy.uix.scrollview import ScrollView

from companion.i18n import _, ngettext
from companion.kinds.clank.view import PlayerView, TableView, health_lost, next_draw_title, percent
from companion.ui.colours import colour, letter, text_colour
from companion.ui.figures import CROWDED, TEXT, WATCHED, figure_size
from companion.ui.widgets import FitLabel

SKULL = "[font=DejaVuSans]☠[/font]"
HEART = "[font=DejaVuSans]♥[/font]"
SHOWN = 0.005  # a health loss less likely than this gets no cell (0 and the knock-out always do)
MARK = dp(48)  # the players' letters' column
PAD = dp(14)  # px around a figure in its cell
GAP = dp(4)  # between two cells
HEAD = "32sp"  # a column's head: its digits 21 px at least, as the words the table reads


def ending_text(view: TableView) -> str:
    """What the next draw does when it ends the game whatever the cubes (everyone still
    inside knocked out), told before it comes; "" when it does not."""
    if not view.odds_ends_game:
        return ""
    return next_draw_title(view.edition, view.odds_reason, view.odds_count, True)


def odds_title(view: TableView) -> str:
    return next_draw_title(view.edition, view.odds_reason, view.odds_count, view.odds_ends_game)


KNOCK_OUT = -1  # the knock-out's column, after every amount of health lost
AVERAGE = -2  # the health lost on average: the last column


def cells(p: PlayerView) -> dict[int, str]:
    """A player's figures: the chance of each amount of health lost worth showing (0 and
    the knock-out always; the knock-out under KNOCK_OUT), the health lost on average
    under AVERAGE."""
    last = len(p.odds) - 1
    shown = {KNOCK_OUT if k == last else k: percent(chance) for k, chance in enumerate(p.odds)
             if k in (0, last) or chance >= SHOWN}  # fmt: skip
    lost = health_lost(p.expected_damage)
    shown[AVERAGE] = lost if lost == "0" else "−" + lost  # (a said text: said again)
    return shown


def chances(p: PlayerView) -> dict[int, float]:
    """The chance behind each of a player's cells (the average: none)."""
    last = len(p.odds) - 1
    return {KNOCK_OUT if k == last else k: chance for k, chance in enumerate(p.odds)}


def columns(shown: list[dict[int, str]]) -> list[int]:
    """The table's columns: each amount of health some player may lose, in order, the
    knock-out, then the health lost on average."""
    lost = sorted({k for row in shown for k in row if k >= 0})
    return [*lost, KNOCK_OUT, AVERAGE]


def head(k: int) -> str:
    """A column's head: what its players lose."""
    if k == AVERAGE:
        return _("on average")
    return SKULL if k == KNOCK_OUT else f"−{k} {HEART}" if k else f"0 {HEART}"


def text_width(text: str, font_size: float, bold: bool = True, font_name: str = "Roboto") -> float:
    """How wide ``text`` is drawn (px), on one line."""
    from kivy.core.text import Label as CoreLabel

    core = CoreLabel(font_size=font_size, bold=bold, font_name=font_name)
    return float(core.get_extents(text)[0])


class OddsCell(Label):
    """A player's chance of one amount of health lost (its column says which), or the
    health they lose on average; a chance's cell is as strong in the player's colour as
    the chance is large. A figure the whole table reads."""

    ink_role = StringProperty("figure")

    def __init__(self, text: str, chance: float | None, rgba: tuple[float, ...],
                 font_size: float, width: float, **kw: Any) -> None:  # fmt: skip
        super().__init__(text=text, bold=True, font_size=font_size, size_hint_x=None,
                         width=width, **kw)  # fmt: skip
        base = (0.2, 0.21, 0.25)
        strength = 0.25 + 0.75 * min(1.0, chance * 2) if chance is not None else 0.1
        shade = [base[i] + (rgba[i] - base[i]) * strength for i in range(3)]
        with self.canvas.before:
            Color(*shade, 1)
            self._box = Rectangle(pos=self.pos, size=self.size)
        self.bind(pos=self._move, size=self._move)
        light = sum(shade) / 3 > 0.55
        self.color = (0.08, 0.08, 0.1, 1) if light else (1, 1, 1, 1)

    def _move(self, *args: Any) -> None:
        self._box.pos, self._box.size = self.pos, self.size


class ColumnHead(Label):
    """What a column's players lose, read beside its figures: words (and numbers) the
    table watches."""

    ink_role = StringProperty("watched")


def _lines(text: str, **kw: Any) -> Label:
    """Words across the view, as many lines as they take."""
    label = Label(text=text, font_size=TEXT, size_hint_y=None, halign="center", **kw)
    label.bind(width=lambda w, width: setattr(w, "text_size", (width - dp(16), None)),
               texture_size=lambda w, size: setattr(w, "height", size[1]))  # fmt: skip
    return label


def _widths(heads: list[int], shown: list[dict[int, str]], size: float) -> list[float]:
    """Each column as wide as its widest figure, or its head."""
    out = []
    for k in heads:
        widest = max((text_width(row[k], size) for row in shown if k in row), default=0.0)
        words = head(k).replace(SKULL, "☠").replace(HEART, "♥")
        # "−1 ♥" measured in the symbols' font, the wider
        font = "Roboto" if k == AVERAGE else "DejaVuSans"
        need = text_width(words, sp(HEAD.removesuffix("sp")), bold=False, font_name=font)
        out.append(max(widest, need) + PAD)
    return out


class OddsView(ModalView):
    """Every player's odds, one row each, the player's letter in their colour first: the
    chance of each amount of health lost (the last, knocked out), then the health lost
    on average; the title and Close on the first line. The figures at the size the whole
    table reads (companion.ui.figures); the rows scroll when six players and the notes
    want more than the screen, and sideways when a long draw's columns do."""

    def __init__(self, view: TableView, **kw: Any) -> None:
        super().__init__(size_hint=(0.98, 0.98), auto_dismiss=True, **kw)
        inside = [p for p in view.players if p.odds and not p.out]
        size = figure_size(len(view.players))
        many = len(view.players) >= CROWDED
        box = BoxLayout(orientation="vertical", padding=dp(6), spacing=dp(6))
        box.add_widget(self._top(view))
        for note in self._notes(view, many):
            box.add_widget(note)
        shown = [cells(p) for p in inside]
        heads = columns(shown)
        widths = _widths(heads, shown, size)
        rows = BoxLayout(orientation="vertical", size_hint=(None, None), spacing=GAP,
                         width=MARK + sum(widths) + GAP * len(widths))  # fmt: skip
        rows.bind(minimum_height=rows.setter("height"))
        rows.add_widget(self._header(heads, widths))
        for p, mine in zip(inside, shown, strict=True):
            rows.add_widget(self._row(p, mine, heads, widths, size))
        # the table in the middle, or scrolled sideways when wider than the view
        middle = AnchorLayout(size_hint=(None, None), anchor_x="center", anchor_y="top")
        middle.add_widget(rows)
        rows.bind(height=middle.setter("height"))
        scroll = ScrollView(bar_width=dp(10), do_scroll_x=False)
        scroll.add_widget(middle)
        scroll.bind(width=lambda s, w: _sideways(s, middle, rows))
        box.add_widget(scroll)
        self.add_widget(box)

    def _top(self, view: TableView) -> BoxLayout:
        """The title (the draw the odds are of) and Close."""
        from companion.ui.screens.kit import big_button

        top = BoxLayout(size_hint_y=None, height=dp(48), spacing=dp(8))
        title = FitLabel(text=odds_title(view), full_font_size=WATCHED, min_font_size=WATCHED,
                         bold=True, halign="left", valign="middle",
                         shorten=True)  # fmt: skip
        title.bind(size=lambda w, size: setattr(w, "text_size", size))
        top.add_widget(title)
        close = big_button(_("Close"), lambda: self.dismiss(animation=False), height=dp(48),
                           font_size=TEXT, size_hint_x=None, width=dp(150))  # fmt: skip
        top.add_widget(close)
        return top

    def _notes(self, view: TableView, many: bool) -> list[Label]:
        """What the figures are, and the ghosts' part in Catacombs (5-6 players: room for
        one of the two)."""
        notes = []
        ghosts = dict(view.bag).get("ghost", 0) + view.ghosts_in_area
        ghost_line = view.edition == "catacombs" and ghosts > 0
        if not (many and ghost_line):
            note = _("The chance of losing each amount of health; {skull}: knocked out")
            notes.append(_lines(note.format(skull=SKULL), markup=True,
                                color=(0.85, 0.87, 0.9, 1)))  # fmt: skip
        if ghost_line:
            # the ghosts' part: every ghost drawn hurts every player, counted in each row
            ghost_note = ngettext(
                "{n} ghost can be drawn: each ghost drawn costs every player 1 health",
                "{n} ghosts can be drawn: each ghost drawn costs every player 1 health",
                ghosts,
            ).format(n=ghosts)
            notes.append(_lines(ghost_note, color=(0.8, 0.85, 0.95, 1)))
        return notes

    def _header(self, heads: list[int], widths: list[float]) -> BoxLayout:
        """What each column loses: 0 ♥, −1 ♥, ..., ☠ (knocked out), on average."""
        header = BoxLayout(size_hint_y=None, height=dp(40), spacing=GAP)
        header.add_widget(Label(size_hint_x=None, width=MARK))
        for k, width in zip(heads, widths, strict=True):
            header.add_widget(ColumnHead(text=head(k), markup=True, font_size=HEAD,
                                         size_hint_x=None, width=width,
                                         color=(0.85, 0.87, 0.9, 1)))  # fmt: skip
        return header

    def _row(self, p: PlayerView, mine: dict[int, str], heads: list[int],
             widths: list[float], size: float) -> BoxLayout:  # fmt: skip
        """A player's letter in their colour, then their figures, column by column."""
        row = BoxLayout(size_hint_y=None, height=size * 1.2, spacing=GAP)
        rgba = colour(p.name)
        mark = Label(text=letter(p.name), font_size=TEXT, bold=True, size_hint_x=None,
                     width=MARK, color=text_colour(p.name))  # fmt: skip
        with mark.canvas.before:
            Color(*rgba)
            square = Rectangle()
        mark.bind(pos=lambda w, pos, r=square: setattr(r, "pos", pos),
                  size=lambda w, size, r=square: setattr(r, "size", size))  # fmt: skip
        row.add_widget(mark)
        odds = chances(p)
        for k, width in zip(heads, widths, strict=True):
            if k in mine:
                row.add_widget(OddsCell(mine[k], odds.get(k), rgba, size, width))
            else:  # not worth a cell for this player (or beyond their knock-out)
                row.add_widget(Label(size_hint_x=None, width=width))
        return row


def _sideways(scroll: ScrollView, middle: AnchorLayout, rows: BoxLayout) -> None:
    """The rows in the middle of the view, or wider and scrolled sideways (a long
    draw's many columns)."""
    scroll.do_scroll_x = rows.width > scroll.width + 1
    middle.width = max(scroll.width, rows.width)
