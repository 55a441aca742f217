"""A player's panel on the table screen: their colour and letter, name, gold and
artifacts, the turn marker, the two big figures (cubes in the Clank! area, health left)
and the next draw's odds in words. One touch target: a tap opens the player's actions.

Layout in kv/table.kv (the panel's rule); what it shows is set by ``PlayerPanel.show``
from the table's view, as the table screen (companion.ui.table) is.
"""

from __future__ import annotations

from typing import Any

from kivy.app import App
from kivy.graphics import Color, Ellipse, Rectangle, RoundedRectangle
from kivy.metrics import dp
from kivy.properties import BooleanProperty, ListProperty, NumericProperty, StringProperty
from kivy.uix.behaviors import ButtonBehavior
from kivy.uix.boxlayout import BoxLayout

from companion.i18n import _, ed_, player_name
from companion.ui.colours import TURN_INK, TURN_MARK, colour, letter, text_colour
from companion.ui.drawn import DrawnText, DrawnWidget
from companion.ui.layouts import Layout
from companion.ui.odds import HEART, SKULL, percent
from companion.view import PlayerView, TableView, health_lost

COIN = "[font=DejaVuSans][color=f2c744]●[/color][/font]"
ARTIFACT = "[font=DejaVuSans][color=9fd8ff]◆[/color][/font]"
TEXT = "26sp"  # every text on the table: about 18 px of ink (TABLE_SCREEN.md)
FIGURE = "52sp"  # the figures a player looks for: about 37 px of ink
SMALL_FIGURE = "44sp"  # the same with 5-6 players: about 31 px


def _tint(rgba: tuple[float, ...] | list[float], amount: float) -> list[float]:
    """The colour darkened towards the background (0: the background, 1: the colour)."""
    base = (0.14, 0.15, 0.18)
    return [base[i] + (rgba[i] - base[i]) * amount for i in range(3)] + [1]


class PanelHeader(DrawnWidget):
    """A panel's first line: the player's letter in a disc of their colour, their name;
    on the right their gold and artifacts (or the like) and, with 2-4 players, the turn
    marker (white: no player is white; with 5-6 the panel's white frame alone)."""

    letter = StringProperty("")
    name = StringProperty("")
    info = StringProperty("")
    active = BooleanProperty(False)
    compact = BooleanProperty(False)
    turn = StringProperty("turn")
    swatch = ListProperty([1, 1, 1, 1])
    ink_colour = ListProperty([1, 1, 1, 1])
    drawn_from = ("letter", "name", "info", "active", "compact", "turn", "swatch", "ink_colour")

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
        self.turn_ink = self.ink("28sp", bold=True)  # no capital: a size up for its ink

    def draw(self) -> None:
        x, cy, gap = self.x, self.center_y, dp(6)
        self._disc_colour.rgba = self.swatch
        self._disc.pos = (x, cy - dp(15))
        self.letter_ink.show(self.letter, self.ink_colour)
        lw, lh = self.letter_ink.size
        self.letter_ink.place(x + (dp(30) - lw) / 2, cy - lh / 2)
        # the name whole first, then the turn marker (2-4 players), then the info
        marked = self.active and not self.compact
        # made once, shown or not (as the turn moves, no new texture)
        self.turn_ink.show(self.turn, (*TURN_INK[:3], 1 if marked else 0))
        tw, th = self.turn_ink.size
        badge = tw + dp(10) if marked else 0
        room = max(1.0, self.width - dp(30) - gap)
        self.name_ink.show_within(self.name, (1, 1, 1, 1), room)
        name_w = self.name_ink.size[0]
        left = room - (badge + gap if badge else 0) - name_w - gap
        self.info_ink.show_within(self.info, (0.93, 0.93, 0.96, 1), left, halign="right")
        if self.info_ink.shortened and self.width >= dp(200):
            # gold, artifacts and a credit too many for the line: the figures keep it
            # whole, and the letter in its disc and the panel's colour name the player
            # (a header narrower than any panel is one not laid out yet: it keeps all)
            self.name_ink.show("", (1, 1, 1, 1))
            name_w = 0
            left = room - (badge + gap if badge else 0)
            self.info_ink.show_within(self.info, (0.93, 0.93, 0.96, 1), left, halign="right")
        info_w = self.info_ink.size[0] if left > 1 else 0
        self._badge_colour.a = 1 if badge else 0
        self._badge.pos = (self.right - badge, cy - dp(14))
        self._badge.size = (badge, dp(28))
        self.turn_ink.place(self.right - badge + (badge - tw) / 2, cy - th / 2)
        self.name_ink.place(x + dp(30) + gap, cy - self.name_ink.size[1] / 2)
        right = self.right - badge - (gap if badge else 0)
        self.info_ink.place(right - info_w, cy - self.info_ink.size[1] / 2)


class Figures(DrawnWidget):
    """A panel's big figures: a cube and the player's cubes in the Clank! area, a heart
    and the health left; beside them the next draw's odds in words (knock-out chance,
    health lost on average; with 5-6 players the same as figures with their signs), or
    the player's status once they are out."""

    compact = BooleanProperty(False)
    clank = StringProperty("0")
    health = StringProperty("10")
    hurt = NumericProperty(0)
    swatch = ListProperty([1, 1, 1, 1])
    risk_lines = ListProperty([])  # one or two lines beside the figures
    risk_colour = ListProperty([0.88, 0.9, 0.93, 1])
    risk_bold = BooleanProperty(False)
    drawn_from = ("compact", "clank", "health", "hurt", "swatch", "risk_lines", "risk_colour",
                  "risk_bold")  # fmt: skip

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
        self.risk_inks = [self.ink(TEXT, markup=True), self.ink(TEXT, markup=True)]

    def draw(self) -> None:
        shapes = self._shapes
        x, cy, gap = self.x, self.center_y, dp(6)
        big = SMALL_FIGURE if self.compact else FIGURE
        self.clank_ink.show(self.clank, (1, 1, 1, 1), big)
        self.heart_ink.show("♥", (0.95, 0.3, 0.3, 1) if self.hurt < 1 else (0.5, 0.5, 0.5, 1))
        hurt = (1, 1, 1, 1) if self.hurt < 0.7 else (1, 0.55, 0.45, 1)
        self.health_ink.show(self.health, hurt, big)
        # a cube (the player's colour with a dark edge), then the cubes in the Clank! area
        shapes["edge"][1].pos = (x + dp(1), cy - dp(12))
        shapes["cube"][0].rgba = self.swatch
        shapes["cube"][1].pos = (x + dp(3), cy - dp(10))
        cw, ch = self.clank_ink.size
        self.clank_ink.place(x + dp(24) + dp(4), cy - ch / 2)
        # then a heart and the health left
        kw, kh = self.heart_ink.size
        heart_x = x + dp(28) + max(cw, dp(30)) + dp(10)
        self.heart_ink.place(heart_x, cy - kh / 2)
        hw, hh = self.health_ink.size
        self.health_ink.place(heart_x + kw + dp(2), cy - hh / 2)
        # the odds (or the status), in the room left on the right, one line under another
        left = heart_x + kw + dp(2) + hw + gap
        room = max(1.0, self.right - left)
        lines = list(self.risk_lines)[:2]
        bold = self.risk_bold and not self.compact  # 5-6: no room for it
        if len(lines) == 1 and " " in lines[0] and self.width >= dp(200):  # (laid out)
            first = self.risk_inks[0]
            first.options["bold"] = bold
            first.show_within(lines[0], self.risk_colour, room, halign="right")
            if first.shortened:  # a status too long for its line: two lines, whole
                lines = two_lines(lines[0])
        inks = []
        for i, ink in enumerate(self.risk_inks):
            ink.options["bold"] = bold
            text = lines[i] if i < len(lines) else ""
            ink.show_within(text, self.risk_colour, room, halign="right")
            if text:
                inks.append(ink)
        step = dp(27)
        top = cy + step * (len(inks) - 1) / 2
        for i, ink in enumerate(inks):
            w, h = ink.size
            ink.place(self.right - w, top - i * step - h / 2)

    def figures(self) -> list[DrawnText]:
        """The two numbers a player looks for: cubes in the Clank! area, health left."""
        self.drawn()
        return [t for t in (self.clank_ink.seen(self), self.health_ink.seen(self)) if t]


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
    # the next draw: knock-out chance, health lost on average, in words (as figures with
    # their signs at 5-6 players)
    risk_text = StringProperty("")
    knock_out = NumericProperty(0)  # the next draw's knock-out chance
    danger = BooleanProperty(False)  # the risk is real: the odds in amber, bold
    risk_colour = ListProperty([0.88, 0.9, 0.93, 1])

    def on_release(self) -> None:
        self.more()

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
        parts = [f"{COIN} {p.gold}"]  # icons, not words: a coin, an artifact
        if p.artifacts:
            parts.append(f"{ARTIFACT} {'+'.join(map(str, p.artifacts))}")
        if p.anti_clank:
            parts.append(ed_(edition, "anti-clank {n}").format(n=p.anti_clank))
        if p.score is not None:
            parts.append(_("score {n}").format(n=p.score))
        if view.countdown and view.countdown[0] == p.name:
            parts.append(_("countdown {space}").format(space=view.countdown[1]))
        self.info_text = " · ".join(parts)
        if p.odds and not p.out:
            ko = p.knock_out
            self.knock_out = ko
            lost = health_lost(p.expected_damage)  # "0,4" where the language writes so
            lost = lost if lost == "0" else "−" + lost
            if compact:  # figures with their signs, close: six panels share the screen
                self.risk_text = f"{SKULL}{percent(ko)}\n{HEART}{lost}"
            else:
                self.risk_text = "\n".join((
                    _("knock-out {chance}").format(chance=percent(ko)),
                    _("expected {loss}").format(loss=f"{lost} {HEART}"),
                ))  # fmt: skip
            self.danger = ko >= 0.1 or (ko > 0 and p.health <= 2)
            self.risk_colour = [1, 0.82, 0.3, 1] if self.danger else [0.88, 0.9, 0.93, 1]
        else:
            self.knock_out = 0
            self.danger = False
            self.risk_text = ""
            self.risk_colour = [0.88, 0.9, 0.93, 1]
        self._draw_parts()

    def _draw_parts(self) -> None:
        """The drawn parts show the panel's values (set here, not bound in the layout:
        a binding per value and per panel cost the first frame more than this)."""
        header, figures = self.ids.header, self.ids.figures
        header.letter, header.name, header.info = self.letter, self.name_text, self.info_text
        header.active, header.swatch, header.ink_colour = self.active, self.swatch, self.ink
        header.compact = self.compact
        figures.compact = self.compact
        figures.clank, figures.health, figures.hurt = self.clank, self.health, self.hurt
        figures.swatch = self.swatch
        if self.status_text:
            figures.risk_lines = [self.status_text]
            figures.risk_colour = [1, 0.7, 0.6, 1]
            figures.risk_bold = True
        else:
            figures.risk_lines = self.risk_text.split("\n") if self.risk_text else []
            figures.risk_colour = self.risk_colour
            figures.risk_bold = self.danger
