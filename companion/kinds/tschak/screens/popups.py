"""The Tschak! pop-ups: a card picker (cards to tap, in their own colours), a question
with one big button per answer, and what opens them from several screens (the menu, the
catalog check, closing or abandoning the game, a tie the rules cannot break). Layout in
the kind's kv/popups.kv."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from kivy.metrics import dp
from kivy.properties import StringProperty
from kivy.uix.gridlayout import GridLayout
from kivy.uix.label import Label
from kivy.uix.modalview import ModalView

from companion.i18n import _
from companion.kinds.tschak.screens.widgets import Tschak, app, button, chip, ctl
from companion.kinds.tschak.views import CardView, TschakView
from companion.ui.drawn import text_extent
from companion.ui.layouts import kind_layout

KV = "companion.kinds.tschak"  # the package whose kv/ holds its layouts

POPUPS = (*Tschak.layouts, kind_layout(KV, "popups.kv"))


class CardPicker(Tschak, ModalView):
    """Cards to tap, in their own colours: a hero for a team, a monster or treasure for
    a floor. Extra entries (plain buttons) come first."""

    layouts = POPUPS
    title = StringProperty("")

    def __init__(
        self,
        title: str,
        cards: Sequence[CardView],
        on_pick: Callable[[str], Any],
        extra: Sequence[tuple[str, Callable[[], Any]]] = (),
        **kw: Any,
    ) -> None:
        super().__init__(size_hint=(0.97, 0.95), **kw)
        self.title = title
        grid: GridLayout = self.ids.grid
        # a card's name at 26 px on one word a line at least: four columns at most
        grid.cols = 4 if len(cards) > 6 else 3
        for text, action in extra:
            grid.add_widget(grown(button(text, partial(self._done, action)), least=dp(62)))
        for card in cards:
            widget = chip(card, partial(self._done, partial(on_pick, card.notation)))
            widget.size_hint_y = None
            widget.height = dp(62)
            widget.figure_size = dp(36)
            grid.add_widget(widget)

    def close(self) -> None:
        self.dismiss(animation=False)

    def _done(self, action: Callable[[], Any]) -> None:
        self.close()
        action()


class Choices(Tschak, ModalView):
    """A question and its answers, one big button each (a setting's choices, a tie)."""

    layouts = POPUPS
    title = StringProperty("")
    note = StringProperty("")

    def __init__(
        self,
        title: str,
        entries: Sequence[tuple[str, Callable[[], Any]]],
        note: str = "",
        cancel: Callable[[], Any] | None = None,
        **kw: Any,
    ) -> None:
        super().__init__(size_hint=(0.94, 0.92), **kw)
        self.title = title
        self.note = note
        self._cancel = cancel
        box = self.ids.entries
        for text, action in entries:
            box.add_widget(grown(button(text, partial(self._done, action)), least=dp(64)))

    def close(self) -> None:
        self.dismiss(animation=False)
        if self._cancel is not None:
            self._cancel()

    def _done(self, action: Callable[[], Any]) -> None:
        self._cancel = None
        self.dismiss(animation=False)
        action()


def grown(widget: Any, pad: float = dp(10), least: float = dp(48)) -> Any:
    """A button (or a cell) as tall as its words at their size, wrapped to its width."""

    def fit(*args: Any) -> None:
        if widget.width > 1:
            options = {k: getattr(widget, k) for k in Label._font_properties}
            height = text_extent(options, widget.font_size, widget.width - pad)[1]
            widget.height = max(least, height + pad)

    widget.size_hint_y = None
    widget.bind(width=fit, text=fit, font_size=fit)
    fit()
    return widget


def open_menu() -> None:
    """The Tschak! menu: running totals, the catalog check, tags, the language."""
    a, c = app(), ctl()
    view = c.view()
    entries: list[tuple[str, Callable[[], Any]]] = []
    if view.phase != "over":
        totals = (
            _("Hide the running totals") if view.scores_visible else _("Show the running totals")
        )
        entries.append((totals, c.toggle_scores))
    entries += [
        (_("Check the cards"), lambda: open_catalog_check()),
        (_("Tags"), lambda: a.show_screen("tags")),
        (_("Language"), a.choose_language),
    ]
    if view.phase == "over":
        entries.append((_("Close the game"), confirm_close))
    else:
        entries.append((_("Abandon the game"), confirm_abandon))
    Choices(_("Menu"), entries).open()


def confirm_close() -> None:
    from companion.ui.screens.popups import Confirm

    Confirm(
        _("Close the game? Its scores are final."), _("Yes, close the game"), ctl().close_game
    ).open()


def confirm_abandon() -> None:
    from companion.ui.screens.popups import Confirm

    Confirm(
        _("Abandon the game? It cannot go on; its log keeps it."),
        _("Yes, abandon it"),
        ctl().abandon,
    ).open()


def open_catalog_check() -> None:
    a = app()
    screen = a.screen("tschak_catalog")
    screen.back_to = a.screens.current if a.screens.current != "tschak_catalog" else ""
    a.show_screen("tschak_catalog")


def ask_tie(view: TschakView) -> None:
    question = view.question
    if question is None:
        return
    entries = [(label, partial(ctl().answer_tie, player)) for player, label in question.players]
    Choices(
        _("A tie the rules cannot break"), entries, note=question.text, cancel=ctl().cancel_question
    ).open()
