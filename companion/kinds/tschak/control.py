"""The Tschak! controller: taps and scans in, TschakGame actions out, a typed view back.

The Clank! screens have ``companion.kinds.clank.controller``; the Tschak! screens have this one, the
same shape: screens call it and redraw from ``view()``, a frozen picture of the table in
the table's language. It never touches Kivy, so it is tested on its own.

What the table does, and what becomes an action (TABLE_SCRIPT.md, "Tschak!"):

- set-up (before the game exists): the players, every setting of the rulebook's
  ambiguities (each shown with its default, changeable), the card catalog's corrections;
  ``start`` records the game (``{"new": ...}``) through the injected ``start`` function;
- a tower: the three monsters and three treasures, scanned or tapped into the floors'
  slots, then ``{"do": "tower"}``;
- a floor: every player's team, scanned card by card (a card goes to the player chosen on
  screen, or to the only player whose tracked hand holds it) or tapped, then
  ``{"do": "floor"}``; the verdict stays on screen until the table goes on;
- the trophies: each player's last card (known when the hands are tracked), then
  ``{"do": "trophies"}``;
- the end: each player scans their two piles to check them against the game, then the
  winner and the breakdown; the elixir's choice is ``{"do": "elixir"}``.

A refusal (``TschakError``) leaves the game unchanged and becomes one clear line in the
table's language. Undo first takes back the card entered last; with nothing entered, the
last action (``{"do": "undo"}``), and what it undid comes back on screen to be corrected.

Collected cards lie face down (T-F4): the view carries no running totals unless the table
turns them on (``toggle_scores``).

The catalog check (``companion.kinds.tschak.catalog_check``) walks the 68 cards once
against the table's own box; the corrections count from the next game on.

The controller is built in layers: ``Progress`` (its state, saved at every change),
``Entry`` (entering the cards of each action, and the action), and ``TschakControl`` here
(the set-up and the game's life, undo, scans, the catalog check, the tags). The views
are built from its public face by ``companion.kinds.tschak.view_builder``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from companion.i18n import _, pgettext
from companion.kinds.tschak.catalog_check import with_number
from companion.kinds.tschak.entry import Entry
from companion.kinds.tschak.progress import EDITION
from companion.kinds.tschak.rules import Hero, Settings, TschakError, TschakGame
from companion.kinds.tschak.rules.cards import WEAPONS
from companion.kinds.tschak.view_builder import build_check_view, build_view
from companion.kinds.tschak.views import CheckView, TschakView, Update
from companion.kinds.tschak.words import (
    SETTING_TITLES,
    card_words,
    choice_text,
    error_text,
    hero_order,
    is_tower_card,
    refusal,
    tower_order,
    who,
)


class TschakControl(Entry):
    """The Tschak! controller: what the screens call, and the view they draw."""

    # ------------------------------------------------------------------ set-up
    def prepare(self, players: Sequence[str]) -> bool:
        """The set-up screen for these players (2 to 4, seat order): settings at their
        defaults until the table changes them."""
        try:
            TschakGame(list(players))  # checks the names and the count
        except TschakError as e:
            self._tell(Update("rejected", refusal(e)))
            return False
        self.pending = {"players": list(players), "settings": {}}
        self._tell(Update("setup"))
        return True

    def cancel_setup(self) -> None:
        self.pending = None
        self._tell(Update("setup"))

    def pending_settings(self) -> Settings:
        raw = self.pending["settings"] if self.pending else {}
        return Settings.from_dict(raw)

    def set_setting(self, key: str, value: Any) -> bool:
        if self.pending is None:
            return False
        changed = dict(self.pending["settings"])
        changed[key] = value
        try:
            settings = Settings.from_dict(changed)
        except TschakError as e:
            self._tell(Update("rejected", refusal(e)))
            return False
        self.pending["settings"] = settings.changed()
        self._tell(
            Update(
                "setup",
                _("{setting}: {choice}").format(
                    setting=pgettext("tschak setting", SETTING_TITLES.get(key, key)),
                    choice=choice_text(key, value),
                ),
            )
        )
        return True

    def options(self) -> dict[str, Any]:
        """The new game's options, as its ``new`` line records them."""
        assert self.pending is not None
        options: dict[str, Any] = {"edition": EDITION, "players": list(self.pending["players"])}
        if self.pending["settings"]:
            options["settings"] = dict(self.pending["settings"])
        corrections = self.check.corrections()
        if corrections:
            options["catalog"] = corrections
        return options

    def start(self) -> bool:
        """Record the game (the injected ``start``: a Session commits its ``new`` line)."""
        if self.pending is None:
            return False
        if self.check.problem:
            self._tell(Update("rejected", self.check.problem))
            return False
        try:
            table = self._start(self.options())
        except TschakError as e:
            self._tell(Update("rejected", refusal(e)))
            return False
        except Exception as e:  # noqa: BLE001 - the store refused: said, the set-up stays
            self._tell(Update("rejected", error_text(e)))
            return False
        self.table = table
        self.pending = None
        self._clear()
        self._save()
        self._tell(Update("game", _("Tschak! game started")))
        return True

    def resume(self, game: int) -> bool:
        """Carry on with a recorded game (the injected ``resume``)."""
        if self._resume is None:
            return False
        try:
            table = self._resume(game)
        except Exception as e:  # noqa: BLE001 - the game cannot be resumed: said
            self._tell(Update("rejected", error_text(e)))
            return False
        self.table = table
        self.pending = None
        self._clear()
        self._load_saved()
        self._tell(Update("game", _("game {game} resumed").format(game=game)))
        return True

    def _may_abandon(self) -> bool:
        return self.table is not None and self.phase != "over" and hasattr(self.table, "abandon")

    def _abandoned(self) -> None:
        self._drop_table()  # the new-game screen

    def go_on(self) -> None:
        """The verdict was read: on to the next floor, the trophies or the next tower."""
        if self.showing is None:
            return
        self.showing = None
        self._save()
        self._tell(Update("entry", self.hint()))

    # ------------------------------------------------------------------ undo
    def undo(self) -> bool:
        """Take back the card entered last; with none, the last action (and what it
        undid comes back on screen, to be corrected)."""
        if self.question is not None:
            self.cancel_question()
            return True
        game = self.game
        if game is None:
            return False
        phase = self.phase
        if phase == "floor" and self.selected and self.teams.get(self.selected):
            return self._undo_card(self.selected)
        if phase == "floor":
            for p in reversed(game.players):
                if self.teams.get(p):
                    return self._undo_card(p)
        if phase == "trophies" and self.last_cards:
            player = self.selected if self.selected in self.last_cards else None
            return self.remove_card(player or list(self.last_cards)[-1], 0)
        if phase == "tower":
            for which in ("treasures", "monsters"):
                for floor in (3, 2, 1):
                    if self.slots[which][floor - 1] is not None:
                        return self.set_slot(which, floor, None)
        if phase == "over" and self.piles.get(self.selected or ""):
            assert self.selected is not None
            return self.remove_pile_card(self.selected, len(self.piles[self.selected]) - 1)
        if not game.can_undo:
            self._tell(Update("rejected", _("nothing to undo")))
            return False
        before = game.snapshot()
        if self.do({"do": "undo"}) is None:
            return False
        self.showing = None
        message = self._restore_undone(before)
        self._save()
        self._tell(Update("action", message))
        return True

    def _undo_card(self, player: str) -> bool:
        """Undo of the card entered last in ``player``'s team: if it was the second card
        of its colour, the misplay it brought goes with it (a card taken back by a tap,
        the player's swap, keeps the penalty: T-X1)."""
        team = self.teams[player]
        card = team[-1]
        doubled = self.hero(card).colour in {self.hero(c).colour for c in team[:-1]}
        if not self.remove_card(player, len(team) - 1):
            return False
        if doubled and player in self.misplays:
            self.misplays.discard(player)
            self._save()
            self._tell(
                Update("entry", _("{player}: no misplay penalty").format(player=who(player)))
            )
        return True

    def _restore_undone(self, before: dict[str, Any]) -> str:
        """Put what the undone action recorded back into the entry; the message."""
        game = self.game
        assert game is not None
        now = game.state
        if len(now.floors) < len(before["floors"]):
            record = before["floors"][-1]
            self.teams = {p: list(c) for p, c in record["teams"].items()}
            self.misplays = set(record.get("misplays", []))
            self.selected = game.players[-1]  # the team entered last
            return _("Undo: floor {floor} of tower {tower} taken back: correct the teams").format(
                floor=record["floor"], tower=record["tower"]
            )
        if len(now.trophies) < len(before["trophies"]):
            record = before["trophies"][-1]
            self.last_cards = {p: c for p, c in record["last"].items() if isinstance(c, str)}
            self.revealed = False
            return _("Undo: the trophies of tower {tower} taken back").format(tower=record["tower"])
        if len(now.towers) < len(before["towers"]):
            record = before["towers"][-1]
            self.slots = {
                "monsters": list(record["monsters"]),
                "treasures": list(record["treasures"]),
            }
            return _("Undo: tower {tower} taken back").format(tower=record["tower"])
        return _("Undo: the elixir's choice taken back")

    # ------------------------------------------------------------------ the end
    def reveal(self) -> None:
        """The piles are checked (or the table skips it): the winner and the breakdown."""
        self._show_result(True)

    def show_piles(self) -> None:
        self._show_result(False)

    def _show_result(self, revealed: bool) -> None:
        """Once the game is over: the scores (True) or the piles' check (False)."""
        if self.phase != "over":
            return
        self.revealed = revealed
        self._save()
        self._tell(Update("entry"))

    def toggle_scores(self) -> None:
        """Running totals on screen or not (collected cards are hidden information)."""
        self.scores_visible = not self.scores_visible
        self._save()
        self._tell(
            Update(
                "entry",
                _("running totals shown") if self.scores_visible else _("running totals hidden"),
            )
        )

    # ------------------------------------------------------------------ scans
    def scan(self, uid: str) -> None:
        """A tag was scanned while a Tschak! game (or its set-up) is on the table."""
        component = self.registry.lookup(uid) if self.registry is not None else None
        if component is None:
            self._tell(Update("unknown_tag", _("unknown tag {uid}").format(uid=uid), uid=uid))
            return
        if component.kind == "badge":
            self._tell(
                Update("ignored", _("a player badge: players are seated on the new-game screen"))
            )
            return
        if component.edition != EDITION:
            self._tell(
                Update(
                    "rejected",
                    _("{component} is not in this game's box").format(
                        component=component.localized()
                    ),
                )
            )
            return
        self.scan_card(component.name)

    def scan_card(self, card_id: str) -> bool:
        """A card of the box, by its catalog id (a tag's name) or notation."""
        game = self.game
        if game is None:
            self._tell(
                Update(
                    "ignored",
                    _("{card}: no Tschak! game is running").format(
                        card=card_words(self._notation_of(card_id))
                    ),
                )
            )
            return False
        notation = self._notation_of(card_id)
        phase = self.phase
        if phase in ("verdict", "trophy_verdict"):
            self.showing = None  # the next entry begins: the verdict was read
            phase = self.phase
        is_tower = is_tower_card(notation)
        if phase == "over":
            if is_tower:
                return self.pile_card(notation)
            self._tell(
                Update(
                    "ignored",
                    _("{card}: heroes score nothing at the end").format(card=card_words(notation)),
                )
            )
            return False
        if phase == "tower":
            if not is_tower:
                self._tell(Update("rejected", self._not_now(notation)))
                return False
            return self._place_tower_card(self._tower_card(notation))
        if is_tower:
            self._tell(Update("rejected", self._not_now(notation)))
            return False
        return self.add_card(notation)

    def _notation_of(self, card_id: str) -> str:
        game = self.game
        catalog = game.catalog if game is not None else self.check.catalog()
        row = catalog.by_id.get(card_id.lower())
        return row.card.notation if row is not None else card_id

    # ------------------------------------------------------------------ the catalog check
    def check_view(self) -> CheckView:
        return build_check_view(self)

    def check_number(self, value: Any) -> None:
        self.check_draft = with_number(self.check_draft or self.check.card(), value)
        self._tell(Update("setup"))

    def check_weapon(self, weapon: str) -> None:
        card = self.check_draft or self.check.card()
        if isinstance(card, Hero) and card.value is not None and weapon in WEAPONS[card.colour]:
            self.check_draft = Hero(card.colour, card.value, weapon)
        self._tell(Update("setup"))

    def check_right(self) -> None:
        """The card on screen is what the table holds: confirmed (and saved); next card."""
        check = self.check
        card_id = check.current_id
        try:
            check.answer(self.check_draft)
        except (ValueError, TschakError, OSError) as e:
            self.check_message = refusal(e) if isinstance(e, TschakError) else str(e)
            self._tell(Update("rejected", self.check_message))
            return
        self.check_draft = None
        shown = card_words(check.card(card_id).notation)
        self.check_message = _("checked: {card}").format(card=shown)
        self._tell(Update("setup", self.check_message))

    def check_move(self, delta: int) -> None:
        self.check_draft = None
        self.check_message = ""
        self.check.go(self.check.position + delta)
        self._tell(Update("setup"))

    def check_scan(self, uid: str) -> None:
        """A tag scanned during the check: an unknown tag is enrolled for the card on
        screen; a Tschak! card's tag brings its card on screen."""
        registry = self.registry
        component = registry.lookup(uid) if registry is not None else None
        check = self.check
        if component is None and registry is not None:
            from companion.store.tags import Component, TagError

            target = Component("card", EDITION, check.current_id)
            try:
                registry.bind(uid, target)
            except TagError as e:
                self.check_message = e.localized()
            else:
                self.check_message = _("tag {uid} enrolled: {card}").format(
                    uid=uid, card=card_words(check.card().notation)
                )
        elif component is not None and component.edition == EDITION:
            check.go_to(component.name)
            self.check_draft = None
            self.check_message = _("this tag is {card}").format(
                card=card_words(check.card().notation)
            )
        elif component is not None:
            self.check_message = _("this tag is {component}: re-bind it on the Tags screen").format(
                component=component.localized()
            )
        self._tell(Update("setup", self.check_message))

    # ------------------------------------------------------------------ tags
    def drawer_faces(self) -> list[str]:
        """Every face of the box (the simulated reader's drawer; an unknown tag's
        binding): heroes, then the tower cards."""
        game = self.game
        catalog = game.catalog if game is not None else self.check.catalog()
        heroes = sorted(catalog.hero_counts, key=hero_order)
        tower = sorted(catalog.tower_counts, key=tower_order)
        return [*heroes, *tower]

    def bind_tag(self, uid: str, notation: str) -> str:
        """Bind an unknown tag to a card showing this face (the first card of the
        catalog with it that has no tag yet); the message to show."""
        if self.registry is None:
            return ""
        from companion.store.tags import Component, TagError

        game = self.game
        catalog = game.catalog if game is not None else self.check.catalog()
        tagged = {b.component.name for b in self.registry.bindings(EDITION)}
        rows = [r for r in catalog.rows if r.card.notation == notation]
        if not rows:
            return _("{card}: not in the box").format(card=card_words(notation))
        row = next((r for r in rows if r.id not in tagged), rows[0])
        try:
            self.registry.bind(uid, Component("card", EDITION, row.id))
        except TagError as e:
            return e.localized()
        message = _("{uid} is now {card}").format(uid=uid, card=card_words(notation))
        self._tell(Update("entry", message))
        return message

    # ------------------------------------------------------------------ the view
    def view(self) -> TschakView:
        return build_view(self)
