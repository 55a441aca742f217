"""The Tschak! controller: taps and scans in, TschakGame actions out, a typed view back.

The Clank! screens have ``companion.controller``; the Tschak! screens have this one, the
same shape: screens call it and redraw from ``view()``, a frozen picture of the table in
the table's language. It never touches Kivy, so it is tested on its own.

What the table does, and what becomes an action (TABLE_SCRIPT.md, "Tschak!"):

- set-up (before the game exists): the players, every setting of the rulebook's
  ambiguities (each shown with its default, changeable), the card catalog's corrections;
  ``start`` records the game (``{"new": ...}``) through the injected ``start`` function;
- a tower: the three monsters and three treasures, scanned or tapped into the floors'
  slots, then ``{"do": "tower"}``;
- a floor: every player's team, scanned card by card (a card goes to the player chosen on
  screen, or to the only player whose tracked hand holds it) or tapped, then
  ``{"do": "floor"}``; the verdict stays on screen until the table goes on;
- the trophies: each player's last card (known when the hands are tracked), then
  ``{"do": "trophies"}``;
- the end: each player scans their two piles to check them against the game, then the
  winner and the breakdown; the elixir's choice is ``{"do": "elixir"}``.

A refusal (``TschakError``) leaves the game unchanged and becomes one clear line in the
table's language. Undo first takes back the card entered last; with nothing entered, the
last action (``{"do": "undo"}``), and what it undid comes back on screen to be corrected.

Collected cards lie face down (T-F4): the view carries no running totals unless the table
turns them on (``toggle_scores``).

The catalog check (``CatalogCheck``) walks the 68 cards once against the table's own box
and keeps the corrections in a CSV file of the shipped catalog's format, as a table keeps
its corrected Clank! catalog in a folder of its own (``CLANK_CATALOG_DIR``); every new game
carries them in its ``new`` line (``"catalog"``), so its log replays exactly.
"""

from __future__ import annotations

import csv
import io
import os
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

from companion.i18n import NC_, _, ngettext, pgettext, player_name
from companion.tschak import (
    FIXED,
    SETTINGS_INFO,
    Catalog,
    Hero,
    Settings,
    TowerCard,
    TschakError,
    TschakGame,
    apply_corrections,
    parse_hero,
    parse_tower_card,
    seating,
)
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
    WEAPONS,
    shipped_catalog,
)
from companion.tschak.resolve import (
    MageSeen,
    TeamResult,
    compare,
    evaluate_teams,
    numbered_mage,
    single_card,
)
from companion.tschak.settings import AMBIGUITY, CHOICES
from companion.tschak_words import (
    COLOUR_TITLES,
    COLOUR_WORDS,
    TOWER_TITLES,
    WEAPON_SHORT,
    card_words,
    hero_words,
    tower_words,
    tp,
)

EDITION = "tschak"
SEAT_COLOURS = ("red", "yellow", "green", "blue", "purple", "orange")
CATALOG_FILE = "tschak_cards.csv"
CATALOG_COLUMNS = ["id", "group", "kind", "value", "weapon", "skulls", "gold", "confirmed", "notes"]
HIDDEN_SKULL = "\u2620"  # ☠ (DejaVuSans has it)


class TschakTableLike(Protocol):
    """What the controller needs of a table: a TschakTable, or a Session's table that
    commits each action to the game log before returning."""

    game: TschakGame

    def apply(self, action: dict[str, Any]) -> list[dict[str, Any]]: ...

    def snapshot(self) -> dict[str, Any]: ...

    def close(self) -> None: ...


StartFn = Callable[[dict[str, Any]], TschakTableLike]
ResumeFn = Callable[[int], TschakTableLike]


def _default_start(options: dict[str, Any]) -> TschakTableLike:
    from companion.tschak_table import TschakTable  # a table without a log

    return TschakTable(options)


# ======================================================================= the words
# (companion/tschak_words.py: the cards in words, shared with the tag registry)
TREASURE = NC_("tschak", "Treasure")  # the tower screen's column
REVEALS = {1: "1 + 1 + 1", 2: "1 + 2", 3: "3"}  # T-R3..T-R5


def who(player: str) -> str:
    return player_name(player, capital=True)


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


UpdateKind = Literal["action", "entry", "rejected", "unknown_tag", "game", "ignored", "setup"]


@dataclass(frozen=True)
class Update:
    kind: UpdateKind
    message: str = ""
    uid: str | None = None


Listener = Callable[[Update], None]


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


def setting_views(settings: Settings) -> tuple[SettingView, ...]:
    out = []
    for key, default, _english in SETTINGS_INFO:
        value = getattr(settings, key)
        out.append(
            SettingView(
                key=key,
                ambiguity=", ".join(AMBIGUITY.get(key, ())),
                title=pgettext("tschak setting", SETTING_TITLES[key]),
                value=value,
                value_text=choice_text(key, value),
                default_text=choice_text(key, default),
                changed=value != default or type(value) is not type(default),
                choices=tuple((c, choice_text(key, c)) for c in CHOICES[key]),
            )
        )
    return tuple(out)


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


# ======================================================================= the catalog check
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


# ======================================================================= the controller
class TschakControl:
    def __init__(
        self,
        *,
        start: StartFn | None = None,
        resume: ResumeFn | None = None,
        store: Any = None,
        registry: Any = None,
        catalog_path: Path | None = None,
    ) -> None:
        self._start = start or _default_start
        self._resume = resume
        self.store = store
        self.registry = registry
        self.check = CatalogCheck(catalog_path)
        self.listeners: list[Listener] = []
        self.table: TschakTableLike | None = None
        self.pending: dict[str, Any] | None = None  # the set-up: players, settings
        self.last = ""
        self.check_draft: Hero | TowerCard | None = None  # the card as the table set it
        self.check_message = ""
        self._clear()

    def _clear(self) -> None:
        self.slots: dict[str, list[str | None]] = {"monsters": [None] * 3, "treasures": [None] * 3}
        self.teams: dict[str, list[str]] = {}
        self.misplays: set[str] = set()
        self.last_cards: dict[str, str] = {}
        self.selected: str | None = None
        self.showing: tuple[str, int] | None = None  # ("floor" | "trophies", index)
        self.question: dict[str, Any] | None = None  # a tie the table settles
        self.scores_visible = False
        self.piles: dict[str, list[str]] = {}
        self.revealed = False
        self.closed = False

    # ------------------------------------------------------------------ reading
    @property
    def game(self) -> TschakGame | None:
        return self.table.game if self.table is not None else None

    @property
    def active(self) -> bool:
        """A Tschak! game is on the table, or its set-up is under way."""
        return self.table is not None or self.pending is not None

    @property
    def game_id(self) -> int | None:
        if self.table is None:
            return None
        found = getattr(self.table, "game_id", None)
        if found is None:
            found = getattr(getattr(self.table, "log", None), "game", None)
        return found if isinstance(found, int) else None

    @property
    def phase(self) -> Phase:
        if self.table is None:
            return "setup" if self.pending is not None else "none"
        game = self.table.game
        if self.showing is not None:
            return "verdict" if self.showing[0] == "floor" else "trophy_verdict"
        if game.game_over:
            return "over"
        nxt = game.next_action()
        return nxt if nxt in ("tower", "floor", "trophies") else "over"  # type: ignore[return-value]

    def snapshot(self) -> dict[str, Any] | None:
        return self.table.snapshot() if self.table is not None else None

    # ------------------------------------------------------------------ set-up
    def prepare(self, players: Sequence[str]) -> bool:
        """The set-up screen for these players (2 to 4, seat order): settings at their
        defaults until the table changes them."""
        try:
            TschakGame(list(players))  # checks the names and the count
        except TschakError as e:
            self._tell(Update("rejected", refusal(e)))
            return False
        self.pending = {"players": list(players), "settings": {}}
        self._tell(Update("setup"))
        return True

    def cancel_setup(self) -> None:
        self.pending = None
        self._tell(Update("setup"))

    def pending_settings(self) -> Settings:
        raw = self.pending["settings"] if self.pending else {}
        return Settings.from_dict(raw)

    def set_setting(self, key: str, value: Any) -> bool:
        if self.pending is None:
            return False
        changed = dict(self.pending["settings"])
        changed[key] = value
        try:
            settings = Settings.from_dict(changed)
        except TschakError as e:
            self._tell(Update("rejected", refusal(e)))
            return False
        self.pending["settings"] = settings.changed()
        self._tell(
            Update(
                "setup",
                _("{setting}: {choice}").format(
                    setting=pgettext("tschak setting", SETTING_TITLES.get(key, key)),
                    choice=choice_text(key, value),
                ),
            )
        )
        return True

    def options(self) -> dict[str, Any]:
        """The new game's options, as its ``new`` line records them."""
        assert self.pending is not None
        options: dict[str, Any] = {"edition": EDITION, "players": list(self.pending["players"])}
        if self.pending["settings"]:
            options["settings"] = dict(self.pending["settings"])
        corrections = self.check.corrections()
        if corrections:
            options["catalog"] = corrections
        return options

    def start(self) -> bool:
        """Record the game (the injected ``start``: a Session commits its ``new`` line)."""
        if self.pending is None:
            return False
        if self.check.problem:
            self._tell(Update("rejected", self.check.problem))
            return False
        try:
            table = self._start(self.options())
        except TschakError as e:
            self._tell(Update("rejected", refusal(e)))
            return False
        except Exception as e:  # noqa: BLE001 - the store refused: said, the set-up stays
            self._tell(Update("rejected", _localized(e)))
            return False
        self.table = table
        self.pending = None
        self._clear()
        self._save()
        self._tell(Update("game", _("Tschak! game started")))
        return True

    def resume(self, game_id: int) -> bool:
        """Carry on with a recorded game (the injected ``resume``)."""
        if self._resume is None:
            return False
        try:
            table = self._resume(game_id)
        except Exception as e:  # noqa: BLE001 - the game cannot be resumed: said
            self._tell(Update("rejected", _localized(e)))
            return False
        self.table = table
        self.pending = None
        self._clear()
        self._load_saved()
        self._tell(Update("game", _("game {game} resumed").format(game=game_id)))
        return True

    def resume_last(self) -> Literal["none", "resumed", "failed", "closed"]:
        """At start-up: carry on with the last Tschak! game if it is the one the table
        left (unfinished, or over with its scores not yet closed). "none": the last game
        is not a Tschak! one (the Clank! controller's turn)."""
        store = self.store
        if store is None:
            return "none"
        game = store.last_unfinished()
        if game is None:
            game = store.last_game()
            if game is None:
                return "none"
            row = store.game_row(game)
            if row.get("edition") != EDITION or row.get("status") != "over":
                return "none"
        elif store.game_row(game).get("edition") != EDITION:
            return "none"
        if store.in_progress(game).get("closed") or store.game_row(game)["closed"]:
            return "closed"
        return "resumed" if self.resume(game) else "failed"

    def close_game(self) -> None:
        """The scores were read: the log is closed (its head is final) and the table
        moves on to the new-game screen."""
        if self.table is None:
            return
        try:
            self.table.close()
        except TschakError as e:
            self._tell(Update("rejected", refusal(e)))
            return
        except Exception as e:  # noqa: BLE001 - the store refused (a full disk...)
            self._tell(Update("rejected", _localized(e)))
            return
        self.closed = True
        self._save()
        self._drop_table()
        self._tell(Update("game", _("game closed")))

    def abandon(self) -> bool:
        """Give the game up (its log keeps it, marked abandoned); the new-game screen."""
        table = self.table
        if table is None or self.phase == "over" or not hasattr(table, "abandon"):
            return False
        try:
            table.abandon("abandoned at the table")
        except TschakError as e:
            self._tell(Update("rejected", refusal(e)))
            return False
        except Exception as e:  # noqa: BLE001 - the store refused: said
            self._tell(Update("rejected", _localized(e)))
            return False
        self._drop_table()
        self._tell(Update("game", _("game abandoned")))
        return True

    def _drop_table(self) -> None:
        """The table moves on from this game: other programs may open it now."""
        game = self.game_id
        if self.store is not None and game is not None:
            self.store.release(game)
        self.table = None
        self._clear()

    # ------------------------------------------------------------------ saving
    def _save(self) -> None:
        game = self.game_id
        if self.store is None or game is None:
            return
        body: dict[str, Any] = {"tschak": True}
        if self.closed:
            body["closed"] = True
        if any(self.slots["monsters"]) or any(self.slots["treasures"]):
            body["slots"] = self.slots
        if self.teams:
            body["teams"] = self.teams
        if self.misplays:
            body["misplays"] = sorted(self.misplays)
        if self.last_cards:
            body["last"] = self.last_cards
        if self.selected:
            body["selected"] = self.selected
        if self.showing:
            body["showing"] = list(self.showing)
        if self.scores_visible:
            body["scores"] = True
        if self.piles:
            body["piles"] = self.piles
        if self.revealed:
            body["revealed"] = True
        self.store.save_in_progress(game, body)

    def _load_saved(self) -> None:
        """What the table had entered before a restart, each part kept only if it has the
        shape this program writes."""
        game = self.game_id
        if self.store is None or game is None or self.game is None:
            return
        saved = self.store.in_progress(game)
        players = set(self.game.players)

        def names(value: Any) -> bool:
            return isinstance(value, list) and all(isinstance(v, str) for v in value)

        slots = saved.get("slots")
        if isinstance(slots, dict) and all(
            isinstance(slots.get(k), list)
            and len(slots[k]) == 3
            and all(v is None or isinstance(v, str) for v in slots[k])
            for k in ("monsters", "treasures")
        ):
            self.slots = {k: list(slots[k]) for k in ("monsters", "treasures")}
        teams = saved.get("teams")
        if isinstance(teams, dict):
            self.teams = {p: list(v) for p, v in teams.items() if p in players and names(v)}
        if names(saved.get("misplays")):
            self.misplays = set(saved["misplays"]) & players
        last = saved.get("last")
        if isinstance(last, dict):
            self.last_cards = {p: v for p, v in last.items() if p in players and isinstance(v, str)}
        if saved.get("selected") in players:
            self.selected = saved["selected"]
        showing = saved.get("showing")
        if (
            isinstance(showing, list)
            and len(showing) == 2
            and showing[0] in ("floor", "trophies")
            and isinstance(showing[1], int)
        ):
            records = self.game.state.floors if showing[0] == "floor" else self.game.state.trophies
            if 0 <= showing[1] < len(records):
                self.showing = (showing[0], showing[1])
        self.scores_visible = saved.get("scores") is True
        piles = saved.get("piles")
        if isinstance(piles, dict):
            self.piles = {p: list(v) for p, v in piles.items() if p in players and names(v)}
        self.revealed = saved.get("revealed") is True
        self.closed = saved.get("closed") is True

    # ------------------------------------------------------------------ actions
    def do(self, action: dict[str, Any]) -> list[dict[str, Any]] | None:
        """Apply one action; its events, or None when refused (the table is told why,
        the game unchanged)."""
        if self.table is None:
            self._tell(Update("rejected", _("no game is running")))
            return None
        try:
            events = self.table.apply(action)
        except TschakError as e:
            if e.code == "tie_unresolved" and action.get("do") in ("floor", "trophies"):
                self._ask(action, e)
                return None
            self._tell(Update("rejected", refusal(e)))
            return None
        except Exception as e:  # noqa: BLE001 - the store refused (a full disk...)
            self._tell(Update("rejected", _localized(e)))
            return None
        return events

    def _ask(self, action: dict[str, Any], error: TschakError) -> None:
        tied = [p for p in error.params.get("tied", []) if isinstance(p, str)]
        self.question = {"action": action, "tied": tied, "order": []}
        self._tell(Update("entry", self._question_text()))

    def _question_text(self) -> str:
        q = self.question or {}
        tied = [who(p) for p in q.get("tied", [])]
        order = [who(p) for p in q.get("order", [])]
        text = _("{players} are still tied after the dwarves. Who is stronger?").format(
            players=", ".join(tied)
        )
        if order:
            text += " " + _("So far, strongest first: {players}").format(players=", ".join(order))
        return text

    def answer_tie(self, player: str) -> bool:
        """One tap per tied player, strongest first; the action goes on once only one
        is left."""
        q = self.question
        if q is None or player not in q["tied"] or player in q["order"]:
            return False
        q["order"].append(player)
        left = [p for p in q["tied"] if p not in q["order"]]
        if len(left) > 1:
            self._tell(Update("entry", self._question_text()))
            return True
        order = [*q["order"], *left]
        action = dict(q["action"])
        previous = list(action.get("tiebreak") or [])
        action["tiebreak"] = previous + [p for p in order if p not in previous]
        self.question = None
        if action["do"] == "floor":
            return self._commit_floor(action)
        return self._commit_trophies(action)

    def cancel_question(self) -> None:
        self.question = None
        self._tell(Update("entry", _("the tie is left open: correct the teams")))

    # ------------------------------------------------------------------ towers
    def tower_choices(self, which: str) -> list[str]:
        """The tower cards a slot may take ("monsters" or "treasures"), with copies left
        in the box (when the cards are checked)."""
        game = self.game
        if game is None:
            return []
        counts = game.catalog.tower_counts
        kinds = ("monster", "troglodyte") if which == "monsters" else ()
        out = []
        for notation in sorted(counts, key=_tower_order):
            card = parse_tower_card(notation)
            if (which == "monsters") != card.is_monster:
                continue
            if kinds and card.kind not in kinds:
                continue
            if self._copies_left(notation) > 0:
                out.append(notation)
        return out

    def _copies_left(self, notation: str, *, besides: int = 0) -> int:
        game = self.game
        assert game is not None
        if not game.settings.check_cards:
            return 99
        in_slots = sum(1 for k in ("monsters", "treasures") for n in self.slots[k] if n == notation)
        used = game.state.tower_cards_used.get(notation, 0)
        return game.catalog.tower_counts.get(notation, 0) - used - in_slots + besides

    def set_slot(self, which: str, floor: int, notation: str | None) -> bool:
        """Put a tower card in a floor's slot (``floor`` 1-3), or empty the slot."""
        if self.phase != "tower" or which not in self.slots or not 1 <= floor <= 3:
            return False
        if notation is not None:
            try:
                card = self._tower_card(notation)
            except TschakError as e:
                self._tell(Update("rejected", refusal(e)))
                return False
            if (which == "monsters") != card.is_monster:
                self._tell(Update("rejected", self._wrong_slot(card)))
                return False
            notation = card.notation
            current = self.slots[which][floor - 1]
            if self._copies_left(notation, besides=int(current == notation)) <= 0:
                self._tell(
                    Update(
                        "rejected",
                        _("no {card} is left in the box").format(card=card_words(notation)),
                    )
                )
                return False
        self.slots[which][floor - 1] = notation
        self._save()
        what = (
            _("floor {floor}: {card}").format(floor=floor, card=card_words(notation))
            if notation
            else _("floor {floor}: slot emptied").format(floor=floor)
        )
        self._tell(Update("entry", what))
        return True

    def _wrong_slot(self, card: TowerCard) -> str:
        if card.is_monster:
            return _("{card} is a monster: it goes in a monster's slot").format(
                card=tower_words(card)
            )
        return _("{card} is a treasure: it goes in a treasure's slot").format(
            card=tower_words(card)
        )

    def _tower_card(self, notation: str) -> TowerCard:
        game = self.game
        assert game is not None
        return game.catalog.tower_card(notation)

    def _place_tower_card(self, card: TowerCard) -> bool:
        which = "monsters" if card.is_monster else "treasures"
        free = [i for i, n in enumerate(self.slots[which]) if n is None]
        if not free:
            word = _("monsters") if card.is_monster else _("treasures")
            self._tell(
                Update(
                    "rejected",
                    _("the three {what} are set out already: tap one to empty its slot").format(
                        what=word
                    ),
                )
            )
            return False
        return self.set_slot(which, free[0] + 1, card.notation)

    def set_out_tower(self) -> bool:
        if self.phase != "tower":
            return False
        if None in self.slots["monsters"] or None in self.slots["treasures"]:
            self._tell(Update("rejected", _("every floor needs its monster and its treasure")))
            return False
        action = {
            "do": "tower",
            "monsters": list(self.slots["monsters"]),
            "treasures": list(self.slots["treasures"]),
        }
        if self.do(action) is None:
            return False
        tower = self.game.state.tower if self.game else 0
        self.slots = {"monsters": [None] * 3, "treasures": [None] * 3}
        self.teams = {}
        self.misplays = set()
        self.selected = self._first_player()
        self._save()
        self._tell(Update("action", _("tower {tower} is set out: floor 1").format(tower=tower)))
        return True

    # ------------------------------------------------------------------ teams
    def _first_player(self) -> str | None:
        game = self.game
        return game.players[0] if game is not None else None

    def select(self, player: str) -> None:
        game = self.game
        if game is None or player not in game.players:
            return
        self.selected = player
        if self.phase == "over":
            self._save()
            self._tell(
                Update("entry", _("{player}: scan your two piles").format(player=who(player)))
            )
            return
        self._save()
        self._tell(Update("entry", _("{player}: scan the cards").format(player=who(player))))

    def team_slots(self) -> int:
        game = self.game
        return 3 if game is None or game.settings.artifact_takes_slot else 4

    def _team_complete(self, cards: Sequence[str]) -> bool:
        colours = [self._hero(c).colour for c in cards]
        if len(set(colours)) != len(colours):
            return False
        if self.team_slots() == 3:
            return len(cards) == 3
        return {MAGE, WARRIOR, DWARF} <= set(colours)

    def _hero(self, notation: str) -> Hero:
        game = self.game
        assert game is not None
        return game.catalog.hero(notation)

    def hand_choices(self, player: str) -> list[str]:
        """The hero cards a tap may add for ``player``: the cards left in their tracked
        hand, or every face of the box."""
        game = self.game
        if game is None or player not in game.players:
            return []
        left = self._hand_left(player)
        if left is not None:
            return sorted(set(left.elements()), key=_hero_order)
        return sorted(game.catalog.hero_counts, key=_hero_order)

    def _hand_left(self, player: str) -> Counter[str] | None:
        """What the tracked hand still holds beyond the cards entered on this floor."""
        game = self.game
        assert game is not None
        if not game.settings.check_cards:
            return None
        try:
            hand = game.known_hand(player)
        except TschakError:
            return None
        if hand is None:
            return None
        left = Counter(hand)
        entered = self.teams.get(player, []) if self.phase == "floor" else []
        left.subtract(entered)
        return +left

    def add_card(self, notation: str, player: str | None = None) -> bool:
        """A hero card for a team (the floor) or a last card (the trophies)."""
        game = self.game
        if game is None:
            return False
        if self.showing is not None:
            self.showing = None  # the verdict was read: the next floor begins
        phase = self.phase
        if phase not in ("floor", "trophies"):
            self._tell(Update("rejected", self._not_now(notation)))
            return False
        try:
            card = self._hero(notation)
            if game.settings.check_cards and card.notation not in game.catalog.hero_counts:
                raise TschakError(
                    "not_in_catalog",
                    "there is no {card} in the catalog (correct the catalog if the card says so)",
                    card=card.notation,
                )
        except TschakError as e:
            self._tell(Update("rejected", refusal(e)))
            return False
        target = player or self._owner(card.notation) or self.selected or self._first_player()
        if target is None or target not in game.players:
            return False
        if phase == "trophies":
            self.last_cards[target] = card.notation
            self.selected = self._next_open(target)
            self._save()
            self._tell(
                Update(
                    "entry", _("{player}: {card}").format(player=who(target), card=hero_words(card))
                )
            )
            return True
        team = self.teams.setdefault(target, [])
        if len(team) >= self.team_slots() or (team and self._team_complete(team)):
            self._tell(
                Update(
                    "rejected",
                    _("{player}'s team is complete: tap a card to take it back").format(
                        player=who(target)
                    ),
                )
            )
            return False
        colours = [self._hero(c).colour for c in team]
        team.append(card.notation)
        message = _("{player}: {card}").format(player=who(target), card=hero_words(card))
        if card.colour in colours:
            self.misplays.add(target)  # T-X1: the table saw it; it may take it back
            message = _(
                "{player}: two {colour} cards! Swap one for a card from the hand; "
                "the team takes the penalty"
            ).format(player=who(target), colour=tp(COLOUR_WORDS[card.colour]))
        if self._team_complete(team):
            self.selected = self._next_open(target)
        else:
            self.selected = target
        self._save()
        self._tell(Update("entry", message))
        return True

    def _owner(self, notation: str) -> str | None:
        """The only player whose tracked hand holds this card, if the hands are known."""
        game = self.game
        assert game is not None
        holders = []
        for p in game.players:
            left = self._hand_left(p)
            if left is None:
                return None
            if self.phase == "trophies" and p in self.last_cards:
                continue
            if left.get(notation, 0) > 0:
                holders.append(p)
        return holders[0] if len(holders) == 1 else None

    def _next_open(self, after: str) -> str | None:
        """The next player (clockwise, after ``after``) whose entry is not done."""
        game = self.game
        assert game is not None
        order = list(game.players)
        start = order.index(after)
        for p in order[start + 1 :] + order[: start + 1]:
            if self.phase == "trophies":
                if p not in self.last_cards and self._known_last(p) is None:
                    return p
            elif not self._team_complete(self.teams.get(p, [])):
                return p
        return after

    def remove_card(self, player: str, index: int) -> bool:
        """Take back one card of a team (or the last card) entered on screen."""
        if self.phase == "trophies":
            if player in self.last_cards:
                card = self.last_cards.pop(player)
                self.selected = player
                self._save()
                self._tell(
                    Update(
                        "entry",
                        _("{player}: {card} taken back").format(
                            player=who(player), card=card_words(card)
                        ),
                    )
                )
                return True
            return False
        team = self.teams.get(player, [])
        if self.phase != "floor" or not 0 <= index < len(team):
            return False
        card = team.pop(index)
        self.selected = player
        self._save()
        self._taken_back(player, card)
        return True

    def toggle_misplay(self, player: str) -> None:
        """Whether this team takes the misplay penalty (T-X1): set when two cards of a
        colour were entered; the table may clear it (if nobody had revealed yet)."""
        if self.phase != "floor" or self.game is None or player not in self.game.players:
            return
        if player in self.misplays:
            self.misplays.discard(player)
            message = _("{player}: no misplay penalty").format(player=who(player))
        else:
            self.misplays.add(player)
            message = _("{player} misplayed: the team takes the penalty").format(player=who(player))
        self._save()
        self._tell(Update("entry", message))

    def resolve_floor(self) -> bool:
        game = self.game
        if game is None or self.phase != "floor":
            return False
        incomplete = [p for p in game.players if not self._team_complete(self.teams.get(p, []))]
        if incomplete:
            self._tell(
                Update(
                    "rejected",
                    _("{player}'s team is not complete").format(player=who(incomplete[0])),
                )
            )
            self.selected = incomplete[0]
            return False
        action: dict[str, Any] = {
            "do": "floor",
            "teams": {p: list(self.teams[p]) for p in game.players},
        }
        misplays = [p for p in game.players if p in self.misplays]
        if misplays:
            action["misplays"] = misplays
        return self._commit_floor(action)

    def _commit_floor(self, action: dict[str, Any]) -> bool:
        return self._commit(action, "floor")

    def _commit(self, action: dict[str, Any], kind: Literal["floor", "trophies"]) -> bool:
        """Record a floor or a tower's trophies; the screen shows its verdict next."""
        if self.do(action) is None:
            return False
        game = self.game
        assert game is not None
        records = game.state.floors if kind == "floor" else game.state.trophies
        index = len(records) - 1
        if kind == "floor":
            self.teams = {}
            self.misplays = set()
        else:
            self.last_cards = {}
        self.selected = self._first_player()
        self.showing = (kind, index)
        self._save()
        record = records[index]
        if kind == "floor":
            message = _verdict_line(record)
        elif game.game_over:
            message = _("the fourth tower is done: scan your piles")
        else:
            gold = ", ".join(f"{who(p)} {g}" for p, g in record["gold"].items() if g) or "-"
            message = _("trophies of tower {tower}: {gold}").format(
                tower=record["tower"], gold=gold
            )
        self._tell(Update("action", message))
        return True

    # ------------------------------------------------------------------ trophies
    def _known_last(self, player: str) -> str | None:
        left = self._hand_left(player) if self.game is not None else None
        if left is None:
            return None
        cards = list(left.elements())
        return cards[0] if len(cards) == 1 else None

    def resolve_trophies(self) -> bool:
        game = self.game
        if game is None or self.phase != "trophies":
            return False
        missing = [
            p for p in game.players if p not in self.last_cards and self._known_last(p) is None
        ]
        if missing:
            self._tell(
                Update(
                    "rejected", _("{player}'s last card is missing").format(player=who(missing[0]))
                )
            )
            self.selected = missing[0]
            return False
        action = {"do": "trophies", "last": {p: c for p, c in self.last_cards.items()}}
        return self._commit_trophies(action)

    def _commit_trophies(self, action: dict[str, Any]) -> bool:
        return self._commit(action, "trophies")

    def go_on(self) -> None:
        """The verdict was read: on to the next floor, the trophies or the next tower."""
        if self.showing is None:
            return
        self.showing = None
        self._save()
        self._tell(Update("entry", self._hint()))

    # ------------------------------------------------------------------ undo
    def undo(self) -> bool:
        """Take back the card entered last; with none, the last action (and what it
        undid comes back on screen, to be corrected)."""
        if self.question is not None:
            self.cancel_question()
            return True
        game = self.game
        if game is None:
            return False
        phase = self.phase
        if phase == "floor" and self.selected and self.teams.get(self.selected):
            return self.remove_card(self.selected, len(self.teams[self.selected]) - 1)
        if phase == "floor":
            for p in reversed(game.players):
                if self.teams.get(p):
                    return self.remove_card(p, len(self.teams[p]) - 1)
        if phase == "trophies" and self.last_cards:
            player = self.selected if self.selected in self.last_cards else None
            return self.remove_card(player or list(self.last_cards)[-1], 0)
        if phase == "tower":
            for which in ("treasures", "monsters"):
                for floor in (3, 2, 1):
                    if self.slots[which][floor - 1] is not None:
                        return self.set_slot(which, floor, None)
        if phase == "over" and self.piles.get(self.selected or ""):
            assert self.selected is not None
            return self.remove_pile_card(self.selected, len(self.piles[self.selected]) - 1)
        if not game.can_undo:
            self._tell(Update("rejected", _("nothing to undo")))
            return False
        before = game.snapshot()
        if self.do({"do": "undo"}) is None:
            return False
        self.showing = None
        message = self._restore_undone(before)
        self._save()
        self._tell(Update("action", message))
        return True

    def _restore_undone(self, before: dict[str, Any]) -> str:
        """Put what the undone action recorded back into the entry; the message."""
        game = self.game
        assert game is not None
        now = game.state
        if len(now.floors) < len(before["floors"]):
            record = before["floors"][-1]
            self.teams = {p: list(c) for p, c in record["teams"].items()}
            self.misplays = set(record.get("misplays", []))
            self.selected = game.players[-1]  # the team entered last
            return _("Undo: floor {floor} of tower {tower} taken back: correct the teams").format(
                floor=record["floor"], tower=record["tower"]
            )
        if len(now.trophies) < len(before["trophies"]):
            record = before["trophies"][-1]
            self.last_cards = {p: c for p, c in record["last"].items() if isinstance(c, str)}
            self.revealed = False
            return _("Undo: the trophies of tower {tower} taken back").format(tower=record["tower"])
        if len(now.towers) < len(before["towers"]):
            record = before["towers"][-1]
            self.slots = {
                "monsters": list(record["monsters"]),
                "treasures": list(record["treasures"]),
            }
            return _("Undo: tower {tower} taken back").format(tower=record["tower"])
        return _("Undo: the elixir's choice taken back")

    # ------------------------------------------------------------------ the end
    def _taken_back(self, player: str, card: str) -> None:
        self._tell(
            Update(
                "entry",
                _("{player}: {card} taken back").format(player=who(player), card=card_words(card)),
            )
        )

    def remove_pile_card(self, player: str, index: int) -> bool:
        pile = self.piles.get(player, [])
        if not 0 <= index < len(pile):
            return False
        card = pile.pop(index)
        self._save()
        self._taken_back(player, card)
        return True

    def pile_card(self, notation: str, player: str | None = None) -> bool:
        game = self.game
        if game is None or self.phase != "over":
            return False
        try:
            card = self._tower_card(notation)
        except TschakError:
            self._tell(
                Update(
                    "ignored",
                    _("{card}: heroes score nothing at the end").format(card=card_words(notation)),
                )
            )
            return False
        target = player or self.selected or self._first_player()
        if target is None:
            return False
        self.piles.setdefault(target, []).append(card.notation)
        self.selected = target
        self._save()
        self._tell(
            Update(
                "entry", _("{player}: {card}").format(player=who(target), card=tower_words(card))
            )
        )
        return True

    def reveal(self) -> None:
        """The piles are checked (or the table skips it): the winner and the breakdown."""
        self._show_result(True)

    def show_piles(self) -> None:
        self._show_result(False)

    def _show_result(self, revealed: bool) -> None:
        """Once the game is over: the scores (True) or the piles' check (False)."""
        if self.phase != "over":
            return
        self.revealed = revealed
        self._save()
        self._tell(Update("entry"))

    def choose_elixir(self, player: str, discard: str | None) -> bool:
        """The elixir's owner keeps every monster (None) or discards one (T-E6)."""
        if self.do({"do": "elixir", "player": player, "discard": discard}) is None:
            return False
        self._save()
        what = card_words(discard) if discard else _("no monster")
        self._tell(
            Update(
                "action",
                _("{player}: the elixir discards {card}").format(player=who(player), card=what),
            )
        )
        return True

    def toggle_scores(self) -> None:
        """Running totals on screen or not (collected cards are hidden information)."""
        self.scores_visible = not self.scores_visible
        self._save()
        self._tell(
            Update(
                "entry",
                _("running totals shown") if self.scores_visible else _("running totals hidden"),
            )
        )

    # ------------------------------------------------------------------ scans
    def scan(self, uid: str) -> None:
        """A tag was scanned while a Tschak! game (or its set-up) is on the table."""
        component = self.registry.lookup(uid) if self.registry is not None else None
        if component is None:
            self._tell(Update("unknown_tag", _("unknown tag {uid}").format(uid=uid), uid=uid))
            return
        if component.kind == "badge":
            self._tell(
                Update("ignored", _("a player badge: players are seated on the new-game screen"))
            )
            return
        if component.edition != EDITION:
            self._tell(
                Update(
                    "rejected",
                    _("{component} is not in this game's box").format(
                        component=component.localized()
                    ),
                )
            )
            return
        self.scan_card(component.name)

    def scan_card(self, card_id: str) -> bool:
        """A card of the box, by its catalog id (a tag's name) or notation."""
        game = self.game
        if game is None:
            self._tell(
                Update(
                    "ignored",
                    _("{card}: no Tschak! game is running").format(
                        card=card_words(self._notation_of(card_id))
                    ),
                )
            )
            return False
        notation = self._notation_of(card_id)
        phase = self.phase
        if phase in ("verdict", "trophy_verdict"):
            self.showing = None  # the next entry begins: the verdict was read
            phase = self.phase
        is_tower = _is_tower(notation)
        if phase == "over":
            if is_tower:
                return self.pile_card(notation)
            self._tell(
                Update(
                    "ignored",
                    _("{card}: heroes score nothing at the end").format(card=card_words(notation)),
                )
            )
            return False
        if phase == "tower":
            if not is_tower:
                self._tell(Update("rejected", self._not_now(notation)))
                return False
            return self._place_tower_card(self._tower_card(notation))
        if is_tower:
            self._tell(Update("rejected", self._not_now(notation)))
            return False
        return self.add_card(notation)

    def _notation_of(self, card_id: str) -> str:
        game = self.game
        catalog = game.catalog if game is not None else self.check.catalog()
        row = catalog.by_id.get(card_id.lower())
        return row.card.notation if row is not None else card_id

    def _not_now(self, notation: str) -> str:
        phase = self.phase
        if phase == "tower":
            return _("{card}: first set out the tower's monsters and treasures").format(
                card=card_words(notation)
            )
        if _is_tower(notation):
            return _("{card} is a tower card: it is never in a team").format(
                card=card_words(notation)
            )
        return _("{card}: not now").format(card=card_words(notation))

    # ------------------------------------------------------------------ the catalog check
    def check_view(self) -> CheckView:
        check = self.check
        card = self.check_draft or check.card()
        if isinstance(card, Hero):
            number: Any = "?" if card.value is None else card.value
            weapon = card.weapon
        else:
            number = card.skulls or card.gold
            weapon = ""
        group = _group_of(check.card())
        instruction = {
            MAGE: _("Take a mage (blue) you have not checked yet. Set what it shows."),
            WARRIOR: _("Take a warrior (green) you have not checked yet. Set what it shows."),
            DWARF: _("Take a dwarf (red) you have not checked yet. Set what it shows."),
            ARTIFACT: _("Take an artifact (lilac): it shows no number. Is it one?"),
            "monster": _("Take a monster you have not checked yet. Set its skulls."),
            "treasure": _("Take a treasure you have not checked yet. Set what it shows."),
        }[group]
        if not isinstance(card, Hero) and card.kind in (TROGLODYTE, RING, ELIXIR, WAR_TROPHY):
            instruction = _("Take a {card} from the box: it has no number. Is it one?").format(
                card=tower_words(card)
            )
        message = check.problem or self.check_message
        if not message and self.table is not None:
            message = _("Corrections count from the next game on.")
        return CheckView(
            title=_("Check the cards"),
            progress=_("card {n} of {total} · {done} checked").format(
                n=check.position + 1, total=check.total, done=check.confirmed_count
            ),
            instruction=instruction,
            message=message,
            card=card_view(card.notation),
            checked=check.confirmed() and self.check_draft is None,
            numbers=tuple((label, v, v == number) for label, v in check.numbers(card)),
            weapons=tuple((label, w, w == weapon) for label, w in check.weapons(card)),
            position=check.position,
            total=check.total,
            confirmed=check.confirmed_count,
        )

    def check_number(self, value: Any) -> None:
        self.check_draft = _with_number(self.check_draft or self.check.card(), value)
        self._tell(Update("setup"))

    def check_weapon(self, weapon: str) -> None:
        card = self.check_draft or self.check.card()
        if isinstance(card, Hero) and card.value is not None and weapon in WEAPONS[card.colour]:
            self.check_draft = Hero(card.colour, card.value, weapon)
        self._tell(Update("setup"))

    def check_right(self) -> None:
        """The card on screen is what the table holds: confirmed (and saved); next card."""
        check = self.check
        card_id = check.current_id
        try:
            check.answer(self.check_draft)
        except (ValueError, TschakError, OSError) as e:
            self.check_message = refusal(e) if isinstance(e, TschakError) else str(e)
            self._tell(Update("rejected", self.check_message))
            return
        self.check_draft = None
        shown = card_words(check.card(card_id).notation)
        self.check_message = _("checked: {card}").format(card=shown)
        self._tell(Update("setup", self.check_message))

    def check_move(self, delta: int) -> None:
        self.check_draft = None
        self.check_message = ""
        self.check.go(self.check.position + delta)
        self._tell(Update("setup"))

    def check_scan(self, uid: str) -> None:
        """A tag scanned during the check: an unknown tag is enrolled for the card on
        screen; a Tschak! card's tag brings its card on screen."""
        registry = self.registry
        component = registry.lookup(uid) if registry is not None else None
        check = self.check
        if component is None and registry is not None:
            from companion.store.tags import Component, TagError

            target = Component("card", EDITION, check.current_id)
            try:
                registry.bind(uid, target)
            except TagError as e:
                self.check_message = e.localized()
            else:
                self.check_message = _("tag {uid} enrolled: {card}").format(
                    uid=uid, card=card_words(check.card().notation)
                )
        elif component is not None and component.edition == EDITION:
            check.go_to(component.name)
            self.check_draft = None
            self.check_message = _("this tag is {card}").format(
                card=card_words(check.card().notation)
            )
        elif component is not None:
            self.check_message = _("this tag is {component}: re-bind it on the Tags screen").format(
                component=component.localized()
            )
        self._tell(Update("setup", self.check_message))

    # ------------------------------------------------------------------ tags
    def drawer_faces(self) -> list[str]:
        """Every face of the box (the simulated reader's drawer; an unknown tag's
        binding): heroes, then the tower cards."""
        game = self.game
        catalog = game.catalog if game is not None else self.check.catalog()
        heroes = sorted(catalog.hero_counts, key=_hero_order)
        tower = sorted(catalog.tower_counts, key=_tower_order)
        return [*heroes, *tower]

    def bind_tag(self, uid: str, notation: str) -> str:
        """Bind an unknown tag to a card showing this face (the first card of the
        catalog with it that has no tag yet); the message to show."""
        if self.registry is None:
            return ""
        from companion.store.tags import Component, TagError

        game = self.game
        catalog = game.catalog if game is not None else self.check.catalog()
        tagged = {b.component.name for b in self.registry.bindings(EDITION)}
        rows = [r for r in catalog.rows if r.card.notation == notation]
        if not rows:
            return _("{card}: not in the box").format(card=card_words(notation))
        row = next((r for r in rows if r.id not in tagged), rows[0])
        try:
            self.registry.bind(uid, Component("card", EDITION, row.id))
        except TagError as e:
            return e.localized()
        message = _("{uid} is now {card}").format(uid=uid, card=card_words(notation))
        self._tell(Update("entry", message))
        return message

    # ------------------------------------------------------------------ the view
    def view(self) -> TschakView:
        phase = self.phase
        if phase == "none":
            return TschakView(phase, last=self.last)
        if phase == "setup":
            assert self.pending is not None
            return TschakView(
                phase,
                title=_("Tschak! · set-up"),
                setup=self._setup_view(),
                last=self.last,
                players=tuple(self.pending["players"]),
            )
        game = self.game
        assert game is not None
        s = game.state
        floor = s.floors_done + 1 if s.phase == "floor" else 0
        common: dict[str, Any] = {
            "game": self.game_id,
            "tower": s.tower if s.phase != "tower" else s.tower + 1,
            "floor": floor,
            "last": self.last,
            "can_undo": game.can_undo or self._entered(),
            "scores_visible": self.scores_visible,
            "players": game.players,
            "totals": self._totals(),
        }
        question = None
        if self.question is not None:
            tied = tuple(
                (p, who(p)) for p in self.question["tied"] if p not in self.question["order"]
            )
            question = QuestionView(self._question_text(), tied)
        if phase == "verdict":
            assert self.showing is not None
            verdict = self._floor_verdict(self.showing[1])
            return TschakView(
                phase,
                title=verdict.title,
                verdict=verdict,
                floors=self._floors(),
                hint=self._hint(),
                **common,
            )
        if phase == "trophy_verdict":
            assert self.showing is not None
            trophies = self._trophy_verdict(self.showing[1])
            return TschakView(
                phase, title=trophies.title, trophies=trophies, hint=self._hint(), **common
            )
        if phase == "over":
            return TschakView(
                phase,
                title=_("Tschak! · the end"),
                final=self._final(),
                hint=self._hint(),
                **common,
            )
        if phase == "tower":
            return TschakView(
                phase,
                title=_("Tower {tower} of 4 · set out the floors").format(tower=s.tower + 1),
                floors=self._floors(),
                hint=self._hint(),
                can_resolve=None not in self.slots["monsters"] + self.slots["treasures"],
                **common,
            )
        teams = self._team_views()
        if phase == "floor":
            title = _("Tower {tower} · floor {floor} of 3 · reveal {reveal}").format(
                tower=s.tower, floor=floor, reveal=REVEALS[floor]
            )
            ready = all(t.state == "complete" for t in teams)
        else:
            title = _("Tower {tower} · trophies: the last cards").format(tower=s.tower)
            ready = all(t.cards or t.known for t in teams)
        return TschakView(
            phase,
            title=title,
            teams=teams,
            floors=self._floors(),
            hint=self._hint(),
            can_resolve=ready and question is None,
            question=question,
            **common,
        )

    def _entered(self) -> bool:
        return bool(
            any(self.teams.values())
            or self.last_cards
            or any(self.slots["monsters"])
            or any(self.slots["treasures"])
            or any(self.piles.values())
        )

    def _hint(self) -> str:
        phase = self.phase
        game = self.game
        if phase == "tower":
            return _("Scan or tap each floor's monster and treasure.")
        if phase == "floor":
            target = who(self.selected) if self.selected else ""
            return _("Lay each team on the reader card by card, or tap. Next: {player}").format(
                player=target
            )
        if phase == "trophies":
            return _("Scan or tap each player's last card.")
        if phase == "verdict":
            return _("Take the cards; then the next floor.")
        if phase == "trophy_verdict":
            return _("Take the gold; pass your 10 cards to the left.")
        if phase == "over" and game is not None:
            return _("Each player scans their two piles.")
        return ""

    def _setup_view(self) -> SetupView:
        assert self.pending is not None
        players = tuple(self.pending["players"])
        settings = self.pending_settings()
        check = self.check
        if check.confirmed_count == check.total:
            text = _("Card catalog: all {n} cards checked against yours").format(n=check.total)
        else:
            text = _(
                "Card catalog: {done} of {n} cards checked. The others are a guess (the "
                "rulebook prints no values): check them once."
            ).format(done=check.confirmed_count, n=check.total)
        return SetupView(
            players=tuple(who(p) for p in players),
            seating=seating_text(players),
            settings=setting_views(settings),
            fixed=fixed_lines(),
            catalog_text=text,
            catalog_problem=check.problem,
            trophies=trophies_text(len(players), settings),
        )

    def _floors(self) -> tuple[FloorSlotView, ...]:
        game = self.game
        assert game is not None
        s = game.state
        if s.phase == "tower":
            return tuple(
                FloorSlotView(
                    i + 1,
                    card_view(m) if (m := self.slots["monsters"][i]) else None,
                    card_view(t) if (t := self.slots["treasures"][i]) else None,
                    current=False,
                    done=False,
                )
                for i in range(3)
            )
        tower = s.towers[-1]
        current = s.floors_done + 1 if s.phase == "floor" else 0
        return tuple(
            FloorSlotView(
                i + 1,
                card_view(tower["monsters"][i]),
                card_view(tower["treasures"][i]),
                current=i + 1 == current,
                done=i + 1 <= s.floors_done,
            )
            for i in range(3)
        )

    def _colour(self, player: str) -> str:
        game = self.game
        if player in SEAT_COLOURS:
            return player
        players = list(game.players) if game is not None else [player]
        index = players.index(player) if player in players else 0
        return SEAT_COLOURS[index % len(SEAT_COLOURS)]

    def _totals(self) -> str:
        game = self.game
        if not self.scores_visible or game is None or game.game_over:
            return ""
        scores = game.scores()
        shown = " · ".join(f"{who(p)} {_signed(scores[p].total)}" for p in game.players)
        return _("Running totals (VP): {scores}").format(scores=shown)

    def _running(self, player: str) -> str:
        game = self.game
        if not self.scores_visible or game is None:
            return ""
        score = game.scores()[player].total
        return ngettext("{n} VP so far", "{n} VP so far", score).format(n=score)

    def _team_views(self) -> tuple[TeamView, ...]:
        game = self.game
        assert game is not None
        out = []
        for p in game.players:
            if self.phase == "trophies":
                entered = [self.last_cards[p]] if p in self.last_cards else []
                known = self._known_last(p)
                state = "complete" if entered or known else "empty"
                out.append(
                    TeamView(
                        player=p,
                        label=who(p),
                        colour=self._colour(p),
                        cards=tuple(card_view(c) for c in entered),
                        slots=1,
                        state=state,
                        problem="",
                        misplay=False,
                        selected=p == self.selected,
                        known=card_view(known) if known and not entered else None,
                        score=self._running(p),
                    )
                )
                continue
            team = self.teams.get(p, [])
            colours = [self._hero(c).colour for c in team]
            doubles = sorted({c for c in colours if colours.count(c) > 1})
            problem = ""
            if doubles:
                state = "illegal"
                problem = _("two {colour} cards: swap one").format(
                    colour=tp(COLOUR_WORDS[doubles[0]])
                )
            elif self._team_complete(team):
                state = "complete"
            elif team:
                state = "partial"
            else:
                state = "empty"
            out.append(
                TeamView(
                    player=p,
                    label=who(p),
                    colour=self._colour(p),
                    cards=tuple(card_view(c) for c in team),
                    slots=self.team_slots(),
                    state=state,
                    problem=problem,
                    misplay=p in self.misplays,
                    selected=p == self.selected,
                    score=self._running(p),
                )
            )
        return tuple(out)

    # ------------------------------------------------------------------ verdicts
    def _floor_verdict(self, index: int) -> FloorVerdictView:
        game = self.game
        assert game is not None
        record = game.state.floors[index]
        results = self._results(index)
        treasure_to = record["treasure"]["to"]
        monster_to = record["monster"]["to"]
        misplays = set(record.get("misplays", []))
        teams = []
        for p in game.players:
            takes = "treasure" if p == treasure_to else "monster" if p == monster_to else ""
            if takes == "treasure":
                text = _("takes {card}").format(card=card_words(record["treasure"]["card"]))
            elif takes == "monster":
                text = _("takes {card}").format(card=card_words(record["monster"]["card"]))
            else:
                text = _("takes nothing")
            teams.append(
                VerdictTeamView(
                    player=p,
                    label=who(p),
                    colour=self._colour(p),
                    strength=record["strength"][p],
                    cards=tuple(card_view(c) for c in record["teams"][p]),
                    takes=takes,
                    takes_text=text,
                    detail=_breakdown(results[p]),
                    misplay=p in misplays,
                )
            )
        reasons = self._floor_reasons(record, results)
        return FloorVerdictView(
            tower=record["tower"],
            floor=record["floor"],
            title=_("Tower {tower} · floor {floor}: the verdict").format(
                tower=record["tower"], floor=record["floor"]
            ),
            monster=card_view(record["monster"]["card"]),
            treasure=card_view(record["treasure"]["card"]),
            teams=tuple(teams),
            reasons=reasons,
        )

    def _results(self, index: int) -> dict[str, TeamResult]:
        """The teams of a recorded floor evaluated again (pure and deterministic): what
        each member counted, the chameleon's copy, the artifact's double."""
        game = self.game
        assert game is not None
        floors = game.state.floors
        record = floors[index]
        earlier: dict[str, list[MageSeen]] = {p: [] for p in game.players}
        for other in floors[:index]:
            if other["tower"] != record["tower"]:
                continue
            for p in game.players:
                seen = numbered_mage([game.catalog.hero(c) for c in other["teams"][p]])
                if seen is not None:
                    earlier[p].append(seen)
        teams = {p: [game.catalog.hero(c) for c in record["teams"][p]] for p in game.players}
        return evaluate_teams(teams, game.settings, earlier)

    def _floor_reasons(
        self, record: dict[str, Any], results: Mapping[str, TeamResult]
    ) -> tuple[str, ...]:
        game = self.game
        assert game is not None
        settings = game.settings
        lines = []
        misplays = [p for p in game.players if p in record.get("misplays", [])]
        treasure_to = record["treasure"]["to"]
        monster_to = record["monster"]["to"]
        treasure = record["treasure"]["card"]
        monster = record["monster"]["card"]
        penalised = set()
        for p in misplays:
            if monster_to == p:
                lines.append(
                    _("{player} misplayed and takes the monster as a penalty").format(player=who(p))
                )
                penalised.add("monster")
            elif treasure_to == p and parse_tower_card(treasure).kind == CURSED:
                lines.append(
                    _("{player} misplayed and takes the cursed chest as a penalty").format(
                        player=who(p)
                    )
                )
                penalised.add("treasure")
            else:
                lines.append(_("{player} misplayed (no penalty card left)").format(player=who(p)))
        others = (
            [p for p in game.players if p not in misplays]
            if settings.misplay_other_card == "others"
            else list(game.players)
        )
        for role, player, card in (
            ("strongest", treasure_to, treasure),
            ("weakest", monster_to, monster),
        ):
            if (role == "strongest" and "treasure" in penalised) or (
                role == "weakest" and "monster" in penalised
            ):
                continue
            if player is None:
                lines.append(_("nobody takes {card}").format(card=card_words(card)))
                continue
            n = results[player].strength
            tied = [q for q in others if q != player and results[q].strength == n]
            if not tied:
                if role == "strongest":
                    line = _("{player} is the strongest with {n}: {card}")
                else:
                    line = _("{player} is the weakest with {n}: {card}")
                lines.append(line.format(player=who(player), n=n, card=card_words(card)))
                continue
            why = []
            for q in tied:
                diff = compare(results[player], results[q], settings)
                if diff is None:
                    why.append(
                        _("the table decided")
                        if settings.unresolved_tie == "ask"
                        else _("the earlier seat wins")
                    )
                else:
                    why.append(_step_words(diff, results, settings))
            names = " = ".join(f"{who(x)} {n}" for x in [player, *tied])
            line = _("{tie}: {reason}; {player} takes {card}")
            lines.append(
                line.format(
                    tie=names,
                    reason="; ".join(dict.fromkeys(why)),
                    player=who(player),
                    card=card_words(card),
                )
            )
        return tuple(lines)

    def _trophy_verdict(self, index: int) -> TrophyVerdictView:
        game = self.game
        assert game is not None
        record = game.state.trophies[index]
        settings = game.settings
        last = {p: (game.catalog.hero(c) if c else None) for p, c in record["last"].items()}
        results = {p: single_card(p, c, settings) for p, c in last.items()}
        gold = record["gold"]
        order = sorted(
            game.players, key=lambda p: (-gold[p], -results[p].strength, game.players.index(p))
        )
        rows = []
        reasons = []
        for p in order:
            card = last[p]
            note = ""
            if card is None or card.zero_card:
                note = (
                    _("Chameleon: no trophy")
                    if card is not None and card.chameleon
                    else _("artifact: no trophy")
                    if card is not None
                    else _("no card: no trophy")
                )
            elif gold[p] == 0:
                note = _("weakest: no trophy")
            rows.append(
                TrophyRowView(
                    player=p,
                    label=who(p),
                    colour=self._colour(p),
                    card=card_view(card.notation) if card else None,
                    gold=gold[p],
                    note=note,
                )
            )
        ranked = [p for p in order if last[p] is not None and not last[p].zero_card]  # type: ignore[union-attr]
        for a, b in zip(ranked, ranked[1:], strict=False):
            if results[a].strength != results[b].strength or gold[a] == gold[b]:
                continue
            ca, cb = last[a], last[b]
            assert ca is not None and cb is not None
            if ca.colour != cb.colour:
                reasons.append(
                    _(
                        "{a} and {b} both {n}: a {winner} beats a {loser} (mage, warrior, dwarf)"
                    ).format(
                        a=who(a),
                        b=who(b),
                        n=results[a].strength,
                        winner=tp(COLOUR_WORDS[ca.colour]),
                        loser=tp(COLOUR_WORDS[cb.colour]),
                    )
                )
            elif compare(results[a], results[b], settings) is not None:
                reasons.append(
                    _("{a} and {b} both {n}: {winner} beats {loser}").format(
                        a=who(a),
                        b=who(b),
                        n=results[a].strength,
                        winner=hero_words(ca),
                        loser=hero_words(cb),
                    )
                )
            else:
                reasons.append(
                    _("{a} and {b} tie: the table decided").format(a=who(a), b=who(b))
                    if settings.unresolved_tie == "ask"
                    else _("{a} and {b} tie: the earlier seat wins").format(a=who(a), b=who(b))
                )
        last_tower = record["tower"] >= 4
        passing = "" if last_tower else _passing_text(game)
        return TrophyVerdictView(
            tower=record["tower"],
            title=_("Tower {tower} · the trophies").format(tower=record["tower"]),
            rows=tuple(rows),
            reasons=tuple(reasons),
            passing=passing,
            last_tower=last_tower,
        )

    def _final(self) -> FinalView:
        game = self.game
        assert game is not None
        snap = game.snapshot()
        ranking = snap["ranking"] or []
        winners = tuple(snap["winners"] or [])
        scores = game.scores()
        best = scores[winners[0]].total if winners else 0
        if len(winners) == 1:
            winner_text = _("{player} wins with {n} VP").format(player=who(winners[0]), n=best)
        else:
            winner_text = _("{players} share the win with {n} VP").format(
                players=", ".join(who(w) for w in winners), n=best
            )
        tie_note = ""
        level = [r["player"] for r in ranking if r["score"] == best]
        if len(level) > len(winners):
            tie_note = _("Equal VP: fewer monsters wins")
        elif len(winners) > 1:
            tie_note = _("Equal VP and equal monsters: a shared win")
        rows = (
            _("Gold"),
            _("Chests"),
            _("Cursed chests"),
            _("Rings") + " (n → n²)",
            _("War trophy"),
            _("Monsters"),
            _("Troglodytes") + " (n → −n²)",
            _("Elixir"),
            _("Total"),
        )
        columns = []
        for r in ranking:
            p = r["player"]
            sc = scores[p]
            parts = sc.parts
            counts = sc.counts
            elixir = ""
            choices: list[tuple[str, str | None]] = []
            if sc.elixir is not None:
                discard = sc.elixir["discard"]
                elixir = card_words(discard) if discard else _("unused")
                if sc.elixir["by"] == "best":
                    elixir = _("{choice} (best)").format(choice=elixir)
                for option in sc.options:
                    label = card_words(option["discard"]) if option["discard"] else _("unused")
                    choices.append(
                        (
                            _("{choice}: {n} VP").format(choice=label, n=option["score"]),
                            option["discard"],
                        )
                    )
            cells = (
                str(parts["gold"]),
                _signed(parts["chests"]),
                _signed(parts["cursed_chests"]),
                f"{counts['rings']} → {parts['rings']}" if counts["rings"] else "0",
                _signed(parts["war_trophy"]),
                _signed(parts["monsters"]),
                f"{counts['troglodytes']} → {_signed(parts['troglodytes'])}"
                if counts["troglodytes"]
                else "0",
                elixir or "—",
                str(sc.total),
            )
            columns.append(
                ScoreColumnView(
                    player=p,
                    label=who(p),
                    colour=self._colour(p),
                    place=r["place"],
                    total=sc.total,
                    cells=cells,
                    elixir=elixir,
                    elixir_choices=tuple(choices),
                )
            )
        return FinalView(
            winners=winners,
            winner_text=winner_text,
            tie_note=tie_note,
            rows=rows,
            columns=tuple(columns),
            piles=self._piles(snap),
            revealed=self.revealed,
        )

    def _piles(self, snap: dict[str, Any]) -> tuple[PileView, ...]:
        game = self.game
        assert game is not None
        out = []
        for p in game.players:
            held = Counter([*snap["players"][p]["monsters"], *snap["players"][p]["treasures"]])
            scanned = self.piles.get(p, [])
            have = Counter(scanned)
            missing = held - have
            extra = have - held
            if extra:
                status = "mismatch"
                text = _("not in the game's record: {cards}").format(
                    cards=", ".join(card_words(c) for c in sorted(extra.elements()))
                )
            elif not scanned and held:
                status, text = (
                    "unscanned",
                    ngettext("{n} card to scan", "{n} cards to scan", sum(held.values())).format(
                        n=sum(held.values())
                    ),
                )
            elif missing:
                status = "partial"
                text = ngettext(
                    "{n} card still to scan", "{n} cards still to scan", sum(missing.values())
                ).format(n=sum(missing.values()))
            else:
                status = "match"
                text = _("piles match the game")
            out.append(
                PileView(
                    player=p,
                    label=who(p),
                    colour=self._colour(p),
                    expected=sum(held.values()),
                    scanned=tuple(card_view(c) for c in scanned),
                    status=status,
                    status_text=text,
                    selected=p == (self.selected or game.players[0]),
                )
            )
        return tuple(out)

    # ------------------------------------------------------------------ telling
    def _tell(self, update: Update) -> None:
        if update.message and update.kind not in ("ignored",):
            self.last = update.message
        for listener in list(self.listeners):
            listener(update)


# ======================================================================= helpers
def _group_of(card: Hero | TowerCard) -> str:
    if isinstance(card, Hero):
        return card.colour
    return "monster" if card.is_monster else "treasure"


def _with_number(card: Hero | TowerCard, value: Any) -> Hero | TowerCard:
    if isinstance(card, Hero):
        if value == "?":
            return Hero(MAGE, None)
        weapon = card.weapon if card.value is not None else WEAPONS[card.colour][-1]
        return Hero(card.colour, int(value), weapon)
    if card.kind == CHEST:
        return TowerCard(CHEST, gold=int(value))
    return TowerCard(card.kind, skulls=int(value))


def _signed(n: int) -> str:
    if n > 0:
        return f"+{n}"
    if n < 0:
        return f"−{-n}"
    return "0"


def _localized(error: Exception) -> str:
    from companion.i18n import localized

    try:
        return localized(error)
    except Exception:  # noqa: BLE001 - any other exception: its text
        return str(error)


def _is_tower(notation: str) -> bool:
    try:
        parse_tower_card(notation)
    except TschakError:
        return False
    return True


_TOWER_KIND_ORDER = {
    k: i for i, k in enumerate((MONSTER, TROGLODYTE, CHEST, CURSED, RING, ELIXIR, WAR_TROPHY))
}
_COLOUR_ORDER = {MAGE: 0, WARRIOR: 1, DWARF: 2, ARTIFACT: 3}


def _tower_order(notation: str) -> tuple[int, int]:
    card = parse_tower_card(notation)
    return (_TOWER_KIND_ORDER[card.kind], card.skulls + card.gold)


def _hero_order(notation: str) -> tuple[int, int, int]:
    card = parse_hero(notation)
    return (_COLOUR_ORDER[card.colour], card.value or 0, -card.weapon_rank)


def _verdict_line(record: dict[str, Any]) -> str:
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


def _breakdown(result: TeamResult) -> str:
    """What a team counted: "Chameleon = 5 (copies Blue's mage) · artifact ×2 → dwarf 1 = 2"."""
    parts = []
    for m in result.members:
        if m.card.chameleon:
            if m.copied_from is None:
                text = _("Chameleon = 0 (no mage to copy)")
            else:
                text = _("Chameleon = {n} (copies {player})").format(
                    n=m.value, player=who(m.copied_from)
                )
            if m.doubled:
                text += " " + _("×2 = {n}").format(n=m.points)
            parts.append(text)
        elif m.doubled:
            parts.append(
                _("artifact doubles {card}: {n}").format(card=hero_words(m.card), n=m.points)
            )
    return " · ".join(parts)


def _member_words(member: Any, colour: str, settings: Settings, *, weapon: bool) -> str:
    if member is None:
        return {
            MAGE: _("no mage"),
            WARRIOR: _("no warrior"),
            DWARF: _("no dwarf"),
        }[colour]
    if member.card.chameleon:
        return tp("Chameleon")
    if weapon:
        return hero_words(member.card)
    value = member.points if settings.tie_values == "effective" else member.value
    return f"{tp(COLOUR_WORDS[colour])} {value}"


def _step_words(diff: dict[str, Any], results: Mapping[str, TeamResult], settings: Settings) -> str:
    step = diff["step"]
    colour = step.split("_")[0]
    winner = results[diff["winner"]].member(colour)
    loser = results[diff["loser"]].member(colour)
    weapon = step.endswith("_weapon")
    return _("{winner} ({winner_card}) beats {loser} ({loser_card})").format(
        winner=who(diff["winner"]),
        winner_card=_member_words(winner, colour, settings, weapon=weapon),
        loser=who(diff["loser"]),
        loser_card=_member_words(loser, colour, settings, weapon=weapon),
    )


def _passing_text(game: TschakGame) -> str:
    """Who passes the hand to whom (T-R8): every seat to the next, boards included."""
    seats = list(game.seats)
    names = []
    board = 0
    for s in seats:
        if s is None:
            board += 1
            names.append(_("board {n}").format(n=board))
        else:
            names.append(who(s))
    moves = [f"{names[i]} → {names[(i + 1) % len(names)]}" for i in range(len(names))]
    return _("Pass your 10 cards to the left: {moves}").format(moves=", ".join(moves))


def default_catalog_path(database: Path) -> Path:
    """Where the table's catalog corrections live: its own catalog folder
    (``CLANK_CATALOG_DIR``, as for the Clank! catalogs), else beside the game database."""
    folder = os.environ.get("CLANK_CATALOG_DIR")
    return (Path(folder) if folder else Path(database).parent) / CATALOG_FILE
