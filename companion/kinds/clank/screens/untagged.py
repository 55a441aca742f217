"""A card revealed without a tag: the table picks which card it was (or says only whether
it shows the dragon-attack symbol). Layout in the kind's kv/untagged.kv."""

from __future__ import annotations

from functools import partial
from typing import Any

from kivy.metrics import dp
from kivy.properties import StringProperty
from kivy.uix.label import Label
from kivy.uix.modalview import ModalView

from companion.i18n import _
from companion.kinds.clank.screens.desk import desk_of
from companion.store.tags import resolve
from companion.ui.layouts import Layout, kind_layout
from companion.ui.screens.kit import app, table_button

KV = "companion.kinds.clank"  # the package whose kv/ holds its layouts


class UntaggedPicker(Layout, ModalView):
    """A revealed card without a tag: the edition's dungeon cards to pick from, with a
    search field (the on-screen keyboard in the kiosk), and at the top the two quick
    choices that only say whether the card shows the dragon-attack symbol. A picked card
    is revealed as if scanned: its Danger and its Arrive count."""

    layouts = ("popups.kv", kind_layout(KV, "untagged.kv"))

    title = StringProperty("")
    query = StringProperty("")

    def __init__(self, **kw: Any) -> None:
        super().__init__(size_hint=(0.98, 0.96), **kw)
        self.title = _("Which card was revealed?")
        ctl = desk_of(app()).controller
        self.edition = ctl.edition
        self.cards = ctl.dungeon_cards()
        self.show_cards()

    def close(self) -> None:
        self.dismiss(animation=False)

    def on_query(self, *args: Any) -> None:
        self.show_cards()

    def matching(self) -> list[tuple[str, bool]]:
        words = self.query.casefold().replace("'", "").split()
        return [(name, dragon) for name, dragon in self.cards
                if all(w in name.casefold().replace("'", "") for w in words)]  # fmt: skip

    def show_cards(self) -> None:
        grid = self.ids.cards
        grid.clear_widgets()
        for name, dragon in self.matching():
            grid.add_widget(
                table_button(
                    name,
                    partial(self.pick, name),
                    background_color=(0.45, 0.17, 0.13, 1) if dragon else (0.25, 0.27, 0.32, 1),
                )
            )
        if not grid.children:
            grid.add_widget(Label(text=_("No card has that name."), font_size="26sp",
                                  size_hint_y=None, height=dp(56)))  # fmt: skip

    def pick(self, name: str) -> None:
        self.close()
        desk_of(app()).controller.scan_component(resolve("card", self.edition, name))

    def untagged(self, dragon: bool) -> None:
        self.close()
        desk_of(app()).controller.reveal_untagged(dragon)
