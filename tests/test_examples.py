"""The shipped example games replay cleanly and end; the mistakes file shows its mistakes."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.script import ScriptError, replay

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
COMPLETE = ["clank-4-players.jsonl", "catacombs-3-players.jsonl", "clank-2-players-short.jsonl"]


@pytest.mark.parametrize("name", COMPLETE)
def test_complete_games_replay_to_the_end(name):
    result = replay(EXAMPLES / name)
    out = result.output()
    assert out["game_over"] and out["errors"] == []
    assert out["ranking"] and out["server_seed"]
    assert len(out["draws"]) >= 1
    assert all(p["status"] != "playing" for p in out["players"].values())


def test_the_four_player_game_is_a_full_evening():
    out = replay(EXAMPLES / "clank-4-players.jsonl").output()
    assert out["edition"] == "clank" and len(out["players"]) == 4
    assert len([d for d in out["draws"] if d["reason"] == "attack"]) >= 8
    statuses = {p["status"] for p in out["players"].values()}
    assert statuses == {"escaped", "knocked_out"}


def test_the_catacombs_game_uses_its_own_mechanics():
    out = replay(EXAMPLES / "catacombs-3-players.jsonl").output()
    assert out["edition"] == "catacombs"
    assert any(d["reason"] == "out_draw" for d in out["draws"])
    assert any(p["prisoners"] for p in out["players"].values())
    assert any(p["shrines"] for p in out["players"].values())


def test_mistakes_stop_the_replay_or_are_listed():
    path = EXAMPLES / "mistakes.jsonl"
    with pytest.raises(ScriptError):
        replay(path)
    result = replay(path, keep_going=True)
    assert len(result.errors) == 5
