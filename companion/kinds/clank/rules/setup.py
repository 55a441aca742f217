"""A new game's set-up: validated options and the starting state."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from companion.kinds.clank.catalog import Catalog, CatalogError, EditionSettings, load_catalog
from companion.kinds.clank.rules.errors import RuleError
from companion.kinds.clank.rules.state import Player, State
from companion.msg import EN_, N_, NN_, Name

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
    # the table's corrections of token numbers no Catacombs rulebook prints (None: the
    # catalog's): the chalice's VP, the backpack's VP, the crowns' values (most valuable
    # first), the prisoners of each kind in the box (kind, count)
    chalice_vp: int | None = None
    backpack_vp: int | None = None
    crowns: tuple[int, ...] | None = None
    prisoners: tuple[tuple[str, int], ...] | None = None

    @property
    def catalog(self) -> Catalog:
        """The edition's catalog with the table's corrections of token numbers; its
        ``edition.unconfirmed`` no longer names the numbers the table corrected."""
        return _corrected(load_catalog(self.edition), self.token_corrections())

    def token_corrections(self) -> tuple[tuple[str, Any], ...]:
        """The corrections of token numbers this game makes, as (option, value)."""
        found = (
            ("chalice_vp", self.chalice_vp),
            ("backpack_vp", self.backpack_vp),
            ("crowns", self.crowns),
            ("prisoners", self.prisoners),
        )
        return tuple((key, value) for key, value in found if value is not None)

    def artifact_pile(self) -> tuple[int, ...]:
        """Every artifact of this game before the 2-3 player removal, lowest first."""
        if self.artifacts is not None:
            return tuple(sorted(self.artifacts))
        return _catalog_artifacts(self.catalog, party=self.party)

    def artifacts_to_remove(self) -> int:
        """How many artifacts the table removes unseen at set-up: in the base game 2 with
        two players and 1 with three (ru:111-115, es:43-46); none in Catacombs."""
        return self.catalog.edition.artifacts_removed.get(len(self.players), 0)

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
        for key, value in self.token_corrections():
            out[key] = {"crowns": list, "prisoners": dict}.get(key, lambda v: v)(value)
        return out


_CORRECTED: dict[tuple[int, tuple[tuple[str, Any], ...]], tuple[Catalog, Catalog]] = {}
# the options that correct a token's VP, and the token (kind, name)
TOKEN_VP_OPTIONS = {
    "chalice_vp": ("major_secret", "chalice"),
    "backpack_vp": ("market", "backpack"),
}


def _corrected(catalog: Catalog, corrections: tuple[tuple[str, Any], ...]) -> Catalog:
    """``catalog`` with the token numbers a table corrected (made once per catalog and
    corrections): the corrected tokens count as verified, and the catalog's list of
    unconfirmed numbers drops them."""
    if not corrections:
        return catalog
    key = (id(catalog), corrections)
    made = _CORRECTED.get(key)
    if made is not None and made[0] is catalog:
        return made[1]
    tokens = dict(catalog.tokens)
    for option, value in corrections:
        if option in TOKEN_VP_OPTIONS:
            item = TOKEN_VP_OPTIONS[option]
            if item in tokens:
                tokens[item] = replace(tokens[item], vp=value, verified=True)
            continue
        for token_key, token in catalog.tokens.items():
            if option == "crowns" and token.effect("crowns") is not None:
                effects = tuple(
                    (code, ",".join(map(str, value)) if code == "crowns" else arg)
                    for code, arg in token.effects
                )
                tokens[token_key] = replace(token, effects=effects, verified=True)
            elif option == "prisoners" and token.kind == "prisoner":
                count = dict(value).get(token.name, token.count)
                tokens[token_key] = replace(token, count=count, verified=True)
    corrected = {option for option, _value in corrections}
    unconfirmed = tuple(u for u in catalog.edition.unconfirmed if u not in corrected)
    out = replace(catalog, edition=replace(catalog.edition, unconfirmed=unconfirmed), tokens=tokens)
    _CORRECTED[key] = (catalog, out)
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
    "chalice_vp",
    "backpack_vp",
    "crowns",
    "prisoners",
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
    tokens = _token_options(options, catalog)
    unconfirmed.difference_update(tokens)
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
        chalice_vp=tokens.get("chalice_vp"),
        backpack_vp=tokens.get("backpack_vp"),
        crowns=tokens.get("crowns"),
        prisoners=tokens.get("prisoners"),
    )


def _token_options(options: dict[str, Any], catalog: Catalog) -> dict[str, Any]:
    """The options "chalice_vp", "backpack_vp", "crowns" and "prisoners": token numbers
    the Catacombs rulebooks do not print, as the table reads them on its own tokens."""
    out: dict[str, Any] = {}
    for key, item in TOKEN_VP_OPTIONS.items():
        if key not in options:
            continue
        if catalog.token(*item) is None:
            unknown = (
                EN_("unknown secret {name!r}")
                if key == "chalice_vp"
                else EN_("unknown market item {name!r}")
            )
            raise RuleError(unknown, during="new", name=item[1])
        if not _is_count(options[key], 0, 100):
            raise RuleError(
                N_('"{key}" must be a whole number from 0 to 100'), during="new", key=key
            )
        out[key] = options[key]
    if "crowns" in options:
        printed = [t for t in catalog.tokens_of("market") if t.effect("crowns") is not None]
        values = options["crowns"]
        most = printed[0].count if printed else 0
        if (
            not isinstance(values, list)
            or len(values) != most
            or not all(_is_count(v, 0, 100) for v in values)
        ):
            raise RuleError(
                NN_(
                    '"crowns" must list the value of the {n} crown (0-100)',
                    '"crowns" must list the values of the {n} crowns (0-100)',
                ),
                during="new",
                n=most,
            )
        out["crowns"] = tuple(sorted(values, reverse=True))
    if "prisoners" in options:
        kinds = [t.name for t in catalog.tokens_of("prisoner")]
        counts = options["prisoners"]
        if not kinds:
            raise RuleError(N_("only in Clank! Catacombs"), during="new")
        if not isinstance(counts, dict) or not all(_is_count(v, 0, 20) for v in counts.values()):
            raise RuleError(
                N_('"prisoners" must give each kind of prisoner its count (0-20)'), during="new"
            )
        for name in counts:
            if name not in kinds:
                raise RuleError(EN_("unknown prisoner {name!r}"), during="new", name=name)
        for name in kinds:
            if name not in counts:
                raise RuleError(
                    N_('"prisoners" has no count for {name!r}: give every kind its count'),
                    during="new",
                    name=name,
                )
        box = prisoner_box(catalog)
        total = sum(counts.values())
        if total != box:  # the table counts the box's tokens by kind: all of them
            raise RuleError(
                NN_(
                    '"prisoners" must add up to the box\'s {n} prisoner (these add up to {total})',
                    '"prisoners" must add up to the box\'s {n} prisoners (these add up to {total})',
                ),
                during="new",
                n=box,
                total=total,
            )
        out["prisoners"] = tuple((name, counts[name]) for name in kinds)
    return out


def prisoner_box(catalog: Catalog) -> int:
    """The prisoner tokens in the box (Catacombs: 20, ru l.146, uk l.115; the Discount
    Coupon among them): the catalog's guess of each kind's count keeps that printed
    total, and a table's correction must give it too."""
    return sum(t.count for t in catalog.tokens_of("prisoner"))


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
        removed=setup.removed_artifacts or (),
    )


# The set-up values the log writes out for every game (``Setup.as_dict``), the edition's
# own included: read back on resume they look like the table's corrections.
ALWAYS_RECORDED = ("rage_track", "rage_start", "health")


def as_listed(setup: Setup) -> Setup:
    """``setup`` with the settings no rulebook prints that it plays with, as its new game
    listed them. A resumed game is set up again from its logged set-up, which holds the
    rage track, the rage start and health even where the table kept the edition's own;
    ``make_setup`` takes those for corrections and drops them from ``unconfirmed`` (the
    rage track and start of Catacombs, health, a 5-6 player game's rage start and
    track). A value that is the edition's own is one no rulebook prints all the same:
    it is listed, in a new game and in a resumed one alike."""
    options = setup.as_dict()
    for key in ALWAYS_RECORDED:
        trial = {k: v for k, v in options.items() if k != key}
        try:
            kept = getattr(make_setup(trial), key) == getattr(setup, key)
        except RuleError:
            kept = False
        if kept:  # the edition's own value: no correction
            options = trial
    try:
        unconfirmed = make_setup(options).unconfirmed
    except RuleError:
        return setup
    return replace(setup, unconfirmed=unconfirmed)
