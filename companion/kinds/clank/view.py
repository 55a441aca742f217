"""What the screens show: one typed picture of the table, made by the controller.

The screens read a ``TableView`` and nothing else: never the game, the store or the
rules' dicts. A screen is a function of its view: built afresh from the same view it
shows the same texts and offers the same buttons (the tests check this after every step
of random play). Words are chosen here, at the edge, in the table's language of the
moment: the rules give codes and values.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from companion.i18n import Said, _, current_language, ed_, ned_, ngettext, player_name
from companion.kinds.clank.checklist import unconfirmed_label
from companion.story import LoggedDraw, Place

if TYPE_CHECKING:  # the rules' types: the phones read the words here without the rules
    from companion.kinds.clank.rules import Game
    from companion.kinds.clank.rules.odds import AttackOdds
    from companion.kinds.clank.rules.scoring import Score


def next_draw_title(edition: str, reason: str, n: int, ends_game: bool) -> str:
    """The next draw the odds are of, in words: an attack's, the countdown's next step's,
    an out player's; said as the end of the game when it ends it whatever the cubes."""
    if ends_game:
        if reason == "countdown":
            return ed_(edition, "The next countdown step ends the game")
        if reason == "out_draw":
            return ed_(edition, "An out player's draw empties the bag: game over")
        return ed_(edition, "The next attack empties the bag: game over")
    if reason == "countdown":
        return ned_(
            edition,
            "The countdown's next draw: {n} cube",
            "The countdown's next draw: {n} cubes",
            n,
        ).format(n=n)
    if reason == "out_draw":
        return ned_(
            edition,
            "An out player's next draw: {n} cube",
            "An out player's next draw: {n} cubes",
            n,
        ).format(n=n)
    return ned_(
        edition, "The next dragon attack: {n} cube", "The next dragon attack: {n} cubes", n
    ).format(n=n)


# The languages that write a decimal comma ("0,4"); the others write a point ("0.4").
DECIMAL_COMMA = frozenset({"es", "ru", "uk"})


def decimal_point() -> str:
    """The decimal separator of the table's language of the moment."""
    return "," if current_language() in DECIMAL_COMMA else "."


def health_lost(x: float) -> str:
    """Health lost on average, for the table and the phones alike: one decimal ("0.4",
    "0,4" in Spanish, Russian and Ukrainian), none from 10 on ("10", not "10.0"), "0"
    for nothing at all. No sign: the one who shows it adds its own."""
    text = f"{x:.1f}" if x < 9.95 else f"{x:.0f}"
    if text == "0.0":
        return "0"
    # said again in a language switched to while it is shown (companion.i18n.Said)
    return Said(text.replace(".", decimal_point()), health_lost, (x,))


def percent(p: float) -> str:
    """A chance for the table and the phones: "0%", "<1%", "37%", ">99%", "100%" (whole
    percents: no decimal separator to follow the language)."""
    if p <= 0:
        return "0%"
    if p >= 1:
        return "100%"
    if p < 0.005:
        return "<1%"
    if p > 0.995:
        return ">99%"
    return f"{round(p * 100)}%"


@dataclass(frozen=True)
class PlayerView:
    name: str  # the colour
    seat: int  # 1, 2, ...
    active: bool  # whose turn it is (never while the game is over)
    status: str  # "playing", "escaped", "knocked_out"
    in_depths: bool
    clank: int  # the player's cubes in the Clank! area
    supply: int  # cubes still in the player's supply
    health: int  # health left
    max_health: int
    gold: int
    anti_clank: int  # clank that this turn's next +clank cancels
    artifacts: tuple[int, ...]
    score: int | None  # once the game is over
    # the next dragon draw (TableView.odds_reason): the chance of each health lost,
    # 0 .. health; its last entry is the chance of a knock-out
    odds: tuple[float, ...] = ()
    expected_damage: float = 0.0

    @property
    def knock_out(self) -> float:
        return self.odds[-1] if self.odds else 0.0

    @property
    def out(self) -> bool:
        return self.status != "playing"


@dataclass(frozen=True)
class RowCardView:
    name: str
    danger: bool  # a Danger card: the next attack draws one more cube
    revealed: bool  # revealed in the refill under way, not yet committed


@dataclass(frozen=True)
class TableView:
    """The table as the screens show it. ``phase`` is "none" with no game open,
    "opening" before the first turn, "playing", "scoring" once the game is over,
    "abandoned"."""

    phase: str = "none"
    game: int | None = None
    edition: str = "clank"
    party: bool = False
    players: tuple[PlayerView, ...] = ()
    active: str = ""
    turn: int = 0
    rage_space: int = 1  # 1-based
    rage_track: tuple[int, ...] = ()
    danger: int = 0
    next_attack: int = 0  # cubes the next attack draws, Danger included
    bag: tuple[tuple[str, int], ...] = ()  # black, each seat, ghost (Catacombs)
    ghosts_in_area: int = 0
    countdown: tuple[str, int] | None = None  # (player, space)
    row: tuple[RowCardView, ...] = ()
    row_size: int = 6
    refilling: bool = False
    refill_space: int = 0  # cards still to reveal in the refill under way
    can_undo: bool = False
    last: str = ""  # what just happened, in one line
    game_over: bool = False
    end_reason: str | None = None
    ranking: tuple[Place, ...] = ()
    artifacts_left: tuple[int, ...] = ()  # the values still to be taken
    draws: tuple[LoggedDraw, ...] = ()
    commitment: str = ""
    head: str = ""  # the newest hash of the game's log
    client_seed: str = ""
    server_seed: str | None = None  # revealed once the game is over or abandoned
    opening: tuple[str, ...] | None = None  # the opening row, before the first turn
    words: str = ""  # typed by the players for the client seed
    scoring: str | None = None  # whose deck is being scanned
    unresumable: tuple[int, str] | None = None  # (game, why) a game that cannot go on
    scores: tuple[ScoreView, ...] = ()  # once the game is over
    odds_reason: str = ""  # the next draw the odds are of: "attack", "countdown", "out_draw"
    odds_count: int = 0  # the cubes that draw takes
    # that draw ends the game whatever the cubes: everyone still inside is knocked out
    # (the countdown's last space; in Catacombs, a draw that takes the whole bag)
    odds_ends_game: bool = False

    def player(self, name: str) -> PlayerView:
        for p in self.players:
            if p.name == name:
                return p
        raise KeyError(name)

    @property
    def winner(self) -> str | None:
        return self.ranking[0].player if self.ranking else None


@dataclass(frozen=True)
class ScoreView:
    """One player's score at the end, as the scoring screen shows it."""

    player: str
    qualifies: bool
    reason: str  # why the player scores nothing ("no artifact", ...), else ""
    parts: tuple[tuple[str, int], ...]  # ("artifacts", 20), ("gold", 7), ...
    total: int
    notes: tuple[str, ...]  # the conditional VP explained, one line each, in words
    deck: tuple[str, ...]  # the cards scanned into the player's deck, in order


@dataclass(frozen=True)
class HurtView:
    """What one draw did to one player."""

    player: str
    damage: int
    health: int | None  # health left after the draw (None: not told)
    knocked_out: bool


@dataclass(frozen=True)
class AttackEvent:
    """One dragon attack as an event: the draw, then what it did to each player."""

    draw: LoggedDraw
    hurt: tuple[HurtView, ...]


@dataclass(frozen=True)
class Offer:
    """One thing a player may do now, two taps from their panel: ``what`` names it (the
    screen chooses the words), ``action`` is the table-script action it commits."""

    what: str  # "gold", "damage", "heal", "depths", "escape", "artifact", "secret", ...
    action: Mapping[str, Any]
    name: str = ""  # the token, secret, item or prisoner
    n: int = 0  # gold or health; the artifact's value; the item's price


@dataclass(frozen=True)
class Attacks:
    """What an action's update carries for the screens (``companion.live.Update.detail``):
    the dragon attacks it caused, in order."""

    events: tuple[AttackEvent, ...]


def attacks_of(detail: object) -> tuple[AttackEvent, ...]:
    """The dragon attacks an update carries (none: not an action of Clank!'s with a draw)."""
    return detail.events if isinstance(detail, Attacks) else ()


def attacks_from_events(
    events: Sequence[Mapping[str, Any]], draws: Mapping[int, LoggedDraw]
) -> tuple[AttackEvent, ...]:
    """The dragon attacks among one action's events (a refill's attack, then a
    countdown's or an out player's draw): each draw (as ``draws``, by nonce, records it,
    bag included) with the damage that followed it."""
    out: list[tuple[LoggedDraw, dict[str, list[Any]]]] = []
    for e in events:
        kind = e.get("event")
        if kind == "draw":
            nonce = int(e["nonce"])
            draw = draws.get(nonce) or LoggedDraw(
                nonce=nonce,
                reason=str(e.get("reason", "attack")),
                count=int(e.get("count", len(e["drawn"]))),
                bag=(),
                drawn=tuple(e["drawn"]),
                undone=False,
            )
            out.append((draw, {}))
        elif out and kind in ("damage", "knocked_out"):
            hurt = out[-1][1].setdefault(e["player"], [0, None, False])
            if kind == "damage":
                hurt[0] += 1
                hurt[1] = e.get("health", hurt[1])
            else:
                hurt[2] = True
    return tuple(
        AttackEvent(draw, tuple(HurtView(p, d, h, k) for p, (d, h, k) in hurt.items()))
        for draw, hurt in out
    )


def bag_order(
    seats: list[str], counts: Mapping[str, int], *, ghosts: bool
) -> tuple[tuple[str, int], ...]:
    """The bag laid out as the fair draw lays it out: black, the seats in order, ghost."""
    kinds = ["black", *seats] + (["ghost"] if ghosts else [])
    return tuple((k, int(counts.get(k, 0))) for k in kinds)


def draw_views(game: Game) -> tuple[LoggedDraw, ...]:
    """The game's draws, undone ones marked, each with its bag laid out as the fair draw
    lays it out."""
    seats = list(game.state.seats)
    ghosts = game.edition.name == "catacombs"
    return tuple(
        LoggedDraw(
            nonce=d.nonce,
            reason=d.reason,
            count=d.count,
            bag=bag_order(seats, d.bag, ghosts=ghosts),
            drawn=tuple(d.drawn),
            undone=d.undone,
        )
        for d in game.draws
    )


def score_views(game: Game, scores: Mapping[str, Score]) -> tuple[ScoreView, ...]:
    """Each player's score at the end, as the scoring screen shows it, in seat order."""
    edition = game.edition.name
    return tuple(
        ScoreView(
            player=name,
            qualifies=score.qualifies,
            reason=score.reason,
            parts=tuple(score.parts.items()),
            total=score.total,
            notes=tuple(c.localized(edition) for c in score.conditional),
            deck=tuple(game.state.players[name].cards or ()),
        )
        for name, score in scores.items()
    )


def make_view(
    game: Game,
    *,
    phase: str,
    game_id: int | None,
    refill: Sequence[str] | None = None,
    commitment: str = "",
    server_seed: str | None = None,
    head: str = "",
    last: str = "",
    refill_space: int = 0,
    opening: tuple[str, ...] | None = None,
    words: str = "",
    scoring: str | None = None,
    unresumable: tuple[int, str] | None = None,
    odds: AttackOdds | None = None,
) -> TableView:
    """A view from the rules' game, read as typed values (its ``State``, its set-up, its
    draws: never its JSON snapshot), and what the controller adds: the phase, the work
    in progress (the refill, the opening row, whose deck is scored), the log's head,
    what just happened, the odds of the next draw (None: none is shown)."""
    s = game.state
    setup = game.setup
    seats = list(s.seats)
    active = s.seats[s.active]
    scores = game.scores() if s.game_over else None
    odds_of = odds.players if odds is not None else {}
    players = []
    for name in s.seats:
        p = s.players[name]
        chances = odds_of.get(name)
        players.append(
            PlayerView(
                name=name,
                seat=p.seat + 1,
                active=name == active and not s.game_over,
                status=p.status,
                in_depths=p.in_depths,
                clank=s.area.get(name, 0),
                supply=p.supply,
                health=setup.health - p.damage,
                max_health=setup.health,
                gold=p.gold,
                anti_clank=p.credit,
                artifacts=tuple(p.artifacts),
                score=scores[name].total if scores else None,
                odds=() if chances is None else tuple(float(x) for x in chances.damage),
                expected_damage=0.0 if chances is None else float(chances.expected),
            )
        )
    catacombs = game.edition.name == "catacombs"
    cards = game.catalog

    def card_view(name: str, revealed: bool) -> RowCardView:
        card = cards.card(name)
        return RowCardView(name, card is not None and card.danger, revealed)

    row = tuple(card_view(c, False) for c in s.row)
    row += tuple(card_view(c, True) for c in refill or ())
    ranking: tuple[Place, ...] = ()
    if scores:
        from companion.kinds.clank.rules.scoring import ranking as rank_scores

        ranking = tuple(Place(r["place"], r["player"], r["score"]) for r in rank_scores(scores, s))
    return TableView(
        phase=phase,
        game=game_id,
        edition=game.edition.name,
        party=setup.party,
        players=tuple(players),
        active=active,
        turn=s.turn,
        rage_space=s.rage + 1,
        rage_track=tuple(setup.rage_track),
        danger=game.danger(),
        next_attack=game.attack_size(),
        bag=bag_order(seats, s.bag, ghosts=catacombs),
        ghosts_in_area=s.area.get("ghost", 0),
        countdown=None if s.countdown is None else s.countdown.astuple(),
        row=row,
        row_size=game.edition.row_size,
        refilling=refill is not None,
        refill_space=refill_space,
        can_undo=game.can_undo or bool(refill),
        last=last,
        game_over=s.game_over,
        end_reason=s.end_reason or None,
        ranking=ranking,
        artifacts_left=tuple(sorted(s.artifacts_left)),
        draws=draw_views(game),
        commitment=commitment,
        head=head,
        client_seed=s.client_seed or "",
        server_seed=server_seed,
        opening=opening,
        words=words,
        scoring=scoring,
        unresumable=unresumable,
        scores=score_views(game, scores) if scores else (),
        odds_reason=odds.reason if odds is not None else "",
        odds_count=odds.count if odds is not None else 0,
        odds_ends_game=odds.ends_game if odds is not None else False,
    )


def setting_label(edition: str, key: str) -> str:
    """A setting that no rulebook prints ('starting_clank.5'), in words."""
    base, _dot, players = key.partition(".")
    if base == "rage_start" and players:
        return ed_(edition, "where the dragon starts with {n} players").format(n=players)
    if base == "starting_clank" and players:
        return ed_(edition, "the starting clank of seat {n}").format(n=players)
    return unconfirmed_label(edition, key)


# ------------------------------------------------------------ what just happened
def describe_action(
    action: Mapping[str, Any], events: Sequence[Mapping[str, Any]], edition: str
) -> str:
    """One committed action in one line, in the table's language ("red +2 clank")."""
    do = action.get("do", "")
    who = player_name(action["player"]) if isinstance(action.get("player"), str) else ""
    n = action.get("n")
    n = n if isinstance(n, int) else 0
    drawn = [e for e in events if e.get("event") == "draw"]
    if do == "clank":
        text = ed_(edition, "{player} {n} clank").format(player=who, n=f"{n:+d}")
    elif do == "end_turn":
        revealed = action.get("revealed") or []
        text = ngettext(
            "turn over: {n} card revealed", "turn over: {n} cards revealed", len(revealed)
        ).format(n=len(revealed))
    elif do == "take":
        text = _("{card} left the row").format(card=action.get("card", ""))
    elif do == "attack":
        text = ed_(edition, "the dragon attacks")
    elif do == "rage":
        text = ed_(edition, "rage {n}").format(n=f"{n:+d}")
    elif do == "artifact":
        text = _("{player} took the artifact {value}").format(player=who, value=action["value"])
    elif do in ("secret", "prisoner", "token"):
        text = _("{player} took {name}").format(player=who, name=action.get("name", ""))
    elif do == "buy" and action.get("coupon"):
        text = _("{player} bought {item} with the coupon").format(
            player=who, item=action.get("item", "")
        )
    elif do == "buy":
        text = _("{player} bought {item}").format(player=who, item=action.get("item", ""))
    elif do == "gold":
        text = ngettext("{player} {n} gold", "{player} {n} gold", abs(n)).format(
            player=who, n=f"{n:+d}"
        )
    elif do == "damage":
        text = ngettext("{player} took {n} damage", "{player} took {n} damage", n).format(
            player=who, n=n
        )
    elif do == "heal":
        text = ngettext("{player} healed {n}", "{player} healed {n}", n).format(player=who, n=n)
    elif do == "depths":
        if action.get("in"):
            text = ed_(edition, "{player} went into the Depths").format(player=who)
        else:
            text = ed_(edition, "{player} came out of the Depths").format(player=who)
    elif do == "escape":
        text = _("{player} escaped").format(player=who)
    elif do == "ghost":
        text = ed_(edition, "a ghost joins the Clank! area")
    elif do == "shrine":
        text = ed_(edition, "{player} used a wayshrine").format(player=who)
    elif do == "cards":
        cards = action.get("cards") or []
        text = ngettext(
            "{player}: {n} card in the deck", "{player}: {n} cards in the deck", len(cards)
        ).format(player=who, n=len(cards))
    elif do == "row":
        text = _("the dungeon row is laid out")
    elif do == "seed":
        text = _("the client seed is fixed")
    elif do == "deck_out":
        text = ed_(edition, "the dungeon deck is empty")
    elif do == "removed":
        text = _("the artifact {value} was removed at set-up").format(value=action.get("artifact"))
    else:
        text = do.replace("_", " ")
    if drawn and do != "undo":
        cubes = sum(len(e.get("drawn", [])) for e in drawn)
        text += " · " + ned_(
            edition, "the dragon drew {n} cube", "the dragon drew {n} cubes", cubes
        ).format(n=cubes)
    return text


def describe_undo(undone: Mapping[str, Any] | None, edition: str) -> str:
    if undone is None:
        return _("Undo")
    return _("Undo: {what}").format(what=describe_action(undone, [], edition))
