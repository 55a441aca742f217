"""Team strength, the tie chain, floor awards and trophies: pure functions of the cards.

Strength (T-V1..T-V4): the sum of the heroes' numbers; a chameleon counts as the mage it
copies (A3, A4, A5); the artifact doubles the weakest member. Ties (T-T1..T-T8) compare, in
order: the strength, the mage's number, the staff, the warrior's number, the axe, the
dwarf's number, the dwarf's weapon; the first difference decides. Each result carries a
structured explanation and a plain English sentence (the JSON's ``why``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from companion.kinds.tschak.rules.cards import (
    CURSED,
    DWARF,
    HERO_CLASSES,
    MAGE,
    TROGLODYTE,
    WARRIOR,
    Hero,
    TowerCard,
)
from companion.kinds.tschak.rules.errors import TschakError
from companion.kinds.tschak.rules.settings import Settings
from companion.msg import N_

STEPS = ("strength", "mage", "mage_weapon", "warrior", "warrior_weapon", "dwarf", "dwarf_weapon")
# A20: at equal value the artifact doubles the member that loses a single-card tie.
_CLASS_RANK = {MAGE: 2, WARRIOR: 1, DWARF: 0}


@dataclass(frozen=True)
class Member:
    """A hero in a team: ``value`` is its number (a chameleon's copied one) before the
    artifact; ``points`` what it adds to the strength."""

    card: Hero
    value: int
    doubled: bool = False
    copied_from: str | None = None

    @property
    def points(self) -> int:
        return 2 * self.value if self.doubled else self.value

    def weakness(self) -> tuple[int, int]:
        """Smaller is weaker (A20): the value, then mage > warrior > dwarf > chameleon."""
        return (self.value, -1 if self.card.chameleon else _CLASS_RANK[self.card.colour])

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"card": self.card.notation, "value": self.value}
        if self.card.chameleon:
            out["copied_from"] = self.copied_from
        out["doubled"] = self.doubled
        out["points"] = self.points
        return out


@dataclass(frozen=True)
class TeamResult:
    player: str
    cards: tuple[Hero, ...]
    members: tuple[Member, ...]
    artifact: bool
    strength: int
    key: tuple[int, ...]

    def member(self, colour: str) -> Member | None:
        for m in self.members:
            if m.card.colour == colour:
                return m
        return None

    def detail(self) -> dict[str, Any]:
        return {
            "cards": [c.notation for c in self.cards],
            "members": [m.as_dict() for m in self.members],
            "artifact": self.artifact,
            "strength": self.strength,
        }


MageSeen = tuple[int, int]  # (printed, effective) of a numbered mage an opponent played


def numbered_mage(team: Sequence[Hero]) -> MageSeen | None:
    """The team's numbered mage as (printed, effective): doubled if the team's artifact
    goes to it. A team with a numbered mage has no chameleon, so this needs no copy."""
    mage = next((c for c in team if c.colour == MAGE and c.value is not None), None)
    if mage is None:
        return None
    members = [Member(c, c.value or 0) for c in team if c.colour in HERO_CLASSES]
    doubled = any(c.artifact for c in team) and min(members, key=Member.weakness).card == mage
    return (mage.value or 0, 2 * (mage.value or 0) if doubled else mage.value or 0)


def evaluate_teams(
    teams: Mapping[str, Sequence[Hero]],
    settings: Settings,
    earlier_mages: Mapping[str, Sequence[MageSeen]] | None = None,
) -> dict[str, TeamResult]:
    """Every team's members, strength and tie key. ``teams`` is in seat order (it breaks
    equal copy sources); ``earlier_mages`` holds, per player, the numbered mages played on
    earlier floors of this tower (used with ``chameleon_scope = "tower"``)."""
    seen: dict[str, list[MageSeen]] = {}
    for player, team in teams.items():
        mages = (
            list(earlier_mages.get(player, ()))
            if (earlier_mages and settings.chameleon_scope == "tower")
            else []
        )
        now = numbered_mage(team)
        if now is not None:
            mages.append(now)
        seen[player] = mages
    results = {}
    for player, team in teams.items():
        copied, source = _chameleon_copy(player, seen, settings)
        members = []
        for card in team:
            if card.artifact:
                continue
            if card.chameleon:
                members.append(Member(card, copied, copied_from=source))
            else:
                members.append(Member(card, card.value or 0))
        has_artifact = any(c.artifact for c in team)
        if has_artifact and members:
            weakest = min(range(len(members)), key=lambda i: members[i].weakness())
            m = members[weakest]
            members[weakest] = Member(m.card, m.value, True, m.copied_from)
        strength = sum(m.points for m in members)
        result = TeamResult(player, tuple(team), tuple(members), has_artifact, strength, ())
        results[player] = _with_key(result, settings)
    return results


def _chameleon_copy(
    player: str, seen: Mapping[str, Sequence[MageSeen]], settings: Settings
) -> tuple[int, str | None]:
    index = 0 if settings.chameleon_copies == "printed" else 1
    best: tuple[int, str] | None = None
    for other, mages in seen.items():
        if other == player:
            continue
        for mage in mages:
            value = mage[index]
            better = best is None or (
                value > best[0] if settings.chameleon_target == "strongest" else value < best[0]
            )
            if better:
                best = (value, other)
    return (0, None) if best is None else best


def _step_values(member: Member | None, settings: Settings) -> tuple[int, int]:
    if member is None:
        return (0, 0) if settings.tie_missing == "zero" else (-1, -1)
    if member.card.chameleon:
        return (0, 0)  # T-T3: always the weakest mage, never a staff
    value = member.points if settings.tie_values == "effective" else member.value
    return (value, member.card.weapon_rank)


def _with_key(result: TeamResult, settings: Settings) -> TeamResult:
    key = [result.strength]
    for colour in HERO_CLASSES:
        key.extend(_step_values(result.member(colour), settings))
    return TeamResult(
        result.player, result.cards, result.members, result.artifact, result.strength, tuple(key)
    )


def single_card(player: str, card: Hero | None, settings: Settings) -> TeamResult:
    """A last card for the trophies (T-G4, T-G5): its printed number, chameleon and
    artifact (and no card at all) worth 0."""
    if card is None or card.artifact:
        result = TeamResult(player, () if card is None else (card,), (), card is not None, 0, ())
    else:
        member = Member(card, card.value or 0)
        strength = 0 if card.chameleon else member.value
        result = TeamResult(player, (card,), (member,), False, strength, ())
    key = [result.strength]
    for colour in HERO_CLASSES:
        m = result.member(colour)
        key.extend(_step_values(None if m is None else Member(m.card, m.value), settings))
    return TeamResult(
        result.player, result.cards, result.members, result.artifact, result.strength, tuple(key)
    )


# ----------------------------------------------------------------------- ordering
def groups(results: Mapping[str, TeamResult], players: Sequence[str]) -> list[list[str]]:
    """The players in groups of equal tie key, strongest group first, each group in the
    order of ``players`` (seat order)."""
    keys = sorted({results[p].key for p in players}, reverse=True)
    return [[p for p in players if results[p].key == k] for k in keys]


def settle(
    group: Sequence[str], role: str, settings: Settings, tiebreak: Sequence[str] | None
) -> tuple[list[str], str]:
    """A tied group in order, strongest first, and how: "tiebreak" (the action's list)
    or "seat_order". TschakError "tie_unresolved" when the table must say; its ``role``
    param is the code of what is decided: "strongest", "weakest", "order" (a tie in the
    middle of a floor) or "trophies"."""
    if tiebreak and all(p in tiebreak for p in group):
        return sorted(group, key=list(tiebreak).index), "tiebreak"
    if settings.unresolved_tie == "seat_order":
        return list(group), "seat_order"
    raise TschakError(
        "tie_unresolved",
        N_(
            "{players} are still tied after the dwarves: the table decides who is weaker "
            '(give "tiebreak": a list of players, strongest first)'
        )
        if role == "weakest"
        else N_(
            "{players} are still tied after the dwarves: the table decides who is stronger "
            '(give "tiebreak": a list of players, strongest first)'
        ),
        players=", ".join(group),
        tied=list(group),
        role=role,
    )


def _desc(member: Member | None, colour: str, settings: Settings) -> str:
    if member is None:
        return f"no {colour}"
    if member.card.chameleon:
        return "the chameleon"
    if settings.tie_values == "effective" and member.doubled:
        return f"{colour} {member.value} doubled ({member.points})"
    return f"{colour} {member.value}"


_WEAPON_WORDS = {
    MAGE: {"staff": "with a staff", "none": "without a staff"},
    WARRIOR: {"axe": "with an axe", "none": "without an axe"},
    DWARF: {"axe": "with an axe", "middle": "with the middle weapon", "unarmed": "unarmed"},
}


def _weapon_words(member: Member | None, colour: str) -> str:
    if member is None or member.card.chameleon:
        return _WEAPON_WORDS[colour]["none"] if colour != DWARF else "unarmed"
    return _WEAPON_WORDS[colour][member.card.weapon]


def compare(a: TeamResult, b: TeamResult, settings: Settings) -> dict[str, Any] | None:
    """Why ``a`` beats ``b`` at equal strength: the first tie step that differs, as a
    structured value with an English ``reason``; None if they do not differ (A9)."""
    for index, step in enumerate(STEPS):
        if a.key[index] == b.key[index]:
            continue
        if index == 0:
            return {"step": "strength", "reason": f"{a.strength} beats {b.strength}"}
        winner, loser = (a, b) if a.key[index] > b.key[index] else (b, a)
        colour = step.split("_")[0]
        wm, lm = winner.member(colour), loser.member(colour)
        if step.endswith("_weapon"):
            reason = (
                f"{_desc(wm, colour, settings)} {_weapon_words(wm, colour)} beats "
                f"{_desc(lm, colour, settings)} {_weapon_words(lm, colour)}"
            )
        else:
            reason = f"{_desc(wm, colour, settings)} beats {_desc(lm, colour, settings)}"
        return {
            "step": step,
            "winner": winner.player,
            "loser": loser.player,
            "winner_card": None if wm is None else wm.card.notation,
            "loser_card": None if lm is None else lm.card.notation,
            "winner_value": winner.key[index],
            "loser_value": loser.key[index],
            "reason": reason,
        }
    return None


def _pick(
    results: Mapping[str, TeamResult],
    candidates: Sequence[str],
    role: str,
    settings: Settings,
    tiebreak: Sequence[str] | None,
) -> dict[str, Any]:
    """The strongest or weakest of ``candidates`` with how it was decided."""
    ordered = groups(results, candidates)
    group = ordered[0] if role == "strongest" else ordered[-1]
    by = "strength"
    if len(group) > 1:
        group, by = settle(group, role, settings, tiebreak)
        by_chain = False
    else:
        by_chain = True
    chosen = group[0] if role == "strongest" else group[-1]
    strength = results[chosen].strength
    steps = []
    for other in candidates:
        if other == chosen or results[other].strength != strength:
            continue
        diff = compare(results[chosen], results[other], settings)
        if diff is None:
            diff = {"step": by, "winner": chosen, "loser": other, "reason": _by_words(by)}
            if role == "weakest":
                diff["winner"], diff["loser"] = other, chosen
        diff["against"] = other
        steps.append(diff)
    if by_chain and steps:
        by = "chain"
    return {"player": chosen, "strength": strength, "by": by, "ties": steps}


def _by_words(by: str) -> str:
    return "the table decided" if by == "tiebreak" else "the earlier seat wins"


def _role_sentence(pick: dict[str, Any], role: str, results: Mapping[str, TeamResult]) -> str:
    p, s = pick["player"], pick["strength"]
    if not pick["ties"]:
        return f"{p} {s} {role}"
    names = [p] + [t["against"] for t in pick["ties"]]
    equal = " = ".join(f"{n} {results[n].strength}" for n in names)
    if len(pick["ties"]) == 1:
        reasons = pick["ties"][0]["reason"]
    else:
        reasons = ", ".join(f"{t['reason']} ({t['against']})" for t in pick["ties"])
    return f"{equal}: {reasons}, {p} {role}"


# ----------------------------------------------------------------------- a floor
@dataclass
class FloorOutcome:
    results: dict[str, TeamResult]
    treasure_to: str | None
    monster_to: str | None
    order: list[str]
    penalties: list[dict[str, Any]] = field(default_factory=list)
    explain: dict[str, Any] = field(default_factory=dict)
    why: str = ""


def misplay_penalty(card: TowerCard, troglodytes_held: int) -> int:
    """What a penalty card costs its taker (A16): skulls, or for a troglodyte the
    growth of the square, (T+1)^2 - T^2 = 2T + 1."""
    if card.kind == TROGLODYTE:
        return 2 * troglodytes_held + 1
    return card.skulls


def resolve_floor(
    teams: Mapping[str, Sequence[Hero]],
    *,
    monster: TowerCard,
    treasure: TowerCard,
    settings: Settings,
    earlier_mages: Mapping[str, Sequence[MageSeen]] | None = None,
    misplays: Sequence[str] = (),
    tiebreak: Sequence[str] | None = None,
    troglodytes_held: Mapping[str, int] | None = None,
) -> FloorOutcome:
    """Who takes the floor's treasure (the strongest team) and monster (the weakest),
    T-F1..T-F5, with the misplay penalty of T-X1 for the players in ``misplays``."""
    results = evaluate_teams(teams, settings, earlier_mages)
    players = list(teams)
    order: list[str] = []
    for group in groups(results, players):
        if len(group) > 1:
            with contextlib.suppress(TschakError):  # a middle tie changes nothing
                group, _ = settle(group, "order", settings, tiebreak)
        order.extend(group)
    explain: dict[str, Any] = {}
    parts: list[str] = []
    treasure_to: str | None = None
    monster_to: str | None = None
    taken = {"monster": False, "treasure": False}
    penalties: list[dict[str, Any]] = []
    offenders = [p for p in players if p in misplays]
    if offenders:
        held = troglodytes_held or {}
        for p in sorted(offenders, key=lambda q: (results[q].key, -players.index(q))):
            options = []
            if not taken["monster"]:
                options.append(("monster", monster, misplay_penalty(monster, held.get(p, 0))))
            if treasure.kind == CURSED and not taken["treasure"]:
                options.append(("treasure", treasure, treasure.skulls))
            if not options:
                penalties.append({"player": p, "took": None, "card": None, "penalty": 0})
                parts.append(f"{p} misplayed (no penalty card left)")
                continue
            what, card, cost = max(options, key=lambda o: (o[2], o[0] == "monster"))
            taken[what] = True
            if what == "monster":
                monster_to = p
            else:
                treasure_to = p
            penalties.append({"player": p, "took": what, "card": card.notation, "penalty": cost})
            taken_name = "monster" if what == "monster" else "cursed chest"
            parts.append(f"{p} misplayed and takes the {taken_name}")
        explain["misplays"] = penalties
    others = (
        [p for p in players if p not in offenders]
        if (settings.misplay_other_card == "others")
        else players
    )
    if not taken["treasure"]:
        if others:
            pick = _pick(results, others, "strongest", settings, tiebreak)
            treasure_to = pick["player"]
            explain["strongest"] = pick
            parts.append(_role_sentence(pick, "strongest", results))
        else:
            parts.append("nobody takes the treasure")
    if not taken["monster"]:
        if others:
            pick = _pick(results, others, "weakest", settings, tiebreak)
            monster_to = pick["player"]
            explain["weakest"] = pick
            already = explain.get("strongest", {}).get("ties", [])
            explained = {frozenset((t["winner"], t["loser"])) for t in already}
            if pick["ties"] and all(
                frozenset((t["winner"], t["loser"])) in explained for t in pick["ties"]
            ):
                parts.append(f"{pick['player']} weakest")
            else:
                parts.append(_role_sentence(pick, "weakest", results))
        else:
            parts.append("nobody takes the monster")
    return FloorOutcome(
        results, treasure_to, monster_to, order, penalties, explain, "; ".join(parts)
    )


# ----------------------------------------------------------------------- trophies
@dataclass
class TrophyOutcome:
    gold: dict[str, int]
    order: list[str]
    results: dict[str, TeamResult]
    explain: dict[str, Any]
    why: str


def trophy_golds(players: int) -> tuple[int, ...]:
    """The trophies prepared (T-S1): 3, 2, 1; with two players only the 2."""
    return (2,) if players == 2 else (3, 2, 1)


def resolve_trophies(
    last: Mapping[str, Hero | None],
    *,
    settings: Settings,
    tiebreak: Sequence[str] | None = None,
) -> TrophyOutcome:
    """Gold for the last cards (T-G1..T-G7, A10, A11). ``last`` is in seat order; None
    is a player without a card (only when the artifact is a fourth card, A2)."""
    players = list(last)
    results = {p: single_card(p, card, settings) for p, card in last.items()}
    holders = [p for p in players if last[p] is None or last[p].zero_card]  # type: ignore[union-attr]
    ranked_groups = groups(results, [p for p in players if p not in holders])
    count = sum(len(g) for g in ranked_groups)
    golds = list(trophy_golds(len(players)))
    position_gold = [golds[i] if i < len(golds) else 0 for i in range(count)]
    weakest_out = len(players) == 4 or (
        len(players) == 3 and settings.three_player_trophies == "3-2"
    )
    excluded: str | None = None
    if weakest_out and count >= 2 and (not holders or settings.trophy_zero_cards == "excluded"):
        position_gold[count - 1] = 0
    order: list[str] = []
    ties: list[dict[str, Any]] = []
    for group in ranked_groups:
        start = len(order)
        if len(group) > 1:
            span = position_gold[start : start + len(group)]
            if len(set(span)) > 1:
                group, by = settle(group, "trophies", settings, tiebreak)
                for a, b in zip(group, group[1:], strict=False):
                    ties.append({"winner": a, "loser": b, "step": by, "reason": _by_words(by)})
        order.extend(group)
    for a, b in zip(order, order[1:], strict=False):
        if results[a].strength == results[b].strength and results[a].key != results[b].key:
            diff = compare(results[a], results[b], settings)
            if diff is not None:
                ties.append({**diff, "reason": _single_reason(results[a], results[b])})
    gold = dict.fromkeys(players, 0)
    for i, p in enumerate(order):
        gold[p] = position_gold[i]
    if weakest_out and count >= 2 and position_gold[count - 1] == 0 and count - 1 < len(golds):
        excluded = order[-1]
    parts = []
    if order:
        chain = []
        for i, p in enumerate(order):
            card = last[p]
            equal = i > 0 and results[order[i - 1]].strength == results[p].strength
            sep = "" if i == 0 else " = " if equal else " > "
            chain.append(f"{sep}{p} {card.notation if card else '-'}")
        parts.append("".join(chain))
    for t in ties:
        parts.append(f"{t['winner']} over {t['loser']}: {t['reason']}")
    for p in holders:
        card = last[p]
        what = "no card" if card is None else ("chameleon" if card.chameleon else "artifact")
        parts.append(f"{p} {card.notation if card else '-'}: {what}, no trophy")
    if excluded is not None:
        parts.append(f"{excluded} weakest, no trophy")
    awarded = [f"{p} {gold[p]}" for p in players if gold[p]]
    parts.append("gold: " + (", ".join(awarded) if awarded else "none"))
    explain = {"order": order, "zero_cards": holders, "weakest_excluded": excluded, "ties": ties}
    return TrophyOutcome(gold, order + holders, results, explain, "; ".join(parts))


def _single_reason(a: TeamResult, b: TeamResult) -> str:
    ca, cb = a.members[0].card, b.members[0].card
    if ca.colour != cb.colour:
        return f"{ca.colour} {ca.value} beats {cb.colour} {cb.value} (mage > warrior > dwarf)"
    return (
        f"{ca.colour} {ca.value} {_weapon_words(a.members[0], ca.colour)} beats "
        f"{cb.colour} {cb.value} {_weapon_words(b.members[0], cb.colour)}"
    )
