"""The Tschak! floor and trophies screens read from across the table (TABLE_SCREEN.md):
at 2, 3 and 4 players and in every language, every text's ink 18 px or more, a card's
number and the running totals 30 px or more (a team with a misplay to own up to too),
the title and the line of what just happened 21 px of capitals, nothing shortened,
broken or clipped, and the team's name a finger's size. Four teams side by side are the
narrowest case: three cards of two lines each, and a team with a misplay to own up to."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("KIVY_WINDOW", "sdl2")
from kivy.config import Config as KivyConfig  # noqa: E402

KivyConfig.set("graphics", "width", "800")
KivyConfig.set("graphics", "height", "480")

from companion.i18n import _  # noqa: E402
from tests.test_tschak_screens import (  # noqa: E402
    FIGURE_INK,
    LANGUAGES,
    SHOTS,
    assert_ink,
    assert_readable,
    harnesses,  # noqa: F401 - the fixture
    open_ui,
    said,
)

TOWER = ["monster:5", "troglodyte", "monster:2", "cursed:3", "war_trophy", "chest:5"]
# the longest names and weapons of each group; the last team's two mages: a misplay
HANDS = [["D2x", "W5a", "Mc"], ["D1u", "M4s", "A"], ["D3a", "W6", "M5"], ["M3s", "M2"]]


def measured(ui, name: str) -> dict:
    if SHOTS is not None:  # first: a screen that fails is there to be looked at
        SHOTS.mkdir(parents=True, exist_ok=True)
        ui.screenshot(SHOTS / f"{name}.png")
    assert_readable(ui)  # nothing clipped, nothing off the window
    # the figures at the table's size (none on an empty floor), the watched words too
    empty = not any(w.text.strip().isdigit() for w in ui.widgets() if hasattr(w, "text"))
    found = assert_ink(ui, None if empty else FIGURE_INK)
    assert said(ui, "watched"), "the title and the line under the teams say they are watched"
    return found


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_floor_and_the_trophies_hold_the_table_sizes(tmp_path, harnesses, language):  # noqa: F811
    ui = open_ui(tmp_path, harnesses, language)
    tschak = ui.app.control("tschak")
    for players in (["red", "yellow", "green", "blue"], ["purple", "orange", "red"],
                    ["purple", "orange"]):  # fmt: skip
        assert tschak.prepare(players)
        assert tschak.start()
        ui.frames(2)
        for card in TOWER:
            tschak.scan_card(card)
        ui.tap(_("Set out tower {tower}").format(tower=1))
        assert ui.app.screens.current == "tschak_floor"
        measured(ui, f"tschak-floor-{language}-{len(players)}-empty")
        hands = [*HANDS[: len(players) - 1], HANDS[-1]]  # the two mages: the last team's
        for player, cards in zip(players, hands, strict=True):
            for card in cards[: 3 if player != players[-1] else 1]:
                tschak.add_card(card, player)
        found = measured(ui, f"tschak-floor-{language}-{len(players)}")
        tschak.toggle_scores()  # the table turned the running totals on: one line, whole
        assert ui.app.screens.get_screen("tschak_floor").totals
        totals = measured(ui, f"tschak-floor-{language}-{len(players)}-totals")
        line = [t for t in totals["texts"] if t.get("role") == "figure" and not t["figure"]]
        assert len(line) == 1 and line[0]["ink"] >= FIGURE_INK, line  # the scores, large
        tschak.toggle_scores()
        fives = [t for t in found["texts"] if t["text"] == "5"]  # W5a's number and M5's
        assert fives and all(t["figure"] and t["ink"] >= 30 for t in fives), fives
        floor = ui.app.screens.get_screen("tschak_floor")
        panels = {p.player: p for p in floor.ids.teams.children}
        names = [b for b in ui.widgets() if getattr(b, "text", "").endswith(
            panels[players[0]].name_text)]  # fmt: skip
        assert names and all(b.height >= 48 for b in names)
        tschak.add_card(HANDS[-1][1], players[-1])  # a second mage
        assert panels[players[-1]].misplay_text  # own up to a misplay?
        # a misplay to own up to: a line per card, the numbers still the table's size
        measured(ui, f"tschak-floor-{language}-{len(players)}-misplay")
        tschak.toggle_scores()  # the running totals give way to what is wrong
        floor = ui.app.screens.get_screen("tschak_floor")
        assert floor.totals and not floor.show_totals
        assert floor.wrong and any(getattr(w, "text", "") == floor.wrong for w in ui.widgets())
        measured(ui, f"tschak-floor-{language}-{len(players)}-misplay-totals")
        tschak.toggle_scores()
        tschak.abandon()
        ui.frames(2)
    # the trophies: each team's last card, three teams
    players = ["red", "blue", "green"]
    assert tschak.prepare(players) and tschak.start()
    from tests.test_tschak_screens import ACTIONS

    for action in ACTIONS[:4]:
        assert tschak.do(action) is not None, tschak.last
    ui.app.show_screen(ui.app.home_screen())
    ui.frames(2)
    assert ui.app.screens.current == "tschak_floor" and tschak.phase == "trophies"
    measured(ui, f"tschak-trophies-{language}-empty")
    for player, card in ACTIONS[4]["last"].items():
        tschak.add_card(card, player)
    measured(ui, f"tschak-trophies-{language}")
