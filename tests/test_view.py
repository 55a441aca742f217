"""The typed view the screens read: made from the controller alone, words chosen at the
edge, what just happened in one line."""

from __future__ import annotations

import pytest

from companion import i18n
from companion.kinds.clank import controller as controller_module
from companion.kinds.clank.controller import Controller
from companion.kinds.clank.view import TableView, attacks_of
from companion.live import Update
from companion.store import GameStore
from companion.store.tags import resolve

NEW = {"edition": "clank", "players": ["red", "blue", "green"], "server_seed": "5a" * 32}


@pytest.fixture
def ctl(tmp_path):
    store = GameStore(tmp_path / "games.db")
    controller = Controller(store)
    yield controller
    store.close()


def test_no_game_is_an_empty_view(ctl):
    view = ctl.view()
    assert view == TableView(phase="none")


def test_the_view_follows_the_game(ctl):
    ctl.new_game(NEW)
    assert ctl.view().phase == "opening"
    ctl.do(
        {"do": "row", "cards": ["Ladder", "Dragon Shrine", "Pickaxe", "Lucky Coin", "Tunnel Guide"]}
    )
    view = ctl.view()
    assert view.phase == "playing" and view.game == 1 and view.active == "red"
    assert [p.name for p in view.players] == ["red", "blue", "green"]
    assert [p.active for p in view.players] == [True, False, False]
    assert [k for k, _ in view.bag] == ["black", "red", "blue", "green"]
    assert dict(view.bag)["black"] > 0
    assert {c.name: c.danger for c in view.row}["Dragon Shrine"] is True
    assert view.next_attack == view.rage_track[view.rage_space - 1] + view.danger
    assert len(view.head) == 64 and len(view.commitment) == 64
    before = view.player("red").clank
    ctl.clank(2)
    view = ctl.view()
    assert view.player("red").clank == before + 2
    assert view.last == "red +2 clank"
    ctl.do({"do": "artifact", "player": "red", "value": 20})
    assert 20 not in ctl.view().artifacts_left
    assert ctl.view().last == "red took the artifact 20"
    ctl.undo()
    view = ctl.view()
    assert view.last == "Undo: red took the artifact 20"
    assert 20 in view.artifacts_left
    ctl.end_turn()
    ctl.scan_component(__import__("companion.store.tags", fromlist=["resolve"]).resolve(
        "card", "clank", "Orc Grunt"))  # fmt: skip
    view = ctl.view()
    assert view.active == "blue" and not view.refilling
    assert view.last.startswith("turn over: 1 card revealed · the dragon drew")
    assert view.draws[-1].bag[0][0] == "black"


def test_a_refill_in_the_view(ctl):
    ctl.new_game(NEW)
    ctl.do({"do": "row", "cards": ["Ladder", "Pickaxe", "Lucky Coin", "Tunnel Guide"]})
    ctl.end_turn()
    view = ctl.view()
    assert view.refilling and view.refill_space == 2
    assert view.last == "scan the 2 revealed cards"
    ctl.reveal_untagged(dragon=False)
    view = ctl.view()
    assert [c.revealed for c in view.row][-1] is True and view.refill_space == 1


# ------------------------------------------------------------ one view for one table
@pytest.fixture
def made(monkeypatch):
    """Every view the controller makes, as it makes it."""
    views: list[TableView] = []
    real = controller_module.make_view

    def counted(*args, **kwargs):
        views.append(real(*args, **kwargs))
        return views[-1]

    monkeypatch.setattr(controller_module, "make_view", counted)
    return views


def test_a_drawing_scan_makes_the_view_once(ctl, made):
    """The scan that ends a refill makes the dragon attack: the attack told with the
    action and every screen that redraws read the one view made after it."""
    ctl.new_game(NEW)
    ctl.do({"do": "row", "cards": ["Ladder", "Pickaxe", "Lucky Coin", "Tunnel Guide", "Sneak"]})
    ctl.end_turn()
    heard: list[Update] = []
    read: list[TableView] = []

    def screens(update: Update) -> None:  # the table, the panel, the status bar redraw
        heard.append(update)
        read.extend(ctl.view() for _ in range(3))

    ctl.listeners.append(screens)
    made.clear()
    ctl.scan_component(resolve("card", "clank", "Orc Grunt"))
    read.append(ctl.view())
    assert len(made) == 1
    assert all(view is made[0] for view in read)
    assert [u.kind for u in heard] == ["action"]
    (attack,) = attacks_of(heard[0].detail)
    assert attack.draw == made[0].draws[-1] and attack.draw.drawn
    assert made[0].active == "blue" and not made[0].refilling


def test_the_view_is_made_again_for_what_it_shows(ctl, made):
    """Nothing keeps the view by hand: a tap refused (what just happened), a revealed card
    taken back (the work in progress), another language each make it again."""
    ctl.new_game(NEW)
    ctl.do({"do": "row", "cards": ["Ladder", "Pickaxe", "Lucky Coin", "Tunnel Guide"]})
    first = ctl.view()
    assert ctl.view() is first
    assert not ctl.clank(1, player="pink")
    refused = ctl.view()
    assert refused is not first and refused.last != first.last and "pink" in refused.last
    ctl.end_turn()
    ctl.reveal_untagged(dragon=False)
    assert ctl.view().refill_space == 1
    ctl.undo()  # the revealed card, not an action
    assert ctl.view().refill_space == 2 and ctl.view().row == first.row
    before = len(made)
    try:
        i18n.set_language("es")
        assert ctl.view() is not made[before - 1] and len(made) == before + 1
    finally:
        i18n.set_language("en")


# ------------------------------------------- the More menu and the guessed prisoner counts
def _prisoners_offered(ctl: Controller, player: str) -> list[str]:
    return [o.name for o in ctl.offers(player) if o.what == "prisoner"]


def test_a_guessed_prisoner_count_does_not_stop_the_offer(ctl):
    """The Catacombs books print 20 prisoners but not how many of each kind: the catalog's
    count per kind is a guess (settings.unconfirmed "prisoners"), so the More menu keeps
    offering a kind past it, as a scan frees it, until the box's 20 are out."""
    ctl.new_game({"edition": "catacombs", "players": ["red", "blue"], "server_seed": "5a" * 32})
    ctl.begin()
    assert "prisoners" in ctl.snapshot()["settings"]["unconfirmed"]
    for _ in range(3):  # the catalog guesses one mayor
        assert "mayor" in _prisoners_offered(ctl, "red")
        ctl.do({"do": "prisoner", "player": "red", "name": "mayor"})
    assert "mayor" in _prisoners_offered(ctl, "blue")
    for _ in range(17):  # 20 freed in all: the box is empty, whatever the kinds
        ctl.do({"do": "prisoner", "player": "blue", "name": "peasant"})
    assert _prisoners_offered(ctl, "red") == []


def test_a_corrected_prisoner_count_limits_the_offer(ctl):
    from companion.kinds.clank.catalog import load_catalog

    kinds = [t.name for t in load_catalog("catacombs").tokens_of("prisoner")]
    counts = dict.fromkeys(kinds, 1) | {"mayor": 2, "peasant": 7}
    ctl.new_game({"edition": "catacombs", "players": ["red", "blue"], "server_seed": "5a" * 32,
                  "prisoners": counts})  # fmt: skip
    ctl.begin()
    assert "prisoners" not in ctl.snapshot()["settings"]["unconfirmed"]
    ctl.do({"do": "prisoner", "player": "red", "name": "mayor"})
    assert "mayor" in _prisoners_offered(ctl, "red")
    ctl.do({"do": "prisoner", "player": "blue", "name": "mayor"})
    offered = _prisoners_offered(ctl, "red")
    assert "mayor" not in offered and "peasant" in offered  # the table's two are out
