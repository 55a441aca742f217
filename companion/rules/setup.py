"""A new game's set-up: validated options and the starting state."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from companion.catalog import Catalog, CatalogError, EditionSettings, load_catalog
from companion.i18n import N_, Name, _, ed_, ned_, ngettext, player_name
from companion.rules.errors import RuleError
from companion.rules.state import Player, State

RESERVED_NAMES = frozenset({"black", "ghost"})
_NAME = re.compile(r"^[a-z][a-z0-9_-]{0,15}$")


@dataclass(frozen=True)
class Setup:
    """What the first line of a table script (or the new-game screen) decides."""

    edition: str
    players: tuple[str, ...]
    party: bool
    rage_track: tuple[int, ...]
    rage_start: int  # 1-based
    health: int
    client_seed: str
    unconfirmed: tuple[str, ...]  # settings in use that no rulebook prints

    @property
    def catalog(self) -> Catalog:
        return load_catalog(self.edition)

    def as_dict(self) -> dict[str, Any]:
        return {
            "edition": self.edition,
            "players": list(self.players),
            "party": self.party,
            "rage_track": list(self.rage_track),
            "rage_start": self.rage_start,
            "health": self.health,
            "client_seed": self.client_seed,
        }


_NEW_FIELDS = {
    "edition",
    "players",
    "party",
    "rage_track",
    "rage_start",
    "health",
    "server_seed",
    "client_seed",
}


def _applies(unconfirmed: str, players: int) -> bool:
    """'rage_start.5' concerns 5-player games; 'starting_clank.5' any game with a 5th seat."""
    name, _, n = unconfirmed.partition(".")
    if not n:
        return True
    return players >= int(n) if name == "starting_clank" else players == int(n)


def make_setup(options: Any) -> Setup:
    """Validate the options of a new game; RuleError names the first problem."""
    if not isinstance(options, dict):
        raise RuleError(N_('"new" must be an object'))
    unknown = set(options) - _NEW_FIELDS
    if unknown:
        raise RuleError(N_("unknown field {key!r}"), during="new", key=sorted(unknown)[0])
    edition = options.get("edition")
    if not isinstance(edition, str):
        raise RuleError(N_('"edition" must be "clank" or "catacombs"'), during="new")
    try:
        catalog = load_catalog(edition)
    except CatalogError as e:
        raise RuleError(
            N_("the box's catalog cannot be read: {problem}"), during="new", problem=str(e)
        ) from None
    settings: EditionSettings = catalog.edition
    party = options.get("party", False)
    if not isinstance(party, bool):
        raise RuleError(N_('"party" must be true or false'), during="new")
    players = options.get("players")
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise RuleError(N_('"players" must be a list of names'), during="new")
    most = 6 if party else 4
    if not 2 <= len(players) <= most:
        if party:
            raise RuleError(
                N_("{n} players; this game takes 2-{most}"), during="new", n=len(players), most=most
            )
        raise RuleError(
            N_('{n} players; this game takes 2-{most} (5-6 need "party": true)'),
            during="new",
            n=len(players),
            most=most,
        )
    for name in players:
        if not _NAME.match(name):
            raise RuleError(
                N_("player name {name!r} must be a short lowercase word"), during="new", name=name
            )
        if name in RESERVED_NAMES:
            raise RuleError(
                N_("{name!r} is the name of a cube kind, not a player"),
                during="new",
                name=Name(name),
            )
    if len(set(players)) != len(players):
        raise RuleError(N_("player names must be distinct"), during="new")
    unconfirmed = set(settings.unconfirmed)
    track = options.get("rage_track", list(settings.rage_track))
    if (
        not isinstance(track, list)
        or not track
        or not all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 30 for v in track)
    ):
        raise RuleError(N_('"rage_track" must be a list of cube counts (0-30)'), during="new")
    if "rage_track" in options:
        unconfirmed.discard("rage_track")
    count = len(players)
    default_start = settings.rage_start.get(count, 1)
    start = options.get("rage_start", min(default_start, len(track)))
    if not isinstance(start, int) or isinstance(start, bool) or not 1 <= start <= len(track):
        raise RuleError(
            N_('"rage_start" must be a space from 1 to {last}'), during="new", last=len(track)
        )
    if "rage_start" in options:
        unconfirmed.discard("rage_start")
    unconfirmed.discard(f"rage_start.{count}" if "rage_start" in options else "")
    health = options.get("health", settings.health)
    if not isinstance(health, int) or isinstance(health, bool) or not 1 <= health <= 20:
        raise RuleError(N_('"health" must be a whole number from 1 to 20'), during="new")
    if "health" in options:
        unconfirmed.discard("health")
    client_seed = options.get("client_seed", "")
    if not isinstance(client_seed, str):
        raise RuleError(N_('"client_seed" must be a string'), during="new")
    relevant = sorted(u for u in unconfirmed if _applies(u, count))
    return Setup(
        edition=edition,
        players=tuple(players),
        party=party,
        rage_track=tuple(track),
        rage_start=start,
        health=health,
        client_seed=client_seed,
        unconfirmed=tuple(relevant),
    )


def initial_state(setup: Setup) -> State:
    """The table after set-up: cubes, bag, treasury, stock."""
    catalog = setup.catalog
    ed = catalog.edition
    players: dict[str, Player] = {}
    area: dict[str, int] = {}
    for seat, name in enumerate(setup.players):
        start = ed.starting_clank[seat]
        players[name] = Player(name=name, seat=seat, supply=ed.cubes_per_player - start)
        area[name] = start
    area["ghost"] = 0
    bag = {"black": ed.black_cubes, **{name: 0 for name in setup.players}, "ghost": 0}
    set_aside = {"black": 0, **{name: 0 for name in setup.players}}
    artifacts = sorted(
        int(t.name.split()[0])
        for t in catalog.tokens_of("artifact", party=setup.party)
        for _ in range(t.count)
    )
    stock: dict[str, int] = {}
    crowns: list[int] = []
    for t in catalog.tokens_of("market", "special", party=setup.party):
        values = t.effect("crowns")
        if values is not None:
            crowns.extend(int(v) for v in values.split(","))
        elif t.name != "mastery token":
            stock[t.name] = stock.get(t.name, 0) + t.count
    return State(
        seats=setup.players,
        players=players,
        rage=setup.rage_start - 1,
        row=[],
        area=area,
        bag=bag,
        set_aside=set_aside,
        ghost_treasury=ed.ghost_cubes,
        active=0,
        turn=1,
        client_seed=setup.client_seed,
        artifacts_left=tuple(artifacts),
        stock=stock,
        crowns_left=tuple(sorted(crowns, reverse=True)),
    )


def setup_checklist(setup: Setup) -> list[str]:
    """What the table does by hand before the first turn, in plain words (in the
    language chosen with companion.i18n, in the edition's own words)."""
    ed = setup.catalog.edition
    edition = setup.edition
    count = len(setup.players)
    per_attack = setup.rage_track[setup.rage_start - 1]
    lines = [
        ned_(
            edition,
            "Put the dragon on space {space} of the rage track ({n} cube per attack).",
            "Put the dragon on space {space} of the rage track ({n} cubes per attack).",
            per_attack,
        ).format(space=setup.rage_start, n=per_attack),
    ]
    for seat, name in enumerate(setup.players):
        n = ed.starting_clank[seat]
        lines.append(
            ned_(
                edition,
                "{name}: {n} cube into the Clank! area.",
                "{name}: {n} cubes into the Clank! area.",
                n,
            ).format(name=player_name(name), n=n)
        )
    removed = ed.artifacts_removed.get(count, 0)
    if removed:
        lines.append(
            ngettext(
                "Remove {n} random artifact unseen.", "Remove {n} random artifacts unseen.", removed
            ).format(n=removed)
        )
    lines.append(
        ned_(
            edition,
            "Deal the opening dungeon row of {n} card: replace any card with a "
            "dragon-attack symbol and reshuffle it into the deck.",
            "Deal the opening dungeon row of {n} cards: replace any card with a "
            "dragon-attack symbol and reshuffle it into the deck.",
            ed.row_size,
        ).format(n=ed.row_size)
    )
    for name in setup.unconfirmed:
        lines.append(
            _("Check on your board: {what} is not printed in the rulebook.").format(
                what=unconfirmed_label(edition, name)
            )
        )
    return lines


def unconfirmed_label(edition: str, name: str) -> str:
    """A setting no rulebook prints ('rage_start.5'), as the checklist and the Settings
    screen name it."""
    base, _dot, players = name.partition(".")
    if base == "rage_track":
        return ed_(edition, "rage track")
    if base == "rage_start":
        if players:
            return ed_(edition, "rage start.{n}").format(n=players)
        return ed_(edition, "rage start")
    if base == "health":
        return ed_(edition, "health")
    if base == "starting_clank" and players:
        return ed_(edition, "starting clank.{n}").format(n=players)
    return name.replace("_", " ")
