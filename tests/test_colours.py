"""The player colours stay apart for every player at the table, as the screens paint them.

Each two of the six are far apart in CAM02-UCS in normal vision and under a simulated
deutan, protan and tritan colour vision deficiency (tests/cvd.py: colorspacious, severity
100): the colours themselves (a panel's band, a cube, a chip in the bag, a chart's line),
the tints that fill the players' panels, and a chart's dragon marks against every line.
The text drawn on each colour and each tint keeps a contrast of 4.5:1 (WCAG); each colour
has a letter of its own in every language, none of them a letter that reads as a digit;
the turn marker (white) is far from every player colour. colorspacious is a dev
dependency: without it the distances are not measured (the rest still is).
"""

from __future__ import annotations

import pytest

from companion.i18n import LANGUAGES, set_language
from companion.ui.colours import (
    BACKGROUND,
    DARK_INK,
    DRAGON_MARK,
    LIGHT_INK,
    colour,
    contrast,
    letter,
    panel_ink,
    panel_tint,
    text_colour,
)

SEATS = ["red", "yellow", "green", "blue", "purple", "orange"]

# The least CAM02-UCS distance (deltaE) between two player colours, in every vision below:
# the colours reach 20.75 (tritan: red and orange; normal 27.2, deutan 20.9, protan 21.0).
LEAST_DISTANCE = 20.7
# The same for the panels' tints, and for a chart's dragon mark against every player's
# line: two colours 20 apart are told apart at a glance (the tints reach 21.2: protan,
# green and orange; the mark 21.4: deutan, green).
LEAST_PAINTED = 20
# No player colour is closer than this to the turn marker (white), in any vision (protan:
# green, 20.0): the marker does not compete with a player's colour.
LEAST_FROM_MARKER = 20
MARKER = (1.0, 1.0, 1.0)
VISIONS = [None, "deuteranomaly", "protanomaly", "tritanomaly"]
# What the table draws on a panel's tint besides its ink, today: the figures' line and
# the odds' words (near white) and the odds in amber when the risk is real
# (companion/kinds/clank/screens/panel.py): on the five dark tints, 4.5:1 at least too.
PANEL_TEXTS = [(0.92, 0.92, 0.95), (0.88, 0.9, 0.93), (1, 0.82, 0.3)]
# Letters that read as a digit beside a number ("З0" reads "30", "O0" "00"), in the
# Latin, Cyrillic and Greek alphabets: a colour's letter is none of them.
DIGIT_LOOKALIKES = {
    "0": "OoОоΟο",
    "1": "IlІіӀ|",
    "3": "Зз",
    "4": "Чч",
    "6": "Бб",
}


def rgb(name: str) -> tuple[float, float, float]:
    r, g, b, _a = colour(name)
    return (r, g, b)


@pytest.fixture
def cvd():
    """tests/cvd.py, when colorspacious (the dev extra) is installed."""
    pytest.importorskip("colorspacious", reason="colorspacious (the dev extra) is not installed")
    from tests import cvd

    return cvd


def test_the_seats_are_the_colours_drawn():
    from companion.kinds.tschak.views import SEAT_COLOURS as TSCHAK_SEATS
    from companion.ui.widgets import SEAT_COLOURS

    assert list(SEAT_COLOURS) == SEATS
    assert list(TSCHAK_SEATS) == SEATS


@pytest.mark.parametrize("vision", VISIONS, ids=lambda v: v or "normal")
def test_every_two_player_colours_are_far_apart(cvd, vision):
    apart = cvd.distances({s: rgb(s) for s in SEATS}, vision)
    close = [f"{a}-{b} {d:.1f}" for (a, b), d in apart.items() if d < LEAST_DISTANCE]
    assert not close, f"{vision or 'normal'} vision: {close} (least {LEAST_DISTANCE})"


@pytest.mark.parametrize("vision", VISIONS, ids=lambda v: v or "normal")
def test_every_two_panel_tints_are_far_apart(cvd, vision):
    """The fills of the players' parts of a screen (a panel, a Tschak! column), as
    painted: a colour-blind player tells the six apart by the fill, not only by a band."""
    apart = cvd.distances({s: panel_tint(s)[:3] for s in SEATS}, vision)
    close = [f"{a}-{b} {d:.1f}" for (a, b), d in apart.items() if d < LEAST_PAINTED]
    assert not close, f"{vision or 'normal'} vision: {close} (least {LEAST_PAINTED})"


@pytest.mark.parametrize("vision", VISIONS, ids=lambda v: v or "normal")
def test_a_charts_dragon_marks_are_no_players_line(cvd, vision):
    """The ticks where the dragon drew, as a chart paints them on its background, far
    from every player's line (a red tick was the red player's colour to a tritan)."""
    from companion.ui.charts import BACKGROUND as CHART_BACKGROUND
    from companion.ui.charts import MARK

    assert MARK == DRAGON_MARK and CHART_BACKGROUND == BACKGROUND
    mark = cvd.seen(cvd.over(MARK, BACKGROUND), vision)
    for name in SEATS:
        d = cvd.distance(mark, cvd.seen(rgb(name), vision))
        assert d >= LEAST_PAINTED, f"{name}: {d:.1f}"
    assert contrast(cvd.over(MARK, BACKGROUND), BACKGROUND) >= 3  # a graphic: 3:1


@pytest.mark.parametrize("vision", VISIONS, ids=lambda v: v or "normal")
def test_no_player_colour_competes_with_the_turn_marker(cvd, vision):
    marker = cvd.seen(MARKER, vision)
    for name in SEATS:
        assert cvd.distance(cvd.seen(rgb(name), vision), marker) >= LEAST_FROM_MARKER, name


@pytest.mark.parametrize("vision", VISIONS, ids=lambda v: v or "normal")
def test_the_ghosts_chip_is_no_players(cvd, vision):
    """The bag's chips: the ghosts' (Catacombs) beside the six players' (21.4: deutan,
    green)."""
    chip = cvd.seen(rgb("ghost"), vision)
    for name in SEATS:
        d = cvd.distance(chip, cvd.seen(rgb(name), vision))
        assert d >= LEAST_PAINTED, f"ghost-{name}: {d:.1f}"


@pytest.mark.parametrize("vision", VISIONS, ids=lambda v: v or "normal")
def test_every_player_colour_stands_out_from_the_background(cvd, vision):
    """A chart's line, a panel's band and a cube are drawn on the dark background."""
    background = cvd.seen(BACKGROUND, vision)
    for name in SEATS:
        assert cvd.distance(cvd.seen(rgb(name), vision), background) >= 25, name


@pytest.mark.parametrize("name", SEATS + ["ghost"])
def test_the_text_on_each_colour_can_be_read(name):
    """The letter on a cube, a disc, a bag's chip: 4.5:1 at least (WCAG AA), and the
    lines and bars of a chart at least 3:1 on its background (WCAG, graphics)."""
    ink = text_colour(name)
    assert ink in (DARK_INK, LIGHT_INK)
    assert contrast(rgb(name), ink) >= 4.5, f"{name}: {contrast(rgb(name), ink):.2f}"
    if name != "ghost":
        assert contrast(rgb(name), BACKGROUND) >= 3, name


@pytest.mark.parametrize("name", SEATS)
def test_the_figures_on_each_panel_can_be_read(name):
    """The panel's ink on its tint, and on a dark tint the other texts of a panel."""
    tint, ink = panel_tint(name), panel_ink(name)
    assert ink in (DARK_INK, LIGHT_INK)
    assert contrast(tint, ink) >= 4.5, f"{name}: {contrast(tint, ink):.2f}"
    if ink == LIGHT_INK:
        for text in PANEL_TEXTS:
            assert contrast(tint, text) >= 4.5, f"{name} {text}: {contrast(tint, text):.2f}"


def test_a_colour_without_a_tint_of_its_own_fades_towards_the_background():
    assert panel_tint("nobody")[:3] == pytest.approx((0.2872, 0.294, 0.3144))
    assert panel_ink("nobody") == LIGHT_INK


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_colour_has_a_letter_of_its_own_that_reads_as_no_digit(language):
    """A letter beside a count in the bag ("З0" read "30"), in a panel's disc, at the
    end of a chart's line: a letter, one for each colour, and no digit's look-alike."""
    set_language(language)
    letters = [letter(name) for name in SEATS]
    assert all(len(x) == 1 and x.isalpha() for x in letters), letters
    assert len(set(letters)) == len(SEATS), f"{language}: {letters}"
    lookalikes = {c: digit for digit, chars in DIGIT_LOOKALIKES.items() for c in chars}
    read = [f"{x} reads {lookalikes[x]}" for x in letters if x in lookalikes]
    assert not read, f"{language}: {read}"
