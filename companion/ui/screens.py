"""The screens around the table: opening and fairness, scoring, audit, tags, settings,
and the pop-ups (component picker, a player's actions, the menu).

Layout lives in kv/*.kv; the behaviour here only calls the controller (or the tag
registry) and redraws from what it reports.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import os
import secrets
from collections import Counter
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from kivy.app import App
from kivy.clock import Clock
from kivy.properties import (
    BooleanProperty,
    ListProperty,
    NumericProperty,
    ObjectProperty,
    StringProperty,
)
from kivy.uix.button import Button
from kivy.uix.gridlayout import GridLayout
from kivy.uix.label import Label
from kivy.uix.modalview import ModalView
from kivy.uix.screenmanager import Screen

from companion.config import LANGUAGES
from companion.i18n import N_, Msg, _, ed_, localized, ngettext, pgettext, player_name
from companion.pin import MAX_DIGITS, Lockout, hash_pin
from companion.store.tags import BulkEnrollment, Component, TagError, components, resolve
from companion.ui.colours import colour, letter, text_colour
from companion.ui.layouts import Layout
from companion.ui.qr import ProofView
from companion.verify_log import EXIT_NOT_PROVABLY_FAIR
from companion.view import DrawView, GameSummary, Offer, TableView

LANGUAGE_NAMES = {"en": "English", "ru": "Русский", "uk": "Українська", "es": "Español"}


def app() -> Any:
    return App.get_running_app()


def big_button(text: str, on_press: Callable[[], Any], **kwargs: Any) -> Button:
    """A button a finger finds at arm's length: 56 px high (about 11 mm on the 7" screen)."""
    options: dict[str, Any] = {
        "text": text,
        "size_hint_y": None,
        "height": 56,
        "font_size": "17sp",
        "halign": "center",
        "valign": "middle",
        "shorten": True,
        "background_normal": "",
        "background_color": (0.25, 0.27, 0.32, 1),
    }
    options.update(kwargs)
    button = Button(**options)
    button.bind(size=lambda b, size: setattr(b, "text_size", (size[0] - 8, size[1])))
    button.bind(on_release=lambda b: on_press())
    return button


def grouped(digits: str, per_line: int = 4) -> str:
    """A hash to read aloud or photograph: groups of 8 digits, ``per_line`` to a line
    (64 hex digits: two lines of four groups)."""
    groups = [digits[i : i + 8] for i in range(0, len(digits), 8)]
    return "\n".join(" ".join(groups[i : i + per_line]) for i in range(0, len(groups), per_line))


def export_folder() -> Path:
    """A USB stick if one is mounted (/media/<user>/<stick>), else the data folder."""
    for base in (Path("/media"), Path("/run/media")):
        if base.is_dir():
            for user in sorted(base.iterdir()):
                sticks = sorted(p for p in user.iterdir() if p.is_dir()) if user.is_dir() else []
                for stick in sticks:
                    if os.access(stick, os.W_OK):
                        return stick
    return app().controller.data_folder / "exports"


# --------------------------------------------------------------------- pop-ups
class Picker(Layout, ModalView):
    """A scrolling list of big buttons; the chosen entry's callback runs on release."""

    layouts = ("popups.kv",)

    title = StringProperty("")

    def __init__(
        self, title: str, entries: Sequence[tuple[str, Callable[[], Any]]], **kw: Any
    ) -> None:
        super().__init__(size_hint=(0.96, 0.94), **kw)
        self.title = title
        grid: GridLayout = self.ids.grid
        grid.add_widget(big_button(_("Close"), self.close, background_color=(0.4, 0.2, 0.2, 1)))
        for text, action in entries:
            grid.add_widget(big_button(text, partial(self._choose, action)))

    def close(self) -> None:
        self.dismiss(animation=False)  # gone at once: the next tap reaches the table

    def _choose(self, action: Callable[[], Any]) -> None:
        self.close()
        action()


class Confirm(Layout, ModalView):
    """A question before something that cannot be taken back: one tap never does it.
    "Cancel" and the action, far apart; the action runs on release."""

    layouts = ("popups.kv",)

    question = StringProperty("")
    note = StringProperty("")
    yes_text = StringProperty("")
    cancel_text = StringProperty("")

    def __init__(
        self, question: str, yes: str, action: Callable[[], Any], note: str = "", **kw: Any
    ) -> None:
        super().__init__(size_hint=(0.9, None), height=300, **kw)
        self.question = question
        self.note = note
        self.yes_text = yes
        self.cancel_text = _("Cancel")
        self.action = action

    def close(self) -> None:
        self.dismiss(animation=False)

    def confirm(self) -> None:
        self.close()
        self.action()


class UntaggedPicker(Layout, ModalView):
    """A revealed card without a tag: the edition's dungeon cards to pick from, with a
    search field (the on-screen keyboard in the kiosk), and at the top the two quick
    choices that only say whether the card shows the dragon-attack symbol. A picked card
    is revealed as if scanned: its Danger and its Arrive count."""

    layouts = ("popups.kv",)

    title = StringProperty("")
    query = StringProperty("")

    def __init__(self, **kw: Any) -> None:
        super().__init__(size_hint=(0.98, 0.96), **kw)
        self.title = _("Which card was revealed?")
        ctl = app().controller
        self.edition = ctl.edition
        self.cards = ctl.dungeon_cards()
        self.show_cards()

    def close(self) -> None:
        self.dismiss(animation=False)

    def on_query(self, *args: Any) -> None:
        self.show_cards()

    def matching(self) -> list[tuple[str, bool]]:
        words = self.query.casefold().replace("'", "").split()
        return [(name, dragon) for name, dragon in self.cards
                if all(w in name.casefold().replace("'", "") for w in words)]  # fmt: skip

    def show_cards(self) -> None:
        grid = self.ids.cards
        grid.clear_widgets()
        for name, dragon in self.matching():
            grid.add_widget(
                big_button(
                    name,
                    partial(self.pick, name),
                    font_size="20sp",
                    background_color=(0.45, 0.17, 0.13, 1) if dragon else (0.25, 0.27, 0.32, 1),
                )
            )
        if not grid.children:
            grid.add_widget(Label(text=_("No card has that name."), font_size="20sp",
                                  size_hint_y=None, height=56))  # fmt: skip

    def pick(self, name: str) -> None:
        self.close()
        app().controller.scan_component(resolve("card", self.edition, name))

    def untagged(self, dragon: bool) -> None:
        self.close()
        app().controller.reveal_untagged(dragon)


def component_label(c: Component) -> str:
    if c.kind == "card":
        return c.name
    kinds = {
        "artifact": _("Artifact {name}"),
        "major_secret": ed_(c.edition, "Secret: {name}"),
        "minor_secret": ed_(c.edition, "Secret: {name}"),
        "market": ed_(c.edition, "Market: {name}"),
        "special": _("{name}"),
        "prisoner": _("Prisoner: {name}"),
    }
    return kinds.get(c.kind, "{name}").format(name=c.name)


def distinct(found: list[Component]) -> list[Component]:
    seen: set[Component] = set()
    out = []
    for c in found:
        if c not in seen:
            seen.add(c)
            out.append(c)
    return out


def catalog_components(edition: str, *, cards: tuple[str, ...], tokens: bool) -> list[Component]:
    kinds: tuple[str, ...] = ("card",)
    if tokens:
        kinds = ("artifact", "major_secret", "minor_secret", "market", "special", "card")
        if edition == "catacombs":
            kinds += ("prisoner",)
    return distinct(components(edition, kinds, cards, party=True))


def player_actions(player: str) -> list[tuple[str, Callable[[], Any]]]:
    """What a player can do beyond clank, two taps from their panel: only what the rules
    allow now (the controller's offers), each in the table's words."""
    ctl = app().controller
    edition = ctl.edition
    return [(offer_label(o, edition), partial(ctl.do, dict(o.action)))
            for o in ctl.offers(player)]  # fmt: skip


def offer_label(o: Offer, edition: str) -> str:
    if o.what == "gold":
        labels = {1: _("Gold +1"), 2: _("Gold +2"), 5: _("Gold +5"), -1: _("Gold −1"),
                  -7: _("Gold −7")}  # fmt: skip
        return labels.get(o.n, f"{o.n:+d}")
    if o.what == "damage":
        return _("Take 1 damage")
    if o.what == "heal":
        return _("Heal 1")
    if o.what == "depths":
        return ed_(edition, "Enter the Depths") if o.n else ed_(edition, "Leave the Depths")
    if o.what == "escape":
        return _("Escape with an artifact")
    if o.what == "artifact":
        return _("Artifact {name}").format(name=o.n)
    if o.what == "secret":
        return ed_(edition, "Secret: {name}").format(name=o.name)
    if o.what == "buy":
        return _("Buy {name} ({price} gold)").format(name=o.name, price=o.n)
    if o.what == "token":
        return ed_(edition, "Monkey idol") if o.name == "monkey idol" else o.name
    if o.what == "shrine":
        return _("Mark a wayshrine")
    if o.what == "ghost":
        return _("A ghost appears")
    if o.what == "prisoner":
        return _("Free prisoner: {name}").format(name=o.name)
    return o.what


def docked_keyboard_height() -> float:
    """The height of Kivy's on-screen keyboard docked at the bottom (the kiosk), else 0."""
    from kivy.core.window import Window
    from kivy.uix.vkeyboard import VKeyboard

    if not getattr(Window, "docked_vkeyboard", False):
        return 0
    return max((w.height * w.scale for w in Window.children if isinstance(w, VKeyboard)),
               default=0)  # fmt: skip


# --------------------------------------------------------------------- opening
class OpeningScreen(Layout, Screen):
    """Set-up checklist, the commitment (text and QR), the opening row, the seed words."""

    layouts = ("opening.kv",)

    checklist = StringProperty("")
    commitment = StringProperty("")
    commitment_text = StringProperty("")  # all 64 digits, in groups of 8
    row_text = StringProperty("")
    seed_text = StringProperty("")

    def redraw(self, view: TableView) -> None:
        ctl = app().controller
        self.checklist = "\n".join(f"• {line}" for line in ctl.checklist())
        self.commitment = view.commitment
        self.commitment_text = grouped(view.commitment, per_line=2)
        row = list(view.opening or ())
        self.row_text = _("Opening row ({n} of {size}): {cards}").format(
            n=len(row),
            size=view.row_size,
            cards=", ".join(row) or _("scan the cards as you deal them"),
        )
        seed = ctl.client_seed()
        self.seed_text = _("Client seed: {seed}").format(seed=seed or _("(empty)"))
        words = self.ids.words
        if words.text != view.words and not words.focus:
            words.text = view.words

    keyboard_room = NumericProperty(0)  # the on-screen keyboard's height, while typing

    def typing(self, focused: bool) -> None:
        """The words field took (or left) the focus: in the kiosk, Kivy's on-screen
        keyboard docks at the bottom; the field moves up above it."""
        Clock.schedule_once(lambda dt: self._make_room(focused), 0)

    def _make_room(self, focused: bool) -> None:
        height = docked_keyboard_height() if focused else 0
        self.keyboard_room = max(0, height - self.to_window(self.x, self.y)[1])

    def words_changed(self, text: str) -> None:
        ctl = app().controller
        if ctl.opening is not None and text != ctl.words:
            ctl.set_words(text)
            self.seed_text = _("Client seed: {seed}").format(seed=ctl.client_seed() or "-")


# --------------------------------------------------------------------- scoring
class ScoringScreen(Layout, Screen):
    """The end as an event: the winner first and large, each player's total on their
    button, the chosen player's breakdown and deck (scanned or added by hand), and the
    verification data as a QR code that a tap shows full screen."""

    layouts = ("scoring.kv",)

    player = StringProperty("")
    winner_text = StringProperty("")
    winner_swatch = ListProperty([0.3, 0.3, 0.35, 1])
    winner_ink = ListProperty([1, 1, 1, 1])
    heading = StringProperty("")
    place_text = StringProperty("")
    parts_text = StringProperty("")
    notes_text = StringProperty("")
    ranking_text = StringProperty("")
    seed_text = StringProperty("")
    head_text = StringProperty("")  # the chain head in full, in groups of 8
    qr_data = StringProperty("")
    players = ListProperty([])

    def redraw(self, view: TableView | None = None) -> None:
        if view is None:
            view = app().controller.view()
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
        if len(ranking) > 1 and ranking[1].score == first.score:
            self.winner_text += "  " + _("(tie broken by the best artifact)")
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
        ctl = app().controller
        score = next((s for s in view.scores if s.player == self.player), None)
        cards = list(score.deck) if score is not None else []
        self.heading = ngettext(
            "{player}: {n} card scanned. Tap a card to take it out.",
            "{player}: {n} cards scanned. Tap a card to take it out.",
            len(cards),
        ).format(player=player_name(self.player, capital=True), n=len(cards))
        place = next((r for r in view.ranking if r.player == self.player), None)
        self.place_text = (
            _("{place}. {player}: {score} VP").format(
                place=place.place, player=player_name(self.player, capital=True), score=place.score
            )
            if place is not None
            else player_name(self.player, capital=True)
        )
        edition = view.edition
        reasons = {
            "no artifact": _("no artifact"),
            "knocked out in the Depths": ed_(edition, "knocked out in the Depths"),
        }
        parts = score.parts if score is not None else ()
        lines = [f"{part_name(k, edition)}: {v}" for k, v in parts]
        if score is not None and not score.qualifies:
            lines.insert(0, f"[color=ff8866]{reasons.get(score.reason, score.reason)}[/color]")
        total = _("Total")
        lines.append(f"[b]{total}: {score.total if score is not None else 0}[/b]")
        self.parts_text = "\n".join(lines)
        self.notes_text = "\n".join(score.notes) if score is not None else ""
        grid = self.ids.deck
        grid.clear_widgets()
        for name, n in sorted(Counter(cards).items()):
            grid.add_widget(
                big_button(
                    f"{name} ×{n}" if n > 1 else name,
                    partial(ctl.remove_from_deck, name),
                    height=48,
                    font_size="20sp",
                )
            )

    def _show_selector(self, view: Any) -> None:
        ctl = app().controller
        selector = self.ids.selector
        selector.clear_widgets()
        compact = len(view.players) > 4
        for p in view.players:
            score = p.score if p.score is not None else 0
            chosen = p.name == self.player
            who = (
                letter(p.name)
                if compact
                else f"{letter(p.name)} · " + player_name(p.name, capital=True)
            )
            selector.add_widget(
                big_button(
                    who + "\n" + _("{score} VP").format(score=score),
                    partial(ctl.score_player, p.name),
                    background_color=colour(p.name) if chosen else _dim(colour(p.name)),
                    color=text_colour(p.name) if chosen else (1, 1, 1, 1),
                    bold=chosen,
                    height=56,
                    font_size="20sp",
                    shorten=False,
                    line_height=0.95,
                )
            )

    def _show_proof(self, view: TableView) -> None:
        seed = view.server_seed or ""
        self.seed_text = grouped(seed, per_line=2)
        game = view.game
        head = view.head
        self.head_text = grouped(head, per_line=2)
        self.qr_data = proof_data(game, view.commitment, seed, view.client_seed, head)

    def show_proof(self) -> None:
        """The QR code full screen, with the seed and the chain head in full."""
        ProofView(self.qr_data, self.seed_text, self.head_text).open()

    def add_card(self) -> None:
        ctl = app().controller
        edition = ctl.edition
        picks = catalog_components(
            edition, cards=("starter", "reserve", "dungeon", "promo"), tokens=False
        )
        Picker(
            _("Add a card to {player}'s deck").format(player=player_name(self.player)),
            [(c.name, partial(ctl.add_to_deck, c.name)) for c in picks],
        ).open()


def part_name(part: str, edition: str) -> str:
    """A part of a score ("artifacts", "gold", ...) as the scoring screen and the charts
    name it."""
    names = {
        "artifacts": _("Artifacts"),
        "tokens": _("Tokens"),
        "gold": _("Gold"),
        "cards": _("Cards"),
        "secrets": ed_(edition, "Secrets"),
        "prisoners": _("Prisoners"),
    }
    return names.get(part, part.replace("_", " ").capitalize())


def _dim(rgba: tuple[float, ...]) -> tuple[float, float, float, float]:
    """A player's colour, dimmed towards the background (a button not chosen)."""
    base = (0.14, 0.15, 0.18)
    return (*(base[i] + (rgba[i] - base[i]) * 0.45 for i in range(3)), 1)  # type: ignore[return-value]


def proof_data(game: int | None, commitment: str, seed: str, client_seed: str, head: str) -> str:
    """The verification data of a game, as the QR code carries it (JSON, no spaces)."""
    return json.dumps(
        {
            "game": game,
            "commitment": commitment,
            "server_seed": seed,
            "client_seed": client_seed,
            "chain_head": head,
        },
        separators=(",", ":"),
    )


# ----------------------------------------------------------------------- audit
def draw_line(d: DrawView) -> str:
    """One draw of the audit: its number, the bag before it, the cubes drawn; an undone
    draw is said to be undone (its nonce stays used: the next draw has the next one)."""
    bag = ", ".join(f"{player_name(k)} {v}" for k, v in d.bag if v)
    drawn = ", ".join(player_name(c) for c in d.drawn) or "—"
    line = _("#{nonce}: bag {bag} → drew {drawn}").format(nonce=d.nonce, bag=bag, drawn=drawn)
    if d.undone:
        return "[color=9a9ca4]" + _("{draw} (undone)").format(draw=line) + "[/color]"
    return line


def game_date(created_at: str) -> str:
    """When a game was started, in the companion's local time (to the minute)."""
    try:
        when = datetime.datetime.fromisoformat(created_at)
    except (TypeError, ValueError):
        return str(created_at)
    return when.astimezone().strftime("%Y-%m-%d %H:%M")


GAME_STATUS = {"playing": N_("running"), "over": N_("over"), "abandoned": N_("abandoned")}


def edition_title(edition: str) -> str:
    titles = {"clank": pgettext("edition", "Clank!"),
              "catacombs": pgettext("edition", "Clank! Catacombs")}  # fmt: skip
    return titles.get(edition, edition)


class AuditScreen(Layout, Screen):
    """Every draw of a game, the chain head to photograph, Verify and Export: of the
    game on the table (``game`` None), or of a past game chosen from Past games."""

    layouts = (
        "scoring.kv",
        "audit.kv",
    )

    game = ObjectProperty(None, allownone=True)
    back_to = StringProperty("")  # the screen that opened it ("": the game's own)
    title_text = StringProperty("")
    draws_text = StringProperty("")
    game_text = StringProperty("")  # the game and its commitment
    ranking_text = StringProperty("")  # a past game's ranking
    head_text = StringProperty("")  # the chain head in full, in groups of 8
    head_note = StringProperty("")
    result = StringProperty("")

    def on_pre_enter(self, *args: Any) -> None:
        self.result = ""
        self.refresh()

    def shown_game(self) -> int | None:
        return self.game if self.game is not None else app().controller.game_id

    def refresh(self) -> None:
        ctl = app().controller
        game = self.shown_game()
        self.ranking_text = ""
        if game is None:
            self.title_text = _("Audit: every draw of this game")
            self.draws_text = _("No game is open.")
            self.game_text = self.head_text = self.head_note = ""
            return
        if self.game is None:
            view = ctl.view()
            draws = view.draws
            commitment = view.commitment
            final = ctl.phase == "abandoned"  # the game on the table is closed only as it leaves
            self.title_text = _("Audit: every draw of this game")
        else:
            summary = ctl.game_summary(game)
            if summary is None:
                self.title_text = _("Audit: every draw of this game")
                self.draws_text = _("No game is open.")
                self.game_text = self.head_text = self.head_note = ""
                return
            draws = ctl.logged_draws(game)
            commitment = summary.commitment or ""
            final = summary.closed or summary.status == "abandoned"
            status = summary.status or ""
            self.title_text = _("Game {game} · {edition} · {date} · {status}").format(
                game=game,
                edition=edition_title(summary.edition or ""),
                date=game_date(summary.created_at or ""),
                status=_(GAME_STATUS.get(status, status)),
            )
            places = [
                _("{place}. {player}: {score} VP").format(
                    place=r.place, player=player_name(r.player, capital=True), score=r.score
                )  # fmt: skip
                for r in summary.ranking or ()
            ]
            self.ranking_text = "   ".join(places)
        self.draws_text = "\n".join(draw_line(d) for d in draws) or _("No draws yet.")
        self.game_text = _("Game {game} · commitment {commitment}").format(
            game=game, commitment=commitment
        )
        self.head_text = grouped(ctl.chain_head(game))
        self.head_note = (
            _("Final chain head. Photograph this: it proves the game was not rewritten later")
            if final
            else _("Chain head so far: it is final once the game is closed")
        )

    def back(self) -> None:
        if self.back_to:
            app().show_screen(self.back_to)
        elif self.game is not None:
            app().show_screen("pastgames")
        else:
            app().show_screen(app().home_screen())

    def verify(self) -> None:
        game = self.shown_game()
        if game is None:
            return
        check = app().controller.verify(game)
        if not check.ok:
            self.result = _("NOT verified: {message}").format(message=localized(check.message))
            return
        message = check.message
        detail = message.params.get("detail") if isinstance(message, Msg) else None
        shown = localized(detail) if detail is not None else ""
        if check.status == EXIT_NOT_PROVABLY_FAIR:
            self.result = _("Not provably fair: {detail}").format(detail=shown)
            return
        self.result = ngettext(
            "Verified: {n} record chained; {detail}",
            "Verified: {n} records chained; {detail}",
            check.records,
        ).format(n=check.records, detail=shown)

    def export(self) -> None:
        game = self.shown_game()
        if game is None:
            return
        folder = export_folder()
        target = folder / f"clank-game-{game}.jsonl"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            with open(target, "w", encoding="utf-8") as out:
                count = app().controller.export(game, out)
        except OSError as e:
            self.result = _("Export failed: {reason}").format(reason=e.strerror or e)
            return
        where = _("the USB stick") if _on_stick(folder) else _("the companion's exports folder")
        self.result = ngettext(
            "Exported {n} record to {where}: {name}",
            "Exported {n} records to {where}: {name}",
            count,
        ).format(n=count, where=where, name=target.name)
        summary = app().controller.game_summary(game)
        if summary is None or summary.status != "over":
            return
        results = folder / f"clank-game-{game}-results.csv"  # for spreadsheets
        try:
            with open(results, "w", encoding="utf-8", newline="") as out:
                app().controller.results_csv(game, out)
        except (OSError, ValueError):
            results.unlink(missing_ok=True)
            return
        self.result += "\n" + _("and the results: {name}").format(name=results.name)


def _on_stick(folder: Path) -> bool:
    return folder.parts[:2] in (("/", "media"), ("/", "run"))


class PastGamesScreen(Layout, Screen):
    """Every game in the database, newest first: when, which box, who played, who won,
    and how it ended. A tap opens that game's ranking and audit."""

    layouts = ("audit.kv",)

    summary = StringProperty("")

    def on_pre_enter(self, *args: Any) -> None:
        self.refresh()

    def refresh(self) -> None:
        games = list(reversed(app().controller.games()))
        self.summary = ngettext("{n} game", "{n} games", len(games)).format(n=len(games))
        grid = self.ids.games
        grid.clear_widgets()
        for g in games:
            grid.add_widget(
                big_button(
                    past_game_text(g),
                    partial(app().open_past_game, g.id),
                    height=64,
                    font_size="20sp",
                    shorten=False,
                    halign="left",
                    line_height=0.95,
                )
            )
        if not games:
            grid.add_widget(Label(text=_("No games yet."), font_size="22sp",
                                  size_hint_y=None, height=64))  # fmt: skip


def past_game_text(g: GameSummary) -> str:
    """One past game on two lines: number, date, box, how it ended; players and winner."""
    status = _(GAME_STATUS.get(g.status or "", g.status or ""))
    if g.key_lost:
        status = _("abandoned: seal key lost, its draws can never be checked")
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


# ------------------------------------------------------------------------ tags
class TagsScreen(Layout, Screen):
    """Enroll one tag, walk a whole box (bulk), or re-bind a tag: the next scan is ours."""

    layouts = ("tags.kv",)

    mode = StringProperty("")  # "", "enroll", "rebind", "bulk"
    prompt = StringProperty("")
    summary = StringProperty("")
    edition = StringProperty("clank")

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.bulk: BulkEnrollment | None = None

    def on_pre_enter(self, *args: Any) -> None:
        ctl = app().controller
        if ctl.phase != "none":
            self.edition = ctl.edition
        self.refresh()

    def on_leave(self, *args: Any) -> None:
        self.stop()

    def refresh(self) -> None:
        count = app().controller.tag_count()
        self.summary = ngettext("{n} tag enrolled", "{n} tags enrolled", count).format(n=count)
        if self.mode == "":
            self.prompt = _("Choose what the next scans do.")

    def start(self, mode: str) -> None:
        """Listen for the next scans: "enroll", "bulk" or "rebind". Re-binding during a
        game (of Clank! or of Tschak!) changes what the table's tags mean: it needs the
        admin PIN first."""
        a = app()
        in_game = a.controller.phase in ("opening", "playing", "scoring")
        if mode == "rebind" and (in_game or a.tschak_home() is not None):
            a.ask_pin(lambda: self._start(mode), prompt=_("Admin PIN: re-bind a tag during a game"))
            return
        self._start(mode)

    def _start(self, mode: str) -> None:
        self.mode = mode
        if mode == "bulk":
            self.bulk = app().controller.bulk_enrollment(self.edition)
            self.prompt = self.bulk.progress().localized()
        elif mode == "enroll":
            self.prompt = _("Scan the new tag.")
        elif mode == "rebind":
            self.prompt = _("Scan the tag to re-bind.")

    def stop(self) -> None:
        self.mode = ""
        self.bulk = None
        self.refresh()

    def skip(self) -> None:
        if self.bulk is not None:
            self.bulk.skip()
            self.prompt = self.bulk.progress().localized()

    def scanned(self, uid: str) -> None:
        """A raw tag scan while this screen listens."""
        if self.mode == "bulk" and self.bulk is not None:
            try:
                binding = self.bulk.scanned(uid)
            except TagError as e:
                self.prompt = e.localized() + "\n" + self.bulk.progress().localized()
                return
            self.prompt = (
                _("{uid} is {component}").format(
                    uid=binding.uid, component=binding.component.localized()
                )
                + "\n"
                + self.bulk.progress().localized()
            )
            if self.bulk.done:
                self.mode = ""
            self.refresh()
            return
        if self.mode in ("enroll", "rebind"):
            current = app().controller.tag(uid)
            if current is not None and self.mode == "enroll":
                self.prompt = _("{uid} is already {component}: use Re-bind").format(
                    uid=uid, component=current.localized()
                )
                return
            app().choose_binding(uid, rebind=self.mode == "rebind", then=self._bound)

    def _bound(self, message: str) -> None:
        self.prompt = message
        self.mode = ""
        self.refresh()


# -------------------------------------------------------------------- settings
class PinPad(Layout, ModalView):
    """The admin PIN, asked before Settings open (and before a tag is re-bound during a
    game). Typed, then OK: the app's ``Lockout`` counts wrong PINs, and while it holds
    the pad after too many the keys take nothing and the pad says how long to wait."""

    layouts = ("settings.kv",)

    entered = StringProperty("")
    message = StringProperty("")
    locked = BooleanProperty(False)

    def __init__(
        self,
        on_unlock: Callable[[], Any],
        *,
        check: Callable[[str], bool],
        lockout: Lockout,
        prompt: str = "",
        **kw: Any,
    ) -> None:
        super().__init__(**kw)
        self.on_unlock = on_unlock
        self.check = check
        self.lockout = lockout
        self.prompt = prompt or _("Admin PIN")
        self.message = self.prompt
        self._ticking: Any = None
        self.refresh()

    def digit(self, key: str) -> None:
        """A key of the pad: a digit, "clear" or "ok"."""
        if self.refresh():
            return  # locked out: the keys take nothing
        if key == "clear":
            self.entered = ""
            self.message = self.prompt
        elif key == "ok":
            self.submit()
        elif key.isdigit() and len(self.entered) < MAX_DIGITS:
            self.entered += key

    def submit(self) -> None:
        if not self.entered:
            return
        entered, self.entered = self.entered, ""
        result = self.lockout.attempt(entered, self.check)
        if result:
            self.dismiss(animation=False)
            self.on_unlock()
        elif not self.refresh():
            self.message = _("Wrong PIN")

    def refresh(self, *args: Any) -> bool:
        """Show the lock-out while it lasts; True while the pad is locked."""
        wait = self.lockout.wait()
        was_locked, self.locked = self.locked, wait > 0
        if self.locked:
            self.message = ngettext(
                "Too many wrong PINs: wait {n} second",
                "Too many wrong PINs: wait {n} seconds",
                wait,
            ).format(n=wait)
            if self._ticking is None:
                self._ticking = Clock.schedule_interval(self.refresh, 0.25)
        else:
            if was_locked:
                self.message = self.prompt
            self._stop_ticking()
        return self.locked

    def _stop_ticking(self) -> None:
        if self._ticking is not None:
            self._ticking.cancel()
            self._ticking = None

    def on_dismiss(self) -> None:
        self._stop_ticking()


SERIAL_PORTS = ("/dev/serial0", "/dev/ttyUSB0", "/dev/ttyAMA0")
PIN_NAMES = {
    "end_turn": N_("End turn button"),
    "undo": N_("Undo button"),
    "led_green": N_("Green LED"),
    "led_red": N_("Red LED"),
    "buzzer": N_("Buzzer"),
}


def reader_names() -> dict[str, str]:
    """Each kind of hardware.readers.READERS as a person knows it."""
    return {
        "fake": _("Simulated (no reader)"),
        "mfrc522": _("MFRC522 on SPI"),
        "pn532": "PN532",
        "rdm6300": "RDM6300",
        "wedge": _("Keyboard wedge (USB)"),
    }


def reader_choices() -> list[tuple[str, str]]:
    """The readers the companion supports (hardware.readers.READERS), as a person picks
    one: (spec, what the button says); a serial reader once per usual port."""
    from hardware.readers import READERS

    names = reader_names()
    out = []
    for kind in READERS.values():
        name = names.get(kind.name, kind.name)
        if kind.needs_arg:
            for port in SERIAL_PORTS:
                label = _("{reader} on {port}").format(reader=name, port=port)
                out.append((f"{kind.name}:{port}", label))
        else:
            out.append((kind.name, name))
    return out


def reader_kind(spec: str) -> tuple[str, str]:
    """(kind, serial port) of a reader spec: 'pn532:/dev/serial0,x' -> ('pn532', '/dev/serial0')."""
    from hardware.readers import READERS

    head, _colon, rest = spec.strip().partition(":")
    kind = head.partition(",")[0].strip().lower()
    serial = kind in READERS and bool(READERS[kind].needs_arg)
    port = rest.partition(",")[0].strip() if serial else ""
    return kind, port


def reader_label(spec: str) -> str:
    """The reader a spec names, in words (never the wedge's device path)."""
    kind, port = reader_kind(spec)
    for choice, label in reader_choices():
        if reader_kind(choice) == (kind, port):
            return label
    name = reader_names().get(kind, kind)
    return _("{reader} on {port}").format(reader=name, port=port) if port else name


class SettingsScreen(Layout, Screen):
    """For people: the language (the chosen one marked), the reader picked from a list,
    the pins in a table with their names; no file paths, no internal keys."""

    layouts = ("settings.kv",)

    message = StringProperty("")
    language = StringProperty("")
    reader_text = StringProperty("")
    details = StringProperty("")
    has_game = BooleanProperty(False)

    def on_pre_enter(self, *args: Any) -> None:
        self.message = ""
        self.refresh()

    def refresh(self) -> None:
        from companion.i18n import current_language

        settings = app().settings_
        self.language = current_language()
        self.reader_text = reader_label(settings.reader.spec)
        pins = self.ids.pins
        pins.clear_widgets()
        for f in dataclasses.fields(settings.gpio):
            pins.add_widget(Label(text=_(PIN_NAMES.get(f.name, f.name)), font_size="20sp",
                                  halign="center", valign="middle", size_hint_y=None,
                                  height=52))  # fmt: skip
        for f in dataclasses.fields(settings.gpio):
            pins.add_widget(Label(text=str(getattr(settings.gpio, f.name)), font_size="26sp",
                                  bold=True, size_hint_y=None, height=34,
                                  halign="center"))  # fmt: skip
        for w in pins.children:
            w.bind(width=lambda w, width: setattr(w, "text_size", (width - 4, None)))
        ctl = app().controller
        self.has_game = ctl.phase in ("opening", "playing")
        self.details = ""
        found = ctl.setup_numbers()
        if found is not None:
            rage_start, health, unconfirmed = found
            numbers = _("Edition numbers: rage start {r}, health {h}; unconfirmed: {u}")
            self.details = numbers.format(
                r=rage_start, h=health, u=", ".join(unconfirmed) or _("none")
            )

    def choose_reader(self) -> None:
        current = reader_kind(app().settings_.reader.spec)
        entries = []
        for spec, label in reader_choices():
            chosen = reader_kind(spec) == current
            shown = _("{reader} (chosen)").format(reader=label) if chosen else label
            entries.append((shown, lambda spec=spec: self.set_reader(spec)))
        Picker(_("Reader"), entries).open()

    def set_reader(self, spec: str) -> None:
        current = app().settings_.reader.spec
        if reader_kind(spec) == reader_kind(current):
            spec = current  # the same reader: its options (bus, reset pin) stay
        if self.save(reader={"spec": spec}):
            self.refresh()

    def save(self, **changes: Any) -> bool:
        problem = app().save_settings(**changes)
        if problem:
            self.message = problem
            return False
        self.message = _("Saved; the reader changes at the next start.")
        return True

    def set_language(self, language: str) -> None:
        if language in LANGUAGES:
            app().set_language(language)

    def new_pin(self) -> None:
        """A new random PIN: saved as its hash, shown once (here) to be written down."""
        pin = f"{secrets.randbelow(10**4):04d}"
        if self.save(app={"admin_pin_hash": hash_pin(pin), "admin_pin": ""}):
            self.message = _("The new admin PIN is {pin}: write it down.").format(pin=pin)
