"""Tschak! games in the hash-chained log: recorded before they are shown, resumed after a
power cut exactly, verified by the audit and the standalone verifier, listed by `games`,
abandoned; a log that cannot be written leaves the game as it was."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from companion.audit.check import export_game, verify_store
from companion.cli import main
from companion.kinds.tschak.rules import TschakError
from companion.kinds.tschak.table import TschakTable
from companion.session import Session
from companion.store import GameStore, StoreError
from companion.verify_log import Finding, check_records, read_export

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "tschak-3-players.jsonl"
LINES = [json.loads(line) for line in EXAMPLE.read_text().splitlines() if line.strip()]
NEW, ACTIONS = LINES[0]["new"], LINES[1:]


def finished(tmp_path: Path) -> tuple[Path, dict]:
    """The example game recorded in a database; its final snapshot."""
    path = tmp_path / "games.db"
    with GameStore(path) as store:
        table = Session(store).start(NEW)
        for action in ACTIONS:
            table.apply(action)
        return path, table.snapshot()


def test_a_recorded_game_is_the_replayed_game_and_resumes_exactly(tmp_path):
    unrecorded = TschakTable(NEW)
    for action in ACTIONS:
        unrecorded.apply(action)
    path, shown = finished(tmp_path)
    assert shown == unrecorded.snapshot() and shown["game_over"]
    with GameStore(path) as store:  # after a power cut: a new program, the same game
        again = Session(store).resume(1)
        assert isinstance(again, TschakTable)
        assert again.snapshot() == shown
        assert again.actions_seen == len(ACTIONS)
        row = store.game_row(1)
    assert row["edition"] == "tschak" and row["status"] == "over"
    assert row["players"] == NEW["players"]
    assert row["ranking"] == shown["ranking"]
    assert (row["commitment"], row["server_seed"]) == ("", None)


@pytest.mark.parametrize("cut", [0, 1, 5, 13, len(ACTIONS) - 1])
def test_a_game_cut_anywhere_resumes_where_it_stood_and_plays_on(tmp_path, cut):
    path = tmp_path / "games.db"
    with GameStore(path) as store:
        table = Session(store).start(NEW)
        for action in ACTIONS[:cut]:
            table.apply(action)
        before = table.snapshot()
    with GameStore(path) as store:
        table = Session(store).resume(1)
        assert table.snapshot() == before
        for action in ACTIONS[cut:]:
            table.apply(action)
        end = table.snapshot()
    _, whole = finished(tmp_path / "whole")
    assert end == whole
    with GameStore(path, create=False) as store:
        (check,) = verify_store(store)
    assert check.ok, str(check.message)


def test_the_audit_and_the_standalone_verifier_pass_it_and_catch_a_change(tmp_path):
    path, _shown = finished(tmp_path)
    with GameStore(path, create=False) as store:
        (check,) = verify_store(store)
        assert check.ok and "no dragon bag" in str(check.message)
        assert "replayed through the rules" in str(check.message)
        export = tmp_path / "game.jsonl"
        with export.open("w", encoding="utf-8") as out:
            export_game(store, 1, out)
    result = subprocess.run(
        [sys.executable, str(ROOT / "companion" / "verify_log.py"), str(export)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout
    assert "without a dragon bag" in result.stdout
    # a record changed and its chain rewritten: the replay through the rules sees it
    header, records = read_export(export.read_text(encoding="utf-8").splitlines())
    assert check_records(header, records)["no_bag"] is True
    floor = next(r for r in records if r["body"].get("action", {}).get("do") == "floor")
    floor["body"]["events"] = []
    with pytest.raises(Finding, match="hash"):
        check_records(header, records)


def test_a_changed_event_in_the_database_fails_the_audit_on_replay(tmp_path):
    path, _shown = finished(tmp_path)
    conn = sqlite3.connect(path)
    conn.execute("DROP TRIGGER log_no_update")  # whoever can write the file can do this
    body = json.loads(conn.execute("SELECT body FROM log WHERE game=1 AND seq=3").fetchone()[0])
    body["events"] = body["events"][:-1]
    conn.execute(
        "UPDATE log SET body = ? WHERE game = 1 AND seq = 3",
        [json.dumps(body, sort_keys=True, separators=(",", ":"))],
    )
    conn.commit()
    conn.close()
    with GameStore(path, create=False) as store:
        (check,) = verify_store(store)
        assert not check.ok
        with pytest.raises(StoreError, match="does not verify"):
            Session(store).resume(1)


def test_draws_or_a_revealed_seed_in_a_game_without_a_bag_are_refused(tmp_path):
    path, _shown = finished(tmp_path)
    with GameStore(path, create=False) as store:
        export = tmp_path / "game.jsonl"
        with export.open("w", encoding="utf-8") as out:
            export_game(store, 1, out)
    header, records = read_export(export.read_text(encoding="utf-8").splitlines())
    from companion.verify_log import canonical, link_hash, record_bytes

    def rechain(recs: list[dict]) -> None:
        prev = "0" * 64
        for r in recs:
            r["prev"] = prev
            r["hash"] = link_hash(prev, record_bytes(1, r["seq"], r["kind"], canonical(r["body"])))
            prev = r["hash"]

    drawn = json.loads(json.dumps(records))
    drawn[2]["body"]["draws"] = [
        {"nonce": 1, "reason": "x", "client_seed": "", "bag": {}, "count": 0, "drawn": []}
    ]
    rechain(drawn)
    with pytest.raises(Finding, match="without a dragon bag"):
        check_records(header, drawn)
    revealed = json.loads(json.dumps(records))
    end = next(r for r in revealed if r["kind"] == "end")
    end["kind"], end["body"] = "reveal", {"server_seed": "00" * 32, "reason": "over"}
    rechain(revealed)
    with pytest.raises(Finding, match="unknown kind"):
        check_records(header, revealed)


class FailingLog:
    """A log whose disk is full."""

    def record(self, *args: object) -> None:
        raise StoreError("the disk is full: the action was not recorded (free some space)")

    def abandon(self, *args: object) -> None:
        raise StoreError("the disk is full")


def test_an_action_the_log_cannot_keep_leaves_the_game_as_it_was():
    table = TschakTable(NEW)
    for action in ACTIONS[:4]:
        table.apply(action)
    before = table.snapshot()
    table.log = FailingLog()
    for action in [ACTIONS[4], {"do": "undo"}]:
        with pytest.raises(StoreError):
            table.apply(action)
        assert table.snapshot() == before
    assert table.actions_seen == 4
    table.log = None
    assert table.apply(ACTIONS[4]) and table.snapshot() != before


def test_once_over_only_the_elixir_is_undone(tmp_path):
    table = TschakTable(NEW)
    for action in ACTIONS:
        table.apply(action)
    assert table.finished and table.game.last_action == "elixir"
    over = table.snapshot()
    table.apply({"do": "undo"})  # the elixir comes back
    assert table.finished and table.snapshot() != over
    with pytest.raises(TschakError, match="only the elixir can be undone"):
        table.apply({"do": "undo"})  # the last floor's result stands
    assert table.finished


def test_the_command_line_records_lists_resumes_and_abandons_tschak_games(tmp_path, capsys):
    db = tmp_path / "games.db"
    part = tmp_path / "part.jsonl"
    part.write_text("\n".join(json.dumps(x) for x in LINES[:6]) + "\n", encoding="utf-8")
    rest = tmp_path / "rest.jsonl"
    rest.write_text("\n".join(json.dumps(x) for x in LINES[6:]) + "\n", encoding="utf-8")
    assert main(["replay", str(part), "--db", str(db)]) == 0
    assert "recorded as game 1" in capsys.readouterr().err
    assert main(["resume", "--db", str(db), "--actions", str(rest), "--json"]) == 0
    out = capsys.readouterr()
    assert "resumed game 1: 5 actions" in out.err
    resumed = json.loads(out.out)
    assert main(["replay", str(EXAMPLE), "--json"]) == 0
    assert resumed == json.loads(capsys.readouterr().out)
    assert main(["replay", str(part), "--db", str(db)]) == 0  # game 2, left running
    capsys.readouterr()
    assert main(["abandon", "--db", str(db), "--game", "2", "--reason", "dinner"]) == 0
    assert capsys.readouterr().out.strip() == "game 2 abandoned"
    assert main(["abandon", "--db", str(db), "--game", "1", "--reason", "late"]) == 2
    assert "already over" in capsys.readouterr().err
    assert main(["games", "--db", str(db)]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert "tschak" in listed[0] and "over" in listed[0] and "winner anna" in listed[0]
    assert "tschak" in listed[1] and "abandoned" in listed[1]
    assert main(["audit", "verify", "--db", str(db)]) == 0
    verified = capsys.readouterr().out
    assert verified.count("OK") == 2
    with GameStore(db, create=False) as store:  # an abandoned game reads back as such
        table = Session(store).resume(2)
        assert table.abandoned and table.finished
        with pytest.raises(TschakError, match="abandoned"):
            table.apply(LINES[6])


def test_a_refused_first_line_writes_no_game(tmp_path, capsys):
    db = tmp_path / "games.db"
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"new": {"edition": "tschak", "players": ["solo"]}}) + "\n")
    assert main(["replay", str(bad), "--db", str(db)]) == 2
    assert "line 1: new:" in capsys.readouterr().err
    if db.exists():
        with GameStore(db, create=False) as store:
            assert store.games() == []


def test_results_and_charts_of_a_tschak_game_are_its_scores(tmp_path):
    import csv
    import io

    from companion.history import game_history, record, results_csv
    from companion.ui.report import game_charts

    path, shown = finished(tmp_path)
    with GameStore(path, create=False) as store:
        Session(store).start({"edition": "clank", "players": ["red", "blue"]})
        h = game_history(store, 1)
        out = io.StringIO()
        assert results_csv(store, 1, out) == 3
        assert record(store).games == 0  # Tschak! players are not the dragon's colours
    assert h.status == "over" and h.edition == "tschak" and h.points == ()
    assert list(h.ranking or ()) == [(r["player"], r["score"]) for r in shown["ranking"]]
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert [r["player"] for r in rows] == [r["player"] for r in shown["ranking"]]
    for r in rows:  # every part as the game's own scoring gives it, and they add up
        detail = shown["players"][r["player"]]["score_detail"]
        parts = {k: int(v) for k, v in r.items() if k in detail and k != "total"}
        assert parts and all(parts[k] == detail[k] for k in parts)
        assert sum(parts.values()) == int(r["score"]) == detail["total"]
    charts = game_charts(h)
    assert list(charts) == ["scores"]  # no dragon: no noise, damage or rage to chart
    negatives = [v for b in charts["scores"].bars for _p, v, _c in b.parts if v < 0]
    assert negatives  # monsters count against: the chart shows them below zero


def test_the_tschak_edition_name_is_the_same_everywhere():
    from companion.kinds.clank import table
    from companion.kinds.tschak import rules

    assert table.TSCHAK == rules.EDITION


def test_a_clank_table_and_the_store_load_no_tschak_rules():
    code = (
        "import sys, companion.session, companion.kinds.clank.controller, companion.script;"
        "print(sorted(m for m in sys.modules if m.startswith('companion.kinds.tschak.rules')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert out.stdout.strip() == "[]"
