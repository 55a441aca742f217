"""The game state: plain data, cheap to copy (a copy is taken before every action)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

PLAYING = "playing"
ESCAPED = "escaped"
KNOCKED_OUT = "knocked_out"


@dataclass(slots=True)
class Player:
    """One player. Holdings that change rarely (artifacts, tokens, secrets, prisoners, the
    declared deck) are immutable values, replaced on change and shared between copies;
    only the numbers are copied."""

    name: str
    seat: int  # 0-based
    supply: int
    meter: int = 0  # the player's own cubes on the health meter
    meter_black: int = 0  # black cubes from the treasury marking ghost damage (Catacombs)
    # ghost damage marked with a black cube from the box: the treasury had none left
    # (Catacombs ru:909-911, uk:557: the damage counts all the same); never one of the 24
    meter_box: int = 0
    status: str = PLAYING
    in_depths: bool = False
    knocked_out_in_depths: bool = False
    credit: int = 0  # anti-clank left this turn
    gold: int = 0
    artifacts: tuple[int, ...] = ()
    tokens: Mapping[str, int] = field(default_factory=dict)  # monkey idol, master key, ...
    crowns: tuple[int, ...] = ()
    secrets: Mapping[str, int] = field(default_factory=dict)  # every secret revealed
    prisoners: tuple[str, ...] = ()
    coupons: int = 0
    shrines: int = 0
    cards: tuple[str, ...] | None = None

    @property
    def damage(self) -> int:
        return self.meter + self.meter_black + self.meter_box

    @property
    def playing(self) -> bool:
        return self.status == PLAYING

    def clone(self) -> Player:
        return Player(
            self.name,
            self.seat,
            self.supply,
            self.meter,
            self.meter_black,
            self.meter_box,
            self.status,
            self.in_depths,
            self.knocked_out_in_depths,
            self.credit,
            self.gold,
            self.artifacts,
            self.tokens,
            self.crowns,
            self.secrets,
            self.prisoners,
            self.coupons,
            self.shrines,
            self.cards,
        )


@dataclass(slots=True)
class Countdown:
    player: str
    space: int

    def astuple(self) -> tuple[str, int]:
        return (self.player, self.space)


@dataclass(slots=True)
class State:
    seats: tuple[str, ...]
    players: dict[str, Player]
    rage: int  # 0-based space on the rage track
    row: list[str]  # card names as in the catalog
    area: dict[str, int]  # the Clank! area: players and "ghost"
    bag: dict[str, int]  # "black", players, "ghost"
    set_aside: dict[str, int]  # drawn black cubes and cubes of out players (the treasury)
    ghost_treasury: int
    active: int  # seat index of the active player
    turn: int
    client_seed: str
    artifacts_left: tuple[int, ...]
    stock: Mapping[str, int]  # tokens left: monkey idols and market items (replaced on change)
    crowns_left: tuple[int, ...]
    countdown: Countdown | None = None
    game_over: bool = False
    end_reason: str = ""
    opening_row_set: bool = False
    # the artifacts the table removed unseen at set-up, as recorded (the ``new`` line's
    # "removed_artifacts", or one ``removed`` action each): nobody may take them
    removed: tuple[int, ...] = ()

    def clone(self) -> State:
        return State(
            self.seats,
            {k: p.clone() for k, p in self.players.items()},
            self.rage,
            self.row.copy(),
            self.area.copy(),
            self.bag.copy(),
            self.set_aside.copy(),
            self.ghost_treasury,
            self.active,
            self.turn,
            self.client_seed,
            self.artifacts_left,
            self.stock,
            self.crowns_left,
            None if self.countdown is None else Countdown(*self.countdown.astuple()),
            self.game_over,
            self.end_reason,
            self.opening_row_set,
            self.removed,
        )

    def in_dungeon(self) -> list[Player]:
        return [p for p in self.players.values() if p.playing]
