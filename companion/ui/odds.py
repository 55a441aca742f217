"""The odds of the next dragon draw, whole: for each player in the dungeon, the chance of
losing each amount of health, the last cell the chance of being knocked out.

Exact (companion.rules.odds: the bag and the Clank! area as they stand, cubes drawn
without replacement); opened by a tap on a player's figures on the table screen.
"""

from __future__ import annotations

from typing import Any

from kivy.graphics import Color, Rectangle
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.label import Label
from kivy.uix.modalview import ModalView

from companion.i18n import _, ngettext, player_name
from companion.ui.colours import colour
from companion.view import PlayerView, TableView, next_draw_title, percent

SKULL = "[font=DejaVuSans]☠[/font]"
HEART = "[font=DejaVuSans]♥[/font]"
SHOWN = 0.005  # a health loss less likely than this gets no cell (0 and the knock-out always do)


def ending_text(view: TableView) -> str:
    """What the next draw does when it ends the game whatever the cubes (everyone still
    inside knocked out), told before it comes; "" when it does not."""
    if not view.odds_ends_game:
        return ""
    return next_draw_title(view.edition, view.odds_reason, view.odds_count, True)


def odds_title(view: TableView) -> str:
    return next_draw_title(view.edition, view.odds_reason, view.odds_count, view.odds_ends_game)


def cells(p: PlayerView) -> list[tuple[str, float]]:
    """(what, chance) for each amount of health worth showing, the knock-out last."""
    last = len(p.odds) - 1
    out = []
    for k, chance in enumerate(p.odds):
        if k == last:
            out.append((f"{SKULL}", chance))
        elif k == 0 or chance >= SHOWN:
            out.append((f"−{k} {HEART}" if k else f"0 {HEART}", chance))
    return out


class OddsCell(Label):
    """One amount of health lost and its chance; the cell's colour is as strong as the
    chance is large."""

    def __init__(self, what: str, chance: float, rgba: tuple[float, ...], **kw: Any) -> None:
        super().__init__(text=f"{what}\n[b]{percent(chance)}[/b]", markup=True, font_size="20sp",
                         halign="center", valign="middle", line_height=0.95,
                         size_hint_x=None, width=86, **kw)  # fmt: skip
        base = (0.2, 0.21, 0.25)
        strength = 0.15 + 0.85 * min(1.0, chance * 1.6) if chance > 0 else 0.0
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


class OddsView(ModalView):
    """Every player's distribution, one row each; Close at the bottom."""

    def __init__(self, view: TableView, **kw: Any) -> None:
        super().__init__(size_hint=(0.98, 0.97), auto_dismiss=True, **kw)
        inside = [p for p in view.players if p.odds and not p.out]
        many = len(inside) > 4  # 5-6 players: every row a little lower, all on screen
        box = BoxLayout(orientation="vertical", padding=8, spacing=4 if many else 6)
        box.add_widget(Label(text=odds_title(view), font_size="22sp", bold=True,
                             size_hint_y=None, height=30 if many else 36))  # fmt: skip
        ghosts = dict(view.bag).get("ghost", 0) + view.ghosts_in_area
        ghost_line = view.edition == "catacombs" and ghosts > 0
        if not (many and ghost_line):  # 5-6 players: room for one line of notes only
            note = _("The chance of losing each amount of health; {skull}: knocked out")
            box.add_widget(Label(text=note.format(skull=SKULL), markup=True, font_size="20sp",
                                 size_hint_y=None, height=26 if many else 30,
                                 color=(0.85, 0.87, 0.9, 1)))  # fmt: skip
        if ghost_line:
            # the ghosts' part: every ghost drawn hurts every player, counted in each row
            ghost_note = ngettext(
                "{n} ghost can be drawn: each ghost drawn costs every player 1 health",
                "{n} ghosts can be drawn: each ghost drawn costs every player 1 health",
                ghosts,
            ).format(n=ghosts)
            line = Label(text=ghost_note, font_size="20sp", size_hint_y=None, halign="center",
                         color=(0.8, 0.85, 0.95, 1))  # fmt: skip
            line.bind(width=lambda w, width: setattr(w, "text_size", (width - 16, None)),
                      texture_size=lambda w, size: setattr(w, "height", size[1]))  # fmt: skip
            box.add_widget(line)
        row_height = 50 if many else 60
        for p in inside:
            row = BoxLayout(size_hint_y=None, height=row_height, spacing=4)
            name = Label(text=player_name(p.name, capital=True), font_size="20sp", bold=True,
                         size_hint_x=None, width=128, halign="left", valign="middle",
                         shorten=True)  # fmt: skip
            name.bind(size=lambda w, size: setattr(w, "text_size", size))
            row.add_widget(name)
            for what, chance in cells(p):
                row.add_widget(OddsCell(what, chance, colour(p.name)))
            row.add_widget(Label())
            box.add_widget(row)
        if not many:
            box.add_widget(Label())  # the rows at the top, Close at the bottom
        close = _("Close")
        from companion.ui.screens.kit import big_button

        box.add_widget(
            big_button(close, lambda: self.dismiss(animation=False), height=52, font_size="22sp")
        )
        self.add_widget(box)
