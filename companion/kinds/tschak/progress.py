"""What the Tschak! controller holds between two taps: the game's table, the set-up
under way, and what the table has entered on screen that is not an action yet (a tower's
slots, the teams, the last cards, the piles, the verdict on screen). It is saved at every
change (the store's ``in_progress`` row), so a restart comes back to the same screen with
the same cards on it. ``Entry`` (entering the cards) and ``TschakControl`` (the face the
screens call) build on it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from companion.i18n import _
from companion.kinds.tschak.catalog_check import CatalogCheck
from companion.kinds.tschak.rules import Hero, TowerCard, TschakError, TschakGame
from companion.kinds.tschak.views import Phase, Update
from companion.kinds.tschak.words import error_text, refusal, who
from companion.live import LiveGame

EDITION = "tschak"


@runtime_checkable
class TschakTableLike(Protocol):
    """What the controller needs of a table: a TschakTable, or a Session's table that
    commits each action to the game log before returning."""

    game: TschakGame

    def apply(self, action: dict[str, Any]) -> list[dict[str, Any]]: ...

    def snapshot(self) -> dict[str, Any]: ...

    def close(self) -> None: ...


StartFn = Callable[[dict[str, Any]], TschakTableLike]
ResumeFn = Callable[[int], TschakTableLike]


def _default_start(options: dict[str, Any]) -> TschakTableLike:
    from companion.kinds.tschak.table import TschakTable  # a table without a log

    return TschakTable(options)


class Progress(LiveGame):
    """The controller's state, how it is read, saved and told."""

    refusals = (Exception,)  # the rules' refusals, and the store's (a full disk...)

    def __init__(
        self,
        *,
        start: StartFn | None = None,
        resume: ResumeFn | None = None,
        store: Any = None,
        registry: Any = None,
        catalog_path: Path | None = None,
    ) -> None:
        super().__init__(store)
        self._start = start or _default_start
        self._resume = resume
        self.registry = registry
        self.check = CatalogCheck(catalog_path)
        self.table: TschakTableLike | None = None
        self.pending: dict[str, Any] | None = None  # the set-up: players, settings
        self.check_draft: Hero | TowerCard | None = None  # the card as the table set it
        self.check_message = ""
        self._clear()

    def owns(self, edition: str) -> bool:
        return edition == EDITION

    def _reason(self, error: Exception) -> str:
        return refusal(error) if isinstance(error, TschakError) else error_text(error)

    def _clear(self) -> None:
        super()._clear()
        self.slots: dict[str, list[str | None]] = {"monsters": [None] * 3, "treasures": [None] * 3}
        self.teams: dict[str, list[str]] = {}
        self.misplays: set[str] = set()
        self.last_cards: dict[str, str] = {}
        self.selected: str | None = None
        self.showing: tuple[str, int] | None = None  # ("floor" | "trophies", index)
        self.question: dict[str, Any] | None = None  # a tie the table settles
        self.scores_visible = False
        self.piles: dict[str, list[str]] = {}
        self.revealed = False

    # ------------------------------------------------------------------ reading
    @property
    def game(self) -> TschakGame | None:
        return self.table.game if self.table is not None else None

    @property
    def active(self) -> bool:
        """A Tschak! game is on the table, or its set-up is under way."""
        return self.table is not None or self.pending is not None

    @property
    def in_play(self) -> bool:
        return self.active

    @property
    def phase(self) -> Phase:
        if self.table is None:
            return "setup" if self.pending is not None else "none"
        game = self.table.game
        if self.showing is not None:
            return "verdict" if self.showing[0] == "floor" else "trophy_verdict"
        if game.game_over:
            return "over"
        nxt = game.next_action()
        return nxt if nxt in ("tower", "floor", "trophies") else "over"  # type: ignore[return-value]

    def moment(self) -> tuple[object, ...]:
        """The shared moment, and what is entered on screen (a card laid or taken back
        changes what Resolve means)."""
        entered = (
            tuple((p, tuple(c)) for p, c in sorted(self.teams.items())),
            tuple(sorted(self.misplays)),
            tuple(sorted(self.last_cards.items())),
            tuple(tuple(v) for v in self.slots.values()),
            self.showing,
            self.question is not None,
        )
        return (*super().moment(), entered)

    def snapshot(self) -> dict[str, Any] | None:
        return self.table.snapshot() if self.table is not None else None

    @property
    def entered(self) -> bool:
        """Something is entered on screen that no action has taken yet."""
        return bool(
            any(self.teams.values())
            or self.last_cards
            or any(self.slots["monsters"])
            or any(self.slots["treasures"])
            or any(self.piles.values())
        )

    def hint(self) -> str:
        """What to do now, in one line."""
        phase = self.phase
        game = self.game
        if phase == "tower":
            return _("Scan or tap each floor's monster and treasure.")
        if phase == "floor":
            target = who(self.selected) if self.selected else ""
            return _("Lay each team on the reader card by card, or tap. Next: {player}").format(
                player=target
            )
        if phase == "trophies":
            return _("Scan or tap each player's last card.")
        if phase == "verdict":
            return _("Take the cards; then the next floor.")
        if phase == "trophy_verdict":
            return _("Take the gold; pass your 10 cards to the left.")
        if phase == "over" and game is not None:
            return _("Each player scans their two piles.")
        return ""

    # ------------------------------------------------------------------ saving
    def _work(self) -> dict[str, Any]:
        body: dict[str, Any] = {"tschak": True}
        if any(self.slots["monsters"]) or any(self.slots["treasures"]):
            body["slots"] = self.slots
        if self.teams:
            body["teams"] = self.teams
        if self.misplays:
            body["misplays"] = sorted(self.misplays)
        if self.last_cards:
            body["last"] = self.last_cards
        if self.selected:
            body["selected"] = self.selected
        if self.showing:
            body["showing"] = list(self.showing)
        if self.scores_visible:
            body["scores"] = True
        if self.piles:
            body["piles"] = self.piles
        if self.revealed:
            body["revealed"] = True
        return body

    def _restore(self, saved: dict[str, Any]) -> None:
        """What the table had entered before a restart, each part kept only if it has the
        shape this program writes."""
        if self.game is None:
            return
        players = set(self.game.players)

        def names(value: Any) -> bool:
            return isinstance(value, list) and all(isinstance(v, str) for v in value)

        slots = saved.get("slots")
        if isinstance(slots, dict) and all(
            isinstance(slots.get(k), list)
            and len(slots[k]) == 3
            and all(v is None or isinstance(v, str) for v in slots[k])
            for k in ("monsters", "treasures")
        ):
            self.slots = {k: list(slots[k]) for k in ("monsters", "treasures")}
        teams = saved.get("teams")
        if isinstance(teams, dict):
            self.teams = {p: list(v) for p, v in teams.items() if p in players and names(v)}
        if names(saved.get("misplays")):
            self.misplays = set(saved["misplays"]) & players
        last = saved.get("last")
        if isinstance(last, dict):
            self.last_cards = {p: v for p, v in last.items() if p in players and isinstance(v, str)}
        if saved.get("selected") in players:
            self.selected = saved["selected"]
        showing = saved.get("showing")
        if (
            isinstance(showing, list)
            and len(showing) == 2
            and showing[0] in ("floor", "trophies")
            and isinstance(showing[1], int)
        ):
            records = self.game.state.floors if showing[0] == "floor" else self.game.state.trophies
            if 0 <= showing[1] < len(records):
                self.showing = (showing[0], showing[1])
        self.scores_visible = saved.get("scores") is True
        piles = saved.get("piles")
        if isinstance(piles, dict):
            self.piles = {p: list(v) for p, v in piles.items() if p in players and names(v)}
        self.revealed = saved.get("revealed") is True

    # ------------------------------------------------------------------ actions
    def do(self, action: dict[str, Any]) -> list[dict[str, Any]] | None:
        """Apply one action; its events, or None when refused (the table is told why,
        the game unchanged)."""
        if self.table is None:
            self._tell(Update("rejected", _("no game is running")))
            return None
        try:
            events = self.table.apply(action)
        except TschakError as e:
            if e.code == "tie_unresolved" and action.get("do") in ("floor", "trophies"):
                self._ask(action, e)
                return None
            self._tell(Update("rejected", refusal(e)))
            return None
        except Exception as e:  # noqa: BLE001 - the store refused (a full disk...)
            self._tell(Update("rejected", error_text(e)))
            return None
        return events

    def _ask(self, action: dict[str, Any], error: TschakError) -> None:
        tied = [p for p in error.params.get("tied", []) if isinstance(p, str)]
        self.question = {"action": action, "tied": tied, "order": []}
        self._tell(Update("entry", self.question_text()))

    def question_text(self) -> str:
        """The open tie's question, with the order tapped so far."""
        q = self.question or {}
        tied = [who(p) for p in q.get("tied", [])]
        order = [who(p) for p in q.get("order", [])]
        text = _("{players} are still tied after the dwarves. Who is stronger?").format(
            players=", ".join(tied)
        )
        if order:
            text += " " + _("So far, strongest first: {players}").format(players=", ".join(order))
        return text
