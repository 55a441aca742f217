"""Every screen in every language at 800x480: no text may overflow its widget.

The app is driven through every screen (new game, opening, the table of both editions
with 4 and 6 players, refill, dragon attack, menus, scoring, audit, tags, settings, PIN)
in each language, switched at run time; on each, every visible Label and Button with
text is laid out again without its limits and must fit its widget. A label that shortens
its text with an ellipsis (``shorten``) is allowed to, but a label shortened in a
language and not in English is a problem: the translation must find shorter words.

With CLANK_SCREENSHOTS=<folder> every step is saved as <lang>-<nn>-<step>.png.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("KIVY_WINDOW", "sdl2")
from kivy.config import Config as KivyConfig  # noqa: E402

KivyConfig.set("graphics", "width", "800")
KivyConfig.set("graphics", "height", "480")

from kivy.core.text import Label as CoreLabel  # noqa: E402
from kivy.core.text.markup import MarkupLabel  # noqa: E402
from kivy.uix.label import Label  # noqa: E402
from kivy.uix.modalview import ModalView  # noqa: E402
from kivy.uix.textinput import TextInput  # noqa: E402
from kivy.uix.widget import Widget  # noqa: E402

from companion import i18n  # noqa: E402
from companion.kinds.clank.screens.desk import desk_of  # noqa: E402
from companion.kinds.clank.view import attacks_from_events  # noqa: E402
from companion.store.tags import Component  # noqa: E402
from companion.story import LoggedDraw  # noqa: E402
from companion.ui.harness import Harness  # noqa: E402
from tests.screen_metrics import sticks_out  # noqa: E402

SHOTS = Path(os.environ["CLANK_SCREENSHOTS"]) if os.environ.get("CLANK_SCREENSHOTS") else None
SLACK = 1.0  # pixels of rounding
SEED = "5eed" * 16  # the same draws in every language
SHORTENED: dict[str, set[tuple[str, tuple[int, ...]]]] = {}  # per language: (step, path)


@pytest.fixture(autouse=True)
def english_afterwards():
    yield
    i18n.set_language("en")


# ------------------------------------------------------------------ measuring
def _core(w: Label, text: str, text_size: tuple[float | None, float | None]) -> CoreLabel:
    options = {k: getattr(w, k) for k in Label._font_properties if hasattr(w, k)}
    options.update(text=text, text_size=text_size, shorten=False)
    core = (MarkupLabel if w.markup else CoreLabel)(**options)
    core.refresh()
    return core


def natural(w: Label, text_size: tuple[float | None, float | None]) -> tuple[float, float]:
    """The size the text takes laid out within ``text_size`` (None: unbounded)."""
    return tuple(_core(w, w.text, text_size).content_size)  # type: ignore[return-value]


def shown(w: Widget) -> bool:
    if w.get_root_window() is None or w.width <= 1 or w.height <= 1:
        return False
    node: Widget | None = w
    while node is not None and not isinstance(node, type(w.get_root_window())):
        if node.opacity <= 0:
            return False
        node = node.parent
    return True


def path_of(w: Widget) -> tuple[int, ...]:
    out = []
    while w.parent is not None and w.parent is not w:
        siblings = w.parent.children
        out.append(siblings.index(w) if w in siblings else -1)
        w = w.parent
    return tuple(reversed(out))


def _plain(text: str) -> str:
    return re.sub(r"\[/?[a-z]+(=[^\]]*)?\]", "", text)


def problems_of(w: Label) -> tuple[list[str], bool]:
    """What overflows in a label or button, and whether its text got shortened."""
    if w._trigger_texture.is_triggered:  # its words changed since its texture was made
        w.texture_update()  # (none to remake otherwise: the same texture)
    tw, th = w.text_size
    what = f"{type(w).__name__} {w.text!r} ({w.width:.0f}x{w.height:.0f})"
    if w.shorten and tw is not None:
        width = natural(w, (None, None))[0]
        return [], width > tw + SLACK
    found = []
    if tw is None:
        need_w, need_h = natural(w, (None, None))
        if need_w > w.width + SLACK:
            found.append(f"{what}: {need_w:.0f} px wide")
        if need_h > (th if th is not None else w.height) + SLACK:
            found.append(f"{what}: {need_h:.0f} px high")
        return found, False
    need_h = natural(w, (tw, None))[1]
    if need_h > (th if th is not None else w.height) + SLACK:
        found.append(f"{what}: {need_h:.0f} px high")
    if tw > w.width + SLACK:
        found.append(f"{what}: laid out {tw:.0f} px wide")
    for word in set(_plain(w.text).split()):  # a word wider than the label gets cut apart
        width = _core(w, word, (None, None)).content_size[0]
        if width > tw + SLACK:
            found.append(f"{what}: the word {word!r} is {width:.0f} px wide")
    return found, False


def drawn_problems(w: Widget) -> tuple[list[str], bool]:
    """What a widget that draws its texts lets stick out of its place, and whether it
    shortened one of them."""
    found = []
    for t in w.drawn_texts():
        if sticks_out(t, w, SLACK):
            found.append(f"{type(w).__name__} {t.text!r}: {t.width:.0f}x{t.height:.0f} px")
    return found, any(t.shortened for t in w.drawn_texts())


def hint_problems(w: TextInput) -> list[str]:
    if not w.hint_text or w.text:
        return []
    core = CoreLabel(text=w.hint_text, font_size=w.font_size, font_name=w.font_name)
    core.refresh()
    room = w.width - w.padding[0] - w.padding[2]
    if core.content_size[0] > room + SLACK:
        return [f"TextInput hint {w.hint_text!r}: {core.content_size[0]:.0f} px in {room:.0f}"]
    return []


def check(ui: Harness, lang: str, step: str) -> list[str]:
    ui.frames(3)
    found: list[str] = []
    views = popups(ui)  # a pop-up hides the screen under it
    widgets = (w for view in views for w in view.walk()) if views else ui.widgets()
    for w in widgets:
        if isinstance(w, TextInput) and shown(w):
            found += [f"{step}: {p}" for p in hint_problems(w)]
        if hasattr(w, "drawn_texts") and shown(w):  # texts drawn, not Labels
            problems, shortened = drawn_problems(w)
        elif not isinstance(w, Label) or not w.text.strip() or not shown(w):
            continue
        else:
            problems, shortened = problems_of(w)
        found += [f"{step}: {p}" for p in problems]
        if shortened:
            SHORTENED.setdefault(lang, set()).add((step, path_of(w)))
            english = SHORTENED.get("en")
            if lang != "en" and english is not None and (step, path_of(w)) not in english:
                words = getattr(w, "text", None) or [t.text for t in w.drawn_texts()]
                found.append(f"{step}: {words!r} is shortened in {lang}, not in English")
    return found


# ------------------------------------------------------------------ the tour
def popups(ui: Harness) -> list[ModalView]:
    return [w for w in ui.window.children if isinstance(w, ModalView)]


def close_popups(ui: Harness) -> None:
    for view in popups(ui):
        view.dismiss(animation=False)
    ui.frames(3)


def wait_attack(ui: Harness) -> None:
    view = desk_of(ui.app).attack_view
    assert view is not None
    ui.until(lambda: view.finished)


def card(edition: str, name: str) -> Component:
    return Component("card", edition, name)


def tour(ui: Harness) -> Iterator[str]:
    """Every screen and pop-up, with long texts where they can be long."""
    app = ui.app
    ctl = app.controller
    newgame = app.screen("newgame")
    yield "newgame"
    app.choose_language()
    yield "language"
    close_popups(ui)
    for colour in ("red", "yellow", "green", "blue", "purple", "orange"):
        newgame.toggle_seat(colour)
    yield "newgame-six-seats"
    newgame.clear_seats()
    app.open_scan_drawer()
    yield "scan-drawer"
    close_popups(ui)

    players = ["red", "yellow", "green", "blue"]
    ctl.new_game({"edition": "clank", "players": players, "server_seed": SEED})
    yield "opening"
    ctl.scan_component(card("clank", "Kobold"))  # refused: the dragon symbol
    yield "opening-refused"
    for name in ("Tattle", "Sneak", "Search"):
        ctl.scan_component(card("clank", name))
    app.screen("opening").ids.words.text = "owlbear pizza"
    yield "opening-row"

    ctl.begin()
    yield "table"
    for player, n in (("red", 7), ("yellow", 12), ("green", 21), ("blue", 22)):
        ctl.clank(n, player)
    ctl.do({"do": "gold", "player": "red", "n": 25})
    ctl.do({"do": "artifact", "player": "red", "value": 30})
    ctl.do({"do": "depths", "player": "yellow", "in": True})
    ctl.do({"do": "clank", "player": "red", "n": -12})  # more than it has: credit
    ctl.do({"do": "take", "card": "Sneak"})
    yield "table-busy"
    ctl.do({"do": "escape", "player": "blue"})  # refused: no artifact
    yield "table-refused"
    app.open_menu()
    yield "menu"
    close_popups(ui)
    desk_of(app).confirm_attack()
    yield "confirm-attack"
    close_popups(ui)
    desk_of(app).open_player_actions("red")
    yield "player-actions"
    close_popups(ui)
    desk_of(app).open_player_actions("yellow")  # in the Depths: "leave the Depths"
    yield "player-actions-depths"
    close_popups(ui)

    ctl.end_turn()
    yield "refill-open"
    desk_of(app).pick_untagged_card()
    yield "untagged-card"
    popups(ui)[0].ids.search.text = "dr"
    yield "untagged-card-search"
    close_popups(ui)
    ctl.scan_component(card("clank", "Bracers of Agility"))
    ctl.reveal_untagged(False)
    yield "refill-two"
    ctl.reveal_untagged(True)  # the row is full: the dragon attacks
    ctl.end_turn()
    if ctl.refill is not None:
        ctl.end_turn()
    wait_attack(ui)
    yield "attack"
    close_popups(ui)
    bag = (("black", 17), ("red", 9), ("yellow", 11), ("green", 4), ("blue", 22))
    drawn = ("red", "yellow", "yellow", "black", "green", "blue", "blue")
    draw = LoggedDraw(12, "attack", 7, bag, drawn, False)
    events = [{"event": "draw", "nonce": 12}]
    events += [{"event": "damage", "player": p} for p in ("red", "yellow", "yellow", "green")]
    events += [{"event": "knocked_out", "player": p} for p in ("yellow", "green")]
    desk_of(app).show_attacks(attacks_from_events(events, {12: draw}))
    wait_attack(ui)
    yield "attack-knock-outs"
    close_popups(ui)

    ctl.do({"do": "escape", "player": "red"})  # the countdown starts
    yield "table-countdown"
    ctl.clank(-30, "yellow")  # the cubes back to the supply: damage takes them from there
    ctl.do({"do": "damage", "player": "yellow", "n": 10})
    for player, value in (("green", 5), ("blue", 7)):
        ctl.do({"do": "artifact", "player": player, "value": value})
        ctl.do({"do": "escape", "player": player})
    assert ctl.phase == "scoring"
    for name in ("Treasure Hunter", "Dragon's Eye", "Burgle", "Burgle", "Stumble", "Sneak"):
        ctl.add_to_deck(name)
    yield "scoring"
    app.screen("scoring").show_proof()
    yield "scoring-proof"
    close_popups(ui)
    desk_of(app).confirm_close_game()
    yield "close-game"
    close_popups(ui)
    app.screen("scoring").add_card()
    yield "scoring-add-card"
    close_popups(ui)
    ctl.score_player("yellow")  # knocked out without an artifact
    yield "scoring-nothing"

    app.open_audit()
    app.screen("audit").verify()
    yield "audit"
    app.show_screen("tags")
    tags = app.screen("tags")
    tags.start("bulk")
    tags.scanned("04000000000001")
    yield "tags-bulk"
    tags.scanned("04000000000001")  # refused: just enrolled
    yield "tags-bulk-refused"
    tags.stop()
    tags.start("enroll")
    tags.scanned("04000000000001")  # enrolled already
    yield "tags-enroll"
    tags.stop()
    app.on_scan("04A1B2C3D4E5F6")  # unknown tag: which component is it?
    yield "tags-unknown"
    close_popups(ui)
    app.show_screen("settings")
    yield "settings"
    app.screen("settings").choose_reader()
    yield "settings-reader"
    close_popups(ui)
    app.screen("settings").new_pin()
    yield "settings-new-pin"
    app.ask_pin()
    for digit in "1111":
        app.pin_pad.digit(digit)
    app.pin_pad.digit("ok")
    assert app.pin_pad.message == i18n._("Wrong PIN")
    yield "pin-wrong"
    close_popups(ui)
    app.confirm_abandon()
    yield "abandon"
    close_popups(ui)
    ctl.close_game()
    app.show_screen(app.home_screen())

    six = ["red", "yellow", "green", "blue", "purple", "orange"]
    ctl.new_game({"edition": "catacombs", "players": six, "party": True, "server_seed": SEED})
    yield "opening-catacombs-six"
    ctl.begin()
    ctl.do({"do": "ghost"})
    ctl.do({"do": "ghost"})
    for player, n in zip(six, (1, 2, 5, 11, 21, 22), strict=True):
        ctl.clank(n, player)
    ctl.do({"do": "prisoner", "player": "yellow", "name": "priest"})
    yield "table-catacombs-six"
    desk_of(app).open_player_actions("red")
    yield "player-actions-catacombs"
    close_popups(ui)
    ctl.do({"do": "attack"})
    wait_attack(ui)
    yield "attack-catacombs"
    close_popups(ui)
    ctl.abandon()
    ctl.close_game()
    app.show_screen(app.home_screen())

    four = ["red", "blue", "green", "yellow"]
    ctl.new_game({"edition": "catacombs", "players": four, "server_seed": SEED})
    ctl.begin()
    ctl.do({"do": "ghost"})
    ctl.do({"do": "depths", "player": "blue", "in": True})
    ctl.do({"do": "clank", "player": "red", "n": -5})  # anti-clank 2
    ctl.do({"do": "artifact", "player": "blue", "value": 20})
    ctl.do({"do": "secret", "player": "green", "name": "dragon egg"})
    yield "table-catacombs-four"
    ctl.do({"do": "escape", "player": "blue"})  # refused: still in the Depths
    yield "table-catacombs-refused"
    ctl.do({"do": "damage", "player": "blue", "n": 10})  # knocked out in the Depths
    ctl.do({"do": "artifact", "player": "red", "value": 15})
    ctl.do({"do": "escape", "player": "red"})
    ctl.do({"do": "artifact", "player": "green", "value": 5})
    for player in ("green", "yellow"):
        ctl.clank(-30, player)
        ctl.do({"do": "damage", "player": player, "n": 10})
    assert ctl.phase == "scoring"
    for name in ("Secret Tome", "Secret Tome", "Mercenary"):
        ctl.add_to_deck(name)
    ctl.score_player("blue")
    yield "scoring-catacombs"
    ctl.close_game()
    app.show_screen("pastgames")
    yield "past-games"
    app.open_past_game(1)
    app.screen("audit").verify()
    yield "past-game"


STEPS: list[str] = []


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_every_screen_fits_in_every_language(lang, tmp_path, monkeypatch):
    monkeypatch.setenv("CLANK_CONFIG", str(tmp_path / "config.toml"))
    ui = Harness(tmp_path / "games.db")
    try:
        ui.app.switch_language(lang)  # at run time, as the Settings screen does
        assert i18n.current_language() == lang
        found = []
        steps = []
        for n, step in enumerate(tour(ui)):
            steps.append(step)
            found += check(ui, lang, step)
            if SHOTS is not None:
                SHOTS.mkdir(parents=True, exist_ok=True)
                ui.screenshot(SHOTS / f"{lang}-{n:02d}-{step}.png")
        assert not found, f"{len(found)} texts do not fit in {lang}:\n" + "\n".join(found)
        if STEPS:
            assert steps == STEPS  # every language went the same way
        STEPS[:] = steps
    finally:
        ui.close()


def test_switching_the_language_mid_game_redraws_every_text(tmp_path, monkeypatch):
    monkeypatch.setenv("CLANK_CONFIG", str(tmp_path / "config.toml"))
    ui = Harness(tmp_path / "games.db")
    try:
        ctl = ui.app.controller
        ctl.new_game({"edition": "catacombs", "players": ["red", "blue"], "server_seed": SEED})
        ctl.begin()
        ctl.clank(2, "red")
        ctl.end_turn()  # the refill is open
        ui.frames(3)
        before = ui.snapshot
        english = ui.app.screen("table").end_turn_text  # computed in Python (the table's words)
        assert ui.find("Undo") and ui.find(english)
        ui.app.switch_language("ru")
        ui.frames(3)
        assert ui.app.screens.current == "table" and ui.snapshot == before
        assert ctl.refill == []
        for text in (
            "Отменить",  # kv
            "Ярость",
            "Имитация стола",  # computed in Python
        ):
            assert ui.find(text), text
        russian = ui.app.screen("table").end_turn_text
        assert russian != english and ui.find(russian)
        ui.on_panel("red")  # the player's actions
        assert ui.find("Освободить: priest")  # a pop-up built after the switch
        ui.tap("Закрыть")
        ui.app.switch_language("uk")
        ui.frames(3)
        assert ui.find("Скасувати") and ui.app.screen("table").end_turn_text not in (
            english,
            russian,
        )
        ui.app.switch_language("en")
        ui.frames(3)
        assert ui.find(english) and ui.find("Undo") and ui.snapshot == before
    finally:
        ui.close()


def test_the_system_locale_speaks_when_the_settings_do_not(tmp_path, monkeypatch):
    from companion.config import AppConfig, Config

    for var in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("LANG", "es_ES.UTF-8")
    config = Config(app=AppConfig(database=str(tmp_path / "games.db"), language=""))
    ui = Harness(tmp_path / "games.db", config)
    try:
        assert i18n.current_language() == "es"
        assert ui.find("Nueva partida") and ui.find("Empezar partida")
    finally:
        ui.close()


def test_refusals_and_notes_reach_the_screen_in_the_tables_language(tmp_path, monkeypatch):
    monkeypatch.setenv("CLANK_CONFIG", str(tmp_path / "config.toml"))
    ui = Harness(tmp_path / "games.db")
    try:
        app, ctl = ui.app, ui.app.controller
        app.switch_language("ru")
        ctl.new_game({"edition": "catacombs", "players": ["red", "blue"], "server_seed": SEED})
        ctl.begin()
        ctl.do({"do": "depths", "player": "blue", "in": True})
        ctl.do({"do": "artifact", "player": "blue", "value": 20})
        ctl.do({"do": "escape", "player": "blue"})  # refused: still in the Depths
        ui.frames(3)
        table = app.screens.get_screen("table")
        shown = table.last_text  # the table's line of what just happened, not the status bar
        assert "недр" in shown and "синий" in shown and "escape" not in shown, shown
        assert shown not in app.status.text
        ctl.scan_component(card("clank", "Sneak"))  # a card of the other box
        ui.frames(3)
        assert "карта Sneak (Clank!)" in table.last_text, table.last_text  # the box's title

        ctl.do({"do": "depths", "player": "blue", "in": False})
        ctl.do({"do": "escape", "player": "blue"})
        ctl.clank(-30, "red")
        ctl.do({"do": "damage", "player": "red", "n": 10})
        assert ctl.phase == "scoring"
        ctl.score_player("blue")
        ctl.add_to_deck("Brave Hero")
        ui.frames(3)
        notes = app.screen("scoring").notes_text
        assert notes.startswith("Brave Hero: 5 ") and "пленник" in notes, notes
    finally:
        ui.close()
