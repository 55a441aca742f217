"""The game state: plain data, cheap to copy (a copy is taken before every action)."""

from __future__ import annotations

from dataclasses import dataclass, field

PLAYING = "playing"
ESCAPED = "escaped"
KNOCKED_OUT = "knocked_out"


@dataclass(slots=True)
class Player:
    name: str
    seat: int  # 0-based
    supply: int
    meter: int = 0  # the player's own cubes on the health meter
    meter_black: int = 0  # black cubes marking ghost damage (Catacombs)
    status: str = PLAYING
    in_depths: bool = False
    knocked_out_in_depths: bool = False
    credit: int = 0  # anti-clank left this turn
    gold: int = 0
    artifacts: list[int] = field(default_factory=list)
    tokens: dict[str, int] = field(default_factory=dict)  # monkey idol, master key, ...
    crowns: list[int] = field(default_factory=list)
    secrets: dict[str, int] = field(default_factory=dict)  # every secret revealed
    prisoners: list[str] = field(default_factory=list)
    coupons: int = 0
    shrines: int = 0
    cards: list[str] | None = None

    @property
    def damage(self) -> int:
        return self.meter + self.meter_black

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
            self.status,
            self.in_depths,
            self.knocked_out_in_depths,
            self.credit,
            self.gold,
            self.artifacts.copy(),
            self.tokens.copy(),
            self.crowns.copy(),
            self.secrets.copy(),
            self.prisoners.copy(),
            self.coupons,
            self.shrines,
            None if self.cards is None else self.cards.copy(),
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
    artifacts_left: list[int]
    stock: dict[str, int]  # tokens left: monkey idols and market items
    crowns_left: list[int]
    countdown: Countdown | None = None
    game_over: bool = False
    end_reason: str = ""
    opening_row_set: bool = False

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
            self.artifacts_left.copy(),
            self.stock.copy(),
            self.crowns_left.copy(),
            None if self.countdown is None else Countdown(*self.countdown.astuple()),
            self.game_over,
            self.end_reason,
            self.opening_row_set,
        )

    def in_dungeon(self) -> list[Player]:
        return [p for p in self.players.values() if p.playing]
