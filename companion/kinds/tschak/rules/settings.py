"""The table's choices where the rulebook is silent or unclear (TSCHAK_SPEC.md section 14).

Each ambiguity with an alternative is a named setting whose default is the spec's; those
the spec settles without an alternative are listed in ``FIXED`` with the decision taken.
A ``new`` line's ``"settings"`` object names only the settings it changes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any

from companion.kinds.tschak.rules.errors import TschakError
from companion.msg import N_


@dataclass(frozen=True)
class Settings:
    # A2: the artifact takes one of the team's three places (false: three heroes, the
    # artifact as an optional fourth card).
    artifact_takes_slot: bool = True
    # A3: whose mages a chameleon may copy: "floor" (the opposing teams on this floor) or
    # "tower" (every mage an opponent played in this tower so far, this floor included).
    chameleon_scope: str = "floor"
    # A4: the chameleon copies the "printed" number or the "effective" one (doubled).
    chameleon_copies: str = "printed"
    # A5: the "strongest" opposing mage (default) or the "weakest" (a review's reading).
    chameleon_target: str = "strongest"
    # A6: the tie chain compares "printed" numbers or "effective" ones (artifact doubled).
    tie_values: str = "printed"
    # A7: a team with no card at a tie step counts "zero" like a chameleon, or
    # "below_chameleon".
    tie_missing: str = "zero"
    # A9, A19: a tie the chain cannot break: "ask" (the action must say, with
    # "tiebreak") or "seat_order" (the earlier seat wins).
    unresolved_tie: str = "ask"
    # A10: trophies with three players: "3-2" (the weakest never gets one) or "3-2-1".
    three_player_trophies: str = "3-2"
    # A11: trophies with a chameleon or an artifact in hand: "rank_last" (those rank last
    # at 0, the others' awards unchanged) or "excluded" (the weakest of the others also
    # gets nothing).
    trophy_zero_cards: str = "rank_last"
    # A13: the war trophy counts troglodytes as monsters.
    war_trophy_troglodytes: bool = True
    # A14: the elixir is optional; it may discard a troglodyte.
    elixir_optional: bool = True
    elixir_troglodyte: bool = True
    # A15: the final tie-break counts monsters "received" or "after_elixir".
    final_tie_monsters: str = "received"
    # A16: after a misplay's penalty, the other card goes to the "others" (the best or
    # worst of the teams that did not misplay) or to "all" teams as usual.
    misplay_other_card: str = "others"
    # Not an ambiguity: every card checked against the catalog and the hands (a card out
    # twice in one tower, a second artifact, a last card of the wrong colour).
    check_cards: bool = True

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def changed(self) -> dict[str, Any]:
        """Only the settings that differ from the defaults."""
        default = Settings()
        return {k: v for k, v in asdict(self).items() if getattr(default, k) != v}

    @classmethod
    def from_dict(cls, raw: Any) -> Settings:
        """Settings from a ``new`` line's object; TschakError for an unknown key or value."""
        if raw is None:
            return cls()
        if not isinstance(raw, Mapping):
            raise TschakError("bad_settings", N_('"settings" is an object of name: value'))
        known = {f.name for f in fields(cls)}
        values: dict[str, Any] = {}
        for key, value in raw.items():
            if key not in known:
                raise TschakError(
                    "unknown_setting",
                    N_("unknown setting {key!r} (known: {known})"),
                    key=key,
                    known=", ".join(sorted(known)),
                )
            allowed = CHOICES[key]
            if not any(value is a or (type(value) is type(a) and value == a) for a in allowed):
                raise TschakError(
                    "bad_setting",
                    N_("setting {key!r} is one of {allowed}, not {value}"),
                    key=key,
                    allowed=", ".join(_shown(a) for a in allowed),
                    value=_shown(value),
                )
            values[key] = value
        return cls(**values)


def _shown(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    return repr(value)


CHOICES: dict[str, tuple[Any, ...]] = {
    "artifact_takes_slot": (True, False),
    "chameleon_scope": ("floor", "tower"),
    "chameleon_copies": ("printed", "effective"),
    "chameleon_target": ("strongest", "weakest"),
    "tie_values": ("printed", "effective"),
    "tie_missing": ("zero", "below_chameleon"),
    "unresolved_tie": ("ask", "seat_order"),
    "three_player_trophies": ("3-2", "3-2-1"),
    "trophy_zero_cards": ("rank_last", "excluded"),
    "war_trophy_troglodytes": (True, False),
    "elixir_optional": (True, False),
    "elixir_troglodyte": (True, False),
    "final_tie_monsters": ("received", "after_elixir"),
    "misplay_other_card": ("others", "all"),
    "check_cards": (True, False),
}

# The ambiguities of TSCHAK_SPEC.md section 14 each setting answers (none: not one).
AMBIGUITY: dict[str, tuple[str, ...]] = {
    "artifact_takes_slot": ("A2",),
    "chameleon_scope": ("A3",),
    "chameleon_copies": ("A4",),
    "chameleon_target": ("A5",),
    "tie_values": ("A6",),
    "tie_missing": ("A7",),
    "unresolved_tie": ("A9", "A19"),
    "three_player_trophies": ("A10",),
    "trophy_zero_cards": ("A11",),
    "war_trophy_troglodytes": ("A13",),
    "elixir_optional": ("A14",),
    "elixir_troglodyte": ("A14",),
    "final_tie_monsters": ("A15",),
    "misplay_other_card": ("A16",),
    "check_cards": (),
}

_DESCRIPTIONS: dict[str, str] = {
    "artifact_takes_slot": "The artifact is one of the team's three cards (else a fourth card).",
    "chameleon_scope": "A chameleon copies mages of this floor, or of the whole tower so far.",
    "chameleon_copies": "A chameleon copies the printed number, or the doubled one.",
    "chameleon_target": "A chameleon copies the strongest opposing mage, or the weakest.",
    "tie_values": "Ties compare printed numbers, or numbers doubled by the artifact.",
    "tie_missing": "In ties a missing hero counts 0 like a chameleon, or below it.",
    "unresolved_tie": "A tie the chain cannot break: the table says, or the earlier seat wins.",
    "three_player_trophies": "Three players: trophies 3 and 2 (weakest gets none), or 3, 2 and 1.",
    "trophy_zero_cards": (
        "Trophies: a chameleon or artifact ranks last, or the weakest of the rest gets none too."
    ),
    "war_trophy_troglodytes": "The war trophy counts troglodytes as monsters.",
    "elixir_optional": "Using the elixir is optional.",
    "elixir_troglodyte": "The elixir may discard a troglodyte.",
    "final_tie_monsters": "A final tie counts monsters as received, or after the elixir.",
    "misplay_other_card": (
        "After a misplay penalty the other card goes to the other teams, or to all."
    ),
    "check_cards": "Check every card against the catalog and the hands.",
}

# (key, default, one-line English description), in the order of section 14.
SETTINGS_INFO: tuple[tuple[str, Any, str], ...] = tuple(
    (f.name, f.default, _DESCRIPTIONS[f.name]) for f in fields(Settings)
)

# Ambiguities the spec settles without an alternative: (id, the decision applied).
FIXED: tuple[tuple[str, str], ...] = (
    ("A1", "Card values come from the editable catalog, unconfirmed until the table corrects it."),
    ("A8", "Dwarf weapons rank axe > middle weapon > unarmed."),
    ("A12", "Hands pass to the left after every tower; each seat plays each hand once."),
    ("A17", "'On the way' boards hold hands but never play a team or take a trophy."),
    ("A18", "The reveal order does not change the result: a floor is resolved from the teams."),
    (
        "A20",
        "Two equally weak members: the artifact doubles the one that loses a single-card "
        "tie (chameleon < dwarf < warrior < mage); the total is the same.",
    ),
    ("A21", "The four artifacts are adventurer cards (40 = 36 + 4)."),
)
