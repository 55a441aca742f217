"""A language switched at run time (Settings, then a language) redraws every text on
the window: each screen of both games, the status bar, the pop-ups open, the texts the
drawn widgets paint.

The same walk through both games runs twice, once started in English and once in
Russian. At each stop the English table switches to Russian and the Russian table to
English: every text the window shows must then be what the other table, which was in
that language from its start, shows at the same stop; then each switches back.
A text told before the switch and kept as it was told (the table's "what just happened",
a message, a question open) fails here.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

os.environ.setdefault("KIVY_WINDOW", "sdl2")
from kivy.config import Config as KivyConfig  # noqa: E402

KivyConfig.set("graphics", "width", "800")
KivyConfig.set("graphics", "height", "480")

from kivy.uix.label import Label  # noqa: E402
from kivy.uix.modalview import ModalView  # noqa: E402
from kivy.uix.textinput import TextInput  # noqa: E402
from kivy.uix.widget import Widget  # noqa: E402

from companion import i18n  # noqa: E402
from companion.config import AppConfig, Config  # noqa: E402
from companion.kinds.clank.screens.desk import desk_of  # noqa: E402
from companion.store.tags import Component  # noqa: E402
from companion.ui.harness import Harness  # noqa: E402
from tests.test_tschak_support import example_actions  # noqa: E402

SHOTS = Path(os.environ["CLANK_SCREENSHOTS"]) if os.environ.get("CLANK_SCREENSHOTS") else None
SEED = "5eed" * 16  # the same draws in both runs
PAIR = ("en", "ru")
Texts = list[tuple[str, str]]
# what differs between two tables whatever their language: a log's hashes, the time
VARIES = re.compile(r"\b[0-9a-f]{8}\b|\d\d\d\d-\d\d-\d\d \d\d:\d\d")
Tour = Callable[[Harness], Iterator[str]]


@pytest.fixture(autouse=True)
def english_afterwards():
    yield
    i18n.set_language("en")


# ------------------------------------------------------------------ what the window shows
def shown(w: Widget) -> bool:
    node: Widget | None = w
    while node is not None and node.parent is not node:
        if node.opacity <= 0:
            return False
        node = node.parent
    return True


def window_texts(ui: Harness) -> Texts:
    """Every text the window shows: Labels, buttons, fields (or their hints), the texts
    drawn into widgets' canvases; the screen and every pop-up open over it."""
    ui.frames(3)
    out: Texts = []

    def add(kind: str, text: str) -> None:
        out.append((kind, VARIES.sub("…", text)))

    # what lies over what: a pop-up open stays over the screen
    add("layers", " over ".join(type(w).__name__ for w in ui.window.children))

    for w in ui.widgets():
        if not shown(w):
            continue
        if hasattr(w, "drawn_texts"):
            for t in w.drawn_texts():
                add(type(w).__name__, t.text)
        if isinstance(w, TextInput):
            add("TextInput", w.text or w.hint_text)
        elif isinstance(w, Label) and w.text.strip():
            add(type(w).__name__, w.text)
    return sorted(out)


def popups(ui: Harness) -> list[ModalView]:
    return [w for w in ui.window.children if isinstance(w, ModalView)]


def close_popups(ui: Harness) -> None:
    for view in popups(ui):
        view.dismiss(animation=False)
    ui.frames(3)


def card(edition: str, name: str) -> Component:
    return Component("card", edition, name)


# ------------------------------------------------------------------ the walks
def clank_tour(ui: Harness) -> Iterator[str]:
    """Every screen of Clank!, and the pop-ups a switch may find open."""
    app = ui.app
    ctl = app.controller
    yield "newgame"
    ctl.new_game({"edition": "clank", "players": ["red", "yellow", "green", "blue"],
                  "server_seed": SEED})  # fmt: skip
    ctl.set_words("owlbear pizza")
    for name in ("Tattle", "Sneak"):
        ctl.scan_component(card("clank", name))
    yield "opening"
    ctl.scan_component(card("clank", "Kobold"))  # refused: the dragon symbol
    yield "opening-refused"
    ctl.begin()
    ctl.clank(3, "red")
    ctl.do({"do": "gold", "player": "red", "n": 4})
    yield "table"
    ctl.do({"do": "escape", "player": "blue"})  # refused: no artifact
    yield "table-refused"
    app.open_menu()
    yield "menu"
    close_popups(ui)
    desk_of(app).confirm_attack()
    yield "question"
    close_popups(ui)
    desk_of(app).open_player_actions("red")
    yield "player-actions"
    close_popups(ui)
    ctl.end_turn()
    yield "refill"
    ctl.scan_component(card("clank", "Bracers of Agility"))
    ctl.reveal_untagged(True)
    yield "refill-revealed"
    ctl.end_turn()
    ctl.do({"do": "attack"})
    ui.until(lambda: desk_of(app).attack_view is not None and desk_of(app).attack_view.finished)
    yield "attack"
    close_popups(ui)
    yield "after-attack"
    ctl.do({"do": "undo"})
    yield "undone"
    ctl.do({"do": "artifact", "player": "red", "value": 20})
    ctl.do({"do": "escape", "player": "red"})
    yield "countdown"
    for name in ("yellow", "green", "blue"):
        ctl.clank(-30, name)
        ctl.do({"do": "damage", "player": name, "n": 10})
    ui.frames(3)
    close_popups(ui)
    for name in ("Burgle", "Stumble", "Sneak"):
        ctl.add_to_deck(name)
    yield "scoring"
    app.open_audit()
    yield "audit"
    app.show_screen("tags")
    yield "tags"
    app.show_screen("settings")
    yield "settings"
    app.show_screen("phones")
    yield "phones"
    ctl.close_game()
    app.show_screen(app.home_screen())
    ctl.new_game({"edition": "catacombs", "players": ["red", "blue"], "server_seed": SEED})
    ctl.begin()
    ctl.do({"do": "ghost"})
    ctl.do({"do": "depths", "player": "blue", "in": True})
    yield "table-catacombs"
    ctl.abandon()
    ctl.close_game()
    app.show_screen("pastgames")
    yield "past-games"
    app.open_past_game(1)
    yield "past-game"


def tschak_tour(ui: Harness) -> Iterator[str]:
    """Every screen of Tschak!: set-up, the catalog check, a tower, a floor, a verdict,
    the trophies, the end; its menu open."""
    from companion.kinds.tschak.screens.popups import open_menu

    app = ui.app
    tschak = app.control("tschak")
    tschak.prepare(["red", "blue", "green"])
    app.show_screen(app.home_screen())
    yield "setup"
    app.show_screen("tschak_catalog")
    tschak.check_number(5)
    yield "catalog"
    app.show_screen(app.home_screen())
    tschak.start()
    yield "tower"
    for n, step in enumerate(example_actions()):
        first = n < 5  # the first tower's stops; the rest is played through
        if step["do"] == "tower":
            for name in [*step["monsters"], *step["treasures"]]:
                tschak.scan_card(name)
            tschak.set_out_tower()
        elif step["do"] == "floor":
            for player, cards in step["teams"].items():
                for name in cards:
                    tschak.add_card(name, player)
            if n == 1:
                yield "floor"
                open_menu()
                yield "menu"
                close_popups(ui)
            tschak.resolve_floor()
            if n == 1:
                yield "verdict"
            tschak.go_on()
        elif step["do"] == "trophies":
            for player, name in step["last"].items():
                tschak.add_card(name, player)
            tschak.resolve_trophies()
            if first:
                yield "trophies"
            tschak.go_on()
        else:
            tschak.choose_elixir(step["player"], step["discard"])
    ui.frames(2)
    yield "final"
    tschak.reveal()
    yield "result"


def odds_tour(ui: Harness) -> Iterator[str]:
    """The odds of the next draw open whole (a pop-up) over the table."""
    ctl = ui.app.controller
    ctl.new_game({"edition": "clank", "players": ["red", "blue"], "server_seed": SEED})
    ctl.begin()
    ctl.clank(3, "red")
    ctl.clank(1, "blue")
    desk_of(ui.app).show_odds()
    yield "odds"


# ------------------------------------------------------------------ the runs
def walk(tmp_path: Path, start: str, tour: Tour) -> tuple[dict[str, Texts], dict[str, Texts]]:
    """The tour on a table started in ``start``: at each stop, the window's texts as they
    are, and once switched to the other language (then switched back)."""
    other = PAIR[1] if start == PAIR[0] else PAIR[0]
    db = tmp_path / start / "games.db"
    db.parent.mkdir()
    ui = Harness(db, Config(app=AppConfig(database=str(db), language=start)))
    before: dict[str, Texts] = {}
    after: dict[str, Texts] = {}
    try:
        for n, step in enumerate(tour(ui)):
            before[step] = window_texts(ui)
            ui.app.switch_language(other)
            after[step] = window_texts(ui)
            if SHOTS is not None:
                SHOTS.mkdir(parents=True, exist_ok=True)
                name = f"switch-{tour.__name__}-{start}-{other}-{n:02d}-{step}.png"
                ui.screenshot(SHOTS / name)
            ui.app.switch_language(start)
    finally:
        ui.close()
    return before, after


def differences(switched: dict[str, Texts], native: dict[str, Texts]) -> list[str]:
    found = []
    for step, texts in switched.items():
        stale = sorted((Counter(texts) - Counter(native[step])).elements())
        missing = sorted((Counter(native[step]) - Counter(texts)).elements())
        if stale or missing:
            found.append(f"{step}: shown {stale}, not {missing}")
    return found


@pytest.mark.parametrize(
    "tour",
    [
        clank_tour,
        tschak_tour,
        odds_tour,
    ],
    ids=["clank", "tschak", "odds"],
)
def test_a_language_switch_redraws_every_text(tmp_path, monkeypatch, tour):
    monkeypatch.setenv("CLANK_CONFIG", str(tmp_path / "config.toml"))
    english, to_russian = walk(tmp_path, "en", tour)
    russian, to_english = walk(tmp_path, "ru", tour)
    assert list(english) == list(russian)  # both went the same way
    found = differences(to_russian, russian) + differences(to_english, english)
    assert not found, "\n".join(found)


def test_the_table_speaks_the_language_chosen_in_settings_at_once(tmp_path, monkeypatch):
    """The table's line of what just happened, told in English, is read in Russian once
    Russian is tapped on the Settings screen: not at the next action."""
    from companion.i18n import ed_, player_name

    monkeypatch.setenv("CLANK_CONFIG", str(tmp_path / "config.toml"))
    ui = Harness(tmp_path / "games.db")
    try:
        ctl = ui.app.controller
        ctl.new_game({"edition": "clank", "players": ["red", "blue"], "server_seed": SEED})
        ctl.begin()
        ctl.clank(2, "red")
        ui.frames(3)
        english = ui.app.screen("table").last_text
        assert english == "red +2 clank" and ui.find(english)
        ui.app.show_screen("settings")
        ui.tap("Русский")
        assert i18n.current_language() == "ru"
        ui.tap("Назад")
        assert ui.app.screens.current == "table"
        russian = ed_("clank", "{player} {n} clank").format(player=player_name("red"), n="+2")
        assert russian != english
        assert ui.app.screen("table").last_text == russian and ui.find(russian)
    finally:
        ui.close()
