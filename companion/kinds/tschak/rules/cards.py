"""Tschak! cards: the notation, the catalog, and the table's corrections to it.

Adventurer cards (``Hero``) are written ``M5s`` (mage 5 with a staff), ``M4`` (mage 4, no
staff), ``Mc`` (the chameleon, also ``M?``), ``W6a`` / ``W3`` (warrior with / without an axe),
``D4a`` / ``D2x`` / ``D1u`` (dwarf with an axe / the middle weapon / unarmed) and ``A`` (an
artifact). Tower cards (``TowerCard``) are written ``monster:N`` (N skulls), ``troglodyte``,
``chest:N`` (N gold), ``cursed:N`` (N skulls), ``ring``, ``elixir`` and ``war_trophy``.

The printed numbers are not in the rulebook (TSCHAK_SPEC.md section 15), so the shipped
catalog ``data/tschak_cards.csv`` is the H1 template with every row ``confirmed = N``; the
table corrects it once by looking at its cards (``apply_corrections``). A card's identity in
the game is its notation: two physical cards with the same notation (the four chameleons,
the four artifacts) are interchangeable.
"""

from __future__ import annotations

import csv
import io
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from functools import lru_cache
from importlib import resources
from typing import Any

from companion.kinds.tschak.rules.errors import TschakError
from companion.msg import N_

MAGE, WARRIOR, DWARF, ARTIFACT = "mage", "warrior", "dwarf", "artifact"
HERO_CLASSES = (MAGE, WARRIOR, DWARF)  # the order of the tie chain (T-T1..T-T6)
COLOURS = (*HERO_CLASSES, ARTIFACT)

WEAPONS: dict[str, tuple[str, ...]] = {
    MAGE: ("staff", "none"),
    WARRIOR: ("axe", "none"),
    DWARF: ("axe", "middle", "unarmed"),
    ARTIFACT: ("none",),
}
# T-T2, T-T5, T-T6/A8: the weapon decides between equal numbers; higher is stronger.
WEAPON_RANK: dict[str, dict[str, int]] = {
    MAGE: {"staff": 1, "none": 0},
    WARRIOR: {"axe": 1, "none": 0},
    DWARF: {"axe": 2, "middle": 1, "unarmed": 0},
    ARTIFACT: {"none": 0},
}
_SUFFIX = {
    MAGE: {"staff": "s", "none": ""},
    WARRIOR: {"axe": "a", "none": ""},
    DWARF: {"axe": "a", "middle": "x", "unarmed": "u"},
}
_LETTER = {MAGE: "M", WARRIOR: "W", DWARF: "D", ARTIFACT: "A"}

MONSTER, TROGLODYTE = "monster", "troglodyte"
CHEST, CURSED, WAR_TROPHY, RING, ELIXIR = "chest", "cursed_chest", "war_trophy", "ring", "elixir"
MONSTER_KINDS = (MONSTER, TROGLODYTE)
TREASURE_KINDS = (CHEST, CURSED, WAR_TROPHY, RING, ELIXIR)
TOWER_KINDS = (*MONSTER_KINDS, *TREASURE_KINDS)

# The box (T-C4..T-C7): what a catalog must hold, corrections included.
DECK_COUNTS = {MAGE: 12, WARRIOR: 12, DWARF: 12, ARTIFACT: 4}
TOWER_COUNTS = {
    MONSTER: 8,
    TROGLODYTE: 6,
    CHEST: 4,
    CURSED: 2,
    WAR_TROPHY: 1,
    RING: 6,
    ELIXIR: 1,
}
MAX_NUMBER = 99


@dataclass(frozen=True)
class Hero:
    """An adventurer card's face: colour (mage, warrior, dwarf, artifact), printed number
    (None for the chameleon and the artifact) and weapon."""

    colour: str
    value: int | None
    weapon: str = "none"

    @property
    def chameleon(self) -> bool:
        return self.colour == MAGE and self.value is None

    @property
    def artifact(self) -> bool:
        return self.colour == ARTIFACT

    @property
    def zero_card(self) -> bool:
        """A chameleon or an artifact: worth 0 for trophies (T-G4)."""
        return self.value is None

    @property
    def notation(self) -> str:
        if self.colour == ARTIFACT:
            return "A"
        if self.chameleon:
            return "Mc"
        return f"{_LETTER[self.colour]}{self.value}{_SUFFIX[self.colour][self.weapon]}"

    @property
    def weapon_rank(self) -> int:
        """The weapon's place at its tie step; a chameleon never has a staff (T-T3)."""
        if self.chameleon:
            return 0
        return WEAPON_RANK[self.colour][self.weapon]

    def __str__(self) -> str:
        return self.notation


@dataclass(frozen=True)
class TowerCard:
    """A monster or treasure: kind, skulls (monster, cursed chest) and gold (chest)."""

    kind: str
    skulls: int = 0
    gold: int = 0

    @property
    def is_monster(self) -> bool:
        return self.kind in MONSTER_KINDS

    @property
    def is_treasure(self) -> bool:
        return self.kind in TREASURE_KINDS

    @property
    def notation(self) -> str:
        if self.kind == MONSTER:
            return f"monster:{self.skulls}"
        if self.kind == CHEST:
            return f"chest:{self.gold}"
        if self.kind == CURSED:
            return f"cursed:{self.skulls}"
        return self.kind

    def __str__(self) -> str:
        return self.notation


Card = Hero | TowerCard

_HERO_RE = re.compile(r"^(?:(A)|M([C?])|M(\d{1,2})(S?)|W(\d{1,2})(A?)|D(\d{1,2})([AXU]?))$")
_DWARF_WEAPON = {"A": "axe", "X": "middle", "U": "unarmed"}


def parse_hero(text: str) -> Hero:
    """An adventurer card from its notation (case does not matter); TschakError if the
    text is not one."""
    if not isinstance(text, str):
        raise TschakError("bad_card", N_("a card is a string, not {value}"), value=repr(text))
    m = _HERO_RE.match(text.strip().upper())
    if m is None:
        raise TschakError(
            "bad_card",
            N_("{card!r} is not an adventurer card (M5s, M4, Mc, W6a, W3, D4a, D2x, D1u, A)"),
            card=text,
        )
    artifact, cham, mv, ms, wv, wa, dv, dw = m.groups()
    if artifact:
        return Hero(ARTIFACT, None)
    if cham:
        return Hero(MAGE, None)
    if mv is not None:
        return Hero(MAGE, _number(text, mv), "staff" if ms else "none")
    if wv is not None:
        return Hero(WARRIOR, _number(text, wv), "axe" if wa else "none")
    if not dw:
        raise TschakError(
            "bad_card",
            N_("{card!r}: a dwarf names its weapon: a (axe), x (the middle weapon) or u (unarmed)"),
            card=text,
        )
    return Hero(DWARF, _number(text, dv), _DWARF_WEAPON[dw])


def _number(text: str, digits: str) -> int:
    value = int(digits)
    if not 1 <= value <= MAX_NUMBER:
        raise TschakError("bad_card", N_("{card!r}: a hero's number is 1 to 99"), card=text)
    return value


_TOWER_RE = re.compile(r"^(monster|chest|cursed):(\d{1,2})$|^(troglodyte|ring|elixir|war_trophy)$")


def parse_tower_card(text: str) -> TowerCard:
    """A tower card from its notation (case does not matter); TschakError otherwise."""
    if not isinstance(text, str):
        raise TschakError("bad_card", N_("a card is a string, not {value}"), value=repr(text))
    m = _TOWER_RE.match(text.strip().lower())
    if m is None:
        raise TschakError(
            "bad_card",
            N_(
                "{card!r} is not a tower card (monster:N, troglodyte, chest:N, cursed:N, ring, "
                "elixir, war_trophy)"
            ),
            card=text,
        )
    kind, digits, plain = m.groups()
    if plain:
        return TowerCard(plain)
    n = int(digits)
    if not 1 <= n <= MAX_NUMBER:
        raise TschakError("bad_card", N_("{card!r}: the number is 1 to 99"), card=text)
    if kind == "monster":
        return TowerCard(MONSTER, skulls=n)
    if kind == "chest":
        return TowerCard(CHEST, gold=n)
    return TowerCard(CURSED, skulls=n)


# ---------------------------------------------------------------------------- catalog
@dataclass(frozen=True)
class CatalogRow:
    """One physical card: its name (what a tag is bound to), face, and whether the table
    has checked it against the printed card."""

    id: str
    card: Card
    confirmed: bool = False
    notes: str = ""

    @property
    def group(self) -> str:
        return "adventurer" if isinstance(self.card, Hero) else "tower"

    def as_dict(self) -> dict[str, Any]:
        card = self.card
        out: dict[str, Any] = {"id": self.id, "group": self.group, "card": card.notation}
        if isinstance(card, Hero):
            out.update(colour=card.colour, value=card.value, weapon=card.weapon)
        else:
            out.update(kind=card.kind, skulls=card.skulls, gold=card.gold)
        out.update(confirmed=self.confirmed, notes=self.notes)
        return out


class Catalog:
    """The 40 adventurer and 28 tower cards of one box (immutable once built)."""

    def __init__(self, rows: Iterable[CatalogRow]) -> None:
        self.rows: tuple[CatalogRow, ...] = tuple(rows)
        self.by_id: dict[str, CatalogRow] = {}
        for row in self.rows:
            key = row.id.lower()
            if key in self.by_id:
                raise TschakError("bad_catalog", N_("the card id {id!r} appears twice"), id=row.id)
            self.by_id[key] = row
        self._check()
        self.hero_counts: Counter[str] = Counter(
            r.card.notation for r in self.rows if isinstance(r.card, Hero)
        )
        self.tower_counts: Counter[str] = Counter(
            r.card.notation for r in self.rows if isinstance(r.card, TowerCard)
        )

    def _check(self) -> None:
        colours = Counter(r.card.colour for r in self.rows if isinstance(r.card, Hero))
        kinds = Counter(r.card.kind for r in self.rows if isinstance(r.card, TowerCard))
        for want, have, what in (
            (DECK_COUNTS, colours, "adventurer"),
            (TOWER_COUNTS, kinds, "tower"),
        ):
            for name, n in want.items():
                if have.get(name, 0) != n:
                    raise TschakError(
                        "bad_catalog",
                        N_("the box holds {want} {name} cards, the catalog {have}"),
                        want=n,
                        name=name,
                        have=have.get(name, 0),
                        group=what,
                    )

    @property
    def heroes(self) -> tuple[CatalogRow, ...]:
        return tuple(r for r in self.rows if isinstance(r.card, Hero))

    @property
    def tower_cards(self) -> tuple[CatalogRow, ...]:
        return tuple(r for r in self.rows if isinstance(r.card, TowerCard))

    @property
    def unconfirmed(self) -> tuple[str, ...]:
        return tuple(r.id for r in self.rows if not r.confirmed)

    def hero(self, name: str) -> Hero:
        """An adventurer card by notation or catalog id; TschakError if neither."""
        if isinstance(name, str) and name.strip().lower() in self.by_id:
            card = self.by_id[name.strip().lower()].card
            if not isinstance(card, Hero):
                raise TschakError(
                    "bad_card", N_("{card!r} is a tower card, not an adventurer"), card=name
                )
            return card
        return parse_hero(name)

    def tower_card(self, name: str) -> TowerCard:
        """A tower card by notation or catalog id; TschakError if neither."""
        if isinstance(name, str):
            row = self.by_id.get(name.strip().lower())
            if row is not None and isinstance(row.card, TowerCard):
                return row.card
            if row is not None:
                raise TschakError(
                    "bad_card", N_("{card!r} is an adventurer, not a tower card"), card=name
                )
        return parse_tower_card(name)

    def rows_dicts(self) -> list[dict[str, Any]]:
        return [r.as_dict() for r in self.rows]


COLUMNS = ("id", "group", "kind", "value", "weapon", "skulls", "gold", "confirmed", "notes")


def _read_rows(text: str) -> list[CatalogRow]:
    reader = csv.DictReader(io.StringIO(text))
    for column in COLUMNS:
        if column not in (reader.fieldnames or ()):
            raise TschakError(
                "bad_catalog", N_("the catalog has no column {column!r}"), column=column
            )
    rows = []
    for number, rec in enumerate(reader, start=2):
        rows.append(_row_from_record(rec, number))
    return rows


def _field(rec: Mapping[str, Any], name: str) -> str:
    value = rec.get(name)
    return value.strip() if isinstance(value, str) else ""


def _whole(code: str, card_id: str, name: str, raw: str) -> int:
    if not raw:
        return 0
    if not (raw.isascii() and raw.isdigit()):
        raise TschakError(
            code,
            N_("{card}: {field} is a whole number, not {value!r}"),
            card=card_id,
            field=name,
            value=raw,
        )
    return int(raw)


def _row_from_record(rec: Mapping[str, Any], line: int) -> CatalogRow:
    card_id = _field(rec, "id")
    if not card_id:
        raise TschakError("bad_catalog", N_("catalog line {line}: the card has no id"), line=line)
    group, kind = _field(rec, "group"), _field(rec, "kind")
    card: Card
    if group == "adventurer":
        raw = _field(rec, "value")
        value = None if raw in ("", "?") else _whole("bad_catalog", card_id, "value", raw)
        weapon = _field(rec, "weapon") or "none"
        card = _checked_hero("bad_catalog", card_id, kind, value, weapon)
    elif group == "tower":
        skulls = _whole("bad_catalog", card_id, "skulls", _field(rec, "skulls"))
        gold = _whole("bad_catalog", card_id, "gold", _field(rec, "gold"))
        card = _checked_tower("bad_catalog", card_id, kind, skulls, gold)
    else:
        raise TschakError(
            "bad_catalog",
            N_("{card}: the group is adventurer or tower, not {group!r}"),
            card=card_id,
            group=group,
        )
    confirmed = _field(rec, "confirmed").upper() in ("Y", "YES", "TRUE", "1")
    return CatalogRow(card_id, card, confirmed, _field(rec, "notes"))


def _checked_hero(code: str, card_id: str, colour: Any, value: int | None, weapon: Any) -> Hero:
    """An adventurer card's face, or TschakError ``code`` naming the card ``card_id``."""
    if colour not in COLOURS:
        raise TschakError(
            code,
            N_("{card}: the colour is mage, warrior, dwarf or artifact, not {colour!r}"),
            card=card_id,
            colour=colour,
        )
    if weapon not in WEAPONS[colour]:
        raise TschakError(
            code,
            N_("{card}: a {colour} has no weapon {weapon!r} (weapons: {weapons})"),
            card=card_id,
            colour=colour,
            weapon=weapon,
            weapons=", ".join(WEAPONS[colour]),
        )
    if colour == ARTIFACT and value is not None:
        raise TschakError(code, N_("{card}: an artifact has no number"), card=card_id)
    if colour in (WARRIOR, DWARF) and value is None:
        raise TschakError(
            code, N_("{card}: a {colour} needs a number"), card=card_id, colour=colour
        )
    if value is not None and not 1 <= value <= MAX_NUMBER:
        raise TschakError(
            code, N_("{card}: a hero's number is 1 to 99, not {value}"), card=card_id, value=value
        )
    if colour == MAGE and value is None and weapon != "none":
        raise TschakError(code, N_("{card}: the chameleon has no weapon"), card=card_id)
    return Hero(colour, value, weapon)


def _checked_tower(code: str, card_id: str, kind: Any, skulls: int, gold: int) -> TowerCard:
    """A tower card's face, or TschakError ``code`` naming the card ``card_id``."""
    if kind not in TOWER_KINDS:
        raise TschakError(
            code,
            N_("{card}: the kind is one of {kinds}, not {kind!r}"),
            card=card_id,
            kind=kind,
            kinds=", ".join(TOWER_KINDS),
        )
    if skulls > MAX_NUMBER or gold > MAX_NUMBER:
        raise TschakError(code, N_("{card}: skulls and gold are at most 99"), card=card_id)
    if kind in (MONSTER, CURSED) and (skulls == 0 or gold):
        raise TschakError(
            code, N_("{card}: a {kind} card has skulls and no gold"), card=card_id, kind=kind
        )
    if kind == CHEST and (gold == 0 or skulls):
        raise TschakError(
            code, N_("{card}: a {kind} card has gold and no skulls"), card=card_id, kind=kind
        )
    if kind not in (MONSTER, CURSED, CHEST) and (skulls or gold):
        raise TschakError(
            code, N_("{card}: a {kind} card has no skulls and no gold"), card=card_id, kind=kind
        )
    return TowerCard(kind, skulls, gold)


@lru_cache(maxsize=1)
def shipped_catalog() -> Catalog:
    """The catalog shipped with the package (the H1 template, unconfirmed)."""
    text = (
        resources.files("companion.kinds.tschak.rules")
        .joinpath("data")
        .joinpath("tschak_cards.csv")
        .read_text("utf-8")
    )
    return Catalog(_read_rows(text))


def load_catalog(corrections: Mapping[str, Any] | None = None) -> Catalog:
    """The shipped catalog with the table's corrections applied (see apply_corrections)."""
    catalog = shipped_catalog()
    return apply_corrections(catalog, corrections) if corrections else catalog


def apply_corrections(catalog: Catalog, corrections: Mapping[str, Any]) -> Catalog:
    """A new catalog: ``corrections`` maps a card id to what the table read on the card.

    - ``true``: the card is as listed (confirmed);
    - a notation (``"M6s"``, ``"monster:5"``): the card's face, confirmed;
    - an object with any of ``value`` (int or ``"?"``), ``weapon``, ``colour``, ``kind``,
      ``skulls``, ``gold``, ``confirmed`` (bool): those fields changed (confirmed unless
      it says ``"confirmed": false``).

    The key ``"*"`` with ``true`` confirms every card. The result must still be the box:
    12 mages, 12 warriors, 12 dwarves, 4 artifacts, 8 monsters, 6 troglodytes, 4 chests, 2
    cursed chests, 1 war trophy, 6 rings, 1 elixir; TschakError otherwise.
    """
    if not isinstance(corrections, Mapping):
        raise TschakError("bad_correction", N_("corrections are an object of card id: correction"))
    rows = {r.id.lower(): r for r in catalog.rows}
    order = [r.id.lower() for r in catalog.rows]
    for key, fix in corrections.items():
        if key == "*":
            if fix is not True:
                raise TschakError("bad_correction", N_('"*" takes only true (confirm every card)'))
            rows = {k: replace(r, confirmed=True) for k, r in rows.items()}
            continue
        row = rows.get(str(key).lower())
        if row is None:
            raise TschakError("bad_correction", N_("no card {id!r} in the catalog"), id=key)
        rows[row.id.lower()] = _corrected(row, fix)
    return Catalog(rows[k] for k in order)


def _corrected(row: CatalogRow, fix: Any) -> CatalogRow:
    code, card_id = "bad_correction", row.id
    if fix is True:
        return replace(row, confirmed=True)
    if isinstance(fix, str):
        try:
            card: Card = parse_hero(fix) if isinstance(row.card, Hero) else parse_tower_card(fix)
        except TschakError:
            raise TschakError(
                code,
                N_(
                    "{card}: {fix!r} is not an adventurer card (M5s, M4, Mc, W6a, W3, D4a, D2x, "
                    "D1u, A)"
                )
                if isinstance(row.card, Hero)
                else N_(
                    "{card}: {fix!r} is not a tower card (monster:N, troglodyte, chest:N, "
                    "cursed:N, ring, elixir, war_trophy)"
                ),
                card=card_id,
                fix=fix,
            ) from None
        return replace(row, card=card, confirmed=True)
    if not isinstance(fix, Mapping):
        raise TschakError(
            code, N_("{card}: a correction is true, a notation or an object"), card=card_id
        )
    confirmed = fix.get("confirmed", True)
    if not isinstance(confirmed, bool):
        raise TschakError(code, N_('{card}: "confirmed" is true or false'), card=card_id)
    if isinstance(row.card, Hero):
        h = row.card
        _only(card_id, fix, {"colour", "value", "weapon", "confirmed"})
        value = fix.get("value", h.value)
        if value == "?":
            value = None
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise TschakError(code, N_('{card}: "value" is a whole number or "?"'), card=card_id)
        colour = fix.get("colour", h.colour)
        weapon = fix.get("weapon", h.weapon if "colour" not in fix else "none")
        hero = _checked_hero(code, card_id, colour, value, weapon)
        return replace(row, card=hero, confirmed=confirmed)
    t = row.card
    _only(card_id, fix, {"kind", "skulls", "gold", "confirmed"})
    skulls, gold = fix.get("skulls", t.skulls), fix.get("gold", t.gold)
    for n in (skulls, gold):
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise TschakError(
                code, N_('{card}: "skulls" and "gold" are whole numbers'), card=card_id
            )
    tower = _checked_tower(code, card_id, fix.get("kind", t.kind), skulls, gold)
    return replace(row, card=tower, confirmed=confirmed)


def _only(card_id: str, fix: Mapping[str, Any], allowed: set[str]) -> None:
    unknown = sorted(str(k) for k in set(fix) - allowed)
    if unknown:
        raise TschakError(
            "bad_correction",
            N_("{card}: unknown field {field!r} (allowed: {allowed})"),
            card=card_id,
            field=unknown[0],
            allowed=", ".join(sorted(allowed)),
        )
