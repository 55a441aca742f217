"""A Tschak! floor's teams (or the trophies' last cards): a panel per player, in the
player's colour, filled card by card from the reader or by tapping. Layout in
the kind's kv/floor.kv."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from kivy.metrics import dp, sp
from kivy.properties import BooleanProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.utils import escape_markup

from companion.i18n import _, player_name
from companion.kinds.tschak.screens.base import TschakScreen
from companion.kinds.tschak.screens.popups import CardPicker
from companion.kinds.tschak.screens.widgets import (
    CardChip,
    Seated,
    Tschak,
    app,
    ctl,
    sync,
)
from companion.kinds.tschak.views import CardView, TeamView, TschakView, card_view
from companion.ui.drawn import text_extent
from companion.ui.layouts import kind_layout

KV = "companion.kinds.tschak"  # the package whose kv/ holds its layouts

LAYOUTS = (*Tschak.layouts, kind_layout(KV, "floor.kv"))
FIGURE = 48  # px: a card's number, the figure a team is counted by (34 px of ink)
TIGHT_FIGURE = 42  # a team with a misplay to own up to: 30 px of ink, a card a line
TOTALS = sp(44)  # the running totals' figures: 31 px of digits
LINE = sp(30)  # the hint line's words (floor.kv): 21 px of capitals


class TeamPanel(Seated, BoxLayout):
    """One player's team on the floor being entered, in the player's colour: the cards
    entered (a tap takes one back), the empty slots (a tap adds a card), whether the
    team is complete or wrong, and whether it takes the misplay penalty."""

    layouts = LAYOUTS

    player = StringProperty("")
    selected = BooleanProperty(False)
    status_text = StringProperty("")
    misplay_text = StringProperty("")
    show_status = BooleanProperty(False)  # the trophies' last card has a line of its own
    roomy = BooleanProperty(True)  # three teams or fewer: an empty slot says what to do
    crowded = BooleanProperty(False)  # four teams under the running totals: a card a line

    def show(self, team: TeamView, trophies: bool) -> None:
        self.player = team.player
        self.seat(team.label, team.colour)
        self.selected = team.selected
        player = team.player
        shown: list[tuple[CardView | None, Callable[[], Any], bool]] = [
            (card, partial(ask_take_back, player, i, card), False)
            for i, card in enumerate(team.cards)
        ]
        if trophies and team.known is not None and not team.cards:
            shown.append((team.known, partial(self.pick, player), True))
        while len(shown) < team.slots:
            shown.append((None, partial(self.pick, player), False))
        # a word on one line, four teams side by side (the hint line says the rest: what
        # is wrong, who takes the penalty)
        if team.misplay:
            self.misplay_text = _("Penalty")
        elif team.state == "illegal":
            self.misplay_text = _("Misplay?")
        else:
            self.misplay_text = ""
        for widget, (card, action, faded) in zip(
            sync(self.ids.cards, len(shown), CardChip), shown, strict=True
        ):
            widget.set_card(card, _("Tap or scan") if self.roomy else "")
            # a misplay to own up to takes a card's room, and so do the running totals
            # under four narrow teams: a line for each card (its weapon is in the
            # verdict's reasons), its number still at the table's size
            widget.figure_size = TIGHT_FIGURE if self.misplay_text else FIGURE
            if (self.misplay_text or self.crowded) and card is not None:
                widget.label_text = f"[b]{escape_markup(card.title)}[/b]"
            widget.action = action
            widget.faded = faded
        self.show_status = trophies
        if trophies:
            if team.cards:
                self.status_text = _("last card")
            elif team.known is not None:
                self.status_text = _("known from the hand")
            else:
                self.status_text = _("scan the last card")
        elif team.state == "complete":
            self.status_text = _("team complete")
        elif team.state == "illegal":
            self.status_text = team.problem  # (the misplay button says it)
        else:
            n = len(team.cards)
            self.status_text = _("{n} of {slots} cards").format(n=n, slots=team.slots)

    def pick(self, player: str) -> None:
        open_hero_picker(player)

    def choose(self) -> None:
        ctl().select(self.player)

    def toggle_misplay(self) -> None:
        ctl().toggle_misplay(self.player)


def ask_take_back(player: str, index: int, card: CardView) -> None:
    """A tap on a laid card: taken back once the table confirms (a finger that only
    brushed it takes nothing)."""
    app().ask(
        _("Take {card} back from {player}'s team?").format(
            card=card.words, player=player_name(player, capital=True)
        ),
        _("Yes, take it back"),
        partial(take_back, player, index, card.notation),
        tied=False,  # the question is tied to the card itself (take_back)
    )


def take_back(player: str, index: int, notation: str) -> None:
    """The card taken back, if it still lies where it was asked about."""
    c = ctl()
    team = c.teams.get(player, []) if c.phase == "floor" else []
    if c.phase == "trophies" and c.last_cards.get(player) == notation:
        c.remove_card(player, 0)
    elif index < len(team) and team[index] == notation:
        c.remove_card(player, index)
    else:
        app().status.text = _("The table changed meanwhile: nothing was done")


def prize(arrow: str, words: str) -> str:
    """A prize of the floor as its line shows it: the arrow (Roboto has none), the card."""
    return f"[font=DejaVuSans]{arrow}[/font] {escape_markup(words)}"


def running(totals: str, room: float) -> str:
    """The running totals (the view's line: "Running totals (VP): R 3 · Y −1") as the
    hint line draws them, in markup: the scores at a figure's size, the size the whole
    table reads them at, after the words at the line's when ``room`` (px) holds both
    (two players' names are long: the scores alone then, in the totals' colour)."""
    if not totals:
        return ""
    words = _("Running totals (VP): {scores}").split("{scores}")[0]
    if not totals.startswith(words):
        return escape_markup(totals)
    scores = f"[size={int(TOTALS)}]{escape_markup(totals[len(words) :])}[/size]"
    whole = escape_markup(words) + scores
    return whole if text_extent({"text": whole, "markup": True}, LINE, None)[0] <= room else scores


def open_hero_picker(player: str) -> None:
    c = ctl()
    cards = [card_view(n) for n in c.hand_choices(player)]
    title = _("{player}: which card?").format(player=player_name(player, capital=True))
    CardPicker(title, cards, lambda n: c.add_card(n, player)).open()


class TschakFloorScreen(TschakScreen):
    """A floor's teams (or the trophies' last cards): a panel per player."""

    layouts = LAYOUTS

    monster_text = StringProperty("")
    treasure_text = StringProperty("")
    trophies = BooleanProperty(False)
    can_resolve = BooleanProperty(False)
    resolve_text = StringProperty("")
    totals_text = StringProperty("")  # the running totals as the hint line draws them
    show_totals = BooleanProperty(False)
    wrong = StringProperty("")  # what is wrong, where the totals gave way to it

    def show_tschak(self, view: TschakView) -> None:
        super().show_tschak(view)
        self.on_width()
        # a misplay on the floor: the line says what is wrong (the totals come back after
        # it), and the team's cards keep their figures' room
        misplay = any(t.misplay or t.state == "illegal" for t in view.teams)
        self.show_totals = bool(view.totals) and not misplay
        wrong = next((t for t in view.teams if t.state == "illegal"), None)
        self.wrong = (
            _("{player}: {problem}").format(player=wrong.label, problem=wrong.problem)
            if view.totals and wrong is not None
            else ""
        )
        self.trophies = view.phase == "trophies"
        self.can_resolve = view.can_resolve
        if self.trophies:
            self.resolve_text = _("Award the trophies")
            self.monster_text = self.treasure_text = ""
        else:
            self.resolve_text = _("Resolve floor {floor}").format(floor=view.floor)
            current = next((f for f in view.floors if f.current), None)
            if current is not None and current.monster and current.treasure:
                # the prizes in the tower's colours, the strongest's (gold) first: an
                # arrow up for the strongest team, down for the weakest (the tower's screen
                # says it in words), so that both fit one line in every language
                self.treasure_text = prize("\u25b2", current.treasure.words)
                self.monster_text = prize("\u25bc", current.monster.words)
        for panel, team in zip(
            sync(self.ids.teams, len(view.teams), TeamPanel), view.teams, strict=True
        ):
            panel.roomy = len(view.teams) <= 3  # four: a "+" alone (the hint line says it)
            panel.crowded = not panel.roomy and self.show_totals
            panel.show(team, self.trophies)

    def on_width(self, *args: Any) -> None:
        """The running totals fitted to the line under the teams (the screen's width
        less its padding)."""
        self.totals_text = running(self.totals, self.width - dp(8))

    def resolve(self) -> None:
        if not self.aimed():
            return
        if self.trophies:
            ctl().resolve_trophies()
        else:
            ctl().resolve_floor()
