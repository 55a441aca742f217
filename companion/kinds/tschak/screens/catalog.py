"""The Tschak! card catalog checked once against the table's own cards: one card at a
time, its number and weapon corrected where the table reads something else. Layout in
the kind's kv/catalog.kv."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from kivy.metrics import dp, sp
from kivy.properties import BooleanProperty, ListProperty, StringProperty

from companion.kinds.tschak.screens.base import TschakScreen
from companion.kinds.tschak.screens.widgets import (
    DARK_GROUPS,
    EMPTY,
    GROUP_COLOURS,
    Tschak,
    TschakButton,
    app,
    ctl,
    sync,
)
from companion.kinds.tschak.views import CheckView, TschakView
from companion.ui.layouts import kind_layout

KV = "companion.kinds.tschak"  # the package whose kv/ holds its layouts

LAYOUTS = (*Tschak.layouts, kind_layout(KV, "catalog.kv"))


class TschakCatalogScreen(TschakScreen):
    """The card catalog checked once against the table's own cards: one card at a time,
    its number and weapon corrected where the table reads something else. A tag scanned
    here is enrolled for the card on screen (or shows its card, if it has one)."""

    layouts = LAYOUTS

    back_to = StringProperty("")
    instruction = StringProperty("")
    progress = StringProperty("")
    message = StringProperty("")
    checked = BooleanProperty(False)
    group = StringProperty("")
    card_title = StringProperty("")
    figure = StringProperty("")
    weapon = StringProperty("")
    swatch = ListProperty(list(EMPTY))
    ink = ListProperty([1, 1, 1, 1])

    def on_pre_enter(self, *args: Any) -> None:
        self.show_tschak(ctl().view())

    def show_tschak(self, view: TschakView) -> None:
        self.show_check(ctl().check_view())

    def show_check(self, v: CheckView) -> None:
        self.title = v.title
        self.progress = v.progress
        self.instruction = v.instruction
        self.message = v.message
        self.checked = v.checked
        card = v.card
        self.group = card.group
        self.card_title = card.title
        self.figure = card.figure or "—"
        self.weapon = capital(card.weapon)
        self.swatch = list(GROUP_COLOURS.get(card.group, EMPTY))
        self.ink = [0.08, 0.08, 0.1, 1] if card.group in DARK_GROUPS else [1, 1, 1, 1]
        for widget, (label, value, chosen) in zip(
            sync(self.ids.numbers, len(v.numbers), self._toggle), v.numbers, strict=True
        ):
            self._set(widget, label, chosen, partial(ctl().check_number, value))
        for widget, (label, weapon, chosen) in zip(
            sync(self.ids.weapons, len(v.weapons), self._toggle), v.weapons, strict=True
        ):
            self._set(widget, capital(label), chosen, partial(ctl().check_weapon, weapon))
        self.ids.numbers.cols = max(1, min(8, len(v.numbers)))  # one row: "?" and 1 to 7
        self.ids.numbers_title.opacity = 1 if v.numbers else 0
        self.ids.weapons_title.opacity = 1 if v.weapons else 0

    @staticmethod
    def _toggle() -> TschakButton:
        # "?" and the digits large: a question mark's hook and dot are read apart (a key
        # the checking player reads, not a figure of the game: the ink measure holds it
        # as a text)
        button = TschakButton(size_hint_y=None, height=dp(56), full_font_size=sp(40))
        button.ink_role = "text"
        return button

    @staticmethod
    def _set(widget: TschakButton, label: str, chosen: bool, action: Callable[[], Any]) -> None:
        widget.text = label
        widget.action = action
        widget.bold = chosen
        widget.background = [0.95, 0.8, 0.3, 1] if chosen else [0.25, 0.27, 0.32, 1]
        widget.color = [0.08, 0.08, 0.1, 1] if chosen else [1, 1, 1, 1]

    def scanned(self, uid: str) -> None:
        ctl().check_scan(uid)

    def right(self) -> None:
        ctl().check_right()

    def move(self, delta: int) -> None:
        ctl().check_move(delta)

    def back(self) -> None:
        a = app()
        target = self.back_to or a.home_screen()
        if target == "tschak_catalog":
            target = a.home_screen()
        a.show_screen(target)


def capital(words: str) -> str:
    """A weapon's words with a capital: small letters alone ("посох") draw too little ink
    to read across the table."""
    return words[:1].upper() + words[1:]
