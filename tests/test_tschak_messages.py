"""Tschak! refusals in the table's language: every TschakError's template is a literal
marked with ``N_`` (so that Babel extraction finds it), its params are codes and values,
never English words, and ``_(err.template).format(**err.params)`` gives the sentence.

The rules stay pure: they import the marker module (standard library only), never the
translations (tests/test_boundaries.py)."""

from __future__ import annotations

import ast
import copy
import functools
import importlib
import random
import re
import string
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from companion.kinds.tschak.rules import TschakError, TschakGame, apply_corrections, load_catalog
from companion.kinds.tschak.rules.cards import (
    Catalog,
    CatalogRow,
    Hero,
    _read_rows,
    parse_hero,
    parse_tower_card,
)
from tests.test_tschak_support import H1, H2, H3, H4, plan, play_tower, random_game

PACKAGE = Path(__file__).resolve().parent.parent / "companion" / "kinds" / "tschak" / "rules"
PLAYERS = {2: ["ann", "bob"], 3: ["ann", "bob", "cat"], 4: ["ann", "bob", "cat", "dan"]}
# English filler that must never reach a message through its params (a param is a code,
# a card, a name, a number or a list of those)
ENGLISH = {"and", "or", "the", "a", "is", "not", "no", "stronger", "weaker"}


@functools.cache
def extracted() -> frozenset[str]:
    """The msgids (without context) Babel extraction finds in the project, the way the
    catalogs are brought up to date (read only: nothing is written)."""
    for name in ("companion.i18n_tools", "companion.i18n"):  # where the extraction lives
        module = importlib.import_module(name)
        if hasattr(module, "extract"):
            return frozenset(msgid for context, msgid in module.extract() if context is None)
    raise AssertionError("no extract function in companion.i18n_tools or companion.i18n")


def package_templates() -> set[str]:
    """Every template the package marks (the N_ literals of companion/kinds/tschak/rules)."""
    found = set()
    for path in sorted(PACKAGE.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "N_":
                found.add(node.args[0].value)
    return found


def _marked(node: ast.expr) -> bool:
    if isinstance(node, ast.IfExp):
        return _marked(node.body) and _marked(node.orelse)
    return (
        isinstance(node, ast.Call)
        and getattr(node.func, "id", None) == "N_"
        and len(node.args) == 1
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    )


def test_every_refusal_in_the_package_has_a_marked_literal_template():
    calls = []
    for path in sorted(PACKAGE.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "TschakError":
                calls.append(node)
                where = f"{path.name}:{node.lineno}"
                assert len(node.args) >= 2 and _marked(node.args[1]), where
                params = {k.arg for k in node.keywords}
                for template in _literals(node.args[1]):
                    fields = {f for _, f, _, _ in string.Formatter().parse(template) if f}
                    assert {re.split(r"[!:.\[]", f)[0] for f in fields} <= params, where
    assert len(calls) >= 80  # the scan sees the package


def _literals(node: ast.expr) -> list[str]:
    if isinstance(node, ast.IfExp):
        return _literals(node.body) + _literals(node.orelse)
    assert isinstance(node, ast.Call)
    value = node.args[0]
    assert isinstance(value, ast.Constant)
    return [value.value]


def test_extraction_finds_every_template_of_the_package():
    assert package_templates() <= extracted()


# ------------------------------------------------------------------ refusals, collected
class Refusals:
    """Runs hostile calls and keeps every TschakError they raise."""

    def __init__(self) -> None:
        self.errors: list[TschakError] = []

    def expect(self, call: Callable[[], Any]) -> None:
        with pytest.raises(TschakError) as info:
            call()
        self.errors.append(info.value)

    def attempt(self, game: TschakGame, action: Any) -> None:
        before = game.snapshot()
        try:
            game.apply(copy.deepcopy(action))
        except TschakError as e:
            self.errors.append(e)
            assert game.snapshot() == before
        else:
            game.apply({"do": "undo"})
            assert game.snapshot() == before


def new_games(r: Refusals) -> None:
    new = TschakGame.from_options
    base = {"edition": "tschak", "players": ["ann", "bob"]}
    for options in (
        "tschak",
        {**base, "colour": "red"},
        {**base, "edition": "clank"},
        {"edition": "tschak"},
        {**base, "players": ["ann"]},
        {**base, "players": ["ann", " bob"]},
        {**base, "players": ["ann", "ann"]},
        {**base, "settings": "fast"},
        {**base, "settings": {"speed": 1}},
        {**base, "settings": {"tie_values": "maybe"}},
        {**base, "settings": {"check_cards": 1}},
    ):
        r.expect(lambda o=options: new(o))
    for fix in (
        "all",
        {"*": False},
        {"mage_99": True},
        {"mage_01": "W3z"},
        {"monster_1": "golem"},
        {"mage_01": 5},
        {"mage_01": {"confirmed": "yes"}},
        {"mage_01": {"value": "big"}},
        {"mage_01": {"skulls": 2}},
        {"mage_01": {"colour": "elf"}},
        {"mage_01": {"weapon": "axe"}},
        {"artifact_1": {"value": 3}},
        {"warrior_01": {"value": "?"}},
        {"mage_01": {"value": 100}},
        {"mage_09": {"weapon": "staff"}},
        {"monster_1": {"kind": "golem"}},
        {"monster_1": {"skulls": -1}},
        {"monster_1": {"skulls": 100}},
        {"monster_1": {"gold": 2}},
        {"chest_1": {"gold": 0}},
        {"ring_1": {"gold": 2}},
        {"mage_01": "W3"},  # a thirteenth warrior: not the box
    ):
        r.expect(lambda f=fix: new({**base, "catalog": f}))


def catalogs(r: Refusals) -> None:
    header = "id,group,kind,value,weapon,skulls,gold,confirmed,notes\n"
    for text in (
        "id,group,kind\nmage_01,adventurer,mage\n",
        header + ",adventurer,mage,2,staff,,,N,\n",
        header + "mage_01,adventurer,mage,two,staff,,,N,\n",
        header + "mage_01,hero,mage,2,staff,,,N,\n",
        header + "monster_1,tower,monster,,,²,,N,\n",
    ):
        r.expect(lambda t=text: _read_rows(t))
    row = CatalogRow("mage_01", Hero("mage", 2, "staff"))
    r.expect(lambda: Catalog([row, row]))
    catalog = load_catalog()
    r.expect(lambda: catalog.hero("monster_1"))
    r.expect(lambda: catalog.tower_card("mage_01"))
    r.expect(lambda: apply_corrections(catalog, {"monster_1": "M5s"}))
    for text in (5, "Q", "D3", "M0", "W100"):
        r.expect(lambda t=text: parse_hero(t))
    for text in (5, "golem", "monster:0", "chest:100"):
        r.expect(lambda t=text: parse_tower_card(t))


TOWER = {
    "do": "tower",
    "monsters": ["monster:1", "troglodyte", "troglodyte"],
    "treasures": ["elixir", "ring", "ring"],
}
TOWER2 = {
    "do": "tower",
    "monsters": ["monster:3", "monster:4", "troglodyte"],
    "treasures": ["chest:4", "chest:5", "ring"],
}
TOWER3 = {
    "do": "tower",
    "monsters": ["monster:5", "troglodyte", "troglodyte"],
    "treasures": ["cursed:2", "cursed:3", "war_trophy"],
}


def one_tower_game(r: Refusals) -> None:
    """Refusals around a tower of a three-player game, each phase in turn."""
    game = TschakGame(["ann", "bob", "cat"])
    for action in (
        "floor",
        {"do": "jump"},
        {"do": 5},
        {"do": "undo"},
        {"do": "undo", "now": True},
        {"do": "floor", "teams": {}},
        {"do": "trophies"},
        {"do": "tower"},
        {**TOWER, "monsters": ["monster:1"]},
        {**TOWER, "monsters": ["ring", "troglodyte", "troglodyte"]},
        {**TOWER, "treasures": ["monster:2", "ring", "ring"]},
        {**TOWER, "monsters": ["monster:9", "troglodyte", "troglodyte"]},
        {**TOWER, "treasures": ["elixir", "elixir", "ring"]},
    ):
        r.attempt(game, action)
    game.apply(TOWER)
    teams = {"ann": ["M5s", "W6a", "D4a"], "bob": ["M4", "W4", "D3u"], "cat": ["M2", "W1", "D1u"]}
    for action in (
        TOWER,
        {"do": "trophies"},
        {"do": "floor", "teams": []},
        {"do": "floor", "teams": {**teams, "zed": teams["ann"]}},
        {"do": "floor", "teams": {"ann": teams["ann"], "bob": teams["bob"]}},
        {"do": "floor", "teams": {**teams, "ann": "M5s W6a D4a"}},
        {"do": "floor", "teams": {**teams, "ann": ["M5s", "W6a"]}},
        {"do": "floor", "teams": {**teams, "ann": ["M5s", "W6a", "D4a", "A"]}},
        {"do": "floor", "teams": {**teams, "ann": ["M5s", "M3", "D4a"]}},
        {"do": "floor", "teams": {**teams, "ann": ["M9s", "W6a", "D4a"]}},
        {"do": "floor", "teams": {**teams, "bob": ["M5s", "W5", "D3u"]}},
        {"do": "floor", "teams": teams, "misplays": "ann"},
        {"do": "floor", "teams": teams, "misplays": [{"name": "ann"}]},
        {"do": "floor", "teams": teams, "tiebreak": "ann"},
        {"do": "floor", "teams": teams, "tiebreak": ["ann", "ann"]},
        {"do": "elixir", "player": "ann", "discard": None},
        {"do": "elixir", "player": "zed", "discard": None},
    ):
        r.attempt(game, action)
    game.apply({"do": "floor", "teams": teams})  # ann: the elixir; cat: the monster
    for discard in ("troglodyte", "ring"):
        r.attempt(game, {"do": "elixir", "player": "ann", "discard": discard})
    r.attempt(game, {"do": "elixir", "player": "cat", "discard": None})
    game.apply(
        {
            "do": "floor",
            "teams": {
                "ann": ["M5", "W6", "D4x"],
                "bob": ["M3s", "W5", "D3a"],
                "cat": ["M2s", "W1a", "D1a"],
            },
        }
    )
    game.apply(
        {
            "do": "floor",
            "teams": {
                "ann": ["A", "W5a", "D4u"],  # no mage: the last card is one
                "bob": ["M3", "W4a", "A"],  # no dwarf
                "cat": ["Mc", "W2a", "D1x"],  # the artifact kept
            },
        }
    )
    r.attempt(game, {"do": "floor", "teams": teams})
    r.attempt(game, TOWER)
    for last in (
        "D2a",
        {"ann": "M4s", "bob": "D3x", "cat": "M4"},  # cat: a fourth mage
        {"ann": "M4s", "bob": "D3x", "cat": None},
        {"ann": "M4s", "bob": "D3x"},
    ):
        r.attempt(game, {"do": "trophies", "last": last})
    game.apply({"do": "trophies", "last": {"ann": "M4s", "bob": "D3x", "cat": "A"}})


def known_hands_and_fourth_card(r: Refusals) -> None:
    """Hands known after a tower (checked against them); the artifact as a fourth card."""
    game = TschakGame(["ann", "bob", "cat", "dan"])
    hands = {"ann": H1, "bob": H2, "cat": H3, "dan": H4}
    play_tower(
        game, {p: plan(h)[0] for p, h in hands.items()}, {p: plan(h)[1] for p, h in hands.items()}
    )
    game.apply(TOWER2)
    teams = {p: plan(h)[0][0] for p, h in hands.items()}
    r.attempt(game, {"do": "floor", "teams": teams})  # ann now holds dan's hand: no M5s

    fourth = TschakGame(["ann", "bob"], {"artifact_takes_slot": False, "check_cards": False})
    fourth.apply(TOWER)
    bob = ["M2", "W1", "D1u"]
    for ann in (["M5s", "W6a", "A"], ["M5s"], ["M5s", "W6a", "D4a", "A", "D3u"]):
        r.attempt(fourth, {"do": "floor", "teams": {"ann": ann, "bob": bob}})

    kept = TschakGame(["ann", "bob"], {"artifact_takes_slot": False})
    # seats 1 and 3 play, the boards hold the other hands; from the third tower on the
    # game knows every hand. Each hand plays its numbered heroes and keeps the artifact.
    for t, (tower, ann, bob) in enumerate([(TOWER, H1, H3), (TOWER2, H4, H2), (TOWER3, H3, H1)]):
        kept.apply(tower)
        for f in range(3):
            kept.apply({"do": "floor", "teams": {"ann": ann[f:9:3], "bob": bob[f:9:3]}})
        if t < 2:
            kept.apply({"do": "trophies", "last": {"ann": "A", "bob": "A"}})
    r.attempt(kept, {"do": "trophies", "last": {"ann": None, "bob": "A"}})


def ties_and_settings(r: Refusals) -> None:
    """Ties the chain cannot break (A9), the elixir's settings (A14), the end (T-R1)."""
    same = ["M3", "W3", "D3u"]
    game = TschakGame(["ann", "bob", "cat"], {"check_cards": False})
    game.apply(TOWER)
    for cat in (["M5s", "W6a", "D4a"], ["M2", "W1", "D1u"]):  # tied weakest, then strongest
        r.attempt(game, {"do": "floor", "teams": {"ann": same, "bob": same, "cat": cat}})
    two = TschakGame(["ann", "bob"], {"check_cards": False})
    two.apply(TOWER)
    for _ in range(3):
        two.apply({"do": "floor", "teams": {"ann": STRONG, "bob": WEAK}})
    r.attempt(two, {"do": "trophies", "last": {"ann": "W3", "bob": "W3"}})

    strict = TschakGame(
        ["ann", "bob"],
        {"elixir_optional": False, "elixir_troglodyte": False, "check_cards": False},
    )
    strict.apply(TOWER | {"monsters": ["monster:1", "monster:2", "troglodyte"]})
    strict.apply({"do": "floor", "teams": {"ann": WEAK, "bob": STRONG}})  # bob: the elixir
    r.attempt(strict, {"do": "elixir", "player": "bob", "discard": "monster:1"})  # none held
    strict.apply({"do": "floor", "teams": {"ann": STRONG, "bob": WEAK}})  # bob: monster:2
    r.attempt(strict, {"do": "elixir", "player": "bob", "discard": None})
    r.attempt(strict, {"do": "elixir", "player": "bob", "discard": "monster:1"})
    strict.apply({"do": "floor", "teams": {"ann": STRONG, "bob": WEAK}})  # bob: a troglodyte
    r.attempt(strict, {"do": "elixir", "player": "bob", "discard": "troglodyte"})

    over, _ = random_game(PLAYERS[2], random.Random(5))
    r.attempt(over, {"do": "trophies"})


STRONG, WEAK = ["M5s", "W6a", "D4a"], ["M2", "W1", "D1u"]


def random_games(r: Refusals) -> None:
    """Whole random games for 2, 3 and 4 players, with bad actions tried on the way."""
    rng = random.Random(2024)
    for n in (2, 3, 4):
        players = PLAYERS[n]
        _, actions = random_game(players, random.Random(n))
        game = TschakGame(players)
        for action in actions:
            for bad in hostile(action, players, rng):
                r.attempt(game, bad)
            game.apply(copy.deepcopy(action))
        assert game.game_over


def hostile(action: dict[str, Any], players: list[str], rng: random.Random) -> list[Any]:
    """Bad variants of a good action: a card changed, a player gone, a field unknown."""
    out: list[Any] = [{**action, "extra": 1}, {"do": "elixir", "player": "zed", "discard": None}]
    if action["do"] == "floor":
        p = rng.choice(players)
        team = list(action["teams"][p])
        team[rng.randrange(3)] = rng.choice(["M5s", "W6a", "D4a", "Mc", "A", "Q", "W9"])
        out.append({**action, "teams": {**action["teams"], p: team}})
        out.append({**action, "teams": {q: t for q, t in action["teams"].items() if q != p}})
    elif action["do"] == "trophies":
        p = rng.choice(players)
        out.append({**action, "last": {**action["last"], p: rng.choice(["M5s", "D1u", "A"])}})
    elif action["do"] == "tower":
        out.append({**action, "monsters": action["monsters"][::-1] + ["ring"]})
    return out


@functools.cache
def all_refusals() -> tuple[TschakError, ...]:
    r = Refusals()
    for step in (
        new_games,
        catalogs,
        one_tower_game,
        known_hands_and_fourth_card,
        ties_and_settings,
        random_games,
    ):
        step(r)
    return tuple(r.errors)


def test_every_refusal_has_an_extracted_template_its_params_fill():
    errors = all_refusals()
    known = extracted()
    for e in errors:
        assert e.template in known, (e.code, e.template)
        assert e.template.format(**e.params) == e.text  # what a screen does after _()
        assert str(e) in (e.text, f"{e.during}: {e.text}")


def card(text: str) -> bool:
    for parse in (parse_hero, parse_tower_card):
        try:
            parse(text)
            return True
        except TschakError:
            pass
    return False


def test_params_are_codes_and_values_never_english_words():
    for e in all_refusals():
        for name, value in e.params.items():
            for text in value if isinstance(value, list) else [value]:
                if not isinstance(text, str):
                    continue
                for piece in re.split(r",\s*", text):  # a list of cards, names or codes
                    if card(piece):  # "A" is the artifact
                        continue
                    words = set(re.findall(r"(?<![a-z0-9_])[a-z]+(?![a-z0-9_])", piece.lower()))
                    assert not words & ENGLISH, (e.code, name, text)


def test_the_hostile_calls_reach_every_template_of_the_package():
    """So the two tests above check every message there is, not a few."""
    reached = {e.template for e in all_refusals()}
    assert package_templates() - reached == set()
