"""Set-up per player count, editions and the options a table may correct."""

import pytest

from companion import i18n
from companion.kinds.clank.catalog import load_catalog
from companion.kinds.clank.catalog.load import UNCONFIRMED_NAMES
from companion.kinds.clank.checklist import setup_checklist, unconfirmed_label
from companion.kinds.clank.rules import RuleError, make_setup
from companion.session import Session
from tests.helpers import do, new_game

FOUR = ["red", "yellow", "green", "blue"]
PRISONERS = [t.name for t in load_catalog("catacombs").tokens_of("prisoner")]


@pytest.mark.parametrize(("players", "space", "draw"), [(2, 3, 3), (3, 2, 2), (4, 1, 2)])
def test_rage_start_by_player_count(players, space, draw):
    game = new_game(players=FOUR[:players])
    snap = game.snapshot()
    assert snap["rage"] == {"space": space, "draw": draw, "track": [2, 2, 3, 3, 4, 4, 5]}


def test_starting_clank_by_seat_and_cubes():
    snap = new_game(players=FOUR).snapshot()
    assert snap["clank_area"] == {"red": 3, "yellow": 2, "green": 1, "blue": 0, "ghost": 0}
    assert [p["supply"] for p in snap["players"].values()] == [27, 28, 29, 30]
    assert snap["bag"] == {"black": 24, "red": 0, "yellow": 0, "green": 0, "blue": 0, "ghost": 0}
    assert snap["turn"] == {"active": "red", "number": 1}
    assert all(p["health"] == 10 and p["status"] == "playing" for p in snap["players"].values())


def test_catacombs_has_five_ghosts_in_the_treasury():
    snap = new_game("catacombs", players=FOUR[:3]).snapshot()
    assert snap["treasury"] == {"ghost": 5}
    assert snap["clank_area"]["ghost"] == 0
    assert set(snap["settings"]["unconfirmed"]) == {
        "rage_track",
        "rage_start",
        "health",
        "artifacts",
        "minor_secrets",
        "chalice_vp",
        "backpack_vp",
        "crowns",
        "prisoners",
    }


@pytest.mark.parametrize(
    ("players", "removed"),
    [(2, "Remove 2 random artifacts"), (3, "Remove 1 random artifact unseen")],
)
def test_artifacts_removed_is_a_setup_instruction(players, removed):
    setup = make_setup({"edition": "clank", "players": FOUR[:players]})
    assert any(line.startswith(removed) for line in setup_checklist(setup))
    # all seven stay takeable: the app cannot know which ones the table removed
    assert sorted(new_game(players=FOUR[:players]).state.artifacts_left) == [
        5,
        7,
        10,
        15,
        20,
        25,
        30,
    ]


def test_four_players_remove_no_artifact():
    setup = make_setup({"edition": "clank", "players": FOUR})
    assert not any("artifact" in line for line in setup_checklist(setup))


def test_party_allows_six_players_with_empty_seats_five_and_six():
    six = FOUR + ["purple", "orange"]
    with pytest.raises(RuleError, match="2-4"):
        make_setup({"edition": "clank", "players": six})
    game = new_game("catacombs", players=six, party=True)
    snap = game.snapshot()
    assert snap["clank_area"]["purple"] == 0 and snap["clank_area"]["orange"] == 0
    assert snap["rage"]["space"] == 1
    assert "starting_clank.5" in snap["settings"]["unconfirmed"]
    # party artifacts join the pile
    assert game.state.artifacts_left.count(10) == 2


@pytest.mark.parametrize(
    ("options", "reason"),
    [
        ({"edition": "monopoly", "players": ["a", "b"]}, "unknown edition"),
        ({"edition": "clank", "players": ["red"]}, "1 players"),
        ({"edition": "clank", "players": ["red", "red"]}, "distinct"),
        ({"edition": "clank", "players": ["red", "Blue"]}, "lowercase"),
        ({"edition": "clank", "players": ["red", "black"]}, "cube kind"),
        ({"edition": "clank", "players": ["red", "blue"], "health": 0}, "health"),
        ({"edition": "clank", "players": ["red", "blue"], "rage_start": 9}, "rage_start"),
        ({"edition": "clank", "players": ["red", "blue"], "rage_track": []}, "rage_track"),
        ({"edition": "clank", "players": ["red", "blue"], "colour": 1}, "unknown field"),
    ],
)
def test_bad_new_game_options(options, reason):
    with pytest.raises(RuleError, match=reason):
        make_setup(options)


def test_table_corrects_unconfirmed_numbers():
    game = new_game(
        "catacombs",
        players=FOUR[:2],
        rage_track=[3, 3, 4, 4, 5, 5],
        rage_start=2,
        health=12,
        artifacts=[5, 8, 10, 12, 15, 18, 20],
        chalice_vp=6,
        backpack_vp=4,
        crowns=[8, 10, 9],
        prisoners=dict.fromkeys(PRISONERS, 1) | {"peasant": 8},
    )
    snap = game.snapshot()
    assert snap["rage"]["space"] == 2 and snap["rage"]["draw"] == 3
    assert snap["players"]["red"]["health"] == 12
    # the minor secrets' kinds are a catalog matter (tokens.csv), not a number of the new line
    assert snap["settings"]["unconfirmed"] == ["minor_secrets"]


# ------------------------------------------------ the Adventuring Party needs 5-6 players
@pytest.mark.parametrize("edition", ["clank", "catacombs"])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_party_adds_nothing_to_a_game_of_two_to_four(edition, players):
    """The party's artifacts, cloaks and master key join 5-6 player games only
    (Catacombs ru:1067-1081, uk:641-651): "party": true with 2-4 players is accepted, as
    the table script allows, and the game is the one without the party."""
    with_party = new_game(edition, players=FOUR[:players], party=True)
    without = new_game(edition, players=FOUR[:players])
    assert with_party.state.artifacts_left == without.state.artifacts_left
    assert with_party.state.stock == without.state.stock
    assert with_party.setup == without.setup and not with_party.setup.party
    assert with_party.snapshot()["party"] is False
    assert with_party.setup.as_dict()["party"] is False  # and so it is resumed


def test_the_party_artifacts_and_cloaks_are_refused_with_four_players():
    game = new_game("catacombs", players=FOUR, party=True)
    assert game.state.artifacts_left == (5, 7, 10, 12, 15, 17, 20)
    with pytest.raises(RuleError, match="comes with the Adventuring Party"):
        do(game, "artifact", player="red", value=25)
    do(game, "gold", player="red", n=7)
    with pytest.raises(RuleError, match="comes with the Adventuring Party"):
        do(game, "buy", player="red", item="cloak of invisibility")
    base = new_game("clank", players=FOUR, party=True)
    do(base, "artifact", player="red", value=10)
    with pytest.raises(RuleError, match="no artifact worth 10 is left"):
        do(base, "artifact", player="yellow", value=10)  # the party's 10 is not in play
    assert base.state.stock["master key"] == 2
    with pytest.raises(RuleError, match="comes with the Adventuring Party"):
        do(base, "token", player="red", name="cloak of invisibility")


def test_the_party_cloaks_join_a_five_player_game():
    game = new_game("catacombs", players=[*FOUR, "purple"], party=True)
    assert game.state.stock["cloak of invisibility"] == 2
    do(game, "gold", player="red", n=7)
    do(game, "buy", player="red", item="cloak of invisibility")


# ------------------------------------------- base game with the party: all of it unprinted
PARTY_KEYS = {"rage_track.party", "artifacts.party", "cloaks.party", "master_key.party"}


@pytest.mark.parametrize("players", [5, 6])
def test_the_base_game_with_the_party_lists_what_no_rulebook_prints(players):
    seats = [*FOUR, "purple", "orange"][:players]
    game = new_game("clank", players=seats, party=True)
    unconfirmed = set(game.snapshot()["settings"]["unconfirmed"])
    assert unconfirmed >= PARTY_KEYS
    assert len(game.state.artifacts_left) == 12 and game.state.stock["master key"] == 3
    checklist = setup_checklist(game.setup)
    for key in PARTY_KEYS:
        line = f"Check on your board: {unconfirmed_label('clank', key)} is not printed"
        assert any(c.startswith(line) for c in checklist), key
    assert not PARTY_KEYS & set(new_game("clank", players=FOUR).setup.unconfirmed)
    # the table corrects the rage track and the artifacts of its game
    fixed = new_game(
        "clank", players=seats, party=True, rage_track=[2, 2, 3, 3, 4, 4, 5, 5], artifacts=[5] * 8
    )
    left = set(fixed.setup.unconfirmed) & PARTY_KEYS
    assert left == {"cloaks.party", "master_key.party"}


def test_catacombs_with_the_party_lists_the_cloaks():
    game = new_game("catacombs", players=[*FOUR, "purple"], party=True)
    assert "cloaks.party" in game.setup.unconfirmed
    assert "master_key.party" not in game.setup.unconfirmed  # not used with Catacombs


def _every_unconfirmed_key():
    for edition in ("clank", "catacombs"):
        for key in load_catalog(edition).edition.unconfirmed:
            yield edition, key


@pytest.mark.parametrize("lang", ["en", "ru", "uk", "es"])
def test_every_unconfirmed_key_has_a_label_in_words(lang):
    i18n.set_language(lang)
    try:
        for edition, key in _every_unconfirmed_key():
            label = unconfirmed_label(edition, key)
            assert "_" not in label and "." not in label, (edition, key, label)  # in words
            if lang != "en":
                i18n.set_language("en")
                english = unconfirmed_label(edition, key)
                i18n.set_language(lang)
                assert label != english, (lang, edition, key)  # translated
    finally:
        i18n.set_language("en")


def test_the_catalog_names_only_known_unconfirmed_settings():
    for _edition, key in _every_unconfirmed_key():
        assert key.partition(".")[0] in UNCONFIRMED_NAMES


# ------------------------------------------------------- the artifacts removed unseen
def test_the_table_records_the_artifacts_it_removed():
    game = new_game(players=FOUR[:2], removed_artifacts=[25, 7])
    assert game.state.artifacts_left == (5, 10, 15, 20, 30)
    assert game.setup.removed_artifacts == (25, 7)
    assert game.snapshot()["settings"]["removed_artifacts"] == [25, 7]
    with pytest.raises(RuleError, match="artifact: the artifact worth 25 was removed at set-up"):
        do(game, "artifact", player="red", value=25)
    do(game, "artifact", player="red", value=30)
    checklist = setup_checklist(game.setup)
    assert "Removed at set-up: the artifacts worth 25, 7." in checklist
    assert not any(line.startswith("Remove 2 random") for line in checklist)


def test_removed_artifacts_are_refused_only_when_recorded():
    game = new_game(players=FOUR[:3])
    assert len(game.state.artifacts_left) == 7  # not recorded: all seven stay takeable
    assert game.snapshot()["settings"]["removed_artifacts"] is None
    do(game, "artifact", player="red", value=25)
    game = new_game(players=FOUR[:3], removed_artifacts=[5])
    assert 5 not in game.state.artifacts_left and len(game.state.artifacts_left) == 6


@pytest.mark.parametrize(
    ("edition", "players", "removed", "reason"),
    [
        ("clank", 2, [25], "with 2 players the table removes 2 artifacts, not 1"),
        ("clank", 3, [25, 30], "with 3 players the table removes 1 artifact, not 2"),
        ("clank", 4, [25], "with 4 players no artifact is removed"),
        ("catacombs", 2, [5, 7], "with 2 players no artifact is removed"),
        ("clank", 2, [25, 12], "no artifact worth 12 to remove"),
        ("clank", 2, [25, 25], "names the artifact worth 25 twice"),
        ("clank", 2, [25, "30"], '"removed_artifacts" must be a list'),
        ("clank", 3, 25, '"removed_artifacts" must be a list'),
        ("clank", 3, [True], '"removed_artifacts" must be a list'),
    ],
)
def test_bad_removed_artifacts(edition, players, removed, reason):
    options = {"edition": edition, "players": FOUR[:players], "removed_artifacts": removed}
    with pytest.raises(RuleError, match=reason) as e:
        make_setup(options)
    assert str(e.value).startswith("new: ")


def test_no_artifact_removed_with_four_players_may_be_said():
    assert make_setup({"edition": "clank", "players": FOUR, "removed_artifacts": []})


@pytest.mark.parametrize(
    "options",
    [
        {"edition": "clank", "players": FOUR[:2], "removed_artifacts": [30, 5]},
        {"edition": "catacombs", "players": FOUR[:3], "artifacts": [5, 8, 10, 12, 15, 18, 20]},
        {
            "edition": "clank",
            "players": FOUR[:3],
            "artifacts": [5, 7, 10],
            "removed_artifacts": [7],
        },
        {"edition": "catacombs", "players": FOUR, "party": True},
        {"edition": "clank", "players": [*FOUR, "purple"], "party": True},
    ],
)
def test_the_set_up_is_recorded_and_rebuilt_as_it_was(options):
    """What the log records (as_dict) sets the same game up again when it is resumed."""
    setup = make_setup(options)
    again = make_setup(setup.as_dict())
    assert again.artifacts == setup.artifacts
    assert again.removed_artifacts == setup.removed_artifacts
    assert again.artifact_pile() == setup.artifact_pile() and again.party == setup.party


def test_a_resumed_game_keeps_its_removed_artifacts(tmp_path):
    from companion.store import GameStore

    store = GameStore(tmp_path / "games.db")
    try:
        options = {
            "edition": "clank",
            "players": ["red", "blue"],
            "server_seed": "77" * 32,
            "removed_artifacts": [20, 30],
        }
        table = Session(store).start(options)
        table.apply({"do": "artifact", "player": "red", "value": 5})
        before = table.snapshot()
    finally:
        store.close()
    again = GameStore(tmp_path / "games.db")
    try:
        resumed = Session(again).resume(1)
        assert resumed.snapshot() == before
        with pytest.raises(RuleError, match="removed at set-up"):
            resumed.apply({"do": "artifact", "player": "blue", "value": 30})
    finally:
        again.close()


# ----------------------------------------------------- Catacombs: the artifact values
def test_catacombs_guessed_artifacts_and_secrets_are_unconfirmed():
    for players in (2, 3, 4):
        unconfirmed = new_game("catacombs", players=FOUR[:players]).setup.unconfirmed
        assert {"artifacts", "minor_secrets"} <= set(unconfirmed)
    checklist = setup_checklist(make_setup({"edition": "catacombs", "players": FOUR}))
    assert any("each artifact's value is not printed" in line for line in checklist)
    assert any("the set of minor secrets" in line for line in checklist)


def test_the_table_corrects_the_artifact_values():
    game = new_game("catacombs", players=FOUR[:3], artifacts=[20, 5, 10, 12, 15, 8, 18])
    assert game.state.artifacts_left == (5, 8, 10, 12, 15, 18, 20)
    assert "artifacts" not in game.setup.unconfirmed
    assert game.snapshot()["settings"]["artifacts"] == [5, 8, 10, 12, 15, 18, 20]
    with pytest.raises(RuleError, match="no artifact worth 7 is left"):
        do(game, "artifact", player="red", value=7)
    do(game, "artifact", player="red", value=18)
    assert game.state.players["red"].artifacts == (18,)
    # five or six players: the list is the whole pile, the party's artifacts included
    six = [*FOUR, "purple", "orange"]
    big = new_game("catacombs", players=six, party=True, artifacts=[5, 10, 10, 12, 15, 15])
    assert big.state.artifacts_left == (5, 10, 10, 12, 15, 15)


@pytest.mark.parametrize(
    "artifacts",
    [[], [5, "7"], [0, 5], [5, 101], [True], 7, list(range(1, 22))],
)
def test_bad_artifact_values(artifacts):
    with pytest.raises(RuleError, match='"artifacts" must be a list of 1 to 20'):
        make_setup({"edition": "catacombs", "players": FOUR[:2], "artifacts": artifacts})


# ------------------------------------------ Catacombs: token numbers no rulebook prints
# The Catacombs books (ru, uk) print the chalice only as one of 11 major secrets, the
# backpacks and crowns by count and price (top crown 10, bottom 8), and the prisoners'
# total (20) with each kind's effect but not how many of each: the chalice's 7 VP, the
# backpack's 5 VP (both the base game's), the middle crown's 9 and the count per kind
# are guesses the table must be able to correct.
TOKEN_KEYS = {"chalice_vp", "backpack_vp", "crowns", "prisoners"}


@pytest.mark.parametrize("players", [2, 4, 6])
def test_catacombs_guessed_token_numbers_are_unconfirmed(players):
    game = new_game("catacombs", players=(FOUR + ["purple", "orange"])[:players], party=players > 4)
    assert set(game.setup.unconfirmed) >= TOKEN_KEYS
    assert set(game.snapshot()["settings"]["unconfirmed"]) >= TOKEN_KEYS
    checklist = setup_checklist(game.setup)
    for words in ("the chalice's victory points", "the backpack's victory points",
                  "the middle crown's value", "how many prisoners of each kind"):  # fmt: skip
        assert any(words in line and "not printed" in line for line in checklist), words
    # every key has words of its own, in every edition's words
    for key in TOKEN_KEYS:
        assert key in UNCONFIRMED_NAMES
        assert unconfirmed_label("catacombs", key) != key.replace("_", " ")


def test_the_base_game_prints_those_token_numbers():
    """Base ru:566-568 (the chalice, 7 VP), ru:580-582 (backpack, 5 VP), ru:135 (crowns
    10, 9, 8): nothing to flag in the base game."""
    game = new_game("clank", players=FOUR)
    assert not TOKEN_KEYS & set(game.setup.unconfirmed)


def test_the_table_corrects_the_guessed_token_numbers():
    counts = dict.fromkeys(PRISONERS, 1) | {"peasant": 8}
    options = {"chalice_vp": 6, "backpack_vp": 4, "crowns": [12, 7, 9], "prisoners": counts}
    game = new_game("catacombs", players=FOUR[:2], **options)
    assert not TOKEN_KEYS & set(game.setup.unconfirmed)
    catalog = game.catalog
    assert catalog.token("major_secret", "chalice").vp == 6
    assert catalog.token("market", "backpack").vp == 4
    assert catalog.token("prisoner", "peasant").count == 8
    assert all(t.verified for t in catalog.tokens_of("prisoner"))
    assert game.state.crowns_left == (12, 9, 7)  # the most valuable first
    assert not TOKEN_KEYS & set(catalog.edition.unconfirmed)
    # the shipped catalog is left as it was
    shipped = load_catalog("catacombs")
    assert shipped.token("major_secret", "chalice").vp == 7
    assert shipped.token("prisoner", "peasant").count == 3
    # the game is recorded and resumed with its corrections
    again = make_setup(game.setup.as_dict())
    assert again.token_corrections() == game.setup.token_corrections()
    assert again.catalog.token("prisoner", "peasant").count == 8
    assert game.setup.as_dict()["crowns"] == [12, 9, 7]
    assert game.setup.as_dict()["prisoners"] == counts


@pytest.mark.parametrize(
    ("options", "reason"),
    [
        ({"chalice_vp": -1}, "chalice_vp"),
        ({"backpack_vp": "5"}, "backpack_vp"),
        ({"crowns": [10, 8]}, "values of the 3 crowns"),
        ({"crowns": [10, 9, "8"]}, "values of the 3 crowns"),
        ({"prisoners": {"peasant": 3}}, "no count for 'adventurer'"),
        ({"prisoners": dict.fromkeys(PRISONERS, 1) | {"jester": 1}}, "unknown prisoner 'jester'"),
        ({"prisoners": dict.fromkeys(PRISONERS, -1)}, "each kind of prisoner its count"),
    ],
)
def test_bad_token_corrections_are_refused(options, reason):
    with pytest.raises(RuleError, match=reason):
        make_setup({"edition": "catacombs", "players": FOUR[:2], **options})


def test_prisoner_counts_are_only_for_catacombs():
    with pytest.raises(RuleError, match="only in Clank! Catacombs"):
        make_setup({"edition": "clank", "players": FOUR[:2], "prisoners": {}})
