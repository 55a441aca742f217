"""The game: actions in, state and events out. Pure: no I/O, no clock, no randomness.

When the rules need cubes drawn from the dragon bag they build a DrawRequest and hand
it to the ``chance`` function they were given (the fair draw, or a test's choice);
they never pick cubes themselves. Every accepted action is pushed on an undo stack
with the state before it; a rejected action raises RuleError and changes nothing.

Why one module of over 600 lines: it is the one state machine of a game of Clank!; each
action's handler keeps the invariants of the state the others rely on (the bag and the
Clank! area, the rage, the countdown, undo). The set-up, the state, the odds and the
scores are modules of their own.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NoReturn

from companion.kinds.clank.catalog import Card, Catalog, Token
from companion.kinds.clank.rules.actions import check_action
from companion.kinds.clank.rules.errors import RuleError
from companion.kinds.clank.rules.setup import Setup, initial_state, prisoner_box
from companion.kinds.clank.rules.state import ESCAPED, KNOCKED_OUT, Countdown, Player, State
from companion.msg import EN_, N_, NN_, Name

if TYPE_CHECKING:
    from companion.kinds.clank.rules.scoring import Score


@dataclass(frozen=True)
class DrawRequest:
    """'Draw `count` cubes from this bag': what the rules ask of the chance source."""

    nonce: int
    client_seed: str
    reason: str  # "attack", "countdown" or "out_draw"
    bag: dict[str, int]
    seats: tuple[str, ...]
    count: int


Chance = Callable[[DrawRequest], Sequence[str]]

# The countdown track's spaces (Clank!): 2, 3 and 4 bring an attack with 1, 2, 3 extra
# cubes; reaching the last knocks out everyone still in the dungeon and draws nothing.
COUNTDOWN_SPACES = 5


@dataclass
class DrawRecord:
    """One draw event for the audit: it stays listed after an undo."""

    nonce: int
    reason: str
    client_seed: str
    bag: dict[str, int]
    count: int
    drawn: list[str]
    action: int  # 1-based number of the action that caused it
    undone: bool = False

    def as_dict(self) -> dict[str, Any]:
        out = {
            "nonce": self.nonce,
            "reason": self.reason,
            "client_seed": self.client_seed,
            "count": self.count,
            "bag": dict(self.bag),
            "drawn": list(self.drawn),
            "action": self.action,
        }
        if self.undone:
            out["undone"] = True
        return out


@dataclass
class _Step:
    action: dict[str, Any]
    before: State | None  # None only when replayed for a check (see Game.apply)
    number: int
    draws: list[DrawRecord] = field(default_factory=list)


Event = dict[str, Any]


def _ranking(scores: dict[str, Score], state: State) -> list[dict[str, Any]]:
    """The places at the end (companion.kinds.clank.rules.scoring: loaded when a game ends)."""
    from companion.kinds.clank.rules.scoring import ranking

    return ranking(scores, state)


def _plus_one(counts: Mapping[str, int], name: str) -> dict[str, int]:
    """A new mapping with one more of ``name`` (player holdings are never changed in place)."""
    return {**counts, name: counts.get(name, 0) + 1}


@dataclass(frozen=True)
class Mark:
    """Where the game stood before an action, to take back one that could not be recorded."""

    state: State
    history_len: int
    top: _Step | None
    next_nonce: int
    draws_len: int
    actions_seen: int


class Game:
    """One game of Clank! or Clank! Catacombs."""

    def __init__(self, setup: Setup, chance: Chance) -> None:
        self.setup = setup
        self.catalog: Catalog = setup.catalog
        self.edition = self.catalog.edition
        self.chance = chance
        self.state: State = initial_state(setup)
        self.draws: list[DrawRecord] = []
        self.next_nonce = 1
        self.actions_seen = 0  # accepted actions, undo included
        self.last_action: dict[str, Any] = {}  # the last action applied, fields completed
        self._history: list[_Step] = []
        self._events: list[Event] = []
        self._step_draws: list[DrawRecord] = []

    # ------------------------------------------------------------------ driving
    def apply(self, raw: Any, *, keep_before: bool = True) -> list[Event]:
        """Apply one action; returns its events or raises RuleError (nothing changed).

        ``keep_before=False`` is for re-checking a recorded game whose later actions are
        known: the state before this action is not kept, so it cannot be undone, and a
        refused action leaves the game unusable (the check stops there anyway).
        """
        action = check_action(raw)
        self.last_action = action
        if action["do"] == "undo":
            events = self._undo()
            self.actions_seen += 1
            return events
        handler = getattr(self, "_do_" + action["do"])
        before = self.state
        nonce_before = self.next_nonce
        if keep_before:
            self.state = before.clone()
        self._events = []
        self._step_draws = []
        try:
            handler(action)
        except RuleError:
            self.state = before
            self.next_nonce = nonce_before
            raise
        self.actions_seen += 1
        step = _Step(action, before if keep_before else None, self.actions_seen, self._step_draws)
        for record in step.draws:
            record.action = self.actions_seen
        self._history.append(step)
        self.draws.extend(step.draws)
        return self._events

    def _undo(self) -> list[Event]:
        if not self._history:
            raise RuleError(N_("nothing to undo"), during="undo")
        step = self._history[-1]
        if step.before is None:
            raise RuleError(N_("this action was replayed without its earlier state"), during="undo")
        if self.state.game_over:  # the seed is out: only the decks are still scanned
            raise RuleError(N_("the game is over and the server seed is revealed"), during="undo")
        if step.action["do"] == "seed" and self.next_nonce > 1:
            raise RuleError(N_("the client seed is fixed, a draw has used it"), during="undo")
        self._history.pop()
        self.state = step.before
        for record in step.draws:
            record.undone = True
        return [{"event": "undo", "action": step.action["do"], "number": step.number}]

    def undoable_action(self) -> dict[str, Any] | None:
        """The action that an undo now would take back (None: nothing to undo)."""
        return dict(self._history[-1].action) if self._history else None

    def mark(self) -> Mark:
        top = self._history[-1] if self._history else None
        return Mark(
            self.state, len(self._history), top, self.next_nonce, len(self.draws), self.actions_seen
        )

    def rollback(self, mark: Mark) -> None:
        """Take back everything since ``mark`` as if it never happened (it was never shown).

        Unlike undo, this rewinds the nonce: the draws it removes were never recorded or
        shown to anyone, so drawing them again is the same draw, not a new one.
        """
        self.state = mark.state
        del self._history[mark.history_len :]
        if len(self._history) < mark.history_len and mark.top is not None:
            self._history.append(mark.top)  # the action taken back was an undo
            for record in mark.top.draws:
                record.undone = False
        del self.draws[mark.draws_len :]
        self.next_nonce = mark.next_nonce
        self.actions_seen = mark.actions_seen

    @property
    def can_undo(self) -> bool:
        if not self._history or self._history[-1].before is None:
            return False
        return not (self.state.game_over and not self._history[-1].before.game_over)

    # ------------------------------------------------------------------ helpers
    def _emit(self, kind: str, **fields: Any) -> None:
        self._events.append({"event": kind, **fields})

    def _running(self, what: str) -> None:
        if self.state.game_over:
            raise RuleError(N_("the game is over"), during=what)

    def _player(self, action: dict[str, Any], *, inside: bool = True) -> Player:
        name = action["player"]
        player = self.state.players.get(name)
        if player is None:
            raise RuleError(N_("unknown player {name!r}"), during=action["do"], name=name)
        if inside:
            self._running(action["do"])
            if not player.playing:
                if player.status == ESCAPED:
                    out = N_("{player} is out of the dungeon (escaped)")
                else:
                    out = N_("{player} is out of the dungeon (knocked out)")
                raise RuleError(out, during=action["do"], player=Name(name))
        return player

    def _card(self, what: str, name: str, *, dungeon: bool) -> Card:
        card = self.catalog.card(name)
        if card is None:
            raise RuleError(N_("unknown card {name!r}"), during=what, name=name)
        if dungeon and not card.in_dungeon_deck:
            raise RuleError(EN_("{card} is not a dungeon card"), during=what, card=card.name)
        return card

    def _catacombs_only(self, what: str) -> None:
        if self.edition.name != "catacombs":
            raise RuleError(N_("only in Clank! Catacombs"), during=what)

    def _nonzero(self, action: dict[str, Any], *, positive: bool = False) -> int:
        n: int = action["n"]
        if positive and n < 1:
            raise RuleError(N_("n must be at least 1"), during=action["do"])
        if n == 0:
            raise RuleError(N_("n must not be 0"), during=action["do"])
        return n

    def _token(self, what: str, kinds: tuple[str, ...], name: str) -> Token:
        for kind in kinds:
            token = self.catalog.token(kind, name)
            if token is not None:
                return token
        if "prisoner" in kinds:
            unknown = EN_("unknown prisoner {name!r}")
        elif "major_secret" in kinds:
            unknown = EN_("unknown secret {name!r}")
        elif "special" in kinds:
            unknown = EN_("unknown market item or token {name!r}")
        else:
            unknown = EN_("unknown market item {name!r}")
        raise RuleError(unknown, during=what, name=name)

    def danger(self) -> int:
        return sum(1 for name in self.state.row if self.catalog.cards[name.lower()].danger)

    def attack_size(self, extra: int = 0) -> int:
        return self.setup.rage_track[self.state.rage] + self.danger() + extra

    # --------------------------------------------------------------- mechanics
    def _add_clank(self, p: Player, n: int) -> None:
        used = min(p.credit, n)
        p.credit -= used
        moved = min(n - used, p.supply)
        p.supply -= moved
        self.state.area[p.name] += moved
        self._emit("clank", player=p.name, n=moved, cancelled=used)

    def _move_rage(self, n: int) -> None:
        last = len(self.setup.rage_track) - 1
        new = max(0, min(last, self.state.rage + n))
        if new != self.state.rage:
            self.state.rage = new
            self._emit("rage", space=new + 1, draw=self.setup.rage_track[new])

    def _heal(self, p: Player, n: int) -> int:
        """Own cubes go back to supply first, then the black markers: one taken from the
        box goes back to the box (it never joins the treasury's 24), one from the
        treasury back to the treasury."""
        own = min(n, p.meter)
        p.meter -= own
        p.supply += own
        boxed = min(n - own, p.meter_box)
        p.meter_box -= boxed
        black = min(n - own - boxed, p.meter_black)
        p.meter_black -= black
        self.state.set_aside["black"] += black
        healed = own + boxed + black
        if healed:
            self._emit("heal", player=p.name, n=healed)
        return healed

    def _hurt(self, p: Player, *, cube: str) -> None:
        """One damage: `cube` is the player's own drawn cube, 'supply' or 'ghost'."""
        if cube == "supply" or cube == "ghost":
            if p.supply > 0:
                p.supply -= 1
                p.meter += 1
            else:
                # No cube left in supply: a ghost's damage is marked with a black cube
                # from the treasury (Catacombs ru:909-911, uk:557). No rulebook covers
                # other forced damage (a monster, a card) with an empty supply; the
                # companion marks it the same way, in both editions (the base game's
                # treasury: the black cubes set aside by attacks). The damage always
                # counts: with no black cube there either, the table marks it with one
                # from the box, kept apart from the dragon's 24 (Player.meter_box).
                if self.state.set_aside["black"] > 0:
                    self.state.set_aside["black"] -= 1
                    p.meter_black += 1
                else:
                    p.meter_box += 1
        else:
            p.meter += 1
        self._emit("damage", player=p.name, health=self.setup.health - p.damage)
        if p.damage >= self.setup.health:
            self._knock_out(p)

    def _knock_out(self, p: Player) -> None:
        p.status = KNOCKED_OUT
        p.knocked_out_in_depths = p.in_depths
        self._emit("knocked_out", player=p.name, in_depths=p.in_depths)
        self._went_out(p)

    def _went_out(self, p: Player) -> None:
        if self.edition.countdown and self.state.countdown is None:
            self.state.countdown = Countdown(p.name, 1)
            self._emit("countdown", player=p.name, space=1)
        if not self.state.in_dungeon():
            self._end("nobody is left in the dungeon")

    def _end(self, reason: str) -> None:
        if self.state.game_over:
            return
        self.state.game_over = True
        self.state.end_reason = reason
        self._emit("game_over", reason=reason)

    def _knock_out_everyone_inside(self) -> None:
        for p in self.state.in_dungeon():
            p.status = KNOCKED_OUT
            p.knocked_out_in_depths = p.in_depths
            self._emit("knocked_out", player=p.name, in_depths=p.in_depths)

    def _draw(self, count: int, reason: str) -> None:
        """Pour the Clank! area into the bag, draw, and resolve the cubes in order."""
        s = self.state
        for kind, n in s.area.items():
            s.bag[kind] += n
            s.area[kind] = 0
        nonce = self.next_nonce
        self.next_nonce += 1
        bag_before = dict(s.bag)
        request = DrawRequest(nonce, s.client_seed, reason, bag_before, s.seats, count)
        drawn = list(self.chance(request))
        self._check_outcome(request, drawn)
        record = DrawRecord(nonce, reason, s.client_seed, bag_before, count, drawn, 0)
        self._step_draws.append(record)
        self._emit("draw", nonce=nonce, reason=reason, count=count, drawn=drawn)
        ghosts = 0
        for cube in drawn:
            s.bag[cube] -= 1
            if cube == "ghost":
                ghosts += 1
                for p in s.in_dungeon():
                    self._hurt(p, cube="ghost")
                continue
            owner = s.players.get(cube)
            if owner is not None and owner.playing:
                self._hurt(owner, cube=cube)
            else:
                s.set_aside[cube] += 1
        s.area["ghost"] += ghosts
        if self.edition.empty_bag_ends_game and sum(s.bag.values()) == 0 and not s.game_over:
            self._emit("bag_empty")
            self._knock_out_everyone_inside()
            self._end("the dragon bag is empty")
        elif not s.in_dungeon():
            self._end("nobody is left in the dungeon")

    @staticmethod
    def _check_outcome(request: DrawRequest, drawn: list[str]) -> None:
        want = min(max(request.count, 0), sum(request.bag.values()))
        if len(drawn) != want:
            raise RuleError(
                NN_(
                    "{n} cube drawn where {want} were asked",
                    "{n} cubes drawn where {want} were asked",
                ),
                during="draw",
                n=len(drawn),
                want=want,
            )
        left = dict(request.bag)
        for cube in drawn:
            if left.get(cube, 0) < 1:
                raise RuleError(
                    N_("a {cube} cube was drawn that is not in the bag"),
                    during="draw",
                    cube=Name(cube),
                )
            left[cube] -= 1

    def _attack(self, extra: int, reason: str) -> None:
        self._draw(self.attack_size(extra), reason)

    def _advance(self) -> None:
        """The next seat plays; out players' turns (countdown, out draws) happen on the way."""
        s = self.state
        seats = len(s.seats)
        seat = s.active
        while not s.game_over:
            seat = (seat + 1) % seats
            p = s.players[s.seats[seat]]
            if p.playing:
                s.active = seat
                s.turn += 1
                self._emit("turn", player=p.name, number=s.turn)
                return
            if self.edition.countdown:
                cd = s.countdown
                if cd is not None and cd.player == p.name:
                    cd.space += 1
                    self._emit("countdown", player=p.name, space=cd.space)
                    if cd.space >= COUNTDOWN_SPACES:
                        self._knock_out_everyone_inside()
                        self._end("the countdown reached its last space")
                    else:
                        self._attack(cd.space - 1, "countdown")
            elif self.edition.out_draw:
                two = seats == 2
                count = self.edition.out_draw_two_players if two else self.edition.out_draw
                self._draw(count, "out_draw")

    # ----------------------------------------------------------------- actions
    def _do_seed(self, a: dict[str, Any]) -> None:
        self._running("seed")  # the game is over: its seed is out, nothing to fix
        if self.next_nonce > 1:
            raise RuleError(
                N_("the client seed cannot change once a draw has happened"), during="seed"
            )
        self.state.client_seed = a["client_seed"]

    def _do_row(self, a: dict[str, Any]) -> None:
        self._running("row")
        s = self.state
        if s.opening_row_set or s.turn > 1 or s.row:
            raise RuleError(
                EN_("the opening row is laid out before the first turn, once"), during="row"
            )
        cards = [self._card("row", name, dungeon=True) for name in a["cards"]]
        if len(cards) > self.edition.row_size:
            raise RuleError(
                NN_("the dungeon row holds {n} card", "the dungeon row holds {n} cards"),
                during="row",
                n=self.edition.row_size,
            )
        for card in cards:
            if card.dragon_attack:
                raise RuleError(
                    EN_(
                        "{card} shows the dragon-attack symbol; "
                        "replace it and reshuffle it into the deck"
                    ),
                    during="row",
                    card=card.name,
                )
        s.opening_row_set = True
        self._enter_row(cards)

    def _enter_row(self, cards: list[Card]) -> None:
        s = self.state
        for card in cards:
            s.row.append(card.name)
            if card.arrive is None:
                continue
            code, n = card.arrive
            if code == "clank_each":
                for p in s.in_dungeon():
                    self._add_clank(p, n)
            elif code == "black_to_bag":
                moved = min(n, s.set_aside["black"])
                s.set_aside["black"] -= moved
                s.bag["black"] += moved
                self._emit("black_to_bag", n=moved)
            self._emit("arrive", card=card.name, text=card.arrive_text)

    def _do_clank(self, a: dict[str, Any]) -> None:
        p = self._player(a)
        n = self._nonzero(a)
        if n > 0:
            self._add_clank(p, n)
            return
        back = min(-n, self.state.area[p.name])
        self.state.area[p.name] -= back
        p.supply += back
        p.credit += -n - back
        self._emit("clank", player=p.name, n=-back, credit=p.credit)

    def _do_end_turn(self, a: dict[str, Any]) -> None:
        self._running("end_turn")
        s = self.state
        cards = [self._card("end_turn", name, dungeon=True) for name in a["revealed"]]
        if len(s.row) + len(cards) > self.edition.row_size:
            raise RuleError(
                EN_("the row would hold {n} cards (at most {most}); record the cards taken first"),
                during="end_turn",
                n=len(s.row) + len(cards),
                most=self.edition.row_size,
            )
        for p in s.players.values():
            p.credit = 0
        self._enter_row(cards)
        if any(card.dragon_attack for card in cards) and not s.game_over:
            self._attack(0, "attack")
        self._advance()

    def _do_take(self, a: dict[str, Any]) -> None:
        self._running("take")
        card = self._card("take", a["card"], dungeon=True)
        if card.name not in self.state.row:
            raise RuleError(EN_("{card} is not in the dungeon row"), during="take", card=card.name)
        self.state.row.remove(card.name)

    def _do_attack(self, a: dict[str, Any]) -> None:
        self._running("attack")
        self._attack(0, "attack")

    def _do_deck_out(self, a: dict[str, Any]) -> None:
        self._running("deck_out")
        self._catacombs_only("deck_out")
        self._knock_out_everyone_inside()
        self._end("the dungeon deck cannot refill the row")

    def _do_removed(self, a: dict[str, Any]) -> None:
        """An artifact the table removed unseen at set-up (base game: 2 with two players,
        1 with three, ru:111-115, es:43-46), recorded one at a time: nobody may take it.
        The table knows which once the others lie on their spaces."""
        self._running("removed")
        s = self.state
        value = a["artifact"]
        players = len(s.seats)
        wanted = self.setup.artifacts_to_remove()
        if wanted == 0:
            raise RuleError(
                N_("with {players} players no artifact is removed at set-up"),
                during="removed",
                players=players,
            )
        if len(s.removed) >= wanted:
            raise RuleError(
                NN_(
                    "with {players} players the table removes {n} artifact, and it is recorded",
                    "with {players} players the table removes {n} artifacts, and they are recorded",
                ),
                during="removed",
                players=players,
                n=wanted,
            )
        if value not in s.artifacts_left:
            self._refuse_artifact("removed", value)
        left = list(s.artifacts_left)
        left.remove(value)
        s.artifacts_left = tuple(left)
        s.removed = (*s.removed, value)
        self._emit("removed", artifact=value)

    def _do_rage(self, a: dict[str, Any]) -> None:
        self._running("rage")
        self._move_rage(self._nonzero(a))

    def _do_artifact(self, a: dict[str, Any]) -> None:
        p = self._player(a)
        value = a["value"]
        if value not in self.state.artifacts_left:
            self._refuse_artifact("artifact", value)
        room = 1 + p.tokens.get("backpack", 0)
        if len(p.artifacts) >= room:
            raise RuleError(
                NN_(
                    "{player} already carries {n} artifact (room for {room})",
                    "{player} already carries {n} artifacts (room for {room})",
                ),
                during="artifact",
                player=Name(p.name),
                n=len(p.artifacts),
                room=room,
            )
        left = list(self.state.artifacts_left)
        left.remove(value)
        self.state.artifacts_left = tuple(left)
        p.artifacts = (*p.artifacts, value)
        self._emit("artifact", player=p.name, value=value)
        self._move_rage(1)

    def _refuse_artifact(self, what: str, value: int) -> NoReturn:
        """No artifact worth ``value`` is left: why."""
        pile = self.setup.artifact_pile()
        removed = self.state.removed
        if value in removed and removed.count(value) == pile.count(value):
            raise RuleError(
                N_("the artifact worth {value} was removed at set-up"), during=what, value=value
            )
        if value not in pile and self._party_only(value):
            raise RuleError(
                N_("the artifact worth {value} comes with the Adventuring Party (5-6 players)"),
                during=what,
                value=value,
            )
        raise RuleError(N_("no artifact worth {value} is left"), during=what, value=value)

    def _apply_effects(self, p: Player, token: Token, *, on_reveal: bool) -> None:
        """A token's immediate effects. A revealed secret's healing waits for its use."""
        for code, arg in token.effects:
            if on_reveal and code == "heal":
                continue
            if code == "rage":
                self._move_rage(int(arg))
            elif code == "ghost":
                for _ in range(int(arg)):
                    if self.state.ghost_treasury > 0:
                        self.state.ghost_treasury -= 1
                        self.state.area["ghost"] += 1
            elif code == "heal":
                self._heal(p, int(arg))
            elif code == "coupon":
                p.coupons += 1
        if token.gold:
            p.gold += token.gold

    def _do_secret(self, a: dict[str, Any]) -> None:
        p = self._player(a)
        token = self._token("secret", ("major_secret", "minor_secret"), a["name"])
        p.secrets = _plus_one(p.secrets, token.name)
        self._emit("secret", player=p.name, name=token.name)
        self._apply_effects(p, token, on_reveal=True)

    def _party_only(self, value: int) -> bool:
        """An artifact value that only the Adventuring Party adds, in a game without it."""
        if self.setup.party or self.setup.artifacts is not None:
            return False
        return any(
            t.party and t.name.split()[0] == str(value) for t in self.catalog.tokens_of("artifact")
        )

    def _gain_token(self, what: str, p: Player, name: str, *, market_only: bool) -> Token:
        kinds = ("market",) if market_only else ("market", "special")
        token = self._token(what, kinds, name)
        if token.party and not self.setup.party:
            raise RuleError(
                N_("{item} comes with the Adventuring Party (5-6 players)"),
                during=what,
                item=token.name,
            )
        if token.name == "mastery token":
            raise RuleError(N_("the mastery token comes with escaping"), during=what)
        if token.effect("crowns") is not None:
            if not self.state.crowns_left:
                raise RuleError(N_("no crown is left"), during=what)
        elif self.state.stock.get(token.name, 0) < 1:
            raise RuleError(N_("no {item} is left"), during=what, item=token.name)
        return token

    def _take_token(self, p: Player, token: Token) -> None:
        if token.effect("crowns") is not None:
            value, *rest = self.state.crowns_left
            self.state.crowns_left = tuple(rest)
            p.crowns = (*p.crowns, value)
            self._emit("token", player=p.name, name=token.name, value=value)
            return
        self.state.stock = {**self.state.stock, token.name: self.state.stock[token.name] - 1}
        p.tokens = _plus_one(p.tokens, token.name)
        self._emit("token", player=p.name, name=token.name)

    def _do_token(self, a: dict[str, Any]) -> None:
        p = self._player(a)
        self._take_token(p, self._gain_token("token", p, a["name"], market_only=False))

    def _do_buy(self, a: dict[str, Any]) -> None:
        p = self._player(a)
        token = self._gain_token("buy", p, a["item"], market_only=True)
        price = token.cost if token.cost is not None else 7
        if a["coupon"]:
            if p.coupons < 1:
                raise RuleError(
                    N_("{player} has no discount coupon"), during="buy", player=Name(p.name)
                )
            price = max(0, price - self.coupon_value())
        if p.gold < price:
            raise RuleError(
                EN_("{item} costs {price} gold; {player} has {gold}"),
                during="buy",
                item=token.name,
                price=price,
                player=Name(p.name),
                gold=p.gold,
            )
        if a["coupon"]:
            p.coupons -= 1
        p.gold -= price
        self._take_token(p, token)

    def coupon_value(self) -> int:
        """The gold a discount coupon takes off one market purchase (Catacombs: 5,
        ru:83-89; 0 in an edition without it)."""
        for t in self.catalog.tokens_of("prisoner"):
            value = t.effect("coupon")
            if value is not None:
                return int(value)
        return 0

    def _do_gold(self, a: dict[str, Any]) -> None:
        p = self._player(a)
        n = self._nonzero(a)
        if p.gold + n < 0:
            raise RuleError(
                EN_("{player} has only {gold} gold"),
                during="gold",
                player=Name(p.name),
                gold=p.gold,
            )
        p.gold += n

    def _do_damage(self, a: dict[str, Any]) -> None:
        p = self._player(a)
        n = self._nonzero(a, positive=True)
        if a["voluntary"]:
            if p.supply < n:
                raise RuleError(
                    NN_(
                        "{player} has {n} cube in supply, not {wanted}",
                        "{player} has {n} cubes in supply, not {wanted}",
                    ),
                    during="damage",
                    player=Name(p.name),
                    n=p.supply,
                    wanted=n,
                )
            if p.damage + n >= self.setup.health:
                raise RuleError(
                    EN_("{player} may not choose damage that fills the meter"),
                    during="damage",
                    player=Name(p.name),
                )
        for _ in range(n):
            if not p.playing:
                break
            self._hurt(p, cube="supply")

    def _do_heal(self, a: dict[str, Any]) -> None:
        p = self._player(a)
        self._heal(p, self._nonzero(a, positive=True))

    def _do_depths(self, a: dict[str, Any]) -> None:
        p = self._player(a)
        if p.in_depths == a["in"]:
            if p.in_depths:
                already = EN_("{player} is already in the Depths")
            else:
                already = EN_("{player} is already out of the Depths")
            raise RuleError(already, during="depths", player=Name(p.name))
        p.in_depths = a["in"]

    def _do_escape(self, a: dict[str, Any]) -> None:
        p = self._player(a)
        if not p.artifacts:
            raise RuleError(
                N_("{player} carries no artifact"), during="escape", player=Name(p.name)
            )
        if p.in_depths:
            raise RuleError(
                EN_("{player} is still in the Depths (record leaving them first)"),
                during="escape",
                player=Name(p.name),
            )
        p.status = ESCAPED
        p.tokens = _plus_one(p.tokens, "mastery token")
        self._emit("escaped", player=p.name)
        self._went_out(p)

    def _do_ghost(self, a: dict[str, Any]) -> None:
        self._running("ghost")
        self._catacombs_only("ghost")
        if self.state.ghost_treasury < 1:
            raise RuleError(EN_("no ghost cube is left in the treasury"), during="ghost")
        self.state.ghost_treasury -= 1
        self.state.area["ghost"] += 1

    def _do_shrine(self, a: dict[str, Any]) -> None:
        self._catacombs_only("shrine")
        p = self._player(a)
        if p.supply < 1:
            raise RuleError(
                N_("{player} has no cube in supply"), during="shrine", player=Name(p.name)
            )
        p.supply -= 1
        p.shrines += 1
        p.gold += p.shrines
        self._emit("shrine", player=p.name, shrines=p.shrines, gold=p.shrines)

    def _do_prisoner(self, a: dict[str, Any]) -> None:
        self._catacombs_only("prisoner")
        p = self._player(a)
        token = self._token("prisoner", ("prisoner",), a["name"])
        self._check_prisoner_left(token)
        p.prisoners = (*p.prisoners, token.name)
        self._emit("prisoner", player=p.name, name=token.name)
        self._apply_effects(p, token, on_reveal=False)

    def _check_prisoner_left(self, token: Token) -> None:
        """The box still holds a prisoner of ``token``'s kind: never more than its 20 are
        freed, and never more of a kind than the table counted (the ``prisoners`` option:
        a count the catalog only guesses limits nothing, as a scan frees what the table
        holds). A used Discount Coupon stays out of the box."""
        freed = [name for q in self.state.players.values() for name in q.prisoners]
        if token.verified and token.count == 0:
            raise RuleError(
                N_("no {name} is in the box: the table counted none"),
                during="prisoner",
                name=token.name,
            )
        if token.verified and freed.count(token.name) >= token.count:
            raise RuleError(
                NN_(
                    "no {name} is left to free: the box holds {n}, freed already",
                    "no {name} is left to free: the box holds {n}, all freed already",
                ),
                during="prisoner",
                name=token.name,
                n=token.count,
            )
        box = prisoner_box(self.catalog)
        if len(freed) >= box:
            raise RuleError(
                NN_(
                    "no prisoner is left to free: the box's {n} is freed already",
                    "no prisoner is left to free: the box's {n} are all freed already",
                ),
                during="prisoner",
                n=box,
            )

    def _do_cards(self, a: dict[str, Any]) -> None:
        p = self._player(a, inside=False)
        p.cards = tuple(self._card("cards", name, dungeon=False).name for name in a["cards"])

    # ----------------------------------------------------------------- reading
    def scores(self) -> dict[str, Score]:
        # the scoring is loaded at the end of a game: a game resumed in play does without it
        from companion.kinds.clank.rules.scoring import score_player

        return {name: score_player(self.catalog, p) for name, p in self.state.players.items()}

    def snapshot(self) -> dict[str, Any]:
        """The state as the table script's JSON output describes it."""
        s = self.state
        scores = self.scores() if s.game_over else None
        players = {}
        for name in s.seats:
            p = s.players[name]
            players[name] = {
                "seat": p.seat + 1,
                "supply": p.supply,
                "damage": p.damage,
                "health": self.setup.health - p.damage,
                "status": p.status,
                "in_depths": p.in_depths,
                "artifacts": list(p.artifacts),
                "gold": p.gold,
                "credit": p.credit,
                "tokens": dict(p.tokens),
                "crowns": list(p.crowns),
                "secrets": dict(p.secrets),
                "prisoners": list(p.prisoners),
                "shrines": p.shrines,
                "cards": None if p.cards is None else len(p.cards),
                "score": scores[name].total if scores else None,
            }
            if scores:
                players[name]["score_detail"] = scores[name].as_dict()
        return {
            "edition": self.edition.name,
            "party": self.setup.party,
            "game_over": s.game_over,
            "end_reason": s.end_reason or None,
            "turn": {"active": s.seats[s.active], "number": s.turn},
            "rage": {
                "space": s.rage + 1,
                "draw": self.setup.rage_track[s.rage],
                "track": list(self.setup.rage_track),
            },
            "danger": self.danger(),
            "next_attack": self.attack_size(),
            "row": list(s.row),
            "clank_area": dict(s.area),
            "bag": dict(s.bag),
            "set_aside": dict(s.set_aside),
            "treasury": {"ghost": s.ghost_treasury},
            "countdown": None
            if s.countdown is None
            else {"player": s.countdown.player, "space": s.countdown.space},
            "players": players,
            "draws": [d.as_dict() for d in self.draws],
            "ranking": _ranking(scores, s) if scores else None,
            "settings": {
                "health": self.setup.health,
                "rage_start": self.setup.rage_start,
                "unconfirmed": list(self.setup.unconfirmed),
                "artifacts": list(self.setup.artifact_pile()),
                "removed_artifacts": None
                if self.setup.removed_artifacts is None and not s.removed
                else list(s.removed),
            },
        }
