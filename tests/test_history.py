"""Each game told as data (replayed from its log), and statistics across games."""

from __future__ import annotations

import csv
import io
import math
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.history import (
    Fairness,
    GameHistory,
    NoResults,
    Point,
    chi_square_sf,
    fairness,
    game_history,
    record,
    results_csv,
)
from companion.kinds.clank.controller import Controller
from companion.kinds.clank.story import ClankPoint
from companion.session import Session
from companion.store import GameStore, StoreError

SEED = "2b" * 32


class Live:
    """Plays a game through the Controller and keeps the table after each action that
    stands (an undo drops the last one), as the live snapshots show it."""

    def __init__(self, store: GameStore, options: dict[str, Any]) -> None:
        self.controller = Controller(store)
        self.controller.new_game({"server_seed": SEED, **options})
        self.start = self.controller.snapshot()
        self.stack: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []

    @property
    def snap(self) -> dict[str, Any]:
        snap = self.controller.snapshot()
        assert snap is not None
        return snap

    def do(self, do: str, **fields: Any) -> bool:
        before = self.snap
        if not self.controller.do({"do": do, **fields}):
            return False
        after = self.snap
        if do == "undo":
            self.stack.pop()
        elif not before["game_over"]:  # a deck scanned for scoring is no point
            self.stack.append((after, after["draws"][len(before["draws"]) :]))
        return True

    def must(self, do: str, **fields: Any) -> None:
        assert self.do(do, **fields), self.controller.last

    def expected(self) -> list[tuple[Any, ...]]:
        """The points as the live snapshots saw them (knock-outs from the players'
        statuses, attacks from the draws each action added)."""
        out = []
        previous = self.start
        for step, (snap, draws) in enumerate(self.stack, start=1):
            seats = list(snap["players"])
            out_now = {
                p
                for p in seats
                if snap["players"][p]["status"] == "knocked_out"
                and previous["players"][p]["status"] != "knocked_out"
            }
            out.append(
                (
                    step,
                    snap["turn"]["number"],
                    snap["turn"]["active"],
                    {p: snap["clank_area"][p] for p in seats},
                    {p: snap["players"][p]["damage"] for p in seats},
                    snap["rage"]["space"],
                    tuple(c for d in draws for c in d["drawn"]) if draws else None,
                    out_now,
                )
            )
            previous = snap
        return out


def clank_points(points: tuple[Point, ...]) -> list[ClankPoint]:
    """A Clank! game's points, as its kind tells them (its own subclass of Point)."""
    out = [p for p in points if isinstance(p, ClankPoint)]
    assert len(out) == len(points)
    return out


def told(points: tuple[Point, ...]) -> list[tuple[Any, ...]]:
    return [
        (
            p.step,
            p.turn,
            p.active,
            dict(p.clank),
            dict(p.damage),
            p.rage,
            p.attack,
            set(p.knocked_out),
        )
        for p in clank_points(points)
    ]


def standing_draws(snap: dict[str, Any]) -> list[dict[str, Any]]:
    return [d for d in snap["draws"] if not d.get("undone")]


@pytest.fixture
def store(tmp_path):
    with GameStore(tmp_path / "games.db") as s:
        yield s


def _attacker(path: Path) -> sqlite3.Connection:
    """A connection that may rewrite the append-only log (a damaged database)."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("DROP TRIGGER IF EXISTS log_no_update")
    conn.execute("DROP TRIGGER IF EXISTS log_no_delete")
    return conn


# ---------------------------------------------------------------- game_history
def test_a_base_game_is_told_as_it_was_played(store):
    live = Live(store, {"edition": "clank", "players": ["red", "blue", "green"], "health": 3})
    live.must("clank", player="red", n=2)
    live.must("attack")
    undone_draw = live.snap["draws"][-1]["drawn"]
    live.must("undo")  # the attack is taken back: the bag is as it was
    live.must("clank", player="blue", n=1)
    live.must("clank", player="green", n=-1)
    live.must("attack")
    live.must("end_turn", revealed=[])
    live.must("rage", n=2)
    live.must("damage", player="blue", n=3)  # knocked out
    live.must("artifact", player="red", value=20)
    live.must("escape", player="red")
    live.must("damage", player="green", n=5)  # the last one inside: the game is over
    live.must("cards", player="red", cards=["Burgle", "Burgle"])

    history = game_history(store, 1)
    assert isinstance(history, GameHistory)
    assert told(history.points) == live.expected()
    assert (history.game, history.edition, history.players) == (
        1,
        "clank",
        ("red", "blue", "green"),
    )
    assert history.status == "over"
    assert history.end_reason == "nobody is left in the dungeon"
    # the start: the starting clank of seats 1-3, the dragon on space 2 with 3 players
    assert isinstance(history.start, ClankPoint)
    assert dict(history.start.clank) == {"red": 3, "blue": 2, "green": 1}
    assert history.start.rage == 2 and history.start.attack is None
    # the undone attack is not there: one attack only, of 2 cubes, from the redone bag
    points = clank_points(history.points)
    attacks = [p for p in points if p.attack is not None]
    assert len(attacks) == 1
    assert attacks[0].step == 4
    assert attacks[0].attack == tuple(standing_draws(live.snap)[0]["drawn"])
    assert len(undone_draw) == 2
    assert [p.step for p in points] == list(range(1, 11))
    assert dict(points[0].clank) == {"red": 5, "blue": 2, "green": 1}
    assert dict(points[1].clank)["blue"] == 3
    assert dict(points[2].clank)["green"] == 0
    assert points[4].turn == 2 and points[4].active == "blue"
    assert points[5].rage == 4
    assert points[6].knocked_out == ("blue",)
    assert dict(points[6].damage)["blue"] == 3
    assert points[7].rage == 5  # an artifact enrages the dragon
    assert points[-1].knocked_out == ("green",)
    # scores: red escaped with the 20 and holds the mastery token
    assert history.totals == {"red": 40, "blue": 0, "green": 0}
    assert history.scores is not None
    assert history.scores["red"] == {
        "artifacts": 20,
        "gold": 0,
        "tokens": 20,
        "secrets": 0,
        "prisoners": 0,
        "cards": 0,
    }
    assert history.scores["blue"]["artifacts"] == 0
    assert history.qualifies == {"red": True, "blue": False, "green": False}
    assert history.ranking == (("red", 40), ("blue", 0), ("green", 0))
    assert history.places == {"red": 1, "blue": 2, "green": 2}
    assert [(r["player"], r["score"]) for r in live.snap["ranking"]] == list(history.ranking)


def test_a_catacombs_game_with_ghosts_and_out_draws(store):
    players = ["yellow", "red", "blue", "green"]
    options = {"edition": "catacombs", "players": players, "health": 2, "server_seed": "9c" * 32}
    live = Live(store, options)
    live.must("ghost")
    live.must("ghost")
    live.must("clank", player="green", n=4)
    for _ in range(12):
        if live.snap["game_over"]:
            break
        live.must("attack")
        if len(live.stack) % 3 == 0 and not live.snap["game_over"]:
            live.must("undo")
        if not live.snap["game_over"]:
            live.must("end_turn", revealed=[])
    history = game_history(store, 1)
    assert told(history.points) == live.expected()
    assert history.players == tuple(players) and history.edition == "catacombs"
    # this seed's draws: a ghost knocks three players out at once, then the last one
    # inside is knocked out on the way, after the out players' draws
    out = [p for p in clank_points(history.points) if p.knocked_out]
    assert [set(p.knocked_out) for p in out] == [{"yellow", "red", "green"}, {"blue"}]
    assert out[0].attack is not None and "ghost" in out[0].attack
    assert all(dict(out[0].damage)[p] == 2 for p in ("yellow", "red", "green"))
    assert {d["reason"] for d in standing_draws(live.snap)} == {"attack", "out_draw"}
    drawn = [c for p in clank_points(history.points) for c in p.attack or ()]
    assert sorted(drawn) == sorted(c for d in standing_draws(live.snap) for c in d["drawn"])
    assert len(standing_draws(live.snap)) < len(live.snap["draws"])  # some were undone
    assert history.status == "over"
    assert history.end_reason == "nobody is left in the dungeon"
    assert history.totals == {p: 0 for p in players}  # nobody took an artifact
    assert history.places == {p: 1 for p in players}  # and all share the first place


@pytest.mark.parametrize("edition", ["clank", "catacombs"])
def test_an_abandoned_and_a_running_game(store, edition):
    live = Live(store, {"edition": edition, "players": ["red", "blue"]})
    live.must("clank", player="red", n=1)
    live.must("attack")
    assert live.controller.abandon()
    running = Live(store, {"edition": edition, "players": ["blue", "red"]})
    running.must("clank", player="blue", n=2)
    abandoned, playing = game_history(store, 1), game_history(store, 2)
    assert abandoned.status == "abandoned" and playing.status == "playing"
    assert told(abandoned.points) == live.expected()
    assert told(playing.points) == running.expected()
    for h in (abandoned, playing):
        assert h.scores is h.totals is h.ranking is h.qualifies is h.places is None
    assert dict(playing.points[0].clank) == {"blue": 5, "red": 2}


def test_an_unknown_game_is_a_store_error(store):
    with pytest.raises(StoreError):
        game_history(store, 7)


def _damaged_game(tmp_path: Path) -> tuple[Path, Live]:
    path = tmp_path / "games.db"
    with GameStore(path) as s:
        live = Live(s, {"edition": "clank", "players": ["red", "blue"]})
        live.must("clank", player="red", n=2)  # seq 2
        live.must("clank", player="blue", n=1)  # seq 3
        live.must("attack")  # seq 4
        live.must("clank", player="red", n=1)  # seq 5
    return path, live


@pytest.mark.parametrize(
    ("edit", "draws"),
    [
        ("UPDATE log SET body = 'not json' WHERE seq = 3", 1),
        ("UPDATE log SET body = CAST(x'7b22ff22' AS BLOB) WHERE seq = 3", 1),
        ("UPDATE log SET body = '{\"action\": 5}' WHERE seq = 3", 1),
        ("UPDATE log SET body = json_set(body, '$.action.player', 'pink') WHERE seq = 3", 1),
        ("UPDATE log SET body = json_set(body, '$.action', json('[1]')) WHERE seq = 3", 1),
        # a draw that the bag cannot give, or no draw at all where the rules draw
        (
            "UPDATE log SET body = json_set(body, '$.draws[0].drawn', json('[\"x\",\"y\"]'))"
            " WHERE seq = 4",
            0,
        ),
        ("UPDATE log SET body = json_set(body, '$.draws', json('[]')) WHERE seq = 4", 0),
        ("UPDATE log SET body = json_set(body, '$.draws[0].drawn', json('{}')) WHERE seq = 4", 0),
        # a draw where the rules make none
        (
            "UPDATE log SET body = json_set(body, '$.draws', json('[{\"drawn\": []}]'))"
            " WHERE seq = 5",
            1,
        ),
        ("UPDATE log SET kind = 'mystery' WHERE seq = 2", 1),
    ],
)
def test_damaged_records_are_skipped_and_the_story_goes_on(tmp_path, edit, draws):
    path, live = _damaged_game(tmp_path)
    _attacker(path).execute(edit)
    with GameStore(path) as s:
        history = game_history(s, 1)
        # one of the four actions is lost; the others replay as they were
        assert [p.step for p in history.points] == [1, 2, 3]
        assert history.status == "playing"
        assert fairness(s).draws == draws
        assert record(s).games == 0
    if "seq = 5" in edit:  # the last action lost: the rest is the table as it was
        assert told(history.points) == live.expected()[:3]


def test_a_damaged_games_row_leaves_the_log_to_decide(tmp_path):
    path = tmp_path / "games.db"
    with GameStore(path) as s:
        _red_wins(s)
    conn = _attacker(path)
    conn.execute("UPDATE games SET status = x'00', ranking = 'not json'")
    with GameStore(path) as s:
        assert s.game_row(1)["status"] is None
        assert game_history(s, 1).status == "over"
        r = record(s)
        assert r.games == 1 and r.wins_by_colour["red"] == 1
        assert r.average_score_by_colour["red"] == 44.0
        out = io.StringIO()
        assert results_csv(s, 1, out) == 3


def test_a_damaged_set_up_tells_no_story(tmp_path):
    path, _live = _damaged_game(tmp_path)
    _attacker(path).execute(
        "UPDATE log SET body = json_set(body, '$.setup.edition', 'chess') WHERE seq = 1"
    )
    with GameStore(path) as s:
        history = game_history(s, 1)
        assert history.points == () and history.start is None
        assert history.players == ("red", "blue") and history.edition == "clank"
        assert history.status == "playing"


def test_a_missing_record_leaves_the_rest_to_the_rules(tmp_path):
    path, live = _damaged_game(tmp_path)
    assert live.snap["draws"][0]["drawn"] == ["black"] * 3  # this seed's attack
    _attacker(path).execute("DELETE FROM log WHERE seq = 2")  # red's +2 is lost
    with GameStore(path) as s:
        history = game_history(s, 1)
    # the rest replays on the table without it: the recorded attack still fits the bag
    assert [dict(p.clank) for p in history.points] == [
        {"red": 3, "blue": 3},
        {"red": 0, "blue": 0},
        {"red": 1, "blue": 0},
    ]
    assert [p.attack for p in history.points] == [None, ("black",) * 3, None]


# ---------------------------------------------------------------- scoring games
def _red_wins(s: GameStore) -> Live:
    """Clank, 3 players: red escapes with the 20 and wins 40 to 0 and 0."""
    live = Live(s, {"edition": "clank", "players": ["red", "blue", "green"], "health": 3})
    live.must("attack")
    live.must("damage", player="blue", n=3)
    live.must("artifact", player="red", value=20)
    live.must("gold", player="red", n=4)
    live.must("escape", player="red")
    live.must("damage", player="green", n=3)
    return live


def _shared_win(s: GameStore) -> Live:
    """Clank, 2 players, a pile with two 10s: both escape with a 10, a shared first
    place (same total, same best artifact)."""
    live = Live(
        s,
        {
            "edition": "clank",
            "players": ["blue", "red"],
            "artifacts": [5, 10, 10, 15, 20, 25, 30],
        },
    )
    live.must("artifact", player="blue", value=10)
    live.must("escape", player="blue")
    live.must("artifact", player="red", value=10)
    live.must("escape", player="red")
    return live


def _yellow_wins(s: GameStore) -> Live:
    """Catacombs, 4 players: yellow escapes with the 17 (37); red is knocked out outside
    the Depths with the 5 and 3 gold (8); blue and green score nothing."""
    players = ["yellow", "red", "blue", "green"]
    live = Live(s, {"edition": "catacombs", "players": players, "health": 4})
    live.must("artifact", player="yellow", value=17)
    live.must("escape", player="yellow")
    live.must("artifact", player="red", value=5)
    live.must("gold", player="red", n=3)
    for p in ("red", "blue", "green"):
        live.must("damage", player=p, n=4)
    return live


def test_the_record_across_finished_games(store):
    _red_wins(store)
    shared = _shared_win(store)
    assert [(r["player"], r["place"]) for r in shared.snap["ranking"]] == [
        ("blue", 1),
        ("red", 1),
    ]
    _yellow_wins(store)
    abandoned = Live(store, {"edition": "clank", "players": ["red", "blue"]})
    abandoned.must("artifact", player="red", value=30)
    assert abandoned.controller.abandon()
    Live(store, {"edition": "clank", "players": ["green", "red"]}).must(
        "clank", player="green", n=1
    )
    nobody = Live(store, {"edition": "clank", "players": ["red", "blue"], "health": 1})
    nobody.must("damage", player="red", n=1)
    nobody.must("damage", player="blue", n=1)
    # everybody knocked out without an artifact: the rules rank both first, with 0
    assert [(r["place"], r["score"]) for r in nobody.snap["ranking"]] == [(1, 0), (1, 0)]
    r = record(store)
    assert r.games == 4
    assert r.wins_by_colour == {"blue": 1, "green": 0, "red": 2, "yellow": 1}
    assert r.played_by_colour == {"blue": 4, "green": 2, "red": 4, "yellow": 1}
    # seats: red/blue/green, blue/red, yellow/red/blue/green, red/blue
    assert r.wins_by_seat == {1: 3, 2: 1, 3: 0, 4: 0}
    assert r.played_by_seat == {1: 4, 2: 4, 3: 2, 4: 1}
    # red 44 + 30 + 8 + 0; blue 0 + 30 + 0 + 0; green 0 + 0; yellow 37
    assert r.average_score_by_colour == pytest.approx(
        {"blue": 7.5, "green": 0.0, "red": 82 / 4, "yellow": 37.0}
    )
    # seat 1: 44, 30, 37, 0; seat 2: 0, 30, 8, 0; seat 3: 0, 0; seat 4: 0
    assert r.average_score_by_seat == pytest.approx({1: 111 / 4, 2: 38 / 4, 3: 0.0, 4: 0.0})
    shared_history = game_history(store, 2)
    assert shared_history.places == {"blue": 1, "red": 1}
    assert shared_history.ranking == (("blue", 30), ("red", 30))


def test_the_record_of_an_empty_store(store):
    r = record(store)
    assert r.games == 0 and r.wins_by_colour == {} and r.average_score_by_seat == {}


def test_results_csv_reads_back(store):
    _yellow_wins(store)
    out = io.StringIO()
    assert results_csv(store, 1, out) == 4
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    created = store.game_row(1)["created_at"]
    assert list(rows[0]) == [
        "game",
        "date",
        "edition",
        "player",
        "seat",
        "place",
        "score",
        "artifacts",
        "gold",
        "tokens",
        "secrets",
        "prisoners",
        "cards",
        "qualifies",
    ]
    assert [(r["player"], r["seat"], r["place"], r["score"]) for r in rows] == [
        ("yellow", "1", "1", "37"),
        ("red", "2", "2", "8"),
        ("blue", "3", "3", "0"),
        ("green", "4", "3", "0"),
    ]
    assert all(r["game"] == "1" and r["date"] == created for r in rows)
    assert all(r["edition"] == "catacombs" for r in rows)
    assert rows[0]["artifacts"] == "17" and rows[0]["tokens"] == "20"
    assert rows[1]["artifacts"] == "5" and rows[1]["gold"] == "3" and rows[1]["tokens"] == "0"
    assert [r["qualifies"] for r in rows] == ["true", "true", "false", "false"]


def test_results_csv_refuses_a_game_that_is_not_over(store):
    live = Live(store, {"edition": "clank", "players": ["red", "blue"]})
    live.must("clank", player="red", n=1)
    with pytest.raises(ValueError, match="not over"):
        results_csv(store, 1, io.StringIO())
    assert live.controller.abandon()
    out = io.StringIO()
    with pytest.raises(ValueError, match="not over"):
        results_csv(store, 1, out)
    assert out.getvalue() == ""


def test_results_csv_of_a_finished_game_whose_log_is_damaged_says_it_is_over(tmp_path):
    """Over by the games table, but its log (a record damaged by hand) no longer tells its
    scores: the refusal says that, not that the game is not over."""
    path = tmp_path / "games.db"
    with GameStore(path) as s:
        _yellow_wins(s)
        # the last action: green knocked out, the game over
        last = [r for r in s.records(1) if r["kind"] == "action"][-1]
        assert s.game_row(1)["status"] == "over"
    conn = _attacker(path)
    conn.execute("UPDATE log SET body = 'not json' WHERE game = 1 AND seq = ?", [last["seq"]])
    conn.close()
    with GameStore(path) as s:
        out = io.StringIO()
        with pytest.raises(NoResults) as refused:
            results_csv(s, 1, out)
    assert str(refused.value).startswith("game 1 is over, but its scores cannot be read")
    assert "not over" not in str(refused.value) and out.getvalue() == ""


# ---------------------------------------------------------------- fairness
def _hand_game(s: GameStore, players: list[str], draws: list[dict[str, Any]]) -> None:
    """A game whose log holds hand-made draws (each in its own attack record)."""
    table = Session(s).start({"edition": "catacombs", "players": players, "server_seed": SEED})
    assert table.log is not None
    for d in draws:
        if d == "undo":
            table.log.record({"do": "undo"}, [], [], None)
            continue
        draw = {"nonce": 1, "reason": "attack", "client_seed": "", **d}
        table.log.record({"do": "attack"}, [], [draw], None)
    s.release(table.log.game)


def test_fairness_against_a_hand_computation(store):
    _hand_game(
        store,
        ["red", "blue"],
        [
            # N = 10: black 6, red 3, blue 1; 3 drawn
            {
                "bag": {"black": 6, "red": 3, "blue": 1, "ghost": 0},
                "count": 3,
                "drawn": ["black", "red", "red"],
            },
            # taken back: never counted
            {"bag": {"black": 5, "red": 5}, "count": 4, "drawn": ["red", "red", "red", "red"]},
            "undo",
            # N = 4: black 2, blue 2; 2 drawn
            {"bag": {"black": 2, "red": 0, "blue": 2}, "count": 2, "drawn": ["blue", "blue"]},
            # damaged: a cube that was not in the bag, a bag of strangers, a short draw
            {"bag": {"black": 2, "red": 1}, "count": 2, "drawn": ["blue", "black"]},
            {"bag": {"black": 2, "pink": 1}, "count": 1, "drawn": ["black"]},
            {"bag": {"black": 2, "red": 1}, "count": 2, "drawn": ["black"]},
            {"bag": {"black": True}, "count": 1, "drawn": ["black"]},
            {"bag": [], "count": 1, "drawn": ["black"]},
        ],
    )
    # seat 1 is blue here: colours differ between games, seats do not
    _hand_game(
        store,
        ["blue", "green"],
        [{"bag": {"black": 5, "blue": 5}, "count": 2, "drawn": ["blue", "black"]}],
    )
    f = fairness(store)
    assert isinstance(f, Fairness)
    assert (f.draws, f.cubes) == (3, 7)
    assert f.observed == {"black": 2, "seat1": 3, "seat2": 2}
    # black 3*6/10 + 2*2/4 + 2*5/10; seat1 3*3/10 + 2*5/10; seat2 3*1/10 + 2*2/4
    assert f.expected == pytest.approx({"black": 3.8, "seat1": 1.9, "seat2": 1.3})
    chi = (2 - 3.8) ** 2 / 3.8 + (3 - 1.9) ** 2 / 1.9 + (2 - 1.3) ** 2 / 1.3
    assert f.chi_square == pytest.approx(chi) and f.chi_square == pytest.approx(1.866397, 1e-6)
    assert f.df == 2
    assert f.p_value == pytest.approx(math.exp(-chi / 2))  # df 2: exp(-x/2)
    # one game only
    one = fairness(store, [2])
    assert (one.draws, one.observed, one.df) == (1, {"black": 1, "seat1": 1}, 1)
    assert one.expected == pytest.approx({"black": 1.0, "seat1": 1.0})
    assert one.chi_square == 0 and one.p_value == 1.0
    assert fairness(store, [99]) == Fairness(0, 0, {}, {}, 0.0, 0, 1.0)


def test_fairness_of_ghosts_and_a_whole_bag(store):
    _hand_game(
        store,
        ["red", "blue", "green"],
        [
            # more asked than the bag holds: the whole bag, exactly as expected
            {
                "bag": {"black": 1, "green": 1, "ghost": 1},
                "count": 5,
                "drawn": ["ghost", "green", "black"],
            },
            {"bag": {"black": 3, "ghost": 1}, "count": 2, "drawn": ["ghost", "black"]},
        ],
    )
    f = fairness(store)
    assert f.observed == {"black": 2, "seat3": 1, "ghost": 2}
    assert f.expected == pytest.approx({"black": 1 + 1.5, "seat3": 1.0, "ghost": 1.5})
    assert f.chi_square == pytest.approx(0.25 / 2.5 + 0 + 0.25 / 1.5)
    assert f.df == 2


def test_fairness_of_real_games_leaves_out_undone_draws(store):
    live = Live(store, {"edition": "catacombs", "players": ["red", "blue", "green"]})
    live.must("ghost")
    live.must("attack")
    live.must("undo")
    live.must("attack")
    live.must("attack")
    assert live.controller.abandon()  # abandoned games count
    other = Live(store, {"edition": "clank", "players": ["blue", "red"]})
    other.must("attack")
    draws = standing_draws(live.snap) + standing_draws(other.snap)
    assert len(draws) == 3 and len(live.snap["draws"]) == 3
    f = fairness(store)
    assert f.draws == 3
    assert f.cubes == sum(len(d["drawn"]) for d in draws)
    seats = {"red": "seat1", "blue": "seat2", "green": "seat3"}
    game2 = {"blue": "seat1", "red": "seat2"}
    observed: dict[str, int] = {}
    for d, names in zip(draws, [seats, seats, game2], strict=True):
        for c in d["drawn"]:
            key = names.get(c, c)
            observed[key] = observed.get(key, 0) + 1
    assert {k: v for k, v in f.observed.items() if v} == observed
    assert sum(f.expected.values()) == pytest.approx(f.cubes)
    every = fairness(store, include_undone=True)
    assert every.draws == 4
    assert every.cubes == f.cubes + len(live.snap["draws"][0]["drawn"])
    assert live.snap["draws"][0].get("undone") is True


# ---------------------------------------------------------------- the p-value
@pytest.mark.parametrize(
    ("x", "df", "p"),
    [
        (3.841458820694124, 1, 0.05),
        (3.84, 1, 0.050043521248705),
        (10.0, 4, 6 * math.exp(-5)),  # 0.0404276819945...
        (6.634896601021214, 1, 0.01),
        (5.991464547107979, 2, 0.05),
        (18.307038053275146, 10, 0.05),
        (1.0, 3, 0.801251956901036),
        (0.5, 7, math.erfc(0.5) + math.sqrt(1 / math.pi) * math.exp(-0.25) * (1 + 1 / 6 + 1 / 60)),
        (124.34211340400407, 100, 0.05),
    ],
)
def test_chi_square_tail_known_values(x, df, p):
    assert chi_square_sf(x, df) == pytest.approx(p, rel=1e-7)


@pytest.mark.parametrize("df", [1, 2, 3, 4, 5, 30])
def test_chi_square_tail_edges(df):
    assert chi_square_sf(0, df) == 1.0
    assert chi_square_sf(-1, df) == 1.0
    assert chi_square_sf(math.inf, df) == 0.0
    assert chi_square_sf(5, 0) == 1.0
    values = [chi_square_sf(x / 4, df) for x in range(0, 400)]
    assert all(a >= b for a, b in zip(values, values[1:], strict=False))
    assert all(0 <= v <= 1 for v in values)


@given(st.floats(min_value=1e-6, max_value=300))
def test_chi_square_tail_against_closed_forms(x):
    half = x / 2
    root = math.sqrt(half)
    assert chi_square_sf(x, 1) == pytest.approx(math.erfc(root), rel=1e-9, abs=1e-300)
    assert chi_square_sf(x, 2) == pytest.approx(math.exp(-half), rel=1e-9, abs=1e-300)
    three = math.erfc(root) + math.sqrt(2 * x / math.pi) * math.exp(-half)
    assert chi_square_sf(x, 3) == pytest.approx(three, rel=1e-9, abs=1e-300)
    four = math.exp(-half) * (1 + half)
    assert chi_square_sf(x, 4) == pytest.approx(four, rel=1e-9, abs=1e-300)
    six = math.exp(-half) * (1 + half + half * half / 2)
    assert chi_square_sf(x, 6) == pytest.approx(six, rel=1e-9, abs=1e-300)


# ---------------------------------------------------------------- random play
def _moves(players: list[str], catacombs: bool) -> st.SearchStrategy:
    player = st.sampled_from(players)
    moves = [
        st.builds(
            lambda p, n: ("clank", {"player": p, "n": n}), player, st.integers(-3, 4).filter(bool)
        ),
        st.just(("attack", {})),
        st.just(("attack", {})),
        st.just(("undo", {})),
        st.just(("undo", {})),
        st.just(("end_turn", {"revealed": []})),
        st.builds(lambda p: ("damage", {"player": p, "n": 1}), player),
        st.builds(lambda n: ("rage", {"n": n}), st.sampled_from([-1, 1])),
        st.builds(lambda p: ("artifact", {"player": p, "value": 20}), player),
        st.builds(lambda p: ("escape", {"player": p}), player),
    ]
    if catacombs:
        moves.append(st.just(("ghost", {})))
    return st.lists(st.one_of(moves), max_size=40)


@st.composite
def games(draw: st.DrawFn) -> tuple[dict[str, Any], list[tuple[str, dict[str, Any]]]]:
    edition = draw(st.sampled_from(["clank", "catacombs"]))
    players = ["red", "blue", "green", "yellow"][: draw(st.integers(2, 4))]
    options = {
        "edition": edition,
        "players": players,
        "health": draw(st.integers(2, 5)),
        "server_seed": draw(st.sampled_from(["2b", "07", "e1", "9c"])) * 32,
    }
    return options, draw(_moves(players, edition == "catacombs"))


@settings(max_examples=40, deadline=None)
@given(games())
def test_random_play_is_told_as_the_live_table_saw_it(game):
    options, moves = game
    with tempfile.TemporaryDirectory() as folder, GameStore(Path(folder) / "g.db") as s:
        live = Live(s, options)
        for do, fields in moves:
            live.do(do, **fields)
        history = game_history(s, 1)
        assert told(history.points) == live.expected()
        assert history.status == ("over" if live.snap["game_over"] else "playing")
        assert (history.totals is not None) == live.snap["game_over"]
        if live.snap["game_over"]:
            assert list(history.ranking or ()) == [
                (r["player"], r["score"]) for r in live.snap["ranking"]
            ]
        standing = standing_draws(live.snap)
        f = fairness(s)
        assert f.draws == len(standing)
        assert f.cubes == sum(len(d["drawn"]) for d in standing)
        assert f.observed.get("black", 0) == sum(d["drawn"].count("black") for d in standing)
        assert sum(f.expected.values()) == pytest.approx(f.cubes)
        assert 0.0 <= f.p_value <= 1.0
