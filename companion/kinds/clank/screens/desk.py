"""Clank!'s desk: what its table on the touchscreen asks and offers beyond its controller.

The player's menu of legal actions, Undo and End turn and the questions before what
cannot be taken back (a dragon draw undone, the end of the game), the dragon's attacks as
they come, the scan drawer. The desk is made with the kind's controller
(``ClankControl``, made by the Clank! face for the app) and reached by its screens and
their layouts through ``desk_of``; the app (``companion.ui.app``) is the shell every
game shares, and names no game.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from kivy.app import App
from kivy.clock import Clock

from companion.i18n import _, ngettext, player_name
from companion.kinds.clank.controller import Controller
from companion.kinds.clank.screens.attack import AttackView
from companion.kinds.clank.view import AttackEvent, Offer, attacks_of, describe_action
from companion.live import Update

EDITION = "clank"  # the kind's controller plays Catacombs too: one for the kind


class ClankControl(Controller):
    """The Clank! controller of the app, with its desk: the app's store and tag
    registry, the panel's LEDs, its updates told to the desk."""

    def __init__(self, app: Any) -> None:
        super().__init__(app.store, registry=app.tags, signals=app.panel)
        self.desk = TableDesk(app, self)
        self.listeners.append(self.desk.on_update)


def desk_of(app: Any) -> TableDesk:
    """The Clank! desk of ``app`` (its controller made when first needed)."""
    control = app.control(EDITION)
    assert isinstance(control, ClankControl), control
    return control.desk


def open_clank_drawer() -> None:
    """The scan drawer of the running app's Clank! table (see TableDesk.open_drawer)."""
    desk_of(App.get_running_app()).open_drawer()


class TableDesk:
    """Clank!'s table on the touchscreen, beside its controller (see the module)."""

    def __init__(self, app: Any, controller: Controller) -> None:
        self.app = app
        self.controller = controller
        self.attack_view: AttackView | None = None  # the dragon's attack shown

    def menu_entries(self) -> list[tuple[str, Callable[[], Any]]]:
        """The menu's entries of the game on the table (a card's dragon attack, the rage,
        cancelling a refill, an artifact removed at set-up, the Catacombs deck-out), before
        the screens every table has."""
        from companion.kinds.clank.screens.choices import offer_label

        ctl = self.controller
        entries: list[tuple[str, Callable[[], Any]]] = []
        if ctl.phase == "playing":
            entries += [
                (_("Dragon attack (card effect)"), self.confirm_attack),
                (_("Rage +1"), lambda: ctl.do({"do": "rage", "n": 1})),
                (_("Rage −1"), lambda: ctl.do({"do": "rage", "n": -1})),
            ]
            if ctl.refill is not None:
                entries.append((_("Cancel the refill"), ctl.cancel_refill))
        aim = ctl.moment()  # each offer is what was legal as the menu opened
        offers = ctl.table_offers()
        removals = [o for o in offers if o.what == "removed"]
        if removals:
            entries.append(
                (_("Artifact removed at set-up"), partial(self.pick_removed, removals, aim))
            )
        for o in offers:
            if o.what == "deck_out":  # it ends the game: act asks first
                entries.append(
                    (offer_label(o, ctl.edition), partial(self.act, dict(o.action), aim))
                )
        return entries

    def pick_removed(self, offers: list[Offer], aim: tuple[object, ...]) -> None:
        """Which artifact the table removed unseen at set-up (the values still in the pile)."""
        from companion.kinds.clank.screens.choices import offer_label
        from companion.ui.screens.popups import Picker

        entries = [(offer_label(o, self.controller.edition), partial(self.act, dict(o.action), aim))
                   for o in offers]  # fmt: skip
        Picker(_("Which artifact was removed at set-up?"), entries).open()

    def on_update(self, update: Update) -> None:
        """What the app does when the Clank! controller tells it something."""
        app = self.app
        if getattr(app, "_building", False):
            return
        app.follow(update.kind)
        # the table screen's own line says what just happened: the status bar does not
        # repeat it there (it keeps what the line does not show: ignored scans, badges)
        on_table = app.screens.current == "table"
        # a deck to scan for scoring is said on the scoring screen, not in the status bar
        scoring = update.kind == "entry" and update.what == "scoring"
        told = ("rejected", "unknown_tag", "ignored", "entry", "seat")
        if update.kind in told and update.message and not scoring:
            repeated = on_table and update.kind not in ("ignored", "seat", "unknown_tag")
            app.status.text = app.ready_text if repeated else update.message
        elif update.kind in ("action", "game") or scoring:
            app.status.text = app.ready_text
        if update.kind == "seat" and app.screens.current == "newgame" and update.component:
            app.screens.get_screen("newgame").toggle_seat(update.component.name)
        if update.kind == "unknown_tag" and update.uid:
            app.choose_binding(update.uid, rebind=False, then=app.tell_status)
        attacks = attacks_of(update.detail)  # what the controller told of the action
        if attacks:
            self.show_attacks(attacks)

    def show_attacks(self, attacks: tuple[AttackEvent, ...]) -> None:
        """The dragon's attacks as events, one after the other (a refill's attack, then
        a countdown's draw): each one's Continue opens the next."""
        old, self.attack_view = self.attack_view, None
        if old is not None:
            old.dismiss()  # a newer attack replaces it (its queue is dropped)
        if not attacks:
            return
        first, rest = attacks[0], attacks[1:]
        view = AttackView()
        self.attack_view = view
        view.bind(on_dismiss=lambda v: self._attack_closed(v, rest))
        view.open()
        view.play(first)

    def _attack_closed(self, view: AttackView, rest: tuple[AttackEvent, ...]) -> None:
        if self.attack_view is view:
            self.attack_view = None
            if rest:
                Clock.schedule_once(lambda dt: self.show_attacks(rest), 0)

    def open_player_actions(self, player: str) -> None:
        from companion.kinds.clank.screens.choices import offer_label
        from companion.ui.screens.popups import Picker

        if self.controller.phase != "playing":
            return
        ctl = self.controller
        aim = ctl.moment()  # the menu offers what was legal as it opened
        entries = [(offer_label(o, ctl.edition), partial(self.act, dict(o.action), aim))
                   for o in ctl.offers(player)]  # fmt: skip
        Picker(_("{player}: what happened?").format(player=player_name(player, capital=True)),
               entries).open()  # fmt: skip

    def show_odds(self) -> None:
        """The next draw's odds for every player, whole (a tap on a player's figures)."""
        from companion.kinds.clank.screens.odds import OddsView

        view = self.controller.view()
        if view.phase == "playing" and any(p.odds for p in view.players):
            OddsView(view).open()

    def undo(self, aim: tuple[object, ...] | None = None) -> None:
        """Undo (the table's button, aimed at the moment its screen showed, or the
        panel's). Taking back an action that made a dragon draw asks first: the draw
        stays in the log, marked undone, and the action done again is a new draw with new
        cubes."""
        ctl = self.controller
        if not ctl.aimed(aim):
            return
        nonces = ctl.undo_draws()
        undone = ctl.table.game.undoable_action() if ctl.table is not None else None
        if not nonces or undone is None:
            ctl.undo()
            return
        numbers = ", ".join(f"#{n}" for n in nonces)
        note = ngettext(
            "Draw {numbers} stays in the log, marked undone: done again, the attack draws "
            "new cubes.",
            "Draws {numbers} stay in the log, marked undone: done again, the attacks draw "
            "new cubes.",
            len(nonces),
        ).format(numbers=numbers)
        what = describe_action(undone, [], ctl.edition)
        self.app.ask(_("Undo “{what}”?").format(what=what), _("Yes, undo it"), ctl.undo, note=note)

    def end_turn(self, aim: tuple[object, ...] | None = None) -> None:
        """End turn (the table's button, aimed at the turn its screen named, or the
        panel's). During the opening it starts the first turn (see begin); a turn whose end
        ends the game whatever the cubes (the countdown's last space...) ends once the
        table confirms, asked as the refill opens."""
        ctl = self.controller
        if not ctl.aimed(aim):
            return
        if ctl.phase == "opening":
            self.begin()
            return
        if ctl.refill is None and ctl.ends_game({"do": "end_turn", "revealed": []}):
            what = _("End turn ({player})").format(player=player_name(ctl.active))
            self.ask_ending(what, ctl.end_turn)
            return
        ctl.end_turn()

    def begin(self, aim: tuple[object, ...] | None = None) -> None:
        """Start the first turn; with fewer cards in the opening row than the box's row
        holds, once the table confirms (the client seed is fixed with the cards scanned)."""
        ctl = self.controller
        if not ctl.aimed(aim):
            return
        view = ctl.view()
        n, size = len(view.opening or ()), view.row_size
        if ctl.phase != "opening" or n >= size:
            ctl.begin()
            return
        self.app.ask(
            _("Opening row: {n} of {size} cards scanned. Start the first turn?").format(
                n=n, size=size
            ),
            _("Yes, start the first turn"),
            ctl.begin,
            note=_(
                "The client seed is fixed with these cards; the missing ones come with "
                "the first refill."
            ),
        )

    def act(self, action: dict[str, Any], aim: tuple[object, ...] | None = None) -> None:
        """A player's action picked from their panel's menu (aimed at the moment it
        opened): one that ends the game (the last player inside escapes) is done once the
        table confirms."""
        ctl = self.controller
        if not ctl.aimed(aim):
            return
        if not ctl.ends_game(action):
            ctl.do(action)
            return
        if action.get("do") == "escape":
            player = player_name(action["player"], capital=True)
            what = _("{player} escapes").format(player=player)
        else:
            what = describe_action(action, [], ctl.edition)
            what = what[:1].upper() + what[1:]
        self.ask_ending(what, partial(ctl.do, action))

    def ask_ending(self, what: str, action: Callable[[], Any]) -> None:
        """The question before ``what`` ends the game: the server seed comes out with it."""
        self.app.ask(
            _("{what}: the game ends. Go on?").format(what=what),
            _("Yes, end the game"),
            action,
            note=_("The server seed is revealed and nothing can be undone: the scoring begins."),
        )

    def confirm_attack(self) -> None:
        """A card's dragon attack: drawn only once the table confirms it."""
        ctl = self.controller
        n = ctl.view().next_attack
        note = ngettext(
            "It draws {n} cube from the bag now.", "It draws {n} cubes from the bag now.", n
        ).format(n=n)
        if ctl.ends_game({"do": "attack"}):
            note += " " + _("It ends the game and reveals the server seed.")
        self.app.ask(
            _("A card makes the dragon attack?"),
            _("Yes, the dragon attacks"),
            lambda: ctl.do({"do": "attack"}),
            note=note,
        )

    def confirm_close_game(self) -> None:
        """Close the scored game (the new-game screen follows); the decks not scanned yet
        are named first: their cards would never count."""
        from companion.ui.screens.popups import Confirm

        view = self.controller.view()
        empty = [p.name for p in view.players if not self.controller.deck(p.name)]
        note = ""
        if empty:
            note = ngettext(
                "{players}'s deck is not scored yet.",
                "Not scored yet: the decks of {players}.",
                len(empty),
            ).format(players=", ".join(player_name(p, capital=True) for p in empty))
        Confirm(
            _("Close the game? Its scores are final."),
            _("Yes, close the game"),
            self.close_game,
            note=note,
        ).open()

    def close_game(self) -> None:
        """Close game, confirmed: the close record, then the final proof full screen over
        the new-game screen (Done puts it away)."""
        self.app.screen("scoring").close_game()

    def pick_untagged_card(self) -> None:
        """A revealed card without a tag (or one that will not read): the table picks it
        from the box's dungeon cards, so that its Danger and its Arrive count; or says only
        whether it shows the dragon-attack symbol."""
        from companion.kinds.clank.screens.untagged import UntaggedPicker

        UntaggedPicker().open()

    def open_drawer(self) -> None:
        """The simulated reader: pick a component to 'scan' it. The pick lays its sticker
        on the simulated table's fake reader, and the reader worker reports the scan as on
        the Pi (the "No tag" entries are no scans). Without a simulated table (the app
        built without starting its hardware, as the test harness does) the pick goes to the
        controller at once."""
        import secrets

        from companion.kinds.clank.screens.choices import catalog_components, component_label
        from companion.store.tags import Component
        from companion.ui.screens.popups import Picker
        from companion.ui.simulated import SimulatedTable

        ctl = self.controller
        table: SimulatedTable | None = getattr(self.app, "simulated_table", None)
        scan: Callable[[Component], Any] = ctl.scan_component
        scan_uid: Callable[[str], Any] = self.app.on_scan
        if table is not None:
            scan, scan_uid = table.pick, table.lay
        edition = ctl.edition
        entries: list[tuple[str, Callable[[], Any]]] = []
        if ctl.refill is not None:
            entries += [
                (_("No tag: no dragon symbol"), lambda: ctl.reveal_untagged(False)),
                (_("No tag: dragon symbol"), lambda: ctl.reveal_untagged(True)),
            ]
        uid = "F" + secrets.token_hex(6).upper()[1:]
        entries.append((_("A new, unknown tag"), lambda: scan_uid(uid)))
        if ctl.phase in ("none", "abandoned"):
            entries += [
                (
                    _("Badge: {colour}").format(colour=player_name(b.name)),
                    partial(scan, b),
                )  # fmt: skip
                for b in _badges()
            ]
        sets: tuple[str, ...] = ("dungeon", "promo")
        if ctl.phase == "scoring":
            sets = ("starter", "reserve", "dungeon", "promo")
        tokens = ctl.phase == "playing"
        for c in catalog_components(edition, cards=sets, tokens=tokens):
            entries.append((component_label(c), partial(scan, c)))
        Picker(_("Scan drawer: tap what you would scan"), entries).open()


def _badges() -> list[Any]:
    from companion.store.tags import resolve
    from companion.ui.widgets import SEAT_COLOURS

    return [resolve("badge", None, c) for c in SEAT_COLOURS]
