"""`clank-companion replay` plays Tschak! table scripts: the state and `--json` as the
table-script specification says, the same error contract (exit 2, `line N: reason`,
`--keep-going`), the shipped examples to their end.

The examples are checked against TSCHAK_SPEC.md computed here, apart from the rules
package: the hands dealt and passed (T-S4, T-P2..T-P4, T-R8), every team's strength
(T-V1..T-V4), who takes each floor's cards (T-F1..T-F3), the trophies (T-G1..T-G7) and
the final scores and winners (T-E1..T-E10, T-W1)."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from companion.cli import main
from companion.script import replay

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
NEW = {"new": {"edition": "tschak", "players": ["anna", "boris", "vera"]}}
TOWER = {
    "do": "tower",
    "monsters": ["monster:3", "troglodyte", "monster:1"],
    "treasures": ["chest:4", "ring", "cursed:2"],
}
FLOOR = {
    "do": "floor",
    "teams": {
        "anna": ["M3s", "W5", "D2x"],
        "boris": ["Mc", "W6a", "A"],
        "vera": ["M2", "W1", "D1u"],
    },
}


def write(tmp_path: Path, *lines: object) -> Path:
    path = tmp_path / "tschak.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    return path


def test_the_specifications_floor_as_json(tmp_path, capsys):
    assert main(["replay", str(write(tmp_path, NEW, TOWER, FLOOR)), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["edition"] == "tschak" and out["game_over"] is False
    assert (out["tower"], out["floor"]) == (1, 2)
    (floor,) = out["floors"]
    assert floor["strength"] == {"anna": 10, "boris": 12, "vera": 4}  # the chameleon copies
    assert floor["treasure"] == {"card": "chest:4", "to": "boris"}
    assert floor["monster"] == {"card": "monster:3", "to": "vera"}
    assert floor["why"] == "boris 12 strongest; vera 4 weakest"
    assert out["players"]["boris"]["treasures"] == ["chest:4"]
    assert out["players"]["vera"]["monsters"] == ["monster:3"]
    assert out["ranking"] is None and out["winners"] is None and out["errors"] == []
    assert "odds" not in out and "draws" not in out  # no dragon bag in this box


def test_a_bad_line_is_one_line_and_exit_2_and_keep_going_lists_it(tmp_path, capsys):
    illegal = {"do": "floor", "teams": {"anna": ["M3s", "M5", "D2x"]}}
    path = write(tmp_path, NEW, {"do": "floor", "teams": {}}, TOWER, illegal, FLOOR)
    assert main(["replay", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("line 2: floor: ") and "\n" not in err
    assert main(["replay", str(path), "--json", "--keep-going"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [e["line"] for e in out["errors"]] == [2, 4]
    assert len(out["floors"]) == 1  # the refused lines changed nothing
    # a player who is not seated, an unknown option: refused the same way
    bad_new = {"new": {"edition": "tschak", "players": ["anna"], "colour": "red"}}
    assert main(["replay", str(write(tmp_path, bad_new))]) == 2
    assert capsys.readouterr().err.startswith("line 1: new: ")


@pytest.mark.parametrize(
    "name", ["tschak-2-players.jsonl", "tschak-3-players.jsonl", "tschak-4-players.jsonl"]
)
def test_the_example_game_plays_four_towers_to_a_winner(name, capsys):
    result = replay(EXAMPLES / name)
    out = result.output()
    assert out["game_over"] and out["errors"] == []
    assert len(out["floors"]) == 12  # four towers of three floors
    assert out["winners"] and out["ranking"][0]["player"] in out["winners"]
    assert all(isinstance(p["score"], int) for p in out["players"].values())
    scores = [r["score"] for r in out["ranking"]]
    assert scores == sorted(scores, reverse=True)
    assert main(["replay", str(EXAMPLES / name)]) == 0
    text = capsys.readouterr().out
    assert text.startswith("Tschak! - GAME OVER") and "ranking: 1. " in text


# ------------------------------------------------------------------ the three examples
# The spec, written out here on its own (no companion.kinds.tschak.rules): the H1 deck of
# section 15.
DECK = Counter(
    [f"M{v}{s}" for v in range(2, 6) for s in ("s", "")]
    + ["Mc"] * 4
    + [f"W{v}{a}" for v in range(1, 7) for a in ("a", "")]
    + [f"D{v}{w}" for v in range(1, 5) for w in ("a", "x", "u")]
    + ["A"] * 4
)
BOX = {  # the 28 tower cards (T-C6, T-C7)
    "monster": 8,
    "troglodyte": 6,
    "chest": 4,
    "cursed": 2,
    "war_trophy": 1,
    "ring": 6,
    "elixir": 1,
}
CLASS = {"M": 2, "W": 1, "D": 0}  # T-G5: mage > warrior > dwarf at equal strength
WEAPON = {"s": 1, "a": 1, "": 0, "x": 1, "u": 0}  # T-T2, T-T5 (dwarf axe is 2, below)


def hero(card: str) -> tuple[str, int | None, int]:
    """(letter, printed number or None, weapon rank) of an adventurer card's notation."""
    m = re.fullmatch(r"([MWD])(\d+)([saxu]?)|(Mc|A)", card)
    assert m, card
    if m.group(4):
        return m.group(4)[0], None, 0
    letter, number, weapon = m.group(1), int(m.group(2)), m.group(3)
    return letter, number, 2 if (letter, weapon) == ("D", "a") else WEAPON[weapon]


def strengths(teams: dict[str, list[str]]) -> dict[str, int]:
    """T-V1..T-V4: the sum of the numbers; a chameleon copies the strongest printed mage
    of the opposing teams on the floor (0 without one); the artifact doubles the weakest."""
    out = {}
    for player, team in teams.items():
        mages = [
            hero(c)[1]
            for other, cards in teams.items()
            if other != player
            for c in cards
            if c.startswith("M") and c != "Mc"
        ]
        values = [
            (max(mages, default=0) if c == "Mc" else hero(c)[1] or 0) for c in team if c != "A"
        ]
        out[player] = sum(values) + (min(values) if "A" in team else 0)
    return out


def trophy_gold(last: dict[str, str], players: int) -> dict[str, int]:
    """T-G1..T-G7 with the defaults: chameleons and artifacts get nothing; the others, by
    number, then mage > warrior > dwarf, then weapon, take 3, 2, 1 (4 players), 3, 2
    (3 players: the weakest gets none) or the single 2 (2 players)."""
    golds = {4: [3, 2, 1], 3: [3, 2], 2: [2]}[players]
    ranked = sorted(
        (p for p, c in last.items() if c not in ("Mc", "A")),
        key=lambda p: (hero(last[p])[1], CLASS[hero(last[p])[0]], hero(last[p])[2]),
        reverse=True,
    )
    gold = dict.fromkeys(last, 0)
    for p, g in zip(ranked, golds, strict=False):
        gold[p] = g
    return gold


def tower_card_kind(card: str) -> tuple[str, int]:
    kind, _, number = card.partition(":")
    return kind, int(number or 0)


def spec_score(gold: int, monsters: list[str], treasures: list[str], players: int) -> int:
    """T-E10: gold + chests - cursed skulls + rings^2 + war trophy * k * (M + T)
    - monster skulls - T^2, k = 2 (1 with two players)."""
    parsed = [tower_card_kind(c) for c in monsters + treasures]
    count = Counter(kind for kind, _ in parsed)
    k = 1 if players == 2 else 2
    return (
        gold
        + sum(n for kind, n in parsed if kind == "chest")
        - sum(n for kind, n in parsed if kind == "cursed")
        + count["ring"] ** 2
        + count["war_trophy"] * k * (count["monster"] + count["troglodyte"])
        - sum(n for kind, n in parsed if kind == "monster")
        - count["troglodyte"] ** 2
    )


def final_score(gold: int, monsters: list[str], treasures: list[str], players: int, choice):
    """T-E6: the elixir discards the monster its owner named, else the best choice
    (keeping them all counts as a choice: the elixir is optional)."""
    if "elixir" not in treasures:
        return spec_score(gold, monsters, treasures, players)
    options = [None, *set(monsters)] if choice == "best" else [choice]
    kept = {o: [m for i, m in enumerate(monsters) if i != _index(monsters, o)] for o in options}
    return max(spec_score(gold, kept[o], treasures, players) for o in options)


def _index(monsters: list[str], card: str | None) -> int:
    return -1 if card is None else monsters.index(card)


def example(name: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    lines = [json.loads(line) for line in (EXAMPLES / name).read_text("utf-8").splitlines()]
    out = replay(EXAMPLES / name).output()
    return lines, out


@pytest.mark.parametrize(
    ("name", "players"),
    [
        ("tschak-2-players.jsonl", ["lena", "max"]),
        ("tschak-3-players.jsonl", ["anna", "boris", "vera"]),
        ("tschak-4-players.jsonl", ["ada", "ben", "cleo", "dima"]),
    ],
)
def test_each_example_is_a_whole_game_of_the_spec(name, players):
    lines, out = example(name)
    assert lines[0] == {"new": {"edition": "tschak", "players": players}}
    assert out["game_over"] and out["errors"] == [] and out["next"] is None
    n = len(players)
    assert [s["player"] for s in out["seats"]] == (
        players if n == 4 else [*players, None] if n == 3 else [players[0], None, players[1], None]
    )  # T-P2..T-P4: boards on the empty seats, opposite each other with two players

    # the hands: every tower each player plays a 10-card hand, 3 + 3 + 3 + 1 (T-S4);
    # hand h starts at seat h and moves one seat left per tower (T-R8), boards included:
    # every hand the players see over the four towers is the same hand, and the four
    # hands are the whole deck
    floors = [line for line in lines if line.get("do") == "floor"]
    trophies = [line for line in lines if line.get("do") == "trophies"]
    assert len(floors) == 12 and len(trophies) == 4
    seats = [s["player"] for s in out["seats"]]
    hands: dict[int, Counter[str]] = {}
    for t in range(4):
        for seat, p in enumerate(seats):
            if p is None:
                continue
            played = Counter(c for f in floors[3 * t : 3 * t + 3] for c in f["teams"][p])
            played[trophies[t]["last"][p]] += 1
            assert Counter(hero(c)[0] for c in played.elements()) == {
                "M": 3,
                "W": 3,
                "D": 3,
                "A": 1,
            }
            h = (seat - t) % 4
            assert hands.setdefault(h, played) == played, (p, t + 1)
    assert len(hands) == 4 and sum(hands.values(), Counter()) == DECK

    # the tower cards: three monsters and three treasures a tower, never more than the box
    towers = [line for line in lines if line.get("do") == "tower"]
    assert len(towers) == 4
    used = Counter(tower_card_kind(c)[0] for t in towers for c in t["monsters"] + t["treasures"])
    assert all(used[kind] <= most for kind, most in BOX.items()) and sum(used.values()) == 24

    # every floor: the strengths, the treasure to a strongest team, the monster to a
    # weakest one (ties: the chain, checked in test_tschak_rules)
    for line, result in zip(floors, out["floors"], strict=True):
        strength = strengths(line["teams"])
        assert result["strength"] == strength
        assert strength[result["treasure"]["to"]] == max(strength.values())
        assert strength[result["monster"]["to"]] == min(strength.values())
        assert result["treasure"]["to"] != result["monster"]["to"]
    holdings = {p: ([], []) for p in players}
    for result in out["floors"]:
        holdings[result["monster"]["to"]][0].append(result["monster"]["card"])
        holdings[result["treasure"]["to"]][1].append(result["treasure"]["card"])

    # the trophies, then the final scores and the winners
    gold = dict.fromkeys(players, 0)
    for line, result in zip(trophies, out["trophies"], strict=True):
        assert result["gold"] == trophy_gold(line["last"], n)
        for p in players:
            gold[p] += result["gold"][p]
    elixir = {line["player"]: line["discard"] for line in lines if line.get("do") == "elixir"}
    score = {}
    for p in players:
        mine = out["players"][p]
        assert (mine["gold"], mine["monsters"], mine["treasures"]) == (gold[p], *holdings[p])
        score[p] = final_score(gold[p], *holdings[p], n, elixir.get(p, "best"))
        assert mine["score"] == score[p], p
    best = max(score.values())
    fewest = min(len(holdings[p][0]) for p in players if score[p] == best)
    assert out["winners"] == [
        p for p in players if score[p] == best and len(holdings[p][0]) == fewest
    ]
    assert [r["score"] for r in out["ranking"]] == sorted(score.values(), reverse=True)


def test_the_two_player_example_by_hand():
    """lena: 6 gold, chest 3, cursed 3, 3 rings (9), war trophy at 1 per monster with two
    players (3 monsters + 3 troglodytes: 6), monsters 3 + 2 + 5, 3 troglodytes (-9):
    6 + 3 - 3 + 9 + 6 - 10 - 9 = 2. max: 2 gold, chests 5 + 2, cursed 2, 2 rings (4),
    monsters 2 + 4 + 3 + 4 of which the elixir discards a 4, 2 troglodytes (-4):
    2 + 7 - 2 + 4 - 9 - 4 = -2."""
    lines, out = example("tschak-2-players.jsonl")
    assert {p: v["score"] for p, v in out["players"].items()} == {"lena": 2, "max": -2}
    assert out["winners"] == ["lena"]
    assert out["players"]["lena"]["score_detail"]["war_trophy"] == 6
    assert out["players"]["max"]["score_detail"]["elixir"] == {
        "discard": "monster:4",
        "by": "player",
    }
    assert lines[-1] == {"do": "elixir", "player": "max", "discard": "monster:4"}
    assert sum(t["gold"]["lena"] + t["gold"]["max"] for t in out["trophies"]) == 4 * 2  # T-G3


def test_the_three_player_example_by_hand():
    """vera holds two rings and scores 0, rightly: 7 gold + chest 5 - cursed 2 + 2 rings
    squared (4) - monsters 4 + 1 + 3 + 2 - 2 troglodytes squared (4) = 0 (T-E2, T-E3,
    T-E5, T-E7, T-E8). anna: 8 gold + chest 2 + 3 rings (9) - 2 of her 3 troglodytes
    after the elixir (4) = 15."""
    _, out = example("tschak-3-players.jsonl")
    vera = out["players"]["vera"]["score_detail"]
    assert vera["rings"] == 4 and vera["counts"]["rings"] == 2
    assert (vera["gold"], vera["chests"], vera["cursed_chests"]) == (7, 5, -2)
    assert (vera["monsters"], vera["troglodytes"], vera["total"]) == (-10, -4, 0)
    assert {p: v["score"] for p, v in out["players"].items()} == {"anna": 15, "boris": 3, "vera": 0}
    assert out["winners"] == ["anna"]
    assert sum(sum(t["gold"].values()) for t in out["trophies"]) == 4 * (3 + 2)  # A10: 3-2


def test_the_four_player_example_by_hand():
    """cleo wins with 7: 7 gold + 1 ring + the war trophy at 2 per monster (2 monsters
    and a troglodyte: 6) - monsters 4 + 2 - 1 troglodyte = 7. ada and dima share third
    place: both 4 with three monsters received (T-W1)."""
    _, out = example("tschak-4-players.jsonl")
    scores = {p: v["score"] for p, v in out["players"].items()}
    assert scores == {"ada": 4, "ben": 6, "cleo": 7, "dima": 4}
    assert out["winners"] == ["cleo"]
    assert [(r["player"], r["place"]) for r in out["ranking"]] == [
        ("cleo", 1),
        ("ben", 2),
        ("ada", 3),
        ("dima", 3),
    ]
    assert out["players"]["cleo"]["score_detail"]["war_trophy"] == 6
    assert out["players"]["ada"]["score_detail"]["elixir"] == {
        "discard": "troglodyte",
        "by": "player",
    }
    assert sum(sum(t["gold"].values()) for t in out["trophies"]) == 24  # every coin (T-C3)
