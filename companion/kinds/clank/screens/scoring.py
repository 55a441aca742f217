"""The end of a game: the winner, each player's total and breakdown, the decks scanned
(or added by hand), the proof so far (not the one to photograph while the decks are being
scanned), and the final proof once the table closes the game. Layout in the kind's kv/scoring.kv."""

from __future__ import annotations

import math
from collections import Counter
from functools import partial
from typing import Any

from kivy.metrics import dp
from kivy.properties import ListProperty, StringProperty
from kivy.uix.button import Button
from kivy.uix.label import Label
from kivy.uix.screenmanager import Screen

from companion.i18n import _, ed_, ngettext, player_name
from companion.kinds.clank.screens.choices import catalog_components
from companion.kinds.clank.screens.shown import ClankScreen, clank
from companion.kinds.clank.view import TableView
from companion.ui.colours import colour, letter, text_colour
from companion.ui.drawn import text_extent
from companion.ui.figures import CROWDED, TEXT, WatchedFigure, around, figure_size
from companion.ui.layouts import Layout, kind_layout
from companion.ui.qr import ProofView
from companion.ui.screens.kit import grouped, part_name, proof_data, table_button
from companion.ui.screens.popups import Picker
from companion.ui.widgets import FitLabel

KV = "companion.kinds.clank"  # the package whose kv/ holds its layouts


class ScoringScreen(Layout, ClankScreen, Screen):
    """The end as an event: the winner first and large, each player's total on their
    button, the chosen player's breakdown and deck (scanned or added by hand), and the
    proof so far: every deck scanned moves the chain head on, so it is said not to be
    final (a tap shows it full screen, marked so). Close game writes the close record and
    shows the final proof full screen (``close_game``)."""

    layouts = ("proof.kv", kind_layout(KV, "scoring.kv"))

    player = StringProperty("")
    winner_text = StringProperty("")  # the winner in one sentence ("Red wins — 39")
    winner_words = StringProperty("")  # its words, drawn beside its figure ("Red wins —")
    winner_score = StringProperty("")  # its figure ("39")
    tie_text = StringProperty("")  # how a tie for the first place was broken
    winner_swatch = ListProperty([0.3, 0.3, 0.35, 1])
    winner_ink = ListProperty([1, 1, 1, 1])
    heading = StringProperty("")
    reason_text = StringProperty("")  # why the chosen player scores nothing
    parts = ListProperty([])  # the chosen player's parts that count: (words, figure)
    notes_text = StringProperty("")
    ranking_text = StringProperty("")
    seed_text = StringProperty("")
    head_text = StringProperty("")  # the chain head so far in full, in groups of 8
    qr_data = StringProperty("")  # the proof so far, as its QR code holds it ("final": false)
    players = ListProperty([])

    def __init__(self, **kwargs: Any) -> None:
        self._proof: ProofView | None = None  # the proof so far, while it is shown
        # the players' buttons: the button, its figure, its words from the longest
        self._names: list[tuple[Button, WatchedFigure, tuple[str, ...]]] = []
        super().__init__(**kwargs)
        deck = self.ids.deck
        deck.fbind("width", lambda *args: even_rows(deck))

    def redraw(self, view: TableView | None = None) -> None:
        if view is None:
            view = clank().view()
        if not view.players:
            return
        self.players = [p.name for p in view.players]
        self.player = view.scoring or self.players[0]
        self._show_winner(view)
        self._show_player(view)
        self._show_selector(view)
        self._show_proof(view)

    def _show_winner(self, view: Any) -> None:
        ranking = view.ranking
        if not ranking:
            self.winner_text = ""
            return
        first = ranking[0]
        self.winner_text = _("{player} wins — {score}").format(
            player=player_name(first.player, capital=True), score=first.score
        )
        self.winner_score = str(first.score)
        before, after = around(self.winner_text, self.winner_score)
        self.winner_words = " ".join(w for w in (before, after) if w)
        self.tie_text = ""
        if len(ranking) > 1 and ranking[1].score == first.score:
            self.tie_text = _("(tie broken by the best artifact)")
            self.winner_text += "  " + self.tie_text
        self.winner_swatch = list(colour(first.player))
        self.winner_ink = list(text_colour(first.player))
        rows = []
        for r in ranking:
            tied = [o for o in ranking if o.score == r.score and o is not r]
            note = _(" (tie broken by the best artifact)") if tied else ""
            rows.append(
                _("{place}. {player}: {score} VP").format(
                    place=r.place, player=player_name(r.player, capital=True), score=r.score
                )
                + note
            )
        self.ranking_text = "\n".join(rows)

    def _show_player(self, view: TableView) -> None:
        ctl = clank()
        score = next((s for s in view.scores if s.player == self.player), None)
        cards = list(score.deck) if score is not None else []
        self.heading = ngettext(
            "{player}: {n} card (a tap takes one out)",
            "{player}: {n} cards (a tap takes one out)",
            len(cards),
        ).format(player=player_name(self.player, capital=True), n=len(cards))
        edition = view.edition
        reasons = {
            "no artifact": _("no artifact"),
            "knocked out in the Depths": ed_(edition, "knocked out in the Depths"),
        }
        reason = score.reason if score is not None and not score.qualifies else None
        self.reason_text = "" if reason is None else reasons.get(reason, reason)
        # the parts that count (a zero says nothing; none when the player scores
        # nothing); the total is on the player's button above
        parts = score.parts if score is not None and reason is None else ()
        self.parts = [(part_name(k, edition), v) for k, v in parts if v]
        self._show_parts(figure_size(len(view.players)))
        self.notes_text = "\n".join(score.notes) if score is not None else ""
        grid = self.ids.deck
        grid.clear_widgets()
        for name, n in sorted(Counter(cards).items()):
            grid.add_widget(
                table_button(  # a card's name whole, on two lines or more if it must
                    f"{name} ×{n}" if n > 1 else name,
                    partial(ctl.remove_from_deck, name),
                    size_hint_y=1,  # as tall as its row
                )
            )
        even_rows(grid)

    def _show_parts(self, size: float) -> None:
        """The breakdown's rows: each part's words, its figure on the right (the figures
        right-aligned, as wide as the widest)."""
        grid = self.ids.parts
        grid.clear_widgets()
        height = round(size * 1.17)  # a figure's line: five fit the screen at 2-4 players
        figures = []
        for words, value in self.parts:
            name = FitLabel(text=words, full_font_size=TEXT, min_font_size=TEXT,
                            halign="left", valign="middle", shorten=True,
                            size_hint_y=None, height=height)  # fmt: skip
            name.bind(size=lambda w, size: setattr(w, "text_size", size))
            grid.add_widget(name)
            figure = WatchedFigure(text=str(value), font_size=size, bold=True,
                                   halign="right", valign="middle", size_hint=(None, None),
                                   height=height)  # fmt: skip
            figure.texture_update()
            figures.append(figure)
            grid.add_widget(figure)
        widest = max((f.texture_size[0] for f in figures), default=0)
        for figure in figures:
            figure.width = widest
            figure.text_size = (widest, None)

    def _show_selector(self, view: Any) -> None:
        ctl = clank()
        selector = self.ids.selector
        selector.clear_widgets()
        size = figure_size(len(view.players))
        self._names = []
        for p in view.players:
            score = p.score if p.score is not None else 0
            chosen = p.name == self.player
            named = player_name(p.name, capital=True)
            # the words on a player's button, the first that fits every button
            names = (letter(p.name),) if len(view.players) >= CROWDED else (
                f"{letter(p.name)} · {named}", named, letter(p.name))  # fmt: skip
            button = table_button(
                names[0],
                partial(ctl.score_player, p.name),
                background_color=colour(p.name) if chosen else _dim(colour(p.name)),
                color=text_colour(p.name) if chosen else (1, 1, 1, 1),
                bold=chosen,
                height=dp(52),
            )
            button.meaning = f"score {p.name}"  # its move, whatever the total it shows
            figure = with_figure(button, str(score), size)
            # named as soon as its size is known: a screen laid out is named at once
            button.bind(size=self._name_buttons)
            self._names.append((button, figure, names))
            selector.add_widget(button)
        self._name_buttons()

    def _name_buttons(self, *args: Any) -> None:
        """Every player named alike on their button: the letter and the name, else the
        name alone, else the letter (the button's colour names them too), the first
        that fits beside the figure on every button."""
        if not self._names:
            return
        levels = min(len(names) for _b, _f, names in self._names)
        level = next((i for i in range(levels)
                      if all(fits_beside(b, f, names[i]) for b, f, names in self._names)),
                     levels - 1)  # fmt: skip
        for button, _figure, names in self._names:
            button.text = names[level]

    def _show_proof(self, view: TableView) -> None:
        seed = view.server_seed or ""
        self.seed_text = grouped(seed, per_line=2)
        head = view.head
        self.head_text = grouped(head, per_line=2)
        self.qr_data = proof_data(
            view.game, view.commitment, seed, view.client_seed, head, final=False
        )
        if self._proof is not None:  # shown while a deck is scanned: it follows
            self._proof.show(self.qr_data, self.seed_text, self.head_text)

    def show_proof(self) -> None:
        """The proof so far full screen (the QR code, the seed and the chain head in full),
        said not to be final."""
        proof = ProofView(self.qr_data, self.seed_text, self.head_text, final=False)
        proof.bind(on_dismiss=self._proof_gone)
        self._proof = proof
        proof.open()

    def _proof_gone(self, proof: ProofView) -> None:
        if self._proof is proof:
            self._proof = None

    def close_game(self) -> None:
        """Close game, confirmed: the controller writes the close record (nothing can be
        written after it) and the table moves on to the new-game screen; over it the final
        proof shows full screen, read back from the closed log (its chain head is the log's
        last hash), until the table taps Done. A close refused shows no proof (the status
        line says why)."""
        ctl = clank()
        game = ctl.game_id
        if game is None or ctl.phase != "scoring":
            return
        client_seed = ctl.view().client_seed  # the seed in force (the close leaves it)
        if self._proof is not None:
            self._proof.dismiss(animation=False)
        if not ctl.close_game():
            return
        final_proof(ctl, game, client_seed).open()

    def add_card(self) -> None:
        ctl = clank()
        edition = ctl.edition
        picks = catalog_components(
            edition, cards=("starter", "reserve", "dungeon", "promo"), tokens=False
        )
        Picker(
            _("Add a card to {player}'s deck").format(player=player_name(self.player)),
            [(c.name, partial(ctl.add_to_deck, c.name)) for c in picks],
        ).open()


def final_proof(ctl: Any, game: int, client_seed: str) -> ProofView:
    """The proof of a closed game as its log holds it: the commitment and the revealed seed
    from the games table, the chain head read back after the close record (the export's
    last hash)."""
    row = ctl.store.game_row(game)
    seed = row.get("server_seed") or ""
    head = ctl.store.chain_head(game)
    final = bool(row.get("closed"))
    data = proof_data(game, row.get("commitment") or "", seed, client_seed, head, final=final)
    return ProofView(data, grouped(seed, per_line=2), grouped(head, per_line=2), final=final)


def with_figure(button: Button, figure: str, size: float) -> WatchedFigure:
    """A button's words on its left and a figure on its right, drawn apart at the size
    the table reads (the button's text stays its words: what a finger reads, and what
    the settle rule sees)."""
    total = WatchedFigure(text=figure, font_size=size, bold=True, color=button.color,
                          size_hint=(None, None))  # fmt: skip
    button.add_widget(total)

    def place(*args: Any) -> None:
        width = figure_width(total)
        total.size = (width, button.height)
        # x + width, not right: right follows a new width after this does
        total.pos = (button.x + button.width - width - dp(12), button.y)
        button.padding = (dp(8), 0, width + dp(24), 0)
        button.text_size = (button.width, button.height)

    button.bind(pos=place, size=place)
    total.bind(texture_size=place)
    return total


def fits_beside(button: Button, figure: WatchedFigure, words: str) -> bool:
    """Whether ``words`` fit a button on one line beside its figure."""
    options = {k: getattr(button, k) for k in Label._font_properties}
    room = button.width - figure_width(figure) - dp(36)
    return text_extent({**options, "text": words}, button.font_size, None)[0] <= room


def figure_width(figure: WatchedFigure) -> float:
    """The width a button's figure takes, from its words and font alone (not from a
    texture or a size a layout may not have set yet: a screen built afresh and the live
    one pick the same words)."""
    options = {k: getattr(figure, k) for k in Label._font_properties}
    return math.ceil(text_extent(options, figure.font_size, None)[0])


def even_rows(grid: Any) -> None:
    """The deck's rows each as tall as the words of its tallest button need, wrapped at
    a column's width (a long card name takes three lines in a narrow column), 64 px at
    least; the buttons of a row alike (the screen finds them again as its width
    changes)."""
    left, _top, right, _bottom = grid.padding
    column = (grid.width - left - right - grid.spacing[0] * (grid.cols - 1)) / grid.cols
    rows: dict[int, float] = {}
    for i, button in enumerate(reversed(grid.children)):
        options = {k: getattr(button, k) for k in Label._font_properties}
        words = text_extent(options, button.font_size, max(1.0, column - 8))[1]
        row = i // grid.cols
        rows[row] = max(rows.get(row, dp(64)), math.ceil(words) + dp(12))
    grid.rows_minimum = rows


def _dim(rgba: tuple[float, ...]) -> tuple[float, float, float, float]:
    """A player's colour, dimmed towards the background (a button not chosen)."""
    base = (0.14, 0.15, 0.18)
    return (*(base[i] + (rgba[i] - base[i]) * 0.45 for i in range(3)), 1)  # type: ignore[return-value]
