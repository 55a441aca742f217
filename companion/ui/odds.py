"""The odds of the next dragon draw, whole: for each player in the dungeon, the chance of
losing each amount of health, the last cell the chance of being knocked out.

Exact (companion.rules.odds: the bag and the Clank! area as they stand, cubes drawn
without replacement); opened by a tap on a player's figures on the table screen.
"""

from __future__ import annotations

from typing import Any

from kivy.graphics import Color, Rectangle
from kivy.metrics import dp
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.label import Label
from kivy.uix.modalview import ModalView
from kivy.uix.scrollview import ScrollView

from companion.i18n import _, ngettext
from companion.ui.colours import colour, letter, text_colour
from companion.view import PlayerView, TableView, next_draw_title, percent

SKULL = "[font=DejaVuSans]☠[/font]"
HEART = "[font=DejaVuSans]♥[/font]"
TEXT = "26sp"  # the table's text size (TABLE_SCREEN.md: about 18 px of ink)
CELL = dp(80)  # a column: "100%" in table-sized bold
SHOWN = 0.005  # a health loss less likely than this gets no cell (0 and the knock-out always do)


def ending_text(view: TableView) -> str:
    """What the next draw does when it ends the game whatever the cubes (everyone still
    inside knocked out), told before it comes; "" when it does not."""
    if not view.odds_ends_game:
        return ""
    return next_draw_title(view.edition, view.odds_reason, view.odds_count, True)


def odds_title(view: TableView) -> str:
    return next_draw_title(view.edition, view.odds_reason, view.odds_count, view.odds_ends_game)


KNOCK_OUT = -1  # the knock-out's column, after every amount of health lost


def cells(p: PlayerView) -> dict[int, float]:
    """The chance of each amount of health lost worth showing (0 and the knock-out
    always), the knock-out under KNOCK_OUT."""
    last = len(p.odds) - 1
    return {KNOCK_OUT if k == last else k: chance for k, chance in enumerate(p.odds)
            if k in (0, last) or chance >= SHOWN}  # fmt: skip


def columns(shown: list[dict[int, float]]) -> list[int]:
    """The table's columns: each amount of health some player may lose, in order, the
    knock-out last."""
    return [*sorted({k for row in shown for k in row if k != KNOCK_OUT}), KNOCK_OUT]


def head(k: int) -> str:
    """A column's head: what its players lose."""
    return SKULL if k == KNOCK_OUT else f"−{k} {HEART}" if k else f"0 {HEART}"


class OddsCell(Label):
    """A player's chance of one amount of health lost (its column says which); the cell's
    colour is as strong as the chance is large. A chance, not a figure a player looks
    for across the table (the screens' measure holds it to the size of a text)."""

    figure = False

    def __init__(self, chance: float, rgba: tuple[float, ...], **kw: Any) -> None:
        super().__init__(text=percent(chance), bold=True, font_size=TEXT, halign="center",
                         valign="middle", size_hint_x=None, width=CELL, **kw)  # fmt: skip
        base = (0.2, 0.21, 0.25)
        strength = 0.25 + 0.75 * min(1.0, chance * 2)
        shade = [base[i] + (rgba[i] - base[i]) * strength for i in range(3)]
        with self.canvas.before:
            Color(*shade, 1)
            self._box = Rectangle(pos=self.pos, size=self.size)
        self.bind(pos=self._move, size=self._move)
        light = sum(shade) / 3 > 0.55
        self.color = (0.08, 0.08, 0.1, 1) if light else (1, 1, 1, 1)

    def _move(self, *args: Any) -> None:
        self._box.pos, self._box.size = self.pos, self.size
        self.text_size = self.size


def _lines(text: str, **kw: Any) -> Label:
    """Table-sized words across the view, as many lines as they take."""
    label = Label(text=text, font_size=TEXT, size_hint_y=None, halign="center", **kw)
    label.bind(width=lambda w, width: setattr(w, "text_size", (width - dp(16), None)),
               texture_size=lambda w, size: setattr(w, "height", size[1]))  # fmt: skip
    return label


class OddsView(ModalView):
    """Every player's distribution, one row each, the player's letter in their colour
    first; the title and Close on the first line. Every text table-sized (26 px); the
    rows scroll when six players and the notes want more than the screen."""

    def __init__(self, view: TableView, **kw: Any) -> None:
        super().__init__(size_hint=(0.98, 0.98), auto_dismiss=True, **kw)
        from companion.ui.screens.kit import big_button

        inside = [p for p in view.players if p.odds and not p.out]
        many = len(inside) > 4
        box = BoxLayout(orientation="vertical", padding=dp(6), spacing=dp(6))
        top = BoxLayout(size_hint_y=None, height=dp(48), spacing=dp(8))
        title = Label(text=odds_title(view), font_size=TEXT, bold=True, halign="left",
                      valign="middle")  # fmt: skip
        title.bind(size=lambda w, size: setattr(w, "text_size", size))
        top.add_widget(title)
        close = big_button(_("Close"), lambda: self.dismiss(animation=False), height=dp(48),
                           font_size=TEXT, size_hint_x=None, width=dp(150))  # fmt: skip
        top.add_widget(close)
        box.add_widget(top)
        ghosts = dict(view.bag).get("ghost", 0) + view.ghosts_in_area
        ghost_line = view.edition == "catacombs" and ghosts > 0
        if not (many and ghost_line):  # 5-6 players: room for one line of notes only
            note = _("The chance of losing each amount of health; {skull}: knocked out")
            box.add_widget(_lines(note.format(skull=SKULL), markup=True,
                                  color=(0.85, 0.87, 0.9, 1)))  # fmt: skip
        if ghost_line:
            # the ghosts' part: every ghost drawn hurts every player, counted in each row
            ghost_note = ngettext(
                "{n} ghost can be drawn: each ghost drawn costs every player 1 health",
                "{n} ghosts can be drawn: each ghost drawn costs every player 1 health",
                ghosts,
            ).format(n=ghosts)
            box.add_widget(_lines(ghost_note, color=(0.8, 0.85, 0.95, 1)))
        rows = BoxLayout(orientation="vertical", size_hint_y=None, spacing=dp(4))
        rows.bind(minimum_height=rows.setter("height"))
        shown = [cells(p) for p in inside]
        heads = columns(shown)
        header = BoxLayout(size_hint_y=None, height=dp(36), spacing=dp(4))
        header.add_widget(Label(size_hint_x=None, width=dp(48)))
        for k in heads:  # what each column loses: 0 ♥, −1 ♥, ..., ☠ (knocked out)
            header.add_widget(Label(text=head(k), markup=True, font_size=TEXT, size_hint_x=None,
                                    width=CELL, color=(0.85, 0.87, 0.9, 1)))  # fmt: skip
        header.add_widget(Label())
        rows.add_widget(header)
        for p, mine in zip(inside, shown, strict=True):
            row = BoxLayout(size_hint_y=None, height=dp(44), spacing=dp(4))
            rgba = colour(p.name)
            mark = Label(text=letter(p.name), font_size=TEXT, bold=True, size_hint_x=None,
                         width=dp(48), color=text_colour(p.name))  # fmt: skip
            with mark.canvas.before:
                Color(*rgba)
                square = Rectangle()
            mark.bind(pos=lambda w, pos, r=square: setattr(r, "pos", pos),
                      size=lambda w, size, r=square: setattr(r, "size", size))  # fmt: skip
            row.add_widget(mark)
            for k in heads:
                if k in mine:
                    row.add_widget(OddsCell(mine[k], rgba))
                else:  # not worth a cell for this player (or beyond their knock-out)
                    row.add_widget(Label(size_hint_x=None, width=CELL))
            row.add_widget(Label())
            rows.add_widget(row)
        scroll = ScrollView(do_scroll_x=False, bar_width=dp(10))
        scroll.add_widget(rows)
        box.add_widget(scroll)
        self.add_widget(box)
