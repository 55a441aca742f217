"""The Tschak! floor and trophies screens read from across the table (TABLE_SCREEN.md):
at 2, 3 and 4 players and in every language, every text's ink 18 px or more, a card's
number 30 px or more, nothing shortened, broken or clipped, and the team's name a
finger's size. Four teams side by side are the narrowest case: three cards of two lines
each, and a team with a misplay to own up to."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("KIVY_WINDOW", "sdl2")
from kivy.config import Config as KivyConfig  # noqa: E402

KivyConfig.set("graphics", "width", "800")
KivyConfig.set("graphics", "height", "480")

from companion.i18n import _  # noqa: E402
from companion.ui.ink import screen_metrics  # noqa: E402
from tests.test_tschak_screens import (  # noqa: E402
    LANGUAGES,
    SHOTS,
    assert_readable,
    harnesses,  # noqa: F401 - the fixture
    open_ui,
)

TOWER = ["monster:5", "troglodyte", "monster:2", "cursed:3", "war_trophy", "chest:5"]
# the longest names and weapons of each group; the last team's two mages: a misplay
HANDS = [["D2x", "W5a", "Mc"], ["D1u", "M4s", "A"], ["D3a", "W6", "M5"], ["M3s", "M2"]]


def measured(ui, name: str, figures_at_least: int = 30) -> dict:
    assert_readable(ui)  # nothing clipped, nothing off the window
    if SHOTS is not None:
        SHOTS.mkdir(parents=True, exist_ok=True)
        ui.screenshot(SHOTS / f"{name}.png")
    found = screen_metrics(ui.window)
    assert found["smallest_text_ink"] >= 18, [
        (t["text"], t["ink"]) for t in found["texts"] if not t["figure"] and t["ink"] < 18
    ]
    figures = found["smallest_figure_ink"]
    assert figures is None or figures >= figures_at_least, figures  # (none on an empty floor)
    assert not found["cut"], found["cut"]
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
        measured(ui, f"tschak-floor-{language}-{len(players)}-totals")
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
        # a misplay to own up to: a line per card, the numbers a little smaller
        measured(ui, f"tschak-floor-{language}-{len(players)}-misplay", figures_at_least=26)
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
