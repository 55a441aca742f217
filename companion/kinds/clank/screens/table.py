"""The table screen: one glance tells whose turn it is, how loud, how hurt, how angry the
dragon is, and what the next attack draws from the bag.

The screen is a function of the controller's view (``companion.kinds.clank.view.TableView``):
``redraw(view)`` sets every text and every button from it and from nothing else, so a
screen built afresh from the same view shows the same (the tests check this after every
step of random play). Layout lives in the kind's kv/table.kv; each player's panel is
companion.kinds.clank.screens.panel.
"""

from __future__ import annotations

from typing import Any

from kivy.app import App
from kivy.graphics import Color, Line, Rectangle, RoundedRectangle
from kivy.metrics import dp
from kivy.properties import (
    BooleanProperty,
    ListProperty,
    NumericProperty,
    ObjectProperty,
    StringProperty,
)
from kivy.uix.behaviors import ButtonBehavior
from kivy.uix.button import Button
from kivy.uix.label import Label
from kivy.uix.screenmanager import Screen
from kivy.uix.widget import Widget
from kivy.utils import escape_markup

from companion.i18n import _, ed_, ngettext, player_name
from companion.kinds.clank.catalog import UNTAGGED
from companion.kinds.clank.screens.odds import SKULL, ending_text
from companion.kinds.clank.screens.panel import (
    FIGURE,
    NUMBER,
    SMALL_NUMBER,
    TEXT,
    WATCHED,
    PlayerPanel,
)
from companion.kinds.clank.screens.shown import ClankScreen
from companion.kinds.clank.view import TableView
from companion.ui.cached import Cached
from companion.ui.colours import LIGHT_INK, colour, letter, text_colour
from companion.ui.drawn import DrawnText, DrawnWidget, Ink, text_extent
from companion.ui.layouts import Layout, kind_layout
from companion.ui.taps import Steady

KV = "companion.kinds.clank"  # the package whose kv/ holds its layouts

WARNING = "[font=DejaVuSans]⚠[/font] "
GO = (0.2, 0.5, 0.28, 1)  # End turn once the game is over (greyed out)
REFILL = (0.65, 0.45, 0.1, 1)  # End turn while the row refills: amber


class RageTrack(DrawnWidget):
    """The rage track: a cell per space, the marker's space red, its number larger."""

    track = ListProperty([])  # the cubes each space draws
    space = NumericProperty(0)  # the marker's space, from 1
    drawn_from = ("track", "space")

    def __init__(self, **kwargs: Any) -> None:
        self._cells: list[tuple[Any, Any, Ink]] = []  # its paint, its rectangle, its number
        super().__init__(**kwargs)

    def draw(self) -> None:
        n = len(self.track)
        self.keep_parts(self._cells, n, lambda: (Color(), Rectangle()), WATCHED)
        gap = dp(3)
        width = (self.width - gap * (n - 1)) / n if n else 0
        for i, (paint, cell, ink) in enumerate(self._cells):
            current = i + 1 == self.space
            paint.rgba = (0.78, 0.2, 0.15, 1) if current else (0.22, 0.23, 0.27, 1)
            x = self.x + i * (width + gap)
            cell.pos, cell.size = (x, self.y), (width, self.height)
            ink.options["bold"] = current
            ink.show(str(self.track[i]), (1, 1, 1, 1), "36sp" if current else WATCHED)
            tw, th = ink.size
            ink.place(x + (width - tw) / 2, self.center_y - th / 2)

    def watched(self) -> list[DrawnText]:
        """The spaces' numbers, read from the far seat."""
        return self.drawn_texts()


class NextAttack(DrawnWidget):
    """How many cubes the next attack draws, big, after its caption, on dark red."""

    caption = StringProperty("")
    count = StringProperty("0")
    drawn_from = ("caption", "count")

    def __init__(self, **kwargs: Any) -> None:
        self._back = RoundedRectangle(radius=[dp(6)])
        super().__init__(**kwargs)
        self.canvas.add(Color(0.45, 0.14, 0.1, 1))
        self.canvas.add(self._back)
        self.caption_ink = self.ink(WATCHED)
        self.number_ink = self.ink(FIGURE, bold=True, trim=True)

    def draw(self) -> None:
        cy = self.center_y
        self.number_ink.show(self.count)
        nw, nh = self.number_ink.size
        box = max(nw, dp(30)) + dp(14)
        self.caption_ink.show(self.caption)
        # as wide as its words and number (it sets its own width): the rest of the row
        # is the rage track's, or the warning that the next draw ends the game
        wide = dp(12) + self.caption_ink.size[0] + dp(6) + box
        if abs(self.size[0] - wide) > 0.5:
            self.width = wide  # drawn again at its new width
        self._back.pos, self._back.size = self.pos, self.size
        self.number_ink.place(self.right - box + (box - nw) / 2, cy - nh / 2)
        self.caption_ink.place(self.x + dp(12), cy - self.caption_ink.size[1] / 2)

    def figures(self) -> list[DrawnText]:
        """The number a player looks for."""
        self.drawn()
        seen = self.number_ink.seen(self)
        return [seen] if seen else []

    def watched(self) -> list[DrawnText]:
        """Its caption, read from the far seat."""
        self.drawn()
        seen = self.caption_ink.seen(self)
        return [seen] if seen else []


class BagRow(DrawnWidget):
    """The bag: a chip per kind of cube, in its colour, with its mark (a letter, or the
    ghosts' word) and how many, the count a figure the whole table reads. As wide as its
    chips (it sets its own width)."""

    chips = ListProperty([])  # (mark, count, swatch, ink, outlined) per chip
    tight = BooleanProperty(False)  # 5-6 players: narrower chips, smaller figures
    room = NumericProperty(0)  # the width it may take (0: any): past it, the words go
    drawn_from = ("chips", "tight")

    def __init__(self, **kwargs: Any) -> None:
        self._chips: list[tuple[Any, ...]] = []
        super().__init__(**kwargs)
        self.fbind("room", self._trigger)  # (a place it is given, not what it shows)

    def draw(self) -> None:
        while len(self._chips) < len(self.chips):  # a chip: its shapes, its mark, its count
            shapes = (Color(), RoundedRectangle(radius=[dp(6)]), Color(), Line(width=1.5))
            for shape in shapes:
                self.canvas.add(shape)
            marks = (self.ink(TEXT, bold=True), self.ink(NUMBER, bold=True, trim=True))
            self._chips.append((*shapes, *marks))
        while len(self._chips) > len(self.chips):
            gone = self._chips.pop()
            for shape in gone[:4]:
                self.canvas.remove(shape)
            for ink in gone[4:]:
                self.drop_ink(ink)
        self._lay(words=True)
        if self.room and self.width > self.room:
            # no room for the ghosts' word (six seats with two-figure counts): the ghost
            # chip keeps its colour and its count, All odds says the rest in words
            self._lay(words=False)

    def _lay(self, words: bool) -> None:
        x, gap = self.x, dp(4) if self.tight else dp(6)
        size = SMALL_NUMBER if self.tight else NUMBER
        for (mark, count, swatch, ink_colour, outlined), chip in zip(
            self.chips, self._chips, strict=True
        ):
            fill, body, edge, outline, mark_ink, ink = chip
            mark_ink.show(mark if words or len(mark) == 1 else "", ink_colour)
            ink.show(count, ink_colour, size)
            mw, mh = mark_ink.size
            tw, th = ink.size
            inner = mw + (dp(3) if mark else 0) + tw
            width = max(dp(44), inner + dp(6)) if self.tight else max(dp(52), inner + dp(16))
            fill.rgba = swatch
            body.pos, body.size = (x, self.y + dp(2)), (width, self.height - dp(4))
            edge.rgba = (0.85, 0.85, 0.9, 1) if outlined else (0, 0, 0, 0)
            if outlined:
                outline.rounded_rectangle = (x, self.y + dp(2), width, self.height - dp(4), dp(6))
            else:  # no line at all: even a transparent one costs a redraw of the bag dearly
                outline.points = []
            left = x + (width - inner) / 2
            mark_ink.place(left, self.center_y - mh / 2)
            ink.place(left + inner - tw, self.center_y - th / 2)
            x += width + gap
        self.width = max(0, x - gap - self.x)

    def figures(self) -> list[DrawnText]:
        """The counts: how many cubes of each kind the bag holds."""
        self.drawn()
        return [t for t in (chip[-1].seen(self) for chip in self._chips) if t]


class StatusLine(Steady, ButtonBehavior, Label):
    """What just happened, on two lines at the size the whole table reads. A text too
    long for them ends in an ellipsis, and a tap shows it whole."""

    message = StringProperty("")
    more = BooleanProperty(False)  # the message is longer than the two lines
    ink_role = "watched"

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.bind(message=self._fit, size=self._fit)

    def _fit(self, *args: Any) -> None:
        options = {k: getattr(self, k) for k in Label._font_properties}
        wrap = max(1.0, self.width)

        def fits(text: str) -> bool:
            return text_extent({**options, "text": text}, self.font_size, wrap)[1] <= (
                self.height + 1
            )

        text = self.message
        if not text or self.width < dp(200) or fits(text):
            # (a line narrower than it ever is on the table is one not laid out yet: it
            # keeps its words whole)
            self.text, self.more = text, False
            return
        words = text.split(" ")
        low, high = 0, len(words) - 1  # the most words that fit before the ellipsis
        while low < high:
            middle = (low + high + 1) // 2
            if fits(" ".join(words[:middle]) + " …"):
                low = middle
            else:
                high = middle - 1
        self.text, self.more = " ".join(words[:low]) + " …", True

    def on_release(self) -> None:
        if self.more:
            from companion.ui.screens.popups import Message

            Message(self.message).open()


def row_name(card: str) -> str:
    """A card's name as the row shows it: a card without a tag in a few words of the
    table's language (the log keeps the catalog's name)."""
    if card == UNTAGGED[False]:
        return _("Untagged")
    if card == UNTAGGED[True]:
        return _("Untagged, dragon")
    return card


class RowCard(Layout, Steady, Button):
    """A card of the dungeon row: tap it when it leaves the row (bought, defeated, used)."""

    layouts = (kind_layout(KV, "table.kv"),)

    card = StringProperty("")
    danger = BooleanProperty(False)
    revealed = BooleanProperty(False)


class NoTagButton(Layout, Button):
    """While the row is refilled, in the next card's place: the card revealed there has
    no tag (the table then says which card it is)."""

    layouts = (kind_layout(KV, "table.kv"),)


class TableScreen(Layout, ClankScreen, Screen):
    layouts = (kind_layout(KV, "table.kv"),)
    view = ObjectProperty(None, allownone=True)
    next_attack = StringProperty("0")
    next_caption = StringProperty("")  # the draw the figure is of: the one the odds are of
    # the next draw ends the game whatever the cubes: said in place of the rage track
    end_warning = StringProperty("")
    attack_note = StringProperty("")
    bag_note = StringProperty("")
    undone_note = StringProperty("")  # the draws an undo took back, counted for everyone
    last_text = StringProperty("")
    aim = ObjectProperty(None)  # the controller's moment the screen was drawn for
    pressed = ObjectProperty(None)  # the moment the last finger came down on
    end_turn_text = StringProperty("")
    # End turn wears the colour of the player whose turn it ends, its words in that
    # colour's ink (companion.ui.colours: 4.5:1 at least); amber while the row refills
    end_turn_colour = ListProperty(list(GO))
    end_turn_ink = ListProperty(list(LIGHT_INK))
    # under the row's cards: the window's background (nothing under an empty row's words)
    row_fill = ListProperty([0, 0, 0, 0])
    can_undo = BooleanProperty(False)
    refilling = BooleanProperty(False)
    game_over = BooleanProperty(False)
    compact = BooleanProperty(False)
    has_odds = BooleanProperty(False)  # the next draw's odds to show whole
    odds_button = StringProperty("")

    def redraw(self, view: TableView | Any = None) -> None:
        """Show ``view``: every text and button of the screen follows from it (given
        anything else, the controller's view of the moment)."""
        ctl = App.get_running_app().controller
        if not isinstance(view, TableView):
            view = ctl.view()
        if not view.players:
            return
        self.view = view
        self.aim = ctl.moment()  # what a tap on this screen is aimed at
        self.compact = len(view.players) > 4  # 5-6 players: smaller panels, closer chips
        self._show_rage(view)
        self._show_bag(view)
        self._show_players(view)
        self._show_row(view)
        self.last_text = view.last
        self.refilling = view.refilling
        self.game_over = view.game_over
        if view.game_over:
            self.end_turn_text = _("Game over")
            self.end_turn_colour, self.end_turn_ink = list(GO), list(LIGHT_INK)
        elif view.refilling:
            self.end_turn_text = ngettext(
                "End the turn now ({n} unrevealed)",
                "End the turn now ({n} unrevealed)",
                view.refill_space,
            ).format(n=view.refill_space)
            self.end_turn_colour, self.end_turn_ink = list(REFILL), list(LIGHT_INK)
        else:
            # its words name the player: when the turn passes it means another move, and
            # the settle rule keeps it inert a moment (companion.ui.taps)
            # TRANSLATORS: the table's End turn button; {player} is the colour of the
            # player whose turn it ends, capitalised ("Red"), any of the six colours; two
            # short lines at most at 26sp in a 220dp wide button
            self.end_turn_text = _("End {player}'s turn").format(
                player=player_name(view.active, capital=True)
            )
            self.end_turn_colour = list(colour(view.active))
            self.end_turn_ink = list(text_colour(view.active))
        self.can_undo = view.can_undo
        self.has_odds = view.phase == "playing" and any(p.odds for p in view.players)

    # ------------------------------------------------------------ the dragon
    def _show_rage(self, view: TableView) -> None:
        self.ids.rage.track = list(view.rage_track)
        self.ids.rage.space = view.rage_space
        # the figure is the draw the players' odds are of: the countdown's next step
        # while it runs, an out player's draw, else the next attack (Danger included)
        if view.odds_reason == "countdown" and not view.odds_ends_game:
            self.next_attack = str(view.odds_count)
            self.next_caption = ed_(view.edition, "Countdown draw")
        elif view.odds_reason == "out_draw" and not view.odds_ends_game:
            self.next_attack = str(view.odds_count)
            self.next_caption = ed_(view.edition, "Out player's draw")
        else:
            self.next_attack = str(view.next_attack)
            self.next_caption = _("Next attack")
        self.end_warning = ending_text(view)
        if self.end_warning:  # the warning says it in words: the cubes' number alone
            self.next_caption = ""
        notes = []
        if view.danger:
            notes.append(_("Danger +{d}").format(d=view.danger))
        self.attack_note = " · ".join(notes)

    def _show_bag(self, view: TableView) -> None:
        chips = []
        ghosts = view.ghosts_in_area
        # with 4-6 players the row has no room for the ghosts' words: the ghost chip
        # counts those waiting in the Clank! area after a plus (All odds says it in words)
        crowded = self.compact
        plus = len(view.players) >= 4
        self.odds_button = (
            # TRANSLATORS: the All odds button with 5-6 players (it opens all odds): the
            # legend of the skull over each panel's knock-out chance; {skull} is the
            # skull sign; one short word
            _("{skull} knock-out").format(skull=SKULL) if crowded else _("All odds")
        )
        for kind, n in view.bag:
            if kind == "ghost" and view.edition != "catacombs":
                continue
            swatch = list(colour(kind)) if kind != "black" else [0.03, 0.03, 0.04, 1]
            mark = {"black": "", "ghost": ed_(view.edition, "ghost")}.get(kind, letter(kind))
            count = str(n)
            if kind == "ghost" and plus and ghosts:
                count += f"+{ghosts}"
            chips.append((mark, count, swatch, list(text_colour(kind)), kind == "black"))
        self.ids.bag.tight = crowded
        self.ids.bag.chips = chips
        undone = sum(1 for d in view.draws if d.undone)
        self.undone_note = (
            ngettext("{n} draw undone", "{n} draws undone", undone).format(n=undone)
            if undone
            else ""
        )
        self.bag_note = (
            ngettext("{n} ghost in Clank!", "{n} ghosts in Clank!", ghosts).format(n=ghosts)
            if ghosts and not plus
            else ""
        )

    # ------------------------------------------------------------ the players
    def _show_players(self, view: TableView) -> None:
        grid = self.ids.players
        names = [p.name for p in view.players]
        grid.cols = 2 if not self.compact else 3
        if [w.player for w in self.panels()] != names:
            grid.clear_widgets()
            for name in names:
                panel = PlayerPanel()
                panel.player = name
                # a panel is drawn again only when it changed; its fill paints every pixel
                slot = Cached(opaque=True)
                slot.add_widget(panel)
                grid.add_widget(slot)
        for panel, p in zip(self.panels(), view.players, strict=True):
            panel.show(p, view, self.compact)

    def panels(self) -> list[PlayerPanel]:
        """The players' panels in seat order."""
        return [slot.children[0] for slot in reversed(self.ids.players.children)]

    # ------------------------------------------------------------ the row
    def _show_row(self, view: TableView) -> None:
        """The row's buttons are kept, spare ones hidden: making buttons at every scan
        costs the redraw time and leaves garbage for the collector to sweep in the middle
        of a game. A card still in the row keeps its button (moved to the card's place),
        so that a scan draws the words of the new card alone, not of every card that
        slid along."""
        box = self.ids.row
        cards = [w for w in reversed(box.children) if isinstance(w, RowCard)]
        empty = [w for w in box.children if isinstance(w, Label) and not isinstance(w, Button)]
        no_tag = self._no_tag_button()
        shown = view.refilling  # "No tag" in the row while it is refilled
        no_tag.opacity, no_tag.disabled = (1, False) if shown else (0, True)
        no_tag.size_hint_x = 1 if shown else None
        if not shown:
            no_tag.width = 0
        # the row's part is opaque while cards and "No tag" fill it on the window's
        # background; an empty row's words are drawn on nothing, blended as they were
        from kivy.core.window import Window

        opaque = bool(view.row) or shown
        self.ids.row_part.opaque = opaque
        self.row_fill = list(Window.clearcolor) if opaque else [0, 0, 0, 0]
        if not view.row and not shown:
            for w in cards:
                self._hide(w)
            if not empty:
                box.add_widget(
                    Label(text=_("empty: scan the cards as they are dealt"), font_size=TEXT)
                )
            return
        for w in empty:
            box.remove_widget(w)
        texts = [
            (WARNING if card.danger else "") + escape_markup(row_name(card.name))
            for card in view.row
        ]
        # each card's button: the one already showing its words, else a spare one
        spare = list(cards)
        kept: list[RowCard | None] = []
        for text in texts:
            same = next((b for b in spare if b.opacity and b.text == text), None)
            if same is not None:
                spare.remove(same)
            kept.append(same)
        placed = [b or (spare.pop(0) if spare else self._row_card()) for b in kept]
        # the row's every place holds a button: a card, while the row is refilled "No
        # tag" in the next card's place, else a spare one, empty. The cards keep their
        # width as the row empties and fills (their words are not laid out again).
        taken = len(placed) + (1 if shown else 0)
        while taken + len(spare) < view.row_size:
            spare.append(self._row_card())
        order: list[Widget] = [*placed, no_tag, *spare]
        if order != [w for w in reversed(box.children) if w not in empty]:
            for button in [*cards, no_tag]:
                if button.parent is not None:  # the row's box (ids hold a proxy of it)
                    box.remove_widget(button)
            for button in order:  # the cards in their order, the spare ones after them
                box.add_widget(button)
        for i, button in enumerate(spare):
            self._hide(button, room=taken + i < view.row_size)
        for place, (button, card, text) in enumerate(zip(placed, view.row, texts, strict=True)):
            button.card = card.name
            # another card under the finger (one slid along, or a new one): inert a moment
            button.meaning = f"{place} {card.name}"
            button.revealed = card.revealed
            button.danger = card.danger
            button.disabled = card.revealed or view.game_over
            button.text = text
            button.opacity = 1
            button.size_hint_x = 1

    def _row_card(self) -> RowCard:
        button = RowCard()
        button.bind(on_release=self._row_tapped)
        return button

    @staticmethod
    def _hide(button: RowCard, room: bool = False) -> None:
        """A spare button: an empty place of the row (``room``), or no room at all."""
        button.card = ""
        button.opacity = 0
        button.disabled = True
        button.size_hint_x = 1 if room else None
        if not room:
            button.width = 0

    def _no_tag_button(self) -> Button:
        """The refill's "No tag", made once: a revealed card without a tag."""
        button: Button | None = getattr(self, "_no_tag", None)
        if button is None:
            button = NoTagButton()
            button.bind(on_release=lambda b: self.no_tag())
            self._no_tag = button
        return button

    def _row_tapped(self, button: RowCard) -> None:
        ctl = App.get_running_app().controller
        if not button.revealed and ctl.aimed(self.pressed):  # a revealed card is not yet in
            ctl.take(button.card)

    def on_touch_down(self, touch: Any) -> bool:
        """Where the finger came down, the screen's moment is what the tap aims at (a
        scan between the finger's down and up makes the tap stale)."""
        self.pressed = self.aim
        return bool(super().on_touch_down(touch))

    def no_tag(self) -> None:
        """A revealed card without a tag: the table says which card it is."""
        from companion.kinds.clank.screens.desk import desk_of

        desk_of(App.get_running_app()).pick_untagged_card()
