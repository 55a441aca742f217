"""The Tschak! (Хрясь!) screens: set-up, the catalog check, a tower's floors, the teams of
a floor (and the trophies' last cards), the verdict, and the end.

Every screen is a function of the Tschak! controller's view
(``companion.tschak_control.TschakView``): ``show_tschak(view)`` sets every text and
builds every button from it and from nothing else. The screens call the controller
(``app.tschak``) and never the game, the store or the rules. Layout lives in
kv/tschak.kv; the numbers a player looks for (strengths, gold, the card's number) are
36 px or more, every other text 20 px, every button at least 48 px high.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, cast

from kivy.app import App
from kivy.properties import BooleanProperty, ListProperty, NumericProperty, StringProperty
from kivy.uix.behaviors import ButtonBehavior
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.gridlayout import GridLayout
from kivy.uix.modalview import ModalView
from kivy.uix.screenmanager import Screen
from kivy.uix.widget import Widget
from kivy.utils import escape_markup

from companion.i18n import _, player_name
from companion.tschak_control import (
    CardView,
    CheckView,
    FinalView,
    FloorVerdictView,
    SettingView,
    TeamView,
    TrophyVerdictView,
    TschakView,
    Update,
    card_view,
    tp,
)
from companion.ui.colours import colour, letter, text_colour
from companion.ui.layouts import Layout
from companion.ui.widgets import FitLabel

# the cards' backgrounds as the box prints them (T-C4): mages blue, warriors green,
# dwarves red, artifacts lilac; monsters dark, treasures gold
GROUP_COLOURS: dict[str, tuple[float, float, float, float]] = {
    "mage": (0.2, 0.4, 0.86, 1),
    "warrior": (0.16, 0.56, 0.28, 1),
    "dwarf": (0.78, 0.22, 0.18, 1),
    "artifact": (0.62, 0.45, 0.84, 1),
    "monster": (0.4, 0.3, 0.34, 1),
    "treasure": (0.86, 0.68, 0.16, 1),
}
DARK_GROUPS = {"treasure"}
EMPTY = (0.22, 0.23, 0.27, 1)

# the controller's phase -> the screen that shows it
PHASE_SCREENS = {
    "setup": "tschak_setup",
    "tower": "tschak_tower",
    "floor": "tschak_floor",
    "trophies": "tschak_floor",
    "verdict": "tschak_verdict",
    "trophy_verdict": "tschak_verdict",
    "over": "tschak_final",
}
SCREEN_NAMES = (
    "tschak_setup",
    "tschak_catalog",
    "tschak_tower",
    "tschak_floor",
    "tschak_verdict",
    "tschak_final",
)


def app() -> Any:
    return App.get_running_app()


def ctl() -> Any:
    return app().tschak


def _tint(rgba: Sequence[float], amount: float) -> list[float]:
    base = (0.14, 0.15, 0.18)
    return [base[i] + (rgba[i] - base[i]) * amount for i in range(3)] + [1]


# ======================================================================= widgets
class Tschak(Layout):
    """Inherited first by every Tschak! widget: its rules are in kv/tschak.kv."""

    layouts = ("tschak.kv",)


class CardChip(Tschak, ButtonBehavior, BoxLayout):
    """A card as the table sees it: its background colour, its number large, its name
    and weapon. Empty, it is a slot to fill (a tap adds a card)."""

    group = StringProperty("")
    title = StringProperty("")
    figure = StringProperty("")
    weapon = StringProperty("")
    swatch = ListProperty(list(EMPTY))
    ink = ListProperty([1, 1, 1, 1])
    faded = BooleanProperty(False)
    figure_size = NumericProperty(34)
    label_text = StringProperty("")
    notation = StringProperty("")  # the card shown ("" for an empty slot)

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.action: Callable[[], Any] | None = None

    def on_release(self) -> None:
        if self.action is not None:
            self.action()

    def set_card(self, card: CardView | None, empty: str = "") -> CardChip:
        self.notation = card.notation if card is not None else ""
        if card is None:
            self.group, self.figure, self.weapon = "", "+", ""
            self.title = empty
            self.swatch = list(EMPTY)
            self.ink = [0.85, 0.87, 0.9, 1]
            self.label_text = escape_markup(empty)
            return self
        self.group = card.group
        self.title = card.title
        self.figure = card.figure
        self.weapon = card.weapon
        self.swatch = list(GROUP_COLOURS.get(card.group, EMPTY))
        self.ink = [0.08, 0.08, 0.1, 1] if card.group in DARK_GROUPS else [1, 1, 1, 1]
        self.label_text = f"[b]{escape_markup(card.title)}[/b]"
        if card.weapon:
            self.label_text += " " + escape_markup(card.weapon)
        return self


def chip(
    card: CardView | None, on_press: Callable[[], Any] | None = None, empty: str = "", **kw: Any
) -> CardChip:
    widget = CardChip(**kw).set_card(card, empty)
    widget.action = on_press
    return widget


def sync(box: Any, count: int, make: Callable[[], Any]) -> list[Any]:
    """The box's children made ``count`` (reused, added, removed), first to last: a
    redraw changes the widgets it has instead of building new ones."""
    children = list(reversed(box.children))
    while len(children) < count:
        widget = make()
        box.add_widget(widget)
        children.append(widget)
    while len(children) > count:
        box.remove_widget(children.pop())
    return children


class TschakButton(Tschak, ButtonBehavior, FitLabel):
    """A big button whose words always fit (they shrink, then wrap, never cut)."""

    background = ListProperty([0.25, 0.27, 0.32, 1])

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.action: Callable[[], Any] | None = None

    def on_release(self) -> None:
        if self.action is not None:
            self.action()


def button(text: str, on_press: Callable[[], Any], **kw: Any) -> TschakButton:
    kw.setdefault("size_hint_y", None)
    kw.setdefault("height", 56)
    widget = TschakButton(text=text, **kw)
    widget.action = on_press
    return widget


class Seated(Tschak):
    """A player's part of a Tschak! screen, in the player's colour: name, letter, swatch,
    the tint behind it and the ink on it."""

    name_text = StringProperty("")
    letter_text = StringProperty("")
    swatch = ListProperty([1, 1, 1, 1])
    tint = ListProperty([0.2, 0.2, 0.2, 1])
    ink = ListProperty([1, 1, 1, 1])


class TeamPanel(Seated, BoxLayout):
    """One player's team on the floor being entered, in the player's colour: the cards
    entered (a tap takes one back), the empty slots (a tap adds a card), whether the
    team is complete or wrong, and whether it takes the misplay penalty."""

    player = StringProperty("")
    selected = BooleanProperty(False)
    status_text = StringProperty("")
    status_colour = ListProperty([0.85, 0.87, 0.9, 1])
    misplay_text = StringProperty("")

    def show(self, team: TeamView, trophies: bool) -> None:
        self.player = team.player
        self.name_text = team.label
        self.letter_text = letter(team.colour)
        self.swatch = list(colour(team.colour))
        self.tint = _tint(colour(team.colour), 0.3)
        self.ink = list(text_colour(team.colour))
        self.selected = team.selected
        player = team.player
        shown: list[tuple[CardView | None, Callable[[], Any], bool]] = [
            (card, partial(ctl().remove_card, player, i), False)
            for i, card in enumerate(team.cards)
        ]
        if trophies and team.known is not None and not team.cards:
            shown.append((team.known, partial(self.pick, player), True))
        while len(shown) < team.slots:
            shown.append((None, partial(self.pick, player), False))
        for widget, (card, action, faded) in zip(
            sync(self.ids.cards, len(shown), CardChip), shown, strict=True
        ):
            widget.set_card(card, _("tap or scan"))
            widget.action = action
            widget.faded = faded
        if trophies:
            if team.cards:
                self.status_text, good = _("last card"), True
            elif team.known is not None:
                self.status_text, good = _("known from the hand"), True
            else:
                self.status_text, good = _("scan the last card"), False
        elif team.state == "complete":
            self.status_text, good = _("team complete"), True
        elif team.state == "illegal":
            self.status_text, good = team.problem, False  # (the misplay button says it)
        else:
            n = len(team.cards)
            self.status_text = _("{n} of {slots} cards").format(n=n, slots=team.slots)
            good = False
        self.status_colour = [0.55, 0.9, 0.55, 1] if good else [1, 0.8, 0.5, 1]
        if team.misplay:
            self.misplay_text = _("Misplay: penalty")
        elif team.state == "illegal":
            self.misplay_text = _("{problem} · misplay?").format(problem=team.problem)
        else:
            self.misplay_text = ""

    def pick(self, player: str) -> None:
        open_hero_picker(player)

    def choose(self) -> None:
        ctl().select(self.player)

    def toggle_misplay(self) -> None:
        ctl().toggle_misplay(self.player)


class VerdictColumn(Seated, BoxLayout):
    """A team after the floor: its strength large, what it takes, what it counted."""

    strength = StringProperty("")
    takes = StringProperty("")
    takes_text = StringProperty("")
    detail = StringProperty("")


class TrophyRow(Seated, BoxLayout):
    card_text = StringProperty("")
    gold = StringProperty("")
    note = StringProperty("")


class SettingRow(Tschak, BoxLayout):
    key = StringProperty("")
    ambiguity = StringProperty("")
    title = StringProperty("")
    value_text = StringProperty("")
    changed = BooleanProperty(False)


class PilePanel(Seated, ButtonBehavior, BoxLayout):
    player = StringProperty("")
    selected = BooleanProperty(False)
    count_text = StringProperty("")
    status_text = StringProperty("")
    status = StringProperty("")
    cards_text = StringProperty("")

    def on_release(self) -> None:
        ctl().select(self.player)


class CellLabel(Tschak, FitLabel):
    pass


def cell(text: str, **kw: Any) -> CellLabel:
    """A cell of a table of figures; an arrow (n → n²) needs DejaVuSans (Roboto has none)."""
    if "→" in text:
        kw["font_name"] = "DejaVuSans"
    return CellLabel(text=text, **kw)


# ======================================================================= pop-ups
class CardPicker(Tschak, ModalView):
    """Cards to tap, in their own colours: a hero for a team, a monster or treasure for
    a floor. Extra entries (plain buttons) come first."""

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
        grid.cols = 6 if len(cards) > 12 else 4 if len(cards) > 6 else 3
        for text, action in extra:
            grid.add_widget(
                button(
                    text,
                    partial(self._done, action),
                    height=62,
                    full_font_size="20sp",
                    min_font_size="18sp",
                )
            )
        for card in cards:
            widget = chip(card, partial(self._done, partial(on_pick, card.notation)))
            widget.size_hint_y = None
            widget.height = 62
            widget.figure_size = 30
            grid.add_widget(widget)

    def close(self) -> None:
        self.dismiss(animation=False)

    def _done(self, action: Callable[[], Any]) -> None:
        self.close()
        action()


class Choices(Tschak, ModalView):
    """A question and its answers, one big button each (a setting's choices, a tie)."""

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
            box.add_widget(
                button(
                    text,
                    partial(self._done, action),
                    height=64,
                    full_font_size="22sp",
                    min_font_size="18sp",
                )
            )

    def close(self) -> None:
        self.dismiss(animation=False)
        if self._cancel is not None:
            self._cancel()

    def _done(self, action: Callable[[], Any]) -> None:
        self._cancel = None
        self.dismiss(animation=False)
        action()


def open_hero_picker(player: str) -> None:
    c = ctl()
    cards = [card_view(n) for n in c.hand_choices(player)]
    title = _("{player}: which card?").format(player=player_name(player, capital=True))
    CardPicker(title, cards, lambda n: c.add_card(n, player)).open()


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
    from companion.ui.screens import Confirm

    Confirm(
        _("Close the game? Its scores are final."), _("Yes, close the game"), ctl().close_game
    ).open()


def confirm_abandon() -> None:
    from companion.ui.screens import Confirm

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


def open_tschak_drawer() -> None:
    """The simulated reader for Tschak!: every face of the box, a tap 'scans' it."""
    a, c = app(), ctl()
    uid = "F" + secrets.token_hex(6).upper()[1:]
    extra = [(_("A new, unknown tag"), lambda: a.on_scan(uid))]
    if a.screens.current == "tschak_catalog":
        CardPicker(_("Scan drawer: tap what you would scan"), [], lambda n: None, extra).open()
        return
    faces = c.drawer_faces()
    CardPicker(
        _("Scan drawer: tap what you would scan"), [card_view(n) for n in faces], c.scan_card, extra
    ).open()


def choose_tschak_binding(uid: str) -> None:
    """An unknown tag during a Tschak! game: which card carries it?"""
    c = ctl()
    faces = c.drawer_faces()

    def bind(notation: str) -> None:
        message = c.bind_tag(uid, notation)
        app().status.text = message

    CardPicker(
        _("Tag {uid}: which card is it?").format(uid=uid), [card_view(n) for n in faces], bind
    ).open()


# ======================================================================= the app's side
def make_control(a: Any) -> Any:
    """The Tschak! controller of the app: games recorded through a Session of the app's
    store, tags looked up in its registry, the catalog's corrections beside its
    database (or in CLANK_CATALOG_DIR)."""
    from companion.session import Session
    from companion.tschak_control import TschakControl, TschakTableLike, default_catalog_path

    session = Session(a.store)

    def start(options: dict[str, Any]) -> TschakTableLike:
        return cast(TschakTableLike, session.start(options))

    def resume(game: int) -> TschakTableLike:
        table = session.resume(game)
        if getattr(table, "edition", None) != "tschak":
            a.store.release(game)
            raise ValueError(f"game {game} is not a Tschak! game")
        return cast(TschakTableLike, table)

    control = TschakControl(
        start=start,
        resume=resume,
        store=a.store,
        registry=a.controller.registry,
        catalog_path=default_catalog_path(a.store.path),
    )
    control.listeners.append(lambda update: tschak_update(a, update))
    return control


def tschak_scan(a: Any, uid: str) -> None:
    """A tag scanned while a Tschak! screen is on: the catalog check enrolls it, the
    game takes it."""
    if a.screens.current == "tschak_catalog":
        a.tschak.check_scan(uid)
    else:
        a.tschak.scan(uid)


def tschak_update(a: Any, update: Update) -> None:
    """What the app does when the Tschak! controller tells it something."""
    if getattr(a, "_building", False):
        return
    a.follow(update.kind)
    if update.kind in ("rejected", "ignored", "unknown_tag") and update.message:
        a.status.text = update.message
    elif update.kind in ("action", "game", "entry", "setup"):
        a.status.text = a.ready_text
    if update.kind == "unknown_tag" and update.uid:
        choose_tschak_binding(update.uid)
    view = ctl().view()
    if view.question is not None:
        from kivy.core.window import Window

        if not any(isinstance(w, Choices) for w in Window.children):
            ask_tie(view)


# ======================================================================= screens
class TschakScreen(Tschak, Screen):
    title = StringProperty("")
    hint = StringProperty("")
    last = StringProperty("")
    totals = StringProperty("")

    def on_pre_enter(self, *args: Any) -> None:
        self.show_tschak(ctl().view())

    def show_tschak(self, view: TschakView) -> None:
        self.title = view.title
        self.hint = view.hint
        self.last = view.last
        self.totals = view.totals

    def undo(self) -> None:
        ctl().undo()

    def menu(self) -> None:
        open_menu()


class TschakSetupScreen(TschakScreen):
    """Before the game: the seats, every setting with its default (changeable), and the
    card catalog's state; Start records the game."""

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
        if setup == getattr(self, "_shown", None):
            return
        self._shown = setup
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
            box.add_widget(row)
        for line in setup.fixed:
            box.add_widget(
                cell(
                    line,
                    size_hint_y=None,
                    height=52,
                    halign="left",
                    full_font_size="20sp",
                    min_font_size="17sp",
                    color=(0.75, 0.77, 0.82, 1),
                )
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


class TschakCatalogScreen(TschakScreen):
    """The card catalog checked once against the table's own cards: one card at a time,
    its number and weapon corrected where the table reads something else. A tag scanned
    here is enrolled for the card on screen (or shows its card, if it has one)."""

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
        self.weapon = card.weapon
        self.swatch = list(GROUP_COLOURS.get(card.group, EMPTY))
        self.ink = [0.08, 0.08, 0.1, 1] if card.group in DARK_GROUPS else [1, 1, 1, 1]
        for widget, (label, value, chosen) in zip(
            sync(self.ids.numbers, len(v.numbers), self._toggle), v.numbers, strict=True
        ):
            self._set(widget, label, chosen, partial(ctl().check_number, value))
        for widget, (label, weapon, chosen) in zip(
            sync(self.ids.weapons, len(v.weapons), self._toggle), v.weapons, strict=True
        ):
            self._set(widget, label, chosen, partial(ctl().check_weapon, weapon))
        self.ids.numbers_title.opacity = 1 if v.numbers else 0
        self.ids.weapons_title.opacity = 1 if v.weapons else 0

    @staticmethod
    def _toggle() -> TschakButton:
        return TschakButton(
            size_hint_y=None, height=56, full_font_size="24sp", min_font_size="18sp"
        )

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


class TschakTowerScreen(TschakScreen):
    """A tower's three floors: each floor's monster and treasure, scanned or tapped."""

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
                full_font_size="24sp",
                min_font_size="18sp",
            )
        )
        row.add_widget(CardChip())
        row.add_widget(CardChip())
        return row

    def set_out(self) -> None:
        ctl().set_out_tower()


class TschakFloorScreen(TschakScreen):
    """A floor's teams (or the trophies' last cards): a panel per player."""

    monster_text = StringProperty("")
    treasure_text = StringProperty("")
    trophies = BooleanProperty(False)
    can_resolve = BooleanProperty(False)
    resolve_text = StringProperty("")

    def show_tschak(self, view: TschakView) -> None:
        super().show_tschak(view)
        self.trophies = view.phase == "trophies"
        self.can_resolve = view.can_resolve
        if self.trophies:
            self.resolve_text = _("Award the trophies")
            self.monster_text = self.treasure_text = ""
        else:
            self.resolve_text = _("Resolve floor {floor}").format(floor=view.floor)
            current = next((f for f in view.floors if f.current), None)
            if current is not None and current.monster and current.treasure:
                self.monster_text = _("Weakest takes: {card}").format(card=current.monster.words)
                self.treasure_text = _("Strongest takes: {card}").format(
                    card=current.treasure.words
                )
        for panel, team in zip(
            sync(self.ids.teams, len(view.teams), TeamPanel), view.teams, strict=True
        ):
            panel.show(team, self.trophies)

    def resolve(self) -> None:
        if self.trophies:
            ctl().resolve_trophies()
        else:
            ctl().resolve_floor()


class TschakVerdictScreen(TschakScreen):
    """The verdict: every team's strength large, who takes the treasure and the monster,
    and why (the tie chain in words). For the trophies: the gold and the passing."""

    reasons = StringProperty("")
    passing = StringProperty("")
    continue_text = StringProperty("")
    trophies = BooleanProperty(False)

    def show_tschak(self, view: TschakView) -> None:
        super().show_tschak(view)
        shown = (view.verdict, view.trophies)
        if shown == getattr(self, "_shown", None):
            return  # the same verdict: nothing to build again
        self._shown = shown
        box = self.ids.columns
        box.clear_widgets()
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
                name_text=t.label,
                letter_text=letter(t.colour),
                swatch=list(colour(t.colour)),
                tint=_tint(colour(t.colour), 0.3),
                ink=list(text_colour(t.colour)),
                strength=str(t.strength),
                takes=t.takes,
                takes_text=(_("misplay") + " · " if t.misplay else "") + t.takes_text,
                detail=t.detail,
            )
            box.add_widget(column)

    def _trophies(self, v: TrophyVerdictView) -> None:
        self.reasons = "\n".join(v.reasons)
        self.passing = v.passing
        box = self.ids.columns
        box.orientation = "vertical"
        for r in v.rows:
            box.add_widget(
                TrophyRow(
                    name_text=r.label,
                    letter_text=letter(r.colour),
                    swatch=list(colour(r.colour)),
                    tint=_tint(colour(r.colour), 0.3),
                    ink=list(text_colour(r.colour)),
                    card_text=r.card.words if r.card else "—",
                    gold=str(r.gold),
                    note=r.note,
                )
            )
        box.add_widget(Widget())  # the rows at the top

    def go_on(self) -> None:
        ctl().go_on()


class TschakFinalScreen(TschakScreen):
    """The end: each player scans their two piles against the game; then the winner
    first and large, and the breakdown."""

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
        if final == getattr(self, "_shown", None):
            return
        self._shown = final
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
            panel.tint = _tint(colour(p.colour), 0.3)
            panel.ink = list(text_colour(p.colour))
            panel.selected = p.selected
            panel.count_text = f"{len(p.scanned)} / {p.expected}"
            panel.status_text = p.status_text
            panel.status = p.status
            panel.cards_text = " · ".join(c.words for c in p.scanned[-3:])

    def _result(self, final: FinalView) -> None:
        grid = self.ids.table
        grid.clear_widgets()
        grid.cols = 1 + len(final.columns)
        grid.cols_minimum = {0: 250}
        elixir_row = _("Elixir")
        if any(col.elixir_choices for col in final.columns):  # room for its buttons
            grid.rows_minimum = {1 + final.rows.index(elixir_row): 62}
        else:
            grid.rows_minimum = {}
        grid.add_widget(cell(""))
        for col in final.columns:
            grid.add_widget(cell(f"{col.place}. {col.label}", bold=True, color=colour(col.colour)))
        for i, row in enumerate(final.rows):
            total = i == len(final.rows) - 1
            grid.add_widget(cell(row, halign="left", bold=total, color=(0.8, 0.82, 0.88, 1)))
            for col in final.columns:
                text = col.cells[i]
                if col.elixir_choices and row == elixir_row:
                    choose = partial(self.elixir, col.player, col.label, col.elixir_choices)
                    grid.add_widget(
                        button(text, choose, height=60, full_font_size="20sp", min_font_size="18sp")
                    )
                    continue
                grid.add_widget(cell(text, bold=total, full_font_size="26sp" if total else "20sp"))

    def elixir(self, player: str, label: str, choices: Sequence[tuple[str, str | None]]) -> None:
        entries = [
            (text, partial(ctl().choose_elixir, player, discard)) for text, discard in choices
        ]
        Choices(
            _("{player}: the elixir discards which monster?").format(player=label), entries
        ).open()

    def reveal(self) -> None:
        ctl().reveal()

    def show_piles(self) -> None:
        ctl().show_piles()

    def close_game(self) -> None:
        confirm_close()


SCREEN_CLASSES: dict[str, Callable[..., Any]] = {
    "tschak_setup": TschakSetupScreen,
    "tschak_catalog": TschakCatalogScreen,
    "tschak_tower": TschakTowerScreen,
    "tschak_floor": TschakFloorScreen,
    "tschak_verdict": TschakVerdictScreen,
    "tschak_final": TschakFinalScreen,
}


def card_title(card: CardView) -> str:
    return f"{card.title} {card.figure}".strip()


__all__ = ["PHASE_SCREENS", "SCREEN_CLASSES", "tp"]
