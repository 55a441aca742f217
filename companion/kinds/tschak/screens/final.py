"""The end of a Tschak! game: each player scans their two piles against the game; then
the winner first and large, and the breakdown. Layout in the kind's kv/final.kv."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any

from kivy.metrics import dp, sp
from kivy.properties import BooleanProperty, StringProperty
from kivy.uix.behaviors import ButtonBehavior
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.label import Label

from companion.i18n import _
from companion.kinds.tschak.screens.base import TschakScreen
from companion.kinds.tschak.screens.popups import Choices, confirm_close
from companion.kinds.tschak.screens.widgets import (
    Seated,
    Tschak,
    TschakButton,
    button,
    cell,
    ctl,
    sync,
)
from companion.kinds.tschak.views import FinalView, ScoreColumnView, TschakView
from companion.ui.colours import colour
from companion.ui.drawn import text_extent
from companion.ui.layouts import kind_layout

KV = "companion.kinds.tschak"  # the package whose kv/ holds its layouts

LAYOUTS = (*Tschak.layouts, kind_layout(KV, "final.kv"))


class PilePanel(Seated, ButtonBehavior, BoxLayout):
    layouts = LAYOUTS
    player = StringProperty("")
    selected = BooleanProperty(False)
    count_text = StringProperty("")
    status_text = StringProperty("")
    status = StringProperty("")
    cards_text = StringProperty("")

    def on_release(self) -> None:
        ctl().select(self.player)


class TschakFinalScreen(TschakScreen):
    """The end: each player scans their two piles against the game; then the winner
    first and large, and the breakdown."""

    layouts = LAYOUTS

    revealed = BooleanProperty(False)
    winner_text = StringProperty("")
    tie_note = StringProperty("")

    def show_tschak(self, view: TschakView) -> None:
        super().show_tschak(view)
        final = view.final
        if final is None:
            return
        self.revealed = final.revealed
        self.winner_text = final.winner_text
        self.tie_note = final.tie_note
        if not self.part_changed(final):
            return
        if final.revealed:
            self._result(final)
        else:
            self._piles(final)

    def _piles(self, final: FinalView) -> None:
        for panel, p in zip(
            sync(self.ids.piles, len(final.piles), PilePanel), final.piles, strict=True
        ):
            panel.player = p.player
            panel.seat(p.label, p.colour)
            panel.selected = p.selected
            panel.count_text = f"{len(p.scanned)} / {p.expected}"
            panel.status_text = p.status_text
            panel.status = p.status
            panel.cards_text = p.scanned[-1].words if p.scanned else ""

    def _result(self, final: FinalView) -> None:
        """The names on top and the totals below stay; the rows between scroll. Every
        cell that counts is a figure at the table's size; the rows' names and the
        elixir's choice are words for the player who leans in."""
        grids = self.ids.head, self.ids.table, self.ids.totals
        for grid in grids:
            grid.clear_widgets()
            grid.cols = 1 + len(final.columns)
            grid.rows_minimum = {}
        self.ids.scroll.scroll_y = 1
        head, table, totals = grids
        names = [cell("")] + [
            cell(f"{col.place}. {col.label}", bold=True, color=colour(col.colour))
            for col in final.columns
        ]
        # four players: the rows' names on two lines where they need them; fewer: on one
        width = NAMES_WIDTH if len(final.columns) > 3 else WIDE_NAMES_WIDTH
        level(head, 0, names, width)
        last = len(final.rows) - 1
        for i, row in enumerate(final.rows):
            if i == last:  # "Total": the word the table looks for beside the totals
                name = cell(row, WATCHED, halign="left", bold=True, ink_role="watched")
            else:
                name = cell(row, halign="left", color=(0.8, 0.82, 0.88, 1))
            cells = [name] + [self._cell(final, i, col) for col in final.columns]
            level(totals if i == last else table, 0 if i == last else i, cells, width)

    def _cell(self, final: FinalView, i: int, col: ScoreColumnView) -> Any:
        """A player's cell of row ``i``: a figure, the total larger; the elixir's use in
        words (a button when the player may choose it)."""
        text = col.cells[i]
        if final.rows[i] == _("Elixir"):
            if col.elixir_choices:
                choose = partial(self.elixir, col.player, col.label, col.elixir_choices)
                return button(text, choose, size_hint_y=1)
            return cell(text)
        if i == len(final.rows) - 1:
            return cell(text, TOTAL, bold=True, ink_role="figure")
        return cell(text, FIGURE, ink_role="figure")

    def elixir(self, player: str, label: str, choices: Sequence[tuple[str, str | None]]) -> None:
        entries = [
            (text, partial(ctl().choose_elixir, player, discard)) for text, discard in choices
        ]
        Choices(
            _("{player}: the elixir discards which monster?").format(player=label), entries
        ).open()

    def reveal(self) -> None:
        if self.aimed():
            ctl().reveal()

    def show_piles(self) -> None:
        ctl().show_piles()

    def close_game(self) -> None:
        confirm_close()


NAMES_WIDTH = dp(172)  # the rows' names beside four players, who share the rest
# equally: four columns of 150 px hold "1 → −1" at FIGURE
WIDE_NAMES_WIDTH = dp(260)  # beside three players or two: "Troglodytes (n → −n²)"
FIGURE = sp(44)  # a cell's figure: 31 px of digits (30 at least, TABLE_SCREEN.md)
TOTAL = sp(54)  # a total: 38 px of digits, larger than what it adds up
WATCHED = sp(30)  # words the whole table reads: 21 px of capitals


def level(grid: Any, row: int, cells: list[Any], width: float) -> None:
    """Row ``row`` of the grid: its cells side by side, every one as tall as the
    tallest's words wrapped to its width (a name on two lines, a total), so that the
    figures beside a name stand level with it; the row's name ``width`` px wide, so
    that the players' columns get all the room left, not a share equal to the names'."""
    cells[0].size_hint_x = None
    cells[0].width = width

    def even(*args: Any) -> None:
        tallest = max(natural_height(c) for c in cells)
        if grid.rows_minimum.get(row) != tallest:
            grid.rows_minimum = {**grid.rows_minimum, row: tallest}

    for c in cells:
        grid.add_widget(c)
        c.bind(width=even, text=even, font_size=even)
    even()


def natural_height(widget: Any, pad: float = dp(4)) -> float:
    """How tall a cell's words are, wrapped as it wraps them, with room around them (a
    button: a finger's at least)."""
    options = {k: getattr(widget, k) for k in Label._font_properties}
    wrap = widget.text_size[0] or widget.width
    height = text_extent(options, widget.font_size, max(1, wrap))[1] + pad
    return max(height, dp(56) if isinstance(widget, TschakButton) else dp(36))
