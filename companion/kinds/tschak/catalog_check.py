"""The Tschak! card catalog checked once against the table's own box.

``CatalogCheck`` walks the 68 cards and keeps the table's corrections in a CSV file of the
shipped catalog's format, as a table keeps its corrected Clank! catalog in a folder of its
own (``CLANK_CATALOG_DIR``); every new game carries them in its ``new`` line
(``"catalog"``), so its log replays exactly."""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from companion.i18n import _, pgettext
from companion.kinds.tschak.rules import Catalog, Hero, TowerCard, TschakError, apply_corrections
from companion.kinds.tschak.rules.cards import (
    ARTIFACT,
    CHEST,
    CURSED,
    MAGE,
    MONSTER,
    WEAPONS,
    shipped_catalog,
)
from companion.kinds.tschak.words import COLOUR_WORDS, TOWER_TITLES, WEAPON_SHORT, refusal, tp

CATALOG_FILE = "tschak_cards.csv"
CATALOG_COLUMNS = ["id", "group", "kind", "value", "weapon", "skulls", "gold", "confirmed", "notes"]


class CatalogCheck:
    """The unconfirmed card catalog checked once against the table's own cards.

    Walks the 68 cards of the shipped catalog; for each the table confirms what the card
    shows or corrects its number, weapon, skulls or gold (the colour or kind of a card is
    not corrected: the box's counts are printed in the rulebook). Every answer is saved
    at once to ``path``: a CSV in the shipped catalog's format that a person may also
    edit by hand. ``corrections()`` is what a new game's ``"catalog"`` carries.
    """

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.shipped = shipped_catalog()
        self.rows: dict[str, tuple[Hero | TowerCard, bool]] = {
            r.id: (r.card, r.confirmed) for r in self.shipped.rows
        }
        self.order = [r.id for r in self.shipped.rows]
        self.position = 0
        self.problem = ""  # a broken corrections file: its line and reason
        self.load()

    # ---------------------------------------------------------------- the file
    def load(self) -> None:
        self.problem = ""
        if self.path is None or not self.path.is_file():
            return
        try:
            text = self.path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            self.problem = _("{file}: cannot be read ({reason})").format(
                file=self.path.name, reason=e
            )
            return
        rows = dict(self.rows)
        try:
            reader = csv.DictReader(io.StringIO(text))
            if reader.fieldnames is None or not set(CATALOG_COLUMNS[:8]) <= set(reader.fieldnames):
                raise ValueError(
                    _("the header must be {columns}").format(columns=",".join(CATALOG_COLUMNS))
                )
            for line, rec in enumerate(reader, start=2):
                try:
                    card_id, card, confirmed = self._read_row(rec)
                except (KeyError, ValueError, TypeError, TschakError) as e:
                    reason = refusal(e) if isinstance(e, TschakError) else str(e)
                    raise ValueError(
                        _("line {line}: {reason}").format(line=line, reason=reason)
                    ) from None
                rows[card_id] = (card, confirmed)
        except (ValueError, csv.Error) as e:
            self.problem = _("{file}: {reason}").format(file=self.path.name, reason=e)
            return
        self.rows = rows
        self.position = self.first_unconfirmed()

    def _read_row(self, rec: Mapping[str, str]) -> tuple[str, Hero | TowerCard, bool]:
        card_id = (rec.get("id") or "").strip()
        shipped = self.shipped.by_id.get(card_id.lower())
        if shipped is None:
            raise ValueError(_("no card {id!r} in the box").format(id=card_id))
        fix: dict[str, Any]
        if isinstance(shipped.card, Hero):
            value = (rec.get("value") or "").strip()
            fix = {
                "colour": (rec.get("kind") or "").strip(),
                "value": None if value in ("", "?") else int(value),
                "weapon": (rec.get("weapon") or "").strip() or "none",
            }
            if fix["colour"] != shipped.card.colour:
                raise ValueError(
                    _("{id} is a {colour} card (the box's counts)").format(
                        id=shipped.id, colour=tp(COLOUR_WORDS[shipped.card.colour])
                    )
                )
            if fix["value"] is None and fix["colour"] != ARTIFACT:
                fix["value"] = "?"
        else:
            fix = {
                "kind": (rec.get("kind") or "").strip(),
                "skulls": int(rec.get("skulls") or 0),
                "gold": int(rec.get("gold") or 0),
            }
            if fix["kind"] != shipped.card.kind:
                raise ValueError(
                    _("{id} is a {kind} card (the box's counts)").format(
                        id=shipped.id, kind=tp(TOWER_TITLES[shipped.card.kind]).lower()
                    )
                )
        confirmed = (rec.get("confirmed") or "").strip().upper() in ("Y", "YES", "TRUE", "1")
        fix["confirmed"] = confirmed
        card = apply_corrections(self.shipped, {shipped.id: fix}).by_id[shipped.id.lower()].card
        return shipped.id, card, confirmed

    def save(self) -> None:
        if self.path is None:
            return
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(CATALOG_COLUMNS)
        for row in self.shipped.rows:
            card, confirmed = self.rows[row.id]
            if isinstance(card, Hero):
                value = "" if card.artifact else ("?" if card.value is None else str(card.value))
                fields = [row.group, card.colour, value, card.weapon, "", ""]
            else:
                fields = [
                    row.group,
                    card.kind,
                    "",
                    "",
                    str(card.skulls or ""),
                    str(card.gold or ""),
                ]
            notes = row.notes if (card == row.card and not confirmed) else "checked at the table"
            writer.writerow([row.id, *fields, "Y" if confirmed else "N", notes])
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.path.with_suffix(".tmp")
        temporary.write_text(out.getvalue(), encoding="utf-8")
        os.replace(temporary, self.path)

    # ---------------------------------------------------------------- reading
    @property
    def total(self) -> int:
        return len(self.order)

    @property
    def confirmed_count(self) -> int:
        return sum(1 for _c, ok in self.rows.values() if ok)

    @property
    def changed_count(self) -> int:
        return sum(1 for r in self.shipped.rows if self.rows[r.id][0] != r.card)

    def first_unconfirmed(self) -> int:
        for i, card_id in enumerate(self.order):
            if not self.rows[card_id][1]:
                return i
        return 0

    @property
    def current_id(self) -> str:
        return self.order[self.position]

    def card(self, card_id: str | None = None) -> Hero | TowerCard:
        return self.rows[card_id or self.current_id][0]

    def confirmed(self, card_id: str | None = None) -> bool:
        return self.rows[card_id or self.current_id][1]

    def corrections(self) -> dict[str, Any]:
        """What the table read on its cards, for a new game's ``"catalog"``: every card
        it checked by its face (a notation), and a changed card it did not confirm as an
        object that says so. Empty: the shipped catalog as it is."""
        out: dict[str, Any] = {}
        all_confirmed = all(ok for _c, ok in self.rows.values())
        if all_confirmed:
            out["*"] = True
        for row in self.shipped.rows:
            card, confirmed = self.rows[row.id]
            if confirmed and (card != row.card or not all_confirmed):
                out[row.id] = card.notation
            elif not confirmed and card != row.card:
                out[row.id] = {**_fields_of(card), "confirmed": False}
        return out

    def catalog(self) -> Catalog:
        corrections = self.corrections()
        return apply_corrections(self.shipped, corrections) if corrections else self.shipped

    # ---------------------------------------------------------------- changing
    def go(self, position: int) -> None:
        self.position = max(0, min(self.total - 1, position))

    def go_to(self, card_id: str) -> bool:
        for i, known in enumerate(self.order):
            if known.lower() == card_id.lower():
                self.position = i
                return True
        return False

    def answer(self, card: Hero | TowerCard | None = None) -> None:
        """The current card is ``card`` as the table reads it (None: as listed); it is
        confirmed, saved, and the walk moves to the next card."""
        current = self.card()
        if card is not None:
            same = (
                isinstance(card, Hero)
                and isinstance(current, Hero)
                and card.colour == current.colour
            ) or (
                isinstance(card, TowerCard)
                and isinstance(current, TowerCard)
                and card.kind == current.kind
            )
            if not same:
                raise ValueError("the colour or kind of a card stays (the box's counts)")
            apply_corrections(self.shipped, {self.current_id: card.notation})  # checks it
        self.rows[self.current_id] = (card or current, True)
        self.save()
        if self.position < self.total - 1:
            self.position += 1

    def reset(self) -> None:
        """Forget every answer: the shipped template again, unconfirmed."""
        self.rows = {r.id: (r.card, r.confirmed) for r in self.shipped.rows}
        self.position = 0
        self.problem = ""
        self.save()

    # ---------------------------------------------------------------- picking
    def numbers(self, card: Hero | TowerCard | None = None) -> tuple[tuple[str, Any], ...]:
        """The numbers a card (the current one) may show: (label, value)."""
        card = card or self.card()
        if isinstance(card, Hero):
            if card.artifact:
                return ()
            values: list[Any] = ["?"] if card.colour == MAGE else []
            return tuple((str(v), v) for v in [*values, *range(1, 8)])
        if card.kind in (MONSTER, CURSED, CHEST):
            return tuple((str(v), v) for v in range(1, 8))
        return ()

    def weapons(self, card: Hero | TowerCard | None = None) -> tuple[tuple[str, str], ...]:
        card = card or self.card()
        if not isinstance(card, Hero) or card.artifact or card.chameleon:
            return ()
        out = []
        for weapon in WEAPONS[card.colour]:
            short = WEAPON_SHORT.get((card.colour, weapon))
            out.append((tp(short) if short else pgettext("tschak", "no weapon"), weapon))
        return tuple(out)


def _fields_of(card: Hero | TowerCard) -> dict[str, Any]:
    if isinstance(card, Hero):
        return {
            "colour": card.colour,
            "value": "?" if card.value is None and not card.artifact else card.value,
            "weapon": card.weapon,
        }
    return {"kind": card.kind, "skulls": card.skulls, "gold": card.gold}


def group_of(card: Hero | TowerCard) -> str:
    """A card's colour group, as a chip shows it."""
    if isinstance(card, Hero):
        return card.colour
    return "monster" if card.is_monster else "treasure"


def with_number(card: Hero | TowerCard, value: Any) -> Hero | TowerCard:
    """The card with another number (a mage's "?": the Chameleon)."""
    if isinstance(card, Hero):
        if value == "?":
            return Hero(MAGE, None)
        weapon = card.weapon if card.value is not None else WEAPONS[card.colour][-1]
        return Hero(card.colour, int(value), weapon)
    if card.kind == CHEST:
        return TowerCard(CHEST, gold=int(value))
    return TowerCard(card.kind, skulls=int(value))


def default_catalog_path(database: Path) -> Path:
    """Where the table's catalog corrections live: its own catalog folder
    (``CLANK_CATALOG_DIR``, as for the Clank! catalogs), else beside the game database."""
    folder = os.environ.get("CLANK_CATALOG_DIR")
    return (Path(folder) if folder else Path(database).parent) / CATALOG_FILE
