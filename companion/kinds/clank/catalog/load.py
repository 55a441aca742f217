"""Loading and checking the catalog files (the schema check lives here)."""

from __future__ import annotations

import csv
import os
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from companion.kinds.clank.catalog.vprule import VPRule, VPRuleError, parse_vp_rule
from companion.resources import package_path

DATA_DIR = package_path(
    "kinds", "clank", "catalog", "data"
)  # package data (companion/resources.py)
EDITIONS = ("clank", "catacombs")

CARD_COLUMNS = [
    "edition",
    "name",
    "set",
    "count",
    "type",
    "skill_cost",
    "sword_cost",
    "vp",
    "vp_rule",
    "dragon_attack",
    "danger",
    "arrive",
    "arrive_text",
    "deep",
    "verified",
    "notes",
]
TOKEN_COLUMNS = [
    "edition",
    "kind",
    "name",
    "count",
    "vp",
    "vp_rule",
    "gold",
    "cost",
    "effect",
    "verified",
    "notes",
]
CARD_SETS = frozenset({"starter", "reserve", "dungeon", "promo"})
CARD_TYPES = frozenset({"item", "companion", "gem", "monster", "device"})
TOKEN_KINDS = frozenset(
    {"artifact", "major_secret", "minor_secret", "market", "special", "prisoner"}
)
ARRIVE_CODES = frozenset({"clank_each", "black_to_bag", "untracked"})
EFFECT_CODES = frozenset(
    {"rage", "ghost", "heal", "monkey_idol", "backpack", "coupon", "not_prisoner", "crowns", "kept"}
)
# What an edition's `unconfirmed` list may name: a setting (every game), `name.N` (a game
# of N players; starting_clank: with an N-th seat) or `name.party` (5-6 players, with the
# Adventuring Party). The set-up lists those that concern the game and labels them.
UNCONFIRMED_NAMES = frozenset(
    {
        "rage_track",
        "rage_start",
        "health",
        "starting_clank",
        "artifacts",
        "minor_secrets",
        "cloaks",
        "master_key",
        "chalice_vp",
        "backpack_vp",
        "crowns",
        "prisoners",
    }
)


UNTAGGED_SET = "untagged"
# A revealed card whose sticker is missing or will not read: the table only says whether it
# shows the dragon-attack symbol, which is all a refill needs to know.
UNTAGGED = {False: "Untagged card", True: "Untagged card (dragon)"}


class CatalogError(ValueError):
    """A catalog or edition file that does not follow the schema."""


@dataclass(frozen=True)
class Card:
    edition: str
    name: str
    set: str
    count: int
    type: str
    skill_cost: int | None
    sword_cost: int | None
    vp: int
    vp_rule: VPRule | None
    dragon_attack: bool
    danger: bool
    arrive: tuple[str, int] | None  # (code, amount)
    arrive_text: str
    deep: bool
    verified: bool
    notes: str

    @property
    def in_dungeon_deck(self) -> bool:
        return self.set in ("dungeon", "promo", UNTAGGED_SET)


@dataclass(frozen=True)
class Token:
    edition: str
    kind: str
    name: str
    count: int
    vp: int
    vp_rule: VPRule | None
    gold: int
    cost: int | None
    effects: tuple[tuple[str, str], ...]  # (code, argument)
    verified: bool
    party: bool
    notes: str

    def effect(self, code: str) -> str | None:
        for c, arg in self.effects:
            if c == code:
                return arg
        return None

    def has(self, code: str) -> bool:
        return any(c == code for c, _ in self.effects)


@dataclass(frozen=True)
class EditionSettings:
    name: str
    title: str
    rage_track: tuple[int, ...]
    rage_start: dict[int, int]
    health: int
    starting_clank: tuple[int, ...]
    cubes_per_player: int
    black_cubes: int
    ghost_cubes: int
    row_size: int
    countdown: bool
    out_draw: int
    out_draw_two_players: int
    artifacts_removed: dict[int, int]
    empty_bag_ends_game: bool
    unconfirmed: tuple[str, ...]


@dataclass(frozen=True)
class Catalog:
    """Everything one edition's rules need to know about its components."""

    edition: EditionSettings
    cards: dict[str, Card]  # by lowercase name
    tokens: dict[tuple[str, str], Token]  # by (kind, lowercase name)

    def card(self, name: str) -> Card | None:
        return self.cards.get(name.strip().lower())

    def token(self, kind: str, name: str) -> Token | None:
        return self.tokens.get((kind, name.strip().lower()))

    def tokens_of(self, *kinds: str, party: bool = True) -> list[Token]:
        return [t for t in self.tokens.values() if t.kind in kinds and (party or not t.party)]


def _yn(value: str, where: str) -> bool:
    if value not in ("Y", "N"):
        raise CatalogError(f"{where}: expected Y or N, got {value!r}")
    return value == "Y"


def _int(value: str, where: str, *, empty: int | None = None) -> int | None:
    if value.strip() == "":
        if empty is None:
            raise CatalogError(f"{where}: a whole number is required")
        return empty
    try:
        return int(value)
    except ValueError:
        raise CatalogError(f"{where}: expected a whole number, got {value!r}") from None


def _opt_int(value: str, where: str) -> int | None:
    return None if value.strip() == "" else _int(value, where)


def _rule(value: str, where: str) -> VPRule | None:
    if not value.strip():
        return None
    try:
        return parse_vp_rule(value)
    except VPRuleError as e:
        raise CatalogError(f"{where}: {e}") from None


def _rows(path: Path, columns: list[str]) -> list[tuple[int, dict[str, str]]]:
    try:
        with path.open(newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            if reader.fieldnames != columns:
                raise CatalogError(
                    f"{path.name}: the header must be {','.join(columns)}; "
                    f"found {','.join(reader.fieldnames or [])}"
                )
            rows = []
            for row in reader:
                if None in row or any(v is None for v in row.values()):
                    raise CatalogError(
                        f"{path.name} line {reader.line_num}: wrong number of fields"
                    )
                rows.append((reader.line_num, row))
            return rows
    except FileNotFoundError:
        raise CatalogError(f"{path}: file not found") from None


def _card(line: int, r: dict[str, str]) -> Card:
    w = f"cards.csv line {line}"
    if r["edition"] not in EDITIONS:
        raise CatalogError(f"{w}: unknown edition {r['edition']!r}")
    if not r["name"].strip():
        raise CatalogError(f"{w}: a card needs a name")
    if r["set"] not in CARD_SETS:
        raise CatalogError(f"{w}: set must be one of {', '.join(sorted(CARD_SETS))}")
    if r["type"] not in CARD_TYPES:
        raise CatalogError(f"{w}: type must be one of {', '.join(sorted(CARD_TYPES))}")
    count = _int(r["count"], f"{w} count")
    if count is None or count < 1:
        raise CatalogError(f"{w}: count must be at least 1")
    arrive: tuple[str, int] | None = None
    if r["arrive"].strip():
        code, _, amount = r["arrive"].strip().partition(":")
        if code not in ARRIVE_CODES:
            raise CatalogError(f"{w}: unknown arrive code {code!r}")
        n = 0 if code == "untracked" else _int(amount, f"{w} arrive amount")
        arrive = (code, n or 0)
    return Card(
        edition=r["edition"],
        name=r["name"].strip(),
        set=r["set"],
        count=count,
        type=r["type"],
        skill_cost=_opt_int(r["skill_cost"], f"{w} skill_cost"),
        sword_cost=_opt_int(r["sword_cost"], f"{w} sword_cost"),
        vp=_int(r["vp"], f"{w} vp", empty=0) or 0,
        vp_rule=_rule(r["vp_rule"], w),
        dragon_attack=_yn(r["dragon_attack"], f"{w} dragon_attack"),
        danger=_yn(r["danger"], f"{w} danger"),
        arrive=arrive,
        arrive_text=r["arrive_text"].strip(),
        deep=_yn(r["deep"], f"{w} deep"),
        verified=_yn(r["verified"], f"{w} verified"),
        notes=r["notes"].strip(),
    )


def _token(line: int, r: dict[str, str]) -> Token:
    w = f"tokens.csv line {line}"
    if r["edition"] not in EDITIONS:
        raise CatalogError(f"{w}: unknown edition {r['edition']!r}")
    if r["kind"] not in TOKEN_KINDS:
        raise CatalogError(f"{w}: kind must be one of {', '.join(sorted(TOKEN_KINDS))}")
    name = r["name"].strip().lower()
    if not name:
        raise CatalogError(f"{w}: a token needs a name")
    count = _int(r["count"], f"{w} count")
    if count is None or count < 1:
        raise CatalogError(f"{w}: count must be at least 1")
    effects: list[tuple[str, str]] = []
    for part in filter(None, (p.strip() for p in r["effect"].split(";"))):
        code, _, arg = part.partition(":")
        if code not in EFFECT_CODES:
            raise CatalogError(f"{w}: unknown effect code {code!r}")
        if code in ("rage", "ghost", "heal", "coupon"):
            _int(arg, f"{w} effect {code}")
        if code == "crowns":
            values = [_int(v, f"{w} crowns") for v in arg.split(",")]
            if len(values) != count:
                raise CatalogError(f"{w}: crowns lists {len(values)} values for {count} crowns")
        effects.append((code, arg.strip()))
    if r["kind"] == "artifact":
        _int(name, f"{w} artifact value")
    return Token(
        edition=r["edition"],
        kind=r["kind"],
        name=name,
        count=count,
        vp=_int(r["vp"], f"{w} vp", empty=0) or 0,
        vp_rule=_rule(r["vp_rule"], w),
        gold=_int(r["gold"], f"{w} gold", empty=0) or 0,
        cost=_opt_int(r["cost"], f"{w} cost"),
        effects=tuple(effects),
        verified=_yn(r["verified"], f"{w} verified"),
        party=r["notes"].strip().lower().startswith("party:"),
        notes=r["notes"].strip(),
    )


def _edition(name: str, raw: dict[str, Any]) -> EditionSettings:
    w = f"editions.toml [{name}]"
    try:
        track = tuple(int(v) for v in raw["rage_track"])
        settings = EditionSettings(
            name=name,
            title=str(raw["title"]),
            rage_track=track,
            rage_start={int(k): int(v) for k, v in raw["rage_start"].items()},
            health=int(raw["health"]),
            starting_clank=tuple(int(v) for v in raw["starting_clank"]),
            cubes_per_player=int(raw["cubes_per_player"]),
            black_cubes=int(raw["black_cubes"]),
            ghost_cubes=int(raw["ghost_cubes"]),
            row_size=int(raw["row_size"]),
            countdown=bool(raw["countdown"]),
            out_draw=int(raw["out_draw"]),
            out_draw_two_players=int(raw["out_draw_two_players"]),
            artifacts_removed={int(k): int(v) for k, v in raw["artifacts_removed"].items()},
            empty_bag_ends_game=bool(raw["empty_bag_ends_game"]),
            unconfirmed=tuple(str(v) for v in raw["unconfirmed"]),
        )
    except KeyError as e:
        raise CatalogError(f"{w}: missing setting {e.args[0]}") from None
    except (TypeError, ValueError, AttributeError) as e:
        raise CatalogError(f"{w}: {e}") from None
    if not track or any(v < 0 for v in track):
        raise CatalogError(f"{w}: rage_track needs at least one space, none negative")
    if any(not 1 <= s <= len(track) for s in settings.rage_start.values()):
        raise CatalogError(f"{w}: a rage_start space lies outside the track")
    if settings.health < 1 or len(settings.starting_clank) < 6:
        raise CatalogError(f"{w}: health must be positive and starting_clank list 6 seats")
    for key in settings.unconfirmed:
        base, dot, scope = key.partition(".")
        if base not in UNCONFIRMED_NAMES or (
            dot and scope != "party" and scope not in ("2", "3", "4", "5", "6")
        ):
            raise CatalogError(
                f"{w}: unconfirmed {key!r} is not one of {', '.join(sorted(UNCONFIRMED_NAMES))}"
                " (alone, .2 to .6 or .party)"
            )
    return settings


def catalog_dir() -> Path:
    override = os.environ.get("CLANK_CATALOG_DIR")
    return Path(override) if override else DATA_DIR


@cache
def _load_all(folder: Path) -> dict[str, Catalog]:
    try:
        raw = tomllib.loads((folder / "editions.toml").read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CatalogError(f"{folder / 'editions.toml'}: file not found") from None
    except tomllib.TOMLDecodeError as e:
        raise CatalogError(f"editions.toml: {e}") from None
    cards: dict[str, dict[str, Card]] = {e: {} for e in EDITIONS}
    for line, row in _rows(folder / "cards.csv", CARD_COLUMNS):
        card = _card(line, row)
        key = card.name.lower()
        if key in cards[card.edition]:
            raise CatalogError(f"cards.csv line {line}: {card.name!r} is listed twice")
        cards[card.edition][key] = card
    for edition, by_name in cards.items():
        for dragon, name in UNTAGGED.items():
            by_name[name.lower()] = _untagged(edition, name, dragon)
    tokens: dict[str, dict[tuple[str, str], Token]] = {e: {} for e in EDITIONS}
    for line, row in _rows(folder / "tokens.csv", TOKEN_COLUMNS):
        token = _token(line, row)
        token_key = (token.kind, token.name)
        if token_key in tokens[token.edition]:
            # a party row adds copies of a value the base box has (artifacts 10-25)
            old = tokens[token.edition][token_key]
            if token.party == old.party:
                raise CatalogError(f"tokens.csv line {line}: {token.kind} {token.name!r} twice")
            token_key = (token.kind, token.name + " (party)")
        tokens[token.edition][token_key] = token
    catalogs = {}
    for name in EDITIONS:
        if name not in raw:
            raise CatalogError(f"editions.toml: no [{name}] table")
        catalog = Catalog(_edition(name, raw[name]), cards[name], tokens[name])
        _check_references(catalog)
        catalogs[name] = catalog
    return catalogs


def _untagged(edition: str, name: str, dragon: bool) -> Card:
    return Card(
        edition=edition, name=name, set=UNTAGGED_SET, count=0, type="unknown",
        skill_cost=None, sword_cost=None, vp=0, vp_rule=None, dragon_attack=dragon,
        danger=False, arrive=None, arrive_text="", deep=False, verified=True,
        notes="stands for a revealed card without a readable tag",
    )  # fmt: skip


def _check_references(catalog: Catalog) -> None:
    """Every card named by a VP rule exists in the same edition."""
    rules = [(c.name, c.vp_rule) for c in catalog.cards.values()]
    rules += [(t.name, t.vp_rule) for t in catalog.tokens.values()]
    for owner, rule in rules:
        for counter in rule.counters if rule else ():
            if counter.startswith("card:") and catalog.card(counter[5:]) is None:
                raise CatalogError(
                    f"{catalog.edition.name}: {owner!r} counts unknown card {counter[5:]!r}"
                )


def load_catalog(edition: str) -> Catalog:
    """The catalog of one edition (``clank`` or ``catacombs``); raises CatalogError."""
    if edition not in EDITIONS:
        raise CatalogError(f"unknown edition {edition!r} (expected clank or catacombs)")
    return _load_all(catalog_dir())[edition]
