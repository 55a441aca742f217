"""Invariants over thousands of random action sequences (hypothesis)."""

from __future__ import annotations

import copy

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.kinds.clank.catalog import load_catalog
from companion.kinds.clank.rules import RuleError, make_setup
from companion.kinds.clank.table import Table

COLOURS = ["red", "yellow", "green", "blue", "purple", "orange"]


def _names(edition: str, *kinds: str) -> list[str]:
    return sorted({t.name for t in load_catalog(edition).tokens_of(*kinds)})


def _cards(edition: str, dungeon: bool) -> list[str]:
    cards = load_catalog(edition).cards.values()
    return sorted(c.name for c in cards if c.in_dungeon_deck or not dungeon)


def actions(edition: str, players: list[str]) -> st.SearchStrategy:
    player = st.sampled_from(players + ["nobody"])
    dungeon = st.sampled_from(_cards(edition, True) + ["No Such Card"])
    any_card = st.sampled_from(_cards(edition, False))
    small = st.integers(-6, 8)
    return st.one_of(
        st.builds(lambda p, n: {"do": "clank", "player": p, "n": n}, player, small),
        st.builds(lambda c: {"do": "end_turn", "revealed": c}, st.lists(dungeon, max_size=3)),
        st.builds(lambda c: {"do": "row", "cards": c}, st.lists(dungeon, max_size=6)),
        st.builds(lambda c: {"do": "take", "card": c}, dungeon),
        st.just({"do": "attack"}),
        st.builds(lambda n: {"do": "rage", "n": n}, small),
        st.builds(
            lambda p, v: {"do": "artifact", "player": p, "value": v},
            player,
            st.sampled_from([5, 7, 10, 12, 15, 17, 20, 25, 30, 99]),
        ),
        st.builds(
            lambda p, n: {"do": "secret", "player": p, "name": n},
            player,
            st.sampled_from(_names(edition, "major_secret", "minor_secret") + ["x"]),
        ),
        st.builds(
            lambda p, n: {"do": "token", "player": p, "name": n},
            player,
            st.sampled_from(_names(edition, "market", "special")),
        ),
        st.builds(
            lambda p, n, c: {"do": "buy", "player": p, "item": n, "coupon": c},
            player,
            st.sampled_from(_names(edition, "market")),
            st.booleans(),
        ),
        st.builds(lambda p, n: {"do": "gold", "player": p, "n": n}, player, small),
        st.builds(
            lambda p, n, v: {"do": "damage", "player": p, "n": n, "voluntary": v},
            player,
            st.integers(0, 6),
            st.booleans(),
        ),
        st.builds(lambda p, n: {"do": "heal", "player": p, "n": n}, player, st.integers(0, 4)),
        st.builds(lambda p, b: {"do": "depths", "player": p, "in": b}, player, st.booleans()),
        st.builds(lambda p: {"do": "escape", "player": p}, player),
        st.just({"do": "ghost"}),
        st.builds(lambda p: {"do": "shrine", "player": p}, player),
        st.builds(
            lambda p, n: {"do": "prisoner", "player": p, "name": n},
            player,
            st.sampled_from(_names(edition, "prisoner") + ["nobody"]),
        ),
        st.builds(
            lambda p, c: {"do": "cards", "player": p, "cards": c},
            player,
            st.lists(any_card, max_size=4),
        ),
        st.just({"do": "undo"}),
        st.just({"do": "deck_out"}),
        st.just({"do": "oops"}),
    )


@st.composite
def games(draw, edition):
    party = draw(st.booleans())
    count = draw(st.integers(2, 6 if party else 4))
    players = COLOURS[:count]
    options = {
        "edition": edition,
        "players": players,
        "party": party,
        "health": draw(st.integers(3, 10)),
    }
    script = draw(st.lists(actions(edition, players), min_size=1, max_size=80))
    return options, script


def check_invariants(table: Table) -> None:
    game = table.game
    s = game.state
    ed = game.edition
    for name, p in s.players.items():
        total = p.supply + s.area[name] + s.bag[name] + p.meter + p.shrines + s.set_aside[name]
        assert total == ed.cubes_per_player, (name, total)
        assert 0 <= p.damage <= game.setup.health
        assert min(p.meter, p.meter_black, p.meter_box) >= 0  # box markers: never the 24
        assert p.damage < game.setup.health or not p.playing
        assert p.gold >= 0 and p.credit >= 0
        assert len(p.artifacts) <= 1 + p.tokens.get("backpack", 0)
    black_on_meters = sum(p.meter_black for p in s.players.values())
    assert s.bag["black"] + s.set_aside["black"] + black_on_meters == ed.black_cubes
    assert s.ghost_treasury + s.area["ghost"] + s.bag["ghost"] == ed.ghost_cubes
    assert 0 <= s.rage < len(game.setup.rage_track)
    assert len(s.row) <= ed.row_size
    assert all(v >= 0 for v in [*s.bag.values(), *s.area.values(), *s.set_aside.values()])
    # the game is over exactly when nobody is left inside
    assert s.game_over == (not s.in_dungeon())
    nonces = [d.nonce for d in game.draws]
    assert nonces == list(range(1, len(nonces) + 1))


def _without_draws(snapshot: dict) -> dict:
    """The state an undo restores: everything but the draw record, which keeps undone draws."""
    return copy.deepcopy({k: v for k, v in snapshot.items() if k != "draws"})


def run_random_game(case) -> None:
    options, script = case
    table = Table(make_setup(options), "ab" * 32)
    check_invariants(table)
    # what the table looked like after each action still on the undo stack
    undo_stack = [_without_draws(table.snapshot())]
    for action in script:
        before = copy.deepcopy(table.snapshot())
        draws_before = len(table.game.draws)
        try:
            table.apply(action)
        except RuleError as e:
            assert str(e) and "\n" not in str(e)
            assert table.snapshot() == before, action
            assert len(table.game.draws) == draws_before
        else:
            if action["do"] == "undo":
                undo_stack.pop()
                assert _without_draws(table.snapshot()) == undo_stack[-1]
            else:
                undo_stack.append(_without_draws(table.snapshot()))
        check_invariants(table)
    if table.game.state.game_over:
        snap = table.snapshot()
        assert snap["server_seed"] == "ab" * 32
        assert all(p["score"] is not None for p in snap["players"].values())
        assert [r["score"] for r in snap["ranking"]] == sorted(
            (r["score"] for r in snap["ranking"]), reverse=True
        )


PROPERTY = settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(games("clank"))
def test_random_base_games_keep_every_cube_and_reject_cleanly(case):
    """1,000 random games (hypothesis), each played to its end or its refusals: 8-20 s."""
    run_random_game(case)


@PROPERTY
@given(games("catacombs"))
def test_random_catacombs_games_keep_every_cube_and_reject_cleanly(case):
    """1,000 random Catacombs games, as for the base game: 8-20 s."""
    run_random_game(case)
