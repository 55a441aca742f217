"""A Clank! game in words for the terminal: one event, and the table as it stands."""

from __future__ import annotations

from typing import Any

from companion.i18n import EN_, N_, Msg, _, ed_, ned_, player_name
from companion.store.tags import edition_title

GAME_OVER = {
    "nobody is left in the dungeon": EN_("nobody is left in the dungeon"),
    "the dragon bag is empty": EN_("the dragon bag is empty"),
    "the countdown reached its last space": EN_("the countdown reached its last space"),
    "the dungeon deck cannot refill the row": EN_("the dungeon deck cannot refill the row"),
}
DRAW_REASONS = {"attack": EN_("attack"), "countdown": EN_("countdown")}
STATUS = {
    "playing": N_("playing"),
    "escaped": N_("escaped"),
    "knocked_out": N_("knocked out"),
}


def _words(table: dict[str, str], key: str, edition: str | None = None) -> str:
    """A value the engine names in English, as the reader's language says it."""
    return Msg(table[key]).localized(edition) if key in table else key


def _cubes(counts: dict[str, int]) -> str:
    return ", ".join(f"{player_name(k)} {v}" for k, v in counts.items() if v)


def tell_event(event: dict[str, Any], edition: str) -> str:
    """One event in words, in the edition's own."""
    kind = event["event"]
    who = player_name(event["player"]) if "player" in event else ""
    if kind == "draw":
        drawn = ", ".join(player_name(c) for c in event["drawn"]) or _("nothing")
        return ned_(
            edition,
            "dragon draw #{nonce} ({reason}, {n} cube): {drawn}",
            "dragon draw #{nonce} ({reason}, {n} cubes): {drawn}",
            event["count"],
        ).format(
            nonce=event["nonce"],
            reason=_words(DRAW_REASONS, event["reason"], edition),
            n=event["count"],
            drawn=drawn,
        )
    if kind == "damage":
        return ed_(edition, "{player} takes 1 damage ({health} health left)").format(
            player=who, health=event["health"]
        )
    if kind == "knocked_out":
        if event["in_depths"]:
            return ed_(edition, "{player} is knocked out in the Depths").format(player=who)
        return _("{player} is knocked out").format(player=who)
    if kind == "clank":
        text = ed_(edition, "{player} clank {n}").format(player=who, n=f"{event['n']:+d}")
        if event.get("cancelled"):
            text += " " + ed_(edition, "({n} cancelled by anti-clank)").format(n=event["cancelled"])
        if event.get("credit"):
            text += " " + ed_(edition, "(anti-clank credit {n} this turn)").format(
                n=event["credit"]
            )
        return text
    if kind == "rage":
        return ned_(
            edition,
            "rage: space {space} ({n} cube)",
            "rage: space {space} ({n} cubes)",
            event["draw"],
        ).format(space=event["space"], n=event["draw"])
    if kind == "turn":
        return _("turn {number}: {player} plays").format(number=event["number"], player=who)
    if kind == "countdown":
        return _("countdown: {player} on space {space}").format(player=who, space=event["space"])
    if kind == "game_over":
        return _("game over: {reason}").format(reason=_words(GAME_OVER, event["reason"], edition))
    if kind == "arrive":
        return _("{card} arrives: {text}").format(card=event["card"], text=event["text"])
    told = _tell_holding(kind, event, who, edition)
    if told is not None:
        return told
    rest = ", ".join(f"{k} {v}" for k, v in event.items() if k != "event")
    return f"{kind.replace('_', ' ')}: {rest}" if rest else kind.replace("_", " ")


def _tell_holding(kind: str, event: dict[str, Any], who: str, edition: str) -> str | None:
    """What a player takes, gains, heals or leaves, and the bag's own events; None for an
    event of no such kind."""
    if kind == "artifact":
        return ed_(edition, "{player} takes the artifact worth {value}").format(
            player=who, value=event["value"]
        )
    if kind == "removed":
        return ed_(edition, "the artifact worth {value} is removed from the game").format(
            value=event["artifact"]
        )
    if kind == "secret":
        return ed_(edition, "{player} reveals a secret: {name}").format(
            player=who, name=event["name"]
        )
    if kind == "token":
        if "value" in event:
            return ed_(edition, "{player} gains {name} ({value} VP)").format(
                player=who, name=event["name"], value=event["value"]
            )
        return ed_(edition, "{player} gains {name}").format(player=who, name=event["name"])
    if kind == "heal":
        return ed_(edition, "{player} heals {n} damage").format(player=who, n=event["n"])
    if kind == "escaped":
        return ed_(edition, "{player} escapes from the dungeon").format(player=who)
    if kind == "shrine":
        return ed_(edition, "{player} marks a wayshrine ({shrines} marked): +{gold} gold").format(
            player=who, shrines=event["shrines"], gold=event["gold"]
        )
    if kind == "prisoner":
        return ed_(edition, "{player} frees a prisoner: {name}").format(
            player=who, name=event["name"]
        )
    if kind == "bag_empty":
        return ed_(edition, "the dragon bag is empty")
    if kind == "black_to_bag":
        return ned_(
            edition,
            "{n} black cube goes into the dragon bag",
            "{n} black cubes go into the dragon bag",
            event["n"],
        ).format(n=event["n"])
    if kind == "undo":
        return _("undone: {action} (action {number})").format(
            action=event["action"], number=event["number"]
        )
    return None


def tell_state(out: dict[str, Any]) -> list[str]:
    """The table of a script's output (``--json``) in a few readable lines: whose turn,
    the rage, the bag, each player, the ranking, the draws and the seed."""
    edition = out["edition"]
    turn = _("{edition} - turn {number}, {player} to play").format(
        edition=edition_title(edition),
        number=out["turn"]["number"],
        player=player_name(out["turn"]["active"]),
    )
    lines = [
        turn + (_(" - GAME OVER") if out["game_over"] else ""),
        ned_(
            edition,
            "rage space {space} ({n} cube), danger {danger}, next attack draws {next}",
            "rage space {space} ({n} cubes), danger {danger}, next attack draws {next}",
            out["rage"]["draw"],
        ).format(
            space=out["rage"]["space"],
            n=out["rage"]["draw"],
            danger=out["danger"],
            next=out["next_attack"],
        ),
        ed_(edition, "bag: {cubes}").format(cubes=_cubes(out["bag"])),
        ed_(edition, "Clank! area: {cubes}").format(cubes=_cubes(out["clank_area"])),
    ]
    if out["countdown"]:
        lines.append(
            _("countdown: {player} on space {space}").format(
                player=player_name(out["countdown"]["player"]), space=out["countdown"]["space"]
            )
        )
    for name, p in out["players"].items():
        score = "" if p["score"] is None else _(", score {score}").format(score=p["score"])
        arts = ",".join(map(str, p["artifacts"])) or "-"
        line = ed_(
            edition,
            "{status} health {health:>2}  supply {supply:>2}  gold {gold:>2}  artifacts {arts}",
        ).format(
            status=f"{_words(STATUS, p['status']):<11}",
            health=p["health"],
            supply=p["supply"],
            gold=p["gold"],
            arts=arts,
        )
        lines.append(f"  {player_name(name):<8} {line}{score}")
    if out["ranking"]:
        places = "; ".join(
            f"{r['place']}. {player_name(r['player'])} {r['score']}" for r in out["ranking"]
        )
        lines.append(_("ranking: {places}").format(places=places))
    lines.append(
        _("draws: {n}  commitment {commitment}").format(
            n=len(out["draws"]), commitment=out["commitment"]
        )
    )
    if out["server_seed"]:
        lines.append(_("server seed (revealed): {seed}").format(seed=out["server_seed"]))
    return lines
