"""`clank-companion replay`: output fields, exit status and one-line reasons."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from companion.cli import main
from tests.helpers import hypergeometric

SEED = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
NEW = {
    "new": {
        "edition": "clank",
        "players": ["red", "yellow", "green", "blue"],
        "server_seed": SEED,
        "client_seed": "table",
    }
}


def write(tmp_path: Path, *lines: object) -> Path:
    path = tmp_path / "game.jsonl"
    path.write_text(
        "\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines) + "\n",
        encoding="utf-8",
    )
    return path


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_json_output_has_the_contract_fields(tmp_path, capsys):
    path = write(tmp_path, "# a comment", "", NEW, {"do": "clank", "player": "red", "n": 1})
    code, out, err = run(capsys, "replay", str(path), "--json")
    assert code == 0 and err == ""
    state = json.loads(out)
    for key in [
        "edition",
        "game_over",
        "turn",
        "rage",
        "danger",
        "row",
        "clank_area",
        "bag",
        "countdown",
        "players",
        "draws",
        "errors",
        "ranking",
        "commitment",
        "server_seed",
    ]:
        assert key in state, key
    assert state["turn"] == {"active": "red", "number": 1}
    assert state["rage"]["space"] == 1 and state["rage"]["draw"] == 2
    assert state["clank_area"] == {"red": 4, "yellow": 2, "green": 1, "blue": 0, "ghost": 0}
    red = state["players"]["red"]
    for key in ["supply", "damage", "health", "status", "in_depths", "artifacts", "gold", "score"]:
        assert key in red
    assert red["supply"] == 26 and red["status"] == "playing" and red["score"] is None
    assert state["commitment"] == "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
    assert state["server_seed"] is None and state["ranking"] is None


def test_the_spec_vector_through_the_replay(tmp_path, capsys):
    """Two players red and blue, bag black 24, red 3, blue 2: the spec's first draw."""
    new = {
        "new": {
            "edition": "clank",
            "players": ["red", "blue"],
            "server_seed": SEED,
            "client_seed": "table",
            "rage_track": [4],
            "rage_start": 1,
        }
    }
    # red starts with 3 cubes in the area, blue with 2: exactly the spec's bag
    path = write(tmp_path, new, {"do": "attack"})
    code, out, _ = run(capsys, "replay", str(path), "--json")
    draw = json.loads(out)["draws"][0]
    assert draw["bag"] == {"black": 24, "red": 3, "blue": 2, "ghost": 0}
    assert draw["drawn"] == ["blue", "black", "black", "black"] and draw["nonce"] == 1


def test_a_rejected_line_stops_with_exit_2_and_names_the_line(tmp_path, capsys):
    path = write(
        tmp_path,
        NEW,
        {"do": "clank", "player": "red", "n": 1},
        {"do": "clank", "player": "pink", "n": 1},
        {"do": "attack"},
    )
    code, out, err = run(capsys, "replay", str(path), "--json")
    assert code == 2 and out == ""
    assert err == "line 3: clank: unknown player 'pink'\n"


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("{not json", "line 2: not valid JSON"),
        ('["do", "attack"]', "line 2: each line is one JSON object"),
        ('{"do": "teleport"}', "line 2: unknown action 'teleport'"),
        ('{"do": "take", "card": "Excalibur"}', "line 2: take: unknown card 'Excalibur'"),
        ('{"do": "escape", "player": "red"}', "line 2: escape: red carries no artifact"),
        ('{"new": {"edition": "clank"}}', "line 2: a script holds one game"),
    ],
)
def test_bad_lines_get_one_line_reasons(tmp_path, capsys, line, reason):
    path = write(tmp_path, NEW, line)
    code, out, err = run(capsys, "replay", str(path))
    assert code == 2
    assert err.startswith(reason) and err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize(
    ("first", "reason"),
    [
        ('{"do": "attack"}', 'line 1: the first line must be {"new": {...}}'),
        (
            '{"new": {"edition": "clank", "players": ["red", "blue"], "server_seed": "abc"}}',
            'line 1: new: "server_seed" must be 64 lowercase hexadecimal characters',
        ),
        ('{"new": {"edition": "clank", "players": ["red"]}}', "line 1: new: 1 players"),
    ],
)
def test_bad_first_lines(tmp_path, capsys, first, reason):
    code, _, err = run(capsys, "replay", str(write(tmp_path, first)))
    assert code == 2 and err.startswith(reason)


def test_empty_missing_and_binary_files(tmp_path, capsys):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("# nothing\n")
    code, _, err = run(capsys, "replay", str(empty))
    assert code == 2 and "empty" in err
    code, _, err = run(capsys, "replay", str(tmp_path / "missing.jsonl"))
    assert code == 2 and err.startswith("cannot read")
    binary = tmp_path / "bin.jsonl"
    binary.write_bytes(json.dumps(NEW).encode() + b"\n\xff\xfe\n")
    code, _, err = run(capsys, "replay", str(binary))
    assert code == 2 and err.startswith("line 2: not UTF-8 text")


def test_keep_going_lists_errors_and_goes_on(tmp_path, capsys):
    path = write(
        tmp_path,
        NEW,
        {"do": "clank", "player": "pink", "n": 1},
        "{oops",
        {"do": "clank", "player": "red", "n": 2},
    )
    code, out, err = run(capsys, "replay", str(path), "--json", "--keep-going")
    assert code == 0
    state = json.loads(out)
    assert [e["line"] for e in state["errors"]] == [2, 3]
    assert state["errors"][0]["reason"] == "clank: unknown player 'pink'"
    assert state["clank_area"]["red"] == 5
    assert err.splitlines() == [
        "line 2: clank: unknown player 'pink'",
        "line 3: not valid JSON (Expecting property name enclosed in double quotes at column 2)",
    ]


def test_game_over_reveals_the_seed_and_ranks(tmp_path, capsys):
    path = write(
        tmp_path,
        NEW,
        *[
            {"do": "artifact", "player": p, "value": v}
            for p, v in [("red", 5), ("yellow", 7), ("green", 10), ("blue", 15)]
        ],
        *[{"do": "escape", "player": p} for p in ["red", "yellow", "green", "blue"]],
    )
    code, out, _ = run(capsys, "replay", str(path), "--json")
    state = json.loads(out)
    assert state["game_over"] and state["server_seed"] == SEED
    assert [r["player"] for r in state["ranking"]] == ["blue", "green", "yellow", "red"]
    assert state["players"]["blue"]["score"] == 35


def test_human_output(tmp_path, capsys):
    path = write(tmp_path, NEW, {"do": "clank", "player": "red", "n": 1})
    code, out, _ = run(capsys, "replay", str(path))
    assert code == 0
    assert "turn 1, red to play" in out and "next attack draws 2" in out


def test_installed_console_script_runs():
    """The console script a user types, as a separate process."""
    exe = Path(sys.executable).with_name("clank-companion")
    result = subprocess.run([str(exe), "--version"], capture_output=True, text=True, check=False)
    assert result.returncode == 0 and result.stdout.startswith("clank-companion ")


def test_json_carries_the_exact_odds_of_the_next_attack_until_the_game_ends(tmp_path, capsys):
    path = write(
        tmp_path,
        NEW,
        {"do": "clank", "player": "red", "n": 3},
        {"do": "clank", "player": "green", "n": 1},
    )
    code, out, _err = run(capsys, "replay", str(path), "--json")
    state = json.loads(out)
    assert code == 0 and "odds" in state
    odds = state["odds"]
    assert odds["count"] == state["next_attack"]
    bag = sum(state["bag"].values()) + sum(state["clank_area"].values())
    assert set(odds["players"]) == {"red", "yellow", "green", "blue"}
    for player, found in odds["players"].items():
        mine = state["bag"][player] + state["clank_area"][player]
        health = state["players"][player]["health"]
        assert len(found["damage"]) == health + 1
        for k in range(health):
            want = hypergeometric(bag, mine, odds["count"], k)
            assert found["damage"][k] == pytest.approx(want, abs=1e-12)
        assert found["knock_out"] == found["damage"][-1]
        assert sum(found["damage"]) == pytest.approx(1.0, abs=1e-9)
    # red has the most cubes in the Clank! area: the likeliest to be hurt
    assert odds["players"]["red"]["damage"][0] < odds["players"]["yellow"]["damage"][0]


def test_json_has_no_odds_once_the_game_is_over(tmp_path, capsys):
    lines = [NEW] + [
        {"do": "damage", "player": p, "n": 10} for p in ("red", "yellow", "green", "blue")
    ]
    code, out, _err = run(capsys, "replay", str(write(tmp_path, *lines)), "--json")
    state = json.loads(out)
    assert code == 0 and state["game_over"] and "odds" not in state
