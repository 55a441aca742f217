"""The figures the whole table watches around the table screen, readable from the far seat
(TABLE_SCREEN.md, issue 35): on the dragon attack (the bag's counts, the damage, the health
left), the scoring screen (each player's total, the chosen player's parts, the winner's)
and All odds (every chance, the health lost on average), in every language with 2, 4 and
6 players:

- every figure's digits at least 30 px high with 2-4 players, 26 px with 5-6, measured
  from the window's pixels (companion.ui.ink);
- the words beside them that the table watches drawn at 30 sp at least (21 px of
  capitals), every other text at least 18 px of ink;
- nothing shortened or broken, nothing out of its place, every button a fingertip's
  size and 8 px from the next.

With CLANK_SCREENSHOTS=<folder> each screen is saved there as <screen>-<lang>-<n>.png.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("KIVY_WINDOW", "sdl2")
from kivy.config import Config as KivyConfig  # noqa: E402

KivyConfig.set("graphics", "width", "800")
KivyConfig.set("graphics", "height", "480")

from kivy.metrics import sp  # noqa: E402
from kivy.uix.label import Label  # noqa: E402
from kivy.uix.modalview import ModalView  # noqa: E402

from companion import i18n  # noqa: E402
from companion.config import AppConfig, Config  # noqa: E402
from companion.kinds.clank.screens.attack import AttackView  # noqa: E402
from companion.kinds.clank.screens.desk import desk_of  # noqa: E402
from companion.kinds.clank.screens.odds import OddsView  # noqa: E402
from companion.kinds.clank.view import attacks_from_events  # noqa: E402
from companion.story import LoggedDraw  # noqa: E402
from companion.ui.harness import Harness  # noqa: E402
from companion.ui.ink import LETTER, screen_metrics, walk  # noqa: E402
from tests.screen_metrics import problems, shown  # noqa: E402

SHOTS = Path(os.environ["CLANK_SCREENSHOTS"]) if os.environ.get("CLANK_SCREENSHOTS") else None
SEED = "5eed" * 16
SEATS = ["red", "yellow", "green", "blue", "purple", "orange"]
LANGUAGES = ("en", "es", "ru", "uk")
FIGURE = 30  # px of digits, 2-4 players
CROWDED_FIGURE = 26  # the same with 5-6
TEXT = 18  # px of ink: any other text
WATCHED = sp(30)  # the size of the words the table watches: 21 px of capitals


@pytest.fixture(autouse=True)
def english_afterwards():
    yield
    i18n.set_language("en")


@pytest.fixture
def held(monkeypatch):
    monkeypatch.setattr(AttackView, "STEP", 3600.0)  # the cubes come when the test says


def harness(tmp_path: Path, language: str) -> Harness:
    db = tmp_path / "games.db"
    return Harness(db, Config(app=AppConfig(database=str(db), language=language)))


def digits(text: dict[str, Any]) -> int:
    """A measured text's digit height: read glyph by glyph where the measure does so,
    else the height of its ink (a number alone: its digits)."""
    return int(text.get("digit_height") or text["ink"])


def role(widget: Any) -> str:
    return str(getattr(widget, "ink_role", "") or "")


def read_across(ui: Harness, root: Any, players: int, name: str) -> list[str]:
    """What keeps ``root`` (the screen or the pop-up on top) from being read from the far
    seat: each figure it shows with digits under the limit (or not measured at all),
    watched words under 30 sp, any other text under 18 px of ink, texts cut, out of
    their place, buttons too small or too close."""
    ui.frames(4)
    if SHOTS is not None:
        SHOTS.mkdir(parents=True, exist_ok=True)
        ui.screenshot(SHOTS / f"{name}.png")
    least = FIGURE if players <= 4 else CROWDED_FIGURE
    measured = screen_metrics(ui.window)
    by_text: dict[str, list[dict[str, Any]]] = {}
    for t in measured["texts"]:
        by_text.setdefault(t["text"], []).append(t)
    found = []
    shown_here = [w for w in walk(root) if isinstance(w, Label) and w.text.strip() and shown(w)]
    figures = [w for w in shown_here if role(w) == "figure"]
    if not figures:
        found.append(f"{name}: no figure shown")
    for w in figures:
        seen = [digits(t) for t in by_text.get(w.text, []) if t["ink"]]
        if not seen:
            found.append(f"{name}: the figure {w.text!r} is not measured")
        elif min(seen) < least:
            found.append(f"{name}: the figure {w.text!r} is {min(seen)} px high, under {least}")
    for w in shown_here:
        if role(w) == "watched" and w.font_size + 0.5 < WATCHED:
            found.append(f"{name}: the watched words {w.text!r} are {w.font_size:.0f} px")
        if w._trigger_texture.is_triggered:  # its words changed since its texture was made
            w.texture_update()  # (none to remake otherwise: the same texture and size)
        if w.texture_size[0] > w.width + 1 or w.texture_size[1] > w.height + 1:
            found.append(f"{name}: {w.text!r} takes more than its place")
    figure_texts = {w.text for w in figures}
    for t in measured["texts"]:
        text = t["text"] not in figure_texts and LETTER.search(t["text"])
        if text and 0 < t["ink"] < TEXT:
            found.append(f"{name}: {t['text']!r} has {t['ink']} px of ink")
    found += [f"{name}: cut {c}" for c in measured["cut"]]
    found += [f"{name}: {p}" for p in problems(root)]
    return found


def popups(ui: Harness) -> list[ModalView]:
    return [w for w in ui.window.children if isinstance(w, ModalView)]


def new_game(ui: Harness, players: int) -> list[str]:
    """A game of ``players`` (Catacombs from four: ghosts in the bag, secrets to score)."""
    seats = SEATS[:players]
    edition = "catacombs" if players >= 4 else "clank"
    ctl = ui.app.controller
    ctl.new_game({"edition": edition, "players": seats, "party": players > 4,
                  "server_seed": SEED})  # fmt: skip
    ctl.begin()
    ui.frames(2)
    return seats


def attack(ui: Harness, seats: list[str]) -> AttackView:
    """A draw that hurts every player, knocks the first out, from a full bag (two-digit
    counts, ghosts in Catacombs): the verdict's longest lines, the bag's widest row."""
    bag: tuple[tuple[str, int], ...] = (("black", 24),)
    bag += tuple((p, 30 - 3 * i) for i, p in enumerate(seats))
    if len(seats) >= 4:
        bag += (("ghost", 2),)
    drawn = (*seats[:3], "black", seats[0])
    draw = LoggedDraw(13, "attack", len(drawn), bag, drawn, False)
    events: list[dict[str, Any]] = [{"event": "draw", "nonce": 13}]
    events += [{"event": "damage", "player": p, "health": 9 - i} for i, p in enumerate(seats)]
    events += [{"event": "damage", "player": seats[0], "health": 0},
               {"event": "knocked_out", "player": seats[0], "in_depths": False}]  # fmt: skip
    (event,) = attacks_from_events(events, {13: draw})
    desk_of(ui.app).show_attacks((event,))
    view = desk_of(ui.app).attack_view
    assert view is not None
    for _ in drawn:
        view._next_cube(0)
        ui.frames(1)
    assert view.finished
    return view


def to_the_end(ui: Harness, seats: list[str]) -> None:
    """Everyone with an artifact and gold, the first escaped, the others knocked out
    above the Depths; a deck of cards scored for the first."""
    ctl = ui.app.controller
    for i, p in enumerate(seats):
        ctl.do({"do": "artifact", "player": p, "value": 5 + 5 * i})
        ctl.do({"do": "gold", "player": p, "n": 3 + 4 * i})
    if ctl.edition == "catacombs":
        ctl.do({"do": "secret", "player": seats[0], "name": "dragon egg"})
    ctl.do({"do": "escape", "player": seats[0]})
    for p in seats[1:]:
        ctl.clank(-30, p)
        ctl.do({"do": "damage", "player": p, "n": 10})
    for view in popups(ui):
        view.dismiss(animation=False)
    if desk_of(ui.app).attack_view is not None:
        desk_of(ui.app).attack_view.dismiss(animation=False)
    ui.frames(2)
    assert ctl.phase == "scoring"
    for name in ("Treasure Hunter", "Dragon's Eye", "Burgle", "Burgle", "Stumble"):
        ctl.add_to_deck(name)
    ui.frames(2)


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("players", [2, 4, 6])
def test_the_attack_scoring_and_odds_figures_read_from_the_far_seat(
    tmp_path, held, language, players
):
    ui = harness(tmp_path, language)
    found: list[str] = []
    try:
        seats = new_game(ui, players)
        view = attack(ui, seats)
        # the bag's counts, the damage and the health left: figures, each measured
        counts = [b.ids.count for b in view.ids.bag.children]
        assert len(counts) == players + 1 + (players >= 4)
        found += read_across(ui, view, players, f"attack-{language}-{players}")
        assert view.cube_side >= 80  # the cubes large still, six lines of verdict below
        view.dismiss(animation=False)
        ui.frames(2)

        ctl = ui.app.controller
        for p, n in zip(seats, (4, 7, 2, 5, 3, 6), strict=False):
            ctl.clank(n, p)
        ctl.do({"do": "damage", "player": seats[-1], "n": 7})  # a knock-out likely
        ui.frames(2)
        odds = OddsView(ctl.view())
        odds.open(animation=False)
        found += read_across(ui, odds, players, f"odds-{language}-{players}")
        odds.dismiss(animation=False)
        ui.frames(2)

        to_the_end(ui, seats)
        scoring = ui.app.screen("scoring")
        assert len(scoring.ids.selector.children) == players and scoring.parts
        found += read_across(ui, scoring, players, f"scoring-{language}-{players}")
    finally:
        ui.close()
    assert not found, f"{len(found)} problems:\n" + "\n".join(found)


def test_a_tie_for_the_win_is_told_beside_the_winners_total(tmp_path, held):
    """The tie's words take the room the winner's words and total leave, on two lines if
    they must, and every figure keeps its size."""
    ui = harness(tmp_path, "ru")
    try:
        seats = new_game(ui, 2)
        ctl = ui.app.controller
        # 20 + 5 gold against 25, both knocked out above the Depths
        ctl.do({"do": "artifact", "player": seats[0], "value": 20})
        ctl.do({"do": "gold", "player": seats[0], "n": 5})
        ctl.do({"do": "artifact", "player": seats[1], "value": 25})
        for p in seats:
            ctl.do({"do": "damage", "player": p, "n": 10})
        ui.frames(2)
        view = ctl.view()
        assert view.ranking[0].score == view.ranking[1].score
        scoring = ui.app.screen("scoring")
        assert scoring.tie_text and scoring.winner_text.endswith(scoring.tie_text)
        found = read_across(ui, scoring, 2, "scoring-tie-ru-2")
        # the tie gone (as after an undo): its note gives its room back, nothing past the
        # window's edge (a monkey found the note's old width there)
        scoring.tie_text = ""
        ui.frames(3)
        for w in scoring.walk():
            x, _y = w.to_window(w.x, w.y)
            assert x + w.width <= ui.window.width + 1, (type(w).__name__, x, w.width)
    finally:
        ui.close()
    assert not found, "\n".join(found)
