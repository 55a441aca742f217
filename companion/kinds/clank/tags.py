"""Clank!'s components as tags name them: the catalog's cards and tokens."""

from __future__ import annotations

from collections.abc import Iterable

from companion.i18n import EN_, N_, NC_
from companion.kinds.clank.catalog import CatalogError, load_catalog
from companion.store.tags import Component, TagError, edition_name, kind_word

TITLES = {
    "clank": NC_("edition", "Clank!"),
    "catacombs": NC_("edition", "Clank! Catacombs"),
}
# a bulk enrollment walks the dungeon deck (the starters and the reserve carry no tags)
BULK_SETS = ("dungeon",)
BULK_LABEL = N_("Bulk: the dungeon deck")


def english_title(edition: str) -> str:
    return load_catalog(edition).edition.title


def resolve(edition: str | None, kind: str, name: str) -> Component:
    try:
        catalog = load_catalog(edition or "")
    except CatalogError as e:
        raise TagError(N_("the box's catalog cannot be read: {problem}"), problem=str(e)) from None
    if kind == "card":
        card = catalog.card(name)
        if card is None:
            raise TagError(
                N_("no card {name!r} in {edition}"),
                name=name,
                edition=edition_name(catalog.edition.name),
            )
        return Component("card", catalog.edition.name, card.name)
    token = catalog.token(kind, name)
    if token is None:
        raise TagError(
            EN_("no {kind} {name!r} in {edition}"),
            kind=kind_word(kind),
            name=name,
            edition=edition_name(catalog.edition.name),
        )
    return Component(kind, catalog.edition.name, token.name)


def components(
    edition: str, kinds: Iterable[str], sets: Iterable[str], party: bool
) -> list[Component]:
    catalog = load_catalog(edition)
    wanted_sets = set(sets)
    out: list[Component] = []
    for kind in kinds:
        if kind == "card":
            for card in catalog.cards.values():
                if not wanted_sets or card.set in wanted_sets:
                    out += [Component("card", edition, card.name)] * card.count
        else:
            for token in catalog.tokens_of(kind, party=party):
                out += [Component(kind, edition, token.name)] * token.count
    return out


def words(name: str) -> str:
    """A card or token's name as the table reads it: the catalog's own."""
    return name
