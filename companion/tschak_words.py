"""Tschak! cards in words, in the table's language: the Russian rulebook's own words
(«Хрясь!», маг, воин, гном, Хамелеон...) through the catalogs' "tschak" context. Used by
the Tschak! screens and by the tag registry (a tag bound to a card is named in words)."""

from __future__ import annotations

from companion.i18n import NC_, npgettext, pgettext
from companion.tschak import Hero, TowerCard, TschakError
from companion.tschak.cards import (
    ARTIFACT,
    CHEST,
    CURSED,
    DWARF,
    ELIXIR,
    MAGE,
    MONSTER,
    RING,
    TROGLODYTE,
    WAR_TROPHY,
    WARRIOR,
    parse_hero,
    parse_tower_card,
)

# ======================================================================= the words
# The rulebook's own words (tschak.ru.txt): «Хрясь!», маг, воин, гном, Хамелеон,
# артефакт, посох, топор, безоружный, чудовище, троглодит, сундук, проклятый сундук,
# военный трофей, кольцо Всевластия, эликсир, золотой, череп, планшет «В пути».
COLOUR_WORDS = {
    MAGE: NC_("tschak", "mage"),
    WARRIOR: NC_("tschak", "warrior"),
    DWARF: NC_("tschak", "dwarf"),
    ARTIFACT: NC_("tschak", "artifact"),
}
COLOUR_TITLES = {
    MAGE: NC_("tschak", "Mage"),
    WARRIOR: NC_("tschak", "Warrior"),
    DWARF: NC_("tschak", "Dwarf"),
    ARTIFACT: NC_("tschak", "Artifact"),
}
# T-T2, T-T5, T-T6: the weapon of a hero, as the card shows it (chips: one word)
WEAPON_SHORT = {
    (MAGE, "staff"): NC_("tschak", "staff"),
    (WARRIOR, "axe"): NC_("tschak", "axe"),
    (DWARF, "axe"): NC_("tschak", "axe"),
    (DWARF, "middle"): NC_("tschak", "middle weapon"),
    (DWARF, "unarmed"): NC_("tschak", "unarmed"),
}
# and in a sentence: "mage 4 with a staff"
HERO_WORDS = {
    (MAGE, "staff"): NC_("tschak", "mage {n} with a staff"),
    (MAGE, "none"): NC_("tschak", "mage {n} without a staff"),
    (WARRIOR, "axe"): NC_("tschak", "warrior {n} with an axe"),
    (WARRIOR, "none"): NC_("tschak", "warrior {n} without an axe"),
    (DWARF, "axe"): NC_("tschak", "dwarf {n} with an axe"),
    (DWARF, "middle"): NC_("tschak", "dwarf {n} with the middle weapon"),
    (DWARF, "unarmed"): NC_("tschak", "dwarf {n}, unarmed"),
}
TOWER_TITLES = {
    MONSTER: NC_("tschak", "Monster"),
    TROGLODYTE: NC_("tschak", "Troglodyte"),
    CHEST: NC_("tschak", "Chest"),
    CURSED: NC_("tschak", "Cursed chest"),
    WAR_TROPHY: NC_("tschak", "War trophy"),
    RING: NC_("tschak", "Ring of Power"),
    ELIXIR: NC_("tschak", "Elixir"),
}
# and in a sentence
TOWER_WORDS = {
    TROGLODYTE: NC_("tschak", "troglodyte"),
    WAR_TROPHY: NC_("tschak", "war trophy"),
    RING: NC_("tschak", "ring of Power"),
    ELIXIR: NC_("tschak", "elixir"),
}
CHAMELEON = NC_("tschak", "Chameleon")  # «Хамелеон»: a name, capitalised in the rulebook


def tp(message: str) -> str:
    """A Tschak! word in the table's language (the "tschak" context)."""
    return pgettext("tschak", message)


def hero_words(card: Hero) -> str:
    """An adventurer card in a sentence: "mage 4 with a staff", "the Chameleon"."""
    if card.artifact:
        return tp("artifact")
    if card.chameleon:
        return tp(CHAMELEON)
    return tp(HERO_WORDS[(card.colour, card.weapon)]).format(n=card.value)


def tower_words(card: TowerCard) -> str:
    """A tower card in a sentence: "monster, 3 skulls", "chest, 4 gold"."""
    n = card.skulls or card.gold
    if card.kind == MONSTER:
        text = npgettext("tschak", "monster, {n} skull", "monster, {n} skulls", n)
    elif card.kind == CURSED:
        text = npgettext("tschak", "cursed chest, {n} skull", "cursed chest, {n} skulls", n)
    elif card.kind == CHEST:
        text = npgettext("tschak", "chest, {n} gold", "chest, {n} gold", n)
    else:
        return tp(TOWER_WORDS[card.kind])
    return text.format(n=n)


def card_words(notation: str) -> str:
    """Any card's notation in words (the notation itself if it is none)."""
    try:
        return hero_words(parse_hero(notation))
    except TschakError:
        pass
    try:
        return tower_words(parse_tower_card(notation))
    except TschakError:
        return notation
