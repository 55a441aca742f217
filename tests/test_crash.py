"""Power cuts: a game is played in a child process killed with SIGKILL at random moments.

After every kill the database must pass SQLite's integrity check and the audit, hold every
action the child had reported, hold exactly a prefix of the script, and resume to the
state a clean replay of those actions gives.
"""

from __future__ import annotations

import json
import random
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from bench.long_game import PLAYERS, long_game
from companion.audit.check import GameCheck, audited_games, verify_game
from companion.kinds.clank.rules import make_setup
from companion.kinds.clank.table import Table
from companion.session import Session
from companion.store import GameStore

KILLS = 50
SEED = "9a" * 32
NEW = {"edition": "clank", "players": PLAYERS, "server_seed": SEED, "client_seed": "crash"}
REPORTED = re.compile(r"^\s*(\d+) \{")


def clean_replay(actions: list[dict]) -> dict:
    table = Table(make_setup(NEW), SEED)
    for action in actions:
        table.apply(action)
    return table.snapshot()


def logged_actions(db: Path, game: int) -> list[dict]:
    conn = sqlite3.connect(db)
    rows = conn.execute(
        "SELECT body FROM log WHERE game = ? AND kind = 'action' ORDER BY seq", [game]
    ).fetchall()
    conn.close()
    return [json.loads(body)["action"] for (body,) in rows]


def game_exists(db: Path, game: int) -> bool:
    if not db.exists():
        return False
    conn = sqlite3.connect(db)
    try:
        row = conn.execute("SELECT count(*) FROM sqlite_master WHERE name = 'games'").fetchone()
        return bool(row[0]) and bool(
            conn.execute("SELECT count(*) FROM games WHERE id = ?", [game]).fetchone()[0]
        )
    finally:
        conn.close()


def audit(store: GameStore, db: Path, known: dict[tuple, GameCheck]) -> list[GameCheck]:
    """The audit of every game in the database, as ``verify_store`` gives it; a game whose
    rows (its games-table row and its log) are those of an earlier check keeps that
    check's verdict, ``verify_game`` being a function of them: a finished game is not
    replayed again at every kill."""
    conn = sqlite3.connect(db)
    try:
        checks = []
        for game in audited_games(store):
            rows = (
                tuple(conn.execute("SELECT * FROM games WHERE id = ?", [game])),
                tuple(conn.execute("SELECT * FROM log WHERE game = ? ORDER BY seq", [game])),
            )
            if rows not in known:
                known[rows] = verify_game(store, game)
            checks.append(known[rows])
        return checks
    finally:
        conn.close()


def test_sigkill_at_random_moments(tmp_path):
    """50 kills of a child process, three in four of them up to 0.6 s after its first
    action was reported, the others 0.15-0.9 s after its start, each followed by the
    whole database's audit and a resume: about a minute on its own, longer than most
    tests, as a power cut's test must kill many real processes at many moments."""
    rng = random.Random(20261122)
    actions = long_game(rounds=40, seed=11)
    script = tmp_path / "game.jsonl"
    script.write_text(
        "\n".join([json.dumps({"new": NEW}), *(json.dumps(a) for a in actions)]) + "\n"
    )
    db = tmp_path / "games.db"
    base = [sys.executable, "-m", "companion"]
    game, kills, mid_game_kills, early_kills = 1, 0, 0, 0
    known: dict[tuple, GameCheck] = {}
    while kills < KILLS:
        exists = game_exists(db, game)
        done = logged_actions(db, game) if exists else []
        if not exists:
            cmd = [*base, "replay", str(script), "--db", str(db), "-v"]
        else:
            rest = tmp_path / "rest.jsonl"
            rest.write_text("".join(json.dumps(a) + "\n" for a in actions[len(done) :]))
            cmd = [
                *base,
                "resume",
                "--db",
                str(db),
                "--game",
                str(game),
                "--actions",
                str(rest),
                "-v",
            ]
        child = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        first = ""
        if rng.random() < 0.75:
            # most kills come once the game is under way: after the child's first action
            # reported (on a busy machine its start alone may take longer than any wait)
            first = child.stdout.readline() if child.stdout is not None else ""
            time.sleep(rng.uniform(0.0, 0.6))
        else:  # the others at any moment from the start, the database's creation included
            time.sleep(rng.uniform(0.15, 0.9))
        still_running = child.poll() is None
        child.send_signal(signal.SIGKILL)
        out, _ = child.communicate()
        out = first + out
        if still_running:
            kills += 1
        reported = sum(1 for line in out.splitlines() if REPORTED.match(line))
        if not db.exists():
            assert reported == 0
            early_kills += 1
            continue

        # the database is whole and its log checks out
        conn = sqlite3.connect(db)
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        conn.close()
        store = GameStore(db)
        checks = audit(store, db, known)
        assert all(c.ok for c in checks), [c.message for c in checks if not c.ok]
        if not game_exists(db, game):
            # killed before the new game's first record was committed: nothing was shown
            assert reported == 0
            store.close()
            early_kills += 1
            continue
        now = logged_actions(db, game)
        # every action reported before the kill was committed, and only script actions
        assert len(now) >= len(done) + reported
        assert now == actions[: len(now)]
        resumed = Session(store).resume(game).snapshot()
        store.close()
        assert resumed == clean_replay(now)
        if 0 < len(now) < len(actions) and still_running:
            mid_game_kills += 1
        if len(now) == len(actions) or resumed["game_over"]:
            game += 1
    assert mid_game_kills >= KILLS // 2, (mid_game_kills, early_kills)
