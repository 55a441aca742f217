"""The table screen: one glance tells whose turn it is, how loud, how hurt, how angry the
dragon is, and what the next attack draws from the bag.

The screen is a function of the controller's view (``companion.view.TableView``):
``redraw(view)`` sets every text and every button from it and from nothing else, so a
screen built afresh from the same view shows the same (the tests check this after every
step of random play). Layout lives in kv/table.kv.
"""

from __future__ import annotations

from typing import Any

from kivy.app import App
from kivy.graphics import Color, Ellipse, Line, Rectangle, RoundedRectangle
from kivy.metrics import dp, sp
from kivy.properties import (
    BooleanProperty,
    ListProperty,
    NumericProperty,
    ObjectProperty,
    StringProperty,
)
from kivy.uix.behaviors import ButtonBehavior
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.button import Button
from kivy.uix.label import Label
from kivy.uix.screenmanager import Screen

from companion.i18n import _, ed_, ngettext, player_name
from companion.ui.cached import Cached
from companion.ui.colours import colour, letter, text_colour
from companion.ui.drawn import DrawnText, DrawnWidget, Ink, fitting_font_size
from companion.ui.layouts import Layout
from companion.ui.odds import HEART, SKULL, ending_text, percent
from companion.ui.taps import Steady
from companion.view import PlayerView, TableView


def _tint(rgba: tuple[float, ...] | list[float], amount: float) -> list[float]:
    """The colour darkened towards the background (0: the background, 1: the colour)."""
    base = (0.14, 0.15, 0.18)
    return [base[i] + (rgba[i] - base[i]) * amount for i in range(3)] + [1]


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
        self.keep_parts(self._cells, n, lambda: (Color(), Rectangle()), "20sp")
        gap = dp(3)
        width = (self.width - gap * (n - 1)) / n if n else 0
        for i, (paint, cell, ink) in enumerate(self._cells):
            current = i + 1 == self.space
            paint.rgba = (0.78, 0.2, 0.15, 1) if current else (0.22, 0.23, 0.27, 1)
            x = self.x + i * (width + gap)
            cell.pos, cell.size = (x, self.y), (width, self.height)
            ink.options["bold"] = current
            ink.show(str(self.track[i]), (1, 1, 1, 1), "26sp" if current else "20sp")
            tw, th = ink.size
            ink.place(x + (width - tw) / 2, self.center_y - th / 2)


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
        self.caption_ink = self.ink("20sp")
        self.number_ink = self.ink("38sp", bold=True)

    def draw(self) -> None:
        self._back.pos, self._back.size = self.pos, self.size
        cy = self.center_y
        self.number_ink.show(self.count)
        nw, nh = self.number_ink.size
        box = nw + dp(14)
        self.number_ink.place(self.right - box + dp(7), cy - nh / 2)
        room = max(1, self.width - dp(6) - box)
        self.caption_ink.show(self.caption, width=room, halign="right")
        self.caption_ink.place(self.x, cy - self.caption_ink.size[1] / 2)

    def figures(self) -> list[DrawnText]:
        """The number a player looks for."""
        self.drawn()
        seen = self.number_ink.seen(self)
        return [seen] if seen else []


class BagRow(DrawnWidget):
    """The bag: a chip per kind of cube, in its colour, with its letter and how many.
    As wide as its chips (it sets its own width)."""

    chips = ListProperty([])  # (text, swatch, ink, outlined) per chip
    drawn_from = ("chips",)

    def __init__(self, **kwargs: Any) -> None:
        self._chips: list[tuple[Any, Any, Any, Any, Ink]] = []
        super().__init__(**kwargs)

    def draw(self) -> None:
        self.keep_parts(
            self._chips,
            len(self.chips),
            lambda: (Color(), RoundedRectangle(radius=[dp(6)]), Color(), Line(width=1.5)),
            "22sp",
            bold=True,
        )
        x, gap = self.x, dp(6)
        for (text, swatch, ink_colour, outlined), chip in zip(self.chips, self._chips, strict=True):
            fill, body, edge, outline, ink = chip
            ink.show(text, ink_colour)
            tw, th = ink.size
            width = max(dp(52), tw + dp(16))
            fill.rgba = swatch
            body.pos, body.size = (x, self.y + dp(2)), (width, self.height - dp(4))
            edge.rgba = (0.85, 0.85, 0.9, 1) if outlined else (0, 0, 0, 0)
            outline.rounded_rectangle = (x, self.y + dp(2), width, self.height - dp(4), dp(6))
            ink.place(x + (width - tw) / 2, self.center_y - th / 2)
            x += width + gap
        self.width = max(0, x - gap - self.x)


class PanelHeader(DrawnWidget):
    """A panel's first line: the player's letter in a disc of their colour, their name
    (smaller, then shortened, when long) and, on the right, the turn marker (white: no
    player is white)."""

    letter = StringProperty("")
    name = StringProperty("")
    active = BooleanProperty(False)
    turn = StringProperty("turn")
    swatch = ListProperty([1, 1, 1, 1])
    ink_colour = ListProperty([1, 1, 1, 1])
    drawn_from = ("letter", "name", "active", "turn", "swatch", "ink_colour")

    def __init__(self, **kwargs: Any) -> None:
        self._disc_colour = Color(1, 1, 1, 1)
        self._disc = Ellipse(size=(dp(32), dp(32)))
        self._badge_colour = Color(1, 1, 1, 0)
        self._badge = RoundedRectangle(radius=[dp(10)])
        self._fit: tuple[Any, float] = ((), sp(22))
        super().__init__(**kwargs)
        for shape in (self._disc_colour, self._disc, self._badge_colour, self._badge):
            self.canvas.add(shape)
        self.letter_ink = self.ink("22sp", bold=True)
        self.name_ink = self.ink("22sp", bold=True)
        self.turn_ink = self.ink("20sp", bold=True)

    def draw(self) -> None:
        x, cy, gap = self.x, self.center_y, dp(4)
        self._disc_colour.rgba = self.swatch
        self._disc.pos = (x, cy - dp(16))
        self.letter_ink.show(self.letter, self.ink_colour)
        lw, lh = self.letter_ink.size
        self.letter_ink.place(x + (dp(32) - lw) / 2, cy - lh / 2)
        self.turn_ink.show(self.turn if self.active else "", (0.1, 0.1, 0.12, 1))
        tw, th = self.turn_ink.size
        badge = tw + dp(8) if self.active else 0
        self._badge_colour.a = 1 if self.active else 0
        self._badge.pos = (self.right - badge, cy - dp(13))
        self._badge.size = (badge, dp(26))
        self.turn_ink.place(self.right - badge + (badge - tw) / 2, cy - th / 2)
        room = max(1, self.width - dp(32) - 2 * gap - badge)
        fit = (self.name, room, self.height)
        if fit != self._fit[0]:  # measured again only when the name or its room changed
            size = sp(22)
            if self.name:
                options = {**self.name_ink.options, "text": self.name}
                size = fitting_font_size(options, sp(22), sp(20), (room, self.height), None)
            self._fit = (fit, size)
        self.name_ink.show(self.name, (1, 1, 1, 1), self._fit[1], width=room)
        nh = self.name_ink.size[1]
        self.name_ink.place(x + dp(32) + gap, cy - nh / 2)


class Figures(ButtonBehavior, DrawnWidget):
    """A panel's big figures, one touch target (a tap shows the odds of the next draw
    whole): (with 5-6 players, the player's letter), a cube and the player's cubes in
    the Clank! area; on the right, a heart and the health left. Under them, the next
    draw's knock-out chance and the health it takes on average (5-6 players, no room
    for a line: the knock-out chance as a red bar)."""

    compact = BooleanProperty(False)
    letter = StringProperty("")
    clank = StringProperty("0")
    health = StringProperty("10")
    hurt = NumericProperty(0)
    swatch = ListProperty([1, 1, 1, 1])
    ink_colour = ListProperty([1, 1, 1, 1])
    risk_text = StringProperty("")
    risk_colour = ListProperty([0.85, 0.87, 0.9, 1])
    knock_out = NumericProperty(0)
    drawn_from = ("compact", "letter", "clank", "health", "hurt", "swatch", "ink_colour",
                  "risk_text", "risk_colour", "knock_out")  # fmt: skip

    def __init__(self, **kwargs: Any) -> None:
        self._shapes = {
            "disc": (Color(0, 0, 0, 0), Ellipse(size=(dp(32), dp(32)))),
            "edge": (Color(0.05, 0.05, 0.06, 1), Rectangle(size=(dp(24), dp(24)))),
            "cube": (Color(1, 1, 1, 1), Rectangle(size=(dp(20), dp(20)))),
            "bar": (Color(1, 1, 1, 0), Rectangle()),
            "risk": (Color(0.95, 0.3, 0.25, 0), Rectangle()),
        }
        super().__init__(**kwargs)
        for paint, shape in self._shapes.values():
            self.canvas.add(paint)
            self.canvas.add(shape)
        self.letter_ink = self.ink("22sp", bold=True)
        self.clank_ink = self.ink("38sp", bold=True)
        self.heart_ink = self.ink("30sp", font_name="DejaVuSans")
        self.health_ink = self.ink("38sp", bold=True)
        self.risk_ink = self.ink("20sp", markup=True)

    def draw(self) -> None:
        shapes = self._shapes
        x, gap = self.x, dp(6)
        # under the figures: the odds in a line, or a bar (5-6 players)
        line = dp(26) if self.risk_text and not self.compact else 0
        bar = dp(6) if self.risk_text and self.compact else 0
        self.risk_ink.show(self.risk_text if line else "", self.risk_colour)
        rw, rh = self.risk_ink.size
        self.risk_ink.place(self.center_x - rw / 2, self.y + (line - rh) / 2)
        shapes["bar"][0].a = 0.18 if bar else 0
        shapes["bar"][1].pos, shapes["bar"][1].size = self.pos, (self.width, bar)
        shapes["risk"][0].a = 1 if bar else 0
        shapes["risk"][1].pos, shapes["risk"][1].size = self.pos, (self.width * self.knock_out, bar)
        # the figures, in the middle of the rest
        cy = self.y + line + bar + (self.height - line - bar) / 2
        big = sp(36) if self.compact else sp(38)
        self.letter_ink.show(self.letter if self.compact else "", self.ink_colour)
        self.clank_ink.show(self.clank, (1, 1, 1, 1), big)
        self.heart_ink.show("♥", (0.95, 0.3, 0.3, 1) if self.hurt < 1 else (0.5, 0.5, 0.5, 1))
        hurt = (1, 1, 1, 1) if self.hurt < 0.7 else (1, 0.55, 0.45, 1)
        self.health_ink.show(self.health, hurt, big)
        # the letter in a disc of the player's colour (5-6 players: no name above)
        lead = dp(32) if self.compact else 0
        shapes["disc"][0].rgba = self.swatch if self.compact else (0, 0, 0, 0)
        shapes["disc"][1].pos = (x + lead / 2 - dp(16), cy - dp(16))
        lw, lh = self.letter_ink.size
        self.letter_ink.place(x + (lead - lw) / 2, cy - lh / 2)
        # a cube (the player's colour with a dark edge), then the cubes in the Clank! area
        left = x + lead + gap
        shapes["edge"][1].pos = (left + dp(1), cy - dp(12))
        shapes["cube"][0].rgba = self.swatch
        shapes["cube"][1].pos = (left + dp(3), cy - dp(10))
        ch = self.clank_ink.size[1]
        self.clank_ink.place(left + dp(34), cy - ch / 2)
        # on the right: the health left, and a heart before it
        hw, hh = self.health_ink.size
        right = self.right - dp(1)
        self.health_ink.place(right - hw, cy - hh / 2)
        kw, kh = self.heart_ink.size
        self.heart_ink.place(right - hw - dp(1) - gap - kw, cy - kh / 2)

    def figures(self) -> list[DrawnText]:
        """The two numbers a player looks for: cubes in the Clank! area, health left."""
        self.drawn()
        return [t for t in (self.clank_ink.seen(self), self.health_ink.seen(self)) if t]


class InfoLine(DrawnWidget):
    """A panel's line under the figures: the player's status if out (or in the Depths),
    else gold, artifacts and the rest; shortened when too long."""

    text = StringProperty("")
    bold = BooleanProperty(False)
    colour = ListProperty([0.92, 0.92, 0.95, 1])
    drawn_from = ("text", "bold", "colour")

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.line = self.ink("20sp")

    def draw(self) -> None:
        self.line.options["bold"] = self.bold
        shown = self.text if self.height > 1 else ""  # no line (5-6 players): no texture
        self.line.show(shown, self.colour, width=self.width, halign="center")
        self.line.place(self.x, self.center_y - self.line.size[1] / 2)


class PlayerPanel(Layout, BoxLayout):
    """A player's panel, in the player's colour: cubes in the Clank! area and health in
    big numerals, gold and artifacts, and the buttons that change them."""

    layouts = ("table.kv",)

    player = StringProperty("")
    letter = StringProperty("")
    name_text = StringProperty("")
    swatch = ListProperty([1, 1, 1, 1])
    tint = ListProperty([0.2, 0.2, 0.2, 1])
    ink = ListProperty([1, 1, 1, 1])
    active = BooleanProperty(False)
    out = BooleanProperty(False)
    compact = BooleanProperty(False)  # 5-6 players: two rows of smaller panels
    clank = StringProperty("0")
    health = StringProperty("10")
    info_text = StringProperty("")
    status_text = StringProperty("")
    hurt = NumericProperty(0)  # 0 (unhurt) to 1 (knocked out)
    risk_text = StringProperty("")  # the next draw: knock-out chance, health lost on average
    knock_out = NumericProperty(0)  # the next draw's knock-out chance (a bar, 5-6 players)
    risk_colour = ListProperty([0.85, 0.87, 0.9, 1])

    def show_odds(self) -> None:
        App.get_running_app().show_odds()

    def clank_by(self, n: int) -> None:
        app = App.get_running_app()
        if app.controller.aimed(app.screen("table").pressed):
            app.controller.clank(n, player=self.player)

    def more(self) -> None:
        app = App.get_running_app()
        if app.controller.aimed(app.screen("table").pressed):
            app.open_player_actions(self.player)

    def show(self, p: PlayerView, view: TableView, compact: bool) -> None:
        edition = view.edition
        self.player = p.name
        self.letter = letter(p.name)
        self.name_text = player_name(p.name, capital=True)
        self.swatch = list(colour(p.name))
        self.tint = _tint(colour(p.name), 0.32 if not p.out else 0.16)
        self.ink = list(text_colour(p.name))
        self.active = p.active
        self.out = p.out
        self.compact = compact
        self.clank = str(p.clank)
        self.health = str(p.health)
        self.hurt = 1 - p.health / max(p.max_health, 1)
        if p.status == "escaped":
            self.status_text = _("escaped")
        elif p.status == "knocked_out":
            self.status_text = _("knocked out")
        elif p.in_depths:
            self.status_text = ed_(edition, "in the Depths")
        else:
            self.status_text = ""
        parts = [ngettext("{n} gold", "{n} gold", p.gold).format(n=p.gold)]
        if p.artifacts:
            parts.append(_("artifact {v}").format(v="+".join(map(str, p.artifacts))))
        if p.anti_clank:
            parts.append(ed_(edition, "anti-clank {n}").format(n=p.anti_clank))
        if p.score is not None:
            parts.append(_("score {n}").format(n=p.score))
        self.info_text = " · ".join(parts)
        if p.odds and not p.out:
            ko = p.knock_out
            self.knock_out = ko
            lost = f"{p.expected_damage:.1f}"
            lost = "0" if lost == "0.0" else "−" + lost
            self.risk_text = f"{SKULL} {percent(ko)}  ·  {HEART} {lost}"
            danger = ko >= 0.25 or (ko > 0 and p.health <= 2)
            self.risk_colour = [1, 0.55, 0.45, 1] if danger else [0.85, 0.87, 0.9, 1]
        else:
            self.knock_out = 0
            self.risk_text = ""
            self.risk_colour = [0.85, 0.87, 0.9, 1]
        self._draw_parts()

    def _draw_parts(self) -> None:
        """The drawn parts show the panel's values (set here, not bound in the layout:
        a binding per value and per panel cost the first frame more than this)."""
        header, figures, info = self.ids.header, self.ids.figures, self.ids.info
        header.letter = "" if self.compact else self.letter
        header.name = "" if self.compact else self.name_text
        header.active, header.swatch, header.ink_colour = self.active, self.swatch, self.ink
        figures.compact, figures.letter = self.compact, self.letter
        figures.clank, figures.health, figures.hurt = self.clank, self.health, self.hurt
        figures.swatch, figures.ink_colour = self.swatch, self.ink
        figures.risk_text, figures.risk_colour = self.risk_text, self.risk_colour
        figures.knock_out = self.knock_out
        info.text = self.status_text or self.info_text
        info.bold = bool(self.status_text)
        info.colour = [1, 0.7, 0.6, 1] if self.out else [0.92, 0.92, 0.95, 1]


class RowCard(Layout, Steady, Button):
    """A card of the dungeon row: tap it when it leaves the row (bought, defeated, used)."""

    layouts = ("table.kv",)

    card = StringProperty("")
    danger = BooleanProperty(False)
    revealed = BooleanProperty(False)

    def on_card(self, widget: Any, card: str) -> None:
        self.meaning = card  # another card re-flowed under the finger: inert a moment


class TableScreen(Layout, Screen):
    layouts = ("table.kv",)
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
    can_undo = BooleanProperty(False)
    refilling = BooleanProperty(False)
    game_over = BooleanProperty(False)
    compact = BooleanProperty(False)

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
        self._show_rage(view)
        self._show_bag(view)
        self._show_players(view)
        self._show_row(view)
        self.last_text = view.last
        self.refilling = view.refilling
        self.game_over = view.game_over
        active = player_name(view.active)
        if view.game_over:
            self.end_turn_text = _("Game over")
        elif view.refilling:
            self.end_turn_text = ngettext(
                "{n} card still to reveal: tap to end the turn now",
                "{n} cards still to reveal: tap to end the turn now",
                view.refill_space,
            ).format(n=view.refill_space)
        else:
            self.end_turn_text = _("End turn ({player})").format(player=active)
        self.can_undo = view.can_undo

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
        notes = []
        if view.danger:
            notes.append(_("Danger +{d}").format(d=view.danger))
        if view.countdown:
            who, space = view.countdown
            notes.append(
                _("countdown: {player} on space {space}").format(
                    player=player_name(who), space=space
                )
            )
        self.attack_note = " · ".join(notes)

    def _show_bag(self, view: TableView) -> None:
        chips = []
        for kind, n in view.bag:
            if kind == "ghost" and view.edition != "catacombs":
                continue
            swatch = list(colour(kind)) if kind != "black" else [0.03, 0.03, 0.04, 1]
            mark = {"black": "", "ghost": ed_(view.edition, "ghost")}.get(kind, letter(kind))
            chips.append((f"{mark} {n}".strip(), swatch, list(text_colour(kind)), kind == "black"))
        self.ids.bag.chips = chips
        undone = sum(1 for d in view.draws if d.undone)
        self.undone_note = (
            ngettext("{n} draw undone", "{n} draws undone", undone).format(n=undone)
            if undone
            else ""
        )
        ghosts = view.ghosts_in_area
        self.bag_note = (
            ngettext("{n} ghost in Clank!", "{n} ghosts in Clank!", ghosts).format(n=ghosts)
            if ghosts
            else ""
        )

    # ------------------------------------------------------------ the players
    def _show_players(self, view: TableView) -> None:
        grid = self.ids.players
        names = [p.name for p in view.players]
        self.compact = len(names) > 4
        grid.cols = len(names) if not self.compact else 3
        if [w.player for w in self.panels()] != names:
            grid.clear_widgets()
            for name in names:
                panel = PlayerPanel()
                panel.player = name
                slot = Cached()  # a panel is drawn again only when it changed
                slot.add_widget(panel)
                grid.add_widget(slot)
        for panel, p in zip(self.panels(), view.players, strict=True):
            panel.show(p, view, self.compact)

    def panels(self) -> list[PlayerPanel]:
        """The players' panels in seat order."""
        return [slot.children[0] for slot in reversed(self.ids.players.children)]

    # ------------------------------------------------------------ the row
    def _show_row(self, view: TableView) -> None:
        """The row's buttons are kept and relabelled, spare ones hidden: making buttons at
        every scan costs the redraw time and leaves garbage for the collector to sweep
        in the middle of a game."""
        box = self.ids.row
        cards = [w for w in reversed(box.children) if isinstance(w, RowCard)]
        empty = [w for w in box.children if not isinstance(w, RowCard)]
        if not view.row:
            for w in cards:
                self._hide(w)
            if not empty:
                box.add_widget(
                    Label(text=_("empty: scan the cards as they are dealt"), font_size="20sp")
                )
            return
        for w in empty:
            box.remove_widget(w)
        while len(cards) < len(view.row):
            button = RowCard()
            button.bind(on_release=self._row_tapped)
            box.add_widget(button)
            cards.append(button)
        for button in cards[len(view.row) :]:
            self._hide(button)
        for button, card in zip(cards, view.row, strict=False):
            button.card = card.name
            button.revealed = card.revealed
            button.danger = card.danger
            button.disabled = card.revealed or view.game_over
            button.text = ("⚠ " if card.danger else "") + card.name
            button.opacity = 1
            button.size_hint_x = 1

    @staticmethod
    def _hide(button: RowCard) -> None:
        button.card = ""
        button.opacity = 0
        button.disabled = True
        button.size_hint_x = None
        button.width = 0

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
        App.get_running_app().pick_untagged_card()
