"""The game controller: taps, scans and button presses in; committed actions out.

Everything a person does at the table reaches the game through here. The controller
turns a scan or a press into a table-script action, commits it to the game log
(``Table.apply``: commit before show), then tells its listeners (the screens) and the
panel (LEDs and buzzer) what happened. Screens never change state themselves: they call
the controller and redraw from ``view()``.

Call it from one thread only (the screen's main loop): reader and button threads must
hand their scans and presses over first (``Clock.schedule_once`` in Kivy).

Scans during a game, for the active player:
- a card, while the row is being refilled (after End turn): it is revealed into the row;
  the refill is committed when the row is full again, or when End turn is pressed again;
- a card that lies in the dungeon row, otherwise: it is taken from the row;
- an artifact, a secret, a prisoner: taken, revealed, freed; a monkey idol: gained;
  a market item: bought;
- a player badge: nothing during a game (it seats a player on the new-game screen);
- an unknown tag: the listeners are asked to enroll it.

Before the first turn (the opening phase) card scans lay out the opening row, whose tags
and the players' words become the client seed of the fair draw. After the game (the
scoring phase) card scans go into the deck of the player being scored.

What the table has scanned but not yet turned into an action (a refill half done, the
opening row, whose deck is being scored) is saved with each scan, so a power cut loses
nothing; the game log itself only ever holds actions.

Why one module of over 600 lines: the opening, the play and the scoring share the table
on screen and its work in progress (the opening row, the refill, the deck being scored),
which are saved together; the life every game shares is ``companion.live``, the legal
actions ``companion.kinds.clank.legal``, the view ``companion.kinds.clank.view``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from companion.i18n import _, current_language, localized, ngettext, player_name
from companion.kinds import kind_of
from companion.kinds.clank.catalog import UNTAGGED
from companion.kinds.clank.checklist import setup_checklist
from companion.kinds.clank.legal import legal_actions, table_actions
from companion.kinds.clank.rules import DrawRequest, RuleError
from companion.kinds.clank.rules.odds import AttackOdds, next_attack_odds
from companion.kinds.clank.rules.setup import as_listed
from companion.kinds.clank.table import Table
from companion.kinds.clank.view import (
    Attacks,
    Offer,
    TableView,
    attacks_from_events,
    describe_action,
    describe_undo,
    draw_views,
    make_view,
    setting_label,
)
from companion.live import LiveGame, Update
from companion.msg import EN_
from companion.session import Session
from companion.store import GameStore, StoreError
from companion.store.seal import SealError
from companion.store.tags import Component, TagRegistry

# what the table records before the first turn without beginning it: the client seed,
# an artifact removed at set-up (the Menu's), and the undo of either
_OF_THE_OPENING = ("seed", "removed")


class Signals(Protocol):
    """The LEDs and buzzer (hardware.gpio.Panel, or a fake)."""

    def signal(self, pattern: str) -> None: ...


def _work_in_progress(saved: dict[str, Any], seats: Sequence[str]) -> dict[str, Any]:
    """What was saved of the table's work in progress, each part kept only if it has the
    shape this program writes (a damaged row must not stop the app at every start)."""
    out: dict[str, Any] = {}

    def names(value: Any) -> bool:
        return isinstance(value, list) and all(isinstance(v, str) and v for v in value)

    if names(saved.get("refill")):
        out["refill"] = saved["refill"]
    opening = saved.get("opening")
    if isinstance(opening, list) and all(
        isinstance(c, dict)
        and isinstance(c.get("name"), str)
        and isinstance(c.get("uid", ""), str | None)
        for c in opening
    ):
        out["opening"] = opening
        if isinstance(saved.get("words"), str):
            out["words"] = saved["words"]
    if saved.get("scoring") in seats:
        out["scoring"] = saved["scoring"]
    return out


class Controller(LiveGame):
    """The app's own table: its scans, its actions, its view (see the module)."""

    refusals = (RuleError, StoreError)

    def __init__(
        self,
        store: GameStore,
        *,
        registry: TagRegistry | None = None,
        signals: Signals | None = None,
    ) -> None:
        super().__init__(store)
        self.store: GameStore = store
        self.session = Session(store)
        # the app's tag registry (companion.store.tags), read for what a scan names
        self.registry = registry if registry is not None else TagRegistry(store.db)
        self.signals = signals
        self.table: Table | None = None
        self.refill: list[str] | None = None  # cards revealed so far, while refilling
        self.opening: list[dict[str, str]] | None = None  # before the first turn
        self.words = ""  # typed by the players for the client seed
        self.scoring: str | None = None  # the player whose deck is being scanned
        # a running game that cannot be resumed (its seal key is lost or damaged; or it
        # is open in another program): (game, the reason as a Refusal)
        self.unresumable: tuple[int, StoreError] | None = None
        # the view last made, and what it was made of (Controller.view)
        self._shown: tuple[tuple[object, ...], TableView] | None = None

    # ------------------------------------------------------------------ games
    def owns(self, edition: str) -> bool:
        # the kind of Clank! (an edition nobody plays too: its set-up refuses it)
        return kind_of(edition) is kind_of("clank")

    def new_game(self, options: dict[str, Any]) -> Table:
        """Start and record a game (``options`` as in a table script's ``new`` line);
        the opening phase follows: the opening row and the client seed."""
        table = self.session.start(options)
        assert isinstance(table, Table)  # a Tschak! game has its own controller
        self._drop_table()
        self.table = table
        self.opening = []
        self._save()
        self._tell(Update("game", _("game {game} started").format(game=self.game_id)))
        return self.table

    def resume_last(self) -> Table | None:  # type: ignore[override]
        """Carry on where the table was after a restart, without asking: the last
        unfinished game, or the scoring of the last game if its scores were not closed."""
        return self.table if super().resume_last() == "resumed" else None

    def resume(self, game: int) -> bool:
        try:
            table = self.session.resume(game)
            assert isinstance(table, Table)
        except StoreError as e:  # the key is lost, or the game is open elsewhere
            self.unresumable = (game, e)
            self._refused(e)
            return False
        self._drop_table()
        self.unresumable = None
        self.table = table
        self._load_saved()
        if self.table.finished and self.scoring is None:
            self.scoring = self.table.game.state.seats[0]
        self._tell(Update("game", _("game {game} resumed").format(game=game)))
        return True

    def abandon_unresumable(self, reason: str = "the seal key was lost") -> bool:
        """Give up the game that cannot be resumed (see ``unresumable``); its log stays
        verifiable up to here, its draws can never be recomputed."""
        if self.unresumable is None:
            return False
        game, problem = self.unresumable
        if not isinstance(problem, SealError):
            self._refused(problem)
            return False
        try:
            self.store.abandon_unresumable(game, reason)
        except StoreError as e:
            self._refused(e)
            return False
        self.unresumable = None
        self._tell(
            Update(
                "game",
                _(
                    "game {game} abandoned: its seal key was lost, its draws can never be checked"
                ).format(game=game),
            )
        )
        return True

    def _may_abandon(self) -> bool:
        return self.table is not None and not self.table.finished

    def _reason(self, error: Exception) -> str:
        """A refusal as the table reads it: its language, its edition's words."""
        return localized(error, self.table.game.edition.name if self.table else None)

    def _clear(self) -> None:
        super()._clear()
        self.refill = None
        self.opening = None
        self.words = ""
        self.scoring = None

    def _work(self) -> dict[str, Any]:
        body: dict[str, Any] = {}
        if self.refill is not None:
            body["refill"] = self.refill
        if self.opening is not None:
            body["opening"] = self.opening
            body["words"] = self.words
        if self.scoring is not None:
            body["scoring"] = self.scoring
        return body

    def _restore(self, saved: dict[str, Any]) -> None:
        assert self.table is not None
        work = _work_in_progress(saved, self.table.game.state.seats)
        self.refill = work.get("refill")
        self.opening = work.get("opening")
        self.words = work.get("words", "")
        self.scoring = work.get("scoring")

    @property
    def phase(self) -> str:
        """The phase: none, opening, playing, scoring (game over) or abandoned."""
        if self.table is None:
            return "none"
        if self.table.abandoned:
            return "abandoned"
        if self.table.finished:
            return "scoring"
        if self.opening is not None:
            return "opening"
        return "playing"

    # ------------------------------------------------------------- opening
    def client_seed(self) -> str:
        """The opening row's tags as scanned (on a simulated table, the stickers the scan
        drawer laid), then the words."""
        parts = [c.get("uid") or c["name"] for c in self.opening or []]
        if self.words.strip():
            parts.append(" ".join(self.words.split()))
        return " ".join(parts)

    def set_words(self, words: str) -> None:
        """The words the players type into the client seed (at most as long as a table
        script's client seed may be: the seed is hashed into every draw)."""
        if self.opening is None:
            return
        from companion.script import MAX_CLIENT_SEED  # not before the first frame

        self.words = words[:MAX_CLIENT_SEED]
        self._save()
        self._tell(Update("entry", what="opening"))  # the client seed shown follows the words

    def _opening_card(self, c: Component, uid: str | None) -> None:
        assert self.table is not None and self.opening is not None
        card = self.table.game.catalog.card(c.name)
        size = self.table.game.edition.row_size
        if card is not None and card.dragon_attack:
            self._signal("unknown_tag")
            message = _(
                "{card} shows the dragon-attack symbol: "
                "replace it and shuffle it back into the deck"
            ).format(card=c.name)
            self._tell(Update("rejected", message))
            return
        if len(self.opening) >= size:
            message = ngettext(
                "the opening row holds {size} card", "the opening row holds {size} cards", size
            ).format(size=size)
            self._tell(Update("rejected", message))
            return
        self.opening.append({"name": c.name, "uid": uid or ""})
        self._save()
        self._signal("scan_ok")
        message = _("{card} laid out").format(card=c.name)
        self._tell(Update("entry", message, component=c, what="opening"))

    def _end_opening(self) -> None:
        self.opening = None
        self.words = ""
        self._save()

    def drop_opening_card(self) -> None:
        if self.opening:
            self.opening.pop()
            self._save()
            self._tell(Update("entry", _("last card taken back"), what="opening"))

    def begin(self) -> bool:
        """Fix the client seed and lay out the opening row: the first turn can start."""
        if self.table is None or self.opening is None:
            return False
        seed = self.client_seed()
        if seed and not self.do({"do": "seed", "client_seed": seed}):
            return False
        cards = [c["name"] for c in self.opening]
        if cards and not self.do({"do": "row", "cards": cards}):
            return False
        if self.opening is not None:  # no row laid out: nothing else ended it
            self._end_opening()
        self._tell(Update("game", _("the first turn begins")))
        return True

    def snapshot(self) -> dict[str, Any] | None:
        """The table in the table script's JSON shape, with the refill under way (for the
        tests and the harness: the screens read ``view()``)."""
        if self.table is None:
            return None
        out = self.table.snapshot()
        out["refill"] = None if self.refill is None else list(self.refill)
        out["can_undo"] = self.table.game.can_undo
        return out

    def view(self) -> TableView:
        """The table as the screens show it (see companion.kinds.clank.view): made once for
        what it shows (``_view_key``), however many screens read it after a change."""
        key = self._view_key()
        if self._shown is not None and self._shown[0] == key:
            return self._shown[1]
        view = self._make_view()
        self._shown = (key, view)
        return view

    def _view_key(self) -> tuple[object, ...]:
        """Everything the view is made of: the game (its actions, undos included, and its
        log's head), the work in progress, what just happened, the language of its words.
        A view made for the same key is the same view."""
        table = self.table
        refill = None if self.refill is None else tuple(self.refill)
        opening = None if self.opening is None else tuple(c["name"] for c in self.opening)
        return (
            table,
            None if table is None else table.actions_seen,
            None if table is None else getattr(table.log, "head", ""),
            self.phase,
            refill,
            opening,
            self.words,
            self.scoring,
            self.unresumable,
            self.last,
            current_language(),
        )

    def _make_view(self) -> TableView:
        unresumable = None
        if self.unresumable is not None:
            game, problem = self.unresumable
            unresumable = (game, localized(problem))
        if self.table is None:
            return TableView(last=self.last, unresumable=unresumable)
        return make_view(
            self.table.game,
            phase=self.phase,
            game_id=self.game_id,
            refill=self.refill,
            commitment=self.table.commitment,
            server_seed=self.table.server_seed,
            head=getattr(self.table.log, "head", ""),
            last=self.last,
            refill_space=self._refill_space() if self.refill is not None else 0,
            opening=None if self.opening is None else tuple(c["name"] for c in self.opening),
            words=self.words,
            scoring=self.scoring,
            unresumable=unresumable,
            odds=self._odds(),
        )

    def _odds(self) -> AttackOdds | None:
        """The exact odds of the next dragon draw that is sure to come: the countdown's
        while it runs, an out player's draw in Catacombs, else the attack of a refill
        (companion.kinds.clank.rules.odds.next_step, as the table script's ``odds``)."""
        assert self.table is not None
        if self.phase != "playing":
            return None
        return next_attack_odds(self.table.game)

    # ------------------------------------------------------ what screens ask
    @property
    def edition(self) -> str:
        """The box on the table (its words name things on screen); "clank" with none."""
        return self.table.game.edition.name if self.table is not None else "clank"

    def checklist(self) -> list[str]:
        """What the table does by hand before the first turn, in words; the settings
        that no rulebook prints are named for the table to check on its own board."""
        if self.table is None:
            return []
        setup = as_listed(self.table.setup)
        lines = setup_checklist(setup, self.table.game.state.removed)
        if setup.unconfirmed:
            lines = lines[: -len(setup.unconfirmed)] + [
                _("Check on your board: {what} is not printed in the rulebook.").format(
                    what=setting_label(setup.edition, key)
                )
                for key in setup.unconfirmed
            ]
        return lines

    def setup_numbers(self) -> tuple[int, int, list[str]] | None:
        """The game's rage start, health and the unconfirmed settings in words."""
        if self.table is None:
            return None
        setup = as_listed(self.table.setup)
        labels = [setting_label(setup.edition, u) for u in setup.unconfirmed]
        return setup.rage_start, setup.health, labels

    def settings_note(self) -> str:
        """The edition's numbers the Settings screen lists: the rage start, the health and
        the settings no rulebook prints (for the table to check on its own board)."""
        found = self.setup_numbers()
        if found is None:
            return ""
        rage_start, health, unconfirmed = found
        numbers = _("Edition numbers: rage start {r}, health {h}; unconfirmed: {u}")
        return numbers.format(r=rage_start, h=health, u=", ".join(unconfirmed) or _("none"))

    def dungeon_cards(self) -> list[tuple[str, bool]]:
        """The box's dungeon cards (name, shows the dragon symbol), by name: what the
        table picks from when a revealed card carries no tag."""
        if self.table is None:
            return []
        cards = self.table.game.catalog.cards.values()
        found = {c.name: c.dragon_attack for c in cards if c.set in ("dungeon", "promo")}
        return sorted(found.items(), key=lambda item: item[0].casefold())

    def offers(self, player: str) -> list[Offer]:
        """What ``player`` may do now, clank first, as the kind says is legal
        (``companion.kinds.clank.legal``): nothing outside play."""
        if self.table is None or self.phase != "playing":
            return []
        return legal_actions(self.table.game, player)

    def table_offers(self) -> list[Offer]:
        """What the table may record now from the Menu (``table_actions``): an artifact
        removed at set-up, the Catacombs deck-out; nothing outside the opening and play."""
        if self.table is None or self.phase not in ("opening", "playing"):
            return []
        return table_actions(self.table.game, opening=self.phase == "opening")

    # ---------------------------------------------------------------- actions
    def do(self, action: dict[str, Any], *, work: dict[str, Any] | None = None) -> bool:
        """Apply one action; True when it was committed (with ``work``, the table's work
        in progress after it, where given). A refusal is told, not raised."""
        if self.table is None:
            self._tell(Update("rejected", _("no game is running")))
            return False
        edition = self.table.game.edition.name
        undone = self.table.game.undoable_action() if action.get("do") == "undo" else None
        try:
            events = self.table.apply(action, work=work)
        except (RuleError, StoreError) as e:
            self._refused(e)
            return False
        of_the_opening = (undone or action).get("do") in _OF_THE_OPENING
        if self.opening is not None and not of_the_opening:
            self._end_opening()  # the game has begun
        if self.table.finished and self.scoring is None:
            self.scoring = self.table.game.state.seats[0]  # scoring begins with seat 1
            self.refill = None
            self._save()
        self._signal_events(events)
        if action.get("do") == "undo":
            message = describe_undo(undone, edition)
        else:
            message = describe_action(self.table.game.last_action or action, events, edition)
        detail = None
        if any(e["event"] == "draw" for e in events):
            draws = {d.nonce: d for d in draw_views(self.table.game)}
            detail = Attacks(attacks_from_events(events, draws))
        self._tell(Update("action", message, detail))
        return True

    def clank(self, n: int, player: str | None = None) -> bool:
        return self.do({"do": "clank", "player": player or self.active, "n": n})

    def undo(self) -> bool:
        if self.refill:
            self.refill.pop()  # the last revealed card, not yet committed
            self._save()
            self._tell(Update("entry", _("last revealed card taken back"), what="refill"))
            return True
        if self.opening:
            self.drop_opening_card()
            return True
        return self.do({"do": "undo"})

    def undo_draws(self) -> tuple[int, ...]:
        """The dragon draws (their numbers) that ``undo`` now would take back. Each stays
        in the log, marked undone, and the action done again is a new draw (the next
        number, new cubes): the table is asked first."""
        if self.table is None or self.refill or self.opening or not self.table.game.can_undo:
            return ()
        top = self.table.game.mark().top
        return tuple(d.nonce for d in top.draws) if top is not None else ()

    def ends_game(self, action: dict[str, Any]) -> bool:
        """Whether ``action`` would end the game (and reveal the server seed) whatever the
        cubes: tried on the game as it stands, then taken back as if never applied. A draw
        it makes takes the cubes that hurt least (never the fair draw's own, which nobody
        may see before the action is done): the trial ends the game only when the action
        ends it whatever is drawn (the last player inside escapes, the countdown's last
        space, a draw that empties the bag)."""
        if self.table is None or self.phase != "playing":
            return False
        game = self.table.game
        state = game.state
        out = [name for name in state.seats if not state.players[name].playing]
        inside = [name for name in state.seats if name not in out]
        order = ["black", *out, *inside, "ghost"]  # a ghost hurts everyone inside

        def least_harm(request: DrawRequest) -> list[str]:
            cubes = [kind for kind in order for _ in range(request.bag.get(kind, 0))]
            return cubes[: request.count]

        mark, chance, last = game.mark(), game.chance, game.last_action
        game.chance = least_harm
        try:
            game.apply(action)
            return game.state.game_over
        except RuleError:
            return False
        finally:
            game.rollback(mark)
            game.chance, game.last_action = chance, last

    def moment(self) -> tuple[Any, ...]:
        """The shared moment (a question asked, a tap aimed, is answered for it only), and
        what is on screen without being an action: the refill, the opening row."""
        if self.table is None:
            return super().moment()
        refill = None if self.refill is None else tuple(self.refill)
        opening = None if self.opening is None else len(self.opening)
        return (*super().moment(), refill, opening)

    def take(self, card: str) -> bool:
        """A card leaves the dungeon row (bought, defeated or used)."""
        return self.do({"do": "take", "card": card})

    @property
    def active(self) -> str:
        if self.table is None:
            raise RuntimeError("no game is running")
        state = self.table.game.state
        return state.seats[state.active]

    # ----------------------------------------------------------------- refill
    def end_turn(self) -> bool:
        """The End turn button: open the refill, or commit it when it is open."""
        if self.table is None or self.table.finished:
            self._tell(Update("rejected", _("no game is running")))
            return False
        if self.opening is not None:
            return self.begin()
        if self.refill is None:
            self.refill = []
            if self._refill_space() == 0:
                return self._commit_refill()
            self._save()
            n = self._refill_space()
            message = ngettext(
                "scan the {n} revealed card", "scan the {n} revealed cards", n
            ).format(n=n)
            self._tell(Update("entry", message, what="refill"))
            return True
        return self._commit_refill()

    def reveal_untagged(self, dragon: bool) -> None:
        """A revealed card has no tag (or it will not read): the table says whether it
        shows the dragon-attack symbol."""
        if self.refill is None or self.table is None:
            self._tell(Update("rejected", _("no refill is open: press End turn first")))
            return
        edition = self.table.game.edition.name
        self._reveal(Component("card", edition, UNTAGGED[dragon]))

    def _refill_space(self) -> int:
        assert self.table is not None
        size = self.table.game.edition.row_size
        return size - len(self.table.game.state.row) - len(self.refill or [])

    def _commit_refill(self) -> bool:
        """End the turn with the revealed cards. The refill is closed before anyone hears
        of the action: a screen redrawn then must not show a refill still open (tapping
        it would end the next player's turn with nothing revealed)."""
        revealed = list(self.refill or [])
        self.refill = None
        # the refill closed in the action's own transaction: a power cut between two
        # commits would bring the cards back as a refill still open, after the turn
        # they ended
        ok = self.do({"do": "end_turn", "revealed": revealed}, work=self._work_body())
        if not ok:  # refused: the revealed cards stay as they were, and the screens see them
            self.refill = revealed
            self._tell(Update("rejected", self.last))  # told again, the refill open
        return ok

    def cancel_refill(self) -> None:
        self.refill = None
        self._save()
        self._tell(Update("entry", _("refill cancelled"), what="refill"))

    def _reveal(self, c: Component) -> None:
        assert self.refill is not None and self.table is not None
        card = self.table.game.catalog.card(c.name)
        if card is None or not card.in_dungeon_deck:  # a starter or reserve card
            refusal = RuleError(EN_("{card} is not a dungeon card"), during="end_turn", card=c.name)
            self._signal("unknown_tag")
            self._refused(refusal)
            return
        if self._refill_space() <= 0:  # the row is full already: End turn ends the refill
            self._tell(Update("rejected", _("the row is full: press End turn")))
            return
        self.refill.append(c.name)
        self._signal("scan_ok")
        if self._refill_space() <= 0:
            self._commit_refill()
        else:
            self._save()
            message = _("{card} revealed").format(card=c.name)
            self._tell(Update("entry", message, component=c, what="refill"))

    # ---------------------------------------------------------------- scoring
    def deck(self, player: str) -> list[str]:
        assert self.table is not None
        return list(self.table.game.state.players[player].cards or [])

    def score_player(self, player: str) -> None:
        if self.table is None or player not in self.table.game.state.players:
            return
        self.scoring = player
        self._save()
        message = _("{player}: scan your deck").format(player=player_name(player))
        self._tell(Update("entry", message, what="scoring"))

    def add_to_deck(self, name: str, player: str | None = None) -> bool:
        player = player or self.scoring
        if player is None:
            return False
        return self.do({"do": "cards", "player": player, "cards": [*self.deck(player), name]})

    def remove_from_deck(self, name: str, player: str | None = None) -> bool:
        player = player or self.scoring
        if player is None:
            return False
        cards = self.deck(player)
        if name not in cards:
            return False
        cards.reverse()
        cards.remove(name)  # the last copy scanned
        cards.reverse()
        return self.do({"do": "cards", "player": player, "cards": cards})

    # ------------------------------------------------------------------ scans
    def scan(self, uid: str) -> None:
        """A tag was scanned (already debounced by the reader worker)."""
        component = self.registry.lookup(uid)
        if component is None:
            self._signal("unknown_tag")
            self._tell(Update("unknown_tag", _("unknown tag {uid}").format(uid=uid), uid=uid))
            return
        self.scan_component(component, uid)

    def scan_component(self, component: Component, uid: str | None = None) -> None:
        """A component was scanned (or picked in the simulated table's scan drawer)."""
        if component.kind == "badge":
            self._signal("scan_ok")
            message = _("{colour} badge").format(colour=player_name(component.name))
            self._tell(Update("seat", message, uid=uid, component=component))
            return
        if self.table is None or self.table.abandoned:
            message = _("{component}: no game is running").format(component=component.localized())
            self._tell(Update("ignored", message, uid=uid))
            return
        edition = self.table.game.edition.name
        if component.edition != edition:
            self._signal("unknown_tag")
            message = _("{component} is not in this game's box").format(
                component=component.localized()
            )
            self._tell(Update("rejected", message, uid=uid))
            return
        if self.table.finished:
            if component.kind == "card" and self.add_to_deck(component.name):
                self._signal("scan_ok")
            elif component.kind != "card":
                self._tell(Update("ignored", _("{component} was counted when it was taken")
                                  .format(component=component.localized())))  # fmt: skip
            return
        if self.opening is not None and component.kind == "card":
            self._opening_card(component, uid)
            return
        action = self._action_for(component)
        if action is None:
            return
        if self.do(action):
            self._signal("scan_ok")

    def _action_for(self, c: Component) -> dict[str, Any] | None:
        assert self.table is not None
        player = self.active
        if c.kind == "card":
            if self.refill is not None:
                self._reveal(c)
                return None
            return {"do": "take", "card": c.name}
        if c.kind == "artifact":
            return {"do": "artifact", "player": player, "value": int(c.name)}
        if c.kind in ("major_secret", "minor_secret"):
            return {"do": "secret", "player": player, "name": c.name}
        if c.kind == "prisoner":
            return {"do": "prisoner", "player": player, "name": c.name}
        if c.kind == "market":
            return {"do": "buy", "player": player, "item": c.name}
        if c.name == "mastery token":
            self._tell(Update("ignored", _("the mastery token comes with escaping"), component=c))
            return None
        return {"do": "token", "player": player, "name": c.name}

    # ---------------------------------------------------------------- outputs
    def _signal_events(self, events: list[dict[str, Any]]) -> None:
        kinds = {e["event"] for e in events}
        if "knocked_out" in kinds:
            self._signal("knocked_out")
        elif "draw" in kinds:
            self._signal("attack")

    def _signal(self, pattern: str) -> None:
        if self.signals is not None:
            self.signals.signal(pattern)
