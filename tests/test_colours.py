"""The player colours stay apart for every player at the table.

Each two of the six are far apart in CAM02-UCS in normal vision and under a simulated
deutan, protan and tritan colour vision deficiency (colorspacious, severity 100); the text
drawn on each keeps a contrast of 4.5:1 (WCAG), and the numbers drawn on its panel's tint
too; each has a letter of its own in every language; the turn marker (white) is far from
every player colour. colorspacious is a dev dependency: without it the distances are not
measured (the rest still is).
"""

from __future__ import annotations

import itertools

import pytest

from companion.i18n import LANGUAGES, set_language
from companion.ui.colours import DARK_INK, LIGHT_INK, colour, letter, text_colour

SEATS = ["red", "yellow", "green", "blue", "purple", "orange"]

# The least CAM02-UCS distance (deltaE) between two player colours, in every vision below:
# the colours reach 20.75 (tritan: red and orange; normal 27.2, deutan 20.9, protan 21.0).
LEAST_DISTANCE = 20.7
# No player colour is closer than this to the turn marker (white), in any vision (protan:
# green, 20.0): the marker does not compete with a player's colour.
LEAST_FROM_MARKER = 20
MARKER = (1.0, 1.0, 1.0)
BACKGROUND = (0.14, 0.15, 0.18)  # the screens', the charts' (companion.ui.charts)
PANEL_INK = [(1.0, 1.0, 1.0), (0.92, 0.92, 0.95)]  # the figures and the line under them
VISIONS = [None, "deuteranomaly", "protanomaly", "tritanomaly"]


def rgb(name: str) -> tuple[float, float, float]:
    r, g, b, _a = colour(name)
    return (r, g, b)


def luminance(c) -> float:
    """WCAG 2 relative luminance of an sRGB colour (0..1 channels)."""

    def linear(v: float) -> float:
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(v) for v in c[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a, b) -> float:
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def seen(c, vision):
    """``c`` as a viewer with ``vision`` sees it (None: normal vision)."""
    colorspacious = pytest.importorskip(
        "colorspacious", reason="colorspacious (the dev extra) is not installed"
    )
    if vision is None:
        return c
    space = {"name": "sRGB1+CVD", "cvd_type": vision, "severity": 100}
    simulated = colorspacious.cspace_convert(c, space, "sRGB1")
    return tuple(min(max(float(v), 0.0), 1.0) for v in simulated)


def distance(a, b) -> float:
    colorspacious = pytest.importorskip(
        "colorspacious", reason="colorspacious (the dev extra) is not installed"
    )
    return float(colorspacious.deltaE(a, b, input_space="sRGB1", uniform_space="CAM02-UCS"))


def test_the_seats_are_the_colours_drawn():
    from companion.kinds.tschak.views import SEAT_COLOURS as TSCHAK_SEATS
    from companion.ui.widgets import SEAT_COLOURS

    assert list(SEAT_COLOURS) == SEATS
    assert list(TSCHAK_SEATS) == SEATS


@pytest.mark.parametrize("vision", VISIONS, ids=lambda v: v or "normal")
def test_every_two_player_colours_are_far_apart(vision):
    close = []
    for a, b in itertools.combinations(SEATS, 2):
        d = distance(seen(rgb(a), vision), seen(rgb(b), vision))
        if d < LEAST_DISTANCE:
            close.append(f"{a}-{b} {d:.1f}")
    assert not close, f"{vision or 'normal'} vision: {close} (least {LEAST_DISTANCE})"


@pytest.mark.parametrize("vision", VISIONS, ids=lambda v: v or "normal")
def test_no_player_colour_competes_with_the_turn_marker(vision):
    marker = seen(MARKER, vision)
    for name in SEATS:
        assert distance(seen(rgb(name), vision), marker) >= LEAST_FROM_MARKER, name


@pytest.mark.parametrize("vision", VISIONS, ids=lambda v: v or "normal")
def test_every_player_colour_stands_out_from_the_background(vision):
    """A chart's line, a panel's band and a cube are drawn on the dark background."""
    background = seen(BACKGROUND, vision)
    for name in SEATS:
        assert distance(seen(rgb(name), vision), background) >= 25, name


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
    """The figures and the line under them (white, near white) on the panel's tint, as
    the table draws it, and on an out player's fainter one."""
    from companion.ui.panel import _tint

    for amount in (0.32, 0.16):
        tint = _tint(colour(name), amount)
        for ink in PANEL_INK:
            assert contrast(tint, ink) >= 4.5, f"{name} {amount}: {contrast(tint, ink):.2f}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_colour_has_a_letter_of_its_own(language):
    set_language(language)
    letters = [letter(name) for name in SEATS]
    assert all(len(x) == 1 and x.isalpha() for x in letters), letters
    assert len(set(letters)) == len(SEATS), f"{language}: {letters}"
