"""The end of a Tschak! game: each player scans their two piles against the game; then
the winner first and large, and the breakdown. Layout in kv/tschak/final.kv."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any

from kivy.metrics import dp, sp
from kivy.properties import BooleanProperty, StringProperty
from kivy.uix.behaviors import ButtonBehavior
from kivy.uix.boxlayout import BoxLayout

from companion.i18n import _
from companion.kinds.tschak.screens.base import TschakScreen
from companion.kinds.tschak.screens.popups import Choices, confirm_close, grown
from companion.kinds.tschak.screens.widgets import Seated, Tschak, button, cell, ctl, sync, tinted
from companion.kinds.tschak.views import FinalView, TschakView
from companion.ui.colours import colour, letter, text_colour

LAYOUTS = (*Tschak.layouts, "tschak/final.kv")


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
            panel.name_text = p.label
            panel.letter_text = letter(p.colour)
            panel.swatch = list(colour(p.colour))
            panel.tint = tinted(colour(p.colour), 0.3)
            panel.ink = list(text_colour(p.colour))
            panel.selected = p.selected
            panel.count_text = f"{len(p.scanned)} / {p.expected}"
            panel.status_text = p.status_text
            panel.status = p.status
            panel.cards_text = p.scanned[-1].words if p.scanned else ""

    def _result(self, final: FinalView) -> None:
        """The names on top and the totals below stay; the rows between scroll."""
        grids = self.ids.head, self.ids.table, self.ids.totals
        for grid in grids:
            grid.clear_widgets()
            grid.cols = 1 + len(final.columns)
        self.ids.scroll.scroll_y = 1
        head, table, totals = grids
        head.add_widget(labels(sized(cell(""))))
        for col in final.columns:
            name = cell(f"{col.place}. {col.label}", bold=True, color=colour(col.colour))
            head.add_widget(sized(name))
        elixir_row = _("Elixir")
        last = len(final.rows) - 1
        for i, row in enumerate(final.rows):
            grid = totals if i == last else table
            grid.add_widget(
                labels(sized(cell(row, halign="left", bold=i == last, color=(0.8, 0.82, 0.88, 1))))
            )
            for col in final.columns:
                text = col.cells[i]
                if col.elixir_choices and row == elixir_row:
                    choose = partial(self.elixir, col.player, col.label, col.elixir_choices)
                    grid.add_widget(grown(button(text, choose), pad=dp(10), least=dp(56)))
                elif i == last:  # the totals: the figures a player looks for
                    grid.add_widget(
                        sized(cell(text, bold=True, full_font_size=sp(54), min_font_size=sp(54)))
                    )
                else:
                    grid.add_widget(sized(cell(text)))

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


LABELS_WIDTH = dp(220)  # the rows' names; the players share the rest equally


def labels(widget: Any) -> Any:
    """A cell of the rows' names: a fixed width, so that the players' columns (four of
    them side by side) get all the room left, not a share equal to the names'."""
    widget.size_hint_x = None
    widget.width = LABELS_WIDTH
    return widget


def sized(widget: Any) -> Any:
    """A cell of the breakdown as tall as its words wrapped to its width (a row is as
    tall as its tallest cell)."""
    return grown(widget, pad=dp(6), least=dp(36))
