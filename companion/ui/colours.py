"""Player colours, each with a letter so that colour never carries meaning alone.

The six player colours are told apart by lightness as well as by hue, so that they stay
apart for a player who sees reds and greens alike (deutan, protan) or blues and greens
alike (tritan): from dark to light, blue and red (white text), orange, purple (a light
violet), green (a light green) and yellow (dark text). Every two of them are at least
``tests/test_colours.py``'s ``LEAST_DISTANCE`` apart in CAM02-UCS, in normal vision and
in each simulated colour vision deficiency; each one's text (``text_colour``) keeps a
contrast of at least 4.5:1 on it, and each one at least 3:1 on the screens' dark
background (a chart's line, a panel's band). The turn marker is white: no player is
white, and none is near it.

A player's part of a screen (a panel, a column, a row) is filled with their tint
(``panel_tint``), with text in ``panel_ink``. A tint is not the colour faded towards the
background: six faded colours fall within 9 of each other for a colour-blind player
(yellow and orange, red and orange look the same), and white text caps how light they
may be. Each tint was chosen for lightness and chroma as well as hue, so that every two
stay 20 apart for every vision (``tests/test_colours.py``): red, blue, orange, green and
purple dark under white text, yellow light under dark text (as on its cubes).
"""

from __future__ import annotations

from companion.i18n import colour_letter

Rgba = tuple[float, float, float, float]

COLOURS: dict[str, Rgba] = {
    "red": (0.79, 0.22, 0.32, 1),
    "yellow": (1.0, 0.85, 0.01, 1),
    "green": (0.42, 0.86, 0.65, 1),
    "blue": (0.24, 0.38, 0.95, 1),
    "purple": (0.76, 0.6, 1.0, 1),
    "orange": (0.88, 0.54, 0.21, 1),
    "black": (0.35, 0.35, 0.38, 1),
    # a pale blue-white: 20 from every player colour for every vision (a chip in the bag)
    "ghost": (0.9, 0.95, 1.0, 1),
}
DARK_TEXT = {"yellow", "green", "purple", "orange", "ghost"}
DARK_INK: Rgba = (0.08, 0.08, 0.1, 1)
LIGHT_INK: Rgba = (1, 1, 1, 1)
BACKGROUND: Rgba = (0.14, 0.15, 0.18, 1)  # the screens' and the charts'
# Whose turn it is: a white frame round their panel and a white badge with the word
# "turn" in TURN_INK (the phones' page marks the player the same way, from these two).
TURN_MARK: Rgba = (1.0, 1.0, 1.0, 1.0)
TURN_INK: Rgba = (0.1, 0.1, 0.12, 1.0)
# A chart's tick where the dragon drew: white (a pale blue-white), 20 from every
# player's line for every vision (a red tick was the red player's colour to a tritan)
DRAGON_MARK: Rgba = (0.9, 0.95, 1.0, 1.0)

# The fill of a player's part of a screen. The five dark ones keep a contrast of 4.5:1
# at least under white and the near-white texts of a panel, and under its amber odds;
# yellow's under dark ink (6.9:1). Every two are 21 apart at least: protan 21.2 (green
# and orange), tritan 21.3 (green and blue), deutan 22.2 (blue and purple), normal 25.3.
TINTS: dict[str, Rgba] = {
    "red": (0.26, 0.09, 0.12, 1),
    "yellow": (0.72, 0.62, 0.10, 1),
    "green": (0.20, 0.40, 0.35, 1),
    "blue": (0.15, 0.13, 0.43, 1),
    "purple": (0.47, 0.20, 0.80, 1),
    "orange": (0.54, 0.20, 0.01, 1),
}


def colour(name: str) -> Rgba:
    return COLOURS.get(name, (0.6, 0.6, 0.6, 1))


def text_colour(name: str) -> Rgba:
    """The colour of text drawn on ``colour(name)`` (a letter on a cube, a disc, a chip)."""
    return DARK_INK if name in DARK_TEXT else LIGHT_INK


def towards_background(rgba: tuple[float, ...], amount: float) -> Rgba:
    """``rgba`` faded towards the background (0: the background, 1: the colour)."""
    r, g, b = (BACKGROUND[i] + (rgba[i] - BACKGROUND[i]) * amount for i in range(3))
    return (r, g, b, 1)


def panel_tint(name: str) -> Rgba:
    """The fill of ``name``'s part of a screen (a table panel, a Tschak! column or row).
    An out player (escaped, knocked out) keeps theirs: any fading brings the six within
    11 to 17 of each other for a colour-blind player (a panel says "out" in words)."""
    return TINTS.get(name) or towards_background(colour(name), 0.32)


def panel_ink(name: str) -> Rgba:
    """The colour of text and figures on ``panel_tint(name)``: white or dark, whichever
    stands out more (dark on yellow's light tint, white on every other)."""
    fill = panel_tint(name)
    return max((LIGHT_INK, DARK_INK), key=lambda ink: contrast(fill, ink))


def luminance(rgba: tuple[float, ...]) -> float:
    """WCAG 2 relative luminance of an sRGB colour (0..1 channels)."""

    def linear(v: float) -> float:
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(v) for v in rgba[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    """WCAG 2 contrast ratio of two colours: 4.5 at least for text, 3 for a graphic."""
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def letter(name: str) -> str:
    """R, Y, G, B, P, N in English; each language has its own (companion.i18n), none
    of them a letter that reads as a digit."""
    return colour_letter(name)
