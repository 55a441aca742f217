"""`clank-companion replay` plays Tschak! table scripts: the state and `--json` as the
table-script specification says, the same error contract (exit 2, `line N: reason`,
`--keep-going`), the shipped example to its end."""

from __future__ import annotations

import json
from pathlib import Path

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


def test_the_example_game_plays_four_towers_to_a_winner(capsys):
    result = replay(EXAMPLES / "tschak-3-players.jsonl")
    out = result.output()
    assert out["game_over"] and out["errors"] == []
    assert len(out["floors"]) == 12  # four towers of three floors
    assert out["winners"] and out["ranking"][0]["player"] in out["winners"]
    assert all(isinstance(p["score"], int) for p in out["players"].values())
    scores = [r["score"] for r in out["ranking"]]
    assert scores == sorted(scores, reverse=True)
    assert main(["replay", str(EXAMPLES / "tschak-3-players.jsonl")]) == 0
    text = capsys.readouterr().out
    assert text.startswith("Tschak! - GAME OVER") and "ranking: 1. " in text
