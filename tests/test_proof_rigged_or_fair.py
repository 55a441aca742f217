"""Attacks on the proof, each reproduced: a fair game never looks rigged, and a rigged
one never looks fair."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from companion.audit.check import export_game, verify_store
from companion.cli import main
from companion.kinds.clank.rules import RuleError
from companion.session import Session
from companion.store import GameStore
from companion.verify_log import (
    EXIT_NOT_PROVABLY_FAIR,
    EXIT_OK,
    EXIT_SEALED,
    MAX_CUBES,
    MAX_LINE,
    Finding,
    check_records,
    read_export,
    verdict,
)
from tests.helpers import companion_draws_seed

VERIFIER = Path(__file__).resolve().parent.parent / "companion" / "verify_log.py"
SEED = "5e" * 32
ROW = ["Ladder", "Dragon Shrine", "Orc Grunt"]


def drawn_game(store: GameStore, **options):
    with companion_draws_seed(SEED):
        return Session(store).start({"edition": "clank", "players": ["red", "blue"], **options})


def export_text(store: GameStore, game: int = 1) -> str:
    out = io.StringIO()
    export_game(store, game, out)
    return out.getvalue()


def standalone(path: Path, text: str) -> tuple[int, str]:
    path.write_text(text, encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-I", "-S", str(VERIFIER), str(path)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    return result.returncode, result.stdout + result.stderr


def finish(table) -> None:
    for player, value in (("red", 10), ("blue", 20)):
        table.apply({"do": "artifact", "player": player, "value": value})
        table.apply({"do": "escape", "player": player})
    assert table.game.state.game_over


# ----------------------------------------------------------- 1. undo and the seed
def test_an_undone_client_seed_is_not_held_against_the_draws(tmp_path):
    """The table fixes a client seed, takes it back twice over (Undo, Undo), and plays:
    every draw used the set-up's seed, and both verifiers say so."""
    with GameStore(tmp_path / "games.db") as store:
        table = drawn_game(store, client_seed="first")
        table.apply({"do": "seed", "client_seed": "typed by the table"})
        table.apply({"do": "row", "cards": ROW[:2]})
        table.apply({"do": "undo"})
        table.apply({"do": "undo"})  # the seed's action itself
        table.apply({"do": "row", "cards": ROW[:2]})
        table.apply({"do": "clank", "player": "red", "n": 3})
        table.apply({"do": "attack"})
        assert [d.client_seed for d in table.game.draws] == ["first"]
        finish(table)
        (check,) = verify_store(store)
        assert check.ok and check.status == EXIT_OK, str(check.message)
        text = export_text(store)
    code, out = standalone(tmp_path / "export.jsonl", text)
    assert code == 0 and "1 draws recomputed and equal" in out, out


def test_a_seed_fixed_again_after_an_undo_is_the_one_in_force(tmp_path):
    with GameStore(tmp_path / "games.db") as store:
        table = drawn_game(store)
        table.apply({"do": "seed", "client_seed": "one"})
        table.apply({"do": "undo"})
        table.apply({"do": "seed", "client_seed": "two"})
        table.apply({"do": "clank", "player": "red", "n": 2})
        table.apply({"do": "undo"})
        table.apply({"do": "attack"})
        assert [d.client_seed for d in table.game.draws] == ["two"]
        finish(table)
        text = export_text(store)
    code, out = standalone(tmp_path / "export.jsonl", text)
    assert code == 0, out


def test_a_log_whose_draw_ignores_the_seed_in_force_still_fails():
    """The other way round: a draw with the taken-back seed is a forgery."""
    header = {"format": "clank-companion-log", "version": 1, "game": {"id": 1}}
    with pytest.raises(Finding, match="client seed other than the table's"):
        _forged_draw_after_undo(header)


def _forged_draw_after_undo(header):
    from companion.verify_log import GENESIS, canonical, link_hash, record_bytes

    bodies = [
        ("new", {"setup": {"edition": "clank", "players": ["red", "blue"]},
                 "seats": ["red", "blue"], "commitment": "00" * 32, "client_seed": "a",
                 "seed_origin": "companion"}),
        ("action", {"action": {"do": "seed", "client_seed": "b"}, "events": [], "draws": []}),
        ("action", {"action": {"do": "undo"}, "events": [], "draws": []}),
        ("action", {"action": {"do": "attack"}, "events": [], "draws": [
            {"nonce": 1, "reason": "attack", "client_seed": "b", "bag": {"black": 24},
             "count": 2, "drawn": ["black", "black"]}]}),
    ]  # fmt: skip
    records, prev = [], GENESIS
    for seq, (kind, body) in enumerate(bodies, start=1):
        digest = link_hash(prev, record_bytes(1, seq, kind, canonical(body)))
        records.append({"game": 1, "seq": seq, "kind": kind, "body": body, "prev": prev,
                        "hash": digest})  # fmt: skip
        prev = digest
    return check_records(header, records)


# ------------------------------------------------- 2. a seed after the game's end
def test_a_seed_action_after_the_end_of_a_drawless_game_is_refused(tmp_path):
    with GameStore(tmp_path / "games.db") as store:
        table = drawn_game(store)
        finish(table)
        assert table.game.next_nonce == 1  # no draw happened
        with pytest.raises(RuleError, match="the game is over"):
            table.apply({"do": "seed", "client_seed": "late"})
        (check,) = verify_store(store)
        assert check.ok and check.status == EXIT_OK


def test_resume_refuses_a_late_seed_too(tmp_path, capsys):
    db = tmp_path / "games.db"
    script = tmp_path / "g.jsonl"
    lines = [
        {"new": {"edition": "clank", "players": ["red", "blue"]}},
        {"do": "artifact", "player": "red", "value": 10},
        {"do": "escape", "player": "red"},
        {"do": "artifact", "player": "blue", "value": 20},
        {"do": "escape", "player": "blue"},
    ]
    script.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    assert main(["replay", str(script), "--db", str(db)]) == 0
    late = tmp_path / "late.jsonl"
    late.write_text(json.dumps({"do": "seed", "client_seed": "late"}) + "\n")
    assert main(["resume", "--db", str(db), "--game", "1", "--actions", str(late)]) == 2
    assert "the game is over" in capsys.readouterr().err
    assert main(["audit", "verify", "--db", str(db)]) == 0


# ------------------------------------------------------ 3. where the seed came from
def test_a_seed_given_by_a_script_is_never_reported_provably_fair(tmp_path, capsys):
    db = tmp_path / "games.db"
    script = tmp_path / "g.jsonl"
    lines = [
        {"new": {"edition": "clank", "players": ["red", "blue"], "server_seed": "ab" * 32}},
        {"do": "clank", "player": "red", "n": 3},
        {"do": "attack"},
        {"do": "artifact", "player": "red", "value": 10},
        {"do": "escape", "player": "red"},
        {"do": "artifact", "player": "blue", "value": 20},
        {"do": "escape", "player": "blue"},
    ]
    script.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    assert main(["replay", str(script), "--db", str(db)]) == 0
    capsys.readouterr()
    assert main(["audit", "verify", "--db", str(db)]) == EXIT_NOT_PROVABLY_FAIR
    out = capsys.readouterr().out
    assert "NOT PROVABLY FAIR" in out and "seed chosen outside the companion" in out
    with GameStore(db, create=False) as store:
        first = next(store.records(1))
        assert first["body"]["seed_origin"] == "given"
        text = export_text(store)
    code, out = standalone(tmp_path / "export.jsonl", text)
    assert code == EXIT_NOT_PROVABLY_FAIR, out
    assert "seed chosen outside the companion: draws reproducible, not provably fair" in out
    assert "\nOK: the server seed matches" not in out


def test_the_origin_is_covered_by_the_chain(tmp_path):
    """Rewriting "given" as "companion" breaks the chain where it was written."""
    with GameStore(tmp_path / "games.db") as store:
        table = Session(store).start(
            {"edition": "clank", "players": ["red", "blue"], "server_seed": "ab" * 32}
        )
        finish(table)
        text = export_text(store)
    forged = text.replace('"seed_origin": "given"', '"seed_origin": "companion"')
    assert forged != text
    code, out = standalone(tmp_path / "export.jsonl", forged)
    assert code == 1 and "record 1: its hash does not match its content" in out, out


def test_a_game_the_companion_seeded_is_provably_fair(tmp_path):
    with GameStore(tmp_path / "games.db") as store:
        table = Session(store).start({"edition": "clank", "players": ["red", "blue"]})
        assert next(store.records(1))["body"]["seed_origin"] == "companion"
        finish(table)
        (check,) = verify_store(store)
        assert check.status == EXIT_OK


# ------------------------------------------ 5. a game whose key was lost proves nothing
def test_a_game_abandoned_with_its_key_lost_is_not_reported_fair(tmp_path, capsys):
    db = tmp_path / "games.db"
    with GameStore(db) as store:
        table = drawn_game(store)
        table.apply({"do": "clank", "player": "red", "n": 3})
        table.apply({"do": "attack"})
    Path(str(db) + ".key").unlink()
    assert main(["abandon", "--db", str(db), "--game", "1"]) == 0
    capsys.readouterr()
    assert main(["audit", "verify", "--db", str(db)]) == EXIT_NOT_PROVABLY_FAIR
    assert "never to be recomputed" in capsys.readouterr().out
    with GameStore(db, create=False) as store:
        text = export_text(store)
    code, out = standalone(tmp_path / "export.jsonl", text)
    assert code == EXIT_NOT_PROVABLY_FAIR and "NOT PROVABLY FAIR" in out, out


def test_a_running_game_is_not_yet_proven(tmp_path):
    with GameStore(tmp_path / "games.db") as store:
        table = drawn_game(store)
        table.apply({"do": "attack"})
        text = export_text(store)
    header, records = read_export(text.splitlines())
    assert verdict(check_records(header, records)) == EXIT_SEALED
    code, out = standalone(tmp_path / "export.jsonl", text)
    assert code == EXIT_SEALED and "NOT YET" in out, out


# ------------------------------------------------------- 6. the final head, the date
def closed_game(tmp_path: Path) -> Path:
    db = tmp_path / "games.db"
    with GameStore(db) as store:
        table = drawn_game(store)
        table.apply({"do": "clank", "player": "red", "n": 3})
        table.apply({"do": "attack"})
        finish(table)
        table.apply({"do": "cards", "player": "red", "cards": ["Ladder"]})
        table.apply({"do": "cards", "player": "blue", "cards": ["Orc Grunt"]})
        table.close()
        with pytest.raises(RuleError, match="closed"):
            table.apply({"do": "cards", "player": "blue", "cards": ["Ladder"]})
    return db


def test_the_close_record_makes_the_head_final(tmp_path):
    db = closed_game(tmp_path)
    with GameStore(db, create=False) as store:
        (check,) = verify_store(store)
        assert check.status == EXIT_OK and check.final
        row = store.game_row(1)
        assert row["closed"] is True
        head = row["head"]
        text = export_text(store)
        assert next(iter(reversed(list(store.records(1)))))["kind"] == "close"
    code, out = standalone(tmp_path / "export.jsonl", text)
    assert code == 0 and f"head {head}" in out and "FINAL:" in out, out


def test_a_closed_game_takes_no_more_records_even_resumed(tmp_path, capsys):
    db = closed_game(tmp_path)
    late = tmp_path / "late.jsonl"
    late.write_text(json.dumps({"do": "cards", "player": "red", "cards": ["Ladder"]}) + "\n")
    assert main(["resume", "--db", str(db), "--game", "1", "--actions", str(late)]) == 2
    assert "closed" in capsys.readouterr().err


def test_dropping_the_last_deck_scan_no_longer_matches_the_final_head(tmp_path):
    """The forger drops the last deck's scan and recomputes the chain: the close record
    goes with it (its head was the one photographed), or its hash changes."""
    db = closed_game(tmp_path)
    with GameStore(db, create=False) as store:
        final = store.game_row(1)["head"]
        records = [{k: v for k, v in r.items() if k != "_text"} for r in store.records(1)]
        header = store.export_header(1)
    from companion.verify_log import GENESIS, canonical, link_hash, record_bytes

    kept = [r for r in records if not (r["kind"] == "action" and r["seq"] == len(records) - 1)]
    prev = GENESIS
    for seq, rec in enumerate(kept, start=1):
        rec.update(seq=seq, prev=prev)
        rec["hash"] = link_hash(prev, record_bytes(1, seq, rec["kind"], canonical(rec["body"])))
        prev = rec["hash"]
    summary = check_records(header, kept)
    assert summary["closed"] and summary["head"] != final
    without_close = kept[:-1]
    summary = check_records(header, without_close)
    assert not summary["closed"]  # "this head is not final"


def test_the_games_date_is_checked_like_the_other_header_fields(tmp_path):
    with GameStore(tmp_path / "games.db") as store:
        table = drawn_game(store)
        finish(table)
        text = export_text(store)
    header, *rest = text.splitlines()
    fields = json.loads(header)
    assert fields["game"]["created_at"]
    fields["game"]["created_at"] = "2020-01-01T00:00:00+00:00"
    forged = "\n".join([json.dumps(fields), *rest]) + "\n"
    code, out = standalone(tmp_path / "export.jsonl", forged)
    assert code == 1 and "disagree on the game's date" in out, out


def test_a_record_after_the_close_is_refused(tmp_path):
    db = closed_game(tmp_path)
    with GameStore(db, create=False) as store:
        records = [{k: v for k, v in r.items() if k != "_text"} for r in store.records(1)]
        header = store.export_header(1)
    from companion.verify_log import canonical, link_hash, record_bytes

    body = {"action": {"do": "cards", "player": "red", "cards": []}, "events": [], "draws": []}
    seq, prev = len(records) + 1, records[-1]["hash"]
    digest = link_hash(prev, record_bytes(1, seq, "action", canonical(body)))
    records.append({"game": 1, "seq": seq, "kind": "action", "body": body, "prev": prev,
                    "hash": digest})  # fmt: skip
    with pytest.raises(Finding, match="written after the game was closed"):
        check_records(header, records)


# --------------------------------------------------- 8. bounds on what an export claims
def test_an_export_claiming_a_huge_bag_is_refused_before_anything_is_built(tmp_path):
    with GameStore(tmp_path / "games.db") as store:
        table = drawn_game(store)
        table.apply({"do": "clank", "player": "red", "n": 3})
        table.apply({"do": "attack"})
        finish(table)
        records = [{k: v for k, v in r.items() if k != "_text"} for r in store.records(1)]
        header = store.export_header(1)
    from companion.verify_log import GENESIS, canonical, link_hash, record_bytes

    for rec in records:
        for draw in rec["body"].get("draws", []) if rec["kind"] == "action" else []:
            draw["bag"]["black"] = 10**9
    prev = GENESIS
    for rec in records:
        rec["prev"] = prev
        rec["hash"] = link_hash(
            prev, record_bytes(1, rec["seq"], rec["kind"], canonical(rec["body"]))
        )
        prev = rec["hash"]
    with pytest.raises(Finding, match="more cubes than any game"):
        check_records(header, records)
    assert MAX_CUBES < 10**9


def test_an_endless_line_is_not_read_whole(tmp_path):
    export = tmp_path / "export.jsonl"
    with export.open("w") as f:
        f.write('{"format": "clank-companion-log", "version": 1, "game": ')
        f.write(" " * (MAX_LINE + 10))
        f.write("}\n")
    code, out = standalone(export, export.read_text())
    assert code == 1 and "longer than any record" in out, out


@pytest.mark.parametrize(
    "forge, finding",
    [
        (lambda text: text.replace('"count": 1', '"count": 1.0', 1), "not a whole number"),
        (lambda text: text.replace('"count": 1', '"count": NaN', 1), "not a whole number"),
        (lambda text: text.replace('"count": 1', '"count": 1e0', 1), "not a whole number"),
    ],
)
def test_numbers_in_an_export_are_whole(tmp_path, forge, finding):
    with GameStore(tmp_path / "games.db") as store:
        table = drawn_game(store, rage_track=[1, 1, 1, 1, 1, 1, 1])
        table.apply({"do": "attack"})
        finish(table)
        text = export_text(store)
    assert '"count": 1' in text
    code, out = standalone(tmp_path / "export.jsonl", forge(text))
    assert code == 1 and finding in out, out
