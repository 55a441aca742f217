"""Tampering is detected by `audit verify` and by the standalone verifier alike."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.audit.check import export_game, verify_store
from companion.cli import main
from companion.session import Session
from companion.store import GameStore
from companion.verify_log import GENESIS, canonical, link_hash, record_bytes
from tests.helpers import companion_draws_seed

VERIFIER = Path(__file__).resolve().parent.parent / "companion" / "verify_log.py"
NEW = {
    "edition": "clank",
    "players": ["red", "blue"],
    "server_seed": "3c" * 32,
    "client_seed": "04A224B2C35E80 04B1C2D3E4F5A6",
}


def start_drawn(store: GameStore, options: dict | None = None):
    """A game whose seed the companion drew (NEW's, foreseen by the test)."""
    options = dict(options or NEW)
    with companion_draws_seed(options.pop("server_seed")):
        return Session(store).start(options)


@pytest.fixture(scope="module")
def finished_db(tmp_path_factory) -> Path:
    """A finished game with several draws, one of them undone."""
    path = tmp_path_factory.mktemp("audit") / "games.db"
    store = GameStore(path)
    table = start_drawn(store)
    table.apply({"do": "row", "cards": ["Ladder", "Dragon Shrine"]})
    for n in range(4):
        table.apply({"do": "clank", "player": "red", "n": 2})
        table.apply({"do": "clank", "player": "blue", "n": 1})
        table.apply({"do": "end_turn", "revealed": ["Orc Grunt"] if n % 2 == 0 else []})
        if n % 2 == 0:
            table.apply({"do": "take", "card": "Orc Grunt"})
    table.apply({"do": "attack"})
    table.apply({"do": "undo"})
    table.apply({"do": "artifact", "player": "red", "value": 10})
    table.apply({"do": "escape", "player": "red"})
    table.apply({"do": "artifact", "player": "blue", "value": 20})
    table.apply({"do": "escape", "player": "blue"})
    assert table.game.state.game_over
    store.close()
    return path


def copy_db(src: Path, tmp_path: Path) -> Path:
    dst = tmp_path / "games.db"
    shutil.copy(src, dst)
    shutil.copy(src.with_name(src.name + ".key"), dst.with_name(dst.name + ".key"))
    return dst


def raw(path: Path) -> sqlite3.Connection:
    """The database as an attacker opens it: the append-only triggers dropped."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("DROP TRIGGER IF EXISTS log_no_update")
    conn.execute("DROP TRIGGER IF EXISTS log_no_delete")
    return conn


def rechain(conn: sqlite3.Connection) -> None:
    """Recompute every hash after an edit, as a careful attacker would."""
    prev = GENESIS
    for seq, kind, body in conn.execute("SELECT seq, kind, body FROM log ORDER BY seq").fetchall():
        text = canonical(json.loads(body))
        digest = link_hash(prev, record_bytes(1, seq, kind, text))
        conn.execute(
            "UPDATE log SET body = ?, prev = ?, hash = ? WHERE seq = ?", [text, prev, digest, seq]
        )
        prev = digest


def app_verdict(path: Path) -> tuple[bool, str]:
    store = GameStore(path)
    try:
        (check,) = verify_store(store)
    finally:
        store.close()
    return check.ok, str(check.message)


def standalone_verdict(path: Path, tmp_path: Path) -> tuple[int, str]:
    store = GameStore(path)
    export = tmp_path / "export.jsonl"
    with export.open("w", encoding="utf-8") as out:
        export_game(store, 1, out)
    store.close()
    return verify_file(export)


def verify_file(export: Path) -> tuple[int, str]:
    """The standalone verifier's exit status and output on an export file."""
    result = subprocess.run(
        [sys.executable, "-I", "-S", str(VERIFIER), str(export)],
        capture_output=True,
        text=True,
        check=False,
    )
    return result.returncode, result.stdout + result.stderr


def assert_detected(path: Path, tmp_path: Path) -> None:
    ok, message = app_verdict(path)
    assert not ok, message
    code, output = standalone_verdict(path, tmp_path)
    assert code == 1 and output.startswith("FAILED"), output


def test_an_honest_log_passes_both(finished_db, tmp_path):
    ok, message = app_verdict(finished_db)
    assert ok and "draws recomputed" in message and "replayed through the rules" in message
    code, output = standalone_verdict(finished_db, tmp_path)
    assert code == 0, output
    assert "the server seed matches the commitment" in output
    assert "3 draws recomputed and equal" in output  # two refills and one undone attack


def test_every_single_byte_change_of_a_draw_record_is_detected(finished_db, tmp_path):
    path = copy_db(finished_db, tmp_path)
    conn = raw(path)
    seq, body = conn.execute(
        "SELECT seq, body FROM log WHERE body LIKE '%\"drawn\"%' ORDER BY seq LIMIT 1"
    ).fetchone()
    positions = range(0, len(body), max(1, len(body) // 60))
    for i in positions:
        c = body[i]
        changed = body[:i] + ("x" if c != "x" else "y") + body[i + 1 :]
        conn.execute("UPDATE log SET body = ? WHERE seq = ?", [changed, seq])
        ok, message = app_verdict(path)
        assert not ok, (i, changed)
    conn.execute("UPDATE log SET body = ? WHERE seq = ?", [body, seq])
    assert app_verdict(path)[0]
    conn.execute("UPDATE log SET body = ? WHERE seq = ?", [body[:-1] + " }", seq])
    assert_detected(path, tmp_path)


@pytest.mark.parametrize("column", ["prev", "hash", "kind", "seq"])
def test_a_changed_column_is_detected(finished_db, tmp_path, column):
    path = copy_db(finished_db, tmp_path)
    conn = raw(path)
    value = {
        "prev": "'" + "0" * 64 + "'",
        "hash": "'" + "f" * 64 + "'",
        "kind": "'reveal'",
        "seq": "99",
    }[column]
    conn.execute(f"UPDATE log SET {column} = {value} WHERE seq = 5")
    assert_detected(path, tmp_path)


def test_a_deleted_row_is_detected(finished_db, tmp_path):
    path = copy_db(finished_db, tmp_path)
    raw(path).execute("DELETE FROM log WHERE seq = 6")
    assert_detected(path, tmp_path)


def test_reordered_rows_are_detected(finished_db, tmp_path):
    path = copy_db(finished_db, tmp_path)
    conn = raw(path)
    conn.execute("UPDATE log SET seq = -1 WHERE seq = 4")
    conn.execute("UPDATE log SET seq = 4 WHERE seq = 5")
    conn.execute("UPDATE log SET seq = 5 WHERE seq = -1")
    assert_detected(path, tmp_path)


def test_a_truncated_finished_game_is_detected(finished_db, tmp_path):
    path = copy_db(finished_db, tmp_path)
    raw(path).execute("DELETE FROM log WHERE seq = (SELECT max(seq) FROM log)")
    ok, message = app_verdict(path)
    assert not ok and "disagree" in message


def test_an_altered_draw_is_detected_even_with_the_chain_recomputed(finished_db, tmp_path):
    path = copy_db(finished_db, tmp_path)
    conn = raw(path)
    seq, body = conn.execute(
        'SELECT seq, body FROM log WHERE body LIKE \'%"drawn":["red"%\' '
        'OR body LIKE \'%"drawn":["black"%\' ORDER BY seq LIMIT 1'
    ).fetchone()
    record = json.loads(body)
    draw = record["draws"][0]
    draw["drawn"][0] = "blue" if draw["drawn"][0] != "blue" else "black"
    conn.execute("UPDATE log SET body = ? WHERE seq = ?", [canonical(record), seq])
    rechain(conn)
    assert_detected(path, tmp_path)


def test_an_altered_revealed_seed_is_detected(finished_db, tmp_path):
    path = copy_db(finished_db, tmp_path)
    conn = raw(path)
    seq, body = conn.execute("SELECT seq, body FROM log WHERE kind = 'reveal'").fetchone()
    record = json.loads(body)
    record["server_seed"] = "3d" + record["server_seed"][2:]
    conn.execute("UPDATE log SET body = ? WHERE seq = ?", [canonical(record), seq])
    conn.execute("UPDATE games SET server_seed = ?", [record["server_seed"]])
    rechain(conn)
    assert_detected(path, tmp_path)


def test_a_changed_bag_that_still_matches_its_draw_is_caught_by_the_replay(finished_db, tmp_path):
    """Rewriting a draw's bag and result consistently fools the chain and the recomputation,
    but the game no longer replays through the rules as recorded."""
    path = copy_db(finished_db, tmp_path)
    conn = raw(path)
    seq, body = conn.execute(
        "SELECT seq, body FROM log WHERE body LIKE '%\"drawn\"%' ORDER BY seq LIMIT 1"
    ).fetchone()
    record = json.loads(body)
    draw = record["draws"][0]
    draw["bag"]["black"] -= 1
    from companion.verify_log import recompute_draw

    draw["drawn"] = recompute_draw(
        "3c" * 32, draw["client_seed"], draw["nonce"], draw["bag"], ["red", "blue"], draw["count"]
    )
    conn.execute("UPDATE log SET body = ? WHERE seq = ?", [canonical(record), seq])
    rechain(conn)
    ok, message = app_verdict(path)
    assert not ok and "does not replay as recorded" in message


def test_verify_cli_names_the_first_bad_record_and_exits_non_zero(finished_db, tmp_path, capsys):
    path = copy_db(finished_db, tmp_path)
    assert main(["audit", "verify", "--db", str(path)]) == 0
    raw(path).execute("UPDATE log SET hash = '" + "a" * 64 + "' WHERE seq = 3")
    assert main(["audit", "verify", "--db", str(path), "--game", "1"]) == 1
    out = capsys.readouterr().out
    assert "game 1: FAILED: record 3: its hash does not match its content" in out


def test_export_cli_and_standalone_on_the_file(finished_db, tmp_path, capsys):
    out_file = tmp_path / "game1.jsonl"
    assert (
        main(["audit", "export", "--db", str(finished_db), "--game", "1", "-o", str(out_file)]) == 0
    )
    lines = out_file.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    assert header["format"] == "clank-companion-log" and header["game"]["status"] == "over"
    assert all(json.loads(line)["game"] == 1 for line in lines[1:])
    result = subprocess.run(
        [sys.executable, "-I", "-S", str(VERIFIER), str(out_file)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0
    # one changed character in the exported file
    lines[3] = lines[3].replace('"red"', '"blue"', 1)
    out_file.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-I", "-S", str(VERIFIER), str(out_file)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 1 and "record" in result.stdout


def test_decks_scored_after_the_end_are_accepted_and_nothing_else_is(tmp_path):
    from companion.store import GameStore
    from companion.verify_log import Finding, check_records

    with GameStore(tmp_path / "games.db") as store:
        table = Session(store).start({"edition": "clank", "players": ["red", "blue"]})
        table.apply({"do": "artifact", "player": "red", "value": 20})
        table.apply({"do": "escape", "player": "red"})
        for _ in range(10):
            table.apply({"do": "damage", "player": "blue", "n": 1})
        assert table.finished
        table.apply({"do": "cards", "player": "red", "cards": ["Burgle", "Dragon's Eye"]})
        game = table.log.game
        check = verify_store(store, game)[0]
        assert check.ok, check.message
        ranking = store.game_row(game)["ranking"]
        assert ranking[0] == {"player": "red", "score": table.snapshot()["ranking"][0]["score"],
                              "place": 1}  # fmt: skip
        records = [dict(r) for r in store.records(game)]
        header = store.export_header(game)
    late = dict(records[-1])
    late["body"] = {"action": {"do": "clank", "player": "blue", "n": 1}, "events": [], "draws": []}
    late.pop("_text")
    late["hash"] = link_hash(  # chained properly: only the rule can catch it
        late["prev"], record_bytes(late["game"], late["seq"], "action", canonical(late["body"]))
    )
    with pytest.raises(Finding, match="written after the game was over"):
        check_records(header, [*records[:-1], late])


# ------------------------------------------------- the verifier takes nothing on trust
def export_lines(path: Path) -> list[dict]:
    store = GameStore(path)
    try:
        buffer = __import__("io").StringIO()
        export_game(store, 1, buffer)
    finally:
        store.close()
    return [json.loads(line) for line in buffer.getvalue().splitlines()]


def run_verifier(lines: list[dict], tmp_path: Path) -> tuple[int, str]:
    export = tmp_path / "forged.jsonl"
    export.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return verify_file(export)


def test_an_export_cannot_vouch_for_its_own_bytes(finished_db, tmp_path):
    """A `_text` field keeping the genuine bytes while the body gives red an artifact 30
    used to pass with the genuine head."""
    lines = export_lines(finished_db)
    for rec in lines[1:]:
        rec["_text"] = canonical(rec["body"])
    forged = next(r for r in lines[1:] if r["body"].get("action", {}).get("do") == "artifact")
    forged["body"]["action"]["value"] = 30
    code, output = run_verifier(lines, tmp_path)
    assert code == 1 and output.startswith("FAILED"), output
    assert f"record {forged['seq']}" in output


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("players", ["blue", "red"]),
        ("edition", "catacombs"),
        ("status", "playing"),
        ("status", "abandoned"),
        ("commitment", "0" * 64),
        ("server_seed", "3d" * 32),
        ("server_seed", None),
    ],
)
def test_an_export_header_that_disagrees_with_its_records_fails(finished_db, tmp_path, key, value):
    lines = export_lines(finished_db)
    assert run_verifier(lines, tmp_path)[0] == 0
    lines[0]["game"][key] = value
    code, output = run_verifier(lines, tmp_path)
    assert code == 1 and "the header and the records disagree" in output, output


def test_duplicate_keys_in_an_export_are_refused(finished_db, tmp_path):
    lines = export_lines(finished_db)
    export = tmp_path / "dup.jsonl"
    text = "".join(json.dumps(x) + "\n" for x in lines)
    text = text.replace('"kind": "new"', '"kind": "action", "kind": "new"', 1)
    export.write_text(text, encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-I", "-S", str(VERIFIER), str(export)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert result.returncode == 1 and "the same key twice" in result.stdout


@pytest.mark.parametrize("line", ["[" * 5000 + "]" * 5000, '{"n": ' + "9" * 5000 + "}"])
def test_a_hostile_export_line_is_a_finding_not_a_traceback(tmp_path, line):
    export = tmp_path / "hostile.jsonl"
    export.write_text('{"format": "clank-companion-log", "version": 1}\n' + line + "\n")
    result = subprocess.run(
        [sys.executable, "-I", "-S", str(VERIFIER), str(export)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert result.returncode == 1 and result.stdout.startswith("FAILED"), result.stderr
    assert "Traceback" not in result.stderr


# ------------------------------------------------------ the games table and the log
@pytest.mark.parametrize(
    ("column", "value"),
    [
        ("ranking", '[{"player": "red", "score": 99, "place": 1}]'),
        ("ranking", "not json at all"),
        ("ranking", None),
        ("players", '["blue", "red"]'),
        ("players", "{broken"),
        ("edition", "catacombs"),
        ("status", "playing"),
        ("status", "abandoned"),
        ("sealed_seed", "00" * 32),
        ("server_seed", "3d" * 32),
    ],
)
def test_an_edited_games_table_fails_the_audit(finished_db, tmp_path, column, value, capsys):
    path = copy_db(finished_db, tmp_path)
    raw(path).execute(f"UPDATE games SET {column} = ?", [value])
    ok, message = app_verdict(path)
    assert not ok, message
    # and the listing still answers
    assert main(["games", "--db", str(path)]) == 0
    assert main(["audit", "verify", "--db", str(path)]) == 1
    assert "FAILED" in capsys.readouterr().out


def test_a_running_games_edited_sealed_seed_fails_the_audit(tmp_path):
    path = tmp_path / "games.db"
    with GameStore(path) as store:
        table = Session(store).start({**NEW, "server_seed": None})
        table.apply({"do": "attack"})
    assert app_verdict(path)[0]
    raw(path).execute("UPDATE games SET sealed_seed = ?", ["11" * 32])
    ok, message = app_verdict(path)
    assert not ok and "sealed seed" in message


def test_a_running_games_ranking_fails_the_audit(tmp_path):
    path = tmp_path / "games.db"
    with GameStore(path) as store:
        Session(store).start({**NEW, "server_seed": None})
    raw(path).execute("UPDATE games SET ranking = ?", ['[{"player": "red"}]'])
    ok, message = app_verdict(path)
    assert not ok and "ranking" in message


def non_canonical(path: Path) -> int:
    """Store one body as the same JSON in other bytes, its chain recomputed over them."""
    conn = raw(path)
    rows = conn.execute("SELECT seq, kind, body FROM log ORDER BY seq").fetchall()
    prev = GENESIS
    target = 3
    for seq, kind, body in rows:
        text = json.dumps(json.loads(body), indent=1) if seq == target else body
        digest = link_hash(prev, record_bytes(1, seq, kind, text))
        conn.execute(
            "UPDATE log SET body = ?, prev = ?, hash = ? WHERE seq = ?", [text, prev, digest, seq]
        )
        prev = digest
    return target


def test_a_body_not_in_canonical_form_fails_both_verifiers_alike(finished_db, tmp_path):
    path = copy_db(finished_db, tmp_path)
    seq = non_canonical(path)
    ok, message = app_verdict(path)
    expected = f"record {seq}: its body is not a canonical record"
    assert not ok and expected in message
    code, output = standalone_verdict(path, tmp_path)
    assert code == 1 and expected in output, output


def test_the_new_records_seats_must_be_the_setups_players(finished_db, tmp_path):
    from companion.verify_log import Finding, check_records

    lines = export_lines(finished_db)
    header, records = lines[0], lines[1:]
    records[0]["body"]["seats"] = ["blue", "red"]
    prev = GENESIS
    for rec in records:
        rec["prev"] = prev
        rec["hash"] = prev = link_hash(
            prev, record_bytes(1, rec["seq"], rec["kind"], canonical(rec["body"]))
        )
    with pytest.raises(Finding, match="seats are not the set-up's players"):
        check_records(header, records)


# --------------------------------------------- hostile exports: a finding, never a crash
def _paths(value, prefix=()):
    """Every place in a JSON value, as a path of keys and indexes."""
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, (*prefix, i))


def _replace(value, path, new):
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {**value, head: _replace(value[head], rest, new)}
    out = list(value)
    out[head] = _replace(out[head], rest, new)
    return out


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)


@pytest.fixture(scope="module")
def honest_export(finished_db) -> list[dict]:
    return export_lines(finished_db)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_any_change_to_an_export_is_a_finding_never_a_crash(honest_export, data):
    from companion import verify_log

    line = data.draw(st.integers(0, len(honest_export) - 1))
    places = list(_paths(honest_export[line]))
    place = data.draw(st.sampled_from(places))
    new = data.draw(JSON)
    lines = list(honest_export)
    lines[line] = _replace(lines[line], place, new)
    header, records = lines[0], lines[1:]
    try:
        verify_log.check_records(header, records)
    except verify_log.Finding:
        return
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, RecursionError):
        return  # main() reports these as a malformed record, exit 1
    # accepted: then nothing was changed but the creation time, which nothing vouches for
    assert lines[line] == honest_export[line] or (line == 0 and place == ("game", "created_at"))


def _rechain_export(lines: list[dict]) -> None:
    prev = GENESIS
    for rec in lines[1:]:
        rec["prev"] = prev
        rec["hash"] = prev = link_hash(
            prev, record_bytes(rec["game"], rec["seq"], rec["kind"], canonical(rec["body"]))
        )


def test_draws_under_a_client_seed_the_table_did_not_choose_fail(finished_db, tmp_path):
    """A box drawing live with a client seed of its own: every draw recomputes from the
    revealed seed, the chain is rebuilt, and still the standalone verifier says no."""
    from companion.verify_log import recompute_draw

    lines = export_lines(finished_db)
    for rec in lines[1:]:
        for draw in rec["body"].get("draws", []) if rec["kind"] == "action" else []:
            draw["client_seed"] = "chosen by the box"
            draw["drawn"] = recompute_draw(
                "3c" * 32, draw["client_seed"], draw["nonce"], draw["bag"],
                ["red", "blue"], draw["count"],
            )  # fmt: skip
    _rechain_export(lines)
    code, output = run_verifier(lines, tmp_path)
    assert code == 1 and "used a client seed other than the table's" in output, output


@pytest.mark.parametrize("where", ["seq", "game"])
def test_numbers_that_are_booleans_are_refused(finished_db, tmp_path, where):
    lines = export_lines(finished_db)
    lines[1][where] = True  # equal to 1 in Python, not a record number
    code, output = run_verifier(lines, tmp_path)
    assert code == 1 and "whole numbers" in output, output
