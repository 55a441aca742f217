"""Final scoring (T-E1..T-E10), the elixir's best use (T-E6, A14) and the winner (T-W1).

    score = gold + chest gold - cursed skulls + rings^2 + war trophy * k * (M + T)
            - monster skulls - T^2

with k = 2 (1 with two players), M monsters and T troglodytes held after any elixir
discard (A13: without troglodytes in the war trophy's count if the table says so).
Negative totals are allowed (T-E9).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from companion.kinds.tschak.rules.cards import (
    CHEST,
    CURSED,
    ELIXIR,
    MONSTER,
    RING,
    TROGLODYTE,
    WAR_TROPHY,
    TowerCard,
)
from companion.kinds.tschak.rules.settings import Settings

BEST = "best"  # the elixir's owner did not choose: their best choice applies


@dataclass(frozen=True)
class Score:
    total: int
    parts: dict[str, int]  # gold, chests, cursed_chests, rings, war_trophy, monsters, troglodytes
    counts: dict[str, int]  # rings, monsters, troglodytes held after the elixir; received
    elixir: dict[str, Any] | None = None  # {"discard": card or None, "by": "player" | "best"}
    monsters_received: int = 0
    monsters_kept: int = 0
    options: list[dict[str, Any]] = field(default_factory=list)  # the elixir's choices

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = dict(self.parts)
        out["total"] = self.total
        out["counts"] = dict(self.counts)
        out["elixir"] = None if self.elixir is None else dict(self.elixir)
        if self.options:
            out["elixir_options"] = [dict(o) for o in self.options]
        return out


def war_trophy_rate(players: int) -> int:
    """VP per monster for the war trophy: 2, or 1 in the two-player game (T-E4)."""
    return 1 if players == 2 else 2


def _score(
    gold: int,
    monsters: Sequence[TowerCard],
    treasures: Sequence[TowerCard],
    players: int,
    settings: Settings,
) -> tuple[int, dict[str, int], dict[str, int]]:
    rings = sum(1 for t in treasures if t.kind == RING)
    wars = sum(1 for t in treasures if t.kind == WAR_TROPHY)
    m = sum(1 for c in monsters if c.kind == MONSTER)
    t = sum(1 for c in monsters if c.kind == TROGLODYTE)
    counted = m + t if settings.war_trophy_troglodytes else m
    parts = {
        "gold": gold,
        "chests": sum(c.gold for c in treasures if c.kind == CHEST),
        "cursed_chests": -sum(c.skulls for c in treasures if c.kind == CURSED),
        "rings": rings * rings,
        "war_trophy": wars * war_trophy_rate(players) * counted,
        "monsters": -sum(c.skulls for c in monsters if c.kind == MONSTER),
        "troglodytes": -(t * t),
    }
    counts = {"rings": rings, "monsters": m, "troglodytes": t}
    return sum(parts.values()), parts, counts


def elixir_options(monsters: Sequence[TowerCard], settings: Settings) -> list[TowerCard | None]:
    """What the elixir may discard: nothing (when optional) and each distinct monster
    held (troglodytes only if allowed), in the order received."""
    choices: list[TowerCard | None] = []
    for card in monsters:
        if card.kind == TROGLODYTE and not settings.elixir_troglodyte:
            continue
        if card not in choices:
            choices.append(card)
    if settings.elixir_optional or not choices:
        choices.insert(0, None)
    return choices


def _without(monsters: Sequence[TowerCard], card: TowerCard | None) -> list[TowerCard]:
    kept = list(monsters)
    if card is not None:
        kept.remove(card)
    return kept


def score_player(
    gold: int,
    monsters: Sequence[TowerCard],
    treasures: Sequence[TowerCard],
    *,
    players: int,
    settings: Settings | None = None,
    discard: TowerCard | None | str = BEST,
) -> Score:
    """One player's final score. ``discard`` is the elixir owner's choice (a monster
    held, or None to keep them all); ``BEST`` applies the choice that maximises the
    score, keeping the monsters when that is as good. Without the elixir it is ignored."""
    settings = settings or Settings()
    received = len(monsters)
    if not any(t.kind == ELIXIR for t in treasures):
        total, parts, counts = _score(gold, monsters, treasures, players, settings)
        counts["received"] = received
        return Score(total, parts, counts, None, received, received)
    options = []
    best: tuple[int, TowerCard | None] | None = None
    for choice in elixir_options(monsters, settings):
        total, _, _ = _score(gold, _without(monsters, choice), treasures, players, settings)
        options.append({"discard": None if choice is None else choice.notation, "score": total})
        if best is None or total > best[0]:
            best = (total, choice)
    assert best is not None
    chosen: TowerCard | None
    if isinstance(discard, TowerCard) or discard is None:
        chosen, by = discard, "player"
    else:  # BEST
        chosen, by = best[1], "best"
    kept = _without(monsters, chosen)
    total, parts, counts = _score(gold, kept, treasures, players, settings)
    counts["received"] = received
    elixir = {"discard": None if chosen is None else chosen.notation, "by": by}
    return Score(total, parts, counts, elixir, received, len(kept), options)


def rank(
    scores: Mapping[str, Score], seats: Sequence[str], settings: Settings | None = None
) -> tuple[list[dict[str, Any]], list[str]]:
    """The ranking (best first: most VP, then fewer monsters, then seat order) with
    shared places, and the winners: most VP, then fewest monsters; several winners if
    still tied (T-W1). A15: monsters as received, or kept after the elixir."""
    settings = settings or Settings()

    def monsters(p: str) -> int:
        s = scores[p]
        return s.monsters_received if settings.final_tie_monsters == "received" else s.monsters_kept

    order = sorted(scores, key=lambda p: (-scores[p].total, monsters(p), list(seats).index(p)))
    ranking: list[dict[str, Any]] = []
    place = 0
    previous: tuple[int, int] | None = None
    for i, p in enumerate(order):
        mark = (scores[p].total, monsters(p))
        if mark != previous:
            place = i + 1
            previous = mark
        ranking.append({"player": p, "score": scores[p].total, "place": place})
    winners: list[str] = [r["player"] for r in ranking if r["place"] == 1]
    return ranking, winners
