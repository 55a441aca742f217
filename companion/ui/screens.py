"""The screens around the table: opening and fairness, scoring, audit, tags, settings,
and the pop-ups (component picker, a player's actions, the menu).

Layout lives in kv/*.kv; the behaviour here only calls the controller (or the tag
registry) and redraws from what it reports.
"""

from __future__ import annotations

import dataclasses
import json
import os
import secrets
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kivy.app import App
from kivy.clock import Clock
from kivy.properties import BooleanProperty, ListProperty, StringProperty
from kivy.uix.button import Button
from kivy.uix.gridlayout import GridLayout
from kivy.uix.modalview import ModalView
from kivy.uix.screenmanager import Screen

from companion.audit.check import export_game, verify_store
from companion.config import LANGUAGES, ConfigError, save_config, with_pin_hash
from companion.i18n import _, ed_, localized, ngettext, player_name
from companion.pin import MAX_DIGITS, Lockout, hash_pin
from companion.rules.setup import setup_checklist, unconfirmed_label
from companion.store.tags import BulkEnrollment, Component, TagError, components
from companion.ui.colours import colour, letter, text_colour

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


def chain_head(store: Any, game: int) -> str:
    row = store.db.execute(
        "SELECT hash FROM log WHERE game = ? ORDER BY seq DESC LIMIT 1", [game]
    ).fetchone()
    return row[0] if row else ""


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
    return app().store.path.parent / "exports"


# --------------------------------------------------------------------- pop-ups
class Picker(ModalView):
    """A scrolling list of big buttons; the chosen entry's callback runs on release."""

    title = StringProperty("")

    def __init__(self, title: str, entries: list[tuple[str, Callable[[], Any]]], **kw: Any):
        super().__init__(size_hint=(0.96, 0.94), **kw)
        self.title = title
        grid: GridLayout = self.ids.grid
        grid.add_widget(big_button(_("Close"), self.close, background_color=(0.4, 0.2, 0.2, 1)))
        for text, action in entries:
            grid.add_widget(big_button(text, lambda a=action: self._choose(a)))

    def close(self) -> None:
        self.dismiss(animation=False)  # gone at once: the next tap reaches the table

    def _choose(self, action: Callable[[], Any]) -> None:
        self.close()
        action()


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
    """What a player can do beyond clank, two taps from their panel."""
    ctl = app().controller
    table = ctl.table
    catalog = table.game.catalog
    state = table.game.state.players[player]
    edition = catalog.edition.name
    out: list[tuple[str, Callable[[], Any]]] = []

    def add(label: str, do: str, **fields: Any) -> None:
        action = {"do": do, **fields} if do == "ghost" else {"do": do, "player": player, **fields}
        out.append((label, lambda: ctl.do(action)))

    add(_("Gold +1"), "gold", n=1)
    add(_("Gold +2"), "gold", n=2)
    add(_("Gold +5"), "gold", n=5)
    add(_("Gold −1"), "gold", n=-1)
    add(_("Gold −7"), "gold", n=-7)
    add(_("Take 1 damage"), "damage", n=1, voluntary=True)
    add(_("Heal 1"), "heal", n=1)
    if state.in_depths:
        add(ed_(edition, "Leave the Depths"), "depths", **{"in": False})
    else:
        add(ed_(edition, "Enter the Depths"), "depths", **{"in": True})
    add(_("Escape with an artifact"), "escape")
    for value in sorted({int(t.name) for t in catalog.tokens_of("artifact")}):
        add(_("Artifact {name}").format(name=value), "artifact", value=value)
    for t in catalog.tokens_of("major_secret", "minor_secret"):
        add(ed_(edition, "Secret: {name}").format(name=t.name), "secret", name=t.name)
    for name in dict.fromkeys(t.name for t in catalog.tokens_of("market", party=table.setup.party)):
        add(_("Buy {name} (7 gold)").format(name=name), "buy", item=name)
    add(ed_(edition, "Monkey idol"), "token", name="monkey idol")
    if edition == "catacombs":
        add(_("Mark a wayshrine"), "shrine")
        add(_("A ghost appears"), "ghost")
        for name in dict.fromkeys(t.name for t in catalog.tokens_of("prisoner")):
            add(_("Free prisoner: {name}").format(name=name), "prisoner", name=name)
    return out


# --------------------------------------------------------------------- opening
class OpeningScreen(Screen):
    """Set-up checklist, the commitment (text and QR), the opening row, the seed words."""

    checklist = StringProperty("")
    commitment = StringProperty("")
    commitment_text = StringProperty("")  # all 64 digits, in groups of 8
    row_text = StringProperty("")
    seed_text = StringProperty("")

    def redraw(self, snap: dict[str, Any]) -> None:
        ctl = app().controller
        lines = setup_checklist(ctl.table.setup)
        self.checklist = "\n".join(f"• {line}" for line in lines)
        self.commitment = snap["commitment"]
        self.commitment_text = grouped(snap["commitment"], per_line=2)
        row = [c["name"] for c in ctl.opening or []]
        size = ctl.table.game.edition.row_size
        self.row_text = _("Opening row ({n} of {size}): {cards}").format(
            n=len(row), size=size, cards=", ".join(row) or _("scan the cards as you deal them")
        )
        seed = ctl.client_seed()
        self.seed_text = _("Client seed: {seed}").format(seed=seed or _("(empty)"))
        words = self.ids.words
        if words.text != ctl.words and not words.focus:
            words.text = ctl.words

    def words_changed(self, text: str) -> None:
        ctl = app().controller
        if ctl.opening is not None and text != ctl.words:
            ctl.set_words(text)
            self.seed_text = _("Client seed: {seed}").format(seed=ctl.client_seed() or "-")


# --------------------------------------------------------------------- scoring
class ScoringScreen(Screen):
    player = StringProperty("")
    heading = StringProperty("")
    parts_text = StringProperty("")
    notes_text = StringProperty("")
    ranking_text = StringProperty("")
    seed_text = StringProperty("")
    head_text = StringProperty("")  # the chain head in full, in groups of 8
    qr_data = StringProperty("")
    players = ListProperty([])

    def redraw(self, snap: dict[str, Any]) -> None:
        ctl = app().controller
        self.players = list(snap["players"])
        self.player = ctl.scoring or self.players[0]
        p = snap["players"][self.player]
        detail = p.get("score_detail") or {}
        cards = ctl.deck(self.player)
        self.heading = ngettext(
            "{player}: {n} card scanned · scan the deck, tap a card to take it out",
            "{player}: {n} cards scanned · scan the deck, tap a card to take it out",
            len(cards),
        ).format(player=player_name(self.player, capital=True), n=len(cards))
        edition = snap["edition"]
        names = {
            "artifacts": _("Artifacts"),
            "tokens": _("Tokens"),
            "gold": _("Gold"),
            "cards": _("Cards"),
            "secrets": ed_(edition, "Secrets"),
            "prisoners": _("Prisoners"),
        }
        reasons = {
            "no artifact": _("no artifact"),
            "knocked out in the Depths": ed_(edition, "knocked out in the Depths"),
        }
        parts = detail.get("parts", {})
        lines = [f"{names.get(k, k.replace('_', ' ').capitalize())}: {v}" for k, v in parts.items()]
        if detail and not detail.get("qualifies", True):
            reason = detail.get("reason") or ""
            lines.insert(0, f"[color=ff8866]{reasons.get(reason, reason)}[/color]")
        total = _("Total")
        lines.append(f"[b]{total}: {detail.get('total', 0)}[/b]")
        self.parts_text = "\n".join(lines)
        score = ctl.table.game.scores().get(self.player) if ctl.table is not None else None
        conditional = score.conditional if score is not None else []
        self.notes_text = "\n".join(c.localized(edition) for c in conditional)
        grid = self.ids.deck
        grid.clear_widgets()
        for name, n in sorted(Counter(cards).items()):
            grid.add_widget(
                big_button(
                    f"{name} ×{n}" if n > 1 else name,
                    lambda name=name: ctl.remove_from_deck(name),
                    height=44,
                    font_size="15sp",
                )
            )
        selector = self.ids.selector
        selector.clear_widgets()
        for name in self.players:
            selector.add_widget(
                big_button(
                    f"{letter(name)} · {player_name(name, capital=True)}",
                    lambda name=name: ctl.score_player(name),
                    background_color=colour(name),
                    color=text_colour(name),
                    bold=name == self.player,
                    height=48,  # the scoring screen's bottom band holds the proof
                )
            )
        ranking = snap.get("ranking") or []
        rows = []
        for r in ranking:
            tied = [o for o in ranking if o["score"] == r["score"] and o is not r]
            note = _(" (tie broken by the best artifact)") if tied else ""
            rows.append(
                _("{place}. {player}: {score} VP").format(
                    place=r["place"],
                    player=player_name(r["player"], capital=True),
                    score=r["score"],
                )
                + note
            )
        self.ranking_text = "\n".join(rows)
        seed = snap.get("server_seed") or ""
        self.seed_text = _("Server seed (revealed): {seed}").format(seed=seed)
        game = ctl.game_id
        head = chain_head(ctl.store, game) if game else ""
        self.head_text = grouped(head)
        self.qr_data = json.dumps(
            {
                "game": game,
                "commitment": snap["commitment"],
                "server_seed": seed,
                "client_seed": snap["client_seed"],
                "chain_head": head,
            },
            separators=(",", ":"),
        )

    def add_card(self) -> None:
        ctl = app().controller
        edition = ctl.table.game.edition.name
        picks = catalog_components(
            edition, cards=("starter", "reserve", "dungeon", "promo"), tokens=False
        )
        Picker(
            _("Add a card to {player}'s deck").format(player=player_name(self.player)),
            [(c.name, lambda c=c: ctl.add_to_deck(c.name)) for c in picks],
        ).open()


# ----------------------------------------------------------------------- audit
class AuditScreen(Screen):
    draws_text = StringProperty("")
    game_text = StringProperty("")  # the game and its commitment
    head_text = StringProperty("")  # the chain head in full, in groups of 8
    head_note = StringProperty("")
    result = StringProperty("")

    def on_pre_enter(self, *args: Any) -> None:
        self.result = ""
        self.refresh()

    def refresh(self) -> None:
        ctl = app().controller
        snap = ctl.snapshot()
        if snap is None:
            self.draws_text = _("No game is open.")
            self.game_text = self.head_text = self.head_note = ""
            return
        lines = []
        for d in snap["draws"]:
            bag = ", ".join(f"{player_name(k)} {v}" for k, v in d["bag"].items() if v)
            drawn = ", ".join(player_name(c) for c in d["drawn"]) or "—"
            lines.append(
                _("#{nonce}: bag {bag} → drew {drawn}").format(
                    nonce=d["nonce"], bag=bag, drawn=drawn
                )
            )
        self.draws_text = "\n".join(lines) or _("No draws yet.")
        self.game_text = _("Game {game} · commitment {commitment}").format(
            game=ctl.game_id, commitment=snap["commitment"]
        )
        self.head_text = grouped(chain_head(ctl.store, ctl.game_id))
        self.head_note = (
            _("Chain head. Photograph this: it proves the game was not rewritten later")
            if ctl.phase in ("scoring", "abandoned")
            else _("Chain head so far: photograph it at the end of the game")
        )

    def verify(self) -> None:
        ctl = app().controller
        if ctl.game_id is None:
            return
        check = verify_store(ctl.store, ctl.game_id)[0]
        self.result = (
            _("Verified: {records} records, {draws} draws re-computed").format(
                records=check.records, draws=check.draws_checked
            )
            if check.ok
            else _("NOT verified: {message}").format(message=localized(check.message))
        )

    def export(self) -> None:
        ctl = app().controller
        if ctl.game_id is None:
            return
        folder = export_folder()
        target = folder / f"clank-game-{ctl.game_id}.jsonl"
        try:
            folder.mkdir(parents=True, exist_ok=True)
            with open(target, "w", encoding="utf-8") as out:
                count = export_game(ctl.store, ctl.game_id, out)
        except OSError as e:
            self.result = _("Export failed: {reason}").format(reason=e.strerror or e)
            return
        self.result = _("Exported {n} records to {path}").format(n=count, path=target)


# ------------------------------------------------------------------------ tags
class TagsScreen(Screen):
    """Enroll one tag, walk a whole box (bulk), or re-bind a tag: the next scan is ours."""

    mode = StringProperty("")  # "", "enroll", "rebind", "bulk"
    prompt = StringProperty("")
    summary = StringProperty("")
    edition = StringProperty("clank")

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.bulk: BulkEnrollment | None = None

    def on_pre_enter(self, *args: Any) -> None:
        ctl = app().controller
        if ctl.table is not None:
            self.edition = ctl.table.game.edition.name
        self.refresh()

    def on_leave(self, *args: Any) -> None:
        self.stop()

    def refresh(self) -> None:
        count = len(app().controller.registry.bindings())
        self.summary = ngettext("{n} tag enrolled", "{n} tags enrolled", count).format(n=count)
        if self.mode == "":
            self.prompt = _("Choose what the next scans do.")

    def start(self, mode: str) -> None:
        """Listen for the next scans: "enroll", "bulk" or "rebind". Re-binding during a
        game changes what the table's tags mean: it needs the admin PIN first."""
        if mode == "rebind" and app().controller.phase in ("opening", "playing", "scoring"):
            app().ask_pin(
                lambda: self._start(mode), prompt=_("Admin PIN: re-bind a tag during a game")
            )
            return
        self._start(mode)

    def _start(self, mode: str) -> None:
        self.mode = mode
        if mode == "bulk":
            self.bulk = BulkEnrollment(
                app().controller.registry, components(self.edition, ("card",), ("dungeon",))
            )
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
        registry = app().controller.registry
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
            current = registry.lookup(uid)
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
class PinPad(ModalView):
    """The admin PIN, asked before Settings open (and before a tag is re-bound during a
    game). Typed, then OK: the app's ``Lockout`` counts wrong PINs, and while it holds
    the pad after too many the keys take nothing and the pad says how long to wait."""

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


class SettingsScreen(Screen):
    message = StringProperty("")
    reader_spec = StringProperty("")
    details = StringProperty("")

    def on_pre_enter(self, *args: Any) -> None:
        self.message = ""
        settings = app().settings_
        self.reader_spec = settings.reader.spec
        pins = settings.gpio
        numbers = ", ".join(f"{f.name} {getattr(pins, f.name)}" for f in dataclasses.fields(pins))
        ctl = app().controller
        unconfirmed = ""
        if ctl.table is not None:
            setup = ctl.table.setup
            unconfirmed = _("Edition numbers: rage start {r}, health {h}; unconfirmed: {u}").format(
                r=setup.rage_start,
                h=setup.health,
                u=", ".join(unconfirmed_label(setup.edition, u) for u in setup.unconfirmed)
                or _("none"),
            )
        self.details = "\n".join(
            [
                _("Buttons and LEDs (BCM pins): {pins}").format(pins=numbers),
                _("Database: {path}").format(path=app().store.path),
                _("Settings file: {source}").format(source=settings.source),
                unconfirmed,
            ]
        )

    def save(self, **changes: Any) -> bool:
        a = app()
        settings = a.settings_
        reader = dataclasses.replace(settings.reader, **changes.get("reader", {}))
        app_part = dataclasses.replace(settings.app, **changes.get("app", {}))
        new = with_pin_hash(dataclasses.replace(settings, reader=reader, app=app_part))
        try:
            path = save_config(new)
        except ConfigError as e:
            self.message = e.localized()
            return False
        a.settings_ = dataclasses.replace(new, source=str(path))
        self.message = _("Saved to {path}; the reader changes at the next start.").format(path=path)
        return True

    def set_language(self, language: str) -> None:
        if language in LANGUAGES:
            self.save(app={"language": language})
            app().switch_language(language)

    def new_pin(self) -> None:
        """A new random PIN: saved as its hash, shown once (here) to be written down."""
        pin = f"{secrets.randbelow(10**4):04d}"
        if self.save(app={"admin_pin_hash": hash_pin(pin), "admin_pin": ""}):
            self.message = _("The new admin PIN is {pin}: write it down.").format(pin=pin)
