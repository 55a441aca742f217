"""The pieces every Tschak! screen is made of: a card as a chip in its own colour, a big
button whose words always fit, a cell of a table of figures, a player's part in their
colour. Layout in the kind's kv/widgets.kv."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kivy.app import App
from kivy.properties import BooleanProperty, ListProperty, NumericProperty, StringProperty
from kivy.uix.behaviors import ButtonBehavior
from kivy.uix.boxlayout import BoxLayout
from kivy.utils import escape_markup

from companion.kinds.tschak.control import TschakControl
from companion.kinds.tschak.progress import EDITION
from companion.kinds.tschak.views import CardView
from companion.ui.colours import colour, letter, panel_ink, panel_tint, text_colour
from companion.ui.layouts import Layout, kind_layout
from companion.ui.widgets import FitLabel

KV = "companion.kinds.tschak"  # the package whose kv/ holds its layouts

if TYPE_CHECKING:
    from companion.ui.app import CompanionApp

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


def app() -> CompanionApp:
    """The running companion (its screens, its status bar, its controllers)."""
    running: CompanionApp = App.get_running_app()
    return running


def ctl() -> TschakControl:
    """The app's Tschak! controller (made by the app when first asked for)."""
    control = app().control(EDITION)
    assert isinstance(control, TschakControl)
    return control


class Tschak(Layout):
    """Inherited first by every Tschak! widget: the pieces' rules are in
    the kind's kv/widgets.kv; a screen or a widget with rules of its own names its layout
    after them."""

    layouts: tuple[str, ...] = (kind_layout(KV, "widgets.kv"),)


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
    figure_text = StringProperty("")  # the figure as drawn: an artifact's "×" smaller
    label_text = StringProperty("")
    notation = StringProperty("")  # the card shown ("" for an empty slot)

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.action: Callable[[], Any] | None = None

    def on_release(self) -> None:
        if self.action is not None:
            self.action()

    def on_figure(self, *args: Any) -> None:
        sign = f"[size={int(self.figure_size * 0.6)}]\u00d7[/size]"
        self.figure_text = escape_markup(self.figure).replace("\u00d7", sign)

    on_figure_size = on_figure

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
    """A player's part of a Tschak! screen, filled as a Clank! table's panel is: their
    tint (``panel_tint``) with every text on it in its ink (``panel_ink``: dark on
    yellow's light fill, white on the others), their colour a band, a disc and a
    button (``swatch``) with the letter or name on it in ``swatch_ink``."""

    name_text = StringProperty("")
    letter_text = StringProperty("")
    swatch = ListProperty([1, 1, 1, 1])
    swatch_ink = ListProperty([1, 1, 1, 1])
    tint = ListProperty([0.2, 0.2, 0.2, 1])
    ink = ListProperty([1, 1, 1, 1])

    def seat(self, label: str, name: str) -> None:
        """The part shows player ``name`` under ``label`` (``seat_of``)."""
        for key, value in seat_of(label, name).items():
            setattr(self, key, value)


def seat_of(label: str, name: str) -> dict[str, Any]:
    """What a ``Seated`` shows of a player: their name, letter and colour with the ink
    on it, the tint behind them and the ink on that."""
    return {
        "name_text": label,
        "letter_text": letter(name),
        "swatch": list(colour(name)),
        "swatch_ink": list(text_colour(name)),
        "tint": list(panel_tint(name)),
        "ink": list(panel_ink(name)),
    }


class CellLabel(Tschak, FitLabel):
    # what the cell is to the screen's measure (companion.ui.ink): "figure" (a number
    # that tells the state of the game, even with an arrow in it), "watched", or unsaid
    ink_role = StringProperty("")


def cell(text: str, size: float | None = None, **kw: Any) -> CellLabel:
    """A cell of a table of figures, its words at ``size`` (never shrunk: a figure the
    table reads is never drawn smaller to fit); an arrow (n → n²) is drawn by
    DejaVuSans (Roboto has none)."""
    if "→" in text:  # the arrow alone: Roboto's digits are narrower (four columns)
        kw["markup"] = True
        text = escape_markup(text).replace("→", "[font=DejaVuSans]→[/font]")
    if size is not None:
        kw["full_font_size"] = kw["min_font_size"] = size
    return CellLabel(text=text, **kw)
