"""Conditional victory points: a small rule language used in the catalog.

Forms (``N`` and ``K`` whole numbers, ``COUNTER`` a name below)::

    N per COUNTER               N for each COUNTER
    N per K COUNTER             N for each full K of COUNTER      (1 per 5 gold)
    N per COUNTER+COUNTER       the counters are added
    N if COUNTER >= K [and COUNTER >= K ...]
    N if K of COUNTER,COUNTER,...   at least K of the counters are 1 or more

Counters: gold, artifacts, mastery, monkey_idols, crowns, gems, prisoners, shrines,
``card:<Card Name>``, ``secret:<secret name>``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from companion.msg import EN_, N_, Msg

SIMPLE_COUNTERS = frozenset(
    {"gold", "artifacts", "mastery", "monkey_idols", "crowns", "gems", "prisoners", "shrines"}
)

Counter = Callable[[str], int]


class VPRuleError(ValueError):
    """A conditional-VP rule that does not follow the language."""


@dataclass(frozen=True)
class VPRule:
    """A parsed rule; ``value(count)`` gives the VP for a player's holdings."""

    text: str
    vp: int
    kind: str  # "per", "if", "of"
    counters: tuple[str, ...]
    every: int = 1  # per: for each full `every`
    thresholds: tuple[int, ...] = ()  # if: one per counter
    need: int = 0  # of: how many counters must be >= 1

    def value(self, count: Counter) -> int:
        if self.kind == "per":
            total = sum(count(c) for c in self.counters)
            return self.vp * (total // self.every)
        if self.kind == "if":
            ok = all(count(c) >= k for c, k in zip(self.counters, self.thresholds, strict=True))
            return self.vp if ok else 0
        present = sum(1 for c in self.counters if count(c) >= 1)
        return self.vp if present >= self.need else 0

    def explain(self, count: Counter) -> str:
        """One line for the scoring screen: the rule and what it gave."""
        return f"{self.text} -> {self.value(count)}"

    def described(self, edition: str | None = None) -> str:
        """The rule in words, in the table's language ("1 VP per 5 gold")."""
        if self.kind == "per":
            what = " + ".join(counter_name(c, edition) for c in self.counters)
            if self.every == 1:
                return Msg(N_("{vp} VP per {what}"), vp=self.vp, what=what).localized()
            return Msg(
                N_("{vp} VP per {every} {what}"), vp=self.vp, every=self.every, what=what
            ).localized()
        if self.kind == "of":
            what = ", ".join(counter_name(c, edition) for c in self.counters)
            return Msg(
                N_("{vp} VP with {need} of: {what}"), vp=self.vp, need=self.need, what=what
            ).localized()
        conditions = [
            Msg(N_("{what} at least {k}"), what=counter_name(c, edition), k=k).localized()
            for c, k in zip(self.counters, self.thresholds, strict=True)
        ]
        from companion.i18n import _  # words when shown, not when the catalog loads

        joined = _(" and ").join(conditions)
        return Msg(N_("{vp} VP if {conditions}"), vp=self.vp, conditions=joined).localized()


COUNTER_NAMES = {
    "gold": EN_("gold"),
    "artifacts": N_("artifacts"),
    "mastery": N_("mastery token"),
    "monkey_idols": EN_("monkey idols"),
    "crowns": N_("crowns"),
    "gems": N_("gems"),
    "prisoners": EN_("prisoners"),
    "shrines": EN_("wayshrines"),
}


def counter_name(counter: str, edition: str | None = None) -> str:
    """A counter as the table reads it; a card or secret by its catalog name."""
    if counter in COUNTER_NAMES:
        return Msg(COUNTER_NAMES[counter]).localized(edition)
    return counter.partition(":")[2] or counter


def _counter(text: str) -> str:
    name = text.strip()
    if name in SIMPLE_COUNTERS:
        return name
    prefix, _, rest = name.partition(":")
    if prefix in ("card", "secret") and rest.strip():
        return f"{prefix}:{rest.strip()}"
    raise VPRuleError(f"unknown counter {name!r}")


_PER = re.compile(r"^(\d+) per (?:(\d+) )?(.+)$")
_IF = re.compile(r"^(\d+) if (.+)$")
_OF = re.compile(r"^(\d+) of (.+)$")
_GE = re.compile(r"^(.+?)\s*>=\s*(\d+)$")


def parse_vp_rule(text: str) -> VPRule:
    """Parse one rule; raises VPRuleError with the reason."""
    source = " ".join(text.split())
    m = _PER.match(source)
    if m:
        every = int(m.group(2) or 1)
        if every < 1:
            raise VPRuleError(f"{text!r}: 'per 0' is meaningless")
        counters = tuple(_counter(c) for c in m.group(3).split("+"))
        return VPRule(source, int(m.group(1)), "per", counters, every=every)
    m = _IF.match(source)
    if not m:
        raise VPRuleError(f"{text!r}: expected 'N per ...' or 'N if ...'")
    vp, condition = int(m.group(1)), m.group(2)
    of = _OF.match(condition)
    if of:
        counters = tuple(_counter(c) for c in of.group(2).split(","))
        need = int(of.group(1))
        if not 1 <= need <= len(counters):
            raise VPRuleError(f"{text!r}: cannot need {need} of {len(counters)}")
        return VPRule(source, vp, "of", counters, need=need)
    counters_l: list[str] = []
    thresholds: list[int] = []
    for part in condition.split(" and "):
        ge = _GE.match(part.strip())
        if not ge:
            raise VPRuleError(f"{text!r}: expected 'COUNTER >= K' in {part!r}")
        counters_l.append(_counter(ge.group(1)))
        thresholds.append(int(ge.group(2)))
    return VPRule(source, vp, "if", tuple(counters_l), thresholds=tuple(thresholds))
