"""The verdict of a Tschak! floor: every team's strength large, who takes the treasure
and the monster, and why (the tie chain in words); for a tower's trophies, the gold and
the passing of the hands. Layout in the kind's kv/verdict.kv."""

from __future__ import annotations

from typing import Any

from kivy.metrics import sp
from kivy.properties import BooleanProperty, NumericProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout

from companion.i18n import _
from companion.kinds.tschak.screens.base import TschakScreen
from companion.kinds.tschak.screens.widgets import Seated, Tschak, cell, chip, ctl, seat_of
from companion.kinds.tschak.views import (
    FloorVerdictView,
    TrophyVerdictView,
    TschakView,
    VerdictTeamView,
)
from companion.ui.layouts import kind_layout

KV = "companion.kinds.tschak"  # the package whose kv/ holds its layouts

LAYOUTS = (*Tschak.layouts, kind_layout(KV, "verdict.kv"))
CARD_FIGURE = sp(46)  # a trophy's last card: its number 33 px of ink, in a row of 72 dp


def taken(team: VerdictTeamView, verdict: FloorVerdictView) -> str:
    """What a team takes, in the fewest words the table reads from its seat: the card's
    name in a box of the card's colour (the reasons below give the whole card), or that
    it takes nothing; a misplay first."""
    card = {"treasure": verdict.treasure, "monster": verdict.monster}.get(team.takes)
    words = card.title if card is not None else team.takes_text
    return _("misplay") + " · " + words if team.misplay else words


class VerdictColumn(Seated, BoxLayout):
    """A team after the floor: its strength large, what it takes, what it counted."""

    layouts = LAYOUTS

    strength = StringProperty("")
    takes = StringProperty("")
    takes_text = StringProperty("")
    detail = StringProperty("")
    figure_size = NumericProperty(sp(54))  # the strength: 38 px of ink


class TrophyRow(Seated, BoxLayout):
    layouts = LAYOUTS
    gold = StringProperty("")
    note = StringProperty("")


class TschakVerdictScreen(TschakScreen):
    """The verdict: every team's strength large, who takes the treasure and the monster,
    and why (the tie chain in words). For the trophies: the gold and the passing."""

    layouts = LAYOUTS

    reasons = StringProperty("")
    passing = StringProperty("")
    continue_text = StringProperty("")
    trophies = BooleanProperty(False)

    def show_tschak(self, view: TschakView) -> None:
        super().show_tschak(view)
        if not self.part_changed((view.verdict, view.trophies)):
            return  # the same verdict: nothing to build again
        box = self.ids.columns
        box.clear_widgets()
        self.ids.scroll.scroll_y = 1  # a new verdict is read from its top
        if view.verdict is not None:
            self.trophies = False
            self._floor(view.verdict)
            nxt = view.verdict.floor + 1
            self.continue_text = (
                _("Next: floor {floor}").format(floor=nxt) if nxt <= 3 else _("Next: the trophies")
            )
        elif view.trophies is not None:
            self.trophies = True
            self._trophies(view.trophies)
            self.continue_text = (
                _("Next: the scores")
                if view.trophies.last_tower
                else _("Next: tower {tower}").format(tower=view.trophies.tower + 1)
            )

    def _floor(self, v: FloorVerdictView) -> None:
        self.reasons = "\n".join(v.reasons)
        self.passing = ""
        box = self.ids.columns
        box.orientation = "horizontal"
        for t in v.teams:
            column = VerdictColumn(
                **seat_of(t.label, t.colour),
                strength=str(t.strength),
                takes=t.takes,
                takes_text=taken(t, v),
                detail=t.detail,
            )
            column.bind(minimum_height=self._level)
            box.add_widget(column)
        self._level()

    def _trophies(self, v: TrophyVerdictView) -> None:
        self.reasons = "\n".join(v.reasons)
        self.passing = v.passing
        box = self.ids.columns
        box.orientation = "vertical"
        for r in v.rows:
            row = TrophyRow(
                **seat_of(r.label, r.colour),
                gold=str(r.gold),
                note=r.note,
            )
            # the last card as the floor showed it: its number large, the strength the
            # trophies are ranked by (its words are the card's, for a fresh screen too)
            card = chip(r.card, figure_size=CARD_FIGURE) if r.card else cell("—", color=row.ink)
            row.ids.card.add_widget(card)
            row.bind(height=self._stack)
            box.add_widget(row)
        self._stack()

    def _stack(self, *args: Any) -> None:
        """The trophies' rows one under the other, each as tall as its note needs."""
        box = self.ids.columns
        rows = box.children
        box.height = sum(r.height for r in rows) + box.spacing * max(0, len(rows) - 1)

    def _level(self, *args: Any) -> None:
        """Every column as tall as the tallest (its words wrap as they need)."""
        box = self.ids.columns
        tallest = max((c.minimum_height for c in box.children), default=0)
        box.height = tallest
        for c in box.children:
            c.height = tallest

    def go_on(self) -> None:
        if self.aimed():
            ctl().go_on()
