"""Scoring at game end: categories, conditional VP explained, ranking with tie-break."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from companion.kinds.clank.catalog import Catalog
from companion.kinds.clank.catalog.vprule import VPRule
from companion.kinds.clank.rules.setup import TOKEN_VP_OPTIONS
from companion.kinds.clank.rules.state import KNOCKED_OUT, Player, State
from companion.msg import N_, Msg


@dataclass(frozen=True)
class Conditional:
    """VP the scoring explains: what a component's conditional rule gave, or (``rule``
    None) a value no rulebook prints, counted as the catalog guesses it (unconfirmed)."""

    source: str  # the card, prisoner or token
    rule: VPRule | None
    gained: int

    @property
    def unconfirmed(self) -> bool:
        return self.rule is None

    def __str__(self) -> str:
        if self.rule is None:
            return f"{self.source}: {self.gained} VP (unconfirmed)"
        return f"{self.source}: {self.rule.text} = {self.gained}"

    def localized(self, edition: str | None = None) -> str:
        if self.rule is None:
            return Msg(
                N_("{source}: {vp} VP (unconfirmed: not printed in the rulebook)"),
                source=self.source,
                vp=self.gained,
            ).localized(edition)
        return Msg(
            N_("{source}: {rule} = {gained}"),
            source=self.source,
            rule=self.rule.described(edition),
            gained=self.gained,
        ).localized(edition)


@dataclass
class Score:
    player: str
    qualifies: bool
    reason: str  # why the player scores nothing, else ""
    parts: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)  # conditional VP, one line each
    conditional: list[Conditional] = field(default_factory=list)  # the same, for the screen
    best_artifact: int = 0

    @property
    def total(self) -> int:
        return sum(self.parts.values()) if self.qualifies else 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "qualifies": self.qualifies,
            "reason": self.reason or None,
            "parts": dict(self.parts),
            "conditional": list(self.notes),
            # what the score counts with a guessed value (settings.unconfirmed)
            "unconfirmed": [c.source for c in self.conditional if c.unconfirmed],
            "total": self.total,
        }


def _counter(catalog: Catalog, p: Player) -> Any:
    deck = [catalog.cards[c.lower()] for c in p.cards or []]
    prisoners = [catalog.token("prisoner", name) for name in p.prisoners]
    idols_from_prisoners = sum(1 for t in prisoners if t is not None and t.has("monkey_idol"))
    real_prisoners = sum(1 for t in prisoners if t is not None and not t.has("not_prisoner"))
    simple = {
        "gold": p.gold,
        "artifacts": len(p.artifacts),
        "mastery": p.tokens.get("mastery token", 0),
        "monkey_idols": p.tokens.get("monkey idol", 0) + idols_from_prisoners,
        "crowns": len(p.crowns),
        "gems": sum(1 for c in deck if c.type == "gem"),
        "prisoners": real_prisoners,
        "shrines": p.shrines,
    }

    def count(name: str) -> int:
        if name in simple:
            return simple[name]
        kind, _, rest = name.partition(":")
        if kind == "card":
            return sum(1 for c in deck if c.name.lower() == rest.lower())
        return p.secrets.get(rest.lower(), 0)

    return count


# Tokens whose VP a rulebook may leave unprinted: the key of catalog.edition.unconfirmed
# that says so (the table corrects it in the new line, which drops the key)
_UNCONFIRMED_VP = {item: key for key, item in TOKEN_VP_OPTIONS.items()}


def _middle_crowns(catalog: Catalog) -> tuple[int, ...]:
    """The crowns between the most and the least valuable (whose values are printed)."""
    for token in catalog.tokens_of("market"):
        values = token.effect("crowns")
        if values is not None:
            ordered = sorted((int(v) for v in values.split(",")), reverse=True)
            return tuple(ordered[1:-1])
    return ()


def score_player(catalog: Catalog, p: Player) -> Score:
    """A player's score by category (all categories shown even when it does not count)."""
    if not p.artifacts:
        score = Score(p.name, False, "no artifact")
    elif p.status == KNOCKED_OUT and p.knocked_out_in_depths:
        score = Score(p.name, False, "knocked out in the Depths")
    else:
        score = Score(p.name, True, "")
    count = _counter(catalog, p)
    parts = score.parts
    parts["artifacts"] = sum(p.artifacts)
    score.best_artifact = max(p.artifacts, default=0)
    parts["gold"] = p.gold
    guessed = set(catalog.edition.unconfirmed)
    tokens = sum(crown for crown in p.crowns)
    if "crowns" in guessed:  # only the top and bottom crown are printed
        for crown in p.crowns:
            if crown in _middle_crowns(catalog):
                score.conditional.append(Conditional("crown", None, crown))
    for name, n in p.tokens.items():
        token = catalog.token("special", name) or catalog.token("market", name)
        if token is not None:
            tokens += token.vp * n
            if _UNCONFIRMED_VP.get((token.kind, token.name)) in guessed and token.vp:
                score.conditional.append(Conditional(token.name, None, token.vp * n))
    parts["tokens"] = tokens
    secrets = 0
    for name, n in p.secrets.items():
        token = catalog.token("major_secret", name) or catalog.token("minor_secret", name)
        if token is not None and not token.gold:  # treasure counts as the gold it gave
            secrets += token.vp * n
            if _UNCONFIRMED_VP.get((token.kind, token.name)) in guessed and token.vp:
                score.conditional.append(Conditional(token.name, None, token.vp * n))
    parts["secrets"] = secrets
    prisoners = 0
    for name in p.prisoners:
        token = catalog.token("prisoner", name)
        if token is None:
            continue
        prisoners += token.vp
        if token.vp_rule is not None:
            gained = token.vp_rule.value(count)
            prisoners += gained
            score.conditional.append(Conditional(name, token.vp_rule, gained))
    parts["prisoners"] = prisoners
    cards = 0
    for name in p.cards or []:
        card = catalog.cards[name.lower()]
        cards += card.vp
        if card.vp_rule is not None:
            gained = card.vp_rule.value(count)
            cards += gained
            score.conditional.append(Conditional(card.name, card.vp_rule, gained))
    parts["cards"] = cards
    score.notes = [str(c) for c in score.conditional]
    return score


def ranking(scores: dict[str, Score], state: State) -> list[dict[str, Any]]:
    """Best first; ties go to the most valuable artifact, then the places are shared."""

    def key(name: str) -> tuple[int, int, int]:
        s = scores[name]
        return (-s.total, -(s.best_artifact if s.qualifies else 0), state.players[name].seat)

    order = sorted(scores, key=key)
    out: list[dict[str, Any]] = []
    place = 0
    previous: tuple[int, int] | None = None
    for i, name in enumerate(order):
        k = key(name)[:2]
        if k != previous:
            place = i + 1
            previous = k
        out.append({"player": name, "score": scores[name].total, "place": place})
    return out
