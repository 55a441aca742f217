"""The game controller: taps, scans and button presses in; committed actions out.

Everything a person does at the table reaches the game through here. The controller
turns a scan or a press into a table-script action, commits it to the game log
(``Table.apply``: commit before show), then tells its listeners (the screens) and the
panel (LEDs and buzzer) what happened. Screens never change state themselves: they call
the controller and redraw from ``snapshot()``.

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
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from companion.rules import RuleError
from companion.store import GameStore, StoreError
from companion.store.tags import Component, TagRegistry
from companion.table import Table


class Signals(Protocol):
    """The LEDs and buzzer (hardware.gpio.Panel, or a fake)."""

    def signal(self, pattern: str) -> None: ...


@dataclass
class Update:
    """What the listeners hear after each thing that happened."""

    kind: str  # "action", "refill", "rejected", "unknown_tag", "seat", "game", "ignored"
    message: str = ""
    events: list[dict[str, Any]] = field(default_factory=list)
    uid: str | None = None
    component: Component | None = None


Listener = Callable[[Update], None]


class Controller:
    def __init__(
        self,
        store: GameStore,
        *,
        registry: TagRegistry | None = None,
        signals: Signals | None = None,
    ) -> None:
        self.store = store
        self.registry = registry if registry is not None else TagRegistry(store.db)
        self.signals = signals
        self.table: Table | None = None
        self.refill: list[str] | None = None  # cards revealed so far, while refilling
        self.listeners: list[Listener] = []

    # ------------------------------------------------------------------ games
    def new_game(self, options: dict[str, Any]) -> Table:
        """Start and record a game (``options`` as in a table script's ``new`` line)."""
        self.table = self.store.start(options)
        self.refill = None
        self._tell(Update("game", f"game {self.game_id} started"))
        return self.table

    def resume_last(self) -> Table | None:
        """Carry on the last unfinished game, if any (after a restart, without asking)."""
        game = self.store.last_unfinished()
        if game is None:
            return None
        self.table = self.store.resume(game)
        self.refill = None
        self._tell(Update("game", f"game {game} resumed"))
        return self.table

    @property
    def game_id(self) -> int | None:
        log = self.table.log if self.table is not None else None
        return getattr(log, "game", None)

    def snapshot(self) -> dict[str, Any] | None:
        if self.table is None:
            return None
        out = self.table.snapshot()
        out["refill"] = None if self.refill is None else list(self.refill)
        out["can_undo"] = self.table.game.can_undo
        return out

    # ---------------------------------------------------------------- actions
    def do(self, action: dict[str, Any]) -> bool:
        """Apply one action; True when it was committed. A refusal is told, not raised."""
        if self.table is None:
            self._tell(Update("rejected", "no game is running"))
            return False
        try:
            events = self.table.apply(action)
        except (RuleError, StoreError) as e:
            self._tell(Update("rejected", str(e)))
            return False
        self._signal_events(events)
        self._tell(Update("action", action.get("do", ""), events))
        return True

    def clank(self, n: int, player: str | None = None) -> bool:
        return self.do({"do": "clank", "player": player or self.active, "n": n})

    def undo(self) -> bool:
        if self.refill:
            self.refill.pop()  # the last revealed card, not yet committed
            self._tell(Update("refill", "last revealed card taken back"))
            return True
        return self.do({"do": "undo"})

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
            self._tell(Update("rejected", "no game is running"))
            return False
        if self.refill is None:
            self.refill = []
            if self._refill_space() == 0:
                return self._commit_refill()
            self._tell(Update("refill", f"scan the {self._refill_space()} revealed cards"))
            return True
        return self._commit_refill()

    def _refill_space(self) -> int:
        assert self.table is not None
        size = self.table.game.edition.row_size
        return size - len(self.table.game.state.row) - len(self.refill or [])

    def _commit_refill(self) -> bool:
        revealed = list(self.refill or [])
        ok = self.do({"do": "end_turn", "revealed": revealed})
        if ok:
            self.refill = None
        return ok

    def cancel_refill(self) -> None:
        self.refill = None
        self._tell(Update("refill", "refill cancelled"))

    # ------------------------------------------------------------------ scans
    def scan(self, uid: str) -> None:
        """A tag was scanned (already debounced by the reader worker)."""
        component = self.registry.lookup(uid)
        if component is None:
            self._signal("unknown_tag")
            self._tell(Update("unknown_tag", f"unknown tag {uid}", uid=uid))
            return
        self.scan_component(component, uid)

    def scan_component(self, component: Component, uid: str | None = None) -> None:
        """A component was scanned (or picked in the simulated table's scan drawer)."""
        if component.kind == "badge":
            self._signal("scan_ok")
            self._tell(Update("seat", f"{component.name} badge", uid=uid, component=component))
            return
        if self.table is None or self.table.finished:
            self._tell(Update("ignored", f"{component}: no game is running", uid=uid))
            return
        edition = self.table.game.edition.name
        if component.edition != edition:
            self._signal("unknown_tag")
            self._tell(Update("rejected", f"{component} is not in this game's box", uid=uid))
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
                self.refill.append(c.name)
                self._signal("scan_ok")
                if self._refill_space() <= 0:
                    self._commit_refill()
                else:
                    self._tell(Update("refill", f"{c.name} revealed", component=c))
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
            self._tell(Update("ignored", "the mastery token comes with escaping", component=c))
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

    def _tell(self, update: Update) -> None:
        for listener in list(self.listeners):
            listener(update)
