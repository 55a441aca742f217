"""Tschak!'s components as tags name them: one of its 68 cards, by the card's id
(companion/kinds/tschak/rules/data/tschak_cards.csv); every card is a "card" component."""

from __future__ import annotations

from collections.abc import Iterable

from companion.i18n import N_, NC_
from companion.store.tags import Component, TagError, edition_name

EDITION = "tschak"
TITLES = {EDITION: NC_("edition", "Tschak!")}
GROUPS = ("adventurer", "tower")
BULK_SETS: tuple[str, ...] = ()  # a bulk enrollment walks every card
BULK_LABEL = N_("Bulk: every card")


def english_title(edition: str) -> str:
    return "Tschak!"


def resolve(edition: str | None, kind: str, name: str) -> Component:
    """A card by its id (``mage_01``) or, for convenience, its face (``M2s``: the first
    card of the catalog that shows it)."""
    from companion.kinds.tschak.rules.cards import shipped_catalog

    catalog = shipped_catalog()
    if kind != "card":
        raise TagError(N_("Tschak! has cards only, not {kind!r}"), kind=kind)
    key = name.strip().lower()
    row = catalog.by_id.get(key)
    if row is None:
        row = next((r for r in catalog.rows if r.card.notation.lower() == key), None)
    if row is None:
        raise TagError(
            N_("no card {name!r} in {edition}"), name=name, edition=edition_name(EDITION)
        )
    return Component("card", EDITION, row.id)


def components(
    edition: str, kinds: Iterable[str], sets: Iterable[str], party: bool
) -> list[Component]:
    """Its 68 cards, each once (``sets``: "adventurer", "tower")."""
    from companion.kinds.tschak.rules.cards import shipped_catalog

    groups = set(sets) or set(GROUPS)
    if "card" not in kinds:
        return []
    return [Component("card", EDITION, r.id) for r in shipped_catalog().rows if r.group in groups]


def words(card_id: str) -> str:
    """What a card (by its catalog id) shows, in the table's words."""
    from companion.kinds.tschak.rules.cards import shipped_catalog
    from companion.kinds.tschak.words import card_words

    row = shipped_catalog().by_id.get(card_id.lower())
    return card_words(row.card.notation) if row is not None else card_id
