"""Before a Tschak! game: the seats, every setting with its default (changeable), and the
card catalog's state; Start records the game. Layout in the kind's kv/setup.kv."""

from __future__ import annotations

from functools import partial

from kivy.metrics import dp
from kivy.properties import BooleanProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout

from companion.i18n import _
from companion.kinds.tschak.screens.base import TschakScreen
from companion.kinds.tschak.screens.popups import Choices, grown, open_catalog_check
from companion.kinds.tschak.screens.widgets import Tschak, cell, ctl
from companion.kinds.tschak.views import SettingView, TschakView
from companion.ui.layouts import kind_layout

KV = "companion.kinds.tschak"  # the package whose kv/ holds its layouts

LAYOUTS = (*Tschak.layouts, kind_layout(KV, "setup.kv"))


class SettingRow(Tschak, BoxLayout):
    layouts = LAYOUTS
    key = StringProperty("")
    ambiguity = StringProperty("")
    title = StringProperty("")
    value_text = StringProperty("")
    changed = BooleanProperty(False)


class TschakSetupScreen(TschakScreen):
    """Before the game: the seats, every setting with its default (changeable), and the
    card catalog's state; Start records the game."""

    layouts = LAYOUTS

    seating = StringProperty("")
    trophies = StringProperty("")
    catalog_text = StringProperty("")
    catalog_problem = StringProperty("")

    def show_tschak(self, view: TschakView) -> None:
        super().show_tschak(view)
        setup = view.setup
        if setup is None:
            return
        self.seating = setup.seating
        self.trophies = setup.trophies
        self.catalog_text = setup.catalog_text
        self.catalog_problem = setup.catalog_problem
        if not self.part_changed(setup):
            return
        box = self.ids.settings
        box.clear_widgets()
        for s in setup.settings:
            row = SettingRow(
                key=s.key,
                ambiguity=s.ambiguity,
                title=s.title,
                value_text=self._value(s),
                changed=s.changed,
            )
            row.ids.value.action = partial(self.choose, s)
            grown(row.ids.value, least=dp(60))
            box.add_widget(row)
        for line in setup.fixed:
            box.add_widget(
                grown(cell(line, halign="left", color=(0.75, 0.77, 0.82, 1)), least=dp(40))
            )

    @staticmethod
    def _value(s: SettingView) -> str:
        if s.changed:
            return _("{choice} (changed)").format(choice=s.value_text)
        return _("{choice} (default)").format(choice=s.value_text)

    def choose(self, s: SettingView) -> None:
        entries = []
        for value, text in s.choices:
            label = text
            if text == s.default_text:
                label = _("{choice} (default)").format(choice=text)
            entries.append((label, partial(ctl().set_setting, s.key, value)))
        note = (
            _("{ambiguity}: the rulebook is unclear here").format(ambiguity=s.ambiguity)
            if s.ambiguity
            else ""
        )
        Choices(s.title, entries, note=note).open()

    def check_cards(self) -> None:
        open_catalog_check()

    def back(self) -> None:
        ctl().cancel_setup()

    def start(self) -> None:
        ctl().start()
