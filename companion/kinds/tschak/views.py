"""What the Tschak! screens are shown: frozen views, in the table's language, that the
controller builds (``companion.kinds.tschak.view_builder``) and the screens draw from and
from nothing else; and a card as a chip shows it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from companion.kinds.tschak.rules import TschakError
from companion.kinds.tschak.rules.cards import (
    ARTIFACT,
    CHEST,
    CURSED,
    MAGE,
    MONSTER,
    parse_hero,
    parse_tower_card,
)
from companion.kinds.tschak.words import (
    COLOUR_TITLES,
    TOWER_TITLES,
    WEAPON_SHORT,
    hero_words,
    tower_words,
    tp,
)
from companion.live import Listener, Update, UpdateKind

SEAT_COLOURS = ("red", "yellow", "green", "blue", "purple", "orange")
HIDDEN_SKULL = "\u2620"  # ☠ (DejaVuSans has it)


def seat_colour(players: Sequence[str], player: str) -> str:
    """A player's panel colour: a seat's colour is its own name; a named player takes
    the colour of their seat."""
    if player in SEAT_COLOURS:
        return player
    index = list(players).index(player) if player in players else 0
    return SEAT_COLOURS[index % len(SEAT_COLOURS)]


# ======================================================================= the views
@dataclass(frozen=True)
class CardView:
    """A card as a chip shows it: its colour group, a title, the figure, the weapon."""

    notation: str
    group: str  # mage, warrior, dwarf, artifact, monster, treasure
    title: str  # "Mage", "Chameleon", "Monster"...
    figure: str  # "5", "?", "☠ 3", "+4", ""
    weapon: str  # "staff", "axe", "unarmed"... ("" for none)
    words: str  # the whole card in a sentence


def card_view(notation: str) -> CardView:
    try:
        hero = parse_hero(notation)
    except TschakError:
        hero = None
    if hero is not None:
        if hero.artifact:
            return CardView(notation, ARTIFACT, tp("Artifact"), "×2", "", hero_words(hero))
        if hero.chameleon:
            return CardView(notation, MAGE, tp("Chameleon"), "?", "", hero_words(hero))
        weapon = WEAPON_SHORT.get((hero.colour, hero.weapon), "")
        return CardView(
            notation,
            hero.colour,
            tp(COLOUR_TITLES[hero.colour]),
            str(hero.value),
            tp(weapon) if weapon else "",
            hero_words(hero),
        )
    card = parse_tower_card(notation)
    group = "monster" if card.is_monster else "treasure"
    figure = ""
    if card.kind in (MONSTER, CURSED):
        figure = f"{HIDDEN_SKULL} {card.skulls}"
    elif card.kind == CHEST:
        figure = f"+{card.gold}"
    return CardView(notation, group, tp(TOWER_TITLES[card.kind]), figure, "", tower_words(card))


@dataclass(frozen=True)
class TeamView:
    """One player's team on the floor being entered (or the last card, for trophies)."""

    player: str
    label: str  # the player's name as shown
    colour: str  # the panel's colour
    cards: tuple[CardView, ...]
    slots: int  # how many cards the team takes
    state: str  # "empty", "partial", "complete", "illegal"
    problem: str  # what is wrong, in words ("" when nothing)
    misplay: bool  # takes the misplay penalty (T-X1)
    selected: bool  # the next scan goes here
    known: CardView | None = None  # trophies: the last card the tracked hand leaves
    score: str = ""  # the running total, only when the table turned it on


@dataclass(frozen=True)
class FloorSlotView:
    floor: int
    monster: CardView | None
    treasure: CardView | None
    current: bool
    done: bool


@dataclass(frozen=True)
class VerdictTeamView:
    player: str
    label: str
    colour: str
    strength: int
    cards: tuple[CardView, ...]
    takes: str  # "treasure", "monster" or ""
    takes_text: str
    detail: str  # the breakdown: the chameleon's copy, the artifact's double
    misplay: bool


@dataclass(frozen=True)
class FloorVerdictView:
    tower: int
    floor: int
    title: str
    monster: CardView
    treasure: CardView
    teams: tuple[VerdictTeamView, ...]
    reasons: tuple[str, ...]  # the verdict with its reason, a line each


@dataclass(frozen=True)
class TrophyRowView:
    player: str
    label: str
    colour: str
    card: CardView | None
    gold: int
    note: str  # "no trophy: chameleon", "weakest: no trophy", ""


@dataclass(frozen=True)
class TrophyVerdictView:
    tower: int
    title: str
    rows: tuple[TrophyRowView, ...]  # strongest first
    reasons: tuple[str, ...]
    passing: str  # "pass your 10 cards to the left: ..." ("" after the last tower)
    last_tower: bool


@dataclass(frozen=True)
class PileView:
    """A player's two face-down piles at the end: scanned against what the game holds."""

    player: str
    label: str
    colour: str
    expected: int
    scanned: tuple[CardView, ...]
    status: str  # "unscanned", "partial", "match", "mismatch"
    status_text: str
    selected: bool


@dataclass(frozen=True)
class ScoreColumnView:
    player: str
    label: str
    colour: str
    place: int
    total: int
    cells: tuple[str, ...]  # one per FinalView.rows
    elixir: str  # the elixir's use in words ("" without it)
    elixir_choices: tuple[tuple[str, str | None], ...]  # (label, discard) to choose from


@dataclass(frozen=True)
class FinalView:
    winners: tuple[str, ...]
    winner_text: str
    tie_note: str
    rows: tuple[str, ...]  # the row labels of the breakdown
    columns: tuple[ScoreColumnView, ...]  # ranking order
    piles: tuple[PileView, ...]  # seat order
    revealed: bool  # the result is on screen (else: the piles are being scanned)


@dataclass(frozen=True)
class QuestionView:
    """A tie the rules cannot break (A9): the table says who is stronger."""

    text: str
    players: tuple[tuple[str, str], ...]  # (player, label) to tap, in seat order


@dataclass(frozen=True)
class SettingView:
    key: str
    ambiguity: str  # "A3", "A9, A19", ""
    title: str
    value: Any
    value_text: str
    default_text: str
    changed: bool
    choices: tuple[tuple[Any, str], ...]


@dataclass(frozen=True)
class SetupView:
    players: tuple[str, ...]
    seating: str
    settings: tuple[SettingView, ...]
    fixed: tuple[str, ...]
    catalog_text: str
    catalog_problem: str
    trophies: str


@dataclass(frozen=True)
class CheckView:
    """The catalog check: the card on screen as the table has set it, and its choices."""

    title: str
    progress: str
    instruction: str
    message: str
    card: CardView
    checked: bool
    numbers: tuple[tuple[str, Any, bool], ...]  # (label, value, chosen)
    weapons: tuple[tuple[str, str, bool], ...]
    position: int
    total: int
    confirmed: int


Phase = Literal["none", "setup", "tower", "floor", "verdict", "trophies", "trophy_verdict", "over"]


@dataclass(frozen=True)
class TschakView:
    phase: Phase
    game: int | None = None
    tower: int = 0
    floor: int = 0
    title: str = ""
    hint: str = ""  # what to do now, in one line
    last: str = ""  # what just happened, in one line
    can_undo: bool = False
    can_resolve: bool = False
    scores_visible: bool = False
    floors: tuple[FloorSlotView, ...] = ()
    teams: tuple[TeamView, ...] = ()
    verdict: FloorVerdictView | None = None
    trophies: TrophyVerdictView | None = None
    final: FinalView | None = None
    question: QuestionView | None = None
    setup: SetupView | None = None
    players: tuple[str, ...] = ()
    totals: str = ""  # the running totals in one line, only when the table turned them on


__all__ = ["Listener", "Update", "UpdateKind"]  # the shared updates, as the screens import them
