"""The exact odds of the next dragon attack (``odds`` in the table script's ``--json``).

The model (TABLE_SCRIPT.md, "The next attack's odds"): the Clank! area is poured into the
bag, then ``count`` cubes are drawn without replacement (the whole bag if it holds fewer).
A player in the dungeon loses 1 health per cube of their own colour drawn and, in
Catacombs, 1 per ghost cube drawn; the loss is capped at the health they have left, so the
last entry of their distribution is the chance of being knocked out. Cubes of players who
are out of the dungeon count as black.

For one player only the number of drawn cubes that hurt them matters, and those cubes form
a single class of the bag (their own cubes plus the ghosts): the damage before the cap is
hypergeometric, P(k) = C(s, k) C(N - s, n - k) / C(N, n) with s hurting cubes among N,
n drawn. Everything is computed with integers and Fractions; floats appear only in
``odds_json``. Pure: stdlib only, no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from math import comb
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from companion.rules.game import Game

GHOST = "ghost"
BLACK = "black"

_ONE = Fraction(1)
_ZERO = Fraction(0)


@dataclass(frozen=True, slots=True)
class PlayerOdds:
    """``damage[k]``: the probability that the attack costs exactly k health, k = 0 .. h."""

    damage: tuple[Fraction, ...]

    @property
    def knock_out(self) -> Fraction:
        """The chance of losing all the health left (the last entry of ``damage``)."""
        return self.damage[-1]

    @property
    def expected(self) -> Fraction:
        """The expected health lost (with the cap at the health left)."""
        return sum((k * p for k, p in enumerate(self.damage) if k), _ZERO)


@dataclass(frozen=True, slots=True)
class AttackOdds:
    count: int  # cubes actually drawn: min(requested, cubes in the bag after pouring)
    players: dict[str, PlayerOdds]  # every player still in the dungeon, in seat order


def _check_counts(what: str, counts: Mapping[str, int]) -> None:
    for kind, n in counts.items():
        if not isinstance(n, int) or n < 0:
            raise ValueError(f"{what}[{kind!r}] must be a whole number >= 0, not {n!r}")


def _distribution(total: int, hurting: int, drawn: int, health: int) -> tuple[Fraction, ...]:
    """The capped hypergeometric distribution: ``hurting`` of ``total`` cubes cost 1 health
    each, ``drawn`` cubes are drawn, at most ``health`` is lost."""
    if health == 0:
        return (_ONE,)
    ways = comb(total, drawn)  # >= 1: drawn <= total
    others = total - hurting
    top = min(hurting, drawn)  # most hurting cubes that can come out
    low = max(0, drawn - others)  # fewest hurting cubes that can come out
    out: list[Fraction] = []
    below = 0  # ways of losing less than the health left
    for k in range(health):
        if low <= k <= top:
            w = comb(hurting, k) * comb(others, drawn - k)
            below += w
            out.append(Fraction(w, ways))
        else:
            out.append(_ZERO)
    # Vandermonde: the ways of every k add up to C(total, drawn), so the tail is exact
    out.append(Fraction(ways - below, ways))
    return tuple(out)


def attack_odds(
    bag: Mapping[str, int],
    area: Mapping[str, int],
    count: int,
    health_left: Mapping[str, int],
    ghost_hurts: bool = True,
) -> AttackOdds:
    """The odds of drawing ``count`` cubes after pouring ``area`` into ``bag``.

    ``health_left`` names the players still in the dungeon (in seat order) with the health
    each has left; the cubes of any other colour count as black. With ``ghost_hurts`` (the
    engine's rule) every ghost drawn costs every player 1 health; without, ghosts are black.
    """
    _check_counts("bag", bag)
    _check_counts("area", area)
    _check_counts("health_left", health_left)
    for name in health_left:
        if name in (GHOST, BLACK):
            raise ValueError(f"{name!r} is a cube kind, not a player")
    total = sum(bag.values()) + sum(area.values())
    drawn = min(max(count, 0), total)
    ghosts = bag.get(GHOST, 0) + area.get(GHOST, 0) if ghost_hurts else 0
    players: dict[str, PlayerOdds] = {}
    seen: dict[tuple[int, int], PlayerOdds] = {}  # players with as many cubes and health
    for name, health in health_left.items():
        hurting = bag.get(name, 0) + area.get(name, 0) + ghosts
        key = (hurting, health)
        odds = seen.get(key)
        if odds is None:
            odds = seen[key] = PlayerOdds(_distribution(total, hurting, drawn, health))
        players[name] = odds
    return AttackOdds(drawn, players)


def next_attack_odds(game: Game) -> AttackOdds | None:
    """The odds of the next dragon attack a refill would trigger (None: the game is over)."""
    s = game.state
    if s.game_over:
        return None
    health = game.setup.health
    inside = {name: s.players[name] for name in s.seats if s.players[name].playing}
    health_left = {name: max(0, health - p.damage) for name, p in inside.items()}
    return attack_odds(s.bag, s.area, game.attack_size(), health_left, ghost_hurts=True)


def odds_json(odds: AttackOdds) -> dict[str, Any]:
    """The ``odds`` object of the table script's ``--json`` output."""
    return {
        "count": odds.count,
        "players": {
            name: {"damage": [float(p) for p in po.damage], "knock_out": float(po.knock_out)}
            for name, po in odds.players.items()
        },
    }
