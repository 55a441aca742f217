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

Which step (``next_step``): while the countdown runs (Clank!), its next step; in
Catacombs, once a player is out, an out player's draw (one comes round before the
active player's next refill); otherwise the attack a dragon symbol in the next refill
would bring. Two steps end the game whatever the cubes: the countdown marker reaching its
last space (it draws nothing) and, in Catacombs, a draw that takes the whole bag. Their
odds say so (``ends_game``): every player still inside is knocked out.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from math import comb
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from companion.kinds.clank.rules.game import Game

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
        return _expected(self.damage)


@lru_cache(maxsize=256)
def _expected(damage: tuple[Fraction, ...]) -> Fraction:
    return sum((k * p for k, p in enumerate(damage) if k), _ZERO)


@dataclass(frozen=True, slots=True)
class AttackOdds:
    count: int  # cubes actually drawn: min(requested, cubes in the bag after pouring)
    players: dict[str, PlayerOdds]  # every player still in the dungeon, in seat order
    reason: str = "attack"  # the step: "attack", "countdown" or "out_draw"
    ends_game: bool = False  # the step knocks out everyone inside, whatever the cubes


@dataclass(frozen=True, slots=True)
class NextStep:
    """The next dragon draw the odds are of (see ``next_step``)."""

    reason: str  # "attack", "countdown" or "out_draw"
    count: int  # cubes the step asks for (the countdown's last space: 0)
    ends_game: bool  # everyone still inside is knocked out, whatever the cubes


def _check_counts(what: str, counts: Mapping[str, int]) -> None:
    for kind, n in counts.items():
        if not isinstance(n, int) or n < 0:
            raise ValueError(f"{what}[{kind!r}] must be a whole number >= 0, not {n!r}")


@lru_cache(maxsize=256)  # the table asks again at every tap: the same bag, the same odds
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


def knocked_out_odds(count: int, health_left: Mapping[str, int], reason: str) -> AttackOdds:
    """A step that ends the game: each player inside loses all the health left."""
    _check_counts("health_left", health_left)
    players = {name: PlayerOdds((*(_ZERO,) * health, _ONE)) for name, health in health_left.items()}
    return AttackOdds(count, players, reason, ends_game=True)


def next_step(game: Game) -> NextStep | None:
    """The next dragon draw that is sure to come, from the state as it stands (None: the
    game is over)."""
    from companion.kinds.clank.rules.game import COUNTDOWN_SPACES

    s = game.state
    if s.game_over:
        return None
    edition = game.edition
    if edition.countdown and s.countdown is not None:
        space = s.countdown.space + 1  # where the marker moves on its player's next turn
        if space >= COUNTDOWN_SPACES:
            return NextStep("countdown", 0, ends_game=True)
        return NextStep("countdown", game.attack_size(space - 1), ends_game=False)
    if edition.out_draw and any(not p.playing for p in s.players.values()):
        two = len(s.seats) == 2
        reason, count = "out_draw", edition.out_draw_two_players if two else edition.out_draw
    else:
        reason, count = "attack", game.attack_size()
    cubes = sum(s.bag.values()) + sum(s.area.values())
    # Catacombs: a draw that leaves the bag empty ends the game (the ghosts drawn go back
    # to the Clank! area, not to the bag)
    return NextStep(reason, count, ends_game=edition.empty_bag_ends_game and count >= cubes)


def next_attack_odds(game: Game) -> AttackOdds | None:
    """The odds of the next dragon draw (``next_step``); None: the game is over."""
    step = next_step(game)
    if step is None:
        return None
    s = game.state
    health = game.setup.health
    inside = {name: s.players[name] for name in s.seats if s.players[name].playing}
    health_left = {name: max(0, health - p.damage) for name, p in inside.items()}
    if step.ends_game:
        cubes = sum(s.bag.values()) + sum(s.area.values())
        return knocked_out_odds(min(max(step.count, 0), cubes), health_left, step.reason)
    odds = attack_odds(s.bag, s.area, step.count, health_left, ghost_hurts=True)
    return AttackOdds(odds.count, odds.players, step.reason)


def odds_json(odds: AttackOdds) -> dict[str, Any]:
    """The ``odds`` object of the table script's ``--json`` output."""
    return {
        "count": odds.count,
        "ends_game": odds.ends_game,
        "reason": odds.reason,
        "players": {
            name: {"damage": [float(p) for p in po.damage], "knock_out": float(po.knock_out)}
            for name, po in odds.players.items()
        },
    }
