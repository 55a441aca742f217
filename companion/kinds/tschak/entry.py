"""Entering the cards of the next Tschak! action, tap by tap or scan by scan: a tower's
monsters and treasures into the floors' slots, each player's team (a card goes to the
player chosen on screen, or to the only player whose tracked hand holds it), the
trophies' last cards, the piles scanned at the end; then the action itself (``tower``,
``floor``, ``trophies``, ``elixir``), and the tie the rules cannot break asked of the
table. A refusal leaves everything as it was and says why."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any, Literal

from companion.i18n import _
from companion.kinds.tschak.progress import Progress
from companion.kinds.tschak.rules import Hero, TowerCard, TschakError
from companion.kinds.tschak.rules.cards import DWARF, MAGE, WARRIOR, parse_tower_card
from companion.kinds.tschak.views import Update
from companion.kinds.tschak.words import (
    COLOUR_WORDS,
    card_words,
    hero_order,
    hero_words,
    is_tower_card,
    refusal,
    tower_order,
    tower_words,
    tp,
    verdict_line,
    who,
)


class Entry(Progress):
    """What the table enters before each action, and the action."""

    # ------------------------------------------------------------------ the tie
    def answer_tie(self, player: str) -> bool:
        """One tap per tied player, strongest first; the action goes on once only one
        is left."""
        q = self.question
        if q is None or player not in q["tied"] or player in q["order"]:
            return False
        q["order"].append(player)
        left = [p for p in q["tied"] if p not in q["order"]]
        if len(left) > 1:
            self._tell(Update("entry", self.question_text()))
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
        for notation in sorted(counts, key=tower_order):
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
        """How many cards a team takes (4 when the artifact is a fourth card)."""
        game = self.game
        return 3 if game is None or game.settings.artifact_takes_slot else 4

    def team_complete(self, cards: Sequence[str]) -> bool:
        """Whether these cards are a whole team: one hero of each colour."""
        colours = [self.hero(c).colour for c in cards]
        if len(set(colours)) != len(colours):
            return False
        if self.team_slots() == 3:
            return len(cards) == 3
        return {MAGE, WARRIOR, DWARF} <= set(colours)

    def hero(self, notation: str) -> Hero:
        """A hero card as this game's catalog has it."""
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
        faces = set(left.elements()) if left is not None else set(game.catalog.hero_counts)
        if self.phase == "floor":  # only what the hands can still hold (tower 1 too)
            team = self.teams.get(player, [])
            faces = {
                f for f in faces if game.hand_refusal({**self.teams, player: [*team, f]}) is None
            }
        return sorted(faces, key=hero_order)

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
            card = self.hero(notation)
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
        if len(team) >= self.team_slots() or (team and self.team_complete(team)):
            self._tell(
                Update(
                    "rejected",
                    _("{player}'s team is complete: tap a card to take it back").format(
                        player=who(target)
                    ),
                )
            )
            return False
        refused = game.hand_refusal({**self.teams, target: [*team, card.notation]})
        if refused is not None:  # said now, naming the player: not at Resolve
            problem = refusal(refused)
            self._tell(
                Update(
                    "rejected", _("{player}: {problem}").format(player=who(target), problem=problem)
                )
            )
            return False
        colours = [self.hero(c).colour for c in team]
        team.append(card.notation)
        message = _("{player}: {card}").format(player=who(target), card=hero_words(card))
        if card.colour in colours:
            self.misplays.add(target)  # T-X1: the table saw it; it may take it back
            # (the line under the teams: short enough for one line of the table's size)
            message = _("{player}: two {colour} cards! Swap one; a penalty").format(
                player=who(target), colour=tp(COLOUR_WORDS[card.colour])
            )
        if self.team_complete(team):
            self.selected = self._next_open(target)
        else:
            self.selected = target
        self._save()
        self._tell(Update("entry", message))
        return True

    def _not_now(self, notation: str) -> str:
        phase = self.phase
        if phase == "tower":
            return _("{card}: first set out the tower's monsters and treasures").format(
                card=card_words(notation)
            )
        if is_tower_card(notation):
            return _("{card} is a tower card: it is never in a team").format(
                card=card_words(notation)
            )
        return _("{card}: not now").format(card=card_words(notation))

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
                if p not in self.last_cards and self.known_last(p) is None:
                    return p
            elif not self.team_complete(self.teams.get(p, [])):
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
        incomplete = [p for p in game.players if not self.team_complete(self.teams.get(p, []))]
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
            message = verdict_line(record)
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
    def known_last(self, player: str) -> str | None:
        """The last card a tracked hand leaves (None: not known)."""
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
            p for p in game.players if p not in self.last_cards and self.known_last(p) is None
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
