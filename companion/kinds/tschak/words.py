"""Tschak! in words, in the table's language: the cards (the Russian rulebook's own words,
«Хрясь!», маг, воин, гном, Хамелеон..., through the catalogs' "tschak" context), a
refusal, the settings and their choices, the seats, and the lines the verdicts and the
controller say. Used by the Tschak! controller, views and screens, and by the tag registry
(a tag bound to a card is named in words)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from companion.i18n import NC_, _, npgettext, pgettext, player_name
from companion.kinds.tschak.rules import FIXED, Hero, Settings, TowerCard, TschakError, seating
from companion.kinds.tschak.rules.cards import (
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

# ======================================================================= the cards
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
    (DWARF, "middle"): NC_("tschak", "middle"),  # the rulebook leaves it unnamed (A8)
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


# ======================================================================= the screens' words
TREASURE = NC_("tschak", "Treasure")  # the tower screen's column
REVEALS = {1: "1 + 1 + 1", 2: "1 + 2", 3: "3"}  # T-R3..T-R5


def who(player: str) -> str:
    return player_name(player, capital=True)


# ======================================================================= refusals
def refusal(error: TschakError) -> str:
    """A refusal in the table's language: its template translated, its values shown as
    the screens name them (players, card colours, cards)."""
    params = {k: _shown_param(k, v) for k, v in error.params.items()}
    template = _(error.template)
    try:
        return template.format(**params)
    except (KeyError, IndexError, ValueError):
        return error.text


def _shown_param(key: str, value: Any) -> Any:
    if key == "player" and isinstance(value, str):
        return who(value)
    if key == "players" and isinstance(value, str):
        return value
    if key == "colour" and value in COLOUR_WORDS:
        return tp(COLOUR_WORDS[value])
    if key == "card" and isinstance(value, str):
        return card_words(value)
    return value


# ======================================================================= settings
SETTING_TITLES: dict[str, str] = {
    "artifact_takes_slot": NC_("tschak setting", "The artifact in a team"),
    "chameleon_scope": NC_("tschak setting", "Whose mages the Chameleon may copy"),
    "chameleon_copies": NC_("tschak setting", "The number the Chameleon copies"),
    "chameleon_target": NC_("tschak setting", "Which opposing mage the Chameleon copies"),
    "tie_values": NC_("tschak setting", "Ties compare"),
    "tie_missing": NC_("tschak setting", "In a tie, a team without that hero"),
    "unresolved_tie": NC_("tschak setting", "A tie the rules cannot break"),
    "three_player_trophies": NC_("tschak setting", "Trophies with three players"),
    "trophy_zero_cards": NC_(
        "tschak setting", "Trophies when someone keeps a Chameleon or an artifact"
    ),
    "war_trophy_troglodytes": NC_("tschak setting", "The war trophy counts troglodytes"),
    "elixir_optional": NC_("tschak setting", "Using the elixir"),
    "elixir_troglodyte": NC_("tschak setting", "The elixir may discard a troglodyte"),
    "final_tie_monsters": NC_("tschak setting", "A final tie counts the monsters"),
    "misplay_other_card": NC_("tschak setting", "After a misplay, the other card goes to"),
    "check_cards": NC_("tschak setting", "Check every card against the box and the hands"),
}
CHOICE_WORDS: dict[str, dict[Any, str]] = {
    "artifact_takes_slot": {
        True: NC_("tschak setting", "one of the three cards"),
        False: NC_("tschak setting", "a fourth card beside three heroes"),
    },
    "chameleon_scope": {
        "floor": NC_("tschak setting", "this floor's teams"),
        "tower": NC_("tschak setting", "every team of this tower"),
    },
    "chameleon_copies": {
        "printed": NC_("tschak setting", "the printed number"),
        "effective": NC_("tschak setting", "the number doubled by an artifact"),
    },
    "chameleon_target": {
        "strongest": NC_("tschak setting", "the strongest"),
        "weakest": NC_("tschak setting", "the weakest"),
    },
    "tie_values": {
        "printed": NC_("tschak setting", "printed numbers"),
        "effective": NC_("tschak setting", "numbers doubled by the artifact"),
    },
    "tie_missing": {
        "zero": NC_("tschak setting", "counts 0, like the Chameleon"),
        "below_chameleon": NC_("tschak setting", "counts below the Chameleon"),
    },
    "unresolved_tie": {
        "ask": NC_("tschak setting", "the table decides"),
        "seat_order": NC_("tschak setting", "the earlier seat wins"),
    },
    "three_player_trophies": {
        "3-2": NC_("tschak setting", "3 and 2 gold, the weakest gets none"),
        "3-2-1": NC_("tschak setting", "3, 2 and 1 gold"),
    },
    "trophy_zero_cards": {
        "rank_last": NC_("tschak setting", "that player ranks last, the others as usual"),
        "excluded": NC_("tschak setting", "the weakest of the others gets none either"),
    },
    "war_trophy_troglodytes": {
        True: NC_("tschak setting", "yes"),
        False: NC_("tschak setting", "no, only the other monsters"),
    },
    "elixir_optional": {
        True: NC_("tschak setting", "optional"),
        False: NC_("tschak setting", "required"),
    },
    "elixir_troglodyte": {
        True: NC_("tschak setting", "yes"),
        False: NC_("tschak setting", "no"),
    },
    "final_tie_monsters": {
        "received": NC_("tschak setting", "as received"),
        "after_elixir": NC_("tschak setting", "after the elixir"),
    },
    "misplay_other_card": {
        "others": NC_("tschak setting", "the teams that did not misplay"),
        "all": NC_("tschak setting", "every team, as usual"),
    },
    "check_cards": {
        True: NC_("tschak setting", "yes"),
        False: NC_("tschak setting", "no"),
    },
}
FIXED_WORDS: dict[str, str] = {
    "A1": NC_(
        "tschak setting",
        "Card values come from the card catalog: check it against your cards once.",
    ),
    "A8": NC_(
        "tschak setting", "Dwarves' weapons rank: axe, then the middle weapon, then unarmed."
    ),
    "A12": NC_(
        "tschak setting", "After every tower the hands pass to the left; each seat plays each once."
    ),
    "A17": NC_(
        "tschak setting", "«On the way» boards hold hands, never play a team or take a trophy."
    ),
    "A18": NC_("tschak setting", "The order of the reveals never changes a floor's result."),
    "A20": NC_(
        "tschak setting",
        "Two equally weak members: which one the artifact doubles changes nothing.",
    ),
    "A21": NC_("tschak setting", "The four artifacts are among the 40 hero cards."),
}


def choice_text(key: str, value: Any) -> str:
    words = CHOICE_WORDS.get(key, {})
    for known, text in words.items():
        if type(known) is type(value) and known == value:
            return pgettext("tschak setting", text)
    return str(value)


def fixed_lines() -> tuple[str, ...]:
    return tuple(
        aid + " · " + pgettext("tschak setting", FIXED_WORDS[aid])
        for aid, _english in FIXED
        if aid in FIXED_WORDS
    )


def seating_text(players: Sequence[str]) -> str:
    """The seats clockwise, the «On the way» boards included (T-P2..T-P4)."""
    parts = []
    board = 0
    for i, name in enumerate(seating(list(players)), start=1):
        if name is None:
            board += 1
            parts.append(_("{seat}. «On the way» board {n}").format(seat=i, n=board))
        else:
            parts.append(f"{i}. {who(name)}")
    return "  ·  ".join(parts)


def trophies_text(players: int, settings: Settings) -> str:
    if players == 2:
        return _("Trophies: one, 2 gold, to the stronger last card")
    if players == 3 and settings.three_player_trophies == "3-2":
        return _("Trophies: 3 and 2 gold (the weakest last card gets none)")
    return _("Trophies: 3, 2 and 1 gold (the weakest last card gets none)")


# ======================================================================= the controller's lines
def signed(n: int) -> str:
    """A score with its sign: "+3", "−2", "0"."""
    if n > 0:
        return f"+{n}"
    if n < 0:
        return f"−{-n}"
    return "0"


def error_text(error: Exception) -> str:
    """Any error (the store refused, a game cannot be resumed) in one line: in the
    table's language when it is one of ours, else its own text."""
    from companion.i18n import localized

    try:
        return localized(error)
    except Exception:  # noqa: BLE001 - any other exception: its text
        return str(error)


def verdict_line(record: dict[str, Any]) -> str:
    """A recorded floor in one line: who takes the treasure, who the monster."""
    parts = []
    if record["treasure"]["to"]:
        parts.append(
            _("{player} takes {card}").format(
                player=who(record["treasure"]["to"]), card=card_words(record["treasure"]["card"])
            )
        )
    if record["monster"]["to"]:
        parts.append(
            _("{player} takes {card}").format(
                player=who(record["monster"]["to"]), card=card_words(record["monster"]["card"])
            )
        )
    return "; ".join(parts)


# ======================================================================= the cards in order
_TOWER_KIND_ORDER = {
    k: i for i, k in enumerate((MONSTER, TROGLODYTE, CHEST, CURSED, RING, ELIXIR, WAR_TROPHY))
}
_COLOUR_ORDER = {MAGE: 0, WARRIOR: 1, DWARF: 2, ARTIFACT: 3}


def is_tower_card(notation: str) -> bool:
    try:
        parse_tower_card(notation)
    except TschakError:
        return False
    return True


def tower_order(notation: str) -> tuple[int, int]:
    """How a picker lists the tower cards: by kind, then by skulls or gold."""
    card = parse_tower_card(notation)
    return (_TOWER_KIND_ORDER[card.kind], card.skulls + card.gold)


def hero_order(notation: str) -> tuple[int, int, int]:
    """How a picker lists the heroes: mages, warriors, dwarves, artifacts; by number,
    the best weapon first."""
    card = parse_hero(notation)
    return (_COLOUR_ORDER[card.colour], card.value or 0, -card.weapon_rank)
