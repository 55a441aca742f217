"""The Catacombs box holds 20 prisoners («20 пленников», ru l.146; uk l.115): no more
than 20 are ever freed, and once the table has counted each kind on its own tokens (the
`prisoners` option of the `new` line) no kind is freed more often than it counted. A
refusal changes nothing and writes nothing."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.cli import main
from companion.kinds.clank.catalog import load_catalog
from companion.kinds.clank.controller import Controller, Update
from companion.kinds.clank.legal import legal_actions
from companion.kinds.clank.rules import Game, RuleError
from companion.session import Session
from companion.store import GameStore
from companion.store.tags import TagRegistry, resolve
from tests.helpers import new_game

SHIPPED = load_catalog("catacombs").tokens_of("prisoner")
PRISONERS = [t.name for t in SHIPPED]
BOX = 20
# the table's count: one adventurer and three peasants, the rest as counted, 20 in all
CORRECTED = dict.fromkeys(PRISONERS, 1) | {
    "adventurer": 1,
    "peasant": 3,
    "barbarian": 2,
    "warrior": 2,
    "haunted": 2,
    "priest": 2,
    "mayor": 2,
}
SEED = "5a" * 32


def catacombs(**options) -> Game:
    return new_game("catacombs", players=("red", "blue"), **options)


def free(game: Game, name: str, player: str = "red") -> None:
    game.apply({"do": "prisoner", "player": player, "name": name})


def freed(game: Game) -> Counter[str]:
    return Counter(n for p in game.state.players.values() for n in p.prisoners)


def refused_unchanged(game: Game, name: str, reason: str, player: str = "red") -> None:
    """The prisoner is refused with ``reason``, and the game is as it was."""
    before = game.snapshot()
    with pytest.raises(RuleError, match=reason) as refusal:
        free(game, name, player)
    assert str(refusal.value).startswith("prisoner: ")
    assert game.snapshot() == before


def test_the_box_and_the_correction_add_up_to_20():
    assert sum(t.count for t in SHIPPED) == BOX  # the catalog's guesses keep the printed total
    assert sum(CORRECTED.values()) == BOX and set(CORRECTED) == set(PRISONERS)


# ------------------------------------------------------------------ the box's 20
def test_a_21st_prisoner_is_refused():
    """With the guessed counts any kind may be freed past its guess (a scan frees what
    the table holds), but never a 21st prisoner."""
    game = catacombs()
    for i in range(BOX):  # five mayors where the catalog guesses one
        free(game, "mayor" if i < 5 else PRISONERS[i % len(PRISONERS)], ("red", "blue")[i % 2])
    assert freed(game).total() == BOX
    for name in ("mayor", "adventurer", "discount coupon"):
        refused_unchanged(game, name, "no prisoner is left to free: the box's 20 are all freed")
    refused_unchanged(game, "peasant", "the box's 20", player="blue")


def test_a_prisoner_taken_back_can_be_freed_again():
    game = catacombs()
    for i in range(BOX):
        free(game, PRISONERS[i % len(PRISONERS)])
    game.apply({"do": "undo"})
    free(game, "priest")
    assert freed(game).total() == BOX
    refused_unchanged(game, "priest", "the box's 20")


# -------------------------------------------------------------- the table's count
def test_a_corrected_count_limits_each_kind():
    game = catacombs(prisoners=CORRECTED)
    rage = game.state.rage
    free(game, "adventurer")
    assert game.state.rage == rage + 1  # rage +1 for the one adventurer
    refused_unchanged(game, "adventurer", "no adventurer is left to free: the box holds 1")
    assert game.state.rage == rage + 1
    for _ in range(3):
        free(game, "peasant", "blue")
    refused_unchanged(game, "peasant", "no peasant is left to free: the box holds 3, all freed")
    refused_unchanged(game, "peasant", "no peasant is left", player="blue")
    free(game, "mayor")  # the other kinds are still there
    assert freed(game) == Counter({"adventurer": 1, "peasant": 3, "mayor": 1})


def test_every_counted_prisoner_is_freed_and_then_none():
    game = catacombs(prisoners=CORRECTED)
    for name, count in CORRECTED.items():
        for _ in range(count):
            free(game, name)
    assert freed(game) == Counter(CORRECTED)
    for name in PRISONERS:
        refused_unchanged(game, name, f"no {name} is left to free")


@pytest.mark.parametrize("total", [0, 19, 21, 33, 13 * 20])
def test_a_correction_must_add_up_to_the_box(total):
    counts = dict.fromkeys(PRISONERS, 0)
    for i in range(total):
        counts[PRISONERS[i % len(PRISONERS)]] += 1
    with pytest.raises(RuleError, match=f"the box's 20 prisoners \\(these add up to {total}\\)"):
        catacombs(prisoners=counts)


def test_a_correction_of_20_is_taken():
    game = catacombs(prisoners=dict.fromkeys(PRISONERS, 0) | {"peasant": 20})
    for _ in range(BOX):
        free(game, "peasant")
    refused_unchanged(game, "peasant", "no peasant is left to free: the box holds 20")
    refused_unchanged(game, "mayor", "no mayor is in the box: the table counted none")


# --------------------------------------------- the offers and the rules agree
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    corrected=st.booleans(),
    steps=st.lists(
        st.one_of(
            st.tuples(st.sampled_from(["red", "blue"]), st.sampled_from(PRISONERS)),
            st.just("undo"),
        ),
        max_size=40,
    ),
)
def test_the_menu_offers_a_prisoner_exactly_when_the_rules_take_it(corrected, steps):
    """Whatever the table frees and takes back, no kind goes past its count once
    counted, the box never past 20, and the More menu offers a kind exactly when the
    rules would free it."""
    game = catacombs(**({"prisoners": CORRECTED} if corrected else {}))
    for step in steps:
        try:
            if step == "undo":
                game.apply({"do": "undo"})
            else:
                free(game, step[1], step[0])
        except RuleError:
            pass
        counts = freed(game)
        assert counts.total() <= BOX
        if corrected:
            assert all(counts[name] <= CORRECTED[name] for name in PRISONERS), counts
        offered = {o.name for o in legal_actions(game, "red") if o.what == "prisoner"}
        for name in PRISONERS:
            before = game.snapshot()
            try:
                free(game, name)
            except RuleError:
                taken = False
            else:
                taken = True
                game.apply({"do": "undo"})
            assert game.snapshot() == before
            assert taken == (name in offered), (name, counts)


# ------------------------------------------------ the log, the script, the screen
def test_a_refused_prisoner_writes_nothing(tmp_path):
    with GameStore(tmp_path / "games.db") as store:
        table = Session(store).start(
            {"edition": "catacombs", "players": ["red", "blue"], "server_seed": SEED,
             "prisoners": CORRECTED}
        )  # fmt: skip
        table.apply({"do": "prisoner", "player": "red", "name": "adventurer"})
        head = store.chain_head(1)
        with pytest.raises(RuleError, match="no adventurer is left"):
            table.apply({"do": "prisoner", "player": "blue", "name": "adventurer"})
        assert store.chain_head(1) == head
        assert [r["seq"] for r in store.records(1)] == [1, 2]


def test_a_script_that_frees_a_21st_prisoner_stops_there(tmp_path, capsys):
    lines = [{"new": {"edition": "catacombs", "players": ["red", "blue"], "server_seed": SEED}}]
    lines += [{"do": "prisoner", "player": "red", "name": "peasant"}] * (BOX + 1)
    script = tmp_path / "game.jsonl"
    script.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    assert main(["replay", str(script)]) == 2
    err = capsys.readouterr().err
    assert f"line {BOX + 2}" in err and "the box's 20 are all freed" in err, err


def test_a_script_whose_correction_adds_up_to_33_is_refused(tmp_path, capsys):
    counts = dict.fromkeys(PRISONERS, 2) | {"peasant": 9}
    new = {"edition": "catacombs", "players": ["red", "blue"], "prisoners": counts}
    script = tmp_path / "game.jsonl"
    script.write_text(json.dumps({"new": new}) + "\n", encoding="utf-8")
    db = tmp_path / "games.db"
    assert main(["replay", str(script), "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert "the box's 20 prisoners (these add up to 33)" in err, err
    with GameStore(db) as store:
        assert store.games() == []


def test_a_refused_prisoner_reaches_the_status_line(tmp_path):
    """A scanned prisoner the box no longer holds is told as any refusal is: a
    "rejected" update, which the status line shows."""
    with GameStore(tmp_path / "games.db") as store:
        registry = TagRegistry(store.db)
        registry.bind("C0C0C0C0", resolve("prisoner", "catacombs", "adventurer"))
        ctl = Controller(store, registry=registry)
        heard: list[Update] = []
        ctl.listeners.append(heard.append)
        ctl.new_game({"edition": "catacombs", "players": ["red", "blue"], "server_seed": SEED,
                      "prisoners": CORRECTED})  # fmt: skip
        ctl.begin()
        assert ctl.do({"do": "prisoner", "player": "red", "name": "adventurer"})
        before, head = ctl.snapshot(), store.chain_head(1)
        ctl.scan("C0C0C0C0")
        assert heard[-1].kind == "rejected", heard[-1]
        assert "no adventurer is left to free" in heard[-1].message
        assert ctl.snapshot() == before and store.chain_head(1) == head


def test_the_box_is_told_in_the_tables_language():
    from companion import i18n

    game = catacombs(prisoners=CORRECTED)
    free(game, "adventurer")
    try:
        for lang in ("ru", "uk", "es"):
            i18n.set_language(lang)
            with pytest.raises(RuleError) as refusal:
                free(game, "adventurer")
            shown = refusal.value.localized("catacombs")
            assert "adventurer" in shown and "1" in shown and "no adventurer" not in shown
    finally:
        i18n.set_language("en")
