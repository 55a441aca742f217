"""The game controller: what taps, scans and buttons do to the game, the LEDs and screens."""

from __future__ import annotations

import pytest

from companion.kinds.clank.controller import Controller, Update
from companion.store import GameStore
from companion.store.tags import TagRegistry, resolve
from tests.helpers import hypergeometric

NEW = {"edition": "clank", "players": ["red", "blue"], "server_seed": "2b" * 32}
TAGS = {
    "01": ("card", "clank", "Ladder"),
    "02": ("card", "clank", "Tattle"),
    "03": ("card", "clank", "Orc Grunt"),
    "04": ("card", "clank", "Sneak"),
    "05": ("card", "clank", "Search"),
    "06": ("card", "clank", "Swagger"),
    "07": ("card", "clank", "Dead Run"),
    "A0": ("artifact", "clank", "20"),
    "E0": ("minor_secret", "clank", "dragon egg"),
    "B0": ("badge", None, "red"),
    "C0": ("prisoner", "catacombs", "priest"),
    "D0": ("special", "clank", "monkey idol"),
}


class Lights:
    def __init__(self) -> None:
        self.patterns: list[str] = []

    def signal(self, pattern: str) -> None:
        self.patterns.append(pattern)


@pytest.fixture
def setup(tmp_path):
    store = GameStore(tmp_path / "games.db")
    registry = TagRegistry(store.db)
    for uid, (kind, edition, name) in TAGS.items():
        registry.bind(uid.ljust(8, "0"), resolve(kind, edition, name))
    lights = Lights()
    controller = Controller(store, registry=registry, signals=lights)
    heard: list[Update] = []
    controller.listeners.append(heard.append)
    yield controller, lights, heard, tmp_path
    store.close()


def uid(short: str) -> str:
    return short.ljust(8, "0")


def test_taps_become_committed_actions(setup):
    controller, _, heard, _ = setup
    controller.new_game(NEW)
    assert controller.clank(2)
    assert controller.snapshot()["clank_area"]["red"] == 5
    assert controller.clank(1, player="blue")
    assert controller.undo()
    assert controller.snapshot()["clank_area"]["blue"] == 2
    assert [u.kind for u in heard] == ["game", "action", "action", "action"]
    assert not controller.clank(1, player="pink")
    assert heard[-1].kind == "rejected" and "unknown player" in heard[-1].message


def test_the_refill_is_scanned_and_commits_itself_when_the_row_is_full(setup):
    controller, lights, heard, _ = setup
    controller.new_game(NEW)
    controller.do({"do": "row", "cards": ["Ladder", "Tattle", "Sneak", "Search", "Swagger"]})
    controller.scan(uid("01"))  # a card in the row, outside a refill: taken
    assert controller.snapshot()["row"] == ["Tattle", "Sneak", "Search", "Swagger"]
    assert controller.end_turn()
    assert heard[-1].what == "refill" and "scan the 2 revealed cards" in heard[-1].message
    controller.scan(uid("07"))
    assert controller.snapshot()["refill"] == ["Dead Run"]
    assert controller.undo()  # takes back the revealed card, not an action
    assert controller.snapshot()["refill"] == []
    controller.scan(uid("07"))
    controller.scan(uid("03"))  # Orc Grunt: the dragon attacks, and the row is full
    snap = controller.snapshot()
    assert snap["refill"] is None
    assert snap["row"][-2:] == ["Dead Run", "Orc Grunt"]
    assert snap["turn"]["active"] == "blue"
    assert len(snap["draws"]) == 1
    assert lights.patterns[-1] == "attack"


@pytest.mark.parametrize("how", ["row full", "end turn again"])
def test_listeners_never_see_a_committed_refill_still_open(setup, how):
    """The screen redraws as it hears of the action: a refill bar still shown there was
    tapped, and ended the next player's turn with nothing revealed."""
    controller, _, heard, _ = setup
    controller.new_game(NEW)
    row = ["Ladder", "Tattle", "Sneak", "Search", "Swagger"]
    controller.do({"do": "row", "cards": row if how == "row full" else row[:4]})
    seen: list[object] = []
    controller.listeners.append(
        lambda update: seen.append((update.kind, controller.snapshot()["refill"]))
    )
    controller.end_turn()
    controller.scan(uid("07"))
    if how == "end turn again":
        controller.end_turn()
    actions = [refill for kind, refill in seen if kind == "action"]
    assert actions == [None]
    assert controller.snapshot()["turn"]["active"] == "blue"


def test_a_refused_refill_keeps_its_revealed_cards(setup):
    controller, _, heard, _ = setup
    controller.new_game(NEW)
    controller.begin()
    controller.end_turn()
    controller.scan(uid("07"))
    controller.store.db.execute("PRAGMA query_only = ON")  # the write fails
    assert not controller.end_turn()
    controller.store.db.execute("PRAGMA query_only = OFF")
    assert controller.snapshot()["refill"] == ["Dead Run"]
    assert heard[-1].kind == "rejected"


def test_end_turn_twice_commits_a_short_refill(setup):
    controller, _, _, _ = setup
    controller.new_game(NEW)
    controller.begin()  # no opening row laid out: the first turn starts
    controller.end_turn()
    controller.scan(uid("02"))
    controller.end_turn()
    snap = controller.snapshot()
    assert snap["row"] == ["Tattle"] and snap["turn"]["active"] == "blue"


def test_tokens_scanned_for_the_active_player(setup):
    controller, lights, _, _ = setup
    controller.new_game(NEW)
    controller.scan(uid("A0"))
    controller.scan(uid("E0"))
    controller.scan(uid("D0"))
    red = controller.snapshot()["players"]["red"]
    assert red["artifacts"] == [20] and red["secrets"] == {"dragon egg": 1}
    assert red["tokens"] == {"monkey idol": 1}
    assert controller.snapshot()["rage"]["space"] == 5  # 2 players start on 3, +2
    assert lights.patterns == ["scan_ok"] * 3


def test_unknown_badge_and_foreign_tags(setup):
    controller, lights, heard, _ = setup
    controller.scan("DEADBEEF")
    assert heard[-1].kind == "unknown_tag" and heard[-1].uid == "DEADBEEF"
    controller.scan(uid("B0"))
    assert heard[-1].kind == "seat" and heard[-1].component.name == "red"
    controller.new_game(NEW)
    controller.scan(uid("C0"))  # a Catacombs prisoner in a base game
    assert heard[-1].kind == "rejected" and "not in this game's box" in heard[-1].message
    assert lights.patterns == ["unknown_tag", "scan_ok", "unknown_tag"]


def test_a_knock_out_is_signalled(setup):
    controller, lights, _, _ = setup
    controller.new_game({**NEW, "health": 1})
    controller.do({"do": "damage", "player": "blue", "n": 1})
    assert lights.patterns == ["knocked_out"]


def test_after_a_power_cut_the_last_game_resumes_without_asking(setup):
    controller, _, _, tmp_path = setup
    controller.new_game(NEW)
    controller.clank(3)
    controller.end_turn()
    controller.scan(uid("03"))
    controller.end_turn()
    before = controller.snapshot()
    game = controller.game_id
    # the app is gone (its game is free again); a new one opens the same database
    controller.store.close()
    again = Controller(GameStore(tmp_path / "games.db"))
    assert again.resume_last() is not None
    assert again.snapshot() == before
    assert again.game_id == game


@pytest.mark.parametrize("cut", [True, False])
def test_a_refill_ended_by_its_last_card_resumes_whole_after_a_power_cut(setup, cut):
    """The turn the refill ends and the refill closed are one commit: the power cut at
    its write (the closed refill refused, as a write cut short is) leaves neither, and
    the table resumes with the refill open and the cards scanned before; the write
    done, both."""
    controller, _, _, tmp_path = setup
    controller.new_game(NEW)
    controller.do({"do": "row", "cards": ["Ladder", "Tattle", "Sneak", "Search"]})
    controller.end_turn()
    controller.scan(uid("07"))
    db = controller.store.db
    if cut:  # the write of the closed refill fails: the whole commit with it
        for when in ("INSERT", "UPDATE"):
            db.execute(
                f"CREATE TRIGGER cut_{when.lower()} BEFORE {when} ON in_progress "
                "WHEN json_extract(NEW.body, '$.refill') IS NULL "
                "BEGIN SELECT RAISE(ABORT, 'power cut'); END"
            )
    controller.scan(uid("03"))  # the row's last card: the refill ends the turn
    game = controller.game_id
    controller.store.close()
    again = Controller(GameStore(tmp_path / "games.db"))
    assert again.resume_last() is not None and again.game_id == game
    snap = again.snapshot()
    if cut:  # the card whose scan the cut stopped is scanned again
        assert snap["refill"] == ["Dead Run"]
        assert snap["turn"]["active"] == "red" and snap["draws"] == []
    else:
        assert snap["refill"] is None
        assert snap["turn"]["active"] == "blue" and snap["row"][-2:] == ["Dead Run", "Orc Grunt"]
    again.store.close()


def test_nothing_to_resume_and_no_game(setup):
    controller, _, heard, _ = setup
    assert controller.resume_last() is None
    assert not controller.do({"do": "attack"})
    assert not controller.end_turn()
    assert heard[-1].message == "no game is running"


@pytest.mark.parametrize(
    "saved",
    [
        '{"refill": 5}',
        '{"refill": [1, 2]}',
        '{"opening": [{"uid": "x"}]}',
        '{"opening": "row", "words": 7}',
        '{"scoring": "nobody"}',
        "[1, 2, 3]",
        "not json",
    ],
)
def test_a_damaged_work_in_progress_row_does_not_stop_the_start(setup, saved):
    controller, _, _, tmp_path = setup
    controller.new_game(NEW)
    controller.begin()
    controller.clank(2)
    before = controller.snapshot()
    controller.store.db.execute("UPDATE in_progress SET body = ?", [saved])
    controller.store.close()
    again = Controller(GameStore(tmp_path / "games.db"))
    assert again.resume_last() is not None
    assert again.snapshot() == before
    assert again.view().phase == "playing"
    again.store.close()


def _exact(bag: int, mine: int, drawn: int, health: int) -> list[float]:
    out = [hypergeometric(bag, mine, drawn, k) for k in range(health)]
    return out + [1 - sum(out)]


def test_the_odds_are_those_of_the_next_draw_that_is_sure_to_come(tmp_path):
    """A refill's attack; the countdown's draw once a player is out (Clank!); an out
    player's draw (Catacombs: 4 cubes, 6 with two players)."""
    with GameStore(tmp_path / "games.db") as store:
        ctl = Controller(store)
        ctl.new_game({"edition": "clank", "players": ["red", "yellow", "blue"]})
        ctl.begin()
        ctl.clank(3, "red")
        view = ctl.view()
        assert view.odds_reason == "attack" and view.odds_count == view.next_attack
        bag = sum(n for _k, n in view.bag) + sum(p.clank for p in view.players)
        red = view.player("red")
        assert red.odds == pytest.approx(_exact(bag, red.clank, view.odds_count, red.health))
        ctl.do({"do": "artifact", "player": "red", "value": 20})
        ctl.do({"do": "escape", "player": "red"})  # the countdown starts at space 1
        view = ctl.view()
        assert view.countdown == ("red", 1)
        assert view.odds_reason == "countdown" and view.odds_count == view.next_attack + 1
        assert "red" not in {p.name for p in view.players if p.odds}  # out: no odds
        ctl.do({"do": "damage", "player": "yellow", "n": 10})
        ctl.do({"do": "damage", "player": "blue", "n": 10})
        assert ctl.view().odds_reason == "" and not any(p.odds for p in ctl.view().players)

    with GameStore(tmp_path / "catacombs.db") as store:
        ctl = Controller(store)
        ctl.new_game({"edition": "catacombs", "players": ["red", "blue"]})
        ctl.begin()
        ctl.do({"do": "ghost"})
        ctl.do({"do": "damage", "player": "blue", "n": 10})  # blue is out
        view = ctl.view()
        assert view.odds_reason == "out_draw" and view.odds_count == 6  # two players
        red = view.player("red")
        bag = sum(n for _k, n in view.bag) + sum(p.clank for p in view.players) + 1
        hurting = red.clank + dict(view.bag)["red"] + 1  # the ghost hurts red too
        assert red.odds == pytest.approx(_exact(bag, hurting, 6, red.health))


def test_the_typed_words_are_no_longer_than_a_scripts_client_seed(setup):
    from companion.script import MAX_CLIENT_SEED

    controller, _, _, _ = setup
    controller.new_game(NEW)
    controller.set_words("ж" * (MAX_CLIENT_SEED * 3))
    assert controller.words == "ж" * MAX_CLIENT_SEED
