"""A game of Tschak!: actions in, events and the table script's JSON out.

Pure and deterministic: no I/O, no clock, no randomness. Every accepted action is kept on
an undo stack with the state before it; a refused action raises TschakError and changes
nothing. The actions are those of TABLE_SCRIPT.md ("Tschak!"):

    {"do": "tower", "monsters": [3 cards], "treasures": [3 cards]}     floor 1 first
    {"do": "floor", "teams": {player: [3 cards]}, "misplays": [...], "tiebreak": [...]}
    {"do": "trophies", "last": {player: card}, "tiebreak": [...]}
    {"do": "elixir", "player": P, "discard": monster card or null}
    {"do": "undo"}

Seats: the players in the order given, clockwise; with three players one "On the way"
board takes the fourth seat, with two players the boards sit between them (P1, board 1,
P2, board 2). After each tower every seat passes its hand to the left, the next seat.

Why one module of over 600 lines: it is the one state machine of a Tschak! game; each
action's handler keeps the invariants of the state the others rely on (the towers, the
floors, the hands passed on, undo). Strength and ties are in ``resolve``, the scores in
``scoring``, the cards in ``cards``.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from companion.kinds.tschak.rules.cards import (
    ARTIFACT,
    DWARF,
    ELIXIR,
    HERO_CLASSES,
    MAGE,
    TROGLODYTE,
    WARRIOR,
    Catalog,
    Hero,
    TowerCard,
    load_catalog,
    parse_tower_card,
)
from companion.kinds.tschak.rules.errors import TschakError
from companion.kinds.tschak.rules.resolve import (
    MageSeen,
    numbered_mage,
    resolve_floor,
    resolve_trophies,
)
from companion.kinds.tschak.rules.scoring import BEST, Score, elixir_options, rank, score_player
from companion.kinds.tschak.rules.settings import Settings
from companion.msg import N_

__all__ = ["TschakError", "TschakGame", "EDITION", "TOWERS", "FLOORS", "SEATS"]

EDITION = "tschak"
TOWERS = 4
FLOORS = 3
SEATS = 4
HAND = {MAGE: 3, WARRIOR: 3, DWARF: 3, ARTIFACT: 1}  # every hand, every tower (T-S4)
MAX_NAME = 40

Event = dict[str, Any]


@dataclass
class _State:
    tower: int = 0  # towers begun
    floors_done: int = 0  # in the current tower
    phase: str = "tower"  # what comes next: "tower", "floor", "trophies" or "over"
    towers: list[dict[str, Any]] = field(default_factory=list)
    floors: list[dict[str, Any]] = field(default_factory=list)
    trophies: list[dict[str, Any]] = field(default_factory=list)
    gold: dict[str, int] = field(default_factory=dict)
    monsters: dict[str, list[str]] = field(default_factory=dict)
    treasures: dict[str, list[str]] = field(default_factory=dict)
    elixir: dict[str, str | None] = field(default_factory=dict)  # explicit choices only
    hands: list[Counter[str] | None] = field(default_factory=list)  # per seat, this tower
    played: list[Counter[str]] = field(default_factory=list)  # per seat, this tower
    mages: dict[str, list[MageSeen]] = field(default_factory=dict)  # this tower's floors
    tower_cards_used: Counter[str] = field(default_factory=Counter)


def seating(players: Sequence[str]) -> list[str | None]:
    """The four seats, clockwise: player names, None for an "On the way" board (T-P2..4)."""
    if len(players) == 4:
        return list(players)
    if len(players) == 3:
        return [*players, None]
    return [players[0], None, players[1], None]


class TschakGame:
    """One game of Tschak! for 2-4 players."""

    edition = EDITION

    def __init__(
        self,
        players: Sequence[str],
        settings: Settings | Mapping[str, Any] | None = None,
        catalog: Catalog | Mapping[str, Any] | None = None,
    ) -> None:
        self.players: tuple[str, ...] = _check_players(players)
        self.settings = settings if isinstance(settings, Settings) else Settings.from_dict(settings)
        self.catalog = catalog if isinstance(catalog, Catalog) else load_catalog(catalog)
        self.seats: tuple[str | None, ...] = tuple(seating(self.players))
        self.state = _State()
        for p in self.players:
            self.state.gold[p] = 0
            self.state.monsters[p] = []
            self.state.treasures[p] = []
        self.state.hands = [None] * SEATS
        self.state.played = [Counter() for _ in range(SEATS)]
        self._history: list[tuple[str, _State]] = []

    @classmethod
    def from_options(cls, options: Any) -> TschakGame:
        """A game from a table script's ``new`` object: ``edition`` ("tschak"),
        ``players``, optional ``settings`` and ``catalog`` (corrections by card id)."""
        if not isinstance(options, Mapping):
            raise TschakError("bad_options", N_('"new" is an object'))
        unknown = sorted(set(options) - {"edition", "players", "settings", "catalog"})
        if unknown:
            raise TschakError(
                "unknown_option",
                N_("unknown option {key!r} (Tschak! takes edition, players, settings, catalog)"),
                key=unknown[0],
            )
        if options.get("edition", EDITION) != EDITION:
            raise TschakError("bad_options", N_('the edition is "tschak"'))
        if "players" not in options:
            raise TschakError("bad_players", N_('"players" is missing'))
        return cls(options["players"], options.get("settings"), options.get("catalog"))

    # ------------------------------------------------------------------ driving
    @property
    def game_over(self) -> bool:
        return self.state.phase == "over"

    def apply(self, action: Any) -> list[Event]:
        """Apply one action; its events, or TschakError with the game unchanged."""
        name = action.get("do") if isinstance(action, Mapping) else None
        try:
            if not isinstance(action, Mapping):
                raise TschakError("bad_action", N_('an action is an object with "do"'))
            if name == "undo":
                _fields(action, set(), set())
                return self._undo()
            handler = getattr(self, f"_do_{name}", None) if isinstance(name, str) else None
            if handler is None:
                raise TschakError(
                    "unknown_action",
                    N_("unknown action {name!r} (tower, floor, trophies, elixir, undo)"),
                    name=str(name),
                )
            before = self.state
            self.state = copy.deepcopy(before)
            try:
                events = handler(action)
            except BaseException:
                self.state = before
                raise
            self._history.append((str(name), before))  # a handler was found: a str
            return events
        except TschakError as e:
            e.during = name if isinstance(name, str) else None
            raise

    def _undo(self) -> list[Event]:
        if not self._history:
            raise TschakError("nothing_to_undo", N_("nothing to undo"))
        name, before = self._history.pop()
        self.state = before
        return [{"event": "undo", "action": name}]

    @property
    def can_undo(self) -> bool:
        return bool(self._history)

    def mark(self) -> tuple[Any, ...]:
        """Where the game stands now, for ``rollback`` (an action its caller could not
        keep, such as one the game log failed to record). Actions never change a state
        in place, so this is cheap."""
        return (self.state, tuple(self._history))

    def rollback(self, mark: tuple[Any, ...]) -> None:
        self.state, self._history = mark[0], list(mark[1])

    @property
    def last_action(self) -> str | None:
        """The action an ``undo`` would take back (None: nothing to undo)."""
        return self._history[-1][0] if self._history else None

    # ------------------------------------------------------------------ checks
    def _player(self, name: Any) -> str:
        if not isinstance(name, str) or name not in self.players:
            raise TschakError(
                "not_seated",
                N_("{name!r} is not seated (players: {players})"),
                name=name if isinstance(name, str) else repr(name),
                players=", ".join(self.players),
            )
        return name

    def _phase(self, want: str) -> None:
        s = self.state
        if s.phase == want:
            return
        if s.phase == "over":
            raise TschakError("game_over", N_("the game is over"))
        if s.phase == "tower":
            if want == "floor":
                raise TschakError(
                    "no_tower",
                    N_("tower {tower} is not set out: a floor needs its tower's cards first"),
                    tower=s.tower + 1,
                )
            raise TschakError("no_tower", N_("tower {tower} is not set out yet"), tower=s.tower + 1)
        if s.phase == "floor":
            if want == "tower":
                raise TschakError(
                    "tower_not_done",
                    N_("tower {tower} still has floor {floor} to play"),
                    tower=s.tower,
                    floor=s.floors_done + 1,
                )
            raise TschakError(
                "floors_not_done",
                N_("the trophies come after floor 3: tower {tower} has floor {floor} to play"),
                tower=s.tower,
                floor=s.floors_done + 1,
            )
        raise TschakError("trophies_due", N_("tower {tower}'s trophies come first"), tower=s.tower)

    def _tiebreak(self, action: Mapping[str, Any]) -> list[str] | None:
        raw = action.get("tiebreak")
        if raw is None:
            return None
        if not isinstance(raw, list):
            raise TschakError("bad_action", N_('"tiebreak" is a list of players, strongest first'))
        names = [self._player(p) for p in raw]
        if len(set(names)) != len(names):
            raise TschakError("bad_action", N_('"tiebreak" names a player twice'))
        return names

    def _hero(self, text: Any) -> Hero:
        card = self.catalog.hero(text)
        if self.settings.check_cards and card.notation not in self.catalog.hero_counts:
            raise TschakError(
                "not_in_catalog",
                N_("there is no {card} in the catalog (correct the catalog if the card says so)"),
                card=card.notation,
            )
        return card

    def _team(self, player: str, raw: Any) -> list[Hero]:
        """A legal team (T-L1, T-L2): three different backgrounds; with the artifact as a
        fourth card (A2 alternative), a mage, a warrior and a dwarf, plus the artifact."""
        if not isinstance(raw, list):
            raise TschakError("bad_team", N_("{player}'s team is a list of cards"), player=player)
        cards = [self._hero(c) for c in raw]
        colours = [c.colour for c in cards]
        slot = self.settings.artifact_takes_slot
        most = 3 if slot else 4
        if not 3 <= len(cards) <= most:
            raise TschakError(
                "incomplete_team" if len(cards) < 3 else "team_size",
                N_("{player}'s team has {n} card(s): a team is three cards of three backgrounds")
                if slot
                else N_(
                    "{player}'s team has {n} card(s): a team is a mage, a warrior and a dwarf, "
                    "and the artifact if it is played"
                ),
                player=player,
                n=len(cards),
            )
        doubles = sorted({c for c in colours if colours.count(c) > 1})
        if doubles:
            raise TschakError(
                "illegal_team",
                N_(
                    "{player}'s team has two {colour} cards: the three backgrounds must differ "
                    '(a misplay: swap the card and name the player in "misplays")'
                ),
                player=player,
                colour=doubles[0],
                cards=[c.notation for c in cards],
            )
        if not slot and sorted(c for c in colours if c != ARTIFACT) != sorted(HERO_CLASSES):
            raise TschakError(
                "illegal_team",
                N_(
                    "{player}'s team needs a mage, a warrior and a dwarf (the artifact is a "
                    "fourth card)"
                ),
                player=player,
                cards=[c.notation for c in cards],
            )
        return cards

    def _seat(self, player: str) -> int:
        return self.seats.index(player)

    def _check_hands(self, new: Mapping[str, Sequence[Hero]], *, complete: bool) -> None:
        """Cards against the hands (check_cards): a known hand holds them; an unknown one
        holds 3 mages, 3 warriors, 3 dwarves and 1 artifact, from the cards no known hand
        holds. ``complete``: these are the last cards, the hand must be used up."""
        s = self.state
        tentative = [Counter(c) for c in s.played]
        for player, cards in new.items():
            tentative[self._seat(player)].update(c.notation for c in cards)
        known_total: Counter[str] = Counter()
        for hand in s.hands:
            if hand is not None:
                known_total.update(hand)
        pool = self.catalog.hero_counts - known_total
        unknown_use: Counter[str] = Counter()
        for player in new:
            seat = self._seat(player)
            hand = s.hands[seat]
            used = tentative[seat]
            if hand is not None:
                over = used - hand
                if over:
                    card = sorted(over)[0]
                    raise TschakError(
                        "not_in_hand",
                        N_("{card} is not in {player}'s hand in tower {tower}"),
                        card=card,
                        player=player,
                        tower=s.tower,
                        hand=sorted(hand.elements()),
                    )
                if complete and hand - used:
                    raise TschakError(
                        "hand_not_used",
                        N_("{player} still holds {cards}: the last card is the one left in hand"),
                        player=player,
                        cards=", ".join(sorted((hand - used).elements())),
                    )
                continue
            colours = Counter(self.catalog.hero(n).colour for n in used.elements())
            for colour, most in HAND.items():
                if colours[colour] > most or (complete and colours[colour] != most):
                    raise TschakError(
                        "hand_colours",
                        N_(
                            "{player}'s hand in tower {tower} holds {most} {colour} card(s): "
                            "this would make {n}"
                        ),
                        player=player,
                        tower=s.tower,
                        most=most,
                        colour=colour,
                        n=colours[colour],
                    )
        for seat, hand in enumerate(s.hands):
            if hand is None:
                unknown_use.update(tentative[seat])
        over = unknown_use - pool
        if over:
            card = sorted(over)[0]
            raise TschakError(
                "no_copies_left",
                N_(
                    "{card}: the box has {copies} and they are all out or in other hands "
                    "in tower {tower}"
                ),
                card=card,
                copies=self.catalog.hero_counts[card],
                tower=s.tower,
            )

    # ------------------------------------------------------------------ actions
    def _do_tower(self, a: Mapping[str, Any]) -> list[Event]:
        _fields(a, {"monsters", "treasures"}, set())
        self._phase("tower")
        s = self.state
        monsters = self._tower_cards(a["monsters"], "monsters")
        treasures = self._tower_cards(a["treasures"], "treasures")
        for card in monsters:
            if not card.is_monster:
                raise TschakError(
                    "not_a_monster", N_("{card} is a treasure, not a monster"), card=card.notation
                )
        for card in treasures:
            if not card.is_treasure:
                raise TschakError(
                    "not_a_treasure", N_("{card} is a monster, not a treasure"), card=card.notation
                )
        if self.settings.check_cards:
            used = s.tower_cards_used + Counter(c.notation for c in monsters + treasures)
            for name, n in sorted(used.items()):
                have = self.catalog.tower_counts.get(name, 0)
                if have == 0:
                    raise TschakError(
                        "not_in_catalog",
                        N_(
                            "there is no {card} in the catalog (correct the catalog if the card "
                            "says so)"
                        ),
                        card=name,
                    )
                if n > have:
                    raise TschakError(
                        "no_copies_left",
                        N_(
                            "{card}: the box has {copies}, "
                            "this would be card number {n} in the game"
                        ),
                        card=name,
                        copies=have,
                        n=n,
                    )
            s.tower_cards_used = used
        s.tower += 1
        s.floors_done = 0
        s.phase = "floor"
        s.played = [Counter() for _ in range(SEATS)]
        s.mages = {p: [] for p in self.players}
        record = {
            "tower": s.tower,
            "monsters": [c.notation for c in monsters],
            "treasures": [c.notation for c in treasures],
        }
        s.towers.append(record)
        floors = [
            {"floor": i + 1, "monster": m.notation, "treasure": t.notation}
            for i, (m, t) in enumerate(zip(monsters, treasures, strict=True))
        ]
        return [{"event": "tower", "tower": s.tower, "floors": floors}]

    def _tower_cards(self, raw: Any, what: str) -> list[TowerCard]:
        if not isinstance(raw, list) or len(raw) != FLOORS:
            raise TschakError(
                "bad_tower", N_('"{what}" lists three cards, floor 1 first'), what=what
            )
        return [self.catalog.tower_card(c) for c in raw]

    def _do_floor(self, a: Mapping[str, Any]) -> list[Event]:
        _fields(a, {"teams"}, {"misplays", "tiebreak"})
        self._phase("floor")
        s = self.state
        raw = a["teams"]
        if not isinstance(raw, Mapping):
            raise TschakError("bad_action", N_('"teams" is an object of player: [cards]'))
        for name in raw:
            self._player(name)
        missing = [p for p in self.players if p not in raw]
        if missing:
            raise TschakError(
                "team_missing", N_("{player} has no team on this floor"), player=missing[0]
            )
        teams = {p: self._team(p, raw[p]) for p in self.players}
        misplays_raw = a.get("misplays", [])
        if not isinstance(misplays_raw, list):
            raise TschakError("bad_action", N_('"misplays" is a list of players'))
        misplays = [self._player(p) for p in misplays_raw]
        tiebreak = self._tiebreak(a)
        if self.settings.check_cards:
            self._check_hands(teams, complete=False)
        floor = s.floors_done + 1
        tower = s.towers[-1]
        monster = parse_tower_card(tower["monsters"][floor - 1])
        treasure = parse_tower_card(tower["treasures"][floor - 1])
        troglodytes = {p: sum(1 for c in s.monsters[p] if c == TROGLODYTE) for p in self.players}
        outcome = resolve_floor(
            teams,
            monster=monster,
            treasure=treasure,
            settings=self.settings,
            earlier_mages=s.mages,
            misplays=misplays,
            tiebreak=tiebreak,
            troglodytes_held=troglodytes,
        )
        if outcome.treasure_to is not None:
            s.treasures[outcome.treasure_to].append(treasure.notation)
        if outcome.monster_to is not None:
            s.monsters[outcome.monster_to].append(monster.notation)
        for p, team in teams.items():
            s.played[self._seat(p)].update(c.notation for c in team)
            seen = numbered_mage(team)
            if seen is not None:
                s.mages[p].append(seen)
        record: dict[str, Any] = {
            "tower": s.tower,
            "floor": floor,
            "strength": {p: outcome.results[p].strength for p in self.players},
            "treasure": {"card": treasure.notation, "to": outcome.treasure_to},
            "monster": {"card": monster.notation, "to": outcome.monster_to},
            "why": outcome.why,
            "teams": {p: [c.notation for c in teams[p]] for p in self.players},
        }
        if misplays:
            record["misplays"] = [p for p in self.players if p in misplays]
        s.floors.append(record)
        s.floors_done = floor
        if floor == FLOORS:
            s.phase = "trophies"
        event = {
            "event": "floor",
            **copy.deepcopy(record),
            "detail": {p: outcome.results[p].detail() for p in self.players},
            "order": list(outcome.order),
            "explain": outcome.explain,
        }
        return [event]

    def _do_trophies(self, a: Mapping[str, Any]) -> list[Event]:
        _fields(a, set(), {"last", "tiebreak"})
        self._phase("trophies")
        s = self.state
        raw = a.get("last", {})
        if not isinstance(raw, Mapping):
            raise TschakError("bad_action", N_('"last" is an object of player: card'))
        for name in raw:
            self._player(name)
        last: dict[str, Hero | None] = {}
        for p in self.players:
            if p in raw:
                card = raw[p]
                if card is None:
                    if self.settings.artifact_takes_slot:
                        raise TschakError(
                            "last_missing",
                            N_("{player} has one card left after floor 3"),
                            player=p,
                        )
                    last[p] = None
                else:
                    last[p] = self._hero(card)
            else:
                last[p] = self._known_last(p)
        tiebreak = self._tiebreak(a)
        if self.settings.check_cards:
            self._check_hands({p: [c] if c else [] for p, c in last.items()}, complete=True)
        outcome = resolve_trophies(last, settings=self.settings, tiebreak=tiebreak)
        for p, g in outcome.gold.items():
            s.gold[p] += g
        for p, card in last.items():
            if card is not None:
                s.played[self._seat(p)][card.notation] += 1
        record = {
            "tower": s.tower,
            "last": {p: None if c is None else c.notation for p, c in last.items()},
            "gold": dict(outcome.gold),
            "why": outcome.why,
        }
        s.trophies.append(record)
        events: list[Event] = [
            {
                "event": "trophies",
                **copy.deepcopy(record),
                "order": outcome.order,
                "explain": outcome.explain,
            }
        ]
        if s.tower < TOWERS:
            s.hands = self._next_hands()
            s.played = [Counter() for _ in range(SEATS)]
            s.phase = "tower"
            moves = [{"from": i + 1, "to": (i + 1) % SEATS + 1} for i in range(SEATS)]
            events.append({"event": "pass", "tower": s.tower, "moves": moves})
        else:
            s.phase = "over"
            ranking, winners = self.ranking()
            events.append({"event": "game_over", "ranking": ranking, "winners": winners})
        return events

    def _known_last(self, player: str) -> Hero | None:
        """The last card of a player not named in ``last``: what is left of a known hand."""
        s = self.state
        seat = self._seat(player)
        hand = s.hands[seat] if self.settings.check_cards else None
        if hand is not None:
            left = list((hand - s.played[seat]).elements())
            if len(left) == 1:
                return self.catalog.hero(left[0])
            if not left and not self.settings.artifact_takes_slot:
                return None
        if not self.settings.artifact_takes_slot and sum(s.played[seat].values()) == 10:
            return None
        raise TschakError("last_missing", N_("{player}'s last card is missing"), player=player)

    def _next_hands(self) -> list[Counter[str] | None]:
        """The hands of the next tower: every seat's hand passes to the left (T-R8).
        A player's hand is known once played; a board's when it was known before, or
        when it is the only one unknown (the box minus every other hand)."""
        if not self.settings.check_cards:
            return [None] * SEATS
        s = self.state
        full: list[Counter[str] | None] = []
        for seat, name in enumerate(self.seats):
            full.append(Counter(s.played[seat]) if name is not None else s.hands[seat])
        unknown = [i for i, h in enumerate(full) if h is None]
        if len(unknown) == 1:
            rest: Counter[str] = Counter()
            for h in full:
                if h is not None:
                    rest.update(h)
            left = self.catalog.hero_counts - rest
            if sum(left.values()) == sum(HAND.values()):
                full[unknown[0]] = left
        return [full[(i - 1) % SEATS] for i in range(SEATS)]

    def _do_elixir(self, a: Mapping[str, Any]) -> list[Event]:
        _fields(a, {"player", "discard"}, set())
        s = self.state
        p = self._player(a["player"])
        if ELIXIR not in s.treasures[p]:
            raise TschakError("no_elixir", N_("{player} does not hold the elixir"), player=p)
        raw = a["discard"]
        held = [parse_tower_card(c) for c in s.monsters[p]]
        if raw is None:
            may = [c for c in held if c.kind != TROGLODYTE or self.settings.elixir_troglodyte]
            if not self.settings.elixir_optional and may:
                raise TschakError(
                    "elixir_required",
                    N_("the elixir must discard a monster (setting elixir_optional is false)"),
                )
            choice: str | None = None
        else:
            card = self.catalog.tower_card(raw)
            if card not in held:
                raise TschakError(
                    "not_held",
                    N_("{player} holds no {card} (monsters: {held})")
                    if held
                    else N_("{player} holds no {card}: no monster at all"),
                    player=p,
                    card=card.notation,
                    held=", ".join(s.monsters[p]),
                )
            if card.kind == TROGLODYTE and not self.settings.elixir_troglodyte:
                raise TschakError(
                    "elixir_troglodyte",
                    N_("the elixir may not discard a troglodyte (setting elixir_troglodyte)"),
                )
            choice = card.notation
        s.elixir[p] = choice
        event: Event = {"event": "elixir", "player": p, "discard": choice}
        if s.phase == "over":
            ranking, winners = self.ranking()
            event.update(ranking=ranking, winners=winners)
        return [event]

    # ------------------------------------------------------------------ reading
    def scores(self) -> dict[str, Score]:
        """Every player's score as things stand (final once the game is over)."""
        s = self.state
        out = {}
        for p in self.players:
            monsters = [parse_tower_card(c) for c in s.monsters[p]]
            treasures = [parse_tower_card(c) for c in s.treasures[p]]
            discard: TowerCard | None | str = BEST
            if p in s.elixir:
                choice = s.elixir[p]
                discard = None if choice is None else parse_tower_card(choice)
                if discard not in elixir_options(monsters, self.settings):
                    # a "keep them all" taken when nothing could go (A14: the elixir
                    # not optional) does not hold once a monster that may go is held
                    discard = BEST
            out[p] = score_player(
                s.gold[p],
                monsters,
                treasures,
                players=len(self.players),
                settings=self.settings,
                discard=discard,
            )
        return out

    def ranking(self) -> tuple[list[dict[str, Any]], list[str]]:
        return rank(self.scores(), self.players, self.settings)

    def next_action(self) -> str | None:
        """What the game expects: "tower", "floor", "trophies", or None when it is over."""
        return None if self.state.phase == "over" else self.state.phase

    def hand_refusal(self, teams: Mapping[str, Sequence[str]]) -> TschakError | None:
        """Whether these cards, entered for the floor being laid, could come from the
        players' hands (with the cards checked): the refusal if not, None if they could
        (or nothing is checked). What a team may take next is what keeps this None."""
        if not self.settings.check_cards or self.state.phase != "floor":
            return None
        try:
            heroes = {self._player(p): [self.catalog.hero(n) for n in c] for p, c in teams.items()}
            self._check_hands(heroes, complete=False)
        except TschakError as e:
            return e
        return None

    def known_hand(self, player: str) -> list[str] | None:
        """The cards ``player`` still holds in this tower, when the game knows them
        (tracked through the passing of hands); None when it does not. Hidden
        information: for the player's own eyes, never the shared screen."""
        seat = self._seat(self._player(player))
        hand = self.state.hands[seat]
        if hand is None:
            return None
        return sorted((hand - self.state.played[seat]).elements())

    def snapshot(self) -> dict[str, Any]:
        """The state as TABLE_SCRIPT.md's ``--json`` output for Tschak! describes it
        (plus ``next``, ``seats``, ``towers``, ``trophies`` and ``settings``)."""
        s = self.state
        over = s.phase == "over"
        scores = self.scores() if over else None
        players = {}
        for p in self.players:
            players[p] = {
                "gold": s.gold[p],
                "monsters": list(s.monsters[p]),
                "treasures": list(s.treasures[p]),
                "score": scores[p].total if scores else None,
                "score_detail": scores[p].as_dict() if scores else {},
            }
        ranking, winners = self.ranking() if over else (None, None)
        seats: list[dict[str, Any]] = []
        board = 0
        for i, name in enumerate(self.seats):
            if name is None:
                board += 1
                seats.append({"seat": i + 1, "player": None, "board": board})
            else:
                seats.append({"seat": i + 1, "player": name, "board": None})
        return {
            "edition": EDITION,
            "game_over": over,
            "tower": s.tower,
            "floor": s.floors_done + 1 if s.phase == "floor" else None,
            "floors": copy.deepcopy(s.floors),
            "players": players,
            "ranking": ranking,
            "winners": winners,
            "errors": [],
            "next": self.next_action(),
            "seats": seats,
            "towers": copy.deepcopy(s.towers),
            "trophies": copy.deepcopy(s.trophies),
            "settings": self.settings.as_dict(),
        }


def _fields(action: Mapping[str, Any], required: set[str], optional: set[str]) -> None:
    keys = set(action) - {"do"}
    for key in sorted(required - keys):
        raise TschakError("bad_action", N_("{key!r} is missing"), key=key)
    for key in sorted(keys - required - optional):
        raise TschakError("unknown_field", N_("unknown field {key!r}"), key=key)


def _check_players(players: Any) -> tuple[str, ...]:
    if not isinstance(players, list | tuple) or not 2 <= len(players) <= 4:
        raise TschakError("bad_players", N_("Tschak! is for 2 to 4 players"))
    for p in players:
        if (
            not isinstance(p, str)
            or not p
            or len(p) > MAX_NAME
            or p != p.strip()
            or not p.isprintable()
        ):
            raise TschakError(
                "bad_players",
                N_("a player is a name of 1 to {most} printable characters, not {name}"),
                most=MAX_NAME,
                name=repr(p),
            )
    if len(set(players)) != len(players):
        raise TschakError("bad_players", N_("two players have the same name"))
    return tuple(players)
