"""The table screen is a function of the controller's view, readable across the table.

- After every step of many random plays (taps, scans, buttons, undo, attacks, refills,
  restarts), the live table screen shows exactly what a screen freshly built from the same
  view shows: the same texts and the same enabled buttons. A stale widget fails.
- At 800x480, in every language and with 2 to 6 players, its texts, figures and buttons
  meet TABLE_SCREEN.md's numbers (tests/screen_metrics.py).
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

os.environ.setdefault("KIVY_WINDOW", "sdl2")
from kivy.config import Config as KivyConfig  # noqa: E402

KivyConfig.set("graphics", "width", "800")
KivyConfig.set("graphics", "height", "480")

from kivy.uix.behaviors import ButtonBehavior  # noqa: E402
from kivy.uix.label import Label  # noqa: E402

from companion.config import AppConfig, Config  # noqa: E402
from companion.kinds.clank.screens.desk import desk_of  # noqa: E402
from companion.kinds.clank.screens.odds import percent  # noqa: E402
from companion.kinds.clank.screens.panel import PlayerPanel  # noqa: E402
from companion.kinds.clank.screens.table import TableScreen  # noqa: E402
from companion.store.tags import resolve  # noqa: E402
from companion.ui.harness import Harness  # noqa: E402
from companion.ui.ink import ink_height, window_image  # noqa: E402
from companion.ui.taps import RULE  # noqa: E402
from tests.helpers import hypergeometric  # noqa: E402
from tests.screen_metrics import INK_FIGURE, INK_FIGURE_SIX, ink_problems, problems  # noqa: E402

SHOTS = Path(os.environ["CLANK_SCREENSHOTS"]) if os.environ.get("CLANK_SCREENSHOTS") else None
SEATS = ["red", "yellow", "green", "blue", "purple", "orange"]


def _dungeon(edition: str) -> list[str]:
    from companion.kinds.clank.catalog import load_catalog

    cards = load_catalog(edition).cards
    return sorted(c.name for c in cards.values() if c.in_dungeon_deck)[:14]


CARDS = {"clank": _dungeon("clank"), "catacombs": _dungeon("catacombs")}


def table_of(ui: Harness) -> TableScreen:
    return ui.app.screens.get_screen("table")


def seen(screen: TableScreen) -> list[tuple[str, str, bool]]:
    """What a player sees of a screen: every text shown, every button and whether it can
    be pressed, in reading order."""
    out = []
    stack = [screen]
    while stack:
        w = stack.pop()
        if isinstance(w, Label) and w.opacity > 0:
            out.append((type(w).__name__, w.text, bool(isinstance(w, ButtonBehavior)
                                                          and not w.disabled)))  # fmt: skip
        if hasattr(w, "drawn_texts") and w.opacity > 0:
            out += [(type(w).__name__, t.text, False) for t in w.drawn_texts()]
        stack.extend(w.children)  # children are kept last-added first: reversed below
    return out


def fresh_copy(ui: Harness) -> TableScreen:
    """The table screen built afresh from the controller's view, laid out at the
    window's size (what a panel's header holds depends on its width)."""
    screen = TableScreen(name="fresh")
    screen.redraw(ui.app.controller.view())
    screen.size = ui.window.size
    ui.ticks(3)  # its layout and textures on the clock (it is not in the window: not drawn)
    return screen


def assert_live_is_fresh(ui: Harness, step: str) -> None:
    if ui.app.screens.current != "table":
        return
    live = seen(table_of(ui))
    again = seen(fresh_copy(ui))
    assert sorted(live) == sorted(again), step


def new_game(ui: Harness, players: int, edition: str = "clank") -> None:
    ctl = ui.app.controller
    ctl.new_game({"edition": edition, "players": SEATS[:players], "party": players > 4})
    ctl.begin()
    ui.frames(3)


def close_popups(ui: Harness) -> None:
    from kivy.uix.modalview import ModalView

    for w in list(ui.window.children):
        if isinstance(w, ModalView):
            w.dismiss(animation=False)
    if desk_of(ui.app).attack_view is not None:
        desk_of(ui.app).attack_view.dismiss(animation=False)
    ui.frames(2)


def random_step(ui: Harness, rng: random.Random, edition: str) -> str:
    """One thing a player might do; returns its name."""
    ctl = ui.app.controller
    table = table_of(ui)
    view = ctl.view()
    choice = rng.choice(
        ["plus", "minus", "row", "end", "scan", "undo", "attack", "untagged", "damage"]
    )
    if choice in ("plus", "minus") and view.players:
        panel = rng.choice(list(table.panels()))
        if not panel.out:  # an out player's actions have no clank
            ui.on_panel(panel.player, "Clank! +1" if choice == "plus" else "Clank! −1")
    elif choice == "row" and view.row:
        cards = [w for w in table.ids.row.children if hasattr(w, "card") and not w.disabled]
        if cards:
            ui.tap(rng.choice(cards))
    elif choice == "end":
        ctl.end_turn()  # as the physical End turn button does
    elif choice == "scan" and CARDS[edition]:
        ctl.scan_component(resolve("card", edition, rng.choice(CARDS[edition])))
    elif choice == "undo":
        ctl.undo()
    elif choice == "attack":
        ctl.do({"do": "attack"})
    elif choice == "untagged":
        ctl.reveal_untagged(rng.random() < 0.3)
    elif choice == "damage" and view.players:
        ctl.do({"do": "damage", "player": rng.choice(view.players).name, "n": 1})
    ui.ticks(2)
    close_popups(ui)  # (its frames draw the window)
    return choice


PLAYS = [(2, "clank", 1), (4, "clank", 2), (6, "clank", 3), (3, "catacombs", 4)]


@pytest.mark.parametrize(("players", "edition", "seed"), PLAYS)
def test_the_live_screen_is_always_what_a_fresh_one_shows(tmp_path, players, edition, seed):
    """70 random steps of a game, the live table compared after each with a table screen
    built fresh, and the app restarted on its database every 25 steps: each step builds
    a whole second screen, so a game takes 12-25 s."""
    rng = random.Random(seed)
    db = tmp_path / "games.db"
    ui = Harness(db)
    try:
        new_game(ui, players, edition)
        for n in range(70):
            step = random_step(ui, rng, edition)
            assert_live_is_fresh(ui, f"step {n}: {step}")
            if n % 25 == 24:  # a power cut: the app comes back on the same database
                ui.close()
                ui = Harness(db)
                assert_live_is_fresh(ui, f"step {n}: restart")
            if ui.app.controller.view().game_over:
                break
    finally:
        ui.close()


def test_a_committed_refill_is_never_shown_as_still_open(tmp_path):
    """The row filled by the last revealed card commits the refill: the screen must show
    the next player's turn, not a refill bar whose tap ends that turn with nothing."""
    ui = Harness(tmp_path / "games.db")
    try:
        ctl = ui.app.controller
        ctl.new_game({"edition": "clank", "players": ["red", "blue"]})
        ctl.do({"do": "row", "cards": ["Tattle", "Sneak", "Search", "Pickaxe", "Lucky Coin"]})
        ui.frames(2)
        ui.tap("End Red's turn")
        assert table_of(ui).refilling
        ctl.scan_component(resolve("card", "clank", "Tunnel Guide"))  # the row is full
        ui.frames(2)
        table = table_of(ui)
        assert not table.refilling and table.end_turn_text == "End Blue's turn"
        with pytest.raises(LookupError):
            ui.find("No tag")  # hidden: no refill is open
        assert_live_is_fresh(ui, "after the refill")
    finally:
        ui.close()


@pytest.mark.parametrize(
    ("language", "first", "then"),
    [
        ("en", "End Red's turn", "End Yellow's turn"),
        ("ru", "Конец хода: Красный", "Конец хода: Жёлтый"),
    ],
)
def test_end_turn_names_the_player_whose_turn_it_ends_in_their_colour(
    tmp_path, language, first, then
):
    """End turn says whose turn it ends and wears that player's colour, its words in the
    colour's ink (4.5:1 at least, as tests/test_colours.py measures it); when the turn
    passes it names the next player, and that new meaning is inert a moment."""
    from collections import Counter

    from companion.ui.colours import colour, text_colour
    from tests.test_colours import contrast

    db = tmp_path / "games.db"
    ui = Harness(db, Config(app=AppConfig(database=str(db), language=language)))
    try:
        ctl = ui.app.controller
        ctl.new_game({"edition": "clank", "players": ["red", "yellow"]})
        names = [n for n, dragon in ctl.dungeon_cards() if not dragon][:6]
        for name in names:  # a full opening row: End turn ends the turn at once
            ctl.scan_component(resolve("card", "clank", name))
        assert ctl.begin()
        ui.frames(3)
        table = table_of(ui)
        for player, text in (("red", first), ("yellow", then)):
            assert table.end_turn_text == text
            button = ui.find(text)
            assert button.meaning == text  # the player is part of what it means
            assert tuple(button.background_color) == colour(player)
            assert tuple(button.color) == text_colour(player)
            assert contrast(button.background_color, button.color) >= 4.5, player
            if player == "red":
                assert RULE.settling(button)  # a screen just shown: inert a moment
                ui.settled(button)
                ui.frames(2)
                # what a player sees: the button's most common colour is red's
                common = Counter(ui.pixels(button)).most_common(1)[0][0]
                want = tuple(round(c * 255) for c in colour(player)[:3])
                assert all(abs(a - b) <= 2 for a, b in zip(common, want, strict=True))
                ui.tap(button)
                assert ctl.view().active == "yellow" and not table.refilling
                assert ui.find(then) is button and RULE.settling(button)
    finally:
        ui.close()


def figures(screen: TableScreen) -> set:
    """The numbers a player looks for: the next attack, each player's cubes in the
    Clank! area and health left."""
    out: set = set(screen.ids.next_attack.figures())
    for panel in screen.panels():
        if isinstance(panel, PlayerPanel):
            out |= set(panel.ids.figures.figures())
    return out


@pytest.mark.parametrize("language", ["en", "ru", "uk", "es"])
def test_the_table_screen_meets_the_numbers_for_every_table(tmp_path, language):
    found = []
    for players, edition in [(2, "clank"), (4, "clank"), (5, "catacombs"), (6, "clank")]:
        db = tmp_path / f"{players}-{edition}.db"
        ui = Harness(db, Config(app=AppConfig(database=str(db), language=language)))
        try:
            new_game(ui, players, edition)
            ctl = ui.app.controller
            ctl.do({"do": "row", "cards": ["Tattle", "Sneak", "Search"]} if edition == "clank"
                   else {"do": "clank", "player": "red", "n": 1})  # fmt: skip
            ctl.clank(2)
            ctl.end_turn()  # a refill under way: its buttons shown too
            ui.frames(3)
            screen = table_of(ui)
            if SHOTS is not None:
                SHOTS.mkdir(parents=True, exist_ok=True)
                ui.screenshot(SHOTS / f"table-{language}-{players}-{edition}.png")
            for p in problems(screen, figures(screen)):
                found.append(f"{language} {players} {edition}: {p}")
            # the ink as drawn, measured from the window's pixels (TABLE_SCREEN.md)
            for p in ink_problems(ui, INK_FIGURE if players <= 4 else INK_FIGURE_SIX):
                found.append(f"{language} {players} {edition}: {p}")
            # the figures are there, and big
            for panel in screen.panels():
                cubes, health, *more = [*panel.ids.figures.figures(), *panel.ids.header.figures()]
                assert cubes.font_size >= 36 and health.font_size >= 36
                # the cubes and the health keep their size: 37 px of ink, 31 with 5-6
                least = 36 if players <= 4 else 30
                image = window_image(ui.window)
                for t in (cubes, health):
                    assert ink_height(image, t.x, t.y, t.width, t.height) >= least, t
                odds = [percent(panel.knock_out)] if panel.risk_text else []
                assert sorted(t.text for t in more) == sorted([panel.gold_text, *odds])
                # the knock-out chance read with its word: right under it, at any height
                header = panel.ids.header
                word = header.word_ink.seen(header)
                figure = next((t for t in more if t.text in odds), None)
                if word is not None and figure is not None and players <= 4:
                    gap = word.y - (figure.y + figure.height)
                    assert 0 <= gap <= 24, (players, word, figure)
            # the active player's frame lies inside the window, never cut off
            active = next(p for p in screen.panels() if p.active)
            x, y = active.to_window(active.x, active.y)
            assert x >= 0 and y >= 0 and x + active.width <= 800 and y + active.height <= 480
        finally:
            ui.close()
    assert not found, "\n".join(found)


def _geometry(screen: TableScreen) -> list[tuple[str, tuple[float, ...]]]:
    return [(type(w).__name__, (*w.pos, *w.size)) for w in screen.walk(restrict=True)]


@pytest.mark.parametrize("language", ["en", "ru"])
def test_the_screen_settles_and_stays_still(tmp_path, language):
    """A layout that keeps changing (a width fed by its own text, say) redraws at every
    frame and starves the scans: once drawn, nothing moves until something happens."""
    db = tmp_path / "games.db"
    ui = Harness(db, Config(app=AppConfig(database=str(db), language=language)))
    try:
        new_game(ui, 4)
        ui.app.controller.end_turn()  # the refill's buttons shown too
        ui.frames(6)
        before = _geometry(table_of(ui))
        ui.frames(10)
        assert _geometry(table_of(ui)) == before
    finally:
        ui.close()


@pytest.mark.parametrize(("language", "players"), [("en", 4), ("ru", 6), ("es", 5), ("uk", 3)])
def test_all_odds_shows_the_odds_of_the_next_attack_whole(tmp_path, language, players):
    from companion.kinds.clank.screens.odds import OddsCell, OddsView

    db = tmp_path / "games.db"
    ui = Harness(db, Config(app=AppConfig(database=str(db), language=language)))
    try:
        new_game(ui, players)
        ctl = ui.app.controller
        ctl.clank(4, "red")
        ctl.clank(2, "yellow")
        ctl.do({"do": "damage", "player": "yellow", "n": 8})  # 2 health left
        ctl.do({"do": "rage", "n": 3})
        ui.frames(3)
        screen = table_of(ui)
        view = ctl.view()
        # each panel tells the knock-out chance at a glance, the same as the view's
        yellow = next(p for p in screen.panels() if p.player == "yellow")
        assert "%" in yellow.risk_text and yellow.knock_out == view.player("yellow").knock_out
        ui.tap(screen.ids.all_odds)  # a button that says what it shows
        odds = next(w for w in ui.window.children if isinstance(w, OddsView))
        ui.frames(3)
        if SHOTS is not None:
            SHOTS.mkdir(parents=True, exist_ok=True)
            ui.screenshot(SHOTS / f"odds-{language}-{players}.png")
        assert not problems(odds), problems(odds)
        # the cells are the exact hypergeometric chances of the view's state
        bag = sum(n for _k, n in view.bag) + sum(p.clank for p in view.players)
        for p in view.players:
            mine = dict(view.bag)[p.name] + p.clank
            exact = [hypergeometric(bag, mine, view.odds_count, k) for k in range(p.health)]
            exact.append(1 - sum(exact))
            assert p.odds == pytest.approx(exact, abs=1e-12)
        cells = [w for w in odds.walk() if isinstance(w, OddsCell)]
        assert len(cells) >= 2 * players  # at least "0" and the knock-out for each
        assert view.player("yellow").knock_out > 0
        odds.dismiss(animation=False)
    finally:
        ui.close()


def test_the_rage_track_and_the_bag_follow_the_table_when_it_changes():
    """The drawn rows make and drop their cells as the table changes (a game of another
    size on the same screen): what they show is what they were last given."""
    from kivy.metrics import dp, sp

    from companion.kinds.clank.screens.table import BagRow, RageTrack

    track = RageTrack(size=(400, 40))
    track.track, track.space = [2, 2, 3, 3, 4, 4, 5], 2
    texts = track.drawn_texts()
    assert [t.text for t in texts] == ["2", "2", "3", "3", "4", "4", "5"]
    assert [t.font_size for t in texts] == [sp(30), sp(36)] + [sp(30)] * 5  # the marker's space
    track.track, track.space = [3, 4], 1
    assert [(t.text, t.font_size) for t in track.drawn_texts()] == [("3", sp(36)), ("4", sp(30))]
    assert len(track.inks) == 2

    bag = BagRow(height=40)
    white, black = [1, 1, 1, 1], [0.03, 0.03, 0.04, 1]
    bag.chips = [("", "24", black, white, True), ("R", "3", [1, 0, 0, 1], white, False)]
    assert [t.text for t in bag.drawn_texts()] == ["24", "R", "3"]
    assert [t.text for t in bag.figures()] == ["24", "3"]  # the counts: figures
    one = bag._chips[1][1].size[0]  # the width of the second chip's body
    assert bag.width == bag._chips[0][1].size[0] + dp(6) + one  # two chips, a gap between
    bag.chips = [("R", "3", [1, 0, 0, 1], white, False)]
    assert [t.text for t in bag.drawn_texts()] == ["R", "3"] and bag.width == one
    assert len(bag.inks) == 2


def test_the_window_shows_every_panel_in_its_colour_and_its_changes(tmp_path):
    """Read from the window's pixels, after the parts of the table have moved into
    their framebuffers: each panel's most common colour is its tint (the background
    would mean a panel not drawn), and a clank changes what its panel shows."""
    from collections import Counter

    from companion.ui.colours import panel_tint

    db = tmp_path / "games.db"
    ui = Harness(db, Config(app=AppConfig(database=str(db))))
    try:
        new_game(ui, 4)
        ui.frames(4)
        screen = table_of(ui)
        # the panels are new: each is veiled (inert) for its first moment, then as it is
        ui.until(lambda: not any(RULE.settling(p) for p in screen.panels()))
        ui.frames(2)
        before = {}
        for panel in screen.panels():
            seen = ui.pixels(panel)
            tint = tuple(round(c * 255) for c in panel_tint(panel.player)[:3])
            common = Counter(seen).most_common(1)[0][0]
            assert all(abs(a - b) <= 2 for a, b in zip(common, tint, strict=True)), panel.player
            before[panel.player] = seen
        ui.app.controller.clank(3, "blue")
        ui.frames(3)
        after = {p.player: ui.pixels(p) for p in screen.panels()}
        assert after["blue"] != before["blue"]
        assert after["green"] == before["green"]  # nothing changed there
    finally:
        ui.close()


def _countdown_on_its_fourth_space(ui: Harness) -> None:
    """Red escapes at once; the other players end their turns until the countdown marker
    stands on space 4: its next step ends the game."""
    ctl = ui.app.controller
    ctl.do({"do": "artifact", "player": "red", "value": 20})
    ctl.do({"do": "escape", "player": "red"})
    while ctl.view().countdown[1] < 4:
        ctl.do({"do": "end_turn", "revealed": []})
        ui.frames(1)
        close_popups(ui)


ENDINGS = {  # the words each language shows for the step that ends the game
    "en": ("The next countdown step ends the game",
           "The next attack empties the bag: game over"),
    "ru": ("Следующий шаг обратного отсчёта завершит игру",
           "Следующая атака опустошит мешок: конец игры"),
    "uk": ("Наступний крок відліку завершить гру",
           "Наступна атака спорожнить мішечок: кінець гри"),
    "es": ("El próximo paso de la cuenta atrás acaba la partida",
           "El próximo ataque vacía la bolsa: fin de la partida"),
}  # fmt: skip


@pytest.mark.parametrize("language", ["en", "ru", "uk", "es"])
def test_the_table_announces_the_step_that_ends_the_game(tmp_path, language):
    """The countdown's last step, and a Catacombs attack that takes the whole bag: the
    table says so where the rage track was, whole and large, before the step comes; every
    panel shows the knock-out as certain."""
    from companion.kinds.clank.screens.odds import OddsView

    countdown_words, bag_words = ENDINGS[language]
    for case, players, words in [("countdown", 4, countdown_words), ("bag", 6, bag_words)]:
        db = tmp_path / f"{case}.db"
        ui = Harness(db, Config(app=AppConfig(database=str(db), language=language)))
        try:
            ctl = ui.app.controller
            if case == "countdown":
                new_game(ui, players)
                screen = table_of(ui)
                assert screen.end_warning == "" and screen.ids.rage.opacity == 1
                _countdown_on_its_fourth_space(ui)
            else:  # 24 black cubes and 3 + 2 + 1 in the Clank! area: the attack draws 30
                ctl.new_game({"edition": "catacombs", "players": SEATS[:players], "party": True,
                              "rage_track": [2, 2, 3, 3, 4, 4, 30], "rage_start": 7})  # fmt: skip
                ctl.begin()
            ui.frames(4)
            screen = table_of(ui)
            assert ctl.view().odds_ends_game
            assert screen.end_warning == words
            banner = screen.ids.end_warning
            assert banner.text == words and not banner.is_shortened
            assert banner.parent.opacity == 1 and banner.width > 400
            assert screen.ids.rage.opacity == 0  # the banner stands in its place
            if SHOTS is not None:
                SHOTS.mkdir(parents=True, exist_ok=True)
                ui.screenshot(SHOTS / f"table-ends-{case}-{language}.png")
            assert not problems(screen, figures(screen)), problems(screen, figures(screen))
            # the certain knock-out's figures whole, as drawn (100%: the widest they get)
            ink = ink_problems(ui, INK_FIGURE if players <= 4 else INK_FIGURE_SIX)
            assert not ink, ink
            inside = [p for p in screen.panels() if not p.out]
            assert inside and all(p.knock_out == 1 and "100%" in p.risk_text for p in inside)
            assert_live_is_fresh(ui, f"{case}: the step that ends the game")
            ui.tap(screen.ids.all_odds)  # the odds whole: the same words on top
            odds = next(w for w in ui.window.children if isinstance(w, OddsView))
            ui.frames(2)
            assert words in [w.text for w in odds.walk() if isinstance(w, Label)]
            assert not problems(odds), problems(odds)
            odds.dismiss(animation=False)
            # one cube more in the Clank! area (Catacombs): the bag keeps one, no banner
            if case == "bag":
                ctl.clank(1, "red")
                ui.frames(3)
                assert screen.end_warning == "" and screen.ids.rage.opacity == 1
                assert not screen.ids.end_warning.parent.opacity
                assert_live_is_fresh(ui, "one cube more")
        finally:
            ui.close()


@pytest.mark.parametrize(("language", "players"), [("en", 3), ("ru", 3), ("uk", 6)])
def test_the_odds_table_explains_the_ghosts_part(tmp_path, language, players):
    """In Catacombs every ghost drawn costs every player 1 health: the odds table says so
    (and how many ghosts can be drawn) beside the rows that count them."""
    from companion.kinds.clank.screens.odds import OddsView

    db = tmp_path / "games.db"
    ui = Harness(db, Config(app=AppConfig(database=str(db), language=language)))
    try:
        new_game(ui, players, "catacombs")
        ctl = ui.app.controller
        ctl.do({"do": "ghost"})
        ctl.do({"do": "ghost"})
        ui.frames(3)
        assert ctl.view().ghosts_in_area == 2
        ui.tap(table_of(ui).ids.all_odds)
        odds = next(w for w in ui.window.children if isinstance(w, OddsView))
        ui.frames(3)
        words = {"en": "2 ghosts can be drawn", "ru": "Может выпасть 2 призрака",
                 "uk": "Може випасти 2 привиди"}[language]  # fmt: skip
        notes = [w for w in odds.walk() if isinstance(w, Label) and words in w.text]
        assert len(notes) == 1 and notes[0].texture_size[0] <= odds.width
        # six rows and the ghosts' line: every text on the screen (a monkey found the
        # title pushed off its top)
        for w in odds.walk():
            if isinstance(w, Label) and w.text:
                x, y = w.to_window(w.x, w.y)
                assert y >= 0 and y + w.height <= 480 + 1, (w.text, y, w.height)
        if SHOTS is not None:
            SHOTS.mkdir(parents=True, exist_ok=True)
            ui.screenshot(SHOTS / f"odds-ghosts-{language}-{players}.png")
        assert not problems(odds), problems(odds)
        odds.dismiss(animation=False)
    finally:
        ui.close()


def test_a_scan_draws_the_new_card_alone_and_no_tag_waits_in_its_place(tmp_path):
    """A card leaving the row, or one revealed into it, leaves the other cards' words as
    they were drawn (the same button, the same texture: a scan redraws little); while the
    row is refilled, "No tag" stands in the next card's place, and the row's cards keep
    their width."""
    from companion.kinds.clank.screens.table import RowCard

    ui = Harness(tmp_path / "games.db")
    try:
        ctl = ui.app.controller
        ctl.new_game({"edition": "clank", "players": ["red", "blue"]})
        row = ["Tattle", "Sneak", "Search", "Pickaxe", "Lucky Coin", "Elven Boots"]
        ctl.do({"do": "row", "cards": row})
        ui.frames(3)
        table = table_of(ui)

        def shown() -> dict[str, RowCard]:
            return {w.card: w for w in ui.widgets() if isinstance(w, RowCard) and w.opacity}

        before = {name: (w, w.texture, w.width) for name, w in shown().items()}
        assert set(before) == set(row)
        ui.tap("Sneak")  # bought: the cards after it slide along
        ui.frames(3)
        after = shown()
        assert set(after) == set(row) - {"Sneak"}
        for name, w in after.items():
            widget, texture, width = before[name]
            assert w is widget and w.texture is texture, name  # not laid out again
            assert w.width == pytest.approx(width), name  # an empty place, no widening
        xs = [after[name].x for name in ("Tattle", "Search", "Pickaxe")]
        assert xs == sorted(xs)  # in the row's order still
        ui.tap("End Red's turn")
        assert table.refilling
        no_tag = ui.find("No tag")
        assert no_tag.parent is not None and no_tag.parent.parent is not None
        last = max(w.right for w in shown().values())
        assert no_tag.x > last and no_tag.width == pytest.approx(width)  # the next place
        ctl.scan_component(resolve("card", "clank", "Tunnel Guide"))  # the row is full
        ui.frames(3)
        assert not table.refilling
        with pytest.raises(LookupError):
            ui.find("No tag")
        assert all(shown()[name] is before[name][0] for name in ("Tattle", "Elven Boots"))
        assert_live_is_fresh(ui, "after the refill")
    finally:
        ui.close()


@pytest.mark.parametrize("language", ["en", "ru", "uk", "es"])
def test_the_bag_row_holds_every_chip_and_the_ghosts_at_five_and_six(tmp_path, language):
    """Catacombs with five or six players, every seat's cubes in the bag by the dozen and
    ghosts waiting in the Clank! area: the bag row keeps every chip, the ghosts and All
    odds on the screen, nothing of them shortened (a screenshot showed "1 gh...lank!")."""
    found = []
    for players in (5, 6):
        db = tmp_path / f"{players}.db"
        ui = Harness(db, Config(app=AppConfig(database=str(db), language=language)))
        try:
            new_game(ui, players, "catacombs")
            ctl = ui.app.controller
            for seat in SEATS[:players]:
                ctl.do({"do": "clank", "player": seat, "n": 14})
            ctl.do({"do": "attack"})  # the cubes go into the bag (a few are drawn)
            close_popups(ui)
            ctl.do({"do": "ghost"})
            ui.frames(3)
            view = ctl.view()
            assert view.ghosts_in_area == 1
            assert all(n >= 10 for kind, n in view.bag if kind in SEATS)
            screen = table_of(ui)
            if SHOTS is not None:
                SHOTS.mkdir(parents=True, exist_ok=True)
                ui.screenshot(SHOTS / f"table-bag-{language}-{players}.png")
            bag = screen.ids.bag
            texts = [t.text for t in bag.drawn_texts()]
            assert any(t.endswith("+1") for t in texts), texts  # the ghost waiting
            for w in (bag, screen.ids.all_odds):
                x, _y = w.to_window(w.x, w.y)
                assert x >= 0 and x + w.width <= 800 + 1, (type(w).__name__, x, w.width)
            # no chip lies under the button (a screenshot showed the ghosts' cut there)
            odds_x = screen.ids.all_odds.to_window(*screen.ids.all_odds.pos)[0]
            for t in bag.drawn_texts():
                assert t.x + t.width <= odds_x - 1, (t.text, t.x, t.width, odds_x)
            for p in ink_problems(ui, INK_FIGURE_SIX):
                found.append(f"{language} {players}: {p}")
        finally:
            ui.close()
    assert not found, "\n".join(found)


@pytest.mark.parametrize("language", ["en", "ru"])
def test_a_long_status_ends_in_an_ellipsis_and_a_tap_shows_it_whole(tmp_path, language):
    """What just happened, on two lines at the size the far seat reads: a longer one is
    cut at a word with an ellipsis, and a tap on it opens the whole of it."""
    from companion.kinds.clank.screens.table import StatusLine
    from companion.ui.screens.popups import Message

    db = tmp_path / "t.db"
    ui = Harness(db, Config(app=AppConfig(database=str(db), language=language)))
    try:
        new_game(ui, 4)
        screen = table_of(ui)
        line = next(w for w in screen.walk() if isinstance(w, StatusLine))
        screen.last_text = "red +2 clank"
        ui.frames(2)
        assert line.text == "red +2 clank" and not line.more
        ui.tap(line)  # a short one: a tap does nothing
        assert not [w for w in ui.window.children if isinstance(w, Message)]
        long = " ".join(["the dragon attacks"] * 8)
        screen.last_text = long
        ui.frames(2)
        assert line.more and line.text.endswith(" …")
        assert long.startswith(line.text[: -len(" …")])
        lines = natural_height(line) / line.font_size
        assert line.texture_size[1] <= line.height + 1 and lines > 1.5, lines  # two lines
        ui.tap(line)
        shown = [w for w in ui.window.children if isinstance(w, Message)]
        assert len(shown) == 1 and shown[0].text == long
        ui.tap(shown[0])
        assert not [w for w in ui.window.children if isinstance(w, Message)]
    finally:
        ui.close()


def natural_height(label) -> float:
    from companion.ui.drawn import text_extent

    options = {k: getattr(label, k) for k in Label._font_properties}
    return text_extent(options, label.font_size, label.width)[1]


def test_a_panel_whose_odds_give_way_to_a_status_draws_what_a_fresh_one_draws(tmp_path):
    """Yellow's light panel shows its odds in dark ink, then Yellow enters the Depths: the
    status stands where the odds were, and the header keeps nothing of them a panel
    built afresh would not have (a word's colour, its weight)."""
    db = tmp_path / "games.db"
    ui = Harness(db)
    from tests.monkey import seen as drawn  # the drawn widgets' values too

    try:
        new_game(ui, 2)
        ctl = ui.app.controller
        ctl.do({"do": "clank", "player": "yellow", "n": 3})
        ctl.do({"do": "damage", "player": "yellow", "n": 8})  # the odds in amber, bold
        ui.frames(2)
        yellow = next(p for p in table_of(ui).panels() if p.player == "yellow")
        assert yellow.ids.header.odds_word and yellow.danger
        assert drawn(table_of(ui)) == drawn(fresh_copy(ui)), "odds shown"
        ctl.do({"do": "depths", "player": "yellow", "in": True})
        ui.frames(2)
        assert yellow.status_text and not yellow.ids.header.odds_word
        assert drawn(table_of(ui)) == drawn(fresh_copy(ui)), "in the Depths"
    finally:
        ui.close()
