"""A player's panel on the table screen: their colour and letter, name, gold and
artifacts, the turn marker, the two big figures (cubes in the Clank! area, health left)
and the next draw's odds in words. One touch target: a tap opens the player's actions.

Layout in the kind's kv/table.kv (the panel's rule); what it shows is set by ``PlayerPanel.show``
from the table's view, as the table screen (companion.kinds.clank.screens.table) is.
"""

from __future__ import annotations

from typing import Any

from kivy.app import App
from kivy.graphics import Color, Ellipse, Rectangle, RoundedRectangle
from kivy.metrics import dp
from kivy.properties import BooleanProperty, ListProperty, NumericProperty, StringProperty
from kivy.uix.behaviors import ButtonBehavior
from kivy.uix.boxlayout import BoxLayout

from companion.i18n import _, ed_, pgettext, player_name
from companion.kinds.clank.screens.odds import percent
from companion.kinds.clank.view import PlayerView, TableView
from companion.ui.colours import (
    DARK_INK,
    TURN_INK,
    TURN_MARK,
    colour,
    letter,
    panel_ink,
    panel_tint,
    text_colour,
)
from companion.ui.drawn import DrawnText, DrawnWidget
from companion.ui.layouts import Layout, kind_layout

KV = "companion.kinds.clank"  # the package whose kv/ holds its layouts

COIN = "●"  # drawn in DejaVuSans, in gold
ARTIFACT = "[font=DejaVuSans][color={colour}]◆[/color][/font]"
TEXT = "26sp"  # a text for the player who taps: about 18 px of ink (TABLE_SCREEN.md)
WATCHED = "30sp"  # a text the whole table watches (the odds' word, the turn): 21 px
FIGURE = "52sp"  # the figures a player looks for: about 37 px of ink
SMALL_FIGURE = "44sp"  # the same with 5-6 players: about 31 px
NUMBER = "44sp"  # gold and the odds: 31 px of digits (30 px at least, 2-4 players)
SMALL_NUMBER = "38sp"  # the same with 5-6 players: 27 px (26 px at least)
GOLD = (0.95, 0.78, 0.27, 1)


class Inks:
    """The colours drawn on a panel's fill: for the five dark fills light ones, for
    yellow's light fill dark ones (companion.ui.colours.panel_ink), each 4.5:1 at least
    on its fill."""

    def __init__(self, light: bool) -> None:
        self.light = light
        if light:  # a light fill: dark ink
            self.text = self.soft = DARK_INK
            self.coin, self.artifact = (0.42, 0.3, 0.0, 1), "1d3f7a"
            self.heart, self.hurt = (0.62, 0.04, 0.1, 1), (0.55, 0.06, 0.04, 1)
            self.amber, self.status = (0.5, 0.16, 0.0, 1), (0.5, 0.08, 0.04, 1)
        else:
            self.text, self.soft = (1, 1, 1, 1), (0.93, 0.93, 0.96, 1)
            self.coin, self.artifact = GOLD, "9fd8ff"
            self.heart, self.hurt = (0.95, 0.3, 0.3, 1), (1, 0.55, 0.45, 1)
            self.amber, self.status = (1, 0.82, 0.3, 1), (1, 0.7, 0.6, 1)
        self.odds = (0.88, 0.9, 0.93, 1) if not light else DARK_INK


def inks_of(light: bool) -> Inks:
    return LIGHT_INKS if light else DARK_INKS


LIGHT_INKS, DARK_INKS = Inks(True), Inks(False)


class PanelHeader(DrawnWidget):
    """A panel's first line: the player's letter in a disc of their colour, their name
    and, with 2-4 players, the turn marker after it (white: no player is white; with 5-6
    the panel's white frame alone). On the right the word of the knock-out chance shown
    under it (with 5-6 players a skull, the legend on the All odds button), before it
    with 5-6 players their gold, and before that their artifacts and the like."""

    letter = StringProperty("")
    name = StringProperty("")
    info = StringProperty("")
    gold = StringProperty("")  # shown here with 5-6 players (else in the figures' line)
    out = BooleanProperty(False)  # the player's status in the figures' line: gold here
    odds_word = StringProperty("")
    odds_colour = ListProperty([0.88, 0.9, 0.93, 1])
    odds_bold = BooleanProperty(False)
    light = BooleanProperty(False)  # a light fill (yellow's): dark ink
    active = BooleanProperty(False)
    compact = BooleanProperty(False)
    turn = StringProperty("turn")
    swatch = ListProperty([1, 1, 1, 1])
    ink_colour = ListProperty([1, 1, 1, 1])
    drawn_from = ("letter", "name", "info", "gold", "out", "odds_word", "odds_colour",
                  "odds_bold", "light", "active", "compact", "turn", "swatch",
                  "ink_colour")  # fmt: skip

    def __init__(self, **kwargs: Any) -> None:
        self._disc_colour = Color(1, 1, 1, 1)
        self._disc = Ellipse(size=(dp(30), dp(30)))
        self._badge_colour = Color(*TURN_MARK[:3], 0)  # shown on the player's turn
        self._badge = RoundedRectangle(radius=[dp(8)])
        super().__init__(**kwargs)
        for shape in (self._disc_colour, self._disc, self._badge_colour, self._badge):
            self.canvas.add(shape)
        self.letter_ink = self.ink(TEXT, bold=True)
        self.name_ink = self.ink(TEXT, bold=True)
        self.info_ink = self.ink(TEXT, markup=True)
        self.coin_ink = self.ink(TEXT, font_name="DejaVuSans")
        self.gold_ink = self.ink(SMALL_NUMBER, bold=True, trim=True)
        self.word_ink = self.ink(WATCHED)
        self.skull_ink = self.ink("36sp", font_name="DejaVuSans", trim=True)
        self.turn_ink = self.ink(WATCHED, bold=True)

    def draw(self) -> None:
        x, cy, gap = self.x, self.center_y, dp(6)
        inks = inks_of(self.light)
        self._disc_colour.rgba = self.swatch
        self._disc.pos = (x, cy - dp(15))
        self.letter_ink.show(self.letter, self.ink_colour)
        lw, lh = self.letter_ink.size
        self.letter_ink.place(x + (dp(30) - lw) / 2, cy - lh / 2)
        # on the right, the odds' word (a skull with 5-6 players: a size up, its glyph
        # draws smaller than a capital, and cut to its height as a figure is)
        self.word_ink.options["bold"] = self.odds_bold
        skull = self.odds_word == "☠"
        self.word_ink.show("" if skull else self.odds_word, self.odds_colour)
        self.skull_ink.show(self.odds_word if skull else "", self.odds_colour)
        word = self.skull_ink if skull else self.word_ink
        ww, wh = word.size
        word.place(self.right - ww, cy - wh / 2)
        right = self.right - (ww + dp(16) if ww else 0)  # apart from the info before it
        left = x + dp(30) + gap
        # with 5-6 players (or once out, the status in the figures' line) the gold
        gold = self.gold if self.compact or self.out else ""
        self.coin_ink.show(COIN if gold else "", inks.coin)
        self.gold_ink.show(gold, inks.text, SMALL_NUMBER if self.compact else NUMBER)
        cw, ch = self.coin_ink.size
        gw, gh = self.gold_ink.size
        self.gold_ink.place(right - gw, cy - gh / 2)
        self.coin_ink.place(right - gw - dp(2) - cw, cy - ch / 2)
        right -= cw + dp(2) + gw + gap if gold else 0
        # the name whole, the turn marker after it, the info in the room left
        marked = self.active and not self.compact
        # made once, shown or not (as the turn moves, no new texture)
        self.turn_ink.show(self.turn, (*TURN_INK[:3], 1 if marked else 0))
        tw, th = self.turn_ink.size
        badge = tw + dp(10) if marked else 0
        room = max(1.0, right - left - (badge + gap if badge else 0))
        self.name_ink.show_within(self.name, inks.text, room)
        if self.name_ink.shortened and self.width >= dp(200):
            # a name is whole or not at all: the letter in its disc and the panel's
            # colour name the player
            self.name_ink.show("", inks.text)
        name_w = self.name_ink.size[0]
        rest = room - name_w - gap
        self.info_ink.show_within(self.info, inks.soft, rest, halign="right")
        if self.info_ink.shortened and self.width >= dp(200):
            # artifacts and a credit too many for the line: the figures keep it whole,
            # and the letter in its disc and the panel's colour name the player (a
            # header narrower than any panel is one not laid out yet: it keeps all)
            self.name_ink.show("", inks.text)
            name_w = 0
            rest = room
            self.info_ink.show_within(self.info, inks.soft, rest, halign="right")
            if self.info_ink.shortened and badge:
                # still too many: the turn marker goes too (the panel's white frame and
                # End turn, which names the player, still say whose turn it is)
                self.turn_ink.show(self.turn, (*TURN_INK[:3], 0))
                badge = 0
                rest = room = max(1.0, right - left)
                self.info_ink.show_within(self.info, inks.soft, rest, halign="right")
        info_w = self.info_ink.size[0] if rest > 1 else 0
        self.name_ink.place(left, cy - self.name_ink.size[1] / 2)
        badge_x = left + (name_w + gap if name_w else 0)
        self._badge_colour.a = 1 if badge else 0
        self._badge.pos = (badge_x, cy - dp(16))
        self._badge.size = (badge, dp(32))
        self.turn_ink.place(badge_x + (badge - tw) / 2, cy - th / 2)
        self.info_ink.place(right - info_w, cy - self.info_ink.size[1] / 2)

    def figures(self) -> list[DrawnText]:
        """The gold (5-6 players), a figure the table watches."""
        self.drawn()
        seen = self.gold_ink.seen(self)
        return [seen] if seen else []

    def watched(self) -> list[DrawnText]:
        """The turn marker and the odds' word (or skull), read from the far seat."""
        self.drawn()
        inks = (self.turn_ink, self.word_ink, self.skull_ink)
        return [t for t in (ink.seen(self) for ink in inks) if t]


class Figures(DrawnWidget):
    """A panel's big figures: a cube and the player's cubes in the Clank! area, a heart
    and the health left, with 2-4 players a coin and the gold; on the right the next
    draw's knock-out chance (its word above it, in the header), or the player's status
    once they are out. The health lost on average is one tap away, in All odds."""

    compact = BooleanProperty(False)
    clank = StringProperty("0")
    health = StringProperty("10")
    gold = StringProperty("")
    hurt = NumericProperty(0)
    swatch = ListProperty([1, 1, 1, 1])
    odds = StringProperty("")  # "25%"
    status_lines = ListProperty([])  # once out: "knocked out", on one or two lines
    risk_colour = ListProperty([0.88, 0.9, 0.93, 1])
    risk_bold = BooleanProperty(False)
    light = BooleanProperty(False)  # a light fill (yellow's): dark ink
    drawn_from = ("compact", "clank", "health", "gold", "hurt", "swatch", "odds",
                  "status_lines", "risk_colour", "risk_bold", "light")  # fmt: skip

    def __init__(self, **kwargs: Any) -> None:
        self._shapes = {
            "edge": (Color(0.05, 0.05, 0.06, 1), Rectangle(size=(dp(24), dp(24)))),
            "cube": (Color(1, 1, 1, 1), Rectangle(size=(dp(20), dp(20)))),
        }
        super().__init__(**kwargs)
        for paint, shape in self._shapes.values():
            self.canvas.add(paint)
            self.canvas.add(shape)
        self.clank_ink = self.ink(FIGURE, bold=True, trim=True)
        self.heart_ink = self.ink("32sp", font_name="DejaVuSans")
        self.health_ink = self.ink(FIGURE, bold=True, trim=True)
        self.coin_ink = self.ink(TEXT, font_name="DejaVuSans")
        self.gold_ink = self.ink(NUMBER, bold=True, trim=True)
        self.odds_ink = self.ink(NUMBER, bold=True, trim=True)
        self.status_inks = [self.ink(TEXT, bold=True), self.ink(TEXT, bold=True)]

    def draw(self) -> None:
        shapes = self._shapes
        x, cy = self.x, self.center_y
        inks = inks_of(self.light)
        big = SMALL_FIGURE if self.compact else FIGURE
        self.clank_ink.show(self.clank, inks.text, big)
        self.heart_ink.show("♥", inks.heart if self.hurt < 1 else (0.5, 0.5, 0.5, 1))
        hurt = inks.text if self.hurt < 0.7 else inks.hurt
        self.health_ink.show(self.health, hurt, big)
        # a cube (the player's colour with a dark edge), then the cubes in the Clank! area
        shapes["edge"][1].pos = (x + dp(1), cy - dp(12))
        shapes["cube"][0].rgba = self.swatch
        shapes["cube"][1].pos = (x + dp(3), cy - dp(10))
        cw, ch = self.clank_ink.size
        self.clank_ink.place(x + dp(24) + dp(4), cy - ch / 2)
        # then a heart and the health left
        kw, kh = self.heart_ink.size
        heart_x = x + dp(28) + max(cw, dp(30)) + dp(8)
        self.heart_ink.place(heart_x, cy - kh / 2)
        hw, hh = self.health_ink.size
        self.health_ink.place(heart_x + kw + dp(2), cy - hh / 2)
        left = heart_x + kw + dp(2) + hw + dp(10)
        # then (2-4 players, in the game) a coin and the gold
        gold = "" if self.compact or self.status_lines else self.gold
        self.coin_ink.show(COIN if gold else "", inks.coin)
        self.gold_ink.show(gold, inks.text)
        cw, ch = self.coin_ink.size
        gw, gh = self.gold_ink.size
        self.coin_ink.place(left, cy - ch / 2)
        self.gold_ink.place(left + cw + dp(2), cy - gh / 2)
        left += cw + dp(2) + gw + dp(10) if gold else 0
        # on the right the knock-out chance, its word above it in the header: on a tall
        # panel (2-3 players) it rises from the figures' line to just under its word
        shown = self.odds if not self.status_lines else ""
        self.odds_ink.show(shown, self.risk_colour, SMALL_NUMBER if self.compact else NUMBER)
        ow, oh = self.odds_ink.size
        self.odds_ink.place(self.right - ow, max(cy - oh / 2, self.top - oh - dp(10)))
        self._status(left)

    def _status(self, left: float) -> None:
        """Once out, the player's status in the room right of the figures: on one line,
        or on two when one is too short for it."""
        lines = list(self.status_lines)[:2]
        room = max(1.0, self.right - left)
        first = self.status_inks[0]
        if len(lines) == 1 and " " in lines[0] and self.width >= dp(200):  # (laid out)
            first.show_within(lines[0], self.risk_colour, room, halign="right")
            if first.shortened:  # too long for its line: two lines, whole
                lines = two_lines(lines[0])
        inks = []
        for i, ink in enumerate(self.status_inks):
            text = lines[i] if i < len(lines) else ""
            ink.show_within(text, self.risk_colour, room, halign="right")
            if text:
                inks.append(ink)
        step = dp(24)
        top = self.center_y + step * (len(inks) - 1) / 2
        for i, ink in enumerate(inks):
            w, h = ink.size
            ink.place(self.right - w, top - i * step - h / 2)

    def figures(self) -> list[DrawnText]:
        """The numbers a player looks for: cubes in the Clank! area, health left, the
        gold (2-4 players), the knock-out chance."""
        self.drawn()
        inks = (self.clank_ink, self.health_ink, self.gold_ink, self.odds_ink)
        return [t for t in (ink.seen(self) for ink in inks) if t]


def two_lines(text: str) -> list[str]:
    """``text`` broken at the space nearest its middle."""
    middle = len(text) / 2
    spaces = [i for i, c in enumerate(text) if c == " "]
    cut = min(spaces, key=lambda i: abs(i - middle))
    return [text[:cut], text[cut + 1 :]]


class PlayerPanel(Layout, ButtonBehavior, BoxLayout):
    """A player's panel, in the player's colour: cubes in the Clank! area and health in
    big numerals, gold and artifacts, the next draw's odds in words. One touch target:
    a tap opens the player's actions."""

    layouts = (kind_layout(KV, "table.kv"),)

    player = StringProperty("")
    letter = StringProperty("")
    name_text = StringProperty("")
    swatch = ListProperty([1, 1, 1, 1])
    tint = ListProperty([0.2, 0.2, 0.2, 1])
    light = BooleanProperty(False)  # a light fill (yellow's): dark ink
    ink = ListProperty([1, 1, 1, 1])
    active = BooleanProperty(False)
    out = BooleanProperty(False)
    compact = BooleanProperty(False)  # 5-6 players: two rows of smaller panels
    clank = StringProperty("0")
    health = StringProperty("10")
    info_text = StringProperty("")
    gold_text = StringProperty("0")
    status_text = StringProperty("")
    hurt = NumericProperty(0)  # 0 (unhurt) to 1 (knocked out)
    # the next draw's knock-out chance, in words ("knock-out 25%")
    risk_text = StringProperty("")
    knock_out = NumericProperty(0)  # the next draw's knock-out chance
    danger = BooleanProperty(False)  # the risk is real: the odds in amber, bold
    risk_colour = ListProperty([0.88, 0.9, 0.93, 1])

    def on_release(self) -> None:
        self.more()

    def more(self) -> None:
        app = App.get_running_app()
        if app.controller.aimed(app.screen("table").pressed):
            from companion.kinds.clank.screens.desk import desk_of

            desk_of(app).open_player_actions(self.player)

    def show(self, p: PlayerView, view: TableView, compact: bool) -> None:
        edition = view.edition
        self.player = p.name
        self.letter = letter(p.name)
        self.name_text = player_name(p.name, capital=True)
        self.swatch = list(colour(p.name))
        # an out player keeps their fill: a faded one is lost among the others for a
        # colour-blind player (the panel says "out" in words)
        self.tint = list(panel_tint(p.name))
        self.light = panel_ink(p.name) == DARK_INK
        inks = inks_of(self.light)
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
        self.gold_text = str(p.gold)
        parts = []  # icons, not words: an artifact
        if p.artifacts:
            mark = ARTIFACT.format(colour=inks.artifact)
            parts.append(f"{mark} {'+'.join(map(str, p.artifacts))}")
        if p.anti_clank:
            # TRANSLATORS: a credit of anti-clank on a player's panel, short ("−2 Clank!")
            parts.append(ed_(edition, "−{n} Clank!").format(n=p.anti_clank))
        if p.score is not None:
            parts.append(_("score {n}").format(n=p.score))
        if view.countdown and view.countdown[0] == p.name:
            parts.append(_("countdown {space}").format(space=view.countdown[1]))
        self.info_text = " · ".join(parts)
        if p.odds and not p.out:
            ko = p.knock_out
            self.knock_out = ko
            # the knock-out chance, a figure under its word; the health lost on average
            # is one tap away (All odds)
            self.risk_text = _("knock-out {chance}").format(chance=percent(ko))
            self.danger = ko >= 0.1 or (ko > 0 and p.health <= 2)
            self.risk_colour = list(inks.amber if self.danger else inks.odds)
        else:
            self.knock_out = 0
            self.danger = False
            self.risk_text = ""
            self.risk_colour = list(inks.odds)
        self._draw_parts()

    def _draw_parts(self) -> None:
        """The drawn parts show the panel's values (set here, not bound in the layout:
        a binding per value and per panel cost the first frame more than this)."""
        header, figures = self.ids.header, self.ids.figures
        header.letter, header.name, header.info = self.letter, self.name_text, self.info_text
        header.active, header.swatch, header.ink_colour = self.active, self.swatch, self.ink
        header.compact = self.compact
        header.gold = figures.gold = self.gold_text
        figures.compact = self.compact
        figures.clank, figures.health, figures.hurt = self.clank, self.health, self.hurt
        figures.swatch = self.swatch
        header.out = bool(self.status_text)
        header.light = figures.light = self.light
        if self.status_text:
            figures.status_lines = [self.status_text]
            figures.risk_colour = list(inks_of(self.light).status)
            figures.risk_bold = True
            figures.odds = header.odds_word = ""  # the status stands where the odds were
            header.odds_colour, header.odds_bold = self.risk_colour, False  # (none shown)
        else:
            figures.status_lines = []
            word, figure = odds_parts(self.knock_out)
            shown = bool(self.risk_text)
            figures.odds = figure if shown else ""
            header.odds_word = ("☠" if self.compact else word) if shown else ""
            figures.risk_colour = header.odds_colour = self.risk_colour
            figures.risk_bold = header.odds_bold = self.danger


def odds_parts(knock_out: float) -> tuple[str, str]:
    """The knock-out chance's word and its figure, shown apart."""
    # TRANSLATORS: the word over the next draw's knock-out chance on a player's panel
    # ("knock-out" over "25%"), read from across the table: one short word
    return pgettext("odds", "knock-out"), percent(knock_out)
