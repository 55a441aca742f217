"""Every game in the database, newest first; a tap opens its ranking and charts.
Layout in kv/pastgames.kv."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from kivy.metrics import dp
from kivy.properties import StringProperty
from kivy.uix.button import Button
from kivy.uix.label import Label
from kivy.uix.screenmanager import Screen

from companion.archive import GameSummary
from companion.i18n import _, ngettext, player_name
from companion.ui.colours import letter
from companion.ui.layouts import Layout
from companion.ui.screens.kit import GAME_STATUS, app, edition_title, game_date


class PastGamesScreen(Layout, Screen):
    """Every game in the database, newest first: when, which box, who played, who won,
    and how it ended. A tap opens that game's ranking and audit."""

    layouts = ("pastgames.kv",)

    summary = StringProperty("")

    def on_pre_enter(self, *args: Any) -> None:
        self.refresh()

    def refresh(self) -> None:
        games = list(reversed(app().archive.games()))
        self.summary = ngettext("{n} game", "{n} games", len(games)).format(n=len(games))
        grid = self.ids.games
        grid.clear_widgets()
        for g in games:
            grid.add_widget(game_button(past_game_text(g), partial(app().open_past_game, g.id)))
        if not games:
            grid.add_widget(Label(text=_("No games yet."), font_size="26sp",
                                  size_hint_y=None, height=dp(64)))  # fmt: skip


def game_button(text: str, on_press: Callable[[], Any]) -> Button:
    """A past game as a button in the table's words (26 px), as high as its lines."""
    button = Button(text=text, font_size="26sp", size_hint_y=None, height=dp(72),
                    halign="left", valign="middle", line_height=0.95, background_normal="",
                    background_color=(0.25, 0.27, 0.32, 1))  # fmt: skip
    button.bind(width=lambda b, width: setattr(b, "text_size", (width - dp(20), None)))
    button.bind(texture_size=lambda b, size: setattr(b, "height", max(dp(72), size[1] + dp(16))))
    button.bind(on_release=lambda b: on_press())
    return button


def past_game_text(g: GameSummary) -> str:
    """One past game on two lines: number, date, box, how it ended; players and winner."""
    status = _(GAME_STATUS.get(g.status or "", g.status or ""))
    if g.key_lost:
        status = _("abandoned, key lost: unprovable")
    when, box = game_date(g.created_at or ""), edition_title(g.edition or "")
    first = f"#{g.id} · {when} · {box} · {status}"
    players = ", ".join(player_name(p) for p in g.players)
    ranking = g.ranking or ()
    if ranking:
        winner = _("{player} wins — {score}").format(
            player=player_name(ranking[0].player, capital=True), score=ranking[0].score
        )
        many = len(ranking) > 4  # five or six: the others by their letters, on one line
        others = ", ".join(f"{letter(r.player) if many else player_name(r.player)} {r.score}"
                           for r in ranking[1:])  # fmt: skip
        return f"{first}\n{winner}" + (f" · {others}" if others else "")
    return f"{first}\n{players}"
