"""A new game's set-up: validated options and the starting state."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from companion.catalog import Catalog, CatalogError, EditionSettings, load_catalog
from companion.msg import N_, NN_, Name
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
    # the table's correction of the artifact values (None: the catalog's)
    artifacts: tuple[int, ...] | None = None
    # the artifacts the table removed unseen with 2-3 players (None: not recorded)
    removed_artifacts: tuple[int, ...] | None = None

    @property
    def catalog(self) -> Catalog:
        return load_catalog(self.edition)

    def artifact_pile(self) -> tuple[int, ...]:
        """Every artifact of this game before the 2-3 player removal, lowest first."""
        if self.artifacts is not None:
            return tuple(sorted(self.artifacts))
        return _catalog_artifacts(self.catalog, party=self.party)

    def as_dict(self) -> dict[str, Any]:
        """The options that set this game up again (``make_setup`` reads them back): what
        the log records, so that a resumed game has the same set-up."""
        out: dict[str, Any] = {
            "edition": self.edition,
            "players": list(self.players),
            "party": self.party,
            "rage_track": list(self.rage_track),
            "rage_start": self.rage_start,
            "health": self.health,
            "client_seed": self.client_seed,
        }
        if self.artifacts is not None:
            out["artifacts"] = list(self.artifacts)
        if self.removed_artifacts is not None:
            out["removed_artifacts"] = list(self.removed_artifacts)
        return out


def _catalog_artifacts(catalog: Catalog, *, party: bool) -> tuple[int, ...]:
    return tuple(
        sorted(
            int(t.name.split()[0])
            for t in catalog.tokens_of("artifact", party=party)
            for _ in range(t.count)
        )
    )


_NEW_FIELDS = {
    "edition",
    "players",
    "party",
    "rage_track",
    "rage_start",
    "health",
    "server_seed",
    "client_seed",
    "artifacts",
    "removed_artifacts",
}

# The most artifacts a game may list in "artifacts" (the boxes hold 7, the party adds 5).
_MOST_ARTIFACTS = 20


def _applies(unconfirmed: str, players: int) -> bool:
    """'rage_start.5' concerns 5-player games; 'starting_clank.5' any game with a 5th seat;
    'cloaks.party' any game that uses the Adventuring Party (5-6 players)."""
    name, _, n = unconfirmed.partition(".")
    if not n:
        return True
    if n == "party":
        return players >= 5
    return players >= int(n) if name == "starting_clank" else players == int(n)


def _is_count(v: Any, low: int, high: int) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and low <= v <= high


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
    count = len(players)
    # The Adventuring Party's components (its artifacts, cloaks, master key, mastery
    # tokens) join only games of 5 or 6 players: "Если вы играете впятером или
    # вшестером, возьмите 4 из 5 артефактов" (Catacombs ru:1067-1081, uk:641-651).
    # "party": true with 2-4 players is accepted (the table script allows it) and adds
    # nothing: the game is set up, recorded and resumed as one without the party.
    party = party and count > 4
    unconfirmed = set(settings.unconfirmed)
    track = options.get("rage_track", list(settings.rage_track))
    if not isinstance(track, list) or not track or not all(_is_count(v, 0, 30) for v in track):
        raise RuleError(N_('"rage_track" must be a list of cube counts (0-30)'), during="new")
    if "rage_track" in options:
        unconfirmed.discard("rage_track")
        unconfirmed.discard("rage_track.party")
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
    artifacts = _artifacts_option(options)
    if artifacts is not None:
        unconfirmed.discard("artifacts")
        unconfirmed.discard("artifacts.party")
    pile = artifacts if artifacts is not None else _catalog_artifacts(catalog, party=party)
    removed = _removed_option(options, pile, count, settings.artifacts_removed.get(count, 0))
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
        artifacts=artifacts,
        removed_artifacts=removed,
    )


def _artifacts_option(options: dict[str, Any]) -> tuple[int, ...] | None:
    """The option "artifacts": the values of every artifact of this game (before the 2-3
    player removal), where the table corrects the catalog's (Catacombs prints 5 of 7)."""
    if "artifacts" not in options:
        return None
    values = options["artifacts"]
    if (
        not isinstance(values, list)
        or not 1 <= len(values) <= _MOST_ARTIFACTS
        or not all(_is_count(v, 1, 100) for v in values)
    ):
        raise RuleError(
            N_('"artifacts" must be a list of 1 to {most} artifact values (1-100)'),
            during="new",
            most=_MOST_ARTIFACTS,
        )
    return tuple(values)


def _removed_option(
    options: dict[str, Any], pile: tuple[int, ...], players: int, wanted: int
) -> tuple[int, ...] | None:
    """The option "removed_artifacts": which artifacts the table removed unseen (2 with 2
    players, 1 with 3 in the base game); nobody may take them. Left out: not recorded."""
    if "removed_artifacts" not in options:
        return None
    values = options["removed_artifacts"]
    if not isinstance(values, list) or not all(_is_count(v, 1, 100) for v in values):
        raise RuleError(N_('"removed_artifacts" must be a list of artifact values'), during="new")
    if len(values) != wanted:
        if wanted == 0:
            raise RuleError(
                N_('with {players} players no artifact is removed: leave out "removed_artifacts"'),
                during="new",
                players=players,
            )
        raise RuleError(
            NN_(
                "with {players} players the table removes {n} artifact, "
                'not {given}: list it in "removed_artifacts"',
                "with {players} players the table removes {n} artifacts, "
                'not {given}: list them in "removed_artifacts"',
            ),
            during="new",
            players=players,
            n=wanted,
            given=len(values),
        )
    for value in values:
        if value not in pile:
            raise RuleError(
                N_("there is no artifact worth {value} to remove"), during="new", value=value
            )
        if values.count(value) > pile.count(value):
            raise RuleError(
                N_('"removed_artifacts" names the artifact worth {value} twice'),
                during="new",
                value=value,
            )
    return tuple(values)


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
    artifacts = list(setup.artifact_pile())
    for value in setup.removed_artifacts or ():
        artifacts.remove(value)
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
