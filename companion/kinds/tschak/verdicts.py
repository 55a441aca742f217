"""The verdicts of a Tschak! game, as the screens show them: a floor's (every team's
strength, who takes the treasure and the monster, and why: the tie chain in words) and a
tower's trophies (the gold, the ties, the passing of the hands). Each is read from the
game's record and its teams evaluated again (pure and deterministic)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.i18n import _
from companion.kinds.tschak.rules import Settings, TschakGame
from companion.kinds.tschak.rules.cards import CURSED, DWARF, MAGE, WARRIOR, parse_tower_card
from companion.kinds.tschak.rules.resolve import (
    MageSeen,
    TeamResult,
    compare,
    evaluate_teams,
    numbered_mage,
    single_card,
)
from companion.kinds.tschak.views import (
    FloorVerdictView,
    TrophyRowView,
    TrophyVerdictView,
    VerdictTeamView,
    card_view,
    seat_colour,
)
from companion.kinds.tschak.words import COLOUR_WORDS, card_words, hero_words, tp, who


def floor_verdict(game: TschakGame, index: int) -> FloorVerdictView:
    record = game.state.floors[index]
    results = _results(game, index)
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
                colour=seat_colour(game.players, p),
                strength=record["strength"][p],
                cards=tuple(card_view(c) for c in record["teams"][p]),
                takes=takes,
                takes_text=text,
                detail=_breakdown(results[p]),
                misplay=p in misplays,
            )
        )
    reasons = _floor_reasons(game, record, results)
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


def _results(game: TschakGame, index: int) -> dict[str, TeamResult]:
    """The teams of a recorded floor evaluated again (pure and deterministic): what
    each member counted, the chameleon's copy, the artifact's double."""
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
    game: TschakGame, record: dict[str, Any], results: Mapping[str, TeamResult]
) -> tuple[str, ...]:
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


def trophy_verdict(game: TschakGame, index: int) -> TrophyVerdictView:
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
                colour=seat_colour(game.players, p),
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
                _("{a} and {b} both {n}: a {winner} beats a {loser} (mage, warrior, dwarf)").format(
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
