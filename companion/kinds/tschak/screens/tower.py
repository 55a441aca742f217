"""A Tschak! tower's three floors: each floor's monster and treasure, scanned or tapped
into its slot. Layout in the kind's kv/tower.kv."""

from __future__ import annotations

from functools import partial

from kivy.properties import BooleanProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout

from companion.i18n import _
from companion.kinds.tschak.screens.base import TschakScreen
from companion.kinds.tschak.screens.popups import CardPicker
from companion.kinds.tschak.screens.widgets import CardChip, Tschak, cell, ctl, sync
from companion.kinds.tschak.views import TschakView, card_view
from companion.ui.layouts import kind_layout

KV = "companion.kinds.tschak"  # the package whose kv/ holds its layouts

LAYOUTS = (*Tschak.layouts, kind_layout(KV, "tower.kv"))


def open_slot_picker(which: str, floor: int) -> None:
    c = ctl()
    cards = [card_view(n) for n in c.tower_choices(which)]
    if which == "monsters":
        title = _("Floor {floor}: which monster?").format(floor=floor)
    else:
        title = _("Floor {floor}: which treasure?").format(floor=floor)
    extra = []
    view = c.view()
    current = (
        view.floors[floor - 1].monster if which == "monsters" else view.floors[floor - 1].treasure
    )
    if current is not None:
        extra.append((_("Empty this slot"), partial(c.set_slot, which, floor, None)))
    CardPicker(title, cards, lambda n: c.set_slot(which, floor, n), extra).open()


class TschakTowerScreen(TschakScreen):
    """A tower's three floors: each floor's monster and treasure, scanned or tapped."""

    layouts = LAYOUTS

    can_set_out = BooleanProperty(False)
    set_out_text = StringProperty("")

    def show_tschak(self, view: TschakView) -> None:
        super().show_tschak(view)
        self.can_set_out = view.can_resolve
        self.set_out_text = _("Set out tower {tower}").format(tower=view.tower)
        rows = sync(self.ids.floors, len(view.floors), self._row)
        for row, f in zip(rows, reversed(view.floors), strict=True):  # the top floor on top
            label, monster, treasure = reversed(row.children)
            label.text = _("Floor {floor}").format(floor=f.floor)
            monster.set_card(f.monster, _("the monster"))
            monster.action = partial(open_slot_picker, "monsters", f.floor)
            treasure.set_card(f.treasure, _("the treasure"))
            treasure.action = partial(open_slot_picker, "treasures", f.floor)

    @staticmethod
    def _row() -> BoxLayout:
        row = BoxLayout(spacing=8)
        row.add_widget(
            cell(
                "",
                bold=True,
                size_hint_x=None,
                width=150,
                full_font_size="26sp",
                min_font_size="26sp",
            )
        )
        row.add_widget(CardChip())
        row.add_widget(CardChip())
        return row

    def set_out(self) -> None:
        if self.aimed():
            ctl().set_out_tower()
