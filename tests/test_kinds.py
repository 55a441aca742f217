"""Game kinds by name: the registry, a kind of the tests' own played through the shared
layers (the session, the log, resume and both verifiers), and the shared modules that
name no game."""

from __future__ import annotations

import ast
import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion import kinds
from companion.audit.check import export_game, verify_store
from companion.kinds import kind_for, kind_of
from companion.script import replay
from companion.session import Session
from companion.store import GameStore
from companion.verify_log import EXIT_OK, check_records, read_export, verdict
from tests.helpers import companion_draws_seed
from tests.kinds import mount, unmount

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def pebbles() -> Iterator[None]:
    """The box of the tests' own mounted: its package as ``companion.kinds.pebbles``, its
    line in ``KINDS``."""
    mount()
    yield
    unmount()


# ------------------------------------------------------------------ the registry
def test_every_edition_has_its_kind():
    assert kind_of("clank") is kind_of("catacombs")
    assert kind_of("clank").has_bag and kind_of("clank").ending == "reveal"
    assert not kind_of("tschak").has_bag and kind_of("tschak").ending == "end"
    assert kind_for({"players": ["red", "blue"]}) is kind_of("clank")  # the default
    assert kind_for(None) is kind_of(kinds.DEFAULT)


def test_an_edition_nobody_plays_is_refused_in_the_default_kinds_words():
    with pytest.raises(ValueError, match="edition"):
        kind_for({"edition": "monopoly"}).new_table(
            {"edition": "monopoly", "players": ["red", "blue"]}
        )


def test_a_registered_kind_can_be_taken_away(pebbles):
    from companion.kinds.pebbles.kind import KIND

    assert kind_of("pebbles") is KIND and "pebbles" in kinds.editions()  # by its line
    kinds.register("pebbles-too", KIND)
    assert kind_of("pebbles-too") is KIND and "pebbles-too" in kinds.editions()
    kinds.register("pebbles-too", None)
    assert kind_of("pebbles-too") is kind_of(kinds.DEFAULT)
    unmount()  # its line taken away
    assert kind_of("pebbles") is kind_of(kinds.DEFAULT) and "pebbles" not in kinds.editions()


# ------------------------------------------------- a kind of the tests' own, in use
def play_pebbles(db: Path, *, cut_after: int | None = None, edition: str = "pebbles") -> int:
    """A game of pebbles recorded in ``db`` (its box mounted, or another edition of its
    kind registered), with a power cut (a resume) after ``cut_after`` actions; returns
    the game's id."""
    store = GameStore(db)
    with companion_draws_seed("7a" * 32):
        table = Session(store).start({"edition": edition, "players": ["ann", "bob"]})
    game = table.log.game  # type: ignore[union-attr]
    done = 0
    while not table.finished:
        table.apply({"do": "draw"})
        done += 1
        if done == 3:
            table.apply({"do": "undo"})
        if cut_after is not None and done == cut_after:
            store.close()
            store = GameStore(db)
            again = Session(store).resume(game)
            assert again.snapshot() == table.snapshot()
            table = again
    table.close()
    store.close()
    return game


@pytest.mark.parametrize("cut_after", [None, 1, 2, 3, 5])
def test_a_kind_of_its_own_plays_through_the_log_resume_and_the_audit(pebbles, tmp_path,
                                                                       cut_after):  # fmt: skip
    db = tmp_path / "games.db"
    game = play_pebbles(db, cut_after=cut_after)
    with GameStore(db, create=False) as store:
        row = store.game_row(game)
        assert row["edition"] == "pebbles" and row["status"] == "over" and row["closed"]
        (check,) = verify_store(store, game)
        assert check.ok and check.status == EXIT_OK and check.final, str(check.message)
        assert "replayed through the rules" in str(check.message)
        out = io.StringIO()
        export_game(store, game, out)
    header, records = read_export(out.getvalue().splitlines())
    summary = check_records(header, records)
    assert verdict(summary) == EXIT_OK and summary["draws_checked"] >= 2
    assert records[0]["body"]["seed_origin"] == "companion"


def test_a_changed_pebble_draw_fails_both_verifiers(pebbles, tmp_path):
    import sqlite3

    from companion.verify_log import GENESIS, Finding, canonical, link_hash, record_bytes

    db = tmp_path / "games.db"
    game = play_pebbles(db)
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("DROP TRIGGER IF EXISTS log_no_update")
    seq, body = conn.execute(
        "SELECT seq, body FROM log WHERE kind = 'action' ORDER BY seq LIMIT 1"
    ).fetchone()
    record = json.loads(body)
    draw = record["draws"][0]
    draw["drawn"] = ["ann"] if draw["drawn"] != ["ann"] else ["black"]
    conn.execute("UPDATE log SET body = ? WHERE seq = ?", [canonical(record), seq])
    prev = GENESIS
    rows = conn.execute("SELECT seq, kind, body FROM log ORDER BY seq").fetchall()
    for s, kind, text in rows:
        digest = link_hash(prev, record_bytes(game, s, kind, canonical(json.loads(text))))
        conn.execute("UPDATE log SET prev = ?, hash = ? WHERE seq = ?", [prev, digest, s])
        prev = digest
    conn.close()
    with GameStore(db, create=False) as store:
        (check,) = verify_store(store, game)
        assert not check.ok
        out = io.StringIO()
        export_game(store, game, out)
    header, records = read_export(out.getvalue().splitlines())
    with pytest.raises(Finding, match="is not what the seed gives"):
        check_records(header, records)


# a seed whose first six pebble draws leave the three-player game running (checked below):
# with a fresh seed the game may end by chance before the sixth draw
LONG_GAME_SEED = "0" * 64


def test_a_kind_of_its_own_replays_a_script(pebbles: None) -> None:
    from companion.kinds.pebbles.table import PebbleTable

    table = PebbleTable({"players": ["ann", "bob", "cy"]}, LONG_GAME_SEED)
    for _ in range(6):
        table.step({"do": "draw"})
    assert not table.state.over
    new = {"edition": "pebbles", "players": ["ann", "bob", "cy"], "server_seed": LONG_GAME_SEED}
    lines = [(1, json.dumps({"new": new}))]
    lines += [(n, '{"do": "draw"}') for n in range(2, 8)]
    lines += [(8, '{"do": "shuffle"}')]
    result = replay(iter(lines), keep_going=True)  # the kind is given the script's seed
    out = result.output()
    assert out["edition"] == "pebbles" and result.table.commitment == table.commitment
    assert {"line": 8, "reason": "action: unknown action"} in out["errors"]
    assert result.actions == 6 and len(out["errors"]) == 1


# --------------------------------------------------- shared modules name no game
EDITIONS = set(kinds.editions())
KINDS_DIR = ROOT / "companion" / "kinds"
# what knows a game: each kind's package (every subpackage of companion/kinds/)
KIND_PACKAGES = tuple(
    f"companion.kinds.{p.name}"
    for p in sorted(KINDS_DIR.iterdir())
    if (p / "__init__.py").is_file()
)
# the registry alone names the editions (its KINDS table, like the readers' READERS)
REGISTRY = "companion/kinds/__init__.py"


def shared_files() -> list[str]:
    """Every module of companion/ outside a kind's package, and the shared screens'
    layouts (kv/ at the top level): written once, for every game."""
    kind_dirs = [KINDS_DIR / name.rpartition(".")[2] for name in KIND_PACKAGES]
    found = [
        p
        for p in sorted((ROOT / "companion").rglob("*.py"))
        if not any(p.is_relative_to(d) for d in kind_dirs)
        and p.relative_to(ROOT).as_posix() != REGISTRY
    ]
    found += sorted((ROOT / "kv").glob("*.kv"))
    return [p.relative_to(ROOT).as_posix() for p in found]


SHARED = shared_files()


def _kinds_module(name: str) -> bool:
    return any(name == k or name.startswith(k + ".") for k in KIND_PACKAGES)


def names_of_games(path: Path) -> list[str]:
    """Where a module names a game: an edition as a string, a kind's module imported or
    named (a screen or a module loaded by name); in a layout, an edition in quotes or a
    kind's module."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".kv":
        found = []
        for number, line in enumerate(text.splitlines(), start=1):
            found += [f"line {number}: the edition {e!r}" for e in sorted(EDITIONS)
                      if f'"{e}"' in line or f"'{e}'" in line]  # fmt: skip
            found += [f"line {number}: names {k}" for k in KIND_PACKAGES if k in line]
        return found
    found = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Constant) and node.value in EDITIONS:
            found.append(f"line {node.lineno}: the edition {node.value!r}")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if _kinds_module(node.value):
                found.append(f"line {node.lineno}: names {node.value}")
        elif isinstance(node, ast.ImportFrom) and node.module:
            if _kinds_module(node.module):
                found.append(f"line {node.lineno}: imports {node.module}")
            elif node.module == "companion.kinds":
                found += [
                    f"line {node.lineno}: imports companion.kinds.{a.name}"
                    for a in node.names
                    if _kinds_module(f"companion.kinds.{a.name}")
                ]
        elif isinstance(node, ast.Import):
            found += [
                f"line {node.lineno}: imports {a.name}" for a in node.names if _kinds_module(a.name)
            ]
    return found


def test_the_kinds_and_the_shared_modules_are_found() -> None:
    assert {"companion.kinds.clank", "companion.kinds.tschak"} <= set(KIND_PACKAGES)
    assert {"clank", "catacombs", "tschak"} <= EDITIONS
    assert {"companion/session.py", "companion/script.py", "kv/newgame.kv"} <= set(SHARED)
    assert not any(m.startswith("companion/kinds/clank/") for m in SHARED)


def test_the_check_finds_a_game_named(tmp_path: Path) -> None:
    module = tmp_path / "named.py"
    module.write_text(
        "from companion.kinds.clank.view import percent\n"
        "from companion.kinds import tschak\n"
        "EDITION = 'catacombs'\n"
        "SCREEN = ('companion.kinds.clank.screens.table', 'TableScreen')\n",
        encoding="utf-8",
    )
    assert len(names_of_games(module)) == 4
    layout = tmp_path / "named.kv"
    layout.write_text("#:import x companion.kinds.tschak.words\n    text: 'clank'\n")
    assert len(names_of_games(layout)) == 2


@pytest.mark.parametrize("module", SHARED)
def test_a_shared_module_names_no_game(module: str) -> None:
    assert names_of_games(ROOT / module) == [], module


def test_the_registry_alone_names_the_kinds():
    """The registry's table is where editions are named (like the readers' table)."""
    text = (ROOT / REGISTRY).read_text(encoding="utf-8")
    assert all(f'"{e}"' in text for e in EDITIONS)
