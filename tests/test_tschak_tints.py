"""The Tschak! teams' fills painted as the Clank! table's panels are, read from the window.

A game of four teams is played on the touchscreen, twice, so that every player colour
has its team: the floor and the trophies (a team's panel), a floor's verdict (its
column), the trophies' verdict (its row) and the piles at the end (its panel). On each,
every team's fill is its colour's ``panel_tint`` (as the widget says it and as the
window paints it: its most common colour), and every text drawn on the fill, as the
window paints it, stands 4.5:1 at least against it (WCAG 2: the ink of its label, and
the painted pixel of it that stands out most). A text on a ground of its own (a card's
chip, a button, the letter in its disc, the box of what a team takes) is left to that
ground. The fills of one screen stay 20 apart in CAM02-UCS for every vision
(tests/cvd.py), as the Clank! table's do.

With CLANK_SCREENSHOTS=<folder> each screen is saved there as
tschak-tints-<seats>-<step>.png.
"""

from __future__ import annotations

import importlib.util
import os
import random
from collections import Counter

import pytest

os.environ.setdefault("KIVY_WINDOW", "sdl2")
from kivy.config import Config as KivyConfig  # noqa: E402

KivyConfig.set("graphics", "width", "800")
KivyConfig.set("graphics", "height", "480")

from kivy.metrics import dp  # noqa: E402
from kivy.uix.label import Label  # noqa: E402

from companion.ui.colours import colour, contrast, panel_ink, panel_tint  # noqa: E402
from tests.test_tschak_screens import (  # noqa: E402
    SHOTS,
    harnesses,  # noqa: F401 - the fixture
    open_ui,
    scrolled_away,
    shown,
)
from tests.test_tschak_support import random_game  # noqa: E402

# two tables of four: every colour seated, yellow's light fill in both
SEATINGS = [["red", "yellow", "green", "blue"], ["purple", "orange", "yellow", "green"]]
SEATS = ["red", "yellow", "green", "blue", "purple", "orange"]
LEAST_CONTRAST = 4.5  # WCAG 2: text on its ground
LEAST_PAINTED = 20  # tests/test_colours_as_painted.py: fills told apart at a glance
ROUNDING = 2.5 / 255  # a colour as the window paints it
EDGE = round(dp(6))  # a panel's edge: the white frame of the next scans' team, its colour band


def seat_of(panel) -> str:
    """The player colour a panel shows (its band's colour)."""
    return next(name for name in SEATS if list(colour(name)) == list(panel.swatch))


def window_box(widget, within=None) -> tuple[int, int, int, int]:
    """The widget's columns and rows in the window (x0, y0, x1, y1), cut to ``within``."""
    x, y = widget.to_window(widget.x, widget.y)
    box = (round(x), round(y), round(x + widget.width), round(y + widget.height))
    if within is None:
        return box
    return (max(box[0], within[0]), max(box[1], within[1]),
            min(box[2], within[2]), min(box[3], within[3]))  # fmt: skip


def in_view(widget) -> tuple[int, int, int, int]:
    """The part of the widget the window shows: within it, and within the scrolling
    lists it is in."""
    from kivy.uix.scrollview import ScrollView

    window = widget.get_root_window()
    box = window_box(widget, (0, 0, int(window.width), int(window.height)))
    node = widget.parent
    while node is not None and node is not window:
        if isinstance(node, ScrollView):
            box = window_box(node, box)
        node = node.parent
    return box


def inside(widget) -> tuple[int, int, int, int]:
    """The part of a panel the window shows, its edge left out (the white frame of the
    next scans' team, the colour band on top)."""
    x0, y0, x1, y1 = in_view(widget)
    return x0 + EDGE, y0 + EDGE, x1 - EDGE, y1 - EDGE


def text_box(label, within) -> tuple[int, int, int, int]:
    """Where a label draws its text (its texture, centred in it), cut to ``within``."""
    tw, th = (min(a, b) for a, b in zip(label.texture_size, label.size, strict=True))
    x, y = label.to_window(label.center_x - tw / 2, label.center_y - th / 2)
    return (max(round(x), within[0]), max(round(y), within[1]),
            min(round(x + tw), within[2]), min(round(y + th), within[3]))  # fmt: skip


def pixels(image, box) -> list[tuple[int, int, int]]:
    x0, y0, x1, y1 = box
    return [p for row in image[max(0, y0) : max(0, y1)] for p in row[max(0, x0) : max(0, x1)]]


def rgb(pixel) -> tuple[float, float, float]:
    return tuple(v / 255 for v in pixel)  # type: ignore[return-value]


def own_grounds(panel) -> list:
    """The parts of a panel with a ground of their own: its cards' chips and its buttons."""
    from companion.kinds.tschak.screens.widgets import CardChip, TschakButton

    return [
        w
        for w in panel.walk(restrict=True)
        if w is not panel and isinstance(w, CardChip | TschakButton) and shown(w)
    ]


def painted_fill(image, panel) -> tuple[float, float, float]:
    """The panel's most common colour, its edge and the parts on grounds of their own
    left out (a team's cards cover most of it)."""
    inner = inside(panel)
    covered = [window_box(w, inner) for w in own_grounds(panel)]
    counted: Counter = Counter()
    x0, y0, x1, y1 = inner
    for y in range(y0, y1):
        row = image[y]
        for x in range(x0, x1):
            if not any(a <= x < c and b <= y < d for a, b, c, d in covered):
                counted[row[x]] += 1
    return rgb(counted.most_common(1)[0][0])


def in_sight(label) -> bool:
    """A text shown whole: none of it scrolled out of its list's view."""
    return (
        isinstance(label, Label) and bool(label.text.strip()) and shown(label)
        and not scrolled_away(label)
    )  # fmt: skip


def texts_on_fill(image, panel, fill) -> dict[str, float]:
    """Each text drawn on the panel's fill (the ground of its text as painted, the most
    common colour where its label draws it, is the fill) and the contrast of its ink as
    painted: the pixel of it that stands out most from the fill. The label's own ink
    holds the least contrast too."""
    inner = inside(panel)
    found = {}
    for label in panel.walk(restrict=True):
        if not in_sight(label):
            continue
        seen = pixels(image, text_box(label, inner))
        if not seen:
            continue
        ground = rgb(Counter(seen).most_common(1)[0][0])
        if ground != pytest.approx(fill, abs=ROUNDING):
            continue  # a ground of its own
        ink = label.disabled_color if label.disabled else label.color
        assert contrast(ink, fill) >= LEAST_CONTRAST, (label.text, list(ink), fill)
        found[label.text] = max(contrast(rgb(p), fill) for p in set(seen))
    return found


def assert_fills(ui, panels, step: str, said=lambda panel: []) -> None:
    """Every panel filled with its colour's tint and every text on it in an ink that
    stands out, as the widgets say and as the window paints them; ``said(panel)``: the
    texts that must be among those on the fill when in sight (none of them left to
    another ground)."""
    from companion.ui.ink import window_image
    from companion.ui.taps import RULE

    ui.frames(2)
    RULE.release_all()  # new controls are veiled for their first moment: looked at after
    ui.frames(3)
    if SHOTS is not None:  # first: a screen that fails is there to be looked at
        SHOTS.mkdir(parents=True, exist_ok=True)
        seats = "-".join(seat_of(p) for p in panels)
        ui.screenshot(SHOTS / f"tschak-tints-{seats}-{step}.png")
    assert panels, step
    image = window_image(ui.window)
    fills = {}
    for panel in panels:
        name = seat_of(panel)
        assert list(panel.tint) == list(panel_tint(name)), (step, name)
        assert list(panel.ink) == list(panel_ink(name)), (step, name)
        fill = painted_fill(image, panel)
        assert fill == pytest.approx(panel_tint(name)[:3], abs=ROUNDING), (step, name, fill)
        fills[name] = fill
        texts = texts_on_fill(image, panel, fill)
        weak = {text: round(c, 2) for text, c in texts.items() if c < LEAST_CONTRAST}
        assert not weak, (step, name, weak)
        sighted = {w.text for w in panel.walk(restrict=True) if in_sight(w)}
        missing = [t for t in said(panel) if t in sighted and t not in texts]
        assert not missing, (step, name, missing, sorted(texts))
    if importlib.util.find_spec("colorspacious") is not None:
        from tests import cvd

        for vision in cvd.VISIONS:
            d, a, b = cvd.closest(fills, vision)
            assert d >= LEAST_PAINTED, f"{step}, {vision or 'normal'}: {a} and {b} {d:.1f} apart"


def screen_panels(ui, name: str, cls) -> list:
    screen = ui.app.screens.get_screen(name)
    assert ui.app.screens.current == name
    return [w for w in screen.walk(restrict=True) if isinstance(w, cls) and shown(w)]


@pytest.mark.parametrize("players", SEATINGS, ids=["-".join(s) for s in SEATINGS])
def test_every_team_is_filled_with_its_tint_and_its_texts_stand_out(
    tmp_path,
    harnesses,  # noqa: F811
    players,
):
    from companion.kinds.tschak.screens.final import PilePanel
    from companion.kinds.tschak.screens.floor import TeamPanel
    from companion.kinds.tschak.screens.verdict import TrophyRow, VerdictColumn

    ui = open_ui(tmp_path, harnesses)
    tschak = ui.app.control("tschak")
    _game, actions = random_game(players, random.Random(7), tiebreak=False)
    assert tschak.prepare(players) and tschak.start()
    ui.frames(2)
    tower, floor, *rest = actions
    for card in [*tower["monsters"], *tower["treasures"]]:
        assert tschak.scan_card(card), card
    assert tschak.set_out_tower()
    # the first floor: three teams laid, the last one card short (the next scans')
    for player, cards in floor["teams"].items():
        for card in cards if player != players[-1] else cards[:2]:
            assert tschak.add_card(card, player), (card, player)
    tschak.select(players[-1])
    assert_fills(ui, screen_panels(ui, "tschak_floor", TeamPanel), "floor")
    assert tschak.add_card(floor["teams"][players[-1]][2], players[-1])
    assert tschak.resolve_floor()
    ui.frames(2)

    def column(c) -> list[str]:
        boxed = c.takes in ("treasure", "monster")  # in a box of the card's colour
        return [c.name_text, c.strength, c.detail] + ([] if boxed else [c.takes_text])

    columns = screen_panels(ui, "tschak_verdict", VerdictColumn)
    assert_fills(ui, columns, "verdict", column)
    ui.app.screens.get_screen("tschak_verdict").ids.scroll.scroll_y = 0  # how it was counted
    assert_fills(ui, columns, "verdict-scrolled", column)
    assert any(c.detail for c in columns)
    tschak.go_on()
    # floors 2 and 3 straight to the game, then the trophies on the screen: two last
    # cards laid, two to come
    for action in rest[:2]:
        assert tschak.do(action) is not None
    ui.app.show_screen(ui.app.home_screen())
    ui.frames(2)
    trophies = rest[2]
    assert trophies["do"] == "trophies" and tschak.phase == "trophies"
    for player in players[:2]:
        assert tschak.add_card(trophies["last"][player], player)
    assert_fills(
        ui,
        screen_panels(ui, "tschak_floor", TeamPanel),
        "trophies",
        lambda t: [t.status_text],
    )
    for player in players[2:]:
        assert tschak.add_card(trophies["last"][player], player)
    assert tschak.resolve_trophies()
    ui.frames(2)
    assert_fills(
        ui,
        screen_panels(ui, "tschak_verdict", TrophyRow),
        "trophy-verdict",
        lambda r: [r.name_text, r.gold],
    )
    tschak.go_on()
    # the other towers straight to the game; then the piles: one whole, one begun, one
    # holding another's card, one not scanned yet
    for action in rest[3:]:
        assert tschak.do(action) is not None
    ui.app.show_screen(ui.app.home_screen())
    ui.frames(2)
    snap = tschak.snapshot()["players"]
    first = snap[players[0]]
    for player, cards in (
        (players[0], [*first["monsters"], *first["treasures"]]),
        (players[1], snap[players[1]]["treasures"][:1] or snap[players[1]]["monsters"][:1]),
        (players[2], first["treasures"][:1] or first["monsters"][:1]),
    ):
        tschak.select(player)
        for card in cards:
            assert tschak.scan_card(card), card
    tschak.select(players[3])
    piles = screen_panels(ui, "tschak_final", PilePanel)
    assert {p.status for p in piles} >= {"match", "mismatch"}, [p.status for p in piles]
    assert_fills(
        ui,
        piles,
        "piles",
        lambda p: [p.name_text, p.count_text, p.status_text],
    )
